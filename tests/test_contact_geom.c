/* Contact geometry: triangle intersections whose answers are known (a
 * crossing segment, a coplanar triangle and hexagon, a touching point),
 * random crossing pairs whose points must lie on both triangles, and a
 * contact normal that points from A into B. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

/* Some point of out[0 .. n) is within 1e-12 of p. */
static bool has_point(const kcbp_vec3 *out, uint32_t n, kcbp_vec3 p)
{
    for (uint32_t i = 0; i < n; i++)
        if (kcbp_v3_len(kcbp_v3_sub(out[i], p)) < 1e-12)
            return true;
    return false;
}

static void test_known_cases(void **state)
{
    (void)state;
    kcbp_vec3 out[KCBP_CONTACT_POINTS_MAX];
    const kcbp_vec3 a[3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}};
    /* Upright in y = 0.5, crossing z = 0 over x in [0.2, 0.6]. */
    const kcbp_vec3 up[3] = {{0.2, 0.5, -1}, {1, 0.5, 1}, {0.2, 0.5, 1}};
    assert_int_equal(kcbp_tri_intersection(a, up, out), 2);
    assert_true(has_point(out, 2, kcbp_v3(0.2, 0.5, 0)) && has_point(out, 2, kcbp_v3(0.6, 0.5, 0)));
    assert_int_equal(kcbp_tri_intersection(up, a, out), 2);
    assert_true(has_point(out, 2, kcbp_v3(0.2, 0.5, 0)) && has_point(out, 2, kcbp_v3(0.6, 0.5, 0)));
    /* Coplanar, overlapping in a triangle. */
    const kcbp_vec3 co[3] = {{0.5, 0.5, 0}, {3, 0.5, 0}, {0.5, 3, 0}};
    assert_int_equal(kcbp_tri_intersection(a, co, out), 3);
    assert_true(has_point(out, 3, kcbp_v3(0.5, 0.5, 0)) && has_point(out, 3, kcbp_v3(1.5, 0.5, 0)) &&
                has_point(out, 3, kcbp_v3(0.5, 1.5, 0)));
    /* Coplanar, a star of David: a hexagon; in the plane z = x + y (lifted
     * back onto it). */
    kcbp_vec3 s1[3] = {{0, 3, 0}, {-3, -1.5, 0}, {3, -1.5, 0}}, s2[3] = {{0, -3, 0}, {3, 1.5, 0}, {-3, 1.5, 0}};
    for (int i = 0; i < 3; i++)
        s1[i].z = s1[i].x + s1[i].y, s2[i].z = s2[i].x + s2[i].y;
    assert_true(kcbp_tri_intersect(s1, s2, 0));
    uint32_t n = kcbp_tri_intersection(s1, s2, out);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < n; i++)
        assert_true(fabs(out[i].z - out[i].x - out[i].y) < 1e-12);
    assert_true(has_point(out, n, kcbp_v3(1, 1.5, 2.5)));
    /* A vertex on a's face: one point. */
    const kcbp_vec3 tip[3] = {{0.5, 0.5, 0}, {0.5, 0.5, 1}, {1, 0.6, 1}};
    assert_int_equal(kcbp_tri_intersection(a, tip, out), 1);
    assert_true(has_point(out, 1, kcbp_v3(0.5, 0.5, 0)));
    /* Coplanar, touching only where a vertex of one lies on an edge of the
     * other (found by the CGAL oracle: clipping in double loses it). */
    const kcbp_vec3 ta[3] = {{-1, 0.75, -0.25}, {-0.5, 1, 0.5}, {-1, -1, -2}};
    const kcbp_vec3 tb[3] = {{-0.5, 0.5, 0}, {0.25, 1, 1.25}, {-0.75, 0, -0.75}};
    assert_int_equal(kcbp_tri_intersection(ta, tb, out), 1);
    assert_true(has_point(out, 1, kcbp_v3(-0.75, 0, -0.75)));
    /* A degenerate triangle (a segment) through a. */
    const kcbp_vec3 seg[3] = {{0.3, 0.3, -1}, {0.3, 0.3, 1}, {0.3, 0.3, 1}};
    assert_int_equal(kcbp_tri_intersection(a, seg, out), 1);
    assert_true(has_point(out, 1, kcbp_v3(0.3, 0.3, 0)));
}

/* Distance from p to the plane of t, relative to t's size. */
static double plane_gap(const kcbp_vec3 t[3], kcbp_vec3 p)
{
    kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
    return fabs(kcbp_v3_dot(n, kcbp_v3_sub(p, t[0]))) / kcbp_v3_len(n);
}

static void test_random_pairs_on_both(void **state)
{
    (void)state;
    test_rng rng = {7};
    int tested = 0;
    for (int i = 0; i < 20000 && tested < 2000; i++) {
        kcbp_vec3 a[3], b[3], out[KCBP_CONTACT_POINTS_MAX];
        for (int k = 0; k < 3; k++) {
            a[k] = kcbp_v3(test_rng_range(&rng, -1, 1), test_rng_range(&rng, -1, 1), test_rng_range(&rng, -1, 1));
            b[k] = kcbp_v3(test_rng_range(&rng, -1, 1), test_rng_range(&rng, -1, 1), test_rng_range(&rng, -1, 1));
        }
        if (!kcbp_tri_intersect(a, b, 0))
            continue;
        tested++;
        uint32_t n = kcbp_tri_intersection(a, b, out);
        assert_true(n >= 1 && n <= 2);
        for (uint32_t k = 0; k < n; k++) {
            assert_true(plane_gap(a, out[k]) < 1e-9);
            assert_true(plane_gap(b, out[k]) < 1e-9);
        }
    }
    assert_true(tested >= 1000);
}

/* A small box pushed into the face x = 1 of a big one: the contact point is
 * on that face and the normal is +x (out of A, into B); the same pair the
 * other way round gives -x. */
static void test_pair_summary(void **state)
{
    (void)state;
    kcbp_model big, small;
    test_model_box(&big, kcbp_v3(-1, -1, -1), kcbp_v3(1, 1, 1));
    test_model_box(&small, kcbp_v3(-0.3, -0.3, -0.3), kcbp_v3(0.3, 0.3, 0.3));
    kcbp_pose id = kcbp_pose_identity(), p = id;
    p.trans = kcbp_v3(1.2, 0.01, -0.02);
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result r = {0};
    kcbp_error err = {0};
    for (int way = 0; way < 2; way++) {
        const kcbp_model *a = way ? &small : &big, *b = way ? &big : &small;
        const kcbp_pose *pa = way ? &p : &id, *pb = way ? &id : &p;
        assert_int_equal(kcbp_collide(a, pa, b, pb, &o, &r, &err), KCBP_OK);
        assert_true(r.ncontacts > 0);
        kcbp_contact_geom *g = calloc(r.ncontacts, sizeof *g);
        assert_non_null(g);
        kcbp_contact_summary s;
        kcbp_contact_geometry(a, pa, b, pb, r.contacts, r.ncontacts, g, &s);
        for (size_t i = 0; i < r.ncontacts; i++) {
            assert_int_equal(g[i].a, r.contacts[i].a);
            for (uint32_t k = 0; k < g[i].npoints; k++)
                assert_true(fabs(g[i].points[k].x - 1) < 1e-12); /* on the plane x = 1 */
        }
        assert_true(fabs(s.point.x - 1) < 1e-12);
        assert_true(s.has_normal);
        assert_true(fabs(s.normal.x - (way ? -1 : 1)) < 1e-9);
        free(g);
    }
    kcbp_collide_result_free(&r);
    kcbp_model_free(&small);
    kcbp_model_free(&big);
}

static void test_cli_geometry(void **state)
{
    (void)state;
    test_run_result r;
    const char *ok[] = {"collide",  "meshes/spot.obj", "meshes/spot.obj", "--pose-b", "0.1 0 0 0 0 1 10",
                        "--contacts", "first", "--geometry", NULL};
    test_run(&r, ok);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"intersections\":[[["));
    assert_non_null(strstr(r.out, "\"contact\":{\"point\":["));
    free(r.out), free(r.err);
    const char *bad[] = {"collide", "meshes/spot.obj", "meshes/spot.obj", "--contacts", "none", "--geometry", NULL};
    test_run(&r, bad);
    assert_int_equal(r.status, 2);
    free(r.out), free(r.err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_cases),
        cmocka_unit_test(test_random_pairs_on_both),
        cmocka_unit_test(test_pair_summary),
        cmocka_unit_test(test_cli_geometry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
