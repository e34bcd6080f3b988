/* Triangle meshes: vertices, triangles (indices into vertices) and bounds. */
#ifndef KCBP_MESH_H
#define KCBP_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    kcbp_vec3 min, max;
} kcbp_aabb;

typedef struct {
    uint32_t v[3];
} kcbp_tri;

/* Guards against absurd inputs, refused with KCBP_ERR_LIMIT rather than
 * attempted: more than KCBP_MESH_MAX_ELEMENTS vertices or triangles; a
 * coordinate above KCBP_COORD_MAX (vec3.h) in magnitude; a mesh whose scale
 * (kcbp_mesh_scale) is positive but below KCBP_MESH_MIN_SCALE, where squared
 * areas underflow (a mesh of all-zero vertices, scale 0, is accepted). */
#define KCBP_MESH_MAX_ELEMENTS 50000000u
#define KCBP_MESH_MIN_SCALE 1e-60

/* A triangle mesh: vertices, triangles (indices into the vertices), their
 * bounds, and the file's faces when polygons were cut into triangles.
 * Opaque: made by kcbp_mesh_create or a reader (mesh_io.h), read through
 * the accessors below, freed with kcbp_mesh_free. Read-only once made, so
 * one mesh may be read by any number of threads. */
typedef struct kcbp_mesh kcbp_mesh;

/* Makes a mesh from copies of the given arrays. Checks every index, counts
 * zero-area triangles and computes the bounds. Needs nvertices >= 1 and
 * ntriangles >= 1 and finite coordinates within the guards above. On
 * failure *out is NULL. */
KCBP_API kcbp_status kcbp_mesh_create(const kcbp_vec3 *vertices, size_t nvertices, const kcbp_tri *triangles,
                                      size_t ntriangles, kcbp_mesh **out, kcbp_error *err);

/* Frees a mesh (NULL is allowed). */
KCBP_API void kcbp_mesh_free(kcbp_mesh *mesh);

KCBP_API uint32_t kcbp_mesh_vertex_count(const kcbp_mesh *mesh);
KCBP_API const kcbp_vec3 *kcbp_mesh_vertices(const kcbp_mesh *mesh);
KCBP_API uint32_t kcbp_mesh_triangle_count(const kcbp_mesh *mesh);
KCBP_API const kcbp_tri *kcbp_mesh_triangles(const kcbp_mesh *mesh);
/* Zero-area triangles (kept, and counted). */
KCBP_API uint32_t kcbp_mesh_degenerate_count(const kcbp_mesh *mesh);
/* The box of all vertices. */
KCBP_API kcbp_aabb kcbp_mesh_bounds(const kcbp_mesh *mesh);
/* Per triangle, the 0-based index of the file's face (polygon) it was cut
 * from; NULL when triangle i is face i (every face a triangle, or a mesh
 * not read from a file). */
KCBP_API const uint32_t *kcbp_mesh_faces(const kcbp_mesh *mesh);

/* True when the triangle has zero area up to rounding: its edge vectors are
 * parallel within a few ulps (this includes repeated vertices). */
KCBP_API int kcbp_triangle_is_degenerate(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c);

/* A length that says how big the mesh's numbers are: the largest absolute
 * coordinate or the diagonal of the bounds, whichever is larger. Tolerances
 * are relative to it, so results do not depend on the model's units. */
KCBP_API double kcbp_mesh_scale(const kcbp_mesh *mesh);

static inline kcbp_vec3 kcbp_aabb_center(kcbp_aabb b) { return kcbp_v3_scale(kcbp_v3_add(b.min, b.max), 0.5); }
static inline kcbp_vec3 kcbp_aabb_extent(kcbp_aabb b) { return kcbp_v3_scale(kcbp_v3_sub(b.max, b.min), 0.5); }
static inline int kcbp_aabb_overlap(kcbp_aabb a, kcbp_aabb b)
{
    return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y &&
           a.min.z <= b.max.z && b.min.z <= a.max.z;
}

#ifdef __cplusplus
}
#endif
#endif
