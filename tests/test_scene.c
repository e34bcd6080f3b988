/* Scenes: the broad phase against all pairs, scene answers against
 * kcbp_collide on every pair (static and moving), the pose composition, the
 * thesis layout, and kcbp scene / kcbp batch as a user runs them: --jobs and
 * --shard do not change the output, and every kind of bad scene file gets an
 * error that names the field. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include <kcbp/kcbp.h>

#include "bv.h"
#include "scene/box_scan.h"
#include "hitrate.h"
#include "scene_layout.h"
#include "testutil.h"

static char tmpdir[] = "/tmp/kcbp-scene-XXXXXX";
static char cwd[1024];

static void parse_scene(kcbp_scene *s, const char *json, const char *dir)
{
    kcbp_error err = {0};
    if (kcbp_scene_parse_into(s, "test.json", dir, json, strlen(json), &err) != KCBP_OK ||
        kcbp_scene_build(s, NULL, &err) != KCBP_OK)
        fail_msg("scene: %s", err.msg);
}

/* ---- broad phase -------------------------------------------------------- */

/* Every object of the tree overlapping box a, as the query finds them,
 * against all boxes (closed boxes). */
static void check_tree_brute(const kcbp_boxtree *t, const kcbp_aabb *boxes, const uint8_t *live, uint32_t n)
{
    uint32_t *found = NULL;
    size_t cap = 0;
    for (uint32_t a = 0; a < n; a++) {
        if (live && !live[a])
            continue;
        size_t np = kcbp_boxtree_query(t, &boxes[a], a, &found, &cap, 0);
        assert_true(np != SIZE_MAX);
        kcbp_sort_ids(found, np);
        size_t k = 0;
        for (uint32_t b = a + 1; b < n; b++) {
            if ((live && !live[b]) || !kcbp_aabb_overlap(boxes[a], boxes[b]))
                continue;
            if (k >= np || found[k] != b)
                fail_msg("broad phase misses or misorders pair (%u, %u)", a, b);
            k++;
        }
        assert_int_equal(k, np);
        /* every object (min_id -1): a itself too */
        size_t all = kcbp_boxtree_query(t, &boxes[a], -1, &found, &cap, 0);
        size_t expect = 0;
        for (uint32_t b = 0; b < n; b++)
            expect += (!live || live[b]) && kcbp_aabb_overlap(boxes[a], boxes[b]);
        assert_int_equal(all, expect);
    }
    free(found);
}

static bool box_holds(kcbp_aabb outer, kcbp_aabb in)
{
    return outer.min.x <= in.min.x && outer.min.y <= in.min.y && outer.min.z <= in.min.z && in.max.x <= outer.max.x &&
           in.max.y <= outer.max.y && in.max.z <= outer.max.z;
}

/* The depth of the tree below node i (a leaf: 1). */
static uint32_t tree_depth(const kcbp_boxtree *t, uint32_t i)
{
    if (t->nodes[i].count)
        return 1;
    uint32_t l = tree_depth(t, t->nodes[i].first), r = tree_depth(t, t->nodes[i].first + 1);
    return 1 + (l > r ? l : r);
}

/* Every node's box holds its children's (or its objects'). */
static void check_tree_boxes(const kcbp_boxtree *t)
{
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const kcbp_bt_node *nd = &t->nodes[i];
        if (nd->count) {
            for (uint32_t k = nd->first; k < nd->first + nd->count; k++)
                assert_true(box_holds(nd->box, t->lbox[k]));
        } else {
            assert_true(nd->first > i);
            assert_true(box_holds(nd->box, t->nodes[nd->first].box));
            assert_true(box_holds(nd->box, t->nodes[nd->first + 1].box));
        }
    }
}

/* The same tree below nodes i of a and j of b: the same splits, leaves
 * and boxes, whatever the numbering. */
static void same_subtree(const kcbp_boxtree *a, uint32_t i, const kcbp_boxtree *b, uint32_t j)
{
    const kcbp_bt_node *x = &a->nodes[i], *y = &b->nodes[j];
    assert_int_equal(x->count, y->count);
    assert_memory_equal(&x->box, &y->box, sizeof x->box);
    if (x->count) {
        assert_int_equal(x->first, y->first);
        return;
    }
    same_subtree(a, x->first, b, y->first);
    same_subtree(a, x->first + 1, b, y->first + 1);
}

/* kcbp_boxtree_build_on (the subtrees on threads) against
 * kcbp_boxtree_build: the same tree (splits, leaf order, boxes), every
 * node used, the same nodes for 0, 1 and 2 threads, and the pairs of all
 * pairs, on random boxes, piles of one box, and centres doubling (one
 * object split off per level), from 0 to 400 objects. */
static void test_boxtree_on_threads(void **state)
{
    (void)state;
    enum { N = 1500 }; /* above the size from which the build goes to the threads (boxtree_tasks.c) */
    kcbp_aabb *boxes = malloc(N * sizeof *boxes);
    assert_non_null(boxes);
    kcbp_pool *pools[3];
    for (unsigned k = 0; k < 3; k++)
        assert_int_equal(kcbp_pool_new(k, &pools[k], NULL), KCBP_OK);
    test_rng r = {11};
    const uint32_t sizes[] = {0, 1, 4, 5, 9, 17, 40, 123, 400, 1023, 1024, N};
    for (int kind = 0; kind < 3; kind++) {
        for (int i = 0; i < N; i++) {
            if (kind == 0) { /* (one draw per statement: the same boxes whatever the compiler) */
                double cx = test_rng_range(&r, -10, 10);
                double cy = test_rng_range(&r, -6, 6);
                double cz = test_rng_range(&r, -3, 3);
                double ex = test_rng_range(&r, 0.1, 1);
                double ey = test_rng_range(&r, 0.1, 1);
                double ez = test_rng_range(&r, 0.1, 1);
                kcbp_vec3 c = kcbp_v3(cx, cy, cz), e = kcbp_v3(ex, ey, ez);
                boxes[i] = (kcbp_aabb){kcbp_v3_sub(c, e), kcbp_v3_add(c, e)};
            } else if (kind == 1) {
                boxes[i] = (kcbp_aabb){{0, 0, 0}, {1, 1, 1}};
            } else {
                double x = ldexp(1.0, (i % 400) / 2);
                boxes[i] = (kcbp_aabb){{x, 0, 0}, {x * 1.01, 1, 1}};
            }
        }
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            uint32_t n = sizes[z];
            kcbp_boxtree serial, on[3];
            kcbp_boxtree_init(&serial);
            assert_int_equal(kcbp_boxtree_build(&serial, boxes, NULL, n, NULL), KCBP_OK);
            for (unsigned k = 0; k < 3; k++) {
                kcbp_boxtree_init(&on[k]);
                assert_int_equal(kcbp_boxtree_build_on(&on[k], boxes, NULL, n, pools[k], NULL), KCBP_OK);
                assert_int_equal(on[k].nnodes, serial.nnodes);
                assert_int_equal(on[k].nobjects, n);
                if (n) {
                    assert_memory_equal(on[k].order, serial.order, n * sizeof *serial.order);
                    same_subtree(&serial, 0, &on[k], 0);
                    assert_true(fabs(on[k].cost_built - serial.cost_built) <= 1e-9 * (1 + serial.cost_built));
                }
                check_tree_boxes(&on[k]);
                if (k)
                    assert_memory_equal(on[k].nodes, on[0].nodes, n ? on[0].nnodes * sizeof *on[0].nodes : 0);
            }
            check_tree_brute(&on[2], boxes, NULL, n);
            /* a refit keeps it; a rebuild asked builds the same again */
            assert_int_equal(kcbp_boxtree_update_on(&on[2], boxes, false, pools[2], NULL), KCBP_OK);
            assert_false(on[2].rebuilt && n);
            assert_int_equal(kcbp_boxtree_update_on(&on[2], boxes, true, pools[2], NULL), KCBP_OK);
            assert_true(on[2].rebuilt);
            if (n)
                assert_memory_equal(on[2].nodes, on[0].nodes, on[0].nnodes * sizeof *on[0].nodes);
            check_tree_brute(&on[2], boxes, NULL, n);
            kcbp_boxtree_free(&serial);
            for (unsigned k = 0; k < 3; k++)
                kcbp_boxtree_free(&on[k]);
        }
    }
    for (unsigned k = 0; k < 3; k++)
        kcbp_pool_free(pools[k]);
    free(boxes);
}

static void test_broadphase_vs_all_pairs(void **state)
{
    (void)state;
    enum { N = 1500 }; /* above the size from which the build goes to the threads (boxtree_tasks.c) */
    kcbp_aabb *boxes = malloc(N * sizeof *boxes);
    kcbp_vec3 *vel = malloc(N * sizeof *vel);
    assert_non_null(boxes);
    assert_non_null(vel);
    test_rng r = {42};
    for (int i = 0; i < N; i++) {
        kcbp_vec3 c = kcbp_v3(test_rng_range(&r, -10, 10), test_rng_range(&r, -6, 6), test_rng_range(&r, -3, 3));
        kcbp_vec3 e = kcbp_v3(test_rng_range(&r, 0.1, 1), test_rng_range(&r, 0.1, 1), test_rng_range(&r, 0.1, 1));
        boxes[i] = (kcbp_aabb){kcbp_v3_sub(c, e), kcbp_v3_add(c, e)};
        vel[i] = kcbp_v3(test_rng_range(&r, -0.05, 0.05), test_rng_range(&r, -0.05, 0.05), 0);
    }
    boxes[7] = boxes[3]; /* identical boxes, and boxes that only touch */
    boxes[8] = boxes[3];
    boxes[9].min.x = boxes[3].max.x;
    boxes[9].min.y = boxes[3].min.y;
    boxes[9].min.z = boxes[3].min.z;
    boxes[10] = (kcbp_aabb){{-30, -30, -4}, {30, 30, -2.5}}; /* a floor under everything */
    boxes[11] = (kcbp_aabb){{1, 1, 1}, {1, 1, 1}};           /* a point */
    kcbp_boxtree t;
    kcbp_boxtree_init(&t);
    assert_int_equal(kcbp_boxtree_build(&t, boxes, NULL, N, NULL), KCBP_OK);
    check_tree_boxes(&t);
    check_tree_brute(&t, boxes, NULL, N);
    uint64_t builds = t.builds;
    for (int step = 0; step < 20; step++) { /* small moves: the tree is refitted */
        for (int i = 0; i < N; i++) {
            boxes[i].min = kcbp_v3_add(boxes[i].min, vel[i]);
            boxes[i].max = kcbp_v3_add(boxes[i].max, vel[i]);
        }
        assert_int_equal(kcbp_boxtree_update(&t, boxes, false, NULL), KCBP_OK);
        check_tree_boxes(&t);
        check_tree_brute(&t, boxes, NULL, N);
    }
    assert_true(t.refits > 0);
    assert_true(t.builds < builds + 20);
    /* A scramble: the refit tree is much worse than a new one, and is built again. */
    for (int i = 0; i < N; i++) {
        double dx = test_rng_range(&r, -40, 40), dy = test_rng_range(&r, -40, 40);
        boxes[i].min.x += dx, boxes[i].max.x += dx;
        boxes[i].min.y += dy, boxes[i].max.y += dy;
    }
    builds = t.builds;
    assert_int_equal(kcbp_boxtree_update(&t, boxes, false, NULL), KCBP_OK);
    assert_true(t.rebuilt && t.builds == builds + 1);
    check_tree_boxes(&t);
    check_tree_brute(&t, boxes, NULL, N);
    assert_int_equal(kcbp_boxtree_update(&t, boxes, true, NULL), KCBP_OK);
    assert_true(t.rebuilt);
    check_tree_brute(&t, boxes, NULL, N);

    /* A subset of ids (a world's live objects). */
    uint8_t live[N];
    uint32_t ids[N], nl = 0;
    for (uint32_t i = 0; i < N; i++)
        if ((live[i] = (uint8_t)(i % 3 != 1)))
            ids[nl++] = i;
    assert_int_equal(kcbp_boxtree_build(&t, boxes, ids, nl, NULL), KCBP_OK);
    check_tree_brute(&t, boxes, live, N);

    /* Degenerate piles: every box the same (the middle split keeps the
     * tree balanced), and boxes whose centres double from one to the next
     * (each split peels one off: the depth stays bounded). */
    for (int i = 0; i < N; i++)
        boxes[i] = (kcbp_aabb){{0, 0, 0}, {1, 1, 1}};
    assert_int_equal(kcbp_boxtree_build(&t, boxes, NULL, N, NULL), KCBP_OK);
    check_tree_brute(&t, boxes, NULL, N);
    assert_true(tree_depth(&t, 0) <= 12);
    for (int i = 0; i < N; i++) {
        double x = ldexp(1.0, i / 2);
        boxes[i] = (kcbp_aabb){{x, 0, 0}, {x * 1.01, 1, 1}};
    }
    assert_int_equal(kcbp_boxtree_build(&t, boxes, NULL, N, NULL), KCBP_OK);
    check_tree_boxes(&t);
    check_tree_brute(&t, boxes, NULL, N);
    assert_true(tree_depth(&t, 0) <= 96);

    for (uint32_t n = 0; n <= 1; n++) {
        assert_int_equal(kcbp_boxtree_build(&t, boxes, NULL, n, NULL), KCBP_OK);
        uint32_t *found = NULL;
        size_t cap = 0;
        assert_int_equal(kcbp_boxtree_query(&t, &boxes[0], 0, &found, &cap, 0), 0);
        free(found);
    }
    kcbp_boxtree_free(&t);

    /* The public face: pairs sorted by (a, b). */
    test_rng r2 = {7};
    for (int i = 0; i < N; i++) {
        kcbp_vec3 c = kcbp_v3(test_rng_range(&r2, -5, 5), test_rng_range(&r2, -5, 5), test_rng_range(&r2, -5, 5));
        boxes[i] = (kcbp_aabb){kcbp_v3_sub(c, kcbp_v3(0.6, 0.6, 0.6)), kcbp_v3_add(c, kcbp_v3(0.6, 0.6, 0.6))};
    }
    kcbp_broadphase *bp;
    assert_int_equal(kcbp_broadphase_new(N, &bp, NULL), KCBP_OK);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(kcbp_broadphase_update(bp, boxes, NULL), KCBP_OK);
        const kcbp_index_pair *pairs;
        size_t np = kcbp_broadphase_pairs(bp, &pairs), k = 0;
        for (uint32_t a = 0; a < N; a++)
            for (uint32_t b = a + 1; b < N; b++)
                if (kcbp_aabb_overlap(boxes[a], boxes[b])) {
                    assert_true(k < np && pairs[k].a == a && pairs[k].b == b);
                    k++;
                }
        assert_int_equal(k, np);
        for (int i = 0; i < N; i++)
            boxes[i].max.x += 0.1 * round;
    }
    kcbp_broadphase_free(bp);
    free(boxes);
    free(vel);
}

/* The few-objects broad phase (box_scan.h) against all pairs, and against
 * the tree on the same boxes: identical, touching and point boxes, a box
 * touching only the last id, every query id. */
static void test_box_scan_vs_all_pairs(void **state)
{
    (void)state;
    enum { N = 60 };
    kcbp_aabb boxes[N];
    test_rng r = {7};
    for (int i = 0; i < N; i++) {
        double cx = test_rng_range(&r, -4, 4), cy = test_rng_range(&r, -3, 3), cz = test_rng_range(&r, -2, 2);
        double ex = test_rng_range(&r, 0.1, 1), ey = test_rng_range(&r, 0.1, 1), ez = test_rng_range(&r, 0.1, 1);
        boxes[i] = (kcbp_aabb){{cx - ex, cy - ey, cz - ez}, {cx + ex, cy + ey, cz + ez}};
    }
    boxes[5] = boxes[2]; /* identical, touching on a face, on an edge, at a corner */
    boxes[6] = boxes[2];
    boxes[6].min.x = boxes[2].max.x, boxes[6].max.x = boxes[2].max.x + 1;
    boxes[7] = (kcbp_aabb){boxes[2].max, kcbp_v3_add(boxes[2].max, kcbp_v3(1, 1, 1))};
    boxes[8] = (kcbp_aabb){{1, 1, 1}, {1, 1, 1}}; /* a point */
    boxes[0] = (kcbp_aabb){{100, 100, 100}, {101, 101, 101}};
    boxes[N - 1] = (kcbp_aabb){{101, 101, 101}, {102, 102, 102}}; /* touches only id 0, at a corner */
    kcbp_boxtree t;
    kcbp_boxtree_init(&t);
    assert_int_equal(kcbp_boxtree_build(&t, boxes, NULL, N, NULL), KCBP_OK);
    uint32_t *found = NULL, *tree = NULL;
    size_t cap = 0, tcap = 0, total = 0;
    for (uint32_t a = 0; a < N; a++) {
        size_t np = kcbp_box_scan_after(boxes, N, a, &found, &cap);
        assert_true(np != SIZE_MAX);
        size_t k = 0;
        for (uint32_t b = a + 1; b < N; b++) {
            if (!kcbp_aabb_overlap(boxes[a], boxes[b]))
                continue;
            if (k >= np || found[k] != b)
                fail_msg("box scan misses or misorders pair (%u, %u)", a, b);
            k++;
        }
        assert_int_equal(k, np);
        size_t nt = kcbp_boxtree_query(&t, &boxes[a], a, &tree, &tcap, 0);
        kcbp_sort_ids(tree, nt);
        assert_int_equal(nt, np);
        if (np)
            assert_memory_equal(tree, found, np * sizeof *found);
        total += np;
    }
    assert_true(total > N); /* dense enough to mean something */
    free(found);
    free(tree);
    kcbp_boxtree_free(&t);
}

/* ---- scene answers against kcbp_collide on every pair ------------------- */

/* Evaluates frame f and compares with kcbp_collide over all pairs, using
 * reference models (one per object, built here from the mesh file and the
 * scale, not by the scene) when refs is given. */
static void check_frame(const kcbp_scene *s, kcbp_scene_eval *ev, uint32_t f, const kcbp_model *refs,
                        const uint32_t *ref_of, size_t *ncolliding)
{
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    kcbp_error err = {0};
    if (kcbp_scene_eval_frame(ev, f, &fr, &err) != KCBP_OK)
        fail_msg("frame %u: %s", f, err.msg);
    assert_int_equal(fr.pairs, (uint64_t)s->nobjects * (s->nobjects - 1) / 2);
    assert_true(fr.colliding <= fr.mesh_tested && fr.mesh_tested <= fr.broadphase && fr.broadphase <= fr.pairs);
    kcbp_collide_result res = {0};
    size_t k = 0;
    for (uint32_t a = 0; a < s->nobjects; a++)
        for (uint32_t b = a + 1; b < s->nobjects; b++) {
            kcbp_pose pa = kcbp_scene_object_pose(s, a, f), pb = kcbp_scene_object_pose(s, b, f);
            const kcbp_model *ma = refs ? &refs[ref_of[a]] : &s->models[s->objects[a].model].model;
            const kcbp_model *mb = refs ? &refs[ref_of[b]] : &s->models[s->objects[b].model].model;
            assert_int_equal(kcbp_collide(ma, &pa, mb, &pb, &ev->options, &res, NULL), KCBP_OK);
            if (!res.collide)
                continue;
            if (k >= fr.colliding || fr.hits[k].a != a || fr.hits[k].b != b)
                fail_msg("frame %u: scene misses the colliding pair (%s, %s)", f, s->objects[a].name,
                         s->objects[b].name);
            assert_int_equal(fr.hits[k].count, res.ncontacts);
            if (res.ncontacts) /* with no contacts fr.contacts may be NULL, and NULL + 0 is undefined */
                assert_memory_equal(fr.contacts + fr.hits[k].first, res.contacts,
                                    res.ncontacts * sizeof *res.contacts);
            k++;
        }
    if (k != fr.colliding)
        fail_msg("frame %u: the scene reports %zu colliding pairs, kcbp_collide finds %zu", f, (size_t)fr.colliding,
                 k);
    *ncolliding += k;
    kcbp_collide_result_free(&res);
    kcbp_scene_frame_free(&fr);
}

static void test_thesis_scene_vs_all_pairs(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/suzanne.obj", &mesh, NULL), KCBP_OK);
    size_t colliding = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        kcbp_scene s;
        kcbp_error err = {0};
        assert_int_equal(test_scene_thesis(&s, "meshes/suzanne.obj", mesh.bounds, 40, seed, &err), KCBP_OK);
        assert_int_equal(s.nobjects, 41);
        assert_int_equal(s.nmodels, 1);
        if (kcbp_scene_build(&s, NULL, &err) != KCBP_OK)
            fail_msg("%s", err.msg);
        kcbp_scene_eval ev;
        kcbp_collide_options o = kcbp_collide_options_default();
        o.contacts = seed == 1 ? KCBP_CONTACTS_ALL : KCBP_CONTACTS_NONE;
        o.use_cbp = seed != 3; /* --filter aabb */
        assert_int_equal(kcbp_scene_eval_init(&ev, &s, &o, NULL), KCBP_OK);
        check_frame(&s, &ev, 0, NULL, NULL, &colliding);
        kcbp_scene_eval_clear(&ev);
        kcbp_scene_clear(&s);
    }
    assert_true(colliding > 10); /* the layout is dense: the test means something */
    kcbp_mesh_clear(&mesh);
}

/* A static frame of fewer than 2,048 objects (KCBP_ADAPT_SMALL_RUN chunks)
 * with the adaptive k-CBP stage runs no pilot: no pair takes the k-CBP
 * stage (every one counted as skipped by the adaptive rule), and the
 * pairs are those of kcbp_collide on every pair (check_frame). */
/* Scenes of KCBP_BOX_SCAN_MAX objects (the box scan) and one more (the
 * tree), static and moving: the pairs of kcbp_collide on every pair. */
static void test_scan_and_tree_scenes_vs_all_pairs(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/suzanne.obj", &mesh, NULL), KCBP_OK);
    size_t colliding = 0;
    for (uint32_t n = KCBP_BOX_SCAN_MAX - 1; n <= KCBP_BOX_SCAN_MAX; n++) {
        kcbp_scene s;
        kcbp_error err = {0};
        assert_int_equal(test_scene_thesis(&s, "meshes/suzanne.obj", mesh.bounds, n, 5, &err), KCBP_OK);
        assert_int_equal(s.nobjects, n + 1);
        s.moving = true; /* and each object drifts (coherent frames: the tree is refitted) */
        s.frames = 2;
        s.dt = 0.5;
        for (uint32_t i = 0; i < s.nobjects; i++)
            s.objects[i].velocity = kcbp_v3(0.01 * (double)(i % 7), -0.005 * (double)(i % 5), 0);
        if (kcbp_scene_build(&s, NULL, &err) != KCBP_OK)
            fail_msg("%s", err.msg);
        kcbp_scene_eval ev;
        kcbp_collide_options o = kcbp_collide_options_default();
        o.contacts = KCBP_CONTACTS_ALL; /* (the first contact of a moving pair comes from its cache) */
        assert_int_equal(kcbp_scene_eval_init(&ev, &s, &o, NULL), KCBP_OK);
        for (uint32_t f = 0; f < s.frames; f++)
            check_frame(&s, &ev, f, NULL, NULL, &colliding);
        kcbp_scene_eval_clear(&ev);
        kcbp_scene_clear(&s);
    }
    assert_true(colliding > 20);
    kcbp_mesh_clear(&mesh);
}

static void test_small_static_frame_boxes_only(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/suzanne.obj", &mesh, NULL), KCBP_OK);
    kcbp_scene s;
    kcbp_error err = {0};
    assert_int_equal(test_scene_thesis(&s, "meshes/suzanne.obj", mesh.bounds, 40, 2, &err), KCBP_OK);
    if (kcbp_scene_build(&s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    kcbp_scene_eval ev;
    kcbp_collide_options o = kcbp_collide_options_default();
    assert_true(o.use_cbp);
    assert_int_equal(kcbp_scene_eval_init(&ev, &s, &o, NULL), KCBP_OK);
    size_t colliding = 0;
    check_frame(&s, &ev, 0, NULL, NULL, &colliding);
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    assert_int_equal(kcbp_scene_eval_frame(&ev, 0, &fr, &err), KCBP_OK);
    assert_true(fr.broadphase > 0);
    assert_int_equal(fr.cbp_adaptive_skips, fr.broadphase);
    assert_int_equal(fr.colliding, colliding);
    kcbp_scene_frame_free(&fr);
    kcbp_scene_eval_clear(&ev);
    kcbp_scene_clear(&s);
    kcbp_mesh_clear(&mesh);
}

/* Two meshes, three scales, a moving scene: answers per frame against
 * reference models built here, and the documented pose composition. */
static void test_moving_scene_vs_all_pairs(void **state)
{
    (void)state;
    static const char json[] =
        "{\"objects\": ["
        " {\"name\": \"s1\", \"mesh\": \"suzanne.obj\", \"position\": [0, 0, 0]},"
        " {\"name\": \"s2\", \"mesh\": \"suzanne.obj\", \"position\": [2.5, 0.2, 0], \"velocity\": [-4, 0, 0],"
        "  \"angular_velocity\": {\"axis\": [0, 1, 1], \"deg_per_s\": 20}},"
        " {\"name\": \"s3\", \"mesh\": \"suzanne.obj\", \"position\": [-1.25, 1.2, 2.05], \"scale\": 0.5,"
        "  \"rotation\": {\"axis\": [1, 0, 0], \"angle_deg\": 30}, \"velocity\": [0, -1, 0]},"
        " {\"name\": \"w1\", \"mesh\": \"spot.obj\", \"position\": [-2.5, 1.25, 4.1], \"scale\": 2,"
        "  \"angular_velocity\": {\"axis\": [0, 0, 1], \"deg_per_s\": -200}},"
        " {\"name\": \"s4\", \"mesh\": \"suzanne.obj\", \"position\": [-1.5, 0.6, 2.0], \"scale\": 0.5,"
        "  \"rotation\": {\"axis\": [0, 0, 0], \"angle_deg\": 0}},"
        " {\"name\": \"w2\", \"mesh\": \"spot.obj\", \"position\": [-1, 1.25, 4.3],"
        "  \"rotation\": {\"axis\": [0, 1, 0], \"angle_deg\": 90}, \"velocity\": [-2, 0.5, 0]}"
        "], \"motion\": {\"frames\": 8, \"dt\": 0.125}}";
    kcbp_scene s;
    parse_scene(&s, json, "meshes");
    assert_true(s.moving);
    assert_int_equal(s.frames, 8);
    /* (spot, 1), (spot, 2), (suzanne, 0.5), (suzanne, 1) */
    assert_int_equal(s.nmodels, 4);
    assert_int_equal(s.objects[2].model, s.objects[4].model);
    assert_int_not_equal(s.objects[0].model, s.objects[2].model);

    /* Reference models: loaded and scaled here. */
    const char *files[] = {"meshes/suzanne.obj", "meshes/spot.obj"};
    const double scales[] = {1, 0.5, 2};
    kcbp_model refs[6];
    for (int i = 0; i < 6; i++) {
        kcbp_mesh m;
        assert_int_equal(kcbp_obj_load_into(files[i / 3], &m, NULL), KCBP_OK);
        for (uint32_t v = 0; v < m.nvertices; v++)
            m.vertices[v] = kcbp_v3_scale(m.vertices[v], scales[i % 3]);
        kcbp_mesh sm;
        assert_int_equal(kcbp_mesh_init(&sm, m.vertices, m.nvertices, m.triangles, m.ntriangles, NULL), KCBP_OK);
        kcbp_mesh_clear(&m);
        assert_int_equal(kcbp_model_build_from(&refs[i], &sm, NULL, NULL), KCBP_OK);
    }
    const uint32_t ref_of[6] = {0, 0, 1, 5, 1, 3};
    for (uint32_t i = 0; i < s.nobjects; i++) { /* the scene's models are the scaled meshes */
        const kcbp_mesh *a = &s.models[s.objects[i].model].model.impl->mesh, *b = &refs[ref_of[i]].impl->mesh;
        assert_int_equal(a->nvertices, b->nvertices);
        assert_memory_equal(a->vertices, b->vertices, a->nvertices * sizeof *a->vertices);
    }

    /* world(x) = S(ws, f dt w) R(axis, angle) (scale x) + position + f dt velocity */
    for (uint32_t f = 0; f < s.frames; f++)
        for (uint32_t i = 0; i < s.nobjects; i++) {
            const kcbp_scene_obj *o = &s.objects[i];
            double t = f * 0.125;
            kcbp_pose r0, spin;
            assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &r0, NULL), KCBP_OK);
            assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3_add(o->position, kcbp_v3_scale(o->velocity, t)),
                                                       o->spin_axis, t * o->spin_deg_per_s, &spin, NULL),
                             KCBP_OK);
            kcbp_pose want = kcbp_pose_mul(&spin, &r0), got = kcbp_scene_object_pose(&s, i, f);
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    assert_true(fabs(want.rot.m[a][b] - got.rot.m[a][b]) < 1e-14);
            assert_true(kcbp_v3_len(kcbp_v3_sub(want.trans, got.trans)) < 1e-14);
        }

    kcbp_scene_eval ev;
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    assert_int_equal(kcbp_scene_eval_init(&ev, &s, &o, NULL), KCBP_OK);
    size_t colliding = 0;
    for (uint32_t f = 0; f < s.frames; f++)
        check_frame(&s, &ev, f, refs, ref_of, &colliding);
    assert_true(colliding >= 40);
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    assert_int_equal(kcbp_scene_eval_frame(&ev, s.frames, &fr, NULL), KCBP_ERR_INVALID);
    kcbp_scene_frame_free(&fr);
    kcbp_scene_eval_clear(&ev);
    for (int i = 0; i < 6; i++)
        kcbp_model_free(&refs[i]);
    kcbp_scene_clear(&s);
}

/* A spinning object's pose, bit for bit kcbp_pose_from_axis_angle's
 * rotation times its own (scene_desc.c takes the rotation without the
 * checks): angles under, at and beyond a turn, negative, huge, and a spin
 * that overflows to infinity (left out). */
static kcbp_mat3 ref_rotation(kcbp_vec3 axis, double deg) /* pose.c's formula before the shortcut */
{
    double len = kcbp_v3_len(axis);
    if (!(len > 1e-150 && len < 1e150)) {
        double m = fmax(fabs(axis.x), fmax(fabs(axis.y), fabs(axis.z)));
        axis = kcbp_v3(axis.x / m, axis.y / m, axis.z / m);
        len = kcbp_v3_len(axis);
    }
    kcbp_vec3 u = kcbp_v3_scale(axis, 1.0 / len);
    double rad = fmod(deg, 360.0) * (M_PI / 180.0);
    double c = cos(rad), s = sin(rad), t = 1.0 - c;
    kcbp_mat3 r = {{{c + t * u.x * u.x, t * u.x * u.y - s * u.z, t * u.x * u.z + s * u.y},
                    {t * u.y * u.x + s * u.z, c + t * u.y * u.y, t * u.y * u.z - s * u.x},
                    {t * u.z * u.x - s * u.y, t * u.z * u.y + s * u.x, c + t * u.z * u.z}}};
    return r;
}

static void test_spin_pose_bits(void **state)
{
    (void)state;
    static const char json[] =
        "{\"objects\": ["
        " {\"name\": \"a\", \"mesh\": \"suzanne.obj\", \"position\": [1, 2, 3],"
        "  \"rotation\": {\"axis\": [1, 2, -1], \"angle_deg\": 33},"
        "  \"angular_velocity\": {\"axis\": [0.3, -0.5, 0.8], \"deg_per_s\": 7.3}},"
        " {\"name\": \"b\", \"mesh\": \"suzanne.obj\", \"position\": [9, 2, 3],"
        "  \"angular_velocity\": {\"axis\": [0, 0, 1e-200], \"deg_per_s\": -1e300}},"
        " {\"name\": \"c\", \"mesh\": \"suzanne.obj\", \"position\": [5, 2, 3],"
        "  \"angular_velocity\": {\"axis\": [1, 1, 0], \"deg_per_s\": 90}}"
        "], \"motion\": {\"frames\": 4, \"dt\": 0.5}}";
    kcbp_scene s;
    parse_scene(&s, json, "meshes");
    const double times[] = {0.25, 1, 2, 4, -4, 8.5, 49.3, 49.3150684931506, 50, 98.63013698630137, -50, -98.7, 1e5 + 0.3, 1e15, 3e300};
    for (uint32_t i = 0; i < s.nobjects; i++)
        for (size_t k = 0; k < sizeof times / sizeof *times; k++) {
            const kcbp_scene_obj *o = &s.objects[i];
            double t = times[k];
            kcbp_pose got = kcbp_scene_pose_at(&s, i, t), spin, r0;
            assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &r0, NULL), KCBP_OK);
            kcbp_mat3 want = r0.rot;
            if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->spin_axis, t * o->spin_deg_per_s, &spin, NULL) ==
                KCBP_OK) {
                kcbp_mat3 ref = ref_rotation(o->spin_axis, t * o->spin_deg_per_s);
                if (memcmp(&ref, &spin.rot, sizeof ref) != 0)
                    fail_msg("kcbp_pose_from_axis_angle(%.17g degrees) differs from Rodrigues' formula",
                             t * o->spin_deg_per_s);
                want = kcbp_mat3_mul(&ref, &r0.rot);
            } else {
                assert_false(isfinite(t * o->spin_deg_per_s));
            }
            if (memcmp(&want, &got.rot, sizeof want) != 0)
                fail_msg("object %u at t = %.17g: the spin's rotation differs from kcbp_pose_from_axis_angle's", i, t);
        }
    kcbp_scene_clear(&s);
}

/* ---- the thesis layout ---------------------------------------------------- */

static void test_thesis_layout(void **state)
{
    (void)state;
    kcbp_aabb bounds = {kcbp_v3(-1, 2, 3), kcbp_v3(3, 2.5, 4)}; /* centre (1, 2.25, 3.5), largest half-extent 2 */
    kcbp_scene s, t;
    assert_int_equal(test_scene_thesis(&s, "m.obj", bounds, 200, 7, NULL), KCBP_OK);
    assert_int_equal(s.nobjects, 201);
    bool neg = false, big_t = false;
    for (uint32_t i = 0; i < s.nobjects; i++) {
        const kcbp_scene_obj *o = &s.objects[i];
        char name[16];
        snprintf(name, sizeof name, "o%u", i);
        assert_string_equal(o->name, name);
        assert_true(o->scale == 0.5);
        /* the translation of the normalised model: position + scale R c */
        kcbp_vec3 t0 = kcbp_v3_add(o->position, kcbp_mat3_mul_v3(&o->rot0, kcbp_v3_scale(kcbp_aabb_center(bounds), 0.5)));
        double tv[3] = {t0.x, t0.y, t0.z}, av[3] = {o->axis.x, o->axis.y, o->axis.z};
        for (int k = 0; k < 3; k++) {
            assert_true(fabs(tv[k] - round(tv[k])) < 1e-12 && fabs(tv[k]) <= 4);
            if (i > 0) /* copy 0 is at the identity */
                assert_true(fabs(av[k] * 100 - round(av[k] * 100)) < 1e-9 && fabs(av[k]) <= 0.99);
            neg |= tv[k] < -0.5 || av[k] < 0;
            big_t |= fabs(tv[k]) > 3.5;
            if (i == 0)
                assert_true(fabs(tv[k]) < 1e-12);
        }
        assert_true(o->angle_deg == floor(o->angle_deg) && o->angle_deg >= 0 && o->angle_deg < 180);
        if (i == 0)
            assert_true(o->angle_deg == 0);
    }
    assert_true(neg && big_t);
    /* Same seed, same scene; the JSON round-trips exactly. */
    char *a, *b, *c;
    assert_int_equal(kcbp_scene_to_text(&s, false, &a, NULL), KCBP_OK);
    assert_int_equal(test_scene_thesis(&t, "m.obj", bounds, 200, 7, NULL), KCBP_OK);
    assert_int_equal(kcbp_scene_to_text(&t, false, &b, NULL), KCBP_OK);
    assert_string_equal(a, b);
    kcbp_scene_clear(&t);
    assert_int_equal(kcbp_scene_parse_into(&t, "rt.json", "", a, strlen(a), NULL), KCBP_OK);
    assert_int_equal(t.nobjects, s.nobjects);
    for (uint32_t i = 0; i < s.nobjects; i++) {
        assert_memory_equal(&t.objects[i].position, &s.objects[i].position, sizeof(kcbp_vec3));
        assert_memory_equal(&t.objects[i].rot0, &s.objects[i].rot0, sizeof(kcbp_mat3));
        assert_true(t.objects[i].scale == s.objects[i].scale);
    }
    kcbp_scene_clear(&t);
    assert_int_equal(test_scene_thesis(&t, "m.obj", bounds, 200, 8, NULL), KCBP_OK);
    assert_int_equal(kcbp_scene_to_text(&t, false, &c, NULL), KCBP_OK);
    assert_string_not_equal(a, c);
    free(a);
    free(b);
    free(c);
    kcbp_scene_clear(&t);
    kcbp_scene_clear(&s);
}

/* ---- threads, shards, streaming, packed caches ----------------------------- */

typedef struct {
    kcbp_scene_hit *hits;
    size_t n, cap;
    kcbp_contact *contacts;
    size_t nc, capc;
    uint64_t stop_after; /* return an error after this many pairs (0: never) */
    const uint32_t *rank; /* the objects' ranks: the stream's order (NULL: not checked) */
} streamed;

static int cmp_scene_hit(const void *p, const void *q)
{
    const kcbp_scene_hit *x = p, *y = q;
    return x->a != y->a ? (x->a > y->a) - (x->a < y->a) : (x->b > y->b) - (x->b < y->b);
}

/* A streamed pair's place: its lower rank, then its higher. */
static uint64_t stream_key(const uint32_t *rank, uint32_t a, uint32_t b)
{
    uint32_t x = rank[a], y = rank[b];
    return x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
}

static kcbp_status take_pair(void *ctx, const kcbp_scene_pair *p, kcbp_error *err)
{
    streamed *s = ctx;
    assert_true(p->a < p->b);
    if (s->n && s->rank &&
        stream_key(s->rank, s->hits[s->n - 1].a, s->hits[s->n - 1].b) >= stream_key(s->rank, p->a, p->b))
        fail_msg("pairs out of order: (%u, %u) after (%u, %u)", p->a, p->b, s->hits[s->n - 1].a, s->hits[s->n - 1].b);
    if (s->stop_after && s->n == s->stop_after)
        return kcbp_error_set(err, KCBP_ERR_IO, "stop here");
    if (s->n == s->cap)
        s->hits = realloc(s->hits, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof *s->hits);
    while (s->nc + p->ncontacts > s->capc)
        s->contacts = realloc(s->contacts, (s->capc = s->capc ? 2 * s->capc : 64) * sizeof *s->contacts);
    if (p->ncontacts)
        memcpy(s->contacts + s->nc, p->contacts, p->ncontacts * sizeof *p->contacts);
    s->hits[s->n++] = (kcbp_scene_hit){p->a, p->b, s->nc, p->ncontacts, p->contained};
    s->nc += p->ncontacts;
    return KCBP_OK;
}

static void same_hits(const kcbp_scene_hit *h1, size_t n1, const kcbp_contact *c1, const kcbp_scene_hit *h2, size_t n2,
                      const kcbp_contact *c2)
{
    assert_int_equal(n1, n2);
    for (size_t k = 0; k < n1; k++) {
        assert_true(h1[k].a == h2[k].a && h1[k].b == h2[k].b && h1[k].count == h2[k].count &&
                    h1[k].contained == h2[k].contained);
        if (h1[k].count)
            assert_memory_equal(c1 + h1[k].first, c2 + h2[k].first, h1[k].count * sizeof *c1);
    }
}

/* One moving scene of 600 objects evaluated with 1, 2 and 3 threads, in 1
 * and 3 shards, collected and streamed: the same pairs, contacts and counts
 * everywhere (the shards' union is the whole and they do not overlap). */
static void test_threads_shards_streams(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/suzanne.obj", &mesh, NULL), KCBP_OK);
    kcbp_scene s;
    kcbp_error err = {0};
    assert_int_equal(test_scene_density(&s, "meshes/suzanne.obj", mesh.bounds, 599, 3, &err), KCBP_OK);
    kcbp_mesh_clear(&mesh);
    test_rng rng = {9};
    for (uint32_t i = 0; i < s.nobjects; i++) {
        s.objects[i].velocity = kcbp_v3_scale(test_rng_unit_vector(&rng), 1.5);
        s.objects[i].spin_axis = test_rng_unit_vector(&rng);
        s.objects[i].spin_deg_per_s = test_rng_range(&rng, 0, 200);
    }
    s.moving = true;
    s.frames = 4;
    s.dt = 0.02;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k_fine = KCBP_CBP_K_FINE_DEFAULT;
    if (kcbp_scene_build(&s, &mo, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    kcbp_scene_frame ref[4];
    memset(ref, 0, sizeof ref);
    for (unsigned jobs = 1; jobs <= 3; jobs++) {
        for (uint32_t shards = 1; shards <= 3; shards += 2) {
            kcbp_scene_eval *ev[3] = {NULL, NULL, NULL};
            for (uint32_t si = 0; si < shards; si++) {
                kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
                eo.collide.contacts = KCBP_CONTACTS_FIRST;
                eo.jobs = jobs;
                eo.shard_index = si;
                eo.shard_count = shards;
                assert_int_equal(kcbp_scene_eval_new(&s, &eo, &ev[si], &err), KCBP_OK);
            }
            for (uint32_t f = 0; f < s.frames; f++) {
                if (jobs == 1 && shards == 1) {
                    assert_int_equal(kcbp_scene_eval_frame(ev[0], f, &ref[f], &err), KCBP_OK);
                    assert_true(ref[f].colliding > 20 && ref[f].broadphase > ref[f].colliding);
                    if (f > 0)
                        assert_true(ref[f].cache_axis + ref[f].cache_contact > 0 && ref[f].pair_caches > 0);
                    else
                        assert_true(ref[f].pair_caches > 0); /* a moving scene keeps them from frame 0 on */
                    continue;
                }
                /* the shards' pairs, merged by (a, b) */
                streamed all = {0};
                uint64_t bp = 0, mesh_tested = 0, axis = 0, contact = 0, near = 0, skipped = 0, adaptive = 0;
                uint32_t *rank = malloc(s.nobjects * sizeof *rank);
                for (uint32_t k = 0; k < s.nobjects; k++)
                    rank[ev[0]->by_rank[k]] = k;
                for (uint32_t si = 0; si < shards; si++) {
                    kcbp_scene_frame fr;
                    memset(&fr, 0, sizeof fr);
                    streamed one = {.rank = rank};
                    assert_int_equal(kcbp_scene_eval_frame_stream(ev[si], f, take_pair, &one, &fr, &err), KCBP_OK);
                    assert_int_equal(fr.colliding, one.n);
                    for (size_t k = 0; k < one.n; k++) {
                        /* each pair in its own shard's chunks: those of its lower rank */
                        uint64_t key = stream_key(rank, one.hits[k].a, one.hits[k].b);
                        assert_int_equal(((key >> 32) / KCBP_SCENE_CHUNK) % shards, si);
                    }
                    for (size_t k = 0; k < one.n; k++) {
                        if (all.n == all.cap)
                            all.hits = realloc(all.hits, (all.cap = all.cap ? 2 * all.cap : 64) * sizeof *all.hits);
                        while (all.nc + one.hits[k].count > all.capc)
                            all.contacts =
                                realloc(all.contacts, (all.capc = all.capc ? 2 * all.capc : 64) * sizeof *all.contacts);
                        memcpy(all.contacts + all.nc, one.contacts + one.hits[k].first,
                               one.hits[k].count * sizeof *all.contacts);
                        all.hits[all.n] = one.hits[k];
                        all.hits[all.n++].first = all.nc;
                        all.nc += one.hits[k].count;
                    }
                    bp += fr.broadphase, mesh_tested += fr.mesh_tested, axis += fr.cache_axis;
                    contact += fr.cache_contact, near += fr.cache_near, skipped += fr.cbp_skipped;
                    adaptive += fr.cbp_adaptive_skips;
                    free(one.hits);
                    free(one.contacts);
                }
                free(rank);
                /* sort the union by (a, b), as kcbp_scene_eval_frame's hits */
                qsort(all.hits, all.n, sizeof *all.hits, cmp_scene_hit);
                        same_hits(ref[f].hits, ref[f].colliding, ref[f].contacts, all.hits, all.n, all.contacts);
                assert_int_equal(bp, ref[f].broadphase);
                assert_int_equal(mesh_tested, ref[f].mesh_tested);
                assert_int_equal(axis, ref[f].cache_axis);
                assert_int_equal(contact, ref[f].cache_contact);
                assert_int_equal(near, ref[f].cache_near);
                assert_int_equal(skipped, ref[f].cbp_skipped);
                assert_int_equal(adaptive, ref[f].cbp_adaptive_skips);
                free(all.hits);
                free(all.contacts);
            }
            for (uint32_t si = 0; si < shards; si++)
                kcbp_scene_eval_free(ev[si]);
        }
    }
    /* A callback's error stops the frame with it, on every thread count. */
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
        eo.collide.contacts = KCBP_CONTACTS_FIRST;
        eo.jobs = jobs;
        kcbp_scene_eval *ev;
        assert_int_equal(kcbp_scene_eval_new(&s, &eo, &ev, &err), KCBP_OK);
        kcbp_scene_frame fr;
        memset(&fr, 0, sizeof fr);
        streamed some = {.stop_after = 5};
        assert_int_equal(kcbp_scene_eval_frame_stream(ev, 0, take_pair, &some, &fr, &err), KCBP_ERR_IO);
        assert_string_equal(err.msg, "stop here");
        assert_int_equal(some.n, 5);
        free(some.hits);
        free(some.contacts);
        /* and the evaluation goes on afterwards: the same pairs (not always
         * the same contacts: the stopped frame kept no pair caches, and with
         * contacts FIRST a pair lists its last contact while it holds;
         * test_cache and test_world check that one is a true contact) */
        assert_int_equal(kcbp_scene_eval_frame(ev, 1, &fr, &err), KCBP_OK);
        assert_int_equal(fr.colliding, ref[1].colliding);
        for (size_t k = 0; k < fr.colliding; k++)
            assert_true(fr.hits[k].a == ref[1].hits[k].a && fr.hits[k].b == ref[1].hits[k].b &&
                        fr.hits[k].count == ref[1].hits[k].count && fr.hits[k].contained == ref[1].hits[k].contained);
        kcbp_scene_frame_free(&fr);
        kcbp_scene_eval_free(ev);
    }
    /* A one-frame scene keeps no pair cache. */
    s.frames = 1;
    s.moving = false;
    kcbp_scene_eval *ev;
    assert_int_equal(kcbp_scene_eval_new(&s, NULL, &ev, &err), KCBP_OK);
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    assert_int_equal(kcbp_scene_eval_frame(ev, 0, &fr, &err), KCBP_OK);
    assert_int_equal(fr.pair_caches, 0);
    assert_int_equal(ev->pairs.nstreams, 0);
    kcbp_scene_frame_free(&fr);
    kcbp_scene_eval_free(ev);
    /* bad options */
    kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
    eo.shard_index = 3;
    eo.shard_count = 3;
    assert_int_equal(kcbp_scene_eval_new(&s, &eo, &ev, &err), KCBP_ERR_INVALID);
    assert_null(ev);
    for (int f = 0; f < 4; f++)
        kcbp_scene_frame_free(&ref[f]);
    kcbp_scene_clear(&s);
}

/* Packed pair caches read back as they were (the axes to float precision,
 * as unit vectors once normalised; overlaps as the pair test reads it). */
static void test_packed_caches(void **state)
{
    (void)state;
    test_rng r = {77};
    kcbp_cache_stream st = {0};
    enum { N = 500 };
    struct kcbp_pair_cache in[N];
    uint32_t as[N], bs[N];
    uint32_t a = 1000;
    for (int i = 0; i < N; i++) {
        struct kcbp_pair_cache *c = &in[i];
        memset(c, 0, sizeof *c);
        c->flags = (uint32_t)(test_rng_uniform(&r) * 32);
        c->axis = test_rng_unit_vector(&r);
        c->fine_axis = test_rng_unit_vector(&r);
        c->simplex.count = (int)(test_rng_uniform(&r) * 5);
        c->fine_simplex.count = (int)(test_rng_uniform(&r) * 5);
        for (int k = 0; k < 4; k++) {
            c->simplex.ia[k] = (uint32_t)(test_rng_uniform(&r) * 5000);
            c->simplex.ib[k] = (uint32_t)(test_rng_uniform(&r) * 70000);
            c->fine_simplex.ia[k] = (uint32_t)(test_rng_uniform(&r) * 300);
            c->fine_simplex.ib[k] = (uint32_t)(test_rng_uniform(&r) * 3e9);
        }
        c->contact.a = (uint32_t)(test_rng_uniform(&r) * 4e9);
        c->contact.b = (uint32_t)(test_rng_uniform(&r) * 100);
        c->leaf[0] = (uint32_t)(test_rng_uniform(&r) * 1e6);
        c->leaf[1] = (uint32_t)(test_rng_uniform(&r) * 10);
        c->overlaps = i % 3 == 0 ? (uint32_t)(test_rng_uniform(&r) * 20) : i % 3 == 1 ? UINT32_MAX - (uint32_t)i : 0;
        a += test_rng_uniform(&r) < 0.3;
        as[i] = a;
        bs[i] = a + 1 + (uint32_t)(test_rng_uniform(&r) * 2e9);
        assert_true(kcbp_cache_pack(&st, 1000, as[i], bs[i], c));
    }
    assert_true(st.len < N * 80); /* (152 bytes each unpacked) */
    size_t at = 0;
    for (int i = 0; i < N; i++) {
        struct kcbp_pair_cache o;
        uint32_t ra, rb;
        kcbp_cache_unpack(&st, &at, 1000, &ra, &rb, &o);
        const struct kcbp_pair_cache *c = &in[i];
        assert_true(ra == as[i] && rb == bs[i]);
        assert_int_equal(o.flags, c->flags);
        if (c->flags & KCBP_PAIR_CACHE_AXIS)
            assert_true(kcbp_v3_len(kcbp_v3_sub(o.axis, c->axis)) < 1e-7);
        if (c->flags & KCBP_PAIR_CACHE_FINE_AXIS)
            assert_true(kcbp_v3_len(kcbp_v3_sub(o.fine_axis, c->fine_axis)) < 1e-7);
        assert_int_equal(o.simplex.count, c->simplex.count);
        for (int k = 0; k < c->simplex.count; k++)
            assert_true(o.simplex.ia[k] == c->simplex.ia[k] && o.simplex.ib[k] == c->simplex.ib[k]);
        assert_int_equal(o.fine_simplex.count, c->fine_simplex.count);
        for (int k = 0; k < c->fine_simplex.count; k++)
            assert_true(o.fine_simplex.ia[k] == c->fine_simplex.ia[k] && o.fine_simplex.ib[k] == c->fine_simplex.ib[k]);
        if (c->flags & KCBP_PAIR_CACHE_CONTACT)
            assert_true(o.contact.a == c->contact.a && o.contact.b == c->contact.b);
        if (c->flags & KCBP_PAIR_CACHE_LEAVES)
            assert_true(o.leaf[0] == c->leaf[0] && o.leaf[1] == c->leaf[1]);
        /* what the pair test reads of overlaps: whether it reached the skip
         * count, and its remainder modulo it */
        assert_true((o.overlaps >= KCBP_CACHE_SKIP_AFTER) == (c->overlaps >= KCBP_CACHE_SKIP_AFTER));
        if (c->overlaps >= KCBP_CACHE_SKIP_AFTER)
            assert_int_equal(o.overlaps % KCBP_CACHE_SKIP_AFTER, c->overlaps % KCBP_CACHE_SKIP_AFTER);
        else
            assert_int_equal(o.overlaps, c->overlaps);
        assert_true(kcbp_cache_useful(c) || (c->flags == 0 && !c->simplex.count && !c->fine_simplex.count && !c->overlaps));
    }
    assert_int_equal(at, st.len);
    free(st.data);
}

/* ---- continuous collision: turns of 180 degrees and more -------------------- */

/* A bar turning 350 degrees between two frames about its centre passes
 * through a cube a quarter turn away: the interval is cut in two steps of
 * 175 degrees and the hit found; the shorter arc (10 degrees back, the one
 * step of before) misses it, and a turn past 1000 steps is refused. */
static void test_ccd_spin(void **state)
{
    (void)state;
    test_tmp_write_text(tmpdir, "bar.obj",
                        "v -1 -0.05 -0.05\nv 1 -0.05 -0.05\nv 1 0.05 -0.05\nv -1 0.05 -0.05\n"
                        "v -1 -0.05 0.05\nv 1 -0.05 0.05\nv 1 0.05 0.05\nv -1 0.05 0.05\n"
                        "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n");
    const char *p = test_tmp_write_text(
        tmpdir, "spin.json",
        "{\"objects\": [{\"name\": \"bar\", \"mesh\": \"bar.obj\", \"position\": [0, 0, 0],"
        "  \"angular_velocity\": {\"axis\": [0, 0, 1], \"deg_per_s\": 350}},"
        " {\"name\": \"cube\", \"mesh\": \"bar.obj\", \"position\": [0, 0.8, 0], \"scale\": 0.05}],"
        " \"motion\": {\"frames\": 2, \"dt\": 1}}");
    kcbp_scene *s;
    kcbp_error err = {0};
    assert_int_equal(kcbp_scene_load(p, NULL, &s, &err), KCBP_OK);
    for (int one_step = 0; one_step < 2; one_step++) {
        kcbp_scene_eval *ev;
        assert_int_equal(kcbp_scene_eval_new(s, NULL, &ev, &err), KCBP_OK);
        ev->ccd_one_step = one_step;
        kcbp_scene_ccd c;
        memset(&c, 0, sizeof c);
        assert_int_equal(kcbp_scene_eval_ccd(ev, 1, NULL, &c, &err), KCBP_OK);
        if (one_step) {
            assert_int_equal(c.nhits, 0); /* the shorter arc: a wrong answer */
        } else {
            assert_int_equal(c.nhits, 1);
            assert_false(c.hits[0].undecided);
            /* the bar's edge (half-width 0.05) reaches the cube (|x| <= 0.05) near 90 - 7 degrees */
            double deg = c.hits[0].toi * 350;
            assert_true(deg > 80 && deg < 90);
        }
        kcbp_scene_ccd_free(&c);
        kcbp_scene_eval_free(ev);
    }
    kcbp_scene_free(s);
    p = test_tmp_write_text(tmpdir, "spin.json",
                            "{\"objects\": [{\"name\": \"bar\", \"mesh\": \"bar.obj\", \"position\": [0, 0, 0],"
                            "  \"angular_velocity\": {\"axis\": [0, 0, 1], \"deg_per_s\": 180000}},"
                            " {\"name\": \"cube\", \"mesh\": \"bar.obj\", \"position\": [0, 0.8, 0], \"scale\": 0.05}],"
                            " \"motion\": {\"frames\": 2, \"dt\": 1}}");
    assert_int_equal(kcbp_scene_load(p, NULL, &s, &err), KCBP_OK);
    kcbp_scene_eval *ev;
    assert_int_equal(kcbp_scene_eval_new(s, NULL, &ev, &err), KCBP_OK);
    kcbp_scene_ccd c;
    memset(&c, 0, sizeof c);
    assert_int_equal(kcbp_scene_eval_ccd(ev, 1, NULL, &c, &err), KCBP_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "objects[0].angular_velocity: turns 180000 degrees"));
    kcbp_scene_ccd_free(&c);
    kcbp_scene_eval_free(ev);
    kcbp_scene_free(s);
    /* as the program says it */
    test_run_result r;
    const char *argv[] = {"scene", p, "--ccd", NULL};
    test_run(&r, argv);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "more than 1000 steps"));
    test_run_free(&r);
}

/* ---- the streamed parser ------------------------------------------------------ */

/* A scene file larger than the reader's chunks, with long names that cross
 * them, \u escapes and a surrogate pair: read from the file (in chunks), from
 * memory, and through a pipe, the same scene; and an error past the first
 * chunk reported at the same line and column by all. */
static void test_streamed_parser(void **state)
{
    (void)state;
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "{\"extras\": {\"deep\": [[[{\"x\": [1, 2, {\"y\": null}]}]]]},\n \"objects\": [\n");
    for (int i = 0; i < 900; i++) {
        char name[400];
        int k = snprintf(name, sizeof name, "object \\u00e9\\ud83d\\ude00 %d ", i);
        for (int j = 0; j < 100 + i % 97; j++)
            name[k++] = (char)('a' + (i + j) % 26);
        name[k] = '\0';
        len += (size_t)snprintf(text + len, cap - len,
                                "%s  {\"name\": \"%s\", \"mesh\": \"tet.obj\", \"position\": [%d.5e-1, -0.0, 1E2],"
                                " \"rotation\": {\"angle_deg\": %d, \"axis\": [0, 0, 1]}, \"extras\": {\"i\": %d}}",
                                i ? ",\n" : "", name, i, i % 360, i);
    }
    len += (size_t)snprintf(text + len, cap - len, "\n]}\n");
    assert_true(len > 3 * 65536);
    test_tmp_write_text(tmpdir, "tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    const char *p = test_tmp_write_text(tmpdir, "big.json", text);
    kcbp_scene *a, *b;
    kcbp_error err = {0};
    assert_int_equal(kcbp_scene_read(p, &a, &err), KCBP_OK);
    assert_int_equal(kcbp_scene_parse("big.json", tmpdir, text, len, &b, &err), KCBP_OK);
    assert_int_equal(kcbp_scene_object_count(a), 900);
    for (uint32_t i = 0; i < 900; i++) {
        kcbp_scene_object x = kcbp_scene_object_at(a, i), y = kcbp_scene_object_at(b, i);
        assert_string_equal(x.name, y.name);
        assert_true(strstr(x.name, "object \xc3\xa9\xf0\x9f\x98\x80 ") == x.name);
        char num[32];
        snprintf(num, sizeof num, "%u.5e-1", i);
        assert_true(x.position.x == strtod(num, NULL) && x.position.y == 0 && signbit(x.position.y) &&
                    x.position.z == 100);
        assert_true(x.angle_deg == i % 360);
        kcbp_pose pa = kcbp_scene_object_pose(a, i, 0), pb = kcbp_scene_object_pose(b, i, 0);
        assert_memory_equal(&pa, &pb, sizeof pa);
    }
    assert_int_equal(kcbp_scene_model_count(a), 1);
    kcbp_scene_free(a);
    kcbp_scene_free(b);
    /* through a pipe, as the program reads standard input */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/%s' scene - --contacts none < big.json > out.json", tmpdir, cwd,
             test_kcbp_exe());
    assert_int_equal(system(cmd), 0);
    /* an error past the first chunks: the same place from a file, a pipe and memory */
    char *bad = strdup(text);
    char *at = strstr(bad + 200000, "\"position\": [");
    assert_non_null(at);
    at[13] = 'x';
    p = test_tmp_write_text(tmpdir, "bad_big.json", bad);
    assert_int_equal(kcbp_scene_read(p, &a, &err), KCBP_ERR_PARSE);
    char msg_file[KCBP_ERROR_MSG_MAX];
    snprintf(msg_file, sizeof msg_file, "%s", strchr(err.msg, ':'));
    assert_int_equal(kcbp_scene_parse(p, tmpdir, bad, strlen(bad), &b, &err), KCBP_ERR_PARSE);
    assert_string_equal(strchr(err.msg, ':'), msg_file);
    assert_non_null(strstr(msg_file, "invalid JSON near 'x"));
    long line = 1;
    for (const char *q = bad; q < at + 13; q++)
        line += *q == '\n';
    char where[64];
    snprintf(where, sizeof where, ":%ld:", line);
    assert_non_null(strstr(msg_file, where));
    free(bad);
    free(text);

    /* JSON as RFC 8259 writes it, and the errors around it */
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t\\u0000.obj\", \"position\": [0, 0, 0]}]}",
         "objects[0].mesh: holds a NUL character (\\u0000)"},
        {"{\"objects\": [{\"name\": \"a\\u0000b\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}]}",
         "objects[0].name: holds a NUL character"},
        {"{\"objects\": [{\"na\\u0000me\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}]}",
         "objects[0].na: a key holds a NUL character"},
        {"{\"obj\\u0000ects\": []}", "obj: a key holds a NUL character"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [01, 0, 0]}]}", "1:59: invalid JSON near '1, 0, 0]}]}'"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [1., 0, 0]}]}", "1:60: invalid JSON near ', 0, 0]}]}'"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [.5, 0, 0]}]}", "1:58: invalid JSON near '.5, 0, 0]}]}'"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [+1, 0, 0]}]}", "1:58: invalid JSON near '+1"},
        {"{\"objects\": [{\"name\": \"a\\x\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}]}", "1:25: invalid JSON near '\\x"},
        {"{\"objects\": [{\"name\": \"\\ud800\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}]}", "invalid JSON"},
        {"{\"objects\": [{\"name\": \"\\udc00x\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}]}", "invalid JSON"},
        {"{\"objects\": [], \"objects\": []}", "objects: empty"},
        {"{\"motion\": {\"frames\": 2, \"dt\": 1}, \"motion\": 1, \"objects\": []}", "motion: key given twice"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}], \"extras\": 1, \"extras\": 2}",
         "extras: key given twice"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}]} {}", "invalid JSON near '{}'"},
        {"\xef\xbb\xbf{\"objects\": 7}", "objects: expected an array, got a number"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0], \"scale\": 1e400}]}",
         "objects[0].scale: not a finite number"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0], \"rotation\": {\"matrix\": "
         "[[1, 0, 0], [0, 1, 0], [0, 0]]}}]}", "objects[0].rotation.matrix[2]: expected 3 numbers"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0], \"rotation\": {\"quaternion\": "
         "[1, 0, 0, 0.1]}}]}", "objects[0].rotation.quaternion: "},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0], \"extras\": [1, 2,]}]}",
         "invalid JSON near ']}]}'"},
        {"{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]}], \"motion\": {\"frames\": 2, "
         "\"dt\": 1, \"extras\": {}}}", "motion.extras: unknown key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kcbp_scene *sc = NULL;
        kcbp_status st = kcbp_scene_parse("c.json", "", cases[i].text, strlen(cases[i].text), &sc, &err);
        if (st == KCBP_OK || !strstr(err.msg, cases[i].want))
            fail_msg("case %zu: want '%s', got %s", i, cases[i].want, st == KCBP_OK ? "success" : err.msg);
        assert_null(sc);
    }
    /* with err NULL too */
    kcbp_scene *sc = NULL;
    assert_int_equal(kcbp_scene_parse("c.json", "", "{\"objects\": [", 13, &sc, NULL), KCBP_ERR_PARSE);
    /* a tight limit on objects: counted to the end, then refused */
    const char *three = "{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]},"
                        "{\"name\": \"b\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]},"
                        "{\"name\": \"c\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0], \"extras\": [[]]}]}";
    kcbp_scene lim;
    assert_int_equal(kcbp_scene_parse_into_limit(&lim, "l.json", "", three, strlen(three), 2, &err), KCBP_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "l.json: objects: 3 objects, more than the limit of 2"));
    assert_int_equal(kcbp_scene_parse_into_limit(&lim, "l.json", "", three, strlen(three), 3, &err), KCBP_OK);
    assert_int_equal(lim.nobjects, 3);
    kcbp_scene_clear(&lim);
}

/* ---- the command line ----------------------------------------------------- */

/* The NDJSON lines of out, each without its "time_ms" (which differs from
 * run to run), re-printed; the count in *n. */
static char **stable_lines(const char *out, size_t *n)
{
    size_t cap = 16;
    char **lines = malloc(cap * sizeof *lines);
    *n = 0;
    for (const char *s = out, *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        char *line = strndup(s, (size_t)(nl - s));
        cJSON *doc = cJSON_Parse(line);
        if (!doc)
            fail_msg("not a JSON line: %.200s", line);
        free(line);
        cJSON_DeleteItemFromObject(doc, "time_ms");
        if (*n == cap)
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[(*n)++] = cJSON_PrintUnformatted(doc);
        cJSON_Delete(doc);
    }
    return lines;
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cJSON_free(lines[i]);
    free(lines);
}

static int cmp_index_frame(const void *p, const void *q)
{
    cJSON *a = cJSON_Parse(*(char *const *)p), *b = cJSON_Parse(*(char *const *)q);
    double ka = cJSON_GetObjectItem(a, "index")->valuedouble * 1e6;
    double kb = cJSON_GetObjectItem(b, "index")->valuedouble * 1e6;
    cJSON *fa = cJSON_GetObjectItem(a, "frame"), *fb = cJSON_GetObjectItem(b, "frame");
    ka += fa ? fa->valuedouble : 0;
    kb += fb ? fb->valuedouble : 0;
    cJSON_Delete(a);
    cJSON_Delete(b);
    return (ka > kb) - (ka < kb);
}

static const char *batch_files[8];
enum { NBATCH = 7 };

static void make_batch_files(void)
{
    static char paths[NBATCH][512];
    /* The mesh outside the current folder (a copy in tmpdir), so that
     * --generate names it by its absolute path (it names a mesh in the
     * current folder relative to it), which --mesh-root / reaches. */
    char mesh[1100];
    {
        char src[1100];
        snprintf(src, sizeof src, "%s/meshes/suzanne.obj", cwd);
        FILE *f = fopen(src, "rb");
        assert_non_null(f);
        static char data[1 << 20];
        size_t len = fread(data, 1, sizeof data, f);
        fclose(f);
        snprintf(mesh, sizeof mesh, "%s", test_tmp_write(tmpdir, "suzanne.obj", data, len));
    }
    for (int i = 0; i < NBATCH; i++) {
        char name[32];
        snprintf(name, sizeof name, "batch%d.json", i);
        snprintf(paths[i], sizeof paths[i], "%s", test_tmp_path(tmpdir, name));
        batch_files[i] = paths[i];
        if (i == 3) { /* a bad scene in the middle */
            test_tmp_write_text(tmpdir, name, "{\"objects\": []}");
            continue;
        }
        if (i == 5) { /* a moving scene */
            char text[4096];
            snprintf(text, sizeof text,
                     "{\"objects\": [{\"name\": \"a\", \"mesh\": \"%s\", \"position\": [0, 0, 0]},"
                     " {\"name\": \"b\", \"mesh\": \"%s\", \"position\": [3, 0, 0], \"velocity\": [-2, 0, 0]}],"
                     " \"motion\": {\"frames\": 4, \"dt\": 0.5}}",
                     mesh, mesh);
            test_tmp_write_text(tmpdir, name, text);
            continue;
        }
        char n[8], seed[8];
        snprintf(n, sizeof n, "%d", 8 + 3 * i);
        snprintf(seed, sizeof seed, "%d", i + 1);
        test_run_result r;
        const char *argv[] = {"scene", "--generate", "thesis", "--mesh", mesh, "--n", n, "--seed", seed, NULL};
        test_run(&r, argv);
        assert_int_equal(r.status, 0);
        test_tmp_write_text(tmpdir, name, r.out);
        test_run_free(&r);
    }
}

static void run_batch(test_run_result *r, const char *jobs, const char *shard)
{
    const char *argv[32] = {"batch", "--contacts", "first", "--mesh-root", "/"};
    int n = 5;
    if (jobs) {
        argv[n++] = "--jobs";
        argv[n++] = jobs;
    }
    if (shard) {
        argv[n++] = "--shard";
        argv[n++] = shard;
    }
    for (int i = 0; i < NBATCH; i++)
        argv[n++] = batch_files[i];
    argv[n] = NULL;
    test_run(r, argv);
}

static void test_batch_jobs_and_shards(void **state)
{
    (void)state;
    make_batch_files();
    test_run_result r1, r2, r3;
    run_batch(&r1, "1", NULL);
    run_batch(&r2, "2", NULL);
    run_batch(&r3, "3", NULL);
    /* The bad scene gets its line, the batch goes on, and exits 3 at the end. */
    assert_int_equal(r1.status, 3);
    assert_int_equal(r2.status, 3);
    size_t n1, n2, n3;
    char **l1 = stable_lines(r1.out, &n1), **l2 = stable_lines(r2.out, &n2), **l3 = stable_lines(r3.out, &n3);
    assert_int_equal(n1, NBATCH - 1 + 4); /* the moving scene has 4 frames */
    assert_int_equal(n1, n2);
    assert_int_equal(n1, n3);
    for (size_t i = 0; i < n1; i++) {
        assert_string_equal(l1[i], l2[i]);
        assert_string_equal(l1[i], l3[i]);
    }
    assert_non_null(strstr(l1[3], "\"index\":3"));
    assert_non_null(strstr(l1[3], "\"error\":"));
    assert_non_null(strstr(l1[3], "objects: empty"));
    for (size_t i = 0; i < n1; i++) /* every line is a scene's, in input order */
        assert_non_null(strstr(l1[i], "\"index\":"));

    /* Shards put together (sorted by index, frame) are the unsharded run. */
    size_t total = 0;
    char **all = malloc(n1 * sizeof *all);
    for (int i = 0; i < 3; i++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", i);
        test_run_result rs;
        run_batch(&rs, i == 1 ? "2" : NULL, shard);
        assert_int_equal(rs.status, i == 0 ? 3 : 0); /* scene 3 is in shard 0 */
        size_t ns;
        char **ls = stable_lines(rs.out, &ns);
        for (size_t k = 0; k < ns; k++) {
            cJSON *doc = cJSON_Parse(ls[k]);
            assert_int_equal(cJSON_GetObjectItem(doc, "index")->valueint % 3, i);
            cJSON_Delete(doc);
            assert_true(total < n1);
            all[total++] = ls[k];
        }
        free(ls);
        test_run_free(&rs);
    }
    assert_int_equal(total, n1);
    qsort(all, total, sizeof *all, cmp_index_frame);
    for (size_t i = 0; i < n1; i++)
        assert_string_equal(all[i], l1[i]);
    free_lines(all, total);

    /* Bad shard and jobs arguments are usage errors. */
    const char *bad[][3] = {{"--shard", "3/3", NULL}, {"--shard", "1/0", NULL}, {"--shard", "-1/2", NULL},
                            {"--shard", "1", NULL},   {"--jobs", "0", NULL},    {"--jobs", "x", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {"batch", bad[i][0], bad[i][1], batch_files[0], NULL};
        test_run_result r;
        test_run(&r, argv);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        test_run_free(&r);
    }
    free_lines(l1, n1);
    free_lines(l2, n2);
    free_lines(l3, n3);
    test_run_free(&r1);
    test_run_free(&r2);
    test_run_free(&r3);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The colliding pairs ("a b" per line, sorted) of the frames of a scene's
 * output, prefixed by the frame. */
static char *pairs_of(const char *out, size_t *n)
{
    size_t cap = 1 << 16, len = 0;
    char *all = malloc(cap);
    all[0] = '\0';
    *n = 0;
    for (const char *s = out, *nl; (nl = strchr(s, '\n')); s = nl + 1) {
        char *line = strndup(s, (size_t)(nl - s));
        cJSON *doc = cJSON_Parse(line);
        assert_non_null(doc);
        free(line);
        int f = cJSON_GetObjectItem(doc, "frame")->valueint;
        cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "colliding"))
        {
            while (len + 64 > cap)
                all = realloc(all, cap *= 2);
            len += (size_t)snprintf(all + len, cap - len, "%d %s %s\n", f, cJSON_GetObjectItem(p, "a")->valuestring,
                                    cJSON_GetObjectItem(p, "b")->valuestring);
            ++*n;
        }
        cJSON_Delete(doc);
    }
    return all;
}

/* kcbp scene --jobs N prints the same (but for times) for every N;
 * --shard I/N splits the pairs, the shards' union the whole; --max-pairs
 * cuts a frame's list and says so. */
static void test_scene_jobs_shards_max_pairs(void **state)
{
    (void)state;
    char mesh[1100], text[1 << 16];
    snprintf(mesh, sizeof mesh, "%s/meshes/suzanne.obj", cwd);
    size_t len = (size_t)snprintf(text, sizeof text, "{\"objects\": [");
    test_rng r = {4};
    for (int i = 0; i < 150; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "%s{\"name\": \"o%d\", \"mesh\": \"%s\", \"position\": [%.3f, %.3f, %.3f], "
                                "\"velocity\": [%.2f, 0, 0]}",
                                i ? ", " : "", i, mesh, test_rng_range(&r, -4, 4), test_rng_range(&r, -4, 4),
                                test_rng_range(&r, -4, 4), test_rng_range(&r, -1, 1));
    snprintf(text + len, sizeof text - len, "], \"motion\": {\"frames\": 3, \"dt\": 0.1}}");
    const char *p = test_tmp_write_text(tmpdir, "jobs.json", text);
    test_run_result r1, r2;
    const char *a1[] = {"scene", p, "--mesh-root", "/", "--contacts", "first", "--jobs", "1", NULL};
    const char *a2[] = {"scene", p, "--mesh-root", "/", "--contacts", "first", "--jobs", "3", NULL};
    test_run(&r1, a1);
    test_run(&r2, a2);
    assert_int_equal(r1.status, 0);
    assert_int_equal(r2.status, 0);
    size_t n1, n2;
    char **l1 = stable_lines(r1.out, &n1), **l2 = stable_lines(r2.out, &n2);
    assert_int_equal(n1, 3);
    assert_int_equal(n2, 3);
    for (size_t i = 0; i < n1; i++)
        assert_string_equal(l1[i], l2[i]);
    free_lines(l1, n1);
    free_lines(l2, n2);
    size_t np;
    char *whole = pairs_of(r1.out, &np);
    assert_true(np > 20);
    /* shards */
    size_t cap = strlen(whole) + 1, len2 = 0, got = 0;
    char *joined = calloc(1, cap + 1);
    for (int i = 0; i < 3; i++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", i);
        const char *as[] = {"scene", p, "--mesh-root", "/", "--shard", shard, "--jobs", i == 1 ? "2" : "1", NULL};
        test_run_result rs;
        test_run(&rs, as);
        assert_int_equal(rs.status, 0);
        assert_non_null(strstr(rs.out, "\"shard\":["));
        size_t k;
        char *part = pairs_of(rs.out, &k);
        assert_true(len2 + strlen(part) <= cap);
        memcpy(joined + len2, part, strlen(part));
        len2 += strlen(part);
        got += k;
        free(part);
        test_run_free(&rs);
    }
    assert_int_equal(got, np);
    /* the same lines, once each: sort both */
    char *ls[4096], *lw[4096];
    size_t nl = 0, nw = 0;
    for (char *t = strtok(joined, "\n"); t; t = strtok(NULL, "\n"))
        ls[nl++] = t;
    for (char *t = strtok(whole, "\n"); t; t = strtok(NULL, "\n"))
        lw[nw++] = t;
    assert_int_equal(nl, nw);
    qsort(ls, nl, sizeof *ls, cmp_str);
    qsort(lw, nw, sizeof *lw, cmp_str);
    for (size_t i = 0; i < nl; i++)
        assert_string_equal(ls[i], lw[i]);
    free(joined);
    free(whole);
    /* --max-pairs */
    const char *am[] = {"scene", p, "--mesh-root", "/", "--max-pairs", "3", NULL};
    test_run_result rm;
    test_run(&rm, am);
    assert_int_equal(rm.status, 0);
    for (const char *s = rm.out, *nl2; (nl2 = strchr(s, '\n')); s = nl2 + 1) {
        char *line = strndup(s, (size_t)(nl2 - s));
        cJSON *doc = cJSON_Parse(line);
        free(line);
        int found = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "passed"), "mesh")->valueint;
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "colliding")), found < 3 ? found : 3);
        if (found > 3) {
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "truncated")));
            assert_int_equal(cJSON_GetObjectItem(doc, "colliding_found")->valueint, found);
        }
        cJSON_Delete(doc);
    }
    test_run_free(&rm);
    const char *bad[][2] = {{"--max-pairs", "-1"}, {"--shard", "2/2"}, {"--jobs", "0"}, {"--jobs", "2000"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {"scene", p, bad[i][0], bad[i][1], NULL};
        test_run_result r;
        test_run(&r, argv);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        test_run_free(&r);
    }
    test_run_free(&r1);
    test_run_free(&r2);
}

static void test_scene_command(void **state)
{
    (void)state;
    /* A scene in a sub-folder, naming its mesh relative to that folder. */
    char dir[600];
    snprintf(dir, sizeof dir, "%s/sub", tmpdir);
    mkdir(dir, 0700);
    test_tmp_write_text(tmpdir, "tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    const char *p = test_tmp_write_text(tmpdir, "sub/s.json", "{\"objects\": [{\"name\": \"x\", \"mesh\": \"../tet.obj\", \"position\": [0, 0, 0]},"
                                           "{\"name\": \"y\", \"mesh\": \"../tet.obj\", \"position\": [0.5, 0, 0]},"
                                           "{\"name\": \"z\", \"mesh\": \"../tet.obj\", \"position\": [9, 0, 0]}]}");
    test_run_result r;
    const char *argv[] = {"scene", p, "--contacts", "all", "--pretty", "--mesh-root", tmpdir, NULL};
    test_run(&r, argv);
    assert_int_equal(r.status, 0);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_non_null(strchr(r.out, '\n') + 1 != NULL);
    assert_int_equal(cJSON_GetObjectItem(doc, "objects")->valueint, 3);
    assert_int_equal(cJSON_GetObjectItem(doc, "models")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(doc, "pairs")->valueint, 3);
    cJSON *passed = cJSON_GetObjectItem(doc, "passed");
    assert_int_equal(cJSON_GetObjectItem(passed, "broadphase")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(passed, "mesh")->valueint, 1);
    cJSON *hits = cJSON_GetObjectItem(doc, "colliding");
    assert_int_equal(cJSON_GetArraySize(hits), 1);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(hits, 0), "a")->valuestring, "x");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(hits, 0), "b")->valuestring, "y");
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(hits, 0), "contacts")) > 0);
    assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "hit_rate"), "broadphase")->valuedouble == 1.0);
    const char *times[] = {"load", "build", "bounds", "broadphase", "cbp", "mesh", "detect"};
    for (int i = 0; i < 7; i++)
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "time_ms"), times[i])));
    cJSON_Delete(doc);
    test_run_free(&r);

    /* 0/0 hit rate: nothing passes the broad phase. */
    p = test_tmp_write_text(tmpdir, "apart.json", "{\"objects\": [{\"name\": \"x\", \"mesh\": \"tet.obj\", \"position\": [0, 0, 0]},"
                                "{\"name\": \"y\", \"mesh\": \"tet.obj\", \"position\": [5, 0, 0]}]}");
    const char *argv2[] = {"scene", p, NULL};
    test_run(&r, argv2);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"hit_rate\":{\"broadphase\":1,\"cbp\":1}"));
    test_run_free(&r);
    /* Without the k-CBP filter its count and hit rate are null; -k and --dirs
     * reach the models. */
    const char *argv3[] = {"scene", p, "--filter", "aabb", "-k", "8", "--dirs", "fixed", NULL};
    test_run(&r, argv3);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"cbp\":null"));
    assert_non_null(strstr(r.out, "\"hit_rate\":{\"broadphase\":1,\"cbp\":null}"));
    test_run_free(&r);

    const char *usage[][5] = {{"scene", NULL}, {"scene", "a.json", "b.json", NULL}, {"scene", p, "--filter", "obb"},
                              {"scene", "--generate", "grid", NULL}, {"scene", "--generate", "thesis", NULL},
                              {"scene", p, "--n", "3"}, {"scene", p, "-k", "3"}, {"scene", p, "--dirs", "best"}};
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        test_run(&r, usage[i]);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        test_run_free(&r);
    }
}

/* Each kind of bad scene file: exit 3, nothing on stdout, and the message
 * names the file and the field. */
/* A generated scene runs as written (issue 36): its mesh is named relative
 * to the folder the scene is saved in (--output's), and a mesh outside that
 * folder by its absolute path. */
static void test_generate_round_trip(void **state)
{
    (void)state;
    char cwd[600], cmd[8000];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/gen/m' && cp meshes/bunny2.obj '%s/gen/m/' && "
             "'%s/%s' scene --generate thesis --mesh '%s/gen/m/bunny2.obj' --n 4 --output '%s/gen/g.json' && "
             "grep -q '\"mesh\":\"m/bunny2.obj\"' '%s/gen/g.json' && "
             "'%s/%s' scene '%s/gen/g.json' > '%s/gen/out.json' && grep -q '\"objects\":5' '%s/gen/out.json' && "
             "'%s/%s' scene --generate thesis --mesh meshes/bunny2.obj --n 4 --output '%s/gen/far.json' 2>/dev/null && "
             "grep -q '\"mesh\":\"%s/meshes/bunny2.obj\"' '%s/gen/far.json'",
             tmpdir, tmpdir, cwd, test_kcbp_exe(), tmpdir, tmpdir, tmpdir, cwd, test_kcbp_exe(), tmpdir, tmpdir, tmpdir,
             cwd, test_kcbp_exe(), tmpdir, cwd, tmpdir);
    assert_int_equal(system(cmd), 0);
}

static void test_bad_scene_files(void **state)
{
    (void)state;
    test_tmp_write_text(tmpdir, "tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    test_tmp_write_text(tmpdir, "broken.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
#define OBJ(extra) "{\"name\": \"a\", \"mesh\": \"tet.obj\", \"position\": [0, 0, 0]" extra "}"
#define SCENE(objs, rest) "{\"objects\": [" objs "]" rest "}"
    static const struct {
        const char *text, *where;
    } cases[] = {
        {"{\"objects\": [", "bad.json:1:14: invalid JSON"},
        {"{\"objects\": [}", "bad.json:1:14: invalid JSON near '}'"},
        {"  \n", "bad.json: empty file"},
        {"[1, 2]", "bad.json: expected a JSON object"},
        {"{\"objets\": []}", "bad.json: objets: unknown key"},
        {"{}", "bad.json: objects: missing"},
        {"{\"objects\": {}}", "bad.json: objects: expected an array, got an object"},
        {"{\"objects\": []}", "bad.json: objects: empty"},
        {SCENE("7", ""), "bad.json: objects[0]: expected an object, got a number"},
        {SCENE("{\"mesh\": \"tet.obj\", \"position\": [0, 0, 0]}", ""), "bad.json: objects[0].name: missing"},
        {SCENE("{\"name\": 3, \"mesh\": \"tet.obj\", \"position\": [0, 0, 0]}", ""),
         "bad.json: objects[0].name: expected a string, got a number"},
        {SCENE("{\"name\": \"\", \"mesh\": \"tet.obj\", \"position\": [0, 0, 0]}", ""),
         "bad.json: objects[0].name: empty string"},
        {SCENE(OBJ("") "," OBJ(""), ""), "bad.json: objects[1].name: 'a' is already the name of objects[0]"},
        {SCENE(OBJ(", \"colour\": 1"), ""), "bad.json: objects[0].colour: unknown key"},
        {SCENE(OBJ(", \"scale\": 1, \"scale\": 2"), ""), "bad.json: objects[0].scale: key given twice"},
        {SCENE("{\"name\": \"a\", \"mesh\": \"tet.obj\"}", ""), "bad.json: objects[0].position: missing"},
        {SCENE("{\"name\": \"a\", \"position\": [0, 0, 0]}", ""), "bad.json: objects[0].mesh: missing"},
        {SCENE("{\"name\": \"a\", \"mesh\": \"tet.obj\", \"position\": [0, 0]}", ""),
         "bad.json: objects[0].position: expected 3 numbers"},
        {SCENE("{\"name\": \"a\", \"mesh\": \"tet.obj\", \"position\": [0, \"1\", 0]}", ""),
         "bad.json: objects[0].position: expected 3 numbers"},
        {SCENE("{\"name\": \"a\", \"mesh\": \"tet.obj\", \"position\": [0, 1e999, 0]}", ""),
         "bad.json: objects[0].position: item 1 is not a finite number"},
        {SCENE(OBJ(", \"scale\": 0"), ""), "bad.json: objects[0].scale: must be > 0"},
        {SCENE(OBJ(", \"scale\": -1e999"), ""), "bad.json: objects[0].scale: not a finite number"},
        {SCENE(OBJ(", \"rotation\": [0, 0, 1, 30]"), ""), "bad.json: objects[0].rotation: expected an object"},
        {SCENE(OBJ(", \"rotation\": {\"axis\": [0, 1], \"angle_deg\": 3}"), ""),
         "bad.json: objects[0].rotation.axis: expected 3 numbers"},
        {SCENE(OBJ(", \"rotation\": {\"axis\": [0, 0, 1]}"), ""), "bad.json: objects[0].rotation.angle_deg: missing"},
        {SCENE(OBJ(", \"rotation\": {\"axis\": [0, 0, 1], \"angle\": 3}"), ""),
         "bad.json: objects[0].rotation.angle: unknown key"},
        {SCENE(OBJ(", \"rotation\": {\"axis\": [0, 0, 0], \"angle_deg\": 3}"), ""),
         "bad.json: objects[0].rotation.axis: zero axis with a non-zero angle_deg"},
        {SCENE(OBJ(", \"velocity\": 2"), ""), "bad.json: objects[0].velocity: expected 3 numbers"},
        {SCENE(OBJ(", \"angular_velocity\": {\"axis\": [0, 0, 1], \"deg_per_s\": true}"), ""),
         "bad.json: objects[0].angular_velocity.deg_per_s: expected a number, got a boolean"},
        {SCENE(OBJ(""), ", \"motion\": {\"frames\": 0, \"dt\": 0.1}"), "bad.json: motion.frames: expected an integer"},
        {SCENE(OBJ(""), ", \"motion\": {\"frames\": 2.5, \"dt\": 0.1}"), "bad.json: motion.frames: expected an integer"},
        {SCENE(OBJ(""), ", \"motion\": {\"frames\": 1e12, \"dt\": 0.1}"), "bad.json: motion.frames: expected an integer"},
        {SCENE(OBJ(""), ", \"motion\": {\"frames\": 10, \"dt\": 0}"), "bad.json: motion.dt: must be > 0"},
        {SCENE(OBJ(""), ", \"motion\": {\"frames\": 10}"), "bad.json: motion.dt: missing"},
        {SCENE(OBJ(""), ", \"motion\": 10"), "bad.json: motion: expected an object"},
        {SCENE("{\"name\": \"a\", \"mesh\": \"nothere.obj\", \"position\": [0, 0, 0]}", ""),
         "bad.json: objects[0].mesh: "},
        {SCENE(OBJ("") ", {\"name\": \"b\", \"mesh\": \"broken.obj\", \"position\": [0, 0, 0]}", ""),
         "bad.json: objects[1].mesh: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = test_tmp_write_text(tmpdir, "bad.json", cases[i].text);
        test_run_result r;
        const char *argv[] = {"scene", p, NULL};
        test_run(&r, argv);
        if (r.status != 3 || r.out[0] != '\0' || !strstr(r.err, cases[i].where))
            fail_msg("case %zu: expected exit 3 and '%s'; got %d, stderr: %s, stdout: %.80s", i, cases[i].where,
                     r.status, r.err, r.out);
        test_run_free(&r);
    }
    /* The OBJ reader's own file:line: message follows the field. */
    const char *p = test_tmp_write_text(tmpdir, "bad.json", SCENE("{\"name\": \"b\", \"mesh\": \"broken.obj\", \"position\": [0, 0, 0]}", ""));
    test_run_result r;
    const char *argv[] = {"scene", p, NULL};
    test_run(&r, argv);
    assert_non_null(strstr(r.err, "broken.obj:4:"));
    test_run_free(&r);
    p = test_tmp_write_text(tmpdir, "bad.json", SCENE("{\"name\": \"b\", \"mesh\": \"nothere.obj\", \"position\": [0, 0, 0]}", ""));
    test_run(&r, argv);
    assert_non_null(strstr(r.err, "nothere.obj: cannot open"));
    test_run_free(&r);
    /* Files that cannot be read at all. */
    const char *argv2[] = {"scene", "/nonexistent/scene.json", NULL};
    test_run(&r, argv2);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "scene.json: cannot open"));
    test_run_free(&r);
    const char *argv3[] = {"scene", tmpdir, NULL};
    test_run(&r, argv3);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "is a directory"));
    test_run_free(&r);
#undef OBJ
#undef SCENE
}

static int setup(void **state)
{
    (void)state;
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- the model cache of kcbp batch ----------------------------------------- */

/* Colliding pairs of frame 0, as a list of a * 1000 + b. */
static size_t frame_pairs(const kcbp_scene *s, uint32_t *out, size_t cap)
{
    kcbp_scene_eval ev;
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    kcbp_collide_options o = kcbp_collide_options_default();
    assert_int_equal(kcbp_scene_eval_init(&ev, s, &o, NULL), KCBP_OK);
    assert_int_equal(kcbp_scene_eval_frame(&ev, 0, &fr, NULL), KCBP_OK);
    size_t n = 0;
    for (size_t k = 0; k < fr.colliding && n < cap; k++)
        out[n++] = fr.hits[k].a * 1000 + fr.hits[k].b;
    kcbp_scene_frame_free(&fr);
    kcbp_scene_eval_clear(&ev);
    return n;
}

static const char cache_scene[] =
    "{\"objects\": ["
    "{\"name\": \"a\", \"mesh\": \"meshes/suzanne.obj\", \"position\": [0, 0, 0]},"
    "{\"name\": \"b\", \"mesh\": \"./meshes/suzanne.obj\", \"position\": [1.2, 0.3, 0]},"
    "{\"name\": \"c\", \"mesh\": \"meshes/suzanne.obj\", \"position\": [-0.64, 0.62, 2.05], \"scale\": 0.5},"
    "{\"name\": \"d\", \"mesh\": \"meshes/cow.obj\", \"position\": [-1.33, 1.29, 4.1], \"scale\": 0.3},"
    "{\"name\": \"e\", \"mesh\": \"meshes/cow.obj\", \"position\": [5, 5, 5], \"scale\": 0.3}]}";

typedef struct {
    kcbp_model_cache *cache;
    uint32_t pairs[64];
    size_t npairs;
} cache_job;

static void *cache_worker(void *arg)
{
    cache_job *j = arg;
    for (int round = 0; round < 3; round++) {
        kcbp_scene s;
        kcbp_error err = {0};
        if (kcbp_scene_parse_into(&s, "cache.json", "", cache_scene, strlen(cache_scene), &err) != KCBP_OK ||
            kcbp_scene_build_cached(&s, NULL, j->cache, &err) != KCBP_OK)
            return (void *)1;
        j->npairs = frame_pairs(&s, j->pairs, 64);
        kcbp_scene_clear(&s);
    }
    return NULL;
}

static void test_model_cache(void **state)
{
    (void)state;
    /* The reference: built without a cache. The two spellings of suzanne at
     * scale 1 are two models there, one file identity in the cache. */
    kcbp_scene ref;
    assert_int_equal(kcbp_scene_parse_into(&ref, "cache.json", "", cache_scene, strlen(cache_scene), NULL), KCBP_OK);
    assert_int_equal(kcbp_scene_build(&ref, NULL, NULL), KCBP_OK);
    assert_int_equal(ref.nmodels, 4);
    uint32_t want[64];
    size_t nwant = frame_pairs(&ref, want, 64);
    assert_true(nwant >= 2); /* a-b, a-c or a-d touch: the comparison means something */

    for (int limit = 0; limit < 2; limit++) {
        kcbp_model_cache *cache;
        assert_int_equal(kcbp_model_cache_new(limit ? 1 : 0, &cache, NULL), KCBP_OK);
        for (int round = 0; round < 3; round++) {
            kcbp_scene s;
            assert_int_equal(kcbp_scene_parse_into(&s, "cache.json", "", cache_scene, strlen(cache_scene), NULL), KCBP_OK);
            assert_int_equal(kcbp_scene_build_cached(&s, NULL, cache, NULL), KCBP_OK);
            uint32_t got[64];
            assert_int_equal(frame_pairs(&s, got, 64), nwant);
            assert_memory_equal(got, want, nwant * sizeof *got);
            kcbp_scene_clear(&s);
            kcbp_model_cache_stats st = kcbp_model_cache_get_stats(cache);
            if (!limit) { /* 3 distinct models (suzanne 1 and 0.5, cow 0.3), built once */
                assert_int_equal(st.misses, 3);
                assert_int_equal(st.hits, 1 + 4 * (uint64_t)round);
                assert_int_equal(st.models, 3);
            } else { /* a 1-byte cache keeps nothing once the scene is freed */
                assert_int_equal(st.models, 0);
                assert_int_equal(st.misses, 3 * (uint64_t)(round + 1));
            }
        }
        kcbp_model_cache_free(cache);
    }

    /* Four threads through one cache. */
    kcbp_model_cache *cache;
    assert_int_equal(kcbp_model_cache_new(0, &cache, NULL), KCBP_OK);
    pthread_t th[4];
    cache_job jobs[4];
    for (int t = 0; t < 4; t++) {
        jobs[t] = (cache_job){cache, {0}, 0};
        assert_int_equal(pthread_create(&th[t], NULL, cache_worker, &jobs[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        void *rc;
        pthread_join(th[t], &rc);
        assert_null(rc);
        assert_int_equal(jobs[t].npairs, nwant);
        assert_memory_equal(jobs[t].pairs, want, nwant * sizeof *want);
    }
    kcbp_model_cache_stats st = kcbp_model_cache_get_stats(cache);
    assert_int_equal(st.models, 3);
    assert_int_equal(st.hits + st.misses, 4 * 3 * 4);
    kcbp_model_cache_free(cache);
    kcbp_scene_clear(&ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadphase_vs_all_pairs), cmocka_unit_test(test_boxtree_on_threads),
        cmocka_unit_test(test_thesis_scene_vs_all_pairs), cmocka_unit_test(test_box_scan_vs_all_pairs),
        cmocka_unit_test(test_scan_and_tree_scenes_vs_all_pairs), cmocka_unit_test(test_spin_pose_bits),
        cmocka_unit_test(test_small_static_frame_boxes_only),
        cmocka_unit_test(test_moving_scene_vs_all_pairs), cmocka_unit_test(test_thesis_layout),
        cmocka_unit_test(test_batch_jobs_and_shards), cmocka_unit_test(test_scene_command),
        cmocka_unit_test(test_generate_round_trip),
        cmocka_unit_test(test_bad_scene_files), cmocka_unit_test(test_model_cache),
        cmocka_unit_test(test_threads_shards_streams), cmocka_unit_test(test_packed_caches),
        cmocka_unit_test(test_ccd_spin), cmocka_unit_test(test_streamed_parser),
        cmocka_unit_test(test_scene_jobs_shards_max_pairs),
    };
    return cmocka_run_group_tests_name("scene", tests, setup, teardown);
}
