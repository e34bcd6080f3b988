/* Issue 33 item 3: the max-only support scan and the box of rotated points
 * (src/convex/scan_bounds.h), which the k-CBP gap and the world boxes now
 * use, give the very numbers of the plain loops they replace: the largest
 * kcbp_v3_dot, and the box of every kcbp_mat3_mul_v3 (then moved: the box of
 * every kcbp_pose_apply), compared bit for bit on random point sets of every
 * count from 1 to 70, with ties, repeated points, huge and tiny
 * coordinates, and on the k-CBPs of meshes at random poses; the same box
 * from the points stored by coordinate (kcbp_rotated_bounds_soa, the world
 * boxes' since branch small4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "convex/scan_bounds.h"
#include "query/model_internal.h"
#include "testutil.h"

static double loop_max(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d)
{
    double best = kcbp_v3_dot(p[0], d);
    for (uint32_t i = 1; i < n; i++)
        best = fmax(best, kcbp_v3_dot(p[i], d));
    return best;
}

static void loop_box(const kcbp_vec3 *p, uint32_t n, const kcbp_pose *pose, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    *lo = *hi = kcbp_pose_apply(pose, p[0]);
    for (uint32_t i = 1; i < n; i++) {
        kcbp_vec3 q = kcbp_pose_apply(pose, p[i]);
        *lo = kcbp_v3_min(*lo, q);
        *hi = kcbp_v3_max(*hi, q);
    }
}

static void assert_same(double x, double y)
{
    if (!(x == y))
        fail_msg("%.17g != %.17g", x, y);
}

static void assert_same_box(kcbp_vec3 lo, kcbp_vec3 hi, kcbp_vec3 elo, kcbp_vec3 ehi)
{
    assert_same(lo.x, elo.x);
    assert_same(lo.y, elo.y);
    assert_same(lo.z, elo.z);
    assert_same(hi.x, ehi.x);
    assert_same(hi.y, ehi.y);
    assert_same(hi.z, ehi.z);
}

static void test_scan_bounds_random(void **state)
{
    (void)state;
    test_rng rng = {5};
    kcbp_vec3 p[70];
    for (int trial = 0; trial < 4000; trial++) {
        uint32_t n = 1 + (uint32_t)(trial % 70);
        double scale = trial % 4 == 0 ? 1e6 : trial % 4 == 1 ? 1e-3 : 1;
        kcbp_vec3 off = kcbp_v3_scale(test_rng_unit_vector(&rng), trial % 3 == 0 ? 1e5 * scale : 0);
        for (uint32_t i = 0; i < n; i++) {
            kcbp_vec3 u = test_rng_unit_vector(&rng);
            double len = test_rng_range(&rng, 0, scale);
            p[i] = kcbp_v3_add(off, kcbp_v3_scale(u, len));
            if (trial % 5 == 0 && i > 0 && i % 3 == 0)
                p[i] = p[i / 2]; /* repeated points: ties */
            if (trial % 7 == 0)
                p[i].z = off.z; /* flat: every point ties along z */
        }
        kcbp_vec3 d = test_rng_unit_vector(&rng);
        if (trial % 6 == 0)
            d = kcbp_v3(0, 0, trial % 12 == 0 ? 1 : -1);
        assert_same(kcbp_support_max(p, n, d), loop_max(p, n, d));
        kcbp_pose pose = test_random_pose(&rng, trial % 2 ? 1e4 : 2);
        if (trial % 9 == 0)
            pose = kcbp_pose_identity();
        kcbp_vec3 lo, hi, elo, ehi;
        kcbp_rotated_bounds(p, n, &pose.rot, &lo, &hi);
        lo = kcbp_v3_add(lo, pose.trans);
        hi = kcbp_v3_add(hi, pose.trans);
        loop_box(p, n, &pose, &elo, &ehi);
        assert_same_box(lo, hi, elo, ehi);
        /* the same points by coordinate */
        double *soa = kcbp_soa_of(p, n);
        assert_non_null(soa);
        for (int v = 0; v < 2; v++) { /* as dispatched (AVX where the CPU has it), and without AVX */
            (v ? kcbp_rotated_bounds_soa_base : kcbp_rotated_bounds_soa)(soa, n, &pose.rot, &lo, &hi);
            lo = kcbp_v3_add(lo, pose.trans);
            hi = kcbp_v3_add(hi, pose.trans);
            assert_same_box(lo, hi, elo, ehi);
        }
        free(soa);
    }
}

/* The world boxes of models (kcbp_impl_world_bounds) and the k-CBP gap
 * (kcbp_cbp_gap): the loops over the k-CBP's vertices, bit for bit. */
static void test_scan_bounds_models(void **state)
{
    (void)state;
    const char *names[] = {"bunny2.obj", "suzanne.obj", "fandisk.obj"};
    test_rng rng = {9};
    for (int k = 0; k < 3; k++) {
        kcbp_model m;
        test_model_load_unit(&m, names[k]);
        const kcbp_cbp *c = &m.impl->cbp;
        for (int trial = 0; trial < 500; trial++) {
            kcbp_pose pose = test_random_pose(&rng, trial % 3 == 0 ? 1e6 : 3);
            kcbp_aabb b = kcbp_impl_world_bounds(m.impl, &pose);
            kcbp_vec3 elo, ehi;
            loop_box(c->vertices, c->nvertices, &pose, &elo, &ehi);
            assert_same_box(b.min, b.max, elo, ehi);
            kcbp_vec3 n = test_rng_unit_vector(&rng);
            kcbp_vec3 nb = kcbp_v3_neg(kcbp_mat3_tmul_v3(&pose.rot, n));
            double gap = loop_max(c->vertices, c->nvertices, nb) * -1 + kcbp_v3_dot(n, pose.trans) -
                         loop_max(c->vertices, c->nvertices, n);
            assert_same(kcbp_cbp_gap(c, c, &pose, n), gap);
        }
        kcbp_model_free(&m);
    }
}

/* What the AVX version computes, lane by lane, in plain C: point i in lane
 * i mod 4 (the last n mod 4 in every lane), each lane keeping
 * (t < m ? t : m) as _mm256_min_pd(t, m) does (and max alike), the lanes
 * then combined as (l0 < l1 ? l0 : l1) against (l2 < l3 ? l2 : l3), the
 * first if less: the rule the lanes' reduction follows, which picks one
 * zero of two of either sign by its order, as this does. */
static void lanes_box(const kcbp_vec3 *p, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    double l[3][4], h[3][4];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++)
            l[k][j] = INFINITY, h[k][j] = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 t = kcbp_mat3_mul_v3(r, p[i]);
        double c[3] = {t.x, t.y, t.z};
        for (int j = 0; j < 4; j++) {
            if (i < n / 4 * 4 && (uint32_t)j != i % 4)
                continue;
            for (int k = 0; k < 3; k++) {
                l[k][j] = c[k] < l[k][j] ? c[k] : l[k][j];
                h[k][j] = c[k] > h[k][j] ? c[k] : h[k][j];
            }
        }
    }
    double ol[3], oh[3];
    for (int k = 0; k < 3; k++) {
        double a = l[k][0] < l[k][1] ? l[k][0] : l[k][1], b = l[k][2] < l[k][3] ? l[k][2] : l[k][3];
        double c = h[k][0] > h[k][1] ? h[k][0] : h[k][1], d = h[k][2] > h[k][3] ? h[k][2] : h[k][3];
        ol[k] = a < b ? a : b;
        oh[k] = c > d ? c : d;
    }
    *lo = kcbp_v3(ol[0], ol[1], ol[2]);
    *hi = kcbp_v3(oh[0], oh[1], oh[2]);
}

static void assert_same_bits(double x, double y)
{
    if (memcmp(&x, &y, sizeof x) != 0)
        fail_msg("%.17g (sign %d) != %.17g (sign %d)", x, signbit(x) != 0, y, signbit(y) != 0);
}

/* Zeros of both signs tying across lanes: the dispatched box (AVX on this
 * CPU) is bit for bit lanes_box's, and equal (-0 == 0) to the plain
 * loop's, whose choice between two zeros may differ (it did before branch
 * small6 too). Under the identity a point (-0, -0, -0) stays -0 (every
 * product -0, -0 + -0 = -0) and (0, 0, 0) stays +0: 1 to 13 points, the
 * signs of the first 10 in every mix. */
static void test_scan_bounds_signed_zeros(void **state)
{
    (void)state;
    kcbp_mat3 id = kcbp_pose_identity().rot;
    kcbp_vec3 p[13];
    for (uint32_t n = 1; n <= 13; n++)
        for (uint32_t mask = 0; mask < (1u << (n < 10 ? n : 10)); mask++) {
            for (uint32_t i = 0; i < n; i++) {
                double z = (mask >> (i % 10) & 1) ? -0.0 : 0.0;
                p[i] = kcbp_v3(z, i % 3 == 0 ? z : 0.0, z);
            }
            double *soa = kcbp_soa_of(p, n);
            assert_non_null(soa);
            kcbp_vec3 lo, hi, elo, ehi;
            kcbp_rotated_bounds_soa(soa, n, &id, &lo, &hi);
            kcbp_rotated_bounds_soa_base(soa, n, &id, &elo, &ehi);
            assert_same_box(lo, hi, elo, ehi);
            if (__builtin_cpu_supports("avx")) {
                lanes_box(p, n, &id, &elo, &ehi);
                assert_same_bits(lo.x, elo.x);
                assert_same_bits(lo.y, elo.y);
                assert_same_bits(lo.z, elo.z);
                assert_same_bits(hi.x, ehi.x);
                assert_same_bits(hi.y, ehi.y);
                assert_same_bits(hi.z, ehi.z);
            }
            free(soa);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_bounds_random),
        cmocka_unit_test(test_scan_bounds_signed_zeros),
        cmocka_unit_test(test_scan_bounds_models),
    };
    return cmocka_run_group_tests_name("scan_bounds", tests, NULL, NULL);
}
