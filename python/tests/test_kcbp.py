"""Tests of the Python package, against the kcbp program where it can say.

make test runs them (scripts/python_test.sh) against the package pip
installed in a throwaway venv. By hand, after `make`, either the same way or
from the tree: KCBP_TEST_FROM_TREE=1 python3 -m pytest python/tests."""
import json
import math
import os

import numpy as np
import pytest

from conftest import BUNNY, CUBE, EXE, ROOT, SPOT, kcbp, run_cli  # noqa: F401
def axis_angle_matrix(p):
    """4x4 matrix of a 7-number pose (Rodrigues)."""
    t, axis, deg = np.array(p[:3]), np.array(p[3:6], dtype=float), p[6]
    n = np.linalg.norm(axis)
    u = axis / n if n > 0 else np.array([0.0, 0.0, 1.0])
    th = math.radians(deg)
    k = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    m = np.eye(4)
    m[:3, :3] = np.eye(3) + math.sin(th) * k + (1 - math.cos(th)) * (k @ k)
    m[:3, 3] = t
    return m


def random_poses(n, seed, spread):
    rng = np.random.default_rng(seed)
    t = rng.uniform(-spread, spread, size=(n, 3))
    axes = rng.normal(size=(n, 3))
    deg = rng.uniform(-180, 180, size=(n, 1))
    return np.hstack([t, axes, deg])


def write_poses(path, poses):
    with open(path, "w") as f:
        f.write("# python test poses\n")
        for p in poses:
            f.write(" ".join(repr(float(x)) for x in p) + "\n")


# --- load, Mesh -------------------------------------------------------------

def test_load_counts_match_cli(bunny):
    r = run_cli("collide", BUNNY, BUNNY, "--pose-b", "10 0 0 0 0 1 0")[0]
    assert bunny.vertices.shape == (r["a"]["vertices"], 3)
    assert bunny.faces.shape == (r["a"]["triangles"], 3)
    assert bunny.degenerate == r["a"]["degenerate_triangles"]
    assert bunny.cbp_planes == r["a"]["cbp_planes"]
    assert len(bunny) == r["a"]["triangles"]


def test_mesh_from_arrays_matches_loaded(bunny):
    m = kcbp.Mesh(bunny.vertices, bunny.faces)
    assert np.array_equal(m.vertices, bunny.vertices) and np.array_equal(m.faces, bunny.faces)
    poses = random_poses(50, 7, 0.1)
    assert np.array_equal(kcbp.collide_many(m, m, poses), kcbp.collide_many(bunny, bunny, poses))


def test_mesh_from_lists():
    tri = kcbp.Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    assert len(tri) == 1
    assert kcbp.collide(tri, tri)["collide"]
    assert not kcbp.collide(tri, tri, pose_b=(0, 0, 1, 0, 0, 1, 0))["collide"]


@pytest.mark.parametrize("verts,faces,what", [
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]], "indices"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, -1]], "indices"),
    ([[0, 0, 0], [1, 0, 0]], [[0, 1]], "faces"),
    ([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]], "vertices"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2.5]], "whole"),
    ([[0, 0, 0], [1, 0, math.nan], [0, 1, 0]], [[0, 1, 2]], "finite"),
    ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [], "faces"),
])
def test_mesh_rejects_bad_arrays(verts, faces, what):
    with pytest.raises(kcbp.Error) as e:
        kcbp.Mesh(verts, faces)
    assert what in str(e.value)


def test_load_errors_carry_kcbps_message(tmp_path):
    with pytest.raises(kcbp.Error) as e:
        kcbp.load(tmp_path / "missing.obj")
    assert e.value.code == "io" and "missing.obj" in str(e.value)
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nf 1 2 3\n")
    with pytest.raises(kcbp.Error) as e:
        kcbp.load(bad)
    assert e.value.code == "parse" and "bad.obj:3" in str(e.value)
    with pytest.raises(kcbp.Error):
        kcbp.load(BUNNY, k=3)


# --- collide ------------------------------------------------------------------

@pytest.mark.parametrize("pose", ["0.05 0 0 0 0 1 30", "0.3 0.1 0 1 1 0 90", "3 0 0 0 0 1 0"])
@pytest.mark.parametrize("contacts", ["none", "first", "all"])
def test_collide_matches_cli(bunny, spot, pose, contacts):
    cli = run_cli("collide", BUNNY, SPOT, "--pose-b", pose, "--contacts", contacts)[0]
    py = kcbp.collide(bunny, spot, pose_b=[float(x) for x in pose.split()], contacts=contacts)
    # The CLI's lines may leave out what was not asked for (no "contacts"
    # with --contacts none in lean lines); the package always gives it.
    for key in ("collide", "decided_by", "contacts", "a", "b"):
        if key in cli or key not in ("contacts",):
            assert py[key] == cli[key], key
    assert py["contacts"] == cli.get("contacts", [])
    assert ("cbp" in py) == ("cbp" in cli)
    if "cbp" in cli:
        assert py["cbp"].keys() == cli["cbp"].keys()
        assert py["cbp"]["separated"] == cli["cbp"]["separated"]
    assert py["stats"]["box_pairs"] == cli["stats"]["box_pairs"]
    assert py["stats"]["triangle_pairs"] == cli["stats"]["triangle_pairs"]


def test_collide_pose_a_and_paths(bunny):
    far = (5, 0, 0, 0, 0, 1, 0)
    assert not kcbp.collide(bunny, bunny, pose_a=far)["collide"]
    assert kcbp.collide(bunny, bunny, pose_a=far, pose_b=far)["collide"]
    assert kcbp.collide(BUNNY, CUBE)["collide"] in (True, False)  # paths are loaded


def test_collide_no_cbp(bunny):
    r = kcbp.collide(bunny, bunny, pose_b=(0.05, 0, 0, 0, 0, 1, 30), k=0)
    assert r["collide"] and "cbp" not in r


def test_matrix_pose_equals_seven_numbers(bunny):
    for p in [(0, 0, 0, 0, 0, 1, 0), (5, 1, 0, 1, 2, 3, 40), (0.01, 0.02, 0, 0, 1, 0, 10)]:
        a = kcbp.collide(bunny, bunny, pose_b=p, contacts="all")
        b = kcbp.collide(bunny, bunny, pose_b=axis_angle_matrix(p), contacts="all")
        assert a["collide"] == b["collide"]


@pytest.mark.parametrize("pose,what", [
    ((1, 2, 3), "7 numbers"),
    ("abc", "7 numbers"),
    (np.diag([1.0, 1.0, 2.0, 1.0]), "rigid"),
    (np.diag([1.0, 1.0, -1.0, 1.0]), "rigid"),
    (np.array([[1.0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]]), "last row"),
    ((0, 0, 0, 0, 0, 0, 10), "axis"),
    ((math.inf, 0, 0, 0, 0, 1, 0), "pose"),
])
def test_bad_poses_raise(bunny, pose, what):
    with pytest.raises(kcbp.Error) as e:
        kcbp.collide(bunny, bunny, pose_b=pose)
    assert what in str(e.value)


def test_bad_arguments_raise(bunny):
    with pytest.raises(kcbp.Error):
        kcbp.collide(bunny, bunny, contacts="some")
    with pytest.raises(kcbp.Error):
        kcbp.collide(bunny, 42)
    with pytest.raises(kcbp.Error):
        kcbp.collide(bunny, bunny, k=2)
    with pytest.raises(kcbp.Error):
        kcbp.collide(bunny, bunny, margin=-1)


def test_features_not_in_this_libkcbp_say_so(bunny):
    if not kcbp._lib.has_member("kcbp_collide_options.solid"):
        with pytest.raises(kcbp.Error) as e:
            kcbp.collide(bunny, bunny, solid=True)
        assert "not supported" in str(e.value) and e.value.code == "unsupported"
    if not hasattr(kcbp._lib.lib, "kcbp_distance"):
        with pytest.raises(kcbp.Error) as e:
            kcbp.distance(bunny, bunny)
        assert "not available" in str(e.value)
        with pytest.raises(kcbp.Error) as e:
            kcbp.collide(bunny, bunny, margin=0.1)
        assert "not supported" in str(e.value)
    else:
        d = kcbp.distance(bunny, bunny, pose_b=(5, 0, 0, 0, 0, 1, 0))
        assert d["within"] and d["distance"] > 0
        r = kcbp.collide(bunny, bunny, pose_b=(5, 0, 0, 0, 0, 1, 0), margin=10)
        assert r["collide"] and r["decided_by"] == "margin"


def test_defaults_agree_with_cli(bunny, tmp_path):
    """One --contacts default (first) for kcbp.collide, kcbp.Scene and the
    CLI's collide and scene; one clearance name (margin) for distance."""
    pose = (0.05, 0, 0, 0, 0, 1, 30)
    r = kcbp.collide(bunny, bunny, pose_b=pose)
    cli = run_cli("collide", BUNNY, BUNNY, "--pose-b", " ".join(map(str, pose)))[0]
    assert r["collide"] and len(r["contacts"]) == 1 and r["contacts"] == cli["contacts"]
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(SCENE))
    scene_cli = run_cli("scene", path, "--mesh-root", os.path.join(ROOT, "meshes"))
    with kcbp.Scene(path) as scene:
        reports = list(scene)
    assert [r["colliding"] for r in reports] == [c["colliding"] for c in scene_cli]
    assert any("contacts" in p for c in scene_cli for p in c["colliding"])
    if hasattr(kcbp._lib.lib, "kcbp_distance"):
        far = (5, 0, 0, 0, 0, 1, 0)
        a = kcbp.distance(bunny, bunny, pose_b=far, margin=0.1)
        b = kcbp.distance(bunny, bunny, pose_b=far, max_distance=0.1)
        c = run_cli("distance", BUNNY, BUNNY, "--pose-b", " ".join(map(str, far)), "--margin", "0.1")[0]
        assert not a["within"] and a["farther_than"] == b["farther_than"] == c["farther_than"] == 0.1
        with pytest.raises(kcbp.Error):
            kcbp.distance(bunny, bunny, margin=0.1, max_distance=0.1)


def test_sweep_matches_cli(bunny, spot, tmp_path):
    sweeps = [((3, 0, 0, 0, 0, 1, 0), (-3, 0, 0, 0, 0, 1, 0)),
              ((3, 0.2, 0.1, 1, 1, 0, 30), (-3, -0.1, 0, 0, 1, 1, 200)),
              ((3, 3, 0, 0, 0, 1, 0), (3, -3, 0, 0, 1, 0, 180))]
    path = tmp_path / "sweeps.txt"
    path.write_text("".join(" ".join(repr(float(x)) for x in f + t) + "\n" for f, t in sweeps))
    lines = run_cli("sweep", BUNNY, SPOT, "--sweeps", path)
    assert [line["sweep"] for line in lines] == [0, 1, 2]
    for (f, t), line in zip(sweeps, lines):
        r = kcbp.sweep(bunny, spot, f, t)
        assert (r["toi"] is None) == (line["toi"] is None)
        if r["toi"] is not None:
            assert r["toi"] == line["toi"] and r["contacts"] == line["contacts"]
            assert r["distance"] <= 1e-9 * r["stats"]["motion_bound"] + 1e-12
    assert lines[0]["toi"] is not None and lines[2]["toi"] is None
    with pytest.raises(kcbp.Error):
        kcbp.sweep(bunny, spot, sweeps[0][0], sweeps[0][1], tolerance=0)


# --- collide_many -------------------------------------------------------------

def test_collide_many_matches_cli_pose_file(bunny, spot, tmp_path):
    poses = random_poses(300, 19, 0.9)
    path = tmp_path / "poses.txt"
    write_poses(path, poses)
    lines = run_cli("collide", BUNNY, SPOT, "--poses", path, "--contacts", "none")
    cli = np.array([line["collide"] for line in lines])
    assert [line["pose"] for line in lines] == list(range(len(poses)))
    py = kcbp.collide_many(bunny, spot, poses)
    assert py.dtype == np.bool_ and py.shape == (300,)
    assert np.array_equal(py, cli)
    assert 0 < cli.sum() < len(cli)  # both answers occur
    # one query at a time gives the same answers
    assert [kcbp.collide(bunny, spot, pose_b=p)["collide"] for p in poses[:40]] == list(cli[:40])


def test_collide_many_matrices(bunny):
    seven = np.array([(0, 0, 0, 0, 0, 1, 0), (5, 1, 0, 1, 2, 3, 40), (0.01, 0.02, 0, 0, 1, 0, 10),
                      (-4, 0, 0, 1, 0, 0, 90)])
    mats = np.stack([axis_angle_matrix(p) for p in seven])
    assert list(kcbp.collide_many(bunny, bunny, mats)) == [True, False, True, False]
    assert list(kcbp.collide_many(bunny, bunny, seven)) == [True, False, True, False]
    assert kcbp.collide_many(bunny, bunny, np.zeros((0, 7))).shape == (0,)


def test_collide_many_errors(bunny):
    with pytest.raises(kcbp.Error):
        kcbp.collide_many(bunny, bunny, np.zeros((3, 6)))
    bad = np.zeros((2, 7))
    bad[1, 6] = 5  # a zero axis with a non-zero angle
    with pytest.raises(kcbp.Error) as e:
        kcbp.collide_many(bunny, bunny, bad)
    assert "pose 1" in str(e.value)
    mats = np.stack([np.eye(4), np.diag([2.0, 1, 1, 1])])
    with pytest.raises(kcbp.Error) as e:
        kcbp.collide_many(bunny, bunny, mats)
    assert "pose 1" in str(e.value)


# --- cbp, Scene -----------------------------------------------------------------

def test_cbp_matches_cli(bunny, tmp_path):
    out = tmp_path / "cbp.obj"
    run_cli("cbp", BUNNY, "-k", 16, "-o", out)
    cli = kcbp.load(out)
    verts, faces = kcbp.cbp(bunny, k=16)
    assert np.array_equal(verts, cli.vertices)
    assert np.array_equal(faces, cli.faces)  # `kcbp cbp -o` fans the faces the same way
    # a closed convex polytope (faces CCW seen from outside) holding every vertex
    a, b, c = (verts[faces[:, i]] for i in range(3))
    n = np.cross(b - a, c - a)
    assert np.all(np.einsum("fk,vfk->vf", n, bunny.vertices[:, None, :] - a[None]) <= 1e-9 * np.linalg.norm(n, axis=1))
    assert len(kcbp.Mesh(verts, faces)) == len(faces)
    with pytest.raises(kcbp.Error):
        kcbp.cbp(bunny, k=2)
    with pytest.raises(kcbp.Error):
        kcbp.cbp(bunny, dirs="nope")


SCENE = {
    "objects": [
        {"name": "b1", "mesh": BUNNY, "position": [0, 0, 0]},
        {"name": "b2", "mesh": BUNNY, "position": [0.05, 0, 0], "rotation": {"axis": [0, 0, 1], "angle_deg": 30},
         "velocity": [3, 0, 0]},
        {"name": "s", "mesh": SPOT, "position": [4, 0, 0], "scale": 0.5,
         "angular_velocity": {"axis": [0, 1, 0], "deg_per_s": 90}},
    ],
    "motion": {"frames": 12, "dt": 0.1},
}


def test_scene_matches_cli(tmp_path):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(SCENE))
    cli = run_cli("scene", path, "--contacts", "first", "--mesh-root", os.path.join(ROOT, "meshes"))
    with kcbp.Scene(path, contacts="first") as scene:
        assert len(scene) == 12 and scene.objects == ["b1", "b2", "s"] and scene.moving
        reports = list(scene)
        assert scene.pose("b1", 0) == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
        with pytest.raises(kcbp.Error):
            scene.frame(12)
    assert len(reports) == len(cli)
    for py, c in zip(reports, cli):
        for key in ("frame", "frames", "objects", "models", "pairs", "passed", "colliding", "hit_rate"):
            assert py[key] == c[key], key
    assert any(r["colliding"] for r in reports) and not all(r["colliding"] for r in reports)


def test_scene_shapes_match_cli(tmp_path):
    scene = {"objects": [
        {"name": "b", "mesh": BUNNY, "position": [0, 0, 0]},
        {"name": "ball", "shape": {"sphere": {"radius": 0.05}}, "position": [-0.865619, 0.624919, 0.084327],
         "velocity": [0, 0, 0.5]},  # from a vertex of the bunny outwards
        {"name": "rod", "shape": {"capsule": {"radius": 0.01, "length": 0.2}}, "position": [-0.82, 0.624919, 0.1]},
        {"name": "crate", "shape": {"box": {"size": [0.1, 0.1, 0.1]}}, "position": [2, 0, 0]},
        {"name": "drum", "shape": {"cylinder": {"radius": 0.05, "height": 0.1}}, "position": [2.05, 0, 0]},
    ], "motion": {"frames": 6, "dt": 0.2}}
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(scene))
    cli = run_cli("scene", path, "--contacts", "all", "--mesh-root", os.path.join(ROOT, "meshes"))
    with kcbp.Scene(path, contacts="all") as s:
        reports = list(s)
    assert len(reports) == len(cli)
    def key(h):  # the CLI lists pairs in the scene's rank order, kcbp.Scene by (a, b)
        return (h["a"], h["b"])
    for py, c in zip(reports, cli):
        assert py["models"] == c["models"] == 5
        assert sorted(py["colliding"], key=key) == sorted(c["colliding"], key=key)
    contacts = [ct for r in reports for h in r["colliding"] for ct in h["contacts"]]
    assert contacts and all(ct[1] is None for ct in contacts)  # every pair has a shape on side b


def test_scene_errors(tmp_path):
    with pytest.raises(kcbp.Error):
        kcbp.Scene(tmp_path / "none.json", contacts="several")
    with pytest.raises(kcbp.Error) as e:
        kcbp.Scene(os.path.join(ROOT, "tests", "bad", "duplicate_name.json"))
    assert "duplicate_name.json" in str(e.value)
    with pytest.raises(kcbp.Error) as e:
        kcbp.Scene(tmp_path / "none.json")
    assert e.value.code == "io"


def test_threads_share_meshes(bunny, spot):
    from concurrent.futures import ThreadPoolExecutor
    poses = random_poses(200, 3, 0.9)
    want = kcbp.collide_many(bunny, spot, poses)
    with ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda _: kcbp.collide_many(bunny, spot, poses), range(8)))
    assert all(np.array_equal(g, want) for g in got)


def test_layout_probe():
    assert kcbp._lib.layout("kcbp_pose") == (0, 96)
    assert kcbp._lib.layout("kcbp_collide_result.collide")[1] == 1
    assert kcbp._lib.layout("kcbp_collide_options.no_such_member") is None
    assert kcbp._lib.layout("no_such_struct") is None
    assert kcbp.VERSION == kcbp.__version__


def _cube(lo, hi):
    v = [[lo if i & 1 == 0 else hi, lo if i & 2 == 0 else hi, lo if i & 4 == 0 else hi] for i in range(8)]
    f = [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
         [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]]
    return kcbp.Mesh(v, f)


def test_solid_containment_matches_cli(tmp_path):
    if not kcbp._lib.has_member("kcbp_collide_options.solid"):
        pytest.skip("libkcbp without --solid")
    big, small = _cube(-1.0, 1.0), _cube(-0.2, 0.2)
    r = kcbp.collide(big, small, solid=True)
    assert r["collide"] and r["contained"] == "b_in_a" and r["contacts"] == []
    r = kcbp.collide(small, big, solid=True)
    assert r["collide"] and r["contained"] == "a_in_b"
    assert not kcbp.collide(big, small)["collide"]  # surfaces only: no contact
    r = kcbp.collide(big, small, pose_b=(3, 0, 0, 0, 0, 1, 0), solid=True)
    assert not r["collide"] and r["contained"] == "none"
    # the same answer as the CLI
    for name, m in (("big", big), ("small", small)):
        with open(tmp_path / (name + ".obj"), "w") as out:
            for p in m.vertices:
                out.write("v %r %r %r\n" % tuple(p))
            for t in m.faces:
                out.write("f %d %d %d\n" % tuple(int(i) + 1 for i in t))
    cli = run_cli("collide", str(tmp_path / "big.obj"), str(tmp_path / "small.obj"), "--solid")
    assert cli[0]["contained"] == "b_in_a" and cli[0]["collide"]
    # an open mesh is no solid
    open_mesh = kcbp.Mesh(big.vertices, big.faces[:-1])
    with pytest.raises(kcbp.Error) as e:
        kcbp.collide(open_mesh, small, solid=True)
    assert "closed" in str(e.value)
