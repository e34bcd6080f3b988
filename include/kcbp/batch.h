/* Many poses of one pair of models in one call.
 *
 * For callers that would otherwise loop over kcbp_collide_cached themselves
 * through a foreign-function interface (the Python package), where the cost
 * of each crossing would dominate small queries: the loop runs here, with
 * one pair cache carried from pose to pose, exactly as `kcbp collide
 * --poses` runs it, so the answers are the CLI's. */
#ifndef KCBP_BATCH_H
#define KCBP_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "error.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tests model a at pose_a (NULL: identity) against model b at each of the n
 * poses poses_b[0 .. n) and writes out[i] = 1 when they collide, else 0.
 * options NULL: kcbp_collide_options_default with KCBP_CONTACTS_NONE (the
 * answer only, as fast as it comes). One kcbp_pair_cache is carried from
 * each pose to the next (kcbp_collide_cached: the same answers as
 * kcbp_collide, sooner on trajectories). n == 0 does nothing. On failure
 * out[0 .. i) hold the answers of the poses before the failing one. */
KCBP_API kcbp_status kcbp_collide_poses(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                        const kcbp_pose *poses_b, size_t n, const kcbp_collide_options *options,
                                        uint8_t *out, kcbp_error *err);

/* Poses in bulk from 7n numbers, each seven "tx ty tz ax ay az deg" as
 * kcbp_pose_from_axis_angle takes them (the same rounding: the poses of a
 * file read by kcbp_pose_load_file). On failure the message names the pose
 * ("pose i: ..."). */
KCBP_API kcbp_status kcbp_poses_from_axis_angle(const double *values, size_t n, kcbp_pose *out, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
