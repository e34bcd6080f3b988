#!/usr/bin/env bash
# kcbp --html on 2D inputs (cli/html2d.c): for each kind of answer (collide
# with contact edges, apart, contained, two shapes; distance apart; --signed
# overlapping, exact and bracketed; an SVG file with holes) the page is
# well-formed, loads nothing, holds the answer printed, draws exactly what
# the answer has and its legend lists exactly that, in a viewBox fitted to
# it (tests/html2d_check.py); A's outline is its posed vertices; headless
# Chromium renders it with the contact red and the points' magenta where
# they belong and nowhere else. A page that cannot be written is exit 4
# with nothing on stdout. The rendering checks are skipped, saying why, only
# where Chromium is missing. Prints cmocka-style lines for
# scripts/run_tests.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
KCBP=${KCBP_EXE:-./kcbp}
PY=${PYTHON:-python3}
echo "[==========] html2d: kcbp --html on 2D inputs"
passed=0 failed=0
pass() { echo "[       OK ] html2d: $1"; passed=$((passed + 1)); }
fail() { echo "[  FAILED  ] html2d: $1"; failed=$((failed + 1)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kcbp-html2d-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/parcels.geojson" <<'EOF'
{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {},
 "geometry": {"type": "Polygon", "coordinates": [[[0,0],[4,0],[4,3],[0,3],[0,0]],
                                                 [[1,1],[2,1],[2,2],[1,2],[1,1]]]}}]}
EOF
cat >"$tmp/frames.svg" <<'EOF'
<svg><path d="M0 0H100V100H0Z M10 10H90V90H10Z M20 20H80V80H20Z M30 30H70V70H30Z"/><circle cx="50" cy="50" r="5"/></svg>
EOF
P=$tmp/parcels.geojson

# make_page NAME ITEMS... -- kcbp ARGS: the page and the answer, then the page's checks.
pages=()
declare -A items
make_page() {
    local name=$1; shift
    local c=()
    while [[ $1 != -- ]]; do c+=("$1"); shift; done
    shift
    if "$KCBP" "$@" --html "$tmp/$name.html" >"$tmp/$name.json" 2>"$tmp/$name.err" && [[ -s $tmp/$name.html ]]; then
        if msg=$("$PY" tests/html2d_check.py page "$tmp/$name.html" "$tmp/$name.json" "${c[@]}" 2>&1); then
            pages+=("$name")
            items[$name]="${c[*]}"
            pass "$name: $msg"
        else
            fail "$name: kcbp $*: $msg"
        fi
    else
        fail "$name: kcbp $* --html (exit $?, stderr: $(cat "$tmp/$name.err"))"
    fi
}
make_page collide a b overlap contacts -- collide "$P" circle:0.6 --pose-b "1.5 1.5 0"
make_page in_hole a b -- collide "$P" circle:0.4 --pose-b "1.5 1.5 0"
make_page contained a b overlap -- collide "$P" rect:0.5:0.5 --pose-b "3 2 10"
make_page shapes a b overlap -- collide capsule2d:0.5:2 rect:1:1:0.2 --pose-b "1 0.5 45"
make_page files a b overlap contacts -- collide "$tmp/frames.svg" "$P" --pose-b "8 -1 10"
make_page distance a b points -- distance "$P" rect:1:1 --pose-b "5 1 30"
make_page signed_apart a b points normal -- distance "$P" rect:1:1 --pose-b "5 1 30" --signed
make_page signed_convex a b overlap points normal translation -- distance circle:1 rect:2:2:0.3 --pose-b "1.5 0 20" --signed
make_page bracketed a b overlap points normal translation -- distance "$P" capsule2d:0.3:2 --pose-b "3.5 2.5 30" --signed
make_page shape_first a b overlap contacts -- collide circle:0.6 "$P" --pose-a "1.5 1.5 0"
make_page margin a b overlap contacts -- collide "$P" circle:0.45 --pose-b "1.5 1.5 0" --margin 0.1

# A capsule of length 0 is drawn as the circle it is (no arcs of zero turn).
if "$KCBP" collide capsule2d:1:0 circle:1 --pose-b "1 0 0" --html "$tmp/cap0.html" >/dev/null 2>&1 &&
    grep -q '<circle [^>]*id="kcbp-a"' "$tmp/cap0.html"; then
    pass "capsule of length 0: a circle"
else
    fail "capsule of length 0: not drawn as a circle"
fi

# A's outline at its pose, against the file's rings posed here.
if "$KCBP" collide "$P" circle:1 --pose-a "0.5 -0.25 30" --pose-b "9 9 0" --html "$tmp/posed.html" >/dev/null 2>&1 &&
    msg=$("$PY" tests/html2d_check.py pose "$tmp/posed.html" "$P" 0.5 -0.25 30 2>&1); then
    pass "posed: $msg"
else
    fail "posed: ${msg:-kcbp failed}"
fi

# The contacts drawn are the answer's: A's edges named in it, each once.
want=$("$PY" -c 'import json,sys; print(len({c[0] for c in json.load(open(sys.argv[1]))["contacts"]}))' "$tmp/collide.json")
got=$(grep -o 'id="kcbp-contacts-a"[^>]*' "$tmp/collide.html" | grep -o 'd="[^"]*"' | grep -o M | wc -l)
if [[ $want -gt 0 && $got -eq $want ]]; then
    pass "collide: the $want contact edges of A in the answer are drawn"
else
    fail "collide: $got contact edges drawn, the answer names $want"
fi

# A page that cannot be written: exit 4, nothing on stdout, no file left.
for target in "$tmp/no/such/dir/x.html" /dev/full "$tmp"; do
    out=$("$KCBP" distance "$P" circle:1 --pose-b "9 0 0" --html "$target" 2>"$tmp/err"); rc=$?
    if [[ $rc -eq 4 && -z $out ]] && grep -q 'cannot' "$tmp/err" && [[ ! -e $tmp/no ]]; then
        pass "unwritable $target: exit 4, no answer ($(cat "$tmp/err"))"
    else
        fail "unwritable $target: exit $rc, stdout '${out:0:80}', stderr $(cat "$tmp/err")"
    fi
done
# --html needs its value; 3D options are still refused on 2D inputs.
if "$KCBP" collide "$P" circle:1 --html >/dev/null 2>"$tmp/err"; then
    fail "--html without a value was accepted"
else
    pass "--html without a value: $(head -n 1 "$tmp/err")"
fi

# Rendering: headless Chromium (no WebGL needed: the page is SVG).
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $chrome ]]; then
    echo "[  SKIPPED ] html2d: rendering: Chromium is not installed (scripts/setup.sh installs chromium)"
elif ! "$PY" -c 'import zlib' 2>/dev/null; then
    echo "[  SKIPPED ] html2d: rendering: python3 with zlib is needed to read the screenshots"
else
    for p in "${pages[@]}"; do
        prof=$(mktemp -d "$tmp/profile-XXXXXX")
        if ! timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$prof" \
            --hide-scrollbars --window-size=900,650 --screenshot="$tmp/$p.png" "file://$(realpath "$tmp/$p.html")" \
            >"$tmp/chrome.out" 2>"$tmp/chrome.err" || [[ ! -s $tmp/$p.png ]]; then
            fail "$p: Chromium failed ($(tail -n 2 "$tmp/chrome.err" | tr '\n' ' '))"
            continue
        fi
        rm -rf "$prof"
        # shellcheck disable=SC2086
        if msg=$("$PY" tests/html2d_check.py png "$tmp/$p.png" ${items[$p]} 2>&1); then
            pass "$p: rendered: $msg"
        else
            fail "$p: rendered: $msg"
            [[ -n ${KCBP_KEEP_SHOTS:-} ]] && cp "$tmp/$p.png" "$tmp/$p.html" "$KCBP_KEEP_SHOTS/"
        fi
    done
fi
echo "[==========] html2d: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
