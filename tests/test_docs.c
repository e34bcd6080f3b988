/* What the program says about itself, and what the man pages say about it:
 * - `kcbp --version` and `kcbp version` print "kcbp VERSION" (the headers'
 *   KCBP_VERSION_STRING, which the linked library's kcbp_version() must
 *   equal), and the top-level help mentions them;
 * - every command of `kcbp --help` has its page man/kcbp-COMMAND.1 and is
 *   named in man/kcbp.1, and every option a command's --help shows is
 *   described in its page, so that a new option cannot ship undocumented.
 * - the example program of docs/library.md compiles, warning-free,
 *   against the library just built, and answers as the page says.
 * The pages are rendered with groff (groff-base, ./scripts/setup.sh) as
 * plain text on very long lines, so that no option is hyphenated.
 * scripts/install_test.sh checks that they render without warnings, and
 * builds tests/install/contract.c against an installed copy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <unistd.h>

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

/* The page man/<name>.1 as plain text (malloc'ed), or NULL if it does not
 * exist; fails the test if groff cannot render it. */
static char *render_page(const char *name)
{
    char path[256], cmd[512];
    snprintf(path, sizeof path, "man/%s.1", name);
    FILE *probe = fopen(path, "r");
    if (!probe)
        return NULL;
    fclose(probe);
    snprintf(cmd, sizeof cmd, "groff -man -Tascii -P-cbou -rLL=2000n -rHY=0 '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p)
        fail_msg("cannot run groff");
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 4096) {
            cap *= 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
    }
    text[len] = '\0';
    int rc = pclose(p);
    if (rc != 0 || len == 0)
        fail_msg("groff failed on %s (status %d): is groff installed? ./scripts/setup.sh installs groff-base", path,
                 rc);
    return text;
}

static bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Whether text holds word as a whole token: not inside a longer option or
 * word (so "--n" is not found in "--no-times"). */
static bool has_token(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool start = p == text || !(word_char(p[-1]) || p[-1] == '-');
        bool end = !(word_char(p[n]) || p[n] == '-');
        if (start && end)
            return true;
    }
    return false;
}

/* Calls check(option, page_text, page) for every option in help: long ones
 * ("--poses") and short ones ("-k" standing alone). */
static int check_options(const char *help, const char *page_text, const char *page)
{
    int missing = 0;
    for (const char *p = help; *p; p++) {
        if (*p != '-' || (p > help && (word_char(p[-1]) || p[-1] == '-')))
            continue;
        const char *q = p + 1;
        if (*q == '-')
            q++;
        if (!(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z'))
            continue;
        const char *e = q;
        while (word_char(*e) || (*e == '-' && word_char(e[1])))
            e++;
        if (q == p + 1 && e != q + 1) /* a short option is one letter: "-based" is a word */
            continue;
        char opt[64];
        snprintf(opt, sizeof opt, "%.*s", (int)(e - p), p);
        if (!has_token(page_text, opt)) {
            print_error("man/%s.1 does not describe %s\n", page, opt);
            missing++;
        }
        p = e - 1;
    }
    return missing;
}

static void test_man_pages(void **state)
{
    (void)state;
    test_run_result r = {0};
    run(&r, (const char *const[]){"--help", NULL});
    assert_int_equal(r.status, 0);
    char *top = render_page("kcbp");
    if (!top)
        fail_msg("man/kcbp.1 is missing");
    int missing = check_options(r.out, top, "kcbp");
    /* The commands: the lines "  NAME  summary" after "commands:". */
    const char *list = strstr(r.out, "commands:\n");
    assert_non_null(list);
    int ncommands = 0;
    for (const char *line = list + strlen("commands:\n"); line[0] == ' ' && line[1] == ' ';) {
        char cmd[32];
        assert_int_equal(sscanf(line, " %31s", cmd), 1);
        ncommands++;
        if (!has_token(top, cmd)) {
            print_error("man/kcbp.1 does not name the command %s\n", cmd);
            missing++;
        }
        if (strcmp(cmd, "version") != 0) {
            char page[64];
            snprintf(page, sizeof page, "kcbp-%s", cmd);
            char *text = render_page(page);
            if (!text) {
                print_error("man/%s.1 is missing\n", page);
                missing++;
            } else {
                test_run_result h = {0};
                run(&h, (const char *const[]){cmd, "--help", NULL});
                assert_int_equal(h.status, 0);
                missing += check_options(h.out, text, page);
                test_run_free(&h);
                free(text);
            }
        }
        const char *next = strchr(line, '\n');
        if (!next)
            break;
        line = next + 1;
    }
    assert_true(ncommands >= 5);
    free(top);
    test_run_free(&r);
    if (missing)
        fail_msg("%d thing(s) the program shows are not in its man pages", missing);
}

/* Runs a shell command; returns its exit status and its stdout and stderr
 * (malloc'ed) in *out. */
static int shell(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        fail_msg("cannot run: %s", cmd);
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 1024) {
            cap *= 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
    }
    text[len] = '\0';
    *out = text;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_readme_example(void **state)
{
    (void)state;
    /* Built against the build/libkcbp.a of the normal build; the sanitizer build
     * (KCBP_EXE=build/san/kcbp) would need its runtime to link it. */
    if (strcmp(test_kcbp_exe(), "./build/kcbp") != 0)
        skip();
    FILE *f = fopen("docs/library.md", "r");
    assert_non_null(f);
    static char readme[1 << 18];
    size_t n = fread(readme, 1, sizeof readme - 1, f);
    fclose(f);
    readme[n] = '\0';
    const char *lib = strncmp(readme, "# The library\n", 14) == 0 ? readme : NULL;
    assert_non_null(lib);
    const char *start = strstr(lib, "\n```c\n");
    assert_non_null(start);
    start += strlen("\n```c\n");
    const char *end = strstr(start, "\n```\n");
    assert_non_null(end);

    char dir[] = "/tmp/kcbp-docs-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char src[64], exe[64], cmd[1024];
    snprintf(src, sizeof src, "%s/touch.c", dir);
    snprintf(exe, sizeof exe, "%s/touch", dir);
    f = fopen(src, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(start, 1, (size_t)(end - start) + 1, f), (size_t)(end - start) + 1);
    assert_int_equal(fclose(f), 0);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd,
             "%s -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude -o %s %s build/libkcbp.a "
             "$(pkg-config --libs qhull_r libcjson gmp) -lm -lpthread 2>&1",
             cc && *cc ? cc : "cc", exe, src);
    char *out;
    int rc = shell(cmd, &out);
    if (rc != 0)
        fail_msg("the README's example does not compile:\n%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s meshes/bunny2.obj meshes/spot.obj 0.5 30 2>&1", exe);
    assert_int_equal(shell(cmd, &out), 0);
    const char *expect = "touch (decided by mesh)\ntriangle "; /* which triangles: the first contact found */
    if (strncmp(out, expect, strlen(expect)) != 0)
        fail_msg("the README's example said: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s meshes/bunny2.obj meshes/spot.obj 3 30 2>&1", exe);
    assert_int_equal(shell(cmd, &out), 0);
    assert_string_equal(out, "apart (decided by aabb)\n");
    free(out);
    snprintf(cmd, sizeof cmd, "%s /nonexistent/a.obj meshes/spot.obj 3 30 2>&1", exe);
    assert_int_equal(shell(cmd, &out), 3);
    assert_non_null(strstr(out, "/nonexistent/a.obj"));
    free(out);
    unlink(exe);
    unlink(src);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_man_pages),
        cmocka_unit_test(test_readme_example),
    };
    return cmocka_run_group_tests_name("docs", tests, NULL, NULL);
}
