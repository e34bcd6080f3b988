#!/bin/bash
# bench/self_degenerate.sh: `kcbp self --contacts none` on one polygon (one
# OBJ face) of N corners that coincide, for N = 25,000 to 200,000 (issue 33's
# growth test for kcbp self): every corner at one point ("point"), corners
# alternating between two points ("two"), a square whose first N - 3 corners
# are all at one of its corners ("square-rep"), and a square with N corners
# along its four sides ("square-col", collinear corners). Each row gives the
# CPU time of the whole command (user + sys, /usr/bin/time: the machine is
# shared, so not wall time), the median of RUNS, its query_ms and box_pairs,
# and the ratio of 2N over N (about 2: linear; about 4: quadratic).
#
#   bench/self_degenerate.sh
#   KCBP=/path/to/old/kcbp SIZES="5000 10000 20000" bench/self_degenerate.sh
#
# Output: a markdown table on stdout (and in bench/out/self_degenerate/table.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [[ -z ${KCBP:-} ]]; then
    make -C "$root" -j2 >/dev/null
    KCBP=$root/build/kcbp
fi
out="$here/out/self_degenerate"
mkdir -p "$out"
SIZES=${SIZES:-"25000 50000 100000 200000"}
RUNS=${RUNS:-3}
gen() { # shape n file
    awk -v shape="$1" -v n="$2" 'BEGIN {
        m = int(n / 4)
        for (i = 0; i < n; i++) {
            if (shape == "point") { x = 1; y = 2; z = 3 }
            else if (shape == "two") { x = i % 2; y = 0; z = 0 }
            else if (shape == "square-rep") {
                z = 0
                if (i < n - 3) { x = 0; y = 0 }
                else if (i == n - 3) { x = 1; y = 0 } else if (i == n - 2) { x = 1; y = 1 } else { x = 0; y = 1 }
            } else { # square-col: 4 m corners along the sides
                s = int(i / m); t = (i % m) / m; z = 0
                if (s == 0) { x = t; y = 0 } else if (s == 1) { x = 1; y = t }
                else if (s == 2) { x = 1 - t; y = 1 } else { x = 0; y = 1 - t }
            }
            printf "v %.17g %.17g %.17g\n", x, y, z
        }
        printf "f"
        for (i = 1; i <= (shape == "square-col" ? 4 * m : n); i++) printf " %d", i
        printf "\n"
    }' > "$3"
}
{
    printf '| shape | N | CPU ms (median of %s) | query_ms | box_pairs | ratio 2N/N |\n|---|---|---|---|---|---|\n' "$RUNS"
    for shape in point two square-rep square-col; do
        prev=""
        for n in $SIZES; do
            f="$out/$shape-$n.obj"
            gen "$shape" "$n" "$f"
            times=() q="" bp=""
            for ((r = 0; r < RUNS; r++)); do
                res=$( { /usr/bin/time -f "CPU %U %S" "$KCBP" self "$f" --contacts none; } 2>&1 )
                times+=("$(awk '/^CPU/ { printf "%.0f", ($2 + $3) * 1000 }' <<<"$res")")
                q=$(grep -o '"query_ms":[0-9.]*' <<<"$res" | cut -d: -f2)
                bp=$(grep -o '"box_pairs":[0-9]*' <<<"$res" | cut -d: -f2)
            done
            ms=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
            ratio=$([[ -n $prev && $prev != 0 ]] && awk -v a="$ms" -v b="$prev" 'BEGIN { printf "%.2f", a / b }' || echo "")
            printf '| %s | %s | %s | %.1f | %s | %s |\n' "$shape" "$n" "$ms" "$q" "$bp" "$ratio"
            prev=$ms
            rm -f "$f"
        done
    done
} | tee "$out/table.md"
