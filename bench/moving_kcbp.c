/* moving_kcbp: kcbp's side of bench/moving.sh (issue 12), in process.
 *
 *   moving_kcbp SCENE.json K cbp|aabb|both [RUNS=1] [JOBS=1]
 *
 * Loads and builds the scene with K-plane k-CBPs (greedy directions; the
 * models are built once, untimed), then for each filter RUNS timed runs,
 * after one untimed warm-up run per filter (the first run of a process is
 * slower: fresh scratch memory, cold caches). A run is a fresh
 * kcbp_scene_eval (untimed) and every frame of the scene evaluated in order
 * with that ONE evaluation, as `kcbp scene` does, so the broad phase's sweep
 * order carries over from frame to frame; --contacts none; the k-CBP filter
 * on (cbp) or off (aabb: the boxes of the k-CBPs only). The time of a run is
 * the wall-clock time of its kcbp_scene_eval_frame calls (poses and world
 * boxes, broad phase, pair tests, recording the colliding pairs), summed
 * over the frames; copying each frame's pairs for the output is not timed.
 * The same calls' CPU time (the process's, every thread's: JOBS threads per
 * evaluation) is reported as cpu_ms: on a shared machine the steadier one.
 *
 * "both" runs the two filters on the same models, alternating
 * (cbp aabb aabb cbp cbp aabb ...), so that the slow phases of a shared
 * machine fall on both alike: their ratio is then much steadier than that of
 * two processes run one after the other.
 *
 * Prints, one "key value" a line: objects, frames, triangles (per model,
 * joined by "/"), k, build_ms (the models), then for each filter F lines
 * "F key value": broadphase, mesh_tested, colliding (summed over the frames:
 * pair-frames), median_ms (over the runs), cpu_ms (the median CPU time), the medians of each stage's total
 * over the frames (bounds_ms, broadphase_ms, filter_ms, mesh_ms:
 * kcbp_scene_frame's own timers), run_ms (every run's time, in order), and
 * then "F frame N pair A B" per colliding pair of each frame (names, a < b in
 * scene order). Exits 1 when a run finds other pairs than the warm-up run of
 * its filter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

typedef struct {
    uint32_t frame, a, b;
} hit;

typedef struct {
    hit *v;
    size_t n, cap;
} hits;

static int push(hits *h, uint32_t frame, uint32_t a, uint32_t b)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        hit *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return -1;
        h->v = v;
        h->cap = cap;
    }
    h->v[h->n++] = (hit){frame, a, b};
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, long n)
{
    double *c = malloc((size_t)n * sizeof *c);
    if (!c)
        abort();
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    free(c);
    return m;
}

/* One filter's runs. */
typedef struct {
    const char *name;
    kcbp_collide_options opts;
    double *t[6];   /* per run: total, bounds, broad phase, filter, mesh, CPU */
    long done;      /* timed runs so far */
    hits first;     /* the warm-up run's pairs */
    uint64_t broadphase, mesh_tested;
    int inconsistent;
} filter_runs;

/* One run of every frame; timed unless it is the warm-up. Returns an exit
 * status (0: fine). */
static int run(const kcbp_scene *s, filter_runs *fr, bool warmup, kcbp_scene_frame *f, hits *cur, unsigned jobs)
{
    kcbp_error err;
    kcbp_scene_eval *ev;
    kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
    eo.collide = fr->opts;
    eo.jobs = jobs;
    if (kcbp_scene_eval_new(s, &eo, &ev, &err) != KCBP_OK) {
        fprintf(stderr, "moving_kcbp: %s\n", err.msg);
        return 3;
    }
    hits *h = warmup ? &fr->first : cur;
    h->n = 0;
    double t[6] = {0, 0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < kcbp_scene_frame_count(s); i++) {
        double t0 = now_ms(), c0 = cpu_ms();
        kcbp_status st = kcbp_scene_eval_frame(ev, i, f, &err);
        t[5] += cpu_ms() - c0;
        t[0] += now_ms() - t0;
        if (st != KCBP_OK) {
            fprintf(stderr, "moving_kcbp: frame %u: %s\n", i, err.msg);
            return 3;
        }
        t[1] += f->time_ms.bounds;
        t[2] += f->time_ms.broadphase;
        t[3] += f->time_ms.filter;
        t[4] += f->time_ms.mesh;
        if (warmup) {
            fr->broadphase += f->broadphase;
            fr->mesh_tested += f->mesh_tested;
        }
        for (size_t j = 0; j < f->colliding; j++)
            if (push(h, i, f->hits[j].a, f->hits[j].b))
                return 4;
    }
    kcbp_scene_eval_free(ev);
    if (!warmup) {
        for (int k = 0; k < 6; k++)
            fr->t[k][fr->done] = t[k];
        fr->done++;
        if (cur->n != fr->first.n || memcmp(cur->v, fr->first.v, cur->n * sizeof *cur->v) != 0)
            fr->inconsistent++;
    }
    return 0;
}

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s SCENE.json K cbp|aabb|both [RUNS=1] [JOBS=1]\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6 ||
        (strcmp(argv[3], "cbp") != 0 && strcmp(argv[3], "aabb") != 0 && strcmp(argv[3], "both") != 0))
        return usage(argv[0]);
    char *end;
    long k = strtol(argv[2], &end, 10);
    if (*end || k < KCBP_CBP_K_MIN || k > KCBP_CBP_K_MAX)
        return usage(argv[0]);
    long runs = argc > 4 ? strtol(argv[4], &end, 10) : 1;
    if (argc > 4 && (*end || runs < 1 || runs > 1000))
        return usage(argv[0]);
    long jobs = argc > 5 ? strtol(argv[5], &end, 10) : 1;
    if (argc > 5 && (*end || jobs < 1 || jobs > 64))
        return usage(argv[0]);

    kcbp_error err;
    kcbp_scene *s;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = (int)k;
    mo.k_fine = KCBP_CBP_K_FINE_DEFAULT; /* as kcbp scene for a moving scene */
    if (kcbp_scene_load(argv[1], &mo, &s, &err) != KCBP_OK) {
        fprintf(stderr, "moving_kcbp: %s\n", err.msg);
        return 3;
    }
    filter_runs fr[2];
    int nf = 0;
    for (int i = 0; i < 2; i++) {
        const char *name = i == 0 ? "cbp" : "aabb";
        if (strcmp(argv[3], "both") != 0 && strcmp(argv[3], name) != 0)
            continue;
        filter_runs *x = &fr[nf++];
        memset(x, 0, sizeof *x);
        x->name = name;
        x->opts = kcbp_collide_options_default();
        x->opts.contacts = KCBP_CONTACTS_NONE;
        x->opts.cbp_measure = false; /* as kcbp scene does */
        x->opts.use_cbp = i == 0;
        for (int j = 0; j < 6; j++)
            if (!(x->t[j] = calloc((size_t)runs, sizeof(double))))
                return 4;
    }

    kcbp_scene_frame f;
    memset(&f, 0, sizeof f);
    hits cur = {0};
    int rc = 0;
    for (int i = 0; i < nf && !rc; i++)
        rc = run(s, &fr[i], true, &f, &cur, (unsigned)jobs);
    /* Timed runs: with two filters, in the order AB BA AB BA ... */
    for (long r = 0; r < runs && !rc; r++)
        for (int i = 0; i < nf && !rc; i++)
            rc = run(s, &fr[nf == 2 && r % 2 ? 1 - i : i], false, &f, &cur, (unsigned)jobs);
    if (rc)
        return rc;

    printf("objects %u\nframes %u\ntriangles ", kcbp_scene_object_count(s), kcbp_scene_frame_count(s));
    for (uint32_t m = 0; m < kcbp_scene_model_count(s); m++)
        printf("%s%u", m ? "/" : "", kcbp_mesh_triangle_count(kcbp_model_mesh(kcbp_scene_model(s, m))));
    printf("\nk %ld\nbuild_ms %.3f\n", k, kcbp_scene_build_time(s).build_ms);
    for (int i = 0; i < nf; i++) {
        filter_runs *x = &fr[i];
        const char *n = x->name;
        printf("%s broadphase %llu\n%s mesh_tested %llu\n%s colliding %zu\n", n,
               (unsigned long long)x->broadphase, n, (unsigned long long)x->mesh_tested, n, x->first.n);
        printf("%s median_ms %.4f\n%s cpu_ms %.4f\n", n, median(x->t[0], runs), n, median(x->t[5], runs));
        printf("%s bounds_ms %.4f\n%s broadphase_ms %.4f\n%s filter_ms %.4f\n%s mesh_ms %.4f\n", n,
               median(x->t[1], runs), n, median(x->t[2], runs), n, median(x->t[3], runs), n, median(x->t[4], runs));
        printf("%s run_ms", n);
        for (long r = 0; r < runs; r++)
            printf(" %.4f", x->t[0][r]);
        printf("\n%s run_cpu_ms", n);
        for (long r = 0; r < runs; r++)
            printf(" %.4f", x->t[5][r]);
        printf("\n");
    }
    for (int i = 0; i < nf; i++)
        for (size_t j = 0; j < fr[i].first.n; j++)
            printf("%s frame %u pair %s %s\n", fr[i].name, fr[i].first.v[j].frame,
                   kcbp_scene_object_at(s, fr[i].first.v[j].a).name, kcbp_scene_object_at(s, fr[i].first.v[j].b).name);
    for (int i = 0; i < nf; i++) {
        if (fr[i].inconsistent) {
            fprintf(stderr, "moving_kcbp: %s: %d runs found other pairs than the first\n", fr[i].name,
                    fr[i].inconsistent);
            rc = 1;
        }
        for (int j = 0; j < 6; j++)
            free(fr[i].t[j]);
        free(fr[i].first.v);
    }
    free(cur.v);
    kcbp_scene_frame_free(&f);
    kcbp_scene_free(s);
    return rc;
}
