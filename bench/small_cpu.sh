#!/usr/bin/env bash
# bench/small_cpu.sh: the CPU time of the small scenes' frames, two builds of
# libkcbp.so side by side (bench/frame_cpu: `kcbp scene`'s default options,
# --jobs 1). On a shared machine the wall clock of a 0.1 ms frame moves by 2x
# from run to run (bench/README.md, "Small scenes, second pass"); the CPU time
# of the frame calls moves far less. Each row: medians of R processes per
# build, the builds alternating (base new base new ...).
#
#   BASE=/tmp/main-build bench/small_cpu.sh      # BASE: a directory holding the base libkcbp.so.1
#   BASE=... NEW=... R=31 SCENES="density-10 m10" bench/small_cpu.sh
#
# Static scenes (one frame): "cold" is the process's first evaluation of the
# frame, timed (as `kcbp scene` runs it: cold caches and branch predictors);
# "warm" the median of 5 runs of 200 evaluations each, after a warm-up (the
# frame's instructions, its misses gone). Moving scenes: one run of every
# frame after a warm-up run. The scenes are those of bench/small_scenes.sh
# (run it first, or NO_BUILD= R=1 SCENES=... bench/small_scenes.sh). Exits 1
# when the builds find other pairs or contacts.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
: "${BASE:?BASE: the directory of the base libkcbp.so.1}"
NEW=${NEW:-$root/build}
R=${R:-21}
out=${OUT:-$here/out/small_scenes}
make -s -C "$root" build/libkcbp.so.1.1.0 >&2
cc -D_GNU_SOURCE -I"$root/include" -std=c11 -O2 -o "$out/frame_cpu" "$here/frame_cpu.c" -L"$root/build" -lkcbp -lm
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
one() { LD_LIBRARY_PATH=$1 "$out/frame_cpu" "$out/$2.json" "${@:3}"; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "| scene | mode | base ms | new ms | new / base |"
echo "|---|---|---|---|---|"
status=0
for s in ${SCENES:-density-10 cad-10 density-100 m10}; do
    modes="cold warm"
    grep -q '"motion"' "$out/$s.json" && modes=frames
    for m in $modes; do
        case $m in cold) args=(1 0) ;; warm) args=(5 200) ;; frames) args=(1 1) ;; esac
        a=() b=()
        for _ in $(seq "$R"); do
            x=$(one "$BASE" "$s" "${args[@]}") y=$(one "$NEW" "$s" "${args[@]}")
            if [[ $(grep ^pairs <<<"$x") != $(grep ^pairs <<<"$y") ]]; then
                echo "$s: the builds find other pairs" >&2
                status=1
            fi
            a+=("$(awk '/^cpu_ms/ {print $2}' <<<"$x")")
            b+=("$(awk '/^cpu_ms/ {print $2}' <<<"$y")")
        done
        A=$(med "${a[@]}") B=$(med "${b[@]}")
        printf '| %s | %s | %.4f | %.4f | %.3f |\n' "$s" "$m" "$A" "$B" "$(echo "$B / $A" | bc -l)"
    done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
