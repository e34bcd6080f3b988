/* The 2D layer's poses, shapes and hulls (pose2d.h, shape2d.h).
 *
 * Oracles: the 3D pose (kcbp_pose_apply of kcbp2d_pose_to_3d) for the 2D
 * pose's rounding; for hulls, the defining property checked by brute force
 * with the exact orient2d: every input point on or inside every hull edge,
 * every hull vertex an input point, the hull strictly convex. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp.h>
#include <kcbp/kcbp2d.h>

#include "convex/convex2d.h"
#include "testutil.h"

static void test_pose_parse(void **state)
{
    (void)state;
    kcbp2d_pose p;
    kcbp_error e;
    assert_int_equal(kcbp2d_pose_parse("1 2 90", &p, &e), KCBP_OK);
    assert_true(p.c == 0.0 && p.s == 1.0 && p.trans.x == 1 && p.trans.y == 2);
    assert_int_equal(kcbp2d_pose_parse("  0\t0 450 ", &p, &e), KCBP_OK);
    assert_true(p.c == 0.0 && p.s == 1.0);
    assert_int_equal(kcbp2d_pose_parse("0 0 -90", &p, &e), KCBP_OK);
    assert_true(p.c == 0.0 && p.s == -1.0);
    assert_int_equal(kcbp2d_pose_parse("0 0 -180", &p, &e), KCBP_OK);
    assert_true(p.c == -1.0 && p.s == 0.0);
    assert_int_equal(kcbp2d_pose_parse("0 0 720", &p, &e), KCBP_OK);
    assert_true(p.c == 1.0 && p.s == 0.0);
    assert_int_equal(kcbp2d_pose_parse("0 0 30", &p, &e), KCBP_OK);
    assert_true(fabs(p.c - sqrt(3) / 2) < 1e-15 && fabs(p.s - 0.5) < 1e-15);
    assert_int_equal(kcbp2d_pose_parse("1 2", &p, &e), KCBP_ERR_PARSE);
    assert_non_null(strstr(e.msg, "2 numbers"));
    assert_int_equal(kcbp2d_pose_parse("1 2 3 4", &p, &e), KCBP_ERR_PARSE);
    assert_int_equal(kcbp2d_pose_parse("1 x 3", &p, &e), KCBP_ERR_PARSE);
    assert_non_null(strstr(e.msg, "'x'"));
    assert_int_equal(kcbp2d_pose_parse("1,2,3", &p, &e), KCBP_ERR_PARSE);
    assert_int_equal(kcbp2d_pose_parse("nan 0 0", &p, &e), KCBP_ERR_INVALID);
    assert_int_equal(kcbp2d_pose_parse("0 0 inf", &p, &e), KCBP_ERR_INVALID);
    assert_int_equal(kcbp2d_pose_parse("1e61 0 0", &p, &e), KCBP_ERR_INVALID);
    assert_int_equal(kcbp2d_pose_parse("", &p, &e), KCBP_ERR_PARSE);
}

/* The 2D pose moves a point to the same doubles as the 3D library's pose
 * at z = 0 (the "same input at z = 0" the 2D tests compare against). */
static void test_pose_matches_3d(void **state)
{
    (void)state;
    test_rng r = {12345};
    for (int i = 0; i < 20000; i++) {
        kcbp2d_pose p;
        double sc = pow(10, test_rng_range(&r, -6, 6));
        assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -sc, sc), test_rng_range(&r, -sc, sc),
                                                test_rng_range(&r, -720, 720), &p, NULL),
                         KCBP_OK);
        kcbp_pose p3 = kcbp2d_pose_to_3d(&p);
        kcbp_vec2 x = {test_rng_range(&r, -sc, sc), test_rng_range(&r, -sc, sc)};
        kcbp_vec2 y = kcbp2d_pose_apply(&p, x);
        kcbp_vec3 y3 = kcbp_pose_apply(&p3, kcbp_v3(x.x, x.y, 0));
        assert_true(y.x == y3.x && y.y == y3.y && y3.z == 0);
    }
}

static void test_shape_check(void **state)
{
    (void)state;
    kcbp_error e;
    kcbp2d_shape s = kcbp2d_shape_circle(1);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_OK);
    s = kcbp2d_shape_circle(0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_circle(NAN);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_capsule(1, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_OK);
    s = kcbp2d_shape_capsule(1, -1);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_box(2, 3, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_OK);
    assert_true(s.local[0].x == 1 && s.local[0].y == 1.5);
    s = kcbp2d_shape_box(2, 0, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_box(2, 2, -1);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_segment(kcbp_v2_make(0, 0), kcbp_v2_make(INFINITY, 0));
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);

    const kcbp_vec2 ccw[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    const kcbp_vec2 cw[4] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}};
    const kcbp_vec2 collinear[4] = {{0, 0}, {1, 0}, {2, 0}, {1, 1}};
    const kcbp_vec2 repeated[4] = {{0, 0}, {1, 0}, {1, 0}, {1, 1}};
    /* a pentagram: every turn left, but its edges wind twice */
    kcbp_vec2 star[5];
    for (int i = 0; i < 5; i++)
        star[i] = kcbp_v2_make(cos(4 * M_PI * i / 5), sin(4 * M_PI * i / 5));
    s = kcbp2d_shape_polygon(ccw, 4, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_OK);
    s = kcbp2d_shape_polygon(ccw, 4, 0.5);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_OK);
    s = kcbp2d_shape_polygon(ccw, 2, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_polygon(cw, 4, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    assert_non_null(strstr(e.msg, "convex"));
    s = kcbp2d_shape_polygon(collinear, 4, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_polygon(repeated, 4, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    s = kcbp2d_shape_polygon(star, 5, 0);
    assert_int_equal(kcbp2d_shape_check(&s, &e), KCBP_ERR_INVALID);
    assert_string_equal(kcbp2d_shape_kind_name(KCBP2D_CAPSULE), "capsule");
}

/* Brute-force check of a hull of pts (see the top of the file). */
static void check_hull(const kcbp_vec2 *pts, size_t n, const kcbp_vec2 *h, size_t nh)
{
    for (size_t i = 0; i < nh; i++) {
        bool found = false;
        for (size_t k = 0; k < n && !found; k++)
            found = pts[k].x == h[i].x && pts[k].y == h[i].y;
        assert_true(found);
    }
    if (nh >= 3) {
        assert_true(kcbp2d_polygon_is_strictly_convex(h, (uint32_t)nh));
        for (size_t i = 0; i < nh; i++)
            for (size_t k = 0; k < n; k++)
                assert_true(kcbp2d_orient(h[i], h[(i + 1) % nh], pts[k]) >= 0);
    } else if (nh == 2) {
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(kcbp2d_orient(h[0], h[1], pts[k]), 0);
            /* between the two extremes */
            assert_true(fmin(h[0].x, h[1].x) <= pts[k].x && pts[k].x <= fmax(h[0].x, h[1].x));
            assert_true(fmin(h[0].y, h[1].y) <= pts[k].y && pts[k].y <= fmax(h[0].y, h[1].y));
        }
    } else {
        assert_int_equal(nh, 1);
        for (size_t k = 0; k < n; k++)
            assert_true(pts[k].x == h[0].x && pts[k].y == h[0].y);
    }
}

static void test_hull_random(void **state)
{
    (void)state;
    test_rng r = {777};
    kcbp_vec2 pts[200], h[200];
    for (int trial = 0; trial < 3000; trial++) {
        size_t n = 1 + (size_t)(test_rng_uniform(&r) * 199);
        int kind = trial % 5;
        double sc = pow(10, test_rng_range(&r, -100, 100));
        for (size_t i = 0; i < n; i++) {
            double x = test_rng_range(&r, -1, 1), y = test_rng_range(&r, -1, 1);
            if (kind == 1) /* a small grid: many collinear and repeated points */
                x = floor(x * 3), y = floor(y * 3);
            else if (kind == 2) /* all on one line */
                y = 0.5 * x + 0.25;
            else if (kind == 3) /* on a circle: every point a hull vertex, nearly */
                x = cos(7.0 * (double)i), y = sin(7.0 * (double)i);
            pts[i] = kcbp_v2_make(x * sc, y * sc);
        }
        size_t nh = 0;
        assert_int_equal(kcbp2d_hull(pts, n, h, &nh, NULL), KCBP_OK);
        assert_true(nh >= 1 && nh <= n);
        check_hull(pts, n, h, nh);
    }
    kcbp_error e;
    size_t nh;
    assert_int_equal(kcbp2d_hull(pts, 0, h, &nh, &e), KCBP_ERR_INVALID);
    pts[0].x = NAN;
    assert_int_equal(kcbp2d_hull(pts, 1, h, &nh, &e), KCBP_ERR_INVALID);
}

/* A rotated polygon whose nearly collinear vertices lose strict convexity
 * to rounding: the core is the hull of the posed vertices, strictly convex. */
static void test_core_after_rounding(void **state)
{
    (void)state;
    test_rng r = {99};
    int repaired = 0;
    for (int trial = 0; trial < 2000; trial++) {
        /* a vertex an ulp or so below the chord of its neighbours */
        kcbp_vec2 v[4] = {{0, 0}, {1, -1e-16 * test_rng_uniform(&r)}, {2, 0}, {1, 1}};
        kcbp2d_shape s = kcbp2d_shape_polygon(v, 4, 0);
        if (kcbp2d_shape_check(&s, NULL) != KCBP_OK)
            continue;
        kcbp2d_pose p;
        assert_int_equal(kcbp2d_pose_from_angle(0.3, -0.7, test_rng_range(&r, 0, 360), &p, NULL), KCBP_OK);
        kcbp2d_core c;
        assert_int_equal(kcbp2d_core_make(&s, &p, &c, NULL), KCBP_OK);
        assert_true(c.n >= 3 && c.n <= 4);
        assert_true(kcbp2d_polygon_is_strictly_convex(c.v, c.n));
        repaired += c.n == 3;
        kcbp2d_core_free(&c);
    }
    assert_true(repaired > 0); /* the repair did run */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pose_parse),
        cmocka_unit_test(test_pose_matches_3d),
        cmocka_unit_test(test_shape_check),
        cmocka_unit_test(test_hull_random),
        cmocka_unit_test(test_core_after_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
