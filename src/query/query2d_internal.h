/* The 2D queries' shared steps (collide2d.c, distance2d.c). Internal. */
#ifndef KCBP_QUERY2D_INTERNAL_H
#define KCBP_QUERY2D_INTERNAL_H

#include <kcbp/collide2d.h>
#include <kcbp/polygon2d.h>
#include <kcbp/sweep2d.h>

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

/* A convex shape B translating (pose0's rotation throughout, the motion's
 * translation) against a still model A at pose_a, from t where they are
 * apart: the largest time free_until found in [t, 1] with the hulls of
 * B's cores at t and at each time tried, B's radius and a margin of 2 e
 * (e bounding the rounding of the poses between), apart from A by the
 * exact kcbp2d_model_shape_collide: [t, free_until] is free of contact.
 * 1 when the whole rest is free, else within width of the first time
 * the swept hull meets A (bisection, 64 steps at most); t when B at t
 * is already within the margin. For the sweep's rounded shapes grazing a
 * corner, where conservative advancement's steps shrink with the
 * distance (sweep2d_swept.c). */
kcbp_status kcbp2d_sweep_swept_free(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                    const kcbp2d_pose *pose0, const kcbp2d_motion *m, double t, double width,
                                    double e, double *free_until, kcbp_error *err);

#endif
