/* Poses in their three written forms (include/kcbp/pose.h): "tx ty tz ax ay
 * az deg", "quat tx ty tz qw qx qy qz" and "matrix" with 12 or 16 numbers,
 * on a line alone, two to a sweep line in any mix, and as a scene object's
 * "rotation" ({"quaternion": ...}, {"matrix": ...}). Each quaternion is
 * checked against the formula the header documents, evaluated here, and
 * against the axis-angle rotation it stands for; each matrix is taken to the
 * bit; every refusal names its form, and in files the file and line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

static char tmpdir[] = "/tmp/kcbp-pose-XXXXXX";

static bool same_pose(const kcbp_pose *a, const kcbp_pose *b) { return !memcmp(a, b, sizeof *a); }

static double max_diff(const kcbp_mat3 *a, const kcbp_mat3 *b)
{
    double d = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            d = fmax(d, fabs(a->m[i][j] - b->m[i][j]));
    return d;
}

/* The documented quaternion formula, written out again. */
static kcbp_mat3 quat_formula(double w, double x, double y, double z)
{
    double s = 2.0 / (w * w + x * x + y * y + z * z);
    kcbp_mat3 r = {{{1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y)},
                    {s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x)},
                    {s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y)}}};
    return r;
}

static void expect_error(const char *text, const char *needle)
{
    kcbp_pose p;
    kcbp_error err = {0};
    if (kcbp_pose_parse(text, &p, &err) == KCBP_OK)
        fail_msg("'%s' was accepted", text);
    if (!strstr(err.msg, needle))
        fail_msg("'%s': expected '%s' in the message, got '%s'", text, needle, err.msg);
}

static kcbp_pose parse_ok(const char *text)
{
    kcbp_pose p;
    kcbp_error err = {0};
    if (kcbp_pose_parse(text, &p, &err) != KCBP_OK)
        fail_msg("'%s': %s", text, err.msg);
    return p;
}

static void test_plain_form_unchanged(void **state)
{
    (void)state;
    kcbp_pose want;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0.5, -1, 2), kcbp_v3(1, 2, 3), 30, &want, NULL), KCBP_OK);
    kcbp_pose p = parse_ok("  0.5 -1 2 1 2 3 30 \t");
    assert_true(same_pose(&p, &want));
    /* A quaternion typed without its word stays an axis and an angle. */
    p = parse_ok("0.5 0 0 0.7071 0 0 0.7071");
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0.5, 0, 0), kcbp_v3(0.7071, 0, 0), 0.7071, &want, NULL),
                     KCBP_OK);
    assert_true(same_pose(&p, &want));
    expect_error("1 2 3 4 5 6", "pose has 6 numbers, expected 7");
    expect_error("1 2 3 4 5 6 7 8", "pose has more than 7 numbers");
    expect_error("0 0 0 0 0 0 10", "axis is zero");
}

static void test_quat(void **state)
{
    (void)state;
    test_rng rng = {0x9e3779b97f4a7c15ull};
    for (int i = 0; i < 500; i++) {
        kcbp_vec3 u = test_rng_unit_vector(&rng);
        double deg = test_rng_range(&rng, -360, 360), h = deg * (M_PI / 360.0);
        double w = cos(h), x = sin(h) * u.x, y = sin(h) * u.y, z = sin(h) * u.z;
        char line[256];
        snprintf(line, sizeof line, "quat 1.5 -2 3e-3 %.17g %.17g %.17g %.17g", w, x, y, z);
        kcbp_pose p = parse_ok(line);
        kcbp_mat3 f = quat_formula(w, x, y, z);
        assert_memory_equal(&p.rot, &f, sizeof f); /* the documented rounding, to the bit */
        assert_true(p.trans.x == 1.5 && p.trans.y == -2 && p.trans.z == 3e-3);
        kcbp_pose q;
        assert_int_equal(kcbp_pose_from_quat(kcbp_v3(1.5, -2, 3e-3), w, x, y, z, &q, NULL), KCBP_OK);
        assert_true(same_pose(&p, &q));
        /* the rotation it stands for: the axis-angle one, to rounding */
        kcbp_pose aa;
        assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), u, deg, &aa, NULL), KCBP_OK);
        assert_true(max_diff(&p.rot, &aa.rot) < 1e-15);
        /* -q is the same rotation, to the bit */
        assert_int_equal(kcbp_pose_from_quat(kcbp_v3(1.5, -2, 3e-3), -w, -x, -y, -z, &q, NULL), KCBP_OK);
        assert_true(same_pose(&p, &q));
    }
    /* The identity, exactly, as the plain identity. */
    kcbp_pose id = parse_ok("quat 0 0 0 1 0 0 0"), plain = parse_ok("0 0 0 0 0 1 0");
    assert_true(same_pose(&id, &plain));
    /* Unit to 1e-6: a printed quaternion of 8 digits passes, 4 do not, and
     * nothing is normalised silently beyond that. */
    kcbp_pose p = parse_ok("quat 0.5 0 0 0.70710678 0 0 0.70710678");
    kcbp_mat3 f = quat_formula(0.70710678, 0, 0, 0.70710678);
    assert_memory_equal(&p.rot, &f, sizeof f);
    expect_error("quat 0.5 0 0 0.7071 0 0 0.7071", "not a unit quaternion");
    expect_error("quat 0 0 0 2 0 0 0", "not a unit quaternion");
    expect_error("quat 0 0 0 0 0 0 0", "not a unit quaternion");
    parse_ok("quat 0 0 0 1.0000009 0 0 0");
    expect_error("quat 0 0 0 1.0000011 0 0 0", "not a unit quaternion");
    expect_error("quat 0 0 0 1 0 0", "quat has 6 numbers, expected 7");
    expect_error("quat 0 0 0 1 0 0 0 0", "quat has 8 numbers, expected 7");
    expect_error("quat 0 0 0 nan 0 0 0", "not a finite number");
    expect_error("quat 2e60 0 0 1 0 0 0", "beyond the limit");
}

static void test_matrix(void **state)
{
    (void)state;
    kcbp_pose aa;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0.25, -3, 7), kcbp_v3(1, -2, 0.5), 71, &aa, NULL), KCBP_OK);
    char m12[512], m16[600];
    const kcbp_mat3 *r = &aa.rot;
    snprintf(m12, sizeof m12, "matrix %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g",
             r->m[0][0], r->m[0][1], r->m[0][2], aa.trans.x, r->m[1][0], r->m[1][1], r->m[1][2], aa.trans.y,
             r->m[2][0], r->m[2][1], r->m[2][2], aa.trans.z);
    snprintf(m16, sizeof m16, "%s 0 0 0 1", m12);
    kcbp_pose p = parse_ok(m12);
    assert_true(same_pose(&p, &aa)); /* taken to the bit: the axis-angle pose's own matrix */
    p = parse_ok(m16);
    assert_true(same_pose(&p, &aa));
    /* The tolerance: an entry off by 1e-10 passes, by 1e-8 does not. */
    p = parse_ok("matrix 1.0000000001 0 0 0 0 1 0 0 0 0 1 0");
    assert_true(p.rot.m[0][0] == 1.0000000001); /* kept as written */
    expect_error("matrix 1.00000001 0 0 0 0 1 0 0 0 0 1 0", "not a rigid motion");
    expect_error("matrix 2 0 0 0 0 1 0 0 0 0 1 0", "max |R^T R - I| = 3");
    expect_error("matrix 1 0 0 0 0 1 0 0 0 0 -1 0", "a reflection");
    expect_error("matrix 0 1 0 0 1 0 0 0 0 0 1 0", "a reflection");
    expect_error("matrix 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 2", "last row of the 4x4 matrix is 0 0 0 2");
    expect_error("matrix 1 0 0 0 0 1 0 0 0 0 1 0 1 0 0 1", "expected 0 0 0 1");
    expect_error("matrix 1 0 0 0 0 1 0 0 0 0 1", "matrix has 11 numbers, expected 12");
    expect_error("matrix 1 0 0 0 0 1 0 0 0 0 1 0 0", "matrix has 13 numbers");
    expect_error("matrix", "matrix has 0 numbers");
    expect_error("matrix 1 0 0 inf 0 1 0 0 0 0 1 0", "not a finite number");
    expect_error("matrix 1 0 0 1e61 0 1 0 0 0 0 1 0", "beyond the limit");
    expect_error("quaternion 0 0 0 1 0 0 0", "unknown word 'quaternion'");
    expect_error("0 0 0 0 0 1 0 quat", "pose has more than one pose");
    expect_error("quat 0 0 0 1 0 0 0 matrix 1 0 0 0 0 1 0 0 0 0 1 0", "more than one pose");
    /* The bulk form names the pose. */
    double two[24] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0};
    kcbp_pose out[2];
    kcbp_error err = {0};
    assert_int_equal(kcbp_poses_from_matrices(two, 2, 12, out, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "pose 1: not a rigid motion"));
    assert_int_equal(kcbp_poses_from_matrices(two, 1, 12, out, &err), KCBP_OK);
    assert_int_equal(kcbp_pose_from_matrix(two, 9, out, &err), KCBP_ERR_INVALID);
}

/* A sweeps file: two poses a line, each in any form, read by the reader the
 * CLI uses; and the line's errors with the file and line. */
static void test_sweep_lines(void **state)
{
    (void)state;
    const char *text = "# from then to\n"
                       "quat 1 0 0 1 0 0 0 matrix 1 0 0 2 0 1 0 0 0 0 1 0\n"
                       "matrix 1 0 0 2 0 1 0 0 0 0 1 0 3 0 0 0 0 1 0\n"
                       "matrix 1 0 0 2 0 1 0 0 0 0 1 0 0 0 0 1 3 0 0 0 0 1 0\n"
                       "3 0 0 0 0 1 0 matrix 1 0 0 2 0 1 0 0 0 0 1 0 0 0 0 1\n"
                       "quat 1 0 0 1 0 0 0 3 0 0 0 0 1 0\n"
                       "3 0 0 0 0 1 0 quat 1 0 0 -1 0 0 0\n"
                       "3 0 0 0 0 1 0 4 0 0 0 0 1 0\n";
    const char *path = test_tmp_write_text(tmpdir, "sweeps.txt", text);
    kcbp_pose_reader *r;
    kcbp_error err = {0};
    assert_int_equal(kcbp_pose_reader_open(&r, path, &err), KCBP_OK);
    double from[7] = {1, 2, 2, 3, 1, 3, 3}, to[7] = {2, 3, 3, 2, 3, 1, 4};
    for (int i = 0; i < 7; i++) {
        kcbp_pose two[2];
        bool done;
        if (kcbp_pose_reader_next_n(r, two, 2, &done, &err) != KCBP_OK)
            fail_msg("line %d: %s", i + 2, err.msg);
        assert_false(done);
        kcbp_mat3 id = kcbp_mat3_identity();
        assert_memory_equal(&two[0].rot, &id, sizeof id);
        assert_memory_equal(&two[1].rot, &id, sizeof id);
        assert_true(two[0].trans.x == from[i] && two[1].trans.x == to[i]);
    }
    kcbp_pose two[2];
    bool done;
    assert_int_equal(kcbp_pose_reader_next_n(r, two, 2, &done, &err), KCBP_OK);
    assert_true(done);
    kcbp_pose_reader_close(r);

    static const struct {
        const char *line, *message;
    } bad[] = {
        {"matrix 1 0 0 2 0 1 0 0 0 0 1 0\n", "bad.txt:1: sweep: to-pose is missing"},
        {"quat 1 0 0 1 0 0 0\n", "bad.txt:1: sweep: to-pose is missing"},
        {"quat 1 0 0 1 0 0 0 quat 0 0 0 0.7071 0 0 0.7071\n", "bad.txt:1: sweep: to-pose: quaternion"},
        {"matrix 1 0 0 2 0 1 0 0 0 0 1 0 0 0 0 1 quat 1 0 0 1 0 0 0 quat 1 0 0 1 0 0 0\n",
         "bad.txt:1: sweep has more than two poses"},
        {"matrix 2 0 0 2 0 1 0 0 0 0 1 0 3 0 0 0 0 1 0\n", "bad.txt:1: sweep: from-pose: not a rigid motion"},
        {"3 0 0 0 0 1 0 4 0 0 0 0 1\n", "bad.txt:1: sweep has 13 numbers, expected 14"},
        {"# ok\n\nquat 1 0 0 1 0 0 0 1 2 3\n", "bad.txt:3: sweep: to-pose: pose has 3 numbers, expected 7"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        path = test_tmp_write_text(tmpdir, "bad.txt", bad[i].line);
        assert_int_equal(kcbp_pose_reader_open(&r, path, &err), KCBP_OK);
        kcbp_status st = kcbp_pose_reader_next_n(r, two, 2, &done, &err);
        kcbp_pose_reader_close(r);
        if (st == KCBP_OK || !strstr(err.msg, bad[i].message))
            fail_msg("case %zu: expected '%s', got status %d '%s'", i, bad[i].message, st, err.msg);
    }
    /* One pose a line: a poses file of every form. */
    path = test_tmp_write_text(tmpdir, "poses.txt",
                               "0 0 0 0 0 1 0\nquat 0 0 0 1 0 0 0  # the identity again\nmatrix 1 0 0 0 0 1 0 0 0 0 1 0\n"
                               "quat 0 0 0 0.7071 0 0 0.7071\n");
    kcbp_pose *poses;
    size_t n;
    assert_int_equal(kcbp_pose_load_file(path, &poses, &n, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "poses.txt:4: pose: quaternion (w x y z) = (0.7071 0 0 0.7071) is not a unit"));
}

static void test_scene_rotation(void **state)
{
    (void)state;
    kcbp_pose q;
    double w = 0.9238795325112867, z = 0.3826834323650898; /* 45 degrees about z */
    assert_int_equal(kcbp_pose_from_quat(kcbp_v3(0, 0, 0), w, 0, 0, z, &q, NULL), KCBP_OK);
    const char *text =
        "{\"objects\": ["
        "{\"name\": \"q\", \"mesh\": \"a.obj\", \"position\": [1, 2, 3], \"rotation\": {\"quaternion\": "
        "[0.9238795325112867, 0, 0, 0.3826834323650898]}},"
        "{\"name\": \"m\", \"mesh\": \"a.obj\", \"position\": [0, 0, 0], \"rotation\": {\"matrix\": "
        "[[0, -1, 0], [1, 0, 0], [0, 0, 1]]}},"
        "{\"name\": \"h\", \"mesh\": \"a.obj\", \"position\": [0, 0, 0], \"rotation\": {\"quaternion\": [0, 1, 0, 0]}},"
        "{\"name\": \"a\", \"mesh\": \"a.obj\", \"position\": [0, 0, 0], \"rotation\": {\"axis\": [0, 0, 2], "
        "\"angle_deg\": 30}}]}";
    kcbp_scene s;
    kcbp_error err = {0};
    if (kcbp_scene_parse_into(&s, "s.json", NULL, text, strlen(text), &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    assert_memory_equal(&s.objects[0].rot0, &q.rot, sizeof q.rot);
    kcbp_mat3 quarter = {{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}};
    assert_memory_equal(&s.objects[1].rot0, &quarter, sizeof quarter);
    /* axis and angle_deg are filled in, for reading: the same rotation */
    for (int i = 0; i < 3; i++) {
        const kcbp_scene_obj *o = &s.objects[i];
        kcbp_pose r;
        assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &r, NULL), KCBP_OK);
        assert_true(max_diff(&r.rot, &o->rot0) < 1e-15);
    }
    assert_true(fabs(s.objects[0].angle_deg - 45) < 1e-12 && s.objects[0].axis.z > 0.999999);
    assert_true(fabs(s.objects[2].angle_deg - 180) < 1e-12 && s.objects[2].axis.x > 0.999999);
    kcbp_pose p0 = kcbp_scene_object_pose(&s, 0, 0);
    assert_memory_equal(&p0.rot, &q.rot, sizeof q.rot);
    assert_true(p0.trans.x == 1 && p0.trans.y == 2 && p0.trans.z == 3);
    /* Written back: a quaternion or a matrix as its matrix, an axis-angle
     * rotation as written; it reads back to the same rotations, to the bit. */
    char *out;
    assert_int_equal(kcbp_scene_to_text(&s, false, &out, &err), KCBP_OK);
    assert_non_null(strstr(out, "\"matrix\""));
    assert_non_null(strstr(out, "{\"axis\":[0,0,2],\"angle_deg\":30}"));
    kcbp_scene t;
    if (kcbp_scene_parse_into(&t, "t.json", NULL, out, strlen(out), &err) != KCBP_OK)
        fail_msg("%s\n%s", err.msg, out);
    for (uint32_t i = 0; i < s.nobjects; i++) {
        assert_memory_equal(&s.objects[i].rot0, &t.objects[i].rot0, sizeof s.objects[i].rot0);
        assert_true(s.objects[i].angle_deg == t.objects[i].angle_deg);
    }
    free(out);
    kcbp_scene_clear(&t);
    kcbp_scene_clear(&s);

    static const struct {
        const char *rotation, *message;
    } bad[] = {
        {"{\"quaternion\": [0.7071, 0, 0, 0.7071]}", "s.json: objects[0].rotation.quaternion: quaternion (w x y z)"},
        {"{\"quaternion\": [1, 0, 0]}", "objects[0].rotation.quaternion: expected 4 numbers"},
        {"{\"quaternion\": [1, 0, 0, \"0\"]}", "objects[0].rotation.quaternion: expected a number, got a string"},
        {"{\"matrix\": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}", "objects[0].rotation.matrix: not a rigid motion"},
        {"{\"matrix\": [[1, 0, 0], [0, 1, 0]]}", "objects[0].rotation.matrix: expected 3 rows of 3 numbers"},
        {"{\"matrix\": [[1, 0, 0], [0, 1, 0], [0, 0]]}", "objects[0].rotation.matrix[2]: expected 3 numbers"},
        {"{\"matrix\": [[1.01, 0, 0], [0, 1, 0], [0, 0, 1]]}", "max |R^T R - I|"},
        {"{\"quaternion\": [1, 0, 0, 0], \"axis\": [0, 0, 1]}", "objects[0].rotation: give one form"},
        {"{\"quaternion\": [1, 0, 0, 0], \"matrix\": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}", "give one form"},
        {"{\"quat\": [1, 0, 0, 0]}", "objects[0].rotation.quat: unknown key (expected axis and angle_deg, quaternion"},
        {"[1, 0, 0, 0]", "objects[0].rotation: expected an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, "{\"objects\": [{\"name\": \"o\", \"mesh\": \"a.obj\", \"position\": [0, 0, 0], "
                                  "\"rotation\": %s}]}", bad[i].rotation);
        kcbp_status st = kcbp_scene_parse_into(&s, "s.json", NULL, doc, strlen(doc), &err);
        if (st == KCBP_OK || !strstr(err.msg, bad[i].message))
            fail_msg("case %zu: expected '%s', got status %d '%s'", i, bad[i].message, st, err.msg);
    }
}

/* kcbp_pose_relative of two equal poses is exactly the identity (the
 * rounded inverse(a) * a is a few ulps off it for most rotations); of
 * poses that differ, the plain product. */
static void test_relative_equal(void **state)
{
    (void)state;
    kcbp_pose id = kcbp_pose_identity();
    int off_identity = 0;
    for (int i = 0; i < 500; i++) {
        double t = 0.37 * i, ang = 0.71 * i;
        kcbp_vec3 axis = kcbp_v3(sin(t), cos(1.3 * t), 0.5 + sin(2.1 * t));
        kcbp_pose p;
        assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(t, -t, 2 * t), axis, ang, &p, NULL), KCBP_OK);
        kcbp_pose r = kcbp_pose_relative(&p, &p), copy = p;
        assert_true(same_pose(&r, &id));
        r = kcbp_pose_relative(&p, &copy);
        assert_true(same_pose(&r, &id));
        kcbp_pose inv = kcbp_pose_inverse(&p), prod = kcbp_pose_mul(&inv, &p);
        off_identity += !same_pose(&prod, &id);
        copy.trans.x = nextafter(copy.trans.x, INFINITY);
        r = kcbp_pose_relative(&p, &copy);
        kcbp_pose want = kcbp_pose_mul(&inv, &copy);
        assert_true(same_pose(&r, &want));
    }
    print_message("inverse(p) * p was not exactly the identity for %d of 500 poses\n", off_identity);
    assert_true(off_identity > 0);
}

TEST_TMPDIR_FIXTURES(tmpdir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_form_unchanged), cmocka_unit_test(test_quat), cmocka_unit_test(test_matrix),
        cmocka_unit_test(test_sweep_lines),          cmocka_unit_test(test_scene_rotation),
        cmocka_unit_test(test_relative_equal),
    };
    return cmocka_run_group_tests_name("pose", tests, setup, teardown);
}
