/* Convex 2D shapes: a "core" (a point, a segment, or a convex polygon) and
 * an inflation radius r >= 0: the closed set of points within r of the
 * core's convex hull, as the 3D shapes of support.h.
 *
 *   circle:   core the point local[0] (the origin from the maker), r > 0;
 *   capsule:  core the segment local[0]-local[1], from the maker
 *             (-length/2, 0)-(length/2, 0) (along x), r > 0: a stadium;
 *   segment:  core local[0]-local[1], r = 0 (or a rounding r > 0);
 *   box:      core the rectangle [-hx, hx] x [-hy, hy] with (hx, hy) =
 *             local[0] (the maker halves the full sides, exactly), r >= 0;
 *   polygon:  core the convex polygon points[0..npoints), counter-clockwise,
 *             borrowed (the array must outlive the shape), r >= 0 (a
 *             rounded polygon).
 *
 * Frames: the local[] points and the polygon's points are in the shape's
 * own frame; a pose (pose2d.h) places it in the world.
 *
 * A polygon must be strictly convex and counter-clockwise, checked exactly
 * by kcbp2d_shape_check with orient2d: every three consecutive vertices
 * turn left (orient2d > 0: no repeated or collinear vertices) and the edge
 * directions wind once. kcbp2d_hull makes such a polygon from any points
 * (Andrew's monotone chain on exact orient2d signs).
 *
 * After a pose the rounded vertices can lose strict convexity (nearly
 * collinear vertices); every query then takes the core as the convex hull
 * of the posed vertices (collide2d.h states this), which it computes
 * exactly when the posed polygon is not strictly convex. The queries do
 * not check a polygon's convexity (an O(n) exact test left to
 * kcbp2d_shape_check): one that is not convex is taken as its hull. */
#ifndef KCBP_SHAPE2D_H
#define KCBP_SHAPE2D_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "vec2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KCBP2D_CIRCLE = 0,
    KCBP2D_CAPSULE,
    KCBP2D_SEGMENT,
    KCBP2D_BOX,
    KCBP2D_POLYGON,
} kcbp2d_shape_kind;

/* Limits as the 3D shapes' (shape.h): every length within [KCBP2D_SHAPE_MIN,
 * KCBP2D_SHAPE_MAX] (a capsule's length and a radius that may be 0 may also
 * be 0), every coordinate at most KCBP_COORD_MAX in magnitude, and at most
 * KCBP2D_POLYGON_MAX polygon vertices (larger convex sets: a model). */
#define KCBP2D_SHAPE_MIN 1e-12
#define KCBP2D_SHAPE_MAX 1e12
#define KCBP2D_POLYGON_MAX 1000000u

typedef struct {
    kcbp2d_shape_kind kind;
    double radius;           /* inflation, >= 0 */
    kcbp_vec2 local[2];      /* see the kinds above */
    const kcbp_vec2 *points; /* KCBP2D_POLYGON: borrowed, counter-clockwise */
    uint32_t npoints;
} kcbp2d_shape;

/* Makers: the struct filled in (not checked: see kcbp2d_shape_check). */
KCBP_API kcbp2d_shape kcbp2d_shape_circle(double radius);
KCBP_API kcbp2d_shape kcbp2d_shape_capsule(double radius, double length);
KCBP_API kcbp2d_shape kcbp2d_shape_segment(kcbp_vec2 p0, kcbp_vec2 p1);
/* A width x height rectangle centred on the origin, rounded by radius. */
KCBP_API kcbp2d_shape kcbp2d_shape_box(double width, double height, double radius);
KCBP_API kcbp2d_shape kcbp2d_shape_polygon(const kcbp_vec2 *points, uint32_t npoints, double radius);

/* KCBP_ERR_INVALID with a message naming the field: an unknown kind, a
 * non-finite number, a radius < 0 (circles and capsules: <= 0), lengths
 * out of the limits, a polygon with fewer than 3 or more than
 * KCBP2D_POLYGON_MAX points, or one that is not strictly convex and
 * counter-clockwise (the message names the first bad vertex). */
KCBP_API kcbp_status kcbp2d_shape_check(const kcbp2d_shape *shape, kcbp_error *err);

/* "circle", "capsule", "segment", "box", "polygon". */
KCBP_API const char *kcbp2d_shape_kind_name(kcbp2d_shape_kind kind);

/* The convex hull of points[0..n) (finite), counter-clockwise, strictly
 * convex (collinear points dropped), starting at the leftmost point (the lowest of those):
 * Andrew's monotone chain (A. M. Andrew, Inf. Proc. Letters 9, 1979) with
 * every turn decided by the exact orient2d. out must hold n points; *nout is
 * 1 (all points equal), 2 (all collinear: the two extremes) or >= 3.
 * KCBP_ERR_INVALID for n == 0 or a non-finite point, KCBP_ERR_NOMEM. */
KCBP_API kcbp_status kcbp2d_hull(const kcbp_vec2 *points, size_t n, kcbp_vec2 *out, size_t *nout, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
