#!/usr/bin/env python3
"""bench/reader_growth.py: the growth test of every reader and command that
reads a file (issue 33 item 6: no quadratic path in any reader), as
bench/gltf_growth.sh is for glTF. For each case, inputs of N, 2N, 4N, 8N
elements are written, and the kcbp command that reads them is run RUNS
times; the table gives the median CPU time (user + system of the child:
the machine is shared, wall time is noise) and the largest ratio of 2N's
time over N's: about 2 when linear, about 4 when quadratic.

  bench/reader_growth.py                        every case, default sizes
  bench/reader_growth.py svgnest,svgin 4000     these cases from N = 4000
  RUNS=1 MAX_RATIO=3 bench/reader_growth.py

Cases: meshes (obj, off, stl ascii and binary, ply ascii and both binary
endians: a grid of N triangles, collided far from a tetrahedron so that the
load dominates), 2D (GeoJSON: N squares, one ring of N vertices, a square
with N holes; SVG: N rects, N nested squares, N small squares inside one
ring of N vertices), --poses (N poses), scenes (N spheres; N objects of
one mesh file; N 2D circles) and batch (N scene files). Exits 1 when a run
fails or a ratio exceeds MAX_RATIO (default 3).
"""
import os, sys, subprocess, resource, struct, json, math, random, tempfile, shutil
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
K = os.environ.get("KCBP_EXE", os.path.join(ROOT, "build", "kcbp"))
RUNS = int(os.environ.get("RUNS", "3"))
MAX_RATIO = float(os.environ.get("MAX_RATIO", "3"))
D = tempfile.mkdtemp(prefix="kcbp-growth-")
TET = os.path.join(D, "tet.obj")
open(TET, "w").write("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
def cpu(cmd, runs=RUNS):
    ts = []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0: return "FAIL rc=%d %s" % (p.returncode, p.stderr[:200])
        ts.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
    ts.sort(); return ts[len(ts)//2]
def grid(n):  # n triangles as a strip grid, returns verts, tris
    k = max(1, int(math.sqrt(n / 2)))
    V = [(i, j, (i * 7 + j * 3) % 5 * 0.1) for i in range(k + 1) for j in range(k + 1)]
    T = []
    for i in range(k):
        for j in range(k):
            a = i * (k + 1) + j; b = a + 1; c = a + k + 1; d = c + 1
            T += [(a, b, d), (a, d, c)]
    return V, T
def w_obj(p, n):
    V, T = grid(n)
    with open(p, "w") as f:
        f.write("".join("v %g %g %g\n" % v for v in V)); f.write("".join("f %d %d %d\n" % (a+1, b+1, c+1) for a, b, c in T))
def w_off(p, n):
    V, T = grid(n)
    with open(p, "w") as f:
        f.write("OFF\n%d %d 0\n" % (len(V), len(T))); f.write("".join("%g %g %g\n" % v for v in V)); f.write("".join("3 %d %d %d\n" % t for t in T))
def w_stl(p, n):
    V, T = grid(n)
    with open(p, "w") as f:
        f.write("solid x\n")
        for t in T:
            f.write("facet normal 0 0 1\nouter loop\n" + "".join("vertex %g %g %g\n" % V[i] for i in t) + "endloop\nendfacet\n")
        f.write("endsolid x\n")
def w_bstl(p, n):
    V, T = grid(n)
    with open(p, "wb") as f:
        f.write(b"\0" * 80 + struct.pack("<I", len(T)))
        for t in T: f.write(struct.pack("<12fH", 0, 0, 1, *V[t[0]], *V[t[1]], *V[t[2]], 0))
def w_ply(p, n, fmt):
    V, T = grid(n)
    with open(p, "wb") as f:
        f.write(("ply\nformat %s 1.0\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\nelement face %d\nproperty list uchar int vertex_indices\nend_header\n" % (fmt, len(V), len(T))).encode())
        if fmt == "ascii":
            f.write("".join("%g %g %g\n" % v for v in V).encode()); f.write("".join("3 %d %d %d\n" % t for t in T).encode())
        else:
            e = "<" if fmt == "binary_little_endian" else ">"
            f.write(b"".join(struct.pack(e + "3f", *v) for v in V)); f.write(b"".join(struct.pack(e + "B3i", 3, *t) for t in T))
def w_geojson(p, n):  # n unit squares
    k = int(math.sqrt(n)); polys = []
    for i in range(k):
        for j in range(k):
            x, y = 2 * i, 2 * j; polys.append([[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]])
    json.dump({"type": "MultiPolygon", "coordinates": polys}, open(p, "w"))
def w_svg(p, n, nested=False):
    k = int(math.sqrt(n)); s = ['<svg xmlns="http://www.w3.org/2000/svg">']
    if nested:
        for i in range(n): r = i + 1; s.append('<polygon points="%d,%d %d,%d %d,%d %d,%d"/>' % (-r, -r, r, -r, r, r, -r, r))
    else:
        for i in range(k):
            for j in range(k): s.append('<rect x="%d" y="%d" width="1" height="1"/>' % (2 * i, 2 * j))
    s.append("</svg>"); open(p, "w").write("\n".join(s))
def w_ring(p, n):  # one ring of n vertices (circle), geojson
    pts = [[math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)] for i in range(n)]; pts.append(pts[0])
    json.dump({"type": "Polygon", "coordinates": [pts]}, open(p, "w"))
def w_holes(p, n):
    k = int(math.sqrt(n)); rings = [[[-1, -1], [2 * k + 1, -1], [2 * k + 1, 2 * k + 1], [-1, 2 * k + 1], [-1, -1]]]
    for i in range(k):
        for j in range(k): x, y = 2 * i, 2 * j; rings.append([[x, y], [x, y + 1], [x + 1, y + 1], [x + 1, y], [x, y]])
    json.dump({"type": "Polygon", "coordinates": rings}, open(p, "w"))
def w_poses(p, n):
    rng = random.Random(1)
    with open(p, "w") as f:
        for i in range(n): f.write("%g %g %g 0 0 1 %g\n" % (rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0, 360)))
def w_scene(p, n, moving=False):
    k = int(round(n ** (1 / 3))) + 1; objs = []
    for i in range(n):
        objs.append({"name": "o%d" % i, "shape": {"sphere": {"radius": 0.4}}, "position": [i % k, (i // k) % k, i // (k * k)]})
    d = {"objects": objs}
    json.dump(d, open(p, "w"))
def w_scene2d(p, n):
    objs = [{"name": "o%d" % i, "shape": {"circle": {"radius": 0.4}}, "pose": [i % 1000, i // 1000, 0]} for i in range(n)]
    json.dump({"objects": objs}, open(p, "w"))
def w_svg_inside(p, n):  # n small squares inside one ring of n vertices
    k = int(math.sqrt(n)); R = 4.0 * k; s = ['<svg xmlns="http://www.w3.org/2000/svg">']
    s.append('<polygon points="%s"/>' % " ".join("%.17g,%.17g" % (R * math.cos(2 * math.pi * i / n), R * math.sin(2 * math.pi * i / n)) for i in range(n)))
    for i in range(k):
        for j in range(k):
            x, y = -k + 2 * i * 0.7, -k + 2 * j * 0.7; s.append('<rect x="%g" y="%g" width="0.5" height="0.5"/>' % (x, y))
    s.append("</svg>"); open(p, "w").write("\n".join(s))
def w_batch_files(p, n):  # n scene files: the command line lists them
    paths = []
    for i in range(n):
        q = "%s.%d.json" % (p, i)
        json.dump({"objects": [{"name": "a", "shape": {"sphere": {"radius": 0.5}}, "position": [0, 0, 0]},
                               {"name": "b", "shape": {"sphere": {"radius": 0.5}}, "position": [0.9, 0, 0]}]}, open(q, "w"))
        paths.append(q)
    open(p, "w").write("\n".join(paths))
def w_scene_mesh(p, n):  # n objects sharing one mesh file
    open(os.path.join(os.path.dirname(p), "t.obj"), "w").write("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    objs = [{"name": "o%d" % i, "mesh": "t.obj", "position": [3 * (i % 100), 3 * (i // 100), 0]} for i in range(n)]
    json.dump({"objects": objs}, open(p, "w"))
cases = {
 "obj": (w_obj, ".obj", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "off": (w_off, ".off", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "stl": (w_stl, ".stl", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "bstl": (w_bstl, ".stl", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "ply": (lambda p, n: w_ply(p, n, "ascii"), ".ply", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "plyle": (lambda p, n: w_ply(p, n, "binary_little_endian"), ".ply", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "plybe": (lambda p, n: w_ply(p, n, "binary_big_endian"), ".ply", lambda f: ["collide", f, TET, "--no-cbp", "--pose-b", "1e6 0 0 0 0 1 0"]),
 "geojson": (w_geojson, ".geojson", lambda f: ["collide", f, "circle:0.1", "--pose-b", "-5 -5 0"]),
 "ring": (w_ring, ".geojson", lambda f: ["collide", f, "circle:0.1", "--pose-b", "-5 -5 0"]),
 "holes": (w_holes, ".geojson", lambda f: ["collide", f, "circle:0.1", "--pose-b", "-5 -5 0"]),
 "svg": (w_svg, ".svg", lambda f: ["collide", f, "circle:0.1", "--pose-b", "-5 -5 0"]),
 "svgnest": (lambda p, n: w_svg(p, n, True), ".svg", lambda f: ["collide", f, "circle:0.1", "--pose-b", "-5e6 -5 0"]),
 "poses": (w_poses, ".txt", lambda f: ["collide", TET, TET, "--poses", f]),
 "svgin": (w_svg_inside, ".svg", lambda f: ["collide", f, "circle:0.1", "--pose-b", "-5e6 -5 0"]),
 "scene": (w_scene, ".json", lambda f: ["scene", f]),
 "scenemesh": (w_scene_mesh, ".json", lambda f: ["scene", f]),
 "scene2d": (w_scene2d, ".json", lambda f: ["scene", f]),
 "batch": (w_batch_files, ".list", lambda f: ["batch", "--jobs", "1"] + open(f).read().split("\n")),
}
which = sys.argv[1].split(",") if len(sys.argv) > 1 else list(cases)
n0 = int(sys.argv[2]) if len(sys.argv) > 2 else 2500
sizes = [n0, 2 * n0, 4 * n0, 8 * n0]
status = 0
print("| case | " + " | ".join("N = %d" % n for n in sizes) + " | largest ratio 2N/N |")
print("|---|" + "---|" * len(sizes) + "---|")
try:
    for w in which:
        gen, ext, cmd = cases[w]; row = []; prev = None; worst = 0
        for n in sizes:
            f = os.path.join(D, "%s_%d%s" % (w, n, ext)); gen(f, n)
            c = cmd(f)
            t = cpu([K] + c)
            for q in [f] + ([x for x in open(f).read().split("\n") if x] if ext == ".list" else []):
                os.unlink(q)
            if isinstance(t, str):
                row.append(t); status = 1; break
            if prev: worst = max(worst, t / prev if prev > 0.005 else 0)
            prev = t; row.append("%.3f s" % t)
        if worst > MAX_RATIO: status = 1
        print("| %s | %s | %.2f |" % (w, " | ".join(row), worst), flush=True)
finally:
    shutil.rmtree(D, ignore_errors=True)
if status:
    print("reader_growth.py: a run failed or a ratio is above %g: not linear" % MAX_RATIO, file=sys.stderr)
sys.exit(status)
