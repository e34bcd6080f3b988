"""2D code as shapely users write it: polygons given as lists of (x, y),
numpy (n, 2) arrays of any dtype, shapely geometries (or stand-ins with
shapely's attributes) with holes, passed to kcbp.collide, kcbp.distance and
kcbp.CollisionManager2D with trimesh's manager calls; checked against
shapely's own predicates and distances where shapely is installed
(Debian's python3-shapely), and against closed forms otherwise."""
import math

import numpy as np
import pytest

from conftest import kcbp
from kcbp import CollisionManager2D


class Ring:
    def __init__(self, pts):
        self.coords = [tuple(p) for p in pts]


class ShapelyLikePolygon:
    """The attributes of shapely.geometry.Polygon that kcbp reads."""

    def __init__(self, shell, holes=()):
        self.exterior = Ring(shell)
        self.interiors = [Ring(h) for h in holes]


class ShapelyLikeMulti:
    def __init__(self, polys):
        self.geoms = list(polys)


SQUARE = [(0, 0), (2, 0), (2, 2), (0, 2)]
HOLE = [(0.5, 0.5), (1.5, 0.5), (1.5, 1.5), (0.5, 1.5)]


def test_manager2d_takes_shapely_like_geometries_and_rings():
    """add_object, in_collision_single and min_distance_single took only
    kcbp's 2D classes: a shapely polygon or a list of (x, y), which
    kcbp.Polygon takes, was refused."""
    cm = CollisionManager2D()
    cm.add_object("plate", ShapelyLikePolygon(SQUARE, [HOLE]))
    cm.add_object("ring", np.array(SQUARE, dtype=np.float32), (5, 0, 0))
    cm.add_object("geo", {"type": "Polygon", "coordinates": [[[10, 0], [11, 0], [11, 1], [10, 0]]]})
    cm.add_object("two", ShapelyLikeMulti([ShapelyLikePolygon([(20, 0), (21, 0), (21, 1)]),
                                           ShapelyLikePolygon([(30, 0), (31, 0), (31, 1)])]))
    assert cm.in_collision_internal(return_names=True) == (False, set())
    # a coin in the hole, off the hole's edges by 0.1: no contact
    assert cm.in_collision_single(ShapelyLikePolygon([(0.6, 0.6), (1.4, 0.6), (1.4, 1.4), (0.6, 1.4)])) is False
    hit, names = cm.in_collision_single([(1.9, 0.9), (5.5, 0.9), (5.5, 1.1), (1.9, 1.1)], return_names=True)
    assert hit and names == {"plate", "ring"}
    d, name = cm.min_distance_single(ShapelyLikePolygon([(0.6, 0.6), (1.4, 0.6), (1.4, 1.4), (0.6, 1.4)]),
                                     return_name=True)
    assert (d, name) == (pytest.approx(0.1, abs=1e-12), "plate")
    assert kcbp.collide(ShapelyLikePolygon(SQUARE, [HOLE]), kcbp.Circle(0.45), pose_b=(1, 1, 0))["collide"] is False
    assert kcbp.distance(ShapelyLikePolygon(SQUARE), ShapelyLikePolygon(SQUARE), pose_b=(3, 0, 0))["distance"] == 1.0
    with pytest.raises(ValueError, match="2D and 3D"):
        kcbp.collide(ShapelyLikePolygon(SQUARE), kcbp.Sphere(1))
    with pytest.raises(ValueError):
        cm.add_object("bad", [(0, 0, 0), (1, 0, 0)])


def star(rng, cx, cy, rmin, rmax, n):
    """A simple polygon: n vertices at increasing angles around (cx, cy)."""
    ang = (np.arange(n) + rng.uniform(0, 0.8, size=n)) * (2 * np.pi / n)  # gaps under two steps
    r = rng.uniform(rmin, rmax, size=n)
    return np.stack([cx + r * np.cos(ang), cy + r * np.sin(ang)], axis=1)


def posed(pts, tx, ty, deg):
    m = kcbp.pose2((tx, ty), deg)
    return pts @ m[:2, :2].T + m[:2, 2]


@pytest.mark.parametrize("seed", range(10))
def test_random_polygons_with_holes_against_shapely(seed):
    shapely = pytest.importorskip("shapely.geometry")
    rng = np.random.default_rng(100 + seed)
    cm = CollisionManager2D()
    world, names = [], []
    for i in range(10):
        outer = star(rng, 0, 0, 1.0, 2.0, int(rng.integers(8, 24)))  # edges 0.7 off the centre at least
        holes = [star(rng, 0, 0, 0.2, 0.6, int(rng.integers(3, 8)))] if i % 2 else []
        pose = (float(rng.uniform(-5, 5)), float(rng.uniform(-5, 5)), float(rng.uniform(-180, 180)))
        form = i % 3
        geom = (shapely.Polygon(outer, holes) if form == 0 else
                kcbp.Polygon(outer.astype(np.float32) if not holes else outer, holes) if form == 1 else
                {"type": "Polygon", "coordinates": [outer.tolist()] + [h.tolist() for h in holes]})
        if form == 1 and not holes:
            outer = outer.astype(np.float32).astype(np.float64)
        name = "p%d" % i
        cm.add_object(name, geom, kcbp.pose2(pose[:2], pose[2]) if i % 2 else pose)
        world.append(shapely.Polygon(posed(outer, *pose), [posed(h, *pose) for h in holes]))
        names.append(name)
    compared = 0
    want, best = set(), math.inf
    for i in range(10):
        for j in range(i + 1, 10):
            d = world[i].distance(world[j])
            if 0 < d < 1e-9:
                continue  # a near-tie: the posed coordinates' rounding decides it
            best = min(best, d)
            if world[i].intersects(world[j]):
                want.add((names[i], names[j]))
    hit, got = cm.in_collision_internal(return_names=True)
    assert got == want and hit == bool(want)
    compared += 1
    if not want:
        assert cm.min_distance_internal() == pytest.approx(best, abs=1e-9)
        compared += 1
    for k in range(30):
        c = rng.uniform(-6, 6, size=2)
        r = float(rng.uniform(0.05, 1.0))
        deg = float(rng.uniform(-180, 180))
        kind = k % 3
        if kind == 0:  # a circle: the distance to its centre, less r
            probe, pose = kcbp.Circle(r), (c[0], c[1], 0)
            ref, less = shapely.Point(c), r
        elif kind == 1:  # a stadium: the distance to its segment, less r
            length = float(rng.uniform(0.2, 2.0))
            probe, pose = kcbp.Capsule2D(r, length), (c[0], c[1], deg)
            ref, less = shapely.LineString(posed(np.array([[-length / 2, 0], [length / 2, 0]]), c[0], c[1], deg)), r
        else:  # a rectangle, turned: its own polygon
            w, h = float(rng.uniform(0.1, 2)), float(rng.uniform(0.1, 2))
            probe, pose = kcbp.Rect(w, h), kcbp.pose2(c, deg)
            corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
            ref, less = shapely.Polygon(posed(corners, c[0], c[1], deg)), 0.0
        gaps = [wd.distance(ref) - less for wd in world]
        if min(abs(g) for g in gaps) < 1e-9:
            continue  # a near-tie: the posed coordinates' rounding decides it
        hit, got = cm.in_collision_single(probe, pose, return_names=True)
        assert got == {names[i] for i in range(10) if gaps[i] < 0}, (kind, c, r)
        if min(gaps) > 0:
            assert cm.min_distance_single(probe, pose) == pytest.approx(min(gaps), abs=1e-9)
            compared += 1
        compared += 1
    print("\nseed %d: %d manager calls compared with shapely" % (seed, compared))
    assert compared >= 10


def test_polygon_takes_shapelys_spelling():
    """shapely writes Polygon(shell, holes=None): holes=None raised a
    TypeError ('NoneType' object is not iterable) and shell= was unknown."""
    for p in (kcbp.Polygon(SQUARE, None), kcbp.Polygon(SQUARE, holes=None), kcbp.Polygon(shell=SQUARE),
              kcbp.Polygon(shell=np.array(SQUARE, dtype=np.int64), holes=[HOLE])):
        assert p.rings in (1, 2)
        assert kcbp.collide(p, kcbp.Circle(0.2), pose_b=(3, 1, 0))["collide"] is False
        assert kcbp.distance(p, kcbp.Circle(0.2), pose_b=(3, 1, 0))["distance"] == pytest.approx(0.8, abs=1e-12)
    assert kcbp.Polygon(shell=SQUARE, holes=[HOLE]).rings == 2
    with pytest.raises(ValueError):
        kcbp.Polygon(SQUARE, shell=SQUARE)
    with pytest.raises(ValueError):
        kcbp.Polygon()
