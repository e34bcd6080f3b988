#!/usr/bin/env bash
# bench/small_scenes.sh: scenes of 10 to 10^5 objects with the default --jobs
# (every CPU the process may use) against --jobs 1 and against FCL 0.7
# (issue 33 item 2: the default never more than 5 % slower than --jobs 1,
# --jobs 2 at least 1.7x on 10^4 objects and more; every size at most 0.15x
# FCL). Wall clock: run it on an idle machine. Per run the sum over frames of
# kcbp's reported "detect" (world boxes + broad phase + pair tests, the report
# written to a file) and of FCL's frame loop (bench/scale_fcl for gen_scale's
# scenes, bench/moving_fcl for the moving thesis scenes); medians of R
# interleaved runs (3 for 10^5 objects). FCL is not run above 10^3 objects
# (bench/scale.sh does, with more care and much more time).
#
#   bench/small_scenes.sh                      # about 2 minutes
#   R=11 SCENES="density-10 m10" bench/small_scenes.sh
#
# Scenes: gen_scale's density and cad (copies of a decimated bunny, of a CAD
# bracket) static at 10..10^5 objects and moving (-m10: 10 frames), and m10 /
# m100: `kcbp scene --generate thesis` of 11 / 101 bunny2 made moving by
# gen_moving (seed 7) for 1,000 / 200 frames.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" kcbp >&2
    make -s -C "$here" gen_scale scale_fcl gen_moving moving_fcl >&2
fi
K=${KCBP:-$root/build/kcbp}
R=${R:-7}
out=${OUT:-$here/out/small_scenes}
mkdir -p "$out"
cd "$out"
"$here/gen_scale" meshes . "$root/meshes/bunny2.obj" >/dev/null
cp "$root/meshes/bunny2.obj" .
gen() { # layout n frames
    local f=$1-$2$( (($3 > 1)) && echo "-m$3").json
    [[ -s $f ]] || "$here/gen_scale" scene "$1" "$2" 1 "$3" "$f" >/dev/null
}
for n in 10 100 1000 10000 100000; do gen density $n 1; gen cad $n 1; done
gen density 100 10; gen cad 100 10; gen density 10000 10
for n in 10:1000 100:200; do
    m=${n%%:*} fr=${n##*:}
    [[ -s m$m.json ]] && continue
    "$K" scene --generate thesis --mesh bunny2.obj --n "$m" --output s$m.json
    "$here/gen_moving" s$m.json 7 "$fr" >m$m.json
done
det() { "$K" scene "$1" --jobs "$2" >"$out/last.json"; grep -o '"detect":[0-9.e-]*' "$out/last.json" | cut -d: -f2 | awk '{s += $1} END {printf "%.3f\n", s}'; }
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
cpus=$(nproc)
echo "| scene | --jobs 1 ms | default (--jobs $cpus) ms | default / --jobs 1 | FCL ms | default / FCL |"
echo "|---|---|---|---|---|---|"
for s in ${SCENES:-density-10 cad-10 density-100 cad-100 density-1000 cad-1000 density-100-m10 cad-100-m10 m10 m100 density-10000 cad-10000 density-10000-m10 density-100000 cad-100000}; do
    a=() b=() f=()
    rr=$R
    [[ $s == *100000* ]] && rr=3
    for _ in $(seq "$rr"); do
        a+=("$(det "$s.json" 1)")
        b+=("$(det "$s.json" "$cpus")")
        if [[ $s == m10 || $s == m100 ]]; then
            f+=("$("$here/moving_fcl" "$s.json" 1 | awk '/^median_ms/ {print $2}')")
        elif [[ $s != *0000* ]]; then
            f+=("$("$here/scale_fcl" "$s.json.bin" "$out/fcl.pairs" 2>&1 | awk '/^frame_ms/ {for (i = 2; i <= NF; i++) t += $i} END {print t}')")
        fi
    done
    A=$(med "${a[@]}") B=$(med "${b[@]}")
    if ((${#f[@]})); then
        F=$(med "${f[@]}")
        printf '| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n' "$s" "$A" "$B" "$(echo "$B / $A" | bc -l)" "$F" "$(echo "$B / $F" | bc -l)"
    else
        printf '| %s | %.3f | %.3f | %.3f | - | - |\n' "$s" "$A" "$B" "$(echo "$B / $A" | bc -l)"
    fi
done
