#!/bin/bash
# bench/max_pairs.sh: `kcbp scene --max-pairs 10` on the thesis layout
# (`kcbp scene --generate thesis`, bunny2 copies in [-4, 4]^3: at 10^5
# objects about 137 million colliding pairs), issue 33's cap that must stop
# the work. CPU time of the whole command (user + sys of /usr/bin/time: the
# machine is shared, so not wall time), median of RUNS, scene generation
# excluded; the frame's own "detect" time and the counts it reports.
#
#   bench/max_pairs.sh
#   KCBP=/path/to/old/kcbp SIZES="10000" RUNS=1 bench/max_pairs.sh
#
# Output: a markdown table on stdout (and in bench/out/max_pairs/table.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [[ -z ${KCBP:-} ]]; then
    make -C "$root" -j2 >/dev/null
    KCBP=$root/build/kcbp
fi
out="$here/out/max_pairs"
mkdir -p "$out"
cp "$root/meshes/bunny2.obj" "$out/"
SIZES=${SIZES:-"10000 30000 100000"}
RUNS=${RUNS:-3}
JOBS=${JOBS:-2}
{
    printf '| objects | --max-pairs | --jobs | CPU ms (median of %s) | detect ms | passed.broadphase | colliding_found |\n' "$RUNS"
    printf '|---|---|---|---|---|---|---|\n'
    for n in $SIZES; do
        f="$out/thesis-$n.json"
        [[ -f $f ]] || (cd "$out" && "$root/build/kcbp" scene --generate thesis --mesh bunny2.obj --n "$n") > "$f"
        times=() det="" bp="" found=""
        for ((r = 0; r < RUNS; r++)); do
            res=$( { /usr/bin/time -f "CPU %U %S" "$KCBP" scene "$f" --max-pairs 10 --jobs "$JOBS"; } 2>&1 )
            times+=("$(awk '/^CPU/ { printf "%.0f", ($2 + $3) * 1000 }' <<<"$res")")
            det=$(grep -o '"detect":[0-9.]*' <<<"$res" | cut -d: -f2)
            bp=$(grep -o '"passed":{"broadphase":[0-9]*' <<<"$res" | sed 's/.*://')
            found=$(grep -o '"colliding_found":[0-9]*' <<<"$res" | cut -d: -f2)
        done
        [[ -n $found ]] || { echo "max_pairs.sh: $f: no \"colliding_found\" in: $res" >&2; exit 1; }
        ms=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
        printf '| %s | 10 | %s | %s | %.0f | %s | %s |\n' "$((n + 1))" "$JOBS" "$ms" "$det" "$bp" "$found"
    done
} | tee "$out/table.md"
