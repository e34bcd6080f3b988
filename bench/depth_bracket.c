/* depth_bracket: the certified depth bracket of closed non-convex solids
 * (kcbp_signed_distance, KCBP_SDIST_BRACKETED) measured against independent
 * checks, per mesh pair and overlap class.
 *
 * Each pair is A (the first mesh, at the identity) and B (the second, at a
 * random rotation), both loaded as solids (a mesh that is not closed is
 * skipped, with kcbp_mesh_check_solid's message). A pose of an overlap
 * class: a random direction u, B's last contact s(u) along it found by
 * sweeping B in from outside (kcbp_sweep), and B placed at (s(u) - f *
 * size) u, size the larger box diagonal, f = 0.03 (shallow) or 0.25 (deep);
 * the depth is then at most f * size.
 *
 * For each pose:
 *   - the bracket (default options), its CPU time (median of -r runs);
 *   - kcbp_distance on the same pair and pose, its CPU time (median): at an
 *     overlapping pose it stops at the first intersecting triangle pair, a
 *     few microseconds; so also kcbp_distance with B moved out by the
 *     translation and 5% of the size more (the pair apart), the cost of a
 *     distance query that has to prove something;
 *   - one kcbp_collide as solids at the pose and at the pose moved by the
 *     translation (CPU time, median): the bracket's unit of work;
 *   - the upper bound's proof re-checked: B moved by the translation is
 *     apart (kcbp_collide as solids);
 *   - the lower bound's proof checked in -d directions spread uniformly
 *     (Fibonacci sphere, randomly turned): along each the last contact s(d)
 *     by a sweep from outside must not be below depth_lower (a violation
 *     would be a bug); the best of them, min s(d), is the best a sampler of
 *     that many sweeps finds, against which depth_upper is compared.
 *
 * usage: depth_bracket [-n POSES] [-d DIRS] [-r RUNS] [-m MAX_STEPS] [-s SEED] A B [A B ...]
 * (-m: options.max_steps; default the library's, 64)
 * Prints a Markdown table; CPU time (CLOCK_PROCESS_CPUTIME_ID), medians. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, by_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double maxv(const double *v, int n)
{
    double m = -INFINITY;
    for (int i = 0; i < n; i++)
        m = fmax(m, v[i]);
    return m;
}

typedef struct {
    uint64_t s;
} rng;

static double rnd(rng *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

static kcbp_vec3 rnd_unit(rng *r)
{
    double z = 2 * rnd(r) - 1, a = 2 * M_PI * rnd(r), s = sqrt(1 - z * z);
    return kcbp_v3(s * cos(a), s * sin(a), z);
}

static int load_solid(kcbp_model *m, const char *path)
{
    kcbp_model_options o = kcbp_model_options_default();
    o.solid = true;
    kcbp_error err;
    if (kcbp_model_load(m, path, &o, &err) != KCBP_OK) {
        fprintf(stderr, "depth_bracket: %s: %s (skipped)\n", path, err.msg);
        return -1;
    }
    return 0;
}

/* The last contact along unit d: B swept in from far out. -1 when the
 * sweep was undecided or missed (reported). */
static double last_contact(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                           kcbp_vec3 d, double far)
{
    kcbp_pose from = *pb;
    from.trans = kcbp_v3_add(from.trans, kcbp_v3_scale(d, far));
    kcbp_motion ma = kcbp_motion_still(pa), mb = kcbp_motion_make(&from, pb);
    kcbp_sweep_result sr;
    kcbp_error err;
    if (kcbp_sweep(a, &ma, b, &mb, NULL, &sr, &err) != KCBP_OK || !sr.hit)
        return -1;
    return far * (1 - sr.toi);
}

static bool apart_after(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                        kcbp_vec3 t)
{
    kcbp_pose p = *pb;
    p.trans = kcbp_v3_add(p.trans, t);
    kcbp_collide_options o = kcbp_collide_options_default();
    o.solid = true;
    kcbp_collide_result cr;
    memset(&cr, 0, sizeof cr);
    kcbp_error err;
    bool ok = kcbp_collide(a, pa, b, &p, &o, &cr, &err) == KCBP_OK && !cr.collide;
    kcbp_collide_result_free(&cr);
    return ok;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

enum { MAXN = 64, MAXR = 15 };

int main(int argc, char **argv)
{
    int nposes = 6, ndirs = 500, runs = 3, max_steps = 0;
    uint64_t seed = 1;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-n"))
            nposes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-d"))
            ndirs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-r"))
            runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-m"))
            max_steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else
            break;
    }
    if (nposes < 1 || nposes > MAXN || ndirs < 1 || runs < 1 || runs > MAXR || max_steps < 0 || (argc - i) < 2 ||
        (argc - i) % 2) {
        fprintf(stderr,
                "usage: depth_bracket [-n POSES(1..%d)] [-d DIRS] [-r RUNS(1..%d)] [-m MAX_STEPS] [-s SEED] A B [A B ...]\n",
                MAXN, MAXR);
        return 2;
    }
    printf("| A | B | class | poses | up/low median | up/low max | up/best-of-%d median | up/best max | "
           "lower violated | upper not apart | bracket ms | distance ms (overlap) | ratio | ratio max | "
           "distance ms (apart) | ratio | ratio max | steps median | collide ms (overlap) | collide ms (apart) |\n",
           ndirs);
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    kcbp_signed_distance_options so = kcbp_signed_distance_options_default();
    if (max_steps)
        so.max_steps = max_steps;
    static const double fracs[2] = {0.03, 0.25};
    static const char *names[2] = {"shallow", "deep"};
    int status = 0;
    for (; i + 1 < argc; i += 2) {
        kcbp_model a, b;
        if (load_solid(&a, argv[i]))
            continue;
        if (load_solid(&b, argv[i + 1])) {
            kcbp_model_free(&a);
            continue;
        }
        kcbp_pose id = kcbp_pose_identity();
        kcbp_aabb ba = kcbp_model_world_bounds(&a, &id), bb = kcbp_model_world_bounds(&b, &id);
        double size = fmax(kcbp_v3_len(kcbp_v3_sub(ba.max, ba.min)), kcbp_v3_len(kcbp_v3_sub(bb.max, bb.min)));
        double far = 4 * size + kcbp_v3_len(kcbp_v3_add(kcbp_aabb_center(ba), kcbp_aabb_center(bb)));
        rng r = {seed * 0x9E3779B97F4A7C15ULL + 7};
        for (int cls = 0; cls < 2; cls++) {
            double ratio[MAXN], best_ratio[MAXN], tb[MAXN], td[MAXN], tr[MAXN], tf[MAXN], trf[MAXN], steps[MAXN];
            double col_hit[MAXN], col_apart[MAXN];
            int n = 0, violated = 0, not_apart = 0;
            for (int k = 0; k < nposes; k++) {
                /* B's pose: a random rotation, centred on A's box centre, then
                 * moved out along u to its last contact less f * size */
                kcbp_pose pb;
                kcbp_error err;
                kcbp_vec3 axis = rnd_unit(&r);
                kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), axis, 360 * rnd(&r), &pb, &err);
                pb.trans = kcbp_v3_sub(kcbp_aabb_center(ba), kcbp_mat3_mul_v3(&pb.rot, kcbp_aabb_center(bb)));
                kcbp_vec3 u = rnd_unit(&r);
                double s = last_contact(&a, &id, &b, &pb, u, far);
                if (s < 0)
                    continue;
                pb.trans = kcbp_v3_add(pb.trans, kcbp_v3_scale(u, s - fracs[cls] * size));
                kcbp_signed_distance_result res;
                double t[MAXR], d[MAXR];
                bool fail = false;
                for (int q = 0; q < runs; q++) {
                    double t0 = cpu_ms();
                    if (kcbp_signed_distance(&a, &id, &b, &pb, &so, &res, &err) != KCBP_OK) {
                        fprintf(stderr, "depth_bracket: %s\n", err.msg);
                        fail = true;
                        break;
                    }
                    t[q] = cpu_ms() - t0;
                    kcbp_distance_result dr;
                    t0 = cpu_ms();
                    kcbp_distance(&a, &id, &b, &pb, NULL, &dr, &err);
                    d[q] = cpu_ms() - t0;
                }
                if (fail || res.status != KCBP_SDIST_BRACKETED) {
                    if (!fail)
                        fprintf(stderr, "depth_bracket: %s/%s %s pose %d: status %s (skipped)\n", base(argv[i]),
                                base(argv[i + 1]), names[cls], k, kcbp_sdist_status_name(res.status));
                    status |= fail;
                    continue;
                }
                /* kcbp_distance at a pose apart: B moved out by the
                 * translation and 5% of the size more */
                kcbp_pose pf = pb;
                pf.trans = kcbp_v3_add(pf.trans, kcbp_v3_add(res.translation, kcbp_v3_scale(res.normal, 0.05 * size)));
                double dfar[MAXR];
                for (int q = 0; q < runs; q++) {
                    kcbp_distance_result dr;
                    double t0 = cpu_ms();
                    kcbp_distance(&a, &id, &b, &pf, NULL, &dr, &err);
                    dfar[q] = cpu_ms() - t0;
                }
                /* where the time goes: one collision test as solids at
                 * the pose (overlapping: it stops at the first contact) and
                 * at the pose moved by the translation (apart: it must prove
                 * it), the bracket's unit of work */
                double ch[MAXR], ca[MAXR];
                for (int q = 0; q < runs; q++) {
                    double t0 = cpu_ms();
                    apart_after(&a, &id, &b, &pb, kcbp_v3(0, 0, 0));
                    ch[q] = cpu_ms() - t0;
                    t0 = cpu_ms();
                    apart_after(&a, &id, &b, &pb, res.translation);
                    ca[q] = cpu_ms() - t0;
                }
                col_hit[n] = median(ch, runs);
                col_apart[n] = median(ca, runs);
                if (!apart_after(&a, &id, &b, &pb, res.translation)) {
                    not_apart++;
                    status = 1;
                }
                /* the sampled directions, a Fibonacci sphere turned at random */
                kcbp_pose turn;
                kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), rnd_unit(&r), 360 * rnd(&r), &turn, &err);
                double best = INFINITY, golden = M_PI * (3 - sqrt(5));
                for (int j = 0; j < ndirs; j++) {
                    double z = 1 - (2 * j + 1.0) / ndirs, rho = sqrt(1 - z * z);
                    kcbp_vec3 dir = kcbp_mat3_mul_v3(&turn.rot, kcbp_v3(rho * cos(golden * j), rho * sin(golden * j), z));
                    double sd = last_contact(&a, &id, &b, &pb, dir, far);
                    if (sd < 0)
                        continue;
                    /* the sweep's toi is within 1e-9 of the true one */
                    if (sd + far * 1e-8 < res.depth_lower) {
                        violated++;
                        status = 1;
                    }
                    best = fmin(best, sd);
                }
                ratio[n] = res.depth_upper / res.depth_lower;
                best_ratio[n] = res.depth_upper / best;
                tb[n] = median(t, runs);
                td[n] = median(d, runs);
                tr[n] = tb[n] / td[n];
                tf[n] = median(dfar, runs);
                trf[n] = tb[n] / tf[n];
                steps[n] = res.steps;
                n++;
            }
            double mr = maxv(ratio, n), mbr = maxv(best_ratio, n), mtr = maxv(tr, n), mtrf = maxv(trf, n);
            printf("| %s | %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %d | %d | %.3f | %.4f | %.0f | %.0f | %.3f | %.1f | "
                   "%.1f | %.0f | %.4f | %.4f |\n",
                   base(argv[i]), base(argv[i + 1]), names[cls], n, median(ratio, n), mr, median(best_ratio, n),
                   mbr, violated, not_apart, median(tb, n), median(td, n), median(tr, n), mtr, median(tf, n),
                   median(trf, n), mtrf, median(steps, n), median(col_hit, n), median(col_apart, n));
            fflush(stdout);
        }
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
    return status;
}
