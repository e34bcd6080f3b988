/* Reading a triangle mesh from any supported file: Wavefront OBJ (obj.h),
 * STL (binary and ASCII), PLY (ASCII, binary little and big endian) and OFF.
 *
 * Which reader: content first, then the extension, then OBJ.
 * - A file whose first line is "ply" is PLY.
 * - A file of 84 + 50·n bytes, where n is the little-endian count at bytes
 *   80..83, is binary STL, even when it starts with "solid" (exporters put
 *   "solid" in binary headers), unless it is all text starting with "solid".
 * - A file whose first line is OFF, COFF, NOFF, CNOFF, STOFF (...) is OFF.
 * - Otherwise the extension (case-insensitive): .stl is STL (binary when it
 *   holds a NUL byte or does not start with "solid": its size must then be
 *   84 + 50·n), .ply PLY, .off OFF, .obj OBJ.
 * - Otherwise a file starting with "solid" is ASCII STL; anything else OBJ.
 *
 * STL: the normals and attribute bytes are ignored; vertices with identical
 * coordinates become one vertex (exact welding; -0 equals +0), so that
 * triangles sharing an edge in the file share it in the mesh. Binary STL
 * coordinates are floats, read exactly. ASCII STL: solid / facet normal /
 * outer loop / vertex x3 / endloop / endfacet / endsolid, keywords in any
 * case, one statement per line, several solids allowed.
 * PLY: the header's elements and properties in any number; the "vertex"
 * element needs x, y, z properties (any numeric type, float and double
 * included), the "face" element a list property vertex_indices (or
 * vertex_index) of integers; every other element and property is skipped.
 * The vertex element must come before the face element. ASCII PLY holds one
 * element per line.
 * OFF: header keyword, then "nv nf [ne]" (on the header line or the next),
 * nv vertex lines (x y z, then anything: colours are ignored), nf face lines
 * "n i0 ... i(n-1)" with 0-based indices (then anything: a colour). '#'
 * starts a comment. Binary OFF is refused.
 * PLY and OFF faces of more than three vertices are triangulated as the OBJ
 * reader does (obj.h). PLY and OFF vertices are not welded.
 *
 * Errors: "file:line: message" for text, "file: byte N: message" for binary
 * data; the same codes, limits (KCBP_MESH_MAX_ELEMENTS, 2 GiB files,
 * KCBP_COORD_MAX, no nan or inf) and file handling ("-", FIFOs, pipes) as
 * the OBJ reader. */
#ifndef KCBP_MESH_IO_H
#define KCBP_MESH_IO_H

#include <stddef.h>

#include "error.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KCBP_FORMAT_OBJ = 0,
    KCBP_FORMAT_STL = 1, /* binary or ASCII */
    KCBP_FORMAT_PLY = 2,
    KCBP_FORMAT_OFF = 3,
} kcbp_mesh_format;

/* The reader chosen for these bytes and this name (see above). */
KCBP_API kcbp_mesh_format kcbp_mesh_detect(const char *name, const void *data, size_t len);

/* Parses a mesh file held in memory; name is used for the extension and in
 * error messages. *out is the new mesh (kcbp_mesh_free), NULL on failure. */
KCBP_API kcbp_status kcbp_mesh_parse(const char *name, const void *data, size_t len, kcbp_mesh **out,
                                     kcbp_error *err);

/* Reads the mesh file at path ("-": standard input). *out is the new mesh
 * (kcbp_mesh_free), NULL on failure. */
KCBP_API kcbp_status kcbp_mesh_load(const char *path, kcbp_mesh **out, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
