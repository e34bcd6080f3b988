/* kcbp_self_intersections with its certificates chosen (internal: for
 * the tests, which compare the certified traversal with the brute force
 * over all pairs, and for measuring what the certificates save). */
#ifndef KCBP_SELF_INTERNAL_H
#define KCBP_SELF_INTERNAL_H

#include <kcbp/self.h>

typedef enum {
    KCBP_SELF_CERTIFIED,  /* kcbp_self_intersections: the tree, skipping what certificates prove apart */
    KCBP_SELF_TREE_ONLY,  /* the tree, every overlapping pair tested (before flat patches and vertex stars) */
    KCBP_SELF_BRUTE_FORCE /* every pair of triangles, no tree: O(n^2) */
} kcbp_self_how;

kcbp_status kcbp_self_intersections_how(const kcbp_model *model, kcbp_contacts_mode mode, kcbp_self_how how,
                                        kcbp_contact **pairs, size_t *npairs, kcbp_tree_stats *stats,
                                        kcbp_error *err);

#endif
