"""Poses in every convention: kcbp.pose (quaternion, rotation matrix, axis
and angle) and the command line's three forms ("tx ty tz ax ay az deg",
"quat tx ty tz qw qx qy qz", "matrix" with 12 or 16 numbers) must give the
same matrices, and the same matrices must give the same answers, to the bit
(the program prints every number in the shortest form that reads back as the
same double, so equal JSON means equal doubles)."""
import json
import math

import numpy as np
import pytest

from conftest import BUNNY, SPOT, kcbp, run_cli


def matrix_words(m, n=12):
    """A 4x4 matrix as the program's "matrix" pose, every number exact."""
    rows = m[:3] if n == 12 else m
    return "matrix " + " ".join(repr(float(x)) for x in np.asarray(rows).reshape(-1))


def plain(p):
    return " ".join(repr(float(x)) for x in p)


def without_times(line):
    line = dict(line)
    line["stats"] = {k: v for k, v in line["stats"].items() if not k.endswith("_ms")}
    return line


def quat_of(axis, deg):
    u = np.asarray(axis, dtype=float)
    u = u / np.linalg.norm(u)
    h = math.radians(deg) / 2
    return (math.cos(h), *(math.sin(h) * u))


AXIS_ANGLE = [(0.3, 0.1, 0.0, 1, 1, 0, 90), (0.05, 0, 0, 0, 0, 1, 30), (0.2, -0.1, 0.05, -2, 0.5, 1, 200),
              (3, 0, 0, 0, 0, 1, 0)]
QUATS = [((0.3, 0.1, 0.0), quat_of((1, 1, 0), 90)), ((0.05, 0, 0), (0.9659258262890683, 0, 0, 0.25881904510252074)),
         ((0.1, 0.2, -0.05), quat_of((0.3, -1, 2), 137)), ((0.0, 0.0, 0.0), (1, 0, 0, 0))]


def test_pose_forms_make_rigid_matrices():
    m = kcbp.pose((1, 2, 3), quaternion=(1, 0, 0, 0))
    assert m.shape == (4, 4) and m.dtype == np.float64
    assert np.array_equal(m, [[1, 0, 0, 1], [0, 1, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]])
    assert np.array_equal(kcbp.pose((1, 2, 3)), m)
    assert np.array_equal(kcbp.pose(), np.eye(4))
    # a quarter turn about z, three ways
    q = kcbp.pose((0, 0, 0), quaternion=(math.sqrt(0.5), 0, 0, math.sqrt(0.5)))
    a = kcbp.pose((0, 0, 0), axis=(0, 0, 5), degrees=90)
    r = kcbp.pose((0, 0, 0), rotation=[[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert np.abs(q - r).max() < 1e-15 and np.abs(a - r).max() < 1e-15
    assert np.array_equal(r[:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]])  # taken exactly
    # the documented formula (include/kcbp/pose.h), evaluated here in the same order
    for _, (w, x, y, z) in QUATS:
        s = 2.0 / (w * w + x * x + y * y + z * z)
        want = [[1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)],
                [s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x)],
                [s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y)]]
        assert np.array_equal(kcbp.pose((0, 0, 0), quaternion=(w, x, y, z))[:3, :3], want)
        # -q is the same rotation, to the bit
        assert np.array_equal(kcbp.pose(quaternion=(-w, -x, -y, -z)), kcbp.pose(quaternion=(w, x, y, z)))


@pytest.mark.parametrize("kwargs,what", [
    ({"quaternion": (0.7071, 0, 0, 0.7071)}, "not a unit quaternion"),
    ({"quaternion": (2, 0, 0, 0)}, "not a unit quaternion"),
    ({"quaternion": (1, 0, 0)}, "4 numbers"),
    ({"rotation": np.diag([1.0, 1.0, -1.0])}, "reflection"),
    ({"rotation": np.diag([1.0, 1.0, 1.01])}, "not a rigid motion"),
    ({"rotation": np.eye(4)}, "3x3"),
    ({"axis": (0, 0, 1)}, "go together"),
    ({"axis": (0, 0, 0), "degrees": 10}, "axis is zero"),
    ({"quaternion": (1, 0, 0, 0), "axis": (0, 0, 1), "degrees": 3}, "give one rotation"),
    ({"translation": (1, 2)}, "translation"),
    ({"translation": (math.inf, 0, 0)}, "non-finite"),
])
def test_pose_errors(kwargs, what):
    with pytest.raises(kcbp.Error) as e:
        kcbp.pose(**kwargs)
    assert what in str(e.value)


def test_near_unit_quaternion_is_accepted_not_renormalised_silently():
    # 8 significant digits: within 1e-6 of unit, accepted, the rotation of q/|q|
    m = kcbp.pose(quaternion=(0.70710678, 0, 0, 0.70710678))
    assert np.abs(m[:3, :3].T @ m[:3, :3] - np.eye(3)).max() < 1e-15
    p = run_cli("collide", BUNNY, SPOT, "--pose-b", "0 0 0 0.7071 0 0 0.7071", check=False)
    assert p.returncode == 0  # seven plain numbers: an axis and 0.7071 degrees, as documented
    p = run_cli("collide", BUNNY, SPOT, "--pose-b", "quat 0 0 0 0.7071 0 0 0.7071", check=False)
    assert p.returncode == 2 and p.stdout == "" and "--pose-b: pose: quaternion" in p.stderr
    assert "not a unit quaternion" in p.stderr


@pytest.mark.parametrize("p7", AXIS_ANGLE)
def test_axis_angle_equals_its_matrix_exactly(p7):
    """The plain pose and the matrix kcbp.pose makes of it: the same matrix,
    hence the same answers to the bit, in 3x4 and 4x4 form, for collide,
    distance and Python."""
    m = kcbp.pose(p7[:3], axis=p7[3:6], degrees=p7[6])
    cli = [without_times(run_cli("collide", BUNNY, SPOT, "--pose-b", form, "--contacts", "all")[0])
           for form in (plain(p7), matrix_words(m), matrix_words(m, 16))]
    assert cli[0] == cli[1] == cli[2]
    dist = [run_cli("distance", BUNNY, SPOT, "--pose-b", form)[0] for form in (plain(p7), matrix_words(m))]
    assert without_times(dist[0]) == without_times(dist[1])
    py = kcbp.collide(kcbp.load(BUNNY), kcbp.load(SPOT), pose_b=m, contacts="all")
    assert py["contacts"] == cli[0].get("contacts", []) and py["collide"] == cli[0]["collide"]
    assert kcbp.collide(BUNNY, SPOT, pose_b=p7, contacts="all")["contacts"] == py["contacts"]


@pytest.mark.parametrize("t,q", QUATS)
def test_quat_equals_the_matrix_of_kcbp_pose(bunny, spot, t, q):
    """`--pose-b "quat ..."` answers exactly as `--pose-b "matrix M"` with M
    = kcbp.pose(t, quaternion=q), and as Python given M: the program and
    Python make the same matrix."""
    m = kcbp.pose(t, quaternion=q)
    quat = "quat " + plain(t) + " " + plain(q)
    a = without_times(run_cli("collide", BUNNY, SPOT, "--pose-b", quat, "--contacts", "all")[0])
    b = without_times(run_cli("collide", BUNNY, SPOT, "--pose-b", matrix_words(m), "--contacts", "all")[0])
    assert a == b
    py = kcbp.collide(bunny, spot, pose_b=m, contacts="all")
    assert py["contacts"] == a.get("contacts", [])
    if "cbp" in a:
        assert {k: v for k, v in py["cbp"].items()} == a["cbp"]  # distances and points, to the bit
    d = run_cli("distance", BUNNY, SPOT, "--pose-b", quat)[0]
    dp = kcbp.distance(bunny, spot, pose_b=m)
    assert dp["distance"] == d["distance"]
    if d["distance"] > 0:
        assert dp["point_a"] == d["point_a"] and dp["point_b"] == d["point_b"]


def test_where_the_matrices_are_equal_all_forms_answer_alike():
    """The identity three ways, and a quaternion whose matrix is exactly the
    plain pose's: every form, the same answer."""
    t = (0.05, 0.0, 0.0)
    ident = [kcbp.pose(t, quaternion=(1, 0, 0, 0)), kcbp.pose(t, axis=(0, 0, 1), degrees=0),
             kcbp.pose(t, rotation=np.eye(3))]
    assert all(np.array_equal(ident[0], m) for m in ident)
    forms = ["0.05 0 0 0 0 1 0", "quat 0.05 0 0 1 0 0 0", "matrix 1 0 0 0.05 0 1 0 0 0 0 1 0",
             "matrix 1 0 0 0.05 0 1 0 0 0 0 1 0 0 0 0 1"]
    lines = [without_times(run_cli("collide", BUNNY, BUNNY, "--pose-b", f, "--contacts", "all")[0]) for f in forms]
    assert all(line == lines[0] for line in lines) and lines[0]["collide"]


def test_pose_files_and_sweeps_take_every_form(tmp_path):
    p7 = AXIS_ANGLE[0]
    m = kcbp.pose(p7[:3], axis=p7[3:6], degrees=p7[6])
    t, q = QUATS[2]
    mq = kcbp.pose(t, quaternion=q)
    poses = tmp_path / "poses.txt"
    poses.write_text("# three forms\n%s\n%s\n%s  # 4x4\nquat %s %s\n" %
                     (plain(p7), matrix_words(m), matrix_words(m, 16), plain(t), plain(q)))
    lines = [without_times(x) for x in run_cli("collide", BUNNY, SPOT, "--poses", poses, "--contacts", "all")]
    assert [x.pop("pose") for x in lines] == [0, 1, 2, 3]
    for x in lines[1:3]:  # the poses of a file share a pair cache: the work differs, never the answer
        for key in ("collide", "decided_by", "contacts"):
            assert x[key] == lines[0][key], key
    assert lines[3]["contacts"] == kcbp.collide(BUNNY, SPOT, pose_b=mq, contacts="all")["contacts"]
    # sweeps: two poses a line, any mix; a matrix equal to the plain pose's sweeps alike
    start = (3.0, 0.2, 0.1, 1, 1, 0, 30)
    ms = kcbp.pose(start[:3], axis=start[3:6], degrees=start[6])
    sweeps = tmp_path / "sweeps.txt"
    sweeps.write_text("%s -3 0 0 0 0 1 0\n%s -3 0 0 0 0 1 0\n%s matrix 1 0 0 -3 0 1 0 0 0 0 1 0\n"
                      "%s quat -3 0 0 1 0 0 0\n" % (plain(start), matrix_words(ms), matrix_words(ms, 16), plain(start)))
    s = run_cli("sweep", BUNNY, SPOT, "--sweeps", sweeps)
    assert [x["sweep"] for x in s] == [0, 1, 2, 3] and s[0]["toi"] is not None
    for x in s[1:]:
        assert x["toi"] == s[0]["toi"] and x["contacts"] == s[0]["contacts"] and x["point"] == s[0]["point"]
    assert kcbp.sweep(BUNNY, SPOT, ms, (-3, 0, 0, 0, 0, 1, 0))["toi"] == s[0]["toi"]


def test_bad_pose_lines_name_file_and_line(tmp_path):
    poses = tmp_path / "poses.txt"
    poses.write_text("0 0 0 0 0 1 0\nquat 0 0 0 0.7071 0 0 0.7071\n")
    p = run_cli("collide", BUNNY, SPOT, "--poses", poses, check=False)
    assert p.returncode == 3 and "poses.txt:2: pose: quaternion" in p.stderr and "not a unit" in p.stderr
    assert json.loads(p.stdout.splitlines()[0])["pose"] == 0  # the pose before is answered
    poses.write_text("matrix 1 0 0 0 0 1 0 0 0 0 -1 0\n")
    p = run_cli("collide", BUNNY, SPOT, "--poses", poses, check=False)
    assert p.returncode == 3 and "poses.txt:1: pose: not a rigid motion: det R = -1" in p.stderr
    sweeps = tmp_path / "sweeps.txt"
    sweeps.write_text("matrix 1 0 0 0 0 1 0 0 0 0 1 0\n")
    p = run_cli("sweep", BUNNY, SPOT, "--sweeps", sweeps, check=False)
    assert p.returncode == 3 and "sweeps.txt:1: sweep: to-pose is missing" in p.stderr
    p = run_cli("sweep", BUNNY, SPOT, "--from", "quat 1 0 0 1 0 0", "--to", "0 0 0 0 0 1 0", check=False)
    assert p.returncode == 2 and "--from: pose: quat has 6 numbers, expected 7" in p.stderr


def test_scene_rotations_match_kcbp_pose(tmp_path):
    q = quat_of((0.3, -1, 2), 137)
    r = kcbp.pose(quaternion=q)[:3, :3]
    scene = {"objects": [
        {"name": "q", "mesh": BUNNY, "position": [0.5, 0, 0], "rotation": {"quaternion": list(q)}},
        {"name": "m", "mesh": BUNNY, "position": [0, 0, 0], "rotation": {"matrix": r.tolist()}},
        {"name": "a", "mesh": SPOT, "position": [0, 0, 0], "rotation": {"axis": [1, 1, 0], "angle_deg": 90}}]}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    with kcbp.Scene(path, contacts="first") as s:
        assert np.array_equal(np.array(s.pose("q"))[:3, :3], r)
        assert np.array_equal(np.array(s.pose("m"))[:3, :3], r)
        assert np.array_equal(np.array(s.pose("a")), kcbp.pose(axis=(1, 1, 0), degrees=90))
        frame = s.frame(0)
    cli = run_cli("scene", path, "--contacts", "first", "--mesh-root", "/")[0]
    # the program streams pairs in the objects' spatial order, the Scene
    # collects them by index: the same pairs and contacts
    by_names = lambda pairs: sorted(pairs, key=lambda p: (p["a"], p["b"]))
    assert by_names(frame["colliding"]) == by_names(cli["colliding"])
    bad = dict(scene)
    bad["objects"] = [dict(scene["objects"][0], rotation={"quaternion": [0.7071, 0, 0, 0.7071]})]
    path.write_text(json.dumps(bad))
    with pytest.raises(kcbp.Error) as e:
        kcbp.Scene(path)
    assert "objects[0].rotation.quaternion" in str(e.value) and "not a unit quaternion" in str(e.value)
