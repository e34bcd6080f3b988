/* The broad phase of a scene of few objects (internal): every pair's boxes
 * compared, no tree.
 *
 * Below KCBP_BOX_SCAN_MAX objects a box tree costs more than it saves: a
 * frame of 11 objects spent ~3,000 instructions refitting and descending
 * it (kcbp_bt_refit, kcbp_boxtree_query, the sort of each answer) where
 * the 55 box comparisons take ~1,000. The scan finds exactly the pairs
 * the tree finds (closed boxes, kcbp_bt_overlap, on the same boxes), in
 * ascending order, so the pairs run, and hand on, in the same order.
 *
 * Plain functions over the caller's data: no state. */
#ifndef KCBP_BOX_SCAN_H
#define KCBP_BOX_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include <kcbp/mesh.h>

/* Scenes of at most this many objects use the scan (scene_eval.c). */
#define KCBP_BOX_SCAN_MAX 100

/* Writes to *out (grown as needed, *cap its capacity) every id b in
 * (a, n) whose box overlaps boxes[a], in ascending order. Returns how
 * many, or SIZE_MAX when out of memory (*out is then as it was). */
size_t kcbp_box_scan_after(const kcbp_aabb *boxes, uint32_t n, uint32_t a, uint32_t **out, size_t *cap);

#endif
