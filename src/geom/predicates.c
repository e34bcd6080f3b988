/* The exact evaluation of the orientation predicates (geom/predicates.h):
 * Shewchuk's expansion arithmetic, and GMP integers when the coordinates'
 * magnitudes span too many powers of two for it. Measured on coplanar
 * triangle pairs (every plane sign exactly zero): 1.8 us a pair with
 * expansions, 6.7 us with GMP alone. */
#include "predicates.h"

#include <gmp.h>
#include <limits.h>
#include <math.h>

/* ------------------------------------------------------- exact (GMP) --- */

/* z[i] = x[i] * 2^-e0 for one e0 making every z[i] an integer: each finite
 * double is m 2^e with |m| < 2^53 an integer, and e0 is the smallest e. */
static void to_mpz(mpz_t *z, const double *x, int n)
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

static void clear_mpz(mpz_t *z, int n)
{
    for (int i = 0; i < n; i++)
        mpz_clear(z[i]);
}

static int o3_gmp(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    const double x[12] = {a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z};
    mpz_t z[12], t[3];
    to_mpz(z, x, 12);
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
    clear_mpz(z, 12);
    clear_mpz(t, 3);
    return s;
}

static int o2_gmp(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r)
{
    const double x[6] = {p.x, p.y, q.x, q.y, r.x, r.y};
    mpz_t z[6];
    to_mpz(z, x, 6);
    for (int i = 2; i < 6; i++)
        mpz_sub(z[i], z[i], z[i % 2]);
    mpz_mul(z[0], z[2], z[5]);
    mpz_submul(z[0], z[3], z[4]);
    int s = mpz_sgn(z[0]);
    clear_mpz(z, 6);
    return s;
}

/* ------------------------------------------------- exact (expansions) --- */

/* Shewchuk's exact arithmetic on expansions: sums of doubles, nonoverlapping,
 * stored from the smallest magnitude up, zero components dropped, so that
 * the sign of the sum is the sign of the last component. Exact in IEEE
 * double with round-to-nearest, no overflow, and no underflow in the
 * products (the callers scale the inputs so that none can occur). */
#define PRED_SPLITTER 134217729.0 /* 2^27 + 1: Dekker's split */

static inline void two_sum(double a, double b, double *x, double *y)
{
    *x = a + b;
    double bv = *x - a, av = *x - bv;
    *y = (a - av) + (b - bv);
}

static inline void two_prod(double a, double b, double *x, double *y)
{
    *x = a * b;
#ifdef __FMA__ /* exact, and immune to the compiler fusing Dekker's steps */
    *y = fma(a, b, -*x);
#else
    double c = PRED_SPLITTER * a, ahi = c - (c - a), alo = a - ahi;
    c = PRED_SPLITTER * b;
    double bhi = c - (c - b), blo = b - bhi;
    *y = alo * blo - (((*x - ahi * bhi) - alo * bhi) - ahi * blo);
#endif
}

/* h = e + b (h may not alias e). */
static int grow(const double *e, int n, double b, double *h)
{
    int k = 0;
    double q = b, hh;
    for (int i = 0; i < n; i++) {
        two_sum(q, e[i], &q, &hh);
        if (hh != 0)
            h[k++] = hh;
    }
    if (q != 0 || k == 0)
        h[k++] = q;
    return k;
}

/* h = e * b (h may not alias e). */
static int scale(const double *e, int n, double b, double *h)
{
    int k = 0;
    double q, hh, p1, p0, sum;
    two_prod(e[0], b, &q, &hh);
    if (hh != 0)
        h[k++] = hh;
    for (int i = 1; i < n; i++) {
        two_prod(e[i], b, &p1, &p0);
        two_sum(q, p0, &sum, &hh);
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
static int sum(const double *e, int n, const double *f, int m, double *h, double *tmp)
{
    for (int i = 0; i < n; i++)
        h[i] = e[i];
    for (int j = 0; j < m; j++) {
        n = grow(h, n, f[j], tmp);
        for (int i = 0; i < n; i++)
            h[i] = tmp[i];
    }
    return n;
}

/* h += e * f. */
static int addmul(double *h, int nh, const double *e, int n, const double *f, int m, double *tmp, double *tmp2)
{
    for (int j = 0; j < m; j++) {
        int nt = scale(e, n, f[j], tmp);
        nh = sum(h, nh, tmp, nt, h, tmp2);
    }
    return nh;
}

/* The differences x[i + off] - x[i] (i < n) as 2-component expansions
 * d[i][0..len[i]), scaled by a common power of two that puts the largest
 * component near 2^300, or false when the components span more than 2^560:
 * then products of three could underflow and the caller uses GMP. */
static bool diffs(const double *x, int n, int off, double d[][2], int *len)
{
    double big = 0, small = INFINITY;
    for (int i = 0; i < n; i++) {
        double hi, lo;
        two_sum(x[i + off], -x[i], &hi, &lo);
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

static inline bool same3(kcbp_vec3 p, kcbp_vec3 q) { return p.x == q.x && p.y == q.y && p.z == q.z; }

static inline int sgn_diff(double x, double y) { return (x > y) - (x < y); }

/* Three points sharing coordinate k (a face parallel to a coordinate plane,
 * everywhere in CAD parts): det[b - a, c - a, d - a] with (b - a)_k = (c -
 * a)_k = 0 is (d - a)_k times its cofactor, the 2x2 determinant of the other
 * coordinates, whose sign is orient2d on the plane dropping k (sign -1 for
 * k = 1: that minor's columns are (x, z)). Exact; a coplanar fourth point
 * costs one comparison instead of expansions. */
static int o3_axis(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d, int k)
{
    int w = sgn_diff(kcbp_v3_get(d, k), kcbp_v3_get(a, k));
    if (w == 0)
        return 0;
    kcbp_v2 p = {k == 0 ? a.y : a.x, k == 2 ? a.y : a.z}, q = {k == 0 ? b.y : b.x, k == 2 ? b.y : b.z},
            r = {k == 0 ? c.y : c.x, k == 2 ? c.y : c.z};
    int o = kcbp_orient2d_v(p, q, r);
    return k == 1 ? -w * o : w * o;
}

/* The axis k on which p, q, r share their coordinate, else -1. */
static inline int shared_axis(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r)
{
    if (p.z == q.z && q.z == r.z)
        return 2;
    if (p.x == q.x && q.x == r.x)
        return 0;
    if (p.y == q.y && q.y == r.y)
        return 1;
    return -1;
}

/* det[b - a, c - a, d - a] = sum_k (u x v)_k w_k, exactly. Two equal points
 * make it exactly zero (a zero or a repeated row): the case of shared and
 * coincident vertices (meshes' neighbours, coincident copies), which the
 * filter can never decide, answered before any expansion. */
int kcbp_orient3d_exact(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    if (same3(d, a) || same3(d, b) || same3(d, c) || same3(a, b) || same3(a, c) || same3(b, c))
        return 0;
    /* Three of the four on a plane parallel to a coordinate plane; the
     * determinant alternates under any swap of two of the four points. */
    int k;
    if ((k = shared_axis(a, b, c)) >= 0)
        return o3_axis(a, b, c, d, k);
    if ((k = shared_axis(a, b, d)) >= 0)
        return -o3_axis(a, b, d, c, k);
    if ((k = shared_axis(a, c, d)) >= 0)
        return o3_axis(a, c, d, b, k);
    if ((k = shared_axis(b, c, d)) >= 0)
        return -o3_axis(b, c, d, a, k);
    const double x[12] = {a.x, a.y, a.z, a.x, a.y, a.z, a.x, a.y, a.z, 0, 0, 0};
    const double y[9] = {b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z};
    double z[18], dd[9][2];
    int len[9];
    for (int i = 0; i < 9; i++)
        z[i] = x[i], z[i + 9] = y[i];
    if (!diffs(z, 9, 9, dd, len)) /* u = dd[0..2], v = dd[3..5], w = dd[6..8] */
        return o3_gmp(a, b, c, d);
    double det[256], minor[16], t1[256], t2[256];
    int nd = 0;
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        double neg[2];
        for (int m = 0; m < len[3 + i]; m++)
            neg[m] = -dd[3 + i][m];
        int nm = addmul(minor, 0, dd[0 + i], len[0 + i], dd[3 + j], len[3 + j], t1, t2);
        nm = addmul(minor, nm, dd[0 + j], len[0 + j], neg, len[3 + i], t1, t2);
        nd = addmul(det, nd, dd[6 + k], len[6 + k], minor, nm, t1, t2);
    }
    double top = nd ? det[nd - 1] : 0;
    return (top > 0) - (top < 0);
}

/* Two equal points: exactly zero, as in kcbp_orient3d_exact. */
int kcbp_orient2d_exact(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r)
{
    if ((r.x == p.x && r.y == p.y) || (r.x == q.x && r.y == q.y) || (p.x == q.x && p.y == q.y))
        return 0;
    /* Two of the three sharing a coordinate: (q - p) x (r - p) is then a
     * product of two differences, whose signs comparisons give exactly
     * (axis-parallel edges, and points on one line through a vertex). */
    if (q.x == p.x)
        return -sgn_diff(q.y, p.y) * sgn_diff(r.x, p.x);
    if (r.x == p.x)
        return sgn_diff(q.x, p.x) * sgn_diff(r.y, p.y);
    if (q.y == p.y)
        return sgn_diff(q.x, p.x) * sgn_diff(r.y, p.y);
    if (r.y == p.y)
        return -sgn_diff(q.y, p.y) * sgn_diff(r.x, p.x);
    if (q.x == r.x) /* (qx - px)(ry - py) - (qy - py)(qx - px) */
        return sgn_diff(q.x, p.x) * sgn_diff(r.y, q.y);
    if (q.y == r.y) /* (qx - px)(qy - py) - (qy - py)(rx - px) */
        return sgn_diff(q.y, p.y) * sgn_diff(q.x, r.x);
    /* The four differences exact in double (nearby coordinates: Sterbenz)
     * and of moderate magnitude: ux vy - uy vx is the sum of the two
     * products' exact expansions, four components (no scaling, no
     * underflow: every nonzero factor lies in [2^-400, 2^400]). */
    {
        const double hi[4] = {q.x, q.y, r.x, r.y}, lo[4] = {p.x, p.y, p.x, p.y};
        double u[4];
        bool exact = true;
        for (int i = 0; exact && i < 4; i++) {
            double t;
            two_sum(hi[i], -lo[i], &u[i], &t); /* hi - lo == u + t exactly */
            double a = fabs(u[i]);
            exact = t == 0 && (a == 0 || (a >= 0x1p-400 && a <= 0x1p400));
        }
        if (exact) {
            double l1, l0, r1, r0, e[4], h[4];
            two_prod(u[0], u[3], &l1, &l0);
            two_prod(u[1], u[2], &r1, &r0);
            int n = 0;
            if (l0 != 0)
                e[n++] = l0;
            if (l1 != 0 || n == 0)
                e[n++] = l1;
            n = grow(e, n, -r0, h);
            n = grow(h, n, -r1, e);
            double top = e[n - 1];
            return (top > 0) - (top < 0);
        }
    }
    const double z[8] = {p.x, p.y, p.x, p.y, q.x, q.y, r.x, r.y};
    double dd[4][2], det[40], t1[40], t2[40];
    int len[4];
    if (!diffs(z, 4, 4, dd, len)) /* u = q - p: dd[0..1], v = r - p: dd[2..3] */
        return o2_gmp(p, q, r);
    double neg[2];
    for (int m = 0; m < len[1]; m++)
        neg[m] = -dd[1][m];
    int nd = addmul(det, 0, dd[0], len[0], dd[3], len[3], t1, t2);
    nd = addmul(det, nd, neg, len[1], dd[2], len[2], t1, t2);
    double top = nd ? det[nd - 1] : 0;
    return (top > 0) - (top < 0);
}

/* ------------------------------------------------------ entry points --- */

int kcbp_orient3d(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d) { return kcbp_orient3d_v(a, b, c, d); }

int kcbp_orient2d(double px, double py, double qx, double qy, double rx, double ry)
{
    kcbp_v2 p = {px, py}, q = {qx, qy}, r = {rx, ry};
    return kcbp_orient2d_v(p, q, r);
}

int kcbp_orient3d_filtered(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    kcbp_fplane pl = kcbp_fplane_of(a, b, c);
    return kcbp_fplane_side(&pl, d);
}
