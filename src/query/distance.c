/* kcbp_distance (include/kcbp/distance.h): world boxes, then the k-CBPs'
 * GJK distance, then the trees' distance traversal (src/bvh/tree_distance.c)
 * with a running upper bound, seeded near the k-CBPs' closest points. */
#include <kcbp/distance.h>

#include <math.h>
#include <string.h>

#include <kcbp/gjk.h>

#include "model_internal.h"
#include "shape_query.h"

/* The collision probe of stage 3: the first touching triangle pair (mesh
 * indices), if any. */
typedef struct {
    bool found;
    uint32_t ta, tb;
} probe_ctx;

static bool probe_found(void *ctx, uint32_t ta, uint32_t tb)
{
    probe_ctx *p = ctx;
    p->found = true;
    p->ta = ta;
    p->tb = tb;
    return false;
}

kcbp_distance_options kcbp_distance_options_default(void)
{
    kcbp_distance_options o = {.max_distance = INFINITY, .use_cbp = true};
    return o;
}

kcbp_status kcbp_distance(const kcbp_model *ma, const kcbp_pose *pose_a, const kcbp_model *mb,
                          const kcbp_pose *pose_b, const kcbp_distance_options *options,
                          kcbp_distance_result *result, kcbp_error *err)
{
    const kcbp_model_impl *a = ma->impl, *b = mb->impl;
    kcbp_distance_options o = options ? *options : kcbp_distance_options_default();
    if (kcbp_impl_is_shape(a) || kcbp_impl_is_shape(b)) /* shapes: shape_query.c */
        return kcbp_shape_distance(a, pose_a, b, pose_b, &o, result, err);
    memset(result, 0, sizeof *result);
    result->distance = INFINITY;
    result->decided_by = KCBP_STAGE_MESH;
    if (a->mesh.ntriangles == 0 || b->mesh.ntriangles == 0 || !a->tree.nodes || !b->tree.nodes)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "distance: a model without triangles");
    if (a->tree.depth + b->tree.depth > KCBP_TREE_DISTANCE_MAX_DEPTH)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "distance: trees deeper than %d levels together",
                              KCBP_TREE_DISTANCE_MAX_DEPTH);
    bool limited = o.max_distance >= 0 && isfinite(o.max_distance);
    double limit = limited ? o.max_distance : INFINITY;
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double scale = kcbp_pair_cbp_scale(a, b, &b_in_a), margin = KCBP_CBP_MARGIN_REL * scale;
    kcbp_tree_distance_query q = {.limit = limit, .stop = 0, .scale = scale};
    double lower = 0;

    /* Stage 1: the world boxes (only a decision with a limit). */
    bool cbp = o.use_cbp && kcbp_impl_has_cbp(a) && kcbp_impl_has_cbp(b);
    if (limited) {
        double d = sqrt(kcbp_pair_boxes_dist2(a, pose_a, b, pose_b));
        /* The world boxes are of the k-CBPs' vertices, which may be pushed
         * inside the planes by rounding: keep the margin. */
        double box_lower = d - margin;
        lower = fmax(lower, box_lower);
        if (box_lower > limit) {
            result->decided_by = KCBP_STAGE_AABB;
            result->distance_lower = lower;
            return KCBP_OK;
        }
    }

    /* Stage 2: the k-CBPs' distance, a lower bound on the meshes'. */
    if (cbp) {
        kcbp_support_cache cache = {{0, 0}};
        kcbp_gjk_result g;
        kcbp_gjk_distance(&a->shape, &b->shape, &b_in_a, NULL, &cache, &g);
        result->cbp_tested = true;
        result->gjk_iterations = g.iterations;
        bool apart = g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_HIT_CAP;
        if (apart) {
            /* The triangles nearest the k-CBPs' closest points lie near the
             * meshes' closest points when those are on the hulls: the
             * traversal starts from them. */
            kcbp_pose b_to_a_inv = kcbp_pose_inverse(&b_in_a);
            q.seeded = true;
            q.seed_a = g.point_a;
            q.seed_b = kcbp_pose_apply(&b_to_a_inv, g.point_b);
        }
        result->cbp_distance = apart ? g.distance_lower : 0;
        lower = fmax(lower, result->cbp_distance - margin);
        if (limited && result->cbp_distance - margin > limit) {
            result->decided_by = KCBP_STAGE_CBP;
            result->distance_lower = lower;
            return KCBP_OK;
        }
    }

    /* Stage 3: the trees. When the k-CBPs overlap, the meshes may
     * intersect: the collision traversal (much cheaper per node pair than
     * the distance's bounds, and stopped at its first contact) looks for a
     * touching triangle pair first, whose distance (0, unless kcbp_tri_distance
     * rounds it to a hair above) then ends or nearly ends the search. */
    if (!q.seeded) {
        probe_ctx pc = {false, 0, 0};
        kcbp_tree_stats st = {0, 0};
        uint32_t near[2];
        kcbp_aabb_tree_probe(&a->tree, &b->tree, &b_in_a, kcbp_pair_tolerance(a, b, &b_in_a), probe_found, &pc, &st,
                             near);
        result->tree.box_pairs += st.box_pairs;
        result->tree.tri_pairs += st.tri_pairs;
        uint32_t ta = pc.ta, tb = pc.tb;
        if (!pc.found && near[0] != UINT32_MAX) {
            /* no contact: the first pair of triangles tested, near each
             * other, for a first upper bound */
            ta = a->tree.tri_ids[near[0]];
            tb = b->tree.tri_ids[near[1]];
        }
        if (pc.found || near[0] != UINT32_MAX) {
            q.hinted = true;
            q.hint_tri_a = ta;
            q.hint_tri_b = tb;
            for (int k = 0; k < 3; k++) {
                q.hint_a[k] = a->mesh.vertices[a->mesh.triangles[ta].v[k]];
                q.hint_b[k] = b->mesh.vertices[b->mesh.triangles[tb].v[k]];
            }
        }
    }
    q.stop = lower;
    kcbp_tree_distance_result t;
    kcbp_tree_distance(&a->tree, &b->tree, &b_in_a, &q, &t);
    result->tree.box_pairs += t.stats.box_pairs;
    result->tree.tri_pairs += t.stats.tri_pairs;
    if (!t.found) {
        /* Every node pair left was farther than the limit. */
        result->distance_lower = fmax(lower, limit);
        return KCBP_OK;
    }
    result->within = true;
    result->distance = t.distance;
    result->distance_lower = t.distance;
    result->point_a = kcbp_pose_apply(pose_a, t.point_a);
    result->point_b = kcbp_pose_apply(pose_a, t.point_b);
    result->tri_a = t.tri_a;
    result->tri_b = t.tri_b;
    return KCBP_OK;
}
