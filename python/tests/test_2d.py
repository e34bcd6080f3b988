"""2D from Python (issue 35): kcbp.Polygon, Circle, Capsule2D, Rect,
ConvexPolygon in kcbp.collide and kcbp.distance, against the kcbp
program's answers on the same inputs and against brute force over the
polygons' edges in exact rational arithmetic (fractions) on the posed
coordinates, with near-touching and exactly touching constructions."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from conftest import kcbp, run_cli

SHAPES = [
    (lambda: kcbp.Circle(0.5), "circle:0.5"),
    (lambda: kcbp.Rect(1.0, 0.6), "rect:1:0.6"),
    (lambda: kcbp.Rect(0.8, 0.4, 0.1), "rect:0.8:0.4:0.1"),
    (lambda: kcbp.Capsule2D(0.2, 1.2), "capsule2d:0.2:1.2"),
]
POSES = [(0.7, 0.2, 30.0), (1.3, -0.4, 90.0), (3.0, 0.0, 0.0), (0.2, 0.9, 215.5), (0.95, 0.0, 0.0)]
PARCEL = {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]],
                                             [[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]}
# an L with a notch: non-convex, no hole
ELL = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]]


def pose_arg(p):
    return " ".join(repr(float(x)) for x in p)


@pytest.fixture(scope="module")
def parcel_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("twod")
    path = d / "parcel.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": PARCEL}]}))
    ell = d / "ell.geojson"
    ell.write_text(json.dumps({"type": "Polygon", "coordinates": [ELL + [ELL[0]]]}))
    return str(path), str(ell)


# --- the kcbp program as the oracle ---------------------------------------------------

@pytest.mark.parametrize("i", range(len(SHAPES)))
@pytest.mark.parametrize("j", range(len(SHAPES)))
def test_shape_pairs_match_cli(i, j):
    a, sa = SHAPES[i][0](), SHAPES[i][1]
    b, sb = SHAPES[j][0](), SHAPES[j][1]
    for p in POSES:
        cli = run_cli("collide", sa, sb, "--pose-b", pose_arg(p))[0]
        py = kcbp.collide(a, b, pose_b=p, contacts="all")
        assert py["collide"] == cli["collide"] and py["decided_by"] == cli["decided_by"]
        assert py["contacts"] == cli["contacts"]
        assert py["a"] == cli["a"] and py["b"] == cli["b"] and py["dimensions"] == 2
        d = kcbp.distance(a, b, pose_b=p, signed=True)
        dc = run_cli("distance", sa, sb, "--pose-b", pose_arg(p), "--signed")[0]
        assert d["status"] == dc["status"]
        assert d["distance"] == pytest.approx(dc["signed_distance"], rel=1e-14, abs=1e-15)
        assert d["depth"] == pytest.approx(dc["depth"], rel=1e-14, abs=1e-15)
        for k in ("point_a", "point_b", "normal", "translation"):
            assert d[k] == pytest.approx(dc[k], rel=1e-14, abs=1e-15), k
        u = kcbp.distance(a, b, pose_b=p)
        assert u["distance"] == pytest.approx(dc["distance"], rel=1e-14, abs=1e-15)
        assert (u["distance"] == 0) == py["collide"]
        # the identity pose_a as a 3x3 matrix, pose_b as kcbp.pose2's matrix: the same answers
        m = kcbp.pose2(p[:2], p[2])
        assert kcbp.collide(a, b, np.eye(3), m)["collide"] == py["collide"]
        assert kcbp.distance(a, b, np.eye(3), m, signed=True)["distance"] == d["distance"]


@pytest.mark.parametrize("spec,make", [("circle:0.4", lambda: kcbp.Circle(0.4)), ("circle:0.6", lambda: kcbp.Circle(0.6)),
                                       ("rect:1:1", lambda: kcbp.Rect(1, 1)),
                                       ("capsule2d:0.1:0.8", lambda: kcbp.Capsule2D(0.1, 0.8))])
def test_polygon_with_hole_against_shapes_match_cli(parcel_file, spec, make):
    path, _ = parcel_file
    parcel = kcbp.load2d(path)
    shape = make()
    for p in [(1.5, 1.5, 0.0), (5.0, 1.0, 30.0), (3.8, 1.0, 30.0), (-0.45, 2.0, 10.0), (1.5, 1.05, 45.0)]:
        cli = run_cli("collide", path, spec, "--pose-b", pose_arg(p))[0]
        py = kcbp.collide(parcel, shape, pose_b=p, contacts="all")
        assert py["collide"] == cli["collide"] and py["contained"] == cli["contained"]
        assert sorted(py["contacts"], key=str) == sorted(cli["contacts"], key=str)
        assert py["a"]["vertices"] == cli["a"]["vertices"] and py["a"]["rings"] == cli["a"]["rings"]
        # the shape first: the sides swap
        sw = kcbp.collide(shape, parcel, pose_a=p, contacts="all")
        assert sw["collide"] == py["collide"]
        assert sorted((c[1], c[0]) for c in sw["contacts"]) == sorted((c[0], c[1]) for c in py["contacts"])
        assert sw["contained"] == {"none": "none", "a_in_b": "b_in_a", "b_in_a": "a_in_b"}[py["contained"]]
        dc = run_cli("distance", path, spec, "--pose-b", pose_arg(p), "--signed")[0]
        d = kcbp.distance(parcel, shape, pose_b=p, signed=True)
        assert d["status"] == dc["status"]
        assert d["distance"] == pytest.approx(dc["signed_distance"], rel=1e-14, abs=1e-15)
        assert d["depth_lower"] == pytest.approx(dc["depth_lower"], rel=1e-14, abs=1e-15)
        assert d["normal"] == pytest.approx(dc["normal"], rel=1e-14, abs=1e-15)
        if d["status"] == "bracketed":
            assert 0 <= d["depth_lower"] <= d["depth_upper"] == d["depth"]
        ds = kcbp.distance(shape, parcel, pose_a=p, signed=True)
        assert ds["distance"] == pytest.approx(d["distance"], rel=1e-14, abs=1e-15)
        assert ds["normal"] == pytest.approx([-x for x in d["normal"]], abs=1e-15)


def test_polygon_pairs_match_cli(parcel_file):
    path, ell_path = parcel_file
    parcel, ell = kcbp.Polygon(PARCEL), kcbp.Polygon(ELL)
    for p in [(0.5, 0.5, 0.0), (1.2, 1.2, 0.0), (4.0, 0.0, 0.0), (4.5, 0.2, 12.0), (1.25, 1.25, 180.0),
              (-3.5, -3.5, 0.0)]:
        cli = run_cli("collide", path, ell_path, "--pose-b", pose_arg(p))[0]
        py = kcbp.collide(parcel, ell, pose_b=p, contacts="all")
        assert py["collide"] == cli["collide"] and py["contained"] == cli["contained"]
        assert sorted(py["contacts"]) == sorted(cli["contacts"])
        dc = run_cli("distance", path, ell_path, "--pose-b", pose_arg(p))[0]
        d = kcbp.distance(parcel, ell, pose_b=p)
        assert d["distance"] == pytest.approx(dc["distance"], rel=1e-14, abs=1e-15)
        if "edges" in dc:
            assert d["edges"] == dc["edges"]


# --- brute force in exact arithmetic ---------------------------------------------------

def posed(points, p):
    """The posed coordinates as the library computes them (pose2d.h: each
    operation rounded once, in its order; Python's floats are IEEE doubles),
    c and s the library's (kcbp.pose2's matrix)."""
    m = kcbp.pose2(p[:2], p[2])
    c, s, tx, ty = m[0, 0], m[1, 0], m[0, 2], m[1, 2]
    return [((c * x - s * y) + tx, (s * x + c * y) + ty) for x, y in points]


def orient(a, b, c):
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def seg_meet(p, q, r, s):
    """Closed segments pq and rs share a point (exact: Fractions)."""
    d1, d2, d3, d4 = orient(r, s, p), orient(r, s, q), orient(p, q, r), orient(p, q, s)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True

    def on(a, b, c):
        return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])
    return ((d1 == 0 and on(r, s, p)) or (d2 == 0 and on(r, s, q)) or (d3 == 0 and on(p, q, r))
            or (d4 == 0 and on(p, q, s)))


def inside(pt, rings):
    """pt strictly inside the region of rings (even-odd), exact."""
    x, y = pt
    odd = False
    for ring in rings:
        for i in range(len(ring)):
            a, b = ring[i], ring[(i + 1) % len(ring)]
            if (a[1] > y) != (b[1] > y):
                t = (y - a[1]) / (b[1] - a[1])
                if a[0] + t * (b[0] - a[0]) > x:
                    odd = not odd
    return odd


def exact_collide(rings_a, rings_b):
    fa = [[(Fraction(x), Fraction(y)) for x, y in r] for r in rings_a]
    fb = [[(Fraction(x), Fraction(y)) for x, y in r] for r in rings_b]
    for ra in fa:
        for i in range(len(ra)):
            for rb in fb:
                for j in range(len(rb)):
                    if seg_meet(ra[i], ra[(i + 1) % len(ra)], rb[j], rb[(j + 1) % len(rb)]):
                        return True
    return inside(fb[0][0], fa) or inside(fa[0][0], fb)


def seg_dist(p, q, r, s):
    def pt_seg(c, a, b):
        ab = np.subtract(b, a)
        t = 0.0 if not ab.any() else min(max(np.dot(np.subtract(c, a), ab) / np.dot(ab, ab), 0.0), 1.0)
        return float(np.hypot(*(np.add(a, t * ab) - c)))
    return min(pt_seg(p, r, s), pt_seg(q, r, s), pt_seg(r, p, q), pt_seg(s, p, q))


def brute_distance(rings_a, rings_b):
    best = math.inf
    for ra in rings_a:
        for i in range(len(ra)):
            for rb in rings_b:
                for j in range(len(rb)):
                    best = min(best, seg_dist(ra[i], ra[(i + 1) % len(ra)], rb[j], rb[(j + 1) % len(rb)]))
    return best


def star(rng, n, r0=1.0):
    """A random star-shaped (simple, non-convex) polygon about the origin."""
    ang = (np.arange(n) + rng.uniform(0.1, 0.9, n)) * (2 * math.pi / n)  # every gap below pi
    rad = rng.uniform(0.4 * r0, r0, n)
    return np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)


def test_random_polygons_against_exact_brute_force():
    rng = np.random.default_rng(35)
    agree = collisions = 0
    for trial in range(60):
        na = int(rng.integers(5, 14))
        nb = int(rng.integers(3, 10))
        a = star(rng, na)
        b = star(rng, nb, 0.6)
        tx = float(rng.uniform(-1.8, 1.8))
        ty = float(rng.uniform(-1.8, 1.8))
        deg = float(rng.uniform(0, 360))
        p = (tx, ty, deg)
        A, B = kcbp.Polygon(a), kcbp.Polygon(b)
        want = exact_collide([a.tolist()], [posed(b.tolist(), p)])
        got = kcbp.collide(A, B, pose_b=p)["collide"]
        assert got == want, (trial, p)
        d = kcbp.distance(A, B, pose_b=p)["distance"]
        if want:
            assert d == 0
        else:
            assert d == pytest.approx(brute_distance([a.tolist()], [posed(b.tolist(), p)]), rel=1e-12, abs=1e-15)
        agree += 1
        collisions += want
    assert agree == 60 and 10 < collisions < 55


@pytest.mark.parametrize("scale", [1.0, 1e-6, 1e6])
def test_near_touching_and_touching_constructions(scale):
    """A triangle's apex at spreads down to 1e-12 of the scale from the top
    edge of a square, a vertex on an edge, collinear edges, and a square in
    a hole touching its border: the library's answer is the exact one."""
    sq = np.array([[0, 0], [1, 0], [1, 1], [0, 1]]) * scale
    tri = np.array([[0, 0], [0.2, 0.5], [-0.2, 0.5]]) * scale  # apex at its origin, pointing down
    A = kcbp.Polygon(sq)
    T = kcbp.Polygon(tri)
    wrong = 0
    for spread in [1e-12, 3e-12, 1e-11, 1e-9, 0.0]:
        for sign in (-1, 1):
            for x in [0.5, 0.0, 1.0, 0.3]:  # 0 and 1: the apex on a corner's line
                p = (x * scale, (1 + sign * spread) * scale, 0.0)
                want = exact_collide([sq.tolist()], [posed(tri.tolist(), p)])
                got = kcbp.collide(A, T, pose_b=p)["collide"]
                wrong += got != want
                shape = kcbp.ConvexPolygon(tri)
                got_s = kcbp.collide(A, shape, pose_b=p)["collide"]
                wrong += got_s != want
    assert wrong == 0
    # collinear edges: a square beside the square, touching along x = 1 (and apart by an ulp)
    for dx, want in [(1.0, True), (np.nextafter(1.0, 2), False)]:
        p = (dx * scale, 0.5 * scale, 0.0)
        assert exact_collide([sq.tolist()], [posed(sq.tolist(), p)]) == want
        assert kcbp.collide(A, A, pose_b=p)["collide"] == want
    # a square in a hole: inside it apart, then touching the hole's edge exactly
    outer = np.array([[-2, -2], [3, -2], [3, 3], [-2, 3]]) * scale
    hole = np.array([[0, 0], [1, 0], [1, 1], [0, 1]]) * scale
    H = kcbp.Polygon(outer, holes=[hole])
    small = kcbp.Polygon(np.array([[0, 0], [0.5, 0], [0.5, 0.5], [0, 0.5]]) * scale)
    for p, want in [((0.25 * scale, 0.25 * scale, 0.0), False), ((0.5 * scale, 0.25 * scale, 0.0), True),
                    ((0.25 * scale, 0.5 * scale, 0.0), True), ((0.1 * scale, 0.1 * scale, 0.0), False)]:
        r = kcbp.collide(H, small, pose_b=p)
        assert r["collide"] == want, p
        assert r["contained"] == "none"
    r = kcbp.collide(H, small, pose_b=(-1.5 * scale, -1.5 * scale, 0.0))
    assert r["collide"] and r["contained"] == "b_in_a" and r["contacts"] == []
    # signed: touching (depth 0) where only the boundaries meet, a bracket where the interiors do
    d = kcbp.distance(A, A, pose_b=(scale, 0.5 * scale, 0.0), signed=True)
    assert d["status"] == "touching" and d["distance"] == 0 and d["depth"] == 0
    d = kcbp.distance(H, kcbp.Polygon(hole), signed=True)  # fills the hole exactly
    assert d["status"] == "touching" and d["depth"] == 0
    d = kcbp.distance(H, small, pose_b=(-0.25 * scale, 0.25 * scale, 0.0), signed=True)  # half in the wall
    assert d["status"] == "bracketed" and d["depth_lower"] <= 0.25 * scale * (1 + 1e-12)
    assert 0.25 * scale * (1 - 1e-12) <= d["depth_upper"] <= 0.25 * scale * (1 + 1e-9)  # the wall's edge normal


def sat_depth(pa, pb):
    """The exact SAT minimum (convex polygons, counter-clockwise): the least
    overlap over both polygons' edge normals (floats)."""
    best = math.inf
    for poly in (pa, pb):
        for i in range(len(poly)):
            e = np.subtract(poly[(i + 1) % len(poly)], poly[i])
            n = np.array([e[1], -e[0]]) / np.hypot(*e)
            a, b = np.asarray(pa) @ n, np.asarray(pb) @ n
            best = min(best, min(a.max() - b.min(), b.max() - a.min()))
    return best


def test_convex_depth_is_the_sat_minimum():
    rng = np.random.default_rng(7)
    n = 0
    for _ in range(200):
        a = rng.normal(size=(int(rng.integers(3, 9)), 2))
        b = rng.normal(size=(int(rng.integers(3, 9)), 2))
        A, B = kcbp.ConvexPolygon(a), kcbp.ConvexPolygon(b)
        p = (float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1)), float(rng.uniform(0, 360)))
        d = kcbp.distance(A, B, pose_b=p, signed=True)
        if d["status"] != "penetrating":
            continue
        n += 1
        want = sat_depth(A.vertices.tolist(), posed(B.vertices.tolist(), p))
        assert d["depth"] == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert d["depth_lower"] == d["depth_upper"] == d["depth"] == -d["distance"]
        # moving B by the translation separates them (up to the scale's rounding)
        moved = (p[0] + d["translation"][0] * (1 + 1e-9), p[1] + d["translation"][1] * (1 + 1e-9), p[2])
        assert not kcbp.collide(A, B, pose_b=moved)["collide"]
    assert n > 30


# --- inputs, poses and errors -------------------------------------------------------------

class _Ring:
    def __init__(self, pts):
        self.coords = [tuple(p) for p in pts] + [tuple(pts[0])]


class _ShapelyLike:
    """What kcbp.Polygon reads of a shapely Polygon: exterior.coords (the
    first point repeated) and interiors; shapely itself is not needed."""

    def __init__(self, ext, holes):
        self.exterior = _Ring(ext)
        self.interiors = [_Ring(h) for h in holes]


def test_inputs_shapely_like_geo_interface_and_files(parcel_file, tmp_path):
    path, _ = parcel_file
    want = kcbp.load2d(path)
    ext, hole = PARCEL["coordinates"][0][:-1], PARCEL["coordinates"][1][:-1]
    for p in (kcbp.Polygon(ext, holes=[hole]), kcbp.Polygon(_ShapelyLike(ext, [hole])), kcbp.Polygon(PARCEL),
              kcbp.Polygon({"type": "Feature", "geometry": PARCEL}), kcbp.Polygon.load(path),
              kcbp.Polygon(np.array(PARCEL["coordinates"][0], dtype=np.int32), holes=[hole[::-1]])):
        assert p.rings == 2 and len(p.vertices) == 8
        assert np.array_equal(p.bounds, want.bounds)
        assert kcbp.collide(p, kcbp.Circle(0.4), pose_b=(1.5, 1.5, 0))["collide"] is False
        assert kcbp.collide(p, kcbp.Circle(0.6), pose_b=(1.5, 1.5, 0))["collide"] is True
    multi = {"type": "MultiPolygon", "coordinates": [[ELL + [ELL[0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]]}
    m = kcbp.Polygon(multi)
    assert m.rings == 2 and kcbp.collide(m, kcbp.Circle(0.1), pose_b=(5.6, 5.3, 0))["collide"]
    svg = tmp_path / "plate.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><path d="M 0 0 L 4 0 L 4 3 L 0 3 Z '
                   'M 1 1 L 2 1 L 2 2 L 1 2 Z"/></svg>')
    s = kcbp.Polygon.load(str(svg))
    assert s.rings == 2
    cli = run_cli("collide", str(svg), "circle:0.6", "--pose-b", "1.5 1.5 0")[0]
    assert kcbp.collide(str(svg), kcbp.Circle(0.6), pose_b=(1.5, 1.5, 0))["collide"] == cli["collide"] is True
    with pytest.raises(FileNotFoundError):
        kcbp.load2d(str(tmp_path / "missing.geojson"))
    bad = tmp_path / "open.geojson"
    bad.write_text('{"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1]]]}')
    with pytest.raises(ValueError, match="open.geojson"):
        kcbp.load2d(str(bad))
    with pytest.raises(kcbp.Error, match="ring"):
        kcbp.Polygon([[0, 0], [1, 1], [1, 0], [0, 1]])  # a bow tie: crosses itself
    with pytest.raises(kcbp.Error):
        kcbp.Polygon([[0, 0], [1, 0]])
    with pytest.raises(kcbp.Error, match="real"):
        kcbp.Polygon(np.array([[0, 0], [1, 0], [0, 1]], dtype=complex))
    with pytest.raises(kcbp.Error, match="finite"):
        kcbp.Polygon([[0, 0], [1, 0], [0, math.nan]])
    with pytest.raises(kcbp.Error):
        kcbp.Circle(0)
    with pytest.raises(kcbp.Error):
        kcbp.Rect(1, -1)
    with pytest.raises(kcbp.Error, match="collinear"):
        kcbp.ConvexPolygon([[0, 0], [1, 1], [2, 2]])


def test_poses_and_mixing_dimensions(bunny):
    a, b = kcbp.Rect(2, 1), kcbp.Capsule2D(0.25, 1)
    m = kcbp.pose2((1.2, 0.3), 37.0)
    assert m.shape == (3, 3) and np.array_equal(m[2], [0, 0, 1])
    r1 = kcbp.distance(a, b, pose_b=(1.2, 0.3, 37.0), signed=True)
    r2 = kcbp.distance(a, b, pose_b=m, signed=True)
    assert r1 == r2
    # multiples of 90 degrees are exact: c, s in {-1, 0, 1}
    assert np.array_equal(kcbp.pose2((0, 0), 90)[:2, :2], [[0, -1], [1, 0]])
    # float32 matrices within their precision are accepted and orthonormalised
    r3 = kcbp.distance(a, b, pose_b=m.astype(np.float32), signed=True)
    assert r3["distance"] == pytest.approx(r1["distance"], abs=1e-6)
    with pytest.raises(ValueError, match="rigid"):
        kcbp.collide(a, b, pose_b=[[1, 0.01, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="rigid"):
        kcbp.collide(a, b, pose_b=[[1, 0, 0], [0, -1, 0], [0, 0, 1]])  # a mirror
    with pytest.raises(ValueError, match="last row"):
        kcbp.collide(a, b, pose_b=[[1, 0, 0], [0, 1, 0], [0, 1, 1]])
    with pytest.raises(ValueError, match="3D pose"):
        kcbp.collide(a, b, pose_b=np.eye(4))
    with pytest.raises(ValueError, match="3D pose"):
        kcbp.collide(a, b, pose_b=(0, 0, 0, 0, 0, 1, 0))
    with pytest.raises(ValueError, match="finite"):
        kcbp.collide(a, b, pose_b=(math.inf, 0, 0))
    with pytest.raises(ValueError):
        kcbp.collide(a, b, pose_b=("1", "0", "0"))  # text is not a number
    with pytest.raises(ValueError, match="real"):
        kcbp.collide(a, b, pose_b=(1j, 0, 0))
    # numpy scalars and plain numbers give the same pose
    assert kcbp.distance(a, b, pose_b=tuple(np.array([1.2, 0.3, 37.0])), signed=True) == r1
    with pytest.raises(kcbp.Error, match="2D and 3D geometries cannot be mixed"):
        kcbp.collide(a, bunny)
    with pytest.raises(kcbp.Error, match="2D and 3D geometries cannot be mixed"):
        kcbp.distance(kcbp.Sphere(1), a, signed=True)
    with pytest.raises(kcbp.Error, match="2D and 3D geometries cannot be mixed"):
        kcbp.sweep(a, bunny, None, None)
    with pytest.raises(kcbp.Error, match="3"):
        kcbp.collide_many(a, b, np.zeros((2, 7)))
    with pytest.raises(kcbp.Error, match="cannot be mixed"):
        kcbp.collide_many(a, bunny, np.zeros((2, 3)))
    rng = np.random.default_rng(5)
    poses = np.column_stack([rng.uniform(-2, 2, 50), rng.uniform(-2, 2, 50), rng.uniform(0, 360, 50)])
    many = kcbp.collide_many(a, b, poses)
    one = [kcbp.collide(a, b, pose_b=tuple(p))["collide"] for p in poses]
    assert many.dtype == bool and list(many) == one and 0 < sum(one) < 50
    mats = np.array([kcbp.pose2(p[:2], p[2]) for p in poses])
    assert list(kcbp.collide_many(a, b, mats)) == one


def test_margin_contacts_and_lifetime():
    sq = kcbp.Polygon([[0, 0], [1, 0], [1, 1], [0, 1]])
    c = kcbp.Circle(0.5)
    assert not kcbp.collide(sq, c, pose_b=(2.0, 0.5, 0))["collide"]
    assert kcbp.collide(sq, c, pose_b=(2.0, 0.5, 0), margin=0.5)["collide"]      # exactly at the margin
    assert not kcbp.collide(sq, c, pose_b=(2.0, 0.5, 0), margin=0.4999)["collide"]
    big = kcbp.Polygon(star(np.random.default_rng(1), 400, 1.0))
    r = kcbp.collide(big, big, pose_b=(0.05, 0.0, 3.0), contacts="all")
    assert r["collide"] and len(r["contacts"]) > 64  # more than the first buffer: grown
    assert len({tuple(x) for x in r["contacts"]}) == len(r["contacts"])
    assert len(kcbp.collide(big, big, pose_b=(0.05, 0.0, 3.0), contacts="first")["contacts"]) == 1
    d = kcbp.distance(sq, c, pose_b=(3.0, 0.5, 0), max_distance=1.0)
    assert d["within"] is False and d["distance"] is None and d["distance_lower"] == pytest.approx(1.5)
    sq.close()
    with pytest.raises(kcbp.Error, match="closed"):
        kcbp.collide(sq, c)
