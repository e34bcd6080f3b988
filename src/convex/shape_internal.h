/* A shape as the queries see it (internal): its parameters, its box, its
 * support function for GJK and EPA, and the shape-shape tests and
 * distances (shape.c). A model of a shape (query/model_internal.h) holds
 * one, in place: its kcbp_convex points into it, so it never moves once
 * made. */
#ifndef KCBP_SHAPE_INTERNAL_H
#define KCBP_SHAPE_INTERNAL_H

#include <stdbool.h>

#include <kcbp/convex_hull.h>
#include <kcbp/pose.h>
#include <kcbp/shape.h>
#include <kcbp/support.h>

typedef struct {
    kcbp_shape def;        /* kind and parameters (a hull's: kind only) */
    kcbp_aabb local;       /* its box in its own frame */
    kcbp_vec3 half;        /* box: its half sides; cylinder: (r, r, L/2); capsule: its
                              segment's half length in z */
    kcbp_vec3 pts[8];      /* capsule: its segment's ends; box: its corners */
    kcbp_convex convex;    /* the core and radius GJK and EPA take */
    kcbp_convex_hull *hull; /* KCBP_SHAPE_HULL */
    double scale;          /* as kcbp_mesh_scale of its box */
    double reach;          /* the largest distance of a point of the shape from its origin */
} kcbp_shape_geom;

/* Makes *g in place (it must not move afterwards). */
kcbp_status kcbp_shape_geom_init(kcbp_shape_geom *g, const kcbp_shape *s, kcbp_error *err);
kcbp_status kcbp_shape_geom_init_hull(kcbp_shape_geom *g, const kcbp_vec3 *points, size_t npoints, kcbp_error *err);
void kcbp_shape_geom_clear(kcbp_shape_geom *g);

/* A tessellation of the shape's surface for display (kcbp_shape_tessellate
 * with 48 segments; a hull's facets, fanned). */
kcbp_status kcbp_shape_geom_display(const kcbp_shape_geom *g, kcbp_mesh **out, kcbp_error *err);

/* Where p (the shape's frame) is: inside, on the surface, outside; exact for
 * spheres, capsules, boxes and cylinders; a hull's by GJK within band. */
int kcbp_shape_geom_point_side(const kcbp_shape_geom *g, kcbp_vec3 p, double band);

/* The world box of the posed shape: exact for spheres, capsules, boxes
 * and cylinders up to the rounding of the pose, a hull's transformed
 * vertices' box. */
kcbp_aabb kcbp_shape_geom_world_bounds(const kcbp_shape_geom *g, const kcbp_pose *pose);

/* The largest distance of a point of the shape from the line through its
 * origin along the unit vector axis (a bound on a rotation's speed). */
double kcbp_shape_geom_axis_radius(const kcbp_shape_geom *g, kcbp_vec3 axis);

/* The shape's core as a convex set in the frame of another body, placed
 * by pose: the centre of a sphere, the segment of a capsule (points in
 * pts[0..n), n = 1 or 2, radius r); other shapes have none (n = 0). */
int kcbp_shape_geom_core(const kcbp_shape_geom *g, const kcbp_pose *pose, kcbp_vec3 pts[2], double *r);

/* ---- two shapes ---------------------------------------------------------- */

/* Whether shape a (its frame) and shape b placed by b_in_a share a point:
 * exact for every pair of spheres, capsules and boxes but two boxes (for
 * b's centre, segment or corners carried into a's frame in double, or a's
 * into b's for a sphere or capsule against a box); GJK otherwise, "collide"
 * when the gap is not proven above band (kcbp_shape.h's KCBP_SHAPE_GJK_BAND
 * times the pair's scale). *exact: whether the answer is exact. */
bool kcbp_shape_pair_collide(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a, double band,
                             bool *exact);

/* The distance between the two solids (0 when they meet) and a closest
 * point on each, in a's frame (one shared point when they meet): closed
 * forms for spheres and capsules, GJK otherwise (EPA's witnesses are not
 * needed: a shared point comes from GJK's simplex). */
double kcbp_shape_pair_distance(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                                kcbp_vec3 *pa, kcbp_vec3 *pb, double *lower);

/* GJK's distance between two convex shapes (support.h) with a shared point
 * when they overlap: the weighted sum of the simplex's points of a when it
 * encloses the origin (those of a and b then coincide). The distance of the
 * witnesses, and in *lower (may be NULL) GJK's proven lower bound (the same
 * but when GJK stopped at its iteration cap). */
double kcbp_convex_distance_points(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                                   kcbp_vec3 *pa, kcbp_vec3 *pb, double *lower);

#endif
