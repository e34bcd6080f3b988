/* Hit rates: how well a kind of bounding volume filters the pairs of a
 * scene before the exact mesh test (the k-CBP thesis's Table 1, for any
 * bounding volume of eval/bv.h).
 *
 * For one frame of a built scene and one volume per scene model:
 *   1. the world box of each posed volume (kcbp_bv_world_box), widened by
 *      the object's share of the margin;
 *   2. sweep and prune on those boxes: the volume's own broad phase. Two
 *      volumes that may touch have overlapping boxes, so this drops no pair
 *      the volume test would keep: the pairs passing are exactly those that
 *      the volume test passes over all n(n-1)/2 pairs;
 *   3. the volume test (kcbp_bv_overlap; for the box kinds, step 2 is the
 *      test);
 *   4. the exact test, kcbp_collide without its k-CBP stage, on every pair
 *      passing.
 * The margin of a pair is KCBP_BV_MARGIN_REL * (scale_a + |t_a| + scale_b +
 * |t_b|) (scale: kcbp_mesh_scale of the model, t: the translation), which
 * bounds kcbp_collide's own pair scale from above: no filter ever changes
 * which pairs collide, and the colliding pairs are the same for every
 * volume.
 *
 * The hit rate is colliding / passing; 0/0 is 1 (the filter let no false
 * positive through), as in the thesis's table and in kcbp scene's report. */
#ifndef KCBP_HITRATE_H
#define KCBP_HITRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/broadphase.h>
#include <kcbp/error.h>
#include <kcbp/scene.h>

#include "bv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t pairs;      /* n(n-1)/2 */
    uint64_t boxes;      /* pairs whose volumes' world boxes overlap */
    uint64_t passed;     /* pairs whose volumes may touch: given to the mesh test */
    uint64_t colliding;  /* pairs whose meshes touch (the thesis's DP) */
    kcbp_index_pair *hits; /* the colliding pairs, sorted by (a, b) */
    size_t cap_hits;
    /* Wall-clock ms: the world boxes, the broad phase, the volume tests and
     * mesh tests of the pairs the broad phase kept (not separable without
     * timing every pair, which would cost more than a sphere test). */
    double bounds_ms, broadphase_ms, pairs_ms;
} kcbp_hitrate;

/* Detection time, ms: bounds + broad phase + pairs. */
static inline double kcbp_hitrate_detect_ms(const kcbp_hitrate *h)
{
    return h->bounds_ms + h->broadphase_ms + h->pairs_ms;
}

/* colliding / passed, and 1 when passed is 0. */
static inline double kcbp_hitrate_ratio(uint64_t colliding, uint64_t passed)
{
    return passed ? (double)colliding / (double)passed : 1.0;
}

/* Measures frame `frame` of a built scene with bvs[m] the volume of model m
 * (built from scene->models[m].model.mesh; all of one kind). out is reused
 * from call to call: zero it before the first, free it with
 * kcbp_hitrate_free. */
kcbp_status kcbp_hitrate_measure(const kcbp_scene *scene, uint32_t frame, const kcbp_bv *bvs, kcbp_hitrate *out,
                                 kcbp_error *err);
void kcbp_hitrate_free(kcbp_hitrate *h);

/* True when two measures found the same colliding pairs. */
bool kcbp_hitrate_same_pairs(const kcbp_hitrate *a, const kcbp_hitrate *b);

#ifdef __cplusplus
}
#endif
#endif
