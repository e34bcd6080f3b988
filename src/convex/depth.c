/* kcbp_shape_pair_depth (depth.h): closed forms for sphere, capsule and
 * box pairs, EPA for the rest.
 *
 * Everything below rests on one fact: for convex A and B whose solids
 * share a point, the penetration depth is min over unit n of h_D(n), the
 * support function of D = A - B (the translation of B by h_D(n) n moves the
 * origin onto a supporting plane of D); when D's core is a polytope, the
 * minimum is taken at one of its facet normals (the separating axis
 * theorem, Gottschalk, Lin and Manocha, "OBBTree", SIGGRAPH 1996; Ericson,
 * "Real-Time Collision Detection", 2005, sections 4.4 and 5.2). A shape
 * with a radius r (sphere, capsule) adds r to every support value.
 *
 * One function per unordered pair; the other order is the same call with
 * the roles swapped and the answer flipped (flip(), Box2D's pattern). */
#include "depth.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <kcbp/epa.h>
#include <kcbp/gjk.h>

#include "geom/closest.h"

static const kcbp_pose identity_pose = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};

/* v / |v|, scaled by its largest component first so that neither a tiny
 * nor a huge v loses its direction; false when v is 0 or not finite. */
static bool unit(kcbp_vec3 v, kcbp_vec3 *u)
{
    double m = kcbp_v3_max_abs(v);
    if (!(m > 0) || !isfinite(m))
        return false;
    v = kcbp_v3_scale(v, 1 / m);
    *u = kcbp_v3_scale(v, 1 / kcbp_v3_len(v));
    return true;
}

/* The documented normal for a direction-free contact perpendicular to
 * axis (depth.h): axis x e_k, e_k the coordinate axis least aligned with
 * it, normalised; +z when axis is 0. */
static kcbp_vec3 perpendicular(kcbp_vec3 axis)
{
    kcbp_vec3 u, p;
    if (!unit(axis, &u))
        return kcbp_v3(0, 0, 1);
    kcbp_vec3 au = kcbp_v3_abs(u);
    kcbp_vec3 e = au.x <= au.y && au.x <= au.z ? kcbp_v3(1, 0, 0) : au.y <= au.z ? kcbp_v3(0, 1, 0) : kcbp_v3(0, 0, 1);
    if (!unit(kcbp_v3_cross(u, e), &p))
        return kcbp_v3(0, 0, 1);
    return p;
}

static void set(kcbp_convex_depth *out, double depth, kcbp_vec3 n, kcbp_vec3 pa, kcbp_vec3 pb)
{
    out->overlap = true;
    out->depth = out->depth_lower = depth > 0 ? depth : 0;
    out->exact = true;
    out->normal = n;
    out->point_a = pa;
    out->point_b = pb;
    out->iterations = 0;
}

/* *out was computed with the roles swapped (B's frame, B as "a"): back to
 * A's frame and A's roles. */
static void flip(kcbp_convex_depth *out, const kcbp_pose *b_in_a)
{
    if (!out->overlap)
        return;
    kcbp_vec3 pa = kcbp_pose_apply(b_in_a, out->point_b), pb = kcbp_pose_apply(b_in_a, out->point_a);
    out->normal = kcbp_v3_neg(kcbp_mat3_mul_v3(&b_in_a->rot, out->normal));
    out->point_a = pa;
    out->point_b = pb;
}

/* ---- spheres and capsules: two cores -------------------------------------- */

/* Cores [a0, a1] (radius ra) and [b0, b1] (radius rb), one frame. D = core
 * difference P (a point, segment or parallelogram) inflated by R = ra +
 * rb. Cores apart by d > 0: depth R - d along their closest points. Cores
 * meeting: P is flat and holds the origin, so min h_P = 0 at P's normal
 * and the depth is R along the normal of both segments' directions
 * (parallel or points: perpendicular(), depth.h). */
static void core_core(kcbp_vec3 a0, kcbp_vec3 a1, double ra, kcbp_vec3 b0, kcbp_vec3 b1, double rb,
                      kcbp_convex_depth *out)
{
    if (!kcbp_within_seg_seg(a0, a1, b0, b1, ra, rb))
        return;
    kcbp_vec3 x, y, n;
    kcbp_cp_seg_seg(a0, a1, b0, b1, &x, &y);
    kcbp_vec3 u = kcbp_v3_sub(y, x);
    double d = kcbp_v3_len(u);
    /* a gap at the rounding of the closest points' solve (relative to the
     * cores' coordinates) has no meaningful direction: the cores meet */
    double cscale = fmax(fmax(kcbp_v3_max_abs(a0), kcbp_v3_max_abs(a1)), fmax(kcbp_v3_max_abs(b0), kcbp_v3_max_abs(b1)));
    if (!(d > 8 * DBL_EPSILON * cscale) || !unit(u, &n)) {
        d = 0;
        kcbp_vec3 ua = kcbp_v3_sub(a1, a0), ub = kcbp_v3_sub(b1, b0);
        kcbp_vec3 c = kcbp_v3_cross(ua, ub), ca, cb;
        /* the cross product is computed on the scaled directions so that
         * it cannot underflow for tiny capsules */
        if (unit(ua, &ca) && unit(ub, &cb) && unit(kcbp_v3_cross(ca, cb), &c)) {
            n = c;
            kcbp_vec3 mid = kcbp_v3_sub(kcbp_v3_add(b0, b1), kcbp_v3_add(a0, a1));
            if (kcbp_v3_dot(n, mid) < 0)
                n = kcbp_v3_neg(n);
        } else {
            n = perpendicular(kcbp_v3_max_abs(ua) >= kcbp_v3_max_abs(ub) ? ua : ub);
        }
    }
    set(out, ra + rb - d, n, kcbp_v3_add(x, kcbp_v3_scale(n, ra)), kcbp_v3_sub(y, kcbp_v3_scale(n, rb)));
}

/* ---- a sphere or capsule against a box ------------------------------------- */

/* The squared distance from [p0, p1] to the box [-h, h] and the closest
 * points (x on the box, y on the segment): along p(t) = p0 + t u the
 * squared distance is sum over axes of (|p_k(t)| - h_k)+^2, convex and
 * piecewise quadratic with breaks where p_k(t) = +-h_k; each piece's
 * minimum in closed form, the least kept. */
static double seg_box_closest(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 h, kcbp_vec3 *x, kcbp_vec3 *y)
{
    kcbp_vec3 u = kcbp_v3_sub(p1, p0);
    double P0[3] = {p0.x, p0.y, p0.z}, U[3] = {u.x, u.y, u.z}, H[3] = {h.x, h.y, h.z};
    double ts[8];
    int nt = 0;
    ts[nt++] = 0;
    ts[nt++] = 1;
    for (int k = 0; k < 3; k++)
        if (U[k] != 0)
            for (int s = -1; s <= 1; s += 2) {
                double t = (s * H[k] - P0[k]) / U[k];
                if (t > 0 && t < 1)
                    ts[nt++] = t;
            }
    for (int i = 1; i < nt; i++) /* insertion sort of at most 8 */
        for (int j = i; j > 0 && ts[j] < ts[j - 1]; j--) {
            double t = ts[j];
            ts[j] = ts[j - 1];
            ts[j - 1] = t;
        }
    double best = INFINITY;
    for (int i = 0; i + 1 < nt; i++) {
        double ta = ts[i], tb = ts[i + 1], tm = 0.5 * (ta + tb);
        double A = 0, B = 0;
        for (int k = 0; k < 3; k++) {
            double pk = P0[k] + tm * U[k];
            double bk = pk > H[k] ? H[k] : pk < -H[k] ? -H[k] : NAN;
            if (!isnan(bk)) {
                A += U[k] * U[k];
                B += U[k] * (P0[k] - bk);
            }
        }
        /* no active axis: the piece is inside the box, its midpoint exactly
         * so (its ends are on the box's faces, up to rounding either side) */
        double t = A > 0 ? -B / A : tm;
        t = t < ta ? ta : t > tb ? tb : t;
        for (int e = 0; e < 3; e++) { /* the piece's minimum and its ends */
            double tt = e == 0 ? t : e == 1 ? ta : tb;
            if (best == 0)
                break;
            kcbp_vec3 yy = tt == 1 ? p1 : kcbp_v3_add(p0, kcbp_v3_scale(u, tt));
            kcbp_vec3 xx = kcbp_v3(fmax(-h.x, fmin(h.x, yy.x)), fmax(-h.y, fmin(h.y, yy.y)), fmax(-h.z, fmin(h.z, yy.z)));
            double d2 = kcbp_v3_len2(kcbp_v3_sub(yy, xx));
            if (d2 < best) {
                best = d2;
                *x = xx;
                *y = yy;
            }
        }
    }
    return best;
}

/* [p0, p1] restricted to the part whose coordinates j and k lie within
 * [-hj, hj] x [-hk, hk] (Liang-Barsky); false when none. */
static bool clip_seg_rect(kcbp_vec3 *p0, kcbp_vec3 *p1, int j, int k, kcbp_vec3 h)
{
    double t0 = 0, t1 = 1;
    kcbp_vec3 u = kcbp_v3_sub(*p1, *p0);
    int ax[2] = {j, k};
    for (int m = 0; m < 2; m++) {
        double p = kcbp_v3_get(*p0, ax[m]), du = kcbp_v3_get(u, ax[m]), hh = kcbp_v3_get(h, ax[m]);
        for (int s = -1; s <= 1; s += 2) {
            /* s * (p + t du) <= hh */
            double num = hh - s * p, den = s * du;
            if (den == 0) {
                if (num < 0)
                    return false;
            } else if (den > 0) {
                t1 = fmin(t1, num / den);
            } else {
                t0 = fmax(t0, num / den);
            }
        }
    }
    if (t0 > t1)
        return false;
    kcbp_vec3 a = kcbp_v3_add(*p0, kcbp_v3_scale(u, t0)), b = t1 == 1 ? *p1 : kcbp_v3_add(*p0, kcbp_v3_scale(u, t1));
    *p0 = a;
    *p1 = b;
    return true;
}

static kcbp_vec3 with_coord(kcbp_vec3 v, int i, double c)
{
    if (i == 0)
        v.x = c;
    else if (i == 1)
        v.y = c;
    else
        v.z = c;
    return v;
}

static kcbp_vec3 clamp_box(kcbp_vec3 p, kcbp_vec3 h)
{
    return kcbp_v3(fmax(-h.x, fmin(h.x, p.x)), fmax(-h.y, fmin(h.y, p.y)), fmax(-h.z, fmin(h.z, p.z)));
}

/* Box [-h, h] as A against the core [p0, p1] of radius r as B (p1 == p0
 * for a sphere), in the box's frame. D = (box - core) inflated by r; the
 * polytope Q = box - core has the box's 6 face normals and, for a
 * segment of direction u, the normals e_i x u. Core apart from the box by
 * d > 0: depth r - d along the closest points. Core meeting the box: the
 * origin is in Q and depth = r + min over Q's facet normals of h_Q. */
static void box_core(kcbp_vec3 h, kcbp_vec3 p0, kcbp_vec3 p1, double r, kcbp_convex_depth *out)
{
    bool point = p0.x == p1.x && p0.y == p1.y && p0.z == p1.z;
    if (!(point ? kcbp_within_point_box(p0, h, r, 0) : kcbp_within_seg_box(p0, p1, h, r)))
        return;
    kcbp_vec3 x, y, n;
    double d2 = seg_box_closest(p0, p1, h, &x, &y);
    if (d2 > 0 && unit(kcbp_v3_sub(y, x), &n)) {
        double d = kcbp_v3_len(kcbp_v3_sub(y, x));
        set(out, r - d, n, x, kcbp_v3_sub(y, kcbp_v3_scale(n, r)));
        return;
    }
    double scale = fmax(kcbp_v3_max_abs(h), fmax(kcbp_v3_max_abs(p0), kcbp_v3_max_abs(p1)));
    /* the faces: h_Q(+e_i) = h_i - min p_i, h_Q(-e_i) = h_i + max p_i */
    double best = INFINITY;
    int bi = 0;
    double bs = 1;
    for (int i = 0; i < 3; i++) {
        double hi = kcbp_v3_get(h, i), a = kcbp_v3_get(p0, i), b = kcbp_v3_get(p1, i);
        double vp = hi - fmin(a, b), vm = hi + fmax(a, b);
        if (vp < best) {
            best = vp;
            bi = i;
            bs = 1;
        }
        if (vm < best) {
            best = vm;
            bi = i;
            bs = -1;
        }
    }
    /* the edges: n = e_i x u (n . p0 == n . p1), h_Q(n) = sum h_j |n_j| - n . p0 */
    kcbp_vec3 u, en = {0, 0, 0};
    int ei = -1;
    double ebest = INFINITY;
    if (!point && unit(kcbp_v3_sub(p1, p0), &u)) {
        kcbp_vec3 c = kcbp_v3_scale(kcbp_v3_add(p0, p1), 0.5);
        for (int i = 0; i < 3; i++) {
            kcbp_vec3 l = i == 0 ? kcbp_v3(0, -u.z, u.y) : i == 1 ? kcbp_v3(u.z, 0, -u.x) : kcbp_v3(-u.y, u.x, 0);
            if (!(kcbp_v3_len(l) > 1e-15) || !unit(l, &l))
                continue;
            double s = kcbp_v3_dot(l, c);
            if (s < 0) {
                l = kcbp_v3_neg(l);
                s = -s;
            }
            double v = kcbp_v3_dot(kcbp_v3_abs(l), h) - s;
            if (v < ebest) {
                ebest = v;
                ei = i;
                en = l;
            }
        }
    }
    if (ei >= 0 && ebest < best - 1e-12 * scale) {
        /* the box's edge along e_ei at the corner n points to, against the segment */
        kcbp_vec3 corner = kcbp_v3(en.x >= 0 ? h.x : -h.x, en.y >= 0 ? h.y : -h.y, en.z >= 0 ? h.z : -h.z);
        double hi = kcbp_v3_get(h, ei);
        kcbp_vec3 e0 = with_coord(corner, ei, -hi), e1 = with_coord(corner, ei, hi);
        kcbp_cp_seg_seg(e0, e1, p0, p1, &x, &y);
        set(out, ebest + r, en, x, kcbp_v3_sub(y, kcbp_v3_scale(en, r)));
        return;
    }
    /* face bs * e_bi: B's deepest core points (an end, or the whole segment
     * when it is parallel to the face) clipped to the face's rectangle */
    n = with_coord(kcbp_v3(0, 0, 0), bi, bs);
    double a = bs * kcbp_v3_get(p0, bi), b = bs * kcbp_v3_get(p1, bi);
    kcbp_vec3 q0 = p0, q1 = p1;
    if (fabs(a - b) > 1e-13 * scale)
        q0 = q1 = a < b ? p0 : p1;
    int j = (bi + 1) % 3, k = (bi + 2) % 3;
    kcbp_vec3 q;
    if (clip_seg_rect(&q0, &q1, j, k, h))
        q = kcbp_v3_scale(kcbp_v3_add(q0, q1), 0.5);
    else /* rounding only: the nearest facet holds the origin's projection */
        q = with_coord(clamp_box(q0, h), bi, kcbp_v3_get(q0, bi));
    kcbp_vec3 pb = kcbp_v3_sub(q, kcbp_v3_scale(n, r));
    kcbp_vec3 pa = with_coord(q, bi, bs * kcbp_v3_get(h, bi));
    set(out, best + r, n, pa, pb);
}

/* ---- a sphere against a cylinder ------------------------------------------ */

/* Cylinder (radius R, half height h, axis z) as A against the sphere of
 * centre c and radius r as B, in the cylinder's frame. Centre outside: r
 * less its distance d to the cylinder (radial and axial excess, clamped),
 * along the closest points. Centre inside: r plus its distance to the
 * boundary, min(R - rho, h - |z|), out through the side (radially; +x of
 * A's frame on the axis) or the nearer cap (+z at mid height), the side on
 * a tie only when strictly shallower. */
static void cylinder_sphere(double R, double h, kcbp_vec3 c, double r, kcbp_convex_depth *out)
{
    double rho = hypot(c.x, c.y), dr = rho - R, dz = fabs(c.z) - h;
    kcbp_vec3 n, x;
    if (dr > 0 || dz > 0) {
        double ex = fmax(dr, 0), ez = fmax(dz, 0), d = hypot(ex, ez);
        if (!(d <= r))
            return;
        double k = dr > 0 ? R / rho : 1;
        x = kcbp_v3(c.x * k, c.y * k, fmax(-h, fmin(h, c.z)));
        if (!unit(kcbp_v3_sub(c, x), &n))
            n = kcbp_v3(0, 0, 1);
        set(out, r - d, n, x, kcbp_v3_sub(c, kcbp_v3_scale(n, r)));
        return;
    }
    double depth;
    if (-dr < -dz) {
        if (!unit(kcbp_v3(c.x, c.y, 0), &n))
            n = kcbp_v3(1, 0, 0);
        x = kcbp_v3(R * n.x, R * n.y, c.z);
        depth = r - dr;
    } else {
        n = kcbp_v3(0, 0, c.z < 0 ? -1 : 1);
        x = kcbp_v3(c.x, c.y, n.z * h);
        depth = r - dz;
    }
    set(out, depth, n, x, kcbp_v3_sub(c, kcbp_v3_scale(n, r)));
}

/* ---- two boxes -------------------------------------------------------------- */

/* B's corner c + R (s . hb) for signs s (bit m set: +). */
static kcbp_vec3 box_corner(const kcbp_pose *p, kcbp_vec3 hb, double sx, double sy, double sz)
{
    return kcbp_pose_apply(p, kcbp_v3(sx * hb.x, sy * hb.y, sz * hb.z));
}

/* Witnesses for the face sigma * e_i of box A (half sides ha, its frame)
 * against box B (hb, placed by p) at depth: B's feature deepest along the
 * face's normal (a corner, an edge or a face: the axes of B nearly
 * perpendicular to the normal are free) clipped to A's face rectangle
 * (Sutherland-Hodgman on the 3D points, so that they stay on B's
 * feature); point_b the mean of the clipped polygon's corners. */
static void box_face_witness(kcbp_vec3 ha, kcbp_vec3 hb, const kcbp_pose *p, int i, double sigma, double depth,
                             kcbp_vec3 *pa, kcbp_vec3 *pb)
{
    /* -normal in B's frame: the direction of B's deepest feature */
    double m[3];
    for (int c = 0; c < 3; c++)
        m[c] = -sigma * p->rot.m[i][c];
    double s[3];
    int freeax[2], nfree = 0;
    for (int c = 0; c < 3; c++) {
        s[c] = m[c] >= 0 ? 1 : -1;
        if (fabs(m[c]) <= 1e-12 && nfree < 2)
            freeax[nfree++] = c;
    }
    kcbp_vec3 poly[16], tmp[16];
    int np = 0;
    if (nfree == 0) {
        poly[np++] = box_corner(p, hb, s[0], s[1], s[2]);
    } else if (nfree == 1) {
        for (int e = -1; e <= 1; e += 2) {
            double t[3] = {s[0], s[1], s[2]};
            t[freeax[0]] = e;
            poly[np++] = box_corner(p, hb, t[0], t[1], t[2]);
        }
    } else {
        static const double cyc[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
        for (int e = 0; e < 4; e++) {
            double t[3] = {s[0], s[1], s[2]};
            t[freeax[0]] = cyc[e][0];
            t[freeax[1]] = cyc[e][1];
            poly[np++] = box_corner(p, hb, t[0], t[1], t[2]);
        }
    }
    kcbp_vec3 mean = {0, 0, 0};
    for (int v = 0; v < np; v++)
        mean = kcbp_v3_add(mean, poly[v]);
    mean = kcbp_v3_scale(mean, 1.0 / np);
    /* clip against the 4 sides of A's face: coordinate ax, sign sg: sg * x_ax <= h_ax */
    int j = (i + 1) % 3, k = (i + 2) % 3;
    int axes[4] = {j, j, k, k};
    double sgs[4] = {1, -1, 1, -1};
    for (int side = 0; side < 4 && np > 0; side++) {
        int ax = axes[side];
        double sg = sgs[side], lim = kcbp_v3_get(ha, ax);
        int nn = 0;
        for (int v = 0; v < np; v++) {
            kcbp_vec3 P = poly[v], Q = poly[(v + 1) % np];
            double dp = sg * kcbp_v3_get(P, ax) - lim, dq = sg * kcbp_v3_get(Q, ax) - lim;
            if (dp <= 0)
                tmp[nn++] = P;
            if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
                double t = dp / (dp - dq);
                tmp[nn++] = kcbp_v3_add(P, kcbp_v3_scale(kcbp_v3_sub(Q, P), t));
            }
        }
        np = nn;
        memcpy(poly, tmp, sizeof(kcbp_vec3) * (size_t)np);
    }
    kcbp_vec3 q = mean;
    if (np > 0) {
        q = kcbp_v3(0, 0, 0);
        for (int v = 0; v < np; v++)
            q = kcbp_v3_add(q, poly[v]);
        q = kcbp_v3_scale(q, 1.0 / np);
    }
    *pb = q;
    kcbp_vec3 a = kcbp_v3_add(q, with_coord(kcbp_v3(0, 0, 0), i, sigma * depth));
    *pa = with_coord(a, i, sigma * kcbp_v3_get(ha, i));
}

/* The 15 axes: A's face normals e_i, B's b_j (the columns of R), and e_i
 * x b_j, whose components are b_j's (exact: no cancellation), so that
 * every axis's overlap rA + rB - |L . c| is computed to rounding relative
 * to |L|. Only cross products shorter than 1e-15 are skipped (parallel
 * edges, whose axis adds no facet; skipping one of angle theta changes the
 * minimum by at most theta times the pair's scale). A face wins over an
 * edge unless the edge is deeper by 1e-12 of the scale. */
static void box_box(kcbp_vec3 ha, kcbp_vec3 hb, const kcbp_pose *p, kcbp_convex_depth *out)
{
    const double(*R)[3] = p->rot.m;
    kcbp_vec3 c = p->trans;
    double HA[3] = {ha.x, ha.y, ha.z}, HB[3] = {hb.x, hb.y, hb.z}, C[3] = {c.x, c.y, c.z};
    double scale = fmax(kcbp_v3_max_abs(c), fmax(kcbp_v3_max_abs(ha), kcbp_v3_max_abs(hb)));
    double best = INFINITY, bsign = 1;
    int bkind = 0, bidx = 0; /* 0: A's face, 1: B's face */
    for (int i = 0; i < 3; i++) {
        double rb = HB[0] * fabs(R[i][0]) + HB[1] * fabs(R[i][1]) + HB[2] * fabs(R[i][2]);
        double v = HA[i] + rb - fabs(C[i]);
        if (v < best) {
            best = v;
            bkind = 0;
            bidx = i;
            bsign = C[i] >= 0 ? 1 : -1;
        }
    }
    for (int j = 0; j < 3; j++) {
        double ra = HA[0] * fabs(R[0][j]) + HA[1] * fabs(R[1][j]) + HA[2] * fabs(R[2][j]);
        double s = R[0][j] * C[0] + R[1][j] * C[1] + R[2][j] * C[2];
        double v = ra + HB[j] - fabs(s);
        if (v < best) {
            best = v;
            bkind = 1;
            bidx = j;
            bsign = s >= 0 ? 1 : -1;
        }
    }
    double ebest = INFINITY;
    int ei = 0, ej = 0;
    kcbp_vec3 en = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            kcbp_vec3 bj = kcbp_v3(R[0][j], R[1][j], R[2][j]);
            kcbp_vec3 l = i == 0 ? kcbp_v3(0, -bj.z, bj.y) : i == 1 ? kcbp_v3(bj.z, 0, -bj.x) : kcbp_v3(-bj.y, bj.x, 0);
            if (!(kcbp_v3_len(l) > 1e-15) || !unit(l, &l))
                continue;
            double s = kcbp_v3_dot(l, c);
            if (s < 0) {
                l = kcbp_v3_neg(l);
                s = -s;
            }
            double ra = kcbp_v3_dot(kcbp_v3_abs(l), ha), rb = 0;
            for (int m = 0; m < 3; m++)
                rb += HB[m] * fabs(l.x * R[0][m] + l.y * R[1][m] + l.z * R[2][m]);
            double v = ra + rb - s;
            if (v < ebest) {
                ebest = v;
                ei = i;
                ej = j;
                en = l;
            }
        }
    if (fmin(best, ebest) < 0)
        return; /* a separating axis */
    if (ebest < best - 1e-12 * scale) {
        /* A's edge along e_ei at the corner en points to, B's along b_ej at
         * the corner -en points to: their closest points */
        kcbp_vec3 corner = kcbp_v3(en.x >= 0 ? ha.x : -ha.x, en.y >= 0 ? ha.y : -ha.y, en.z >= 0 ? ha.z : -ha.z);
        double hi = HA[ei];
        kcbp_vec3 a0 = with_coord(corner, ei, -hi), a1 = with_coord(corner, ei, hi);
        kcbp_vec3 mb = kcbp_v3_neg(kcbp_mat3_tmul_v3(&p->rot, en));
        double sb[3] = {mb.x >= 0 ? 1 : -1, mb.y >= 0 ? 1 : -1, mb.z >= 0 ? 1 : -1};
        sb[ej] = -1;
        kcbp_vec3 b0 = box_corner(p, hb, sb[0], sb[1], sb[2]);
        sb[ej] = 1;
        kcbp_vec3 b1 = box_corner(p, hb, sb[0], sb[1], sb[2]);
        kcbp_vec3 x, y;
        kcbp_cp_seg_seg(a0, a1, b0, b1, &x, &y);
        set(out, ebest, en, x, y);
        return;
    }
    if (bkind == 0) {
        kcbp_vec3 pa, pb;
        box_face_witness(ha, hb, p, bidx, bsign, best, &pa, &pb);
        set(out, best, with_coord(kcbp_v3(0, 0, 0), bidx, bsign), pa, pb);
        return;
    }
    /* B's face: the same in B's frame, with A as the box clipped to it;
     * B's normal toward A is -bsign * e_bidx */
    kcbp_pose inv = kcbp_pose_inverse(p);
    kcbp_vec3 pa, pb;
    box_face_witness(hb, ha, &inv, bidx, -bsign, best, &pa, &pb);
    out->normal = with_coord(kcbp_v3(0, 0, 0), bidx, -bsign);
    set(out, best, out->normal, pa, pb);
    flip(out, p);
}

/* ---- the rest: EPA ------------------------------------------------------------- */

/* How far point p (A's frame) lies outside the shape placed by pose: 0
 * inside or on it. Closed forms but for a hull (GJK against the point). */
static double point_off(const kcbp_shape_geom *g, const kcbp_pose *pose, kcbp_vec3 p)
{
    kcbp_vec3 q = kcbp_mat3_tmul_v3(&pose->rot, kcbp_v3_sub(p, pose->trans));
    double r = g->def.radius;
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: return fmax(0, kcbp_v3_len(q) - r);
    case KCBP_SHAPE_CAPSULE: {
        double z = fmax(-g->half.z, fmin(g->half.z, q.z));
        return fmax(0, kcbp_v3_len(kcbp_v3_sub(q, kcbp_v3(0, 0, z))) - r);
    }
    case KCBP_SHAPE_BOX: {
        kcbp_vec3 a = kcbp_v3_abs(q);
        return fmax(0, fmax(a.x - g->half.x, fmax(a.y - g->half.y, a.z - g->half.z)));
    }
    case KCBP_SHAPE_CYLINDER: return fmax(0, fmax(hypot(q.x, q.y) - r, fabs(q.z) - g->half.z));
    default: {
        kcbp_convex pt = kcbp_convex_sphere(q, 0);
        kcbp_vec3 pa, pb;
        return kcbp_convex_distance_points(&g->convex, &pt, NULL, &pa, &pb, NULL);
    }
    }
}

/* The support point of the (inflated) shape placed by pose along unit n. */
static kcbp_vec3 support_point(const kcbp_convex *c, const kcbp_pose *pose, kcbp_vec3 n)
{
    uint32_t hint = 0;
    return kcbp_v3_add(kcbp_convex_support_posed(c, pose, n, &hint), kcbp_v3_scale(n, c->radius));
}

/* The points of the shape placed by pose that are deepest along unit n
 * (its support feature: a vertex, an edge or a face, within tol of the
 * support value; a cylinder's cap as 16 rim points, inside the disc),
 * into pts (at most 64); returns how many. */
#define FEATURE_MAX 64
static int feature(const kcbp_shape_geom *g, const kcbp_pose *pose, kcbp_vec3 n, double tol, kcbp_vec3 *pts)
{
    kcbp_vec3 m = kcbp_mat3_tmul_v3(&pose->rot, n);
    int k = 0;
    switch (g->def.kind) {
    case KCBP_SHAPE_BOX:
    case KCBP_SHAPE_HULL: {
        const kcbp_vec3 *v = g->def.kind == KCBP_SHAPE_BOX ? g->pts : kcbp_convex_hull_vertices(g->hull);
        uint32_t nv = g->def.kind == KCBP_SHAPE_BOX ? 8 : kcbp_convex_hull_vertex_count(g->hull);
        double h = -INFINITY;
        for (uint32_t i = 0; i < nv; i++)
            h = fmax(h, kcbp_v3_dot(m, v[i]));
        for (uint32_t i = 0; i < nv && k < FEATURE_MAX; i++)
            if (kcbp_v3_dot(m, v[i]) >= h - tol)
                pts[k++] = kcbp_pose_apply(pose, v[i]);
        return k;
    }
    case KCBP_SHAPE_CYLINDER: {
        double r = g->def.radius, hz = g->half.z, rho = hypot(m.x, m.y);
        double z = m.z >= 0 ? hz : -hz;
        if (rho <= 1e-9) {
            for (int i = 0; i < 16; i++) {
                double t = i * (M_PI / 8);
                pts[k++] = kcbp_pose_apply(pose, kcbp_v3(r * cos(t), r * sin(t), z));
            }
            return k;
        }
        kcbp_vec3 rim = kcbp_v3(r * m.x / rho, r * m.y / rho, z);
        pts[k++] = kcbp_pose_apply(pose, rim);
        if (fabs(m.z) <= 1e-9)
            pts[k++] = kcbp_pose_apply(pose, kcbp_v3(rim.x, rim.y, -z));
        return k;
    }
    default: {
        /* a sphere or a capsule: the deepest core points moved out by r */
        kcbp_vec3 off = kcbp_v3_scale(n, g->def.radius);
        if (g->def.kind == KCBP_SHAPE_CAPSULE && fabs(m.z) <= 1e-9) {
            pts[k++] = kcbp_v3_add(kcbp_pose_apply(pose, g->pts[0]), off);
            pts[k++] = kcbp_v3_add(kcbp_pose_apply(pose, g->pts[1]), off);
            return k;
        }
        kcbp_vec3 c = g->def.kind == KCBP_SHAPE_CAPSULE ? (m.z >= 0 ? g->pts[1] : g->pts[0]) : kcbp_v3(0, 0, 0);
        pts[k++] = kcbp_v3_add(kcbp_pose_apply(pose, c), off);
        return k;
    }
    }
}

/* EPA (epa.h) on the support functions. Its depth and normal are kept;
 * its witnesses (weights of the final face's vertices) are replaced when a
 * support point does better: B's support point along -n with A's point
 * depth * n from it, or A's along n with B's; the pair whose derived point
 * is nearest its shape (GJK's point distance; 0 on the support plane means
 * on the surface) is kept; when neither is (edge-edge and face-face
 * contacts), a point both support features hold, and EPA's own points
 * last. */
static void epa_pair(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                     kcbp_convex_depth *out)
{
    kcbp_gjk_result g;
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_distance(&a->convex, &b->convex, b_in_a, NULL, &cache, &g);
    if (g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_HIT_CAP)
        return;
    kcbp_epa_result e;
    kcbp_epa_penetration(&a->convex, &b->convex, b_in_a, &g, NULL, &cache, NULL, &e);
    if (e.status == KCBP_EPA_SEPARATED)
        return;
    set(out, e.depth, e.normal, e.point_a, e.point_b);
    out->depth_lower = fmin(e.depth_lower, out->depth);
    out->exact = e.status != KCBP_EPA_DEPTH_UNKNOWN;
    out->iterations = e.iterations;
    kcbp_vec3 n = out->normal;
    double depth = out->depth;
    kcbp_vec3 sb = support_point(&b->convex, b_in_a, kcbp_v3_neg(n));
    kcbp_vec3 sa = support_point(&a->convex, &identity_pose, n);
    kcbp_vec3 a1 = kcbp_v3_add(sb, kcbp_v3_scale(n, depth)), b2 = kcbp_v3_sub(sa, kcbp_v3_scale(n, depth));
    double off1 = point_off(a, &identity_pose, a1);
    double off2 = off1 > 0 ? point_off(b, b_in_a, b2) : INFINITY;
    if (off1 <= off2) {
        out->point_a = a1;
        out->point_b = sb;
    } else {
        out->point_a = sa;
        out->point_b = b2;
    }
    if (fmin(off1, off2) > 0) {
        /* an edge-edge or face-face contact: a point both features hold
         * once B is moved out by depth (GJK on the two features' points) */
        double scale = fmax(a->reach, kcbp_v3_max_abs(b_in_a->trans) + b->reach);
        kcbp_vec3 fa[FEATURE_MAX], fb[FEATURE_MAX], pa, pb;
        int na = feature(a, &identity_pose, n, 1e-9 * scale, fa);
        int nb = feature(b, b_in_a, kcbp_v3_neg(n), 1e-9 * scale, fb);
        for (int i = 0; i < nb; i++)
            fb[i] = kcbp_v3_add(fb[i], kcbp_v3_scale(n, depth));
        kcbp_convex ca = kcbp_convex_polytope(fa, (uint32_t)na, NULL, NULL, 0);
        kcbp_convex cb = kcbp_convex_polytope(fb, (uint32_t)nb, NULL, NULL, 0);
        double gap = kcbp_convex_distance_points(&ca, &cb, NULL, &pa, &pb, NULL);
        if (gap < fmin(off1, off2)) {
            out->point_a = pa;
            out->point_b = kcbp_v3_sub(pa, kcbp_v3_scale(n, depth));
            off1 = off2 = gap;
        }
    }
    if (fmin(off1, off2) > 0) {
        /* EPA's own points, when they are nearer */
        double off0 = point_off(a, &identity_pose, e.point_a) + point_off(b, b_in_a, e.point_b);
        if (off0 < fmin(off1, off2)) {
            out->point_a = e.point_a;
            out->point_b = kcbp_v3_sub(e.point_a, kcbp_v3_scale(n, depth)); /* the identity, exactly */
        }
    }
}

/* ---- the dispatcher ----------------------------------------------------------- */

static bool has_core(const kcbp_shape_geom *g)
{
    return g->def.kind == KCBP_SHAPE_SPHERE || g->def.kind == KCBP_SHAPE_CAPSULE;
}

void kcbp_shape_pair_depth(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                           kcbp_convex_depth *out)
{
    memset(out, 0, sizeof *out);
    const kcbp_pose *pose = b_in_a ? b_in_a : &identity_pose;
    kcbp_vec3 ca[2], cb[2];
    double ra, rb;
    if (has_core(a) && has_core(b)) {
        kcbp_shape_geom_core(a, &identity_pose, ca, &ra);
        kcbp_shape_geom_core(b, pose, cb, &rb);
        core_core(ca[0], ca[1], ra, cb[0], cb[1], rb, out);
    } else if (a->def.kind == KCBP_SHAPE_BOX && has_core(b)) {
        kcbp_shape_geom_core(b, pose, cb, &rb);
        box_core(a->half, cb[0], cb[1], rb, out);
    } else if (has_core(a) && b->def.kind == KCBP_SHAPE_BOX) {
        kcbp_pose inv = kcbp_pose_inverse(pose);
        kcbp_shape_geom_core(a, &inv, ca, &ra);
        box_core(b->half, ca[0], ca[1], ra, out);
        flip(out, pose);
    } else if (a->def.kind == KCBP_SHAPE_CYLINDER && b->def.kind == KCBP_SHAPE_SPHERE) {
        cylinder_sphere(a->def.radius, a->half.z, pose->trans, b->def.radius, out);
    } else if (a->def.kind == KCBP_SHAPE_SPHERE && b->def.kind == KCBP_SHAPE_CYLINDER) {
        kcbp_pose inv = kcbp_pose_inverse(pose);
        cylinder_sphere(b->def.radius, b->half.z, inv.trans, a->def.radius, out);
        flip(out, pose);
    } else if (a->def.kind == KCBP_SHAPE_BOX && b->def.kind == KCBP_SHAPE_BOX) {
        box_box(a->half, b->half, pose, out);
    } else {
        epa_pair(a, b, pose, out);
    }
    if (!out->overlap)
        return;
    /* never NaN (depth.h): a non-finite answer cannot come from finite
     * input, but if rounding ever made one, say so rather than return it */
    if (!isfinite(out->depth) || !kcbp_v3_is_finite(out->normal) || !kcbp_v3_is_finite(out->point_a) ||
        !kcbp_v3_is_finite(out->point_b)) {
        out->depth = out->depth_lower = 0;
        out->exact = false;
        out->normal = kcbp_v3(0, 0, 1);
        out->point_a = out->point_b = kcbp_v3(0, 0, 0);
    }
}
