/* The k-CBP stage (cbp_stage.h), once for meshes and shapes alike. */
#include "cbp_stage.h"

#include <math.h>
#include <string.h>

#include <kcbp/epa.h>
#include <kcbp/gjk.h>

const kcbp_convex *kcbp_pair_bound_convex(const kcbp_model_impl *m)
{
    return kcbp_impl_is_shape(m) ? &m->geom.convex : &m->shape;
}

/* The support value of a model's bound along n (A's frame), placed by pose
 * (NULL: identity). */
static double bound_support(const kcbp_model_impl *m, const kcbp_pose *pose, kcbp_vec3 n)
{
    static const kcbp_pose identity = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};
    const kcbp_convex *c = kcbp_pair_bound_convex(m);
    uint32_t hint = 0;
    kcbp_vec3 s = kcbp_convex_support_posed(c, pose ? pose : &identity, n, &hint);
    return kcbp_v3_dot(n, s) + c->radius * kcbp_v3_len(n);
}

void kcbp_pair_cache_set_slack(kcbp_pair_cache *pc, double gap)
{
    if (!pc)
        return;
    float f = (float)gap;
    if (!(f > 0))
        return;
    if ((double)f > gap) { /* the next float down: for f > 0 (inf too), the bit pattern less one */
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        u--;
        memcpy(&f, &u, sizeof f);
    }
    if (f > 0 && isfinite(f)) {
        pc->slack = f;
        pc->flags |= KCBP_PAIR_CACHE_SLACK;
    }
}

double kcbp_pair_bound_gap(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a, kcbp_vec3 n)
{
    if (!kcbp_impl_is_shape(a) && !kcbp_impl_is_shape(b))
        return kcbp_cbp_gap(&a->cbp, &b->cbp, b_in_a, n);
    return -bound_support(b, b_in_a, kcbp_v3_neg(n)) - bound_support(a, NULL, n);
}

bool kcbp_pair_cbp_stage(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a,
                         const kcbp_pose *pose_a, bool measure, kcbp_pair_cache *pc, kcbp_collide_result *result)
{
    kcbp_cbp_result *c = &result->cbp;
    const kcbp_convex *ca = kcbp_pair_bound_convex(a), *cb = kcbp_pair_bound_convex(b);
    kcbp_support_cache cache = {{0, 0}};
    double margin = kcbp_pair_cbp_margin(a, b, b_in_a);
    c->tested = true;
    c->measured = measure;
    if (!measure) {
        double lower;
        kcbp_vec3 axis;
        double len = pc && (pc->flags & KCBP_PAIR_CACHE_AXIS) ? kcbp_v3_len(pc->axis) : 0;
        if (len > 0 && isfinite(len)) {
            /* The gap along the last separating axis: a lower bound on the
             * bounds' distance, whatever the axis, once it is a unit one
             * (the cache may hold anything). */
            lower = kcbp_pair_bound_gap(a, b, b_in_a, kcbp_v3_scale(pc->axis, 1 / len));
            if (lower > margin) {
                c->separated = true;
                c->distance_lower = lower;
                result->cache.hit = KCBP_CACHE_AXIS;
                kcbp_pair_cache_set_slack(pc, lower);
                return true;
            }
            pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_AXIS;
        }
        kcbp_gjk_simplex_cache *warm = pc ? &pc->simplex : NULL;
        result->cache.gjk_warm = warm && warm->count > 0;
        double gap = 0; /* the certificate: the gap along GJK's axis over both bounds */
        c->separated = kcbp_gjk_separated_warm(ca, cb, b_in_a, margin, &cache, warm, &lower, &c->gjk_iterations,
                                               &axis) &&
                       (gap = kcbp_pair_bound_gap(a, b, b_in_a, axis)) > margin;
        c->distance_lower = c->separated ? lower : 0;
        if (pc && c->separated) {
            pc->axis = axis;
            pc->flags |= KCBP_PAIR_CACHE_AXIS;
            kcbp_pair_cache_set_slack(pc, gap);
        }
        return c->separated;
    }
    kcbp_gjk_result g;
    kcbp_gjk_distance(ca, cb, b_in_a, NULL, &cache, &g);
    c->gjk_iterations = g.iterations;
    if (g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_HIT_CAP) {
        c->distance = g.distance;
        c->point_a = kcbp_pose_apply(pose_a, g.point_a);
        c->point_b = kcbp_pose_apply(pose_a, g.point_b);
        /* HIT_CAP: only the lower bound is certain. */
        c->separated = g.distance_lower > margin && kcbp_pair_bound_gap(a, b, b_in_a, g.normal) > margin;
        c->distance_lower = c->separated ? g.distance_lower : 0;
        return c->separated;
    }
    if (g.status == KCBP_GJK_TOUCHING) {
        c->direction = kcbp_mat3_mul_v3(&pose_a->rot, g.normal);
        c->depth_exact = true;
        return false;
    }
    kcbp_epa_result e;
    kcbp_epa_penetration(ca, cb, b_in_a, &g, NULL, &cache, NULL, &e);
    c->epa_iterations = e.iterations;
    c->depth = e.depth;
    c->direction = kcbp_mat3_mul_v3(&pose_a->rot, e.normal);
    c->depth_exact = e.status == KCBP_EPA_PENETRATING || e.status == KCBP_EPA_TOUCHING;
    return false;
}
