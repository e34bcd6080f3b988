/* Non-convex 2D models (polygon2d.h) against brute force:
 *   - collide: every pair of edges by closest.h's exact decision "within
 *     distance 0" at z = 0, then containment by a brute crossing count
 *     over all edges;
 *   - contacts: the same list of meeting edge pairs;
 *   - distance: the minimum over all edge pairs of closest.h's segment
 *     distance (kcbp_cp_seg_seg, 3D at z = 0);
 *   - convex polygons: the same answer as kcbp2d_collide. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp.h>
#include <kcbp/kcbp2d.h>

#include "bvh/tree2d.h"
#include "geom/closest.h"
#include "geom/predicates.h"
#include "testutil.h"

/* ---- random regions --------------------------------------------------------- */

typedef struct {
    kcbp_vec2 pts[400];
    uint32_t ring_end[4], polygon_end[2];
    uint32_t nrings, npolygons;
} region;

/* A star-shaped ring of n vertices round c: sorted angles, radii in
 * [rlo, rhi] (a simple ring); reversed when cw. */
static uint32_t star(test_rng *r, kcbp_vec2 *out, uint32_t n, kcbp_vec2 c, double rlo, double rhi, bool cw)
{
    for (uint32_t i = 0; i < n; i++) {
        double t = 2 * M_PI * ((double)i + 0.8 * test_rng_uniform(r)) / (double)n;
        double rad = test_rng_range(r, rlo, rhi);
        out[cw ? n - 1 - i : i] = kcbp_v2_make(c.x + rad * cos(t), c.y + rad * sin(t));
    }
    return n;
}

/* One polygon: an outer star of radius up to sc, and with a hole half the
 * time. With n >= 8 vertices, angular gaps are below 1.8 * 360 / 8 = 81
 * degrees, so the outer ring stays beyond 0.6 cos(40.5 deg) > 0.45 of sc
 * from the centre, and a hole within 0.4 sc of it is inside. */
static void rnd_region(test_rng *r, double sc, region *g)
{
    bool hole = test_rng_uniform(r) < 0.5;
    uint32_t n = (hole ? 8 : 3) + (uint32_t)(test_rng_uniform(r) * 60);
    uint32_t k = star(r, g->pts, n, kcbp_v2_make(0, 0), 0.6 * sc, sc, test_rng_uniform(r) < 0.3);
    g->ring_end[0] = k;
    g->nrings = 1;
    if (hole) {
        uint32_t h = 3 + (uint32_t)(test_rng_uniform(r) * 30);
        k += star(r, g->pts + k, h, kcbp_v2_make(0, 0), 0.1 * sc, 0.4 * sc, test_rng_uniform(r) < 0.7);
        g->ring_end[1] = k;
        g->nrings = 2;
    }
    g->polygon_end[0] = g->nrings;
    g->npolygons = 1;
}

static kcbp2d_model *build(const region *g)
{
    kcbp2d_polygons in = {g->pts, g->ring_end, g->nrings, g->polygon_end, g->npolygons};
    kcbp2d_model *m = NULL;
    kcbp_error e;
    kcbp_status st = kcbp2d_model_build(&in, &m, &e);
    if (st != KCBP_OK)
        print_error("%s\n", e.msg);
    assert_int_equal(st, KCBP_OK);
    return m;
}

/* ---- brute force ------------------------------------------------------------- */

typedef struct {
    kcbp_vec2 *v; /* posed (A as stored; B carried into A's frame) */
    const kcbp2d_model *m;
    uint32_t n;
} posed;

static posed pose_model(const kcbp2d_model *m, const kcbp2d_pose *rel)
{
    posed p = {malloc(kcbp2d_model_vertex_count(m) * sizeof(kcbp_vec2)), m, kcbp2d_model_vertex_count(m)};
    const kcbp_vec2 *v = kcbp2d_model_vertices(m);
    for (uint32_t i = 0; i < p.n; i++)
        p.v[i] = rel ? kcbp2d_pose_apply(rel, v[i]) : v[i];
    return p;
}

static bool brute_edges_meet(const posed *a, uint32_t i, const posed *b, uint32_t j)
{
    kcbp_vec2 p0 = a->v[i], p1 = a->v[kcbp2d_model_edge_end(a->m, i)];
    kcbp_vec2 q0 = b->v[j], q1 = b->v[kcbp2d_model_edge_end(b->m, j)];
    /* distance <= 0, exactly (closest.c, with its own filter) */
    return kcbp_within_seg_seg(kcbp_v3(p0.x, p0.y, 0), kcbp_v3(p1.x, p1.y, 0), kcbp_v3(q0.x, q0.y, 0),
                               kcbp_v3(q1.x, q1.y, 0), 0, 0);
}

/* Crossing parity of the ray x -> +x over all edges of p (x on no edge). */
static bool brute_inside(kcbp_vec2 x, const posed *p)
{
    int parity = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        kcbp_vec2 s = p->v[i], t = p->v[kcbp2d_model_edge_end(p->m, i)];
        if ((s.y >= x.y) == (t.y >= x.y))
            continue;
        kcbp_vec2 lo = s.y < t.y ? s : t, hi = s.y < t.y ? t : s;
        kcbp_v2 L = {lo.x, lo.y}, H = {hi.x, hi.y}, X = {x.x, x.y};
        if (kcbp_orient2d_exact(L, H, X) > 0)
            parity ^= 1;
    }
    return parity;
}

/* Collide, the number of meeting edge pairs, and the distance. */
static bool brute(const kcbp2d_model *a, const kcbp2d_model *b, const kcbp2d_pose *rel, uint32_t *npairs,
                  double *dist)
{
    posed pa = pose_model(a, NULL), pb = pose_model(b, rel);
    uint32_t k = 0;
    double best = INFINITY;
    for (uint32_t i = 0; i < pa.n; i++)
        for (uint32_t j = 0; j < pb.n; j++) {
            k += brute_edges_meet(&pa, i, &pb, j);
            kcbp_vec2 p0 = pa.v[i], p1 = pa.v[kcbp2d_model_edge_end(a, i)];
            kcbp_vec2 q0 = pb.v[j], q1 = pb.v[kcbp2d_model_edge_end(b, j)];
            kcbp_vec3 c1, c2;
            double d2 = kcbp_cp_seg_seg(kcbp_v3(p0.x, p0.y, 0), kcbp_v3(p1.x, p1.y, 0), kcbp_v3(q0.x, q0.y, 0),
                                        kcbp_v3(q1.x, q1.y, 0), &c1, &c2);
            best = fmin(best, sqrt(d2));
        }
    bool hit = k > 0;
    if (!hit) /* no edges meet: every vertex of a ring is on one side */
        for (uint32_t i = 0; i < pb.n && !hit; i++)
            hit = brute_inside(pb.v[i], &pa);
    if (!hit)
        for (uint32_t i = 0; i < pa.n && !hit; i++)
            hit = brute_inside(pa.v[i], &pb);
    free(pa.v);
    free(pb.v);
    *npairs = k;
    *dist = hit ? 0 : best;
    return hit;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_build_checks(void **state)
{
    (void)state;
    kcbp_error e;
    kcbp2d_model *m;
    /* a square with a square hole, either orientation */
    kcbp_vec2 p[12] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {1, 1}, {1, 3}, {3, 3}, {3, 1}};
    uint32_t re[3] = {4, 8}, pe[2] = {2};
    kcbp2d_polygons in = {p, re, 2, pe, 1};
    assert_int_equal(kcbp2d_model_build(&in, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_vertex_count(m), 8);
    assert_int_equal(kcbp2d_model_edge_end(m, 3), 0);
    assert_int_equal(kcbp2d_model_edge_end(m, 7), 4);
    kcbp2d_model_free(m);
    /* the hole's ring given counter-clockwise: accepted, turned */
    kcbp_vec2 q[8] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {1, 1}, {3, 1}, {3, 3}, {1, 3}};
    in.points = q;
    assert_int_equal(kcbp2d_model_build(&in, &m, &e), KCBP_OK);
    kcbp2d_model_free(m);
    /* a hole outside its polygon */
    for (int i = 4; i < 8; i++)
        q[i].x += 10;
    assert_int_equal(kcbp2d_model_build(&in, &m, &e), KCBP_ERR_GEOMETRY);
    assert_null(m);
    /* a hole touching the border at a point (OGC-valid: accepted) */
    kcbp_vec2 t[7] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 2}, {2, 3}, {2, 1}};
    uint32_t re2[2] = {4, 7};
    kcbp2d_polygons in2 = {t, re2, 2, pe, 1};
    assert_int_equal(kcbp2d_model_build(&in2, &m, &e), KCBP_OK);
    kcbp2d_model_free(m);
    /* ... at two points: the interior is cut in two (refused) */
    t[5] = kcbp_v2_make(4, 2);
    assert_int_equal(kcbp2d_model_build(&in2, &m, &e), KCBP_ERR_GEOMETRY);
    assert_non_null(strstr(e.msg, "not connected"));
    /* ... along a segment (refused) */
    t[5] = kcbp_v2_make(0, 1), t[6] = kcbp_v2_make(2, 1);
    assert_int_equal(kcbp2d_model_build(&in2, &m, &e), KCBP_ERR_GEOMETRY);
    assert_non_null(strstr(e.msg, "share a segment"));
    /* ... crossing it (refused) */
    t[5] = kcbp_v2_make(5, 3), t[6] = kcbp_v2_make(2, 1);
    assert_int_equal(kcbp2d_model_build(&in2, &m, &e), KCBP_ERR_GEOMETRY);
    assert_non_null(strstr(e.msg, "not inside the shell"));
    /* a bow tie */
    kcbp_vec2 bow[4] = {{0, 0}, {1, 1}, {1, 0}, {0, 1}};
    assert_int_equal(kcbp2d_model_build_polygon(bow, 4, &m, &e), KCBP_ERR_GEOMETRY);
    /* two overlapping polygons of one set; then apart: fine */
    kcbp_vec2 two[8] = {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}, {3, 1}, {3, 3}, {1, 3}};
    uint32_t re3[2] = {4, 8}, pe3[2] = {1, 2};
    kcbp2d_polygons in3 = {two, re3, 2, pe3, 2};
    assert_int_equal(kcbp2d_model_build(&in3, &m, &e), KCBP_ERR_GEOMETRY);
    for (int i = 4; i < 8; i++)
        two[i].x += 5;
    assert_int_equal(kcbp2d_model_build(&in3, &m, &e), KCBP_OK);
    kcbp2d_model_free(m);
    /* too few vertices, NaN, a repeated vertex */
    assert_int_equal(kcbp2d_model_build_polygon(bow, 2, &m, &e), KCBP_ERR_INVALID);
    kcbp_vec2 nanp[3] = {{0, 0}, {NAN, 0}, {0, 1}};
    assert_int_equal(kcbp2d_model_build_polygon(nanp, 3, &m, &e), KCBP_ERR_INVALID);
    kcbp_vec2 rep[4] = {{0, 0}, {1, 0}, {1, 0}, {0, 1}};
    assert_int_equal(kcbp2d_model_build_polygon(rep, 4, &m, &e), KCBP_ERR_GEOMETRY);
}

static void test_random_vs_brute(void **state)
{
    (void)state;
    test_rng r = {606};
    int hits = 0, misses = 0, contained = 0;
    static region ga, gb;
    for (int trial = 0; trial < 2000; trial++) {
        double sc = pow(10, test_rng_range(&r, -5, 5));
        rnd_region(&r, sc, &ga);
        /* one in four: B small and near A's centre, in its hole or inside */
        bool small = trial % 4 == 2;
        rnd_region(&r, sc * (small ? test_rng_range(&r, 0.02, 0.1) : test_rng_range(&r, 0.05, 1.5)), &gb);
        kcbp2d_model *a = build(&ga), *b = build(&gb);
        kcbp2d_pose pa = kcbp2d_pose_identity(), pb;
        double deg = trial % 4 == 0 ? 90 * floor(test_rng_range(&r, 0, 4)) : test_rng_range(&r, -180, 180);
        double tr = small ? 0.7 * sc : 2 * sc;
        assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -tr, tr), test_rng_range(&r, -tr, tr), deg, &pb,
                                                NULL),
                         KCBP_OK);
        uint32_t npairs;
        double dist;
        bool want = brute(a, b, &pb, &npairs, &dist);
        kcbp2d_edge_pair pairs[4096];
        kcbp2d_model_collide_options o = kcbp2d_model_collide_options_default();
        o.contacts = pairs;
        o.contacts_capacity = 4096;
        kcbp2d_model_collide_result cr;
        assert_int_equal(kcbp2d_model_collide(a, &pa, b, &pb, &o, &cr, NULL), KCBP_OK);
        assert_int_equal(cr.collide, want);
        assert_int_equal(cr.ncontacts, npairs);
        assert_false(cr.contacts_truncated);
        /* the first-only test agrees */
        kcbp2d_model_collide_result c1;
        assert_int_equal(kcbp2d_model_collide(a, &pa, b, &pb, NULL, &c1, NULL), KCBP_OK);
        assert_int_equal(c1.collide, want);
        kcbp2d_model_distance_result dr;
        assert_int_equal(kcbp2d_model_distance(a, &pa, b, &pb, &dr, NULL), KCBP_OK);
        assert_int_equal(dr.collide, want);
        if (!want) {
            assert_true(fabs(dr.distance - dist) <= 1e-12 * 4 * sc);
            assert_true(fabs(kcbp_v2_len(kcbp_v2_sub(dr.point_b, dr.point_a)) - dr.distance) <= 1e-12 * 4 * sc);
        } else {
            assert_true(dr.distance == 0);
        }
        hits += want, misses += !want, contained += want && npairs == 0;
        kcbp2d_model_free(a);
        kcbp2d_model_free(b);
    }
    assert_true(hits > 50 && misses > 50 && contained > 20);
}

/* Both posed: the relative pose's coordinates are what the brute force
 * needs, so only the answers that are far from touching are compared; and
 * the pose of the pair, not each pose, decides. */
static void test_both_posed(void **state)
{
    (void)state;
    test_rng r = {707};
    static region ga, gb;
    for (int trial = 0; trial < 300; trial++) {
        rnd_region(&r, 1, &ga);
        rnd_region(&r, 0.5, &gb);
        kcbp2d_model *a = build(&ga), *b = build(&gb);
        kcbp2d_pose pa, pb;
        assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -5, 5), test_rng_range(&r, -5, 5),
                                                test_rng_range(&r, -180, 180), &pa, NULL),
                         KCBP_OK);
        assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -5, 5), test_rng_range(&r, -5, 5),
                                                test_rng_range(&r, -180, 180), &pb, NULL),
                         KCBP_OK);
        /* the relative pose, in double, as the library computes it */
        kcbp2d_pose rel;
        rel.c = pa.c * pb.c + pa.s * pb.s;
        rel.s = pa.c * pb.s - pa.s * pb.c;
        kcbp_vec2 d = kcbp_v2_sub(pb.trans, pa.trans);
        rel.trans = kcbp_v2_make(pa.c * d.x + pa.s * d.y, -pa.s * d.x + pa.c * d.y);
        uint32_t npairs;
        double dist;
        bool want = brute(a, b, &rel, &npairs, &dist);
        kcbp2d_model_distance_result dr;
        assert_int_equal(kcbp2d_model_distance(a, &pa, b, &pb, &dr, NULL), KCBP_OK);
        assert_int_equal(dr.collide, want);
        if (!want) {
            assert_true(fabs(dr.distance - dist) <= 1e-12 * 10);
            /* world points: as far apart as the distance */
            assert_true(fabs(kcbp_v2_len(kcbp_v2_sub(dr.point_b, dr.point_a)) - dist) <= 1e-11);
        }
        kcbp2d_model_free(a);
        kcbp2d_model_free(b);
    }
}

static void test_touching_and_holes(void **state)
{
    (void)state;
    /* a frame: the square [0, 4]^2 with the hole [1, 3]^2 */
    kcbp_vec2 p[8] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {1, 1}, {1, 3}, {3, 3}, {3, 1}};
    uint32_t re[2] = {4, 8}, pe[1] = {2};
    kcbp2d_polygons in = {p, re, 2, pe, 1};
    kcbp2d_model *frame, *sq;
    assert_int_equal(kcbp2d_model_build(&in, &frame, NULL), KCBP_OK);
    kcbp_vec2 s[4] = {{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}};
    assert_int_equal(kcbp2d_model_build_polygon(s, 4, &sq, NULL), KCBP_OK);
    kcbp2d_pose id = kcbp2d_pose_identity(), at;
    kcbp2d_model_collide_result cr;
    kcbp2d_model_distance_result dr;
    struct {
        double x, y;
        bool hit;
        double dist;
    } cases[] = {
        {2, 2, false, 0.5},        /* in the hole, clear of it */
        {1.5, 2, true, 0},         /* touching the hole's edge */
        {2, 1.5, true, 0},         /* touching the hole's lower edge */
        {nextafter(1.5, 2), 2, false, 0}, /* an ulp inside the hole */
        {0.5, 0.5, true, 0},       /* in the frame's material (touching the corners) */
        {4.5, 2, true, 0},         /* touching the outside edge */
        {5, 2, false, 0.5},
        {-0.5, -0.5, true, 0},     /* corner to corner */
        {0.25, 0.5, true, 0},      /* inside the material, edges crossing */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(kcbp2d_pose_from_angle(cases[i].x, cases[i].y, 0, &at, NULL), KCBP_OK);
        assert_int_equal(kcbp2d_model_collide(frame, &id, sq, &at, NULL, &cr, NULL), KCBP_OK);
        if (cr.collide != cases[i].hit)
            print_error("case %zu\n", i);
        assert_int_equal(cr.collide, cases[i].hit);
        assert_int_equal(kcbp2d_model_distance(frame, &id, sq, &at, &dr, NULL), KCBP_OK);
        assert_int_equal(dr.collide, cases[i].hit);
        if (!cases[i].hit && cases[i].dist > 0)
            assert_true(fabs(dr.distance - cases[i].dist) < 1e-15);
    }
    /* containment both ways: a small square inside the material of a big
     * one, and the reverse */
    kcbp_vec2 big[4] = {{-10, -10}, {10, -10}, {10, 10}, {-10, 10}};
    kcbp2d_model *bm;
    assert_int_equal(kcbp2d_model_build_polygon(big, 4, &bm, NULL), KCBP_OK);
    assert_int_equal(kcbp2d_model_collide(bm, &id, sq, &id, NULL, &cr, NULL), KCBP_OK);
    assert_true(cr.collide && cr.contained == KCBP2D_CONTAINED_B_IN_A);
    assert_int_equal(kcbp2d_model_collide(sq, &id, bm, &id, NULL, &cr, NULL), KCBP_OK);
    assert_true(cr.collide && cr.contained == KCBP2D_CONTAINED_A_IN_B);
    /* margin: the square 0.5 from the outside edge */
    assert_int_equal(kcbp2d_pose_from_angle(5, 2, 0, &at, NULL), KCBP_OK);
    kcbp2d_model_collide_options o = kcbp2d_model_collide_options_default();
    o.margin = 0.5;
    assert_int_equal(kcbp2d_model_collide(frame, &id, sq, &at, &o, &cr, NULL), KCBP_OK);
    assert_true(cr.collide);
    o.margin = nextafter(0.5, 0);
    assert_int_equal(kcbp2d_model_collide(frame, &id, sq, &at, &o, &cr, NULL), KCBP_OK);
    assert_false(cr.collide);
    kcbp2d_model_collide_options zero;
    memset(&zero, 0, sizeof zero);
    kcbp_error e;
    assert_int_equal(kcbp2d_model_collide(frame, &id, sq, &at, &zero, &cr, &e), KCBP_ERR_INVALID);
    kcbp2d_model_free(frame);
    kcbp2d_model_free(sq);
    kcbp2d_model_free(bm);
}

/* Convex polygons as models: the same answers as the convex query. */
static void test_convex_agrees(void **state)
{
    (void)state;
    test_rng r = {808};
    for (int trial = 0; trial < 1000; trial++) {
        kcbp_vec2 pts[2][12], h[2][12];
        size_t nh[2];
        for (int k = 0; k < 2; k++) {
            for (;;) {
                for (int i = 0; i < 12; i++)
                    pts[k][i] = kcbp_v2_make(round(test_rng_range(&r, -4, 4)), round(test_rng_range(&r, -4, 4)));
                assert_int_equal(kcbp2d_hull(pts[k], 12, h[k], &nh[k], NULL), KCBP_OK);
                if (nh[k] >= 3)
                    break;
            }
        }
        kcbp2d_model *a, *b;
        assert_int_equal(kcbp2d_model_build_polygon(h[0], (uint32_t)nh[0], &a, NULL), KCBP_OK);
        assert_int_equal(kcbp2d_model_build_polygon(h[1], (uint32_t)nh[1], &b, NULL), KCBP_OK);
        kcbp2d_pose id = kcbp2d_pose_identity(), pb;
        assert_int_equal(kcbp2d_pose_from_angle(round(test_rng_range(&r, -8, 8)), round(test_rng_range(&r, -8, 8)),
                                                90 * floor(test_rng_range(&r, 0, 4)), &pb, NULL),
                         KCBP_OK);
        kcbp2d_shape sa = kcbp2d_shape_polygon(h[0], (uint32_t)nh[0], 0), sb = kcbp2d_shape_polygon(h[1], (uint32_t)nh[1], 0);
        kcbp2d_collide_result c;
        assert_int_equal(kcbp2d_collide(&sa, &id, &sb, &pb, NULL, &c, NULL), KCBP_OK);
        kcbp2d_model_collide_result mc;
        assert_int_equal(kcbp2d_model_collide(a, &id, b, &pb, NULL, &mc, NULL), KCBP_OK);
        assert_int_equal(mc.collide, c.collide);
        kcbp2d_distance_result d;
        assert_int_equal(kcbp2d_distance(&sa, &id, &sb, &pb, NULL, &d, NULL), KCBP_OK);
        kcbp2d_model_distance_result md;
        assert_int_equal(kcbp2d_model_distance(a, &id, b, &pb, &md, NULL), KCBP_OK);
        assert_true(fabs(md.distance - d.distance) <= 1e-14 * 16);
        kcbp2d_model_free(a);
        kcbp2d_model_free(b);
    }
}

/* A model against circles, capsules and rounded boxes: convex models
 * against kcbp2d_collide and kcbp2d_distance (SAT and GJK, other code);
 * non-convex ones against brute force over every edge. */
static void test_model_vs_shapes(void **state)
{
    (void)state;
    test_rng r = {909};
    static region ga;
    int hits = 0, misses = 0;
    for (int trial = 0; trial < 1500; trial++) {
        kcbp2d_shape sb;
        switch (trial % 3) {
        case 0: sb = kcbp2d_shape_circle(test_rng_range(&r, 0.05, 0.5)); break;
        case 1: sb = kcbp2d_shape_capsule(test_rng_range(&r, 0.05, 0.3), test_rng_range(&r, 0, 1)); break;
        default: sb = kcbp2d_shape_box(test_rng_range(&r, 0.1, 1), test_rng_range(&r, 0.1, 1), test_rng_range(&r, 0, 0.2)); break;
        }
        kcbp2d_pose id = kcbp2d_pose_identity(), pb;
        assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -1.5, 1.5), test_rng_range(&r, -1.5, 1.5),
                                                test_rng_range(&r, -180, 180), &pb, NULL),
                         KCBP_OK);
        kcbp2d_model_collide_result mc;
        kcbp2d_model_distance_result md;
        if (trial % 2 == 0) { /* a convex polygon */
            kcbp_vec2 pts[12], h[12];
            size_t nh;
            for (;;) {
                for (int i = 0; i < 12; i++)
                    pts[i] = kcbp_v2_make(test_rng_range(&r, -1, 1), test_rng_range(&r, -1, 1));
                assert_int_equal(kcbp2d_hull(pts, 12, h, &nh, NULL), KCBP_OK);
                if (nh >= 3)
                    break;
            }
            kcbp2d_model *a;
            assert_int_equal(kcbp2d_model_build_polygon(h, (uint32_t)nh, &a, NULL), KCBP_OK);
            kcbp2d_shape sa = kcbp2d_shape_polygon(h, (uint32_t)nh, 0);
            kcbp2d_collide_result c;
            assert_int_equal(kcbp2d_collide(&sa, &id, &sb, &pb, NULL, &c, NULL), KCBP_OK);
            assert_int_equal(kcbp2d_model_shape_collide(a, &id, &sb, &pb, NULL, &mc, NULL), KCBP_OK);
            assert_int_equal(mc.collide, c.collide);
            kcbp2d_distance_result d;
            assert_int_equal(kcbp2d_distance(&sa, &id, &sb, &pb, NULL, &d, NULL), KCBP_OK);
            assert_int_equal(kcbp2d_model_shape_distance(a, &id, &sb, &pb, &md, NULL), KCBP_OK);
            assert_int_equal(md.collide, c.collide);
            assert_true(fabs(md.distance - d.distance) <= 1e-12);
            if (!md.collide)
                assert_true(fabs(kcbp_v2_len(kcbp_v2_sub(md.point_b, md.point_a)) - md.distance) <= 1e-12);
            hits += c.collide, misses += !c.collide;
            kcbp2d_model_free(a);
            continue;
        }
        rnd_region(&r, 1, &ga);
        kcbp2d_model *a = build(&ga);
        assert_int_equal(kcbp2d_model_shape_collide(a, &id, &sb, &pb, NULL, &mc, NULL), KCBP_OK);
        assert_int_equal(kcbp2d_model_shape_distance(a, &id, &sb, &pb, &md, NULL), KCBP_OK);
        /* brute force: the core's posed vertices (world = A's frame here) */
        kcbp_vec2 core[4];
        uint32_t nc;
        if (sb.kind == KCBP2D_CIRCLE) {
            nc = 1, core[0] = kcbp2d_pose_apply(&pb, sb.local[0]);
        } else if (sb.kind == KCBP2D_CAPSULE) {
            nc = 2, core[0] = kcbp2d_pose_apply(&pb, sb.local[0]), core[1] = kcbp2d_pose_apply(&pb, sb.local[1]);
        } else {
            kcbp_vec2 h = sb.local[0];
            kcbp_vec2 c4[4] = {{-h.x, -h.y}, {h.x, -h.y}, {h.x, h.y}, {-h.x, h.y}};
            nc = 4;
            for (int i = 0; i < 4; i++)
                core[i] = kcbp2d_pose_apply(&pb, c4[i]);
        }
        posed pa = pose_model(a, NULL);
        bool want = false;
        double best = INFINITY;
        uint32_t ne = nc >= 3 ? nc : 1;
        for (uint32_t i = 0; i < pa.n; i++) {
            kcbp_vec2 p0 = pa.v[i], p1 = pa.v[kcbp2d_model_edge_end(a, i)];
            for (uint32_t j = 0; j < ne; j++) {
                kcbp_vec2 q0 = core[j], q1 = core[(j + 1) % nc];
                kcbp_vec3 c1, c2;
                want |= kcbp_within_seg_seg(kcbp_v3(p0.x, p0.y, 0), kcbp_v3(p1.x, p1.y, 0), kcbp_v3(q0.x, q0.y, 0),
                                            kcbp_v3(q1.x, q1.y, 0), sb.radius, 0);
                best = fmin(best, sqrt(kcbp_cp_seg_seg(kcbp_v3(p0.x, p0.y, 0), kcbp_v3(p1.x, p1.y, 0),
                                                       kcbp_v3(q0.x, q0.y, 0), kcbp_v3(q1.x, q1.y, 0), &c1, &c2)));
            }
        }
        if (!want)
            want = brute_inside(core[0], &pa);
        if (!want && nc >= 3) { /* a vertex of A inside the box core */
            bool in = true;
            for (uint32_t j = 0; j < nc; j++) {
                kcbp_v2 q0 = {core[j].x, core[j].y}, q1 = {core[(j + 1) % nc].x, core[(j + 1) % nc].y},
                        x = {pa.v[0].x, pa.v[0].y};
                in &= kcbp_orient2d_exact(q0, q1, x) >= 0;
            }
            want = in;
        }
        free(pa.v);
        assert_int_equal(mc.collide, want);
        assert_int_equal(md.collide, want);
        if (!want)
            assert_true(fabs(md.distance - (best - sb.radius)) <= 1e-12);
        hits += want, misses += !want;
        kcbp2d_model_free(a);
    }
    assert_true(hits > 200 && misses > 200);
}

/* The depth bracket: for convex polygons it holds the exact SAT depth
 * (kcbp2d_distance); for any pair the translation is verified apart by
 * the exact collide and the lower bound's discs lie in both regions. */
static void test_depth_bracket(void **state)
{
    (void)state;
    test_rng r = {1001};
    int convex_checked = 0, lower_positive = 0;
    static region ga, gb;
    for (int trial = 0; trial < 120; trial++) {
        kcbp2d_model *a, *b;
        kcbp2d_pose id = kcbp2d_pose_identity(), pb;
        assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -0.6, 0.6), test_rng_range(&r, -0.6, 0.6),
                                                test_rng_range(&r, -180, 180), &pb, NULL),
                         KCBP_OK);
        double exact = -1;
        if (trial % 2 == 0) {
            kcbp_vec2 pts[2][12], h[2][12];
            size_t nh[2];
            for (int k = 0; k < 2; k++)
                for (;;) {
                    for (int i = 0; i < 12; i++)
                        pts[k][i] = kcbp_v2_make(test_rng_range(&r, -1, 1), test_rng_range(&r, -1, 1));
                    assert_int_equal(kcbp2d_hull(pts[k], 12, h[k], &nh[k], NULL), KCBP_OK);
                    if (nh[k] >= 3)
                        break;
                }
            assert_int_equal(kcbp2d_model_build_polygon(h[0], (uint32_t)nh[0], &a, NULL), KCBP_OK);
            assert_int_equal(kcbp2d_model_build_polygon(h[1], (uint32_t)nh[1], &b, NULL), KCBP_OK);
            kcbp2d_shape sa = kcbp2d_shape_polygon(h[0], (uint32_t)nh[0], 0),
                         sb = kcbp2d_shape_polygon(h[1], (uint32_t)nh[1], 0);
            kcbp2d_distance_result d;
            assert_int_equal(kcbp2d_distance(&sa, &id, &sb, &pb, NULL, &d, NULL), KCBP_OK);
            exact = d.depth;
        } else {
            rnd_region(&r, 1, &ga);
            rnd_region(&r, 0.8, &gb);
            a = build(&ga), b = build(&gb);
        }
        kcbp2d_model_depth_result dr;
        kcbp2d_model_depth_options o = kcbp2d_model_depth_options_default();
        o.directions = 16, o.grid = 12;
        assert_int_equal(kcbp2d_model_depth(a, &id, b, &pb, &o, &dr, NULL), KCBP_OK);
        if (dr.collide) {
            assert_true(dr.depth_lower >= 0 && dr.depth_lower <= dr.depth_upper && isfinite(dr.depth_upper));
            /* the translation: apart, exactly (random regions never just touch) */
            assert_false(dr.touching);
            kcbp2d_pose moved = pb;
            moved.trans = kcbp_v2_add(pb.trans, dr.translation);
            kcbp2d_model_collide_result cr;
            assert_int_equal(kcbp2d_model_collide(a, &id, b, &moved, NULL, &cr, NULL), KCBP_OK);
            assert_false(cr.collide);
            if (exact >= 0) {
                assert_true(dr.depth_lower <= exact + 1e-12 && exact <= dr.depth_upper + 1e-12);
                /* every edge normal is tried: the SAT minimum's own direction */
                assert_true(dr.depth_upper <= exact + 1e-8); /* the bisections: reach / 64 / 2^24 */
                convex_checked++;
            }
            lower_positive += dr.depth_lower > 0;
        } else if (exact >= 0) {
            assert_true(exact == 0);
        }
        kcbp2d_model_free(a);
        kcbp2d_model_free(b);
    }
    assert_true(convex_checked > 20 && lower_positive > 20);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The bracket of a model against a shape holds the convex queries' depth
 * of the same pair (a convex polygon against a circle, a capsule or a
 * rounded box). */
static void test_shape_depth_bracket(void **state)
{
    (void)state;
    test_rng r = {1101};
    int checked = 0, nratios = 0;
    double ratios[90];
    for (int trial = 0; trial < 90; trial++) {
        kcbp_vec2 pts[12], h[12];
        size_t nh;
        for (;;) {
            for (int i = 0; i < 12; i++)
                pts[i] = kcbp_v2_make(test_rng_range(&r, -1, 1), test_rng_range(&r, -1, 1));
            assert_int_equal(kcbp2d_hull(pts, 12, h, &nh, NULL), KCBP_OK);
            if (nh >= 3)
                break;
        }
        kcbp2d_model *a;
        assert_int_equal(kcbp2d_model_build_polygon(h, (uint32_t)nh, &a, NULL), KCBP_OK);
        kcbp2d_shape sa = kcbp2d_shape_polygon(h, (uint32_t)nh, 0), sb;
        /* The draws one statement each: the order of a call's arguments is
         * the compiler's (gcc and clang differ), the test's inputs must not be. */
        double u = test_rng_range(&r, 0.1, 0.6), v = test_rng_range(&r, 0, 1), w = test_rng_range(&r, 0, 0.2);
        switch (trial % 3) {
        case 0: sb = kcbp2d_shape_circle(u); break;
        case 1: sb = kcbp2d_shape_capsule(0.1 + (u - 0.1) * 0.6, v); break;
        default: sb = kcbp2d_shape_box(0.2 + (u - 0.1) * 1.6, 0.2 + v * 0.8, w); break;
        }
        double tx = test_rng_range(&r, -0.8, 0.8);
        double ty = test_rng_range(&r, -0.8, 0.8);
        double deg = test_rng_range(&r, -180, 180);
        kcbp2d_pose id = kcbp2d_pose_identity(), pb;
        assert_int_equal(kcbp2d_pose_from_angle(tx, ty, deg, &pb, NULL), KCBP_OK);
        kcbp2d_distance_result d;
        assert_int_equal(kcbp2d_distance(&sa, &id, &sb, &pb, NULL, &d, NULL), KCBP_OK);
        kcbp2d_model_depth_result dr;
        assert_int_equal(kcbp2d_model_shape_depth(a, &id, &sb, &pb, NULL, &dr, NULL), KCBP_OK);
        assert_int_equal(dr.collide, d.status != KCBP2D_APART);
        if (dr.collide) {
            assert_true(dr.depth_lower <= d.depth + 1e-12 && d.depth <= dr.depth_upper + 1e-12);
            /* The upper bound comes from 32 directions, not proven tight:
             * its width is checked over the trials (the median) and, per
             * trial, only against a gross failure. */
            assert_true(dr.depth_upper <= 4 * d.depth + 1e-6);
            ratios[nratios++] = d.depth > 0 ? dr.depth_upper / d.depth : 1;
            kcbp2d_pose moved = pb;
            moved.trans = kcbp_v2_add(pb.trans, dr.translation);
            kcbp2d_model_collide_result cr;
            assert_int_equal(kcbp2d_model_shape_collide(a, &id, &sb, &moved, NULL, &cr, NULL), KCBP_OK);
            assert_false(cr.collide);
            checked++;
        }
        kcbp2d_model_free(a);
    }
    assert_true(checked > 30);
    qsort(ratios, (size_t)nratios, sizeof ratios[0], cmp_double);
    assert_true(ratios[nratios / 2] <= 1.10);
}

/* ---- touching versus overlapping (interiors) ------------------------------------
 *
 * Rectilinear regions on the integer grid, B moved by whole steps: their
 * interiors meet exactly when some unit cell's centre lies inside both
 * (brute parity; a centre is on no edge). kcbp2d_model_depth must answer
 * touching (depth 0) exactly when the boundaries meet and no cell does. */

/* A ring of grid points, consecutive duplicates dropped, reversed when rev. */
static uint32_t grid_ring(kcbp_vec2 *out, const int (*xy)[2], uint32_t n, int ox, int oy, bool rev)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec2 q = kcbp_v2_make(xy[i][0] + ox, xy[i][1] + oy);
        if (k && out[k - 1].x == q.x && out[k - 1].y == q.y)
            continue;
        out[k++] = q;
    }
    if (k > 1 && out[k - 1].x == out[0].x && out[k - 1].y == out[0].y)
        k--;
    for (uint32_t i = 0; rev && i < k / 2; i++) {
        kcbp_vec2 t = out[i];
        out[i] = out[k - 1 - i], out[k - 1 - i] = t;
    }
    return k;
}

/* A histogram (columns of heights 1..4), a frame with a hole, or a frame
 * with holes touching each other or the outer ring at a point. */
static void grid_region(test_rng *r, region *g)
{
    int xy[32][2];
    uint32_t n = 0;
    int ox = (int)(test_rng_uniform(r) * 3), oy = (int)(test_rng_uniform(r) * 3);
    if (test_rng_uniform(r) < 0.6) {
        int w = 1 + (int)(test_rng_uniform(r) * 5), h[6];
        for (int i = 0; i < w; i++)
            h[i] = 1 + (int)(test_rng_uniform(r) * 4);
        xy[n][0] = 0, xy[n++][1] = 0;
        xy[n][0] = w, xy[n++][1] = 0;
        for (int i = w - 1; i >= 0; i--) {
            xy[n][0] = i + 1, xy[n++][1] = h[i];
            xy[n][0] = i, xy[n++][1] = h[i];
        }
        g->ring_end[0] = grid_ring(g->pts, (const int(*)[2])xy, n, ox, oy, test_rng_uniform(r) < 0.5);
        g->nrings = 1;
    } else if (test_rng_uniform(r) < 0.4) { /* holes touching at a point (OGC-valid) */
        int w = 4 + (int)(test_rng_uniform(r) * 3), h = 4 + (int)(test_rng_uniform(r) * 3);
        int x0 = 1 + (int)(test_rng_uniform(r) * (w - 3)), y0 = 1 + (int)(test_rng_uniform(r) * (h - 3));
        bool rev = test_rng_uniform(r) < 0.5;
        uint32_t k;
        if (test_rng_uniform(r) < 0.5) { /* two holes meeting corner to corner */
            const int outer[4][2] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
            const int h1[4][2] = {{x0, y0}, {x0 + 1, y0}, {x0 + 1, y0 + 1}, {x0, y0 + 1}};
            const int h2[4][2] = {{x0 + 1, y0 + 1}, {x0 + 2, y0 + 1}, {x0 + 2, y0 + 2}, {x0 + 1, y0 + 2}};
            k = grid_ring(g->pts, outer, 4, ox, oy, rev);
            g->ring_end[0] = k;
            k += grid_ring(g->pts + k, h1, 4, ox, oy, test_rng_uniform(r) < 0.5);
            g->ring_end[1] = k;
            g->ring_end[2] = k + grid_ring(g->pts + k, h2, 4, ox, oy, test_rng_uniform(r) < 0.5);
            g->nrings = 3;
        } else { /* a notch in the bottom side, a hole touching its corner */
            const int outer[8][2] = {{0, 0}, {x0, 0}, {x0, 1}, {x0 + 1, 1}, {x0 + 1, 0}, {w, 0}, {w, h}, {0, h}};
            const int h1[4][2] = {{x0 + 1, 1}, {x0 + 2, 1}, {x0 + 2, 2}, {x0 + 1, 2}};
            k = grid_ring(g->pts, outer, 8, ox, oy, rev);
            g->ring_end[0] = k;
            g->ring_end[1] = k + grid_ring(g->pts + k, h1, 4, ox, oy, test_rng_uniform(r) < 0.5);
            g->nrings = 2;
        }
    } else {
        int w = 3 + (int)(test_rng_uniform(r) * 4), h = 3 + (int)(test_rng_uniform(r) * 4);
        int x0 = 1 + (int)(test_rng_uniform(r) * (w - 2)), y0 = 1 + (int)(test_rng_uniform(r) * (h - 2));
        int x1 = x0 + 1 + (int)(test_rng_uniform(r) * (w - 1 - x0)), y1 = y0 + 1 + (int)(test_rng_uniform(r) * (h - 1 - y0));
        const int outer[4][2] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
        const int inner[4][2] = {{x0, y0}, {x0, y1}, {x1, y1}, {x1, y0}};
        uint32_t k = grid_ring(g->pts, outer, 4, ox, oy, test_rng_uniform(r) < 0.5);
        g->ring_end[0] = k;
        g->ring_end[1] = k + grid_ring(g->pts + k, inner, 4, ox, oy, test_rng_uniform(r) < 0.5);
        g->nrings = 2;
    }
    g->polygon_end[0] = g->nrings;
    g->npolygons = 1;
}

static bool grid_interiors_meet(const kcbp2d_model *a, const kcbp2d_model *b, const kcbp2d_pose *pb)
{
    posed pa = pose_model(a, NULL), pq = pose_model(b, pb);
    bool meet = false;
    for (int x = -8; x < 16 && !meet; x++)
        for (int y = -8; y < 16 && !meet; y++) {
            kcbp_vec2 c = kcbp_v2_make(x + 0.5, y + 0.5);
            meet = brute_inside(c, &pa) && brute_inside(c, &pq);
        }
    free(pa.v), free(pq.v);
    return meet;
}

static void test_depth_touching_exact(void **state)
{
    (void)state;
    test_rng r = {4242};
    static region ga, gb;
    int touching = 0, overlapping = 0;
    kcbp2d_pose id = kcbp2d_pose_identity();
    for (int trial = 0; trial < 1500; trial++) {
        grid_region(&r, &ga);
        grid_region(&r, &gb);
        kcbp2d_model *a = build(&ga), *b = build(&gb);
        kcbp2d_pose pb;
        int tx = (int)(test_rng_uniform(&r) * 9) - 4, ty = (int)(test_rng_uniform(&r) * 9) - 4;
        assert_int_equal(kcbp2d_pose_from_angle(tx, ty, 0, &pb, NULL), KCBP_OK);
        kcbp2d_model_collide_result cr;
        assert_int_equal(kcbp2d_model_collide(a, &id, b, &pb, NULL, &cr, NULL), KCBP_OK);
        kcbp2d_model_depth_result dr;
        kcbp2d_model_depth_options o = kcbp2d_model_depth_options_default();
        o.directions = 8, o.grid = 4;
        assert_int_equal(kcbp2d_model_depth(a, &id, b, &pb, &o, &dr, NULL), KCBP_OK);
        assert_int_equal(dr.collide, cr.collide);
        if (cr.collide) {
            bool meet = grid_interiors_meet(a, b, &pb);
            if (meet != !dr.touching)
                print_error("trial %d: interiors %s, touching %d\n", trial, meet ? "meet" : "apart", dr.touching);
            assert_int_equal(meet, !dr.touching);
            if (dr.touching) {
                assert_true(dr.depth_upper == 0 && dr.depth_lower == 0);
                touching++;
            } else {
                /* a rectilinear overlap of whole cells: B must move at least a cell's
                 * worth along some axis, at most as far as the search found */
                assert_true(dr.depth_upper >= 1 - 1e-9 && dr.depth_lower <= dr.depth_upper);
                overlapping++;
            }
        }
        kcbp2d_model_free(a);
        kcbp2d_model_free(b);
    }
    assert_true(touching > 100 && overlapping > 100);
}

/* Parcels sharing a slanted edge, B moved along x by less than 1e-12 of the
 * scale: the sliver between them is an overlap (the exact test says the
 * interiors meet), never "touching" by the shapes' tolerance (it was: 1,699
 * of tests/stress/twod_geos 12 1's map pairs). */
static void test_depth_thin_overlap(void **state)
{
    (void)state;
    kcbp_vec2 pa[4] = {{0, 0}, {64, 0}, {64, 70}, {0, 60}}, pb[4] = {{0, 60}, {64, 70}, {64, 128}, {0, 128}};
    kcbp2d_model *a, *b;
    assert_int_equal(kcbp2d_model_build_polygon(pa, 4, &a, NULL), KCBP_OK);
    assert_int_equal(kcbp2d_model_build_polygon(pb, 4, &b, NULL), KCBP_OK);
    kcbp2d_pose id = kcbp2d_pose_identity();
    const double shifts[] = {1e-9, 1e-11, 1e-13, 0x1p-40};
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        kcbp2d_pose p = id;
        p.trans.x = shifts[i]; /* the shared edge rises to the right: B's moves down into A */
        kcbp2d_model_depth_result r;
        assert_int_equal(kcbp2d_model_depth(a, &id, b, &p, NULL, &r, NULL), KCBP_OK);
        assert_true(r.collide);
        assert_false(r.touching);
        /* a proven bracket, the upper bound bisected to a quarter of 1e-12 of the scale */
        assert_true(r.depth_upper > 0 && r.depth_lower <= r.depth_upper &&
                    r.depth_upper <= shifts[i] + 1e-12 * r.scale);
        p.trans.x = -shifts[i]; /* apart */
        assert_int_equal(kcbp2d_model_depth(a, &id, b, &p, NULL, &r, NULL), KCBP_OK);
        assert_false(r.collide);
    }
    kcbp2d_pose p = id;
    kcbp2d_model_depth_result r;
    assert_int_equal(kcbp2d_model_depth(a, &id, b, &p, NULL, &r, NULL), KCBP_OK);
    assert_true(r.collide && r.touching && r.depth_upper == 0);
    kcbp2d_model_free(a);
    kcbp2d_model_free(b);
}

/* The edge tree's median selections on rings in angular order (a circle of
 * 200,000 vertices, from a GeoJSON file): the middle place's key as the
 * pivot cut off a few vertices a step (quadratic: 14 s to read the circle). Counted, not timed: the partition steps stay O(n log n),
 * and the answers are those of the circle. */
static void test_tree_build_circle(void **state)
{
    (void)state;
    const uint32_t n = 100000;
    kcbp_vec2 *v = malloc(n * sizeof *v);
    uint32_t *next = malloc(n * sizeof *next);
    assert_non_null(v);
    assert_non_null(next);
    for (uint32_t i = 0; i < n; i++) {
        double t = 2 * M_PI * i / n;
        /* to 6 decimals, as a GeoJSON file writes it (mirror vertices then
         * have equal keys: the old pivot took 18,781 n steps here) */
        v[i] = kcbp_v2_make(round(1e10 * cos(t)) / 1e6, round(1e10 * sin(t)) / 1e6), next[i] = (i + 1) % n;
    }
    kcbp2d_tree t;
    assert_int_equal(kcbp2d_tree_build(&t, v, next, n, NULL), KCBP_OK);
    print_message("circle of %u vertices: %llu partition steps (%.1f n)\n", (unsigned)n,
                  (unsigned long long)t.build_steps, (double)t.build_steps / n);
    assert_true(t.build_steps <= 8ull * n * 17); /* 8 n log2 n (37.5 n now) */
    kcbp2d_tree_free(&t);
    kcbp2d_model *m;
    assert_int_equal(kcbp2d_model_build_polygon(v, n, &m, NULL), KCBP_OK);
    kcbp_vec2 sq[4] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    kcbp2d_model *b;
    assert_int_equal(kcbp2d_model_build_polygon(sq, 4, &b, NULL), KCBP_OK);
    kcbp2d_pose id = kcbp2d_pose_identity(), far;
    assert_int_equal(kcbp2d_pose_from_angle(2e4, 0, 0, &far, NULL), KCBP_OK);
    kcbp2d_model_collide_result cr;
    assert_int_equal(kcbp2d_model_collide(m, &id, b, &id, NULL, &cr, NULL), KCBP_OK);
    assert_true(cr.collide && cr.contained == KCBP2D_CONTAINED_B_IN_A);
    kcbp2d_model_distance_result dr;
    assert_int_equal(kcbp2d_model_distance(m, &id, b, &far, &dr, NULL), KCBP_OK);
    assert_true(fabs(dr.distance - (1e4 - 1)) < 1e-6);
    kcbp2d_model_free(m);
    kcbp2d_model_free(b);
    free(v);
    free(next);
}

/* Constructions named in issue 35: a region in another's hole, filling
 * it (touching); poking into the material (overlapping); a multipolygon
 * touching outside with a part inside (overlapping); identical regions. */
static void test_depth_touching_constructions(void **state)
{
    (void)state;
    static const int frame[4][2] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}}, hole[4][2] = {{2, 2}, {2, 8}, {8, 8}, {8, 2}};
    static const int fill[4][2] = {{2, 2}, {8, 2}, {8, 8}, {2, 8}}, poke[4][2] = {{2, 2}, {9, 2}, {9, 8}, {2, 8}};
    static const int corner[4][2] = {{10, 10}, {12, 10}, {12, 12}, {10, 12}}, tri[3][2] = {{5, 10}, {7, 13}, {3, 13}};
    static const int inside[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}}, half[4][2] = {{5, 8}, {6, 8}, {6, 9}, {5, 9}};
    region ga, gb;
    uint32_t k = grid_ring(ga.pts, frame, 4, 0, 0, false);
    ga.ring_end[0] = k, ga.ring_end[1] = k + grid_ring(ga.pts + k, hole, 4, 0, 0, false);
    ga.nrings = 2, ga.polygon_end[0] = 2, ga.npolygons = 1;
    kcbp2d_model *a = build(&ga);
    struct {
        const int (*xy)[2];
        uint32_t n;
        int ox, oy;
        bool touching;
        const int (*xy2)[2]; /* a second polygon, or NULL */
        int ox2, oy2;
    } cases[] = {
        {fill, 4, 0, 0, true, NULL, 0, 0},      /* fills the hole exactly */
        {inside, 4, 3, 3, false, NULL, 0, 0},   /* wholly in the hole: collide false */
        {inside, 4, 2, 3, true, NULL, 0, 0},    /* in the hole, on its wall */
        {inside, 4, 1, 3, false, NULL, 0, 0},   /* half in the wall */
        {poke, 4, 0, 0, false, NULL, 0, 0},     /* one column into the wall */
        {corner, 4, 0, 0, true, NULL, 0, 0},    /* corner to corner */
        {tri, 3, 0, 0, true, NULL, 0, 0},       /* a tip on the top edge */
        {tri, 3, 0, -1, false, NULL, 0, 0},     /* the tip into the wall */
        {frame, 4, 10, 0, true, NULL, 0, 0},    /* edge to edge */
        {frame, 4, 0, 0, false, NULL, 0, 0},    /* the outline of A, filled */
        {corner, 4, 0, 0, false, half, 0, 0},   /* touching outside, and a part inside the wall */
        {corner, 4, 0, 0, true, half, 0, -2},   /* touching outside, and a part in the hole on its wall */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        region gb2;
        k = grid_ring(gb2.pts, cases[i].xy, cases[i].n, cases[i].ox, cases[i].oy, i % 2 == 1);
        gb2.ring_end[0] = k, gb2.nrings = 1, gb2.polygon_end[0] = 1, gb2.npolygons = 1;
        if (cases[i].xy2) {
            gb2.ring_end[1] = k + grid_ring(gb2.pts + k, cases[i].xy2, 4, cases[i].ox2, cases[i].oy2, false);
            gb2.nrings = 2, gb2.polygon_end[0] = 1, gb2.polygon_end[1] = 2, gb2.npolygons = 2;
        }
        gb = gb2;
        kcbp2d_model *b = build(&gb);
        kcbp2d_pose id = kcbp2d_pose_identity();
        kcbp2d_model_depth_result dr;
        assert_int_equal(kcbp2d_model_depth(a, &id, b, &id, NULL, &dr, NULL), KCBP_OK);
        bool expect_collide = !(i == 1);
        if (dr.collide != expect_collide || (dr.collide && dr.touching != cases[i].touching))
            print_error("case %zu: collide %d touching %d depth_upper %g\n", i, dr.collide, dr.touching,
                        dr.depth_upper);
        assert_int_equal(dr.collide, expect_collide);
        if (dr.collide)
            assert_int_equal(dr.touching, cases[i].touching);
        if (cases[i].xy != tri) /* the oracle sees whole cells only */
            assert_int_equal(grid_interiors_meet(a, b, &id), expect_collide && !cases[i].touching);
        kcbp2d_model_free(b);
    }
    /* a convex polygon shape (radius 0) filling the hole, and shifted into the wall */
    for (int shift = 0; shift < 2; shift++) {
        kcbp_vec2 sq[4] = {{2, 2}, {8, 2}, {8, 8}, {2, 8}};
        kcbp2d_shape sh = kcbp2d_shape_polygon(sq, 4, 0);
        kcbp2d_pose id = kcbp2d_pose_identity(), ps;
        assert_int_equal(kcbp2d_pose_from_angle(0.5 * shift, 0, 0, &ps, NULL), KCBP_OK);
        kcbp2d_model_depth_result dr;
        assert_int_equal(kcbp2d_model_shape_depth(a, &id, &sh, &ps, NULL, &dr, NULL), KCBP_OK);
        assert_true(dr.collide);
        assert_int_equal(dr.touching, shift == 0);
        assert_true(shift == 0 ? dr.depth_upper == 0 : dr.depth_lower > 0.49);
    }
    kcbp2d_model_free(a);
    /* one square against itself, either orientation: only the corners' equal
     * sectors show the overlap; and beside itself, on a shared edge */
    for (int rev = 0; rev < 2; rev++)
        for (int dx = 0; dx <= 6; dx += 6) {
            region g1, g2;
            g1.ring_end[0] = grid_ring(g1.pts, fill, 4, 0, 0, false);
            g2.ring_end[0] = grid_ring(g2.pts, fill, 4, dx, 0, rev);
            g1.nrings = g2.nrings = 1, g1.polygon_end[0] = g2.polygon_end[0] = 1, g1.npolygons = g2.npolygons = 1;
            kcbp2d_model *s1 = build(&g1), *s2 = build(&g2);
            kcbp2d_pose id = kcbp2d_pose_identity();
            kcbp2d_model_depth_result dr;
            assert_int_equal(kcbp2d_model_depth(s1, &id, s2, &id, NULL, &dr, NULL), KCBP_OK);
            assert_true(dr.collide);
            assert_int_equal(dr.touching, dx != 0);
            kcbp2d_model_free(s1);
            kcbp2d_model_free(s2);
        }
}

/* ---- sets of polygons that touch (a map's parcels) ----------------------------------
 *
 * A rectangle cut by random guillotine cuts into cells on the integer grid
 * (shared edges, T-junctions, shared corners): accepted as one model; one
 * cell moved by whole steps: accepted exactly when no unit square lies in
 * two cells (the grid oracle), and the accepted sets collide as brute force
 * says. */

typedef struct {
    int x0, y0, x1, y1;
} cell;

static int guillotine(test_rng *r, cell c, cell *out, int n, int cap)
{
    if (n >= cap - 1 || ((c.x1 - c.x0 < 2 && c.y1 - c.y0 < 2) || test_rng_uniform(r) < 0.25)) {
        out[n] = c;
        return n + 1;
    }
    bool vertical = c.x1 - c.x0 >= 2 && (c.y1 - c.y0 < 2 || test_rng_uniform(r) < 0.5);
    cell a = c, b = c;
    if (vertical)
        a.x1 = b.x0 = c.x0 + 1 + (int)(test_rng_uniform(r) * (c.x1 - c.x0 - 1));
    else
        a.y1 = b.y0 = c.y0 + 1 + (int)(test_rng_uniform(r) * (c.y1 - c.y0 - 1));
    n = guillotine(r, a, out, n, cap);
    return guillotine(r, b, out, n, cap);
}

static void test_touching_sets(void **state)
{
    (void)state;
    test_rng r = {777};
    static kcbp_vec2 pts[4 * 64];
    uint32_t ring_end[64], polygon_end[64];
    cell cells[64];
    int accepted_moved = 0, refused_moved = 0, collisions = 0;
    for (int trial = 0; trial < 300; trial++) {
        int n = guillotine(&r, (cell){0, 0, 6 + (int)(test_rng_uniform(&r) * 4), 6}, cells, 0, 64);
        int moved = trial % 2 ? (int)(test_rng_uniform(&r) * n) : -1;
        int dx = moved >= 0 ? (int)(test_rng_uniform(&r) * 5) - 2 : 0, dy = moved >= 0 ? (int)(test_rng_uniform(&r) * 5) - 2 : 0;
        if (moved >= 0)
            cells[moved].x0 += dx, cells[moved].x1 += dx, cells[moved].y0 += dy, cells[moved].y1 += dy;
        for (int i = 0; i < n; i++) {
            const int q[4][2] = {{cells[i].x0, cells[i].y0}, {cells[i].x1, cells[i].y0}, {cells[i].x1, cells[i].y1},
                                 {cells[i].x0, cells[i].y1}};
            grid_ring(pts + 4 * i, q, 4, 0, 0, test_rng_uniform(&r) < 0.5);
            ring_end[i] = polygon_end[i] = 4 * (uint32_t)(i + 1);
            polygon_end[i] = (uint32_t)(i + 1);
        }
        /* the oracle: some unit square in two cells */
        bool overlap = false;
        for (int i = 0; i < n && !overlap; i++)
            for (int k = i + 1; k < n && !overlap; k++)
                overlap = cells[i].x0 < cells[k].x1 && cells[k].x0 < cells[i].x1 && cells[i].y0 < cells[k].y1 &&
                          cells[k].y0 < cells[i].y1;
        kcbp2d_polygons in = {pts, ring_end, (uint32_t)n, polygon_end, (uint32_t)n};
        kcbp2d_model *m = NULL;
        kcbp_error e;
        kcbp_status st = kcbp2d_model_build(&in, &m, &e);
        if ((st == KCBP_OK) == overlap)
            print_error("trial %d: %d cells, moved %d by (%d, %d): %s\n", trial, n, moved, dx, dy,
                        st == KCBP_OK ? "accepted" : e.msg);
        assert_int_equal(st == KCBP_OK, !overlap);
        if (moved >= 0)
            *(st == KCBP_OK ? &accepted_moved : &refused_moved) += 1;
        if (st != KCBP_OK) {
            assert_int_equal(st, KCBP_ERR_GEOMETRY);
            continue;
        }
        /* collide against a random star, as brute force says */
        static region gb;
        rnd_region(&r, 1.5, &gb);
        kcbp2d_model *b = build(&gb);
        for (int k = 0; k < 8; k++) {
            kcbp2d_pose id = kcbp2d_pose_identity(), pb;
            assert_int_equal(kcbp2d_pose_from_angle(test_rng_range(&r, -1, 11), test_rng_range(&r, -1, 7),
                                                    test_rng_range(&r, -180, 180), &pb, NULL),
                             KCBP_OK);
            uint32_t npairs;
            double dist;
            bool want = brute(m, b, &pb, &npairs, &dist);
            kcbp2d_model_collide_result cr;
            assert_int_equal(kcbp2d_model_collide(m, &id, b, &pb, NULL, &cr, NULL), KCBP_OK);
            assert_int_equal(cr.collide, want);
            collisions += want;
        }
        kcbp2d_model_free(b);
        kcbp2d_model_free(m);
    }
    assert_true(accepted_moved > 20 && refused_moved > 20 && collisions > 200);
    /* hostile: 2,000 nested square annuli and two touching squares: bounded work, a clear refusal */
    enum { NA = 2000 };
    kcbp_vec2 *q = malloc((8 * NA + 8) * sizeof *q);
    uint32_t *re = malloc((2 * NA + 2) * sizeof *re), *pe = malloc((NA + 2) * sizeof *pe);
    assert_non_null(q), assert_non_null(re), assert_non_null(pe);
    uint32_t nq = 0, nr = 0;
    for (int k = 0; k < NA; k++) {
        double a = 2 * k + 1, b = 2 * k + 2;
        kcbp_vec2 ring[8] = {{-b, -b}, {b, -b}, {b, b}, {-b, b}, {-a, -a}, {-a, a}, {a, a}, {a, -a}};
        memcpy(q + nq, ring, sizeof ring);
        nq += 8, re[nr++] = nq - 4, re[nr++] = nq, pe[k] = nr;
    }
    for (int k = 0; k < 2; k++) {
        double x = 2 * NA + 10 + k;
        kcbp_vec2 sq[4] = {{x, 0}, {x + 1, 0}, {x + 1, 1}, {x, 1}};
        memcpy(q + nq, sq, sizeof sq);
        nq += 4, re[nr++] = nq, pe[NA + k] = nr;
    }
    kcbp2d_polygons in = {q, re, nr, pe, NA + 2};
    kcbp2d_model *m = NULL;
    kcbp_error e;
    assert_int_equal(kcbp2d_model_build(&in, &m, &e), KCBP_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "boxes overlap"));
    free(q), free(re), free(pe);
}


/* Containment among many rings (the second held-out hunt): an archipelago
 * of 5 x 5 islands (square rings of side 2 at 4-unit spacing, every other
 * one with a lake of side 1 holding nothing) against a square part that
 * holds one island whole, lies in a lake, on an island, or between them:
 * no edges meet in any, so the answer is containment's (the rings are
 * probed through the tree, not one by one; checked against the squares'
 * arithmetic, and with A and B swapped). */
static void test_archipelago_containment(void **state)
{
    (void)state;
    kcbp_vec2 pts[25 * 8];
    uint32_t ring_end[50], poly_end[25], np = 0, nr = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            double cx = 4.0 * i, cy = 4.0 * j;
            kcbp_vec2 sq[4] = {{cx - 1, cy - 1}, {cx + 1, cy - 1}, {cx + 1, cy + 1}, {cx - 1, cy + 1}};
            for (int k = 0; k < 4; k++)
                pts[np++] = sq[k];
            ring_end[nr++] = np;
            if ((i + j) % 2) { /* a lake, clockwise */
                kcbp_vec2 h[4] = {{cx - 0.5, cy - 0.5}, {cx - 0.5, cy + 0.5}, {cx + 0.5, cy + 0.5}, {cx + 0.5, cy - 0.5}};
                for (int k = 0; k < 4; k++)
                    pts[np++] = h[k];
                ring_end[nr++] = np;
            }
            poly_end[i * 5 + j] = nr;
        }
    kcbp2d_polygons in = {pts, ring_end, nr, poly_end, 25};
    kcbp2d_model *a = NULL, *b = NULL;
    assert_int_equal(kcbp2d_model_build(&in, &a, NULL), KCBP_OK);
    assert_true(kcbp2d_model_ring_count(a) > 8);
    kcbp_error e;
    /* B: a square of half-side hb at (x, y), turned by deg */
    struct {
        double x, y, hb, deg;
        bool want;
    } cases[] = {
        {8, 8, 1.5, 0, true},   /* holds the island at (8, 8) whole */
        {8, 8, 1.5, 90, true},  /* the same, turned a quarter */
        {4, 8, 0.25, 30, false}, /* in the lake of (4, 8) */
        {8, 8, 0.25, 30, true},  /* on the island at (8, 8) (no lake) */
        {4, 8, 0.75, 0, true},   /* on (4, 8)'s shore round its lake */
        {6, 6, 0.5, 45, false},  /* between four islands */
        {18, 18, 0.5, 0, false}, /* beyond the map */
        {12, 4, 1.8, 10, true},  /* holds (12, 4) whole, turned */
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double h = cases[k].hb;
        kcbp_vec2 q[4] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
        assert_int_equal(kcbp2d_model_build_polygon(q, 4, &b, &e), KCBP_OK);
        kcbp2d_pose pb, inv, id = kcbp2d_pose_identity();
        assert_int_equal(kcbp2d_pose_from_angle(cases[k].x, cases[k].y, cases[k].deg, &pb, NULL), KCBP_OK);
        kcbp2d_model_collide_result cr;
        assert_int_equal(kcbp2d_model_collide(a, &id, b, &pb, NULL, &cr, NULL), KCBP_OK);
        assert_int_equal(cr.collide, cases[k].want);
        assert_int_equal(cr.ncontacts, 0);
        /* swapped: the archipelago moved by the inverse of the turn-free pose */
        if (cases[k].deg == 0) {
            assert_int_equal(kcbp2d_pose_from_angle(-cases[k].x, -cases[k].y, 0, &inv, NULL), KCBP_OK);
            assert_int_equal(kcbp2d_model_collide(b, &id, a, &inv, NULL, &cr, NULL), KCBP_OK);
            assert_int_equal(cr.collide, cases[k].want);
        }
        kcbp2d_model_distance_result dr;
        assert_int_equal(kcbp2d_model_distance(a, &id, b, &pb, &dr, NULL), KCBP_OK);
        assert_int_equal(dr.collide, cases[k].want);
        kcbp2d_model_free(b);
    }
    kcbp2d_model_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_checks),
        cmocka_unit_test(test_random_vs_brute),
        cmocka_unit_test(test_both_posed),
        cmocka_unit_test(test_touching_and_holes),
        cmocka_unit_test(test_convex_agrees),
        cmocka_unit_test(test_model_vs_shapes),
        cmocka_unit_test(test_depth_bracket),
        cmocka_unit_test(test_shape_depth_bracket),
        cmocka_unit_test(test_depth_touching_exact),
        cmocka_unit_test(test_depth_touching_constructions),
        cmocka_unit_test(test_depth_thin_overlap),
        cmocka_unit_test(test_tree_build_circle),
        cmocka_unit_test(test_touching_sets),
        cmocka_unit_test(test_archipelago_containment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
