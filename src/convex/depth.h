/* Penetration depth of two convex solids (shapes and hulls, shape.h): the
 * length of the shortest translation of B after which the two solids'
 * interiors are disjoint, its direction and a witness point on each
 * surface (internal; the public entry is kcbp_signed_distance,
 * signed_distance.h).
 *
 * Frames: b placed in a's frame by b_in_a (NULL: the identity); everything
 * returned in a's frame. Conventions of epa.h: normal is the unit
 * direction from A toward B in which B moves by depth to just touch;
 * point_a - point_b == depth * normal, point_a on A's surface and point_b
 * on B's.
 *
 * What is computed: depth = min over unit n of h_A(n) + h_B(-n) (h the
 * support functions; the minimum is attained at a facet normal of A - B),
 * and n attaining it. Scale below: the pair's, the largest coordinate
 * magnitude of the two shapes in A's frame.
 *
 * Algorithms (depth.c), and how exact:
 *   - sphere and capsule pairs: their cores' distance d (closest points of
 *     two segments) against the radii' sum R: depth R - d, or R when the
 *     cores meet; to rounding (about 1e-16 of the scale, tested);
 *   - a sphere or capsule against a box, in the box's frame: core outside
 *     the box, the radius less the segment-box distance (its squared
 *     distance is piecewise quadratic in the segment's parameter: each
 *     piece minimised in closed form); core meeting the box, the radius
 *     plus the least overlap over the facet normals of box - segment (the
 *     box's 3 face normals and e_i x u, u the segment's direction), which
 *     is the minimum translation of the whole segment, not the deepest
 *     point's; to rounding;
 *   - a sphere against a cylinder: outside, the radius less the distance
 *     to the cylinder; inside, the radius plus the nearer exit (side or
 *     cap); to rounding;
 *   - two boxes: the 15 separating axes (the face normals of each and the
 *     9 cross products of their edges; Gottschalk, Lin and Manocha,
 *     "OBBTree", SIGGRAPH 1996), minimum overlap of the support
 *     projections; an edge axis e_i x b_j is made of b_j's components (no
 *     cancellation) and skipped only below 1e-15 in length (parallel edges:
 *     the error is at most that angle times the scale); witnesses from the
 *     deepest feature (a face clipped against the other box's deepest
 *     feature, Sutherland-Hodgman; or the closest points of two edges); to
 *     rounding (about 5e-16 of the scale, tested);
 *   - the rest (a cylinder against anything but a sphere, a hull against
 *     anything): GJK then EPA (epa.h) on the support functions, stopped
 *     when the support value along the nearest face's normal is within
 *     1e-10 of its distance (relative, or 1e-10 of the scale): depth within
 *     KCBP_SDIST_CONVEX_REL_TOL (1e-9) of the scale (tested: hulls against
 *     the exact polytope depth to 3e-16; cylinders between inscribed and
 *     circumscribed prisms and locally optimal to 1e-9). When EPA stops
 *     without converging (its caps, a degenerate polytope, e.g. two
 *     coaxial cylinders) exact is false: depth is an upper bound (moving B
 *     by depth * normal separates them) and depth_lower a lower bound.
 *
 * Witnesses: on the surfaces to rounding for the closed forms and the box
 * axes (1e-12 of the scale, tested). For EPA pairs: B's support point
 * along -normal with point_a = point_b + depth * normal when that lies on
 * A (vertex-face and curved contacts), or the same with the roles
 * swapped; else a point both support features hold once B is moved out by
 * depth (edge-edge, face-face: GJK on the features' points, a cylinder's
 * cap as 16 rim points); else EPA's own. On the surfaces within 1e-6 of
 * the scale (tested; 3.1e-7 measured, box-cylinder; hulls to rounding,
 * cylinders about 1e-10). The identity point_a - point_b == depth * normal
 * holds to rounding in every case.
 *
 * Overlap: decided exactly for sphere/capsule pairs and against a box
 * (closest.h's exact predicates, as kcbp_shape_pair_collide), by the 15
 * axes' signs for two boxes, in double for a sphere and a cylinder, and by
 * GJK (within KCBP_GJK_TOUCH_REL of the scale) for EPA pairs.
 *
 * Degenerate cases (all tested at scales 2^-20, 1 and 2^20):
 *   - touching (depth 0): overlap is true, depth 0, normal the direction
 *     of the closest points (or the touching face's normal);
 *   - cores meeting (a sphere's centre on a capsule's segment, crossing
 *     segments): depth R along the segments' common normal, oriented
 *     toward B's core's centre (+ when perpendicular to it); parallel or
 *     coincident segments, or two points (coincident sphere centres, a
 *     zero-length capsule): the normal is axis x e_k normalised, e_k the
 *     coordinate axis of A's frame least aligned with the axis (the longer
 *     core's), and +z of A's frame when both cores are points; a gap below
 *     8 ulps of the cores' coordinates counts as meeting (its direction is
 *     rounding);
 *   - identical coincident boxes: the smallest full side, along +e_i of
 *     that side (A's face axes come first, then B's, then the edges; an
 *     edge axis wins only when deeper by 1e-12 of the scale); an axis whose
 *     projection of the centres' offset is 0 is taken in its + sense;
 *   - a sphere's centre on a cylinder's axis with the side the nearer exit:
 *     +x of the cylinder's frame; at mid height with the cap the exit: +z;
 *     a tie between side and cap: the cap;
 *   - never NaN: a non-finite intermediate (impossible for valid input)
 *     gives depth 0, exact false, normal +z.
 *
 * No allocation, no global state (EPA's scratch is on the stack). */
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
    bool exact;         /* depth within KCBP_SDIST_CONVEX_REL_TOL of the scale; false: an upper bound only */
    kcbp_vec3 normal;   /* unit, from A toward B (a's frame) */
    kcbp_vec3 point_a, point_b;
    int iterations;     /* EPA's, 0 for closed forms */
} kcbp_convex_depth;

/* The penetration of shape a and shape b (placed by b_in_a) into *out.
 * When they do not overlap, out->overlap is false. */
void kcbp_shape_pair_depth(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                           kcbp_convex_depth *out);

#endif
