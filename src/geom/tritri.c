/* Exact triangle-triangle intersection for double coordinates.
 *
 * Every decision is the sign of a determinant of the input coordinates:
 * orient3d(a, b, c, d) = det[b - a, c - a, d - a] and, in an axis plane (a
 * coordinate dropped, which is exact), orient2d. Nothing is constructed. A
 * sign is first taken from the double evaluation when it exceeds a proven
 * error bound (Shewchuk's semi-static filter, geom/predicates.h); only when it does not
 * is the determinant evaluated exactly: with Shewchuk-style expansion
 * arithmetic, or with GMP integers when the coordinates' magnitudes span
 * so many powers of two that products could underflow (both in
 * src/geom/predicates.c). Random pairs take 65-90 ns, the filter deciding.
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

#include "base/util.h"
#include "predicates.h"
#include "tritri_exact.h"

#include <math.h>

/* ---------------------------------------------------- exact path, 2D --- */

/* Drop coordinate k: exact, and on a plane whose normal has a non-zero k
 * component a bijection, so it preserves which points meet. */
static kcbp_v2 tt_drop(kcbp_vec3 p, int k)
{
    kcbp_v2 r = {k == 0 ? p.y : p.x, k == 2 ? p.y : p.z};
    return r;
}

/* r on segment pq, given that the three are collinear (pq may be a point). */
static bool tt_on_seg2(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r)
{
    return (p.x <= q.x ? p.x <= r.x && r.x <= q.x : q.x <= r.x && r.x <= p.x) &&
           (p.y <= q.y ? p.y <= r.y && r.y <= q.y : q.y <= r.y && r.y <= p.y);
}

/* Closed segments pq and rs (either may be a point) share a point. */
static bool tt_seg_seg2(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r, kcbp_v2 s)
{
    int o1 = kcbp_orient2d_v(p, q, r), o2 = kcbp_orient2d_v(p, q, s), o3 = kcbp_orient2d_v(r, s, p), o4 = kcbp_orient2d_v(r, s, q);
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
static bool tt_seg_tri2(kcbp_v2 p, kcbp_v2 q, const kcbp_v2 t[3])
{
    for (int e = 0; e < 2; e++) {
        kcbp_v2 r = e ? q : p;
        if (tt_unmixed(kcbp_orient2d_v(t[0], t[1], r), kcbp_orient2d_v(t[1], t[2], r), kcbp_orient2d_v(t[2], t[0], r)))
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
        if (kcbp_orient2d_v(tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)) != 0)
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
    if (kcbp_orient3d_v(p, q, r, s) != 0)
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
        kcbp_v2 t2[3] = {tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)};
        return tt_seg_tri2(tt_drop(p, k), tt_drop(q, k), t2);
    }
    /* pq meets t's plane at one point X (p != q). orient3d(p, q, ti, tj) is
     * the orientation of (X, ti, tj) in the plane times one sign common to
     * the three edges, so X is in t when they are not of mixed signs. */
    return tt_unmixed(kcbp_orient3d_v(p, q, t[0], t[1]), kcbp_orient3d_v(p, q, t[1], t[2]), kcbp_orient3d_v(p, q, t[2], t[0]));
}

/* Two non-degenerate coplanar triangles, projected along an axis on which
 * one has area (then both do: same plane): a vertex of one in the other, or
 * two edges crossing. */
static bool tt_tri_tri2(const kcbp_vec3 a[3], const kcbp_vec3 b[3], int k)
{
    kcbp_v2 p[3] = {tt_drop(a[0], k), tt_drop(a[1], k), tt_drop(a[2], k)};
    kcbp_v2 q[3] = {tt_drop(b[0], k), tt_drop(b[1], k), tt_drop(b[2], k)};
    for (int i = 0; i < 3; i++)
        if (tt_unmixed(kcbp_orient2d_v(q[0], q[1], p[i]), kcbp_orient2d_v(q[1], q[2], p[i]), kcbp_orient2d_v(q[2], q[0], p[i])) ||
            tt_unmixed(kcbp_orient2d_v(p[0], p[1], q[i]), kcbp_orient2d_v(p[1], p[2], q[i]), kcbp_orient2d_v(p[2], p[0], q[i])))
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
        sa[i] = kcbp_orient3d_v(b[0], b[1], b[2], a[i]);
    if (tt_one_side(sa))
        return false;
    for (int i = 0; i < 3 && ka >= 0; i++)
        sb[i] = kcbp_orient3d_v(a[0], a[1], a[2], b[i]);
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

/* The fast path's answer where the filters certify every sign it uses; the
 * exact path's otherwise. */
#if defined(__GNUC__)
static inline __attribute__((always_inline)) bool tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3]);
#else
static inline bool tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3]);
#endif

/* The fast path compiled twice, as the tree traversal is (aabb_tree.c):
 * for the x86-64 baseline and with AVX where the CPU has it
 * (__builtin_cpu_supports: libgcc's start-up state, none of ours). The
 * same operations in the same order, each rounded once (no FMA in the
 * target, -ffp-contract=off), so the same filter values and signs; the
 * three-operand forms spare register copies. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__)
__attribute__((target("avx"))) static bool tri_intersect_avx(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    return tri_intersect(a, b);
}
#define TRI_INTERSECT(a, b) (__builtin_cpu_supports("avx") ? tri_intersect_avx(a, b) : tri_intersect(a, b))
#else
#define TRI_INTERSECT(a, b) tri_intersect(a, b)
#endif

bool kcbp_tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3], double eps)
{
    (void)eps;
    bool r = TRI_INTERSECT(a, b);
    /* tritri.h's contract: the fast path decides exactly as the exact path,
     * which tests every case with exact signs. */
    KCBP_ASSERT(r == tt_exact(a, b));
    return r;
}

static inline bool tri_intersect(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    kcbp_fplane pb = kcbp_fplane_of(b[0], b[1], b[2]);
    int sa[3] = {kcbp_fplane_side(&pb, a[0]), kcbp_fplane_side(&pb, a[1]), kcbp_fplane_side(&pb, a[2])};
    if (sa[0] == 0 || sa[1] == 0 || sa[2] == 0)
        return tt_exact(a, b);
    if (sa[0] == sa[1] && sa[1] == sa[2])
        return false;
    kcbp_fplane pa = kcbp_fplane_of(a[0], a[1], a[2]);
    int sb[3] = {kcbp_fplane_side(&pa, b[0]), kcbp_fplane_side(&pa, b[1]), kcbp_fplane_side(&pa, b[2])};
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
    kcbp_fplane g1 = kcbp_fplane_of(p1, q1, p2), g2 = kcbp_fplane_of(p1, r1, r2);
    int o1 = kcbp_fplane_side(&g1, q2), o2 = kcbp_fplane_side(&g2, p2);
    if (o1 == 0 || o2 == 0)
        return tt_exact(a, b);
    return o1 < 0 && o2 < 0;
}

/* ------------------------------------- shared (geom/tritri_exact.h) --- */

bool kcbp_seg_tri_intersect(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3])
{
    const kcbp_vec3 s[3] = {p, q, q};
    if (!tt_finite(s, t))
        return true;
    int k = tt_area_axis(t);
    int sp = k >= 0 ? kcbp_orient3d_v(t[0], t[1], t[2], p) : 0, sq = k >= 0 ? kcbp_orient3d_v(t[0], t[1], t[2], q) : 0;
    return tt_seg_tri3(p, q, sp, sq, t, k);
}

bool kcbp_seg_tri_intersect_axis(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3], int k)
{
    kcbp_v2 t2[3] = {tt_drop(t[0], k), tt_drop(t[1], k), tt_drop(t[2], k)};
    return tt_seg_tri2(tt_drop(p, k), tt_drop(q, k), t2);
}
