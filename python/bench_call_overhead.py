"""The Python layer's cost per kcbp.collide call, on a pair the world boxes
settle (bunny2 and spot 5 apart: the C query is a few thousand instructions).

    python3 python/bench_call_overhead.py N      # prints microseconds per call

For instruction counts (README, "Python"): run it under callgrind with N = 1
and N = 3001; the difference of the two totals over 3000 is the cost of one
call, Python, ctypes and the query together:

    valgrind --tool=callgrind --callgrind-out-file=cg.1 python3 python/bench_call_overhead.py 1
    valgrind --tool=callgrind --callgrind-out-file=cg.3001 python3 python/bench_call_overhead.py 3001
    callgrind_annotate cg.1 | grep TOTALS; callgrind_annotate cg.3001 | grep TOTALS
"""
import os
import sys
import time

import kcbp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
m = kcbp.load(os.path.join(ROOT, "meshes", "bunny2.obj"))
s = kcbp.load(os.path.join(ROOT, "meshes", "spot.obj"))
far = (5.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
kcbp.collide(m, s, pose_b=far)
t0 = time.perf_counter()
for _ in range(n):
    kcbp.collide(m, s, pose_b=far)
print("%.2f us per call" % ((time.perf_counter() - t0) / n * 1e6))
