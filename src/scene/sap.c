#include "sap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

kcbp_status kcbp_sap_init(kcbp_sap *sap, uint32_t nboxes, kcbp_error *err)
{
    memset(sap, 0, sizeof *sap);
    sap->nboxes = nboxes;
    sap->coherent = true;
    sap->entries = malloc((nboxes ? nboxes : 1) * sizeof *sap->entries);
    sap->counts = malloc(((size_t)nboxes + 1) * sizeof *sap->counts);
    if (!sap->entries || !sap->counts) {
        kcbp_sap_free(sap);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a broad phase of %u boxes", nboxes);
    }
    for (uint32_t i = 0; i < nboxes; i++)
        sap->entries[i].id = i;
    return KCBP_OK;
}

void kcbp_sap_free(kcbp_sap *sap)
{
    if (!sap)
        return;
    free(sap->entries);
    free(sap->pairs);
    free(sap->scratch);
    free(sap->counts);
    memset(sap, 0, sizeof *sap);
}

/* Order of the sweep list: by lower end, ties by index (so the order, and
 * with it the work done, does not depend on the previous order). */
static inline bool entry_less(const kcbp_sap_entry *x, const kcbp_sap_entry *y)
{
    return x->lo < y->lo || (x->lo == y->lo && x->id < y->id);
}

static int cmp_entry(const void *p, const void *q)
{
    const kcbp_sap_entry *x = p, *y = q;
    return entry_less(x, y) ? -1 : entry_less(y, x) ? 1 : 0;
}

/* Sorts the pairs by (a, b) in O(pairs + boxes): a counting sort on a into
 * scratch space, then insertion sort of each a's few partners by b. */
static kcbp_status sort_pairs(kcbp_sap *sap, kcbp_error *err)
{
    size_t np = sap->npairs;
    uint32_t n = sap->nboxes;
    if (np < 2)
        return KCBP_OK;
    if (sap->scratch_cap < np) {
        kcbp_index_pair *grown = realloc(sap->scratch, np * sizeof *grown);
        if (!grown)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu broad-phase pairs", np);
        sap->scratch = grown;
        sap->scratch_cap = np;
    }
    size_t *start = sap->counts;
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    for (size_t k = 0; k < np; k++)
        start[sap->pairs[k].a + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t k = 0; k < np; k++)
        sap->scratch[start[sap->pairs[k].a]++] = sap->pairs[k];
    /* start[i] is now the end of a = i's run. */
    size_t begin = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t end = start[i];
        for (size_t k = begin + 1; k < end; k++) {
            kcbp_index_pair x = sap->scratch[k];
            size_t j = k;
            for (; j > begin && sap->scratch[j - 1].b > x.b; j--)
                sap->scratch[j] = sap->scratch[j - 1];
            sap->scratch[j] = x;
        }
        begin = end;
    }
    kcbp_index_pair *t = sap->pairs;
    size_t cap = sap->cap;
    sap->pairs = sap->scratch;
    sap->cap = sap->scratch_cap;
    sap->scratch = t;
    sap->scratch_cap = cap;
    return KCBP_OK;
}

/* Insertion sort that gives up after max_shifts moves; returns false then
 * (the array is still a permutation of the entries). */
static bool insertion_sort(kcbp_sap_entry *e, uint32_t n, uint64_t max_shifts, uint64_t *shifts)
{
    uint64_t moved = 0;
    for (uint32_t i = 1; i < n; i++) {
        kcbp_sap_entry x = e[i];
        uint32_t j = i;
        while (j > 0 && entry_less(&x, &e[j - 1])) {
            e[j] = e[j - 1];
            j--;
            if (++moved > max_shifts) {
                e[j] = x;
                *shifts = moved;
                return false;
            }
        }
        e[j] = x;
    }
    *shifts = moved;
    return true;
}

static int spread_axis(const kcbp_aabb *boxes, uint32_t n)
{
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 c = kcbp_aabb_center(boxes[i]);
        double v[3] = {c.x, c.y, c.z};
        for (int k = 0; k < 3; k++) {
            sum[k] += v[k];
            sum2[k] += v[k] * v[k];
        }
    }
    int best = 0;
    double best_var = -1;
    for (int k = 0; k < 3; k++) {
        double var = sum2[k] - sum[k] * sum[k] / (n ? n : 1);
        if (var > best_var) {
            best_var = var;
            best = k;
        }
    }
    return best;
}

static kcbp_status push_pair(kcbp_sap *sap, uint32_t a, uint32_t b, kcbp_error *err)
{
    if (!kcbp_grow(&sap->pairs, &sap->cap, sap->npairs + 1, sizeof *sap->pairs, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu broad-phase pairs", sap->npairs + 1);
    KCBP_ASSERT(a != b && a < sap->nboxes && b < sap->nboxes);
    sap->pairs[sap->npairs++] = a < b ? (kcbp_index_pair){a, b} : (kcbp_index_pair){b, a};
    return KCBP_OK;
}

kcbp_status kcbp_sap_update(kcbp_sap *sap, const kcbp_aabb *boxes, kcbp_error *err)
{
    uint32_t n = sap->nboxes;
    sap->npairs = 0;
    sap->shifts = 0;
    sap->full_sort = false;
    if (!sap->sorted_before)
        sap->axis = spread_axis(boxes, n);
    int ax = sap->axis;
    kcbp_sap_entry *e = sap->entries;
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_aabb *b = &boxes[e[i].id];
        e[i].lo = kcbp_v3_get(b->min, ax);
        e[i].hi = kcbp_v3_get(b->max, ax);
    }
    if (!sap->coherent || !sap->sorted_before ||
        !insertion_sort(e, n, (uint64_t)KCBP_SAP_MAX_SHIFTS_PER_BOX * n, &sap->shifts)) {
        qsort(e, n, sizeof *e, cmp_entry);
        sap->full_sort = true;
    }
    sap->sorted_before = true;
    for (uint32_t i = 1; i < n; i++)
        KCBP_ASSERT(e[i - 1].lo <= e[i].lo || (isnan(e[i - 1].lo) || isnan(e[i].lo))); /* sorted on lo */

    /* The other two axes. */
    int u = (ax + 1) % 3, w = (ax + 2) % 3;
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_aabb *bi = &boxes[e[i].id];
        double hi = e[i].hi;
        double ulo = kcbp_v3_get(bi->min, u), uhi = kcbp_v3_get(bi->max, u);
        double wlo = kcbp_v3_get(bi->min, w), whi = kcbp_v3_get(bi->max, w);
        for (uint32_t j = i + 1; j < n && e[j].lo <= hi; j++) {
            const kcbp_aabb *bj = &boxes[e[j].id];
            if (kcbp_v3_get(bj->min, u) <= uhi && ulo <= kcbp_v3_get(bj->max, u) && kcbp_v3_get(bj->min, w) <= whi &&
                wlo <= kcbp_v3_get(bj->max, w)) {
                kcbp_status st = push_pair(sap, e[i].id, e[j].id, err);
                if (st != KCBP_OK)
                    return st;
            }
        }
    }
    return sort_pairs(sap, err);
}
