"""The cost of the manager's containment pass (kcbp.CollisionManager's
default: an object inside a closed mesh collides, as trimesh's FCL says for
convex meshes) against containment=False (surfaces only), on the scene of
bench_manager.py (copies of bunny2, open, and spot, closed: half the
objects can hold others). Process CPU time of one step (set_transform of
every object, then in_collision_internal(return_names=True)), the two
managers interleaved frame by frame, medians over the repeats; the pairs of
every step checked equal (no object of this scene lies inside another).

    python3 python/bench_containment.py --objects 100 --frames 30 --repeats 5
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kcbp  # noqa: E402
import bench_manager as bm  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=100)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kcbp_bench_containment.")
    try:
        path, names, mesh_of = bm.write_scene(tmp, a.objects, a.frames, a.seed)
        poses = bm.scene_poses(path)
        meshes = {m: kcbp.load(os.path.join(tmp, m)) for m in bm.MESHES}
        geoms = [meshes[m] for m in mesh_of]
        times = {True: [], False: []}
        for _ in range(a.repeats):
            cms = {c: kcbp.CollisionManager(containment=c) for c in (True, False)}
            for cm in cms.values():
                for name, g, t in zip(names, geoms, poses[0]):
                    cm.add_object(name, g, t)
            spent = {True: 0.0, False: 0.0}
            for step in poses:
                got = {}
                for c in (True, False) if len(times[True]) % 2 == 0 else (False, True):
                    cm = cms[c]
                    t0 = time.process_time()
                    for name, t in zip(names, step):
                        cm.set_transform(name, t)
                    got[c] = cm.in_collision_internal(return_names=True)
                    spent[c] += time.process_time() - t0
                assert got[True] == got[False], "the pairs differ"
            for c in (True, False):
                times[c].append(spent[c] / len(poses) * 1e3)
                cms[c].close()
        on, off = statistics.median(times[True]), statistics.median(times[False])
        print("%d objects (%d closed meshes), %d frames, medians of %d runs, CPU ms per step:"
              % (a.objects, sum(1 for m in mesh_of if "spot" in m), len(poses), a.repeats))
        print("  containment=True (default): %.3f ms (min %.3f, max %.3f)" % (on, min(times[True]), max(times[True])))
        print("  containment=False:          %.3f ms (min %.3f, max %.3f)"
              % (off, min(times[False]), max(times[False])))
        print("  containment pass: +%.3f ms per step, %.1f us per object" % (on - off, (on - off) / a.objects * 1e3))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
