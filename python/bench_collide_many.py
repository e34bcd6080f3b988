"""Speed of the Python package against the kcbp program.

    make && make -C bench gen_poses
    bench/gen_poses meshes/bunny2.obj meshes/spot.obj 1 10000 > /tmp/poses.txt
    PYTHONPATH=python /usr/bin/python3 python/bench_collide_many.py meshes/bunny2.obj meshes/spot.obj /tmp/poses.txt

Prints, best of REPEATS (default 11) runs each, the runs of the two
interleaved so that load from other processes hits both alike:
  - the query time of `kcbp collide A B --poses FILE --contacts none` (the sum
    of its lines' stats.query_ms) and the wall-clock time of
    kcbp.collide_many on the same poses (pose conversion included), per pose,
    and their ratio (the answers are checked equal);
  - the per-call overhead of kcbp.collide on a small query (two meshes far
    apart: the world boxes decide), the wall-clock time of a call minus the
    query time measured inside it, with contacts="none" and measure_cbp=False.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

import kcbp

REPEATS = int(os.environ.get("REPEATS", 11))


def main(a_path, b_path, poses_path, exe="./kcbp"):
    poses = np.loadtxt(poses_path, comments="#", ndmin=2)
    a, b = kcbp.load(a_path), kcbp.load(b_path)
    n = len(poses)

    cli_ms, cli_answers, py_ms = [], None, []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        got = kcbp.collide_many(a, b, poses)
        py_ms.append((time.perf_counter() - t0) * 1e3)
        out = subprocess.run([exe, "collide", a_path, b_path, "--poses", poses_path, "--contacts", "none"],
                             check=True, capture_output=True, text=True).stdout
        lines = [json.loads(line) for line in out.splitlines()]
        cli_ms.append(sum(line["stats"]["query_ms"] for line in lines))
        cli_answers = np.array([line["collide"] for line in lines])

    assert np.array_equal(got, cli_answers), "collide_many disagrees with the CLI"

    c, p = min(cli_ms), min(py_ms)
    print("poses: %d (%d collide)" % (n, int(got.sum())))
    print("kcbp collide --poses: query %.1f ms = %.2f us/pose (best of %d)" % (c, c * 1e3 / n, REPEATS))
    print("kcbp.collide_many:    call  %.1f ms = %.2f us/pose (best of %d)" % (p, p * 1e3 / n, REPEATS))
    print("ratio collide_many / CLI: %.3f" % (p / c))

    far = (100.0, 0, 0, 0, 0, 1, 0)
    calls = 20000
    best = None
    for _ in range(REPEATS):
        inner = 0.0
        t0 = time.perf_counter()
        for _ in range(calls):
            inner += kcbp.collide(a, b, pose_b=far, measure_cbp=False)["stats"]["query_ms"]
        total = (time.perf_counter() - t0) * 1e3
        if best is None or total < best[0]:
            best = (total, inner)
    total, inner = best
    print("kcbp.collide, small query (aabb decides): %.2f us/call, of which %.2f us in kcbp_collide:"
          " overhead %.2f us/call" % (total * 1e3 / calls, inner * 1e3 / calls, (total - inner) * 1e3 / calls))


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
