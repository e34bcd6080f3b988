/* Distance, penetration depth and witness points of two posed convex 2D
 * shapes (shape2d.h).
 *
 * Definitions and frames (as signed_distance.h in 3D):
 *   - points are in the world frame (the poses applied, pose2d.h);
 *   - normal is a unit vector from A toward B;
 *   - apart: distance > 0, point_a on A and point_b on B closest, with
 *     point_b - point_a == distance * normal (up to rounding);
 *   - overlapping: depth >= 0 is the length of the shortest translation of
 *     B after which the interiors are disjoint; moving B by depth * normal
 *     does it; point_a on A's boundary and point_b on B's, with
 *     point_a - point_b == depth * normal, so signed_distance == -depth and
 *     point_b - point_a == signed_distance * normal in both cases.
 *
 * What is exact, what is computed (status):
 *   - APART / TOUCHING / OVERLAPPING: APART versus the other two is
 *     kcbp2d_collide's exact answer (margin 0). TOUCHING: the shapes meet
 *     and the depth found is <= KCBP2D_TOUCH_REL_TOL times the scale (the
 *     largest posed coordinate magnitude plus the radii), or the interiors
 *     are proven disjoint (radii 0, cores' interiors apart).
 *   - distance: GJK on the cores (E. G. Gilbert, D. W. Johnson, S. S.
 *     Keerthi, IEEE J. Robotics and Automation 4(2), 1988; the 2D simplex
 *     solved by Voronoi regions as in Box2D's b2Distance, E. Catto), the
 *     last closest features re-measured as a segment pair, minus the radii;
 *     accurate to a few ulps of the scale (GJK converges in about log n
 *     steps on round polygons: 13 for 25000 vertices). Two polygons
 *     without radius that the separating-axis test proves apart are
 *     measured without GJK when a certificate holds (iterations 0): a
 *     vertex facing an edge, or two vertices, whose distance (the upper
 *     bound, attained by the witnesses) agrees within 64 u S with the gap
 *     of a line or slab between the polygons (a lower bound, its rounding
 *     bounded), u = 2^-53 and S the scale: accurate to about 100 u S.
 *   - depth of overlapping cores: the separating-axis minimum over the
 *     edge normals of both cores (the Minkowski difference's edges are the
 *     cores' edges, so this minimum is the cores' penetration depth; a
 *     segment core gives both normals, a point none), plus r_a + r_b (the
 *     inflation adds the radii exactly to a convex set's inner distance).
 *     This is what EPA converges to, found directly: every core here is a
 *     polygon. Cores apart but within r_a + r_b: r_a + r_b - core distance,
 *     along the cores' closest points.
 *   - Two point cores at the same place (concentric circles) have no
 *     direction: normal is (0, 1) by convention, depth r_a + r_b.
 *   - Without the depth (options want_depth false): two polygons without
 *     radius that meet get the default call's status (TOUCHING or
 *     OVERLAPPING as above: the separating-axis test proves on which side
 *     of the tolerance the depth lies, with a margin of 2^-20 of it, and
 *     computes the depth when it cannot) and distance 0, but no depth,
 *     normal or witnesses (depth_computed false). Pairs apart, and every
 *     other pair of shapes, are answered as by default.
 * Never NaN: every number is finite.
 *
 * Growable structs (style §4.3), as collide2d.h. */
#ifndef KCBP_DISTANCE2D_H
#define KCBP_DISTANCE2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pose2d.h"
#include "shape2d.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KCBP2D_TOUCH_REL_TOL 1e-12
#define KCBP2D_GJK_MAX_ITERATIONS_DEFAULT 64

typedef struct {
    uint32_t size; /* sizeof the caller's struct: set by kcbp2d_distance_options_default */
    int max_iterations; /* GJK's cap (>= 1); default KCBP2D_GJK_MAX_ITERATIONS_DEFAULT */
    bool want_depth;    /* default true. false: when two polygons without radius meet, their depth,
                           normal and witnesses may be left uncomputed (depth_computed false, see
                           the result); status, distance and everything about shapes apart are
                           the same as with true. Box2D's b2Distance computes no depth either. */
} kcbp2d_distance_options;

KCBP_API void kcbp2d_distance_options_init(kcbp2d_distance_options *o, uint32_t size);

static inline kcbp2d_distance_options kcbp2d_distance_options_default(void)
{
    kcbp2d_distance_options o;
    kcbp2d_distance_options_init(&o, (uint32_t)sizeof o);
    return o;
}

typedef enum {
    KCBP2D_APART = 0,
    KCBP2D_TOUCHING,
    KCBP2D_OVERLAPPING,
} kcbp2d_distance_status;

/* "apart", "touching", "overlapping". */
KCBP_API const char *kcbp2d_distance_status_name(kcbp2d_distance_status s);

typedef struct {
    kcbp2d_distance_status status;
    double distance;        /* >= 0; 0 unless apart */
    double depth;           /* >= 0; 0 when apart */
    double signed_distance; /* distance when apart, -depth otherwise */
    kcbp_vec2 normal;       /* unit, A toward B */
    kcbp_vec2 point_a, point_b; /* world frame, see above */
    double scale;           /* the length the tolerances are relative to */
    int iterations;         /* GJK's; == max_iterations: cut short, distance is then an upper bound
                               (a distance between points of the shapes), the status still exact;
                               0: no GJK step (overlapping, or apart by a certificate, see above) */
    bool depth_computed;    /* true, except with want_depth false for two polygons (radii 0) that
                               meet and whose status the separating-axis test settled without the
                               depth: then status is exact as above (the one the default call
                               reports: TOUCHING when its depth would be within the tolerance,
                               OVERLAPPING when beyond), distance 0, and depth, signed_distance 0,
                               normal (0, 1), point_a and point_b (0, 0) are not answers */
} kcbp2d_distance_result;

/* As kcbp2d_collide for the inputs and errors; options NULL: defaults. */
KCBP_API kcbp_status kcbp2d_distance_sized(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                           const kcbp2d_pose *pose_b, const kcbp2d_distance_options *options,
                                           kcbp2d_distance_result *result, size_t result_size, kcbp_error *err);

static inline kcbp_status kcbp2d_distance(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                          const kcbp2d_pose *pose_b, const kcbp2d_distance_options *options,
                                          kcbp2d_distance_result *result, kcbp_error *err)
{
    return kcbp2d_distance_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

#ifdef __cplusplus
}
#endif
#endif
