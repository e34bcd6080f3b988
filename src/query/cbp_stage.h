/* The k-CBP stage of a pair test (stage 2 of collide.h), one for every
 * pair of models: GJK on the two models' bounding convexes (a mesh's
 * k-CBP, a shape itself), the gap along GJK's axis checked over both, and
 * when measuring the distance or EPA's depth for the report. kcbp_collide
 * (meshes) and the shape queries (shape_query.c) both run it. */
#ifndef KCBP_CBP_STAGE_H
#define KCBP_CBP_STAGE_H

#include <stdbool.h>

#include <kcbp/collide.h>

#include "collide_internal.h"
#include "model_internal.h"

/* The convex GJK takes for a model: a mesh's k-CBP, a shape itself. */
const kcbp_convex *kcbp_pair_bound_convex(const kcbp_model_impl *m);

/* The gap between the two models' bounds along the unit axis n (A's
 * frame, from A toward B; B placed by b_in_a), from every vertex of two
 * k-CBPs (kcbp_cbp_gap) or a shape's support: a positive gap along any
 * axis is a lower bound on their distance, whatever produced the axis. */
double kcbp_pair_bound_gap(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a, kcbp_vec3 n);

/* Runs the stage and fills result->cbp in world coordinates (pose_a: A's
 * world pose). Returns true when the bounds are apart by more than the
 * k-CBP margin (kcbp_pair_cbp_margin), so that the models cannot touch.
 * measure: GJK to convergence for the distance, EPA for the depth when they
 * overlap; otherwise GJK stops at the first plane that separates them by
 * more than the margin. pc: the pair cache (NULL: none), used only when
 * not measuring (see kcbp_pair_cache); result->cache.hit and gjk_warm say
 * what it did. */
bool kcbp_pair_cbp_stage(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a,
                         const kcbp_pose *pose_a, bool measure, kcbp_pair_cache *pc, kcbp_collide_result *result);

/* Records in pc (NULL: nothing) the gap the k-CBP stage has just proved
 * (flag KCBP_PAIR_CACHE_SLACK), rounded down to a float. */
void kcbp_pair_cache_set_slack(kcbp_pair_cache *pc, double gap);

#endif
