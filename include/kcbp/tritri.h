/* Triangle-triangle intersection, exact for double coordinates.
 *
 * Every sign the test takes (orient3d of a vertex against the other
 * triangle's plane, the Guigue-Devillers orientations, 2D orientations in
 * an axis plane for coplanar pairs and degenerate triangles) is exact:
 * a floating-point filter with a proven error bound, and exact expansion
 * arithmetic (GMP integers for extreme ranges of magnitudes) when the
 * filter cannot decide. No point is constructed. */
#ifndef KCBP_TRITRI_H
#define KCBP_TRITRI_H

#include <stdbool.h>

#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True exactly when the closed triangles a and b, their coordinates taken
 * as the exact rational numbers the doubles stand for, share at least one
 * point. Touching counts (a shared vertex, a vertex on the other's edge or
 * face, edges crossing at a point, coplanar overlap or containment);
 * nothing counts for being near. Degenerate triangles are the sets they
 * are: three collinear vertices are the segment they span, three equal
 * ones a point.
 *
 * In kcbp_collide the coordinates are A's vertices as stored and B's
 * vertices carried into A's frame in double (kcbp_pose_apply of the
 * relative pose, each rounded once): the answer is exact for those
 * coordinates, which differ from the true posed B by that rounding
 * (about 1e-16 of their magnitude).
 *
 * eps is ignored (it was a tolerance; kept so that callers compile; pass
 * 0). Coordinates must be finite: meshes and poses are checked when made,
 * not here; a NaN or infinite coordinate returns true. The result does not
 * depend on the order of a and b or of their vertices. No allocation but
 * GMP's (only for coordinates spanning hundreds of powers of two in one
 * predicate); safe to call from many threads. */
KCBP_API bool kcbp_tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps);

/* A length for models whose coordinates are of magnitude `scale` (see
 * kcbp_mesh_scale): KCBP_TRI_REL_TOL * scale. No longer used by the
 * triangle test; kcbp_collide pads its bounding-box tests by it, far above
 * the rounding of the coordinates the boxes are computed from, so that the
 * boxes never drop a pair the exact test would call touching. */
#define KCBP_TRI_REL_TOL 1e-10
static inline double kcbp_tri_tolerance(double scale) { return KCBP_TRI_REL_TOL * scale; }

#ifdef __cplusplus
}
#endif
#endif
