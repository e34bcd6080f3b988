"""2D time of impact from Python (issue 35): kcbp.sweep on kcbp.Polygon,
Circle, Capsule2D, Rect and ConvexPolygon, against the kcbp program's
answers on the same inputs (`kcbp sweep A B --from --to`) and against an
independent oracle: kcbp.collide at the motion's poses (sweep2d.h's
formula) on a grid of t, then bisection over t at the first change."""
import json
import math
import random

import numpy as np
import pytest

from conftest import kcbp, run_cli

PARCEL = {"type": "Polygon", "coordinates": [[[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]],
                                             [[1, 1], [2, 1], [2, 2], [1, 2], [1, 1]]]}
ELL = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]]
SHAPES = {
    "circle:0.5": lambda: kcbp.Circle(0.5),
    "rect:1:0.6": lambda: kcbp.Rect(1.0, 0.6),
    "rect:0.8:0.4:0.1": lambda: kcbp.Rect(0.8, 0.4, 0.1),
    "capsule2d:0.2:1.2": lambda: kcbp.Capsule2D(0.2, 1.2),
}
# B's motions: (from, to), "tx ty deg" each: slides, turns as written (more
# than a turn, clockwise), a miss, a start in contact
MOTIONS = [
    ((-5.0, 0.25, 0.0), (5.0, 0.25, 0.0)),
    ((-4.0, 1.0, 0.0), (4.0, -1.0, 270.0)),
    ((0.0, 2.2, 0.0), (0.0, 2.2, -90.0)),
    ((3.0, -3.0, 10.0), (-3.0, 3.0, 730.0)),
    ((-5.0, 4.0, 0.0), (5.0, 4.0, 45.0)),
    ((0.3, 0.1, 0.0), (2.0, 0.1, 0.0)),
]


def arg(p):
    return " ".join(repr(float(x)) for x in p)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep2d")
    parcel = d / "parcel.geojson"
    parcel.write_text(json.dumps(PARCEL))
    ell = d / "ell.geojson"
    ell.write_text(json.dumps({"type": "Polygon", "coordinates": [ELL + [ELL[0]]]}))
    return str(parcel), str(ell)


def close(x, y):
    """Equal, a float to within the CLI's printing (cJSON keeps 15 digits
    when they read back within an epsilon: the last bit may differ)."""
    if isinstance(x, float) or isinstance(y, float):
        return isinstance(x, (int, float)) and isinstance(y, (int, float)) and \
            x == pytest.approx(y, rel=4e-16, abs=1e-300)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(close(p, q) for p, q in zip(x, y))
    if isinstance(x, dict):
        return isinstance(y, dict) and set(x) == set(y) and all(close(x[k], y[k]) for k in x)
    return x == y and type(x) is type(y)


def same_report(py, cli):
    assert set(py) == set(cli), (sorted(py), sorted(cli))
    for k in py:
        if k == "stats":
            assert set(py[k]) == set(cli[k])
            for s in ("motion_bound", "iterations", "distance_queries"):
                assert close(py[k][s], cli[k][s]), s
        else:
            assert close(py[k], cli[k]), (k, py[k], cli[k])


def pose_at(f, t, s):
    """sweep2d.h's motion pose at s, as (tx, ty, deg) for kcbp2d_pose_from_angle."""
    if s <= 0:
        return tuple(f)
    if s >= 1:
        return tuple(t)
    return (f[0] + s * (t[0] - f[0]), f[1] + s * (t[1] - f[1]), f[2] + s * (t[2] - f[2]))


def first_contact(a, b, f, t, pose_a=None, samples=400):
    """The oracle: the first grid t at which kcbp.collide finds contact, then
    bisection (60 halvings) between it and the grid t before it: the first
    t of contact to within the grid's resolution of missing a graze, or None."""
    def hit(s):
        return kcbp.collide(a, b, pose_a=pose_a, pose_b=pose_at(f, t, s))["collide"]
    if hit(0.0):
        return 0.0
    prev = 0.0
    for k in range(1, samples + 1):
        s = k / samples
        if hit(s):
            lo, hi = prev, s
            for _ in range(60):
                mid = (lo + hi) / 2
                if hit(mid):
                    hi = mid
                else:
                    lo = mid
            return hi
        prev = s
    return None


def check_against_oracle(a, b, f, t, r, pose_a=None):
    tau = 1e-9
    want = first_contact(a, b, f, t, pose_a)
    if want is None:
        # a graze the grid missed is possible; a full miss is a miss for both
        assert r["toi"] is None or r["distance"] <= tau * r["stats"]["motion_bound"] + 1e-12
        return
    assert r["toi"] is not None
    # no contact before toi, and the true time within [toi, toi + tau]
    assert r["toi"] <= want + 1e-15, (r["toi"], want)
    assert want <= r["toi"] + tau + 1e-12, (r["toi"], want)
    if r["toi"] > 0:
        assert not kcbp.collide(a, b, pose_a=pose_a, pose_b=pose_at(f, t, r["toi"] * (1 - 1e-6)))["collide"]
    if r["confirmed"]:
        end = min(1.0, r["toi"] + tau) if r["toi"] + tau < 1 else 1.0
        assert kcbp.collide(a, b, pose_a=pose_a, pose_b=pose_at(f, t, r["toi"]))["collide"] or \
            kcbp.collide(a, b, pose_a=pose_a, pose_b=pose_at(f, t, end))["collide"]


@pytest.mark.parametrize("sa", sorted(SHAPES))
@pytest.mark.parametrize("sb", sorted(SHAPES))
def test_shape_pairs_match_cli_and_oracle(sa, sb):
    a, b = SHAPES[sa](), SHAPES[sb]()
    tois = []
    for f, t in MOTIONS:
        cli = run_cli("sweep", sa, sb, "--from", arg(f), "--to", arg(t))[0]
        py = kcbp.sweep(a, b, f, t)
        same_report(py, cli)
        check_against_oracle(a, b, f, t, py)
        tois.append(py["toi"])
    assert tois[-1] == 0 and tois[0] > 0 and tois[4] is None  # a start in contact, a slide, a miss


@pytest.mark.parametrize("spec,make", [("circle:0.4", lambda: kcbp.Circle(0.4)),
                                       ("rect:0.5:0.3", lambda: kcbp.Rect(0.5, 0.3)),
                                       ("capsule2d:0.1:0.6", lambda: kcbp.Capsule2D(0.1, 0.6))])
def test_polygon_and_shape_both_orders(files, spec, make):
    parcel, ell = files
    for path in (parcel, ell):
        poly = kcbp.load2d(path)
        shape = make()
        for f, t in [((1.5, 1.5, 0.0), (1.5, 4.0, 0.0)), ((1.5, 1.5, 0.0), (1.5, 1.5, 360.0)),
                     ((-2.0, 0.5, 0.0), (6.0, 2.5, 180.0)), ((2.0, 2.0, 45.0), (5.0, 5.0, 45.0))]:
            cli = run_cli("sweep", path, spec, "--from", arg(f), "--to", arg(t))[0]
            py = kcbp.sweep(path, shape, f, t)
            same_report(py, cli)
            check_against_oracle(poly, shape, f, t, py)
            # the shape as A standing at f, the polygon moving the opposite way
            cli = run_cli("sweep", spec, path, "--pose-a", arg(f), "--from", "0 0 0", "--to", arg((t[0] - f[0], 0, 0)))[0]
            py = kcbp.sweep(shape, path, (0, 0, 0), (t[0] - f[0], 0, 0), pose_a=f)
            same_report(py, cli)
            check_against_oracle(shape, poly, (0, 0, 0), (t[0] - f[0], 0, 0), py, pose_a=f)


def test_two_polygons_match_cli(files):
    parcel, ell = files
    a, b = kcbp.load2d(parcel), kcbp.Polygon(ELL)
    for f, t in [((-6.0, 0.5, 0.0), (6.0, 0.5, 0.0)), ((0.0, 5.0, 90.0), (0.0, -5.0, -90.0)),
                 ((10.0, 10.0, 0.0), (12.0, 10.0, 0.0))]:
        cli = run_cli("sweep", parcel, ell, "--from", arg(f), "--to", arg(t))[0]
        py = kcbp.sweep(parcel, ell, f, t)
        same_report(py, cli)
        assert kcbp.sweep(a, b, f, t)["toi"] == py["toi"]  # Polygon(ELL) is the file's region
        check_against_oracle(a, b, f, t, py)


def test_random_convex_sweeps_against_oracle():
    rng = random.Random(35)
    hits = 0
    for _ in range(25):
        pts = []
        for _ in range(6):
            x = rng.uniform(-1, 1)
            y = rng.uniform(-1, 1)
            pts.append([x, y])
        a = kcbp.ConvexPolygon(pts)
        r = rng.uniform(0.1, 0.5)
        length = rng.uniform(0, 1.5)
        b = kcbp.Capsule2D(r, length) if length > 0.2 else kcbp.Circle(r)
        fx, fy, fd = rng.uniform(-4, 4), rng.uniform(-4, 4), rng.uniform(-180, 180)
        tx, ty, td = rng.uniform(-4, 4), rng.uniform(-4, 4), rng.uniform(-400, 400)
        f, t = (fx, fy, fd), (tx, ty, td)
        r = kcbp.sweep(a, b, f, t)
        check_against_oracle(a, b, f, t, r)
        hits += r["toi"] is not None and r["toi"] > 0
    assert hits >= 5  # the oracle had work to do


def test_matrix_poses_turn_the_shorter_way():
    a, b = kcbp.Rect(2, 2), kcbp.Capsule2D(0.5, 3)
    # 3x3 matrices hold no number of turns: 170 to -170 degrees is 20 degrees
    # counter-clockwise, as the written angles 170 to 190
    m = kcbp.sweep(a, b, kcbp.pose2((0, 2.4), 170), kcbp.pose2((0, 2.4), -170))
    w = kcbp.sweep(a, b, (0, 2.4, 170), (0, 2.4, 190))
    assert (m["toi"] is None) == (w["toi"] is None)
    if w["toi"] is not None:
        assert m["toi"] == pytest.approx(w["toi"], abs=1e-9)
    # a written end and a matrix end: the matrix's angle nearest the other
    for deg in (0.0, 30.0, 90.0, -120.0):
        x = kcbp.sweep(a, b, (0, 2.2, deg), kcbp.pose2((0, 2.2), deg - 60))
        y = kcbp.sweep(a, b, (0, 2.2, deg), (0, 2.2, deg - 60))
        assert (x["toi"] is None) == (y["toi"] is None)
        if y["toi"] is not None:
            assert x["toi"] == pytest.approx(y["toi"], abs=1e-9)
    # a multiple of 90 degrees: the matrix's angle is exact, the same answer
    p = kcbp.sweep(a, b, np.eye(3), kcbp.pose2((0, 0), 90), pose_a=kcbp.pose2((0, 3.0), 0))
    q = kcbp.sweep(a, b, (0, 0, 0), (0, 0, 90), pose_a=(0, 3.0, 0))
    assert p == {**q, "stats": {**q["stats"], "query_ms": p["stats"]["query_ms"]}}


def test_undecided_matches_cli():
    cli = run_cli("sweep", "rect:2:2", "circle:0.5", "--from", "-5 0.25 0", "--to", "5 0.25 0",
                  "--max-iterations", "1")[0]
    py = kcbp.sweep(kcbp.Rect(2, 2), kcbp.Circle(0.5), (-5, 0.25, 0), (5, 0.25, 0), max_iterations=1)
    same_report(py, cli)
    assert py["toi"] is None and py["undecided"] and 0 < py["free_until"] < 1
    # nothing touches before free_until
    assert not kcbp.collide(kcbp.Rect(2, 2), kcbp.Circle(0.5), pose_b=pose_at((-5, 0.25, 0), (5, 0.25, 0),
                                                                                py["free_until"] * 0.999))["collide"]


def test_tolerance_matches_cli():
    cli = run_cli("sweep", "circle:1", "rect:2:2", "--from", "-5 0 0", "--to", "5 0 7", "--tolerance", "1e-3")[0]
    py = kcbp.sweep(kcbp.Circle(1), kcbp.Rect(2, 2), (-5, 0, 0), (5, 0, 7), tolerance=1e-3)
    same_report(py, cli)


def test_errors():
    c = kcbp.Circle(1)
    with pytest.raises(kcbp.Error, match="2D and 3D"):
        kcbp.sweep(c, kcbp.Sphere(1), (0, 0, 0), (1, 0, 0))
    with pytest.raises(kcbp.Error, match="3D pose"):
        kcbp.sweep(c, c, (0, 0, 0, 1, 0, 0, 0), (1, 0, 0))
    with pytest.raises(kcbp.Error, match="tolerance"):
        kcbp.sweep(c, c, (0, 0, 0), (1, 0, 0), tolerance=0)
    with pytest.raises(kcbp.Error, match="max_iterations"):
        kcbp.sweep(c, c, (0, 0, 0), (1, 0, 0), max_iterations=0)
    # None is the identity, as for every pose
    assert kcbp.sweep(c, c, None, (5, 0, 0), pose_a=(3, 0, 0))["toi"] == kcbp.sweep(c, c, (0, 0, 0), (5, 0, 0),
                                                                                     pose_a=(3, 0, 0))["toi"]
    with pytest.raises(kcbp.Error):
        kcbp.sweep(c, c, (0, 0, 0), (math.nan, 0, 0))
    with pytest.raises(kcbp.Error):
        kcbp.sweep(c, c, (0, 0, 0), (1e300, 0, 0))
    c.close()
    with pytest.raises(kcbp.Error) as e:
        kcbp.sweep(c, kcbp.Circle(1), (0, 0, 0), (1, 0, 0))
    assert e.value.code == "closed"


def test_exact_touching_constructions():
    """Exactly touching ends and slides along a face, and near misses by
    1e-12: the oracle's collide decides them exactly."""
    a, b = kcbp.Rect(2, 2), kcbp.Rect(1, 1)
    cases = [(((-5, 0, 0), (-1.5, 0, 0)), True),         # touches at t = 1 exactly
             (((-5, 1.5, 0), (5, 1.5, 0)), True),         # slides along the top face from x = -1.5
             (((-5, 1.5, 0), (5, 1.5 + 1e-12, 0)), False),  # rises away from it before it gets there
             (((0, 3, 0), (0, 1.5, 0)), True),            # comes down onto it at t = 1
             (((1.5, 1.5, 0), (1.5, 1.5, 90)), True),      # corner on corner at t = 0, turning
             (((-5, 1.5 + 1e-12, 0), (5, 1.5 + 1e-12, 0)), False)]
    for (f, t), touches in cases:
        r = kcbp.sweep(a, b, f, t)
        assert (r["toi"] is not None) == touches, (f, t, r)
        check_against_oracle(a, b, f, t, r)
        cli = run_cli("sweep", "rect:2:2", "rect:1:1", "--from", arg(f), "--to", arg(t))[0]
        same_report(r, cli)
