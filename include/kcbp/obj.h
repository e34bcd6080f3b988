/* Wavefront OBJ reading: v and f statements into a triangle mesh.
 *
 * Errors are reported as "file:line: message" (or "file: message" when no
 * line applies: a file that cannot be opened or read, a directory, an empty
 * file). Codes: KCBP_ERR_IO for a missing, unreadable file or a directory
 * (the message includes strerror), KCBP_ERR_LIMIT for the guards below,
 * KCBP_ERR_NOMEM, and KCBP_ERR_PARSE for everything else.
 *
 * What is read:
 * - `v x y z`: three coordinates, optionally followed by up to four more
 *   numbers (a w coordinate, or a vertex colour r g b [a]), which must be
 *   well-formed numbers and are ignored. Numbers are parsed independently of
 *   the locale; nan, inf and values that overflow a double (1e999) are
 *   errors, as are fewer than three coordinates.
 * - `f a b c ...`: each vertex is i, i/j, i//k or i/j/k (j and k must be
 *   integers and are ignored). Indices are resolved when the line is read,
 *   as virtually every loader does: a positive index i must satisfy
 *   1 <= i <= the number of vertices defined so far (no forward references),
 *   a negative index -r means the r-th most recent vertex and must not reach
 *   before the first one; 0 is an error. A face needs at least 3 vertices.
 * - Polygons become triangles, numbered 0-based in file order:
 *   a triangle is kept as written; a polygon that is convex in the plane of
 *   its Newell normal becomes the fan (v0 v1 v2), (v0 v2 v3), ...; a
 *   non-convex one is ear clipped in that plane (ears searched from v1, then
 *   from the vertex after each cut, so the order is deterministic). If ear
 *   clipping gets stuck, if the polygon has more than 1024 vertices, or if
 *   its Newell normal is zero (collinear vertices, a symmetric bow tie), the
 *   fan is used instead. A self-intersecting polygon has no well-defined
 *   interior: it gets whichever of the two the rules above give. Every
 *   triangle keeps the winding of its polygon. Zero-area triangles are kept
 *   (counted in kcbp_mesh.ndegenerate).
 * - Everything else is skipped: comments (`#` to the end of the line, also
 *   after a statement, any bytes), blank lines, `vt`, `vn`, `vp`, `o`, `g`,
 *   `s`, `usemtl`, `mtllib`, `l`, `p`, and any unknown keyword (exporters emit
 *   e.g. `cstype`, `curv`, `surf`; they define no triangles).
 * - Lines end with LF or CRLF (a CR is white space). A backslash at the end
 *   of a line (before an optional CR) continues the line on the next one,
 *   as the OBJ specification says: the backslash becomes a space. Errors
 *   name the first line of a continued statement.
 * - A NUL byte anywhere is an error "binary file" at its line, so that a
 *   binary file never passes for an OBJ file with nothing in it.
 * - A file without any face is an error "no faces" at its last line; an
 *   empty file is an error "empty file".
 *
 * Guards: more than KCBP_MESH_MAX_ELEMENTS vertices or triangles is refused
 * with KCBP_ERR_LIMIT, and so is a file larger than 2 GiB (a regular file is
 * not read into memory), a coordinate beyond KCBP_COORD_MAX (1e60) in
 * magnitude, and a mesh smaller than KCBP_MESH_MIN_SCALE (1e-60; see
 * mesh.h).
 *
 * Files: "-" is standard input. A FIFO, a pipe or a device is read as a
 * stream up to the limit, stopping at the first chunk holding a NUL byte
 * (/dev/zero ends at once); a FIFO that no writer opens within a second is
 * an error ("a FIFO with no writer"), never a hang. A block device is
 * refused. */
#ifndef KCBP_OBJ_H
#define KCBP_OBJ_H

#include <stddef.h>

#include "error.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the OBJ file at path (one read of the whole file). *out is the new
 * mesh (kcbp_mesh_free), NULL on failure. */
KCBP_API kcbp_status kcbp_obj_load(const char *path, kcbp_mesh **out, kcbp_error *err);

/* Parses OBJ text held in memory (len bytes, no terminating NUL needed);
 * name is used in error messages. *out is the new mesh, NULL on failure. */
KCBP_API kcbp_status kcbp_obj_parse(const char *name, const char *text, size_t len, kcbp_mesh **out,
                                    kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
