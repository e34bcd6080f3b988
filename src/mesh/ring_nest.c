/* How closed rings nest, by a plane sweep (ring_nest.h).
 *
 * A line sweeps upward; at each height the edges it crosses are kept in a
 * treap in their left-to-right order just above that height (horizontal
 * edges are never crossed and are left out). Ring r is asked about at its
 * lowest vertex q (the leftmost of the lowest): just above q, the ring's
 * left edge there is the leftmost of its own edges, and the edge f just
 * before it in the treap sees the same rings around it as r: a point
 * between f and r's left edge is held by the rings that hold r. If the
 * side of f facing r is inside f's ring j, then j holds r and depth[r] =
 * depth[j] + 1, parent j; otherwise r lies beside j, with j's depth and
 * parent. Edges lying on one another (shapes sharing a side, an island
 * touching its hole along an edge) are ordered as a point crossing them
 * from left to right leaves and enters their rings (full_cmp), so that
 * "just before" still means that. Ring j's lowest vertex is no later than
 * q in the sweep (it is lower, or at q's height and left of it or at it),
 * so j is answered first: the rings asked at one height are answered
 * after the sweep reaches it, in dependency order.
 *
 * The order of the treap is decided by exact orientation signs at an
 * edge's lower end (the only points compared): an edge is inserted at its
 * lower end's height, after the edges ending there have been removed.
 * Rings that cross make the order inconsistent: the treap stays a treap
 * (removal is by node, not by search) and the answers are some answers. */
#include "mesh/ring_nest.h"

#include <stdlib.h>

#include "geom/predicates.h"

#define NONE UINT32_MAX

typedef struct {
    const kcbp_vec2 *pts;
    uint32_t *a, *b;    /* edge node n: from pts[a[n]] to pts[b[n]] in ring order */
    uint32_t *ring;     /* its ring */
    uint32_t *l, *r, *up, *prio; /* treap links (NONE) and heap priorities */
    uint32_t root;
    const unsigned char *ccw; /* per ring: counterclockwise (its turn at its lowest vertex) */
    const uint32_t *q;        /* per ring: its lowest vertex (the leftmost of them) */
    const long double *area;  /* per ring: |area| */
} sweep;

static int orient(kcbp_vec2 p, kcbp_vec2 q, kcbp_vec2 x)
{
    kcbp_v2 P = {p.x, p.y}, Q = {q.x, q.y}, X = {x.x, x.y};
    return kcbp_orient2d_v(P, Q, X);
}

static kcbp_vec2 lo_of(const sweep *s, uint32_t n)
{
    kcbp_vec2 a = s->pts[s->a[n]], b = s->pts[s->b[n]];
    return a.y < b.y ? a : b;
}

static kcbp_vec2 hi_of(const sweep *s, uint32_t n)
{
    kcbp_vec2 a = s->pts[s->a[n]], b = s->pts[s->b[n]];
    return a.y < b.y ? b : a;
}

/* Edge e (its lower end at the sweep's height) against edge f in the
 * treap, just above that height: < 0 left of f, > 0 right, 0 on it. */
static int geo_cmp(const sweep *s, uint32_t e, uint32_t f)
{
    kcbp_vec2 fl = lo_of(s, f), fh = hi_of(s, f);
    int o = orient(fl, fh, lo_of(s, e));
    if (!o)
        o = orient(fl, fh, hi_of(s, e));
    return -o;
}

/* Whether the ring's inside is right of edge n (+x, just above the
 * sweep's height). */
static bool inside_right(const sweep *s, uint32_t n)
{
    bool up = s->pts[s->b[n]].y > s->pts[s->a[n]].y;
    return s->ccw[s->ring[n]] ? !up : up; /* a counterclockwise ring has its inside on the left */
}

/* Rings by where they start: a ring that holds another starts no later
 * (its lowest vertex is lower, or as low and not right of it), and, from
 * the same vertex, is the larger. */
static int cmp_start(const sweep *s, uint32_t i, uint32_t j)
{
    kcbp_vec2 p = s->pts[s->q[i]], q = s->pts[s->q[j]];
    if (p.y != q.y)
        return p.y < q.y ? -1 : 1;
    if (p.x != q.x)
        return p.x < q.x ? -1 : 1;
    if (s->area[i] != s->area[j])
        return s->area[i] > s->area[j] ? -1 : 1;
    return (i > j) - (i < j);
}

/* The treap's order: geo_cmp, and edges on one another ordered as a point
 * crossing them from left to right leaves and enters their rings: first
 * the edges with their ring's inside on the left (inner rings first), then
 * those with it on the right (outer rings first); then by the edge's first
 * point (a total order). So the edge before a ring's left edge is the
 * nearest one whose right side the ring sees from outside. */
static int full_cmp(const sweep *s, uint32_t e, uint32_t f)
{
    int c = geo_cmp(s, e, f);
    if (c)
        return c;
    bool re = inside_right(s, e), rf = inside_right(s, f);
    if (re != rf)
        return re ? 1 : -1;
    if (s->ring[e] != s->ring[f]) {
        c = cmp_start(s, s->ring[e], s->ring[f]);
        return re ? c : -c;
    }
    return (s->a[e] > s->a[f]) - (s->a[e] < s->a[f]);
}

/* Turns x above its parent. */
static void rotate_up(sweep *s, uint32_t x)
{
    uint32_t p = s->up[x], g = s->up[p];
    if (s->l[p] == x) {
        s->l[p] = s->r[x];
        if (s->r[x] != NONE)
            s->up[s->r[x]] = p;
        s->r[x] = p;
    } else {
        s->r[p] = s->l[x];
        if (s->l[x] != NONE)
            s->up[s->l[x]] = p;
        s->l[x] = p;
    }
    s->up[p] = x;
    s->up[x] = g;
    if (g == NONE)
        s->root = x;
    else if (s->l[g] == p)
        s->l[g] = x;
    else
        s->r[g] = x;
}

static void insert(sweep *s, uint32_t e)
{
    s->l[e] = s->r[e] = s->up[e] = NONE;
    if (s->root == NONE) {
        s->root = e;
        return;
    }
    uint32_t f = s->root;
    for (;;) {
        uint32_t *next = full_cmp(s, e, f) < 0 ? &s->l[f] : &s->r[f];
        if (*next == NONE) {
            *next = e;
            s->up[e] = f;
            break;
        }
        f = *next;
    }
    while (s->up[e] != NONE && s->prio[e] < s->prio[s->up[e]])
        rotate_up(s, e);
}

static void remove_node(sweep *s, uint32_t e)
{
    while (s->l[e] != NONE || s->r[e] != NONE) {
        uint32_t c = s->l[e] == NONE                                   ? s->r[e]
                     : s->r[e] == NONE                                 ? s->l[e]
                     : s->prio[s->l[e]] < s->prio[s->r[e]] ? s->l[e] : s->r[e];
        rotate_up(s, c);
    }
    uint32_t p = s->up[e];
    if (p == NONE)
        s->root = NONE;
    else if (s->l[p] == e)
        s->l[p] = NONE;
    else
        s->r[p] = NONE;
    s->up[e] = NONE;
}

/* The edge before e in the treap's order, or NONE. */
static uint32_t left_of(const sweep *s, uint32_t e)
{
    if (s->l[e] != NONE) {
        uint32_t f = s->l[e];
        while (s->r[f] != NONE)
            f = s->r[f];
        return f;
    }
    uint32_t c = e, p = s->up[e];
    while (p != NONE && s->l[p] == c)
        c = p, p = s->up[p];
    return p;
}

typedef struct {
    double y;
    uint32_t i;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

bool kcbp_ring_nest(const kcbp_vec2 *pts, const uint32_t *ring_end, size_t nrings, uint32_t *depth, uint32_t *parent)
{
    size_t np = nrings ? ring_end[nrings - 1] : 0, ne = 0;
    for (size_t r = 0; r < nrings; r++) {
        size_t s = r ? ring_end[r - 1] : 0, t = ring_end[r];
        for (size_t k = s; k < t; k++)
            ne += pts[k].y != pts[k + 1 < t ? k + 1 : s].y;
    }
    sweep S = {.pts = pts, .root = NONE};
    size_t m = ne ? ne : 1, R = nrings ? nrings : 1;
    S.a = malloc(m * sizeof *S.a), S.b = malloc(m * sizeof *S.b), S.ring = malloc(m * sizeof *S.ring);
    S.l = malloc(m * sizeof *S.l), S.r = malloc(m * sizeof *S.r), S.up = malloc(m * sizeof *S.up);
    S.prio = malloc(m * sizeof *S.prio);
    uint32_t *node_of = malloc((np ? np : 1) * sizeof *node_of); /* edge from pts[k]: its node, or NONE */
    keyed *ins = malloc(m * sizeof *ins), *del = malloc(m * sizeof *del), *ask = malloc(R * sizeof *ask);
    uint32_t *left = malloc(R * sizeof *left), *pred = malloc(R * sizeof *pred), *stack = malloc(R * sizeof *stack);
    unsigned char *inside = malloc(R), *ccw = malloc(R), *state = calloc(R, 1);
    uint32_t *qv = malloc(R * sizeof *qv);
    long double *area = malloc(R * sizeof *area);
    S.ccw = ccw, S.q = qv, S.area = area;
    bool ok = S.a && S.b && S.ring && S.l && S.r && S.up && S.prio && node_of && ins && del && ask && left && pred &&
              stack && inside && ccw && state && qv && area;
    if (ok) {
        uint32_t x = 2463534242u; /* xorshift32, a fixed sequence: the same treap on every run */
        size_t n = 0;
        for (size_t r = 0; r < nrings; r++) {
            size_t s = r ? ring_end[r - 1] : 0, t = ring_end[r], q = s;
            for (size_t k = s; k < t; k++) {
                size_t k1 = k + 1 < t ? k + 1 : s;
                node_of[k] = NONE;
                if (pts[k].y < pts[q].y || (pts[k].y == pts[q].y && pts[k].x < pts[q].x))
                    q = k;
                if (pts[k].y == pts[k1].y)
                    continue;
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                S.a[n] = (uint32_t)k, S.b[n] = (uint32_t)k1, S.ring[n] = (uint32_t)r, S.prio[n] = x;
                S.l[n] = S.r[n] = S.up[n] = NONE;
                ins[n] = (keyed){lo_of(&S, (uint32_t)n).y, (uint32_t)n};
                del[n] = (keyed){hi_of(&S, (uint32_t)n).y, (uint32_t)n};
                node_of[k] = (uint32_t)n++;
            }
            /* the left edge at the lowest vertex q, and the ring's turn there */
            size_t qp = q > s ? q - 1 : t - 1, qn = q + 1 < t ? q + 1 : s;
            kcbp_vec2 P = pts[qp], Q = pts[q], N = pts[qn];
            int turn = orient(P, Q, N);
            ccw[r] = turn > 0;
            left[r] = NONE;
            if (P.y != Q.y && N.y != Q.y)
                left[r] = turn == 0 ? NONE : turn > 0 ? node_of[qp] : node_of[q]; /* turn > 0: P is left of Q->N */
            else if (P.y != Q.y)
                left[r] = node_of[qp];
            else if (N.y != Q.y)
                left[r] = node_of[q];
            ask[r] = (keyed){Q.y, (uint32_t)r};
            qv[r] = (uint32_t)q;
            long double a2 = 0;
            for (size_t k = s; k < t; k++) {
                kcbp_vec2 u = pts[k], v = pts[k + 1 < t ? k + 1 : s];
                a2 += ((long double)u.x - Q.x) * ((long double)v.y - Q.y) - ((long double)u.y - Q.y) * ((long double)v.x - Q.x);
            }
            area[r] = a2 < 0 ? -a2 : a2;
            depth[r] = 0, parent[r] = NONE, pred[r] = NONE, inside[r] = 0;
        }
        qsort(ins, ne, sizeof *ins, cmp_keyed);
        qsort(del, ne, sizeof *del, cmp_keyed);
        qsort(ask, nrings, sizeof *ask, cmp_keyed);
        size_t ii = 0, di = 0, ai = 0;
        while (ai < nrings) {
            double y = ask[ai].y;
            if (ii < ne && ins[ii].y < y)
                y = ins[ii].y;
            if (di < ne && del[di].y < y)
                y = del[di].y;
            for (; di < ne && del[di].y == y; di++)
                remove_node(&S, del[di].i);
            for (; ii < ne && ins[ii].y == y; ii++)
                insert(&S, ins[ii].i);
            size_t a0 = ai;
            for (; ai < nrings && ask[ai].y == y; ai++) {
                uint32_t r = ask[ai].i, e = left[r];
                state[r] = 1;
                uint32_t f = e == NONE ? NONE : left_of(&S, e);
                if (f == NONE || S.ring[f] == r)
                    continue;
                pred[r] = S.ring[f];
                inside[r] = inside_right(&S, f); /* the side facing r */
            }
            /* answers in dependency order (a chain of rings asked at this
             * height; a cycle, possible only when rings cross, ends it) */
            for (size_t k = a0; k < ai; k++) {
                uint32_t top = 0;
                if (state[ask[k].i] == 1)
                    stack[top++] = ask[k].i, state[ask[k].i] = 2;
                while (top) {
                    uint32_t r = stack[top - 1], j = pred[r];
                    if (j != NONE && state[j] == 1) {
                        stack[top++] = j, state[j] = 2;
                        continue;
                    }
                    if (j != NONE && state[j] == 3) {
                        depth[r] = inside[r] ? depth[j] + 1 : depth[j];
                        parent[r] = inside[r] ? j : parent[j];
                    }
                    state[r] = 3;
                    top--;
                }
            }
        }
    }
    free(S.a), free(S.b), free(S.ring), free(S.l), free(S.r), free(S.up), free(S.prio), free(node_of);
    free(ins), free(del), free(ask), free(left), free(pred), free(stack), free(inside), free(ccw), free(state), free(qv), free(area);
    return ok;
}
