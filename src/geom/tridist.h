/* The triangle distance's per-triangle part, for callers that reuse it
 * (internal: the distance traversal, src/bvh/tree_distance.c, keeps each
 * triangle's face from the tree's build). */
#ifndef KCBP_TRIDIST_H
#define KCBP_TRIDIST_H

#include <kcbp/distance.h>

/* A triangle's face as kcbp_tri_distance uses it: its normal (not
 * normalised), n2 = |n|^2, and n2 == 0 when the triangle has no usable
 * face (degenerate up to rounding). */
typedef struct {
    kcbp_vec3 n;
    double n2;
} kcbp_tri_face;

/* The face of triangle t, computed exactly as kcbp_tri_distance computes
 * it (bit for bit). */
kcbp_tri_face kcbp_tri_face_of(const kcbp_vec3 t[3]);

/* kcbp_tri_distance(a, b, pa, pb) with fa = kcbp_tri_face_of(a) and
 * fb = kcbp_tri_face_of(b) given: the same result, bit for bit. */
double kcbp_tri_distance_faces(const kcbp_vec3 a[3], const kcbp_tri_face *fa, const kcbp_vec3 b[3],
                               const kcbp_tri_face *fb, kcbp_vec3 *pa, kcbp_vec3 *pb);

#endif
