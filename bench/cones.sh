#!/usr/bin/env bash
# Issue 33 item 1 benchmark: distance between nested surfaces at (nearly)
# constant clearance (bench/gen_cones: pointed cones lifted one in the
# other, turned, tilted, shifted, with and without base, a shaft in its
# bore, concentric spheres, coaxial flat fans), kcbp
# against FCL 0.7 (fcl::distance, BVHModel<RSSd>, rel_err = abs_err = 0) in
# one program (bench/cones_bench), CPU time of the querying thread
# (CLOCK_THREAD_CPUTIME_ID: the machine may be shared), ROUNDS rounds each
# running kcbp then FCL once, medians over the rounds, and one kcbp_collide
# (default options, as `kcbp collide`) on the same pair in each round for
# the issue's "at most 100x one collide" target. FCL is run in the
# first round only when its query takes more than FCL_CAP_S seconds.
# Answers compared: |kcbp - FCL| and, for pairs of at most BRUTE_MAX
# triangle pairs, |kcbp - brute force| (the smallest kcbp_tri_distance
# over all pairs). With BASE=path/to/cones_bench (built against another
# libkcbp: the code before a change) its kcbp time is shown too (once
# when it takes more than FCL_CAP_S seconds, as FCL).
#
#   bench/cones.sh                 # ROUNDS=5
#   ROUNDS=3 BASE=/tmp/cones_bench_base bench/cones.sh
#   NO_BUILD=1 bench/cones.sh
#
# Exits non-zero when a program fails or an answer differs from FCL's or
# the brute force's by more than 1e-12 (the coordinates are about 1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out/cones"
ROUNDS=${ROUNDS:-5}
FCL_CAP_S=${FCL_CAP_S:-2}
BRUTE_MAX=${BRUTE_MAX:-4000000}
BASE=${BASE:-}

fail() { echo "cones.sh: $*" >&2; exit 1; }
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" build/libkcbp.a build/libkcbp_eval.a >&2 || fail "building kcbp failed"
    make -s -C "$here" gen_cones cones_bench >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"

# gen_cones arguments: KIND N LIFT P SPIN (P the half-angle in degrees for
# cones, B's sectors otherwise; SPIN in sectors), or posed N CLEAR HALF_DEG
# SPIN TILT_DEG SHIFT BASE HB NB (bench/gen_cones: a cone in a cone tilted,
# shifted, with or without base, lifted to a clearance of its side planes)
cases=(
    "cones 2000 0.05 30 0"
    "cones 8000 0.07 30 0"
    "cones 8000 0.05 45 0"
    "cones 16000 0.1 20 0"
    "cones 2000 0.08 20 0.37"
    "cones 8000 0.06 25 0.37"
    "cones 8000 0.05 30 0.5"
    "cones 20000 0.07 30 0.37"
    "posed 8000 0.01 34 0.58 0.3 0.01 0 1 6001"
    "posed 8000 0.01 49 0.69 3 0.001 0 1 6001"
    "posed 8000 0.1 30 0.25 1 0.02 0 1 8000"
    "posed 8000 0.003 35 0.41 0 0.001 1 0.8 8000"
    "posed 20000 0.03 50 0.55 3 0 0 1 20000"
    "posed 20000 0.01 25 0.37 0 0.005 0 1 20000"
    "posed 20000 0.001 44 0.53 0 0.03 1 0.8 20000"
    "cyl 8000 0.01 6000 0.3"
    "shells 200 0.02 180 0.3"
    "fans 8000 0.05 6000 0.3"
)

echo "| case | triangles | kcbp µs | FCL µs | kcbp/FCL | collide µs | kcbp/collide |${BASE:+ before µs | before/after |} \\|kcbp − FCL\\| | \\|kcbp − brute\\| | box pairs | tri pairs |"
echo "|---|---|---|---|---|---|---|${BASE:+---|---|}---|---|---|---|"
bad=0
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
for c in "${cases[@]}"; do
    read -r -a args <<<"$c"
    tag=$(tr ' ' '-' <<<"$c")
    A="$out/$tag.a.obj" B="$out/$tag.b.obj"
    "$here/gen_cones" "${args[@]}" "$A" "$B" >/dev/null || fail "gen_cones $c"
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
    row=$(awk -v c="$c" -v t="$na × $nb" -v k="$km" -v f="$fm" -v cm="$cm" -v dk="$dk" -v df="$dfcl" \
        -v db="$dbr" -v bp="$bp" -v tp="$tp" -v base="${BASE:+$(med "${bs[@]}")}" 'BEGIN {
        e = dk - df; if (e < 0) e = -e
        eb = (db == "nan") ? "–" : sprintf("%.1e", (dk - db < 0 ? db - dk : dk - db))
        b = base == "" ? "" : sprintf(" %.1f | %.0fx |", base, base / k)
        printf "| %s | %s | %.1f | %.1f | **%.4f** | %.1f | **%.1f** |%s %.1e | %s | %d | %d |\n", c, t, k, f, k / f, cm, k / cm, b, e, eb, bp, tp
        if (e > 1e-12 || (db != "nan" && (dk - db > 1e-12 || db - dk > 1e-12))) exit 1
    }') || { bad=1; row=$(awk -v c="$c" 'BEGIN { print "| " c " | answers differ |" }'); }
    echo "$row"
done
exit $bad
