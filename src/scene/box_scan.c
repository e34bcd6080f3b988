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
        if (!kcbp_bt_push(out, cap, count++, b))
            return SIZE_MAX;
    }
    return count;
}
