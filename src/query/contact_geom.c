/* Contact geometry (include/kcbp/contact_geom.h): the intersection of two
 * triangles, constructed in double, the case chosen with exact signs. */
#include <kcbp/contact_geom.h>

#include <math.h>
#include <string.h>

#include "geom/predicates.h"
#include "model_internal.h"
#include "geom/tritri_exact.h"

static kcbp_vec3 tri_normal(const kcbp_vec3 t[3])
{
    return kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
}

/* t has area: some axis-plane projection of it has a non-zero exact area. */
static bool has_area(const kcbp_vec3 t[3])
{
    return kcbp_orient2d(t[0].y, t[0].z, t[1].y, t[1].z, t[2].y, t[2].z) != 0 ||
           kcbp_orient2d(t[0].x, t[0].z, t[1].x, t[1].z, t[2].x, t[2].z) != 0 ||
           kcbp_orient2d(t[0].x, t[0].y, t[1].x, t[1].y, t[2].x, t[2].y) != 0;
}

static bool v3_eq(kcbp_vec3 p, kcbp_vec3 q) { return p.x == q.x && p.y == q.y && p.z == q.z; }

static double comp(kcbp_vec3 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

static int largest_axis(kcbp_vec3 n)
{
    double x = fabs(n.x), y = fabs(n.y), z = fabs(n.z);
    return x >= y && x >= z ? 0 : y >= z ? 1 : 2;
}

/* Where triangle t meets the plane of the non-degenerate triangle p (which
 * t crosses or touches, not lying in it): 1 or 2 points, the signs exact,
 * the crossing points interpolated along the signed distances. */
static int cut_by_plane(const kcbp_vec3 t[3], const kcbp_vec3 p[3], kcbp_vec3 out[2])
{
    kcbp_vec3 n = tri_normal(p);
    int s[3];
    double d[3];
    for (int i = 0; i < 3; i++) {
        s[i] = kcbp_orient3d(p[0], p[1], p[2], t[i]);
        d[i] = kcbp_v3_dot(n, kcbp_v3_sub(t[i], p[0]));
    }
    int m = 0;
    for (int i = 0; i < 3 && m < 2; i++) {
        int j = (i + 1) % 3;
        if (s[i] == 0)
            out[m++] = t[i];
        if (m < 2 && s[i] * s[j] < 0) {
            double f = d[i] / (d[i] - d[j]);
            out[m++] = kcbp_v3_add(t[i], kcbp_v3_scale(kcbp_v3_sub(t[j], t[i]), f));
        }
    }
    return m;
}

/* Two triangles with area, not in one plane: the overlap along the line
 * where their planes meet of the two cuts. */
static uint32_t crossing(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 out[])
{
    kcbp_vec3 ca[2], cb[2];
    int na = cut_by_plane(a, b, ca), nb = cut_by_plane(b, a, cb);
    if (na == 0 || nb == 0) { /* cannot be when they intersect; a point for safety */
        out[0] = na ? ca[0] : nb ? cb[0] : a[0];
        return 1;
    }
    if (na == 1)
        ca[1] = ca[0];
    if (nb == 1)
        cb[1] = cb[0];
    kcbp_vec3 dir = kcbp_v3_cross(tri_normal(a), tri_normal(b));
    double ta[2] = {kcbp_v3_dot(dir, ca[0]), kcbp_v3_dot(dir, ca[1])};
    double tb[2] = {kcbp_v3_dot(dir, cb[0]), kcbp_v3_dot(dir, cb[1])};
    int alo = ta[0] <= ta[1] ? 0 : 1, blo = tb[0] <= tb[1] ? 0 : 1;
    /* lo: the larger of the two low ends; hi: the smaller of the high ends. */
    kcbp_vec3 lo = ta[alo] >= tb[blo] ? ca[alo] : cb[blo];
    double tlo = fmax(ta[alo], tb[blo]);
    kcbp_vec3 hi = ta[1 - alo] <= tb[1 - blo] ? ca[1 - alo] : cb[1 - blo];
    double thi = fmin(ta[1 - alo], tb[1 - blo]);
    if (thi <= tlo || v3_eq(lo, hi)) { /* a point (or rounding made the overlap vanish) */
        out[0] = kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5);
        return 1;
    }
    out[0] = lo;
    out[1] = hi;
    return 2;
}

typedef struct {
    double u, v;
} p2;

static double cross2(p2 o, p2 a, p2 b) { return (a.u - o.u) * (b.v - o.v) - (a.v - o.v) * (b.u - o.u); }

/* Coplanar triangles that only touch (a vertex on an edge, edges along
 * each other or crossing at a point), which clipping in double can lose:
 * the vertices of each in the other and the crossings of their edges, each
 * decided exactly; of these (collinear when there are several), the two
 * farthest apart. */
static uint32_t touching(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 out[])
{
    kcbp_vec3 pts[15];
    int m = 0;
    for (int i = 0; i < 3; i++) {
        if (kcbp_seg_tri_intersect(a[i], a[i], b))
            pts[m++] = a[i];
        if (kcbp_seg_tri_intersect(b[i], b[i], a))
            pts[m++] = b[i];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            kcbp_vec3 p = a[i], q = a[(i + 1) % 3], r = b[j], t = b[(j + 1) % 3];
            const kcbp_vec3 e[3] = {r, t, t};
            if (!kcbp_seg_tri_intersect(p, q, e))
                continue;
            /* p + s (q - p) closest to the line rt: solves the 2x2 system. */
            kcbp_vec3 u = kcbp_v3_sub(q, p), v = kcbp_v3_sub(t, r), w0 = kcbp_v3_sub(p, r);
            double aa = kcbp_v3_dot(u, u), bb = kcbp_v3_dot(u, v), cc = kcbp_v3_dot(v, v), dd = kcbp_v3_dot(u, w0),
                   ee = kcbp_v3_dot(v, w0), den = aa * cc - bb * bb;
            if (den > 1e-24 * aa * cc) /* not parallel (parallel ones meet at the vertices above) */
                pts[m++] = kcbp_v3_add(p, kcbp_v3_scale(u, fmin(1, fmax(0, (bb * ee - cc * dd) / den))));
        }
    if (m == 0) { /* cannot be when they intersect */
        out[0] = a[0];
        return 1;
    }
    int i0 = 0, i1 = 0;
    double best = -1;
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++) {
            double d = kcbp_v3_len2(kcbp_v3_sub(pts[i], pts[j]));
            if (d > best)
                best = d, i0 = i, i1 = j;
        }
    out[0] = pts[i0];
    if (best <= 0)
        return 1;
    out[1] = pts[i1];
    return 2;
}

/* Two triangles with area in one plane: a clipped by b's three edges
 * (Sutherland-Hodgman) in the axis plane that drops k, lifted back onto
 * a's plane. */
static uint32_t overlap(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 out[])
{
    kcbp_vec3 n = tri_normal(a);
    int k = largest_axis(n), i0 = k == 0 ? 1 : 0, i1 = k == 2 ? 1 : 2;
    p2 poly[KCBP_CONTACT_POINTS_MAX + 3], next[KCBP_CONTACT_POINTS_MAX + 3], tb[3];
    int m = 3;
    for (int i = 0; i < 3; i++) {
        poly[i] = (p2){comp(a[i], i0), comp(a[i], i1)};
        tb[i] = (p2){comp(b[i], i0), comp(b[i], i1)};
    }
    double orient = cross2(tb[0], tb[1], tb[2]) > 0 ? 1 : -1;
    for (int e = 0; e < 3 && m > 0; e++) {
        p2 p = tb[e], q = tb[(e + 1) % 3];
        int mm = 0;
        for (int i = 0; i < m; i++) {
            p2 c = poly[i], d = poly[(i + 1) % m];
            double sc = orient * cross2(p, q, c), sd = orient * cross2(p, q, d);
            if (sc >= 0 && mm < KCBP_CONTACT_POINTS_MAX + 2)
                next[mm++] = c;
            if (((sc > 0 && sd < 0) || (sc < 0 && sd > 0)) && mm < KCBP_CONTACT_POINTS_MAX + 2) {
                double f = sc / (sc - sd);
                next[mm++] = (p2){c.u + (d.u - c.u) * f, c.v + (d.v - c.v) * f};
            }
        }
        memcpy(poly, next, (size_t)mm * sizeof *poly);
        m = mm;
    }
    /* Drop repeated points (a touching edge or vertex comes out doubled,
     * give or take rounding: 1e-12 of the coordinates' magnitude). */
    double eps = 0;
    for (int i = 0; i < 3; i++)
        eps = fmax(eps, fmax(kcbp_v3_max_abs(a[i]), kcbp_v3_max_abs(b[i])));
    eps *= 1e-12;
    int w = 0;
    for (int i = 0; i < m; i++) {
        bool dup = false;
        for (int j = 0; j < w && !dup; j++)
            dup = fabs(poly[j].u - poly[i].u) <= eps && fabs(poly[j].v - poly[i].v) <= eps;
        if (!dup && w < KCBP_CONTACT_POINTS_MAX)
            poly[w++] = poly[i];
    }
    if (w == 0) /* rounding lost a touching edge or vertex */
        return touching(a, b, out);
    double nk = comp(n, k);
    for (int i = 0; i < w; i++) {
        /* n . (x - a0) = 0 solved for coordinate k. */
        double du = poly[i].u - comp(a[0], i0), dv = poly[i].v - comp(a[0], i1);
        double xk = comp(a[0], k) - (comp(n, i0) * du + comp(n, i1) * dv) / nk;
        double c[3];
        c[i0] = poly[i].u, c[i1] = poly[i].v, c[k] = xk;
        out[i] = kcbp_v3(c[0], c[1], c[2]);
    }
    return (uint32_t)w;
}

/* The segment of a degenerate triangle: its two farthest vertices. */
static void span(const kcbp_vec3 t[3], kcbp_vec3 *p, kcbp_vec3 *q)
{
    double d01 = kcbp_v3_len2(kcbp_v3_sub(t[1], t[0])), d12 = kcbp_v3_len2(kcbp_v3_sub(t[2], t[1])),
           d20 = kcbp_v3_len2(kcbp_v3_sub(t[0], t[2]));
    if (d01 >= d12 && d01 >= d20)
        *p = t[0], *q = t[1];
    else if (d12 >= d20)
        *p = t[1], *q = t[2];
    else
        *p = t[2], *q = t[0];
}

/* A degenerate triangle (segment pq) against a triangle t: the part of pq
 * in t, estimated: the endpoints that are in t (exact), else where pq
 * crosses t's plane, or, in its plane or t degenerate too, pq's midpoint. */
static uint32_t degenerate_case(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3], kcbp_vec3 out[])
{
    uint32_t m = 0;
    if (kcbp_seg_tri_intersect(p, p, t))
        out[m++] = p;
    if (!v3_eq(p, q) && kcbp_seg_tri_intersect(q, q, t))
        out[m++] = q;
    if (m)
        return m;
    if (has_area(t)) {
        kcbp_vec3 n = tri_normal(t);
        double dp = kcbp_v3_dot(n, kcbp_v3_sub(p, t[0])), dq = kcbp_v3_dot(n, kcbp_v3_sub(q, t[0]));
        if (dp != dq) {
            out[0] = kcbp_v3_add(p, kcbp_v3_scale(kcbp_v3_sub(q, p), dp / (dp - dq)));
            return 1;
        }
    }
    out[0] = kcbp_v3_scale(kcbp_v3_add(p, q), 0.5);
    return 1;
}

uint32_t kcbp_tri_intersection(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 out[KCBP_CONTACT_POINTS_MAX])
{
    bool aa = has_area(a), ab = has_area(b);
    if (!aa || !ab) {
        kcbp_vec3 p, q;
        span(aa ? b : a, &p, &q);
        return degenerate_case(p, q, aa ? a : b, out);
    }
    bool coplanar = true;
    for (int i = 0; i < 3 && coplanar; i++)
        coplanar = kcbp_orient3d(b[0], b[1], b[2], a[i]) == 0;
    return coplanar ? overlap(a, b, out) : crossing(a, b, out);
}

/* The weight of one intersection: a segment's length, a polygon's area. */
static double weight(const kcbp_contact_geom *g, kcbp_vec3 *centroid)
{
    kcbp_vec3 sum = kcbp_v3(0, 0, 0);
    for (uint32_t i = 0; i < g->npoints; i++)
        sum = kcbp_v3_add(sum, g->points[i]);
    *centroid = kcbp_v3_scale(sum, 1.0 / g->npoints);
    if (g->npoints == 2)
        return kcbp_v3_len(kcbp_v3_sub(g->points[1], g->points[0]));
    double area = 0;
    for (uint32_t i = 1; i + 1 < g->npoints; i++)
        area += 0.5 * kcbp_v3_len(kcbp_v3_cross(kcbp_v3_sub(g->points[i], g->points[0]),
                                                kcbp_v3_sub(g->points[i + 1], g->points[0])));
    return area;
}

void kcbp_contact_geometry(const kcbp_model *ma, const kcbp_pose *pose_a, const kcbp_model *mb, const kcbp_pose *pose_b,
                           const kcbp_contact *contacts, size_t n, kcbp_contact_geom *out,
                           kcbp_contact_summary *summary)
{
    const kcbp_model_impl *a = ma->impl, *b = mb->impl;
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    kcbp_vec3 wsum = kcbp_v3(0, 0, 0), psum = kcbp_v3(0, 0, 0), nsum = kcbp_v3(0, 0, 0), nsum1 = nsum;
    double total = 0;
    for (size_t c = 0; c < n; c++) {
        kcbp_vec3 ta[3], tb[3], pts[KCBP_CONTACT_POINTS_MAX];
        if (kcbp_impl_is_shape(a) || kcbp_impl_is_shape(b) || contacts[c].a >= a->mesh.ntriangles ||
            contacts[c].b >= b->mesh.ntriangles) {
            /* a shape's contact (KCBP_SHAPE_FEATURE), or a triangle the model
             * does not have: no triangle pair to intersect */
            out[c].a = contacts[c].a;
            out[c].b = contacts[c].b;
            out[c].npoints = 0;
            continue;
        }
        for (int k = 0; k < 3; k++) {
            ta[k] = a->mesh.vertices[a->mesh.triangles[contacts[c].a].v[k]];
            tb[k] = kcbp_pose_apply(&b_in_a, b->mesh.vertices[b->mesh.triangles[contacts[c].b].v[k]]);
        }
        kcbp_contact_geom *g = &out[c];
        g->a = contacts[c].a;
        g->b = contacts[c].b;
        g->npoints = kcbp_tri_intersection(ta, tb, pts);
        for (uint32_t i = 0; i < g->npoints; i++)
            g->points[i] = kcbp_pose_apply(pose_a, pts[i]);
        kcbp_vec3 centroid;
        double w = weight(g, &centroid);
        wsum = kcbp_v3_add(wsum, kcbp_v3_scale(centroid, w));
        psum = kcbp_v3_add(psum, centroid);
        total += w;
        kcbp_vec3 na = tri_normal(ta), nb = tri_normal(tb);
        double la = kcbp_v3_len(na), lb = kcbp_v3_len(nb);
        kcbp_vec3 d = kcbp_v3_sub(la > 0 ? kcbp_v3_scale(na, 1 / la) : na, lb > 0 ? kcbp_v3_scale(nb, 1 / lb) : nb);
        nsum = kcbp_v3_add(nsum, kcbp_v3_scale(d, w));
        nsum1 = kcbp_v3_add(nsum1, d); /* unweighted: for contacts that are all points */
    }
    if (!summary || n == 0)
        return;
    summary->point = total > 0 ? kcbp_v3_scale(wsum, 1 / total) : kcbp_v3_scale(psum, 1.0 / (double)n);
    if (!(kcbp_v3_len(nsum) > 0))
        nsum = nsum1;
    double len = kcbp_v3_len(nsum);
    summary->has_normal = len > 0 && isfinite(len);
    summary->normal = summary->has_normal ? kcbp_mat3_mul_v3(&pose_a->rot, kcbp_v3_scale(nsum, 1 / len))
                                          : kcbp_v3(0, 0, 0);
}
