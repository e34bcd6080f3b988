/* Temporal coherence across runs of the pair stage (internal): how far an
 * object can have moved since the last run, and what that lets a pair's
 * cache settle with no test at all.
 *
 * A pair the k-CBP stage ended keeps the gap it proved (kcbp_pair_cache's
 * slack: a lower bound on the distance between the two models' convex
 * bounds, so between their convex hulls). Between two runs every point of
 * an object's hull moves at most its reach (below), so the hulls are still
 * at least slack - reach_a - reach_b apart: while that stays above the
 * k-CBP margin the pair is apart, as the k-CBP stage would have found, and
 * its new slack is what is left. A pair apart by a gap g and closing at a
 * speed v is then tested about once every g / v frames instead of every
 * frame (bench/moving_pay.sh).
 *
 * Reach: an object's model holds its hull inside a sphere (centre c, radius
 * r, model frame; kcbp_reach_sphere). For poses p0 = (R0, t0) and
 * p1 = (R1, t1), every x with |x - c| <= r has
 *   |p1(x) - p0(x)| <= |p1(c) - p0(c)| + ||R1 - R0||_F r,
 * for any matrices. kcbp_reach pads that by a relative 1e-9 and by 1e-12 of
 * the coordinates' magnitudes: far above the rounding of the pose products
 * (a few ulps), and of the relative poses the pair tests of both runs
 * compute (so that the coordinates the exact triangle test would see are
 * covered too). Non-finite poses give an infinite or NaN reach, which no
 * slack passes. */
#ifndef KCBP_SCENE_REACH_H
#define KCBP_SCENE_REACH_H

#include <stdbool.h>

#include <kcbp/pose.h>

#include "query/cbp_stage.h"
#include "query/collide_internal.h"
#include "query/model_internal.h"

typedef struct {
    kcbp_vec3 c; /* model frame */
    double r;
} kcbp_reach_sphere;

/* A sphere holding the model's convex bound (its k-CBP, or the box of its
 * bounds without one): the centre of the bound's box, the largest distance
 * from it to a vertex of the k-CBP (to a corner of the box without one),
 * rounded up. */
kcbp_reach_sphere kcbp_reach_sphere_of(const kcbp_model_impl *m);

/* How far any point within the sphere can have moved from pose p0 to p1,
 * rounding included (see above). */
double kcbp_reach(const kcbp_reach_sphere *s, const kcbp_pose *p0, const kcbp_pose *p1);

/* An upper bound on the k-CBP margin of the pair a at pose_a, b at pose_b
 * (kcbp_pair_cbp_margin of their relative pose), with no rotation nor
 * root: KCBP_CBP_MARGIN_REL (max(sa, ca) + max(sb, cb) + |tb - ta|_1),
 * s the models' scales, c their k-CBPs', times 1 + 1e-6 for the rounding
 * and the rotations' rigidity (tests/test_reach.c). */
double kcbp_reach_margin_bound(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                               const kcbp_pose *pose_b);

/* Whether the pair (a at pose_a, b at pose_b, the order of its pair test)
 * whose cache holds a slack (KCBP_PAIR_CACHE_SLACK) is still apart after
 * both moved at most reach (the sum of their reaches): the slack left above
 * the k-CBP margin at the new poses. On true the cache's slack is what is
 * left (rounded down); on false its SLACK flag is cleared. */
bool kcbp_reach_slack_holds(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                            const kcbp_pose *pose_b, double reach, kcbp_pair_cache *pc);

#endif
