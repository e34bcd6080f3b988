#!/usr/bin/env bash
# bench/threads_cpu.sh: a frame's thread CPU per stage and per thread, --jobs 1
# against --jobs 2, on bench/gen_scale's static scenes (issue 33 item 2:
# --jobs 2 at least 1.7x --jobs 1 from 10^4 objects). Wall clock is noise on
# a shared machine; each thread's CPU time is not: see bench/threads_cpu.py
# for what is counted and how the speed-up bound is derived.
#
#   bench/threads_cpu.sh                                  # density and cad, 10^4 and 10^5, RUNS=3
#   SCENES=density SIZES=10000 RUNS=5 bench/threads_cpu.sh
#
# It copies the source tree to OUT/tree (default bench/out/threads_cpu),
# adds the counters there (never in this tree), builds that copy's kcbp,
# and prints a markdown table (also in OUT/table.md). Exits 1 when runs
# find different pairs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-"$here/out/threads_cpu"}
SCENES=${SCENES:-"density cad"}
SIZES=${SIZES:-"10000 100000"}
RUNS=${RUNS:-3}
export RUNS
make -s -C "$here" gen_scale >&2
rm -rf "$out/tree"
mkdir -p "$out/tree"
(cd "$root" && git ls-files -co --exclude-standard -z | grep -zv '^bench/out/' | xargs -0 cp --parents -t "$out/tree")
/usr/bin/python3 "$here/threads_cpu.py" instrument "$out/tree"
make -s -C "$out/tree" -j2 build/kcbp >"$out/build.log" 2>&1 || { tail -n 5 "$out/build.log" >&2; exit 2; }
"$here/gen_scale" meshes "$out" "$root/meshes/bunny2.obj" >/dev/null
files=()
for s in $SCENES; do
    for n in $SIZES; do
        f="$out/$s-$n.json"
        [[ -f $f ]] || "$here/gen_scale" scene "$s" "$n" 1 1 "$f" >/dev/null
        files+=("$f")
    done
done
/usr/bin/python3 "$here/threads_cpu.py" run "$out/tree/build/kcbp" "${files[@]}" | tee "$out/table.md"
