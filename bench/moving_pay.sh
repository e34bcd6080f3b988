#!/usr/bin/env bash
# bench/moving_pay.sh (issue 33 items 2-3): the k-CBP stage's gain over
# --filter aabb on varied moving scenes, with one thread and with two, in CPU
# time, and on the static thesis scene.
#
#   bench/moving_pay.sh                      # RUNS=3 INNER=3 SEED=3 FRAMES=200
#   SETS="bunny2 block" SIZES=51 bench/moving_pay.sh
#   NO_BUILD=1 bench/moving_pay.sh
#   MOVING_KCBP=/tmp/old/moving_kcbp OUT=before bench/moving_pay.sh  # moving_kcbp built on older code
#
# Sets: `kcbp scene --generate thesis` copies of one mesh (n = SIZES - 1,
# normalised, integer positions in [-4, 4]^3, seed SEED), made moving by
# bench/gen_moving (SEED, FRAMES frames: velocities of +-0.5 units/s, spins
# up to 90 deg/s, dt 0.01). Scans from meshes/ (bunny2 spot cow homer
# woody), CAD parts from bench/gen_cad (block lathe bushing cylinder plate).
# The static scene is the thesis scene n = 200 (201 bunny2, as
# bench/scene.sh and bench/moving.sh).
#
# Each round runs, per set and per JOBS (1 and 2), one bench/moving_kcbp
# process with both filters alternating (cbp aabb aabb cbp ...; INNER timed
# runs each after a warm-up; the static scene STATIC_INNER); the gain of a
# round is that process's aabb / cbp ratio of median CPU times (every
# thread's: CLOCK_PROCESS_CPUTIME_ID over the kcbp_scene_eval_frame calls);
# the table gives the median over the rounds. The machine is shared: CPU
# time, not wall clock. Exits non-zero when the two filters disagree on any
# frame's colliding pairs, or a thread count on another's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out/${OUT:-moving_pay}"
RUNS=${RUNS:-3}
INNER=${INNER:-3}
STATIC_INNER=${STATIC_INNER:-11}
SEED=${SEED:-3}
FRAMES=${FRAMES:-200}
SETS=${SETS:-"bunny2 spot cow homer woody block lathe bushing cylinder plate"}
SIZES=${SIZES:-"51 101"}
JOBS=${JOBS:-"1 2"}
K=${K:-16}
MOVING_KCBP=${MOVING_KCBP:-$here/moving_kcbp} # another build (the code before a change) to compare

fail() { echo "moving_pay.sh: $*" >&2; exit 1; }
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" kcbp build/libkcbp.a >&2 || fail "building kcbp failed"
    make -s -C "$here" gen_moving moving_kcbp gen_cad >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"
rm -f "$out"/r*.txt
[[ -s $out/block.stl ]] || "$here/gen_cad" "$out" >/dev/null || fail "gen_cad failed"
for m in bunny2 spot cow homer woody; do cp "$root/meshes/$m.obj" "$out/"; done
mesh_file() { if [[ -s $out/$1.obj ]]; then echo "$1.obj"; else echo "$1.stl"; fi; }

scenes=()
for m in $SETS; do
    for n in $SIZES; do
        f="$out/m-$m-$n.json"
        if [[ ! -s $f ]]; then
            (cd "$out" && "$root/kcbp" scene --generate thesis --mesh "$(mesh_file "$m")" --n $((n - 1)) \
                --seed "$SEED" >"s-$m-$n.json") || fail "generating $m $n failed"
            "$here/gen_moving" "$out/s-$m-$n.json" "$SEED" "$FRAMES" >"$f.tmp" || fail "gen_moving $m failed"
            mv "$f.tmp" "$f"
        fi
        scenes+=("$m-$n")
    done
done
if [[ ! -s $out/static-201.json ]]; then
    (cd "$out" && "$root/kcbp" scene --generate thesis --mesh bunny2.obj --n 200 --seed 1 >static-201.json) ||
        fail "generating the static scene failed"
fi
scenes+=("static-201")

file_of() { [[ $1 == static-* ]] && echo "$out/$1.json" || echo "$out/m-$1.json"; }
for ((r = 1; r <= RUNS; r++)); do
    for s in "${scenes[@]}"; do
        inner=$INNER
        [[ $s == static-* ]] && inner=$STATIC_INNER
        for j in $JOBS; do
            "$MOVING_KCBP" "$(file_of "$s")" "$K" both "$inner" "$j" >"$out/r$r-$s-j$j.txt" ||
                fail "moving_kcbp failed on $s (jobs $j)"
        done
    done
    echo "moving_pay.sh: round $r of $RUNS done" >&2
done

bad=0
for s in "${scenes[@]}"; do
    ref="$out/r1-$s-j1.txt"
    if ! cmp -s <(grep '^cbp frame' "$ref" | cut -d' ' -f2-) <(grep '^aabb frame' "$ref" | cut -d' ' -f2-); then
        echo "moving_pay.sh: $s: cbp and aabb disagree" >&2
        bad=1
    fi
    for j in $JOBS; do
        for ((r = 1; r <= RUNS; r++)); do
            cmp -s <(grep ' frame ' "$ref") <(grep ' frame ' "$out/r$r-$s-j$j.txt") ||
                { echo "moving_pay.sh: $s: round $r jobs $j found other pairs" >&2; bad=1; }
        done
    done
done

med() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
val() { awk -v f="$1" -v k="$2" '$1 == f && $2 == k { print $3 }' "$3"; }
gains() { # scene jobs: one aabb/cbp ratio per round
    local r
    for ((r = 1; r <= RUNS; r++)); do
        local f="$out/r$r-$1-j$2.txt"
        awk -v a="$(val aabb cpu_ms "$f")" -v c="$(val cbp cpu_ms "$f")" 'BEGIN { print a / c }'
    done
}
cpu() { local r; for ((r = 1; r <= RUNS; r++)); do val "$2" cpu_ms "$out/r$r-$1-j$3.txt"; done | med; }

hdr="| scene | objects | frames | colliding pair-frames | broad-phase pairs | mesh-tested cbp / aabb |"
sep="|---|---|---|---|---|---|"
for j in $JOBS; do
    hdr+=" cbp CPU ms (jobs $j) | aabb CPU ms (jobs $j) | gain (jobs $j) |"
    sep+="---|---|---|"
done
echo "$hdr"
echo "$sep"
for s in "${scenes[@]}"; do
    f="$out/r1-$s-j1.txt"
    row="| $s | $(awk '$1 == "objects" { print $2 }' "$f") | $(awk '$1 == "frames" { print $2 }' "$f") | $(val cbp colliding "$f") |"
    row+=" $(val cbp broadphase "$f") | $(val cbp mesh_tested "$f") / $(val aabb mesh_tested "$f") |"
    for j in $JOBS; do
        row+=" $(cpu "$s" cbp "$j" | xargs printf %.1f) | $(cpu "$s" aabb "$j" | xargs printf %.1f) |"
        row+=" **$(gains "$s" "$j" | med | xargs printf %.2f)** |"
    done
    echo "$row"
done
echo
echo "RUNS=$RUNS INNER=$INNER STATIC_INNER=$STATIC_INNER SEED=$SEED FRAMES=$FRAMES K=$K, $(nproc) cores;" \
    "gain: median over the rounds of each process's aabb / cbp CPU-time ratio."
exit $bad
