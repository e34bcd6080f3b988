/* EPA: penetration depth of two overlapping posed convex shapes.
 *
 * Frames as in gjk.h: results are in A's frame, B is placed by b_in_a.
 *
 * Convention: `normal` is the unit direction, pointing from A toward B, in
 * which to translate B by `depth` so that the shapes just touch:
 * point_a - point_b == depth * normal, point_a on A's surface and point_b on
 * B's. (The same normal convention as kcbp_gjk_result.normal.)
 *
 * Algorithm: the Expanding Polytope Algorithm of van den Bergen, "Proximity
 * queries and penetration depth computation on 3D game objects", GDC 2001
 * (and his book, "Collision Detection in Interactive 3D Environments", 2003,
 * section 4.3.8): starting from GJK's final simplex, grown to a tetrahedron
 * around the origin if GJK stopped on a point, segment or triangle through
 * it; faces in a binary min-heap by distance to the origin; the nearest face
 * is expanded by the support point along its normal, the faces it sees are
 * removed (found by a walk over face adjacency from the nearest face) and the
 * horizon is coned to the new point. Radii are added at the end. The depth
 * lies between the nearest face's distance (a lower bound) and the support
 * value along its normal (an upper bound); EPA stops when they agree.
 *
 * No allocation and no global state: the polytope lives in a fixed-capacity
 * kcbp_epa_scratch, given by the caller or, when NULL, on the stack (about
 * 70 KB). */
#ifndef KCBP_EPA_H
#define KCBP_EPA_H

#include <stdint.h>

#include "gjk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capacities. Every iteration adds one vertex, so iterations are capped at
 * KCBP_EPA_MAX_VERTICES - 4; face slots are reused once removed. */
#define KCBP_EPA_MAX_VERTICES 260
#define KCBP_EPA_MAX_FACES (2 * KCBP_EPA_MAX_VERTICES - 4) /* Euler: closed triangulated */
#define KCBP_EPA_MAX_HEAP 1024 /* rebuilt from the live faces when full */
#define KCBP_EPA_DEFAULT_MAX_ITERATIONS (KCBP_EPA_MAX_VERTICES - 4)
/* Stop when (support value - face distance) <= rel_tol * face distance, or
 * below KCBP_GJK_TOUCH_REL * scale. */
#define KCBP_EPA_DEFAULT_REL_TOL 1e-10

typedef struct {
    int max_iterations; /* 1 .. KCBP_EPA_DEFAULT_MAX_ITERATIONS */
    double rel_tol;     /* > 0 */
} kcbp_epa_params;

KCBP_API kcbp_epa_params kcbp_epa_default_params(void);

typedef enum {
    /* Overlapping by depth > tolerance. */
    KCBP_EPA_PENETRATING = 0,
    /* In contact with depth within the touching tolerance (relative to the
     * scale, see gjk.h); depth >= 0 and normal is a valid unit vector. This
     * includes flat Minkowski differences (e.g. coplanar squares). */
    KCBP_EPA_TOUCHING,
    /* GJK found the shapes apart: nothing to do; depth 0, normal 0. */
    KCBP_EPA_SEPARATED,
    /* They overlap but EPA could not pin the depth down (iteration or
     * capacity cap, or a degenerate polytope). `depth` and `normal` are
     * then the best upper bound found: translating B by depth * normal does
     * separate them, but may be more than the minimum; depth_lower is a
     * lower bound. Let an exact test (the mesh stage) decide. */
    KCBP_EPA_DEPTH_UNKNOWN,
} kcbp_epa_status;

KCBP_API const char *kcbp_epa_status_name(kcbp_epa_status s);

typedef struct {
    kcbp_epa_status status;
    double depth;       /* >= 0, radii included */
    double depth_lower; /* lower bound; == depth when converged */
    kcbp_vec3 normal;   /* unit, from A toward B: move B by depth * normal */
    kcbp_vec3 point_a, point_b;
    int iterations;
    int nfaces; /* live faces of the final polytope (diagnostics) */
} kcbp_epa_result;

/* Fixed-capacity working memory for one query at a time. The fields are
 * internal; declare one (static storage, heap or stack) and reuse it. */
typedef struct {
    kcbp_simplex_vertex verts[KCBP_EPA_MAX_VERTICES];
    struct kcbp_epa_face {
        uint16_t v[3];   /* vertex indices, counter-clockwise seen from outside */
        uint16_t adj[3]; /* face across edge (v[i], v[i+1]) */
        uint32_t gen;    /* bumped when the slot is freed */
        uint8_t live, mark;
        kcbp_vec3 n; /* outward unit normal */
        double d;    /* dot(n, v[0]): distance of its plane from the origin */
    } faces[KCBP_EPA_MAX_FACES];
    struct kcbp_epa_heap_item {
        double d;
        uint32_t face, gen;
    } heap[KCBP_EPA_MAX_HEAP];
    uint16_t free_faces[KCBP_EPA_MAX_FACES];
    uint16_t stack[KCBP_EPA_MAX_FACES];
    struct kcbp_epa_edge {
        uint16_t from, to, face;
    } horizon[KCBP_EPA_MAX_VERTICES];
    uint16_t face_from[KCBP_EPA_MAX_VERTICES];
} kcbp_epa_scratch;

/* Penetration of shape a and shape b (placed by b_in_a), given GJK's result
 * for the same shapes and pose. params, cache, scratch may be NULL. */
KCBP_API void kcbp_epa_penetration(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                          const kcbp_gjk_result *gjk, const kcbp_epa_params *params, kcbp_support_cache *cache,
                          kcbp_epa_scratch *scratch, kcbp_epa_result *out);

#ifdef __cplusplus
}
#endif
#endif
