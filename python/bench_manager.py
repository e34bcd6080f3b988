"""kcbp.CollisionManager on a moving scene, against the other ways to ask.

    make
    PYTHONPATH=python /usr/bin/python3 python/bench_manager.py [--objects 100] [--frames 100] [--repeats 5]

A moving scene of N objects (copies of meshes/bunny2.obj and meshes/spot.obj,
random positions in a cube sized so that some pairs touch, small velocities
and spins) is written as a scene file, and its poses at every frame are taken
from the scene itself (kcbp_scene_object_pose), so every contender checks the
same pairs at the same poses:

  - `kcbp scene FILE --jobs 1`: the program, its per-frame detection time
    (the sum over frames of time_ms.detect / frames);
  - kcbp.CollisionManager: per step, set_transform of every object (4x4
    matrices) then in_collision_internal(return_names=True), wall-clock;
    also split into the set_transform calls and the query, and the query
    against a bare ctypes call of kcbp_world_collide on the manager's world
    (the Python layer's own share of the query);
  - trimesh-style per-call use: kcbp.collide on every pair from Python, on
    the first --brute-frames frames (it is slow).

Every step's pairs are checked equal across all of them (the program's, the
manager's, brute force's). Each figure is the median over --repeats runs
(interleaved: load from other processes hits all alike) with the min and max.
The per-step overhead of the Python layer is the manager's step minus the
program's frame.
"""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import kcbp
from kcbp import _api, _lib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
MESHES = ["bunny2.obj", "spot.obj"]


def write_scene(folder, n, frames, seed):
    rng = np.random.default_rng(seed)
    side = 2.2 * n ** (1 / 3)  # one object per 10.6 unit cube (each about 1.5 wide): a few touch
    objs = []
    for i in range(n):
        axis = rng.normal(size=3)
        spin = rng.normal(size=3)
        objs.append({"name": "o%03d" % i, "mesh": MESHES[i % len(MESHES)],
                     "position": rng.uniform(0, side, size=3).tolist(),
                     "rotation": {"axis": axis.tolist(), "angle_deg": float(rng.uniform(0, 360))},
                     "velocity": rng.uniform(-0.5, 0.5, size=3).tolist(),
                     "angular_velocity": {"axis": spin.tolist(), "deg_per_s": float(rng.uniform(-60, 60))}})
    for m in MESHES:
        shutil.copy(os.path.join(ROOT, "meshes", m), folder)
    path = os.path.join(folder, "moving.json")
    with open(path, "w") as f:
        json.dump({"objects": objs, "motion": {"frames": frames, "dt": 0.01}}, f)
    return path, [o["name"] for o in objs], [o["mesh"] for o in objs]


def scene_poses(path):
    """(frames, n, 4, 4): every object's pose at every frame, as the scene computes it."""
    with kcbp.Scene(path) as s:
        n, frames = len(s.objects), len(s)
        out = np.empty((frames, n, 4, 4))
        for f in range(frames):
            for i in range(n):
                out[f, i] = _api._matrix_of(_lib.lib.kcbp_scene_object_pose(s._s, i, f))
    return out


def run_cli(exe, path):
    out = subprocess.run([exe, "scene", path, "--jobs", "1"], check=True, capture_output=True, text=True).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    pairs = [{tuple(sorted((c["a"], c["b"]))) for c in line["colliding"]} for line in lines]
    return sum(line["time_ms"]["detect"] for line in lines) / len(lines), pairs


def run_manager(names, geoms, poses):
    """(ms per step, ms of the set_transform calls per step, ms of the query
    per step, ms of a bare kcbp_world_collide per step, pairs per step)."""
    cm = kcbp.CollisionManager()
    for name, g, t in zip(names, geoms, poses[0]):
        cm.add_object(name, g, t)
    pairs, t_move, t_query = [], 0.0, 0.0
    clock = time.perf_counter
    t0 = clock()
    for step in poses:
        a = clock()
        for name, t in zip(names, step):
            cm.set_transform(name, t)
        b = clock()
        pairs.append(cm.in_collision_internal(return_names=True)[1])
        t_query += clock() - b
        t_move += b - a
    total = clock() - t0
    # The query alone, bare: the C call through ctypes on the same world (poses unchanged: cached pairs).
    err = _lib.ErrorStruct()
    t1 = clock()
    for _ in poses:
        _lib.check(_lib.lib.kcbp_world_collide(cm._world, ctypes.byref(cm._hits), err), err)
    bare = clock() - t1
    t2 = clock()
    for _ in poses:
        cm.in_collision_internal(return_names=True)
    wrapped = clock() - t2
    cm.close()
    f = len(poses)
    return (total * 1e3 / f, t_move * 1e3 / f, t_query * 1e3 / f, bare * 1e3 / f, wrapped * 1e3 / f, pairs)


def run_brute(names, geoms, poses):
    pairs = []
    t0 = time.perf_counter()
    n = len(names)
    for step in poses:
        hit = set()
        for i in range(n):
            for j in range(i + 1, n):
                if kcbp.collide(geoms[i], geoms[j], pose_a=step[i], pose_b=step[j], measure_cbp=False)["collide"]:
                    hit.add(tuple(sorted((names[i], names[j]))))
        pairs.append(hit)
    return (time.perf_counter() - t0) * 1e3 / len(poses), pairs


def fmt(xs, unit="ms"):
    return "%.3f %s (min %.3f, max %.3f)" % (statistics.median(xs), unit, min(xs), max(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objects", type=int, default=100)
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--brute-frames", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exe", default=os.path.join(ROOT, "kcbp"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kcbp_bench_manager.")
    try:
        path, names, mesh_of = write_scene(tmp, a.objects, a.frames, a.seed)
        poses = scene_poses(path)
        meshes = {m: kcbp.load(os.path.join(tmp, m)) for m in MESHES}
        geoms = [meshes[m] for m in mesh_of]
        cli, mgr, move, query, bare, wrapped, brute = [], [], [], [], [], [], []
        for r in range(a.repeats):
            c_ms, c_pairs = run_cli(a.exe, path)
            m_ms, mv, q, b, w, m_pairs = run_manager(names, geoms, poses)
            assert m_pairs == c_pairs, "the manager's pairs differ from kcbp scene's"
            cli.append(c_ms)
            mgr.append(m_ms)
            move.append(mv)
            query.append(q)
            bare.append(b)
            wrapped.append(w)
            if r < 2 and a.brute_frames > 0:  # slow: two runs
                b_ms, b_pairs = run_brute(names, geoms, poses[:a.brute_frames])
                assert b_pairs == c_pairs[:a.brute_frames], "brute force's pairs differ from kcbp scene's"
                brute.append(b_ms)
        touching = sum(len(p) for p in c_pairs)
        print("scene: %d objects (%s), %d frames, %d touching pairs over all frames; python %s, libkcbp %s"
              % (a.objects, " + ".join(MESHES), a.frames, touching, sys.version.split()[0], kcbp.VERSION))
        print("medians of %d runs (min, max); the pairs of every step equal across all contenders" % a.repeats)
        print("kcbp scene --jobs 1, per frame (detect): %s" % fmt(cli))
        print("CollisionManager, per step:              %s" % fmt(mgr))
        print("  set_transform x %d, per step:         %s" % (a.objects, fmt(move)))
        print("  in_collision_internal, per step:       %s" % fmt(query))
        print("  same query, poses unchanged:           %s" % fmt(wrapped))
        print("  bare kcbp_world_collide, unchanged:    %s" % fmt(bare))
        over = [m - c for m, c in zip(mgr, cli)]
        print("per-step overhead of the Python layer (manager - kcbp scene): %s = %.1f us per object"
              % (fmt(over), statistics.median(over) * 1e3 / a.objects))
        if brute:
            print("kcbp.collide on all %d pairs from Python, per step (%d frames, %d runs): %s"
                  % (a.objects * (a.objects - 1) // 2, a.brute_frames, len(brute), fmt(brute)))
            print("manager speed-up over per-pair calls: %.0fx" % (statistics.median(brute) / statistics.median(mgr)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
