/* The 2D edge tree (tree2d.h). */
#include "bvh/tree2d.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const kcbp_vec2 *v;
    const uint32_t *next;
    int axis;
    uint64_t steps; /* partition steps taken */
} key_ctx;

/* Twice the edge's midpoint along the axis (a sum: no division). */
static inline double key(const key_ctx *k, uint32_t e)
{
    kcbp_vec2 p = k->v[e], q = k->v[k->next[e]];
    return k->axis ? p.y + q.y : p.x + q.x;
}

static inline double med3(double a, double b, double c)
{
    return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
}

/* Hoare's selection: order[lo..hi) rearranged so that order[mid] has the
 * key it would have sorted, smaller or equal keys before it, larger or
 * equal after. The pivot is the median of three keys at pseudo-random
 * places (a fixed sequence: the tree depends only on the input): the
 * middle place's key alone made a ring of vertices in angular order (a
 * circle of 200,000 vertices to 6 decimals, from a GeoJSON file)
 * quadratic, each step cutting off a few vertices: 14 s to build. */
static void select_median(key_ctx *k, uint32_t *o, uint32_t lo, uint32_t hi, uint32_t mid)
{
    uint64_t s = 0x9E3779B97F4A7C15ull ^ hi;
    while (hi - lo > 1) {
        uint32_t pl[3];
        for (int q = 0; q < 3; q++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            pl[q] = lo + (uint32_t)((s >> 33) % (hi - lo));
        }
        double pivot = med3(key(k, o[pl[0]]), key(k, o[pl[1]]), key(k, o[pl[2]]));
        k->steps += hi - lo;
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

/* The node's oriented box: the endpoints' principal axis (the covariance's
 * eigenvector, by the double-angle formula), their extents along it and
 * across, each half side padded by pad (the caller's bound on the rounding
 * of the centre, the axis and the projections). */
static void node_obb(const kcbp_vec2 *v, const uint32_t *next, const uint32_t *o, uint32_t first, uint32_t count,
                     double pad, kcbp2d_obb *b)
{
    double mx = 0, my = 0;
    for (uint32_t i = first; i < first + count; i++) {
        kcbp_vec2 p = v[o[i]], q = v[next[o[i]]];
        mx += p.x + q.x, my += p.y + q.y;
    }
    mx /= 2.0 * count, my /= 2.0 * count;
    double sxx = 0, syy = 0, sxy = 0;
    for (uint32_t i = first; i < first + count; i++) {
        kcbp_vec2 p = v[o[i]], q = v[next[o[i]]];
        double ax = p.x - mx, ay = p.y - my, bx = q.x - mx, by = q.y - my;
        sxx += ax * ax + bx * bx, syy += ay * ay + by * by, sxy += ax * ay + bx * by;
    }
    double th = 0.5 * atan2(2 * sxy, sxx - syy);
    kcbp_vec2 u = {cos(th), sin(th)};
    double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY;
    for (uint32_t i = first; i < first + count; i++) {
        kcbp_vec2 pq[2] = {v[o[i]], v[next[o[i]]]};
        for (int k = 0; k < 2; k++) {
            double dx = pq[k].x - mx, dy = pq[k].y - my;
            double s0 = dx * u.x + dy * u.y, s1 = dy * u.x - dx * u.y;
            lo0 = s0 < lo0 ? s0 : lo0, hi0 = s0 > hi0 ? s0 : hi0;
            lo1 = s1 < lo1 ? s1 : lo1, hi1 = s1 > hi1 ? s1 : hi1;
        }
    }
    double m0 = 0.5 * (lo0 + hi0), m1 = 0.5 * (lo1 + hi1);
    b->c = kcbp_v2_make(mx + m0 * u.x - m1 * u.y, my + m0 * u.y + m1 * u.x);
    b->u = u;
    b->h = kcbp_v2_make(0.5 * (hi0 - lo0) + pad, 0.5 * (hi1 - lo1) + pad);
}

kcbp_status kcbp2d_tree_build(kcbp2d_tree *t, const kcbp_vec2 *v, const uint32_t *next, uint32_t n, kcbp_error *err)
{
    t->nodes = NULL, t->order = NULL, t->obbs = NULL, t->nnodes = 0, t->build_steps = 0;
    size_t cap = 2 * (size_t)n; /* a binary tree with n leaves at most has 2n - 1 nodes */
    t->nodes = malloc(cap * sizeof *t->nodes);
    t->obbs = malloc(cap * sizeof *t->obbs);
    t->order = malloc((size_t)n * sizeof *t->order);
    /* pending nodes: (node, first, count). Depth-first, each pop pushes at
     * most two, and halving sizes bound the depth by 33 for 32-bit counts:
     * at most 2 * 33 + 1 pending at once. */
    enum { PENDING_MAX = 2 * 33 + 2 };
    uint32_t *stack = malloc(3 * PENDING_MAX * sizeof *stack);
    if (!t->nodes || !t->order || !t->obbs || !stack) {
        free(stack);
        kcbp2d_tree_free(t);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D model: out of memory for the edge tree of %u edges",
                              (unsigned)n);
    }
    /* the oriented boxes' pad: the centre, the axis and each projection
     * are a few roundings of quantities up to 2S (S the largest coordinate
     * magnitude), far below 64 u 2S */
    double sc = 0;
    for (uint32_t i = 0; i < n; i++) {
        t->order[i] = i;
        double x = fabs(v[i].x), y = fabs(v[i].y);
        sc = x > sc ? x : sc;
        sc = y > sc ? y : sc;
    }
    double pad = 128 * 0x1p-53 * sc;
    uint32_t nn = 1, sp = 0;
    stack[sp++] = 0, stack[sp++] = 0, stack[sp++] = n;
    while (sp) {
        uint32_t count = stack[--sp], first = stack[--sp], id = stack[--sp];
        kcbp2d_node *nd = &t->nodes[id];
        node_box(v, next, t->order, first, count, nd);
        node_obb(v, next, t->order, first, count, pad, &t->obbs[id]);
        if (count <= KCBP2D_TREE_LEAF) {
            nd->first = first, nd->count = count;
            continue;
        }
        key_ctx k = {v, next, (nd->hi.y - nd->lo.y) > (nd->hi.x - nd->lo.x), 0};
        uint32_t half = count / 2;
        select_median(&k, t->order, first, first + count, first + half);
        t->build_steps += k.steps;
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
    free(t->obbs);
    t->nodes = NULL, t->order = NULL, t->obbs = NULL, t->nnodes = 0;
}
