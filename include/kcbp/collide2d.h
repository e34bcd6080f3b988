/* Do two posed convex 2D shapes (shape2d.h) share a point?
 *
 * The answer is exact for the posed coordinates: each core vertex is moved
 * by kcbp2d_pose_apply (pose2d.h states its rounding), and the closed sets
 * "within r_a + r_b + margin of each other's cores" are decided for those
 * doubles taken as the rationals they stand for:
 *   - cores alone (r_a + r_b + margin == 0): the separating axis theorem on
 *     the edges of both cores (the Minkowski difference's edges are theirs),
 *     every side decided by the exact orient2d (src/geom/predicates.h);
 *     collinear segments by exact coordinate comparisons;
 *   - with radii: the cores meet (above), or some pair of core edges is
 *     within r_a + r_b + margin, by the exact decision of src/geom/closest.h
 *     at z = 0 (the embedding adds no rounding). A floating-point filter
 *     with a proven bound (a separating projection) settles the clear cases
 *     first; the exact pairs run only near touching.
 *   The threshold is r_a + (r_b + margin), the inner sum rounded once
 *   (exact when margin is 0), the outer one exact (closest.h compares with
 *   the exact sum of two radii).
 * Touching counts as colliding. A posed polygon that lost strict convexity
 * to rounding is taken as the convex hull of its posed vertices.
 *
 * Growable structs (style §4.3): options only by
 * kcbp2d_collide_options_default(); results written within the size the
 * caller compiled against (the inline wrapper passes sizeof *result). */
#ifndef KCBP_COLLIDE2D_H
#define KCBP_COLLIDE2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pose2d.h"
#include "shape2d.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t size; /* sizeof the caller's struct: set by kcbp2d_collide_options_default */
    /* >= 0, finite: a clearance; "collide" then means "closer than or at
     * margin" (the nesting and rule-check question). Default 0. */
    double margin;
} kcbp2d_collide_options;

KCBP_API void kcbp2d_collide_options_init(kcbp2d_collide_options *o, uint32_t size);

static inline kcbp2d_collide_options kcbp2d_collide_options_default(void)
{
    kcbp2d_collide_options o;
    kcbp2d_collide_options_init(&o, (uint32_t)sizeof o);
    return o;
}

/* How the answer was reached. */
typedef enum {
    KCBP2D_DECIDED_SAT = 0,  /* the cores' exact separating-axis test alone */
    KCBP2D_DECIDED_FILTER,   /* with radii: the floating-point filter (proven bound) */
    KCBP2D_DECIDED_EXACT,    /* with radii: the exact within-r decisions */
} kcbp2d_decided;

typedef struct {
    bool collide;         /* the inflated shapes (with margin) share a point */
    bool cores_intersect; /* the cores alone share a point (exact) */
    kcbp2d_decided decided_by;
    /* A separating axis when !cores_intersect and the cores are separated
     * by an edge line: which shape's edge (0: A, 1: B) and its index (the
     * core's edge from vertex i to i + 1; for a polygon whose posed
     * vertices are not strictly convex, the edge from its point i to i + 1
     * when that edge's line is shown to separate the hulls, else its
     * hull's edge i); -1, 0 otherwise. */
    int separating_shape;
    uint32_t separating_edge;
} kcbp2d_collide_result;

/* Shapes are checked as kcbp2d_shape_check does but for a polygon's
 * convexity (O(n) orient2d tests, left to the caller): a polygon that is
 * not strictly convex and counter-clockwise is taken as the convex hull of
 * its vertices. Poses must be finite (made by pose2d.h's functions).
 * KCBP_ERR_INVALID for a bad shape or pose, options not made by _default,
 * a negative or non-finite margin, or a result size too small;
 * KCBP_ERR_NOMEM. options NULL: defaults. */
KCBP_API kcbp_status kcbp2d_collide_sized(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                          const kcbp2d_pose *pose_b, const kcbp2d_collide_options *options,
                                          kcbp2d_collide_result *result, size_t result_size, kcbp_error *err);

static inline kcbp_status kcbp2d_collide(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                         const kcbp2d_pose *pose_b, const kcbp2d_collide_options *options,
                                         kcbp2d_collide_result *result, kcbp_error *err)
{
    return kcbp2d_collide_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

#ifdef __cplusplus
}
#endif
#endif
