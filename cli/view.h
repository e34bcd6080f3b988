/* What kcbp shows of an answer, for --html FILE (html.c) and --export
 * FILE.glb (glb.c): meshes in their own frames, the objects that place them
 * (a pose, the contact triangles), the k-CBPs, and what a distance, a sweep
 * or a moving scene adds. The commands fill one; the writers only read it.
 *
 * Every read of a model's, mesh's or scene's fields by these writers goes
 * through the kcbp_view_* accessors of view.c, so that the library's
 * structs can become opaque with one file to change. */
#ifndef KCBP_CLI_VIEW_H
#define KCBP_CLI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/kcbp.h>

/* How an object is drawn. */
typedef enum {
    KCBP_VIEW_SOLID = 0, /* opaque, in its colour */
    KCBP_VIEW_GHOST = 1, /* translucent: a sweep's start and end poses */
} kcbp_view_style;

typedef struct {
    const char *name;       /* legend and glTF node name (UTF-8) */
    uint32_t model;         /* index in kcbp_view.models */
    kcbp_pose pose;         /* world = pose(local); a scene's frame 0 */
    const uint8_t *marked;  /* per triangle, nonzero: a contact triangle; or NULL */
    kcbp_view_style style;
    uint32_t color;         /* 0xRRGGBB (kcbp_view_color) */
} kcbp_view_object;

typedef struct {
    const char *kind;       /* "collide", "distance", "sweep", "scene", "self" */
    const char *title;      /* the page's title */
    const kcbp_model *const *models;
    uint32_t nmodels;
    kcbp_view_object *objects;
    uint32_t nobjects;
    const char *answer;     /* the answer's JSON text (one document; NULL: none) */
    bool answer_is_list;    /* answer is a JSON array of documents, one per frame (--html) */
    /* kcbp distance: the closest points, world frame (kcbp sweep: the
     * contact point at the time of impact, twice). */
    bool has_points;
    kcbp_vec3 point_a, point_b;
    /* kcbp sweep: the path of B's origin, world frame, sampled along its
     * motion (translation and rotation), npath points (0: none). */
    uint32_t npath;
    const kcbp_vec3 *path;
    /* kcbp scene with several frames: poses[f * nobjects + i] (frames * nobjects
     * of them), and the contact triangles of frame f as (object, triangle)
     * pairs marks[2 * k], marks[2 * k + 1] for k in [mark_start[f],
     * mark_start[f + 1]). frames 0: the objects' own poses and marks. */
    uint32_t frames;
    double dt;
    const kcbp_pose *poses;
    const uint32_t *marks;
    const size_t *mark_start;
} kcbp_view;

/* The colours of the objects (sRGB): A, B, then more for scenes; none
 * reddish, so that red means contact. */
uint32_t kcbp_view_color(uint32_t index);
#define KCBP_VIEW_CONTACT_RGB 0xe60000u
#define KCBP_VIEW_POINTS_RGB 0xff00ffu

/* A model's mesh and k-CBP, read through the library's structs here only. */
uint32_t kcbp_view_nvertices(const kcbp_model *m);
uint32_t kcbp_view_ntriangles(const kcbp_model *m);
kcbp_vec3 kcbp_view_vertex(const kcbp_model *m, uint32_t i);
const uint32_t *kcbp_view_triangle(const kcbp_model *m, uint32_t t);
kcbp_aabb kcbp_view_bounds(const kcbp_model *m);
/* A shape's model: what is drawn is its surface tessellated for display
 * only (kcbp_model_display_mesh), which the writers say. */
bool kcbp_view_is_shape(const kcbp_model *m);
/* The model's k-CBP as triangles (each face fanned), malloc'ed; false when
 * memory ran out. *nt = 0 and NULL arrays when the model has none. */
bool kcbp_view_cbp_triangles(const kcbp_model *m, kcbp_vec3 **v, uint32_t *nv, uint32_t **tri, uint32_t *nt);

/* A scene's pieces, for kcbp scene. */
uint32_t kcbp_view_scene_nobjects(const kcbp_scene *s);
uint32_t kcbp_view_scene_nmodels(const kcbp_scene *s);
const kcbp_model *kcbp_view_scene_model(const kcbp_scene *s, uint32_t m);
uint32_t kcbp_view_scene_object_model(const kcbp_scene *s, uint32_t i);
const char *kcbp_view_scene_object_name(const kcbp_scene *s, uint32_t i);
uint32_t kcbp_view_scene_frames(const kcbp_scene *s);
double kcbp_view_scene_dt(const kcbp_scene *s);

/* The world box of every object at every pose it takes. */
kcbp_aabb kcbp_view_world_bounds(const kcbp_view *v);

/* What --export PATH writes. Binary glTF is the default: PATH ending in '/'
 * or naming an existing folder is a folder of PLY files (collide, scene);
 * any other PATH is one .glb file, written as named, unless its extension
 * is another format's (.ply, .obj, .stl, .off, .gltf, .html: refused, so
 * that no glTF hides under a PLY name). */
typedef enum { KCBP_VIEW_EXPORT_GLB, KCBP_VIEW_EXPORT_DIR, KCBP_VIEW_EXPORT_BAD } kcbp_view_export_kind;
kcbp_view_export_kind kcbp_view_export_kind_of(const char *path);
/* The usage error for an --export PATH of kind other than GLB where only
 * a .glb file is written (dir_ok false), or of kind BAD. */
int kcbp_view_export_usage(const char *cmd, const char *path, bool dir_ok);

/* Writers: the whole file at path, or an error ("--html: path: ...", code
 * KCBP_ERR_IO for a file that cannot be written, KCBP_ERR_LIMIT for a page
 * or file too big); a file that could not be completed is removed. */
kcbp_status kcbp_html_write(const char *path, const kcbp_view *v, kcbp_error *err);
kcbp_status kcbp_glb_write(const char *path, const kcbp_view *v, kcbp_error *err);

/* A pair command's view (collide, distance, sweep): up to four objects
 * over one or two models, with a contact mark array per object
 * (calloc'ed by kcbp_view_pair_add). */
typedef struct {
    kcbp_view view;
    kcbp_view_object objects[4];
    const kcbp_model *models[2];
    uint8_t *marked[4];
    char title[512];
    char names[4][128]; /* an object's name with a shape's display note */
} kcbp_view_pair;

/* Starts it: kind, title from the two paths, models a and b (one model
 * when they are the same). */
void kcbp_view_pair_init(kcbp_view_pair *vp, const char *kind, const char *path_a, const char *path_b,
                         const kcbp_model *a, const kcbp_model *b);
/* Adds an object of model 0 (A) or 1 (B) at pose; false when memory ran
 * out. Its mark array is vp->marked[its index]. A shape's object is named
 * "NAME (KIND, tessellated for display)": the page and the glTF file show
 * its surface as triangles, while every answer is the exact shape's. */
bool kcbp_view_pair_add(kcbp_view_pair *vp, const char *name, int side, const kcbp_pose *pose, kcbp_view_style style,
                        uint32_t color);
/* Marks the triangles of contacts[0..n) on objects oa (side a) and ob
 * (side b). */
void kcbp_view_pair_mark(kcbp_view_pair *vp, int oa, int ob, const kcbp_contact *contacts, size_t n);
void kcbp_view_pair_free(kcbp_view_pair *vp);

/* Writes --html (path_html) and --export FILE.glb (path_glb), either NULL:
 * KCBP_EXIT_OK, or the exit code after printing why. */
int kcbp_view_emit(const kcbp_view *v, const char *path_html, const char *path_glb);

/* Removes path after a failed write when it is a regular file (never a
 * device, a FIFO or what a link names). */
void kcbp_view_remove_partial(const char *path);

/* A writer's failure as the command's exit: 4 (a file that cannot be
 * written, memory), 2 for KCBP_ERR_INVALID; the message printed. */
int kcbp_view_fail(const kcbp_error *err);

#endif
