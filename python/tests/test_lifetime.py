"""Lifetime: Mesh.close(), `with`, a closed mesh or scene raising kcbp.Error
on every use, and no order of calls from any thread crashing the
interpreter (a mesh closed while other threads query it)."""
import json
import threading
import time

import numpy as np
import pytest

from conftest import BUNNY, SPOT, kcbp

POSES = np.array([(0.05 * i, 0.02, 0, 0, 0, 1, 7 * i) for i in range(40)])


def uses(m, other):
    """Every public call that touches a mesh."""
    return [lambda: kcbp.collide(m, other), lambda: kcbp.collide(other, m, contacts="all", geometry=True),
            lambda: kcbp.collide_many(m, other, POSES), lambda: kcbp.distance(m, other),
            lambda: kcbp.sweep(m, other, (3, 0, 0, 0, 0, 1, 0), (-3, 0, 0, 0, 0, 1, 0)),
            lambda: kcbp.cbp(m), lambda: m.vertices, lambda: m.faces, lambda: m.degenerate,
            lambda: m.cbp_planes, lambda: len(m), lambda: kcbp.collide(m, m, k=32),
            lambda: kcbp.collide(m, other, solid=True)]


def test_close_then_every_use_raises():
    other = kcbp.load(SPOT)
    m = kcbp.load(BUNNY)
    assert not m.closed
    for use in uses(m, other):
        try:
            use()
        except kcbp.Error as e:  # solid=True: bunny2 may not be closed; a clean error either way
            assert e.code != "closed"
    m.close()
    assert m.closed
    for use in uses(m, other):
        with pytest.raises(kcbp.Error) as e:
            use()
        assert e.value.code == "closed" and "closed" in str(e.value)
    m.close()  # closing again does nothing
    assert repr(m) == "kcbp.Mesh(closed)"
    assert m._models == {}  # the C models are freed
    assert kcbp.collide(other, other)["collide"]  # the other mesh is untouched


def test_with_closes():
    with kcbp.load(BUNNY) as m, kcbp.Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]) as tri:
        assert kcbp.collide(m, tri)["collide"] in (True, False)
        assert len(tri) == 1
    assert m.closed and tri.closed
    with pytest.raises(kcbp.Error):
        kcbp.collide(m, tri)
    with pytest.raises(kcbp.Error):
        with m:  # a closed mesh cannot be entered again
            pass
    # an exception inside the block still closes
    with pytest.raises(ZeroDivisionError):
        with kcbp.load(BUNNY) as m2:
            1 / 0
    assert m2.closed


def test_uninitialised_mesh_is_an_error_not_a_crash():
    m = kcbp.Mesh.__new__(kcbp.Mesh)
    with pytest.raises(kcbp.Error):
        kcbp.collide(m, m)
    with pytest.raises(kcbp.Error):
        m.vertices
    m.close()
    assert repr(m) == "kcbp.Mesh(closed)"


def test_close_while_threads_query():
    """Threads hammer queries on a shared mesh while another closes it: each
    query either answers correctly or raises kcbp.Error "closed"; the
    process survives, and the models are freed once the last query ends."""
    other = kcbp.load(SPOT)
    want_many = kcbp.collide_many(kcbp.load(BUNNY), other, POSES)
    for trial in range(3):
        m = kcbp.load(BUNNY)
        counts = {"ok": 0, "closed": 0}
        bad = []
        lock = threading.Lock()

        def hammer(i):
            calls = [lambda: (kcbp.collide_many(m, other, POSES), want_many),
                     lambda: (kcbp.collide(m, other, pose_b=(0.05, 0, 0, 0, 0, 1, 30))["collide"], True),
                     lambda: (m.vertices.shape[1], 3), lambda: (len(kcbp.cbp(m, k=8)[1]) > 0, True),
                     lambda: (kcbp.collide(m, other, k=24, pose_b=(3, 0, 0, 0, 0, 1, 0))["collide"], False)]
            n = 0
            while True:  # until the mesh is found closed, which it will be
                try:
                    got, want = calls[(n + i) % len(calls)]()
                    if not np.array_equal(got, want):
                        bad.append((got, want))
                    kind = "ok"
                except kcbp.Error as e:
                    if e.code != "closed":
                        bad.append(str(e))
                    kind = "closed"
                with lock:
                    counts[kind] += 1
                n += 1
                if kind == "closed":
                    break

        threads = [threading.Thread(target=hammer, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        time.sleep(0.05 + 0.05 * trial)
        m.close()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads)
        assert not bad, bad[:3]
        assert counts["ok"] > 0 and counts["closed"] == len(threads), counts
        assert m._users == 0 and m._models == {}


def test_close_waits_for_the_query_in_progress():
    """A long collide_many in one thread, close() in another meanwhile: the
    query finishes on its models with the right answer."""
    other = kcbp.load(SPOT)
    poses = np.tile(POSES, (200, 1))
    want = kcbp.collide_many(kcbp.load(BUNNY), other, poses)
    m = kcbp.load(BUNNY)
    out = {}
    started = threading.Event()

    def run():
        started.set()
        out["hits"] = kcbp.collide_many(m, other, poses)

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    time.sleep(0.005)
    m.close()
    t.join(60)
    assert np.array_equal(out["hits"], want)
    assert m.closed and m._models == {}


def test_scene_close_and_threads(tmp_path):
    scene = {"objects": [{"name": "b%d" % i, "mesh": BUNNY, "position": [0.1 * i, 0, 0],
                          "velocity": [0.2, 0, 0]} for i in range(4)], "motion": {"frames": 30, "dt": 0.1}}
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    s = kcbp.Scene(path)
    want = [len(s.frame(f)["colliding"]) for f in range(len(s))]
    errors = []

    def walk():
        try:
            for f in range(len(s)):
                assert len(s.frame(f)["colliding"]) == want[f]
                s.pose(f % 4, f)
        except kcbp.Error as e:
            if e.code != "closed":
                errors.append(e)

    threads = [threading.Thread(target=walk) for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.01)
    s.close()
    for t in threads:
        t.join(30)
    assert not errors
    assert s.closed
    for call in (lambda: s.frame(0), lambda: s.pose(0, 0), lambda: list(s)):
        with pytest.raises(kcbp.Error) as e:
            call()
        assert e.value.code == "closed"
    s.close()
