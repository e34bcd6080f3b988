/* kcbp_broadphase (include/kcbp/broadphase.h): the scenes' sweep and prune
 * (sap.h) behind a handle. */
#include <kcbp/broadphase.h>

#include <stdlib.h>

#include "sap.h"

struct kcbp_broadphase {
    kcbp_sap sap;
};

kcbp_status kcbp_broadphase_new(uint32_t nboxes, kcbp_broadphase **out, kcbp_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a broad phase");
    kcbp_status st = kcbp_sap_init(&(*out)->sap, nboxes, err);
    if (st != KCBP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

void kcbp_broadphase_free(kcbp_broadphase *bp)
{
    if (!bp)
        return;
    kcbp_sap_free(&bp->sap);
    free(bp);
}

kcbp_status kcbp_broadphase_update(kcbp_broadphase *bp, const kcbp_aabb *boxes, kcbp_error *err)
{
    return kcbp_sap_update(&bp->sap, boxes, err);
}

size_t kcbp_broadphase_pairs(const kcbp_broadphase *bp, const kcbp_index_pair **pairs)
{
    *pairs = bp->sap.pairs;
    return bp->sap.npairs;
}
