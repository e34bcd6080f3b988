/* Triangle-triangle intersection: Möller's interval-overlap test.
 *
 * T. Möller, "A Fast Triangle-Triangle Intersection Test", Journal of
 * Graphics Tools 2(2), 1997, including its coplanar case. */
#ifndef KCBP_TRITRI_H
#define KCBP_TRITRI_H

#include <stdbool.h>

#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when triangles a and b share at least one point. Touching counts: a
 * shared vertex, a shared edge, a vertex on the other's face, coplanar
 * overlap. eps is a length (not an absolute constant: callers pass
 * kcbp_tri_tolerance of the model's scale); a vertex within eps of the other
 * triangle's plane is treated as lying on it. Degenerate (zero-area)
 * triangles are handled as segments or points. */
bool kcbp_tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps);

/* The tolerance for models whose coordinates are of magnitude `scale`
 * (see kcbp_mesh_scale): KCBP_TRI_REL_TOL * scale. */
#define KCBP_TRI_REL_TOL 1e-10
static inline double kcbp_tri_tolerance(double scale) { return KCBP_TRI_REL_TOL * scale; }

#ifdef __cplusplus
}
#endif
#endif
