/* Polygons of the mesh files, cut into triangles (internal: the readers'
 * shared triangulation, src/mesh/read.c).
 *
 * A face of n >= 3 vertices becomes n - 2 triangles over its own vertices,
 * so that contacts can name the file's face of any triangle. A convex face
 * (in the plane of its Newell normal, up to rounding) is the fan from its
 * first vertex; a non-convex one is ear clipped in that plane when it has
 * at most KCBP_POLYGON_EARCLIP_MAX vertices, and fanned otherwise (ear
 * clipping is quadratic, cubic at worst); a face with no usable normal
 * (collinear or degenerate) is fanned. */
#ifndef KCBP_POLYGON_H
#define KCBP_POLYGON_H

#include <stddef.h>
#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/mesh.h>

#define KCBP_POLYGON_EARCLIP_MAX 1024u

/* Scratch space, reused from face to face (zero-initialised; freed with
 * kcbp_polygon_scratch_free). */
typedef struct {
    double *uv; /* the face projected into its plane */
    size_t cap_uv;
    size_t *link; /* prev and next links for ear clipping */
    size_t cap_link;
} kcbp_polygon_scratch;

/* Writes the n - 2 triangles of polygon poly[0..n) (indices into v, n >= 3)
 * to out, which has room for them. KCBP_ERR_NOMEM (err not set) when the
 * scratch cannot grow. */
kcbp_status kcbp_polygon_triangulate(kcbp_polygon_scratch *s, const kcbp_vec3 *v, const uint32_t *poly, size_t n,
                                     kcbp_tri *out);

void kcbp_polygon_scratch_free(kcbp_polygon_scratch *s);

#endif
