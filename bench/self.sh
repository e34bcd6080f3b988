#!/bin/bash
# bench/self.sh: `kcbp self` against CGAL 5.5's
# Polygon_mesh_processing::does_self_intersect (bench/self_cgal, on the very
# triangles kcbp reads), on flat star polygons of 1,000 to 100,000 sides (one
# OBJ face each), a fan disc, a cone of slivers and CAD-like prisms whose faces
# are big polygons (bench/gen_self), and, when there is one, the CAD set of
# bench/cad.sh (bench/gen_cad, or the program GEN_CAD names).
#
#   bench/self.sh                 5 interleaved rounds (kcbp, then CGAL, per mesh)
#   RUNS=3 bench/self.sh
#   CHECK=0 bench/self.sh         skip the pair-by-pair comparison with CGAL
#   GEN_CAD=/path/to/gen_cad bench/self.sh
#   CGAL_MAX_S=120 bench/self.sh  a CGAL call slower than this runs once (default 60)
#
# Every answer must agree with CGAL's (the script fails otherwise); with
# CHECK=1 (the default) the pairs of `kcbp self --contacts all` must equal
# CGAL's self_intersections, vertices welded by coordinates as kcbp does,
# triangles CGAL's Surface_mesh cannot hold left out, on every mesh whose
# CGAL call took less than CGAL_MAX_S.
#
# Output: a markdown table on stdout (and in bench/out/self/table.md), the raw
# runs in bench/out/self/raw.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
make -C "$root" -j2 >/dev/null
make -C "$here" gen_self self_cgal >/dev/null
out="$here/out/self"
mkdir -p "$out"
"$here/gen_self" "$out"
cad=()
gen_cad=${GEN_CAD:-$here/gen_cad}
if [[ -x $gen_cad ]]; then
    mkdir -p "$out/cad"
    "$gen_cad" "$out/cad" >/dev/null
    for p in plate cylinder cone disc block bushing lathe heatsink seat-8k seat-20k; do
        [[ -f $out/cad/$p.stl ]] && cad+=("cad/$p.stl")
    done
else
    echo "self.sh: no gen_cad (bench/gen_cad or GEN_CAD): the CAD set of bench/cad.sh is left out" >&2
fi
exec python3 "$here/self_bench.py" --kcbp "$root/kcbp" --cgal "$here/self_cgal" --dir "$out" \
    --runs "${RUNS:-5}" --check "${CHECK:-1}" --cgal-max-s "${CGAL_MAX_S:-60}" -- \
    star-1k.obj star-10k.obj star-30k.obj star-100k.obj star-30k-tilted.obj fan-disc.obj cone-fan.obj \
    gear.obj plate-holes.obj fins.obj star-2k-fold.obj "${cad[@]}"
