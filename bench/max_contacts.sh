#!/bin/bash
# bench/max_contacts.sh: `--contacts all --max-contacts 10` must stop the
# work, not only shorten the list (issue 33's caps). Two coincident copies
# of the 69k-triangle Stanford bunny (`kcbp collide`, about 0.9 million
# contacts), and N coincident copies of bench/gen_scale's 464-triangle blob
# turned alike (`kcbp scene`, every pair colliding, hundreds of millions of
# contacts), each without the cap and with it, interleaved. CPU time of the
# whole command (user + sys of /usr/bin/time: the machine is shared, so not
# wall time), median of RUNS; the query's or frame's own time (wall clock:
# noisy on a loaded machine) and the count it reports ("contacts_found":
# with the cap, a lower bound, "stopped").
#
#   bench/max_contacts.sh
#   KCBP=/path/to/old/kcbp RUNS=1 N=100 bench/max_contacts.sh   # the code before: no "stopped"
#
# Output: a markdown table on stdout (and in bench/out/max_contacts/table.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [[ -z ${KCBP:-} ]]; then
    make -C "$root" -j2 >/dev/null
    KCBP=$root/build/kcbp
fi
make -s -C "$here" gen_scale >/dev/null
out="$here/out/max_contacts"
mkdir -p "$out"
RUNS=${RUNS:-3}
N=${N:-100}
bunny="$root/meshes/stanford-bunny.obj"
"$here/gen_scale" meshes "$out" "$root/meshes/bunny2.obj" >/dev/null
"$here/gen_scale" scene coincident_blob "$N" 1 1 "$out/blobs-$N.json" >/dev/null
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
declare -A cpu own found stopped
cases=("collide-all" "collide-cap" "scene-all" "scene-cap")
for ((r = 0; r < RUNS; r++)); do
    for c in "${cases[@]}"; do
        cap=()
        [[ $c == *-cap ]] && cap=(--max-contacts 10)
        if [[ $c == collide-* ]]; then
            cmd=("$KCBP" collide "$bunny" "$bunny" --contacts all "${cap[@]}")
        else
            cmd=("$KCBP" scene "$out/blobs-$N.json" --contacts all --jobs 1 "${cap[@]}")
        fi
        /usr/bin/time -f "%U %S" -o "$out/time" "${cmd[@]}" >"$out/out.json"
        cpu[$c]+=" $(awk '{ printf "%.0f", ($1 + $2) * 1000 }' "$out/time")"
        if [[ $c == collide-* ]]; then
            own[$c]+=" $(grep -o '"query_ms":[0-9.e+-]*' "$out/out.json" | head -n 1 | cut -d: -f2 || true)"
        else
            own[$c]+=" $(grep -o '"detect":[0-9.e+-]*' "$out/out.json" | head -n 1 | cut -d: -f2 || true)"
        fi
        found[$c]=$(grep -o '"contacts_found":[0-9]*' "$out/out.json" | head -n 1 | cut -d: -f2 || true)
        stopped[$c]=$(grep -o '"stopped":"[a-z_]*"' "$out/out.json" | head -n 1 | cut -d: -f2 || true)
    done
done
{
    printf '| case | command | CPU ms (median of %s) | query or detect ms | contacts_found | stopped |\n' "$RUNS"
    printf '|---|---|---|---|---|---|\n'
    for c in "${cases[@]}"; do
        what="collide stanford-bunny x2 coincident --contacts all"
        [[ $c == scene-* ]] && what="scene $N coincident blobs --contacts all --jobs 1"
        [[ $c == *-cap ]] && what+=" --max-contacts 10"
        printf '| %s | %s | %s | %.3f | %s | %s |\n' "$c" "$what" "$(median <<<"${cpu[$c]}")" \
            "$(median <<<"${own[$c]}")" "${found[$c]:--}" "${stopped[$c]:--}"
    done
} | tee "$out/table.md"
