/* Contact manifolds (kcbp/manifold.h): cases whose manifolds are known (a
 * box resting on a box, a sphere and a capsule on a box, two cube meshes,
 * two feet on a slab), the same pairs moved together by a rigid motion
 * (the manifolds move with them), the invariants on two real meshes at
 * random poses (unit normals, at most four points, the witness identity,
 * points on the surfaces checked with the exact collision test of a tiny
 * sphere, valid features), the array's reuse, the options' rule, and
 * `kcbp collide --contacts manifold`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testutil.h"

static void shape_model(kcbp_model *m, kcbp_shape s)
{
    kcbp_error err = {0};
    if (kcbp_model_build_shape(m, &s, &err) != KCBP_OK)
        fail_msg("shape: %s", err.msg);
}

static kcbp_pose at(double x, double y, double z, kcbp_vec3 axis, double deg)
{
    kcbp_pose p;
    kcbp_error err = {0};
    if (kcbp_pose_from_axis_angle(kcbp_v3(x, y, z), axis, deg, &p, &err) != KCBP_OK)
        fail_msg("pose: %s", err.msg);
    return p;
}

static kcbp_pose move(double x, double y, double z) { return at(x, y, z, kcbp_v3(0, 0, 1), 0); }

static bool near(kcbp_vec3 p, kcbp_vec3 q, double tol) { return kcbp_v3_len(kcbp_v3_sub(p, q)) <= tol; }

/* Some point of m is within tol of (x, y) in its point_b's x and y. */
static bool has_xy(const kcbp_manifold *m, double x, double y, double tol)
{
    for (uint32_t i = 0; i < m->npoints; i++)
        if (fabs(m->points[i].point_b.x - x) <= tol && fabs(m->points[i].point_b.y - y) <= tol)
            return true;
    return false;
}

/* The rules every manifold keeps (manifold.h), for models with na and nb
 * triangles (0: a shape). */
static void check_invariants(const kcbp_manifold_set *s, uint32_t na, uint32_t nb, double scale)
{
    size_t total = 0;
    for (size_t i = 0; i < s->nmanifolds; i++) {
        const kcbp_manifold *m = &s->manifolds[i];
        assert_true(fabs(kcbp_v3_len(m->normal) - 1) < 1e-12);
        assert_true(m->npoints >= 1 && m->npoints <= KCBP_MANIFOLD_POINTS_MAX);
        assert_true(m->depth >= 0 && isfinite(m->depth));
        total += m->ncontacts;
        for (uint32_t k = 0; k < m->npoints; k++) {
            const kcbp_manifold_point *p = &m->points[k];
            kcbp_vec3 d = kcbp_v3_sub(p->point_b, p->point_a);
            assert_true(near(d, kcbp_v3_scale(m->normal, p->separation), 1e-9 * scale));
            assert_true(p->separation <= 1e-9 * scale);
            assert_true(-p->separation <= m->depth + 1e-9 * scale || m->depth_exact);
            assert_true(na ? p->feature_a < na : p->feature_a == KCBP_SHAPE_FEATURE);
            assert_true(nb ? p->feature_b < nb : p->feature_b == KCBP_SHAPE_FEATURE);
        }
    }
    if (na && nb)
        assert_int_equal(total, s->ncontacts);
}

/* p is on model m's surface (or in it, for a shape), to tol: a sphere of
 * radius tol there collides with m (the exact test, not the manifold's
 * construction). */
static bool on_model(const kcbp_model *m, const kcbp_pose *pose, kcbp_vec3 p, double tol)
{
    kcbp_model s = {0};
    shape_model(&s, kcbp_shape_sphere(tol));
    kcbp_pose ps = move(p.x, p.y, p.z);
    kcbp_collide_options o = kcbp_collide_options_default();
    kcbp_collide_result r = {0};
    kcbp_error err = {0};
    assert_int_equal(kcbp_collide(m, pose, &s, &ps, &o, &r, &err), KCBP_OK);
    bool hit = r.collide;
    kcbp_collide_result_free(&r);
    kcbp_model_free(&s);
    return hit;
}

static void run(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                kcbp_manifold_set *s)
{
    kcbp_error err = {0};
    kcbp_manifold_options o = kcbp_manifold_options_default();
    if (kcbp_manifolds(a, pa, b, pb, &o, s, &err) != KCBP_OK)
        fail_msg("manifolds: %s", err.msg);
}

/* Box B (1 x 1 x 1) resting on box A (2 x 2 x 1), sunk 0.1 into it: one
 * manifold, normal +z, its four points B's bottom corners, each 0.1 deep;
 * the same moved by a rigid motion moves with it. */
static void test_box_on_box(void **state)
{
    (void)state;
    kcbp_model a = {0}, b = {0};
    shape_model(&a, kcbp_shape_box(2, 2, 1));
    shape_model(&b, kcbp_shape_box(1, 1, 1));
    kcbp_pose pa = kcbp_pose_identity(), pb = move(0.3, 0.2, 0.9);
    kcbp_manifold_set s = {0};
    run(&a, &pa, &b, &pb, &s);
    assert_true(s.collide);
    assert_int_equal(s.nmanifolds, 1);
    const kcbp_manifold *m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-12));
    assert_true(fabs(m->depth - 0.1) < 1e-12 && m->depth_exact);
    assert_int_equal(m->npoints, 4);
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(fabs(m->points[i].separation + 0.1) < 1e-12);
        assert_true(fabs(m->points[i].point_a.z - 0.5) < 1e-12 && fabs(m->points[i].point_b.z - 0.4) < 1e-12);
    }
    assert_true(has_xy(m, -0.2, -0.3, 1e-12) && has_xy(m, 0.8, -0.3, 1e-12) && has_xy(m, 0.8, 0.7, 1e-12) &&
                has_xy(m, -0.2, 0.7, 1e-12));
    check_invariants(&s, 0, 0, 2);

    /* B turned 30 degrees about z and hanging over A's edge: the clipped
     * points lie on A's top face, inside B's footprint. */
    pb = at(0.9, 0, 0.9, kcbp_v3(0, 0, 1), 30);
    run(&a, &pa, &b, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    m = &s.manifolds[0];
    assert_true(m->npoints >= 3);
    for (uint32_t i = 0; i < m->npoints; i++) {
        kcbp_vec3 p = m->points[i].point_a;
        assert_true(p.x <= 1 + 1e-12 && fabs(p.z - 0.5) < 1e-12);
        assert_true(fabs(m->points[i].separation + 0.1) < 1e-12);
    }
    check_invariants(&s, 0, 0, 2);

    /* The whole pair moved by a rigid motion: the manifold moves with it. */
    test_rng rng = {32};
    for (int t = 0; t < 20; t++) {
        kcbp_pose w = test_random_pose(&rng, 5);
        pb = move(0.3, 0.2, 0.9);
        kcbp_pose wa = kcbp_pose_mul(&w, &pa), wb = kcbp_pose_mul(&w, &pb);
        kcbp_manifold_set s2 = {0};
        run(&a, &pa, &b, &pb, &s);
        run(&a, &wa, &b, &wb, &s2);
        assert_int_equal(s2.nmanifolds, 1);
        const kcbp_manifold *m1 = &s.manifolds[0], *m2 = &s2.manifolds[0];
        assert_true(near(m2->normal, kcbp_mat3_mul_v3(&w.rot, m1->normal), 1e-9));
        assert_true(fabs(m2->depth - m1->depth) < 1e-9);
        assert_int_equal(m2->npoints, 4);
        for (uint32_t i = 0; i < 4; i++) {
            bool found = false;
            for (uint32_t j = 0; j < 4 && !found; j++)
                found = near(m2->points[j].point_b, kcbp_pose_apply(&w, m1->points[i].point_b), 1e-9);
            assert_true(found);
        }
        check_invariants(&s2, 0, 0, 10);
        kcbp_manifold_set_free(&s2);
    }
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* A sphere sunk 0.1 into a box: one point, below the sphere's centre. A
 * capsule lying on the box: two points, under its segment's ends; stood on
 * end: one. */
static void test_sphere_and_capsule_on_box(void **state)
{
    (void)state;
    kcbp_model box = {0}, sphere = {0}, capsule = {0};
    shape_model(&box, kcbp_shape_box(2, 2, 1));
    shape_model(&sphere, kcbp_shape_sphere(0.5));
    shape_model(&capsule, kcbp_shape_capsule(0.25, 1));
    kcbp_pose pa = kcbp_pose_identity(), pb = move(0.1, 0.2, 0.9);
    kcbp_manifold_set s = {0};
    run(&box, &pa, &sphere, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    const kcbp_manifold *m = &s.manifolds[0];
    assert_int_equal(m->npoints, 1);
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9) && fabs(m->depth - 0.1) < 1e-9);
    assert_true(near(m->points[0].point_a, kcbp_v3(0.1, 0.2, 0.5), 1e-9));
    assert_true(near(m->points[0].point_b, kcbp_v3(0.1, 0.2, 0.4), 1e-9));
    check_invariants(&s, 0, 0, 2);

    /* lying along x, its surface 0.05 into the box */
    pb = at(0, 0.3, 0.7, kcbp_v3(0, 1, 0), 90);
    run(&box, &pa, &capsule, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    m = &s.manifolds[0];
    assert_int_equal(m->npoints, 2);
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9) && fabs(m->depth - 0.05) < 1e-9);
    assert_true(has_xy(m, -0.5, 0.3, 1e-9) && has_xy(m, 0.5, 0.3, 1e-9));
    for (uint32_t i = 0; i < 2; i++)
        assert_true(fabs(m->points[i].separation + 0.05) < 1e-9);
    check_invariants(&s, 0, 0, 2);
    /* the capsule as A: the normal turns, the points swap sides */
    run(&capsule, &pb, &box, &pa, &s);
    assert_int_equal(s.nmanifolds, 1);
    assert_int_equal(s.manifolds[0].npoints, 2);
    assert_true(near(s.manifolds[0].normal, kcbp_v3(0, 0, -1), 1e-9));
    check_invariants(&s, 0, 0, 2);

    /* tilted 20 degrees: one end down, one point */
    pb = at(0, 0, 0.9, kcbp_v3(0, 1, 0), 70);
    run(&box, &pa, &capsule, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    assert_int_equal(s.manifolds[0].npoints, 1);
    check_invariants(&s, 0, 0, 2);

    /* apart: no manifold */
    pb = move(0, 0, 3);
    run(&box, &pa, &sphere, &pb, &s);
    assert_false(s.collide);
    assert_int_equal(s.nmanifolds, 0);
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&box);
    kcbp_model_free(&sphere);
    kcbp_model_free(&capsule);
}

/* A cylinder standing on a box (its cap's rim, reduced to four points), a
 * box resting on the hull of a cube's corners (four corners), two parallel
 * capsules side by side (two points) and crossed (one). */
static void test_cylinder_hull_capsules(void **state)
{
    (void)state;
    kcbp_model box = {0}, cyl = {0}, hull = {0}, cap = {0};
    shape_model(&box, kcbp_shape_box(2, 2, 1));
    shape_model(&cyl, kcbp_shape_cylinder(0.5, 1));
    shape_model(&cap, kcbp_shape_capsule(0.25, 1));
    kcbp_vec3 corners[8];
    for (int i = 0; i < 8; i++)
        corners[i] = kcbp_v3(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
    kcbp_error err = {0};
    assert_int_equal(kcbp_model_build_hull(&hull, corners, 8, &err), KCBP_OK);
    kcbp_pose id = kcbp_pose_identity(), pb = move(0.2, 0.1, 0.95);
    kcbp_manifold_set s = {0};
    run(&box, &id, &cyl, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    const kcbp_manifold *m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-6) && fabs(m->depth - 0.05) < 1e-6);
    assert_int_equal(m->npoints, 4);
    for (uint32_t i = 0; i < 4; i++) {
        kcbp_vec3 p = m->points[i].point_b;
        assert_true(fabs(hypot(p.x - 0.2, p.y - 0.1) - 0.5) < 1e-6 && fabs(p.z - 0.45) < 1e-6);
        assert_true(fabs(m->points[i].separation + 0.05) < 1e-6);
    }
    check_invariants(&s, 0, 0, 2);

    pb = move(0.3, 0.2, 0.9);
    run(&box, &id, &hull, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-6) && fabs(m->depth - 0.1) < 1e-6);
    assert_int_equal(m->npoints, 4);
    assert_true(has_xy(m, -0.2, -0.3, 1e-6) && has_xy(m, 0.8, 0.7, 1e-6));
    check_invariants(&s, 0, 0, 2);

    /* capsules along x, side by side in y, 0.1 into each other */
    kcbp_pose pa = at(0, 0, 0, kcbp_v3(0, 1, 0), 90);
    pb = at(0.4, 0.4, 0, kcbp_v3(0, 1, 0), 90);
    run(&cap, &pa, &cap, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 1, 0), 1e-9) && fabs(m->depth - 0.1) < 1e-9);
    assert_int_equal(m->npoints, 2);
    assert_true(has_xy(m, -0.1, 0.15, 1e-9) && has_xy(m, 0.5, 0.15, 1e-9)); /* the overlap of the segments */
    check_invariants(&s, 0, 0, 2);
    /* crossed: one point */
    pb = at(0, 0.4, 0, kcbp_v3(1, 0, 0), 90);
    run(&cap, &pa, &cap, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    assert_int_equal(s.manifolds[0].npoints, 1);
    assert_true(fabs(s.manifolds[0].depth - 0.5) < 1e-9); /* over each other: 2r along z */
    assert_true(near(s.manifolds[0].points[0].point_a, kcbp_v3(0, 0, 0.25), 1e-9));
    assert_true(near(s.manifolds[0].points[0].point_b, kcbp_v3(0, 0, -0.25), 1e-9));
    check_invariants(&s, 0, 0, 2);
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&box);
    kcbp_model_free(&cyl);
    kcbp_model_free(&hull);
    kcbp_model_free(&cap);
}

/* Two cube meshes, B's bottom 0.1 into A's top, offset in x and y: one
 * patch, normal +z, the four corners of the overlap square, each 0.1 deep,
 * every point on the surfaces. */
static void test_two_cube_meshes(void **state)
{
    (void)state;
    kcbp_model a = {0}, b = {0};
    test_model_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    test_model_box(&b, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    kcbp_pose pa = kcbp_pose_identity(), pb = move(0.2, 0.3, 0.9);
    kcbp_manifold_set s = {0};
    run(&a, &pa, &b, &pb, &s);
    assert_true(s.collide);
    assert_int_equal(s.nmanifolds, 1);
    const kcbp_manifold *m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9));
    assert_true(fabs(m->depth - 0.1) < 1e-9);
    assert_int_equal(m->npoints, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_true(fabs(m->points[i].separation + 0.1) < 1e-9);
    assert_true(has_xy(m, 0.2, 0.3, 1e-9) && has_xy(m, 1, 0.3, 1e-9) && has_xy(m, 1, 1, 1e-9) &&
                has_xy(m, 0.2, 1, 1e-9));
    check_invariants(&s, 12, 12, 2);
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(on_model(&a, &pa, m->points[i].point_a, 1e-9));
        assert_true(on_model(&b, &pb, m->points[i].point_b, 1e-9));
    }
    /* the pair moved by rigid motions: the manifold moves with it */
    test_rng rng = {5};
    for (int t = 0; t < 20; t++) {
        kcbp_pose w = test_random_pose(&rng, 3), wa = kcbp_pose_mul(&w, &pa), wb = kcbp_pose_mul(&w, &pb);
        kcbp_manifold_set s2 = {0};
        run(&a, &wa, &b, &wb, &s2);
        assert_int_equal(s2.nmanifolds, 1);
        const kcbp_manifold *m2 = &s2.manifolds[0];
        assert_true(near(m2->normal, kcbp_mat3_mul_v3(&w.rot, m->normal), 1e-9));
        assert_true(fabs(m2->depth - m->depth) < 1e-9);
        assert_int_equal(m2->npoints, 4);
        for (uint32_t i = 0; i < 4; i++) {
            bool found = false;
            for (uint32_t j = 0; j < 4 && !found; j++)
                found = near(m2->points[j].point_a, kcbp_pose_apply(&w, m->points[i].point_a), 1e-9);
            if (!found) {
                kcbp_pose inv = kcbp_pose_inverse(&w);
                for (uint32_t j = 0; j < 4; j++) {
                    kcbp_vec3 q = kcbp_pose_apply(&inv, m2->points[j].point_a), r = m->points[j].point_a;
                    print_message("t %d: %g %g %g sep %g | %g %g %g sep %g\n", t, q.x, q.y, q.z, m2->points[j].separation, r.x, r.y, r.z, m->points[j].separation);
                }
            }
            assert_true(found);
        }
        check_invariants(&s2, 12, 12, 6);
        kcbp_manifold_set_free(&s2);
    }
    /* resting exactly face to face: separation 0 */
    pb = move(0.2, 0.3, 1);
    run(&a, &pa, &b, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9) && m->depth < 1e-12);
    assert_int_equal(m->npoints, 4);
    check_invariants(&s, 12, 12, 2);
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* A slab with two feet pressed into it (B is one mesh of two cubes): two
 * patches, though both feet may stand on one triangle of the slab's top;
 * the same feet as a box shape's model against the slab's mesh. */
static void test_patches(void **state)
{
    (void)state;
    kcbp_model slab = {0}, feet = {0}, sbox = {0};
    test_model_box(&slab, kcbp_v3(0, 0, 0), kcbp_v3(4, 1, 1));
    kcbp_vec3 v[16];
    kcbp_tri t[24];
    static const kcbp_tri cube[12] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 5, 6}}, {{5, 7, 6}}, {{0, 1, 4}}, {{1, 5, 4}},
                                      {{2, 6, 3}}, {{3, 6, 7}}, {{0, 4, 2}}, {{2, 4, 6}}, {{1, 3, 5}}, {{3, 7, 5}}};
    for (int f = 0; f < 2; f++) {
        double x0 = f ? 3 : 0.5;
        for (int i = 0; i < 8; i++)
            v[8 * f + i] = kcbp_v3(i & 1 ? x0 + 0.5 : x0, i & 2 ? 0.8 : 0.2, i & 4 ? 1.5 : 0.95);
        for (int i = 0; i < 12; i++)
            for (int k = 0; k < 3; k++)
                t[12 * f + i].v[k] = cube[i].v[k] + 8 * (uint32_t)f;
    }
    test_model_from_arrays(&feet, v, 16, t, 24);
    kcbp_pose id = kcbp_pose_identity();
    kcbp_manifold_set s = {0};
    run(&slab, &id, &feet, &id, &s);
    assert_int_equal(s.nmanifolds, 2);
    for (size_t i = 0; i < 2; i++) {
        const kcbp_manifold *m = &s.manifolds[i];
        assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9) && fabs(m->depth - 0.05) < 1e-9);
        assert_int_equal(m->npoints, 4);
    }
    check_invariants(&s, 12, 24, 4);
    kcbp_manifold *first = s.manifolds;
    size_t cap = s.capacity;
    run(&slab, &id, &feet, &id, &s); /* again: the same array */
    assert_ptr_equal(s.manifolds, first);
    assert_int_equal(s.capacity, cap);
    assert_int_equal(s.nmanifolds, 2);

    /* a box shape on the slab's mesh: one patch of four points; as A too */
    shape_model(&sbox, kcbp_shape_box(1, 0.5, 0.5));
    kcbp_pose pb = move(2, 0.5, 1.2);
    run(&slab, &id, &sbox, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    const kcbp_manifold *m = &s.manifolds[0];
    assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9) && fabs(m->depth - 0.05) < 1e-9);
    assert_int_equal(m->npoints, 4);
    assert_true(has_xy(m, 1.5, 0.25, 1e-9) && has_xy(m, 2.5, 0.75, 1e-9));
    check_invariants(&s, 12, 0, 4);
    for (uint32_t i = 0; i < 4; i++)
        assert_true(on_model(&slab, &id, m->points[i].point_a, 1e-9));
    run(&sbox, &pb, &slab, &id, &s);
    assert_int_equal(s.nmanifolds, 1);
    assert_true(near(s.manifolds[0].normal, kcbp_v3(0, 0, -1), 1e-9));
    assert_int_equal(s.manifolds[0].npoints, 4);
    check_invariants(&s, 0, 12, 4);
    /* a sphere on the slab's mesh: one point */
    kcbp_model sph = {0};
    shape_model(&sph, kcbp_shape_sphere(0.3));
    pb = move(1, 0.5, 1.2);
    run(&slab, &id, &sph, &pb, &s);
    assert_int_equal(s.nmanifolds, 1);
    assert_int_equal(s.manifolds[0].npoints, 1);
    assert_true(fabs(s.manifolds[0].depth - 0.1) < 1e-9);
    assert_true(near(s.manifolds[0].points[0].point_a, kcbp_v3(1, 0.5, 1), 1e-9));
    check_invariants(&s, 12, 0, 4);
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&sph);
    kcbp_model_free(&slab);
    kcbp_model_free(&feet);
    kcbp_model_free(&sbox);
}

/* An L-shaped prism (its top a fan of four triangles, all sharing a
 * corner) and a bar laid across both arms over the notch, 0.1 into them:
 * two patches, though every triangle pair is joined to every other by
 * shared vertices (the pieces of the intersection are what count). */
static void test_l_shape(void **state)
{
    (void)state;
    static const double poly[6][2] = {{0, 0}, {3, 0}, {3, 1}, {1, 1}, {1, 3}, {0, 3}};
    kcbp_vec3 v[12];
    for (int i = 0; i < 6; i++) {
        v[i] = kcbp_v3(poly[i][0], poly[i][1], 0);
        v[6 + i] = kcbp_v3(poly[i][0], poly[i][1], 1);
    }
    kcbp_tri t[20];
    int nt = 0;
    for (uint32_t i = 1; i + 1 < 6; i++) {
        t[nt++] = (kcbp_tri){{6, 6 + i, 6 + i + 1}}; /* top, counter-clockwise from above */
        t[nt++] = (kcbp_tri){{0, i + 1, i}};         /* bottom */
    }
    for (uint32_t i = 0; i < 6; i++) {
        uint32_t j = (i + 1) % 6;
        t[nt++] = (kcbp_tri){{i, j, 6 + j}};
        t[nt++] = (kcbp_tri){{i, 6 + j, 6 + i}};
    }
    kcbp_model l = {0}, bar = {0};
    test_model_from_arrays(&l, v, 12, t, (size_t)nt);
    test_model_box(&bar, kcbp_v3(-1.8, -0.2, -0.3), kcbp_v3(1.8, 0.2, 0.3));
    kcbp_pose id = kcbp_pose_identity(), pb = at(1.5, 1.5, 1.2, kcbp_v3(0, 0, 1), 135);
    kcbp_manifold_set s = {0};
    run(&l, &id, &bar, &pb, &s);
    assert_int_equal(s.nmanifolds, 2);
    for (size_t i = 0; i < 2; i++) {
        const kcbp_manifold *m = &s.manifolds[i];
        assert_true(near(m->normal, kcbp_v3(0, 0, 1), 1e-9) && fabs(m->depth - 0.1) < 1e-9);
        assert_int_equal(m->npoints, 4);
        for (uint32_t k = 0; k < 4; k++) { /* on one arm each: the first along x, the second along y */
            kcbp_vec3 p = m->points[k].point_a;
            assert_true(fabs(p.z - 1) < 1e-9 && (p.y <= 1 + 1e-9 || p.x <= 1 + 1e-9));
        }
    }
    check_invariants(&s, (uint32_t)nt, 12, 4);
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&l);
    kcbp_model_free(&bar);
}

/* Two real meshes at random poses: the invariants, and the points on the
 * surfaces (the exact test of a tiny sphere). */
static void test_real_meshes(void **state)
{
    (void)state;
    kcbp_model a = {0}, b = {0};
    test_model_load_unit(&a, "bunny2.obj");
    test_model_load_unit(&b, "spot.obj");
    uint32_t na = kcbp_mesh_triangle_count(kcbp_model_mesh(&a)), nb = kcbp_mesh_triangle_count(kcbp_model_mesh(&b));
    test_rng rng = {7};
    kcbp_manifold_set s = {0};
    int hits = 0;
    for (int t = 0; t < 30; t++) {
        kcbp_pose pa = test_random_pose(&rng, 0.3), pb = test_random_pose(&rng, 0.6);
        run(&a, &pa, &b, &pb, &s);
        kcbp_collide_options o = kcbp_collide_options_default();
        kcbp_collide_result r = {0};
        kcbp_error err = {0};
        assert_int_equal(kcbp_collide(&a, &pa, &b, &pb, &o, &r, &err), KCBP_OK);
        assert_int_equal(s.collide, r.collide);
        assert_int_equal(s.nmanifolds > 0, r.collide);
        kcbp_collide_result_free(&r);
        check_invariants(&s, na, nb, 4);
        for (size_t i = 0; i < s.nmanifolds; i++)
            for (uint32_t k = 0; k < s.manifolds[i].npoints; k++) {
                assert_true(on_model(&a, &pa, s.manifolds[i].points[k].point_a, 1e-7));
                assert_true(on_model(&b, &pb, s.manifolds[i].points[k].point_b, 1e-7));
            }
        hits += s.collide;
    }
    assert_true(hits >= 5);
    kcbp_manifold_set_free(&s);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* Every pair of the four shapes, and each shape against a mesh, at random
 * poses near each other: the invariants, and every point on (or, to the
 * exact test's tolerance, at) its model's surface. */
static void test_random_shapes(void **state)
{
    (void)state;
    kcbp_model m[5] = {{0}};
    shape_model(&m[0], kcbp_shape_sphere(0.4));
    shape_model(&m[1], kcbp_shape_capsule(0.2, 0.8));
    shape_model(&m[2], kcbp_shape_box(0.9, 0.5, 0.3));
    shape_model(&m[3], kcbp_shape_cylinder(0.3, 0.7));
    test_model_load_unit(&m[4], "spot.obj");
    uint32_t nt = kcbp_mesh_triangle_count(kcbp_model_mesh(&m[4]));
    test_rng rng = {11};
    kcbp_manifold_set s = {0};
    int hits = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            if (i == 4 && j == 4)
                continue;
            for (int t = 0; t < 40; t++) {
                kcbp_pose pa = test_random_pose(&rng, 0.3), pb = test_random_pose(&rng, 0.6);
                run(&m[i], &pa, &m[j], &pb, &s);
                check_invariants(&s, i == 4 ? nt : 0, j == 4 ? nt : 0, 4);
                for (size_t k = 0; k < s.nmanifolds; k++)
                    for (uint32_t q = 0; q < s.manifolds[k].npoints; q++) {
                        if (!on_model(&m[i], &pa, s.manifolds[k].points[q].point_a, 1e-6))
                            fail_msg("A: pair %d %d try %d manifold %zu/%zu point %u/%u sep %g depth %g", i, j, t, k,
                                     s.nmanifolds, q, s.manifolds[k].npoints, s.manifolds[k].points[q].separation,
                                     s.manifolds[k].depth);
                        if (!on_model(&m[j], &pb, s.manifolds[k].points[q].point_b, 1e-6))
                            fail_msg("pair %d %d try %d manifold %zu/%zu point %u/%u sep %g depth %g exact %d "
                                     "pa %.17g %.17g %.17g pb %.17g %.17g %.17g | A %.17g %.17g %.17g | B %.17g %.17g %.17g | %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g",
                                     i, j, t, k, s.nmanifolds, q, s.manifolds[k].npoints,
                                     s.manifolds[k].points[q].separation, s.manifolds[k].depth,
                                     s.manifolds[k].depth_exact, s.manifolds[k].points[q].point_a.x,
                                     s.manifolds[k].points[q].point_a.y, s.manifolds[k].points[q].point_a.z,
                                     s.manifolds[k].points[q].point_b.x, s.manifolds[k].points[q].point_b.y,
                                     s.manifolds[k].points[q].point_b.z, pa.trans.x, pa.trans.y, pa.trans.z,
                                     pb.trans.x, pb.trans.y, pb.trans.z, pa.rot.m[0][2], pa.rot.m[1][2], pa.rot.m[2][2],
                                     pb.rot.m[0][2], pb.rot.m[1][2], pb.rot.m[2][2], s.manifolds[k].normal.x,
                                     s.manifolds[k].normal.y, s.manifolds[k].normal.z);
                    }
                hits += s.collide;
            }
        }
    assert_true(hits >= 150);
    kcbp_manifold_set_free(&s);
    for (int i = 0; i < 5; i++)
        kcbp_model_free(&m[i]);
}

/* Options: a {0} struct is refused; max_points cuts the points; a NULL set
 * is refused. */
static void test_options(void **state)
{
    (void)state;
    kcbp_model a = {0}, b = {0};
    shape_model(&a, kcbp_shape_box(2, 2, 1));
    shape_model(&b, kcbp_shape_box(1, 1, 1));
    kcbp_pose pa = kcbp_pose_identity(), pb = move(0.3, 0.2, 0.9);
    kcbp_manifold_set s = {0};
    kcbp_error err = {0};
    kcbp_manifold_options zero = {0};
    assert_int_equal(kcbp_manifolds(&a, &pa, &b, &pb, &zero, &s, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "kcbp_manifold_options_default"));
    kcbp_manifold_options o = kcbp_manifold_options_default();
    o.max_points = 5;
    assert_int_equal(kcbp_manifolds(&a, &pa, &b, &pb, &o, &s, &err), KCBP_ERR_INVALID);
    for (uint32_t k = 1; k <= 4; k++) {
        o.max_points = k;
        assert_int_equal(kcbp_manifolds(&a, &pa, &b, &pb, &o, &s, &err), KCBP_OK);
        assert_int_equal(s.manifolds[0].npoints, k);
        assert_true(fabs(s.manifolds[0].points[0].separation + 0.1) < 1e-12); /* the deepest first */
    }
    assert_int_equal(kcbp_manifolds(&a, &pa, &b, &pb, NULL, &s, &err), KCBP_OK);
    assert_int_equal(kcbp_manifolds_sized(&a, &pa, &b, &pb, NULL, &s, 4, &err), KCBP_ERR_INVALID);
    assert_int_equal(kcbp_manifolds(&a, &pa, &b, &pb, NULL, NULL, &err), KCBP_ERR_INVALID);
    kcbp_manifold_set_free(&s);
    kcbp_manifold_set_free(&s); /* twice is allowed */
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* kcbp collide --contacts manifold, and the depth of two shapes. */
static void test_cli(void **state)
{
    (void)state;
    test_run_result r = {0};
    test_run_args(&r, "collide", "box:2:2:1", "box:1:1:1", "--pose-b", "0.3 0.2 0.9 0 0 1 0", "--contacts",
                  "manifold", NULL);
    assert_int_equal(r.status, 0);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_null(cJSON_GetObjectItem(doc, "contacts"));
    cJSON *ms = cJSON_GetObjectItem(doc, "manifolds");
    assert_int_equal(cJSON_GetArraySize(ms), 1);
    cJSON *m = cJSON_GetArrayItem(ms, 0);
    assert_true(fabs(cJSON_GetObjectItem(m, "depth")->valuedouble - 0.1) < 1e-12);
    cJSON *pts = cJSON_GetObjectItem(m, "points");
    assert_int_equal(cJSON_GetArraySize(pts), 4);
    cJSON *p0 = cJSON_GetArrayItem(pts, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(p0, "feature_a")));
    assert_true(fabs(cJSON_GetObjectItem(p0, "separation")->valuedouble + 0.1) < 1e-12);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p0, "point_a")), 3);
    /* the shapes' own depth, normal and points */
    assert_true(fabs(cJSON_GetObjectItem(doc, "depth")->valuedouble - 0.1) < 1e-12);
    cJSON *n = cJSON_GetObjectItem(doc, "normal");
    assert_true(fabs(cJSON_GetArrayItem(n, 2)->valuedouble - 1) < 1e-12);
    assert_non_null(cJSON_GetObjectItem(doc, "point_a"));
    assert_non_null(cJSON_GetObjectItem(doc, "point_b"));
    cJSON_Delete(doc);

    /* two meshes: triangle ids; --contacts all keeps the pairs */
    test_run_args(&r, "collide", "meshes/bunny2.obj", "meshes/spot.obj", "--pose-b", "0.05 0 0 0 1 0 90",
                  "--contacts", "manifold", NULL);
    assert_int_equal(r.status, 0);
    doc = cJSON_Parse(r.out);
    ms = cJSON_GetObjectItem(doc, "manifolds");
    assert_true(cJSON_GetArraySize(ms) >= 1);
    p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(ms, 0), "points"), 0);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(p0, "feature_a")));
    cJSON *cbp = cJSON_GetObjectItem(doc, "cbp");
    assert_null(cJSON_GetObjectItem(cbp, "depth"));
    assert_non_null(cJSON_GetObjectItem(cbp, "overlap_depth"));
    cJSON_Delete(doc);
    test_run_args(&r, "collide", "meshes/bunny2.obj", "meshes/spot.obj", "--contacts", "bogus", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "manifold"));
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_on_box),   cmocka_unit_test(test_sphere_and_capsule_on_box),
        cmocka_unit_test(test_cylinder_hull_capsules), cmocka_unit_test(test_two_cube_meshes),
        cmocka_unit_test(test_patches), cmocka_unit_test(test_l_shape),
        cmocka_unit_test(test_real_meshes), cmocka_unit_test(test_random_shapes), cmocka_unit_test(test_options),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
