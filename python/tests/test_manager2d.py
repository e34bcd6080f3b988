"""kcbp.CollisionManager2D: trimesh's CollisionManager methods for 2D
geometries, every method and return form, checked against brute force over
kcbp's 2D pair calls (kcbp.collide, kcbp.distance(signed=True)) on random
scenes of polygons with holes and convex shapes."""
import inspect
import math

import numpy as np
import pytest

from conftest import kcbp


def ring(rng, n, r0):
    ang = (np.arange(n) + rng.uniform(0.1, 0.9, n)) * (2 * math.pi / n)
    rad = rng.uniform(0.5 * r0, r0, n)
    return np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)


def make(rng, k):
    kind = k % 5
    if kind == 0:
        return kcbp.Polygon(ring(rng, 12, 1.0), holes=[ring(rng, 6, 0.3)])
    if kind == 1:
        return kcbp.Circle(float(rng.uniform(0.1, 0.6)))
    if kind == 2:
        return kcbp.Rect(float(rng.uniform(0.2, 1.0)), float(rng.uniform(0.2, 1.0)), float(rng.uniform(0, 0.1)))
    if kind == 3:
        return kcbp.Capsule2D(float(rng.uniform(0.05, 0.3)), float(rng.uniform(0.2, 1.0)))
    return kcbp.ConvexPolygon(rng.normal(size=(6, 2)) * 0.4)


def scene(seed, n=14, spread=4.0):
    rng = np.random.default_rng(seed)
    objs = {}
    for k in range(n):
        g = make(rng, k)
        p = (float(rng.uniform(0, spread)), float(rng.uniform(0, spread)), float(rng.uniform(0, 360)))
        objs["o%02d" % k] = (g, p)
    return objs


def brute_pairs(objs):
    names = sorted(objs)
    out = set()
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if kcbp.collide(objs[a][0], objs[b][0], objs[a][1], objs[b][1])["collide"]:
                out.add((a, b))
    return out


def signed(ga, pa, gb, pb):
    return kcbp.distance(ga, gb, pa, pb, signed=True)["distance"]


def test_signatures_are_trimeshs():
    cm = kcbp.CollisionManager2D
    sig = {n: str(inspect.signature(getattr(cm, n))) for n in (
        "add_object", "remove_object", "set_transform", "in_collision_single", "in_collision_internal",
        "in_collision_other", "min_distance_single", "min_distance_internal", "min_distance_other")}
    ref = {n: str(inspect.signature(getattr(kcbp.CollisionManager, n))) for n in sig}
    for n in sig:  # the same parameter names and defaults as the 3D (trimesh's) manager
        names = [p.split(":")[0].split("=")[0].strip() for p in sig[n].strip("()").split(",")]
        names_ref = [p.split(":")[0].split("=")[0].strip() for p in ref[n].strip("()").split(",")]
        assert names == names_ref, n


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_internal_against_brute_force(seed):
    objs = scene(seed)
    cm = kcbp.CollisionManager2D()
    for name, (g, p) in objs.items():
        assert cm.add_object(name, g, p).name == name
    want = brute_pairs(objs)
    assert 0 < len(want)
    assert cm.in_collision_internal() is True
    hit, names = cm.in_collision_internal(return_names=True)
    assert hit and names == want
    hit, data = cm.in_collision_internal(return_data=True)
    assert {tuple(sorted(c.names)) for c in data} == want
    edge_contacts = 0
    for c in data:
        assert c.point.shape == (2,) and c.normal.shape == (2,) and c.depth >= 0
        na, nb = sorted(c.names)
        if c.index(na) >= 0 and c.index(nb) >= 0:  # two regions' edges: the point is on both
            edge_contacts += 1
            for n in (na, nb):
                g, p = objs[n]
                e = g.edges[c.index(n)]
                v = g.vertices
                m = kcbp.pose2(p[:2], p[2])
                a, b = (m[:2, :2] @ v[e].T).T + m[:2, 2]
                t = np.clip(np.dot(c.point - a, b - a) / np.dot(b - a, b - a), 0, 1)
                assert np.hypot(*(a + t * (b - a) - c.point)) < 1e-9
        assert abs(np.hypot(*c.normal) - 1) < 1e-9 or not c.normal.any()
        for n in c.names:
            g = objs[n][0]
            i = c.index(n)
            assert i == -1 if not isinstance(g, kcbp.Polygon) else 0 <= i < len(g.vertices)
    assert edge_contacts > 0
    # distances: the least signed distance over all pairs
    dists = {(a, b): signed(objs[a][0], objs[a][1], objs[b][0], objs[b][1])
             for a in objs for b in objs if a < b}
    best = min(dists, key=dists.get)
    d, names = cm.min_distance_internal(return_names=True)
    assert d == pytest.approx(dists[best], rel=1e-12, abs=1e-12) and d < 0
    assert dists[names] == pytest.approx(d, rel=1e-12, abs=1e-12)
    d2, data = cm.min_distance_internal(return_data=True)
    assert d2 == d and data.distance == d and set(data.names) == set(names)
    for n in names:
        assert data.point(n).shape == (2,)
    # from one object
    for name in list(objs)[:4]:
        want_d = min(v for k, v in dists.items() if name in k)
        dn, pair = cm.min_distance_internal(name, return_names=True)
        assert dn == pytest.approx(want_d, rel=1e-12, abs=1e-12) and name in pair
    # move everything apart: no collision, a positive least distance
    for i, name in enumerate(sorted(objs)):
        cm.set_transform(name, kcbp.pose2((10.0 * i, 0.0), 0.0))
    assert cm.in_collision_internal(return_names=True) == (False, set())
    d = cm.min_distance_internal()
    moved = {n: (objs[n][0], (10.0 * i, 0.0, 0.0)) for i, n in enumerate(sorted(objs))}
    want_d = min(signed(moved[a][0], moved[a][1], moved[b][0], moved[b][1]) for a in moved for b in moved if a < b)
    assert d == pytest.approx(want_d, rel=1e-12) and d > 0


def test_single_and_other_against_brute_force():
    objs = scene(7, n=10)
    cm = kcbp.CollisionManager2D()
    for name, (g, p) in objs.items():
        cm.add_object(name, g, p)
    probes = [(kcbp.Circle(0.5), (2.0, 2.0, 0.0)), (kcbp.Rect(3.0, 0.2), (2.0, 1.0, 20.0)),
              (kcbp.Polygon([[0, 0], [1, 0], [1, 1], [0, 1]]), (9.0, 9.0, 0.0))]
    for g, p in probes:
        want = {n for n, (h, q) in objs.items() if kcbp.collide(h, g, q, p)["collide"]}
        assert cm.in_collision_single(g, p) == bool(want)
        hit, names = cm.in_collision_single(g, p, return_names=True)
        assert names == want
        hit, names, data = cm.in_collision_single(g, p, return_names=True, return_data=True)
        assert all("__external" in c.names for c in data) and {n for c in data for n in c.names} - {"__external"} == want
        dists = {n: signed(h, q, g, p) for n, (h, q) in objs.items()}
        d, name = cm.min_distance_single(g, p, return_name=True)
        assert d == pytest.approx(min(dists.values()), rel=1e-12, abs=1e-12)
        assert dists[name] == pytest.approx(d, rel=1e-12, abs=1e-12)
        d, data = cm.min_distance_single(g, kcbp.pose2(p[:2], p[2]), return_data=True)
        assert "__external" in data.names and data.distance == pytest.approx(d)
    other = kcbp.CollisionManager2D()
    for k, (g, p) in enumerate(probes):
        other.add_object("p%d" % k, g, p)
    want = {(n, "p%d" % k) for n, (h, q) in objs.items() for k, (g, p) in enumerate(probes)
            if kcbp.collide(h, g, q, p)["collide"]}
    assert cm.in_collision_other(other) == bool(want)
    assert cm.in_collision_other(other, return_names=True) == (bool(want), want)
    d, names, data = cm.min_distance_other(other, return_names=True, return_data=True)
    want_d = min(signed(h, q, g, p) for h, q in objs.values() for g, p in probes)
    assert d == pytest.approx(want_d, rel=1e-12, abs=1e-12) and names[0] in objs and names[1].startswith("p")


def test_objects_transforms_and_errors(bunny):
    cm = kcbp.CollisionManager2D()
    assert cm.min_distance_internal(return_names=True, return_data=True) == (math.inf, (None, None), None)
    assert cm.min_distance_single(kcbp.Circle(1), return_name=True) == (math.inf, None)
    assert cm.in_collision_internal(return_names=True, return_data=True) == (False, set(), [])
    a = cm.add_object("a", kcbp.Rect(1, 1))
    cm.add_object("b", kcbp.Rect(1, 1), (0.9, 0, 0))
    assert np.array_equal(a.transform, np.eye(3))
    assert cm.in_collision_internal(return_names=True) == (True, {("a", "b")})
    d, names = cm.min_distance_internal(return_names=True)
    assert d == pytest.approx(-0.1) and names == ("a", "b")
    # a name replaced, not added twice
    cm.add_object("b", kcbp.Rect(1, 1), (3, 0, 0))
    assert len(cm) == 2 and not cm.in_collision_internal()
    assert cm.min_distance_internal() == pytest.approx(2.0)
    # float32 3x3 transforms, as trimesh casts them
    cm.set_transform("b", kcbp.pose2((1.0, 0.0), 0.0).astype(np.float32))
    assert cm.in_collision_internal()  # touching along x = 0.5 collides
    assert cm.min_distance_internal() == 0
    cm.set_transform("b", kcbp.pose2((0.5, 0.5), 45.0).astype(np.float32))
    assert cm.in_collision_internal()
    cm.remove_object("b")
    assert len(cm) == 1 and "b" not in cm
    for call, exc in [(lambda: cm.remove_object("b"), ValueError), (lambda: cm.set_transform("zz", None), ValueError),
                      (lambda: cm.min_distance_internal("zz"), ValueError),
                      (lambda: cm.set_transform("a", np.eye(4)), ValueError),
                      (lambda: cm.set_transform("a", [[1, 0.2, 0], [0, 1, 0], [0, 0, 1]]), ValueError),
                      (lambda: cm.add_object("m", bunny), ValueError),
                      (lambda: cm.add_object(None, kcbp.Circle(1)), ValueError),
                      (lambda: kcbp.CollisionManager().add_object("p", kcbp.Circle(1)), ValueError),
                      (lambda: cm.in_collision_other(kcbp.CollisionManager()), ValueError)]:
        with pytest.raises(exc):
            call()
    # the manager keeps its geometries in use: closing one meanwhile frees it later
    p = kcbp.Polygon([[0, 0], [1, 0], [1, 1], [0, 1]])
    cm.add_object("p", p, (5, 5, 0))
    p.close()
    assert cm.min_distance_internal() > 0
    cm.remove_object("p")
    with pytest.raises(kcbp.Error, match="closed"):
        kcbp.collide(p, p)
    cm.close()
    with pytest.raises(kcbp.Error, match="closed"):
        cm.in_collision_internal()


def test_many_objects_broad_phase_matches_brute_force():
    rng = np.random.default_rng(11)
    cm = kcbp.CollisionManager2D()
    objs = {}
    for k in range(300):
        g = kcbp.Circle(float(rng.uniform(0.05, 0.3))) if k % 2 else kcbp.Rect(0.3, 0.1)
        p = (float(rng.uniform(0, 20)), float(rng.uniform(0, 20)), float(rng.uniform(0, 360)))
        objs[k] = (g, p)
        cm.add_object(k, g, p)
    hit, names = cm.in_collision_internal(return_names=True)
    want = set()
    for a in range(300):
        for b in range(a + 1, 300):
            ga, pa = objs[a]
            gb, pb = objs[b]
            if math.hypot(pa[0] - pb[0], pa[1] - pb[1]) < 0.7 and kcbp.collide(ga, gb, pa, pb)["collide"]:
                want.add((a, b))
    assert names == want and len(want) > 5
