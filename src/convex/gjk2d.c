/* GJK distance between 2D cores (convex2d.h): E. G. Gilbert, D. W.
 * Johnson, S. S. Keerthi, "A fast procedure for computing the distance
 * between complex objects in three-dimensional space", IEEE J. Robotics
 * and Automation 4(2), 1988, in the plane: the simplex (1 to 3 points of
 * the difference B - A) is reduced by its Voronoi regions with
 * unnormalised barycentric coordinates, as in Box2D's b2Distance (E.
 * Catto, GDC 2010). The run stops when a support point repeats (a polytope
 * has finitely many), when |v| stops decreasing, or at the cap; the last
 * simplex's features (a point or an edge on each core) are then measured
 * again as a segment pair, which gives a distance attained by points of
 * the cores, never smaller than the true one by more than rounding. */
#include <math.h>

#include "convex/convex2d.h"

typedef struct {
    kcbp_vec2 a, b, w; /* w = b - a */
    uint32_t ia, ib;
    double l;          /* barycentric weight (unnormalised until the end) */
} svert;

static uint32_t support(const kcbp2d_core *c, kcbp_vec2 d)
{
    uint32_t best = 0;
    double m = kcbp_v2_dot(c->v[0], d);
    for (uint32_t i = 1; i < c->n; i++) {
        double t = kcbp_v2_dot(c->v[i], d);
        if (t > m)
            m = t, best = i;
    }
    return best;
}

/* Reduces s[0..*n) to the sub-simplex whose hull holds the point nearest
 * the origin, with weights; returns false when the origin is inside the
 * triangle (overlap). */
static bool solve(svert *s, int *n)
{
    if (*n == 1) {
        s[0].l = 1;
        return true;
    }
    if (*n == 2) {
        kcbp_vec2 w1 = s[0].w, w2 = s[1].w, e12 = kcbp_v2_sub(w2, w1);
        double d12_2 = -kcbp_v2_dot(w1, e12), d12_1 = kcbp_v2_dot(w2, e12);
        if (d12_2 <= 0) {
            s[0].l = 1, *n = 1;
        } else if (d12_1 <= 0) {
            s[0] = s[1], s[0].l = 1, *n = 1;
        } else {
            double inv = 1.0 / (d12_1 + d12_2);
            s[0].l = d12_1 * inv, s[1].l = d12_2 * inv;
        }
        return true;
    }
    kcbp_vec2 w1 = s[0].w, w2 = s[1].w, w3 = s[2].w;
    kcbp_vec2 e12 = kcbp_v2_sub(w2, w1), e13 = kcbp_v2_sub(w3, w1), e23 = kcbp_v2_sub(w3, w2);
    double d12_1 = kcbp_v2_dot(w2, e12), d12_2 = -kcbp_v2_dot(w1, e12);
    double d13_1 = kcbp_v2_dot(w3, e13), d13_2 = -kcbp_v2_dot(w1, e13);
    double d23_1 = kcbp_v2_dot(w3, e23), d23_2 = -kcbp_v2_dot(w2, e23);
    /* the triangle's barycentric signs: only compared with 0, so the
     * cross products' signs are multiplied, not the products themselves,
     * which underflow to 0 at coordinates near 1e-150 (each cross product
     * is a square of the scale) and made GJK cycle to its cap there */
    double n123 = kcbp_v2_cross(e12, e13);
    double c23 = kcbp_v2_cross(w2, w3), c31 = kcbp_v2_cross(w3, w1), c12 = kcbp_v2_cross(w1, w2);
    double d123_1 = n123 > 0 ? c23 : n123 < 0 ? -c23 : 0.0, d123_2 = n123 > 0 ? c31 : n123 < 0 ? -c31 : 0.0,
           d123_3 = n123 > 0 ? c12 : n123 < 0 ? -c12 : 0.0;
    if (d12_2 <= 0 && d13_2 <= 0) {
        s[0].l = 1, *n = 1;
        return true;
    }
    if (d12_1 > 0 && d12_2 > 0 && d123_3 <= 0) {
        double inv = 1.0 / (d12_1 + d12_2);
        s[0].l = d12_1 * inv, s[1].l = d12_2 * inv, *n = 2;
        return true;
    }
    if (d13_1 > 0 && d13_2 > 0 && d123_2 <= 0) {
        double inv = 1.0 / (d13_1 + d13_2);
        s[0].l = d13_1 * inv, s[1] = s[2], s[1].l = d13_2 * inv, *n = 2;
        return true;
    }
    if (d12_1 <= 0 && d23_2 <= 0) {
        s[0] = s[1], s[0].l = 1, *n = 1;
        return true;
    }
    if (d13_1 <= 0 && d23_1 <= 0) {
        s[0] = s[2], s[0].l = 1, *n = 1;
        return true;
    }
    if (d23_1 > 0 && d23_2 > 0 && d123_1 <= 0) {
        double inv = 1.0 / (d23_1 + d23_2);
        s[0] = s[2], s[0].l = d23_2 * inv, s[1].l = d23_1 * inv, *n = 2;
        return true;
    }
    return false;
}

static kcbp_vec2 closest_of(const svert *s, int n)
{
    kcbp_vec2 v = kcbp_v2_scale(s[0].w, s[0].l);
    for (int i = 1; i < n; i++)
        v = kcbp_v2_add(v, kcbp_v2_scale(s[i].w, s[i].l));
    return v;
}

/* kcbp2d_cp_seg_seg by squares: one division per segment and one square
 * root, where no square can underflow or overflow (every squared length
 * 0 or within [1e-280, 1e280], checked); false otherwise. The same
 * candidates, clamping and order of preference as the scaled version. */
static bool cp_seg_seg_sq(kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0, kcbp_vec2 q1, kcbp_vec2 *cp, kcbp_vec2 *cq,
                          double *dist)
{
    kcbp_vec2 u = kcbp_v2_sub(p1, p0), v = kcbp_v2_sub(q1, q0);
    double lu = kcbp_v2_len2(u), lv = kcbp_v2_len2(v);
    if (!((lu == 0 || (lu >= 1e-280 && lu <= 1e280)) && (lv == 0 || (lv >= 1e-280 && lv <= 1e280))))
        return false;
    double iu = lu > 0 ? 1.0 / lu : 0.0, iv = lv > 0 ? 1.0 / lv : 0.0;
    kcbp_vec2 pts[4] = {p0, p1, q0, q1};
    double best = INFINITY;
    for (int k = 0; k < 4; k++) {
        kcbp_vec2 x = pts[k], a = k < 2 ? q0 : p0, b = k < 2 ? q1 : p1, ab = k < 2 ? v : u, y = a;
        double inv = k < 2 ? iv : iu;
        if (inv > 0) {
            double t = kcbp_v2_dot(kcbp_v2_sub(x, a), ab) * inv;
            if (t >= 1)
                y = b;
            else if (t > 0)
                y = kcbp_v2_add(a, kcbp_v2_scale(ab, t));
        }
        double d2 = kcbp_v2_len2(kcbp_v2_sub(x, y));
        if (d2 < best) {
            best = d2;
            if (k < 2)
                *cp = x, *cq = y;
            else
                *cp = y, *cq = x;
        }
    }
    if (!(best == 0 || (best >= 1e-280 && best <= 1e280)))
        return false;
    *dist = sqrt(best);
    return true;
}

/* The point of segment [a, b] closest to x (*y) and its distance, by
 * squares as cp_seg_seg_sq, where no square can underflow or overflow;
 * false otherwise. */
static bool point_seg_sq(kcbp_vec2 x, kcbp_vec2 a, kcbp_vec2 b, kcbp_vec2 *y, double *dist)
{
    kcbp_vec2 ab = kcbp_v2_sub(b, a), q = a;
    double l = kcbp_v2_len2(ab);
    if (!(l == 0 || (l >= 1e-280 && l <= 1e280)))
        return false;
    if (l > 0) {
        double t = kcbp_v2_dot(kcbp_v2_sub(x, a), ab) * (1.0 / l);
        if (t >= 1)
            q = b;
        else if (t > 0)
            q = kcbp_v2_add(a, kcbp_v2_scale(ab, t));
    }
    double d2 = kcbp_v2_len2(kcbp_v2_sub(x, q));
    if (!(d2 == 0 || (d2 >= 1e-280 && d2 <= 1e280)))
        return false;
    *y = q;
    *dist = sqrt(d2);
    return true;
}

double kcbp2d_cp_seg_seg(kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0, kcbp_vec2 q1, kcbp_vec2 *cp, kcbp_vec2 *cq)
{
    double d;
    if (cp_seg_seg_sq(p0, p1, q0, q1, cp, cq, &d))
        return d;
    /* point x to segment [a, b]: the clamped projection, with the segment's
     * direction divided by its largest component so that no square can
     * underflow or overflow (coordinates from 1e-300 to 1e60) */
    kcbp_vec2 pts[4] = {p0, p1, q0, q1};
    double best = INFINITY;
    for (int k = 0; k < 4; k++) {
        kcbp_vec2 x = pts[k], a = k < 2 ? q0 : p0, b = k < 2 ? q1 : p1;
        kcbp_vec2 ab = kcbp_v2_sub(b, a), y = a;
        double m = fabs(ab.x) > fabs(ab.y) ? fabs(ab.x) : fabs(ab.y); /* not fmax: a call */
        if (m > 0) {
            kcbp_vec2 u = kcbp_v2_scale(ab, 1.0 / m);
            double t = kcbp_v2_dot(kcbp_v2_sub(x, a), u) / kcbp_v2_dot(ab, u);
            if (t >= 1)
                y = b;
            else if (t > 0)
                y = kcbp_v2_add(a, kcbp_v2_scale(ab, t));
        }
        double d = kcbp2d_len(kcbp_v2_sub(x, y));
        if (d < best) {
            best = d;
            if (k < 2)
                *cp = x, *cq = y;
            else
                *cp = y, *cq = x;
        }
    }
    return best;
}

double kcbp2d_brute_distance(const kcbp2d_core *a, const kcbp2d_core *b, kcbp_vec2 *pa, kcbp_vec2 *pb)
{
    uint32_t na = a->n >= 3 ? a->n : 1, nb = b->n >= 3 ? b->n : 1;
    double best = INFINITY;
    *pa = a->v[0], *pb = b->v[0];
    for (uint32_t i = 0; i < na; i++) {
        kcbp_vec2 p0 = a->v[i], p1 = a->v[(i + 1) % a->n];
        for (uint32_t j = 0; j < nb; j++) {
            kcbp_vec2 cp, cq;
            double d = kcbp2d_cp_seg_seg(p0, p1, b->v[j], b->v[(j + 1) % b->n], &cp, &cq);
            if (d < best)
                best = d, *pa = cp, *pb = cq;
        }
    }
    return best;
}

void kcbp2d_gjk(const kcbp2d_core *a, const kcbp2d_core *b, int max_iterations, kcbp2d_gjk_out *out)
{
    kcbp2d_gjk_dir(a, b, kcbp_v2_make(0, 0), max_iterations, out);
}

void kcbp2d_gjk_dir(const kcbp2d_core *a, const kcbp2d_core *b, kcbp_vec2 dir, int max_iterations,
                    kcbp2d_gjk_out *out)
{
    kcbp2d_gjk_cache c = {0, {0, 0}, {0, 0}};
    if (dir.x != 0 || dir.y != 0)
        c.n = 1, c.ia[0] = support(a, dir), c.ib[0] = support(b, kcbp_v2_neg(dir));
    kcbp2d_gjk_warm(a, b, &c, max_iterations, true, out);
}

void kcbp2d_gjk_warm(const kcbp2d_core *a, const kcbp2d_core *b, kcbp2d_gjk_cache *cache, int max_iterations,
                     bool measure, kcbp2d_gjk_out *out)
{
    svert s[3];
    int n = 1;
    s[0].ia = 0, s[0].ib = 0;
    if (cache->n >= 1 && cache->n <= 2) {
        n = 0;
        for (int i = 0; i < cache->n; i++)
            if (cache->ia[i] < a->n && cache->ib[i] < b->n)
                s[n].ia = cache->ia[i], s[n].ib = cache->ib[i], n++;
        if (n == 0)
            n = 1, s[0].ia = 0, s[0].ib = 0;
    }
    for (int i = 0; i < n; i++) {
        s[i].a = a->v[s[i].ia], s[i].b = b->v[s[i].ib];
        s[i].w = kcbp_v2_sub(s[i].b, s[i].a);
        s[i].l = 1;
    }
    bool overlap = false;
    int it = 0;
    while (it < max_iterations) {
        it++;
        if (!solve(s, &n)) {
            overlap = true;
            break;
        }
        kcbp_vec2 v = closest_of(s, n);
        double vv = kcbp_v2_len2(v);
        if (vv == 0) {
            overlap = true;
            break;
        }
        uint32_t ia = support(a, v), ib = support(b, kcbp_v2_neg(v));
        bool dup = false;
        for (int i = 0; i < n; i++)
            dup |= (s[i].ia == ia && s[i].ib == ib);
        if (dup)
            break;
        svert w = {a->v[ia], b->v[ib], kcbp_v2_sub(b->v[ib], a->v[ia]), ia, ib, 0};
        /* no progress: the support plane is no closer to the origin than v */
        if (vv - kcbp_v2_dot(v, w.w) <= 1e-15 * vv)
            break;
        s[n++] = w;
    }
    out->iterations = it;
    cache->n = n < 3 ? n : 2;
    for (int i = 0; i < cache->n; i++)
        cache->ia[i] = s[i].ia, cache->ib[i] = s[i].ib;
    if (overlap) {
        out->overlap = true;
        out->distance = 0;
        kcbp_vec2 pa = kcbp_v2_scale(s[0].a, s[0].l);
        for (int i = 1; i < n; i++)
            pa = kcbp_v2_add(pa, kcbp_v2_scale(s[i].a, s[i].l));
        out->pa = out->pb = pa;
        return;
    }
    if (n == 3) /* the cap was hit before solving the last point in */
        n = 2;
    out->overlap = false;
    if (!measure) { /* the simplex's own points, by its weights */
        kcbp_vec2 pa = kcbp_v2_scale(s[0].a, s[0].l), pb = kcbp_v2_scale(s[0].b, s[0].l);
        for (int i = 1; i < n; i++)
            pa = kcbp_v2_add(pa, kcbp_v2_scale(s[i].a, s[i].l)), pb = kcbp_v2_add(pb, kcbp_v2_scale(s[i].b, s[i].l));
        out->pa = pa, out->pb = pb;
        out->distance = kcbp2d_len(kcbp_v2_sub(pb, pa));
        return;
    }
    /* The features: a point or an edge on each core. */
    kcbp_vec2 a0 = s[0].a, a1 = s[n - 1].a, b0 = s[0].b, b1 = s[n - 1].b;
    kcbp_vec2 pa, pb;
    double d;
    /* a vertex on one side (the usual end): its one candidate, the clamped
     * projection on the other feature, which is never farther than the
     * other feature's ends (kcbp2d_cp_seg_seg's other three candidates)
     * but by rounding */
    if (s[0].ia == s[n - 1].ia && point_seg_sq(a0, b0, b1, &pb, &d))
        pa = a0;
    else if (s[0].ib == s[n - 1].ib && point_seg_sq(b0, a0, a1, &pa, &d))
        pb = b0;
    else
        d = kcbp2d_cp_seg_seg(a0, a1, b0, b1, &pa, &pb);
    out->distance = d;
    out->pa = pa;
    out->pb = pb;
}

void kcbp2d_gjk_edge(const kcbp2d_core *a, const kcbp2d_core *b, int shape, uint32_t edge, uint32_t vertex,
                     int max_iterations, kcbp2d_gjk_out *out)
{
    /* the separating edge's two ends against the other core's nearest
     * vertex: a two-point warm start (kcbp2d_gjk_warm) */
    const kcbp2d_core *c = shape == 0 ? a : b, *o = shape == 0 ? b : a;
    uint32_t e0 = edge < c->n ? edge : 0, e1 = e0 + 1 < c->n ? e0 + 1 : 0, k = vertex < o->n ? vertex : 0;
    kcbp2d_gjk_cache cache = {2, {0, 0}, {0, 0}};
    for (int i = 0; i < 2; i++) {
        uint32_t ci = i ? e1 : e0;
        cache.ia[i] = shape == 0 ? ci : k, cache.ib[i] = shape == 0 ? k : ci;
    }
    kcbp2d_gjk_warm(a, b, &cache, max_iterations, true, out);
}

bool kcbp2d_point_seg_dist(kcbp_vec2 x, kcbp_vec2 a, kcbp_vec2 b, kcbp_vec2 *y, double *dist)
{
    return point_seg_sq(x, a, b, y, dist);
}
