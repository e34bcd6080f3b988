/* The 2D layer's second held-out hunt (bench/README.md, "Held-out hunt,
 * 2D, second round"): classes the first round (twod_geos.c) did not build,
 * against GEOS (libgeos-dev) on the coordinates kcbp2d answers for (B's
 * vertices through kcbp2d_pose_apply, handed to GEOS as computed).
 *
 *   twod_hunt2 ROUNDS SEED
 *
 * Classes (each round builds one of each, at one of four placements: near
 * 0, UTM metres (5e5, 5e6), lon/lat degrees (13.4, 52.5) with 1e-7
 * steps, and 1e4 with a 1e-4 step):
 *   - islands: a MultiPolygon of islands in lakes in islands (3 to 5
 *     levels of nested rings, each ring jittered, with collinear runs of
 *     vertices, either orientation; every other round an archipelago of
 *     3 x 3 such systems), against polygons (triangles and quads) at random
 *     places, snapped vertex on vertex and vertex on edge, round a system's
 *     centre (inside an islet, or holding it whole),
 *     and against circles and capsules at random places (GEOS's distance to
 *     the core against the radius; pairs within 1e-9 of the scale of
 *     touching left out);
 *   - slivers: a parcel of width 1e-9 of its length (a thin
 *     quadrilateral, a needle triangle) sharing its long edge with a
 *     neighbour, against the neighbour moved by 0, +-1e-12, +-1e-10 of the
 *     scale across and along the edge, and against a rectangle over it;
 *   - tiny/huge: a star-like polygon of 1e4 with 200 vertices against
 *     polygons of 1e-4 on its edges and vertices, moved by 0 and +-1e-12;
 *     the tiny one as A too;
 *   - nesting (not at lon/lat): an L-shaped part with a hole and a plate on
 *     a grid of 1/8 (exact), quarter turns, plates in the hole touching its
 *     edges and corners; collide with margins 0, 1/8, .., 1 and the double
 *     below each against GEOSIntersects or the exact squared distance (the
 *     edges are axis-parallel: gaps of boxes) <= margin^2.
 * For polygon pairs: collide against GEOSIntersects, the depth's exact
 * touching test against GEOSRelatePattern "T********", distance against
 * GEOSDistance (to 1e-9 of the scale), and the depth bracket: B with the
 * translation added to its pose's no longer overlaps (GEOS's interiors do
 * not meet), B moved by depth_lower (less 1e-9 of it and 16 ulps of the
 * coordinates) along 16 directions still overlaps.
 * Prints the counts; exit status 1 on any disagreement. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <geos_c.h>

#include <kcbp/kcbp2d.h>

static uint64_t rs;
static double uni(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (double)(rs >> 11) * 0x1p-53;
}
static int irand(int lo, int hi) { return lo + (int)(uni() * (hi - lo + 1)); }

typedef struct {
    kcbp_vec2 *p;
    uint32_t *ring_end, *poly_end;
    uint32_t nrings, np, npolys;
} parcel;

static void push(parcel *q, kcbp_vec2 v)
{
    q->p = realloc(q->p, (q->np + 1) * sizeof *q->p);
    q->p[q->np++] = v;
}
static void end_ring(parcel *q, bool reverse)
{
    uint32_t s = q->nrings ? q->ring_end[q->nrings - 1] : 0;
    if (reverse)
        for (uint32_t i = s, j = q->np - 1; i < j; i++, j--) {
            kcbp_vec2 t = q->p[i];
            q->p[i] = q->p[j], q->p[j] = t;
        }
    q->ring_end = realloc(q->ring_end, (q->nrings + 1) * sizeof *q->ring_end);
    q->ring_end[q->nrings++] = q->np;
}
static void end_poly(parcel *q)
{
    q->poly_end = realloc(q->poly_end, (q->npolys + 1) * sizeof *q->poly_end);
    q->poly_end[q->npolys++] = q->nrings;
}
static void parcel_free(parcel *q)
{
    free(q->p), free(q->ring_end), free(q->poly_end);
    memset(q, 0, sizeof *q);
}

static int disagreements;
static void bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (disagreements < 30)
        vfprintf(stderr, fmt, ap);
    va_end(ap);
    disagreements++;
}

static GEOSContextHandle_t gh;

static GEOSGeometry *ring_geos(const parcel *q, uint32_t i, const kcbp2d_pose *pose, kcbp_vec2 shift)
{
    uint32_t s = i ? q->ring_end[i - 1] : 0, n = q->ring_end[i] - s;
    GEOSCoordSequence *cs = GEOSCoordSeq_create_r(gh, n + 1, 2);
    for (uint32_t j = 0; j <= n; j++) {
        kcbp_vec2 v = q->p[s + j % n];
        if (pose)
            v = kcbp2d_pose_apply(pose, v);
        GEOSCoordSeq_setXY_r(gh, cs, j, v.x + shift.x, v.y + shift.y);
    }
    return GEOSGeom_createLinearRing_r(gh, cs);
}

/* The parcel as GEOS sees it (a MultiPolygon), B's vertices through pose
 * (NULL: as given), then moved by shift. */
static GEOSGeometry *to_geos(const parcel *q, const kcbp2d_pose *pose, kcbp_vec2 shift)
{
    GEOSGeometry **polys = malloc(q->npolys * sizeof *polys);
    for (uint32_t k = 0; k < q->npolys; k++) {
        uint32_t r0 = k ? q->poly_end[k - 1] : 0, r1 = q->poly_end[k];
        GEOSGeometry **holes = malloc((r1 - r0) * sizeof *holes);
        for (uint32_t r = r0 + 1; r < r1; r++)
            holes[r - r0 - 1] = ring_geos(q, r, pose, shift);
        polys[k] = GEOSGeom_createPolygon_r(gh, ring_geos(q, r0, pose, shift), holes, r1 - r0 - 1);
        free(holes);
    }
    GEOSGeometry *g = GEOSGeom_createCollection_r(gh, GEOS_MULTIPOLYGON, polys, q->npolys);
    free(polys);
    return g;
}

static kcbp2d_model *to_model(const parcel *q, kcbp_error *e)
{
    kcbp2d_polygons in = {q->p, q->ring_end, q->nrings, q->poly_end, q->npolys};
    kcbp2d_model *m = NULL;
    kcbp2d_model_build(&in, &m, e);
    return m;
}

/* the coordinates' rounding: 16 ulps of the placement's largest coordinate */
static double ox, oy, unit, extent; /* extent: the class's largest coordinate less the origin */
static double coord_ulps(void) { return 16 * 0x1p-52 * (fmax(fabs(ox), fabs(oy)) + extent); }

static long geos_errors;
static long n_a_in_b, n_b_in_a;
static long pairs, n_collide, n_touch, n_overlap, n_shape, n_shape_skip, n_depth;

static bool geos_meet(const GEOSGeometry *ga, const parcel *qb, const kcbp2d_pose *pb, kcbp_vec2 shift)
{
    GEOSGeometry *g = to_geos(qb, pb, shift);
    char m = GEOSRelatePattern_r(gh, ga, g, "T********");
    GEOSGeom_destroy_r(gh, g);
    return m == 1;
}

/* One pair, A at the identity, B at pose: kcbp2d against GEOS. */
static void check_pair(const kcbp2d_model *a, const parcel *qa, const kcbp2d_model *b, const parcel *qb,
                       const kcbp2d_pose *pb, double scale, const char *what)
{
    kcbp_vec2 zero = {0, 0};
    GEOSGeometry *ga = to_geos(qa, NULL, zero), *gb = to_geos(qb, pb, zero);
    char inter = GEOSIntersects_r(gh, ga, gb), meet = GEOSRelatePattern_r(gh, ga, gb, "T********");
    double gd = 0;
    GEOSDistance_r(gh, ga, gb, &gd);
    kcbp2d_pose id = kcbp2d_pose_identity();
    kcbp2d_model_collide_result cr;
    kcbp2d_model_distance_result dr;
    kcbp2d_model_depth_result pr;
    kcbp2d_model_depth_options o = kcbp2d_model_depth_options_default();
    o.directions = 16, o.grid = 8, o.bisections = 16;
    kcbp_error e;
    if (kcbp2d_model_collide(a, &id, b, pb, NULL, &cr, &e) != KCBP_OK ||
        kcbp2d_model_distance(a, &id, b, pb, &dr, &e) != KCBP_OK ||
        kcbp2d_model_depth(a, &id, b, pb, &o, &pr, &e) != KCBP_OK) {
        bad("%s: error %s\n", what, e.msg);
    } else {
        if (inter == 2 || meet == 2)
            geos_errors++;
        else if (cr.collide != (inter == 1))
            bad("%s: collide %d, GEOS intersects %d (distance %g)\n", what, cr.collide, inter, gd);
        if (cr.collide && pr.touching != (meet == 0))
            bad("%s: touching %d, GEOS interiors meet %d\n", what, pr.touching, meet);
        if (inter != 2 && !(fabs(dr.distance - gd) <= 1e-9 * scale + coord_ulps()))
            bad("%s: distance %.17g, GEOS %.17g\n", what, dr.distance, gd);
        if (pr.collide != cr.collide)
            bad("%s: depth's collide %d, collide %d\n", what, pr.collide, cr.collide);
        if (inter != 2 && cr.collide && !pr.touching && meet == 1) {
            n_depth++;
            if (!(pr.depth_lower <= pr.depth_upper) || !(pr.depth_upper > 0))
                bad("%s: depth bracket [%g, %g]\n", what, pr.depth_lower, pr.depth_upper);
            /* the claim: B at pose_b with the translation added to its
               translation (in double, as the header states) is apart; B's
               vertices posed so, handed to GEOS. (Not farther along it: the
               regions are not convex, and a translation that just clears
               may enter again.) */
            kcbp2d_pose moved = *pb;
            moved.trans.x += pr.translation.x, moved.trans.y += pr.translation.y;
            kcbp_vec2 z = {0, 0};
            GEOSGeometry *gm = to_geos(qb, &moved, z);
            char rm = GEOSRelatePattern_r(gh, ga, gm, "T********");
            GEOSGeom_destroy_r(gh, gm);
            if (rm == 1)
                bad("%s: B moved by the translation (%g, %g) still overlaps A (GEOS), depth [%g, %g]\n", what,
                    pr.translation.x, pr.translation.y, pr.depth_lower, pr.depth_upper);
            for (int k = 0; k < 16 && pr.depth_lower > 1e-9 * scale + 2 * coord_ulps(); k++) {
                double th = k * (2 * M_PI / 16), l = pr.depth_lower * (1 - 1e-9) - coord_ulps();
                kcbp_vec2 s = {l * cos(th), l * sin(th)};
                if (!geos_meet(ga, qb, pb, s)) {
                    bad("%s: B moved by %g (< depth_lower %g) along %d/16 no longer overlaps A\n", what, l,
                        pr.depth_lower, k);
                    break;
                }
            }
        }
        n_a_in_b += cr.contained == KCBP2D_CONTAINED_A_IN_B, n_b_in_a += cr.contained == KCBP2D_CONTAINED_B_IN_A;
        n_collide += cr.collide, n_touch += cr.collide && pr.touching, n_overlap += cr.collide && !pr.touching;
    }
    pairs++;
    GEOSGeom_destroy_r(gh, ga);
    GEOSGeom_destroy_r(gh, gb);
}

/* A against a circle or a capsule at pose: GEOS's distance to the core. */
static void check_shape(const kcbp2d_model *a, const parcel *qa, const kcbp2d_shape *s, const kcbp2d_pose *pb,
                        double scale, const char *what)
{
    kcbp_vec2 zero = {0, 0};
    GEOSGeometry *ga = to_geos(qa, NULL, zero), *core;
    kcbp_vec2 c0 = kcbp2d_pose_apply(pb, s->local[0]);
    if (s->kind == KCBP2D_CIRCLE) {
        core = GEOSGeom_createPointFromXY_r(gh, c0.x, c0.y);
    } else {
        kcbp_vec2 c1 = kcbp2d_pose_apply(pb, s->local[1]);
        GEOSCoordSequence *cs = GEOSCoordSeq_create_r(gh, 2, 2);
        GEOSCoordSeq_setXY_r(gh, cs, 0, c0.x, c0.y);
        GEOSCoordSeq_setXY_r(gh, cs, 1, c1.x, c1.y);
        core = GEOSGeom_createLineString_r(gh, cs);
    }
    double gd = 0;
    GEOSDistance_r(gh, ga, core, &gd);
    kcbp2d_pose id = kcbp2d_pose_identity();
    kcbp2d_model_collide_result cr;
    kcbp2d_model_distance_result dr;
    kcbp_error e;
    if (kcbp2d_model_shape_collide(a, &id, s, pb, NULL, &cr, &e) != KCBP_OK ||
        kcbp2d_model_shape_distance(a, &id, s, pb, &dr, &e) != KCBP_OK) {
        bad("%s: error %s\n", what, e.msg);
    } else if (fabs(gd - s->radius) <= 1e-9 * scale) {
        n_shape_skip++;
    } else {
        bool want = gd <= s->radius;
        if (cr.collide != want)
            bad("%s: shape collide %d, GEOS core distance %.17g radius %.17g\n", what, cr.collide, gd, s->radius);
        double wd = gd > s->radius ? gd - s->radius : 0;
        if (!(fabs(dr.distance - wd) <= 1e-9 * scale))
            bad("%s: shape distance %.17g, GEOS %.17g\n", what, dr.distance, wd);
        n_shape++;
    }
    GEOSGeom_destroy_r(gh, ga);
    GEOSGeom_destroy_r(gh, core);
}

/* placements: origin and unit (step of the construction's grid) */
static kcbp_vec2 P(double x, double y) { return (kcbp_vec2){ox + x * unit, oy + y * unit}; }

/* A ring round a square of half-size h centred at (cx, cy), jittered
 * inward by up to j, with collinear runs (extra vertices on the sides). */
static void square_ring(parcel *q, double cx, double cy, double h, double j, bool reverse)
{
    double c[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int k = 0; k < 4; k++) {
        double x0 = cx + c[k][0] * (h - j * uni()), y0 = cy + c[k][1] * (h - j * uni());
        push(q, P(x0, y0));
        int extra = irand(0, 3); /* collinear vertices along the side, axis-parallel */
        const double *n = c[(k + 1) % 4];
        for (int e = 1; e <= extra; e++) {
            double f = (double)e / (extra + 1);
            if (k % 2 == 0)
                push(q, P(x0 + f * (cx + n[0] * h - x0) * 0.5, y0));
            else
                push(q, P(x0, y0 + f * (cy + n[1] * h - y0) * 0.5));
        }
    }
    end_ring(q, reverse);
}

static void small_polygon(parcel *q, double size)
{
    int n = irand(3, 4);
    double a0 = uni() * 6.28;
    for (int k = 0; k < n; k++) {
        double a = a0 + k * (6.283185307179586 / n) + 0.3 * uni();
        push(q, (kcbp_vec2){size * cos(a), size * sin(a)});
    }
    end_ring(q, uni() < 0.5);
    end_poly(q);
}

static void check_islands(int round)
{
    parcel qa = {0};
    extent = 110 * unit;
    int levels = irand(3, 5);
    /* one system of half-size 100, or an archipelago of 3 x 3 systems of
       half-size 30 (27 to 45 rings: the containment tests walk the tree) */
    bool archipelago = round % 2 == 1;
    int K = archipelago ? 3 : 1;
    double h = archipelago ? 30 : 100, step = archipelago ? 5 : 12, bmax = archipelago ? 30 : 4;
    /* level k: a ring of half-size h_k; even levels are land (shell), odd
       ones lakes: a polygon is (shell k, hole k+1) */
    for (int gi = 0; gi < K; gi++)
        for (int gj = 0; gj < K; gj++) {
            double cx = archipelago ? 66.0 * (gi - 1) : 0, cy = archipelago ? 66.0 * (gj - 1) : 0;
            for (int k = 0; k < levels; k += 2) {
                double hs = h - step * k, hh = h - step * (k + 1);
                square_ring(&qa, cx, cy, hs, 2, uni() < 0.5);
                if (k + 1 < levels)
                    square_ring(&qa, cx, cy, hh, 2, uni() < 0.5);
                end_poly(&qa);
            }
        }
    kcbp_error e;
    kcbp2d_model *a = to_model(&qa, &e);
    char what[96];
    if (!a) {
        bad("islands %d: refused: %s\n", round, e.msg);
        parcel_free(&qa);
        return;
    }
    double scale = 200 * unit;
    for (int t = 0; t < 40; t++) {
        parcel qb = {0};
        double size = (0.5 + (bmax - 0.5) * uni()) * unit;
        small_polygon(&qb, size);
        kcbp2d_model *b = to_model(&qb, &e);
        if (!b) {
            bad("islands small %d: refused %s\n", t, e.msg);
            parcel_free(&qb);
            continue;
        }
        kcbp2d_pose pb;
        int mode = t % 4;
        double deg = (double)irand(0, 3) * 90 * (uni() < 0.5) + (uni() < 0.5 ? 0 : 360 * uni());
        kcbp2d_pose_from_angle(0, 0, deg, &pb, &e);
        kcbp_vec2 target;
        if (mode == 0) { /* random place */
            target = P(-100 + 200 * uni(), -100 + 200 * uni());
        } else if (mode == 3) { /* round a system's centre: holding its islet, or inside it */
            target = P(archipelago ? 66.0 * irand(-1, 1) : 0, archipelago ? 66.0 * irand(-1, 1) : 0);
        } else { /* snapped: B's vertex on A's vertex (1) or on an edge's midpoint (2) */
            uint32_t v = (uint32_t)irand(0, (int)qa.np - 1);
            uint32_t r = 0;
            while (qa.ring_end[r] <= v)
                r++;
            uint32_t s = r ? qa.ring_end[r - 1] : 0, n = qa.ring_end[r] - s;
            kcbp_vec2 p0 = qa.p[v], p1 = qa.p[s + (v - s + 1) % n];
            target = mode == 1 ? p0 : (kcbp_vec2){0.5 * (p0.x + p1.x), 0.5 * (p0.y + p1.y)};
        }
        kcbp_vec2 bv = mode == 3 ? (kcbp_vec2){0, 0} : kcbp2d_pose_rotate(&pb, qb.p[0]); /* 3: B's centre there */
        pb.trans.x = target.x - bv.x, pb.trans.y = target.y - bv.y;
        snprintf(what, sizeof what, "islands %d/%d mode %d", round, t, mode);
        check_pair(a, &qa, b, &qb, &pb, scale, what);
        kcbp2d_model_free(b);
        parcel_free(&qb);
        /* a circle and a capsule */
        kcbp2d_shape sh = t % 2 ? kcbp2d_shape_circle(size) : kcbp2d_shape_capsule(0.5 * size, 3 * size);
        kcbp2d_pose ps;
        kcbp2d_pose_from_angle(0, 0, 90.0 * irand(0, 3), &ps, &e);
        ps.trans = P(-100 + 200 * uni(), -100 + 200 * uni());
        snprintf(what, sizeof what, "islands %d/%d %s", round, t, t % 2 ? "circle" : "capsule");
        check_shape(a, &qa, &sh, &ps, scale, what);
    }
    kcbp2d_model_free(a);
    parcel_free(&qa);
}

static void check_slivers(int round)
{
    /* A: the sliver, width w = 1e-9 * L, along a slanted long edge from
       P(0,0) to P(L, L*s) (the neighbour B shares that edge) */
    double L = 10, sl = 0.25 * irand(-4, 4) + (uni() < 0.5 ? 0 : 0.1 * uni());
    double w = 1e-9 * L * (1 + uni()), ulps = 8 * 0x1p-52 * fmax(fabs(ox), fabs(oy)) / unit;
    if (w < ulps) /* lon/lat: 1e-9 of a 1e-6 parcel is below the coordinates' ulp */
        w = ulps * (1 + uni());
    bool needle = uni() < 0.5;
    parcel qa = {0}, qb = {0}, qc = {0};
    extent = 12 * unit;
    push(&qa, P(0, 0));
    push(&qa, P(L, L * sl));
    if (!needle)
        push(&qa, P(L, L * sl + w));
    push(&qa, P(0, w));
    end_ring(&qa, uni() < 0.5);
    end_poly(&qa);
    /* B: the neighbour below, sharing the edge (with a T-vertex half the time) */
    push(&qb, P(0, 0));
    push(&qb, P(0, -3));
    push(&qb, P(L, L * sl - 3));
    push(&qb, P(L, L * sl));
    if (uni() < 0.5)
        push(&qb, P(0.5 * L, 0.5 * L * sl)); /* rounded: maybe off the edge, GEOS sees the same */
    end_ring(&qb, uni() < 0.5);
    end_poly(&qb);
    /* C: a rectangle over the sliver */
    push(&qc, P(0.25 * L, -1));
    push(&qc, P(0.5 * L, -1));
    push(&qc, P(0.5 * L, 0.5 * L * sl + 1));
    push(&qc, P(0.25 * L, 0.5 * L * sl + 1));
    end_ring(&qc, false);
    end_poly(&qc);
    kcbp_error e;
    kcbp2d_model *a = to_model(&qa, &e), *b = a ? to_model(&qb, &e) : NULL, *c = b ? to_model(&qc, &e) : NULL;
    if (!a || !b || !c) {
        bad("slivers %d: refused: %s\n", round, e.msg);
    } else {
        double scale = L * unit;
        static const double d[] = {0, 1e-12, -1e-12, 1e-10, -1e-10, 1e-9, -1e-9, 2e-9};
        char what[96];
        for (unsigned i = 0; i < sizeof d / sizeof *d; i++)
            for (int dir = 0; dir < 3; dir++) {
                kcbp2d_pose pb = kcbp2d_pose_identity();
                double m = d[i] * scale;
                pb.trans = dir == 0 ? (kcbp_vec2){0, m} : dir == 1 ? (kcbp_vec2){m, 0} : (kcbp_vec2){m, -m};
                snprintf(what, sizeof what, "sliver %d%s B %g dir %d", round, needle ? " needle" : "", d[i], dir);
                check_pair(a, &qa, b, &qb, &pb, scale, what);
                check_pair(b, &qb, a, &qa, &pb, scale, what);
                snprintf(what, sizeof what, "sliver %d%s C %g dir %d", round, needle ? " needle" : "", d[i], dir);
                check_pair(a, &qa, c, &qc, &pb, scale, what);
            }
    }
    kcbp2d_model_free(a), kcbp2d_model_free(b), kcbp2d_model_free(c);
    parcel_free(&qa), parcel_free(&qb), parcel_free(&qc);
}

static void check_tiny_huge(int round)
{
    parcel qa = {0};
    extent = 1e4;
    int n = 200;
    double R = 1e4;
    for (int k = 0; k < n; k++) {
        double a = k * (6.283185307179586 / n), r = R * (k % 2 ? 0.8 + 0.1 * uni() : 1);
        push(&qa, P(r * cos(a) / unit, r * sin(a) / unit));
    }
    end_ring(&qa, uni() < 0.5);
    end_poly(&qa);
    kcbp_error e;
    kcbp2d_model *a = to_model(&qa, &e);
    if (!a) {
        bad("tiny/huge %d: refused: %s\n", round, e.msg);
        parcel_free(&qa);
        return;
    }
    double scale = 2 * R;
    char what[96];
    for (int t = 0; t < 30; t++) {
        parcel qb = {0};
        small_polygon(&qb, 1e-4 * (0.5 + uni()));
        kcbp2d_model *b = to_model(&qb, &e);
        if (!b) {
            bad("tiny %d: refused %s\n", t, e.msg);
            parcel_free(&qb);
            continue;
        }
        uint32_t v = (uint32_t)irand(0, n - 1);
        kcbp_vec2 p0 = qa.p[v], p1 = qa.p[(v + 1) % n];
        double f = t % 3 == 0 ? 0 : uni();
        kcbp_vec2 target = {p0.x + f * (p1.x - p0.x), p0.y + f * (p1.y - p0.y)};
        static const double d[] = {0, 1e-12, -1e-12, 1e-9};
        for (unsigned i = 0; i < 4; i++) {
            kcbp2d_pose pb;
            kcbp2d_pose_from_angle(0, 0, 90.0 * irand(0, 3), &pb, &e);
            kcbp_vec2 bv = kcbp2d_pose_rotate(&pb, qb.p[0]);
            pb.trans.x = target.x - bv.x + d[i] * scale, pb.trans.y = target.y - bv.y + d[i] * scale;
            snprintf(what, sizeof what, "tiny/huge %d/%d d %g", round, t, d[i]);
            check_pair(a, &qa, b, &qb, &pb, scale, what);
            /* the tiny one as A: the huge one moved so that the same point meets */
            kcbp2d_pose inv = kcbp2d_pose_identity();
            inv.trans.x = -pb.trans.x, inv.trans.y = -pb.trans.y; /* B's frame is a translation of the world when unturned */
            if (pb.c == 1) {
                snprintf(what, sizeof what, "huge/tiny %d/%d d %g", round, t, d[i]);
                check_pair(b, &qb, a, &qa, &inv, scale, what);
            }
        }
        kcbp2d_model_free(b);
        parcel_free(&qb);
    }
    kcbp2d_model_free(a);
    parcel_free(&qa);
}


/* The exact squared distance of two polygons of axis-parallel edges with
 * dyadic coordinates (the gaps between the edges' boxes: exact), for the
 * nesting class; -1 when an edge pair's boxes meet (then GEOS decides). */
static double rect_d2(const parcel *qa, const parcel *qb, const kcbp2d_pose *pb)
{
    double best = INFINITY;
    for (uint32_t ra = 0; ra < qa->nrings; ra++)
        for (uint32_t rb = 0; rb < qb->nrings; rb++) {
            uint32_t sa = ra ? qa->ring_end[ra - 1] : 0, na = qa->ring_end[ra] - sa;
            uint32_t sb = rb ? qb->ring_end[rb - 1] : 0, nb = qb->ring_end[rb] - sb;
            for (uint32_t i = 0; i < na; i++)
                for (uint32_t j = 0; j < nb; j++) {
                    kcbp_vec2 a0 = qa->p[sa + i], a1 = qa->p[sa + (i + 1) % na];
                    kcbp_vec2 b0 = kcbp2d_pose_apply(pb, qb->p[sb + j]), b1 = kcbp2d_pose_apply(pb, qb->p[sb + (j + 1) % nb]);
                    double dx = fmax(0, fmax(fmin(b0.x, b1.x) - fmax(a0.x, a1.x), fmin(a0.x, a1.x) - fmax(b0.x, b1.x)));
                    double dy = fmax(0, fmax(fmin(b0.y, b1.y) - fmax(a0.y, a1.y), fmin(a0.y, a1.y) - fmax(b0.y, b1.y)));
                    best = fmin(best, dx * dx + dy * dy);
                }
        }
    return best;
}

static long n_margin, n_margin_equal;

/* Nesting: an L-shaped part with a rectangular hole and a small plate, on
 * a grid of 1/8 (times unit, a power of two), turned by quarter turns,
 * placed at random grid points near each other (clearances of exact
 * multiples of 1/8, parts in the hole touching its edges or corners);
 * collide with margin m against (GEOS intersects or exact d^2 <= m^2), for
 * every m in 0, 1/8, ..., 1 and the double below each. */
static void check_nesting(int round)
{
    parcel part[2] = {{0}, {0}};
    double L[6][2] = {{0, 0}, {4, 0}, {4, 1.5}, {2, 1.5}, {2, 3}, {0, 3}}, Ho[4][2] = {{0.5, 0.5}, {1.5, 0.5}, {1.5, 1}, {0.5, 1}};
    extent = 16 * unit;
    for (int k = 0; k < 6; k++)
        push(&part[0], P(L[k][0], L[k][1]));
    end_ring(&part[0], uni() < 0.5);
    for (int k = 0; k < 4; k++)
        push(&part[0], P(Ho[k][0], Ho[k][1]));
    end_ring(&part[0], uni() < 0.5);
    end_poly(&part[0]);
    double w = 0.125 * irand(1, 8), h = 0.125 * irand(1, 4);
    double R[4][2] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
    for (int k = 0; k < 4; k++)
        push(&part[1], P(R[k][0], R[k][1]));
    end_ring(&part[1], uni() < 0.5);
    end_poly(&part[1]);
    kcbp_error e;
    kcbp2d_model *m[2] = {to_model(&part[0], &e), to_model(&part[1], &e)};
    char what[96];
    if (!m[0] || !m[1]) {
        bad("nesting %d: refused %s\n", round, e.msg);
    } else {
        kcbp_vec2 zero = {0, 0};
        for (int t = 0; t < 60; t++) {
            int ib = t % 2;
            kcbp2d_pose pb;
            kcbp2d_pose_from_angle(0, 0, 90.0 * irand(0, 3), &pb, &e);
            /* B's origin-side: rotate about the origin, then a grid translation */
            kcbp_vec2 o = kcbp2d_pose_rotate(&pb, (kcbp_vec2){ox, oy});
            pb.trans.x = ox - o.x + unit * 0.125 * irand(-48, 48);
            pb.trans.y = oy - o.y + unit * 0.125 * irand(-40, 40);
            if (ib == 1 && t % 4 == 1) { /* the plate in the hole, at a corner or an edge */
                kcbp2d_pose_from_angle(0, 0, 0, &pb, &e);
                pb.trans.x = unit * 0.125 * irand(4, 12 - (int)(8 * w));
                pb.trans.y = unit * 0.125 * irand(4, 8 - (int)(8 * h));
            }
            snprintf(what, sizeof what, "nesting %d/%d", round, t);
            check_pair(m[0], &part[0], m[ib], &part[ib], &pb, 4 * unit, what);
            GEOSGeometry *ga = to_geos(&part[0], NULL, zero), *gb = to_geos(&part[ib], &pb, zero);
            char inter = GEOSIntersects_r(gh, ga, gb);
            GEOSGeom_destroy_r(gh, ga), GEOSGeom_destroy_r(gh, gb);
            if (inter == 2)
                continue;
            double d2 = rect_d2(&part[0], &part[ib], &pb);
            kcbp2d_pose id = kcbp2d_pose_identity();
            for (int k = 0; k <= 8; k++)
                for (int below = 0; below < 2; below++) {
                    double mg = unit * 0.125 * k;
                    if (below) {
                        if (k == 0)
                            continue;
                        mg = nextafter(mg, 0);
                    }
                    bool want = inter == 1 || d2 <= mg * mg;
                    kcbp2d_model_collide_options co = kcbp2d_model_collide_options_default();
                    co.margin = mg;
                    kcbp2d_model_collide_result cr;
                    if (kcbp2d_model_collide(m[0], &id, m[ib], &pb, &co, &cr, &e) != KCBP_OK)
                        bad("%s margin %g: error %s\n", what, mg, e.msg);
                    else if (cr.collide != want)
                        bad("%s margin %.17g: collide %d, exact d^2 %.17g, GEOS intersects %d\n", what, mg, cr.collide,
                            d2, inter);
                    n_margin++;
                    n_margin_equal += !below && d2 == mg * mg && inter == 0;
                }
        }
    }
    kcbp2d_model_free(m[0]), kcbp2d_model_free(m[1]);
    parcel_free(&part[0]), parcel_free(&part[1]);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: twod_hunt2 ROUNDS SEED\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    rs = 0x9E3779B97F4A7C15ull ^ (uint64_t)strtoull(argv[2], NULL, 10);
    uni();
    gh = GEOS_init_r();
    static const double OX[4] = {0, 5e5, 13.4, 1e4}, OY[4] = {0, 5e6, 52.5, 1e4}, U[4] = {1, 0.1, 1e-7, 1e-4};
    for (int r = 0; r < rounds; r++) {
        int place = r % 4;
        ox = OX[place], oy = OY[place], unit = U[place];
        check_islands(r);
        check_slivers(r);
        if (place != 2) { /* the grid of 1/8 exact: not at lon/lat's 1e-7 */
            double u = unit;
            unit = place == 3 ? 0x1p-13 : place == 1 ? 0x1p-3 : 1;
            check_nesting(r);
            unit = u;
        }
        if (place == 0 || place == 1)
            check_tiny_huge(r);
    }
    printf("twod_hunt2: %d rounds, %ld pairs (%ld colliding: %ld touching, %ld overlapping; %ld depth brackets "
           "checked), %ld shape pairs (%ld near touching left out), %ld margin checks (%ld at clearance = margin), %ld pairs GEOS failed on; contained: %ld A in B, %ld B in A: %d disagreements\n",
           rounds, pairs, n_collide, n_touch, n_overlap, n_depth, n_shape, n_shape_skip, n_margin, n_margin_equal, geos_errors, n_a_in_b, n_b_in_a, disagreements);
    GEOS_finish_r(gh);
    return disagreements ? 1 : 0;
}
