/* The exact segment-triangle tests of the triangle test (src/geom/tritri.c),
 * for the library's other exact tests (solids, self-intersection).
 * Internal: not installed, not exported from the shared library. */
#ifndef KCBP_TRITRI_EXACT_H
#define KCBP_TRITRI_EXACT_H

#include <stdbool.h>

#include <kcbp/vec3.h>

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
