/* 2D time of impact (sweep2d.h) against an independent oracle: the exact
 * collide predicate (kcbp2d_collide, kcbp2d_model_collide,
 * kcbp2d_model_shape_collide) sampled over t on a fine grid, and the first
 * sample that touches bisected to 1e-13 against its free neighbour. The
 * sweep's certificate is checked against it: no sample before toi touches,
 * toi is at most the oracle's first touching time, a hit later than the
 * oracle's free time by more than tau is not allowed, an earlier one must
 * be confirmed (a contact the samples missed, re-checked here), and the
 * distance at toi is within the stated bound. Cases: random convex pairs
 * translating and turning (both bodies moving too), already touching at
 * t = 0, never touching, grazing, a circle in a polygon's hole, non-convex
 * models, and near-touching to 1e-12. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp2d.h>

#include "testutil.h"

/* ---- a pair of bodies and the oracle ------------------------------------ */

typedef struct {
    const kcbp2d_shape *sa, *sb; /* shapes (NULL for a model) */
    const kcbp2d_model *ma, *mb;
    kcbp2d_motion mo_a, mo_b;
} pair;

static bool collide_at(const pair *p, double t)
{
    kcbp2d_pose pa, pb;
    assert_int_equal(kcbp2d_motion_at(&p->mo_a, t, &pa, NULL), KCBP_OK);
    assert_int_equal(kcbp2d_motion_at(&p->mo_b, t, &pb, NULL), KCBP_OK);
    if (p->sa) {
        kcbp2d_collide_result r;
        assert_int_equal(kcbp2d_collide(p->sa, &pa, p->sb, &pb, NULL, &r, NULL), KCBP_OK);
        return r.collide;
    }
    kcbp2d_model_collide_result r;
    if (p->mb)
        assert_int_equal(kcbp2d_model_collide(p->ma, &pa, p->mb, &pb, NULL, &r, NULL), KCBP_OK);
    else
        assert_int_equal(kcbp2d_model_shape_collide(p->ma, &pa, p->sb, &pb, NULL, &r, NULL), KCBP_OK);
    return r.collide;
}

static kcbp_status sweep_of(const pair *p, const kcbp2d_sweep_options *o, kcbp2d_sweep_result *r)
{
    if (p->sa)
        return kcbp2d_sweep(p->sa, &p->mo_a, p->sb, &p->mo_b, o, r, NULL);
    if (p->mb)
        return kcbp2d_model_sweep(p->ma, &p->mo_a, p->mb, &p->mo_b, o, r, NULL);
    return kcbp2d_model_shape_sweep(p->ma, &p->mo_a, p->sb, &p->mo_b, o, r, NULL);
}

typedef struct {
    bool touch;       /* some sample touches */
    double t_lo, t_hi; /* free at t_lo, touching at t_hi, t_hi - t_lo <= 1e-13 (touch) */
} oracle;

static oracle oracle_of(const pair *p, int samples)
{
    oracle o = {false, 1, 1};
    if (collide_at(p, 0)) {
        o.touch = true, o.t_lo = o.t_hi = 0;
        return o;
    }
    for (int k = 1; k <= samples; k++) {
        double t = (double)k / samples;
        if (collide_at(p, t)) {
            double lo = (double)(k - 1) / samples, hi = t;
            while (hi - lo > 1e-13) {
                double mid = 0.5 * (lo + hi);
                if (collide_at(p, mid))
                    hi = mid;
                else
                    lo = mid;
            }
            o.touch = true, o.t_lo = lo, o.t_hi = hi;
            return o;
        }
    }
    return o;
}

typedef struct {
    int hits, misses, confirmed, early;
} tally;

/* The sweep against the oracle; returns the result. */
static kcbp2d_sweep_result check(const pair *p, int samples, tally *ty)
{
    kcbp2d_sweep_options o = kcbp2d_sweep_options_default();
    double tau = o.t_tolerance;
    kcbp2d_sweep_result r;
    assert_int_equal(sweep_of(p, &o, &r), KCBP_OK);
    oracle orc = oracle_of(p, samples);
    assert_false(r.undecided);
    assert_true(isfinite(r.toi) && r.toi >= 0 && r.toi <= 1);
    if (orc.touch) {
        /* certified: never past a time the exact test finds touching */
        assert_true(r.hit);
        assert_true(r.toi <= orc.t_hi);
    }
    if (r.hit) {
        ty->hits++;
        ty->confirmed += r.confirmed;
        /* the samples before toi are free (the scan above stops at the
         * first touching sample, which toi does not pass) */
        if (!orc.touch || r.toi < orc.t_lo - tau) {
            /* earlier than the oracle's contact (or one it never saw): a
             * graze the samples missed, within the tolerance */
            ty->early++;
            if (r.confirmed)
                assert_true(collide_at(p, r.toi) || collide_at(p, fmin(1.0, r.toi + tau)));
        }
        if (r.confirmed)
            assert_true(collide_at(p, r.toi) || collide_at(p, fmin(1.0, r.toi + tau)));
        /* within the bound of the header: mu * tau or the rounding bound
         * (here far below 1e-9 of the reach), plus the distance's accuracy */
        if (!(r.distance <= r.motion_bound * tau + 1e-9))
            print_message("toi %.17g distance %g mu %g confirmed %d iterations %d oracle %d %.17g\n", r.toi, r.distance,
                          r.motion_bound, r.confirmed, r.iterations, orc.touch, orc.t_lo);
        assert_true(r.distance <= r.motion_bound * tau + 1e-9);
        assert_true(fabs(kcbp_v2_len(r.normal) - 1) < 1e-9);
        assert_true(r.free_until == r.toi);
    } else {
        ty->misses++;
        assert_true(r.toi == 1 && r.free_until == 1);
    }
    return r;
}

/* ---- random convex shapes ------------------------------------------------ */

typedef struct {
    kcbp2d_shape s;
    kcbp_vec2 pts[16];
} tshape;

/* A circle, capsule or box (kind < 0.45), else NULL: a polygon is wanted. */
static bool rnd_round(test_rng *rng, double sc, tshape *t)
{
    double kind = test_rng_uniform(rng);
    if (kind < 0.15) {
        double r = test_rng_range(rng, 0.1, sc);
        t->s = kcbp2d_shape_circle(r);
    } else if (kind < 0.3) {
        double r = test_rng_range(rng, 0.05, sc / 2), l = test_rng_range(rng, 0.1, 2 * sc);
        t->s = kcbp2d_shape_capsule(r, l);
    } else if (kind < 0.45) {
        double w = test_rng_range(rng, 0.1, 2 * sc), h = test_rng_range(rng, 0.1, 2 * sc);
        t->s = kcbp2d_shape_box(w, h, 0);
    } else {
        return false;
    }
    return true;
}

/* A random convex polygon of up to 8 vertices (the hull of random points),
 * optionally rounded. */
static void rnd_polygon(test_rng *rng, double sc, double radius, tshape *t)
{
    for (;;) {
        kcbp_vec2 p[8];
        size_t n = 3 + (size_t)(test_rng_uniform(rng) * 6), nh = 0;
        for (size_t i = 0; i < n; i++) {
            double x = test_rng_range(rng, -sc, sc), y = test_rng_range(rng, -sc, sc);
            p[i] = kcbp_v2_make(x, y);
        }
        assert_int_equal(kcbp2d_hull(p, n, t->pts, &nh, NULL), KCBP_OK);
        if (nh >= 3) {
            t->s = kcbp2d_shape_polygon(t->pts, (uint32_t)nh, radius);
            assert_int_equal(kcbp2d_shape_check(&t->s, NULL), KCBP_OK);
            return;
        }
    }
}

static void rnd_convex(test_rng *rng, double sc, tshape *t)
{
    if (!rnd_round(rng, sc, t)) {
        double rad = test_rng_uniform(rng) < 0.3 ? test_rng_range(rng, 0.01, 0.3) : 0;
        rnd_polygon(rng, sc, rad, t);
    }
    assert_int_equal(kcbp2d_shape_check(&t->s, NULL), KCBP_OK);
}

/* B from the left of A to its right (or past it), through or beside it. */
static kcbp2d_motion rnd_motion(test_rng *rng, bool turn)
{
    kcbp2d_motion m;
    double y0 = test_rng_range(rng, -3, 3), y1 = test_rng_range(rng, -3, 3);
    double x0 = test_rng_range(rng, -8, -5), x1 = test_rng_range(rng, 2, 8);
    m.from = kcbp_v2_make(x0, y0);
    m.to = kcbp_v2_make(x1, y1);
    m.from_deg = turn ? test_rng_range(rng, -180, 180) : 30;
    m.to_deg = turn ? m.from_deg + test_rng_range(rng, -400, 400) : 30;
    return m;
}

static void test_convex_translation(void **state)
{
    (void)state;
    test_rng rng = {11};
    tally ty = {0, 0, 0, 0};
    for (int trial = 0; trial < 300; trial++) {
        tshape a, b;
        rnd_convex(&rng, 1.5, &a);
        rnd_convex(&rng, 1.5, &b);
        pair p = {&a.s, &b.s, NULL, NULL, kcbp2d_motion_still(0, 0, 0), rnd_motion(&rng, false)};
        double deg = test_rng_range(&rng, -180, 180);
        p.mo_a = kcbp2d_motion_still(0, 0, deg);
        check(&p, 2000, &ty);
    }
    print_message("translation: %d hits (%d confirmed, %d before the samples' contact), %d misses\n", ty.hits,
                  ty.confirmed, ty.early, ty.misses);
    assert_true(ty.hits > 50 && ty.misses > 20);
    /* a translation's contact is a transversal one: confirmed */
    assert_int_equal(ty.confirmed, ty.hits);
}

static void test_convex_turning(void **state)
{
    (void)state;
    test_rng rng = {12};
    tally ty = {0, 0, 0, 0};
    for (int trial = 0; trial < 300; trial++) {
        tshape a, b;
        rnd_convex(&rng, 1.5, &a);
        rnd_convex(&rng, 1.5, &b);
        pair p = {&a.s, &b.s, NULL, NULL, kcbp2d_motion_still(0, 0, 0), rnd_motion(&rng, true)};
        if (trial % 3 == 0) { /* A moves too */
            double x = test_rng_range(&rng, -1, 1), y = test_rng_range(&rng, -1, 1);
            double d0 = test_rng_range(&rng, -90, 90), d1 = test_rng_range(&rng, -90, 90);
            p.mo_a.to = kcbp_v2_make(x, y);
            p.mo_a.from_deg = d0;
            p.mo_a.to_deg = d1;
        }
        check(&p, 4000, &ty);
    }
    print_message("turning: %d hits (%d confirmed, %d before the samples' contact), %d misses\n", ty.hits,
                  ty.confirmed, ty.early, ty.misses);
    assert_true(ty.hits > 50 && ty.misses > 20);
    assert_true(ty.confirmed >= ty.hits * 9 / 10);
}

/* One body turns (up to 400 degrees either way), the other translates
 * without turning, in both orders, half of the polygons off their origin
 * (so that their turn swings them wide): the steps along an edge normal
 * carried round with the turning body. */
static void test_convex_turning_one(void **state)
{
    (void)state;
    test_rng rng = {13};
    tally ty = {0, 0, 0, 0};
    for (int trial = 0; trial < 300; trial++) {
        tshape a, b;
        rnd_convex(&rng, 1.5, &a);
        rnd_convex(&rng, 1.5, &b);
        tshape *shifted = trial % 2 ? &b : &a;
        if (trial % 4 < 2 && shifted->s.kind == KCBP2D_POLYGON) {
            double ox = test_rng_range(&rng, -1.5, 1.5), oy = test_rng_range(&rng, -1.5, 1.5);
            for (uint32_t i = 0; i < shifted->s.npoints; i++)
                shifted->pts[i] = kcbp_v2_make(shifted->pts[i].x + ox, shifted->pts[i].y + oy);
        }
        pair p = {&a.s, &b.s, NULL, NULL, kcbp2d_motion_still(0, 0, 0), rnd_motion(&rng, true)};
        double x = test_rng_range(&rng, -1, 1), y = test_rng_range(&rng, -1, 1), d = test_rng_range(&rng, -180, 180);
        p.mo_a.to = kcbp_v2_make(x, y);
        p.mo_a.from_deg = p.mo_a.to_deg = d;
        if (trial % 3 == 0) { /* A turns, B translates */
            kcbp2d_motion t = p.mo_a;
            p.mo_a = p.mo_b, p.mo_b = t;
            p.mo_a.from = kcbp_v2_scale(p.mo_a.from, 0.3), p.mo_a.to = kcbp_v2_scale(p.mo_a.to, 0.3);
            p.mo_b.from = kcbp_v2_make(-6, x), p.mo_b.to = kcbp_v2_make(6, y);
        }
        check(&p, 4000, &ty);
    }
    print_message("one turning: %d hits (%d confirmed, %d before the samples' contact), %d misses\n", ty.hits,
                  ty.confirmed, ty.early, ty.misses);
    assert_true(ty.hits > 50 && ty.misses > 20);
    assert_true(ty.confirmed >= ty.hits * 9 / 10);
}

/* One body spins fast (up to 1500 degrees either way) far off its origin,
 * the other translates, in both orders, over short motions that start
 * near contact: each step's bound is then taken over a large turn, where
 * its higher-order terms (the carried axis's third and fifth order, the
 * world-fixed axis's second to fourth, their tangents at the candidate)
 * decide whether a step passes a contact. */
static void test_convex_spinning_one(void **state)
{
    (void)state;
    test_rng rng = {14};
    tally ty = {0, 0, 0, 0};
    for (int trial = 0; trial < 400; trial++) {
        tshape a, b;
        rnd_polygon(&rng, 1.0, 0, &a);
        rnd_polygon(&rng, 1.0, 0, &b);
        tshape *spun = trial % 2 ? &b : &a;
        double ox = test_rng_range(&rng, -2.5, 2.5), oy = test_rng_range(&rng, -2.5, 2.5);
        for (uint32_t i = 0; i < spun->s.npoints; i++)
            spun->pts[i] = kcbp_v2_make(spun->pts[i].x + ox, spun->pts[i].y + oy);
        double d0 = test_rng_range(&rng, -180, 180), turn = test_rng_range(&rng, -1500, 1500);
        double x0 = test_rng_range(&rng, -7, -4), y0 = test_rng_range(&rng, -2, 2);
        double x1 = test_rng_range(&rng, -1, 4), y1 = test_rng_range(&rng, -2, 2);
        kcbp2d_motion spin = {{0, 0}, {0, 0}, d0, d0 + turn};
        kcbp2d_motion slide = {{x0, y0}, {x1, y1}, 20, 20};
        pair p = {&a.s, &b.s, NULL, NULL, spin, slide};
        if (trial % 2) /* B spins about the origin, A slides */
            p.mo_a = slide, p.mo_b = spin;
        check(&p, 8000, &ty);
    }
    print_message("one spinning: %d hits (%d confirmed, %d before the samples' contact), %d misses\n", ty.hits,
                  ty.confirmed, ty.early, ty.misses);
    assert_true(ty.hits > 50);
    assert_true(ty.confirmed >= ty.hits * 9 / 10);
}

/* ---- constructions with known answers ------------------------------------ */

static void test_convex_cases(void **state)
{
    (void)state;
    tally ty = {0, 0, 0, 0};
    kcbp2d_shape box = kcbp2d_shape_box(2, 2, 0), circle = kcbp2d_shape_circle(1);
    kcbp2d_sweep_result r;
    /* already touching at t = 0 (edge on edge), and overlapping */
    pair p = {&box, &box, NULL, NULL, kcbp2d_motion_still(0, 0, 0), {{2, 0}, {5, 0}, 0, 0}};
    r = check(&p, 1000, &ty);
    assert_true(r.hit && r.confirmed && r.toi == 0 && r.distance == 0);
    p.mo_b.from = kcbp_v2_make(1, 0.5);
    r = check(&p, 1000, &ty);
    assert_true(r.hit && r.toi == 0);
    /* head-on: box B from x = -6 to x = 6 meets A when its centre is at -2:
     * t = 4 / 12 */
    p.mo_b = (kcbp2d_motion){{-6, 0.5}, {6, 0.5}, 0, 0};
    r = check(&p, 1000, &ty);
    assert_true(r.hit && r.confirmed && fabs(r.toi - 1.0 / 3) <= 1e-9);
    assert_true(fabs(r.normal.x + 1) < 1e-12 && fabs(r.point_a.x + 1) < 1e-8); /* B on the left */
    /* never: passes above */
    p.mo_b = (kcbp2d_motion){{-6, 2.5}, {6, 2.5}, 0, 0};
    r = check(&p, 1000, &ty);
    assert_false(r.hit);
    assert_true(r.iterations <= 2);
    /* grazing: a circle of radius 1 sliding along the box's top at y = 2
     * touches it exactly when its centre passes x = -1: t = 0.4 */
    p.sb = &circle;
    p.mo_b = (kcbp2d_motion){{-5, 2}, {5, 2}, 0, 0};
    r = check(&p, 1000, &ty);
    /* a graze closes quadratically: advancement stops within the rounding
     * bound of touching (unconfirmed: the exact test at toi + tau still
     * finds the circle a hair above the corner) */
    assert_true(r.hit && r.toi <= 0.4 && r.toi >= 0.4 - 1e-7 && r.distance < 1e-13);
    /* near-touching to 1e-12: parallel 1e-12 above, never touches ... */
    p.sb = &box;
    p.mo_b = (kcbp2d_motion){{-6, 2 + 1e-12}, {6, 2 + 1e-12}, 0, 0};
    r = check(&p, 1000, &ty);
    assert_false(r.hit);
    /* ... head-on, stopping 1e-12 short, and 1e-12 past */
    p.mo_b = (kcbp2d_motion){{-6, 0.5}, {-2 - 1e-12, 0.5}, 0, 0};
    r = check(&p, 1000, &ty);
    assert_false(r.hit);
    p.mo_b = (kcbp2d_motion){{-6, 0.5}, {-2 + 1e-12, 0.5}, 0, 0};
    r = check(&p, 1000, &ty);
    assert_true(r.hit && r.confirmed && r.toi > 1 - 1e-9);
    /* a box turning in place next to another: its corner reaches
     * (sqrt 2 - 1) past its side, so a box 0.2 away (A's side at x = 1.2) is touched when the
     * half-diagonal's x, sqrt(2) cos(45 - deg), reaches 1.2 */
    p.mo_a = kcbp2d_motion_still(2.2, 0, 0);
    p.mo_b = (kcbp2d_motion){{0, 0}, {0, 0}, 0, 90};
    r = check(&p, 4000, &ty);
    double want = (45 - acos(1.2 / sqrt(2)) * 180 / M_PI) / 90;
    assert_true(r.hit && r.confirmed && fabs(r.toi - want) <= 1e-8);
    /* two full turns that never touch, and a half turn on the other side */
    p.mo_a = kcbp2d_motion_still(3.5, 0, 0);
    p.mo_b = (kcbp2d_motion){{0, 0}, {0, 0}, 0, 720};
    r = check(&p, 4000, &ty);
    assert_false(r.hit);
}

/* ---- models -------------------------------------------------------------- */

static kcbp2d_model *model_of(const kcbp_vec2 *pts, const uint32_t *ring_end, uint32_t nrings)
{
    uint32_t pe[1] = {nrings};
    kcbp2d_polygons in = {pts, ring_end, nrings, pe, 1};
    kcbp2d_model *m = NULL;
    kcbp_error e;
    assert_int_equal(kcbp2d_model_build(&in, &m, &e), KCBP_OK);
    return m;
}

/* A 3 x 3 square with a 1 x 1 hole [1, 2]^2. */
static kcbp2d_model *square_with_hole(void)
{
    static const kcbp_vec2 p[] = {{0, 0}, {3, 0}, {3, 3}, {0, 3}, {1, 1}, {1, 2}, {2, 2}, {2, 1}};
    static const uint32_t re[] = {4, 8};
    return model_of(p, re, 2);
}

/* A comb: three teeth pointing up (non-convex), 3 wide. */
static kcbp2d_model *comb(void)
{
    static const kcbp_vec2 p[] = {{0, 0}, {3, 0}, {3, 2}, {2.6, 2}, {2.6, 0.5}, {1.7, 0.5}, {1.7, 2},
                                  {1.3, 2}, {1.3, 0.5}, {0.4, 0.5}, {0.4, 2}, {0, 2}};
    static const uint32_t re[] = {12};
    return model_of(p, re, 1);
}

/* An L. */
static kcbp2d_model *ell(void)
{
    static const kcbp_vec2 p[] = {{0, 0}, {1, 0}, {1, 0.3}, {0.3, 0.3}, {0.3, 1}, {0, 1}};
    static const uint32_t re[] = {6};
    return model_of(p, re, 1);
}

static void test_models(void **state)
{
    (void)state;
    tally ty = {0, 0, 0, 0};
    kcbp2d_model *holed = square_with_hole(), *cm = comb(), *l = ell();
    kcbp2d_shape circle = kcbp2d_shape_circle(0.2), small = kcbp2d_shape_circle(0.1);
    kcbp2d_sweep_result r;
    /* a circle in the hole moving right meets the hole's edge x = 2 when
     * its centre is at 1.8: t = 0.3 */
    pair p = {NULL, &circle, holed, NULL, kcbp2d_motion_still(0, 0, 0), {{1.5, 1.5}, {2.5, 1.5}, 0, 0}};
    r = check(&p, 2000, &ty);
    assert_true(r.hit && r.confirmed && fabs(r.toi - 0.3) <= 1e-9);
    assert_true(r.edge_a != UINT32_MAX && r.edge_b == UINT32_MAX);
    assert_true(fabs(r.normal.x + 1) < 1e-6); /* A's edge x = 2 is right of B */
    /* a circle dropped into the hole from above, along its axis: it meets
     * nothing until the hole's far edge (y = 1 at centre 1.2) */
    p.mo_b = (kcbp2d_motion){{1.5, 5}, {1.5, 0.5}, 0, 0};
    r = check(&p, 2000, &ty);
    /* it meets the outer top edge first (y = 3 at centre 3.2) */
    assert_true(r.hit && fabs(r.toi - (5 - 3.2) / 4.5) <= 1e-9);
    /* the circle turning in the hole about a point: the sweep rotates B
     * about its own origin, so a circle off its origin orbits */
    kcbp_vec2 c0 = {0.3, 0};
    kcbp2d_shape orbit = kcbp2d_shape_circle(0.1);
    orbit.local[0] = c0;
    p.sb = &orbit;
    p.mo_b = (kcbp2d_motion){{1.5, 1.5}, {1.5, 1.5}, 0, 360};
    r = check(&p, 4000, &ty);
    assert_false(r.hit); /* 0.4 < 0.5 from the centre: free all round */
    /* model against model: an L moving and turning into a comb's teeth */
    test_rng rng = {13};
    for (int trial = 0; trial < 60; trial++) {
        double y0 = test_rng_range(&rng, -1, 3), y1 = test_rng_range(&rng, -1, 3);
        double d0 = test_rng_range(&rng, -180, 180), d1 = d0 + test_rng_range(&rng, -200, 200);
        pair q = {NULL, NULL, cm, l, kcbp2d_motion_still(0, 0, 0), {{-3, y0}, {5, y1}, d0, d1}};
        if (trial % 2)
            q.mo_b.from_deg = q.mo_b.to_deg = d0;
        check(&q, 3000, &ty);
        /* and a small circle against the comb */
        pair s = {NULL, &small, cm, NULL, kcbp2d_motion_still(0, 0, 0), {{-1, y0}, {4, y1}, d0, d1}};
        check(&s, 3000, &ty);
    }
    print_message("models: %d hits (%d confirmed, %d before the samples' contact), %d misses\n", ty.hits,
                  ty.confirmed, ty.early, ty.misses);
    assert_true(ty.hits > 20 && ty.misses > 5);
    /* near-touching to 1e-12: the L head-on into the comb's side, stopping
     * 1e-12 short and 1e-12 past */
    pair q = {NULL, NULL, cm, l, kcbp2d_motion_still(0, 0, 0), {{-3, 1}, {-1 - 1e-12, 1}, 0, 0}};
    r = check(&q, 1000, &ty);
    assert_false(r.hit);
    q.mo_b.to.x = -1 + 1e-12;
    r = check(&q, 1000, &ty);
    assert_true(r.hit && r.confirmed && r.toi > 1 - 1e-9);
    kcbp2d_model_free(holed);
    kcbp2d_model_free(cm);
    kcbp2d_model_free(l);
}


/* Game-like grazing contacts (the second held-out hunt): a circle and a
 * capsule rolling at exactly the height of a ledge's top onto its corner
 * (the distance falls as the square of the time left: conservative
 * advancement alone crawled, 10000 steps and "undecided"), a rounded box
 * falling to rest on the ledge at the motion's end, and one passing an
 * ulp above the corner. Grazing, the distance within the tolerance
 * (1e-9 times the motion's bound) comes up to ~1e-7 before the contact. */
static void test_models_grazing(void **state)
{
    (void)state;
    tally ty = {0, 0, 0, 0};
    const kcbp_vec2 ledge[6] = {{0, 0}, {10, 0}, {10, 5}, {6, 5}, {6, 2}, {0, 2}};
    kcbp2d_model *m = NULL;
    assert_int_equal(kcbp2d_model_build_polygon(ledge, 6, &m, NULL), KCBP_OK);
    kcbp2d_shape circle = kcbp2d_shape_circle(0.5), capsule = kcbp2d_shape_capsule(0.5, 1);
    kcbp2d_shape rounded = kcbp2d_shape_box(1, 1, 0.25);
    /* the circle's centre reaches x = 0 (the corner (0, 2) below it at
     * 0.5) at t = 3/5; the capsule's right cap centre at t = 1/2 */
    pair p = {NULL, &circle, m, NULL, kcbp2d_motion_still(0, 0, 0), {{-3, 2.5}, {2, 2.5}, 0, 0}};
    kcbp2d_sweep_result r = check(&p, 2000, &ty);
    assert_true(r.hit && r.toi <= 0.6 && r.toi > 0.6 - 1e-6 && r.iterations < 500);
    /* rolling: two turns clockwise (a circle about its centre) */
    p.mo_b.to_deg = -720;
    r = check(&p, 2000, &ty);
    assert_true(r.hit && r.toi <= 0.6 && r.toi > 0.6 - 1e-6 && r.iterations < 500);
    p.mo_b.to_deg = 0;
    p.sb = &capsule;
    r = check(&p, 2000, &ty);
    assert_true(r.hit && r.toi <= 0.5 && r.toi > 0.5 - 1e-6 && r.iterations < 500);
    /* turned by a quarter: the capsule upright, its lower cap rolling */
    p.mo_b = (kcbp2d_motion){{-3, 3}, {2, 3}, 90, 90};
    r = check(&p, 2000, &ty);
    assert_true(r.hit && r.toi <= 0.6 && r.toi > 0.6 - 1e-6 && r.iterations < 500);
    /* an ulp above: it passes over, a hit only within the tolerance */
    p.sb = &circle;
    p.mo_b = (kcbp2d_motion){{-3, nextafter(2.5, 3)}, {2, nextafter(2.5, 3)}, 0, 0};
    r = check(&p, 2000, &ty);
    assert_true(r.iterations < 500);
    /* the rounded box falling onto the ledge, resting on it at t = 1 */
    p.sb = &rounded;
    p.mo_b = (kcbp2d_motion){{3, 9}, {3, 2.75}, 0, 0};
    r = check(&p, 2000, &ty);
    assert_true(r.hit && r.toi > 1 - 1e-8 && r.iterations < 500);
    /* and sliding at the step's height onto its corner (6, 5): the flat
     * bottom's end reaches it at x = 5.5, t = 3.5 / 8 */
    p.mo_b = (kcbp2d_motion){{2, 5.75}, {10, 5.75}, 0, 0};
    r = check(&p, 2000, &ty);
    assert_true(r.hit && r.toi <= 0.4375 && r.toi > 0.4375 - 1e-6 && r.iterations < 500);
    kcbp2d_model_free(m);
}

/* ---- contract: errors, the cap, growable structs ------------------------- */

static void test_contract(void **state)
{
    (void)state;
    kcbp2d_shape a = kcbp2d_shape_box(2, 2, 0), b = kcbp2d_shape_circle(0.5);
    kcbp2d_motion still = kcbp2d_motion_still(0, 0, 0), mv = {{-5, 0}, {5, 0}, 0, 0};
    kcbp2d_sweep_result r;
    kcbp_error e;
    kcbp2d_sweep_options zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(kcbp2d_sweep(&a, &still, &b, &mv, &zero, &r, &e), KCBP_ERR_INVALID);
    assert_non_null(strstr(e.msg, "kcbp2d_sweep_options_default"));
    kcbp2d_sweep_options o = kcbp2d_sweep_options_default();
    o.t_tolerance = 0;
    assert_int_equal(kcbp2d_sweep(&a, &still, &b, &mv, &o, &r, &e), KCBP_ERR_INVALID);
    o = kcbp2d_sweep_options_default();
    kcbp2d_motion bad = mv;
    bad.to.x = NAN;
    assert_int_equal(kcbp2d_sweep(&a, &still, &b, &bad, &o, &r, &e), KCBP_ERR_INVALID);
    bad = mv;
    bad.to_deg = INFINITY;
    assert_int_equal(kcbp2d_sweep(&a, &still, &b, &bad, &o, &r, &e), KCBP_ERR_INVALID);
    kcbp2d_shape badc = kcbp2d_shape_circle(-1);
    assert_int_equal(kcbp2d_sweep(&a, &still, &badc, &mv, &o, &r, &e), KCBP_ERR_INVALID);
    assert_int_equal(kcbp2d_sweep_sized(&a, &still, &b, &mv, &o, &r, 8, &e), KCBP_ERR_INVALID);
    /* a polygon's vertices as kcbp2d_shape_check takes them: beyond
     * KCBP_COORD_MAX (by far, and by a hair where the largest square is
     * just above the limit's) or NaN, refused with its message */
    kcbp_vec2 far[3] = {{0, 0}, {1, 0}, {2 * KCBP_COORD_MAX, 1}};
    kcbp2d_shape fp = kcbp2d_shape_polygon(far, 3, 0);
    kcbp_error e2;
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            far[2] = kcbp_v2_make(KCBP_COORD_MAX * (1 + 1e-15), 1);
        if (k == 2)
            far[2] = kcbp_v2_make(NAN, 1);
        assert_int_equal(kcbp2d_sweep(&fp, &still, &b, &mv, &o, &r, &e), KCBP_ERR_INVALID);
        assert_int_equal(kcbp2d_shape_check(&fp, &e2), KCBP_ERR_INVALID);
        assert_non_null(strstr(e.msg, e2.msg));
        assert_non_null(strstr(e.msg, "2D sweep: shape A: ")); /* refused by the sweep's own check */
        assert_int_equal(kcbp2d_sweep(&b, &mv, &fp, &still, &o, &r, &e), KCBP_ERR_INVALID);
        assert_non_null(strstr(e.msg, "2D sweep: shape B: "));
    }
    /* the cap: one step cannot settle a turning approach */
    o.max_iterations = 1;
    kcbp2d_motion turn = {{-5, 0.3}, {5, 0.3}, 0, 300};
    kcbp2d_shape stick = kcbp2d_shape_capsule(0.1, 3);
    assert_int_equal(kcbp2d_sweep(&a, &still, &stick, &turn, &o, &r, &e), KCBP_OK);
    assert_true(r.undecided && !r.hit && r.free_until < 1 && r.free_until == r.toi);
    o.max_iterations = 100000;
    assert_int_equal(kcbp2d_sweep(&a, &still, &stick, &turn, &o, &r, &e), KCBP_OK);
    assert_true(r.hit && !r.undecided);
    /* an older, shorter result: written only within its size */
    size_t v1 = offsetof(kcbp2d_sweep_result, distance_queries) + sizeof(int);
    unsigned char buf[sizeof(kcbp2d_sweep_result) + 16];
    memset(buf, 0xab, sizeof buf);
    assert_int_equal(kcbp2d_sweep_sized(&a, &still, &b, &mv, NULL, (kcbp2d_sweep_result *)(void *)buf, v1, &e),
                     KCBP_OK);
    for (size_t i = v1; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0xab);
    /* kcbp2d_motion_at: the ends exactly as the poses "tx ty deg" */
    kcbp2d_motion m = {{1, 2}, {3, 4}, 30, 90};
    kcbp2d_pose p, q;
    assert_int_equal(kcbp2d_motion_at(&m, 1, &p, NULL), KCBP_OK);
    assert_int_equal(kcbp2d_pose_parse("3 4 90", &q, NULL), KCBP_OK);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(kcbp2d_motion_at(&m, 0.5, &p, NULL), KCBP_OK);
    assert_true(p.trans.x == 2 && p.trans.y == 3 && fabs(p.c - 0.5) < 1e-15); /* 60 degrees */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convex_cases),
        cmocka_unit_test(test_convex_translation),
        cmocka_unit_test(test_convex_turning),
        cmocka_unit_test(test_convex_turning_one),
        cmocka_unit_test(test_convex_spinning_one),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_models_grazing),
        cmocka_unit_test(test_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
