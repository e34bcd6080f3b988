/* Contact features of convex shapes and their clipping (internal; used by
 * query/manifold.c, include/kcbp/manifold.h).
 *
 * A feature is the part of a posed shape that faces a direction: a point,
 * a segment or a convex polygon, its points on the shape's surface. The
 * clipping is Sutherland-Hodgman against the side planes of a reference
 * feature (Box2D's b2ClipPolygons, Bullet's clipFaceAgainstHull), in
 * double: an estimate, never part of a yes/no answer. No allocation, no
 * global state. */
#ifndef KCBP_CONVEX_CLIP_H
#define KCBP_CONVEX_CLIP_H

#include <kcbp/pose.h>
#include <kcbp/vec3.h>

#include "shape_internal.h"

enum {
    KCBP_FEATURE_MAX = 16, /* points of a feature (a hull's face is cut to this many) */
    KCBP_CLIP_MAX = 2 * KCBP_FEATURE_MAX + 8,
};

/* The feature of shape g, placed by pose, that faces the unit direction d
 * (pose's frame) into out: 1 point (a sphere; a capsule or a cylinder's
 * side seen end on), 2 (a capsule's segment moved by its radius toward d,
 * a cylinder's side line), or a convex polygon in order (a box's face
 * most aligned with d, a cylinder's cap as 8 rim points when the axis is
 * within 45 degrees of d, a hull's vertices within 1e-6 of its reach of
 * its support along d). Returns the count. */
int kcbp_shape_feature(const kcbp_shape_geom *g, const kcbp_pose *pose, kcbp_vec3 d, kcbp_vec3 out[KCBP_FEATURE_MAX]);

/* The points of inc[0 .. ninc) (a point, a segment or a convex polygon in
 * order) on the inner side of every side plane of the reference ref[0 ..
 * nref): for a polygon (nref >= 3), the planes through its edges that
 * contain normal; for a segment (nref == 2), the two planes normal to it
 * at its ends. Into out (at most KCBP_CLIP_MAX); returns the count. */
int kcbp_clip_feature(const kcbp_vec3 *inc, int ninc, const kcbp_vec3 *ref, int nref, kcbp_vec3 normal,
                      kcbp_vec3 out[KCBP_CLIP_MAX]);

/* A polygon's unit normal (Newell's), 0 when it has no area. */
kcbp_vec3 kcbp_polygon_normal(const kcbp_vec3 *p, int n);

#endif
