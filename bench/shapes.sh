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
# with the runs' min-max spread. Checked: spheres and capsules within 1e-9
# of the scale (the mesh's largest coordinate or the farthest point of the
# posed shape) of the brute force, and the same collide wherever its gap is
# farther than that from 0; boxes and cylinders within 1e-6 of the scale of
# FCL's distance, and the same collide wherever either distance exceeds
# that; FCL's distance with GJK's tolerance 1e-14 instead of its default 1e-6
# (untimed) is shown as a second opinion. Exits non-zero when a program
# fails or a check does (the speed
# targets are reported, not enforced: timings are noisy).
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
            if [[ $s == sphere || $s == capsule ]]; then
                if [[ ! -s $base.brute.txt || $base.brute.txt -ot $poses || $base.brute.txt -ot $here/shape_brute ]]; then
                    "$here/shape_brute" "$M" "$shape" "$poses" >"$base.brute.tmp" || fail "shape_brute failed for $m $s"
                    mv "$base.brute.tmp" "$base.brute.txt"
                fi
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
                lines.append((int(w[1]), float(w[2]), float(w[5])))
        per.append(lines)
    return per[0], cm, dm
def spread(xs):
    return f"{med(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"
for m in meshes:
    for s in shapes:
        base = f"{out}/{m.rsplit('.', 1)[0]}.{s}"
        ppath = f"{base}.seed{seed}.n{count}.poses"
        scale = None
        for l in open(ppath):
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
        f_hit = [bool(h) for h, _, _ in f_ans]
        f_dist = [d for _, d, _ in f_ans]
        f_tight = [t for _, _, t in f_ans]
        tight_err = max(abs(x - y) for x, y in zip(k_dist, f_tight)) / scale
        n = len(k_hit)
        if len(f_ans) != n or len(k_dist) != n:
            sys.exit(f"{m} {s}: {n} kcbp answers, {len(f_ans)} FCL answers")
        touching = sum(k_hit)
        # the referee: the brute force (spheres, capsules) or FCL (boxes, cylinders)
        if s in ("sphere", "capsule"):
            ref, band = [], 1e-9 * scale
            for l in open(f"{base}.brute.txt"):
                w = l.split()
                if w and w[0] != "#":
                    ref.append((float(w[1]), float(w[3])))
            ref_dist = [d for d, _ in ref]
            ref_hit = [None if abs(g) <= band else g <= 0 for _, g in ref]
            ref_name = "brute force"
            f_err = max(abs(x - y) for x, y in zip(f_dist, ref_dist)) / scale
        else:
            band = 1e-6 * scale
            ref_dist = f_dist
            ref_hit = [None if max(k_dist[i], f_dist[i]) <= band else f_hit[i] for i in range(n)]
            ref_name = "FCL"
            f_err = None
        err = max(abs(x - y) for x, y in zip(k_dist, ref_dist)) / scale
        worst = max(range(n), key=lambda i: abs(k_dist[i] - ref_dist[i]))
        wrong = [i for i in range(n) if ref_hit[i] is not None and ref_hit[i] != k_hit[i]]
        tol = 1e-9 if s in ("sphere", "capsule") else 1e-6
        if err > tol:
            bad = True
            notes.append(f"{m} {shape}: pose {worst}: kcbp distance {k_dist[worst]!r}, {ref_name} {ref_dist[worst]!r} "
                         f"({err:.2e} of the scale, above {tol:g})")
        if wrong:
            bad = True
            notes.append(f"{m} {shape}: collide differs from the {ref_name} outside the band at poses {wrong[:10]}")
        fhit_diff = sum(1 for i in range(n) if f_hit[i] != k_hit[i])
        kc, kd, fc, fd = med(kc_runs), med(kd_runs), med(fc_runs), med(fd_runs)
        ratios["collide"].append(kc / fc)
        ratios["distance"].append(kd / fd)
        rows.append(f"| {m.rsplit('.', 1)[0]} | {s} | {touching}/{n} | {spread(kc_runs)} | {spread(fc_runs)} | "
                    f"**{kc / fc:.2f}** | {spread(kd_runs)} | {spread(fd_runs)} | **{kd / fd:.2f}** | "
                    f"{err:.1e} ({ref_name}) | {tight_err:.1e} | {'-' if f_err is None else f'{f_err:.1e}'} | "
                    f"{len(wrong)} | {fhit_diff} |")
print(f"{count} poses per mesh and shape (seed {seed}), about half touching; {runs} interleaved runs; µs per query: "
      "the median over the poses of each run, then the median over runs (min-max of the runs' medians)\n")
print("| mesh | shape | kcbp collide | kcbp collide µs | FCL collide µs | kcbp/FCL | kcbp distance µs | FCL distance µs | "
      "kcbp/FCL | max \\|kcbp − ref\\| / scale | max \\|kcbp − FCL tight\\| / scale | max \\|FCL − brute\\| / scale | "
      "collide ≠ ref outside band | collide ≠ FCL (any) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
for k, v in ratios.items():
    print(f"\n{k}: kcbp/FCL median {med(v):.2f}, worst {max(v):.2f} (target <= 0.5)")
for n in notes:
    print(f"\n- {n}")
sys.exit(1 if bad else 0)
PY
