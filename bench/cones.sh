#!/usr/bin/env bash
# Issue 33 item 1 benchmark: distance between nested surfaces at (nearly)
# constant clearance (bench/gen_cones: pointed cones lifted one in the
# other, a shaft in its bore, concentric spheres, coaxial flat fans), kcbp
# against FCL 0.7 (fcl::distance, BVHModel<RSSd>, rel_err = abs_err = 0) in
# one program (bench/cones_bench), CPU time of the querying thread
# (CLOCK_THREAD_CPUTIME_ID: the machine may be shared), ROUNDS rounds each
# running kcbp then FCL once, medians over the rounds. FCL is run in the
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

# kind N LIFT P SPIN (bench/gen_cones: P the half-angle in degrees for
# cones, B's sectors otherwise; SPIN in sectors)
cases=(
    "cones 2000 0.05 30 0"
    "cones 8000 0.07 30 0"
    "cones 8000 0.05 45 0"
    "cones 16000 0.1 20 0"
    "cones 2000 0.08 20 0.37"
    "cones 8000 0.06 25 0.37"
    "cones 8000 0.05 30 0.5"
    "cyl 8000 0.01 6000 0.3"
    "shells 200 0.02 180 0.3"
    "fans 8000 0.05 6000 0.3"
)

echo "| case | triangles | kcbp µs | FCL µs | kcbp/FCL |${BASE:+ before µs | before/after |} \\|kcbp − FCL\\| | \\|kcbp − brute\\| | box pairs | tri pairs |"
echo "|---|---|---|---|---|${BASE:+---|---|}---|---|---|---|"
bad=0
for c in "${cases[@]}"; do
    read -r kind n lift p spin <<<"$c"
    A="$out/$kind-$n-$lift-$p-$spin.a.obj" B="$out/$kind-$n-$lift-$p-$spin.b.obj"
    "$here/gen_cones" "$kind" "$n" "$lift" "$p" "$spin" "$A" "$B" || fail "gen_cones $c"
    na=$(grep -c '^f ' "$A") nb=$(grep -c '^f ' "$B")
    brute=$((na * nb <= BRUTE_MAX ? 1 : 0))
    ks=() fs=() bs=()
    fcl_runs=1 base_again=
    for ((r = 1; r <= ROUNDS; r++)); do
        line=$("$here/cones_bench" "$A" "$B" 1 "$fcl_runs" "$((r == 1 ? brute : 0))") || fail "cones_bench $c"
        read -r _ k _ f _ dk _ df _ db _ bp _ tp <<<"$line"
        ks+=("$k")
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
    med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
    km=$(med "${ks[@]}") fm=$(med "${fs[@]}")
    row=$(awk -v c="$kind $n lift $lift p $p spin $spin" -v t="$na × $nb" -v k="$km" -v f="$fm" -v dk="$dk" -v df="$dfcl" \
        -v db="$dbr" -v bp="$bp" -v tp="$tp" -v base="${BASE:+$(med "${bs[@]}")}" 'BEGIN {
        e = dk - df; if (e < 0) e = -e
        eb = (db == "nan") ? "–" : sprintf("%.1e", (dk - db < 0 ? db - dk : dk - db))
        b = base == "" ? "" : sprintf(" %.1f | %.0fx |", base, base / k)
        printf "| %s | %s | %.1f | %.1f | **%.4f** |%s %.1e | %s | %d | %d |\n", c, t, k, f, k / f, b, e, eb, bp, tp
        if (e > 1e-12 || (db != "nan" && (dk - db > 1e-12 || db - dk > 1e-12))) exit 1
    }') || { bad=1; row=$(awk -v c="$c" 'BEGIN { print "| " c " | answers differ |" }'); }
    echo "$row"
done
exit $bad
