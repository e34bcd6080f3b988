/* The depth bracket of two overlapping closed solids, one at least a
 * non-convex mesh (signed_distance.h, KCBP_SDIST_BRACKETED), internal:
 * depth_bracket.c. */
#ifndef KCBP_DEPTH_INTERNAL_H
#define KCBP_DEPTH_INTERNAL_H

#include <kcbp/signed_distance.h>

#include "model_internal.h"

/* Fills r (a whole struct, zeroed by the caller) for models a and b, known
 * to overlap (their surfaces meet or one holds the other) and both solids
 * (a mesh built as a solid, or a shape): status BRACKETED, depth_lower,
 * depth_upper, translation, normal, the points, lower_center and radii,
 * signed_distance == -depth_upper, depth == depth_upper. o is complete
 * (defaults filled in). */
kcbp_status kcbp_depth_bracket(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                               const kcbp_pose *pose_b, const kcbp_signed_distance_options *o,
                               kcbp_signed_distance_result *r, kcbp_error *err);

#endif
