/* 2D scenes' frames (scene2d.h): world boxes, the box tree of
 * src/scene/boxtree.h over them (2D boxes as flat 3D ones, z = 0), and
 * the exact 2D pair tests, in chunks of ranks on the pool's threads, the
 * colliding pairs handed on in a fixed order. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/collide2d.h>
#include <kcbp/scene.h>

#include "base/util.h"
#include "boxtree.h"
#include "pool.h"
#include "scene2d_internal.h"

#define CHUNK KCBP_SCENE_CHUNK
#define WINDOW_PER_THREAD 4
/* The pair stage goes to the threads when the last frame's work took
 * longer than this (its chunks' time, summed): a smaller frame costs more
 * to hand off than it saves. */
#define THREADS_PAY_MS 2.0
#define OPTIONS_V1_SIZE sizeof(kcbp2d_scene_eval_options)

/* One colliding pair found by a chunk. */
typedef struct {
    uint32_t a, b;          /* object indices, a < b */
    uint32_t first, count;  /* its contacts in the chunk's list */
    bool truncated;
    kcbp2d_containment contained;
} hit;

typedef struct {
    hit *hits;
    size_t nhits, cap_hits;
    kcbp2d_edge_pair *contacts;
    size_t ncontacts, cap_contacts;
    uint64_t broadphase;
    double ms;
    bool nomem, failed;
    kcbp_error err;
} slot;

typedef struct {
    uint32_t *found;        /* the tree's answers for one object */
    size_t cap_found;
    kcbp2d_edge_pair *buf;  /* one pair's contacts */
} worker;

struct kcbp2d_scene_eval {
    const kcbp2d_scene *scene;
    kcbp2d_scene_eval_options o;
    uint64_t limit;
    uint32_t n;
    uint32_t *by_rank;      /* object of rank k */
    kcbp2d_pose *poses;     /* by rank */
    kcbp_aabb *boxes;       /* by rank */
    kcbp_vec2 *reach_lo, *reach_hi; /* by object: its local box (shapes with their radius) */
    kcbp_boxtree tree;
    bool tree_built;
    kcbp_pool *pool;
    unsigned threads;
    worker *workers;        /* one per thread (or one) */
    slot *slots;            /* the window */
    unsigned nslots;
    double last_work_ms;    /* < 0: no frame yet */
    /* a window's run */
    uint64_t first_chunk;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void kcbp2d_scene_eval_options_init(kcbp2d_scene_eval_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_scene_eval_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

/* An object's box in its own frame. */
static void local_box(const kcbp2d_scene *s, uint32_t i, kcbp_vec2 *lo, kcbp_vec2 *hi)
{
    const kcbp2d_model *m = kcbp2d_scene_object_model(s, i);
    if (m) {
        kcbp2d_model_bounds(m, lo, hi);
        return;
    }
    const kcbp2d_shape *sh = kcbp2d_scene_object_shape(s, i);
    kcbp_vec2 p[2] = {sh->local[0], sh->local[0]};
    switch (sh->kind) {
    case KCBP2D_CIRCLE: break;
    case KCBP2D_BOX:
        p[0].x = -sh->local[0].x, p[0].y = -sh->local[0].y;
        break;
    default: p[1] = sh->local[1]; break;
    }
    lo->x = fmin(p[0].x, p[1].x) - sh->radius, lo->y = fmin(p[0].y, p[1].y) - sh->radius;
    hi->x = fmax(p[0].x, p[1].x) + sh->radius, hi->y = fmax(p[0].y, p[1].y) + sh->radius;
}

/* The world box of an object with local box [lo, hi] at pose p: the box of
 * its rotated corners, widened by 16 ulps of its reach (the rounding of
 * kcbp2d_pose_apply, and of carrying it into another object's frame, is a
 * few ulps of that) and by pad. */
static kcbp_aabb world_box(kcbp_vec2 lo, kcbp_vec2 hi, const kcbp2d_pose *p, double pad)
{
    kcbp_vec2 c[4] = {{lo.x, lo.y}, {hi.x, lo.y}, {hi.x, hi.y}, {lo.x, hi.y}};
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int k = 0; k < 4; k++) {
        kcbp_vec2 w = kcbp2d_pose_apply(p, c[k]);
        x0 = fmin(x0, w.x), x1 = fmax(x1, w.x), y0 = fmin(y0, w.y), y1 = fmax(y1, w.y);
    }
    double reach = fmax(fmax(fabs(lo.x), fabs(hi.x)), fmax(fabs(lo.y), fabs(hi.y)));
    double e = 16 * DBL_EPSILON * (2 * reach + fabs(p->trans.x) + fabs(p->trans.y)) + pad + DBL_MIN;
    kcbp_aabb b = {{x0 - e, y0 - e, 0}, {x1 + e, y1 + e, 0}};
    return b;
}

static uint64_t spread32(uint64_t v)
{
    v &= 0xffffffffu;
    v = (v | (v << 16)) & 0x0000ffff0000ffffull;
    v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
    v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
    v = (v | (v << 2)) & 0x3333333333333333ull;
    v = (v | (v << 1)) & 0x5555555555555555ull;
    return v;
}

typedef struct {
    uint64_t code;
    uint32_t i;
} morton;

static int cmp_morton(const void *a, const void *b)
{
    const morton *x = a, *y = b;
    if (x->code != y->code)
        return x->code < y->code ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

void kcbp2d_scene_eval_free(kcbp2d_scene_eval *ev)
{
    if (!ev)
        return;
    kcbp_pool_free(ev->pool);
    for (unsigned k = 0; ev->workers && k < (ev->threads ? ev->threads : 1); k++) {
        free(ev->workers[k].found);
        free(ev->workers[k].buf);
    }
    for (unsigned k = 0; ev->slots && k < ev->nslots; k++) {
        free(ev->slots[k].hits);
        free(ev->slots[k].contacts);
    }
    free(ev->workers);
    free(ev->slots);
    kcbp_boxtree_free(&ev->tree);
    free(ev->by_rank);
    free(ev->poses);
    free(ev->boxes);
    free(ev->reach_lo);
    free(ev->reach_hi);
    free(ev);
}

kcbp_status kcbp2d_scene_eval_new(const kcbp2d_scene *scene, const kcbp2d_scene_eval_options *options,
                                  kcbp2d_scene_eval **out, kcbp_error *err)
{
    if (!scene || !out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_eval_new: NULL argument");
    *out = NULL;
    kcbp2d_scene_eval_options o;
    kcbp2d_scene_eval_options_init(&o, (uint32_t)sizeof o);
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, OPTIONS_V1_SIZE, "2D scene evaluation",
                                              "kcbp2d_scene_eval_options_default", err);
        if (st != KCBP_OK)
            return st;
    }
    if (!isfinite(o.margin) || o.margin < 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D scene evaluation: margin %g is not a finite number >= 0",
                              o.margin);
    if (o.shard_count > 1 && o.shard_index >= o.shard_count)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D scene evaluation: shard %u of %u", o.shard_index,
                              o.shard_count);
    if (o.jobs > 1024)
        o.jobs = 1024;
    kcbp2d_scene_eval *ev = calloc(1, sizeof *ev);
    if (!ev)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory");
    ev->scene = scene;
    ev->o = o;
    ev->limit = UINT64_MAX;
    ev->last_work_ms = -1;
    uint32_t n = ev->n = kcbp2d_scene_object_count(scene);
    kcbp_boxtree_init(&ev->tree);
    ev->threads = o.jobs > 1 ? o.jobs : 0;
    unsigned nw = ev->threads ? ev->threads : 1;
    ev->nslots = nw * WINDOW_PER_THREAD;
    ev->by_rank = malloc((size_t)n * sizeof *ev->by_rank);
    ev->poses = malloc((size_t)n * sizeof *ev->poses);
    ev->boxes = malloc((size_t)n * sizeof *ev->boxes);
    ev->reach_lo = malloc((size_t)n * sizeof *ev->reach_lo);
    ev->reach_hi = malloc((size_t)n * sizeof *ev->reach_hi);
    ev->workers = calloc(nw, sizeof *ev->workers);
    ev->slots = calloc(ev->nslots, sizeof *ev->slots);
    morton *m = malloc((size_t)n * sizeof *m);
    bool ok = ev->by_rank && ev->poses && ev->boxes && ev->reach_lo && ev->reach_hi && ev->workers && ev->slots && m;
    for (unsigned k = 0; ok && k < nw && o.max_contacts; k++)
        ok = (ev->workers[k].buf = malloc((size_t)o.max_contacts * sizeof *ev->workers[k].buf)) != NULL;
    if (!ok) {
        free(m);
        kcbp2d_scene_eval_free(ev);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a 2D scene of %u objects", n);
    }
    /* ranks: a Z-order of the boxes' centres at frame 0 */
    double cx0 = INFINITY, cy0 = INFINITY, cx1 = -INFINITY, cy1 = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        local_box(scene, i, &ev->reach_lo[i], &ev->reach_hi[i]);
        kcbp2d_pose p = kcbp2d_scene_object_pose(scene, i, 0);
        kcbp_aabb b = world_box(ev->reach_lo[i], ev->reach_hi[i], &p, 0);
        ev->boxes[i] = b;
        double x = 0.5 * b.min.x + 0.5 * b.max.x, y = 0.5 * b.min.y + 0.5 * b.max.y;
        cx0 = fmin(cx0, x), cx1 = fmax(cx1, x), cy0 = fmin(cy0, y), cy1 = fmax(cy1, y);
    }
    double sx = cx1 > cx0 ? 4294967295.0 / (cx1 - cx0) : 0, sy = cy1 > cy0 ? 4294967295.0 / (cy1 - cy0) : 0;
    if (!isfinite(sx) || !isfinite(sy))
        sx = sy = 0;
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_aabb *b = &ev->boxes[i];
        double x = ((0.5 * b->min.x + 0.5 * b->max.x) - cx0) * sx, y = ((0.5 * b->min.y + 0.5 * b->max.y) - cy0) * sy;
        uint64_t ux = (uint64_t)fmin(fmax(x, 0), 4294967295.0), uy = (uint64_t)fmin(fmax(y, 0), 4294967295.0);
        m[i] = (morton){spread32(ux) | (spread32(uy) << 1), i};
    }
    qsort(m, n, sizeof *m, cmp_morton);
    for (uint32_t k = 0; k < n; k++)
        ev->by_rank[k] = m[k].i;
    free(m);
    kcbp_status st = KCBP_OK;
    if (ev->threads && (st = kcbp_pool_new(ev->threads, &ev->pool, err)) != KCBP_OK) {
        kcbp2d_scene_eval_free(ev);
        return st;
    }
    *out = ev;
    return KCBP_OK;
}

void kcbp2d_scene_eval_set_pair_limit(kcbp2d_scene_eval *ev, uint64_t limit) { ev->limit = limit; }

/* ---- one pair ------------------------------------------------------------------ */

static kcbp2d_containment swap_contained(kcbp2d_containment c)
{
    return c == KCBP2D_CONTAINED_A_IN_B ? KCBP2D_CONTAINED_B_IN_A
           : c == KCBP2D_CONTAINED_B_IN_A ? KCBP2D_CONTAINED_A_IN_B
                                          : c;
}

static bool slot_put_contacts(slot *sl, const kcbp2d_edge_pair *c, uint32_t n)
{
    if (sl->ncontacts + n > sl->cap_contacts) {
        size_t cap = sl->cap_contacts ? sl->cap_contacts * 2 : 64;
        while (cap < sl->ncontacts + n)
            cap *= 2;
        kcbp2d_edge_pair *p = realloc(sl->contacts, cap * sizeof *p);
        if (!p)
            return false;
        sl->contacts = p, sl->cap_contacts = cap;
    }
    memcpy(sl->contacts + sl->ncontacts, c, n * sizeof *c);
    sl->ncontacts += n;
    return true;
}

static int cmp_edge_pair(const void *x, const void *y)
{
    const kcbp2d_edge_pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Sorts c[0 .. n) and drops repeats; the new count. */
static uint32_t unique_edges(kcbp2d_edge_pair *c, uint32_t n)
{
    if (n < 2)
        return n;
    qsort(c, n, sizeof *c, cmp_edge_pair);
    uint32_t m = 1;
    for (uint32_t k = 1; k < n; k++)
        if (c[k].a != c[m - 1].a || c[k].b != c[m - 1].b)
            c[m++] = c[k];
    return m;
}

/* Tests objects a < b (indices) at their poses; a colliding pair goes to
 * the slot. false: an error (sl->err) or out of memory. */
static bool test_pair(const kcbp2d_scene_eval *ev, worker *wk, slot *sl, uint32_t a, const kcbp2d_pose *pa,
                      uint32_t b, const kcbp2d_pose *pb)
{
    const kcbp2d_scene *s = ev->scene;
    const kcbp2d_model *ma = kcbp2d_scene_object_model(s, a), *mb = kcbp2d_scene_object_model(s, b);
    uint32_t cap = ev->o.max_contacts;
    kcbp2d_edge_pair one = {KCBP2D_SCENE_NO_EDGE, KCBP2D_SCENE_NO_EDGE};
    const kcbp2d_edge_pair *contacts = NULL;
    uint32_t ncontacts = 0;
    bool collide = false, truncated = false;
    kcbp2d_containment contained = KCBP2D_CONTAINED_NONE;
    kcbp_status st;
    if (ma || mb) {
        kcbp2d_model_collide_options mo = kcbp2d_model_collide_options_default();
        mo.margin = ev->o.margin;
        mo.contacts = cap ? wk->buf : NULL;
        mo.contacts_capacity = cap;
        kcbp2d_model_collide_result r;
        bool swapped = false;
        if (ma && mb)
            st = kcbp2d_model_collide(ma, pa, mb, pb, &mo, &r, &sl->err);
        else if (ma)
            st = kcbp2d_model_shape_collide(ma, pa, kcbp2d_scene_object_shape(s, b), pb, &mo, &r, &sl->err);
        else
            swapped = true,
            st = kcbp2d_model_shape_collide(mb, pb, kcbp2d_scene_object_shape(s, a), pa, &mo, &r, &sl->err);
        if (st != KCBP_OK)
            return false;
        collide = r.collide;
        truncated = r.contacts_truncated;
        contained = swapped ? swap_contained(r.contained) : r.contained;
        ncontacts = cap ? r.ncontacts : 0;
        for (uint32_t k = 0; k < ncontacts; k++) {
            kcbp2d_edge_pair e = wk->buf[k];
            if (swapped)
                wk->buf[k] = (kcbp2d_edge_pair){KCBP2D_SCENE_NO_EDGE, e.a};
            else if (!mb)
                wk->buf[k].b = KCBP2D_SCENE_NO_EDGE;
        }
        if (!ma || !mb) /* a shape's side is no edge: one contact per edge of the polygon */
            ncontacts = unique_edges(wk->buf, ncontacts);
        contacts = wk->buf;
        if (collide && cap && ncontacts == 0 && contained != KCBP2D_CONTAINED_NONE)
            contacts = &one, ncontacts = 1; /* inside, no edges meeting */
    } else {
        kcbp2d_collide_options co = kcbp2d_collide_options_default();
        co.margin = ev->o.margin;
        kcbp2d_collide_result r;
        if (kcbp2d_collide(kcbp2d_scene_object_shape(s, a), pa, kcbp2d_scene_object_shape(s, b), pb, &co, &r,
                           &sl->err) != KCBP_OK)
            return false;
        collide = r.collide;
        if (collide && cap) {
            /* two shapes: one contact of no edges when the shapes
             * themselves touch, none when only the margin holds */
            kcbp2d_collide_options touch = kcbp2d_collide_options_default();
            kcbp2d_collide_result r0 = r;
            if (ev->o.margin > 0 && kcbp2d_collide(kcbp2d_scene_object_shape(s, a), pa, kcbp2d_scene_object_shape(s, b),
                                                   pb, &touch, &r0, &sl->err) != KCBP_OK)
                return false;
            if (r0.collide)
                contacts = &one, ncontacts = 1;
        }
    }
    if (!collide)
        return true;
    if (sl->nhits == sl->cap_hits) {
        size_t ncap = sl->cap_hits ? sl->cap_hits * 2 : 16;
        hit *h = realloc(sl->hits, ncap * sizeof *h);
        if (!h) {
            sl->nomem = true;
            return false;
        }
        sl->hits = h, sl->cap_hits = ncap;
    }
    hit *h = &sl->hits[sl->nhits++];
    *h = (hit){a, b, (uint32_t)sl->ncontacts, ncontacts, truncated, contained};
    if (ncontacts && !slot_put_contacts(sl, contacts, ncontacts)) {
        sl->nomem = true;
        return false;
    }
    return true;
}

/* ---- chunks ----------------------------------------------------------------------- */

typedef struct {
    kcbp2d_scene_eval *ev;
    uint64_t first;      /* the window's first chunk (its slot 0) */
    uint64_t nchunks;    /* of the frame */
    uint64_t limit;      /* pairs still to hand on: a chunk stops once it holds as many */
} window_ctx;

static void run_chunk(void *vctx, uint64_t task, unsigned w)
{
    window_ctx *c = vctx;
    kcbp2d_scene_eval *ev = c->ev;
    slot *sl = &ev->slots[task];
    uint64_t chunk = c->first + task;
    sl->nhits = sl->ncontacts = 0;
    sl->broadphase = 0;
    sl->nomem = sl->failed = false;
    if (ev->o.shard_count > 1 && chunk % ev->o.shard_count != ev->o.shard_index)
        return;
    double t0 = now_ms();
    worker *wk = &ev->workers[w];
    uint32_t lo = (uint32_t)(chunk * CHUNK), hi = lo + CHUNK < ev->n ? lo + CHUNK : ev->n;
    for (uint32_t k = lo; k < hi && sl->nhits < c->limit; k++) {
        size_t nf = kcbp_boxtree_query(&ev->tree, &ev->boxes[k], (int64_t)k, &wk->found, &wk->cap_found, 0);
        if (nf == SIZE_MAX) {
            sl->nomem = true;
            break;
        }
        kcbp_sort_ids(wk->found, nf);
        sl->broadphase += nf;
        for (size_t q = 0; q < nf && sl->nhits < c->limit; q++) {
            uint32_t r = wk->found[q];
            uint32_t a = ev->by_rank[k], b = ev->by_rank[r];
            bool ok = a < b ? test_pair(ev, wk, sl, a, &ev->poses[k], b, &ev->poses[r])
                            : test_pair(ev, wk, sl, b, &ev->poses[r], a, &ev->poses[k]);
            if (!ok) {
                sl->failed = !sl->nomem;
                k = hi;
                break;
            }
        }
    }
    sl->ms = now_ms() - t0;
}

kcbp_status kcbp2d_scene_eval_frame_sized(kcbp2d_scene_eval *ev, uint32_t frame, kcbp2d_scene_pair_fn fn, void *ctx,
                                          kcbp2d_scene_frame *out, size_t out_size, kcbp_error *err)
{
    if (!ev || !out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_eval_frame: NULL argument");
    if (out_size < sizeof(kcbp2d_scene_frame))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_eval_frame: result of size %zu, below %zu", out_size,
                              sizeof(kcbp2d_scene_frame));
    const kcbp2d_scene *s = ev->scene;
    if (frame >= kcbp2d_scene_frame_count(s))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: frame %u: the scene has %u", kcbp2d_scene_name(s), frame,
                              kcbp2d_scene_frame_count(s));
    kcbp2d_scene_frame f;
    memset(&f, 0, sizeof f);
    f.frame = frame;
    uint64_t n = ev->n;
    f.pairs = n * (n - 1) / 2;
    double t0 = now_ms();
    double pad = ev->o.margin / 2;
    for (uint32_t k = 0; k < ev->n; k++) {
        uint32_t i = ev->by_rank[k];
        ev->poses[k] = kcbp2d_scene_object_pose(s, i, frame);
        ev->boxes[k] = world_box(ev->reach_lo[i], ev->reach_hi[i], &ev->poses[k], pad);
    }
    double t1 = now_ms();
    f.bounds_ms = t1 - t0;
    kcbp_status st = ev->tree_built ? kcbp_boxtree_update(&ev->tree, ev->boxes, false, err)
                                    : kcbp_boxtree_build(&ev->tree, ev->boxes, NULL, ev->n, err);
    if (st != KCBP_OK)
        return st;
    ev->tree_built = true;
    double t2 = now_ms();
    f.broadphase_ms = t2 - t1;
    uint64_t nchunks = (n + CHUNK - 1) / CHUNK;
    bool threaded = ev->pool && nchunks >= 2 && (ev->last_work_ms < 0 || ev->last_work_ms > THREADS_PAY_MS);
    unsigned window = threaded ? ev->nslots : 1;
    double work = 0;
    uint64_t left = ev->limit;
    for (uint64_t first = 0; st == KCBP_OK && first < nchunks && left > 0; first += window) {
        uint64_t count = nchunks - first < window ? nchunks - first : window;
        window_ctx wc = {ev, first, nchunks, left};
        if (threaded)
            kcbp_pool_run(ev->pool, count, run_chunk, &wc);
        else
            run_chunk(&wc, 0, 0);
        for (uint64_t t = 0; t < count && st == KCBP_OK; t++) {
            slot *sl = &ev->slots[t];
            work += sl->ms;
            f.broadphase += sl->broadphase;
            if (sl->nomem) {
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory in frame %u", kcbp2d_scene_name(s), frame);
                break;
            }
            if (sl->failed) {
                if (err)
                    *err = sl->err;
                st = sl->err.code ? sl->err.code : KCBP_ERR_INVALID;
                break;
            }
            for (size_t h = 0; h < sl->nhits && left > 0 && st == KCBP_OK; h++) {
                const hit *x = &sl->hits[h];
                kcbp2d_scene_pair p = {x->a, x->b, x->count ? sl->contacts + x->first : NULL, x->count, x->truncated,
                                       x->contained};
                left--;
                f.colliding++;
                if (fn)
                    st = fn(ctx, &p, err);
            }
        }
    }
    f.stopped = left == 0 && ev->limit != UINT64_MAX;
    ev->last_work_ms = work;
    f.threaded = threaded;
    f.pairs_ms = now_ms() - t2;
    memcpy(out, &f, sizeof f);
    return st;
}
