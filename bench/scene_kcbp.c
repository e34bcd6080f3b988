/* scene_kcbp: kcbp's side of bench/scene.sh, in process, and the
 * measurement of the broad phase's frame-to-frame coherence.
 *
 *   scene_kcbp SCENE.json [RUNS=5 [cbp|aabb]]
 *     Evaluates frame 0 RUNS times, each with a fresh kcbp_scene_eval (so no
 *     run profits from the previous one's sweep order), --contacts none,
 *     16-CBPs (greedy) and the k-CBP filter on (cbp, default) or off (aabb). Prints "broadphase N", "mesh_tested N",
 *     "colliding N", "median_ms X" (detection: world boxes + broad phase +
 *     pair tests, median over the runs), the median of each stage
 *     ("bounds_ms", "broadphase_ms", "filter_ms", "mesh_ms"), "build_ms X",
 *     then "pair A B" per colliding pair.
 *
 *   scene_kcbp --coherence SCENE.json FRAMES [SEED=1]
 *     Gives every object a random velocity (up to 0.5 units/s per axis) and
 *     spin (up to 90 deg/s), runs FRAMES frames at dt = 0.01 twice, with the
 *     broad phase keeping its order between frames (insertion sort) and
 *     sorting from scratch each frame (qsort), and prints the median broad
 *     phase time per frame of each, and how many frames fell back to a full
 *     sort. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s SCENE.json [RUNS=5 [cbp|aabb]]\n       %s --coherence SCENE.json FRAMES [SEED=1]\n", prog, prog);
    return 2;
}

/* The broad phase over the frames of a moving copy of the scene: one
 * kcbp_broadphase kept from frame to frame (coherent: its sweep order
 * repaired by insertion sort) against a new one every frame (sorted from
 * scratch). */
static int coherence(const char *path, int frames, unsigned long long seed)
{
    kcbp_error err;
    kcbp_scene *in, *s;
    /* Relative mesh paths start in the scene file's folder. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 0, path);
    if (kcbp_scene_read(path, &in, &err) != KCBP_OK || kcbp_scene_new(path, dir, &s, &err) != KCBP_OK) {
        fprintf(stderr, "scene_kcbp: %s\n", err.msg);
        return 3;
    }
    unsigned long long x = seed * 2654435761ull + 1;
    uint32_t n = kcbp_scene_object_count(in);
    for (uint32_t i = 0; i < n; i++) {
        double r[7];
        for (int k = 0; k < 7; k++) { /* xorshift64 */
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            r[k] = (double)(x >> 11) * 0x1.0p-53 * 2 - 1;
        }
        kcbp_scene_object o = kcbp_scene_object_at(in, i);
        o.velocity = kcbp_v3(0.5 * r[0], 0.5 * r[1], 0.5 * r[2]);
        o.spin_axis = kcbp_v3(r[3], r[4], r[5] + 2); /* never zero */
        o.spin_deg_per_s = 90 * r[6];
        if (kcbp_scene_add_object(s, &o, &err) != KCBP_OK) {
            fprintf(stderr, "scene_kcbp: %s\n", err.msg);
            return 3;
        }
    }
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 16;
    if (kcbp_scene_set_motion(s, (uint32_t)frames, 0.01, &err) != KCBP_OK || kcbp_scene_build(s, &mo, &err) != KCBP_OK) {
        fprintf(stderr, "scene_kcbp: %s\n", err.msg);
        return 3;
    }
    double *bp[2];
    uint64_t pairs[2] = {0, 0};
    kcbp_aabb *boxes = malloc((size_t)n * sizeof *boxes);
    for (int mode = 0; mode < 2; mode++) {
        bp[mode] = malloc((size_t)frames * sizeof(double));
        kcbp_broadphase *b = NULL;
        if (!bp[mode] || !boxes)
            return 4;
        for (int fr = 0; fr < frames; fr++) {
            for (uint32_t i = 0; i < n; i++) {
                kcbp_pose p = kcbp_scene_object_pose(s, i, (uint32_t)fr);
                boxes[i] = kcbp_model_world_bounds(kcbp_scene_model(s, kcbp_scene_object_model(s, i)), &p);
            }
            double t0 = now_ms();
            if (mode == 1 || fr == 0) {
                kcbp_broadphase_free(b);
                if (kcbp_broadphase_new(n, &b, &err) != KCBP_OK)
                    return 4;
            }
            if (kcbp_broadphase_update(b, boxes, &err) != KCBP_OK) {
                fprintf(stderr, "scene_kcbp: %s\n", err.msg);
                return 3;
            }
            bp[mode][fr] = now_ms() - t0;
            const kcbp_index_pair *pp;
            pairs[mode] += kcbp_broadphase_pairs(b, &pp);
        }
        kcbp_broadphase_free(b);
    }
    printf("objects %u frames %d broadphase_pairs_per_frame %.1f\n", n, frames, (double)pairs[0] / frames);
    printf("coherent_broadphase_us %.2f\n", 1e3 * median(bp[0] + 1, frames - 1));
    printf("qsort_broadphase_us %.2f\n", 1e3 * median(bp[1] + 1, frames - 1));
    free(bp[0]);
    free(bp[1]);
    free(boxes);
    kcbp_scene_free(s);
    kcbp_scene_free(in);
    return pairs[0] == pairs[1] ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--coherence")) {
        if (argc < 4 || argc > 5)
            return usage(argv[0]);
        int frames = atoi(argv[3]);
        if (frames < 2 || frames > 100000)
            return usage(argv[0]);
        return coherence(argv[2], frames, argc > 4 ? strtoull(argv[4], NULL, 10) : 1);
    }
    if (argc < 2 || argc > 4 || (argc == 4 && strcmp(argv[3], "cbp") != 0 && strcmp(argv[3], "aabb") != 0))
        return usage(argv[0]);
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > 1000)
        return usage(argv[0]);
    kcbp_error err;
    kcbp_scene *s;
    if (kcbp_scene_load(argv[1], NULL, &s, &err) != KCBP_OK) {
        fprintf(stderr, "scene_kcbp: %s\n", err.msg);
        return 3;
    }
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_NONE;
    o.cbp_measure = false; /* as kcbp scene does */
    o.use_cbp = argc < 4 || !strcmp(argv[3], "cbp");
    double *t[5];
    for (int k = 0; k < 5; k++)
        if (!(t[k] = malloc((size_t)runs * sizeof(double))))
            return 4;
    kcbp_scene_frame f;
    memset(&f, 0, sizeof f);
    for (int r = 0; r < runs; r++) {
        kcbp_scene_eval *ev;
        kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
        eo.collide = o;
        if (kcbp_scene_eval_new(s, &eo, &ev, &err) != KCBP_OK || kcbp_scene_eval_frame(ev, 0, &f, &err) != KCBP_OK) {
            fprintf(stderr, "scene_kcbp: %s\n", err.msg);
            return 3;
        }
        kcbp_scene_eval_free(ev);
        t[0][r] = f.time_ms.bounds + f.time_ms.broadphase + f.time_ms.filter + f.time_ms.mesh;
        t[1][r] = f.time_ms.bounds;
        t[2][r] = f.time_ms.broadphase;
        t[3][r] = f.time_ms.filter;
        t[4][r] = f.time_ms.mesh;
    }
    printf("broadphase %llu\nmesh_tested %llu\ncolliding %llu\n", (unsigned long long)f.broadphase,
           (unsigned long long)f.mesh_tested, (unsigned long long)f.colliding);
    printf("median_ms %.4f\n", median(t[0], runs));
    printf("bounds_ms %.4f\nbroadphase_ms %.4f\nfilter_ms %.4f\nmesh_ms %.4f\n", median(t[1], runs),
           median(t[2], runs), median(t[3], runs), median(t[4], runs));
    printf("build_ms %.3f\n", kcbp_scene_build_time(s).build_ms);
    for (size_t i = 0; i < f.colliding; i++)
        printf("pair %s %s\n", kcbp_scene_object_at(s, f.hits[i].a).name, kcbp_scene_object_at(s, f.hits[i].b).name);
    for (int k = 0; k < 5; k++)
        free(t[k]);
    kcbp_scene_frame_free(&f);
    kcbp_scene_free(s);
    return 0;
}
