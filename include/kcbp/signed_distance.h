/* Signed distance and penetration depth: how far apart two posed models
 * are, or how deep they overlap and which way is out.
 *
 * kcbp_signed_distance answers, for any two models (meshes, shapes, hulls;
 * model.h):
 *   - apart:       the distance (as kcbp_distance), > 0;
 *   - overlapping: minus the penetration depth, the length of the shortest
 *                  translation of B after which the two solids' interiors
 *                  are disjoint, with its direction (normal).
 *
 * Definitions. Every model is taken as a solid here: a shape or a hull is
 * its solid; a mesh must be a closed solid (solid.h; built with
 * kcbp_model_options.solid), else KCBP_ERR_GEOMETRY naming its open edges.
 * (A pair that is apart needs no solid: its distance is the surfaces'.)
 *
 * Frames and signs, as gjk.h and epa.h (and Coal's identity):
 *   - points are in the world frame (computed in A's frame, moved by pose_a);
 *   - normal is a unit vector from A toward B;
 *   - point_b - point_a == signed_distance * normal (up to rounding):
 *     apart, the closest points; overlapping, point_a on A's surface and
 *     point_b on B's, with moving B by depth * normal bringing point_b onto
 *     point_a (the solids then just touch).
 *   - a field named depth is >= 0; signed_distance is the only signed one.
 *
 * What is exact, what is bounded (status):
 *   - KCBP_SDIST_APART, KCBP_SDIST_TOUCHING: the yes/no answer ("do the
 *     solids share a point") is decided as kcbp_collide decides it (exact
 *     for meshes, spheres, capsules and boxes; cylinders and hulls within
 *     KCBP_SHAPE_GJK_BAND); the distance is kcbp_distance's (its bounds).
 *   - KCBP_SDIST_PENETRATING: two convex solids (spheres, capsules, boxes,
 *     cylinders, hulls, and closed meshes that are exactly convex, below):
 *     depth is the penetration depth within KCBP_SDIST_CONVEX_REL_TOL of
 *     the pair's scale (closed forms for sphere and capsule pairs and
 *     against boxes, the 15 axes for two boxes, EPA otherwise);
 *     depth_lower == depth_upper == depth.
 *     A closed mesh (built as a solid) counts as convex when its solid is
 *     exactly the hull of its vertices: every triangle's plane has every
 *     hull vertex on one side, the same side for all (exact orient3d on
 *     the stored coordinates, no tolerance; several coplanar triangles on
 *     one facet, or a vertex inside a facet, are fine; a vertex a rounding
 *     off a facet's plane is not). It is then answered as its hull: the
 *     hull's EPA depth, feature_a/b KCBP_SHAPE_FEATURE, decided_by
 *     KCBP_STAGE_SHAPE; and, as for every pair with a mesh, B moved by
 *     `translation` is shown apart by the exact test: depth == depth_upper
 *     == |translation| is EPA's depth rounded up by the first of 2^-40,
 *     2^-38, ... of the scale (up to KCBP_SDIST_CONVEX_REL_TOL of it) that
 *     parts them, depth_lower EPA's depth (so depth_upper - depth_lower is
 *     that pad, about 1e-12 of the scale). The verdict and the hull are computed on the
 *     model's first such query and kept on it (thread-safe; a non-convex
 *     mesh is usually rejected within a few dozen orient3d, before any
 *     hull; a convex one costs its hull and F x V orient3d at most, e.g.
 *     6 ms for a 1,280-triangle icosphere, bench/depth_convex_mesh; a mesh
 *     whose triangles x vertices exceed 2^22, such as a 5,120-triangle
 *     icosphere, is not tested and stays bracketed).
 *   - KCBP_SDIST_BRACKETED: at least one side is a non-convex closed mesh
 *     (or a convex one the test above could not settle).
 *     The depth is bracketed, each bound proven for the coordinates it is
 *     computed on:
 *       depth_upper: B moved by `translation` (|translation| ==
 *         depth_upper) is shown apart from A by the exact tests (surfaces
 *         apart, kcbp_collide; neither inside the other,
 *         kcbp_point_in_solid), so the depth is at most that;
 *       depth_lower: a point c inside both solids, with r_a and r_b its
 *         distances to their surfaces (lower bounds, with the triangle
 *         distance's rounding bound taken off), proves that no translation
 *         shorter than r_a + r_b separates them: depth >= r_a + r_b
 *         (with max_steps >= 128, also many such balls in each solid:
 *         every pair forbids a ball of translations, and when their union
 *         covers a ball of radius rho around 0, depth >= rho; depth_lower
 *         may then exceed lower_radius_a + lower_radius_b).
 *     signed_distance is -depth_upper (a translation that is known to
 *     work), depth is depth_upper; options.depth_tolerance trades time for
 *     a narrower bracket.
 *     A pair whose surfaces meet and whose verified translation is within
 *     4 * 2^-32 (9.3e-10, inside KCBP_SDIST_CONVEX_REL_TOL) of the scale
 *     (the largest coordinate magnitude) is TOUCHING instead, depth 0,
 *     depth_upper that translation, point_a == point_b a shared point.
 *   - KCBP_SDIST_BEYOND: farther apart than options.max_distance; only
 *     distance_lower is meaningful.
 *
 * Never NaN: every number reported is finite or, for BEYOND, INFINITY.
 *
 * Growable structs (the 1.x rule for new queries, docs/library.md "Versions"): an
 * options struct is made only by its _default() function, which records
 * the caller's sizeof in its first member (size); the library reads a
 * field only when it lies within that size, and a missing tail takes the
 * defaults. A size smaller than the first release's (a {0} struct) is
 * KCBP_ERR_INVALID ("not made by kcbp_signed_distance_options_default").
 * A result is written only within the size the caller compiled against:
 * the static inline wrapper passes sizeof *result. New members are
 * appended, never reordered. */
#ifndef KCBP_SIGNED_DISTANCE_H
#define KCBP_SIGNED_DISTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "pose.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The convex depth's accuracy, relative to the pair's scale (the largest
 * coordinate magnitude of the two shapes in A's frame). */
#define KCBP_SDIST_CONVEX_REL_TOL 1e-9

/* The bracket's default relative width: depth_upper <= (1 + tol) *
 * depth_lower is aimed for (not promised: the bracket is always proven,
 * its width is what time allows). */
#define KCBP_SDIST_DEPTH_TOLERANCE_DEFAULT 0.10

typedef struct {
    uint32_t size; /* sizeof the caller's struct: set by kcbp_signed_distance_options_default */
    /* >= 0: when the models are proven farther apart than this, stop
     * (status BEYOND, distance_lower a lower bound); INFINITY: none. */
    double max_distance;
    /* A bracket's aimed relative width (> 0): refinement stops once
     * depth_upper <= (1 + depth_tolerance) * depth_lower. */
    double depth_tolerance;
    /* Refinement steps a bracket may take (>= 1): translations of B tested
     * (kcbp_collide as solids) and inner-ball probes. More steps, narrower
     * bracket. */
    int max_steps;
    bool use_cbp; /* the k-CBP stages (far field, first translation) */
} kcbp_signed_distance_options;

/* Fills *o with the defaults (max_distance INFINITY, depth_tolerance
 * KCBP_SDIST_DEPTH_TOLERANCE_DEFAULT, max_steps 64, use_cbp true) for a
 * struct of `size` bytes (the caller's sizeof). */
KCBP_API void kcbp_signed_distance_options_init(kcbp_signed_distance_options *o, uint32_t size);

static inline kcbp_signed_distance_options kcbp_signed_distance_options_default(void)
{
    kcbp_signed_distance_options o;
    kcbp_signed_distance_options_init(&o, (uint32_t)sizeof o);
    return o;
}

typedef enum {
    KCBP_SDIST_APART = 0,     /* distance > 0 */
    KCBP_SDIST_TOUCHING,      /* they share a point, depth 0 (within the convex tolerance) */
    KCBP_SDIST_PENETRATING,   /* convex solids overlap: depth exact to the tolerance */
    KCBP_SDIST_BRACKETED,     /* solids overlap, one non-convex: depth_lower <= depth <= depth_upper */
    KCBP_SDIST_BEYOND,        /* farther than max_distance */
} kcbp_sdist_status;

/* "apart", "touching", "penetrating", "bracketed", "beyond" (the report's names). */
KCBP_API const char *kcbp_sdist_status_name(kcbp_sdist_status s);

typedef struct {
    kcbp_sdist_status status;
    /* The distance when apart, minus the depth when overlapping (minus
     * depth_upper when bracketed), 0 when touching. */
    double signed_distance;
    double distance_lower; /* apart or beyond: a proven lower bound on the distance (0 otherwise) */
    double depth;          /* >= 0: 0 apart or touching; the depth (depth_upper when bracketed) */
    double depth_lower;    /* proven bounds on the depth (both == depth for convex pairs, 0 apart) */
    double depth_upper;
    kcbp_vec3 normal;      /* unit, from A toward B (0 when beyond, or touching with no defined direction) */
    kcbp_vec3 translation; /* overlapping: moving B by it separates them (depth_upper * normal); else 0 */
    kcbp_vec3 point_a, point_b; /* world frame: see the top of this file */
    uint32_t feature_a, feature_b; /* the triangles the points lie on, KCBP_SHAPE_FEATURE for a shape */
    kcbp_stage decided_by;         /* the stage that settled apart/overlap */
    /* The centre of the lower bound's balls (world frame) and their radii,
     * when bracketed and depth_lower > 0. */
    kcbp_vec3 lower_center;
    double lower_radius_a, lower_radius_b;
    int steps;             /* refinement steps taken (sweeps, probes, EPA iterations) */
    double ms;             /* time taken, milliseconds (monotonic clock) */
} kcbp_signed_distance_result;

/* The signed distance of model a at pose_a and model b at pose_b, into
 * *result (written within result_size bytes; use kcbp_signed_distance,
 * which passes sizeof *result). options NULL: defaults. Fails with
 * KCBP_ERR_GEOMETRY when the models overlap and a mesh is not a closed
 * solid (message: its open edges), KCBP_ERR_INVALID for bad options or a
 * model without triangles, KCBP_ERR_NOMEM. */
KCBP_API kcbp_status kcbp_signed_distance_sized(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                                const kcbp_pose *pose_b, const kcbp_signed_distance_options *options,
                                                kcbp_signed_distance_result *result, size_t result_size,
                                                kcbp_error *err);

static inline kcbp_status kcbp_signed_distance(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                               const kcbp_pose *pose_b, const kcbp_signed_distance_options *options,
                                               kcbp_signed_distance_result *result, kcbp_error *err)
{
    return kcbp_signed_distance_sized(a, pose_a, b, pose_b, options, result, sizeof *result, err);
}

#ifdef __cplusplus
}
#endif
#endif
