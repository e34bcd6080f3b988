#!/usr/bin/env python3
"""The tables of bench/cad.sh, from the raw outputs it leaves in bench/out/cad/raw.

    cad_report.py [--seed S] [--build FILE] [--self MESH|BASE]... -- NAME|CLASS|A|B|SPREAD|RUNS|RAW|POSES ...

Per pair and spread (RAW.kc.R / .fc.R / .kd.R / .fd.R for rounds R = 1..RUNS,
RAW.counts): per round the median over the poses of each program's per-query
time, then the median over the rounds, with the rounds' range; answers
compared pose by pose. Prints Markdown; exits 1 when kcbp and FCL disagree
(a collide boolean, or a distance beyond 1e-9 of the pair's scale) or when a
program's answers change between rounds.
"""
import json
import statistics
import struct
import sys

med = statistics.median


def max_abs(path, cache={}):
    """The largest absolute vertex coordinate of an OBJ or binary STL file."""
    if path in cache:
        return cache[path]
    m = 0.0
    data = open(path, "rb").read()
    if len(data) >= 84 and len(data) == 84 + 50 * struct.unpack_from("<I", data, 80)[0]:
        n = struct.unpack_from("<I", data, 80)[0]
        for i in range(n):
            m = max(m, max(abs(x) for x in struct.unpack_from("<9f", data, 84 + 50 * i + 12)))
    else:
        for line in data.decode().splitlines():
            if line.startswith("v "):
                m = max(m, *(abs(float(x)) for x in line.split()[1:4]))
    cache[path] = m
    return m


def pose_translations(path):
    out = []
    for line in open(path):
        line = line.split("#")[0].strip()
        if line:
            out.append([float(x) for x in line.split()[:3]])
    return out


def read_kcbp(path):
    lines = sorted((json.loads(l) for l in open(path)), key=lambda d: d["pose"])
    return lines


def read_fcl(path):
    """fcl_collide / fcl_distance: per pose (answer, us), and the run median."""
    per, run_med = [], None
    for line in open(path):
        w = line.split()
        if not w or w[0] == "#":
            continue
        if w[0] == "median_us":
            run_med = float(w[1])
        elif w[0] == "build_ms":
            continue
        else:
            per.append((float(w[1]), float(w[2])))
    return per, run_med


def fmt_us(v):
    if v >= 1e6:
        return f"{v / 1e6:.2f} s"
    if v >= 1e4:
        return f"{v / 1e3:.1f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.2f} ms"
    return f"{v:.1f} µs"


def spread_of(vals):
    """The median and the range of the rounds' medians."""
    m = med(vals)
    if len(vals) == 1:
        return fmt_us(m)
    return f"{fmt_us(m)} ({fmt_us(min(vals))}–{fmt_us(max(vals))})"


def ratio(k, f):
    return f"{k / f:.2f}" if f > 0 else "-"


def kfmt(n):
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    if n >= 1e4:
        return f"{n / 1e3:.0f}k"
    return f"{n:.0f}"


def main(argv):
    seed, build, selfs, pairs = "1", None, [], []
    i = 0
    while i < len(argv):
        if argv[i] == "--seed":
            seed = argv[i + 1]
            i += 2
        elif argv[i] == "--build":
            build = argv[i + 1]
            i += 2
        elif argv[i] == "--self":
            selfs.append(argv[i + 1].split("|"))
            i += 2
        elif argv[i] == "--":
            pairs = [p.split("|") for p in argv[i + 1:]]
            break
        else:
            sys.exit(f"cad_report.py: unknown argument {argv[i]}")

    bad = False
    notes = []
    rows, work = [], []
    for name, cls, a, b, spread, runs, raw, poses in pairs:
        runs = int(runs)
        kc_runs, fc_runs, kd_runs, fd_runs = [], [], [], []
        kc_ans = kd_dist = fc_ans = fd_dist = None
        kc_work = kd_work = None
        for r in range(1, runs + 1):
            kc = read_kcbp(f"{raw}.kc.{r}")
            kd = read_kcbp(f"{raw}.kd.{r}")
            fc, fc_med = read_fcl(f"{raw}.fc.{r}")
            fd, fd_med = read_fcl(f"{raw}.fd.{r}")
            ans = [1 if d["collide"] else 0 for d in kc]
            dist = [d["distance"] for d in kd]
            fans = [int(x[0]) for x in fc]
            fdist = [x[0] for x in fd]
            if kc_ans is None:
                kc_ans, kd_dist, fc_ans, fd_dist = ans, dist, fans, fdist
                kc_work = ([d["stats"]["box_pairs"] for d in kc], [d["stats"]["triangle_pairs"] for d in kc])
                kd_work = ([d["stats"]["box_pairs"] for d in kd], [d["stats"]["triangle_pairs"] for d in kd])
            else:
                for what, x, y in (("kcbp collide", ans, kc_ans), ("kcbp distance", dist, kd_dist),
                                   ("FCL collide", fans, fc_ans), ("FCL distance", fdist, fd_dist)):
                    if x != y:
                        bad = True
                        notes.append(f"{name} spread {spread}: {what}'s answers changed in round {r}")
            kc_runs.append(med(d["stats"]["query_ms"] * 1e3 for d in kc))
            kd_runs.append(med(d["stats"]["query_ms"] * 1e3 for d in kd))
            fc_runs.append(fc_med)
            fd_runs.append(fd_med)
        n = len(kc_ans)
        if not (len(fc_ans) == len(kd_dist) == len(fd_dist) == n):
            sys.exit(f"cad_report.py: {name}: the programs answered different numbers of poses")
        dis = [j for j in range(n) if kc_ans[j] != fc_ans[j]]
        if dis:
            bad = True
            notes.append(f"{name} spread {spread}: collide disagrees at poses {' '.join(map(str, dis[:20]))} "
                         f"(kcbp {''.join(str(kc_ans[j]) for j in dis[:20])}, FCL {''.join(str(fc_ans[j]) for j in dis[:20])}); "
                         f"referee: bench/brute_check {a} {b} {poses} 1e-3 {' '.join(map(str, dis[:5]))}")
        tr = max((sum(x * x for x in t) ** 0.5 for t in pose_translations(poses)), default=0.0)
        scale = max(max_abs(a), max_abs(b) + tr)
        errs = [abs(x - y) / scale for x, y in zip(kd_dist, fd_dist)]
        err = max(errs)
        far = [j for j, e in enumerate(errs) if e > 1e-9]
        if far:
            bad = True
            notes.append(f"{name} spread {spread}: distances differ beyond 1e-9 of the scale ({scale:.4g}) at poses "
                         + ", ".join(f"{j} (kcbp {kd_dist[j]!r}, FCL {fd_dist[j]!r})" for j in far[:10]))
        # the distance's answers against collide's: 0 exactly when colliding
        zero_mismatch = [j for j in range(n) if (kd_dist[j] == 0) != (kc_ans[j] == 1)]
        if zero_mismatch:
            notes.append(f"{name} spread {spread}: kcbp distance is 0 where collide says apart, or > 0 where it says "
                         f"colliding, at poses {zero_mismatch[:10]} (not an error: distance is decided in floating point)")
        counts = []
        for line in open(f"{raw}.counts"):
            w = line.split()
            if w and w[0] != "#":
                counts.append(w)
        if counts:
            fcc = (med(int(w[2]) for w in counts), med(int(w[3]) for w in counts))
            fdc = (med(int(w[5]) for w in counts), med(int(w[6]) for w in counts))
            if [int(w[1]) for w in counts] != fc_ans:
                notes.append(f"{name} spread {spread}: fcl_counts' collide answers differ from fcl_collide's")
        head = open(f"{raw}.fc.1").readline()  # "# fcl_collide A (N triangles) B (M triangles) ..."
        ta = head.split("(")[1].split()[0]
        tb = head.split("(")[2].split()[0]
        tri = f"{int(ta):,}" if a == b else f"{int(ta):,} × {int(tb):,}"
        kcm, fcm, kdm, fdm = med(kc_runs), med(fc_runs), med(kd_runs), med(fd_runs)
        rows.append(f"| {name} | {cls} | {tri} | {spread} | {n} | {sum(kc_ans)} | {len(dis)} | {spread_of(kc_runs)} | "
                    f"{spread_of(fc_runs)} | **{ratio(kcm, fcm)}** | {err:.1e} | {spread_of(kd_runs)} | "
                    f"{spread_of(fd_runs)} | **{ratio(kdm, fdm)}** | {runs} |")
        work.append(f"| {name} | {spread} | {kfmt(med(kc_work[0]))} / {kfmt(med(kc_work[1]))} | "
                    f"{f'{kfmt(fcc[0])} / {kfmt(fcc[1])}' if counts else '-'} | "
                    f"{kfmt(med(kd_work[0]))} / {kfmt(med(kd_work[1]))} | "
                    f"{f'{kfmt(fdc[0])} / {kfmt(fdc[1])}' if counts else '-'} |")

    if pairs:
        print(f"Per query, median over the poses in each round, then over the rounds (range of the rounds' medians "
              f"in brackets); seed {seed}; ratios kcbp/FCL (below 1: kcbp faster)\n")
        print("| pair | class | triangles | spread | poses | colliding | collide disagreements | kcbp collide | "
              "FCL collide | kcbp/FCL | distance max \\|kcbp − FCL\\| / scale | kcbp distance | FCL distance | "
              "kcbp/FCL | rounds |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        print("\n".join(rows))
        print("\nWork per query (medians over the poses): node (BV) pairs / triangle (leaf) pairs tested; "
              "FCL's counted by bench/fcl_counts on the same traversals\n")
        print("| pair | spread | kcbp collide | FCL collide | kcbp distance | FCL distance |")
        print("|---|---|---|---|---|---|")
        print("\n".join(work))

    if build:
        print("\nTree build (medians over the rounds; kcbp tree: kcbp_aabb_tree_build; kcbp model: the tree and "
              "the 16-CBP, as `kcbp collide` builds a mesh; FCL: BVHModel<OBBRSSd>) and the heap each keeps, "
              "per triangle\n")
        print("| mesh | triangles | kcbp tree ms | kcbp model ms | FCL OBBRSS ms | tree/FCL | kcbp tree B/tri | "
              "kcbp model B/tri | FCL B/tri |")
        print("|---|---|---|---|---|---|---|---|---|")
        for line in open(build):
            w = line.split()
            if not w or w[0] == "#":
                continue
            t = int(w[1])
            print(f"| {w[0].rsplit('/', 1)[-1]} | {t:,} | {float(w[2]):.2f} | {float(w[3]):.2f} | {float(w[4]):.2f} | "
                  f"{float(w[2]) / float(w[4]):.2f} | {int(w[5]) / t:.0f} | {int(w[6]) / t:.0f} | {int(w[7]) / t:.0f} |")

    if selfs:
        print("\n`kcbp self MESH --contacts none` (build + query, median of the runs) against CGAL 5.5's "
              "`does_self_intersect` on the same triangles (Surface_mesh, Epick, sequential; median)\n")
        print("| mesh | triangles | kcbp says | kcbp ms (build + query) | kcbp node / triangle pairs | CGAL says | "
              "CGAL ms | kcbp/CGAL | note |")
        print("|---|---|---|---|---|---|---|---|---|")
        for m, base in selfs:
            k = []
            r = 1
            while True:
                try:
                    k.append(json.load(open(f"{base}.kcbp.{r}")))
                except FileNotFoundError:
                    break
                r += 1
            kms = med(d["stats"]["build_ms"] + d["stats"]["query_ms"] for d in k)
            kq = med(d["stats"]["query_ms"] for d in k)
            kb = med(d["stats"]["build_ms"] for d in k)
            ka = k[0]["self_intersect"]
            c = dict(l.split()[:2] for l in open(f"{base}.cgal") if not l.startswith("#"))
            ca = c["self_intersect"] == "1"
            cms = float(c["median_ms"])
            note = []
            if "flipped_triangles" in c:
                note.append(f"{int(c['flipped_triangles']):,} of kcbp's triangles flipped (clockwise)")
            if m.endswith("-cgal.obj"):
                own = dict(l.split()[:2] for l in open(base.replace("-cgal", "-cgal-own") + ".txt")
                           if not l.startswith("#"))
                note.append(f"CGAL's own triangulation of the polygon (triangulate_faces {float(own['triangulate_ms']):.0f} ms)")
            if ka != ca:
                note.append("**answers differ**")
                bad = True
            if ka and not m.startswith("star-") or (m.startswith("star-") and m.endswith("-cgal.obj") and (ka or ca)):
                note.append("**a generated part self-intersects**")
                bad = True
            if m.startswith("star-") and not m.endswith("-cgal.obj") and ka:
                note.append("a flat simple polygon: kcbp's split is wrong")
            print(f"| {m} | {k[0]['mesh']['triangles']:,} | {'yes' if ka else 'no'} | {kms:.1f} ({kb:.1f} + {kq:.1f}) | "
                  f"{kfmt(k[0]['stats']['box_pairs'])} / {kfmt(k[0]['stats']['triangle_pairs'])} | "
                  f"{'yes' if ca else 'no'} | {cms:.1f} | {kms / cms:.2f} | {'; '.join(note)} |")

    for n in notes:
        print(f"\n- {n}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
