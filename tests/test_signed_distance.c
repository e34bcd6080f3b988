/* kcbp_signed_distance (include/kcbp/signed_distance.h), the dispatcher:
 *  - the growable structs: a {0} options struct is refused, a first-release
 *    size takes the defaults for the rest, a result is written only within
 *    the size given;
 *  - apart: the same distance and points as kcbp_distance, the identity
 *    point_b - point_a = signed_distance * normal;
 *  - beyond max_distance: status BEYOND and a lower bound;
 *  - two convex shapes overlapping: minus the depth of closed forms computed
 *    here (spheres), the identity, and B moved by the translation apart;
 *  - a mesh that is not a closed solid, overlapping: KCBP_ERR_GEOMETRY naming
 *    its open edges; apart: answered (its surface's distance);
 *  - kcbp distance --signed: the report's fields, hull:FILE, the exit status
 *    and message for an open mesh, --depth-tolerance checked.
 * The depths themselves are checked against oracles in test_depth_convex.c
 * and test_depth_bracket.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testutil.h"

static kcbp_pose at(double x, double y, double z)
{
    kcbp_pose p = kcbp_pose_identity();
    p.trans = kcbp_v3(x, y, z);
    return p;
}

static void shape_model(kcbp_model *m, kcbp_shape s)
{
    kcbp_error err = {0};
    memset(m, 0, sizeof *m);
    if (kcbp_model_build_shape(m, &s, &err) != KCBP_OK)
        fail_msg("shape: %s", err.msg);
}

/* The unit cube [0,1]^3 as a closed mesh, built as a solid or not. */
static void cube_model(kcbp_model *m, bool solid, bool open)
{
    kcbp_vec3 v[8];
    for (int i = 0; i < 8; i++)
        v[i] = kcbp_v3(i & 1, (i & 2) >> 1, (i & 4) >> 2);
    static const kcbp_tri t[12] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 5, 6}}, {{5, 7, 6}}, {{0, 1, 4}}, {{1, 5, 4}},
                                   {{2, 6, 3}}, {{3, 6, 7}}, {{0, 4, 2}}, {{2, 4, 6}}, {{1, 3, 5}}, {{3, 7, 5}}};
    kcbp_mesh *mesh;
    kcbp_error err = {0};
    assert_int_equal(kcbp_mesh_create(v, 8, t, open ? 11 : 12, &mesh, &err), KCBP_OK);
    kcbp_model_options o = kcbp_model_options_default();
    o.solid = solid;
    memset(m, 0, sizeof *m);
    if (kcbp_model_build(m, mesh, &o, &err) != KCBP_OK)
        fail_msg("cube: %s", err.msg);
}

static void assert_identity(const kcbp_signed_distance_result *r, double tol)
{
    kcbp_vec3 d = kcbp_v3_sub(r->point_b, r->point_a);
    kcbp_vec3 e = kcbp_v3_scale(r->normal, r->signed_distance);
    assert_true(kcbp_v3_len(kcbp_v3_sub(d, e)) <= tol);
    assert_true(fabs(kcbp_v3_len(r->normal) - 1) <= 1e-12);
}

static void test_options_growable(void **state)
{
    (void)state;
    kcbp_model a, b;
    shape_model(&a, kcbp_shape_sphere(1));
    shape_model(&b, kcbp_shape_sphere(1));
    kcbp_pose pa = kcbp_pose_identity(), pb = at(3, 0, 0);
    kcbp_signed_distance_result r;
    kcbp_error err = {0};

    kcbp_signed_distance_options zero;
    memset(&zero, 0, sizeof zero);
    assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, &zero, &r, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "kcbp_signed_distance_options_default"));

    /* A caller compiled against the first release: its size, the rest defaults. */
    kcbp_signed_distance_options o = kcbp_signed_distance_options_default();
    assert_int_equal(o.size, sizeof o);
    assert_true(isinf(o.max_distance));
    o.size = (uint32_t)(offsetof(kcbp_signed_distance_options, use_cbp) + sizeof(bool));
    assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, &o, &r, &err), KCBP_OK);
    assert_true(fabs(r.signed_distance - 1) <= 1e-15);

    /* A result written only within its size: the bytes after stay. */
    unsigned char buf[sizeof(kcbp_signed_distance_result) + 16];
    memset(buf, 0xAB, sizeof buf);
    size_t part = offsetof(kcbp_signed_distance_result, ms) + sizeof(double);
    assert_int_equal(kcbp_signed_distance_sized(&a, &pa, &b, &pb, NULL, (kcbp_signed_distance_result *)buf, part,
                                                &err),
                     KCBP_OK);
    for (size_t i = part; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0xAB);
    assert_int_equal(kcbp_signed_distance_sized(&a, &pa, &b, &pb, NULL, &r, 8, &err), KCBP_ERR_INVALID);

    o = kcbp_signed_distance_options_default();
    o.depth_tolerance = 0;
    assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, &o, &r, &err), KCBP_ERR_INVALID);
    o = kcbp_signed_distance_options_default();
    o.max_steps = 0;
    assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, &o, &r, &err), KCBP_ERR_INVALID);
    o = kcbp_signed_distance_options_default();
    o.max_distance = NAN;
    assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, &o, &r, &err), KCBP_ERR_INVALID);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_apart_is_distance(void **state)
{
    (void)state;
    kcbp_model cube, ball;
    cube_model(&cube, true, false);
    shape_model(&ball, kcbp_shape_sphere(0.25));
    test_rng rng = {32};
    for (int i = 0; i < 200; i++) {
        kcbp_pose pa = test_random_pose(&rng, 0.5), pb = test_random_pose(&rng, 2.5);
        kcbp_distance_result d;
        kcbp_signed_distance_result r;
        kcbp_error err = {0};
        assert_int_equal(kcbp_distance(&cube, &pa, &ball, &pb, NULL, &d, &err), KCBP_OK);
        assert_int_equal(kcbp_signed_distance(&cube, &pa, &ball, &pb, NULL, &r, &err), KCBP_OK);
        if (d.distance > 0) {
            assert_int_equal(r.status, KCBP_SDIST_APART);
            assert_true(r.signed_distance == d.distance);
            assert_true(r.depth == 0 && r.depth_lower == 0 && r.depth_upper == 0);
            assert_identity(&r, 1e-12 * 4);
        } else {
            assert_true(r.signed_distance <= 0);
            assert_true(r.status == KCBP_SDIST_TOUCHING || r.status == KCBP_SDIST_BRACKETED ||
                        r.status == KCBP_SDIST_PENETRATING || r.status == KCBP_SDIST_APART);
        }
        assert_false(isnan(r.signed_distance));
    }
    kcbp_model_free(&cube);
    kcbp_model_free(&ball);
}

static void test_beyond(void **state)
{
    (void)state;
    kcbp_model cube;
    cube_model(&cube, true, false);
    kcbp_pose pa = kcbp_pose_identity(), pb = at(10, 0, 0);
    kcbp_signed_distance_options o = kcbp_signed_distance_options_default();
    o.max_distance = 2;
    kcbp_signed_distance_result r;
    kcbp_error err = {0};
    assert_int_equal(kcbp_signed_distance(&cube, &pa, &cube, &pb, &o, &r, &err), KCBP_OK);
    assert_int_equal(r.status, KCBP_SDIST_BEYOND);
    assert_true(r.distance_lower > 2 && r.distance_lower <= 9);
    assert_true(isinf(r.signed_distance));
    kcbp_model_free(&cube);
}

/* Two spheres: depth r1 + r2 - |c1 - c2| along the centres' line. */
static void test_spheres_overlap(void **state)
{
    (void)state;
    test_rng rng = {7};
    for (int i = 0; i < 500; i++) {
        double r1 = test_rng_range(&rng, 0.1, 2), r2 = test_rng_range(&rng, 0.1, 2);
        kcbp_model a, b;
        shape_model(&a, kcbp_shape_sphere(r1));
        shape_model(&b, kcbp_shape_sphere(r2));
        kcbp_pose pa = test_random_pose(&rng, 3);
        kcbp_vec3 dir = test_rng_unit_vector(&rng);
        double gap = test_rng_range(&rng, 0.01, 0.99) * (r1 + r2);
        kcbp_pose pb = test_random_pose(&rng, 1);
        pb.trans = kcbp_v3_add(pa.trans, kcbp_v3_scale(dir, gap));
        kcbp_signed_distance_result r;
        kcbp_error err = {0};
        assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, NULL, &r, &err), KCBP_OK);
        double want = r1 + r2 - kcbp_v3_len(kcbp_v3_sub(pb.trans, pa.trans));
        double scale = 6;
        assert_int_equal(r.status, KCBP_SDIST_PENETRATING);
        assert_true(fabs(r.depth - want) <= 1e-9 * scale);
        assert_true(r.signed_distance == -r.depth);
        assert_true(r.depth_lower == r.depth && r.depth_upper == r.depth);
        assert_true(kcbp_v3_len(kcbp_v3_sub(r.normal, dir)) <= 1e-9);
        assert_identity(&r, 1e-9 * scale);
        /* point_a on A's sphere, point_b on B's */
        assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(r.point_a, pa.trans)) - r1) <= 1e-12 * scale);
        assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(r.point_b, pb.trans)) - r2) <= 1e-12 * scale);
        /* B moved by a little more than the translation is apart */
        kcbp_pose moved = pb;
        moved.trans = kcbp_v3_add(pb.trans, kcbp_v3_scale(r.normal, r.depth + 1e-7));
        assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &moved, NULL, &r, &err), KCBP_OK);
        assert_int_equal(r.status, KCBP_SDIST_APART);
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
}

static void test_open_mesh(void **state)
{
    (void)state;
    kcbp_model open_cube, ball;
    cube_model(&open_cube, false, true);
    shape_model(&ball, kcbp_shape_sphere(0.3));
    kcbp_pose pa = kcbp_pose_identity(), near = at(0.5, 0.5, 0.1), far = at(3, 0.5, 0.5);
    kcbp_signed_distance_result r;
    kcbp_error err = {0};
    assert_int_equal(kcbp_signed_distance(&open_cube, &pa, &ball, &near, NULL, &r, &err), KCBP_ERR_GEOMETRY);
    assert_non_null(strstr(err.msg, "open edge"));
    assert_int_equal(kcbp_signed_distance(&open_cube, &pa, &ball, &far, NULL, &r, &err), KCBP_OK);
    assert_int_equal(r.status, KCBP_SDIST_APART);
    assert_true(fabs(r.signed_distance - 1.7) <= 1e-12);
    kcbp_model_free(&open_cube);

    /* closed but not built as a solid: told how to build it */
    kcbp_model cube;
    cube_model(&cube, false, false);
    assert_int_equal(kcbp_signed_distance(&cube, &pa, &ball, &near, NULL, &r, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "solid"));
    kcbp_model_free(&cube);
    kcbp_model_free(&ball);
}

static double json_number(const char *text, const char *key)
{
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    const cJSON *v = cJSON_GetObjectItem(doc, key);
    assert_non_null(v);
    double x = cJSON_IsNull(v) ? NAN : v->valuedouble;
    cJSON_Delete(doc);
    return x;
}

static void test_cli_signed(void **state)
{
    (void)state;
    test_run_result r = {0};
    test_run_args(&r, "distance", "sphere:1", "box:2:2:2", "--pose-b", "1.5 0 0 0 0 1 0", "--signed", NULL);
    assert_int_equal(r.status, 0);
    assert_true(fabs(json_number(r.out, "signed_distance") + 0.5) <= 1e-12);
    assert_true(fabs(json_number(r.out, "depth") - 0.5) <= 1e-12);
    assert_non_null(strstr(r.out, "\"status\":\"penetrating\""));
    assert_non_null(strstr(r.out, "\"normal\":[1,0,0]"));

    test_run_args(&r, "distance", "sphere:1", "box:2:2:2", "--pose-b", "5 0 0 0 0 1 0", "--signed", NULL);
    assert_int_equal(r.status, 0);
    assert_true(fabs(json_number(r.out, "signed_distance") - 3) <= 1e-12);
    assert_non_null(strstr(r.out, "\"status\":\"apart\""));

    test_run_args(&r, "distance", "sphere:1", "box:2:2:2", "--pose-b", "50 0 0 0 0 1 0", "--signed",
                  "--max-distance", "2", NULL);
    assert_int_equal(r.status, 0);
    assert_true(isnan(json_number(r.out, "signed_distance")));
    assert_non_null(strstr(r.out, "\"farther_than\":2"));

    /* hull:FILE: the convex hull of a mesh file's vertices, a shape */
    test_run_args(&r, "distance", "hull:meshes/spot.obj", "sphere:0.1", "--pose-b", "9 0 0 0 0 1 0", "--signed",
                  NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"shape\":\"hull\""));
    test_run_args(&r, "distance", "hull:", "sphere:0.1", NULL);
    assert_int_equal(r.status, 2);
    test_run_args(&r, "distance", "hull:/nonexistent.obj", "sphere:0.1", NULL);
    assert_int_equal(r.status, 3);

    /* bunny2 is open: an error naming its open edges when it overlaps */
    test_run_args(&r, "distance", "meshes/bunny2.obj", "sphere:0.2", "--signed", "--pose-b", "0.055 0.2 -0.22 0 0 1 0",
                  NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "open edges"));
    assert_string_equal(r.out, "");
    /* ... and its distance when apart */
    test_run_args(&r, "distance", "meshes/bunny2.obj", "sphere:0.2", "--pose-b", "9 0 0 0 0 1 0", "--signed", NULL);
    assert_int_equal(r.status, 0);
    assert_true(json_number(r.out, "signed_distance") > 7);

    test_run_args(&r, "distance", "sphere:1", "sphere:1", "--signed", "--depth-tolerance", "0", NULL);
    assert_int_equal(r.status, 2);
    test_run_args(&r, "distance", "sphere:1", "sphere:1", "--signed", "--depth-tolerance", "x", NULL);
    assert_int_equal(r.status, 2);
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_growable), cmocka_unit_test(test_apart_is_distance),
        cmocka_unit_test(test_beyond),           cmocka_unit_test(test_spheres_overlap),
        cmocka_unit_test(test_open_mesh),        cmocka_unit_test(test_cli_signed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
