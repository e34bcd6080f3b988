/* A binary tree of axis-aligned boxes over the edges of a 2D model
 * (src/query/model2d.c). Internal. Each node's box is the exact min/max of
 * its edges' endpoint coordinates (no rounding); a leaf holds at most
 * KCBP2D_TREE_LEAF edges. Built top-down, each node split at the median of
 * its edges' midpoints along its box's longer side (quickselect): depth
 * O(log n), O(n log n) time. Each node also has an oriented box
 * (kcbp2d_obb), for the distance descent's lower bounds. */
#ifndef KCBP_TREE2D_H
#define KCBP_TREE2D_H

#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/vec2.h>

#define KCBP2D_TREE_LEAF 4u

typedef struct {
    kcbp_vec2 lo, hi;
    uint32_t first; /* internal: children first, first + 1; leaf: edges order[first .. first + count) */
    uint32_t count; /* 0 for an internal node */
} kcbp2d_node;

/* An oriented box round a node's edges: every endpoint p has |(p - c).u| <=
 * h.x and |(p - c).u_perp| <= h.y (u_perp = (-u.y, u.x)) in exact
 * arithmetic, u a unit vector up to rounding, the half sides padded for
 * the rounding of computing them. u is the principal axis of the
 * endpoints: a node of thin slanted features (spikes, a diagonal run) gets
 * a thin box where its axis-aligned box is a square, and a box carried by
 * a rotation stays as tight (its axis turns with it). */
typedef struct {
    kcbp_vec2 c, u, h;
} kcbp2d_obb;

typedef struct {
    kcbp2d_node *nodes; /* nodes[0] is the root */
    kcbp2d_obb *obbs;   /* obbs[i]: node i's oriented box */
    uint32_t nnodes;
    uint32_t *order;    /* the edges, in leaf order */
    uint64_t build_steps; /* the median selections' partition steps (a count for the tests: O(n log n)) */
} kcbp2d_tree;

/* The tree of the n edges (v[i], v[next[i]]), n >= 1. KCBP_ERR_NOMEM. */
kcbp_status kcbp2d_tree_build(kcbp2d_tree *t, const kcbp_vec2 *v, const uint32_t *next, uint32_t n, kcbp_error *err);
void kcbp2d_tree_free(kcbp2d_tree *t);

#endif
