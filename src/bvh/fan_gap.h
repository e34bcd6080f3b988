/* Bounds on nodes whose triangles share a vertex (KCBP_NODE_FAN,
 * kcbp_node_fan in aabb_tree.h: a fan's apex, a disc's centre), used by
 * the distance traversal (tree_distance.c) and the collision traversal
 * (aabb_tree.c).
 *
 * A fan node's points (its triangles) lie in the convex hull of its shared
 * vertex and its other vertices, which both of its boxes hold; so the
 * least of u.x over the node is at least the least over the vertex and a
 * box (kcbp_fan_min), exact when the vertex is the lowest point. Two fans
 * whose vertices face each other (two cones tip to tip, two half-discs
 * fanned from points across a diameter: every triangle pair holds both
 * vertices and is at their distance, or within a hair of it) are then
 * apart by at least the gap between the two supports along the line
 * through their vertices, exact at the vertices (kcbp_fan_pair_gap): the
 * boxes, the slabs and the triangle tests cannot tell such pairs apart,
 * and each costs a triangle test (N x M of them). */
#ifndef KCBP_FAN_GAP_H
#define KCBP_FAN_GAP_H

#include <math.h>

#include "aabb_tree.h"

/* A fan node moved into a frame (its own, or the other tree's): its shared
 * vertex, and its other vertices' two boxes, each as a centre and its axes
 * in that frame (rows) with the half-sizes. */
typedef struct {
    kcbp_vec3 apex, c, oc, e, oe, axis;
    kcbp_mat3 ax, oax;
} kcbp_fan_moved;

/* The least of u.x over the fan's points x (the shared vertex, or a point
 * of both boxes of the others, which hold them). */
static inline double kcbp_fan_min(const kcbp_fan_moved *m, kcbp_vec3 u)
{
    kcbp_vec3 ua = kcbp_mat3_mul_v3(&m->ax, u), uo = kcbp_mat3_mul_v3(&m->oax, u);
    double lb = kcbp_v3_dot(u, m->c) - kcbp_v3_dot(kcbp_v3_abs(ua), m->e);
    double lo = kcbp_v3_dot(u, m->oc) - kcbp_v3_dot(kcbp_v3_abs(uo), m->oe);
    double others = lb > lo ? lb : lo, va = kcbp_v3_dot(u, m->apex);
    return va < others ? va : others;
}

/* Fan f (of the node whose oriented box is fo) in its own tree's frame. */
static inline kcbp_fan_moved kcbp_fan_own(const kcbp_node_fan *f, const kcbp_obb *fo)
{
    kcbp_fan_moved m = {f->apex, f->center, f->ocenter, f->extent, f->oextent, f->axis, kcbp_mat3_identity(), fo->axes};
    return m;
}

/* B's fan f moved into A's frame by b_in_a (x -> R x + t). */
static inline kcbp_fan_moved kcbp_fan_b_into_a(const kcbp_node_fan *f, const kcbp_obb *fo, const kcbp_pose *b_in_a)
{
    kcbp_fan_moved m;
    m.apex = kcbp_pose_apply(b_in_a, f->apex);
    m.c = kcbp_pose_apply(b_in_a, f->center);
    m.oc = kcbp_pose_apply(b_in_a, f->ocenter);
    m.ax = kcbp_mat3_transpose(&b_in_a->rot);
    /* rows: fo's axes (rows, in B's frame) turned into A's frame */
    for (int i = 0; i < 3; i++) {
        kcbp_vec3 r = {fo->axes.m[i][0], fo->axes.m[i][1], fo->axes.m[i][2]};
        kcbp_vec3 w = kcbp_mat3_mul_v3(&b_in_a->rot, r);
        m.oax.m[i][0] = w.x;
        m.oax.m[i][1] = w.y;
        m.oax.m[i][2] = w.z;
    }
    m.e = f->extent;
    m.oe = f->oextent;
    m.axis = kcbp_mat3_mul_v3(&b_in_a->rot, f->axis);
    return m;
}

/* A lower bound on the distance between two fan nodes given in one frame,
 * less r: the gap along direction u (from a toward b), between a's
 * highest point and b's lowest along it (a gap along any direction is
 * a lower bound on the distance: projecting onto a line does not lengthen
 * any segment). r covers the rounding: the moves of b's fan and of the
 * triangles' vertices (a few ulps of the coordinates each), the dot
 * products and the division (a few ulps of the coordinates' size M once
 * divided by |u|); 2 * 256 ulps of M, as the distance traversal's, leaves
 * more than ten times that. NaN or a value <= 0 when u is 0 or does not
 * separate the fans (callers test g > 0, or compare as a lower bound: NaN
 * never prunes). */
static inline double kcbp_fan_gap_along(const kcbp_fan_moved *a, const kcbp_fan_moved *b, kcbp_vec3 u, double r)
{
    double u2 = kcbp_v3_len2(u);
    if (!(u2 > 0))
        return 0;
    return (kcbp_fan_min(b, u) + kcbp_fan_min(a, kcbp_v3_neg(u))) / sqrt(u2) - r;
}

/* The gap of kcbp_fan_gap_along along the line through the shared
 * vertices, or, when that does not separate the fans (the vertices offset
 * sideways as well as apart: a's rim then rises above the plane through
 * its vertex normal to the line), along a's axis (kcbp_node_fan.axis: the
 * whole cone's or half-disc's, which a part of it, a wedge, lies behind
 * too) and against b's: each exact at the vertices when the fans lie
 * behind their vertices along it. The largest found, stopping at the
 * first positive. */
static inline double kcbp_fan_pair_gap(const kcbp_fan_moved *a, const kcbp_fan_moved *b, double r)
{
    double g = kcbp_fan_gap_along(a, b, kcbp_v3_sub(b->apex, a->apex), r);
    if (g > 0)
        return g;
    double ga = kcbp_fan_gap_along(a, b, a->axis, r);
    g = ga > g ? ga : g;
    if (g > 0)
        return g;
    double gb = kcbp_fan_gap_along(a, b, kcbp_v3_neg(b->axis), r);
    return gb > g ? gb : g;
}

#endif
