/* Rigid poses: world = rot * local + trans.
 *
 * A pose is written in one of three forms (whitespace separated; the same
 * on the command line, in pose and sweep files):
 *
 *   tx ty tz ax ay az deg         a translation and a rotation of deg degrees
 *                                 about the axis (ax, ay, az) through the
 *                                 mesh's own origin (Rodrigues' formula,
 *                                 kcbp_pose_from_axis_angle);
 *   quat tx ty tz qw qx qy qz     a translation and a unit quaternion, w
 *                                 first (as Eigen, FCL and trimesh write it),
 *                                 kcbp_pose_from_quat;
 *   matrix r00 r01 r02 tx r10 r11 r12 ty r20 r21 r22 tz
 *                                 the 3x4 matrix [R | t], row-major, or the
 *                                 same followed by the last row 0 0 0 1 of
 *                                 the 4x4 matrix (16 numbers),
 *                                 kcbp_pose_from_matrix.
 *
 * Nothing is guessed: 7 plain numbers are always an axis and an angle in
 * degrees, a quaternion must say quat, and an input that is not what its
 * form says is an error, never repaired:
 * - the axis is normalised (any finite non-zero axis, however large or small
 *   its components); a zero axis is accepted only with a zero angle;
 * - a quaternion must have length 1 to within KCBP_POSE_QUAT_TOL (1e-6, so
 *   7 significant digits); it stands for the rotation of q / |q|, computed
 *   in double in exactly this order (s = 2 / (w*w + x*x + y*y + z*z), each
 *   sum left to right):
 *     r00 = 1 - s*(y*y + z*z)   r01 = s*(x*y - w*z)       r02 = s*(x*z + w*y)
 *     r10 = s*(x*y + w*z)       r11 = 1 - s*(x*x + z*z)   r12 = s*(y*z - w*x)
 *     r20 = s*(x*z - w*y)       r21 = s*(y*z + w*x)       r22 = 1 - s*(x*x + y*y)
 *   (q and -q give the same rotation);
 * - a matrix's R is used exactly as written (not re-orthonormalised), after
 *   checking that it is a proper rotation: max over i, j of
 *   |(R^T R - I)_ij| <= KCBP_POSE_RIGID_TOL (1e-9), each entry computed as
 *   R0i*R0j + R1i*R1j + R2i*R2j - [i == j], and det R > 0 (no reflection);
 *   a 4x4 matrix's last row must be exactly 0 0 0 1.
 * A translation beyond KCBP_COORD_MAX (1e60) in magnitude, and any
 * non-finite number, are refused in every form. */
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

#define KCBP_POSE_QUAT_TOL 1e-6
#define KCBP_POSE_RIGID_TOL 1e-9

KCBP_API kcbp_pose kcbp_pose_identity(void);

/* Builds a pose from a translation and an axis-angle rotation (degrees). */
KCBP_API kcbp_status kcbp_pose_from_axis_angle(kcbp_vec3 trans, kcbp_vec3 axis, double deg, kcbp_pose *out,
                                      kcbp_error *err);

/* Builds a pose from a translation and a quaternion (w, x, y, z), w the
 * scalar part: |q| must be 1 to within KCBP_POSE_QUAT_TOL (above). */
KCBP_API kcbp_status kcbp_pose_from_quat(kcbp_vec3 trans, double w, double x, double y, double z, kcbp_pose *out,
                                         kcbp_error *err);

/* Builds a pose from a row-major matrix of n = 12 (3x4, [R | t]) or 16 (4x4)
 * numbers, checked as above; R and t are taken exactly. */
KCBP_API kcbp_status kcbp_pose_from_matrix(const double *m, int n, kcbp_pose *out, kcbp_error *err);

/* The same for count matrices of n numbers each, one after the other; on
 * failure the message starts with "pose I: " (0-based), as
 * kcbp_poses_from_axis_angle's. */
KCBP_API kcbp_status kcbp_poses_from_matrices(const double *m, size_t count, int n, kcbp_pose *out,
                                              kcbp_error *err);

/* Parses one pose in any of the three forms (nothing else but whitespace).
 * Errors name the form: "pose has 6 numbers, expected 7: ...", "pose:
 * quaternion ... is not a unit quaternion ...", "pose: not a rigid motion:
 * ...", "pose: unknown word 'x' ...". */
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
/* The same for lines of n poses each (n = 1 or 2: a sweep's from-pose and
 * to-pose, each in any of the three forms), into poses[0 .. n). In a line
 * of two, a matrix's numbers run to the next word (quat, matrix) or to the
 * end of the line, less the 7 of a plain pose that follows it: "matrix
 * <12 numbers> <7 numbers>" is a matrix then an axis-angle pose. */
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
/* The pose of frame B expressed in frame A: inverse(a) * b; exactly the
 * identity when a and b are equal (every number equal: coincident frames),
 * where the rounded product would be a few ulps off it. */
KCBP_API kcbp_pose kcbp_pose_relative(const kcbp_pose *a, const kcbp_pose *b);

#ifdef __cplusplus
}
#endif
#endif
