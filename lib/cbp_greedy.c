/* Greedy successive plane removal (Melax; Jacobson 2026, "Progressive Convex
 * Hull Simplification").
 *
 * The polytope P is the intersection of the live planes, starting with the
 * convex hull's. Removing plane i grows P by the cap
 *     C_i = {x : n_i·x >= d_i, n_j·x <= d_j for every other live j}.
 * Its volume is the removal cost; a min-heap picks the cheapest removal.
 *
 * Exactness from local data. Every live plane has a face of positive area,
 * and removing a half-space only grows the others' faces, so no live plane
 * ever becomes redundant. In the polar dual (planes are points in convex
 * position) removing plane i removes a hull vertex, and the hole is covered
 * by facets whose vertices all lie on dual facets through i: in primal terms,
 * every new vertex of P lies on three planes that share a vertex with face i
 * (its "vertex neighbours" N(i)). So C_i is bounded by plane i and planes of
 * N(i) only, and
 *     C_i = {x : n_i·x >= d_i, n_j·x <= d_j for j in N(i)}
 * exactly, not just as an upper bound; if that region is unbounded, so is P
 * without plane i, and the cost is infinite. Using vertex neighbours (not
 * only the planes across face i's edges) matters: the hull's own vertices are
 * degenerate (5 or more planes meet there).
 *
 * Locality. The combinatorial structure is kept as vertices with the planes
 * through them, and each plane's list of vertices. Removing i deletes the
 * vertices of face i that lie on fewer than three live planes afterwards,
 * adds the cap's new vertices, and changes the neighbourhood (hence the cost)
 * of the planes of N(i) only: those are recomputed, other heap entries stay
 * valid (stale entries are skipped by a version stamp).
 *
 * Cost of one cap: the candidate new vertices are the intersections of
 * triples of N(i) beyond plane i and inside every plane of N(i); the cap is
 * the convex hull of them and of face i's vertices, and its volume is summed
 * face by face (pyramids from the cap's centroid). Unboundedness is found on
 * the normals alone: the recession cone {u : n_i·u >= 0, n_j·u <= 0} is
 * non-trivial iff one of its candidate extreme rays ±(n_a × n_b) lies in it.
 * Caps with more than MAX_NEIGHBOURS neighbours are not evaluated (infinite
 * cost: the plane is kept), which bounds the cost of the triple search.
 *
 * Tolerances: points within `tol` (1e-10 of the coordinates' size) of a plane
 * count as on it. Rounding can only make the neighbour sets too large or the
 * costs slightly off: it never affects containment, which holds for any
 * subset of the hull's planes, nor boundedness, which the caller checks again
 * on the final planes. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cbp_internal.h"

enum { MAX_NEIGHBOURS = 64 };

typedef struct {
    int32_t *a;
    int32_t n, cap;
} ivec;

static bool ivec_push(ivec *v, int32_t x)
{
    if (v->n == v->cap) {
        int32_t cap = v->cap ? 2 * v->cap : 4;
        int32_t *a = realloc(v->a, (size_t)cap * sizeof *a);
        if (!a)
            return false;
        v->a = a;
        v->cap = cap;
    }
    v->a[v->n++] = x;
    return true;
}

static void ivec_remove(ivec *v, int32_t x)
{
    for (int32_t i = 0; i < v->n; i++)
        if (v->a[i] == x) {
            v->a[i] = v->a[--v->n];
            return;
        }
}

static bool ivec_has(const ivec *v, int32_t x)
{
    for (int32_t i = 0; i < v->n; i++)
        if (v->a[i] == x)
            return true;
    return false;
}

typedef struct {
    kcbp_vec3 p;
    ivec planes; /* live planes through the vertex */
    bool alive;
} gvert;

typedef struct {
    double cost;
    int32_t plane;
    uint32_t version;
} hentry;

/* A new vertex of a cap: position and the planes of N(i) through it. */
typedef struct {
    kcbp_vec3 p;
    int32_t tri[3];
    int32_t pstart, pcount; /* into greedy.newpl */
} newvert;

typedef struct {
    size_t np;
    kcbp_vec3 *n;
    double *d;
    bool *alive;
    uint32_t *version;
    ivec *pverts; /* vertices of each plane's face */
    gvert *v;
    size_t nv, vcap;
    hentry *heap;
    size_t hn, hcap;
    uint32_t *stamp;
    uint32_t stampval;
    double tol;
    /* scratch for one cap */
    int32_t *nb;
    size_t nnb;
    newvert *nw;
    size_t nnw, nwcap;
    int32_t *newpl;
    size_t nnewpl, newplcap;
    kcbp_vec3 *poly;
    size_t polycap;
    double *ang;
} greedy;

static bool heap_push(greedy *g, double cost, int32_t plane)
{
    if (g->hn == g->hcap) {
        size_t cap = g->hcap ? 2 * g->hcap : 64;
        hentry *h = realloc(g->heap, cap * sizeof *h);
        if (!h)
            return false;
        g->heap = h;
        g->hcap = cap;
    }
    size_t i = g->hn++;
    hentry e = {cost, plane, g->version[plane]};
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (g->heap[parent].cost <= cost)
            break;
        g->heap[i] = g->heap[parent];
        i = parent;
    }
    g->heap[i] = e;
    return true;
}

static hentry heap_pop(greedy *g)
{
    hentry top = g->heap[0], last = g->heap[--g->hn];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= g->hn)
            break;
        if (c + 1 < g->hn && g->heap[c + 1].cost < g->heap[c].cost)
            c++;
        if (g->heap[c].cost >= last.cost)
            break;
        g->heap[i] = g->heap[c];
        i = c;
    }
    if (g->hn > 0)
        g->heap[i] = last;
    return top;
}

/* Is {u : a_r·u <= 0 for all r} more than {0}? (up to tol) */
static bool cone_nontrivial(const kcbp_vec3 *a, size_t m, double tol)
{
    bool any_pair = false;
    for (size_t p = 0; p < m; p++)
        for (size_t q = p + 1; q < m; q++) {
            kcbp_vec3 u = kcbp_v3_cross(a[p], a[q]);
            double len = kcbp_v3_len(u);
            if (len < 1e-9)
                continue;
            any_pair = true;
            u = kcbp_v3_scale(u, 1.0 / len);
            for (int sign = -1; sign <= 1; sign += 2) {
                bool inside = true;
                for (size_t r = 0; r < m && inside; r++)
                    inside = sign * kcbp_v3_dot(a[r], u) <= tol;
                if (inside)
                    return true;
            }
        }
    return !any_pair;
}

/* Area of the convex polygon through pts (unordered, roughly on a plane with
 * unit normal n). */
static double polygon_area(greedy *g, kcbp_vec3 *pts, size_t cnt, kcbp_vec3 n)
{
    if (cnt < 3)
        return 0;
    kcbp_vec3 m = kcbp_v3(0, 0, 0);
    for (size_t k = 0; k < cnt; k++)
        m = kcbp_v3_add(m, pts[k]);
    m = kcbp_v3_scale(m, 1.0 / (double)cnt);
    kcbp_vec3 u = fabs(n.x) < 0.6 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0);
    u = kcbp_v3_cross(n, u);
    u = kcbp_v3_scale(u, 1.0 / kcbp_v3_len(u));
    kcbp_vec3 w = kcbp_v3_cross(n, u);
    for (size_t k = 0; k < cnt; k++) {
        kcbp_vec3 r = kcbp_v3_sub(pts[k], m);
        g->ang[k] = atan2(kcbp_v3_dot(r, w), kcbp_v3_dot(r, u));
    }
    for (size_t k = 1; k < cnt; k++) { /* insertion sort: polygons are small */
        double a = g->ang[k];
        kcbp_vec3 p = pts[k];
        size_t j = k;
        for (; j > 0 && g->ang[j - 1] > a; j--) {
            g->ang[j] = g->ang[j - 1];
            pts[j] = pts[j - 1];
        }
        g->ang[j] = a;
        pts[j] = p;
    }
    double area = 0;
    for (size_t k = 0; k < cnt; k++) {
        kcbp_vec3 a = kcbp_v3_sub(pts[k], m), b = kcbp_v3_sub(pts[(k + 1) % cnt], m);
        area += kcbp_v3_dot(kcbp_v3_cross(a, b), n);
    }
    return 0.5 * fabs(area);
}

static bool scratch_reserve(greedy *g, size_t poly)
{
    if (poly > g->polycap) {
        size_t cap = poly * 2;
        kcbp_vec3 *p = realloc(g->poly, cap * sizeof *p);
        if (!p)
            return false;
        g->poly = p;
        double *a = realloc(g->ang, cap * sizeof *a);
        if (!a)
            return false;
        g->ang = a;
        g->polycap = cap;
    }
    return true;
}

static bool add_newvert(greedy *g, kcbp_vec3 x, int32_t a, int32_t b, int32_t c)
{
    double merge2 = 100 * g->tol * g->tol;
    for (size_t k = 0; k < g->nnw; k++)
        if (kcbp_v3_len2(kcbp_v3_sub(g->nw[k].p, x)) <= merge2)
            return true; /* the same vertex from another triple */
    if (g->nnw == g->nwcap) {
        size_t cap = g->nwcap ? 2 * g->nwcap : 16;
        newvert *nw = realloc(g->nw, cap * sizeof *nw);
        if (!nw)
            return false;
        g->nw = nw;
        g->nwcap = cap;
    }
    newvert *v = &g->nw[g->nnw++];
    v->p = x;
    v->tri[0] = a;
    v->tri[1] = b;
    v->tri[2] = c;
    v->pstart = v->pcount = 0;
    return true;
}

/* The cap of plane i: fills g->nb (N(i)) and g->nw (new vertices, with their
 * planes in g->newpl) and returns its volume, INFINITY if unbounded or too
 * complex, NAN on out of memory. */
static double cap_volume(greedy *g, int32_t i)
{
    g->nnb = 0;
    g->nnw = 0;
    g->nnewpl = 0;
    if (++g->stampval == 0) {
        memset(g->stamp, 0, g->np * sizeof *g->stamp);
        g->stampval = 1;
    }
    uint32_t s = g->stampval;
    g->stamp[i] = s;
    const ivec *face = &g->pverts[i];
    for (int32_t a = 0; a < face->n; a++) {
        const ivec *pl = &g->v[face->a[a]].planes;
        for (int32_t b = 0; b < pl->n; b++)
            if (g->stamp[pl->a[b]] != s) {
                g->stamp[pl->a[b]] = s;
                g->nb[g->nnb++] = pl->a[b];
            }
    }
    size_t m = g->nnb;
    if (m < 3 || m > MAX_NEIGHBOURS)
        return INFINITY;
    kcbp_vec3 nn[MAX_NEIGHBOURS + 1];
    double dd[MAX_NEIGHBOURS];
    for (size_t a = 0; a < m; a++) {
        nn[a] = g->n[g->nb[a]];
        dd[a] = g->d[g->nb[a]];
    }
    nn[m] = kcbp_v3_neg(g->n[i]);
    if (cone_nontrivial(nn, m + 1, 1e-10))
        return INFINITY;

    kcbp_vec3 ni = g->n[i];
    double di = g->d[i], tol = g->tol;
    for (size_t c = 2; c < m; c++)
        for (size_t b = 1; b < c; b++) {
            kcbp_vec3 bc = kcbp_v3_cross(nn[b], nn[c]);
            for (size_t a = 0; a < b; a++) {
                double det = kcbp_v3_dot(nn[a], bc);
                if (fabs(det) < 1e-10)
                    continue;
                kcbp_vec3 x = kcbp_v3_scale(bc, dd[a]);
                x = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_cross(nn[c], nn[a]), dd[b]));
                x = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_cross(nn[a], nn[b]), dd[c]));
                x = kcbp_v3_scale(x, 1.0 / det);
                if (kcbp_v3_dot(ni, x) - di <= tol)
                    continue; /* on face i: an existing vertex */
                bool inside = true;
                for (size_t r = 0; r < m && inside; r++)
                    inside = kcbp_v3_dot(nn[r], x) - dd[r] <= tol;
                if (inside && !add_newvert(g, x, (int32_t)a, (int32_t)b, (int32_t)c))
                    return NAN;
            }
        }
    /* Planes through each new vertex. */
    for (size_t k = 0; k < g->nnw; k++) {
        newvert *v = &g->nw[k];
        v->pstart = (int32_t)g->nnewpl;
        for (size_t r = 0; r < m; r++) {
            bool on = fabs(kcbp_v3_dot(nn[r], v->p) - dd[r]) <= tol || (int32_t)r == v->tri[0] ||
                      (int32_t)r == v->tri[1] || (int32_t)r == v->tri[2];
            if (!on)
                continue;
            if (g->nnewpl == g->newplcap) {
                size_t cap = g->newplcap ? 2 * g->newplcap : 64;
                int32_t *p = realloc(g->newpl, cap * sizeof *p);
                if (!p)
                    return NAN;
                g->newpl = p;
                g->newplcap = cap;
            }
            g->newpl[g->nnewpl++] = (int32_t)r; /* index into nb */
        }
        v->pcount = (int32_t)g->nnewpl - v->pstart;
    }
    if (g->nnw == 0)
        return 0; /* plane i is (weakly) redundant */

    if (!scratch_reserve(g, (size_t)face->n + g->nnw))
        return NAN;
    kcbp_vec3 centre = kcbp_v3(0, 0, 0);
    for (int32_t a = 0; a < face->n; a++)
        centre = kcbp_v3_add(centre, g->v[face->a[a]].p);
    for (size_t k = 0; k < g->nnw; k++)
        centre = kcbp_v3_add(centre, g->nw[k].p);
    centre = kcbp_v3_scale(centre, 1.0 / (double)((size_t)face->n + g->nnw));

    /* Base on plane i, then one face per neighbour plane. */
    for (int32_t a = 0; a < face->n; a++)
        g->poly[a] = g->v[face->a[a]].p;
    double vol = polygon_area(g, g->poly, (size_t)face->n, ni) * fmax(0, kcbp_v3_dot(ni, centre) - di) / 3;
    for (size_t r = 0; r < m; r++) {
        size_t cnt = 0;
        for (int32_t a = 0; a < face->n; a++)
            if (ivec_has(&g->v[face->a[a]].planes, g->nb[r]))
                g->poly[cnt++] = g->v[face->a[a]].p;
        for (size_t k = 0; k < g->nnw; k++) {
            const newvert *v = &g->nw[k];
            for (int32_t q = 0; q < v->pcount; q++)
                if (g->newpl[v->pstart + q] == (int32_t)r) {
                    g->poly[cnt++] = v->p;
                    break;
                }
        }
        if (cnt >= 3)
            vol += polygon_area(g, g->poly, cnt, nn[r]) * fmax(0, dd[r] - kcbp_v3_dot(nn[r], centre)) / 3;
    }
    return vol;
}

static int32_t add_vertex(greedy *g, kcbp_vec3 p)
{
    if (g->nv == g->vcap) {
        size_t cap = g->vcap ? 2 * g->vcap : 64;
        gvert *v = realloc(g->v, cap * sizeof *v);
        if (!v)
            return -1;
        g->v = v;
        g->vcap = cap;
    }
    gvert *v = &g->v[g->nv];
    memset(v, 0, sizeof *v);
    v->p = p;
    v->alive = true;
    return (int32_t)g->nv++;
}

/* Removes plane i (whose cap g->nb / g->nw hold) and updates the structure. */
static bool remove_plane(greedy *g, int32_t i)
{
    g->alive[i] = false;
    ivec *face = &g->pverts[i];
    for (int32_t a = 0; a < face->n; a++) {
        gvert *v = &g->v[face->a[a]];
        ivec_remove(&v->planes, i);
        if (v->planes.n < 3) {
            for (int32_t b = 0; b < v->planes.n; b++)
                ivec_remove(&g->pverts[v->planes.a[b]], face->a[a]);
            v->alive = false;
            free(v->planes.a);
            memset(&v->planes, 0, sizeof v->planes);
        }
    }
    free(face->a);
    memset(face, 0, sizeof *face);
    for (size_t k = 0; k < g->nnw; k++) {
        int32_t id = add_vertex(g, g->nw[k].p);
        if (id < 0)
            return false;
        const newvert *nv = &g->nw[k];
        for (int32_t q = 0; q < nv->pcount; q++) {
            int32_t plane = g->nb[g->newpl[nv->pstart + q]];
            if (!ivec_push(&g->v[id].planes, plane) || !ivec_push(&g->pverts[plane], id))
                return false;
        }
    }
    return true;
}

static void greedy_free(greedy *g)
{
    for (size_t j = 0; j < g->np; j++)
        free(g->pverts ? g->pverts[j].a : NULL);
    for (size_t v = 0; v < g->nv; v++)
        free(g->v[v].planes.a);
    free(g->n);
    free(g->d);
    free(g->alive);
    free(g->version);
    free(g->pverts);
    free(g->v);
    free(g->heap);
    free(g->stamp);
    free(g->nb);
    free(g->nw);
    free(g->newpl);
    free(g->poly);
    free(g->ang);
}

kcbp_status kcbp_greedy_select(const kcbp_hull *hull, const kcbp_vec3 *points, size_t k, double size,
                               uint32_t **keep, size_t *nkeep, double *added, kcbp_error *err)
{
    *keep = NULL;
    *nkeep = 0;
    *added = 0;
    greedy g;
    memset(&g, 0, sizeof g);
    size_t np = hull->nfacets;
    g.np = np;
    g.tol = 1e-10 * size;
    g.n = malloc((np + 1) * sizeof *g.n);
    g.d = malloc((np + 1) * sizeof *g.d);
    g.alive = malloc((np + 1) * sizeof *g.alive);
    g.version = calloc(np + 1, sizeof *g.version);
    g.pverts = calloc(np + 1, sizeof *g.pverts);
    g.stamp = calloc(np + 1, sizeof *g.stamp);
    g.nb = malloc((np + 1) * sizeof *g.nb);
    uint32_t maxid = 0;
    for (size_t v = 0; v < hull->nverts; v++)
        maxid = hull->verts[v] > maxid ? hull->verts[v] : maxid;
    int32_t *vid = malloc(((size_t)maxid + 1) * sizeof *vid);
    bool ok = g.n && g.d && g.alive && g.version && g.pverts && g.stamp && g.nb && vid;
    for (size_t v = 0; ok && v < hull->nverts; v++) {
        int32_t id = add_vertex(&g, points[hull->verts[v]]);
        ok = id >= 0;
        if (ok)
            vid[hull->verts[v]] = id;
    }
    for (size_t f = 0; ok && f < np; f++) {
        g.n[f] = hull->normal[f];
        g.d[f] = hull->offset[f];
        g.alive[f] = true;
        for (uint32_t a = hull->facet_start[f]; ok && a < hull->facet_start[f + 1]; a++) {
            int32_t id = vid[hull->facet_verts[a]];
            ok = ivec_push(&g.pverts[f], id) && ivec_push(&g.v[id].planes, (int32_t)f);
        }
    }
    free(vid);
    for (size_t f = 0; ok && f < np && np > k; f++) {
        double c = cap_volume(&g, (int32_t)f);
        ok = !isnan(c) && heap_push(&g, c, (int32_t)f);
    }
    size_t live = np;
    int32_t *dirty = malloc((MAX_NEIGHBOURS + np + 1) * sizeof *dirty);
    ok = ok && dirty;
    while (ok && live > k && g.hn > 0) {
        hentry e = heap_pop(&g);
        if (!g.alive[e.plane] || e.version != g.version[e.plane])
            continue;
        if (isinf(e.cost))
            break; /* every remaining removal leaves P unbounded */
        double c = cap_volume(&g, e.plane);
        if (isnan(c) || !remove_plane(&g, e.plane)) {
            ok = false;
            break;
        }
        *added += c;
        live--;
        size_t nd = g.nnb;
        memcpy(dirty, g.nb, nd * sizeof *dirty);
        for (size_t a = 0; ok && a < nd; a++) {
            int32_t j = dirty[a];
            if (!g.alive[j])
                continue;
            g.version[j]++;
            double cj = cap_volume(&g, j);
            ok = !isnan(cj) && heap_push(&g, cj, j);
        }
    }
    free(dirty);
    if (ok) {
        *keep = malloc((live ? live : 1) * sizeof **keep);
        ok = *keep != NULL;
        for (size_t f = 0; ok && f < np; f++)
            if (g.alive[f])
                (*keep)[(*nkeep)++] = (uint32_t)f;
    }
    greedy_free(&g);
    if (!ok) {
        free(*keep);
        *keep = NULL;
        *nkeep = 0;
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory simplifying a hull of %zu planes", np);
    }
    return KCBP_OK;
}
