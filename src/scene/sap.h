/* Sweep and prune (internal): which pairs of a set of axis-aligned boxes
 * overlap; the broad phase of scenes and of kcbp_broadphase (broadphase.h).
 *
 * Sweep and prune (Baraff 1992; Cohen et al., I-COLLIDE 1995): the boxes are
 * sorted by their lower end on one axis (the sweep axis); sweeping that list,
 * each box is tested, on the other two axes, only against the boxes that
 * start before it ends. The cost is the sort plus the number of boxes whose
 * sweep-axis intervals overlap, not n(n-1)/2.
 *
 * Coherence: a kcbp_sap keeps its sorted order between calls. When the boxes
 * barely move from one call to the next (the frames of a moving scene), the
 * old order is almost sorted and insertion sort repairs it in near-linear
 * time. If repairing takes more than KCBP_SAP_MAX_SHIFTS_PER_BOX shifts per
 * box on average, it gives up and sorts from scratch (O(n log n)), so a big
 * jump never costs O(n^2).
 *
 * A kcbp_sap is plain data owned by its caller: no global state, so any
 * number of them may be used from different threads. */
#ifndef KCBP_SAP_H
#define KCBP_SAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/error.h>
#include <kcbp/broadphase.h>
#include <kcbp/mesh.h>


#define KCBP_SAP_MAX_SHIFTS_PER_BOX 8

typedef struct {
    double lo, hi; /* the box's interval on the sweep axis */
    uint32_t id;   /* index of the box */
} kcbp_sap_entry;

typedef struct {
    uint32_t nboxes;
    int axis;               /* sweep axis (0, 1, 2); chosen at the first update */
    bool coherent;          /* reuse the previous order (default true) */
    bool sorted_before;     /* entries hold a previous order */
    kcbp_sap_entry *entries;
    kcbp_index_pair *pairs; /* the overlapping pairs of the last update, sorted by (a, b) */
    size_t npairs, cap;
    kcbp_index_pair *scratch; /* for sorting the pairs */
    size_t scratch_cap;
    size_t *counts;           /* nboxes + 1 */
    /* Work of the last update, for measurements. */
    uint64_t shifts;        /* insertion-sort moves (0 after a full sort) */
    bool full_sort;         /* the last update sorted from scratch */
} kcbp_sap;

/* Prepares a sweep over nboxes boxes (nboxes may be 0). */
kcbp_status kcbp_sap_init(kcbp_sap *sap, uint32_t nboxes, kcbp_error *err);
void kcbp_sap_free(kcbp_sap *sap);

/* Finds every pair of overlapping boxes (closed intervals: touching boxes
 * overlap) among boxes[0 .. nboxes), into sap->pairs sorted by (a, b).
 * The sweep axis is chosen at the first call as the axis along which the box
 * centres spread most, and kept afterwards so that the order stays coherent.
 * Boxes must not contain NaN. */
kcbp_status kcbp_sap_update(kcbp_sap *sap, const kcbp_aabb *boxes, kcbp_error *err);

#endif
