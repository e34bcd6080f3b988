/* Shapes (include/kcbp/shape.h) against independent oracles:
 *  - spheres and capsules: the distance from a point or a segment to a
 *    triangle as a convex quadratic program over the two simplices,
 *    minimised in __float128 (long double without it) by enumerating the
 *    faces of their product (the unconstrained minimum on each pair of
 *    affine hulls, kept when it lies in both sub-simplices); brute force
 *    over every triangle of a mesh;
 *  - boxes: the exact triangle test against the 12 triangles of the box's
 *    faces plus a vertex inside the box (exact comparisons), every
 *    triangle;
 *  - cylinders: polytopes inscribed in and circumscribed about it (fine
 *    tessellations, GJK on their vertices): a triangle meeting the inner
 *    one must collide, one apart from the outer one must not;
 *  - shape pairs: the closed forms against GJK on the support functions.
 * The exact decisions are checked where the oracle can tell (|d - r| far
 * above its rounding), and where it cannot, against configurations touching
 * exactly by construction; the filter's error bound is shown to matter (a
 * factor of 0 answers wrongly). No NaN is ever returned. FCL is no oracle
 * here (bench/shapes.sh compares with it). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "geom/closest.h"
#include "query/shape_query.h"
#include "testutil.h"

#if defined(__SIZEOF_FLOAT128__) && defined(__x86_64__)
typedef __float128 q128;
#else
typedef long double q128;
#endif

/* ---- the oracle: distance between two simplices (<= 3 vertices each) ---- */

typedef struct {
    q128 x[3];
} qvec;

static qvec qv_of(kcbp_vec3 v) { return (qvec){{v.x, v.y, v.z}}; }
static qvec qsub(qvec a, qvec b) { return (qvec){{a.x[0] - b.x[0], a.x[1] - b.x[1], a.x[2] - b.x[2]}}; }
static q128 qdot(qvec a, qvec b) { return a.x[0] * b.x[0] + a.x[1] * b.x[1] + a.x[2] * b.x[2]; }
static q128 qabs(q128 x) { return x < 0 ? -x : x; }

/* Solves m z = r (n <= 4) with partial pivoting; false when singular. */
static bool qsolve(q128 m[4][4], q128 r[4], int n, q128 z[4])
{
    q128 big = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            big = qabs(m[i][j]) > big ? qabs(m[i][j]) : big;
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (qabs(m[i][c]) > qabs(m[p][c]))
                p = i;
        if (!(qabs(m[p][c]) > big * (q128)1e-30))
            return false;
        for (int j = 0; j < n; j++) {
            q128 t = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = t;
        }
        q128 t = r[c];
        r[c] = r[p];
        r[p] = t;
        for (int i = c + 1; i < n; i++) {
            q128 f = m[i][c] / m[c][c];
            for (int j = c; j < n; j++)
                m[i][j] -= f * m[c][j];
            r[i] -= f * r[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        q128 s = r[i];
        for (int j = i + 1; j < n; j++)
            s -= m[i][j] * z[j];
        z[i] = s / m[i][i];
    }
    return true;
}

/* The squared distance between conv(P[0..np)) and conv(Q[0..nq)). */
static q128 oracle_dist2(const kcbp_vec3 *P, int np, const kcbp_vec3 *Q, int nq)
{
    q128 best = -1;
    for (int si = 1; si < (1 << np); si++)
        for (int sj = 1; sj < (1 << nq); sj++) {
            qvec a[3], b[3];
            int na = 0, nb = 0;
            for (int i = 0; i < np; i++)
                if (si >> i & 1)
                    a[na++] = qv_of(P[i]);
            for (int j = 0; j < nq; j++)
                if (sj >> j & 1)
                    b[nb++] = qv_of(Q[j]);
            /* x = a0 + sum s_i (a_i - a0), y = b0 + sum t_j (b_j - b0);
             * minimise |w0 + D z|^2 over z = (s, -t) */
            qvec col[4], w0 = qsub(a[0], b[0]);
            int n = 0;
            for (int i = 1; i < na; i++)
                col[n++] = qsub(a[i], a[0]);
            for (int j = 1; j < nb; j++)
                col[n++] = qsub(b[0], b[j]);
            q128 z[4] = {0, 0, 0, 0};
            if (n > 0) {
                q128 m[4][4], r[4];
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++)
                        m[i][j] = qdot(col[i], col[j]);
                    r[i] = -qdot(col[i], w0);
                }
                if (!qsolve(m, r, n, z))
                    continue;
                q128 s = 0;
                for (int i = 0; i < na - 1; i++) {
                    if (z[i] < 0)
                        goto skip;
                    s += z[i];
                }
                if (s > 1)
                    continue;
                s = 0;
                for (int j = na - 1; j < n; j++) {
                    if (z[j] < 0)
                        goto skip;
                    s += z[j];
                }
                if (s > 1)
                    continue;
            }
            {
                qvec d = w0;
                for (int i = 0; i < n; i++)
                    for (int k = 0; k < 3; k++)
                        d.x[k] += z[i] * col[i].x[k];
                q128 d2 = qdot(d, d);
                if (best < 0 || d2 < best)
                    best = d2;
            }
        skip:;
        }
    return best;
}

static double oracle_dist(const kcbp_vec3 *P, int np, const kcbp_vec3 *Q, int nq)
{
    return (double)sqrtl((long double)oracle_dist2(P, np, Q, nq));
}

/* ---- random configurations ------------------------------------------------ */

static kcbp_vec3 rnd_point(test_rng *r, double s)
{
    return kcbp_v3(test_rng_range(r, -s, s), test_rng_range(r, -s, s), test_rng_range(r, -s, s));
}

/* A triangle of one of several classes: random, sliver, needle,
 * degenerate (collinear, repeated vertex, one point), axis-aligned. */
static void rnd_triangle(test_rng *r, int cls, kcbp_vec3 t[3])
{
    for (int k = 0; k < 3; k++)
        t[k] = rnd_point(r, 1);
    switch (cls % 7) {
    case 1: /* sliver: the third vertex 1e-8 off the first edge's middle */
        t[2] = kcbp_v3_add(kcbp_v3_scale(kcbp_v3_add(t[0], t[1]), 0.5), kcbp_v3_scale(test_rng_unit_vector(r), 1e-8));
        break;
    case 2: /* needle: two vertices 1e-7 apart */
        t[1] = kcbp_v3_add(t[0], kcbp_v3_scale(test_rng_unit_vector(r), 1e-7));
        break;
    case 3: /* exactly collinear: on a coordinate axis line */
        t[0].y = t[1].y = t[2].y = 0.25;
        t[0].z = t[1].z = t[2].z = -0.5;
        break;
    case 4: t[2] = t[1]; break;        /* a repeated vertex: a segment */
    case 5: t[1] = t[2] = t[0]; break; /* a point */
    case 6: t[0].z = t[1].z = t[2].z = 0.125; break; /* in a plane z = const */
    default: break;
    }
}

/* dist <= r by the oracle, or -1 when the oracle cannot tell. */
static int oracle_within(const kcbp_vec3 *P, int np, const kcbp_vec3 *Q, int nq, double r, double scale)
{
    double d = oracle_dist(P, np, Q, nq);
    if (fabs(d - r) <= 1e-24 * scale + 1e-300)
        return -1;
    return d <= r;
}

/* ---- the decisions: random, near touching ------------------------------------ */

static void check_seg_tri_decisions(double scale, kcbp_vec3 shift, uint64_t seed, int n)
{
    test_rng rng = {seed};
    static const double rel[] = {0.5, -0.5, 1e-3, -1e-3, 1e-9, -1e-9, 1e-12, -1e-12, 1e-14, -1e-14};
    int checked = 0, exact = 0;
    for (int i = 0; i < n; i++) {
        kcbp_vec3 t[3], s[2];
        rnd_triangle(&rng, i, t);
        s[0] = rnd_point(&rng, 1.5);
        s[1] = i % 3 == 0 ? s[0] : rnd_point(&rng, 1.5);
        for (int k = 0; k < 3; k++)
            t[k] = kcbp_v3_add(kcbp_v3_scale(t[k], scale), shift);
        for (int k = 0; k < 2; k++)
            s[k] = kcbp_v3_add(kcbp_v3_scale(s[k], scale), shift);
        int ns = s[0].x == s[1].x && s[0].y == s[1].y && s[0].z == s[1].z ? 1 : 2;
        double d = oracle_dist(s, ns, t, 3);
        for (size_t j = 0; j < sizeof rel / sizeof rel[0]; j++) {
            double r = d * (1 + rel[j]);
            if (!(r > 0))
                continue;
            kcbp_within_path path;
            bool got = kcbp_within_seg_tri_ex(s[0], s[1], t, r, KCBP_WITHIN_ERR, false, &path);
            bool ex = kcbp_within_seg_tri_ex(s[0], s[1], t, r, KCBP_WITHIN_ERR, true, NULL);
            exact += path == KCBP_WITHIN_EXACT;
            if (got != ex)
                fail_msg("filter %d and exact %d differ: case %d, rel %g", got, ex, i, rel[j]);
            int o = oracle_within(s, ns, t, 3, r, scale + kcbp_v3_len(shift));
            if (o >= 0) {
                checked++;
                if (o != (int)got)
                    fail_msg("case %d (class %d, rel %g): got %d, oracle %d (d %.17g, r %.17g)", i, i % 7, rel[j],
                             got, o, d, r);
            }
        }
    }
    assert_true(checked > n * 5);
    (void)exact;
}

static void test_decisions_random(void **state)
{
    (void)state;
    check_seg_tri_decisions(1, kcbp_v3(0, 0, 0), 1, 700);
}

static void test_decisions_huge_tiny_far(void **state)
{
    (void)state;
    check_seg_tri_decisions(1e40, kcbp_v3(0, 0, 0), 2, 200);
    check_seg_tri_decisions(1e-40, kcbp_v3(0, 0, 0), 3, 200);
    check_seg_tri_decisions(1, kcbp_v3(1e6, -3e6, 2e6), 4, 200);
}

/* Configurations that touch exactly by construction (the oracle's
 * rounding cannot tell them): a point at exactly r above a triangle's
 * interior, on an edge, at a vertex; a segment touching along its length;
 * then the same one ulp farther, which is apart. */
static void test_decisions_touching_exactly(void **state)
{
    (void)state;
    const kcbp_vec3 t[3] = {{-1, -1, 0.5}, {2, -1, 0.5}, {-1, 2, 0.5}};
    const double r = 0.375;
    /* above the interior: z = 0.5 + 0.375 exactly */
    kcbp_vec3 p = {0.25, 0.25, 0.875};
    assert_true(kcbp_within_point_tri(p, t, r));
    p.z = nextafter(p.z, 1);
    assert_false(kcbp_within_point_tri(p, t, r));
    /* beside an edge (x = -1): at x = -1.375 in the plane */
    p = kcbp_v3(-1.375, 0.5, 0.5);
    assert_true(kcbp_within_point_tri(p, t, r));
    p.x = nextafter(p.x, -2);
    assert_false(kcbp_within_point_tri(p, t, r));
    /* beyond a vertex (-1, -1, 0.5) along -x */
    p = kcbp_v3(-1.375, -1, 0.5);
    assert_true(kcbp_within_point_tri(p, t, r));
    p.y = nextafter(p.y, -2); /* now off the axis: farther */
    assert_false(kcbp_within_point_tri(p, t, r));
    /* a point on the triangle: distance 0 */
    assert_true(kcbp_within_point_tri(kcbp_v3(-1, 0.25, 0.5), t, 1e-300));
    assert_true(kcbp_within_point_tri(kcbp_v3(2, -1, 0.5), t, 1e-300));
    /* a segment parallel to the triangle at height r: touches along it */
    kcbp_vec3 s0 = {-0.5, -0.5, 0.875}, s1 = {0.5, 0.25, 0.875};
    assert_true(kcbp_within_seg_tri(s0, s1, t, r));
    s0.z = s1.z = nextafter(0.875, 1);
    assert_false(kcbp_within_seg_tri(s0, s1, t, r));
    /* a segment through the triangle: distance 0 */
    assert_true(kcbp_within_seg_tri(kcbp_v3(0, 0, -1), kcbp_v3(0, 0, 1), t, 1e-300));
    /* a segment crossing an edge line at distance r: x = -1.375 */
    assert_true(kcbp_within_seg_tri(kcbp_v3(-1.375, -0.5, -3), kcbp_v3(-1.375, -0.5, 4), t, r));
    assert_false(kcbp_within_seg_tri(kcbp_v3(-1.375, -0.5, -3), kcbp_v3(nextafter(-1.375, -2), -0.5, 4), t, r) &&
                 kcbp_within_seg_tri(kcbp_v3(nextafter(-1.375, -2), -0.5, -3), kcbp_v3(nextafter(-1.375, -2), -0.5, 4),
                                     t, r));
    /* segment against segment, parallel at distance ra + rb exactly */
    assert_true(kcbp_within_seg_seg(kcbp_v3(0, 0, 0), kcbp_v3(1, 0, 0), kcbp_v3(0.5, 0.75, 0), kcbp_v3(3, 0.75, 0),
                                    0.5, 0.25));
    assert_false(kcbp_within_seg_seg(kcbp_v3(0, 0, 0), kcbp_v3(1, 0, 0), kcbp_v3(0.5, nextafter(0.75, 1), 0),
                                     kcbp_v3(3, nextafter(0.75, 1), 0), 0.5, 0.25));
    /* a point exactly at ra + rb from another */
    assert_true(kcbp_within_point_point(kcbp_v3(1, 2, 3), kcbp_v3(1, 2, 3.75), 0.5, 0.25));
    assert_false(kcbp_within_point_point(kcbp_v3(1, 2, 3), kcbp_v3(1, 2, nextafter(3.75, 4)), 0.5, 0.25));
    /* a point and a box: on a face, on an edge's rounding, at a corner */
    kcbp_vec3 h = {0.5, 0.25, 1};
    assert_true(kcbp_within_point_box(kcbp_v3(0.875, 0, 0), h, 0.375, 0));
    assert_false(kcbp_within_point_box(kcbp_v3(nextafter(0.875, 1), 0, 0), h, 0.375, 0));
    assert_true(kcbp_within_point_box(kcbp_v3(0.5 + 0.75, 0.25 + 1, 1), h, 1.25, 0)); /* 3-4-5 */
    assert_false(kcbp_within_point_box(kcbp_v3(0.5 + 0.75, nextafter(1.25, 2), 1), h, 1.25, 0));
}

/* Near-touching points and segments whose radius is within a few ulps of
 * their distance: the filter with its error factor set to 0 (no allowance
 * for rounding) answers some of them wrongly, where the factor in use
 * never does (the exact path settles those). */
static void test_filter_bound_matters(void **state)
{
    (void)state;
    test_rng rng = {7};
    int wrong0 = 0, wrong = 0, cases = 0;
    for (int i = 0; i < 4000; i++) {
        kcbp_vec3 t[3], s[2];
        rnd_triangle(&rng, 0, t);
        s[0] = rnd_point(&rng, 1.5);
        s[1] = i % 2 ? s[0] : rnd_point(&rng, 1.5);
        kcbp_vec3 x, y;
        double d = sqrt(kcbp_cp_seg_tri(s[0], s[1], t, &x, &y));
        /* radii around the computed distance, a few ulps apart */
        double r = d;
        for (int k = 0; k < 4; k++)
            r = nextafter(r, k < 2 ? 0 : 10);
        for (int u = -4; u <= 4; u++, r = nextafter(r, 10)) {
            cases++;
            bool ex = kcbp_within_seg_tri_ex(s[0], s[1], t, r, KCBP_WITHIN_ERR, true, NULL);
            wrong0 += kcbp_within_seg_tri_ex(s[0], s[1], t, r, 0, false, NULL) != ex;
            wrong += kcbp_within_seg_tri_ex(s[0], s[1], t, r, KCBP_WITHIN_ERR, false, NULL) != ex;
        }
    }
    print_message("filter with factor 0: %d wrong of %d; with %g: %d\n", wrong0, cases, KCBP_WITHIN_ERR, wrong);
    assert_true(wrong0 > 0);
    assert_int_equal(wrong, 0);
    /* the same for the box-triangle filter, on triangles touching the box
     * within rounding: the exact-only answer is the reference */
    wrong0 = wrong = 0;
    kcbp_vec3 h = {0.5, 0.75, 1};
    for (int i = 0; i < 20000; i++) {
        kcbp_vec3 t[3];
        rnd_triangle(&rng, 0, t);
        /* slide the triangle along a random axis until it just touches */
        kcbp_vec3 u = test_rng_unit_vector(&rng);
        double lo = -4, hi = 4;
        for (int it = 0; it < 80; it++) {
            double mid = (lo + hi) / 2;
            kcbp_vec3 m[3];
            for (int k = 0; k < 3; k++)
                m[k] = kcbp_v3_add(t[k], kcbp_v3_scale(u, mid));
            if (kcbp_box_tri_intersect_ex(h, m, KCBP_WITHIN_ERR, true, NULL))
                hi = mid;
            else
                lo = mid;
        }
        for (double at = lo; at <= hi; at = nextafter(at, 10)) {
            kcbp_vec3 m[3];
            for (int k = 0; k < 3; k++)
                m[k] = kcbp_v3_add(t[k], kcbp_v3_scale(u, at));
            bool ex = kcbp_box_tri_intersect_ex(h, m, KCBP_WITHIN_ERR, true, NULL);
            wrong0 += kcbp_box_tri_intersect_ex(h, m, 0, false, NULL) != ex;
            wrong += kcbp_box_tri_intersect_ex(h, m, KCBP_WITHIN_ERR, false, NULL) != ex;
        }
    }
    print_message("box filter with factor 0: %d wrong; with %g: %d\n", wrong0, KCBP_WITHIN_ERR, wrong);
    assert_int_equal(wrong, 0);
}

/* ---- the box-triangle test against tritri and containment ------------------------ */

static bool box_oracle(kcbp_vec3 h, const kcbp_vec3 t[3])
{
    for (int k = 0; k < 3; k++)
        if (fabs(t[k].x) <= h.x && fabs(t[k].y) <= h.y && fabs(t[k].z) <= h.z)
            return true;
    kcbp_vec3 c[8];
    for (int i = 0; i < 8; i++)
        c[i] = kcbp_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
    /* the faces split along the other diagonal than the library's */
    static const int f[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    for (int i = 0; i < 6; i++) {
        kcbp_vec3 a[3] = {c[f[i][1]], c[f[i][2]], c[f[i][3]]}, b[3] = {c[f[i][1]], c[f[i][3]], c[f[i][0]]};
        if (kcbp_tri_intersect(a, t, 0) || kcbp_tri_intersect(b, t, 0))
            return true;
    }
    return false;
}

static void test_box_triangle(void **state)
{
    (void)state;
    test_rng rng = {11};
    kcbp_vec3 h = {0.5, 0.25, 0.75};
    int hits = 0, exact = 0;
    for (int i = 0; i < 30000; i++) {
        kcbp_vec3 t[3];
        rnd_triangle(&rng, i, t);
        double s = i % 4 == 0 ? 0.3 : 1.2;
        for (int k = 0; k < 3; k++)
            t[k] = kcbp_v3_scale(t[k], s);
        if (i % 5 == 0) /* a vertex on the box's surface */
            t[0] = kcbp_v3(h.x, test_rng_range(&rng, -h.y, h.y), test_rng_range(&rng, -h.z, h.z));
        kcbp_within_path path;
        bool got = kcbp_box_tri_intersect_ex(h, t, KCBP_WITHIN_ERR, false, &path);
        exact += path == KCBP_WITHIN_EXACT;
        bool want = box_oracle(h, t);
        if (got != want)
            fail_msg("box-triangle case %d (class %d): got %d, oracle %d", i, i % 7, got, want);
        hits += got;
    }
    print_message("box-triangle: %d of 30000 meet, %d by the exact path\n", hits, exact);
    assert_true(hits > 3000 && hits < 27000);
}

/* ---- shapes against meshes, every triangle --------------------------------------- */

static void build_shape(kcbp_model *m, kcbp_shape s)
{
    kcbp_error err;
    if (kcbp_model_build_shape(m, &s, &err) != KCBP_OK)
        fail_msg("building a shape: %s", err.msg);
}

/* Brute force for a sphere or a capsule: every triangle within r of the
 * core (as the library places it: the centre or the segment's ends carried
 * into the mesh's frame by the relative pose), by the oracle; triangles the
 * oracle cannot tell by the exact decision. Sorted triangle indices in out;
 * returns the count. */
static size_t brute_core(const kcbp_model *mesh, const kcbp_pose *pm, const kcbp_shape_geom *g, const kcbp_pose *ps,
                         uint32_t *out, double *mind)
{
    const kcbp_model_impl *m = mesh->impl;
    kcbp_pose in_mesh = kcbp_pose_relative(pm, ps);
    kcbp_vec3 core[2];
    double r;
    int n = kcbp_shape_geom_core(g, &in_mesh, core, &r);
    size_t k = 0;
    *mind = INFINITY;
    for (uint32_t i = 0; i < m->mesh.ntriangles; i++) {
        kcbp_vec3 t[3];
        for (int j = 0; j < 3; j++)
            t[j] = m->mesh.vertices[m->mesh.triangles[i].v[j]];
        /* a generous double prefilter: the triangle's box against the core's */
        kcbp_aabb tb = {t[0], t[0]}, cb = {core[0], core[0]};
        for (int j = 1; j < 3; j++) {
            tb.min = kcbp_v3_min(tb.min, t[j]);
            tb.max = kcbp_v3_max(tb.max, t[j]);
        }
        cb.min = kcbp_v3_min(cb.min, core[n - 1]);
        cb.max = kcbp_v3_max(cb.max, core[n - 1]);
        kcbp_vec3 gap = kcbp_v3_max(kcbp_v3_sub(tb.min, cb.max), kcbp_v3_sub(cb.min, tb.max));
        if (kcbp_v3_max_abs(kcbp_v3_max(gap, kcbp_v3(0, 0, 0))) > 1.01 * r + 0.5 && isfinite(*mind))
            continue;
        double d = oracle_dist(core, n, t, 3);
        if (d - r < *mind)
            *mind = d - r;
        int o = oracle_within(core, n, t, 3, r, m->scale + kcbp_v3_len(in_mesh.trans));
        if (o < 0)
            o = kcbp_within_seg_tri_ex(core[0], core[n - 1], t, r, KCBP_WITHIN_ERR, true, NULL);
        if (o)
            out[k++] = i;
    }
    if (*mind < 0)
        *mind = 0;
    return k;
}

/* Brute force for a box: every triangle carried into the box's frame as the
 * library carries it, against box_oracle. */
static size_t brute_box(const kcbp_model *mesh, const kcbp_pose *pm, const kcbp_shape_geom *g, const kcbp_pose *ps,
                        uint32_t *out)
{
    const kcbp_model_impl *m = mesh->impl;
    kcbp_pose to_box = kcbp_pose_relative(ps, pm);
    size_t k = 0;
    for (uint32_t i = 0; i < m->mesh.ntriangles; i++) {
        kcbp_vec3 t[3];
        for (int j = 0; j < 3; j++)
            t[j] = kcbp_pose_apply(&to_box, m->mesh.vertices[m->mesh.triangles[i].v[j]]);
        if (box_oracle(g->half, t))
            out[k++] = i;
    }
    return k;
}

/* A pose of the shape near the mesh's surface: a random vertex, moved off
 * it by about the shape's size along a random direction. */
static kcbp_pose near_surface(test_rng *rng, const kcbp_model *mesh, double size)
{
    const kcbp_model_impl *m = mesh->impl;
    uint32_t v = (uint32_t)(test_rng_uniform(rng) * m->mesh.nvertices) % m->mesh.nvertices;
    kcbp_pose p = test_random_pose(rng, 0);
    p.trans = kcbp_v3_add(m->mesh.vertices[v], kcbp_v3_scale(test_rng_unit_vector(rng), size * test_rng_range(rng, 0.3, 2.5)));
    return p;
}

static void check_contacts(const kcbp_collide_result *r, const uint32_t *want, size_t nwant, bool shape_is_a)
{
    if (r->ncontacts != nwant)
        fail_msg("%zu contacts, brute force %zu", r->ncontacts, nwant);
    for (size_t i = 0; i < nwant; i++) {
        uint32_t tri = shape_is_a ? r->contacts[i].b : r->contacts[i].a;
        uint32_t other = shape_is_a ? r->contacts[i].a : r->contacts[i].b;
        assert_int_equal(tri, want[i]);
        assert_int_equal(other, KCBP_SHAPE_FEATURE);
    }
}

static void check_mesh_shapes(const char *name, uint64_t seed, int n)
{
    kcbp_model mesh;
    test_model_load_unit(&mesh, name);
    test_rng rng = {seed};
    uint32_t *want = malloc(mesh.impl->mesh.ntriangles * sizeof *want);
    assert_non_null(want);
    kcbp_collide_result r = {0};
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    int hits[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        double size = test_rng_range(&rng, 0.01, 0.3);
        kcbp_shape s = i % 3 == 0   ? kcbp_shape_sphere(size)
                       : i % 3 == 1 ? kcbp_shape_capsule(size / 2, size * test_rng_range(&rng, 0.5, 4))
                                    : kcbp_shape_box(size, size * test_rng_range(&rng, 0.2, 2), size * 1.5);
        kcbp_model sm;
        build_shape(&sm, s);
        kcbp_pose ps = near_surface(&rng, &mesh, size), pm = test_random_pose(&rng, 0.2);
        ps.trans = kcbp_pose_apply(&pm, ps.trans); /* the mesh moved too */
        size_t nwant;
        double mind = 0;
        if (s.kind == KCBP_SHAPE_BOX)
            nwant = brute_box(&mesh, &pm, &sm.impl->geom, &ps, want);
        else
            nwant = brute_core(&mesh, &pm, &sm.impl->geom, &ps, want, &mind);
        bool shape_a = i % 2 == 0;
        kcbp_error err;
        kcbp_status st = shape_a ? kcbp_collide(&sm, &ps, &mesh, &pm, &o, &r, &err)
                                 : kcbp_collide(&mesh, &pm, &sm, &ps, &o, &r, &err);
        assert_int_equal(st, KCBP_OK);
        assert_int_equal(r.collide, nwant > 0);
        check_contacts(&r, want, nwant, shape_a);
        hits[i % 3] += r.collide;
        /* the first contact alone, and the yes/no */
        kcbp_collide_options o1 = o;
        o1.contacts = KCBP_CONTACTS_NONE;
        assert_int_equal(kcbp_collide(&sm, &ps, &mesh, &pm, &o1, &r, &err), KCBP_OK);
        assert_int_equal(r.collide, nwant > 0);
        /* the distance: 0 exactly when colliding (spheres and capsules:
         * the oracle's within 1e-12) */
        kcbp_distance_result d;
        assert_int_equal(shape_a ? kcbp_distance(&sm, &ps, &mesh, &pm, NULL, &d, &err)
                                 : kcbp_distance(&mesh, &pm, &sm, &ps, NULL, &d, &err),
                         KCBP_OK);
        assert_true(d.within && isfinite(d.distance) && d.distance >= 0);
        if (nwant > 0)
            assert_true(d.distance <= 1e-12);
        else if (s.kind != KCBP_SHAPE_BOX)
            assert_true(d.distance > 0);
        if (s.kind != KCBP_SHAPE_BOX && fabs(d.distance - mind) > 1e-12)
            fail_msg("%s distance %.17g, oracle %.17g", kcbp_shape_kind_name(s.kind), d.distance, mind);
        /* the witnesses: as far apart as the distance */
        assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(d.point_a, d.point_b)) - d.distance) <= 1e-9);
        kcbp_model_free(&sm);
    }
    print_message("%s: %d / %d / %d of %d spheres / capsules / boxes collide\n", name, hits[0], hits[1], hits[2], n / 3);
    assert_true(hits[0] > 0 && hits[0] < n / 3 && hits[1] > 0 && hits[2] > 0);
    kcbp_collide_result_free(&r);
    free(want);
    kcbp_model_free(&mesh);
}

static void test_shapes_bunny(void **state)
{
    (void)state;
    check_mesh_shapes("bunny2.obj", 21, 60);
}

static void test_shapes_fandisk(void **state)
{
    (void)state;
    check_mesh_shapes("fandisk.obj", 22, 60);
}

/* Spheres and capsules touching a mesh within 1e-12: the distance from the
 * core to the nearest triangle, by the oracle, and the radius that distance
 * times (1 +- 1e-12). */
static void test_touching_mesh(void **state)
{
    (void)state;
    kcbp_model mesh;
    test_model_load_unit(&mesh, "spot.obj");
    test_rng rng = {31};
    uint32_t *want = malloc(mesh.impl->mesh.ntriangles * sizeof *want);
    kcbp_collide_result r = {0};
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    kcbp_error err;
    for (int i = 0; i < 24; i++) {
        kcbp_pose pm = kcbp_pose_identity(), ps = near_surface(&rng, &mesh, 0.1);
        kcbp_shape s = i % 2 ? kcbp_shape_capsule(0.05, 0.2) : kcbp_shape_sphere(0.05);
        kcbp_model probe_m;
        build_shape(&probe_m, s);
        double mind;
        brute_core(&mesh, &pm, &probe_m.impl->geom, &ps, want, &mind);
        kcbp_model_free(&probe_m);
        double core = mind + 0.05; /* the core's distance to the mesh (when apart) */
        if (!(mind > 0))
            continue;
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double radius = core * (1 + sgn * 1e-12);
            s.radius = radius;
            kcbp_model sm;
            build_shape(&sm, s);
            double md;
            size_t nwant = brute_core(&mesh, &pm, &sm.impl->geom, &ps, want, &md);
            assert_int_equal(kcbp_collide(&mesh, &pm, &sm, &ps, &o, &r, &err), KCBP_OK);
            assert_int_equal(r.collide, sgn > 0);
            assert_int_equal(r.collide, nwant > 0);
            check_contacts(&r, want, nwant, false);
            kcbp_model_free(&sm);
        }
    }
    kcbp_collide_result_free(&r);
    free(want);
    kcbp_model_free(&mesh);
}

/* Cylinders: a triangle meeting the inscribed polytope must collide, one
 * farther than the band from the circumscribed one must not. */
static void test_cylinder_mesh(void **state)
{
    (void)state;
    kcbp_model mesh;
    test_model_load_unit(&mesh, "bunny2.obj");
    const kcbp_model_impl *m = mesh.impl;
    test_rng rng = {41};
    enum { N = 256 };
    kcbp_vec3 inner[2 * N], outer[2 * N];
    kcbp_collide_result r = {0};
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    kcbp_error err;
    int must = 0, mustnt = 0, total_hits = 0;
    for (int i = 0; i < 12; i++) {
        double rad = test_rng_range(&rng, 0.03, 0.2), len = test_rng_range(&rng, 0.05, 0.5);
        kcbp_shape s = kcbp_shape_cylinder(rad, len);
        kcbp_model sm;
        build_shape(&sm, s);
        kcbp_pose ps = near_surface(&rng, &mesh, rad), pm = kcbp_pose_identity();
        double ro = rad / cos(M_PI / N) * (1 + 1e-12);
        for (int k = 0; k < N; k++) {
            double a = 2 * M_PI * k / N;
            for (int z = 0; z < 2; z++) {
                double hz = z ? len / 2 : -len / 2;
                inner[2 * k + z] = kcbp_pose_apply(&ps, kcbp_v3(rad * cos(a), rad * sin(a), hz));
                outer[2 * k + z] = kcbp_pose_apply(&ps, kcbp_v3(ro * cos(a), ro * sin(a), hz * (1 + 1e-12)));
            }
        }
        assert_int_equal(kcbp_collide(&mesh, &pm, &sm, &ps, &o, &r, &err), KCBP_OK);
        uint8_t *hit = calloc(m->mesh.ntriangles, 1);
        for (size_t c = 0; c < r.ncontacts; c++)
            hit[r.contacts[c].a] = 1;
        total_hits += (int)r.ncontacts;
        kcbp_convex ci = kcbp_convex_polytope(inner, 2 * N, NULL, NULL, 0);
        kcbp_convex co = kcbp_convex_polytope(outer, 2 * N, NULL, NULL, 0);
        for (uint32_t t = 0; t < m->mesh.ntriangles; t++) {
            kcbp_vec3 tv[3];
            for (int j = 0; j < 3; j++)
                tv[j] = m->mesh.vertices[m->mesh.triangles[t].v[j]];
            kcbp_convex tc = kcbp_convex_polytope(tv, 3, NULL, NULL, 0);
            kcbp_support_cache cache = {{0, 0}};
            kcbp_gjk_result g;
            kcbp_gjk_distance(&tc, &ci, NULL, NULL, &cache, &g);
            if (g.status == KCBP_GJK_OVERLAPPING && !hit[t])
                fail_msg("cylinder %d: triangle %u meets the inscribed polytope, no contact", i, t);
            must += g.status == KCBP_GJK_OVERLAPPING;
            kcbp_gjk_distance(&tc, &co, NULL, NULL, &cache, &g);
            if (g.status == KCBP_GJK_SEPARATED && g.distance_lower > 1e-8 && hit[t])
                fail_msg("cylinder %d: triangle %u %.3g from the circumscribed polytope, a contact", i, t,
                         g.distance_lower);
            mustnt += g.status == KCBP_GJK_SEPARATED;
        }
        /* the distance: between the two polytopes' (brute force over every
         * triangle with GJK on the polytopes) */
        kcbp_distance_result d;
        assert_int_equal(kcbp_distance(&mesh, &pm, &sm, &ps, NULL, &d, &err), KCBP_OK);
        double din = INFINITY, dout = INFINITY;
        for (uint32_t t = 0; t < m->mesh.ntriangles; t++) {
            kcbp_vec3 tv[3];
            for (int j = 0; j < 3; j++)
                tv[j] = m->mesh.vertices[m->mesh.triangles[t].v[j]];
            kcbp_convex tc = kcbp_convex_polytope(tv, 3, NULL, NULL, 0);
            kcbp_support_cache cache = {{0, 0}};
            kcbp_gjk_result g;
            kcbp_gjk_distance(&tc, &ci, NULL, NULL, &cache, &g);
            din = fmin(din, g.distance);
            kcbp_gjk_distance(&tc, &co, NULL, NULL, &cache, &g);
            dout = fmin(dout, g.distance);
        }
        if (!(d.distance <= din + 1e-9 && d.distance >= dout - 1e-9))
            fail_msg("cylinder %d: distance %.17g outside [%.17g, %.17g]", i, d.distance, dout, din);
        free(hit);
        kcbp_model_free(&sm);
    }
    print_message("cylinders: %d contacts; %d triangles in the inner polytopes, %d apart from the outer\n", total_hits,
                  must, mustnt);
    assert_true(must > 0);
    kcbp_collide_result_free(&r);
    kcbp_model_free(&mesh);
}

/* ---- shape pairs -------------------------------------------------------------------- */

static void test_shape_pairs(void **state)
{
    (void)state;
    test_rng rng = {51};
    kcbp_collide_options o = kcbp_collide_options_default();
    kcbp_collide_result r = {0};
    kcbp_error err;
    int hits = 0;
    for (int i = 0; i < 3000; i++) {
        kcbp_shape sa, sb;
        kcbp_shape *ss[2] = {&sa, &sb};
        for (int k = 0; k < 2; k++) {
            int kind = (int)(test_rng_uniform(&rng) * 4);
            double a = test_rng_range(&rng, 0.1, 1), b = test_rng_range(&rng, 0.1, 2), c = test_rng_range(&rng, 0.1, 1);
            *ss[k] = kind == 0 ? kcbp_shape_sphere(a) : kind == 1 ? kcbp_shape_capsule(a, b) : kind == 2 ? kcbp_shape_box(a, b, c) : kcbp_shape_cylinder(a, b);
        }
        kcbp_model ma, mb;
        build_shape(&ma, sa);
        build_shape(&mb, sb);
        kcbp_pose pa = test_random_pose(&rng, 1), pb = test_random_pose(&rng, 1);
        assert_int_equal(kcbp_collide(&ma, &pa, &mb, &pb, &o, &r, &err), KCBP_OK);
        kcbp_distance_result d;
        assert_int_equal(kcbp_distance(&ma, &pa, &mb, &pb, NULL, &d, &err), KCBP_OK);
        assert_true(isfinite(d.distance) && d.distance >= 0);
        /* GJK on the support functions (cores and radii) */
        kcbp_pose b_in_a = kcbp_pose_relative(&pa, &pb);
        kcbp_support_cache cache = {{0, 0}};
        kcbp_gjk_result g;
        kcbp_gjk_distance(&ma.impl->geom.convex, &mb.impl->geom.convex, &b_in_a, NULL, &cache, &g);
        double scale = 4;
        if (fabs(g.distance - d.distance) > 1e-9 * scale)
            fail_msg("pair %d (%s, %s): distance %.17g, GJK %.17g", i, kcbp_shape_kind_name(sa.kind),
                     kcbp_shape_kind_name(sb.kind), d.distance, g.distance);
        if (d.distance > 1e-8 * scale)
            assert_false(r.collide);
        if (g.status == KCBP_GJK_OVERLAPPING && g.core_distance == 0 && d.distance == 0)
            assert_true(r.collide);
        if (d.distance > 0)
            assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(d.point_a, d.point_b)) - d.distance) <= 1e-9);
        else
            assert_true(kcbp_v3_len(kcbp_v3_sub(d.point_a, d.point_b)) <= 1e-9);
        hits += r.collide;
        /* the answer does not depend on the order */
        kcbp_collide_result r2 = {0};
        assert_int_equal(kcbp_collide(&mb, &pb, &ma, &pa, &o, &r2, &err), KCBP_OK);
        bool exact;
        kcbp_shape_pair_collide(&ma.impl->geom, &mb.impl->geom, &b_in_a, 1, &exact);
        if (exact && sa.kind != KCBP_SHAPE_BOX && sb.kind != KCBP_SHAPE_BOX)
            assert_int_equal(r.collide, r2.collide);
        kcbp_collide_result_free(&r2);
        kcbp_model_free(&ma);
        kcbp_model_free(&mb);
    }
    print_message("shape pairs: %d of 3000 collide\n", hits);
    assert_true(hits > 300 && hits < 2700);
    kcbp_collide_result_free(&r);
}

/* ---- sweeps, solids, accessors, bad input ------------------------------------------ */

static void test_sweep_never_misses(void **state)
{
    (void)state;
    kcbp_model mesh;
    test_model_load_unit(&mesh, "bunny2.obj");
    test_rng rng = {61};
    kcbp_error err;
    int hits = 0;
    for (int i = 0; i < 24; i++) {
        kcbp_shape s = i % 4 == 0 ? kcbp_shape_sphere(0.08)
                       : i % 4 == 1 ? kcbp_shape_capsule(0.05, 0.3)
                       : i % 4 == 2 ? kcbp_shape_box(0.1, 0.2, 0.15)
                                    : kcbp_shape_cylinder(0.06, 0.2);
        kcbp_model sm;
        build_shape(&sm, s);
        kcbp_pose from = test_random_pose(&rng, 0), to = test_random_pose(&rng, 0);
        kcbp_vec3 dir = test_rng_unit_vector(&rng);
        from.trans = kcbp_v3_scale(dir, 1.6);
        to.trans = kcbp_v3_scale(dir, -0.2);
        kcbp_pose pm = kcbp_pose_identity();
        kcbp_motion ma = kcbp_motion_still(&pm), mb = kcbp_motion_make(&from, &to);
        kcbp_sweep_result sr;
        assert_int_equal(kcbp_sweep(&mesh, &ma, &sm, &mb, NULL, &sr, &err), KCBP_OK);
        assert_false(sr.undecided);
        hits += sr.hit;
        double end = sr.hit ? sr.toi : 1;
        kcbp_collide_options o = kcbp_collide_options_default();
        o.contacts = KCBP_CONTACTS_NONE;
        kcbp_collide_result r = {0};
        for (int k = 0; k < 200; k++) {
            double t = end * k / 200.0;
            kcbp_pose at = kcbp_motion_at(&mb, t);
            assert_int_equal(kcbp_collide(&mesh, &pm, &sm, &at, &o, &r, &err), KCBP_OK);
            if (r.collide && s.kind != KCBP_SHAPE_CYLINDER)
                fail_msg("%s sweep %d: contact at t = %g before toi %g", kcbp_shape_kind_name(s.kind), i, t, sr.toi);
        }
        if (sr.hit) {
            kcbp_pose at = kcbp_motion_at(&mb, fmin(1, sr.toi + 1e-6));
            assert_int_equal(kcbp_collide(&mesh, &pm, &sm, &at, &o, &r, &err), KCBP_OK);
            assert_true(r.collide);
        }
        kcbp_collide_result_free(&r);
        kcbp_model_free(&sm);
    }
    assert_true(hits > 12);
    kcbp_model_free(&mesh);
}

static void test_solid_containment(void **state)
{
    (void)state;
    kcbp_model box;
    kcbp_mesh *mesh;
    kcbp_error err;
    const kcbp_vec3 v[8] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1},
                            {-1, -1, 1},  {1, -1, 1},  {-1, 1, 1},  {1, 1, 1}};
    const kcbp_tri t[12] = {{{0, 2, 3}}, {{0, 3, 1}}, {{4, 5, 7}}, {{4, 7, 6}}, {{0, 1, 5}}, {{0, 5, 4}},
                            {{2, 6, 7}}, {{2, 7, 3}}, {{0, 4, 6}}, {{0, 6, 2}}, {{1, 3, 7}}, {{1, 7, 5}}};
    assert_int_equal(kcbp_mesh_create(v, 8, t, 12, &mesh, &err), KCBP_OK);
    kcbp_model_options mo = kcbp_model_options_default();
    mo.solid = true;
    if (kcbp_model_build(&box, mesh, &mo, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    kcbp_model sm;
    build_shape(&sm, kcbp_shape_sphere(0.5));
    kcbp_pose p0 = kcbp_pose_identity(), p1 = kcbp_pose_identity();
    p1.trans = kcbp_v3(0.1, 0.2, -0.1);
    kcbp_collide_options o = kcbp_collide_options_default();
    kcbp_collide_result r = {0};
    /* surfaces only: a sphere inside the closed mesh does not collide */
    assert_int_equal(kcbp_collide(&box, &p0, &sm, &p1, &o, &r, &err), KCBP_OK);
    assert_false(r.collide);
    o.solid = true;
    assert_int_equal(kcbp_collide(&box, &p0, &sm, &p1, &o, &r, &err), KCBP_OK);
    assert_true(r.collide);
    assert_int_equal(r.contained, KCBP_CONTAINED_B_IN_A);
    assert_int_equal(kcbp_collide(&sm, &p1, &box, &p0, &o, &r, &err), KCBP_OK);
    assert_int_equal(r.contained, KCBP_CONTAINED_A_IN_B);
    /* outside, apart */
    p1.trans = kcbp_v3(3, 0, 0);
    assert_int_equal(kcbp_collide(&box, &p0, &sm, &p1, &o, &r, &err), KCBP_OK);
    assert_false(r.collide);
    /* the mesh inside a big sphere: its triangles meet the solid */
    kcbp_model big;
    build_shape(&big, kcbp_shape_sphere(10));
    o.solid = false;
    o.contacts = KCBP_CONTACTS_ALL;
    p1.trans = kcbp_v3(0, 0, 0);
    assert_int_equal(kcbp_collide(&box, &p0, &big, &p1, &o, &r, &err), KCBP_OK);
    assert_true(r.collide);
    assert_int_equal(r.ncontacts, 12);
    /* points in a shape */
    assert_int_equal(kcbp_point_in_solid(&big, NULL, kcbp_v3(0, 0, 10)), KCBP_SOLID_ON);
    assert_int_equal(kcbp_point_in_solid(&big, NULL, kcbp_v3(0, 0, 9)), KCBP_SOLID_INSIDE);
    assert_int_equal(kcbp_point_in_solid(&big, NULL, kcbp_v3(0, 0, nextafter(10, 11))), KCBP_SOLID_OUTSIDE);
    kcbp_collide_result_free(&r);
    kcbp_model_free(&big);
    kcbp_model_free(&sm);
    kcbp_model_free(&box);
}

static void test_accessors_and_display(void **state)
{
    (void)state;
    kcbp_shape shapes[4] = {kcbp_shape_sphere(0.5), kcbp_shape_capsule(0.25, 2), kcbp_shape_box(1, 2, 3),
                            kcbp_shape_cylinder(0.5, 1.5)};
    test_rng rng = {71};
    for (int i = 0; i < 4; i++) {
        kcbp_model m;
        build_shape(&m, shapes[i]);
        kcbp_shape back;
        assert_true(kcbp_model_shape(&m, &back));
        assert_int_equal(back.kind, shapes[i].kind);
        assert_int_equal(kcbp_model_shape_kind(&m), shapes[i].kind);
        assert_true(kcbp_model_is_solid(&m));
        assert_false(kcbp_model_has_cbp(&m));
        assert_int_equal(kcbp_mesh_triangle_count(kcbp_model_mesh(&m)), 0);
        const kcbp_mesh *d = kcbp_model_display_mesh(&m);
        assert_non_null(d);
        assert_ptr_equal(d, kcbp_model_display_mesh(&m)); /* made once */
        assert_true(kcbp_mesh_triangle_count(d) >= 12);
        /* every display vertex is on the shape's surface, inside its world box */
        kcbp_pose p = test_random_pose(&rng, 3);
        kcbp_aabb wb = kcbp_model_world_bounds(&m, &p);
        for (uint32_t v = 0; v < kcbp_mesh_vertex_count(d); v++) {
            kcbp_vec3 w = kcbp_pose_apply(&p, kcbp_mesh_vertices(d)[v]);
            assert_true(w.x >= wb.min.x - 1e-12 && w.x <= wb.max.x + 1e-12);
            assert_true(w.y >= wb.min.y - 1e-12 && w.y <= wb.max.y + 1e-12);
            assert_true(w.z >= wb.min.z - 1e-12 && w.z <= wb.max.z + 1e-12);
            /* on the surface up to the rounding of making it */
            kcbp_vec3 in = kcbp_v3_scale(kcbp_mesh_vertices(d)[v], 1 - 1e-12);
            assert_int_not_equal(kcbp_point_in_solid(&m, NULL, in), KCBP_SOLID_OUTSIDE);
        }
        kcbp_model_free(&m);
    }
    /* a hull of points: a box's corners, which answers as the box (away
     * from the band) */
    kcbp_vec3 c[8];
    for (int i = 0; i < 8; i++)
        c[i] = kcbp_v3(i & 1 ? 0.5 : -0.5, i & 2 ? 1 : -1, i & 4 ? 1.5 : -1.5);
    kcbp_model hull, box, mesh;
    kcbp_error err;
    assert_int_equal(kcbp_model_build_hull(&hull, c, 8, &err), KCBP_OK);
    assert_int_equal(kcbp_model_shape_kind(&hull), KCBP_SHAPE_HULL);
    uint32_t nv;
    assert_non_null(kcbp_model_hull_vertices(&hull, &nv));
    assert_int_equal(nv, 8);
    assert_int_equal(kcbp_mesh_triangle_count(kcbp_model_display_mesh(&hull)), 12);
    build_shape(&box, kcbp_shape_box(1, 2, 3));
    test_model_load_unit(&mesh, "bunny2.obj");
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result r1 = {0}, r2 = {0};
    kcbp_pose pm = kcbp_pose_identity();
    for (int i = 0; i < 20; i++) {
        kcbp_pose p = near_surface(&rng, &mesh, 0.5);
        assert_int_equal(kcbp_collide(&mesh, &pm, &hull, &p, &o, &r1, &err), KCBP_OK);
        assert_int_equal(kcbp_collide(&mesh, &pm, &box, &p, &o, &r2, &err), KCBP_OK);
        assert_int_equal(r1.collide, r2.collide);
        kcbp_distance_result d1, d2;
        assert_int_equal(kcbp_distance(&mesh, &pm, &hull, &p, NULL, &d1, &err), KCBP_OK);
        assert_int_equal(kcbp_distance(&mesh, &pm, &box, &p, NULL, &d2, &err), KCBP_OK);
        assert_true(fabs(d1.distance - d2.distance) <= 1e-9);
    }
    kcbp_collide_result_free(&r1);
    kcbp_collide_result_free(&r2);
    kcbp_model_free(&mesh);
    kcbp_model_free(&box);
    kcbp_model_free(&hull);
}

static void test_parse_and_check(void **state)
{
    (void)state;
    kcbp_shape s;
    kcbp_error err;
    assert_int_equal(kcbp_shape_parse("sphere:0.5", &s, &err), KCBP_OK);
    assert_int_equal(s.kind, KCBP_SHAPE_SPHERE);
    assert_true(s.radius == 0.5);
    assert_int_equal(kcbp_shape_parse("capsule:0.05:0.4", &s, &err), KCBP_OK);
    assert_true(s.kind == KCBP_SHAPE_CAPSULE && s.radius == 0.05 && s.length == 0.4);
    assert_int_equal(kcbp_shape_parse("box:1:2:3", &s, &err), KCBP_OK);
    assert_true(s.kind == KCBP_SHAPE_BOX && s.size.x == 1 && s.size.y == 2 && s.size.z == 3);
    assert_int_equal(kcbp_shape_parse("cylinder:1e-3:2.5e1", &s, &err), KCBP_OK);
    assert_true(s.kind == KCBP_SHAPE_CYLINDER && s.radius == 1e-3 && s.length == 25);
    static const char *const bad[] = {"sphere:", "sphere:-1", "sphere:0", "sphere:nan", "sphere:inf", "sphere:1x",
                                      "sphere:1:2", "capsule:1", "capsule:1:", "capsule:1:0", "box:1:2",
                                      "box:1:2:3:4", "box:1:-2:3", "cylinder:1:1e999", "sphere: 1", "sphere:1e61",
                                      "sphere:1e-61", "box:1::3", "cylinder:0x10:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kcbp_status st = kcbp_shape_parse(bad[i], &s, &err);
        if (st != KCBP_ERR_INVALID)
            fail_msg("'%s' gave %s", bad[i], kcbp_status_name(st));
        assert_non_null(strstr(err.msg, bad[i]));
    }
    assert_int_equal(kcbp_shape_parse("./sphere:1", &s, &err), KCBP_ERR_PARSE);
    assert_int_equal(kcbp_shape_parse("spheres:1", &s, &err), KCBP_ERR_PARSE);
    assert_false(kcbp_shape_spelled("./sphere:1"));
    /* the model refuses what the check refuses */
    kcbp_model m;
    s = kcbp_shape_box(1, NAN, 1);
    assert_int_equal(kcbp_model_build_shape(&m, &s, &err), KCBP_ERR_INVALID);
    assert_null(m.impl);
    s = kcbp_shape_sphere(-1);
    assert_int_equal(kcbp_model_build_shape(&m, &s, &err), KCBP_ERR_INVALID);
    const kcbp_vec3 nanpt = {NAN, 0, 0};
    assert_int_equal(kcbp_model_build_hull(&m, &nanpt, 1, &err), KCBP_ERR_INVALID);
    /* a capsule of length 0 is a sphere in the library */
    s = kcbp_shape_capsule(1, 0);
    assert_int_equal(kcbp_shape_check(&s, &err), KCBP_OK);
}

/* Extreme magnitudes: every distance finite and >= 0, never NaN, and the
 * answers consistent (collide when the distance is 0 for the exact
 * shapes). */
static void test_no_nan(void **state)
{
    (void)state;
    test_rng rng = {81};
    static const double scales[] = {1e-50, 1e-8, 1, 1e8, 1e50};
    kcbp_error err;
    kcbp_collide_options o = kcbp_collide_options_default();
    kcbp_collide_result r = {0};
    for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
        double S = scales[si];
        const kcbp_vec3 v[4] = {{0, 0, 0}, {S, 0, 0}, {0, S, 0}, {0, 0, S}};
        const kcbp_tri t[4] = {{{0, 2, 1}}, {{0, 1, 3}}, {{0, 3, 2}}, {{1, 2, 3}}};
        kcbp_mesh *mesh;
        kcbp_model tet;
        assert_int_equal(kcbp_mesh_create(v, 4, t, 4, &mesh, &err), KCBP_OK);
        assert_int_equal(kcbp_model_build(&tet, mesh, NULL, &err), KCBP_OK);
        for (int i = 0; i < 200; i++) {
            double a = S * test_rng_range(&rng, 0.01, 1);
            kcbp_shape s = i % 4 == 0 ? kcbp_shape_sphere(a) : i % 4 == 1 ? kcbp_shape_capsule(a, 2 * a)
                           : i % 4 == 2 ? kcbp_shape_box(a, a / 2, 2 * a) : kcbp_shape_cylinder(a, a);
            kcbp_model sm;
            build_shape(&sm, s);
            kcbp_pose p = test_random_pose(&rng, 0), pm = kcbp_pose_identity();
            p.trans = kcbp_v3_scale(rnd_point(&rng, 2), S);
            kcbp_distance_result d;
            assert_int_equal(kcbp_distance(&tet, &pm, &sm, &p, NULL, &d, &err), KCBP_OK);
            assert_true(isfinite(d.distance) && d.distance >= 0);
            assert_true(kcbp_v3_is_finite(d.point_a) && kcbp_v3_is_finite(d.point_b));
            assert_int_equal(kcbp_collide(&tet, &pm, &sm, &p, &o, &r, &err), KCBP_OK);
            if (d.distance > 1e-8 * S)
                assert_false(r.collide);
            if (r.collide)
                assert_true(d.distance <= 1e-8 * S);
            kcbp_model_free(&sm);
        }
        kcbp_model_free(&tet);
    }
    kcbp_collide_result_free(&r);
}

/* ---- the command line --------------------------------------------------------------- */

static char tmpdir[] = "/tmp/kcbp-shapes-XXXXXX";
TEST_TMPDIR_FIXTURES(tmpdir)

static void expect_usage_error(const char *cmd, const char *a, const char *b, const char *msg)
{
    test_run_result r = {0};
    if (b)
        test_run_args(&r, cmd, a, b, NULL);
    else
        test_run_args(&r, cmd, a, NULL);
    if (r.status != 2 || r.out_len != 0 || !strstr(r.err, msg))
        fail_msg("kcbp %s %s %s: status %d, stdout '%s', stderr '%s'", cmd, a, b ? b : "", r.status, r.out, r.err);
    test_run_free(&r);
}

static void test_cli(void **state)
{
    (void)state;
    test_run_result r = {0};
    /* a capsule against a mesh: the report names it, its side of a contact is null */
    test_run_args(&r, "collide", "meshes/bunny2.obj", "capsule:0.05:0.4", "--pose-b", "0.3 0.1 0 1 0 0 90", "--contacts",
                  "all", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"b\":{\"shape\":\"capsule\",\"radius\":0.05,\"length\":0.4}"));
    assert_non_null(strstr(r.out, "\"contacts\":[[2302,null],[2305,null]]"));
    assert_null(strstr(r.out, "4294967295"));
    /* as A, and the distance and the sweep */
    test_run_args(&r, "collide", "sphere:0.2", "meshes/bunny2.obj", "--pose-a", "0.5 0 0 0 0 1 0", "--contacts", "first",
                  NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"a\":{\"shape\":\"sphere\",\"radius\":0.2}"));
    assert_non_null(strstr(r.out, "[null,"));
    test_run_args(&r, "distance", "meshes/bunny2.obj", "box:0.1:0.2:0.3", "--pose-b", "0.8 0.1 0 1 0 0 30", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"triangles\":[2033,null]"));
    assert_non_null(strstr(r.out, "\"size\":[0.1,0.2,0.3]"));
    test_run_args(&r, "sweep", "meshes/bunny2.obj", "cylinder:0.1:0.3", "--from", "2 0 0 0 0 1 0", "--to",
                  "-2 0 0 0 1 0 90", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ",null]]"));
    /* two shapes, with the margin */
    test_run_args(&r, "collide", "sphere:1", "box:1:1:1", "--pose-b", "1.6 0 0 0 0 1 0", "--margin", "0.2", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"decided_by\":\"margin\""));
    assert_non_null(strstr(r.out, "\"triangles\":[null,null]"));
    /* a shape against itself by one spelling: one model */
    test_run_args(&r, "collide", "capsule:1:2", "capsule:1:2", "--pose-b", "1 1 1 0 0 1 0", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"collide\":true"));
    /* self: a shape is convex */
    test_run_args(&r, "self", "capsule:1:2", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"self_intersect\":false"));
    /* a file named like a shape, reached by another path */
    const char *obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    const char *path = test_tmp_write_text(tmpdir, "sphere:1", obj);
    test_run_args(&r, "collide", path, "sphere:0.5", "--contacts", "first", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"contacts\":[[0,null]]"));
    test_run_free(&r);
    /* bad numbers: a usage error naming the argument, nothing on stdout */
    static const char *const bad[] = {"sphere:-1", "sphere:0", "sphere:nan", "sphere:inf", "sphere:1x", "box:1:2",
                                      "capsule:1", "capsule:1:0", "cylinder:1:2:3", "box:1:-1:1", "sphere:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_usage_error("collide", "meshes/bunny2.obj", bad[i], bad[i]);
        expect_usage_error("distance", bad[i], "meshes/bunny2.obj", bad[i]);
    }
    expect_usage_error("self", "sphere:-2", NULL, "sphere:-2");
    expect_usage_error("cbp", "sphere:1", NULL, "has no k-CBP");
    test_run_args(&r, "collide", "meshes/bunny2.obj", "sphere:1", "--geometry", NULL);
    assert_int_equal(r.status, 2);
    test_run_free(&r);
}

/* --html and --export with shapes: the files are written, the glTF file
 * reads back with the shape's display triangles after the mesh's, and the
 * object's name says it is for display. */
static void test_cli_views(void **state)
{
    (void)state;
    test_run_result r = {0};
    const char *html = test_tmp_path(tmpdir, "c.html"), *glb = test_tmp_path(tmpdir, "c.glb");
    const char *dir = test_tmp_path(tmpdir, "exp/") /* a folder: the trailing slash */;
    test_run_args(&r, "collide", "meshes/bunny2.obj", "capsule:0.05:0.4", "--pose-b", "0.3 0.1 0 1 0 0 90", "--html",
                  html, "--export", glb, NULL);
    assert_int_equal(r.status, 0);
    kcbp_mesh *m;
    kcbp_error err;
    assert_int_equal(kcbp_mesh_load(glb, &m, &err), KCBP_OK);
    kcbp_model cap;
    build_shape(&cap, kcbp_shape_capsule(0.05, 0.4));
    /* the mesh, the capsule's display triangles, the mesh's k-CBP (a shape
     * has none) */
    uint32_t nt = kcbp_mesh_triangle_count(m), shown = kcbp_mesh_triangle_count(kcbp_model_display_mesh(&cap));
    assert_true(nt > 4968 + shown && nt < 4968 + shown + 100);
    kcbp_mesh_free(m);
    kcbp_model_free(&cap);
    FILE *f = fopen(html, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "b (capsule, tessellated for display)"));
    free(text);
    test_run_args(&r, "distance", "sphere:0.5", "box:1:1:1", "--pose-b", "2 0 0 0 0 1 0", "--export", dir, NULL);
    assert_int_equal(r.status, 2); /* distance writes a .glb file only, not a folder */
    test_run_args(&r, "collide", "sphere:0.5", "box:1:1:1", "--pose-b", "2 0 0 0 0 1 0", "--export", dir, NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(kcbp_mesh_load(test_tmp_path(dir, "a.ply"), &m, &err), KCBP_OK);
    assert_true(kcbp_mesh_triangle_count(m) > 12);
    kcbp_mesh_free(m);
    assert_int_equal(kcbp_mesh_load(test_tmp_path(dir, "b.ply"), &m, &err), KCBP_OK);
    assert_int_equal(kcbp_mesh_triangle_count(m), 12);
    kcbp_mesh_free(m);
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_check),
        cmocka_unit_test(test_decisions_random),
        cmocka_unit_test(test_decisions_huge_tiny_far),
        cmocka_unit_test(test_decisions_touching_exactly),
        cmocka_unit_test(test_filter_bound_matters),
        cmocka_unit_test(test_box_triangle),
        cmocka_unit_test(test_shapes_bunny),
        cmocka_unit_test(test_shapes_fandisk),
        cmocka_unit_test(test_touching_mesh),
        cmocka_unit_test(test_cylinder_mesh),
        cmocka_unit_test(test_shape_pairs),
        cmocka_unit_test(test_sweep_never_misses),
        cmocka_unit_test(test_solid_containment),
        cmocka_unit_test(test_accessors_and_display),
        cmocka_unit_test(test_no_nan),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_cli_views),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
