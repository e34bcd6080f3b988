#!/bin/bash
# bench/gltf_growth.sh: the glTF reader's growth test (issue 33). For each
# scene-graph shape of bench/gen_gltf (nodes, scene, children, chain, prims,
# meshes), .glb files of N and 2N ... nodes (or primitives, or meshes), each
# loaded by bench/mesh_load (kcbp_mesh_load, median CPU time of RUNS loads:
# CPU time because the machine is shared). The ratio column is the time of
# 2N over the time of N: about 2 when the reader is linear, about 4 when it
# is quadratic (it was: cJSON arrays are linked lists, and element i was
# reached from the head for every node, primitive and child).
#
#   bench/gltf_growth.sh              N = 25,000 to 200,000 (400,000 meshes pass the reader's
#                                     limit of 4 million JSON values)
#   SIZES="10000 20000 40000" RUNS=1 bench/gltf_growth.sh
#
# Output: a markdown table on stdout (and in bench/out/gltf/table.md); the
# script fails if a load fails or a ratio exceeds MAX_RATIO (default 3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
make -C "$root" -j2 >/dev/null
make -C "$here" gen_gltf mesh_load >/dev/null
out="$here/out/gltf"
mkdir -p "$out"
SIZES=${SIZES:-"25000 50000 100000 200000"}
RUNS=${RUNS:-3}
MAX_RATIO=${MAX_RATIO:-3}
status=0
{
    printf '| shape |'
    for n in $SIZES; do printf ' %s |' "$n"; done
    printf ' largest ratio 2N/N |\n|---|'
    for n in $SIZES; do printf -- '---|'; done
    printf -- '---|\n'
    for shape in nodes scene children chain prims meshes; do
        printf '| %s |' "$shape"
        prev="" worst=0
        for n in $SIZES; do
            f="$out/$shape-$n.glb"
            "$here/gen_gltf" "$shape" "$n" "$f"
            ms=$("$here/mesh_load" -n "$RUNS" "$f" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
            rm -f "$f"
            [[ -n $ms ]] || { echo "gltf_growth.sh: $shape $n failed to load" >&2; exit 1; }
            printf ' %s ms |' "$ms"
            if [[ -n $prev ]]; then
                worst=$(awk -v a="$ms" -v b="$prev" -v w="$worst" 'BEGIN { r = b > 0 ? a / b : 0; print (r > w ? r : w) }')
            fi
            prev=$ms
        done
        printf ' %.2f |\n' "$worst"
        if awk -v w="$worst" -v m="$MAX_RATIO" 'BEGIN { exit !(w > m) }'; then status=1; fi
    done
} | tee "$out/table.md"
[[ $status == 0 ]] || { echo "gltf_growth.sh: a ratio above $MAX_RATIO: not linear" >&2; exit 1; }
