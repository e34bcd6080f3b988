/* Max-only support scans and the box of rotated points (scan_bounds.h). */
#include "scan_bounds.h"

#include "dot2.h"

#include <stdlib.h>

_Static_assert(sizeof(kcbp_vec3) == 3 * sizeof(double), "kcbp_vec3 must be three packed doubles");

#if defined(__SSE2__)
double kcbp_support_max(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d)
{
    const __m128d dxy = _mm_set_pd(d.y, d.x), dzx = _mm_set_pd(d.x, d.z), dyz = _mm_set_pd(d.z, d.y);
    const double *q = &p->x;
    /* _mm_max_pd(t, mx) is t > mx ? t : mx */
    __m128d mx0 = _mm_set1_pd(-INFINITY), mx1 = mx0;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        mx0 = _mm_max_pd(kcbp_dot2(q + 3 * (size_t)i, dxy, dzx, dyz), mx0);
        mx1 = _mm_max_pd(kcbp_dot2(q + 3 * (size_t)i + 6, dxy, dzx, dyz), mx1);
    }
    if (i + 2 <= n) {
        mx0 = _mm_max_pd(kcbp_dot2(q + 3 * (size_t)i, dxy, dzx, dyz), mx0);
        i += 2;
    }
    if (i < n)
        mx1 = _mm_max_pd(_mm_set1_pd(kcbp_v3_dot(p[i], d)), mx1);
    mx0 = _mm_max_pd(mx1, mx0);
    return _mm_cvtsd_f64(_mm_max_sd(_mm_unpackhi_pd(mx0, mx0), mx0));
}

/* min and max over the points of kcbp_v3_dot(p[i], d): one row of the
 * rotation. Four points a step in two registers each, as kcbp_support_max. */
static inline void row_bounds(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d, double *lo, double *hi)
{
    const __m128d dxy = _mm_set_pd(d.y, d.x), dzx = _mm_set_pd(d.x, d.z), dyz = _mm_set_pd(d.z, d.y);
    const double *q = &p->x;
    __m128d mn0 = _mm_set1_pd(INFINITY), mn1 = mn0, mx0 = _mm_set1_pd(-INFINITY), mx1 = mx0;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128d t0 = kcbp_dot2(q + 3 * (size_t)i, dxy, dzx, dyz);
        __m128d t1 = kcbp_dot2(q + 3 * (size_t)i + 6, dxy, dzx, dyz);
        mn0 = _mm_min_pd(t0, mn0);
        mx0 = _mm_max_pd(t0, mx0);
        mn1 = _mm_min_pd(t1, mn1);
        mx1 = _mm_max_pd(t1, mx1);
    }
    if (i + 2 <= n) {
        __m128d t0 = kcbp_dot2(q + 3 * (size_t)i, dxy, dzx, dyz);
        mn0 = _mm_min_pd(t0, mn0);
        mx0 = _mm_max_pd(t0, mx0);
        i += 2;
    }
    if (i < n) {
        __m128d t = _mm_set1_pd(kcbp_v3_dot(p[i], d));
        mn1 = _mm_min_pd(t, mn1);
        mx1 = _mm_max_pd(t, mx1);
    }
    mn0 = _mm_min_pd(mn1, mn0);
    mx0 = _mm_max_pd(mx1, mx0);
    *lo = _mm_cvtsd_f64(_mm_min_sd(_mm_unpackhi_pd(mn0, mn0), mn0));
    *hi = _mm_cvtsd_f64(_mm_max_sd(_mm_unpackhi_pd(mx0, mx0), mx0));
}

void kcbp_rotated_bounds(const kcbp_vec3 *p, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    /* row k of r dotted with a point is coordinate k of kcbp_mat3_mul_v3 */
    row_bounds(p, n, kcbp_v3(r->m[0][0], r->m[0][1], r->m[0][2]), &lo->x, &hi->x);
    row_bounds(p, n, kcbp_v3(r->m[1][0], r->m[1][1], r->m[1][2]), &lo->y, &hi->y);
    row_bounds(p, n, kcbp_v3(r->m[2][0], r->m[2][1], r->m[2][2]), &lo->z, &hi->z);
}

/* One row's dot products of two points (x, y, z) with (a, b, c), summed
 * (x + y) + z as kcbp_mat3_mul_v3 does (no contraction: -ffp-contract=off),
 * so each lane is bitwise that coordinate. */
#define SOA_ROW(a, b, c, x, y, z) _mm_add_pd(_mm_add_pd(_mm_mul_pd(a, x), _mm_mul_pd(b, y)), _mm_mul_pd(c, z))

/* Two points a step, their x, y and z one load each for the three rows. */
void kcbp_rotated_bounds_soa_base(const double *xyz, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    const double *xs = xyz, *ys = xyz + n, *zs = xyz + 2 * (size_t)n;
    const __m128d a0 = _mm_set1_pd(r->m[0][0]), b0 = _mm_set1_pd(r->m[0][1]), c0 = _mm_set1_pd(r->m[0][2]);
    const __m128d a1 = _mm_set1_pd(r->m[1][0]), b1 = _mm_set1_pd(r->m[1][1]), c1 = _mm_set1_pd(r->m[1][2]);
    const __m128d a2 = _mm_set1_pd(r->m[2][0]), b2 = _mm_set1_pd(r->m[2][1]), c2 = _mm_set1_pd(r->m[2][2]);
    __m128d mn0 = _mm_set1_pd(INFINITY), mn1 = mn0, mn2 = mn0;
    __m128d mx0 = _mm_set1_pd(-INFINITY), mx1 = mx0, mx2 = mx0;
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        __m128d x = _mm_loadu_pd(xs + i), y = _mm_loadu_pd(ys + i), z = _mm_loadu_pd(zs + i);
        __m128d t0 = SOA_ROW(a0, b0, c0, x, y, z), t1 = SOA_ROW(a1, b1, c1, x, y, z), t2 = SOA_ROW(a2, b2, c2, x, y, z);
        mn0 = _mm_min_pd(t0, mn0);
        mx0 = _mm_max_pd(t0, mx0);
        mn1 = _mm_min_pd(t1, mn1);
        mx1 = _mm_max_pd(t1, mx1);
        mn2 = _mm_min_pd(t2, mn2);
        mx2 = _mm_max_pd(t2, mx2);
    }
    if (i < n) {
        __m128d x = _mm_set1_pd(xs[i]), y = _mm_set1_pd(ys[i]), z = _mm_set1_pd(zs[i]);
        __m128d t0 = SOA_ROW(a0, b0, c0, x, y, z), t1 = SOA_ROW(a1, b1, c1, x, y, z), t2 = SOA_ROW(a2, b2, c2, x, y, z);
        mn0 = _mm_min_pd(t0, mn0);
        mx0 = _mm_max_pd(t0, mx0);
        mn1 = _mm_min_pd(t1, mn1);
        mx1 = _mm_max_pd(t1, mx1);
        mn2 = _mm_min_pd(t2, mn2);
        mx2 = _mm_max_pd(t2, mx2);
    }
#define SOA_LOW(m) _mm_cvtsd_f64(_mm_min_sd(_mm_unpackhi_pd(m, m), m))
#define SOA_HIGH(m) _mm_cvtsd_f64(_mm_max_sd(_mm_unpackhi_pd(m, m), m))
    *lo = kcbp_v3(SOA_LOW(mn0), SOA_LOW(mn1), SOA_LOW(mn2));
    *hi = kcbp_v3(SOA_HIGH(mx0), SOA_HIGH(mx1), SOA_HIGH(mx2));
#undef SOA_LOW
#undef SOA_HIGH
}
#undef SOA_ROW

#else
double kcbp_support_max(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d)
{
    double best = kcbp_v3_dot(p[0], d);
    for (uint32_t i = 1; i < n; i++) {
        double t = kcbp_v3_dot(p[i], d);
        best = t > best ? t : best;
    }
    return best;
}

void kcbp_rotated_bounds(const kcbp_vec3 *p, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    kcbp_vec3 t = kcbp_mat3_mul_v3(r, p[0]);
    *lo = *hi = t;
    for (uint32_t i = 1; i < n; i++) {
        t = kcbp_mat3_mul_v3(r, p[i]);
        *lo = kcbp_v3_min(*lo, t);
        *hi = kcbp_v3_max(*hi, t);
    }
}

void kcbp_rotated_bounds_soa_base(const double *xyz, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    const double *xs = xyz, *ys = xyz + n, *zs = xyz + 2 * (size_t)n;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 t = kcbp_mat3_mul_v3(r, kcbp_v3(xs[i], ys[i], zs[i]));
        *lo = i ? kcbp_v3_min(*lo, t) : t;
        *hi = i ? kcbp_v3_max(*hi, t) : t;
    }
}
#endif

#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>

/* The same with AVX, four points a step (the same products and sums, no
 * contraction: the target has no FMA), for CPUs that have it: half the
 * instructions of SSE2's two points a step. */
#define SOA_ROW4(a, b, c, x, y, z) \
    _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a, x), _mm256_mul_pd(b, y)), _mm256_mul_pd(c, z))

/* The least of four lanes v = [v0 v1 v2 v3], as (v0 < v1 ? v0 : v1) against
 * (v2 < v3 ? v2 : v3), the first if less: MINPD and MINSD give their first
 * operand when it is less, else their second, which is that expression
 * (the same choice between equal zeros of either sign as the scalar code
 * this replaced, which stored the lanes and compared them in that order). */
__attribute__((target("avx"))) static inline double lanes_min(__m256d v)
{
    __m128d l = _mm256_castpd256_pd128(v), h = _mm256_extractf128_pd(v, 1);
    __m128d m = _mm_min_pd(_mm_unpacklo_pd(l, h), _mm_unpackhi_pd(l, h)); /* [v0 ? v1, v2 ? v3] */
    return _mm_cvtsd_f64(_mm_min_sd(m, _mm_unpackhi_pd(m, m)));
}

/* The greatest, in the same order (MAXPD, MAXSD: the first when greater). */
__attribute__((target("avx"))) static inline double lanes_max(__m256d v)
{
    __m128d l = _mm256_castpd256_pd128(v), h = _mm256_extractf128_pd(v, 1);
    __m128d m = _mm_max_pd(_mm_unpacklo_pd(l, h), _mm_unpackhi_pd(l, h));
    return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
}

__attribute__((target("avx"))) static void rotated_bounds_soa_avx(const double *xyz, uint32_t n, const kcbp_mat3 *r,
                                                                  kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    const double *xs = xyz, *ys = xyz + n, *zs = xyz + 2 * (size_t)n;
    const __m256d a0 = _mm256_set1_pd(r->m[0][0]), b0 = _mm256_set1_pd(r->m[0][1]), c0 = _mm256_set1_pd(r->m[0][2]);
    const __m256d a1 = _mm256_set1_pd(r->m[1][0]), b1 = _mm256_set1_pd(r->m[1][1]), c1 = _mm256_set1_pd(r->m[1][2]);
    const __m256d a2 = _mm256_set1_pd(r->m[2][0]), b2 = _mm256_set1_pd(r->m[2][1]), c2 = _mm256_set1_pd(r->m[2][2]);
    __m256d mn0 = _mm256_set1_pd(INFINITY), mn1 = mn0, mn2 = mn0;
    __m256d mx0 = _mm256_set1_pd(-INFINITY), mx1 = mx0, mx2 = mx0;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = _mm256_loadu_pd(xs + i), y = _mm256_loadu_pd(ys + i), z = _mm256_loadu_pd(zs + i);
        __m256d t0 = SOA_ROW4(a0, b0, c0, x, y, z), t1 = SOA_ROW4(a1, b1, c1, x, y, z);
        __m256d t2 = SOA_ROW4(a2, b2, c2, x, y, z);
        mn0 = _mm256_min_pd(t0, mn0);
        mx0 = _mm256_max_pd(t0, mx0);
        mn1 = _mm256_min_pd(t1, mn1);
        mx1 = _mm256_max_pd(t1, mx1);
        mn2 = _mm256_min_pd(t2, mn2);
        mx2 = _mm256_max_pd(t2, mx2);
    }
    for (; i < n; i++) { /* the last points, each in every lane */
        __m256d x = _mm256_set1_pd(xs[i]), y = _mm256_set1_pd(ys[i]), z = _mm256_set1_pd(zs[i]);
        __m256d t0 = SOA_ROW4(a0, b0, c0, x, y, z), t1 = SOA_ROW4(a1, b1, c1, x, y, z);
        __m256d t2 = SOA_ROW4(a2, b2, c2, x, y, z);
        mn0 = _mm256_min_pd(t0, mn0);
        mx0 = _mm256_max_pd(t0, mx0);
        mn1 = _mm256_min_pd(t1, mn1);
        mx1 = _mm256_max_pd(t1, mx1);
        mn2 = _mm256_min_pd(t2, mn2);
        mx2 = _mm256_max_pd(t2, mx2);
    }
    *lo = kcbp_v3(lanes_min(mn0), lanes_min(mn1), lanes_min(mn2));
    *hi = kcbp_v3(lanes_max(mx0), lanes_max(mx1), lanes_max(mx2));
}
#undef SOA_ROW4

/* AVX where the CPU has it (__builtin_cpu_supports reads what libgcc's
 * start-up found: no state of ours), else SSE2: the same numbers. */
void kcbp_rotated_bounds_soa(const double *xyz, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    if (__builtin_cpu_supports("avx"))
        rotated_bounds_soa_avx(xyz, n, r, lo, hi);
    else
        kcbp_rotated_bounds_soa_base(xyz, n, r, lo, hi);
}
#else
void kcbp_rotated_bounds_soa(const double *xyz, uint32_t n, const kcbp_mat3 *r, kcbp_vec3 *lo, kcbp_vec3 *hi)
{
    kcbp_rotated_bounds_soa_base(xyz, n, r, lo, hi);
}
#endif

double *kcbp_soa_of(const kcbp_vec3 *p, uint32_t n)
{
    double *q = malloc((3 * (size_t)n + 1) * sizeof *q);
    if (!q)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        q[i] = p[i].x;
        q[n + i] = p[i].y;
        q[2 * (size_t)n + i] = p[i].z;
    }
    return q;
}
