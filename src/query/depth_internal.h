/* The depth bracket of two overlapping closed solids, one at least a
 * non-convex mesh (signed_distance.h, KCBP_SDIST_BRACKETED), internal:
 * depth_bracket.c (the method is described at its top).
 *
 * Frames: every point, vector and translation is in the world frame (B's
 * pose moved by a world translation); the pair's work is done where
 * kcbp_collide and kcbp_point_in_solid do it (A's frame, B carried in).
 *
 * Guarantees, for the coordinates those tests compute on:
 *   - depth_upper: B at pose_b moved by `translation` is apart from A as
 *     solids (kcbp_collide with options.solid says no: surfaces apart, no
 *     containment), and depth_upper >= |translation| (rounded up, plus the
 *     rounding of adding the translation to B's); so depth <= depth_upper.
 *   - depth_lower: lower_center is inside both solids (exact tests) and
 *     lower_radius_a, lower_radius_b are its distances to their surfaces
 *     less a rounding margin (1e-11 of the coordinates' magnitude, far
 *     above the point-triangle distance's error); depth_lower is their sum,
 *     or, when options.max_steps >= 128 let the many-ball bound run
 *     (ball_cover.h), the radius of a ball around the origin that the
 *     translations forbidden by many inner-ball pairs cover (then
 *     depth_lower >= lower_radius_a + lower_radius_b). A shape's radius is
 *     its closed form (a hull's is taken as 0).
 *   - point_a and point_b: the midpoint of kcbp_distance's closest points
 *     of A and of B moved by the translation, and that midpoint less the
 *     translation: within half the gap left by the last bisection (at most
 *     depth_tolerance / 4 of depth_upper) of A's surface and of B's;
 *     point_a - point_b == translation; feature_a/b their triangles.
 *   - TOUCHING when depth_upper is within 4 * 2^-32 (9.3e-10, within
 *     KCBP_SDIST_CONVEX_REL_TOL) of the pair's scale (a translation of
 *     rounding size parts them): depth,
 *     depth_lower and signed_distance 0, depth_upper and translation the
 *     tiny move.
 *
 * Work: at most options.max_steps collision tests (translations tried),
 * 16 more for the final polish, 4 * max_steps inner-ball probes (a
 * point-surface distance each, and a point-in-solid ray unless the point
 * lies in the last one's ball), up to two kcbp_distance queries, and with
 * max_steps >= 128 the many-ball stage (its own grid of probes and up to
 * 4 octree covers); refinement stops once depth_upper <= (1 +
 * depth_tolerance) * depth_lower, the polish aside. steps is the sum of
 * all of them. Allocation: kcbp_collide's contact array (freed
 * before returning) and, for the many-ball bound, its ball lists. */
#ifndef KCBP_DEPTH_INTERNAL_H
#define KCBP_DEPTH_INTERNAL_H

#include <kcbp/signed_distance.h>

#include "model_internal.h"

/* Fills r (a whole struct, zeroed by the caller) for models a and b, known
 * to overlap (their surfaces meet or one holds the other) and both solids
 * (a mesh built as a solid, or a shape): status BRACKETED (or TOUCHING),
 * depth_lower, depth_upper, translation, normal, the points, lower_center
 * and radii, signed_distance == -depth_upper, depth == depth_upper. o is
 * complete (defaults filled in). Fails only for out of memory, or with
 * KCBP_ERR_GEOMETRY if no translation could be verified (not seen: the
 * world boxes' separating translation always is). */
kcbp_status kcbp_depth_bracket(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                               const kcbp_pose *pose_b, const kcbp_signed_distance_options *o,
                               kcbp_signed_distance_result *r, kcbp_error *err);

#endif
