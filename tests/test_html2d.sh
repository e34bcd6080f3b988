#!/usr/bin/env bash
# kcbp --html on 2D inputs (cli/html2d*.c): for each kind of answer (collide
# with contact edges, apart, contained, two shapes; distance apart; --signed
# overlapping, exact and bracketed; an SVG file with holes) the page is
# well-formed, loads nothing, holds the answer printed, draws exactly what
# the answer has and its legend lists exactly that, in a viewBox fitted to
# it (tests/html2d_check.py); A's outline is its posed vertices; headless
# Chromium renders it with the contact red and the points' magenta where
# they belong and nowhere else. A page that cannot be written is exit 4
# with nothing on stdout. The rendering checks are skipped, saying why, only
# where Chromium is missing. The same for 2D kcbp sweep (a hit between
# files, a shape and a file, a miss, --sweeps: the path of B's centre and
# the point at toi where the motion puts them) and 2D kcbp scene (a moving
# scene at --frame 5, parcels with polygon files: every object in a colour
# of its own, the colliding ones and the pairs listed exactly the report's,
# circles at their poses, the contact edges the report names; --frame out
# of range, a scene over the page's bound and --frame with a 3D scene's
# --html refused). Prints cmocka-style lines for
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

# kcbp sweep --html: make_sweep NAME "A_POSE" "FROM" "TO" "CX CY" ITEMS... -- A B
make_sweep() {
    local name=$1 pa=$2 from=$3 to=$4 c=$5; shift 5
    local it=()
    while [[ $1 != -- ]]; do it+=("$1"); shift; done
    shift
    # shellcheck disable=SC2086
    if "$KCBP" sweep "$@" --pose-a "$pa" --from "$from" --to "$to" --html "$tmp/$name.html" >"$tmp/$name.json" \
        2>"$tmp/$name.err" && msg=$("$PY" tests/html2d_check.py sweep "$tmp/$name.html" "$tmp/$name.json" $pa $from $to $c \
        "${it[@]}" 2>&1); then
        pages+=("$name")
        items[$name]="${it[*]}"
        pass "$name: $msg"
    else
        fail "$name: kcbp sweep $* --html: ${msg:-exit $?, $(cat "$tmp/$name.err")}"
    fi
    msg=
}
make_sweep sweep_files "0 0 10" "-8 0 0" "8 1 90" "2 1.5" a from to b path contacts points normal -- "$P" "$P"
make_sweep sweep_shape "0 0 0" "-3 1.5 0" "8 1.5 270" "0 0" a from to b path contacts points normal -- "$P" rect:1:0.4
make_sweep sweep_shape_a "1 -1 30" "-6 3 0" "6 -3 45" "2 1.5" a from to b path contacts points normal -- circle:1 "$P"
make_sweep sweep_miss "0 0 0" "-8 12 0" "8 12 360" "2 1.5" a from to path -- "$P" "$P"
# --sweeps: the first sweep's page.
printf '# two sweeps\n-8 0 0 8 1 90\n-8 9 0 8 9 0\n' >"$tmp/sweeps.txt"
if "$KCBP" sweep "$P" "$P" --pose-a "0 0 10" --sweeps "$tmp/sweeps.txt" --html "$tmp/sweeps.html" >"$tmp/sweeps.jsonl" 2>&1 &&
    head -n 1 "$tmp/sweeps.jsonl" >"$tmp/sweeps.json" &&
    msg=$("$PY" tests/html2d_check.py sweep "$tmp/sweeps.html" "$tmp/sweeps.json" 0 0 10 -8 0 0 8 1 90 2 1.5 \
        a from to b path contacts points normal 2>&1); then
    pass "sweeps: the first sweep's page: $msg"
else
    fail "sweeps: ${msg:-kcbp failed: $(cat "$tmp/sweeps.jsonl")}"
fi
msg=
out=$("$KCBP" sweep "$P" circle:1 --from "-5 0 0" --to "5 0 0" --html "$tmp/no/such/dir/x.html" 2>"$tmp/err"); rc=$?
if [[ $rc -eq 4 && -z $out ]] && grep -q 'cannot' "$tmp/err"; then
    pass "sweep: unwritable page: exit 4, no answer"
else
    fail "sweep: unwritable page: exit $rc, stdout '${out:0:80}'"
fi

# kcbp scene --html on 2D scenes.
make_scene() {
    local name=$1 scene=$2 frame=$3 it=$4; shift 4
    if "$KCBP" scene "$scene" --contacts all --html "$tmp/$name.html" "$@" >"$tmp/$name.jsonl" 2>"$tmp/$name.err" &&
        msg=$("$PY" tests/html2d_check.py scene "$tmp/$name.html" "$scene" "$tmp/$name.jsonl" "$frame" 2>&1); then
        pages+=("$name")
        items[$name]=$it
        pass "$name: $msg"
    else
        fail "$name: kcbp scene $scene --html $*: ${msg:-exit $?, $(cat "$tmp/$name.err")}"
    fi
    msg=
}
"$KCBP" scene --generate nesting --n 60 --seed 3 --output "$tmp/nest.json"
"$KCBP" scene --generate parcels --n 30 --seed 2 --output "$tmp/par.json"
"$PY" - "$tmp/par.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d['objects'] += [{'name': 'lot', 'mesh': 'parcels.geojson', 'pose': [1.5, 1.2, 15]},
                 {'name': 'lot <2> & co', 'mesh': 'parcels.geojson', 'pose': [4.2, 2.0, -20]}]
json.dump(d, open(sys.argv[1], 'w'))
PYEOF
make_scene scene_moving "$tmp/nest.json" 5 contacts --frame 5
make_scene scene_files "$tmp/par.json" 0 contacts
cat >"$tmp/few.json" <<'EOF'
{"objects": [{"name": "disc", "shape": {"circle": {"radius": 1}}, "pose": [3, 4, 0]},
             {"name": "bar", "shape": {"capsule2d": {"radius": 0.3, "length": 3}}, "pose": [3.5, 4.5, 30]},
             {"name": "lone", "shape": {"rect": {"size": [1, 2], "radius": 0.2}}, "pose": [-3, 0, 10]},
             {"name": "lot", "mesh": "parcels.geojson", "pose": [6, 1, 0]}]}
EOF
cat >"$tmp/one.json" <<'EOF'
{"objects": [{"name": "only", "shape": {"circle": {"radius": 1}}, "pose": [3, 4, 0]}]}
EOF
make_scene scene_few "$tmp/few.json" 0 contacts --margin 0.5
make_scene scene_one "$tmp/one.json" 0 ""
if [[ $(grep -c '<li>' "$tmp/scene_files.html") -gt 20 ]] && ! grep -q 'id="kcbp-pairs" open' "$tmp/scene_files.html" &&
    grep -q 'id="kcbp-pairs" open' "$tmp/scene_few.html" && ! grep -q 'kcbp-pairs' "$tmp/scene_one.html"; then
    pass "scene: a long list of pairs collapsed, a short one open"
else
    fail "scene: the pairs' list not collapsed when long, or not open when short"
fi
# 10^5 objects: a page of bounded size, every object in it.
"$KCBP" scene --generate parcels --n 100000 --output "$tmp/big.json"
if "$KCBP" scene "$tmp/big.json" --contacts none --html "$tmp/big.html" >/dev/null 2>"$tmp/err" &&
    bytes=$(stat -c %s "$tmp/big.html") && [[ $bytes -lt 30000000 ]] &&
    [[ $(grep -o 'data-i="' "$tmp/big.html" | wc -l) -eq 100000 ]]; then
    pass "scene: 10^5 objects, a page of $((bytes / 1000000)) MB"
else
    fail "scene: 10^5 objects: ${bytes:-no page} bytes, $(cat "$tmp/err")"
fi
# refused: a frame out of range, a scene over the page's bound, --frame with a 3D page, an unwritable page
"$KCBP" scene --generate parcels --n 250001 --output "$tmp/huge.json"
for bad in "nest.json --frame 10:3:frames" "huge.json:4:at most 250000" "nest.json --html-to $tmp/no/such/x.html:4:cannot"; do
    IFS=: read -r argstr want_rc want_msg <<<"$bad"
    read -ra args <<<"$argstr"
    args[0]=$tmp/${args[0]}
    html=$tmp/bad.html
    if [[ ${args[1]:-} == --html-to ]]; then html=${args[2]}; args=("${args[0]}"); fi
    rm -f "$tmp/bad.html"
    out=$("$KCBP" scene "${args[@]}" --html "$html" 2>"$tmp/err"); rc=$?
    if [[ $rc -eq $want_rc && -z $out ]] && grep -q "$want_msg" "$tmp/err" && [[ ! -e $tmp/bad.html ]]; then
        pass "scene: refused ($(head -n 1 "$tmp/err"))"
    else
        fail "scene ${args[*]}: exit $rc (want $want_rc), stdout '${out:0:80}', stderr $(cat "$tmp/err")"
    fi
done
"$KCBP" scene --generate thesis --mesh meshes/suzanne.obj --n 2 --output "$tmp/three.json" 2>/dev/null
if ! "$KCBP" scene "$tmp/three.json" --mesh-root . --frame 0 --html "$tmp/three.html" >/dev/null 2>"$tmp/err" &&
    grep -q 'for 2D scenes' "$tmp/err"; then
    pass "scene: --frame with a 3D scene's --html refused"
else
    fail "scene: --frame with a 3D scene's --html: $(cat "$tmp/err")"
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
