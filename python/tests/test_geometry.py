"""Contact data: collide(..., geometry=True) gives what `kcbp collide
--geometry` prints ("intersections", "contact"), to the bit, and per contact
its triangle pair, points (point, segment or polygon) and normal."""
import numpy as np
import pytest

from conftest import BUNNY, SPOT, kcbp, run_cli


@pytest.mark.parametrize("pose", ["0.05 0 0 0 0 1 30", "0.3 0.1 0 1 1 0 90", "quat 0.2 0 0 0.8 0 0.6 0"])
@pytest.mark.parametrize("contacts", ["first", "all"])
def test_geometry_matches_cli(bunny, spot, pose, contacts):
    cli = run_cli("collide", BUNNY, SPOT, "--pose-b", pose, "--contacts", contacts, "--geometry")[0]
    words = pose.split()
    if words[0] == "quat":
        v = [float(x) for x in words[1:]]
        pb = kcbp.pose(v[:3], quaternion=v[3:])
    else:
        pb = [float(x) for x in words]
    py = kcbp.collide(bunny, spot, pose_b=pb, contacts=contacts, geometry=True)
    assert py["collide"] and py["contacts"] == cli["contacts"]
    assert py["intersections"] == cli["intersections"]
    assert py["contact"] == cli["contact"]
    assert len(py["geometry"]) == len(py["contacts"])
    for c, pair, pts in zip(py["geometry"], py["contacts"], py["intersections"]):
        assert c["triangles"] == pair and c["points"] == pts and 1 <= len(pts) <= 6
        p = np.array(pts)
        assert np.allclose(c["point"], p.mean(axis=0) if len(pts) <= 2 else c["point"], atol=1e-12)
        if c["normal"] is not None:
            assert abs(np.linalg.norm(c["normal"]) - 1) < 1e-12
    if len(py["geometry"]) == 1:  # one contact: its own point and normal are the pair's
        assert py["geometry"][0]["point"] == py["contact"]["point"]
        assert py["geometry"][0]["normal"] == py["contact"].get("normal")


def test_geometry_points_lie_on_both_triangles(bunny, spot):
    pb = kcbp.pose((0.05, 0, 0), axis=(0, 0, 1), degrees=30)
    r = kcbp.collide(bunny, spot, pose_b=pb, contacts="all", geometry=True)
    va, fa = bunny.vertices, bunny.faces
    vb = spot.vertices @ pb[:3, :3].T + pb[:3, 3]
    fb = spot.faces
    scale = max(np.abs(va).max(), np.abs(vb).max())
    for c in r["geometry"][:200]:
        for tri in (va[fa[c["triangles"][0]]], vb[fb[c["triangles"][1]]]):
            n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
            if np.linalg.norm(n) == 0:
                continue
            n /= np.linalg.norm(n)
            for p in c["points"]:
                assert abs(np.dot(np.array(p) - tri[0], n)) < 1e-9 * scale


def test_geometry_options(bunny, spot):
    with pytest.raises(kcbp.Error) as e:
        kcbp.collide(bunny, spot, geometry=True, contacts="none")
    assert "contacts" in str(e.value)
    r = kcbp.collide(bunny, spot, pose_b=(5, 0, 0, 0, 0, 1, 0), contacts="all", geometry=True)
    assert not r["collide"] and r["intersections"] == [] and r["geometry"] == [] and "contact" not in r
    r = kcbp.collide(bunny, spot, pose_b=(0.05, 0, 0, 0, 0, 1, 30), contacts="first")
    assert "intersections" not in r and "geometry" not in r
