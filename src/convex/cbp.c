/* k-CBP construction: directions, then the polytope of the supporting planes.
 *
 * Pipeline of kcbp_cbp_build:
 *  1. Work in coordinates centred on the bounds' centre (so offsets such as
 *     1e6 cost no precision in qhull or in the vertex solves).
 *  2. Find thin directions (principal axes along which the points are
 *     thinner than KCBP_CBP_THICKEN * scale) and thicken them: the work
 *     points are p ± t e along each thin axis e.
 *  3. Choose the directions (greedy / thesis from the hull of the work
 *     points' grid extremes, an approximate hull; fixed / kdop from tables).
 *  4. Offsets, from the input points in world coordinates:
 *       d = max_v fl(n·v) + t max_e |n·e| + push,
 *     so every input point satisfies every plane as evaluated in floating
 *     point, with margin push.
 *  5. Vertices: the planes' intersection through polar duality (the hull of
 *     the points n / (d - n·c) about an interior point c, qhull): each dual
 *     facet is a vertex, solved from its best-conditioned triple of planes.
 *     Unbounded (the origin not strictly inside the dual hull) is detected
 *     there. Faces are each plane's vertices in angular order.
 *  6. Check that every point is inside the vertices' hull (see cbp.h); if not,
 *     push 1000 times further and go back to 4. Without thickening this
 *     usually needs no second pass over the points: the maxima of step 4
 *     bound it up to a proven rounding margin (contains_points).
 * Steps 2-4 and 6 go over every point; the rest works on the hull of at
 * most 6 * 32^2 of them (bar the rare fallback in hull_dirs). */
#include <kcbp/cbp.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/support.h>

#include "cbp_internal.h"
#include "scan_bounds.h"
#include "hull.h"
#include "base/util.h"
#include "geom/linalg.h"

const char *kcbp_cbp_dirs_name(kcbp_cbp_dirs dirs)
{
    switch (dirs) {
    case KCBP_DIRS_GREEDY: return "greedy";
    case KCBP_DIRS_THESIS: return "thesis";
    case KCBP_DIRS_FIXED: return "fixed";
    case KCBP_DIRS_KDOP: return "kdop";
    case KCBP_DIRS_GIVEN: return "given";
    }
    return "unknown";
}

kcbp_status kcbp_cbp_dirs_parse(const char *name, kcbp_cbp_dirs *dirs, kcbp_error *err)
{
    static const kcbp_cbp_dirs all[] = {KCBP_DIRS_GREEDY, KCBP_DIRS_THESIS, KCBP_DIRS_FIXED, KCBP_DIRS_KDOP};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(name, kcbp_cbp_dirs_name(all[i]))) {
            *dirs = all[i];
            return KCBP_OK;
        }
    return kcbp_error_set(err, KCBP_ERR_INVALID, "unknown directions '%s' (greedy, thesis, fixed or kdop)",
                          name ? name : "(null)");
}

void kcbp_cbp_clear(kcbp_cbp *cbp)
{
    if (!cbp)
        return;
    free(cbp->planes);
    free(cbp->vertices);
    free(cbp->adj_start);
    free(cbp->adj);
    free(cbp->face_start);
    free(cbp->face_verts);
    memset(cbp, 0, sizeof *cbp);
}

/* ---- directions ---------------------------------------------------------- */

static void fibonacci_dirs(kcbp_vec3 *out, size_t k)
{
    const double golden = M_PI * (3.0 - sqrt(5.0));
    for (size_t i = 0; i < k; i++) {
        double z = 1.0 - (2.0 * (double)i + 1.0) / (double)k;
        double r = sqrt(fmax(0, 1.0 - z * z));
        double phi = golden * (double)i;
        out[i] = kcbp_v3(r * cos(phi), r * sin(phi), z);
    }
}

/* Axes (6), cube corners (8) and cube edges (12): the classic k-DOPs. */
static size_t kdop_dirs(kcbp_vec3 *out, size_t k)
{
    if (k != 6 && k != 14 && k != 18 && k != 26) {
        fibonacci_dirs(out, k);
        return k;
    }
    size_t n = 0;
    for (int a = 0; a < 3; a++)
        for (int s = -1; s <= 1; s += 2)
            out[n++] = kcbp_v3(a == 0 ? s : 0, a == 1 ? s : 0, a == 2 ? s : 0);
    if (k == 14 || k == 26)
        for (int x = -1; x <= 1; x += 2)
            for (int y = -1; y <= 1; y += 2)
                for (int z = -1; z <= 1; z += 2)
                    out[n++] = kcbp_v3_scale(kcbp_v3(x, y, z), 1 / sqrt(3.0));
    if (k == 18 || k == 26)
        for (int zero = 0; zero < 3; zero++)
            for (int s = -1; s <= 1; s += 2)
                for (int t = -1; t <= 1; t += 2) {
                    double c[3], u = 1 / sqrt(2.0);
                    c[zero] = 0;
                    c[(zero + 1) % 3] = s * u;
                    c[(zero + 2) % 3] = t * u;
                    out[n++] = kcbp_v3(c[0], c[1], c[2]);
                }
    return n;
}

typedef struct {
    double area;
    size_t index;
} area_index;

static int by_area_desc(const void *a, const void *b)
{
    double x = ((const area_index *)a)->area, y = ((const area_index *)b)->area;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The thesis' directions: the normals of the floor(0.1 k) largest hull faces
 * and an area-weighted spherical k-means (cosine similarity) of all the hull's
 * face normals for the rest, seeded deterministically by weighted
 * farthest-point selection. Returns how many directions it wrote. */
static kcbp_status thesis_dirs(const kcbp_hull *h, size_t k, kcbp_vec3 *out, size_t *nout, kcbp_error *err)
{
    size_t nf = h->nfacets, ntop = k / 10, nk = k - ntop;
    area_index *order = malloc(nf * sizeof *order);
    uint32_t *assign = malloc(nf * sizeof *assign);
    kcbp_vec3 *sum = malloc(nk * sizeof *sum);
    double *best = malloc(nf * sizeof *best);
    if (!order || !assign || !sum || !best) {
        free(order);
        free(assign);
        free(sum);
        free(best);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory choosing %zu directions", k);
    }
    size_t n = 0;
    for (size_t f = 0; f < nf; f++)
        order[f] = (area_index){h->area[f], f};
    qsort(order, nf, sizeof *order, by_area_desc);
    for (size_t t = 0; t < ntop && t < nf; t++)
        out[n++] = h->normal[order[t].index];
    if (nf <= nk) {
        for (size_t f = 0; f < nf; f++)
            out[n++] = h->normal[f];
    } else {
        kcbp_vec3 *centre = out + n;
        centre[0] = h->normal[order[0].index];
        for (size_t f = 0; f < nf; f++)
            best[f] = kcbp_v3_dot(h->normal[f], centre[0]);
        for (size_t c = 1; c < nk; c++) {
            size_t pick = 0;
            double score = -1;
            for (size_t f = 0; f < nf; f++) {
                double s = h->area[f] * (1.0 - best[f]) + 1e-300;
                if (s > score) {
                    score = s;
                    pick = f;
                }
            }
            centre[c] = h->normal[pick];
            for (size_t f = 0; f < nf; f++)
                best[f] = fmax(best[f], kcbp_v3_dot(h->normal[f], centre[c]));
        }
        for (int iter = 0; iter < 100; iter++) {
            bool changed = iter == 0;
            for (size_t f = 0; f < nf; f++) {
                uint32_t arg = 0;
                double bestdot = -2;
                for (size_t c = 0; c < nk; c++) {
                    double d = kcbp_v3_dot(h->normal[f], centre[c]);
                    if (d > bestdot) {
                        bestdot = d;
                        arg = (uint32_t)c;
                    }
                }
                changed |= assign[f] != arg;
                assign[f] = arg;
            }
            if (!changed)
                break;
            for (size_t c = 0; c < nk; c++)
                sum[c] = kcbp_v3(0, 0, 0);
            for (size_t f = 0; f < nf; f++)
                sum[assign[f]] = kcbp_v3_add(sum[assign[f]], kcbp_v3_scale(h->normal[f], h->area[f]));
            for (size_t c = 0; c < nk; c++) {
                double len = kcbp_v3_len(sum[c]);
                if (len > 0)
                    centre[c] = kcbp_v3_scale(sum[c], 1.0 / len);
            }
        }
        n += nk;
    }
    free(order);
    free(assign);
    free(sum);
    free(best);
    *nout = n;
    return KCBP_OK;
}


/* The passes over every point use these rather than fmax / fmin and
 * kcbp_v3_max_abs, which are calls to libm (the coordinates are finite, so
 * NaN, where they differ, never occurs). */
static inline double max2(double a, double b) { return b > a ? b : a; }
static inline double min2(double a, double b) { return b < a ? b : a; }
static inline double max_abs3(kcbp_vec3 a) { return max2(fabs(a.x), max2(fabs(a.y), fabs(a.z))); }

/* best[j] = the largest fl(n[j]·fl(p + shift)) over the np points, for
 * j < m. Four planes per pass over the points: the passes over every point
 * are most of a k-CBP's build for big meshes. */
static void max_dots(const kcbp_vec3 *n, size_t m, const kcbp_vec3 *pts, size_t np, kcbp_vec3 shift, double *best)
{
    for (size_t j = 0; j < m; j += 4) {
        size_t b = m - j < 4 ? m - j : 4;
        kcbp_vec3 n0 = n[j], n1 = n[j + (b > 1)], n2 = n[j + 2 * (b > 2)], n3 = n[j + 3 * (b > 3)];
        double m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
        for (size_t p = 0; p < np; p++) {
            kcbp_vec3 q = kcbp_v3_add(pts[p], shift);
            m0 = max2(m0, kcbp_v3_dot(n0, q));
            m1 = max2(m1, kcbp_v3_dot(n1, q));
            m2 = max2(m2, kcbp_v3_dot(n2, q));
            m3 = max2(m3, kcbp_v3_dot(n3, q));
        }
        double mm[4] = {m0, m1, m2, m3};
        for (size_t k = 0; k < b; k++)
            best[j + k] = mm[k];
    }
}

/* ---- the polytope of a set of planes ------------------------------------- */

typedef struct {
    const kcbp_vec3 *points; /* input, world coordinates */
    size_t npoints;
    kcbp_vec3 centre;        /* world position of the local origin */
    double scale, size;      /* size: half the bounds' diagonal (local extent) */
    kcbp_vec3 mean;          /* local mean of the points: an interior point */
    double thick;
    kcbp_vec3 thin[3];       /* thickened axes */
    int nthin;
    const kcbp_vec3 *check;  /* local points whose containment is verified */
    size_t ncheck;
} build_ctx;

typedef struct {
    size_t i;
    double key;
} sort_item;

static int by_key(const void *a, const void *b)
{
    double x = ((const sort_item *)a)->key, y = ((const sort_item *)b)->key;
    return x < y ? -1 : x > y ? 1 : 0;
}

static uint32_t uf_find(uint32_t *parent, uint32_t v)
{
    while (parent[v] != v)
        v = parent[v] = parent[parent[v]];
    return v;
}

/* The vertex adjacency, from the convex hull of the stored vertices
 * themselves, in world coordinates as stored (vert).
 *
 * Not from the faces' loops: each vertex is solved from its own triple of
 * planes, so where several near-coplanar planes meet (thickened flat input,
 * jittered boxes) the vertices form clusters a few 1e-6 of the size across
 * whose coordinates carry errors around 1e-12. The loops, ordered by angle
 * and linked by which planes each vertex lies on, describe the exact
 * polytope, not the stored points: an edge inside such a cluster can go
 * downhill in a direction where the stored points' own hull has an uphill
 * edge that the loops lack, and hill-climbing (support.h) stopped there,
 * 8e-7 of the size below the maximum (found by fuzzing).
 *
 * So the edges are those of qhull's hull of the vertices, in the coordinates
 * the climb reads (qhull then merges facets that are coplanar within its
 * roundoff, which is about what a dot product can resolve), and climbing on
 * a superset of a convex polytope's edge graph is exact. Refinements for
 * what floating point cannot resolve:
 *  - hubs: see below.
 *  - twins, vertices within twin_tol of each other, are made neighbours of
 *    each other and of each other's neighbours. Clusters of vertices form
 *    wherever several planes nearly meet (fixed directions all touching
 *    one corner of the mesh, thickened flat input). For directions nearly
 *    across an edge of length L a dot product cannot tell which end is
 *    higher (they tie, and the climb stops at a tie) and when the only way
 *    up leads over that edge the climb can end about rounding * size / L
 *    short: 4.5e-10 of the size for L = 6e-8 (found by fuzzing). With
 *    twin_tol about 1e-4 of the scale that stays near 1e-13; with the edges
 *    shared, a climb that reaches any twin sees all the group's ways up.
 *  - a vertex that is not on qhull's hull (inside the others' hull by
 *    rounding, or in the middle of a face within qhull's roundoff) and has
 *    no twin on it lists every hull vertex and is nobody's neighbour: from
 *    it, a climb scans the hull once and stays on the hull. Such vertices
 *    are rare (none in most polytopes; a few in a thousand of degenerate
 *    input). */
static kcbp_status hull_adjacency(const kcbp_vec3 *vert, uint32_t nv, double twin_tol, kcbp_cbp *out,
                                  kcbp_error *err)
{
    kcbp_hull h;
    kcbp_error herr;
    if (kcbp_hull_compute_edges(vert, nv, &h, &herr) != KCBP_OK)
        return kcbp_error_set(err, herr.code, "the convex hull of the polytope's %u vertices: %s", nv, herr.msg);
    size_t n1 = (size_t)nv + 1;
    uint32_t *tstart = calloc(n1, sizeof *tstart), *tadj = NULL; /* the hull's edges and hub links */
    uint32_t *pairs = NULL;
    uint32_t *parent = malloc(n1 * sizeof *parent), *first = malloc(n1 * sizeof *first);
    uint32_t *next = malloc(n1 * sizeof *next), *stamp = malloc(n1 * sizeof *stamp);
    uint32_t *start = calloc(n1, sizeof *start), *adj = NULL;
    bool *on_hull = calloc(n1, sizeof *on_hull);
    sort_item *items = malloc(n1 * sizeof *items);
    kcbp_status st = KCBP_OK;
    /* undirected pairs: the edges, and 3 per vertex of each facet */
    size_t cap = h.nedges + 3 * (size_t)h.facet_start[h.nfacets], np = 0;
    if (!tstart || !parent || !first || !next || !stamp || !start || !on_hull || !items || cap >= UINT32_MAX / 2 ||
        !(pairs = malloc((2 * cap + 1) * sizeof *pairs)) || !(tadj = malloc((2 * cap + 1) * sizeof *tadj))) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the edges of %u vertices", nv);
        goto done;
    }
    memcpy(pairs, h.edges, 2 * h.nedges * sizeof *pairs);
    np = h.nedges;
    /* Hubs: every vertex of a facet is linked to three of its vertices
     * spread over it (one farthest from the first, one farthest from that,
     * one farthest from the line through both). Without them, a vertex on
     * a nearly straight stretch of a facet's boundary (near-coplanar planes)
     * has only its two boundary neighbours in the facet, which can tie with
     * it in floating point while the facet rises inward. No line holds all
     * three hubs, so one of them always leads inward. */
    for (size_t f = 0; f < h.nfacets; f++) {
        const uint32_t *fv = h.facet_verts + h.facet_start[f];
        uint32_t c = h.facet_start[f + 1] - h.facet_start[f], hub[3] = {0, 0, 0};
        if (c <= 3)
            continue; /* a triangle: its sides are edges */
        for (int k = 0; k < 2; k++) {
            kcbp_vec3 from = vert[fv[k ? hub[0] : 0]];
            double best = -1;
            for (uint32_t i = 0; i < c; i++) {
                double dd = kcbp_v3_len(kcbp_v3_sub(vert[fv[i]], from));
                if (dd > best) {
                    best = dd;
                    hub[k] = i;
                }
            }
        }
        kcbp_vec3 axis = kcbp_v3_sub(vert[fv[hub[1]]], vert[fv[hub[0]]]);
        double best = -1;
        for (uint32_t i = 0; i < c; i++) {
            double dd = kcbp_v3_len(kcbp_v3_cross(axis, kcbp_v3_sub(vert[fv[i]], vert[fv[hub[0]]])));
            if (dd > best) {
                best = dd;
                hub[2] = i;
            }
        }
        for (uint32_t i = 0; i < c; i++)
            for (int k = 0; k < 3; k++) {
                pairs[2 * np] = fv[i];
                pairs[2 * np++ + 1] = fv[hub[k]];
            }
    }
    for (size_t e = 0; e < np; e++) {
        tstart[pairs[2 * e] + 1]++;
        tstart[pairs[2 * e + 1] + 1]++;
    }
    for (uint32_t v = 0; v < nv; v++)
        tstart[v + 1] += tstart[v];
    memcpy(next, tstart, n1 * sizeof *next); /* fill pointers, for now */
    for (size_t e = 0; e < np; e++) {
        tadj[next[pairs[2 * e]]++] = pairs[2 * e + 1];
        tadj[next[pairs[2 * e + 1]]++] = pairs[2 * e];
    }
    for (size_t i = 0; i < h.nverts; i++)
        on_hull[h.verts[i]] = true;

    /* Twins: union-find over pairs within twin_tol (sweep along x). */
    for (uint32_t v = 0; v < nv; v++) {
        parent[v] = v;
        items[v] = (sort_item){v, vert[v].x};
    }
    qsort(items, nv, sizeof *items, by_key);
    for (uint32_t a = 0; a < nv; a++)
        for (uint32_t b = a + 1; b < nv && items[b].key - items[a].key <= twin_tol; b++) {
            uint32_t va = (uint32_t)items[a].i, vb = (uint32_t)items[b].i;
            if (kcbp_v3_max_abs(kcbp_v3_sub(vert[va], vert[vb])) <= twin_tol) {
                uint32_t ra = uf_find(parent, va), rb = uf_find(parent, vb);
                if (ra != rb)
                    parent[ra] = rb;
            }
        }
    /* Groups as linked lists (first[root], next[member]); a group is on the
     * hull when a member is: on_hull[root] then says so. */
    for (uint32_t v = 0; v < nv; v++)
        first[v] = stamp[v] = UINT32_MAX;
    for (uint32_t v = nv; v-- > 0;) {
        uint32_t r = uf_find(parent, v);
        next[v] = first[r];
        first[r] = v;
        on_hull[r] |= on_hull[v];
    }
    /* Two passes, count then fill: each vertex's group's members and their
     * triangle neighbours, or every hull vertex for a group off the hull.
     * stamp[u] == v marks u as listed for v. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t v = 0; v < nv; v++) {
            uint32_t r = uf_find(parent, v), at = pass ? start[v] : 0, count = 0;
            stamp[v] = v;
            if (!on_hull[r]) {
                count = (uint32_t)h.nverts;
                for (size_t i = 0; pass && i < h.nverts; i++)
                    adj[at++] = h.verts[i];
            } else {
                for (uint32_t m = first[r]; m != UINT32_MAX; m = next[m])
                    for (uint32_t k = tstart[m]; k <= tstart[m + 1]; k++) {
                        uint32_t u = k < tstart[m + 1] ? tadj[k] : m; /* the member itself last */
                        if (stamp[u] == v)
                            continue;
                        stamp[u] = v;
                        if (pass)
                            adj[at++] = u;
                        count++;
                    }
            }
            if (!pass) {
                if ((size_t)start[v] + count >= UINT32_MAX) {
                    st = kcbp_error_set(err, KCBP_ERR_LIMIT, "too many edges for %u vertices", nv);
                    goto done;
                }
                start[v + 1] = start[v] + count;
            }
        }
        for (uint32_t v = 0; v < nv; v++)
            stamp[v] = UINT32_MAX;
        if (!pass && !(adj = malloc(((size_t)start[nv] + 1) * sizeof *adj))) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u edges", start[nv]);
            goto done;
        }
    }
    out->adj_start = start;
    out->adj = adj;
    start = adj = NULL;
done:
    kcbp_hull_free(&h);
    free(tstart);
    free(tadj);
    free(pairs);
    free(parent);
    free(first);
    free(next);
    free(stamp);
    free(start);
    free(adj);
    free(on_hull);
    free(items);
    return st;
}

/* The polytope's construction in steps, over the arrays they share. */
typedef struct {
    const build_ctx *bc;
    const kcbp_vec3 *nrm; /* m unit normals */
    size_t m;
    double *dw, *dl;      /* each plane's offset (world), and relative to bc->centre */
    kcbp_vec3 *dual;      /* each plane's dual point (polarity about bc->mean) */
    kcbp_hull h;          /* the hull of the dual points: its facets are the vertices */
    kcbp_vec3 *vl;        /* one vertex per dual facet, relative to bc->centre */
    sort_item *items;
    uint32_t *vmap;       /* dual facet -> merged vertex id */
    uint32_t *newid;      /* merged vertex id -> its representative dual facet */
    size_t nv;            /* merged vertices */
    double mtol;          /* the merge tolerance */
    uint32_t *pstart, *plist, *fill; /* planes -> vertices (CSR), each vertex once */
} poly_build;

static void poly_build_free(poly_build *pb)
{
    free(pb->dw);
    free(pb->dl);
    free(pb->dual);
    kcbp_hull_free(&pb->h);
    free(pb->vl);
    free(pb->items);
    free(pb->vmap);
    free(pb->newid);
    free(pb->pstart);
    free(pb->plist);
    free(pb->fill);
}

/* The planes' offsets (thickened and pushed out) and their dual points;
 * KCBP_ERR_GEOMETRY for a plane that does not hold bc->mean strictly. */
static kcbp_status poly_duals(poly_build *pb, const double *best, double push, kcbp_error *err)
{
    const build_ctx *bc = pb->bc;
    size_t m = pb->m;
    pb->dw = malloc(m * sizeof *pb->dw);
    pb->dl = malloc(m * sizeof *pb->dl);
    pb->dual = malloc(m * sizeof *pb->dual);
    if (!pb->dw || !pb->dl || !pb->dual)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu planes", m);
    for (size_t j = 0; j < m; j++) {
        kcbp_vec3 n = pb->nrm[j];
        double grow = 0;
        for (int t = 0; t < bc->nthin; t++)
            grow = fmax(grow, fabs(kcbp_v3_dot(n, bc->thin[t])));
        pb->dw[j] = best[j] + bc->thick * grow + push;
        pb->dl[j] = pb->dw[j] - kcbp_v3_dot(n, bc->centre);
        double slack = pb->dl[j] - kcbp_v3_dot(n, bc->mean);
        if (!(slack > 0) || !isfinite(pb->dw[j]))
            return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "degenerate plane %zu (slack %g)", j, slack);
        pb->dual[j] = kcbp_v3_scale(n, 1.0 / slack);
    }
    return KCBP_OK;
}

/* The hull of the dual points: bounded polytope when it holds the origin
 * strictly inside (every facet's offset positive), else *unbounded. */
static kcbp_status poly_dual_hull(poly_build *pb, bool *unbounded, kcbp_error *err)
{
    kcbp_error herr;
    if (kcbp_hull_compute(pb->dual, pb->m, &pb->h, &herr) != KCBP_OK) {
        if (kcbp_hull_failed_flat(&herr)) {
            *unbounded = true;
            return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "the directions leave the polytope unbounded");
        }
        if (err)
            *err = herr;
        return herr.code;
    }
    double qmax = 0;
    for (size_t j = 0; j < pb->m; j++)
        qmax = fmax(qmax, kcbp_v3_len(pb->dual[j]));
    for (size_t f = 0; f < pb->h.nfacets; f++)
        if (!(pb->h.offset[f] > 1e-9 * qmax)) {
            *unbounded = true;
            return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "the directions leave the polytope unbounded");
        }
    return KCBP_OK;
}

/* One vertex per dual facet, from its best-conditioned plane triple. */
static kcbp_status poly_vertices(poly_build *pb, kcbp_error *err)
{
    const build_ctx *bc = pb->bc;
    const kcbp_vec3 *nrm = pb->nrm;
    const kcbp_hull *h = &pb->h;
    size_t nv0 = h->nfacets;
    pb->vl = malloc(nv0 * sizeof *pb->vl);
    pb->vmap = malloc(nv0 * sizeof *pb->vmap);
    pb->items = malloc(nv0 * sizeof *pb->items);
    if (!pb->vl || !pb->vmap || !pb->items)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu vertices", nv0);
    for (size_t f = 0; f < nv0; f++) {
        const uint32_t *s = h->facet_verts + h->facet_start[f];
        size_t cnt = h->facet_start[f + 1] - h->facet_start[f], lim = cnt < 12 ? cnt : 12;
        KCBP_ASSERT(cnt >= 3); /* a facet of a 3D hull */
        double bestdet = -1;
        uint32_t t[3] = {s[0], s[1], s[2]};
        for (size_t a = 0; a < lim; a++)
            for (size_t b = a + 1; b < lim; b++)
                for (size_t c = b + 1; c < lim; c++) {
                    double d = fabs(kcbp_v3_det3(nrm[s[a]], nrm[s[b]], nrm[s[c]]));
                    if (d > bestdet) {
                        bestdet = d;
                        t[0] = s[a];
                        t[1] = s[b];
                        t[2] = s[c];
                    }
                }
        kcbp_vec3 na = nrm[t[0]], nb = nrm[t[1]], nc = nrm[t[2]];
        double det = kcbp_v3_det3(na, nb, nc);
        /* Solve relative to the interior point: smaller right-hand sides. */
        double ra = pb->dl[t[0]] - kcbp_v3_dot(na, bc->mean), rb = pb->dl[t[1]] - kcbp_v3_dot(nb, bc->mean),
               rc = pb->dl[t[2]] - kcbp_v3_dot(nc, bc->mean);
        kcbp_vec3 x = kcbp_v3_scale(kcbp_v3_cross(nb, nc), ra);
        x = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_cross(nc, na), rb));
        x = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_cross(na, nb), rc));
        x = kcbp_v3_add(bc->mean, kcbp_v3_scale(x, 1.0 / det));
        if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z))
            return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "a vertex of the polytope is not finite");
        pb->vl[f] = x;
        pb->items[f] = (sort_item){f, x.x};
    }
    return KCBP_OK;
}

/* Merges vertices closer than rounding (unmerged nearly coplanar dual
 * facets): vmap and newid. */
static kcbp_status poly_merge(poly_build *pb, kcbp_error *err)
{
    size_t nv0 = pb->h.nfacets;
    qsort(pb->items, nv0, sizeof *pb->items, by_key);
    pb->mtol = 1e-12 * pb->bc->scale + 1e-13 * pb->bc->size;
    pb->nv = 0;
    pb->newid = malloc(nv0 * sizeof *pb->newid);
    if (!pb->newid)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu vertices", nv0);
    for (size_t a = 0; a < nv0; a++)
        pb->vmap[a] = UINT32_MAX;
    for (size_t a = 0; a < nv0; a++) {
        size_t fa = pb->items[a].i;
        if (pb->vmap[fa] != UINT32_MAX)
            continue;
        pb->vmap[fa] = (uint32_t)pb->nv;
        pb->newid[pb->nv++] = (uint32_t)fa; /* representative */
        for (size_t b = a + 1; b < nv0 && pb->items[b].key - pb->items[a].key <= pb->mtol; b++) {
            size_t fb = pb->items[b].i;
            if (pb->vmap[fb] == UINT32_MAX && kcbp_v3_max_abs(kcbp_v3_sub(pb->vl[fa], pb->vl[fb])) <= pb->mtol)
                pb->vmap[fb] = pb->vmap[fa];
        }
    }
    return KCBP_OK;
}

/* Planes -> their merged vertices (CSR: pstart, plist, fill[j] the end of
 * plane j's list), each vertex once. */
static kcbp_status poly_plane_vertices(poly_build *pb, kcbp_error *err)
{
    const kcbp_hull *h = &pb->h;
    size_t m = pb->m, nv0 = h->nfacets;
    pb->pstart = calloc(m + 1, sizeof *pb->pstart);
    pb->plist = malloc((h->facet_start[nv0] + 1) * sizeof *pb->plist);
    pb->fill = malloc((m + 1) * sizeof *pb->fill);
    if (!pb->pstart || !pb->plist || !pb->fill)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu planes", m);
    for (size_t f = 0; f < nv0; f++)
        for (uint32_t a = h->facet_start[f]; a < h->facet_start[f + 1]; a++)
            pb->pstart[h->facet_verts[a] + 1]++;
    for (size_t j = 0; j < m; j++)
        pb->pstart[j + 1] += pb->pstart[j];
    memcpy(pb->fill, pb->pstart, (m + 1) * sizeof *pb->fill);
    for (size_t f = 0; f < nv0; f++)
        for (uint32_t a = h->facet_start[f]; a < h->facet_start[f + 1]; a++) {
            uint32_t j = h->facet_verts[a], id = pb->vmap[f];
            bool seen = false;
            for (uint32_t q = pb->pstart[j]; q < pb->fill[j] && !seen; q++)
                seen = pb->plist[q] == id;
            if (!seen)
                pb->plist[pb->fill[j]++] = id;
        }
    return KCBP_OK;
}

/* The faces: planes with 3 or more distinct vertices, each vertex loop in
 * angular order about the plane's normal (counter-clockwise seen from
 * outside), and the volume; face_plane[f]: face f's plane. */
static kcbp_status poly_faces(poly_build *pb, double push, kcbp_cbp *out, uint32_t *face_plane, kcbp_error *err)
{
    const build_ctx *bc = pb->bc;
    size_t m = pb->m, nv = pb->nv;
    size_t nfaces = 0, nfv = 0;
    for (size_t j = 0; j < m; j++)
        if (pb->fill[j] - pb->pstart[j] >= 3) {
            nfaces++;
            nfv += pb->fill[j] - pb->pstart[j];
        }
    out->planes = malloc((nfaces ? nfaces : 1) * sizeof *out->planes);
    out->face_start = malloc((nfaces + 1) * sizeof *out->face_start);
    out->face_verts = malloc((nfv ? nfv : 1) * sizeof *out->face_verts);
    out->vertices = malloc((nv ? nv : 1) * sizeof *out->vertices);
    sort_item *loop = malloc((m + nv + 1) * sizeof *loop);
    if (!out->planes || !out->face_start || !out->face_verts || !out->vertices || !loop) {
        free(loop);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a polytope of %zu faces", nfaces);
    }
    const kcbp_vec3 *vl = pb->vl;
    const uint32_t *newid = pb->newid, *plist = pb->plist;
    for (size_t v = 0; v < nv; v++)
        out->vertices[v] = kcbp_v3_add(vl[newid[v]], bc->centre);
    size_t fi = 0, at = 0;
    double vol = 0;
    for (size_t j = 0; j < m; j++) {
        size_t cnt = pb->fill[j] - pb->pstart[j];
        if (cnt < 3)
            continue;
        kcbp_vec3 n = pb->nrm[j], mid = kcbp_v3(0, 0, 0);
        for (size_t q = 0; q < cnt; q++)
            mid = kcbp_v3_add(mid, vl[newid[plist[pb->pstart[j] + q]]]);
        mid = kcbp_v3_scale(mid, 1.0 / (double)cnt);
        kcbp_vec3 u = kcbp_v3_cross(n, fabs(n.x) < 0.6 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0));
        u = kcbp_v3_scale(u, 1.0 / kcbp_v3_len(u));
        kcbp_vec3 w = kcbp_v3_cross(n, u);
        for (size_t q = 0; q < cnt; q++) {
            uint32_t id = plist[pb->pstart[j] + q];
            kcbp_vec3 r = kcbp_v3_sub(vl[newid[id]], mid);
            loop[q] = (sort_item){id, atan2(kcbp_v3_dot(r, w), kcbp_v3_dot(r, u))};
        }
        qsort(loop, cnt, sizeof *loop, by_key);
        face_plane[fi] = (uint32_t)j;
        out->planes[fi].n = n;
        out->planes[fi].d = pb->dw[j];
        out->face_start[fi] = (uint32_t)at;
        for (size_t q = 0; q < cnt; q++) {
            uint32_t a = (uint32_t)loop[q].i, b = (uint32_t)loop[(q + 1) % cnt].i;
            out->face_verts[at++] = a;
            if (q >= 1 && q + 1 < cnt) {
                kcbp_vec3 p0 = kcbp_v3_sub(vl[newid[loop[0].i]], bc->mean);
                kcbp_vec3 p1 = kcbp_v3_sub(vl[newid[a]], bc->mean), p2 = kcbp_v3_sub(vl[newid[b]], bc->mean);
                vol += kcbp_v3_det3(p0, p1, p2) / 6;
            }
        }
        fi++;
    }
    out->face_start[fi] = (uint32_t)at;
    free(loop);
    out->nplanes = (uint32_t)nfaces;
    out->nvertices = (uint32_t)nv;
    out->volume = vol;
    out->push = push;
    out->thickness = bc->nthin ? bc->thick : 0;
    if (nfaces < 4 || !(vol > 0) || !isfinite(vol))
        return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "degenerate polytope (%zu faces, volume %g)", nfaces, vol);
    return KCBP_OK;
}

#ifdef KCBP_ENABLE_ASSERTS
/* The structure of a built polytope (cbp.h): at least 4 faces on unit
 * normals, each face a loop of 3 or more distinct vertices, the vertices
 * finite, a positive volume. (Its guarantees about the input points are
 * checked when building, by contains_points, not here: a vertex solved from
 * three planes of a face with more lies on the others only up to the
 * conditioning of the triple, which is why the vertices, not the planes,
 * are the authoritative shape.) */
static void check_polytope(const kcbp_cbp *c)
{
    KCBP_ASSERT(c->nplanes >= 4 && c->nvertices >= 4 && c->volume > 0);
    for (uint32_t f = 0; f < c->nplanes; f++) {
        KCBP_ASSERT(fabs(kcbp_v3_len(c->planes[f].n) - 1) <= 1e-12);
        KCBP_ASSERT(c->face_start[f + 1] >= c->face_start[f] + 3);
        for (uint32_t a = c->face_start[f]; a < c->face_start[f + 1]; a++) {
            KCBP_ASSERT(c->face_verts[a] < c->nvertices);
            for (uint32_t b = c->face_start[f]; b < a; b++)
                KCBP_ASSERT(c->face_verts[b] != c->face_verts[a]);
        }
    }
    for (uint32_t v = 0; v < c->nvertices; v++)
        KCBP_ASSERT(kcbp_v3_is_finite(c->vertices[v]));
}
#endif

/* Builds out from m unit normals and push. Returns KCBP_ERR_GEOMETRY with
 * *unbounded set when the planes do not bound a polytope. The steps above,
 * in turn: the dual points, their hull, the vertices, merged, each plane's
 * vertices, the faces, the adjacency. */
static kcbp_status polytope(const build_ctx *bc, const kcbp_vec3 *nrm, const double *best, size_t m, double push,
                            kcbp_cbp *out, uint32_t *face_plane, bool *unbounded, kcbp_error *err)
{
    *unbounded = false;
    memset(out, 0, sizeof *out);
    poly_build pb;
    memset(&pb, 0, sizeof pb);
    pb.bc = bc;
    pb.nrm = nrm;
    pb.m = m;
    kcbp_status st = poly_duals(&pb, best, push, err);
    if (st == KCBP_OK)
        st = poly_dual_hull(&pb, unbounded, err);
    if (st == KCBP_OK)
        st = poly_vertices(&pb, err);
    if (st == KCBP_OK)
        st = poly_merge(&pb, err);
    if (st == KCBP_OK)
        st = poly_plane_vertices(&pb, err);
    if (st == KCBP_OK)
        st = poly_faces(&pb, push, out, face_plane, err);
    /* twins: within 1e8 times the merge tolerance, about 1e-4 of the
     * scale (see hull_adjacency) */
    if (st == KCBP_OK)
        st = hull_adjacency(out->vertices, (uint32_t)pb.nv, 1e8 * pb.mtol, out, err);
#ifdef KCBP_ENABLE_ASSERTS
    if (st == KCBP_OK)
        check_polytope(out);
#endif
    poly_build_free(&pb);
    if (st != KCBP_OK)
        kcbp_cbp_clear(out);
    return st;
}

/* Is every checked point inside the hull of the vertices? (cbp.h) best[j]:
 * the largest fl(n_j·p) over the input points p; face f is on plane
 * face_plane[f]. */
static bool contains_points(const build_ctx *bc, const kcbp_cbp *c, const double *best, const uint32_t *face_plane)
{
    /* Without thickening the checked points are q = fl(fl(p - centre) +
     * centre), within 3u scale of p in each coordinate (u = DBL_EPSILON / 2,
     * scale bounds every |p|, |centre| and |p - centre|), so fl(n·q) is
     * within 5.2u scale (|n|_1 <= sqrt 3) + twice the dot product's rounding,
     * 5.2u scale each, of fl(n·p) <= best: under 16u scale in all. When every
     * face's vertices clear best by 32u scale (they sit about the push,
     * 1e-12 scale, above it), every point is inside without looking at it. */
    bool quick = bc->nthin == 0;
    double margin = 16 * DBL_EPSILON * bc->scale;
    for (uint32_t f = 0; quick && f < c->nplanes; f++)
        for (uint32_t a = c->face_start[f]; a < c->face_start[f + 1]; a++)
            quick &= best[face_plane[f]] + margin <= kcbp_v3_dot(c->planes[f].n, c->vertices[c->face_verts[a]]);
    if (quick)
        return true;
    size_t m = c->nplanes;
    double *top = malloc(m * sizeof *top);
    kcbp_vec3 *n = malloc(m * sizeof *n);
    bool inside = top && n;
    for (size_t f = 0; inside && f < m; f++)
        n[f] = c->planes[f].n;
    if (inside)
        max_dots(n, m, bc->check, bc->ncheck, bc->centre, top);
    for (uint32_t f = 0; inside && f < c->nplanes; f++)
        for (uint32_t a = c->face_start[f]; a < c->face_start[f + 1]; a++)
            inside &= top[f] <= kcbp_v3_dot(n[f], c->vertices[c->face_verts[a]]);
    free(top);
    free(n);
    return inside; /* false too when out of memory: the caller fails in the end */
}

/* ---- the approximate hull ------------------------------------------------ */

/* The points that are extreme along one axis within a cell of a g x g grid
 * over the other two axes, for each of the three axes: the k-CBP thesis's
 * approximate hull (anchors.md §1; it used 10 x 10). O(n) for at most 6 g^2
 * points. The directions are chosen on the hull of these points, then the
 * offsets are taken over all the points (step 4), so containment never
 * depends on the approximation, only the choice of directions does.
 *
 * Why not the exact hull: its cost is unbounded. qhull merges coplanar
 * facets in time quadratic in the points of a face, so a finely tessellated
 * cylinder cap or flat polygon of 20,000 vertices took 100 s (10^6: hours),
 * and the greedy's cost grows with the hull's faces (133 ms for the Stanford
 * bunny's). At g = 32 the grid keeps the directions the exact hull gives to
 * within 0.1-0.6 points of hit rate on the bundled meshes (`kcbp bench`) and
 * builds the Stanford bunny's 16-CBP 4-5 times faster. */
#define KCBP_CBP_GRID 32
/* Up to this many points, the hull is of all of them: cheap, and exact. */
#define KCBP_CBP_GRID_MIN_POINTS 1024

/* Point i, with coordinate x along the axis, into cell pair c's extremes. */
static inline void grid_update(uint32_t *cell, double *val, size_t c, uint32_t i, double x)
{
    if (cell[c] == UINT32_MAX || x < val[c]) {
        cell[c] = i;
        val[c] = x;
    }
    if (cell[c + 1] == UINT32_MAX || x > val[c + 1]) {
        cell[c + 1] = i;
        val[c + 1] = x;
    }
}

/* Marks (keep[i] = 1) the grid's extreme points of pts; keep is zeroed by
 * the caller. One pass over the points for all three axes: a point's cell
 * along each coordinate is computed once. */
static void grid_extremes(const kcbp_vec3 *pts, size_t n, int g, uint32_t *cell, double *val, unsigned char *keep)
{
    kcbp_vec3 lo = pts[0], hi = pts[0];
    for (size_t i = 0; i < n; i++) {
        lo = kcbp_v3_min(lo, pts[i]);
        hi = kcbp_v3_max(hi, pts[i]);
    }
    double l[3] = {lo.x, lo.y, lo.z}, w[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}, sc[3];
    bool divide = false; /* an extent so small that g / w overflows */
    for (int a = 0; a < 3; a++) {
        sc[a] = w[a] > 0 ? g / w[a] : 0;
        divide |= !isfinite(sc[a]);
    }
    size_t ncells = (size_t)g * (size_t)g;
    /* cell[(a * ncells + c) * 2] / [... + 1]: the lowest / highest point of
     * cell c along axis a (over the other two), val its coordinate a */
    for (size_t c = 0; c < 6 * ncells; c++)
        cell[c] = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        const double *p = &pts[i].x;
        size_t k[3];
        for (int a = 0; a < 3; a++) {
            int c = divide ? (w[a] > 0 ? (int)((p[a] - l[a]) / w[a] * g) : 0) : (int)((p[a] - l[a]) * sc[a]);
            k[a] = (size_t)(c < g ? c : g - 1);
        }
        size_t gg = (size_t)g;
        grid_update(cell, val, 2 * (k[1] * gg + k[2]), (uint32_t)i, p[0]);
        grid_update(cell, val, 2 * (ncells + k[2] * gg + k[0]), (uint32_t)i, p[1]);
        grid_update(cell, val, 2 * (2 * ncells + k[0] * gg + k[1]), (uint32_t)i, p[2]);
    }
    for (size_t c = 0; c < 6 * ncells; c++)
        if (cell[c] != UINT32_MAX)
            keep[cell[c]] = 1;
}

/* ---- the build ----------------------------------------------------------- */

kcbp_status kcbp_hull_volume(const kcbp_vec3 *points, size_t npoints, double *volume, kcbp_error *err)
{
    *volume = 0;
    if (!points || npoints == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "no points");
    kcbp_vec3 lo = points[0], hi = points[0];
    for (size_t i = 0; i < npoints; i++) {
        if (!isfinite(points[i].x) || !isfinite(points[i].y) || !isfinite(points[i].z))
            return kcbp_error_set(err, KCBP_ERR_INVALID, "point %zu has a non-finite coordinate", i);
        lo = kcbp_v3_min(lo, points[i]);
        hi = kcbp_v3_max(hi, points[i]);
    }
    kcbp_vec3 c = kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5);
    kcbp_vec3 *local = malloc(npoints * sizeof *local);
    if (!local)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu points", npoints);
    for (size_t i = 0; i < npoints; i++)
        local[i] = kcbp_v3_sub(points[i], c);
    kcbp_hull h;
    kcbp_error herr;
    kcbp_status st = kcbp_hull_compute(local, npoints, &h, &herr);
    free(local);
    if (st == KCBP_OK) {
        *volume = h.volume;
        kcbp_hull_free(&h);
    } else if (kcbp_hull_failed_flat(&herr)) {
        st = KCBP_OK; /* flat: volume 0 */
    } else if (err) {
        *err = herr;
    }
    return st;
}

/* Steps 1-2: checks the points and fills bc; *work (malloc'ed, *nwork
 * points) are the local points, thickened along thin axes. */
static kcbp_status prepare(const kcbp_vec3 *points, size_t npoints, build_ctx *bc, kcbp_vec3 **work, size_t *nwork,
                           kcbp_error *err)
{
    memset(bc, 0, sizeof *bc);
    *work = NULL;
    *nwork = 0;
    if (!points || npoints == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "no points to bound");
    if (npoints > (size_t)INT32_MAX / 8)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "too many points (%zu)", npoints);
    bc->points = points;
    bc->npoints = npoints;
    kcbp_vec3 lo = points[0], hi = points[0];
    for (size_t i = 0; i < npoints; i++) {
        if (!isfinite(points[i].x) || !isfinite(points[i].y) || !isfinite(points[i].z))
            return kcbp_error_set(err, KCBP_ERR_INVALID, "point %zu has a non-finite coordinate", i);
        lo = kcbp_v3_min(lo, points[i]);
        hi = kcbp_v3_max(hi, points[i]);
    }
    bc->centre = kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5);
    double diag = kcbp_v3_len(kcbp_v3_sub(hi, lo));
    bc->scale = fmax(diag, fmax(kcbp_v3_max_abs(lo), kcbp_v3_max_abs(hi)));
    bc->thick = bc->scale > 0 ? KCBP_CBP_THICKEN * bc->scale : KCBP_CBP_THICKEN;

    /* Local points, their mean and principal axes; thin axes get thickened. */
    kcbp_vec3 *local = malloc(npoints * sizeof *local);
    if (!local)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu points", npoints);
    kcbp_vec3 mean = kcbp_v3(0, 0, 0);
    double size = 0; /* the largest local coordinate, if nothing is thickened */
    for (size_t i = 0; i < npoints; i++) {
        local[i] = kcbp_v3_sub(points[i], bc->centre);
        mean = kcbp_v3_add(mean, local[i]);
        size = max2(size, max_abs3(local[i]));
    }
    mean = kcbp_v3_scale(mean, 1.0 / (double)npoints);
    bc->mean = mean;
    double cov[3][3] = {{0}}, axes[3][3];
    for (size_t i = 0; i < npoints; i++) {
        double r[3] = {local[i].x - mean.x, local[i].y - mean.y, local[i].z - mean.z};
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++)
                cov[a][b] += r[a] * r[b];
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < a; b++)
            cov[a][b] = cov[b][a];
    kcbp_sym3_eigenvectors(cov, axes);
    kcbp_vec3 e[3];
    double mn[3], mx[3];
    for (int a = 0; a < 3; a++) {
        e[a] = kcbp_v3(axes[0][a], axes[1][a], axes[2][a]);
        mn[a] = INFINITY;
        mx[a] = -INFINITY;
    }
    for (size_t i = 0; i < npoints; i++)
        for (int a = 0; a < 3; a++) {
            double t = kcbp_v3_dot(e[a], local[i]);
            mn[a] = min2(mn[a], t);
            mx[a] = max2(mx[a], t);
        }
    for (int a = 0; a < 3; a++)
        if (mx[a] - mn[a] <= bc->thick)
            bc->thin[bc->nthin++] = e[a];
    size_t mult = bc->nthin == 0 ? 1 : bc->nthin == 3 ? 6 : 2 * (size_t)bc->nthin;
    kcbp_vec3 *w = local;
    size_t nw = npoints;
    if (bc->nthin) {
        w = malloc(npoints * mult * sizeof *w);
        if (!w) {
            free(local);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu points", npoints);
        }
        nw = 0;
        for (size_t i = 0; i < npoints; i++)
            for (int t = 0; t < bc->nthin; t++)
                for (int sgn = -1; sgn <= 1; sgn += 2)
                    w[nw++] = kcbp_v3_add(local[i], kcbp_v3_scale(bc->thin[t], sgn * bc->thick));
        free(local);
    }
    if (bc->nthin) {
        size = 0;
        for (size_t i = 0; i < nw; i++)
            size = max2(size, max_abs3(w[i]));
    }
    bc->size = size;
    bc->check = w;
    bc->ncheck = nw;
    *work = w;
    *nwork = nw;
    return KCBP_OK;
}

/* Step 3 for greedy and thesis: the directions from the hull of the work
 * points' grid extremes. On success *nrm (malloc'ed) holds *ndirs of them,
 * with room for the six axes polytope_of_dirs may add. */
static kcbp_status hull_dirs(const build_ctx *bc, const kcbp_vec3 *work, size_t nwork, int k, kcbp_cbp_dirs dirs,
                             kcbp_vec3 **nrm, size_t *ndirs, kcbp_error *err)
{
    uint32_t *cell = NULL;
    double *val = NULL;
    unsigned char *keep = NULL;
    kcbp_vec3 *pts = NULL;
    kcbp_hull hull;
    memset(&hull, 0, sizeof hull);
    kcbp_status st = KCBP_OK;
    /* hp: the points the hull is of. Few points are taken whole. The grid
     * can drop a hull vertex that lies between others in its cells along
     * all three axes, so its points can even be flat when the input is not
     * (found by fuzzing: three of a thin tetrahedron's four vertices); the
     * whole set, thickened where thin, always spans 3D. */
    const kcbp_vec3 *hp = work;
    size_t nhp = nwork;
    if (nwork > KCBP_CBP_GRID_MIN_POINTS) {
        size_t room = 6 * (size_t)KCBP_CBP_GRID * KCBP_CBP_GRID, nsel = 0; /* 3 axes, 2 ends */
        cell = malloc(room * sizeof *cell);
        val = malloc(room * sizeof *val);
        keep = calloc(nwork, 1);
        pts = malloc(room * sizeof *pts);
        if (!cell || !val || !keep || !pts) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the approximate hull");
            goto done;
        }
        grid_extremes(work, nwork, KCBP_CBP_GRID, cell, val, keep);
        for (size_t i = 0; i < nwork; i++)
            if (keep[i])
                pts[nsel++] = work[i];
        hp = pts;
        nhp = nsel;
    }
    kcbp_error herr;
    st = kcbp_hull_compute(hp, nhp, &hull, &herr);
    if (st != KCBP_OK && hp == pts && kcbp_hull_failed_flat(&herr)) {
        hp = work;
        nhp = nwork;
        st = kcbp_hull_compute(hp, nhp, &hull, &herr);
    }
    if (st != KCBP_OK) {
        if (err)
            *err = herr;
        goto done;
    }
    size_t cap = (hull.nfacets > (size_t)k ? hull.nfacets : (size_t)k) + 6;
    if (!(*nrm = malloc(cap * sizeof **nrm))) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu directions", cap);
        goto done;
    }
    if (dirs == KCBP_DIRS_THESIS) {
        st = thesis_dirs(&hull, (size_t)k, *nrm, ndirs, err);
    } else {
        uint32_t *keep;
        double added;
        st = kcbp_greedy_select(&hull, hp, (size_t)k, bc->size, &keep, ndirs, &added, err);
        for (size_t j = 0; st == KCBP_OK && j < *ndirs; j++)
            (*nrm)[j] = hull.normal[keep[j]];
        if (st == KCBP_OK)
            free(keep);
    }
    if (st != KCBP_OK) {
        free(*nrm);
        *nrm = NULL;
    }
done:
    kcbp_hull_free(&hull);
    free(val);
    free(keep);
    free(cell);
    free(pts);
    return st;
}

/* Steps 4-6: the polytope of the planes with normals nrm[0..ndirs) (unit;
 * room for 6 more). Unbounded -> add the axes; inaccurate vertices -> push
 * further. */
static kcbp_status polytope_of_dirs(const build_ctx *bc, kcbp_vec3 *nrm, size_t ndirs, kcbp_cbp *out,
                                    kcbp_error *err)
{
    double push = KCBP_CBP_PUSH * (bc->scale > 0 ? bc->scale : 1);
    bool added_axes = false;
    /* best: each plane's largest fl(n·p) over the points (the offsets less
     * thickening and push); face_plane: each face's plane */
    double *best = malloc((ndirs + 6) * sizeof *best);
    uint32_t *face_plane = malloc((ndirs + 6) * sizeof *face_plane);
    if (!best || !face_plane) {
        free(best);
        free(face_plane);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu planes", ndirs);
    }
    max_dots(nrm, ndirs, bc->points, bc->npoints, kcbp_v3(0, 0, 0), best); /* + 0: exact */
    kcbp_status st;
    for (int attempt = 0;; attempt++) {
        bool unbounded;
        kcbp_error perr;
        st = polytope(bc, nrm, best, ndirs, push, out, face_plane, &unbounded, &perr);
        if (st != KCBP_OK && unbounded && !added_axes) {
            added_axes = true;
            size_t nax = kdop_dirs(nrm + ndirs, 6);
            max_dots(nrm + ndirs, nax, bc->points, bc->npoints, kcbp_v3(0, 0, 0), best + ndirs);
            ndirs += nax;
            continue;
        }
        if (st != KCBP_OK) {
            if (err)
                *err = perr;
            break;
        }
        if (contains_points(bc, out, best, face_plane))
            break;
        kcbp_cbp_clear(out);
        if (attempt >= 2) {
            st = kcbp_error_set(err, KCBP_ERR_GEOMETRY, "the polytope's vertices are too inaccurate to contain the points");
            break;
        }
        push *= 1000;
    }
    free(best);
    free(face_plane);
    return st;
}

kcbp_status kcbp_cbp_build_into(const kcbp_vec3 *points, size_t npoints, int k, kcbp_cbp_dirs dirs, kcbp_cbp *out,
                           kcbp_error *err)
{
    memset(out, 0, sizeof *out);
    if (k < KCBP_CBP_K_MIN || k > KCBP_CBP_K_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "k must be between %d and %d (got %d)", KCBP_CBP_K_MIN,
                              KCBP_CBP_K_MAX, k);
    if (dirs != KCBP_DIRS_GREEDY && dirs != KCBP_DIRS_THESIS && dirs != KCBP_DIRS_FIXED && dirs != KCBP_DIRS_KDOP)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "unknown direction mode %d", (int)dirs);
    build_ctx bc;
    kcbp_vec3 *work, *nrm = NULL;
    size_t nwork, ndirs = 0;
    kcbp_status st = prepare(points, npoints, &bc, &work, &nwork, err);
    if (st != KCBP_OK)
        return st;
    if (dirs == KCBP_DIRS_GREEDY || dirs == KCBP_DIRS_THESIS) {
        st = hull_dirs(&bc, work, nwork, k, dirs, &nrm, &ndirs, err);
    } else if (!(nrm = malloc(((size_t)k + 6) * sizeof *nrm))) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %d directions", k);
    } else if (dirs == KCBP_DIRS_FIXED) {
        fibonacci_dirs(nrm, (size_t)k);
        ndirs = (size_t)k;
    } else {
        ndirs = kdop_dirs(nrm, (size_t)k);
    }
    if (st == KCBP_OK)
        st = polytope_of_dirs(&bc, nrm, ndirs, out, err);
    if (st == KCBP_OK) {
        out->k = k;
        out->dirs = dirs;
    }
    free(nrm);
    free(work);
    return st;
}

kcbp_status kcbp_cbp_build_dirs_into(const kcbp_vec3 *points, size_t npoints, const kcbp_vec3 *dirs, size_t ndirs,
                                kcbp_cbp *out, kcbp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!dirs || ndirs == 0 || ndirs > KCBP_CBP_K_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "need 1 to %d directions (got %zu)", KCBP_CBP_K_MAX, ndirs);
    kcbp_vec3 *nrm = malloc((ndirs + 6) * sizeof *nrm);
    if (!nrm)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu directions", ndirs);
    for (size_t j = 0; j < ndirs; j++) {
        double len = kcbp_v3_len(dirs[j]);
        if (!(len > 0) || !isfinite(len)) {
            free(nrm);
            return kcbp_error_set(err, KCBP_ERR_INVALID, "direction %zu is zero or not finite", j);
        }
        nrm[j] = kcbp_v3_scale(dirs[j], 1 / len);
    }
    build_ctx bc;
    kcbp_vec3 *work;
    size_t nwork;
    kcbp_status st = prepare(points, npoints, &bc, &work, &nwork, err);
    if (st == KCBP_OK)
        st = polytope_of_dirs(&bc, nrm, ndirs, out, err);
    if (st == KCBP_OK) {
        out->k = (int)ndirs;
        out->dirs = KCBP_DIRS_GIVEN;
    }
    free(nrm);
    free(work);
    return st;
}

kcbp_status kcbp_cbp_write_obj(const kcbp_cbp *cbp, const kcbp_pose *pose, const char *path, kcbp_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot open for writing", path);
    kcbp_status st = kcbp_cbp_print_obj(cbp, pose, f, path, err);
    if (fclose(f) != 0 && st == KCBP_OK)
        st = kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return st;
}

kcbp_status kcbp_cbp_print_obj(const kcbp_cbp *cbp, const kcbp_pose *pose, FILE *f, const char *name,
                               kcbp_error *err)
{
    fprintf(f, "# k-CBP: %u planes, %u vertices, volume %.17g\n", cbp->nplanes, cbp->nvertices, cbp->volume);
    for (uint32_t i = 0; i < cbp->nvertices; i++) {
        kcbp_vec3 v = pose ? kcbp_pose_apply(pose, cbp->vertices[i]) : cbp->vertices[i];
        fprintf(f, "v %.17g %.17g %.17g\n", v.x, v.y, v.z);
    }
    for (uint32_t p = 0; p < cbp->nplanes; p++) {
        fputc('f', f);
        for (uint32_t a = cbp->face_start[p]; a < cbp->face_start[p + 1]; a++)
            fprintf(f, " %u", cbp->face_verts[a] + 1);
        fputc('\n', f);
    }
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot write: %s", name, errno ? strerror(errno) : "write error");
    return KCBP_OK;
}

/* ---- handles and accessors (include/kcbp/cbp.h) ------------------------ */

static kcbp_status to_handle(kcbp_status st, kcbp_cbp *built, kcbp_cbp **out, kcbp_error *err)
{
    if (st != KCBP_OK)
        return st;
    if (!(*out = malloc(sizeof **out))) {
        kcbp_cbp_clear(built);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a k-CBP");
    }
    **out = *built;
    return KCBP_OK;
}

kcbp_status kcbp_cbp_build(const kcbp_vec3 *points, size_t npoints, int k, kcbp_cbp_dirs dirs, kcbp_cbp **out,
                           kcbp_error *err)
{
    kcbp_cbp c;
    *out = NULL;
    return to_handle(kcbp_cbp_build_into(points, npoints, k, dirs, &c, err), &c, out, err);
}

kcbp_status kcbp_cbp_build_dirs(const kcbp_vec3 *points, size_t npoints, const kcbp_vec3 *dirs, size_t ndirs,
                                kcbp_cbp **out, kcbp_error *err)
{
    kcbp_cbp c;
    *out = NULL;
    return to_handle(kcbp_cbp_build_dirs_into(points, npoints, dirs, ndirs, &c, err), &c, out, err);
}

void kcbp_cbp_free(kcbp_cbp *cbp)
{
    kcbp_cbp_clear(cbp);
    free(cbp);
}

uint32_t kcbp_cbp_plane_count(const kcbp_cbp *cbp) { return cbp->nplanes; }
const kcbp_cbp_plane *kcbp_cbp_planes(const kcbp_cbp *cbp) { return cbp->planes; }
uint32_t kcbp_cbp_vertex_count(const kcbp_cbp *cbp) { return cbp->nvertices; }
const kcbp_vec3 *kcbp_cbp_vertices(const kcbp_cbp *cbp) { return cbp->vertices; }
double kcbp_cbp_volume(const kcbp_cbp *cbp) { return cbp->volume; }
int kcbp_cbp_k(const kcbp_cbp *cbp) { return cbp->k; }
kcbp_cbp_dirs kcbp_cbp_dirs_of(const kcbp_cbp *cbp) { return cbp->dirs; }
double kcbp_cbp_thickness(const kcbp_cbp *cbp) { return cbp->thickness; }
double kcbp_cbp_push(const kcbp_cbp *cbp) { return cbp->push; }

const uint32_t *kcbp_cbp_face(const kcbp_cbp *cbp, uint32_t f, uint32_t *n)
{
    if (f >= cbp->nplanes) {
        *n = 0;
        return NULL;
    }
    *n = cbp->face_start[f + 1] - cbp->face_start[f];
    return cbp->face_verts + cbp->face_start[f];
}

const uint32_t *kcbp_cbp_neighbours(const kcbp_cbp *cbp, uint32_t i, uint32_t *n)
{
    if (i >= cbp->nvertices || !cbp->adj_start) {
        *n = 0;
        return NULL;
    }
    *n = cbp->adj_start[i + 1] - cbp->adj_start[i];
    return cbp->adj + cbp->adj_start[i];
}

/* ---- the gap between two k-CBPs (cbp_internal.h) ----------------------- */

/* The gap between the two k-CBPs along the unit axis n (A's frame, from A
 * toward B), from every vertex of both: a positive gap along any axis is a
 * lower bound on their distance whatever produced the axis. It certifies
 * GJK's "apart" in the k-CBP stage (src/query/collide.c), so that an error of GJK on a sliver polytope (fuzzing found
 * two, since fixed in GJK itself: tests/test_gjk.c, test_regress_*) can only
 * make the stage pass a pair on to the exact test, never drop a touching
 * one. GJK now proves its own "apart"; this stays as a check independent of
 * it, at the price of one scan of the k-CBPs' vertices. */
double kcbp_cbp_gap(const kcbp_cbp *ca, const kcbp_cbp *cb, const kcbp_pose *b_in_a, kcbp_vec3 n)
{
    /* kcbp_support_max is bitwise the largest kcbp_v3_dot (same products,
     * same order; no index kept), and min(nb.v) = -max(-nb.v) exactly. */
    double max_a = kcbp_support_max(ca->vertices, ca->nvertices, n);
    kcbp_vec3 nb = kcbp_v3_neg(kcbp_mat3_tmul_v3(&b_in_a->rot, n));
    double min_b = -kcbp_support_max(cb->vertices, cb->nvertices, nb);
    return min_b + kcbp_v3_dot(n, b_in_a->trans) - max_a;
}
