/* kcbp sweep on 2D inputs (cli/twod_sweep.c) and --poses / --sweeps files
 * of 2D poses (cli/twod_poses.c): reports against closed forms and against
 * the same question asked one pose at a time, the errors naming file:line,
 * and the 2D/3D mixing error. */
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

static char dir[] = "/tmp/kcbp_cli2d_sweep_XXXXXX";
static char frame[256], poses[256], sweeps[256], bad[256];

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
    snprintf(poses, sizeof poses, "%s/poses.txt", dir);
    snprintf(sweeps, sizeof sweeps, "%s/sweeps.txt", dir);
    snprintf(bad, sizeof bad, "%s/bad.txt", dir);
    /* a 4 x 4 square with the hole [1, 3]^2 */
    write_file(frame, "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[4,0],[4,4],[0,4],[0,0]],"
                      "[[1,1],[1,3],[3,3],[3,1],[1,1]]]}");
    write_file(poses, "# x y deg\n2 2 0\n\n1.2 2 0   # touches the hole's left edge\n2 2 45\n-3 -3 0\n");
    write_file(sweeps, "-6 0.5 0 6 0.5 0\n# a comment\n-6 3 0 6 3 0\n0 -5 0 0 5 90\n");
    write_file(bad, "-6 0.5 0 6 0.5 0\n-6 3 0 6 3 0\n1 2 3 4 five 6\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(frame);
    unlink(poses);
    unlink(sweeps);
    unlink(bad);
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

static const cJSON *item(const cJSON *j, const char *k)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
    assert_non_null(x);
    return x;
}

static double num(const cJSON *j, const char *k)
{
    const cJSON *x = item(j, k);
    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}

static double at(const cJSON *j, const char *k, int i) { return cJSON_GetArrayItem(item(j, k), i)->valuedouble; }

/* The lines of an NDJSON output, parsed. */
static int lines_of(const char *out, cJSON **lines, int max)
{
    int n = 0;
    const char *p = out;
    while (*p && n < max) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *s = malloc(len + 1);
        assert_non_null(s);
        memcpy(s, p, len);
        s[len] = 0;
        lines[n] = cJSON_Parse(s);
        assert_non_null(lines[n]);
        free(s);
        n++;
        p += len + (nl != NULL);
    }
    return n;
}

/* The distance from (1, 1) to the segment from (-1.5, 0) to (1.5, 0) turned
 * clockwise by th and moved up by 2. */
static double corner_distance(double th)
{
    double c = cos(th), s = sin(th);
    double x0 = -1.5 * c, y0 = 2 + 1.5 * s, vx = 3 * c, vy = -3 * s;
    double t = ((1 - x0) * vx + (1 - y0) * vy) / (vx * vx + vy * vy);
    t = fmax(0, fmin(1, t));
    return hypot(x0 + t * vx - 1, y0 + t * vy - 1);
}

static void test_sweep_shapes(void **state)
{
    (void)state;
    test_run_result r = {0};
    /* a 2 x 2 box from x = -6 to 6 meets another at the origin when its
     * centre reaches -2: t = 1/3, touching at A's left side */
    test_run_args(&r, "sweep", "rect:2:2", "rect:2:2", "--from", "-6 0.5 0", "--to", "6 0.5 0", NULL);
    cJSON *j = run_json(&r);
    double toi = num(j, "toi");
    assert_true(toi <= 1.0 / 3 && toi > 1.0 / 3 - 1e-9);
    assert_true(cJSON_IsTrue(item(j, "confirmed")));
    assert_true(at(j, "normal", 0) == -1 && at(j, "normal", 1) == 0);
    assert_true(fabs(at(j, "point_a", 0) + 1) < 1e-9 && num(j, "distance") < 1e-9 * num(item(j, "stats"), "motion_bound"));
    assert_int_equal((int)num(j, "dimensions"), 2);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(cJSON_GetArrayItem(item(j, "contacts"), 0), 0)));
    cJSON_Delete(j);
    /* passing above: never */
    test_run_args(&r, "sweep", "rect:2:2", "rect:2:2", "--from", "-6 2.5 0", "--to", "6 2.5 0", NULL);
    j = run_json(&r);
    assert_true(cJSON_IsNull(item(j, "toi")));
    cJSON_Delete(j);
    /* a capsule (core half-length 1.5, radius 0.5) turning clockwise about
     * its centre 2 above the box: its descending right end first comes
     * within 0.5 of the box's corner (1, 1); the angle by bisection on that
     * point-to-segment distance */
    test_run_args(&r, "sweep", "rect:2:2", "capsule2d:0.5:3", "--from", "0 2 0", "--to", "0 2 -90", NULL);
    j = run_json(&r);
    double lo = 0, hi = M_PI / 2;
    for (int k = 0; k < 100; k++) {
        double mid = 0.5 * (lo + hi);
        if (corner_distance(mid) > 0.5)
            lo = mid;
        else
            hi = mid;
    }
    double want = lo / (M_PI / 2);
    toi = num(j, "toi");
    assert_true(toi <= want && toi > want - 1e-8);
    cJSON_Delete(j);
    /* --tolerance and --max-iterations: one step decides nothing here */
    test_run_args(&r, "sweep", "rect:2:2", "capsule2d:0.5:3", "--from", "0 2 0", "--to", "0 2 -90",
                  "--max-iterations", "1", NULL);
    j = run_json(&r);
    assert_true(cJSON_IsNull(item(j, "toi")) && cJSON_IsTrue(item(j, "undecided")));
    assert_true(num(j, "free_until") > 0 && num(j, "free_until") < want);
    cJSON_Delete(j);
    test_run_free(&r);
}

static void test_sweep_models(void **state)
{
    (void)state;
    test_run_result r = {0};
    /* a circle of radius 0.5 in the hole, moving right: meets the hole's
     * right edge (x = 3, edge 6: (3, 3) -> (3, 1)) when its centre is at 2.5 */
    test_run_args(&r, "sweep", frame, "circle:0.5", "--from", "2 2 0", "--to", "4 2 0", NULL);
    cJSON *j = run_json(&r);
    assert_true(fabs(num(j, "toi") - 0.25) < 1e-9);
    const cJSON *c = cJSON_GetArrayItem(item(j, "contacts"), 0);
    assert_int_equal(cJSON_GetArrayItem(c, 0)->valueint, 6);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(c, 1)));
    assert_true(fabs(at(j, "point", 0) - 3) < 1e-9 && fabs(at(j, "normal", 0) + 1) < 1e-9);
    cJSON_Delete(j);
    /* the same with the circle as A (standing) and the frame moving left:
     * the report's sides swapped */
    test_run_args(&r, "sweep", "circle:0.5", frame, "--pose-a", "2 2 0", "--from", "0 0 0", "--to", "-2 0 0", NULL);
    j = run_json(&r);
    assert_true(fabs(num(j, "toi") - 0.25) < 1e-9);
    c = cJSON_GetArrayItem(item(j, "contacts"), 0);
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(c, 0)));
    assert_int_equal(cJSON_GetArrayItem(c, 1)->valueint, 6);
    assert_true(fabs(at(j, "normal", 0) - 1) < 1e-9);
    assert_string_equal(item(item(j, "a"), "shape")->valuestring, "circle");
    cJSON_Delete(j);
    /* a model against itself: the frame dropped onto another from above */
    test_run_args(&r, "sweep", frame, frame, "--from", "0 10 0", "--to", "0 0 0", NULL);
    j = run_json(&r);
    assert_true(fabs(num(j, "toi") - 0.6) < 1e-9);
    cJSON_Delete(j);
    test_run_free(&r);
}

static void test_sweeps_file(void **state)
{
    (void)state;
    test_run_result r = {0};
    test_run_args(&r, "sweep", "rect:2:2", "circle:1", "--sweeps", sweeps, NULL);
    assert_int_equal(r.status, 0);
    cJSON *l[8];
    int n = lines_of(r.out, l, 8);
    assert_int_equal(n, 3);
    static const char *const from[] = {"-6 0.5 0", "-6 3 0", "0 -5 0"}, *const to[] = {"6 0.5 0", "6 3 0", "0 5 90"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal((int)num(l[i], "sweep"), i);
        assert_true((i == 0) == (cJSON_GetObjectItemCaseSensitive(l[i], "a") != NULL)); /* first line only */
        test_run_result one = {0};
        test_run_args(&one, "sweep", "rect:2:2", "circle:1", "--from", from[i], "--to", to[i], NULL);
        cJSON *j = run_json(&one);
        const cJSON *ta = item(j, "toi"), *tb = item(l[i], "toi");
        assert_true(cJSON_IsNull(ta) == cJSON_IsNull(tb));
        if (!cJSON_IsNull(ta))
            assert_true(ta->valuedouble == tb->valuedouble);
        cJSON_Delete(j);
        test_run_free(&one);
        cJSON_Delete(l[i]);
    }
    /* a bad line: the lines before it answered, then file:line */
    test_run_args(&r, "sweep", "rect:2:2", "circle:1", "--sweeps", bad, NULL);
    assert_int_equal(r.status, 3);
    assert_int_equal(lines_of(r.out, l, 8), 2);
    cJSON_Delete(l[0]);
    cJSON_Delete(l[1]);
    assert_non_null(strstr(r.err, "bad.txt:3: 'five' is not a number"));
    test_run_args(&r, "sweep", "rect:2:2", "circle:1", "--sweeps", poses, NULL); /* 3 numbers a line */
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "poses.txt:2: 3 numbers, expected 6"));
    test_run_free(&r);
}

static void test_poses_file(void **state)
{
    (void)state;
    test_run_result r = {0};
    static const char *const pose[] = {"2 2 0", "1.2 2 0", "2 2 45", "-3 -3 0"};
    static const char *const cmds[] = {"collide", "distance"};
    for (int c = 0; c < 2; c++) {
        test_run_args(&r, cmds[c], frame, "rect:1:1", "--poses", poses, NULL);
        assert_int_equal(r.status, 0);
        cJSON *l[8];
        int n = lines_of(r.out, l, 8);
        assert_int_equal(n, 4);
        for (int i = 0; i < n; i++) {
            assert_int_equal((int)num(l[i], "pose"), i);
            test_run_result one = {0};
            test_run_args(&one, cmds[c], frame, "rect:1:1", "--pose-b", pose[i], NULL);
            cJSON *j = run_json(&one);
            if (c == 0)
                assert_true(cJSON_IsTrue(item(j, "collide")) == cJSON_IsTrue(item(l[i], "collide")));
            else
                assert_true(num(j, "distance") == num(l[i], "distance"));
            cJSON_Delete(j);
            test_run_free(&one);
            cJSON_Delete(l[i]);
        }
    }
    /* the hole's answers: free, touching, free, outside */
    test_run_args(&r, "collide", frame, "rect:1:1", "--poses", poses, NULL);
    assert_non_null(strstr(r.out, "\"collide\":false"));
    assert_non_null(strstr(r.out, "\"collide\":true"));
    /* errors: --poses with --pose-b; a line of two numbers */
    test_run_args(&r, "collide", frame, "rect:1:1", "--poses", poses, "--pose-b", "0 0 0", NULL);
    assert_int_equal(r.status, 2);
    test_run_args(&r, "distance", frame, "rect:1:1", "--poses", sweeps, NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "sweeps.txt:1: 6 numbers, expected 3"));
    test_run_free(&r);
}

static void test_mixing(void **state)
{
    (void)state;
    test_run_result r = {0};
    test_run_args(&r, "sweep", "circle:1", "sphere:1", "--from", "0 0 0", "--to", "1 0 0", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "2D and 3D inputs cannot be mixed"));
    test_run_args(&r, "sweep", "circle:1", "circle:1", "--from", "0 0 0", "--to", "1 0 0", "--no-cbp", NULL);
    assert_int_equal(r.status, 2);
    test_run_args(&r, "sweep", "circle:1", "circle:1", "--from", "0 0 0 1", "--to", "1 0 0", NULL);
    assert_int_equal(r.status, 2);
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_shapes), cmocka_unit_test(test_sweep_models), cmocka_unit_test(test_sweeps_file),
        cmocka_unit_test(test_poses_file),   cmocka_unit_test(test_mixing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
