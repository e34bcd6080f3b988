#include "hitrate.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/collide.h>
#include "eval_util.h"

void kcbp_hitrate_free(kcbp_hitrate *h)
{
    if (!h)
        return;
    free(h->hits);
    memset(h, 0, sizeof *h);
}

bool kcbp_hitrate_same_pairs(const kcbp_hitrate *a, const kcbp_hitrate *b)
{
    if (a->colliding != b->colliding)
        return false;
    for (uint64_t i = 0; i < a->colliding; i++)
        if (a->hits[i].a != b->hits[i].a || a->hits[i].b != b->hits[i].b)
            return false;
    return true;
}

static kcbp_status add_hit(kcbp_hitrate *h, uint32_t a, uint32_t b, kcbp_error *err)
{
    if (!eval_reserve(&h->hits, &h->cap_hits, h->colliding + 1, sizeof *h->hits))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu colliding pairs", h->colliding + 1);
    h->hits[h->colliding++] = (kcbp_index_pair){a, b};
    return KCBP_OK;
}

kcbp_status kcbp_hitrate_measure(const kcbp_scene *s, uint32_t frame, const kcbp_bv *bvs, kcbp_hitrate *out,
                                 kcbp_error *err)
{
    uint32_t n = kcbp_scene_object_count(s);
    const char *name = kcbp_scene_name(s);
    out->pairs = (uint64_t)n * (n - 1) / 2;
    out->boxes = out->passed = out->colliding = 0;
    out->bounds_ms = out->broadphase_ms = out->pairs_ms = 0;
    if (!kcbp_scene_is_built(s))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the scene is not built", name);
    if (frame >= kcbp_scene_frame_count(s))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: frame %u of a scene of %u", name, frame,
                              kcbp_scene_frame_count(s));
    for (uint32_t m = 1; m < kcbp_scene_model_count(s); m++)
        if (bvs[m].spec.kind != bvs[0].spec.kind)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: bounding volumes of different kinds", name);
    kcbp_pose *poses = malloc(((size_t)n + 1) * sizeof *poses);
    kcbp_aabb *boxes = malloc(((size_t)n + 1) * sizeof *boxes);
    double *pads = malloc(((size_t)n + 1) * sizeof *pads);
    kcbp_broadphase *bp = NULL;
    kcbp_collide_result res;
    memset(&res, 0, sizeof res);
    kcbp_status st = KCBP_OK;
    if (!poses || !boxes || !pads) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u objects", n);
        goto done;
    }
    if ((st = kcbp_broadphase_new(n, &bp, err)) != KCBP_OK) /* new: one frame, measured from scratch */
        goto done;
    kcbp_collide_options opts = kcbp_collide_options_default();
    opts.contacts = KCBP_CONTACTS_NONE;
    opts.use_cbp = false; /* the volume under test is the only filter */
    bool box_kind = bvs[0].spec.kind == KCBP_BV_AABB || bvs[0].spec.kind == KCBP_BV_AABB_POSED;

    double t0 = eval_now_ms();
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = kcbp_scene_object_model(s, i);
        poses[i] = kcbp_scene_object_pose(s, i, frame);
        pads[i] = KCBP_BV_MARGIN_REL * (kcbp_model_scale(kcbp_scene_model(s, m)) + kcbp_v3_len(poses[i].trans));
        kcbp_aabb b = kcbp_bv_world_box(&bvs[m], &poses[i]);
        kcbp_vec3 p = kcbp_v3(pads[i], pads[i], pads[i]);
        boxes[i].min = kcbp_v3_sub(b.min, p);
        boxes[i].max = kcbp_v3_add(b.max, p);
    }
    double t1 = eval_now_ms();
    st = kcbp_broadphase_update(bp, boxes, err);
    double t2 = eval_now_ms();
    out->bounds_ms = t1 - t0;
    out->broadphase_ms = t2 - t1;
    if (st != KCBP_OK)
        goto done;
    const kcbp_index_pair *pairs;
    size_t np = kcbp_broadphase_pairs(bp, &pairs);
    out->boxes = np;
    for (size_t k = 0; k < np && st == KCBP_OK; k++) {
        uint32_t a = pairs[k].a, b = pairs[k].b;
        uint32_t ma = kcbp_scene_object_model(s, a), mb = kcbp_scene_object_model(s, b);
        /* boxes widened by pad_a and pad_b overlap when the volumes are
         * within pad_a + pad_b, the pair's margin */
        if (!box_kind && !kcbp_bv_overlap(&bvs[ma], &poses[a], &bvs[mb], &poses[b], pads[a] + pads[b]))
            continue;
        out->passed++;
        st = kcbp_collide(kcbp_scene_model(s, ma), &poses[a], kcbp_scene_model(s, mb), &poses[b], &opts, &res, err);
        if (st == KCBP_OK && res.collide)
            st = add_hit(out, a, b, err);
    }
    out->pairs_ms = eval_now_ms() - t2;
done:
    kcbp_collide_result_free(&res);
    kcbp_broadphase_free(bp);
    free(poses);
    free(boxes);
    free(pads);
    return st;
}
