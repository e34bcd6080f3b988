#!/usr/bin/env python3
"""bench/threads_cpu.py: where a frame's thread CPU goes, per stage and per
thread, with --jobs 1 and --jobs 2 (issue 33 item 2; driven by
bench/threads_cpu.sh).

  threads_cpu.py instrument TREE      add the counters to a copy of the source tree
  threads_cpu.py run KCBP SCENE...    run it, print the table

The counters (CLOCK_THREAD_CPUTIME_ID around each stage's work, summed per
thread: the pool's thread and the caller's) go into a copy only, never the
library: they are globals, printed on exit. On a shared machine the wall
clock is noise; a thread's CPU time is not, and gives
  - each stage's CPU with --jobs 1, and the serial share (the broad phase's
    top levels, built on the caller's thread alone), hence Amdahl's bound
    1 / (serial + parallel / 2);
  - with --jobs 2, each stage's critical path (the larger of the two
    threads' CPU in it) and their sum: the frame's time were the threads
    never kept off their CPUs, hence a CPU speed-up, jobs 1 / jobs 2, and
    the work balance (the two threads' CPU in the pair stage).
Runs interleaved (jobs 1, jobs 2, RUNS times), medians; the pairs of every
run checked identical."""
import os
import re
import statistics
import subprocess
import sys

PHASES = ["bounds", "bp_tasks", "pilot_chunks", "main_chunks", "pilot_caller", "main_caller", "bp_caller"]


def patch(path, pairs):
    s = open(path).read()
    for old, new in pairs:
        if old not in s:
            sys.exit(f"threads_cpu.py: {path}: the code changed, cannot instrument: {old[:60]!r}")
        s = s.replace(old, new, 1)
    open(path, "w").write(s)


def instrument(root):
    head = "extern _Thread_local int kcbp_prof_pool;\nextern double kcbp_prof_cpu[8][2];\ndouble kcbp_prof_tcpu(void);\n"
    patch(root + "/src/scene/pool.c", [
        ("#include <stdlib.h>\n", """#include <stdlib.h>
#include <stdio.h>
#include <time.h>
_Thread_local int kcbp_prof_pool;
double kcbp_prof_cpu[8][2];
double kcbp_prof_tcpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
static void prof_print(void)
{
    for (int k = 0; k < 7; k++)
        fprintf(stderr, "PROF %d %.4f %.4f\\n", k, kcbp_prof_cpu[k][0], kcbp_prof_cpu[k][1]);
}
"""),
        ("    free(wa);\n    uint64_t seen = 0;", "    free(wa);\n    kcbp_prof_pool = 1;\n    uint64_t seen = 0;"),
        ("    kcbp_pool *p = calloc(1, sizeof *p);", "    static int reg;\n    if (!reg++)\n        atexit(prof_print);\n    kcbp_pool *p = calloc(1, sizeof *p);"),
    ])
    patch(root + "/src/scene/scene_eval.c", [
        ('#include "scene_internal.h"\n', '#include "scene_internal.h"\n' + head),
        ("    bounds_ctx *bc = ctx;", "    double prof0 = kcbp_prof_tcpu();\n    bounds_ctx *bc = ctx;"),
        ("        ev->boxes[i].max = kcbp_v3_add(b.max, p);\n    }\n",
         "        ev->boxes[i].max = kcbp_v3_add(b.max, p);\n    }\n    kcbp_prof_cpu[0][!kcbp_prof_pool] += kcbp_prof_tcpu() - prof0;\n"),
        ("    kcbp_status st;\n    if (!ev->tree_built)", "    kcbp_status st;\n    double prof1 = kcbp_prof_tcpu();\n    if (!ev->tree_built)"),
        ("    ev->tree_built = st == KCBP_OK;", "    ev->tree_built = st == KCBP_OK;\n    kcbp_prof_cpu[6][1] += kcbp_prof_tcpu() - prof1;"),
    ])
    patch(root + "/src/scene/boxtree_tasks.c", [
        ('#include "boxtree.h"\n', '#include "boxtree.h"\n' + head),
        ("    uint32_t i = c->by_size[k];", "    double prof0 = kcbp_prof_tcpu();\n    uint32_t i = c->by_size[k];"),
        ("    c->sum[i] = kcbp_bt_refit(c->t, c->t->nodes, c->at[i], next);",
         "    c->sum[i] = kcbp_bt_refit(c->t, c->t->nodes, c->at[i], next);\n    kcbp_prof_cpu[1][!kcbp_prof_pool] += kcbp_prof_tcpu() - prof0;"),
    ])
    patch(root + "/src/scene/pairs.c", [
        ('#include "reach.h"\n', '#include "reach.h"\n' + head),
        ("        st = run_chunk(rc, task, &p->workers[worker], sl, &err);",
         "        double prof0 = kcbp_prof_tcpu();\n        st = run_chunk(rc, task, &p->workers[worker], sl, &err);\n"
         "        kcbp_prof_cpu[rc->pilot ? 2 : 3][!kcbp_prof_pool] += kcbp_prof_tcpu() - prof0;"),
        ("            st = run_chunk(rc, t, &p->workers[0], &p->slots[0], err);",
         "            double prof0 = kcbp_prof_tcpu();\n            st = run_chunk(rc, t, &p->workers[0], &p->slots[0], err);\n"
         "            kcbp_prof_cpu[rc->pilot ? 2 : 3][!kcbp_prof_pool] += kcbp_prof_tcpu() - prof0;"),
        ("        st = run_part(&rc, 0, parts ? pilot * KCBP_PAIRS_PARTS : pilot, emit, ctx, stats, err);",
         "        double prof0 = kcbp_prof_tcpu();\n        st = run_part(&rc, 0, parts ? pilot * KCBP_PAIRS_PARTS : pilot, emit, ctx, stats, err);\n"
         "        kcbp_prof_cpu[4][1] += kcbp_prof_tcpu() - prof0;"),
        ("    if (st == KCBP_OK && !stats->stopped)\n        st = run_part(&rc, pilot, ntasks + tail * (KCBP_PAIRS_PARTS - 1), emit, ctx, stats, err);",
         "    double prof1 = kcbp_prof_tcpu();\n    if (st == KCBP_OK && !stats->stopped)\n        st = run_part(&rc, pilot, ntasks + tail * (KCBP_PAIRS_PARTS - 1), emit, ctx, stats, err);\n"
         "    kcbp_prof_cpu[5][1] += kcbp_prof_tcpu() - prof1;"),
    ])


def one(kcbp, scene, jobs):
    r = subprocess.run([kcbp, "scene", scene, "--jobs", str(jobs)], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"threads_cpu.py: {scene} --jobs {jobs}: {r.stderr[-300:]}")
    c = {}
    for m in re.finditer(r"^PROF (\d) ([0-9.]+) ([0-9.]+)$", r.stderr, re.M):
        c[PHASES[int(m.group(1))]] = (float(m.group(2)), float(m.group(3)))
    answer = re.sub(r'"time_ms":\{[^}]*\}', "", r.stdout)
    return c, answer


def stages(c, jobs):
    """Per stage: (CPU with jobs 1 | critical path with jobs 2), and the serial part."""
    g = lambda k, i: c[k][i]
    if jobs == 1:
        return {"world boxes": g("bounds", 1), "broad phase": g("bp_caller", 1), "pilot": g("pilot_caller", 1),
                "pairs": g("main_caller", 1)}, g("bp_caller", 1) - g("bp_tasks", 1), \
            g("main_caller", 1) - g("main_chunks", 1) + g("pilot_caller", 1) - g("pilot_chunks", 1)
    return {"world boxes": max(g("bounds", 0), g("bounds", 1)), "broad phase": max(g("bp_tasks", 0), g("bp_caller", 1)),
            "pilot": max(g("pilot_chunks", 0), g("pilot_caller", 1)),
            "pairs": max(g("main_chunks", 0), g("main_caller", 1))}, 0, (g("main_chunks", 0), g("main_caller", 1))


def run(kcbp, scenes):
    runs = int(os.environ.get("RUNS", "3"))
    status = 0
    print("| scene | stage | --jobs 1 CPU ms | share | --jobs 2 critical path ms | 1 / 2 |")
    print("|---|---|---|---|---|---|")
    summary = []
    for sc in scenes:
        r1, r2, answers = [], [], set()
        for _ in range(runs):
            for jobs, into in ((1, r1), (2, r2)):
                c, a = one(kcbp, sc, jobs)
                into.append(c)
                answers.add(a)
        if len(answers) != 1:
            print(f"threads_cpu.py: {sc}: the runs found different pairs", file=sys.stderr)
            status = 1
        s1 = [stages(c, 1) for c in r1]
        s2 = [stages(c, 2) for c in r2]
        name = os.path.basename(sc).removesuffix(".json")
        t1 = t2 = 0
        for k in s1[0][0]:
            a = statistics.median(x[0][k] for x in s1)
            b = statistics.median(x[0][k] for x in s2)
            t1 += a
            t2 += b
            summary.append((name, k, a, b))
        serial = statistics.median(x[1] for x in s1)
        emit = statistics.median(x[2] for x in s1)
        pool = statistics.median(x[2][0] for x in s2)
        caller = statistics.median(x[2][1] for x in s2)
        for (n, k, a, b) in summary[-4:]:
            print(f"| {n} | {k} | {a:.2f} | {100 * a / t1:.1f}% | {b:.2f} | {a / b if b else 0:.2f} |")
        print(f"| {name} | **frame** | {t1:.2f} | serial {100 * serial / t1:.1f}% (the broad phase's top levels) | {t2:.2f} | "
              f"**{t1 / t2:.3f}** (Amdahl's bound {t1 / (serial + (t1 - serial) / 2):.3f}) |")
        print(f"| {name} | pair stage balance, --jobs 2 | caller's report writing {emit:.2f} ms | | pool thread {pool:.2f} / "
              f"caller {caller:.2f} | |", flush=True)
    return status


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "instrument":
        instrument(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3:]))
    else:
        sys.exit(__doc__)
