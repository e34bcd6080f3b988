/* Issue 12: temporal coherence (kcbp_gjk_simplex_cache). Everything here
 * checks one promise: it makes answers faster, never different. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* ---- helpers ------------------------------------------------------------ */

/* B's pose at step i of n along a trajectory through A: from `from` to `to`
 * (translations) while turning about `axis` by up to `turn` degrees. Steps
 * are small, as between the frames of a moving scene. */
static kcbp_pose trajectory(kcbp_vec3 from, kcbp_vec3 to, kcbp_vec3 axis, double turn, int i, int n)
{
    double t = (double)i / (n - 1);
    kcbp_pose p;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3_add(kcbp_v3_scale(from, 1 - t), kcbp_v3_scale(to, t)), axis,
                                               turn * t, &p, NULL),
                     KCBP_OK);
    return p;
}

/* ---- GJK from a cached simplex ----------------------------------------- */

/* Along a trajectory of B through A, GJK started from the previous simplex
 * gives the verdict the cold GJK gives (unless the distance is within
 * rounding of the margin), a valid lower bound, and needs fewer iterations
 * in all. Junk in the cache is skipped. */
static void warm_gjk_along(const char *name_a, const char *name_b, uint64_t seed)
{
    kcbp_model a, b;
    test_model_load_unit(&a, name_a);
    test_model_load_unit(&b, name_b);
    test_rng rng = {seed};
    int cold_iter = 0, warm_iter = 0, apart = 0, steps = 0;
    for (int path = 0; path < 4; path++) {
        kcbp_vec3 dir = test_rng_unit_vector(&rng);
        kcbp_vec3 axis = test_rng_unit_vector(&rng);
        kcbp_gjk_simplex_cache warm = {0, {0}, {0}};
        const int n = 120;
        for (int i = 0; i < n; i++, steps++) {
            kcbp_pose p = trajectory(kcbp_v3_scale(dir, 4), kcbp_v3_scale(dir, -4), axis, 90, i, n);
            double margin = 1e-8 * 4;
            kcbp_support_cache c1 = {{0, 0}}, c2 = {{0, 0}};
            double low1, low2;
            int it1, it2;
            kcbp_vec3 ax1, ax2;
            int cold = kcbp_gjk_separated(&a.shape, &b.shape, &p, margin, &c1, &low1, &it1, &ax1);
            int hot = kcbp_gjk_separated_warm(&a.shape, &b.shape, &p, margin, &c2, &warm, &low2, &it2, &ax2);
            assert_true(warm.count >= 1 && warm.count <= 4);
            kcbp_gjk_result g;
            kcbp_support_cache c3 = {{0, 0}};
            kcbp_gjk_distance(&a.shape, &b.shape, &p, NULL, &c3, &g);
            if (cold != hot)
                assert_true(fabs(g.distance - margin) <= 1e-9 * 4);
            if (hot)
                assert_true(low2 > margin && low2 <= g.distance * (1 + 1e-9) + 1e-12);
            /* Junk: out of range and repeated indices, an impossible count. */
            kcbp_gjk_simplex_cache junk = {4, {0, 0, UINT32_MAX, 7}, {0, 0, 3, UINT32_MAX}};
            kcbp_gjk_simplex_cache bad_count = {9, {0}, {0}};
            kcbp_support_cache c4 = {{0, 0}}, c5 = {{0, 0}};
            int j1 = kcbp_gjk_separated_warm(&a.shape, &b.shape, &p, margin, &c4, &junk, NULL, NULL, NULL);
            int j2 = kcbp_gjk_separated_warm(&a.shape, &b.shape, &p, margin, &c5, &bad_count, NULL, NULL, NULL);
            if (j1 != cold || j2 != cold)
                assert_true(fabs(g.distance - margin) <= 1e-9 * 4);
            cold_iter += it1;
            warm_iter += it2;
            apart += cold;
        }
    }
    /* Both answers occur, and the warm start saves work. */
    assert_true(apart > steps / 5 && apart < steps - steps / 5);
    assert_true(warm_iter < cold_iter);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_gjk_warm_start(void **state)
{
    (void)state;
    warm_gjk_along("suzanne.obj", "bunny2.obj", 1);
    warm_gjk_along("woody.obj", "suzanne.obj", 2); /* woody is flat: its k-CBP is thickened */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gjk_warm_start),
    };
    return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
