/* Polygons whose holes touch the shell, or each other, at single points
 * (OGC-valid), against GEOS (libgeos-dev; the test is skipped without it):
 *   - which polygons are accepted: kcbp2d_model_build against
 *     GEOSisValid, on random integer-grid polygons with holes snapped to
 *     the shell's and each other's vertices and edges (valid touches, two
 *     touches that cut the interior, crossings, shared segments);
 *   - on the valid ones, posed by whole steps against each other and
 *     against small polygons: collide against GEOSIntersects, distance
 *     against GEOSDistance, and the depth's exact touching test against
 *     GEOSRelatePattern "T********" (the interiors meet).
 * Integer coordinates of at most 60: every predicate on both sides is
 * exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp2d.h>

#include "testutil.h"

#ifdef KCBP_HAVE_GEOS
#include <geos_c.h>

typedef struct {
    kcbp_vec2 pts[64];
    uint32_t ring_end[8];
    uint32_t nrings;
} gpoly;

static int irand(test_rng *r, int lo, int hi) /* in [lo, hi] */
{
    int v = lo + (int)(test_rng_uniform(r) * (hi - lo + 1));
    return v > hi ? hi : v;
}

static uint32_t ring_start(const gpoly *g, uint32_t i) { return i ? g->ring_end[i - 1] : 0; }

/* A random polygon on the grid: a shell (a rectangle or a star of integer
 * points), then 1..3 holes (triangles or quads), each with a first vertex
 * snapped to a shell vertex, to a point of a shell edge, to a vertex of an
 * earlier hole, or inside, the others near it. */
static void gen_poly(test_rng *r, gpoly *g)
{
    uint32_t k = 0;
    if (test_rng_uniform(r) < 0.5) {
        int w = irand(r, 10, 20), h = irand(r, 10, 20);
        kcbp_vec2 q[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
        for (int i = 0; i < 4; i++)
            g->pts[k++] = q[i];
    } else {
        int n = irand(r, 5, 10);
        for (int i = 0; i < n; i++) {
            double t = 2 * M_PI * ((double)i + 0.5 * test_rng_uniform(r)) / n;
            double rad = test_rng_range(r, 8, 13);
            g->pts[k++] = kcbp_v2_make(round(15 + rad * cos(t)), round(15 + rad * sin(t)));
        }
    }
    if (test_rng_uniform(r) < 0.3) /* clockwise */
        for (uint32_t i = 0; i < k / 2; i++) {
            kcbp_vec2 t = g->pts[i];
            g->pts[i] = g->pts[k - 1 - i], g->pts[k - 1 - i] = t;
        }
    g->ring_end[0] = k;
    g->nrings = 1;
    int holes = irand(r, 1, 3);
    for (int h = 0; h < holes; h++) {
        kcbp_vec2 base;
        double u = test_rng_uniform(r);
        if (u < 0.35) {
            base = g->pts[irand(r, 0, (int)g->ring_end[0] - 1)];
        } else if (u < 0.5) { /* the midpoint of a shell edge, when on the grid */
            uint32_t i = (uint32_t)irand(r, 0, (int)g->ring_end[0] - 1), j = (i + 1) % g->ring_end[0];
            base = kcbp_v2_make(floor((g->pts[i].x + g->pts[j].x) / 2), floor((g->pts[i].y + g->pts[j].y) / 2));
        } else if (u < 0.75 && g->nrings > 1) {
            base = g->pts[irand(r, (int)g->ring_end[0], (int)k - 1)];
        } else {
            base = kcbp_v2_make(irand(r, 4, 16), irand(r, 4, 16));
        }
        int n = test_rng_uniform(r) < 0.6 ? 3 : 4;
        g->pts[k] = base;
        for (int i = 1; i < n; i++) {
            double t = 2 * M_PI * ((double)i + 0.3 * test_rng_uniform(r)) / n + (test_rng_uniform(r) < 0.5 ? 0 : M_PI);
            double rad = test_rng_range(r, 1.5, 3.5);
            g->pts[k + i] = kcbp_v2_make(round(base.x + rad * cos(t)), round(base.y + rad * sin(t)));
        }
        k += (uint32_t)n;
        g->ring_end[g->nrings++] = k;
    }
}

static GEOSGeometry *to_geos(GEOSContextHandle_t h, const gpoly *g, kcbp_vec2 off)
{
    GEOSGeometry *rings[8];
    for (uint32_t i = 0; i < g->nrings; i++) {
        uint32_t s = ring_start(g, i), n = g->ring_end[i] - s;
        GEOSCoordSequence *cs = GEOSCoordSeq_create_r(h, n + 1, 2);
        for (uint32_t j = 0; j <= n; j++) {
            kcbp_vec2 p = g->pts[s + j % n];
            GEOSCoordSeq_setXY_r(h, cs, j, p.x + off.x, p.y + off.y);
        }
        rings[i] = GEOSGeom_createLinearRing_r(h, cs);
    }
    return GEOSGeom_createPolygon_r(h, rings[0], g->nrings > 1 ? rings + 1 : NULL, g->nrings - 1);
}

static kcbp2d_model *to_model(const gpoly *g, kcbp_status *st)
{
    uint32_t pe = g->nrings;
    kcbp2d_polygons in = {g->pts, g->ring_end, g->nrings, &pe, 1};
    kcbp2d_model *m = NULL;
    kcbp_error e;
    *st = kcbp2d_model_build(&in, &m, &e);
    return m;
}

/* The polygon is valid and one of its rings meets another (a touch). */
static bool rings_touch(GEOSContextHandle_t h, const GEOSGeometry *p)
{
    int nh = GEOSGetNumInteriorRings_r(h, p);
    const GEOSGeometry *ring[8];
    ring[0] = GEOSGetExteriorRing_r(h, p);
    for (int i = 0; i < nh; i++)
        ring[i + 1] = GEOSGetInteriorRingN_r(h, p, i);
    for (int i = 0; i <= nh; i++)
        for (int j = i + 1; j <= nh; j++)
            if (GEOSIntersects_r(h, ring[i], ring[j]) == 1)
                return true;
    return false;
}

#define NPOLY 20000

static void test_validity_and_queries(void **state)
{
    (void)state;
    GEOSContextHandle_t h = GEOS_init_r();
    test_rng r = {3535};
    static gpoly polys[NPOLY];
    static bool valid[NPOLY];
    int accepted = 0, refused = 0, touching_valid = 0, disagree = 0;
    for (int i = 0; i < NPOLY; i++) {
        gen_poly(&r, &polys[i]);
        kcbp_status st;
        kcbp2d_model *m = to_model(&polys[i], &st);
        GEOSGeometry *gp = to_geos(h, &polys[i], kcbp_v2_make(0, 0));
        char ok = GEOSisValid_r(h, gp);
        assert_true(ok == 0 || ok == 1);
        assert_true(st == KCBP_OK || st == KCBP_ERR_GEOMETRY);
        if ((st == KCBP_OK) != (ok == 1)) {
            char *why = GEOSisValidReason_r(h, gp);
            print_error("polygon %d: kcbp %s, GEOS %s\n", i, st == KCBP_OK ? "accepts" : "refuses", why);
            GEOSFree_r(h, why);
            disagree++;
        }
        valid[i] = st == KCBP_OK && ok == 1;
        if (valid[i] && rings_touch(h, gp))
            touching_valid++;
        accepted += st == KCBP_OK, refused += st != KCBP_OK;
        GEOSGeom_destroy_r(h, gp);
        kcbp2d_model_free(m);
    }
    print_message("validity: %d polygons, %d accepted (%d with rings touching), %d refused, %d disagreements\n",
                  NPOLY, accepted, touching_valid, refused, disagree);
    assert_int_equal(disagree, 0);
    assert_true(touching_valid > 300 && refused > 300);

    /* pairs of valid polygons, B moved by whole steps */
    int pairs = 0, collide = 0, touching = 0, overlapping = 0;
    kcbp2d_pose id = kcbp2d_pose_identity();
    for (int it = 0; it < 3 * NPOLY && pairs < 6000; it++) {
        int i = it % (NPOLY - 1);
        if (!valid[i])
            continue;
        int j = i + 1 + irand(&r, 0, 50);
        while (j < NPOLY && !valid[j])
            j++;
        if (j >= NPOLY)
            continue;
        kcbp_status st;
        /* every other pair: B is one of A's holes filled, moved by at most 2 (half the time not moved)
         * (touching or overlapping where the hole meets the shell) */
        static gpoly fill;
        const gpoly *pj = &polys[j];
        bool filled = pairs % 2 == 1;
        if (filled) {
            uint32_t hole = (uint32_t)irand(&r, 1, (int)polys[i].nrings - 1), s = ring_start(&polys[i], hole);
            memset(&fill, 0, sizeof fill);
            fill.ring_end[0] = polys[i].ring_end[hole] - s, fill.nrings = 1;
            memcpy(fill.pts, polys[i].pts + s, fill.ring_end[0] * sizeof *fill.pts);
            pj = &fill;
        }
        kcbp2d_model *a = to_model(&polys[i], &st), *b = to_model(pj, &st);
        int shift = filled && test_rng_uniform(&r) < 0.5 ? 0 : filled ? 2 : 18;
        int tx = irand(&r, -shift, shift), ty = irand(&r, -shift, shift);
        kcbp2d_pose pb;
        assert_int_equal(kcbp2d_pose_from_angle(tx, ty, 0, &pb, NULL), KCBP_OK);
        GEOSGeometry *ga = to_geos(h, &polys[i], kcbp_v2_make(0, 0)), *gb = to_geos(h, pj, kcbp_v2_make(tx, ty));
        char inter = GEOSIntersects_r(h, ga, gb), meet = GEOSRelatePattern_r(h, ga, gb, "T********");
        double gd = 0;
        assert_int_equal(GEOSDistance_r(h, ga, gb, &gd), 1);
        kcbp2d_model_collide_result cr;
        assert_int_equal(kcbp2d_model_collide(a, &id, b, &pb, NULL, &cr, NULL), KCBP_OK);
        if (cr.collide != (inter == 1))
            print_error("pair %d %d (%d, %d): collide %d, GEOS intersects %d\n", i, j, tx, ty, cr.collide, inter);
        assert_int_equal(cr.collide, inter == 1);
        kcbp2d_model_distance_result dr;
        assert_int_equal(kcbp2d_model_distance(a, &id, b, &pb, &dr, NULL), KCBP_OK);
        assert_true(fabs(dr.distance - gd) <= 1e-12 * 64);
        kcbp2d_model_depth_result pr;
        kcbp2d_model_depth_options o = kcbp2d_model_depth_options_default();
        o.directions = 8, o.grid = 4, o.bisections = 8;
        assert_int_equal(kcbp2d_model_depth(a, &id, b, &pb, &o, &pr, NULL), KCBP_OK);
        assert_int_equal(pr.collide, cr.collide);
        if (cr.collide) {
            if (pr.touching != (meet == 0))
                print_error("pair %d %d (%d, %d): touching %d, GEOS interiors meet %d\n", i, j, tx, ty, pr.touching,
                            meet);
            assert_int_equal(pr.touching, meet == 0);
            if (pr.touching)
                touching++;
            else
                overlapping++, assert_true(pr.depth_upper > 0 && pr.depth_lower <= pr.depth_upper);
        }
        collide += cr.collide;
        pairs++;
        GEOSGeom_destroy_r(h, ga);
        GEOSGeom_destroy_r(h, gb);
        kcbp2d_model_free(a);
        kcbp2d_model_free(b);
    }
    print_message("pairs: %d, %d colliding (%d touching, %d overlapping)\n", pairs, collide, touching, overlapping);
    assert_true(pairs > 1000 && touching > 1000 && overlapping > 1000);
    GEOS_finish_r(h);
}

/* B filling a hole that touches the shell exactly: touching, not
 * overlapping (the shell's wedge at the touch point is cut by the hole's). */
static void test_fill_touching_hole(void **state)
{
    (void)state;
    GEOSContextHandle_t h = GEOS_init_r();
    /* holes: a triangle touching the left side at (0, 5); another touching it at (3, 4) */
    gpoly a = {{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 5}, {3, 4}, {3, 6}, {3, 4}, {5, 3}, {5, 5}}, {4, 7, 10}, 3};
    kcbp_status st;
    kcbp2d_model *ma = to_model(&a, &st);
    assert_int_equal(st, KCBP_OK);
    GEOSGeometry *ga = to_geos(h, &a, kcbp_v2_make(0, 0));
    assert_int_equal(GEOSisValid_r(h, ga), 1);
    for (int hole = 1; hole <= 2; hole++) {
        gpoly b;
        memset(&b, 0, sizeof b);
        uint32_t s = ring_start(&a, (uint32_t)hole), n = a.ring_end[hole] - s;
        for (uint32_t i = 0; i < n; i++)
            b.pts[i] = a.pts[s + i];
        b.ring_end[0] = n, b.nrings = 1;
        kcbp2d_model *mb = to_model(&b, &st);
        assert_int_equal(st, KCBP_OK);
        GEOSGeometry *gb = to_geos(h, &b, kcbp_v2_make(0, 0));
        kcbp2d_pose id = kcbp2d_pose_identity();
        kcbp2d_model_depth_result pr;
        assert_int_equal(kcbp2d_model_depth(ma, &id, mb, &id, NULL, &pr, NULL), KCBP_OK);
        assert_true(pr.collide);
        assert_int_equal(GEOSRelatePattern_r(h, ga, gb, "T********"), 0);
        assert_true(pr.touching);
        assert_true(pr.depth_upper == 0);
        GEOSGeom_destroy_r(h, gb);
        kcbp2d_model_free(mb);
    }
    GEOSGeom_destroy_r(h, ga);
    kcbp2d_model_free(ma);
    GEOS_finish_r(h);
}
#else
static void test_validity_and_queries(void **state)
{
    (void)state;
    skip();
}
static void test_fill_touching_hole(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_touching_hole),
        cmocka_unit_test(test_validity_and_queries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
