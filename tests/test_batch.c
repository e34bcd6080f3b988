/* kcbp_collide_poses, kcbp_poses_from_axis_angle and kcbp_layout (batch.h,
 * layout.h): the C side of the Python package. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* collide_poses answers as kcbp_collide does, pose by pose, with and without
 * options, with A posed too. */
static void test_collide_poses_matches_collide(void **state)
{
    (void)state;
    kcbp_model a, b;
    test_model_load_unit(&a, "bunny2.obj");
    test_model_load_unit(&b, "spot.obj");
    enum { N = 400 };
    kcbp_pose *poses = malloc(N * sizeof *poses);
    uint8_t *out = malloc(N);
    assert_non_null(poses);
    assert_non_null(out);
    test_rng rng = {0x5eed19};
    for (size_t i = 0; i < N; i++)
        poses[i] = test_random_pose(&rng, 1.6);
    kcbp_pose pose_a;
    assert_int_equal(kcbp_pose_from_axis_angle((kcbp_vec3){0.1, 0, 0}, (kcbp_vec3){1, 0, 0}, 20, &pose_a, NULL), KCBP_OK);
    kcbp_collide_options opts = kcbp_collide_options_default();
    opts.contacts = KCBP_CONTACTS_NONE;
    kcbp_collide_result r = {0};
    kcbp_error err = {0};
    for (int with_a = 0; with_a < 2; with_a++) {
        const kcbp_pose *pa = with_a ? &pose_a : NULL;
        kcbp_pose id = kcbp_pose_identity();
        memset(out, 0xff, N);
        assert_int_equal(kcbp_collide_poses(&a, pa, &b, poses, N, with_a ? &opts : NULL, out, &err), KCBP_OK);
        size_t hits = 0;
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(kcbp_collide(&a, pa ? pa : &id, &b, &poses[i], &opts, &r, &err), KCBP_OK);
            assert_int_equal(out[i], r.collide ? 1 : 0);
            hits += out[i];
        }
        assert_true(hits > 0 && hits < N); /* both answers occur */
    }
    assert_int_equal(kcbp_collide_poses(&a, NULL, &b, poses, 0, NULL, NULL, &err), KCBP_OK);
    assert_int_equal(kcbp_collide_poses(&a, NULL, &b, NULL, 3, NULL, out, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "NULL"));
    kcbp_collide_result_free(&r);
    free(poses);
    free(out);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* The bulk conversion rounds as kcbp_pose_from_axis_angle and names the
 * pose that fails. */
static void test_poses_from_axis_angle(void **state)
{
    (void)state;
    const double v[3 * 7] = {1, 2, 3, 0, 0, 1, 30, -1e-3, 0, 7, 1, 2, 3, 123.456, 0, 0, 0, 0, 0, 0, 5};
    kcbp_pose p[3], q;
    kcbp_error err = {0};
    assert_int_equal(kcbp_poses_from_axis_angle(v, 2, p, &err), KCBP_OK);
    for (int i = 0; i < 2; i++) {
        const double *x = v + 7 * i;
        assert_int_equal(kcbp_pose_from_axis_angle((kcbp_vec3){x[0], x[1], x[2]}, (kcbp_vec3){x[3], x[4], x[5]}, x[6],
                                                   &q, NULL),
                         KCBP_OK);
        assert_memory_equal(&p[i], &q, sizeof q);
    }
    assert_int_equal(kcbp_poses_from_axis_angle(v, 3, p, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "pose 2: "));
}

static void test_layout(void **state)
{
    (void)state;
    size_t off = 1, size = 0;
    assert_true(kcbp_layout("kcbp_collide_result", &off, &size));
    assert_int_equal(off, 0);
    assert_int_equal(size, sizeof(kcbp_collide_result));
    assert_true(kcbp_layout("kcbp_collide_result.cbp.distance", &off, &size));
    assert_int_equal(off, offsetof(kcbp_collide_result, cbp.distance));
    assert_int_equal(size, sizeof(double));
    assert_true(kcbp_layout("kcbp_pose.trans", &off, NULL));
    assert_int_equal(off, offsetof(kcbp_pose, trans));
    assert_false(kcbp_layout("kcbp_collide_options.no_such_member", &off, &size));
    assert_false(kcbp_layout("", NULL, NULL));
    assert_false(kcbp_layout(NULL, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collide_poses_matches_collide),
        cmocka_unit_test(test_poses_from_axis_angle),
        cmocka_unit_test(test_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
