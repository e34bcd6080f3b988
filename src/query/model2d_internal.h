/* Non-convex 2D models' internals shared by model2d.c (the queries and the
 * exact touching test) and model2d_build.c (building and checking,
 * polygons whose rings touch at points). Internal. */
#ifndef KCBP_MODEL2D_INTERNAL_H
#define KCBP_MODEL2D_INTERNAL_H

#include <kcbp/polygon2d.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bvh/tree2d.h"

struct kcbp2d_model {
    kcbp_vec2 *v;
    uint32_t nv;
    uint32_t *next;       /* edge i: v[i] -> v[next[i]] */
    uint32_t *ring_first; /* ring r starts at vertex ring_first[r] */
    uint8_t *ring_left;   /* ring r has the region on its left (built models; NULL for a shape's core) */
    uint32_t nrings;
    kcbp2d_tree tree;
    double scale;         /* max |coordinate| */
};

/* The pair in A's frame: B's vertices carried by rel; boxes of B's nodes
 * carried as boxes (centre moved, half sides through |R|) and padded by
 * pad, far above the rounding of carrying a vertex or a box. */
typedef struct {
    const kcbp2d_model *a, *b;
    kcbp2d_pose rel;
    double pad;
} pair_ctx;

/* The pair in A's frame (margin pads the boxes). KCBP_ERR_INVALID for a
 * NULL model or a pose that is not finite. */
kcbp_status kcbp2d_pair_make(const kcbp2d_model *a, const kcbp2d_pose *pa, const kcbp2d_model *b,
                             const kcbp2d_pose *pb, double margin, pair_ctx *c, kcbp_error *err);

static inline int kcbp2d_lex_less(kcbp_vec2 a, kcbp_vec2 b) { return a.x < b.x || (a.x == b.x && a.y < b.y); }
static inline int kcbp2d_lex_cmp(kcbp_vec2 a, kcbp_vec2 b)
{
    return kcbp2d_lex_less(a, b) ? -1 : kcbp2d_lex_less(b, a) ? 1 : 0;
}

/* The exact touching test's walk (model2d.c, "do the interiors meet?"). */
typedef struct {
    kcbp_vec2 x; /* a point where the boundaries meet */
} touch_point;

struct touch_walk {
    const pair_ctx *c;
    bool a_out;           /* A stands for its complement */
    bool stop_on_overlap; /* the model check: an overlap along a segment ends the walk */
    bool overlap;         /* two edges overlap along a segment */
    uint32_t *on[2];      /* vertices of A, of B found on the other's boundary (sorted after the walk) */
    size_t non[2], capon[2];
    touch_point *pts;     /* the points (2) is decided at */
    size_t npts, cap;
    bool nomem;
    /* the lists' first places, inside the walk (a pair of small parcels
     * needs no allocation: a map's check runs one walk per touching pair) */
    uint32_t on_in[2][16];
    touch_point pts_in[16];
};

typedef struct touch_walk touch_walk;

/* Whether the interiors of two built models meet (A's complement for
 * t->a_out); t holds c and the flags (the rest zeroed), and keeps the
 * meeting points (sorted, distinct, in t->pts) until kcbp2d_touch_walk_free;
 * with t->stop_on_overlap, t->overlap says the walk stopped at two edges
 * overlapping along a segment (*meet false then). */
kcbp_status kcbp2d_touch_walk_run(touch_walk *t, bool *meet, kcbp_error *err);
/* Frees the meeting points' list (t->pts) when it outgrew its first places. */
void kcbp2d_touch_walk_free(touch_walk *t);

typedef struct {
    kcbp_vec2 lo, hi;
    kcbp2d_model *m;
} part_box;

/* Whether the interiors of two built models meet (the exact touching test;
 * their boundaries may or may not meet). */
kcbp_status kcbp2d_interiors_meet(const pair_ctx *c, bool *meet, kcbp_error *err);

#endif
