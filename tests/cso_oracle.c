#include "cso_oracle.h"

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

/* Distance from the origin to triangle (a, b, c), written independently of
 * the library: project on the plane; if inside by edge tests that is it,
 * else the nearest of the three edges. */
static double seg_dist(kcbp_vec3 a, kcbp_vec3 b)
{
    kcbp_vec3 ab = kcbp_v3_sub(b, a);
    double l2 = kcbp_v3_len2(ab);
    double t = l2 > 0 ? -kcbp_v3_dot(a, ab) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return kcbp_v3_len(kcbp_v3_add(a, kcbp_v3_scale(ab, t)));
}
static double tri_dist(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c)
{
    kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(b, a), kcbp_v3_sub(c, a));
    double nn = kcbp_v3_len2(n);
    if (nn > 0) {
        kcbp_vec3 p = kcbp_v3_scale(n, kcbp_v3_dot(a, n) / nn);
        double s0 = kcbp_v3_dot(kcbp_v3_cross(kcbp_v3_sub(b, a), kcbp_v3_sub(p, a)), n);
        double s1 = kcbp_v3_dot(kcbp_v3_cross(kcbp_v3_sub(c, b), kcbp_v3_sub(p, b)), n);
        double s2 = kcbp_v3_dot(kcbp_v3_cross(kcbp_v3_sub(a, c), kcbp_v3_sub(p, c)), n);
        if (s0 >= 0 && s1 >= 0 && s2 >= 0)
            return kcbp_v3_len(p);
    }
    return fmin(seg_dist(a, b), fmin(seg_dist(b, c), seg_dist(c, a)));
}

static double angle_between(kcbp_vec3 a, kcbp_vec3 b)
{
    return atan2(kcbp_v3_len(kcbp_v3_cross(a, b)), kcbp_v3_dot(a, b));
}

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
    free(pts);
    return o;
}
