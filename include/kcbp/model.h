/* Models: everything built once from a mesh, in the mesh's own frame, that
 * every pair query (collide.h, distance.h, sweep.h, solid.h, self.h,
 * contact_geom.h) and every scene reads: the mesh, its AABB tree and its
 * k-CBP (and, on request, a finer k-CBP and the pieces of a solid).
 *
 * A model is built once and never changed by a query: one model may be
 * shared by any number of threads. kcbp_model is a small struct around a
 * handle: copying it copies the handle (both name the same model), and
 * kcbp_model_free frees the model for every copy.
 *
 * Frames: a model is in its mesh's own frame; queries place it in the
 * world by a pose (world = pose * local, pose.h). */
#ifndef KCBP_MODEL_H
#define KCBP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "cbp.h"
#include "error.h"
#include "mesh.h"
#include "pose.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int k;              /* planes of the k-CBP (>= KCBP_CBP_K_MIN); 0 builds none */
    kcbp_cbp_dirs dirs; /* how its directions are chosen */
    int k_fine;         /* planes of a second, finer k-CBP, tested only by
                           kcbp_collide_cached for a pair seen before when the
                           first ones overlap (0: none; ignored unless > k).
                           It pays over coherent motion (a moving scene sets
                           KCBP_CBP_K_FINE_DEFAULT), not for single queries;
                           not kept when within 1 % of the first's volume
                           (it would end almost no pair the first does not) */
    bool solid;         /* the mesh is a solid (solid.h): building fails with
                           kcbp_mesh_check_solid's error when it is not
                           closed, and keeps one vertex per piece of its
                           surface for kcbp_collide_options.solid */
} kcbp_model_options;

#define KCBP_CBP_K_FINE_DEFAULT 64

/* k = 16, greedy directions, no fine k-CBP, not a solid. */
KCBP_API kcbp_model_options kcbp_model_options_default(void);

typedef struct kcbp_model_impl kcbp_model_impl;

/* A built model (see the top of this file); {NULL} before building and
 * after freeing. */
typedef struct {
    kcbp_model_impl *impl;
} kcbp_model;

/* Builds a model from a mesh, taking ownership of the mesh (on success and
 * on failure alike: the mesh is freed if building fails). opts NULL:
 * defaults. */
KCBP_API kcbp_status kcbp_model_build(kcbp_model *model, kcbp_mesh *mesh, const kcbp_model_options *opts,
                                      kcbp_error *err);
/* Loads a mesh file (any format kcbp_mesh_load reads) and builds its model. */
KCBP_API kcbp_status kcbp_model_load(kcbp_model *model, const char *path, const kcbp_model_options *opts,
                                     kcbp_error *err);
/* Frees the model and sets model->impl to NULL (a model never built, or
 * already freed, is allowed). */
KCBP_API void kcbp_model_free(kcbp_model *model);

/* ---- shapes (shape.h) ---------------------------------------------------- */

/* Builds the model of a shape (checked by kcbp_shape_check): no mesh, tree
 * or k-CBP, built in constant time; every query that takes models takes it
 * (the shape is its own convex bound, so it has no k-CBP stage of its
 * own: against a mesh, the mesh's k-CBP is tested against the shape). The
 * model is a solid (kcbp_model_is_solid): against a mesh model built as a
 * solid, kcbp_collide_options.solid also reports a shape wholly inside the
 * mesh. kcbp_model_mesh gives an empty mesh whose bounds are the shape's box
 * (kcbp_model_display_mesh: triangles to draw). */
KCBP_API kcbp_status kcbp_model_build_shape(kcbp_model *model, const kcbp_shape *shape, kcbp_error *err);
/* Builds the model of the convex hull of npoints points (finite, at most
 * KCBP_COORD_MAX in magnitude; qhull's hull, convex_hull.h), a solid shape
 * of kind KCBP_SHAPE_HULL in the points' own frame, tested by GJK on its
 * vertices (within KCBP_SHAPE_GJK_BAND, as cylinders are). */
KCBP_API kcbp_status kcbp_model_build_hull(kcbp_model *model, const kcbp_vec3 *points, size_t npoints,
                                           kcbp_error *err);
/* KCBP_SHAPE_NONE for a mesh's model, the shape's kind otherwise. */
KCBP_API kcbp_shape_kind kcbp_model_shape_kind(const kcbp_model *model);
/* The shape's parameters: true and *shape filled for a shape's model (kind
 * KCBP_SHAPE_HULL: no parameters), false for a mesh's. */
KCBP_API bool kcbp_model_shape(const kcbp_model *model, kcbp_shape *shape);
/* A hull model's vertices (*n of them), NULL and *n = 0 for other models. */
KCBP_API const kcbp_vec3 *kcbp_model_hull_vertices(const kcbp_model *model, uint32_t *n);
/* What to draw for the model: a mesh's own mesh, or for a shape a
 * tessellation of its surface for display only (kcbp_shape_tessellate with
 * 48 segments, a hull's facets), made on the first call and kept with the
 * model (thread safe); NULL when memory runs out. Never used by a query. */
KCBP_API const kcbp_mesh *kcbp_model_display_mesh(const kcbp_model *model);

/* The mesh, as read (triangle and vertex indices of every report refer to
 * it). */
KCBP_API const kcbp_mesh *kcbp_model_mesh(const kcbp_model *model);
/* The k-CBP, or NULL when the model has none (k = 0). */
KCBP_API const kcbp_cbp *kcbp_model_cbp(const kcbp_model *model);
KCBP_API bool kcbp_model_has_cbp(const kcbp_model *model);
/* kcbp_mesh_scale of the mesh: the length tolerances are relative to. */
KCBP_API double kcbp_model_scale(const kcbp_model *model);
/* Built with kcbp_model_options.solid. */
KCBP_API bool kcbp_model_is_solid(const kcbp_model *model);

/* The world-frame axis-aligned box of a posed model: the first, cheapest
 * filter of every pair test and of a scene's broad phase. With a k-CBP it is
 * the box of the k-CBP's transformed vertices (as in the thesis: tight, and
 * a few dozen points); without, the box of the posed local box. */
KCBP_API kcbp_aabb kcbp_model_world_bounds(const kcbp_model *model, const kcbp_pose *pose);

/* ---- what the pair queries report -------------------------------------- */

/* The stage that settled an answer. */
typedef enum {
    KCBP_STAGE_AABB, /* the two world boxes are apart */
    KCBP_STAGE_CBP,  /* GJK: the two k-CBPs are apart */
    KCBP_STAGE_MESH, /* the triangles (through the trees) */
    KCBP_STAGE_SHAPE, /* two shapes' own test (shape.h) */
} kcbp_stage;

/* "aabb", "cbp", "mesh", "shape". */
KCBP_API const char *kcbp_stage_name(kcbp_stage stage);

typedef enum {
    KCBP_CONTACTS_NONE,  /* only the yes/no answer: stop at the first contact */
    KCBP_CONTACTS_FIRST, /* the answer and one contact pair */
    KCBP_CONTACTS_ALL,   /* every pair of intersecting triangles */
} kcbp_contacts_mode;

typedef struct {
    uint32_t a, b; /* triangle indices in A and in B (KCBP_SHAPE_FEATURE for a shape) */
} kcbp_contact;

/* Work done in the trees. */
typedef struct {
    uint64_t box_pairs; /* node pairs whose bounding volumes were tested */
    uint64_t tri_pairs; /* triangle pairs given to the triangle test */
} kcbp_tree_stats;

#ifdef __cplusplus
}
#endif
#endif
