/* Issue 12: the k-CBPs inside the mesh test (kcbp_tree_clip) and temporal
 * coherence (kcbp_gjk_simplex_cache). Everything here checks one promise:
 * these make answers faster, never different. */
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

/* ---- the k-CBP planes inside the mesh test ----------------------------- */

typedef struct {
    kcbp_contact *c;
    size_t n, cap;
    bool first_only;
} pair_list;

static bool collect(void *ctx, uint32_t ta, uint32_t tb)
{
    pair_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->c = realloc(l->c, l->cap * sizeof *l->c);
        assert_non_null(l->c);
    }
    l->c[l->n++] = (kcbp_contact){ta, tb};
    return !l->first_only;
}

static int cmp_pair(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* The invariant of kcbp_tree_clip at one pose: its half-spaces hold the other
 * mesh (the premise), and the traversal with them finds exactly the
 * contacts found without them (all of them, and the same first one), which
 * are brute force's when `brute` is set. Returns the nodes dropped. */
static uint64_t check_clip(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *pb, bool brute)
{
    kcbp_pose id = kcbp_pose_identity();
    double eps = kcbp_collide_tolerance(a, b, pb);
    kcbp_tree_clip clip;
    kcbp_collide_clip(a, b, pb, &clip);
    assert_true(clip.margin >= eps);
    assert_true(clip.na <= KCBP_TREE_CLIP_MAX && clip.nb <= KCBP_TREE_CLIP_MAX);
    /* The premise, up to rounding far below the margin. */
    kcbp_pose a_in_b = kcbp_pose_inverse(pb);
    double slack = 1e-6 * clip.margin;
    for (uint32_t i = 0; i < clip.na; i++)
        for (uint32_t v = 0; v < b->mesh.nvertices; v++)
            assert_true(kcbp_v3_dot(clip.a[i].n, kcbp_pose_apply(pb, b->mesh.vertices[v])) <= clip.a[i].d + slack);
    for (uint32_t i = 0; i < clip.nb; i++)
        for (uint32_t v = 0; v < a->mesh.nvertices; v++)
            assert_true(kcbp_v3_dot(clip.b[i].n, kcbp_pose_apply(&a_in_b, a->mesh.vertices[v])) <=
                        clip.b[i].d + slack);
    /* Every contact, and the first. */
    pair_list all0 = {0}, all1 = {0}, first0 = {NULL, 0, 0, true}, first1 = {NULL, 0, 0, true};
    kcbp_tree_stats s0 = {0}, s1 = {0};
    kcbp_aabb_tree_collide(&a->tree, &b->tree, pb, eps, collect, &all0, &s0);
    kcbp_aabb_tree_collide_clipped(&a->tree, &b->tree, pb, eps, &clip, collect, &all1, &s1);
    kcbp_aabb_tree_collide(&a->tree, &b->tree, pb, eps, collect, &first0, NULL);
    kcbp_aabb_tree_collide_clipped(&a->tree, &b->tree, pb, eps, &clip, collect, &first1, NULL);
    assert_true(s1.box_pairs <= s0.box_pairs);
    assert_int_equal(s0.node_planes, 0);
    qsort(all0.c, all0.n, sizeof *all0.c, cmp_pair);
    qsort(all1.c, all1.n, sizeof *all1.c, cmp_pair);
    assert_int_equal(all0.n, all1.n);
    if (all0.n)
        assert_memory_equal(all0.c, all1.c, all0.n * sizeof *all0.c);
    assert_int_equal(first0.n, first1.n);
    if (first0.n)
        assert_memory_equal(first0.c, first1.c, sizeof *first0.c);
    if (brute) {
        kcbp_contact *want;
        size_t nwant = test_brute_force_contacts(a, &id, b, pb, &want);
        assert_int_equal(nwant, all1.n);
        if (nwant)
            assert_memory_equal(want, all1.c, nwant * sizeof *want);
        free(want);
    }
    free(all0.c);
    free(all1.c);
    free(first0.c);
    free(first1.c);
    return s1.node_culls;
}

/* The distance s along dir at which B (turned by rot) first touches A,
 * within 1e-12 (bisection with kcbp_collide, as bench/gen_poses does). */
static double first_touch(const kcbp_model *a, const kcbp_model *b, kcbp_vec3 dir, const kcbp_mat3 *rot)
{
    kcbp_collide_options o = {KCBP_CONTACTS_NONE, true, false};
    kcbp_collide_result r = {0};
    kcbp_pose p = {*rot, kcbp_v3(0, 0, 0)};
    double lo = 0, hi = 8;
    p.trans = kcbp_v3_scale(dir, lo);
    assert_int_equal(kcbp_collide(a, &(kcbp_pose){kcbp_mat3_identity(), {0, 0, 0}}, b, &p, &o, &r, NULL), KCBP_OK);
    if (!r.collide) { /* B at A's centre does not touch it: skip this direction */
        kcbp_collide_result_free(&r);
        return -1;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-12; i++) {
        double mid = 0.5 * (lo + hi);
        p.trans = kcbp_v3_scale(dir, mid);
        assert_int_equal(kcbp_collide(a, &(kcbp_pose){kcbp_mat3_identity(), {0, 0, 0}}, b, &p, &o, &r, NULL),
                         KCBP_OK);
        if (r.collide)
            lo = mid;
        else
            hi = mid;
    }
    kcbp_collide_result_free(&r);
    return lo;
}

static void clip_pair(const char *name_a, const char *name_b, int nrandom, int ntouch, uint64_t seed)
{
    kcbp_model a, b;
    test_model_load_unit(&a, name_a);
    test_model_load_unit(&b, name_b);
    test_rng rng = {seed};
    uint64_t culls = 0;
    for (int i = 0; i < nrandom; i++) {
        kcbp_pose p = test_random_pose(&rng, 1.6);
        culls += check_clip(&a, &b, &p, i < 6);
    }
    /* At first contact, and a hair (around the margin and the tolerance)
     * either side of it: where dropping a node too many would show. */
    static const double hair[] = {0, 1e-6, -1e-6, 1e-8, -1e-8, 3e-10, -3e-10};
    for (int i = 0; i < ntouch; i++) {
        kcbp_vec3 dir = test_rng_unit_vector(&rng);
        kcbp_pose p = test_random_pose(&rng, 0);
        double s = first_touch(&a, &b, dir, &p.rot);
        if (s < 0)
            continue;
        for (size_t h = 0; h < sizeof hair / sizeof *hair; h++) {
            p.trans = kcbp_v3_scale(dir, s + hair[h]);
            culls += check_clip(&a, &b, &p, h < 3);
        }
    }
    assert_true(culls > 0); /* the planes do cut */
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_clip_suzanne_suzanne(void **state)
{
    (void)state;
    clip_pair("suzanne.obj", "suzanne.obj", 30, 4, 11);
}

static void test_clip_woody_suzanne(void **state)
{
    (void)state;
    clip_pair("woody.obj", "suzanne.obj", 30, 4, 12);
}

static void test_clip_cubes_touching(void **state)
{
    (void)state;
    /* Faces, edges and corners exactly on the k-CBP planes, and a hair off. */
    kcbp_model a, b;
    test_model_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    test_model_box(&b, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    static const double off[][3] = {{1, 0, 0},   {1, 0.5, 0.5}, {1, 1, 0},          {1, 1, 1},
                                    {0.5, 0, 0}, {1 + 1e-11, 0, 0}, {1 + 1e-9, 1, 0}, {1 - 1e-11, 0.3, 0.2}};
    for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
        kcbp_pose p = kcbp_pose_identity();
        p.trans = kcbp_v3(off[i][0], off[i][1], off[i][2]);
        check_clip(&a, &b, &p, true);
    }
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gjk_warm_start),
        cmocka_unit_test(test_clip_suzanne_suzanne),
        cmocka_unit_test(test_clip_woody_suzanne),
        cmocka_unit_test(test_clip_cubes_touching),
    };
    return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
