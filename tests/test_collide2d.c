/* 2D collide, distance and depth (collide2d.h, distance2d.h) against
 * independent oracles:
 *   - polygon pairs: the 3D library's exact triangle test (kcbp_tri_intersect,
 *     its coplanar path) on fans of the posed polygons at z = 0;
 *   - circles, capsules and boxes: the 3D library's kcbp_collide on spheres,
 *     capsules and boxes centred on z = 0 (A at the identity, so that the
 *     3D library's coordinates are the 2D ones, up to its carrying a core
 *     into a box's frame; gaps of 1e-12 are far above that rounding), but
 *     for two boxes, which the 3D library decides by GJK within a band;
 *   - anything with radii: the exact "within r" decisions on every pair of
 *     core edges (brute force; checks the filter);
 *   - distance: the 3D GJK (kcbp_gjk_distance) on the posed cores at z = 0;
 *   - depth: the Minkowski difference of prisms (the posed cores at z = +-H,
 *     H far beyond the depth) by qhull (tests/cso_oracle.c), and an exact
 *     check that moving B by the translation found separates the pair while
 *     a slightly shorter one does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp.h>
#include <kcbp/kcbp2d.h>

#include "convex/convex2d.h"
#include "cso_oracle.h"
#include "geom/closest.h"
#include "geom/predicates.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------ */

typedef struct {
    kcbp2d_shape s;
    kcbp_vec2 pts[16];
} tshape;

/* A random convex polygon of 3..12 vertices in [-sc, sc]^2 (its hull). */
static void rnd_polygon(test_rng *r, double sc, double radius, tshape *t)
{
    for (;;) {
        kcbp_vec2 p[12];
        size_t n = 3 + (size_t)(test_rng_uniform(r) * 10), nh = 0;
        for (size_t i = 0; i < n; i++)
            p[i] = kcbp_v2_make(test_rng_range(r, -sc, sc), test_rng_range(r, -sc, sc));
        assert_int_equal(kcbp2d_hull(p, n, t->pts, &nh, NULL), KCBP_OK);
        if (nh >= 3) {
            t->s = kcbp2d_shape_polygon(t->pts, (uint32_t)nh, radius);
            assert_int_equal(kcbp2d_shape_check(&t->s, NULL), KCBP_OK);
            return;
        }
    }
}

static kcbp2d_pose rnd_pose(test_rng *r, double tmax, bool quarter)
{
    kcbp2d_pose p;
    double deg = quarter ? 90.0 * floor(test_rng_range(r, 0, 4)) : test_rng_range(r, -180, 180);
    assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(r, -tmax, tmax), test_rng_range(r, -tmax, tmax), deg, &p,
                                            NULL),
                     KCBP_OK);
    return p;
}

/* (A core points into itself: made in place, never copied.) */
static void core_of(const kcbp2d_shape *s, const kcbp2d_pose *p, kcbp2d_core *c)
{
    assert_int_equal(kcbp2d_core_make(s, p, c, NULL), KCBP_OK);
}

static bool collide2d(const kcbp2d_shape *a, const kcbp2d_pose *pa, const kcbp2d_shape *b, const kcbp2d_pose *pb,
                      double margin, kcbp2d_collide_result *res)
{
    kcbp2d_collide_options o = kcbp2d_collide_options_default();
    o.margin = margin;
    kcbp2d_collide_result r;
    kcbp_error e;
    assert_int_equal(kcbp2d_collide(a, pa, b, pb, &o, &r, &e), KCBP_OK);
    if (res)
        *res = r;
    return r.collide;
}

static kcbp2d_distance_result distance2d(const kcbp2d_shape *a, const kcbp2d_pose *pa, const kcbp2d_shape *b,
                                         const kcbp2d_pose *pb)
{
    kcbp2d_distance_result r;
    kcbp_error e;
    assert_int_equal(kcbp2d_distance(a, pa, b, pb, NULL, &r, &e), KCBP_OK);
    assert_true(isfinite(r.distance) && isfinite(r.depth) && isfinite(r.signed_distance));
    assert_true(kcbp_v2_is_finite(r.normal) && kcbp_v2_is_finite(r.point_a) && kcbp_v2_is_finite(r.point_b));
    assert_true(fabs(kcbp_v2_len(r.normal) - 1) < 1e-12);
    return r;
}

static kcbp_vec3 z0(kcbp_vec2 p) { return kcbp_v3(p.x, p.y, 0); }

/* Oracle: the closed cores (polygons, segments, points) share a point, by
 * the 3D exact triangle test on fans at z = 0 (a segment or point is a
 * degenerate triangle). */
static bool oracle_cores_meet(const kcbp2d_core *a, const kcbp2d_core *b)
{
    uint32_t ta = a->n >= 3 ? a->n - 2 : 1, tb = b->n >= 3 ? b->n - 2 : 1;
    for (uint32_t i = 0; i < ta; i++) {
        kcbp_vec3 A[3] = {z0(a->v[0]), z0(a->v[(i + 1) % a->n]), z0(a->v[(i + 2) % a->n])};
        for (uint32_t j = 0; j < tb; j++) {
            kcbp_vec3 B[3] = {z0(b->v[0]), z0(b->v[(j + 1) % b->n]), z0(b->v[(j + 2) % b->n])};
            if (kcbp_tri_intersect(A, B, 0))
                return true;
        }
    }
    return false;
}

/* Oracle: dist(cores) <= ra + rb, exactly: the cores meet, or a pair of
 * core edges is within ra + rb (closest.h's exact decision, filter off). */
static bool oracle_within(const kcbp2d_core *a, const kcbp2d_core *b, double ra, double rb)
{
    if (oracle_cores_meet(a, b))
        return true;
    uint32_t na = a->n >= 3 ? a->n : 1, nb = b->n >= 3 ? b->n : 1;
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++)
            if (kcbp_within_seg_seg_ex(z0(a->v[i]), z0(a->v[(i + 1) % a->n]), z0(b->v[j]),
                                       z0(b->v[(j + 1) % b->n]), ra, rb, KCBP_WITHIN_ERR, true, NULL))
                return true;
    return false;
}

/* ---- collide ------------------------------------------------------------- */

static void test_polygons_vs_triangle_test(void **state)
{
    (void)state;
    test_rng r = {2024};
    int yes = 0, no = 0;
    for (int trial = 0; trial < 20000; trial++) {
        double sc = pow(10, test_rng_range(&r, -8, 8));
        tshape a, b;
        rnd_polygon(&r, sc, 0, &a);
        rnd_polygon(&r, sc, 0, &b);
        bool quarter = trial % 3 == 0; /* exact rotations: many exact touchings on the grid below */
        if (trial % 6 == 0) {          /* integer coordinates: touching and collinear edges are common */
            for (uint32_t i = 0; i < a.s.npoints; i++)
                a.pts[i] = kcbp_v2_make(round(a.pts[i].x / sc * 3), round(a.pts[i].y / sc * 3));
            for (uint32_t i = 0; i < b.s.npoints; i++)
                b.pts[i] = kcbp_v2_make(round(b.pts[i].x / sc * 3), round(b.pts[i].y / sc * 3));
            sc = 3;
            size_t na, nb;
            kcbp_vec2 ha[16], hb[16];
            assert_int_equal(kcbp2d_hull(a.pts, a.s.npoints, ha, &na, NULL), KCBP_OK);
            assert_int_equal(kcbp2d_hull(b.pts, b.s.npoints, hb, &nb, NULL), KCBP_OK);
            if (na < 3 || nb < 3)
                continue;
            memcpy(a.pts, ha, na * sizeof *ha);
            memcpy(b.pts, hb, nb * sizeof *hb);
            a.s.npoints = (uint32_t)na, b.s.npoints = (uint32_t)nb;
        }
        kcbp2d_pose pa = rnd_pose(&r, 2 * sc, quarter), pb = rnd_pose(&r, 2 * sc, quarter);
        if (trial % 6 == 0) {
            pa.trans = kcbp_v2_make(round(pa.trans.x), round(pa.trans.y));
            pb.trans = kcbp_v2_make(round(pb.trans.x), round(pb.trans.y));
        }
        kcbp2d_core ca, cb;
        core_of(&a.s, &pa, &ca);
        core_of(&b.s, &pb, &cb);
        bool want = oracle_cores_meet(&ca, &cb);
        kcbp2d_collide_result res;
        bool got = collide2d(&a.s, &pa, &b.s, &pb, 0, &res);
        if (got != want) {
            print_error("trial %d: got %d want %d\n", trial, got, want);
            for (uint32_t i = 0; i < ca.n; i++)
                print_error("  a %.17g %.17g\n", ca.v[i].x, ca.v[i].y);
            for (uint32_t i = 0; i < cb.n; i++)
                print_error("  b %.17g %.17g\n", cb.v[i].x, cb.v[i].y);
        }
        assert_int_equal(got, want);
        assert_int_equal(res.cores_intersect, want);
        assert_int_equal(res.decided_by, KCBP2D_DECIDED_SAT);
        /* symmetric */
        assert_int_equal(collide2d(&b.s, &pb, &a.s, &pa, 0, NULL), want);
        yes += want, no += !want;
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
    }
    assert_true(yes > 1000 && no > 1000);
}

/* The 3D model of a 2D shape centred on z = 0: a sphere, a capsule turned
 * onto x (its segment along +-x, as the 2D capsule's), a box of depth 1. */
static void model3d(const kcbp2d_shape *s, kcbp_model *m, kcbp_pose *turn)
{
    kcbp_shape s3;
    *turn = kcbp_pose_identity();
    switch (s->kind) {
    case KCBP2D_CIRCLE: s3 = kcbp_shape_sphere(s->radius); break;
    case KCBP2D_CAPSULE: {
        s3 = kcbp_shape_capsule(s->radius, s->local[1].x - s->local[0].x);
        const double rm[12] = {0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0}; /* z onto x, exactly */
        assert_int_equal(kcbp_pose_from_matrix(rm, 12, turn, NULL), KCBP_OK);
        break;
    }
    default: s3 = kcbp_shape_box(2 * s->local[0].x, 2 * s->local[0].y, 1.0); break;
    }
    assert_int_equal(kcbp_model_build_shape(m, &s3, NULL), KCBP_OK);
}

static kcbp2d_shape rnd_round_shape(test_rng *r, int kind)
{
    switch (kind) {
    case 0: return kcbp2d_shape_circle(test_rng_range(r, 0.1, 2));
    case 1: return kcbp2d_shape_capsule(test_rng_range(r, 0.1, 1), test_rng_range(r, 0, 3));
    default: return kcbp2d_shape_box(test_rng_range(r, 0.1, 3), test_rng_range(r, 0.1, 3), 0);
    }
}

static void test_round_shapes_vs_3d(void **state)
{
    (void)state;
    test_rng r = {31337};
    int yes = 0, no = 0, exact = 0;
    for (int trial = 0; trial < 6000; trial++) {
        kcbp2d_shape a = rnd_round_shape(&r, trial % 3), b = rnd_round_shape(&r, (trial / 3) % 3);
        kcbp2d_pose pa = kcbp2d_pose_identity(), pb = rnd_pose(&r, 4, trial % 4 == 0);
        /* near touching half of the time: B moved along the normal to
         * within a tiny gap of contact */
        if (trial % 2) {
            kcbp2d_distance_result d = distance2d(&a, &pa, &b, &pb);
            double tiny = trial % 4 == 1 ? 1e-12 : 1e-15;
            double gap = d.signed_distance + test_rng_range(&r, -tiny, tiny);
            pb.trans = kcbp_v2_sub(pb.trans, kcbp_v2_scale(d.normal, gap));
        }
        kcbp_model ma, mb;
        kcbp_pose ta, tb;
        model3d(&a, &ma, &ta);
        model3d(&b, &mb, &tb);
        kcbp_pose pb3 = kcbp2d_pose_to_3d(&pb);
        kcbp_pose pbt = kcbp_pose_mul(&pb3, &tb);
        kcbp_collide_result cr = {0};
        kcbp_collide_options co = kcbp_collide_options_default();
        assert_int_equal(kcbp_collide(&ma, &ta, &mb, &pbt, &co, &cr, NULL), KCBP_OK);
        bool want3d = cr.collide;
        kcbp_collide_result_free(&cr);
        kcbp2d_collide_result res;
        bool got = collide2d(&a, &pa, &b, &pb, 0, &res);
        /* and the brute exact decision on the cores */
        kcbp2d_core ca, cb;
        core_of(&a, &pa, &ca);
        core_of(&b, &pb, &cb);
        bool brute = oracle_within(&ca, &cb, ca.r, cb.r);
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
        assert_int_equal(got, brute);
        /* Two boxes: the 3D library decides them by GJK within a band
         * (shape_internal.h), not exactly; the triangle test covers them.
         * Against one box it carries the other core into the box's frame
         * (its own rounding): compared only when the gap is far above it. */
        bool comparable = !(a.kind == KCBP2D_BOX && b.kind == KCBP2D_BOX) &&
                          (trial % 4 != 3 || (a.kind != KCBP2D_BOX && b.kind != KCBP2D_BOX));
        if (comparable && got != want3d)
            print_error("trial %d: kinds %d %d, 2D %d, 3D %d\n", trial, a.kind, b.kind, got, want3d);
        if (comparable)
            assert_int_equal(got, want3d);
        yes += got, no += !got, exact += res.decided_by == KCBP2D_DECIDED_EXACT;
        kcbp_model_free(&ma);
        kcbp_model_free(&mb);
    }
    assert_true(yes > 500 && no > 500 && exact > 100);
}

/* Rounded polygons, random and near touching: the filter and the exact
 * path agree with the brute exact decision. */
static void test_rounded_polygons_brute(void **state)
{
    (void)state;
    test_rng r = {4242};
    int yes = 0, no = 0;
    for (int trial = 0; trial < 5000; trial++) {
        double sc = pow(10, test_rng_range(&r, -5, 5));
        tshape a, b;
        rnd_polygon(&r, sc, trial % 3 ? test_rng_range(&r, 0, sc) : 0, &a);
        rnd_polygon(&r, sc, trial % 2 ? test_rng_range(&r, 0, sc) : 0, &b);
        kcbp2d_pose pa = rnd_pose(&r, 2 * sc, false), pb = rnd_pose(&r, 2 * sc, false);
        double margin = trial % 5 == 0 ? test_rng_range(&r, 0, sc) : 0;
        if (trial % 2) {
            kcbp2d_distance_result d = distance2d(&a.s, &pa, &b.s, &pb);
            double gap = d.signed_distance - margin + sc * test_rng_range(&r, -1e-13, 1e-13);
            pb.trans = kcbp_v2_sub(pb.trans, kcbp_v2_scale(d.normal, gap));
        }
        kcbp2d_core ca, cb;
        core_of(&a.s, &pa, &ca);
        core_of(&b.s, &pb, &cb);
        bool want = oracle_within(&ca, &cb, ca.r, cb.r + margin);
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
        assert_int_equal(collide2d(&a.s, &pa, &b.s, &pb, margin, NULL), want);
        yes += want, no += !want;
    }
    assert_true(yes > 500 && no > 500);
}

/* Exactly touching and degenerate constructions. */
static void test_touching_constructions(void **state)
{
    (void)state;
    kcbp2d_pose id = kcbp2d_pose_identity(), p;
    kcbp2d_shape sq = kcbp2d_shape_box(2, 2, 0);
    /* squares sharing an edge, a vertex, half an edge; 1 ulp apart */
    double xs[] = {2, 2, 1.5};
    double ys[] = {0, 2, 1};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(kcbp2d_pose_from_angle(xs[i], ys[i], 0, &p, NULL), KCBP_OK);
        assert_true(collide2d(&sq, &id, &sq, &p, 0, NULL));
        kcbp2d_distance_result d = distance2d(&sq, &id, &sq, &p);
        assert_int_equal(d.status, i == 2 ? KCBP2D_OVERLAPPING : KCBP2D_TOUCHING);
        /* boxes resting on boxes: signed distance +0, not -0 (printed "-0") */
        if (i < 2)
            assert_true(d.signed_distance == 0 && !signbit(d.signed_distance) && d.depth == 0);
        p.trans.x = nextafter(p.trans.x, 3);
        assert_int_equal(collide2d(&sq, &id, &sq, &p, 0, NULL), i == 2);
    }
    /* a vertex on an edge: a diamond touching the square's right edge */
    const kcbp_vec2 dia[4] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
    kcbp2d_shape dm = kcbp2d_shape_polygon(dia, 4, 0);
    assert_int_equal(kcbp2d_pose_from_angle(2, 0.25, 0, &p, NULL), KCBP_OK);
    assert_true(collide2d(&sq, &id, &dm, &p, 0, NULL));
    p.trans.x = nextafter(2, 3);
    assert_false(collide2d(&sq, &id, &dm, &p, 0, NULL));
    /* collinear segments: overlapping, end to end, apart by an ulp; crossing */
    kcbp2d_shape s1 = kcbp2d_shape_segment(kcbp_v2_make(0, 0), kcbp_v2_make(1, 1));
    kcbp2d_shape s2 = kcbp2d_shape_segment(kcbp_v2_make(1, 1), kcbp_v2_make(3, 3));
    kcbp2d_shape s3 = kcbp2d_shape_segment(kcbp_v2_make(0.5, 0.5), kcbp_v2_make(3, 3));
    kcbp2d_shape s4 = kcbp2d_shape_segment(kcbp_v2_make(nextafter(1, 2), 1), kcbp_v2_make(3, 3));
    kcbp2d_shape s5 = kcbp2d_shape_segment(kcbp_v2_make(1, nextafter(1, 2)), kcbp_v2_make(3, 3.0000001));
    kcbp2d_shape s6 = kcbp2d_shape_segment(kcbp_v2_make(0, 1), kcbp_v2_make(1, 0));
    assert_true(collide2d(&s1, &id, &s2, &id, 0, NULL));
    assert_true(collide2d(&s1, &id, &s3, &id, 0, NULL));
    assert_false(collide2d(&s1, &id, &s4, &id, 0, NULL));
    assert_false(collide2d(&s1, &id, &s5, &id, 0, NULL));
    assert_true(collide2d(&s1, &id, &s6, &id, 0, NULL));
    kcbp2d_shape s7 = kcbp2d_shape_segment(kcbp_v2_make(2, 2), kcbp_v2_make(3, 3)); /* same line, apart */
    assert_false(collide2d(&s1, &id, &s7, &id, 0, NULL));
    kcbp2d_distance_result d = distance2d(&s1, &id, &s7, &id);
    assert_int_equal(d.status, KCBP2D_APART);
    assert_true(fabs(d.distance - sqrt(2)) < 1e-15);
    /* a segment lying on a square's edge; a point (length 0 capsule) on it */
    kcbp2d_shape on = kcbp2d_shape_segment(kcbp_v2_make(1, -3), kcbp_v2_make(1, 3));
    assert_true(collide2d(&sq, &id, &on, &id, 0, NULL));
    /* circles touching exactly (1 + 1 == 2), concentric, and an ulp apart */
    kcbp2d_shape c1 = kcbp2d_shape_circle(1);
    assert_int_equal(kcbp2d_pose_from_angle(2, 0, 0, &p, NULL), KCBP_OK);
    assert_true(collide2d(&c1, &id, &c1, &p, 0, NULL));
    d = distance2d(&c1, &id, &c1, &p);
    assert_int_equal(d.status, KCBP2D_TOUCHING);
    p.trans.x = nextafter(2, 3);
    assert_false(collide2d(&c1, &id, &c1, &p, 0, NULL));
    d = distance2d(&c1, &id, &c1, &id);
    assert_int_equal(d.status, KCBP2D_OVERLAPPING);
    assert_true(d.depth == 2 && d.normal.x == 0 && d.normal.y == 1);
    /* 3-4-5: a circle of radius 5 at (3, 4) touches the origin's point
     * (a capsule of length 0 is a circle too) */
    kcbp2d_shape c5 = kcbp2d_shape_circle(5), pt = kcbp2d_shape_capsule(1e-12, 0);
    assert_int_equal(kcbp2d_pose_from_angle(3, 4, 0, &p, NULL), KCBP_OK);
    assert_true(collide2d(&pt, &id, &c5, &p, 0, NULL));
    /* margin: squares 0.5 apart */
    assert_int_equal(kcbp2d_pose_from_angle(2.5, 0, 0, &p, NULL), KCBP_OK);
    assert_false(collide2d(&sq, &id, &sq, &p, 0, NULL));
    assert_true(collide2d(&sq, &id, &sq, &p, 0.5, NULL));
    assert_false(collide2d(&sq, &id, &sq, &p, nextafter(0.5, 0), NULL));
    /* huge and tiny coordinates */
    const double scales[] = {1e-150, 1e-20, 1e20, 1e50};
    for (int i = 0; i < 4; i++) {
        double s = scales[i];
        kcbp_vec2 tri_a[3] = {{0, 0}, {s, 0}, {0, s}}, tri_b[3] = {{s, 0}, {2 * s, 0}, {s, s}};
        kcbp2d_shape ta = kcbp2d_shape_polygon(tri_a, 3, 0), tb = kcbp2d_shape_polygon(tri_b, 3, 0);
        assert_true(collide2d(&ta, &id, &tb, &id, 0, NULL)); /* share the vertex (s, 0) */
        tri_b[0].x = nextafter(s, 2 * s);
        assert_false(collide2d(&ta, &id, &tb, &id, 0, NULL));
        d = distance2d(&ta, &id, &tb, &id);
        assert_int_equal(d.status, KCBP2D_APART);
        assert_true(d.distance > 0 && d.distance < 1e-15 * s);
    }
}

static void test_growable_structs(void **state)
{
    (void)state;
    kcbp2d_shape c = kcbp2d_shape_circle(1);
    kcbp2d_pose id = kcbp2d_pose_identity();
    kcbp_error e;
    kcbp2d_collide_options zero;
    memset(&zero, 0, sizeof zero);
    kcbp2d_collide_result r;
    assert_int_equal(kcbp2d_collide(&c, &id, &c, &id, &zero, &r, &e), KCBP_ERR_INVALID);
    assert_non_null(strstr(e.msg, "kcbp2d_collide_options_default"));
    kcbp2d_collide_options o = kcbp2d_collide_options_default();
    assert_int_equal(o.size, sizeof o);
    o.margin = -1;
    assert_int_equal(kcbp2d_collide(&c, &id, &c, &id, &o, &r, &e), KCBP_ERR_INVALID);
    o.margin = NAN;
    assert_int_equal(kcbp2d_collide(&c, &id, &c, &id, &o, &r, &e), KCBP_ERR_INVALID);
    assert_int_equal(kcbp2d_collide_sized(&c, &id, &c, &id, NULL, &r, 4, &e), KCBP_ERR_INVALID);
    kcbp2d_distance_options dz;
    memset(&dz, 0, sizeof dz);
    kcbp2d_distance_result dr;
    assert_int_equal(kcbp2d_distance(&c, &id, &c, &id, &dz, &dr, &e), KCBP_ERR_INVALID);
    kcbp2d_distance_options dopt = kcbp2d_distance_options_default();
    assert_int_equal(dopt.max_iterations, KCBP2D_GJK_MAX_ITERATIONS_DEFAULT);
    /* a polygon that is not convex (clockwise, with an inner vertex) is
     * taken as its hull: the unit square */
    const kcbp_vec2 messy[5] = {{0, 0}, {0, 1}, {0.5, 0.5}, {1, 1}, {1, 0}};
    kcbp2d_shape m = kcbp2d_shape_polygon(messy, 5, 0);
    assert_int_equal(kcbp2d_shape_check(&m, &e), KCBP_ERR_INVALID);
    kcbp2d_pose at;
    assert_int_equal(kcbp2d_pose_from_angle(0.5, 1.5, 0, &at, NULL), KCBP_OK);
    kcbp2d_shape small = kcbp2d_shape_circle(0.5);
    assert_int_equal(kcbp2d_collide(&m, &id, &small, &at, NULL, &r, &e), KCBP_OK);
    assert_true(r.collide); /* touches the hull's top edge y = 1 */
    at.trans.y = nextafter(1.5, 2);
    assert_int_equal(kcbp2d_collide(&m, &id, &small, &at, NULL, &r, &e), KCBP_OK);
    assert_false(r.collide);
    /* bad shapes and poses are named */
    kcbp2d_shape bad = kcbp2d_shape_circle(-1);
    assert_int_equal(kcbp2d_collide(&bad, &id, &c, &id, NULL, &r, &e), KCBP_ERR_INVALID);
    assert_non_null(strstr(e.msg, "shape A"));
    kcbp2d_pose nanpose = id;
    nanpose.trans.x = NAN;
    assert_int_equal(kcbp2d_distance(&c, &id, &c, &nanpose, NULL, &dr, &e), KCBP_ERR_INVALID);
}

/* ---- distance -------------------------------------------------------------- */

static void test_distance_vs_3d_gjk(void **state)
{
    (void)state;
    test_rng r = {555};
    int apart = 0;
    for (int trial = 0; trial < 10000; trial++) {
        double sc = pow(10, test_rng_range(&r, -4, 4));
        tshape a, b;
        kcbp2d_shape *sa = &a.s, *sb = &b.s;
        rnd_polygon(&r, sc, trial % 2 ? test_rng_range(&r, 0, sc) : 0, &a);
        rnd_polygon(&r, sc, trial % 3 ? test_rng_range(&r, 0, sc) : 0, &b);
        kcbp2d_shape extra;
        if (trial % 4 == 1) { /* a capsule or a circle against a polygon */
            extra = trial % 8 == 1 ? kcbp2d_shape_capsule(0.3 * sc, 2 * sc) : kcbp2d_shape_circle(0.5 * sc);
            sa = &extra;
        }
        kcbp2d_pose pa = rnd_pose(&r, 3 * sc, false), pb = rnd_pose(&r, 3 * sc, false);
        kcbp2d_distance_result d = distance2d(sa, &pa, sb, &pb);
        kcbp2d_core ca, cb;
        core_of(sa, &pa, &ca);
        core_of(sb, &pb, &cb);
        kcbp_vec3 va[16], vb[16];
        for (uint32_t i = 0; i < ca.n; i++)
            va[i] = z0(ca.v[i]);
        for (uint32_t i = 0; i < cb.n; i++)
            vb[i] = z0(cb.v[i]);
        kcbp_convex xa = kcbp_convex_polytope(va, ca.n, NULL, NULL, ca.r),
                    xb = kcbp_convex_polytope(vb, cb.n, NULL, NULL, cb.r);
        kcbp_pose id3 = kcbp_pose_identity();
        kcbp_gjk_result g;
        kcbp_support_cache cache = {{0, 0}};
        kcbp_gjk_distance(&xa, &xb, &id3, NULL, &cache, &g);
        double tol = 1e-9 * d.scale;
        if (d.status == KCBP2D_APART) {
            apart++;
            assert_true(fabs(d.distance - g.distance) <= tol);
            assert_true(d.signed_distance == d.distance && d.depth == 0);
            /* the witnesses: on the shapes, d apart along the normal */
            kcbp_vec2 w = kcbp_v2_sub(d.point_b, d.point_a);
            assert_true(kcbp_v2_len(kcbp_v2_sub(w, kcbp_v2_scale(d.normal, d.distance))) <= tol);
            /* and the brute-force distance of the cores */
            kcbp_vec2 p, q;
            double bd = kcbp2d_brute_distance(&ca, &cb, &p, &q) - ca.r - cb.r;
            assert_true(fabs(bd - d.distance) <= tol);
        } else {
            assert_true(g.distance <= tol);
        }
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
    }
    assert_true(apart > 2000);
}

/* Distance at every scale: where the squares of the witness computation
 * would underflow or overflow (1e-150, 1e55) it takes the scaled path, and
 * GJK's simplex signs must not underflow (at 1e-150 they did: GJK cycled
 * to its cap and returned 3x the distance). Polygons apart: the distance
 * and witnesses against the brute force over every edge pair, relative to
 * the scale, not cut short; the status against the exact oracle. */
static void test_distance_extreme_scales(void **state)
{
    (void)state;
    test_rng r = {4242};
    const double scales[] = {1e-150, 1e-141, 1e-30, 1, 1e30, 1e55};
    int apart = 0;
    for (int i = 0; i < 6; i++) {
        double sc = scales[i];
        for (int trial = 0; trial < 400; trial++) {
            tshape a, b;
            rnd_polygon(&r, sc, 0, &a);
            rnd_polygon(&r, sc, 0, &b);
            double tx = test_rng_range(&r, -3 * sc, 3 * sc);
            double ty = test_rng_range(&r, -3 * sc, 3 * sc);
            double deg_a = test_rng_range(&r, -180, 180);
            double deg_b = test_rng_range(&r, -180, 180);
            kcbp2d_pose pa, pb;
            assert_int_equal(kcbp2d_pose_from_angle(0, 0, deg_a, &pa, NULL), KCBP_OK);
            assert_int_equal(kcbp2d_pose_from_angle(tx, ty, deg_b, &pb, NULL), KCBP_OK);
            kcbp2d_distance_result d = distance2d(&a.s, &pa, &b.s, &pb);
            kcbp2d_core ca, cb;
            core_of(&a.s, &pa, &ca);
            core_of(&b.s, &pb, &cb);
            bool meet = oracle_cores_meet(&ca, &cb);
            assert_int_equal(d.status != KCBP2D_APART, meet);
            if (!meet) {
                apart++;
                kcbp_vec2 p, q;
                double bd = kcbp2d_brute_distance(&ca, &cb, &p, &q), tol = 1e-12 * d.scale;
                assert_true(d.distance > 0 && fabs(d.distance - bd) <= tol);
                assert_true(d.iterations < KCBP2D_GJK_MAX_ITERATIONS_DEFAULT);
                kcbp_vec2 w = kcbp_v2_sub(d.point_b, d.point_a);
                assert_true(kcbp2d_len(kcbp_v2_sub(w, kcbp_v2_scale(d.normal, d.distance))) <= tol);
                assert_true(fabs(kcbp2d_len(d.normal) - 1) <= 1e-15);
            }
            kcbp2d_core_free(&ca);
            kcbp2d_core_free(&cb);
        }
    }
    assert_true(apart > 1000);
}

/* The distance from x to a polygon core's boundary (its nearest edge). */
static double boundary_dist(const kcbp2d_core *c, kcbp_vec2 x)
{
    double best = INFINITY;
    for (uint32_t i = 0; i < c->n; i++) {
        kcbp_vec2 p, q;
        double d = kcbp2d_cp_seg_seg(x, x, c->v[i], c->v[(i + 1) % c->n], &p, &q);
        best = d < best ? d : best;
    }
    return best;
}

/* Pairs apart, from far to within 1e-12 of touching (two thirds moved
 * along the normal to a gap of 1e-12 .. 0.1 of the scale): kcbp2d_distance
 * answers most of them from the SAT's separating edge without GJK
 * (iterations 0: a vertex facing an edge, or two vertices, certified by a
 * gap that matches), the rest by GJK; both against the brute force over
 * every edge pair to 1e-12 of the scale, the witnesses on the normal. */
static void test_distance_certificates(void **state)
{
    (void)state;
    test_rng r = {2718};
    int certified = 0, by_gjk = 0;
    for (int trial = 0; trial < 4000; trial++) {
        double sc = pow(10, test_rng_range(&r, -3, 3));
        tshape a, b;
        rnd_polygon(&r, sc, 0, &a);
        rnd_polygon(&r, sc, 0, &b);
        kcbp2d_pose pa = rnd_pose(&r, 3 * sc, false), pb = rnd_pose(&r, 3 * sc, false);
        kcbp2d_distance_result d = distance2d(&a.s, &pa, &b.s, &pb);
        /* B moved along the normal to a gap of 1e-12 .. 1e-1 of the scale */
        double gap = pow(10, test_rng_range(&r, -12, -1)) * d.scale;
        if (trial % 3) { /* else as posed: apart far, or overlapping */
            pb.trans = kcbp_v2_sub(pb.trans, kcbp_v2_scale(d.normal, d.signed_distance - gap));
            d = distance2d(&a.s, &pa, &b.s, &pb);
        }
        kcbp2d_core ca, cb;
        core_of(&a.s, &pa, &ca);
        core_of(&b.s, &pb, &cb);
        bool meet = oracle_cores_meet(&ca, &cb);
        assert_int_equal(d.status != KCBP2D_APART, meet);
        if (!meet) {
            kcbp_vec2 p, q;
            double bd = kcbp2d_brute_distance(&ca, &cb, &p, &q), tol = 1e-12 * d.scale;
            assert_true(fabs(d.distance - bd) <= tol);
            kcbp_vec2 w = kcbp_v2_sub(d.point_b, d.point_a);
            assert_true(kcbp2d_len(kcbp_v2_sub(w, kcbp_v2_scale(d.normal, d.distance))) <= tol);
            assert_true(fabs(kcbp2d_len(d.normal) - 1) <= 1e-15);
            /* the witnesses on the cores: within rounding of their boundaries */
            assert_true(boundary_dist(&ca, d.point_a) <= tol && boundary_dist(&cb, d.point_b) <= tol);
            if (d.iterations == 0)
                certified++;
            else
                by_gjk++;
        }
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
    }
    assert_true(certified > 1000 && by_gjk > 50);
}

/* A polygon given as points in any order (not convex, or crossing
 * itself) stands for the hull of its posed points: the distance, depth
 * and status equal those of the hull given in order (the SAT's own
 * convexity pass must not let such an input through). */
static void test_distance_unordered_points(void **state)
{
    (void)state;
    test_rng r = {1618};
    int overlapping = 0;
    for (int trial = 0; trial < 3000; trial++) {
        kcbp_vec2 p[8], h[8];
        size_t n = 3 + (size_t)(test_rng_uniform(&r) * 6), nh = 0;
        for (size_t i = 0; i < n; i++) {
            double x = test_rng_range(&r, -1, 1);
            double y = test_rng_range(&r, -1, 1);
            p[i] = kcbp_v2_make(x, y);
        }
        assert_int_equal(kcbp2d_hull(p, n, h, &nh, NULL), KCBP_OK);
        if (nh < 3)
            continue;
        tshape b;
        rnd_polygon(&r, 1, 0, &b);
        kcbp2d_pose pa = rnd_pose(&r, 0.5, false), pb = rnd_pose(&r, 1.5, false);
        kcbp2d_shape raw = kcbp2d_shape_polygon(p, (uint32_t)n, 0), hull = kcbp2d_shape_polygon(h, (uint32_t)nh, 0);
        kcbp2d_distance_result d1 = distance2d(&raw, &pa, &b.s, &pb), d2 = distance2d(&hull, &pa, &b.s, &pb);
        /* the hull of the posed points is the posed hull but where rounding
         * breaks a near-collinear triple: the same answers to rounding */
        assert_int_equal(d1.status == KCBP2D_APART, d2.status == KCBP2D_APART);
        assert_true(fabs(d1.signed_distance - d2.signed_distance) <= 1e-12 * d2.scale);
        overlapping += d2.status == KCBP2D_OVERLAPPING;
    }
    assert_true(overlapping > 300);
}

/* Round polygons of many vertices: GJK's few steps give the brute-force
 * distance, and collide agrees with the triangle test. */
static void test_many_vertices(void **state)
{
    (void)state;
    test_rng r = {4321};
    static kcbp_vec2 v[600];
    for (int trial = 0; trial < 20; trial++) {
        uint32_t n = 100 + (uint32_t)(test_rng_uniform(&r) * 500);
        for (uint32_t i = 0; i < n; i++)
            v[i] = kcbp_v2_make(cos(2 * M_PI * i / n), 0.5 * sin(2 * M_PI * i / n));
        kcbp2d_shape s = kcbp2d_shape_polygon(v, n, trial % 2 ? 0.1 : 0);
        kcbp2d_pose id = kcbp2d_pose_identity(), p = rnd_pose(&r, 2.5, false);
        kcbp2d_distance_result d = distance2d(&s, &id, &s, &p);
        kcbp2d_core ca, cb;
        core_of(&s, &id, &ca);
        core_of(&s, &p, &cb);
        kcbp_vec2 x, y;
        /* brute force, fast enough for 600-gons: an edge pair within the
         * radii (closest.h, exact), or a vertex inside the other (convex:
         * on the inner side of every edge, exact orient2d) */
        bool meet = false;
        for (uint32_t i = 0; i < ca.n && !meet; i++)
            for (uint32_t j = 0; j < cb.n && !meet; j++)
                meet = kcbp_within_seg_seg(z0(ca.v[i]), z0(ca.v[(i + 1) % ca.n]), z0(cb.v[j]),
                                           z0(cb.v[(j + 1) % cb.n]), ca.r, cb.r);
        for (int side = 0; side < 2 && !meet; side++) {
            const kcbp2d_core *in = side ? &cb : &ca, *out = side ? &ca : &cb;
            bool all = true;
            for (uint32_t i = 0; i < out->n && all; i++) {
                kcbp_v2 p0 = {out->v[i].x, out->v[i].y}, p1 = {out->v[(i + 1) % out->n].x, out->v[(i + 1) % out->n].y},
                        q = {in->v[0].x, in->v[0].y};
                all = kcbp_orient2d_exact(p0, p1, q) >= 0;
            }
            meet = all;
        }
        assert_int_equal(d.status != KCBP2D_APART, meet);
        if (!meet) {
            double bd = kcbp2d_brute_distance(&ca, &cb, &x, &y) - ca.r - cb.r;
            assert_true(fabs(bd - d.distance) <= 1e-12);
            assert_true(d.iterations < KCBP2D_GJK_MAX_ITERATIONS_DEFAULT);
        }
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
    }
}

/* ---- depth ---------------------------------------------------------------- */

static void test_depth_vs_prism_oracle(void **state)
{
    (void)state;
    test_rng r = {8080};
    int checked = 0;
    for (int trial = 0; trial < 4000; trial++) {
        double sc = pow(10, test_rng_range(&r, -3, 3));
        tshape a, b;
        rnd_polygon(&r, sc, trial % 2 ? test_rng_range(&r, 0, 0.3 * sc) : 0, &a);
        rnd_polygon(&r, sc, trial % 3 == 0 ? test_rng_range(&r, 0, 0.3 * sc) : 0, &b);
        kcbp2d_pose pa = rnd_pose(&r, 0.5 * sc, false), pb = rnd_pose(&r, 0.5 * sc, false);
        kcbp2d_distance_result d = distance2d(&a.s, &pa, &b.s, &pb);
        kcbp2d_core ca, cb;
        core_of(&a.s, &pa, &ca);
        core_of(&b.s, &pb, &cb);
        bool cores = kcbp2d_sat_intersect(&ca, &cb, NULL, NULL);
        if (d.status == KCBP2D_APART) {
            kcbp2d_core_free(&ca);
            kcbp2d_core_free(&cb);
            continue;
        }
        /* witnesses: point_a - point_b == depth * normal */
        kcbp_vec2 w = kcbp_v2_sub(d.point_a, d.point_b);
        assert_true(kcbp_v2_len(kcbp_v2_sub(w, kcbp_v2_scale(d.normal, d.depth))) <= 1e-12 * d.scale);
        assert_true(d.signed_distance == -d.depth);
        if (cores) {
            /* the prisms' Minkowski difference by qhull: the in-plane facets
             * give the 2D depth; the caps are 2H away, far beyond it */
            double H = 100 * sc;
            kcbp_vec3 pa3[32], pb3[32];
            for (uint32_t i = 0; i < ca.n; i++)
                pa3[2 * i] = kcbp_v3(ca.v[i].x, ca.v[i].y, -H), pa3[2 * i + 1] = kcbp_v3(ca.v[i].x, ca.v[i].y, H);
            for (uint32_t i = 0; i < cb.n; i++)
                pb3[2 * i] = kcbp_v3(cb.v[i].x, cb.v[i].y, -H), pb3[2 * i + 1] = kcbp_v3(cb.v[i].x, cb.v[i].y, H);
            kcbp_pose id3 = kcbp_pose_identity();
            cso_oracle_result o = cso_oracle(pa3, (int)(2 * ca.n), pb3, (int)(2 * cb.n), &id3);
            if (o.ok && o.inside) {
                double want = o.depth + ca.r + cb.r;
                assert_true(fabs(d.depth - want) <= 1e-12 * (o.scale + d.scale));
                checked++;
            }
        }
        /* minimality and validity, exactly: B moved by a little more than
         * depth * normal is apart (margin 0), by a little less is not */
        if (d.depth > 1e-9 * d.scale) {
            kcbp2d_pose moved = pb;
            moved.trans = kcbp_v2_add(pb.trans, kcbp_v2_scale(d.normal, d.depth * (1 + 1e-9) + 1e-12 * d.scale));
            assert_false(collide2d(&a.s, &pa, &b.s, &moved, 0, NULL));
            moved.trans = kcbp_v2_add(pb.trans, kcbp_v2_scale(d.normal, d.depth * (1 - 1e-6)));
            assert_true(collide2d(&a.s, &pa, &b.s, &moved, 0, NULL));
        }
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
    }
    assert_true(checked > 500);
}

/* Closed forms: circles and capsules. */
static void test_closed_forms(void **state)
{
    (void)state;
    kcbp2d_pose id = kcbp2d_pose_identity(), p;
    kcbp2d_shape c1 = kcbp2d_shape_circle(1), c2 = kcbp2d_shape_circle(2);
    assert_int_equal(kcbp2d_pose_from_angle(3, 4, 0, &p, NULL), KCBP_OK);
    kcbp2d_distance_result d = distance2d(&c1, &id, &c2, &p);
    assert_int_equal(d.status, KCBP2D_APART);
    assert_true(fabs(d.distance - 2) < 1e-15 && fabs(d.normal.x - 0.6) < 1e-15 && fabs(d.normal.y - 0.8) < 1e-15);
    assert_true(fabs(d.point_a.x - 0.6) < 1e-15 && fabs(d.point_b.y - 2.4) < 1e-15);
    assert_int_equal(kcbp2d_pose_from_angle(1.5, 2, 0, &p, NULL), KCBP_OK);
    d = distance2d(&c1, &id, &c2, &p);
    assert_int_equal(d.status, KCBP2D_OVERLAPPING);
    assert_true(fabs(d.depth - 0.5) < 1e-15 && fabs(d.signed_distance + 0.5) < 1e-15);
    /* capsules crossing at right angles: cores cross; B's segment (x = 0,
     * y in [-1.75, 2.25]) leaves A's (y = 0, x in [-2, 2]) up by 1.75, the
     * shortest way; depth 1.75 + 0.5 + 0.5 along +y */
    kcbp2d_shape k = kcbp2d_shape_capsule(0.5, 4);
    assert_int_equal(kcbp2d_pose_from_angle(0, 0.25, 90, &p, NULL), KCBP_OK);
    d = distance2d(&k, &id, &k, &p);
    assert_int_equal(d.status, KCBP2D_OVERLAPPING);
    assert_true(fabs(d.depth - 2.75) < 1e-15 && d.normal.x == 0 && d.normal.y == 1);
    /* parallel capsules 1.5 apart: distance 0.5 */
    assert_int_equal(kcbp2d_pose_from_angle(1, 1.5, 0, &p, NULL), KCBP_OK);
    d = distance2d(&k, &id, &k, &p);
    assert_int_equal(d.status, KCBP2D_APART);
    assert_true(fabs(d.distance - 0.5) < 1e-15 && d.normal.x == 0 && d.normal.y == 1);
}

/* The posed polygon's points checked by one bound per polygon (the sums of
 * the coordinates' magnitudes, shape2d.c) and the per-point comparison only
 * when the sums do not prove them: points whose sums exceed KCBP_COORD_MAX
 * but each within it are accepted (a version trusting the sums alone
 * refuses them), a point beyond it or not finite is refused and named (a
 * version skipping the per-point pass accepts it), and the posed vertices
 * and scale are kcbp2d_pose_apply's, bit for bit. */
/* kcbp2d_core_pose's polygon loop (one SSE2 register per point where the
 * compiler has SSE2) against kcbp2d_pose_apply, bit for bit, and the
 * scale against the maximum magnitude: random points (3..40, past the
 * inline buffer, not convex: the posing does not care) and poses at
 * scales 1e-6 .. 1e6, and points with -0.0 and subnormal coordinates. */
static void test_pose_bitwise_random(void **state)
{
    (void)state;
    test_rng r = {77};
    for (int it = 0; it < 3000; it++) {
        double sc = pow(10.0, test_rng_range(&r, -6, 6));
        uint32_t n = 3 + (uint32_t)(test_rng_uniform(&r) * 38);
        kcbp_vec2 pts[40];
        for (uint32_t i = 0; i < n; i++) {
            double x = test_rng_range(&r, -sc, sc);
            double y = test_rng_range(&r, -sc, sc);
            pts[i] = kcbp_v2_make(x, y);
        }
        if (it % 7 == 0)
            pts[0] = kcbp_v2_make(-0.0, 0x1p-1060);
        kcbp2d_pose p = rnd_pose(&r, 2 * sc, it % 5 == 0);
        kcbp2d_shape s = kcbp2d_shape_polygon(pts, n, 0);
        kcbp2d_core c;
        kcbp_error e;
        assert_int_equal(kcbp2d_core_pose(&s, &p, &c, &e), KCBP_OK);
        assert_int_equal(c.n, n);
        double want = 0;
        for (uint32_t i = 0; i < n; i++) {
            kcbp_vec2 w = kcbp2d_pose_apply(&p, pts[i]);
            assert_true(memcmp(&c.v[i], &w, sizeof w) == 0);
            want = fmax(want, fmax(fabs(w.x), fabs(w.y)));
        }
        assert_true(c.scale == want);
        kcbp2d_core_free(&c);
    }
}

static void test_pose_point_bound(void **state)
{
    (void)state;
    const double big = 0.9 * KCBP_COORD_MAX;
    kcbp_vec2 pts[4] = {{-big, -big}, {big, -big}, {big, big}, {-big, big}};
    kcbp2d_shape s = kcbp2d_shape_polygon(pts, 4, 0);
    kcbp2d_pose p;
    assert_int_equal(kcbp2d_pose_from_angle(0.25 * big, -0.5 * big, 30, &p, NULL), KCBP_OK);
    kcbp2d_core c;
    kcbp_error e;
    assert_int_equal(kcbp2d_core_pose(&s, &p, &c, &e), KCBP_OK);
    double sc = 0;
    for (uint32_t i = 0; i < 4; i++) {
        kcbp_vec2 w = kcbp2d_pose_apply(&p, pts[i]);
        assert_true(c.v[i].x == w.x && c.v[i].y == w.y);
        sc = fmax(sc, fmax(fabs(w.x), fabs(w.y)));
    }
    assert_true(c.scale == sc);
    kcbp2d_core_free(&c);
    kcbp2d_pose id = kcbp2d_pose_identity();
    kcbp2d_distance_result d;
    assert_int_equal(kcbp2d_distance(&s, &id, &s, &p, NULL, &d, &e), KCBP_OK);
    assert_int_equal(d.status, KCBP2D_OVERLAPPING);
    /* refused, named: beyond the bound, NaN, infinite; in A and in B */
    const double bad[3] = {1.5 * KCBP_COORD_MAX, NAN, INFINITY};
    for (int k = 0; k < 3; k++)
        for (uint32_t at = 0; at < 4; at++) {
            kcbp_vec2 q[4];
            memcpy(q, pts, sizeof q);
            if (at & 1)
                q[at].y = bad[k];
            else
                q[at].x = bad[k];
            kcbp2d_shape t = kcbp2d_shape_polygon(q, 4, 0);
            assert_int_equal(kcbp2d_distance(&t, &id, &s, &p, NULL, &d, &e), KCBP_ERR_INVALID);
            char want[32];
            snprintf(want, sizeof want, "point %u ", (unsigned)at);
            assert_non_null(strstr(e.msg, want));
            assert_non_null(strstr(e.msg, "shape A"));
            assert_true(d.distance == 0 && d.normal.y == 1); /* the result zeroed */
            assert_int_equal(kcbp2d_distance(&s, &id, &t, &p, NULL, &d, &e), KCBP_ERR_INVALID);
            assert_non_null(strstr(e.msg, "shape B"));
            kcbp2d_collide_result cr;
            assert_int_equal(kcbp2d_collide(&s, &id, &t, &p, NULL, &cr, &e), KCBP_ERR_INVALID);
        }
}

/* want_depth false against the default call (the reference, itself tested
 * against the oracles above) and kcbp2d_collide's exact answer: the same
 * status and distance on every pair, every other member the same when the
 * depth is computed (depth_computed), and distance, depth, signed distance
 * 0, normal (0, 1) when not. The pairs: random polygons and poses at
 * scales 1e-6 .. 1e6, moved to within 1e-12 of touching, and overlapping by
 * f times the touching tolerance for f around 1 (0.5 .. 2.5), where a
 * version whose touching margin or deep margin were off (e.g. deep beyond
 * half the tolerance, or shallow within twice it) reports the other status. */
static void test_distance_without_depth(void **state)
{
    (void)state;
    test_rng r = {3535};
    kcbp2d_distance_options nd = kcbp2d_distance_options_default();
    assert_true(nd.want_depth);
    nd.want_depth = false;
    static const double fs[] = {0.5, 0.9, 0.99, 1.01, 1.1, 1.5, 2.5};
    int skipped[3] = {0, 0, 0}, cases = 0;
    for (int trial = 0; trial < 3000; trial++) {
        double sc = pow(10, test_rng_range(&r, -6, 6));
        tshape ta, tb;
        rnd_polygon(&r, sc, 0, &ta);
        rnd_polygon(&r, sc, 0, &tb);
        kcbp2d_pose pa = rnd_pose(&r, sc, false);
        kcbp2d_pose pb = rnd_pose(&r, 2 * sc, false);
        kcbp2d_distance_result d0 = distance2d(&ta.s, &pa, &tb.s, &pb);
        int mode = trial % 3;
        if (mode == 1) { /* within 1e-12 of touching */
            double gap = d0.signed_distance + test_rng_range(&r, -1e-12, 1e-12) * d0.scale;
            pb.trans = kcbp_v2_sub(pb.trans, kcbp_v2_scale(d0.normal, gap));
        } else if (mode == 2 && d0.status == KCBP2D_OVERLAPPING) { /* overlapping by f times the tolerance */
            double f = fs[trial / 3 % (sizeof fs / sizeof fs[0])];
            pb.trans = kcbp_v2_add(pb.trans, kcbp_v2_scale(d0.normal, d0.depth - f * KCBP2D_TOUCH_REL_TOL * d0.scale));
        }
        kcbp2d_distance_result want = distance2d(&ta.s, &pa, &tb.s, &pb), got;
        kcbp_error e;
        assert_int_equal(kcbp2d_distance(&ta.s, &pa, &tb.s, &pb, &nd, &got, &e), KCBP_OK);
        assert_int_equal(got.status, want.status);
        assert_true(got.distance == want.distance);
        assert_int_equal(got.status == KCBP2D_APART, !collide2d(&ta.s, &pa, &tb.s, &pb, 0, NULL));
        assert_true(want.depth_computed);
        if (got.depth_computed) {
            assert_true(got.depth == want.depth && got.signed_distance == want.signed_distance);
            assert_true(got.normal.x == want.normal.x && got.normal.y == want.normal.y);
            assert_true(got.point_a.x == want.point_a.x && got.point_a.y == want.point_a.y);
            assert_true(got.point_b.x == want.point_b.x && got.point_b.y == want.point_b.y);
            assert_int_equal(got.iterations, want.iterations);
        } else {
            assert_true(got.status != KCBP2D_APART);
            assert_true(got.distance == 0 && got.depth == 0 && got.signed_distance == 0);
            assert_true(got.normal.x == 0 && got.normal.y == 1);
            skipped[got.status]++;
        }
        assert_true(got.scale == want.scale);
        cases += mode == 2 && want.status != KCBP2D_APART;
    }
    /* both statuses were settled without the depth, near the tolerance too */
    assert_true(skipped[KCBP2D_TOUCHING] > 100 && skipped[KCBP2D_OVERLAPPING] > 100 && cases > 100);
    /* radii and other kinds: always the depth */
    kcbp2d_shape c = kcbp2d_shape_circle(1);
    kcbp2d_pose id = kcbp2d_pose_identity();
    kcbp2d_distance_result dr;
    assert_int_equal(kcbp2d_distance(&c, &id, &c, &id, &nd, &dr, NULL), KCBP_OK);
    assert_true(dr.depth_computed && dr.depth == 2);
}

/* The SAT scans' cross products far from the origin (convex2d.h,
 * kcbp2d_edge_max: e x r - e x p, where both terms are about |e| T for
 * polygons of size 1 posed at distance T from the origin, and their
 * difference is rounded as the filter bound allows): pairs at T = 1e2 ..
 * 1e14 moved to within a few ulps of T of touching, so that many vertices
 * lie within the rounding of an edge line. Every verdict of
 * kcbp2d_sat_filtered and kcbp2d_sat_meet is checked with the exact
 * orient2d: a separating edge has every vertex of the other polygon
 * strictly right and every other vertex of its own strictly left; with no
 * separator, every edge of both has a vertex of the other strictly left.
 * It fails when the scans trust the rounded signs (their bound made 0),
 * or with the edge's own term e x p rounded to float. */
static bool edge_separates_exact(const kcbp2d_core *c, uint32_t i, const kcbp2d_core *o)
{
    kcbp_vec2 p = c->v[i], q = c->v[(i + 1) % c->n];
    for (uint32_t k = 0; k < o->n; k++)
        if (kcbp2d_orient(p, q, o->v[k]) >= 0)
            return false;
    for (uint32_t j = 0; j < c->n; j++)
        if (j != i && j != (i + 1) % c->n && kcbp2d_orient(p, q, c->v[j]) <= 0)
            return false;
    return true;
}

static bool every_edge_met_exact(const kcbp2d_core *c, const kcbp2d_core *o)
{
    for (uint32_t i = 0; i < c->n; i++) {
        bool left = false;
        for (uint32_t k = 0; k < o->n && !left; k++)
            left = kcbp2d_orient(c->v[i], c->v[(i + 1) % c->n], o->v[k]) > 0;
        if (!left)
            return false;
    }
    return true;
}

static void test_sat_scan_far_from_origin(void **state)
{
    (void)state;
    test_rng r = {8080};
    int sep = 0, met = 0, meet_checked = 0;
    for (int trial = 0; trial < 6000; trial++) {
        double t = pow(10, test_rng_range(&r, 2, 14));
        double ang = test_rng_range(&r, 0, 2 * M_PI);
        double deg_a = test_rng_range(&r, -180, 180);
        double deg_b = test_rng_range(&r, -180, 180);
        double dx = test_rng_range(&r, -2, 2);
        double dy = test_rng_range(&r, -2, 2);
        double ulps = test_rng_range(&r, -40, 40);
        tshape ta, tb;
        rnd_polygon(&r, 1, 0, &ta);
        rnd_polygon(&r, 1, 0, &tb);
        kcbp2d_pose pa, pb;
        assert_int_equal(kcbp2d_pose_from_angle(t * cos(ang), t * sin(ang), deg_a, &pa, NULL), KCBP_OK);
        assert_int_equal(kcbp2d_pose_from_angle(t * cos(ang) + dx, t * sin(ang) + dy, deg_b, &pb, NULL), KCBP_OK);
        kcbp2d_distance_result d0 = distance2d(&ta.s, &pa, &tb.s, &pb);
        double gap = d0.signed_distance + ulps * 0x1p-52 * t;
        pb.trans = kcbp_v2_sub(pb.trans, kcbp_v2_scale(d0.normal, gap));
        kcbp2d_core ca, cb;
        core_of(&ta.s, &pa, &ca);
        core_of(&tb.s, &pb, &cb);
        if (ca.hulled || cb.hulled) {
            kcbp2d_core_free(&ca);
            kcbp2d_core_free(&cb);
            continue;
        }
        const kcbp2d_core *cs[2] = {&ca, &cb};
        int ss = -1;
        uint32_t se = 0, vx = 0;
        kcbp2d_sat_min dm;
        kcbp2d_sat_verdict v = kcbp2d_sat_filtered(&ca, &cb, &ss, &se, &dm);
        if (v == KCBP2D_SAT_SEPARATED) {
            assert_true(edge_separates_exact(cs[ss], se, cs[1 - ss]));
            assert_false(oracle_cores_meet(&ca, &cb));
            sep++;
        } else if (v == KCBP2D_SAT_NO_SEPARATOR) {
            assert_true(every_edge_met_exact(&ca, &cb) && every_edge_met_exact(&cb, &ca));
            assert_true(oracle_cores_meet(&ca, &cb));
            met++;
        }
        int ms = -1;
        uint32_t me = 0;
        kcbp2d_meet_verdict mv = kcbp2d_sat_meet(&ca, &cb, KCBP2D_TOUCH_REL_TOL, &ms, &me, &vx);
        if (mv == KCBP2D_MEET_SEPARATED) {
            assert_int_equal(v, KCBP2D_SAT_SEPARATED);
            assert_true(ms == ss && me == se && vx == dm.vertex);
        } else if (mv != KCBP2D_MEET_UNKNOWN) {
            assert_int_equal(v, KCBP2D_SAT_NO_SEPARATOR);
            meet_checked++;
        }
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
    }
    assert_true(sep > 1000 && met > 1000 && meet_checked > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polygons_vs_triangle_test),
        cmocka_unit_test(test_round_shapes_vs_3d),
        cmocka_unit_test(test_rounded_polygons_brute),
        cmocka_unit_test(test_distance_extreme_scales),
        cmocka_unit_test(test_touching_constructions),
        cmocka_unit_test(test_growable_structs),
        cmocka_unit_test(test_distance_vs_3d_gjk),
        cmocka_unit_test(test_distance_certificates),
        cmocka_unit_test(test_distance_unordered_points),
        cmocka_unit_test(test_many_vertices),
        cmocka_unit_test(test_depth_vs_prism_oracle),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_pose_point_bound),
        cmocka_unit_test(test_pose_bitwise_random),
        cmocka_unit_test(test_distance_without_depth),
        cmocka_unit_test(test_sat_scan_far_from_origin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
