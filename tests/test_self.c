/* kcbp_self_intersections on hand-made cases whose answers are known: the
 * rules for triangles sharing an edge or a vertex, coplanar folds, repeated
 * faces, meshes that repeat their vertices, and `kcbp self`. CGAL's
 * self_intersections is the oracle of `make stress` (solid_exact self). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* The pairs of the mesh (v, t), every one. */
static size_t self_pairs(const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt, kcbp_contact **pairs)
{
    kcbp_model m;
    test_model_from_arrays(&m, v, nv, t, nt);
    kcbp_error err = {0};
    size_t n, nfirst;
    kcbp_contact *first;
    assert_int_equal(kcbp_self_intersections(&m, KCBP_CONTACTS_ALL, pairs, &n, NULL, &err), KCBP_OK);
    assert_int_equal(kcbp_self_intersections(&m, KCBP_CONTACTS_FIRST, &first, &nfirst, NULL, &err), KCBP_OK);
    assert_int_equal(nfirst, n > 0);
    if (nfirst) { /* FIRST finds one of ALL's pairs */
        bool found = false;
        for (size_t i = 0; i < n; i++)
            found |= (*pairs)[i].a == first->a && (*pairs)[i].b == first->b;
        assert_true(found);
    }
    for (size_t i = 0; i < n; i++) {
        assert_true((*pairs)[i].a < (*pairs)[i].b);
        if (i)
            assert_true((*pairs)[i - 1].a < (*pairs)[i].a ||
                        ((*pairs)[i - 1].a == (*pairs)[i].a && (*pairs)[i - 1].b < (*pairs)[i].b));
    }
    free(first);
    kcbp_model_free(&m);
    return n;
}

static size_t count_pairs(const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt)
{
    kcbp_contact *p;
    size_t n = self_pairs(v, nv, t, nt, &p);
    free(p);
    return n;
}

static void test_shared_edge(void **state)
{
    (void)state;
    /* u = 0, v = 1 shared; 2 and 3 the other vertices. */
    kcbp_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0.3, 1, 0}, {0.6, -1, 0}};
    kcbp_tri t[2] = {{{0, 1, 2}}, {{1, 0, 3}}};
    assert_int_equal(count_pairs(v, 4, t, 2), 0); /* a flat quad */
    v[3] = kcbp_v3(0.6, 1, 0);                     /* folded onto the first: overlap */
    assert_int_equal(count_pairs(v, 4, t, 2), 1);
    v[3] = kcbp_v3(0.6, 1, 1e-300); /* off the plane by a hair: a dihedral angle of almost 0, only the edge */
    assert_int_equal(count_pairs(v, 4, t, 2), 0);
    v[3] = kcbp_v3(0.6, -1, 0.5); /* bent: only the edge */
    assert_int_equal(count_pairs(v, 4, t, 2), 0);
    /* Two segments on the edge's line (degenerate triangles) running past
     * the same end overlap; past opposite ends they do not. */
    kcbp_vec3 w[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
    assert_int_equal(count_pairs(w, 4, t, 2), 1);
    w[3] = kcbp_v3(-1, 0, 0);
    assert_int_equal(count_pairs(w, 4, t, 2), 0);
}

static void test_shared_vertex(void **state)
{
    (void)state;
    kcbp_vec3 v[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2, 0.2, -1}, {0.2, 0.2, 1}};
    kcbp_tri t[2] = {{{0, 1, 2}}, {{0, 3, 4}}};
    assert_int_equal(count_pairs(v, 5, t, 2), 1); /* the opposite edge 3-4 pierces the first */
    v[3] = kcbp_v3(-0.2, -0.2, -1), v[4] = kcbp_v3(-0.2, -0.2, 1);
    assert_int_equal(count_pairs(v, 5, t, 2), 0); /* they meet at vertex 0 only */
    /* Coplanar wedges overlapping near the shared vertex. */
    v[3] = kcbp_v3(1, 1, 0), v[4] = kcbp_v3(2, 0.5, 0);
    assert_int_equal(count_pairs(v, 5, t, 2), 1);
    /* Touching the shared vertex's opposite edge at a point: counts. */
    v[3] = kcbp_v3(0.5, 0.5, -1), v[4] = kcbp_v3(0.5, 0.5, 1);
    assert_int_equal(count_pairs(v, 5, t, 2), 1);
}

static void test_apart_crossing_repeated(void **state)
{
    (void)state;
    kcbp_vec3 v[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2, 0.2, -1}, {0.3, 0.2, 1}, {0.2, 0.3, 1}};
    kcbp_tri t[3] = {{{0, 1, 2}}, {{3, 4, 5}}, {{2, 1, 0}}};
    assert_int_equal(count_pairs(v, 6, t, 2), 1); /* crossing, no shared vertex */
    kcbp_contact *p;
    assert_int_equal(self_pairs(v, 6, t, 3, &p), 3); /* a repeated face: with itself, and both with the third */
    assert_int_equal(p[0].a, 0);
    assert_int_equal(p[0].b, 1);
    free(p);
    for (int i = 3; i < 6; i++)
        v[i].z += 2;
    assert_int_equal(count_pairs(v, 6, t, 2), 0);
}

/* A closed box does not intersect itself, even with every face's vertices
 * repeated (identified by coordinates); one corner pushed through the
 * opposite face makes it. */
static void test_box(void **state)
{
    (void)state;
    kcbp_model box;
    test_model_box(&box, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    kcbp_vec3 v[36];
    kcbp_tri t[12];
    for (uint32_t i = 0; i < 12; i++) {
        for (int k = 0; k < 3; k++)
            v[3 * i + k] = box.impl->mesh.vertices[box.impl->mesh.triangles[i].v[k]];
        t[i] = (kcbp_tri){{3 * i, 3 * i + 1, 3 * i + 2}};
    }
    assert_int_equal(count_pairs(box.impl->mesh.vertices, box.impl->mesh.nvertices, box.impl->mesh.triangles, 12), 0);
    assert_int_equal(count_pairs(v, 36, t, 12), 0);
    /* Vertex 0's position moved to (1.5, 0.5, 0.5): through the face x = 1. */
    kcbp_vec3 moved[8];
    memcpy(moved, box.impl->mesh.vertices, sizeof moved);
    uint32_t corner = box.impl->mesh.triangles[0].v[0];
    moved[corner] = kcbp_v3(1.5, 0.5, 0.5);
    assert_true(count_pairs(moved, 8, box.impl->mesh.triangles, 12) > 0);
    kcbp_model_free(&box);
}

static char tmpdir[] = "/tmp/kcbp-self-XXXXXX";

TEST_TMPDIR_FIXTURES(tmpdir)

static void test_cli_self(void **state)
{
    (void)state;
    const char *path = test_tmp_write_text(tmpdir, "x.obj",
                                           "v 0 0 0\nv 1 0 0\nv 0 1 0\nv .2 .2 -1\nv .3 .2 1\nv .2 .3 1\n"
                                           "f 1 2 3\nf 4 5 6\n");
    test_run_result r;
    const char *argv[] = {"self", path, NULL};
    test_run(&r, argv);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"self_intersect\":true,\"pairs\":[[0,1]],"));
    free(r.out), free(r.err);
    const char *none[] = {"self", "meshes/spot.obj", "--contacts", "none", NULL};
    test_run(&r, none);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"self_intersect\":false,\"mesh\":"));
    free(r.out), free(r.err);
    const char *bad[] = {"self", path, path, NULL};
    test_run(&r, bad);
    assert_int_equal(r.status, 2);
    free(r.out), free(r.err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_edge),
        cmocka_unit_test(test_shared_vertex),
        cmocka_unit_test(test_apart_crossing_repeated),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_cli_self),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
