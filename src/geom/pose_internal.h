/* Rotations from an axis and an angle, for callers that validated them once
 * (internal: not installed). */
#ifndef KCBP_POSE_INTERNAL_H
#define KCBP_POSE_INTERNAL_H

#include <kcbp/vec3.h>

/* The rotation by deg degrees about axis (right-handed), bit for bit the
 * rotation kcbp_pose_from_axis_angle makes of them, without its checks:
 * axis finite and not zero, deg finite (the caller's to ensure). A scene's
 * poses take it once per spinning object and frame (scene_desc.c). */
kcbp_mat3 kcbp_axis_angle_rotation(kcbp_vec3 axis, double deg);

#endif
