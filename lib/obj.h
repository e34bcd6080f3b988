/* Wavefront OBJ reading: v and f statements into a triangle mesh.
 *
 * Errors are reported as "file:line: message". */
#ifndef KCBP_OBJ_H
#define KCBP_OBJ_H

#include <stddef.h>

#include "error.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the OBJ file at path into mesh. */
kcbp_status kcbp_obj_load(const char *path, kcbp_mesh *mesh, kcbp_error *err);

/* Parses OBJ text held in memory; name is used in error messages. */
kcbp_status kcbp_obj_parse(const char *name, const char *text, size_t len, kcbp_mesh *mesh, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
