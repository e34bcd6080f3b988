/* Support functions for convex shapes: the one interface GJK and EPA see.
 *
 * A convex shape here is a "core" plus an inflation radius: the set of points
 * within `radius` of the convex hull of the core. So
 *   - a polytope is its vertices (radius 0), optionally inflated;
 *   - a sphere is one point plus a radius;
 *   - a capsule is a segment (two points) plus a radius;
 *   - anything else convex can be given as a support callback.
 * GJK and EPA work on the cores only and add the radii at the end (as Box2D
 * does), so the cores they iterate on are always polytopes unless a callback
 * is used, and polytope GJK terminates exactly (no new support point).
 *
 * Shapes are plain read-only data: they may be shared between threads. The
 * only mutable state of a query, the hill-climbing warm-start hints, lives in
 * a kcbp_support_cache owned by the caller (one per query or per pair). */
#ifndef KCBP_SUPPORT_H
#define KCBP_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pose.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KCBP_CONVEX_POLYTOPE = 0, /* points[0..npoints) (+ optional adjacency) */
    KCBP_CONVEX_SPHERE,       /* local[0] */
    KCBP_CONVEX_CAPSULE,      /* the segment local[0]-local[1] */
    KCBP_CONVEX_CUSTOM,       /* support callback fn(ctx, ...) */
} kcbp_convex_kind;

/* A user support function: returns a point of the core maximising dot(p, dir)
 * (dir is not normalised, never zero). *index is an in/out hint: on entry the
 * previous answer's index (a warm start, or 0), on exit an identifier of the
 * returned point, equal for equal points if possible (GJK uses it to detect
 * that no new point was found). */
typedef kcbp_vec3 (*kcbp_support_fn)(const void *ctx, kcbp_vec3 dir, uint32_t *index);

/* Polytopes with at least this many vertices climb the vertex adjacency
 * instead of scanning every vertex, when adjacency is given to
 * kcbp_convex_polytope. Below it a scan is faster (measured in
 * bench/gjk_vs_ccd.c). */
#define KCBP_SUPPORT_CLIMB_MIN 32u

typedef struct {
    kcbp_convex_kind kind;
    /* KCBP_CONVEX_POLYTOPE: the vertices (at least 1, finite). Points inside
     * the hull are allowed with the scan, not with hill-climbing. */
    const kcbp_vec3 *points;
    uint32_t npoints;
    /* Optional CSR vertex adjacency of the hull's edge graph: the neighbours
     * of vertex i are adj[adj_start[i] .. adj_start[i+1]). When adj_start is
     * not NULL the support climbs from the hint vertex to a vertex no
     * neighbour improves on, which on a convex polytope whose edges these are
     * is a global maximum. NULL: scan every vertex. */
    const uint32_t *adj_start;
    const uint32_t *adj;
    kcbp_vec3 local[2];  /* SPHERE: local[0]; CAPSULE: local[0], local[1] */
    kcbp_support_fn fn;  /* CUSTOM */
    const void *ctx;     /* CUSTOM */
    double radius;       /* inflation, >= 0 */
} kcbp_convex;

/* Per-query mutable state: warm-start vertex hints for shape A and shape B.
 * Zero-initialise it; keep it between queries of the same pair to exploit
 * temporal coherence. Never share one between threads. */
typedef struct {
    uint32_t hint[2];
} kcbp_support_cache;

/* Builders. kcbp_convex_polytope keeps the adjacency only when npoints >=
 * KCBP_SUPPORT_CLIMB_MIN (set the fields directly to force a choice). The
 * arrays are borrowed, not copied: they must outlive the shape. */
KCBP_API kcbp_convex kcbp_convex_polytope(const kcbp_vec3 *points, uint32_t npoints, const uint32_t *adj_start,
                                 const uint32_t *adj, double radius);
KCBP_API kcbp_convex kcbp_convex_sphere(kcbp_vec3 center, double radius);
KCBP_API kcbp_convex kcbp_convex_capsule(kcbp_vec3 p0, kcbp_vec3 p1, double radius);
KCBP_API kcbp_convex kcbp_convex_custom(kcbp_support_fn fn, const void *ctx, double radius);

/* Checks a shape once (O(n)), so that queries need not: a known kind, at
 * least one point, finite coordinates, a finite radius >= 0 and adjacency
 * indices in range. GJK and EPA assume shapes that pass this. */
KCBP_API kcbp_status kcbp_convex_check(const kcbp_convex *shape, kcbp_error *err);

/* Scan: the first vertex of largest dot(p, d). Ties go to the lowest index,
 * so that equal directions give equal indices (GJK's duplicate test). Two
 * interleaved running maxima, written so that compilers use conditional
 * moves: the comparisons are data-dependent and mispredict often. This is
 * the reference; kcbp_support_scan gives the same index. */
static inline uint32_t kcbp_support_scan_scalar(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d)
{
    uint32_t b0 = 0, b1 = 0;
    double m0 = kcbp_v3_dot(p[0], d), m1 = m0;
    uint32_t i = 1;
    for (; i + 1 < n; i += 2) {
        double t0 = kcbp_v3_dot(p[i], d), t1 = kcbp_v3_dot(p[i + 1], d);
        int g0 = t0 > m0, g1 = t1 > m1;
        b0 = g0 ? i : b0;
        m0 = g0 ? t0 : m0;
        b1 = g1 ? i + 1 : b1;
        m1 = g1 ? t1 : m1;
    }
    if (i < n) {
        double t0 = kcbp_v3_dot(p[i], d);
        int g0 = t0 > m0;
        b0 = g0 ? i : b0;
        m0 = g0 ? t0 : m0;
    }
    /* merge: larger value wins, the lower index on a tie */
    if (m1 > m0 || (m1 == m0 && b1 < b0))
        return b1;
    return b0;
}

/* The same answer as kcbp_support_scan_scalar (the dot products are summed
 * in the same order, so they are bitwise equal), two vertices per SSE2
 * instruction where SSE2 is available: the support scan is most of GJK's
 * time on small polytopes. */
KCBP_API uint32_t kcbp_support_scan(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d);

/* Hill-climbing support over the CSR adjacency from vertex `from`. */
KCBP_API uint32_t kcbp_support_climb(const kcbp_vec3 *p, uint32_t n, const uint32_t *start, const uint32_t *adj,
                            kcbp_vec3 d, uint32_t from);

/* Every kind (kcbp_convex_support's out-of-line part). */
KCBP_API kcbp_vec3 kcbp_convex_support_other(const kcbp_convex *shape, kcbp_vec3 dir, uint32_t *hint);

/* Support point of the core (radius not added) in direction dir, in the
 * shape's own frame. *hint: warm start in, index of the returned point out.
 * The scanned polytope, the hot case, is inline. */
static inline kcbp_vec3 kcbp_convex_support(const kcbp_convex *shape, kcbp_vec3 dir, uint32_t *hint)
{
    if (shape->kind == KCBP_CONVEX_POLYTOPE && !shape->adj_start) {
        uint32_t i = kcbp_support_scan(shape->points, shape->npoints, dir);
        *hint = i;
        return shape->points[i];
    }
    return kcbp_convex_support_other(shape, dir, hint);
}

/* Support of the posed core, pose(shape), in direction dir given in the
 * outer frame: pose(support(R^T dir)). */
static inline kcbp_vec3 kcbp_convex_support_posed(const kcbp_convex *shape, const kcbp_pose *pose, kcbp_vec3 dir,
                                                  uint32_t *hint)
{
    kcbp_vec3 local = kcbp_convex_support(shape, kcbp_mat3_tmul_v3(&pose->rot, dir), hint);
    return kcbp_pose_apply(pose, local);
}

/* Builds the CSR vertex adjacency of a closed triangulated surface (e.g. a
 * convex hull from qhull): the neighbours of each vertex, without repeats.
 * On success *adj_start (nvertices + 1 entries) and *adj are malloc'ed
 * (free() both). Triangles must index vertices below nvertices. */
KCBP_API kcbp_status kcbp_convex_adjacency(uint32_t nvertices, const uint32_t (*tris)[3], size_t ntris,
                                  uint32_t **adj_start, uint32_t **adj, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
