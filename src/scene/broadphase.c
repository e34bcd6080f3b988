/* kcbp_broadphase (include/kcbp/broadphase.h): the scenes' box tree
 * (boxtree.h) behind a handle. The boxes query the tree in its leaf order
 * (spatial neighbours one after the other: at 10^5 boxes twice as fast as
 * in their own order, the tree read from cache), each for the boxes after
 * it in that order, and the pairs are then sorted by (a, b): a counting
 * sort on a, then each a's few b by insertion. O(n log n + pairs). */
#include <kcbp/broadphase.h>

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "boxtree.h"

struct kcbp_broadphase {
    uint32_t nboxes;
    kcbp_boxtree tree;
    bool built;
    kcbp_index_pair *pairs, *scratch;
    size_t npairs, cap, cap_scratch;
    uint32_t *partners;
    size_t cap_partners;
    size_t *start; /* nboxes + 1 */
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
    free(bp->scratch);
    free(bp->partners);
    free(bp->start);
    free(bp);
}

/* Sorts the pairs by (a, b) in O(pairs + boxes). */
static kcbp_status sort_pairs(kcbp_broadphase *bp, kcbp_error *err)
{
    size_t np = bp->npairs;
    uint32_t n = bp->nboxes;
    if (np < 2)
        return KCBP_OK;
    if (!kcbp_grow(&bp->scratch, &bp->cap_scratch, np, sizeof *bp->scratch, 64) ||
        (!bp->start && !(bp->start = malloc(((size_t)n + 1) * sizeof *bp->start))))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu broad-phase pairs", np);
    size_t *start = bp->start;
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    for (size_t k = 0; k < np; k++)
        start[bp->pairs[k].a + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t k = 0; k < np; k++)
        bp->scratch[start[bp->pairs[k].a]++] = bp->pairs[k];
    size_t begin = 0; /* start[i] is now the end of a = i's run */
    for (uint32_t i = 0; i < n; i++) {
        size_t end = start[i];
        for (size_t k = begin + 1; k < end; k++) {
            kcbp_index_pair x = bp->scratch[k];
            size_t j = k;
            for (; j > begin && bp->scratch[j - 1].b > x.b; j--)
                bp->scratch[j] = bp->scratch[j - 1];
            bp->scratch[j] = x;
        }
        begin = end;
    }
    kcbp_index_pair *t = bp->pairs;
    size_t cap = bp->cap;
    bp->pairs = bp->scratch;
    bp->cap = bp->cap_scratch;
    bp->scratch = t;
    bp->cap_scratch = cap;
    return KCBP_OK;
}

kcbp_status kcbp_broadphase_update(kcbp_broadphase *bp, const kcbp_aabb *boxes, kcbp_error *err)
{
    bp->npairs = 0;
    kcbp_status st = bp->built ? kcbp_boxtree_update(&bp->tree, boxes, false, err)
                               : kcbp_boxtree_build(&bp->tree, boxes, NULL, bp->nboxes, err);
    bp->built = st == KCBP_OK;
    const kcbp_boxtree *t = &bp->tree;
    for (uint32_t k = 0; k < t->nobjects && st == KCBP_OK; k++) {
        uint32_t a = t->order[k];
        size_t np = kcbp_boxtree_query_after(t, &t->lbox[k], k, &bp->partners, &bp->cap_partners, 0);
        if (np == SIZE_MAX || !kcbp_grow(&bp->pairs, &bp->cap, bp->npairs + np, sizeof *bp->pairs, 64))
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu broad-phase pairs", bp->npairs + np);
        for (size_t j = 0; j < np; j++) {
            uint32_t b = bp->partners[j];
            bp->pairs[bp->npairs++] = a < b ? (kcbp_index_pair){a, b} : (kcbp_index_pair){b, a};
        }
    }
    return st == KCBP_OK ? sort_pairs(bp, err) : st;
}

size_t kcbp_broadphase_pairs(const kcbp_broadphase *bp, const kcbp_index_pair **pairs)
{
    *pairs = bp->pairs;
    return bp->npairs;
}
