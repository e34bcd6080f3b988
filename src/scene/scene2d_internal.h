/* 2D scenes as data (internal: not installed): scene2d.c reads them,
 * scene2d_eval.c evaluates them. */
#ifndef KCBP_SCENE2D_INTERNAL_H
#define KCBP_SCENE2D_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/scene2d.h>

typedef struct {
    char *name;
    char *file;         /* the polygon file as written, or NULL: a shape */
    int32_t model;      /* index into models, or -1: a shape (-2 while reading: a file) */
    kcbp2d_shape shape; /* when model < 0 */
    double tx, ty, deg; /* the pose at t = 0 */
    double vx, vy, w;   /* per second (degrees for w) */
} kcbp2d_scene_obj;

typedef struct {
    char *path;         /* as written in the scene */
    kcbp2d_model *model;
} kcbp2d_scene_model;

struct kcbp2d_scene {
    char *name;
    kcbp2d_scene_obj *objects;
    uint32_t nobjects;
    kcbp2d_scene_model *models;
    uint32_t nmodels;
    uint32_t nshapes;   /* distinct shapes, for reports */
    uint32_t frames;
    double dt;
    bool moving;
};

/* What makes a scene object 2D (scene2d.c), also for the 3D reader, which
 * refuses such objects: a mesh path ending in ".geojson" or ".svg", a
 * shape named "circle", "rect" or "capsule2d" (or a "pose" key). */
bool kcbp2d_scene_path_is_2d(const char *mesh);
bool kcbp2d_scene_shape_is_2d(const char *shape_key);

#endif
