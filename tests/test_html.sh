#!/usr/bin/env bash
# kcbp --html: each kind of page (collide with contacts and without, distance,
# sweep, a 3-frame scene) loads nothing from any network address, and
# headless Chromium renders it: the screenshot shows the contact red inside
# the contact triangles' screen box (and none where there is no contact), the
# closest points' magenta, and the meshes (tests/html_check.py decodes the PNG
# and checks it against the page's own report of where things are, read with
# --dump-dom). A page or file that cannot be written is exit 4 with nothing on
# stdout. The rendering checks are skipped, saying why, only where Chromium
# is missing or cannot draw WebGL. Prints cmocka-style lines for
# scripts/run_tests.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
KCBP=${KCBP_EXE:-./kcbp}
PY=${PYTHON:-python3}
echo "[==========] html: kcbp --html"
passed=0 failed=0
pass() { echo "[       OK ] html: $1"; passed=$((passed + 1)); }
fail() { echo "[  FAILED  ] html: $1"; failed=$((failed + 1)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kcbp-html-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

A=meshes/bunny2.obj B=meshes/spot.obj
cp meshes/bunny2.obj "$tmp/bunny2.obj"
cat >"$tmp/scene.json" <<'EOF'
{"objects": [{"name": "left", "mesh": "bunny2.obj", "position": [-0.3, 0, 0], "velocity": [0.2, 0, 0]},
             {"name": "right", "mesh": "bunny2.obj", "position": [0.3, 0, 0], "velocity": [-0.2, 0, 0],
              "rotation": {"axis": [0, 1, 0], "angle_deg": 40}}],
 "motion": {"frames": 3, "dt": 1}}
EOF

# page NAME CHECKS... -- kcbp ARGS: writes $tmp/NAME.html; the checks run later.
pages=()
declare -A checks
make_page() {
    local name=$1; shift
    local c=()
    while [[ $1 != -- ]]; do c+=("$1"); shift; done
    shift
    if "$KCBP" "$@" --html "$tmp/$name.html" >"$tmp/$name.out" 2>"$tmp/$name.err" && [[ -s $tmp/$name.html ]] &&
        [[ -s $tmp/$name.out ]]; then
        pages+=("$name")
        checks[$name]="${c[*]}"
        pass "$name: page written before the answer"
    else
        fail "$name: kcbp $* --html (stderr: $(cat "$tmp/$name.err"))"
    fi
}
make_page collide contacts meshes -- collide "$A" "$B" --pose-b "0.5 0 0 0 0 1 30" --contacts all
make_page apart no-contacts meshes -- collide "$A" "$B" --pose-b "3 0 0 0 0 1 30" --contacts all
make_page distance points meshes no-contacts -- distance "$A" "$B" --pose-b "1.2 0 0 0 0 1 30"
make_page sweep contacts meshes -- sweep "$A" "$B" --from "2 0 0 0 0 1 0" --to "-1 0.2 0 0 0 1 90"
make_page scene contacts meshes -- scene "$tmp/scene.json"

# The scene's frames come after its page, all three.
if [[ -s $tmp/scene.out ]] && [[ $(wc -l <"$tmp/scene.out") -eq 3 ]]; then
    pass "scene: three frames printed"
else
    fail "scene: expected three frame lines, got $(wc -l <"$tmp/scene.out" 2>/dev/null)"
fi

# No network address, no outside resource, a policy that forbids loads.
for p in "${pages[@]}"; do
    if msg=$("$PY" tests/html_check.py net "$tmp/$p.html" 2>&1); then
        pass "$p: $msg"
    else
        fail "$p: $msg"
    fi
done

# A page that cannot be written: exit 4, nothing on stdout, no file.
for cmd in "collide $A $B --html $tmp/no/such/dir/x.html" "collide $A $B --export $tmp/no/such/dir/x.glb" \
    "scene $tmp/scene.json --html $tmp/no/such/dir/x.html" "distance $A $B --html /dev/full"; do
    # shellcheck disable=SC2086
    out=$("$KCBP" $cmd 2>"$tmp/err"); rc=$?
    if [[ $rc -eq 4 && -z $out ]] && grep -q 'cannot' "$tmp/err"; then
        pass "unwritable: kcbp ${cmd%% *} exit 4, no answer"
    else
        fail "unwritable: kcbp $cmd: exit $rc, stdout '${out:0:80}', stderr $(cat "$tmp/err")"
    fi
done

# Rendering: Chromium headless with software WebGL.
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
W=900 H=650
run_chrome() { # run_chrome FLAGS MODE(dom|png) PAGE OUT [HASH]
    local prof
    prof=$(mktemp -d "$tmp/profile-XXXXXX")
    local url="file://$(realpath "$3")#size=${W}x${H}${5:-}"
    local mode=(--dump-dom)
    [[ $2 == png ]] && mode=(--screenshot="$4")
    # shellcheck disable=SC2086
    timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
        --window-size=$W,$H $1 "${mode[@]}" "$url" >"$tmp/chrome.out" 2>"$tmp/chrome.err"
    local rc=$?
    [[ $2 == dom ]] && sed -n 's/.*<pre id="kcbp-stats">\(.*\)<\/pre>.*/\1/p' "$tmp/chrome.out" >"$4"
    rm -rf "$prof"
    return $rc
}
if [[ -z $chrome ]]; then
    echo "[  SKIPPED ] html: rendering: Chromium is not installed (scripts/setup.sh installs chromium)"
elif ! "$PY" -c 'import zlib' 2>/dev/null; then
    echo "[  SKIPPED ] html: rendering: python3 with zlib is needed to read the screenshots"
else
    # Software WebGL: SwiftShader through ANGLE is what works on Debian's
    # Chromium 120+ (WebGL on SwiftShader must be allowed explicitly); the
    # older spellings are tried after it.
    flags=""
    for f in "--use-gl=angle --use-angle=swiftshader --enable-unsafe-swiftshader" "--use-gl=swiftshader" \
        "--enable-unsafe-swiftshader" ""; do
        if run_chrome "$f" dom "$tmp/collide.html" "$tmp/probe.json" &&
            grep -q '"ready":true' "$tmp/probe.json" && grep -q '"errors":\[\]' "$tmp/probe.json"; then
            flags=$f
            found=1
            break
        fi
    done
    if [[ -z ${found:-} ]]; then
        echo "[  SKIPPED ] html: rendering: Chromium cannot draw WebGL here ($(tail -n 3 "$tmp/chrome.err" | tr '\n' ' '))"
    else
        for p in "${pages[@]}"; do
            hash=""
            [[ $p == scene ]] && hash="&frame=2"
            if ! run_chrome "$flags" dom "$tmp/$p.html" "$tmp/$p.json" "$hash" ||
                ! run_chrome "$flags" png "$tmp/$p.html" "$tmp/$p.png" "$hash"; then
                fail "$p: Chromium failed ($(tail -n 2 "$tmp/chrome.err" | tr '\n' ' '))"
                continue
            fi
            # shellcheck disable=SC2086
            if msg=$("$PY" tests/html_check.py png "$tmp/$p.png" "$tmp/$p.json" ${checks[$p]} 2>&1); then
                pass "$p: rendered: $(echo "$msg" | tr '\n' ';')"
            else
                fail "$p: rendered: $msg"
                [[ -n ${KCBP_KEEP_SHOTS:-} ]] && cp "$tmp/$p.png" "$tmp/$p.json" "$KCBP_KEEP_SHOTS/"
            fi
        done
    fi
fi
echo "[==========] html: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
