/* The depth bracket of closed non-convex solids (kcbp_signed_distance,
 * KCBP_SDIST_BRACKETED; src/query/depth_bracket.c) on pairs whose depth is
 * known in closed form (boxes offset along axes, a sphere or a cube nested
 * in a cube, a cube in the inner corner of an L), and its proofs checked
 * independently: B moved by the reported translation is apart
 * (kcbp_collide as solids), and along sampled directions the last contact,
 * found by sweeping B in from outside (kcbp_sweep), is not below
 * depth_lower. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#include "bvh/point_distance.h"
#include "query/depth_internal.h"
#include "geom/closest.h"

/* The box [lo, hi] as 12 outward triangles. */
static void add_box(kcbp_vec3 *v, size_t *nv, kcbp_tri *t, size_t *nt, kcbp_vec3 lo, kcbp_vec3 hi)
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
        kcbp_tri tr = {{base + f[i][0], base + f[i][1], base + f[i][2]}};
        t[(*nt)++] = tr;
    }
}

static void build_solid(kcbp_model *m, const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt)
{
    kcbp_mesh mesh;
    kcbp_error err = {0};
    assert_int_equal(kcbp_mesh_init(&mesh, v, nv, t, nt, &err), KCBP_OK);
    kcbp_model_options o = kcbp_model_options_default();
    o.solid = true;
    assert_int_equal(kcbp_model_build_from(m, &mesh, &o, &err), KCBP_OK);
}

static void solid_box(kcbp_model *m, kcbp_vec3 lo, kcbp_vec3 hi)
{
    kcbp_vec3 v[8];
    kcbp_tri t[12];
    size_t nv = 0, nt = 0;
    add_box(v, &nv, t, &nt, lo, hi);
    build_solid(m, v, nv, t, nt);
}

/* The L-shaped prism: the polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2)
 * extruded over z in [0, 1]; caps fanned from (0,0), which sees the whole
 * polygon. */
static void solid_l(kcbp_model *m)
{
    static const double px[6] = {0, 2, 2, 1, 1, 0}, py[6] = {0, 0, 1, 1, 2, 2};
    kcbp_vec3 v[12];
    kcbp_tri t[20];
    size_t nt = 0;
    for (int i = 0; i < 6; i++) {
        v[i] = kcbp_v3(px[i], py[i], 0);
        v[i + 6] = kcbp_v3(px[i], py[i], 1);
    }
    for (uint32_t i = 1; i + 1 < 6; i++) {
        t[nt++] = (kcbp_tri){{0, i + 1, i}};          /* bottom, facing -z */
        t[nt++] = (kcbp_tri){{6, 6 + i, 6 + i + 1}};  /* top, facing +z */
    }
    for (uint32_t i = 0; i < 6; i++) {
        uint32_t j = (i + 1) % 6;
        t[nt++] = (kcbp_tri){{i, j, 6 + j}};
        t[nt++] = (kcbp_tri){{i, 6 + j, 6 + i}};
    }
    build_solid(m, v, 12, t, nt);
}

static void build_shape(kcbp_model *m, kcbp_shape s)
{
    kcbp_error err = {0};
    assert_int_equal(kcbp_model_build_shape(m, &s, &err), KCBP_OK);
}

static kcbp_pose at(double x, double y, double z)
{
    kcbp_pose p = kcbp_pose_identity();
    p.trans = kcbp_v3(x, y, z);
    return p;
}

/* Moving B by t leaves the solids apart (kcbp_collide as solids). */
static bool apart_after(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                        kcbp_vec3 t)
{
    kcbp_pose p = *pb;
    p.trans = kcbp_v3_add(p.trans, t);
    kcbp_collide_options o = kcbp_collide_options_default();
    o.solid = true;
    kcbp_collide_result cr;
    memset(&cr, 0, sizeof cr);
    kcbp_error err = {0};
    assert_int_equal(kcbp_collide(a, pa, b, &p, &o, &cr, &err), KCBP_OK);
    bool apart = !cr.collide;
    kcbp_collide_result_free(&cr);
    return apart;
}

/* The last contact along unit d: sweep B in from far out along d to its
 * pose; an upper end of the interval the true value lies in. */
static double last_contact(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                           kcbp_vec3 d, double far, double *slack)
{
    kcbp_pose from = *pb;
    from.trans = kcbp_v3_add(from.trans, kcbp_v3_scale(d, far));
    kcbp_motion ma = kcbp_motion_still(pa), mb = kcbp_motion_make(&from, pb);
    kcbp_sweep_result sr;
    kcbp_error err = {0};
    assert_int_equal(kcbp_sweep(a, &ma, b, &mb, NULL, &sr, &err), KCBP_OK);
    assert_true(sr.hit);
    *slack = far * 1e-8;
    return far * (1 - sr.toi);
}

/* The proofs, re-checked: the translation parts them, |translation| is
 * depth_upper along the normal, and along ndirs spread directions the last
 * contact is not below depth_lower. */
static void check_proofs(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                         const kcbp_signed_distance_result *r, int ndirs)
{
    assert_true(r->depth_lower <= r->depth_upper);
    assert_true(apart_after(a, pa, b, pb, r->translation));
    assert_true(fabs(kcbp_v3_len(r->translation) - r->depth_upper) <= 1e-12 * (1 + r->depth_upper));
    if (r->depth_upper > 0) {
        kcbp_vec3 n = kcbp_v3_scale(r->translation, 1 / kcbp_v3_len(r->translation));
        assert_true(kcbp_v3_len(kcbp_v3_sub(n, r->normal)) < 1e-9);
        /* point_a - point_b is the translation, up to the gap left */
        kcbp_vec3 ab = kcbp_v3_sub(r->point_a, r->point_b);
        assert_true(kcbp_v3_len(kcbp_v3_sub(ab, r->translation)) < 1e-6 * (1 + r->depth_upper));
    }
    kcbp_aabb wa = kcbp_model_world_bounds(a, pa), wb = kcbp_model_world_bounds(b, pb);
    double far = 2 * (kcbp_v3_len(kcbp_v3_sub(wa.max, wa.min)) + kcbp_v3_len(kcbp_v3_sub(wb.max, wb.min)));
    double golden = M_PI * (3 - sqrt(5));
    for (int i = 0; i < ndirs; i++) {
        double z = 1 - (2 * i + 1.0) / ndirs, rho = sqrt(1 - z * z);
        kcbp_vec3 d = kcbp_v3(rho * cos(golden * i), rho * sin(golden * i), z);
        double slack;
        double s = last_contact(a, pa, b, pb, d, far, &slack);
        assert_true(s + slack >= r->depth_lower);
    }
    if (r->depth_lower > 0) {
        /* the best concentric pair's balls: inside their solids, their
         * radii summing to at most the bound (more balls may prove more) */
        assert_int_equal(r->status, KCBP_SDIST_BRACKETED);
        assert_true(r->lower_radius_a + r->lower_radius_b <= r->depth_lower * (1 + 1e-12));
        if (r->lower_radius_a > 0)
            assert_int_equal(kcbp_point_in_solid(a, pa, r->lower_center), KCBP_SOLID_INSIDE);
        if (r->lower_radius_b > 0)
            assert_int_equal(kcbp_point_in_solid(b, pb, r->lower_center), KCBP_SOLID_INSIDE);
    }
}

/* The bracket (depth_bracket.c) of an overlapping pair with a mesh. Most
 * pairs here are boxes, convex meshes that kcbp_signed_distance now answers
 * exactly (the hulls' depth, query/convex_solid.c): for those the bracket
 * is run directly, as kcbp_signed_distance runs it for a non-convex mesh,
 * and the exact answer is checked to lie inside it. */
static void bracket(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb,
                    kcbp_signed_distance_result *r)
{
    kcbp_error err = {0};
    kcbp_status st = kcbp_signed_distance(a, pa, b, pb, NULL, r, &err);
    if (st != KCBP_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, KCBP_OK);
    bool shapes = kcbp_impl_is_shape(a->impl) && kcbp_impl_is_shape(b->impl);
    if (shapes || (r->status != KCBP_SDIST_PENETRATING && r->status != KCBP_SDIST_TOUCHING))
        return;
    kcbp_signed_distance_result exact = *r;
    kcbp_signed_distance_options o = kcbp_signed_distance_options_default();
    memset(r, 0, sizeof *r);
    assert_int_equal(kcbp_depth_bracket(a, pa, b, pb, &o, r, &err), KCBP_OK);
    double tol = 1e-9 * (1 + fmax(kcbp_v3_max_abs(pa->trans), kcbp_v3_max_abs(pb->trans)));
    assert_true(r->depth_lower <= exact.depth + tol);
    assert_true(exact.depth <= r->depth_upper + tol);
}

/* The bracket holds the exact depth, and is as narrow as asked when
 * `narrow` (the bounds are tight for these pairs). */
static void expect_depth(const kcbp_signed_distance_result *r, double depth, bool narrow)
{
    assert_int_equal(r->status, KCBP_SDIST_BRACKETED);
    assert_true(r->depth_lower <= depth * (1 + 1e-9));
    assert_true(r->depth_upper >= depth * (1 - 1e-9));
    assert_true(r->depth == r->depth_upper && r->signed_distance == -r->depth_upper);
    if (narrow)
        assert_true(r->depth_upper <= 1.1 * r->depth_lower * (1 + 1e-9));
    else
        assert_true(r->depth_upper <= 1.5 * r->depth_lower);
}

static void test_two_cubes(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    solid_box(&b, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    /* offsets whose depth is the smallest overlap of the boxes' extents */
    const double off[][3] = {{0.7, 0.1, 0.05}, {0.2, 0.9, -0.3}, {-0.5, 0.45, 0.1}, {0.05, 0.02, -0.03}};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
        kcbp_pose pa = kcbp_pose_identity(), pb = at(off[i][0], off[i][1], off[i][2]);
        double depth = INFINITY;
        for (int k = 0; k < 3; k++)
            depth = fmin(depth, 1 - fabs(off[i][k]));
        kcbp_signed_distance_result r;
        bracket(&a, &pa, &b, &pb, &r);
        expect_depth(&r, depth, true);
        check_proofs(&a, &pa, &b, &pb, &r, 48);
    }
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_shapes_in_mesh(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_box(&a, kcbp_v3(-1, -1, -1), kcbp_v3(1, 1, 1));
    build_shape(&b, kcbp_shape_sphere(0.3));
    kcbp_pose pa = kcbp_pose_identity(), pb = at(0.5, 0.1, 0);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 1 - 0.5 + 0.3, true);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    /* the sphere across the face: out by 0.3 + 0.2 */
    pb = at(0.8, 0, 0);
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 0.5, true);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    /* and the mesh as B */
    bracket(&b, &pb, &a, &pa, &r);
    expect_depth(&r, 0.5, true);
    check_proofs(&b, &pb, &a, &pa, &r, 32);
    kcbp_model_free(&b);
    /* a cylinder (axis z, height 1) and a capsule (segment 0.6 along z)
     * inside: out along +x, by 1 - x + radius */
    build_shape(&b, kcbp_shape_cylinder(0.3, 1));
    pb = at(0.5, 0, 0.1);
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 0.8, true);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    kcbp_model_free(&b);
    build_shape(&b, kcbp_shape_capsule(0.2, 0.6));
    pb = at(0.6, 0, -0.1);
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 0.6, true);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_cube_mesh_box_shape(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    build_shape(&b, kcbp_shape_box(1, 1, 1));
    kcbp_pose pa = kcbp_pose_identity(), pb = at(1.2, 0.5, 0.45);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 0.3, true);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_l_shape(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_l(&a);
    solid_box(&b, kcbp_v3(0, 0, 0), kcbp_v3(0.5, 0.5, 0.5));
    kcbp_pose pa = kcbp_pose_identity();
    /* in one arm, near the inner corner: out by 0.2 along +y */
    kcbp_pose pb = at(1.2, 0.8, 0.25);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 0.2, true);
    check_proofs(&a, &pa, &b, &pb, &r, 48);
    /* in the inner corner, across both arms: out along the diagonal, by
     * 0.2 sqrt 2 (the depth of a non-convex pair: no plane gives it) */
    pb = at(0.8, 0.8, 0.25);
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 0.2 * sqrt(2), false);
    check_proofs(&a, &pa, &b, &pb, &r, 48);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* A hull (its inner radius is taken as 0: the bound is the mesh's ball
 * alone, still proven) across the L's arm. */
static void test_hull_in_l(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_l(&a);
    const kcbp_vec3 pts[6] = {{0.3, 0, 0}, {-0.3, 0, 0}, {0, 0.3, 0}, {0, -0.3, 0}, {0, 0, 0.3}, {0, 0, -0.3}};
    kcbp_error err = {0};
    assert_int_equal(kcbp_model_build_hull(&b, pts, 6, &err), KCBP_OK);
    kcbp_pose pa = kcbp_pose_identity(), pb = at(1.5, 1.1, 0.5);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    assert_int_equal(r.status, KCBP_SDIST_BRACKETED);
    /* out along +y by 0.2 (the octahedron's tip 0.3 below y = 1.1) */
    assert_true(r.depth_lower <= 0.2 * (1 + 1e-9) && r.depth_upper >= 0.2 * (1 - 1e-9));
    assert_true(r.depth_upper <= 0.2 * 1.01);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_nested(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_box(&a, kcbp_v3(-2, -2, -2), kcbp_v3(2, 2, 2));
    solid_box(&b, kcbp_v3(-0.5, -0.5, -0.5), kcbp_v3(0.5, 0.5, 0.5));
    kcbp_pose pa = kcbp_pose_identity(), pb = at(0.3, 0, 0);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    expect_depth(&r, 2.2, true);
    check_proofs(&a, &pa, &b, &pb, &r, 32);
    /* the big one as B, around the small one: the same depth */
    bracket(&b, &pb, &a, &pa, &r);
    expect_depth(&r, 2.2, true);
    check_proofs(&b, &pb, &a, &pa, &r, 32);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void test_touching(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_box(&a, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    solid_l(&b);
    kcbp_pose pa = kcbp_pose_identity(), pb = at(1, 0.25, 0);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    assert_int_equal(r.status, KCBP_SDIST_TOUCHING);
    assert_true(r.depth == 0 && r.signed_distance == 0 && r.depth_lower == 0);
    assert_true(r.depth_upper <= 1e-6);
    assert_true(apart_after(&a, &pa, &b, &pb, r.translation));
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* A lid on a box of the same footprint (side faces coplanar), overlapping
 * it by g along z, near the origin and at coordinates 1e6 (parts of size 1
 * placed in a plant's frame). Touching (g = 0) is "touching", a point of
 * the shared face given as both points; an overlap is bracketed around g
 * once g exceeds the touching tolerance (4 * 2^-32 of the coordinates'
 * magnitude). The old pad (1e-9 of the magnitude, 16 of them a touch) called
 * an overlap of 1e-8 at scale 1, and of 1e-3 at 1e6, "touching", depth 0
 * (branch hunt3e). */
static void test_thin_overlap_far(void **state)
{
    (void)state;
    const double offs[2] = {0, 1e6}, gaps[2] = {1e-8, 1e-3};
    for (int k = 0; k < 2; k++) {
        double o = offs[k];
        for (int touch = 0; touch < 2; touch++) {
            double g = touch ? 0 : gaps[k];
            kcbp_model a, b;
            solid_box(&a, kcbp_v3(o, o, o), kcbp_v3(o + 1, o + 1, o + 1));
            solid_box(&b, kcbp_v3(o, o, o + 1 - g), kcbp_v3(o + 1, o + 1, o + 2 - g));
            double gz = (o + 1) - (o + 1 - g); /* the overlap as stored */
            kcbp_pose id = kcbp_pose_identity();
            kcbp_signed_distance_result r;
            bracket(&a, &id, &b, &id, &r);
            if (touch) {
                assert_int_equal(r.status, KCBP_SDIST_TOUCHING);
                assert_true(r.depth == 0 && r.depth_lower == 0 && r.signed_distance == 0);
                assert_true(r.depth_upper <= 1e-9 * (o + 2));
                assert_true(kcbp_v3_len(kcbp_v3_sub(r.point_a, r.point_b)) <= 1e-12 * (o + 2));
                assert_true(fabs(r.point_a.z - (o + 1)) <= 1e-12 * (o + 2));
                assert_true(apart_after(&a, &id, &b, &id, r.translation));
                /* settled by the boxes' translation, not by the search
                 * (at 1e6 the k-CBPs' boxes are 1e-3 too wide: the meshes'
                 * own boxes are tried) */
                if (r.steps > 6)
                    fprintf(stderr, "touching at offset %g: %d steps\n", o, r.steps);
                assert_true(r.steps <= 6);
            } else {
                assert_int_equal(r.status, KCBP_SDIST_BRACKETED);
                assert_true(r.depth_lower <= gz * (1 + 1e-9) && gz <= r.depth_upper * (1 + 1e-9));
                assert_true(r.depth_upper <= 1.2 * gz);
                check_proofs(&a, &id, &b, &id, &r, 6);
            }
            kcbp_model_free(&a);
            kcbp_model_free(&b);
        }
    }
}

/* A rotated pair: the L and a cube turned about an oblique axis, in the
 * corner; no closed form, only the proofs and a sane width. */
static void test_rotated_proofs(void **state)
{
    (void)state;
    kcbp_model a, b;
    solid_l(&a);
    solid_box(&b, kcbp_v3(-0.3, -0.3, -0.3), kcbp_v3(0.3, 0.3, 0.3));
    kcbp_pose pa = kcbp_pose_identity(), pb;
    kcbp_error err = {0};
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(1.0, 1.05, 0.5), kcbp_v3(1, 2, 3), 37, &pb, &err), KCBP_OK);
    kcbp_signed_distance_result r;
    bracket(&a, &pa, &b, &pb, &r);
    assert_int_equal(r.status, KCBP_SDIST_BRACKETED);
    assert_true(r.depth_lower > 0);
    check_proofs(&a, &pa, &b, &pb, &r, 64);
    /* more steps: the many-ball lower bound (ball_cover.c) runs too; its
     * proof checked the same way, and it is no worse */
    kcbp_signed_distance_options o = kcbp_signed_distance_options_default();
    o.max_steps = 256;
    kcbp_signed_distance_result r2;
    assert_int_equal(kcbp_signed_distance(&a, &pa, &b, &pb, &o, &r2, &err), KCBP_OK);
    assert_int_equal(r2.status, KCBP_SDIST_BRACKETED);
    assert_true(r2.depth_lower >= r.depth_lower);
    assert_true(r2.depth_upper <= r.depth_upper);
    check_proofs(&a, &pa, &b, &pb, &r2, 64);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* The tree's point-surface distance (the inner balls' radii) against every
 * triangle, on a scan (spot.obj, whose oriented boxes prune) and points
 * inside, near and far from it. */
static void test_point_distance_brute(void **state)
{
    (void)state;
    kcbp_model m;
    test_model_load_unit(&m, "spot.obj");
    const kcbp_model_impl *im = m.impl;
    test_rng r = {12345};
    for (int k = 0; k < 300; k++) {
        double reach = k < 100 ? 0.5 : k < 200 ? 1.2 : 4;
        kcbp_vec3 p = kcbp_v3(test_rng_range(&r, -reach, reach), test_rng_range(&r, -reach, reach),
                              test_rng_range(&r, -reach, reach));
        kcbp_vec3 q;
        uint32_t tri;
        double d = kcbp_tree_point_distance(&im->tree, p, &q, &tri);
        double best = INFINITY;
        for (uint32_t t = 0; t < im->mesh.ntriangles; t++) {
            kcbp_vec3 v[3];
            for (int i = 0; i < 3; i++)
                v[i] = im->mesh.vertices[im->mesh.triangles[t].v[i]];
            kcbp_vec3 c;
            best = fmin(best, sqrt(kcbp_cp_point_tri(p, v, &c)));
        }
        assert_true(fabs(d - best) <= 1e-12);
        assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(p, q)) - d) <= 1e-12);
        assert_true(tri < im->mesh.ntriangles);
    }
    kcbp_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_cubes),     cmocka_unit_test(test_shapes_in_mesh),
        cmocka_unit_test(test_cube_mesh_box_shape), cmocka_unit_test(test_l_shape),
        cmocka_unit_test(test_hull_in_l), cmocka_unit_test(test_nested),        cmocka_unit_test(test_touching),
        cmocka_unit_test(test_rotated_proofs), cmocka_unit_test(test_point_distance_brute),
        cmocka_unit_test(test_thin_overlap_far),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
