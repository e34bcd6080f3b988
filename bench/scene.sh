#!/usr/bin/env bash
# Issue 5 benchmark: detection time of a whole scene, kcbp against FCL 0.7's
# DynamicAABBTreeCollisionManager, on the k-CBP thesis's layout: n + 1 copies
# of meshes/bunny2.obj (kcbp scene --generate thesis), n = 10 30 50 100 200.
#
#   bench/scene.sh              # from anywhere; RUNS=7 SEED=1 by default
#   RUNS=11 SEED=3 bench/scene.sh
#   NO_BUILD=1 bench/scene.sh   # skip the make calls
#   NS="10 30" bench/scene.sh   # other scene sizes
#
# kcbp: bench/scene_kcbp (in process, fresh evaluation state per run, detection
# = world boxes + broad phase + pair tests, --contacts none, 16-CBPs; once with
# the k-CBP filter, once with boxes only). FCL: bench/scene_fcl
# (computeAABB + registerObjects + setup + collide, every colliding pair,
# default request). Both read the same scene file through kcbp, so they test
# the same triangles at the same poses. Medians over RUNS runs, in ms.
# Prints a Markdown table; exits non-zero when the two disagree on a pair or
# something cannot be built or run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
RUNS=${RUNS:-7}
SEED=${SEED:-1}
NS=${NS:-"10 30 50 100 200"}
MESH="$root/meshes/bunny2.obj"

fail() { echo "scene.sh: $*" >&2; exit 1; }

if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" kcbp build/libkcbp.a >&2 || fail "building kcbp failed"
    make -s -C "$here" scene_kcbp scene_fcl >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"

# The thesis's Table 1, DT with the 16-CBP filter (ms), for reference.
declare -A thesis=([10]=0.1 [30]=70.0 [50]=255.2 [100]=870.7 [200]=4430.9)

val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

disagree=0
printf '| n | objects | pairs | broad phase (kcbp / FCL) | 16-CBP passed | colliding | kcbp ms | kcbp, boxes only, ms | FCL ms | FCL / kcbp | thesis 16-CBP ms |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for n in $NS; do
    scene="$out/thesis-bunny2-n$n-seed$SEED.json"
    (cd "$out" && "$root/kcbp" scene --generate thesis --mesh "$MESH" --n "$n" --seed "$SEED" 2>/dev/null) \
        >"$scene.tmp" || fail "generating n=$n failed" # from $out: the mesh named by its absolute path
    mv "$scene.tmp" "$scene"
    "$here/scene_kcbp" "$scene" "$RUNS" cbp >"$out/scene-n$n.kcbp.txt" || fail "scene_kcbp failed for n=$n"
    "$here/scene_kcbp" "$scene" "$RUNS" aabb >"$out/scene-n$n.kcbp-aabb.txt" || fail "scene_kcbp aabb failed for n=$n"
    "$here/scene_fcl" "$scene" "$RUNS" >"$out/scene-n$n.fcl.txt" || fail "scene_fcl failed for n=$n"
    k="$out/scene-n$n.kcbp.txt" f="$out/scene-n$n.fcl.txt"
    ka="$out/scene-n$n.kcbp-aabb.txt"
    cmp -s <(grep '^pair ' "$k") <(grep '^pair ' "$ka") || { echo "scene.sh: n=$n: --filter aabb changes the pairs" >&2; disagree=1; }
    if ! diff <(grep '^pair ' "$k") <(grep '^pair ' "$f") >"$out/scene-n$n.diff"; then
        echo "scene.sh: n=$n: kcbp and FCL disagree on these pairs (< kcbp, > FCL):" >&2
        cat "$out/scene-n$n.diff" >&2
        disagree=1
    fi
    kc=$(val median_ms "$k") fc=$(val median_ms "$f")
    objects=$((n + 1))
    printf '| %d | %d | %d | %s / %s | %s | %s%s | %.2f | %.2f | %.2f | %.1f× | %s |\n' "$n" "$objects" \
        $((objects * (objects - 1) / 2)) "$(val broadphase "$k")" "$(val broadphase "$f")" "$(val mesh_tested "$k")" \
        "$(val colliding "$k")" "$([[ $(val colliding "$k") == $(val colliding "$f") ]] || echo " (FCL $(val colliding "$f"))")" \
        "$kc" "$(val median_ms "$ka")" "$fc" "$(awk -v a="$fc" -v b="$kc" 'BEGIN { print a / b }')" "${thesis[$n]:--}"
done
echo
echo "RUNS=$RUNS SEED=$SEED, $(nproc) cores, $(uname -m); kcbp and FCL single-threaded."
exit $disagree
