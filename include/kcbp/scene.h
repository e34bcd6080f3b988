/* Scenes: many posed copies of meshes, read from a JSON file, and the
 * collision test of every pair of them.
 *
 * The file:
 *
 *   { "objects": [ {"name": "b1", "mesh": "bunny.obj", "position": [0, 0, 0],
 *                   "rotation": {"axis": [0, 0, 1], "angle_deg": 30}, "scale": 1.0,
 *                   "velocity": [0, 0, 0],
 *                   "angular_velocity": {"axis": [0, 1, 0], "deg_per_s": 90}} ],
 *     "motion": {"frames": 100, "dt": 0.01} }
 *
 * - "objects" (required, at least one): "name" (a non-empty string, unique in
 *   the scene), "mesh" (an OBJ file; a relative path is relative to the
 *   scene file's folder) and "position" (3 numbers) are required; "scale"
 *   (> 0, default 1), "rotation" (default none), "velocity" (default 0) and
 *   "angular_velocity" (default none) are optional. A zero axis is allowed
 *   only with a zero angle or rate; other axes are normalised. "rotation"
 *   may also be {"quaternion": [w, x, y, z]} or {"matrix": [[r00, r01, r02],
 *   [r10, r11, r12], [r20, r21, r22]]}, checked and read as
 *   kcbp_pose_from_quat and kcbp_pose_from_matrix do (pose.h); their
 *   object's axis and angle_deg are then derived from that rotation, and
 *   kcbp_scene_to_text writes it as its matrix.
 * - An object may be a shape (shape.h) instead of a mesh: "shape" in place
 *   of "mesh" (exactly one of the two), {"sphere": {"radius": R}},
 *   {"capsule": {"radius": R, "length": L}}, {"box": {"size": [X, Y, Z]}}
 *   (full side lengths) or {"cylinder": {"radius": R, "height": H}}: the
 *   command line's sphere:R, capsule:R:L, box:X:Y:Z, cylinder:R:H, each
 *   number finite, > 0 and within [KCBP_SHAPE_MIN, KCBP_SHAPE_MAX]; "scale"
 *   multiplies the numbers (the scaled shape is checked too). Objects of one
 *   shape and scale share one model, built by kcbp_model_build_shape (no
 *   file, not cached). kcbp_scene_object_at gives such an object's mesh as
 *   the shape's spelling ("capsule:0.050000000000000003:0.40000000000000002",
 *   the numbers exact), kcbp_scene_add_object takes a mesh so spelled as
 *   that shape ("./capsule:1:2" names a file), kcbp_scene_model_path gives
 *   the spelling, and kcbp_scene_to_text writes "shape" back. Contacts on
 *   a shape's side have KCBP_SHAPE_FEATURE for the triangle.
 * - "motion" (optional): "frames" (an integer in [1, KCBP_SCENE_MAX_FRAMES])
 *   and "dt" (seconds, > 0). Without it the scene is static: one frame, and
 *   velocities are ignored.
 * - Every number must be finite (1e999 is refused), and so must every pose
 *   the motion leads to: a position beyond KCBP_COORD_MAX (1e60), at the
 *   start or, moved by its velocity, at the last frame, or a spin whose angle
 *   overflows, is refused, naming the object's field. Unknown keys and
 *   repeated keys are errors, so that a typo never passes silently, except
 *   "extras" (any JSON value, as in glTF: a generator's record, an editor's
 *   metadata), allowed on the scene and on each object and ignored.
 * - Limits: KCBP_SCENE_MAX_OBJECTS objects, KCBP_SCENE_MAX_FRAMES frames,
 *   KCBP_SCENE_MAX_OBJECT_FRAMES objects times frames, KCBP_SCENE_MAX_MODELS
 *   models (the error names the first object past the limit), and
 *   KCBP_SCENE_MAX_COPY_ELEMENTS vertices and triangles in the scaled copies
 *   (the models of a mesh file beyond its first, checked by
 *   kcbp_scene_build; the error names the object at whose scale it runs out).
 *
 * Poses. Object i at frame f (f = 0 .. frames-1, t = f * dt) maps a mesh
 * vertex x to
 *
 *   world(x) = S(ws, t * deg_per_s) * R(axis, angle_deg) * (scale * x)
 *              + position + t * velocity
 *
 * where R(u, a) is the rotation by a degrees about the unit vector u (right
 * hand). So: scale about the mesh's own origin, then the initial rotation
 * about that origin, then the spin, a rotation about the world-fixed axis ws
 * through the object's origin (the point that the mesh's origin is moved
 * to), then the move. The spin's angle grows linearly in time, and each
 * frame's pose is computed from f directly (no accumulated rounding).
 *
 * Models. Every model (a mesh with its trees and k-CBP) is built once per
 * distinct (mesh file, scale) pair, however many objects use it: copies at
 * the same scale share one model; each different scale of a mesh gets its own
 * scaled model (the mesh file is still read only once). Meshes are told
 * apart by their path as written, joined to the scene's folder: two spellings
 * of one file ("a.obj", "./a.obj") are loaded twice.
 *
 * Errors are "scene-file: field: problem", the field written as a path, e.g.
 * "scene.json: objects[3].rotation.axis: expected 3 numbers"; JSON syntax
 * errors are "scene-file:line:column: ..."; a mesh that cannot be loaded is
 * "scene-file: objects[i].mesh: " followed by the OBJ reader's own
 * "file:line: problem" (i: the first object that uses it).
 *
 * Threads: a kcbp_scene is read-only once built, and every evaluation keeps
 * its state in its own kcbp_scene_eval, so scenes may be read, built and
 * evaluated in parallel (cJSON's parser writes a global error variable: the
 * parse is serialised by a mutex inside this module). */
#ifndef KCBP_SCENE_H
#define KCBP_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "collide.h"
#include "sweep.h"
#include "error.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Guards against absurd scene files. */
#define KCBP_SCENE_MAX_OBJECTS 10000000u
#define KCBP_SCENE_MAX_FRAMES 100000u
#define KCBP_SCENE_MAX_OBJECT_FRAMES 1000000000ull /* objects times frames: the pose count */
#define KCBP_SCENE_MAX_MODELS 4096u /* distinct (mesh file or shape, scale) pairs: models built */
#define KCBP_SCENE_MAX_COPY_ELEMENTS 10000000ull /* vertices + triangles of the models beyond
                                                   the first of each mesh file (about 1 GB) */
#define KCBP_SCENE_MAX_FILE_BYTES (16ull << 30) /* read in chunks, never held: a guard against endless streams */

/* One object of a scene, as written in the file (or given to
 * kcbp_scene_add_object): strings are the caller's while adding, the
 * scene's when read back. */
typedef struct {
    const char *name;      /* non-empty, unique in the scene */
    const char *mesh;      /* the mesh file, as written (relative to the scene's folder),
                              or a shape spelled as on the command line ("sphere:0.5") */
    double scale;          /* > 0, applied first, about the mesh's origin */
    kcbp_vec3 position;
    kcbp_vec3 axis;        /* the initial rotation, as written (not normalised), or
                              derived from a quaternion or matrix (rot0 rules) */
    double angle_deg;
    kcbp_vec3 velocity;    /* per second */
    kcbp_vec3 spin_axis;   /* the angular velocity, as written */
    double spin_deg_per_s;
} kcbp_scene_object;

/* scale 1, at the origin, no rotation (axis z, angle 0), no motion; name
 * and mesh NULL (to be set). */
KCBP_API kcbp_scene_object kcbp_scene_object_default(void);

/* A cache of built models shared by the scenes of a batch: a model is built
 * once per (mesh file, scale, model options) and lent to every scene that
 * needs it. The file is told by its identity (device, inode, size and
 * modification time, from stat), not its spelling, so "a.obj", "./a.obj" and
 * a link to it share one model, and a file changed between two scenes is
 * read again. Thread safe: scenes may be built through one cache from many
 * threads at once (one mutex, held only for look-ups, never while a model is
 * built; two threads that miss the same model at once both build it and one
 * copy is dropped). Models no scene uses are evicted, least recently used
 * first, when the cache holds more than max_bytes. */
typedef struct kcbp_model_cache kcbp_model_cache;

typedef struct {
    uint64_t hits, misses; /* models lent from the cache / built for it */
    uint64_t models;       /* models held now */
    uint64_t bytes;        /* their approximate size */
    uint64_t evicted;
} kcbp_model_cache_stats;

/* max_bytes: 0 for no limit. */
KCBP_API kcbp_status kcbp_model_cache_new(uint64_t max_bytes, kcbp_model_cache **cache, kcbp_error *err);
/* Every scene built through the cache must be freed first. NULL is allowed. */
KCBP_API void kcbp_model_cache_free(kcbp_model_cache *cache);
KCBP_API kcbp_model_cache_stats kcbp_model_cache_get_stats(kcbp_model_cache *cache);

/* A scene: its objects and, once built, one model per distinct (mesh
 * file, scale). Opaque; read-only once built. */
typedef struct kcbp_scene kcbp_scene;

/* Parses scene JSON text (len bytes, no NUL needed). name is used in
 * messages, dir is the folder relative mesh paths start from (NULL or "":
 * paths are used as written). *out is the new scene (kcbp_scene_free), NULL
 * on failure. Nothing is loaded: see kcbp_scene_build. */
KCBP_API kcbp_status kcbp_scene_parse(const char *name, const char *dir, const char *text, size_t len,
                                      kcbp_scene **out, kcbp_error *err);
/* Reads and parses a scene file ("-": standard input; a FIFO, a pipe or a
 * device is read as a stream, see obj.h); mesh paths are relative to its
 * folder (the current folder for standard input), and may be anywhere. */
KCBP_API kcbp_status kcbp_scene_read(const char *path, kcbp_scene **out, kcbp_error *err);
/* kcbp_scene_read, with meshes confined to mesh_root (NULL: the scene
 * file's folder): kcbp_scene_build refuses a mesh whose path leads outside
 * it, as written ("../x", an absolute path) or through symbolic links, with
 * "scene: objects[i].mesh: path: outside the mesh root ROOT" (KCBP_ERR_IO),
 * before reading anything of the file. */
KCBP_API kcbp_status kcbp_scene_read_in(const char *path, const char *mesh_root, kcbp_scene **out,
                                        kcbp_error *err);

/* A scene made in code: an empty scene (name for messages, dir as in
 * kcbp_scene_parse), objects added one at a time (checked as the file's
 * are: the message names objects[i]), and optionally motion. Names must be
 * unique by the time the scene is built. */
KCBP_API kcbp_status kcbp_scene_new(const char *name, const char *dir, kcbp_scene **out, kcbp_error *err);
KCBP_API kcbp_status kcbp_scene_add_object(kcbp_scene *scene, const kcbp_scene_object *object, kcbp_error *err);
/* frames in [1, KCBP_SCENE_MAX_FRAMES], dt > 0. */
KCBP_API kcbp_status kcbp_scene_set_motion(kcbp_scene *scene, uint32_t frames, double dt, kcbp_error *err);

/* Loads every mesh file once and builds each model (see "Models" above)
 * with the given options (NULL: kcbp_model_options_default). This is the one
 * place where a scene's models are built. */
KCBP_API kcbp_status kcbp_scene_build(kcbp_scene *scene, const kcbp_model_options *opts, kcbp_error *err);

/* kcbp_scene_build, borrowing models from cache (NULL: kcbp_scene_build) and
 * lending it those it builds. The scene must be freed before the cache. The
 * answers are those of kcbp_scene_build: a cached model is the same model. */
KCBP_API kcbp_status kcbp_scene_build_cached(kcbp_scene *scene, const kcbp_model_options *opts,
                                             kcbp_model_cache *cache, kcbp_error *err);

/* kcbp_scene_read and kcbp_scene_build. */
KCBP_API kcbp_status kcbp_scene_load(const char *path, const kcbp_model_options *opts, kcbp_scene **out,
                                     kcbp_error *err);

/* NULL is allowed. */
KCBP_API void kcbp_scene_free(kcbp_scene *scene);

/* ---- reading a scene ---------------------------------------------------- */

/* The name given (the file's path for a file), used in messages. */
KCBP_API const char *kcbp_scene_name(const kcbp_scene *scene);
KCBP_API uint32_t kcbp_scene_object_count(const kcbp_scene *scene);
/* Object i as written (i < kcbp_scene_object_count; strings owned by the
 * scene). */
KCBP_API kcbp_scene_object kcbp_scene_object_at(const kcbp_scene *scene, uint32_t i);
/* Frames (1 for a static scene) and their interval (0 for a static scene);
 * whether the scene has "motion". */
KCBP_API uint32_t kcbp_scene_frame_count(const kcbp_scene *scene);
KCBP_API double kcbp_scene_dt(const kcbp_scene *scene);
KCBP_API bool kcbp_scene_is_moving(const kcbp_scene *scene);
/* Once built: the models, and which one object i uses (its mesh scaled by
 * its scale); a model's mesh file (the scene's folder joined with the
 * object's mesh). Before building, kcbp_scene_model is NULL. */
KCBP_API bool kcbp_scene_is_built(const kcbp_scene *scene);
KCBP_API uint32_t kcbp_scene_model_count(const kcbp_scene *scene);
KCBP_API const kcbp_model *kcbp_scene_model(const kcbp_scene *scene, uint32_t m);
KCBP_API const char *kcbp_scene_model_path(const kcbp_scene *scene, uint32_t m);
KCBP_API uint32_t kcbp_scene_object_model(const kcbp_scene *scene, uint32_t i);

/* Wall-clock time kcbp_scene_build spent reading meshes and building
 * models, in ms (statistics for reports: they vary from run to run). */
typedef struct {
    double load_ms, build_ms;
} kcbp_scene_build_times;
KCBP_API kcbp_scene_build_times kcbp_scene_build_time(const kcbp_scene *scene);

/* Object i's pose at frame f (the scale is in its model, not in the pose). */
KCBP_API kcbp_pose kcbp_scene_object_pose(const kcbp_scene *scene, uint32_t i, uint32_t frame);

/* The scene as JSON text in the format above, numbers written so that they
 * read back exactly: *text is malloc'ed (free() it) and NUL-terminated;
 * pretty: indented, else one line. Fails only when memory runs out. */
KCBP_API kcbp_status kcbp_scene_to_text(const kcbp_scene *scene, bool pretty, char **text, kcbp_error *err);

/* kcbp_scene_to_text, written to out followed by a newline. */
KCBP_API kcbp_status kcbp_scene_write(const kcbp_scene *scene, FILE *out, bool pretty, kcbp_error *err);

/* A colliding pair of one frame: objects a < b, and its contacts
 * (contacts[first .. first + count) of the frame). */
typedef struct {
    uint32_t a, b;
    size_t first, count;
    kcbp_containment contained; /* solid scenes: one inside the other (count 0) */
} kcbp_scene_hit;

/* The answer for one frame. Counts are of pairs of objects: pairs =
 * n(n-1)/2; broadphase: pairs whose world boxes overlap (the boxes of the
 * posed k-CBPs, see kcbp_model_world_bounds); mesh_tested: pairs that reached
 * the mesh test (or, for two shapes, their own test; not apart by their boxes, nor by their k-CBPs when that
 * filter ran: the k-CBP stage is skipped where it does not pay, see
 * kcbp_scene_eval_options.cbp_adaptive, so with it this counts the pairs the
 * filters let through, not the pairs whose k-CBPs overlap); colliding: pairs
 * that touch. With a shard (kcbp_scene_eval_options.shard_count > 1) the
 * counts but pairs are the shard's. */
typedef struct {
    uint32_t frame;
    uint64_t pairs, broadphase, mesh_tested, colliding;
    bool cbp_used;                    /* the k-CBP filter ran (options.use_cbp, and every model has a k-CBP) */
    kcbp_scene_hit *hits;             /* colliding pairs, sorted by (a, b) (kcbp_scene_eval_frame; empty
                                         with kcbp_scene_eval_frame_stream) */
    size_t cap_hits;
    kcbp_contact *contacts;           /* per hit, as kcbp_collide gives them */
    size_t ncontacts, cap_contacts;
    /* Statistics: the wall-clock time of the world boxes and of the broad
     * phase, ms; filter and mesh: the time of the pair tests that ended
     * before the mesh test and of those that reached it (their filters
     * included), summed over the pairs (with threads, over the threads: it
     * may exceed the wall-clock time; pairs_ms below is the stage's wall
     * clock). They vary from run to run. */
    struct {
        double bounds, broadphase, filter, mesh;
    } time_ms;
    /* What the pairs' caches did (kcbp_scene_eval, coherence): pairs
     * proven apart again by their last separating axis (no GJK), or by the
     * gap the k-CBP stage last proved less how far both objects can have
     * moved since the last frame (no test at all: src/scene/reach.h), pairs
     * confirmed by their last contact (one triangle test), pairs whose
     * contact was found near their last one (KCBP_CACHE_NEAR), pairs whose
     * k-CBP stage was skipped because their k-CBPs kept overlapping. */
    uint64_t cache_axis, cache_contact, cache_near, cbp_skipped;
    /* Added in 1.1: */
    double pairs_ms;                  /* the pair stage's wall-clock time (statistics) */
    uint64_t cbp_adaptive_skips;      /* pairs whose k-CBP stage the adaptive rule skipped */
    uint64_t pair_caches;             /* pair caches kept for the next frame */
    uint64_t pair_cache_bytes;        /* their packed size */
} kcbp_scene_frame;

KCBP_API void kcbp_scene_frame_free(kcbp_scene_frame *frame);

/* An evaluation ranks the objects: a Z-order (Morton code, 21 bits an
 * axis) of the centres of their world boxes at frame 0 over the box of
 * those centres, ties by index; a function of the scene alone. Spatial
 * neighbours then have near ranks, and the pair stage, which works in rank
 * order, reads memory in order (at 10^6 objects, four times faster than
 * in the objects' own order). The work of a frame's pair stage is cut into
 * chunks of KCBP_SCENE_CHUNK ranks: chunk c holds the pairs whose
 * lower-ranked object has a rank in [64 c, 64 c + 64). Chunks are the unit
 * of threads and of shards. */
#define KCBP_SCENE_CHUNK 64

/* The options of a scene's evaluation. */
typedef struct {
    /* The pair test of every pair the broad phase keeps. */
    kcbp_collide_options collide;
    /* Temporal coherence: the broad phase's tree is refitted from frame to
     * frame rather than built again, and in a scene of more than one frame
     * each pair the broad phase keeps in consecutive frames carries a pair
     * cache (kcbp_collide_cached: the same answers, sooner). false: every
     * frame from scratch. A one-frame scene keeps no per-pair state. */
    bool coherent;
    /* > 0: objects within this distance of each other count as colliding
     * (each inflated by margin / 2: the world boxes are widened by it, and
     * a pair that does not touch is measured with kcbp_distance's clearance
     * query, max_distance = margin); such a pair is listed among the hits
     * with no contacts. 0: touching only. */
    double margin;
    /* Added in 1.1 (kcbp_scene_eval_options_default sets them): */
    /* Threads of the evaluation (0 or 1: the caller's only). The evaluation
     * starts them with kcbp_scene_eval_new and ends them with
     * kcbp_scene_eval_free; the answers are the same for every count. */
    unsigned jobs;
    /* Only the chunks c (see KCBP_SCENE_CHUNK) with c mod shard_count ==
     * shard_index are tested (shard_count 0 or 1: all): shard_count
     * evaluations, on as many machines, split a scene's pairs, and the
     * union of their colliding pairs is the scene's. */
    uint32_t shard_index, shard_count;
    /* The k-CBP stage adapts: in a frame without pair caches (a one-frame
     * scene, or coherent false), each chunk's pairs are tested with the
     * stage or without it, whichever has cost less per pair so far (a
     * pilot of the first 1/32 of the chunks tries both; the work is
     * counted in deterministic units, GJK iterations and tree node and
     * triangle pairs, so that the choice is the same for any number of
     * threads; one pair in 32 takes the other way, to follow the mix).
     * With pair caches each pair adapts on its own (kcbp_pair_cache). Never
     * changes an answer. Default true. */
    bool cbp_adaptive;
} kcbp_scene_eval_options;

/* kcbp_collide_options_default with contacts NONE, coherent, margin 0, one
 * thread, no shard, the adaptive k-CBP stage. */
KCBP_API kcbp_scene_eval_options kcbp_scene_eval_options_default(void);

/* Evaluation state of one built scene: poses, boxes, the broad phase's
 * tree (kept from frame to frame: coherence), the pairs' caches, threads
 * and scratch space. The scene itself is only read, and must outlive the
 * evaluation; one evaluation is used by one thread at a time. options
 * NULL: kcbp_scene_eval_options_default. */
typedef struct kcbp_scene_eval kcbp_scene_eval;

KCBP_API kcbp_status kcbp_scene_eval_new(const kcbp_scene *scene, const kcbp_scene_eval_options *options,
                                         kcbp_scene_eval **out, kcbp_error *err);
/* Tests every pair of objects at frame f (< kcbp_scene_frame_count): world
 * boxes, broad phase, then kcbp_collide on each pair the broad phase keeps.
 * The boxes are widened by each object's share of kcbp_collide's tolerance,
 * so the broad phase never drops a pair that kcbp_collide would find
 * touching: the colliding pairs are exactly those kcbp_collide finds over
 * all pairs. out is reused from call to call (zero it before the first):
 * its hits hold every colliding pair of the frame (see
 * kcbp_scene_eval_frame_stream for memory that does not grow with them). */
KCBP_API kcbp_status kcbp_scene_eval_frame(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_frame *out, kcbp_error *err);

/* One colliding pair, as kcbp_scene_eval_frame_stream hands it on: objects
 * a < b, its contacts (valid during the call only). */
typedef struct {
    uint32_t a, b;
    const kcbp_contact *contacts;
    size_t ncontacts;
    kcbp_containment contained;
} kcbp_scene_pair;

/* Receives one pair; anything but KCBP_OK (with err set) stops the frame
 * with that status. */
typedef kcbp_status (*kcbp_scene_pair_fn)(void *ctx, const kcbp_scene_pair *pair, kcbp_error *err);

/* kcbp_scene_eval_frame, each colliding pair handed to fn as soon as it and
 * every pair before it are confirmed, on the calling thread, one call at a
 * time, instead of being collected: memory does not grow with the colliding
 * pairs. The order is fixed for the scene (the same for every jobs): by the
 * lower of the pair's two ranks, then the higher (see KCBP_SCENE_CHUNK);
 * kcbp_scene_eval_frame sorts what it collects by (a, b). Each pair is
 * (a, b), a < b, with the contacts kcbp_collide(a, b) gives (with contacts
 * FIRST in a moving scene, a pair's last contact while it holds, as
 * kcbp_collide_cached lists it: the same for every jobs and shards, but it
 * can differ after a frame that stopped early). *out gets the
 * counts and times (its hits stay empty). */
KCBP_API kcbp_status kcbp_scene_eval_frame_stream(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_pair_fn fn,
                                                  void *ctx, kcbp_scene_frame *out, kcbp_error *err);
/* Added in 1.2: the next frames hand on at most limit colliding pairs, and
 * stop their work once they have (UINT64_MAX, the default: every pair).
 * The pairs handed on are the first limit of the frame's order (the same
 * for every jobs), so a caller that asks for one more than it lists knows
 * whether there were more. A frame that stopped reports the work it did:
 * its counts (broadphase, mesh_tested, colliding = the pairs handed on) are
 * then lower bounds of the whole frame's; a moving scene's pair caches are
 * dropped (answers unchanged, the next frame a little slower). Applies to
 * kcbp_scene_eval_frame too. */
KCBP_API void kcbp_scene_eval_set_pair_limit(kcbp_scene_eval *ev, uint64_t limit);
/* Added in 1.2: with contacts listed (FIRST or ALL), the next frames look
 * for about limit contacts in all, then stop looking (UINT64_MAX, the
 * default: every contact): the pairs handed on first carry at least the
 * first limit contacts of the frame's order (counted over the pairs in
 * that order), each pair's found by kcbp_collide_capped (collide_cap.h)
 * with the rest of the budget; the pairs after them are still tested and
 * handed on (collide and contained unchanged) with fewer or no contacts.
 * A frame with at most limit - 1 contacts lists every one; with more, the
 * contacts handed on (at least limit) are a lower bound of the frame's, so
 * a caller that lists N asks for N + 1 and knows whether there were more.
 * Applies to kcbp_scene_eval_frame too. */
KCBP_API void kcbp_scene_eval_set_contact_limit(kcbp_scene_eval *ev, uint64_t limit);
/* Added in 1.2: called from a pair callback of kcbp_scene_eval_frame_stream,
 * the share of the frame's pair work walked so far (its chunks, see
 * KCBP_SCENE_CHUNK, whose pairs have been handed on, the current one
 * included), from 0 to 1: for a progress report inside one long frame.
 * Outside a frame: that of the last one. */
KCBP_API double kcbp_scene_eval_progress(const kcbp_scene_eval *ev);
/* The pair test's options for the next frames (the caches are kept: a
 * different contacts mode, say, for one frame). */
KCBP_API void kcbp_scene_eval_set_collide_options(kcbp_scene_eval *ev, const kcbp_collide_options *collide);
/* NULL is allowed. */
KCBP_API void kcbp_scene_eval_free(kcbp_scene_eval *ev);

/* A pair of objects (a < b) that touches between two frames: first at
 * fraction toi of the interval (kcbp_sweep's guarantee), on triangles
 * tri_a and tri_b, at point (world, the midpoint of the closest points);
 * or, undecided, not proven apart after toi. */
typedef struct {
    uint32_t a, b;
    double toi;
    uint32_t tri_a, tri_b;
    kcbp_vec3 point;
    bool undecided; /* the sweep hit its step cap: toi is only the proven free time */
} kcbp_scene_sweep_hit;

/* Continuous collision over one interval between frames. */
typedef struct {
    uint32_t frame;         /* the interval from frame - 1 to frame */
    uint64_t swept_pairs;   /* pairs whose swept boxes overlap: each was swept */
    uint64_t undecided;     /* sweeps that hit their step cap (listed with toi = the proven free time) */
    kcbp_scene_sweep_hit *hits; /* pairs that touch in the interval, sorted by (a, b) */
    size_t nhits, cap_hits;
    double ms;              /* statistics: the wall-clock time of the whole interval (varies from run to run) */
} kcbp_scene_ccd;

/* Sweeps every pair over the interval from frame - 1 to frame (1 <= frame <
 * kcbp_scene_frame_count): each object moves as the scene moves it, its
 * translation linear in time and its spin at a constant rate. An object
 * that turns 180 degrees or more in the interval has its interval cut into
 * the fewest equal steps of less than 180 degrees each (a kcbp_motion
 * between two poses takes the shorter arc: exactly the scene's motion on
 * each step), and a pair is swept step after step, on the finer cut of its
 * two objects; more than KCBP_SCENE_CCD_MAX_STEPS steps is an error
 * (KCBP_ERR_LIMIT, naming the object) rather than a motion guessed. The
 * broad phase takes each object's swept box: over each step, the union of
 * its two world boxes grown by half the distance its points can travel (a
 * point whose path has length L stays within L / 2 of one of its ends),
 * so no pair that touches in the interval is dropped; each pair kept is
 * swept with kcbp_sweep (options NULL: its defaults), and toi is the
 * fraction of the whole interval. A pair touching at frame - 1 is listed
 * with toi 0. out is reused from call to call (zero it before the first). */
#define KCBP_SCENE_CCD_MAX_STEPS 1000u
KCBP_API kcbp_status kcbp_scene_eval_ccd(kcbp_scene_eval *ev, uint32_t frame, const kcbp_sweep_options *options,
                                         kcbp_scene_ccd *out, kcbp_error *err);
KCBP_API void kcbp_scene_ccd_free(kcbp_scene_ccd *ccd);

#ifdef __cplusplus
}
#endif
#endif
