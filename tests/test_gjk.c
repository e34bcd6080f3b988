/* Tests of support.c, gjk.c and epa.c against independent oracles.
 *
 * The oracle: the Minkowski difference A - B of two point sets is the convex
 * hull of all a_i - b_j, computed by qhull in tests/cso_oracle.c (triangulated
 * with 'Qt'). If the origin is outside, the distance is the minimum over the
 * hull's triangles of the origin-triangle distance; if inside, the
 * penetration depth is the minimum over facets of the distance from the
 * origin to the facet's plane (-offset), along that facet's normal. None of
 * this shares code with the library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cso_oracle.h"
#include <kcbp/kcbp.h>
#include "testutil.h"

/* ---- helpers ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rnd(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }
static double rnd_range(double lo, double hi) { return lo + (hi - lo) * rnd(); }
static kcbp_vec3 rnd_unit(void)
{
    for (;;) {
        kcbp_vec3 v = kcbp_v3(rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1));
        double l = kcbp_v3_len(v);
        if (l > 0.1 && l <= 1)
            return kcbp_v3_scale(v, 1 / l);
    }
}
static kcbp_pose rnd_pose(double tmax)
{
    kcbp_pose p;
    kcbp_vec3 t = kcbp_v3_scale(rnd_unit(), rnd_range(0, tmax));
    assert_int_equal(kcbp_pose_from_axis_angle(t, rnd_unit(), rnd_range(-180, 180), &p, NULL), KCBP_OK);
    return p;
}
static kcbp_pose translation(double x, double y, double z)
{
    kcbp_pose p = kcbp_pose_identity();
    p.trans = kcbp_v3(x, y, z);
    return p;
}
static int finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static double angle_between(kcbp_vec3 a, kcbp_vec3 b)
{
    return atan2(kcbp_v3_len(kcbp_v3_cross(a, b)), kcbp_v3_dot(a, b));
}
static double rel_err(double got, double want) { return fabs(got - want) / fmax(fabs(want), 1e-300); }

/* Random point cloud: n points in an anisotropic box or on a sphere. */
static void rnd_cloud(kcbp_vec3 *p, int n, double size)
{
    int sphere = rng_next() & 1;
    kcbp_vec3 ext = kcbp_v3(size * rnd_range(0.2, 1), size * rnd_range(0.2, 1), size * rnd_range(0.2, 1));
    for (int i = 0; i < n; i++) {
        kcbp_vec3 u = sphere ? rnd_unit() : kcbp_v3(rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1));
        p[i] = kcbp_v3(u.x * ext.x, u.y * ext.y, u.z * ext.z);
    }
}

/* Box with half-extents h centred at c: 8 vertices. */
static void box(kcbp_vec3 *p, kcbp_vec3 h, kcbp_vec3 c)
{
    for (int i = 0; i < 8; i++)
        p[i] = kcbp_v3(c.x + (i & 1 ? h.x : -h.x), c.y + (i & 2 ? h.y : -h.y), c.z + (i & 4 ? h.z : -h.z));
}

/* Support value of a posed shape (radius included) along unit u. */
static double hsupport(const kcbp_convex *s, const kcbp_pose *pose, kcbp_vec3 u)
{
    uint32_t hint = 0;
    kcbp_vec3 p = kcbp_convex_support_posed(s, pose, u, &hint);
    return kcbp_v3_dot(p, u) + s->radius;
}

/* The witness properties: point_a on A's supporting plane along n, point_b
 * on B's along -n. */
static void check_witnesses(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *pose, kcbp_vec3 n,
                            kcbp_vec3 pa, kcbp_vec3 pb, double tol)
{
    kcbp_pose id = kcbp_pose_identity();
    double ha = hsupport(a, &id, n), hb = hsupport(b, pose, kcbp_v3_neg(n));
    if (fabs(kcbp_v3_dot(pa, n) - ha) > tol || fabs(-kcbp_v3_dot(pb, n) - hb) > tol)
        fail_msg("witness off its supporting plane: %g %g (tol %g)", kcbp_v3_dot(pa, n) - ha,
                 -kcbp_v3_dot(pb, n) - hb, tol);
}

typedef struct {
    kcbp_gjk_result g;
    kcbp_epa_result e;
} query;

static kcbp_epa_scratch scratch; /* tests run one at a time */

static query run(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *pose)
{
    query q;
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_distance(a, b, pose, NULL, &cache, &q.g);
    kcbp_epa_penetration(a, b, pose, &q.g, NULL, &cache, &scratch, &q.e);
    assert_true(isfinite(q.g.distance) && isfinite(q.g.distance_lower) && finite3(q.g.point_a) &&
                finite3(q.g.point_b) && finite3(q.g.normal));
    assert_true(q.g.distance >= 0);
    assert_true(q.g.iterations <= KCBP_GJK_DEFAULT_MAX_ITERATIONS);
    if (q.e.status != KCBP_EPA_SEPARATED) {
        assert_true(isfinite(q.e.depth) && q.e.depth >= 0 && finite3(q.e.point_a) && finite3(q.e.point_b));
        assert_true(fabs(kcbp_v3_len(q.e.normal) - 1) < 1e-12);
    }
    return q;
}

/* ---- support ---- */

/* The vectorised scan against the scalar reference. On small integer
 * coordinates and directions every dot product is exact, so ties are real
 * and both must pick the same (first) vertex; on random data they must find
 * the same largest value. Every count from 1 to 70 covers each tail. */
static void test_support_scan_matches_scalar(void **state)
{
    (void)state;
    kcbp_vec3 p[70];
    for (uint32_t n = 1; n <= 70; n++)
        for (int trial = 0; trial < 200; trial++) {
            int exact = trial % 2;
            for (uint32_t i = 0; i < n; i++)
                p[i] = exact ? kcbp_v3(floor(rnd_range(-3, 4)), floor(rnd_range(-3, 4)), floor(rnd_range(-3, 4)))
                             : kcbp_v3_scale(rnd_unit(), rnd_range(0.5, 2));
            kcbp_vec3 d = exact ? kcbp_v3(floor(rnd_range(-2, 3)), floor(rnd_range(-2, 3)), floor(rnd_range(-2, 3)))
                                : rnd_unit();
            uint32_t want = kcbp_support_scan_scalar(p, n, d), got = kcbp_support_scan(p, n, d);
            assert_true(got < n);
            if (exact)
                assert_int_equal(got, want);
            else
                assert_true(fabs(kcbp_v3_dot(p[got], d) - kcbp_v3_dot(p[want], d)) <= 1e-15);
        }
}

static void test_support_climb_matches_scan(void **state)
{
    (void)state;
    enum { N = 500 };
    kcbp_vec3 *p = malloc(sizeof *p * N);
    rnd_cloud(p, N, 2);
    oracle_hull h;
    assert_true(oracle_hull_build(p, N, &h));
    kcbp_convex scan = kcbp_convex_polytope(h.v, h.nv, NULL, NULL, 0);
    kcbp_convex climb = kcbp_convex_polytope(h.v, h.nv, h.start, h.adj, 0);
    assert_non_null(climb.adj_start);
    assert_int_equal(kcbp_convex_check(&climb, NULL), KCBP_OK);
    uint32_t hint = 0, hs;
    for (int i = 0; i < 2000; i++) {
        kcbp_vec3 d = rnd_unit();
        hs = 0;
        double want = kcbp_v3_dot(kcbp_convex_support(&scan, d, &hs), d);
        double got = kcbp_v3_dot(kcbp_convex_support(&climb, d, &hint), d);
        assert_true(got == want);
    }
    oracle_hull_free(&h);
    free(p);
}

static void test_support_shapes_and_check(void **state)
{
    (void)state;
    uint32_t hint = 7;
    kcbp_convex s = kcbp_convex_sphere(kcbp_v3(1, 2, 3), 0.5);
    kcbp_vec3 p = kcbp_convex_support(&s, kcbp_v3(0, 0, 1), &hint);
    assert_true(p.x == 1 && p.y == 2 && p.z == 3 && hint == 0);
    kcbp_convex c = kcbp_convex_capsule(kcbp_v3(0, 0, 0), kcbp_v3(0, 0, 2), 0.5);
    p = kcbp_convex_support(&c, kcbp_v3(0.1, 0, 1), &hint);
    assert_true(p.z == 2 && hint == 1);
    /* posed: a 90 degree turn about z maps local +x to +y */
    kcbp_pose pose;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(10, 0, 0), kcbp_v3(0, 0, 1), 90, &pose, NULL), KCBP_OK);
    kcbp_vec3 pts[2] = {{1, 0, 0}, {-1, 0, 0}};
    kcbp_convex seg = kcbp_convex_polytope(pts, 2, NULL, NULL, 0);
    p = kcbp_convex_support_posed(&seg, &pose, kcbp_v3(0, 1, 0), &hint);
    assert_true(fabs(p.x - 10) < 1e-12 && fabs(p.y - 1) < 1e-12 && hint == 0);

    kcbp_error err;
    kcbp_convex bad = kcbp_convex_sphere(kcbp_v3(0, 0, 0), -1);
    assert_int_equal(kcbp_convex_check(&bad, &err), KCBP_ERR_INVALID);
    kcbp_vec3 nanp = {NAN, 0, 0};
    bad = kcbp_convex_polytope(&nanp, 1, NULL, NULL, 0);
    assert_int_equal(kcbp_convex_check(&bad, &err), KCBP_ERR_INVALID);
    bad = kcbp_convex_polytope(pts, 0, NULL, NULL, 0);
    assert_int_equal(kcbp_convex_check(&bad, &err), KCBP_ERR_INVALID);
    uint32_t start[3] = {0, 1, 2}, adj[2] = {1, 5};
    bad = kcbp_convex_polytope(pts, 2, NULL, NULL, 0);
    bad.adj_start = start;
    bad.adj = adj;
    assert_int_equal(kcbp_convex_check(&bad, &err), KCBP_ERR_INVALID);
    adj[1] = 0;
    assert_int_equal(kcbp_convex_check(&bad, &err), KCBP_OK);
}

static void test_adjacency_cube(void **state)
{
    (void)state;
    kcbp_vec3 p[8];
    box(p, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    oracle_hull h;
    assert_true(oracle_hull_build(p, 8, &h));
    assert_int_equal(h.nv, 8);
    size_t total = h.start[h.nv];
    /* 12 cube edges + 6 face diagonals, each listed from both ends */
    assert_int_equal(total, 2 * 18);
    for (uint32_t v = 0; v < h.nv; v++)
        for (uint32_t k = h.start[v]; k < h.start[v + 1]; k++) {
            uint32_t u = h.adj[k];
            int back = 0;
            for (uint32_t j = h.start[u]; j < h.start[u + 1]; j++)
                back |= h.adj[j] == v;
            assert_true(back && u != v);
        }
    oracle_hull_free(&h);
    uint32_t *s, *a;
    const uint32_t tri[1][3] = {{0, 1, 9}};
    assert_int_equal(kcbp_convex_adjacency(3, tri, 1, &s, &a, NULL), KCBP_ERR_INVALID);
}

/* ---- random pairs against the qhull oracle ---- */

typedef struct {
    double max_dist_err, max_depth_err, max_angle;
    int ndist, ndepth, nangle;
} oracle_stats;

static void oracle_pair(int climb, double radius_a, double radius_b, oracle_stats *st)
{
    kcbp_vec3 pa[60], pb[60];
    int na = 4 + (int)(rng_next() % 57), nb = 4 + (int)(rng_next() % 57);
    rnd_cloud(pa, na, rnd_range(0.5, 2));
    rnd_cloud(pb, nb, rnd_range(0.5, 2));
    kcbp_pose pose = rnd_pose(4);
    oracle_hull ha, hb;
    if (!oracle_hull_build(pa, na, &ha) || !oracle_hull_build(pb, nb, &hb))
        fail_msg("qhull failed on a random cloud");
    kcbp_convex A, B;
    if (climb) { /* forced hill-climbing, whatever the vertex count */
        A = kcbp_convex_polytope(ha.v, ha.nv, NULL, NULL, radius_a);
        A.adj_start = ha.start;
        A.adj = ha.adj;
        B = kcbp_convex_polytope(hb.v, hb.nv, NULL, NULL, radius_b);
        B.adj_start = hb.start;
        B.adj = hb.adj;
    } else { /* the raw clouds, interior points included */
        A = kcbp_convex_polytope(pa, (uint32_t)na, NULL, NULL, radius_a);
        B = kcbp_convex_polytope(pb, (uint32_t)nb, NULL, NULL, radius_b);
    }
    cso_oracle_result o = cso_oracle(pa, na, pb, nb, &pose);
    assert_true(o.ok);
    query q = run(&A, &B, &pose);
    double rsum = radius_a + radius_b;
    double tol = 1e-9 * o.scale;
    if (!o.inside && o.dist - rsum > 1e-3 * o.scale) {
        assert_int_equal(q.g.status, KCBP_GJK_SEPARATED);
        double want = o.dist - rsum;
        double err = rel_err(q.g.distance, want);
        if (err > 1e-9)
            fail_msg("distance %.17g, oracle %.17g (rel err %g), climb %d", q.g.distance, want, err, climb);
        st->max_dist_err = fmax(st->max_dist_err, err);
        st->ndist++;
        assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(q.g.point_b, q.g.point_a)) - q.g.distance) <= tol);
        check_witnesses(&A, &B, &pose, q.g.normal, q.g.point_a, q.g.point_b, tol);
        assert_int_equal(q.e.status, KCBP_EPA_SEPARATED);
    } else if (o.inside && o.depth > 1e-3 * o.scale) {
        assert_int_equal(q.g.status, KCBP_GJK_OVERLAPPING);
        assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
        double want = o.depth + rsum;
        double err = rel_err(q.e.depth, want);
        if (err > 1e-6)
            fail_msg("depth %.17g, oracle %.17g (rel err %g)", q.e.depth, want, err);
        st->max_depth_err = fmax(st->max_depth_err, err);
        st->ndepth++;
        kcbp_vec3 sep = kcbp_v3_sub(q.e.point_a, q.e.point_b);
        if (kcbp_v3_len(kcbp_v3_sub(sep, kcbp_v3_scale(q.e.normal, q.e.depth))) > 1e-7 * o.scale)
            fail_msg("sep %g %g %g, depth %g normal %g %g %g iters %d", sep.x, sep.y, sep.z, q.e.depth, q.e.normal.x, q.e.normal.y, q.e.normal.z, q.e.iterations);
        check_witnesses(&A, &B, &pose, q.e.normal, q.e.point_a, q.e.point_b, 1e-7 * o.scale);
        if (o.second - o.depth > 1e-6 * o.scale) {
            double ang = angle_between(q.e.normal, o.n);
            if (ang > 1e-4)
                fail_msg("direction off by %g rad (depth %g, second %g)", ang, o.depth, o.second);
            st->max_angle = fmax(st->max_angle, ang);
            st->nangle++;
        }
    } else if (!o.inside && o.dist - rsum < -1e-3 * o.scale) {
        /* cores apart, radii overlap: depth is analytic */
        assert_int_equal(q.g.status, KCBP_GJK_OVERLAPPING);
        double err = rel_err(q.e.depth, rsum - o.dist);
        assert_true(err < 1e-9);
        st->max_depth_err = fmax(st->max_depth_err, err);
        st->ndepth++;
    }
    oracle_hull_free(&ha);
    oracle_hull_free(&hb);
}

static void test_oracle_random_scan(void **state)
{
    (void)state;
    oracle_stats st = {0};
    for (int i = 0; i < 1200; i++)
        oracle_pair(0, 0, 0, &st);
    print_message("scan:  %d distances max rel err %.3g; %d depths max rel err %.3g; %d directions max %.3g rad\n",
                  st.ndist, st.max_dist_err, st.ndepth, st.max_depth_err, st.nangle, st.max_angle);
    assert_true(st.ndist > 200 && st.ndepth > 200 && st.nangle > 100);
}

static void test_oracle_random_climb(void **state)
{
    (void)state;
    oracle_stats st = {0};
    for (int i = 0; i < 1200; i++)
        oracle_pair(1, 0, 0, &st);
    print_message("climb: %d distances max rel err %.3g; %d depths max rel err %.3g; %d directions max %.3g rad\n",
                  st.ndist, st.max_dist_err, st.ndepth, st.max_depth_err, st.nangle, st.max_angle);
    assert_true(st.ndist > 200 && st.ndepth > 200 && st.nangle > 100);
}

static void test_oracle_random_inflated(void **state)
{
    (void)state;
    oracle_stats st = {0};
    for (int i = 0; i < 600; i++)
        oracle_pair((int)(rng_next() & 1), rnd_range(0, 0.5), rnd_range(0, 0.5), &st);
    print_message("inflated: %d distances max rel err %.3g; %d depths max rel err %.3g\n", st.ndist,
                  st.max_dist_err, st.ndepth, st.max_depth_err);
    assert_true(st.ndist > 50 && st.ndepth > 50);
}

/* ---- the cases that break other libraries ---- */

static void test_stacked_and_touching_cubes(void **state)
{
    (void)state;
    kcbp_vec3 c[8];
    box(c, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex A = kcbp_convex_polytope(c, 8, NULL, NULL, 0);
    /* face, edge and corner contact, exactly touching (libccd #25, #68) */
    const double offs[][3] = {{0, 0, 2}, {2, 0, 0}, {0, -2, 0}, {2, 2, 0}, {2, 2, 2}, {-2, 0, 2}, {0, 0, -2}};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        kcbp_pose pose = translation(offs[i][0], offs[i][1], offs[i][2]);
        query q = run(&A, &A, &pose);
        assert_true(q.g.distance == 0);
        assert_true(q.g.status == KCBP_GJK_OVERLAPPING || q.g.status == KCBP_GJK_TOUCHING);
        assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);
        assert_true(q.e.depth <= 1e-12);
        /* the normal must point from A toward B's side */
        kcbp_vec3 o = kcbp_v3(offs[i][0], offs[i][1], offs[i][2]);
        assert_true(kcbp_v3_dot(q.e.normal, o) > 0);
    }
    /* stacked with overlap: depth 0.5 along +z, a sliding offset in x */
    kcbp_pose pose = translation(0.3, 0, 1.5);
    query q = run(&A, &A, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 0.5) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 0, 1)) < 1e-12);
    /* a stack of rotated cubes: 45 degrees about z, resting on the top */
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 1.999), kcbp_v3(0, 0, 1), 45, &pose, NULL), KCBP_OK);
    q = run(&A, &A, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 0.001) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 0, 1)) < 1e-9);
    /* just apart */
    pose = translation(0, 0, 2 + 1e-6);
    q = run(&A, &A, &pose);
    assert_int_equal(q.g.status, KCBP_GJK_SEPARATED);
    assert_true(rel_err(q.g.distance, 1e-6) < 1e-8);
}

static void test_box_much_larger(void **state)
{
    (void)state;
    kcbp_vec3 big[8], small[8];
    box(big, kcbp_v3(1000, 1000, 1000), kcbp_v3(0, 0, 0));
    box(small, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex A = kcbp_convex_polytope(big, 8, NULL, NULL, 0);
    kcbp_convex B = kcbp_convex_polytope(small, 8, NULL, NULL, 0);
    /* small box sunk 0.25 into the big one's +x face, off-centre */
    kcbp_pose pose = translation(1000.75, 300, -200);
    query q = run(&A, &B, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 0.25) < 1e-9);
    assert_true(angle_between(q.e.normal, kcbp_v3(1, 0, 0)) < 1e-9);
    /* and apart by 0.5 */
    pose = translation(-1001.5, 10, 10);
    q = run(&A, &B, &pose);
    assert_int_equal(q.g.status, KCBP_GJK_SEPARATED);
    assert_true(fabs(q.g.distance - 0.5) < 1e-9);
    assert_true(angle_between(q.g.normal, kcbp_v3(-1, 0, 0)) < 1e-9);
    /* small box deep inside: nearest face is +y at 1000 - 990 + 1 = 11 */
    pose = translation(0, 990, 0);
    q = run(&A, &B, &pose);
    assert_true(fabs(q.e.depth - 11) < 1e-9);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 1, 0)) < 1e-9);
}

static void test_identical_polytopes(void **state)
{
    (void)state;
    kcbp_vec3 c[8];
    box(c, kcbp_v3(1, 2, 3), kcbp_v3(0, 0, 0));
    kcbp_convex A = kcbp_convex_polytope(c, 8, NULL, NULL, 0);
    kcbp_pose id = kcbp_pose_identity();
    query q = run(&A, &A, &id);
    assert_int_equal(q.g.status, KCBP_GJK_OVERLAPPING);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 2) < 1e-12); /* twice the smallest half-extent */
    assert_true(fabs(fabs(q.e.normal.x) - 1) < 1e-12);
    /* random identical polytopes against the oracle */
    for (int i = 0; i < 300; i++) {
        kcbp_vec3 p[40];
        rnd_cloud(p, 40, 1);
        kcbp_convex P = kcbp_convex_polytope(p, 40, NULL, NULL, 0);
        cso_oracle_result o = cso_oracle(p, 40, p, 40, &id);
        q = run(&P, &P, &id);
        assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
        assert_true(rel_err(q.e.depth, o.depth) < 1e-6);
    }
}

/* Axis-aligned boxes: the CSO is a box, with coplanar points everywhere
 * (the hardest input for EPA's horizon). Depth and distance are analytic. */
static void test_aligned_boxes_analytic(void **state)
{
    (void)state;
    int unknown = 0;
    for (int i = 0; i < 3000; i++) {
        kcbp_vec3 ha = kcbp_v3(rnd_range(0.1, 2), rnd_range(0.1, 2), rnd_range(0.1, 2));
        kcbp_vec3 hb = i % 4 == 0 ? ha : kcbp_v3(rnd_range(0.1, 2), rnd_range(0.1, 2), rnd_range(0.1, 2));
        kcbp_vec3 pa[8], pb[8];
        box(pa, ha, kcbp_v3(0, 0, 0));
        box(pb, hb, kcbp_v3(0, 0, 0));
        kcbp_convex A = kcbp_convex_polytope(pa, 8, NULL, NULL, 0), B = kcbp_convex_polytope(pb, 8, NULL, NULL, 0);
        /* offsets on a coarse grid, so that faces are often flush */
        kcbp_vec3 t = kcbp_v3(floor(rnd_range(-8, 8)) * 0.25, floor(rnd_range(-8, 8)) * 0.25,
                              floor(rnd_range(-8, 8)) * 0.25);
        if (i % 3 == 0)
            t = kcbp_v3(rnd_range(-3, 3), rnd_range(-3, 3), rnd_range(-3, 3));
        kcbp_pose pose = translation(t.x, t.y, t.z);
        kcbp_vec3 h = kcbp_v3_add(ha, hb), at = kcbp_v3_abs(t);
        kcbp_vec3 gap = kcbp_v3_sub(at, h); /* per axis: > 0 apart */
        query q = run(&A, &B, &pose);
        if (gap.x < 0 && gap.y < 0 && gap.z < 0) {
            double depth = fmin(-gap.x, fmin(-gap.y, -gap.z));
            if (q.e.status == KCBP_EPA_DEPTH_UNKNOWN) {
                unknown++;
                assert_true(q.e.depth >= depth - 1e-12);
                continue;
            }
            if (fabs(q.e.depth - depth) > 1e-12 * fmax(1, depth))
                fail_msg("box depth %.17g, want %.17g", q.e.depth, depth);
        } else {
            kcbp_vec3 g = kcbp_v3_max(gap, kcbp_v3(0, 0, 0));
            double dist = kcbp_v3_len(g);
            assert_true(fabs(q.g.distance - dist) <= 1e-12 * fmax(1, dist));
        }
    }
    print_message("aligned boxes: depth unknown %d of 3000\n", unknown);
    assert_int_equal(unknown, 0);
}

static void test_point_polytope(void **state)
{
    (void)state;
    kcbp_vec3 c[8], pt = {0, 0, 0};
    box(c, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex A = kcbp_convex_polytope(c, 8, NULL, NULL, 0);
    kcbp_convex P = kcbp_convex_polytope(&pt, 1, NULL, NULL, 0);
    kcbp_pose pose = translation(0.2, 0.1, 0);
    query q = run(&A, &P, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 0.8) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(1, 0, 0)) < 1e-12);
    pose = translation(3, 0, 0);
    q = run(&A, &P, &pose);
    assert_true(fabs(q.g.distance - 2) < 1e-12);
    /* point on a face, on an edge, at a corner: touching */
    const double at[][3] = {{1, 0.3, 0.2}, {1, 1, 0.5}, {1, 1, 1}};
    for (int i = 0; i < 3; i++) {
        pose = translation(at[i][0], at[i][1], at[i][2]);
        q = run(&A, &P, &pose);
        assert_true(q.g.distance == 0);
        assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);
    }
    /* two points: equal (flat CSO of one point) and apart */
    pose = kcbp_pose_identity();
    q = run(&P, &P, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);
    pose = translation(0, 0, 5);
    q = run(&P, &P, &pose);
    assert_true(fabs(q.g.distance - 5) < 1e-12);
    assert_true(angle_between(q.g.normal, kcbp_v3(0, 0, 1)) < 1e-12);
}

static void test_flat_polytopes(void **state)
{
    (void)state;
    kcbp_vec3 c[8];
    box(c, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex cube = kcbp_convex_polytope(c, 8, NULL, NULL, 0);
    kcbp_vec3 sq[4] = {{-0.5, -0.5, 0}, {0.5, -0.5, 0}, {0.5, 0.5, 0}, {-0.5, 0.5, 0}};
    kcbp_convex square = kcbp_convex_polytope(sq, 4, NULL, NULL, 0);
    kcbp_vec3 sg[2] = {{-0.5, 0, 0}, {0.5, 0, 0}};
    kcbp_convex seg = kcbp_convex_polytope(sg, 2, NULL, NULL, 0);

    kcbp_pose pose = translation(0, 0, 1.5);
    query q = run(&cube, &square, &pose);
    assert_true(fabs(q.g.distance - 0.5) < 1e-12);
    pose = translation(0, 0, 0.5);
    q = run(&cube, &square, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 0.5) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 0, 1)) < 1e-12);
    pose = translation(0.1, 0, 0.8);
    q = run(&cube, &seg, &pose);
    assert_true(fabs(q.e.depth - 0.2) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 0, 1)) < 1e-12);
    /* coplanar overlapping squares: the CSO is flat, depth 0 along +-z */
    pose = translation(0.5, 0.2, 0);
    q = run(&square, &square, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);
    assert_true(q.e.depth == 0 && fabs(fabs(q.e.normal.z) - 1) < 1e-12);
    /* collinear overlapping segments: the CSO is a segment */
    pose = translation(0.3, 0, 0);
    q = run(&seg, &seg, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);
    assert_true(fabs(q.e.normal.x) < 1e-12);
    /* crossing segments (a cross): the CSO is a square through the origin */
    kcbp_pose turn;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), kcbp_v3(0, 0, 1), 90, &turn, NULL), KCBP_OK);
    q = run(&seg, &seg, &turn);
    assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);
    /* the square tilted, partly in the cube: oracle */
    for (int i = 0; i < 100; i++) {
        pose = rnd_pose(1.5);
        kcbp_vec3 pts[8];
        memcpy(pts, c, sizeof c);
        cso_oracle_result o = cso_oracle(pts, 8, sq, 4, &pose);
        q = run(&cube, &square, &pose);
        if (o.inside && o.depth > 1e-6)
            assert_true(rel_err(q.e.depth, o.depth) < 1e-6);
        else if (!o.inside && o.dist > 1e-6)
            assert_true(rel_err(q.g.distance, o.dist) < 1e-9);
    }
}

static void test_spheres_capsules(void **state)
{
    (void)state;
    kcbp_convex s1 = kcbp_convex_sphere(kcbp_v3(0, 0, 0), 1);
    kcbp_convex s2 = kcbp_convex_sphere(kcbp_v3(0, 0, 0), 2);
    kcbp_pose pose = translation(3, 4, 0);
    query q = run(&s1, &s2, &pose);
    assert_int_equal(q.g.status, KCBP_GJK_SEPARATED);
    assert_true(fabs(q.g.distance - 2) < 1e-12);
    assert_true(kcbp_v3_len(kcbp_v3_sub(q.g.point_a, kcbp_v3(0.6, 0.8, 0))) < 1e-12);
    assert_true(kcbp_v3_len(kcbp_v3_sub(q.g.point_b, kcbp_v3(1.8, 2.4, 0))) < 1e-12);
    pose = translation(0, 2, 0);
    q = run(&s1, &s2, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 1) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 1, 0)) < 1e-12);
    /* concentric spheres: depth = r1 + r2, any direction */
    pose = kcbp_pose_identity();
    q = run(&s1, &s2, &pose);
    assert_true(fabs(q.e.depth - 3) < 1e-12);
    /* exactly touching spheres */
    pose = translation(0, 0, 3);
    q = run(&s1, &s2, &pose);
    assert_int_equal(q.g.status, KCBP_GJK_TOUCHING);
    assert_int_equal(q.e.status, KCBP_EPA_TOUCHING);

    /* sphere - box */
    kcbp_vec3 c[8];
    box(c, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex cube = kcbp_convex_polytope(c, 8, NULL, NULL, 0);
    kcbp_convex ball = kcbp_convex_sphere(kcbp_v3(0, 0, 0), 0.5);
    pose = translation(2, 0.5, 0.3);
    q = run(&cube, &ball, &pose);
    assert_true(fabs(q.g.distance - 0.5) < 1e-12);
    pose = translation(2, 2, 2);
    q = run(&cube, &ball, &pose);
    assert_true(fabs(q.g.distance - (sqrt(3) - 0.5)) < 1e-12);
    pose = translation(1.2, 0.1, 0);
    q = run(&cube, &ball, &pose);
    assert_true(fabs(q.e.depth - 0.3) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(1, 0, 0)) < 1e-12);
    pose = translation(0.6, 0.1, 0); /* centre inside the box */
    q = run(&cube, &ball, &pose);
    assert_true(fabs(q.e.depth - 0.9) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(1, 0, 0)) < 1e-12);

    /* capsules: parallel, crossing, end to end */
    kcbp_convex cap = kcbp_convex_capsule(kcbp_v3(0, 0, -1), kcbp_v3(0, 0, 1), 0.5);
    pose = translation(3, 0, 0.5);
    q = run(&cap, &cap, &pose);
    assert_true(fabs(q.g.distance - 2) < 1e-12);
    kcbp_pose cross;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 2, 0), kcbp_v3(0, 1, 0), 90, &cross, NULL), KCBP_OK);
    q = run(&cap, &cap, &cross); /* axes are skew lines 2 apart */
    assert_true(fabs(q.g.distance - 1) < 1e-12);
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0.6, 0), kcbp_v3(0, 1, 0), 90, &cross, NULL), KCBP_OK);
    q = run(&cap, &cap, &cross);
    assert_true(fabs(q.e.depth - 0.4) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 1, 0)) < 1e-12);
    pose = translation(0, 0, 1.5);
    q = run(&cap, &cap, &pose); /* collinear cores overlapping: sideways by r1 + r2 */
    assert_true(fabs(q.e.depth - 1.0) < 1e-12);
    assert_true(fabs(q.e.normal.z) < 1e-12);
    pose = translation(0, 0, 2.5);
    q = run(&cap, &cap, &pose); /* end to end, cores 0.5 apart */
    assert_true(fabs(q.e.depth - 0.5) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(0, 0, 1)) < 1e-12);
    /* capsule against box, axis through the box */
    pose = translation(0, 0, 0);
    q = run(&cube, &cap, &pose);
    assert_int_equal(q.e.status, KCBP_EPA_PENETRATING);
    assert_true(fabs(q.e.depth - 1.5) < 1e-12); /* sideways: 1 + 0.5 */
}

static void test_inflated_polytopes(void **state)
{
    (void)state;
    kcbp_vec3 c[8];
    box(c, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex A = kcbp_convex_polytope(c, 8, NULL, NULL, 0.25);
    kcbp_pose pose = translation(3, 0, 0);
    query q = run(&A, &A, &pose);
    assert_true(fabs(q.g.distance - 0.5) < 1e-12);
    assert_true(fabs(q.g.point_a.x - 1.25) < 1e-12 && fabs(q.g.point_b.x - 1.75) < 1e-12);
    pose = translation(2.25, 0, 0); /* cores apart by 0.25, skins overlap 0.25 */
    q = run(&A, &A, &pose);
    assert_int_equal(q.g.status, KCBP_GJK_OVERLAPPING);
    assert_true(fabs(q.e.depth - 0.25) < 1e-12);
    assert_true(fabs(q.e.point_a.x - 1.25) < 1e-12 && fabs(q.e.point_b.x - 1.0) < 1e-12);
    pose = translation(1.5, 0, 0); /* cores overlap 0.5 */
    q = run(&A, &A, &pose);
    assert_true(fabs(q.e.depth - 1.0) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(1, 0, 0)) < 1e-12);
    /* rounded corner: corner to corner along the diagonal */
    pose = translation(3, 3, 3);
    q = run(&A, &A, &pose);
    assert_true(fabs(q.g.distance - (sqrt(3) - 0.5)) < 1e-12);
    /* cores exactly touching, skins overlap by 0.5 */
    pose = translation(2, 0, 0);
    q = run(&A, &A, &pose);
    assert_true(fabs(q.e.depth - 0.5) < 1e-12);
    assert_true(angle_between(q.e.normal, kcbp_v3(1, 0, 0)) < 1e-12);
}

/* ---- robustness ---- */

/* kcbp_gjk_separated against kcbp_gjk_distance's answer g, at margins
 * below, near and above the distance: the same verdict unless the distance
 * is within rounding of the margin, a lower bound that is one, and no more
 * iterations. */
static void check_separated(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *pose,
                            const kcbp_gjk_result *g)
{
    const double margins[] = {0, 1e-8 * g->scale, 0.5 * g->distance, 0.999 * g->distance, 1.001 * g->distance,
                              2 * g->distance + 1e-3};
    for (size_t k = 0; k < sizeof margins / sizeof *margins; k++) {
        double m = margins[k], lower = -1;
        int it = -1;
        int got = kcbp_gjk_separated(a, b, pose, m, NULL, &lower, &it, NULL);
        int want = (g->status == KCBP_GJK_SEPARATED || g->status == KCBP_GJK_HIT_CAP) && g->distance_lower > m;
        assert_true(it >= 0 && it <= g->iterations);
        assert_true(isfinite(lower) && lower >= 0);
        if (got) {
            assert_true(lower > m);
            assert_true(lower <= g->distance * (1 + 1e-9) + 1e-12 * g->scale);
        } else {
            assert_true(lower == 0);
        }
        if (got != want && fabs(g->distance - m) > 1e-9 * (g->scale + m))
            fail_msg("kcbp_gjk_separated(margin %g) = %d, distance %g (%s)", m, got, g->distance,
                     kcbp_gjk_status_name(g->status));
    }
}

static void test_no_nan_random_and_near_touching(void **state)
{
    (void)state;
    int max_gjk = 0, max_epa = 0, unknown = 0, n = 0;
    for (int i = 0; i < 10000; i++) {
        kcbp_vec3 pa[40], pb[40];
        int na = 1 + (int)(rng_next() % 40), nb = 1 + (int)(rng_next() % 40);
        rnd_cloud(pa, na, rnd_range(0.01, 3));
        rnd_cloud(pb, nb, rnd_range(0.01, 3));
        if (i % 7 == 0) /* flatten one: a polygon */
            for (int k = 0; k < na; k++)
                pa[k].z = 0;
        kcbp_convex A = kcbp_convex_polytope(pa, (uint32_t)na, NULL, NULL, i % 5 == 0 ? rnd_range(0, 0.3) : 0);
        kcbp_convex B = kcbp_convex_polytope(pb, (uint32_t)nb, NULL, NULL, i % 3 == 0 ? rnd_range(0, 0.3) : 0);
        kcbp_pose pose = rnd_pose(5);
        query q = run(&A, &B, &pose);
        int hit = q.g.status == KCBP_GJK_TOUCHING || q.g.status == KCBP_GJK_OVERLAPPING;
        assert_int_equal(kcbp_gjk_intersect(&A, &B, &pose, NULL), hit);
        check_separated(&A, &B, &pose, &q.g);
        n++;
        max_gjk = q.g.iterations > max_gjk ? q.g.iterations : max_gjk;
        if (q.g.status == KCBP_GJK_SEPARATED) {
            /* move B back along the normal to touch, give or take a hair */
            double hair = (i % 3 - 1) * 1e-12 * q.g.scale;
            kcbp_vec3 back = kcbp_v3_scale(q.g.normal, -(q.g.distance + hair));
            pose.trans = kcbp_v3_add(pose.trans, back);
            query t = run(&A, &B, &pose);
            /* the hair is relative to the first query's scale, which can
             * exceed this one's: SEPARATED by a hair is possible */
            int thit = t.g.status == KCBP_GJK_TOUCHING || t.g.status == KCBP_GJK_OVERLAPPING;
            assert_int_equal(kcbp_gjk_intersect(&A, &B, &pose, NULL), thit);
            n++;
            if (t.g.distance > 1e-9 * t.g.scale)
                fail_msg("moved to touch, still %g apart (scale %g)", t.g.distance, t.g.scale);
            if (t.e.status == KCBP_EPA_DEPTH_UNKNOWN)
                unknown++;
            else if (t.e.status != KCBP_EPA_SEPARATED && t.e.depth > 1e-9 * t.g.scale)
                fail_msg("moved to touch, depth %g (scale %g)", t.e.depth, t.g.scale);
            max_gjk = t.g.iterations > max_gjk ? t.g.iterations : max_gjk;
            max_epa = t.e.iterations > max_epa ? t.e.iterations : max_epa;
        } else if (q.e.status == KCBP_EPA_DEPTH_UNKNOWN) {
            unknown++;
        }
        max_epa = q.e.iterations > max_epa ? q.e.iterations : max_epa;
    }
    print_message("%d queries: max GJK iterations %d, max EPA iterations %d, depth unknown %d\n", n, max_gjk,
                  max_epa, unknown);
    assert_true(max_gjk < 40);
    assert_true(unknown * 1000 <= n);
}

static void test_caps_and_fallback(void **state)
{
    (void)state;
    enum { N = 500 };
    kcbp_vec3 *p = malloc(sizeof *p * N);
    for (int i = 0; i < N; i++)
        p[i] = rnd_unit();
    oracle_hull h;
    assert_true(oracle_hull_build(p, N, &h));
    kcbp_convex A = kcbp_convex_polytope(h.v, h.nv, h.start, h.adj, 0);
    kcbp_pose pose = rnd_pose(1);
    /* GJK capped at one iteration: bounds bracket the true distance */
    kcbp_pose far = translation(5, 1, 0);
    kcbp_gjk_params gp = {1, 1e-12};
    kcbp_gjk_result g, full;
    kcbp_gjk_distance(&A, &A, &far, &gp, NULL, &g);
    kcbp_gjk_distance(&A, &A, &far, NULL, NULL, &full);
    assert_int_equal(full.status, KCBP_GJK_SEPARATED);
    if (g.status == KCBP_GJK_HIT_CAP)
        assert_true(g.distance_lower <= full.distance + 1e-12 && g.distance >= full.distance - 1e-12);
    /* EPA capped at one iteration: the answer is an upper bound that does
     * separate */
    kcbp_gjk_distance(&A, &A, &pose, NULL, NULL, &g);
    assert_int_equal(g.status, KCBP_GJK_OVERLAPPING);
    kcbp_epa_params ep = {1, 1e-10};
    kcbp_epa_result e, exact;
    kcbp_epa_penetration(&A, &A, &pose, &g, &ep, NULL, NULL, &e);
    kcbp_epa_penetration(&A, &A, &pose, &g, NULL, NULL, NULL, &exact);
    assert_int_equal(exact.status, KCBP_EPA_PENETRATING);
    assert_int_equal(e.status, KCBP_EPA_DEPTH_UNKNOWN);
    assert_true(e.depth >= exact.depth - 1e-12 && e.depth_lower <= exact.depth + 1e-12);
    kcbp_pose moved = pose;
    moved.trans = kcbp_v3_add(moved.trans, kcbp_v3_scale(e.normal, e.depth * (1 + 1e-9)));
    kcbp_gjk_distance(&A, &A, &moved, NULL, NULL, &g);
    assert_true(g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_TOUCHING);
    /* EPA on a separated GJK answer does nothing */
    kcbp_gjk_distance(&A, &A, &far, NULL, NULL, &g);
    kcbp_epa_penetration(&A, &A, &far, &g, NULL, NULL, NULL, &e);
    assert_int_equal(e.status, KCBP_EPA_SEPARATED);
    assert_true(kcbp_gjk_intersect(&A, &A, &pose, NULL) && !kcbp_gjk_intersect(&A, &A, &far, NULL));
    oracle_hull_free(&h);
    free(p);
}

/* A smooth custom shape: an exact sphere of radius 1 as a support callback
 * (no duplicate points, so GJK ends on the relative gap test). */
static kcbp_vec3 unit_sphere_support(const void *ctx, kcbp_vec3 d, uint32_t *index)
{
    (void)ctx;
    *index = 0;
    return kcbp_v3_scale(d, 1.0 / kcbp_v3_len(d));
}

static void test_custom_support_and_warm_start(void **state)
{
    (void)state;
    kcbp_convex S = kcbp_convex_custom(unit_sphere_support, NULL, 0);
    kcbp_vec3 c[8];
    box(c, kcbp_v3(1, 1, 1), kcbp_v3(0, 0, 0));
    kcbp_convex cube = kcbp_convex_polytope(c, 8, NULL, NULL, 0);
    kcbp_pose pose = translation(3, 3, 3);
    query q = run(&S, &cube, &pose);
    assert_true(fabs(q.g.distance - (2 * sqrt(3) - 1)) < 1e-6);
    pose = translation(0, 0, 1.5);
    q = run(&cube, &S, &pose);
    assert_true(fabs(q.e.depth - 0.5) < 1e-6 || q.e.status == KCBP_EPA_DEPTH_UNKNOWN);

    /* warm start: a cache kept across a moving sequence gives the same
     * answers as a cold one */
    enum { N = 300 };
    kcbp_vec3 *p = malloc(sizeof *p * N);
    for (int i = 0; i < N; i++)
        p[i] = rnd_unit();
    oracle_hull h;
    assert_true(oracle_hull_build(p, N, &h));
    kcbp_convex A = kcbp_convex_polytope(h.v, h.nv, h.start, h.adj, 0);
    kcbp_support_cache warm = {{0, 0}};
    for (int i = 0; i < 200; i++) {
        kcbp_pose ps;
        assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(2.5 * cos(i * 0.05), 2.5 * sin(i * 0.05), 0.1),
                                                   kcbp_v3(0, 1, 1), i * 2.0, &ps, NULL),
                         KCBP_OK);
        kcbp_gjk_result gw, gc;
        kcbp_gjk_distance(&A, &A, &ps, NULL, &warm, &gw);
        kcbp_gjk_distance(&A, &A, &ps, NULL, NULL, &gc);
        assert_int_equal(gw.status, gc.status);
        assert_true(fabs(gw.distance - gc.distance) <= 1e-12 * gc.scale);
    }
    oracle_hull_free(&h);
    free(p);
}

/* ---- slivers: needles, thin prisms, near-flat and zero-area shapes ----
 *
 * GJK's sub-algorithm loses precision when the simplex is much longer than
 * its distance to the origin, which is what needles and thin prisms give;
 * see src/convex/gjk.c (the careful sub-algorithm). */

/* The answer GJK must give against the oracle, the touching tolerance tol
 * being that of the result (KCBP_GJK_TOUCH_REL of its scale): apart by more
 * than 2 tol, SEPARATED at the oracle's distance within the documented
 * tolerances (1e-9 relative, tol absolute); inside deeper than 2 tol,
 * OVERLAPPING; within tol / 2 of touching from either side, TOUCHING or
 * OVERLAPPING at a distance within tol; never HIT_CAP. Returns the case:
 * 0 apart, 1 inside, 2 touching, 3 in between (not checked further). */
static int check_vs_oracle(const kcbp_gjk_result *g, const cso_oracle_result *o, const char *what)
{
    double tol = KCBP_GJK_TOUCH_REL * g->scale;
    double signed_dist = o->inside ? -o->depth : o->dist;
    if (!(isfinite(g->distance) && isfinite(g->distance_lower) && finite3(g->point_a) && finite3(g->point_b) &&
          finite3(g->normal) && g->distance >= 0 && g->iterations <= KCBP_GJK_DEFAULT_MAX_ITERATIONS))
        fail_msg("%s: not finite, negative or over the cap: distance %g after %d iterations", what, g->distance,
                 g->iterations);
    if (g->status == KCBP_GJK_HIT_CAP)
        fail_msg("%s: GJK undecided (distance %.17g, lower %.17g); oracle %s %.17g", what, g->distance,
                 g->distance_lower, o->inside ? "inside by" : "apart by", o->inside ? o->depth : o->dist);
    if (signed_dist > 2 * tol) {
        if (g->status != KCBP_GJK_SEPARATED || fabs(g->distance - o->dist) > 1e-9 * o->dist + tol)
            fail_msg("%s: GJK %s at %.17g, the oracle apart by %.17g (tolerance %g)", what,
                     kcbp_gjk_status_name(g->status), g->distance, o->dist, tol);
        return 0;
    }
    if (signed_dist < -2 * tol) {
        if (g->status != KCBP_GJK_OVERLAPPING || g->distance != 0)
            fail_msg("%s: GJK %s at %.17g, the oracle inside by %.17g (tolerance %g)", what,
                     kcbp_gjk_status_name(g->status), g->distance, o->depth, tol);
        return 1;
    }
    if (fabs(signed_dist) < 0.5 * tol) {
        if (g->status == KCBP_GJK_SEPARATED || g->distance > tol)
            fail_msg("%s: GJK %s at %.17g, the oracle %s %.17g (tolerance %g)", what,
                     kcbp_gjk_status_name(g->status), g->distance, o->inside ? "inside by" : "apart by",
                     fabs(signed_dist), tol);
        return 2;
    }
    return 3;
}

/* The k-CBP of tests/fuzz/regress/obj/needle_gjk_apart_from_itself.obj (as
 * the obj fuzz target builds it, k = 8) against itself at the identity:
 * GJK stopped at its second step on a long edge passing 8306 from the
 * origin, with coordinates of 9e10, and called it SEPARATED by 8306; the
 * oracle has the origin 25288 deep. */
static void test_regress_needle_apart_from_itself(void **state)
{
    (void)state;
    kcbp_model m;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 8;
    kcbp_error err;
    assert_int_equal(kcbp_model_load(&m, "tests/fuzz/regress/obj/needle_gjk_apart_from_itself.obj", &mo, &err),
                     KCBP_OK);
    assert_true(kcbp_model_has_cbp(&m));
    kcbp_pose id = kcbp_pose_identity();
    int n = (int)m.impl->cbp.nvertices;
    cso_oracle_result o = cso_oracle(m.impl->cbp.vertices, n, m.impl->cbp.vertices, n, &id);
    assert_true(o.ok && o.inside);
    kcbp_gjk_result g;
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_distance(&m.impl->shape, &m.impl->shape, &id, NULL, &cache, &g);
    assert_int_equal(check_vs_oracle(&g, &o, "needle"), 1);
    assert_true(kcbp_gjk_intersect(&m.impl->shape, &m.impl->shape, &id, NULL));
    assert_false(kcbp_gjk_separated(&m.impl->shape, &m.impl->shape, &id, 0, NULL, NULL, NULL, NULL));
    /* and the report's cbp.distance */
    kcbp_collide_options co = kcbp_collide_options_default();
    co.cbp_measure = true;
    kcbp_collide_result res = {0};
    assert_int_equal(kcbp_collide(&m, &id, &m, &id, &co, &res, &err), KCBP_OK);
    assert_true(res.cbp.tested && res.cbp.measured && !res.cbp.separated);
    assert_true(res.cbp.distance == 0 && res.collide);
    kcbp_collide_result_free(&res);
    kcbp_model_free(&m);
}

/* tests/fuzz/regress/collide/thin_prism_gjk_stops_2.8e-6_apart.bin, decoded
 * as kcbp_fuzz_collide (tests/fuzz/targets.c) does; this file uses only its
 * mode 0: every coordinate is (byte % 5) - 2, bytes past the end read as 0.
 * A's k-CBP (k = 4) is a thin prism, B's a flat triangle's; GJK stopped at
 * its second step 2.8e-6 "apart" while the origin is 2.6e-6 deep. */
typedef struct {
    uint8_t b[64];
    size_t n, at;
} fuzz_bytes;
static uint8_t fuzz_next(fuzz_bytes *f) { return f->at < f->n ? f->b[f->at++] : 0; }
static double fuzz_coord0(fuzz_bytes *f) { return (double)((int)(fuzz_next(f) % 5) - 2); }

static void test_regress_thin_prism_stops_apart(void **state)
{
    (void)state;
    fuzz_bytes in = {{0}, 0, 0};
    FILE *f = fopen("tests/fuzz/regress/collide/thin_prism_gjk_stops_2.8e-6_apart.bin", "rb");
    assert_non_null(f);
    in.n = fread(in.b, 1, sizeof in.b, f);
    fclose(f);
    uint8_t h0 = fuzz_next(&in), h1 = fuzz_next(&in);
    (void)fuzz_next(&in); /* the power of two of mode 3 */
    int na = 1 + (h0 & 3), nb = 1 + ((h0 >> 2) & 3);
    assert_int_equal((h0 >> 4) & 3, 0); /* mode 0 */
    assert_false(h0 & 0x40);            /* two meshes */
    assert_true(na == 2 && nb == 1);
    kcbp_model_options mo = {.k = 4 + h1 % 29, .dirs = (kcbp_cbp_dirs)((h1 >> 5) & 3)};
    kcbp_model model[2];
    for (int s = 0; s < 2; s++) {
        int ntri = s ? nb : na;
        kcbp_vec3 v[6];
        kcbp_tri t[2];
        for (int i = 0; i < 3 * ntri; i++) {
            v[i].x = fuzz_coord0(&in);
            v[i].y = fuzz_coord0(&in);
            v[i].z = fuzz_coord0(&in);
        }
        for (int i = 0; i < ntri; i++)
            t[i] = (kcbp_tri){{(uint32_t)(3 * i), (uint32_t)(3 * i + 1), (uint32_t)(3 * i + 2)}};
        kcbp_mesh mesh;
        kcbp_error err;
        assert_int_equal(kcbp_mesh_init(&mesh, v, (size_t)(3 * ntri), t, (size_t)ntri, &err), KCBP_OK);
        assert_int_equal(kcbp_model_build_from(&model[s], &mesh, &mo, &err), KCBP_OK);
    }
    assert_false(fuzz_next(&in) & 1); /* A at the identity */
    kcbp_vec3 tb;
    tb.x = fuzz_coord0(&in);
    tb.y = fuzz_coord0(&in);
    tb.z = fuzz_coord0(&in);
    int axis_zero = 1;
    for (int k = 0; k < 3; k++)
        axis_zero &= fuzz_next(&in) == 0;
    /* B translated by (-2, -2, -2), not turned: a zero axis, 0 degrees */
    assert_true(tb.x == -2 && tb.y == -2 && tb.z == -2 && axis_zero && fuzz_next(&in) == 0);
    kcbp_pose id = kcbp_pose_identity(), pb = translation(tb.x, tb.y, tb.z);
    kcbp_pose rel = kcbp_pose_relative(&id, &pb);
    const kcbp_cbp *ca = &model[0].impl->cbp, *cb = &model[1].impl->cbp;
    cso_oracle_result o = cso_oracle(ca->vertices, (int)ca->nvertices, cb->vertices, (int)cb->nvertices, &rel);
    assert_true(o.ok && o.inside);
    kcbp_gjk_result g;
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_distance(&model[0].impl->shape, &model[1].impl->shape, &rel, NULL, &cache, &g);
    assert_int_equal(check_vs_oracle(&g, &o, "thin prism"), 1);
    assert_true(kcbp_gjk_intersect(&model[0].impl->shape, &model[1].impl->shape, &rel, NULL));
    assert_false(kcbp_gjk_separated(&model[0].impl->shape, &model[1].impl->shape, &rel, 0, NULL, NULL, NULL, NULL));
    kcbp_collide_options co = kcbp_collide_options_default();
    co.cbp_measure = true;
    kcbp_collide_result res = {0};
    kcbp_error err;
    assert_int_equal(kcbp_collide(&model[0], &id, &model[1], &pb, &co, &res, &err), KCBP_OK);
    assert_true(res.cbp.tested && res.cbp.measured && !res.cbp.separated && res.cbp.distance == 0);
    kcbp_collide_result_free(&res);
    kcbp_model_free(&model[0]);
    kcbp_model_free(&model[1]);
}

/* A sliver of the given kind, about `size` long, translated by c:
 * 0 a needle (2 to 9 points along a line, jittered across by thin),
 * 1 a thin prism (a triangle, a third of them needle-like, extruded by thin),
 * 2 a near-flat cloud (3 to 8 points on a plane, one off it by thin),
 * 3 zero-area (1 to 4 points on a line: a point, a segment). thin is 1e-3
 * to 1e-12 of the size. */
static int sliver(kcbp_vec3 *p, int kind, double size, kcbp_vec3 c)
{
    kcbp_vec3 e1 = rnd_unit(), e2 = kcbp_v3_cross(e1, rnd_unit());
    e2 = kcbp_v3_scale(e2, 1 / kcbp_v3_len(e2));
    kcbp_vec3 e3 = kcbp_v3_cross(e1, e2);
    double thin = size * pow(10, -rnd_range(3, 12));
    int n = 0;
    switch (kind) {
    case 0:
        n = 2 + (int)(rng_next() % 8);
        for (int i = 0; i < n; i++) {
            double t = i < 2 ? (i ? size : -size) : rnd_range(-size, size);
            p[i] = kcbp_v3_add(kcbp_v3_scale(e1, t), kcbp_v3_add(kcbp_v3_scale(e2, rnd_range(-thin, thin)),
                                                                  kcbp_v3_scale(e3, rnd_range(-thin, thin))));
        }
        break;
    case 1: {
        double squash = rng_next() % 3 ? 1 : 1e-6;
        n = 6;
        for (int k = 0; k < 3; k++) {
            p[k] = kcbp_v3_add(kcbp_v3_scale(e1, rnd_range(-size, size)),
                               kcbp_v3_scale(e2, rnd_range(-size, size) * squash));
            p[3 + k] = kcbp_v3_add(p[k], kcbp_v3_scale(e3, thin));
        }
        break;
    }
    case 2:
        n = 3 + (int)(rng_next() % 6);
        for (int i = 0; i < n; i++) {
            double off = i == 0 ? thin : rng_next() % 2 ? 0 : rnd_range(-thin, thin);
            p[i] = kcbp_v3_add(kcbp_v3_scale(e1, rnd_range(-size, size)),
                               kcbp_v3_add(kcbp_v3_scale(e2, rnd_range(-size, size)), kcbp_v3_scale(e3, off)));
        }
        break;
    default:
        n = 1 + (int)(rng_next() % 4);
        for (int i = 0; i < n; i++)
            p[i] = kcbp_v3_scale(e1, rnd_range(-size, size));
        break;
    }
    for (int i = 0; i < n; i++)
        p[i] = kcbp_v3_add(p[i], c);
    return n;
}

/* Pairs of slivers at sizes about 1e-6, 1 and 1e6, a third of them offset
 * far from the origin (up to 1e4 sizes), against the oracle. B is placed
 * touching A along a random direction u (A's extreme vertex along u on B's
 * extreme vertex along -u, so that the plane normal to u separates them
 * exactly), then moved along u by 0, by 1e-12 to 1 of the size either
 * way, or by up to the size; one pair in eight is a shape against itself at
 * the identity. */
static void test_sliver_stress(void **state)
{
    (void)state;
    int count[4] = {0}, status[4] = {0};
    for (int i = 0; i < 3000; i++) {
        kcbp_vec3 pa[16], pb[16];
        double size = pow(10, (double)((int)(rng_next() % 3) * 6 - 6)) * rnd_range(0.5, 2);
        kcbp_vec3 off = rng_next() % 3 == 0 ? kcbp_v3_scale(rnd_unit(), size * pow(10, rnd_range(0, 4)))
                                             : kcbp_v3(0, 0, 0);
        int ka = (int)(rng_next() % 4), kb = (int)(rng_next() % 4);
        int na = sliver(pa, ka, size, off);
        int nb = sliver(pb, kb, size * rnd_range(0.3, 3), kcbp_v3(0, 0, 0));
        kcbp_pose pose;
        assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), rnd_unit(), rnd_range(-180, 180), &pose, NULL),
                         KCBP_OK);
        int self = rng_next() % 8 == 0;
        if (self) {
            nb = na;
            memcpy(pb, pa, sizeof pa);
            pose = kcbp_pose_identity();
        } else {
            kcbp_vec3 u = rnd_unit(), as = pa[0], bs = kcbp_mat3_mul_v3(&pose.rot, pb[0]);
            for (int k = 1; k < na; k++)
                if (kcbp_v3_dot(pa[k], u) > kcbp_v3_dot(as, u))
                    as = pa[k];
            for (int k = 1; k < nb; k++) {
                kcbp_vec3 q = kcbp_mat3_mul_v3(&pose.rot, pb[k]);
                if (kcbp_v3_dot(q, u) < kcbp_v3_dot(bs, u))
                    bs = q;
            }
            int m = (int)(rng_next() % 4);
            double move = m == 0 ? 0
                          : m == 3 ? rnd_range(-1, 1) * size
                                   : (rng_next() % 2 ? 1 : -1) * size * pow(10, -rnd_range(0, 12));
            pose.trans = kcbp_v3_add(kcbp_v3_sub(as, bs), kcbp_v3_scale(u, move));
        }
        kcbp_convex A = kcbp_convex_polytope(pa, (uint32_t)na, NULL, NULL, 0);
        kcbp_convex B = kcbp_convex_polytope(pb, (uint32_t)nb, NULL, NULL, 0);
        kcbp_gjk_result g;
        kcbp_support_cache cache = {{0, 0}};
        kcbp_gjk_distance(&A, &B, &pose, NULL, &cache, &g);
        cso_oracle_result o = cso_oracle(pa, na, pb, nb, &pose);
        assert_true(o.ok);
        char what[96];
        snprintf(what, sizeof what, "pair %d (kinds %d, %d; %d, %d points; size %.3g)", i, ka, kb, na, nb, size);
        count[check_vs_oracle(&g, &o, what)]++;
        status[g.status]++;
        /* the boolean query: the same answer, or "not proven apart" */
        int hit = kcbp_gjk_intersect(&A, &B, &pose, NULL);
        if (hit != (g.status != KCBP_GJK_SEPARATED))
            fail_msg("%s: kcbp_gjk_intersect %d, kcbp_gjk_distance %s", what, hit, kcbp_gjk_status_name(g.status));
    }
    print_message("slivers: %d apart, %d inside, %d touching, %d in between; GJK: %d separated, %d touching, "
                  "%d overlapping\n",
                  count[0], count[1], count[2], count[3], status[KCBP_GJK_SEPARATED], status[KCBP_GJK_TOUCHING],
                  status[KCBP_GJK_OVERLAPPING]);
    assert_true(count[0] > 1000 && count[1] > 200 && count[2] > 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_support_scan_matches_scalar),
        cmocka_unit_test(test_support_climb_matches_scan),
        cmocka_unit_test(test_support_shapes_and_check),
        cmocka_unit_test(test_adjacency_cube),
        cmocka_unit_test(test_oracle_random_scan),
        cmocka_unit_test(test_oracle_random_climb),
        cmocka_unit_test(test_oracle_random_inflated),
        cmocka_unit_test(test_stacked_and_touching_cubes),
        cmocka_unit_test(test_box_much_larger),
        cmocka_unit_test(test_identical_polytopes),
        cmocka_unit_test(test_aligned_boxes_analytic),
        cmocka_unit_test(test_point_polytope),
        cmocka_unit_test(test_flat_polytopes),
        cmocka_unit_test(test_spheres_capsules),
        cmocka_unit_test(test_inflated_polytopes),
        cmocka_unit_test(test_no_nan_random_and_near_touching),
        cmocka_unit_test(test_caps_and_fallback),
        cmocka_unit_test(test_custom_support_and_warm_start),
        cmocka_unit_test(test_regress_needle_apart_from_itself),
        cmocka_unit_test(test_regress_thin_prism_stops_apart),
        cmocka_unit_test(test_sliver_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
