/* Worlds (kcbp/world.h) against the brute force: every query of a world
 * of objects that are added, moved and removed, compared with kcbp_collide
 * and kcbp_distance over all pairs (and all objects, for a model asked
 * about); ids, names, bad input; and an over-tight distance bound, which
 * the brute-force comparison catches. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp.h>

#include "scene/world_internal.h"
#include "testutil.h"

enum { NMODELS = 3 };
static kcbp_model models[NMODELS];

static int setup(void **state)
{
    (void)state;
    test_model_load_unit(&models[0], "suzanne.obj");
    test_model_load_unit(&models[1], "woody.obj");
    kcbp_model_options o = kcbp_model_options_default();
    o.k_fine = KCBP_CBP_K_FINE_DEFAULT;
    kcbp_mesh *m;
    assert_int_equal(kcbp_mesh_load("meshes/bunny2.obj", &m, NULL), KCBP_OK);
    /* bunny2 at its own scale, about 2 units: a third size among the unit meshes */
    kcbp_aabb b = kcbp_mesh_bounds(m);
    size_t nv = kcbp_mesh_vertex_count(m);
    kcbp_vec3 *v = malloc(nv * sizeof *v);
    kcbp_vec3 c = kcbp_v3_scale(kcbp_v3_add(b.min, b.max), 0.5);
    double h = fmax(b.max.x - b.min.x, fmax(b.max.y - b.min.y, b.max.z - b.min.z)) / 2;
    for (size_t i = 0; i < nv; i++)
        v[i] = kcbp_v3_scale(kcbp_v3_sub(kcbp_mesh_vertices(m)[i], c), 0.6 / h);
    kcbp_mesh *scaled;
    assert_int_equal(kcbp_mesh_create(v, nv, kcbp_mesh_triangles(m), kcbp_mesh_triangle_count(m), &scaled, NULL),
                     KCBP_OK);
    free(v);
    kcbp_mesh_free(m);
    assert_int_equal(kcbp_model_build(&models[2], scaled, &o, NULL), KCBP_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < NMODELS; i++)
        kcbp_model_free(&models[i]);
    return 0;
}

/* The world's objects, as the test knows them. */
typedef struct {
    kcbp_world_id id;
    int model;
    kcbp_pose pose;
    bool live;
} obj;

static int cmp_slot(const void *p, const void *q)
{
    uint32_t a = (uint32_t)(*(const obj *const *)p)->id, b = (uint32_t)(*(const obj *const *)q)->id;
    return (a > b) - (a < b);
}

/* The live objects in slot order (the order of the world's answers). */
static size_t live_in_slot_order(const obj *objs, size_t n, const obj **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (objs[i].live)
            out[k++] = &objs[i];
    qsort(out, k, sizeof *out, cmp_slot);
    return k;
}

/* kcbp_world_collide against kcbp_collide over every pair, contacts and all. */
static void check_collide(kcbp_world *w, const obj *objs, size_t n, const kcbp_collide_options *co,
                          kcbp_world_hits *hits)
{
    kcbp_error err = {0};
    if (kcbp_world_collide(w, hits, &err) != KCBP_OK)
        fail_msg("kcbp_world_collide: %s", err.msg);
    const obj *order[512];
    size_t m = live_in_slot_order(objs, n, order);
    assert_int_equal(m, kcbp_world_count(w));
    kcbp_collide_result r = {0};
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = i + 1; j < m; j++) {
            assert_int_equal(kcbp_collide(&models[order[i]->model], &order[i]->pose, &models[order[j]->model],
                                          &order[j]->pose, co, &r, NULL),
                             KCBP_OK);
            if (!r.collide)
                continue;
            if (k >= hits->nhits || hits->hits[k].a != order[i]->id || hits->hits[k].b != order[j]->id)
                fail_msg("the world misses or misorders the touching pair %zu, %zu", i, j);
            assert_int_equal(hits->hits[k].count, r.ncontacts);
            if (r.ncontacts && co->contacts == KCBP_CONTACTS_FIRST) /* a true contact, maybe another (kcbp_pair_cache) */
                assert_true(test_contact_is_true(&models[order[i]->model], &order[i]->pose, &models[order[j]->model],
                                                 &order[j]->pose, hits->contacts[hits->hits[k].first]));
            else if (r.ncontacts)
                assert_memory_equal(hits->contacts + hits->hits[k].first, r.contacts, r.ncontacts * sizeof *r.contacts);
            k++;
        }
    assert_int_equal(k, hits->nhits);
    kcbp_collide_result_free(&r);
}

static void check_collide_model(kcbp_world *w, const obj *objs, size_t n, int model, const kcbp_pose *pose,
                                const kcbp_collide_options *co)
{
    kcbp_world_hits hits;
    memset(&hits, 0, sizeof hits);
    kcbp_error err = {0};
    if (kcbp_world_collide_model(w, &models[model], pose, &hits, &err) != KCBP_OK)
        fail_msg("kcbp_world_collide_model: %s", err.msg);
    const obj *order[512];
    size_t m = live_in_slot_order(objs, n, order), k = 0;
    kcbp_collide_result r = {0};
    for (size_t i = 0; i < m; i++) {
        assert_int_equal(kcbp_collide(&models[order[i]->model], &order[i]->pose, &models[model], pose, co, &r, NULL),
                         KCBP_OK);
        if (!r.collide)
            continue;
        assert_true(k < hits.nhits && hits.hits[k].a == order[i]->id && hits.hits[k].b == 0);
        assert_int_equal(hits.hits[k].count, r.ncontacts);
        if (r.ncontacts)
            assert_memory_equal(hits.contacts + hits.hits[k].first, r.contacts, r.ncontacts * sizeof *r.contacts);
        k++;
    }
    assert_int_equal(k, hits.nhits);
    kcbp_collide_result_free(&r);
    kcbp_world_hits_free(&hits);
}

/* The least kcbp_distance over all pairs (model >= 0: from that model at
 * pose to every object); *pairs: how many pairs there were. */
static double brute_distance(const obj *objs, size_t n, int model, const kcbp_pose *pose, size_t *pairs)
{
    const obj *order[512];
    size_t m = live_in_slot_order(objs, n, order);
    double best = INFINITY;
    *pairs = 0;
    kcbp_distance_result r;
    for (size_t i = 0; i < m; i++) {
        if (model >= 0) {
            assert_int_equal(kcbp_distance(&models[order[i]->model], &order[i]->pose, &models[model], pose, NULL, &r, NULL),
                             KCBP_OK);
            best = fmin(best, r.distance);
            ++*pairs;
            continue;
        }
        for (size_t j = i + 1; j < m; j++) {
            assert_int_equal(kcbp_distance(&models[order[i]->model], &order[i]->pose, &models[order[j]->model],
                                           &order[j]->pose, NULL, &r, NULL),
                             KCBP_OK);
            best = fmin(best, r.distance);
            ++*pairs;
        }
    }
    return best;
}

static const obj *find_obj(const obj *objs, size_t n, kcbp_world_id id)
{
    for (size_t i = 0; i < n; i++)
        if (objs[i].live && objs[i].id == id)
            return &objs[i];
    return NULL;
}

static void check_distance(kcbp_world *w, const obj *objs, size_t n, int model, const kcbp_pose *pose, bool pruned)
{
    kcbp_world_distance_result d;
    kcbp_error err = {0};
    kcbp_status st = model >= 0 ? kcbp_world_distance_model(w, &models[model], pose, &d, &err)
                                : kcbp_world_distance(w, &d, &err);
    if (st != KCBP_OK)
        fail_msg("distance: %s", err.msg);
    size_t pairs;
    double best = brute_distance(objs, n, model, pose, &pairs);
    assert_true(d.found);
    if (d.distance != best)
        fail_msg("the world's least distance %.17g, the brute force's %.17g", d.distance, best);
    /* the pair named is at that distance */
    const obj *a = find_obj(objs, n, d.a);
    assert_non_null(a);
    kcbp_distance_result r;
    if (model >= 0) {
        assert_int_equal(d.b, 0);
        assert_int_equal(kcbp_distance(&models[a->model], &a->pose, &models[model], pose, NULL, &r, NULL), KCBP_OK);
    } else {
        const obj *b = find_obj(objs, n, d.b);
        assert_non_null(b);
        assert_true((uint32_t)d.a < (uint32_t)d.b);
        assert_int_equal(kcbp_distance(&models[a->model], &a->pose, &models[b->model], &b->pose, NULL, &r, NULL),
                         KCBP_OK);
    }
    assert_true(r.distance == d.distance);
    assert_true(d.measured <= pairs);
    if (pruned && best > 0)
        assert_true(d.measured < pairs); /* the boxes pruned */
}

/* A world of up to 60 objects, moved in small steps (the loop a simulator
 * runs), objects removed and added between steps; every query against the
 * brute force. */
static void run_world(unsigned jobs, kcbp_contacts_mode contacts, uint64_t seed)
{
    kcbp_world_options o = kcbp_world_options_default();
    o.jobs = jobs;
    o.collide.contacts = contacts;
    kcbp_world *w;
    kcbp_error err = {0};
    assert_int_equal(kcbp_world_new(&o, &w, &err), KCBP_OK);
    enum { N = 60 };
    obj objs[2 * N];
    size_t n = 0;
    test_rng r = {seed};
    kcbp_vec3 vel[2 * N];
    for (int i = 0; i < N; i++) {
        obj *ob = &objs[n++];
        ob->model = i % NMODELS;
        ob->pose = test_random_pose(&r, 3.0);
        ob->live = true;
        vel[i] = kcbp_v3_scale(test_rng_unit_vector(&r), 0.03);
        char name[16];
        snprintf(name, sizeof name, "o%d", i);
        if (kcbp_world_add(w, &models[ob->model], &ob->pose, i % 5 ? name : NULL, &ob->id, &err) != KCBP_OK)
            fail_msg("add: %s", err.msg);
        assert_true(ob->id != 0);
    }
    kcbp_world_hits hits;
    memset(&hits, 0, sizeof hits);
    uint64_t cache_hits = 0, touching = 0;
    for (int step = 0; step < 12; step++) {
        check_collide(w, objs, n, &o.collide, &hits);
        touching += hits.nhits;
        cache_hits += hits.cache_hits;
        if (step % 4 == 0) {
            check_distance(w, objs, n, -1, NULL, false);
            kcbp_pose p = test_random_pose(&r, 3.0);
            check_collide_model(w, objs, n, step % NMODELS, &p, &o.collide);
            check_distance(w, objs, n, step % NMODELS, &p, false);
        }
        /* small moves */
        for (size_t i = 0; i < n; i++) {
            if (!objs[i].live)
                continue;
            objs[i].pose.trans = kcbp_v3_add(objs[i].pose.trans, vel[i % N]);
            assert_int_equal(kcbp_world_set_pose(w, objs[i].id, &objs[i].pose, &err), KCBP_OK);
        }
        if (step % 3 == 2) { /* a removal, and an add in the slot it frees (another model, the same pose) */
            size_t v = (size_t)step % n;
            while (!objs[v].live)
                v = (v + 1) % n;
            assert_int_equal(kcbp_world_remove(w, objs[v].id, &err), KCBP_OK);
            objs[v].live = false;
            assert_false(kcbp_world_contains(w, objs[v].id));
            assert_int_equal(kcbp_world_set_pose(w, objs[v].id, &objs[v].pose, NULL), KCBP_ERR_INVALID);
            obj *ob = &objs[n++];
            ob->model = (objs[v].model + 1) % NMODELS;
            ob->pose = objs[v].pose;
            ob->live = true;
            assert_int_equal(kcbp_world_add(w, &models[ob->model], &ob->pose, NULL, &ob->id, &err), KCBP_OK);
            assert_int_equal((uint32_t)ob->id, (uint32_t)objs[v].id); /* the slot reused... */
            assert_true(ob->id != objs[v].id);                        /* ...under another id */
        }
    }
    assert_true(touching > 0);
    assert_true(cache_hits > 0); /* the pair caches served the small moves */
    kcbp_world_hits_free(&hits);
    kcbp_world_free(w);
}

static void test_world_vs_brute_force(void **state)
{
    (void)state;
    run_world(1, KCBP_CONTACTS_NONE, 11);
    run_world(1, KCBP_CONTACTS_ALL, 12);
}

static void test_world_threads(void **state)
{
    (void)state;
    run_world(2, KCBP_CONTACTS_FIRST, 13);
    run_world(3, KCBP_CONTACTS_NONE, 11);
}

/* Objects spread out: the distance searches measure few pairs; and an
 * over-tight lower bound (the boxes' distances doubled) loses the answer,
 * which the brute force sees. */
static void test_world_distance_pruning(void **state)
{
    (void)state;
    kcbp_world *w;
    assert_int_equal(kcbp_world_new(NULL, &w, NULL), KCBP_OK);
    enum { N = 80 };
    obj objs[N];
    test_rng r = {5};
    for (int i = 0; i < N; i++) {
        objs[i].model = i % NMODELS;
        objs[i].pose = test_random_pose(&r, 12.0);
        objs[i].live = true;
        assert_int_equal(kcbp_world_add(w, &models[objs[i].model], &objs[i].pose, NULL, &objs[i].id, NULL), KCBP_OK);
    }
    check_distance(w, objs, N, -1, NULL, true);
    kcbp_pose far = kcbp_pose_identity();
    far.trans = kcbp_v3(20, 0, 0);
    check_distance(w, objs, N, 1, &far, true);
    kcbp_world_free(w);
    /* over-tight: boxes' distances taken 3x too far prune the closest pair
     * away in some sparse worlds (where another pair, whose boxes overlap,
     * is measured first) */
    bool wrong = false;
    for (int trial = 0; trial < 40 && !wrong; trial++) {
        enum { M = 12 };
        assert_int_equal(kcbp_world_new(NULL, &w, NULL), KCBP_OK);
        w->bound_scale = 9; /* (squared distances) */
        for (int i = 0; i < M; i++) {
            objs[i].pose = test_random_pose(&r, 5.0);
            assert_int_equal(kcbp_world_add(w, &models[objs[i].model], &objs[i].pose, NULL, &objs[i].id, NULL),
                             KCBP_OK);
        }
        kcbp_world_distance_result d;
        assert_int_equal(kcbp_world_distance(w, &d, NULL), KCBP_OK);
        size_t pairs;
        wrong = d.distance != brute_distance(objs, M, -1, NULL, &pairs);
        w->bound_scale = 1; /* and right again with the true bound */
        kcbp_world_set_pose(w, objs[0].id, &objs[0].pose, NULL);
        check_distance(w, objs, M, -1, NULL, false);
        kcbp_world_free(w);
    }
    assert_true(wrong);
}

static void test_world_ids_names_and_bad_input(void **state)
{
    (void)state;
    kcbp_world *w;
    kcbp_error err = {0};
    assert_int_equal(kcbp_world_new(NULL, &w, &err), KCBP_OK);
    kcbp_world_distance_result d;
    assert_int_equal(kcbp_world_distance(w, &d, &err), KCBP_OK); /* nothing to measure */
    assert_false(d.found);
    kcbp_pose p = kcbp_pose_identity();
    assert_int_equal(kcbp_world_distance_model(w, &models[0], &p, &d, &err), KCBP_OK);
    assert_false(d.found);
    kcbp_world_id a, b, c;
    assert_int_equal(kcbp_world_add(w, &models[0], &p, "arm", &a, &err), KCBP_OK);
    assert_int_equal(kcbp_world_distance(w, &d, &err), KCBP_OK); /* one object: no pair */
    assert_false(d.found);
    p.trans.x = 5;
    assert_int_equal(kcbp_world_add(w, &models[1], &p, "arm", &b, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "already the name"));
    assert_int_equal(b, 0);
    assert_int_equal(kcbp_world_add(w, &models[1], &p, "", &b, &err), KCBP_ERR_INVALID);
    assert_int_equal(kcbp_world_add(w, &models[1], &p, "base", &b, &err), KCBP_OK);
    assert_int_equal(kcbp_world_find(w, "arm"), a);
    assert_int_equal(kcbp_world_find(w, "base"), b);
    assert_int_equal(kcbp_world_find(w, "none"), 0);
    assert_string_equal(kcbp_world_name(w, a), "arm");
    assert_ptr_equal(kcbp_world_model(w, b), &models[1]);
    kcbp_world_id ids[4];
    assert_int_equal(kcbp_world_ids(w, ids, 4), 2);
    assert_true(ids[0] == a && ids[1] == b);
    assert_int_equal(kcbp_world_distance(w, &d, &err), KCBP_OK);
    assert_true(d.found && d.a == a && d.b == b && d.distance > 2);
    /* a name freed by a removal can be given again */
    assert_int_equal(kcbp_world_remove(w, a, &err), KCBP_OK);
    assert_int_equal(kcbp_world_remove(w, a, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no object has id"));
    assert_int_equal(kcbp_world_find(w, "arm"), 0);
    assert_null(kcbp_world_name(w, a));
    assert_int_equal(kcbp_world_add(w, &models[2], &p, "arm", &c, &err), KCBP_OK);
    assert_true(c != a && kcbp_world_find(w, "arm") == c);
    assert_int_equal(kcbp_world_count(w), 2);
    /* poses that are not rigid, or not finite, and unbuilt models */
    kcbp_pose bad = kcbp_pose_identity();
    bad.rot.m[0][0] = 2;
    assert_int_equal(kcbp_world_set_pose(w, b, &bad, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the pose"));
    bad = kcbp_pose_identity();
    bad.trans.y = NAN;
    assert_int_equal(kcbp_world_add(w, &models[0], &bad, NULL, &a, &err), KCBP_ERR_INVALID);
    bad.trans.y = 1e61;
    assert_int_equal(kcbp_world_collide_model(w, &models[0], &bad, &(kcbp_world_hits){0}, &err), KCBP_ERR_INVALID);
    kcbp_model none = {NULL};
    p = kcbp_pose_identity();
    assert_int_equal(kcbp_world_add(w, &none, &p, NULL, &a, &err), KCBP_ERR_INVALID);
    assert_int_equal(kcbp_world_set_pose(w, 0, &p, &err), KCBP_ERR_INVALID);
    assert_int_equal(kcbp_world_set_pose(w, (uint64_t)7 << 32 | 1, &p, &err), KCBP_ERR_INVALID);
    assert_int_equal(kcbp_world_pose(w, b, &p, &err), KCBP_OK);
    assert_true(p.trans.x == 5);
    kcbp_world_free(w);
    kcbp_world_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_vs_brute_force),
        cmocka_unit_test(test_world_threads),
        cmocka_unit_test(test_world_distance_pruning),
        cmocka_unit_test(test_world_ids_names_and_bad_input),
    };
    return cmocka_run_group_tests_name("world", tests, setup, teardown);
}
