#!/usr/bin/env bash
# Valgrind memcheck on the kcbp program's main paths, on bundled meshes:
# collide (one pose, and --poses), cbp (each direction mode), scene and batch
# (a small generated scene), /dev/zero as a mesh and as poses, and a scene
# whose mesh leads out of its folder. Any error, or a definite or indirect
# leak, fails.
# Usage: scripts/valgrind.sh (after make); VALGRIND_FAST=1 skips the larger mesh.
set -uo pipefail
cd "$(dirname "$0")/.."
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '0 0 0 0 0 1 0\n0.3 0 0 0 1 0 20\n3 0 0 1 1 0 45\n' > "$tmp/poses.txt"
# generated from $tmp, where it is saved: the mesh, outside it, is named by its absolute path
(cd "$tmp" && "$OLDPWD/kcbp" scene --generate thesis --mesh "$OLDPWD/meshes/suzanne.obj" --n 6 --seed 3) \
    > "$tmp/scene.json" 2>/dev/null
printf '{"objects": [{"name": "a", "mesh": "%s/meshes/spot.obj", "position": [0, 0, 0]}, {"name": "b", "mesh": "%s/meshes/spot.obj", "position": [0.4, 0, 0], "velocity": [-0.2, 0, 0], "angular_velocity": {"axis": [0, 0, 1], "deg_per_s": 30}}], "motion": {"frames": 4, "dt": 0.5}}\n' "$PWD" "$PWD" > "$tmp/moving.json"
runs=(
    "collide meshes/suzanne.obj meshes/spot.obj --pose-b 0.5_0_0_0_1_0_30 --contacts all"
    "collide meshes/suzanne.obj meshes/suzanne.obj --poses $tmp/poses.txt --contacts first"
    "collide meshes/suzanne.obj meshes/suzanne.obj --no-cbp --pose-b 0.3_0_0_0_1_0_20"
    "cbp meshes/suzanne.obj -k 16 -o $tmp/cbp.obj"
    "cbp meshes/spot.obj --dirs thesis -k 12"
    "cbp meshes/fandisk.obj --dirs fixed -k 26"
    "cbp meshes/suzanne.obj --dirs kdop -k 18"
    "scene $tmp/scene.json --contacts all --mesh-root $PWD/meshes"
    "scene $tmp/moving.json --mesh-root $PWD/meshes"
    "batch $tmp/scene.json $tmp/moving.json $tmp/missing.json --jobs 2 --mesh-root $PWD/meshes"
    "collide meshes/suzanne.obj tests/bad/nan.obj"
    "scene tests/bad/mesh_bad.json"
    "collide /dev/zero meshes/suzanne.obj"
    "collide meshes/suzanne.obj meshes/suzanne.obj --poses /dev/zero"
    "scene tests/bad/outside_link.json"
)
[[ -n "${VALGRIND_FAST:-}" ]] || runs+=("collide meshes/stanford-bunny.obj meshes/bunny2.obj --pose-b 0.05_0_0_0_1_0_90")
failed=0
for r in "${runs[@]}"; do
    read -ra args <<< "$r"
    for i in "${!args[@]}"; do args[$i]=${args[$i]//_/ }; done # poses: _ for spaces
    t0=$EPOCHREALTIME
    "${vg[@]}" ./kcbp "${args[@]}" > /dev/null 2> "$tmp/err"
    rc=$?
    t=$(awk "BEGIN { print $EPOCHREALTIME - $t0 }")
    if [[ $rc -eq 99 ]]; then
        echo "valgrind: FAILED ($r)"; cat "$tmp/err"; failed=$((failed + 1))
    else
        printf 'valgrind: clean  %5.1f s  exit %d  kcbp %s\n' "$t" "$rc" "$r"
    fi
done
echo "valgrind: ${#runs[@]} runs, $failed with errors"
[[ $failed -eq 0 ]]
