/* kcbp_self_intersections with its certificates chosen (internal: for
 * the tests, which compare the certified traversal with the brute force
 * over all pairs, and for measuring what the certificates save). */
#ifndef KCBP_SELF_INTERNAL_H
#define KCBP_SELF_INTERNAL_H

#include <kcbp/self.h>

typedef enum {
    KCBP_SELF_CERTIFIED,  /* kcbp_self_intersections: the tree, skipping what certificates prove apart */
    KCBP_SELF_TREE_ONLY,  /* the tree, every overlapping pair tested (before flat patches and vertex stars) */
    KCBP_SELF_BRUTE_FORCE, /* every pair of triangles, no tree: O(n^2) */
    /* Deliberately unsound, for the tests that show the oracle catches a
     * certificate whose proof is cut short: */
    KCBP_SELF_UNSOUND_NO_RINGS, /* flat patches certified without their rings' check */
    KCBP_SELF_UNSOUND_NO_LINK   /* vertex stars certified without their plane and link polygon checks */
} kcbp_self_how;

kcbp_status kcbp_self_intersections_how(const kcbp_model *model, kcbp_contacts_mode mode, kcbp_self_how how,
                                        kcbp_contact **pairs, size_t *npairs, kcbp_tree_stats *stats,
                                        kcbp_error *err);

/* The same, with ALL stopping once max_pairs (> 0; 0: none) pairs are
 * found (kcbp_self_intersections_capped). */
kcbp_status kcbp_self_intersections_run(const kcbp_model *model, kcbp_contacts_mode mode, kcbp_self_how how,
                                        uint64_t max_pairs, kcbp_contact **pairs, size_t *npairs,
                                        kcbp_tree_stats *stats, kcbp_error *err);

#endif
