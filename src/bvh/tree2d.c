/* The 2D edge tree (tree2d.h). */
#include "bvh/tree2d.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const kcbp_vec2 *v;
    const uint32_t *next;
    int axis;
} key_ctx;

/* Twice the edge's midpoint along the axis (a sum: no division). */
static inline double key(const key_ctx *k, uint32_t e)
{
    kcbp_vec2 p = k->v[e], q = k->v[k->next[e]];
    return k->axis ? p.y + q.y : p.x + q.x;
}

/* Hoare's selection: order[lo..hi) rearranged so that order[mid] has the
 * key it would have sorted, smaller or equal keys before it, larger or
 * equal after. */
static void select_median(const key_ctx *k, uint32_t *o, uint32_t lo, uint32_t hi, uint32_t mid)
{
    while (hi - lo > 1) {
        double pivot = key(k, o[lo + (hi - lo) / 2]);
        uint32_t i = lo, j = hi - 1;
        while (i <= j) {
            while (key(k, o[i]) < pivot)
                i++;
            while (key(k, o[j]) > pivot)
                j--;
            if (i <= j) {
                uint32_t t = o[i];
                o[i] = o[j], o[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        /* [lo, j] <= pivot <= [i, hi) */
        if (mid <= j)
            hi = j + 1;
        else if (mid >= i)
            lo = i;
        else
            return;
    }
}

static void node_box(const kcbp_vec2 *v, const uint32_t *next, const uint32_t *o, uint32_t first, uint32_t count,
                     kcbp2d_node *nd)
{
    kcbp_vec2 lo = v[o[first]], hi = lo;
    for (uint32_t i = first; i < first + count; i++) {
        kcbp_vec2 p = v[o[i]], q = v[next[o[i]]];
        /* plain comparisons: fmin and fmax are calls (NaN rules), and the
         * coordinates are finite */
        lo.x = p.x < lo.x ? p.x : lo.x, lo.x = q.x < lo.x ? q.x : lo.x;
        lo.y = p.y < lo.y ? p.y : lo.y, lo.y = q.y < lo.y ? q.y : lo.y;
        hi.x = p.x > hi.x ? p.x : hi.x, hi.x = q.x > hi.x ? q.x : hi.x;
        hi.y = p.y > hi.y ? p.y : hi.y, hi.y = q.y > hi.y ? q.y : hi.y;
    }
    nd->lo = lo, nd->hi = hi;
}

kcbp_status kcbp2d_tree_build(kcbp2d_tree *t, const kcbp_vec2 *v, const uint32_t *next, uint32_t n, kcbp_error *err)
{
    t->nodes = NULL, t->order = NULL, t->nnodes = 0;
    size_t cap = 2 * (size_t)n; /* a binary tree with n leaves at most has 2n - 1 nodes */
    t->nodes = malloc(cap * sizeof *t->nodes);
    t->order = malloc((size_t)n * sizeof *t->order);
    /* pending nodes: (node, first, count). Depth-first, each pop pushes at
     * most two, and halving sizes bound the depth by 33 for 32-bit counts:
     * at most 2 * 33 + 1 pending at once. */
    enum { PENDING_MAX = 2 * 33 + 2 };
    uint32_t *stack = malloc(3 * PENDING_MAX * sizeof *stack);
    if (!t->nodes || !t->order || !stack) {
        free(stack);
        kcbp2d_tree_free(t);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory for the edge tree of %u edges",
                              (unsigned)n);
    }
    for (uint32_t i = 0; i < n; i++)
        t->order[i] = i;
    uint32_t nn = 1, sp = 0;
    stack[sp++] = 0, stack[sp++] = 0, stack[sp++] = n;
    while (sp) {
        uint32_t count = stack[--sp], first = stack[--sp], id = stack[--sp];
        kcbp2d_node *nd = &t->nodes[id];
        node_box(v, next, t->order, first, count, nd);
        if (count <= KCBP2D_TREE_LEAF) {
            nd->first = first, nd->count = count;
            continue;
        }
        key_ctx k = {v, next, (nd->hi.y - nd->lo.y) > (nd->hi.x - nd->lo.x)};
        uint32_t half = count / 2;
        select_median(&k, t->order, first, first + count, first + half);
        nd->first = nn, nd->count = 0;
        uint32_t l = nn, r = nn + 1;
        nn += 2;
        stack[sp++] = l, stack[sp++] = first, stack[sp++] = half;
        stack[sp++] = r, stack[sp++] = first + half, stack[sp++] = count - half;
    }
    free(stack);
    t->nnodes = nn;
    return KCBP_OK;
}

void kcbp2d_tree_free(kcbp2d_tree *t)
{
    free(t->nodes);
    free(t->order);
    t->nodes = NULL, t->order = NULL, t->nnodes = 0;
}
