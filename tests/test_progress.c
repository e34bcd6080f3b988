/* Tests for the progress lines (cli/progress.c, linked into this test): the
 * time left as m:ss or h:mm:ss, rounded up; nothing at all unless forced
 * when stderr is not a terminal; with --progress, lines of their own ending
 * with the total and the time taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "progress.h"
#include "testutil.h"

static void test_eta(void **state)
{
    (void)state;
    char buf[32];
    struct {
        double s;
        const char *want;
    } cases[] = {{0, "0:00"},       {0.2, "0:01"},       {59, "0:59"},    {60, "1:00"},   {271, "4:31"},
                 {3599.5, "1:00:00"}, {7425, "2:03:45"}, {-1, "?"},       {1.0 / 0.0, "?"}, {0.0 / 0.0, "?"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kcbp_cli_progress_eta(buf, cases[i].s);
        assert_string_equal(buf, cases[i].want);
    }
}

/* Runs begin, 5 adds, end with stderr sent to a file; returns what was
 * written there (malloc'ed). */
static char *capture(bool forced)
{
    char path[] = "/tmp/kcbp-progress-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    if (forced)
        kcbp_cli_progress_force();
    kcbp_cli_progress_begin("batch", "scenes", 5);
    for (int i = 0; i < 5; i++)
        kcbp_cli_progress_add(1);
    kcbp_cli_progress_end();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char *buf = calloc(1, 4096);
    assert_non_null(buf);
    ssize_t n = pread(fd, buf, 4095, 0);
    assert_true(n >= 0);
    close(fd);
    unlink(path);
    return buf;
}

static void test_silent_unless_forced(void **state)
{
    (void)state;
    char *out = capture(false); /* stderr is a file here: not a terminal */
    assert_string_equal(out, "");
    free(out);
}

static void test_forced_lines(void **state)
{
    (void)state;
    char *out = capture(true);
    /* the last line: everything done, and how long it took */
    assert_non_null(strstr(out, "kcbp batch: 5/5 scenes"));
    assert_non_null(strstr(out, " in 0:0"));
    assert_null(strchr(out, '\r')); /* lines of their own, not a redrawn line */
    assert_int_equal(out[strlen(out) - 1], '\n');
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eta),
        cmocka_unit_test(test_silent_unless_forced),
        cmocka_unit_test(test_forced_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
