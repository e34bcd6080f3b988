/* The distance traversal of two trees (aabb_tree.h, kcbp_tree_distance):
 * depth-first with a running upper bound, node pairs bounded by their
 * oriented boxes, triangle pairs by their slabs before the triangle
 * distance. kcbp_distance (src/query/distance.c) runs it after its box and
 * k-CBP stages.
 *
 * Every pruning bound is conservative for the numbers kcbp_tri_distance
 * computes: a node or triangle pair is dropped only when its lower bound,
 * less a tolerance (tol below), is not below the best distance found. tol
 * covers kcbp_tri_distance's own error (at most KCBP_TRI_DIST_REL_ERR of
 * the largest coordinate, include/kcbp/distance.h: a triangle pair's
 * computed distance may be that much below its exact one) and the rounding
 * of the bounds (a few dozen ulps of the coordinates), so that no pair
 * whose computed distance is below the best is ever dropped: the distance
 * found is the smallest kcbp_tri_distance over all triangle pairs, bit for
 * bit (tests/test_distance.c, test_mesh_brute, and tests/test_bvh.c).
 * The exception is the second stage (past the first's budget: the sweep,
 * or the search with the fans' bounds, for nested surfaces at constant
 * clearance: kcbp_tree_distance below), which also drops pairs within
 * KCBP_TRI_DIST_REL_ERR * scale, less the rounding, of the best: then the
 * distance is within that of the smallest (tests/test_distance_nested.c;
 * two cones tip to tip have every one of their N x M pairs exactly at the
 * apexes' distance, which no bound can drop as strictly farther). The
 * second stage alone also bounds a leaf against a fan node facing it by
 * the two fans' hulls (fan_hull.h) and a triangle pair by its gaps along
 * a's normal and across it combined (lateral_apart): each a lower bound
 * with its rounding covered, so the contract above is unchanged. */
#include "aabb_tree.h"
#include "fan_gap.h"
#include "fan_hull.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/distance.h>

#include "geom/closest.h"
#include "point_distance.h"

enum { DIST_STACK = KCBP_TREE_DISTANCE_MAX_DEPTH + 2 };

/* The traversal's bounds are inlined into it (GCC keeps them out of line
 * on its own: that costs a call and spilled arguments per node pair). */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

HOT_INLINE double clamp_to(double x, double e) { return x > e ? e : x < -e ? -e : x; }

/* A lower bound on the distance between box a (centred at the origin of
 * its frame, half-sizes ea) and box b (centre t, axes the columns of m,
 * half-sizes eb, all in a's frame): the larger of the gaps along a's
 * thinnest axis, b's thinnest axis, and the direction between the points a
 * few alternating projections between the boxes reach (from b's centre
 * into a, back into b, ...: for convex sets they converge to a closest
 * pair, whose direction gives the exact distance; two rounds find it for
 * boxes face to face, as the surface patches of near surfaces mostly are).
 * A gap along any direction is a lower bound, whatever the direction's
 * quality. */

/* The gaps along the rest of the fifteen axes of the separating-axis test
 * (the six face axes but the two thinnest, and the nine cross products of
 * one axis of each box), each divided by the axis's length; and along the
 * direction between the points a few alternating projections between the
 * boxes reach (from b's centre into a, back into b, ...: for convex sets
 * they converge to a closest pair). g: the best so far; returned when one
 * exceeds prune_at. */
HOT_INLINE double box_gap_more(kcbp_vec3 t, const kcbp_mat3 *m, kcbp_vec3 ea, kcbp_vec3 eb, double g, double prune_at)
{
    double am[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            am[i][j] = fabs(m->m[i][j]);
    double g0 = fabs(t.x) - ea.x - (am[0][0] * eb.x + am[0][1] * eb.y + am[0][2] * eb.z);
    double g1 = fabs(t.y) - ea.y - (am[1][0] * eb.x + am[1][1] * eb.y + am[1][2] * eb.z);
    double tb0 = t.x * m->m[0][0] + t.y * m->m[1][0] + t.z * m->m[2][0];
    double tb1 = t.x * m->m[0][1] + t.y * m->m[1][1] + t.z * m->m[2][1];
    double g3 = fabs(tb0) - eb.x - (am[0][0] * ea.x + am[1][0] * ea.y + am[2][0] * ea.z);
    double g4 = fabs(tb1) - eb.y - (am[0][1] * ea.x + am[1][1] * ea.y + am[2][1] * ea.z);
    g = g0 > g ? g0 : g;
    g = g1 > g ? g1 : g;
    g = g3 > g ? g3 : g;
    g = g4 > g ? g4 : g;
    if (g > prune_at)
        return g;
    /* a_i x b_j: t . L = t_{i2} c_{i1 j} - t_{i1} c_{i2 j}, |L|^2 = c_{i1 j}^2 + c_{i2 j}^2 */
    const double tt[3] = {t.x, t.y, t.z}, ee[3] = {ea.x, ea.y, ea.z}, fb[3] = {eb.x, eb.y, eb.z};
    for (int i = 0; i < 3; i++) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            double gl = fabs(tt[i2] * m->m[i1][j] - tt[i1] * m->m[i2][j]) - ee[i1] * am[i2][j] - ee[i2] * am[i1][j] -
                        fb[j1] * am[i][j2] - fb[j2] * am[i][j1];
            if (gl > 0) {
                double l2 = m->m[i1][j] * m->m[i1][j] + m->m[i2][j] * m->m[i2][j];
                if (!(l2 > 1e-12))
                    continue;
                gl /= sqrt(l2);
                g = gl > g ? gl : g;
            }
        }
    }
    if (g > prune_at)
        return g;
    kcbp_vec3 p = {clamp_to(t.x, ea.x), clamp_to(t.y, ea.y), clamp_to(t.z, ea.z)}, q = t;
    for (int round = 0; round < 2; round++) {
        kcbp_vec3 w = kcbp_v3_sub(p, t);
        kcbp_vec3 l = {clamp_to(w.x * m->m[0][0] + w.y * m->m[1][0] + w.z * m->m[2][0], eb.x),
                       clamp_to(w.x * m->m[0][1] + w.y * m->m[1][1] + w.z * m->m[2][1], eb.y),
                       clamp_to(w.x * m->m[0][2] + w.y * m->m[1][2] + w.z * m->m[2][2], eb.z)};
        q = kcbp_v3_add(t, kcbp_mat3_mul_v3(m, l));
        if (round == 0)
            p = kcbp_v3(clamp_to(q.x, ea.x), clamp_to(q.y, ea.y), clamp_to(q.z, ea.z));
    }
    kcbp_vec3 u = kcbp_v3_sub(q, p);
    double u2 = kcbp_v3_len2(u);
    if (u2 > 0) {
        /* along u: b's lowest point minus a's highest */
        double mu0 = u.x * m->m[0][0] + u.y * m->m[1][0] + u.z * m->m[2][0];
        double mu1 = u.x * m->m[0][1] + u.y * m->m[1][1] + u.z * m->m[2][1];
        double mu2 = u.x * m->m[0][2] + u.y * m->m[1][2] + u.z * m->m[2][2];
        double gu = kcbp_v3_dot(u, t) - (fabs(mu0) * eb.x + fabs(mu1) * eb.y + fabs(mu2) * eb.z) -
                    kcbp_v3_dot(kcbp_v3_abs(u), ea);
        gu /= sqrt(u2);
        g = gu > g ? gu : g;
    }
    return g;
}

/* Row i of l against column j of r (tr false: l r) or row j of r (tr
 * true: l r^T), written out (GCC does not unroll the loops at -O2). */
HOT_INLINE kcbp_mat3 mul3(const kcbp_mat3 *l, const kcbp_mat3 *r, const bool tr)
{
#define E(i, j) (tr ? r->m[j][i] : r->m[i][j])
#define ROW(i)                                                                                                           \
    {l->m[i][0] * E(0, 0) + l->m[i][1] * E(1, 0) + l->m[i][2] * E(2, 0),                                                \
     l->m[i][0] * E(0, 1) + l->m[i][1] * E(1, 1) + l->m[i][2] * E(2, 1),                                                \
     l->m[i][0] * E(0, 2) + l->m[i][1] * E(1, 2) + l->m[i][2] * E(2, 2)}
    kcbp_mat3 m = {{ROW(0), ROW(1), ROW(2)}};
#undef ROW
#undef E
    return m;
}

/* A lower bound on the distance between oriented boxes a and b
 * (kcbp_aabb_tree.obb): d, b's centre minus a's in a's box frame, db the
 * same in b's box frame, and the rotation from b's box frame to a's
 * m = l r (rt false) or l r^T (rt true). The centre gap first (no
 * rotation); when it does not prune the pair (prune_at: the bound that
 * would), box_gap. *key gets the order in which to visit a node's two
 * children (when the pair is not pruned): the squared distance between the
 * centres less the boxes' squared half-diagonals, so that near pairs and
 * large boxes come first. */
HOT_INLINE double obb_lower(kcbp_vec3 d, kcbp_vec3 db, const kcbp_mat3 *l, const kcbp_mat3 *r, const bool rt,
                            const kcbp_obb *a, const kcbp_obb *b, bool full, double prune_at, double *key)
{
    *key = kcbp_v3_len2(d) - kcbp_v3_len2(a->extent) - kcbp_v3_len2(b->extent);
    /* The centre line: |d| - (|d|.ea + |db|.eb) / |d|, positive only when
     * d^2 exceeds the sum (no square root otherwise). */
    double d2 = kcbp_v3_len2(d), w = kcbp_v3_dot(kcbp_v3_abs(d), a->extent) + kcbp_v3_dot(kcbp_v3_abs(db), b->extent);
    double g = 0;
    if (d2 > w) {
        g = (d2 - w) / sqrt(d2);
        if (g > prune_at)
            return g;
    }
    /* the thinnest axes: the last row and column of m = l r (or l r^T) */
#define E(i, j) (rt ? r->m[j][i] : r->m[i][j])
#define M(i, j) (l->m[i][0] * E(0, j) + l->m[i][1] * E(1, j) + l->m[i][2] * E(2, j))
    double m20 = fabs(M(2, 0)), m21 = fabs(M(2, 1)), m22 = fabs(M(2, 2)), m02 = fabs(M(0, 2)), m12 = fabs(M(1, 2));
#undef M
#undef E
    double ga = fabs(d.z) - a->extent.z - (m20 * b->extent.x + m21 * b->extent.y + m22 * b->extent.z);
    double gb = fabs(db.z) - b->extent.z - (m02 * a->extent.x + m12 * a->extent.y + m22 * a->extent.z);
    g = ga > g ? ga : g;
    g = gb > g ? gb : g;
    if (g > prune_at || !full)
        return g;
    kcbp_mat3 m = mul3(l, r, rt);
    return box_gap_more(d, &m, a->extent, b->extent, g, prune_at);
}

/* B's node fixed while A's children are bounded: its box's axes as
 * columns in A's frame (w) and its centre in A's frame (c). */
typedef struct {
    kcbp_mat3 w;
    kcbp_vec3 c;
} b_in_a_frame;

HOT_INLINE b_in_a_frame b_node_in_a(const kcbp_pose *b_in_a, const kcbp_obb *b)
{
    b_in_a_frame f = {mul3(&b_in_a->rot, &b->axes, true), kcbp_pose_apply(b_in_a, b->center)};
    return f;
}

HOT_INLINE double child_a_lower(const b_in_a_frame *f, const kcbp_obb *a, const kcbp_obb *b, bool full,
                                double prune_at, double *key)
{
    kcbp_vec3 dm = kcbp_v3_sub(f->c, a->center); /* in A's frame */
    return obb_lower(kcbp_mat3_mul_v3(&a->axes, dm), kcbp_mat3_tmul_v3(&f->w, dm), &a->axes, &f->w, false, a, b, full,
                     prune_at, key);
}

/* A's node fixed while B's children are bounded: v = a's axes times R
 * (rows: a's axes in B's frame), p = a's axes times (t - a's centre), so
 * that b's centre in a's box frame is v cb + p, and c, a's centre in B's
 * frame. */
typedef struct {
    kcbp_mat3 v;
    kcbp_vec3 p, c;
} a_in_b_frame;

HOT_INLINE a_in_b_frame a_node_in_b(const kcbp_pose *b_in_a, const kcbp_obb *a)
{
    a_in_b_frame f = {mul3(&a->axes, &b_in_a->rot, false),
                      kcbp_mat3_mul_v3(&a->axes, kcbp_v3_sub(b_in_a->trans, a->center)),
                      kcbp_mat3_tmul_v3(&b_in_a->rot, kcbp_v3_sub(a->center, b_in_a->trans))};
    return f;
}

HOT_INLINE double child_b_lower(const a_in_b_frame *f, const kcbp_obb *a, const kcbp_obb *b, bool full,
                                double prune_at, double *key)
{
    return obb_lower(kcbp_v3_add(kcbp_mat3_mul_v3(&f->v, b->center), f->p),
                     kcbp_mat3_mul_v3(&b->axes, kcbp_v3_sub(b->center, f->c)), &f->v, &b->axes, true, a, b, full,
                     prune_at, key);
}

/* A cheap lower bound on the distance of two triangles: their gap along
 * the line through their centroids (<= 0 when they overlap there), to skip
 * most of the triangle pairs a leaf pair brings that cannot beat the best
 * distance found. */
static inline double tri_gap(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    kcbp_vec3 u = kcbp_v3_sub(kcbp_v3_add(kcbp_v3_add(b[0], b[1]), b[2]), kcbp_v3_add(kcbp_v3_add(a[0], a[1]), a[2]));
    double a0 = kcbp_v3_dot(a[0], u), a1 = kcbp_v3_dot(a[1], u), a2 = kcbp_v3_dot(a[2], u);
    double b0 = kcbp_v3_dot(b[0], u), b1 = kcbp_v3_dot(b[1], u), b2 = kcbp_v3_dot(b[2], u);
    double bmin = b0 < b1 ? b0 : b1, amax = a0 > a1 ? a0 : a1;
    bmin = b2 < bmin ? b2 : bmin;
    amax = a2 > amax ? a2 : amax;
    double g = bmin - amax; /* (no fmin/fmax: a library call each without -ffinite-math) */
    double u2 = kcbp_v3_len2(u);
    return g > 0 && u2 > 0 ? g / sqrt(u2) : 0;
}

/* How far triangle v lies beyond slab (n, lo, hi) (a kcbp_tri_slab, which
 * holds the other triangle); <= 0 when it meets the slab. A lower bound on
 * the two triangles' distance. */
static inline double slab_gap(kcbp_vec3 n, double lo, double hi, const kcbp_vec3 v[3])
{
    double d0 = kcbp_v3_dot(n, v[0]), d1 = kcbp_v3_dot(n, v[1]), d2 = kcbp_v3_dot(n, v[2]);
    double mn = d0 < d1 ? d0 : d1, mx = d0 > d1 ? d0 : d1;
    mn = d2 < mn ? d2 : mn;
    mx = d2 > mx ? d2 : mx;
    return mn - hi > lo - mx ? mn - hi : lo - mx;
}

/* The distance between two triangles' spines (kcbp_tri_spine) less their
 * radii: a lower bound on the triangles' (up to the rounding of b's move
 * and of the segments' distance). */
static inline double spine_gap(const kcbp_vec3 a[3], const kcbp_tri_spine *sa, const kcbp_vec3 b[3],
                               const kcbp_tri_spine *sb)
{
    uint32_t i = sa->apex, j = sb->apex;
    kcbp_vec3 ma = kcbp_v3_scale(kcbp_v3_add(a[(i + 1) % 3], a[(i + 2) % 3]), 0.5);
    kcbp_vec3 mb = kcbp_v3_scale(kcbp_v3_add(b[(j + 1) % 3], b[(j + 2) % 3]), 0.5);
    return sqrt(kcbp_cp_seg_seg(a[i], ma, b[j], mb, NULL, NULL)) - sa->r - sb->r;
}

/* Whether triangles a and b (one frame) are farther apart than p, from
 * two orthogonal directions: n, a's slab's normal (sl: a's slab), and m,
 * the line between the centroids with its n part taken out. Every segment
 * from a point of a to a point of b has a part g1 along n (b beyond a's
 * slab, either side) and g2 along m (b beyond a along m) at least, so is
 * at least sqrt(g1^2 + g2^2) long when both are positive (n and m
 * orthogonal). Tight on slivers side by side (two nested surfaces'
 * facets, offset across their long sides: the tori, 40 % of their
 * triangle pairs), where each gap alone is the clearance or less. Tested
 * as g1^2 |m|^2 + (g2 |m|)^2 > (p + r)^2 |m|^2 (no square root). The
 * rounding: n is of unit length and m orthogonal to it up to a few ulps,
 * each gap is a few ulps of the coordinates off and each product a few
 * ulps of itself; r (2 * dist_ctx.rnd, 512 ulps of the coordinates and
 * scale) covers them many times over: (p + r)^2 exceeds p^2 by 2 p r. */
static inline bool lateral_apart(const kcbp_vec3 a[3], const kcbp_tri_slab *sl, const kcbp_vec3 b[3], double p,
                                 double r)
{
    double d0 = kcbp_v3_dot(sl->n, b[0]), d1 = kcbp_v3_dot(sl->n, b[1]), d2 = kcbp_v3_dot(sl->n, b[2]);
    double mn = d0 < d1 ? d0 : d1, mx = d0 > d1 ? d0 : d1;
    mn = d2 < mn ? d2 : mn;
    mx = d2 > mx ? d2 : mx;
    double g1 = mn - sl->hi > sl->lo - mx ? mn - sl->hi : sl->lo - mx;
    if (!(g1 > 0) || !(p >= 0))
        return false;
    kcbp_vec3 w = kcbp_v3_sub(kcbp_v3_add(kcbp_v3_add(b[0], b[1]), b[2]), kcbp_v3_add(kcbp_v3_add(a[0], a[1]), a[2]));
    kcbp_vec3 m = kcbp_v3_sub(w, kcbp_v3_scale(sl->n, kcbp_v3_dot(w, sl->n)));
    double m2 = kcbp_v3_len2(m);
    double a0 = kcbp_v3_dot(a[0], m), a1 = kcbp_v3_dot(a[1], m), a2 = kcbp_v3_dot(a[2], m);
    double b0 = kcbp_v3_dot(b[0], m), b1 = kcbp_v3_dot(b[1], m), b2 = kcbp_v3_dot(b[2], m);
    double bmin = b0 < b1 ? b0 : b1, amax = a0 > a1 ? a0 : a1;
    bmin = b2 < bmin ? b2 : bmin;
    amax = a2 > amax ? a2 : amax;
    double gm = bmin - amax, pr = p + r;
    return m2 > 0 && gm > 0 && g1 * g1 * m2 + gm * gm > pr * pr * m2;
}

static inline double node_size(const kcbp_obb *o) { return o->extent.x + o->extent.y + o->extent.z; }

typedef struct {
    uint32_t a, b;
    double lb;
} node_pair;

/* The slot of a triangle near point p: down the tree, always into the
 * child whose box is nearer p. */
static uint32_t dive(const kcbp_aabb_tree *t, kcbp_vec3 p)
{
    const kcbp_aabb_node *n = &t->nodes[0];
    while (!n->count) {
        const kcbp_aabb_node *c0 = &t->nodes[n->first], *c1 = c0 + 1;
        kcbp_vec3 u0 = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, c0->center)), c0->extent);
        kcbp_vec3 u1 = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, c1->center)), c1->extent);
        double d0 = kcbp_v3_len2(kcbp_v3_max(u0, kcbp_v3(0, 0, 0)));
        double d1 = kcbp_v3_len2(kcbp_v3_max(u1, kcbp_v3(0, 0, 0)));
        n = d1 < d0 ? c1 : c0;
    }
    return n->first;
}

/* The running best. */
typedef struct {
    double d;                   /* the best distance (INFINITY: none) */
    kcbp_vec3 pa, pb;
    uint32_t ta, tb;
} best_pair;

/* Offers a triangle pair's distance, computed as kcbp_tri_distance
 * computes it, and kept when below the best (and within the limit), or
 * equal to it with smaller triangle indices (ta, then tb): so that, of the
 * pairs at the smallest distance (the closest points often are a vertex or
 * an edge that several triangles share), the one reported does not depend
 * on the order of the search. The bounds prune a pair only when it is
 * strictly farther than the best, so every tied pair is offered. */
static void offer(best_pair *best, const kcbp_vec3 a[3], const kcbp_tri_face *fa, const kcbp_vec3 b[3],
                  const kcbp_tri_face *fb, uint32_t ta, uint32_t tb, double limit)
{
    kcbp_vec3 pa, pb;
    double d = kcbp_tri_distance_faces(a, fa, b, fb, &pa, &pb);
    if (d <= limit && (d < best->d || (d == best->d && (ta < best->ta || (ta == best->ta && tb < best->tb))))) {
        best->d = d;
        best->pa = pa;
        best->pb = pb;
        best->ta = ta;
        best->tb = tb;
    }
}

/* The search's state: the trees, the pose, the limits and tolerances, the
 * running best and the counts. */
typedef struct {
    const kcbp_aabb_tree *a, *b;
    const kcbp_pose *b_in_a;
    double limit, tol, stop;
    /* the rounding of a plane's support over a whole mesh
     * (mesh_beyond_slab), coordinates, pose and scale included */
    double rnd;
    best_pair best;
    uint64_t box_pairs, tri_pairs;
} dist_ctx;

/* A slab of side s's frame (s_is_b: B's) moved into the other side's frame:
 * the normal and the offset to add to the bounds. */
static kcbp_vec3 slab_to_other(const dist_ctx *c, bool s_is_b, kcbp_vec3 n, double *off)
{
    if (s_is_b) {
        kcbp_vec3 m = kcbp_mat3_mul_v3(&c->b_in_a->rot, n);
        *off = kcbp_v3_dot(m, c->b_in_a->trans);
        return m;
    }
    *off = -kcbp_v3_dot(n, c->b_in_a->trans);
    return kcbp_mat3_tmul_v3(&c->b_in_a->rot, n);
}

/* A lower bound on the distance between the triangles of leaf `leaf` of
 * side s (s_is_b: B's) and a node of the other side whose triangles share a
 * vertex (f, kcbp_node_fan; fo its oriented box), or, when it cannot
 * exceed prune_at, a value not above prune_at: the least, over the
 * leaf's triangles t, of the larger of two gaps between t and the node's
 * points (each the gap along a direction: a lower bound whatever the
 * direction): along t's normal (its slab), and along the line from t's
 * point nearest the shared vertex to that vertex. Both are exact at the
 * shared vertex; the second is its distance to t even when the nearest
 * point is on t's rim (the vertex beyond t's edge, as a drill's apex moved
 * off the hole's axis is for the hole's far facets), where the plane's gap
 * can be far below it. The node's other vertices enter by their boxes. */
static double fan_bound(const dist_ctx *c, bool s_is_b, const kcbp_aabb_node *leaf, const kcbp_node_fan *f,
                        const kcbp_obb *fo, double prune_at)
{
    const kcbp_aabb_tree *s = s_is_b ? c->b : c->a;
    const kcbp_pose *p = c->b_in_a;
    kcbp_fan_moved m;
    if (s_is_b) { /* A's fan into B's frame: x -> R^T (x - t) */
        m.apex = kcbp_mat3_tmul_v3(&p->rot, kcbp_v3_sub(f->apex, p->trans));
        m.c = kcbp_mat3_tmul_v3(&p->rot, kcbp_v3_sub(f->center, p->trans));
        m.oc = kcbp_mat3_tmul_v3(&p->rot, kcbp_v3_sub(f->ocenter, p->trans));
        m.ax = p->rot;
        m.oax = mul3(&fo->axes, &p->rot, false);
    } else { /* B's fan into A's frame: x -> R x + t */
        m.apex = kcbp_pose_apply(p, f->apex);
        m.c = kcbp_pose_apply(p, f->center);
        m.oc = kcbp_pose_apply(p, f->ocenter);
        m.ax = kcbp_mat3_transpose(&p->rot);
        m.oax = mul3(&fo->axes, &p->rot, true);
    }
    m.e = f->extent;
    m.oe = f->oextent;
    m.axis = f->axis; /* (not used by kcbp_fan_min) */
    const double r = 2 * c->rnd;
    double g = INFINITY;
    for (uint32_t i = 0; i < leaf->count; i++) {
        const kcbp_vec3 *t = s->tri_verts[leaf->first + i];
        const kcbp_tri_slab *sl = &s->tri_slab[leaf->first + i];
        /* along the normal: the node above the slab or below it */
        double above = kcbp_fan_min(&m, sl->n) - sl->hi, below = sl->lo + kcbp_fan_min(&m, kcbp_v3_neg(sl->n));
        double gi = (above > below ? above : below) - r;
        if (!(gi > prune_at)) {
            /* along the line from t's nearest point to the vertex */
            kcbp_vec3 q;
            double d2 = kcbp_cp_point_tri(m.apex, t, &q);
            if (d2 > 0) {
                kcbp_vec3 u = kcbp_v3_sub(m.apex, q);
                double t0 = kcbp_v3_dot(u, t[0]), t1 = kcbp_v3_dot(u, t[1]), t2 = kcbp_v3_dot(u, t[2]);
                double tmax = t0 > t1 ? t0 : t1;
                tmax = t2 > tmax ? t2 : tmax;
                double gu = (kcbp_fan_min(&m, u) - tmax) / sqrt(d2) - r;
                gi = gu > gi ? gu : gi;
            }
            if (!(gi > -INFINITY)) /* NaN (a triangle without a normal: its slab is infinite) */
                return 0;
            if (!(gi > prune_at)) /* the node pair stays: no need for the others */
                return gi;
        }
        g = gi < g ? gi : g;
    }
    return g;
}

/* Whether two fans' axes (kcbp_node_fan.axis: A's, and B's in B's frame)
 * are opposed: the fans face each other. */
HOT_INLINE bool facing(const kcbp_pose *b_in_a, const kcbp_vec3 *aa, const kcbp_vec3 *ab)
{
    return kcbp_v3_dot(*aa, kcbp_mat3_mul_v3(&b_in_a->rot, *ab)) < 0;
}

/* The node pairs on the stack, depth-first: each popped pair is pruned when
 * its lower bound lb has lb - shift > best (or lb - tol > limit), otherwise
 * split, or its leaves' triangle pairs offered. shift = tol: only pairs
 * strictly farther than the best are dropped (the first stage, bit for
 * bit); shift < 0 (the second stage): pairs within -shift of the best are
 * dropped too. Returns true when it stopped because its work (node pairs
 * plus 8 per triangle pair) passed budget, the pairs left on the stack. */
HOT_INLINE bool descend_with(dist_ctx *c, node_pair *stack, size_t *top_io, double shift, uint64_t budget, const int fans)
{
    const kcbp_aabb_tree *a = c->a, *b = c->b;
    const kcbp_pose *b_in_a = c->b_in_a;
    const double limit = c->limit, tol = c->tol, stop = c->stop;
    best_pair bestv = c->best, *best = &bestv; /* (a local: kept in registers) */
    const kcbp_obb *oa = a->obb, *ob = b->obb;
    const uint64_t work0 = c->box_pairs + 8 * c->tri_pairs;
    uint64_t box_pairs = c->box_pairs, tri_pairs = c->tri_pairs;
    size_t top = *top_io;
    bool paused = false;
    /* The frame of the node that stays while the other's children are
     * bounded, kept for the next expansions with the same node (depth-first
     * often descends the other tree again below it). */
    b_in_a_frame fb;
    a_in_b_frame fa;
    uint32_t fb_node = UINT32_MAX, fa_node = UINT32_MAX;
    /* (the budget is checked at leaf pairs only: a cost per pair popped
     * shows in the common case's instruction counts) */
    const uint64_t cap = budget > UINT64_MAX - work0 ? UINT64_MAX : work0 + budget;
    while (top > 0 && best->d > stop) {
        node_pair p = stack[--top];
        if (p.lb - shift > best->d || p.lb - tol > limit)
            continue;
        const kcbp_aabb_node *na = &a->nodes[p.a], *nb = &b->nodes[p.b];
        if (fans && !na->count != !nb->count) {
            /* a leaf against a node whose triangles share a vertex */
            double g = -INFINITY, prune_at = best->d + shift < limit + tol ? best->d + shift : limit + tol;
            if (na->count && (b->flags[p.b] & KCBP_NODE_FAN))
                g = fan_bound(c, false, na, &b->fan[b->fan_of[p.b]], &ob[p.b], prune_at);
            else if (nb->count && (a->flags[p.a] & KCBP_NODE_FAN))
                g = fan_bound(c, true, nb, &a->fan[a->fan_of[p.a]], &oa[p.a], prune_at);
            if (g > -INFINITY) {
                box_pairs++;
                if (g - shift > best->d || g - tol > limit)
                    continue;
            }
            /* Then, two fan nodes facing each other (their whole fans'
             * axes opposed: cones tip to tip, half-discs across a
             * diameter, where the leaf's triangles and the node are
             * within about 1 % of the distance near the vertices; not
             * nested cones, whose wedges' hulls come as near as their
             * rims: the test would cost without pruning): their hulls
             * (fan_hull.h). */
            if ((a->flags[p.a] & b->flags[p.b] & KCBP_NODE_FAN) &&
                facing(b_in_a, &a->fan[a->fan_of[p.a]].axis, &b->fan[b->fan_of[p.b]].axis)) {
                kcbp_fan_moved ma = kcbp_fan_own(&a->fan[a->fan_of[p.a]], &oa[p.a]);
                kcbp_fan_moved mb = kcbp_fan_b_into_a(&b->fan[b->fan_of[p.b]], &ob[p.b], b_in_a);
                g = kcbp_fan_hull_gap(&ma, &mb, 2 * c->rnd, prune_at, 12);
                box_pairs++;
                if (g - shift > best->d || g - tol > limit)
                    continue;
            }
        }
        if (na->count && nb->count) {
            if (box_pairs + 8 * tri_pairs > cap) {
                stack[top++] = p;
                paused = true;
                break;
            }
            kcbp_vec3 tb[KCBP_AABB_LEAF_MAX][3];
            kcbp_tri_face fbs[KCBP_AABB_LEAF_MAX];
            uint32_t faced = 0; /* bit j: fbs[j] computed */
            for (uint32_t j = 0; j < nb->count; j++)
                for (int k = 0; k < 3; k++)
                    tb[j][k] = kcbp_pose_apply(b_in_a, b->tri_verts[nb->first + j][k]);
            for (uint32_t i = 0; i < na->count; i++)
                for (uint32_t j = 0; j < nb->count; j++) {
                    uint32_t sa = na->first + i, sb = nb->first + j;
                    const kcbp_vec3 *ta = a->tri_verts[sa];
                    double g = tri_gap(ta, tb[j]);
                    if (g - shift > best->d || g - tol > limit)
                        continue;
                    /* Then each triangle's slab (along its normal): b
                     * beyond a's, a beyond b's (moved into A's frame). */
                    const kcbp_tri_slab *sla = &a->tri_slab[sa], *slb = &b->tri_slab[sb];
                    g = slab_gap(sla->n, sla->lo, sla->hi, tb[j]);
                    if (g - shift > best->d || g - tol > limit)
                        continue;
                    kcbp_vec3 n = kcbp_mat3_mul_v3(&b_in_a->rot, slb->n);
                    double off = kcbp_v3_dot(n, b_in_a->trans);
                    g = slab_gap(n, slb->lo + off, slb->hi + off, ta);
                    if (g - shift > best->d || g - tol > limit)
                        continue;
                    /* Then, with the fans' bounds (nested surfaces), the
                     * spines (slivers side by side: a drill's and its
                     * hole's facets near the rim; elsewhere the slabs
                     * leave few pairs, which the spines seldom drop). */
                    const kcbp_tri_spine *spa = &a->tri_spine[sa], *spb = &b->tri_spine[sb];
                    if (fans && spa->r + spb->r < best->d) {
                        g = spine_gap(ta, spa, tb[j], spb) - c->rnd;
                        if (g - shift > best->d || g - tol > limit)
                            continue;
                    }
                    /* and slivers side by side (the second stage) */
                    if (fans) {
                        double pa = best->d + shift < limit + tol ? best->d + shift : limit + tol;
                        if (lateral_apart(ta, sla, tb[j], pa, 2 * c->rnd))
                            continue;
                    }
                    if (!(faced >> j & 1)) {
                        fbs[j] = kcbp_tri_face_of(tb[j]);
                        faced |= 1u << j;
                    }
                    tri_pairs++;
                    offer(best, ta, &a->tri_face[sa], tb[j], &fbs[j], a->tri_ids[sa], b->tri_ids[sb], limit);
                }
            continue;
        }
        /* Descend the larger box (both sides shrink together); push the
         * farther child first so that the nearer one is searched first. */
        bool down_a = nb->count || (!na->count && node_size(&oa[p.a]) >= node_size(&ob[p.b]));
        /* with fans: down side `fans` first (1: A, 2: B), so that its
         * leaves meet the other side's fan nodes high up (fan_bound) */
        if (fans && !na->count && !nb->count && ((a->flags[p.a] | b->flags[p.b]) & KCBP_NODE_FAN))
            down_a = fans == 1;
        uint32_t first = down_a ? na->first : nb->first;
        node_pair c0 = {down_a ? first : p.a, down_a ? p.b : first, 0};
        node_pair c1 = {down_a ? first + 1 : p.a, down_a ? p.b : first + 1, 0};
        double k0, k1;
        /* a child pair whose bound passes prune_at is pruned: no need to
         * bound it further */
        double prune_at = best->d + shift < limit + tol ? best->d + shift : limit + tol;
        if (down_a) {
            if (fb_node != p.b) {
                fb = b_node_in_a(b_in_a, &ob[p.b]);
                fb_node = p.b;
            }
            bool lb = b->flags[p.b] & KCBP_NODE_LONG;
            c0.lb = child_a_lower(&fb, &oa[first], &ob[p.b], lb || (a->flags[first] & KCBP_NODE_LONG), prune_at, &k0);
            c1.lb = child_a_lower(&fb, &oa[first + 1], &ob[p.b], lb || (a->flags[first + 1] & KCBP_NODE_LONG), prune_at,
                                  &k1);
        } else {
            if (fa_node != p.a) {
                fa = a_node_in_b(b_in_a, &oa[p.a]);
                fa_node = p.a;
            }
            bool la = a->flags[p.a] & KCBP_NODE_LONG;
            c0.lb = child_b_lower(&fa, &oa[p.a], &ob[first], la || (b->flags[first] & KCBP_NODE_LONG), prune_at, &k0);
            c1.lb = child_b_lower(&fa, &oa[p.a], &ob[first + 1], la || (b->flags[first + 1] & KCBP_NODE_LONG), prune_at,
                                  &k1);
        }
        box_pairs += 2;
        /* the child pair of smaller lower bound first; the key between
         * pairs that both overlap (bounds <= 0) */
        double l0 = c0.lb > 0 ? c0.lb : 0, l1 = c1.lb > 0 ? c1.lb : 0;
        if (l1 < l0 || (l1 == l0 && k1 < k0)) {
            node_pair t = c0;
            c0 = c1;
            c1 = t;
        }
        if (!(c1.lb - shift > best->d) && !(c1.lb - tol > limit))
            stack[top++] = c1;
        if (!(c0.lb - shift > best->d) && !(c0.lb - tol > limit))
            stack[top++] = c0;
    }
    *top_io = top;
    c->best = bestv;
    c->box_pairs = box_pairs;
    c->tri_pairs = tri_pairs;
    return paused;
}

/* descend, made twice: without the fans' bounds (the first stage: no cost
 * for them there) and with them. */
static bool descend_plain(dist_ctx *c, node_pair *stack, size_t *top_io, double shift, uint64_t budget)
{
    return descend_with(c, stack, top_io, shift, budget, 0);
}

static bool descend(dist_ctx *c, node_pair *stack, size_t *top_io, double shift, uint64_t budget, int fans)
{
    return fans == 1 ? descend_with(c, stack, top_io, shift, budget, 1)
                     : descend_with(c, stack, top_io, shift, budget, 2);
}

/* Whether every vertex v of tree o has n.v >= thr (as computed: the
 * caller's thr carries the rounding). Nearest box first, so that a vertex
 * below is met early; false for any NaN. */
static bool vtree_above(const kcbp_aabb_tree *o, kcbp_vec3 n, double thr)
{
    uint32_t stack[KCBP_VTREE_MAX_DEPTH + 2];
    size_t top = 0;
    const kcbp_aabb_node *vn = o->vnodes;
    kcbp_vec3 an = kcbp_v3_abs(n);
    double c0 = kcbp_v3_dot(n, vn[0].center);
    /* the bounding sphere (n of unit length up to rounding: 1e-15 of the
     * radius covers it), then the root's box */
    if (c0 - o->vradius * (1 + 1e-15) >= thr || c0 - kcbp_v3_dot(an, vn[0].extent) >= thr)
        return true;
    stack[top++] = 0;
    while (top > 0) {
        const kcbp_aabb_node *nd = &vn[stack[--top]];
        if (nd->count) {
            for (uint32_t i = 0; i < nd->count; i++)
                if (!(kcbp_v3_dot(n, o->verts[nd->first + i]) >= thr))
                    return false;
            continue;
        }
        const kcbp_aabb_node *c0 = &vn[nd->first], *c1 = c0 + 1;
        double l0 = kcbp_v3_dot(n, c0->center) - kcbp_v3_dot(an, c0->extent);
        double l1 = kcbp_v3_dot(n, c1->center) - kcbp_v3_dot(an, c1->extent);
        uint32_t i0 = nd->first, i1 = nd->first + 1;
        if (l1 < l0) { /* the lower child last: popped first */
            double t = l0;
            l0 = l1;
            l1 = t;
            i0 = i1;
            i1 = nd->first;
        }
        if (!(l1 >= thr))
            stack[top++] = i1;
        if (!(l0 >= thr))
            stack[top++] = i0;
    }
    return true;
}

/* Whether the whole of mesh o lies at least need beyond the slab
 * lo <= n.x <= hi (n a unit vector and the bounds in o's frame), on either
 * side: then no triangle of o is nearer than need to what the slab holds. */
static bool mesh_beyond_slab(const dist_ctx *c, const kcbp_aabb_tree *o, kcbp_vec3 n, double lo, double hi,
                             double need)
{
    return vtree_above(o, n, hi + need + c->rnd) || vtree_above(o, kcbp_v3_neg(n), -(lo - need - c->rnd));
}

/* Whether triangle slot i of side s lies at least need from the whole
 * other mesh (mesh_beyond_slab along its slab). */
static bool tri_beyond(const dist_ctx *c, bool s_is_b, uint32_t i, double need)
{
    const kcbp_aabb_tree *s = s_is_b ? c->b : c->a, *o = s_is_b ? c->a : c->b;
    const kcbp_tri_slab *sl = &s->tri_slab[i];
    if (!isfinite(sl->lo) || !isfinite(sl->hi))
        return false;
    double off;
    kcbp_vec3 n = slab_to_other(c, s_is_b, sl->n, &off);
    return mesh_beyond_slab(c, o, n, sl->lo + off, sl->hi + off, need);
}

/* How many of up to 16 triangles spread over side s lie at least need
 * from the whole other mesh, and of how many tested. */
static uint32_t sample_beyond(const dist_ctx *c, bool s_is_b, double need, uint32_t *tested)
{
    const kcbp_aabb_tree *s = s_is_b ? c->b : c->a;
    /* the slots: the rightmost leaf ends at the last (a right child's
     * slots follow its sibling's) */
    const kcbp_aabb_node *r = &s->nodes[0];
    while (!r->count)
        r = &s->nodes[r->first + 1];
    uint32_t n = r->first + r->count, k = 0, m = 16;
    m = n < m ? n : m;
    for (uint32_t j = 0; j < m; j++)
        k += tri_beyond(c, s_is_b, (uint32_t)((uint64_t)j * n / m + n / (2 * m)), need);
    *tested = m;
    return k;
}

/* Offers triangle pair (slot sa of A, slot sb of B). */
static void offer_slots(dist_ctx *c, uint32_t sa, uint32_t sb)
{
    kcbp_vec3 tb[3];
    for (int k = 0; k < 3; k++)
        tb[k] = kcbp_pose_apply(c->b_in_a, c->b->tri_verts[sb][k]);
    kcbp_tri_face fb = kcbp_tri_face_of(tb);
    offer(&c->best, c->a->tri_verts[sa], &c->a->tri_face[sa], tb, &fb, c->a->tri_ids[sa], c->b->tri_ids[sb],
          c->limit);
    c->tri_pairs++;
}

/* Upper bounds from vertices: for 16 leaves spread over side s's tree,
 * the other tree's leaf nearest each of their triangles' vertices (when it
 * holds a triangle nearer than twice the best), every pair of the two leaves'
 * triangles offered. On nested surfaces the first stage's best is often a
 * pair at a hair above the distance, tied with a great many (every pair of
 * a drill's and its hole's apex facets); the distance itself is near a
 * vertex (a rim's, or the apex), where the vertex's nearest leaf and its
 * own leaf find it, and then the tied pairs are farther than the best:
 * pruned. */
static void probe_vertices(dist_ctx *c, bool s_is_b)
{
    const kcbp_aabb_tree *s = s_is_b ? c->b : c->a, *o = s_is_b ? c->a : c->b;
    kcbp_pose a_in_b = kcbp_pose_inverse(c->b_in_a);
    kcbp_vec3 seen[16 * 3 * KCBP_AABB_LEAF_MAX];
    uint32_t nseen = 0;
    for (uint32_t j = 0; j < 16; j++) {
        /* down by the bits of j, lowest first (a spread of leaves) */
        uint32_t y = 0, bits = j;
        for (int d = 0; !s->nodes[y].count; d++, bits >>= 1)
            y = s->nodes[y].first + ((d < 4 ? bits : (uint32_t)d) & 1);
        const kcbp_aabb_node *ls = &s->nodes[y];
        uint32_t found[3 * KCBP_AABB_LEAF_MAX], nf = 0;
        for (uint32_t i = 0; i < ls->count; i++)
            for (int k = 0; k < 3; k++) {
                kcbp_vec3 v = s->tri_verts[ls->first + i][k];
                /* each vertex once (a fan's apex is in every leaf) */
                uint32_t w = 0;
                while (w < nseen && !(seen[w].x == v.x && seen[w].y == v.y && seen[w].z == v.z))
                    w++;
                if (w < nseen)
                    continue;
                if (nseen < sizeof seen / sizeof *seen)
                    seen[nseen++] = v;
                kcbp_vec3 p = s_is_b ? kcbp_pose_apply(c->b_in_a, v) : kcbp_pose_apply(&a_in_b, v);
                uint32_t leaf = kcbp_tree_point_nearest_leaf(o, p, 2 * c->best.d), f = 0;
                while (f < nf && found[f] != leaf)
                    f++;
                if (leaf == UINT32_MAX || f < nf)
                    continue;
                found[nf++] = leaf;
                const kcbp_aabb_node *lo = &o->nodes[leaf];
                for (uint32_t x = 0; x < ls->count; x++)
                    for (uint32_t z = 0; z < lo->count; z++)
                        offer_slots(c, s_is_b ? lo->first + z : ls->first + x, s_is_b ? ls->first + x : lo->first + z);
            }
    }
}

/* The second stage: side s's tree (s_is_b: B's) alone against the whole
 * other mesh. A node of s whose oriented box's thinnest slab, or a leaf
 * each of whose triangles' slabs, has the whole other mesh at least
 * best - tie beyond it cannot hold a pair nearer than that: dropped. The
 * leaves left are searched against the other tree (descend with shift
 * -tie from the pair of the leaf and the other root). Every triangle pair
 * is so covered. */
static void sweep(dist_ctx *c, bool s_is_b, double tie)
{
    const kcbp_aabb_tree *s = s_is_b ? c->b : c->a;
    uint32_t stack[KCBP_TREE_MAX_DEPTH + 2];
    node_pair pairs[DIST_STACK];
    size_t top = 0;
    stack[top++] = 0;
    while (top > 0 && c->best.d > c->stop) {
        uint32_t y = stack[--top];
        const kcbp_aabb_node *nd = &s->nodes[y];
        double need = c->best.d - tie;
        const kcbp_obb *o = &s->obb[y];
        kcbp_vec3 u = {o->axes.m[2][0], o->axes.m[2][1], o->axes.m[2][2]};
        double mid = kcbp_v3_dot(u, o->center), off;
        kcbp_vec3 n = slab_to_other(c, s_is_b, u, &off);
        c->box_pairs++;
        if (mesh_beyond_slab(c, s_is_b ? c->a : c->b, n, mid - o->extent.z + off, mid + o->extent.z + off, need))
            continue;
        if (!nd->count) {
            stack[top++] = nd->first + 1;
            stack[top++] = nd->first;
            continue;
        }
        bool live = false;
        for (uint32_t i = 0; i < nd->count && !live; i++)
            live = !tri_beyond(c, s_is_b, nd->first + i, need);
        if (!live)
            continue;
        size_t ptop = 0;
        pairs[ptop++] = (node_pair){s_is_b ? 0 : y, s_is_b ? y : 0, 0};
        descend(c, pairs, &ptop, -tie, UINT64_MAX, s_is_b ? 2 : 1);
    }
}

void kcbp_tree_distance(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                        const kcbp_tree_distance_query *q, kcbp_tree_distance_result *r)
{
    /* best.d is the running upper bound. Depth-first, nearer child pair
     * first (as FCL's distance traversal). */
    dist_ctx c = {a, b, b_in_a, q->limit, 0, q->stop > 0 ? q->stop : 0, 0, {INFINITY, {0, 0, 0}, {0, 0, 0}, 0, 0},
                  0, 0};
    /* The tolerance of every pruning bound (see the top of the file):
     * kcbp_tri_distance's error, KCBP_TRI_DIST_REL_ERR of the coordinates
     * (at most sqrt(3) scale in A's frame), and the bounds' rounding (a few
     * dozen ulps of the scale), with room to spare. */
    c.tol = 4 * KCBP_TRI_DIST_REL_ERR * q->scale;
    /* The rounding of a support over a whole mesh: dot products of the
     * vertices (either frame) with a moved normal, and the offset. */
    {
        double m = kcbp_v3_max_abs(b_in_a->trans);
        for (int s = 0; s < 2; s++) {
            const kcbp_aabb_node *root = &(s ? b : a)->vnodes[0];
            m += kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(root->center), root->extent));
        }
        c.rnd = 256 * DBL_EPSILON * (m + q->scale);
    }
    /* First upper bounds: the hinted pair (the last closest pair of a
     * trajectory), then the triangles nearest the seeds (found by a greedy
     * dive in each tree). */
    if (q->hinted) {
        kcbp_vec3 tb[3];
        for (int k = 0; k < 3; k++)
            tb[k] = kcbp_pose_apply(b_in_a, q->hint_b[k]);
        kcbp_tri_face fa = kcbp_tri_face_of(q->hint_a), fb = kcbp_tri_face_of(tb);
        offer(&c.best, q->hint_a, &fa, tb, &fb, q->hint_tri_a, q->hint_tri_b, c.limit);
        c.tri_pairs++;
    }
    if (q->seeded) {
        uint32_t sa = dive(a, q->seed_a), sb = dive(b, q->seed_b);
        kcbp_vec3 tb[3];
        for (int k = 0; k < 3; k++)
            tb[k] = kcbp_pose_apply(b_in_a, b->tri_verts[sb][k]);
        kcbp_tri_face fb = kcbp_tri_face_of(tb);
        offer(&c.best, a->tri_verts[sa], &a->tri_face[sa], tb, &fb, a->tri_ids[sa], b->tri_ids[sb], c.limit);
        c.tri_pairs++;
    }
    node_pair stack[DIST_STACK];
    size_t top = 0;
    {
        b_in_a_frame fb = b_node_in_a(b_in_a, &b->obb[0]);
        double key;
        stack[top++] = (node_pair){0, 0, child_a_lower(&fb, &a->obb[0], &b->obb[0], true, INFINITY, &key)};
    }
    c.box_pairs++;
    /* The first stage: pairs pruned only when strictly farther than the
     * best (the smallest kcbp_tri_distance, bit for bit), within a budget
     * of work linear in the meshes' sizes. Nested surfaces at a constant
     * clearance (a drill tip in the conical bottom of its hole, coaxial
     * fans) have a great many pairs at the smallest distance, or within
     * rounding of it, and boxes that cannot tell them apart (a fan's apex
     * is in every leaf): past the budget, when most triangles of one side
     * (a sample) have the whole other mesh beyond their planes at the best
     * distance less the tie tolerance, the second stage (sweep) takes
     * over; otherwise the first goes on to the end. */
    uint64_t budget = 2 * ((uint64_t)a->nnodes + b->nnodes) + 4096;
    if (descend_plain(&c, stack, &top, c.tol, budget)) {
        /* (before the sweep's test too: a tilted or shifted cone's better
         * pair lets the sweep drop more) */
        probe_vertices(&c, false);
        probe_vertices(&c, true);
        /* pairs within tie of the best may be dropped: the distance found
         * is then within KCBP_TRI_DIST_REL_ERR * scale of the smallest */
        const double tie = KCBP_TRI_DIST_REL_ERR * q->scale - c.rnd;
        uint32_t nb_t = 0, na_t = 0, kb = 0, ka = 0;
        if (tie > 0 && isfinite(c.best.d)) {
            kb = sample_beyond(&c, true, c.best.d - tie, &nb_t);
            ka = sample_beyond(&c, false, c.best.d - tie, &na_t);
        }
        if (kb >= ka && kb == nb_t && kb > 0)
            sweep(&c, true, tie);
        else if (ka > 0 && ka == na_t)
            sweep(&c, false, tie);
        else {
            /* The rest with the fans' bounds (ties within tie dropped, as
             * in the sweep), down first the side whose
             * triangles' planes have more of the other mesh beyond them
             * (a sample), at half the best distance: a hole's facets
             * around the tool, not the tool's, whose planes cut the
             * hole. */
            uint32_t hb = 0, ha = 0;
            if (isfinite(c.best.d)) {
                hb = sample_beyond(&c, true, 0.5 * c.best.d, &nb_t);
                ha = sample_beyond(&c, false, 0.5 * c.best.d, &na_t);
            }
            descend(&c, stack, &top, tie > 0 ? -tie : c.tol, UINT64_MAX, hb > ha ? 2 : 1);
        }
    }
    r->stats.box_pairs = c.box_pairs;
    r->stats.tri_pairs = c.tri_pairs;
    r->found = c.best.d <= c.limit;
    r->distance = c.best.d;
    r->point_a = c.best.pa;
    r->point_b = c.best.pb;
    r->tri_a = c.best.ta;
    r->tri_b = c.best.tb;
}
