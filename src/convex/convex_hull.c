/* Convex hulls as GJK shapes (include/kcbp/convex_hull.h): qhull's hull,
 * each facet's vertices in angular order about its normal, and the fans of
 * the facets as the triangles whose edges the hill-climbing adjacency is
 * made of (kcbp_convex_adjacency). */
#include <kcbp/convex_hull.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hull.h"

struct kcbp_convex_hull {
    kcbp_vec3 *points; /* the hull's vertices (every input point when flat) */
    uint32_t npoints;
    uint32_t *adj_start, *adj; /* NULL when flat */
    kcbp_convex shape;
    double volume;
};


typedef struct {
    double angle;
    uint32_t v;
} angle_item;

static int by_angle(const void *x, const void *y)
{
    double a = ((const angle_item *)x)->angle, b = ((const angle_item *)y)->angle;
    return a < b ? -1 : a > b;
}

static kcbp_status build_hull(kcbp_convex_hull *out, const kcbp_vec3 *vertices, uint32_t nvertices, kcbp_error *err)
{
    kcbp_hull h;
    kcbp_error herr = {0};
    kcbp_status st = kcbp_hull_compute(vertices, nvertices, &h, &herr);
    if (st != KCBP_OK && kcbp_hull_failed_flat(&herr)) {
        /* Flat: no hull volume; GJK scans the vertices (their hull). */
        out->points = malloc((size_t)nvertices * sizeof *out->points);
        if (!out->points)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u points", nvertices);
        memcpy(out->points, vertices, (size_t)nvertices * sizeof *out->points);
        out->npoints = nvertices;
        out->shape = kcbp_convex_polytope(out->points, out->npoints, NULL, NULL, 0);
        out->volume = 0;
        return KCBP_OK;
    }
    if (st != KCBP_OK) {
        if (err)
            *err = herr;
        return st;
    }
    uint32_t *map = malloc((size_t)nvertices * sizeof *map);
    out->points = malloc(h.nverts * sizeof *out->points);
    size_t ntris = 0, maxf = 0;
    for (size_t f = 0; f < h.nfacets; f++) {
        size_t d = h.facet_start[f + 1] - h.facet_start[f];
        ntris += d - 2;
        maxf = d > maxf ? d : maxf;
    }
    uint32_t(*tris)[3] = malloc((ntris ? ntris : 1) * sizeof *tris);
    angle_item *loop = malloc((maxf ? maxf : 1) * sizeof *loop);
    if (!map || !out->points || !tris || !loop) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a convex hull of %zu vertices", h.nverts);
        goto done;
    }
    for (uint32_t i = 0; i < nvertices; i++)
        map[i] = UINT32_MAX;
    for (size_t i = 0; i < h.nverts; i++) {
        map[h.verts[i]] = (uint32_t)i;
        out->points[i] = vertices[h.verts[i]];
    }
    out->npoints = (uint32_t)h.nverts;
    /* Each facet's vertices in angular order about its normal, then a fan:
     * the loop's edges are the hull's edges (the fan's diagonals are extra
     * neighbours, which hill-climbing tolerates: a vertex no neighbour
     * improves on is still a maximum). */
    size_t nt = 0;
    for (size_t f = 0; f < h.nfacets; f++) {
        uint32_t s0 = h.facet_start[f], d = h.facet_start[f + 1] - s0;
        kcbp_vec3 n = h.normal[f], c = kcbp_v3(0, 0, 0);
        for (uint32_t i = 0; i < d; i++)
            c = kcbp_v3_add(c, vertices[h.facet_verts[s0 + i]]);
        c = kcbp_v3_scale(c, 1.0 / d);
        kcbp_vec3 u = fabs(n.x) < 0.9 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0);
        u = kcbp_v3_cross(n, u);
        u = kcbp_v3_scale(u, 1.0 / kcbp_v3_len(u));
        kcbp_vec3 w = kcbp_v3_cross(n, u);
        for (uint32_t i = 0; i < d; i++) {
            kcbp_vec3 r = kcbp_v3_sub(vertices[h.facet_verts[s0 + i]], c);
            loop[i].angle = atan2(kcbp_v3_dot(r, w), kcbp_v3_dot(r, u));
            loop[i].v = map[h.facet_verts[s0 + i]];
        }
        qsort(loop, d, sizeof *loop, by_angle);
        for (uint32_t i = 1; i + 1 < d; i++) {
            tris[nt][0] = loop[0].v;
            tris[nt][1] = loop[i].v;
            tris[nt][2] = loop[i + 1].v;
            nt++;
        }
    }
    st = kcbp_convex_adjacency(out->npoints, (const uint32_t(*)[3])tris, nt, &out->adj_start, &out->adj, err);
    if (st == KCBP_OK) {
        out->shape = kcbp_convex_polytope(out->points, out->npoints, out->adj_start, out->adj, 0);
        out->volume = h.volume;
    }
done:
    free(map);
    free(tris);
    free(loop);
    kcbp_hull_free(&h);
    return st;
}

kcbp_status kcbp_convex_hull_build(const kcbp_vec3 *points, size_t npoints, kcbp_convex_hull **out, kcbp_error *err)
{
    *out = NULL;
    if (npoints == 0 || npoints > UINT32_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "convex hull of %zu points", npoints);
    kcbp_convex_hull *h = calloc(1, sizeof *h);
    if (!h)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a convex hull");
    kcbp_status st = build_hull(h, points, (uint32_t)npoints, err);
    if (st != KCBP_OK) {
        kcbp_convex_hull_free(h);
        return st;
    }
    *out = h;
    return KCBP_OK;
}

void kcbp_convex_hull_free(kcbp_convex_hull *h)
{
    if (!h)
        return;
    free(h->points);
    free(h->adj_start);
    free(h->adj);
    free(h);
}

kcbp_convex kcbp_convex_hull_shape(const kcbp_convex_hull *h) { return h->shape; }
uint32_t kcbp_convex_hull_vertex_count(const kcbp_convex_hull *h) { return h->npoints; }
const kcbp_vec3 *kcbp_convex_hull_vertices(const kcbp_convex_hull *h) { return h->points; }
double kcbp_convex_hull_volume(const kcbp_convex_hull *h) { return h->volume; }
