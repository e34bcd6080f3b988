/* The pair queries when one model or both are shapes (internal): kcbp_collide,
 * kcbp_distance and kcbp_sweep (through these two) call these at their
 * entry when kcbp_impl_is_shape says so, and never read a shape's mesh
 * fields. Shape-mesh: the world boxes, the mesh's k-CBP against the shape
 * (GJK), then the mesh's tree against the shape and each triangle's exact
 * test (spheres, capsules, boxes) or GJK within KCBP_SHAPE_GJK_BAND
 * (cylinders, hulls). Shape-shape: the world boxes, then the shapes' own
 * test (convex/shape_internal.h). */
#ifndef KCBP_SHAPE_QUERY_H
#define KCBP_SHAPE_QUERY_H

#include <kcbp/collide.h>
#include <kcbp/distance.h>

#include "model_internal.h"

/* kcbp_collide_pair when a or b is a shape (the pair cache is not used:
 * a shape's tests need none). */
kcbp_status kcbp_shape_collide_pair(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                    const kcbp_pose *pose_b, const kcbp_collide_options *options,
                                    kcbp_collide_result *result, kcbp_error *err);

/* kcbp_distance when a or b is a shape (options already defaulted). */
kcbp_status kcbp_shape_distance(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                const kcbp_pose *pose_b, const kcbp_distance_options *options,
                                kcbp_distance_result *result, kcbp_error *err);

/* The largest distance of the model's points from the line through its
 * origin along the unit axis, for a shape (kcbp_sweep's speed bound). */
double kcbp_shape_axis_radius(const kcbp_model_impl *m, kcbp_vec3 axis);

#endif
