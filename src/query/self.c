/* Self-intersection (include/kcbp/self.h): the AABB tree against itself,
 * each unordered pair of nodes visited once, then the exact triangle test
 * with CGAL's rules for triangles that share vertices. */
#include <kcbp/self.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "geom/predicates.h"
#include "geom/tritri_exact.h"
#include "mesh/topology.h"
#include "model_internal.h"

typedef struct {
    const kcbp_mesh *mesh;
    const uint32_t *canon;
    kcbp_contacts_mode mode;
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

/* Segment pq meets triangle t, exactly: first in a projection where t has
 * area (projections of sets that meet meet), which settles the
 * neighbours of a flat region with orient2d alone. */
static bool seg_meets(kcbp_vec3 p, kcbp_vec3 q, const kcbp_vec3 t[3])
{
    for (int k = 2; k >= 0; k--)
        if (o2_drop(t[0], t[1], t[2], k) != 0) {
            if (!kcbp_seg_tri_intersect_axis(p, q, t, k))
                return false;
            break;
        }
    return kcbp_seg_tri_intersect(p, q, t);
}

/* Triangles a and b (no common vertex) meet, exactly. When the filter
 * cannot place a's vertices strictly on b's side (a flat region, where
 * the orientations are exactly zero and only GMP can say so), their
 * projections are compared first, with orient2d: two convex sets meet
 * when an edge of one meets the other, and projections of sets that meet
 * meet. */
static bool tris_meet(const kcbp_vec3 a[3], const kcbp_vec3 b[3])
{
    int s0 = kcbp_orient3d_filtered(b[0], b[1], b[2], a[0]), s1 = kcbp_orient3d_filtered(b[0], b[1], b[2], a[1]),
        s2 = kcbp_orient3d_filtered(b[0], b[1], b[2], a[2]);
    if (s0 != 0 && s0 == s1 && s1 == s2)
        return false;
    if (s0 == 0 || s1 == 0 || s2 == 0)
        for (int k = 2; k >= 0; k--)
            if (o2_drop(b[0], b[1], b[2], k) != 0) {
                bool met = false;
                for (int i = 0; i < 3 && !met; i++)
                    met = kcbp_seg_tri_intersect_axis(a[i], a[(i + 1) % 3], b, k);
                if (!met && o2_drop(a[0], a[1], a[2], k) != 0)
                    for (int i = 0; i < 3 && !met; i++)
                        met = kcbp_seg_tri_intersect_axis(b[i], b[(i + 1) % 3], a, k);
                if (!met)
                    return false;
                break;
            }
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
        return seg_meets(A[(i + 1) % 3], A[(i + 2) % 3], B) || seg_meets(B[(j + 1) % 3], B[(j + 2) % 3], A);
    }
    if (shared == 2) {
        kcbp_vec3 u = A[ia[0]], v = A[ia[1]];
        kcbp_vec3 a = A[3 - ia[0] - ia[1]], b = B[3 - ib[0] - ib[1]];
        return edge_pair_meets(u, v, a, b);
    }
    return true; /* the same three vertices */
}

static bool has_repeat(const self_ctx *c, uint32_t t)
{
    const uint32_t *v = c->mesh->triangles[t].v;
    uint32_t a = c->canon[v[0]], b = c->canon[v[1]], d = c->canon[v[2]];
    return a == b || b == d || d == a;
}

static void test_pair(self_ctx *c, const kcbp_aabb_tree *tree, uint32_t sa, uint32_t sb)
{
    uint32_t ta = tree->tri_ids[sa], tb = tree->tri_ids[sb];
    if (has_repeat(c, ta) || has_repeat(c, tb))
        return;
    c->stats.tri_pairs++;
    if (!pair_meets(c, ta, tb, tree->tri_verts[sa], tree->tri_verts[sb]))
        return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        kcbp_contact *grown = realloc(c->out, cap * sizeof *grown);
        if (!grown) {
            c->nomem = c->stop = true;
            return;
        }
        c->out = grown, c->cap = cap;
    }
    c->out[c->n++] = (kcbp_contact){ta < tb ? ta : tb, ta < tb ? tb : ta};
    c->stop = c->mode != KCBP_CONTACTS_ALL;
}

static bool boxes_overlap(const kcbp_aabb_node *p, const kcbp_aabb_node *q, double pad)
{
    return fabs(p->center.x - q->center.x) <= p->extent.x + q->extent.x + pad &&
           fabs(p->center.y - q->center.y) <= p->extent.y + q->extent.y + pad &&
           fabs(p->center.z - q->center.z) <= p->extent.z + q->extent.z + pad;
}

static int cmp_pair(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

kcbp_status kcbp_self_intersections(const kcbp_model *handle, kcbp_contacts_mode mode, kcbp_contact **pairs,
                                    size_t *npairs, kcbp_tree_stats *stats, kcbp_error *err)
{
    const kcbp_model_impl *model = handle->impl;
    *pairs = NULL;
    *npairs = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    const kcbp_aabb_tree *tree = &model->tree;
    if (tree->nnodes == 0)
        return KCBP_OK;
    self_ctx c = {.mesh = &model->mesh, .mode = mode};
    c.canon = kcbp_mesh_weld_map(&model->mesh);
    /* A stack of node pairs (i, j), i == j meaning the pairs within one
     * node. Each step pushes at most 3 and pops 1; a pair (i, j) with i != j
     * descends one side at a time, so the stack stays below 3 per level of
     * both trees' depth. */
    size_t cap = 6 * ((size_t)tree->depth + 2);
    uint32_t(*stack)[2] = malloc(cap * sizeof *stack);
    if (!c.canon || !stack) {
        free((void *)c.canon);
        free(stack);
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
        if (i == j) {
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
    free((void *)c.canon);
    free(stack);
    if (stats)
        *stats = c.stats;
    if (c.nomem) {
        free(c.out);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the self-intersecting pairs");
    }
    if (c.n > 1)
        qsort(c.out, c.n, sizeof *c.out, cmp_pair);
    *pairs = c.out;
    *npairs = c.n;
    return KCBP_OK;
}
