/* moving_kcbp: kcbp's side of bench/moving.sh (issue 12), in process.
 *
 *   moving_kcbp SCENE.json K cbp|aabb [RUNS=1]
 *
 * Loads and builds the scene with K-plane k-CBPs (greedy directions; the
 * models are built once, untimed), then RUNS times: a fresh kcbp_scene_eval
 * (untimed), and every frame of the scene evaluated in order with that ONE
 * evaluation, as `kcbp scene` does, so the broad phase's sweep order carries
 * over from frame to frame. --contacts none; the k-CBP filter on (cbp) or off
 * (aabb: the boxes of the k-CBPs only). The time of a run is the wall-clock
 * time of its kcbp_scene_eval_frame calls (world boxes with the poses,
 * broad phase, pair tests and recording the colliding pairs), summed over
 * the frames; copying each frame's pairs for the output is not timed.
 *
 * Prints, one "key value" a line: objects, frames, triangles (per model,
 * joined by "/"), k, build_ms (the models), broadphase, mesh_tested and
 * colliding (summed over the frames: pair-frames), median_ms (over the
 * runs), the medians of each stage's total over the frames (bounds_ms,
 * broadphase_ms, filter_ms, mesh_ms: kcbp_scene_frame's own timers), run_ms
 * (every run's time, in order), then one "frame F pair A B" line per
 * colliding pair of each frame (names, a < b in scene order). Exits 1 when a
 * run finds other pairs than the first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kcbp.h"

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
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

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s SCENE.json K cbp|aabb [RUNS=1]\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5 || (strcmp(argv[3], "cbp") != 0 && strcmp(argv[3], "aabb") != 0))
        return usage(argv[0]);
    char *end;
    long k = strtol(argv[2], &end, 10);
    if (*end || k < KCBP_CBP_K_MIN || k > KCBP_CBP_K_MAX)
        return usage(argv[0]);
    long runs = argc > 4 ? strtol(argv[4], &end, 10) : 1;
    if (argc > 4 && (*end || runs < 1 || runs > 1000))
        return usage(argv[0]);

    kcbp_error err;
    kcbp_scene s;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = (int)k;
    if (kcbp_scene_load(&s, argv[1], &mo, &err) != KCBP_OK) {
        fprintf(stderr, "moving_kcbp: %s\n", err.msg);
        return 3;
    }
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_NONE;
    o.cbp_measure = false; /* as kcbp scene does */
    o.use_cbp = !strcmp(argv[3], "cbp");

    double *t[5]; /* per run: total, bounds, broad phase, filter, mesh */
    for (int i = 0; i < 5; i++)
        if (!(t[i] = calloc((size_t)runs, sizeof(double))))
            return 4;
    hits first = {0}, cur = {0};
    uint64_t broadphase = 0, mesh_tested = 0;
    int inconsistent = 0;
    kcbp_scene_frame f;
    memset(&f, 0, sizeof f);
    for (long r = 0; r < runs; r++) {
        kcbp_scene_eval ev;
        if (kcbp_scene_eval_init(&ev, &s, &o, &err) != KCBP_OK) {
            fprintf(stderr, "moving_kcbp: %s\n", err.msg);
            return 3;
        }
        hits *h = r == 0 ? &first : &cur;
        h->n = 0;
        for (uint32_t fr = 0; fr < s.frames; fr++) {
            double t0 = now_ms();
            kcbp_status st = kcbp_scene_eval_frame(&ev, fr, &f, &err);
            t[0][r] += now_ms() - t0;
            if (st != KCBP_OK) {
                fprintf(stderr, "moving_kcbp: frame %u: %s\n", fr, err.msg);
                return 3;
            }
            t[1][r] += f.bounds_ms;
            t[2][r] += f.broadphase_ms;
            t[3][r] += f.filter_ms;
            t[4][r] += f.mesh_ms;
            if (r == 0) {
                broadphase += f.broadphase;
                mesh_tested += f.mesh_tested;
            }
            for (size_t i = 0; i < f.colliding; i++)
                if (push(h, fr, f.hits[i].a, f.hits[i].b))
                    return 4;
        }
        kcbp_scene_eval_free(&ev);
        if (r > 0 && (cur.n != first.n || memcmp(cur.v, first.v, cur.n * sizeof *cur.v) != 0))
            inconsistent++;
    }

    printf("objects %u\nframes %u\ntriangles ", s.nobjects, s.frames);
    for (uint32_t m = 0; m < s.nmodels; m++)
        printf("%s%u", m ? "/" : "", s.models[m].model.mesh.ntriangles);
    printf("\nk %ld\nbuild_ms %.3f\n", k, s.build_ms);
    printf("broadphase %llu\nmesh_tested %llu\ncolliding %zu\n", (unsigned long long)broadphase,
           (unsigned long long)mesh_tested, first.n);
    printf("median_ms %.4f\n", median(t[0], (int)runs));
    printf("bounds_ms %.4f\nbroadphase_ms %.4f\nfilter_ms %.4f\nmesh_ms %.4f\n", median(t[1], (int)runs),
           median(t[2], (int)runs), median(t[3], (int)runs), median(t[4], (int)runs));
    printf("run_ms");
    for (long r = 0; r < runs; r++)
        printf(" %.4f", t[0][r]);
    printf("\n");
    for (size_t i = 0; i < first.n; i++)
        printf("frame %u pair %s %s\n", first.v[i].frame, s.objects[first.v[i].a].name, s.objects[first.v[i].b].name);
    for (int i = 0; i < 5; i++)
        free(t[i]);
    free(first.v);
    free(cur.v);
    kcbp_scene_frame_free(&f);
    kcbp_scene_free(&s);
    if (inconsistent) {
        fprintf(stderr, "moving_kcbp: %d runs found other pairs than the first\n", inconsistent);
        return 1;
    }
    return 0;
}
