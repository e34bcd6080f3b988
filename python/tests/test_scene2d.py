"""2D scenes from Python (issue 35): kcbp.Scene on a scene file of 2D
objects, against `kcbp scene`'s lines for the same file and against brute
force: kcbp.collide on every pair of objects at the scene's poses."""
import json
import os

import numpy as np
import pytest

from conftest import kcbp, run_cli

PARCEL = {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]],
                                             [[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]}
YARD = {"objects": [
    {"name": "lot", "mesh": "parcels.geojson", "pose": [0, 0, 0]},
    {"name": "well", "shape": {"circle": {"radius": 0.5}}, "pose": [1.5, 1.5, 0]},
    {"name": "shed", "shape": {"rect": {"size": [1, 1]}}, "pose": [4.5, 0.5, 0]},
    {"name": "cart", "shape": {"capsule2d": {"radius": 0.25, "length": 1}}, "pose": [7, 0.5, 90],
     "velocity": [-1, 0, 0]},
    {"name": "pebble", "shape": {"circle": {"radius": 0.1}}, "pose": [3, 0.5, 0], "velocity": [0, 0.2, 0]},
    {"name": "tile", "shape": {"rect": {"size": [0.5, 0.5], "radius": 0.05}}, "pose": [0.5, 2.5, 15],
     "velocity": [0, 0, 30]},
], "motion": {"frames": 6, "dt": 0.75}}


@pytest.fixture(scope="module")
def scenes(tmp_path_factory):
    d = tmp_path_factory.mktemp("scene2d")
    (d / "parcels.geojson").write_text(json.dumps(PARCEL))
    (d / "yard.json").write_text(json.dumps(YARD))
    for kind, n in (("parcels", 150), ("nesting", 120)):
        with open(d / (kind + ".json"), "w") as f:
            f.write(run_cli_text("scene", "--generate", kind, "--n", n, "--seed", 7))
    return d


def run_cli_text(*args):
    import subprocess
    from conftest import EXE
    p = subprocess.run([EXE] + [str(a) for a in args], capture_output=True, text=True, check=True)
    return p.stdout


def geometry(obj, folder):
    if "mesh" in obj:
        return kcbp.load2d(os.path.join(folder, obj["mesh"]))
    (kind, spec), = obj["shape"].items()
    if kind == "circle":
        return kcbp.Circle(spec["radius"])
    if kind == "rect":
        return kcbp.Rect(spec["size"][0], spec["size"][1], spec.get("radius", 0.0))
    return kcbp.Capsule2D(spec["radius"], spec["length"])


def brute_force(scene, geoms, frame, margin=0.0):
    """The colliding pairs (by name, a before b in the file) from
    kcbp.collide on every pair at the scene's poses (3x3: taken exactly)."""
    poses = [np.array(scene.pose(i, frame)) for i in range(len(geoms))]
    out = set()
    for i in range(len(geoms)):
        for j in range(i + 1, len(geoms)):
            if kcbp.collide(geoms[i], geoms[j], poses[i], poses[j], margin=margin)["collide"]:
                out.add((scene.objects[i], scene.objects[j]))
    return out


def pairs_of(report, order):
    """A frame's colliding pairs, each (file order first, second)."""
    out = set()
    for h in report["colliding"]:
        a, b = h["a"], h["b"]
        out.add((a, b) if order[a] < order[b] else (b, a))
    return out


KEYS = ("scene", "frame", "frames", "objects", "models", "pairs", "colliding", "passed", "hit_rate")


@pytest.mark.parametrize("name", ["yard", "parcels", "nesting"])
@pytest.mark.parametrize("contacts", ["none", "first", "all"])
def test_matches_cli(scenes, name, contacts):
    path = str(scenes / (name + ".json"))
    cli = run_cli("scene", path, "--contacts", contacts)
    with kcbp.Scene(path, contacts=contacts) as s:
        assert isinstance(s, kcbp.Scene2D) and isinstance(s, kcbp.Scene)
        reports = list(s)
    assert len(reports) == len(cli)
    for py, c in zip(reports, cli):
        assert set(py) == set(c)
        for k in KEYS:
            assert py[k] == c[k], k
        assert set(py["time_ms"]) == set(c["time_ms"])
    assert any(r["colliding"] for r in reports)


@pytest.mark.parametrize("name", ["yard", "parcels", "nesting"])
def test_against_brute_force(scenes, name):
    path = str(scenes / (name + ".json"))
    desc = json.loads((scenes / (name + ".json")).read_text())
    geoms = [geometry(o, str(scenes)) for o in desc["objects"]]
    order = {o["name"]: i for i, o in enumerate(desc["objects"])}
    margin = 0.05
    with kcbp.Scene(path, contacts="none") as s, kcbp.Scene(path, contacts="none", margin=margin) as sm:
        assert s.objects == [o["name"] for o in desc["objects"]]
        frames = range(len(s)) if len(s) <= 6 else (0, len(s) // 2, len(s) - 1)
        found = 0
        for f in frames:
            want = brute_force(s, geoms, f)
            got = pairs_of(s.frame(f), order)
            assert got == want, f
            found += len(want)
            want_m = brute_force(s, geoms, f, margin)
            assert pairs_of(sm.frame(f), order) == want_m, f
            assert want <= want_m
        assert found > 0


def test_yard_contacts_and_poses(scenes):
    with kcbp.Scene(scenes / "yard.json", contacts="all") as s:
        r = s.frame(0)
        hits = {(h["a"], h["b"]): h for h in r["colliding"]}
        assert sorted(hits[("lot", "well")]["contacts"]) == [[4, None], [5, None], [6, None], [7, None]]
        assert s.pose("cart", 2) == [[0.0, -1.0, 5.5], [1.0, 0.0, 0.5], [0.0, 0.0, 1.0]]
        assert s.pose(0, 0) == [[1.0, -0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        assert len(s) == 6 and s.dt == 0.75 and s.moving
        with pytest.raises(kcbp.Error):
            s.frame(6)
        with pytest.raises(kcbp.Error):
            s.pose("nobody")
    with pytest.raises(kcbp.Error) as e:
        s.frame(0)
    assert e.value.code == "closed"


def test_jobs_give_the_same_answers(scenes):
    path = scenes / "nesting.json"
    with kcbp.Scene(path, contacts="all") as one, kcbp.Scene(path, contacts="all", jobs=2) as two:
        for f in range(len(one)):
            assert one.frame(f)["colliding"] == two.frame(f)["colliding"]


def test_errors(scenes, tmp_path):
    mixed = dict(YARD, objects=YARD["objects"][:2] + [{"name": "b", "shape": {"sphere": {"radius": 1}},
                                                       "position": [0, 0, 0]}])
    p = tmp_path / "mixed.json"
    (tmp_path / "parcels.geojson").write_text(json.dumps(PARCEL))
    p.write_text(json.dumps(mixed))
    with pytest.raises(kcbp.Error) as e:
        kcbp.Scene(p)
    assert "objects[2]" in str(e.value)
    # a polygon file outside the scene's folder (the mesh root)
    out = tmp_path / "sub"
    out.mkdir()
    q = out / "outside.json"
    q.write_text(json.dumps({"objects": [{"name": "lot", "mesh": "../parcels.geojson", "pose": [0, 0, 0]}]}))
    with pytest.raises(kcbp.Error, match="outside"):
        kcbp.Scene(q)
    with kcbp.Scene(q, mesh_root=tmp_path) as s:
        assert s.objects == ["lot"]
    with pytest.raises(kcbp.Error, match="margin"):
        kcbp.Scene(scenes / "yard.json", margin=-1)
    with pytest.raises(kcbp.Error, match="contacts"):
        kcbp.Scene(scenes / "yard.json", contacts="some")
    with pytest.raises(kcbp.Error):
        kcbp.Scene2D(tmp_path / "none.json")
