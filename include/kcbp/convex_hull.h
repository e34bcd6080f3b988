/* The convex hull of a point set, as a shape for GJK and EPA (support.h):
 * its vertices and the hill-climbing adjacency of its edges. Built with
 * qhull (reentrant libqhull_r, one qhT per call: thread safe). Opaque;
 * read-only once built. */
#ifndef KCBP_CONVEX_HULL_H
#define KCBP_CONVEX_HULL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "support.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kcbp_convex_hull kcbp_convex_hull;

/* The hull of npoints points (finite coordinates, npoints >= 1). Points
 * that do not span 3D (fewer than 4, collinear or coplanar) have no hull
 * volume: the shape is then every point, scanned (no adjacency). *out is the
 * new hull (kcbp_convex_hull_free), NULL on failure. */
KCBP_API kcbp_status kcbp_convex_hull_build(const kcbp_vec3 *points, size_t npoints, kcbp_convex_hull **out,
                                            kcbp_error *err);
KCBP_API void kcbp_convex_hull_free(kcbp_convex_hull *hull);

/* The shape GJK and EPA take (valid while the hull lives). */
KCBP_API kcbp_convex kcbp_convex_hull_shape(const kcbp_convex_hull *hull);
KCBP_API uint32_t kcbp_convex_hull_vertex_count(const kcbp_convex_hull *hull);
KCBP_API const kcbp_vec3 *kcbp_convex_hull_vertices(const kcbp_convex_hull *hull);
/* The hull's volume (qhull's); 0 for flat input. */
KCBP_API double kcbp_convex_hull_volume(const kcbp_convex_hull *hull);

#ifdef __cplusplus
}
#endif
#endif
