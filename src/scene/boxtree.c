#include "boxtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Below this depth the build splits by the surface area heuristic; from it
 * on, at the middle of the list: the depth stays below BT_MAX_DEPTH for any
 * boxes (48 + log2 of 2^32), which bounds the query's stack. */
#define BT_SAH_DEPTH 48
#define BT_MAX_DEPTH 96
#define BT_BINS 16

void kcbp_boxtree_init(kcbp_boxtree *t) { memset(t, 0, sizeof *t); }

void kcbp_boxtree_free(kcbp_boxtree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->order);
    free(t->lbox);
    free(t->scratch_ids);
    free(t->scratch_box);
    memset(t, 0, sizeof *t);
}

static inline double area(const kcbp_aabb *b)
{
    double x = b->max.x - b->min.x, y = b->max.y - b->min.y, z = b->max.z - b->min.z;
    return x * y + y * z + z * x;
}

static inline void grow_box(kcbp_aabb *acc, const kcbp_aabb *b)
{
    acc->min.x = b->min.x < acc->min.x ? b->min.x : acc->min.x;
    acc->min.y = b->min.y < acc->min.y ? b->min.y : acc->min.y;
    acc->min.z = b->min.z < acc->min.z ? b->min.z : acc->min.z;
    acc->max.x = b->max.x > acc->max.x ? b->max.x : acc->max.x;
    acc->max.y = b->max.y > acc->max.y ? b->max.y : acc->max.y;
    acc->max.z = b->max.z > acc->max.z ? b->max.z : acc->max.z;
}

static const kcbp_aabb empty_box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};

/* A box's centre times 2, on one axis. */
static inline double centre2(const kcbp_aabb *b, int axis)
{
    return axis == 0 ? b->min.x + b->max.x : axis == 1 ? b->min.y + b->max.y : b->min.z + b->max.z;
}

static inline int bin_of(double c, double lo, double scale)
{
    int k = (int)((c - lo) * scale);
    return k < 0 ? 0 : k >= BT_BINS ? BT_BINS - 1 : k;
}

static kcbp_status reserve(kcbp_boxtree *t, uint32_t n, uint32_t extra_nodes, kcbp_error *err)
{
    size_t need_nodes = (n ? 2 * (size_t)n - 1 : 1) + extra_nodes;
    if (t->cap_nodes < need_nodes) {
        kcbp_bt_node *g = realloc(t->nodes, need_nodes * sizeof *g);
        if (!g)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a broad phase of %u objects", n);
        t->nodes = g;
        t->cap_nodes = need_nodes;
    }
    if (t->cap_objects < (size_t)n || !t->order) {
        size_t cap = n ? n : 1;
        uint32_t *o = realloc(t->order, cap * sizeof *o);
        if (o)
            t->order = o;
        kcbp_aabb *b = o ? realloc(t->lbox, cap * sizeof *b) : NULL;
        if (b)
            t->lbox = b;
        if (!o || !b)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a broad phase of %u objects", n);
        t->cap_objects = cap;
    }
    return KCBP_OK;
}

double kcbp_bt_refit(const kcbp_boxtree *t, kcbp_bt_node *nodes, uint32_t lo, uint32_t hi)
{
    double sum = 0;
    for (uint32_t i = hi; i-- > lo;) {
        kcbp_bt_node *nd = &nodes[i];
        if (nd->count) {
            kcbp_aabb b = t->lbox[nd->first];
            for (uint32_t k = 1; k < nd->count; k++)
                grow_box(&b, &t->lbox[nd->first + k]);
            nd->box = b;
        } else {
            kcbp_aabb b = nodes[nd->first].box;
            grow_box(&b, &nodes[nd->first + 1].box);
            nd->box = b;
            sum += area(&b);
        }
    }
    return sum;
}

/* The SAH cost of the tree, relative to its root's area (plus one: a tree
 * of points has none), and every node's box from its children's. */
static double refit_nodes(kcbp_boxtree *t)
{
    return kcbp_bt_cost(t, kcbp_bt_refit(t, t->nodes, 0, t->nnodes));
}

double kcbp_bt_cost(const kcbp_boxtree *t, double sum)
{
    double root = t->nnodes ? area(&t->nodes[0].box) : 0;
    return root > 0 ? sum / root : 0;
}

kcbp_status kcbp_bt_start(kcbp_boxtree *t, const kcbp_aabb *boxes, const uint32_t *ids, uint32_t n,
                          uint32_t extra_nodes, kcbp_error *err)
{
    kcbp_status st = reserve(t, n, extra_nodes, err);
    if (st != KCBP_OK)
        return st;
    t->nobjects = n;
    t->nnodes = 0;
    t->rebuilt = true;
    t->builds++;
    for (uint32_t k = 0; k < n; k++) {
        t->order[k] = ids ? ids[k] : k;
        t->lbox[k] = boxes[t->order[k]];
    }
    if (n == 0)
        t->cost = t->cost_built = 0;
    return KCBP_OK;
}

/* Where objects [begin, end) of a node of depth `depth`, more than a
 * leaf's, split: the right part's first; the objects partitioned. */
static uint32_t split_objects(kcbp_boxtree *t, uint32_t begin, uint32_t end, uint32_t depth)
{
    uint32_t count = end - begin;
    /* The centres' bounds. */
    kcbp_aabb cb = empty_box;
    for (uint32_t k = begin; k < end; k++) {
        const kcbp_aabb *b = &t->lbox[k];
        kcbp_aabb c = {{b->min.x + b->max.x, b->min.y + b->max.y, b->min.z + b->max.z},
                       {b->min.x + b->max.x, b->min.y + b->max.y, b->min.z + b->max.z}};
        grow_box(&cb, &c);
    }
    double ext[3] = {cb.max.x - cb.min.x, cb.max.y - cb.min.y, cb.max.z - cb.min.z};
    int axis = ext[0] >= ext[1] && ext[0] >= ext[2] ? 0 : ext[1] >= ext[2] ? 1 : 2;
    double lo = axis == 0 ? cb.min.x : axis == 1 ? cb.min.y : cb.min.z;
    uint32_t mid = begin + count / 2;
    if (ext[axis] > 0 && isfinite(ext[axis]) && depth < BT_SAH_DEPTH) {
        double scale = BT_BINS / ext[axis];
        uint32_t bin_n[BT_BINS] = {0};
        kcbp_aabb bin_b[BT_BINS];
        for (int k = 0; k < BT_BINS; k++)
            bin_b[k] = empty_box;
        for (uint32_t k = begin; k < end; k++) {
            int bk = bin_of(centre2(&t->lbox[k], axis), lo, scale);
            bin_n[bk]++;
            grow_box(&bin_b[bk], &t->lbox[k]);
        }
        /* Costs of the splits after bin s - 1: the right sides swept first. */
        double right_cost[BT_BINS];
        kcbp_aabb acc = empty_box;
        uint32_t cnt = 0;
        for (int s = BT_BINS - 1; s >= 1; s--) {
            cnt += bin_n[s];
            if (bin_n[s])
                grow_box(&acc, &bin_b[s]);
            right_cost[s] = cnt ? area(&acc) * cnt : 0;
        }
        acc = empty_box;
        cnt = 0;
        int best = -1;
        double best_cost = INFINITY;
        for (int s = 1; s < BT_BINS; s++) {
            cnt += bin_n[s - 1];
            if (bin_n[s - 1])
                grow_box(&acc, &bin_b[s - 1]);
            if (cnt == 0 || cnt == count)
                continue;
            double c = area(&acc) * cnt + right_cost[s];
            if (c < best_cost) {
                best_cost = c;
                best = s;
            }
        }
        if (best > 0) {
            /* Partition: bins below best first (order and boxes together). */
            uint32_t i = begin, j = end;
            while (i < j) {
                if (bin_of(centre2(&t->lbox[i], axis), lo, scale) < best) {
                    i++;
                } else {
                    j--;
                    uint32_t to = t->order[i];
                    t->order[i] = t->order[j];
                    t->order[j] = to;
                    kcbp_aabb tb = t->lbox[i];
                    t->lbox[i] = t->lbox[j];
                    t->lbox[j] = tb;
                }
            }
            if (i > begin && i < end)
                mid = i;
        }
    }
    return mid;
}

void kcbp_bt_build_from(kcbp_boxtree *t, kcbp_bt_node *nodes, uint32_t *nnodes, kcbp_bt_item root, uint32_t stop_depth,
                        kcbp_bt_item *pending, uint32_t *npending)
{
    /* The stack holds at most one pending sibling per level. */
    kcbp_bt_item stack[BT_MAX_DEPTH + 2];
    int sp = 0;
    stack[sp++] = root;
    while (sp > 0) {
        kcbp_bt_item it = stack[--sp];
        kcbp_bt_node *nd = &nodes[it.node];
        uint32_t count = it.end - it.begin;
        if (count <= KCBP_BT_LEAF) {
            nd->first = it.begin;
            nd->count = count;
            continue;
        }
        if (it.depth >= stop_depth) {
            pending[(*npending)++] = it;
            continue;
        }
        uint32_t mid = split_objects(t, it.begin, it.end, it.depth);
        uint32_t child = *nnodes;
        *nnodes += 2;
        nd->first = child;
        nd->count = 0;
        KCBP_ASSERT(sp + 2 <= BT_MAX_DEPTH + 2 && it.depth + 1 < BT_MAX_DEPTH);
        stack[sp++] = (kcbp_bt_item){child + 1, mid, it.end, it.depth + 1};
        stack[sp++] = (kcbp_bt_item){child, it.begin, mid, it.depth + 1};
    }
}

kcbp_status kcbp_boxtree_build(kcbp_boxtree *t, const kcbp_aabb *boxes, const uint32_t *ids, uint32_t n,
                               kcbp_error *err)
{
    kcbp_status st = kcbp_bt_start(t, boxes, ids, n, 0, err);
    if (st != KCBP_OK || n == 0)
        return st;
    t->nnodes = 1;
    kcbp_bt_build_from(t, t->nodes, &t->nnodes, (kcbp_bt_item){0, 0, n, 0}, UINT32_MAX, NULL, NULL);
    t->cost = t->cost_built = refit_nodes(t);
    return KCBP_OK;
}

bool kcbp_bt_refit_keeps(kcbp_boxtree *t, const kcbp_aabb *boxes, bool rebuild)
{
    if (rebuild || t->nnodes == 0)
        return false;
    t->rebuilt = false;
    t->refits++;
    for (uint32_t k = 0; k < t->nobjects; k++)
        t->lbox[k] = boxes[t->order[k]];
    t->cost = refit_nodes(t);
    return !(t->cost > KCBP_BT_REBUILD_RATIO * t->cost_built + 1);
}

kcbp_status kcbp_bt_rebuild_ids(kcbp_boxtree *t, const uint32_t **ids, kcbp_error *err)
{
    /* the same objects, in their present leaf order (any order gives the same pairs) */
    uint32_t n = t->nobjects;
    if (t->cap_scratch < (size_t)n + 1) {
        uint32_t *g = realloc(t->scratch_ids, ((size_t)n + 1) * sizeof *g);
        if (!g)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a broad phase of %u objects", n);
        t->scratch_ids = g;
        t->cap_scratch = (size_t)n + 1;
    }
    memcpy(t->scratch_ids, t->order, (size_t)n * sizeof *t->order);
    *ids = t->scratch_ids;
    return KCBP_OK;
}

kcbp_status kcbp_boxtree_update(kcbp_boxtree *t, const kcbp_aabb *boxes, bool rebuild, kcbp_error *err)
{
    if (kcbp_bt_refit_keeps(t, boxes, rebuild))
        return KCBP_OK;
    const uint32_t *ids;
    kcbp_status st = kcbp_bt_rebuild_ids(t, &ids, err);
    return st == KCBP_OK ? kcbp_boxtree_build(t, boxes, ids, t->nobjects, err) : st;
}

/* The descent of both queries: objects overlapping q, with an id above
 * min_id (by_place false) or a leaf place above min_id (by_place true). */
static size_t query(const kcbp_boxtree *t, const kcbp_aabb *q, int64_t min_id, bool by_place, uint32_t **out,
                    size_t *cap, size_t count)
{
    if (t->nobjects == 0 || !kcbp_bt_overlap(&t->nodes[0].box, q))
        return count;
    uint32_t stack[BT_MAX_DEPTH + 2];
    int sp = 0;
    uint32_t i = 0;
    for (;;) {
        const kcbp_bt_node *nd = &t->nodes[i];
        if (nd->count) {
            for (uint32_t k = nd->first, e = nd->first + nd->count; k < e; k++) {
                uint32_t id = t->order[k];
                if ((int64_t)(by_place ? k : id) <= min_id || !kcbp_bt_overlap(&t->lbox[k], q))
                    continue;
                if (!kcbp_bt_push(out, cap, count++, id))
                    return SIZE_MAX;
            }
        } else {
            uint32_t l = nd->first;
            bool ol = kcbp_bt_overlap(&t->nodes[l].box, q), orr = kcbp_bt_overlap(&t->nodes[l + 1].box, q);
            if (ol) {
                if (orr)
                    stack[sp++] = l + 1;
                i = l;
                continue;
            }
            if (orr) {
                i = l + 1;
                continue;
            }
        }
        if (sp == 0)
            break;
        i = stack[--sp];
    }
    return count;
}

size_t kcbp_boxtree_query(const kcbp_boxtree *t, const kcbp_aabb *q, int64_t min_id, uint32_t **out, size_t *cap,
                          size_t count)
{
    return query(t, q, min_id, false, out, cap, count);
}

size_t kcbp_boxtree_query_after(const kcbp_boxtree *t, const kcbp_aabb *q, uint32_t k, uint32_t **out, size_t *cap,
                                size_t count)
{
    return query(t, q, k, true, out, cap, count);
}

static int cmp_u32(const void *p, const void *q)
{
    uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return (a > b) - (a < b);
}

void kcbp_sort_ids(uint32_t *ids, size_t n)
{
    if (n > 24) {
        qsort(ids, n, sizeof *ids, cmp_u32);
        return;
    }
    for (size_t k = 1; k < n; k++) {
        uint32_t x = ids[k];
        size_t j = k;
        for (; j > 0 && ids[j - 1] > x; j--)
            ids[j] = ids[j - 1];
        ids[j] = x;
    }
}
