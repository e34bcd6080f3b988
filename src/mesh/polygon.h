/* Polygons of the mesh files, cut into triangles (internal: the readers'
 * shared triangulation, src/mesh/read.c, for OBJ, PLY and OFF faces).
 *
 * A face of n >= 3 vertices becomes exactly n - 2 triangles over its own
 * vertices, so that contacts can name the file's face of any triangle.
 * The face is projected along the coordinate axis on which its Newell
 * normal is largest (the other two coordinates kept as they are: no
 * rounding, so for a planar face every sign below is the face's own), and
 * every decision is an exact orient2d sign (src/geom/predicates.h) or an
 * exact comparison of those coordinates: "simple", "valid" and "covers"
 * below are exact statements about the projected polygon.
 *
 *  1. A triangle is kept as written.
 *  2. A face whose Newell normal is zero or not finite (all vertices in
 *     line, a symmetric bow tie) is the fan from its first vertex
 *     (zero-area triangles).
 *  3. A face whose fan from its first vertex is valid is that fan
 *     (v0 v1 v2), (v0 v2 v3), ...: every triangle (v0, vi, vi+1) turns
 *     strictly the same way and the vi go round v0 less than once. This is
 *     every strictly convex face (as before), and every face star-shaped
 *     from v0 with no vertex in line with v0 and a neighbour. A convex face
 *     with a vertex in line with v0 and its neighbour (a zero-area fan
 *     triangle, whose middle vertex would lie on the next triangle's edge)
 *     goes on to 4.
 *  4. Otherwise, each vertex b whose corner (a, b, c) has zero area and
 *     does not pass straight through (b at a neighbour's point, or the tip
 *     of a spike that goes back along its edge) is cut off as the zero-area
 *     triangle (a, b, c), repeatedly, in an order fixed by the vertices'
 *     places in the face.
 *  5. What remains is swept (Garey, Johnson, Preparata and Tarjan 1978: a
 *     monotone decomposition, each piece triangulated while the sweep goes;
 *     the sweep also runs Shamos and Hoey's 1976 test for intersecting
 *     edges). If it is simple (no two edges meet other than consecutive
 *     ones at their shared vertex; in particular no two vertices at one
 *     point), its triangles cover it exactly, with disjoint interiors and
 *     none of zero area, vertices in line included: O(n log n) time, O(n)
 *     memory (about 110 bytes a vertex).
 *  6. If it is not simple (it crosses or touches itself, a hole joined to
 *     the border by a bridge, ...), it has no interior to cover: it is ear
 *     clipped (an ear: a strictly convex corner whose closed triangle holds
 *     no other remaining vertex, vertices at a corner's point excepted; a
 *     zero-area corner when a whole round finds no ear; ears searched from
 *     the second vertex, then from the vertex after each cut), up to a
 *     budget of 64 n (log2 n + 1) + 65536 orientation tests, and what
 *     remains when no corner can be cut or the budget is spent is the fan
 *     from its first remaining vertex. Never more than that budget's time.
 *
 * Every triangle lists its vertices in the order they come in the face,
 * starting with the earliest: the three vertices of any triangle of a
 * triangulation of a simple polygon come in the polygon's order, so each
 * triangle has the face's winding. Whatever the face, the result is n - 2
 * triangles, and depends only on the face's vertices (deterministic). */
#ifndef KCBP_POLYGON_H
#define KCBP_POLYGON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/mesh.h>

/* Which rule of the list above cut a face (for tests and statistics). */
typedef enum {
    KCBP_POLY_TRIANGLE,   /* 1 */
    KCBP_POLY_FLAT_FAN,   /* 2: no usable normal */
    KCBP_POLY_FAN,        /* 3 */
    KCBP_POLY_SWEPT,      /* 4 and 5: simple once zero-area corners were cut */
    KCBP_POLY_CLIPPED,    /* 4 and 6: not simple, ear clipped to the end */
    KCBP_POLY_CLIPPED_FAN /* 4 and 6: not simple, clipping stopped (no corner to cut, or the budget spent),
                             the rest fanned */
} kcbp_polygon_path;

/* Scratch space, reused from face to face (zero-initialised; freed with
 * kcbp_polygon_scratch_free). */
typedef struct {
    void *mem; /* one block, cut into the arrays a face of up to cap_n vertices needs */
    size_t cap_n;
    void *chain; /* the sweep's reflex chains: nodes, grown as needed */
    size_t cap_chain;
    uint32_t radix[16][256]; /* the sweep's sort: digit counts */
    kcbp_polygon_path path; /* how the last face was cut */
} kcbp_polygon_scratch;

/* Writes the n - 2 triangles of polygon poly[0..n) (indices into v, n >= 3)
 * to out, which has room for them. KCBP_ERR_NOMEM (err not set) when the
 * scratch cannot grow. */
kcbp_status kcbp_polygon_triangulate(kcbp_polygon_scratch *s, const kcbp_vec3 *v, const uint32_t *poly, size_t n,
                                     kcbp_tri *out);

/* Whether closed curves bound a region simply, exactly: vertex i (at
 * (uv[2i], uv[2i+1])) is followed by next[i], next being a permutation of
 * 0..n-1 into rings of at least 3 vertices; *ok when no two vertices are at
 * one point, no two edges meet other than consecutive ones at their shared
 * vertex, and every point is wound round 0 or 1 times (each ring
 * counter-clockwise round what it encloses, clockwise round a hole in it,
 * by the nesting). The sweep of rule 5, without the triangles: O(n log n)
 * time, O(n) memory. Used by kcbp self (src/query/self.c) to certify flat
 * regions. KCBP_ERR_NOMEM when the scratch cannot grow. */
kcbp_status kcbp_polygon_rings_check(kcbp_polygon_scratch *s, const double *uv, const uint32_t *next, size_t n,
                                     bool *ok);

void kcbp_polygon_scratch_free(kcbp_polygon_scratch *s);

#endif
