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
 * - Polygons become triangles, numbered 0-based in file order, n - 2 of
 *   them for a face of n vertices, over the face's own vertices, each
 *   keeping the face's winding (its vertices in the face's order, starting
 *   with the earliest). The face is projected along the coordinate axis on
 *   which its Newell normal is largest (no rounding: for a planar face,
 *   every decision below is exact, made with exact orientation signs):
 *   - a triangle is kept as written;
 *   - a face whose fan (v0 v1 v2), (v0 v2 v3), ... is valid (every fan
 *     triangle turns strictly the face's way, and they go round v0 less
 *     than once) is that fan: every strictly convex face, as in earlier
 *     versions;
 *   - any other simple face (its edges meet only where consecutive ones
 *     share a vertex), whatever its number of vertices, is split into
 *     triangles that cover it exactly, with disjoint interiors and none of
 *     zero area (vertices in line included), by a plane sweep in
 *     O(n log n). This is a different split of non-convex faces than
 *     kcbp 1.0's ear clipping (and of convex faces with a vertex in line
 *     with v0 and its neighbour, whose fan would have a zero-area
 *     triangle); versions before it fanned non-convex faces of more than
 *     1,024 vertices, with overlapping and flipped triangles;
 *   - a face that repeats a point or turns back along an edge (a spike)
 *     has those corners cut off first, as zero-area triangles; what is
 *     left is split as above;
 *   - a face that is not simple (it crosses or touches itself, or joins a
 *     hole to its border by a bridge of two coincident edges) has no
 *     interior to cover: it is ear clipped (a bridged hole comes out right,
 *     a crossing face gets overlapping triangles), within a bounded number
 *     of steps (about 64 n log2 n), the rest fanned;
 *   - a face whose Newell normal is zero (all vertices in line, a
 *     symmetric bow tie) is the fan, of zero-area triangles.
 *   Zero-area triangles are kept (counted in kcbp_mesh_degenerate_count).
 *   The same face always gives the same triangles (src/mesh/polygon.h has
 *   the exact rules).
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
