"""kcbp.CollisionManager as a trimesh user calls it: written from the
documented behaviour of trimesh.collision.CollisionManager (trimesh 4 and
5), with trimesh's keyword names, and checked against brute force over
kcbp's pair calls. trimesh itself is not needed: its meshes are stood in
for by objects with ``vertices`` and ``faces`` arrays, which is all the
manager reads of a trimesh.Trimesh."""
import inspect
import math
import types

import numpy as np
import pytest

from conftest import BUNNY, MANAGER_DEPTH, kcbp
from kcbp import CollisionManager  # the one line a trimesh user changes


def box_mesh(extents=(1.0, 1.0, 1.0)):
    """A closed box centred at the origin, as trimesh.creation.box makes
    one (12 outward triangles)."""
    h = np.asarray(extents, dtype=np.float64) / 2
    v = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64) * h
    f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                  [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], dtype=np.int64)
    return types.SimpleNamespace(vertices=v, faces=f)


def translation(x, y=0.0, z=0.0, dtype=np.float64):
    t = np.eye(4, dtype=dtype)
    t[:3, 3] = (x, y, z)
    return t


def rotation_z(deg, x=0.0, dtype=np.float64):
    a = math.radians(deg)
    t = np.eye(4)
    t[:2, :2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
    t[0, 3] = x
    return t.astype(dtype)


TRIMESH_SIGNATURES = {
    "add_object": "(name, mesh, transform=None)",
    "remove_object": "(name)",
    "set_transform": "(name, transform)",
    "in_collision_single": "(mesh, transform=None, return_names=False, return_data=False)",
    "in_collision_internal": "(return_names=False, return_data=False)",
    "in_collision_other": "(other_manager, return_names=False, return_data=False)",
    "min_distance_single": "(mesh, transform=None, return_name=False, return_data=False)",
    "min_distance_internal": "(name=None, return_names=False, return_data=False)",
    "min_distance_other": "(other_manager, return_names=False, return_data=False)",
}


@pytest.mark.parametrize("method", sorted(TRIMESH_SIGNATURES))
def test_signatures_are_trimeshs(method):
    sig = inspect.signature(getattr(CollisionManager(), method))
    plain = sig.replace(parameters=[p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()],
                        return_annotation=inspect.Signature.empty)
    assert str(plain) == TRIMESH_SIGNATURES[method]
    assert all(p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD for p in sig.parameters.values())


@pytest.fixture()
def scene():
    """Three boxes in a row: a and b overlap by 0.2, c stands apart
    (0.5 from b)."""
    cm = CollisionManager()
    cm.add_object("a", box_mesh(), translation(0.0))
    cm.add_object("b", box_mesh(), translation(0.8))
    cm.add_object("c", box_mesh(), translation(2.3))
    yield cm
    cm.close()


def check_contact(c, names):
    assert isinstance(c, kcbp.ContactData)
    assert c.names == set(names)
    for n in names:
        assert isinstance(c.index(n), int)
    assert isinstance(c.point, np.ndarray) and c.point.shape == (3,) and c.point.dtype == np.float64
    assert isinstance(c.normal, np.ndarray) and c.normal.shape == (3,)
    assert np.linalg.norm(c.normal) == pytest.approx(1.0)
    assert isinstance(c.depth, float) and c.depth >= 0


def test_in_collision_internal_every_return_form(scene):
    assert scene.in_collision_internal() is True
    r = scene.in_collision_internal(return_names=True)
    assert isinstance(r, tuple) and len(r) == 2
    assert r == (True, {("a", "b")})
    r = scene.in_collision_internal(return_data=True)
    assert isinstance(r, tuple) and len(r) == 2 and r[0] is True and isinstance(r[1], list)
    hit, names, data = scene.in_collision_internal(return_names=True, return_data=True)
    assert hit is True and names == {("a", "b")}
    want = kcbp.collide(kcbp.Mesh(**vars(box_mesh())), kcbp.Mesh(**vars(box_mesh())), translation(0.0),
                        translation(0.8), contacts="all")["contacts"]
    assert len(data) == len(want) > 0
    for c in data:
        check_contact(c, ("a", "b"))
        # the pair's depth (overlapping closed meshes): the proven bracket's upper bound
        assert 0.2 <= c.depth <= 0.2 + 1e-8
    # the faces of a within the overlap are the x = 0.5 side and its neighbours
    assert {c.index("a") for c in data} <= set(range(12))
    scene.set_transform("b", translation(1.1))
    assert scene.in_collision_internal(return_names=True, return_data=True) == (False, set(), [])


def test_names_sorted_alphabetically():
    cm = CollisionManager()
    cm.add_object("zeta", box_mesh())
    cm.add_object("alpha", box_mesh(), translation(0.5))
    assert cm.in_collision_internal(return_names=True) == (True, {("alpha", "zeta")})
    assert cm.min_distance_internal(return_names=True)[1] == ("alpha", "zeta")


def test_in_collision_single_every_return_form(scene):
    ball = kcbp.Sphere(0.3)
    assert scene.in_collision_single(ball, translation(1.55)) is True
    hit, names = scene.in_collision_single(ball, translation(1.55), return_names=True)
    assert hit is True and names == {"b", "c"}
    hit, data = scene.in_collision_single(ball, transform=translation(1.55), return_data=True)
    assert hit and data and all(c.names in ({"b", "__external"}, {"c", "__external"}) for c in data)
    for c in data:
        other = (c.names - {"__external"}).pop()
        check_contact(c, (other, "__external"))
        assert c.index("__external") == -1  # a shape's side: FCL's Contact::NONE
    hit, names, data = scene.in_collision_single(box_mesh((0.1, 0.1, 0.1)), translation(5.0),
                                                 return_names=True, return_data=True)
    assert (hit, names, data) == (False, set(), [])


def test_in_collision_other_every_return_form(scene):
    other = CollisionManager()
    other.add_object("x", box_mesh(), translation(1.6))  # touches b (overlap) and c
    other.add_object("y", box_mesh(), translation(9.0))
    assert scene.in_collision_other(other) is True
    hit, names = scene.in_collision_other(other, return_names=True)
    assert hit and names == {("b", "x"), ("c", "x")}  # (this manager's, the other's)
    hit, names = other.in_collision_other(scene, return_names=True)
    assert hit and names == {("x", "b"), ("x", "c")}
    hit, names, data = scene.in_collision_other(other, return_names=True, return_data=True)
    assert all(c.names in ({"b", "x"}, {"c", "x"}) for c in data) and data
    for c in data:
        check_contact(c, tuple(c.names))
    other.set_transform("x", translation(-5.0))
    assert scene.in_collision_other(other, return_names=True, return_data=True) == (False, set(), [])
    other.close()


def brute_signed(objs, pairs):
    best = (math.inf, None)
    for p, q in pairs:
        (ga, ta), (gb, tb) = objs[p], objs[q]
        d = kcbp.distance(ga, gb, pose_a=ta, pose_b=tb)["distance"]
        if d <= 0:
            try:
                d = min(0.0, kcbp.distance(ga, gb, pose_a=ta, pose_b=tb, signed=True, **MANAGER_DEPTH)["distance"])
            except kcbp.Error:
                d = 0.0
        if d < best[0]:
            best = (d, (p, q))
    return best


def test_min_distance_internal_every_return_form_and_name():
    cm = CollisionManager()
    ball = kcbp.Sphere(0.25)
    objs = {"a": (kcbp.Mesh(**vars(box_mesh())), translation(0.0)), "b": (ball, translation(1.0)),
            "c": (kcbp.Box(0.5, 0.5, 0.5), translation(3.0, 1.0))}
    for n, (g, t) in objs.items():
        cm.add_object(n, g, t)
    d = cm.min_distance_internal()
    assert isinstance(d, float) and d == pytest.approx(0.25)  # the ball to the box's face
    d2, names = cm.min_distance_internal(return_names=True)
    assert d2 == d and names == ("a", "b")
    d3, data = cm.min_distance_internal(return_data=True)
    assert d3 == d and isinstance(data, kcbp.DistanceData) and data.names == {"a", "b"}
    assert data.distance == d
    assert isinstance(data.point("a"), np.ndarray) and data.point("a").shape == (3,)
    np.testing.assert_allclose(data.point("a"), [0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(data.point("b"), [0.75, 0, 0], atol=1e-12)
    assert isinstance(data.index("a"), int) and data.index("b") == -1
    d4, names4, data4 = cm.min_distance_internal(return_names=True, return_data=True)
    assert (d4, names4) == (d, names) and data4.names == {"a", "b"}
    # name: from that object to the others (positional, as trimesh's first argument)
    dc = cm.min_distance_internal("c")
    want = brute_signed(objs, [("c", "a"), ("c", "b")])
    assert isinstance(dc, float) and dc == pytest.approx(want[0], rel=1e-12)
    dc2, names = cm.min_distance_internal(name="c", return_names=True)
    assert dc2 == dc and names == tuple(sorted(want[1]))
    with pytest.raises(ValueError):
        cm.min_distance_internal(name="nope")
    # overlapping shapes: a negative distance, minus the depth
    cm.set_transform("c", translation(1.2))  # box [0.95, 1.45] x [-0.25, 0.25]^2, the ball at 1.0 (r 0.25)
    d, names = cm.min_distance_internal(return_names=True)
    assert names == ("b", "c") and d == pytest.approx(-0.3, abs=1e-9)  # out along -x: (1.0 + 0.25) - 0.95
    cm.close()


def test_min_distance_single_every_return_form(scene):
    probe = kcbp.Sphere(0.1)
    t = translation(0.0, 2.0)
    d = scene.min_distance_single(probe, t)
    assert isinstance(d, float) and d == pytest.approx(2.0 - 0.5 - 0.1)
    d2, name = scene.min_distance_single(probe, transform=t, return_name=True)
    assert d2 == d and name in ("a", "b")
    d3, data = scene.min_distance_single(probe, t, return_data=True)
    assert d3 == d and data.names == {name, "__external"}
    np.testing.assert_allclose(data.point("__external")[1], 1.9, atol=1e-12)
    d4, name4, data4 = scene.min_distance_single(probe, t, return_name=True, return_data=True)
    assert (d4, name4) == (d, name) and data4.distance == d
    # wholly inside c, a closed box: the solids overlap, as trimesh's FCL
    # (a convex mesh is an fcl.Convex) says: a collision, and minus the
    # depth, the way out through the nearest face: 0.5 + 0.1
    assert scene.in_collision_single(probe, translation(2.3)) is True
    assert scene.min_distance_single(probe, translation(2.3)) == pytest.approx(-0.6, abs=1e-8)


def test_min_distance_other_every_return_form(scene):
    other = CollisionManager()
    other.add_object("x", kcbp.Sphere(0.5), translation(0.0, 3.0))
    other.add_object("y", kcbp.Sphere(0.5), translation(2.3, 2.0))
    d = scene.min_distance_other(other)
    assert isinstance(d, float) and d == pytest.approx(2.0 - 0.5 - 0.5)
    d2, names = scene.min_distance_other(other, return_names=True)
    assert d2 == d and names == ("c", "y")  # (this manager's, the other's)
    d3, data = scene.min_distance_other(other, return_data=True)
    assert data.names == {"c", "y"} and data.distance == d
    np.testing.assert_allclose(data.point("y"), [2.3, 1.5, 0.0], atol=1e-12)
    d4, names4, data4 = other.min_distance_other(scene, return_names=True, return_data=True)
    assert d4 == d and names4 == ("y", "c")
    other.close()


def test_add_object_returns_the_object_and_replaces_names():
    cm = CollisionManager()
    o = cm.add_object("a", box_mesh())
    assert o is not None and o.name == "a"
    np.testing.assert_array_equal(o.transform, np.eye(4))
    cm.add_object("b", box_mesh(), translation(3.0))
    assert cm.in_collision_internal() is False
    o2 = cm.add_object("b", box_mesh((7.0, 1.0, 1.0)), translation(3.0))  # replaced: now reaches a
    assert o2.name == "b" and len(cm) == 2
    assert cm.in_collision_internal(return_names=True) == (True, {("a", "b")})
    cm.remove_object("b")
    assert len(cm) == 1 and cm.in_collision_internal() is False
    cm.add_object("b", box_mesh(), translation(0.5))  # a removed name comes back
    assert cm.in_collision_internal() is True


def test_exceptions_are_trimeshs():
    cm = CollisionManager()
    cm.add_object("a", box_mesh())
    for call in (lambda: cm.remove_object("nope"), lambda: cm.set_transform("nope", np.eye(4)),
                 lambda: cm.min_distance_internal("nope")):
        with pytest.raises(ValueError, match="not in collision manager"):
            call()
    for bad in (np.eye(3), np.zeros(16), np.eye(4)[:3]):
        with pytest.raises(ValueError):
            cm.add_object("b", box_mesh(), bad)
        with pytest.raises(ValueError):
            cm.set_transform("a", bad)
    shear = np.eye(4)
    shear[0, 1] = 0.01
    for bad in (shear, np.diag([2.0, 2.0, 2.0, 1.0]), np.diag([1.0, 1.0, -1.0, 1.0])):
        with pytest.raises(ValueError):
            cm.set_transform("a", bad)
    with pytest.raises(FileNotFoundError):
        kcbp.load("no/such/mesh.obj")
    with pytest.raises(ValueError):
        kcbp.Mesh(np.zeros((3, 3), dtype=complex), [[0, 1, 2]])
    with pytest.raises(ValueError):
        cm.add_object("c", types.SimpleNamespace(vertices=np.zeros((3, 3), dtype=complex), faces=[[0, 1, 2]]))
    with pytest.raises(ValueError):
        cm.add_object("c", types.SimpleNamespace(vertices=np.array([[0, 0, 0], [1, 0, 0], [0, "x", 0]],
                                                                    dtype=object), faces=[[0, 1, 2]]))
    assert len(cm) == 1


def test_float32_transforms():
    """trimesh casts transforms to float32: they are taken within float32's
    precision (and orthonormalised), in every call that takes one."""
    cm = CollisionManager()
    r32 = rotation_z(33.0, 0.0, np.float32)
    dev = np.abs(r32[:3, :3].astype(np.float64).T @ r32[:3, :3].astype(np.float64) - np.eye(3)).max()
    assert dev > kcbp.RIGID_TOL  # beyond double's tolerance: the case of issue 34
    cm.add_object("a", box_mesh(), r32)
    cm.add_object("b", box_mesh(), rotation_z(10.0, 3.0, np.float32))
    cm.set_transform("b", rotation_z(-20.0, 1.2, np.float32))
    assert cm.in_collision_internal() is True
    assert cm.in_collision_single(kcbp.Sphere(0.1), translation(5.0, dtype=np.float32)) is False
    d = cm.min_distance_single(kcbp.Sphere(0.1), translation(0.0, 2.0, dtype=np.float32))
    c, s = math.cos(math.radians(33)), math.sin(math.radians(33))
    corner = (0.5 * (c - s), 0.5 * (s + c))  # a's top corner, nearest the probe
    assert d == pytest.approx(math.hypot(corner[0], 2.0 - corner[1]) - 0.1, abs=1e-6)
    bad = rotation_z(33.0, 0.0, np.float32)
    bad[0, 0] *= np.float32(1.001)  # far beyond float32's rounding: refused
    with pytest.raises(ValueError):
        cm.set_transform("a", bad)


def test_faces_come_back_int64(bunny):
    assert bunny.faces.dtype == np.int64
    assert kcbp.Sphere(1.0).tessellate()[1].dtype == np.int64
    assert kcbp.cbp(bunny)[1].dtype == np.int64


def test_internal_brute_force_random_scenes():
    """Random boxes and shapes: the pairs, and the signed least distance,
    against every pair through kcbp's pair functions."""
    rng = np.random.default_rng(34)
    geoms = [kcbp.Mesh(**vars(box_mesh((0.6, 0.4, 0.3)))), kcbp.Sphere(0.3), kcbp.Capsule(0.1, 0.6),
             kcbp.Box(0.5, 0.3, 0.2)]
    seen = 0
    for _ in range(3):
        cm = CollisionManager()
        objs = {}
        for i in range(9):
            q = rng.normal(size=4)
            t = kcbp.pose(rng.uniform(-1, 1, size=3), quaternion=q / np.linalg.norm(q))
            objs["o%d" % i] = (geoms[i % len(geoms)], t)
            cm.add_object("o%d" % i, *objs["o%d" % i])
        names = sorted(objs)
        pairs = [(p, q) for i, p in enumerate(names) for q in names[i + 1:]]
        touching = {(p, q) for p, q in pairs
                    if kcbp.collide(objs[p][0], objs[q][0], objs[p][1], objs[q][1])["collide"]}
        assert cm.in_collision_internal(return_names=True) == (bool(touching), touching)
        seen += len(touching)
        hit, data = cm.in_collision_internal(return_data=True)
        assert {tuple(sorted(c.names)) for c in data} == touching
        for p, q in touching:  # as many contacts as kcbp.collide finds (two shapes: one, as FCL's)
            (ga, ta), (gb, tb) = objs[p], objs[q]
            shapes = not isinstance(ga, kcbp.Mesh) and not isinstance(gb, kcbp.Mesh)
            n = 1 if shapes else len(kcbp.collide(ga, gb, ta, tb, contacts="all")["contacts"])
            assert sum(1 for c in data if c.names == {p, q}) == n
        d, best = cm.min_distance_internal(return_names=True)
        want = brute_signed(objs, pairs)
        assert d == pytest.approx(want[0], rel=1e-9, abs=1e-12)
        # the same objects split between two managers: *_other against the pairs across
        mine, theirs = names[:4], names[4:]
        cm2 = CollisionManager()
        for n in theirs:
            cm.remove_object(n)
            cm2.add_object(n, *objs[n])
        across = [(p, q) for p in mine for q in theirs]
        want_pairs = {(p, q) for p, q in across if tuple(sorted((p, q))) in touching}
        assert cm.in_collision_other(cm2, return_names=True) == (bool(want_pairs), want_pairs)
        d, names_ = cm.min_distance_other(cm2, return_names=True)
        want = brute_signed(objs, across)
        assert d == pytest.approx(want[0], rel=1e-9, abs=1e-12) and names_[0] in mine and names_[1] in theirs
        # and each of theirs as a single query
        for q in theirs:
            g, t = objs[q]
            hits = {p for p in mine if tuple(sorted((p, q))) in touching}
            assert cm.in_collision_single(g, t, return_names=True) == (bool(hits), hits)
            d, name = cm.min_distance_single(g, t, return_name=True)
            assert d == pytest.approx(brute_signed(objs, [(p, q) for p in mine])[0], rel=1e-9, abs=1e-12)
        cm.close()
        cm2.close()
    assert seen >= 5, "the random scenes should have touching pairs"


def test_signed_distance_sphere_in_box_closed_form():
    """kcbp.distance(signed=True): a sphere of radius r centred at x inside
    a box of half side h (along x): the depth is the way out through the
    nearest face, (h - x) + r, and the signed distance its negative."""
    box = kcbp.Box(2.0, 2.0, 2.0)
    for x, r in ((0.3, 0.2), (0.0, 0.5), (0.9, 0.3), (-0.6, 0.1)):
        s = kcbp.distance(box, kcbp.Sphere(r), pose_b=translation(x))
        assert s["distance"] == 0.0 or s["distance"] > 0  # unsigned: the surfaces
        out = kcbp.distance(box, kcbp.Sphere(r), pose_b=translation(x), signed=True)
        depth = (1.0 - abs(x)) + r
        assert out["status"] == "penetrating"
        assert out["distance"] == pytest.approx(-depth, abs=1e-9)
        assert out["depth"] == pytest.approx(depth, abs=1e-9)
        if x != 0:
            np.testing.assert_allclose(out["normal"], [math.copysign(1.0, x), 0, 0], atol=1e-9)
            np.testing.assert_allclose(np.subtract(out["point_b"], out["point_a"]),
                                       out["distance"] * np.asarray(out["normal"]), atol=1e-9)
    apart = kcbp.distance(box, kcbp.Sphere(0.25), pose_b=translation(2.0), signed=True)
    assert apart["status"] == "apart" and apart["distance"] == pytest.approx(0.75)
    touching = kcbp.distance(box, kcbp.Sphere(0.25), pose_b=translation(1.25), signed=True)
    assert touching["distance"] == pytest.approx(0.0, abs=1e-12)


def test_signed_distance_overlapping_meshes(bunny):
    """Two overlapping closed meshes: minus the depth once the library has
    the mesh bracket (signed_distance.h, KCBP_SDIST_BRACKETED); until then
    kcbp.distance(signed=True) raises kcbp.Error and the manager reports 0
    (the surfaces' distance). Apart meshes are measured either way."""
    a, b = kcbp.Mesh(**vars(box_mesh())), kcbp.Mesh(**vars(box_mesh()))
    apart = kcbp.distance(a, b, pose_b=translation(1.5), signed=True)
    assert apart["status"] == "apart" and apart["distance"] == pytest.approx(0.5)
    cm = CollisionManager()
    cm.add_object("a", a)
    cm.add_object("b", b, translation(0.8))
    try:
        r = kcbp.distance(a, b, pose_b=translation(0.8), signed=True)
    except kcbp.Error as e:
        assert "not written" in str(e) or e.code == "invalid"
        assert cm.min_distance_internal() == 0.0
    else:
        assert r["status"] in ("bracketed", "penetrating") and r["depth_lower"] <= 0.2 + 1e-9 <= r["depth_upper"] + 2e-9
        assert cm.min_distance_internal() == pytest.approx(r["distance"]) and r["distance"] < 0
    # an open mesh (bunny2 has holes) overlapping: its depth is undefined, its distance 0
    cm.add_object("bunny", bunny, translation(0.8))
    d, names = cm.min_distance_internal(name="bunny", return_names=True)
    assert d <= 0 and "bunny" in names
    cm.close()


def test_hull():
    pts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.2, 0.2, 0.2]], dtype=np.float64)
    h = kcbp.Hull(pts)
    assert h.kind == "hull" and len(h.vertices) == 4
    assert kcbp.collide(h, kcbp.Sphere(0.1), pose_b=translation(0.1, 0.1, 0.1))["collide"]
    d = kcbp.distance(h, kcbp.Sphere(0.1), pose_b=translation(-1.0))["distance"]
    assert d == pytest.approx(0.9, abs=1e-9)
    with pytest.raises(ValueError):
        kcbp.Hull(np.zeros((4, 3), dtype=complex))
