/* kcbp collide and kcbp distance on 2D inputs (cli/twod_cmd.c): reports,
 * against the library's answers, and the errors for mixing 2D with 3D. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "testutil.h"

static char dir[] = "/tmp/kcbp_cli2d_XXXXXX";
static char frame[256], square[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(frame, sizeof frame, "%s/frame.geojson", dir);
    snprintf(square, sizeof square, "%s/square.geojson", dir);
    write_file(frame, "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[4,0],[4,4],[0,4],[0,0]],"
                      "[[1,1],[1,3],[3,3],[3,1],[1,1]]]}");
    write_file(square, "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":"
                       "[[[-0.5,-0.5],[0.5,-0.5],[0.5,0.5],[-0.5,0.5],[-0.5,-0.5]]]}}");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(frame);
    unlink(square);
    rmdir(dir);
    return 0;
}

static cJSON *run_json(test_run_result *r)
{
    if (r->status != 0)
        print_error("status %d: %s\n", r->status, r->err);
    assert_int_equal(r->status, 0);
    cJSON *j = cJSON_Parse(r->out);
    assert_non_null(j);
    return j;
}

static double num(const cJSON *j, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}

static bool flag(const cJSON *j, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    assert_true(cJSON_IsBool(x));
    return cJSON_IsTrue(x);
}

static void test_shapes(void **state)
{
    (void)state;
    test_run_result r = {0};
    /* a unit circle touching a 2 x 2 square at (1, 0): exact */
    test_run_args(&r, "collide", "circle:1", "rect:2:2", "--pose-b", "2 0 0", NULL);
    cJSON *j = run_json(&r);
    assert_true(flag(j, "collide"));
    assert_int_equal((int)num(j, "dimensions"), 2);
    cJSON_Delete(j);
    test_run_args(&r, "collide", "circle:1", "rect:2:2", "--pose-b", "2.000000000000001 0 0", NULL);
    j = run_json(&r);
    assert_false(flag(j, "collide"));
    cJSON_Delete(j);
    test_run_args(&r, "collide", "circle:1", "rect:2:2", "--pose-b", "2.5 0 0", "--margin", "0.5", NULL);
    j = run_json(&r);
    assert_true(flag(j, "collide"));
    cJSON_Delete(j);
    /* distance and depth */
    test_run_args(&r, "distance", "circle:1", "capsule2d:0.5:4", "--pose-b", "0 3 90", NULL);
    j = run_json(&r);
    assert_true(fabs(num(j, "distance") - 0.0) < 1e-15); /* turned upright: it reaches down to y = 0.5 */
    cJSON_Delete(j);
    test_run_args(&r, "distance", "rect:2:2", "rect:2:2", "--pose-b", "1.5 0.25 0", "--signed", NULL);
    j = run_json(&r);
    assert_true(fabs(num(j, "depth") - 0.5) < 1e-15 && fabs(num(j, "signed_distance") + 0.5) < 1e-15);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valuestring, "penetrating");
    assert_true(num(j, "depth_lower") == num(j, "depth") && num(j, "depth_upper") == num(j, "depth"));
    cJSON *tr = cJSON_GetObjectItemCaseSensitive(j, "translation");
    assert_true(fabs(cJSON_GetArrayItem(tr, 0)->valuedouble - 0.5) < 1e-15);
    cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "normal");
    assert_true(cJSON_GetArrayItem(n, 0)->valuedouble == 1 && cJSON_GetArrayItem(n, 1)->valuedouble == 0);
    assert_null(strstr(r.out, "-0,"));  /* no negative zeros */
    assert_null(strstr(r.out, "-0]"));
    cJSON_Delete(j);
    test_run_free(&r);
}

static void test_geojson(void **state)
{
    (void)state;
    test_run_result r = {0};
    test_run_args(&r, "collide", frame, square, "--pose-b", "2 2 0", NULL); /* in the hole */
    cJSON *j = run_json(&r);
    assert_false(flag(j, "collide"));
    cJSON_Delete(j);
    test_run_args(&r, "collide", frame, square, "--pose-b", "1.2 2 0", NULL);
    j = run_json(&r);
    assert_true(flag(j, "collide"));
    /* the square's left edge (3: (-0.5, 0.5) -> (-0.5, -0.5)) crosses nothing;
     * the hole's left edge (4: (1, 1) -> (1, 3)) meets the square's bottom
     * and top edges (0 and 2) */
    cJSON *cs = cJSON_GetObjectItemCaseSensitive(j, "contacts");
    assert_int_equal(cJSON_GetArraySize(cs), 2);
    assert_int_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(cs, 0), 0)->valueint, 4);
    cJSON_Delete(j);
    /* overlapping files: the bracket; the square across the hole's left edge */
    test_run_args(&r, "distance", frame, square, "--pose-b", "1.2 2 0", "--signed", NULL);
    j = run_json(&r);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "status")->valuestring, "bracketed");
    assert_true(num(j, "depth_lower") <= 0.3 + 1e-12 && 0.3 <= num(j, "depth_upper") + 1e-12);
    assert_true(num(j, "depth_upper") < 0.31);
    cJSON_Delete(j);
    test_run_args(&r, "distance", frame, square, "--pose-b", "2 2 0", NULL);
    j = run_json(&r);
    assert_true(fabs(num(j, "distance") - 0.5) < 1e-15);
    cJSON_Delete(j);
    /* a rectangle against a file is a polygon */
    test_run_args(&r, "collide", frame, "rect:1:1", "--pose-b", "-0.5 2 0", NULL);
    j = run_json(&r);
    assert_true(flag(j, "collide"));
    cJSON_Delete(j);
    /* an SVG file against a GeoJSON one */
    char svg[300];
    snprintf(svg, sizeof svg, "%s/disc.svg", dir);
    write_file(svg, "<svg><circle cx=\"0\" cy=\"0\" r=\"0.5\"/></svg>");
    test_run_args(&r, "collide", frame, svg, "--pose-b", "2 2 0", NULL);
    j = run_json(&r);
    assert_false(flag(j, "collide"));
    cJSON_Delete(j);
    test_run_args(&r, "collide", frame, svg, "--pose-b", "2.5 2 0", NULL);
    j = run_json(&r);
    assert_true(flag(j, "collide")); /* its vertex (0.5, 0) on the hole's edge x = 3 */
    cJSON_Delete(j);
    unlink(svg);
    test_run_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    test_run_result r = {0};
    test_run_args(&r, "collide", "circle:1", "sphere:1", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "2D and 3D inputs cannot be mixed"));
    test_run_args(&r, "distance", frame, "cube.obj", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cannot be mixed"));
    /* a circle in the frame's hole, clear; touching its edge; a shape as A */
    test_run_args(&r, "collide", frame, "circle:0.5", "--pose-b", "2 2 0", NULL);
    cJSON *j = run_json(&r);
    assert_false(flag(j, "collide"));
    cJSON_Delete(j);
    test_run_args(&r, "distance", "circle:0.5", frame, "--pose-a", "2 2 0", NULL);
    j = run_json(&r);
    assert_true(fabs(num(j, "distance") - 0.5) < 1e-15);
    cJSON *pa = cJSON_GetObjectItemCaseSensitive(j, "point_a");
    /* on the circle (the four sides of the hole tie) */
    assert_true(fabs(hypot(cJSON_GetArrayItem(pa, 0)->valuedouble - 2, cJSON_GetArrayItem(pa, 1)->valuedouble - 2) - 0.5) <
                1e-15);
    cJSON_Delete(j);
    test_run_args(&r, "collide", "capsule2d:0.5:1", frame, "--pose-a", "2 1.5 0", NULL);
    j = run_json(&r);
    assert_true(flag(j, "collide"));
    cJSON_Delete(j);
    test_run_args(&r, "collide", "circle:1", "rect:1:1", "--pose-b", "1 2 3 4 5 6 7", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--pose-b"));
    test_run_args(&r, "collide", "circle:-1", "rect:1:1", NULL);
    assert_int_equal(r.status, 2);
    test_run_args(&r, "collide", "circle:1", "rect:1", NULL);
    assert_int_equal(r.status, 2);
    test_run_args(&r, "distance", "circle:1", "rect:1:1", "--max-distance", "1", NULL); /* --poses is taken (test_cli2d_sweep) */
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not an option for 2D inputs"));
    char bad[300];
    snprintf(bad, sizeof bad, "%s/open.geojson", dir);
    write_file(bad, "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,1]]]}");
    test_run_args(&r, "collide", bad, "rect:1:1", NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "open.geojson: (root).coordinates[0]: the ring is not closed"));
    unlink(bad);
    test_run_args(&r, "collide", "circle:1", "rect:1:1", "--help", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "tx ty deg"));
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_geojson),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
