#!/usr/bin/env bash
# Issue 2 benchmark: per-query time of `kcbp collide A B --poses FILE
# --contacts none` against FCL 0.7 (BVHModel<OBBRSSd>, fcl::collide with a
# default request) on near-contact poses (bench/gen_poses: about half collide).
#
#   bench/collide.sh            # from anywhere; RUNS=5 SEED=1 COUNT=200 by default
#   RUNS=9 SEED=7 bench/collide.sh
#   DELTA=0.3 bench/collide.sh  # poses spread further from contact
#   NO_BUILD=1 bench/collide.sh # skip the two make calls
#
# Prints a Markdown table: answers compared pose by pose, median microseconds
# per query (per run: the median over the poses; then the median over runs).
# Exits non-zero only when something cannot be built or run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
RUNS=${RUNS:-5}
SEED=${SEED:-1}
COUNT=${COUNT:-200}
DELTA=${DELTA:-0.02} # B is placed at (1 +- DELTA) times its first-contact distance

fail() { echo "collide.sh: $*" >&2; exit 1; }

command -v python3 >/dev/null || fail "python3 is needed to read the reports"
if [[ -z ${NO_BUILD:-} ]]; then # NO_BUILD=1: use the programs already built
    make -s -C "$root" kcbp build/libkcbp.a >&2 || fail "building kcbp failed"
    make -s -C "$here" gen_poses fcl_collide brute_check >&2 || fail "building the bench programs failed"
fi
mkdir -p "$out"

# name  A  B  (why these pairs: see bench/README.md). Meshes are read from
# meshes/, or from bench/out/ for the two made here: fandisk turned by 40
# degrees in its own frame (large slanted triangles) and the Stanford bunny
# scaled by 7.5 (triangles about 10x smaller than fandisk's).
pairs=(
    "bunny-bunny stanford-bunny.obj stanford-bunny.obj"
    "bunny2-spot bunny2.obj spot.obj"
    "rocker-fandisk rocker-arm.obj fandisk.obj"
    "slanted-bunny fandisk-slanted.obj bunny-x7.5.obj"
)
python3 "$here/transform_obj.py" "$root/meshes/fandisk.obj" "$out/fandisk-slanted.obj" 1 1 0.3 40 1 ||
    fail "making fandisk-slanted.obj failed"
python3 "$here/transform_obj.py" "$root/meshes/stanford-bunny.obj" "$out/bunny-x7.5.obj" 0 0 1 0 7.5 ||
    fail "making bunny-x7.5.obj failed"
mesh() { if [[ -f $out/$1 ]]; then echo "$out/$1"; else echo "$root/meshes/$1"; fi; }

for i in "${!pairs[@]}"; do
    read -r name a b <<<"${pairs[i]}"
    A=$(mesh "$a") B=$(mesh "$b")
    poses="$out/$name.seed$SEED.n$COUNT.d$DELTA.poses"
    # Each pair gets its own random stream (seed*1000 + pair index), so that
    # the pairs' deltas are independent draws.
    if [[ ! -s $poses || $poses -ot $here/gen_poses ]]; then
        echo "collide.sh: $name: generating $COUNT poses (seed $SEED)" >&2
        "$here/gen_poses" "$A" "$B" "$((SEED * 1000 + i))" "$COUNT" "$DELTA" >"$poses.tmp" || fail "gen_poses failed for $name"
        mv "$poses.tmp" "$poses"
    fi
    echo "collide.sh: $name: kcbp x$RUNS, FCL x$RUNS" >&2
    for ((r = 1; r <= RUNS; r++)); do
        "$root/kcbp" collide "$A" "$B" --poses "$poses" --contacts none >"$out/$name.kcbp.$r.ndjson" ||
            fail "kcbp collide failed for $name"
        # The same without the k-CBP stage, for its speed-up (issue 4).
        "$root/kcbp" collide "$A" "$B" --poses "$poses" --contacts none --no-cbp >"$out/$name.nocbp.$r.ndjson" ||
            fail "kcbp collide --no-cbp failed for $name"
    done
    "$here/fcl_collide" "$A" "$B" "$poses" "$RUNS" >"$out/$name.fcl.txt" || fail "fcl_collide failed for $name"
done

python3 - "$out" "$RUNS" "$SEED" "$COUNT" "$DELTA" "${pairs[@]}" <<'EOF'
import json, statistics, sys
out, runs, seed, count, delta = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
pairs = [p.split() for p in sys.argv[6:]]
rows, builds, notes, stages = [], [], [], []
for name, a, b in pairs:
    base = f"{out}/{name}"
    k_ans, k_run_medians, k_build, tris = None, [], None, None
    k_box, k_tri, k_pose_runs = [], [], []
    for r in range(1, runs + 1):
        lines = [json.loads(l) for l in open(f"{base}.kcbp.{r}.ndjson")]
        lines.sort(key=lambda d: d["pose"])
        ans = [1 if d["collide"] else 0 for d in lines]
        if k_ans is None:
            k_ans = ans
            k_box = [d["stats"]["box_pairs"] for d in lines]
            k_tri = [d["stats"]["triangle_pairs"] for d in lines]
        elif ans != k_ans:
            notes.append(f"{name}: kcbp answers changed between runs")
        k_run_medians.append(statistics.median(d["stats"]["query_ms"] * 1e3 for d in lines))
        k_pose_runs.append([d["stats"]["query_ms"] * 1e3 for d in lines])
        k_build = lines[0]["stats"]["build_ms"]
        tris = (lines[0]["a"]["triangles"], lines[0]["b"]["triangles"])
    k_pose_us = [statistics.median(v) for v in zip(*k_pose_runs)]
    n_run_medians, deciders = [], {}
    for r in range(1, runs + 1):
        lines = [json.loads(l) for l in open(f"{base}.nocbp.{r}.ndjson")]
        lines.sort(key=lambda d: d["pose"])
        if [1 if d["collide"] else 0 for d in lines] != k_ans:
            notes.append(f"{name}: answers differ with and without the k-CBP stage (run {r})")
        n_run_medians.append(statistics.median(d["stats"]["query_ms"] * 1e3 for d in lines))
    for d in (json.loads(l) for l in open(f"{base}.kcbp.1.ndjson")):
        deciders[d["decided_by"]] = deciders.get(d["decided_by"], 0) + 1
    f_ans, f_med, f_build, f_pose_us = [], None, None, []
    for l in open(f"{base}.fcl.txt"):
        w = l.split()
        if not w or w[0] == "#":
            continue
        if w[0] == "median_us":
            f_med = float(w[1])
        elif w[0] == "build_ms":
            f_build = float(w[1]) + float(w[2])
        else:
            f_ans.append(int(w[1]))
            f_pose_us.append(float(w[2]))
    if len(f_ans) != len(k_ans):
        sys.exit(f"{name}: {len(k_ans)} kcbp answers but {len(f_ans)} FCL answers")
    dis = [i for i, (x, y) in enumerate(zip(k_ans, f_ans)) if x != y]
    k_med = statistics.median(k_run_medians)
    tri = f"{tris[0]:,}" if a == b else f"{tris[0]:,} / {tris[1]:,}"
    rows.append(f"| {a[:-4]} vs {b[:-4]} | {tri} | {sum(k_ans)} / {sum(f_ans)} | {len(dis)} | "
                f"{k_med:.1f} | {f_med:.1f} | {k_med / f_med:.2f} |")
    def med_where(v, want):
        sel = [x for x, c in zip(v, k_ans) if c == want]
        return f"{statistics.median(sel):.1f}" if sel else "-"
    n_med = statistics.median(n_run_medians)
    total = sum(deciders.values())
    pct = lambda k: f"{100.0 * deciders.get(k, 0) / total:.0f}%"
    stages.append(f"| {a[:-4]} vs {b[:-4]} | {pct('aabb')} | {pct('cbp')} | {pct('mesh')} | "
                  f"{k_med:.1f} | {n_med:.1f} | {n_med / k_med:.2f}x |")
    builds.append(f"| {a[:-4]} vs {b[:-4]} | {k_build:.1f} | {f_build:.1f} | "
                  f"{statistics.median(k_box):.0f} | {statistics.median(k_tri):.0f} | "
                  f"{med_where(k_pose_us, 1)} / {med_where(f_pose_us, 1)} | "
                  f"{med_where(k_pose_us, 0)} / {med_where(f_pose_us, 0)} |")
    if dis:
        notes.append(f"{name}: disagreements at poses {' '.join(map(str, dis))} "
                     f"(kcbp {''.join(map(str, (k_ans[i] for i in dis)))}, FCL {''.join(map(str, (f_ans[i] for i in dis)))}); "
                     f"check with: bench/brute_check <meshes or bench/out>/{a} <...>/{b} bench/out/{name}.seed{seed}.n{count}.d{delta}.poses 1e-3 "
                     + " ".join(map(str, dis[:5])))
print(f"{count} near-contact poses per pair (seed {seed}, at (1 ± {delta}) × the contact distance), {runs} runs; median µs per query "
      "(median over poses in each run, then median over runs)\n")
print("| pair | triangles | colliding poses (kcbp / FCL) | disagreements | kcbp µs | FCL µs | kcbp/FCL |")
print("|---|---|---|---|---|---|---|")
print("\n".join(rows))
print("\nThe k-CBP stage (k=16, greedy): the share of poses each stage decides, and the median µs per query "
      "with and without it (`--no-cbp`); the answers are compared pose by pose\n")
print("| pair | aabb | cbp | mesh | µs with k-CBP | µs without | speed-up |")
print("|---|---|---|---|---|---|---|")
print("\n".join(stages))
print("\nBuild time (loading excluded; one tree when A = B), kcbp's traversal work per query, and per-pose "
      "median µs split by answer (median over poses of each pose's median over runs)\n")
print("| pair | kcbp build ms | FCL build ms | kcbp box pairs | kcbp tri pairs | µs colliding kcbp / FCL | µs apart kcbp / FCL |")
print("|---|---|---|---|---|---|---|")
print("\n".join(builds))
for n in notes:
    print(f"\n- {n}")
EOF
