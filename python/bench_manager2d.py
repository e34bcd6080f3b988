#!/usr/bin/python3
"""CPU time of kcbp.CollisionManager2D's loop step: set_transform of every
object, then in_collision_internal(return_names=True), against the same
pairs found by kcbp.collide on every pair (trimesh's way without a broad
phase), on a field of moving circles, rectangles, stadiums and polygons
with holes. Medians of interleaved runs of process CPU time (the machine
is loaded: wall clock is noise); the two ways' pair sets are checked equal.

    PYTHONPATH=python python3 python/bench_manager2d.py [--objects 100 400] [--frames 20] [--repeats 5]
"""
import argparse
import math
import statistics
import time

import numpy as np

import kcbp


def geometry(rng, k):
    kind = k % 4
    if kind == 0:
        ang = (np.arange(16) + rng.uniform(0.1, 0.9, 16)) * (2 * math.pi / 16)
        ext = np.stack([np.cos(ang), np.sin(ang)], axis=1) * rng.uniform(0.6, 1.0, (16, 1))
        return kcbp.Polygon(ext, holes=[ext[::4] * 0.3])
    if kind == 1:
        return kcbp.Circle(float(rng.uniform(0.2, 0.6)))
    if kind == 2:
        return kcbp.Rect(float(rng.uniform(0.3, 1.2)), float(rng.uniform(0.3, 1.2)))
    return kcbp.Capsule2D(float(rng.uniform(0.1, 0.3)), float(rng.uniform(0.3, 1.0)))


def frames(n, nframes, seed=1):
    rng = np.random.default_rng(seed)
    side = math.sqrt(n) * 2.0
    start = np.column_stack([rng.uniform(0, side, n), rng.uniform(0, side, n), rng.uniform(0, 360, n)])
    vel = np.column_stack([rng.normal(0, 0.05, n), rng.normal(0, 0.05, n), rng.normal(0, 3, n)])
    return [start + f * vel for f in range(nframes)], [geometry(rng, k) for k in range(n)]


def run_manager(geoms, poses):
    cm = kcbp.CollisionManager2D()
    for k, g in enumerate(geoms):
        cm.add_object(k, g, tuple(poses[0][k]))
    out = []
    t0 = time.process_time()
    for frame in poses:
        for k in range(len(geoms)):
            cm.set_transform(k, tuple(frame[k]))
        out.append(cm.in_collision_internal(return_names=True)[1])
    t = time.process_time() - t0
    cm.close()
    return t / len(poses), out


def run_pairs(geoms, poses):
    out = []
    t0 = time.process_time()
    for frame in poses:
        hits = set()
        for i in range(len(geoms)):
            for j in range(i + 1, len(geoms)):
                if kcbp.collide(geoms[i], geoms[j], tuple(frame[i]), tuple(frame[j]))["collide"]:
                    hits.add((i, j))
        out.append(hits)
    return (time.process_time() - t0) / len(poses), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, nargs="+", default=[100, 400])
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-pairs", action="store_true", help="skip the every-pair loop")
    a = ap.parse_args()
    print("| objects | pairs/frame | manager step (ms) | set_transform share | every pair by kcbp.collide (ms) |")
    print("|---|---|---|---|---|")
    for n in a.objects:
        poses, geoms = frames(n, a.frames)
        tm, tp, ts = [], [], []
        ref = None
        for _ in range(a.repeats):  # interleaved
            t, got = run_manager(geoms, poses)
            tm.append(t)
            # set_transform alone
            cm = kcbp.CollisionManager2D()
            for k, g in enumerate(geoms):
                cm.add_object(k, g, tuple(poses[0][k]))
            t0 = time.process_time()
            for frame in poses:
                for k in range(n):
                    cm.set_transform(k, tuple(frame[k]))
            ts.append((time.process_time() - t0) / len(poses))
            cm.close()
            if not a.no_pairs:
                t, ref = run_pairs(geoms, poses)
                tp.append(t)
                assert ref == got, "the manager's pairs differ from every pair's"
        npairs = statistics.mean(len(x) for x in got)
        print("| %d | %.1f | %.2f | %.0f%% | %s |" % (
            n, npairs, 1e3 * statistics.median(tm), 100 * statistics.median(ts) / statistics.median(tm),
            "%.1f" % (1e3 * statistics.median(tp)) if tp else "-"))


if __name__ == "__main__":
    main()
