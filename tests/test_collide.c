/* kcbp_collide against the brute-force oracle (every triangle pair), and on
 * hand-made cases whose answers are known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* Runs kcbp_collide with every contact mode, without the k-CBP stage and
 * with it, measuring (distance, EPA) and not (early-exit GJK), and checks
 * each against brute force: the same answer and the same contact set. The
 * stage must decide the same poses whether it measures or not, up to
 * distances within rounding of the margin. Returns the answer. */
static bool check_against_brute_force(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b,
                                      const kcbp_pose *pb)
{
    kcbp_contact *want;
    size_t nwant = test_brute_force_contacts(a, pa, b, pb, &want);
    kcbp_error err = {0};
    kcbp_cbp_result measured = {0};
    for (int run = 0; run < 3; run++) {
        bool use_cbp = run > 0, measure = run == 1;
        kcbp_collide_options opt = {.contacts = KCBP_CONTACTS_ALL, .use_cbp = use_cbp, .cbp_measure = measure};
        kcbp_collide_result res = {0};
        assert_int_equal(kcbp_collide(a, pa, b, pb, &opt, &res, &err), KCBP_OK);
        assert_int_equal(res.collide, nwant > 0);
        assert_int_equal(res.ncontacts, nwant);
        for (size_t i = 0; i < nwant; i++) {
            assert_int_equal(res.contacts[i].a, want[i].a);
            assert_int_equal(res.contacts[i].b, want[i].b);
        }
        /* The k-CBP stage only ever rejects, and reports finite numbers. */
        if (res.decided_by == KCBP_STAGE_CBP)
            assert_true(res.cbp.separated && res.cbp.distance_lower > 0);
        assert_true(isfinite(res.cbp.distance) && isfinite(res.cbp.depth) && isfinite(res.cbp.distance_lower));
        assert_int_equal(res.cbp.tested, use_cbp && res.decided_by != KCBP_STAGE_AABB);
        assert_int_equal(res.cbp.measured, res.cbp.tested && measure);
        if (res.cbp.tested && measure) {
            if (res.cbp.separated)
                assert_true(res.cbp.distance > 0 && res.cbp.distance_lower == res.cbp.distance);
            measured = res.cbp;
        } else if (res.cbp.tested) {
            /* Not measured: nothing but the verdict and its bound. */
            assert_true(res.cbp.distance == 0 && res.cbp.depth == 0 && res.cbp.epa_iterations == 0);
            /* The bound is a lower bound of the measured distance, and both
             * runs agree unless the distance is within rounding of the
             * margin. */
            if (res.cbp.separated)
                assert_true(res.cbp.distance_lower <= measured.distance * (1 + 1e-9));
            if (res.cbp.separated != measured.separated) {
                double margin = 1e-8 * fmax(a->impl->scale, b->impl->scale + kcbp_v3_len(kcbp_pose_relative(pa, pb).trans));
                assert_true(fabs(measured.distance - margin) <= 1e-9 * margin);
            }
            assert_true(res.cbp.gjk_iterations <= measured.gjk_iterations);
        }
        kcbp_collide_result_free(&res);
        /* The cheaper modes must give the same answer, and a contact that is
         * one of the real ones. */
        for (int mode = KCBP_CONTACTS_NONE; mode <= KCBP_CONTACTS_FIRST; mode++) {
            kcbp_collide_options o = {.contacts = (kcbp_contacts_mode)mode, .use_cbp = use_cbp, .cbp_measure = measure};
            kcbp_collide_result r = {0};
            assert_int_equal(kcbp_collide(a, pa, b, pb, &o, &r, &err), KCBP_OK);
            assert_int_equal(r.collide, nwant > 0);
            assert_int_equal(r.ncontacts, mode == KCBP_CONTACTS_FIRST && nwant > 0 ? 1 : 0);
            if (r.ncontacts) {
                bool found = false;
                for (size_t i = 0; i < nwant && !found; i++)
                    found = want[i].a == r.contacts[0].a && want[i].b == r.contacts[0].b;
                assert_true(found);
            }
            kcbp_collide_result_free(&r);
        }
    }
    free(want);
    return nwant > 0;
}

/* Random poses of real meshes near each other: about half of them collide.
 * Zero disagreements with brute force are allowed. */
static void run_random_poses(const char *name_a, const char *name_b, int nposes, uint64_t seed)
{
    kcbp_model a, b;
    test_model_load_unit(&a, name_a);
    test_model_load_unit(&b, name_b);
    test_rng rng = {seed};
    kcbp_pose pa = test_random_pose(&rng, 0.1);
    int hits = 0;
    for (int i = 0; i < nposes; i++) {
        kcbp_pose pb = test_random_pose(&rng, 1.6);
        hits += check_against_brute_force(&a, &pa, &b, &pb);
    }
    /* The pose range is meant to make both answers common. */
    assert_true(hits > nposes / 10);
    assert_true(hits < nposes - nposes / 10);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_random_woody_suzanne(void **state)
{
    (void)state;
    run_random_poses("woody.obj", "suzanne.obj", 60, 1);
}

static void test_random_suzanne_suzanne(void **state)
{
    (void)state;
    run_random_poses("suzanne.obj", "suzanne.obj", 60, 2);
}

static void test_random_woody_woody(void **state)
{
    (void)state;
    run_random_poses("woody.obj", "woody.obj", 60, 5); /* flat: every triangle in z = 0 */
}

static void test_random_bunny2_woody(void **state)
{
    (void)state;
    run_random_poses("bunny2.obj", "woody.obj", 20, 3);
}

static void test_random_bunny2_bunny2(void **state)
{
    (void)state;
    run_random_poses("bunny2.obj", "bunny2.obj", 8, 4);
}

/* Large slanted faces against small triangles (issue 13): a cube whose
 * faces are slanted in its own frame, so that its tree's leaf boxes are
 * mostly empty, against a small copy of suzanne near its faces, edges and
 * corners. The leaves' slabs cut most of that empty space; brute force says
 * whether they cut anything they should not. */
static void test_slanted_faces_against_small_triangles(void **state)
{
    (void)state;
    kcbp_mat3 r0;
    kcbp_pose turn;
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 0.3), 40, &turn, NULL), KCBP_OK);
    r0 = turn.rot;
    kcbp_vec3 cv[8];
    for (int i = 0; i < 8; i++)
        cv[i] = kcbp_mat3_mul_v3(&r0, kcbp_v3(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1));
    static const kcbp_tri ct[12] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 5, 6}}, {{5, 7, 6}}, {{0, 1, 4}}, {{1, 5, 4}},
                                    {{2, 6, 3}}, {{3, 6, 7}}, {{0, 4, 2}}, {{2, 4, 6}}, {{1, 3, 5}}, {{3, 7, 5}}};
    kcbp_model a, s, b;
    test_model_from_arrays(&a, cv, 8, ct, 12);
    test_model_load_unit(&s, "suzanne.obj");
    kcbp_vec3 *sv = malloc(s.impl->mesh.nvertices * sizeof *sv);
    assert_non_null(sv);
    for (uint32_t i = 0; i < s.impl->mesh.nvertices; i++)
        sv[i] = kcbp_v3_scale(s.impl->mesh.vertices[i], 0.15);
    test_model_from_arrays(&b, sv, s.impl->mesh.nvertices, s.impl->mesh.triangles, s.impl->mesh.ntriangles);
    free(sv);
    test_rng rng = {31};
    kcbp_pose pa = kcbp_pose_identity();
    int hits = 0, n = 60;
    for (int i = 0; i < n; i++) {
        /* B's centre on the ray from A's centre along u, at the cube's
         * surface (found in A's unturned frame) plus or minus B's size. */
        kcbp_vec3 u = test_rng_unit_vector(&rng), ul = kcbp_mat3_tmul_v3(&r0, u);
        double m = kcbp_v3_max_abs(ul), at = 1 / m + test_rng_range(&rng, -0.15, 0.15);
        kcbp_pose pb = test_random_pose(&rng, 0);
        pb.trans = kcbp_v3_scale(u, at);
        hits += check_against_brute_force(&a, &pa, &b, &pb);
    }
    assert_true(hits > n / 10 && hits < n - n / 10);
    kcbp_model_free(&a);
    kcbp_model_free(&s);
    kcbp_model_free(&b);
}

/* Two unit cubes, B moved by `offset`, both scaled by `scale` and shifted by
 * `shift` (the same for both, so the configuration is unchanged). */
static bool cubes(kcbp_vec3 offset, double scale, kcbp_vec3 shift)
{
    kcbp_model a, b;
    kcbp_vec3 lo = shift, hi = kcbp_v3_add(shift, kcbp_v3(scale, scale, scale));
    test_model_box(&a, lo, hi);
    test_model_box(&b, lo, hi);
    kcbp_pose pa = kcbp_pose_identity(), pb = kcbp_pose_identity();
    pb.trans = kcbp_v3_scale(offset, scale);
    bool answer = check_against_brute_force(&a, &pa, &b, &pb);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
    return answer;
}

static void test_cubes_touching_and_apart(void **state)
{
    (void)state;
    static const double scales[] = {1.0, 1e-6, 1e6};
    const kcbp_vec3 shifts[] = {{0, 0, 0}, {1e6, -1e6, 1e6}};
    for (int s = 0; s < 3; s++)
        for (int h = 0; h < 2; h++) {
            double sc = scales[s];
            kcbp_vec3 sh = kcbp_v3_scale(shifts[h], sc);
            assert_true(cubes(kcbp_v3(0, 0, 0), sc, sh));        /* identical */
            assert_true(cubes(kcbp_v3(0.5, 0.25, 0), sc, sh));   /* overlapping */
            assert_true(cubes(kcbp_v3(1, 0, 0), sc, sh));        /* faces touch */
            assert_true(cubes(kcbp_v3(1, 0.5, 0.5), sc, sh));    /* faces touch, offset */
            assert_true(cubes(kcbp_v3(1, 1, 0), sc, sh));        /* shared edge */
            assert_true(cubes(kcbp_v3(1, 1, 1), sc, sh));        /* shared vertex */
            /* A hair apart: the tolerance is relative to the magnitude of the
             * coordinates, so far from the origin the hair is thicker. */
            double gap = h ? 1e-3 : 1e-6;
            assert_false(cubes(kcbp_v3(1 + gap, 0, 0), sc, sh));
            assert_false(cubes(kcbp_v3(1, 1 + gap, 1), sc, sh));
            assert_false(cubes(kcbp_v3(3, 0, 0), sc, sh));
        }
}

static void test_cube_inside_cube_is_not_a_surface_contact(void **state)
{
    (void)state;
    /* kcbp tests surfaces: a mesh wholly inside another touches none of its
     * triangles. (The k-CBP stage reports the overlap of the volumes.) */
    kcbp_model a, b;
    test_model_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(4, 4, 4));
    test_model_box(&b, kcbp_v3(1, 1, 1), kcbp_v3(2, 2, 2));
    kcbp_pose id = kcbp_pose_identity();
    assert_false(check_against_brute_force(&a, &id, &b, &id));
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static bool single_triangles(const kcbp_vec3 ta[3], const kcbp_vec3 tb[3], uint32_t *degenerate_b)
{
    static const kcbp_tri t = {{0, 1, 2}};
    kcbp_model a, b;
    test_model_from_arrays(&a, ta, 3, &t, 1);
    test_model_from_arrays(&b, tb, 3, &t, 1);
    *degenerate_b = b.impl->mesh.ndegenerate;
    kcbp_pose id = kcbp_pose_identity();
    bool answer = check_against_brute_force(&a, &id, &b, &id);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
    return answer;
}

static void test_hand_made_triangles(void **state)
{
    (void)state;
    uint32_t deg;
    const kcbp_vec3 base[3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}};
    const kcbp_vec3 coplanar_overlap[3] = {{0.5, 0.5, 0}, {3, 0.5, 0}, {0.5, 3, 0}};
    const kcbp_vec3 coplanar_apart[3] = {{1.1, 1.1, 0}, {3, 1.1, 0}, {1.1, 3, 0}};
    const kcbp_vec3 shared_edge[3] = {{2, 0, 0}, {0, 2, 0}, {2, 2, 0}};
    const kcbp_vec3 shared_vertex[3] = {{2, 0, 0}, {3, 0, 1}, {3, 1, 0}};
    const kcbp_vec3 piercing[3] = {{0.5, 0.5, -1}, {0.5, 0.5, 1}, {-1, -1, 0.5}};
    const kcbp_vec3 above[3] = {{0.5, 0.5, 0.1}, {1, 0.5, 1}, {0.5, 1, 1}};
    const kcbp_vec3 zero_area_piercing[3] = {{0.5, 0.5, -1}, {0.5, 0.5, 1}, {0.5, 0.5, 0}};
    const kcbp_vec3 zero_area_beside[3] = {{3, 3, -1}, {3, 3, 1}, {3, 3, 0}};
    assert_true(single_triangles(base, base, &deg));
    assert_true(single_triangles(base, coplanar_overlap, &deg));
    assert_false(single_triangles(base, coplanar_apart, &deg));
    assert_true(single_triangles(base, shared_edge, &deg));
    assert_true(single_triangles(base, shared_vertex, &deg));
    assert_true(single_triangles(base, piercing, &deg));
    assert_false(single_triangles(base, above, &deg));
    assert_int_equal(deg, 0);
    assert_true(single_triangles(base, zero_area_piercing, &deg));
    assert_int_equal(deg, 1);
    assert_false(single_triangles(base, zero_area_beside, &deg));
    assert_int_equal(deg, 1);
}

/* A triangle touching another at one point only, the midpoint of one of
 * its edges (exact: even integer coordinates), the rest of it far off the
 * plane on either side: the triangle slab test before the exact one
 * (aabb_tree.c, tri_beyond_slab) must not cut it. The products n . v
 * round; the slab's widening by their rounding (tree_build.c,
 * slab_along) covers a point on the triangle, and the traversal's slab
 * tolerance is a second margin: with both dropped this test fails. */
static void test_touching_at_an_edge_midpoint(void **state)
{
    (void)state;
    test_rng r = {8128};
    int n = 3000;
    for (int i = 0; i < n; i++) {
        kcbp_vec3 ta[3], tb[3];
        for (int k = 0; k < 3; k++)
            ta[k] = kcbp_v3(2 * floor(test_rng_range(&r, -500, 500)), 2 * floor(test_rng_range(&r, -500, 500)),
                            2 * floor(test_rng_range(&r, -500, 500)));
        kcbp_vec3 nrm = kcbp_v3_cross(kcbp_v3_sub(ta[1], ta[0]), kcbp_v3_sub(ta[2], ta[0]));
        if (kcbp_v3_len2(nrm) == 0)
            continue;
        double side = i % 2 ? 1 : -1, k1 = floor(test_rng_range(&r, 1, 4)), k2 = floor(test_rng_range(&r, 1, 4));
        tb[0] = kcbp_v3_scale(kcbp_v3_add(ta[0], ta[1]), 0.5);
        tb[1] = kcbp_v3_add(tb[0], kcbp_v3_add(kcbp_v3_scale(nrm, side * k1 * 1e-3), kcbp_v3(3, 0, 1)));
        tb[2] = kcbp_v3_add(tb[0], kcbp_v3_add(kcbp_v3_scale(nrm, side * k2 * 1e-3), kcbp_v3(0, 5, -2)));
        uint32_t deg;
        assert_true(single_triangles(ta, tb, &deg));
    }
}

static void test_posed_a_and_b(void **state)
{
    (void)state;
    /* Moving both meshes by the same rigid motion changes nothing. */
    kcbp_model a, b;
    test_model_load_unit(&a, "woody.obj");
    test_model_load_unit(&b, "suzanne.obj");
    test_rng rng = {42};
    kcbp_collide_options opt = {.contacts = KCBP_CONTACTS_ALL, .use_cbp = true, .cbp_measure = true};
    for (int i = 0; i < 20; i++) {
        kcbp_pose pa = test_random_pose(&rng, 0.1), pb = test_random_pose(&rng, 0.5);
        kcbp_pose m = test_random_pose(&rng, 100);
        kcbp_pose ma = kcbp_pose_mul(&m, &pa), mb = kcbp_pose_mul(&m, &pb);
        check_against_brute_force(&a, &ma, &b, &mb);
        kcbp_collide_result r1 = {0}, r2 = {0};
        opt.use_cbp = i % 2;
        assert_int_equal(kcbp_collide(&a, &pa, &b, &pb, &opt, &r1, NULL), KCBP_OK);
        assert_int_equal(kcbp_collide(&a, &ma, &b, &mb, &opt, &r2, NULL), KCBP_OK);
        assert_int_equal(r1.collide, r2.collide);
        kcbp_collide_result_free(&r1);
        kcbp_collide_result_free(&r2);
    }
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_woody_suzanne),
        cmocka_unit_test(test_slanted_faces_against_small_triangles),
        cmocka_unit_test(test_random_suzanne_suzanne),
        cmocka_unit_test(test_random_woody_woody),
        cmocka_unit_test(test_random_bunny2_woody),
        cmocka_unit_test(test_random_bunny2_bunny2),
        cmocka_unit_test(test_cubes_touching_and_apart),
        cmocka_unit_test(test_cube_inside_cube_is_not_a_surface_contact),
        cmocka_unit_test(test_hand_made_triangles),
        cmocka_unit_test(test_touching_at_an_edge_midpoint),
        cmocka_unit_test(test_posed_a_and_b),
    };
    return cmocka_run_group_tests_name("collide", tests, NULL, NULL);
}
