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

#include <stdbool.h>
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

/* Pose files: one pose per line, blank lines and '#' comments skipped.
 * Errors are "path:line: message". "-" is standard input; a FIFO, a pipe or
 * a device is read as a stream (a FIFO without a writer is an error after
 * a second's wait, never a hang), a line longer than KCBP_POSE_MAX_LINE
 * bytes or holding a NUL byte is an error, and a file without any pose is
 * "path: no poses in file". */
#define KCBP_POSE_MAX_LINE 65536u

/* Reads a pose file one pose at a time, in constant memory: the way to
 * answer each pose of a stream before the next one is written. */
typedef struct kcbp_pose_reader kcbp_pose_reader;
KCBP_API kcbp_status kcbp_pose_reader_open(kcbp_pose_reader **reader, const char *path, kcbp_error *err);
/* The next pose (*done false), or *done true after the last one. */
KCBP_API kcbp_status kcbp_pose_reader_next(kcbp_pose_reader *reader, kcbp_pose *pose, bool *done, kcbp_error *err);
/* The same for lines of n poses each (n = 1 or 2: 7 or 14 numbers, as a
 * sweep's from-pose and to-pose), into poses[0 .. n). */
KCBP_API kcbp_status kcbp_pose_reader_next_n(kcbp_pose_reader *reader, kcbp_pose *poses, int n, bool *done,
                                             kcbp_error *err);
/* Whether the next call can go on without waiting for more input (a whole
 * line is buffered, or the input has data or has ended): when not, a caller
 * streaming answers should flush them first. */
KCBP_API bool kcbp_pose_reader_ready(const kcbp_pose_reader *reader);
/* The number of the last line read (1-based). */
KCBP_API long kcbp_pose_reader_line(const kcbp_pose_reader *reader);
KCBP_API void kcbp_pose_reader_close(kcbp_pose_reader *reader);

/* The whole file at once: on success *poses is malloc'ed (free() it) and
 * holds *count >= 1 poses. */
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
