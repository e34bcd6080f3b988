#!/usr/bin/env python3
"""A nesting sheet as a 2D scene, against an exact brute force (the second
held-out hunt, bench/README.md "Held-out hunt, 2D, second round").

  tests/stress/twod_nest_scene.py N SEED [KCBP [utm]]

N parts on a sheet, every coordinate on a grid of 1/8 (exact doubles), at
quarter turns: an L-shaped part with a rectangular hole and a plate (GeoJSON
files, rings in either orientation, a repeated closing point, collinear
vertices), rectangles, circles and capsules (the scene's shapes), a third of
the plates and small shapes put in an L's hole (touching its edges or
corners or not). `kcbp scene --margin M` for M in 0, 1/8, 1/4 with --jobs 1
and --jobs 2, its colliding pairs against the brute force over every pair in
integers (coordinates times 8: every edge and core is axis-parallel, so a
distance is the gap between two boxes, exact; intersection by exact segment
tests and point in polygon). Clearances equal to the margin are common by
construction (all gaps are multiples of 1/8), and counted; then `kcbp batch`
on the scene twice (--jobs 2) against the same. With "utm" the
sheet lies at (500000, 5000000) (UTM metres: still exact on the grid). Exit status 1 on any
difference."""
import json
import os
import random
import subprocess
import sys
import tempfile

n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
kcbp = sys.argv[3] if len(sys.argv) > 3 else "./build/kcbp"
ORG = (8 * 500000, 8 * 5000000) if len(sys.argv) > 4 and sys.argv[4] == "utm" else (0, 0)
rng = random.Random(seed)

# local geometry in eighths (integers)
L_SHELL = [(0, 0), (16, 0), (32, 0), (32, 12), (16, 12), (16, 24), (0, 24), (0, 12)]  # collinear (16,0), (0,12)
L_HOLE = [(4, 4), (12, 4), (12, 8), (4, 8)]
PLATE = [(0, 0), (8, 0), (8, 4), (0, 4)]
HOLE_BOX = (4, 4, 12, 8)


def ring_json(ring, reverse):
    r = list(reversed(ring)) if reverse else list(ring)
    pts = [[x / 8, y / 8] for x, y in r]
    pts.append(pts[0])
    if rng.random() < 0.3:
        pts.append(pts[0])  # a repeated closing point
    return pts


def rot(p, q):
    """quarter turns q about the origin, exact"""
    x, y = p
    for _ in range(q % 4):
        x, y = -y, x
    return (x, y)


# objects: (name, kind, data, pose (tx8, ty8, q))
# kinds: 'poly' (rings: list of rings in eighths, local), 'circle' (r8),
# 'capsule' (r8, half-length8), 'rect' (hw8, hh8)
def make_objects(tmp):
    with open(os.path.join(tmp, "l.geojson"), "w") as f:
        json.dump({"type": "Polygon", "coordinates": [ring_json(L_SHELL, rng.random() < 0.5),
                                                     ring_json(L_HOLE, rng.random() < 0.5)]}, f)
    with open(os.path.join(tmp, "plate.geojson"), "w") as f:
        json.dump({"type": "Feature", "properties": {},
                   "geometry": {"type": "Polygon", "coordinates": [ring_json(PLATE, rng.random() < 0.5)]}}, f)
    side = int((n * 24 * 24 / 2) ** 0.5) + 32  # a sheet of about twice the parts' area, in eighths
    objs = []
    ls = []
    for i in range(n):
        k = rng.random()
        q = rng.randrange(4)
        tx, ty = ORG[0] + rng.randrange(0, side), ORG[1] + rng.randrange(0, side)
        if k < 0.35:
            objs.append(("p%d" % i, "poly", "l", (tx, ty, q)))
            ls.append((tx, ty, q))
            continue
        if ls and rng.random() < 0.35:  # in an L's hole: at its corner, on an edge, or loose
            lx, ly, lq = rng.choice(ls)
            hx0, hy0, hx1, hy1 = HOLE_BOX
            # a local point in the hole's box, then through the L's pose
            px, py = rng.randrange(hx0, hx1 + 1), rng.randrange(hy0, hy1 + 1)
            wx, wy = rot((px, py), lq)
            tx, ty = lx + wx, ly + wy
        if k < 0.6:
            objs.append(("p%d" % i, "poly", "plate", (tx, ty, q)))
        elif k < 0.75:
            objs.append(("p%d" % i, "circle", rng.choice([1, 2, 4]), (tx, ty, 0)))
        elif k < 0.9:
            objs.append(("p%d" % i, "capsule", (rng.choice([1, 2]), rng.choice([1, 2, 4])), (tx, ty, q)))
        else:
            objs.append(("p%d" % i, "rect", (rng.choice([1, 2, 4]), rng.choice([1, 2])), (tx, ty, q)))
    scene = {"objects": []}
    for name, kind, data, (tx, ty, q) in objs:
        o = {"name": name, "pose": [tx / 8, ty / 8, 90 * q]}
        if kind == "poly":
            o["mesh"] = data + ".geojson"
        elif kind == "circle":
            o["shape"] = {"circle": {"radius": data / 8}}
        elif kind == "capsule":
            o["shape"] = {"capsule2d": {"radius": data[0] / 8, "length": 2 * data[1] / 8}}
        else:
            o["shape"] = {"rect": {"size": [2 * data[0] / 8, 2 * data[1] / 8]}}
        scene["objects"].append(o)
    with open(os.path.join(tmp, "scene.json"), "w") as f:
        json.dump(scene, f)
    return objs


# ---- exact geometry in integers ----
def world(obj):
    """(rings of segments' polygon or None, core segments list, radius)"""
    name, kind, data, (tx, ty, q) = obj

    def tr(p):
        x, y = rot(p, q)
        return (x + tx, y + ty)

    if kind == "poly":
        rings = [L_SHELL, L_HOLE] if data == "l" else [PLATE]
        return [[tr(p) for p in r] for r in rings], 0
    if kind == "rect":
        hw, hh = data
        return [[tr(p) for p in [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)]]], 0
    if kind == "circle":
        return [[tr((0, 0))]], data  # a point core
    r, h = data
    return [[tr((-h, 0)), tr((h, 0))]], r  # a segment core


def edges(rings):
    for r in rings:
        if len(r) == 1:
            yield (r[0], r[0])
        elif len(r) == 2:
            yield (r[0], r[1])
        else:
            for i in range(len(r)):
                yield (r[i], r[(i + 1) % len(r)])


def gap2(e, f):
    (a0, a1), (b0, b1) = e, f
    dx = max(0, min(b0[0], b1[0]) - max(a0[0], a1[0]), min(a0[0], a1[0]) - max(b0[0], b1[0]))
    dy = max(0, min(b0[1], b1[1]) - max(a0[1], a1[1]), min(a0[1], a1[1]) - max(b0[1], b1[1]))
    return dx * dx + dy * dy


def inside(rings, p):
    """p strictly or on boundary inside the region (rings: shell then holes); only used when
    no edge meets, so p is off every boundary"""
    if len(rings[0]) < 3:
        return False
    c = False
    for r in rings:
        for i in range(len(r)):
            (x0, y0), (x1, y1) = r[i], r[(i + 1) % len(r)]
            if (y0 > p[1]) != (y1 > p[1]):
                # x of the crossing > p.x  <=>  (x0 + (p.y-y0)(x1-x0)/(y1-y0)) > p.x
                num = (p[1] - y0) * (x1 - x0)
                den = y1 - y0
                if den > 0:
                    if x0 * den + num > p[0] * den:
                        c = not c
                else:
                    if x0 * den + num < p[0] * den:
                        c = not c
    return c


def meet(oa, ob, m8):
    ra, rada = world(oa)
    rb, radb = world(ob)
    lim = rada + radb + m8
    ea, eb = list(edges(ra)), list(edges(rb))
    best = min(gap2(e, f) for e in ea for f in eb)
    if best == lim * lim and m8 > 0:
        equal[0] += 1
    if best <= lim * lim:
        return True
    # containment: a core point inside the other's region
    return inside(ra, rb[0][0]) or inside(rb, ra[0][0])


equal = [0]  # pairs at a clearance exactly equal to the margin


def bbox(o, m8):
    rings, r = world(o)
    xs = [p[0] for ring in rings for p in ring]
    ys = [p[1] for ring in rings for p in ring]
    return (min(xs) - r - m8, min(ys) - r - m8, max(xs) + r, max(ys) + r)


def brute(objs, m8):
    boxes = [bbox(o, m8) for o in objs]
    order = sorted(range(len(objs)), key=lambda i: boxes[i][0])
    want = set()
    for ii, i in enumerate(order):
        bi = boxes[i]
        for j in order[ii + 1:]:
            bj = boxes[j]
            if bj[0] > bi[2] + 0:
                break
            if bj[1] > bi[3] or bi[1] > bj[3] or bj[0] > bi[2] or bi[0] > bj[2]:
                continue
            if meet(objs[i], objs[j], m8):
                want.add(tuple(sorted((objs[i][0], objs[j][0]))))
    return want


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        objs = make_objects(tmp)
        for m8 in (0, 1, 2):
            equal[0] = 0
            want = brute(objs, m8)
            for jobs in (1, 2):
                out = subprocess.run([kcbp, "scene", os.path.join(tmp, "scene.json"), "--contacts", "none",
                                      "--margin", repr(m8 / 8), "--jobs", str(jobs)],
                                     capture_output=True, text=True)
                if out.returncode != 0:
                    print("kcbp failed:", out.stderr.strip())
                    return 1
                got = set()
                for line in out.stdout.splitlines():
                    for p in json.loads(line).get("colliding", []):
                        got.add(tuple(sorted((p["a"], p["b"]))))
                missing, extra = want - got, got - want
                print("nest scene: %d objects, margin %g, --jobs %d: %d pairs by the brute force, kcbp %d; "
                      "missing %d, extra %d (%d at clearance = margin)" % (len(objs), m8 / 8, jobs, len(want), len(got),
                                                len(missing), len(extra), equal[0]))
                for p in sorted(missing)[:5]:
                    print("  missing", *p, [o for o in objs if o[0] in p])
                for p in sorted(extra)[:5]:
                    print("  extra", *p, [o for o in objs if o[0] in p])
                bad += len(missing) + len(extra)
            # kcbp batch: the scene twice, two at a time
            sc = os.path.join(tmp, "scene.json")
            out = subprocess.run([kcbp, "batch", sc, sc, "--contacts", "none", "--margin", repr(m8 / 8), "--jobs", "2"],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print("kcbp batch failed:", out.stderr.strip())
                return 1
            got = {0: set(), 1: set()}
            for line in out.stdout.splitlines():
                rep = json.loads(line)
                for p in rep.get("colliding", []):
                    got[rep["index"]].add(tuple(sorted((p["a"], p["b"]))))
            diff = sum(len(want ^ g) for g in got.values())
            print("nest batch: the scene twice, margin %g, --jobs 2: %d and %d pairs; %d differ from the brute force"
                  % (m8 / 8, len(got[0]), len(got[1]), diff))
            bad += diff
    return 1 if bad else 0


sys.exit(main())
