/* GJK with the signed-volume sub-algorithm. See gjk.h for the sources.
 *
 * Notation: the configuration-space obstacle (CSO) is core(A) - core(B), B
 * posed in A's frame. GJK keeps a simplex of CSO vertices and v, the point of
 * the simplex nearest the origin; |v| decreases strictly at every accepted
 * step. When rounding breaks that, GJK keeps the previous simplex and, on a
 * sliver, goes on with the careful sub-algorithm (see gjk_run); it answers
 * only what its upper bound |v| and lower bound v.w / |v| prove
 * (classify()). */
#include <kcbp/gjk.h>

#include <float.h>
#include <string.h>

#include "base/util.h"

/* |v| at or below this fraction of the scale means "the origin lies on the
 * simplex": a few hundred ulps of the coordinates' magnitude. */
#define ON_SIMPLEX_REL 1e-13

kcbp_gjk_params kcbp_gjk_default_params(void)
{
    kcbp_gjk_params p = {KCBP_GJK_DEFAULT_MAX_ITERATIONS, KCBP_GJK_DEFAULT_REL_TOL};
    return p;
}

const char *kcbp_gjk_status_name(kcbp_gjk_status s)
{
    switch (s) {
    case KCBP_GJK_SEPARATED: return "separated";
    case KCBP_GJK_TOUCHING: return "touching";
    case KCBP_GJK_OVERLAPPING: return "overlapping";
    case KCBP_GJK_HIT_CAP: return "hit-cap";
    }
    return "unknown";
}

/* ---- Signed-volume distance sub-algorithm (Montanari et al. 2017) ------
 *
 * Given 1 to 4 points, find the point v of their convex hull nearest the
 * origin and the smallest subset whose hull contains it, with barycentric
 * weights. The paper's S3D/S2D/S1D: barycentric coordinates as ratios of
 * signed volumes (areas) that sum exactly to the total, so the "inside" test
 * is a sign comparison; in 2D the triangle is projected on the coordinate
 * plane where its area is largest, which keeps the ratios well conditioned.
 * Unlike the paper we do not rely on GJK's "newest vertex is in the answer"
 * property: every face whose sign disagrees is tried and the nearest kept,
 * which is correct for any simplex, including flat ones (a flat tetrahedron
 * is covered by its faces, a collinear triangle by its edges). */

typedef struct {
    int n;
    int idx[4];
    double lam[4];
    kcbp_vec3 v;
    double vv;
} sv_result;

/* Both positive or both negative (zero has no sign). Bitwise operators, not
 * && and ||: these signs are data-dependent and their branches mispredict. */
static inline int same_sign(double a, double b) { return ((a > 0) & (b > 0)) | ((a < 0) & (b < 0)); }

static void sv_point(const kcbp_vec3 *w, int i, sv_result *r)
{
    r->n = 1;
    r->idx[0] = i;
    r->lam[0] = 1;
    r->v = w[i];
    r->vv = kcbp_v3_len2(w[i]);
}

static void sv_set_v(const kcbp_vec3 *w, sv_result *r)
{
    kcbp_vec3 v = {0, 0, 0};
    for (int k = 0; k < r->n; k++)
        v = kcbp_v3_add(v, kcbp_v3_scale(w[r->idx[k]], r->lam[k]));
    r->v = v;
    r->vv = kcbp_v3_len2(v);
}

static void sv_keep_nearer(sv_result *best, const sv_result *cand)
{
    if (best->n == 0 || cand->vv < best->vv)
        *best = *cand;
}

static void s1d(const kcbp_vec3 *w, int i0, int i1, sv_result *r)
{
    kcbp_vec3 t = kcbp_v3_sub(w[i1], w[i0]);
    double tt = kcbp_v3_len2(t);
    if (!(tt > 0)) {
        sv_point(w, i0, r);
        return;
    }
    /* origin's projection on the line: w0 + u t */
    double u = -kcbp_v3_dot(w[i0], t) / tt;
    if (!(u > 0)) {
        sv_point(w, i0, r);
    } else if (!(u < 1)) {
        sv_point(w, i1, r);
    } else {
        r->n = 2;
        r->idx[0] = i0;
        r->idx[1] = i1;
        r->lam[0] = 1 - u;
        r->lam[1] = u;
        sv_set_v(w, r);
    }
}

/* The coordinates of v on the plane of axes (I + 1, I + 2) mod 3. */
static inline void proj2(kcbp_vec3 v, int I, double *j, double *k)
{
    switch (I) {
    case 0: *j = v.y; *k = v.z; break;
    case 1: *j = v.z; *k = v.x; break;
    default: *j = v.x; *k = v.y; break;
    }
}

/* Twice the signed area of the projected triangle (p, q, s). */
static inline double area2(double pj, double pk, double qj, double qk, double sj, double sk)
{
    qj -= pj, qk -= pk, sj -= pj, sk -= pk;
    return qj * sk - qk * sj;
}

static void s2d(const kcbp_vec3 *w, int i0, int i1, int i2, sv_result *r)
{
    const int id[3] = {i0, i1, i2};
    kcbp_vec3 a = w[i0], b = w[i1], c = w[i2];
    kcbp_vec3 ab = kcbp_v3_sub(b, a), ac = kcbp_v3_sub(c, a);
    kcbp_vec3 n = kcbp_v3_cross(ab, ac);
    double nn = kcbp_v3_len2(n);
    double C[3];
    double mu = 0;
    /* A triangle whose normal is rounding noise is treated as collinear:
     * every edge is tried. */
    if (nn > 64 * DBL_EPSILON * DBL_EPSILON * kcbp_v3_len2(ab) * kcbp_v3_len2(ac)) {
        kcbp_vec3 p = kcbp_v3_scale(n, kcbp_v3_dot(a, n) / nn);
        kcbp_vec3 an = kcbp_v3_abs(n);
        int I = an.x >= an.y && an.x >= an.z ? 0 : an.y >= an.z ? 1 : 2;
        double pj, pk, aj, ak, bj, bk, cj, ck;
        proj2(p, I, &pj, &pk);
        proj2(a, I, &aj, &ak);
        proj2(b, I, &bj, &bk);
        proj2(c, I, &cj, &ck);
        C[0] = area2(pj, pk, bj, bk, cj, ck);
        C[1] = area2(aj, ak, pj, pk, cj, ck);
        C[2] = area2(aj, ak, bj, bk, pj, pk);
        mu = C[0] + C[1] + C[2];
        if (same_sign(mu, C[0]) & same_sign(mu, C[1]) & same_sign(mu, C[2])) {
            r->n = 3;
            for (int k = 0; k < 3; k++) {
                r->idx[k] = id[k];
                r->lam[k] = C[k] / mu;
            }
            sv_set_v(w, r);
            return;
        }
    } else {
        C[0] = C[1] = C[2] = 0; /* never the same sign as mu = 0 */
    }
    r->n = 0;
    for (int j = 0; j < 3; j++) {
        if (same_sign(mu, C[j]))
            continue;
        sv_result e;
        s1d(w, id[(j + 1) % 3], id[(j + 2) % 3], &e);
        sv_keep_nearer(r, &e);
    }
}

/* Signed volume of (p0, p1, p2, p3): (p1-p0) . ((p2-p0) x (p3-p0)). */
static double vol(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 p2, kcbp_vec3 p3)
{
    return kcbp_v3_dot(kcbp_v3_sub(p1, p0), kcbp_v3_cross(kcbp_v3_sub(p2, p0), kcbp_v3_sub(p3, p0)));
}

/* Returns nonzero, and leaves r alone, when it would claim the origin
 * inside while one of the signed volumes is within its rounding error: the
 * claim decides "overlapping" on its own, so c3d checks it. */
static int s3d(const kcbp_vec3 *w, sv_result *r)
{
    const kcbp_vec3 o = {0, 0, 0};
    double C[4];
    C[0] = vol(o, w[1], w[2], w[3]);
    C[1] = vol(w[0], o, w[2], w[3]);
    C[2] = vol(w[0], w[1], o, w[3]);
    C[3] = vol(w[0], w[1], w[2], o);
    double det = C[0] + C[1] + C[2] + C[3];
    if (same_sign(det, C[0]) & same_sign(det, C[1]) & same_sign(det, C[2]) & same_sign(det, C[3])) {
        /* Each C is a triple product of differences of coordinates at most
         * m in magnitude: its rounding error is below 256 eps m^3 (a
         * generous bound). A flat tetrahedron (a thin prism's, a needle's)
         * has volumes of that size whatever side of its faces the origin
         * is on. */
        double m = 0;
        for (int k = 0; k < 4; k++) { /* plain comparisons: fmax is a call */
            double x = fabs(w[k].x), y = fabs(w[k].y), z = fabs(w[k].z);
            m = x > m ? x : m;
            m = y > m ? y : m;
            m = z > m ? z : m;
        }
        double bound = 256 * DBL_EPSILON * m * m * m;
        if (fabs(C[0]) <= bound || fabs(C[1]) <= bound || fabs(C[2]) <= bound || fabs(C[3]) <= bound)
            return 1;
        r->n = 4;
        for (int k = 0; k < 4; k++) {
            r->idx[k] = k;
            r->lam[k] = C[k] / det;
        }
        sv_set_v(w, r);
        return 0;
    }
    /* The origin is beyond (or on) the face opposite each vertex j whose
     * sign disagrees; the nearest point lies on one of those faces. */
    static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    r->n = 0;
    for (int j = 0; j < 4; j++) {
        if (same_sign(det, C[j]))
            continue;
        sv_result f;
        s2d(w, face[j][0], face[j][1], face[j][2], &f);
        sv_keep_nearer(r, &f);
    }
    return 0;
}

/* ---- The careful sub-algorithm, for slivers -----------------------------
 *
 * The same answer as s1d/s2d/s3d, computed so that v has a small error
 * relative to |v| itself, not to the coordinates. The plain one is exact
 * enough when the simplex is about as large as its distance to the origin,
 * but a needle or a thin prism gives simplices whose vertices are far out
 * (|w| up to the length L of the shape) around an origin that is within
 * the thickness t of them: v = sum lam_i w_i then carries an error of about
 * eps L, which turns its direction by eps L / |v|, and the support plane
 * along it (GJK's lower bound, and its next search direction) by eps L^2 /
 * |v| over the length of the shape, far above the touching tolerance when
 * |v| is below about 1e-6 L. Here v comes from cross products and
 * determinants of the vertices themselves, computed with error-free
 * products and sums (fma), so that only |v|'s own rounding is left:
 *   segment:  v = (t x (w0 x w1)) / |t|^2, t = w1 - w0;
 *   triangle: v = N det(w0, w1, w2) / |N|^2, N = w0 x w1 + w1 x w2 + w2 x w0,
 *             barycentric weights N . (w_j x w_k) / |N|^2;
 *   tetrahedron: the signed volumes as +-det of three vertices, exact in
 *             sign unless below eps^2 of the coordinates cubed.
 * Every face, edge and vertex whose weights allow it is a candidate and
 * the nearest is kept, so a weight that rounding puts on the wrong side of
 * zero costs only the distance from the origin's projection to that edge.
 * Several times the work of the plain one (fma is a library call unless
 * the target has it): GJK uses it only after the plain one stalled or could
 * not tell an "inside" from rounding (s3d), and for the rest of that run
 * (see gjk_run). */

/* a * b == p + *e exactly (the fma rounds once). */
static inline double two_prod(double a, double b, double *e)
{
    double p = a * b;
    *e = fma(a, b, -p);
    return p;
}

/* a + b == s + *e exactly (Knuth's TwoSum). */
static inline double two_sum(double a, double b, double *e)
{
    double s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* sum x[i] y[i] as accurately as if computed with twice the precision and
 * rounded once: Ogita, Rump and Oishi's Dot2 ("Accurate sum and dot
 * product", SIAM J. Sci. Comput. 26(6), 2005). */
static double dot2(const double *x, const double *y, int n)
{
    double s, p = two_prod(x[0], y[0], &s);
    for (int i = 1; i < n; i++) {
        double r, q, h = two_prod(x[i], y[i], &r);
        p = two_sum(p, h, &q);
        s += q + r;
    }
    return p + s;
}

/* a x b, each component as accurate as dot2 makes it. */
static kcbp_vec3 cross2(kcbp_vec3 a, kcbp_vec3 b)
{
    const double x0[2] = {a.y, -a.z}, y0[2] = {b.z, b.y};
    const double x1[2] = {a.z, -a.x}, y1[2] = {b.x, b.z};
    const double x2[2] = {a.x, -a.y}, y2[2] = {b.y, b.x};
    return kcbp_v3(dot2(x0, y0, 2), dot2(x1, y1, 2), dot2(x2, y2, 2));
}

/* det(a, b, c) = a . (b x c): each of its six products of three is split
 * exactly into a . (p + e) (p + e = b_j c_k), a p exactly again, a e
 * rounded (an error of eps^2 of the product), and the pieces summed as in
 * dot2: the error is about eps |det| + 20 eps^2 |a| |b| |c|. */
static double det3(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c)
{
    const double A[3] = {a.x, a.y, a.z}, B[3] = {b.x, b.y, b.z}, C[3] = {c.x, c.y, c.z};
    static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
    double sum = 0, err = 0;
    for (int k = 0; k < 6; k++) {
        double ai = k < 3 ? A[perm[k][0]] : -A[perm[k][0]];
        double e1, p1 = two_prod(B[perm[k][1]], C[perm[k][2]], &e1);
        double e2, p2 = two_prod(ai, p1, &e2);
        double q;
        sum = two_sum(sum, p2, &q);
        err += q + e2 + ai * e1;
    }
    return sum + err;
}

/* Keeps the nearer of two candidates, and in a tie within rounding the one
 * that holds vertex `newest` (the point GJK just added; -1 for none): in
 * exact arithmetic the answer holds it, the newest point being beyond v's
 * plane, and here two candidates can differ by less than the rounding of
 * |v|^2 (the origin at a vertex of a thin prism,
 * approached along its thickness: measured 1e-33 of |v|^2), and keeping
 * the old one would undo the step, stalling GJK one step short of the
 * vertex. */
static void c_keep_nearer(sv_result *best, const sv_result *cand, int newest)
{
    if (best->n == 0) {
        *best = *cand;
        return;
    }
    int cn = 0, bn = 0;
    for (int k = 0; k < cand->n; k++)
        cn |= cand->idx[k] == newest;
    for (int k = 0; k < best->n; k++)
        bn |= best->idx[k] == newest;
    double slack = 8 * DBL_EPSILON * (cand->vv > best->vv ? cand->vv : best->vv);
    if (cn != bn ? (cn ? cand->vv <= best->vv + slack : cand->vv < best->vv - slack) : cand->vv < best->vv)
        *best = *cand;
}

static void c1d(const kcbp_vec3 *w, int i0, int i1, sv_result *r)
{
    kcbp_vec3 a = w[i0], b = w[i1];
    /* |b - a|^2 times the weights of a and b: b . (b - a) and a . (a - b) */
    const double xb[6] = {b.x, b.y, b.z, -a.x, -a.y, -a.z}, yb[6] = {b.x, b.y, b.z, b.x, b.y, b.z};
    const double xa[6] = {a.x, a.y, a.z, -b.x, -b.y, -b.z}, ya[6] = {a.x, a.y, a.z, a.x, a.y, a.z};
    double n0 = dot2(xb, yb, 6), n1 = dot2(xa, ya, 6);
    if (!(n1 > 0)) { /* the origin projects at or before a */
        sv_point(w, i0, r);
        return;
    }
    if (!(n0 > 0)) {
        sv_point(w, i1, r);
        return;
    }
    double tt = n0 + n1;
    r->n = 2;
    r->idx[0] = i0;
    r->idx[1] = i1;
    r->lam[0] = n0 / tt;
    r->lam[1] = n1 / tt;
    r->v = kcbp_v3_scale(kcbp_v3_cross(kcbp_v3_sub(b, a), cross2(a, b)), 1.0 / tt);
    r->vv = kcbp_v3_len2(r->v);
}

static void c2d(const kcbp_vec3 *w, int i0, int i1, int i2, int newest, sv_result *r)
{
    const int id[3] = {i0, i1, i2};
    kcbp_vec3 a = w[i0], b = w[i1], c = w[i2];
    /* N = a x b + b x c + c x a, each component one dot2 of six products */
    const double nx[6] = {a.y, -a.z, b.y, -b.z, c.y, -c.z}, ny[6] = {a.z, -a.x, b.z, -b.x, c.z, -c.x},
                 nz[6] = {a.x, -a.y, b.x, -b.y, c.x, -c.y};
    const double mx[6] = {b.z, b.y, c.z, c.y, a.z, a.y}, my[6] = {b.x, b.z, c.x, c.z, a.x, a.z},
                 mz[6] = {b.y, b.x, c.y, c.x, a.y, a.x};
    kcbp_vec3 N = kcbp_v3(dot2(nx, mx, 6), dot2(ny, my, 6), dot2(nz, mz, 6));
    double NN = kcbp_v3_len2(N);
    if (NN > 0) {
        double L[3];
        for (int k = 0; k < 3; k++)
            L[k] = det3(N, w[id[(k + 1) % 3]], w[id[(k + 2) % 3]]);
        if (L[0] > 0 && L[1] > 0 && L[2] > 0) {
            double sum = L[0] + L[1] + L[2];
            r->n = 3;
            for (int k = 0; k < 3; k++) {
                r->idx[k] = id[k];
                r->lam[k] = L[k] / sum;
            }
            r->v = kcbp_v3_scale(N, det3(a, b, c) / NN);
            r->vv = kcbp_v3_len2(r->v);
            return;
        }
    }
    r->n = 0;
    for (int j = 0; j < 3; j++) {
        sv_result e;
        c1d(w, id[(j + 1) % 3], id[(j + 2) % 3], &e);
        c_keep_nearer(r, &e, newest);
    }
}

static void c3d(const kcbp_vec3 *w, int newest, sv_result *r)
{
    /* s3d's signed volumes: vol(o, w1, w2, w3) = det(w1, w2, w3), and so
     * on, the origin taking each vertex's place in turn */
    double C[4] = {det3(w[1], w[2], w[3]), -det3(w[0], w[2], w[3]), det3(w[0], w[1], w[3]),
                   -det3(w[0], w[1], w[2])};
    if ((C[0] > 0 && C[1] > 0 && C[2] > 0 && C[3] > 0) || (C[0] < 0 && C[1] < 0 && C[2] < 0 && C[3] < 0)) {
        double det = C[0] + C[1] + C[2] + C[3];
        r->n = 4;
        for (int k = 0; k < 4; k++) {
            r->idx[k] = k;
            r->lam[k] = C[k] / det;
        }
        r->v = kcbp_v3(0, 0, 0);
        r->vv = 0;
        return;
    }
    static const int face[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    r->n = 0;
    for (int j = 0; j < 4; j++) {
        sv_result f;
        c2d(w, face[j][0], face[j][1], face[j][2], newest, &f);
        c_keep_nearer(r, &f, newest);
    }
}

/* The careful sub-algorithm on w[0..n) (newest: see c_keep_nearer); out of
 * line, so that the plain path stays inlined in GJK's loop. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void careful_solve(const kcbp_vec3 *w, int n, int newest, sv_result *r)
{
    switch (n) {
    case 1: sv_point(w, 0, r); break;
    case 2: c1d(w, 0, 1, r); break;
    case 3: c2d(w, 0, 1, 2, newest, r); break;
    default: c3d(w, newest, r); break;
    }
}

/* The simplex: four vertex slots, of which slot[0..n) are in use (the bits
 * of `used`). A new support point goes to a free slot, so that neither
 * accepting nor rolling back a step copies vertices. */
typedef struct {
    kcbp_simplex_vertex v[4];
    int n;
    unsigned used;
    int slot[4];
    double lam[4];
    int careful; /* use the careful sub-algorithm (see gjk_run) */
} simplex;

/* The lowest free slot (n <= 3 when adding, so there is one). */
static inline int free_slot(const simplex *s)
{
    unsigned f = ~s->used;
    return (f & 1u) ? 0 : (f & 2u) ? 1 : (f & 4u) ? 2 : 3;
}

static inline uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Nonzero when the vertex in slot `add` (both of its points, bit for bit)
 * is already in the simplex; bitwise, so that only the loop branches. */
static inline int in_simplex(const simplex *s, int add)
{
    const kcbp_simplex_vertex *n = &s->v[add];
    int hit = 0;
    for (int k = 0; k < s->n; k++) {
        const kcbp_simplex_vertex *u = &s->v[s->slot[k]];
        uint64_t diff = (bits(u->a.x) ^ bits(n->a.x)) | (bits(u->a.y) ^ bits(n->a.y)) | (bits(u->a.z) ^ bits(n->a.z)) |
                        (bits(u->b.x) ^ bits(n->b.x)) | (bits(u->b.y) ^ bits(n->b.y)) | (bits(u->b.z) ^ bits(n->b.z));
        hit |= diff == 0;
    }
    return hit;
}

/* Makes r, a sub-simplex of the points whose slots are slots[], the
 * simplex; returns |v|^2 and v. */
static inline double simplex_take(simplex *s, const int *slots, const sv_result *r, kcbp_vec3 *v)
{
    /* The sub-algorithm's answer (gjk.h): 1 to 4 points, each with a
     * barycentric weight in [0, 1] (up to rounding) summing to 1, and v
     * their combination, at |v|^2 = vv. */
#ifdef KCBP_ENABLE_ASSERTS
    KCBP_ASSERT(r->n >= 1 && r->n <= 4);
    if (isfinite(r->vv)) {
        double sum = 0;
        for (int k = 0; k < r->n; k++) {
            KCBP_ASSERT(r->lam[k] >= -1e-9 && r->lam[k] <= 1 + 1e-9);
            sum += r->lam[k];
        }
        KCBP_ASSERT(fabs(sum - 1) <= 1e-9 && r->vv >= 0);
    }
#endif
    s->n = r->n;
    s->used = 0;
    memcpy(s->lam, r->lam, sizeof s->lam);
    for (int k = 0; k < r->n; k++) {
        s->slot[k] = slots[r->idx[k]];
        s->used |= 1u << s->slot[k];
    }
    *v = r->v;
    return r->vv;
}

/* The point of the hull of w[0 .. n) nearest the origin: the plain
 * sub-algorithm, or the careful one when *careful is set or the plain s3d
 * asks for it (which sets *careful). newest: the point just added, or -1. */
static inline void sv_solve(const kcbp_vec3 *w, int n, int newest, int *careful, sv_result *r)
{
    if (*careful) {
        careful_solve(w, n, newest, r);
        return;
    }
    switch (n) {
    case 1: sv_point(w, 0, r); break;
    case 2: s1d(w, 0, 1, r); break;
    case 3: s2d(w, 0, 1, 2, r); break;
    default:
        if (s3d(w, r)) {
            *careful = 1;
            careful_solve(w, n, newest, r);
        }
        break;
    }
}

/* Adds slot `add` to the set and reduces the set to the sub-simplex nearest
 * the origin; returns |v|^2 and v. With s->careful set, by the caller or
 * here when the plain s3d asks for it, the careful sub-algorithm does it. */
static inline double simplex_solve(simplex *s, int add, kcbp_vec3 *v)
{
    kcbp_vec3 w[4];
    int slots[4], n = s->n;
    /* all four (fixed-size copies, not a library memcpy of n) */
    memcpy(slots, s->slot, sizeof slots);
    for (int k = 0; k < n; k++)
        w[k] = s->v[slots[k]].w;
    slots[n] = add;
    w[n] = s->v[add].w;
    n++;
    sv_result r;
    sv_solve(w, n, n - 1, &s->careful, &r);
    return simplex_take(s, slots, &r, v);
}

/* Switches the simplex to the careful sub-algorithm and solves it again
 * with it (no point added); returns |v|^2 and v. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static double simplex_solve_careful(simplex *s, kcbp_vec3 *v)
{
    kcbp_vec3 w[4];
    int slots[4];
    memcpy(slots, s->slot, sizeof slots);
    for (int k = 0; k < s->n; k++)
        w[k] = s->v[slots[k]].w;
    sv_result r;
    s->careful = 1;
    careful_solve(w, s->n, -1, &r);
    return simplex_take(s, slots, &r, v);
}

/* Plain maximum: fmax is a library call on x86-64 (for its NaN rules), and
 * the values here are finite. */
static inline double maxd(double a, double b) { return a > b ? a : b; }

static inline double max_abs_coord(kcbp_vec3 a, kcbp_vec3 b)
{
    return maxd(maxd(maxd(fabs(a.x), fabs(a.y)), fabs(a.z)), maxd(maxd(fabs(b.x), fabs(b.y)), fabs(b.z)));
}

static void witnesses(const simplex *s, kcbp_vec3 *pa, kcbp_vec3 *pb)
{
    kcbp_vec3 a = {0, 0, 0}, b = {0, 0, 0};
    for (int k = 0; k < s->n; k++) {
        a = kcbp_v3_add(a, kcbp_v3_scale(s->v[s->slot[k]].a, s->lam[k]));
        b = kcbp_v3_add(b, kcbp_v3_scale(s->v[s->slot[k]].b, s->lam[k]));
    }
    *pa = a;
    *pb = b;
}

static int finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Whether GJK's bounds already decide its answer, as classify() reports
 * it, for v (|v|^2 = vv), the support value vw = v . w along it and the best
 * lower bound on the core distance: the radii overlap (|v| below rsum by
 * more than the tolerance); touching, the support plane along v proving
 * the origin no deeper than the tolerance either (v.w / |v| is a signed
 * bound: an origin at depth D has the difference reach -D along every
 * direction); or a gap above the tolerance, known to rel_tol or to a few
 * hundred ulps of the scale. */
static int settled(double vv, double vw, double lower, double rsum, double scale, double rel_tol)
{
    double ub = sqrt(vv), tol = KCBP_GJK_TOUCH_REL * (scale + rsum);
    return ub - rsum < -tol || (ub - rsum <= tol && vw / ub - rsum >= -tol) ||
           (lower - rsum > tol && ub - lower <= rel_tol * ub + ON_SIMPLEX_REL * scale);
}

/* The state GJK ends in; kcbp_gjk_distance turns it into a result, the
 * boolean queries read only what they need. */
typedef struct {
    simplex s;
    kcbp_vec3 v;  /* nearest point of the simplex to the origin */
    double vv;    /* |v|^2 */
    double scale; /* largest coordinate magnitude of the support points */
    double lower; /* best lower bound on the core distance */
    int overlap, capped, iter;
    int converged;       /* stopped because the bounds met (van den Bergen) */
    int separated_early; /* stopped by the exit_gap test */
} gjk_state;

/* exit_gap < 0: run to convergence. Otherwise also stop as soon as a
 * support plane proves the inflated shapes apart by more than
 * max(exit_gap, the touching tolerance): the lower bound dot(v, w) / |v| is
 * the gap along v, a valid lower bound on the distance (for
 * kcbp_gjk_intersect and kcbp_gjk_separated). */
/* Warm start: makes the simplex of the polytope vertices warm names (in
 * range, without repeats; at least one) under the current pose, solved
 * for its point nearest the origin. Returns 0, leaving s alone, when warm
 * names none. Any CSO points are a valid start: GJK's bounds, not its
 * start, decide what it reports (van den Bergen 1999, section 4: with
 * coherent poses the previous simplex is close to the new answer). */
static int warm_simplex(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *pose,
                        const kcbp_gjk_simplex_cache *warm, simplex *s, kcbp_vec3 *v, double *vv, double *scale)
{
    if (!warm || warm->count < 1 || warm->count > 4 || a->kind != KCBP_CONVEX_POLYTOPE ||
        b->kind != KCBP_CONVEX_POLYTOPE)
        return 0;
    int n = 0;
    for (int k = 0; k < warm->count; k++) {
        uint32_t ia = warm->ia[k], ib = warm->ib[k];
        int repeat = ia >= a->npoints || ib >= b->npoints;
        for (int j = 0; j < n && !repeat; j++)
            repeat = s->v[j].ia == ia && s->v[j].ib == ib;
        if (repeat)
            continue;
        kcbp_simplex_vertex *x = &s->v[n++];
        x->a = a->points[ia];
        x->b = kcbp_pose_apply(pose, b->points[ib]);
        x->w = kcbp_v3_sub(x->a, x->b);
        x->ia = ia;
        x->ib = ib;
    }
    if (n == 0)
        return 0;
    kcbp_vec3 w[4];
    int slots[4] = {0, 1, 2, 3};
    *scale = 0;
    for (int k = 0; k < n; k++) {
        w[k] = s->v[k].w;
        *scale = maxd(*scale, max_abs_coord(s->v[k].a, s->v[k].b));
    }
    sv_result r;
    s->careful = 0;
    sv_solve(w, n, -1, &s->careful, &r);
    *vv = simplex_take(s, slots, &r, v);
    return 1;
}

static void gjk_run(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                    const kcbp_gjk_params *params, kcbp_support_cache *cache, kcbp_gjk_simplex_cache *warm,
                    double exit_gap, gjk_state *st)
{
    kcbp_gjk_params prm = params ? *params : kcbp_gjk_default_params();
    if (prm.max_iterations < 1)
        prm.max_iterations = 1;
    if (!(prm.rel_tol > 0))
        prm.rel_tol = KCBP_GJK_DEFAULT_REL_TOL;
    kcbp_pose pose = b_in_a ? *b_in_a : kcbp_pose_identity();
    kcbp_support_cache local_cache = {{0, 0}};
    if (!cache)
        cache = &local_cache;

    /* First support point: A's point toward B's origin and B's toward A's,
     * a CSO point that is already near the origin's side. */
    kcbp_vec3 d = kcbp_v3_neg(pose.trans);
    if (!(kcbp_v3_len2(d) > 0))
        d = kcbp_v3(1, 0, 0);
    simplex *s = &st->s;
    kcbp_vec3 v;
    double vv, scale;
    if (!warm_simplex(a, b, &pose, warm, s, &v, &vv, &scale)) {
        s->n = 1;
        s->used = 1;
        s->slot[0] = 0, s->slot[1] = 1, s->slot[2] = 2, s->slot[3] = 3;
        s->careful = 0;
        s->v[0] = kcbp_gjk_support(a, b, &pose, kcbp_v3_neg(d), cache);
        s->lam[0] = 1;
        v = s->v[0].w;
        vv = kcbp_v3_len2(v);
        scale = max_abs_coord(s->v[0].a, s->v[0].b);
    }
    double lower = 0;
    int overlap = 0, capped = 1, converged = 0, iter = 0, early = 0, hidden = 0;
    const double rsum = a->radius + b->radius;
    const int exits = exit_gap >= 0;

    while (iter < prm.max_iterations) {
        double tiny = ON_SIMPLEX_REL * scale;
        if (vv <= tiny * tiny) {
            overlap = 1;
            capped = 0;
            break;
        }
        iter++;
        int add = free_slot(s);
        kcbp_simplex_vertex *nvp = &s->v[add];
        *nvp = kcbp_gjk_support(a, b, &pose, kcbp_v3_neg(v), cache);
        scale = maxd(scale, max_abs_coord(nvp->a, nvp->b));
        double vw = kcbp_v3_dot(v, nvp->w);
        if (vw > 0)
            lower = maxd(lower, vw / sqrt(vv));
        if (exits && lower > rsum + maxd(exit_gap, KCBP_GJK_TOUCH_REL * (scale + rsum))) {
            /* the plane through w normal to v separates by more than that */
            capped = 0;
            early = 1;
            break;
        }
        /* van den Bergen: |v|^2 - v.w bounds |v| (|v| - dist) from above, so
         * the upper bound |v| and the lower bound v.w / |v| have met. */
        if (vv - vw <= prm.rel_tol * vv) {
            capped = 0;
            converged = 1;
            break;
        }
        /* On a sliver (careful mode, see below) the bounds can decide the
         * answer while rounding keeps them from meeting to rel_tol: stop
         * there, rather than circle among simplices that rounding cannot
         * tell apart until the cap. */
        if (s->careful && settled(vv, vw, lower, rsum, scale, prm.rel_tol)) {
            capped = 0;
            break;
        }
        const int was_careful = s->careful;
        /* A point already in the simplex, yet beyond v's plane: impossible
         * in exact arithmetic for polytope cores (v would be the nearest
         * point), so v is not the nearest point of its own simplex. */
        if (!in_simplex(s, add)) {
            int old_n = s->n, old_slot[4];
            unsigned old_used = s->used;
            double old_lam[4];
            memcpy(old_slot, s->slot, sizeof old_slot);
            memcpy(old_lam, s->lam, sizeof old_lam);
            kcbp_vec3 nvv_v;
            double nvv = simplex_solve(s, add, &nvv_v);
            if (s->n == 4) { /* the origin is inside a tetrahedron */
                v = nvv_v;
                vv = nvv;
                overlap = 1;
                capped = 0;
                break;
            }
            /* Progress; or, with the careful sub-algorithm, a step that
             * keeps the new point and leaves |v| where it was within its
             * rounding: in exact arithmetic the new point, beyond v's
             * plane by |v|^2 - v.w, lowers |v|^2 by at least (|v|^2 -
             * v.w)^2 / |w - v|^2, which on a long sliver can be below even
             * that rounding. At most 8 such steps a run, so that a cycle of
             * them ends as a stall. */
            if (nvv < vv ||
                (was_careful && (s->used & (1u << add)) && nvv <= vv * (1 + 16 * DBL_EPSILON) && ++hidden <= 8)) {
                v = nvv_v;
                vv = nvv;
                continue;
            }
            s->n = old_n; /* no progress: keep the better simplex */
            s->used = old_used;
            memcpy(s->slot, old_slot, sizeof old_slot);
            memcpy(s->lam, old_lam, sizeof old_lam);
        }
        /* Stalled, the bounds apart. When they already decide the answer
         * (settled()), stop, as the plain GJK does. Otherwise the error of
         * the plain sub-algorithm is the likely cause: on a needle or a
         * thin prism v's direction is off by eps L / |v| (see the careful
         * sub-algorithm), which misleads the support search, and the step
         * that would make progress is below the rounding of |v|. Both
         * fuzzing reproducers stalled at the second step, with a long edge
         * passing near the origin and a third point beyond the origin (v.w
         * < 0: no lower bound at all), and reported that edge's distance.
         * So v is recomputed with the careful sub-algorithm, which the rest
         * of the run then uses, and the search goes on; a second stall
         * ends the run, and classify() reports what the bounds prove. */
        if (was_careful || settled(vv, vw, lower, rsum, scale, prm.rel_tol)) {
            capped = 0;
            break;
        }
        vv = simplex_solve_careful(s, &v);
    }
    /* An exit at exactly the last iteration by one of the tests above clears
     * `capped`; the loop condition failing leaves it set. */
    if (capped && vv <= (ON_SIMPLEX_REL * scale) * (ON_SIMPLEX_REL * scale)) {
        overlap = 1;
        capped = 0;
    }
    if (warm) { /* the final simplex, for the next query of this pair */
        warm->count = s->n;
        for (int k = 0; k < s->n; k++) {
            warm->ia[k] = s->v[s->slot[k]].ia;
            warm->ib[k] = s->v[s->slot[k]].ib;
        }
    }
    st->v = v;
    st->vv = vv;
    st->scale = scale;
    st->lower = lower;
    st->overlap = overlap;
    st->capped = capped;
    st->converged = converged;
    st->iter = iter;
    st->separated_early = early;
}

/* The status kcbp_gjk_distance reports for a finished run whose witness
 * points are pa, pb; *gap: the gap between the inflated shapes (dist -
 * rsum, dist = 0 when overlapping); *gap_lower: a lower bound on it (the
 * distance_lower of the result).
 *
 * The bounds decide, not the way the run ended: |v| is an upper bound on the
 * core distance (v is a point of the Minkowski difference, up to rounding of
 * the size of the coordinates) and st->lower a lower bound (the gap along v
 * of a support plane, valid for any v, however rounded). SEPARATED needs the
 * bounds to have met (the van den Bergen test), or to be within the touching
 * tolerance of each other and to prove a gap above it; a run that rounding
 * stopped short of that is HIT_CAP, like one the cap stopped: distance an
 * upper bound, distance_lower the lower bound, never a gap it did not
 * prove. */
static inline kcbp_gjk_status classify(const gjk_state *st, double rsum, kcbp_vec3 pa, kcbp_vec3 pb,
                                       double *gap, double *gap_lower)
{
    double dist = st->overlap ? 0 : sqrt(st->vv);
    double tol = KCBP_GJK_TOUCH_REL * (st->scale + rsum);
    *gap = dist - rsum;
    *gap_lower = 0;
    if (!isfinite(dist) || !finite3(pa) || !finite3(pb))
        return KCBP_GJK_OVERLAPPING; /* only with invalid input: the safe answer */
    if (st->overlap || *gap < -tol)
        return KCBP_GJK_OVERLAPPING;
    if (*gap <= tol) {
        *gap_lower = fmax(*gap, 0);
        return KCBP_GJK_TOUCHING;
    }
    double lower = fmin(st->lower, dist);
    if (st->capped || (!st->converged && !(lower - rsum > tol && dist - lower <= tol))) {
        *gap_lower = fmax(0, lower - rsum);
        return KCBP_GJK_HIT_CAP;
    }
    *gap_lower = *gap;
    return KCBP_GJK_SEPARATED;
}

void kcbp_gjk_distance(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                       const kcbp_gjk_params *params, kcbp_support_cache *cache, kcbp_gjk_result *out)
{
    gjk_state st;
    gjk_run(a, b, b_in_a, params, cache, NULL, -1, &st);
    const simplex *s = &st.s;
    memset(out, 0, sizeof *out);
    out->iterations = st.iter;
    out->simplex_count = s->n;
    for (int k = 0; k < s->n; k++) {
        out->simplex[k] = s->v[s->slot[k]];
        out->lambda[k] = s->lam[k];
    }
    double ra = a->radius, rb = b->radius, rsum = ra + rb;
    out->scale = st.scale + rsum;
    kcbp_vec3 pa, pb;
    witnesses(s, &pa, &pb);
    double gap, gap_lower;
    kcbp_gjk_status status = classify(&st, rsum, pa, pb, &gap, &gap_lower);
    out->status = status;
    KCBP_ASSERT(st.iter <= (params ? params->max_iterations : KCBP_GJK_DEFAULT_MAX_ITERATIONS) + 4);
    double dist = st.overlap ? 0 : sqrt(st.vv);
    if (!isfinite(dist) || !finite3(pa) || !finite3(pb))
        return; /* only reachable with invalid input: the safe "overlap" */
    out->core_distance = dist;
    if (st.overlap) {
        out->point_a = pa;
        out->point_b = pb;
        return;
    }
    kcbp_vec3 n = kcbp_v3_scale(st.v, -1.0 / dist); /* pb - pa = -v */
    out->normal = n;
    out->point_a = kcbp_v3_add(pa, kcbp_v3_scale(n, ra));
    out->point_b = kcbp_v3_sub(pb, kcbp_v3_scale(n, rb));
    if (status != KCBP_GJK_OVERLAPPING) {
        out->distance = status == KCBP_GJK_TOUCHING ? gap_lower : gap;
        out->distance_lower = gap_lower;
    }
    /* gjk.h: distances are >= 0, never NaN, and the lower bound is below
     * the distance (equal to it unless the run hit its cap). */
    KCBP_ASSERT(out->distance >= 0 && out->distance_lower <= out->distance * (1 + 1e-12) + 1e-300);
}

int kcbp_gjk_intersect(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                       kcbp_support_cache *cache)
{
    gjk_state st;
    gjk_run(a, b, b_in_a, NULL, cache, NULL, 0, &st);
    if (st.separated_early)
        return 0;
    /* Not proven apart: a HIT_CAP here has a lower bound within the
     * touching tolerance (a larger one would have ended the run early). */
    kcbp_vec3 pa, pb;
    witnesses(&st.s, &pa, &pb);
    double gap, gap_lower;
    return classify(&st, a->radius + b->radius, pa, pb, &gap, &gap_lower) != KCBP_GJK_SEPARATED;
}

int kcbp_gjk_separated(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a, double margin,
                       kcbp_support_cache *cache, double *distance_lower, int *iterations, kcbp_vec3 *axis)
{
    return kcbp_gjk_separated_warm(a, b, b_in_a, margin, cache, NULL, distance_lower, iterations, axis);
}

int kcbp_gjk_separated_warm(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a, double margin,
                            kcbp_support_cache *cache, kcbp_gjk_simplex_cache *warm, double *distance_lower,
                            int *iterations, kcbp_vec3 *axis)
{
    gjk_state st;
    double rsum = a->radius + b->radius;
    gjk_run(a, b, b_in_a, NULL, cache, warm, margin > 0 ? margin : 0, &st);
    double lower = 0;
    int apart = 0;
    if (st.separated_early) {
        lower = st.lower - rsum;
        apart = 1;
    } else {
        kcbp_vec3 pa, pb;
        witnesses(&st.s, &pa, &pb);
        double gap;
        kcbp_gjk_status status = classify(&st, rsum, pa, pb, &gap, &lower);
        apart = (status == KCBP_GJK_SEPARATED || status == KCBP_GJK_HIT_CAP) && lower > margin;
        if (!apart)
            lower = 0;
    }
    if (distance_lower)
        *distance_lower = lower;
    if (iterations)
        *iterations = st.iter;
    if (axis) {
        /* v is the point of the difference A - B nearest the origin found,
         * so B lies on the side of -v. */
        double len = sqrt(st.vv);
        *axis = apart && len > 0 ? kcbp_v3_scale(st.v, -1.0 / len) : kcbp_v3(0, 0, 0);
    }
    return apart;
}
