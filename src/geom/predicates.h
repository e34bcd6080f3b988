/* The exact orientation predicates of the triangle test (src/tritri.c),
 * for the library's other exact tests (src/solid.c, src/self.c).
 * Internal: not installed, not exported from the shared library.
 *
 * Both return the exact sign (-1, 0, +1) of a determinant of the given
 * double coordinates, taken as the rationals they stand for: a
 * floating-point filter with a proven error bound, GMP integers when it
 * cannot tell. Coordinates must be finite. */
#ifndef KCBP_PREDICATES_H
#define KCBP_PREDICATES_H

#include <stdbool.h>

#include <kcbp/vec3.h>

/* sign of det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a). */
int kcbp_orient3d(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d);

/* The sign of kcbp_orient3d when the floating-point filter alone
 * certifies it, else 0 (zero, too close to call, or non-finite). */
int kcbp_orient3d_filtered(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d);

/* sign of (q - p) x (r - p) = (qx - px)(ry - py) - (qy - py)(rx - px). */
int kcbp_orient2d(double px, double py, double qx, double qy, double rx, double ry);

/* The closed segment pq (p == q: a point) meets the closed triangle t (a
 * segment or a point when degenerate), exactly; as kcbp_tri_intersect of
 * (p, q, q) and t, without the GMP evaluations a degenerate first argument
 * costs there. */
bool kcbp_seg_tri_intersect(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3]);

/* The same for the projections that drop coordinate k (0, 1, 2), in which
 * t must have non-zero area (kcbp_orient2d of its projection). A necessary
 * condition for the 3D test, from orient2d alone: where pieces of a mesh
 * lie in one plane it saves the orient3d that are exactly zero, which only
 * GMP can confirm. */
bool kcbp_seg_tri_intersect_axis(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3], int k);

#endif
