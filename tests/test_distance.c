/* kcbp_tri_distance and kcbp_distance against an independent oracle: the
 * distance between two triangles as a convex quadratic program over the two
 * simplices, minimised in __float128 (or long double) by enumerating the faces of their
 * product (every pair of vertex subsets: the unconstrained minimum on the
 * pair's affine hulls, when it lies in both sub-simplices); then the
 * meshes' distance as the smallest over all triangle pairs. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

/* The oracle's precision: __float128 (113-bit significand) where the
 * compiler has it (GCC and Clang on x86-64), long double otherwise. A
 * sliver's face is a nearly singular system: long double (64 bits) put a
 * point on a sliver 1e-8 thick 1e-11 off it. */
#if defined(__SIZEOF_FLOAT128__) && !defined(__clang__) || defined(__SIZEOF_FLOAT128__) && defined(__x86_64__)
typedef __float128 ld;
#define LD_TINY 1e-60Q
#else
typedef long double ld;
#define LD_TINY 1e-30L
#endif
static ld ld_abs(ld x) { return x < 0 ? -x : x; }
static ld ld_max(ld x, ld y) { return x > y ? x : y; }
static ld ld_min(ld x, ld y) { return x < y ? x : y; }
/* sqrt in long double of a value known in ld (enough for a distance). */
static double ld_sqrt(ld x) { return (double)sqrtl((long double)x); }
typedef struct {
    ld x[3];
} lvec;

static lvec lv(kcbp_vec3 v) { return (lvec){{v.x, v.y, v.z}}; }
static ld ldot(lvec a, lvec b) { return a.x[0] * b.x[0] + a.x[1] * b.x[1] + a.x[2] * b.x[2]; }
static lvec lsub(lvec a, lvec b) { return (lvec){{a.x[0] - b.x[0], a.x[1] - b.x[1], a.x[2] - b.x[2]}}; }

/* Solves the n x n system m z = r (n <= 4) by Gaussian elimination with
 * partial pivoting; false when singular. The threshold is far below
 * rounding (a sliver's face is a nearly singular system that must still be
 * solved): a garbage solution of a truly singular one is harmless, since
 * every candidate is evaluated as a real pair of points (an upper bound). */
static bool solve(ld m[4][4], ld r[4], int n, ld z[4])
{
    ld big = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            big = ld_max(big, ld_abs(m[i][j]));
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (ld_abs(m[i][c]) > ld_abs(m[p][c]))
                p = i;
        if (!(ld_abs(m[p][c]) > LD_TINY * big))
            return false;
        for (int j = 0; j < n; j++) {
            ld t = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = t;
        }
        ld t = r[c];
        r[c] = r[p];
        r[p] = t;
        for (int i = c + 1; i < n; i++) {
            ld f = m[i][c] / m[c][c];
            for (int j = c; j < n; j++)
                m[i][j] -= f * m[c][j];
            r[i] -= f * r[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        ld s = r[i];
        for (int j = i + 1; j < n; j++)
            s -= m[i][j] * z[j];
        z[i] = s / m[i][i];
    }
    return true;
}

/* The oracle: the squared distance between triangles a and b. */
static ld oracle_tri_dist2(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    lvec A[3], B[3];
    for (int i = 0; i < 3; i++)
        A[i] = lv(a[i]), B[i] = lv(b[i]);
    ld best = INFINITY;
    for (int sa = 1; sa < 8; sa++)
        for (int sb = 1; sb < 8; sb++) {
            int ia[3], ib[3], na = 0, nb = 0;
            for (int i = 0; i < 3; i++) {
                if (sa >> i & 1)
                    ia[na++] = i;
                if (sb >> i & 1)
                    ib[nb++] = i;
            }
            int n = (na - 1) + (nb - 1);
            if (n > 3)
                continue; /* always singular in 3D: a smaller face holds a minimiser */
            /* x = A0 + sum l_k (A_k - A0), y = B0 + sum m_k (B_k - B0);
             * minimise |x - y|^2 = |g0 + G z|^2, g0 = A0 - B0. */
            lvec g[4], g0 = lsub(A[ia[0]], B[ib[0]]);
            int k = 0;
            for (int i = 1; i < na; i++)
                g[k++] = lsub(A[ia[i]], A[ia[0]]);
            for (int i = 1; i < nb; i++) {
                lvec d = lsub(B[ib[i]], B[ib[0]]);
                g[k++] = (lvec){{-d.x[0], -d.x[1], -d.x[2]}};
            }
            ld z[4] = {0, 0, 0, 0};
            if (n > 0) {
                ld m[4][4], r[4];
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++)
                        m[i][j] = ldot(g[i], g[j]);
                    r[i] = -ldot(g[i], g0);
                }
                if (!solve(m, r, n, z))
                    continue;
            }
            /* Barycentric weights of each side; nearly feasible ones are
             * clamped into the simplex, so every candidate is a real pair of
             * points (an upper bound), and the optimum's is within rounding. */
            ld wa[3] = {1, 0, 0}, wb[3] = {1, 0, 0};
            bool feasible = true;
            k = 0;
            for (int i = 1; i < na; i++)
                wa[0] -= (wa[i] = z[k++]);
            for (int i = 1; i < nb; i++)
                wb[0] -= (wb[i] = z[k++]);
            for (int i = 0; i < 3; i++)
                if (wa[i] < (ld)-1e-12 || wb[i] < (ld)-1e-12)
                    feasible = false;
            if (!feasible)
                continue;
            ld sa_ = 0, sb_ = 0;
            for (int i = 0; i < 3; i++) {
                wa[i] = ld_max(wa[i], 0), wb[i] = ld_max(wb[i], 0);
                sa_ += wa[i], sb_ += wb[i];
            }
            lvec x = {{0, 0, 0}}, y = {{0, 0, 0}};
            for (int i = 0; i < na; i++)
                for (int c = 0; c < 3; c++)
                    x.x[c] += wa[i] / sa_ * A[ia[i]].x[c];
            for (int i = 0; i < nb; i++)
                for (int c = 0; c < 3; c++)
                    y.x[c] += wb[i] / sb_ * B[ib[i]].x[c];
            lvec d = lsub(x, y);
            best = ld_min(best, ldot(d, d));
        }
    return best;
}

static double tri_scale(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    double s = 0;
    for (int i = 0; i < 3; i++)
        s = fmax(s, fmax(kcbp_v3_max_abs(a[i]), kcbp_v3_max_abs(b[i])));
    return s;
}

/* The squared distance from p to triangle t, by the oracle (a point is a
 * degenerate triangle). */
static ld point_tri_dist2(kcbp_vec3 p, const kcbp_vec3 t[3])
{
    kcbp_vec3 q[3] = {p, p, p};
    return oracle_tri_dist2(q, t);
}

typedef struct {
    int pairs;
    double worst; /* largest error / scale */
} err_stats;

/* One pair against the oracle, both orders: the distance within the stated
 * bound, the points on their triangles and as far apart as the distance. */
static void check_pair(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double rel, err_stats *st)
{
    double s = tri_scale(a, b);
    double want = ld_sqrt(oracle_tri_dist2(a, b));
    for (int order = 0; order < 2; order++) {
        const kcbp_vec3 *x = order ? b : a, *y = order ? a : b;
        kcbp_vec3 px, py;
        double got = kcbp_tri_distance(x, y, &px, &py);
        double e = fabs(got - want);
        st->worst = fmax(st->worst, s > 0 ? e / s : e);
        st->pairs++;
        if (!(e <= rel * s + 1e-300))
            fail_msg("distance %.17g, oracle %.17g (error %.3g of scale %.3g)\n a (%.17g %.17g %.17g) (%.17g %.17g "
                     "%.17g) (%.17g %.17g %.17g)\n b (%.17g %.17g %.17g) (%.17g %.17g %.17g) (%.17g %.17g %.17g)",
                     got, want, e / s, s, x[0].x, x[0].y, x[0].z, x[1].x, x[1].y, x[1].z, x[2].x, x[2].y, x[2].z,
                     y[0].x, y[0].y, y[0].z, y[1].x, y[1].y, y[1].z, y[2].x, y[2].y, y[2].z);
        assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(py, px)) - got) <= 1e-15 * s + 1e-300);
        double ex = ld_sqrt(point_tri_dist2(px, x)), ey = ld_sqrt(point_tri_dist2(py, y));
        if (!(ex <= rel * s + 1e-300 && ey <= rel * s + 1e-300))
            fail_msg("points off their triangles by %.3g and %.3g (scale %.3g)\n a (%.17g %.17g %.17g) (%.17g %.17g "
                     "%.17g) (%.17g %.17g %.17g)\n b (%.17g %.17g %.17g) (%.17g %.17g %.17g) (%.17g %.17g %.17g)",
                     ex, ey, s, x[0].x, x[0].y, x[0].z, x[1].x, x[1].y, x[1].z, x[2].x, x[2].y, x[2].z, y[0].x,
                     y[0].y, y[0].z, y[1].x, y[1].y, y[1].z, y[2].x, y[2].y, y[2].z);
    }
}

static kcbp_vec3 rand_point(test_rng *r, double lo, double hi)
{
    return kcbp_v3(test_rng_range(r, lo, hi), test_rng_range(r, lo, hi), test_rng_range(r, lo, hi));
}

static kcbp_vec3 lerp(kcbp_vec3 a, kcbp_vec3 b, double t) { return kcbp_v3_add(a, kcbp_v3_scale(kcbp_v3_sub(b, a), t)); }

/* Hand-made cases whose distance is known. */
static void test_tri_hand(void **state)
{
    (void)state;
    const kcbp_vec3 t[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    kcbp_vec3 pa, pb;
    /* Vertex above the face. */
    kcbp_vec3 u[3] = {{0.2, 0.2, 0.5}, {0.2, 0.2, 2}, {0.3, 0.3, 2}};
    assert_true(fabs(kcbp_tri_distance(t, u, &pa, &pb) - 0.5) < 1e-15);
    assert_true(fabs(pa.x - 0.2) < 1e-15 && fabs(pa.z) < 1e-15);
    /* Crossing edges (a pierce): 0 with one shared point. */
    kcbp_vec3 v[3] = {{0.2, 0.2, -1}, {0.2, 0.2, 1}, {5, 5, 5}};
    assert_true(kcbp_tri_distance(t, v, &pa, &pb) == 0);
    assert_true(fabs(pa.x - 0.2) < 1e-15 && fabs(pa.y - 0.2) < 1e-15 && fabs(pa.z) < 1e-15);
    /* Skew edges: edge x-axis segment vs a segment along y at height 1. */
    kcbp_vec3 w[3] = {{0.5, -1, 1}, {0.5, -2, 1}, {0.5, -1.5, 3}};
    assert_true(fabs(kcbp_tri_distance(t, w, &pa, &pb) - sqrt(2.0)) < 1e-15);
    /* Parallel coplanar, apart by 1 along x. */
    kcbp_vec3 p[3] = {{2, 0, 0}, {3, 0, 0}, {2, 1, 0}};
    assert_true(fabs(kcbp_tri_distance(t, p, &pa, &pb) - 1) < 1e-15);
    /* Shared vertex: touching. */
    kcbp_vec3 s[3] = {{1, 0, 0}, {2, 3, 4}, {2, -3, 1}};
    assert_true(kcbp_tri_distance(t, s, &pa, &pb) == 0);
    /* Degenerate: a point, a segment (repeated vertex), collinear vertices. */
    kcbp_vec3 pt[3] = {{0.25, 0.25, -3}, {0.25, 0.25, -3}, {0.25, 0.25, -3}};
    assert_true(fabs(kcbp_tri_distance(t, pt, &pa, &pb) - 3) < 1e-15);
    kcbp_vec3 col[3] = {{-1, -1, 2}, {1, 1, 2}, {0, 0, 2}};
    assert_true(fabs(kcbp_tri_distance(t, col, &pa, &pb) - 2) < 1e-15);
    assert_true(fabs(kcbp_tri_distance(pt, col, &pa, &pb) - sqrt(25.0)) < 1e-14);
    /* Non-finite: INFINITY, no NaN. */
    kcbp_vec3 bad[3] = {{NAN, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    assert_true(isinf(kcbp_tri_distance(t, bad, NULL, NULL)));
}

/* Random pairs in several classes against the oracle. */
static void test_tri_oracle(void **state)
{
    (void)state;
    test_rng r = {0x5eed1234abcdull};
    err_stats st = {0, 0};
    enum { N = 5000 };
    for (int n = 0; n < N; n++) {
        kcbp_vec3 a[3], b[3];
        int cls = n % 10;
        double off = pow(10, test_rng_range(&r, -3, 3)); /* position far from the origin sometimes */
        kcbp_vec3 o = cls == 7 ? rand_point(&r, -off, off) : kcbp_v3(0, 0, 0);
        for (int i = 0; i < 3; i++) {
            a[i] = kcbp_v3_add(o, rand_point(&r, -1, 1));
            b[i] = kcbp_v3_add(o, rand_point(&r, -1, 1));
        }
        switch (cls) {
        case 0: break; /* overlapping boxes: many intersect */
        case 1:        /* apart */
            for (int i = 0; i < 3; i++)
                b[i].x += 2.5;
            break;
        case 2: { /* near-parallel edges: b's first edge a slightly turned copy of a's */
            kcbp_vec3 d = kcbp_v3_scale(rand_point(&r, -1, 1), pow(10, test_rng_range(&r, -12, -3)));
            kcbp_vec3 sh = kcbp_v3_scale(test_rng_unit_vector(&r), test_rng_range(&r, 0, 0.1));
            b[0] = kcbp_v3_add(a[0], sh);
            b[1] = kcbp_v3_add(kcbp_v3_add(a[1], sh), d);
            break;
        }
        case 3: /* coplanar */
            for (int i = 0; i < 3; i++)
                a[i].z = 0.25, b[i].z = 0.25;
            break;
        case 4: /* degenerate b: collinear, or a repeated vertex */
            b[2] = test_rng_uniform(&r) < 0.5 ? lerp(b[0], b[1], test_rng_range(&r, -1, 2)) : b[0];
            break;
        case 5: /* touching: a vertex of b on a's face, b pointing away */
        {
            double u = test_rng_uniform(&r), v = test_rng_uniform(&r) * (1 - u);
            kcbp_vec3 p = kcbp_v3_add(a[0], kcbp_v3_add(kcbp_v3_scale(kcbp_v3_sub(a[1], a[0]), u),
                                                        kcbp_v3_scale(kcbp_v3_sub(a[2], a[0]), v)));
            kcbp_vec3 nrm = kcbp_v3_cross(kcbp_v3_sub(a[1], a[0]), kcbp_v3_sub(a[2], a[0]));
            b[0] = p;
            b[1] = kcbp_v3_add(p, kcbp_v3_add(nrm, rand_point(&r, -0.1, 0.1)));
            b[2] = kcbp_v3_add(p, kcbp_v3_add(nrm, rand_point(&r, -0.1, 0.1)));
            break;
        }
        case 6: /* small gap above the face, vertex-face */
        {
            kcbp_vec3 nrm = kcbp_v3_cross(kcbp_v3_sub(a[1], a[0]), kcbp_v3_sub(a[2], a[0]));
            nrm = kcbp_v3_scale(nrm, 1 / kcbp_v3_len(nrm));
            kcbp_vec3 p = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(a[0], a[1]), a[2]), 1.0 / 3);
            p = kcbp_v3_add(p, kcbp_v3_scale(nrm, pow(10, test_rng_range(&r, -9, 0))));
            b[0] = p;
            b[1] = kcbp_v3_add(p, kcbp_v3_add(nrm, rand_point(&r, -0.5, 0.5)));
            b[2] = kcbp_v3_add(p, kcbp_v3_add(nrm, rand_point(&r, -0.5, 0.5)));
            break;
        }
        case 8: /* a sliver: a's third vertex just off its first edge */
            a[2] = kcbp_v3_add(lerp(a[0], a[1], test_rng_range(&r, -0.5, 1.5)),
                               kcbp_v3_scale(test_rng_unit_vector(&r), pow(10, test_rng_range(&r, -14, -2))));
            break;
        case 9: { /* a vertex of b just above the middle of a sliver (its face normal is ill-conditioned) */
            kcbp_vec3 w = kcbp_v3_cross(kcbp_v3_sub(a[1], a[0]), test_rng_unit_vector(&r));
            w = kcbp_v3_scale(w, pow(10, test_rng_range(&r, -8, -3)) / kcbp_v3_len(w));
            a[2] = kcbp_v3_add(lerp(a[0], a[1], test_rng_range(&r, 0.2, 0.8)), w);
            kcbp_vec3 nrm = kcbp_v3_cross(kcbp_v3_sub(a[1], a[0]), kcbp_v3_sub(a[2], a[0]));
            nrm = kcbp_v3_scale(nrm, 1 / kcbp_v3_len(nrm));
            kcbp_vec3 c = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(a[0], a[1]), a[2]), 1.0 / 3);
            b[0] = kcbp_v3_add(c, kcbp_v3_scale(nrm, pow(10, test_rng_range(&r, -9, 0))));
            b[1] = kcbp_v3_add(b[0], kcbp_v3_add(nrm, rand_point(&r, -0.5, 0.5)));
            b[2] = kcbp_v3_add(b[0], kcbp_v3_add(nrm, rand_point(&r, -0.5, 0.5)));
            break;
        }
        default: break;
        }
        check_pair(a, b, KCBP_TRI_DIST_REL_ERR, &st);
    }
    print_message("triangle pairs: %d checked (both orders), largest error %.3g of the scale\n", st.pairs,
                  st.worst);
}

/* A small random mesh: n triangles around the origin in [-1, 1]^3. */
static void random_mesh(kcbp_model *m, test_rng *r, int n)
{
    kcbp_vec3 v[3 * 64];
    kcbp_tri t[64];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++) {
        kcbp_vec3 c = rand_point(r, -0.8, 0.8);
        for (int k = 0; k < 3; k++)
            v[3 * i + k] = kcbp_v3_add(c, rand_point(r, -0.2, 0.2));
        t[i] = (kcbp_tri){{3u * i, 3u * i + 1, 3u * i + 2}};
    }
    test_model_from_arrays(m, v, 3 * (size_t)n, t, (size_t)n);
}

/* The meshes' distance against all triangle pairs by the oracle. */
static void test_mesh_oracle(void **state)
{
    (void)state;
    test_rng r = {0xd157a9ceull};
    kcbp_error err = {0};
    int within = 0, beyond = 0, zero = 0;
    for (int m = 0; m < 8; m++) {
        kcbp_model a, b;
        random_mesh(&a, &r, 12 + m);
        if (m % 3 == 0)
            test_model_box(&b, kcbp_v3(-0.5, -0.4, -0.3), kcbp_v3(0.5, 0.4, 0.3));
        else
            random_mesh(&b, &r, 24 - m);
        for (int k = 0; k < 12; k++) {
            kcbp_pose pa = test_random_pose(&r, 0.5), pb = test_random_pose(&r, k < 3 ? 0.2 : 1 + k * 0.2);
            kcbp_pose rel = kcbp_pose_relative(&pa, &pb);
            ld want2 = INFINITY;
            for (uint32_t i = 0; i < a.impl->mesh.ntriangles; i++)
                for (uint32_t j = 0; j < b.impl->mesh.ntriangles; j++) {
                    kcbp_vec3 ta[3], tb[3];
                    for (int c = 0; c < 3; c++) {
                        ta[c] = a.impl->mesh.vertices[a.impl->mesh.triangles[i].v[c]];
                        tb[c] = kcbp_pose_apply(&rel, b.impl->mesh.vertices[b.impl->mesh.triangles[j].v[c]]);
                    }
                    want2 = ld_min(want2, oracle_tri_dist2(ta, tb));
                }
            double want = ld_sqrt(want2);
            double s = fmax(a.impl->scale, b.impl->scale + kcbp_v3_len(rel.trans));
            for (int use_cbp = 0; use_cbp < 2; use_cbp++) {
                kcbp_distance_options o = kcbp_distance_options_default();
                o.use_cbp = use_cbp;
                kcbp_distance_result res;
                assert_int_equal(kcbp_distance(&a, &pa, &b, &pb, &o, &res, &err), KCBP_OK);
                assert_true(res.within);
                assert_true(fabs(res.distance - want) <= KCBP_TRI_DIST_REL_ERR * s);
                /* The points: in the world, as far apart as the distance, on
                 * the triangles named. */
                assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(res.point_b, res.point_a)) - res.distance) <= 1e-14 * s);
                assert_true(res.tri_a < a.impl->mesh.ntriangles && res.tri_b < b.impl->mesh.ntriangles);
                kcbp_vec3 ta[3], tb[3];
                for (int c = 0; c < 3; c++) {
                    ta[c] = kcbp_pose_apply(&pa, a.impl->mesh.vertices[a.impl->mesh.triangles[res.tri_a].v[c]]);
                    tb[c] = kcbp_pose_apply(&pb, b.impl->mesh.vertices[b.impl->mesh.triangles[res.tri_b].v[c]]);
                }
                assert_true(ld_sqrt(point_tri_dist2(res.point_a, ta)) <= 1e-12 * s);
                assert_true(ld_sqrt(point_tri_dist2(res.point_b, tb)) <= 1e-12 * s);
                if (use_cbp && res.cbp_tested)
                    assert_true(res.cbp_distance <= want + 1e-8 * s);
                zero += want == 0;
                /* A limit on either side of the answer. */
                for (int side = 0; side < 2; side++) {
                    double lim = want * (side ? 1.25 : 0.8) + (side ? 1e-9 : 0);
                    if (!side && want < 1e-6)
                        continue;
                    o.max_distance = lim;
                    kcbp_distance_result lr;
                    assert_int_equal(kcbp_distance(&a, &pa, &b, &pb, &o, &lr, &err), KCBP_OK);
                    assert_int_equal(lr.within, side);
                    if (side) {
                        within++;
                        assert_true(fabs(lr.distance - res.distance) <= KCBP_TRI_DIST_REL_ERR * s);
                    } else {
                        beyond++;
                        assert_true(isinf(lr.distance) && lr.distance_lower >= lim - 1e-8 * s &&
                                    lr.distance_lower <= want + 1e-8 * s);
                        assert_true(lr.tree.tri_pairs <= res.tree.tri_pairs);
                    }
                }
            }
        }
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
    print_message("mesh pairs: %d within a limit, %d beyond, %d touching\n", within, beyond, zero);
    assert_true(beyond > 30 && within > 30);
}

/* Every node's oriented box (kcbp_aabb_tree.obb, the bounds of the
 * distance traversal) holds its triangles' vertices, has orthonormal axes,
 * the thinnest last, and is no larger than the node's axis-aligned box; the slanted, curved
 * and flat meshes get boxes off the mesh's axes somewhere. */
static void test_tree_obb(void **state)
{
    (void)state;
    const char *names[] = {"suzanne.obj", "woody.obj", "fandisk.obj"};
    for (size_t mi = 0; mi < sizeof names / sizeof names[0]; mi++) {
        kcbp_model m;
        test_model_load(&m, names[mi]);
        const kcbp_aabb_tree *t = &m.impl->tree;
        uint32_t *lo = malloc(t->nnodes * sizeof *lo), *hi = malloc(t->nnodes * sizeof *hi), rotated = 0;
        assert_non_null(lo);
        assert_non_null(hi);
        for (uint32_t i = t->nnodes; i-- > 0;) {
            const kcbp_aabb_node *n = &t->nodes[i];
            lo[i] = n->count ? n->first : lo[n->first];
            hi[i] = n->count ? n->first + n->count : hi[n->first + 1];
            const kcbp_obb *o = &t->obb[i];
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++) {
                    ld dot = 0;
                    for (int c = 0; c < 3; c++)
                        dot += (ld)o->axes.m[j][c] * o->axes.m[k][c];
                    assert_true(ld_abs(dot - (j == k)) <= 1e-13);
                }
            bool off = false;
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++)
                    off |= fabs(o->axes.m[j][k]) > 1e-9 && fabs(o->axes.m[j][k]) < 1 - 1e-9;
            rotated += off;
            assert_true(o->extent.z <= o->extent.x && o->extent.z <= o->extent.y); /* the thinnest last */
            /* (up to the padding: 64u of the coordinates) */
            double pad = 1e-13 * kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(n->center), n->extent));
            assert_true((ld)o->extent.x * o->extent.y * o->extent.z <=
                        ((ld)n->extent.x + pad) * (n->extent.y + pad) * (n->extent.z + pad));
            for (uint32_t s = lo[i]; s < hi[i]; s++)
                for (int v = 0; v < 3; v++) {
                    kcbp_vec3 p = t->tri_verts[s][v];
                    ld d[3] = {(ld)p.x - o->center.x, (ld)p.y - o->center.y, (ld)p.z - o->center.z};
                    ld e[3] = {o->extent.x, o->extent.y, o->extent.z};
                    for (int k = 0; k < 3; k++) {
                        ld x = ld_abs(o->axes.m[k][0] * d[0] + o->axes.m[k][1] * d[1] + o->axes.m[k][2] * d[2]);
                        assert_true(x <= e[k]);
                    }
                }
        }
        print_message("%s: %u of %u nodes' boxes off the mesh's axes\n", names[mi], rotated, t->nnodes);
        assert_true(rotated > t->nnodes / 10);
        free(lo);
        free(hi);
        kcbp_model_free(&m);
    }
}

/* Bundled meshes at random rotations and near contact: the distance is
 * exactly (bit for bit) the smallest kcbp_tri_distance over all triangle
 * pairs, in A's frame as kcbp_distance computes it, so no pair that could
 * hold the minimum was pruned by a box bound. */
static void test_mesh_brute(void **state)
{
    (void)state;
    const char *pairs[][2] = {{"suzanne.obj", "suzanne.obj"}, {"woody.obj", "suzanne.obj"}};
    test_rng r = {0x0bb5eedull};
    kcbp_error err = {0};
    int apart = 0;
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        kcbp_model a, b;
        test_model_load_unit(&a, pairs[pi][0]);
        test_model_load_unit(&b, pairs[pi][1]);
        for (int k = 0; k < 8; k++) {
            kcbp_pose pa = test_random_pose(&r, 0.3), pb = test_random_pose(&r, 0);
            pb.trans = kcbp_v3_add(pa.trans, kcbp_v3_scale(test_rng_unit_vector(&r), test_rng_range(&r, 1.0, 2.2)));
            kcbp_pose rel = kcbp_pose_relative(&pa, &pb);
            double want = INFINITY;
            for (uint32_t j = 0; j < b.impl->mesh.ntriangles; j++) {
                kcbp_vec3 tb[3];
                for (int c = 0; c < 3; c++)
                    tb[c] = kcbp_pose_apply(&rel, b.impl->mesh.vertices[b.impl->mesh.triangles[j].v[c]]);
                for (uint32_t i = 0; i < a.impl->mesh.ntriangles; i++) {
                    kcbp_vec3 ta[3];
                    for (int c = 0; c < 3; c++)
                        ta[c] = a.impl->mesh.vertices[a.impl->mesh.triangles[i].v[c]];
                    want = fmin(want, kcbp_tri_distance(ta, tb, NULL, NULL));
                }
            }
            apart += want > 0;
            for (int use_cbp = 0; use_cbp < 2; use_cbp++) {
                kcbp_distance_options o = kcbp_distance_options_default();
                o.use_cbp = use_cbp;
                kcbp_distance_result res;
                assert_int_equal(kcbp_distance(&a, &pa, &b, &pb, &o, &res, &err), KCBP_OK);
                assert_true(res.within);
                if (want > 0)
                    assert_true(res.distance == want);
                else
                    assert_true(res.distance <= KCBP_TRI_DIST_REL_ERR * 4);
            }
        }
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
    assert_true(apart >= 8);
}

/* Bundled meshes: symmetric, translation moves the distance as expected,
 * touching is 0, far apart is decided by the boxes or the k-CBPs. */
static void test_bundled(void **state)
{
    (void)state;
    kcbp_model a;
    test_model_load_unit(&a, "suzanne.obj");
    kcbp_error err = {0};
    kcbp_pose id = kcbp_pose_identity(), far;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(10, 0, 0), kcbp_v3(0, 0, 1), 0, &far, &err), KCBP_OK);
    kcbp_distance_result res, back;
    assert_int_equal(kcbp_distance(&a, &id, &a, &id, NULL, &res, &err), KCBP_OK);
    assert_true(res.within && res.distance == 0);
    assert_int_equal(kcbp_distance(&a, &id, &a, &far, NULL, &res, &err), KCBP_OK);
    assert_int_equal(kcbp_distance(&a, &far, &a, &id, NULL, &back, &err), KCBP_OK);
    assert_true(res.within && fabs(res.distance - back.distance) <= 1e-12 * 10);
    /* Unit-normalised: the x extent is 2 at most, so the gap is at least 8. */
    assert_true(res.distance >= 8 - 1e-9 && res.distance <= 10);
    assert_true(fabs(res.point_b.x - res.point_a.x) <= res.distance + 1e-12);
    kcbp_distance_options o = kcbp_distance_options_default();
    o.max_distance = 1;
    assert_int_equal(kcbp_distance(&a, &id, &a, &far, &o, &res, &err), KCBP_OK);
    assert_true(!res.within && res.decided_by != KCBP_STAGE_MESH && res.tree.box_pairs == 0);
    kcbp_model_free(&a);
}

/* The program: one pose, a poses file (NDJSON), a clearance query, and
 * usage errors with nothing on stdout. */
static void test_cli(void **state)
{
    (void)state;
    test_run_result r = {0};
    const char *m = "meshes/suzanne.obj";
    test_run(&r, (const char *const[]){"distance", m, m, "--pose-b", "10 0 0 0 0 1 0", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"distance\":"));
    assert_non_null(strstr(r.out, "\"point_a\":["));
    assert_non_null(strstr(r.out, "\"triangles\":["));
    assert_non_null(strstr(r.out, "\"query_ms\":"));
    double d = atof(strstr(r.out, "\"distance\":") + 11);
    assert_true(d > 0 && d < 10);
    test_run_free(&r);
    /* The same pose through a file, twice, and a clearance query. */
    char dir[] = "/tmp/kcbp-distance-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *poses = test_tmp_write_text(dir, "poses.txt", "# two poses\n10 0 0 0 0 1 0\n0 0 0 0 0 1 0\n");
    test_run(&r, (const char *const[]){"distance", m, m, "--poses", poses, NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"pose\":0"));
    assert_non_null(strstr(r.out, "\"pose\":1"));
    assert_non_null(strstr(r.out, "{\"distance\":0,"));
    assert_true(fabs(atof(strstr(r.out, "\"distance\":") + 11) - d) <= 1e-12 * d);
    test_run_free(&r);
    test_run(&r, (const char *const[]){"distance", m, m, "--poses", poses, "--max-distance", "1", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"distance\":null,\"farther_than\":1,"));
    assert_non_null(strstr(r.out, "{\"distance\":0,"));
    test_run_free(&r);
    const char *bad[][8] = {
        {"distance", m, NULL},
        {"distance", m, m, "--max-distance", "-1", NULL},
        {"distance", m, m, "--max-distance", "inf", NULL},
        {"distance", m, m, "--max-distance", "1x", NULL},
        {"distance", m, m, "--poses", poses, "--pose-b", "0 0 0 0 0 1 0", NULL},
        {"distance", m, m, "--pose-b", "1 2", NULL},
        {"distance", m, m, "--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_run(&r, bad[i]);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        test_run_free(&r);
    }
    test_run(&r, (const char *const[]){"distance", m, "meshes/missing.obj", NULL});
    assert_int_equal(r.status, 3);
    assert_string_equal(r.out, "");
    test_run_free(&r);
    remove(poses);
    rmdir(dir);
}

/* kcbp collide --margin: within the margin collides ("decided_by":
 * "margin", the closest triangles), beyond it does not, touching stays a
 * mesh contact; the margin agrees with kcbp distance. */
static void test_collide_margin(void **state)
{
    (void)state;
    test_run_result r = {0};
    const char *m = "meshes/suzanne.obj", *pose = "3 0 0 0 0 1 0";
    test_run(&r, (const char *const[]){"distance", m, m, "--pose-b", pose, NULL});
    assert_int_equal(r.status, 0);
    double d = atof(strstr(r.out, "\"distance\":") + 11);
    assert_true(d > 0.01);
    test_run_free(&r);
    char within[64], beyond[64];
    snprintf(within, sizeof within, "%.17g", d * 1.01);
    snprintf(beyond, sizeof beyond, "%.17g", d * 0.99);
    test_run(&r, (const char *const[]){"collide", m, m, "--pose-b", pose, "--margin", within, NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"collide\":true,\"decided_by\":\"margin\",\"contacts\":[]"));
    assert_non_null(strstr(r.out, "\"triangles\":["));
    assert_true(fabs(atof(strstr(r.out, "\"margin\":{\"d\":") + 14) - d * 1.01) <= 1e-12);
    assert_true(fabs(atof(strstr(r.out, "\"distance\":") + 11) - d) <= 1e-12);
    test_run_free(&r);
    test_run(&r, (const char *const[]){"collide", m, m, "--pose-b", pose, "--margin", beyond, NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"collide\":false"));
    assert_non_null(strstr(r.out, "\"distance\":null"));
    test_run_free(&r);
    test_run(&r, (const char *const[]){"collide", m, m, "--margin", "0", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"collide\":true,\"decided_by\":\"mesh\""));
    assert_non_null(strstr(r.out, "\"margin\":{\"d\":0,\"distance\":0}"));
    test_run_free(&r);
    test_run(&r, (const char *const[]){"collide", m, m, "--margin", "-0.5", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    test_run_free(&r);
}

/* kcbp scene and kcbp batch --margin: two copies of a mesh 3 apart along
 * x (their distance d measured by kcbp distance) collide within a margin
 * above d, not below it. */
static void test_scene_margin(void **state)
{
    (void)state;
    char dir[] = "/tmp/kcbp-distance-XXXXXX", mesh[4096];
    assert_non_null(mkdtemp(dir));
    assert_non_null(realpath("meshes/suzanne.obj", mesh));
    char scene[2 * sizeof mesh + 256];
    snprintf(scene, sizeof scene,
             "{\"objects\": [{\"name\": \"a\", \"mesh\": \"%s\", \"position\": [0, 0, 0]},"
             " {\"name\": \"b\", \"mesh\": \"%s\", \"position\": [3, 0, 0]}]}\n",
             mesh, mesh);
    const char *path = test_tmp_write_text(dir, "s.json", scene);
    test_run_result r = {0};
    test_run(&r, (const char *const[]){"distance", "meshes/suzanne.obj", "meshes/suzanne.obj", "--pose-b",
                                       "3 0 0 0 0 1 0", NULL});
    double d = atof(strstr(r.out, "\"distance\":") + 11);
    test_run_free(&r);
    char within[64], beyond[64];
    snprintf(within, sizeof within, "%.17g", d * 1.01);
    snprintf(beyond, sizeof beyond, "%.17g", d * 0.99);
    for (int batch = 0; batch < 2; batch++) {
        const char *cmd = batch ? "batch" : "scene";
        test_run(&r, (const char *const[]){cmd, path, "--mesh-root", "meshes", NULL});
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\"colliding\":[]"));
        test_run_free(&r);
        test_run(&r, (const char *const[]){cmd, path, "--mesh-root", "meshes", "--margin", beyond, NULL});
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\"colliding\":[]"));
        test_run_free(&r);
        test_run(&r, (const char *const[]){cmd, path, "--mesh-root", "meshes", "--margin", within, "--contacts", "all", NULL});
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\"colliding\":[{\"a\":\"a\",\"b\":\"b\",\"contacts\":[]}]"));
        test_run_free(&r);
        test_run(&r, (const char *const[]){cmd, path, "--mesh-root", "meshes", "--margin", "x", NULL});
        assert_int_equal(r.status, 2);
        test_run_free(&r);
    }
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tri_hand),
        cmocka_unit_test(test_tri_oracle),
        cmocka_unit_test(test_mesh_oracle),
        cmocka_unit_test(test_tree_obb),
        cmocka_unit_test(test_mesh_brute),
        cmocka_unit_test(test_bundled),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_collide_margin),
        cmocka_unit_test(test_scene_margin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
