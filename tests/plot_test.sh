#!/usr/bin/env bash
# kcbp bench --plot renders each format its extension names (.svg, .png,
# .pdf) and the file starts with that format's magic bytes; any other
# extension is refused before the bench runs. Skipped when gnuplot is
# missing. Prints cmocka-style lines so that scripts/run_tests.sh counts them.
set -uo pipefail
cd "$(dirname "$0")/.."
KCBP=${KCBP_EXE:-./kcbp}
echo "[==========] plot: kcbp bench --plot"
passed=0 failed=0
pass() { echo "[       OK ] plot: $1"; passed=$((passed + 1)); }
fail() { echo "[  FAILED  ] plot: $1"; failed=$((failed + 1)); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kcbp-plot-test-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# A refused extension: exit 2, nothing written, nothing on stdout.
out=$("$KCBP" bench --n 5 --runs 1 --bv sphere --plot "$tmp/plot.gif" 2>"$tmp/err"); rc=$?
if [[ $rc -eq 2 && -z $out && ! -e $tmp/plot.gif ]] && grep -q '.svg, .png or .pdf' "$tmp/err"; then
    pass "refuses .gif"
else
    fail "refuses .gif (exit $rc, stderr: $(cat "$tmp/err"))"
fi

if ! command -v gnuplot >/dev/null; then
    echo "[  SKIPPED ] plot: gnuplot is not installed (scripts/setup.sh installs gnuplot-nox)"
else
    # The bytes each file must start with: SVG text (an XML declaration or
    # the svg element), the PNG signature, the PDF header.
    for ext in svg png PDF; do
        f="$tmp/plot.$ext"
        "$KCBP" bench --n 5,15 --runs 2 --bv sphere,aabb,16-cbp-greedy --plot "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
        head=$(head -c 64 "$f" 2>/dev/null | od -An -c | tr -d ' \n')
        case $ext in
        svg) [[ $head == '<?xml'* || $head == '<svg'* ]]; ok=$? ;;
        png) [[ $head == '211PNG\r\n032\n'* ]]; ok=$? ;;
        PDF) [[ $head == '%PDF-'* ]]; ok=$? ;;
        esac
        if [[ $rc -eq 0 && $ok -eq 0 ]] && [[ -s $tmp/out ]]; then
            pass "renders .$ext"
        else
            fail "renders .$ext (exit $rc, starts with '$head', stderr: $(cat "$tmp/err"))"
        fi
    done
fi
echo "[==========] plot: $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[[ $failed -gt 0 ]] && echo "[  FAILED  ] $failed test(s)."
[[ $failed -eq 0 ]]
