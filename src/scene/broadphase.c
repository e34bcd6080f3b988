/* kcbp_broadphase (include/kcbp/broadphase.h): the scenes' box tree
 * (boxtree.h) behind a handle, its per-box queries collected into one
 * sorted list of pairs. */
#include <kcbp/broadphase.h>

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "boxtree.h"

struct kcbp_broadphase {
    uint32_t nboxes;
    kcbp_boxtree tree;
    bool built;
    kcbp_index_pair *pairs;
    size_t npairs, cap;
    uint32_t *partners;
    size_t cap_partners;
};

kcbp_status kcbp_broadphase_new(uint32_t nboxes, kcbp_broadphase **out, kcbp_error *err)
{
    if (!(*out = calloc(1, sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a broad phase");
    (*out)->nboxes = nboxes;
    kcbp_boxtree_init(&(*out)->tree);
    return KCBP_OK;
}

void kcbp_broadphase_free(kcbp_broadphase *bp)
{
    if (!bp)
        return;
    kcbp_boxtree_free(&bp->tree);
    free(bp->pairs);
    free(bp->partners);
    free(bp);
}

kcbp_status kcbp_broadphase_update(kcbp_broadphase *bp, const kcbp_aabb *boxes, kcbp_error *err)
{
    bp->npairs = 0;
    kcbp_status st = bp->built ? kcbp_boxtree_update(&bp->tree, boxes, false, err)
                               : kcbp_boxtree_build(&bp->tree, boxes, NULL, bp->nboxes, err);
    bp->built = st == KCBP_OK;
    for (uint32_t a = 0; a < bp->nboxes && st == KCBP_OK; a++) {
        size_t np = kcbp_boxtree_query(&bp->tree, &boxes[a], a, &bp->partners, &bp->cap_partners, 0);
        if (np == SIZE_MAX || !kcbp_grow(&bp->pairs, &bp->cap, bp->npairs + np, sizeof *bp->pairs, 64))
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu broad-phase pairs", bp->npairs + np);
        kcbp_sort_ids(bp->partners, np);
        for (size_t k = 0; k < np; k++)
            bp->pairs[bp->npairs++] = (kcbp_index_pair){a, bp->partners[k]};
    }
    return st;
}

size_t kcbp_broadphase_pairs(const kcbp_broadphase *bp, const kcbp_index_pair **pairs)
{
    *pairs = bp->pairs;
    return bp->npairs;
}
