/* The exact orientation predicates: the kernel under the triangle test
 * (src/geom/tritri.c), solids, self-intersection and contact geometry.
 * Internal: not installed, not exported from the shared library.
 *
 * orient3d(a, b, c, d) = det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a)
 * orient2d(p, q, r)    = (q - p) x (r - p)
 * are evaluated for the given double coordinates taken as the rationals
 * they stand for. A sign is first taken from the double evaluation when it
 * exceeds a proven error bound (Shewchuk's semi-static filter, below, inline
 * so that hot paths pay for nothing else); only when it does not is the
 * determinant evaluated exactly (src/geom/predicates.c): with Shewchuk's
 * expansion arithmetic, or with GMP integers when the coordinates' magnitudes
 * span so many powers of two that products could underflow. Coordinates
 * must be finite for the exact signs; the filters give 0 (no sign) for
 * non-finite input.
 *
 * References: J. R. Shewchuk, "Adaptive precision floating-point arithmetic
 * and fast robust geometric predicates", Discrete Comput. Geom. 18, 1997. */
#ifndef KCBP_PREDICATES_H
#define KCBP_PREDICATES_H

#include <math.h>
#include <stdbool.h>

#include <kcbp/vec3.h>

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
 * differences), so KCBP_PRED_TINY * (1 + |w|_1) is added, far above that. Overflow
 * or a non-finite input makes the bound infinite or NaN: no sign is given. */
#define KCBP_PRED_U 0x1p-53
#define KCBP_PRED_O3_ERR (8 * KCBP_PRED_U)
#define KCBP_PRED_O2_ERR (4 * KCBP_PRED_U)
#define KCBP_PRED_TINY 0x1p-1000

/* A triangle's plane for the filter: its first vertex, the rounded normal
 * n = (t1 - t0) x (t2 - t0), and e with e_k = KCBP_PRED_O3_ERR m_k + KCBP_PRED_TINY, m_k
 * the permanent's minor (the two products of n_k in absolute value, summed),
 * so that the bound for a point p, w = p - t0, is e . |w| + KCBP_PRED_TINY: both
 * terms above in one dot product. Computing e rounds a few times more,
 * which the slack between (7 + 56u) u and 8u covers. */
typedef struct {
    kcbp_vec3 o, n, e;
} kcbp_fplane;

static inline kcbp_fplane kcbp_fplane_of(kcbp_vec3 t0, kcbp_vec3 t1, kcbp_vec3 t2)
{
    kcbp_vec3 u = kcbp_v3_sub(t1, t0), v = kcbp_v3_sub(t2, t0);
    double p0 = u.y * v.z, p1 = u.z * v.y, p2 = u.z * v.x, p3 = u.x * v.z, p4 = u.x * v.y, p5 = u.y * v.x;
    kcbp_fplane pl = {t0,
                    {p0 - p1, p2 - p3, p4 - p5},
                    {KCBP_PRED_O3_ERR * (fabs(p0) + fabs(p1)) + KCBP_PRED_TINY, KCBP_PRED_O3_ERR * (fabs(p2) + fabs(p3)) + KCBP_PRED_TINY,
                     KCBP_PRED_O3_ERR * (fabs(p4) + fabs(p5)) + KCBP_PRED_TINY}};
    return pl;
}

/* The sign of orient3d(t0, t1, t2, p) when the filter certifies it, else 0
 * (zero, too close to call, or non-finite). */
static inline int kcbp_fplane_side(const kcbp_fplane *pl, kcbp_vec3 p)
{
    kcbp_vec3 w = kcbp_v3_sub(p, pl->o);
    double det = pl->n.x * w.x + pl->n.y * w.y + pl->n.z * w.z;
    double bound = pl->e.x * fabs(w.x) + pl->e.y * fabs(w.y) + pl->e.z * fabs(w.z) + KCBP_PRED_TINY;
    return (det > bound) - (det < -bound);
}

typedef struct {
    double x, y;
} kcbp_v2;

static inline int kcbp_orient2d_filter(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r)
{
    double l = (q.x - p.x) * (r.y - p.y), rr = (q.y - p.y) * (r.x - p.x);
    double det = l - rr, bound = KCBP_PRED_O2_ERR * (fabs(l) + fabs(rr)) + KCBP_PRED_TINY;
    return (det > bound) - (det < -bound);
}

/* The sign of the cross product u x v = u.x v.y - u.y v.x when the filter
 * certifies it, else 0, for u and v each a difference of two input doubles
 * rounded once (u = fl(q - p), v = fl(r - s)): the exact value is then a
 * determinant of differences of inputs, e.g. orient2d(p, q, r) = (q - p) x
 * (r - q), and Shewchuk's bound above holds for it as for
 * kcbp_orient2d_filter (his proof uses only that each factor is one
 * rounded difference). */
static inline int kcbp_cross2d_filter(double ux, double uy, double vx, double vy)
{
    double l = ux * vy, rr = uy * vx;
    double det = l - rr, bound = KCBP_PRED_O2_ERR * (fabs(l) + fabs(rr)) + KCBP_PRED_TINY;
    return (det > bound) - (det < -bound);
}

/* --------------------------------------------------------- exact signs --- */

/* The exact signs of the determinants (filters not tried first). */
int kcbp_orient3d_exact(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d);
int kcbp_orient2d_exact(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r);

/* The exact signs: the filter, then the exact evaluation when it cannot
 * tell. */
static inline int kcbp_orient3d_v(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    kcbp_fplane pl = kcbp_fplane_of(a, b, c);
    int s = kcbp_fplane_side(&pl, d);
    return s ? s : kcbp_orient3d_exact(a, b, c, d);
}

static inline int kcbp_orient2d_v(kcbp_v2 p, kcbp_v2 q, kcbp_v2 r)
{
    int s = kcbp_orient2d_filter(p, q, r);
    return s ? s : kcbp_orient2d_exact(p, q, r);
}

/* sign of det[b - a, c - a, d - a]. */
int kcbp_orient3d(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d);

/* The sign of kcbp_orient3d when the floating-point filter alone
 * certifies it, else 0 (zero, too close to call, or non-finite). */
int kcbp_orient3d_filtered(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d);

/* sign of (q - p) x (r - p) = (qx - px)(ry - py) - (qy - py)(rx - px). */
int kcbp_orient2d(double px, double py, double qx, double qy, double rx, double ry);

#endif
