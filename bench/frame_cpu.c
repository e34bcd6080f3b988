/* frame_cpu: the CPU time of a scene's frames as `kcbp scene` evaluates them
 * with its default options, in process (bench/small_cpu.sh).
 *
 *   frame_cpu SCENE.json RUNS [REPEAT=1]
 *   frame_cpu SCENE.json 1 0       # cold: the process's first run, timed
 *
 * Reads and builds the scene as `kcbp scene` does (default model options,
 * the fine k-CBPs for a moving scene), untimed; then RUNS runs, after one
 * untimed warm-up run. A run is a fresh kcbp_scene_eval (untimed: --jobs 1,
 * contacts FIRST, the k-CBP stage adaptive) and every frame evaluated in
 * order, each REPEAT times in a row (a static scene's one frame is too short
 * for a clock; its evaluation keeps nothing from one call to the next).
 * The time of a run is the process's CPU time in its kcbp_scene_eval_frame
 * calls (CLOCK_PROCESS_CPUTIME_ID: on a shared machine far steadier than the
 * wall clock), divided by REPEAT. REPEAT 0: one run of each frame once, the
 * first of the process, timed (no warm-up: as `kcbp scene` runs a static
 * scene's frame, with cold caches and branch predictors).
 *
 * Prints "cpu_ms MEDIAN", "runs T1 T2 ..." and "pairs N CHECKSUM" (the
 * colliding pairs and contacts of the warm-up run, summed over the frames:
 * two builds that give other answers show it). Exits 1 when a run finds
 * other pairs than the warm-up run. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

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

/* FNV-1a over the frame's pairs and contacts */
static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;
    }
    return h;
}

static int run(const kcbp_scene *s, long repeat, double *ms, uint64_t *npairs, uint64_t *sum)
{
    kcbp_error err;
    kcbp_scene_eval *ev;
    kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
    eo.collide = kcbp_collide_options_default();
    eo.collide.contacts = KCBP_CONTACTS_FIRST; /* as kcbp scene */
    eo.collide.use_cbp = true;
    eo.jobs = 1;
    eo.cbp_adaptive = true;
    if (kcbp_scene_eval_new(s, &eo, &ev, &err) != KCBP_OK) {
        fprintf(stderr, "frame_cpu: %s\n", err.msg);
        return 3;
    }
    kcbp_scene_frame f;
    memset(&f, 0, sizeof f);
    double t = 0;
    uint64_t n = 0, h = 14695981039346656037ull;
    for (uint32_t i = 0; i < kcbp_scene_frame_count(s); i++) {
        for (long r = 0; r < repeat; r++) {
            double c0 = cpu_ms();
            kcbp_status st = kcbp_scene_eval_frame(ev, i, &f, &err);
            t += cpu_ms() - c0;
            if (st != KCBP_OK) {
                fprintf(stderr, "frame_cpu: frame %u: %s\n", i, err.msg);
                return 3;
            }
        }
        n += f.colliding;
        for (size_t j = 0; j < f.colliding; j++) {
            h = mix(h, ((uint64_t)i << 40) ^ ((uint64_t)f.hits[j].a << 20) ^ f.hits[j].b);
            for (size_t c = 0; c < f.hits[j].count; c++)
                h = mix(h, ((uint64_t)f.contacts[f.hits[j].first + c].a << 32) | f.contacts[f.hits[j].first + c].b);
        }
    }
    kcbp_scene_frame_free(&f);
    kcbp_scene_eval_free(ev);
    *ms = t / (double)repeat;
    *npairs = n;
    *sum = h;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s SCENE.json RUNS [REPEAT=1]\n", argv[0]);
        return 2;
    }
    char *end;
    long runs = strtol(argv[2], &end, 10);
    if (*end || runs < 1 || runs > 10000)
        return 2;
    long repeat = argc > 3 ? strtol(argv[3], &end, 10) : 1;
    if (argc > 3 && (*end || repeat < 0 || repeat > 1000000))
        return 2;
    kcbp_error err;
    kcbp_scene *s;
    if (kcbp_scene_read(argv[1], &s, &err) != KCBP_OK) {
        fprintf(stderr, "frame_cpu: %s\n", err.msg);
        return 3;
    }
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k_fine = kcbp_scene_frame_count(s) >= 2 ? KCBP_CBP_K_FINE_DEFAULT : 0; /* as kcbp scene */
    if (kcbp_scene_build(s, &mo, &err) != KCBP_OK) {
        fprintf(stderr, "frame_cpu: %s\n", err.msg);
        return 3;
    }
    double *t = calloc((size_t)runs, sizeof *t), warm;
    uint64_t n0, h0, n, h;
    if (!t)
        return 4;
    bool cold = repeat == 0;
    if (cold)
        runs = repeat = 1;
    int rc = run(s, repeat, cold ? &t[0] : &warm, &n0, &h0);
    for (long r = 0; r < runs && !rc && !cold; r++) {
        rc = run(s, repeat, &t[r], &n, &h);
        if (!rc && (n != n0 || h != h0))
            rc = 1;
    }
    if (rc) {
        if (rc == 1)
            fprintf(stderr, "frame_cpu: a run found other pairs than the first\n");
        return rc;
    }
    printf("pairs %llu %016llx\nruns", (unsigned long long)n0, (unsigned long long)h0);
    for (long r = 0; r < runs; r++)
        printf(" %.4f", t[r]);
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("\ncpu_ms %.4f\n", runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]));
    free(t);
    kcbp_scene_free(s);
    return 0;
}
