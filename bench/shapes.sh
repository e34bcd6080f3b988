#!/usr/bin/env bash
# Issue 29 benchmark: spheres, capsules, boxes and cylinders near CAD and
# scanned meshes, kcbp against FCL 0.7 in the same script (FCL's own shapes
# against fcl::BVHModel<OBBRSSd>: bench/fcl_shapes), per query for collide
# and for distance, with a long-double brute force over every triangle as
# the referee for spheres and capsules (bench/shape_brute).
#
#   bench/shapes.sh                 # RUNS=5 SEED=1 COUNT=100
#   RUNS=9 COUNT=200 bench/shapes.sh
#   MESHES="block.stl spot.obj" SHAPES="sphere capsule" bench/shapes.sh
#   NO_BUILD=1 bench/shapes.sh      # skip the make calls
#   REPORT_ONLY=1 bench/shapes.sh   # the tables of the last run again
#
# Poses (bench/gen_shape_poses): the shape's numbers relative to the mesh's
# box diagonal D (sphere r = 0.03 D; capsule r = 0.02 D, segment 0.1 D; box
# 0.05 x 0.03 x 0.08 D; cylinder r = 0.025 D, height 0.08 D), a random
# rotation, its centre at a random surface point moved along a random
# direction to the last contact s* (bisection with kcbp_collide), then to
# s* (1 + delta), |delta| uniform in (0, 0.15], its sign alternating: about
# half touch.
#
# Meshes: the CAD set of bench/cad.sh (block, lathe, heatsink: bench/gen_cad,
# from this tree when it has it, else from the cadbench branch's
# bench/gen_cad.c, read with git show), the bundled CAD-like fandisk and
# rocker-arm, and the scanned stanford-bunny and spot.
#
# kcbp's time is the report's query_ms (the query alone, as FCL's is timed);
# `kcbp collide --contacts none` (FCL's default request also stops at the
# first contact) and `kcbp distance`. The runs are interleaved (kcbp
# collide, kcbp distance, FCL, then again), the machine being shared; each
# figure is the median over the poses of a run, then the median over runs,
# with the runs' min-max spread. The referee (bench/shape_brute, over every
# triangle, by methods the library's shape queries do not use): a
# long-double distance from the centre or the segment for spheres and
# capsules, the exact triangle test and kcbp_tri_distance against a box's
# 12 face triangles, GJK against prisms of 2048 sides inscribed in and
# circumscribed about a cylinder (an interval 1.2e-6 r wide). Checked:
# every kcbp distance within 1e-9 of the scale (the mesh's largest
# coordinate or the farthest point of the posed shape) of the referee's; the
# same collide as the referee wherever the distance is farther than that
# from 0; boxes and cylinders within 1e-6 of the scale of FCL's distance,
# except where FCL's is itself outside the referee's interval by more than
# that (counted). Exits non-zero when a program fails or a check does (the
# speed targets are reported, not enforced: timings are noisy).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out/shapes"
RUNS=${RUNS:-5}
SEED=${SEED:-1}
COUNT=${COUNT:-100}
MESHES=${MESHES:-"block.stl lathe.stl heatsink.stl fandisk.obj rocker-arm.obj stanford-bunny.obj spot.obj"}
SHAPES=${SHAPES:-"sphere capsule box cylinder"}

fail() { echo "shapes.sh: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "python3 is needed to read the reports"
mkdir -p "$out"

declare -A rel=([sphere]=sphere:0.03 [capsule]=capsule:0.02:0.1 [box]=box:0.05:0.03:0.08 [cylinder]=cylinder:0.025:0.08)

if [[ -z ${REPORT_ONLY:-} ]]; then
    if [[ -z ${NO_BUILD:-} ]]; then
        make -s -C "$root" kcbp build/libkcbp.a >&2 || fail "building kcbp failed"
        make -s -C "$here" gen_shape_poses shape_brute fcl_shapes >&2 || fail "building the bench programs failed"
    fi
    # The CAD parts: gen_cad from this tree, or the cadbench branch's.
    need_cad=
    for m in $MESHES; do [[ -f $root/meshes/$m ]] || need_cad=1; done
    if [[ -n $need_cad ]]; then
        src=$here/gen_cad.c
        if [[ ! -f $src ]]; then
            src=$out/gen_cad.c
            git -C "$root" show cadbench:bench/gen_cad.c >"$src.tmp" 2>/dev/null && mv "$src.tmp" "$src" ||
                fail "no bench/gen_cad.c here and no cadbench branch to take it from: set MESHES to bundled meshes"
        fi
        if [[ ! -x $out/gen_cad || $out/gen_cad -ot $src ]]; then
            ${CC:-cc} -std=c11 -O2 -o "$out/gen_cad" "$src" -lm || fail "building gen_cad failed"
        fi
        [[ -s $out/cad/heatsink.stl && $out/cad/heatsink.stl -nt $out/gen_cad ]] ||
            { mkdir -p "$out/cad" && "$out/gen_cad" "$out/cad" >/dev/null; } || fail "gen_cad failed"
    fi
fi

mesh_path() { [[ -f $root/meshes/$1 ]] && echo "$root/meshes/$1" || echo "$out/cad/$1"; }

if [[ -z ${REPORT_ONLY:-} ]]; then
    i=0
    for m in $MESHES; do
        M=$(mesh_path "$m")
        [[ -f $M ]] || fail "no mesh $m"
        for s in $SHAPES; do
            [[ -n ${rel[$s]:-} ]] || fail "unknown shape $s (sphere, capsule, box, cylinder)"
            i=$((i + 1))
            base="$out/${m%.*}.$s"
            poses="$base.seed$SEED.n$COUNT.poses"
            if [[ ! -s $poses || $poses -ot $here/gen_shape_poses ]]; then
                echo "shapes.sh: $m $s: generating $COUNT poses (seed $SEED)" >&2
                "$here/gen_shape_poses" "$M" "${rel[$s]}" "$((SEED * 1000 + i))" "$COUNT" >"$poses.tmp" ||
                    fail "gen_shape_poses failed for $m $s"
                mv "$poses.tmp" "$poses"
            fi
            shape=$(sed -n 's/^# shape //p' "$poses")
            echo "shapes.sh: $m $shape: kcbp collide, kcbp distance and FCL, x$RUNS interleaved" >&2
            for ((r = 1; r <= RUNS; r++)); do
                "$root/kcbp" collide "$M" "$shape" --poses "$poses" --contacts none >"$base.kc.$r.ndjson" ||
                    fail "kcbp collide failed for $m $s"
                "$root/kcbp" distance "$M" "$shape" --poses "$poses" >"$base.kd.$r.ndjson" ||
                    fail "kcbp distance failed for $m $s"
                "$here/fcl_shapes" "$M" "$shape" "$poses" 1 >"$base.fcl.$r.txt" || fail "fcl_shapes failed for $m $s"
            done
            if [[ ! -s $base.brute.txt || $base.brute.txt -ot $poses || $base.brute.txt -ot $here/shape_brute ]]; then
                "$here/shape_brute" "$M" "$shape" "$poses" >"$base.brute.tmp" || fail "shape_brute failed for $m $s"
                mv "$base.brute.tmp" "$base.brute.txt"
            fi
        done
    done
fi

python3 - "$out" "$RUNS" "$SEED" "$COUNT" "$MESHES" "$SHAPES" <<'PY'
import json, statistics, sys
out, runs, seed, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
meshes, shapes = sys.argv[5].split(), sys.argv[6].split()
med = statistics.median
rows, notes, bad = [], [], False
ratios = {"collide": [], "distance": []}
def fcl_runs(base):
    per, cm, dm = [], [], []
    for r in range(1, runs + 1):
        lines = []
        for l in open(f"{base}.fcl.{r}.txt"):
            w = l.split()
            if not w or w[0] == "#":
                continue
            if w[0] == "collide_median_us":
                cm.append(float(w[1]))
            elif w[0] == "distance_median_us":
                dm.append(float(w[1]))
            elif w[0] != "build_ms":
                lines.append((bool(int(w[1])), float(w[2]), float(w[5])))
        per.append(lines)
    return per[0], cm, dm
def spread(xs):
    return f"{med(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"
for m in meshes:
    for s in shapes:
        base = f"{out}/{m.rsplit('.', 1)[0]}.{s}"
        scale = None
        for l in open(f"{base}.seed{seed}.n{count}.poses"):
            if l.startswith("# scale "):
                scale = float(l.split()[2])
            if l.startswith("# shape "):
                shape = l.split()[2]
        kc_runs, kd_runs = [], []
        for r in range(1, runs + 1):
            kc = sorted((json.loads(l) for l in open(f"{base}.kc.{r}.ndjson")), key=lambda d: d["pose"])
            kd = sorted((json.loads(l) for l in open(f"{base}.kd.{r}.ndjson")), key=lambda d: d["pose"])
            kc_runs.append(med(d["stats"]["query_ms"] * 1e3 for d in kc))
            kd_runs.append(med(d["stats"]["query_ms"] * 1e3 for d in kd))
            if r == 1:
                k_hit = [d["collide"] for d in kc]
                k_dist = [d["distance"] for d in kd]
        f_ans, fc_runs, fd_runs = fcl_runs(base)
        f_hit = [h for h, _, _ in f_ans]
        f_dist = [d for _, d, _ in f_ans]
        n = len(k_hit)
        ref = []
        for l in open(f"{base}.brute.txt"):
            w = l.split()
            if w and w[0] != "#":
                ref.append((float(w[1]), float(w[2]), int(w[3])))
        if len(f_ans) != n or len(k_dist) != n or len(ref) != n:
            sys.exit(f"{m} {s}: {n} kcbp answers, {len(f_ans)} FCL answers, {len(ref)} referee answers")
        outside = lambda x, lo, hi: max(0.0, lo - x, x - hi)
        k_err = max(outside(k_dist[i], *ref[i][:2]) for i in range(n)) / scale
        f_err = max(outside(f_dist[i], *ref[i][:2]) for i in range(n)) / scale
        kf = [abs(k_dist[i] - f_dist[i]) / scale for i in range(n)]
        band = 1e-9 * scale
        wrong = [i for i in range(n) if (ref[i][2] == 1 and not k_hit[i] and k_dist[i] > band) or
                 (ref[i][2] == 0 and k_hit[i] and ref[i][0] > band)]
        # the targets: spheres and capsules within 1e-9 of the scale of the
        # brute force; boxes and cylinders within 1e-6 of FCL's distance,
        # except where FCL's is itself outside the referee's interval by more
        # than that (then within 1e-9 of the referee's)
        if k_err > 1e-9:
            bad = True
            worst = max(range(n), key=lambda i: outside(k_dist[i], *ref[i][:2]))
            notes.append(f"{m} {shape}: pose {worst}: kcbp distance {k_dist[worst]!r}, referee "
                         f"[{ref[worst][0]!r}, {ref[worst][1]!r}] ({k_err:.2e} of the scale)")
        fcl_off = 0
        if s in ("box", "cylinder"):
            for i in range(n):
                if kf[i] > 1e-6:
                    if outside(f_dist[i], *ref[i][:2]) / scale > 1e-6:
                        fcl_off += 1
                    else:
                        bad = True
                        notes.append(f"{m} {shape}: pose {i}: kcbp distance {k_dist[i]!r}, FCL {f_dist[i]!r} "
                                     f"({kf[i]:.2e} of the scale) and FCL inside the referee's interval")
        if wrong:
            bad = True
            notes.append(f"{m} {shape}: collide differs from the referee outside the band at poses {wrong[:10]}")
        fhit_diff = sum(1 for i in range(n) if f_hit[i] != k_hit[i])
        kc, kd, fc, fd = med(kc_runs), med(kd_runs), med(fc_runs), med(fd_runs)
        ratios["collide"].append(kc / fc)
        ratios["distance"].append(kd / fd)
        rows.append(f"| {m.rsplit('.', 1)[0]} | {s} | {sum(k_hit)}/{n} | {spread(kc_runs)} | {spread(fc_runs)} | "
                    f"**{kc / fc:.2f}** | {spread(kd_runs)} | {spread(fd_runs)} | **{kd / fd:.2f}** | "
                    f"{k_err:.1e} | {f_err:.1e} | {max(kf):.1e} ({fcl_off}) | {len(wrong)} | {fhit_diff} |")
print(f"{count} poses per mesh and shape (seed {seed}), about half touching; {runs} interleaved runs; µs per query: "
      "the median over the poses of each run, then the median over runs (min-max of the runs' medians). "
      "Distances against the referee (bench/shape_brute: long double for spheres and capsules, the box's face "
      "triangles, prisms around and inside the cylinder), relative to the scale; (n): poses where kcbp and FCL "
      "differ by more than 1e-6 of the scale and FCL is outside the referee's interval by more than that\n")
print("| mesh | shape | kcbp collide | kcbp collide µs | FCL collide µs | kcbp/FCL | kcbp distance µs | FCL distance µs | "
      "kcbp/FCL | max kcbp − referee | max FCL − referee | max \\|kcbp − FCL\\| | collide ≠ referee outside band | "
      "collide ≠ FCL (any) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
for k, v in ratios.items():
    print(f"\n{k}: kcbp/FCL median {med(v):.2f}, worst {max(v):.2f} (target <= 0.5)")
for n in notes:
    print(f"\n- {n}")
sys.exit(1 if bad else 0)
PY
