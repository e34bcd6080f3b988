/* The few-objects broad phase: box_scan.h. */
#include "box_scan.h"

#include <stdlib.h>

#include "boxtree.h"

size_t kcbp_box_scan_after(const kcbp_aabb *boxes, uint32_t n, uint32_t a, uint32_t **out, size_t *cap)
{
    size_t count = 0;
    const kcbp_aabb *q = &boxes[a];
    for (uint32_t b = a + 1; b < n; b++) {
        if (!kcbp_bt_overlap(&boxes[b], q))
            continue;
        if (count == *cap) {
            size_t nc = *cap ? 2 * *cap : 64;
            uint32_t *g = realloc(*out, nc * sizeof *g);
            if (!g)
                return SIZE_MAX;
            *out = g;
            *cap = nc;
        }
        (*out)[count++] = b;
    }
    return count;
}
