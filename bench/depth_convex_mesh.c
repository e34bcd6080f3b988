/* depth_convex_mesh: what the exact convexity test of closed meshes
 * (src/query/convex_solid.c) costs, and what it buys kcbp_signed_distance
 * on convex mesh pairs (the hulls' exact depth instead of the bracket).
 *
 * Part 1, the test's cost per mesh: the quick rejection against the
 * mesh's own vertices (a budget of 4 scans of them; a "not convex" there
 * skips the rest), then the hull of the vertices
 * (kcbp_model_build_hull) and the orient3d scan (kcbp_mesh_bounds_hull,
 * the cap as the library's), CPU time, median of RUNS; the scan's number of
 * orient3d and its verdict. Meshes: meshes/stanford-bunny.obj (69,451
 * triangles), meshes/spot.obj, an icosphere of 5,120 triangles (convex, so
 * scanned in full), a box.
 *
 * Part 2, per pair of convex meshes, POSES random overlapping poses (B
 * turned at random, moved within 0.4 of A's centre): before, the bracket
 * (kcbp_depth_bracket with the default options, what kcbp_signed_distance
 * answered for meshes until now); after, kcbp_signed_distance (the verdict
 * cached on the models after the first query, as in use); CPU time per
 * query, the median of RUNS interleaved runs over all poses; and the check
 * that the exact depth lies in the bracket.
 *
 * usage: depth_convex_mesh [POSES [RUNS]] (run from bench/; defaults 50 9)
 * CPU time: CLOCK_PROCESS_CPUTIME_ID. Peers: bench/depth_convex.cpp times
 * the same hull-hull depth against FCL and Bullet ("Convex penetration
 * depth" in bench/README.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

#include "query/convex_solid.h"
#include "query/depth_internal.h"

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng_s = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
    rng_s ^= rng_s >> 12;
    rng_s ^= rng_s << 25;
    rng_s ^= rng_s >> 27;
    return (double)((rng_s * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static void die(const char *what, const kcbp_error *e)
{
    fprintf(stderr, "%s: %s\n", what, e->msg);
    exit(1);
}

static void model_of(kcbp_model *m, kcbp_mesh *mesh)
{
    kcbp_error err = {0};
    kcbp_model_options o = kcbp_model_options_default();
    o.solid = kcbp_mesh_check_solid(mesh, NULL, &err) == KCBP_OK;
    if (kcbp_model_build(m, mesh, &o, &err) != KCBP_OK)
        die("model", &err);
}

static kcbp_vec3 unit(kcbp_vec3 a) { return kcbp_v3_scale(a, 1 / kcbp_v3_len(a)); }

/* An icosphere: 20 * 4^levels triangles, a vertex per triangle edge
 * (solids identify vertices by coordinates). */
static kcbp_mesh *icosphere(int levels, double rad)
{
    size_t nt = 20, cap_t = (size_t)20 << (2 * levels), cap_v = 2 * cap_t + 12;
    kcbp_vec3 *v = malloc(cap_v * sizeof *v);
    kcbp_tri *t = malloc(cap_t * sizeof *t), *u = malloc(cap_t * sizeof *u);
    double p = (1 + sqrt(5)) / 2;
    const double iv[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                              {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    static const uint32_t it[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
                                       {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                       {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
                                       {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    size_t nv = 12;
    for (int i = 0; i < 12; i++)
        v[i] = kcbp_v3_scale(unit(kcbp_v3(iv[i][0], iv[i][1], iv[i][2])), rad);
    for (int i = 0; i < 20; i++)
        for (int k = 0; k < 3; k++)
            t[i].v[k] = it[i][k];
    for (int l = 0; l < levels; l++) {
        size_t nu = 0;
        for (size_t i = 0; i < nt; i++) {
            uint32_t mid[3];
            for (int k = 0; k < 3; k++) {
                kcbp_vec3 c = kcbp_v3_scale(kcbp_v3_add(v[t[i].v[k]], v[t[i].v[(k + 1) % 3]]), 0.5);
                v[nv] = kcbp_v3_scale(unit(c), rad);
                mid[k] = (uint32_t)nv++;
            }
            const uint32_t a = t[i].v[0], b = t[i].v[1], c = t[i].v[2];
            kcbp_tri q[4] = {{{a, mid[0], mid[2]}}, {{b, mid[1], mid[0]}}, {{c, mid[2], mid[1]}},
                             {{mid[0], mid[1], mid[2]}}};
            for (int k = 0; k < 4; k++)
                u[nu++] = q[k];
        }
        memcpy(t, u, nu * sizeof *t);
        nt = nu;
    }
    kcbp_mesh *m;
    kcbp_error err = {0};
    if (kcbp_mesh_create(v, nv, t, nt, &m, &err) != KCBP_OK)
        die("icosphere", &err);
    free(v);
    free(t);
    free(u);
    return m;
}

static kcbp_mesh *box(double x, double y, double z)
{
    kcbp_vec3 v[8];
    for (int i = 0; i < 8; i++)
        v[i] = kcbp_v3(i & 1 ? x : -x, i & 2 ? y : -y, i & 4 ? z : -z);
    static const kcbp_tri t[12] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 5, 6}}, {{5, 7, 6}}, {{0, 1, 4}}, {{1, 5, 4}},
                                   {{2, 6, 3}}, {{3, 6, 7}}, {{0, 4, 2}}, {{2, 4, 6}}, {{1, 3, 5}}, {{3, 7, 5}}};
    kcbp_mesh *m;
    kcbp_error err = {0};
    if (kcbp_mesh_create(v, 8, t, 12, &m, &err) != KCBP_OK)
        die("box", &err);
    return m;
}

static kcbp_mesh *load(const char *path)
{
    kcbp_mesh *m;
    kcbp_error err = {0};
    if (kcbp_mesh_load(path, &m, &err) != KCBP_OK)
        die(path, &err);
    return m;
}

static void test_cost(const char *name, kcbp_mesh *mesh, int runs)
{
    kcbp_model m;
    model_of(&m, mesh);
    const kcbp_mesh *mm = &m.impl->mesh;
    double th[64], ts[64], tp[64];
    uint64_t checks = 0, pchecks = 0;
    kcbp_hull_verdict pre = KCBP_HULL_UNDECIDED;
    bool convex = false;
    uint32_t nh = 0;
    for (int r = 0; r < runs; r++) {
        kcbp_error err = {0};
        kcbp_model h;
        double tq = cpu_ms();
        /* the library's quick rejection (convex_solid.c): the mesh's own
         * vertices, a budget of 4 scans of them */
        pre = kcbp_mesh_bounds_hull(mm, mm->vertices, mm->nvertices, 4 * (uint64_t)mm->nvertices + 64, &pchecks);
        double t0 = cpu_ms();
        tp[r] = t0 - tq;
        if (kcbp_model_build_hull(&h, mm->vertices, mm->nvertices, &err) != KCBP_OK)
            die("hull", &err);
        double t1 = cpu_ms();
        const kcbp_vec3 *hv = kcbp_model_hull_vertices(&h, &nh);
        convex = kcbp_mesh_bounds_hull(mm, hv, nh, KCBP_CONVEX_SOLID_MAX_CHECKS, &checks) == KCBP_HULL_BOUNDS;
        double t2 = cpu_ms();
        th[r] = t1 - t0;
        ts[r] = t2 - t1;
        kcbp_model_free(&h);
    }
    printf("| %s | %u | %.4f | %llu | %s | %u | %.3f | %.4f | %llu | %s |\n", name, mm->ntriangles, median(tp, runs),
           (unsigned long long)pchecks, pre == KCBP_HULL_NOT ? "not convex" : "go on", nh, median(th, runs),
           median(ts, runs), (unsigned long long)checks, convex ? "convex" : "not convex");
    kcbp_model_free(&m);
}

static kcbp_pose random_pose(double reach)
{
    kcbp_vec3 axis = kcbp_v3(urand() - 0.5, urand() - 0.5, urand() - 0.5);
    if (kcbp_v3_len(axis) < 1e-3)
        axis = kcbp_v3(0, 0, 1);
    kcbp_vec3 t = kcbp_v3(reach * (2 * urand() - 1), reach * (2 * urand() - 1), reach * (2 * urand() - 1));
    kcbp_pose p;
    kcbp_error err = {0};
    if (kcbp_pose_from_axis_angle(t, axis, 360 * urand(), &p, &err) != KCBP_OK)
        die("pose", &err);
    return p;
}

static void pair(const char *name, kcbp_mesh *ma, kcbp_mesh *mb, int nposes, int runs)
{
    kcbp_model a, b;
    model_of(&a, ma);
    model_of(&b, mb);
    kcbp_pose pa = kcbp_pose_identity(), *pb = malloc((size_t)nposes * sizeof *pb);
    kcbp_signed_distance_options o = kcbp_signed_distance_options_default();
    kcbp_error err = {0};
    kcbp_signed_distance_result r;
    int n = 0;
    for (int tries = 0; n < nposes && tries < 100 * nposes; tries++) {
        kcbp_pose p = random_pose(0.4);
        if (kcbp_signed_distance(&a, &pa, &b, &p, NULL, &r, &err) != KCBP_OK)
            die("signed distance", &err);
        if (r.status == KCBP_SDIST_PENETRATING)
            pb[n++] = p;
    }
    double *before = malloc((size_t)runs * sizeof *before), *after = malloc((size_t)runs * sizeof *after);
    int outside = 0;
    double width = 0;
    for (int run = 0; run < runs; run++) {
        for (int half = 0; half < 2; half++) {
            bool brk = (half + run) % 2 == 0; /* interleaved, order alternating */
            double t0 = cpu_ms();
            for (int i = 0; i < n; i++) {
                memset(&r, 0, sizeof r);
                kcbp_status st = brk ? kcbp_depth_bracket(&a, &pa, &b, &pb[i], &o, &r, &err)
                                     : kcbp_signed_distance(&a, &pa, &b, &pb[i], NULL, &r, &err);
                if (st != KCBP_OK)
                    die("query", &err);
            }
            double t = (cpu_ms() - t0) / (n ? n : 1);
            if (brk)
                before[run] = t;
            else
                after[run] = t;
        }
    }
    for (int i = 0; i < n; i++) {
        kcbp_signed_distance_result x, y;
        memset(&y, 0, sizeof y);
        kcbp_signed_distance(&a, &pa, &b, &pb[i], NULL, &x, &err);
        kcbp_depth_bracket(&a, &pa, &b, &pb[i], &o, &y, &err);
        double tol = 1e-9 * (2 + kcbp_v3_max_abs(pb[i].trans));
        if (!(y.depth_lower <= x.depth + tol && x.depth <= y.depth_upper + tol))
            outside++;
        width += (y.depth_upper - y.depth_lower) / x.depth;
    }
    double mb_ = median(before, runs), ma_ = median(after, runs);
    printf("| %s | %d | %.1f | %.1f | %.1f | %.3f | %d |\n", name, n, 1e3 * mb_, 1e3 * ma_, mb_ / ma_,
           n ? width / n : 0, outside);
    free(before);
    free(after);
    free(pb);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

int main(int argc, char **argv)
{
    int nposes = argc > 1 ? atoi(argv[1]) : 50, runs = argc > 2 ? atoi(argv[2]) : 9;
    if (nposes < 1 || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: depth_convex_mesh [POSES [RUNS<=64]]\n");
        return 2;
    }
    printf("| mesh | triangles | pre-scan ms | orient3d | pre-scan says | hull vertices | hull ms | scan ms | orient3d | verdict |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    test_cost("stanford-bunny", load("../meshes/stanford-bunny.obj"), runs);
    test_cost("spot", load("../meshes/spot.obj"), runs);
    test_cost("icosphere 5120", icosphere(4, 1), runs);
    test_cost("icosphere 1280", icosphere(3, 1), runs);
    test_cost("box", box(0.5, 0.3, 0.4), runs);
    printf("\n| pair | poses | bracket µs (before) | signed distance µs (after) | speed-up | bracket width / depth | exact outside bracket |\n|---|---|---|---|---|---|---|\n");
    pair("box-box", box(0.5, 0.5, 0.5), box(0.5, 0.3, 0.4), nposes, runs);
    pair("icosphere1280-box", icosphere(3, 0.6), box(0.5, 0.3, 0.4), nposes, runs);
    pair("icosphere1280-icosphere320", icosphere(3, 0.6), icosphere(2, 0.5), nposes, runs);
    pair("icosphere5120-box", icosphere(4, 0.6), box(0.5, 0.3, 0.4), nposes, runs);
    return 0;
}
