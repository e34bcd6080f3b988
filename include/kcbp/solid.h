/* Solids: closed, consistently oriented triangle meshes, and what can be
 * asked of them exactly.
 *
 * A mesh is a solid when, its vertices identified by their coordinates
 * (exact equality: an OBJ that repeats a vertex at each face is still
 * closed), every edge of a triangle with three distinct vertices is shared
 * by exactly two triangles that run it in opposite directions. The solid is
 * then the surface and the points it winds around: the points of non-zero
 * winding number. Which way the surface is oriented does not matter.
 *
 * Every test here is exact for the double coordinates it is given, with
 * the exact predicates of the triangle test (kcbp_tri_intersect). */
#ifndef KCBP_SOLID_H
#define KCBP_SOLID_H

#include <stdint.h>

#include "error.h"
#include "mesh.h"
#include "model.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What kcbp_mesh_check_solid found: edges counted once each (undirected,
 * vertices identified by coordinates). */
typedef struct {
    uint32_t open;        /* edges of one triangle only */
    uint32_t nonmanifold; /* edges of three triangles or more */
    uint32_t misoriented; /* edges of two triangles running them the same way */
    uint32_t components;  /* connected pieces of the surface */
} kcbp_solid_check;

/* KCBP_OK when the mesh is a solid. Otherwise KCBP_ERR_GEOMETRY, with a
 * message giving the counts and the first few offending edges as pairs of
 * 1-based vertex numbers (as in the OBJ file), e.g. "not a closed solid: 4
 * open edges (3-7, 7-9, ...)". check (may be NULL) receives the counts in
 * both cases. KCBP_ERR_NOMEM when memory runs out. */
KCBP_API kcbp_status kcbp_mesh_check_solid(const kcbp_mesh *mesh, kcbp_solid_check *check, kcbp_error *err);

typedef enum {
    KCBP_SOLID_OUTSIDE = -1,
    KCBP_SOLID_ON = 0, /* on the surface */
    KCBP_SOLID_INSIDE = 1,
} kcbp_solid_side;

/* Where point p is with respect to the solid of the model's mesh (which
 * must pass kcbp_mesh_check_solid, as a model built with
 * kcbp_model_options.solid does; otherwise the answer is the winding number
 * along one ray, which depends on the ray: no meaning), its triangles
 * placed by `pose` (NULL: identity) with kcbp_pose_apply, each vertex
 * rounded once, as kcbp_collide places B in A's frame.
 *
 * Exact: the winding number along the ray from p in +x, moved off every
 * edge and vertex by a symbolic perturbation of p (y + e, z + e^2 for an
 * infinitesimal e), so that no ray is degenerate; each sign is one exact
 * orient2d or orient3d. The tree only prunes (its boxes are widened far
 * above rounding). */
KCBP_API kcbp_solid_side kcbp_point_in_solid(const kcbp_model *model, const kcbp_pose *pose, kcbp_vec3 p);

#ifdef __cplusplus
}
#endif
#endif
