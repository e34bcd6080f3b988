/* Penetration depth of two convex solids (shapes and hulls, shape.h): the
 * length of the shortest translation of B that separates them, its
 * direction and a witness point on each surface (internal; the public
 * entry is kcbp_signed_distance, signed_distance.h).
 *
 * Frames: b placed in a's frame by b_in_a; everything returned in a's
 * frame. Conventions of epa.h: normal is the unit direction from A toward
 * B in which B moves by depth to just touch; point_a - point_b == depth *
 * normal, point_a on A's surface and point_b on B's.
 *
 * Algorithms (depth.c): closed forms for sphere and capsule pairs (their
 * cores' distance against the radii) and for a sphere or capsule against a
 * box; the 15 separating axes for two boxes (the face normals of each and
 * the 9 cross products of their edges: the minimum overlap of the support
 * projections); EPA (epa.h) on the support functions otherwise (cylinders,
 * hulls), within KCBP_SDIST_CONVEX_REL_TOL of the pair's scale.
 * No allocation, no global state, never NaN. */
#ifndef KCBP_CONVEX_DEPTH_H
#define KCBP_CONVEX_DEPTH_H

#include <stdbool.h>

#include <kcbp/pose.h>
#include <kcbp/vec3.h>

#include "shape_internal.h"

typedef struct {
    bool overlap;       /* the solids share a point (false: the rest is 0) */
    double depth;       /* >= 0 (0: touching) */
    double depth_lower; /* a proven lower bound (== depth when exact) */
    bool exact;         /* depth within the tolerance; false: an upper bound only */
    kcbp_vec3 normal;   /* unit, from A toward B (a's frame) */
    kcbp_vec3 point_a, point_b;
    int iterations;     /* EPA's, 0 for closed forms */
} kcbp_convex_depth;

/* The penetration of shape a and shape b (placed by b_in_a) into *out.
 * When they do not overlap, out->overlap is false. */
void kcbp_shape_pair_depth(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                           kcbp_convex_depth *out);

#endif
