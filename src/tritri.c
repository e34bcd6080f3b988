/* Triangle-triangle intersection after Möller (JGT 1997): reject with each
 * triangle's plane, then compare the two triangles' intervals on the line
 * where the planes meet; coplanar pairs are decided in 2D. Degenerate
 * (zero-area or thinner than eps) triangles are handled as segments, which
 * the plane/interval method cannot do.
 *
 * Everything here is static inline so the whole test compiles into one
 * function body; nothing divides before both plane rejections have run. */
#include <kcbp/tritri.h>

#include <float.h>
#include <math.h>

/* A triangle is degenerate when |e1 x e2| is within rounding of zero,
 * relative to |e1||e2| (same criterion as kcbp_triangle_is_degenerate), or
 * when its height over its longest edge is at most eps. */
#define TT_REL_DEGEN (8.0 * DBL_EPSILON)

typedef struct {
    double x, y;
} tt_v2;

/* ---------------------------------------------------------------- 2D --- */

static inline double tt_orient(tt_v2 p, tt_v2 q, tt_v2 r)
{
    return (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x);
}

/* |r - segment pq| <= eps, as squared lengths, without dividing. A
 * zero-length segment is a point. */
static inline bool tt_near_seg2(tt_v2 r, tt_v2 p, tt_v2 q, double eps2)
{
    double ex = q.x - p.x, ey = q.y - p.y, wx = r.x - p.x, wy = r.y - p.y;
    double t = ex * wx + ey * wy; /* projection parameter times |e|^2 */
    double ee = ex * ex + ey * ey;
    if (t <= 0)
        return wx * wx + wy * wy <= eps2;
    if (t >= ee) {
        double ux = r.x - q.x, uy = r.y - q.y;
        return ux * ux + uy * uy <= eps2;
    }
    double c = ex * wy - ey * wx;
    return c * c <= eps2 * ee;
}

/* r in the closed triangle t. A triangle whose projection has zero area has
 * no interior: its edges (tested by the caller) cover it. */
static inline bool tt_in_tri2(tt_v2 r, const tt_v2 t[3])
{
    double area = tt_orient(t[0], t[1], t[2]);
    double o0 = tt_orient(t[0], t[1], r), o1 = tt_orient(t[1], t[2], r), o2 = tt_orient(t[2], t[0], r);
    if (area > 0)
        return o0 >= 0 && o1 >= 0 && o2 >= 0;
    if (area < 0)
        return o0 <= 0 && o1 <= 0 && o2 <= 0;
    return false;
}

static inline bool tt_opposite(double u, double v) { return (u > 0 && v < 0) || (u < 0 && v > 0); }

/* Segments pq and rs cross at a point interior to both. Touching cases
 * (an endpoint on the other segment, collinear overlap) are left to the
 * distance test, which catches them with distance 0. */
static inline bool tt_cross2(tt_v2 p, tt_v2 q, tt_v2 r, tt_v2 s)
{
    return tt_opposite(tt_orient(p, q, r), tt_orient(p, q, s)) && tt_opposite(tt_orient(r, s, p), tt_orient(r, s, q));
}

/* Two convex polygons of np, nq in {1, 2, 3} vertices (point, segment,
 * triangle) in the plane: true when they share a point or come within eps.
 * Disjoint convex polygons are closest at a vertex of one and an edge of the
 * other, so vertex-edge distances decide "within eps"; overlap with no
 * vertex near an edge means a vertex inside or a proper edge crossing. */
static bool tt_overlap2(const tt_v2 *p, int np, const tt_v2 *q, int nq, double eps)
{
    int pe = np == 3 ? 3 : 1, qe = nq == 3 ? 3 : 1; /* edge i is (i, i+1 mod n) */
    if (nq == 3)
        for (int i = 0; i < np; i++)
            if (tt_in_tri2(p[i], q))
                return true;
    if (np == 3)
        for (int i = 0; i < nq; i++)
            if (tt_in_tri2(q[i], p))
                return true;
    if (np >= 2 && nq >= 2)
        for (int i = 0; i < pe; i++)
            for (int j = 0; j < qe; j++)
                if (tt_cross2(p[i], p[(i + 1) % np], q[j], q[(j + 1) % nq]))
                    return true;
    double eps2 = eps * eps;
    for (int j = 0; j < qe; j++)
        for (int i = 0; i < np; i++)
            if (tt_near_seg2(p[i], q[j], q[(j + 1) % nq], eps2))
                return true;
    for (int j = 0; j < pe; j++)
        for (int i = 0; i < nq; i++)
            if (tt_near_seg2(q[i], p[j], p[(j + 1) % np], eps2))
                return true;
    return false;
}

/* ---------------------------------------------------------------- 3D --- */

static inline int tt_max_axis(kcbp_vec3 v)
{
    double x = fabs(v.x), y = fabs(v.y), z = fabs(v.z);
    return x >= y ? (x >= z ? 0 : 2) : (y >= z ? 1 : 2);
}

/* Drop coordinate k: the projection onto the axis plane where a plane with
 * dominant normal component k keeps the most area. */
static inline tt_v2 tt_drop(kcbp_vec3 p, int k)
{
    tt_v2 r;
    if (k == 0)
        r.x = p.y, r.y = p.z;
    else if (k == 1)
        r.x = p.x, r.y = p.z;
    else
        r.x = p.x, r.y = p.y;
    return r;
}

static inline bool tt_nonfinite(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    double s = 0; /* x - x is 0 for finite x, NaN for NaN or infinity */
    for (int i = 0; i < 3; i++)
        s += (a[i].x - a[i].x) + (a[i].y - a[i].y) + (a[i].z - a[i].z) + (b[i].x - b[i].x) + (b[i].y - b[i].y) +
             (b[i].z - b[i].z);
    return s != s;
}

/* Lexicographic order, used to put segment endpoints and segment pairs in a
 * canonical order so results do not depend on argument or vertex order. */
static inline bool tt_less(kcbp_vec3 p, kcbp_vec3 q)
{
    return p.x < q.x || (p.x == q.x && (p.y < q.y || (p.y == q.y && p.z < q.z)));
}

/* The longest edge of a degenerate triangle, endpoints in canonical order. */
static inline void tt_segment(const kcbp_vec3 t[3], double l01, double l02, double l12, kcbp_vec3 s[2])
{
    int i = 0, j = 1;
    if (l02 > l01 && l02 >= l12)
        j = 2;
    else if (l12 > l01 && l12 > l02)
        i = 1, j = 2;
    if (tt_less(t[j], t[i])) {
        int k = i;
        i = j, j = k;
    }
    s[0] = t[i], s[1] = t[j];
}

/* Segment (possibly a point) against a non-degenerate triangle t with
 * normal n, |n| = nlen. */
static bool tt_seg_tri(const kcbp_vec3 s[2], const kcbp_vec3 t[3], kcbp_vec3 n, double nlen, double eps)
{
    double tol = eps * nlen;
    double rp = kcbp_v3_dot(n, kcbp_v3_sub(s[0], t[0])), rq = kcbp_v3_dot(n, kcbp_v3_sub(s[1], t[0]));
    double dp = fabs(rp) <= tol ? 0 : rp, dq = fabs(rq) <= tol ? 0 : rq;
    if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0))
        return false;
    int k = tt_max_axis(n);
    tt_v2 tt[3] = {tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)};
    if (dp == 0 && dq == 0) {
        tt_v2 ss[2] = {tt_drop(s[0], k), tt_drop(s[1], k)};
        return tt_overlap2(ss, 2, tt, 3, eps);
    }
    /* One crossing point; dp != dq since their signs differ. */
    kcbp_vec3 x = kcbp_v3_add(s[0], kcbp_v3_scale(kcbp_v3_sub(s[1], s[0]), dp / (dp - dq)));
    tt_v2 xx = tt_drop(x, k);
    if (tt_overlap2(&xx, 1, tt, 3, eps))
        return true;
    /* A snapped endpoint moves the crossing, far when the segment is nearly
     * parallel to the plane: also try the true crossing, if any. */
    if ((dp != rp || dq != rq) && !((rp > 0 && rq > 0) || (rp < 0 && rq < 0)) && rp != rq) {
        x = kcbp_v3_add(s[0], kcbp_v3_scale(kcbp_v3_sub(s[1], s[0]), rp / (rp - rq)));
        xx = tt_drop(x, k);
        return tt_overlap2(&xx, 1, tt, 3, eps);
    }
    return false;
}

static inline double tt_dist2_point_seg(kcbp_vec3 p, kcbp_vec3 s0, kcbp_vec3 s1)
{
    kcbp_vec3 e = kcbp_v3_sub(s1, s0), w = kcbp_v3_sub(p, s0);
    double ee = kcbp_v3_dot(e, e), t = kcbp_v3_dot(w, e);
    if (t <= 0 || ee == 0)
        return kcbp_v3_dot(w, w);
    if (t >= ee)
        return kcbp_v3_len2(kcbp_v3_sub(p, s1));
    return kcbp_v3_len2(kcbp_v3_sub(w, kcbp_v3_scale(e, t / ee)));
}

/* Two segments (either possibly a point) within eps of each other. The
 * squared distance between s(u) and r(v) over the unit square is convex: its
 * minimum is an interior critical point or lies on the boundary, where it is
 * an endpoint-to-segment distance. */
static bool tt_seg_seg(const kcbp_vec3 s[2], const kcbp_vec3 r[2], double eps)
{
    if (tt_less(r[0], s[0]) || (r[0].x == s[0].x && r[0].y == s[0].y && r[0].z == s[0].z && tt_less(r[1], s[1]))) {
        const kcbp_vec3 *t = s;
        s = r, r = t;
    }
    double eps2 = eps * eps;
    if (tt_dist2_point_seg(s[0], r[0], r[1]) <= eps2 || tt_dist2_point_seg(s[1], r[0], r[1]) <= eps2 ||
        tt_dist2_point_seg(r[0], s[0], s[1]) <= eps2 || tt_dist2_point_seg(r[1], s[0], s[1]) <= eps2)
        return true;
    kcbp_vec3 d1 = kcbp_v3_sub(s[1], s[0]), d2 = kcbp_v3_sub(r[1], r[0]), w = kcbp_v3_sub(s[0], r[0]);
    double a = kcbp_v3_dot(d1, d1), b = kcbp_v3_dot(d1, d2), c = kcbp_v3_dot(d2, d2);
    double d = kcbp_v3_dot(d1, w), e = kcbp_v3_dot(d2, w);
    double den = a * c - b * b; /* |d1 x d2|^2 */
    if (!(den > TT_REL_DEGEN * a * c))
        return false; /* parallel: the boundary already had the minimum */
    double u = (b * e - c * d) / den, v = (a * e - b * d) / den;
    if (u < 0 || u > 1 || v < 0 || v > 1)
        return false;
    kcbp_vec3 gap = kcbp_v3_sub(kcbp_v3_add(w, kcbp_v3_scale(d1, u)), kcbp_v3_scale(d2, v));
    return kcbp_v3_dot(gap, gap) <= eps2;
}

/* Möller's interval of a triangle on the planes' common line: p are the
 * vertices' coordinates on the projection axis, d their signed distances to
 * the other plane (snapped; not all zero, not all of one sign). The interval
 * joins the points where the two edges from the vertex alone on its side
 * meet the plane. */
static inline void tt_interval1(const double p[3], const double d[3], double *lo, double *hi)
{
    int s0 = (d[0] > 0) - (d[0] < 0), s1 = (d[1] > 0) - (d[1] < 0), s2 = (d[2] > 0) - (d[2] < 0);
    int i;
    if (s0 * s1 > 0)
        i = 2;
    else if (s0 * s2 > 0)
        i = 1;
    else if (s1 * s2 > 0 || s0 != 0)
        i = 0;
    else if (s1 != 0)
        i = 1;
    else
        i = 2;
    int j = i == 2 ? 0 : i + 1, k = i == 0 ? 2 : i - 1;
    /* d[i] differs from d[j] and d[k] in each branch above, and the ratios
     * lie in [0, 1]. */
    double t1 = p[i] + (p[j] - p[i]) * (d[i] / (d[i] - d[j]));
    double t2 = p[i] + (p[k] - p[i]) * (d[i] / (d[i] - d[k]));
    *lo = t1 < t2 ? t1 : t2;
    *hi = t1 < t2 ? t2 : t1;
}

static inline bool tt_one_side(const double d[3])
{
    return (d[0] > 0 && d[1] > 0 && d[2] > 0) || (d[0] < 0 && d[1] < 0 && d[2] < 0);
}

/* The interval from the snapped distances d, widened to cover the one from
 * the raw distances r when snapping changed them and the raw ones also
 * cross the plane. Snapping a vertex of a triangle nearly parallel to the
 * plane moves its crossing points far along the line; the union keeps both
 * "within eps counts as on the plane" and every true intersection. */
static inline void tt_interval(const double p[3], const double d[3], const double r[3], double *lo, double *hi)
{
    tt_interval1(p, d, lo, hi);
    if ((d[0] != r[0] || d[1] != r[1] || d[2] != r[2]) && !tt_one_side(r) && !(r[0] == 0 && r[1] == 0 && r[2] == 0)) {
        double l2, h2;
        tt_interval1(p, r, &l2, &h2);
        *lo = l2 < *lo ? l2 : *lo;
        *hi = h2 > *hi ? h2 : *hi;
    }
}

/* A triangle's plane: its normal (unnormalised), the normal's length, the
 * squared edge lengths, and whether the triangle is degenerate (zero area
 * up to rounding, or no higher than eps): then it is a segment or a point. */
typedef struct {
    kcbp_vec3 n;
    double len, l01, l02, l12;
    bool deg;
} tt_plane;

static inline tt_plane tt_plane_of(const kcbp_vec3 t[3], double eps)
{
    tt_plane pl;
    kcbp_vec3 e01 = kcbp_v3_sub(t[1], t[0]), e02 = kcbp_v3_sub(t[2], t[0]), e12 = kcbp_v3_sub(t[2], t[1]);
    pl.n = kcbp_v3_cross(e01, e02);
    double n2 = kcbp_v3_len2(pl.n);
    pl.l01 = kcbp_v3_len2(e01);
    pl.l02 = kcbp_v3_len2(e02);
    pl.l12 = kcbp_v3_len2(e12);
    double lmax = fmax(pl.l01, fmax(pl.l02, pl.l12));
    pl.deg = n2 <= TT_REL_DEGEN * TT_REL_DEGEN * pl.l01 * pl.l02 || n2 <= eps * eps * lmax;
    pl.len = pl.deg ? 0 : sqrt(n2);
    return pl;
}

/* Signed distances, times |n|, of p's vertices from the plane through t0:
 * r as computed, d with those within eps of the plane snapped to 0. True
 * when all of p lies strictly on one side, so that nothing touches. */
static inline bool tt_sides(const tt_plane *pl, kcbp_vec3 t0, const kcbp_vec3 p[3], double eps, double r[3],
                            double d[3])
{
    double tol = eps * pl->len;
    for (int i = 0; i < 3; i++) {
        r[i] = kcbp_v3_dot(pl->n, kcbp_v3_sub(p[i], t0));
        d[i] = fabs(r[i]) <= tol ? 0 : r[i];
    }
    return tt_one_side(d);
}

bool kcbp_tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps)
{
    if (tt_nonfinite(a, b))
        return true;
    if (!(eps > 0))
        eps = 0; /* negative or NaN: no tolerance */

    /* Plane of b, and which side of it a's vertices lie on. */
    tt_plane plb = tt_plane_of(b, eps);
    double da[3] = {0, 0, 0}, ra[3] = {0, 0, 0};
    if (!plb.deg && tt_sides(&plb, b[0], a, eps, ra, da))
        return false;

    /* Plane of a, the same way. */
    tt_plane pla = tt_plane_of(a, eps);
    double db[3] = {0, 0, 0}, rb[3] = {0, 0, 0};
    if (!pla.deg && tt_sides(&pla, a[0], b, eps, rb, db))
        return false;

    /* Degenerate triangles: segments (or points). */
    if (pla.deg || plb.deg) {
        kcbp_vec3 sa[2], sb[2];
        if (pla.deg)
            tt_segment(a, pla.l01, pla.l02, pla.l12, sa);
        if (plb.deg)
            tt_segment(b, plb.l01, plb.l02, plb.l12, sb);
        if (pla.deg && plb.deg)
            return tt_seg_seg(sa, sb, eps);
        if (pla.deg)
            return tt_seg_tri(sa, b, plb.n, plb.len, eps);
        return tt_seg_tri(sb, a, pla.n, pla.len, eps);
    }

    /* Coplanar: one triangle lies (within eps) in the other's plane. Project
     * along the dominant axis of that plane's normal; when each lies in the
     * other's plane, of both normals weighted alike (keeps f(a,b) = f(b,a)). */
    bool acop = da[0] == 0 && da[1] == 0 && da[2] == 0;
    bool bcop = db[0] == 0 && db[1] == 0 && db[2] == 0;
    if (acop || bcop) {
        kcbp_vec3 n;
        if (acop && bcop)
            n = kcbp_v3_add(kcbp_v3_scale(kcbp_v3_abs(pla.n), plb.len), kcbp_v3_scale(kcbp_v3_abs(plb.n), pla.len));
        else
            n = acop ? plb.n : pla.n;
        int k = tt_max_axis(n);
        tt_v2 pa[3] = {tt_drop(a[0], k), tt_drop(a[1], k), tt_drop(a[2], k)};
        tt_v2 pb[3] = {tt_drop(b[0], k), tt_drop(b[1], k), tt_drop(b[2], k)};
        return tt_overlap2(pa, 3, pb, 3, eps);
    }

    /* Both triangles cross the other's plane: compare their intervals on the
     * common line, using the coordinate on which its direction is largest
     * (positions along the line are an affine function of it). Closed
     * intervals, with slack eps, so touching counts. */
    int k = tt_max_axis(kcbp_v3_cross(pla.n, plb.n));
    double pa[3] = {kcbp_v3_get(a[0], k), kcbp_v3_get(a[1], k), kcbp_v3_get(a[2], k)};
    double pb[3] = {kcbp_v3_get(b[0], k), kcbp_v3_get(b[1], k), kcbp_v3_get(b[2], k)};
    double alo, ahi, blo, bhi;
    tt_interval(pa, da, ra, &alo, &ahi);
    tt_interval(pb, db, rb, &blo, &bhi);
    return !(ahi < blo - eps || bhi < alo - eps);
}
