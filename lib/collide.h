/* The staged collision test of one pair of posed meshes.
 *
 * A kcbp_model is everything built once from a mesh, in the mesh's own frame
 * (its AABB tree, later its k-CBP). kcbp_collide answers for any two poses
 * without rebuilding anything; models are read-only during queries, so one
 * model may be shared by any number of threads. */
#ifndef KCBP_COLLIDE_H
#define KCBP_COLLIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aabb_tree.h"
#include "error.h"
#include "mesh.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    kcbp_mesh mesh;
    kcbp_aabb_tree tree;
    double scale; /* kcbp_mesh_scale of the mesh */
} kcbp_model;

/* Builds a model from a mesh, taking ownership of it (on success and on
 * failure alike: the mesh is freed if building fails). */
kcbp_status kcbp_model_build(kcbp_model *model, kcbp_mesh *mesh, kcbp_error *err);
/* Loads an OBJ file and builds its model. */
kcbp_status kcbp_model_load(kcbp_model *model, const char *obj_path, kcbp_error *err);
void kcbp_model_free(kcbp_model *model);

/* The world-frame axis-aligned box of a posed model: the first, cheapest
 * filter of every pair test and of a scene's broad phase. */
kcbp_aabb kcbp_model_world_bounds(const kcbp_model *model, const kcbp_pose *pose);

typedef enum {
    KCBP_CONTACTS_NONE,  /* only the yes/no answer: stop at the first contact */
    KCBP_CONTACTS_FIRST, /* the answer and one contact pair */
    KCBP_CONTACTS_ALL,   /* every pair of intersecting triangles */
} kcbp_contacts_mode;

/* The stage that settled an answer. */
typedef enum {
    KCBP_STAGE_AABB, /* the two meshes' boxes are apart */
    KCBP_STAGE_MESH, /* the triangle test (through the AABB trees) */
} kcbp_stage;

const char *kcbp_stage_name(kcbp_stage stage);

typedef struct {
    uint32_t a, b; /* triangle indices in A and in B */
} kcbp_contact;

typedef struct {
    kcbp_contacts_mode contacts;
} kcbp_collide_options;

kcbp_collide_options kcbp_collide_options_default(void);

/* The answer for one pair. Contacts are sorted by (a, b). The contact array
 * is owned by the result and reused by the next kcbp_collide on it, so a
 * loop over many poses allocates only while the contact count grows. */
typedef struct {
    bool collide;
    kcbp_stage decided_by;
    kcbp_contact *contacts;
    size_t ncontacts, capacity;
    kcbp_tree_stats tree; /* work done in the mesh stage */
} kcbp_collide_result;

/* Tests model a at pose_a against model b at pose_b (world = pose * local).
 * Triangles that touch count as colliding; see kcbp_tri_intersect for the
 * tolerance, which is relative to the size and position of the models. */
kcbp_status kcbp_collide(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                         const kcbp_collide_options *options, kcbp_collide_result *result, kcbp_error *err);

/* The length tolerance kcbp_collide uses for the given models and relative
 * pose (B in A's frame); exposed so that tests can reproduce it exactly. */
double kcbp_collide_tolerance(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *b_in_a);

void kcbp_collide_result_free(kcbp_collide_result *result);

#ifdef __cplusplus
}
#endif
#endif
