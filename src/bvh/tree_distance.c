/* The distance traversal of two AABB trees (aabb_tree.h,
 * kcbp_tree_distance): depth-first with a running upper bound, node pairs
 * bounded by their oriented boxes, triangle pairs by their slabs before
 * kcbp_tri_distance. kcbp_distance (src/query/distance.c) runs it after its
 * box and k-CBP stages. */
#include "aabb_tree.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <kcbp/distance.h>

enum { DIST_STACK = KCBP_TREE_DISTANCE_MAX_DEPTH + 2 };

/* The traversal's bounds are inlined into it (GCC keeps them out of line
 * on its own: that costs a call and spilled arguments per node pair). */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* The squared gap along the line through two boxes' centres, signed
 * (negative when they overlap along it): d, b's centre minus a's in a's box
 * frame, db the same in b's box frame, ea and eb their half-sizes. Its
 * positive part is a lower bound on the squared distance (|d| minus the two
 * boxes' half-widths along d: often the best single axis for boxes not side
 * by side), and needs no rotation between the boxes. */
HOT_INLINE double centre_gap2(kcbp_vec3 d, kcbp_vec3 db, kcbp_vec3 ea, kcbp_vec3 eb)
{
    double d2 = kcbp_v3_len2(d);
    double g = d2 - kcbp_v3_dot(kcbp_v3_abs(d), ea) - kcbp_v3_dot(kcbp_v3_abs(db), eb);
    return d2 > 0 ? g * fabs(g) / d2 : 0;
}

/* Row i of l against column j of r (tr false: l r) or row j of r (tr
 * true: l r^T), written out (GCC does not unroll the loops at -O2, and
 * their control was a third of the product's instructions). */
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

/* A lower bound on the squared distance between oriented boxes a and b
 * (kcbp_aabb_tree.obb), d b's centre minus a's in a's box frame, db the
 * same in b's box frame: the larger of centre_gap2 and the squared gaps
 * along each box's thinnest axis (its last: a node's triangles are a
 * surface patch, and the thin axis is near its normal), each box holding
 * its node's triangles. The thin-axis gaps need the last row and column of
 * the rotation from b's box frame to a's, m = l r (rt false) or l r^T (rt
 * true): 17 products, not the 27 of m and the 18 more of bounding each box
 * by the other's axis-aligned box in its frame (that bound, kept with
 * these, pruned 4-5 % more pairs and cost 10-15 % more instructions); and
 * they are skipped when the centre gap alone prunes the pair (it reaches
 * best2 or exceeds limit2). *key gets the order in which to visit a node's
 * two children (when the pair is not pruned): the squared distance between
 * the centres less the boxes' squared half-diagonals, so that near pairs
 * and large boxes come first. Ordering by the bound instead (the signed
 * centre gap where it is 0, as many near pairs are) made 4-17 % more
 * instructions on the bench pairs: near contact most bounds are 0 and say
 * little about where the closest triangles are. */
HOT_INLINE double obb_dist2(kcbp_vec3 d, kcbp_vec3 db, const kcbp_mat3 *l, const kcbp_mat3 *r, const bool rt,
                            const kcbp_obb *a, const kcbp_obb *b, double best2, double limit2, double *key)
{
    double s3 = centre_gap2(d, db, a->extent, b->extent);
    if (s3 >= best2 || s3 > limit2) {
        *key = s3;
        return s3;
    }
#define E(i, j) (rt ? r->m[j][i] : r->m[i][j])
#define M(i, j) (l->m[i][0] * E(0, j) + l->m[i][1] * E(1, j) + l->m[i][2] * E(2, j))
    double m20 = fabs(M(2, 0)), m21 = fabs(M(2, 1)), m22 = fabs(M(2, 2)), m02 = fabs(M(0, 2)), m12 = fabs(M(1, 2));
#undef M
#undef E
    double ga = fabs(d.z) - a->extent.z - (m20 * b->extent.x + m21 * b->extent.y + m22 * b->extent.z);
    double gb = fabs(db.z) - b->extent.z - (m02 * a->extent.x + m12 * a->extent.y + m22 * a->extent.z);
    double g = ga > gb ? ga : gb;
    double lb = g > 0 ? g * g : 0;
    lb = lb > s3 ? lb : s3;
    *key = kcbp_v3_len2(d) - kcbp_v3_len2(a->extent) - kcbp_v3_len2(b->extent);
    return lb;
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

HOT_INLINE double child_a_dist2(const b_in_a_frame *f, const kcbp_obb *a, const kcbp_obb *b, double best2,
                                   double limit2, double *key)
{
    kcbp_vec3 dm = kcbp_v3_sub(f->c, a->center); /* in A's frame */
    return obb_dist2(kcbp_mat3_mul_v3(&a->axes, dm), kcbp_mat3_tmul_v3(&f->w, dm), &a->axes, &f->w, false, a, b, best2,
                     limit2, key);
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

HOT_INLINE double child_b_dist2(const a_in_b_frame *f, const kcbp_obb *a, const kcbp_obb *b, double best2,
                                   double limit2, double *key)
{
    return obb_dist2(kcbp_v3_add(kcbp_mat3_mul_v3(&f->v, b->center), f->p),
                     kcbp_mat3_mul_v3(&b->axes, kcbp_v3_sub(b->center, f->c)), &f->v, &b->axes, true, a, b, best2,
                     limit2, key);
}

/* A cheap lower bound on the squared distance of two triangles: their gap
 * along the line through their centroids (0 when they overlap there), to
 * skip most of the triangle pairs a leaf pair brings that cannot beat the
 * best distance found. */
static inline double tri_gap2(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    kcbp_vec3 u = kcbp_v3_sub(kcbp_v3_add(kcbp_v3_add(b[0], b[1]), b[2]), kcbp_v3_add(kcbp_v3_add(a[0], a[1]), a[2]));
    double a0 = kcbp_v3_dot(a[0], u), a1 = kcbp_v3_dot(a[1], u), a2 = kcbp_v3_dot(a[2], u);
    double b0 = kcbp_v3_dot(b[0], u), b1 = kcbp_v3_dot(b[1], u), b2 = kcbp_v3_dot(b[2], u);
    double bmin = b0 < b1 ? b0 : b1, amax = a0 > a1 ? a0 : a1;
    bmin = b2 < bmin ? b2 : bmin;
    amax = a2 > amax ? a2 : amax;
    double g = bmin - amax; /* (no fmin/fmax: a library call each without -ffinite-math) */
    double u2 = kcbp_v3_len2(u);
    /* The gap is rounded: keep a relative margin below it. */
    return g > 0 && u2 > 0 ? g * g / u2 * (1 - 1e-9) : 0;
}

/* How far triangle v lies beyond slab (n, lo, hi) (a kcbp_tri_slab, which
 * holds the other triangle), less tol (the rounding of the dot products
 * and of moving the slab); <= 0 when it meets the slab. A lower bound on
 * the two triangles' distance. */
static inline double slab_gap(kcbp_vec3 n, double lo, double hi, const kcbp_vec3 v[3], double tol)
{
    double d0 = kcbp_v3_dot(n, v[0]), d1 = kcbp_v3_dot(n, v[1]), d2 = kcbp_v3_dot(n, v[2]);
    double mn = d0 < d1 ? d0 : d1, mx = d0 > d1 ? d0 : d1;
    mn = d2 < mn ? d2 : mn;
    mx = d2 > mx ? d2 : mx;
    double g = mn - hi > lo - mx ? mn - hi : lo - mx;
    return g - tol;
}

static inline double node_size(const kcbp_obb *o) { return o->extent.x + o->extent.y + o->extent.z; }

typedef struct {
    uint32_t a, b;
    double lb2;
} node_pair;

/* The slot of a triangle near point p: down the tree, always into the
 * child whose box is nearer p. */
static uint32_t dive(const kcbp_aabb_tree *t, kcbp_vec3 p)
{
    const kcbp_aabb_node *n = &t->nodes[0];
    while (!n->count) {
        const kcbp_aabb_node *c0 = &t->nodes[n->first], *c1 = c0 + 1;
        double d0 = 0, d1 = 0;
        kcbp_vec3 u0 = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, c0->center)), c0->extent);
        kcbp_vec3 u1 = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, c1->center)), c1->extent);
        d0 = kcbp_v3_len2(kcbp_v3_max(u0, kcbp_v3(0, 0, 0)));
        d1 = kcbp_v3_len2(kcbp_v3_max(u1, kcbp_v3(0, 0, 0)));
        n = d1 < d0 ? c1 : c0;
    }
    return n->first;
}

void kcbp_tree_distance(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                        const kcbp_tree_distance_query *q, kcbp_tree_distance_result *r)
{
    /* best2 is the running upper bound (squared); a node pair is kept only
     * while its box distance is below it and, with a limit, not above the
     * limit. Depth-first, nearer child pair first (as FCL's distance
     * traversal). */
    double limit = q->limit, best2 = INFINITY, best = INFINITY, limit2 = isfinite(limit) ? limit * limit : INFINITY;
    /* The proven lower bound, squared: once the best triangle distance is
     * down to it, nothing can be nearer. */
    double stop2 = q->stop > 0 ? q->stop * q->stop : 0;
    kcbp_vec3 best_pa = {0, 0, 0}, best_pb = {0, 0, 0};
    uint32_t best_ta = 0, best_tb = 0;
    uint64_t box_pairs = 0, tri_pairs = 0;
    if (q->seeded) {
        /* A first upper bound: the triangles nearest the seeds (found by a
         * greedy dive in each tree). */
        uint32_t sa = dive(a, q->seed_a), sb = dive(b, q->seed_b);
        kcbp_vec3 tb[3], pa, pb;
        for (int k = 0; k < 3; k++)
            tb[k] = kcbp_pose_apply(b_in_a, b->tri_verts[sb][k]);
        double d = kcbp_tri_distance(a->tri_verts[sa], tb, &pa, &pb);
        tri_pairs++;
        if (d <= limit) {
            best = d;
            best2 = d * d;
            best_pa = pa;
            best_pb = pb;
            best_ta = a->tri_ids[sa];
            best_tb = b->tri_ids[sb];
        }
    }
    /* The rounding of a triangle pair's slab bounds (slab_gap): dot
     * products of unit normals with vertices within scale of the origin,
     * and B's slab moved into A's frame, each a few u of the scale. */
    const double tri_tol = 64 * DBL_EPSILON * q->scale;
    node_pair stack[DIST_STACK];
    size_t top = 0;
    const kcbp_obb *oa = a->obb, *ob = b->obb;
    {
        b_in_a_frame fb = b_node_in_a(b_in_a, &ob[0]);
        double key;
        stack[top++] = (node_pair){0, 0, child_a_dist2(&fb, &oa[0], &ob[0], INFINITY, INFINITY, &key)};
    }
    box_pairs++;
    /* The frame of the node that stays while the other's children are
     * bounded, kept for the next expansions with the same node (depth-first
     * often descends the other tree again below it). */
    b_in_a_frame fb;
    a_in_b_frame fa;
    uint32_t fb_node = UINT32_MAX, fa_node = UINT32_MAX;
    while (top > 0) {
        node_pair p = stack[--top];
        if (p.lb2 >= best2 || p.lb2 > limit2)
            continue;
        const kcbp_aabb_node *na = &a->nodes[p.a], *nb = &b->nodes[p.b];
        if (na->count && nb->count) {
            kcbp_vec3 tb[KCBP_AABB_LEAF_MAX][3];
            for (uint32_t j = 0; j < nb->count; j++)
                for (int k = 0; k < 3; k++)
                    tb[j][k] = kcbp_pose_apply(b_in_a, b->tri_verts[nb->first + j][k]);
            for (uint32_t i = 0; i < na->count; i++)
                for (uint32_t j = 0; j < nb->count; j++) {
                    kcbp_vec3 pa, pb;
                    const kcbp_vec3 *ta = a->tri_verts[na->first + i];
                    double g2 = tri_gap2(ta, tb[j]);
                    if (g2 >= best2 || g2 > limit2)
                        continue;
                    /* Then each triangle's slab (along its normal): b
                     * beyond a's, a beyond b's (moved into A's frame). */
                    const kcbp_tri_slab *sa = &a->tri_slab[na->first + i], *sb = &b->tri_slab[nb->first + j];
                    double g = slab_gap(sa->n, sa->lo, sa->hi, tb[j], tri_tol);
                    if (g > 0 && (g * g >= best2 || g * g > limit2))
                        continue;
                    kcbp_vec3 n = kcbp_mat3_mul_v3(&b_in_a->rot, sb->n);
                    double off = kcbp_v3_dot(n, b_in_a->trans);
                    g = slab_gap(n, sb->lo + off, sb->hi + off, ta, tri_tol);
                    if (g > 0 && (g * g >= best2 || g * g > limit2))
                        continue;
                    tri_pairs++;
                    double d = kcbp_tri_distance(ta, tb[j], &pa, &pb);
                    if (d * d < best2) {
                        best = d;
                        best2 = d * d;
                        best_pa = pa;
                        best_pb = pb;
                        best_ta = a->tri_ids[na->first + i];
                        best_tb = b->tri_ids[nb->first + j];
                    }
                }
            if (best2 == 0 || best2 <= stop2)
                break;
            continue;
        }
        /* Descend the larger box (both sides shrink together); push the
         * farther child first so that the nearer one is searched first. */
        bool down_a = nb->count || (!na->count && node_size(&oa[p.a]) >= node_size(&ob[p.b]));
        uint32_t first = down_a ? na->first : nb->first;
        node_pair c0 = {down_a ? first : p.a, down_a ? p.b : first, 0};
        node_pair c1 = {down_a ? first + 1 : p.a, down_a ? p.b : first + 1, 0};
        double k0, k1;
        if (down_a) {
            if (fb_node != p.b) {
                fb = b_node_in_a(b_in_a, &ob[p.b]);
                fb_node = p.b;
            }
            c0.lb2 = child_a_dist2(&fb, &oa[first], &ob[p.b], best2, limit2, &k0);
            c1.lb2 = child_a_dist2(&fb, &oa[first + 1], &ob[p.b], best2, limit2, &k1);
        } else {
            if (fa_node != p.a) {
                fa = a_node_in_b(b_in_a, &oa[p.a]);
                fa_node = p.a;
            }
            c0.lb2 = child_b_dist2(&fa, &oa[p.a], &ob[first], best2, limit2, &k0);
            c1.lb2 = child_b_dist2(&fa, &oa[p.a], &ob[first + 1], best2, limit2, &k1);
        }
        box_pairs += 2;
        if (k1 < k0) {
            node_pair t = c0;
            c0 = c1;
            c1 = t;
        }
        if (c1.lb2 < best2 && c1.lb2 <= limit2)
            stack[top++] = c1;
        if (c0.lb2 < best2 && c0.lb2 <= limit2)
            stack[top++] = c0;
    }
    r->stats.box_pairs = box_pairs;
    r->stats.tri_pairs = tri_pairs;
    r->found = best <= limit;
    r->distance = best;
    r->point_a = best_pa;
    r->point_b = best_pb;
    r->tri_a = best_ta;
    r->tri_b = best_tb;
}
