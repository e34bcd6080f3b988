/* The benchmark generators' random numbers (gen_poses, gen_sweeps): one
 * stream per seed, the same on every machine for the same compiler.
 * random_direction draws its three coordinates as function arguments,
 * whose order C leaves to the compiler: the files bench/ generates were
 * made with gcc. */
#ifndef KCBP_BENCH_RNG_H
#define KCBP_BENCH_RNG_H

#include <math.h>
#include <stdint.h>

#include <kcbp/vec3.h>

typedef struct {
    uint64_t s;
} rng;

static inline uint64_t rng_next(rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static inline double rng_range(rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

static inline rng rng_seed(uint64_t seed)
{
    /* splitmix64 of the seed, so that small seeds give unrelated streams and
     * the state is never zero. */
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    rng r = {z ? z : 0x1234567887654321ULL};
    return r;
}

/* Uniform on the unit sphere (Marsaglia's rejection in the unit ball). */
static inline kcbp_vec3 random_direction(rng *r)
{
    for (;;) {
        kcbp_vec3 v = kcbp_v3(2 * rng_unit(r) - 1, 2 * rng_unit(r) - 1, 2 * rng_unit(r) - 1);
        double l2 = kcbp_v3_len2(v);
        if (l2 > 1e-6 && l2 <= 1.0)
            return kcbp_v3_scale(v, 1.0 / sqrt(l2));
    }
}

#endif
