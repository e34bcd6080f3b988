/* What the mesh readers share (internal, src/mesh/read.c): where errors are
 * placed, coordinate checks, the triangle builder that cuts the files'
 * polygons (polygon.h) and remembers their faces, and exact vertex welding
 * for STL. The four readers (obj.c, stl.c, ply.c, off.c) stand on it and
 * mesh_io.c, which chooses among them, stands on the readers. */
#ifndef KCBP_MESH_READ_H
#define KCBP_MESH_READ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/mesh.h>

#include "mesh_internal.h"
#include "polygon.h"

/* A reader's error, the message formatted from fmt and ap and placed as
 * "name: byte N: message" (binary: at = N, the offset of the value in
 * error), "name:line: message" (text, at = the 1-based line) or "name:
 * message" (text, at = 0: not at a line). Returns code. */
kcbp_status kcbp_read_failv(kcbp_error *err, kcbp_status code, const char *name, bool binary, size_t at,
                            const char *fmt, va_list ap);

/* 0 when c is a usable coordinate, else KCBP_ERR_PARSE (nan, inf) or
 * KCBP_ERR_LIMIT (beyond KCBP_COORD_MAX). */
kcbp_status kcbp_coord_check(double c);

/* The triangles of a file as its faces are read (zero-initialised). */
typedef struct {
    kcbp_tri *t;
    size_t nt, cap_t;
    uint32_t *faces; /* per triangle: its face */
    size_t cap_faces, nf;
    kcbp_polygon_scratch scratch;
} kcbp_tri_builder;

/* Appends the triangles of face poly[0..n) (indices into v): kept, fanned
 * or ear clipped (kcbp_polygon_triangulate). Errors (fewer than 3 vertices,
 * too many triangles, memory) are reported as "name:line: ..." or, when
 * line is 0, "name: ...". */
kcbp_status kcbp_tri_builder_face(kcbp_tri_builder *b, const char *name, size_t line, const kcbp_vec3 *v,
                                  const uint32_t *poly, size_t n, kcbp_error *err);
/* Hands the builder's triangles to mesh (kcbp_mesh_adopt, with the face map
 * when a polygon was cut); frees the builder whatever happens. */
kcbp_status kcbp_tri_builder_adopt(kcbp_tri_builder *b, kcbp_mesh *mesh, kcbp_vec3 *v, size_t nv, const char *name,
                                   kcbp_error *err);
void kcbp_tri_builder_free(kcbp_tri_builder *b);

/* Exact welding: vertices with identical coordinates (-0 and +0 alike)
 * become one. */
typedef struct {
    kcbp_vec3 *v;
    size_t nv, cap_v;
    uint32_t *slot; /* open addressing: index + 1, 0 empty */
    size_t nslot;
} kcbp_welder;

/* The index of p, added when new. KCBP_ERR_LIMIT beyond
 * KCBP_MESH_MAX_ELEMENTS vertices, KCBP_ERR_NOMEM; err is not set (the
 * caller says where). */
kcbp_status kcbp_weld(kcbp_welder *w, kcbp_vec3 p, uint32_t *index);
/* Room for about n distinct vertices (no error: welding grows anyway). */
void kcbp_weld_reserve(kcbp_welder *w, size_t n);
void kcbp_welder_free(kcbp_welder *w);

kcbp_status kcbp_stl_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err);
kcbp_status kcbp_ply_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err);
/* glTF 2.0, .glb or .gltf (gltf.c): external buffers are read from the
 * folder of name (none for "-" and "(mesh)"). */
kcbp_status kcbp_gltf_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err);
kcbp_status kcbp_off_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err);

#endif
