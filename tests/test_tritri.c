/* Tests for kcbp_tri_intersect (exact: no tolerance): hand-made cases with
 * exact expected answers (checked under argument swap, every vertex order,
 * scaling and translation), contacts and one-ulp gaps at scales from 2^-1000
 * to 2^190, points and segments, non-finite input, and 100k random pairs
 * checked against an
 * independent oracle (edge-against-triangle with barycentric coordinates, or
 * a 2D separating-axis test for coplanar pairs) or against answers known by
 * construction. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <kcbp/tritri.h>
#include "geom/predicates.h"
#include "testutil.h"

/* ------------------------------------------------------------ helpers --- */

static kcbp_vec3 V(double x, double y, double z) { return kcbp_v3(x, y, z); }

static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

/* f(a, b) and f(b, a) under all 36 vertex orders; returns the number of
 * calls whose answer differs from `want`. */
static int count_mismatches(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps, bool want)
{
    int bad = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            kcbp_vec3 pa[3], pb[3];
            for (int k = 0; k < 3; k++)
                pa[k] = a[perms[i][k]], pb[k] = b[perms[j][k]];
            bad += kcbp_tri_intersect(pa, pb, eps) != want;
            bad += kcbp_tri_intersect(pb, pa, eps) != want;
        }
    return bad;
}

/* ---------------------------------------------------------- hand cases --- */

typedef struct {
    const char *name;
    kcbp_vec3 a[3], b[3];
    bool want;
} hand_case;

/* Case i (0 <= i < NHAND) built around a small length E: geometry placed at
 * 0.5 E or 2 E from contact, both apart (the test is exact: no tolerance). The
 * reference triangle A lies in z = 0 with legs of length 2 on the axes. */
#define NHAND 45
static hand_case hand(int i, double E)
{
    const kcbp_vec3 A0 = V(0, 0, 0), A1 = V(2, 0, 0), A2 = V(0, 2, 0);
    hand_case c = {"", {A0, A1, A2}, {A0, A1, A2}, false};
#define CASE(n, want_, b0, b1, b2)                                                                                 \
    case n:                                                                                                        \
        c.name = #n ": " #want_ " " #b0 " " #b1 " " #b2, c.want = want_, c.b[0] = b0, c.b[1] = b1, c.b[2] = b2; \
        break
    switch (i) {
        /* separated */
        CASE(0, false, V(0, 0, 1), V(2, 0, 1), V(0, 2, 1));
        CASE(1, false, V(2, 2, -1), V(3, 2, 1), V(2, 3, 0)); /* crosses the plane beside A */
        CASE(2, false, V(0.5, 0.5, 0.1), V(3, 0, 1), V(0, 3, 2));
        /* piercing, edge through the interior, vertex on the face */
        CASE(3, true, V(0.5, 0.2, -1), V(0.5, 0.2, 1), V(0.5, 1.0, 0));
        CASE(4, true, V(0.5, 0.5, -1), V(0.5, 0.5, 1), V(5, 5, 0));
        CASE(5, true, V(0.5, 0.5, 0), V(0, 0, 1), V(1, 0, 1));
        CASE(6, false, V(0.5, 0.5, 0.5 * E), V(0, 0, 1), V(1, 0, 1));
        CASE(7, false, V(0.5, 0.5, 2 * E), V(0, 0, 1), V(1, 0, 1));
        CASE(8, true, V(0.5, 0.5, -0.5 * E), V(0, 0, 1), V(1, 0, 1));
        /* shared vertex: non-coplanar, coplanar */
        CASE(9, true, V(0, 0, 0), V(-1, 0, 1), V(0, -1, 1));
        CASE(10, true, V(0, 0, 0), V(-1, 0, 0), V(0, -1, 0));
        /* shared edge: coplanar neighbours, hinge */
        CASE(11, true, V(2, 0, 0), V(0, 2, 0), V(2, 2, 0));
        CASE(12, true, V(2, 0, 0), V(0, 2, 0), V(2, 2, 1));
        /* edge of B crossing edge A0A1 at (1, 0, 0) only; then moved off */
        CASE(13, true, V(1, 1, -1), V(1, -1, 1), V(1, -3, -1));
        CASE(14, false, V(1, 1 - 0.5 * E, -1), V(1, -1 - 0.5 * E, 1), V(1, -3 - 0.5 * E, -1));
        CASE(15, false, V(1, 1 - 2 * E, -1), V(1, -1 - 2 * E, 1), V(1, -3 - 2 * E, -1));
        /* vertex of B on edge A0A1 (non-coplanar) */
        CASE(16, true, V(1, 0, 0), V(1, -1, 1), V(0, -1, -1));
        /* B's edge lying along part of A's edge: non-coplanar "T", coplanar */
        CASE(17, true, V(1, 0, 0), V(3, 0, 0), V(2, 0, 1));
        CASE(18, true, V(1, 0, 0), V(3, 0, 0), V(2, -1, 0));
        /* coplanar overlap, containment, close, touching */
        CASE(19, true, V(0.5, 0.5, 0), V(2.5, 0.5, 0), V(0.5, 2.5, 0));
        CASE(20, true, V(0.2, 0.2, 0), V(0.6, 0.2, 0), V(0.2, 0.6, 0));
        CASE(21, true, V(-1, -1, 0), V(5, -1, 0), V(-1, 5, 0));
        CASE(22, true, V(1, -0.5, 0), V(1.5, 2, 0), V(-1, 1, 0)); /* star: edges cross, no vertex inside */
        CASE(23, false, V(1 + 10 * E, 1 + 10 * E, 0), V(3, 2, 0), V(2, 3, 0));
        CASE(24, false, V(1 + 0.3 * E, 1 + 0.3 * E, 0), V(3, 2, 0), V(2, 3, 0));
        CASE(25, true, V(1, 1, 0), V(3, 2, 0), V(2, 3, 0));        /* vertex on edge */
        CASE(26, true, V(2, 0, 0), V(3, 0, 0), V(3, 1, 0));        /* vertex on vertex */
        CASE(27, false, V(3, 3, 0), V(4, 3, 0), V(3, 4, 0));       /* clearly apart */
        CASE(28, false, V(2 + 2 * E, 0, 0), V(3, 0, 0), V(3, 1, 0)); /* vertex near vertex */
        /* parallel planes */
        CASE(29, false, V(0.5, 0.5, 2 * E), V(1.5, 0.2, 2 * E), V(0.2, 1.5, 2 * E));
        CASE(30, false, V(0.5, 0.5, 0.5 * E), V(1.5, 0.2, 0.5 * E), V(0.2, 1.5, 0.5 * E));
        CASE(31, true, V(0.5, 0.5, -0.5 * E), V(1.5, 0.2, 0.5 * E), V(0.2, 1.5, -0.5 * E));
        /* degenerate B: segments and points */
        CASE(32, true, V(0.5, 0.5, -1), V(0.5, 0.5, 1), V(0.5, 0.5, 0)); /* segment piercing */
        CASE(33, false, V(3, 3, -1), V(3, 3, 1), V(3, 3, 0));          /* segment beside */
        CASE(34, true, V(0.5, 0.5, 0), V(0.5, 0.5, 0), V(0.5, 0.5, 0)); /* point inside */
        CASE(35, false, V(0.5, 0.5, 2 * E), V(0.5, 0.5, 2 * E), V(0.5, 0.5, 2 * E));
        CASE(36, false, V(0.5, 0.5, 0.5 * E), V(0.5, 0.5, 0.5 * E), V(0.5, 0.5, 0.5 * E));
        CASE(37, true, V(0.5, 0.5, -1), V(0.5, 0.5, -1), V(0.5, 0.5, 1)); /* repeated vertex */
        CASE(38, false, V(3, 0.5, -1), V(3, 0.5, -1), V(3, 0.5, 1));
        CASE(39, true, V(1, 1, 0), V(3, 3, 0), V(2, 2, 0));             /* coplanar, touching edge */
        CASE(40, false, V(1.5, 1.5, 0), V(3, 3, 0), V(2, 2, 0));        /* coplanar, apart */
        CASE(41, true, V(1, -1, 0), V(1, 1, 0), V(1, 0.5 * E, 0.5 * E)); /* height < E: a segment */
    /* both degenerate: collinear overlapping, collinear apart, skew */
    case 42:
        c.name = "42: collinear overlapping segments", c.want = true;
        c.a[0] = V(0, 0, 0), c.a[1] = V(2, 0, 0), c.a[2] = V(1, 0, 0);
        c.b[0] = V(1.5, 0, 0), c.b[1] = V(3, 0, 0), c.b[2] = V(2.5, 0, 0);
        break;
    case 43:
        c.name = "43: collinear segments apart", c.want = false;
        c.a[0] = V(0, 0, 0), c.a[1] = V(2, 0, 0), c.a[2] = V(2, 0, 0);
        c.b[0] = V(2.5, 0, 0), c.b[1] = V(3, 0, 0), c.b[2] = V(2.7, 0, 0);
        break;
    case 44:
        c.name = "44: skew segments 2E apart", c.want = false;
        c.a[0] = V(0, 0, 0), c.a[1] = V(2, 0, 0), c.a[2] = V(1, 0, 0);
        c.b[0] = V(1, -1, 2 * E), c.b[1] = V(1, 1, 2 * E), c.b[2] = V(1, 0, 2 * E);
        break;
    default:
        fail_msg("no hand case %d", i);
    }
#undef CASE
    return c;
}

static void check_hand(double E, double scale, kcbp_vec3 offset, double eps)
{
    for (int i = 0; i < NHAND; i++) {
        hand_case c = hand(i, E);
        for (int k = 0; k < 3; k++) {
            c.a[k] = kcbp_v3_add(kcbp_v3_scale(c.a[k], scale), offset);
            c.b[k] = kcbp_v3_add(kcbp_v3_scale(c.b[k], scale), offset);
        }
        int bad = count_mismatches(c.a, c.b, eps, c.want);
        if (bad)
            fail_msg("case %s: %d of 72 orders wrong at scale %g offset %g eps %g", c.name, bad, scale, offset.x,
                     eps);
    }
}

static void test_hand_unit(void **state)
{
    (void)state;
    double E = kcbp_tri_tolerance(1.0);
    check_hand(E, 1.0, V(0, 0, 0), E);
}

/* The model scaled (rounding each coordinate): the same answers; the gaps
 * of 0.5 E and 2 E scale with it and stay far above the rounding. */
static void test_hand_scaled(void **state)
{
    (void)state;
    double E = kcbp_tri_tolerance(1.0);
    check_hand(E, 1e-6, V(0, 0, 0), 1e-6 * E);
    check_hand(E, 1e6, V(0, 0, 0), 1e6 * E);
}

/* Far from the origin the coordinates carry ~1e-10 of rounding, so the
 * gaps are built from E = 1e-10 of the coordinates' magnitude, far above
 * it; contacts at integer coordinates stay exact. */
static void test_hand_translated(void **state)
{
    (void)state;
    kcbp_vec3 off = V(1e6, -1e6, 1e6);
    double E = kcbp_tri_tolerance(1e6 + 5);
    check_hand(E, 1.0, off, E);
    check_hand(E, 1.0, kcbp_v3_neg(off), E);
}

/* eps is ignored: every case, any eps, the same answers. */
static void test_zero_eps(void **state)
{
    (void)state;
    const double epss[] = {0.0, -1.0, NAN, 1e-3};
    for (size_t e = 0; e < sizeof epss / sizeof epss[0]; e++)
        for (int i = 0; i < NHAND; i++) {
            hand_case c = hand(i, 1e-10);
            int bad = count_mismatches(c.a, c.b, epss[e], c.want);
            if (bad)
                fail_msg("case %s with eps %g: %d of 72 orders wrong", c.name, epss[e], bad);
        }
}

/* A non-finite coordinate (never in a mesh or a pose: they are checked when
 * made) gives "touching", whatever eps. */
static void test_nonfinite(void **state)
{
    (void)state;
    hand_case c = hand(0, 1e-10); /* separated */
    assert_false(kcbp_tri_intersect(c.a, c.b, 0));
    double bad[] = {NAN, INFINITY, -INFINITY};
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 18; k++) {
            hand_case d = c;
            kcbp_vec3 *t = k < 9 ? d.a : d.b;
            double *x = &t[(k % 9) / 3].x + k % 3;
            *x = bad[v];
            assert_true(kcbp_tri_intersect(d.a, d.b, 0));
            assert_true(kcbp_tri_intersect(d.b, d.a, 0));
        }
}

/* ------------------------------------------------------ exact answers --- */

/* The unit right triangle in z = 0 scaled by s and moved by o, and a
 * triangle b given relative to it (same scaling): f(a, b) under all orders
 * must be want. */
static void expect(const char *what, kcbp_vec3 o, double s, const kcbp_vec3 b0[3], bool want)
{
    kcbp_vec3 a[3] = {o, kcbp_v3_add(o, V(s, 0, 0)), kcbp_v3_add(o, V(0, s, 0))}, b[3];
    for (int k = 0; k < 3; k++)
        b[k] = kcbp_v3_add(o, kcbp_v3_scale(b0[k], s));
    int bad = count_mismatches(a, b, 0, want);
    if (bad)
        fail_msg("%s at scale %g offset %g: %d of 72 orders wrong", what, s, o.x, bad);
}

static double up(double x) { return nextafter(x, INFINITY); }
static double down(double x) { return nextafter(x, -INFINITY); }

/* Contacts, and the same moved by one ulp, at scales where the products
 * the determinants need are huge, tiny or subnormal (power-of-two scales
 * keep the geometry exact). */
static void test_exact_ulp(void **state)
{
    (void)state;
    const double scales[] = {1.0, 0x1p-100, 0x1p-340, 0x1p-1000, 0x1p100, 0x1p190, 3.0};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        double s = scales[i];
        kcbp_vec3 o = V(0, 0, 0);
        /* a vertex of b on a's face, the rest above; then one ulp above */
        kcbp_vec3 b[3] = {V(0.25, 0.25, 0), V(0, 0, 1), V(1, 0, 1)};
        expect("vertex on face", o, s, b, true);
        b[0].z = up(0) / s; /* the smallest positive double once scaled, when it can be */
        if (b[0].z * s == up(0))
            expect("vertex the smallest double above the face", o, s, b, false);
        b[0].z = 0x1p-1000;
        if (b[0].z * s >= 0x1p-1074) /* else it underflows to 0: on the face */
            expect("vertex 2^-1000 s above the face", o, s, b, false);
        /* a vertex of b on a's edge, b otherwise outside; one ulp outside */
        kcbp_vec3 e[3] = {V(0.5, 0, 0), V(0.5, -1, 1), V(0.5, -1, -1)};
        expect("vertex on edge", o, s, e, true);
        e[0].y = -0x1p-52;
        expect("vertex just off the edge", o, s, e, false);
        /* coplanar: b's vertex on a's hypotenuse; just beyond it */
        kcbp_vec3 c[3] = {V(0.5, 0.5, 0), V(1, 1, 0), V(0.5, 1, 0)};
        expect("coplanar vertex on edge", o, s, c, true);
        c[0] = V(up(0.5), 0.5, 0);
        expect("coplanar vertex 1 ulp beyond the edge", o, s, c, false);
        /* parallel planes one ulp apart */
        kcbp_vec3 p[3] = {V(0.1, 0.1, 0x1p-60), V(0.5, 0.1, 0x1p-60), V(0.1, 0.5, 0x1p-60)};
        expect("parallel, 2^-60 apart", o, s, p, false);
    }
    /* Far from the origin: z = 2^20, the vertex at the plane or one ulp off. */
    kcbp_vec3 o = V(0x1p20, -0x1p20, 0x1p20);
    kcbp_vec3 b[3] = {V(0.25, 0.25, 0), V(0, 0, 1), V(1, 0, 1)};
    expect("far: vertex on face", o, 1.0, b, true);
    b[0].z = up(0x1p20) - 0x1p20;
    expect("far: vertex 1 ulp above", o, 1.0, b, false);
    b[0].z = down(0x1p20) - 0x1p20; /* below: b pierces a */
    expect("far: vertex 1 ulp below", o, 1.0, b, true);
}

/* Degenerate triangles: points and segments, exactly. */
static void test_exact_degenerate(void **state)
{
    (void)state;
    kcbp_vec3 o = V(0, 0, 0);
    kcbp_vec3 pt[3] = {V(0.5, 0, 0), V(0.5, 0, 0), V(0.5, 0, 0)};
    expect("point on edge", o, 1, pt, true);
    pt[0].y = pt[1].y = pt[2].y = -0x1p-60;
    expect("point just off the edge", o, 1, pt, false);
    kcbp_vec3 vx[3] = {V(1, 0, 0), V(1, 0, 0), V(1, 0, 0)};
    expect("point on vertex", o, 1, vx, true);
    vx[0].x = vx[1].x = vx[2].x = up(1);
    expect("point 1 ulp beyond the vertex", o, 1, vx, false);
    /* segment along the line of a's edge, touching its end; one ulp short */
    kcbp_vec3 sg[3] = {V(1, 0, 0), V(3, 0, 0), V(2, 0, 0)};
    expect("collinear segment touching", o, 1, sg, true);
    sg[0].x = up(1);
    expect("collinear segment 1 ulp short", o, 1, sg, false);
    /* segment crossing a's edge in 3D (skew to its plane); one beside it */
    kcbp_vec3 sk[3] = {V(0.5, -1, 1), V(0.5, 1, -1), V(0.5, 0, 0)};
    expect("segment through the edge", o, 1, sk, true);
    kcbp_vec3 sk2[3] = {V(0.5, -1, -1), V(0.5, -1, 1), V(0.5, -1, 0)};
    expect("segment beside the edge", o, 1, sk2, false);
    /* both degenerate: crossing segments, and one ulp apart */
    kcbp_vec3 a[3] = {V(0, 0, 0), V(2, 0, 0), V(1, 0, 0)}, b[3] = {V(1, -1, 0), V(1, 1, 0), V(1, 0, 0)};
    assert_int_equal(count_mismatches(a, b, 0, true), 0);
    for (int k = 0; k < 3; k++)
        b[k].z = up(0);
    assert_int_equal(count_mismatches(a, b, 0, false), 0);
    /* a sliver: its apex 2^-80 off the base line still makes it a triangle */
    kcbp_vec3 sl[3] = {V(-1, 0.5, 1), V(2, 0.5, 1), V(0.5, 0.5 + 0x1p-80, 1)};
    expect("sliver above the face", o, 1, sl, false);
    sl[2].z = 0;
    expect("sliver with its apex on the face", o, 1, sl, true);
}

/* Found by the random test: a0 is 0.6 eps from b's plane and the planes are
 * 1e-8 rad apart, so snapping a0 shrinks a's interval to a point while the
 * true crossing runs 15% along edge a0a2 and does meet b (b's edges pierce
 * a well inside, per the oracle). Snapping alone missed it. */
static void test_snapped_near_parallel(void **state)
{
    (void)state;
    kcbp_vec3 a[3] = {V(0.76645770024700488, 0.082145115400948487, -0.22618934707271077),
                      V(-0.46035994836584226, -0.080348702220625928, -0.036241150387026688),
                      V(0.11640912035002626, -0.12525856060106041, 0.072016256952102092)};
    kcbp_vec3 b[3] = {V(-0.018742317765881089, 0.44139460491065829, -0.85907875046635529),
                      V(-0.49610913922854077, -0.5733501422875118, 0.76449759679400042),
                      V(0.94068036573477831, -0.00632347229743907, -0.071499676372873522)};
    assert_int_equal(count_mismatches(a, b, 1e-10, true), 0);
    assert_int_equal(count_mismatches(a, b, 0.0, true), 0);
}

/* -------------------------------------------------------------- random --- */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static double uni(double lo, double hi) { return lo + (hi - lo) * ((double)(rng_next() >> 11) * 0x1p-53); }
static kcbp_vec3 rvec(double lo, double hi) { return V(uni(lo, hi), uni(lo, hi), uni(lo, hi)); }
static kcbp_vec3 unit(kcbp_vec3 v) { return kcbp_v3_scale(v, 1.0 / kcbp_v3_len(v)); }
static kcbp_vec3 runit(void)
{
    for (;;) {
        kcbp_vec3 v = rvec(-1, 1);
        double l = kcbp_v3_len2(v);
        if (l > 0.01 && l <= 1)
            return unit(v);
    }
}
/* Random orthonormal frame u, v, n. */
static void rframe(kcbp_vec3 f[3])
{
    f[2] = runit();
    kcbp_vec3 t = runit();
    while (kcbp_v3_len(kcbp_v3_cross(t, f[2])) < 0.1)
        t = runit();
    f[0] = unit(kcbp_v3_cross(t, f[2]));
    f[1] = kcbp_v3_cross(f[2], f[0]);
}
static kcbp_vec3 place(kcbp_vec3 o, const kcbp_vec3 f[3], double x, double y, double z)
{
    return kcbp_v3_add(o, kcbp_v3_add(kcbp_v3_scale(f[0], x), kcbp_v3_add(kcbp_v3_scale(f[1], y), kcbp_v3_scale(f[2], z))));
}
/* k in [10, 1000], spread over the decades. */
static double rk(void) { return pow(10.0, uni(1.0, 3.0)); }

enum { NO = 0, YES = 1, UNSURE = 2 };

/* Oracle for non-coplanar pairs: does segment pq meet triangle t? Plane
 * distances as lengths (normalised normal), the crossing point by
 * interpolation, its barycentric coordinates by Cramer's rule on the Gram
 * matrix. UNSURE when an endpoint is within mlen of the plane or the point
 * within mbar (barycentric) of the triangle's boundary. */
static int oracle_edge(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3], double mlen, double mbar)
{
    kcbp_vec3 e0 = kcbp_v3_sub(t[1], t[0]), e1 = kcbp_v3_sub(t[2], t[0]);
    kcbp_vec3 n = unit(kcbp_v3_cross(e0, e1));
    double dp = kcbp_v3_dot(n, kcbp_v3_sub(p, t[0])), dq = kcbp_v3_dot(n, kcbp_v3_sub(q, t[0]));
    if (fabs(dp) < mlen || fabs(dq) < mlen)
        return UNSURE;
    if ((dp > 0) == (dq > 0))
        return NO;
    kcbp_vec3 x = kcbp_v3_add(p, kcbp_v3_scale(kcbp_v3_sub(q, p), dp / (dp - dq)));
    kcbp_vec3 w = kcbp_v3_sub(x, t[0]);
    double g00 = kcbp_v3_dot(e0, e0), g01 = kcbp_v3_dot(e0, e1), g11 = kcbp_v3_dot(e1, e1);
    double r0 = kcbp_v3_dot(w, e0), r1 = kcbp_v3_dot(w, e1);
    double det = g00 * g11 - g01 * g01;
    double v = (g11 * r0 - g01 * r1) / det, u = (g00 * r1 - g01 * r0) / det, s = 1 - u - v;
    double m = fmin(s, fmin(u, v));
    if (fabs(m) < mbar)
        return UNSURE;
    return m > 0 ? YES : NO;
}

/* Two non-coplanar triangles meet iff an edge of one meets the other. */
static int oracle3(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double mlen, double mbar)
{
    int unsure = 0;
    for (int side = 0; side < 2; side++) {
        const kcbp_vec3 *s = side ? b : a, *t = side ? a : b;
        for (int i = 0; i < 3; i++) {
            int r = oracle_edge(s[i], s[(i + 1) % 3], t, mlen, mbar);
            if (r == YES)
                return YES;
            unsure |= r == UNSURE;
        }
    }
    return unsure ? UNSURE : NO;
}

/* Oracle for coplanar pairs in 2D: separating-axis test over the six edge
 * normals. Certain NO when some axis shows a gap >= m, certain YES when every
 * axis shows an overlap >= m. */
static int oracle2(const double a[3][2], const double b[3][2], double m)
{
    double worst = -INFINITY; /* largest gap over the axes */
    for (int side = 0; side < 2; side++) {
        const double(*t)[2] = side ? b : a;
        for (int i = 0; i < 3; i++) {
            double ex = t[(i + 1) % 3][0] - t[i][0], ey = t[(i + 1) % 3][1] - t[i][1];
            double l = sqrt(ex * ex + ey * ey), nx = -ey / l, ny = ex / l;
            double alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
            for (int k = 0; k < 3; k++) {
                double pa = a[k][0] * nx + a[k][1] * ny, pb = b[k][0] * nx + b[k][1] * ny;
                alo = fmin(alo, pa), ahi = fmax(ahi, pa), blo = fmin(blo, pb), bhi = fmax(bhi, pb);
            }
            worst = fmax(worst, fmax(blo - ahi, alo - bhi));
        }
    }
    return worst >= m ? NO : worst <= -m ? YES : UNSURE;
}

enum { C_UNIFORM, C_NEARCOP, C_ONESIDE, C_COPLANAR, C_VERTEX, C_EDGE, C_SEGMENT, NCLASS };
static const char *class_name[NCLASS] = {"uniform",      "near-coplanar", "one-side", "coplanar",
                                         "vertex-near-face", "edge-near-edge", "segment"};
static const int class_count[NCLASS] = {30000, 20000, 10000, 10000, 10000, 10000, 10000};

/* Makes a random pair of class `cls`; returns its expected answer (or
 * UNSURE when no oracle is certain). */
static int make_pair(int cls, double eps, kcbp_vec3 a[3], kcbp_vec3 b[3])
{
    const double mlen = 10 * eps, mbar = 1e-5;
    kcbp_vec3 f[3], o = rvec(-1, 1);
    rframe(f);
    switch (cls) {
    case C_UNIFORM: {
        double s = uni(0.05, 1); /* b sometimes small, near a */
        kcbp_vec3 c = rvec(-0.5, 0.5);
        for (int i = 0; i < 3; i++)
            a[i] = rvec(-1, 1), b[i] = kcbp_v3_add(c, kcbp_v3_scale(rvec(-1, 1), s));
        return oracle3(a, b, mlen, mbar);
    }
    case C_NEARCOP:
    case C_ONESIDE:
    case C_COPLANAR: {
        double pa[3][2], pb[3][2];
        int side = rng_next() & 1 ? 1 : -1;
        for (int i = 0; i < 3; i++) {
            pa[i][0] = uni(-1, 1), pa[i][1] = uni(-1, 1);
            pb[i][0] = uni(-1.5, 1.5), pb[i][1] = uni(-1.5, 1.5);
            double off = cls == C_ONESIDE ? side * rk() * eps : (rng_next() & 1 ? 1 : -1) * rk() * eps;
            a[i] = place(o, f, pa[i][0], pa[i][1], 0);
            b[i] = place(o, f, pb[i][0], pb[i][1], off);
            if (cls == C_COPLANAR) /* exactly coplanar: the plane z = o.z */
                a[i] = V(o.x + pa[i][0], o.y + pa[i][1], o.z), b[i] = V(o.x + pb[i][0], o.y + pb[i][1], o.z);
        }
        if (cls == C_COPLANAR)
            return oracle2(pa, pb, mlen);
        int r = oracle3(a, b, mlen, mbar);
        if (cls == C_ONESIDE)
            assert_true(r != YES); /* construction and oracle agree */
        return cls == C_ONESIDE ? NO : r;
    }
    case C_VERTEX: {
        /* a in its plane; b's tip over an interior point of a, k eps above
         * (NO) or below (YES), its other vertices well above. */
        double pa[3][2], w[3];
        for (int i = 0; i < 3; i++)
            pa[i][0] = uni(-1, 1), pa[i][1] = uni(-1, 1);
        if (fabs((pa[1][0] - pa[0][0]) * (pa[2][1] - pa[0][1]) - (pa[1][1] - pa[0][1]) * (pa[2][0] - pa[0][0])) < 0.1)
            pa[2][0] = pa[0][0] - 2 * (pa[1][1] - pa[0][1]), pa[2][1] = pa[0][1] + 2 * (pa[1][0] - pa[0][0]) + 0.1;
        w[0] = uni(0.1, 1), w[1] = uni(0.1, 1), w[2] = uni(0.1, 1);
        double ws = w[0] + w[1] + w[2], px = 0, py = 0;
        for (int i = 0; i < 3; i++) {
            px += w[i] / ws * pa[i][0], py += w[i] / ws * pa[i][1];
            a[i] = place(o, f, pa[i][0], pa[i][1], 0);
        }
        int yes = rng_next() & 1;
        b[0] = place(o, f, px, py, (yes ? -1 : 1) * rk() * eps);
        b[1] = place(o, f, px + uni(-1, 1), py + uni(-1, 1), uni(0.2, 1));
        b[2] = place(o, f, px + uni(-1, 1), py + uni(-1, 1), uni(0.2, 1));
        int r = oracle3(a, b, mlen, mbar);
        assert_true(r == UNSURE || r == yes);
        return yes;
    }
    case C_EDGE: {
        /* a has edge (-1,0)-(1,0) and lies in y >= 0; b's edge crosses a's
         * plane at (c, delta), delta = +-k eps; all of b has y <= delta. */
        int yes = rng_next() & 1;
        double delta = (yes ? 1 : -1) * rk() * eps, c = uni(-0.5, 0.5);
        a[0] = place(o, f, -1, 0, 0), a[1] = place(o, f, 1, 0, 0), a[2] = place(o, f, uni(-1, 1), uni(0.3, 1.5), 0);
        double ux = uni(-1, 1), uz = uni(0.3, 1), s0 = uni(0.2, 1), s1 = uni(0.2, 1);
        b[0] = place(o, f, c + s0 * ux, delta, s0 * uz);
        b[1] = place(o, f, c - s1 * ux, delta, -s1 * uz);
        b[2] = place(o, f, uni(-1, 1), uni(-1.5, -0.3), uni(-1, 1));
        int r = oracle3(a, b, mlen, mbar);
        assert_true(r == UNSURE || r == yes);
        return yes;
    }
    case C_SEGMENT: {
        /* a is a segment given as a zero-area triangle (a point between its
         * ends, or a repeated vertex). */
        kcbp_vec3 p = rvec(-1, 1), q = rvec(-1, 1);
        double lam = rng_next() & 1 ? uni(0, 1) : 0;
        a[0] = p, a[1] = q, a[2] = kcbp_v3_add(p, kcbp_v3_scale(kcbp_v3_sub(q, p), lam));
        for (int i = 0; i < 3; i++)
            b[i] = rvec(-1, 1);
        return oracle_edge(p, q, b, mlen, mbar);
    }
    }
    return UNSURE;
}

static void test_random_oracle(void **state)
{
    (void)state;
    const double eps = kcbp_tri_tolerance(1.0);
    rng_state = 0x9E3779B97F4A7C15ULL;
    int total_disagree = 0, total_asym = 0, total_perm = 0, total_certain = 0;
    for (int cls = 0; cls < NCLASS; cls++) {
        int certain = 0, yes = 0, disagree = 0, asym = 0, perm = 0;
        for (int n = 0; n < class_count[cls]; n++) {
            kcbp_vec3 a[3], b[3];
            int want = make_pair(cls, eps, a, b);
            bool got = kcbp_tri_intersect(a, b, eps);
            asym += kcbp_tri_intersect(b, a, eps) != got;
            if (n % 10 == 0)
                perm += count_mismatches(a, b, eps, got) != 0;
            if (want != UNSURE) {
                certain++;
                yes += want == YES;
                if (got != (want == YES)) {
                    disagree++;
                    if (disagree <= 3)
                        print_message("%s #%d: expected %d got %d\n  a (%.17g %.17g %.17g) (%.17g %.17g %.17g) (%.17g "
                                      "%.17g %.17g)\n  b (%.17g %.17g %.17g) (%.17g %.17g %.17g) (%.17g %.17g %.17g)\n",
                                      class_name[cls], n, want, got, a[0].x, a[0].y, a[0].z, a[1].x, a[1].y, a[1].z,
                                      a[2].x, a[2].y, a[2].z, b[0].x, b[0].y, b[0].z, b[1].x, b[1].y, b[1].z, b[2].x,
                                      b[2].y, b[2].z);
                }
            }
        }
        print_message("%-16s %6d pairs, %6d certain (%d intersecting), %d disagreements, %d asymmetric, %d "
                      "order-dependent\n",
                      class_name[cls], class_count[cls], certain, yes, disagree, asym, perm);
        total_disagree += disagree, total_asym += asym, total_perm += perm, total_certain += certain;
    }
    assert_true(total_certain > 90000);
    assert_int_equal(total_disagree, 0);
    assert_int_equal(total_asym, 0);
    assert_int_equal(total_perm, 0);
}

/* Triangles sharing vertices with exactly equal coordinates (a mesh's
 * neighbours, coincident copies of one mesh): they meet at the shared
 * point, whatever the others; the orientation signs the filter cannot take
 * (exact zeros) come from the equal-point rule of geom/predicates.c, which
 * must give exactly zero. A shared vertex nudged one ulp still leaves the
 * triangles meeting when two are shared. */
static void test_shared_vertices(void **state)
{
    (void)state;
    rng_state = 0x243F6A8885A308D3ULL;
    int bad = 0;
    for (int n = 0; n < 3000; n++) {
        kcbp_vec3 a[3], b[3];
        for (int k = 0; k < 3; k++) {
            double x = uni(-1, 1), y = uni(-1, 1), z = uni(-1, 1);
            a[k] = V(x, y, z);
        }
        int shared = 1 + n % 3;
        for (int k = 0; k < 3; k++) {
            if (k < shared) {
                b[k] = a[(k + n / 3) % 3];
            } else {
                double x = uni(-1, 1), y = uni(-1, 1), z = uni(-1, 1);
                b[k] = V(x, y, z);
            }
        }
        bad += count_mismatches(a, b, 0, true) != 0;
        if (shared >= 2) {
            b[0].x = nextafter(b[0].x, 2.0);
            bad += count_mismatches(a, b, 0, true) != 0;
        }
        assert_int_equal(kcbp_orient3d_exact(a[0], a[1], a[2], a[n % 3]), 0);
        assert_int_equal(kcbp_orient3d_exact(a[0], a[n % 3], a[1], a[2]), 0);
        kcbp_v2 p = {a[0].x, a[0].y}, q = {a[1].x, a[1].y};
        assert_int_equal(kcbp_orient2d_exact(p, q, n % 2 ? p : q), 0);
    }
    assert_int_equal(bad, 0);
}

/* The exact predicates' shortcuts for points sharing coordinates (three
 * points on a plane parallel to a coordinate plane, two sharing an x or a
 * y: CAD parts' faces and edges, branch hunt3e) against the determinant in
 * __int128, on integer coordinates drawn from a few values (so that they
 * share) or from +-2^40, in every order of the points. */
static int64_t pick_coord(void)
{
    uint64_t r = rng_next();
    if (r % 4 == 0)
        return (int64_t)(rng_next() % (1ULL << 41)) - (int64_t)(1ULL << 40);
    return (int64_t)((r >> 8) % 5) - 2;
}

static int sgn128(__int128 v) { return (v > 0) - (v < 0); }

static void test_exact_shared_coords(void **state)
{
    (void)state;
    rng_state = 0x9E3779B97F4A7C15ULL;
    int bad = 0, axis3 = 0, zero3 = 0;
    for (int n = 0; n < 200000; n++) {
        int64_t c[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                c[i][k] = pick_coord();
        __int128 u[3], v[3], w[3];
        for (int k = 0; k < 3; k++)
            u[k] = c[1][k] - c[0][k], v[k] = c[2][k] - c[0][k], w[k] = c[3][k] - c[0][k];
        __int128 det = w[0] * (u[1] * v[2] - u[2] * v[1]) + w[1] * (u[2] * v[0] - u[0] * v[2]) +
                       w[2] * (u[0] * v[1] - u[1] * v[0]);
        kcbp_vec3 p[4];
        for (int i = 0; i < 4; i++)
            p[i] = V((double)c[i][0], (double)c[i][1], (double)c[i][2]);
        int want = sgn128(det);
        /* the 24 orders: the sign of the permutation times want */
        static const int perm4[24][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1},
                                         {1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
                                         {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0},
                                         {3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
        for (int q = 0; q < 24; q++) {
            const int *o = perm4[q];
            int inv = 0;
            for (int i = 0; i < 4; i++)
                for (int j = i + 1; j < 4; j++)
                    inv += o[i] > o[j];
            int s = kcbp_orient3d_exact(p[o[0]], p[o[1]], p[o[2]], p[o[3]]);
            bad += s != (inv % 2 ? -want : want);
        }
        axis3 += (c[0][2] == c[1][2] && c[1][2] == c[2][2]) || (c[0][0] == c[1][0] && c[1][0] == c[2][0]);
        zero3 += want == 0;
        /* orient2d on (x, y) of the first three, every order */
        __int128 d2 = (__int128)(c[1][0] - c[0][0]) * (c[2][1] - c[0][1]) - (__int128)(c[1][1] - c[0][1]) * (c[2][0] - c[0][0]);
        for (int q = 0; q < 6; q++) {
            const int *o = perms[q];
            kcbp_v2 a2 = {p[o[0]].x, p[o[0]].y}, b2 = {p[o[1]].x, p[o[1]].y}, c2 = {p[o[2]].x, p[o[2]].y};
            int odd = (o[0] > o[1]) + (o[0] > o[2]) + (o[1] > o[2]);
            bad += kcbp_orient2d_exact(a2, b2, c2) != (odd % 2 ? -sgn128(d2) : sgn128(d2));
        }
    }
    assert_true(axis3 > 1000 && zero3 > 1000);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_unit),      cmocka_unit_test(test_hand_scaled),
        cmocka_unit_test(test_hand_translated), cmocka_unit_test(test_zero_eps),
        cmocka_unit_test(test_nonfinite),      cmocka_unit_test(test_snapped_near_parallel),
        cmocka_unit_test(test_exact_ulp),      cmocka_unit_test(test_exact_degenerate),
        cmocka_unit_test(test_random_oracle),  cmocka_unit_test(test_shared_vertices),
        cmocka_unit_test(test_exact_shared_coords),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
