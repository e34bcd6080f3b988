/* Scene layouts for benchmarks: the k-CBP thesis's and a constant-density
 * variant (eval/scene_layout.h). */
#include "scene_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- the thesis's layout ------------------------------------------------ */

typedef struct {
    uint64_t s;
} rng;

static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static uint64_t rng_next(rng *r) /* xorshift64* (Vigna 2016) */
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * UINT64_C(2685821657736338717);
}

/* Uniform integer in [0, m), m < 2^32 (Lemire's multiply-shift on the high
 * 32 bits). */
static uint32_t rng_below(rng *r, uint32_t m) { return (uint32_t)(((rng_next(r) >> 32) * m) >> 32); }
static double rng_sign(rng *r) { return (rng_next(r) >> 63) ? -1.0 : 1.0; }

static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; } /* [0, 1) */

/* The thesis's layout (half == 0: integer translations in {-4, ..., 4}) or
 * the constant-density one (translations uniform in [-half, half]^3). */
static kcbp_status layout(kcbp_scene **out, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                          double half_range, kcbp_error *err)
{
    *out = NULL;
    kcbp_vec3 c = kcbp_aabb_center(bounds), e = kcbp_aabb_extent(bounds);
    double half = fmax(e.x, fmax(e.y, e.z));
    if (!(half > 0) || !isfinite(half) || !kcbp_v3_is_finite(c))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the mesh's bounds are empty or not finite", mesh);
    if (n >= KCBP_SCENE_MAX_OBJECTS)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "%u copies: more than the limit of %u objects", n + 1,
                              KCBP_SCENE_MAX_OBJECTS);
    double scale = 1.0 / half;
    kcbp_scene *s;
    kcbp_status st = kcbp_scene_new(half_range > 0 ? "density" : "thesis", "", &s, err);
    if (st != KCBP_OK)
        return st;
    rng r = {splitmix64(seed)};
    if (!r.s)
        r.s = 1;
    for (uint32_t i = 0; i <= n && st == KCBP_OK; i++) {
        kcbp_scene_object o = kcbp_scene_object_default();
        char name[16];
        snprintf(name, sizeof name, "o%u", i);
        o.name = name;
        o.mesh = mesh;
        o.scale = scale;
        kcbp_vec3 t = kcbp_v3(0, 0, 0);
        if (i > 0) {
            double tv[3], av[3];
            for (int k = 0; k < 3; k++)
                tv[k] = half_range > 0 ? (2 * rng_unit(&r) - 1) * half_range : rng_sign(&r) * (double)rng_below(&r, 5);
            do {
                for (int k = 0; k < 3; k++)
                    av[k] = rng_sign(&r) * (double)rng_below(&r, 100) / 100.0;
            } while (av[0] == 0 && av[1] == 0 && av[2] == 0);
            t = kcbp_v3(tv[0], tv[1], tv[2]);
            o.axis = kcbp_v3(av[0], av[1], av[2]);
            o.angle_deg = (double)rng_below(&r, 180);
        }
        kcbp_pose p;
        st = kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o.axis, o.angle_deg, &p, err);
        /* world = R (scale x) + position = R (scale (x - c)) + t */
        o.position = kcbp_v3_sub(t, kcbp_mat3_mul_v3(&p.rot, kcbp_v3_scale(c, scale)));
        if (st == KCBP_OK)
            st = kcbp_scene_add_object(s, &o, err);
    }
    if (st != KCBP_OK) {
        kcbp_scene_free(s);
        return st;
    }
    *out = s;
    return KCBP_OK;
}

kcbp_status kcbp_scene_thesis(kcbp_scene **s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                              kcbp_error *err)
{
    return layout(s, mesh, bounds, n, seed, 0, err);
}

double kcbp_scene_density_half_range(uint32_t n) { return 4.5 * cbrt(((double)n + 1) / 101.0); }

kcbp_status kcbp_scene_density(kcbp_scene **s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                               kcbp_error *err)
{
    return layout(s, mesh, bounds, n, seed, kcbp_scene_density_half_range(n), err);
}
