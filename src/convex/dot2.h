/* Two dot products in one SSE2 register (internal; support.c and
 * scan_bounds.c). */
#ifndef KCBP_CONVEX_DOT2_H
#define KCBP_CONVEX_DOT2_H

#include <kcbp/vec3.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/* Dot products of vertices q[0..2] and q[3..5] with d, in one register. Each
 * pair of vertices is three unaligned loads (x0 y0 | z0 x1 | y1 z1) times
 * (dx dy | dz dx | dy dz); three shuffles line the products up as
 * (x0 x1), (y0 y1), (z0 z1), summed (x + y) + z as kcbp_v3_dot does: each
 * lane is bitwise kcbp_v3_dot of its vertex and d. */
static inline __m128d kcbp_dot2(const double *q, __m128d dxy, __m128d dzx, __m128d dyz)
{
    __m128d a = _mm_mul_pd(_mm_loadu_pd(q), dxy);
    __m128d b = _mm_mul_pd(_mm_loadu_pd(q + 2), dzx);
    __m128d c = _mm_mul_pd(_mm_loadu_pd(q + 4), dyz);
    __m128d x = _mm_move_sd(b, a);         /* (a0, b1) */
    __m128d y = _mm_shuffle_pd(a, c, 1);   /* (a1, c0) */
    __m128d z = _mm_move_sd(c, b);         /* (b0, c1) */
    return _mm_add_pd(_mm_add_pd(x, y), z);
}
#endif

#endif
