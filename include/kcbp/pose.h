/* Rigid poses: world = rot * local + trans.
 *
 * A pose is written as 7 numbers "tx ty tz ax ay az deg": a translation and a
 * rotation of deg degrees about the axis (ax, ay, az) through the mesh's own
 * origin. The axis is normalised here (any finite non-zero axis, however
 * large or small its components); a zero axis is accepted only with a zero
 * angle (the identity). A translation beyond KCBP_COORD_MAX (1e60) in
 * magnitude is refused. */
#ifndef KCBP_POSE_H
#define KCBP_POSE_H

#include <stddef.h>

#include "error.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    kcbp_mat3 rot;
    kcbp_vec3 trans;
} kcbp_pose;

KCBP_API kcbp_pose kcbp_pose_identity(void);

/* Builds a pose from a translation and an axis-angle rotation (degrees). */
KCBP_API kcbp_status kcbp_pose_from_axis_angle(kcbp_vec3 trans, kcbp_vec3 axis, double deg, kcbp_pose *out,
                                      kcbp_error *err);

/* Parses "tx ty tz ax ay az deg" (whitespace separated, nothing else but
 * trailing whitespace). */
KCBP_API kcbp_status kcbp_pose_parse(const char *text, kcbp_pose *out, kcbp_error *err);

/* Parses a poses file: one pose per line, blank lines and '#' comments
 * skipped. Errors are "path:line: message". On success *poses is malloc'ed
 * (free() it) and holds *count >= 1 poses. */
KCBP_API kcbp_status kcbp_pose_load_file(const char *path, kcbp_pose **poses, size_t *count, kcbp_error *err);

static inline kcbp_vec3 kcbp_pose_apply(const kcbp_pose *p, kcbp_vec3 v)
{
    return kcbp_v3_add(kcbp_mat3_mul_v3(&p->rot, v), p->trans);
}

/* a then b: (a * b)(x) = a(b(x)). */
KCBP_API kcbp_pose kcbp_pose_mul(const kcbp_pose *a, const kcbp_pose *b);
KCBP_API kcbp_pose kcbp_pose_inverse(const kcbp_pose *p);
/* The pose of frame B expressed in frame A: inverse(a) * b. */
KCBP_API kcbp_pose kcbp_pose_relative(const kcbp_pose *a, const kcbp_pose *b);

#ifdef __cplusplus
}
#endif
#endif
