/* Self-intersection (include/kcbp/self.h): the AABB tree against itself,
 * each unordered pair of nodes visited once, then the exact triangle test
 * with CGAL's rules for triangles that share vertices.
 *
 * Before the traversal, two kinds of certificates prove whole sets of pairs
 * apart, so that the traversal skips them without testing them (see
 * certify_patches and certify_stars for the proofs):
 *  - a flat patch: triangles joined by edges and exactly coplanar, whose
 *    boundary rings bound a region simply (kcbp_polygon_rings_check): no
 *    two of its triangles meet other than along what they share;
 *  - a vertex star: the triangles round a vertex, one fan of them, all on
 *    one side of a plane through the vertex, whose link (the opposite
 *    edges, seen from the vertex) is a simple polygon: no two of them meet
 *    other than along what they share.
 * Each tree node records the patch all its triangles are in, and the
 * certified vertices all its triangles have: a node pair inside one patch,
 * or round one certified vertex, is skipped whole. This takes the fans of
 * CAD meshes (discs, cone tips, countersinks) and the long triangles of
 * large flat faces (a polygon's triangulation) from quadratic to about
 * linear: their triangles' boxes all overlap, but their pairs are proved
 * apart in O(n log n) together. */
#include <kcbp/self.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "geom/predicates.h"
#include "geom/tritri_exact.h"
#include "mesh/polygon.h"
#include "mesh/topology.h"
#include "model_internal.h"
#include "self_internal.h"

#define NONE UINT32_MAX

/* Vertices of at least this many triangles get their star certified (the
 * pairs round a vertex of degree d are d (d - 1) / 2; below this few, the
 * certificate saves less than it costs). */
#define STAR_MIN 8

/* What the traversal may skip (all NULL when it skips nothing). */
typedef struct {
    uint32_t (*cv)[3];      /* per triangle: its canonical vertices */
    uint8_t *skip;          /* per triangle: a repeated vertex (a segment or a point) */
    uint32_t *patch;        /* per triangle: its certified flat patch, or NONE */
    uint8_t *star;          /* per canonical vertex: its star is certified */
    uint32_t *node_patch;   /* per node: the certified patch of all its triangles, or NONE */
    uint32_t (*node_cv)[3]; /* per node: the certified vertices all its triangles have (NONE-padded) */
    kcbp_vec3 (*node_box)[2]; /* per node: the least and greatest coordinates of its triangles' vertices (exact) */
    kcbp_self_how how;      /* KCBP_SELF_CERTIFIED, or an unsound mode of the tests */
    kcbp_fplane *plane;     /* per patch (by its root triangle): the plane of that triangle, for the filter */
    uint32_t (*rest)[2];      /* per triangle: patches it rests on (rests_on), NONE-padded */
    uint32_t (*node_rest)[2]; /* per node: patches all its triangles rest on */
} certs;

typedef struct {
    const kcbp_mesh *mesh;
    const uint32_t *canon;
    const certs *cert;
    kcbp_contacts_mode mode;
    uint64_t max;           /* > 0, with ALL: stop at this many pairs */
    kcbp_contact *out;
    size_t n, cap;
    bool nomem, stop;
    kcbp_tree_stats stats;
} self_ctx;

/* Index of the coordinate along which p and q differ most (they differ). */
static int long_axis(kcbp_vec3 p, kcbp_vec3 q)
{
    double d[3] = {fabs(q.x - p.x), fabs(q.y - p.y), fabs(q.z - p.z)};
    return d[0] >= d[1] && d[0] >= d[2] ? 0 : d[1] >= d[2] ? 1 : 2;
}

static double coord(kcbp_vec3 p, int k) { return k == 0 ? p.x : k == 1 ? p.y : p.z; }

/* Where x is on the line of u and v (collinear with them): -1 beyond u, +1
 * beyond v, 0 within [u, v]. Exact: compares one coordinate along which u
 * and v differ. */
static int beyond(kcbp_vec3 u, kcbp_vec3 v, kcbp_vec3 x)
{
    int k = long_axis(u, v);
    double a = coord(u, k), b = coord(v, k), c = coord(x, k);
    if ((b > a && c > b) || (b < a && c < b))
        return 1;
    if ((b > a && c < a) || (b < a && c > a))
        return -1;
    return 0;
}

/* Orientation of (u, v, x) in the axis plane that drops k. */
static int o2_drop(kcbp_vec3 u, kcbp_vec3 v, kcbp_vec3 x, int k)
{
    double p[3][2];
    const kcbp_vec3 pts[3] = {u, v, x};
    for (int i = 0; i < 3; i++) {
        p[i][0] = k == 0 ? pts[i].y : pts[i].x;
        p[i][1] = k == 2 ? pts[i].y : pts[i].z;
    }
    return kcbp_orient2d(p[0][0], p[0][1], p[1][0], p[1][1], p[2][0], p[2][1]);
}

/* p and q are certainly strictly on one side of the plane of t (the
 * filter alone: 0 when it cannot tell). */
static bool strictly_one_side(const kcbp_fplane *pl, kcbp_vec3 p, kcbp_vec3 q)
{
    int a = kcbp_fplane_side(pl, p);
    return a != 0 && a == kcbp_fplane_side(pl, q);
}

/* An axis k along which t has area (its projection dropping k does), 2
 * first; -1 for a triangle with no area. */
static int area_axis(const kcbp_vec3 t[3])
{
    for (int k = 2; k >= 0; k--)
        if (o2_drop(t[0], t[1], t[2], k) != 0)
            return k;
    return -1;
}

/* The exact sides of the points q[0..n) of the plane of t (which has area),
 * up to one sign for all: for a plane square to axis k (t's three vertices
 * share coordinate k, as CAD faces often do), by comparing coordinate k;
 * else the filter, and the exact orient3d where it cannot tell. */
static void plane_sides(const kcbp_vec3 t[3], const kcbp_fplane *pl, const kcbp_vec3 *q, int n, int *s)
{
    for (int k = 0; k < 3; k++) {
        double c = coord(t[0], k);
        if (c == coord(t[1], k) && c == coord(t[2], k)) {
            for (int i = 0; i < n; i++) {
                double x = coord(q[i], k);
                s[i] = (x > c) - (x < c);
            }
            return;
        }
    }
    for (int i = 0; i < n; i++) {
        s[i] = kcbp_fplane_side(pl, q[i]);
        if (s[i] == 0)
            s[i] = kcbp_orient3d_exact(t[0], t[1], t[2], q[i]);
    }
}

/* p lies in the closed triangle t, all in one plane, seen dropping axis k
 * (along which t has area): exact. */
static bool point_in_tri(kcbp_vec3 p, const kcbp_vec3 t[3], int k)
{
    int a = o2_drop(t[0], t[1], p, k), b = o2_drop(t[1], t[2], p, k), c = o2_drop(t[2], t[0], p, k);
    return !((a > 0 || b > 0 || c > 0) && (a < 0 || b < 0 || c < 0));
}

/* Segment pq meets triangle t, exactly. When t has area and one end lies
 * in t's plane and the other off it, or both in it, the question is one of
 * t's plane, settled with orient2d in a projection where t has area
 * (which is one to one on that plane); otherwise first in that projection
 * (projections of sets that meet meet), then in space. */
static bool seg_meets(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3])
{
    kcbp_fplane pl = kcbp_fplane_of(t[0], t[1], t[2]);
    if (strictly_one_side(&pl, p, q))
        return false;
    int k = area_axis(t);
    if (k >= 0) {
        const kcbp_vec3 pq[2] = {p, q};
        int s[2];
        plane_sides(t, &pl, pq, 2, s);
        if (s[0] != 0 && s[0] == s[1])
            return false;
        if (s[0] == 0 && s[1] == 0)
            return kcbp_seg_tri_intersect_axis(p, q, t, k);
        if (s[0] == 0 || s[1] == 0) /* the segment meets the plane in that end only */
            return point_in_tri(s[0] == 0 ? p : q, t, k);
        if (!kcbp_seg_tri_intersect_axis(p, q, t, k))
            return false;
    }
    return kcbp_seg_tri_intersect(p, q, t);
}

/* b touches the plane of a (which has area along axis k) in the vertices
 * where sb is 0, the others on one side: b meets that plane in the vertex
 * or the edge they make, so b meets a where that does. */
static bool touch_meets(const kcbp_vec3 a[3], int k, const kcbp_vec3 b[3], const int sb[3])
{
    int on[3], n = 0;
    for (int i = 0; i < 3; i++)
        if (sb[i] == 0)
            on[n++] = i;
    if (n == 1)
        return point_in_tri(b[on[0]], a, k);
    return kcbp_seg_tri_intersect_axis(b[on[0]], b[on[1]], a, k);
}

/* Some of s are 0 and the others, not all 0, are of one sign. */
static bool touching(const int s[3])
{
    bool zero = s[0] == 0 || s[1] == 0 || s[2] == 0;
    bool pos = s[0] > 0 || s[1] > 0 || s[2] > 0, neg = s[0] < 0 || s[1] < 0 || s[2] < 0;
    return zero && pos != neg;
}

/* Triangles a and b (no common vertex) meet, exactly. Each is first put
 * against the other's plane (the filter, then exact signs where it cannot
 * tell; coordinate comparisons for a plane square to an axis): strictly on
 * one side, they are apart; touching it in a vertex or an edge (a strip
 * standing on a flat face), that vertex or edge against the other triangle
 * in its plane decides; in one plane, two triangles meet when an edge of
 * one meets the other, in a projection where they have area. Only a
 * triangle crossing the other's plane goes to kcbp_tri_intersect. */
static bool tris_meet(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    kcbp_fplane pb = kcbp_fplane_of(b[0], b[1], b[2]), pa = kcbp_fplane_of(a[0], a[1], a[2]);
    int s0 = kcbp_fplane_side(&pb, a[0]), s1 = kcbp_fplane_side(&pb, a[1]), s2 = kcbp_fplane_side(&pb, a[2]);
    if (s0 != 0 && s0 == s1 && s1 == s2)
        return false;
    int t0 = kcbp_fplane_side(&pa, b[0]);
    if (t0 != 0 && t0 == kcbp_fplane_side(&pa, b[1]) && t0 == kcbp_fplane_side(&pa, b[2]))
        return false;
    int ka = area_axis(a), kb = area_axis(b);
    if (ka < 0 || kb < 0)
        return kcbp_tri_intersect(a, b, 0);
    int sa[3], sb[3];
    plane_sides(b, &pb, a, 3, sa);
    if (sa[0] != 0 && sa[0] == sa[1] && sa[1] == sa[2])
        return false;
    if (sa[0] == 0 && sa[1] == 0 && sa[2] == 0) { /* coplanar */
        for (int i = 0; i < 3; i++)
            if (kcbp_seg_tri_intersect_axis(a[i], a[(i + 1) % 3], b, kb) ||
                kcbp_seg_tri_intersect_axis(b[i], b[(i + 1) % 3], a, kb))
                return true;
        return false;
    }
    plane_sides(a, &pa, b, 3, sb);
    if (sb[0] != 0 && sb[0] == sb[1] && sb[1] == sb[2])
        return false;
    if (touching(sb))
        return touch_meets(a, ka, b, sb);
    if (touching(sa))
        return touch_meets(b, kb, a, sa);
    return kcbp_tri_intersect(a, b, 0);
}

/* Triangles (u, v, a) and (u, v, b) sharing the edge uv: do they meet
 * beyond it? */
static bool edge_pair_meets(kcbp_vec3 u, kcbp_vec3 v, kcbp_vec3 a, kcbp_vec3 b)
{
    for (int k = 2; k >= 0; k--) {
        int sa = o2_drop(u, v, a, k);
        if (sa != 0) {
            /* (u, v, a) has area seen along k. In one plane, which then
             * projects one to one, they overlap when a and b are on the same
             * side of uv; not in one plane, two planes through uv, each
             * triangle meets the other's plane in uv only. The projected
             * sides first: opposite sides (a flat region's neighbours) need
             * no orient3d, which would be exactly zero there. */
            int sb = o2_drop(u, v, b, k);
            return sb == sa && kcbp_orient3d(u, v, a, b) == 0;
        }
    }
    if (kcbp_orient3d(u, v, a, b) != 0)
        return false;
    /* a on the line uv: (u, v, a) is a segment of that line, which meets
     * (u, v, b) beyond uv only if b is on the line too and both run past
     * the same end of uv. */
    for (int k = 2; k >= 0; k--)
        if (o2_drop(u, v, b, k) != 0)
            return false;
    int ea = beyond(u, v, a), eb = beyond(u, v, b);
    return ea != 0 && ea == eb;
}

static bool pair_meets(const self_ctx *c, uint32_t ta, uint32_t tb, const kcbp_vec3 A[3], const kcbp_vec3 B[3])
{
    const uint32_t *va = c->mesh->triangles[ta].v, *vb = c->mesh->triangles[tb].v;
    uint32_t ca[3] = {c->canon[va[0]], c->canon[va[1]], c->canon[va[2]]};
    uint32_t cb[3] = {c->canon[vb[0]], c->canon[vb[1]], c->canon[vb[2]]};
    int ia[3], ib[3], shared = 0; /* positions of the shared vertices */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (ca[i] == cb[j]) {
                ia[shared] = i, ib[shared] = j;
                shared++;
            }
    if (shared == 0)
        return tris_meet(A, B);
    if (shared == 1) { /* the edges opposite the shared vertex */
        int i = ia[0], j = ib[0];
        /* A's opposite edge strictly on one side of B's plane: A meets that
         * plane, so B, only in the shared vertex (and the same the other
         * way round) */
        kcbp_fplane pa = kcbp_fplane_of(A[0], A[1], A[2]), pb = kcbp_fplane_of(B[0], B[1], B[2]);
        if (strictly_one_side(&pb, A[(i + 1) % 3], A[(i + 2) % 3]) ||
            strictly_one_side(&pa, B[(j + 1) % 3], B[(j + 2) % 3]))
            return false;
        return seg_meets(A[(i + 1) % 3], A[(i + 2) % 3], B) || seg_meets(B[(j + 1) % 3], B[(j + 2) % 3], A);
    }
    if (shared == 2) {
        kcbp_vec3 u = A[ia[0]], v = A[ia[1]];
        kcbp_vec3 a = A[3 - ia[0] - ia[1]], b = B[3 - ib[0] - ib[1]];
        return edge_pair_meets(u, v, a, b);
    }
    return true; /* the same three vertices */
}

/* ------------------------------------------------------ certificates --- */

/* The edges of the triangles, grouped by their canonical ends in a hash
 * table: the uses of one edge are a list through next. */
typedef struct {
    uint32_t tri, k; /* the triangle's edge k: v[k] -> v[k + 1] */
    uint32_t next;   /* the next use of the same edge, or NONE */
} edge_use;

typedef struct {
    uint64_t *key; /* (lo << 32 | hi) + 1, 0 for an empty slot */
    uint32_t *head;
    size_t mask;
} edge_table;

static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    return h;
}

/* Adds use u of edge (a, b); the table has room (at most half full). */
static void edge_add(edge_table *et, edge_use *e, uint32_t u, uint32_t a, uint32_t b)
{
    uint64_t key = ((uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a)) + 1;
    size_t h = (size_t)mix64(key) & et->mask;
    while (et->key[h] != 0 && et->key[h] != key)
        h = (h + 1) & et->mask;
    if (et->key[h] == 0) {
        et->key[h] = key;
        et->head[h] = NONE;
    }
    e[u].next = et->head[h];
    et->head[h] = u;
}

static uint32_t edge_lo(uint64_t key) { return (uint32_t)((key - 1) >> 32); }

typedef struct {
    uint32_t patch, from, to;
} bound_edge;

/* The four points have one coordinate equal: coplanar, in an axis plane
 * (a quick exact answer for the flat faces of CAD parts, where orient3d
 * would go all the way to its exact stage to find zero). */
static bool same_coordinate(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    return (a.x == b.x && a.x == c.x && a.x == d.x) || (a.y == b.y && a.y == c.y && a.y == d.y) ||
           (a.z == b.z && a.z == c.z && a.z == d.z);
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

static int drop_axis(kcbp_vec3 n)
{
    kcbp_vec3 a = kcbp_v3_abs(n);
    return a.z >= a.x && a.z >= a.y ? 2 : a.x >= a.y ? 0 : 1;
}

/* The coordinates of p other than axis k, in cyclic order after k. */
static void drop(kcbp_vec3 p, int k, double *u, double *w)
{
    const double c[3] = {p.x, p.y, p.z};
    *u = c[(k + 1) % 3];
    *w = c[(k + 2) % 3];
}

/* orient2d of three points without their coordinate k (exact). */
static int o2_axis(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 d, int k)
{
    double au, aw, bu, bw, du, dw;
    drop(a, k, &au, &aw);
    drop(b, k, &bu, &bw);
    drop(d, k, &du, &dw);
    return kcbp_orient2d(au, aw, bu, bw, du, dw);
}

/* The triangle has area (exact): some projection of it does. */
static bool has_area(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 d)
{
    return o2_axis(a, b, d, 2) != 0 || o2_axis(a, b, d, 0) != 0 || o2_axis(a, b, d, 1) != 0;
}

/* Flat patches. Triangles with area sharing an edge (two triangles on it,
 * by canonical vertices) and exactly coplanar are joined (union-find); a
 * patch is certified when, projected along the axis its plane is least
 * steep to (one to one on the plane, no rounding):
 *  (a) each triangle, turned to run counter-clockwise in the projection,
 *      uses each edge at most once each way within the patch;
 *  (b) the edges used once (the boundary) make rings, each boundary vertex
 *      with one edge in and one out;
 *  (c) the rings bound a region simply (kcbp_polygon_rings_check: no two
 *      boundary edges meet other than consecutive ones at their vertex, and
 *      every point is wound round 0 or 1 times).
 * Proof that no two triangles of a certified patch meet other than along
 * what they share (CGAL's rules, those of pair_meets): with every triangle
 * counter-clockwise, the sum of their indicator functions is the winding
 * number of the sum of their boundaries, the rings, so at most 1: their
 * interiors are disjoint. Two of them that touched elsewhere than at a
 * shared vertex or edge would touch at a point q where (i) one has q inside
 * an edge shared with a neighbour, or q is a vertex of it whose fan of
 * patch triangles covers all round q: then the other, which covers a
 * sector at q, overlaps one of those (interiors meet); or (ii) q lies on
 * boundary edges of both patches' sides: two boundary edges that meet other
 * than at a shared vertex, which (c) excludes (a vertex of one at q inside
 * an edge of the other is met by the boundary edges of its fan's ends).
 * Two on the same side of a shared edge overlap (interiors), and a repeated
 * triangle uses its edges twice the same way (a). */
static kcbp_status certify_patches(const kcbp_mesh *mesh, certs *ce, uint8_t *area, kcbp_error *err)
{
    uint32_t nt = mesh->ntriangles, nv = mesh->nvertices;
    const kcbp_vec3 *V = mesh->vertices;
    kcbp_status st = KCBP_OK;
    size_t nslot = 16;
    while (nslot < 6 * (size_t)nt)
        nslot *= 2;
    edge_table et = {calloc(nslot, sizeof *et.key), malloc(nslot * sizeof *et.head), nslot - 1};
    edge_use *e = malloc(((size_t)nt * 3 + 1) * sizeof *e);
    uint32_t *up = malloc(((size_t)nt + 1) * sizeof *up);
    uint32_t *size = malloc(((size_t)nt + 1) * sizeof *size);
    int8_t *dir = malloc((size_t)nt + 1);
    uint8_t *state = calloc((size_t)nt + 1, 1); /* per patch (its root): 0 open, 1 failed, 2 certified */
    bound_edge *be = malloc(((size_t)nt * 3 + 1) * sizeof *be);
    uint32_t *start = malloc(((size_t)nt + 2) * sizeof *start);
    uint32_t *slot = malloc(((size_t)nv + 1) * sizeof *slot);
    uint32_t *loc = malloc(((size_t)nt * 3 + 1) * sizeof *loc);
    uint32_t *ring = malloc(((size_t)nt * 3 + 1) * sizeof *ring);
    double *uv = malloc(((size_t)nt * 6 + 2) * sizeof *uv);
    kcbp_polygon_scratch scratch = {0};
    if (!et.key || !et.head || !e || !up || !size || !dir || !state || !be || !start || !slot || !loc || !ring ||
        !uv) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
        goto done;
    }
    uint32_t ne = 0;
    for (uint32_t t = 0; t < nt; t++) {
        up[t] = t;
        size[t] = 0;
        dir[t] = 0;
        if (ce->skip[t] || !area[t])
            continue;
        for (uint32_t k = 0; k < 3; k++) {
            e[ne] = (edge_use){t, k, NONE};
            edge_add(&et, e, ne++, ce->cv[t][k], ce->cv[t][(k + 1) % 3]);
        }
    }
    /* Join the two triangles of an edge that has two, when coplanar. */
    for (size_t h = 0; h < nslot; h++) {
        if (!et.key[h])
            continue;
        uint32_t x = et.head[h], y = e[x].next;
        if (y == NONE || e[y].next != NONE)
            continue; /* one triangle on the edge, or three or more */
        uint32_t t = e[x].tri, u = e[y].tri;
        const uint32_t *tv = mesh->triangles[t].v;
        uint32_t w = mesh->triangles[u].v[(e[y].k + 2) % 3];
        if (same_coordinate(V[tv[0]], V[tv[1]], V[tv[2]], V[w]) ||
            kcbp_orient3d(V[tv[0]], V[tv[1]], V[tv[2]], V[w]) == 0) {
            uint32_t rt = uf_find(up, t), ru = uf_find(up, u);
            if (rt != ru)
                up[rt < ru ? ru : rt] = rt < ru ? rt : ru;
        }
    }
    /* Each patch's axis from its root's triangle; each triangle's turn. */
    for (uint32_t t = 0; t < nt; t++) {
        if (ce->skip[t] || !area[t])
            continue;
        uint32_t r = uf_find(up, t);
        size[r]++;
        const uint32_t *rv = mesh->triangles[r].v, *tv = mesh->triangles[t].v;
        kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(V[rv[1]], V[rv[0]]), kcbp_v3_sub(V[rv[2]], V[rv[0]]));
        int o = o2_axis(V[tv[0]], V[tv[1]], V[tv[2]], drop_axis(n));
        dir[t] = (int8_t)o;
        if (o == 0)
            state[r] = 1;
    }
    /* (a), and the boundary: the uses of an edge by one patch, turned
     * counter-clockwise, at most one each way; used once, a boundary edge. */
    uint32_t nb = 0;
    for (size_t h = 0; h < nslot; h++) {
        if (!et.key[h])
            continue;
        uint32_t lo = edge_lo(et.key[h]), nuse = 0;
        for (uint32_t x = et.head[h]; x != NONE; x = e[x].next)
            nuse++;
        for (uint32_t x = et.head[h]; x != NONE; x = e[x].next) {
            uint32_t t = e[x].tri, r = uf_find(up, t);
            if (size[r] < 2 || state[r] != 0)
                continue; /* a lone triangle has no pair inside to skip */
            if (nuse > 8) { /* many triangles on one edge: not a patch's */
                state[r] = 1;
                continue;
            }
            uint32_t a = ce->cv[t][e[x].k], b = ce->cv[t][(e[x].k + 1) % 3];
            bool fwd_x = (a == lo) == (dir[t] > 0);
            int same = 0, other = 0;
            for (uint32_t y = et.head[h]; y != NONE; y = e[y].next) {
                if (y == x || uf_find(up, e[y].tri) != r)
                    continue;
                bool fwd_y = (ce->cv[e[y].tri][e[y].k] == lo) == (dir[e[y].tri] > 0);
                if (fwd_y == fwd_x)
                    same++;
                else
                    other++;
            }
            if (same > 0 || other > 1)
                state[r] = 1;
            else if (other == 0)
                be[nb++] = (bound_edge){r, dir[t] > 0 ? a : b, dir[t] > 0 ? b : a};
        }
    }
    /* The boundary edges patch by patch (a counting sort: loc lists them,
     * patch r's from start[r] to start[r + 1]). */
    for (uint32_t t = 0; t <= nt; t++)
        start[t] = 0;
    for (uint32_t i = 0; i < nb; i++)
        start[be[i].patch + 1]++;
    for (uint32_t t = 0; t < nt; t++)
        start[t + 1] += start[t];
    for (uint32_t i = 0; i < nb; i++)
        loc[start[be[i].patch]++] = i;
    for (uint32_t t = nt; t > 0; t--)
        start[t] = start[t - 1];
    start[0] = 0;
    for (uint32_t v = 0; v < nv; v++)
        slot[v] = NONE;
    /* (b) and (c), patch by patch: slot[v] is the place of the boundary
     * edge leaving v among the patch's, while the patch is looked at. */
    for (uint32_t r = 0; r < nt; r++) {
        uint32_t i0 = start[r], m = start[r + 1] - i0;
        if (m == 0 || state[r] != 0)
            continue;
        bool ok = true;
        uint32_t filled = 0;
        for (; filled < m && ok; filled++) { /* each boundary vertex left once */
            uint32_t from = be[loc[i0 + filled]].from;
            ok = slot[from] == NONE;
            if (ok)
                slot[from] = filled;
        }
        const uint32_t *rv = mesh->triangles[r].v;
        int k = drop_axis(kcbp_v3_cross(kcbp_v3_sub(V[rv[1]], V[rv[0]]), kcbp_v3_sub(V[rv[2]], V[rv[0]])));
        for (uint32_t x = 0; x < m && ok; x++) { /* and entered once: the rings' next is a permutation */
            const bound_edge *b = &be[loc[i0 + x]];
            ring[x] = slot[b->to];
            ok = ring[x] != NONE;
            drop(V[b->from], k, &uv[2 * x], &uv[2 * x + 1]);
        }
        for (uint32_t x = 0; x < filled; x++) {
            uint32_t from = be[loc[i0 + x]].from;
            if (slot[from] == x)
                slot[from] = NONE;
        }
        /* drop keeps the cyclic order after k, so counter-clockwise
         * triangles (dir > 0) run counter-clockwise there too */
        if (ok && ce->how != KCBP_SELF_UNSOUND_NO_RINGS &&
            kcbp_polygon_rings_check(&scratch, uv, ring, m, &ok) != KCBP_OK) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
            goto done;
        }
        state[r] = ok ? 2 : 1;
    }
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t r = uf_find(up, t);
        ce->patch[t] = !ce->skip[t] && area[t] && state[r] == 2 ? r : NONE;
    }
done:
    kcbp_polygon_scratch_free(&scratch);
    free(et.key);
    free(et.head);
    free(e);
    free(up);
    free(size);
    free(dir);
    free(state);
    free(be);
    free(start);
    free(slot);
    free(loc);
    free(ring);
    free(uv);
    return st;
}

typedef struct {
    uint32_t x, y, t;
} star_entry;

static int cmp_star(const void *p, const void *q)
{
    const star_entry *a = p, *b = q;
    return (a->x > b->x) - (a->x < b->x);
}

/* Vertex stars. The triangles round canonical vertex v, (v, x, y) in each
 * one's own turn, are certified when:
 *  (a) they make one fan: each x and each y once, y of one the x of the
 *      next, all in one cycle (v inside the surface) or one chain (v on its
 *      border); every triangle with area. The link: a_0, a_1, ..., the
 *      vertices opposite v in that order (the chain's both ends);
 *  (b) they are all on one side of a plane through v: every a_i strictly
 *      on one side of the plane through v, E1, E2 (E1, E2 the doubles
 *      nearest v + L e1 and v + L e2, e1 and e2 across the mean direction
 *      from v to the a_i; exact orient3d signs);
 *  (c) the link polygon a_0, a_1, ..., a_m-1 (closed by a_m-1 a_0 for a
 *      chain) has a valid fan from a_0, in its central projection from v
 *      onto a plane parallel to (b)'s: every orient3d(v, a_0, a_i, a_i+1)
 *      the same sign, and the a_i going round a_0 less than once (the test
 *      of src/mesh/polygon.c's rule 3). Central projection from v onto that
 *      plane keeps the sign of every orient3d(v, p, q, r) (up to one sign
 *      for all), so this is exact.
 * Then the link polygon is simple (polygon.c), so the triangles, each in
 * the cone from v over its link edge, meet only in v (link edges apart) or
 * along v a_i (consecutive link edges, which meet only in a_i): what they
 * share. */
static bool star_ok(const kcbp_mesh *mesh, const certs *ce, const uint8_t *area, uint32_t v, const uint32_t *tris,
                    uint32_t d, star_entry *se, uint32_t *link)
{
    const kcbp_vec3 *V = mesh->vertices;
    for (uint32_t i = 0; i < d; i++) {
        uint32_t t = tris[i];
        if (!area[t])
            return false;
        int j = ce->cv[t][0] == v ? 0 : ce->cv[t][1] == v ? 1 : 2;
        se[i] = (star_entry){ce->cv[t][(j + 1) % 3], ce->cv[t][(j + 2) % 3], t};
    }
    qsort(se, d, sizeof *se, cmp_star);
    for (uint32_t i = 1; i < d; i++)
        if (se[i].x == se[i - 1].x)
            return false;
    /* The entries no one leads to (chain starts): mark the successors (the
     * successor of entry i: the entry whose x is i's y). */
    uint32_t start = 0, nstart = 0;
    uint8_t *led = (uint8_t *)(link + d + 1); /* d bytes after the link's d + 1 entries */
    memset(led, 0, d);
    for (uint32_t i = 0; i < d; i++) {
        uint32_t lo = 0, hi = d;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (se[mid].x < se[i].y)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < d && se[lo].x == se[i].y) {
            if (led[lo])
                return false;
            led[lo] = 1;
        }
    }
    for (uint32_t i = 0; i < d; i++)
        if (!led[i]) {
            start = i;
            nstart++;
        }
    if (nstart > 1)
        return false;
    /* Walk. */
    uint32_t m = 0, i = start;
    link[m++] = se[i].x;
    for (uint32_t step = 0; step < d; step++) {
        link[m++] = se[i].y;
        uint32_t lo = 0, hi = d;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (se[mid].x < se[i].y)
                lo = mid + 1;
            else
                hi = mid;
        }
        bool more = lo < d && se[lo].x == se[i].y;
        if (step + 1 < d && (!more || lo == start))
            return false; /* more than one chain or cycle */
        if (more)
            i = lo;
    }
    if (nstart == 0) { /* a cycle: back at the start, the last y is a_0 */
        if (i != start || link[m - 1] != link[0])
            return false;
        m--;
    }
    if (m < 3)
        return false;
    if (ce->how == KCBP_SELF_UNSOUND_NO_LINK)
        return true;
    /* (b) */
    kcbp_vec3 pv = V[v], w = kcbp_v3(0, 0, 0);
    double L = 0;
    for (uint32_t k = 0; k < m; k++) {
        kcbp_vec3 q = kcbp_v3_sub(V[link[k]], pv);
        double len = kcbp_v3_len(q);
        if (!(len > 0))
            return false;
        w = kcbp_v3_add(w, kcbp_v3_scale(q, 1 / len));
        if (len > L)
            L = len;
    }
    double wl = kcbp_v3_len(w);
    if (!(wl > 1e-6 * m) || !isfinite(L))
        return false;
    w = kcbp_v3_scale(w, 1 / wl);
    kcbp_vec3 ax = kcbp_v3_abs(w);
    kcbp_vec3 least = ax.x <= ax.y && ax.x <= ax.z ? kcbp_v3(1, 0, 0)
                      : ax.y <= ax.z               ? kcbp_v3(0, 1, 0)
                                                   : kcbp_v3(0, 0, 1);
    kcbp_vec3 e1 = kcbp_v3_cross(least, w);
    e1 = kcbp_v3_scale(e1, 1 / kcbp_v3_len(e1));
    kcbp_vec3 e2 = kcbp_v3_cross(w, e1);
    kcbp_vec3 E1 = kcbp_v3_add(pv, kcbp_v3_scale(e1, L)), E2 = kcbp_v3_add(pv, kcbp_v3_scale(e2, L));
    int side = kcbp_orient3d(pv, E1, E2, V[link[0]]);
    if (side == 0)
        return false;
    for (uint32_t k = 1; k < m; k++)
        if (kcbp_orient3d(pv, E1, E2, V[link[k]]) != side)
            return false;
    /* (c) */
    kcbp_vec3 a0 = V[link[0]], a1 = V[link[1]];
    int sign = kcbp_orient3d(pv, a0, a1, V[link[2]]);
    if (sign == 0)
        return false;
    for (uint32_t k = 2; k + 1 < m; k++)
        if (kcbp_orient3d(pv, a0, V[link[k]], V[link[k + 1]]) != sign)
            return false;
    bool past_half = false;
    for (uint32_t k = 3; k < m; k++) {
        int s = kcbp_orient3d(pv, a0, a1, V[link[k]]) * sign;
        if (past_half ? s >= 0 : s <= 0) {
            if (past_half)
                return false;
            past_half = true;
        }
    }
    return true;
}

/* The triangles round each canonical vertex (those without a repeated
 * vertex): inc[first[v] .. first[v] + deg[v]). */
typedef struct {
    uint32_t *deg, *first, *inc, dmax;
} incidence;

static bool incidence_build(const kcbp_mesh *mesh, const certs *ce, incidence *in)
{
    uint32_t nt = mesh->ntriangles, nv = mesh->nvertices;
    in->deg = calloc((size_t)nv + 1, sizeof *in->deg);
    in->first = malloc(((size_t)nv + 2) * sizeof *in->first);
    in->inc = malloc(((size_t)nt * 3 + 1) * sizeof *in->inc);
    in->dmax = 0;
    if (!in->deg || !in->first || !in->inc)
        return false;
    for (uint32_t t = 0; t < nt; t++)
        if (!ce->skip[t])
            for (int k = 0; k < 3; k++)
                in->deg[ce->cv[t][k]]++;
    in->first[0] = 0;
    for (uint32_t v = 0; v < nv; v++) {
        in->first[v + 1] = in->first[v] + in->deg[v];
        if (in->deg[v] > in->dmax)
            in->dmax = in->deg[v];
        in->deg[v] = 0;
    }
    for (uint32_t t = 0; t < nt; t++)
        if (!ce->skip[t])
            for (int k = 0; k < 3; k++) {
                uint32_t v = ce->cv[t][k];
                in->inc[in->first[v] + in->deg[v]++] = t;
            }
    return true;
}

static void incidence_free(incidence *in)
{
    free(in->deg);
    free(in->first);
    free(in->inc);
}

static kcbp_status certify_stars(const kcbp_mesh *mesh, certs *ce, const uint8_t *area, const incidence *in,
                                 kcbp_error *err)
{
    if (in->dmax < STAR_MIN)
        return KCBP_OK;
    star_entry *se = malloc((size_t)in->dmax * sizeof *se);
    uint32_t *link = malloc(((size_t)in->dmax * 2 + 2) * sizeof *link); /* d + 1 entries, then d bytes of marks */
    if (!se || !link) {
        free(se);
        free(link);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    }
    for (uint32_t v = 0; v < mesh->nvertices; v++)
        if (in->deg[v] >= STAR_MIN)
            ce->star[v] = star_ok(mesh, ce, area, v, in->inc + in->first[v], in->deg[v], se, link);
    free(se);
    free(link);
    return KCBP_OK;
}

/* Vertices of more triangles than this are not searched for the patches
 * they belong to (a fan's centre: the search would be quadratic). */
#define REST_SCAN 64

/* Vertex w (canonical) is a vertex of patch p; with x != NONE, the edge
 * w x is an edge of one of p's triangles. */
static bool patch_has(const certs *ce, const incidence *in, uint32_t p, uint32_t w, uint32_t x)
{
    if (in->deg[w] > REST_SCAN)
        return false;
    for (uint32_t i = in->first[w]; i < in->first[w] + in->deg[w]; i++) {
        uint32_t u = in->inc[i];
        if (ce->patch[u] == p && (x == NONE || ce->cv[u][0] == x || ce->cv[u][1] == x || ce->cv[u][2] == x))
            return true;
    }
    return false;
}

/* Triangle t rests on certified patch p: its vertices are all on one
 * closed side of p's plane (exact signs), not all in it, and those in it
 * are a vertex of p, or the two ends of an edge of p. Then t meets p's
 * plane in that vertex or edge only, and p's triangles meet it only along
 * what they share with t: in a certified patch no triangle touches another
 * one's vertex or edge other than at what they share (certify_patches), so
 * a triangle of p meets t's vertex w only if w is its own vertex, and t's
 * edge e only in its own vertices on e, or along e when it is its own
 * edge (then t, off p's plane, is not coplanar with it). */
static bool rests_on(const kcbp_mesh *mesh, const certs *ce, const incidence *in, uint32_t t, uint32_t p)
{
    const kcbp_vec3 *V = mesh->vertices;
    const uint32_t *pv = mesh->triangles[p].v, *tv = mesh->triangles[t].v;
    const kcbp_vec3 P[3] = {V[pv[0]], V[pv[1]], V[pv[2]]}, T[3] = {V[tv[0]], V[tv[1]], V[tv[2]]};
    int s[3], on[3], n = 0;
    plane_sides(P, &ce->plane[p], T, 3, s);
    bool pos = s[0] > 0 || s[1] > 0 || s[2] > 0, neg = s[0] < 0 || s[1] < 0 || s[2] < 0;
    if (pos == neg)
        return false; /* crossing the plane, or in it */
    for (int k = 0; k < 3; k++)
        if (s[k] == 0)
            on[n++] = k;
    if (n == 1)
        return patch_has(ce, in, p, ce->cv[t][on[0]], NONE);
    if (n == 2)
        return patch_has(ce, in, p, ce->cv[t][on[0]], ce->cv[t][on[1]]);
    return false;
}

/* The two largest patches (most triangles; ties by the lower number) each
 * triangle rests on (NONE-padded), among the patches of the triangles round
 * its vertices (those of at most REST_SCAN): a large patch's pairs are the
 * many; a small neighbour's, few. */
static void certify_rests(const kcbp_mesh *mesh, certs *ce, const uint8_t *area, const incidence *in,
                          const uint32_t *psize)
{
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        uint32_t *rest = ce->rest[t];
        rest[0] = rest[1] = NONE;
        if (ce->skip[t] || !area[t])
            continue;
        uint32_t tried[16], ntried = 0;
        for (int k = 0; k < 3; k++) {
            uint32_t w = ce->cv[t][k];
            if (in->deg[w] > REST_SCAN)
                continue;
            for (uint32_t i = in->first[w]; i < in->first[w] + in->deg[w]; i++) {
                uint32_t p = ce->patch[in->inc[i]];
                if (p == NONE || p == ce->patch[t])
                    continue;
                bool seen = false;
                for (uint32_t j = 0; j < ntried; j++)
                    seen |= tried[j] == p;
                if (seen || ntried == 16)
                    continue;
                tried[ntried++] = p;
                if (!rests_on(mesh, ce, in, t, p))
                    continue;
                /* keep the two largest: rest[0] the larger */
#define BIGGER(x, y) ((y) == NONE || psize[x] > psize[y] || (psize[x] == psize[y] && (x) < (y)))
                if (BIGGER(p, rest[0])) {
                    rest[1] = rest[0];
                    rest[0] = p;
                } else if (BIGGER(p, rest[1])) {
                    rest[1] = p;
                }
#undef BIGGER
            }
        }
    }
}

/* The nodes' patches and certified vertices, children before parents. */
static kcbp_status annotate_nodes(const kcbp_mesh *mesh, const kcbp_aabb_tree *tree, certs *ce, kcbp_error *err)
{
    uint32_t nn = tree->nnodes, *order = malloc(((size_t)nn + 1) * sizeof *order);
    uint32_t *stack = malloc(((size_t)nn + 1) * sizeof *stack);
    if (!order || !stack) {
        free(order);
        free(stack);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    }
    uint32_t no = 0, top = 0;
    stack[top++] = 0;
    while (top > 0) { /* preorder: parents before children */
        uint32_t i = stack[--top];
        order[no++] = i;
        if (tree->nodes[i].count == 0 && no + top + 2 <= nn + 1) {
            stack[top++] = tree->nodes[i].first;
            stack[top++] = tree->nodes[i].first + 1;
        }
    }
    for (uint32_t x = no; x-- > 0;) {
        uint32_t i = order[x];
        const kcbp_aabb_node *n = &tree->nodes[i];
        uint32_t patch, cv[3] = {NONE, NONE, NONE}, rest[2] = {NONE, NONE};
        kcbp_vec3 lo = kcbp_v3(INFINITY, INFINITY, INFINITY), hi = kcbp_v3(-INFINITY, -INFINITY, -INFINITY);
        if (n->count > 0) {
            for (uint32_t s = n->first; s < n->first + n->count; s++)
                for (int k = 0; k < 3; k++) {
                    kcbp_vec3 p = mesh->vertices[mesh->triangles[tree->tri_ids[s]].v[k]];
                    lo = kcbp_v3_min(lo, p);
                    hi = kcbp_v3_max(hi, p);
                }
            uint32_t t0 = tree->tri_ids[n->first];
            patch = ce->patch[t0];
            rest[0] = ce->rest[t0][0];
            rest[1] = ce->rest[t0][1];
            int m = 0;
            for (int k = 0; k < 3; k++)
                if (ce->star[ce->cv[t0][k]])
                    cv[m++] = ce->cv[t0][k];
            for (uint32_t s = n->first + 1; s < n->first + n->count; s++) {
                uint32_t t = tree->tri_ids[s];
                if (ce->patch[t] != patch)
                    patch = NONE;
                for (int k = 0; k < 2; k++)
                    if (rest[k] != ce->rest[t][0] && rest[k] != ce->rest[t][1])
                        rest[k] = NONE;
                for (int k = 0; k < 3; k++)
                    if (cv[k] != NONE && cv[k] != ce->cv[t][0] && cv[k] != ce->cv[t][1] && cv[k] != ce->cv[t][2])
                        cv[k] = NONE;
            }
        } else {
            uint32_t l = n->first, r = n->first + 1;
            lo = kcbp_v3_min(ce->node_box[l][0], ce->node_box[r][0]);
            hi = kcbp_v3_max(ce->node_box[l][1], ce->node_box[r][1]);
            patch = ce->node_patch[l] == ce->node_patch[r] ? ce->node_patch[l] : NONE;
            for (int k = 0; k < 2; k++) {
                uint32_t x0 = ce->node_rest[l][k];
                rest[k] = x0 != NONE && (x0 == ce->node_rest[r][0] || x0 == ce->node_rest[r][1]) ? x0 : NONE;
            }
            for (int k = 0; k < 3; k++) {
                uint32_t x0 = ce->node_cv[l][k];
                if (x0 != NONE && (x0 == ce->node_cv[r][0] || x0 == ce->node_cv[r][1] || x0 == ce->node_cv[r][2]))
                    cv[k] = x0;
            }
        }
        ce->node_patch[i] = patch;
        memcpy(ce->node_cv[i], cv, sizeof cv);
        ce->node_rest[i][0] = rest[0];
        ce->node_rest[i][1] = rest[1];
        ce->node_box[i][0] = lo;
        ce->node_box[i][1] = hi;
    }
    free(order);
    free(stack);
    return KCBP_OK;
}

static void certs_free(certs *ce)
{
    free(ce->cv);
    free(ce->skip);
    free(ce->patch);
    free(ce->star);
    free(ce->node_patch);
    free(ce->node_cv);
    free(ce->node_box);
    free(ce->plane);
    free(ce->rest);
    free(ce->node_rest);
    memset(ce, 0, sizeof *ce);
}

static kcbp_status certify(const kcbp_model_impl *model, const uint32_t *canon, kcbp_self_how how, certs *ce,
                           kcbp_error *err)
{
    const kcbp_mesh *mesh = &model->mesh;
    uint32_t nt = mesh->ntriangles, nn = model->tree.nnodes;
    memset(ce, 0, sizeof *ce);
    ce->how = how;
    uint8_t *area = malloc((size_t)nt + 1);
    ce->cv = malloc(((size_t)nt + 1) * sizeof *ce->cv);
    ce->skip = malloc((size_t)nt + 1);
    ce->patch = malloc(((size_t)nt + 1) * sizeof *ce->patch);
    ce->star = calloc((size_t)mesh->nvertices + 1, 1);
    ce->node_patch = malloc(((size_t)nn + 1) * sizeof *ce->node_patch);
    ce->node_cv = malloc(((size_t)nn + 1) * sizeof *ce->node_cv);
    ce->node_box = malloc(((size_t)nn + 1) * sizeof *ce->node_box);
    ce->plane = malloc(((size_t)nt + 1) * sizeof *ce->plane);
    ce->rest = malloc(((size_t)nt + 1) * sizeof *ce->rest);
    ce->node_rest = malloc(((size_t)nn + 1) * sizeof *ce->node_rest);
    if (!area || !ce->cv || !ce->skip || !ce->patch || !ce->star || !ce->node_patch || !ce->node_cv ||
        !ce->node_box || !ce->plane || !ce->rest || !ce->node_rest) {
        free(area);
        certs_free(ce);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    }
    const kcbp_vec3 *V = mesh->vertices;
    for (uint32_t t = 0; t < nt; t++) {
        const uint32_t *v = mesh->triangles[t].v;
        for (int k = 0; k < 3; k++)
            ce->cv[t][k] = canon[v[k]];
        ce->skip[t] = ce->cv[t][0] == ce->cv[t][1] || ce->cv[t][1] == ce->cv[t][2] || ce->cv[t][2] == ce->cv[t][0];
        area[t] = !ce->skip[t] && has_area(V[v[0]], V[v[1]], V[v[2]]);
    }
    kcbp_status st = certify_patches(mesh, ce, area, err);
    for (uint32_t t = 0; st == KCBP_OK && t < nt; t++)
        if (ce->patch[t] == t) {
            const uint32_t *v = mesh->triangles[t].v;
            ce->plane[t] = kcbp_fplane_of(V[v[0]], V[v[1]], V[v[2]]);
        }
    incidence in = {0};
    if (st == KCBP_OK && !incidence_build(mesh, ce, &in))
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    if (st == KCBP_OK)
        st = certify_stars(mesh, ce, area, &in, err);
    uint32_t *psize = st == KCBP_OK ? calloc((size_t)nt + 1, sizeof *psize) : NULL;
    if (st == KCBP_OK && !psize)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    if (st == KCBP_OK) {
        for (uint32_t t = 0; t < nt; t++)
            if (ce->patch[t] != NONE)
                psize[ce->patch[t]]++;
        certify_rests(mesh, ce, area, &in, psize);
    }
    free(psize);
    incidence_free(&in);
    if (st == KCBP_OK)
        st = annotate_nodes(mesh, &model->tree, ce, err);
    free(area);
    if (st != KCBP_OK)
        certs_free(ce);
    return st;
}

/* The pair is proved apart by a certificate: both in one certified patch,
 * or sharing a vertex whose star is certified. */
static bool certified_apart(const certs *ce, uint32_t ta, uint32_t tb)
{
    uint32_t pa = ce->patch[ta], pb = ce->patch[tb];
    if (pa != NONE && (pa == pb || pa == ce->rest[tb][0] || pa == ce->rest[tb][1]))
        return true;
    if (pb != NONE && (pb == ce->rest[ta][0] || pb == ce->rest[ta][1]))
        return true;
    for (int i = 0; i < 3; i++) {
        uint32_t v = ce->cv[ta][i];
        if (ce->star[v] && (v == ce->cv[tb][0] || v == ce->cv[tb][1] || v == ce->cv[tb][2]))
            return true;
    }
    return false;
}

/* The box [lo, hi] is certainly strictly on one side of the plane: its
 * eight corners are (the orient3d filter alone; no answer is no). */
static bool box_one_side(const kcbp_fplane *pl, const kcbp_vec3 box[2])
{
    int side = 0;
    for (int k = 0; k < 8; k++) {
        kcbp_vec3 p = kcbp_v3(box[k & 1].x, box[(k >> 1) & 1].y, box[(k >> 2) & 1].z);
        int s = kcbp_fplane_side(pl, p);
        if (s == 0 || (side != 0 && s != side))
            return false;
        side = s;
    }
    return true;
}

/* Every pair of triangles of nodes i and j is proved apart: both nodes in
 * one certified patch; every triangle round one certified vertex; or the
 * triangles of one node in a patch's plane and the other node's box
 * strictly on one side of that plane (its triangles, inside the box, then
 * miss the plane, which holds the first node's). */
static bool nodes_apart(const certs *ce, uint32_t i, uint32_t j)
{
    uint32_t pi = ce->node_patch[i], pj = ce->node_patch[j];
    if (pi != NONE && pi == pj)
        return true;
    if (pi != NONE && (pi == ce->node_rest[j][0] || pi == ce->node_rest[j][1]))
        return true;
    if (pj != NONE && (pj == ce->node_rest[i][0] || pj == ce->node_rest[i][1]))
        return true;
    if ((pi != NONE && box_one_side(&ce->plane[pi], ce->node_box[j])) ||
        (pj != NONE && box_one_side(&ce->plane[pj], ce->node_box[i])))
        return true;
    for (int k = 0; k < 3; k++) {
        uint32_t v = ce->node_cv[i][k];
        if (v != NONE && (v == ce->node_cv[j][0] || v == ce->node_cv[j][1] || v == ce->node_cv[j][2]))
            return true;
    }
    return false;
}

/* --------------------------------------------------------- traversal --- */

static bool has_repeat(const self_ctx *c, uint32_t t)
{
    const uint32_t *v = c->mesh->triangles[t].v;
    uint32_t a = c->canon[v[0]], b = c->canon[v[1]], d = c->canon[v[2]];
    return a == b || b == d || d == a;
}

/* Records the pair (false when memory runs out: the search stops). */
static bool add_pair(self_ctx *c, uint32_t ta, uint32_t tb)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        kcbp_contact *grown = realloc(c->out, cap * sizeof *grown);
        if (!grown) {
            c->nomem = c->stop = true;
            return false;
        }
        c->out = grown, c->cap = cap;
    }
    c->out[c->n++] = (kcbp_contact){ta < tb ? ta : tb, ta < tb ? tb : ta};
    c->stop = c->mode != KCBP_CONTACTS_ALL || (c->max && c->n >= c->max);
    return true;
}

static int cmp_pair(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

static kcbp_status finish(self_ctx *c, kcbp_contact **pairs, size_t *npairs, kcbp_tree_stats *stats, kcbp_error *err)
{
    if (stats)
        *stats = c->stats;
    if (c->nomem) {
        free(c->out);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersecting pairs");
    }
    if (c->n > 1)
        qsort(c->out, c->n, sizeof *c->out, cmp_pair);
    *pairs = c->out;
    *npairs = c->n;
    return KCBP_OK;
}

static void test_pair(self_ctx *c, const kcbp_aabb_tree *tree, uint32_t sa, uint32_t sb)
{
    uint32_t ta = tree->tri_ids[sa], tb = tree->tri_ids[sb];
    if (has_repeat(c, ta) || has_repeat(c, tb))
        return;
    if (c->cert && certified_apart(c->cert, ta, tb))
        return;
    c->stats.tri_pairs++;
    if (pair_meets(c, ta, tb, tree->tri_verts[sa], tree->tri_verts[sb]))
        (void)add_pair(c, ta, tb);
}

static bool boxes_overlap(const kcbp_aabb_node *p, const kcbp_aabb_node *q, double pad)
{
    return fabs(p->center.x - q->center.x) <= p->extent.x + q->extent.x + pad &&
           fabs(p->center.y - q->center.y) <= p->extent.y + q->extent.y + pad &&
           fabs(p->center.z - q->center.z) <= p->extent.z + q->extent.z + pad;
}


/* Per node: all its triangles have a repeated vertex (points and
 * segments, which meet nothing by the rules of pair_meets: test_pair
 * skips every pair with one), so every pair with a triangle under it is
 * skipped whole. Without this, a polygon whose corners are all at one
 * point (every triangle a point, every box the same) walked all n^2 / 2
 * pairs of boxes to test none of them. NULL when out of memory. */
static uint8_t *dead_nodes(const self_ctx *c, const kcbp_aabb_tree *tree)
{
    uint32_t nn = tree->nnodes;
    uint8_t *dead = malloc((size_t)nn + 1);
    uint32_t *order = malloc(((size_t)nn + 1) * sizeof *order), *stack = malloc(((size_t)nn + 1) * sizeof *stack);
    if (!dead || !order || !stack) {
        free(dead);
        free(order);
        free(stack);
        return NULL;
    }
    uint32_t no = 0, top = 0;
    stack[top++] = 0;
    while (top > 0) { /* preorder: parents before children */
        uint32_t i = stack[--top];
        order[no++] = i;
        if (tree->nodes[i].count == 0 && no + top + 2 <= nn + 1) {
            stack[top++] = tree->nodes[i].first;
            stack[top++] = tree->nodes[i].first + 1;
        }
    }
    for (uint32_t x = no; x-- > 0;) {
        uint32_t i = order[x];
        const kcbp_aabb_node *n = &tree->nodes[i];
        bool d = true;
        if (n->count > 0)
            for (uint32_t s = n->first; s < n->first + n->count && d; s++)
                d = has_repeat(c, tree->tri_ids[s]);
        else
            d = dead[n->first] && dead[n->first + 1];
        dead[i] = d;
    }
    free(order);
    free(stack);
    return dead;
}

/* Every pair of triangles, no tree, no certificate: the oracle. */
static void brute_force(self_ctx *c)
{
    const kcbp_mesh *mesh = c->mesh;
    for (uint32_t ta = 0; ta < mesh->ntriangles && !c->stop; ta++)
        for (uint32_t tb = ta + 1; tb < mesh->ntriangles && !c->stop; tb++) {
            if (has_repeat(c, ta) || has_repeat(c, tb))
                continue;
            const uint32_t *va = mesh->triangles[ta].v, *vb = mesh->triangles[tb].v;
            kcbp_vec3 A[3] = {mesh->vertices[va[0]], mesh->vertices[va[1]], mesh->vertices[va[2]]};
            kcbp_vec3 B[3] = {mesh->vertices[vb[0]], mesh->vertices[vb[1]], mesh->vertices[vb[2]]};
            c->stats.tri_pairs++;
            if (pair_meets(c, ta, tb, A, B) && !add_pair(c, ta, tb))
                return;
        }
}

kcbp_status kcbp_self_intersections(const kcbp_model *handle, kcbp_contacts_mode mode, kcbp_contact **pairs,
                                    size_t *npairs, kcbp_tree_stats *stats, kcbp_error *err)
{
    return kcbp_self_intersections_how(handle, mode, KCBP_SELF_CERTIFIED, pairs, npairs, stats, err);
}

kcbp_status kcbp_self_intersections_how(const kcbp_model *handle, kcbp_contacts_mode mode, kcbp_self_how how,
                                        kcbp_contact **pairs, size_t *npairs, kcbp_tree_stats *stats,
                                        kcbp_error *err)
{
    return kcbp_self_intersections_run(handle, mode, how, 0, pairs, npairs, stats, err);
}

kcbp_status kcbp_self_intersections_run(const kcbp_model *handle, kcbp_contacts_mode mode, kcbp_self_how how,
                                        uint64_t max_pairs, kcbp_contact **pairs, size_t *npairs,
                                        kcbp_tree_stats *stats, kcbp_error *err)
{
    const kcbp_model_impl *model = handle->impl;
    *pairs = NULL;
    *npairs = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    const kcbp_aabb_tree *tree = &model->tree;
    if (tree->nnodes == 0)
        return KCBP_OK;
    self_ctx c = {.mesh = &model->mesh, .mode = mode, .max = max_pairs};
    c.canon = kcbp_mesh_weld_map(&model->mesh);
    if (!c.canon)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    if (how == KCBP_SELF_BRUTE_FORCE) {
        brute_force(&c);
        free((void *)c.canon);
        return finish(&c, pairs, npairs, stats, err);
    }
    certs ce;
    memset(&ce, 0, sizeof ce);
    if (how != KCBP_SELF_TREE_ONLY) {
        kcbp_status st = certify(model, c.canon, how, &ce, err);
        if (st != KCBP_OK) {
            free((void *)c.canon);
            return st;
        }
        c.cert = &ce;
    }
    /* A stack of node pairs (i, j), i == j meaning the pairs within one
     * node. Each step pushes at most 3 and pops 1; a pair (i, j) with i != j
     * descends one side at a time, so the stack stays below 3 per level of
     * both trees' depth. */
    size_t cap = 6 * ((size_t)tree->depth + 2);
    uint32_t(*stack)[2] = malloc(cap * sizeof *stack);
    uint8_t *dead = dead_nodes(&c, tree);
    if (!stack || !dead) {
        free(stack);
        free(dead);
        certs_free(&ce);
        free((void *)c.canon);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersection test");
    }
    /* Boxes widened far above the rounding of their centres and sizes. */
    double pad = kcbp_tri_tolerance(model->scale);
    size_t top = 0;
    stack[top][0] = stack[top][1] = 0;
    top++;
    while (top > 0 && !c.stop) {
        top--;
        uint32_t i = stack[top][0], j = stack[top][1];
        const kcbp_aabb_node *p = &tree->nodes[i], *q = &tree->nodes[j];
        if (dead[i] || dead[j])
            continue; /* every pair has a point or a segment: none tested */
        if (i == j) {
            if (c.cert && (ce.node_patch[i] != NONE || ce.node_cv[i][0] != NONE || ce.node_cv[i][1] != NONE ||
                           ce.node_cv[i][2] != NONE))
                continue; /* every pair under it proved apart */
            if (p->count > 0) {
                for (uint32_t s = p->first; s < p->first + p->count && !c.stop; s++)
                    for (uint32_t t = s + 1; t < p->first + p->count && !c.stop; t++)
                        test_pair(&c, tree, s, t);
                continue;
            }
            uint32_t l = p->first, r = p->first + 1;
            stack[top][0] = l, stack[top][1] = r, top++;
            stack[top][0] = stack[top][1] = r, top++;
            stack[top][0] = stack[top][1] = l, top++;
            continue;
        }
        if (c.cert && nodes_apart(&ce, i, j))
            continue;
        c.stats.box_pairs++;
        if (!boxes_overlap(p, q, pad))
            continue;
        if (p->count > 0 && q->count > 0) {
            for (uint32_t s = p->first; s < p->first + p->count && !c.stop; s++)
                for (uint32_t t = q->first; t < q->first + q->count && !c.stop; t++)
                    test_pair(&c, tree, s, t);
            continue;
        }
        /* Descend the inner node with the larger box (either, when both are). */
        bool down_p = q->count > 0 ||
                      (p->count == 0 && p->extent.x + p->extent.y + p->extent.z >= q->extent.x + q->extent.y + q->extent.z);
        uint32_t keep = down_p ? j : i, split = down_p ? i : j;
        uint32_t first = tree->nodes[split].first;
        stack[top][0] = first + 1, stack[top][1] = keep, top++;
        stack[top][0] = first, stack[top][1] = keep, top++;
    }
    certs_free(&ce);
    free((void *)c.canon);
    free(stack);
    free(dead);
    return finish(&c, pairs, npairs, stats, err);
}
