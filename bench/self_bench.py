#!/usr/bin/env python3
"""The runs and the table of bench/self.sh (see there): kcbp self against
CGAL's does_self_intersect, interleaved rounds, medians with min-max,
answers (and pairs) checked against CGAL, and the star polygons' scaling."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run(cmd, timeout=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("self_bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[:300]))
    return p.stdout, wall


def kcbp_run(kcbp, mesh, contacts="none"):
    out, wall = run([kcbp, "self", mesh, "--contacts", contacts])
    d = json.loads(out)
    s = d["stats"]
    return {"answer": bool(d["self_intersect"]), "query_ms": s["query_ms"], "build_ms": s["build_ms"],
            "load_ms": s["load_ms"], "wall_ms": 1000 * wall, "triangles": d["mesh"]["triangles"],
            "tri_pairs": s["triangle_pairs"], "pairs": d.get("pairs")}


def cgal_run(cgal, mesh, timeout):
    try:
        out, _ = run([cgal, mesh, "1"], timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    v = dict(l.split()[:2] for l in out.splitlines() if l and not l.startswith("#"))
    return {"answer": v["self_intersect"] == "1", "ms": float(v["median_ms"])}


def stat(xs):
    return statistics.median(xs), min(xs), max(xs)


def fmt(xs, unit_ms=True):
    m, lo, hi = stat(xs)
    f = (lambda x: "%.0f" % x) if m >= 100 else (lambda x: "%.1f" % x) if m >= 1 else (lambda x: "%.2f" % x)
    return "%s (%s–%s)" % (f(m), f(lo), f(hi)) if len(xs) > 1 else f(m)


def compare_pairs(kcbp, cgal, mesh, timeout):
    k = kcbp_run(kcbp, mesh, "all")
    try:
        out, _ = run([cgal, "--pairs", mesh], timeout=timeout)
    except subprocess.TimeoutExpired:
        return "CGAL too slow"
    refused, degenerate, cp, unlinked = set(), set(), set(), set()
    for l in out.splitlines():
        w = l.split()
        if w[0] == "refused":
            refused.add(int(w[1]))
        elif w[0] == "unlinked":
            unlinked.add((int(w[1]), int(w[2])))
        elif w[0] == w[1]:
            degenerate.add(int(w[0]))
        else:
            cp.add((int(w[0]), int(w[1])))
    left_out = refused | degenerate
    keep = lambda ps: set(p for p in ps if p[0] not in left_out and p[1] not in left_out)
    kp = keep(tuple(p) for p in k["pairs"]) - unlinked
    cp = keep(cp)
    if kp != cp:
        sys.exit("self_bench: %s: kcbp's pairs differ from CGAL's: %d missed, %d extra, e.g. %s" %
                 (mesh, len(cp - kp), len(kp - cp), sorted(cp ^ kp)[:5]))
    note = "%d pairs equal" % len(cp)
    if left_out or unlinked:
        note += " (left out: %d triangles CGAL cannot hold or degenerate, %d pairs CGAL does not join by their edge)" % (
            len(left_out), len(unlinked))
    return note


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kcbp", required=True)
    ap.add_argument("--cgal", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--check", type=int, default=1)
    ap.add_argument("--cgal-max-s", type=float, default=60)
    ap.add_argument("meshes", nargs="+")
    a = ap.parse_args()
    os.chdir(a.dir)
    res = {}
    for m in a.meshes:
        r = res[m] = {"kcbp": [], "cgal": [], "cgal_timeout": False}
        for i in range(a.runs):
            k = kcbp_run(a.kcbp, m)
            k.pop("pairs")
            r["kcbp"].append(k)
            if r["cgal_timeout"] or (r["cgal"] and sum(x["ms"] for x in r["cgal"]) > 1000 * a.cgal_max_s):
                continue
            c = cgal_run(a.cgal, m, timeout=5 * a.cgal_max_s)
            if c is None:
                r["cgal_timeout"] = True
                continue
            r["cgal"].append(c)
            if c["answer"] != k["answer"]:
                sys.exit("self_bench: %s: kcbp says %s, CGAL %s" % (m, k["answer"], c["answer"]))
        slow = r["cgal_timeout"] or (r["cgal"] and r["cgal"][0]["ms"] > 1000 * a.cgal_max_s)
        r["check"] = compare_pairs(a.kcbp, a.cgal, m, 5 * a.cgal_max_s) if a.check and not slow else \
            "not compared (CGAL slow)" if a.check else "not compared"
        print("self_bench: %s done: %s" % (m, r["check"]), file=sys.stderr)
    # The stars' scaling: the whole command, wall clock, interleaved.
    scale = {}
    stars = [m for m in ("star-10k.obj", "star-30k.obj", "star-100k.obj") if m in a.meshes]
    for i in range(a.runs):
        for m in stars:
            scale.setdefault(m, []).append(kcbp_run(a.kcbp, m)["wall_ms"])
    with open("raw.json", "w") as f:
        json.dump({"runs": res, "star_wall_ms": scale}, f, indent=1)
    lines = ["| mesh | triangles | self-intersects | kcbp query ms | kcbp tree build ms | CGAL does_self_intersect ms "
             "| kcbp / CGAL (query + build) | pairs tested by kcbp | check against CGAL |",
             "|---|---|---|---|---|---|---|---|---|"]
    for m in a.meshes:
        r = res[m]
        k = r["kcbp"]
        q = [x["query_ms"] for x in k]
        b = [x["build_ms"] for x in k]
        qb = [x["query_ms"] + x["build_ms"] for x in k]
        if r["cgal"]:
            c = [x["ms"] for x in r["cgal"]]
            cs = fmt(c) + (" (%d run%s)" % (len(c), "" if len(c) == 1 else "s") if len(c) < a.runs else "")
            ratio = "%.3g" % (statistics.median(qb) / statistics.median(c))
        else:
            cs, ratio = "> %.0f s" % (5 * a.cgal_max_s), "< %.3g" % (statistics.median(qb) / (5000 * a.cgal_max_s))
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %d | %s |" %
                     (m, k[0]["triangles"], "yes" if k[0]["answer"] else "no", fmt(q), fmt(b), cs, ratio,
                      k[0]["tri_pairs"], r["check"]))
    if len(stars) >= 2:
        base = statistics.median(scale[stars[0]])
        lines.append("")
        lines.append("Flat stars, the whole `kcbp self --contacts none` command (load, split, tree, query), wall "
                     "clock, median of %d interleaved runs (min–max): " % a.runs +
                     "; ".join("%s %s ms (%.2f× the 10k one)" % (m[:-4], fmt(scale[m]), statistics.median(scale[m]) / base)
                               for m in stars) + ".")
    text = "\n".join(lines) + "\n"
    with open("table.md", "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
