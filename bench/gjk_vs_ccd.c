/* GJK/EPA per query: kcbp against libccd on the same inputs, same program.
 *
 * Inputs: polytopes from random points on the unit sphere (all of them hull
 * vertices), 16 or 500 of them; pairs posed at random (translation up to 2.2
 * so that about half overlap). Every method runs over the same pair list;
 * each run's time / queries is one sample, and the median of RUNS samples is
 * reported. libccd gets a brute-force support over the same vertices (the
 * same loop as kcbp's scan); kcbp is reported with scan and with
 * hill-climbing support.
 *
 *   make -C bench gjk_vs_ccd && bench/gjk_vs_ccd [pairs] [runs]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ccd/ccd.h>
#include <libqhull_r/qhull_ra.h>

#include <kcbp/kcbp.h>

static uint64_t rng_state = 12345;
static double rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}
static kcbp_vec3 rnd_unit(void)
{
    for (;;) {
        kcbp_vec3 v = kcbp_v3(2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1);
        double l = kcbp_v3_len(v);
        if (l > 0.1 && l <= 1)
            return kcbp_v3_scale(v, 1 / l);
    }
}

typedef struct {
    kcbp_vec3 *v;
    uint32_t nv;
    uint32_t *start, *adj;
} poly;

/* Hull of n random points on the sphere, with adjacency. */
static poly make_poly(int n)
{
    kcbp_vec3 *p = malloc(sizeof *p * (size_t)n);
    coordT *pts = malloc(sizeof(coordT) * 3 * (size_t)n);
    for (int i = 0; i < n; i++) {
        p[i] = rnd_unit();
        pts[3 * i] = p[i].x;
        pts[3 * i + 1] = p[i].y;
        pts[3 * i + 2] = p[i].z;
    }
    poly out = {0};
    qhT qh_qh, *qh = &qh_qh;
    FILE *null = fopen("/dev/null", "w");
    qh_zero(qh, null);
    char opts[] = "qhull Qt";
    if (qh_new_qhull(qh, 3, n, pts, False, opts, NULL, null) != 0) {
        fprintf(stderr, "qhull failed\n");
        exit(1);
    }
    int *map = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        map[i] = -1;
    facetT *facet;
    vertexT *vertex, **vertexp;
    size_t nt = 0, t = 0;
    FORALLfacets nt++;
    uint32_t(*tris)[3] = malloc(sizeof *tris * nt);
    out.v = malloc(sizeof *out.v * (size_t)n);
    FORALLfacets
    {
        int k = 0;
        FOREACHvertex_(facet->vertices)
        {
            int id = qh_pointid(qh, vertex->point);
            if (map[id] < 0) {
                map[id] = (int)out.nv;
                out.v[out.nv++] = p[id];
            }
            if (k < 3)
                tris[t][k] = (uint32_t)map[id];
            k++;
        }
        t++;
    }
    if (kcbp_convex_adjacency(out.nv, (const uint32_t(*)[3])tris, nt, &out.start, &out.adj, NULL) != KCBP_OK)
        exit(1);
    qh_freeqhull(qh, !qh_ALL);
    int cl, tl;
    qh_memfreeshort(qh, &cl, &tl);
    fclose(null);
    free(map);
    free(tris);
    free(pts);
    free(p);
    return out;
}

/* libccd object: vertices with an optional pose (NULL: identity). */
typedef struct {
    const poly *p;
    const kcbp_pose *pose;
    kcbp_vec3 center;
} ccd_obj;

static void ccd_support(const void *o, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
    const ccd_obj *ob = o;
    kcbp_vec3 d = kcbp_v3(dir->v[0], dir->v[1], dir->v[2]);
    if (ob->pose)
        d = kcbp_mat3_tmul_v3(&ob->pose->rot, d);
    const kcbp_vec3 *v = ob->p->v;
    uint32_t best = 0;
    double bd = kcbp_v3_dot(v[0], d);
    for (uint32_t i = 1; i < ob->p->nv; i++) {
        double t = kcbp_v3_dot(v[i], d);
        if (t > bd) {
            bd = t;
            best = i;
        }
    }
    kcbp_vec3 r = ob->pose ? kcbp_pose_apply(ob->pose, v[best]) : v[best];
    out->v[0] = r.x;
    out->v[1] = r.y;
    out->v[2] = r.z;
}

static void ccd_center(const void *o, ccd_vec3_t *c)
{
    const ccd_obj *ob = o;
    c->v[0] = ob->center.x;
    c->v[1] = ob->center.y;
    c->v[2] = ob->center.z;
}

typedef struct {
    int a, b; /* polytope indices */
    kcbp_pose pose;
} pair;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { NPOLY = 32, MAX_RUNS = 31 };

typedef enum {
    K_INTERSECT,
    K_DISTANCE,
    K_PENETRATION,
    C_INTERSECT,
    C_GJK_PEN,
    C_MPR_PEN,
} method;

static volatile double sink;
static kcbp_epa_scratch scratch;
static kcbp_epa_params epa_params; /* set per row */

/* One timed pass of method m over the pairs (only the overlapping ones, ov
 * != NULL, for penetration); returns ns per query and fills depth[]. */
static double pass(method m, int climb, const poly *polys, const pair *pairs, int npairs, const int *ov,
                   double *depth)
{
    kcbp_convex shapes[NPOLY];
    for (int i = 0; i < NPOLY; i++) {
        shapes[i] = kcbp_convex_polytope(polys[i].v, polys[i].nv, NULL, NULL, 0);
        if (climb) {
            shapes[i].adj_start = polys[i].start;
            shapes[i].adj = polys[i].adj;
        }
    }
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = ccd_support;
    ccd.support2 = ccd_support;
    ccd.center1 = ccd_center;
    ccd.center2 = ccd_center;
    ccd.max_iterations = 1000;
    double acc = 0;
    int nq = 0;
    double t0 = now_ns();
    for (int i = 0; i < npairs; i++) {
        if (ov && !ov[i])
            continue;
        const pair *p = &pairs[i];
        nq++;
        if (m <= K_PENETRATION) {
            kcbp_support_cache cache = {{0, 0}};
            const kcbp_convex *A = &shapes[p->a], *B = &shapes[p->b];
            if (m == K_INTERSECT) {
                acc += kcbp_gjk_intersect(A, B, &p->pose, &cache);
            } else {
                kcbp_gjk_result g;
                kcbp_gjk_distance(A, B, &p->pose, NULL, &cache, &g);
                acc += g.distance;
                if (m == K_PENETRATION) {
                    kcbp_epa_result e;
                    kcbp_epa_penetration(A, B, &p->pose, &g, &epa_params, &cache, &scratch, &e);
                    acc += e.depth;
                    if (depth)
                        depth[i] = e.status == KCBP_EPA_SEPARATED ? -1 : e.depth;
                }
            }
        } else {
            ccd_obj A = {&polys[p->a], NULL, {0, 0, 0}}, B = {&polys[p->b], &p->pose, p->pose.trans};
            if (m == C_INTERSECT) {
                acc += ccdGJKIntersect(&A, &B, &ccd);
            } else {
                ccd_real_t d = 0;
                ccd_vec3_t dir, pos;
                int r = m == C_GJK_PEN ? ccdGJKPenetration(&A, &B, &ccd, &d, &dir, &pos)
                                       : ccdMPRPenetration(&A, &B, &ccd, &d, &dir, &pos);
                acc += d;
                if (depth)
                    depth[i] = r == 0 ? d : -1;
            }
        }
    }
    double t1 = now_ns();
    sink += acc;
    return nq ? (t1 - t0) / nq : 0;
}

/* The rows of the table; all are sampled once per run, interleaved, so
 * that a noisy machine slows every row alike. */
typedef struct {
    method m;
    int climb;
    int overlapping_only;
    double epa_rel_tol;
    double samples[MAX_RUNS];
    double median;
} row;

static void time_rows(row *rows, int nrows, const poly *polys, const pair *pairs, int npairs, const int *ov,
                      int runs)
{
    for (int r = -1; r < runs; r++) /* r == -1: warm-up */
        for (int i = 0; i < nrows; i++) {
            epa_params.max_iterations = KCBP_EPA_DEFAULT_MAX_ITERATIONS;
            epa_params.rel_tol = rows[i].epa_rel_tol;
            double t = pass(rows[i].m, rows[i].climb, polys, pairs, npairs, rows[i].overlapping_only ? ov : NULL,
                            NULL);
            if (r >= 0)
                rows[i].samples[r] = t;
        }
    for (int i = 0; i < nrows; i++)
        rows[i].median = median(rows[i].samples, runs);
}

/* Exact depth of an overlapping pair: min over facets of the qhull hull of
 * all a_i - pose(b_j) of -offset (the origin is inside). */
static double oracle_depth(const poly *A, const poly *B, const kcbp_pose *pose)
{
    size_t n = (size_t)A->nv * B->nv;
    coordT *pts = malloc(sizeof(coordT) * 3 * n);
    for (uint32_t i = 0; i < A->nv; i++)
        for (uint32_t j = 0; j < B->nv; j++) {
            kcbp_vec3 w = kcbp_v3_sub(A->v[i], kcbp_pose_apply(pose, B->v[j]));
            coordT *q = pts + 3 * ((size_t)i * B->nv + j);
            q[0] = w.x;
            q[1] = w.y;
            q[2] = w.z;
        }
    qhT qh_qh, *qh = &qh_qh;
    FILE *null = fopen("/dev/null", "w");
    qh_zero(qh, null);
    char opts[] = "qhull";
    double depth = -1;
    if (qh_new_qhull(qh, 3, (int)n, pts, False, opts, NULL, null) == 0) {
        facetT *facet;
        depth = INFINITY;
        FORALLfacets depth = fmin(depth, -facet->offset);
    }
    qh_freeqhull(qh, !qh_ALL);
    int cl, tl;
    qh_memfreeshort(qh, &cl, &tl);
    fclose(null);
    free(pts);
    return depth;
}

static void against_oracle(const poly *polys, const pair *pairs, int npairs, const int *ov, const double *dk,
                           const double *dg, const double *dm, int limit)
{
    double ek = 0, eg = 0, em = 0;
    int n = 0, bad_g = 0, bad_m = 0;
    for (int i = 0; i < npairs && n < limit; i++) {
        if (!ov[i])
            continue;
        double o = oracle_depth(&polys[pairs[i].a], &polys[pairs[i].b], &pairs[i].pose);
        if (!(o > 1e-9))
            continue;
        n++;
        double rk = fabs(dk[i] - o) / o, rg = fabs(dg[i] - o) / o, rm = fabs(dm[i] - o) / o;
        ek = fmax(ek, rk);
        eg = fmax(eg, rg);
        em = fmax(em, rm);
        bad_g += rg > 1e-3;
        bad_m += rm > 1e-3;
    }
    printf("    vs the qhull oracle on %d overlapping pairs: max rel error kcbp %.1e, ccdGJKPenetration %.1e (%d off "
           "by >1e-3), ccdMPRPenetration %.1e (%d off by >1e-3)\n",
           n, ek, eg, bad_g, em, bad_m);
}

static void compare(const char *what, const double *ours, const double *theirs, const int *ov, int npairs)
{
    double *rel = malloc(sizeof *rel * (size_t)npairs);
    int n = 0, missing = 0;
    for (int i = 0; i < npairs; i++) {
        if (!ov[i])
            continue;
        if (ours[i] < 0 || theirs[i] < 0) {
            missing++;
            continue;
        }
        rel[n++] = fabs(ours[i] - theirs[i]) / fmax(ours[i], 1e-12);
    }
    double mx = 0;
    int within = 0;
    for (int i = 0; i < n; i++) {
        mx = fmax(mx, rel[i]);
        within += rel[i] <= 1e-3;
    }
    printf("    depth vs %-18s median rel diff %.1e, max %.1e, %d/%d within 1e-3, %d without an answer\n", what,
           n ? median(rel, n) : 0, mx, within, n, missing);
    free(rel);
}

static void bench(int nverts, int npairs, int runs)
{
    poly polys[NPOLY];
    for (int i = 0; i < NPOLY; i++)
        polys[i] = make_poly(nverts);
    pair *pairs = malloc(sizeof *pairs * (size_t)npairs);
    for (int i = 0; i < npairs; i++) {
        pairs[i].a = (int)(rnd() * NPOLY);
        pairs[i].b = (int)(rnd() * NPOLY);
        kcbp_pose_from_axis_angle(kcbp_v3_scale(rnd_unit(), 2.2 * rnd()), rnd_unit(), 360 * rnd() - 180,
                                  &pairs[i].pose, NULL);
    }
    /* which pairs overlap, by kcbp's GJK */
    int *ov = calloc((size_t)npairs, sizeof *ov);
    int nov = 0;
    for (int i = 0; i < npairs; i++) {
        kcbp_convex A = kcbp_convex_polytope(polys[pairs[i].a].v, polys[pairs[i].a].nv, NULL, NULL, 0);
        kcbp_convex B = kcbp_convex_polytope(polys[pairs[i].b].v, polys[pairs[i].b].nv, NULL, NULL, 0);
        ov[i] = kcbp_gjk_intersect(&A, &B, &pairs[i].pose, NULL);
        nov += ov[i];
    }
    double *dk = malloc(sizeof(double) * (size_t)npairs), *dg = malloc(sizeof(double) * (size_t)npairs),
           *dm = malloc(sizeof(double) * (size_t)npairs);
    epa_params = kcbp_epa_default_params();
    pass(K_PENETRATION, 0, polys, pairs, npairs, ov, dk);
    pass(C_GJK_PEN, 0, polys, pairs, npairs, ov, dg);
    pass(C_MPR_PEN, 0, polys, pairs, npairs, ov, dm);
    /* does libccd agree on which pairs intersect? */
    int agree = 0;
    for (int i = 0; i < npairs; i++) {
        ccd_t ccd;
        CCD_INIT(&ccd);
        ccd.support1 = ccd.support2 = ccd_support;
        ccd.max_iterations = 1000;
        ccd_obj A = {&polys[pairs[i].a], NULL, {0, 0, 0}}, B = {&polys[pairs[i].b], &pairs[i].pose, {0, 0, 0}};
        agree += (ccdGJKIntersect(&A, &B, &ccd) != 0) == ov[i];
    }

    printf("\n%d-vertex polytopes (points on a sphere), %d pairs (%d overlapping), median of %d runs, ns/query\n",
           polys[0].nv, npairs, nov, runs);
    enum { KI, KIC, CI, KD, KDC, KP, KPC, KP4, KPC4, CG, CM, NROWS };
    row rows[NROWS] = {
        [KI] = {K_INTERSECT, 0, 0, 0, {0}, 0},
        [KIC] = {K_INTERSECT, 1, 0, 0, {0}, 0},
        [CI] = {C_INTERSECT, 0, 0, 0, {0}, 0},
        [KD] = {K_DISTANCE, 0, 0, 0, {0}, 0},
        [KDC] = {K_DISTANCE, 1, 0, 0, {0}, 0},
        [KP] = {K_PENETRATION, 0, 1, KCBP_EPA_DEFAULT_REL_TOL, {0}, 0},
        [KPC] = {K_PENETRATION, 1, 1, KCBP_EPA_DEFAULT_REL_TOL, {0}, 0},
        [KP4] = {K_PENETRATION, 0, 1, 1e-4, {0}, 0},
        [KPC4] = {K_PENETRATION, 1, 1, 1e-4, {0}, 0},
        [CG] = {C_GJK_PEN, 0, 1, 0, {0}, 0},
        [CM] = {C_MPR_PEN, 0, 1, 0, {0}, 0},
    };
    time_rows(rows, NROWS, polys, pairs, npairs, ov, runs);
    double ki = rows[KI].median, kic = rows[KIC].median, ci = rows[CI].median;
    double kp = rows[KP].median, kpc = rows[KPC].median, cg = rows[CG].median, cm = rows[CM].median;
    double kp4 = rows[KP4].median, kpc4 = rows[KPC4].median;
    printf("  %-46s %10s %10s %8s\n", "query (all pairs | overlapping pairs)", "kcbp-scan", "kcbp-climb", "libccd");
    printf("  %-46s %10.0f %10.0f %8.0f   kcbp/libccd: scan %.2f, climb %.2f\n", "intersect | ccdGJKIntersect", ki,
           kic, ci, ki / ci, kic / ci);
    printf("  %-46s %10.0f %10.0f %8s\n", "distance | (none in libccd 2.1)", rows[KD].median, rows[KDC].median, "-");
    printf("  %-46s %10.0f %10.0f %8.0f   kcbp/libccd: scan %.2f, climb %.2f\n",
           "GJK+EPA rel 1e-10 | ccdGJKPenetration", kp, kpc, cg, kp / cg, kpc / cg);
    printf("  %-46s %10.0f %10.0f %8.0f   kcbp/libccd: scan %.2f, climb %.2f\n",
           "GJK+EPA rel 1e-4  | ccdGJKPenetration", kp4, kpc4, cg, kp4 / cg, kpc4 / cg);
    printf("  %-46s %10.0f %10.0f %8.0f   kcbp/libccd: scan %.2f, climb %.2f\n",
           "GJK+EPA rel 1e-4  | ccdMPRPenetration", kp4, kpc4, cm, kp4 / cm, kpc4 / cm);
    printf("    intersect answers agree with libccd on %d/%d pairs\n", agree, npairs);
    compare("ccdGJKPenetration:", dk, dg, ov, npairs);
    compare("ccdMPRPenetration:", dk, dm, ov, npairs);
    against_oracle(polys, pairs, npairs, ov, dk, dg, dm, nverts <= 16 ? 300 : 10);
    for (int i = 0; i < NPOLY; i++) {
        free(polys[i].v);
        free(polys[i].start);
        free(polys[i].adj);
    }
    free(pairs);
    free(ov);
    free(dk);
    free(dg);
    free(dm);
}

int main(int argc, char **argv)
{
    int npairs = argc > 1 ? atoi(argv[1]) : 2000;
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    if (npairs < 1 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "usage: %s [pairs >= 1] [runs 1..%d]\n", argv[0], MAX_RUNS);
        return 2;
    }
    printf("kcbp GJK/EPA vs libccd %s; kcbp tolerances: GJK rel %g, EPA rel %g; libccd defaults (EPA abs 1e-4)\n",
           "2.1", KCBP_GJK_DEFAULT_REL_TOL, KCBP_EPA_DEFAULT_REL_TOL);
    bench(16, npairs, runs);
    bench(500, npairs, runs);
    return (int)(sink * 0);
}
