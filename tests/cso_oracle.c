#include "cso_oracle.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libqhull_r/qhull_ra.h>

FILE *oracle_devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

int oracle_hull_build(const kcbp_vec3 *p, int n, oracle_hull *h)
{
    memset(h, 0, sizeof *h);
    if (n < 4)
        return 0;
    coordT *pts = malloc(sizeof(coordT) * 3 * (size_t)n);
    for (int i = 0; i < n; i++) {
        pts[3 * i] = p[i].x;
        pts[3 * i + 1] = p[i].y;
        pts[3 * i + 2] = p[i].z;
    }
    qhT qh_qh, *qh = &qh_qh;
    qh_zero(qh, oracle_devnull());
    char opts[] = "qhull Qt";
    int rc = qh_new_qhull(qh, 3, n, pts, False, opts, NULL, oracle_devnull());
    int ok = rc == 0;
    if (ok) {
        int *map = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            map[i] = -1;
        facetT *facet;
        vertexT *vertex, **vertexp;
        size_t nt = 0;
        FORALLfacets nt++;
        uint32_t(*tris)[3] = malloc(sizeof *tris * nt);
        h->v = malloc(sizeof *h->v * (size_t)n);
        size_t t = 0;
        FORALLfacets
        {
            int k = 0;
            FOREACHvertex_(facet->vertices)
            {
                int id = qh_pointid(qh, vertex->point);
                if (map[id] < 0) {
                    map[id] = (int)h->nv;
                    h->v[h->nv++] = p[id];
                }
                if (k < 3)
                    tris[t][k] = (uint32_t)map[id];
                k++;
            }
            t++;
        }
        ok = kcbp_convex_adjacency(h->nv, (const uint32_t(*)[3])tris, nt, &h->start, &h->adj, NULL) == KCBP_OK;
        free(tris);
        free(map);
    }
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    free(pts);
    return ok;
}

void oracle_hull_free(oracle_hull *h)
{
    free(h->v);
    free(h->start);
    free(h->adj);
    memset(h, 0, sizeof *h);
}

/* Distances from the origin to segments and triangles, written
 * independently of the library, in extended precision: the differences of
 * two slivers (needles, thin prisms) have sliver facets, and the plane of a
 * triangle whose angles are all near 0 or 180 degrees (sine s at its best
 * vertex) comes out of a cross product with a relative error of about
 * eps / s, which moves the origin's projection by that much times the
 * coordinates. In double this put the distance off by up to 5e-5 of the
 * coordinates, far above GJK's tolerance (measured against exact rational
 * arithmetic), so: long double (64-bit significands on x86) when s > 1e-5,
 * and __float128 (113 bits, where the compiler has it) below. */
typedef long double ld;
#if defined(__SIZEOF_FLOAT128__)
typedef __float128 qd;
#define QD_EPSILON 1.925929944387235853055977942584927319e-34L /* 2^-112 */
#else
typedef long double qd;
#define QD_EPSILON LDBL_EPSILON
#endif
typedef struct {
    ld x, y, z;
} lvec;
typedef struct {
    qd x, y, z;
} qvec;
static lvec lv(kcbp_vec3 v) { return (lvec){v.x, v.y, v.z}; }
static lvec lsub(lvec a, lvec b) { return (lvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static ld ldot(lvec a, lvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static lvec lcross(lvec a, lvec b)
{
    return (lvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static qvec qv(kcbp_vec3 v) { return (qvec){v.x, v.y, v.z}; }
static qvec qsub(qvec a, qvec b) { return (qvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static qd qdot(qvec a, qvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static qvec qcross(qvec a, qvec b)
{
    return (qvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static ld seg_dist(lvec a, lvec b)
{
    lvec ab = lsub(b, a);
    ld l2 = ldot(ab, ab);
    ld t = l2 > 0 ? -ldot(a, ab) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    lvec p = {a.x + t * ab.x, a.y + t * ab.y, a.z + t * ab.z};
    return sqrtl(ldot(p, p));
}

/* Orders triangle t so that t[0] is the vertex opposite its longest edge:
 * the cross product of the two edges from there is the most accurate. */
static void best_first(const kcbp_vec3 *w, int t[3])
{
    double l2[3];
    for (int q = 0; q < 3; q++)
        l2[q] = kcbp_v3_len2(kcbp_v3_sub(w[t[(q + 1) % 3]], w[t[(q + 2) % 3]]));
    int top = l2[0] >= l2[1] && l2[0] >= l2[2] ? 0 : l2[1] >= l2[2] ? 1 : 2;
    int r[3] = {t[top], t[(top + 1) % 3], t[(top + 2) % 3]};
    memcpy(t, r, sizeof r);
}

/* The sine of triangle t's angle at t[0] (after best_first). */
static ld tri_sine(const kcbp_vec3 *w, const int t[3])
{
    lvec a = lv(w[t[0]]), e1 = lsub(lv(w[t[1]]), a), e2 = lsub(lv(w[t[2]]), a);
    lvec N = lcross(e1, e2);
    ld ee = sqrtl(ldot(e1, e1) * ldot(e2, e2));
    return ee > 0 ? sqrtl(ldot(N, N)) / ee : 0;
}

/* The unit normal of triangle t (after best_first), in the precision its
 * shape needs. */
static lvec tri_normal(const kcbp_vec3 *w, const int t[3], ld sine)
{
    if (sine > 1e-5L) {
        lvec a = lv(w[t[0]]);
        lvec N = lcross(lsub(lv(w[t[1]]), a), lsub(lv(w[t[2]]), a));
        ld len = sqrtl(ldot(N, N));
        return (lvec){N.x / len, N.y / len, N.z / len};
    }
    qvec a = qv(w[t[0]]);
    qvec N = qcross(qsub(qv(w[t[1]]), a), qsub(qv(w[t[2]]), a));
    ld len = sqrtl((ld)qdot(N, N));
    return (lvec){(ld)N.x / len, (ld)N.y / len, (ld)N.z / len};
}

/* Squared distance from the origin to triangle t's plane when the origin
 * projects inside the triangle, or -1; in __float128. */
static qd tri_face2_q(const kcbp_vec3 *w, const int t[3])
{
    qvec a = qv(w[t[0]]), b = qv(w[t[1]]), c = qv(w[t[2]]);
    qvec n = qcross(qsub(b, a), qsub(c, a));
    qd nn = qdot(n, n);
    if (!(nn > 0))
        return -1;
    qd k = qdot(a, n) / nn;
    qvec p = {k * n.x, k * n.y, k * n.z};
    qd s0 = qdot(qcross(qsub(b, a), qsub(p, a)), n);
    qd s1 = qdot(qcross(qsub(c, b), qsub(p, b)), n);
    qd s2 = qdot(qcross(qsub(a, c), qsub(p, c)), n);
    return s0 >= 0 && s1 >= 0 && s2 >= 0 ? qdot(p, p) : -1;
}

/* The same in long double. */
static ld tri_face2_l(const kcbp_vec3 *w, const int t[3])
{
    lvec a = lv(w[t[0]]), b = lv(w[t[1]]), c = lv(w[t[2]]);
    lvec n = lcross(lsub(b, a), lsub(c, a));
    ld nn = ldot(n, n);
    if (!(nn > 0))
        return -1;
    ld k = ldot(a, n) / nn;
    lvec p = {k * n.x, k * n.y, k * n.z};
    ld s0 = ldot(lcross(lsub(b, a), lsub(p, a)), n);
    ld s1 = ldot(lcross(lsub(c, b), lsub(p, b)), n);
    ld s2 = ldot(lcross(lsub(a, c), lsub(p, c)), n);
    return s0 >= 0 && s1 >= 0 && s2 >= 0 ? ldot(p, p) : -1;
}

/* Distance from the origin to triangle (a, b, c): the origin's projection
 * on the plane if it falls inside, else the nearest of the three edges. A
 * triangle with a best sine below 1e-15 counts as its edges (its height is
 * below 1e-15 of its edges). */
static double tri_dist(kcbp_vec3 da, kcbp_vec3 db, kcbp_vec3 dc)
{
    const kcbp_vec3 w[3] = {da, db, dc};
    int t[3] = {0, 1, 2};
    best_first(w, t);
    ld sine = tri_sine(w, t);
    if (sine > 1e-15L) {
        ld f2 = sine > 1e-5L ? tri_face2_l(w, t) : (ld)tri_face2_q(w, t);
        if (f2 >= 0)
            return (double)sqrtl(f2);
    }
    lvec a = lv(da), b = lv(db), c = lv(dc);
    ld d = seg_dist(a, b), e = seg_dist(b, c), f = seg_dist(c, a);
    return (double)(d < e ? (d < f ? d : f) : (e < f ? e : f));
}

static double angle_between(kcbp_vec3 a, kcbp_vec3 b)
{
    return atan2(kcbp_v3_len(kcbp_v3_cross(a, b)), kcbp_v3_dot(a, b));
}

/* The oracle without qhull, for few points: the origin is inside when it is
 * strictly inside some tetrahedron of difference points (Caratheodory), its
 * signed volumes beyond their rounding error. Its depth is
 * the least, over directions u, of the support value max_m u . w_m: every
 * direction gives an upper bound (and a value <= 0 shows the origin not
 * inside after all), and the normal of the nearest hull facet, one of the
 * triangles' normals tried here, gives the depth. Otherwise the distance
 * is the least over every triangle, edge and point. qhull merges facets and
 * drops points within its precision of a facet, so on a flat or nearly flat
 * difference (two segments, two coplanar polygons, a thin prism against a
 * point) its hull can miss vertices by far more than GJK's tolerance
 * (measured: 0.012 at coordinates of 250 for two segments); this
 * enumeration misses none. */
static ld det3l(lvec a, lvec b, lvec c) { return ldot(a, lcross(b, c)); }
static qd det3q(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c) { return qdot(qv(a), qcross(qv(b), qv(c))); }

/* The origin strictly inside tetrahedron (a, b, c, d): its four signed
 * volumes with the origin in each vertex's place share a sign, beyond
 * their rounding error (err_l in long double; where that cannot tell,
 * again in __float128, err_q). */
static int in_tetra(const kcbp_vec3 *w, const lvec *L, int i, int j, int k, int q, ld err_l, qd err_q)
{
    ld c[4] = {det3l(L[j], L[k], L[q]), -det3l(L[i], L[k], L[q]), det3l(L[i], L[j], L[q]), -det3l(L[i], L[j], L[k])};
    int pos = 1, neg = 1, sure = 1;
    for (int r = 0; r < 4; r++) {
        pos &= c[r] > 0;
        neg &= c[r] < 0;
        sure &= fabsl(c[r]) > err_l;
    }
    if (!(pos || neg) || sure)
        return pos || neg;
    qd e[4] = {det3q(w[j], w[k], w[q]), -det3q(w[i], w[k], w[q]), det3q(w[i], w[j], w[q]), -det3q(w[i], w[j], w[k])};
    pos = neg = 1;
    for (int r = 0; r < 4; r++) {
        pos &= e[r] > err_q;
        neg &= e[r] < -err_q;
    }
    return pos || neg;
}

static void brute(const kcbp_vec3 *w, int n, cso_oracle_result *o)
{
    o->ok = 1;
    o->inside = 0;
    o->dist = INFINITY;
    o->depth = INFINITY;
    o->second = INFINITY;
    lvec L[64];
    ld m = 0;
    for (int i = 0; i < n; i++) {
        L[i] = lv(w[i]);
        m = fmaxl(m, (ld)kcbp_v3_max_abs(w[i]));
    }
    /* a determinant of three points with coordinates up to m: six products
     * of three, each rounded twice, and five sums */
    ld det_err = 64 * LDBL_EPSILON * m * m * m;
    qd det_err_q = 64 * QD_EPSILON * (qd)m * (qd)m * (qd)m;
    for (int i = 0; i < n; i++) {
        o->dist = fmin(o->dist, kcbp_v3_len(w[i]));
        for (int j = i + 1; j < n; j++) {
            o->dist = fmin(o->dist, (double)seg_dist(L[i], L[j]));
            for (int k = j + 1; k < n; k++) {
                o->dist = fmin(o->dist, tri_dist(w[i], w[j], w[k]));
                for (int q = k + 1; q < n && !o->inside; q++)
                    o->inside = in_tetra(w, L, i, j, k, q, det_err, det_err_q);
            }
        }
    }
    if (!o->inside)
        return;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                int t[3] = {i, j, k};
                best_first(w, t);
                ld sine = tri_sine(w, t);
                if (!(sine > 1e-15L))
                    continue;
                lvec u0 = tri_normal(w, t, sine);
                for (int side = 0; side < 2; side++) {
                    lvec u = side ? (lvec){-u0.x, -u0.y, -u0.z} : u0;
                    ld h = -INFINITY;
                    for (int r = 0; r < n; r++)
                        h = fmaxl(h, ldot(u, L[r]));
                    double d = (double)h;
                    kcbp_vec3 fn = kcbp_v3((double)u.x, (double)u.y, (double)u.z);
                    if (d < o->depth) {
                        if (o->depth < INFINITY && angle_between(fn, o->n) > 1e-7)
                            o->second = o->depth;
                        o->depth = d;
                        o->n = fn;
                    } else if (d < o->second && angle_between(fn, o->n) > 1e-7) {
                        o->second = d;
                    }
                }
            }
    if (!(o->depth > 0)) { /* a plane through or beyond the origin */
        o->inside = 0;
        return;
    }
    o->dist = 0;
}

/* Up to this many difference points the brute force above is used: it is
 * exact where qhull is not, and cheap (560 triangles). */
enum { BRUTE_MAX = 16, BRUTE_FALLBACK_MAX = 64 };

cso_oracle_result cso_oracle(const kcbp_vec3 *pa, int na, const kcbp_vec3 *pb, int nb, const kcbp_pose *pose)
{
    cso_oracle_result o;
    memset(&o, 0, sizeof o);
    int n = na * nb;
    coordT *pts = malloc(sizeof(coordT) * 3 * (size_t)n);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            kcbp_vec3 w = kcbp_v3_sub(pa[i], kcbp_pose_apply(pose, pb[j]));
            coordT *q = pts + 3 * (i * nb + j);
            q[0] = w.x;
            q[1] = w.y;
            q[2] = w.z;
            o.scale = fmax(o.scale, kcbp_v3_max_abs(w));
        }
    if (n <= BRUTE_MAX) {
        kcbp_vec3 w[BRUTE_MAX];
        for (int i = 0; i < n; i++)
            w[i] = kcbp_v3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
        brute(w, n, &o);
        free(pts);
        return o;
    }
    qhT qh_qh, *qh = &qh_qh;
    qh_zero(qh, oracle_devnull());
    char opts[] = "qhull Qt";
    if (qh_new_qhull(qh, 3, n, pts, False, opts, NULL, oracle_devnull()) == 0) {
        o.ok = 1;
        facetT *facet;
        vertexT *vertex, **vertexp;
        o.inside = 1;
        o.dist = INFINITY;
        o.depth = INFINITY;
        o.second = INFINITY;
        FORALLfacets
        {
            if (facet->offset >= 0)
                o.inside = 0;
            double d = -facet->offset;
            kcbp_vec3 fn = kcbp_v3(facet->normal[0], facet->normal[1], facet->normal[2]);
            if (d < o.depth) {
                if (o.depth < INFINITY && angle_between(fn, o.n) > 1e-7)
                    o.second = o.depth;
                o.depth = d;
                o.n = fn;
            } else if (d < o.second && angle_between(fn, o.n) > 1e-7) {
                o.second = d;
            }
            kcbp_vec3 v[3];
            int k = 0;
            FOREACHvertex_(facet->vertices)
            {
                if (k < 3)
                    v[k] = kcbp_v3(vertex->point[0], vertex->point[1], vertex->point[2]);
                k++;
            }
            if (k == 3)
                o.dist = fmin(o.dist, tri_dist(v[0], v[1], v[2]));
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int curlong, totlong;
    qh_memfreeshort(qh, &curlong, &totlong);
    if (!o.ok && n <= BRUTE_FALLBACK_MAX) { /* flat: qhull refuses it */
        kcbp_vec3 w[BRUTE_FALLBACK_MAX];
        for (int i = 0; i < n; i++)
            w[i] = kcbp_v3(pts[3 * i], pts[3 * i + 1], pts[3 * i + 2]);
        brute(w, n, &o);
    }
    free(pts);
    return o;
}
