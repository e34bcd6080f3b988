#include <kcbp/collide.h>

#include <stdlib.h>
#include <string.h>

#include <kcbp/epa.h>
#include <kcbp/gjk.h>
#include <kcbp/tritri.h>

#include "cbp_stage.h"
#include "collide_internal.h"
#include "model_internal.h"
#include "shape_query.h"
#include "solid_internal.h"


kcbp_collide_options kcbp_collide_options_default(void)
{
    kcbp_collide_options o = {
        .contacts = KCBP_CONTACTS_FIRST, .use_cbp = true, .cbp_measure = false, .skip_bounds = false, .solid = false};
    return o;
}

const char *kcbp_containment_name(kcbp_containment c)
{
    switch (c) {
    case KCBP_CONTAINED_NONE: return "none";
    case KCBP_CONTAINED_A_IN_B: return "a_in_b";
    case KCBP_CONTAINED_B_IN_A: return "b_in_a";
    }
    return "unknown";
}

typedef struct {
    kcbp_collide_result *res;
    kcbp_contacts_mode mode;
    bool nomem;
    bool found;         /* first holds the first contact found */
    kcbp_contact first;
    uint64_t max;       /* > 0: stop once the result holds this many contacts */
} contact_sink;

static bool add_contact(void *ctx, uint32_t ta, uint32_t tb)
{
    contact_sink *s = ctx;
    kcbp_collide_result *r = s->res;
    r->collide = true;
    if (!s->found) {
        s->found = true;
        s->first = (kcbp_contact){ta, tb};
    }
    if (s->mode == KCBP_CONTACTS_NONE)
        return false;
    if (!kcbp_result_add_contact(r, (kcbp_contact){ta, tb})) {
        s->nomem = true;
        return false;
    }
    return s->mode == KCBP_CONTACTS_ALL && (!s->max || r->ncontacts < s->max);
}

static int cmp_contact(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* The fine k-CBPs, when the coarse ones overlap: the same early-exit test
 * with its own cached axis and simplex, the same margin and the same
 * certificate (the gap along GJK's axis over every vertex). Only ever says
 * "apart", as the coarse stage. */
static bool fine_stage(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a, kcbp_pair_cache *pc,
                       kcbp_collide_result *result)
{
    double margin = kcbp_pair_cbp_margin(a, b, b_in_a);
    double len = pc && (pc->flags & KCBP_PAIR_CACHE_FINE_AXIS) ? kcbp_v3_len(pc->fine_axis) : 0;
    if (len > 0 && isfinite(len)) {
        double lower = kcbp_cbp_gap(&a->fine, &b->fine, b_in_a, kcbp_v3_scale(pc->fine_axis, 1 / len));
        if (lower > margin) {
            result->cbp.separated = true;
            result->cbp.distance_lower = lower;
            result->cache.hit = KCBP_CACHE_AXIS;
            kcbp_pair_cache_set_slack(pc, lower);
            return true;
        }
        pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_FINE_AXIS;
    }
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_simplex_cache *warm = pc ? &pc->fine_simplex : NULL;
    double lower;
    kcbp_vec3 axis;
    int it = 0;
    double gap = 0;
    bool sep = kcbp_gjk_separated_warm(&a->fine_shape, &b->fine_shape, b_in_a, margin, &cache, warm, &lower, &it,
                                       &axis) &&
               (gap = kcbp_cbp_gap(&a->fine, &b->fine, b_in_a, axis)) > margin;
    result->cbp.gjk_iterations += it;
    if (sep) {
        result->cbp.separated = true;
        result->cbp.distance_lower = lower;
        if (pc) {
            pc->fine_axis = axis;
            pc->flags |= KCBP_PAIR_CACHE_FINE_AXIS;
            kcbp_pair_cache_set_slack(pc, gap);
        }
    }
    return sep;
}

/* Whether triangle ta of a and tb of b intersect, tested exactly as the
 * traversal tests them: a's vertices as stored, b's moved by b_in_a with
 * kcbp_pose_apply (and kcbp_tri_intersect does not depend on the order of
 * its arguments). */
static bool tri_pair_intersects(const kcbp_model_impl *a, uint32_t ta, const kcbp_model_impl *b, uint32_t tb,
                                const kcbp_pose *b_in_a, double eps)
{
    kcbp_vec3 pa[3], pb[3];
    for (int k = 0; k < 3; k++) {
        pa[k] = a->mesh.vertices[a->mesh.triangles[ta].v[k]];
        pb[k] = kcbp_pose_apply(b_in_a, b->mesh.vertices[b->mesh.triangles[tb].v[k]]);
    }
    return kcbp_tri_intersect(pa, pb, eps);
}

/* The cached contact's test: true (and the result filled: collide, and
 * with contacts FIRST the contact itself) when it still holds. *nomem is
 * set when the contact could not be listed. */
static bool contact_holds(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a, double eps,
                          kcbp_contacts_mode mode, kcbp_pair_cache *pc, kcbp_collide_result *result, bool *nomem)
{
    result->tree.tri_pairs++;
    if (!tri_pair_intersects(a, pc->contact.a, b, pc->contact.b, b_in_a, eps))
        return false;
    if (mode == KCBP_CONTACTS_FIRST && !kcbp_result_add_contact(result, pc->contact)) {
        *nomem = true;
        return false;
    }
    result->collide = true;
    result->decided_by = KCBP_STAGE_MESH;
    result->cache.hit = KCBP_CACHE_CONTACT;
    return true;
}

kcbp_status kcbp_collide(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                         const kcbp_collide_options *options, kcbp_collide_result *result, kcbp_error *err)
{
    return kcbp_collide_pair(a->impl, pose_a, b->impl, pose_b, options, NULL, result, err);
}

kcbp_status kcbp_collide_cached(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                const kcbp_pose *pose_b, const kcbp_collide_options *options, kcbp_pair_cache *pc,
                                kcbp_collide_result *result, kcbp_error *err)
{
    return kcbp_collide_pair(a->impl, pose_a, b->impl, pose_b, options, pc, result, err);
}

kcbp_status kcbp_pair_cache_new(kcbp_pair_cache **out, kcbp_error *err)
{
    if (!(*out = calloc(1, sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a pair cache");
    return KCBP_OK;
}

void kcbp_pair_cache_reset(kcbp_pair_cache *cache) { memset(cache, 0, sizeof *cache); }

void kcbp_pair_cache_free(kcbp_pair_cache *cache) { free(cache); }

kcbp_status kcbp_collide_pair(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                              const kcbp_pose *pose_b, const kcbp_collide_options *options, kcbp_pair_cache *pc,
                              kcbp_collide_result *result, kcbp_error *err)
{
    return kcbp_collide_pair_capped(a, pose_a, b, pose_b, options, 0, pc, result, err);
}

kcbp_status kcbp_collide_pair_capped(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                     const kcbp_pose *pose_b, const kcbp_collide_options *options,
                                     uint64_t max_contacts, kcbp_pair_cache *pc, kcbp_collide_result *result,
                                     kcbp_error *err)
{
    if (pc) /* set again below only if the k-CBP stage ends this test */
        pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_SLACK;
    if (kcbp_impl_is_shape(a) || kcbp_impl_is_shape(b)) { /* shapes: shape_query.c (their lists are short) */
        kcbp_status st = kcbp_shape_collide_pair(a, pose_a, b, pose_b, options, result, err);
        if (st == KCBP_OK && max_contacts && result->ncontacts > max_contacts)
            result->ncontacts = (size_t)max_contacts;
        return st;
    }
    result->collide = false;
    result->ncontacts = 0;
    memset(&result->tree, 0, sizeof result->tree);
    memset(&result->cbp, 0, sizeof result->cbp);
    memset(&result->cache, 0, sizeof result->cache);
    result->contained = KCBP_CONTAINED_NONE;
    if (options->solid && (!a->solid || !b->solid))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "a solid test needs models built as solids (model %s is not)",
                              a->solid ? "B" : "A");
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double eps = kcbp_pair_tolerance(a, b, &b_in_a);

    /* Stage 1: world boxes, widened by the tolerance (unless a broad phase
     * has just tested them). */
    if (!options->skip_bounds && !kcbp_pair_boxes_overlap(a, pose_a, b, pose_b, eps)) {
        result->decided_by = KCBP_STAGE_AABB;
        if (pc) {
            pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_CONTACT;
            pc->overlaps = 0;
        }
        return KCBP_OK;
    }

    /* Coincident copies (kcbp_pair_coincident): collide, no search needed
     * when at most the first contact is listed (nor the k-CBPs measured):
     * a true triangle meets its own copy (kcbp_coincident_contact). The
     * pair cache keeps that contact, which holds while the poses stay equal. */
    uint32_t self_t;
    if (options->contacts != KCBP_CONTACTS_ALL && !options->cbp_measure && kcbp_pair_coincident(a, b, &b_in_a) &&
        (self_t = kcbp_coincident_contact(a)) != UINT32_MAX) {
        kcbp_contact c = {self_t, self_t};
        if (options->contacts == KCBP_CONTACTS_FIRST && !kcbp_result_add_contact(result, c))
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for contacts");
        result->collide = true;
        result->decided_by = KCBP_STAGE_MESH;
        if (pc) {
            pc->flags |= KCBP_PAIR_CACHE_SEEN | KCBP_PAIR_CACHE_CONTACT;
            pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_LEAVES;
            pc->contact = c;
        }
        return KCBP_OK;
    }

    /* Stage 2, GJK on the k-CBPs, is adaptive (when not measuring): skipped
     * once KCBP_CACHE_SKIP_AFTER tests in a row were not ended by it (the
     * count below), since it then only costs time (stage 3 alone is exact),
     * but for every KCBP_CACHE_SKIP_AFTER-th test, which still runs it so
     * that a pair whose k-CBPs come apart is noticed; and skipped for a
     * pair that touched in its last test (its contact is cached), which
     * mostly still touches. */
    bool cbp = options->use_cbp && kcbp_impl_has_cbp(a) && kcbp_impl_has_cbp(b);
    bool skip = cbp && pc && !options->cbp_measure &&
                ((pc->overlaps >= KCBP_CACHE_SKIP_AFTER && pc->overlaps % KCBP_CACHE_SKIP_AFTER != 0) ||
                 (pc->flags & KCBP_PAIR_CACHE_CONTACT));
    /* The fine k-CBPs, when the coarse ones overlap, only for a pair seen
     * before (a frame of a moving scene, a pose of a trajectory): there its
     * cached axis and simplex make it cheap, while on a first test it costs
     * more than it saves (measured: bench/moving.sh, static-201). */
    bool fine = pc && (pc->flags & KCBP_PAIR_CACHE_SEEN) && !options->cbp_measure && a->fine.nplanes > 0 &&
                b->fine.nplanes > 0;
    if (pc) { /* one more test not ended by the boxes; reset below if the k-CBPs end it */
        pc->flags |= KCBP_PAIR_CACHE_SEEN;
        pc->overlaps += pc->overlaps < UINT32_MAX;
    }
    result->cache.gjk_skipped = skip;

    /* The last contact, when it still holds, settles "collide" and is the
     * one contact listed with contacts FIRST (kcbp_pair_cache: stable from
     * one pose to the next): tested exactly as the trees would test it.
     * It comes before the k-CBP stage, which could only have passed the pair
     * on (the triangle test accepts no pair its margin apart), unless that
     * stage measures for the report. */
    bool use_contact = pc && (pc->flags & KCBP_PAIR_CACHE_CONTACT) && options->contacts != KCBP_CONTACTS_ALL &&
                       pc->contact.a < a->mesh.ntriangles && pc->contact.b < b->mesh.ntriangles;
    bool nomem = false;
    if (use_contact && !options->cbp_measure &&
        contact_holds(a, b, &b_in_a, eps, options->contacts, pc, result, &nomem)) {
        result->cache.gjk_skipped = false;
        return KCBP_OK;
    }
    if (nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for contacts");

    if (cbp && !skip) {
        if (kcbp_pair_cbp_stage(a, b, &b_in_a, pose_a, options->cbp_measure, pc, result) ||
            (fine && fine_stage(a, b, &b_in_a, pc, result))) {
            result->decided_by = KCBP_STAGE_CBP;
            if (pc) {
                pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_CONTACT;
                pc->overlaps = 0;
            }
            return KCBP_OK;
        }
    }
    if (use_contact && options->cbp_measure &&
        contact_holds(a, b, &b_in_a, eps, options->contacts, pc, result, &nomem))
        return KCBP_OK;
    if (nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for contacts");

    /* Stage 3: the exact answer, from the two trees and the exact triangle
     * test (Möller's plane rejection, then exact orientation tests). */
    result->decided_by = KCBP_STAGE_MESH;
    contact_sink sink = {result, options->contacts, false, false, {0, 0}, max_contacts};
    uint32_t leaf[2] = {UINT32_MAX, UINT32_MAX};
    /* Every contact: the order of the search does not matter. */
    if (options->contacts == KCBP_CONTACTS_ALL) {
        kcbp_aabb_tree_collide_all(&a->tree, &b->tree, &b_in_a, eps, add_contact, &sink, &result->tree);
    } else {
        /* Near the last contact first (see kcbp_pair_cache), then from the
         * roots: below the start pair, every pair is one the full search
         * tests too, so a contact found there is one of its contacts. */
        static const uint32_t roots[2] = {0, 0};
        bool near = use_contact && (pc->flags & KCBP_PAIR_CACHE_LEAVES) && pc->leaf[0] < a->tree.nnodes &&
                    pc->leaf[1] < b->tree.nnodes;
        uint32_t start[2] = {0, 0};
        if (near) {
            start[0] = kcbp_aabb_tree_ancestor(&a->tree, pc->leaf[0], KCBP_CACHE_NEAR_LEVELS);
            start[1] = kcbp_aabb_tree_ancestor(&b->tree, pc->leaf[1], KCBP_CACHE_NEAR_LEVELS);
            near = (start[0] | start[1]) != 0 && /* not already the whole search */
                   kcbp_aabb_tree_collide_below(&a->tree, &b->tree, &b_in_a, eps, start, add_contact, &sink,
                                                &result->tree, leaf);
            if (near)
                result->cache.hit = KCBP_CACHE_NEAR;
        }
        /* After a start near the last contact that found none, the search
         * from the roots skips that start's pairs (every one tested). */
        if (!near && !sink.nomem && (start[0] | start[1]) != 0 && !sink.found)
            kcbp_aabb_tree_collide_except(&a->tree, &b->tree, &b_in_a, eps, start, add_contact, &sink,
                                          &result->tree, leaf);
        else if (!near && !sink.nomem)
            kcbp_aabb_tree_collide_below(&a->tree, &b->tree, &b_in_a, eps, roots, add_contact, &sink,
                                         &result->tree, leaf);
    }
    if (sink.nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the contact list");
    /* Solids whose surfaces do not meet: one inside the other still
     * collides. The boxes and k-CBPs that passed the pair on overlap, as
     * nested solids' do. */
    if (options->solid && !result->collide) {
        result->contained = kcbp_solid_containment(a, b, &b_in_a);
        result->collide = result->contained != KCBP_CONTAINED_NONE;
    }
    if (result->ncontacts > 1) /* contacts is NULL before the first one: qsort(NULL, 0) is undefined */
        qsort(result->contacts, result->ncontacts, sizeof *result->contacts, cmp_contact);
    if (pc && sink.found) {
        /* The first contact found, which the depth-first order makes much
         * the same from one pose to the next. */
        pc->contact = sink.first;
        pc->flags |= KCBP_PAIR_CACHE_CONTACT;
        pc->leaf[0] = leaf[0];
        pc->leaf[1] = leaf[1];
        if (leaf[0] != UINT32_MAX) /* the search stopped at the first contact */
            pc->flags |= KCBP_PAIR_CACHE_LEAVES;
        else
            pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_LEAVES;
    } else if (pc) {
        pc->flags &= ~(uint32_t)(KCBP_PAIR_CACHE_CONTACT | KCBP_PAIR_CACHE_LEAVES);
    }
    return KCBP_OK;
}

void kcbp_collide_result_free(kcbp_collide_result *result)
{
    if (!result)
        return;
    free(result->contacts);
    memset(result, 0, sizeof *result);
}
