/* Triangle-triangle distance (include/kcbp/distance.h): the smallest of the
 * edge-edge, vertex-face and edge-crossing-face cases, each computed in a
 * form that stays accurate where the textbook form cancels (near-parallel
 * edges, slivers). */
#include "tridist.h"

#include <float.h>
#include <math.h>

/* A triangle's face, for the vertex-face and edge-face cases: its normal
 * from the two edges at the vertex opposite its longest edge (the best
 * conditioned cross product), or none (n2 == 0) when the triangle is
 * degenerate (tridist.h). */
typedef kcbp_tri_face face;

/* hi = fl(a - b) and the rounding error lo, a - b = hi + lo exactly
 * (Knuth's TwoSum). */
static double diff_lo(double a, double b, double hi)
{
    double bb = hi - a;
    return (a - (hi - bb)) + (-b - bb);
}

/* x1 y2 - x2 y1 for x = xh + xl, y = yh + yl, in about twice the working
 * precision (the products' errors by fma, the difference's by TwoSum; the
 * xl yl terms, ~u^2, dropped): accurate to ~u of the result plus ~u^2 of
 * the products, where the plain formula loses all digits of a nearly
 * cancelling difference. */
static double det2(double x1h, double x1l, double y2h, double y2l, double x2h, double x2l, double y1h, double y1l)
{
    double p = x1h * y2h, pe = fma(x1h, y2h, -p);
    double q = x2h * y1h, qe = fma(x2h, y1h, -q);
    double s = p - q, bb = s - p, se = (p - (s - bb)) + (-q - bb);
    return s + ((pe - qe + se) + (x1h * y2l + x1l * y2h) - (x2h * y1l + x2l * y1h));
}

kcbp_tri_face kcbp_tri_face_of(const kcbp_vec3 t[3])
{
    face f = {{0, 0, 0}, 0};
    double l0 = kcbp_v3_len2(kcbp_v3_sub(t[1], t[2])); /* opposite t[0] */
    double l1 = kcbp_v3_len2(kcbp_v3_sub(t[2], t[0]));
    double l2 = kcbp_v3_len2(kcbp_v3_sub(t[0], t[1]));
    int o = l0 >= l1 && l0 >= l2 ? 0 : l1 >= l2 ? 1 : 2; /* the vertex opposite the longest edge */
    kcbp_vec3 p = t[o], q = t[(o + 1) % 3], r = t[(o + 2) % 3];
    kcbp_vec3 e1 = kcbp_v3_sub(q, p), e2 = kcbp_v3_sub(r, p);
    f.n = kcbp_v3_cross(e1, e2);
    f.n2 = kcbp_v3_len2(f.n);
    double scale = sqrt(kcbp_v3_len2(e1) * kcbp_v3_len2(e2));
    /* The plain cross product turns the normal by ~u / sin(angle) (the
     * edges are rounded): for a sliver, whose angle is tiny, that tilts
     * the plane by far more than its height over a vertex can bear (found
     * by tests/stress/tridist_exact.cpp: 1.4e-9 of the scale for a vertex
     * over a sliver 1e-8 thick). Below sin = 1e-3 (an error up to ~1e3 u
     * otherwise), the edges are taken exactly (hi + lo) and the products
     * in twice the precision. */
    if (!(sqrt(f.n2) > 1e-3 * scale)) {
        double e1l[3] = {diff_lo(q.x, p.x, e1.x), diff_lo(q.y, p.y, e1.y), diff_lo(q.z, p.z, e1.z)};
        double e2l[3] = {diff_lo(r.x, p.x, e2.x), diff_lo(r.y, p.y, e2.y), diff_lo(r.z, p.z, e2.z)};
        f.n.x = det2(e1.y, e1l[1], e2.z, e2l[2], e1.z, e1l[2], e2.y, e2l[1]);
        f.n.y = det2(e1.z, e1l[2], e2.x, e2l[0], e1.x, e1l[0], e2.z, e2l[2]);
        f.n.z = det2(e1.x, e1l[0], e2.y, e2l[1], e1.y, e1l[1], e2.x, e2l[0]);
        f.n2 = kcbp_v3_len2(f.n);
    }
    /* Degenerate up to rounding: what is left of the normal is within the
     * ~u^2 |e1| |e2| the accurate products still miss. */
    if (!(f.n2 > 0 && sqrt(f.n2) > 64 * DBL_EPSILON * DBL_EPSILON * scale && isfinite(f.n2)))
        f.n2 = 0; /* no usable face */
    return f;
}

/* Whether x, a point in (or within rounding of) the plane of triangle t,
 * lies in the closed triangle: on the inner side of each edge, seen along
 * the normal. */
static bool inside(const kcbp_vec3 t[3], const face *f, kcbp_vec3 x)
{
    for (int i = 0; i < 3; i++) {
        kcbp_vec3 e = kcbp_v3_sub(t[(i + 1) % 3], t[i]);
        if (kcbp_v3_dot(kcbp_v3_cross(e, kcbp_v3_sub(x, t[i])), f->n) < 0)
            return false;
    }
    return true;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* Closest points of segments p0p1 and q0q1 (either may have zero length);
 * returns their squared distance. Ericson, Real-Time Collision Detection,
 * 5.1.9, with the infinite lines' parameter computed from cross products,
 * s = ((d2 x r) . n) / |n|^2 with n = d1 x d2, instead of (bf - ce) / (ae -
 * b^2): the same value in exact arithmetic, without the cancellation of
 * ae - b^2 for near-parallel segments (its error ~u / sin^2 of their angle,
 * against ~u / sin here), which would move the points along the segments by
 * up to sqrt(u) of their length. */
static double seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, kcbp_vec3 *cp, kcbp_vec3 *cq)
{
    kcbp_vec3 d1 = kcbp_v3_sub(p1, p0), d2 = kcbp_v3_sub(q1, q0), r = kcbp_v3_sub(p0, q0);
    double a = kcbp_v3_len2(d1), e = kcbp_v3_len2(d2), f = kcbp_v3_dot(d2, r);
    double s, t;
    if (a == 0 && e == 0) {
        s = t = 0;
    } else if (a == 0) {
        s = 0;
        t = clamp01(f / e);
    } else {
        double c = kcbp_v3_dot(d1, r);
        if (e == 0) {
            t = 0;
            s = clamp01(-c / a);
        } else {
            double b = kcbp_v3_dot(d1, d2);
            kcbp_vec3 n = kcbp_v3_cross(d1, d2);
            double n2 = kcbp_v3_len2(n);
            /* Parallel (up to rounding): any s gives a closest pair once t
             * is clamped and s recomputed; take 0. */
            s = n2 > 0 ? clamp01(kcbp_v3_dot(kcbp_v3_cross(d2, r), n) / n2) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = clamp01(-c / a);
            } else if (t > 1) {
                t = 1;
                s = clamp01((b - c) / a);
            }
        }
    }
    *cp = kcbp_v3_add(p0, kcbp_v3_scale(d1, s));
    *cq = kcbp_v3_add(q0, kcbp_v3_scale(d2, t));
    /* Exact endpoints where the parameter is: no rounding of p0 + 1 * d1. */
    if (s == 1)
        *cp = p1;
    if (t == 1)
        *cq = q1;
    return kcbp_v3_len2(kcbp_v3_sub(*cp, *cq));
}

typedef struct {
    double d2;
    kcbp_vec3 pa, pb;
} best_pair;

static void offer(best_pair *b, double d2, kcbp_vec3 pa, kcbp_vec3 pb)
{
    if (d2 < b->d2) {
        b->d2 = d2;
        b->pa = pa;
        b->pb = pb;
    }
}

/* Vertex p, at height h over the plane of t (dot(p - t[0], n)), against
 * the face of t: when p projects into t, its distance to the plane (the
 * foot of the perpendicular as closest point). p_on_a says which side of
 * the answer p is. */
static void vertex_face(best_pair *b, kcbp_vec3 p, double h, const kcbp_vec3 t[3], const face *f, bool p_on_a)
{
    double d2 = h * h / f->n2;
    if (d2 >= b->d2)
        return;
    kcbp_vec3 foot = kcbp_v3_sub(p, kcbp_v3_scale(f->n, h / f->n2));
    if (!inside(t, f, foot))
        return;
    if (p_on_a)
        offer(b, d2, p, foot);
    else
        offer(b, d2, foot, p);
}

/* Edge p0p1, its ends at heights h0 and h1 over the plane of t, against
 * the face of t: true when it crosses (or touches) it, at *x. */
static bool edge_crosses(kcbp_vec3 p0, kcbp_vec3 p1, double h0, double h1, const kcbp_vec3 t[3], const face *f,
                         kcbp_vec3 *x)
{
    if ((h0 > 0 && h1 > 0) || (h0 < 0 && h1 < 0) || (h0 == 0 && h1 == 0))
        return false; /* one side, or in the plane (the edge-edge and vertex-face cases cover it) */
    double w = h0 / (h0 - h1);
    *x = kcbp_v3_add(p0, kcbp_v3_scale(kcbp_v3_sub(p1, p0), w));
    return inside(t, f, *x);
}

/* All three heights strictly on one side. */
static bool one_side(const double h[3])
{
    return (h[0] > 0 && h[1] > 0 && h[2] > 0) || (h[0] < 0 && h[1] < 0 && h[2] < 0);
}

/* Whether the slab between cp (on a) and cq (on b), normal to cq - cp,
 * holds a on cp's side and b on cq's: then no pair of points is nearer
 * than this one (the closest pair of two disjoint convex sets is the one
 * whose slab separates them; PQP's and FCL's triangle distance use the
 * same early exit). */
static bool slab_separates(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 cp, kcbp_vec3 cq)
{
    kcbp_vec3 v = kcbp_v3_sub(cq, cp);
    for (int k = 0; k < 3; k++)
        if (kcbp_v3_dot(kcbp_v3_sub(a[k], cp), v) > 0 || kcbp_v3_dot(kcbp_v3_sub(b[k], cq), v) < 0)
            return false;
    return true;
}

double kcbp_tri_distance(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 *pa, kcbp_vec3 *pb)
{
    /* (a non-finite coordinate makes a face unusable, and
     * kcbp_tri_distance_faces answers INFINITY for it) */
    face fa = kcbp_tri_face_of(a), fb = kcbp_tri_face_of(b);
    return kcbp_tri_distance_faces(a, &fa, b, &fb, pa, pb);
}

double kcbp_tri_distance_faces(const kcbp_vec3 a[3], const kcbp_tri_face *pfa, const kcbp_vec3 b[3],
                               const kcbp_tri_face *pfb, kcbp_vec3 *pa, kcbp_vec3 *pb)
{
    kcbp_vec3 ta, tb;
    pa = pa ? pa : &ta;
    pb = pb ? pb : &tb;
    for (int i = 0; i < 3; i++)
        if (!kcbp_v3_is_finite(a[i]) || !kcbp_v3_is_finite(b[i])) {
            *pa = a[0];
            *pb = b[0];
            return INFINITY;
        }
    const face fa = *pfa, fb = *pfb;
    const bool fa_ok = fa.n2 > 0, fb_ok = fb.n2 > 0;
    double ha[3] = {0, 0, 0}, hb[3] = {0, 0, 0}; /* a over b's plane, b over a's */
    for (int i = 0; i < 3; i++) {
        if (fb_ok)
            ha[i] = kcbp_v3_dot(kcbp_v3_sub(a[i], b[0]), fb.n);
        if (fa_ok)
            hb[i] = kcbp_v3_dot(kcbp_v3_sub(b[i], a[0]), fa.n);
    }
    /* An edge crossing the other's face: they intersect. Not possible when
     * one lies strictly on one side of the other's plane. */
    if (!(fb_ok && one_side(ha)) && !(fa_ok && one_side(hb)))
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3;
            kcbp_vec3 x;
            if ((fb_ok && edge_crosses(a[i], a[j], ha[i], ha[j], b, &fb, &x)) ||
                (fa_ok && edge_crosses(b[i], b[j], hb[i], hb[j], a, &fa, &x))) {
                *pa = *pb = x;
                return 0;
            }
        }
    best_pair best = {INFINITY, a[0], b[0]};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            kcbp_vec3 cp, cq;
            double d2 = seg_seg(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3], &cp, &cq);
            if (d2 < best.d2) {
                offer(&best, d2, cp, cq);
                if (d2 == 0 || slab_separates(a, b, cp, cq))
                    goto done;
            }
        }
    for (int i = 0; i < 3; i++) {
        if (fb_ok)
            vertex_face(&best, a[i], ha[i], b, &fb, true);
        if (fa_ok)
            vertex_face(&best, b[i], hb[i], a, &fa, false);
    }
done:
    *pa = best.pa;
    *pb = best.pb;
    /* The distance of the points returned (so that |pb - pa| is it). */
    return kcbp_v3_len(kcbp_v3_sub(best.pb, best.pa));
}
