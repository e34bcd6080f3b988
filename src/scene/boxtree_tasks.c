/* The broad phase's tree built on a pool's threads (boxtree.h). */
#include <string.h>

#include "base/util.h"
#include "boxtree.h"

#define BT_TASKS (1u << KCBP_BT_TASK_DEPTH)

/* Below this many objects the tree is built on the calling thread alone:
 * measured on an idle 2-core machine (bench/small_scenes.sh), handing the
 * subtrees on cost 100 objects 0.019 -> 0.035-0.042 ms of broad phase and
 * saved nothing at 1,000 (0.27 ms either way); 10^4 objects gain
 * 2.7 -> 1.7-1.9 ms. */
#define BT_THREADS_MIN 1024u

typedef struct {
    kcbp_boxtree *t;
    const kcbp_bt_item *sub; /* the subtrees, in the order they are laid */
    const uint32_t *at;      /* where subtree i's nodes start (below its root) */
    const uint32_t *by_size; /* task k builds subtree by_size[k]: the largest first */
    uint32_t *end;           /* where they end */
    double *sum;             /* their internal nodes' areas, the root's excluded */
} sub_ctx;

static void sub_task(void *ctx, uint64_t k, unsigned worker)
{
    (void)worker;
    sub_ctx *c = ctx;
    uint32_t i = c->by_size[k];
    uint32_t next = c->at[i];
    kcbp_bt_build_from(c->t, c->t->nodes, &next, c->sub[i], UINT32_MAX, NULL, NULL);
    c->end[i] = next;
    c->sum[i] = kcbp_bt_refit(c->t, c->t->nodes, c->at[i], next);
}

kcbp_status kcbp_boxtree_build_on(kcbp_boxtree *t, const kcbp_aabb *boxes, const uint32_t *ids, uint32_t n,
                                  kcbp_pool *pool, kcbp_error *err)
{
    /* Subtree i of m objects has at most 2m - 2 nodes below its root, at
     * nodes[at[i] ..): the top's nodes, then room for each subtree in turn
     * (2n - 2 in all, less the top's), closed up once they are built. */
    if (n < BT_THREADS_MIN)
        pool = NULL;
    kcbp_status st = kcbp_bt_start(t, boxes, ids, n, 2 * BT_TASKS, err);
    if (st != KCBP_OK || n == 0)
        return st;
    kcbp_bt_item sub[BT_TASKS];
    uint32_t nsub = 0;
    t->nnodes = 1;
    kcbp_bt_build_from(t, t->nodes, &t->nnodes, (kcbp_bt_item){0, 0, n, 0}, KCBP_BT_TASK_DEPTH, sub, &nsub);
    uint32_t top = t->nnodes;
    uint32_t at[BT_TASKS], end[BT_TASKS], by_size[BT_TASKS];
    double sum[BT_TASKS];
    uint32_t room = top;
    for (uint32_t i = 0; i < nsub; i++) {
        at[i] = room;
        room += 2 * (sub[i].end - sub[i].begin) - 2;
        by_size[i] = i;
    }
    KCBP_ASSERT(room <= t->cap_nodes);
    for (uint32_t i = 1; i < nsub; i++) { /* largest first: two threads end together */
        uint32_t v = by_size[i], j = i;
        for (; j > 0 && sub[by_size[j - 1]].end - sub[by_size[j - 1]].begin < sub[v].end - sub[v].begin; j--)
            by_size[j] = by_size[j - 1];
        by_size[j] = v;
    }
    sub_ctx c = {t, sub, at, by_size, end, sum};
    kcbp_pool_run_with_caller(pool, nsub, sub_task, &c);
    /* Close up: subtree i's nodes move down by at[i] - its place, and so do
     * the links into them (its root's and its internal nodes'). */
    uint32_t next = top;
    double total = 0;
    for (uint32_t i = 0; i < nsub; i++) {
        uint32_t len = end[i] - at[i], shift = at[i] - next;
        if (shift) {
            memmove(&t->nodes[next], &t->nodes[at[i]], (size_t)len * sizeof *t->nodes);
            for (uint32_t k = next; k < next + len; k++)
                if (t->nodes[k].count == 0)
                    t->nodes[k].first -= shift;
            t->nodes[sub[i].node].first -= shift;
        }
        next += len;
        total += sum[i];
    }
    t->nnodes = next;
    total += kcbp_bt_refit(t, t->nodes, 0, top);
    t->cost = t->cost_built = kcbp_bt_cost(t, total);
    return KCBP_OK;
}

kcbp_status kcbp_boxtree_update_on(kcbp_boxtree *t, const kcbp_aabb *boxes, bool rebuild, kcbp_pool *pool,
                                   kcbp_error *err)
{
    if (kcbp_bt_refit_keeps(t, boxes, rebuild))
        return KCBP_OK;
    const uint32_t *ids;
    kcbp_status st = kcbp_bt_rebuild_ids(t, &ids, err);
    return st == KCBP_OK ? kcbp_boxtree_build_on(t, boxes, ids, t->nobjects, pool, err) : st;
}
