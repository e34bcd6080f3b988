/* Worlds: a changing set of posed models, and the queries a simulator loop
 * or a motion planner asks of it every step (the manager of trimesh's
 * CollisionManager and FCL's broad-phase managers).
 *
 * A world holds objects: each a model (model.h, borrowed: the caller keeps
 * it alive, unchanged, while an object uses it; one model may serve any
 * number of objects and worlds) placed by a pose (world = pose * local, as
 * every query of the library), with an optional name. Objects are added,
 * removed and moved (kcbp_world_set_pose) at any time; the queries are:
 *
 *   kcbp_world_collide          every pair of objects that touch;
 *   kcbp_world_collide_model    which objects a model at a pose touches;
 *   kcbp_world_distance         the smallest distance between two objects;
 *   kcbp_world_distance_model   the smallest distance from a model at a
 *                               pose to the objects.
 *
 * They run on the scenes' machinery: the objects' world boxes (the boxes of
 * their posed k-CBPs, widened by their share of kcbp_collide's tolerance)
 * in a bounding volume hierarchy refitted after moves and built again
 * after adds and removes (or when moves have spoilt it), and kcbp_collide
 * on each pair whose boxes overlap (k-CBPs, then the exact triangle test).
 * kcbp_world_collide keeps, from one call to the next, each overlapping
 * pair's cache (kcbp_collide_cached: the pair's last separating axis, GJK
 * simplex, contact), so a loop of small moves gets a moving scene's speed;
 * the caches never change which pairs touch.
 *
 * Guarantees: kcbp_world_collide answers exactly the pairs kcbp_collide
 * finds touching among all pairs of objects at their poses (the broad phase
 * drops no pair kcbp_collide could find), with kcbp_collide's contacts
 * (with contacts FIRST, kcbp_collide_cached's: the pair's last contact
 * while it holds);
 * kcbp_world_collide_model the objects kcbp_collide(object, model) finds
 * touching. kcbp_world_distance is the least kcbp_distance over all pairs
 * (0 when two objects touch), within kcbp_distance's own accuracy
 * (distance.h), the boxes being only lower bounds that prune; when pairs
 * tie, one of them is named.
 *
 * Ids: kcbp_world_add gives each object an id, never 0, that stays its id
 * until it is removed; an id of a removed object is refused (KCBP_ERR_INVALID),
 * never taken for another object (the slot an id names is reused, with
 * another generation). Names are optional; a name is unique in the world.
 *
 * Threads: one world is used by one thread at a time (its calls change it,
 * the queries too: caches, the tree); options.jobs threads of the world's
 * own serve kcbp_world_collide. Different worlds may be used from
 * different threads at once, sharing models. No global state. */
#ifndef KCBP_WORLD_H
#define KCBP_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collide.h"
#include "distance.h"
#include "error.h"
#include "model.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kcbp_world kcbp_world;

/* An object's id: 0 is none. */
typedef uint64_t kcbp_world_id;

typedef struct {
    /* The pair test (contacts: NONE, FIRST or ALL; solid needs solid models). */
    kcbp_collide_options collide;
    /* Pair caches kept from one kcbp_world_collide to the next (default
     * true). */
    bool coherent;
    /* The adaptive k-CBP stage of scenes (kcbp_scene_eval_options). */
    bool cbp_adaptive;
    /* Threads of kcbp_world_collide (0 or 1: the caller's only). */
    unsigned jobs;
} kcbp_world_options;

/* kcbp_collide_options_default with contacts NONE, coherent, adaptive, one
 * thread. */
KCBP_API kcbp_world_options kcbp_world_options_default(void);

/* options NULL: the defaults. */
KCBP_API kcbp_status kcbp_world_new(const kcbp_world_options *options, kcbp_world **out, kcbp_error *err);
/* NULL is allowed. The models are the caller's, untouched. */
KCBP_API void kcbp_world_free(kcbp_world *world);
/* The pair test's options from now on (the caches are kept). */
KCBP_API void kcbp_world_set_collide_options(kcbp_world *world, const kcbp_collide_options *collide);

/* Adds model at pose (finite, a rotation: as kcbp_pose_from_* make them),
 * named name (NULL: no name; else non-empty and not already a name in the
 * world, KCBP_ERR_INVALID otherwise; copied). *id is the new object's. */
KCBP_API kcbp_status kcbp_world_add(kcbp_world *world, const kcbp_model *model, const kcbp_pose *pose,
                                    const char *name, kcbp_world_id *id, kcbp_error *err);
KCBP_API kcbp_status kcbp_world_remove(kcbp_world *world, kcbp_world_id id, kcbp_error *err);
KCBP_API kcbp_status kcbp_world_set_pose(kcbp_world *world, kcbp_world_id id, const kcbp_pose *pose,
                                         kcbp_error *err);

/* Reading: the number of objects; whether id names one; its pose, model and
 * name (NULL: none, or no such object); the object named name (0: none). */
KCBP_API uint32_t kcbp_world_count(const kcbp_world *world);
KCBP_API bool kcbp_world_contains(const kcbp_world *world, kcbp_world_id id);
KCBP_API kcbp_status kcbp_world_pose(const kcbp_world *world, kcbp_world_id id, kcbp_pose *pose, kcbp_error *err);
KCBP_API const kcbp_model *kcbp_world_model(const kcbp_world *world, kcbp_world_id id);
KCBP_API const char *kcbp_world_name(const kcbp_world *world, kcbp_world_id id);
KCBP_API kcbp_world_id kcbp_world_find(const kcbp_world *world, const char *name);
/* Every object's id, in slot order (the order pairs come in): *ids gets
 * count ids (ids may be NULL to ask the count). Returns the count. */
KCBP_API uint32_t kcbp_world_ids(const kcbp_world *world, kcbp_world_id *ids, uint32_t capacity);

/* A touching pair: objects a and b, and their contacts (triangle of a's
 * model, triangle of b's: contacts[first .. first + count) of the
 * answer, as kcbp_collide gives them for (a, b)). For
 * kcbp_world_collide_model, a is the object and b is 0 (the model asked
 * about is kcbp_collide's second model: contact.b is its triangle). */
typedef struct {
    kcbp_world_id a, b;
    size_t first, count;
    kcbp_containment contained; /* options.collide.solid: one inside the other */
} kcbp_world_hit;

/* An answer, reused from call to call (zero it before the first;
 * kcbp_world_hits_free frees it). */
typedef struct {
    kcbp_world_hit *hits;   /* kcbp_world_collide: sorted by the slots of a then b (a's
                               slot below b's); kcbp_world_collide_model: by slot */
    size_t nhits, cap_hits;
    kcbp_contact *contacts;
    size_t ncontacts, cap_contacts;
    uint64_t broadphase;    /* pairs whose boxes overlap (tested) */
    uint64_t mesh_tested;   /* ...that reached the mesh test (two shapes: their own test) */
    uint64_t cache_hits;    /* ...that their pair cache settled or sped up */
} kcbp_world_hits;

KCBP_API void kcbp_world_hits_free(kcbp_world_hits *hits);

/* Every pair of objects that touch. */
KCBP_API kcbp_status kcbp_world_collide(kcbp_world *world, kcbp_world_hits *out, kcbp_error *err);
/* Every object that model at pose touches (the world's objects unchanged). */
KCBP_API kcbp_status kcbp_world_collide_model(kcbp_world *world, const kcbp_model *model, const kcbp_pose *pose,
                                              kcbp_world_hits *out, kcbp_error *err);

/* The smallest distance. */
typedef struct {
    bool found;                 /* there was a pair to measure (two objects; one for _model) */
    double distance;            /* >= 0: 0 when they touch */
    kcbp_world_id a, b;         /* the pair (a's slot below b's); _model: the object, and 0 */
    kcbp_vec3 point_a, point_b; /* closest points, world frame, on a and on b (_model: on the model) */
    uint32_t tri_a, tri_b;      /* the triangles they lie on */
    uint64_t measured;          /* pairs kcbp_distance measured (the others were pruned by their boxes) */
} kcbp_world_distance_result;

/* The least distance between two objects of the world. */
KCBP_API kcbp_status kcbp_world_distance(kcbp_world *world, kcbp_world_distance_result *out, kcbp_error *err);
/* The least distance between model at pose and an object of the world. */
KCBP_API kcbp_status kcbp_world_distance_model(kcbp_world *world, const kcbp_model *model, const kcbp_pose *pose,
                                               kcbp_world_distance_result *out, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
