#!/usr/bin/env bash
# The held-out hunt in 3D (branch hunt3d, issue 33 item 1): pairs of
# classes bench/cones.sh does not have, from bench/gen_holdout (plates face
# to face, a cube in a box-shaped cavity, nested tori, nested cones with a
# rounded apex, crossed and parallel ribbons of slivers of aspect 1e6, two
# wide cones tip to tip, two half-discs fanned from points across their
# diameter, coaxial helicoids, a capped shaft off-axis in a closed bushing;
# at clearances down to 1e-12, touching and overlapping by 1e-12, and at
# scales 1e6 and 1e-6 and 1e6 off the origin), measured as cones.sh
# measures (bench/cones_bench: kcbp_distance, one kcbp_collide and FCL
# 0.7's fcl::distance in one program, CPU time of the thread, medians over
# ROUNDS interleaved rounds, FCL once when over FCL_CAP_S seconds) and
# checked, S the largest coordinate: up to BRUTE_MAX triangle pairs,
# |kcbp - brute force| (the smallest kcbp_tri_distance over all pairs)
# within KCBP_TRI_DIST_REL_ERR (1e-12) of S; larger pairs |kcbp - FCL|
# within 1e-9 of S. A row where the brute force agrees and FCL does not
# says "FCL off" (FCL's own error: the nested tori at scale 1e-6, 2e-6 of
# S; kcbp's answer is then its scale-1 answer times 1e-6).
#
#   bench/holdout.sh               # ROUNDS=3
#   ROUNDS=1 bench/holdout.sh
#   NO_BUILD=1 bench/holdout.sh
#   CASES=$'shourglass 2000 1500 1e-3 1 0\nhelix 300 200 0.01 1 0' bench/holdout.sh
#
# Exits non-zero when a program fails or an answer is off.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out/holdout"
ROUNDS=${ROUNDS:-3}
FCL_CAP_S=${FCL_CAP_S:-2}
BRUTE_MAX=${BRUTE_MAX:-4000000}
BASE=${BASE:-}

fail() { echo "cones.sh: $*" >&2; exit 1; }
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" build/libkcbp.a build/libkcbp_eval.a >&2 || fail "building kcbp failed"
    make -s -C "$here" gen_holdout cones_bench >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"

# gen_holdout arguments: KIND N M GAP SCALE OFF (bench/gen_holdout.c)
cases=(
    "plates 20 14 0.01 1 0"
    "plates 100 70 0.01 1 0"
    "plates 100 70 1e-12 1 0"
    "plates 100 70 0 1 0"
    "plates 100 70 -1e-12 1 0"
    "plates 100 70 0.01 1 1e6"
    "cavity 8 6 0.01 1 0"
    "cavity 40 30 0.01 1 0"
    "cavity 40 30 1e-12 1 0"
    "tori 48 36 0.02 1 0"
    "tori 400 300 0.02 1 0"
    "tori 400 300 0.02 1e6 0"
    "tori 48 36 0.02 1e-6 0"
    "rcone 64 48 0.01 1 0"
    "rcone 2000 1500 0.01 1 0"
    "slivers 2000 1500 0.01 1 0"
    "slivers 10000 8000 0.01 1 0"
    "pslivers 10000 8000 0.01 1 0"
    "hourglass 2000 1500 0.001 1 0"
    "hourglass 10000 8000 0.001 1 0"
    "hourglass 10000 8000 1e-12 1 0"
    "hourglass 10000 8000 0.001 1e-6 0"
    "halffans 2000 1500 1e-12 1 0"
    "shourglass 2000 1500 1e-12 1 0"
    "shourglass 2000 1500 0.001 1 0"
    "shourglass 10000 8000 0.001 1 0"
    "shalffans 2000 1500 1e-12 1 0"
    "shalffans 10000 8000 0.001 1 0"
    "halffans 10000 8000 1e-12 1 0"
    "halffans 10000 8000 0 1 0"
    "halffans 10000 8000 -1e-12 1e6 0"
    "helix 300 200 0.01 1 0"
    "helix 4000 3000 0.01 1 0"
    "shaft 400 300 0.01 1 0"
    "shaft 8000 6000 0.01 1 0"
)

# CASES: other cases, one a line (as above)
if [[ -n ${CASES:-} ]]; then
    mapfile -t cases <<<"$CASES"
fi

echo "| case | triangles | kcbp µs | FCL µs | kcbp/FCL | collide µs | kcbp/collide |${BASE:+ before µs | before/after |} \\|kcbp − FCL\\| / S | \\|kcbp − brute\\| / S | box pairs | tri pairs |"
echo "|---|---|---|---|---|---|---|${BASE:+---|---|}---|---|---|---|"
bad=0
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
for c in "${cases[@]}"; do
    read -r -a args <<<"$c"
    tag=$(tr ' ' '-' <<<"$c")
    A="$out/$tag.a.obj" B="$out/$tag.b.obj"
    "$here/gen_holdout" "${args[@]}" "$A" "$B" >/dev/null || fail "gen_holdout $c"
    na=$(grep -c '^f ' "$A") nb=$(grep -c '^f ' "$B")
    brute=$((na * nb <= BRUTE_MAX ? 1 : 0))
    ks=() fs=() bs=() cs=()
    fcl_runs=1 base_again=
    for ((r = 1; r <= ROUNDS; r++)); do
        line=$("$here/cones_bench" "$A" "$B" 1 "$fcl_runs" "$((r == 1 ? brute : 0))") || fail "cones_bench $c"
        read -r _ k _ f _ dk _ df _ db _ bp _ tp _ cu <<<"$line"
        ks+=("$k")
        cs+=("$cu")
        if ((fcl_runs)); then
            fs+=("$f")
            [[ $r == 1 ]] && { dfcl=$df; dbr=$db; }
            awk -v f="$f" -v cap="$FCL_CAP_S" 'BEGIN { exit !(f > cap * 1e6) }' && fcl_runs=0
        fi
        if [[ -n $BASE && ( $r == 1 || -n $base_again ) ]]; then
            bl=$("$BASE" "$A" "$B" 1 0 0) || fail "$BASE $c"
            bs+=("$(awk '{ print $2 }' <<<"$bl")")
            base_again=$(awk '{ exit !($2 <= cap * 1e6) }' cap="$FCL_CAP_S" <<<"$bl" && echo 1 || true)
        fi
    done
    km=$(med "${ks[@]}") fm=$(med "${fs[@]}") cm=$(med "${cs[@]}")
    S=$(awk '/^v / { for (i = 2; i <= 4; i++) { x = $i < 0 ? -$i : $i; if (x > m) m = x } } END { print m }' "$A" "$B")
    row=$(awk -v c="$c" -v t="$na × $nb" -v k="$km" -v f="$fm" -v cm="$cm" -v dk="$dk" -v df="$dfcl" -v S="$S" \
        -v db="$dbr" -v bp="$bp" -v tp="$tp" -v base="${BASE:+$(med "${bs[@]}")}" 'BEGIN {
        e = dk - df; if (e < 0) e = -e
        e /= S
        eb = (db == "nan") ? "–" : sprintf("%.1e", (dk - db < 0 ? db - dk : dk - db) / S)
        b = base == "" ? "" : sprintf(" %.1f | %.0fx |", base, base / k)
        # the brute force decides where it ran; FCL otherwise (to 1e-9 of S)
        if (db != "nan") ok = !(dk - db > 1e-12 * S || db - dk > 1e-12 * S)
        else ok = !(e > 1e-9)
        note = !ok ? " **off** |" : (e > 1e-9 ? " FCL off |" : "")
        printf "| %s | %s | %.1f | %.1f | **%.4f** | %.1f | **%.1f** |%s %.1e | %s | %d | %d |%s\n", c, t, k, f, k / f, cm, k / cm, b, e, eb, bp, tp, note
        exit !ok
    }') || bad=1
    echo "$row"
done
exit $bad
