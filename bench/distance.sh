#!/usr/bin/env bash
# Issue 15 benchmark: per-query time of `kcbp distance A B --poses FILE`
# against FCL 0.7 (fcl::distance on BVHModel<RSSd>, nearest points on,
# rel_err = abs_err = 0: bench/fcl_distance) on poses 0-50 % beyond first
# contact (bench/gen_poses with MAX_REL_DELTA=0.5, keeping delta >= 0), and
# clearance queries (`--margin D`, D = the median distance of the
# pair's poses, so that about half are within) against FCL's full distance
# (FCL has no early exit) and against kcbp's own full distance.
#
#   bench/distance.sh              # RUNS=5 SEED=1 COUNT=100 by default
#   RUNS=9 COUNT=200 bench/distance.sh
#   NO_BUILD=1 bench/distance.sh   # skip the make calls
#
# Runs are interleaved (kcbp full, kcbp clearance, FCL, then again), since
# the machine may be shared and noisy. Prints a Markdown table: per run the
# median over the poses, then the median over runs; distances compared pose
# by pose against FCL's, relative to the pair's scale (the largest absolute
# coordinate of either mesh plus B's largest translation). Exits non-zero
# when something cannot be built or run, or when a distance differs from
# FCL's by more than 1e-9 of the scale, or a clearance answer is wrong.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
RUNS=${RUNS:-5}
SEED=${SEED:-1}
COUNT=${COUNT:-100}

fail() { echo "distance.sh: $*" >&2; exit 1; }

command -v python3 >/dev/null || fail "python3 is needed to read the reports"
if [[ -z ${NO_BUILD:-} ]]; then
    make -s -C "$root" kcbp build/libkcbp.a >&2 || fail "building kcbp failed"
    make -s -C "$here" gen_poses fcl_distance >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"

# name  A  B  (the pairs of collide.sh)
pairs=(
    "bunny-bunny stanford-bunny.obj stanford-bunny.obj"
    "bunny2-spot bunny2.obj spot.obj"
    "rocker-fandisk rocker-arm.obj fandisk.obj"
)

for i in "${!pairs[@]}"; do
    read -r name a b <<<"${pairs[i]}"
    A="$root/meshes/$a" B="$root/meshes/$b"
    poses="$out/$name.dist.seed$SEED.n$COUNT.poses"
    if [[ ! -s $poses || $poses -ot $here/gen_poses ]]; then
        echo "distance.sh: $name: generating $COUNT poses 0-50 % beyond contact (seed $SEED)" >&2
        # delta uniform in [-0.5, 0.5]: keep the half beyond contact.
        "$here/gen_poses" "$A" "$B" "$((SEED * 1000 + i))" "$((3 * COUNT))" 0.5 |
            awk -v n="$COUNT" '/^#/ { print; next } $NF + 0 >= 0 && k < n { print; k++ }' >"$poses.tmp" ||
            fail "gen_poses failed for $name"
        mv "$poses.tmp" "$poses"
    fi
    # The clearance: the median of the pair's distances (from a first kcbp run).
    "$root/kcbp" distance "$A" "$B" --poses "$poses" >"$out/$name.dist.0.ndjson" || fail "kcbp distance failed for $name"
    clear=$(python3 -c 'import json, statistics, sys
print(repr(statistics.median(json.loads(l)["distance"] for l in open(sys.argv[1]))))' "$out/$name.dist.0.ndjson")
    echo "$clear" >"$out/$name.clear"
    echo "distance.sh: $name: kcbp, kcbp --margin $clear and FCL, x$RUNS interleaved" >&2
    for ((r = 1; r <= RUNS; r++)); do
        "$root/kcbp" distance "$A" "$B" --poses "$poses" >"$out/$name.dist.$r.ndjson" ||
            fail "kcbp distance failed for $name"
        "$root/kcbp" distance "$A" "$B" --poses "$poses" --margin "$clear" >"$out/$name.clear.$r.ndjson" ||
            fail "kcbp distance --margin failed for $name"
        "$here/fcl_distance" "$A" "$B" "$poses" 1 >"$out/$name.fcl.$r.txt" || fail "fcl_distance failed for $name"
    done
done

python3 - "$out" "$RUNS" "$SEED" "$COUNT" "$root/meshes" "${pairs[@]}" <<'PY'
import json, statistics, sys
out, runs, seed, count, meshes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
pairs = [p.split() for p in sys.argv[6:]]
med = statistics.median
def max_abs(path):
    m = 0.0
    for l in open(path):
        if l.startswith("v "):
            m = max(m, *(abs(float(x)) for x in l.split()[1:4]))
    return m
def poses(path):
    return [list(map(float, l.split("#")[0].split()[:3])) for l in open(path) if l.strip() and not l.startswith("#")]
rows, clear_rows, notes, bad = [], [], [], False
for name, a, b in pairs:
    base = f"{out}/{name}"
    clear = float(open(f"{base}.clear").read())
    tr = max(sum(x * x for x in p) ** 0.5 for p in poses(f"{base}.dist.seed{seed}.n{count}.poses"))
    scale = max(max_abs(f"{meshes}/{a}"), max_abs(f"{meshes}/{b}") + tr)
    k_runs, c_runs, f_runs, k_tri, c_dec = [], [], [], None, {}
    k_dist = f_dist = None
    for r in range(1, runs + 1):
        k = sorted((json.loads(l) for l in open(f"{base}.dist.{r}.ndjson")), key=lambda d: d["pose"])
        c = sorted((json.loads(l) for l in open(f"{base}.clear.{r}.ndjson")), key=lambda d: d["pose"])
        k_runs.append(med(d["stats"]["query_ms"] * 1e3 for d in k))
        c_runs.append(med(d["stats"]["query_ms"] * 1e3 for d in c))
        if k_dist is None:
            k_dist = [d["distance"] for d in k]
            k_tri = med(d["stats"]["triangle_pairs"] for d in k)
            k_box = med(d["stats"]["box_pairs"] for d in k)
            for d in c:
                c_dec[d["decided_by"]] = c_dec.get(d["decided_by"], 0) + 1
            c_within = [d["distance"] is not None for d in c]
            c_dist = [d["distance"] for d in c]
        fd = []
        for l in open(f"{base}.fcl.{r}.txt"):
            w = l.split()
            if not w or w[0] == "#":
                continue
            if w[0] == "median_us":
                f_runs.append(float(w[1]))
            elif w[0] != "build_ms":
                fd.append(float(w[1]))
        if f_dist is None:
            f_dist = fd
    if len(f_dist) != len(k_dist):
        sys.exit(f"{name}: {len(k_dist)} kcbp distances but {len(f_dist)} FCL distances")
    err = max(abs(x - y) for x, y in zip(k_dist, f_dist)) / scale
    if err > 1e-9:
        bad = True
        worst = max(range(len(k_dist)), key=lambda i: abs(k_dist[i] - f_dist[i]))
        notes.append(f"{name}: pose {worst}: kcbp {k_dist[worst]!r}, FCL {f_dist[worst]!r}")
    wrong = [i for i, w in enumerate(c_within) if w != (k_dist[i] <= clear) or (w and c_dist[i] != k_dist[i])]
    if wrong:
        bad = True
        notes.append(f"{name}: clearance answers differ from the full distance at poses {wrong[:10]}")
    km, cm, fm = med(k_runs), med(c_runs), med(f_runs)
    rows.append(f"| {a[:-4]} vs {b[:-4]} | {len(k_dist)} | {km:.1f} | {fm:.1f} | {km / fm:.2f} | "
                f"{err:.1e} | {k_box:.0f} | {k_tri:.0f} |")
    n = len(c_within)
    pct = lambda s: f"{100.0 * c_dec.get(s, 0) / n:.0f}%"
    clear_rows.append(f"| {a[:-4]} vs {b[:-4]} | {clear:.4g} | {sum(c_within)} / {n} | {pct('aabb')} / {pct('cbp')} / "
                      f"{pct('mesh')} | {cm:.1f} | {cm / fm:.2f} | {cm / km:.2f} |")
print(f"{count} poses per pair 0-50 % beyond first contact (seed {seed}), {runs} interleaved runs; median µs per query "
      "(median over poses in each run, then median over runs)\n")
print("| pair | poses | kcbp µs | FCL µs | kcbp/FCL | max \\|kcbp − FCL\\| / scale | kcbp box pairs | kcbp tri pairs |")
print("|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
print("\nClearance queries (`--margin D`, D the median distance of the pair's poses) against FCL's full "
      "distance and kcbp's own full distance\n")
print("| pair | D | within D | decided by aabb / cbp / mesh | kcbp µs | /FCL | /kcbp full |")
print("|---|---|---|---|---|---|---|")
print("\n".join(clear_rows))
for n in notes:
    print(f"\n- {n}")
sys.exit(1 if bad else 0)
PY
