/* kcbp_scene_write writes the one-line text object by object (so that
 * kcbp scene --generate thesis --n 10^6 takes the scene's memory, not 2 GB
 * of JSON tree): its bytes must be kcbp_scene_to_text's, then a newline,
 * for static and moving scenes, meshes and shapes, rotations given as axis
 * and angle, quaternion or matrix, spins, velocities, names that need
 * escaping; --pretty is made whole and must match too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/scene.h>
#include <kcbp/scene2d.h>

static const char *const scenes[] = {
    "{\"objects\": [{\"name\": \"a\", \"mesh\": \"a.obj\", \"position\": [0, 0, 0]}]}",
    "{\"objects\": [{\"name\": \"a\", \"mesh\": \"a.obj\", \"position\": [0.1, -2e-300, 1e59], \"scale\": 3}, "
    "{\"name\": \"b\\\"\\\\\\u00e9\", \"shape\": {\"capsule\": {\"radius\": 0.5, \"length\": 2}}, \"position\": [1, 2, 3], "
    "\"rotation\": {\"axis\": [1, 1, 0], \"angle_deg\": 33.3}}, "
    "{\"name\": \"c\", \"shape\": {\"box\": {\"size\": [1, 2, 3]}}, \"position\": [0, 0, 0]}, "
    "{\"name\": \"d\", \"shape\": {\"cylinder\": {\"radius\": 1, \"height\": 2}}, \"position\": [0, 0, 0]}, "
    "{\"name\": \"e\", \"shape\": {\"sphere\": {\"radius\": 1}}, \"position\": [0, 0, 0]}]}",
    "{\"objects\": [\n"
    " {\"name\": \"q\", \"mesh\": \"a.obj\", \"position\": [0, 0, 0], \"rotation\": {\"quaternion\": "
    "[0.9238795325112867, 0, 0, 0.3826834323650898]}, \"velocity\": [1, 0, 0]},\n"
    " {\"name\": \"m\", \"mesh\": \"a.obj\", \"position\": [1, 0, 0], \"rotation\": {\"matrix\": [[0, -1, 0], [1, 0, 0], "
    "[0, 0, 1]]},\n  \"angular_velocity\": {\"axis\": [0, 1, 0], \"deg_per_s\": 90}}],\n"
    " \"motion\": {\"frames\": 3, \"dt\": 0.1}}",
};

static char *written(const kcbp_scene *s, bool pretty)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    kcbp_error e;
    assert_int_equal(kcbp_scene_write(s, f, pretty, &e), KCBP_OK);
    long n = ftell(f);
    assert_true(n > 0);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    rewind(f);
    assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = '\0';
    fclose(f);
    return t;
}

static void test_same_bytes(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        kcbp_scene *s;
        kcbp_error e;
        if (kcbp_scene_parse("t.json", NULL, scenes[k], strlen(scenes[k]), &s, &e) != KCBP_OK)
            fail_msg("scene %zu: %s", k, e.msg);
        for (int pretty = 0; pretty < 2; pretty++) {
            char *text;
            assert_int_equal(kcbp_scene_to_text(s, pretty, &text, &e), KCBP_OK);
            char *w = written(s, pretty);
            size_t n = strlen(text);
            if (strncmp(w, text, n) != 0 || strcmp(w + n, "\n") != 0)
                fail_msg("scene %zu (pretty %d):\nto_text: %s\nwrite:   %s", k, pretty, text, w);
            /* and it reads back to the same text */
            kcbp_scene *back;
            assert_int_equal(kcbp_scene_parse("t.json", NULL, w, strlen(w), &back, &e), KCBP_OK);
            char *again;
            assert_int_equal(kcbp_scene_to_text(back, pretty, &again, &e), KCBP_OK);
            assert_string_equal(again, text);
            free(again), free(text), free(w);
            kcbp_scene_free(back);
        }
        kcbp_scene_free(s);
    }
}

/* A write error is reported, not ignored. */
static void test_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    setvbuf(f, NULL, _IONBF, 0);
    kcbp_scene *s;
    kcbp_error e;
    assert_int_equal(kcbp_scene_parse("t.json", NULL, scenes[2], strlen(scenes[2]), &s, &e), KCBP_OK);
    assert_int_equal(kcbp_scene_write(s, f, false, &e), KCBP_ERR_IO);
    assert_non_null(strstr(e.msg, "t.json: cannot write the scene"));
    kcbp_scene_free(s);
    fclose(f);
}

typedef struct {
    char *p;
    size_t len, calls, stop_after;
} sink;

static bool collect(void *ctx, const char *bytes, size_t len)
{
    sink *k = ctx;
    if (k->stop_after && k->calls >= k->stop_after)
        return false;
    k->calls++;
    char *q = realloc(k->p, k->len + len + 1);
    assert_non_null(q);
    memcpy(q + k->len, bytes, len);
    k->p = q, k->len += len, k->p[k->len] = '\0';
    return true;
}

/* kcbp2d_scene_generate_write: kcbp2d_scene_generate's text in pieces
 * (many, for 20000 parcels), and a writer that refuses stops it with
 * KCBP_ERR_IO at once. */
static void test_generate_2d_pieces(void **state)
{
    (void)state;
    const char *kinds[] = {"parcels", "nesting"};
    uint32_t sizes[] = {1, 7, 20000};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            char *whole;
            kcbp_error e;
            assert_int_equal(kcbp2d_scene_generate(kinds[k], sizes[i], 5, &whole, &e), KCBP_OK);
            sink out = {0};
            assert_int_equal(kcbp2d_scene_generate_write(kinds[k], sizes[i], 5, collect, &out, &e), KCBP_OK);
            assert_string_equal(out.p, whole);
            if (sizes[i] == 20000)
                assert_true(out.calls > 20);
            free(out.p), free(whole);
        }
    sink refuse = {.stop_after = 2};
    kcbp_error e;
    assert_int_equal(kcbp2d_scene_generate_write("parcels", 100000, 1, collect, &refuse, &e), KCBP_ERR_IO);
    assert_int_equal(refuse.calls, 2);
    assert_non_null(strstr(e.msg, "writing the generated scene failed"));
    free(refuse.p);
    sink none = {0};
    assert_int_equal(kcbp2d_scene_generate_write("hexagons", 10, 1, collect, &none, &e), KCBP_ERR_INVALID);
    assert_int_equal(none.calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_generate_2d_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
