#!/usr/bin/env bash
# Issue 12 benchmark: moving scenes, kcbp with the k-CBP filter and with
# --filter aabb against FCL 0.7 run the way its users run a moving scene, plus
# the static thesis scene n = 200, in one table.
#
#   bench/moving.sh                  # from anywhere; RUNS=5 INNER=3 SEED=1
#   RUNS=7 bench/moving.sh           # more rounds
#   NO_BUILD=1 bench/moving.sh       # skip the make calls
#   FRAMES_BUNNY=50 bench/moving.sh  # shorter large-mesh scene
#
# Scenes (all from `kcbp scene --generate thesis`, objects normalised to a
# half-extent of 1 at integer positions in [-4, 4]^3, then bench/gen_moving:
# velocity components uniform in +-0.5 units/s, spin up to 90 deg/s about a
# random axis, dt = 0.01 s):
#   thesis-11   11 copies of bunny2, k = 24, FRAMES_11 (1000) frames: the thesis's moving scene
#   thesis-101  101 copies of bunny2, k = 16, FRAMES_101 (200) frames
#   bunny-51    51 copies of stanford-bunny (69k triangles), k = 16, FRAMES_BUNNY (200) frames
#   static-201  the static thesis scene n = 200 (201 copies of bunny2, k = 16), as bench/scene.sh
#
# Programs: bench/moving_kcbp (every frame with one kcbp_scene_eval, cbp or
# aabb, --contacts none) and bench/moving_fcl (DynamicAABBTreeCollisionManager,
# registered once; each frame setTransform + computeAABB, update, collide with
# a boolean fcl::collide callback). The static scene's FCL side is
# bench/scene_fcl (computeAABB + a fresh manager + registerObjects + setup +
# collide per run, as bench/scene.sh), its kcbp side moving_kcbp on the
# one-frame scene (a fresh evaluation per run, like bench/scene_kcbp).
#
# Timing: RUNS rounds; in each round every scene runs one kcbp process (both
# filters, INNER timed runs each, alternating cbp aabb aabb cbp ..., after an
# untimed warm-up run of each) and one FCL process (INNER timed runs after a
# warm-up), kcbp first in odd rounds and FCL first in even ones; the static
# scene does STATIC_INNER runs (milliseconds each; scene_fcl has no warm-up).
# Each process reports the median of its runs; the table gives the median
# over the rounds of those medians, and the spread table (max - min) / median
# over the rounds. The machine is shared: alternating the two filters inside
# one process keeps their ratio steady when the absolute times are not.
# Exits non-zero when the three configurations disagree on the colliding
# pairs of any frame, when a round differs from the first, or when something
# cannot be built or run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
RUNS=${RUNS:-5}
INNER=${INNER:-3}
STATIC_INNER=${STATIC_INNER:-11}
SEED=${SEED:-1}
FRAMES_11=${FRAMES_11:-1000}
FRAMES_101=${FRAMES_101:-200}
FRAMES_BUNNY=${FRAMES_BUNNY:-200}

fail() { echo "moving.sh: $*" >&2; exit 1; }
start=$SECONDS

if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" kcbp build/libkcbp.a >&2 || fail "building kcbp failed"
    make -s -C "$here" moving-bench >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"
rm -f "$out"/moving-*.r*.txt "$out"/moving-*.diff # an earlier run's rounds must not be read as this one's

# name mesh n frames k thesis-ms (frames 0 = static)
scenes=(
    "thesis-11 bunny2 10 $FRAMES_11 24 77.2 (k-CBP) / 211.6 (without)"
    "thesis-101 bunny2 100 $FRAMES_101 16 -"
    "bunny-51 stanford-bunny 50 $FRAMES_BUNNY 16 -"
    "static-201 bunny2 200 0 16 4430.9 (16-CBP)"
)

for s in "${scenes[@]}"; do
    read -r name mesh n frames k _ <<<"$s"
    thesis="$out/moving-$name-thesis.json"
    (cd "$out" && "$root/kcbp" scene --generate thesis --mesh "$root/meshes/$mesh.obj" --n "$n" --seed "$SEED" \
        2>/dev/null) >"$thesis.tmp" ||
        fail "generating $name failed"
    mv "$thesis.tmp" "$thesis"
    if ((frames > 0)); then
        "$here/gen_moving" "$thesis" "$SEED" "$frames" >"$out/moving-$name.json.tmp" || fail "gen_moving $name failed"
        mv "$out/moving-$name.json.tmp" "$out/moving-$name.json"
    else
        cp "$thesis" "$out/moving-$name.json"
    fi
done

# One process per side and round: moving_kcbp runs both filters in
# alternation (so a slow phase of the machine falls on both alike), then its
# output is split into one file per filter, with the filter's prefix dropped.
run_kcbp() { # scene-spec round
    local name mesh n frames k
    read -r name mesh n frames k _ <<<"$1"
    local res="$out/moving-$name.r$2"
    "$here/moving_kcbp" "$out/moving-$name.json" "$k" both "$( ((frames > 0)) && echo "$INNER" || echo "$STATIC_INNER")" \
        >"$res.kcbp.txt" || fail "moving_kcbp failed on $name"
    for c in cbp aabb; do
        awk -v f="$c" '$1 == f { sub(/^[^ ]+ /, ""); print; next } $1 != "cbp" && $1 != "aabb"' "$res.kcbp.txt" >"$res.$c.txt"
    done
}
run_fcl() { # scene-spec round
    local name mesh n frames k
    read -r name mesh n frames k _ <<<"$1"
    local scene="$out/moving-$name.json" res="$out/moving-$name.r$2.fcl.txt"
    if ((frames > 0)); then
        "$here/moving_fcl" "$scene" "$INNER" >"$res" || fail "moving_fcl failed on $name"
    else # scene_fcl: "pair A B" lines, as frame 0's
        "$here/scene_fcl" "$scene" "$STATIC_INNER" | sed 's/^pair /frame 0 pair /' >"$res" ||
            fail "scene_fcl failed on $name"
    fi
}

configs=(cbp aabb fcl)
for ((r = 1; r <= RUNS; r++)); do
    for s in "${scenes[@]}"; do
        if ((r % 2)); then
            run_kcbp "$s" "$r"
            run_fcl "$s" "$r"
        else
            run_fcl "$s" "$r"
            run_kcbp "$s" "$r"
        fi
    done
    echo "moving.sh: round $r of $RUNS done ($((SECONDS - start)) s)" >&2
done

disagree=0
for s in "${scenes[@]}"; do
    read -r name _ <<<"$s"
    ref="$out/moving-$name.r1.cbp.txt"
    for c in aabb fcl; do
        if ! diff <(grep '^frame ' "$ref") <(grep '^frame ' "$out/moving-$name.r1.$c.txt") >"$out/moving-$name.$c.diff"; then
            echo "moving.sh: $name: kcbp cbp and $c disagree on these pairs (< cbp, > $c):" >&2
            head -20 "$out/moving-$name.$c.diff" >&2
            disagree=1
        fi
    done
    for ((r = 2; r <= RUNS; r++)); do
        for c in "${configs[@]}"; do
            cmp -s <(grep '^frame ' "$out/moving-$name.r1.$c.txt") <(grep '^frame ' "$out/moving-$name.r$r.$c.txt") ||
                { echo "moving.sh: $name: $c found other pairs in round $r than in round 1" >&2; disagree=1; }
        done
    done
done

# val KEY FILE...: the KEY values of the files, one a line.
val() { local k=$1; shift; awk -v k="$k" '$1 == k { print $2 }' "$@"; }
med() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f%%", (m > 0 ? 100 * (v[NR] - v[1]) / m : 0) }'; }
files() { local i; for ((i = 1; i <= RUNS; i++)); do echo "$out/moving-$1.r$i.$2.txt"; done; }
vals() { local fs; mapfile -t fs < <(files "$2" "$3"); val "$1" "${fs[@]}"; } # KEY scene config: one value per round
m() { vals "$@" | med; }
# The median over the rounds of each round's aabb / cbp ratio (both from one
# process, their runs alternating): steadier than the ratio of the medians.
paired() { paste <(vals median_ms "$1" aabb) <(vals median_ms "$1" cbp) | awk '{ print $1 / $2 }' | med; }
fastest() { # scene config: the fastest single run over the rounds (run_ms), or the fastest median
    local fs
    mapfile -t fs < <(files "$1" "$2")
    awk '$1 == "run_ms" { for (i = 2; i <= NF; i++) print $i; seen[FILENAME] = 1 }
         $1 == "median_ms" { med[FILENAME] = $2 }
         END { for (f in med) if (!(f in seen)) print med[f] }' "${fs[@]}" | sort -g | head -1 | xargs printf %.1f
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "| scene | objects | frames | triangles per mesh | k | colliding pair-frames | kcbp cbp ms | kcbp aabb ms | aabb/cbp speed-up | FCL ms | kcbp/FCL (cbp / aabb) | thesis ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in "${scenes[@]}"; do
    read -r name mesh n frames k thesis <<<"$s"
    f1="$out/moving-$name.r1.cbp.txt"
    cb=$(m median_ms "$name" cbp) aa=$(m median_ms "$name" aabb) fc=$(m median_ms "$name" fcl)
    printf '| %s (%s) | %s | %s | %s | %s | %s | %.1f | %.1f | %s× | %.1f | %s / %s | %s |\n' "$name" "$mesh" \
        "$(val objects "$f1")" "$( ((frames > 0)) && echo "$frames" || echo "1 (static)")" "$(val triangles "$f1")" "$k" \
        "$(val colliding "$f1")" "$cb" "$aa" "$(paired "$name" | xargs printf %.2f)" "$fc" "$(ratio "$cb" "$fc")" "$(ratio "$aa" "$fc")" \
        "$thesis"
done
echo
echo "aabb/cbp: the median over the rounds of each round's ratio (one process, the filters' runs alternating)."
echo "kcbp/FCL: the ratio of the medians (separate processes)."
echo
echo "Noise: the spread of the rounds' medians, (max - min) / median over $RUNS rounds, then the fastest"
echo "single run in ms (the machine undisturbed; scene_fcl reports no single runs: its fastest median):"
echo
echo "| scene | kcbp cbp | kcbp aabb | FCL |"
echo "|---|---|---|---|"
for s in "${scenes[@]}"; do
    read -r name _ <<<"$s"
    row="| $name |"
    for c in "${configs[@]}"; do
        row+=" $(vals median_ms "$name" "$c" | spread), $(fastest "$name" "$c") |"
    done
    echo "$row"
done
echo
echo "kcbp's stages, ms summed over the frames (medians over the rounds; filter = pair tests ended by the"
echo "boxes or the k-CBPs, mesh = pair tests that reached the mesh test, their k-CBP test included):"
echo
echo "| scene | filter | broad-phase pairs | mesh-tested pairs | bounds | broadphase | filter | mesh | FCL broad-phase pairs |"
echo "|---|---|---|---|---|---|---|---|---|"
for s in "${scenes[@]}"; do
    read -r name _ <<<"$s"
    for c in cbp aabb; do
        f1="$out/moving-$name.r1.$c.txt"
        printf '| %s | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %s |\n' "$name" "$c" "$(val broadphase "$f1")" \
            "$(val mesh_tested "$f1")" "$(m bounds_ms "$name" "$c")" "$(m broadphase_ms "$name" "$c")" \
            "$(m filter_ms "$name" "$c")" "$(m mesh_ms "$name" "$c")" "$(val broadphase "$out/moving-$name.r1.fcl.txt")"
    done
done
echo
echo "RUNS=$RUNS INNER=$INNER STATIC_INNER=$STATIC_INNER SEED=$SEED, $(nproc) cores, $(uname -m);" \
    "kcbp and FCL single-threaded; $((SECONDS - start)) s."
exit $disagree
