/* What the parts of the scene module share (internal: not installed):
 * scene.c (models, poses, reading and building), scene_json.c (the only user
 * of cJSON: parsing and writing), scene_eval.c (frames), and the layouts of
 * eval/scene_layout.c, which make scenes without a file. */
#ifndef KCBP_SCENE_INTERNAL_H
#define KCBP_SCENE_INTERNAL_H

#include <kcbp/scene.h>

/* Records "scene: field: message" (field NULL or "": "scene: message"). */
kcbp_status kcbp_scene_error(kcbp_error *err, const char *scene, kcbp_status code, const char *field,
                             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* After the objects are filled in (names, mesh paths, scales): checks that
 * names are unique and gives each object its model, one per distinct
 * (joined path, scale), sorted by both so that the models of one mesh file
 * are adjacent. */
kcbp_status kcbp_scene_assign_models(kcbp_scene *scene, kcbp_error *err);

#endif
