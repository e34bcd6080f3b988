/* Scene layouts for the bounding-volume benchmarks (kcbp bench, kcbp scene
 * --generate, bench/ and tests): scenes made without a file, with a seeded
 * random number generator that gives the same scene on every platform.
 * Part of the evaluation unit (eval/), not of the installed library. */
#ifndef KCBP_EVAL_SCENE_LAYOUT_H
#define KCBP_EVAL_SCENE_LAYOUT_H

#include <stdint.h>

#include <kcbp/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The scene layout of the k-CBP thesis's benchmark: n + 1 copies of the mesh
 * at path `mesh` (whose bounds are given), normalised (centred on the centre
 * of its bounds and scaled so that its largest half-extent is 1): copy 0 at
 * the identity, copies 1..n with
 *   - a translation whose coordinates are integers in {-4, ..., 4}: a
 *     magnitude in {0, ..., 4} and a random sign;
 *   - a rotation axis whose components are multiples of 0.01 with magnitude
 *     in {0, 0.01, ..., 0.99} and random signs (drawn again if all are 0);
 *   - an integer angle in [0, 180) degrees.
 * The normalisation is expressed with "scale" = 1 / largest half-extent and
 * position = translation - scale * R * centre (scale is applied about the
 * mesh's origin, not its centre). Objects are named "o0" .. "on". Random
 * numbers come from xorshift64* seeded through splitmix64, so a seed gives
 * the same scene on every platform. Static (no motion). Not built. */
kcbp_status kcbp_scene_thesis(kcbp_scene **scene, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                              kcbp_error *err);

/* The thesis's layout at a constant density: its cube is fixed, so its
 * scenes get denser as n grows; here the cube grows with n so that every n
 * has the density the thesis's layout has at n = 100 (101 objects in a
 * 9 x 9 x 9 volume: its integer positions -4 .. 4 are the centres of 9
 * unit cells per axis). Translations are uniform (not integers) in
 * [-L, L]^3 with L = kcbp_scene_density_half_range(n) = 4.5 * cbrt((n + 1)
 * / 101); copy 0, the rotations, the normalisation and the random numbers
 * are as in kcbp_scene_thesis. */
kcbp_status kcbp_scene_density(kcbp_scene **scene, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                               kcbp_error *err);
double kcbp_scene_density_half_range(uint32_t n);

#ifdef __cplusplus
}
#endif
#endif
