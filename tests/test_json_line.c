/* Tests for the collide report's JSON line writer (cli/json_line.c, linked
 * into this test): numbers written once, doubles in the shortest of %.15g,
 * %.16g, %.17g that reads back exactly (integers below 2^53 in full), and
 * valid JSON around them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "json_line.h"
#include "testutil.h"

static void test_format_double(void **state)
{
    (void)state;
    char buf[32];
    struct {
        double v;
        const char *want;
    } fixed[] = {{0, "0"},         {-0.0, "0"},      {1, "1"},        {-42, "-42"},   {0.1, "0.1"},
                 {1e300, "1e+300"}, {0.3, "0.3"},     {NAN, "null"},   {INFINITY, "null"},
                 {0x1p53, "9007199254740992"}, {2.5e-8, "2.5e-08"}, {1.0 / 3, "0.3333333333333333"}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        kcbp_format_double(buf, fixed[i].v);
        assert_string_equal(buf, fixed[i].want);
    }
    /* Random doubles over many magnitudes: read back exactly, and no
     * shorter precision (of 15, 16) would. */
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 100000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v = ldexp((double)(s >> 11) * 0x1p-53, (int)(s % 200) - 100) * ((s >> 3) & 1 ? -1 : 1);
        int n = kcbp_format_double(buf, v);
        assert_int_equal((int)strlen(buf), n);
        assert_true(strtod(buf, NULL) == v);
        if (fabs(v) < 0x1p53 && v == floor(v)) { /* integers: all digits, no exponent */
            assert_null(strpbrk(buf, ".e"));
            continue;
        }
        char shorter[40];
        for (int d = 15; d <= 16; d++) {
            snprintf(shorter, sizeof shorter, "%.*g", d, v);
            if (strtod(shorter, NULL) == v) {
                assert_string_equal(buf, shorter);
                break;
            }
        }
    }
}

static void test_line(void **state)
{
    (void)state;
    kcbp_jl w;
    kcbp_jl_init(&w);
    kcbp_jl_open(&w, '{');
    kcbp_jl_key(&w, "a");
    kcbp_jl_bool(&w, true);
    kcbp_jl_key(&w, "list");
    kcbp_jl_open(&w, '[');
    for (int i = 0; i < 3; i++) {
        kcbp_jl_open(&w, '[');
        kcbp_jl_uint(&w, (uint64_t)i);
        kcbp_jl_uint(&w, UINT64_MAX);
        kcbp_jl_close(&w, ']');
    }
    kcbp_jl_close(&w, ']');
    kcbp_jl_key(&w, "s\"\\\n");
    kcbp_jl_string(&w, "x\"y");
    kcbp_jl_key(&w, "d");
    kcbp_jl_double(&w, 0.1);
    kcbp_jl_close(&w, '}');
    char *line = kcbp_jl_finish(&w);
    assert_non_null(line);
    assert_string_equal(line, "{\"a\":true,\"list\":[[0,18446744073709551615],[1,18446744073709551615],[2,"
                              "18446744073709551615]],\"s\\\"\\\\\\u000a\":\"x\\\"y\",\"d\":0.1}");
    cJSON *doc = cJSON_Parse(line);
    assert_non_null(doc);
    cJSON_Delete(doc);
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_double),
        cmocka_unit_test(test_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
