/* Small 2D vector helpers for the 2D layer (kcbp2d.h), all inline and by
 * value. Coordinates accepted anywhere in 2D are bounded by KCBP_COORD_MAX
 * (vec3.h), as in 3D. */
#ifndef KCBP_VEC2_H
#define KCBP_VEC2_H

#include "base.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double x, y;
} kcbp_vec2;

static inline kcbp_vec2 kcbp_v2_make(double x, double y)
{
    kcbp_vec2 v = {x, y};
    return v;
}
static inline kcbp_vec2 kcbp_v2_add(kcbp_vec2 a, kcbp_vec2 b) { return kcbp_v2_make(a.x + b.x, a.y + b.y); }
static inline kcbp_vec2 kcbp_v2_sub(kcbp_vec2 a, kcbp_vec2 b) { return kcbp_v2_make(a.x - b.x, a.y - b.y); }
static inline kcbp_vec2 kcbp_v2_scale(kcbp_vec2 a, double s) { return kcbp_v2_make(a.x * s, a.y * s); }
static inline kcbp_vec2 kcbp_v2_neg(kcbp_vec2 a) { return kcbp_v2_make(-a.x, -a.y); }
static inline double kcbp_v2_dot(kcbp_vec2 a, kcbp_vec2 b) { return a.x * b.x + a.y * b.y; }
/* The z of the 3D cross product: a.x b.y - a.y b.x (rounded; the exact sign
 * of a turn is kcbp_orient2d's, never this). */
static inline double kcbp_v2_cross(kcbp_vec2 a, kcbp_vec2 b) { return a.x * b.y - a.y * b.x; }
/* a turned +90 degrees (counter-clockwise): (-a.y, a.x), exact. */
static inline kcbp_vec2 kcbp_v2_perp(kcbp_vec2 a) { return kcbp_v2_make(-a.y, a.x); }
static inline double kcbp_v2_len2(kcbp_vec2 a) { return kcbp_v2_dot(a, a); }
static inline double kcbp_v2_len(kcbp_vec2 a) { return hypot(a.x, a.y); }
static inline double kcbp_v2_max_abs(kcbp_vec2 a) { return fmax(fabs(a.x), fabs(a.y)); }
static inline int kcbp_v2_is_finite(kcbp_vec2 a) { return isfinite(a.x) && isfinite(a.y); }

#ifdef __cplusplus
}
#endif
#endif
