/* Max-only support scans and the box of rotated points (internal; used by
 * the k-CBP gap, convex/cbp.c, and the world boxes, query/model.c).
 *
 * Both return the very numbers the plain loops return: the same products
 * summed in the same order (kcbp_v3_dot, kcbp_mat3_mul_v3), only two points
 * at a time (SSE2) and without the bookkeeping of an index, so a caller may
 * swap one for the other with no change in any answer
 * (tests/test_scan_bounds.c checks them bit for bit against the loops). */
#ifndef KCBP_CONVEX_SCAN_BOUNDS_H
#define KCBP_CONVEX_SCAN_BOUNDS_H

#include <stdint.h>

#include <kcbp/vec3.h>

/* max over i < n of kcbp_v3_dot(p[i], d); n >= 1, the points finite. */
double kcbp_support_max(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d);

/* The box of the points rotated by r: *lo and *hi are, coordinate by
 * coordinate, the min and max over i < n of kcbp_mat3_mul_v3(r, p[i]);
 * n >= 1, the points finite. Adding a translation t to both afterwards gives
 * the same numbers as the box of kcbp_pose_apply over the points, since
 * rounding is monotone: max_i fl(a_i + t) = fl(max_i a_i + t). */
void kcbp_rotated_bounds(const kcbp_vec3 *p, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi);

/* kcbp_rotated_bounds of the points stored by coordinate: xyz[i],
 * xyz[n + i], xyz[2 n + i] are point i's x, y, z (kcbp_soa_of). The same
 * numbers, with fewer instructions: each pair (SSE2) or four (AVX, where
 * the CPU has it) of points is loaded once for the three rows, and needs
 * no shuffles. */
void kcbp_rotated_bounds_soa(const double *xyz, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi);

/* kcbp_rotated_bounds_soa without AVX (SSE2, or the plain loop), which the
 * former runs where the CPU has no AVX: the same numbers (tests compare
 * both with the loops). */
void kcbp_rotated_bounds_soa_base(const double *xyz, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi);

/* A copy of points p[0 .. n) by coordinate (3 n doubles, malloc'd; NULL
 * when out of memory), as kcbp_rotated_bounds_soa reads them. */
double *kcbp_soa_of(const kcbp_vec3 *p, uint32_t n);

#endif
