/* GJK distance between two posed convex shapes (see support.h).
 *
 * Frames: everything is computed and returned in the frame of shape A. Shape
 * B is placed by b_in_a, B's pose relative to A (kcbp_pose_relative(pose_a,
 * pose_b)); NULL means the identity.
 *
 * Algorithm: Gilbert-Johnson-Keerthi on the cores, with the signed-volume
 * distance sub-algorithm of Montanari, Petrinic and Barbieri, "Improving the
 * GJK algorithm for faster and more reliable distance queries between convex
 * objects", ACM TOG 36(3), 2017; the termination test of van den Bergen,
 * "A fast and robust GJK implementation for collision detection of convex
 * objects", JGT 4(2), 1999; radii added at the end as in Box2D v3's
 * distance.c. Terminates by (in this order): the origin enclosed, the
 * relative gap test, the new support point already in the simplex or no
 * decrease of |v| (exact for polytope cores in exact arithmetic; with
 * rounding, on slivers, once more with a careful sub-algorithm unless the
 * bounds already decide), the iteration cap. The status is what the upper
 * and lower bounds prove: never SEPARATED without a proven gap. */
#ifndef KCBP_GJK_H
#define KCBP_GJK_H

#include <stdint.h>

#include "pose.h"
#include "support.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KCBP_GJK_DEFAULT_MAX_ITERATIONS 128
/* Relative accuracy of the separation distance: GJK stops when the gap
 * between its upper bound |v| and lower bound dot(v, w)/|v| is below this
 * fraction of |v|. */
#define KCBP_GJK_DEFAULT_REL_TOL 1e-12
/* Touching tolerance, relative to the query's scale (the largest coordinate
 * magnitude of the support points seen, plus the radii): gaps within
 * KCBP_GJK_TOUCH_REL * scale of zero are reported as KCBP_GJK_TOUCHING. */
#define KCBP_GJK_TOUCH_REL 1e-10

typedef struct {
    int max_iterations; /* > 0 */
    double rel_tol;     /* > 0 */
} kcbp_gjk_params;

KCBP_API kcbp_gjk_params kcbp_gjk_default_params(void);

typedef enum {
    /* Apart by more than the touching tolerance, proven: GJK's lower bound
     * met its upper bound (to rel_tol), or is within the touching tolerance
     * of it and above that tolerance; distance > 0. */
    KCBP_GJK_SEPARATED = 0,
    /* The shapes' gap is within the touching tolerance of zero, from either
     * side; distance is that gap clamped to >= 0; normal is valid. */
    KCBP_GJK_TOUCHING,
    /* The origin is in the Minkowski difference (up to rounding) or the radii
     * overlap by more than the tolerance: distance is 0. It may still be a
     * touching contact (cores in contact); kcbp_epa_penetration tells. */
    KCBP_GJK_OVERLAPPING,
    /* Not decided: the iteration cap was reached, or rounding stopped
     * progress (slivers: needles, thin prisms) before the bounds met, while
     * the gap found is above the touching tolerance. distance is an upper
     * bound, distance_lower a lower bound (0 when none was proven): never
     * taken for "apart" unless distance_lower says so. */
    KCBP_GJK_HIT_CAP,
} kcbp_gjk_status;

KCBP_API const char *kcbp_gjk_status_name(kcbp_gjk_status s);

/* A vertex of the Minkowski difference of the cores: w = a - b, with a the
 * support point of A and b that of posed B (A's frame), ia/ib their indices. */
typedef struct {
    kcbp_vec3 a, b, w;
    uint32_t ia, ib;
} kcbp_simplex_vertex;

typedef struct {
    kcbp_gjk_status status;
    /* Distance between the inflated shapes: >= 0, 0 when overlapping. */
    double distance;
    /* Lower bound on the distance (== distance unless status is HIT_CAP). */
    double distance_lower;
    /* Distance between the cores (0 when they overlap). */
    double core_distance;
    /* Witness points in A's frame on the inflated surfaces: |point_b -
     * point_a| == distance when apart. When overlapping they are the cores'
     * nearest points found, no more. */
    kcbp_vec3 point_a, point_b;
    /* Unit vector from A toward B (point_b - point_a direction) when the
     * cores are apart; (0,0,0) when the cores overlap. */
    kcbp_vec3 normal;
    /* Length scale of the query; tolerances are relative to it. */
    double scale;
    int iterations;
    /* The final simplex (1 to 4 vertices, 4 only when the origin is inside
     * it) and the barycentric weights of its point nearest the origin. EPA
     * starts from it. */
    int simplex_count;
    kcbp_simplex_vertex simplex[4];
    double lambda[4];
} kcbp_gjk_result;

/* Distance between shape a (in its own frame) and shape b placed by
 * b_in_a. params NULL: defaults. cache: warm-start hints (may be NULL).
 * Never allocates; never returns NaN for shapes that pass kcbp_convex_check
 * and a finite pose. */
KCBP_API void kcbp_gjk_distance(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                       const kcbp_gjk_params *params, kcbp_support_cache *cache, kcbp_gjk_result *out);

/* Boolean query: nonzero when the inflated shapes overlap or touch (what
 * kcbp_gjk_distance would report as TOUCHING or OVERLAPPING), and when they
 * are not proven apart (HIT_CAP with distance_lower within the touching
 * tolerance): the conservative answer. Faster than the distance when apart:
 * it stops at the first separating plane. */
KCBP_API int kcbp_gjk_intersect(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                       kcbp_support_cache *cache);

/* Boolean query with a margin, for filters: nonzero when the inflated
 * shapes are proven apart by more than `margin` (>= 0): exactly when
 * kcbp_gjk_distance would report SEPARATED or HIT_CAP with distance_lower >
 * margin, except that it stops at the first support plane that separates
 * them by more than max(margin, the touching tolerance), whose gap is a
 * valid lower bound on the distance. So it is cheaper when apart, and the
 * same run as kcbp_gjk_distance when not. *distance_lower (may be NULL):
 * the lower bound proved (0 when not apart); *iterations (may be NULL);
 * *axis (may be NULL): when apart, the unit direction in A's frame, from A
 * toward B, along which the gap was found. */
KCBP_API int kcbp_gjk_separated(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a, double margin,
                       kcbp_support_cache *cache, double *distance_lower, int *iterations, kcbp_vec3 *axis);

/* A simplex GJK ended with, by the indices of its vertices in two
 * polytopes (KCBP_CONVEX_POLYTOPE; ignored for other kinds), to start the
 * next query of the same pair from (van den Bergen, JGT 1999, section 4;
 * Box2D's b2SimplexCache): with coherent poses the old simplex is near the
 * new answer, and when it still encloses the origin the overlap is proven
 * before any support search. Zero-initialise it (count 0: no start). Any
 * content is safe: indices out of range or repeated are skipped, and the
 * start never changes what the bounds prove, only how soon. */
typedef struct {
    int count; /* 0 .. 4 */
    uint32_t ia[4], ib[4];
} kcbp_gjk_simplex_cache;

/* kcbp_gjk_separated, started from *warm's simplex when it names one (NULL:
 * cold start, the same as kcbp_gjk_separated); on return *warm holds the
 * final simplex. The verdict is proven the same way whatever the start: a
 * start can change it only where the distance is within rounding of the
 * margin, or where a cold run hits its iteration cap. */
KCBP_API int kcbp_gjk_separated_warm(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a, double margin,
                            kcbp_support_cache *cache, kcbp_gjk_simplex_cache *warm, double *distance_lower,
                            int *iterations, kcbp_vec3 *axis);

/* The Minkowski-difference support used by GJK and EPA: the vertex of
 * core(A) - core(pose(B)) maximising dot(w, d). Exposed for EPA and tests;
 * inline because it is GJK's inner step. */
static inline kcbp_simplex_vertex kcbp_gjk_support(const kcbp_convex *a, const kcbp_convex *b,
                                                   const kcbp_pose *b_in_a, kcbp_vec3 d, kcbp_support_cache *cache)
{
    kcbp_simplex_vertex r;
    r.a = kcbp_convex_support(a, d, &cache->hint[0]);
    r.b = kcbp_convex_support_posed(b, b_in_a, kcbp_v3_neg(d), &cache->hint[1]);
    r.w = kcbp_v3_sub(r.a, r.b);
    r.ia = cache->hint[0];
    r.ib = cache->hint[1];
    return r;
}

#ifdef __cplusplus
}
#endif
#endif
