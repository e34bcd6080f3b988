/* The broad phase of scenes, of worlds and of kcbp_broadphase (internal): a
 * bounding volume hierarchy over the objects' world boxes, which finds for
 * one box every object whose box overlaps it.
 *
 * Build: top down, each node's objects split by the surface area heuristic
 * over 16 bins of their box centres along the widest axis of the centres
 * (Wald, "On fast construction of SAH-based bounding volume hierarchies",
 * IEEE RT 2007), at the middle of the list when the centres coincide (so
 * that piles of coincident objects still give a balanced tree), leaves of
 * at most KCBP_BT_LEAF objects. O(n log n); no recursion (an explicit
 * stack), so the depth of a degenerate split costs time, never the C stack.
 * The objects' boxes are copied in leaf order (lbox), so that a leaf's
 * boxes are read together.
 *
 * Between frames (moving objects) the tree is refitted: the boxes copied
 * again in leaf order and every node's box recomputed from its children,
 * bottom up, O(n). The tree's quality is measured by its SAH cost (the sum
 * of its internal nodes' surface areas over the root's); when a refit
 * leaves it more than KCBP_BT_REBUILD_RATIO times its cost when built, it
 * is built again. Refit or rebuild, the tree holds the exact boxes it is
 * given: the pairs it finds never depend on its shape.
 *
 * Query: every object (id > min_id) whose box overlaps a given box, closed
 * boxes (touching boxes overlap); a depth-first descent that tests both
 * children's boxes before going down. O(log n + answers) for boxes of like
 * sizes. A query reads the tree only: any number of threads may query one
 * tree at once.
 *
 * Plain data owned by its caller: no global state. */
#ifndef KCBP_BOXTREE_H
#define KCBP_BOXTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <kcbp/error.h>
#include <kcbp/mesh.h>

#include "pool.h"

#define KCBP_BT_LEAF 4
#define KCBP_BT_REBUILD_RATIO 1.3

typedef struct {
    kcbp_aabb box;
    uint32_t first; /* internal node: its left child (the right one is first + 1);
                       leaf: its first object's place in order[] and lbox[] */
    uint32_t count; /* 0: internal node; else a leaf of count objects */
} kcbp_bt_node;

typedef struct {
    uint32_t nobjects;    /* objects in the tree */
    kcbp_bt_node *nodes;  /* nodes[0] is the root (when nobjects > 0); a node's children come after it */
    uint32_t nnodes;
    size_t cap_nodes;
    uint32_t *order;      /* object ids in leaf order */
    kcbp_aabb *lbox;      /* their boxes, in leaf order */
    size_t cap_objects;
    double cost_built;    /* the SAH cost when last built */
    double cost;          /* now */
    /* Work of the last update, for tests and measurements. */
    bool rebuilt;
    uint64_t builds, refits;
    /* build scratch */
    uint32_t *scratch_ids;
    kcbp_aabb *scratch_box;
    size_t cap_scratch;
} kcbp_boxtree;

void kcbp_boxtree_init(kcbp_boxtree *t);
void kcbp_boxtree_free(kcbp_boxtree *t);

/* Builds the tree over the objects ids[0 .. n) (each id indexes boxes;
 * ids NULL: 0 .. n - 1). Boxes must be finite, min <= max. */
kcbp_status kcbp_boxtree_build(kcbp_boxtree *t, const kcbp_aabb *boxes, const uint32_t *ids, uint32_t n,
                               kcbp_error *err);
/* The same objects with new boxes: refits the tree, or builds it again
 * when the refit left it worse than KCBP_BT_REBUILD_RATIO times its built
 * cost (or always, when rebuild is set). */
kcbp_status kcbp_boxtree_update(kcbp_boxtree *t, const kcbp_aabb *boxes, bool rebuild, kcbp_error *err);

/* The same two on a pool's threads, the caller one of them (boxtree_tasks.c):
 * the top KCBP_BT_TASK_DEPTH levels split on the caller's thread, the
 * subtrees below (up to 2^KCBP_BT_TASK_DEPTH) built and refitted as tasks,
 * then laid end to end. The same tree (splits, leaf order) as
 * kcbp_boxtree_build, its nodes numbered otherwise, the same for any
 * number of threads (pool NULL: the caller's alone). */
#define KCBP_BT_TASK_DEPTH 3
kcbp_status kcbp_boxtree_build_on(kcbp_boxtree *t, const kcbp_aabb *boxes, const uint32_t *ids, uint32_t n,
                                  kcbp_pool *pool, kcbp_error *err);
kcbp_status kcbp_boxtree_update_on(kcbp_boxtree *t, const kcbp_aabb *boxes, bool rebuild, kcbp_pool *pool,
                                   kcbp_error *err);

/* ---- the build's steps (boxtree.c, for boxtree_tasks.c) ---- */
typedef struct {
    uint32_t node, begin, end, depth;
} kcbp_bt_item;
/* reserves room (nodes for n objects plus extra_nodes), copies the boxes in
 * id order; nnodes 0 */
kcbp_status kcbp_bt_start(kcbp_boxtree *t, const kcbp_aabb *boxes, const uint32_t *ids, uint32_t n,
                          uint32_t extra_nodes, kcbp_error *err);
/* Builds below item root (its node nodes[root.node]), its descendants
 * numbered from *nnodes on; an item of depth stop_depth with more than a
 * leaf's objects is appended to pending[*npending] instead of split. */
void kcbp_bt_build_from(kcbp_boxtree *t, kcbp_bt_node *nodes, uint32_t *nnodes, kcbp_bt_item root, uint32_t stop_depth,
                        kcbp_bt_item *pending, uint32_t *npending);
/* Boxes of nodes[lo .. hi) from their children's (from hi - 1 down); the
 * sum of the internal ones' areas. */
double kcbp_bt_refit(const kcbp_boxtree *t, kcbp_bt_node *nodes, uint32_t lo, uint32_t hi);
/* A sum of areas over the root's: the tree's SAH cost. */
double kcbp_bt_cost(const kcbp_boxtree *t, double sum);
/* kcbp_boxtree_update's refit: true when it kept the tree (false: rebuild
 * asked, or the refit left it too costly: build it again, from the ids of
 * kcbp_bt_rebuild_ids). */
bool kcbp_bt_refit_keeps(kcbp_boxtree *t, const kcbp_aabb *boxes, bool rebuild);
kcbp_status kcbp_bt_rebuild_ids(kcbp_boxtree *t, const uint32_t **ids, kcbp_error *err);

/* Appends to (*out)[count ..] (growing *out, *cap its room) every object
 * whose id is greater than min_id (-1: every object) and whose box overlaps
 * q, in no particular order; returns the new count, or SIZE_MAX when memory
 * ran out. */
size_t kcbp_boxtree_query(const kcbp_boxtree *t, const kcbp_aabb *q, int64_t min_id, uint32_t **out, size_t *cap,
                          size_t count);

/* The same for the objects after leaf place k (lbox[k] ... : every pair of
 * objects found once when each object queries in leaf order, k its own
 * place): those whose place in order[] is greater than k. */
size_t kcbp_boxtree_query_after(const kcbp_boxtree *t, const kcbp_aabb *q, uint32_t k, uint32_t **out, size_t *cap,
                                size_t count);

/* Sorts ids[0 .. n) ascending. */
void kcbp_sort_ids(uint32_t *ids, size_t n);

/* Appends id at (*out)[count], growing *out (capacity *cap, doubled, 64 at
 * first) when full: false when the allocation fails (*out is then kept). */
static inline bool kcbp_bt_push(uint32_t **out, size_t *cap, size_t count, uint32_t id)
{
    if (count == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        uint32_t *g = realloc(*out, nc * sizeof *g);
        if (!g)
            return false;
        *out = g;
        *cap = nc;
    }
    (*out)[count] = id;
    return true;
}

static inline bool kcbp_bt_overlap(const kcbp_aabb *a, const kcbp_aabb *b)
{
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

#endif
