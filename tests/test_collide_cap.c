/* --max-contacts that stops work (issue 33): kcbp_collide_capped
 * (collide_cap.h) and kcbp_scene_eval_set_contact_limit (scene.h).
 *
 * Oracles: the uncapped kcbp_collide with KCBP_CONTACTS_ALL (the whole
 * list), and each capped contact tested again alone with kcbp_tri_intersect
 * on the coordinates the mesh stage uses (A's vertices, B's moved by the
 * relative pose), outside the trees. On two meshes posed alike (coincident),
 * shifted by a fraction of their size and turned, and apart. And the
 * coincident-copies shortcut (kcbp_pair_coincident). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/collide_cap.h>
#include <kcbp/self.h>

#include "testutil.h"

static bool in_list(const kcbp_contact *l, size_t n, kcbp_contact c)
{
    for (size_t i = 0; i < n; i++)
        if (l[i].a == c.a && l[i].b == c.b)
            return true;
    return false;
}

static bool tri_pair(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                     kcbp_contact c)
{
    const kcbp_mesh *ma = kcbp_model_mesh(a), *mb = kcbp_model_mesh(b);
    kcbp_pose rel = kcbp_pose_relative(pa, pb);
    kcbp_vec3 ta[3], tb[3];
    for (int k = 0; k < 3; k++) {
        ta[k] = ma->vertices[ma->triangles[c.a].v[k]];
        tb[k] = kcbp_pose_apply(&rel, mb->vertices[mb->triangles[c.b].v[k]]);
    }
    return kcbp_tri_intersect(ta, tb, 0);
}

static void test_pair_cap(void **state)
{
    (void)state;
    kcbp_model m;
    test_model_load_unit(&m, "bunny2.obj");
    test_rng rng = {17};
    kcbp_error err = {0};
    kcbp_collide_result all = {0}, capped = {0};
    int stopped = 0, whole = 0;
    for (int trial = 0; trial < 60; trial++) {
        kcbp_pose pa = test_random_pose(&rng, 1), pb = pa; /* trial % 3 == 0: coincident */
        if (trial % 3 == 1) { /* shifted by up to an eighth of the size, turned */
            pb = test_random_pose(&rng, 0.25);
            pb.trans = kcbp_v3_add(pb.trans, pa.trans);
        } else if (trial % 3 == 2) { /* about touching or apart */
            pb = test_random_pose(&rng, 2.5);
        }
        kcbp_collide_options o = kcbp_collide_options_default();
        o.contacts = KCBP_CONTACTS_ALL;
        assert_int_equal(kcbp_collide(&m, &pa, &m, &pb, &o, &all, &err), KCBP_OK);
        static const uint64_t caps[] = {1, 2, 7, 100, 5000};
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
            kcbp_collide_cap_options co = kcbp_collide_cap_options_default();
            co.collide = o;
            co.max_contacts = caps[c];
            assert_int_equal(kcbp_collide_capped(&m, &pa, &m, &pb, &co, NULL, &capped, &err), KCBP_OK);
            assert_int_equal(capped.collide, all.collide);
            size_t want = all.ncontacts < caps[c] ? all.ncontacts : (size_t)caps[c];
            assert_int_equal(capped.ncontacts, want);
            for (size_t i = 0; i < capped.ncontacts; i++) {
                assert_true(in_list(all.contacts, all.ncontacts, capped.contacts[i]));
                assert_true(tri_pair(&m, &pa, &m, &pb, capped.contacts[i]));
                if (i > 0)
                    assert_true(capped.contacts[i - 1].a < capped.contacts[i].a ||
                                (capped.contacts[i - 1].a == capped.contacts[i].a &&
                                 capped.contacts[i - 1].b < capped.contacts[i].b));
            }
            if (all.ncontacts <= caps[c]) { /* below the cap: the whole list */
                assert_memory_equal(capped.contacts, all.contacts, all.ncontacts * sizeof *all.contacts);
                whole++;
            } else {
                stopped++;
            }
            /* FIRST and NONE: unchanged by the cap */
            co.collide.contacts = KCBP_CONTACTS_FIRST;
            kcbp_collide_options fo = o;
            fo.contacts = KCBP_CONTACTS_FIRST;
            kcbp_collide_result first = {0};
            assert_int_equal(kcbp_collide(&m, &pa, &m, &pb, &fo, &first, &err), KCBP_OK);
            assert_int_equal(kcbp_collide_capped(&m, &pa, &m, &pb, &co, NULL, &capped, &err), KCBP_OK);
            assert_int_equal(capped.ncontacts, first.ncontacts);
            if (first.ncontacts)
                assert_memory_equal(capped.contacts, first.contacts, sizeof *first.contacts);
            kcbp_collide_result_free(&first);
        }
    }
    print_message("capped lists: %d stopped at the cap, %d whole\n", stopped, whole);
    assert_true(stopped > 40 && whole > 20);
    /* options not made by _default */
    kcbp_collide_cap_options zero;
    memset(&zero, 0, sizeof zero);
    kcbp_pose id = kcbp_pose_identity();
    assert_int_equal(kcbp_collide_capped(&m, &id, &m, &id, &zero, NULL, &capped, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "kcbp_collide_cap_options_default"));
    kcbp_collide_result_free(&all);
    kcbp_collide_result_free(&capped);
    kcbp_model_free(&m);
}

/* Coincident copies (one model at equal poses, turned): "collide" without a
 * descent when at most the first contact is listed (FIRST's is a triangle
 * and its own copy, checked by the triangle test alone); ALL's trees
 * agree; a pair cache keeps a contact that holds. */
static void test_coincident(void **state)
{
    (void)state;
    kcbp_model m, other;
    test_model_load_unit(&m, "bunny2.obj");
    test_model_load_unit(&other, "suzanne.obj");
    test_rng rng = {29};
    kcbp_error err = {0};
    kcbp_collide_result r = {0}, first = {0};
    kcbp_pair_cache *pc;
    assert_int_equal(kcbp_pair_cache_new(&pc, &err), KCBP_OK);
    for (int trial = 0; trial < 50; trial++) {
        kcbp_pose p = test_random_pose(&rng, 3), q = p;
        kcbp_collide_options o = kcbp_collide_options_default();
        o.contacts = KCBP_CONTACTS_NONE;
        assert_int_equal(kcbp_collide(&m, &p, &m, &q, &o, &r, &err), KCBP_OK);
        assert_true(r.collide);
        assert_int_equal(r.tree.tri_pairs, 0); /* no descent */
        assert_int_equal(kcbp_collide_cached(&m, &p, &m, &q, &o, pc, &r, &err), KCBP_OK);
        assert_true(r.collide);
        o.contacts = KCBP_CONTACTS_FIRST;
        assert_int_equal(kcbp_collide(&m, &p, &m, &q, &o, &first, &err), KCBP_OK);
        assert_true(first.collide && first.ncontacts == 1 && first.tree.tri_pairs == 0);
        assert_true(first.contacts[0].a == first.contacts[0].b);
        assert_true(tri_pair(&m, &p, &m, &q, first.contacts[0]));
        assert_true(tri_pair(&m, &p, &m, &q, (kcbp_contact){0, 0}));
        /* another mesh at the same pose: the trees decide */
        o.contacts = KCBP_CONTACTS_NONE;
        assert_int_equal(kcbp_collide(&m, &p, &other, &q, &o, &r, &err), KCBP_OK);
        assert_true(r.decided_by != KCBP_STAGE_MESH || r.tree.tri_pairs > 0);
        /* one ulp apart: not coincident, still colliding (the trees say so) */
        q.trans.x = nextafter(q.trans.x, INFINITY);
        assert_int_equal(kcbp_collide(&m, &p, &m, &q, &o, &r, &err), KCBP_OK);
        assert_true(r.collide && r.tree.tri_pairs > 0);
    }
    kcbp_pair_cache_free(pc);
    kcbp_collide_result_free(&r);
    kcbp_collide_result_free(&first);
    kcbp_model_free(&m);
    kcbp_model_free(&other);
}

/* kcbp_self_intersections_capped against the whole list: a subset of it,
 * sorted, min(cap, n) pairs, the whole list below the cap. */
static void test_self_cap(void **state)
{
    (void)state;
    kcbp_model m;
    test_model_load(&m, "cow.obj");
    kcbp_error err = {0};
    kcbp_contact *all = NULL, *got = NULL;
    size_t nall = 0, ngot = 0;
    assert_int_equal(kcbp_self_intersections(&m, KCBP_CONTACTS_ALL, &all, &nall, NULL, &err), KCBP_OK);
    assert_true(nall > 20);
    static const uint64_t caps[] = {1, 2, 10, 1000000};
    for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
        kcbp_tree_stats st;
        assert_int_equal(kcbp_self_intersections_capped(&m, KCBP_CONTACTS_ALL, caps[c], &got, &ngot, &st, &err),
                         KCBP_OK);
        assert_int_equal(ngot, nall < caps[c] ? nall : (size_t)caps[c]);
        for (size_t i = 0; i < ngot; i++) {
            assert_true(in_list(all, nall, got[i]));
            assert_true(i == 0 || got[i - 1].a < got[i].a || (got[i - 1].a == got[i].a && got[i - 1].b < got[i].b));
        }
        if (ngot == nall)
            assert_memory_equal(got, all, nall * sizeof *all);
        free(got);
    }
    free(all);
    kcbp_model_free(&m);
}

typedef struct {
    uint64_t pairs, contacts;
    uint32_t *ab; /* 2 per pair */
    size_t cap;
} streamed;

static kcbp_status on_pair(void *ctx, const kcbp_scene_pair *p, kcbp_error *err)
{
    (void)err;
    streamed *s = ctx;
    if (s->pairs * 2 + 2 > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->ab = realloc(s->ab, s->cap * sizeof *s->ab);
        assert_non_null(s->ab);
    }
    s->ab[2 * s->pairs] = p->a;
    s->ab[2 * s->pairs + 1] = p->b;
    s->pairs++;
    s->contacts += p->ncontacts;
    return KCBP_OK;
}

/* A dense scene (copies of one mesh packed tight), every contact asked
 * for: with a contact limit the frame hands on the same colliding pairs, at
 * least the limit's contacts (all of them when there are fewer), for 1 and
 * 2 threads. */
static void test_scene_limit(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/suzanne.obj", &mesh, NULL), KCBP_OK);
    kcbp_scene s;
    kcbp_error err = {0};
    assert_int_equal(test_scene_density(&s, "meshes/suzanne.obj", mesh.bounds, 400, 5, &err), KCBP_OK);
    kcbp_mesh_clear(&mesh);
    if (kcbp_scene_build(&s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    streamed ref = {0};
    kcbp_scene_eval_options eo = kcbp_scene_eval_options_default();
    eo.collide.contacts = KCBP_CONTACTS_ALL;
    kcbp_scene_eval *ev;
    kcbp_scene_frame f = {0};
    assert_int_equal(kcbp_scene_eval_new(&s, &eo, &ev, &err), KCBP_OK);
    assert_int_equal(kcbp_scene_eval_frame_stream(ev, 0, on_pair, &ref, &f, &err), KCBP_OK);
    kcbp_scene_eval_free(ev);
    print_message("%llu colliding pairs, %llu contacts\n", (unsigned long long)ref.pairs,
                  (unsigned long long)ref.contacts);
    assert_true(ref.pairs > 50 && ref.contacts > 1000);
    static const uint64_t limits[] = {1, 11, 500, 1000000000};
    for (unsigned jobs = 1; jobs <= 2; jobs++)
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
            eo.jobs = jobs;
            assert_int_equal(kcbp_scene_eval_new(&s, &eo, &ev, &err), KCBP_OK);
            kcbp_scene_eval_set_contact_limit(ev, limits[l]);
            streamed got = {0};
            assert_int_equal(kcbp_scene_eval_frame_stream(ev, 0, on_pair, &got, &f, &err), KCBP_OK);
            kcbp_scene_eval_free(ev);
            assert_int_equal(got.pairs, ref.pairs);
            assert_memory_equal(got.ab, ref.ab, 2 * ref.pairs * sizeof *ref.ab);
            if (ref.contacts < limits[l])
                assert_int_equal(got.contacts, ref.contacts);
            else
                assert_true(got.contacts >= limits[l] && got.contacts <= ref.contacts);
            if (limits[l] == 1)
                assert_true(got.contacts < ref.contacts / 10); /* the work stopped */
            free(got.ab);
        }
    free(ref.ab);
    kcbp_scene_frame_free(&f);
    kcbp_scene_clear(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_cap),
        cmocka_unit_test(test_scene_limit),
        cmocka_unit_test(test_coincident),
        cmocka_unit_test(test_self_cap),
    };
    return cmocka_run_group_tests_name("collide_cap", tests, NULL, NULL);
}
