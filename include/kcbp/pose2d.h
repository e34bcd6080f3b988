/* Rigid 2D poses: world = R(angle) * local + trans, R the counter-clockwise
 * rotation.
 *
 * A pose is written "tx ty deg" (three numbers, whitespace separated): a
 * translation and a rotation of deg degrees, counter-clockwise (from +x
 * toward +y), about the shape's own origin; kcbp2d_pose_parse reads it.
 *
 * Rounding, documented because exact answers are for the posed coordinates
 * (collide2d.h): the angle is reduced modulo 360 (fmod, exact); a multiple
 * of 90 degrees gives c, s in {-1, 0, 1} exactly (so such poses move
 * coordinates without rounding except for the translation's addition);
 * otherwise c = cos(rad), s = sin(rad) with rad = deg * (pi / 180). A point
 * is moved as
 *   x' = (c*x - s*y) + tx,   y' = (s*x + c*y) + ty,
 * each operation rounded once, in this order (the build forbids fused
 * multiply-adds). kcbp2d_pose_apply is that formula; every 2D query uses it.
 * A translation beyond KCBP_COORD_MAX and any non-finite number are refused. */
#ifndef KCBP_POSE2D_H
#define KCBP_POSE2D_H

#include "error.h"
#include "vec2.h"
#include "pose.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double c, s;     /* cos and sin of the angle */
    kcbp_vec2 trans; /* the translation */
} kcbp2d_pose;

KCBP_API kcbp2d_pose kcbp2d_pose_identity(void);

/* Builds a pose from a translation and an angle in degrees (CCW). Fails
 * with KCBP_ERR_INVALID for non-finite numbers or |tx|, |ty| above
 * KCBP_COORD_MAX. */
KCBP_API kcbp_status kcbp2d_pose_from_angle(double tx, double ty, double deg, kcbp2d_pose *out, kcbp_error *err);

/* Parses "tx ty deg" (exactly three numbers; commas are not separators).
 * KCBP_ERR_PARSE names the word that is not a number or the count found. */
KCBP_API kcbp_status kcbp2d_pose_parse(const char *text, kcbp2d_pose *out, kcbp_error *err);

/* world = R p + t, rounded as stated above. */
static inline kcbp_vec2 kcbp2d_pose_apply(const kcbp2d_pose *pose, kcbp_vec2 p)
{
    kcbp_vec2 w = {(pose->c * p.x - pose->s * p.y) + pose->trans.x, (pose->s * p.x + pose->c * p.y) + pose->trans.y};
    return w;
}

/* R v (a direction: no translation). */
static inline kcbp_vec2 kcbp2d_pose_rotate(const kcbp2d_pose *pose, kcbp_vec2 v)
{
    kcbp_vec2 w = {pose->c * v.x - pose->s * v.y, pose->s * v.x + pose->c * v.y};
    return w;
}

/* The 3D pose of the same motion (rotation about +z, translation (tx, ty,
 * 0)): what the 3D library does at z = 0. The products and sums are the
 * same, so a point (x, y, 0) moves to (x', y', 0) with the same doubles. */
KCBP_API kcbp_pose kcbp2d_pose_to_3d(const kcbp2d_pose *pose);

#ifdef __cplusplus
}
#endif
#endif
