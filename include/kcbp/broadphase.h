/* Broad phase: which pairs of a set of axis-aligned boxes overlap, as a
 * scene's evaluation finds them, for programs that keep their own boxes
 * (other bounding volumes, other objects).
 *
 * The boxes are given whole at every update, in a fixed order (box i is
 * always the same object). The first update builds a bounding volume
 * hierarchy over them (surface area heuristic, O(n log n)); later ones
 * refit it (O(n)) and build it again only when moves have made it much
 * worse (coherence), and every box then queries it: O(n log n + pairs) for
 * boxes of like sizes, where sorting and sweeping on one axis grows as
 * n^(5/3) in a scene of constant density. Closed boxes: boxes that only
 * touch overlap. Opaque; one per thread. */
#ifndef KCBP_BROADPHASE_H
#define KCBP_BROADPHASE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pair of box indices, a < b. */
typedef struct {
    uint32_t a, b;
} kcbp_index_pair;

typedef struct kcbp_broadphase kcbp_broadphase;

/* A broad phase for nboxes boxes. */
KCBP_API kcbp_status kcbp_broadphase_new(uint32_t nboxes, kcbp_broadphase **out, kcbp_error *err);
/* NULL is allowed. */
KCBP_API void kcbp_broadphase_free(kcbp_broadphase *bp);
/* Finds the overlapping pairs of boxes[0 .. nboxes) (finite coordinates). */
KCBP_API kcbp_status kcbp_broadphase_update(kcbp_broadphase *bp, const kcbp_aabb *boxes, kcbp_error *err);
/* The overlapping pairs of the last update, sorted by (a, b): *pairs is
 * valid until the next update; returns their count. */
KCBP_API size_t kcbp_broadphase_pairs(const kcbp_broadphase *bp, const kcbp_index_pair **pairs);

#ifdef __cplusplus
}
#endif
#endif
