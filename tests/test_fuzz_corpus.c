/* Replays the fuzz targets' inputs without libFuzzer: every file of the seed
 * corpus (tests/fuzz/corpus/<target>/) and every crash reproducer a fuzzing
 * session found (tests/fuzz/regress/<target>/, kept as regression tests)
 * goes through the same target function as in the fuzzer, whose property
 * checks abort on a violation. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fuzz/targets.h"
#include "testutil.h"

typedef int (*target_fn)(const uint8_t *, size_t);

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
        assert_non_null(buf);
    }
    assert_false(ferror(f));
    fclose(f);
    *len = n;
    return buf;
}

/* Runs every regular file of dir through fn; returns how many. */
static int replay_dir(const char *dir, target_fn fn)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        uint8_t *data = read_all(path, &len);
        fn(data, len);
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

static void replay(const char *name, target_fn fn)
{
    char dir[256];
    snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", name);
    int seeds = replay_dir(dir, fn);
    snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", name);
    int regress = replay_dir(dir, fn);
    print_message("%s: %d seeds, %d regression inputs\n", name, seeds, regress);
    assert_true(seeds > 0);
}

static void test_obj(void **state)
{
    (void)state;
    replay("obj", kcbp_fuzz_obj);
}

static void test_scene(void **state)
{
    (void)state;
    replay("scene", kcbp_fuzz_scene);
}

static void test_pose(void **state)
{
    (void)state;
    replay("pose", kcbp_fuzz_pose);
}

static void test_collide(void **state)
{
    (void)state;
    replay("collide", kcbp_fuzz_collide);
}

static void test_stl(void **state)
{
    (void)state;
    replay("stl", kcbp_fuzz_stl);
}

static void test_ply(void **state)
{
    (void)state;
    replay("ply", kcbp_fuzz_ply);
}

static void test_off(void **state)
{
    (void)state;
    replay("off", kcbp_fuzz_off);
}

static void test_geojson(void **state)
{
    (void)state;
    replay("geojson", kcbp_fuzz_geojson);
}

static void test_svg(void **state)
{
    (void)state;
    replay("svg", kcbp_fuzz_svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj),
        cmocka_unit_test(test_scene),
        cmocka_unit_test(test_pose),
        cmocka_unit_test(test_collide),
        cmocka_unit_test(test_stl),
        cmocka_unit_test(test_ply),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_geojson),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests_name("fuzz corpus", tests, NULL, NULL);
}
