"""kcbp.Sphere, Capsule, Box and Cylinder in the pair functions, against the
kcbp program's answers for sphere:R, capsule:R:L, box:X:Y:Z and
cylinder:R:L (the same library, the same numbers), and their errors and
lifetime."""
import math
import threading

import numpy as np
import pytest

from conftest import BUNNY, SPOT, kcbp, run_cli  # noqa: F401

SHAPES = [
    (lambda: kcbp.Sphere(0.1), "sphere:0.1"),
    (lambda: kcbp.Capsule(0.05, 0.4), "capsule:0.05:0.4"),
    (lambda: kcbp.Box(0.1, 0.2, 0.3), "box:0.1:0.2:0.3"),
    (lambda: kcbp.Cylinder(0.08, 0.25), "cylinder:0.08:0.25"),
]
POSES = [(0.3, 0.1, 0.0, 1, 0, 0, 90), (0.55, 0.2, 0.1, 0, 1, 1, 30), (2.0, 0.0, 0.0, 0, 0, 1, 0),
         (0.0, 0.45, 0.2, 1, 1, 0, 60)]


def pose_arg(p):
    return " ".join(repr(float(x)) for x in p)


@pytest.mark.parametrize("make,spec", SHAPES, ids=[s for _, s in SHAPES])
def test_collide_and_distance_match_cli(bunny, make, spec):
    shape = make()
    for p in POSES:
        cli = run_cli("collide", BUNNY, spec, "--pose-b", pose_arg(p), "--contacts", "all")[0]
        py = kcbp.collide(bunny, shape, pose_b=p, contacts="all")
        assert py["collide"] == cli["collide"] and py["decided_by"] == cli["decided_by"]
        assert py["contacts"] == cli["contacts"]
        assert all(c[1] is None for c in py["contacts"])
        assert py["b"] == cli["b"] and cli["b"]["shape"] == shape.kind
        d_cli = run_cli("distance", BUNNY, spec, "--pose-b", pose_arg(p))[0]
        d = kcbp.distance(bunny, shape, pose_b=p)
        # (kcbp distance writes its numbers through cJSON, in 15 digits)
        assert d["distance"] == pytest.approx(d_cli["distance"], rel=1e-14, abs=1e-16)
        assert d["triangles"] == d_cli["triangles"] and d["triangles"][1] is None
        assert d["point_a"] == pytest.approx(d_cli["point_a"], rel=1e-14, abs=1e-16)
        assert d["point_b"] == pytest.approx(d_cli["point_b"], rel=1e-14, abs=1e-16)
        assert (d["distance"] == 0) == py["collide"] or shape.kind == "cylinder"
        # the shape as A: the sides swap
        r = kcbp.collide(shape, bunny, pose_a=p, contacts="all")
        assert r["collide"] == py["collide"]
        assert sorted(c[1] for c in r["contacts"]) == sorted(c[0] for c in py["contacts"])
        assert all(c[0] is None for c in r["contacts"])


def test_collide_many_and_sweep(bunny):
    cap = kcbp.Capsule(0.05, 0.4)
    rng = np.random.default_rng(3)
    poses = np.hstack([rng.uniform(-0.6, 0.6, size=(40, 3)), rng.normal(size=(40, 3)), rng.uniform(0, 180, (40, 1))])
    many = kcbp.collide_many(bunny, cap, poses)
    one = [kcbp.collide(bunny, cap, pose_b=p)["collide"] for p in poses]
    assert list(many) == one and 0 < sum(one) < 40
    s = kcbp.sweep(bunny, kcbp.Sphere(0.05), (2, 0, 0, 0, 0, 1, 0), (-2, 0, 0, 0, 0, 1, 0))
    cli = run_cli("sweep", BUNNY, "sphere:0.05", "--from", "2 0 0 0 0 1 0", "--to", "-2 0 0 0 0 1 0")[0]
    assert s["toi"] == cli["toi"] and s["contacts"] == cli["contacts"] and s["contacts"][0][1] is None


def test_shape_pairs():
    r = kcbp.collide(kcbp.Sphere(1), kcbp.Box(1, 1, 1), pose_b=(1.4, 0, 0, 0, 0, 1, 0), contacts="first")
    assert r["collide"] and r["decided_by"] == "shape" and r["contacts"] == [[None, None]]
    # exactly touching: 1 + 0.5 = 1.5
    assert kcbp.collide(kcbp.Sphere(1), kcbp.Box(1, 1, 1), pose_b=(1.5, 0, 0, 0, 0, 1, 0))["collide"]
    assert not kcbp.collide(kcbp.Sphere(1), kcbp.Box(1, 1, 1), pose_b=(1.5000000001, 0, 0, 0, 0, 1, 0))["collide"]
    d = kcbp.distance(kcbp.Capsule(0.5, 2), kcbp.Capsule(0.25, 1), pose_b=(3, 0, 0, 0, 0, 1, 0))
    assert d["distance"] == pytest.approx(2.25, abs=1e-15) and d["triangles"] == [None, None]
    assert kcbp.distance(kcbp.Sphere(1), kcbp.Sphere(2), pose_b=(0, 0, 4, 0, 0, 1, 0))["distance"] == 1.0


def test_reports_and_properties():
    c = kcbp.Capsule(0.05, 0.4)
    assert (c.radius, c.length, c.kind) == (0.05, 0.4, "capsule")
    b = kcbp.Box(1, 2, 3)
    assert b.size == (1.0, 2.0, 3.0) and b.kind == "box"
    y = kcbp.Cylinder(0.5, 2)
    assert y.height == 2.0 and y.radius == 0.5
    assert "Capsule(radius=0.05, length=0.4)" in repr(c)
    v, f = kcbp.Sphere(2).tessellate(16)
    assert v.shape[1] == 3 and f.shape[1] == 3 and len(f) > 16
    assert np.allclose(np.linalg.norm(v, axis=1), 2.0)
    m = kcbp.Mesh(*kcbp.Box(1, 1, 1).tessellate())
    assert len(m) == 12


@pytest.mark.parametrize("bad", [lambda: kcbp.Sphere(-1), lambda: kcbp.Sphere(0), lambda: kcbp.Sphere(math.nan),
                                 lambda: kcbp.Capsule(1, math.inf), lambda: kcbp.Box(1, 0, 1),
                                 lambda: kcbp.Cylinder(1, -2), lambda: kcbp.Sphere("x"),
                                 lambda: kcbp.Sphere(1e61)])
def test_bad_numbers(bad):
    with pytest.raises(kcbp.Error):
        bad()


def test_errors_and_lifetime(bunny):
    s = kcbp.Sphere(0.1)
    with pytest.raises(kcbp.Error):
        kcbp.cbp(s)
    with pytest.raises(kcbp.Error):
        kcbp.collide(bunny, s, contacts="all", geometry=True)
    with kcbp.Sphere(0.2) as t:
        assert kcbp.collide(bunny, t, pose_b=(5, 0, 0, 0, 0, 1, 0))["collide"] is False
    assert t.closed
    with pytest.raises(kcbp.Error, match="closed"):
        kcbp.collide(bunny, t)
    s.close()
    s.close()
    with pytest.raises(kcbp.Error, match="closed"):
        kcbp.distance(bunny, s)


def test_shared_by_threads(bunny):
    cap = kcbp.Capsule(0.05, 0.4)
    want = [kcbp.collide(bunny, cap, pose_b=p)["collide"] for p in POSES]
    got, errors = [], []

    def work():
        try:
            got.append([kcbp.collide(bunny, cap, pose_b=p)["collide"] for p in POSES * 20][:len(POSES)])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and all(g == want for g in got)


def test_solid(bunny):
    # a sphere inside spot (closed): no contact with its surface; as solids, contained
    spot = kcbp.load(SPOT)
    r = kcbp.collide(spot, kcbp.Sphere(0.02), pose_b=(0, 0, 0, 0, 0, 1, 0))
    rs = kcbp.collide(spot, kcbp.Sphere(0.02), pose_b=(0, 0, 0, 0, 0, 1, 0), solid=True)
    assert not r["collide"]
    assert rs["collide"] and rs["contained"] == "b_in_a"
