"""trimesh-style code, second round: what trimesh users do beyond the calls
of test_trimesh_heldout.py (a simulation loop of set_transform over
meshes built in a loop, managers copied and pickled, names of any type,
meshes as they come out of files: int32/uint32 faces, lists, float32
vertices, unreferenced vertices, duplicate and degenerate faces, open
meshes; very large coordinates; threads; trimesh.proximity.signed_distance's
convention; shapely's buffered polygons, holes and multipolygons in the
2D manager), checked against independent answers: closed forms, brute
force (point-triangle distances and winding numbers over every triangle)
and shapely. trimesh and python-fcl are not installed here (no package
index): the differences from them are those of their documented code,
see docs/python.md ("trimesh-style code: what differs")."""
import copy
import ctypes
import gc
import math
import os
import pickle
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

from conftest import SPOT, kcbp
from kcbp import CollisionManager
from test_trimesh_heldout import box, icosphere, T, rot_z

COMPARED = {"calls": 0}
NS = types.SimpleNamespace


def _run_child(code):
    """code in a fresh interpreter importing this kcbp (a crash there is a
    failed assertion here, not a dead test run)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(kcbp.__file__)))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


# --- copies and pickles -----------------------------------------------------------

def test_copies_of_managers_and_geometries_do_not_share_c_memory():
    """copy.copy of a manager shared its C world: the copy's close() (or
    its collection) freed the world the original used, and both freed it
    at exit (munmap_chunk(): invalid pointer); a copied Mesh, Polygon or 2D
    manager freed the original's C data the same way (a segfault, or a
    wrong answer read from freed memory)."""
    code = r"""
import copy, gc, numpy as np, kcbp
v = np.array([[x, y, z] for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)])
f = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
              [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
def T(x):
    m = np.eye(4); m[0, 3] = x; return m
cm = kcbp.CollisionManager()
cm.add_object("a", kcbp.Mesh(v, f)); cm.add_object("b", kcbp.Mesh(v, f), T(0.9))
c2 = copy.copy(cm); c2.close(); del c2; gc.collect()
c3 = copy.deepcopy(cm); c3.set_transform("b", T(5)); del c3; gc.collect()
print(cm.in_collision_internal(return_names=True), round(cm.min_distance_internal(), 6))
m = kcbp.Mesh(v, f); m2 = copy.copy(m); m2.close(); del m2; gc.collect()
print(kcbp.collide(m, m, pose_b=T(0.9))["collide"], kcbp.collide(m, m, pose_b=T(1.1))["collide"])
s = kcbp.Sphere(0.5); s2 = copy.copy(s); s2.close()
print(kcbp.collide(s, m, pose_b=T(0.9))["collide"])
p = kcbp.Polygon([[0, 0], [4, 0], [4, 3], [0, 3]], holes=[[[1, 1], [2, 1], [2, 2], [1, 2]]])
q = copy.copy(p); q.close(); del q; gc.collect()
print(kcbp.collide(p, kcbp.Circle(0.6), pose_b=(1.5, 1.5, 0))["collide"], p.closed)
m2d = kcbp.CollisionManager2D(); m2d.add_object("p", p)
c4 = copy.copy(m2d); c4.close(); del c4; gc.collect()
c6, c4 = kcbp.Circle(0.6), kcbp.Circle(0.4)
print(m2d.in_collision_single(c6, (1.5, 1.5, 0)), m2d.in_collision_single(c4, (1.5, 1.5, 0)))
"""
    r = _run_child(code)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.split("\n")[:5] == ["(True, {('a', 'b')}) -0.1", "True False", "True", "True False",
                                         "True False"], r.stdout


def test_pickle_and_deepcopy_keep_every_answer():
    """trimesh's manager holds FCL objects and cannot be pickled; kcbp's
    could not either (a lock inside). Now pickle, copy and deepcopy give an
    independent manager of the same objects, names and transforms."""
    cm = CollisionManager()
    cm.add_object("bin", box((4, 4, 4)))
    cm.add_object(("part", 1), box(), rot_z(30, 0.3, 0.2, 0))
    cm.add_object(7, kcbp.Sphere(0.4), T(2.2, 0, 0))
    cm.add_object("hull", kcbp.Hull(icosphere(1, 0.5).vertices), T(0, 2.3, 0))
    cm.add_object("cap", kcbp.Capsule(0.2, 1.0), T(0, -2.1, 0))
    cm.add_object("cyl", kcbp.Cylinder(0.3, 0.5), T(0, 0, 5))
    cm.add_object("cube", kcbp.Box(1, 2, 3), T(0, 0, -5))
    want = (cm.in_collision_internal(return_names=True), cm.min_distance_internal(return_names=True),
            [cm.min_distance_internal(n) for n in ("bin", ("part", 1), 7, "cyl")],
            cm.min_distance_single(kcbp.Sphere(0.1), T(0, 0, 3.5), return_name=True))
    for make in (copy.copy, copy.deepcopy, lambda c: pickle.loads(pickle.dumps(c))):
        c2 = make(cm)
        assert isinstance(c2, CollisionManager) and c2 is not cm and len(c2) == len(cm)
        got = (c2.in_collision_internal(return_names=True), c2.min_distance_internal(return_names=True),
               [c2.min_distance_internal(n) for n in ("bin", ("part", 1), 7, "cyl")],
               c2.min_distance_single(kcbp.Sphere(0.1), T(0, 0, 3.5), return_name=True))
        assert got == want
        for n in cm._objs:
            assert np.array_equal(_matrix(c2, n), _matrix(cm, n))  # poses to the bit
        c2.set_transform(("part", 1), T(20, 0, 0))
        assert cm.in_collision_internal(return_names=True) == want[0]
        c2.close()
        assert cm.in_collision_internal(return_names=True) == want[0]
        COMPARED["calls"] += 4
    # geometries alone
    for g in (kcbp.Mesh(box().vertices, box().faces), kcbp.Sphere(0.3), kcbp.Box(1, 2, 3), kcbp.Capsule(0.1, 2),
              kcbp.Cylinder(0.2, 1), kcbp.Hull(icosphere(1).vertices)):
        g2 = pickle.loads(pickle.dumps(g))
        assert type(g2) is type(g) and repr(g2) == repr(g)
        assert kcbp.distance(g2, kcbp.Sphere(0.1), pose_b=T(3))["distance"] == \
            kcbp.distance(g, kcbp.Sphere(0.1), pose_b=T(3))["distance"]
    # a mesh its user closed while the manager holds it: still copied
    m = kcbp.Mesh(box().vertices, box().faces)
    c = CollisionManager()
    c.add_object("m", m)
    m.close()
    assert pickle.loads(pickle.dumps(c)).in_collision_single(box(), T(0.5)) is True
    assert pickle.loads(pickle.dumps(m)).closed is False  # its models still held by the manager
    c.close()
    with pytest.raises(kcbp.Error):
        pickle.dumps(m)  # closed and freed: nothing to copy
    with pytest.raises(kcbp.Error):
        copy.copy(c)


def _matrix(cm, name):
    return kcbp._api._matrix_of(cm._poses[name])


def test_pickle_of_2d_geometries_and_manager():
    shapely = pytest.importorskip("shapely.geometry")
    plate = kcbp.Polygon(shapely.Point(0, 0).buffer(2.0).difference(shapely.Point(0, 0).buffer(1.0)))
    cm = kcbp.CollisionManager2D()
    cm.add_object("plate", plate)
    cm.add_object("peg", kcbp.Circle(0.4), kcbp.pose2((0.1, 0.2), 0))
    cm.add_object("bar", kcbp.Rect(0.5, 3, 0.05), kcbp.pose2((3, 0), 30))
    cm.add_object("stadium", kcbp.Capsule2D(0.2, 1), kcbp.pose2((0, 3), 90))
    cm.add_object("tri", kcbp.ConvexPolygon([[0, 0], [1, 0], [0, 1]], 0.1), kcbp.pose2((-3, 0), 10))
    want = (cm.in_collision_internal(return_names=True), cm.min_distance_internal(return_names=True))
    for make in (copy.copy, copy.deepcopy, lambda c: pickle.loads(pickle.dumps(c))):
        c2 = make(cm)
        assert (c2.in_collision_internal(return_names=True), c2.min_distance_internal(return_names=True)) == want
        c2.close()
        assert cm.in_collision_internal(return_names=True) == want[0]
        COMPARED["calls"] += 2


# --- names -------------------------------------------------------------------------

def test_names_of_mixed_types_sort_without_typeerror():
    """Names of any hashable type, mixed: the pairs' sorting (trimesh's
    tuple(sorted(names))) raised TypeError for a str and a tuple; they are
    ordered by their text (str), as CollisionManager2D orders them, and
    names that compare as sorted() does."""
    cm = CollisionManager()
    cm.add_object("arm", box())
    cm.add_object(("link", 2), box(), T(0.9))
    cm.add_object(3, box(), T(1.8))
    cm.add_object(2.5, box(), T(10))
    hit, names = cm.in_collision_internal(return_names=True)
    # by their text where they do not compare: "('link', 2)" < "3" < "arm"
    assert hit and names == {(("link", 2), "arm"), (("link", 2), 3)}
    d, pair = cm.min_distance_internal(return_names=True)
    assert d == pytest.approx(-0.1, abs=1e-6) and set(pair) in ({"arm", ("link", 2)}, {3, ("link", 2)})
    assert cm.min_distance_internal(2.5, return_names=True) == (pytest.approx(7.2), (2.5, 3))
    # same-type names: sorted as trimesh's
    cm2 = CollisionManager()
    cm2.add_object("b", box())
    cm2.add_object("a", box(), T(0.5))
    assert cm2.in_collision_internal(return_names=True) == (True, {("a", "b")})
    # the 2D manager orders them the same way
    m2 = kcbp.CollisionManager2D()
    m2.add_object("arm", kcbp.Rect(1, 1))
    m2.add_object(("link", 2), kcbp.Rect(1, 1), (0.9, 0, 0))
    m2.add_object(3, kcbp.Rect(1, 1), (1.8, 0, 0))
    assert m2.in_collision_internal(return_names=True) == (hit, names)
    COMPARED["calls"] += 6


def test_readding_a_name_replaces_and_int_names_equal_to_true_are_one():
    """add_object of a name present replaces it (trimesh's documented
    behaviour); names are dict keys, so 1 and True are one name, as in
    trimesh's dict of objects."""
    cm = CollisionManager()
    cm.add_object("x", box())
    cm.add_object("y", box(), T(3))
    assert cm.in_collision_internal() is False
    cm.add_object("y", icosphere(2, 0.5), T(0.9))  # replaced, not added
    assert len(cm) == 2 and cm.in_collision_internal(return_names=True) == (True, {("x", "y")})
    cm.remove_object("y")
    assert len(cm) == 1 and cm.min_distance_internal() == math.inf
    cm.add_object(1, box(), T(5))
    cm.add_object(True, box(), T(0.5))
    assert len(cm) == 2 and cm.in_collision_internal() is True  # True replaced 1, at 0.5


# --- meshes as they come ------------------------------------------------------------

def _forms(b):
    """The box b as users hand it over: faces int32, uint32, uint8, lists
    of lists; vertices float32, lists; a Fortran-ordered copy."""
    v, f = b.vertices, b.faces
    yield NS(vertices=v, faces=f.astype(np.int32))
    yield NS(vertices=v, faces=f.astype(np.uint32))
    yield NS(vertices=v, faces=f.astype(np.uint8))
    yield NS(vertices=v.tolist(), faces=f.tolist())
    yield NS(vertices=v.astype(np.float32), faces=f)
    yield NS(vertices=np.asfortranarray(v), faces=np.asfortranarray(f))


def test_face_and_vertex_dtypes_give_the_same_answers():
    """The same bin and probe in every form users pass give the same
    answers (float32 vertices: to their rounding), and the closed forms."""
    probes = [T(0.3), T(2.0), T(4.6), T(0, 3.5), T(1.6, 0.1, 0.2)]
    # inside the bin; across its wall touching the wall; apart from the
    # wall; apart from both; across the bin's wall (out through +x: 0.9)
    want_hit = [(True, {"bin"}), (True, {"bin", "wall"}), (False, set()), (False, set()), (True, {"bin"})]
    want_d = [-2.2, -0.5, 0.6, 1.0, -0.9]
    for bin_form, probe in zip(_forms(box((4, 4, 4))), _forms(box())):
        cm = CollisionManager()
        cm.add_object("bin", bin_form)
        cm.add_object("wall", box((1, 4, 4)), T(3.0))
        assert cm._objs["bin"][1].faces.dtype == np.int64  # as trimesh's
        for p, wh, wd in zip(probes, want_hit, want_d):
            assert cm.in_collision_single(probe, p, return_names=True) == wh
            d = cm.min_distance_single(probe, p)
            if wd is not None and wd < 0:
                assert wd * 1.001 <= d <= wd + 1e-6
            elif wd is not None:
                assert d == pytest.approx(wd, abs=1e-6)
            COMPARED["calls"] += 2
        cm.close()


def _with_unreferenced(m, far=(50.0, -40.0, 30.0), first=True):
    v = np.vstack([[far], m.vertices]) if first else np.vstack([m.vertices, [far]])
    return NS(vertices=v, faces=m.faces + (1 if first else 0))


@pytest.mark.parametrize("first", [True, False])
def test_unreferenced_vertices_are_no_part_of_the_solid(first):
    """A mesh with a vertex no face uses (trimesh keeps them with
    process=False; FCL's Convex would even take them into the hull): kcbp's
    object is its faces. A part with a far unreferenced vertex inside a bin
    was not found inside (the candidate test read every vertex)."""
    cm = CollisionManager()
    cm.add_object("bin", _with_unreferenced(box((4, 4, 4)), first=first))
    part = _with_unreferenced(box(), first=first)
    assert cm.in_collision_single(part, T(0.3), return_names=True) == (True, {"bin"})
    # out through +x: 2 - (0.3 - 0.5) = 2.2
    assert -2.2 * 1.001 <= cm.min_distance_single(part, T(0.3)) <= -2.2
    cm.add_object("part", part, T(0.2))
    assert cm.in_collision_internal(return_names=True) == (True, {("bin", "part")})
    assert -2.3 * 1.001 <= cm.min_distance_internal() <= -2.3
    # far away, its unreferenced vertex at the bin's centre: no obstacle
    cm.set_transform("part", T(-50, 40, -30))
    assert cm.in_collision_internal() is False
    assert cm.min_distance_internal() == pytest.approx(math.hypot(47.5, 37.5, 27.5), abs=1e-9)
    COMPARED["calls"] += 5


def test_duplicate_sliver_and_open_meshes_hold_nothing():
    """A bin with a duplicated face, a zero-area face of three distinct
    vertices or a face missing is not a closed solid: trimesh hands such a
    mesh to FCL as a BVH (is_convex is False for a mesh that is not
    watertight), surfaces only, and kcbp counts no inside either
    (docs/python.md). Surface contacts are found as for the clean bin."""
    big = box((4, 4, 4))
    mid = (big.vertices[0] + big.vertices[1]) / 2
    bins = {
        "duplicate face": NS(vertices=big.vertices, faces=np.vstack([big.faces, big.faces[:1]])),
        "zero-area sliver": NS(vertices=np.vstack([big.vertices, mid]), faces=np.vstack([big.faces, [[0, 8, 1]]])),
        "open": NS(vertices=big.vertices, faces=big.faces[:10]),
    }
    for what, b in bins.items():
        cm = CollisionManager()
        cm.add_object("bin", b)
        assert cm.in_collision_single(box(), T(0.3)) is False, what
        assert cm.min_distance_single(box(), T(0.3)) == pytest.approx(1.2), what  # to the nearest face
        assert cm.in_collision_single(box(), T(1.8), return_names=True) == (True, {"bin"}), what
        assert cm.min_distance_single(box(), T(1.8)) == 0.0, what  # no inside: no depth
        COMPARED["calls"] += 4


def test_triangle_soups_and_repeated_index_faces_are_solids():
    """The library's solid (include/kcbp/solid.h) identifies vertices by
    their coordinates and skips triangles with a repeated vertex: a box as
    a triangle soup (an STL file's form; trimesh merges its vertices on
    load, process=True, and then hands it to FCL as a convex solid) and a
    box with an extra face [0, 0, 1] are closed. The manager's own test
    counted edges by vertex index and said open to both, so a part inside
    was missed while the pair's depth was measured."""
    big = box((4, 4, 4))
    soup = NS(vertices=big.vertices[big.faces].reshape(-1, 3), faces=np.arange(36).reshape(12, 3))
    rep_index = NS(vertices=big.vertices, faces=np.vstack([big.faces, [[0, 0, 1]]]))
    for what, b in (("soup", soup), ("repeated index", rep_index)):
        cm = CollisionManager()
        cm.add_object("bin", b)
        assert cm.in_collision_single(box(), T(0.3), return_names=True) == (True, {"bin"}), what
        assert -2.2 * 1.001 <= cm.min_distance_single(box(), T(0.3)) <= -2.2, what
        assert -0.7 * 1.001 <= cm.min_distance_single(box(), T(1.8)) <= -0.7, what
        cm.add_object("part", soup if what == "soup" else box(), T(0, 0.4, 0))
        assert cm.in_collision_internal(return_names=True) == (True, {("bin", "part")}), what
        COMPARED["calls"] += 4
    assert kcbp.Mesh(big.vertices, np.vstack([big.faces, [[0, 0, 1]]])).degenerate == 1


# --- transforms ---------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_transform_none_is_the_identity_of_every_form():
    forms = [None, np.eye(4), np.eye(4, dtype=np.float32), np.eye(4, dtype=np.int64), np.eye(4).tolist(),
             np.asmatrix(np.eye(4))]
    ans = []
    for tf in forms:
        cm = CollisionManager()
        cm.add_object("a", box(), tf)
        cm.add_object("b", icosphere(2, 0.5), T(1.2))
        ans.append((cm.in_collision_internal(), cm.min_distance_internal(return_names=True),
                    cm.in_collision_single(box(), tf), cm.min_distance_single(kcbp.Sphere(0.1), tf)))
        COMPARED["calls"] += 4
    assert all(a == ans[0] for a in ans)
    assert ans[0][1] == (pytest.approx(0.2), ("a", "b")) and ans[0][2] is True


def test_very_large_coordinates_are_exact_for_the_coordinates_given():
    """Boxes a million to a trillion units out: the yes/no answers are those
    of the float64 coordinates (trimesh rounds add_object's transform to
    float32, whose step at 1e6 is 0.0625); distances apart are exact to
    rounding, and a touching pair is 0."""
    for s in (1e6, 1e9, 1e12):
        cm = CollisionManager()
        cm.add_object("a", box(), T(s, -s, s))
        cm.add_object("b", box(), T(s + 1.0, -s, s))  # faces at s + 0.5 both: touching
        assert cm.in_collision_internal() is True
        assert cm.min_distance_internal() == 0.0
        gap = 2.0 ** (math.floor(math.log2(s)) - 42)  # 1024 units of the coordinates' last place
        cm.set_transform("b", T(s + 1.0 + gap, -s, s))
        assert cm.in_collision_internal() is False
        assert cm.min_distance_internal() == pytest.approx(gap, rel=1e-3)
        cm.set_transform("b", T(s + 1.5, -s, s))
        assert cm.min_distance_internal() == pytest.approx(0.5, abs=1e-9 * s)
        assert cm.in_collision_single(kcbp.Sphere(0.25), T(s - 0.75, -s, s)) is True  # touches a's face
        assert cm.in_collision_single(kcbp.Sphere(0.25), T(s - 0.76, -s, s)) is False
        COMPARED["calls"] += 6


# --- a simulation loop ------------------------------------------------------------------

def test_simulation_loop_of_1000_steps_does_not_grow():
    """A manager built from a list of meshes in a loop, then 1000 steps of
    set_transform on every object and a query, as a trimesh simulation
    runs, the pile growing (more touching pairs in the last 700 steps than
    in the first 300). Every step's pairs are checked against the closed
    form of boxes on a line; over the last 700 steps, ctypes must hold no
    new type (each count of pairs never met before made a ctypes array
    type that ctypes keeps for good: about 1 KB each, for the life of the
    process), and the resident size (the C side's memory too) must not
    grow."""
    n = 60
    meshes = [box((1.0, 1.0, 1.0)) for _ in range(n)]
    cm = CollisionManager()
    for i, m in enumerate(meshes):
        cm.add_object("body%d" % i, m, T(2.0 * i))

    def step(k, most):
        # the first m objects packed at spacing 0.9 (each overlapping its
        # neighbours by 0.1), the rest 2 apart: m - 1 touching pairs
        m = 1 + (k * 7) % most
        for i in range(n):
            cm.set_transform("body%d" % i, T(0.9 * i if i < m else 2.0 * i + 100.0, 0.0, 0.001 * (k % 3)))
        hit, names = cm.in_collision_internal(return_names=True)
        assert hit == (m > 1) and names == {tuple(sorted(("body%d" % i, "body%d" % (i + 1)))) for i in range(m - 1)}
        # a trimesh-like sphere mesh passed at every step (kept, not
        # rebuilt), wholly inside the last packed box: held by it alone
        assert cm.in_collision_single(probe, T(0.9 * (m - 1), 0.0, 0.0), return_names=True) == \
            (True, {"body%d" % (m - 1)})
        if k % 100 == 0:
            d = cm.min_distance_internal()
            if m > 1:
                assert -0.1 * 1.001 <= d <= -0.1 + 1e-12
            else:
                assert d == pytest.approx(1.0, abs=1e-12)
            COMPARED["calls"] += 1
        COMPARED["calls"] += 1

    probe = icosphere(1, 0.2)

    def rss():  # resident memory (the C side's too), where /proc tells it
        try:
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            return 0

    ctypes_types = _ctypes_types  # array and pointer types ctypes holds

    for k in range(300):
        step(k, 20)
    gc.collect()
    rss_before, types_before = rss(), ctypes_types()
    for k in range(300, 1000):
        step(k, n)
    gc.collect()
    rss_after, types_after = rss(), ctypes_types()
    assert types_after == types_before, (types_before, types_after)
    assert rss_after - rss_before < 2 * 1024 * 1024, (rss_before, rss_after)
    # contacts with return_data, two sphere meshes sinking into each other:
    # a new count of triangle pairs at nearly every step (kcbp.collide read
    # them through np.ctypeslib.as_array, a ctypes pointer type per count,
    # kept in ctypes' cache for good)
    balls = CollisionManager()
    balls.add_object("a", icosphere(3, 0.5))
    balls.add_object("b", icosphere(3, 0.5), T(1.0))
    counts = set()

    def sink(k):
        balls.set_transform("b", rot_z(7 * k, 0.98 - 0.002 * k))  # turning, sinking 0.02 to 0.32
        hit, data = balls.in_collision_internal(return_data=True)
        assert hit is True and data and all(0 < c.depth < 0.5 for c in data)
        counts.add(len(data))

    sink(0)
    gc.collect()
    types_before = ctypes_types()
    for k in range(1, 150):
        sink(k)
    gc.collect()
    assert ctypes_types() == types_before and len(counts) > 40, (types_before, ctypes_types(), len(counts))
    COMPARED["calls"] += 150


def _ctypes_types():
    return sum(1 for o in gc.get_objects() if isinstance(o, type) and issubclass(o, (ctypes.Array, ctypes._Pointer)))


def test_meshes_of_many_sizes_leave_no_ctypes_types():
    """A loop adding meshes of ever new sizes (trimesh meshes loaded one
    after another) and reading them back: the arrays were read through
    np.ctypeslib.as_array, a ctypes pointer type per shape kept for good."""
    b = box()
    cm = CollisionManager()
    cm.add_object("seed", _with_unreferenced(b))
    _ = cm._objs["seed"][1].vertices, kcbp.Hull(b.vertices).vertices
    gc.collect()
    before = _ctypes_types()
    for k in range(1, 60):
        v = np.vstack([b.vertices, np.full((k, 3), 9.0)])  # k unreferenced vertices: a new size
        cm.add_object("m%d" % k, NS(vertices=v, faces=b.faces), T(2.0 * k))
        m = cm._objs["m%d" % k][1]
        assert m.vertices.shape == (8 + k, 3) and m.faces.shape == (12, 3)
        h = kcbp.Hull(np.vstack([b.vertices * (1 + 0.01 * j) for j in range(1 + k % 7)]))
        assert h.vertices.shape[1] == 3
    assert cm.min_distance_internal() == pytest.approx(1.0)
    gc.collect()
    assert _ctypes_types() == before
    COMPARED["calls"] += 1


def test_threads_share_a_manager():
    """Threads moving objects and querying one manager take turns: no
    error, and the final answers are those of a manager built afresh at the
    final transforms."""
    cm = CollisionManager()
    for i in range(12):
        cm.add_object(i, box() if i % 2 else icosphere(1, 0.5), T(1.05 * i))
    final = {}
    errors = []
    lock = threading.Lock()

    def work(tid):
        try:
            rng = np.random.default_rng(tid)
            for k in range(150):
                i = int(rng.integers(0, 12))
                if tid % 2:
                    m = T(1.05 * i + float(rng.uniform(-0.1, 0.1)))
                    with lock:
                        cm.set_transform(i, m)
                        final[i] = m
                else:
                    cm.in_collision_internal(return_names=True)
                    cm.min_distance_single(kcbp.Sphere(0.2), T(3, 2))
                    cm.in_collision_single(box(), T(k * 0.1, 0, 0))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    fresh = CollisionManager()
    for i in range(12):
        fresh.add_object(i, box() if i % 2 else icosphere(1, 0.5), final.get(i, T(1.05 * i)))
    assert cm.in_collision_internal(return_names=True) == fresh.in_collision_internal(return_names=True)
    assert cm.min_distance_internal() == fresh.min_distance_internal()
    COMPARED["calls"] += 2


# --- two managers --------------------------------------------------------------------------

def test_other_manager_data_names_and_points():
    """in_collision_other / min_distance_other with return_data: the names
    (this manager's, the other's), each contact's triangles on the mesh
    side and -1 on a shape's, and DistanceData's points that many apart."""
    a, b = CollisionManager(), CollisionManager()
    a.add_object("a0", box())
    a.add_object("a1", icosphere(2, 0.5), T(3))
    b.add_object("b0", kcbp.Sphere(0.3), T(0.7))
    b.add_object("b1", box(), T(3.9))
    b.add_object("b2", box(), T(0, 5))
    hit, names, data = a.in_collision_other(b, return_names=True, return_data=True)
    assert hit and names == {("a0", "b0"), ("a1", "b1")}
    assert b.in_collision_other(a, return_names=True) == (True, {("b0", "a0"), ("b1", "a1")})
    for c in data:
        assert c.names in ({"a0", "b0"}, {"a1", "b1"})
        if "b0" in c.names:
            assert c.index("b0") == -1 and c.index("a0") in range(12)
            assert c.depth == pytest.approx(0.1, abs=1e-6)
            assert c.normal == pytest.approx([1, 0, 0], abs=1e-9)  # from a's toward b's
        else:
            assert c.index("a1") >= 0 and c.index("b1") in range(12)
    d, pair, dd = a.min_distance_other(b, return_names=True, return_data=True)
    assert d == pytest.approx(-0.1, abs=1e-4) and dd.names == set(pair)
    assert pair in {("a0", "b0"), ("a1", "b1")}
    # the deepest points: b's moved by the depth along the normal meets a's
    assert np.linalg.norm(dd.point(pair[0]) - dd.point(pair[1])) == pytest.approx(-d, abs=1e-6)
    b.set_transform("b0", T(0, 0, 2.0))
    b.set_transform("b1", T(4.6))
    d, pair, dd = a.min_distance_other(b, return_names=True, return_data=True)
    # a1's nearest point toward +x is its vertex at x = 3.5: 0.6 to b1's face at 4.1;
    # b0 is 2 - 0.5 - 0.3 = 1.2 from a0
    assert pair == ("a1", "b1") and d == pytest.approx(0.6, abs=1e-12)
    assert np.linalg.norm(dd.point("a1") - dd.point("b1")) == pytest.approx(0.6, abs=1e-12)
    COMPARED["calls"] += 6


def test_empty_managers_on_either_side():
    """An empty manager against a full one (trimesh: False, and FCL's
    distance for no pair): in_collision_other from the empty side raised
    ValueError from numpy (a reduction over no objects) once the other held
    a closed mesh."""
    full, empty = CollisionManager(), CollisionManager()
    full.add_object("bin", box((4, 4, 4)))
    full.add_object("ball", kcbp.Sphere(0.5), T(5))
    for a, b in ((empty, full), (full, empty), (empty, empty)):
        assert a.in_collision_other(b) is False
        assert a.in_collision_other(b, return_names=True, return_data=True) == (False, set(), [])
        assert a.min_distance_other(b, return_names=True, return_data=True) == (math.inf, (None, None), None)
    assert empty.in_collision_single(box()) is False
    assert empty.in_collision_internal(return_names=True) == (False, set())
    assert empty.min_distance_single(box(), return_name=True) == (math.inf, None)
    assert empty.min_distance_internal(return_names=True, return_data=True) == (math.inf, (None, None), None)
    COMPARED["calls"] += 10


# --- trimesh.Scene ----------------------------------------------------------------------------

class _Graph:
    """trimesh's SceneGraph as scene_to_collision reads it: nodes_geometry,
    and graph[node] -> (the node's world transform, its geometry's name),
    the product of the frames from the root down."""

    def __init__(self, edges, geometry_of):
        self.edges, self.geometry_of = edges, geometry_of

    @property
    def nodes_geometry(self):
        return list(self.geometry_of)

    def __getitem__(self, node):
        m, at = np.eye(4), node
        while at is not None:
            parent, local = self.edges[at]
            m = local @ m
            at = parent
        return m, self.geometry_of.get(node)


def test_scene_graph_of_nested_transforms():
    """A trimesh.Scene whose geometry nodes hang under moving frames (an
    arm: base, shoulder turned 90 degrees, a hand at the tip): the manager
    of scene_to_collision holds every node at its world transform, and
    moving a node's frame is a set_transform of its new world transform."""
    edges = {"base": (None, T(0, 0, 0)), "shoulder": ("base", rot_z(90, 0, 0, 0.5)),
             "forearm": ("shoulder", T(1.0, 0, 0)), "hand": ("forearm", T(1.0, 0, 0)),
             "table": (None, T(0, 2.6, 0))}
    geometry_of = {"base": "block", "forearm": "block", "hand": "ball", "table": "slab"}
    scene = NS(geometry={"block": box((0.5, 0.5, 0.5)), "ball": icosphere(2, 0.3), "slab": box((4, 0.2, 4))},
               graph=_Graph(edges, geometry_of))
    manager, objects = kcbp.scene_to_collision(scene)
    assert set(objects) == set(geometry_of)
    # the shoulder's turn sends the arm along +y: forearm at y = 1, hand at y = 2
    assert objects["hand"].transform[:3, 3] == pytest.approx([0, 2, 0.5])
    # hand (radius 0.3 at y = 2) to the slab's face at y = 2.5: 0.2 (the icosphere's pole is on y)
    d, names = manager.min_distance_internal(return_names=True)
    hand_reach = float(icosphere(2, 0.3).vertices[:, 1].max())
    assert names == ("hand", "table") and d == pytest.approx(2.5 - 2 - hand_reach, abs=1e-12)
    assert manager.in_collision_internal() is False
    edges["shoulder"] = ("base", rot_z(90, 0, 0.35, 0.5))  # the arm slides 0.35 toward the table
    for node in geometry_of:
        manager.set_transform(node, scene.graph[node][0])
    assert manager.in_collision_internal(return_names=True) == (True, {("hand", "table")})
    COMPARED["calls"] += 4


# --- signed distance: kcbp's sign against trimesh.proximity.signed_distance --------------

def _closest_distance(V, F, p):
    """The distance from p to the nearest triangle (brute force, Ericson's
    regions, every triangle)."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    ab, ac, ap, bp, cp = b - a, c - a, p - a, p - b, p - c
    d1, d2, d3, d4 = (ab * ap).sum(1), (ac * ap).sum(1), (ab * bp).sum(1), (ac * bp).sum(1)
    d5, d6 = (ab * cp).sum(1), (ac * cp).sum(1)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        den = va + vb + vc
        q = a + ab * (vb / den)[:, None] + ac * (vc / den)[:, None]
        done = np.zeros(len(F), dtype=bool)
        for mask, val in (((d1 <= 0) & (d2 <= 0), a), ((d3 >= 0) & (d4 <= d3), b),
                          ((vc <= 0) & (d1 >= 0) & (d3 <= 0), a + ab * (d1 / (d1 - d3))[:, None]),
                          ((d6 >= 0) & (d5 <= d6), c),
                          ((vb <= 0) & (d2 >= 0) & (d6 <= 0), a + ac * (d2 / (d2 - d6))[:, None]),
                          ((va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0),
                           b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))[:, None])):
            m = mask & ~done
            q[m] = val[m]
            done |= m
    return float(np.sqrt(((q - p) ** 2).sum(1)).min())


def _winding_number(V, F, p):
    """The generalised winding number of the closed mesh around p (1 inside,
    0 outside): Van Oosterom and Strackee's solid angles, summed."""
    a, b, c = V[F[:, 0]] - p, V[F[:, 1]] - p, V[F[:, 2]] - p
    la, lb, lc = (np.linalg.norm(x, axis=1) for x in (a, b, c))
    det = (a * np.cross(b, c)).sum(1)
    den = la * lb * lc + (a * b).sum(1) * lc + (b * c).sum(1) * la + (c * a).sum(1) * lb
    return float(2 * np.arctan2(det, den).sum() / (4 * math.pi))


def test_signed_distance_sign_is_trimeshs_negated_on_a_non_convex_mesh():
    """trimesh.proximity.signed_distance(mesh, points) is positive INSIDE
    and negative outside (the distance to the surface, signed by
    containment). kcbp's signed distances are those of FCL's
    enable_signed_distance, the other way: negative when overlapping. A
    point asked as a tiny sphere of radius r (kcbp.Sphere needs r > 0):
    kcbp.distance(mesh, Sphere(r) at p, signed=True)["distance"] + r is
    minus trimesh's value, within the depth bracket's width, on spot (a
    closed, non-convex mesh), against brute force over every triangle and
    the winding number. The manager's min_distance_single agrees."""
    spot = kcbp.load(SPOT)
    V, F = spot.vertices, spot.faces
    cm = CollisionManager()
    cm.add_object("spot", spot)
    rng = np.random.default_rng(7)
    lo, hi = V.min(axis=0), V.max(axis=0)
    r = 1e-4
    inside = outside = 0
    for _ in range(30):
        p = rng.uniform(lo, hi)
        d = _closest_distance(V, F, p)
        wn = _winding_number(V, F, p)
        if d < 10 * r or abs(wn - round(wn)) > 1e-6:
            continue
        wn = abs(round(wn))
        trimesh_sd = d if wn == 1 else -d  # trimesh's convention: positive inside
        res = kcbp.distance(spot, kcbp.Sphere(r), pose_b=T(*p), signed=True, depth_tolerance=1e-4, max_steps=512)
        kcbp_sd = res["distance"] + r
        if wn == 1:
            inside += 1
            assert res["status"] == "bracketed" and res["distance"] < 0
            # the proven bracket of the sphere's depth, d + r, holds trimesh's distance
            assert res["depth_lower"] - r - 1e-9 <= trimesh_sd <= res["depth_upper"] - r + 1e-9
            assert kcbp_sd == pytest.approx(-trimesh_sd, rel=1e-3)
        else:
            outside += 1
            assert res["status"] == "apart" and kcbp_sd == pytest.approx(-trimesh_sd, abs=1e-12)
        got = cm.min_distance_single(kcbp.Sphere(r), T(*p)) + r
        assert got == pytest.approx(-trimesh_sd, rel=2e-3, abs=1e-12)
        COMPARED["calls"] += 2
    assert inside >= 3 and outside >= 3


# --- 2D: shapely's buffered polygons, holes and multipolygons ---------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_manager2d_with_shapely_buffers_holes_and_multipolygons(seed):
    """Shapely geometries as users make them (point and line buffers with
    round caps, polygons with holes cut by difference, multipolygons of a
    union) in CollisionManager2D at random poses: each pair's intersects()
    and distance() from shapely on the posed geometries."""
    sg = pytest.importorskip("shapely.geometry")
    affinity = pytest.importorskip("shapely.affinity")
    ops = pytest.importorskip("shapely.ops")
    rng = np.random.default_rng(100 + seed)
    shapes = [
        sg.Point(0, 0).buffer(1.0),
        sg.LineString([(0, 0), (2, 0.5), (3, -1)]).buffer(0.3),
        sg.box(-1.5, -1, 1.5, 1).difference(sg.Point(0, 0).buffer(0.6)),
        ops.unary_union([sg.box(0, 0, 1, 1), sg.box(2, 0, 3, 1)]),
        sg.Polygon([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)]),
        sg.Point(0, 0).buffer(1.2).difference(sg.Point(0, 0).buffer(0.8)),
    ]
    cm = kcbp.CollisionManager2D()
    posed = {}
    for i, s in enumerate(shapes):
        x, y, deg = float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)), float(rng.uniform(0, 360))
        cm.add_object("s%d" % i, s, kcbp.pose2((x, y), deg))
        posed["s%d" % i] = affinity.translate(affinity.rotate(s, deg, origin=(0, 0)), x, y)
    names = sorted(posed)
    want = {(p, q) for i, p in enumerate(names) for q in names[i + 1:] if posed[p].intersects(posed[q])}
    hit, got = cm.in_collision_internal(return_names=True)
    # shapely's intersects is in floating point: pairs within 1e-9 may differ
    near = {(p, q) for i, p in enumerate(names) for q in names[i + 1:] if abs(posed[p].distance(posed[q])) < 1e-9}
    assert got - near == want - near and hit == bool(got)
    for n in names:
        apart = [posed[n].distance(posed[m]) for m in names if m != n and (min(n, m), max(n, m)) not in want]
        d = cm.min_distance_internal(n)
        if all((min(n, m), max(n, m)) not in want for m in names if m != n):
            assert d == pytest.approx(min(apart), abs=1e-9)
        else:
            assert d <= 1e-9
    probe = sg.Point(0, 0).buffer(0.5)
    for _ in range(8):
        x, y = float(rng.uniform(-4, 4)), float(rng.uniform(-4, 4))
        pp = affinity.translate(probe, x, y)
        w = {n for n in names if posed[n].intersects(pp)}
        nr = {n for n in names if posed[n].distance(pp) < 1e-9}
        hit, got = cm.in_collision_single(probe, kcbp.pose2((x, y), 0), return_names=True)
        assert got - nr == w - nr
        if not w and not nr:
            d, nm = cm.min_distance_single(probe, kcbp.pose2((x, y), 0), return_name=True)
            assert d == pytest.approx(min(posed[n].distance(pp) for n in names), abs=1e-9)
        COMPARED["calls"] += 2
    COMPARED["calls"] += 1 + len(names)


def test_count_of_compared_calls():
    """Runs last in this file: how many manager calls were compared."""
    print("\ntrimesh-style calls compared (second round): %d" % COMPARED["calls"])
    assert COMPARED["calls"] >= 1000
