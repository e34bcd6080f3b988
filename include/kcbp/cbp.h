/* k-CBPs: k-direction convex bounding polytopes.
 *
 * A k-CBP of a point set is the intersection of k half-spaces n·x <= d, each
 * supporting the points (d = max over the points of n·v). It contains every
 * point by construction; the directions decide how tight it is:
 *
 *   greedy  (default) successive plane removal: start from the planes of the
 *           convex hull and drop, one at a time, the plane whose removal
 *           adds the least volume, until k remain (Melax; Jacobson 2026).
 *   thesis  the normals of the floor(0.1 k) largest hull faces, plus an
 *           area-weighted spherical k-means of the hull's face normals.
 *   Both take the hull of the points' grid extremes (src/convex/cbp.c), which has
 *   at most a few thousand points: the build costs O(n) plus a bounded
 *   amount, whatever the input.
 *   fixed   k directions spread evenly over the sphere (Fibonacci lattice).
 *   kdop    the classic k-DOP directions (axes, cube corners, cube edges) when
 *           k is 6, 14, 18 or 26; the fixed directions for any other k.
 *
 * Guarantees, in floating point:
 *   - every input point v satisfies every plane: n·v <= d as computed in
 *     double precision. The offsets are pushed out by
 *     KCBP_CBP_PUSH * scale (scale: the largest absolute coordinate or the
 *     diagonal of the bounds, whichever is larger).
 *   - every input point lies inside the convex hull of the stored vertices:
 *     for each face, n·v <= min over the face's vertices w of n·w. This is
 *     checked when building; if rounding in the vertices breaks it, the planes
 *     are pushed out 1000 times further and the polytope is rebuilt.
 *   The vertices are the authoritative shape (GJK uses them); the planes are
 *   the faces' supporting planes.
 *
 * Flat input (fewer than 4 distinct points, collinear or coplanar points, or
 * points thinner than KCBP_CBP_THICKEN * scale in some direction) is thickened
 * by KCBP_CBP_THICKEN * scale along its thin directions (1e-6 absolute if all
 * points are at the origin), so the polytope is always bounded with positive
 * volume.
 *
 * With greedy, a polytope may keep more than k planes when every further
 * removal would make it unbounded (this can happen for k < 6); with thesis and
 * fixed, the six axis directions are added when the directions alone leave
 * the polytope unbounded. nplanes says how many planes the result has. */
#ifndef KCBP_CBP_H
#define KCBP_CBP_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "error.h"
#include "pose.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KCBP_CBP_PUSH 1e-12
#define KCBP_CBP_THICKEN 1e-6
enum { KCBP_CBP_K_MIN = 4, KCBP_CBP_K_DEFAULT = 16, KCBP_CBP_K_MAX = 4096 };

/* GIVEN: built by kcbp_cbp_build_dirs; not a mode kcbp_cbp_build takes. */
typedef enum { KCBP_DIRS_GREEDY, KCBP_DIRS_THESIS, KCBP_DIRS_FIXED, KCBP_DIRS_KDOP, KCBP_DIRS_GIVEN } kcbp_cbp_dirs;

/* The half-space n·x <= d, |n| = 1. */
typedef struct {
    kcbp_vec3 n;
    double d;
} kcbp_cbp_plane;

/* A built k-CBP: its planes, the vertices of their polytope, each face's
 * vertex loop, and the vertex adjacency GJK climbs. Opaque: read through
 * the accessors below; read-only once built. */
typedef struct kcbp_cbp kcbp_cbp;

/* The adjacency is a hill-climbing graph (support.h): for every direction,
 * climbing from any vertex to one no neighbour beats ends at a vertex whose
 * support equals the maximum over all vertices, up to rounding (1e-14 of the
 * largest coordinate in tests). It holds the edges of the convex hull of the
 * stored vertices, plus links that floating point needs: each vertex of a
 * hull face to three vertices spread over that face, and vertices within
 * rounding distance of each other to each other's neighbours. A vertex that
 * is not on that hull (rounding put it inside, or in the middle of a face)
 * lists every hull vertex and is listed by none; every other list is
 * symmetric. */

/* Builds the k-CBP of npoints points (finite coordinates, npoints >= 1,
 * KCBP_CBP_K_MIN <= k <= KCBP_CBP_K_MAX). *out is the new k-CBP (free it
 * with kcbp_cbp_free), NULL on failure. */
KCBP_API kcbp_status kcbp_cbp_build(const kcbp_vec3 *points, size_t npoints, int k, kcbp_cbp_dirs dirs,
                                    kcbp_cbp **out, kcbp_error *err);

/* Builds the polytope of the supporting planes with the caller's ndirs
 * directions (any length but zero; normalised here), with the same
 * guarantees, thickening and axis fallback as kcbp_cbp_build: for
 * directions chosen elsewhere (shared by several meshes, or searched for, as
 * bench/cbp_bound does). k is set to ndirs and dirs to KCBP_DIRS_GIVEN. */
KCBP_API kcbp_status kcbp_cbp_build_dirs(const kcbp_vec3 *points, size_t npoints, const kcbp_vec3 *dirs,
                                         size_t ndirs, kcbp_cbp **out, kcbp_error *err);

/* Frees a k-CBP (NULL is allowed). */
KCBP_API void kcbp_cbp_free(kcbp_cbp *cbp);

/* Its planes (one face per plane), n·x <= d with |n| = 1. */
KCBP_API uint32_t kcbp_cbp_plane_count(const kcbp_cbp *cbp);
KCBP_API const kcbp_cbp_plane *kcbp_cbp_planes(const kcbp_cbp *cbp);
/* The vertices of the polytope: the authoritative shape (see above). */
KCBP_API uint32_t kcbp_cbp_vertex_count(const kcbp_cbp *cbp);
KCBP_API const kcbp_vec3 *kcbp_cbp_vertices(const kcbp_cbp *cbp);
/* Face f (on plane f, f < kcbp_cbp_plane_count): its vertices' indices, a
 * loop counter-clockwise seen from outside; *n gets their count. */
KCBP_API const uint32_t *kcbp_cbp_face(const kcbp_cbp *cbp, uint32_t f, uint32_t *n);
/* Vertex i's neighbours in the hill-climbing graph above; *n their count. */
KCBP_API const uint32_t *kcbp_cbp_neighbours(const kcbp_cbp *cbp, uint32_t i, uint32_t *n);
KCBP_API double kcbp_cbp_volume(const kcbp_cbp *cbp);
/* The k requested, and how the directions were chosen. */
KCBP_API int kcbp_cbp_k(const kcbp_cbp *cbp);
KCBP_API kcbp_cbp_dirs kcbp_cbp_dirs_of(const kcbp_cbp *cbp);
/* > 0 when flat input was thickened by +-thickness. */
KCBP_API double kcbp_cbp_thickness(const kcbp_cbp *cbp);
/* How far the planes were pushed out beyond the points. */
KCBP_API double kcbp_cbp_push(const kcbp_cbp *cbp);

/* Writes the polytope as a Wavefront OBJ file (v and f lines, faces CCW),
 * its vertices placed by pose (kcbp_pose_apply; NULL: as built). */
KCBP_API kcbp_status kcbp_cbp_write_obj(const kcbp_cbp *cbp, const kcbp_pose *pose, const char *path,
                                        kcbp_error *err);
/* The same text written to an open stream (flushed; name is for messages). */
KCBP_API kcbp_status kcbp_cbp_print_obj(const kcbp_cbp *cbp, const kcbp_pose *pose, FILE *out, const char *name,
                                        kcbp_error *err);

/* Volume of the convex hull of the points; 0 for flat input. */
KCBP_API kcbp_status kcbp_hull_volume(const kcbp_vec3 *points, size_t npoints, double *volume, kcbp_error *err);

/* "greedy", "thesis", "fixed", "kdop" ("given" for KCBP_DIRS_GIVEN);
 * parse accepts exactly the first four. */
KCBP_API const char *kcbp_cbp_dirs_name(kcbp_cbp_dirs dirs);
KCBP_API kcbp_status kcbp_cbp_dirs_parse(const char *name, kcbp_cbp_dirs *dirs, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
