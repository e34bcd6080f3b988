/* The 2D queries' shared steps (collide2d.c, distance2d.c). Internal. */
#ifndef KCBP_QUERY2D_INTERNAL_H
#define KCBP_QUERY2D_INTERNAL_H

#include <kcbp/collide2d.h>

#include "convex/convex2d.h"

typedef struct {
    bool collide, cores_intersect;
    kcbp2d_decided decided_by;
    int sep_shape;
    uint32_t sep_edge;
    bool have_gjk;     /* gjk holds the cores' distance (they are apart) */
    kcbp2d_gjk_out gjk;
} kcbp2d_decision;

/* Checks shapes (all but a polygon's convexity) and poses
 * (KCBP_ERR_INVALID) and makes both cores. */
kcbp_status kcbp2d_cores_of(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                            const kcbp2d_pose *pose_b, kcbp2d_core *ca, kcbp2d_core *cb, kcbp_error *err);

/* kcbp2d_cores_of in two steps: the cores posed (kcbp2d_core_pose, the
 * same checks and errors), then made convex (kcbp2d_core_finish). On
 * failure both are freed. */
kcbp_status kcbp2d_cores_posed(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                               const kcbp2d_pose *pose_b, kcbp2d_core *ca, kcbp2d_core *cb, kcbp_error *err);
kcbp_status kcbp2d_cores_finish(kcbp2d_core *ca, kcbp2d_core *cb, kcbp_error *err);

/* The exact decision of collide2d.h: dist(cores) <= a->r + (b->r + margin).
 * need_distance: the cores' GJK distance in d->gjk whenever they are apart
 * (else only when the radii need it). */
void kcbp2d_decide(const kcbp2d_core *a, const kcbp2d_core *b, double margin, int max_iterations,
                   bool need_distance, kcbp2d_decision *d);

/* kcbp2d_decide for two polygons without radius (margin 0, the distance
 * needed) whose SAT verdict is known: the cores intersect, or the edge
 * sep_edge of core sep_shape separates them. */
void kcbp2d_decide_after_sat(const kcbp2d_core *a, const kcbp2d_core *b, bool intersect, int sep_shape,
                             uint32_t sep_edge, int max_iterations, kcbp2d_decision *d);

#endif
