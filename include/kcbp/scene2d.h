/* 2D scenes: many posed 2D objects (GeoJSON or SVG polygons with holes,
 * circles, rectangles, capsules), read from a JSON file, and the exact
 * collision test of every pair of them, frame after frame.
 *
 * The file (the 3D scene format's shape, scene.h, with 2D poses):
 *
 *   { "objects": [ {"name": "lot1", "mesh": "parcels/lot1.geojson", "pose": [10, 5, 30]},
 *                  {"name": "disc", "shape": {"circle": {"radius": 0.5}}, "pose": [0, 0, 0],
 *                   "velocity": [1, 0, 90]} ],
 *     "motion": {"frames": 100, "dt": 0.01} }
 *
 * - "objects" (at least one): "name" (non-empty, unique), exactly one of
 *   "mesh" (a GeoJSON file ending in ".geojson" or an SVG file ending in
 *   ".svg", relative to the scene file's folder, read by kcbp2d_model_load)
 *   and "shape" ({"circle": {"radius": R}}, {"rect": {"size": [W, H]}} or
 *   {"rect": {"size": [W, H], "radius": R}} (rounded), {"capsule2d":
 *   {"radius": R, "length": L}}: the command line's circle:R, rect:W:H[:R],
 *   capsule2d:R:L, checked by kcbp2d_shape_check); "pose" [tx, ty, deg]
 *   (required: a translation and a counter-clockwise angle in degrees, as
 *   pose2d.h's "tx ty deg"); "velocity" [vx, vy, deg_per_s] (optional:
 *   units and degrees per second); "extras" (any value, ignored).
 * - "motion" (optional): "frames" in [1, KCBP2D_SCENE_MAX_FRAMES], "dt" > 0.
 *   Object i at frame f (t = f * dt) has the pose
 *     (tx + t * vx, ty + t * vy, deg + t * deg_per_s)
 *   computed from f directly and made by kcbp2d_pose_from_angle (pose2d.h
 *   states its rounding); a pose beyond KCBP_COORD_MAX at the last frame
 *   is refused, naming the object.
 * - An object is 2D when it has a "pose", a ".geojson" or ".svg" mesh, or
 *   a 2D shape; a scene whose objects are not all 2D or all 3D is refused
 *   naming the first object of the other kind (here and in scene.h's
 *   reader). Unknown or repeated keys, wrong types and non-finite numbers
 *   are errors naming the field ("scene.json: objects[3].pose: expected 3
 *   numbers"); a polygon file that does not load gives "scene.json:
 *   objects[3].mesh: " and the reader's message.
 * - Files are read only inside a root (kcbp2d_scene_read_in: the scene
 *   file's folder by default), after resolving symbolic links, as the 3D
 *   scenes' meshes are: "../x.geojson", an absolute path elsewhere or a link
 *   out is refused ("outside the mesh root") before the file is opened.
 * - Each polygon file is read and built once (one kcbp2d_model per distinct
 *   path as written); shapes are held by their objects.
 * The scene text is read whole (at most KCBP2D_SCENE_MAX_BYTES), unlike
 * the 3D reader's stream, and its objects parsed one at a time (memory:
 * the text and about 100 bytes an object, not a JSON tree of the whole).
 *
 * Evaluation (kcbp2d_scene_eval_frame): each object's world box (its model's
 * box or its shape's, rotated and placed, then widened by 16 ulps of its
 * reach, more than the rounding of carrying one object into another's
 * frame, and by margin / 2), a bounding volume hierarchy of those boxes
 * (src/scene/boxtree.h: built once, refitted from frame to frame), and for
 * every pair whose boxes overlap the exact 2D test: kcbp2d_model_collide
 * (two polygon files), kcbp2d_model_shape_collide (a file and a shape) or
 * kcbp2d_collide (two shapes), each with the margin. So the colliding pairs
 * are exactly those these functions find over all pairs: the boxes never
 * drop one. Objects are ranked in a Z-order of their boxes' centres at
 * frame 0 and the pairs handed on by the lower rank, then the higher, in
 * chunks of KCBP_SCENE_CHUNK ranks (the chunks are the unit of threads and
 * of shards, as in scene.h): the same order for any number of threads.
 *
 * Threads: a built scene is read-only; an evaluation is used by one thread
 * at a time and runs its own threads (jobs). No global state. */
#ifndef KCBP_SCENE2D_H
#define KCBP_SCENE2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "polygon2d.h"
#include "pose2d.h"
#include "shape2d.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KCBP2D_SCENE_MAX_BYTES (1024u * 1024u * 1024u) /* scene text, read whole */
#define KCBP2D_SCENE_MAX_OBJECTS 10000000u
#define KCBP2D_SCENE_MAX_FRAMES 100000u
#define KCBP2D_SCENE_NO_EDGE UINT32_MAX /* a contact's side on a shape: no edge (null in reports) */

typedef struct kcbp2d_scene kcbp2d_scene;

/* Whether the scene file at path is a 2D scene: its first object, read from
 * the first MiB of a regular file, is 2D (see above). false for anything
 * else (a 3D scene, standard input, a file that cannot be read or parsed
 * that far: the 3D reader then says what is wrong). */
KCBP_API bool kcbp2d_scene_sniff(const char *path);

/* Reads a 2D scene file and loads its polygon files (confined to root;
 * NULL: the scene file's folder). *out NULL on failure. */
KCBP_API kcbp_status kcbp2d_scene_read_in(const char *path, const char *root, kcbp2d_scene **out, kcbp_error *err);
/* Parses scene text (name for messages; dir: where relative files are
 * read, NULL or "": as written; files are not confined) and loads its
 * files. */
KCBP_API kcbp_status kcbp2d_scene_parse(const char *name, const char *dir, const char *text, size_t len,
                                        kcbp2d_scene **out, kcbp_error *err);
KCBP_API void kcbp2d_scene_free(kcbp2d_scene *scene);

KCBP_API const char *kcbp2d_scene_name(const kcbp2d_scene *scene);
KCBP_API uint32_t kcbp2d_scene_object_count(const kcbp2d_scene *scene);
KCBP_API const char *kcbp2d_scene_object_name(const kcbp2d_scene *scene, uint32_t i);
/* Frames (1 for a static scene) and their interval (0 when static). */
KCBP_API uint32_t kcbp2d_scene_frame_count(const kcbp2d_scene *scene);
KCBP_API double kcbp2d_scene_dt(const kcbp2d_scene *scene);
/* Distinct polygon files loaded plus distinct shapes (for reports). */
KCBP_API uint32_t kcbp2d_scene_model_count(const kcbp2d_scene *scene);
/* Object i's geometry: its polygon model (NULL for a shape) or its shape
 * (NULL for a polygon file); both borrowed from the scene. */
KCBP_API const kcbp2d_model *kcbp2d_scene_object_model(const kcbp2d_scene *scene, uint32_t i);
KCBP_API const kcbp2d_shape *kcbp2d_scene_object_shape(const kcbp2d_scene *scene, uint32_t i);
/* Object i's pose at frame f (< kcbp2d_scene_frame_count). */
KCBP_API kcbp2d_pose kcbp2d_scene_object_pose(const kcbp2d_scene *scene, uint32_t i, uint32_t frame);

/* A generated scene's text (malloc'ed, NUL-terminated; free() it):
 *   "parcels": n rectangles on a square grid of unit cells (about sqrt(n)
 *     a side), each a random size (0.6 to 1.1 of a cell) and angle (0 to
 *     30 degrees), one in four exactly a cell wide and unturned, so that
 *     rows of them touch edge to edge (exact touching, which counts);
 *   "nesting": n parts (circles, rectangles and capsules of random sizes,
 *     random angles) at random places in a square sheet of about n / 2
 *     unit squares, with a motion of 10 frames in which they drift.
 * A fixed seed gives the same text everywhere. KCBP_ERR_INVALID for
 * another kind or n outside [1, KCBP2D_SCENE_MAX_OBJECTS]. */
KCBP_API kcbp_status kcbp2d_scene_generate(const char *kind, uint32_t n, uint64_t seed, char **text, kcbp_error *err);
/* The same text handed to write(ctx, bytes, len) in pieces of about 64 KiB
 * as it is made, never held whole (n = 10^7 parcels is 1.25 GB of text):
 * write returns false to stop, and the call returns KCBP_ERR_IO ("writing
 * the generated scene failed"). Other errors as kcbp2d_scene_generate,
 * before anything is written. */
typedef bool (*kcbp2d_scene_write_fn)(void *ctx, const char *bytes, size_t len);
KCBP_API kcbp_status kcbp2d_scene_generate_write(const char *kind, uint32_t n, uint64_t seed,
                                                 kcbp2d_scene_write_fn write, void *ctx, kcbp_error *err);

/* ---- evaluation ---------------------------------------------------------- */

typedef struct {
    uint32_t size;           /* set by kcbp2d_scene_eval_options_default */
    double margin;           /* >= 0, finite: pairs closer than or at margin collide; default 0 */
    uint32_t max_contacts;   /* edge pairs listed per colliding pair (0, the default: none,
                                and each pair's test stops at its first) */
    unsigned jobs;           /* threads (0 or 1: the caller's only); same answers for any count */
    uint32_t shard_index, shard_count; /* only the chunks c with c mod shard_count == shard_index
                                          (count 0 or 1: all) */
} kcbp2d_scene_eval_options;

KCBP_API void kcbp2d_scene_eval_options_init(kcbp2d_scene_eval_options *o, uint32_t size);

static inline kcbp2d_scene_eval_options kcbp2d_scene_eval_options_default(void)
{
    kcbp2d_scene_eval_options o;
    kcbp2d_scene_eval_options_init(&o, (uint32_t)sizeof o);
    return o;
}

/* A colliding pair, a < b (objects' indices), as handed on: its meeting
 * edge pairs (at most max_contacts; a side on a shape is
 * KCBP2D_SCENE_NO_EDGE; a pair of two shapes, or one colliding by
 * containment only, has one contact of two KCBP2D_SCENE_NO_EDGE when
 * contacts are asked for, none when it is within the margin only) and
 * whether one lies inside the other with no edges meeting. Valid during
 * the call only. */
typedef struct {
    uint32_t a, b;
    const kcbp2d_edge_pair *contacts;
    uint32_t ncontacts;
    bool contacts_truncated;
    kcbp2d_containment contained;
} kcbp2d_scene_pair;

typedef kcbp_status (*kcbp2d_scene_pair_fn)(void *ctx, const kcbp2d_scene_pair *pair, kcbp_error *err);

/* One frame's counts: pairs = n(n - 1)/2; broadphase: pairs whose boxes
 * overlap, each tested exactly; colliding: pairs handed on. With a shard,
 * the shard's. stopped: the frame handed on as many pairs as the limit
 * allows and stopped its work there (its counts are then lower bounds). Times are wall clock, ms (statistics). */
typedef struct {
    uint32_t frame;
    uint64_t pairs, broadphase, colliding;
    bool stopped;
    bool threaded;           /* the pair stage ran on the evaluation's threads */
    double bounds_ms, broadphase_ms, pairs_ms;
} kcbp2d_scene_frame;

typedef struct kcbp2d_scene_eval kcbp2d_scene_eval;

/* options NULL: defaults. The scene must outlive the evaluation. */
KCBP_API kcbp_status kcbp2d_scene_eval_new(const kcbp2d_scene *scene, const kcbp2d_scene_eval_options *options,
                                           kcbp2d_scene_eval **out, kcbp_error *err);
KCBP_API void kcbp2d_scene_eval_free(kcbp2d_scene_eval *ev);
/* The next frames hand on at most limit pairs and stop their work once
 * they have (UINT64_MAX, the default: all); the pairs handed on are the
 * first of the fixed order. */
KCBP_API void kcbp2d_scene_eval_set_pair_limit(kcbp2d_scene_eval *ev, uint64_t limit);

/* Tests every pair at frame f (< kcbp2d_scene_frame_count), handing each
 * colliding pair to fn (on this thread, one at a time, in the fixed order;
 * NULL: only counted); fn returning an error stops the frame with it.
 * KCBP_ERR_INVALID for a frame out of range or out_size below the first
 * release's size. */
KCBP_API kcbp_status kcbp2d_scene_eval_frame_sized(kcbp2d_scene_eval *ev, uint32_t frame, kcbp2d_scene_pair_fn fn,
                                                   void *ctx, kcbp2d_scene_frame *out, size_t out_size,
                                                   kcbp_error *err);

static inline kcbp_status kcbp2d_scene_eval_frame(kcbp2d_scene_eval *ev, uint32_t frame, kcbp2d_scene_pair_fn fn,
                                                  void *ctx, kcbp2d_scene_frame *out, kcbp_error *err)
{
    return kcbp2d_scene_eval_frame_sized(ev, frame, fn, ctx, out, sizeof *out, err);
}

#ifdef __cplusplus
}
#endif
#endif
