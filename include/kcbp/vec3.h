/* Small 3D vector and 3x3 matrix helpers, all inline and by value. */
#ifndef KCBP_VEC3_H
#define KCBP_VEC3_H

#include "base.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double x, y, z;
} kcbp_vec3;

/* The largest coordinate magnitude kcbp accepts anywhere: mesh vertices
 * (after a scene's scale), pose translations, and scene positions at every
 * frame. The triangle test squares areas, products of four coordinates,
 * which must stay far from overflow (1.8e308): 1e60 leaves room for any
 * pose. Larger numbers are refused with KCBP_ERR_LIMIT (a mesh) or
 * KCBP_ERR_INVALID (a pose), never computed with. */
#define KCBP_COORD_MAX 1e60

/* Row-major 3x3 matrix: m[row][col]. */
typedef struct {
    double m[3][3];
} kcbp_mat3;

static inline kcbp_vec3 kcbp_v3(double x, double y, double z)
{
    kcbp_vec3 v = {x, y, z};
    return v;
}
static inline kcbp_vec3 kcbp_v3_add(kcbp_vec3 a, kcbp_vec3 b) { return kcbp_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline kcbp_vec3 kcbp_v3_sub(kcbp_vec3 a, kcbp_vec3 b) { return kcbp_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline kcbp_vec3 kcbp_v3_scale(kcbp_vec3 a, double s) { return kcbp_v3(a.x * s, a.y * s, a.z * s); }
static inline kcbp_vec3 kcbp_v3_neg(kcbp_vec3 a) { return kcbp_v3(-a.x, -a.y, -a.z); }
static inline double kcbp_v3_dot(kcbp_vec3 a, kcbp_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline kcbp_vec3 kcbp_v3_cross(kcbp_vec3 a, kcbp_vec3 b)
{
    return kcbp_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double kcbp_v3_len2(kcbp_vec3 a) { return kcbp_v3_dot(a, a); }
static inline double kcbp_v3_len(kcbp_vec3 a) { return sqrt(kcbp_v3_dot(a, a)); }
static inline kcbp_vec3 kcbp_v3_min(kcbp_vec3 a, kcbp_vec3 b)
{
    return kcbp_v3(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}
static inline kcbp_vec3 kcbp_v3_max(kcbp_vec3 a, kcbp_vec3 b)
{
    return kcbp_v3(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}
static inline kcbp_vec3 kcbp_v3_abs(kcbp_vec3 a) { return kcbp_v3(fabs(a.x), fabs(a.y), fabs(a.z)); }
static inline double kcbp_v3_max_abs(kcbp_vec3 a) { return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z))); }
/* All three coordinates finite (no NaN, no infinity). */
static inline int kcbp_v3_is_finite(kcbp_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/* The determinant of the 3x3 matrix with rows (or columns) a, b, c: the
 * triple product a . (b x c), six times the signed volume of the tetrahedron
 * (0, a, b, c). */
static inline double kcbp_v3_det3(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c) { return kcbp_v3_dot(a, kcbp_v3_cross(b, c)); }
static inline double kcbp_v3_get(kcbp_vec3 a, int axis) { return axis == 0 ? a.x : axis == 1 ? a.y : a.z; }

static inline kcbp_mat3 kcbp_mat3_identity(void)
{
    kcbp_mat3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    return r;
}
static inline kcbp_vec3 kcbp_mat3_mul_v3(const kcbp_mat3 *r, kcbp_vec3 v)
{
    return kcbp_v3(r->m[0][0] * v.x + r->m[0][1] * v.y + r->m[0][2] * v.z,
                   r->m[1][0] * v.x + r->m[1][1] * v.y + r->m[1][2] * v.z,
                   r->m[2][0] * v.x + r->m[2][1] * v.y + r->m[2][2] * v.z);
}
/* r^T v: for rotations, the inverse rotation. */
static inline kcbp_vec3 kcbp_mat3_tmul_v3(const kcbp_mat3 *r, kcbp_vec3 v)
{
    return kcbp_v3(r->m[0][0] * v.x + r->m[1][0] * v.y + r->m[2][0] * v.z,
                   r->m[0][1] * v.x + r->m[1][1] * v.y + r->m[2][1] * v.z,
                   r->m[0][2] * v.x + r->m[1][2] * v.y + r->m[2][2] * v.z);
}
/* (Entry by entry, written out: GCC -O2 leaves 3 x 3 loops rolled.) Entry
 * (i, j) is a[i][0] b[0][j] + a[i][1] b[1][j] + a[i][2] b[2][j], summed
 * left to right. */
static inline kcbp_mat3 kcbp_mat3_mul(const kcbp_mat3 *a, const kcbp_mat3 *b)
{
#define KCBP_MAT3_MUL_ENTRY(i, j) (a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j])
    kcbp_mat3 r = {{{KCBP_MAT3_MUL_ENTRY(0, 0), KCBP_MAT3_MUL_ENTRY(0, 1), KCBP_MAT3_MUL_ENTRY(0, 2)},
                    {KCBP_MAT3_MUL_ENTRY(1, 0), KCBP_MAT3_MUL_ENTRY(1, 1), KCBP_MAT3_MUL_ENTRY(1, 2)},
                    {KCBP_MAT3_MUL_ENTRY(2, 0), KCBP_MAT3_MUL_ENTRY(2, 1), KCBP_MAT3_MUL_ENTRY(2, 2)}}};
#undef KCBP_MAT3_MUL_ENTRY
    return r;
}
static inline kcbp_mat3 kcbp_mat3_transpose(const kcbp_mat3 *a)
{
    kcbp_mat3 r = {{{a->m[0][0], a->m[1][0], a->m[2][0]},
                    {a->m[0][1], a->m[1][1], a->m[2][1]},
                    {a->m[0][2], a->m[1][2], a->m[2][2]}}};
    return r;
}

/* The eigenvectors of the symmetric matrix a (only its upper triangle is
 * read), as the columns of *vectors (orthonormal up to rounding), and its
 * eigenvalues, in the same order, in *values (either may be NULL): cyclic
 * Jacobi rotations (Golub and Van Loan, "Matrix Computations", section
 * 8.5), at most 50 sweeps. */
KCBP_API void kcbp_mat3_sym_eigen(const kcbp_mat3 *a, kcbp_mat3 *vectors, kcbp_vec3 *values);

#ifdef __cplusplus
}
#endif
#endif
