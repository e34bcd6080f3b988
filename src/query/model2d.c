/* Non-convex 2D models: building, checking, exact collision and distance
 * (include/kcbp/polygon2d.h). */
#include <kcbp/polygon2d.h>
#include <kcbp/distance2d.h>

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "bvh/tree2d.h"
#include "convex/convex2d.h"
#include "geom/closest.h"
#include "query/model2d_internal.h"

uint32_t kcbp2d_model_vertex_count(const kcbp2d_model *m) { return m ? m->nv : 0; }
uint32_t kcbp2d_model_ring_count(const kcbp2d_model *m) { return m ? m->nrings : 0; }
const kcbp_vec2 *kcbp2d_model_vertices(const kcbp2d_model *m) { return m ? m->v : NULL; }
uint32_t kcbp2d_model_edge_end(const kcbp2d_model *m, uint32_t e) { return m && e < m->nv ? m->next[e] : 0; }

void kcbp2d_model_bounds(const kcbp2d_model *m, kcbp_vec2 *lo, kcbp_vec2 *hi)
{
    if (lo)
        *lo = m->tree.nodes[0].lo;
    if (hi)
        *hi = m->tree.nodes[0].hi;
}

void kcbp2d_model_free(kcbp2d_model *m)
{
    if (!m)
        return;
    free(m->v);
    free(m->next);
    free(m->ring_first);
    free(m->ring_left);
    kcbp2d_tree_free(&m->tree);
    free(m);
}


/* ---- queries ------------------------------------------------------------- */

#define COLLIDE_OPTIONS_V1_SIZE (offsetof(kcbp2d_model_collide_options, contacts_capacity) + sizeof(uint32_t))
#define COLLIDE_RESULT_V1_SIZE (offsetof(kcbp2d_model_collide_result, edge_pairs) + sizeof(uint64_t))
#define DISTANCE_RESULT_V1_SIZE (offsetof(kcbp2d_model_distance_result, edge_pairs) + sizeof(uint64_t))

void kcbp2d_model_collide_options_init(kcbp2d_model_collide_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_model_collide_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}


kcbp_status kcbp2d_pair_make(const kcbp2d_model *a, const kcbp2d_pose *pa, const kcbp2d_model *b,
                             const kcbp2d_pose *pb, double margin, pair_ctx *c, kcbp_error *err)
{
    if (!a || !b)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model query: a model is NULL");
    const kcbp2d_pose *p[2] = {pa, pb};
    for (int i = 0; i < 2; i++)
        if (!p[i] || !isfinite(p[i]->c) || !isfinite(p[i]->s) || !kcbp_v2_is_finite(p[i]->trans) ||
            fabs(p[i]->trans.x) > KCBP_COORD_MAX || fabs(p[i]->trans.y) > KCBP_COORD_MAX)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model query: pose %c is not finite", "AB"[i]);
    c->a = a, c->b = b;
    c->rel.c = pa->c * pb->c + pa->s * pb->s;
    c->rel.s = pa->c * pb->s - pa->s * pb->c;
    kcbp_vec2 d = kcbp_v2_sub(pb->trans, pa->trans);
    c->rel.trans = kcbp_v2_make(pa->c * d.x + pa->s * d.y, -pa->s * d.x + pa->c * d.y);
    double s = a->scale + b->scale + kcbp_v2_max_abs(c->rel.trans);
    c->pad = 64 * 0x1p-53 * s + margin;
    return KCBP_OK;
}

static inline kcbp_vec2 bv(const pair_ctx *c, uint32_t i) { return kcbp2d_pose_apply(&c->rel, c->b->v[i]); }

/* B's node box in A's frame, padded. */
static void b_box(const pair_ctx *c, const kcbp2d_node *nd, kcbp_vec2 *lo, kcbp_vec2 *hi)
{
    kcbp_vec2 ctr = kcbp_v2_scale(kcbp_v2_add(nd->lo, nd->hi), 0.5), e = kcbp_v2_scale(kcbp_v2_sub(nd->hi, nd->lo), 0.5);
    kcbp_vec2 m = kcbp2d_pose_apply(&c->rel, ctr);
    double ac = fabs(c->rel.c), as = fabs(c->rel.s);
    kcbp_vec2 h = {ac * e.x + as * e.y + c->pad, as * e.x + ac * e.y + c->pad};
    *lo = kcbp_v2_sub(m, h), *hi = kcbp_v2_add(m, h);
}

static inline bool boxes_overlap(kcbp_vec2 alo, kcbp_vec2 ahi, kcbp_vec2 blo, kcbp_vec2 bhi)
{
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y;
}

/* r on the closed segment [p, q], given orient2d(p, q, r) == 0. */
static inline bool on_segment(kcbp_vec2 p, kcbp_vec2 q, kcbp_vec2 r)
{
    return fmin(p.x, q.x) <= r.x && r.x <= fmax(p.x, q.x) && fmin(p.y, q.y) <= r.y && r.y <= fmax(p.y, q.y);
}

/* The closed segments [p0, p1] and [q0, q1] share a point, exactly. */
static bool segments_meet(kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0, kcbp_vec2 q1)
{
    int o1 = kcbp2d_orient(p0, p1, q0), o2 = kcbp2d_orient(p0, p1, q1);
    if (o1 * o2 > 0)
        return false;
    int o3 = kcbp2d_orient(q0, q1, p0), o4 = kcbp2d_orient(q0, q1, p1);
    if (o3 * o4 > 0)
        return false;
    if (o1 && o2 && o3 && o4)
        return true; /* proper crossing */
    return (o1 == 0 && on_segment(p0, p1, q0)) || (o2 == 0 && on_segment(p0, p1, q1)) ||
           (o3 == 0 && on_segment(q0, q1, p0)) || (o4 == 0 && on_segment(q0, q1, p1));
}

static bool touch_classify(touch_walk *t, uint32_t ea, uint32_t eb, kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0,
                           kcbp_vec2 q1);

typedef struct {
    const pair_ctx *c;
    double rb, margin; /* B's radius (a shape's; 0 for a model) and the clearance */
    kcbp2d_edge_pair *out;
    uint32_t cap, n;
    bool found, truncated;
    uint64_t tested;
    touch_walk *touch; /* interiors_meet's: every meeting pair classified, none recorded */
} collide_walk;

static bool leaf_pairs(collide_walk *w, const kcbp2d_node *na, const kcbp2d_node *nb)
{
    const kcbp2d_model *a = w->c->a, *b = w->c->b;
    for (uint32_t i = nb->first; i < nb->first + nb->count; i++) {
        uint32_t eb = b->tree.order[i];
        kcbp_vec2 q0 = bv(w->c, eb), q1 = bv(w->c, b->next[eb]);
        for (uint32_t k = na->first; k < na->first + na->count; k++) {
            uint32_t ea = a->tree.order[k];
            kcbp_vec2 p0 = a->v[ea], p1 = a->v[a->next[ea]];
            w->tested++;
            bool meet = w->rb > 0 || w->margin > 0
                            ? kcbp_within_seg_seg(kcbp_v3(p0.x, p0.y, 0), kcbp_v3(p1.x, p1.y, 0),
                                                  kcbp_v3(q0.x, q0.y, 0), kcbp_v3(q1.x, q1.y, 0), w->rb, w->margin)
                            : segments_meet(p0, p1, q0, q1);
            if (!meet)
                continue;
            if (w->touch) {
                if (touch_classify(w->touch, ea, eb, p0, p1, q0, q1))
                    return w->found = true; /* the interiors meet: stop */
                continue;
            }
            w->found = true;
            if (w->n < w->cap) {
                w->out[w->n].a = ea, w->out[w->n].b = eb;
                w->n++;
            } else {
                w->truncated = w->cap > 0;
                return true; /* stop: no room, or the first is enough */
            }
        }
    }
    return false;
}

/* Depth-first over node pairs; returns true to stop. */
static bool collide_rec(collide_walk *w, uint32_t ia, uint32_t ib)
{
    const kcbp2d_node *na = &w->c->a->tree.nodes[ia], *nb = &w->c->b->tree.nodes[ib];
    kcbp_vec2 lo, hi;
    b_box(w->c, nb, &lo, &hi);
    if (!boxes_overlap(na->lo, na->hi, lo, hi))
        return false;
    if (na->count && nb->count)
        return leaf_pairs(w, na, nb);
    bool split_a = nb->count || (!na->count && (na->hi.x - na->lo.x) + (na->hi.y - na->lo.y) >=
                                                    (hi.x - lo.x) + (hi.y - lo.y));
    if (split_a)
        return collide_rec(w, na->first, ib) || collide_rec(w, na->first + 1, ib);
    return collide_rec(w, ia, nb->first) || collide_rec(w, ia, nb->first + 1);
}

/* Crossing parity of a ray from x with the edges of model m, whose vertex
 * i is at vert(i). The ray leaves toward the nearest side of the model's
 * box (+x, -x, +y or -y: fewer edges' boxes lie along a shorter ray); the
 * test is written for +x on coordinates turned by quarter turns (exact:
 * swaps and negations, orient2d's signs unchanged). An edge crosses when
 * its ends are on opposite sides of the ray's line (half-open: an end
 * exactly on the line counts as above) and x is left of the upward edge
 * (orient2d > 0, exact). x must not lie on any edge (no edges meet when
 * this runs). */
typedef struct {
    const pair_ctx *c;
    bool of_b; /* the model is B (vertices carried into A's frame) */
    kcbp_vec2 x;
    int parity;
    int dir; /* 0: +x, 1: -x, 2: +y, 3: -y (ray_init) */
} ray_walk;

/* v turned so that the ray's direction is +x */
static inline kcbp_vec2 ray_turn(int dir, kcbp_vec2 v)
{
    switch (dir) {
    case 1: return kcbp_v2_make(-v.x, -v.y);
    case 2: return kcbp_v2_make(v.y, -v.x);
    case 3: return kcbp_v2_make(-v.y, v.x);
    default: return v;
    }
}

static inline void ray_turn_box(int dir, kcbp_vec2 *lo, kcbp_vec2 *hi)
{
    kcbp_vec2 a = ray_turn(dir, *lo), b = ray_turn(dir, *hi);
    *lo = kcbp_v2_make(fmin(a.x, b.x), fmin(a.y, b.y));
    *hi = kcbp_v2_make(fmax(a.x, b.x), fmax(a.y, b.y));
}

static void ray_rec(ray_walk *w, uint32_t id)
{
    const kcbp2d_model *m = w->of_b ? w->c->b : w->c->a;
    const kcbp2d_node *nd = &m->tree.nodes[id];
    kcbp_vec2 lo = nd->lo, hi = nd->hi;
    if (w->of_b)
        b_box(w->c, nd, &lo, &hi);
    if (w->dir)
        ray_turn_box(w->dir, &lo, &hi);
    if (w->x.y < lo.y || w->x.y > hi.y || w->x.x > hi.x)
        return;
    if (!nd->count) {
        ray_rec(w, nd->first);
        ray_rec(w, nd->first + 1);
        return;
    }
    for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
        uint32_t e = m->tree.order[i];
        kcbp_vec2 p = w->of_b ? bv(w->c, e) : m->v[e], q = w->of_b ? bv(w->c, m->next[e]) : m->v[m->next[e]];
        if (w->dir)
            p = ray_turn(w->dir, p), q = ray_turn(w->dir, q);
        bool pa = p.y >= w->x.y, qa = q.y >= w->x.y;
        if (pa == qa)
            continue;
        if (!pa) { /* upward p -> q */
            if (kcbp2d_orient(p, q, w->x) > 0)
                w->parity ^= 1;
        } else if (kcbp2d_orient(q, p, w->x) > 0) {
            w->parity ^= 1;
        }
    }
}

/* The walk of the point x against the model (B's when of_b), its ray
 * toward the nearest side of the model's box, x turned to match. */
static ray_walk ray_init(const pair_ctx *c, bool of_b, kcbp_vec2 x)
{
    const kcbp2d_model *m = of_b ? c->b : c->a;
    kcbp_vec2 lo = m->tree.nodes[0].lo, hi = m->tree.nodes[0].hi;
    if (of_b)
        b_box(c, &m->tree.nodes[0], &lo, &hi);
    double d[4] = {hi.x - x.x, x.x - lo.x, hi.y - x.y, x.y - lo.y};
    int dir = 0;
    for (int k = 1; k < 4; k++)
        if (d[k] < d[dir])
            dir = k;
    ray_walk w = {c, of_b, ray_turn(dir, x), 0, dir};
    return w;
}

static uint32_t ring_of(const kcbp2d_model *m, uint32_t v)
{
    uint32_t lo = 0, hi = m->nrings; /* ring_first[lo] <= v < ring_first[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->ring_first[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Whether the first vertex of some ring of `inner` lies inside `outer`
 * (exact), testing only the rings whose first vertex lies in outer's box
 * (A's frame): they are found by a walk of inner's edge tree (a ring's
 * first vertex starts its first edge), so a map of many rings against a
 * small part costs its tree's depth, not its rings. */
typedef struct {
    const pair_ctx *c;
    bool inner_is_b;
    kcbp_vec2 lo, hi; /* outer's box, A's frame */
    bool found;
} ring_probe;

static void ring_probe_rec(ring_probe *w, uint32_t id)
{
    const kcbp2d_model *m = w->inner_is_b ? w->c->b : w->c->a;
    const kcbp2d_node *nd = &m->tree.nodes[id];
    kcbp_vec2 lo = nd->lo, hi = nd->hi;
    if (w->inner_is_b)
        b_box(w->c, nd, &lo, &hi);
    if (w->found || hi.x < w->lo.x || lo.x > w->hi.x || hi.y < w->lo.y || lo.y > w->hi.y)
        return;
    if (!nd->count) {
        ring_probe_rec(w, nd->first);
        ring_probe_rec(w, nd->first + 1);
        return;
    }
    for (uint32_t i = nd->first; i < nd->first + nd->count && !w->found; i++) {
        uint32_t e = m->tree.order[i];
        if (m->ring_first[ring_of(m, e)] != e)
            continue;
        kcbp_vec2 x = w->inner_is_b ? bv(w->c, e) : m->v[e];
        if (x.x < w->lo.x || x.x > w->hi.x || x.y < w->lo.y || x.y > w->hi.y)
            continue;
        ray_walk r = ray_init(w->c, !w->inner_is_b, x);
        ray_rec(&r, 0);
        w->found = r.parity != 0;
    }
}

static bool any_ring_inside(const pair_ctx *c, bool inner_is_b)
{
    const kcbp2d_model *inner = inner_is_b ? c->b : c->a, *outer = inner_is_b ? c->a : c->b;
    if (inner->nrings <= 8) { /* a few rings: each tested */
        for (uint32_t r = 0; r < inner->nrings; r++) {
            uint32_t v = inner->ring_first[r];
            ray_walk w = ray_init(c, !inner_is_b, inner_is_b ? bv(c, v) : inner->v[v]);
            ray_rec(&w, 0);
            if (w.parity)
                return true;
        }
        return false;
    }
    ring_probe w = {c, inner_is_b, outer->tree.nodes[0].lo, outer->tree.nodes[0].hi, false};
    if (!inner_is_b)
        b_box(c, &outer->tree.nodes[0], &w.lo, &w.hi);
    ring_probe_rec(&w, 0);
    return w.found;
}

static inline kcbp_vec2 model_v(const pair_ctx *c, bool of_b, uint32_t i) { return of_b ? bv(c, i) : c->a->v[i]; }


/* ---- do the interiors meet? (overlapping versus touching) ------------------
 *
 * Two built models whose boundaries meet (radius 0). Their interiors meet
 * exactly when one of these holds:
 *   (1) two edges cross properly;
 *   (2) at a point p where a vertex of one lies on the other's boundary,
 *       the two regions near p (each a union of open angular wedges at p,
 *       bounded by the rays from p along every edge of the region through
 *       p, of every ring: a hole touching its shell at p cuts the shell's
 *       wedge in two) share an open set of directions;
 *   (3) a ring of one, off the other's boundary, lies inside the other
 *       (its first vertex by the ray's parity).
 * Why this is all: let C be a component of the interiors' intersection.
 * If some point of B's boundary in A's interior bounds C, follow B's ring
 * from it: either the ring never reaches A's boundary (3), or it does at a
 * point y arriving from A's interior, where without a proper crossing (1)
 * y is a vertex of B on A's boundary or a vertex of A on B's edge, and
 * B's boundary ray at y lies strictly inside A's region near y (2). The
 * same with A and B exchanged. Otherwise C is bounded by boundary the two
 * share, with C on the same side of both: at an end of a shared stretch
 * (a vertex of one on the other's boundary) both regions hold C's side
 * (2). Every test is an orient2d sign or a comparison of the coordinates
 * collide uses (B's carried into A's frame): exact for those coordinates.
 *
 * The regions near p: the rays sorted by angle round p (exactly: the half
 * plane of the ray, then orient2d); a ray along an edge starts the region
 * (counter-clockwise) when the region lies on its counter-clockwise side.
 * Between two consecutive directions a region is present when one of its
 * rays at the first direction starts it (or, with no ray of it there, as
 * before): for one region with holes touching at points every ray flips
 * it, and for a set of polygons that only touch, rays of two of them in
 * one direction (a shared edge) leave it present on both sides.
 *
 * For the model check (model2d_build.c) A may stand for its
 * complement (a_out: the outside of a shell), and the walk may record the
 * points where the boundaries meet and whether two edges overlap along a
 * segment. */


/* A ray from p toward x along an edge of region `who` (0 A, 1 B). */
typedef struct {
    kcbp_vec2 p, x;
    uint8_t who, start;
} wedge_ray;

static inline int ray_half(kcbp_vec2 p, kcbp_vec2 x) { return !(x.y > p.y || (x.y == p.y && x.x > p.x)); }

static int ray_cmp(const void *u, const void *v)
{
    const wedge_ray *r = u, *s = v;
    int hr = ray_half(r->p, r->x), hs = ray_half(s->p, s->x);
    if (hr != hs)
        return hr - hs;
    return -kcbp2d_orient(r->p, r->x, s->x); /* counter-clockwise first */
}

/* Room for one more of n items of size sz in *p (capacity *cap), which
 * starts in the caller's fixed array first (never freed here). */
static bool grow(void **p, size_t *cap, size_t n, size_t sz, const void *first)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? 2 * *cap : 16;
    void *q = *p == first ? malloc(nc * sz) : realloc(*p, nc * sz);
    if (!q)
        return false;
    if (*p == first && n)
        memcpy(q, *p, n * sz);
    *p = q, *cap = nc;
    return true;
}

typedef struct {
    const pair_ctx *c;
    bool of_b, out; /* the model is B; its region is the complement */
    kcbp_vec2 p;
    wedge_ray *rays;
    size_t n, cap;
    const wedge_ray *first; /* the caller's fixed array rays starts in */
    bool nomem;
} rays_walk;

static void rays_push(rays_walk *w, kcbp_vec2 x, bool start)
{
    void *r = w->rays;
    if (!grow(&r, &w->cap, w->n, sizeof *w->rays, w->first)) {
        w->nomem = true;
        return;
    }
    w->rays = r;
    w->rays[w->n++] = (wedge_ray){w->p, x, (uint8_t)w->of_b, (uint8_t)start};
}

static uint32_t ring_of(const kcbp2d_model *m, uint32_t v);

/* Every edge of the model through p (closed), as its rays from p. */
static void rays_rec(rays_walk *w, uint32_t id)
{
    const kcbp2d_model *m = w->of_b ? w->c->b : w->c->a;
    const kcbp2d_node *nd = &m->tree.nodes[id];
    kcbp_vec2 lo = nd->lo, hi = nd->hi;
    if (w->of_b)
        b_box(w->c, nd, &lo, &hi);
    if (w->p.x < lo.x || w->p.x > hi.x || w->p.y < lo.y || w->p.y > hi.y)
        return;
    if (!nd->count) {
        rays_rec(w, nd->first);
        rays_rec(w, nd->first + 1);
        return;
    }
    for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
        uint32_t e = m->tree.order[i];
        kcbp_vec2 e0 = w->of_b ? bv(w->c, e) : m->v[e], e1 = w->of_b ? bv(w->c, m->next[e]) : m->v[m->next[e]];
        if (kcbp2d_orient(e0, e1, w->p) != 0 || !on_segment(e0, e1, w->p))
            continue;
        bool left = m->ring_left[ring_of(m, e)] != w->out; /* the region on the edge's left */
        if (e1.x != w->p.x || e1.y != w->p.y)
            rays_push(w, e1, left);
        if (e0.x != w->p.x || e0.y != w->p.y)
            rays_push(w, e0, !left);
    }
}

/* (2) at p: the regions near p share a direction. */
static kcbp_status wedges_meet(const touch_walk *t, kcbp_vec2 p, wedge_ray **buf, size_t *cap,
                               const wedge_ray *first, bool *meet, kcbp_error *err)
{
    rays_walk w = {t->c, false, t->a_out, p, *buf, 0, *cap, first, false};
    rays_rec(&w, 0);
    w.of_b = true, w.out = false;
    rays_rec(&w, 0);
    *buf = w.rays, *cap = w.cap;
    if (w.nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory");
    *meet = false;
    size_t n = w.n;
    if (n == 0)
        return KCBP_OK;
    if (n <= 16) { /* the usual few rays: insertion, no calls through qsort */
        for (size_t i = 1; i < n; i++) {
            wedge_ray x = w.rays[i];
            size_t j = i;
            for (; j > 0 && ray_cmp(&w.rays[j - 1], &x) > 0; j--)
                w.rays[j] = w.rays[j - 1];
            w.rays[j] = x;
        }
    } else {
        qsort(w.rays, n, sizeof *w.rays, ray_cmp);
    }
    /* groups of one direction: state after each; the state before the
     * first is the state after the last group holding a ray of the region */
    bool st[2] = {false, false};
    for (int who = 0; who < 2; who++) {
        for (size_t g = n; g > 0;) {
            size_t g0 = g - 1;
            while (g0 > 0 && ray_cmp(&w.rays[g0 - 1], &w.rays[g - 1]) == 0)
                g0--;
            bool has = false, start = false;
            for (size_t i = g0; i < g; i++)
                if (w.rays[i].who == who)
                    has = true, start = start || w.rays[i].start;
            if (has) {
                st[who] = start;
                break;
            }
            g = g0;
        }
    }
    for (size_t g0 = 0; g0 < n;) {
        size_t g = g0 + 1;
        while (g < n && ray_cmp(&w.rays[g0], &w.rays[g]) == 0)
            g++;
        bool has[2] = {false, false}, start[2] = {false, false};
        for (size_t i = g0; i < g; i++)
            has[w.rays[i].who] = true, start[w.rays[i].who] |= w.rays[i].start;
        for (int who = 0; who < 2; who++)
            if (has[who])
                st[who] = start[who];
        if (st[0] && st[1]) {
            *meet = true;
            return KCBP_OK;
        }
        g0 = g;
    }
    return KCBP_OK;
}


static int touch_point_cmp(const void *u, const void *v)
{
    return kcbp2d_lex_cmp(((const touch_point *)u)->x, ((const touch_point *)v)->x);
}

/* Vertex v of A (side 0) or B (1) lies on the other's boundary: a list,
 * not a flag per vertex (a pair's work must not grow with a large model's
 * size when little of it meets the other: a map's big polygon against
 * each of thousands of small ones, a shell against each of its holes). */
static void touch_on(touch_walk *t, int side, uint32_t v)
{
    void *p = t->on[side];
    if (!grow(&p, &t->capon[side], t->non[side], sizeof v, t->on_in[side])) {
        t->nomem = true;
        return;
    }
    t->on[side] = p;
    t->on[side][t->non[side]++] = v;
}

static int u32_cmp(const void *u, const void *v)
{
    uint32_t a = *(const uint32_t *)u, b = *(const uint32_t *)v;
    return (a > b) - (a < b);
}

static void touch_add(touch_walk *t, kcbp_vec2 x)
{
    void *p = t->pts;
    if (!grow(&p, &t->cap, t->npts, sizeof *t->pts, t->pts_in)) {
        t->nomem = true;
        return;
    }
    t->pts = p;
    t->pts[t->npts++] = (touch_point){x};
}

/* The collinear closed segments [p0, p1] and [q0, q1] share more than a point. */
static bool collinear_overlap(kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0, kcbp_vec2 q1)
{
    kcbp_vec2 a0 = kcbp2d_lex_less(p1, p0) ? p1 : p0, a1 = kcbp2d_lex_less(p1, p0) ? p0 : p1;
    kcbp_vec2 b0 = kcbp2d_lex_less(q1, q0) ? q1 : q0, b1 = kcbp2d_lex_less(q1, q0) ? q0 : q1;
    kcbp_vec2 lo = kcbp2d_lex_less(a0, b0) ? b0 : a0, hi = kcbp2d_lex_less(a1, b1) ? a1 : b1;
    return kcbp2d_lex_less(lo, hi);
}

/* One meeting pair (A's edge ea p0 -> p1, B's eb q0 -> q1): true when it
 * shows the interiors meet, by (1) (or, for the model check, an overlap
 * along a segment); else the points to decide (2) at are recorded. Each
 * vertex on the other's boundary is the start of an edge meeting there,
 * so starts suffice. */
static bool touch_classify(touch_walk *t, uint32_t ea, uint32_t eb, kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0,
                           kcbp_vec2 q1)
{
    int o1 = kcbp2d_orient(p0, p1, q0), o2 = kcbp2d_orient(p0, p1, q1);
    int o3 = kcbp2d_orient(q0, q1, p0), o4 = kcbp2d_orient(q0, q1, p1);
    if (o1 && o2 && o3 && o4)
        return true; /* (1) */
    if (!o1 && !o2 && collinear_overlap(p0, p1, q0, q1)) {
        t->overlap = true;
        if (t->stop_on_overlap)
            return true;
    }
    if (o1 == 0 && on_segment(p0, p1, q0)) /* B's vertex eb on A's edge */
        touch_on(t, 1, eb), touch_add(t, q0);
    if (o3 == 0 && on_segment(q0, q1, p0)) /* A's vertex ea on B's edge */
        touch_on(t, 0, ea), touch_add(t, p0);
    return t->nomem;
}

/* Whether the interiors of two built models meet (above; A's complement
 * for t->a_out); t holds c and the flags, and keeps the meeting points
 * (sorted, distinct) for the caller to free. */
kcbp_status kcbp2d_touch_walk_run(touch_walk *t, bool *meet, kcbp_error *err)
{
    const pair_ctx *c = t->c;
    t->pts = t->pts_in, t->npts = 0, t->cap = sizeof t->pts_in / sizeof t->pts_in[0];
    t->nomem = false, t->overlap = false;
    for (int s = 0; s < 2; s++)
        t->on[s] = t->on_in[s], t->non[s] = 0, t->capon[s] = sizeof t->on_in[s] / sizeof t->on_in[s][0];
    collide_walk w;
    memset(&w, 0, sizeof w);
    w.c = c, w.touch = t;
    *meet = collide_rec(&w, 0, 0);
    kcbp_status st = KCBP_OK;
    if (t->nomem)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory");
    if (*meet && !t->nomem && t->stop_on_overlap && t->overlap)
        *meet = false; /* stopped by the overlap, not by a crossing */
    if (st == KCBP_OK && !*meet && !(t->stop_on_overlap && t->overlap) && t->npts) { /* (2) */
        if (t->npts <= 16) { /* a few points: insertion */
            for (size_t i = 1; i < t->npts; i++) {
                touch_point x = t->pts[i];
                size_t j = i;
                for (; j > 0 && kcbp2d_lex_less(x.x, t->pts[j - 1].x); j--)
                    t->pts[j] = t->pts[j - 1];
                t->pts[j] = x;
            }
        } else {
            qsort(t->pts, t->npts, sizeof *t->pts, touch_point_cmp);
        }
        size_t k = 1;
        for (size_t i = 1; i < t->npts; i++)
            if (kcbp2d_lex_cmp(t->pts[i].x, t->pts[k - 1].x))
                t->pts[k++] = t->pts[i];
        t->npts = k;
        wedge_ray first[32], *buf = first;
        size_t cap = sizeof first / sizeof first[0];
        for (size_t i = 0; i < t->npts && !*meet && st == KCBP_OK; i++)
            st = wedges_meet(t, t->pts[i].x, &buf, &cap, first, meet, err);
        if (buf != first)
            free(buf);
    }
    for (int side = 0; side < 2 && st == KCBP_OK && !*meet && !(t->stop_on_overlap && t->overlap); side++) {
        /* (3): B's rings in A, then A's in B */
        const kcbp2d_model *m = side ? c->a : c->b;
        int s = side ? 0 : 1;
        if (t->non[s] > 1)
            qsort(t->on[s], t->non[s], sizeof *t->on[s], u32_cmp);
        for (uint32_t r = 0; r < m->nrings && !*meet; r++) {
            uint32_t v = m->ring_first[r];
            if (t->non[s] && bsearch(&v, t->on[s], t->non[s], sizeof v, u32_cmp))
                continue;
            ray_walk rw = ray_init(c, side == 1, model_v(c, side == 0, v));
            ray_rec(&rw, 0);
            *meet = rw.parity != (side == 0 && t->a_out);
        }
    }
    for (int s = 0; s < 2; s++) {
        if (t->on[s] != t->on_in[s])
            free(t->on[s]);
        t->on[s] = NULL;
    }
    return st;
}

void kcbp2d_touch_walk_free(touch_walk *t)
{
    if (t->pts != t->pts_in)
        free(t->pts);
    t->pts = NULL;
}

kcbp_status kcbp2d_interiors_meet(const pair_ctx *c, bool *meet, kcbp_error *err)
{
    touch_walk t;
    memset(&t, 0, sizeof t);
    t.c = c;
    kcbp_status st = kcbp2d_touch_walk_run(&t, meet, err);
    kcbp2d_touch_walk_free(&t);
    return st;
}

/* B a model, or a shape's core as an unchecked model with its radius rb
 * (model_of_shape). */
static kcbp_status model_collide(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                 const kcbp2d_pose *pose_b, double rb, const kcbp2d_model_collide_options *options,
                                 kcbp2d_model_collide_result *result, size_t result_size, kcbp_error *err)
{
    kcbp2d_model_collide_result r;
    memset(&r, 0, sizeof r);
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    if (result && out_size)
        memcpy(result, &r, out_size);
    if (!result || result_size < COLLIDE_RESULT_V1_SIZE)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model collide: result of size %zu, too small", result_size);
    kcbp2d_model_collide_options o;
    kcbp2d_model_collide_options_init(&o, (uint32_t)sizeof o);
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, COLLIDE_OPTIONS_V1_SIZE, "2D model collide",
                                              "kcbp2d_model_collide_options_default", err);
        if (st != KCBP_OK)
            return st;
    }
    if (!isfinite(o.margin) || o.margin < 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model collide: margin %g is not a finite number >= 0",
                              o.margin);
    pair_ctx c;
    kcbp_status st = kcbp2d_pair_make(a, pose_a, b, pose_b, rb + o.margin, &c, err);
    if (st != KCBP_OK)
        return st;
    collide_walk w = {&c, rb, o.margin, o.contacts, o.contacts ? o.contacts_capacity : 0, 0, false, false, 0, NULL};
    collide_rec(&w, 0, 0);
    r.collide = w.found;
    r.ncontacts = w.n;
    r.contacts_truncated = w.truncated;
    r.edge_pairs = w.tested;
    if (!r.collide) {
        if (any_ring_inside(&c, true))
            r.collide = true, r.contained = KCBP2D_CONTAINED_B_IN_A;
        else if (any_ring_inside(&c, false))
            r.collide = true, r.contained = KCBP2D_CONTAINED_A_IN_B;
    }
    memcpy(result, &r, out_size);
    return KCBP_OK;
}

/* ---- distance ------------------------------------------------------------ */

typedef struct {
    const pair_ctx *c;
    double best;
    kcbp_vec2 pa, pb;
    uint32_t ea, eb;
    uint64_t tested;
    bool squares; /* coordinates where squares neither underflow nor overflow */
} dist_walk;

/* kcbp2d_cp_seg_seg with squared lengths (no hypot), for pairs whose scale
 * S (largest coordinate magnitude) is within [1e-140, 1e140]: squares
 * cannot overflow, and a square that underflows is of a length below
 * 1e-154, far below the ulps of S that the distance is accurate to
 * (polygon2d.h). Returns the squared distance. */
static inline double cp_seg_seg_sq(kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0, kcbp_vec2 q1, kcbp_vec2 *cp,
                                   kcbp_vec2 *cq)
{
    kcbp_vec2 pts[4] = {p0, p1, q0, q1};
    double best = INFINITY;
    for (int k = 0; k < 4; k++) {
        kcbp_vec2 x = pts[k], a = k < 2 ? q0 : p0, b = k < 2 ? q1 : p1;
        kcbp_vec2 ab = kcbp_v2_sub(b, a), y = a;
        double l2 = kcbp_v2_len2(ab);
        if (l2 > 0) {
            double t = kcbp_v2_dot(kcbp_v2_sub(x, a), ab);
            if (t >= l2)
                y = b;
            else if (t > 0)
                y = kcbp_v2_add(a, kcbp_v2_scale(ab, t / l2));
        }
        double d2 = kcbp_v2_len2(kcbp_v2_sub(x, y));
        if (d2 < best) {
            best = d2;
            if (k < 2)
                *cp = x, *cq = y;
            else
                *cp = y, *cq = x;
        }
    }
    return best;
}

static inline double max3(double a, double b, double c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); }

/* The gap between two boxes, or a lower bound on it not below `best` when
 * it is at least best (the larger axis gap: no square or hypot then). */
static double box_gap(kcbp_vec2 alo, kcbp_vec2 ahi, kcbp_vec2 blo, kcbp_vec2 bhi, double best)
{
    double dx = max3(0.0, blo.x - ahi.x, alo.x - bhi.x), dy = max3(0.0, blo.y - ahi.y, alo.y - bhi.y);
    double m = dx > dy ? dx : dy;
    if (m >= best || dx == 0 || dy == 0)
        return m;
    return hypot(dx, dy);
}

/* A lower bound on the distance between the edges of A's node x and of
 * B's node y (B carried into A's frame), from their oriented boxes: the
 * largest gap between their projections on the four axes of the two boxes
 * (each gap is a lower bound on the distance between any points of the
 * boxes), less 2 pad for the rounding of carrying y's box and of the
 * projections (pad is far above both). */
static double obb_gap(const pair_ctx *c, const kcbp2d_obb *x, const kcbp2d_obb *y)
{
    kcbp_vec2 yc = kcbp2d_pose_apply(&c->rel, y->c), yu = kcbp2d_pose_rotate(&c->rel, y->u);
    kcbp_vec2 d = kcbp_v2_sub(yc, x->c);
    double co = fabs(kcbp_v2_dot(x->u, yu)), si = fabs(kcbp_v2_cross(x->u, yu));
    double g0 = fabs(kcbp_v2_dot(d, x->u)) - x->h.x - (y->h.x * co + y->h.y * si);
    double g1 = fabs(kcbp_v2_cross(x->u, d)) - x->h.y - (y->h.x * si + y->h.y * co);
    double g2 = fabs(kcbp_v2_dot(d, yu)) - y->h.x - (x->h.x * co + x->h.y * si);
    double g3 = fabs(kcbp_v2_cross(yu, d)) - y->h.y - (x->h.x * si + x->h.y * co);
    double g = max3(g0, g1, g2);
    return (g > g3 ? g : g3) - 2 * c->pad;
}

static void dist_rec(dist_walk *w, uint32_t ia, uint32_t ib)
{
    const kcbp2d_model *a = w->c->a, *b = w->c->b;
    const kcbp2d_node *na = &a->tree.nodes[ia], *nb = &b->tree.nodes[ib];
    if (na->count && nb->count) {
        for (uint32_t i = nb->first; i < nb->first + nb->count; i++) {
            uint32_t eb = b->tree.order[i];
            kcbp_vec2 q0 = bv(w->c, eb), q1 = bv(w->c, b->next[eb]);
            double qlx = q0.x < q1.x ? q0.x : q1.x, qhx = q0.x < q1.x ? q1.x : q0.x;
            double qly = q0.y < q1.y ? q0.y : q1.y, qhy = q0.y < q1.y ? q1.y : q0.y;
            for (uint32_t k = na->first; k < na->first + na->count; k++) {
                uint32_t ea = a->tree.order[k];
                kcbp_vec2 p0 = a->v[ea], p1 = a->v[a->next[ea]];
                /* the edges' boxes' gap along an axis is a lower bound */
                double gx = (p0.x < p1.x ? p0.x : p1.x) - qhx, gx2 = qlx - (p0.x < p1.x ? p1.x : p0.x);
                double gy = (p0.y < p1.y ? p0.y : p1.y) - qhy, gy2 = qly - (p0.y < p1.y ? p1.y : p0.y);
                if (gx >= w->best || gx2 >= w->best || gy >= w->best || gy2 >= w->best)
                    continue;
                kcbp_vec2 cp, cq;
                w->tested++;
                double d;
                if (w->squares) {
                    double d2 = cp_seg_seg_sq(p0, p1, q0, q1, &cp, &cq);
                    if (!(d2 < w->best * w->best))
                        continue;
                    d = sqrt(d2);
                } else {
                    d = kcbp2d_cp_seg_seg(p0, p1, q0, q1, &cp, &cq);
                }
                if (d < w->best)
                    w->best = d, w->pa = cp, w->pb = cq, w->ea = ea, w->eb = eb;
            }
        }
        return;
    }
    /* the children pairs, nearer first, each pruned by its boxes' gap */
    uint32_t pairs[2][2];
    kcbp_vec2 lo, hi;
    b_box(w->c, nb, &lo, &hi);
    bool split_a = nb->count || (!na->count && (na->hi.x - na->lo.x) + (na->hi.y - na->lo.y) >=
                                                    (hi.x - lo.x) + (hi.y - lo.y));
    for (int k = 0; k < 2; k++) {
        pairs[k][0] = split_a ? na->first + (uint32_t)k : ia;
        pairs[k][1] = split_a ? ib : nb->first + (uint32_t)k;
    }
    double g[2];
    for (int k = 0; k < 2; k++) {
        const kcbp2d_node *x = &a->tree.nodes[pairs[k][0]], *y = &b->tree.nodes[pairs[k][1]];
        kcbp_vec2 ylo, yhi;
        b_box(w->c, y, &ylo, &yhi);
        g[k] = box_gap(x->lo, x->hi, ylo, yhi, w->best);
        if (g[k] < w->best) {
            double go = obb_gap(w->c, &a->tree.obbs[pairs[k][0]], &b->tree.obbs[pairs[k][1]]);
            g[k] = go > g[k] ? go : g[k];
        }
    }
    int first = g[1] < g[0];
    for (int t = 0; t < 2; t++) {
        int k = t ? 1 - first : first;
        if (g[k] < w->best)
            dist_rec(w, pairs[k][0], pairs[k][1]);
    }
}

static kcbp_status model_distance(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                  const kcbp2d_pose *pose_b, double rb, kcbp2d_model_distance_result *result,
                                  size_t result_size, kcbp_error *err)
{
    kcbp2d_model_distance_result r;
    memset(&r, 0, sizeof r);
    r.edge_a = r.edge_b = UINT32_MAX;
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    if (result && out_size)
        memcpy(result, &r, out_size);
    if (!result || result_size < DISTANCE_RESULT_V1_SIZE)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model distance: result of size %zu, too small",
                              result_size);
    pair_ctx c;
    kcbp_status st = kcbp2d_pair_make(a, pose_a, b, pose_b, rb, &c, err);
    if (st != KCBP_OK)
        return st;
    /* collide first (exact): a pair of edges that meet (within rb), or
     * containment */
    kcbp2d_edge_pair first;
    collide_walk cw = {&c, rb, 0.0, &first, 1, 0, false, false, 0, NULL};
    collide_rec(&cw, 0, 0);
    r.edge_pairs = cw.tested;
    if (cw.found) {
        r.collide = true;
        r.edge_a = first.a, r.edge_b = first.b;
        /* a shared point: the closest points of the two edges (distance 0
         * up to rounding), reported as one point */
        kcbp_vec2 cp, cq;
        kcbp2d_cp_seg_seg(a->v[first.a], a->v[a->next[first.a]], bv(&c, first.b), bv(&c, b->next[first.b]), &cp,
                          &cq);
        r.point_a = r.point_b = kcbp2d_pose_apply(pose_a, cp);
    } else if (any_ring_inside(&c, true) || any_ring_inside(&c, false)) {
        r.collide = true;
    } else {
        double sc = a->scale + b->scale + kcbp_v2_max_abs(c.rel.trans);
        dist_walk w = {&c, INFINITY, {0, 0}, {0, 0}, UINT32_MAX, UINT32_MAX, 0, sc > 1e-140 && sc < 1e140};
        dist_rec(&w, 0, 0);
        /* B's surface: its core's closest point moved rb toward A */
        double d = w.best;
        if (rb > 0 && d > 0)
            w.pb = kcbp_v2_add(w.pb, kcbp_v2_scale(kcbp_v2_sub(w.pa, w.pb), fmin(rb / d, 1.0)));
        w.best = fmax(d - rb, 0.0);
        r.distance = w.best;
        r.point_a = kcbp2d_pose_apply(pose_a, w.pa);
        r.point_b = kcbp2d_pose_apply(pose_a, w.pb);
        r.edge_a = w.ea, r.edge_b = w.eb;
        r.edge_pairs += w.tested;
    }
    memcpy(result, &r, out_size);
    return KCBP_OK;
}

kcbp_status kcbp2d_model_collide_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                       const kcbp2d_pose *pose_b, const kcbp2d_model_collide_options *options,
                                       kcbp2d_model_collide_result *result, size_t result_size, kcbp_error *err)
{
    return model_collide(a, pose_a, b, pose_b, 0.0, options, result, result_size, err);
}

kcbp_status kcbp2d_model_distance_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                        const kcbp2d_pose *pose_b, kcbp2d_model_distance_result *result,
                                        size_t result_size, kcbp_error *err)
{
    return model_distance(a, pose_a, b, pose_b, 0.0, result, result_size, err);
}

/* ---- a model against a convex shape --------------------------------------
 *
 * The shape's core, in its own frame, as a model that is not checked: a
 * polygon's ring, a segment as the ring (p0, p1) (its two edges the same
 * segment both ways: a ray crosses them an even number of times, so no
 * point is "inside" it), a point as the ring (p) (one edge of length 0).
 * Its radius is the rb of the walks above: edges within rb of A's edges
 * (closest.h's exact decision), or the core's first vertex inside A, or a
 * vertex of A inside the core polygon, decide collide; the distance is the
 * edges' minus rb. */
static kcbp_status model_of_shape(const kcbp2d_shape *s, kcbp2d_model **out, kcbp_error *err)
{
    *out = NULL;
    kcbp_status st = kcbp2d_shape_check_ex(s, false, err);
    if (st != KCBP_OK) {
        kcbp_error_prefix(err, "shape B");
        return st;
    }
    kcbp_vec2 box[4];
    const kcbp_vec2 *v;
    uint32_t n;
    switch (s->kind) {
    case KCBP2D_CIRCLE: v = s->local, n = 1; break;
    case KCBP2D_BOX: {
        kcbp_vec2 h = s->local[0];
        box[0] = kcbp_v2_make(-h.x, -h.y), box[1] = kcbp_v2_make(h.x, -h.y);
        box[2] = kcbp_v2_make(h.x, h.y), box[3] = kcbp_v2_make(-h.x, h.y);
        v = box, n = 4;
        break;
    }
    case KCBP2D_POLYGON: v = s->points, n = s->npoints; break;
    default:
        v = s->local;
        n = s->local[0].x == s->local[1].x && s->local[0].y == s->local[1].y ? 1 : 2;
        break;
    }
    kcbp2d_model *m = calloc(1, sizeof *m);
    if (!m)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory");
    m->nv = n, m->nrings = 1;
    m->v = malloc((size_t)n * sizeof *m->v);
    m->next = malloc((size_t)n * sizeof *m->next);
    m->ring_first = calloc(1, sizeof *m->ring_first);
    if (!m->v || !m->next || !m->ring_first) {
        kcbp2d_model_free(m);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        m->v[i] = v[i];
        m->next[i] = (i + 1) % n;
        m->scale = fmax(m->scale, kcbp_v2_max_abs(v[i]));
    }
    if (n >= 3) { /* a polygon core: its side (the turn at its smallest vertex), for interiors_meet */
        uint32_t lo = 0;
        for (uint32_t i = 1; i < n; i++)
            lo = kcbp2d_lex_less(v[i], v[lo]) ? i : lo;
        int turn = kcbp2d_orient(v[(lo + n - 1) % n], v[lo], v[(lo + 1) % n]);
        if (turn != 0 && !(m->ring_left = malloc(1))) {
            kcbp2d_model_free(m);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory");
        }
        if (turn != 0)
            m->ring_left[0] = turn > 0;
    }
    if ((st = kcbp2d_tree_build(&m->tree, m->v, m->next, n, err)) != KCBP_OK) {
        kcbp2d_model_free(m);
        return st;
    }
    *out = m;
    return KCBP_OK;
}

kcbp_status kcbp2d_model_shape_collide_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                             const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                             const kcbp2d_model_collide_options *options,
                                             kcbp2d_model_collide_result *result, size_t result_size, kcbp_error *err)
{
    kcbp2d_model *mb;
    kcbp_status st = model_of_shape(b, &mb, err);
    if (st != KCBP_OK)
        return st;
    st = model_collide(a, pose_a, mb, pose_b, b->radius, options, result, result_size, err);
    kcbp2d_model_free(mb);
    return st;
}

kcbp_status kcbp2d_model_shape_distance_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a,
                                              const kcbp2d_shape *b, const kcbp2d_pose *pose_b,
                                              kcbp2d_model_distance_result *result, size_t result_size,
                                              kcbp_error *err)
{
    kcbp2d_model *mb;
    kcbp_status st = model_of_shape(b, &mb, err);
    if (st != KCBP_OK)
        return st;
    st = model_distance(a, pose_a, mb, pose_b, b->radius, result, result_size, err);
    kcbp2d_model_free(mb);
    return st;
}

/* ---- the depth bracket of two models ---------------------------------------
 *
 * Everything in A's frame, B carried into it as collide does. */

#define DEPTH_OPTIONS_V1_SIZE (offsetof(kcbp2d_model_depth_options, grid) + sizeof(int))
#define DEPTH_RESULT_V1_SIZE (offsetof(kcbp2d_model_depth_result, steps) + sizeof(int))
/* Lengths tried along a direction before bisecting: reach * s / DEPTH_SCAN. */
#define DEPTH_SCAN 64

void kcbp2d_model_depth_options_init(kcbp2d_model_depth_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_model_depth_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.directions = 32;
    d.bisections = 24;
    d.grid = 24;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

/* The distance from x (A's frame) to the edges of A (of_b false) or of B
 * carried into A's frame: a descent of the model's tree, nearer first. */
typedef struct {
    const pair_ctx *c;
    bool of_b;
    kcbp_vec2 x;
    double best;
} point_walk;

static void point_rec(point_walk *w, uint32_t id)
{
    const kcbp2d_model *m = w->of_b ? w->c->b : w->c->a;
    const kcbp2d_node *nd = &m->tree.nodes[id];
    if (nd->count) {
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
            uint32_t e = m->tree.order[i];
            kcbp_vec2 p = w->of_b ? bv(w->c, e) : m->v[e], q = w->of_b ? bv(w->c, m->next[e]) : m->v[m->next[e]];
            kcbp_vec2 cp, cq;
            double d = kcbp2d_cp_seg_seg(w->x, w->x, p, q, &cp, &cq);
            if (d < w->best)
                w->best = d;
        }
        return;
    }
    double g[2];
    for (int k = 0; k < 2; k++) {
        const kcbp2d_node *ch = &m->tree.nodes[nd->first + (uint32_t)k];
        kcbp_vec2 lo = ch->lo, hi = ch->hi;
        if (w->of_b)
            b_box(w->c, ch, &lo, &hi);
        g[k] = box_gap(lo, hi, w->x, w->x, w->best);
    }
    int first = g[1] < g[0];
    for (int t = 0; t < 2; t++) {
        int k = t ? 1 - first : first;
        if (g[k] < w->best)
            point_rec(w, nd->first + (uint32_t)k);
    }
}

static bool point_inside(const pair_ctx *c, bool of_b, kcbp_vec2 x)
{
    ray_walk w = ray_init(c, of_b, x);
    ray_rec(&w, 0);
    return w.parity;
}

/* One direction's upper bound (model_depth): B moved by t u, the first
 * apart length of a scan outward from 0 (the regions are not convex:
 * farther can collide again), then bisections below it. A direction
 * that cannot beat the best so far is tried at that length once and
 * dropped when it still collides there. Every apart claim is the exact
 * collide's. */
typedef struct {
    const kcbp2d_model *a;
    const kcbp2d_pose *pose_a;
    const kcbp2d_model *b;
    const kcbp2d_pose *pose_b;
    double radius_b, reach;
    double best_t, best_lo; /* the best direction: apart at best_t, colliding at best_lo */
    kcbp_vec2 best_u;
    int steps;
    kcbp_error *err;
} dir_search;

static kcbp_status dir_collides(dir_search *ds, kcbp_vec2 u, double t, bool *collide)
{
    kcbp2d_pose moved = *ds->pose_b;
    moved.trans = kcbp_v2_add(ds->pose_b->trans, kcbp_v2_scale(u, t));
    kcbp2d_model_collide_result cr;
    kcbp_status st = model_collide(ds->a, ds->pose_a, ds->b, &moved, ds->radius_b, NULL, &cr, sizeof cr, ds->err);
    ds->steps++;
    *collide = cr.collide;
    return st;
}

static kcbp_status dir_try(dir_search *ds, kcbp_vec2 u, int bisections)
{
    double lo = 0, hi = 0;
    bool apart = false, hit;
    kcbp_status st;
    for (int s = 1; s <= DEPTH_SCAN + 3 && !apart; s++) {
        double t = s <= DEPTH_SCAN ? ds->reach * s / DEPTH_SCAN : ds->reach * (double)(1 << (s - DEPTH_SCAN));
        bool last = t >= ds->best_t;
        if (last)
            t = ds->best_t; /* beyond it this direction cannot do better */
        if ((st = dir_collides(ds, u, t, &hit)) != KCBP_OK)
            return st;
        if (!hit)
            apart = true, hi = t;
        else if (last)
            return KCBP_OK;
        else
            lo = t;
    }
    if (!apart)
        return KCBP_OK;
    for (int i = 0; i < bisections; i++) {
        double mid = 0.5 * (lo + hi);
        if ((st = dir_collides(ds, u, mid, &hit)) != KCBP_OK)
            return st;
        if (hit)
            lo = mid;
        else
            hi = mid;
    }
    if (hi < ds->best_t)
        ds->best_t = hi, ds->best_lo = lo, ds->best_u = u;
    return KCBP_OK;
}

/* More bisections on the best direction, until its bracket is narrower
 * than width (at most 64 more). */
static kcbp_status dir_polish(dir_search *ds, double width)
{
    bool hit;
    for (int i = 0; i < 64 && isfinite(ds->best_t) && ds->best_t - ds->best_lo > width; i++) {
        double mid = 0.5 * (ds->best_lo + ds->best_t);
        if (mid <= ds->best_lo || mid >= ds->best_t)
            break;
        kcbp_status st = dir_collides(ds, ds->best_u, mid, &hit);
        if (st != KCBP_OK)
            return st;
        if (hit)
            ds->best_lo = mid;
        else
            ds->best_t = mid;
    }
    return KCBP_OK;
}

/* Unit normal of edge e of m, turned into the world by pose (0 for a
 * zero-length edge). */
static kcbp_vec2 edge_normal(const kcbp2d_model *m, const kcbp2d_pose *pose, uint32_t e)
{
    kcbp_vec2 d = kcbp_v2_sub(m->v[m->next[e]], m->v[e]);
    double l = kcbp_v2_len(d);
    if (!(l > 0))
        return kcbp_v2_make(0, 0);
    return kcbp2d_pose_rotate(pose, kcbp_v2_make(d.y / l, -d.x / l));
}

static void cand_add(kcbp_vec2 *cand, uint32_t *n, kcbp_vec2 u)
{
    if (u.x == 0 && u.y == 0)
        return;
    for (uint32_t i = 0; i < *n; i++)
        if (kcbp_v2_dot(cand[i], u) > 1 - 1e-12)
            return;
    cand[(*n)++] = u;
}

/* The directions tried, best first: the edge normals (both ways) of
 * every edge when the models have at most DEPTH_ALL_EDGES edges together
 * (where two convex regions' depth is attained, and the sides of ∂(A -
 * B) of any two polygons: its segments are translated edges of A and of
 * B), else of the edges that meet (at most DEPTH_CONTACTS pairs); then
 * options.directions evenly spread ones. */
#define DEPTH_ALL_EDGES 128u
#define DEPTH_CONTACTS 16u
static kcbp_status depth_candidates(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                    const kcbp2d_pose *pose_b, const kcbp2d_edge_pair *pairs, uint32_t npairs,
                                    const kcbp2d_model_depth_options *o, kcbp_vec2 **out, uint32_t *nout,
                                    kcbp_error *err)
{
    size_t cap = 4 * (size_t)(DEPTH_ALL_EDGES > DEPTH_CONTACTS ? DEPTH_ALL_EDGES : DEPTH_CONTACTS) + (size_t)o->directions;
    kcbp_vec2 *cand = malloc(cap * sizeof *cand);
    if (!cand)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model depth: out of memory");
    uint32_t n = 0;
    if (a->nv + b->nv <= DEPTH_ALL_EDGES) {
        for (uint32_t e = 0; e < a->nv; e++) {
            kcbp_vec2 u = edge_normal(a, pose_a, e);
            cand_add(cand, &n, u), cand_add(cand, &n, kcbp_v2_neg(u));
        }
        for (uint32_t e = 0; e < b->nv; e++) {
            kcbp_vec2 u = edge_normal(b, pose_b, e);
            cand_add(cand, &n, u), cand_add(cand, &n, kcbp_v2_neg(u));
        }
    } else {
        for (uint32_t i = 0; i < npairs; i++) {
            kcbp_vec2 ua = edge_normal(a, pose_a, pairs[i].a), ub = edge_normal(b, pose_b, pairs[i].b);
            cand_add(cand, &n, ua), cand_add(cand, &n, kcbp_v2_neg(ua));
            cand_add(cand, &n, ub), cand_add(cand, &n, kcbp_v2_neg(ub));
        }
    }
    for (int k = 0; k < o->directions; k++) {
        double ang = 2 * M_PI * k / o->directions;
        cand[n++] = kcbp_v2_make(cos(ang), sin(ang)); /* kept even when near an edge's: both are cheap */
    }
    *out = cand, *nout = n;
    return KCBP_OK;
}

/* B a model (radius_b 0), or a shape's core as a model (model_of_shape)
 * with its radius. */
static kcbp_status model_depth(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                               const kcbp2d_pose *pose_b, double radius_b, const kcbp2d_model_depth_options *options,
                               kcbp2d_model_depth_result *result, size_t result_size, kcbp_error *err)
{
    kcbp2d_model_depth_result r;
    memset(&r, 0, sizeof r);
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    if (result && out_size)
        memcpy(result, &r, out_size);
    if (!result || result_size < DEPTH_RESULT_V1_SIZE)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model depth: result of size %zu, too small", result_size);
    kcbp2d_model_depth_options o;
    kcbp2d_model_depth_options_init(&o, (uint32_t)sizeof o);
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, DEPTH_OPTIONS_V1_SIZE, "2D model depth",
                                              "kcbp2d_model_depth_options_default", err);
        if (st != KCBP_OK)
            return st;
    }
    if (o.directions < 4 || o.directions > 4096 || o.bisections < 1 || o.bisections > 100 || o.grid < 1 ||
        o.grid > 1024)
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "2D model depth: directions %d (4..4096), bisections %d (1..100), grid %d (1..1024)",
                              o.directions, o.bisections, o.grid);
    pair_ctx c;
    kcbp_status st = kcbp2d_pair_make(a, pose_a, b, pose_b, 0.0, &c, err);
    if (st != KCBP_OK)
        return st;
    /* the meeting edge pairs' normals lead the search when there are too
     * many edges to try them all (depth_candidates) */
    kcbp2d_edge_pair pairs[DEPTH_CONTACTS];
    kcbp2d_model_collide_options co = kcbp2d_model_collide_options_default();
    if (a->nv + b->nv > DEPTH_ALL_EDGES)
        co.contacts = pairs, co.contacts_capacity = DEPTH_CONTACTS;
    kcbp2d_model_collide_result cr;
    if ((st = model_collide(a, pose_a, b, pose_b, radius_b, &co, &cr, sizeof cr, err)) != KCBP_OK)
        return st;
    r.collide = cr.collide;
    if (!r.collide) {
        memcpy(result, &r, out_size);
        return KCBP_OK;
    }
    double scale = a->scale + b->scale + radius_b + kcbp_v2_max_abs(c.rel.trans);
    r.scale = scale;
    if (radius_b == 0 && a->ring_left && b->ring_left) { /* touching, exactly: depth 0 */
        bool meet = true;
        if ((st = kcbp2d_interiors_meet(&c, &meet, err)) != KCBP_OK)
            return st;
        if (!meet) {
            r.touching = true;
            /* depth 0: no translation, no direction (normal 0) */
            memcpy(result, &r, out_size);
            return KCBP_OK;
        }
    }
    /* Upper: along each candidate direction u (world frame), the smallest
     * t found with B moved by t u apart, proven by the exact collide. */
    kcbp_vec2 alo, ahi, blo, bhi;
    kcbp2d_model_bounds(a, &alo, &ahi);
    kcbp2d_model_bounds(b, &blo, &bhi);
    double ra = hypot(fmax(fabs(alo.x), fabs(ahi.x)), fmax(fabs(alo.y), fabs(ahi.y)));
    blo = kcbp_v2_sub(blo, kcbp_v2_make(radius_b, radius_b)), bhi = kcbp_v2_add(bhi, kcbp_v2_make(radius_b, radius_b));
    double rb = hypot(fmax(fabs(blo.x), fabs(bhi.x)), fmax(fabs(blo.y), fabs(bhi.y)));
    dir_search ds = {a, pose_a, b, pose_b, radius_b, ra + rb + kcbp_v2_len(kcbp_v2_sub(pose_a->trans, pose_b->trans)),
                     INFINITY, 0, {0, 1}, 0, err};
    kcbp_vec2 *cand = NULL;
    uint32_t ncand = 0;
    if ((st = depth_candidates(a, pose_a, b, pose_b, pairs, cr.ncontacts, &o, &cand, &ncand, err)) != KCBP_OK)
        return st;
    /* A direction apart at every length its bisections tried may be one
     * along which B just touches (a shape's core on an edge): it is
     * bisected on to the touching tolerance at once, and when it ends
     * within it, no direction can do better by more than that. */
    double width = 0.25 * KCBP2D_TOUCH_REL_TOL * scale;
    for (uint32_t k = 0; k < ncand && st == KCBP_OK; k++) {
        st = dir_try(&ds, cand[k], o.bisections);
        if (st == KCBP_OK && ds.best_lo == 0 && isfinite(ds.best_t)) {
            st = dir_polish(&ds, width);
            if (ds.best_t <= KCBP2D_TOUCH_REL_TOL * scale)
                break;
        }
    }
    free(cand);
    if (st != KCBP_OK)
        return st;
    r.steps = ds.steps;
    double best_t = ds.best_t;
    kcbp_vec2 best_u = ds.best_u;
    r.depth_upper = best_t;
    r.normal = best_u;
    r.translation = kcbp_v2_scale(best_u, best_t);
    /* Lower: grid points of the boxes' overlap (A's frame) inside both, the
     * best sum of their distances to the two boundaries, each less a bound
     * on its rounding. */
    kcbp_vec2 lo2 = alo, hi2 = ahi;
    {
        kcbp_vec2 corner[4] = {{blo.x, blo.y}, {bhi.x, blo.y}, {bhi.x, bhi.y}, {blo.x, bhi.y}};
        kcbp_vec2 mlo = {INFINITY, INFINITY}, mhi = {-INFINITY, -INFINITY};
        for (int i = 0; i < 4; i++) {
            kcbp_vec2 q = kcbp2d_pose_apply(&c.rel, corner[i]);
            mlo.x = fmin(mlo.x, q.x), mlo.y = fmin(mlo.y, q.y), mhi.x = fmax(mhi.x, q.x), mhi.y = fmax(mhi.y, q.y);
        }
        lo2.x = fmax(lo2.x, mlo.x), lo2.y = fmax(lo2.y, mlo.y), hi2.x = fmin(hi2.x, mhi.x), hi2.y = fmin(hi2.y, mhi.y);
    }
    double errd = 64 * 0x1p-53 * (a->scale + b->scale + radius_b + kcbp_v2_max_abs(c.rel.trans));
    double best_lower = 0;
    for (int i = 0; i < o.grid; i++)
        for (int j = 0; j < o.grid; j++) {
            kcbp_vec2 x = {lo2.x + (hi2.x - lo2.x) * (i + 0.5) / o.grid, lo2.y + (hi2.y - lo2.y) * (j + 0.5) / o.grid};
            r.steps++;
            if (!point_inside(&c, false, x))
                continue;
            /* B: inside its core (a polygon's; never a segment's or a
             * point's) the disc reaches its core's boundary plus the radius,
             * outside it the radius less the distance to the core */
            bool in_b = point_inside(&c, true, x);
            if (!in_b && radius_b == 0)
                continue;
            point_walk wa = {&c, false, x, INFINITY}, wb = {&c, true, x, INFINITY};
            point_rec(&wa, 0);
            point_rec(&wb, 0);
            double la = wa.best - errd, lb = (in_b ? radius_b + wb.best : radius_b - wb.best) - errd;
            if (la > 0 && lb > 0 && la + lb > best_lower) {
                best_lower = la + lb;
                r.lower_center = kcbp2d_pose_apply(pose_a, x);
                r.lower_radius_a = la, r.lower_radius_b = lb;
            }
        }
    r.depth_lower = fmin(best_lower, r.depth_upper);
    /* two models' interiors were found to meet, exactly (above): an overlap
     * however thin is not touching; the tolerance is for shapes only */
    bool exact_touch = radius_b == 0 && a->ring_left && b->ring_left;
    r.touching = !exact_touch && r.depth_upper <= KCBP2D_TOUCH_REL_TOL * scale;
    if (r.touching)
        r.depth_lower = 0;
    memcpy(result, &r, out_size);
    return KCBP_OK;
}

kcbp_status kcbp2d_model_depth_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_model *b,
                                     const kcbp2d_pose *pose_b, const kcbp2d_model_depth_options *options,
                                     kcbp2d_model_depth_result *result, size_t result_size, kcbp_error *err)
{
    return model_depth(a, pose_a, b, pose_b, 0.0, options, result, result_size, err);
}

kcbp_status kcbp2d_model_shape_depth_sized(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                           const kcbp2d_pose *pose_b, const kcbp2d_model_depth_options *options,
                                           kcbp2d_model_depth_result *result, size_t result_size, kcbp_error *err)
{
    kcbp2d_model *mb;
    kcbp_status st = model_of_shape(b, &mb, err);
    if (st != KCBP_OK)
        return st;
    st = model_depth(a, pose_a, mb, pose_b, b->radius, options, result, result_size, err);
    kcbp2d_model_free(mb);
    return st;
}
