/* Scene frames: world boxes, the broad phase (boxtree.h), and the pair test
 * of every pair it keeps (pairs.h), on the evaluation's threads. */
#include <kcbp/scene.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "base/util.h"
#include "scene_internal.h"

/* Objects per task of the world-box stage (about 0.2 ms of work: small
 * enough that two threads end it together, large enough that a task costs
 * more than taking it). */
#define BOUNDS_TASK 1024

void kcbp_scene_frame_free(kcbp_scene_frame *f)
{
    if (!f)
        return;
    free(f->hits);
    free(f->contacts);
    memset(f, 0, sizeof *f);
}

void kcbp_scene_eval_clear(kcbp_scene_eval *ev)
{
    kcbp_pairs_clear(&ev->pairs);
    free(ev->by_rank);
    free(ev->models);
    free(ev->poses);
    free(ev->boxes);
    free(ev->spheres);
    free(ev->prev_poses);
    free(ev->reach);
    free(ev->sphere_of);
    kcbp_boxtree_free(&ev->tree);
    kcbp_boxtree_free(&ev->ccd_tree);
    free(ev->swept);
    free(ev->steps);
    free(ev->partners);
    memset(ev, 0, sizeof *ev);
}

kcbp_scene_eval_options kcbp_scene_eval_options_default(void)
{
    kcbp_scene_eval_options o = {.collide = kcbp_collide_options_default(), .coherent = true, .margin = 0};
    o.collide.contacts = KCBP_CONTACTS_NONE;
    o.jobs = 1;
    o.cbp_adaptive = true;
    return o;
}

typedef struct {
    uint64_t code;
    uint32_t id;
} ranked;

static int cmp_ranked(const void *p, const void *q)
{
    const ranked *x = p, *y = q;
    if (x->code != y->code)
        return x->code < y->code ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* v's low 21 bits spread to every third bit. */
static uint64_t spread3(uint64_t v)
{
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* ev->by_rank: the objects sorted by the Morton code of their world boxes'
 * centres at frame 0 (ties by index): a function of the scene alone. */
static kcbp_status rank_objects(kcbp_scene_eval *ev, kcbp_error *err)
{
    const kcbp_scene *s = ev->scene;
    uint32_t n = s->nobjects;
    ranked *r = malloc((n ? n : 1) * sizeof *r);
    kcbp_vec3 *c = malloc((n ? n : 1) * sizeof *c);
    if (!r || !c) {
        free(r);
        free(c);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %u objects", s->name, n);
    }
    kcbp_vec3 lo = kcbp_v3(INFINITY, INFINITY, INFINITY), hi = kcbp_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < n; i++) {
        kcbp_pose p = kcbp_scene_object_pose(s, i, 0);
        kcbp_aabb b = kcbp_impl_world_bounds(s->models[s->objects[i].model].model.impl, &p);
        c[i] = kcbp_v3_scale(kcbp_v3_add(b.min, b.max), 0.5);
        lo = kcbp_v3_min(lo, c[i]);
        hi = kcbp_v3_max(hi, c[i]);
    }
    kcbp_vec3 ext = kcbp_v3_sub(hi, lo);
    double e = fmax(ext.x, fmax(ext.y, ext.z)), q = e > 0 && isfinite(e) ? 2097151.0 / e : 0;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 d = kcbp_v3_scale(kcbp_v3_sub(c[i], lo), q);
        uint64_t x = (uint64_t)fmin(fmax(d.x, 0), 2097151.0), y = (uint64_t)fmin(fmax(d.y, 0), 2097151.0),
                 z = (uint64_t)fmin(fmax(d.z, 0), 2097151.0);
        r[i] = (ranked){spread3(x) | spread3(y) << 1 | spread3(z) << 2, i};
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    for (uint32_t k = 0; k < n; k++)
        ev->by_rank[k] = r[k].id;
    free(r);
    free(c);
    return KCBP_OK;
}

static kcbp_status eval_init(kcbp_scene_eval *ev, const kcbp_scene *scene, const kcbp_scene_eval_options *options,
                             kcbp_error *err)
{
    memset(ev, 0, sizeof *ev);
    if (!scene->built)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the scene's models are not built", scene->name);
    kcbp_scene_eval_options o = options ? *options : kcbp_scene_eval_options_default();
    if (!(o.margin >= 0) || !isfinite(o.margin))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the margin must be a finite number >= 0", scene->name);
    if (o.shard_count > 1 && o.shard_index >= o.shard_count)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: shard %u of %u (0-based: 0 to %u)", scene->name,
                              o.shard_index, o.shard_count, o.shard_count - 1);
    if (o.jobs > 1024)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: %u threads, more than 1024", scene->name, o.jobs);
    ev->scene = scene;
    ev->options = o.collide;
    ev->coherent = o.coherent;
    ev->margin = o.margin;
    ev->cbp_adaptive = o.cbp_adaptive;
    ev->shard_index = o.shard_count > 1 ? o.shard_index : 0;
    ev->shard_count = o.shard_count > 1 ? o.shard_count : 1;
    kcbp_boxtree_init(&ev->tree);
    kcbp_boxtree_init(&ev->ccd_tree);
    size_t n = scene->nobjects;
    ev->by_rank = malloc((n ? n : 1) * sizeof *ev->by_rank);
    ev->models = malloc((n ? n : 1) * sizeof *ev->models);
    ev->poses = malloc((n ? n : 1) * sizeof *ev->poses);
    ev->boxes = malloc((n ? n : 1) * sizeof *ev->boxes);
    kcbp_status st = KCBP_OK;
    if (!ev->by_rank || !ev->models || !ev->poses || !ev->boxes)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu objects", scene->name, n);
    else
        st = rank_objects(ev, err);
    if (st == KCBP_OK && ev->coherent && scene->frames > 1) { /* reach.h */
        ev->spheres = malloc((scene->nmodels ? scene->nmodels : 1) * sizeof *ev->spheres);
        ev->prev_poses = malloc((n ? n : 1) * sizeof *ev->prev_poses);
        ev->reach = malloc((n ? n : 1) * sizeof *ev->reach);
        ev->sphere_of = malloc((n ? n : 1) * sizeof *ev->sphere_of);
        if (!ev->spheres || !ev->prev_poses || !ev->reach || !ev->sphere_of)
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu objects", scene->name, n);
        for (uint32_t m = 0; st == KCBP_OK && m < scene->nmodels; m++)
            ev->spheres[m] = kcbp_reach_sphere_of(scene->models[m].model.impl);
        for (size_t k = 0; st == KCBP_OK && k < n; k++)
            ev->sphere_of[k] = &ev->spheres[scene->objects[ev->by_rank[k]].model];
    }
    if (st == KCBP_OK) {
        for (size_t k = 0; k < n; k++)
            ev->models[k] = scene->models[scene->objects[ev->by_rank[k]].model].model.impl;
        st = kcbp_pairs_init(&ev->pairs, o.jobs ? o.jobs : 1, err);
    }
    if (st != KCBP_OK)
        kcbp_scene_eval_clear(ev);
    return st;
}

kcbp_status kcbp_scene_eval_init(kcbp_scene_eval *ev, const kcbp_scene *scene, const kcbp_collide_options *options,
                                 kcbp_error *err)
{
    kcbp_scene_eval_options o = kcbp_scene_eval_options_default();
    o.collide = *options;
    return eval_init(ev, scene, &o, err);
}

kcbp_status kcbp_scene_eval_new(const kcbp_scene *scene, const kcbp_scene_eval_options *options,
                                kcbp_scene_eval **out, kcbp_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", scene->name);
    kcbp_status st = eval_init(*out, scene, options, err);
    if (st != KCBP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

void kcbp_scene_eval_set_collide_options(kcbp_scene_eval *ev, const kcbp_collide_options *collide)
{
    ev->options = *collide;
}

void kcbp_scene_eval_set_pair_limit(kcbp_scene_eval *ev, uint64_t limit)
{
    ev->pair_limit = limit == UINT64_MAX ? 0 : limit;
}

void kcbp_scene_eval_set_contact_limit(kcbp_scene_eval *ev, uint64_t limit)
{
    ev->contact_limit = limit == UINT64_MAX ? 0 : limit;
}

double kcbp_scene_eval_progress(const kcbp_scene_eval *ev)
{
    const kcbp_pairs *p = &ev->pairs;
    return p->chunks_total ? (double)p->chunks_done / (double)p->chunks_total : 1.0;
}

void kcbp_scene_eval_free(kcbp_scene_eval *ev)
{
    if (!ev)
        return;
    kcbp_scene_eval_clear(ev);
    free(ev);
}

/* ---- one frame ----------------------------------------------------------- */

typedef struct {
    kcbp_scene_eval *ev;
    uint32_t frame;
} bounds_ctx;

/* World boxes of objects [task * BOUNDS_TASK, ...), each widened by its
 * object's share of kcbp_collide's tolerance: for a pair,
 * tol(max(sa, sb + |tb - ta|)) <= pad_a + pad_b. */
static void bounds_task(void *ctx, uint64_t task, unsigned worker)
{
    (void)worker;
    bounds_ctx *bc = ctx;
    kcbp_scene_eval *ev = bc->ev;
    const kcbp_scene *s = ev->scene;
    uint32_t i0 = (uint32_t)(task * BOUNDS_TASK), i1 = i0 + BOUNDS_TASK < s->nobjects ? i0 + BOUNDS_TASK : s->nobjects;
    for (uint32_t i = i0; i < i1; i++) { /* (i: a rank) */
        const kcbp_model_impl *m = ev->models[i];
        ev->poses[i] = kcbp_scene_object_pose(s, ev->by_rank[i], bc->frame);
        if (ev->prev_run) /* (lazy: computed when a pair needs it, kcbp_pairs_input) */
            atomic_store_explicit(&ev->reach[i],
                                  ev->reach_lazy ? NAN
                                                 : kcbp_reach(ev->sphere_of[i], &ev->prev_poses[i], &ev->poses[i]),
                                  memory_order_relaxed);
        kcbp_aabb b = kcbp_impl_world_bounds(m, &ev->poses[i]);
        double pad = kcbp_tri_tolerance(m->scale + kcbp_v3_len(ev->poses[i].trans)) + ev->margin / 2;
        kcbp_vec3 p = kcbp_v3(pad, pad, pad);
        ev->boxes[i].min = kcbp_v3_sub(b.min, p);
        ev->boxes[i].max = kcbp_v3_add(b.max, p);
    }
}

static kcbp_status eval_frame(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_pair_fn fn, void *ctx,
                              kcbp_scene_frame *out, kcbp_error *err)
{
    const kcbp_scene *s = ev->scene;
    uint32_t n = s->nobjects;
    out->frame = frame;
    out->pairs = (uint64_t)n * (n - 1) / 2;
    out->broadphase = out->mesh_tested = out->colliding = 0;
    out->ncontacts = 0;
    out->cbp_used = ev->options.use_cbp;
    for (uint32_t m = 0; m < s->nmodels && out->cbp_used; m++)
        out->cbp_used = kcbp_model_has_cbp(&s->models[m].model);
    out->time_ms.bounds = out->time_ms.broadphase = out->time_ms.filter = out->time_ms.mesh = out->pairs_ms = 0;
    out->cache_axis = out->cache_contact = out->cache_near = out->cbp_skipped = 0;
    out->cbp_adaptive_skips = out->pair_caches = out->pair_cache_bytes = 0;
    if (frame >= s->frames)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: frame %u of a scene of %u", s->name, frame, s->frames);

    /* 1. World boxes (and, with pair caches, each object's reach since the
     * poses of the last pair run: those become prev_poses). */
    if (ev->reach) {
        kcbp_pose *t = ev->prev_poses;
        ev->prev_poses = ev->poses;
        ev->poses = t;
        ev->prev_run = ev->options.use_cbp ? ev->poses_run : 0; /* (only the k-CBP stage leaves slacks) */
        ev->poses_run = 0;
    }
    double t0 = kcbp_now_ms();
    bounds_ctx bc = {ev, frame};
    kcbp_pairs_parallel(&ev->pairs, ((uint64_t)n + BOUNDS_TASK - 1) / BOUNDS_TASK, bounds_task, &bc);
    double t1 = kcbp_now_ms();
    out->time_ms.bounds = t1 - t0;

    /* 2. Broad phase: the tree, built once and refitted (built again when
     * refitting has made it much worse, or every frame without coherence),
     * its subtrees built on the threads; none for a scene of at most
     * KCBP_BOX_SCAN_MAX objects, whose pairs are found by comparing their
     * boxes (box_scan.h): the same pairs, for less work than a tree's. */
    kcbp_status st = KCBP_OK;
    bool scan = n <= KCBP_BOX_SCAN_MAX;
    if (!scan && !ev->tree_built)
        st = kcbp_boxtree_build_on(&ev->tree, ev->boxes, NULL, n, kcbp_pairs_pool(&ev->pairs), err);
    else if (!scan)
        st = kcbp_boxtree_update_on(&ev->tree, ev->boxes, !ev->coherent, kcbp_pairs_pool(&ev->pairs), err);
    ev->tree_built = !scan && st == KCBP_OK;
    double t2 = kcbp_now_ms();
    out->time_ms.broadphase = t2 - t1;
    if (st != KCBP_OK)
        return st;

    /* 3 and 4. The k-CBPs and the meshes, in kcbp_collide_pair, each pair
     * with the cache it had in the last frame (a moving scene's). */
    kcbp_pairs_input in = {n,           ev->models, ev->poses, ev->boxes, scan ? NULL : &ev->tree, NULL, ev->by_rank,
                           ev->prev_run ? ev->reach : NULL, ev->prev_run, ev->sphere_of, ev->prev_poses};
    kcbp_pairs_options po = {.collide = ev->options,
                             .margin = ev->margin,
                             .cache = ev->coherent && s->frames > 1,
                             .adaptive = ev->cbp_adaptive,
                             .last_run = frame + 1 >= s->frames,
                             .shard_index = ev->shard_index,
                             .shard_count = ev->shard_count,
                             .limit = ev->pair_limit,
                             .contact_limit = ev->contact_limit};
    kcbp_pairs_stats ps;
    st = kcbp_pairs_run(&ev->pairs, &in, &po, fn, ctx, &ps, err);
    ev->poses_run = ev->pairs.run;
    if (st == KCBP_OK)
        ev->reach_lazy = 2 * ps.slack_tested < n;
    out->pairs_ms = kcbp_now_ms() - t2;
    out->broadphase = ps.broadphase;
    out->mesh_tested = ps.mesh_tested;
    out->colliding = ps.stopped ? ps.emitted : ps.colliding;
    out->cache_axis = ps.cache_axis;
    out->cache_contact = ps.cache_contact;
    out->cache_near = ps.cache_near;
    out->cbp_skipped = ps.cbp_skipped;
    out->cbp_adaptive_skips = ps.cbp_adaptive_skips;
    out->pair_caches = ps.caches_kept;
    out->pair_cache_bytes = ps.cache_bytes;
    out->time_ms.filter = ps.filter_ms;
    out->time_ms.mesh = ps.mesh_ms;
    return st;
}

kcbp_status kcbp_scene_eval_frame_stream(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_pair_fn fn, void *ctx,
                                         kcbp_scene_frame *out, kcbp_error *err)
{
    return eval_frame(ev, frame, fn, ctx, out, err);
}

/* kcbp_scene_eval_frame's collector: every pair into the frame's hits. */
typedef struct {
    kcbp_scene_frame *f;
    size_t nhits;
} collector;

static kcbp_status collect(void *ctx, const kcbp_scene_pair *p, kcbp_error *err)
{
    collector *c = ctx;
    kcbp_scene_frame *f = c->f;
    if (!kcbp_grow(&f->hits, &f->cap_hits, c->nhits + 1, sizeof *f->hits, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu colliding pairs", c->nhits + 1);
    if (!kcbp_grow(&f->contacts, &f->cap_contacts, f->ncontacts + p->ncontacts, sizeof *f->contacts, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu contacts", f->ncontacts + p->ncontacts);
    if (p->ncontacts)
        memcpy(f->contacts + f->ncontacts, p->contacts, p->ncontacts * sizeof *p->contacts);
    f->hits[c->nhits++] = (kcbp_scene_hit){p->a, p->b, f->ncontacts, p->ncontacts, p->contained};
    f->ncontacts += p->ncontacts;
    return KCBP_OK;
}

static int cmp_hit(const void *p, const void *q)
{
    const kcbp_scene_hit *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return (x->b > y->b) - (x->b < y->b);
}

kcbp_status kcbp_scene_eval_frame(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_frame *out, kcbp_error *err)
{
    collector c = {out, 0};
    kcbp_status st = eval_frame(ev, frame, collect, &c, out, err);
    KCBP_ASSERT(st != KCBP_OK || c.nhits == out->colliding);
    if (st == KCBP_OK && c.nhits > 1) /* the stream's order is the ranks': the hits' is (a, b) */
        qsort(out->hits, c.nhits, sizeof *out->hits, cmp_hit);
    return st;
}

/* ---- between frames -------------------------------------------------------- */

void kcbp_scene_ccd_free(kcbp_scene_ccd *c)
{
    if (!c)
        return;
    free(c->hits);
    memset(c, 0, sizeof *c);
}

/* Time of step k of m over the interval ending at frame (k = 0: the last
 * frame, k = m: this one, exactly). */
static double step_time(const kcbp_scene *s, uint32_t frame, uint32_t k, uint32_t m)
{
    double f = (double)(frame - 1) + (k == m ? 1.0 : (double)k / (double)m);
    return f * s->dt;
}

/* Object i's motion over step k of m. */
static kcbp_motion step_motion(const kcbp_scene *s, uint32_t i, uint32_t frame, uint32_t k, uint32_t m)
{
    kcbp_pose p0, p1;
    if (m == 1) {
        p0 = kcbp_scene_object_pose(s, i, frame - 1);
        p1 = kcbp_scene_object_pose(s, i, frame);
    } else {
        p0 = kcbp_scene_pose_at(s, i, step_time(s, frame, k, m));
        p1 = kcbp_scene_pose_at(s, i, step_time(s, frame, k + 1, m));
    }
    return kcbp_motion_make(&p0, &p1);
}

/* The steps an object's interval is cut into: its spin over the interval
 * under 180 degrees per step (kcbp_motion takes the shorter arc). */
static kcbp_status spin_steps(const kcbp_scene *s, uint32_t i, uint32_t frame, uint32_t *steps, kcbp_error *err)
{
    const kcbp_scene_obj *o = &s->objects[i];
    double turn = fabs(o->spin_deg_per_s) * s->dt; /* degrees per interval */
    double whole = floor(turn / 180.0) + 1;        /* turn / whole < 180 */
    if (!(whole <= KCBP_SCENE_CCD_MAX_STEPS)) {
        char field[64];
        snprintf(field, sizeof field, "objects[%u].angular_velocity", i);
        return kcbp_scene_error(err, s->name, KCBP_ERR_LIMIT, field,
                                "turns %g degrees between frames %u and %u: --ccd would cut the interval into more "
                                "than %u steps of less than 180 degrees",
                                turn, frame - 1, frame, KCBP_SCENE_CCD_MAX_STEPS);
    }
    *steps = (uint32_t)whole;
    return KCBP_OK;
}

kcbp_status kcbp_scene_eval_ccd(kcbp_scene_eval *ev, uint32_t frame, const kcbp_sweep_options *options,
                                kcbp_scene_ccd *out, kcbp_error *err)
{
    const kcbp_scene *s = ev->scene;
    uint32_t n = s->nobjects;
    double t0 = kcbp_now_ms();
    out->frame = frame;
    out->swept_pairs = out->undecided = 0;
    out->nhits = 0;
    out->ms = 0;
    if (frame < 1 || frame >= s->frames)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: no interval ends at frame %u of a scene of %u", s->name,
                              frame, s->frames);
    if (!ev->swept) {
        ev->swept = malloc((n ? n : 1) * sizeof *ev->swept);
        ev->steps = malloc((n ? n : 1) * sizeof *ev->steps);
        if (!ev->swept || !ev->steps) {
            free(ev->swept);
            free(ev->steps);
            ev->swept = NULL;
            ev->steps = NULL;
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %u swept boxes", s->name, n);
        }
    }
    /* Swept boxes: over each step, both ends' boxes, their union grown by
     * half the longest path a point can take, plus the same padding as the
     * frames' boxes; an object's box is the union over its steps. */
    kcbp_status st = KCBP_OK;
    for (uint32_t i = 0; i < n && st == KCBP_OK; i++) {
        const kcbp_model *m = &s->models[s->objects[i].model].model;
        if ((st = spin_steps(s, i, frame, &ev->steps[i], err)) != KCBP_OK)
            break;
        if (ev->ccd_one_step)
            ev->steps[i] = 1;
        uint32_t steps = ev->steps[i];
        kcbp_aabb box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        for (uint32_t k = 0; k < steps; k++) {
            kcbp_pose p0 = steps == 1 ? kcbp_scene_object_pose(s, i, frame - 1)
                                      : kcbp_scene_pose_at(s, i, step_time(s, frame, k, steps));
            kcbp_pose p1 = steps == 1 ? kcbp_scene_object_pose(s, i, frame)
                                      : kcbp_scene_pose_at(s, i, step_time(s, frame, k + 1, steps));
            kcbp_motion mo = kcbp_motion_make(&p0, &p1);
            kcbp_aabb b0 = kcbp_model_world_bounds(m, &p0), b1 = kcbp_model_world_bounds(m, &p1);
            double reach = fmax(kcbp_v3_len(p0.trans), kcbp_v3_len(p1.trans));
            double pad = kcbp_motion_speed_bound(m, &mo) / 2 + kcbp_tri_tolerance(m->impl->scale + reach);
            kcbp_vec3 p = kcbp_v3(pad, pad, pad);
            box.min = kcbp_v3_min(box.min, kcbp_v3_sub(kcbp_v3_min(b0.min, b1.min), p));
            box.max = kcbp_v3_max(box.max, kcbp_v3_add(kcbp_v3_max(b0.max, b1.max), p));
        }
        ev->swept[i] = box;
    }
    if (st == KCBP_OK)
        st = kcbp_boxtree_build(&ev->ccd_tree, ev->swept, NULL, n, err);
    for (uint32_t a = 0; a < n && st == KCBP_OK; a++) {
        size_t np = kcbp_boxtree_query(&ev->ccd_tree, &ev->swept[a], a, &ev->partners, &ev->cap_partners, 0);
        if (np == SIZE_MAX) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the swept pairs", s->name);
            break;
        }
        kcbp_sort_ids(ev->partners, np);
        out->swept_pairs += np;
        for (size_t k = 0; k < np && st == KCBP_OK; k++) {
            uint32_t b = ev->partners[k];
            const kcbp_model *ma = &s->models[s->objects[a].model].model, *mb = &s->models[s->objects[b].model].model;
            /* both objects' motions exact on every step: the finer cut of the two */
            uint32_t steps = ev->steps[a] > ev->steps[b] ? ev->steps[a] : ev->steps[b];
            kcbp_sweep_result r;
            double toi = 1;
            bool hit = false, undecided = false;
            for (uint32_t j = 0; j < steps && !hit && !undecided; j++) {
                kcbp_motion mA = step_motion(s, a, frame, j, steps), mB = step_motion(s, b, frame, j, steps);
                if ((st = kcbp_sweep(ma, &mA, mb, &mB, options, &r, err)) != KCBP_OK)
                    break;
                hit = r.hit;
                undecided = r.undecided;
                toi = steps == 1 ? r.toi : ((double)j + r.toi) / (double)steps;
            }
            if (st != KCBP_OK)
                break;
            out->undecided += undecided;
            if (!hit && !undecided)
                continue;
            if (!kcbp_grow(&out->hits, &out->cap_hits, out->nhits + 1, sizeof *out->hits, 16)) {
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu touching pairs", out->nhits + 1);
                break;
            }
            out->hits[out->nhits++] = (kcbp_scene_sweep_hit){
                a, b, toi, r.tri_a, r.tri_b, kcbp_v3_scale(kcbp_v3_add(r.point_a, r.point_b), 0.5), undecided};
        }
    }
    out->ms = kcbp_now_ms() - t0;
    return st;
}
