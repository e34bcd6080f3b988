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

/* True when triangles a and b share at least one point; touching counts: a
 * shared vertex, a shared edge, a vertex on the other's edge or face, edges
 * crossing at a point, coplanar overlap or containment.
 *
 * eps is a length in model units, not a relative constant (callers pass
 * kcbp_tri_tolerance of the model's scale), so scaling the model and eps
 * together does not change the answer:
 *  - a vertex within eps of the other triangle's plane counts as lying on it
 *    (Möller's snapping; the plane's normal is normalised for the test);
 *  - when one triangle lies in the other's plane that way, both are projected
 *    to the axis plane where the normal is largest and intersect when they
 *    overlap or come within eps there;
 *  - otherwise their intervals on the planes' common line intersect when
 *    they overlap or are within eps (on the line's dominant axis); where a
 *    vertex was snapped, the interval also covers the unsnapped one.
 * So truly touching pairs return true (given eps above the rounding in the
 * input, ~1e-15 of the coordinates' magnitude; kcbp_tri_tolerance is far
 * above it), and pairs with every vertex more than eps from the other's
 * plane are decided exactly up to eps. A vertex snapped onto a plane that
 * meets its own at a shallow angle t can make a gap of up to about
 * eps / sin(t) count as touching (inherent in snapping).
 *
 * Degenerate triangles, whose area is zero up to rounding or whose height
 * over their longest edge is at most eps, are replaced by that longest edge
 * (a point when all vertices coincide; the dropped part is within eps of
 * it): segment against triangle uses the same snapping and 2D tests;
 * segment against segment is true when their distance is at most eps.
 *
 * Any NaN or infinite coordinate returns true (conservative: such a pair is
 * never silently dropped). A negative or NaN eps is taken as 0. The result
 * does not depend on the order of a and b. No allocation; safe to call from
 * many threads. */
KCBP_API bool kcbp_tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps);

/* The tolerance for models whose coordinates are of magnitude `scale`
 * (see kcbp_mesh_scale): KCBP_TRI_REL_TOL * scale. */
#define KCBP_TRI_REL_TOL 1e-10
static inline double kcbp_tri_tolerance(double scale) { return KCBP_TRI_REL_TOL * scale; }

#ifdef __cplusplus
}
#endif
#endif
