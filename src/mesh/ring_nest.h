/* How closed rings nest (internal): for each ring, how many of the others
 * hold it and the smallest one that does, by one plane sweep in
 * O(E log E) for E edges, with exact orientation signs. The SVG reader
 * groups its shapes' rings into polygons with holes by it.
 *
 * Testing each ring's point against every other ring is quadratic in the
 * rings when they nest (8000 nested squares took 1.3 s, 64000 would take
 * about 80 s) and in the vertices when many small rings lie in one large
 * one; the sweep is not.
 *
 * Input: rings of points (ring r is pts[ring_end[r-1] .. ring_end[r]),
 * ring_end[-1] = 0), each closed implicitly (last point to first), at least
 * 3 points, no two consecutive equal. The answer is exact for rings that do
 * not cross each other or themselves (they may touch at points, and
 * separate rings may share pieces of edges); for rings that cross it is
 * some depth and parent (never a crash, and still O(E log E)): the caller's
 * region check refuses crossings.
 *
 * depth[r]: the number of other rings whose region holds ring r.
 * parent[r]: the ring of depth depth[r] - 1 that holds it (the smallest),
 * UINT32_MAX for depth 0. Returns false when out of memory. */
#ifndef KCBP_RING_NEST_H
#define KCBP_RING_NEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/vec2.h>

bool kcbp_ring_nest(const kcbp_vec2 *pts, const uint32_t *ring_end, size_t nrings, uint32_t *depth,
                    uint32_t *parent);

#endif
