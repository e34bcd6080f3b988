/* Exact triangle-triangle intersection for double coordinates.
 *
 * Every decision is the sign of a determinant of the input coordinates:
 * orient3d(a, b, c, d) = det[b - a, c - a, d - a] and, in an axis plane (a
 * coordinate dropped, which is exact), orient2d. Nothing is constructed. A
 * sign is first taken from the double evaluation when it exceeds a proven
 * error bound (Shewchuk's semi-static filter, below); only when it does not
 * is the determinant evaluated exactly: with Shewchuk-style expansion
 * arithmetic (written here), or with GMP integers when the coordinates'
 * magnitudes span so many powers of two that products could underflow.
 * Measured on coplanar pairs (every plane sign exactly zero): 1.8 us a pair
 * with expansions, 6.7 us with GMP alone; random pairs take 65-90 ns, the
 * filter deciding.
 *
 * Fast path (filters only): each triangle's vertices against the other's
 * plane; when both triangles cross the other's plane strictly, the
 * Guigue-Devillers test (two more orient3d) decides. Any sign the filters
 * cannot certify (a zero, a near-zero, a degenerate triangle, a non-finite
 * coordinate) sends the pair to the exact path, which decides every case
 * with one argument: two closed convex sets (triangles, segments, points)
 * meet exactly when an edge of one meets the other, since an extreme point
 * of their intersection lies on the relative boundary of one of them. */
#include <kcbp/tritri.h>

#include "predicates.h"

#include <gmp.h>
#include <limits.h>
#include <math.h>

/* ------------------------------------------------------------ filters --- */

/* Error bounds of the double evaluations below, with u = 2^-53 the unit
 * roundoff. Shewchuk (1997, section 4.2) proves |det - fl(det)| <= (7 + 56u)
 * u * permanent for orient3d evaluated as a sum of three (difference) x
 * (2x2 minor of differences) terms, the permanent being the same sum with
 * every product taken in absolute value and computed in floating point;
 * (3 + 16u) u * (|l| + |r|) for orient2d = l - r. His bounds hold for any
 * expansion of that shape (here, along the row of the tested point's
 * differences), and we round them up to 8u and 4u. They assume no
 * underflow: a product that underflows is off by at most 2^-1075, which the
 * minors' outer factors can scale by at most |w|_1 (the tested point's
 * differences), so TT_TINY * (1 + |w|_1) is added, far above that. Overflow
 * or a non-finite input makes the bound infinite or NaN: no sign is given. */
#define TT_U 0x1p-53
#define TT_O3_ERR (8 * TT_U)
#define TT_O2_ERR (4 * TT_U)
#define TT_TINY 0x1p-1000

/* A triangle's plane for the filter: its first vertex, the rounded normal
 * n = (t1 - t0) x (t2 - t0), and e with e_k = TT_O3_ERR m_k + TT_TINY, m_k
 * the permanent's minor (the two products of n_k in absolute value, summed),
 * so that the bound for a point p, w = p - t0, is e . |w| + TT_TINY: both
 * terms above in one dot product. Computing e rounds a few times more,
 * which the slack between (7 + 56u) u and 8u covers. */
typedef struct {
    kcbp_vec3 o, n, e;
} tt_fplane;

static inline tt_fplane tt_fplane_of(kcbp_vec3 t0, kcbp_vec3 t1, kcbp_vec3 t2)
{
    kcbp_vec3 u = kcbp_v3_sub(t1, t0), v = kcbp_v3_sub(t2, t0);
    double p0 = u.y * v.z, p1 = u.z * v.y, p2 = u.z * v.x, p3 = u.x * v.z, p4 = u.x * v.y, p5 = u.y * v.x;
    tt_fplane pl = {t0,
                    {p0 - p1, p2 - p3, p4 - p5},
                    {TT_O3_ERR * (fabs(p0) + fabs(p1)) + TT_TINY, TT_O3_ERR * (fabs(p2) + fabs(p3)) + TT_TINY,
                     TT_O3_ERR * (fabs(p4) + fabs(p5)) + TT_TINY}};
    return pl;
}

/* The sign of orient3d(t0, t1, t2, p) when the filter certifies it, else 0
 * (zero, too close to call, or non-finite). */
static inline int tt_fside(const tt_fplane *pl, kcbp_vec3 p)
{
    kcbp_vec3 w = kcbp_v3_sub(p, pl->o);
    double det = pl->n.x * w.x + pl->n.y * w.y + pl->n.z * w.z;
    double bound = pl->e.x * fabs(w.x) + pl->e.y * fabs(w.y) + pl->e.z * fabs(w.z) + TT_TINY;
    return (det > bound) - (det < -bound);
}

typedef struct {
    double x, y;
} tt_v2;

static inline int tt_fo2(tt_v2 p, tt_v2 q, tt_v2 r)
{
    double l = (q.x - p.x) * (r.y - p.y), rr = (q.y - p.y) * (r.x - p.x);
    double det = l - rr, bound = TT_O2_ERR * (fabs(l) + fabs(rr)) + TT_TINY;
    return (det > bound) - (det < -bound);
}

/* ------------------------------------------------------- exact (GMP) --- */

/* z[i] = x[i] * 2^-e0 for one e0 making every z[i] an integer: each finite
 * double is m 2^e with |m| < 2^53 an integer, and e0 is the smallest e. */
static void tt_to_mpz(mpz_t *z, const double *x, int n)
{
    int e0 = INT_MAX;
    for (int i = 0; i < n; i++)
        if (x[i] != 0) {
            int e;
            frexp(x[i], &e);
            e0 = e - 53 < e0 ? e - 53 : e0;
        }
    for (int i = 0; i < n; i++) {
        mpz_init(z[i]);
        if (x[i] == 0)
            continue;
        int e;
        double f = frexp(x[i], &e);
        mpz_set_d(z[i], ldexp(f, 53)); /* an integer, exactly */
        mpz_mul_2exp(z[i], z[i], (mp_bitcnt_t)(e - 53 - e0));
    }
}

static void tt_clear(mpz_t *z, int n)
{
    for (int i = 0; i < n; i++)
        mpz_clear(z[i]);
}

static int tt_o3_gmp(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    const double x[12] = {a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z};
    mpz_t z[12], t[3];
    tt_to_mpz(z, x, 12);
    for (int i = 3; i < 12; i++) /* u = b - a, v = c - a, w = d - a */
        mpz_sub(z[i], z[i], z[i % 3]);
    mpz_init(t[0]), mpz_init(t[1]), mpz_init(t[2]);
    for (int k = 0; k < 3; k++) { /* det = sum_k (u x v)_k w_k */
        int i = (k + 1) % 3, j = (k + 2) % 3;
        mpz_mul(t[1], z[3 + i], z[6 + j]);
        mpz_submul(t[1], z[3 + j], z[6 + i]);
        mpz_addmul(t[0], t[1], z[9 + k]);
    }
    int s = mpz_sgn(t[0]);
    tt_clear(z, 12);
    tt_clear(t, 3);
    return s;
}

static int tt_o2_gmp(tt_v2 p, tt_v2 q, tt_v2 r)
{
    const double x[6] = {p.x, p.y, q.x, q.y, r.x, r.y};
    mpz_t z[6];
    tt_to_mpz(z, x, 6);
    for (int i = 2; i < 6; i++)
        mpz_sub(z[i], z[i], z[i % 2]);
    mpz_mul(z[0], z[2], z[5]);
    mpz_submul(z[0], z[3], z[4]);
    int s = mpz_sgn(z[0]);
    tt_clear(z, 6);
    return s;
}

/* ------------------------------------------------- exact (expansions) --- */

/* Shewchuk's exact arithmetic on expansions: sums of doubles, nonoverlapping,
 * stored from the smallest magnitude up, zero components dropped, so that
 * the sign of the sum is the sign of the last component. Exact in IEEE
 * double with round-to-nearest, no overflow, and no underflow in the
 * products (the callers scale the inputs so that none can occur). */
#define TT_SPLITTER 134217729.0 /* 2^27 + 1: Dekker's split */

static inline void tt_two_sum(double a, double b, double *x, double *y)
{
    *x = a + b;
    double bv = *x - a, av = *x - bv;
    *y = (a - av) + (b - bv);
}

static inline void tt_two_prod(double a, double b, double *x, double *y)
{
    *x = a * b;
#ifdef __FMA__ /* exact, and immune to the compiler fusing Dekker's steps */
    *y = fma(a, b, -*x);
#else
    double c = TT_SPLITTER * a, ahi = c - (c - a), alo = a - ahi;
    c = TT_SPLITTER * b;
    double bhi = c - (c - b), blo = b - bhi;
    *y = alo * blo - (((*x - ahi * bhi) - alo * bhi) - ahi * blo);
#endif
}

/* h = e + b (h may not alias e). */
static int tt_grow(const double *e, int n, double b, double *h)
{
    int k = 0;
    double q = b, hh;
    for (int i = 0; i < n; i++) {
        tt_two_sum(q, e[i], &q, &hh);
        if (hh != 0)
            h[k++] = hh;
    }
    if (q != 0 || k == 0)
        h[k++] = q;
    return k;
}

/* h = e * b (h may not alias e). */
static int tt_scale(const double *e, int n, double b, double *h)
{
    int k = 0;
    double q, hh, p1, p0, sum;
    tt_two_prod(e[0], b, &q, &hh);
    if (hh != 0)
        h[k++] = hh;
    for (int i = 1; i < n; i++) {
        tt_two_prod(e[i], b, &p1, &p0);
        tt_two_sum(q, p0, &sum, &hh);
        if (hh != 0)
            h[k++] = hh;
        q = p1 + sum; /* fast two-sum: |p1| >= |sum| */
        hh = sum - (q - p1);
        if (hh != 0)
            h[k++] = hh;
    }
    if (q != 0 || k == 0)
        h[k++] = q;
    return k;
}

/* h = e + f, growing e by each component of f (tmp: scratch of the same
 * size as h). */
static int tt_sum(const double *e, int n, const double *f, int m, double *h, double *tmp)
{
    for (int i = 0; i < n; i++)
        h[i] = e[i];
    for (int j = 0; j < m; j++) {
        n = tt_grow(h, n, f[j], tmp);
        for (int i = 0; i < n; i++)
            h[i] = tmp[i];
    }
    return n;
}

/* h += e * f. */
static int tt_addmul(double *h, int nh, const double *e, int n, const double *f, int m, double *tmp, double *tmp2)
{
    for (int j = 0; j < m; j++) {
        int nt = tt_scale(e, n, f[j], tmp);
        nh = tt_sum(h, nh, tmp, nt, h, tmp2);
    }
    return nh;
}

/* The differences x[i + off] - x[i] (i < n) as 2-component expansions
 * d[i][0..len[i]), scaled by a common power of two that puts the largest
 * component near 2^300, or false when the components span more than 2^560:
 * then products of three could underflow and the caller uses GMP. */
static bool tt_diffs(const double *x, int n, int off, double d[][2], int *len)
{
    double big = 0, small = INFINITY;
    for (int i = 0; i < n; i++) {
        double hi, lo;
        tt_two_sum(x[i + off], -x[i], &hi, &lo);
        len[i] = 0;
        if (lo != 0)
            d[i][len[i]++] = lo;
        if (hi != 0 || len[i] == 0)
            d[i][len[i]++] = hi;
        for (int k = 0; k < len[i]; k++) {
            double a = fabs(d[i][k]);
            big = a > big ? a : big;
            small = a != 0 && a < small ? a : small;
        }
    }
    if (big == 0)
        return true;
    int eb;
    frexp(big, &eb);
    int sh = 300 - eb;
    if (!(ldexp(small, sh) >= 0x1p-260) || !isfinite(big))
        return false;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < len[i]; k++)
            d[i][k] = ldexp(d[i][k], sh);
    return true;
}

/* det[b - a, c - a, d - a] = sum_k (u x v)_k w_k, exactly. */
static int tt_o3_exact(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    const double x[12] = {a.x, a.y, a.z, a.x, a.y, a.z, a.x, a.y, a.z, 0, 0, 0};
    const double y[9] = {b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z};
    double z[18], dd[9][2];
    int len[9];
    for (int i = 0; i < 9; i++)
        z[i] = x[i], z[i + 9] = y[i];
    if (!tt_diffs(z, 9, 9, dd, len)) /* u = dd[0..2], v = dd[3..5], w = dd[6..8] */
        return tt_o3_gmp(a, b, c, d);
    double det[256], minor[16], t1[256], t2[256];
    int nd = 0;
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        double neg[2];
        for (int m = 0; m < len[3 + i]; m++)
            neg[m] = -dd[3 + i][m];
        int nm = tt_addmul(minor, 0, dd[0 + i], len[0 + i], dd[3 + j], len[3 + j], t1, t2);
        nm = tt_addmul(minor, nm, dd[0 + j], len[0 + j], neg, len[3 + i], t1, t2);
        nd = tt_addmul(det, nd, dd[6 + k], len[6 + k], minor, nm, t1, t2);
    }
    double top = nd ? det[nd - 1] : 0;
    return (top > 0) - (top < 0);
}

static int tt_o2_exact(tt_v2 p, tt_v2 q, tt_v2 r)
{
    const double z[8] = {p.x, p.y, p.x, p.y, q.x, q.y, r.x, r.y};
    double dd[4][2], det[40], t1[40], t2[40];
    int len[4];
    if (!tt_diffs(z, 4, 4, dd, len)) /* u = q - p: dd[0..1], v = r - p: dd[2..3] */
        return tt_o2_gmp(p, q, r);
    double neg[2];
    for (int m = 0; m < len[1]; m++)
        neg[m] = -dd[1][m];
    int nd = tt_addmul(det, 0, dd[0], len[0], dd[3], len[3], t1, t2);
    nd = tt_addmul(det, nd, neg, len[1], dd[2], len[2], t1, t2);
    double top = nd ? det[nd - 1] : 0;
    return (top > 0) - (top < 0);
}

/* Exact signs: the filter, then the exact evaluation when it cannot tell. */
static int tt_o3(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    tt_fplane pl = tt_fplane_of(a, b, c);
    int s = tt_fside(&pl, d);
    return s ? s : tt_o3_exact(a, b, c, d);
}

static int tt_o2(tt_v2 p, tt_v2 q, tt_v2 r)
{
    int s = tt_fo2(p, q, r);
    return s ? s : tt_o2_exact(p, q, r);
}

/* ---------------------------------------------------- exact path, 2D --- */

/* Drop coordinate k: exact, and on a plane whose normal has a non-zero k
 * component a bijection, so it preserves which points meet. */
static tt_v2 tt_drop(kcbp_vec3 p, int k)
{
    tt_v2 r = {k == 0 ? p.y : p.x, k == 2 ? p.y : p.z};
    return r;
}

/* r on segment pq, given that the three are collinear (pq may be a point). */
static bool tt_on_seg2(tt_v2 p, tt_v2 q, tt_v2 r)
{
    return (p.x <= q.x ? p.x <= r.x && r.x <= q.x : q.x <= r.x && r.x <= p.x) &&
           (p.y <= q.y ? p.y <= r.y && r.y <= q.y : q.y <= r.y && r.y <= p.y);
}

/* Closed segments pq and rs (either may be a point) share a point. */
static bool tt_seg_seg2(tt_v2 p, tt_v2 q, tt_v2 r, tt_v2 s)
{
    int o1 = tt_o2(p, q, r), o2 = tt_o2(p, q, s), o3 = tt_o2(r, s, p), o4 = tt_o2(r, s, q);
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return true;
    return (o1 == 0 && tt_on_seg2(p, q, r)) || (o2 == 0 && tt_on_seg2(p, q, s)) || (o3 == 0 && tt_on_seg2(r, s, p)) ||
           (o4 == 0 && tt_on_seg2(r, s, q));
}

/* Three orientation signs describe a point in a non-degenerate triangle's
 * closed interior exactly when they are not of mixed strict signs. */
static bool tt_unmixed(int a, int b, int c) { return !((a > 0 || b > 0 || c > 0) && (a < 0 || b < 0 || c < 0)); }

/* Segment pq against the non-degenerate triangle t in 2D: an endpoint in
 * t, or the segment crosses t's boundary. */
static bool tt_seg_tri2(tt_v2 p, tt_v2 q, const tt_v2 t[3])
{
    for (int e = 0; e < 2; e++) {
        tt_v2 r = e ? q : p;
        if (tt_unmixed(tt_o2(t[0], t[1], r), tt_o2(t[1], t[2], r), tt_o2(t[2], t[0], r)))
            return true;
    }
    return tt_seg_seg2(p, q, t[0], t[1]) || tt_seg_seg2(p, q, t[1], t[2]) || tt_seg_seg2(p, q, t[2], t[0]);
}

/* ---------------------------------------------------- exact path, 3D --- */

/* The axis k whose dropping leaves t's projection with non-zero area, or -1
 * when t is degenerate (its three vertices collinear, exactly). */
static int tt_area_axis(const kcbp_vec3 t[3])
{
    for (int k = 2; k >= 0; k--)
        if (tt_o2(tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)) != 0)
            return k;
    return -1;
}

/* Closed segments pq and rs in 3D (either may be a point): coplanar, and
 * meeting in each axis-plane projection. Projections of meeting sets meet;
 * and one of the three is injective on a plane holding all four points
 * (one whose normal has a non-zero component on the dropped axis), so there
 * meeting means meeting in 3D. */
static bool tt_seg_seg3(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r, kcbp_vec3 s)
{
    if (tt_o3(p, q, r, s) != 0)
        return false;
    for (int k = 0; k < 3; k++)
        if (!tt_seg_seg2(tt_drop(p, k), tt_drop(q, k), tt_drop(r, k), tt_drop(s, k)))
            return false;
    return true;
}

/* Closed segment pq (maybe a point) against the closed triangle t, whose
 * area axis is k (-1: t is degenerate, the union of its edges); sp, sq are
 * the exact signs of orient3d(t0, t1, t2, p) and (..., q) when k >= 0. */
static bool tt_seg_tri3(kcbp_vec3 p, kcbp_vec3 q, int sp, int sq, const kcbp_vec3 t[3], int k)
{
    if (k < 0)
        return tt_seg_seg3(p, q, t[0], t[1]) || tt_seg_seg3(p, q, t[1], t[2]) || tt_seg_seg3(p, q, t[2], t[0]);
    if (sp * sq > 0)
        return false;
    if (sp == 0 && sq == 0) { /* in t's plane: 2D on t's area axis */
        tt_v2 t2[3] = {tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)};
        return tt_seg_tri2(tt_drop(p, k), tt_drop(q, k), t2);
    }
    /* pq meets t's plane at one point X (p != q). orient3d(p, q, ti, tj) is
     * the orientation of (X, ti, tj) in the plane times one sign common to
     * the three edges, so X is in t when they are not of mixed signs. */
    return tt_unmixed(tt_o3(p, q, t[0], t[1]), tt_o3(p, q, t[1], t[2]), tt_o3(p, q, t[2], t[0]));
}

/* Two non-degenerate coplanar triangles, projected along an axis on which
 * one has area (then both do: same plane): a vertex of one in the other, or
 * two edges crossing. */
static bool tt_tri_tri2(const kcbp_vec3 a[3], const kcbp_vec3 b[3], int k)
{
    tt_v2 p[3] = {tt_drop(a[0], k), tt_drop(a[1], k), tt_drop(a[2], k)};
    tt_v2 q[3] = {tt_drop(b[0], k), tt_drop(b[1], k), tt_drop(b[2], k)};
    for (int i = 0; i < 3; i++)
        if (tt_unmixed(tt_o2(q[0], q[1], p[i]), tt_o2(q[1], q[2], p[i]), tt_o2(q[2], q[0], p[i])) ||
            tt_unmixed(tt_o2(p[0], p[1], q[i]), tt_o2(p[1], p[2], q[i]), tt_o2(p[2], p[0], q[i])))
            return true;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (tt_seg_seg2(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]))
                return true;
    return false;
}

static bool tt_finite(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    for (int i = 0; i < 3; i++)
        if (!kcbp_v3_is_finite(a[i]) || !kcbp_v3_is_finite(b[i]))
            return false;
    return true;
}

static bool tt_one_side(const int s[3]) { return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0); }

/* Every sign exact. Two triangles (or segments, points) meet exactly when
 * an edge of one meets the other (see the top of the file); the plane
 * signs, each taken once, reject most pairs and serve the edge tests. */
static bool tt_exact(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    if (!tt_finite(a, b))
        return true;
    int ka = tt_area_axis(a), kb = tt_area_axis(b);
    int sa[3] = {0, 0, 0}, sb[3] = {0, 0, 0}; /* a's vertices against b's plane, and b's against a's */
    for (int i = 0; i < 3 && kb >= 0; i++)
        sa[i] = tt_o3(b[0], b[1], b[2], a[i]);
    if (tt_one_side(sa))
        return false;
    for (int i = 0; i < 3 && ka >= 0; i++)
        sb[i] = tt_o3(a[0], a[1], a[2], b[i]);
    if (tt_one_side(sb))
        return false;
    if (ka >= 0 && kb >= 0 && !sa[0] && !sa[1] && !sa[2])
        return tt_tri_tri2(a, b, ka); /* coplanar */
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        if (tt_seg_tri3(a[i], a[j], sa[i], sa[j], b, kb) || tt_seg_tri3(b[i], b[j], sb[i], sb[j], a, ka))
            return true;
    }
    return false;
}

/* ------------------------------------------------------- fast path --- */

/* The index of the vertex alone on its side (signs all non-zero, not all
 * equal). */
static inline int tt_lone(const int s[3]) { return s[1] == s[2] ? 0 : s[0] == s[2] ? 1 : 2; }

bool kcbp_tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps)
{
    (void)eps;
    tt_fplane pb = tt_fplane_of(b[0], b[1], b[2]);
    int sa[3] = {tt_fside(&pb, a[0]), tt_fside(&pb, a[1]), tt_fside(&pb, a[2])};
    if (sa[0] == 0 || sa[1] == 0 || sa[2] == 0)
        return tt_exact(a, b);
    if (sa[0] == sa[1] && sa[1] == sa[2])
        return false;
    tt_fplane pa = tt_fplane_of(a[0], a[1], a[2]);
    int sb[3] = {tt_fside(&pa, b[0]), tt_fside(&pa, b[1]), tt_fside(&pa, b[2])};
    if (sb[0] == 0 || sb[1] == 0 || sb[2] == 0)
        return tt_exact(a, b);
    if (sb[0] == sb[1] && sb[1] == sb[2])
        return false;

    /* Guigue and Devillers (JGT 2003): with p1 alone on the positive side
     * of b's plane and p2 alone on the positive side of a's (a cyclic
     * rotation keeps a triangle's orientation; swapping its other two
     * vertices flips its plane's sign), the two segments where the
     * triangles cross the planes' common line overlap exactly when
     * orient3d(p1, q1, p2, q2) <= 0 and orient3d(p1, r1, r2, p2) <= 0. */
    int i = tt_lone(sa), j = tt_lone(sb);
    kcbp_vec3 p1 = a[i], q1 = a[(i + 1) % 3], r1 = a[(i + 2) % 3];
    kcbp_vec3 p2 = b[j], q2 = b[(j + 1) % 3], r2 = b[(j + 2) % 3];
    if (sa[i] < 0) {
        kcbp_vec3 t = q2;
        q2 = r2, r2 = t;
    }
    if (sb[j] < 0) {
        kcbp_vec3 t = q1;
        q1 = r1, r1 = t;
    }
    tt_fplane g1 = tt_fplane_of(p1, q1, p2), g2 = tt_fplane_of(p1, r1, r2);
    int o1 = tt_fside(&g1, q2), o2 = tt_fside(&g2, p2);
    if (o1 == 0 || o2 == 0)
        return tt_exact(a, b);
    return o1 < 0 && o2 < 0;
}

/* ------------------------------------------- shared (src/predicates.h) --- */

int kcbp_orient3d(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d) { return tt_o3(a, b, c, d); }

int kcbp_orient2d(double px, double py, double qx, double qy, double rx, double ry)
{
    tt_v2 p = {px, py}, q = {qx, qy}, r = {rx, ry};
    return tt_o2(p, q, r);
}

bool kcbp_seg_tri_intersect(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3])
{
    const kcbp_vec3 s[3] = {p, q, q};
    if (!tt_finite(s, t))
        return true;
    int k = tt_area_axis(t);
    int sp = k >= 0 ? tt_o3(t[0], t[1], t[2], p) : 0, sq = k >= 0 ? tt_o3(t[0], t[1], t[2], q) : 0;
    return tt_seg_tri3(p, q, sp, sq, t, k);
}

bool kcbp_seg_tri_intersect_axis(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3], int k)
{
    tt_v2 t2[3] = {tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)};
    return tt_seg_tri2(tt_drop(p, k), tt_drop(q, k), t2);
}

int kcbp_orient3d_filtered(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    tt_fplane pl = tt_fplane_of(a, b, c);
    return tt_fside(&pl, d);
}
