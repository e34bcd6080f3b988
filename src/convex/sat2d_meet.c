/* The separating-axis test for a caller that needs to know how two posed
 * polygons meet but not the depth of their overlap (convex2d.h,
 * kcbp2d_sat_meet; kcbp2d_distance with want_depth false).
 *
 * kcbp2d_sat_filtered scans every edge of both polygons against every
 * vertex of the other, for the depth's minimum. Whether the overlap is
 * deeper than the touching tolerance needs less: an edge is "deep" as soon
 * as one vertex of the other polygon is certified more than tol S |e| to
 * its left (tol the relative touching tolerance, S the scale), and the scan
 * of that edge stops there, starting at the vertex that was deep for the
 * previous edge (the deepest vertex turns with the edges, so it usually is
 * the first one tried). When every edge is deep, the depth that
 * kcbp2d_sat_filtered would report (its minimum over the edges of mx / |e|,
 * mx the largest cross product) is above tol S: the overlap is a certain
 * OVERLAPPING. An edge with no vertex that deep is scanned in full, in
 * kcbp2d_sat_filtered's order, so that its largest cross product and vertex
 * are that function's: strictly left and at most tol S |e| (1 - 2^-20) deep
 * (with |e| rounded down by a few ulps at most, and the minimum's selection
 * within a few more), the reported depth is at most tol S: TOUCHING for
 * certain; separating, or undecided, it ends the scan as it ends
 * kcbp2d_sat_filtered's (the same edge, the same vertex, the same verdict).
 * What is left (an edge between the two margins, or a polygon whose
 * convexity the turn filter does not certify) is UNKNOWN: the caller runs
 * kcbp2d_sat_filtered. */
#include <math.h>

#include "convex/convex2d.h"

kcbp2d_meet_verdict kcbp2d_sat_meet(const kcbp2d_core *a, const kcbp2d_core *b, double touch_rel, int *sep_shape,
                                    uint32_t *sep_edge, uint32_t *vertex)
{
    if (a->n < 3 || b->n < 3)
        return KCBP2D_MEET_UNKNOWN;
    double sc = a->scale > b->scale ? a->scale : b->scale;
    /* the thresholds below as normal numbers (no underflow rounding them
     * up): tiny scales are left to kcbp2d_sat_filtered */
    if (!(sc >= 1e-100))
        return KCBP2D_MEET_UNKNOWN;
    double s16u = 16 * KCBP_PRED_U * sc; /* kcbp2d_sat_filtered's bound */
    /* deep: beyond tol S |e|_1 >= tol S |e| (plus the bound: the exact
     * cross product beyond it); shallow: within tol S |e| (1 - 2^-20) */
    double deep_k = touch_rel * sc * (1 + 0x1p-20), shallow_k = touch_rel * sc * (1 - 0x1p-20);
    double shallow_k2 = shallow_k * shallow_k * (1 - 0x1p-20); /* the squares' rounding */
    unsigned shallow = 0, deep = 1;
    const kcbp2d_core *cs[2] = {a, b};
    unsigned convex = 1;
    for (int s = 0; s < 2; s++) {
        const kcbp2d_core *c = cs[s], *o = cs[1 - s];
        /* the turn filter of kcbp2d_sat_filtered (first_not_convex's) */
        kcbp_vec2 e_prev = kcbp_v2_sub(c->v[0], c->v[c->n - 1]);
        unsigned neg_prev = e_prev.y < 0, turns_ok = 1, wraps = 0;
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t i1 = i + 1 < c->n ? i + 1 : 0;
            kcbp_vec2 p = c->v[i], e = kcbp_v2_sub(c->v[i1], p);
            double ax = fabs(e.x), ay = fabs(e.y);
            double bound = s16u * (ax + ay) + KCBP_PRED_TINY;
            double l = e_prev.x * e.y, rr = e_prev.y * e.x;
            turns_ok &= l - rr > KCBP_PRED_O2_ERR * (fabs(l) + fabs(rr)) + KCBP_PRED_TINY;
            unsigned neg = e.y < 0;
            wraps += neg_prev & (neg ^ 1u);
            e_prev = e, neg_prev = neg;
            /* the largest cross product over o, as kcbp2d_sat_filtered
             * scans it (branch-free: early exits mispredict more than
             * they save on polygons of a few vertices) */
            uint32_t km;
            double mx = kcbp2d_edge_max(e, p, o, &km);
            if (mx > bound) {
                /* deep beyond tol S |e|_1 plus the bound (most edges: one
                 * product); else shallow by squares where they and the
                 * threshold are normal numbers, or by the length (a call) */
                if (mx > deep_k * (ax + ay) + bound)
                    continue;
                deep = 0;
                double l2 = e.x * e.x + e.y * e.y, m2 = mx * mx, rhs = shallow_k2 * l2;
                if (l2 <= 1e140 && m2 >= 1e-280 && m2 <= 1e280 && rhs >= 1e-280)
                    shallow |= m2 <= rhs;
                else
                    shallow |= mx <= shallow_k * kcbp2d_len(e);
                continue;
            }
            if (!(mx < -bound))
                return KCBP2D_MEET_UNKNOWN;
            double mn = kcbp2d_edge_min(e, p, c, i, i1);
            if (!(mn > bound))
                return KCBP2D_MEET_UNKNOWN;
            *sep_shape = s;
            *sep_edge = i;
            *vertex = km;
            return KCBP2D_MEET_SEPARATED;
        }
        convex &= turns_ok & (wraps == 1);
    }
    if (!convex)
        return KCBP2D_MEET_UNKNOWN;
    if (shallow)
        return KCBP2D_MEET_TOUCHING;
    return deep ? KCBP2D_MEET_OVERLAPPING : KCBP2D_MEET_UNKNOWN;
}
