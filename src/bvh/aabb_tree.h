/* Bounding-volume hierarchy of axis-aligned boxes over a mesh's triangles
 * (internal: a model's tree, src/query/model.c, is opaque to users).
 *
 * A tree is built once, in the mesh's own frame, and never refitted: to test
 * two meshes under any relative pose, each node box of B is tested against
 * A's node box in A's frame, where it is an oriented box (separating-axis
 * test). So one tree serves every pose and every thread (it is read-only
 * after building). */
#ifndef KCBP_AABB_TREE_H
#define KCBP_AABB_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/model.h>
#include <kcbp/pose.h>

#include "geom/tridist.h"
#include "mesh/mesh_internal.h"


/* A leaf holds at most this many triangles. */
#define KCBP_AABB_LEAF_MAX 4

/* Trees are less deep than this (the build splits at the median below
 * depth 64, and a mesh has fewer than 2^26 triangles): it bounds the
 * traversals' stacks. */
#define KCBP_TREE_MAX_DEPTH 96

typedef struct {
    kcbp_vec3 center, extent; /* the box, as centre and half-sizes */
    uint32_t first;           /* leaf: first slot in the tree's triangle order; inner: left child (right = first + 1) */
    uint32_t count;           /* leaf: number of triangles (>= 1); inner: 0 */
} kcbp_aabb_node;

/* The slab a triangle lies in: lo <= n.x <= hi for each of its points
 * (rounding included), n a unit normal; lo = -inf, hi = +inf (never
 * separating) for a triangle with no usable normal (zero area). */
typedef struct {
    kcbp_vec3 n;
    double lo, hi;
} kcbp_tri_slab;

/* An oriented box around a node's triangles: the points c + sum_k s_k u_k
 * with |s_k| <= extent_k, u_k the rows of axes (orthonormal up to rounding;
 * the extents are padded to cover that and the rounding of fitting), the
 * last axis the one with the smallest half-size. */
typedef struct {
    kcbp_mat3 axes;
    kcbp_vec3 center, extent;
} kcbp_obb;

/* A triangle's spine: the segment from vertex apex to the midpoint of the
 * opposite edge (the shortest), every point of the triangle within r of it
 * (r: half that edge, padded for rounding). A capsule around a sliver: the
 * spines' distance less both radii bounds a pair of slivers side by side,
 * which their slabs (planes) cannot. */
typedef struct {
    double r;
    uint32_t apex;
} kcbp_tri_spine;

enum {
    /* The oriented box is much tighter than the axis-aligned one (its
     * half-sizes' product, each floored at 1e-3 of the largest, below
     * TIGHT_RATIO (tree_build.c) of the other's): the collision traversal tests
     * it. */
    KCBP_NODE_TIGHT = 1,
    /* The oriented box is long: its middle half-size below
     * LONG_RATIO of its largest. The distance traversal bounds
     * such a node's pairs by every axis of the separating-axis test. */
    KCBP_NODE_LONG = 2,
    /* Every triangle of the node holds one vertex (a fan's apex, a disc's
     * centre): tree.fan[tree.fan_of[node]] has it and the box of the
     * node's other vertices. */
    KCBP_NODE_FAN = 4,
    /* An inner node whose first child's box is more than 8 times as long
     * as it is thin: the collision traversal visits its children in the
     * order of their overlap with the other node, not of their centres'
     * distance (aabb_tree.c, first_child). */
    KCBP_NODE_THIN_KIDS = 8,
    /* The highest fan node (KCBP_NODE_FAN) around its vertex (its parent
     * is not a fan around the same one), of at least KCBP_FAN_BIG
     * triangles (a cone's flank, a disc; not the few triangles around a
     * vertex of an organic mesh): the collision traversal bounds pairs of
     * them by their shared vertices (fan_gap.h). */
    KCBP_NODE_FAN_BIG = 16,
};

#define KCBP_FAN_BIG 64

/* A node whose triangles share a vertex: the vertex, and two boxes of the
 * node's other vertices: axis-aligned (mesh frame: center, extent) and
 * along the node's oriented box's axes (obb[node].axes: the points
 * ocenter + sum_k s_k u_k, |s_k| <= oextent_k, u_k those axes, padded for
 * rounding as the oriented box is). A fan's rim is an arc, which the
 * oriented box, fitted to the node's triangles, holds within about its
 * sag. A support over the node is then exact at the shared vertex, which
 * is in every leaf below it, and near exact at the rim: the bound that
 * lets nested fans (a drill tip in its hole, turned so that no vertices
 * line up) be pruned by node. */
typedef struct {
    kcbp_vec3 apex, center, extent;
    kcbp_vec3 ocenter, oextent;
    /* from the centre of the other vertices' box of the highest fan node
     * above (or this one) around the same vertex to the vertex: a
     * cone's or a half-disc's axis, along which the whole fan lies
     * behind its vertex (fan_gap.h; not normalised) */
    kcbp_vec3 axis;
} kcbp_node_fan;

typedef struct {
    kcbp_aabb_node *nodes; /* nodes[0] is the root */
    uint32_t *parent;      /* parent[i]: node i's parent (parent[0] = 0); nnodes of them */
    uint32_t nnodes;
    uint32_t depth;          /* number of levels; bounds the traversal stack */
    uint32_t *tri_ids;       /* mesh triangle index of each slot */
    kcbp_vec3 (*tri_verts)[3]; /* each slot's three vertices, copied so that leaves are read contiguously */
    kcbp_tri_slab *tri_slab;   /* each slot's triangle's slab */
    kcbp_tri_face *tri_face;   /* each slot's triangle's face as kcbp_tri_distance computes it (in the mesh's frame) */
    kcbp_tri_spine *tri_spine; /* each slot's triangle's spine */
    kcbp_tri_slab *leaf_slab;  /* each node's: for a leaf, a slab holding its triangles; never separating for an inner node */
    /* Each node's oriented box: along the principal axes of its triangles
     * (area-weighted) or the mesh's axes, whichever box has less volume.
     * Tighter than the node's axis-aligned box for a slanted surface patch;
     * used by kcbp_distance (src/distance.c), whose lower bounds under
     * rotation they keep tight, not by the collision traversal. */
    kcbp_obb *obb;
    /* Each node's KCBP_NODE_* flags: how its oriented box compares with its
     * axis-aligned one, and its shape. */
    uint8_t *flags;
    /* The vertices the triangles use, each once, under a tree of
     * axis-aligned boxes (vnodes[0] the root, children first and first + 1,
     * leaves of at most KCBP_VTREE_LEAF_MAX vertices in verts[first ..]):
     * the distance traversal's exact support of the whole mesh along a
     * direction (kcbp_vtree_above), a bound that the triangle tree cannot
     * give when one vertex is in every leaf (a fan's apex). */
    kcbp_aabb_node *vnodes;
    kcbp_vec3 *verts;
    uint32_t nvnodes, nverts;
    /* every vertex lies within vradius of vnodes[0].center (rounding
     * included): a first support bound, tight for a sphere */
    double vradius;
    /* fan_of[node]: the node's index in fan (KCBP_NODE_FAN nodes only) */
    uint32_t *fan_of;
    kcbp_node_fan *fan;
    uint32_t nfan;
} kcbp_aabb_tree;

#define KCBP_VTREE_LEAF_MAX 8
/* Less deep than this: the vertex tree is split at the median. */
#define KCBP_VTREE_MAX_DEPTH 40

kcbp_status kcbp_aabb_tree_build(const kcbp_mesh *mesh, kcbp_aabb_tree *tree, kcbp_error *err);
void kcbp_aabb_tree_free(kcbp_aabb_tree *tree);

/* Called for each pair of intersecting triangles (mesh indices); return false
 * to stop the traversal. */
typedef bool (*kcbp_tri_pair_fn)(void *ctx, uint32_t tri_a, uint32_t tri_b);

/* Finds the pairs of intersecting triangles of two trees, B being placed in
 * A's frame by b_in_a (B's vertices carried with kcbp_pose_apply, as
 * kcbp_tri_intersect then decides exactly). eps is a padding, far above the
 * rounding of moving a box or a slab (kcbp_collide passes
 * kcbp_collide_tolerance): boxes and leaf slabs are widened by it so that
 * no pair the triangle test would accept is culled. Depth-first; of two children it visits first the one nearer the
 * other tree's node. Stats are added to *stats (which may be NULL). Returns
 * true when the traversal was stopped by the callback. */
bool kcbp_aabb_tree_collide(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                            kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats);

/* The same pairs, without choosing which child to visit first: for callers
 * that want every pair (an exhaustive traversal visits the same node pairs
 * in any order, and the choice costs ~11 % of it). The callback can still
 * stop it. */
bool kcbp_aabb_tree_collide_all(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                double eps, kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats);

/* kcbp_aabb_tree_collide below one pair of nodes: only the pairs of
 * triangles under A's node start[0] and B's node start[1], in the same
 * order (start = {0, 0} is kcbp_aabb_tree_collide). When the callback stops
 * the traversal, stop[] (if not NULL) gets the two leaves whose triangle
 * pair stopped it; otherwise stop[] is left as it was. */
bool kcbp_aabb_tree_collide_below(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                           double eps, const uint32_t start[2], kcbp_tri_pair_fn on_pair, void *ctx,
                                           kcbp_tree_stats *stats, uint32_t stop[2]);

/* kcbp_aabb_tree_collide_below from the roots, in the same order, but for
 * the node pair skip (A's, B's) when the traversal reaches it: the caller
 * has searched below it already (kcbp_aabb_tree_collide_below) and found
 * no pair its callback took, so that the search after a failed start near
 * the last contact does not test its pairs twice. */
bool kcbp_aabb_tree_collide_except(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                   double eps, const uint32_t skip[2], kcbp_tri_pair_fn on_pair, void *ctx,
                                   kcbp_tree_stats *stats, uint32_t stop[2]);

/* kcbp_aabb_tree_collide, also giving the slots of the first triangle pair
 * it tested (UINT32_MAX when it tested none): a pair of triangles whose
 * leaves' boxes and slabs overlap, so near each other, for a distance
 * query's first upper bound when the meshes do not touch. */
bool kcbp_aabb_tree_probe(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                          kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats, uint32_t first_tested[2]);

/* ---- distance -------------------------------------------------------- */

/* Each tree is less than KCBP_TREE_MAX_DEPTH levels deep, and
 * a depth-first step pops one node pair and pushes at most two one level
 * down in one tree, so the traversal's stack (on the C stack) holds at most
 * depth_a + depth_b + 1 pairs: trees deeper than this together are refused
 * by its callers. */
#define KCBP_TREE_DISTANCE_MAX_DEPTH (2 * KCBP_TREE_MAX_DEPTH + 2)

typedef struct {
    double limit;  /* only triangle pairs within it count (INFINITY: none) */
    double stop;   /* a proven lower bound on the distance: the search ends once the best is down to it */
    double scale;  /* the size of the coordinates in A's frame, for the tolerance of the bounds */
    bool seeded;   /* seed_a (A's frame), seed_b (B's frame): points near which the closest triangles likely lie */
    kcbp_vec3 seed_a, seed_b;
    bool hinted;   /* a triangle pair to try first (the last closest pair of a trajectory): */
    kcbp_vec3 hint_a[3], hint_b[3]; /* its vertices, A's in A's frame and B's in B's */
    uint32_t hint_tri_a, hint_tri_b; /* and its mesh triangle indices */
} kcbp_tree_distance_query;

typedef struct {
    bool found;                 /* a triangle pair within the limit was found: the fields below are it */
    double distance;
    kcbp_vec3 point_a, point_b; /* A's frame */
    uint32_t tri_a, tri_b;      /* mesh triangle indices */
    kcbp_tree_stats stats;
} kcbp_tree_distance_result;

/* The smallest distance between a triangle of a and one of b (B placed in
 * A's frame by b_in_a), within q->limit: depth-first, the nearer pair of
 * children first (by centre distance less the boxes' sizes), pruning every
 * node pair whose lower bound (the nodes' oriented boxes) is not below the
 * best triangle distance found so far, and every triangle pair bounded
 * apart by its centroids' gap or its triangles' slabs; the first upper
 * bound from the triangles nearest the seeds (a greedy dive in each tree).
 * The trees' depths must not exceed KCBP_TREE_DISTANCE_MAX_DEPTH together.
 * Past a budget of work linear in the trees' sizes, when a sample of one
 * side's triangles have the whole other mesh beyond their planes at the
 * best distance (the vertex trees' supports), that side's tree is swept
 * alone instead, pairs within KCBP_TRI_DIST_REL_ERR * scale of the best
 * dropped (include/kcbp/distance.h, stage 4).
 * Best-first with a binary heap was tried: on bunny-bunny it visited 60 %
 * fewer node pairs with 38 % fewer instructions (callgrind), but was no
 * faster in wall time (the heap's accesses miss the cache) and needs an
 * allocation. */
void kcbp_tree_distance(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                        const kcbp_tree_distance_query *q, kcbp_tree_distance_result *r);

/* The ancestor `levels` levels above node (the root when the node is less
 * deep than that). */
uint32_t kcbp_aabb_tree_ancestor(const kcbp_aabb_tree *tree, uint32_t node, uint32_t levels);

#endif
