#!/usr/bin/env bash
# The main job on the bundled meshes: two Stanford bunnies in near contact,
# one pose that touches and one that does not; how deep two solids overlap
# and which way is out (the second also drawn: build/demo.html); then a scene
# of 101 bunnies in the k-CBP thesis's layout.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# kcbp collide: two Stanford bunnies (69k triangles each), touching" >&2
./kcbp collide meshes/stanford-bunny.obj meshes/stanford-bunny.obj \
    --pose-b "0.05 0 0 0 1 0 90" --contacts first --pretty
echo "# the same, moved apart" >&2
./kcbp collide meshes/stanford-bunny.obj meshes/stanford-bunny.obj \
    --pose-b "0.2 0 0 0 1 0 90" --contacts first
echo "# kcbp distance --signed: a sphere sunk into a box, how deep and which way out" >&2
./kcbp distance sphere:1 box:2:2:2 --pose-b "1.5 0 0 0 0 1 0" --signed
echo "# ... and into Spot (a closed mesh: a proven bracket); the page: build/demo.html" >&2
./kcbp distance meshes/spot.obj sphere:0.2 --pose-b "0.5 0 0.1 0 0 1 0" --signed --html build/demo.html
echo "# kcbp scene: 101 copies of bunny2 in the k-CBP thesis's layout (n = 100)" >&2
scene=$(mktemp -p . .demo-scene-XXXXXX.json) # here: the scene names meshes/bunny2.obj from here
trap 'rm -f "$scene"' EXIT
./kcbp scene --generate thesis --mesh meshes/bunny2.obj --n 100 --seed 1 >"$scene"
./kcbp scene "$scene" --pretty
echo "# open build/demo.html in a browser: Spot, the sphere, and where the translation takes it" >&2
