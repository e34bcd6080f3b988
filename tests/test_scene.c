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

static void test_broadphase_vs_all_pairs(void **state)
{
    (void)state;
    enum { N = 400 };
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
    char mesh[1100];
    snprintf(mesh, sizeof mesh, "%s/meshes/suzanne.obj", cwd);
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
        cmocka_unit_test(test_broadphase_vs_all_pairs), cmocka_unit_test(test_thesis_scene_vs_all_pairs),
        cmocka_unit_test(test_moving_scene_vs_all_pairs), cmocka_unit_test(test_thesis_layout),
        cmocka_unit_test(test_batch_jobs_and_shards), cmocka_unit_test(test_scene_command),
        cmocka_unit_test(test_bad_scene_files), cmocka_unit_test(test_model_cache),
    };
    return cmocka_run_group_tests_name("scene", tests, setup, teardown);
}
