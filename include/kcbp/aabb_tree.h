/* Bounding-volume hierarchy of axis-aligned boxes over a mesh's triangles.
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

#include "error.h"
#include "mesh.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A leaf holds at most this many triangles. */
#define KCBP_AABB_LEAF_MAX 2

typedef struct {
    kcbp_vec3 center, extent; /* the box, as centre and half-sizes */
    uint32_t first;           /* leaf: first slot in the tree's triangle order; inner: left child (right = first + 1) */
    uint32_t count;           /* leaf: number of triangles (>= 1); inner: 0 */
} kcbp_aabb_node;

typedef struct {
    kcbp_aabb_node *nodes; /* nodes[0] is the root */
    uint32_t nnodes;
    uint32_t depth;          /* number of levels; bounds the traversal stack */
    uint32_t *tri_ids;       /* mesh triangle index of each slot */
    kcbp_vec3 (*tri_verts)[3]; /* each slot's three vertices, copied so that leaves are read contiguously */
} kcbp_aabb_tree;

KCBP_API kcbp_status kcbp_aabb_tree_build(const kcbp_mesh *mesh, kcbp_aabb_tree *tree, kcbp_error *err);
KCBP_API void kcbp_aabb_tree_free(kcbp_aabb_tree *tree);

/* Called for each pair of intersecting triangles (mesh indices); return false
 * to stop the traversal. */
typedef bool (*kcbp_tri_pair_fn)(void *ctx, uint32_t tri_a, uint32_t tri_b);

typedef struct {
    uint64_t box_pairs;   /* node pairs whose boxes were tested */
    uint64_t tri_pairs;   /* triangle pairs given to the triangle test */
    uint64_t node_planes; /* node-against-half-space tests (kcbp_tree_clip) */
    uint64_t node_culls;  /* nodes dropped by a half-space, with every pair below them */
} kcbp_tree_stats;

/* Finds the pairs of intersecting triangles of two trees, B being placed in
 * A's frame by b_in_a. eps is the length tolerance of kcbp_tri_intersect;
 * boxes are widened by it so that no pair the triangle test would accept is
 * culled. Depth-first; of two children it visits first the one nearer the
 * other tree's node. Stats are added to *stats (which may be NULL). Returns
 * true when the traversal was stopped by the callback. */
KCBP_API bool kcbp_aabb_tree_collide(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                            kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats);

/* The same pairs, without choosing which child to visit first: for callers
 * that want every pair (an exhaustive traversal visits the same node pairs
 * in any order, and the choice costs ~11 % of it). The callback can still
 * stop it. */
KCBP_API bool kcbp_aabb_tree_collide_all(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                double eps, kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats);

/* The half-space n.x <= d, and |n| componentwise: a box of centre c and
 * half-sizes e reaches n.c + |n|.e along n. */
typedef struct {
    kcbp_vec3 n, abs_n;
    double d;
} kcbp_half_space;

enum { KCBP_TREE_CLIP_MAX = 32 };

/* Half-spaces that hold the other mesh (e.g. the planes of its k-CBP), to
 * cut a traversal short:
 *   a[0 .. na): in A's frame, each holding every triangle of B as posed by
 *               b_in_a;
 *   b[0 .. nb): in B's own frame, each holding every triangle of A.
 * Every contact lies in both meshes' regions, so a node whose box lies more
 * than `margin` beyond one of them holds no triangle within margin of the
 * other mesh, and it is dropped with every pair below it.
 * Invariant: with margin >= eps, as long as the triangle test accepts no
 * pair of triangles more than margin apart (what kcbp_collide's k-CBP stage
 * assumes, with the same margin), the contacts found are exactly those found
 * without the half-spaces, and the first one found is the same (dropping
 * nodes does not reorder the others). A node is tested only against the
 * half-spaces its parent's box reaches more than margin beyond, and each
 * node's verdict is computed once per call (a small direct-mapped memo): a
 * node meets many nodes of the other tree. At most KCBP_TREE_CLIP_MAX of
 * each are used. */
typedef struct {
    kcbp_half_space a[KCBP_TREE_CLIP_MAX], b[KCBP_TREE_CLIP_MAX];
    uint32_t na, nb;
    double margin; /* taken as at least eps */
} kcbp_tree_clip;

/* kcbp_aabb_tree_collide, also dropping the nodes beyond clip's half-spaces
 * (NULL or none: the same call). */
KCBP_API bool kcbp_aabb_tree_collide_clipped(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                    double eps, const kcbp_tree_clip *clip, kcbp_tri_pair_fn on_pair, void *ctx,
                                    kcbp_tree_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
