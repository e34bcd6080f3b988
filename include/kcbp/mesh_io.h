/* Reading a triangle mesh from any supported file: Wavefront OBJ (obj.h),
 * STL (binary and ASCII), PLY (ASCII, binary little and big endian), OFF and
 * glTF 2.0 (binary .glb and JSON .gltf).
 *
 * Which reader: content first, then the extension, then OBJ.
 * - A file starting with the bytes "glTF" is a binary glTF (.glb).
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
 * glTF 2.0: the scene named by "scene" (else the first of "scenes"; with no
 * scenes, every node that is no other's child, in order; with no nodes,
 * every mesh untransformed) is walked depth first, each node before its
 * children, children in the order listed. Each node's world transform
 * (its parents' transforms times its own "matrix", or translation ×
 * rotation × scale) is applied in double to the float32 POSITION of every
 * primitive of its mesh. Triangles are numbered in that order: node by
 * node, a node's primitives in order, a primitive's triangles in index
 * order; vertices likewise, each POSITION accessor once per node (so the
 * primitives of a node that share one share their vertices). Modes 4
 * (TRIANGLES), 5 (TRIANGLE_STRIP: triangle k is (v[k], v[k+1+k%2],
 * v[k+2-k%2]), the spec's order, which keeps the winding) and 6
 * (TRIANGLE_FAN: (v[k+1], v[k+2], v[0])) are read; points and lines (modes
 * 0 to 3) are refused. A node whose transform mirrors (negative
 * determinant) has its triangles' winding reversed, as renderers do.
 * POSITION must be VEC3 of FLOAT; indices unsigned byte, short or int.
 * Sparse accessors, accessors without a buffer view, and any required
 * extension other than KHR_materials_*, KHR_texture_* and
 * KHR_lights_punctual (Draco and meshopt compression, quantized positions,
 * GPU instancing) are refused. Skins and morph targets are ignored (the
 * mesh as stored). Buffers: a .glb's BIN chunk, base64 data: URIs, or
 * files named by a relative URI (percent-decoded) inside the folder of the
 * .gltf file, links resolved (absolute paths, "..", schemes and links
 * leading out are refused; kcbp_mesh_parse uses the folder of its name,
 * and standard input has none). Every accessor must lie inside its buffer
 * view and every view inside its buffer; every index below its POSITION's
 * count; nodes form trees (a cycle or a node with two parents is an
 * error), at most 1000 deep; the JSON holds at most 4·10^6 values. Vertices
 * are not welded: an unindexed primitive's triangles share no vertex.
 * A glTF file written by kcbp (--export FILE.glb) holds float32 positions
 * in each mesh's own frame and the pose as the node's matrix: read back,
 * its triangles and vertices are those written (contact triangles after
 * the others: kcbp writes each object as two primitives), the coordinates
 * the posed float32-rounded ones.
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
    KCBP_FORMAT_GLTF = 4, /* .glb or .gltf */
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
