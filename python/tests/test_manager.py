"""kcbp.CollisionManager (trimesh's manager API over kcbp_world): its pairs
and distances against brute force over kcbp.collide and kcbp.distance on
every pair, after adds, moves and removes; the return shapes; errors; and
lifetime (no order of calls crashes)."""
import gc
import math
import os
import time
import types

import numpy as np
import pytest

from conftest import BUNNY, MANAGER_DEPTH, ROOT, SPOT, kcbp

SUZANNE = os.path.join(ROOT, "meshes", "suzanne.obj")


def random_pose(rng, spread):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    return kcbp.pose(rng.uniform(-spread, spread, size=3), quaternion=q)


@pytest.fixture(scope="module")
def geoms():
    """The bundled meshes, a shape, and a trimesh-like object (vertices and
    faces arrays, no kcbp type)."""
    bunny, spot, suzanne = kcbp.load(BUNNY), kcbp.load(SPOT), kcbp.load(SUZANNE)
    like = types.SimpleNamespace(vertices=spot.vertices * 0.5, faces=spot.faces.astype(np.int64))
    return [bunny, spot, suzanne, kcbp.Sphere(0.3), kcbp.Capsule(0.1, 0.8), like]


def as_kcbp(g):
    return g if isinstance(g, (kcbp.Mesh, kcbp.Sphere, kcbp.Capsule)) else kcbp.Mesh(g.vertices, g.faces)


def brute_pairs(objs):
    names = sorted(objs)
    pairs = set()
    for i, p in enumerate(names):
        for q in names[i + 1:]:
            (ga, ta), (gb, tb) = objs[p], objs[q]
            if kcbp.collide(ga, gb, pose_a=ta, pose_b=tb)["collide"]:
                pairs.add((p, q))
    return pairs


def signed_distance(ga, ta, gb, tb):
    """The signed distance of a pair as trimesh's manager reports it: the
    distance when apart, minus the depth when the solids overlap, 0 when
    the depth is undefined (an open mesh) or not measurable by this
    libkcbp (a non-convex mesh's bracket)."""
    d = kcbp.distance(ga, gb, pose_a=ta, pose_b=tb)["distance"]
    if d > 0:
        return d
    try:
        return min(0.0, kcbp.distance(ga, gb, pose_a=ta, pose_b=tb, signed=True, **MANAGER_DEPTH)["distance"])
    except kcbp.Error:
        return 0.0


def brute_distance(objs):
    names = sorted(objs)
    best, where = math.inf, {}
    for i, p in enumerate(names):
        for q in names[i + 1:]:
            (ga, ta), (gb, tb) = objs[p], objs[q]
            d = signed_distance(ga, ta, gb, tb)
            where[(p, q)] = d
            best = min(best, d)
    return best, where


def check_against_brute(cm, objs):
    pairs = brute_pairs(objs)
    assert cm.in_collision_internal() == bool(pairs)
    hit, names = cm.in_collision_internal(return_names=True)
    assert hit == bool(pairs) and names == pairs
    best, where = brute_distance(objs)
    d, (p, q) = cm.min_distance_internal(return_names=True)
    assert d == pytest.approx(best, rel=1e-12, abs=0)
    assert p < q and where[(p, q)] == pytest.approx(best, rel=1e-12, abs=0)
    assert cm.min_distance_internal() == d
    return pairs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_internal_equals_brute_force_after_moves_and_removes(geoms, seed):
    rng = np.random.default_rng(seed)
    kg = [as_kcbp(g) for g in geoms]
    cm = kcbp.CollisionManager()
    objs = {}
    for i in range(12):
        j = int(rng.integers(len(geoms)))
        name = "obj%02d" % i
        t = random_pose(rng, 1.6)
        cm.add_object(name, geoms[j], t)
        objs[name] = (kg[j], t)
    assert len(cm) == 12
    seen = check_against_brute(cm, objs)
    # small moves (the pair caches carry over), then large ones
    for step in range(4):
        scale = 0.05 if step < 2 else 1.6
        for name in list(objs)[::2]:
            g, t = objs[name]
            t2 = t.copy() if scale < 1 else random_pose(rng, scale)
            if scale < 1:
                t2[:3, 3] += rng.uniform(-scale, scale, size=3)
            cm.set_transform(name, t2)
            objs[name] = (g, t2)
        seen |= check_against_brute(cm, objs)
    assert seen, "the poses should make some pairs touch"
    for name in ["obj03", "obj00", "obj11"]:
        cm.remove_object(name)
        del objs[name]
        check_against_brute(cm, objs)
    # a name removed can be added again
    t = random_pose(rng, 1.0)
    cm.add_object("obj00", geoms[0], t)
    objs["obj00"] = (kg[0], t)
    check_against_brute(cm, objs)
    cm.close()


def test_single_equals_brute_force(geoms):
    rng = np.random.default_rng(7)
    kg = [as_kcbp(g) for g in geoms]
    cm = kcbp.CollisionManager()
    objs = {}
    for i in range(10):
        j = i % len(geoms)
        t = random_pose(rng, 1.6)
        cm.add_object("o%d" % i, geoms[j], t)
        objs["o%d" % i] = (kg[j], t)
    hits_seen = 0
    for trial in range(6):
        j = trial % len(geoms)
        t = random_pose(rng, 1.6)
        want = {n for n, (g, tt) in objs.items()
                if kcbp.collide(g, kg[j], pose_a=tt, pose_b=t)["collide"]}
        assert cm.in_collision_single(geoms[j], t) == bool(want)
        assert cm.in_collision_single(geoms[j], t, return_names=True) == (bool(want), want)
        hits_seen += len(want)
        dists = {n: signed_distance(g, tt, kg[j], t) for n, (g, tt) in objs.items()}
        best = min(dists.values())
        d, name = cm.min_distance_single(geoms[j], t, return_name=True)
        assert d == pytest.approx(best, rel=1e-12, abs=0)
        assert dists[name] == pytest.approx(best, rel=1e-12, abs=0)
        assert cm.min_distance_single(geoms[j], t) == d
    assert hits_seen


def test_return_shapes_and_empty():
    cm = kcbp.CollisionManager()
    s = kcbp.Sphere(1.0)
    assert cm.in_collision_internal() is False
    assert cm.in_collision_internal(return_names=True) == (False, set())
    assert cm.in_collision_single(s) is False
    assert cm.in_collision_single(s, return_names=True) == (False, set())
    assert cm.min_distance_internal() == math.inf
    assert cm.min_distance_internal(return_names=True) == (math.inf, (None, None))
    assert cm.min_distance_single(s, return_name=True) == (math.inf, None)
    cm.add_object("zeta", s)
    assert cm.min_distance_internal(return_names=True) == (math.inf, (None, None))
    assert cm.min_distance_single(s, kcbp.pose((3, 0, 0)), return_name=True) == (pytest.approx(1.0), "zeta")
    cm.add_object("alpha", s, (1.5, 0, 0, 0, 0, 1, 0))  # 7 numbers, as the pair functions take
    hit, names = cm.in_collision_internal(return_names=True)
    assert hit is True and names == {("alpha", "zeta")}  # sorted, as trimesh's
    d, names = cm.min_distance_internal(return_names=True)
    assert d == pytest.approx(-0.5) and names == ("alpha", "zeta")  # signed: minus the depth
    cm.set_transform("alpha", kcbp.pose((2.5, 0, 0)))
    assert cm.min_distance_internal(return_names=True) == (pytest.approx(0.5), ("alpha", "zeta"))
    # the other forms a transform takes (set_transform's fast path is for float64 4x4 arrays)
    for t in ([[1, 0, 0, 2.25], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], (2.25, 0, 0, 0, 0, 1, 0),
              kcbp.pose((2.25, 0, 0)).astype(np.float32), np.asfortranarray(kcbp.pose((2.25, 0, 0)))):
        cm.set_transform("alpha", kcbp.pose((9, 0, 0)))
        cm.set_transform("alpha", t)
        assert cm.min_distance_internal() == pytest.approx(0.25)
    assert "alpha" in cm and "beta" not in cm and len(cm) == 2


def test_errors(bunny):
    cm = kcbp.CollisionManager()
    cm.add_object("a", bunny)
    cm.add_object("a", bunny)  # replaced, as trimesh does
    assert len(cm) == 1
    for bad in (None, [1]):
        with pytest.raises(ValueError, match="name"):
            cm.add_object(bad, bunny)
    for call in (lambda: cm.remove_object("b"), lambda: cm.set_transform("b", np.eye(4)),
                 lambda: cm.remove_object(None), lambda: cm.min_distance_internal(name="b")):
        with pytest.raises(ValueError, match="not in collision manager"):
            call()
    shear = np.eye(4)
    shear[0, 1] = 0.1
    scaled = np.diag([2.0, 2.0, 2.0, 1.0])
    mirror = np.diag([-1.0, 1.0, 1.0, 1.0])
    for t in (shear, scaled, mirror, np.full((4, 4), np.nan), np.eye(3), "x"):
        with pytest.raises(kcbp.Error):
            cm.set_transform("a", t)
        with pytest.raises(kcbp.Error):
            cm.add_object("c", bunny, t)
        with pytest.raises(kcbp.Error):
            cm.in_collision_single(bunny, t)
        with pytest.raises(kcbp.Error):
            cm.min_distance_single(bunny, t)
    assert len(cm) == 1 and "c" not in cm  # failed adds add nothing
    with pytest.raises(kcbp.Error, match="vertices and faces"):
        cm.add_object("c", object())
    with pytest.raises(kcbp.Error, match="vertices and faces"):
        cm.in_collision_single(42)
    closed = kcbp.load(BUNNY)
    closed.close()
    for call in (lambda: cm.add_object("c", closed), lambda: cm.in_collision_single(closed),
                 lambda: cm.min_distance_single(closed)):
        with pytest.raises(kcbp.Error) as e:
            call()
        assert e.value.code == "closed"
    assert len(cm) == 1
    cm.close()
    assert cm.closed and repr(cm) == "kcbp.CollisionManager(closed)"
    for call in (lambda: cm.add_object("c", bunny), lambda: cm.remove_object("a"),
                 lambda: cm.set_transform("a", None), cm.in_collision_internal, cm.min_distance_internal,
                 lambda: cm.in_collision_single(bunny), lambda: cm.min_distance_single(bunny)):
        with pytest.raises(kcbp.Error) as e:
            call()
        assert e.value.code == "closed"
    cm.close()  # again: nothing


def test_lifetime_meshes_kept_alive():
    """The manager keeps its meshes in use: closing or dropping them, in
    any order, never frees a model the world still reads."""
    cm = kcbp.CollisionManager()
    m = kcbp.load(SPOT)
    s = kcbp.Sphere(0.5)
    cm.add_object("spot", m)
    cm.add_object("ball", s, kcbp.pose((0.3, 0, 0)))
    cm.add_object("tri", types.SimpleNamespace(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], faces=[[0, 1, 2]]))
    m.close()  # the user closes it: freed only when the manager lets go
    s.close()
    del m, s
    gc.collect()
    assert m_free_later(cm)
    assert cm.in_collision_internal(return_names=True) == (True, {("ball", "spot"), ("spot", "tri"),
                                                                   ("ball", "tri")})
    cm.set_transform("ball", kcbp.pose((5, 0, 0)))
    assert cm.in_collision_internal(return_names=True) == (True, {("spot", "tri")})
    spot_entry = cm._objs["spot"][1]
    cm.remove_object("spot")  # its last use ends: the closed mesh's models are freed now
    assert spot_entry._models == {}
    assert cm.min_distance_internal(return_names=True)[1] == ("ball", "tri")
    del cm  # the world and the remaining uses go with the manager
    gc.collect()


def m_free_later(cm):
    return all(not g._closed or g._users > 0 for _, g, _ in cm._objs.values())


def test_with_and_del():
    with kcbp.CollisionManager() as cm:
        b = kcbp.Box(1, 1, 1)
        cm.add_object("b", b)
    assert cm.closed and b._users == 0
    b.close()
    for _ in range(3):
        cm = kcbp.CollisionManager()
        cm.add_object("b", kcbp.Box(1, 2, 3))
        del cm
        gc.collect()


def test_threads_and_close_in_any_order():
    """Threads moving, querying and removing while another closes the
    meshes and then the manager: clean kcbp.Errors, never a crash."""
    import threading
    for round_ in range(3):
        cm = kcbp.CollisionManager()
        meshes = [kcbp.load(BUNNY), kcbp.Sphere(0.3)]
        for i in range(8):
            cm.add_object("o%d" % i, meshes[i % 2], kcbp.pose((0.4 * i, 0, 0)))
        stop = threading.Event()
        errors = []

        def worker(k, cm):
            rng = np.random.default_rng(k)
            while not stop.is_set():
                try:
                    name = "o%d" % rng.integers(8)
                    cm.set_transform(name, kcbp.pose(rng.uniform(0, 3, size=3)))
                    cm.in_collision_internal(return_names=True)
                    cm.min_distance_single(meshes[k % 2], kcbp.pose((1, 1, 0)))
                    cm.min_distance_internal()
                    if k == 0 and rng.random() < 0.1:
                        cm.remove_object(name)
                except kcbp.Error as e:
                    if e.code != "closed" and "not in collision manager" not in str(e):
                        errors.append(e)
        threads = [threading.Thread(target=worker, args=(k, cm)) for k in range(3)]
        for t in threads:
            t.start()
        time.sleep(0.05)
        for m in meshes:
            m.close()
        time.sleep(0.05)
        if round_ != 1:
            cm.close()
        time.sleep(0.02)
        stop.set()
        for t in threads:
            t.join()
        assert not errors
        del cm
        gc.collect()


def test_return_data_equals_collide_geometry(bunny):
    spot = kcbp.load(SPOT)
    cm = kcbp.CollisionManager()
    ta = kcbp.pose((0.0, 0, 0))
    tb = kcbp.pose((0.3, 0.05, 0), axis=(0, 0, 1), degrees=30)
    cm.add_object("bunny", bunny, ta)
    cm.add_object("spot", spot, tb)
    cm.add_object("far", kcbp.Sphere(0.1), kcbp.pose((5.0, 0, 0)))
    hit, names, data = cm.in_collision_internal(return_names=True, return_data=True)
    want = kcbp.collide(bunny, spot, ta, tb, contacts="all", geometry=True)
    assert hit and names == {("bunny", "spot")}
    assert [(c.index("bunny"), c.index("spot")) for c in data] == [tuple(p) for p in want["contacts"]]
    assert all(c.names == {"bunny", "spot"} for c in data)
    assert [c.point.tolist() for c in data] == [g["point"] for g in want["geometry"]]
    hit2, data2 = cm.in_collision_internal(return_data=True)
    assert hit2 and len(data2) == len(data)
    # moved: the data follow the new pose
    tb2 = kcbp.pose((0.25, 0.05, 0), axis=(0, 0, 1), degrees=35)
    cm.set_transform("spot", tb2)
    want2 = kcbp.collide(bunny, spot, ta, tb2, contacts="all")
    assert [(c.index("bunny"), c.index("spot")) for c in cm.in_collision_internal(return_data=True)[1]] == \
        [tuple(p) for p in want2["contacts"]]
    # a single query: the mesh is "__external"; a shape's side has no triangle
    hit3, data3 = cm.in_collision_single(kcbp.Sphere(0.2), kcbp.pose((5.1, 0, 0)), return_data=True)
    assert hit3 and data3 and all(c.names == {"__external", "far"} and c.index("far") == -1 for c in data3)
    assert cm.in_collision_single(kcbp.Sphere(0.01), kcbp.pose((50.0, 0, 0)), return_data=True) == (False, [])
    cm.close()
    spot.close()
