/* The scene as data (internal: not installed): its objects, their strings
 * and models, errors, poses, and building one in code (scene_desc.c). Under
 * the reader of the JSON format (scene_json.h), which fills it in, and
 * scene.c, which reads files and builds the models. */
#ifndef KCBP_SCENE_DESC_H
#define KCBP_SCENE_DESC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <kcbp/model.h>
#include <kcbp/scene.h>
#include <kcbp/shape.h>

/* Strings kept once each (a scene's mesh paths: a million objects name a
 * few files): each string is stored behind a 4-byte id (its place in
 * strs), so that the id of an interned string is read from the string. */
typedef struct {
    char **strs;           /* each points 4 bytes into its allocation, the id before it */
    uint32_t n, cap;
    uint32_t *table;       /* open addressing: id + 1, 0 for empty; size a power of two */
    uint32_t table_size;
} kcbp_strpool;

/* The interned copy of s (NULL when out of memory), and its id. */
const char *kcbp_strpool_intern(kcbp_strpool *p, const char *s);
static inline uint32_t kcbp_strpool_id(const char *interned)
{
    uint32_t id;
    memcpy(&id, interned - 4, 4);
    return id;
}
void kcbp_strpool_free(kcbp_strpool *p);

/* Small strings in big blocks (a scene's object names): no allocation per
 * string. */
typedef struct kcbp_strblock kcbp_strblock;
typedef struct {
    kcbp_strblock *head;
} kcbp_strarena;
const char *kcbp_strarena_copy(kcbp_strarena *a, const char *s);
void kcbp_strarena_free(kcbp_strarena *a);

/* An object as the scene holds it: kcbp_scene_object's fields, and what
 * building and posing need. Its strings are the scene's: the name in its
 * names arena, the mesh interned in its meshes pool. */
typedef struct {
    const char *name;
    const char *mesh;      /* as written in the file */
    double scale;          /* > 0, applied first, about the mesh's origin */
    kcbp_vec3 position;
    kcbp_vec3 axis;        /* the initial rotation, as written (not normalised) */
    double angle_deg;
    kcbp_vec3 velocity;    /* per second */
    kcbp_vec3 spin_axis;   /* the angular velocity, as written */
    double spin_deg_per_s;
    uint32_t model;        /* index in kcbp_scene.models */
    kcbp_mat3 rot0;        /* R(axis, angle_deg) */
} kcbp_scene_obj;

/* A shape object ("shape" in the file, instead of "mesh"): its mesh string
 * is KCBP_SCENE_SHAPE_MARK followed by the shape as the command line spells
 * it, the numbers written exactly ("\001capsule:0.05:0.4"), so that the
 * objects of one shape share one interned string and, through the (path,
 * scale) key, one model, and no mesh path (which never starts with the mark)
 * is mistaken for it. The object's public mesh is the spelling without the
 * mark. */
#define KCBP_SCENE_SHAPE_MARK '\001'
static inline bool kcbp_scene_is_shape_string(const char *mesh) { return mesh[0] == KCBP_SCENE_SHAPE_MARK; }
/* The marked spelling of a (checked) shape into buf (64 bytes suffice). */
void kcbp_scene_shape_string(const kcbp_shape *shape, char *buf, size_t cap);
/* The shape of a marked spelling, and the shape multiplied by scale (its
 * numbers; the object's scale applies to its shape as to a mesh). */
kcbp_shape kcbp_scene_shape_of(const char *marked);
kcbp_shape kcbp_scene_shape_scaled(const kcbp_shape *shape, double scale);

typedef struct {
    char *path;            /* the file read: the scene's folder joined with the mesh
                              (a shape: its marked spelling, not joined) */
    double scale;
    uint32_t first_object; /* the first object that uses it, named in errors */
    kcbp_shape shape;      /* a shape model: the shape, scaled (kind NONE: a mesh) */
    kcbp_model model;      /* valid once the scene is built */
    void *cached;          /* the model cache's entry when model is borrowed from
                              one (kcbp_scene_build_cached), else NULL */
} kcbp_scene_model_entry;

struct kcbp_scene {
    char *name;            /* the scene file's name as given, used in messages */
    char *dir;             /* folder that relative mesh paths start from ("" = as written) */
    kcbp_scene_obj *objects;
    uint32_t nobjects, cap_objects;
    kcbp_scene_model_entry *models; /* distinct (path, scale) pairs, sorted by both */
    uint32_t nmodels;
    bool assigned;         /* names checked and models assigned (kcbp_scene_assign_models) */
    bool built;
    bool moving;           /* the file has "motion" */
    uint32_t frames;       /* 1 for a static scene */
    double dt;             /* 0 for a static scene */
    double load_ms, build_ms; /* statistics: wall-clock time kcbp_scene_build spent reading meshes and building */
    kcbp_model_cache *cache;  /* the cache its models are borrowed from, or NULL */
    char *mesh_root;       /* meshes must resolve inside this folder (absolute, no
                              links), or NULL: anywhere (kcbp_scene_parse) */
    char *mesh_base;       /* dir, resolved: where relative mesh paths start */
    kcbp_strpool meshes;   /* the objects' mesh strings */
    kcbp_strarena names;   /* the objects' names */
};

/* Records "scene: field: message" (field NULL or "": "scene: message"). */
kcbp_status kcbp_scene_error(kcbp_error *err, const char *scene, kcbp_status code, const char *field,
                             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* A new empty scene in *s (the caller's storage): name, dir, one frame. */
kcbp_status kcbp_scene_init(kcbp_scene *s, const char *name, const char *dir, kcbp_error *err);
/* Frees what *s holds and zeroes it. */
void kcbp_scene_clear(kcbp_scene *s);
/* Room for one more object; the new one is s->objects[s->nobjects - 1],
 * zeroed but for scale 1, axis z and an identity rot0. */
kcbp_status kcbp_scene_push_object(kcbp_scene *s, kcbp_error *err);
/* Object i's pose at time t (seconds; t = frame * dt at a frame). */
kcbp_pose kcbp_scene_pose_at(const kcbp_scene *s, uint32_t i, double t);

/* Every pose of a moving scene finite and within KCBP_COORD_MAX (checked
 * when motion is set and objects are added, as the file's parse does); of
 * object i only. */
kcbp_status kcbp_scene_check_motion(const kcbp_scene *s, kcbp_error *err);
kcbp_status kcbp_scene_check_object_motion(const kcbp_scene *s, uint32_t i, kcbp_error *err);
/* Sets object o's name and mesh (copied into the scene's storage). */
kcbp_status kcbp_scene_set_strings(kcbp_scene *s, kcbp_scene_obj *o, const char *name, const char *mesh,
                                   kcbp_error *err);

/* After the objects are filled in (names, mesh paths, scales): checks that
 * names are unique and gives each object its model, one per distinct
 * (joined path, scale), sorted by both so that the models of one mesh file
 * are adjacent. */
kcbp_status kcbp_scene_assign_models(kcbp_scene *scene, kcbp_error *err);

#endif
