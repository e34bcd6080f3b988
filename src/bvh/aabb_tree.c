/* The simultaneous traversal of two trees for collision (aabb_tree.h,
 * kcbp_aabb_tree_collide): each node pair tested first by the nodes'
 * axis-aligned boxes on their six face axes (one box moved into the
 * other's frame, Arvo), then, when those do not separate it, by the
 * separating-axis test of the nodes' oriented boxes on all fifteen axes
 * (Gottschalk, Lin, Manocha, "OBBTree", SIGGRAPH 1996); two whole fans
 * whose shared vertices face each other by the gap along the line through
 * them or the fans' axes (fan_gap.h); leaves by their triangles' slabs and
 * the exact triangle test. The build is in tree_build.c. */
#include "aabb_tree.h"
#include "fan_gap.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "base/util.h"

enum { STACK_PER_TREE = KCBP_TREE_MAX_DEPTH };

/* The traversal's helpers are inlined into each of its versions (see
 * traverse), which GCC stops doing on its own once there are several. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* The relative pose and its absolute rotation, shared by every node pair. */
typedef struct {
    kcbp_mat3 r, abs_r;
    kcbp_vec3 t;
    double eps;
} frame_b_in_a;

/* A node's box carried into the other tree's frame: its centre there and
 * its half-sizes along that frame's axes (|R| times its own, Arvo). */
typedef struct {
    kcbp_vec3 c, r;
} moved_box;

HOT_INLINE moved_box move_b_into_a(const frame_b_in_a *f, const kcbp_aabb_node *b)
{
    moved_box m = {kcbp_v3_add(kcbp_mat3_mul_v3(&f->r, b->center), f->t), kcbp_mat3_mul_v3(&f->abs_r, b->extent)};
    return m;
}

HOT_INLINE moved_box move_a_into_b(const frame_b_in_a *f, const kcbp_aabb_node *a)
{
    moved_box m = {kcbp_mat3_tmul_v3(&f->r, kcbp_v3_sub(a->center, f->t)), kcbp_mat3_tmul_v3(&f->abs_r, a->extent)};
    return m;
}

/* Whether box n, in its own frame, and the box moved into that frame lie
 * more than eps apart along one of the frame's three axes. Together the
 * two frames' six face axes make the separating-axis test of two boxes
 * without the nine edge-edge axes: conservative (it may keep a separated
 * pair, never drops a touching one; rounding in moving a box is far below
 * eps), and the leaves settle the rest. */
HOT_INLINE bool apart_on_axes(const kcbp_aabb_node *n, moved_box m, double eps)
{
    kcbp_vec3 d = kcbp_v3_sub(m.c, n->center);
    return fabs(d.x) > n->extent.x + m.r.x + eps || fabs(d.y) > n->extent.y + m.r.y + eps ||
           fabs(d.z) > n->extent.z + m.r.z + eps;
}

/* The margin of slab_apart in one traversal: eps (the padding that covers
 * the rounding of moving a box, as in the box tests) plus the rounding
 * of projecting a box on n: n.c +- |m|.e with n and m = R^T n (or R n)
 * unit is off by at most 8u (|n|.|c| + 2 |m|.e) <= 8u 3 sqrt(3) size,
 * size bounding every moved box's |c| and half-sizes in both frames (each
 * is inside its root's), and m's own rounding (3u per component) a further
 * 3u sqrt(3) size at most: 64u size covers both. */
/* fmax (a NaN loses to a number) without the call to libm's, which a
 * traversal of a few node pairs felt. */
static inline double max_of(double a, double b) { return b > a || a != a ? b : a; }

/* max over the coordinates of |c| + e */
static inline double reach_of(kcbp_vec3 c, kcbp_vec3 e)
{
    return max_of(max_of(fabs(fabs(c.x) + e.x), fabs(fabs(c.y) + e.y)), fabs(fabs(c.z) + e.z));
}

static double slab_tolerance(double eps, moved_box a_root_in_b, moved_box b_root_in_a, const kcbp_aabb_node *ra,
                             const kcbp_aabb_node *rb)
{
    double size = max_of(max_of(reach_of(ra->center, ra->extent), reach_of(rb->center, rb->extent)),
                         max_of(reach_of(a_root_in_b.c, a_root_in_b.r), reach_of(b_root_in_a.c, b_root_in_a.r)));
    return eps + 64 * DBL_EPSILON * size;
}

/* Whether an oriented box lies more than tol beyond the slab (see
 * slab_tolerance): its centre c in the slab's frame, its half-sizes e
 * along its own axes, and axes_n the slab's normal in the box's own frame
 * (so that the box reaches |axes_n|.e either side of n.c: tighter than the
 * box's axis-aligned bounds in the slab's frame, |n|.|R|e). */
HOT_INLINE bool slab_apart(const kcbp_tri_slab *s, kcbp_vec3 c, kcbp_vec3 axes_n, kcbp_vec3 e, double tol)
{
    double cc = kcbp_v3_dot(s->n, c), r = kcbp_v3_dot(kcbp_v3_abs(axes_n), e);
    return cc - r > s->hi + tol || cc + r < s->lo - tol;
}

/* Bit i set: triangle i of the leaf (slot first + i) comes within tol of
 * the other node's oriented box (centre c in the leaf's frame, half-sizes e
 * along its own axes, which are the rows of rot in the leaf's frame: rot
 * is R for A's leaf, R^T for B's), as far as its slab tells. */
HOT_INLINE uint32_t leaf_near(const kcbp_tri_slab *slabs, const kcbp_aabb_node *leaf, kcbp_vec3 c, kcbp_vec3 e,
                              const kcbp_mat3 *r, bool transpose, double tol)
{
    uint32_t mask = 0;
    for (uint32_t i = 0; i < leaf->count; i++) {
        const kcbp_tri_slab *sl = &slabs[leaf->first + i];
        kcbp_vec3 axes_n = transpose ? kcbp_mat3_tmul_v3(r, sl->n) : kcbp_mat3_mul_v3(r, sl->n);
        mask |= (uint32_t)!slab_apart(sl, c, axes_n, e, tol) << i;
    }
    return mask;
}

/* Whether triangle t (its vertices in the slab's frame, as the exact test
 * takes them) lies more than tol beyond the slab (see slab_tolerance) on
 * one side: then it cannot meet the slab's triangle, and the exact test,
 * which would say so too, is not needed (a few products in place of its
 * planes and predicates). */
HOT_INLINE bool tri_beyond_slab(const kcbp_tri_slab *s, const kcbp_vec3 t[3], double tol)
{
    double d0 = kcbp_v3_dot(s->n, t[0]), d1 = kcbp_v3_dot(s->n, t[1]), d2 = kcbp_v3_dot(s->n, t[2]);
    double hi = s->hi + tol, lo = s->lo - tol;
    return (d0 > hi && d1 > hi && d2 > hi) || (d0 < lo && d1 < lo && d2 < lo);
}

HOT_INLINE double node_size(const kcbp_aabb_node *n) { return n->extent.x + n->extent.y + n->extent.z; }

/* ---- oriented boxes ------------------------------------------------------ */

/* The separating-axis test of two oriented boxes, a's half-sizes ea and
 * b's eb, from c (c[i][j] = a's axis i . b's axis j, both in one frame) and
 * t (b's centre minus a's, along a's axes): true when they lie more than
 * eps apart along one of the fifteen axes (a's three, b's three, the nine
 * cross products of one of each). The thinnest axes (the last, near the
 * normals of the nodes' surface patches) come first: they separate nearby
 * patches most often.
 *
 * Conservative: any axis that separates the projections proves the boxes
 * apart (for any vectors as axes, orthonormal or not), so the test can only
 * err by rounding, which eps covers: every quantity compared is a sum of a
 * few products of numbers bounded by the pair's scale S (centres, half
 * sizes) and of c's entries (at most 1 + u), so its rounding is within
 * ~50u S (u = 2^-53), far below eps (kcbp_pair_tolerance: 1e-10 S); so is
 * the boxes' departure from orthonormal frames (a few u) in the cross
 * product axes' formulas, and the rounding of moving B's box into A's
 * frame against moving B's vertices (kcbp_pose_apply, ~u S). An axis
 * a_i x b_j of nearly parallel a_i and b_j is ~0: both sides of its
 * comparison are then ~0 too, and eps keeps it from separating. */
HOT_INLINE bool sat_apart(const double c[3][3], kcbp_vec3 t, kcbp_vec3 ea, kcbp_vec3 eb, double eps)
{
    /* (written out: GCC -O2 leaves these 3 x 3 loops rolled) */
    const double ac[3][3] = {{fabs(c[0][0]), fabs(c[0][1]), fabs(c[0][2])},
                             {fabs(c[1][0]), fabs(c[1][1]), fabs(c[1][2])},
                             {fabs(c[2][0]), fabs(c[2][1]), fabs(c[2][2])}};
    const double a0 = ea.x, a1 = ea.y, a2 = ea.z, b0 = eb.x, b1 = eb.y, b2 = eb.z;
    const double t0 = t.x, t1 = t.y, t2 = t.z;
    /* a's thinnest axis, then b's */
    if (fabs(t2) > a2 + b0 * ac[2][0] + b1 * ac[2][1] + b2 * ac[2][2] + eps)
        return true;
    if (fabs(t0 * c[0][2] + t1 * c[1][2] + t2 * c[2][2]) > b2 + a0 * ac[0][2] + a1 * ac[1][2] + a2 * ac[2][2] + eps)
        return true;
    if (fabs(t0) > a0 + b0 * ac[0][0] + b1 * ac[0][1] + b2 * ac[0][2] + eps)
        return true;
    if (fabs(t1) > a1 + b0 * ac[1][0] + b1 * ac[1][1] + b2 * ac[1][2] + eps)
        return true;
    if (fabs(t0 * c[0][0] + t1 * c[1][0] + t2 * c[2][0]) > b0 + a0 * ac[0][0] + a1 * ac[1][0] + a2 * ac[2][0] + eps)
        return true;
    if (fabs(t0 * c[0][1] + t1 * c[1][1] + t2 * c[2][1]) > b1 + a0 * ac[0][1] + a1 * ac[1][1] + a2 * ac[2][1] + eps)
        return true;
    /* a_i x b_j: t . (a_i x b_j) = t_{i2} c_{i1 j} - t_{i1} c_{i2 j}, (i, i1, i2) cyclic */
#define CROSS(i, i1, i2, j, j1, j2, ai1, ai2, bj1, bj2)                                                                  \
    if (fabs(t##i2 * c[i1][j] - t##i1 * c[i2][j]) >                                                                    \
        ai1 * ac[i2][j] + ai2 * ac[i1][j] + bj1 * ac[i][j2] + bj2 * ac[i][j1] + eps)                                   \
        return true;
    CROSS(2, 0, 1, 2, 0, 1, a0, a1, b0, b1)
    CROSS(2, 0, 1, 0, 1, 2, a0, a1, b1, b2)
    CROSS(2, 0, 1, 1, 2, 0, a0, a1, b2, b0)
    CROSS(0, 1, 2, 2, 0, 1, a1, a2, b0, b1)
    CROSS(1, 2, 0, 2, 0, 1, a2, a0, b0, b1)
    CROSS(0, 1, 2, 0, 1, 2, a1, a2, b1, b2)
    CROSS(0, 1, 2, 1, 2, 0, a1, a2, b2, b0)
    CROSS(1, 2, 0, 0, 1, 2, a2, a0, b1, b2)
    CROSS(1, 2, 0, 1, 2, 0, a2, a0, b2, b0)
#undef CROSS
    return false;
}

/* B's node's oriented box in A's frame: its axes as the columns of w, its
 * centre c (kept while A's side is descended below it). */
typedef struct {
    kcbp_mat3 w;
    kcbp_vec3 c;
} obb_b_in_a;

/* A's node's oriented box seen from B's frame: v = a's axes times R (rows:
 * a's axes in B's frame) and p = a's axes times (t - a's centre), so that
 * b's centre along a's axes is v cb + p. */
typedef struct {
    kcbp_mat3 v;
    kcbp_vec3 p;
} obb_a_in_b;

HOT_INLINE obb_b_in_a obb_b_into_a(const frame_b_in_a *f, const kcbp_obb *b)
{
    obb_b_in_a m;
#define W(i, j) m.w.m[i][j] = f->r.m[i][0] * b->axes.m[j][0] + f->r.m[i][1] * b->axes.m[j][1] + f->r.m[i][2] * b->axes.m[j][2]
    W(0, 0); W(0, 1); W(0, 2); W(1, 0); W(1, 1); W(1, 2); W(2, 0); W(2, 1); W(2, 2);
#undef W
    m.c = kcbp_v3_add(kcbp_mat3_mul_v3(&f->r, b->center), f->t);
    return m;
}

HOT_INLINE obb_a_in_b obb_a_into_b(const frame_b_in_a *f, const kcbp_obb *a)
{
    obb_a_in_b m;
#define V(i, j) m.v.m[i][j] = a->axes.m[i][0] * f->r.m[0][j] + a->axes.m[i][1] * f->r.m[1][j] + a->axes.m[i][2] * f->r.m[2][j]
    V(0, 0); V(0, 1); V(0, 2); V(1, 0); V(1, 1); V(1, 2); V(2, 0); V(2, 1); V(2, 2);
#undef V
    m.p = kcbp_mat3_mul_v3(&a->axes, kcbp_v3_sub(f->t, a->center));
    return m;
}

/* The test from B's box in A's frame. */
HOT_INLINE bool obb_apart_b(const obb_b_in_a *m, const kcbp_obb *a, const kcbp_obb *b, double eps)
{
    double c[3][3];
#define C(i, j) c[i][j] = a->axes.m[i][0] * m->w.m[0][j] + a->axes.m[i][1] * m->w.m[1][j] + a->axes.m[i][2] * m->w.m[2][j]
    C(0, 0); C(0, 1); C(0, 2); C(1, 0); C(1, 1); C(1, 2); C(2, 0); C(2, 1); C(2, 2);
#undef C
    kcbp_vec3 t = kcbp_mat3_mul_v3(&a->axes, kcbp_v3_sub(m->c, a->center));
    return sat_apart(c, t, a->extent, b->extent, eps);
}

/* The test from A's box seen in B's frame. */
HOT_INLINE bool obb_apart_a(const obb_a_in_b *m, const kcbp_obb *a, const kcbp_obb *b, double eps)
{
    double c[3][3];
#define C(i, j) c[i][j] = m->v.m[i][0] * b->axes.m[j][0] + m->v.m[i][1] * b->axes.m[j][1] + m->v.m[i][2] * b->axes.m[j][2]
    C(0, 0); C(0, 1); C(0, 2); C(1, 0); C(1, 1); C(1, 2); C(2, 0); C(2, 1); C(2, 2);
#undef C
    kcbp_vec3 t = kcbp_v3_add(kcbp_mat3_mul_v3(&m->v, b->center), m->p);
    return sat_apart(c, t, a->extent, b->extent, eps);
}

/* How deep the moved box m reaches into box n on n's frame's three axes:
 * the product of the three depths, each how far m would have to move
 * along the axis to clear n (an ordering score only: two negative depths
 * make it positive, which misorders a pair the box test drops anyway). */
HOT_INLINE double overlap_depth(const kcbp_aabb_node *n, const moved_box *m)
{
    kcbp_vec3 d = kcbp_v3_sub(m->c, n->center);
    return (n->extent.x + m->r.x - fabs(d.x)) * (n->extent.y + m->r.y - fabs(d.y)) *
           (n->extent.z + m->r.z - fabs(d.z));
}

/* 1 when child first + 1 is to be visited first against m: among long
 * thin children (child first's box more than 8 times as long as it is
 * thin: the parent's KCBP_NODE_THIN_KIDS, from the build), the one that
 * overlaps m deeper, else the one whose centre is nearer m's. Long thin
 * boxes (the slivers of a fillet, issue 25's heatsink pair) cross each
 * other far from their centres: there the nearer centre leads into the
 * near misses of two strips of slivers, and the depth into the deep
 * crossings where contacts are. Gated on child first's shape alone so
 * that the usual case costs a flag test more than the centres. */
HOT_INLINE int first_child(const kcbp_aabb_node *nodes, uint32_t first, bool thin_kids, const moved_box *m)
{
    if (thin_kids)
        return overlap_depth(&nodes[first + 1], m) > overlap_depth(&nodes[first], m);
    return kcbp_v3_len2(kcbp_v3_sub(nodes[first + 1].center, m->c)) <
           kcbp_v3_len2(kcbp_v3_sub(nodes[first].center, m->c));
}

/* Whether fan nodes ia of a and ib of b (KCBP_NODE_FAN_BIG) are apart by the
 * fans' gap (traverse), tested only when their shared vertices lie within
 * 2^-16 of the nodes' reach of each other. Out of line: the traversal's
 * loop stays as lean as it was for the pairs that are not two fans. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool fans_apart(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, uint32_t ia, uint32_t ib,
                       const kcbp_pose *b_in_a, double fan_r)
{
    const kcbp_node_fan *af = &a->fan[a->fan_of[ia]], *bf = &b->fan[b->fan_of[ib]];
    kcbp_vec3 d = kcbp_v3_sub(kcbp_pose_apply(b_in_a, bf->apex), af->apex);
    double reach = kcbp_v3_max_abs(a->nodes[ia].extent) + kcbp_v3_max_abs(b->nodes[ib].extent);
    if (!(kcbp_v3_len2(d) < 0x1p-32 * reach * reach))
        return false;
    kcbp_fan_moved fa = kcbp_fan_own(af, &a->obb[ia]);
    kcbp_fan_moved fb = kcbp_fan_b_into_a(bf, &b->obb[ib], b_in_a);
    return kcbp_fan_pair_gap(&fa, &fb, fan_r) > 0;
}

/* The traversal, from the node pair start (A's, B's). `ordering` is a
 * constant at each call, so that the compiler makes a version without the
 * child ordering, which costs ~11 % of an exhaustive traversal and saves
 * nothing there. On a stop, stop[] gets the two leaves of the pair that
 * stopped it. */
HOT_INLINE bool traverse(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                         const uint32_t start[2], const bool ordering, kcbp_tri_pair_fn on_pair, void *ctx,
                         kcbp_tree_stats *stats, uint32_t stop[2], uint32_t first_tested[2], const uint32_t skip[2])
{
    frame_b_in_a f = {b_in_a->rot, b_in_a->rot, b_in_a->trans, eps};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f.abs_r.m[i][j] = fabs(f.r.m[i][j]);
    uint64_t box_pairs = 0, tri_pairs = 0;
    bool stopped = false;
    /* Depth-first: each step pops one pair and pushes at most two, one level
     * down in one tree, so the stack never holds more than the two depths.
     * An entry carries the box of the node that did not change, already
     * moved into the other frame: A's node in B's frame after a step down
     * B, B's node in A's frame after a step down A. So the pair is first
     * tested on the axes of the new node's frame, which needs no moving,
     * and the new node is moved only when those axes do not separate the
     * boxes (most separated pairs end there). */
    struct entry {
        uint32_t ia, ib;
        bool a_moved; /* box holds A's node in B's frame; else B's node in A's frame */
        moved_box box;
    } stack[2 * STACK_PER_TREE];
    size_t top = 0;
    stack[0].ia = start[0];
    stack[0].ib = start[1];
    stack[0].a_moved = false;
    stack[0].box = move_b_into_a(&f, &b->nodes[start[1]]);
    top++;
    const double slab_tol = slab_tolerance(eps, move_a_into_b(&f, &a->nodes[0]), move_b_into_a(&f, &b->nodes[0]),
                                           &a->nodes[0], &b->nodes[0]);
    obb_b_in_a ob_in_a;
    obb_a_in_b oa_in_b;
    uint32_t ob_node = UINT32_MAX, oa_node = UINT32_MAX;
    /* The rounding margin of the fans' gap (kcbp_fan_pair_gap): 256 ulps
     * (u = DBL_EPSILON / 2) of m, the coordinates' size in A's frame (the
     * translation plus both roots' reach, >= M, the largest coordinate of
     * a moved vertex). The computed gap differs from the exact gap of the
     * vertices the triangle tests see by at most about 50 u M: each of
     * the four dot products (the apex's and each box's support, the box
     * axes' projections) within ~10 u |u| M, hence ~10 u M once divided by
     * |u|; the moved fan (apex, box centres: pose_apply) and the moved
     * triangle vertices each within ~4 u (sqrt(3) M + |t|) of the exact
     * move; the boxes' centre-and-half-size form within ~u M of their
     * corners; the square root and the division a few u of the gap. */
    double fan_r;
    {
        double m = kcbp_v3_max_abs(b_in_a->trans);
        m += kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(a->nodes[0].center), a->nodes[0].extent));
        m += kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(b->nodes[0].center), b->nodes[0].extent));
        fan_r = 128 * DBL_EPSILON * m;
    }
    while (top > 0 && !stopped) {
        /* The entry is read in place: its slot is the first child's. */
        struct entry *e = &stack[--top];
        const uint32_t ia = e->ia, ib = e->ib;
        if (skip && ia == skip[0] && ib == skip[1]) /* searched already, none found */
            continue;
        const bool a_moved = e->a_moved;
        const kcbp_aabb_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
        moved_box fresh; /* the pair's other node, moved */
        box_pairs++;
        if (a_moved) {
            if (apart_on_axes(nb, e->box, eps))
                continue;
            fresh = move_b_into_a(&f, nb);
            if (apart_on_axes(na, fresh, eps))
                continue;
        } else {
            if (apart_on_axes(na, e->box, eps))
                continue;
            fresh = move_a_into_b(&f, na);
            if (apart_on_axes(nb, fresh, eps))
                continue;
        }
        /* The oriented boxes, from the side of the node that stayed (its
         * box, moved, is kept for the next pairs with it). */
        if (!((a->flags[ia] | b->flags[ib]) & KCBP_NODE_TIGHT)) {
        } else if (a_moved) {
            if (oa_node != ia) {
                oa_in_b = obb_a_into_b(&f, &a->obb[ia]);
                oa_node = ia;
            }
            if (obb_apart_a(&oa_in_b, &a->obb[ia], &b->obb[ib], eps))
                continue;
        } else {
            if (ob_node != ib) {
                ob_in_a = obb_b_into_a(&f, &b->obb[ib]);
                ob_node = ib;
            }
            if (obb_apart_b(&ob_in_a, &a->obb[ia], &b->obb[ib], eps))
                continue;
        }
        /* Two whole fans whose shared vertices face each other within the
         * boxes' tolerance (two cones tip to tip, two half-discs
         * across a diameter a hair apart: every triangle pair holds both
         * vertices, and each would be tested): apart when the gap along
         * the line through the vertices or along either fan's axis
         * exceeds its rounding (fan_gap.h). The triangle tests are exact
         * on the moved vertices, which this gap bounds. Only for the
         * highest fan nodes around their vertices, of KCBP_FAN_BIG
         * triangles or more (KCBP_NODE_FAN_BIG: the whole cones, the
         * whole half-discs; the pair of them settles those cases at
         * once), whose vertices lie within 2^-16 of the nodes' reach of
         * each other (where the boxes cannot part the leaves around
         * them): cone against cone near contact paid 40 % more
         * instructions for the gap on every pair of fan nodes, a bunny
         * against itself 3 % for the vertices' test on every pair of its
         * small fans, and a cone tilted in a cone 30 % of its collide for
         * that test on every pair of the cones' wedges. */
        if ((a->flags[ia] & b->flags[ib] & KCBP_NODE_FAN_BIG) && fans_apart(a, b, ia, ib, b_in_a, fan_r))
            continue;
        const moved_box *ma = a_moved ? &e->box : &fresh, *mb = a_moved ? &fresh : &e->box;
        /* A leaf's triangles against the other node's box, each by its
         * slab: large slanted triangles fill little of their boxes. */
        uint32_t near_a = ~0u, near_b = ~0u;
        if (na->count && nb->count) {
            if (!(near_a = leaf_near(a->tri_slab, na, mb->c, nb->extent, &f.r, true, slab_tol)) ||
                !(near_b = leaf_near(b->tri_slab, nb, ma->c, na->extent, &f.r, false, slab_tol)))
                continue;
        } else if (na->count) {
            if (leaf_near(a->leaf_slab, &(kcbp_aabb_node){.first = ia, .count = 1}, mb->c, nb->extent, &f.r, true,
                          slab_tol) == 0)
                continue;
        } else if (nb->count) {
            if (leaf_near(b->leaf_slab, &(kcbp_aabb_node){.first = ib, .count = 1}, ma->c, na->extent, &f.r, false,
                          slab_tol) == 0)
                continue;
        }
        if (na->count && nb->count) {
            kcbp_vec3 tb[KCBP_AABB_LEAF_MAX][3];
            for (uint32_t j = 0; j < nb->count; j++)
                for (int k = 0; k < 3; k++)
                    tb[j][k] = kcbp_pose_apply(b_in_a, b->tri_verts[nb->first + j][k]);
            for (uint32_t i = 0; i < na->count && !stopped; i++)
                for (uint32_t j = 0; j < nb->count && !stopped; j++) {
                    if (!(near_a >> i & near_b >> j & 1u) ||
                        tri_beyond_slab(&a->tri_slab[na->first + i], tb[j], slab_tol))
                        continue;
                    if (first_tested && tri_pairs == 0) {
                        first_tested[0] = na->first + i;
                        first_tested[1] = nb->first + j;
                    }
                    tri_pairs++;
                    if (kcbp_tri_intersect(a->tri_verts[na->first + i], tb[j], eps))
                        stopped = !on_pair(ctx, a->tri_ids[na->first + i], b->tri_ids[nb->first + j]);
                }
            if (stopped && stop) {
                stop[0] = ia;
                stop[1] = ib;
            }
            continue;
        }
        /* Descend the larger box, so that both sides shrink together, and
         * visit first the child whose centre is nearer the other box's: a
         * contact, if any, lies where the boxes overlap, and for the first
         * contact (KCBP_CONTACTS_NONE, FIRST) this halves the work on the
         * thesis scene (issue 12: 303 node and 52 triangle pairs per
         * colliding pair before, 150 and 32 after); among long thin children,
         * the one that overlaps the other box deeper (first_child: issue
         * 25's heatsink pair, 7,357 node and 37,297 triangle pairs before
         * its first contact with the centres alone, 16 and 3 with it).
         * The order changes which contact is found first, not which
         * contacts exist. The other child is pushed first. */
        bool down_a = nb->count || (!na->count && node_size(na) >= node_size(nb));
        const kcbp_aabb_node *nodes = down_a ? a->nodes : b->nodes;
        uint32_t first = down_a ? na->first : nb->first;
        /* The node that stays is B's when descending A: its box in A's
         * frame is the carried one when A's node was the new one. */
        bool keep_carried = down_a != a_moved;
        const moved_box *keep = keep_carried ? &e->box : &fresh;
        bool thin_kids = (down_a ? a->flags[ia] : b->flags[ib]) & KCBP_NODE_THIN_KIDS;
        int near = ordering && first_child(nodes, first, thin_kids, keep);
        uint32_t c0 = first + !near, c1 = first + near;
        if (!keep_carried)
            stack[top].box = fresh;
        stack[top + 1].box = stack[top].box;
        stack[top].ia = stack[top + 1].ia = down_a ? 0 : ia;
        stack[top].ib = stack[top + 1].ib = down_a ? ib : 0;
        if (down_a) {
            stack[top].ia = c0;
            stack[top + 1].ia = c1;
        } else {
            stack[top].ib = c0;
            stack[top + 1].ib = c1;
        }
        stack[top].a_moved = stack[top + 1].a_moved = !down_a;
        top += 2;
    }
    stats->box_pairs += box_pairs;
    stats->tri_pairs += tri_pairs;
    return stopped;
}

static const uint32_t roots[2] = {0, 0};

/* The entry points' traversals. Those of the first-contact searches
 * (TRAVERSAL_BOTH) are compiled twice: for the x86-64 baseline (SSE2) and,
 * on x86-64 CPUs that have it, with AVX (chosen per call by
 * __builtin_cpu_supports, which reads what libgcc's start-up found: no
 * state of ours). The same operations in the same order, each rounded
 * once (the AVX target has no FMA to contract into, and the build passes
 * -ffp-contract=off), so the same numbers, decisions and order; AVX's
 * three-operand forms spare the register copies the two-operand SSE2 forms
 * need: with the triangle test's AVX version (tritri.c), 6 % of a small
 * static scene's instructions (bench/README.md, "Small scenes, fourth
 * pass"). `stop`, `first_tested` and `skip` are NULL constants where an
 * entry point has none, as `ordering` is a constant, so that each version
 * is specialised as the single one was. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__)
#define TRAVERSE_AVX 1
#define AVX_TARGET __attribute__((target("avx")))
/* GCC's clone of a version with the entry point's constants propagated
 * allocated its registers worse: 2.5 % more instructions on density-10. */
#if defined(__clang__)
#define NO_IPA __attribute__((noinline))
#else
#define NO_IPA __attribute__((noipa))
#endif
#else
#define TRAVERSE_AVX 0
#define AVX_TARGET
#endif

#define TRAVERSAL_PARAMS                                                                                           \
    const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps, const uint32_t start[2], \
        kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats, uint32_t stop[2], uint32_t first_tested[2],    \
        const uint32_t skip[2]
#define TRAVERSAL_ARGS a, b, b_in_a, eps, start, on_pair, ctx, stats, stop, first_tested, skip

/* name##_body(...): traverse with these constants. */
#define TRAVERSAL_BODY(name, ORDERING, STOP, FIRST, SKIP)                                                          \
    HOT_INLINE bool name##_body(TRAVERSAL_PARAMS)                                                                  \
    {                                                                                                              \
        (void)stop, (void)first_tested, (void)skip;                                                                \
        return traverse(a, b, b_in_a, eps, start, ORDERING, on_pair, ctx, stats, STOP, FIRST, SKIP);               \
    }

/* name(...): the body in the baseline version only. */
#define TRAVERSAL(name, ORDERING, STOP, FIRST, SKIP)                                                               \
    TRAVERSAL_BODY(name, ORDERING, STOP, FIRST, SKIP)                                                              \
    static bool name(TRAVERSAL_PARAMS) { return name##_body(TRAVERSAL_ARGS); }

/* The same in both versions: for the searches of kcbp_collide's default
 * contacts (the first, or none), which scenes and pose streams make (the
 * other entry points stay single: each version is 12-16 KB of code). Both
 * out of line: the traversal's stack (12 KB) inlined into the entry point
 * would sit above the other version's, and a first frame touching that
 * much more stack paid page faults for it (2-3 more in cad-10's one frame,
 * ~3 us each, more than its instructions saved). */
#if TRAVERSE_AVX
#define TRAVERSAL_BOTH(name, ORDERING, STOP, FIRST, SKIP)                                                          \
    TRAVERSAL_BODY(name, ORDERING, STOP, FIRST, SKIP)                                                              \
    AVX_TARGET NO_IPA static bool name##_avx(TRAVERSAL_PARAMS) { return name##_body(TRAVERSAL_ARGS); }            \
    NO_IPA static bool name##_sse2(TRAVERSAL_PARAMS) { return name##_body(TRAVERSAL_ARGS); }                      \
    static bool name(TRAVERSAL_PARAMS)                                                                           \
    {                                                                                                              \
        if (__builtin_cpu_supports("avx"))                                                                         \
            return name##_avx(TRAVERSAL_ARGS);                                                                     \
        return name##_sse2(TRAVERSAL_ARGS);                                                                        \
    }
#else
#define TRAVERSAL_BOTH TRAVERSAL
#endif

TRAVERSAL(walk_first, true, NULL, NULL, NULL)
TRAVERSAL(walk_probe, true, NULL, first_tested, NULL)
TRAVERSAL(walk_all, false, NULL, NULL, NULL)
TRAVERSAL_BOTH(walk_stop, true, stop, NULL, NULL)
TRAVERSAL_BOTH(walk_except, true, stop, NULL, skip)

bool kcbp_aabb_tree_collide(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                            kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats)
{
    kcbp_tree_stats local = {0, 0};
    return walk_first(a, b, b_in_a, eps, roots, on_pair, ctx, stats ? stats : &local, NULL, NULL, NULL);
}

bool kcbp_aabb_tree_probe(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                          kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats, uint32_t first_tested[2])
{
    kcbp_tree_stats local = {0, 0};
    first_tested[0] = first_tested[1] = UINT32_MAX;
    return walk_probe(a, b, b_in_a, eps, roots, on_pair, ctx, stats ? stats : &local, NULL, first_tested, NULL);
}

bool kcbp_aabb_tree_collide_all(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                double eps, kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats)
{
    kcbp_tree_stats local = {0, 0};
    return walk_all(a, b, b_in_a, eps, roots, on_pair, ctx, stats ? stats : &local, NULL, NULL, NULL);
}

bool kcbp_aabb_tree_collide_below(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                  double eps, const uint32_t start[2], kcbp_tri_pair_fn on_pair, void *ctx,
                                  kcbp_tree_stats *stats, uint32_t stop[2])
{
    kcbp_tree_stats local = {0, 0};
    KCBP_ASSERT(start[0] < a->nnodes && start[1] < b->nnodes);
    return walk_stop(a, b, b_in_a, eps, start, on_pair, ctx, stats ? stats : &local, stop, NULL, NULL);
}

bool kcbp_aabb_tree_collide_except(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                   double eps, const uint32_t skip[2], kcbp_tri_pair_fn on_pair, void *ctx,
                                   kcbp_tree_stats *stats, uint32_t stop[2])
{
    kcbp_tree_stats local = {0, 0};
    return walk_except(a, b, b_in_a, eps, roots, on_pair, ctx, stats ? stats : &local, stop, NULL, skip);
}

uint32_t kcbp_aabb_tree_ancestor(const kcbp_aabb_tree *tree, uint32_t node, uint32_t levels)
{
    while (levels-- > 0 && node != 0)
        node = tree->parent[node];
    return node;
}
