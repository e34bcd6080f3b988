/* Solids: the closedness check, the exact point-in-solid test on rays
 * through edges and vertices, and kcbp_collide's containment on nested,
 * touching, hollow and multi-piece meshes (CGAL's Side_of_triangle_mesh is
 * the oracle of `make stress`: tests/stress/solid_exact.cpp). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* The box [lo, hi] as 12 outward triangles, appended to v and t. */
static void add_box(kcbp_vec3 *v, size_t *nv, kcbp_tri *t, size_t *nt, kcbp_vec3 lo, kcbp_vec3 hi, bool inward)
{
    static const uint32_t f[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                      {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
    uint32_t base = (uint32_t)*nv;
    for (int i = 0; i < 8; i++) {
        double x = (i == 1 || i == 2 || i == 5 || i == 6) ? hi.x : lo.x;
        double y = (i == 2 || i == 3 || i == 6 || i == 7) ? hi.y : lo.y;
        double z = i >= 4 ? hi.z : lo.z;
        v[(*nv)++] = kcbp_v3(x, y, z);
    }
    for (int i = 0; i < 12; i++) {
        kcbp_tri tr = {{base + f[i][0], base + f[i][inward ? 2 : 1], base + f[i][inward ? 1 : 2]}};
        t[(*nt)++] = tr;
    }
}

static kcbp_status build_solid(kcbp_model *m, const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt,
                               kcbp_error *err)
{
    kcbp_mesh mesh;
    kcbp_status st = kcbp_mesh_init(&mesh, v, nv, t, nt, err);
    if (st != KCBP_OK)
        return st;
    kcbp_model_options o = kcbp_model_options_default();
    o.solid = true;
    return kcbp_model_build_from(m, &mesh, &o, err);
}

static void solid_box(kcbp_model *m, double lo, double hi)
{
    kcbp_vec3 v[8];
    kcbp_tri t[12];
    size_t nv = 0, nt = 0;
    add_box(v, &nv, t, &nt, kcbp_v3(lo, lo, lo), kcbp_v3(hi, hi, hi), false);
    kcbp_error err = {0};
    assert_int_equal(build_solid(m, v, nv, t, nt, &err), KCBP_OK);
}

static kcbp_solid_side box_side(kcbp_vec3 p)
{
    double c[3] = {p.x, p.y, p.z};
    bool in = true, on = false;
    for (int i = 0; i < 3; i++) {
        in &= c[i] > -1 && c[i] < 1;
        on |= c[i] == -1 || c[i] == 1;
    }
    bool closed = true;
    for (int i = 0; i < 3; i++)
        closed &= c[i] >= -1 && c[i] <= 1;
    return in ? KCBP_SOLID_INSIDE : (closed && on) ? KCBP_SOLID_ON : KCBP_SOLID_OUTSIDE;
}

/* Points on a grid through the cube's faces, edges and vertices: the +x ray
 * of most of them runs through an edge or a vertex of the triangulation
 * (the face diagonals at y = z), in a face's plane, or along an edge. */
static void test_point_in_cube_degenerate_rays(void **state)
{
    (void)state;
    kcbp_model m;
    solid_box(&m, -1, 1);
    /* A quarter turn about z that is exact (a permutation and a sign):
     * the same cube, its triangles run differently. */
    kcbp_pose quarter = kcbp_pose_identity();
    memset(&quarter.rot, 0, sizeof quarter.rot);
    quarter.rot.m[0][1] = -1, quarter.rot.m[1][0] = 1, quarter.rot.m[2][2] = 1;
    static const double g[] = {-1.5, -1, -0.5, 0, 0.5, 1, 1.5};
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++)
            for (int k = 0; k < 7; k++) {
                kcbp_vec3 p = kcbp_v3(g[i], g[j], g[k]);
                kcbp_solid_side want = box_side(p);
                assert_int_equal(kcbp_point_in_mesh(&m.impl->mesh, NULL, NULL, p), want);
                assert_int_equal(kcbp_point_in_mesh(&m.impl->mesh, &m.impl->tree, NULL, p), want);
                assert_int_equal(kcbp_point_in_mesh(&m.impl->mesh, &m.impl->tree, &quarter, p), want);
                assert_int_equal(kcbp_point_in_mesh(&m.impl->mesh, NULL, &quarter, p), want);
            }
    kcbp_model_free(&m);
}

/* A hollow cube (an outer shell and an inverted inner one): the cavity is
 * outside. A small cube in the cavity does not collide; in the wall it does. */
static void test_hollow_and_pieces(void **state)
{
    (void)state;
    kcbp_vec3 v[24];
    kcbp_tri t[36];
    size_t nv = 0, nt = 0;
    add_box(v, &nv, t, &nt, kcbp_v3(-2, -2, -2), kcbp_v3(2, 2, 2), false);
    add_box(v, &nv, t, &nt, kcbp_v3(-1, -1, -1), kcbp_v3(1, 1, 1), true);
    kcbp_error err = {0};
    kcbp_model hollow, small;
    assert_int_equal(build_solid(&hollow, v, nv, t, nt, &err), KCBP_OK);
    assert_int_equal(hollow.impl->npieces, 2);
    assert_int_equal(kcbp_point_in_mesh(&hollow.impl->mesh, &hollow.impl->tree, NULL, kcbp_v3(0, 0, 0)), KCBP_SOLID_OUTSIDE);
    assert_int_equal(kcbp_point_in_mesh(&hollow.impl->mesh, &hollow.impl->tree, NULL, kcbp_v3(1.5, 0, 0)), KCBP_SOLID_INSIDE);
    assert_int_equal(kcbp_point_in_mesh(&hollow.impl->mesh, &hollow.impl->tree, NULL, kcbp_v3(-1.5, 1, 1)), KCBP_SOLID_INSIDE);
    solid_box(&small, -0.25, 0.25);
    kcbp_collide_options o = kcbp_collide_options_default();
    o.solid = true;
    kcbp_collide_result r = {0};
    kcbp_pose id = kcbp_pose_identity(), p = id;
    assert_int_equal(kcbp_collide(&hollow, &id, &small, &p, &o, &r, &err), KCBP_OK);
    assert_false(r.collide);
    assert_int_equal(r.contained, KCBP_CONTAINED_NONE);
    p.trans = kcbp_v3(1.5, 0.3, -0.2); /* in the wall */
    assert_int_equal(kcbp_collide(&hollow, &id, &small, &p, &o, &r, &err), KCBP_OK);
    assert_true(r.collide);
    assert_int_equal(r.contained, KCBP_CONTAINED_B_IN_A);
    assert_int_equal(r.ncontacts, 0);
    assert_int_equal(kcbp_collide(&small, &p, &hollow, &id, &o, &r, &err), KCBP_OK);
    assert_int_equal(r.contained, KCBP_CONTAINED_A_IN_B);
    /* Two pieces: one far off, one inside the big cube's wall. */
    kcbp_model two;
    nv = nt = 0;
    add_box(v, &nv, t, &nt, kcbp_v3(10, 10, 10), kcbp_v3(11, 11, 11), false);
    add_box(v, &nv, t, &nt, kcbp_v3(1.25, 0, 0), kcbp_v3(1.75, 0.5, 0.5), false);
    assert_int_equal(build_solid(&two, v, nv, t, nt, &err), KCBP_OK);
    assert_int_equal(two.impl->npieces, 2);
    assert_int_equal(kcbp_collide(&hollow, &id, &two, &id, &o, &r, &err), KCBP_OK);
    assert_int_equal(r.contained, KCBP_CONTAINED_B_IN_A);
    /* Without solid: the surfaces do not meet. */
    o.solid = false;
    assert_int_equal(kcbp_collide(&hollow, &id, &two, &id, &o, &r, &err), KCBP_OK);
    assert_false(r.collide);
    kcbp_model_free(&two);
    kcbp_model_free(&small);
    kcbp_model_free(&hollow);
}

/* Nested at random poses, touching from inside, and apart; the containment
 * answer against the small cube's centre being inside the big one. */
static void test_nested_random_poses(void **state)
{
    (void)state;
    kcbp_model big, small;
    solid_box(&big, -1, 1);
    solid_box(&small, -0.2, 0.2);
    test_rng rng = {12345};
    kcbp_collide_options o = kcbp_collide_options_default();
    o.solid = true;
    kcbp_collide_result r = {0};
    kcbp_error err = {0};
    int nested = 0, touching = 0, apart = 0;
    for (int i = 0; i < 300; i++) {
        kcbp_pose pa = test_random_pose(&rng, 0.5), pb = test_random_pose(&rng, 1.8);
        assert_int_equal(kcbp_collide(&big, &pa, &small, &pb, &o, &r, &err), KCBP_OK);
        kcbp_pose rel = kcbp_pose_relative(&pa, &pb);
        /* The small cube's corners in the big one's frame. */
        int in = 0;
        for (uint32_t k = 0; k < small.impl->mesh.nvertices; k++) {
            kcbp_vec3 c = kcbp_pose_apply(&rel, small.impl->mesh.vertices[k]);
            in += box_side(c) == KCBP_SOLID_INSIDE;
        }
        if (r.ncontacts > 0) {
            touching++;
            assert_int_equal(r.contained, KCBP_CONTAINED_NONE);
        } else if (in == 8) {
            nested++;
            assert_true(r.collide);
            assert_int_equal(r.contained, KCBP_CONTAINED_B_IN_A);
        } else {
            apart++;
            assert_int_equal(in, 0);
            assert_false(r.collide);
        }
    }
    assert_true(nested > 10 && touching > 10 && apart > 10);
    /* Touching from inside: a face of the small cube on the big one's. */
    kcbp_pose id = kcbp_pose_identity(), p = id;
    p.trans = kcbp_v3(0.8, 0, 0);
    assert_int_equal(kcbp_collide(&big, &id, &small, &p, &o, &r, &err), KCBP_OK);
    assert_true(r.collide && r.ncontacts > 0);
    assert_int_equal(r.contained, KCBP_CONTAINED_NONE);
    kcbp_collide_result_free(&r);
    kcbp_model_free(&small);
    kcbp_model_free(&big);
}

/* The tree's pruning (an oblique ray in B's frame) against every triangle,
 * on a bundled closed mesh at random poses. */
static void test_tree_matches_all_triangles(void **state)
{
    (void)state;
    kcbp_mesh mesh;
    kcbp_error err = {0};
    assert_int_equal(kcbp_obj_load_into("meshes/spot.obj", &mesh, &err), KCBP_OK);
    kcbp_model_options mo = kcbp_model_options_default();
    mo.solid = true;
    kcbp_model m;
    assert_int_equal(kcbp_model_build_from(&m, &mesh, &mo, &err), KCBP_OK);
    test_rng rng = {99};
    kcbp_aabb b = m.impl->mesh.bounds;
    int inside = 0;
    for (int i = 0; i < 200; i++) {
        kcbp_pose pose = test_random_pose(&rng, 0.1);
        kcbp_vec3 p = kcbp_v3(test_rng_range(&rng, b.min.x, b.max.x), test_rng_range(&rng, b.min.y, b.max.y),
                              test_rng_range(&rng, b.min.z, b.max.z));
        if (i % 4 == 0) /* a vertex's x and y: rays along the mesh's own vertices and edges */
            p = kcbp_v3(p.x, m.impl->mesh.vertices[i].y, m.impl->mesh.vertices[i].z);
        kcbp_solid_side s = kcbp_point_in_mesh(&m.impl->mesh, &m.impl->tree, NULL, p);
        assert_int_equal(s, kcbp_point_in_mesh(&m.impl->mesh, NULL, NULL, p));
        assert_int_equal(kcbp_point_in_mesh(&m.impl->mesh, &m.impl->tree, &pose, p), kcbp_point_in_mesh(&m.impl->mesh, NULL, &pose, p));
        inside += s == KCBP_SOLID_INSIDE;
    }
    assert_true(inside > 10);
    kcbp_model_free(&m);
}

static void test_not_closed_errors(void **state)
{
    (void)state;
    kcbp_vec3 v[16];
    kcbp_tri t[24];
    size_t nv = 0, nt = 0;
    add_box(v, &nv, t, &nt, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1), false);
    kcbp_error err = {0};
    kcbp_model m;
    kcbp_solid_check c;
    kcbp_mesh mesh;
    /* One triangle missing: its three edges are open. */
    assert_int_equal(build_solid(&m, v, nv, t, nt - 1, &err), KCBP_ERR_GEOMETRY);
    assert_non_null(strstr(err.msg, "3 open edges ("));
    /* One triangle flipped: its three edges run the same way as their
     * neighbours'. */
    kcbp_tri keep = t[0];
    t[0] = (kcbp_tri){{keep.v[0], keep.v[2], keep.v[1]}};
    assert_int_equal(kcbp_mesh_init(&mesh, v, nv, t, nt, &err), KCBP_OK);
    assert_int_equal(kcbp_mesh_check_solid(&mesh, &c, &err), KCBP_ERR_GEOMETRY);
    assert_int_equal(c.misoriented, 3);
    assert_int_equal(c.open, 0);
    assert_non_null(strstr(err.msg, "3 inconsistently oriented edges"));
    kcbp_mesh_clear(&mesh);
    t[0] = keep;
    /* A third triangle on an edge. */
    t[nt] = (kcbp_tri){{0, 1, 6}};
    assert_int_equal(kcbp_mesh_init(&mesh, v, nv, t, nt + 1, &err), KCBP_OK);
    assert_int_equal(kcbp_mesh_check_solid(&mesh, &c, &err), KCBP_ERR_GEOMETRY);
    assert_true(c.nonmanifold >= 1);
    assert_non_null(strstr(err.msg, "non-manifold"));
    kcbp_mesh_clear(&mesh);
    /* Closed: the same box with every face's vertices repeated (an OBJ
     * without shared vertices) is identified by coordinates. */
    kcbp_vec3 sv[36];
    kcbp_tri st[12];
    for (uint32_t i = 0; i < 12; i++) {
        for (int k = 0; k < 3; k++)
            sv[3 * i + k] = v[t[i].v[k]];
        st[i] = (kcbp_tri){{3 * i, 3 * i + 1, 3 * i + 2}};
    }
    assert_int_equal(build_solid(&m, sv, 36, st, 12, &err), KCBP_OK);
    assert_int_equal(m.impl->npieces, 1);
    /* A model not built as a solid is refused by a solid test. */
    kcbp_model plain;
    test_model_box(&plain, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    kcbp_collide_options o = kcbp_collide_options_default();
    o.solid = true;
    kcbp_collide_result r = {0};
    kcbp_pose id = kcbp_pose_identity();
    assert_int_equal(kcbp_collide(&m, &id, &plain, &id, &o, &r, &err), KCBP_ERR_INVALID);
    kcbp_model_free(&plain);
    kcbp_model_free(&m);
}

static char tmpdir[] = "/tmp/kcbp-solid-XXXXXX";

TEST_TMPDIR_FIXTURES(tmpdir)

static const char cube_obj[] = "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
                               "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\n"
                               "f 3 4 8\nf 3 8 7\nf 4 1 5\n";

static void test_cli_solid(void **state)
{
    (void)state;
    char text[sizeof cube_obj + 16];
    snprintf(text, sizeof text, "%sf 4 5 8\n", cube_obj);
    const char *cube = test_tmp_write_text(tmpdir, "cube.obj", text);
    const char *open = test_tmp_write_text(tmpdir, "open.obj", cube_obj);
    test_run_result r;
    const char *nested[] = {"collide", cube, cube, "--pose-b", "0.1 0 0 1 2 3 20", "--solid", NULL};
    test_run(&r, nested);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"collide\":true"));
    assert_non_null(strstr(r.out, "\"contained\":\"none\"")); /* the same cube turned: the surfaces cross */
    free(r.out), free(r.err);
    const char *small = test_tmp_write_text(tmpdir, "small.obj",
                                            "v 0 0 0\nv .5 0 0\nv .5 .5 0\nv 0 .5 0\nv 0 0 .5\nv .5 0 .5\n"
                                            "v .5 .5 .5\nv 0 .5 .5\nf 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\n"
                                            "f 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n");
    const char *inside[] = {"collide", small, cube, "--solid", "--contacts", "none", NULL};
    test_run(&r, inside);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"collide\":true,\"decided_by\":\"mesh\",\"contained\":\"a_in_b\""));
    free(r.out), free(r.err);
    /* A scene and a batch: the small cube in the big one, two far off that cross. */
    const char *scene = test_tmp_write_text(
        tmpdir, "s.json",
        "{\"objects\": [{\"name\": \"big\", \"mesh\": \"cube.obj\", \"position\": [0, 0, 0]},"
        "{\"name\": \"small\", \"mesh\": \"cube.obj\", \"position\": [0.2, 0, 0], \"scale\": 0.25},"
        "{\"name\": \"far\", \"mesh\": \"cube.obj\", \"position\": [5, 0, 0], \"scale\": 0.25},"
        "{\"name\": \"cross\", \"mesh\": \"cube.obj\", \"position\": [5.2, 0, 0], \"scale\": 0.25,"
        " \"rotation\": {\"axis\": [0, 0, 1], \"angle_deg\": 30}}]}");
    const char *sc[] = {"scene", scene, "--solid", "--contacts", "none", NULL};
    test_run(&r, sc);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"colliding\":[{\"a\":\"big\",\"b\":\"small\",\"contained\":\"b_in_a\"},"
                                  "{\"a\":\"far\",\"b\":\"cross\"}]"));
    free(r.out), free(r.err);
    const char *plain[] = {"batch", scene, "--contacts", "none", NULL};
    test_run(&r, plain);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"colliding\":[{\"a\":\"far\",\"b\":\"cross\"}]"));
    free(r.out), free(r.err);
    const char *batch[] = {"batch", scene, "--solid", NULL};
    test_run(&r, batch);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"contained\":\"b_in_a\""));
    free(r.out), free(r.err);
    const char *bad[] = {"collide", open, cube, "--solid", NULL};
    test_run(&r, bad);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "3 open edges (5-4, 4-8, 8-5)"));
    free(r.out), free(r.err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_in_cube_degenerate_rays),
        cmocka_unit_test(test_hollow_and_pieces),
        cmocka_unit_test(test_nested_random_poses),
        cmocka_unit_test(test_tree_matches_all_triangles),
        cmocka_unit_test(test_not_closed_errors),
        cmocka_unit_test(test_cli_solid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
