/* The triangulation of the mesh files' polygons (polygon.h).
 *
 * After the projection, everything works on the projected coordinates of
 * the face's vertices by their places in the face (positions 0..n-1), and
 * decides with exact signs (kcbp_orient2d_v) and exact comparisons of
 * doubles. Triangles are written to out as positions while they are made,
 * and turned into vertex indices at the end, each rotated to start at its
 * earliest position: for a simple polygon the three positions of any
 * triangle of a triangulation come in the polygon's order, so the triangle
 * then has the polygon's winding.
 *
 * The sweep (rule 5) goes through the vertices in lexicographic order of
 * (u, w) (a vertical sweep line, turned by an infinitesimal angle so that
 * no two vertices are on it at once: vertical edges are nothing special).
 * Its status is the list of edges the line crosses, bottom to top, in an
 * AVL tree whose nodes are the edges themselves; between two consecutive
 * edges lies either the outside or a region of the polygon (inside_above
 * says which, by parity, never by the polygon's orientation). Each region
 * keeps the part of it left of the line that is not triangulated yet as a
 * reflex chain (de Berg et al., Computational Geometry, section 3.3, the
 * triangulation of a monotone polygon), and the split and merge vertices
 * of the monotone decomposition are handled in place: a split vertex
 * divides its region's chain at the chain's top (the helper), a merge
 * vertex leaves its region two chains until the next vertex in it joins
 * them. Only strictly convex corners are cut from a chain, and every other
 * triangle is a fan from a vertex w to a chain c_0 .. c_k whose other side
 * is one edge from c_0 to w; a zero-area fan triangle (c_i, c_i+1, w) would
 * put c_i+1 on or below that edge (the chain c_0 .. c_k, w is reflex), so
 * a simple polygon gets no zero-area triangle. The same sweep checks, as
 * Shamos and Hoey's does, every pair of edges that become neighbours in
 * the status (and a vertex against the edges beside it) and stops at the
 * first that meet: up to the leftmost intersection of a polygon that is not
 * simple the status is ordered consistently, so one of its pairs becomes
 * neighbours, and is found, before the line passes it. */
#include "polygon.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "geom/predicates.h"

#define NIL UINT32_MAX

enum { SIDE_NONE = -1, SIDE_LOWER = 0, SIDE_UPPER = 1 };

/* A node of a reflex chain: a stack linked downwards. */
typedef struct {
    uint32_t v, below;
} chain_node;

/* An interior region of the sweep: the part of the polygon between two
 * consecutive edges of the sweep line's status, lower and upper. Its part
 * left of the sweep line that is not triangulated yet is bounded by chain c
 * (c_0 .. c_k, top c_k: c_1 .. c_k on side cside, reflex; c_0 the left end
 * of the other side's edge, c_k the left end of cside's edge), or, after a
 * merge vertex m, by two chains: c (ending at m, on the upper side of the
 * region below m) and d (ending at m, on the lower side of the region
 * above m). */
typedef struct {
    uint32_t lower, upper;
    uint32_t c, clen;
    uint32_t d, dlen; /* dlen 0: no pending merge */
    int cside;
    uint32_t next_free;
} region;

typedef struct {
    double x, y;
    uint32_t i;
} sort_item;

static int cmp_item(const void *p, const void *q)
{
    const sort_item *a = p, *b = q;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* A face being cut: its projected coordinates, and the triangles written
 * so far. In the sweep, local index i stands for position ring[i]. */
typedef struct {
    kcbp_polygon_scratch *s;
    double *uv; /* by position */
    sort_item *items; /* the sweep's sort; before it, a stack of 6 n entries */
    kcbp_tri *out;    /* triangles as positions, then as vertex indices */
    size_t nt;
    /* the ring (what is left after the zero-area corners) */
    uint32_t *ring, m;
    uint32_t *prev, *next; /* by position during the corner cuts; then the ring's links, by local index */
    /* the sweep */
    uint32_t *order;
    uint32_t *tl, *tr, *tp; /* the status tree (AVL), nodes = edges; edge i joins local i and i + 1 */
    uint8_t *th;            /* node heights; 0: not in the tree */
    uint8_t *inside_above;
    uint32_t *reg;
    uint32_t root;
    region *regions;
    uint32_t nregions, free_region;
    chain_node *chain;
    uint32_t nchain, free_chain;
    bool check_only; /* kcbp_polygon_rings_check: the sweep's intersection test alone, and the rings' turn */
    bool fail;   /* the sweep found the ring not simple (or could not go on) */
    bool nomem;
} poly_ctx;

/* ------------------------------------------------------------ geometry --- */

static inline kcbp_v2 pt(const poly_ctx *c, uint32_t pos)
{
    kcbp_v2 p = {c->uv[2 * (size_t)pos], c->uv[2 * (size_t)pos + 1]};
    return p;
}

/* orient2d of three positions, exact. */
static inline int o2p(const poly_ctx *c, uint32_t a, uint32_t b, uint32_t d)
{
    return kcbp_orient2d_v(pt(c, a), pt(c, b), pt(c, d));
}

/* Lexicographic order of the points of two positions: -1, 0 (same point), 1. */
static inline int lex(const poly_ctx *c, uint32_t a, uint32_t b)
{
    kcbp_v2 p = pt(c, a), q = pt(c, b);
    if (p.x != q.x)
        return p.x < q.x ? -1 : 1;
    if (p.y != q.y)
        return p.y < q.y ? -1 : 1;
    return 0;
}

/* b lies strictly between a and d, all three in line. */
static inline bool strictly_between(const poly_ctx *c, uint32_t a, uint32_t b, uint32_t d)
{
    int x = lex(c, a, b), y = lex(c, b, d);
    return x != 0 && x == y;
}

/* Closed segments ab and de meet (exact). */
static bool segs_meet(const poly_ctx *c, uint32_t a, uint32_t b, uint32_t d, uint32_t e)
{
    int d1 = o2p(c, d, e, a), d2 = o2p(c, d, e, b), d3 = o2p(c, a, b, d), d4 = o2p(c, a, b, e);
    if (d1 * d2 < 0 && d3 * d4 < 0)
        return true;
    if (d1 == 0 && lex(c, a, d) * lex(c, a, e) <= 0)
        return true;
    if (d2 == 0 && lex(c, b, d) * lex(c, b, e) <= 0)
        return true;
    if (d3 == 0 && lex(c, d, a) * lex(c, d, b) <= 0)
        return true;
    if (d4 == 0 && lex(c, e, a) * lex(c, e, b) <= 0)
        return true;
    return false;
}

static void emit_pos(poly_ctx *c, uint32_t a, uint32_t b, uint32_t d)
{
    kcbp_tri *t = &c->out[c->nt++];
    t->v[0] = a;
    t->v[1] = b;
    t->v[2] = d;
}

/* --------------------------------------------------------- projection --- */

/* Projects the face along the coordinate axis on which its Newell normal
 * is largest, keeping the other two coordinates as they are (u, w in the
 * cyclic order after that axis, swapped when the normal points down the
 * axis, so that the projection of a face of positive area is
 * counter-clockwise). No arithmetic: the projected coordinates are the
 * face's own, so for a planar face the projection is an affine one-to-one
 * map of its plane and every orientation sign taken on it is the face's
 * own (an orthogonal projection onto the Newell plane would round, and
 * lose the collinearity of a straight run of vertices, for one). The axis
 * is within 54.7 degrees of the normal. Returns 0 for a zero (or not
 * finite) normal: collinear or otherwise degenerate polygon. */
static int project(double *uv, const kcbp_vec3 *v, const uint32_t *poly, size_t n)
{
    kcbp_vec3 o = v[poly[0]], nrm = kcbp_v3(0, 0, 0);
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 a = kcbp_v3_sub(v[poly[i]], o), b = kcbp_v3_sub(v[poly[(i + 1) % n]], o);
        nrm.x += (a.y - b.y) * (a.z + b.z);
        nrm.y += (a.z - b.z) * (a.x + b.x);
        nrm.z += (a.x - b.x) * (a.y + b.y);
    }
    kcbp_vec3 ax = kcbp_v3_abs(nrm);
    if (!isfinite(ax.x + ax.y + ax.z) || !(ax.x + ax.y + ax.z > 0))
        return 0;
    int k = ax.z >= ax.x && ax.z >= ax.y ? 2 : ax.x >= ax.y ? 0 : 1;
    double nk = k == 0 ? nrm.x : k == 1 ? nrm.y : nrm.z;
    int iu = (k + 1) % 3, iw = (k + 2) % 3;
    if (nk < 0) {
        int t = iu;
        iu = iw;
        iw = t;
    }
    for (size_t i = 0; i < n; i++) {
        const double c[3] = {v[poly[i]].x, v[poly[i]].y, v[poly[i]].z};
        uv[2 * i] = c[iu];
        uv[2 * i + 1] = c[iw];
    }
    return 1;
}

/* -------------------------------------------------------------- fans --- */

static void fan(poly_ctx *c, uint32_t n)
{
    for (uint32_t i = 1; i + 1 < n; i++)
        emit_pos(c, 0, i, i + 1);
}

/* The fan from position 0 is valid: every (0, i, i+1) turns strictly the
 * same way, and the directions from 0 to 1, 2, ..., n-1 go round less than
 * once. Then the triangles are angular wedges at vertex 0, one after the
 * other, with disjoint interiors, and their union is the polygon (which is
 * simple, star-shaped from vertex 0). The turn: once a vertex is not
 * strictly on the turning side of the line from 0 to 1 (the directions have
 * gone half round), every later one must be strictly on the other side;
 * each step turns by less than half a round, so a vertex back on the line
 * or on the turning side has gone round once. */
static bool fan_is_valid(const poly_ctx *c, uint32_t n)
{
    int sign = o2p(c, 0, 1, 2);
    if (sign == 0)
        return false;
    for (uint32_t i = 2; i + 1 < n; i++)
        if (o2p(c, 0, i, i + 1) != sign)
            return false;
    bool past_half = false;
    for (uint32_t i = 3; i < n; i++) {
        int s = o2p(c, 0, 1, i) * sign;
        if (past_half ? s >= 0 : s <= 0) {
            if (past_half)
                return false;
            past_half = true;
        }
    }
    return true;
}

/* ------------------------------------------------- zero-area corners --- */

/* Cuts off, as zero-area triangles, every vertex b whose corner (a, b, d)
 * has zero area and where b does not lie strictly between a and d (b at a
 * neighbour's point, or the tip of a spike), until none is left or three
 * vertices remain. Positions are tried in increasing order, and the
 * neighbours of each cut vertex again. Leaves the ring in c->ring[0..m),
 * starting at its earliest position. */
static void cut_zero_corners(poly_ctx *c, uint32_t n)
{
    /* Each cut pushes two and had popped one: at most n + (n - 3) entries. */
    uint32_t *prev = c->prev, *next = c->next, *stack = (uint32_t *)(void *)c->items;
    uint8_t *gone = c->inside_above;
    uint32_t top = 0, left = n;
    for (uint32_t i = 0; i < n; i++) {
        prev[i] = i ? i - 1 : n - 1;
        next[i] = i + 1 < n ? i + 1 : 0;
        gone[i] = 0;
        stack[top++] = n - 1 - i;
    }
    while (top > 0 && left > 3) {
        uint32_t b = stack[--top];
        if (gone[b])
            continue;
        uint32_t a = prev[b], d = next[b];
        if (o2p(c, a, b, d) != 0 || strictly_between(c, a, b, d))
            continue;
        emit_pos(c, a, b, d);
        next[a] = d;
        prev[d] = a;
        gone[b] = 1;
        left--;
        stack[top++] = d;
        stack[top++] = a;
    }
    uint32_t first = 0;
    while (gone[first])
        first++;
    c->m = 0;
    uint32_t i = first;
    do {
        c->ring[c->m++] = i;
        i = next[i];
    } while (i != first);
}

/* --------------------------------------------------- the status tree --- */

static inline int th(const poly_ctx *c, uint32_t x) { return x == NIL ? 0 : c->th[x]; }

static inline void t_update(poly_ctx *c, uint32_t x)
{
    int a = th(c, c->tl[x]), b = th(c, c->tr[x]);
    c->th[x] = (uint8_t)(1 + (a > b ? a : b));
}

static inline void t_set_child(poly_ctx *c, uint32_t parent, uint32_t old, uint32_t nw)
{
    if (parent == NIL)
        c->root = nw;
    else if (c->tl[parent] == old)
        c->tl[parent] = nw;
    else
        c->tr[parent] = nw;
    if (nw != NIL)
        c->tp[nw] = parent;
}

static uint32_t t_rot_left(poly_ctx *c, uint32_t x)
{
    uint32_t y = c->tr[x], b = c->tl[y];
    t_set_child(c, c->tp[x], x, y);
    c->tr[x] = b;
    if (b != NIL)
        c->tp[b] = x;
    c->tl[y] = x;
    c->tp[x] = y;
    t_update(c, x);
    t_update(c, y);
    return y;
}

static uint32_t t_rot_right(poly_ctx *c, uint32_t x)
{
    uint32_t y = c->tl[x], b = c->tr[y];
    t_set_child(c, c->tp[x], x, y);
    c->tl[x] = b;
    if (b != NIL)
        c->tp[b] = x;
    c->tr[y] = x;
    c->tp[x] = y;
    t_update(c, x);
    t_update(c, y);
    return y;
}

/* Restores the heights and the balance from x up, after x's subtree
 * changed; stops where a subtree's height is what it was. */
static void t_rebalance(poly_ctx *c, uint32_t x)
{
    while (x != NIL) {
        int old = c->th[x];
        t_update(c, x);
        int bal = th(c, c->tl[x]) - th(c, c->tr[x]);
        if (bal > 1) {
            uint32_t y = c->tl[x];
            if (th(c, c->tl[y]) < th(c, c->tr[y]))
                t_rot_left(c, y);
            x = t_rot_right(c, x);
        } else if (bal < -1) {
            uint32_t y = c->tr[x];
            if (th(c, c->tr[y]) < th(c, c->tl[y]))
                t_rot_right(c, y);
            x = t_rot_left(c, x);
        }
        if (c->th[x] == old)
            return;
        x = c->tp[x];
    }
}

/* Hangs leaf x under parent (NIL: as the root) on the given side. */
static void t_attach(poly_ctx *c, uint32_t x, uint32_t parent, bool left)
{
    c->tl[x] = c->tr[x] = NIL;
    c->tp[x] = parent;
    c->th[x] = 1;
    if (parent == NIL)
        c->root = x;
    else if (left)
        c->tl[parent] = x;
    else
        c->tr[parent] = x;
    t_rebalance(c, parent);
}

/* Inserts x right after y in the order. */
static void t_insert_after(poly_ctx *c, uint32_t y, uint32_t x)
{
    if (c->tr[y] == NIL) {
        t_attach(c, x, y, false);
        return;
    }
    uint32_t z = c->tr[y];
    while (c->tl[z] != NIL)
        z = c->tl[z];
    t_attach(c, x, z, true);
}

static void t_delete(poly_ctx *c, uint32_t z)
{
    uint32_t from;
    if (c->tl[z] == NIL || c->tr[z] == NIL) {
        uint32_t ch = c->tl[z] != NIL ? c->tl[z] : c->tr[z];
        from = c->tp[z];
        t_set_child(c, c->tp[z], z, ch);
    } else {
        uint32_t y = c->tr[z];
        while (c->tl[y] != NIL)
            y = c->tl[y];
        if (c->tp[y] == z) {
            from = y;
        } else {
            from = c->tp[y];
            t_set_child(c, c->tp[y], y, c->tr[y]);
            c->tr[y] = c->tr[z];
            c->tp[c->tr[y]] = y;
        }
        t_set_child(c, c->tp[z], z, y);
        c->tl[y] = c->tl[z];
        c->tp[c->tl[y]] = y;
        c->th[y] = c->th[z];
    }
    c->th[z] = 0;
    t_rebalance(c, from);
}

/* Puts nw in old's place (old leaves the tree). */
static void t_replace(poly_ctx *c, uint32_t old, uint32_t nw)
{
    c->tl[nw] = c->tl[old];
    c->tr[nw] = c->tr[old];
    c->th[nw] = c->th[old];
    t_set_child(c, c->tp[old], old, nw);
    if (c->tl[nw] != NIL)
        c->tp[c->tl[nw]] = nw;
    if (c->tr[nw] != NIL)
        c->tp[c->tr[nw]] = nw;
    c->th[old] = 0;
}

static uint32_t t_next(const poly_ctx *c, uint32_t x)
{
    if (c->tr[x] != NIL) {
        x = c->tr[x];
        while (c->tl[x] != NIL)
            x = c->tl[x];
        return x;
    }
    uint32_t p = c->tp[x];
    while (p != NIL && c->tr[p] == x) {
        x = p;
        p = c->tp[p];
    }
    return p;
}

static uint32_t t_prev(const poly_ctx *c, uint32_t x)
{
    if (c->tl[x] != NIL) {
        x = c->tl[x];
        while (c->tr[x] != NIL)
            x = c->tr[x];
        return x;
    }
    uint32_t p = c->tp[x];
    while (p != NIL && c->tl[p] == x) {
        x = p;
        p = c->tp[p];
    }
    return p;
}

/* ---------------------------------------------------------- the sweep --- */

static inline uint32_t lpos(const poly_ctx *c, uint32_t i) { return c->ring[i]; }
static inline uint32_t lnext(const poly_ctx *c, uint32_t i) { return c->next[i]; }
static inline uint32_t lprev(const poly_ctx *c, uint32_t i) { return c->prev[i]; }

/* The ends of edge e (local), left one first. */
static inline void edge_ends(const poly_ctx *c, uint32_t e, uint32_t *lo, uint32_t *hi)
{
    uint32_t a = lpos(c, e), b = lpos(c, lnext(c, e));
    bool fwd = lex(c, a, b) < 0;
    *lo = fwd ? a : b;
    *hi = fwd ? b : a;
}

/* The side of edge e position p is on: 1 above, -1 below, 0 on its line. */
static inline int edge_side(const poly_ctx *c, uint32_t e, uint32_t p)
{
    uint32_t lo, hi;
    edge_ends(c, e, &lo, &hi);
    return o2p(c, lo, hi, p);
}

/* Edges e and f meet other than at a vertex they share as neighbours. */
static bool edges_meet(const poly_ctx *c, uint32_t e, uint32_t f)
{
    if (e == NIL || f == NIL || e == f || lnext(c, e) == f || lnext(c, f) == e)
        return false;
    return segs_meet(c, lpos(c, e), lpos(c, lnext(c, e)), lpos(c, f), lpos(c, lnext(c, f)));
}

static void emit_local(poly_ctx *c, uint32_t a, uint32_t b, uint32_t d)
{
    emit_pos(c, lpos(c, a), lpos(c, b), lpos(c, d));
}

static uint32_t chain_new(poly_ctx *c, uint32_t v, uint32_t below)
{
    uint32_t x;
    if (c->free_chain != NIL) {
        x = c->free_chain;
        c->free_chain = c->chain[x].below;
    } else {
        if (c->nchain == c->s->cap_chain) {
            void *mem = c->s->chain;
            size_t cap = c->s->cap_chain;
            if (!kcbp_grow(&mem, &cap, cap + 1, sizeof(chain_node), 1024)) {
                c->nomem = c->fail = true;
                return NIL;
            }
            c->s->chain = mem;
            c->s->cap_chain = cap;
            c->chain = mem;
        }
        x = c->nchain++;
    }
    c->chain[x].v = v;
    c->chain[x].below = below;
    return x;
}

static void chain_free_node(poly_ctx *c, uint32_t x)
{
    c->chain[x].below = c->free_chain;
    c->free_chain = x;
}

/* Pushes w on chain (*top, *len). */
static void chain_push(poly_ctx *c, uint32_t *top, uint32_t *len, uint32_t w)
{
    uint32_t x = chain_new(c, w, *top);
    if (x == NIL)
        return;
    *top = x;
    (*len)++;
}

/* Triangles (c_i, c_{i+1}, w) for the whole chain, which is freed. */
static void chain_fan(poly_ctx *c, uint32_t top, uint32_t w)
{
    uint32_t x = top;
    while (x != NIL) {
        uint32_t y = c->chain[x].below;
        if (y != NIL)
            emit_local(c, c->chain[y].v, c->chain[x].v, w);
        chain_free_node(c, x);
        x = y;
    }
}

/* w comes after the chain's top on the chain's side (or the chain is one
 * vertex): cut the triangles (c_{k-1}, c_k, w) while c_k is a strictly
 * convex corner, then push w. */
static void chain_same_side(poly_ctx *c, uint32_t *top, uint32_t *len, int side, uint32_t w)
{
    while (*len >= 2) {
        uint32_t y = *top, x = c->chain[y].below;
        int o = o2p(c, lpos(c, c->chain[x].v), lpos(c, c->chain[y].v), lpos(c, w));
        if (side == SIDE_LOWER ? o <= 0 : o >= 0)
            break;
        emit_local(c, c->chain[x].v, c->chain[y].v, w);
        *top = x;
        (*len)--;
        chain_free_node(c, y);
    }
    chain_push(c, top, len, w);
}

/* A pending merge of region r is resolved by w, which comes on side: the
 * part on the other side is closed by a fan to w, the part on w's side
 * goes on with w. */
static void region_resolve(poly_ctx *c, region *r, uint32_t w, int side)
{
    if (side == SIDE_LOWER) {
        chain_fan(c, r->c, w);
        r->c = r->d;
        r->clen = r->dlen;
    } else {
        chain_fan(c, r->d, w);
    }
    r->d = NIL;
    r->dlen = 0;
    r->cside = side;
    chain_same_side(c, &r->c, &r->clen, side, w);
}

/* Vertex w comes on side of region r (a regular vertex: its edge goes on). */
static void region_add(poly_ctx *c, region *r, uint32_t w, int side)
{
    if (r->dlen > 0) {
        region_resolve(c, r, w, side);
    } else if (r->clen == 1 || r->cside == side) {
        chain_same_side(c, &r->c, &r->clen, side, w);
        r->cside = side;
    } else { /* the other side: w sees the whole chain */
        uint32_t top = c->chain[r->c].v;
        chain_fan(c, r->c, w);
        r->c = NIL;
        r->clen = 0;
        chain_push(c, &r->c, &r->clen, top);
        chain_push(c, &r->c, &r->clen, w);
        r->cside = side;
    }
}

static uint32_t region_new(poly_ctx *c)
{
    uint32_t i = c->free_region;
    if (i == NIL) {
        c->fail = true;
        return NIL;
    }
    c->free_region = c->regions[i].next_free;
    region *r = &c->regions[i];
    r->lower = r->upper = NIL;
    r->c = r->d = NIL;
    r->clen = r->dlen = 0;
    r->cside = SIDE_NONE;
    return i;
}

static void region_free(poly_ctx *c, uint32_t i)
{
    c->regions[i].next_free = c->free_region;
    c->free_region = i;
}

/* Vertex p (local), both of whose edges go right: a start vertex outside
 * the polygon, or a split vertex inside a region. */
static void sweep_start(poly_ctx *c, uint32_t p)
{
    uint32_t a = lprev(c, p), b = lnext(c, p); /* edges a (a -> p) and p (p -> b) */
    int s = o2p(c, lpos(c, p), lpos(c, b), lpos(c, a));
    if (s == 0) {
        c->fail = true;
        return;
    }
    uint32_t lo_e = s > 0 ? p : a, hi_e = s > 0 ? a : p;
    uint32_t x = c->root, parent = NIL, below = NIL, above = NIL;
    bool left = false;
    while (x != NIL) {
        int side = edge_side(c, x, lpos(c, p));
        if (side == 0) {
            c->fail = true;
            return;
        }
        parent = x;
        if (side > 0) {
            below = x;
            x = c->tr[x];
            left = false;
        } else {
            above = x;
            x = c->tl[x];
            left = true;
        }
    }
    t_attach(c, lo_e, parent, left);
    t_insert_after(c, lo_e, hi_e);
    if (edges_meet(c, below, lo_e) || edges_meet(c, hi_e, above)) {
        c->fail = true;
        return;
    }
    bool split = below != NIL && c->inside_above[below];
    if (c->check_only) {
        /* A ring turns counter-clockwise round what it opens (p -> b the
         * lower edge at a start vertex), clockwise round a hole (p -> b
         * the upper edge at a split vertex): else some point is wound
         * round twice, or negatively. */
        if (split != (lo_e == a))
            c->fail = true;
        c->inside_above[lo_e] = !split;
        c->inside_above[hi_e] = split;
        return;
    }
    if (split) {
        uint32_t ri = c->reg[below];
        region *r = &c->regions[ri];
        if (r->lower != below || r->upper != above) {
            c->fail = true;
            return;
        }
        uint32_t li = region_new(c);
        if (li == NIL)
            return;
        r = &c->regions[ri];
        region *l = &c->regions[li];
        if (r->dlen > 0) {
            l->c = r->c;
            l->clen = r->clen;
            chain_same_side(c, &l->c, &l->clen, SIDE_UPPER, p);
            l->cside = SIDE_UPPER;
            r->c = r->d;
            r->clen = r->dlen;
            r->d = NIL;
            r->dlen = 0;
            chain_same_side(c, &r->c, &r->clen, SIDE_LOWER, p);
            r->cside = SIDE_LOWER;
        } else {
            uint32_t top = c->chain[r->c].v;
            int cs = r->clen == 1 ? SIDE_LOWER : r->cside;
            if (cs == SIDE_LOWER) { /* the chain goes on above p; below, [top, p] */
                chain_push(c, &l->c, &l->clen, top);
                chain_push(c, &l->c, &l->clen, p);
                l->cside = SIDE_UPPER;
                chain_same_side(c, &r->c, &r->clen, SIDE_LOWER, p);
                r->cside = SIDE_LOWER;
            } else {
                l->c = r->c;
                l->clen = r->clen;
                chain_same_side(c, &l->c, &l->clen, SIDE_UPPER, p);
                l->cside = SIDE_UPPER;
                r->c = NIL;
                r->clen = 0;
                chain_push(c, &r->c, &r->clen, top);
                chain_push(c, &r->c, &r->clen, p);
                r->cside = SIDE_LOWER;
            }
        }
        l->lower = below;
        l->upper = lo_e;
        r->lower = hi_e;
        c->reg[below] = li;
        c->reg[lo_e] = li;
        c->reg[hi_e] = ri;
        c->inside_above[lo_e] = 0;
        c->inside_above[hi_e] = 1;
    } else { /* start */
        uint32_t ri = region_new(c);
        if (ri == NIL)
            return;
        region *r = &c->regions[ri];
        r->lower = lo_e;
        r->upper = hi_e;
        chain_push(c, &r->c, &r->clen, p);
        c->reg[lo_e] = c->reg[hi_e] = ri;
        c->inside_above[lo_e] = 1;
        c->inside_above[hi_e] = 0;
    }
}

/* Vertex p, both of whose edges come from the left: an end vertex closing
 * a region, or a merge vertex joining two. */
static void sweep_end(poly_ctx *c, uint32_t p)
{
    uint32_t a = lprev(c, p);
    if (!c->th[a] || !c->th[p]) {
        c->fail = true;
        return;
    }
    uint32_t lower, upper;
    if (t_next(c, a) == p)
        lower = a, upper = p;
    else if (t_next(c, p) == a)
        lower = p, upper = a;
    else { /* an edge passes between them: they cross it */
        c->fail = true;
        return;
    }
    uint32_t below = t_prev(c, lower), above = t_next(c, upper);
    uint32_t pp = lpos(c, p);
    if (c->check_only) {
        /* nothing to cut */
    } else if (c->inside_above[lower]) { /* end */
        uint32_t ri = c->reg[lower];
        region *r = &c->regions[ri];
        if (r->lower != lower || r->upper != upper) {
            c->fail = true;
            return;
        }
        chain_fan(c, r->c, p);
        if (r->dlen > 0)
            chain_fan(c, r->d, p);
        region_free(c, ri);
    } else { /* merge */
        uint32_t li = c->reg[lower], hi = c->reg[upper];
        region *l = &c->regions[li], *h = &c->regions[hi];
        if (li == hi || l->upper != lower || h->lower != upper) {
            c->fail = true;
            return;
        }
        region_add(c, l, p, SIDE_UPPER);
        region_add(c, h, p, SIDE_LOWER);
        l->d = h->c;
        l->dlen = h->clen;
        l->upper = h->upper;
        c->reg[h->upper] = li;
        region_free(c, hi);
    }
    t_delete(c, lower);
    t_delete(c, upper);
    if (edges_meet(c, below, above) || (below != NIL && edge_side(c, below, pp) == 0) ||
        (above != NIL && edge_side(c, above, pp) == 0))
        c->fail = true;
}

/* Vertex p with one edge from the left (e_in) and one to the right (e_out). */
static void sweep_regular(poly_ctx *c, uint32_t p, uint32_t e_in, uint32_t e_out)
{
    if (!c->th[e_in]) {
        c->fail = true;
        return;
    }
    if (c->check_only) {
        t_replace(c, e_in, e_out);
        c->inside_above[e_out] = c->inside_above[e_in];
        if (edges_meet(c, t_prev(c, e_out), e_out) || edges_meet(c, e_out, t_next(c, e_out)))
            c->fail = true;
        return;
    }
    uint32_t ri = c->reg[e_in];
    region *r = &c->regions[ri];
    int side = r->lower == e_in ? SIDE_LOWER : r->upper == e_in ? SIDE_UPPER : SIDE_NONE;
    if (side == SIDE_NONE) {
        c->fail = true;
        return;
    }
    t_replace(c, e_in, e_out);
    c->inside_above[e_out] = c->inside_above[e_in];
    c->reg[e_out] = ri;
    if (side == SIDE_LOWER)
        r->lower = e_out;
    else
        r->upper = e_out;
    if (edges_meet(c, t_prev(c, e_out), e_out) || edges_meet(c, e_out, t_next(c, e_out))) {
        c->fail = true;
        return;
    }
    region_add(c, r, p, side);
}

/* Sweeps the ring (c->ring[0..m), m > 3). Returns true with its m - 2
 * triangles written when it is simple; false (c->fail) otherwise, with the
 * triangles written so far (c->nt is reset by the caller). */
/* A double as an unsigned key in the same order (-0 and +0 alike). */
static inline uint64_t sort_key(double x)
{
    x += 0.0;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b >> 63 ? ~b : b | UINT64_C(0x8000000000000000);
}

/* c->order[0..m) = the ring's local indices in lexicographic order of
 * their points, ties by index: qsort for small rings, else a
 * least-significant-digit radix sort (8-bit digits, stable, passes whose
 * digit is the same for all skipped): O(m). Keys in c->items (16 of its 24
 * bytes a vertex), the passes ping-pong between order and tl (free until
 * the sweep starts). */
static void sort_sweep_order(poly_ctx *c)
{
    uint32_t m = c->m;
    if (m < 256) {
        sort_item *items = c->items;
        for (uint32_t i = 0; i < m; i++) {
            kcbp_v2 p = pt(c, c->ring[i]);
            items[i] = (sort_item){p.x + 0.0, p.y + 0.0, i};
        }
        qsort(items, m, sizeof *items, cmp_item);
        for (uint32_t i = 0; i < m; i++)
            c->order[i] = items[i].i;
        return;
    }
    uint64_t *key = (uint64_t *)(void *)c->items; /* key[2 i]: x, key[2 i + 1]: y */
    uint32_t(*count)[256] = c->s->radix;
    memset(count, 0, 16 * sizeof *count);
    for (uint32_t i = 0; i < m; i++) {
        kcbp_v2 p = pt(c, c->ring[i]);
        key[2 * i] = sort_key(p.x);
        key[2 * i + 1] = sort_key(p.y);
        for (int d = 0; d < 8; d++) {
            count[d][(key[2 * i + 1] >> (8 * d)) & 255]++;
            count[8 + d][(key[2 * i] >> (8 * d)) & 255]++;
        }
        c->order[i] = i;
    }
    uint32_t *from = c->order, *to = c->tl;
    for (int pass = 0; pass < 16; pass++) {
        int field = pass < 8 ? 1 : 0, shift = 8 * (pass % 8);
        uint32_t *cnt = count[pass];
        if (cnt[(key[field] >> shift) & 255] == m)
            continue; /* every key has this digit */
        uint32_t sum = 0;
        for (int b = 0; b < 256; b++) {
            uint32_t k = cnt[b];
            cnt[b] = sum;
            sum += k;
        }
        for (uint32_t j = 0; j < m; j++) {
            uint32_t i = from[j];
            to[cnt[(key[2 * (size_t)i + (size_t)field] >> shift) & 255]++] = i;
        }
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != c->order)
        memcpy(c->order, from, m * sizeof *from);
}

static bool sweep(poly_ctx *c)
{
    uint32_t m = c->m;
    sort_sweep_order(c);
    for (uint32_t i = 1; i < m; i++)
        if (lex(c, lpos(c, c->order[i]), lpos(c, c->order[i - 1])) == 0)
            return false; /* two vertices at one point */
    for (uint32_t i = 0; i < m; i++)
        c->th[i] = 0;
    for (uint32_t i = 0; i < c->nregions; i++)
        c->regions[i].next_free = i + 1 < c->nregions ? i + 1 : NIL;
    c->free_region = 0;
    c->root = NIL;
    c->nchain = 0;
    c->free_chain = NIL;
    c->chain = c->s->chain;
    size_t start = c->nt;
    for (uint32_t k = 0; k < m && !c->fail; k++) {
        uint32_t p = c->order[k], a = lprev(c, p), b = lnext(c, p);
        bool a_left = lex(c, lpos(c, a), lpos(c, p)) < 0, b_left = lex(c, lpos(c, b), lpos(c, p)) < 0;
        if (a_left && b_left)
            sweep_end(c, p);
        else if (!a_left && !b_left)
            sweep_start(c, p);
        else
            sweep_regular(c, p, a_left ? a : p, a_left ? p : a);
    }
    return !c->fail && c->root == NIL && (c->check_only || c->nt - start == (size_t)m - 2);
}

/* ------------------------------------------------ the ear clipping --- */

typedef struct {
    uint32_t *prev, *next, *stack;
    uint32_t remaining, top;
    double budget;
} clip_state;

/* Cuts ear (prev[i], i, next[i]) off the ring; its neighbours are then
 * looked at for zero-area corners as rule 4 cuts them. */
static void clip_cut(poly_ctx *c, clip_state *k, uint32_t i)
{
    uint32_t a = k->prev[i], d = k->next[i];
    emit_local(c, a, i, d);
    k->next[a] = d;
    k->prev[d] = a;
    k->prev[i] = k->next[i] = NIL;
    k->remaining--;
    k->stack[k->top++] = d;
    k->stack[k->top++] = a;
}

/* Cuts the zero-area corners that do not pass straight through (rule 4)
 * among the vertices on the stack, and those they make. */
static void clip_zero_corners(poly_ctx *c, clip_state *k)
{
    while (k->top > 0 && k->remaining > 3) {
        uint32_t b = k->stack[--k->top];
        if (k->next[b] == NIL)
            continue;
        uint32_t pa = lpos(c, k->prev[b]), pb = lpos(c, b), pd = lpos(c, k->next[b]);
        k->budget -= 1;
        if (o2p(c, pa, pb, pd) == 0 && !strictly_between(c, pa, pb, pd))
            clip_cut(c, k, b); /* one more on the stack a cut: at most m in all */
    }
    k->top = 0;
}

/* Ear clipping of the ring (local indices, c->m > 3), for rings that are
 * not simple: ears searched from local 1, then after each cut from the
 * vertex after the cut one. An ear: a strictly left turn whose closed
 * triangle holds no other remaining vertex (vertices at a corner's point
 * excepted); when a whole round finds none, a zero-area corner. After each
 * cut, zero-area corners that do not pass straight through are cut as in
 * rule 4 (a spike left by the cuts, say, whose vertices at a corner's point
 * would otherwise let a false ear through). Stops when nothing can be cut
 * or the budget of steps (a vertex looked at, an orientation test) is
 * spent, and fans what remains from its first vertex. Returns true when it
 * clipped to the end. */
static bool ear_clip(poly_ctx *c)
{
    uint32_t m = c->m;
    clip_state k = {c->prev, c->next, c->order, m, 0, 0};
    for (uint32_t i = 0; i < m; i++) {
        k.prev[i] = i ? i - 1 : m - 1;
        k.next[i] = i + 1 < m ? i + 1 : 0;
    }
    double lg = 0;
    for (uint32_t x = m; x > 1; x >>= 1)
        lg++;
    k.budget = 64.0 * m * (lg + 1) + 1048576.0;
    uint32_t i = 1, tried = 0;
    bool allow_flat = false, done = true;
    while (k.remaining > 3) {
        if (k.budget <= 0) {
            done = false;
            break;
        }
        uint32_t a = k.prev[i], d = k.next[i];
        uint32_t pa = lpos(c, a), pi = lpos(c, i), pd = lpos(c, d);
        int o = o2p(c, pa, pi, pd);
        k.budget -= 1;
        bool ear;
        if (allow_flat) {
            ear = o == 0;
        } else if ((ear = o > 0)) {
            kcbp_v2 A = pt(c, pa), I = pt(c, pi), D = pt(c, pd);
            double x0 = fmin(A.x, fmin(I.x, D.x)), x1 = fmax(A.x, fmax(I.x, D.x));
            double y0 = fmin(A.y, fmin(I.y, D.y)), y1 = fmax(A.y, fmax(I.y, D.y));
            for (uint32_t j = k.next[d]; ear && j != a; j = k.next[j]) {
                uint32_t pj = lpos(c, j);
                kcbp_v2 J = pt(c, pj);
                k.budget -= 1;
                if (J.x < x0 || J.x > x1 || J.y < y0 || J.y > y1)
                    continue;
                if (lex(c, pj, pa) == 0 || lex(c, pj, pi) == 0 || lex(c, pj, pd) == 0)
                    continue;
                k.budget -= 3;
                if (o2p(c, pa, pi, pj) >= 0 && o2p(c, pi, pd, pj) >= 0 && o2p(c, pd, pa, pj) >= 0)
                    ear = false;
            }
        }
        if (ear) {
            clip_cut(c, &k, i);
            clip_zero_corners(c, &k);
            i = k.next[d] != NIL ? d : k.next[a] != NIL ? a : i;
            while (k.next[i] == NIL) /* a and d both cut: any vertex left */
                i = (i + 1) % m;
            tried = 0;
            allow_flat = false;
        } else {
            i = k.next[i];
            if (++tried >= k.remaining) {
                if (allow_flat) {
                    done = false;
                    break;
                }
                allow_flat = true;
                tried = 0;
            }
        }
    }
    uint32_t f = 0;
    while (k.next[f] == NIL)
        f++;
    for (uint32_t x = k.next[f]; k.next[x] != f; x = k.next[x])
        emit_local(c, f, x, k.next[x]);
    return done;
}

/* ------------------------------------------------------------ driver --- */

static void sort3(uint32_t *v)
{
    uint32_t t;
    if (v[0] > v[1])
        t = v[0], v[0] = v[1], v[1] = t;
    if (v[1] > v[2])
        t = v[1], v[1] = v[2], v[2] = t;
    if (v[0] > v[1])
        t = v[0], v[0] = v[1], v[1] = t;
}

/* The scratch arrays for a face of n vertices, cut from one block: about
 * 110 bytes a vertex (the reflex chains, and the flips' table when they are
 * needed, come on top). */
static size_t scratch_bytes(size_t n)
{
    return n * (2 * sizeof(double) + sizeof(sort_item) + 8 * sizeof(uint32_t) + 2) + (n / 2 + 2) * sizeof(region) + 64;
}

static bool scratch_carve(kcbp_polygon_scratch *s, poly_ctx *c, size_t n)
{
    if (n > s->cap_n) {
        size_t cap = s->cap_n + s->cap_n / 2;
        if (cap < n)
            cap = n;
        if (cap < 256)
            cap = 256;
        void *mem = malloc(scratch_bytes(cap));
        if (!mem)
            return false;
        free(s->mem);
        s->mem = mem;
        s->cap_n = cap;
    }
    unsigned char *p = s->mem;
    c->uv = (double *)(void *)p, p += 2 * n * sizeof(double);
    c->items = (sort_item *)(void *)p, p += n * sizeof(sort_item);
    c->regions = (region *)(void *)p, p += (n / 2 + 2) * sizeof(region);
    c->nregions = (uint32_t)(n / 2 + 2);
    uint32_t **arrays[] = {&c->ring, &c->prev, &c->next, &c->order, &c->tl, &c->tr, &c->tp, &c->reg};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        *arrays[i] = (uint32_t *)(void *)p, p += n * sizeof(uint32_t);
    c->th = p, p += n;
    c->inside_above = p;
    return true;
}

kcbp_status kcbp_polygon_triangulate(kcbp_polygon_scratch *s, const kcbp_vec3 *v, const uint32_t *poly, size_t n,
                                     kcbp_tri *out)
{
    if (n == 3) {
        out[0].v[0] = poly[0];
        out[0].v[1] = poly[1];
        out[0].v[2] = poly[2];
        s->path = KCBP_POLY_TRIANGLE;
        return KCBP_OK;
    }
    poly_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.out = out;
    if (!scratch_carve(s, &c, n))
        return KCBP_ERR_NOMEM;
    kcbp_status st = KCBP_OK;
    if (!project(c.uv, v, poly, n)) {
        fan(&c, (uint32_t)n);
        s->path = KCBP_POLY_FLAT_FAN;
    } else if (fan_is_valid(&c, (uint32_t)n)) {
        fan(&c, (uint32_t)n);
        s->path = KCBP_POLY_FAN;
    } else {
        cut_zero_corners(&c, (uint32_t)n);
        s->path = KCBP_POLY_SWEPT;
        if (c.m == 3) {
            emit_local(&c, 0, 1, 2);
        } else {
            size_t start = c.nt;
            for (uint32_t i = 0; i < c.m; i++) {
                c.next[i] = i + 1 < c.m ? i + 1 : 0;
                c.prev[i] = i ? i - 1 : c.m - 1;
            }
            if (sweep(&c)) {
                /* done */
            } else if (c.nomem) {
                st = KCBP_ERR_NOMEM;
            } else {
                c.nt = start;
                s->path = ear_clip(&c) ? KCBP_POLY_CLIPPED : KCBP_POLY_CLIPPED_FAN;
            }
        }
    }
    for (size_t t = 0; t < c.nt; t++) {
        sort3(out[t].v);
        for (int k = 0; k < 3; k++)
            out[t].v[k] = poly[out[t].v[k]];
    }
    return st;
}

kcbp_status kcbp_polygon_rings_check(kcbp_polygon_scratch *s, const double *uv, const uint32_t *next, size_t n,
                                     bool *ok)
{
    *ok = false;
    if (n < 3 || n > UINT32_MAX - 1)
        return KCBP_OK;
    poly_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    if (!scratch_carve(s, &c, n))
        return KCBP_ERR_NOMEM;
    c.uv = (double *)(uintptr_t)uv; /* read only */
    c.check_only = true;
    c.m = (uint32_t)n;
    for (uint32_t i = 0; i < n; i++) {
        c.ring[i] = i;
        c.prev[i] = NIL;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = next[i];
        if (j >= n || j == i || c.prev[j] != NIL || next[j] == i) /* not a permutation into rings of 3 or more */
            return KCBP_OK;
        c.prev[j] = i;
        c.next[i] = j;
    }
    *ok = sweep(&c);
    return c.nomem ? KCBP_ERR_NOMEM : KCBP_OK;
}

void kcbp_polygon_scratch_free(kcbp_polygon_scratch *s)
{
    free(s->mem);
    free(s->chain);
    memset(s, 0, sizeof *s);
}
