/* Contact manifolds (include/kcbp/manifold.h): the contacts kcbp_collide
 * finds, grouped into patches by the adjacency of their triangles; each
 * patch's normal, candidate points with their separations, and Box2D's
 * reduction to at most four points. Everything is computed in A's frame
 * and moved to the world at the end. */
#include <kcbp/manifold.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/collide.h>
#include <kcbp/contact_geom.h>

#include "base/util.h"
#include "convex/clip.h"
#include "convex/depth.h"
#include "geom/closest.h"
#include <kcbp/support.h>
#include "model_internal.h"

/* The first release's sizes: a caller's structs are at least this large. */
#define OPTIONS_V1_SIZE (offsetof(kcbp_manifold_options, use_cbp) + sizeof(bool))
#define SET_V1_SIZE (offsetof(kcbp_manifold_set, ncontacts) + sizeof(size_t))

/* Relative tolerances (of the pair's scale): a point is kept when its
 * separation is at most SEP_REL above 0; points closer than DUP_REL are one
 * point to the reduction. */
#define SEP_REL 1e-9
#define DUP_REL 1e-9
/* Two pairs' intersections that come this close (of the pair's scale)
 * are one curve: far above the rounding of the shared crossing points two
 * pairs compute from the same edge. */
#define MEET_REL 1e-9

void kcbp_manifold_options_init(kcbp_manifold_options *o, uint32_t size)
{
    kcbp_manifold_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.max_points = KCBP_MANIFOLD_POINTS_MAX;
    d.use_cbp = true;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

void kcbp_manifold_set_free(kcbp_manifold_set *set)
{
    if (!set)
        return;
    free(set->manifolds);
    set->manifolds = NULL;
    set->nmanifolds = set->capacity = 0;
}

static kcbp_status read_options(const kcbp_manifold_options *in, kcbp_manifold_options *o, kcbp_error *err)
{
    kcbp_manifold_options_init(o, (uint32_t)sizeof *o);
    if (!in)
        return KCBP_OK;
    kcbp_status st =
        kcbp_options_copy_in(o, sizeof *o, in, OPTIONS_V1_SIZE, "manifolds", "kcbp_manifold_options_default", err);
    if (st != KCBP_OK)
        return st;
    if (o->max_points < 1 || o->max_points > KCBP_MANIFOLD_POINTS_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "manifolds: max_points must be in [1, %d], not %u",
                              KCBP_MANIFOLD_POINTS_MAX, (unsigned)o->max_points);
    return KCBP_OK;
}

/* ---- candidates and their reduction ------------------------------------- */

typedef struct {
    kcbp_vec3 pa, pb; /* A's frame */
    double sep;
    uint32_t fa, fb;
} cand;

typedef struct {
    cand *c;
    size_t n, cap;
    bool nomem;
} cands;

static void push(cands *cs, cand c)
{
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 32;
        cand *p = realloc(cs->c, cap * sizeof *p);
        if (!p) {
            cs->nomem = true;
            return;
        }
        cs->c = p;
        cs->cap = cap;
    }
    cs->c[cs->n++] = c;
}

static kcbp_vec3 mid(const cand *c) { return kcbp_v3_scale(kcbp_v3_add(c->pa, c->pb), 0.5); }

/* Twice the area of triangle pqr seen along n. */
static double area2(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r, kcbp_vec3 n)
{
    return kcbp_v3_dot(kcbp_v3_cross(kcbp_v3_sub(q, p), kcbp_v3_sub(r, p)), n);
}

/* The candidates' reduction (Box2D's, Bullet's): the deepest; the farthest
 * from it; the one making the largest triangle with those; the one making
 * the largest quadrilateral. Indices into pick; returns their count. */
static uint32_t reduce(const cand *c, size_t n, kcbp_vec3 nrm, uint32_t maxp, double lin, size_t pick[4])
{
    size_t i0 = 0;
    for (size_t i = 1; i < n; i++)
        if (c[i].sep < c[i0].sep)
            i0 = i;
    /* Of the deepest to lin (a face resting on a face: all of them), the
     * farthest from the candidates' centre, so that rounding does not
     * choose a point in the middle of an edge. */
    kcbp_vec3 cen = kcbp_v3(0, 0, 0);
    for (size_t i = 0; i < n; i++)
        cen = kcbp_v3_add(cen, mid(&c[i]));
    cen = kcbp_v3_scale(cen, 1.0 / (double)n);
    double far = -1, floor_sep = c[i0].sep + lin;
    for (size_t i = 0; i < n; i++) {
        if (c[i].sep > floor_sep)
            continue;
        kcbp_vec3 d = kcbp_v3_sub(mid(&c[i]), cen);
        d = kcbp_v3_sub(d, kcbp_v3_scale(nrm, kcbp_v3_dot(d, nrm)));
        double dl = kcbp_v3_len(d);
        if (dl > far + lin)
            far = dl, i0 = i;
    }
    pick[0] = i0;
    if (maxp < 2)
        return 1;
    kcbp_vec3 p0 = mid(&c[i0]);
    size_t i1 = n;
    double best = lin;
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 d = kcbp_v3_sub(mid(&c[i]), p0);
        d = kcbp_v3_sub(d, kcbp_v3_scale(nrm, kcbp_v3_dot(d, nrm)));
        double dl = kcbp_v3_len(d);
        if (dl > best + lin || (i1 < n && dl > best - lin && c[i].sep < c[i1].sep))
            best = fmax(best, dl), i1 = i;
    }
    if (i1 == n)
        return 1;
    pick[1] = i1;
    if (maxp < 3)
        return 2;
    kcbp_vec3 p1 = mid(&c[i1]);
    double base = best, abest = base * lin;
    size_t i2 = n;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(area2(p0, p1, mid(&c[i]), nrm));
        if (a > abest + base * lin || (i2 < n && a > abest - base * lin && c[i].sep < c[i2].sep))
            abest = fmax(abest, a), i2 = i;
    }
    if (i2 == n)
        return 2;
    pick[2] = i2;
    if (maxp < 4)
        return 3;
    kcbp_vec3 p2 = mid(&c[i2]);
    double tri = abest, qbest = tri + base * lin;
    size_t i3 = n;
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 p = mid(&c[i]);
        /* the hull of four points: the largest of the three orders' areas */
        double q1 = fabs(area2(p0, p1, p2, nrm) + area2(p0, p2, p, nrm));
        double q2 = fabs(area2(p0, p1, p, nrm) + area2(p0, p, p2, nrm));
        double q3 = fabs(area2(p0, p, p1, nrm) + area2(p0, p1, p2, nrm));
        double q = fmax(q1, fmax(q2, q3));
        if (q > qbest + base * lin || (i3 < n && q > qbest - base * lin && c[i].sep < c[i3].sep))
            qbest = fmax(qbest, q), i3 = i;
    }
    if (i3 == n)
        return 3;
    pick[3] = i3;
    return 4;
}

/* The set's next manifold, the array grown (doubling, from 4); NULL when
 * memory ran out. */
static kcbp_manifold *next_manifold(kcbp_manifold_set *s)
{
    if (s->nmanifolds == s->capacity) {
        size_t cap = s->capacity ? 2 * s->capacity : 4;
        kcbp_manifold *m = realloc(s->manifolds, cap * sizeof *m);
        if (!m)
            return NULL;
        s->manifolds = m;
        s->capacity = cap;
    }
    kcbp_manifold *m = &s->manifolds[s->nmanifolds++];
    memset(m, 0, sizeof *m);
    return m;
}

/* Fills m from the candidates (n >= 1) and the unit normal, A's frame. */
static void emit(kcbp_manifold *m, const cand *c, size_t n, kcbp_vec3 nrm, uint32_t maxp, double lin,
                 const kcbp_pose *pose_a)
{
    double depth = 0;
    for (size_t i = 0; i < n; i++)
        depth = fmax(depth, -c[i].sep);
    m->depth = depth;
    m->normal = kcbp_mat3_mul_v3(&pose_a->rot, nrm);
    size_t pick[4];
    m->npoints = reduce(c, n, nrm, maxp, lin, pick);
    for (uint32_t k = 0; k < m->npoints; k++) {
        const cand *p = &c[pick[k]];
        m->points[k] = (kcbp_manifold_point){kcbp_pose_apply(pose_a, p->pa), kcbp_pose_apply(pose_a, p->pb), p->sep,
                                             p->fa, p->fb};
    }
}

static kcbp_vec3 unit_or(kcbp_vec3 v, kcbp_vec3 fallback)
{
    double len = kcbp_v3_len(v);
    return len > 0 && isfinite(len) ? kcbp_v3_scale(v, 1 / len) : fallback;
}

/* ---- two convex shapes ---------------------------------------------------- */

static void shape_pair(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                       const kcbp_pose *pose_b, uint32_t maxp, kcbp_manifold *m, cands *cs)
{
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b), id = kcbp_pose_identity();
    double scale = kcbp_pair_scale(a, b, &b_in_a), tol = SEP_REL * scale;
    kcbp_convex_depth c;
    kcbp_shape_pair_depth(&a->geom, &b->geom, &b_in_a, &c);
    kcbp_vec3 n;
    cand single = {.fa = KCBP_SHAPE_FEATURE, .fb = KCBP_SHAPE_FEATURE};
    if (c.overlap) {
        n = unit_or(c.normal, kcbp_v3(0, 0, 1));
        single.pa = c.point_a;
        single.pb = c.point_b;
        single.sep = -c.depth;
    } else { /* touching within the GJK band: the closest points */
        double d = kcbp_shape_pair_distance(&a->geom, &b->geom, &b_in_a, &single.pa, &single.pb, NULL);
        n = unit_or(kcbp_v3_sub(single.pb, single.pa), unit_or(b_in_a.trans, kcbp_v3(0, 0, 1)));
        single.sep = d;
    }
    cs->n = 0;
    kcbp_vec3 fa[KCBP_FEATURE_MAX], fb[KCBP_FEATURE_MAX], clipped[KCBP_CLIP_MAX];
    int na = kcbp_shape_feature(&a->geom, &id, n, fa);
    int nb = kcbp_shape_feature(&b->geom, &b_in_a, kcbp_v3_neg(n), fb);
    /* With no face on either side, a segment tilted to the normal touches
     * by its extreme end only (a capsule's or a cylinder's side line seen
     * at an angle): the support along the normal is that one point. */
    if (na <= 2 && nb <= 2) {
        if (na == 2 && fabs(kcbp_v3_dot(n, kcbp_v3_sub(fa[1], fa[0]))) > 1e-6 * kcbp_v3_len(kcbp_v3_sub(fa[1], fa[0]))) {
            fa[0] = kcbp_v3_dot(n, fa[1]) > kcbp_v3_dot(n, fa[0]) ? fa[1] : fa[0];
            na = 1;
        }
        if (nb == 2 && fabs(kcbp_v3_dot(n, kcbp_v3_sub(fb[1], fb[0]))) > 1e-6 * kcbp_v3_len(kcbp_v3_sub(fb[1], fb[0]))) {
            fb[0] = kcbp_v3_dot(n, fb[1]) < kcbp_v3_dot(n, fb[0]) ? fb[1] : fb[0];
            nb = 1;
        }
    }
    bool parallel = false;
    if (na == 2 && nb == 2) {
        kcbp_vec3 ea = kcbp_v3_sub(fa[1], fa[0]), eb = kcbp_v3_sub(fb[1], fb[0]);
        parallel = kcbp_v3_len(kcbp_v3_cross(ea, eb)) <= 1e-6 * kcbp_v3_len(ea) * kcbp_v3_len(eb);
    }
    if (na >= 2 && nb >= 2 && (na >= 3 || nb >= 3 || parallel)) {
        bool ref_a;
        if (na >= 3 && nb >= 3)
            ref_a = fabs(kcbp_v3_dot(kcbp_polygon_normal(fa, na), n)) >=
                    fabs(kcbp_v3_dot(kcbp_polygon_normal(fb, nb), n)) - 1e-9;
        else
            ref_a = na >= nb;
        const kcbp_vec3 *ref = ref_a ? fa : fb, *inc = ref_a ? fb : fa;
        int nref = ref_a ? na : nb, ninc = ref_a ? nb : na;
        int k = kcbp_clip_feature(inc, ninc, ref, nref, n, clipped);
        kcbp_vec3 plane = nref >= 3 ? kcbp_polygon_normal(ref, nref) : n;
        double pn = kcbp_v3_dot(plane, n);
        for (int i = 0; i < k && fabs(pn) > 1e-6; i++) {
            kcbp_vec3 p = clipped[i];
            double t = -kcbp_v3_dot(plane, kcbp_v3_sub(p, ref[0])) / pn;
            kcbp_vec3 q = kcbp_v3_add(p, kcbp_v3_scale(n, t));
            cand cd = {.fa = KCBP_SHAPE_FEATURE, .fb = KCBP_SHAPE_FEATURE};
            cd.pa = ref_a ? q : p;
            cd.pb = ref_a ? p : q;
            cd.sep = ref_a ? -t : t;
            if (cd.sep <= tol)
                push(cs, cd);
        }
    }
    if (cs->n == 0 && c.overlap) {
        /* One point, on the line along n that the identity wants: through a
         * point feature (a sphere, a capsule seen end on), else midway
         * between the closest points of two crossed segments, else midway
         * between the depth's witnesses (which EPA does not always put on
         * one line along n). */
        double d = c.depth;
        kcbp_vec3 mid = kcbp_v3_scale(kcbp_v3_add(single.pa, single.pb), 0.5);
        if (na == 1) {
            single.pa = fa[0];
            single.pb = kcbp_v3_sub(fa[0], kcbp_v3_scale(n, d));
        } else if (nb == 1) {
            single.pb = fb[0];
            single.pa = kcbp_v3_add(fb[0], kcbp_v3_scale(n, d));
        } else if (na == 2 && nb == 2) {
            /* where the segments, seen along n, cross (or come closest):
             * the closest points of their projections on the plane normal
             * to n, lifted back onto each segment */
            kcbp_vec3 q[4], c1, c2;
            const kcbp_vec3 f[4] = {fa[0], fa[1], fb[0], fb[1]};
            for (int i = 0; i < 4; i++)
                q[i] = kcbp_v3_sub(f[i], kcbp_v3_scale(n, kcbp_v3_dot(f[i], n)));
            kcbp_cp_seg_seg(q[0], q[1], q[2], q[3], &c1, &c2);
            kcbp_vec3 ea = kcbp_v3_sub(q[1], q[0]), eb = kcbp_v3_sub(q[3], q[2]);
            double la = kcbp_v3_len2(ea), lb = kcbp_v3_len2(eb);
            double sa = la > 0 ? kcbp_v3_dot(kcbp_v3_sub(c1, q[0]), ea) / la : 0;
            double sb = lb > 0 ? kcbp_v3_dot(kcbp_v3_sub(c2, q[2]), eb) / lb : 0;
            double ha = kcbp_v3_dot(n, kcbp_v3_add(fa[0], kcbp_v3_scale(kcbp_v3_sub(fa[1], fa[0]), sa)));
            double hb = kcbp_v3_dot(n, kcbp_v3_add(fb[0], kcbp_v3_scale(kcbp_v3_sub(fb[1], fb[0]), sb)));
            mid = kcbp_v3_scale(kcbp_v3_add(c1, c2), 0.5);
            single.pa = kcbp_v3_add(mid, kcbp_v3_scale(n, ha));
            single.pb = kcbp_v3_add(mid, kcbp_v3_scale(n, hb));
            single.sep = hb - ha;
        } else {
            single.pa = kcbp_v3_add(mid, kcbp_v3_scale(n, d / 2));
            single.pb = kcbp_v3_sub(mid, kcbp_v3_scale(n, d / 2));
        }
    }
    if (cs->n == 0)
        push(cs, single);
    if (cs->nomem)
        return;
    emit(m, cs->c, cs->n, n, maxp, DUP_REL * scale, pose_a);
    m->depth = c.overlap ? c.depth : 0;
    m->depth_exact = c.overlap && c.exact;
    m->ncontacts = 1;
}

/* ---- patches: contacts grouped by the adjacency of their triangles ------- */

typedef struct {
    double x, y, z;
    uint32_t tri;
} vkey;

static int cmp_vkey(const void *p, const void *q)
{
    const vkey *a = p, *b = q;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return (a->tri > b->tri) - (a->tri < b->tri);
}

/* One side's triangles of the contacts, by vertex position (local frame):
 * sorted records (position, triangle), one per vertex of each triangle. */
typedef struct {
    vkey *k;
    size_t n;
} vindex;

static bool vindex_build(vindex *v, const kcbp_model_impl *m, const kcbp_contact *c, size_t n, bool side_b)
{
    v->n = 0;
    v->k = NULL;
    if (kcbp_impl_is_shape(m))
        return true;
    v->k = malloc((3 * n + 1) * sizeof *v->k);
    if (!v->k)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint32_t t = side_b ? c[i].b : c[i].a;
        if (i > 0 && !side_b && c[i - 1].a == t)
            continue; /* sorted by a: a's records are in already */
        for (int k = 0; k < 3; k++) {
            kcbp_vec3 p = m->mesh.vertices[m->mesh.triangles[t].v[k]];
            v->k[v->n++] = (vkey){p.x, p.y, p.z, t};
        }
    }
    qsort(v->k, v->n, sizeof *v->k, cmp_vkey);
    size_t w = 0; /* unique records */
    for (size_t i = 0; i < v->n; i++)
        if (w == 0 || cmp_vkey(&v->k[w - 1], &v->k[i]) != 0)
            v->k[w++] = v->k[i];
    v->n = w;
    return true;
}

/* The range [*lo, *hi) of records at position p. */
static void vindex_range(const vindex *v, kcbp_vec3 p, size_t *lo, size_t *hi)
{
    vkey key = {p.x, p.y, p.z, 0};
    size_t l = 0, h = v->n;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (cmp_vkey(&v->k[mid], &key) < 0)
            l = mid + 1;
        else
            h = mid;
    }
    *lo = l;
    key.tri = UINT32_MAX;
    h = v->n;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (cmp_vkey(&v->k[mid], &key) <= 0)
            l = mid + 1;
        else
            h = mid;
    }
    *hi = l;
}

static int cmp_u32(const void *p, const void *q)
{
    uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return (a > b) - (a < b);
}

/* Sorts v[0 .. n) and drops repeats; returns the new count. */
static size_t unique_u32(uint32_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u32);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || v[w - 1] != v[i])
            v[w++] = v[i];
    return w;
}

/* The triangles sharing a vertex with t (t among them), or only t for a
 * shape's side, into out (grown); their count, or SIZE_MAX out of memory. */
static size_t neighbours(const vindex *v, const kcbp_model_impl *m, uint32_t t, uint32_t **out, size_t *cap)
{
    size_t n = 0;
    if (*cap < 1) {
        uint32_t *p = realloc(*out, 64 * sizeof *p);
        if (!p)
            return SIZE_MAX;
        *out = p;
        *cap = 64;
    }
    if (kcbp_impl_is_shape(m) || t == KCBP_SHAPE_FEATURE) {
        (*out)[n++] = t;
        return n;
    }
    for (int k = 0; k < 3; k++) {
        size_t lo, hi;
        vindex_range(v, m->mesh.vertices[m->mesh.triangles[t].v[k]], &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            if (n == *cap) {
                uint32_t *p = realloc(*out, 2 * *cap * sizeof *p);
                if (!p)
                    return SIZE_MAX;
                *out = p;
                *cap *= 2;
            }
            (*out)[n++] = v->k[i].tri;
        }
    }
    return unique_u32(*out, n); /* a neighbour across an edge is listed twice, t three times */
}

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static int cmp_contact(const void *p, const void *q)
{
    const kcbp_contact *a = p, *b = q;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* Groups the n contacts (sorted by (a, b)) into patches: order[] lists the
 * contacts patch by patch, start[p] .. start[p + 1] the p-th; returns the
 * number of patches, or SIZE_MAX when memory ran out. Two contacts are
 * grouped when their triangles in A are the same or share a vertex, so are
 * their triangles in B, and, with geom (two meshes: each pair's
 * intersection), their intersections share a point (to tol): pieces of one
 * intersection curve, not two contacts that coarse triangles happen to
 * join. */
static bool meet(const kcbp_contact_geom *g, const kcbp_contact_geom *h, double tol)
{
    for (uint32_t i = 0; i < g->npoints; i++)
        for (uint32_t j = 0; j < h->npoints; j++)
            if (kcbp_v3_len2(kcbp_v3_sub(g->points[i], h->points[j])) <= tol * tol)
                return true;
    return false;
}

static size_t group(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_contact *c, size_t n,
                    const kcbp_contact_geom *geom, double tol, size_t *order, size_t *start)
{
    size_t result = SIZE_MAX, *parent = malloc((n + 1) * sizeof *parent), *count = NULL;
    vindex va = {0}, vb = {0};
    uint32_t *na = NULL, *nb = NULL;
    size_t ca = 0, cb = 0;
    if (!parent || !vindex_build(&va, a, c, n, false) || !vindex_build(&vb, b, c, n, true))
        goto done;
    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    for (size_t i = 0; i < n; i++) {
        size_t ka = neighbours(&va, a, c[i].a, &na, &ca);
        if (ka == SIZE_MAX)
            goto done;
        size_t kb = neighbours(&vb, b, c[i].b, &nb, &cb);
        if (kb == SIZE_MAX)
            goto done;
        for (size_t x = 0; x < ka; x++)
            for (size_t y = 0; y < kb; y++) {
                kcbp_contact key = {na[x], nb[y]};
                const kcbp_contact *hit = bsearch(&key, c, n, sizeof *c, cmp_contact);
                if (hit && (!geom || meet(&geom[i], &geom[hit - c], tol))) {
                    size_t r1 = uf_find(parent, i), r2 = uf_find(parent, (size_t)(hit - c));
                    if (r1 != r2)
                        parent[r1 > r2 ? r1 : r2] = r1 < r2 ? r1 : r2;
                }
            }
    }
    /* patch ids in order of their first contact, then a counting sort */
    count = calloc(n + 1, sizeof *count);
    if (!count)
        goto done;
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = uf_find(parent, i);
        if (r == i)
            count[i] = np++; /* the root's id */
    }
    for (size_t p = 0; p <= np; p++)
        start[p] = 0;
    for (size_t i = 0; i < n; i++)
        start[count[uf_find(parent, i)] + 1]++;
    for (size_t p = 0; p < np; p++)
        start[p + 1] += start[p];
    size_t *fill = parent; /* reused: roots are known through count[] no more after this */
    size_t *id = malloc((n + 1) * sizeof *id);
    if (!id)
        goto done;
    for (size_t i = 0; i < n; i++)
        id[i] = count[uf_find(parent, i)];
    for (size_t p = 0; p < np; p++)
        fill[p] = start[p];
    for (size_t i = 0; i < n; i++)
        order[fill[id[i]]++] = i;
    free(id);
    result = np;
done:
    free(parent);
    free(count);
    free(va.k);
    free(vb.k);
    free(na);
    free(nb);
    return result;
}

/* ---- lines along the normal against triangles -------------------------- */

/* Where the line o + t d (d unit) meets triangle t[3]: true and *t when it
 * does (its edges widened by 1e-9 of their span, so that a point on an edge
 * is found); a line in the triangle's plane meets none. */
static bool line_tri(kcbp_vec3 o, kcbp_vec3 d, const kcbp_vec3 t[3], double *at)
{
    kcbp_vec3 e1 = kcbp_v3_sub(t[1], t[0]), e2 = kcbp_v3_sub(t[2], t[0]);
    kcbp_vec3 p = kcbp_v3_cross(d, e2);
    double det = kcbp_v3_dot(e1, p);
    if (!(fabs(det) > 1e-12 * kcbp_v3_len(e1) * kcbp_v3_len(e2)))
        return false;
    double inv = 1 / det, eps = 1e-9;
    kcbp_vec3 s = kcbp_v3_sub(o, t[0]);
    double u = kcbp_v3_dot(s, p) * inv;
    if (u < -eps || u > 1 + eps)
        return false;
    kcbp_vec3 q = kcbp_v3_cross(s, e1);
    double v = kcbp_v3_dot(d, q) * inv;
    if (v < -eps || u + v > 1 + eps)
        return false;
    *at = kcbp_v3_dot(e2, q) * inv;
    return isfinite(*at);
}

/* Triangle t of model m in A's frame (B's carried by b_in_a). */
static void tri_in_a(const kcbp_model_impl *m, uint32_t t, const kcbp_pose *to_a, kcbp_vec3 out[3])
{
    for (int k = 0; k < 3; k++) {
        kcbp_vec3 v = m->mesh.vertices[m->mesh.triangles[t].v[k]];
        out[k] = to_a ? kcbp_pose_apply(to_a, v) : v;
    }
}

static kcbp_vec3 tri_normal(const kcbp_vec3 t[3])
{
    return kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
}

/* ---- a shape and a mesh --------------------------------------------------- */

/* Whether p (the shape's frame) is in shape g, in double: the bisection's
 * test, which runs where the exact test (kcbp_shape_geom_point_side) would
 * go to rational arithmetic on every step. A hull takes GJK's. */
static bool inside_approx(const kcbp_shape_geom *g, kcbp_vec3 p)
{
    double r = g->def.radius;
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: return kcbp_v3_len2(p) <= r * r;
    case KCBP_SHAPE_CAPSULE: {
        double z = fmin(fmax(p.z, -g->half.z), g->half.z);
        return p.x * p.x + p.y * p.y + (p.z - z) * (p.z - z) <= r * r;
    }
    case KCBP_SHAPE_BOX: return fabs(p.x) <= g->half.x && fabs(p.y) <= g->half.y && fabs(p.z) <= g->half.z;
    case KCBP_SHAPE_CYLINDER: return p.x * p.x + p.y * p.y <= r * r && fabs(p.z) <= g->half.z;
    default: return kcbp_shape_geom_point_side(g, p, 0) >= 0;
    }
}

/* One patch of the mesh's triangles tris[0 .. k) touching the shape. All in
 * A's frame: the shape placed by sp (identity when it is A), the mesh's
 * triangles carried by mp (NULL when it is A). */
static void shape_patch(const kcbp_model_impl *shape, const kcbp_pose *sp, const kcbp_model_impl *mesh,
                        const kcbp_pose *mp, bool shape_is_a, const uint32_t *tris, size_t k, double scale, cands *cs,
                        kcbp_vec3 *normal)
{
    kcbp_vec3 centre = sp->trans, sum = kcbp_v3(0, 0, 0);
    for (size_t i = 0; i < k; i++) {
        kcbp_vec3 t[3];
        tri_in_a(mesh, tris[i], mp, t);
        kcbp_vec3 n = tri_normal(t); /* |n| = twice the area: area-weighted */
        kcbp_vec3 g = kcbp_v3_scale(kcbp_v3_add(t[0], kcbp_v3_add(t[1], t[2])), 1.0 / 3);
        if (kcbp_v3_dot(n, kcbp_v3_sub(centre, g)) < 0)
            n = kcbp_v3_neg(n);
        sum = kcbp_v3_add(sum, n);
    }
    kcbp_vec3 toward = unit_or(sum, kcbp_v3(0, 0, 1)); /* out of the mesh, toward the shape */
    kcbp_vec3 n = shape_is_a ? kcbp_v3_neg(toward) : toward;
    *normal = n;
    double tol = SEP_REL * scale;
    cs->n = 0;
    /* the shape's face toward the mesh, carried along n onto the patch */
    kcbp_vec3 f[KCBP_FEATURE_MAX];
    int nf = kcbp_shape_feature(&shape->geom, sp, kcbp_v3_neg(toward), f);
    for (int j = 0; j < nf; j++) {
        double best = INFINITY;
        uint32_t bt = 0;
        for (size_t i = 0; i < k; i++) {
            kcbp_vec3 t[3];
            double at;
            tri_in_a(mesh, tris[i], mp, t);
            if (line_tri(f[j], n, t, &at) && fabs(at) < fabs(best))
                best = at, bt = tris[i];
        }
        if (!isfinite(best))
            continue;
        kcbp_vec3 q = kcbp_v3_add(f[j], kcbp_v3_scale(n, best));
        cand c = shape_is_a ? (cand){f[j], q, best, KCBP_SHAPE_FEATURE, bt} : (cand){q, f[j], -best, bt, KCBP_SHAPE_FEATURE};
        if (c.sep <= tol)
            push(cs, c);
    }
    /* the patch's vertices inside the shape, carried to its surface */
    size_t stride = 3 * k > KCBP_MANIFOLD_CANDIDATES_MAX ? (3 * k + KCBP_MANIFOLD_CANDIDATES_MAX - 1) / KCBP_MANIFOLD_CANDIDATES_MAX : 1;
    kcbp_pose inv = kcbp_pose_inverse(sp);
    double reach = shape->geom.reach;
    for (size_t v = 0; v < 3 * k; v += stride) {
        kcbp_vec3 t[3];
        tri_in_a(mesh, tris[v / 3], mp, t);
        kcbp_vec3 p = t[v % 3];
        if (kcbp_shape_geom_point_side(&shape->geom, kcbp_pose_apply(&inv, p), 0) < 0)
            continue;
        /* out of the shape along -toward: its surface between lo and hi */
        kcbp_vec3 dir = kcbp_v3_neg(toward);
        double lo = 0, hi = 2 * reach + kcbp_v3_len(kcbp_v3_sub(p, centre));
        for (int it = 0; it < 200 && hi - lo > 1e-12 * reach; it++) {
            double m = 0.5 * (lo + hi);
            if (inside_approx(&shape->geom, kcbp_pose_apply(&inv, kcbp_v3_add(p, kcbp_v3_scale(dir, m)))))
                lo = m;
            else
                hi = m;
        }
        kcbp_vec3 e = kcbp_v3_add(p, kcbp_v3_scale(dir, lo));
        cand c = shape_is_a ? (cand){e, p, -lo, KCBP_SHAPE_FEATURE, tris[v / 3]}
                            : (cand){p, e, -lo, tris[v / 3], KCBP_SHAPE_FEATURE};
        push(cs, c);
    }
    if (cs->n == 0) { /* touching by an edge: a point the triangle and the shape share (GJK) */
        double best = INFINITY;
        kcbp_vec3 bq = centre, bs = centre;
        uint32_t bt = tris[0];
        for (size_t i = 0; i < k && best > 0; i++) {
            kcbp_vec3 t[3], pt, ps;
            tri_in_a(mesh, tris[i], mp, t);
            kcbp_convex tri = kcbp_convex_polytope(t, 3, NULL, NULL, 0);
            double d = kcbp_convex_distance_points(&tri, &shape->geom.convex, sp, &pt, &ps, NULL);
            if (d < best)
                best = d, bq = pt, bs = ps, bt = tris[i];
        }
        kcbp_vec3 mid = kcbp_v3_scale(kcbp_v3_add(bq, bs), 0.5); /* one point: they touch (within GJK's band) */
        push(cs, shape_is_a ? (cand){mid, mid, 0, KCBP_SHAPE_FEATURE, bt} : (cand){mid, mid, 0, bt, KCBP_SHAPE_FEATURE});
    }
}

/* ---- two meshes ------------------------------------------------------------ */


/* A patch triangle in A's frame, with its box in the plane normal to the
 * patch's normal (axes u, v) for a quick reject of the lines cast along it. */
typedef struct {
    kcbp_vec3 v[3];
    double lo_u, hi_u, lo_v, hi_v;
    uint32_t id;
} ptri;

/* The triangles ids[0 .. n) of model m in A's frame into out. */
static void load_tris(const kcbp_model_impl *m, const kcbp_pose *to_a, const uint32_t *ids, size_t n, ptri *out)
{
    for (size_t i = 0; i < n; i++) {
        tri_in_a(m, ids[i], to_a, out[i].v);
        out[i].id = ids[i];
    }
}

/* How far B's triangles must move along the unit d to clear A's (as
 * vertex sets): max over A's vertices of d . v less min over B's. */
static double overlap_along(const ptri *ta, size_t nta, const ptri *tb, size_t ntb, kcbp_vec3 d)
{
    double hi = -INFINITY, lo = INFINITY;
    for (size_t i = 0; i < nta; i++)
        for (int k = 0; k < 3; k++)
            hi = fmax(hi, kcbp_v3_dot(d, ta[i].v[k]));
    for (size_t i = 0; i < ntb; i++)
        for (int k = 0; k < 3; k++)
            lo = fmin(lo, kcbp_v3_dot(d, tb[i].v[k]));
    return hi - lo;
}

/* A patch's normal: of the axes tried (est, and the unit normals of the
 * patch's triangles, both signs, at most AXES_MAX of them sampled evenly),
 * the one along which B's patch triangles clear A's by the shortest move
 * (a separating-axis test on the patch's own triangles; ties: the first). */
#define AXES_MAX 64
static kcbp_vec3 patch_axis(const ptri *ta, size_t nta, const ptri *tb, size_t ntb, kcbp_vec3 est)
{
    kcbp_vec3 best = est;
    double bo = overlap_along(ta, nta, tb, ntb, est);
    size_t nt = nta + ntb, stride = nt > AXES_MAX / 2 ? (nt + AXES_MAX / 2 - 1) / (AXES_MAX / 2) : 1;
    for (size_t i = 0; i < nt; i += stride) {
        const ptri *t = i < nta ? &ta[i] : &tb[i - nta];
        kcbp_vec3 d = unit_or(tri_normal(t->v), kcbp_v3(0, 0, 0));
        if (kcbp_v3_len2(d) == 0)
            continue;
        for (int sgn = 0; sgn < 2; sgn++, d = kcbp_v3_neg(d)) {
            double o = overlap_along(ta, nta, tb, ntb, d);
            if (o < bo)
                bo = o, best = d;
        }
    }
    return best;
}

/* Two unit axes normal to the unit n. */
static void plane_axes(kcbp_vec3 n, kcbp_vec3 *u, kcbp_vec3 *v)
{
    kcbp_vec3 e = fabs(n.x) < 0.6 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0);
    *u = unit_or(kcbp_v3_cross(n, e), kcbp_v3(0, 0, 1));
    *v = kcbp_v3_cross(n, *u);
}

static void set_boxes(ptri *t, size_t n, kcbp_vec3 u, kcbp_vec3 v, double pad)
{
    for (size_t i = 0; i < n; i++) {
        double a0 = kcbp_v3_dot(u, t[i].v[0]), a1 = kcbp_v3_dot(u, t[i].v[1]), a2 = kcbp_v3_dot(u, t[i].v[2]);
        double b0 = kcbp_v3_dot(v, t[i].v[0]), b1 = kcbp_v3_dot(v, t[i].v[1]), b2 = kcbp_v3_dot(v, t[i].v[2]);
        t[i].lo_u = fmin(a0, fmin(a1, a2)) - pad;
        t[i].hi_u = fmax(a0, fmax(a1, a2)) + pad;
        t[i].lo_v = fmin(b0, fmin(b1, b2)) - pad;
        t[i].hi_v = fmax(b0, fmax(b1, b2)) + pad;
    }
}

/* The line o + t n against the triangles: mode 0, the largest t >= -eps;
 * mode 1, the smallest t <= eps; mode 2, the hit of smallest |t| (any
 * side). Returns false when there is none; *at, *id the hit. */
static bool cast(kcbp_vec3 o, kcbp_vec3 n, kcbp_vec3 u, kcbp_vec3 v, const ptri *t, size_t nt, int mode, double eps,
                 double *at, uint32_t *id)
{
    double ou = kcbp_v3_dot(u, o), ov = kcbp_v3_dot(v, o), best = mode == 0 ? -INFINITY : INFINITY;
    bool found = false;
    for (size_t i = 0; i < nt; i++) {
        double h;
        if (ou < t[i].lo_u || ou > t[i].hi_u || ov < t[i].lo_v || ov > t[i].hi_v || !line_tri(o, n, t[i].v, &h))
            continue;
        bool better = mode == 0 ? h >= -eps && h > best : mode == 1 ? h <= eps && h < best : fabs(h) < fabs(best);
        if (better)
            best = h, *id = t[i].id, found = true;
    }
    *at = best;
    return found;
}

/* One patch of the contacts idx[0 .. k) of two meshes. Work arrays: ta and
 * tb (k ids each) and pt (2 k triangles). false: out of memory. */
static bool mesh_patch(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a,
                       const kcbp_contact *c, const size_t *idx, size_t k, double scale, uint32_t *ta, uint32_t *tb,
                       ptri *pt, cands *cs, kcbp_vec3 *normal)
{
    kcbp_vec3 nsum = kcbp_v3(0, 0, 0), nsum1 = nsum, asum = nsum, bcen = nsum, acen = nsum;
    cands pts = {0}; /* the intersections' points (pa: the point; fa, fb: the pair) */
    for (size_t i = 0; i < k; i++) {
        kcbp_vec3 A[3], B[3], q[KCBP_CONTACT_POINTS_MAX];
        tri_in_a(a, c[idx[i]].a, NULL, A);
        tri_in_a(b, c[idx[i]].b, b_in_a, B);
        uint32_t m = kcbp_tri_intersection(A, B, q);
        double w = 0;
        if (m == 2)
            w = kcbp_v3_len(kcbp_v3_sub(q[1], q[0]));
        for (uint32_t j = 1; m > 2 && j + 1 < m; j++)
            w += 0.5 * kcbp_v3_len(kcbp_v3_cross(kcbp_v3_sub(q[j], q[0]), kcbp_v3_sub(q[j + 1], q[0])));
        kcbp_vec3 na = unit_or(tri_normal(A), kcbp_v3(0, 0, 0)), nb = unit_or(tri_normal(B), kcbp_v3(0, 0, 0));
        kcbp_vec3 d = kcbp_v3_sub(na, nb);
        nsum = kcbp_v3_add(nsum, kcbp_v3_scale(d, w));
        nsum1 = kcbp_v3_add(nsum1, d);
        asum = kcbp_v3_add(asum, na);
        for (int j = 0; j < 3; j++) {
            acen = kcbp_v3_add(acen, A[j]);
            bcen = kcbp_v3_add(bcen, B[j]);
        }
        for (uint32_t j = 0; j < m; j++)
            push(&pts, (cand){q[j], q[j], 0, c[idx[i]].a, c[idx[i]].b});
        ta[i] = c[idx[i]].a;
        tb[i] = c[idx[i]].b;
    }
    if (pts.nomem) {
        free(pts.c);
        return false;
    }
    kcbp_vec3 est = unit_or(nsum, unit_or(nsum1, unit_or(asum, unit_or(kcbp_v3_sub(bcen, acen), kcbp_v3(0, 0, 1)))));
    size_t nta = unique_u32(ta, k), ntb = unique_u32(tb, k);
    ptri *pa = pt, *pb = pt + nta;
    load_tris(a, NULL, ta, nta, pa);
    load_tris(b, b_in_a, tb, ntb, pb);
    kcbp_vec3 n = patch_axis(pa, nta, pb, ntb, est), u, v;
    *normal = n;
    plane_axes(n, &u, &v);
    double eps = 1e-12 * scale, pad = 1e-9 * scale;
    set_boxes(pa, nta, u, v, pad);
    set_boxes(pb, ntb, u, v, pad);
    cs->n = 0;
    /* the intersections' points: the surfaces' overlap along n there */
    size_t stride = pts.n > KCBP_MANIFOLD_CANDIDATES_MAX
                        ? (pts.n + KCBP_MANIFOLD_CANDIDATES_MAX - 1) / KCBP_MANIFOLD_CANDIDATES_MAX
                        : 1;
    for (size_t i = 0; i < pts.n; i += stride) {
        kcbp_vec3 o = pts.c[i].pa;
        double t_a, t_b;
        uint32_t id;
        if (!cast(o, n, u, v, pa, nta, 0, eps, &t_a, &id))
            t_a = 0;
        if (!cast(o, n, u, v, pb, ntb, 1, eps, &t_b, &id))
            t_b = 0;
        t_a = fmax(t_a, 0);
        t_b = fmin(t_b, 0);
        push(cs, (cand){kcbp_v3_add(o, kcbp_v3_scale(n, t_a)), kcbp_v3_add(o, kcbp_v3_scale(n, t_b)), t_b - t_a,
                        pts.c[i].fa, pts.c[i].fb});
    }
    free(pts.c);
    /* The patch triangles' vertices whose nearest hit along the normal on
     * the other side's patch triangles is ahead of them (B's under A's
     * surface, A's over B's): the deepest points its triangles reach (a
     * foot whose bottom is wholly inside A, only its sides crossing A's
     * surface). */
    for (int side = 0; side < 2; side++) {
        const ptri *mt = side ? pb : pa, *ot = side ? pa : pb;
        size_t nm = side ? ntb : nta, no = side ? nta : ntb;
        size_t vstride = 3 * nm > KCBP_MANIFOLD_CANDIDATES_MAX
                             ? (3 * nm + KCBP_MANIFOLD_CANDIDATES_MAX - 1) / KCBP_MANIFOLD_CANDIDATES_MAX
                             : 1;
        for (size_t x = 0; x < 3 * nm; x += vstride) {
            kcbp_vec3 w = mt[x / 3].v[x % 3];
            double h;
            uint32_t id;
            if (!cast(w, n, u, v, ot, no, 2, eps, &h, &id) || !(side ? h > eps : h < -eps))
                continue;
            kcbp_vec3 q = kcbp_v3_add(w, kcbp_v3_scale(n, h));
            push(cs, side ? (cand){q, w, -h, id, mt[x / 3].id} : (cand){w, q, h, mt[x / 3].id, id});
        }
    }
    return true;
}

/* ---- the query --------------------------------------------------------------- */

kcbp_status kcbp_manifolds_sized(const kcbp_model *ma, const kcbp_pose *pose_a, const kcbp_model *mb,
                                 const kcbp_pose *pose_b, const kcbp_manifold_options *options,
                                 kcbp_manifold_set *out, size_t out_size, kcbp_error *err)
{
    if (!out || out_size < SET_V1_SIZE)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "manifolds: the set is NULL or smaller than a 1.x set");
    out->collide = false;
    out->nmanifolds = 0;
    out->ncontacts = 0;
    if (!ma || !mb || !ma->impl || !mb->impl || !pose_a || !pose_b)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "manifolds: a model or pose is NULL");
    kcbp_manifold_options o;
    kcbp_status st = read_options(options, &o, err);
    if (st != KCBP_OK)
        return st;
    const kcbp_model_impl *a = ma->impl, *b = mb->impl;
    if (kcbp_impl_is_empty(a) || kcbp_impl_is_empty(b))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "manifolds: a model without triangles");

    bool shapes = kcbp_impl_is_shape(a) && kcbp_impl_is_shape(b);
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = shapes ? KCBP_CONTACTS_NONE : KCBP_CONTACTS_ALL;
    co.use_cbp = o.use_cbp;
    kcbp_collide_result cr;
    memset(&cr, 0, sizeof cr);
    st = kcbp_collide(ma, pose_a, mb, pose_b, &co, &cr, err);
    if (st != KCBP_OK || !cr.collide) {
        kcbp_collide_result_free(&cr);
        return st;
    }
    out->collide = true;
    cands cs = {0};
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double scale = kcbp_pair_scale(a, b, &b_in_a);
    if (shapes) {
        out->ncontacts = 1;
        kcbp_manifold *m = next_manifold(out);
        if (m)
            shape_pair(a, pose_a, b, pose_b, o.max_points, m, &cs);
        st = m && !cs.nomem ? KCBP_OK : kcbp_error_set(err, KCBP_ERR_NOMEM, "manifolds: out of memory");
        goto done;
    }
    size_t n = cr.ncontacts;
    out->ncontacts = n;
    if (n == 0) /* a solid inside the other cannot be: collide here is surfaces' */
        goto done;
    bool shape_mesh = kcbp_impl_is_shape(a) || kcbp_impl_is_shape(b);
    size_t *order = malloc(n * sizeof *order), *start = malloc((n + 2) * sizeof *start);
    uint32_t *ta = malloc(n * sizeof *ta), *tb = malloc(n * sizeof *tb);
    ptri *pt = shape_mesh ? NULL : malloc(2 * n * sizeof *pt);
    /* two meshes: each pair's intersection, for the grouping */
    kcbp_contact_geom *geom = shape_mesh ? NULL : malloc(n * sizeof *geom);
    kcbp_pose id = kcbp_pose_identity();
    if (geom) /* in A's frame, where the pair's scale measures rounding */
        kcbp_contact_geometry(ma, &id, mb, &b_in_a, cr.contacts, n, geom, NULL);
    size_t np = order && start && ta && tb && (shape_mesh || (pt && geom))
                    ? group(a, b, cr.contacts, n, geom, MEET_REL * scale, order, start)
                    : SIZE_MAX;
    st = KCBP_OK;
    for (size_t p = 0; np != SIZE_MAX && p < np && st == KCBP_OK; p++) {
        const size_t *idx = order + start[p];
        size_t k = start[p + 1] - start[p];
        kcbp_vec3 nrm;
        if (shape_mesh) {
            bool shape_is_a = kcbp_impl_is_shape(a);
            for (size_t i = 0; i < k; i++)
                ta[i] = shape_is_a ? cr.contacts[idx[i]].b : cr.contacts[idx[i]].a;
            if (shape_is_a)
                shape_patch(a, &id, b, &b_in_a, true, ta, k, scale, &cs, &nrm);
            else
                shape_patch(b, &b_in_a, a, NULL, false, ta, k, scale, &cs, &nrm);
        } else if (!mesh_patch(a, b, &b_in_a, cr.contacts, idx, k, scale, ta, tb, pt, &cs, &nrm)) {
            cs.nomem = true;
        }
        kcbp_manifold *m = cs.nomem || cs.n == 0 ? NULL : next_manifold(out);
        if (!m) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "manifolds: out of memory");
            break;
        }
        emit(m, cs.c, cs.n, nrm, o.max_points, DUP_REL * scale, pose_a);
        m->ncontacts = (uint32_t)(k < UINT32_MAX ? k : UINT32_MAX);
    }
    if (np == SIZE_MAX)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "manifolds: out of memory");
    free(order);
    free(start);
    free(ta);
    free(tb);
    free(pt);
    free(geom);
done:
    if (st != KCBP_OK)
        out->nmanifolds = 0;
    free(cs.c);
    kcbp_collide_result_free(&cr);
    return st;
}
