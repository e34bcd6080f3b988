/* Confining the files a scene names to a root folder (internal): the 3D
 * scenes' meshes (scene.c) and the 2D scenes' polygon files (scene2d.c). */
#ifndef KCBP_CONFINE_H
#define KCBP_CONFINE_H

#include <stdbool.h>

#include <kcbp/error.h>

/* Whether the file named path (as written in the scene; relative to base,
 * the scene's folder, made absolute by realpath) and found at joined lies
 * inside root (absolute, resolved): first the path as written, "." and ".."
 * removed, without touching the file system (a path that leads out is
 * refused with nothing learnt of what is there), then where its links lead.
 * A file inside that does not exist counts as inside (its reader says it
 * is missing). KCBP_OK with *inside set, or KCBP_ERR_NOMEM (message starts
 * with name). */
kcbp_status kcbp_confine_check(const char *root, const char *base, const char *path, const char *joined,
                               const char *name, bool *inside, kcbp_error *err);

#endif
