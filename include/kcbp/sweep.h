/* Time of impact: the first time two moving meshes touch.
 *
 * A motion takes a body from one pose to another as t goes from 0 to 1:
 * its translation moves linearly and its rotation turns about a fixed axis
 * at a constant rate, along the shorter arc (slerp between the two unit
 * quaternions, Shoemake 1985). A point p of the body (its own frame) is at
 * R(t) p + T(t) in the world, with R(t) = R0 * Rot(axis, angle * t) and
 * T(t) = T0 + t (T1 - T0): the rotation is about the body's own origin, as
 * kcbp poses are.
 *
 * kcbp_sweep finds the first t in [0, 1] at which the two surfaces touch,
 * by conservative advancement (Mirtich, "Impulse-based dynamic simulation
 * of rigid body systems", 1996, ch. 4; as FCL's conservativeAdvancement and
 * Box2D's b2TimeOfImpact): from a proven lower bound d on the distance at
 * t, and a bound mu on how fast any point of either body moves (|T1 - T0|
 * plus the angle times the body's largest distance from its rotation axis),
 * the bodies cannot touch before t + d / mu. Two lower bounds drive it:
 *   1. far field: the k-CBPs. Their gap along GJK's closest direction n
 *      shrinks no faster than the relative speed along n (|dT . n| plus the
 *      rotations' share), so the k-CBPs, and the meshes inside them, cannot
 *      touch before t + gap / that speed. For a pure translation this is the
 *      conservative-advancement form of the GJK ray cast (van den Bergen,
 *      "Ray casting against general convex objects", 2004): it reaches the
 *      k-CBPs' time of impact in a few GJK calls. A sweep whose k-CBPs never
 *      meet is answered without touching the meshes.
 *   2. near field: kcbp_distance between the meshes (with a clearance limit
 *      of what the rest of the motion could close, so that a sweep that ends
 *      apart stops at the first query that proves it), each step the larger
 *      of both bounds.
 *
 * Guarantee (for the motions as computed in double, kcbp_motion_at): with
 * tau = options.t_tolerance, the meshes do not touch at any t < toi (each
 * step is proven from a distance lower bound that has its rounding bound
 * KCBP_TRI_DIST_REL_ERR subtracted), and at toi their distance is at most
 * mu * tau (they are within tau of touching at the speed bound) or within
 * the distance's rounding bound, whichever is larger; result.distance says
 * which. Where that holds, the exact triangle test is asked whether the
 * meshes touch at toi + tau; if not, advancement goes on (up to 64 such
 * steps) until it does, so that for any motion that does not merely graze
 * the other mesh the true time of impact lies in [toi, toi + tau]
 * (result.confirmed says when this was verified). A sweep that needs more than options.max_iterations steps (a grazing
 * motion whose distance hovers just above the tolerance) ends "undecided",
 * with the proven contact-free interval [0, free_until).
 *
 * Shapes (shape.h) sweep as meshes do, by kcbp_distance near contact (a
 * shape has no k-CBP: no far field unless both are meshes), with the
 * shape's own bound on its points' distance from a rotation axis.
 *
 * Frames: poses are world poses (world = pose * local); points are returned
 * in the world frame at toi. No allocation beyond kcbp_distance's (none);
 * models are read-only, so any number of threads may sweep the same models. */
#ifndef KCBP_SWEEP_H
#define KCBP_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "collide.h"
#include "distance.h"
#include "error.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A body's motion from pose `from` (t = 0) to pose `to` (t = 1). */
typedef struct {
    kcbp_pose from, to;
    kcbp_vec3 dtrans; /* to.trans - from.trans */
    kcbp_vec3 axis;   /* unit, in the body's frame: to.rot = from.rot * Rot(axis, angle) */
    double angle;     /* radians, in [0, pi]: the shorter arc */
} kcbp_motion;

/* The motion between two poses (rotations given as rotation matrices, as
 * kcbp_pose_parse builds them). */
KCBP_API kcbp_motion kcbp_motion_make(const kcbp_pose *from, const kcbp_pose *to);
/* A body that stays at pose p. */
KCBP_API kcbp_motion kcbp_motion_still(const kcbp_pose *p);
/* The pose at t (t <= 0 gives from, t >= 1 gives to, exactly). */
KCBP_API kcbp_pose kcbp_motion_at(const kcbp_motion *m, double t);

/* A bound on the speed of every point of model m under motion mo, per unit
 * t: |dtrans| plus the angle times the largest distance of the model's
 * points (its k-CBP's vertices when it has one) from the rotation axis
 * through its origin. So no point's path is longer than this. */
KCBP_API double kcbp_motion_speed_bound(const kcbp_model *m, const kcbp_motion *mo);

typedef struct {
    double t_tolerance; /* tau above: > 0 (default 1e-9) */
    int max_iterations; /* conservative-advancement steps before "undecided" (default 10000) */
    bool use_cbp;       /* the k-CBP far field (when both models have one) */
} kcbp_sweep_options;

/* t_tolerance 1e-9, 10000 steps, the k-CBP far field on. */
KCBP_API kcbp_sweep_options kcbp_sweep_options_default(void);

typedef struct {
    bool hit;           /* the meshes touch at toi (within the tolerance above) */
    bool undecided;     /* the step cap was reached: nothing is known after free_until */
    bool confirmed;     /* hit: the exact test (kcbp_collide) finds the meshes touching at toi or at
                           toi + t_tolerance (or at t = 1, when that is nearer): the true time of
                           impact is then in [toi, toi + t_tolerance] */
    double toi;         /* hit: the time of impact in [0, 1]; otherwise 1 (or free_until) */
    double free_until;  /* the meshes are proven apart on [0, free_until) (1 when they never touch) */
    double distance;    /* hit: the meshes' distance at toi (<= the tolerance) */
    kcbp_vec3 point_a, point_b; /* hit: closest points at toi, world frame, on A and on B */
    uint32_t tri_a, tri_b;      /* hit: the triangles they lie on (mesh indices, as contacts) */
    double motion_bound;        /* mu: the bound on the relative speed of two points (per unit t) */
    int iterations;             /* conservative-advancement steps */
    int cbp_steps;              /* of them, steps whose bound came from the k-CBPs */
    int distance_queries;       /* kcbp_distance calls */
    kcbp_tree_stats tree;       /* summed over the distance queries */
} kcbp_sweep_result;

/* Sweeps model a along motion_a and model b along motion_b (either may be
 * still). options NULL: defaults. Fails for a model without triangles or an
 * invalid option (t_tolerance not > 0, max_iterations < 1). */
KCBP_API kcbp_status kcbp_sweep(const kcbp_model *a, const kcbp_motion *motion_a, const kcbp_model *b,
                                const kcbp_motion *motion_b, const kcbp_sweep_options *options,
                                kcbp_sweep_result *result, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
