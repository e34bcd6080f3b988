/* What the program says about itself: `kcbp --version` and `kcbp version`
 * print "kcbp VERSION" (the headers' KCBP_VERSION_STRING, which the linked
 * library's kcbp_version() must equal), and the top-level help mentions
 * them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* Runs the program with argv (NULL terminated, without the program name). */
static void run(test_run_result *r, const char *const *argv)
{
    test_run_free(r);
    test_run(r, argv);
}

static void test_version(void **state)
{
    (void)state;
    assert_string_equal(kcbp_version(), KCBP_VERSION_STRING);
    test_run_result r = {0};
    const char *expected = "kcbp " KCBP_VERSION_STRING "\n";
    run(&r, (const char *const[]){"--version", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, expected);
    assert_string_equal(r.err, "");
    run(&r, (const char *const[]){"version", NULL});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, expected);
    /* Extra arguments are a usage error, with nothing on stdout. */
    run(&r, (const char *const[]){"version", "extra", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    run(&r, (const char *const[]){"--version", "extra", NULL});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    run(&r, (const char *const[]){"version", "--help", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: kcbp version"));
    run(&r, (const char *const[]){"--help", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--version"));
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests_name("docs", tests, NULL, NULL);
}
