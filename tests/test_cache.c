/* Issue 12: temporal coherence (kcbp_pair_cache, kcbp_gjk_simplex_cache) and
 * the search below a pair of tree nodes that the cache starts from. Everything here
 * checks one promise: these make answers faster, never different. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "scene_layout.h"
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

static void assert_same_contacts(const kcbp_collide_result *x, const kcbp_collide_result *y)
{
    assert_int_equal(x->collide, y->collide);
    assert_int_equal(x->ncontacts, y->ncontacts);
    for (size_t i = 0; i < x->ncontacts; i++) {
        assert_int_equal(x->contacts[i].a, y->contacts[i].a);
        assert_int_equal(x->contacts[i].b, y->contacts[i].b);
    }
}

/* Contacts FIRST: the cached call may list another contact than the
 * cache-less one (the pair's last contact, while it holds: kcbp_pair_cache),
 * but the same answer, one contact, and a true one: among every contact
 * the cache-less search finds. */
static void assert_true_contact(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                                const kcbp_collide_result *x, const kcbp_collide_result *y)
{
    assert_int_equal(x->collide, y->collide);
    assert_int_equal(x->ncontacts, y->ncontacts);
    if (y->ncontacts && (x->contacts[0].a != y->contacts[0].a || x->contacts[0].b != y->contacts[0].b))
        assert_true(test_contact_is_true(a, pa, b, pb, y->contacts[0]));
}

static void assert_same_bits(double x, double y) { assert_memory_equal(&x, &y, sizeof x); }

static void assert_same_vec(kcbp_vec3 x, kcbp_vec3 y)
{
    assert_same_bits(x.x, y.x);
    assert_same_bits(x.y, y.y);
    assert_same_bits(x.z, y.z);
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
            int cold = kcbp_gjk_separated(&a.impl->shape, &b.impl->shape, &p, margin, &c1, &low1, &it1, &ax1);
            int hot = kcbp_gjk_separated_warm(&a.impl->shape, &b.impl->shape, &p, margin, &c2, &warm, &low2, &it2, &ax2);
            assert_true(warm.count >= 1 && warm.count <= 4);
            kcbp_gjk_result g;
            kcbp_support_cache c3 = {{0, 0}};
            kcbp_gjk_distance(&a.impl->shape, &b.impl->shape, &p, NULL, &c3, &g);
            if (cold != hot)
                assert_true(fabs(g.distance - margin) <= 1e-9 * 4);
            if (hot)
                assert_true(low2 > margin && low2 <= g.distance * (1 + 1e-9) + 1e-12);
            /* Junk: out of range and repeated indices, an impossible count. */
            kcbp_gjk_simplex_cache junk = {4, {0, 0, UINT32_MAX, 7}, {0, 0, 3, UINT32_MAX}};
            kcbp_gjk_simplex_cache bad_count = {9, {0}, {0}};
            kcbp_support_cache c4 = {{0, 0}}, c5 = {{0, 0}};
            int j1 = kcbp_gjk_separated_warm(&a.impl->shape, &b.impl->shape, &p, margin, &c4, &junk, NULL, NULL, NULL);
            int j2 = kcbp_gjk_separated_warm(&a.impl->shape, &b.impl->shape, &p, margin, &c5, &bad_count, NULL, NULL, NULL);
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

/* ---- the search below a pair of nodes ----------------------------------- */

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

/* Whether triangle t's slot lies under node (tree order: a node's slots are
 * those of its leaves). */
static bool under(const kcbp_aabb_tree *tree, uint32_t node, uint32_t tri)
{
    for (uint32_t s = 0; s < tree->nnodes; s++) {
        const kcbp_aabb_node *n = &tree->nodes[s];
        if (!n->count)
            continue;
        for (uint32_t i = 0; i < n->count; i++)
            if (tree->tri_ids[n->first + i] == tri) {
                for (uint32_t up = s;; up = tree->parent[up]) {
                    if (up == node)
                        return true;
                    if (up == 0)
                        return false;
                }
            }
    }
    return false;
}

/* At one pose: from the roots, kcbp_aabb_tree_collide_below finds what
 * kcbp_aabb_tree_collide finds (every contact, and the same first one, whose
 * leaves it names); from the ancestors of that first contact's leaves, the
 * contacts it finds are contacts of the whole search (and include that
 * first one), which are brute force's when `brute` is set. Returns whether
 * there was a contact. */
static bool check_below(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *pb, bool brute)
{
    kcbp_pose id = kcbp_pose_identity();
    double eps = kcbp_pair_tolerance(a->impl, b->impl, pb);
    static const uint32_t roots[2] = {0, 0};
    pair_list all0 = {0}, all1 = {0}, first0 = {NULL, 0, 0, true}, first1 = {NULL, 0, 0, true};
    kcbp_tree_stats s0 = {0}, s1 = {0};
    kcbp_aabb_tree_collide(&a->impl->tree, &b->impl->tree, pb, eps, collect, &all0, &s0);
    uint32_t stop[2] = {UINT32_MAX, UINT32_MAX};
    kcbp_aabb_tree_collide_below(&a->impl->tree, &b->impl->tree, pb, eps, roots, collect, &all1, &s1, stop);
    assert_int_equal(stop[0], UINT32_MAX); /* never stopped */
    assert_int_equal(s0.box_pairs, s1.box_pairs);
    pair_list all2 = {0};
    kcbp_tree_stats s2 = {0};
    kcbp_aabb_tree_collide_all(&a->impl->tree, &b->impl->tree, pb, eps, collect, &all2, &s2); /* no ordering: the same pairs */
    assert_int_equal(s2.box_pairs, s0.box_pairs);
    assert_int_equal(s2.tri_pairs, s0.tri_pairs);
    kcbp_aabb_tree_collide(&a->impl->tree, &b->impl->tree, pb, eps, collect, &first0, NULL);
    bool hit = kcbp_aabb_tree_collide_below(&a->impl->tree, &b->impl->tree, pb, eps, roots, collect, &first1, NULL, stop);
    assert_int_equal(hit, first0.n > 0);
    if (all0.n > 1) /* all0.c is NULL without contacts: qsort(NULL, 0) is undefined */
        qsort(all0.c, all0.n, sizeof *all0.c, cmp_pair);
    if (all1.n > 1)
        qsort(all1.c, all1.n, sizeof *all1.c, cmp_pair);
    if (all2.n > 1)
        qsort(all2.c, all2.n, sizeof *all2.c, cmp_pair);
    assert_int_equal(all0.n, all1.n);
    assert_int_equal(all0.n, all2.n);
    if (all0.n) {
        assert_memory_equal(all0.c, all1.c, all0.n * sizeof *all0.c);
        assert_memory_equal(all0.c, all2.c, all0.n * sizeof *all0.c);
    }
    assert_int_equal(first0.n, first1.n);
    if (first0.n) {
        assert_memory_equal(first0.c, first1.c, sizeof *first0.c);
        /* stop names the leaves of that contact */
        assert_true(stop[0] < a->impl->tree.nnodes && a->impl->tree.nodes[stop[0]].count > 0);
        assert_true(stop[1] < b->impl->tree.nnodes && b->impl->tree.nodes[stop[1]].count > 0);
        assert_true(under(&a->impl->tree, stop[0], first0.c[0].a) && under(&b->impl->tree, stop[1], first0.c[0].b));
        /* below ancestors of those leaves, some levels up */
        for (uint32_t up = 0; up < 6; up++) {
            uint32_t start[2] = {kcbp_aabb_tree_ancestor(&a->impl->tree, stop[0], up),
                                 kcbp_aabb_tree_ancestor(&b->impl->tree, stop[1], up)};
            pair_list sub = {0};
            assert_true(kcbp_aabb_tree_collide_below(&a->impl->tree, &b->impl->tree, pb, eps, start, collect, &sub, NULL, NULL) ==
                        false);
            assert_true(sub.n >= 1);
            bool has_first = false;
            for (size_t i = 0; i < sub.n; i++) {
                assert_non_null(bsearch(&sub.c[i], all0.c, all0.n, sizeof *all0.c, cmp_pair));
                assert_true(under(&a->impl->tree, start[0], sub.c[i].a) && under(&b->impl->tree, start[1], sub.c[i].b));
                has_first |= sub.c[i].a == first0.c[0].a && sub.c[i].b == first0.c[0].b;
            }
            assert_true(has_first);
            free(sub.c);
        }
    }
    /* From the roots but for one node pair (kcbp_aabb_tree_collide_except,
     * after a start near the last contact that found none): its contacts
     * are contacts of the whole search, and include every one that is not
     * under that pair (those under it are skipped when the search reaches
     * it), for pairs around the first contact's leaves and others. */
    for (uint32_t k = 0; k < 8; k++) {
        uint32_t skip[2];
        if (first0.n && k < 6) {
            skip[0] = kcbp_aabb_tree_ancestor(&a->impl->tree, stop[0], k);
            skip[1] = kcbp_aabb_tree_ancestor(&b->impl->tree, stop[1], k);
        } else {
            skip[0] = (k * 7919u) % a->impl->tree.nnodes;
            skip[1] = (k * 104729u) % b->impl->tree.nnodes;
        }
        pair_list ex = {0};
        assert_false(kcbp_aabb_tree_collide_except(&a->impl->tree, &b->impl->tree, pb, eps, skip, collect, &ex, NULL,
                                                   NULL));
        for (size_t i = 0; i < ex.n; i++)
            assert_non_null(bsearch(&ex.c[i], all0.c, all0.n, sizeof *all0.c, cmp_pair));
        if (ex.n > 1)
            qsort(ex.c, ex.n, sizeof *ex.c, cmp_pair);
        for (size_t i = 0; i < all0.n; i++)
            if (!(under(&a->impl->tree, skip[0], all0.c[i].a) && under(&b->impl->tree, skip[1], all0.c[i].b)))
                assert_non_null(bsearch(&all0.c[i], ex.c, ex.n, sizeof *ex.c, cmp_pair));
        free(ex.c);
    }
    if (brute) {
        kcbp_contact *want;
        size_t nwant = test_brute_force_contacts(a, &id, b, pb, &want);
        assert_int_equal(nwant, all1.n);
        if (nwant)
            assert_memory_equal(want, all1.c, nwant * sizeof *want);
        free(want);
    }
    bool any = all0.n > 0;
    free(all0.c);
    free(all1.c);
    free(all2.c);
    free(first0.c);
    free(first1.c);
    return any;
}

/* The distance s along dir at which B (turned by rot) first touches A,
 * within 1e-12 (bisection with kcbp_collide, as bench/gen_poses does). */
static double first_touch(const kcbp_model *a, const kcbp_model *b, kcbp_vec3 dir, const kcbp_mat3 *rot)
{
    kcbp_collide_options o = {.contacts = KCBP_CONTACTS_NONE, .use_cbp = true, .cbp_measure = false};
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

static void below_pair(const char *name_a, const char *name_b, int nrandom, int ntouch, uint64_t seed)
{
    kcbp_model a, b;
    test_model_load_unit(&a, name_a);
    test_model_load_unit(&b, name_b);
    test_rng rng = {seed};
    int hits = 0;
    for (int i = 0; i < nrandom; i++) {
        kcbp_pose p = test_random_pose(&rng, 1.6);
        hits += check_below(&a, &b, &p, i < 6);
    }
    /* At first contact, and a hair (around the tolerance) either side of
     * it. */
    static const double hair[] = {0, 1e-6, -1e-6, 1e-8, -1e-8, 3e-10, -3e-10};
    for (int i = 0; i < ntouch; i++) {
        kcbp_vec3 dir = test_rng_unit_vector(&rng);
        kcbp_pose p = test_random_pose(&rng, 0);
        double s = first_touch(&a, &b, dir, &p.rot);
        if (s < 0)
            continue;
        for (size_t h = 0; h < sizeof hair / sizeof *hair; h++) {
            p.trans = kcbp_v3_scale(dir, s + hair[h]);
            hits += check_below(&a, &b, &p, h < 3);
        }
    }
    assert_true(hits > 0);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_below_suzanne_suzanne(void **state)
{
    (void)state;
    below_pair("suzanne.obj", "suzanne.obj", 30, 4, 11);
}

static void test_below_woody_suzanne(void **state)
{
    (void)state;
    below_pair("woody.obj", "suzanne.obj", 30, 4, 12);
}

static void test_below_cubes_touching(void **state)
{
    (void)state;
    /* Faces, edges and corners touching, and a hair off. */
    kcbp_model a, b;
    test_model_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    test_model_box(&b, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    static const double off[][3] = {{1, 0, 0},   {1, 0.5, 0.5}, {1, 1, 0},          {1, 1, 1},
                                    {0.5, 0, 0}, {1 + 1e-11, 0, 0}, {1 + 1e-9, 1, 0}, {1 - 1e-11, 0.3, 0.2}};
    for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
        kcbp_pose p = kcbp_pose_identity();
        p.trans = kcbp_v3(off[i][0], off[i][1], off[i][2]);
        check_below(&a, &b, &p, true);
    }
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* ---- the pair cache ---------------------------------------------------- */

typedef struct {
    int axis, contact, near, warm, skipped, calls;
} cache_counts;

/* One step of a trajectory, in one mode: the cached call gives what the
 * cache-less call gives (with contacts FIRST, a true contact: see
 * assert_true_contact). */
static void compare_step(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                         const kcbp_collide_options *o, kcbp_pair_cache *cache, cache_counts *n)
{
    kcbp_collide_result r0 = {0}, r1 = {0};
    assert_int_equal(kcbp_collide(a, pa, b, pb, o, &r0, NULL), KCBP_OK);
    assert_int_equal(kcbp_collide_cached(a, pa, b, pb, o, cache, &r1, NULL), KCBP_OK);
    if (o->contacts == KCBP_CONTACTS_FIRST)
        assert_true_contact(a, pa, b, pb, &r0, &r1);
    else
        assert_same_contacts(&r0, &r1);
    /* No pose of these trajectories is within rounding of the margin, so
     * the stages agree too, but for the fine k-CBPs, which only a cached
     * call tests: they may end a test that the mesh stage ends without a
     * cache, and only with "apart". */
    if (r0.decided_by != r1.decided_by) {
        assert_false(r0.collide);
        if (r0.decided_by == KCBP_STAGE_MESH) /* the fine k-CBPs */
            assert_int_equal(r1.decided_by, KCBP_STAGE_CBP);
        else { /* skipped: the stage would have said apart, the meshes do */
            assert_int_equal(r0.decided_by, KCBP_STAGE_CBP);
            assert_int_equal(r1.decided_by, KCBP_STAGE_MESH);
            assert_true(r1.cache.gjk_skipped);
        }
    }
    assert_int_equal(r0.cache.hit, KCBP_CACHE_UNUSED);
    if (o->cbp_measure) { /* the measured k-CBP stage is untouched, bit for bit */
        assert_false(r1.cache.gjk_skipped || r1.cache.gjk_warm || r1.cache.hit == KCBP_CACHE_AXIS);
        assert_int_equal(r0.cbp.tested, r1.cbp.tested);
        assert_int_equal(r0.cbp.separated, r1.cbp.separated);
        assert_same_bits(r0.cbp.distance, r1.cbp.distance);
        assert_same_bits(r0.cbp.depth, r1.cbp.depth);
        assert_same_vec(r0.cbp.point_a, r1.cbp.point_a);
        assert_same_vec(r0.cbp.direction, r1.cbp.direction);
    } else if (r1.cbp.separated) {
        assert_true(r1.cbp.distance_lower > 0);
    }
    if (r1.cache.hit == KCBP_CACHE_CONTACT)
        assert_true(o->contacts != KCBP_CONTACTS_ALL && r1.collide && r1.tree.tri_pairs == 1);
    if (r1.cache.hit == KCBP_CACHE_NEAR)
        assert_true(o->contacts != KCBP_CONTACTS_ALL && r1.collide && r1.decided_by == KCBP_STAGE_MESH);
    /* A cached axis ends the test with no GJK of its own: none at all when
     * it is the coarse k-CBPs' axis; the coarse GJK's when it is the fine
     * ones' (the coarse k-CBPs overlapped first). */
    if (r1.cache.hit == KCBP_CACHE_AXIS)
        assert_true(r1.decided_by == KCBP_STAGE_CBP);
    n->axis += r1.cache.hit == KCBP_CACHE_AXIS;
    n->contact += r1.cache.hit == KCBP_CACHE_CONTACT;
    n->near += r1.cache.hit == KCBP_CACHE_NEAR;
    n->warm += r1.cache.gjk_warm;
    n->skipped += r1.cache.gjk_skipped;
    n->calls++;
    kcbp_collide_result_free(&r0);
    kcbp_collide_result_free(&r1);
}

/* Trajectories of B through A (apart, touching, overlapping, apart again),
 * each mode with its own cache kept along the trajectory, and brute force
 * every few steps. */
static void cache_pair(const char *name_a, const char *name_b, int paths, int steps, uint64_t seed)
{
    kcbp_model a, b;
    test_model_load_unit(&a, name_a);
    test_model_load_unit(&b, name_b);
    test_rng rng = {seed};
    kcbp_pose pa = test_random_pose(&rng, 0.05);
    cache_counts none_cbp = {0}, total = {0};
    for (int path = 0; path < paths; path++) {
        kcbp_vec3 dir = test_rng_unit_vector(&rng), off = kcbp_v3_scale(test_rng_unit_vector(&rng), 0.4);
        kcbp_vec3 axis = test_rng_unit_vector(&rng);
        kcbp_pair_cache caches[3][2][2];
        memset(caches, 0, sizeof caches);
        for (int i = 0; i < steps; i++) {
            kcbp_pose pb = trajectory(kcbp_v3_add(kcbp_v3_scale(dir, 3), off), kcbp_v3_sub(off, kcbp_v3_scale(dir, 3)),
                                      axis, 60, i, steps);
            for (int mode = KCBP_CONTACTS_NONE; mode <= KCBP_CONTACTS_ALL; mode++)
                for (int use_cbp = 0; use_cbp < 2; use_cbp++)
                    for (int measure = 0; measure < 2; measure++) {
                        kcbp_collide_options o = {.contacts = (kcbp_contacts_mode)mode, .use_cbp = use_cbp, .cbp_measure = measure};
                        cache_counts *n = mode == KCBP_CONTACTS_NONE && use_cbp && !measure ? &none_cbp : &total;
                        compare_step(&a, &pa, &b, &pb, &o, &caches[mode][use_cbp][measure], n);
                    }
            if (i % 16 == 0) {
                kcbp_contact *want;
                size_t nwant = test_brute_force_contacts(&a, &pa, &b, &pb, &want);
                kcbp_collide_options o = {.contacts = KCBP_CONTACTS_ALL, .use_cbp = true, .cbp_measure = false};
                kcbp_collide_result r = {0};
                assert_int_equal(kcbp_collide_cached(&a, &pa, &b, &pb, &o, &caches[2][1][0], &r, NULL), KCBP_OK);
                assert_int_equal(r.ncontacts, nwant);
                if (nwant)
                    assert_memory_equal(r.contacts, want, nwant * sizeof *want);
                kcbp_collide_result_free(&r);
                free(want);
            }
        }
    }
    /* Every shortcut was taken somewhere along the way. */
    assert_true(none_cbp.axis > 0 && none_cbp.contact > 0 && none_cbp.near > 0 && none_cbp.warm > 0 && none_cbp.skipped > 0);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_cache_suzanne_bunny2(void **state)
{
    (void)state;
    cache_pair("suzanne.obj", "bunny2.obj", 2, 100, 21);
}

static void test_cache_suzanne_suzanne(void **state)
{
    (void)state;
    cache_pair("suzanne.obj", "suzanne.obj", 3, 100, 22);
}

static void test_cache_woody_suzanne(void **state)
{
    (void)state;
    cache_pair("woody.obj", "suzanne.obj", 3, 100, 23);
}

/* A cache holding anything at all (another pair's, random bytes, a long or
 * NaN axis, indices out of range) costs time at worst, never an answer. */
static void test_cache_junk(void **state)
{
    (void)state;
    kcbp_model a, b;
    test_model_load_unit(&a, "suzanne.obj");
    test_model_load_unit(&b, "woody.obj");
    test_rng rng = {31};
    kcbp_pose pa = kcbp_pose_identity();
    for (int i = 0; i < 300; i++) {
        kcbp_pose pb = test_random_pose(&rng, 1.6);
        kcbp_pair_cache junk;
        unsigned char *bytes = (unsigned char *)&junk;
        for (size_t k = 0; k < sizeof junk; k++)
            bytes[k] = (unsigned char)(test_rng_uniform(&rng) * 256);
        switch (i % 5) {
        case 0: break; /* random bytes */
        case 1:        /* a long axis: its gap would be scaled up */
            junk.flags = KCBP_PAIR_CACHE_AXIS;
            junk.axis = kcbp_v3_scale(test_rng_unit_vector(&rng), 1e6);
            break;
        case 2:
            junk.flags = KCBP_PAIR_CACHE_AXIS;
            junk.axis = kcbp_v3(NAN, 0, 1);
            break;
        case 3: /* in-range triangles of some other place */
            junk.flags = KCBP_PAIR_CACHE_CONTACT;
            junk.contact.a = (uint32_t)(test_rng_uniform(&rng) * a.impl->mesh.ntriangles);
            junk.contact.b = (uint32_t)(test_rng_uniform(&rng) * b.impl->mesh.ntriangles);
            break;
        default: /* out of range everywhere, and a skip of the k-CBP stage */
            junk.flags = ~0u;
            junk.contact.a = UINT32_MAX;
            junk.simplex.count = 4;
            junk.overlaps = UINT32_MAX;
            break;
        }
        for (int mode = KCBP_CONTACTS_NONE; mode <= KCBP_CONTACTS_ALL; mode++) {
            kcbp_collide_options o = {.contacts = (kcbp_contacts_mode)mode, .use_cbp = true, .cbp_measure = false};
            kcbp_pair_cache c = junk;
            kcbp_collide_result r0 = {0}, r1 = {0};
            assert_int_equal(kcbp_collide(&a, &pa, &b, &pb, &o, &r0, NULL), KCBP_OK);
            assert_int_equal(kcbp_collide_cached(&a, &pa, &b, &pb, &o, &c, &r1, NULL), KCBP_OK);
            assert_same_contacts(&r0, &r1);
            kcbp_collide_result_free(&r0);
            kcbp_collide_result_free(&r1);
        }
    }
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* ---- one cache per pair of a moving scene -------------------------------- */

/* The wiring proposed for kcbp_scene_eval_frame, done here from outside:
 * the broad phase's pairs come sorted by (a, b) every frame, so the caches
 * of the previous frame's pairs are carried over by one merge, O(pairs),
 * and a pair that leaves the broad phase loses its cache. Every frame's
 * answer must be the scene's own (kcbp_scene_eval_frame, no cache). */
static void test_cache_moving_scene(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/suzanne.obj", &mesh, NULL), KCBP_OK);
    kcbp_scene s;
    kcbp_error err = {0};
    assert_int_equal(test_scene_thesis(&s, "meshes/suzanne.obj", mesh.bounds, 24, 5, &err), KCBP_OK);
    kcbp_mesh_clear(&mesh);
    test_rng rng = {41};
    for (uint32_t i = 0; i < s.nobjects; i++) {
        s.objects[i].velocity = kcbp_v3_scale(test_rng_unit_vector(&rng), 2.0);
        s.objects[i].spin_axis = test_rng_unit_vector(&rng);
        s.objects[i].spin_deg_per_s = test_rng_range(&rng, 0, 300);
    }
    s.moving = true;
    s.frames = 60;
    s.dt = 0.01;
    if (kcbp_scene_build(&s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    for (int mode = KCBP_CONTACTS_NONE; mode <= KCBP_CONTACTS_FIRST; mode++) {
        kcbp_collide_options o = kcbp_collide_options_default();
        o.contacts = (kcbp_contacts_mode)mode;
        o.cbp_measure = false;
        kcbp_scene_eval ev;
        assert_int_equal(kcbp_scene_eval_init(&ev, &s, &o, &err), KCBP_OK);
        kcbp_broadphase *bp;
        assert_int_equal(kcbp_broadphase_new(s.nobjects, &bp, NULL), KCBP_OK);
        kcbp_pose *poses = malloc(s.nobjects * sizeof *poses);
        kcbp_aabb *boxes = malloc(s.nobjects * sizeof *boxes);
        kcbp_index_pair *keys = NULL, *new_keys = NULL;
        kcbp_pair_cache *caches = NULL, *new_caches = NULL;
        size_t nkeys = 0, hits = 0;
        kcbp_scene_frame fr;
        memset(&fr, 0, sizeof fr);
        kcbp_collide_result res = {0};
        for (uint32_t f = 0; f < s.frames; f++) {
            assert_int_equal(kcbp_scene_eval_frame(&ev, f, &fr, &err), KCBP_OK);
            /* the scene's world boxes, widened as kcbp_scene_eval_frame does */
            for (uint32_t i = 0; i < s.nobjects; i++) {
                const kcbp_model *m = &s.models[s.objects[i].model].model;
                poses[i] = kcbp_scene_object_pose(&s, i, f);
                kcbp_aabb bx = kcbp_model_world_bounds(m, &poses[i]);
                double pad = kcbp_tri_tolerance(m->impl->scale + kcbp_v3_len(poses[i].trans));
                boxes[i].min = kcbp_v3_sub(bx.min, kcbp_v3(pad, pad, pad));
                boxes[i].max = kcbp_v3_add(bx.max, kcbp_v3(pad, pad, pad));
            }
            assert_int_equal(kcbp_broadphase_update(bp, boxes, NULL), KCBP_OK);
            const kcbp_index_pair *bpairs;
            size_t nbp = kcbp_broadphase_pairs(bp, &bpairs);
            new_keys = realloc(new_keys, (nbp + 1) * sizeof *new_keys);
            new_caches = realloc(new_caches, (nbp + 1) * sizeof *new_caches);
            assert_true(new_keys && new_caches);
            size_t j = 0;
            for (size_t k = 0; k < nbp; k++) {
                kcbp_index_pair p = bpairs[k];
                while (j < nkeys && (keys[j].a < p.a || (keys[j].a == p.a && keys[j].b < p.b)))
                    j++;
                if (j < nkeys && keys[j].a == p.a && keys[j].b == p.b)
                    new_caches[k] = caches[j++];
                else
                    memset(&new_caches[k], 0, sizeof new_caches[k]);
                new_keys[k] = p;
            }
            kcbp_index_pair *tk = keys;
            keys = new_keys, new_keys = tk;
            kcbp_pair_cache *tc = caches;
            caches = new_caches, new_caches = tc;
            nkeys = nbp;
            /* the pair tests, with their caches, against the scene's hits */
            size_t h = 0;
            for (size_t k = 0; k < nkeys; k++) {
                uint32_t a = keys[k].a, b = keys[k].b;
                assert_int_equal(kcbp_collide_cached(&s.models[s.objects[a].model].model, &poses[a],
                                                     &s.models[s.objects[b].model].model, &poses[b], &o,
                                                     &caches[k], &res, NULL),
                                 KCBP_OK);
                hits += res.cache.hit != KCBP_CACHE_UNUSED;
                if (!res.collide)
                    continue;
                assert_true(h < fr.colliding && fr.hits[h].a == a && fr.hits[h].b == b);
                assert_int_equal(fr.hits[h].count, res.ncontacts);
                if (res.ncontacts)
                    assert_memory_equal(fr.contacts + fr.hits[h].first, res.contacts,
                                        res.ncontacts * sizeof *res.contacts);
                h++;
            }
            assert_int_equal(h, fr.colliding);
        }
        assert_true(hits > 0);
        free(keys);
        free(new_keys);
        free(caches);
        free(new_caches);
        free(poses);
        free(boxes);
        kcbp_collide_result_free(&res);
        kcbp_scene_frame_free(&fr);
        kcbp_broadphase_free(bp);
        kcbp_scene_eval_clear(&ev);
    }
    kcbp_scene_clear(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gjk_warm_start),
        cmocka_unit_test(test_below_suzanne_suzanne),
        cmocka_unit_test(test_below_woody_suzanne),
        cmocka_unit_test(test_below_cubes_touching),
        cmocka_unit_test(test_cache_suzanne_bunny2),
        cmocka_unit_test(test_cache_suzanne_suzanne),
        cmocka_unit_test(test_cache_woody_suzanne),
        cmocka_unit_test(test_cache_junk),
        cmocka_unit_test(test_cache_moving_scene),
    };
    return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
