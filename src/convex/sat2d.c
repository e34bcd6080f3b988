/* The separating axis theorem on 2D cores (convex2d.h): the exact
 * intersection test and the penetration depth.
 *
 * Why the cores' edges suffice: the Minkowski difference D = B - A of two
 * convex polygons is a convex polygon whose edges are parallel to edges of
 * A and of B (their normals, merged by angle; e.g. de Berg et al.,
 * "Computational Geometry", 3rd ed., section 13.3). The cores are disjoint
 * exactly when the origin is outside D, that is strictly outside the line
 * of one of D's edges: for an edge of A with outward normal n, that says
 * every vertex of B lies strictly beyond A's edge line, which is the exact
 * sign orient2d(a_i, a_i+1, b_k) < 0 for every k (A counter-clockwise);
 * for an edge of B, every vertex of A strictly beyond B's edge line. A
 * segment core has two edges (0->1 and 1->0), a point none. When both
 * cores are points or segments on one line, D is a segment or a point on
 * it, and the test is the overlap of their extents along the line, by
 * exact lexicographic comparisons.
 *
 * The depth of intersecting cores is the distance from the origin to D's
 * boundary, the minimum over D's edges of the origin's depth behind the
 * edge's line: for A's edge i with outward unit normal n, n.a_i - min_k
 * n.b_k (B must move that far along n), and for B's edge j with outward m,
 * m.b_j - min_k m.a_k along -m (Box2D's b2FindMaxSeparation, with the sign
 * turned to a depth). */
#include <math.h>

#include "convex/convex2d.h"

/* The edges of a core: n for a polygon, 2 for a segment, 0 for a point. */
static inline uint32_t edge_count(const kcbp2d_core *c) { return c->n >= 2 ? c->n : 0; }

static int lex_cmp2(kcbp_vec2 a, kcbp_vec2 b)
{
    if (a.x != b.x)
        return a.x < b.x ? -1 : 1;
    if (a.y != b.y)
        return a.y < b.y ? -1 : 1;
    return 0;
}

/* All of both cores' points on one line (both have at most 2 points). */
static bool all_collinear(const kcbp2d_core *a, const kcbp2d_core *b)
{
    kcbp_vec2 p[4];
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->n; i++)
        p[k++] = a->v[i];
    for (uint32_t i = 0; i < b->n; i++)
        p[k++] = b->v[i];
    /* the first point distinct from p[0] fixes the line */
    uint32_t j = 1;
    while (j < k && lex_cmp2(p[j], p[0]) == 0)
        j++;
    for (uint32_t i = j + 1; i < k; i++)
        if (kcbp2d_orient(p[0], p[j], p[i]) != 0)
            return false;
    return true;
}

/* Extents along a common line: lexicographic order is the order along any
 * line (for a line not vertical by x, then y; vertical, by y). */
static bool collinear_overlap(const kcbp2d_core *a, const kcbp2d_core *b)
{
    kcbp_vec2 alo = a->v[0], ahi = a->v[a->n - 1], blo = b->v[0], bhi = b->v[b->n - 1];
    if (lex_cmp2(alo, ahi) > 0) {
        kcbp_vec2 t = alo;
        alo = ahi, ahi = t;
    }
    if (lex_cmp2(blo, bhi) > 0) {
        kcbp_vec2 t = blo;
        blo = bhi, bhi = t;
    }
    return lex_cmp2(alo, bhi) <= 0 && lex_cmp2(blo, ahi) <= 0;
}

/* An edge of c (from vertex i to the next) with every vertex of o strictly
 * on its right: a separating line. *k0 is the vertex of o tried first (the
 * one that last showed an edge not separating: for neighbouring edges,
 * usually the same), updated.
 *
 * The filter: with e = fl(q - p) and w = fl(r - p), orient2d(p, q, r) =
 * e x w exactly in reals, and Shewchuk's bound for it is 4u (|l| + |r|) +
 * tiny (predicates.h), l and r the rounded products e.x w.y and e.y w.x.
 * Every |w| component is at most 2S (S >= the cores' largest coordinate
 * magnitude; rounding is monotone), so |l| + |r| <= (1 + u) (|e.x| +
 * |e.y|) 2S, and bound = 16u S (|e.x| + |e.y|) + tiny, computed with three
 * roundings, is above that bound for every vertex of o: one bound per edge
 * instead of one per vertex. Undecided signs go to the exact predicate. */
static bool edge_separates(const kcbp2d_core *c, uint32_t i, const kcbp2d_core *o, double s16u, uint32_t *k0)
{
    kcbp_vec2 p = c->v[i], q = c->v[i + 1 < c->n ? i + 1 : 0];
    kcbp_vec2 e = kcbp_v2_sub(q, p);
    double bound = s16u * (fabs(e.x) + fabs(e.y)) + KCBP_PRED_TINY;
    uint32_t k = *k0 < o->n ? *k0 : 0;
    for (uint32_t t = 0; t < o->n; t++, k = k + 1 < o->n ? k + 1 : 0) {
        kcbp_vec2 r = o->v[k];
        double det = e.x * (r.y - p.y) - e.y * (r.x - p.x);
        if (det < -bound)
            continue;
        if (det > bound || kcbp2d_orient(p, q, r) >= 0) {
            *k0 = k;
            return false;
        }
    }
    return true;
}

bool kcbp2d_sat_intersect(const kcbp2d_core *a, const kcbp2d_core *b, int *sep_shape, uint32_t *sep_edge)
{
    if (sep_shape)
        *sep_shape = -1;
    if (sep_edge)
        *sep_edge = 0;
    if (a->n <= 2 && b->n <= 2 && all_collinear(a, b))
        return collinear_overlap(a, b);
    double sc = a->scale > b->scale ? a->scale : b->scale;
    double s16u = 16 * KCBP_PRED_U * sc;
    const kcbp2d_core *c[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        uint32_t ne = edge_count(c[s]), k0 = 0;
        for (uint32_t i = 0; i < ne; i++)
            if (edge_separates(c[s], i, c[1 - s], s16u, &k0)) {
                if (sep_shape)
                    *sep_shape = s;
                if (sep_edge)
                    *sep_edge = i;
                return false;
            }
    }
    return true;
}

kcbp2d_sat_verdict kcbp2d_sat_filtered(const kcbp2d_core *a, const kcbp2d_core *b, int *sep_shape,
                                       uint32_t *sep_edge, kcbp2d_sat_min *dm)
{
    if (dm)
        dm->depth = INFINITY, dm->shape = -1, dm->edge = 0, dm->vertex = 0, dm->convex = false, dm->len = 1;
    if (a->n < 3 || b->n < 3)
        return KCBP2D_SAT_UNDECIDED;
    double sc = a->scale > b->scale ? a->scale : b->scale;
    double s16u = 16 * KCBP_PRED_U * sc; /* edge_separates' bound */
    const kcbp2d_core *cs[2] = {a, b};
    /* the depth's best edge: by squares (bm2 = mx^2, bl2 = |e|^2; bm2 < 0:
     * none), or, for edges whose squares are out of range, by division */
    double bm2 = -1, bl2 = 1, bmx = 0, sdepth = INFINITY, slen = 1;
    int ss = -1;
    uint32_t se = 0, sk = 0;
    bool slow = false;
    /* each polygon's turns, for dm->convex: first_not_convex's filter
     * (shape2d.c) on the same edge vectors, the turn at vertex i between
     * edges i - 1 and i, and its count of wraps (y < 0 to y >= 0) */
    unsigned convex = 1;
    for (int s = 0; s < 2; s++) {
        const kcbp2d_core *c = cs[s], *o = cs[1 - s];
        kcbp_vec2 e_prev = kcbp_v2_sub(c->v[0], c->v[c->n - 1]);
        unsigned neg_prev = e_prev.y < 0, turns_ok = 1, wraps = 0;
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t i1 = i + 1 < c->n ? i + 1 : 0;
            kcbp_vec2 p = c->v[i], e = kcbp_v2_sub(c->v[i1], p);
            double bound = s16u * (fabs(e.x) + fabs(e.y)) + KCBP_PRED_TINY;
            if (dm) {
                double l = e_prev.x * e.y, rr = e_prev.y * e.x;
                turns_ok &= l - rr > KCBP_PRED_O2_ERR * (fabs(l) + fabs(rr)) + KCBP_PRED_TINY;
                unsigned neg = e.y < 0;
                wraps += neg_prev & (neg ^ 1u);
                e_prev = e, neg_prev = neg;
            }
            /* the largest orientation over o, without early exits: the
             * branches of a scan that stops at the first vertex on the left
             * mispredict more than the few products they save */
            uint32_t km;
            double mx = kcbp2d_edge_max(e, p, o, &km);
            if (mx > bound) { /* a vertex of o strictly left */
                if (dm) {
                    /* its depth behind the edge line: mx / |e| (mx is the
                     * cross product e x (r - p), |e| times the distance),
                     * compared with the best as mx^2 |e_best|^2 < mx_best^2
                     * |e|^2 where no product can underflow or overflow
                     * (no square root or division per edge; the depth
                     * divided once at the end, the same number) */
                    double l2 = e.x * e.x + e.y * e.y, m2 = mx * mx;
                    if (m2 >= 1e-140 && m2 <= 1e140 && l2 >= 1e-140 && l2 <= 1e140) {
                        if (bm2 < 0 || m2 * bl2 < bm2 * l2)
                            bm2 = m2, bl2 = l2, bmx = mx, dm->shape = s, dm->edge = i, dm->vertex = km;
                    } else {
                        slow = true;
                        double len = kcbp2d_len(e), depth = mx / len;
                        if (depth < sdepth && len > 0)
                            sdepth = depth, ss = s, se = i, sk = km, slen = len;
                    }
                }
                continue;
            }
            if (!(mx < -bound))
                return KCBP2D_SAT_UNDECIDED;
            /* every other vertex of c strictly left: the line separates
             * the hulls whether c is convex or not */
            double mn = kcbp2d_edge_min(e, p, c, i, i1);
            if (!(mn > bound))
                return KCBP2D_SAT_UNDECIDED;
            *sep_shape = s;
            *sep_edge = i;
            if (dm)
                dm->vertex = km;
            return KCBP2D_SAT_SEPARATED;
        }
        convex &= turns_ok & (wraps == 1);
    }
    if (dm)
        dm->convex = convex;
    if (dm && bm2 >= 0) {
        double len = sqrt(bl2); /* kcbp2d_len's, in this range */
        dm->depth = bmx / len, dm->len = len;
        if (slow && sdepth < dm->depth)
            dm->depth = sdepth, dm->shape = ss, dm->edge = se, dm->vertex = sk, dm->len = slen;
    } else if (dm && slow) {
        dm->depth = sdepth, dm->shape = ss, dm->edge = se, dm->vertex = sk, dm->len = slen;
    }
    return KCBP2D_SAT_NO_SEPARATOR;
}

double kcbp2d_sat_depth(const kcbp2d_core *a, const kcbp2d_core *b, kcbp_vec2 *normal, kcbp_vec2 *wa, kcbp_vec2 *wb)
{
    double best = INFINITY;
    kcbp_vec2 bn = {0, 1}, ba = a->v[0], bb = b->v[0];
    const kcbp2d_core *c[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        const kcbp2d_core *e = c[s], *o = c[1 - s];
        uint32_t ne = edge_count(e);
        for (uint32_t i = 0; i < ne; i++) {
            /* the vertex of o deepest behind e's edge line, along the
             * edge's outward normal before it is made a unit vector (one
             * division per edge; branch-free minimum) */
            kcbp_vec2 d = kcbp_v2_sub(e->v[i + 1 < e->n ? i + 1 : 0], e->v[i]);
            kcbp_vec2 m = {d.y, -d.x}, p = e->v[i];
            uint32_t kmin = 0;
            double dmin = INFINITY;
            for (uint32_t k = 0; k < o->n; k++) {
                double t = kcbp_v2_dot(m, kcbp_v2_sub(o->v[k], p));
                kmin = t < dmin ? k : kmin;
                dmin = t < dmin ? t : dmin;
            }
            double len = kcbp2d_len(d);
            if (!(len > 0))
                continue; /* cannot happen for a checked core */
            kcbp_vec2 n = kcbp_v2_make(m.x / len, m.y / len);
            /* the deepest vertex's depth with the unit normal, as before */
            double dn = kcbp_v2_dot(n, kcbp_v2_sub(o->v[kmin], p));
            double depth = dn < 0 ? -dn : 0.0;
            if (depth < best) {
                best = depth;
                kcbp_vec2 deep = o->v[kmin], on_line = kcbp_v2_add(deep, kcbp_v2_scale(n, depth));
                if (s == 0) { /* A's edge: B moves along n */
                    bn = n, ba = on_line, bb = deep;
                } else {      /* B's edge: B moves along -n; A's vertex is the deep one */
                    bn = kcbp_v2_neg(n), ba = deep, bb = on_line;
                }
            }
        }
    }
    if (best == INFINITY) /* two point cores: no edge, no direction */
        best = 0.0;
    *normal = bn;
    *wa = ba;
    *wb = bb;
    return best;
}
