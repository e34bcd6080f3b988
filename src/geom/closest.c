/* Closest points and the exact "within r" decisions of spheres and capsules
 * (closest.h), and the exact box-triangle test.
 *
 * The filter's bounds (closest.h), proven here with u = 2^-53 and no
 * underflow (an absolute TINY is added for that) or overflow (coordinates
 * and radii are at most 1e60, so every square is far below DBL_MAX):
 *
 * Local coordinates. Every coordinate is taken relative to o, the first
 * point of X: each difference v - o is rounded once, which moves each
 * vertex by at most u |v - o| <= u D, where D >= sqrt(3) max |coordinate of
 * a difference| bounds every local point's length. So the local sets X', Y'
 * are within u D of X - o, Y - o (Hausdorff), and dist changes by <= 2 u D.
 *
 * Upper bound. x is made as s * S1 with s a double in [0, 1] (a point of X'
 * exactly before the product rounds: error <= u D), y as sum l_i V_i with
 * computed weights l_i >= 0 normalised by their computed sum: the exact
 * point sum l_i V_i / sum l_i lies in Y', and the computed one is within
 * gamma_3 D (the sum) + 3.1 u D (sum l_i is 1 to within 3 u) = 6.2 u D of
 * it (a vertex or a point on an edge: at most the same). |y - x| is then
 * rounded by at most 3.7 u |y - x| <= 7.4 u D (the difference, the squares'
 * sum, the root). Total: 7.4 + 1 + 6.2 + 2 = 16.6 u D.
 *
 * Lower bound. For a = y - x (any vector != 0 would do), the gap
 * (min_i a.(V_i - x) - max_j a.(W_j - x)) / |a| over the vertices V_i of Y'
 * and W_j of X' is <= dist(X', Y'). Each V_i - x is within u 2D of its value
 * (|V_i - x| <= 2D), each dot product within gamma_3 |a| 2D more (Cauchy-
 * Schwarz), so each within 8.1 u |a| D; the difference of the two 16.2 u |a|
 * D plus its own rounding, <= u |a| 4D; |a| is computed with relative error
 * <= 2.6 u and the quotient rounds once more (3.6 u of |gap| <= 4 D). Total
 * with the local coordinates: 20.3 + 14.4 + 2 < 37 u D.
 *
 * Radii. ra + rb is rounded once: R is within u R of fl(ra + rb).
 *
 * So with err = KCBP_WITHIN_ERR u D (64 > 37): upper + err <= R (1 - 2u)
 * proves dist <= R, and lower - err > R (1 + 2u) proves dist > R. The
 * tests (tests/test_shapes.c) show that the factor matters: with 0 the
 * filter answers wrongly for points within an ulp of touching. */
#include "closest.h"

#include <float.h>
#include <gmp.h>
#include <math.h>

#include <kcbp/tritri.h>

#define U 0x1p-53
/* Far above any underflow error of the products and sums below. */
#define TINY 0x1p-900

static inline double clamp01(double x) { return x > 0 ? (x < 1 ? x : 1) : 0; }

static inline kcbp_vec3 lerp(kcbp_vec3 a, kcbp_vec3 e, double s) { return kcbp_v3_add(a, kcbp_v3_scale(e, s)); }

/* ---- distances in double ------------------------------------------------ */

double kcbp_cp_point_seg(kcbp_vec3 p, kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 *q)
{
    kcbp_vec3 e = kcbp_v3_sub(b, a), w = kcbp_v3_sub(p, a);
    double ee = kcbp_v3_dot(e, e), t = 0;
    if (ee > 0) {
        t = kcbp_v3_dot(w, e) / ee;
        t = isfinite(t) ? clamp01(t) : 0;
    }
    kcbp_vec3 c = t >= 1 ? b : lerp(a, e, t);
    if (q)
        *q = c;
    return kcbp_v3_len2(kcbp_v3_sub(p, c));
}

/* The projection of p on the plane of t when it falls inside t (its
 * barycentric weights all >= 0 as computed), as the weighted sum of the
 * vertices: true and *q set. n = (t1 - t0) x (t2 - t0). */
static bool face_point(kcbp_vec3 p, const kcbp_vec3 t[3], kcbp_vec3 n, double nn, kcbp_vec3 *q)
{
    if (!(nn > 0) || !isfinite(nn))
        return false;
    double l[3];
    for (int i = 0; i < 3; i++) {
        kcbp_vec3 e = kcbp_v3_sub(t[(i + 2) % 3], t[(i + 1) % 3]);
        kcbp_vec3 w = kcbp_v3_sub(p, t[(i + 1) % 3]);
        /* twice the signed area of (t_{i+1}, t_{i+2}, p') times |n|: the
         * weight of vertex i */
        l[i] = kcbp_v3_dot(n, kcbp_v3_cross(e, w));
        if (!(l[i] >= 0))
            return false;
    }
    double s = l[0] + l[1] + l[2];
    if (!(s > 0) || !isfinite(s))
        return false;
    kcbp_vec3 c = kcbp_v3_scale(t[0], l[0] / s);
    c = kcbp_v3_add(c, kcbp_v3_scale(t[1], l[1] / s));
    c = kcbp_v3_add(c, kcbp_v3_scale(t[2], l[2] / s));
    *q = c;
    return true;
}

double kcbp_cp_point_tri(kcbp_vec3 p, const kcbp_vec3 t[3], kcbp_vec3 *q)
{
    kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
    kcbp_vec3 c;
    if (face_point(p, t, n, kcbp_v3_len2(n), &c)) {
        /* Inside: the projection is the answer (the edges can only be
         * farther). */
        if (q)
            *q = c;
        return kcbp_v3_len2(kcbp_v3_sub(p, c));
    }
    double best = INFINITY;
    kcbp_vec3 bq = t[0];
    for (int i = 0; i < 3; i++) {
        kcbp_vec3 e;
        double d = kcbp_cp_point_seg(p, t[i], t[(i + 1) % 3], &e);
        if (d < best) {
            best = d;
            bq = e;
        }
    }
    if (q)
        *q = bq;
    return best;
}

double kcbp_cp_seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, kcbp_vec3 *c1, kcbp_vec3 *c2)
{
    kcbp_vec3 d1 = kcbp_v3_sub(p1, p0), d2 = kcbp_v3_sub(q1, q0), r = kcbp_v3_sub(p0, q0);
    double best = INFINITY;
    kcbp_vec3 b1 = p0, b2 = q0;
    /* The interior candidate: the lines' closest points, from cross
     * products (an error that does not grow as they turn parallel). */
    kcbp_vec3 n = kcbp_v3_cross(d1, d2);
    double nn = kcbp_v3_len2(n);
    if (nn > 0 && isfinite(nn)) {
        double s = kcbp_v3_dot(n, kcbp_v3_cross(d2, r)) / nn, t = kcbp_v3_dot(n, kcbp_v3_cross(d1, r)) / nn;
        if (s >= 0 && s <= 1 && t >= 0 && t <= 1) {
            b1 = lerp(p0, d1, s);
            b2 = lerp(q0, d2, t);
            best = kcbp_v3_len2(kcbp_v3_sub(b1, b2));
        }
    }
    /* The four ends against the other segment. */
    const kcbp_vec3 ends[4] = {p0, p1, q0, q1};
    for (int k = 0; k < 4; k++) {
        kcbp_vec3 e;
        double d = k < 2 ? kcbp_cp_point_seg(ends[k], q0, q1, &e) : kcbp_cp_point_seg(ends[k], p0, p1, &e);
        if (d < best) {
            best = d;
            b1 = k < 2 ? ends[k] : e;
            b2 = k < 2 ? e : ends[k];
        }
    }
    if (c1)
        *c1 = b1;
    if (c2)
        *c2 = b2;
    return best;
}

double kcbp_cp_seg_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], kcbp_vec3 *cs, kcbp_vec3 *ct)
{
    kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
    double nn = kcbp_v3_len2(n);
    /* The segment crossing the plane inside the triangle: distance 0 at the
     * crossing point. */
    double d0 = kcbp_v3_dot(n, kcbp_v3_sub(s0, t[0])), d1 = kcbp_v3_dot(n, kcbp_v3_sub(s1, t[0]));
    if (nn > 0 && ((d0 <= 0 && d1 >= 0) || (d0 >= 0 && d1 <= 0)) && d0 != d1) {
        double tau = clamp01(d0 / (d0 - d1));
        kcbp_vec3 x = lerp(s0, kcbp_v3_sub(s1, s0), tau), q;
        if (face_point(x, t, n, nn, &q)) {
            if (cs)
                *cs = x;
            if (ct)
                *ct = q;
            return kcbp_v3_len2(kcbp_v3_sub(x, q));
        }
    }
    /* Apart: the ends' projections inside the triangle, the ends against
     * the edges and the vertices against the segment (the four end
     * candidates of each segment-edge pair, each once), and the segment's
     * and each edge's interior closest points. */
    kcbp_vec3 bs = s0, bt = t[0], q;
    double best = INFINITY, d;
    const kcbp_vec3 ends[2] = {s0, s1};
    for (int j = 0; j < 2; j++)
        if (face_point(ends[j], t, n, nn, &q) && (d = kcbp_v3_len2(kcbp_v3_sub(ends[j], q))) < best) {
            best = d;
            bs = ends[j];
            bt = q;
        }
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++)
            if ((d = kcbp_cp_point_seg(ends[j], t[i], t[(i + 1) % 3], &q)) < best) {
                best = d;
                bs = ends[j];
                bt = q;
            }
    for (int i = 0; i < 3; i++)
        if ((d = kcbp_cp_point_seg(t[i], s0, s1, &q)) < best) {
            best = d;
            bs = q;
            bt = t[i];
        }
    kcbp_vec3 sd = kcbp_v3_sub(s1, s0);
    for (int i = 0; i < 3; i++) {
        kcbp_vec3 e0 = t[i], d2 = kcbp_v3_sub(t[(i + 1) % 3], e0), r = kcbp_v3_sub(s0, e0);
        kcbp_vec3 m = kcbp_v3_cross(sd, d2);
        double mm = kcbp_v3_len2(m);
        if (!(mm > 0) || !isfinite(mm))
            continue;
        double s = kcbp_v3_dot(m, kcbp_v3_cross(d2, r)) / mm, u = kcbp_v3_dot(m, kcbp_v3_cross(sd, r)) / mm;
        if (s >= 0 && s <= 1 && u >= 0 && u <= 1) {
            kcbp_vec3 a = lerp(s0, sd, s), b = lerp(e0, d2, u);
            if ((d = kcbp_v3_len2(kcbp_v3_sub(a, b))) < best) {
                best = d;
                bs = a;
                bt = b;
            }
        }
    }
    if (cs)
        *cs = bs;
    if (ct)
        *ct = bt;
    return best;
}

/* ---- exact squared distances (GMP rationals) ------------------------------ */

typedef struct {
    mpq_t c[3];
} qv;

static void qv_init(qv *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            mpq_init(v[i].c[k]);
}

static void qv_clear(qv *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            mpq_clear(v[i].c[k]);
}

static void qv_set(qv *v, kcbp_vec3 p)
{
    mpq_set_d(v->c[0], p.x);
    mpq_set_d(v->c[1], p.y);
    mpq_set_d(v->c[2], p.z);
}

static void qv_sub(qv *r, const qv *a, const qv *b)
{
    for (int k = 0; k < 3; k++)
        mpq_sub(r->c[k], a->c[k], b->c[k]);
}

/* r = a . b (t: scratch) */
static void qv_dot(mpq_t r, const qv *a, const qv *b, mpq_t t)
{
    mpq_mul(r, a->c[0], b->c[0]);
    mpq_mul(t, a->c[1], b->c[1]);
    mpq_add(r, r, t);
    mpq_mul(t, a->c[2], b->c[2]);
    mpq_add(r, r, t);
}

/* r = a x b (r must not alias a or b; t: scratch) */
static void qv_cross(qv *r, const qv *a, const qv *b, mpq_t t)
{
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        mpq_mul(r->c[k], a->c[i], b->c[j]);
        mpq_mul(t, a->c[j], b->c[i]);
        mpq_sub(r->c[k], r->c[k], t);
    }
}

static bool qv_zero(const qv *a) { return !mpq_sgn(a->c[0]) && !mpq_sgn(a->c[1]) && !mpq_sgn(a->c[2]); }

/* Scratch for the exact functions: allocated once per decision. */
typedef struct {
    qv v[8];
    mpq_t s[8];
} qscratch;

static void qs_init(qscratch *q)
{
    qv_init(q->v, 8);
    for (int i = 0; i < 8; i++)
        mpq_init(q->s[i]);
}

static void qs_clear(qscratch *q)
{
    qv_clear(q->v, 8);
    for (int i = 0; i < 8; i++)
        mpq_clear(q->s[i]);
}

/* out = dist(P, [A, B])^2: the projection parameter's numerator and
 * denominator, and the distance to the projection or to an end. */
static void q_point_seg(mpq_t out, const qv *P, const qv *A, const qv *B, qscratch *q)
{
    qv *e = &q->v[6], *w = &q->v[7];
    mpq_t *num = &q->s[4], *den = &q->s[5], *t = &q->s[6], *t2 = &q->s[7];
    qv_sub(e, B, A);
    qv_sub(w, P, A);
    qv_dot(*num, w, e, *t);
    qv_dot(*den, e, e, *t);
    if (mpq_sgn(*den) == 0 || mpq_sgn(*num) <= 0) {
        qv_dot(out, w, w, *t);
        return;
    }
    if (mpq_cmp(*num, *den) >= 0) {
        qv_sub(w, P, B);
        qv_dot(out, w, w, *t);
        return;
    }
    /* |w|^2 - num^2 / den */
    qv_dot(out, w, w, *t);
    mpq_mul(*t2, *num, *num);
    mpq_div(*t2, *t2, *den);
    mpq_sub(out, out, *t2);
}

/* out = dist(P, triangle A B C)^2: the projection when it lies in the
 * closed triangle (three exact orientation signs), else the nearest edge. */
static void q_point_tri(mpq_t out, const qv *P, const qv *T, qscratch *q)
{
    qv *e1 = &q->v[0], *e2 = &q->v[1], *n = &q->v[2], *w = &q->v[3], *c = &q->v[4];
    mpq_t *t = &q->s[0], *a = &q->s[1], *m = &q->s[2];
    qv_sub(e1, &T[1], &T[0]);
    qv_sub(e2, &T[2], &T[0]);
    qv_cross(n, e1, e2, *t);
    if (!qv_zero(n)) {
        bool inside = true;
        for (int i = 0; i < 3 && inside; i++) {
            qv_sub(e1, &T[(i + 1) % 3], &T[i]);
            qv_sub(w, P, &T[i]);
            qv_cross(c, e1, w, *t);
            qv_dot(*a, n, c, *t);
            inside = mpq_sgn(*a) >= 0;
        }
        if (inside) {
            qv_sub(w, P, &T[0]);
            qv_dot(*a, n, w, *t);
            mpq_mul(out, *a, *a);
            qv_dot(*a, n, n, *t);
            mpq_div(out, out, *a);
            return;
        }
    }
    q_point_seg(out, P, &T[0], &T[1], q);
    for (int i = 1; i < 3; i++) {
        q_point_seg(*m, P, &T[i], &T[(i + 1) % 3], q);
        if (mpq_cmp(*m, out) < 0)
            mpq_set(out, *m);
    }
}

/* out = dist([P0, P1], [Q0, Q1])^2: the four ends against the other
 * segment, and the lines' closest points when both lie inside (a convex
 * quadratic over [0, 1]^2 has its minimum there or on the square's edges). */
static void q_seg_seg(mpq_t out, const qv *P0, const qv *P1, const qv *Q0, const qv *Q1, qscratch *q)
{
    mpq_t *m = &q->s[0];
    q_point_seg(out, P0, Q0, Q1, q);
    q_point_seg(*m, P1, Q0, Q1, q);
    if (mpq_cmp(*m, out) < 0)
        mpq_set(out, *m);
    q_point_seg(*m, Q0, P0, P1, q);
    if (mpq_cmp(*m, out) < 0)
        mpq_set(out, *m);
    q_point_seg(*m, Q1, P0, P1, q);
    if (mpq_cmp(*m, out) < 0)
        mpq_set(out, *m);
    qv *d1 = &q->v[0], *d2 = &q->v[1], *r = &q->v[2], *n = &q->v[3], *c = &q->v[4];
    mpq_t *t = &q->s[1], *nn = &q->s[2], *sn = &q->s[3], *tn = &q->s[4];
    qv_sub(d1, P1, P0);
    qv_sub(d2, Q1, Q0);
    qv_sub(r, P0, Q0);
    qv_cross(n, d1, d2, *t);
    qv_dot(*nn, n, n, *t);
    if (mpq_sgn(*nn) == 0)
        return;
    qv_cross(c, d2, r, *t);
    qv_dot(*sn, n, c, *t);
    qv_cross(c, d1, r, *t);
    qv_dot(*tn, n, c, *t);
    if (mpq_sgn(*sn) < 0 || mpq_cmp(*sn, *nn) > 0 || mpq_sgn(*tn) < 0 || mpq_cmp(*tn, *nn) > 0)
        return;
    mpq_div(*sn, *sn, *nn);
    mpq_div(*tn, *tn, *nn);
    /* r + s d1 - t d2 */
    for (int k = 0; k < 3; k++) {
        mpq_mul(*t, *sn, d1->c[k]);
        mpq_add(c->c[k], r->c[k], *t);
        mpq_mul(*t, *tn, d2->c[k]);
        mpq_sub(c->c[k], c->c[k], *t);
    }
    qv_dot(*m, c, c, *t);
    if (mpq_cmp(*m, out) < 0)
        mpq_set(out, *m);
}

/* out = dist([S0, S1], triangle T)^2 given that they do not meet: the
 * ends against the triangle and the segment against its edges (for
 * disjoint convex sets the nearest points are on one of these). */
static void q_seg_tri_apart(mpq_t out, const qv *S, const qv *T, qscratch *q, mpq_t m)
{
    q_point_tri(out, &S[0], T, q);
    q_point_tri(m, &S[1], T, q);
    if (mpq_cmp(m, out) < 0)
        mpq_set(out, m);
    for (int i = 0; i < 3; i++) {
        q_seg_seg(m, &S[0], &S[1], &T[i], &T[(i + 1) % 3], q);
        if (mpq_cmp(m, out) < 0)
            mpq_set(out, m);
    }
}

static bool seg_meets_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3])
{
    const kcbp_vec3 s[3] = {s0, s1, s1}; /* a degenerate triangle is its segment (tritri.h) */
    return kcbp_tri_intersect(s, t, 0);
}

/* (ra + rb)^2 <=> d2, exactly: the sign of d2 - (ra + rb)^2. */
static int q_cmp_radius(const mpq_t d2, double ra, double rb)
{
    mpq_t r, t;
    mpq_init(r);
    mpq_init(t);
    mpq_set_d(r, ra);
    mpq_set_d(t, rb);
    mpq_add(r, r, t);
    mpq_mul(r, r, r);
    int c = mpq_cmp(d2, r);
    mpq_clear(r);
    mpq_clear(t);
    return c;
}

/* The exact squared distance between segment s and triangle t, which do
 * not meet (seg_meets_tri false), into d2 (initialised by the caller). */
static void exact_d2_seg_tri(mpq_t d2, kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3])
{
    qscratch q;
    qs_init(&q);
    qv S[2], T[3];
    qv_init(S, 2);
    qv_init(T, 3);
    qv_set(&S[0], s0);
    qv_set(&S[1], s1);
    for (int i = 0; i < 3; i++)
        qv_set(&T[i], t[i]);
    mpq_t m;
    mpq_init(m);
    q_seg_tri_apart(d2, S, T, &q, m);
    mpq_clear(m);
    qv_clear(S, 2);
    qv_clear(T, 3);
    qs_clear(&q);
}

/* The exact squared distance between segments p and q into d2
 * (initialised by the caller). */
static void exact_d2_seg_seg(mpq_t d2, kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1)
{
    qscratch q;
    qs_init(&q);
    qv P[4];
    qv_init(P, 4);
    qv_set(&P[0], p0);
    qv_set(&P[1], p1);
    qv_set(&P[2], q0);
    qv_set(&P[3], q1);
    q_seg_seg(d2, &P[0], &P[1], &P[2], &P[3], &q);
    qv_clear(P, 4);
    qs_clear(&q);
}

static bool exact_seg_tri_within(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], double r)
{
    if (seg_meets_tri(s0, s1, t))
        return true;
    mpq_t d2;
    mpq_init(d2);
    exact_d2_seg_tri(d2, s0, s1, t);
    bool in = q_cmp_radius(d2, r, 0) <= 0;
    mpq_clear(d2);
    return in;
}

static bool exact_seg_seg_within(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double ra, double rb)
{
    mpq_t d2;
    mpq_init(d2);
    exact_d2_seg_seg(d2, p0, p1, q0, q1);
    bool in = q_cmp_radius(d2, ra, rb) <= 0;
    mpq_clear(d2);
    return in;
}

double kcbp_exact_dist2_seg_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3])
{
    if (seg_meets_tri(s0, s1, t))
        return 0;
    mpq_t d2;
    mpq_init(d2);
    exact_d2_seg_tri(d2, s0, s1, t);
    double out = mpq_get_d(d2);
    mpq_clear(d2);
    return out;
}

double kcbp_exact_dist2_seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1)
{
    mpq_t d2;
    mpq_init(d2);
    exact_d2_seg_seg(d2, p0, p1, q0, q1);
    double out = mpq_get_d(d2);
    mpq_clear(d2);
    return out;
}

/* ---- the filter ----------------------------------------------------------- */

static inline double max_abs3(kcbp_vec3 v)
{
    double x = fabs(v.x), y = fabs(v.y), z = fabs(v.z);
    x = y > x ? y : x;
    return z > x ? z : x;
}

/* 1: dist <= ra + rb proven; 0: dist > ra + rb proven; -1: not decided.
 * W[0..nw) the vertices of X' (local: W[0] = 0), V[0..nv) those of Y', x
 * and y a computed closest pair (x on X', y on Y', each a point of its set
 * up to the rounding of making it), D as in the proof above. */
static int filter(const kcbp_vec3 *W, int nw, const kcbp_vec3 *V, int nv, kcbp_vec3 x, kcbp_vec3 y, double D,
                  double ra, double rb, double k)
{
    double err = k * U * D + TINY;
    double R = ra + rb, rlo = R * (1 - 2 * U), rhi = R * (1 + 2 * U);
    kcbp_vec3 a = kcbp_v3_sub(y, x);
    double len = kcbp_v3_len(a);
    if (!isfinite(len) || !isfinite(err))
        return -1;
    if (len + err <= rlo)
        return 1;
    if (!(len > 0))
        return -1;
    double ymin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < nv; i++) {
        double d = kcbp_v3_dot(a, kcbp_v3_sub(V[i], x));
        ymin = d < ymin ? d : ymin;
    }
    for (int j = 0; j < nw; j++) {
        double d = kcbp_v3_dot(a, kcbp_v3_sub(W[j], x));
        xmax = d > xmax ? d : xmax;
    }
    double lower = (ymin - xmax) / len;
    if (lower - err > rhi)
        return 0;
    return -1;
}

static void set_path(kcbp_within_path *path, kcbp_within_path p)
{
    if (path)
        *path = p;
}

bool kcbp_within_seg_tri_ex(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], double r, double k, bool exact_only,
                            kcbp_within_path *path)
{
    if (!exact_only) {
        kcbp_vec3 W[2] = {{0, 0, 0}, kcbp_v3_sub(s1, s0)};
        kcbp_vec3 V[3] = {kcbp_v3_sub(t[0], s0), kcbp_v3_sub(t[1], s0), kcbp_v3_sub(t[2], s0)};
        double m = max_abs3(W[1]);
        for (int i = 0; i < 3; i++) {
            double mi = max_abs3(V[i]);
            m = mi > m ? mi : m;
        }
        double D = 1.75 * m; /* > sqrt(3) m */
        bool point = s0.x == s1.x && s0.y == s1.y && s0.z == s1.z;
        /* Quick rejects: a gap along a coordinate axis (a difference of
         * coordinates, rounded once) or along the triangle's normal (the
         * filter's lower bound on that axis, with its bound) beyond r. */
        for (int k = 0; k < 3; k++) {
            double sa = k == 0 ? s0.x : k == 1 ? s0.y : s0.z, sb = k == 0 ? s1.x : k == 1 ? s1.y : s1.z;
            double ta = k == 0 ? t[0].x : k == 1 ? t[0].y : t[0].z, tb = k == 0 ? t[1].x : k == 1 ? t[1].y : t[1].z;
            double tc = k == 0 ? t[2].x : k == 1 ? t[2].y : t[2].z;
            double smin = sa < sb ? sa : sb, smax = sa > sb ? sa : sb;
            double tmin = ta < tb ? ta : tb, tmax = ta > tb ? ta : tb;
            tmin = tc < tmin ? tc : tmin;
            tmax = tc > tmax ? tc : tmax;
            double g = tmin - smax > smin - tmax ? tmin - smax : smin - tmax;
            if (g * (1 - 4 * U) > r * (1 + 4 * U)) {
                set_path(path, KCBP_WITHIN_FILTER_OUT);
                return false;
            }
        }
        kcbp_vec3 nrm = kcbp_v3_cross(kcbp_v3_sub(V[1], V[0]), kcbp_v3_sub(V[2], V[0]));
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            kcbp_vec3 a = kcbp_v3_scale(nrm, sgn);
            double len = kcbp_v3_len(a);
            if (!(len > 0) || !isfinite(len))
                break;
            double ymin = INFINITY, xmax = 0; /* W[0] = 0 */
            for (int i = 0; i < 3; i++) {
                double dv = kcbp_v3_dot(a, V[i]);
                ymin = dv < ymin ? dv : ymin;
            }
            if (!point) {
                double dw = kcbp_v3_dot(a, W[1]);
                xmax = dw > xmax ? dw : xmax;
            }
            if ((ymin - xmax) / len - (k * U * D + TINY) > r * (1 + 2 * U)) {
                set_path(path, KCBP_WITHIN_FILTER_OUT);
                return false;
            }
        }
        kcbp_vec3 x, y;
        if (point) {
            kcbp_cp_point_tri(W[0], V, &y);
            x = W[0];
        } else {
            kcbp_cp_seg_tri(W[0], W[1], V, &x, &y);
        }
        int f = filter(W, point ? 1 : 2, V, 3, x, y, D, r, 0, k);
        if (f >= 0) {
            set_path(path, f ? KCBP_WITHIN_FILTER_IN : KCBP_WITHIN_FILTER_OUT);
            return f == 1;
        }
    }
    set_path(path, KCBP_WITHIN_EXACT);
    if (!kcbp_v3_is_finite(s0) || !kcbp_v3_is_finite(s1) || !kcbp_v3_is_finite(t[0]) || !kcbp_v3_is_finite(t[1]) ||
        !kcbp_v3_is_finite(t[2]))
        return true;
    return exact_seg_tri_within(s0, s1, t, r);
}

bool kcbp_within_seg_seg_ex(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double ra, double rb, double k,
                            bool exact_only, kcbp_within_path *path)
{
    if (!exact_only) {
        kcbp_vec3 W[2] = {{0, 0, 0}, kcbp_v3_sub(p1, p0)};
        kcbp_vec3 V[2] = {kcbp_v3_sub(q0, p0), kcbp_v3_sub(q1, p0)};
        double m = max_abs3(W[1]);
        for (int i = 0; i < 2; i++) {
            double mi = max_abs3(V[i]);
            m = mi > m ? mi : m;
        }
        double D = 1.75 * m;
        kcbp_vec3 x, y;
        kcbp_cp_seg_seg(W[0], W[1], V[0], V[1], &x, &y);
        int f = filter(W, 2, V, 2, x, y, D, ra, rb, k);
        if (f >= 0) {
            set_path(path, f ? KCBP_WITHIN_FILTER_IN : KCBP_WITHIN_FILTER_OUT);
            return f == 1;
        }
    }
    set_path(path, KCBP_WITHIN_EXACT);
    if (!kcbp_v3_is_finite(p0) || !kcbp_v3_is_finite(p1) || !kcbp_v3_is_finite(q0) || !kcbp_v3_is_finite(q1))
        return true;
    return exact_seg_seg_within(p0, p1, q0, q1, ra, rb);
}

bool kcbp_within_point_point(kcbp_vec3 p, kcbp_vec3 q, double ra, double rb)
{
    return kcbp_within_seg_seg_ex(p, p, q, q, ra, rb, KCBP_WITHIN_ERR, false, NULL);
}

bool kcbp_within_point_seg(kcbp_vec3 p, kcbp_vec3 a, kcbp_vec3 b, double ra, double rb)
{
    return kcbp_within_seg_seg_ex(p, p, a, b, ra, rb, KCBP_WITHIN_ERR, false, NULL);
}

bool kcbp_within_seg_seg(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double ra, double rb)
{
    return kcbp_within_seg_seg_ex(p0, p1, q0, q1, ra, rb, KCBP_WITHIN_ERR, false, NULL);
}

bool kcbp_within_point_tri(kcbp_vec3 p, const kcbp_vec3 t[3], double r)
{
    return kcbp_within_seg_tri_ex(p, p, t, r, KCBP_WITHIN_ERR, false, NULL);
}

bool kcbp_within_seg_tri(kcbp_vec3 s0, kcbp_vec3 s1, const kcbp_vec3 t[3], double r)
{
    return kcbp_within_seg_tri_ex(s0, s1, t, r, KCBP_WITHIN_ERR, false, NULL);
}

/* ---- boxes ----------------------------------------------------------------- */

void kcbp_box_face_triangles(kcbp_vec3 h, kcbp_vec3 out[12][3])
{
    /* corner c: bit 0 x, bit 1 y, bit 2 z (set: +h) */
    kcbp_vec3 c[8];
    for (int i = 0; i < 8; i++)
        c[i] = kcbp_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
    /* each face's four corners in counter-clockwise order seen from outside */
    static const int face[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (int f = 0; f < 6; f++) {
        out[2 * f][0] = c[face[f][0]];
        out[2 * f][1] = c[face[f][1]];
        out[2 * f][2] = c[face[f][2]];
        out[2 * f + 1][0] = c[face[f][0]];
        out[2 * f + 1][1] = c[face[f][2]];
        out[2 * f + 1][2] = c[face[f][3]];
    }
}

static bool inside_box(kcbp_vec3 p, kcbp_vec3 h)
{
    return fabs(p.x) <= h.x && fabs(p.y) <= h.y && fabs(p.z) <= h.z;
}

/* The exact test: a closed triangle meets the closed box when a vertex is
 * inside it, or when it meets the box's surface (an intersection with the
 * solid that misses the surface lies in the interior: then every vertex
 * does). */
static bool box_tri_exact(kcbp_vec3 h, const kcbp_vec3 t[3])
{
    for (int i = 0; i < 3; i++)
        if (inside_box(t[i], h))
            return true;
    kcbp_vec3 faces[12][3];
    kcbp_box_face_triangles(h, faces);
    for (int f = 0; f < 12; f++)
        if (kcbp_tri_intersect(faces[f], t, 0))
            return true;
    return false;
}

static inline double get(kcbp_vec3 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }

/* Separating axes of a triangle and the box [-h, h] (Akenine-Moeller's
 * thirteen): the box's three (exact comparisons), the triangle's normal
 * n = (t1 - t0) x (t2 - t0), and each edge f crossed with each box axis.
 * Two closed convex polytopes are disjoint exactly when one of these
 * (the nonzero ones) separates them strictly; degenerate triangles
 * included (a segment's or a point's Minkowski sum with the box has only
 * such normals). On the normal and the cross axes the gap is a polynomial
 * in the coordinates whose double evaluation is within
 *   normal: sum_k (4.01 u P_k + 4.02 u |n_k|) (|t0_k| + h_k), P_k the two
 *     products of n_k in absolute value (Shewchuk's orient2d bound for n_k,
 *     gamma_3 for the dot products, u for the difference);
 *   cross:  4.02 u (perm + rad), perm the larger of the two projected
 *     vertices' products in absolute value, rad the box's radius on it;
 * of its exact value (for the exact edges t_j+1 - t_j, whose rounding is in
 * these bounds): with err_factor (KCBP_WITHIN_ERR) times u in place of 4.02
 * u, an axis whose gap exceeds the bound separates, and when every axis's gap is
 * below minus its bound no axis separates. */
bool kcbp_box_tri_intersect_ex(kcbp_vec3 h, const kcbp_vec3 t[3], double k, bool exact_only, kcbp_within_path *path)
{
    for (int i = 0; i < 3; i++) {
        double a = get(t[0], i), b = get(t[1], i), c = get(t[2], i), hi = get(h, i);
        double mn = a < b ? a : b, mx = a > b ? a : b;
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
        if (mn > hi || mx < -hi) {
            set_path(path, KCBP_WITHIN_FILTER_OUT);
            return false;
        }
    }
    if (!exact_only && kcbp_v3_is_finite(t[0]) && kcbp_v3_is_finite(t[1]) && kcbp_v3_is_finite(t[2])) {
        bool certain_in = true;
        const double ku = k * U;
        kcbp_vec3 f0 = kcbp_v3_sub(t[1], t[0]), f1 = kcbp_v3_sub(t[2], t[0]);
        double P[3], n[3];
        for (int c = 0; c < 3; c++) {
            int i = (c + 1) % 3, j = (c + 2) % 3;
            double p = get(f0, i) * get(f1, j), q = get(f0, j) * get(f1, i);
            n[c] = p - q;
            P[c] = fabs(p) + fabs(q);
        }
        if (P[0] + P[1] + P[2] > 0) { /* else the normal is exactly 0: no axis */
            double d = n[0] * t[0].x + n[1] * t[0].y + n[2] * t[0].z;
            double r = h.x * fabs(n[0]) + h.y * fabs(n[1]) + h.z * fabs(n[2]);
            double g = fabs(d) - r;
            double e = ku * ((P[0] + fabs(n[0])) * (fabs(t[0].x) + h.x) + (P[1] + fabs(n[1])) * (fabs(t[0].y) + h.y) +
                             (P[2] + fabs(n[2])) * (fabs(t[0].z) + h.z)) +
                       TINY;
            if (g - e > 0) {
                set_path(path, KCBP_WITHIN_FILTER_OUT);
                return false;
            }
            certain_in &= g + e <= 0;
        }
        for (int j = 0; j < 3; j++) {
            kcbp_vec3 us = t[j], w = t[(j + 2) % 3];
            kcbp_vec3 f = kcbp_v3_sub(t[(j + 1) % 3], us);
            for (int i = 0; i < 3; i++) {
                /* axis f x e_i: the two other coordinates (b, c) of f, as
                 * (0, f_z, -f_y) for i = x: p(v) = f_c v_b - f_b v_c */
                int b = (i + 1) % 3, c = (i + 2) % 3;
                double fb = get(f, b), fc = get(f, c);
                if (fb == 0 && fc == 0)
                    continue; /* f along e_i: the axis is 0 */
                double pu1 = fc * get(us, b), pu2 = fb * get(us, c), pw1 = fc * get(w, b), pw2 = fb * get(w, c);
                double pu = pu1 - pu2, pw = pw1 - pw2;
                double rad = get(h, b) * fabs(fc) + get(h, c) * fabs(fb);
                double mn = pu < pw ? pu : pw, mx = pu > pw ? pu : pw;
                double g = mn - rad > -rad - mx ? mn - rad : -rad - mx;
                double perm = fabs(pu1) + fabs(pu2), pw_ = fabs(pw1) + fabs(pw2);
                perm = pw_ > perm ? pw_ : perm;
                double e = ku * (perm + rad) + TINY;
                if (g - e > 0) {
                    set_path(path, KCBP_WITHIN_FILTER_OUT);
                    return false;
                }
                certain_in &= g + e <= 0;
            }
        }
        if (certain_in) {
            set_path(path, KCBP_WITHIN_FILTER_IN);
            return true;
        }
    }
    set_path(path, KCBP_WITHIN_EXACT);
    if (!kcbp_v3_is_finite(t[0]) || !kcbp_v3_is_finite(t[1]) || !kcbp_v3_is_finite(t[2]))
        return true;
    return box_tri_exact(h, t);
}

bool kcbp_box_tri_intersect(kcbp_vec3 h, const kcbp_vec3 t[3])
{
    return kcbp_box_tri_intersect_ex(h, t, KCBP_WITHIN_ERR, false, NULL);
}

bool kcbp_within_point_box(kcbp_vec3 p, kcbp_vec3 h, double ra, double rb)
{
    /* dist^2 = sum_k max(|p_k| - h_k, 0)^2: each term rounded with a
     * relative error <= 3.01 u (the difference, the square), the sum of
     * three nonnegative terms 2.01 u more; (ra + rb)^2 within 3.01 u. */
    double g[3] = {fabs(p.x) - h.x, fabs(p.y) - h.y, fabs(p.z) - h.z};
    double d2 = 0;
    for (int k = 0; k < 3; k++)
        d2 += g[k] > 0 ? g[k] * g[k] : 0;
    double R = ra + rb, R2 = R * R;
    if (isfinite(d2) && isfinite(R2)) {
        if (d2 * (1 + 16 * U) + TINY <= R2 * (1 - 16 * U))
            return true;
        if (d2 * (1 - 16 * U) - TINY > R2 * (1 + 16 * U))
            return false;
    } else if (!kcbp_v3_is_finite(p)) {
        return true;
    }
    mpq_t a, b, s;
    mpq_init(a);
    mpq_init(b);
    mpq_init(s);
    const double pc[3] = {fabs(p.x), fabs(p.y), fabs(p.z)}, hc[3] = {h.x, h.y, h.z};
    for (int k = 0; k < 3; k++) {
        mpq_set_d(a, pc[k]);
        mpq_set_d(b, hc[k]);
        mpq_sub(a, a, b);
        if (mpq_sgn(a) > 0) {
            mpq_mul(a, a, a);
            mpq_add(s, s, a);
        }
    }
    bool in = q_cmp_radius(s, ra, rb) <= 0;
    mpq_clear(a);
    mpq_clear(b);
    mpq_clear(s);
    return in;
}

bool kcbp_within_seg_box(kcbp_vec3 s0, kcbp_vec3 s1, kcbp_vec3 h, double r)
{
    if (inside_box(s0, h) || inside_box(s1, h))
        return true;
    /* A gap along one of the box's axes beyond r: apart (each gap rounded
     * once, relatively). */
    for (int i = 0; i < 3; i++) {
        double a = get(s0, i), b = get(s1, i), hi = get(h, i);
        double mn = a < b ? a : b, mx = a > b ? a : b;
        double g = mn - hi > -hi - mx ? mn - hi : -hi - mx;
        if (g * (1 - 2 * U) > r * (1 + 2 * U))
            return false;
    }
    kcbp_vec3 faces[12][3];
    kcbp_box_face_triangles(h, faces);
    for (int f = 0; f < 12; f++)
        if (kcbp_within_seg_tri(s0, s1, faces[f], r))
            return true;
    return false;
}

int kcbp_cmp_seg_seg_radius(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 q0, kcbp_vec3 q1, double r)
{
    mpq_t d2;
    mpq_init(d2);
    exact_d2_seg_seg(d2, p0, p1, q0, q1);
    int c = q_cmp_radius(d2, r, 0);
    mpq_clear(d2);
    return (c > 0) - (c < 0);
}
