/* A lower bound on the distance between two fan nodes (KCBP_NODE_FAN,
 * fan_gap.h) from the convex hulls of their points: used by the distance's
 * second stage (tree_distance.c) on fans that face each other moved
 * sideways (two cones tip to tip, two half-discs fanned across a diameter,
 * offset across their axes), where the line through the shared vertices
 * and the fans' axes leave every wedge of one within about 1 % of the
 * other's, and the boxes cannot part them either.
 *
 * Each fan node's points lie in the hull H of its shared vertex and the
 * eight corners of the oriented box of its other vertices (fan_gap.h); the
 * distance between the nodes is at least the distance between the two
 * hulls. A few steps of GJK (Gilbert, Johnson and Keerthi) on the
 * Minkowski difference of the two 9-point sets find a direction v near the
 * hulls' closest pair; the bound returned is the gap along v
 * (kcbp_fan_gap_along), which is a lower bound whatever v is: projecting
 * onto a line does not lengthen any segment, and kcbp_fan_min is at most
 * the least of v.x over the node's points (its vertex, or a point of both
 * boxes of the others). So the GJK steps are rounded freely (they only
 * choose v); the rounding of the bound itself is kcbp_fan_gap_along's,
 * covered by its r. Exact at the hulls' distance when v is their closest
 * pair's direction: on two wedges of cones near their apexes the hulls are
 * the wedges themselves, up to the boxes' padding and the rim's sag. */
#ifndef KCBP_FAN_HULL_H
#define KCBP_FAN_HULL_H

#include "fan_gap.h"
#include "geom/closest.h"

/* The point of fan m's hull (vertex and oriented box corners) least along
 * u. */
static inline kcbp_vec3 kcbp_fan_hull_low(const kcbp_fan_moved *m, kcbp_vec3 u)
{
    kcbp_vec3 uo = kcbp_mat3_mul_v3(&m->oax, u), p = m->oc;
    const double s[3] = {uo.x, uo.y, uo.z}, e[3] = {m->oe.x, m->oe.y, m->oe.z};
    double low = kcbp_v3_dot(u, m->oc);
    for (int k = 0; k < 3; k++) {
        kcbp_vec3 row = {m->oax.m[k][0], m->oax.m[k][1], m->oax.m[k][2]};
        double w = s[k] > 0 ? -e[k] : e[k];
        p = kcbp_v3_add(p, kcbp_v3_scale(row, w));
        low -= fabs(s[k]) * e[k];
    }
    return kcbp_v3_dot(u, m->apex) < low ? m->apex : p;
}

/* The point of segment or triangle s (n = 2 or 3 points) nearest the
 * origin. */
static inline kcbp_vec3 kcbp_fan_hull_nearest(const kcbp_vec3 *s, int n)
{
    if (n == 3) {
        kcbp_vec3 q;
        kcbp_cp_point_tri(kcbp_v3(0, 0, 0), s, &q);
        return q;
    }
    kcbp_vec3 d = kcbp_v3_sub(s[1], s[0]);
    double d2 = kcbp_v3_len2(d), t = d2 > 0 ? -kcbp_v3_dot(s[0], d) / d2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return kcbp_v3_add(s[0], kcbp_v3_scale(d, t));
}

/* The lower bound of the top of the file on the distance between fans a
 * and b (one frame), less r; or, when the hulls come within stop of each
 * other (no bound above stop can be found) or overlap, a value not above
 * the hulls' distance (possibly -INFINITY). At most `steps` GJK steps. */
static inline double kcbp_fan_hull_gap(const kcbp_fan_moved *a, const kcbp_fan_moved *b, double r, double stop,
                                       int steps)
{
    /* the simplex: up to three points of B - A (a face of a tetrahedron
     * kept when the fourth point does not enclose the origin) */
    kcbp_vec3 s[4];
    int n = 1;
    kcbp_vec3 v = kcbp_v3_sub(b->apex, a->apex);
    s[0] = v;
    double best = -INFINITY;
    for (int it = 0; it < steps; it++) {
        double v2 = kcbp_v3_len2(v);
        if (!(v2 > 0))
            return best;
        /* the point of B - A least along v: B's lowest less A's highest */
        kcbp_vec3 w = kcbp_v3_sub(kcbp_fan_hull_low(b, v), kcbp_fan_hull_low(a, kcbp_v3_neg(v)));
        double vw = kcbp_v3_dot(v, w), vn = sqrt(v2);
        /* the hulls' distance is between vw / |v| and |v| */
        if (vw / vn > stop || v2 - vw <= 1e-6 * v2 || vn <= stop || it + 1 == steps) {
            double g = kcbp_fan_gap_along(a, b, v, r);
            return g > best ? g : best;
        }
        s[n++] = w;
        if (n == 4) {
            /* the origin inside the tetrahedron: the hulls overlap */
            bool inside = true;
            for (int f = 0; f < 4 && inside; f++) {
                kcbp_vec3 p0 = s[(f + 1) & 3], p1 = s[(f + 2) & 3], p2 = s[(f + 3) & 3];
                kcbp_vec3 nrm = kcbp_v3_cross(kcbp_v3_sub(p1, p0), kcbp_v3_sub(p2, p0));
                double so = -kcbp_v3_dot(nrm, p0), sv = kcbp_v3_dot(nrm, kcbp_v3_sub(s[f], p0));
                inside = so * sv >= 0;
            }
            if (inside)
                return best;
            /* the nearest of the four faces */
            double dmin = INFINITY;
            kcbp_vec3 keep[3], vmin = v;
            for (int f = 0; f < 4; f++) {
                kcbp_vec3 t[3] = {s[(f + 1) & 3], s[(f + 2) & 3], s[(f + 3) & 3]};
                kcbp_vec3 q = kcbp_fan_hull_nearest(t, 3);
                double q2 = kcbp_v3_len2(q);
                if (q2 < dmin) {
                    dmin = q2;
                    vmin = q;
                    keep[0] = t[0];
                    keep[1] = t[1];
                    keep[2] = t[2];
                }
            }
            s[0] = keep[0];
            s[1] = keep[1];
            s[2] = keep[2];
            n = 3;
            v = vmin;
        } else
            v = kcbp_fan_hull_nearest(s, n);
    }
    return best;
}

#endif
