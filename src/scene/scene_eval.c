/* Scene frames: world boxes, the broad phase, and the pair test of every
 * pair it keeps. */
#include <kcbp/scene.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/distance.h>
#include <kcbp/tritri.h>

#include "base/util.h"
#include "scene_internal.h"

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
    free(ev->poses);
    free(ev->boxes);
    kcbp_sap_free(&ev->sap);
    if (ev->ccd_ready)
        kcbp_sap_free(&ev->ccd_sap);
    free(ev->swept);
    free(ev->motions);
    free(ev->caches);
    free(ev->next_caches);
    kcbp_collide_result_free(&ev->result);
    memset(ev, 0, sizeof *ev);
}

kcbp_scene_eval_options kcbp_scene_eval_options_default(void)
{
    kcbp_scene_eval_options o = {.collide = kcbp_collide_options_default(), .coherent = true, .margin = 0};
    o.collide.contacts = KCBP_CONTACTS_NONE;
    return o;
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
    ev->scene = scene;
    ev->options = o.collide;
    ev->coherent = o.coherent;
    ev->sap.coherent = o.coherent;
    ev->margin = o.margin;
    size_t n = scene->nobjects;
    ev->poses = malloc((n ? n : 1) * sizeof *ev->poses);
    ev->boxes = malloc((n ? n : 1) * sizeof *ev->boxes);
    kcbp_status st = KCBP_OK;
    if (!ev->poses || !ev->boxes)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu objects", scene->name, n);
    else
        st = kcbp_sap_init(&ev->sap, scene->nobjects, err);
    if (st == KCBP_OK)
        ev->sap.coherent = o.coherent;
    else
        kcbp_scene_eval_clear(ev);
    return st;
}

kcbp_status kcbp_scene_eval_init(kcbp_scene_eval *ev, const kcbp_scene *scene, const kcbp_collide_options *options,
                                 kcbp_error *err)
{
    kcbp_scene_eval_options o = {.collide = *options, .coherent = true, .margin = 0};
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

void kcbp_scene_eval_free(kcbp_scene_eval *ev)
{
    if (!ev)
        return;
    kcbp_scene_eval_clear(ev);
    free(ev);
}

static kcbp_status add_hit(kcbp_scene_frame *f, uint32_t a, uint32_t b, const kcbp_collide_result *r,
                           kcbp_error *err)
{
    if (!kcbp_grow(&f->hits, &f->cap_hits, (size_t)f->colliding + 1, sizeof *f->hits, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %llu colliding pairs",
                              (unsigned long long)f->colliding + 1);
    if (!kcbp_grow(&f->contacts, &f->cap_contacts, f->ncontacts + r->ncontacts, sizeof *f->contacts, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu contacts", f->ncontacts + r->ncontacts);
    if (r->ncontacts)
        memcpy(f->contacts + f->ncontacts, r->contacts, r->ncontacts * sizeof *r->contacts);
    f->hits[f->colliding++] = (kcbp_scene_hit){a, b, f->ncontacts, r->ncontacts, r->contained};
    f->ncontacts += r->ncontacts;
    return KCBP_OK;
}

/* ev->margin: whether objects a and b, which do not touch, are within it. */
static kcbp_status within_margin(const kcbp_scene_eval *ev, const kcbp_model *ma, uint32_t a, const kcbp_model *mb,
                                 uint32_t b, bool *near, kcbp_error *err)
{
    kcbp_distance_options o = kcbp_distance_options_default();
    o.max_distance = ev->margin;
    o.use_cbp = ev->options.use_cbp;
    kcbp_distance_result d;
    kcbp_status st = kcbp_distance(ma, &ev->poses[a], mb, &ev->poses[b], &o, &d, err);
    *near = st == KCBP_OK && d.within;
    return st;
}

kcbp_status kcbp_scene_eval_frame(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_frame *out, kcbp_error *err)
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
    out->time_ms.filter = out->time_ms.mesh = 0;
    if (frame >= s->frames)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: frame %u of a scene of %u", s->name, frame, s->frames);

    /* 1. World boxes, each widened by its object's share of kcbp_collide's
     * tolerance: for a pair, tol(max(sa, sb + |tb - ta|)) <= pad_a + pad_b. */
    double t0 = kcbp_now_ms();
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_model *m = &s->models[s->objects[i].model].model;
        ev->poses[i] = kcbp_scene_object_pose(s, i, frame);
        kcbp_aabb b = kcbp_model_world_bounds(m, &ev->poses[i]);
        double pad = kcbp_tri_tolerance(m->impl->scale + kcbp_v3_len(ev->poses[i].trans)) + ev->margin / 2;
        kcbp_vec3 p = kcbp_v3(pad, pad, pad);
        ev->boxes[i].min = kcbp_v3_sub(b.min, p);
        ev->boxes[i].max = kcbp_v3_add(b.max, p);
    }
    double t1 = kcbp_now_ms();
    out->time_ms.bounds = t1 - t0;

    /* 2. Broad phase. */
    kcbp_status st = kcbp_sap_update(&ev->sap, ev->boxes, err);
    double t2 = kcbp_now_ms();
    out->time_ms.broadphase = t2 - t1;
    if (st != KCBP_OK)
        return st;
    out->broadphase = ev->sap.npairs;

    /* 3 and 4. The k-CBPs and the meshes, in kcbp_collide_cached, each
     * pair with the cache it had in the last frame (both lists are sorted by
     * (a, b): one merge). The broad phase has tested the world boxes. */
    size_t np = ev->sap.npairs;
    if (ev->coherent &&
        !kcbp_grow(&ev->next_caches, &ev->cap_next_caches, np ? np : 1, sizeof *ev->next_caches, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu pair caches", s->name, np);
    kcbp_collide_options opts = ev->options;
    opts.skip_bounds = true;
    size_t old = 0;
    out->cache_axis = out->cache_contact = out->cache_near = out->cbp_skipped = 0;
    for (size_t k = 0; k < np && st == KCBP_OK; k++) {
        uint32_t a = ev->sap.pairs[k].a, b = ev->sap.pairs[k].b;
        const kcbp_model *ma = &s->models[s->objects[a].model].model, *mb = &s->models[s->objects[b].model].model;
        struct kcbp_pair_cache *pc = NULL;
        if (ev->coherent) {
            kcbp_scene_pair_cache *next = &ev->next_caches[k];
            while (old < ev->ncaches && (ev->caches[old].a < a || (ev->caches[old].a == a && ev->caches[old].b < b)))
                old++;
            next->a = a;
            next->b = b;
            if (old < ev->ncaches && ev->caches[old].a == a && ev->caches[old].b == b)
                next->cache = ev->caches[old].cache;
            else
                memset(&next->cache, 0, sizeof next->cache);
            pc = &next->cache;
        }
        double q0 = kcbp_now_ms();
        st = kcbp_collide_pair(ma->impl, &ev->poses[a], mb->impl, &ev->poses[b], &opts, pc, &ev->result, err);
        bool near = false; /* within the margin, not touching */
        if (st == KCBP_OK && !ev->result.collide && ev->margin > 0)
            st = within_margin(ev, ma, a, mb, b, &near, err);
        double q1 = kcbp_now_ms();
        if (st != KCBP_OK)
            break;
        out->cache_axis += ev->result.cache.hit == KCBP_CACHE_AXIS;
        out->cache_contact += ev->result.cache.hit == KCBP_CACHE_CONTACT;
        out->cache_near += ev->result.cache.hit == KCBP_CACHE_NEAR;
        out->cbp_skipped += ev->result.cache.gjk_skipped;
        if (ev->result.decided_by == KCBP_STAGE_MESH) {
            out->mesh_tested++;
            out->time_ms.mesh += q1 - q0;
        } else {
            out->time_ms.filter += q1 - q0;
        }
        KCBP_ASSERT(a < b && b < n);
        KCBP_ASSERT(!ev->result.collide || ev->result.decided_by == KCBP_STAGE_MESH); /* filters only say "apart" */
        if (ev->result.collide || near)
            st = add_hit(out, a, b, &ev->result, err);
    }
    if (ev->coherent) { /* this frame's caches are the next frame's old ones */
        kcbp_scene_pair_cache *t = ev->caches;
        size_t cap = ev->cap_caches;
        ev->caches = ev->next_caches;
        ev->cap_caches = ev->cap_next_caches;
        ev->next_caches = t;
        ev->cap_next_caches = cap;
        ev->ncaches = st == KCBP_OK ? np : 0;
    }
    return st;
}

void kcbp_scene_ccd_free(kcbp_scene_ccd *c)
{
    if (!c)
        return;
    free(c->hits);
    memset(c, 0, sizeof *c);
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
    if (!ev->ccd_ready) {
        ev->swept = malloc((n ? n : 1) * sizeof *ev->swept);
        ev->motions = malloc((n ? n : 1) * sizeof *ev->motions);
        kcbp_status st = ev->swept && ev->motions
                             ? kcbp_sap_init(&ev->ccd_sap, n, err)
                             : kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %u swept boxes", s->name, n);
        if (st != KCBP_OK) {
            free(ev->swept);
            free(ev->motions);
            ev->swept = NULL;
            ev->motions = NULL;
            return st;
        }
        ev->ccd_ready = true;
    }
    /* Swept boxes: both ends' boxes, their union grown by half the longest
     * path a point can take, plus the same padding as the frames' boxes. */
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_model *m = &s->models[s->objects[i].model].model;
        kcbp_pose p0 = kcbp_scene_object_pose(s, i, frame - 1), p1 = kcbp_scene_object_pose(s, i, frame);
        ev->motions[i] = kcbp_motion_make(&p0, &p1);
        kcbp_aabb b0 = kcbp_model_world_bounds(m, &p0), b1 = kcbp_model_world_bounds(m, &p1);
        double reach = fmax(kcbp_v3_len(p0.trans), kcbp_v3_len(p1.trans));
        double pad = kcbp_motion_speed_bound(m, &ev->motions[i]) / 2 + kcbp_tri_tolerance(m->impl->scale + reach);
        kcbp_vec3 p = kcbp_v3(pad, pad, pad);
        ev->swept[i].min = kcbp_v3_sub(kcbp_v3_min(b0.min, b1.min), p);
        ev->swept[i].max = kcbp_v3_add(kcbp_v3_max(b0.max, b1.max), p);
    }
    kcbp_status st = kcbp_sap_update(&ev->ccd_sap, ev->swept, err);
    if (st != KCBP_OK)
        return st;
    out->swept_pairs = ev->ccd_sap.npairs;
    for (size_t k = 0; k < ev->ccd_sap.npairs; k++) {
        uint32_t a = ev->ccd_sap.pairs[k].a, b = ev->ccd_sap.pairs[k].b;
        const kcbp_model *ma = &s->models[s->objects[a].model].model, *mb = &s->models[s->objects[b].model].model;
        kcbp_sweep_result r;
        if ((st = kcbp_sweep(ma, &ev->motions[a], mb, &ev->motions[b], options, &r, err)) != KCBP_OK)
            return st;
        out->undecided += r.undecided;
        if (!r.hit && !r.undecided)
            continue;
        if (!kcbp_grow(&out->hits, &out->cap_hits, out->nhits + 1, sizeof *out->hits, 16))
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu touching pairs", out->nhits + 1);
        out->hits[out->nhits++] = (kcbp_scene_sweep_hit){
            a, b, r.toi, r.tri_a, r.tri_b, kcbp_v3_scale(kcbp_v3_add(r.point_a, r.point_b), 0.5), r.undecided};
    }
    out->ms = kcbp_now_ms() - t0;
    return KCBP_OK;
}
