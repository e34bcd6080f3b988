/* Expanding Polytope Algorithm. See epa.h for the conventions and sources.
 *
 * Invariants of the polytope P kept in the scratch:
 *   - P is a closed, consistently oriented triangle mesh whose vertices are
 *     CSO vertices, so P is inside the CSO (core(A) - core(B));
 *   - the origin is inside P or on its boundary (up to rounding), so every
 *     live face has d >= -tolerance, and min over faces of d is a lower bound
 *     on the depth;
 *   - faces[f].adj[i] is the face across edge (v[i], v[i+1]), and that face
 *     has the same edge reversed.
 * Any violation we detect (a face with no area, a horizon that is not one
 * loop, a face whose plane passes the wrong side of the origin, a capacity
 * reached) stops the expansion with KCBP_EPA_DEPTH_UNKNOWN and the best
 * upper bound: conservative, never a guess. */
#include <kcbp/epa.h>

#include <float.h>
#include <string.h>

#include "base/util.h"

kcbp_epa_params kcbp_epa_default_params(void)
{
    kcbp_epa_params p = {KCBP_EPA_DEFAULT_MAX_ITERATIONS, KCBP_EPA_DEFAULT_REL_TOL};
    return p;
}

const char *kcbp_epa_status_name(kcbp_epa_status s)
{
    switch (s) {
    case KCBP_EPA_PENETRATING: return "penetrating";
    case KCBP_EPA_TOUCHING: return "touching";
    case KCBP_EPA_SEPARATED: return "separated";
    case KCBP_EPA_DEPTH_UNKNOWN: return "depth-unknown";
    }
    return "unknown";
}

typedef struct kcbp_epa_face face;
typedef struct kcbp_epa_heap_item heap_item;

typedef struct {
    const kcbp_convex *a, *b;
    const kcbp_pose *pose;
    kcbp_support_cache *cache;
    kcbp_epa_scratch *s;
    int nverts, nheap, nfree, nlive;
    int nused; /* face slots ever handed out in this query (high-water mark) */
    double tol;     /* absolute touching tolerance */
    double vis_eps; /* "w is on this face's plane" up to rounding */
    /* best upper bound seen: the support value h(n) along a unit n */
    double ub;
    kcbp_vec3 ub_n;
    kcbp_simplex_vertex ub_w;
} epa;

/* Support of the CSO along unit n, also tracking the best upper bound. */
static kcbp_simplex_vertex probe(epa *e, kcbp_vec3 n)
{
    kcbp_simplex_vertex w = kcbp_gjk_support(e->a, e->b, e->pose, n, e->cache);
    double h = kcbp_v3_dot(n, w.w);
    if (h < e->ub) {
        e->ub = h;
        e->ub_n = n;
        e->ub_w = w;
    }
    return w;
}

/* ---- binary min-heap of (d, face, generation); stale items skipped ---- */

static void heap_swap(heap_item *h, int i, int j)
{
    heap_item t = h[i];
    h[i] = h[j];
    h[j] = t;
}

static void heap_up(heap_item *h, int i)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!(h[i].d < h[p].d))
            break;
        heap_swap(h, i, p);
        i = p;
    }
}

static void heap_down(heap_item *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].d < h[m].d)
            m = l;
        if (r < n && h[r].d < h[m].d)
            m = r;
        if (m == i)
            break;
        heap_swap(h, i, m);
        i = m;
    }
}

static void heap_push(epa *e, uint32_t f)
{
    kcbp_epa_scratch *s = e->s;
    if (e->nheap == KCBP_EPA_MAX_HEAP) {
        /* Full of stale items: rebuild from the live faces (< the cap). */
        e->nheap = 0;
        for (uint32_t g = 0; g < (uint32_t)e->nused; g++)
            if (s->faces[g].live && g != f) {
                heap_item it = {s->faces[g].d, g, s->faces[g].gen};
                s->heap[e->nheap++] = it;
            }
        for (int i = e->nheap / 2 - 1; i >= 0; i--)
            heap_down(s->heap, e->nheap, i);
    }
    heap_item it = {s->faces[f].d, f, s->faces[f].gen};
    s->heap[e->nheap] = it;
    heap_up(s->heap, e->nheap++);
}

/* Pops the live face nearest the origin; -1 when none is left. */
static int heap_pop(epa *e)
{
    kcbp_epa_scratch *s = e->s;
    while (e->nheap > 0) {
        heap_item top = s->heap[0];
        s->heap[0] = s->heap[--e->nheap];
        heap_down(s->heap, e->nheap, 0);
        const face *f = &s->faces[top.face];
        if (f->live && f->gen == top.gen)
            return (int)top.face;
    }
    return -1;
}

/* ---- faces ---- */

/* A released slot if any, else a fresh one; slots are only initialised when
 * first handed out, so a query touches as much scratch as it uses. */
static int face_alloc(epa *e)
{
    if (e->nfree > 0)
        return e->s->free_faces[--e->nfree];
    if (e->nused == KCBP_EPA_MAX_FACES)
        return -1;
    face *F = &e->s->faces[e->nused];
    F->gen = 0;
    F->live = 0;
    F->mark = 0;
    return e->nused++;
}

static void face_release(epa *e, int f)
{
    face *F = &e->s->faces[f];
    F->live = 0;
    F->gen++;
    e->nlive--;
    e->s->free_faces[e->nfree++] = (uint16_t)f;
}

/* Sets vertices, normal and distance; 0 when the triangle has no usable
 * normal (zero area up to rounding). */
static int face_set(epa *e, int f, int i0, int i1, int i2)
{
    /* The polytope's invariants (epa.h): face slots and vertex indices in
     * range, the three vertices distinct. */
    KCBP_ASSERT(f >= 0 && f < KCBP_EPA_MAX_FACES);
    KCBP_ASSERT(i0 >= 0 && i1 >= 0 && i2 >= 0 && i0 < e->nverts && i1 < e->nverts && i2 < e->nverts);
    KCBP_ASSERT(i0 != i1 && i1 != i2 && i0 != i2);
    face *F = &e->s->faces[f];
    kcbp_vec3 p0 = e->s->verts[i0].w, p1 = e->s->verts[i1].w, p2 = e->s->verts[i2].w;
    kcbp_vec3 e1 = kcbp_v3_sub(p1, p0), e2 = kcbp_v3_sub(p2, p0);
    kcbp_vec3 n = kcbp_v3_cross(e1, e2);
    double len2 = kcbp_v3_len2(n);
    F->v[0] = (uint16_t)i0;
    F->v[1] = (uint16_t)i1;
    F->v[2] = (uint16_t)i2;
    F->live = 1;
    F->mark = 0;
    e->nlive++;
    /* |e1 x e2| = |e1||e2| sin(angle): refuse slivers whose normal is
     * rounding noise (squared, to spare square roots) */
    if (!(len2 > 256 * DBL_EPSILON * DBL_EPSILON * kcbp_v3_len2(e1) * kcbp_v3_len2(e2)))
        return 0;
    F->n = kcbp_v3_scale(n, 1.0 / sqrt(len2));
    /* the mean of the three is less sensitive to which vertex is used */
    F->d = (kcbp_v3_dot(F->n, p0) + kcbp_v3_dot(F->n, p1) + kcbp_v3_dot(F->n, p2)) * (1.0 / 3);
    return F->d >= -e->tol; /* the origin must stay inside */
}

static int add_vertex(epa *e, kcbp_simplex_vertex w)
{
    if (e->nverts == KCBP_EPA_MAX_VERTICES)
        return -1;
    e->s->verts[e->nverts] = w;
    return e->nverts++;
}

/* Barycentric weights of the projection of p on the plane of (a, b, c);
 * negative outside the triangle. */
static void barycentric(kcbp_vec3 p, kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, double lam[3])
{
    kcbp_vec3 v0 = kcbp_v3_sub(b, a), v1 = kcbp_v3_sub(c, a), v2 = kcbp_v3_sub(p, a);
    double d00 = kcbp_v3_dot(v0, v0), d01 = kcbp_v3_dot(v0, v1), d11 = kcbp_v3_dot(v1, v1);
    double d20 = kcbp_v3_dot(v2, v0), d21 = kcbp_v3_dot(v2, v1);
    double den = d00 * d11 - d01 * d01;
    double u = 1.0 / 3, v = 1.0 / 3;
    if (den > 0) {
        u = (d11 * d20 - d01 * d21) / den;
        v = (d00 * d21 - d01 * d20) / den;
    }
    lam[0] = 1 - u - v;
    lam[1] = u;
    lam[2] = v;
}

/* Contact points for the converged face f: the origin's projection p lies
 * on the CSO facet whose plane f spans, but that facet may be a polygon cut
 * into several coplanar EPA triangles (e.g. the parallelogram an edge of A
 * and an edge of B make), and p need not be in f itself. So walk across the
 * edge facing the most negative weight while the neighbour holds p in its
 * plane, then clamp what rounding is left. */
static void contact(const epa *e, int f, kcbp_vec3 *pa, kcbp_vec3 *pb)
{
    const kcbp_epa_scratch *s = e->s;
    kcbp_vec3 p = kcbp_v3_scale(s->faces[f].n, s->faces[f].d);
    double lam[3];
    for (int step = 0;; step++) {
        const face *F = &s->faces[f];
        barycentric(p, s->verts[F->v[0]].w, s->verts[F->v[1]].w, s->verts[F->v[2]].w, lam);
        int k = lam[0] <= lam[1] && lam[0] <= lam[2] ? 0 : lam[1] <= lam[2] ? 1 : 2;
        if (!(lam[k] < -1e-9) || step == 16)
            break;
        int g = F->adj[(k + 1) % 3]; /* across the edge opposite vertex k */
        const face *G = &s->faces[g];
        if (!(fabs(kcbp_v3_dot(G->n, p) - G->d) <= fmax(e->tol, 1e-9 * fabs(G->d))))
            break;
        f = g;
    }
    double sum = 0;
    for (int k = 0; k < 3; k++) {
        lam[k] = lam[k] > 0 ? lam[k] : 0;
        sum += lam[k];
    }
    const face *F = &s->faces[f];
    kcbp_vec3 a = {0, 0, 0}, b = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        double l = sum > 0 ? lam[k] / sum : (k == 0);
        a = kcbp_v3_add(a, kcbp_v3_scale(s->verts[F->v[k]].a, l));
        b = kcbp_v3_add(b, kcbp_v3_scale(s->verts[F->v[k]].b, l));
    }
    *pa = a;
    *pb = b;
}

/* ---- growing GJK's simplex into a tetrahedron around the origin ---- */

static kcbp_vec3 any_perpendicular(kcbp_vec3 u)
{
    kcbp_vec3 au = kcbp_v3_abs(u);
    kcbp_vec3 axis = au.x <= au.y && au.x <= au.z ? kcbp_v3(1, 0, 0) : au.y <= au.z ? kcbp_v3(0, 1, 0) : kcbp_v3(0, 0, 1);
    kcbp_vec3 p = kcbp_v3_cross(u, axis);
    return kcbp_v3_scale(p, 1.0 / kcbp_v3_len(p));
}

typedef enum { GROW_OK, GROW_FLAT, GROW_FAIL } grow_result;

/* From 1, 2 or 3 vertices with the origin on their hull, adds CSO vertices
 * off their affine hull until there are 4. GROW_FLAT: the CSO itself is
 * flat (a point, segment or polygon through the origin), so the depth is 0
 * along *flat_n. */
static grow_result grow(epa *e, kcbp_vec3 *flat_n)
{
    kcbp_simplex_vertex *V = e->s->verts;
    if (e->nverts == 1) {
        static const double dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        int found = 0;
        for (int k = 0; k < 6 && !found; k++) {
            kcbp_simplex_vertex w = probe(e, kcbp_v3(dirs[k][0], dirs[k][1], dirs[k][2]));
            if (kcbp_v3_len(kcbp_v3_sub(w.w, V[0].w)) > e->tol) {
                add_vertex(e, w);
                found = 1;
            }
        }
        if (!found) {
            *flat_n = kcbp_v3(1, 0, 0);
            return GROW_FLAT;
        }
    }
    if (e->nverts == 2) {
        kcbp_vec3 u = kcbp_v3_sub(V[1].w, V[0].w);
        double ul = kcbp_v3_len(u);
        if (!(ul > 0))
            return GROW_FAIL;
        u = kcbp_v3_scale(u, 1.0 / ul);
        kcbp_vec3 p = any_perpendicular(u), q = kcbp_v3_cross(u, p);
        int found = 0;
        /* six directions 60 degrees apart around the segment */
        for (int k = 0; k < 6 && !found; k++) {
            double ang = k * (M_PI / 3);
            kcbp_vec3 dir = kcbp_v3_add(kcbp_v3_scale(p, cos(ang)), kcbp_v3_scale(q, sin(ang)));
            kcbp_simplex_vertex w = probe(e, dir);
            if (kcbp_v3_len(kcbp_v3_cross(kcbp_v3_sub(w.w, V[0].w), u)) > e->tol) {
                add_vertex(e, w);
                found = 1;
            }
        }
        if (!found) {
            *flat_n = p;
            return GROW_FLAT;
        }
    }
    if (e->nverts == 3) {
        kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(V[1].w, V[0].w), kcbp_v3_sub(V[2].w, V[0].w));
        double nl = kcbp_v3_len(n);
        if (!(nl > 0))
            return GROW_FAIL;
        n = kcbp_v3_scale(n, 1.0 / nl);
        kcbp_simplex_vertex wp = probe(e, n), wm = probe(e, kcbp_v3_neg(n));
        double hp = kcbp_v3_dot(n, kcbp_v3_sub(wp.w, V[0].w));
        double hm = -kcbp_v3_dot(n, kcbp_v3_sub(wm.w, V[0].w));
        if (hp <= e->tol && hm <= e->tol) {
            *flat_n = hp <= hm ? n : kcbp_v3_neg(n);
            return GROW_FLAT;
        }
        add_vertex(e, hp >= hm ? wp : wm);
    }
    return GROW_OK;
}

/* ---- the expansion ---- */

static void link_faces(epa *e, const int *fs, int nf)
{
    /* Brute-force adjacency for the initial tetrahedron. */
    for (int i = 0; i < nf; i++)
        for (int k = 0; k < 3; k++) {
            face *F = &e->s->faces[fs[i]];
            uint16_t a = F->v[k], b = F->v[(k + 1) % 3];
            for (int j = 0; j < nf; j++) {
                const face *G = &e->s->faces[fs[j]];
                for (int m = 0; m < 3; m++)
                    if (G->v[m] == b && G->v[(m + 1) % 3] == a)
                        F->adj[k] = (uint16_t)fs[j];
            }
        }
}

/* Expands the polytope by vertex iw seen from face f0; 0 on a detected
 * inconsistency (the polytope is then left as it was before the call, but
 * for the vertex). */
static int expand(epa *e, int f0, int iw)
{
    kcbp_epa_scratch *s = e->s;
    kcbp_vec3 w = s->verts[iw].w;
    int nstack = 0, nvis = 0, nh = 0;
    /* Walk the faces that see w, from f0, over adjacency; the visible set is
     * connected by construction. Faces on the stack are marked. Their
     * indices are kept at the bottom of `stack` in visiting order. */
    s->faces[f0].mark = 1;
    s->stack[nstack++] = (uint16_t)f0;
    int ok = 1;
    while (nvis < nstack && ok) {
        int g = s->stack[nvis++];
        const face *G = &s->faces[g];
        for (int k = 0; k < 3; k++) {
            int h = G->adj[k];
            face *H = &s->faces[h];
            if (H->mark)
                continue;
            /* Faces whose plane holds w up to rounding count as visible:
             * keeping one would cone its edge to w, and if w is on that
             * edge's line the new face is a sliver with no normal. */
            if (kcbp_v3_dot(H->n, w) - H->d > -e->vis_eps) {
                H->mark = 1;
                s->stack[nstack++] = (uint16_t)h;
            } else {
                if (nh == KCBP_EPA_MAX_VERTICES) {
                    ok = 0;
                    break;
                }
                struct kcbp_epa_edge ed = {G->v[k], G->v[(k + 1) % 3], (uint16_t)h};
                s->horizon[nh++] = ed;
            }
        }
    }
    /* The horizon must be one simple loop: each vertex starts at most one
     * edge, and following `to` from the first edge comes back after nh. */
    if (ok && nh >= 3) {
        for (int i = 0; i < nh; i++)
            s->face_from[s->horizon[i].from] = 0xFFFF;
        for (int i = 0; i < nh && ok; i++) {
            if (s->face_from[s->horizon[i].from] != 0xFFFF)
                ok = 0;
            s->face_from[s->horizon[i].from] = (uint16_t)i;
        }
        if (ok) {
            int i = 0, steps = 0;
            do {
                uint16_t to = s->horizon[i].to;
                /* `to` must start an edge of this horizon */
                int j = -1;
                for (int k = 0; k < nh && j < 0; k++)
                    if (s->horizon[k].from == to)
                        j = k;
                if (j < 0) {
                    ok = 0;
                    break;
                }
                i = j;
                steps++;
            } while (i != 0 && steps <= nh);
            ok = ok && steps == nh;
        }
    } else {
        ok = 0;
    }
    if (!ok) {
        for (int i = 0; i < nstack; i++)
            s->faces[s->stack[i]].mark = 0;
        return 0;
    }
    /* Remove the visible faces, cone the horizon to w. */
    for (int i = 0; i < nstack; i++) {
        s->faces[s->stack[i]].mark = 0;
        face_release(e, s->stack[i]);
    }
    int good = 1;
    for (int i = 0; i < nh; i++) {
        struct kcbp_epa_edge ed = s->horizon[i];
        int f = face_alloc(e);
        if (f < 0) /* capacity: only with more vertices than the cap allows */
            return -1;
        good &= face_set(e, f, ed.from, ed.to, iw);
        face *F = &s->faces[f];
        F->adj[0] = ed.face;
        face *H = &s->faces[ed.face];
        for (int m = 0; m < 3; m++)
            if (H->v[m] == ed.to && H->v[(m + 1) % 3] == ed.from)
                H->adj[m] = (uint16_t)f;
        s->face_from[ed.from] = (uint16_t)f;
    }
    for (int i = 0; i < nh; i++) {
        struct kcbp_epa_edge ed = s->horizon[i];
        int f = s->face_from[ed.from], g = s->face_from[ed.to];
        s->faces[f].adj[1] = (uint16_t)g; /* edge to->w */
        s->faces[g].adj[2] = (uint16_t)f; /* edge w->to */
        if (good)
            heap_push(e, (uint32_t)f);
    }
    return good ? 1 : -1;
}

static void fill_result(kcbp_epa_result *out, kcbp_epa_status st, double depth, double lower, kcbp_vec3 n,
                        kcbp_vec3 pa, kcbp_vec3 pb)
{
    out->status = st;
    out->depth = depth;
    out->depth_lower = lower;
    out->normal = n;
    out->point_a = pa;
    out->point_b = pb;
}

static void fallback(epa *e, double lower, kcbp_epa_result *out)
{
    if (!(e->ub < INFINITY)) {
        static const double dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        for (int k = 0; k < 6; k++)
            probe(e, kcbp_v3(dirs[k][0], dirs[k][1], dirs[k][2]));
    }
    double ub = e->ub > 0 ? e->ub : 0;
    fill_result(out, KCBP_EPA_DEPTH_UNKNOWN, ub, lower < ub ? lower : ub, e->ub_n, e->ub_w.a, e->ub_w.b);
}

static double vol(kcbp_vec3 p0, kcbp_vec3 p1, kcbp_vec3 p2, kcbp_vec3 p3)
{
    return kcbp_v3_dot(kcbp_v3_sub(p1, p0), kcbp_v3_cross(kcbp_v3_sub(p2, p0), kcbp_v3_sub(p3, p0)));
}

/* Core EPA (radii not included). */
static void epa_core(epa *e, const kcbp_gjk_result *gjk, const kcbp_epa_params *prm, kcbp_epa_result *out)
{
    kcbp_epa_scratch *s = e->s;
    e->nverts = 0;
    e->nheap = 0;
    e->nlive = 0;
    e->nfree = 0;
    e->nused = 0;
    int n = gjk->simplex_count < 1 ? 1 : gjk->simplex_count > 4 ? 4 : gjk->simplex_count;
    for (int k = 0; k < n; k++)
        add_vertex(e, gjk->simplex[k]);
    double lower = 0;
    kcbp_vec3 flat_n;
    grow_result gr = n == 4 ? GROW_OK : grow(e, &flat_n);
    if (gr == GROW_FLAT) {
        /* The CSO is flat and holds the origin: any move along the normal
         * separates, so the depth is 0 (touching). */
        fill_result(out, KCBP_EPA_TOUCHING, 0, 0, flat_n, s->verts[0].a, s->verts[0].b);
        return;
    }
    if (gr == GROW_FAIL) {
        fallback(e, lower, out);
        return;
    }
    kcbp_simplex_vertex *V = s->verts;
    double det = vol(V[0].w, V[1].w, V[2].w, V[3].w);
    if (det == 0 || !isfinite(det)) {
        fallback(e, lower, out);
        return;
    }
    if (det < 0) { /* make (0,1,2,3) positively oriented */
        kcbp_simplex_vertex t = V[0];
        V[0] = V[1];
        V[1] = t;
    }
    /* Outward (counter-clockwise seen from outside) faces of a positively
     * oriented tetrahedron. */
    static const int tet[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
    int fs[4], ok = 1;
    for (int k = 0; k < 4; k++) {
        fs[k] = face_alloc(e);
        ok &= face_set(e, fs[k], tet[k][0], tet[k][1], tet[k][2]);
    }
    if (!ok) {
        fallback(e, lower, out);
        return;
    }
    link_faces(e, fs, 4);
    for (int k = 0; k < 4; k++)
        heap_push(e, (uint32_t)fs[k]);

    int max_iter = prm->max_iterations;
    for (int iter = 0;; iter++) {
        int f = heap_pop(e);
        if (f < 0) {
            fallback(e, lower, out);
            return;
        }
        const face *F = &s->faces[f];
        /* F is the nearest face: its distance is a lower bound on the depth */
        lower = F->d > 0 ? F->d : 0;
        kcbp_simplex_vertex w = probe(e, F->n);
        double h = kcbp_v3_dot(F->n, w.w);
        double tol = fmax(prm->rel_tol * fabs(F->d), e->tol);
        int dup = 0;
        for (int k = 0; k < 3; k++) {
            const kcbp_simplex_vertex *u = &s->verts[F->v[k]];
            dup |= memcmp(&u->a, &w.a, sizeof w.a) == 0 && memcmp(&u->b, &w.b, sizeof w.b) == 0;
        }
        out->iterations = iter;
        out->nfaces = e->nlive;
        if (dup || h - F->d <= tol) {
            /* F lies on a supporting plane of the CSO (up to tol): its
             * distance is the depth, the origin's projection the contact. */
            kcbp_vec3 pa, pb;
            contact(e, f, &pa, &pb);
            fill_result(out, KCBP_EPA_PENETRATING, lower, lower, F->n, pa, pb);
            return;
        }
        if (iter >= max_iter) {
            fallback(e, lower, out);
            return;
        }
        int iw = add_vertex(e, w);
        if (iw < 0 || expand(e, f, iw) != 1) {
            fallback(e, lower, out);
            return;
        }
    }
}

/* Kept out of line so that callers passing their own scratch do not pay for
 * this frame. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void epa_core_stack(epa *e, const kcbp_gjk_result *gjk, const kcbp_epa_params *prm, kcbp_epa_result *out)
{
    kcbp_epa_scratch scratch;
    e->s = &scratch;
    epa_core(e, gjk, prm, out);
    e->s = NULL;
}

void kcbp_epa_penetration(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                          const kcbp_gjk_result *gjk, const kcbp_epa_params *params, kcbp_support_cache *cache,
                          kcbp_epa_scratch *scratch, kcbp_epa_result *out)
{
    memset(out, 0, sizeof *out);
    kcbp_epa_params prm = params ? *params : kcbp_epa_default_params();
    if (prm.max_iterations < 1)
        prm.max_iterations = 1;
    if (prm.max_iterations > KCBP_EPA_DEFAULT_MAX_ITERATIONS)
        prm.max_iterations = KCBP_EPA_DEFAULT_MAX_ITERATIONS;
    if (!(prm.rel_tol > 0))
        prm.rel_tol = KCBP_EPA_DEFAULT_REL_TOL;
    if (!gjk || (gjk->status != KCBP_GJK_OVERLAPPING && gjk->status != KCBP_GJK_TOUCHING)) {
        out->status = KCBP_EPA_SEPARATED;
        return;
    }
    double ra = a->radius, rb = b->radius, rsum = ra + rb;
    double tol = KCBP_GJK_TOUCH_REL * gjk->scale;
    if (gjk->core_distance > 0) {
        /* Cores apart, inflated shapes in contact: GJK's answer is exact. */
        double depth = rsum - gjk->core_distance;
        fill_result(out, depth > tol ? KCBP_EPA_PENETRATING : KCBP_EPA_TOUCHING, depth > 0 ? depth : 0,
                    depth > 0 ? depth : 0, gjk->normal, gjk->point_a, gjk->point_b);
        return;
    }
    kcbp_pose pose = b_in_a ? *b_in_a : kcbp_pose_identity();
    kcbp_support_cache local_cache = {{0, 0}};
    epa e;
    memset(&e, 0, sizeof e);
    e.a = a;
    e.b = b;
    e.pose = &pose;
    e.cache = cache ? cache : &local_cache;
    e.tol = tol;
    e.vis_eps = 1e-13 * gjk->scale;
    e.ub = INFINITY;
    e.ub_n = kcbp_v3(1, 0, 0);
    if (scratch) {
        e.s = scratch;
        epa_core(&e, gjk, &prm, out);
    } else {
        epa_core_stack(&e, gjk, &prm, out);
    }

    /* Inflate: every support value grows by rsum, so the depth does too;
     * the contact points move out along the normal. */
    kcbp_vec3 n = out->normal;
    double nl = kcbp_v3_len(n);
    if (!(nl > 0) || !isfinite(nl) || !isfinite(out->depth)) {
        /* cannot happen for valid input; keep the promise of no NaN */
        out->status = KCBP_EPA_DEPTH_UNKNOWN;
        out->depth = out->depth_lower = 0;
        out->normal = kcbp_v3(1, 0, 0);
        return;
    }
    n = kcbp_v3_scale(n, 1.0 / nl);
    out->normal = n;
    out->depth += rsum;
    out->depth_lower += rsum;
    out->point_a = kcbp_v3_add(out->point_a, kcbp_v3_scale(n, ra));
    out->point_b = kcbp_v3_sub(out->point_b, kcbp_v3_scale(n, rb));
    if (out->status == KCBP_EPA_PENETRATING || out->status == KCBP_EPA_TOUCHING)
        out->status = out->depth <= tol ? KCBP_EPA_TOUCHING : KCBP_EPA_PENETRATING;
    /* epa.h: a depth >= 0 with a lower bound below it, a unit normal. */
    KCBP_ASSERT(out->depth >= 0 && out->depth_lower <= out->depth * (1 + 1e-12) + 1e-300);
    KCBP_ASSERT(fabs(kcbp_v3_len(out->normal) - 1) <= 1e-9);
}
