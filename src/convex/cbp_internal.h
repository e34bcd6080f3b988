/* Internals of the k-CBP module shared between its files (and its tests). */
#ifndef KCBP_CBP_INTERNAL_H
#define KCBP_CBP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <kcbp/cbp.h>
#include <kcbp/error.h>
#include <kcbp/pose.h>
#include <kcbp/vec3.h>
#include "hull.h"

/* Greedy successive plane removal on the planes of hull (a hull of points,
 * in coordinates where the points are within `size` of the origin). Removes
 * the plane whose removal adds the least volume until k planes remain or
 * every removal would leave the polytope unbounded. Returns the indices of
 * the kept facets in *keep (malloc'ed, *nkeep entries) and the volume the
 * removals added, as the greedy computed it, in *added. */
kcbp_status kcbp_greedy_select(const kcbp_hull *hull, const kcbp_vec3 *points, size_t k, double size,
                               uint32_t **keep, size_t *nkeep, double *added, kcbp_error *err);

/* The gap between two k-CBPs along the unit axis n (A's frame, from A
 * toward B; B placed by b_in_a), from every vertex of both: a positive gap
 * along any axis is a lower bound on their distance whatever produced the
 * axis (src/collide.c). */
double kcbp_cbp_gap(const kcbp_cbp *ca, const kcbp_cbp *cb, const kcbp_pose *b_in_a, kcbp_vec3 n);

#endif
