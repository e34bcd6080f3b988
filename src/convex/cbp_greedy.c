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
 * of the planes of N(i) only: those are marked dirty, other heap entries
 * stay valid. Caps only grow, so a dirty plane's cost is a lower bound: it is
 * recomputed when it reaches the top of the heap (stale entries are skipped
 * by a version stamp). Each cap's neighbours and new vertices are saved when
 * it is computed, so removing a plane, which is never dirty then, needs no
 * new computation. Most of a build is spent in caps: about 3 per removal
 * (the first, the refreshes).
 *
 * Cost of one cap: the cap is clipped out of a starting polytope by the
 * planes of N(i), one at a time (Sutherland-Hodgman on each face, the cut
 * face closed by the cut points in angular order), and its volume summed face
 * by face (pyramids from one of its vertices); its vertices beyond plane i
 * are the new vertices. The start is a bounded tetrahedron that plane i and
 * three planes of N(i) bound (most caps have one; see cap_volume), or a box
 * 1000 times the points' size when none is found, clipped by plane i. Then
 * the other neighbours mostly cut nothing, which is checked against the
 * polytope's vertices first. A cap that reaches half of the box's size counts
 * as unbounded (infinite cost: the plane is kept); a truly unbounded one
 * always does (it contains face i, so its recession cone shows).
 * Caps with more than MAX_NEIGHBOURS neighbours are not evaluated (infinite
 * cost too), which bounds the work per cap.
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
    int32_t pstart, pcount; /* into greedy.newpl */
} newvert;

enum { CAP_MAXF = MAX_NEIGHBOURS + 8, CAP_MAXV = CAP_MAXF + 8, CAP_POOL = 8 * CAP_MAXF };

/* A small convex polytope as faces (plane and CCW vertex loop in a pool). */
typedef struct {
    kcbp_vec3 n;
    double d;
    int start, nv;
} cface;

typedef struct {
    int nf, npool, nuv;
    cface f[CAP_MAXF];
    kcbp_vec3 v[CAP_POOL];
    kcbp_vec3 uv[CAP_POOL]; /* every vertex, fewer times than in the loops */
} cpoly;

/* A copy of a cap's neighbours and new vertices (greedy's scratch). */
typedef struct {
    int32_t *nb;
    newvert *nw;
    int32_t *newpl;
    size_t nnb, nnw, nnewpl;
    size_t cnb, cnw, cnewpl; /* capacities */
} capsave;

typedef struct {
    size_t np;
    kcbp_vec3 *n;
    double *d;
    bool *alive;
    uint32_t *version;
    bool *dirty; /* neighbourhood changed since the heap entry's cost */
    ivec *pverts; /* vertices of each plane's face */
    gvert *v;
    size_t nv, vcap;
    hentry *heap;
    size_t hn, hcap;
    uint32_t *stamp;
    uint32_t stampval;
    int32_t *slot; /* a stamped plane's index in nb */
    double tol;
    /* scratch for one cap */
    int32_t *nb;
    size_t nnb;
    newvert *nw;
    size_t nnw, nwcap;
    int32_t *newpl;
    size_t nnewpl, newplcap;
    cpoly *pa, *pb; /* clipping buffers */
    capsave *saved; /* each plane's cap as last computed */
    double box;     /* half-size of the box caps are clipped from */
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


/* kcbp_v3_max_abs without its calls to libm's fmax (no NaN here). */
static inline double max_abs3(kcbp_vec3 a)
{
    double x = fabs(a.x), y = fabs(a.y), z = fabs(a.z), m = x > y ? x : y;
    return m > z ? m : z;
}

static bool add_newvert(greedy *g, kcbp_vec3 x)
{
    double merge = 10 * g->tol;
    for (size_t k = 0; k < g->nnw; k++)
        if (max_abs3(kcbp_v3_sub(g->nw[k].p, x)) <= merge)
            return true; /* the same vertex, seen from another face */
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
    v->pstart = v->pcount = 0;
    return true;
}

/* A number that grows with atan2(y, x) over (-pi, pi], without its cost
 * (the "pseudo-angle": y / (|x| + |y|), unfolded into (-2, 2]). */
static double pseudo_angle(double y, double x)
{
    double s = fabs(x) + fabs(y);
    if (s == 0)
        return 0;
    double p = y / s;
    return x >= 0 ? p : y >= 0 ? 2 - p : -2 - p;
}

/* Clips the polytope src by n·x <= d into dst (faces as vertex loops, CCW
 * seen from outside). Points within eps of the plane count as on it. Returns
 * false if a face would overflow CAP_MAXV vertices. *same is set, and dst
 * left alone, when no point of src is beyond the plane: src is the result. */
static bool clip(const cpoly *src, cpoly *dst, kcbp_vec3 n, double d, double eps, bool *same)
{
    double su[CAP_POOL];
    bool beyond = false;
    for (int k = 0; k < src->nuv; k++) {
        su[k] = kcbp_v3_dot(n, src->uv[k]) - d;
        beyond |= su[k] > eps;
    }
    *same = !beyond;
    if (*same)
        return true;
    kcbp_vec3 cut[2 * CAP_MAXV];
    int ncut = 0;
    dst->nf = 0;
    dst->npool = 0;
    for (int f = 0; f < src->nf; f++) {
        const cface *in = &src->f[f];
        const kcbp_vec3 *iv = src->v + in->start;
        double s[CAP_MAXV];
        bool any_out = false, any_in = false;
        for (int k = 0; k < in->nv; k++) {
            s[k] = kcbp_v3_dot(n, iv[k]) - d;
            any_out |= s[k] > eps;
            any_in |= s[k] < -eps;
        }
        if (!any_out) { /* untouched; its vertices on the plane bound the new face */
            if (dst->npool + in->nv > CAP_POOL)
                return false;
            cface *out = &dst->f[dst->nf++];
            *out = *in;
            out->start = dst->npool;
            memcpy(dst->v + dst->npool, iv, (size_t)in->nv * sizeof *iv);
            dst->npool += in->nv;
            for (int k = 0; k < in->nv; k++)
                if (s[k] >= -eps && ncut < 2 * CAP_MAXV)
                    cut[ncut++] = iv[k];
            continue;
        }
        if (!any_in)
            continue; /* the whole face is cut away */
        cface *out = &dst->f[dst->nf];
        out->n = in->n;
        out->d = in->d;
        out->nv = 0;
        out->start = dst->npool;
        kcbp_vec3 *ov = dst->v + dst->npool;
        if (dst->npool + in->nv + 2 > CAP_POOL)
            return false;
        for (int k = 0; k < in->nv; k++) {
            int k1 = k + 1 == in->nv ? 0 : k + 1;
            if (s[k] <= eps) {
                if (out->nv == CAP_MAXV)
                    return false;
                ov[out->nv++] = iv[k];
                if (s[k] >= -eps && ncut < 2 * CAP_MAXV)
                    cut[ncut++] = iv[k];
            }
            if ((s[k] < -eps && s[k1] > eps) || (s[k] > eps && s[k1] < -eps)) {
                /* The same formula from both faces sharing the edge. */
                kcbp_vec3 a = iv[k], b = iv[k1];
                double sa = s[k], sb = s[k1];
                if (a.x > b.x || (a.x == b.x && (a.y > b.y || (a.y == b.y && a.z > b.z)))) {
                    kcbp_vec3 t = a;
                    a = b;
                    b = t;
                    double u = sa;
                    sa = sb;
                    sb = u;
                }
                kcbp_vec3 x = kcbp_v3_add(a, kcbp_v3_scale(kcbp_v3_sub(b, a), sa / (sa - sb)));
                if (out->nv == CAP_MAXV || ncut == 2 * CAP_MAXV)
                    return false;
                ov[out->nv++] = x;
                cut[ncut++] = x;
            }
        }
        if (out->nv >= 3) {
            dst->nf++;
            dst->npool += out->nv;
        }
    }
    /* The vertices: those left inside, and the cut points (the crossings
     * once from each of their two faces, the points on the plane). */
    dst->nuv = 0;
    for (int k = 0; k < src->nuv; k++)
        if (su[k] < -eps)
            dst->uv[dst->nuv++] = src->uv[k];
    if (dst->nuv + ncut > CAP_POOL)
        return false;
    memcpy(dst->uv + dst->nuv, cut, (size_t)ncut * sizeof *cut);
    dst->nuv += ncut;
    /* The new face: the cut points, deduplicated, in angular order. */
    int nu = 0;
    for (int a = 0; a < ncut; a++) {
        bool dup = false;
        for (int b = 0; b < nu && !dup; b++)
            dup = max_abs3(kcbp_v3_sub(cut[a], cut[b])) <= eps;
        if (!dup)
            cut[nu++] = cut[a];
    }
    if (nu < 3)
        return true;
    if (nu > CAP_MAXV || dst->nf == CAP_MAXF || dst->npool + nu > CAP_POOL)
        return false;
    kcbp_vec3 mid = kcbp_v3(0, 0, 0);
    for (int a = 0; a < nu; a++)
        mid = kcbp_v3_add(mid, cut[a]);
    mid = kcbp_v3_scale(mid, 1.0 / nu);
    kcbp_vec3 u = kcbp_v3_cross(n, fabs(n.x) < 0.6 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0));
    u = kcbp_v3_scale(u, 1.0 / kcbp_v3_len(u));
    kcbp_vec3 w = kcbp_v3_cross(n, u);
    double ang[2 * CAP_MAXV];
    cface *nf = &dst->f[dst->nf++];
    nf->n = n;
    nf->d = d;
    nf->nv = nu;
    nf->start = dst->npool;
    kcbp_vec3 *nv = dst->v + dst->npool;
    dst->npool += nu;
    for (int a = 0; a < nu; a++) { /* insertion sort by angle: small */
        kcbp_vec3 r = kcbp_v3_sub(cut[a], mid);
        double key = pseudo_angle(kcbp_v3_dot(r, w), kcbp_v3_dot(r, u));
        int b = a;
        for (; b > 0 && ang[b - 1] > key; b--) {
            ang[b] = ang[b - 1];
            nv[b] = nv[b - 1];
        }
        ang[b] = key;
        nv[b] = cut[a];
    }
    return true;
}

/* The cube [-b, b]^3 with CCW faces. */
static void box_poly(cpoly *p, double b)
{
    p->nf = 6;
    p->npool = 24;
    p->nuv = 24;
    for (int f = 0; f < 6; f++) {
        int ax = f / 2;
        double s = f % 2 ? -1 : 1, nn[3] = {0, 0, 0}, u[3] = {0, 0, 0}, w[3] = {0, 0, 0};
        nn[ax] = s;
        u[(ax + 1) % 3] = 1;
        w[(ax + 2) % 3] = s; /* u × w = n */
        static const double cu[4] = {-1, 1, 1, -1}, cw[4] = {-1, -1, 1, 1};
        cface *c = &p->f[f];
        c->n = kcbp_v3(nn[0], nn[1], nn[2]);
        c->d = b;
        c->nv = 4;
        c->start = 4 * f;
        for (int k = 0; k < 4; k++)
            p->v[4 * f + k] = kcbp_v3(b * (nn[0] + cu[k] * u[0] + cw[k] * w[0]), b * (nn[1] + cu[k] * u[1] + cw[k] * w[1]),
                              b * (nn[2] + cu[k] * u[2] + cw[k] * w[2]));
    }
    memcpy(p->uv, p->v, sizeof p->v[0] * 24);
}

/* The tetrahedron {a_k·x <= d_k, k = 0..3} into p when it is bounded and
 * within half of big of the origin; false (p undefined) otherwise. Bounded:
 * the normals have a positive dependence sum lambda_k a_k = 0, whose
 * coefficients are the signed 3x3 minors; not empty: sum lambda_k d_k >= 0.
 * Vertex k is where the three planes other than k meet (Cramer's rule). */
static bool tetra_poly(cpoly *p, const kcbp_vec3 a[4], const double d[4], double big)
{
    double lam[4] = {kcbp_v3_det3(a[1], a[2], a[3]), -kcbp_v3_det3(a[0], a[2], a[3]), kcbp_v3_det3(a[0], a[1], a[3]),
                     -kcbp_v3_det3(a[0], a[1], a[2])};
    double sgn = lam[0] > 0 ? 1 : -1, sum = 0;
    for (int k = 0; k < 4; k++) {
        if (!(sgn * lam[k] > 0))
            return false;
        sum += sgn * lam[k] * d[k];
    }
    if (!(sum >= 0))
        return false; /* empty (sum lambda_k a_k·x = 0 <= sum lambda_k d_k) */
    kcbp_vec3 v[4];
    for (int k = 0; k < 4; k++) {
        int q = (k + 1) % 4, r = (k + 2) % 4, t = (k + 3) % 4;
        kcbp_vec3 x = kcbp_v3_scale(kcbp_v3_cross(a[r], a[t]), d[q]);
        x = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_cross(a[t], a[q]), d[r]));
        x = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_cross(a[q], a[r]), d[t]));
        v[k] = kcbp_v3_scale(x, 1.0 / kcbp_v3_det3(a[q], a[r], a[t]));
        if (!(max_abs3(v[k]) < 0.5 * big))
            return false;
    }
    p->nf = 4;
    p->npool = 12;
    p->nuv = 4;
    memcpy(p->uv, v, sizeof v);
    for (int k = 0; k < 4; k++) {
        int q = (k + 1) % 4, r = (k + 2) % 4, t = (k + 3) % 4;
        kcbp_vec3 *fv = p->v + 3 * k;
        fv[0] = v[q];
        fv[1] = v[r];
        fv[2] = v[t];
        if (kcbp_v3_det3(kcbp_v3_sub(v[r], v[q]), kcbp_v3_sub(v[t], v[q]), a[k]) < 0) {
            fv[1] = v[t];
            fv[2] = v[r];
        }
        p->f[k] = (cface){a[k], d[k], 3 * k, 3};
    }
    return true;
}

/* The cap of plane i: fills g->nb (N(i)) and g->nw (new vertices, with their
 * planes in g->newpl) and returns its volume, INFINITY if unbounded, too large
 * or too complex, NAN on out of memory. */
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
    int32_t shared[MAX_NEIGHBOURS];
    for (int32_t a = 0; a < face->n; a++) {
        const ivec *pl = &g->v[face->a[a]].planes;
        for (int32_t b = 0; b < pl->n; b++) {
            int32_t j = pl->a[b];
            if (g->stamp[j] != s) {
                g->stamp[j] = s;
                g->slot[j] = (int32_t)g->nnb;
                if (g->nnb < MAX_NEIGHBOURS)
                    shared[g->nnb] = 0;
                g->nb[g->nnb++] = j;
            }
            if (j != i && g->slot[j] < MAX_NEIGHBOURS)
                shared[g->slot[j]]++;
        }
    }
    size_t m = g->nnb;
    if (m < 3 || m > MAX_NEIGHBOURS)
        return INFINITY;
    /* Planes across face i's edges (two or more shared vertices) first: they
     * shape most of the cap, so the clips by the others mostly cut nothing. */
    for (size_t a = 1; a < m; a++) {
        int32_t j = g->nb[a], c = shared[a];
        size_t b = a;
        for (; b > 0 && shared[b - 1] < c; b--) {
            g->nb[b] = g->nb[b - 1];
            shared[b] = shared[b - 1];
        }
        g->nb[b] = j;
        shared[b] = c;
    }
    kcbp_vec3 nn[MAX_NEIGHBOURS + 1];
    for (size_t a = 0; a < m; a++)
        nn[a] = g->n[g->nb[a]];
    nn[m] = kcbp_v3_neg(g->n[i]);

    /* The start: the region above plane i and below three neighbours, when
     * it is a bounded tetrahedron: the first such triple in the order above
     * (the planes across face i's edges alone bound half of the caps), moved
     * to the front of nb; else a big box above plane i. Then it is clipped
     * by every other neighbour. Most of them cut nothing (clip checks that
     * first before copying anything). */
    kcbp_vec3 ni = g->n[i];
    double di = g->d[i], tol = g->tol, big = g->box;
    cpoly *a = g->pa, *b = g->pb;
    bool same = true, found = false;
    size_t r = 3, lim = m < 12 ? m : 12;
    for (size_t t2 = 2; t2 < lim && !found; t2++)
        for (size_t t1 = 1; t1 < t2 && !found; t1++)
            for (size_t t0 = 0; t0 < t1 && !found; t0++) {
                kcbp_vec3 ta[4] = {kcbp_v3_neg(ni), nn[t0], nn[t1], nn[t2]};
                double td[4] = {-di, g->d[g->nb[t0]], g->d[g->nb[t1]], g->d[g->nb[t2]]};
                if (!tetra_poly(a, ta, td, big))
                    continue;
                found = true;
                size_t t[3] = {t0, t1, t2};
                for (size_t q = 0; q < 3; q++) { /* t[q] >= q: swaps keep every plane */
                    int32_t j = g->nb[q];
                    kcbp_vec3 v = nn[q];
                    g->nb[q] = g->nb[t[q]];
                    nn[q] = nn[t[q]];
                    g->nb[t[q]] = j;
                    nn[t[q]] = v;
                }
            }
    if (!found) {
        box_poly(a, big);
        if (!clip(a, b, kcbp_v3_neg(ni), -di, tol, &same))
            return INFINITY;
        r = 0;
    }
    for (; r < m; r++) {
        if (!same) {
            cpoly *t = a;
            a = b;
            b = t;
        }
        if (!clip(a, b, nn[r], g->d[g->nb[r]], tol, &same))
            return INFINITY;
    }
    if (same)
        b = a;
    /* b is the cap. Its volume by pyramids from one of its points; its
     * vertices beyond plane i are the new vertices of the polytope. */
    if (b->nf < 4)
        return 0; /* flat: plane i is (weakly) redundant */
    for (int k = 0; k < b->nuv; k++) {
        if (max_abs3(b->uv[k]) >= 0.5 * big)
            return INFINITY; /* reaches the box: unbounded in practice */
        if (kcbp_v3_dot(ni, b->uv[k]) - di > tol && !add_newvert(g, b->uv[k]))
            return NAN;
    }
    kcbp_vec3 o = b->v[0];
    double vol = 0;
    for (int f = 0; f < b->nf; f++) {
        const cface *c = &b->f[f];
        const kcbp_vec3 *cv = b->v + c->start;
        for (int k = 2; k < c->nv; k++)
            vol += kcbp_v3_det3(kcbp_v3_sub(cv[0], o), kcbp_v3_sub(cv[k - 1], o), kcbp_v3_sub(cv[k], o));
    }
    /* Planes through each new vertex. */
    for (size_t k = 0; k < g->nnw; k++) {
        newvert *v = &g->nw[k];
        v->pstart = (int32_t)g->nnewpl;
        for (size_t r = 0; r < m; r++) {
            if (fabs(kcbp_v3_dot(nn[r], v->p) - g->d[g->nb[r]]) > 10 * tol)
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
    return fmax(0, vol / 6);
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

/* reserve_*: room for n elements in *a (capacity *cap), false when out of
 * memory; grown: the capacity they grow to. */
static size_t grown(size_t cap, size_t n)
{
    size_t c = cap ? cap : 8;
    while (c < n)
        c *= 2;
    return c;
}

static bool reserve_i32(int32_t **a, size_t *cap, size_t n)
{
    if (n <= *cap)
        return true;
    size_t c = grown(*cap, n);
    int32_t *p = realloc(*a, c * sizeof *p);
    if (!p)
        return false;
    *a = p;
    *cap = c;
    return true;
}

static bool reserve_nw(newvert **a, size_t *cap, size_t n)
{
    if (n <= *cap)
        return true;
    size_t c = grown(*cap, n);
    newvert *p = realloc(*a, c * sizeof *p);
    if (!p)
        return false;
    *a = p;
    *cap = c;
    return true;
}

/* memcpy, for buffers that are still NULL when empty */
static void copy(void *dst, const void *src, size_t size)
{
    if (size)
        memcpy(dst, src, size);
}

/* Saves the cap in the scratch as plane i's, or restores it from there. */
static bool cap_save(greedy *g, int32_t i)
{
    capsave *c = &g->saved[i];
    if (!reserve_i32(&c->nb, &c->cnb, g->nnb) || !reserve_nw(&c->nw, &c->cnw, g->nnw) ||
        !reserve_i32(&c->newpl, &c->cnewpl, g->nnewpl))
        return false;
    copy(c->nb, g->nb, g->nnb * sizeof *c->nb);
    copy(c->nw, g->nw, g->nnw * sizeof *c->nw);
    copy(c->newpl, g->newpl, g->nnewpl * sizeof *c->newpl);
    c->nnb = g->nnb;
    c->nnw = g->nnw;
    c->nnewpl = g->nnewpl;
    return true;
}

static bool cap_restore(greedy *g, int32_t i)
{
    const capsave *c = &g->saved[i];
    if (!reserve_nw(&g->nw, &g->nwcap, c->nnw) || !reserve_i32(&g->newpl, &g->newplcap, c->nnewpl))
        return false;
    copy(g->nb, c->nb, c->nnb * sizeof *g->nb);
    copy(g->nw, c->nw, c->nnw * sizeof *g->nw);
    copy(g->newpl, c->newpl, c->nnewpl * sizeof *g->newpl);
    g->nnb = c->nnb;
    g->nnw = c->nnw;
    g->nnewpl = c->nnewpl;
    return true;
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
    free(g->dirty);
    free(g->pverts);
    free(g->v);
    free(g->heap);
    free(g->stamp);
    free(g->slot);
    free(g->nb);
    free(g->nw);
    free(g->newpl);
    free(g->pa);
    free(g->pb);
    for (size_t j = 0; g->saved && j < g->np; j++) {
        free(g->saved[j].nb);
        free(g->saved[j].nw);
        free(g->saved[j].newpl);
    }
    free(g->saved);
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
    g.box = 1e3 * size;
    g.pa = malloc(sizeof *g.pa);
    g.pb = malloc(sizeof *g.pb);
    g.n = malloc((np + 1) * sizeof *g.n);
    g.d = malloc((np + 1) * sizeof *g.d);
    g.alive = malloc((np + 1) * sizeof *g.alive);
    g.version = calloc(np + 1, sizeof *g.version);
    g.dirty = calloc(np + 1, sizeof *g.dirty);
    g.pverts = calloc(np + 1, sizeof *g.pverts);
    g.stamp = calloc(np + 1, sizeof *g.stamp);
    g.slot = malloc((np + 1) * sizeof *g.slot);
    g.nb = malloc((np + 1) * sizeof *g.nb);
    g.saved = calloc(np + 1, sizeof *g.saved);
    uint32_t maxid = 0;
    for (size_t v = 0; v < hull->nverts; v++)
        maxid = hull->verts[v] > maxid ? hull->verts[v] : maxid;
    int32_t *vid = malloc(((size_t)maxid + 1) * sizeof *vid);
    bool ok = g.dirty && g.pa && g.pb && g.n && g.d && g.alive && g.version && g.pverts && g.stamp && g.slot && g.nb && g.saved && vid;
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
    /* Each cap is saved when computed: a plane that is not dirty when it is
     * removed has the same cap still, and need not be computed again. */
    for (size_t f = 0; ok && f < np && np > k; f++) {
        double c = cap_volume(&g, (int32_t)f);
        ok = !isnan(c) && cap_save(&g, (int32_t)f) && heap_push(&g, c, (int32_t)f);
    }
    size_t live = np;
    while (ok && live > k && g.hn > 0) {
        hentry e = heap_pop(&g);
        if (!g.alive[e.plane] || e.version != g.version[e.plane])
            continue;
        if (g.dirty[e.plane]) {
            /* Stale costs are lower bounds (caps only grow): refresh and retry. */
            g.dirty[e.plane] = false;
            g.version[e.plane]++;
            double c = cap_volume(&g, e.plane);
            ok = !isnan(c) && cap_save(&g, e.plane) && heap_push(&g, c, e.plane);
            continue;
        }
        if (isinf(e.cost))
            break; /* every remaining removal leaves P unbounded */
        if (!cap_restore(&g, e.plane) || !remove_plane(&g, e.plane)) {
            ok = false;
            break;
        }
        *added += e.cost;
        live--;
        for (size_t a = 0; a < g.nnb; a++)
            g.dirty[g.nb[a]] = true;
    }
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
