/* Contact features of convex shapes and their clipping (clip.h). */
#include "clip.h"

#include <math.h>
#include <string.h>

#include <kcbp/convex_hull.h>

kcbp_vec3 kcbp_polygon_normal(const kcbp_vec3 *p, int n)
{
    kcbp_vec3 s = kcbp_v3(0, 0, 0);
    for (int i = 0; i < n; i++) {
        kcbp_vec3 a = p[i], b = p[(i + 1) % n];
        s.x += (a.y - b.y) * (a.z + b.z);
        s.y += (a.z - b.z) * (a.x + b.x);
        s.z += (a.x - b.x) * (a.y + b.y);
    }
    double len = kcbp_v3_len(s);
    return len > 0 && isfinite(len) ? kcbp_v3_scale(s, 1 / len) : kcbp_v3(0, 0, 0);
}

/* Orders the points of p[0 .. n) (local frame, all near one plane normal to
 * the unit d) as their convex hull, counter-clockwise about d (Andrew's
 * monotone chain on two axes of that plane); returns the hull's count. */
static int hull_2d(kcbp_vec3 *p, int n, kcbp_vec3 d)
{
    if (n < 3)
        return n;
    kcbp_vec3 u = fabs(d.x) < 0.6 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0);
    u = kcbp_v3_cross(d, u);
    u = kcbp_v3_scale(u, 1 / kcbp_v3_len(u));
    kcbp_vec3 v = kcbp_v3_cross(d, u);
    double pu[64], pv[64];
    int idx[64];
    for (int i = 0; i < n; i++) {
        pu[i] = kcbp_v3_dot(p[i], u);
        pv[i] = kcbp_v3_dot(p[i], v);
        idx[i] = i;
    }
    for (int i = 1; i < n; i++) /* insertion sort by (u, v): n <= 64 */
        for (int j = i; j > 0; j--) {
            int a = idx[j - 1], b = idx[j];
            if (pu[a] < pu[b] || (pu[a] == pu[b] && pv[a] <= pv[b]))
                break;
            idx[j - 1] = b, idx[j] = a;
        }
    int h[130], k = 0;
    for (int pass = 0; pass < 2; pass++) {
        int start = k;
        for (int s = 0; s < n; s++) {
            int i = pass == 0 ? idx[s] : idx[n - 1 - s];
            while (k >= start + 2) {
                int a = h[k - 2], b = h[k - 1];
                double cr = (pu[b] - pu[a]) * (pv[i] - pv[a]) - (pv[b] - pv[a]) * (pu[i] - pu[a]);
                if (cr > 0)
                    break;
                k--;
            }
            h[k++] = i;
        }
        k--; /* the last point starts the other chain */
    }
    kcbp_vec3 q[64];
    for (int i = 0; i < k; i++)
        q[i] = p[h[i]];
    memcpy(p, q, (size_t)k * sizeof *p);
    return k;
}

int kcbp_shape_feature(const kcbp_shape_geom *g, const kcbp_pose *pose, kcbp_vec3 d, kcbp_vec3 out[KCBP_FEATURE_MAX])
{
    kcbp_vec3 dl = kcbp_mat3_tmul_v3(&pose->rot, d); /* d in the shape's frame */
    kcbp_vec3 loc[64];
    int n = 0;
    double r = g->def.radius;
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: loc[n++] = kcbp_v3_scale(dl, r); break;
    case KCBP_SHAPE_CAPSULE: {
        kcbp_vec3 off = kcbp_v3_scale(dl, r);
        if (fabs(dl.z) > M_SQRT1_2) { /* seen end on: the end toward d */
            loc[n++] = kcbp_v3_add(dl.z > 0 ? g->pts[1] : g->pts[0], off);
        } else {
            loc[n++] = kcbp_v3_add(g->pts[0], off);
            loc[n++] = kcbp_v3_add(g->pts[1], off);
        }
        break;
    }
    case KCBP_SHAPE_BOX: {
        kcbp_vec3 a = kcbp_v3_abs(dl), h = g->half;
        int k = a.x >= a.y && a.x >= a.z ? 0 : a.y >= a.z ? 1 : 2, i = (k + 1) % 3, j = (k + 2) % 3;
        double s = kcbp_v3_get(dl, k) >= 0 ? 1 : -1;
        static const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
        for (int c = 0; c < 4; c++) {
            double x[3];
            x[k] = s * kcbp_v3_get(h, k);
            x[i] = su[c] * kcbp_v3_get(h, i);
            x[j] = sv[c] * kcbp_v3_get(h, j);
            loc[n++] = kcbp_v3(x[0], x[1], x[2]);
        }
        break;
    }
    case KCBP_SHAPE_CYLINDER: {
        double hz = g->half.z, rad = hypot(dl.x, dl.y);
        if (fabs(dl.z) >= M_SQRT1_2 || !(rad > 0)) { /* a cap: 8 points of its rim */
            double z = dl.z >= 0 ? hz : -hz;
            for (int c = 0; c < 8; c++) {
                double th = c * (M_PI / 4);
                loc[n++] = kcbp_v3(r * cos(th), r * sin(th), z);
            }
        } else { /* the side line toward d */
            kcbp_vec3 u = kcbp_v3(r * dl.x / rad, r * dl.y / rad, 0);
            loc[n++] = kcbp_v3(u.x, u.y, -hz);
            loc[n++] = kcbp_v3(u.x, u.y, hz);
        }
        break;
    }
    case KCBP_SHAPE_HULL: {
        uint32_t nv = g->hull ? kcbp_convex_hull_vertex_count(g->hull) : 0;
        const kcbp_vec3 *v = g->hull ? kcbp_convex_hull_vertices(g->hull) : NULL;
        double h = -INFINITY;
        for (uint32_t i = 0; i < nv; i++)
            h = fmax(h, kcbp_v3_dot(v[i], dl));
        double tol = 1e-6 * g->reach;
        for (uint32_t i = 0; i < nv && n < 64; i++)
            if (kcbp_v3_dot(v[i], dl) >= h - tol)
                loc[n++] = v[i];
        n = hull_2d(loc, n, dl);
        if (n > KCBP_FEATURE_MAX) { /* keep every other point, evenly */
            kcbp_vec3 q[KCBP_FEATURE_MAX];
            for (int i = 0; i < KCBP_FEATURE_MAX; i++)
                q[i] = loc[(int)((long)i * n / KCBP_FEATURE_MAX)];
            memcpy(loc, q, sizeof q);
            n = KCBP_FEATURE_MAX;
        }
        break;
    }
    default: break;
    }
    for (int i = 0; i < n; i++)
        out[i] = kcbp_pose_apply(pose, loc[i]);
    return n;
}

/* Sutherland-Hodgman of the closed polygon p[0 .. n) (n >= 3) against the
 * half-space m . (x - o) >= 0; the open segment (n == 2) and the point
 * (n == 1) likewise. Returns the new count (into q). */
static int clip_half(const kcbp_vec3 *p, int n, kcbp_vec3 m, kcbp_vec3 o, kcbp_vec3 *q)
{
    if (n == 1) {
        if (kcbp_v3_dot(m, kcbp_v3_sub(p[0], o)) >= 0)
            q[0] = p[0];
        return kcbp_v3_dot(m, kcbp_v3_sub(p[0], o)) >= 0;
    }
    int k = 0, edges = n == 2 ? 1 : n;
    for (int i = 0; i < edges; i++) {
        kcbp_vec3 a = p[i], b = p[(i + 1) % n];
        double sa = kcbp_v3_dot(m, kcbp_v3_sub(a, o)), sb = kcbp_v3_dot(m, kcbp_v3_sub(b, o));
        if (sa >= 0 && k < KCBP_CLIP_MAX)
            q[k++] = a;
        if (((sa >= 0 && sb < 0) || (sa < 0 && sb >= 0)) && k < KCBP_CLIP_MAX) {
            double f = sa / (sa - sb);
            q[k++] = kcbp_v3_add(a, kcbp_v3_scale(kcbp_v3_sub(b, a), f));
        }
        if (n == 2 && sb >= 0 && k < KCBP_CLIP_MAX)
            q[k++] = b;
    }
    return k;
}

int kcbp_clip_feature(const kcbp_vec3 *inc, int ninc, const kcbp_vec3 *ref, int nref, kcbp_vec3 normal,
                      kcbp_vec3 out[KCBP_CLIP_MAX])
{
    kcbp_vec3 buf[KCBP_CLIP_MAX];
    int n = ninc < KCBP_CLIP_MAX ? ninc : KCBP_CLIP_MAX;
    memcpy(out, inc, (size_t)n * sizeof *out);
    if (nref == 2) {
        kcbp_vec3 e = kcbp_v3_sub(ref[1], ref[0]);
        n = clip_half(out, n, e, ref[0], buf);
        n = clip_half(buf, n, kcbp_v3_neg(e), ref[1], out);
        return n;
    }
    if (nref < 3)
        return n;
    kcbp_vec3 c = kcbp_v3(0, 0, 0);
    for (int i = 0; i < nref; i++)
        c = kcbp_v3_add(c, ref[i]);
    c = kcbp_v3_scale(c, 1.0 / nref);
    for (int i = 0; i < nref && n > 0; i++) {
        kcbp_vec3 a = ref[i], b = ref[(i + 1) % nref];
        kcbp_vec3 m = kcbp_v3_cross(kcbp_v3_sub(b, a), normal);
        if (kcbp_v3_dot(m, kcbp_v3_sub(c, a)) < 0)
            m = kcbp_v3_neg(m);
        n = clip_half(out, n, m, a, buf);
        memcpy(out, buf, (size_t)n * sizeof *out);
    }
    return n;
}
