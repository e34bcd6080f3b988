/* Time of impact in 2D: the first time a moving 2D body touches another.
 *
 * Motion. A body moves from one pose (t = 0) to another (t = 1), both
 * given as "tx ty deg" (pose2d.h): its translation moves linearly and its
 * angle turns linearly, about the body's own origin, from from_deg to
 * to_deg as written (to_deg - from_deg may exceed 360: 0 to 720 is two
 * full turns counter-clockwise; 0 to -90 a quarter turn clockwise). The
 * pose at t is kcbp2d_motion_at's:
 *   t <= 0: kcbp2d_pose_from_angle(from.x, from.y, from_deg), t >= 1: the
 *   same of to; otherwise translation from + t * (to - from) (per
 *   coordinate, each operation rounded once) and angle from_deg + t *
 *   (to_deg - from_deg) degrees, made a pose by kcbp2d_pose_from_angle.
 * The answers are for these poses, computed in double, as every 2D query's
 * are for its posed coordinates.
 *
 * Method: conservative advancement (Mirtich, "Impulse-based dynamic
 * simulation of rigid body systems", 1996, ch. 4; as Box2D's
 * b2TimeOfImpact and the 3D kcbp_sweep, sweep.h). With rho the largest
 * distance of a body's core vertices from its origin (a model: of its
 * vertices) and w its turn in radians, no point of it moves farther than
 * |to - from| + |w| * rho over the motion, nor faster per unit t; mu, the
 * sum over both bodies, bounds how fast their distance can shrink, so from
 * a proven lower bound d on the distance at t, nothing touches before
 * t + d / mu. Two convex shapes get a sharper bound: the gap of their
 * projections on a unit direction n is a lower bound on their distance,
 * and it shrinks no faster than -n . (dT_B - dT_A) plus the turns'
 * |w| * rho (for a translation, the conservative-advancement form of a ray
 * cast: exact in a few steps); when that is <= 0 the gap never shrinks and
 * the bodies never touch. n is the best of the closest points' direction
 * (GJK, distance2d.h) and the normals of the edges at both supports along
 * it (at a vertex-edge contact, the exact one: the closest points'
 * direction loses accuracy as the distance shrinks). A turning pair also
 * gets a second-order bound along n: each vertex's projection moves at its
 * own rate n . (dT + w perp(v - c)) to within w^2 |v - c| h^2 / 2, a bound
 * concave in the step h whose root (regula falsi from the safe side) is
 * taken when it is farther. When one body turns and the other does not,
 * a step is also taken along the edge normal carried round with the
 * turning body: in its frame its own projections stay, the other's
 * vertices move as sinusoids in h, bounded by their Taylor polynomials
 * and remainders (to the fourth order); else along n held fixed, the
 * turning body's vertices bounded so to the fourth order. Where such a
 * bound is not convex in h its concave terms are replaced by their
 * tangents at the step's end, and it is checked at both ends, so that a
 * step is proven on the whole of it. GJK starts each step from the last
 * step's simplex (at a vertex-edge simplex, that edge's normal is the
 * direction). A step whose bound ends within half mu * tau, with GJK's
 * distance there within mu * tau, goes to the exact test at once.
 * Models (polygons with holes) use
 * kcbp2d_model_distance / kcbp2d_model_shape_distance and mu. A shape
 * moving without turning (or a circle turning about its centre) against a
 * still model, whose steps crawl (each longer than half the last, after 8:
 * a rounded shape grazing a corner, the distance falling as the square of
 * the time left), also proves [t, s] free by the exact
 * kcbp2d_model_shape_collide of its swept hull (the hull of its cores at t
 * and s, its radius, margin 2 E) and bisects s to tau / 2 (at most four
 * such jumps a sweep); at toi the distance is then within 2 E of touching,
 * usually unconfirmed (grazing: the contact is up to about sqrt(E) later).
 *
 * Guarantee, with tau = options.t_tolerance and E the distances' rounding
 * bound (64 * 2^-53 times the sum of both bodies' reach |T| + rho + radius,
 * which also covers the poses' rounding):
 *   - no contact before toi: every step is proven from a distance lower
 *     bound with E subtracted, so at no t in [0, free_until) do the bodies
 *     touch (up to E: a pair closer than E at some t may be stepped over
 *     only if it never comes closer than E);
 *   - at toi, the proven lower bound on the distance is at most
 *     max(mu * tau, 2 E): the bodies are within that, plus E, of touching
 *     (result.distance, their distance at toi, says how near);
 *   - confirmed: the exact collide test (kcbp2d_collide, kcbp2d_model_collide,
 *     kcbp2d_model_shape_collide) finds them touching at toi or at toi + tau
 *     (1 when nearer): the true time of impact lies in [toi, toi + tau].
 *     An unconfirmed hit is a motion that grazes within the tolerance
 *     (up to 64 more steps are taken to look for a confirmed one).
 *   - always terminates: after options.max_iterations steps the answer is
 *     "undecided", with the proven contact-free interval [0, free_until).
 * Touching at t = 0 (including overlapping, or one inside the other) is a
 * hit at toi 0. A body inside another's hole sweeps as any other: the
 * hole's edges are the near ones.
 *
 * Frames: points and the normal are in the world frame at toi; the normal
 * is a unit vector from A toward B (from the closest points; when they
 * coincide, the last nonzero direction seen, else the convex pair's depth
 * direction, else (0, 1)).
 *
 * Growable structs (docs/library.md "Versions"): options only by
 * kcbp2d_sweep_options_default(); results written within the size the
 * caller compiled against (the inline wrappers pass sizeof *result). No
 * allocation beyond the distance queries'; bodies are read-only, so any
 * number of threads may sweep the same models. */
#ifndef KCBP_SWEEP2D_H
#define KCBP_SWEEP2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "polygon2d.h"
#include "pose2d.h"
#include "shape2d.h"
#include "vec2.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A body's motion from ("from", from_deg) at t = 0 to ("to", to_deg) at
 * t = 1; a body that stands still has from == to and from_deg == to_deg. */
typedef struct {
    kcbp_vec2 from, to;      /* translations */
    double from_deg, to_deg; /* angles, degrees counter-clockwise, interpolated linearly */
} kcbp2d_motion;

/* A body standing at (tx, ty, deg). */
KCBP_API kcbp2d_motion kcbp2d_motion_still(double tx, double ty, double deg);

/* The pose at t, as stated above. KCBP_ERR_INVALID for a non-finite number
 * or a translation beyond KCBP_COORD_MAX (as kcbp2d_pose_from_angle). */
KCBP_API kcbp_status kcbp2d_motion_at(const kcbp2d_motion *m, double t, kcbp2d_pose *out, kcbp_error *err);

#define KCBP2D_SWEEP_TOLERANCE_DEFAULT 1e-9
#define KCBP2D_SWEEP_MAX_ITERATIONS_DEFAULT 10000

typedef struct {
    uint32_t size;      /* sizeof the caller's struct: set by kcbp2d_sweep_options_default */
    double t_tolerance; /* tau above: in (0, 0.5]; default KCBP2D_SWEEP_TOLERANCE_DEFAULT */
    int max_iterations; /* steps before "undecided" (>= 1); default KCBP2D_SWEEP_MAX_ITERATIONS_DEFAULT */
} kcbp2d_sweep_options;

KCBP_API void kcbp2d_sweep_options_init(kcbp2d_sweep_options *o, uint32_t size);

static inline kcbp2d_sweep_options kcbp2d_sweep_options_default(void)
{
    kcbp2d_sweep_options o;
    kcbp2d_sweep_options_init(&o, (uint32_t)sizeof o);
    return o;
}

typedef struct {
    bool hit;         /* the bodies touch at toi (within the tolerance above) */
    bool undecided;   /* the step cap was reached: nothing is known after free_until */
    bool confirmed;   /* hit: the exact test found contact at toi or toi + tau (see above) */
    double toi;       /* hit: the time of impact in [0, 1]; otherwise 1 (or free_until) */
    double free_until; /* no contact on [0, free_until) (1 when they never touch) */
    double distance;  /* hit: the distance at toi (0 when touching there) */
    kcbp_vec2 point_a, point_b; /* hit: closest points at toi, world frame */
    kcbp_vec2 normal;           /* hit: unit, A toward B (see above) */
    /* hit, models: the edges the points lie on (polygon2d.h's numbering;
     * UINT32_MAX for a shape, or when one body lies inside the other) */
    uint32_t edge_a, edge_b;
    double motion_bound; /* mu: how fast the distance can shrink, per unit t */
    int iterations;      /* conservative-advancement steps */
    int distance_queries;
} kcbp2d_sweep_result;

/* Two convex shapes (shape2d.h; checked as kcbp2d_collide checks them). */
KCBP_API kcbp_status kcbp2d_sweep_sized(const kcbp2d_shape *a, const kcbp2d_motion *motion_a, const kcbp2d_shape *b,
                                        const kcbp2d_motion *motion_b, const kcbp2d_sweep_options *options,
                                        kcbp2d_sweep_result *result, size_t result_size, kcbp_error *err);

static inline kcbp_status kcbp2d_sweep(const kcbp2d_shape *a, const kcbp2d_motion *motion_a, const kcbp2d_shape *b,
                                       const kcbp2d_motion *motion_b, const kcbp2d_sweep_options *options,
                                       kcbp2d_sweep_result *result, kcbp_error *err)
{
    return kcbp2d_sweep_sized(a, motion_a, b, motion_b, options, result, sizeof *result, err);
}

/* Two models (polygons with holes, polygon2d.h). */
KCBP_API kcbp_status kcbp2d_model_sweep_sized(const kcbp2d_model *a, const kcbp2d_motion *motion_a,
                                              const kcbp2d_model *b, const kcbp2d_motion *motion_b,
                                              const kcbp2d_sweep_options *options, kcbp2d_sweep_result *result,
                                              size_t result_size, kcbp_error *err);

static inline kcbp_status kcbp2d_model_sweep(const kcbp2d_model *a, const kcbp2d_motion *motion_a,
                                             const kcbp2d_model *b, const kcbp2d_motion *motion_b,
                                             const kcbp2d_sweep_options *options, kcbp2d_sweep_result *result,
                                             kcbp_error *err)
{
    return kcbp2d_model_sweep_sized(a, motion_a, b, motion_b, options, result, sizeof *result, err);
}

/* A model (A) and a convex shape (B); either may move (for a shape
 * against a moving model, give the model's motion as motion_a). */
KCBP_API kcbp_status kcbp2d_model_shape_sweep_sized(const kcbp2d_model *a, const kcbp2d_motion *motion_a,
                                                    const kcbp2d_shape *b, const kcbp2d_motion *motion_b,
                                                    const kcbp2d_sweep_options *options, kcbp2d_sweep_result *result,
                                                    size_t result_size, kcbp_error *err);

static inline kcbp_status kcbp2d_model_shape_sweep(const kcbp2d_model *a, const kcbp2d_motion *motion_a,
                                                   const kcbp2d_shape *b, const kcbp2d_motion *motion_b,
                                                   const kcbp2d_sweep_options *options, kcbp2d_sweep_result *result,
                                                   kcbp_error *err)
{
    return kcbp2d_model_shape_sweep_sized(a, motion_a, b, motion_b, options, result, sizeof *result, err);
}

#ifdef __cplusplus
}
#endif
#endif
