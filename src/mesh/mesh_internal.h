/* The mesh as the library sees it (internal): kcbp_mesh's fields, and the
 * functions that fill a mesh in the caller's storage (the readers, the
 * model, scaled copies in scenes). Public code gets meshes as handles
 * (include/kcbp/mesh.h); a handle is one of these on the heap. */
#ifndef KCBP_MESH_INTERNAL_H
#define KCBP_MESH_INTERNAL_H

#include <kcbp/mesh.h>

struct kcbp_mesh {
    kcbp_vec3 *vertices;
    uint32_t nvertices;
    kcbp_tri *triangles;
    uint32_t ntriangles;
    uint32_t ndegenerate; /* zero-area triangles: kept, and counted here */
    kcbp_aabb bounds;     /* of all vertices */
    uint32_t *faces;      /* per triangle, the file's face it was cut from; NULL when triangle i is face i */
};

/* Makes *mesh (caller storage) from malloc'ed arrays, taking ownership (on
 * failure too: the arrays are freed and *mesh is zeroed). The checks of
 * kcbp_mesh_create. */
kcbp_status kcbp_mesh_adopt(kcbp_mesh *mesh, kcbp_vec3 *vertices, size_t nvertices, kcbp_tri *triangles,
                            size_t ntriangles, kcbp_error *err);
/* The same from copies of the arrays. */
kcbp_status kcbp_mesh_init(kcbp_mesh *mesh, const kcbp_vec3 *vertices, size_t nvertices, const kcbp_tri *triangles,
                           size_t ntriangles, kcbp_error *err);
/* Frees what *mesh owns and zeroes it (the storage stays the caller's). */
void kcbp_mesh_clear(kcbp_mesh *mesh);
/* Moves *mesh (caller storage, made by one of the above) into a new
 * handle: *out owns what it owned and *mesh is zeroed. On failure (memory)
 * *mesh is cleared and *out is NULL. */
kcbp_status kcbp_mesh_to_handle(kcbp_mesh *mesh, kcbp_mesh **out, kcbp_error *err);

/* The readers into caller storage (mesh_io.h, obj.h for what they do). */
kcbp_status kcbp_mesh_load_into(const char *path, kcbp_mesh *mesh, kcbp_error *err);
kcbp_status kcbp_mesh_parse_into(const char *name, const void *data, size_t len, kcbp_mesh *mesh, kcbp_error *err);
kcbp_status kcbp_obj_load_into(const char *path, kcbp_mesh *mesh, kcbp_error *err);
kcbp_status kcbp_obj_parse_into(const char *name, const char *text, size_t len, kcbp_mesh *mesh, kcbp_error *err);

#endif
