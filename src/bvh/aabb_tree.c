/* AABB tree: top-down build with a binned surface-area heuristic
 * (I. Wald, "On fast Construction of SAH-based Bounding Volume Hierarchies",
 * IEEE RT 2007), and a simultaneous traversal of two trees with the
 * separating-axis test of boxes in different frames (Gottschalk, Lin,
 * Manocha, "OBBTree", SIGGRAPH 1996). */
#include "aabb_tree.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "geom/linalg.h"
#include "base/util.h"

enum {
    SAH_BINS = 16,
    /* Past this depth the build splits at the median, so the depth stays
     * below SAH_DEPTH_MAX + log2(KCBP_MESH_MAX_ELEMENTS) < STACK_PER_TREE. */
    SAH_DEPTH_MAX = 64,
    STACK_PER_TREE = 96,
};

typedef struct {
    kcbp_vec3 lo, hi;
} box3;

static box3 box_empty(void)
{
    box3 b = {{DBL_MAX, DBL_MAX, DBL_MAX}, {-DBL_MAX, -DBL_MAX, -DBL_MAX}};
    return b;
}
static void box_add(box3 *b, kcbp_vec3 p)
{
    b->lo = kcbp_v3_min(b->lo, p);
    b->hi = kcbp_v3_max(b->hi, p);
}
static void box_merge(box3 *b, box3 o)
{
    b->lo = kcbp_v3_min(b->lo, o.lo);
    b->hi = kcbp_v3_max(b->hi, o.hi);
}
static double box_half_area(box3 b)
{
    if (b.lo.x > b.hi.x)
        return 0.0;
    kcbp_vec3 d = kcbp_v3_sub(b.hi, b.lo);
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

typedef struct {
    const box3 *tri_box;
    const kcbp_vec3 *centroid;
    uint32_t *order;
} build_ctx;

static void swap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

/* Reorders order[begin, end) so that its middle element is the median by
 * centroid on axis (quickselect with a three-way partition, so that equal
 * keys cannot make it quadratic). */
static void median_split(const build_ctx *c, uint32_t begin, uint32_t end, int axis)
{
    uint32_t k = begin + (end - begin) / 2, lo = begin, hi = end;
    while (hi - lo > 1) {
        double pivot = kcbp_v3_get(c->centroid[c->order[lo + (hi - lo) / 2]], axis);
        uint32_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            double key = kcbp_v3_get(c->centroid[c->order[i]], axis);
            if (key < pivot)
                swap_u32(&c->order[lt++], &c->order[i++]);
            else if (key > pivot)
                swap_u32(&c->order[i], &c->order[--gt]);
            else
                i++;
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;
    }
}

/* Chooses a split of order[begin, end) and partitions it; returns the first
 * index of the right half (strictly between begin and end). */
static uint32_t split_range(const build_ctx *c, uint32_t begin, uint32_t end, uint32_t depth)
{
    box3 cb = box_empty();
    for (uint32_t i = begin; i < end; i++)
        box_add(&cb, c->centroid[c->order[i]]);
    kcbp_vec3 size = kcbp_v3_sub(cb.hi, cb.lo);
    int axis = size.x >= size.y && size.x >= size.z ? 0 : size.y >= size.z ? 1 : 2;
    double lo = kcbp_v3_get(cb.lo, axis), extent = kcbp_v3_get(size, axis);
    uint32_t mid = begin + (end - begin) / 2;
    if (!(extent > 0.0))
        return mid; /* all centroids coincide: any split is as good */
    if (depth >= SAH_DEPTH_MAX) {
        median_split(c, begin, end, axis);
        return mid;
    }
    box3 bin_box[SAH_BINS];
    uint32_t bin_count[SAH_BINS] = {0};
    for (int i = 0; i < SAH_BINS; i++)
        bin_box[i] = box_empty();
    double to_bin = SAH_BINS * (1.0 - 1e-9) / extent;
    if (!isfinite(to_bin)) { /* a subnormal extent: (x - lo) * to_bin would be 0 * inf */
        median_split(c, begin, end, axis);
        return mid;
    }
    for (uint32_t i = begin; i < end; i++) {
        uint32_t t = c->order[i];
        int bin = (int)((kcbp_v3_get(c->centroid[t], axis) - lo) * to_bin);
        bin = bin < 0 ? 0 : bin >= SAH_BINS ? SAH_BINS - 1 : bin;
        bin_count[bin]++;
        box_merge(&bin_box[bin], c->tri_box[t]);
    }
    /* Sweep from the right to get the cost of every right half, then from the
     * left to choose the cheapest plane. */
    double right_cost[SAH_BINS];
    box3 acc = box_empty();
    uint32_t n = 0;
    for (int i = SAH_BINS - 1; i > 0; i--) {
        box_merge(&acc, bin_box[i]);
        n += bin_count[i];
        right_cost[i] = box_half_area(acc) * n;
    }
    acc = box_empty();
    n = 0;
    int best = -1;
    double best_cost = DBL_MAX;
    for (int i = 0; i < SAH_BINS - 1; i++) {
        box_merge(&acc, bin_box[i]);
        n += bin_count[i];
        double cost = box_half_area(acc) * n + right_cost[i + 1];
        if (n > 0 && n < end - begin && cost < best_cost) {
            best_cost = cost;
            best = i;
        }
    }
    if (best < 0) { /* cannot happen with extent > 0, but stay safe */
        median_split(c, begin, end, axis);
        return mid;
    }
    uint32_t i = begin, j = end;
    while (i < j) {
        uint32_t t = c->order[i];
        int bin = (int)((kcbp_v3_get(c->centroid[t], axis) - lo) * to_bin);
        bin = bin < 0 ? 0 : bin >= SAH_BINS ? SAH_BINS - 1 : bin;
        if (bin <= best) {
            i++;
        } else {
            c->order[i] = c->order[--j];
            c->order[j] = t;
        }
    }
    return i;
}

/* The slab along n (any direction: rounded or not, the slab holds the
 * points, since lo and hi are widened by the rounding of each n.p, at most
 * 3u sum |n_k p_k| (Higham's gamma_3) and one more rounding of d -+ err:
 * taken as 8u). Never separating when n is zero or anything is not
 * finite. */
static kcbp_tri_slab slab_along(kcbp_vec3 n, const kcbp_vec3 *p, uint32_t np)
{
    kcbp_tri_slab s = {{0, 0, 0}, -INFINITY, INFINITY};
    double len = kcbp_v3_len(n);
    if (!(len > 0) || !isfinite(len))
        return s;
    n = kcbp_v3_scale(n, 1 / len);
    double lo = INFINITY, hi = -INFINITY;
    for (uint32_t k = 0; k < np; k++) {
        double d = kcbp_v3_dot(n, p[k]), err = 8 * DBL_EPSILON * kcbp_v3_dot(kcbp_v3_abs(n), kcbp_v3_abs(p[k]));
        lo = fmin(lo, d - err);
        hi = fmax(hi, d + err);
    }
    if (!isfinite(lo) || !isfinite(hi))
        return s;
    s.n = n;
    s.lo = lo;
    s.hi = hi;
    return s;
}

static kcbp_vec3 tri_normal(const kcbp_vec3 t[3])
{
    return kcbp_v3_cross(kcbp_v3_sub(t[1], t[0]), kcbp_v3_sub(t[2], t[0]));
}

/* A leaf's slab: along the sum of its triangles' area-weighted normals
 * (for a leaf of nearly coplanar triangles, such as a quad, nearly as thin
 * as each triangle's). */
static kcbp_tri_slab leaf_slab_of(const kcbp_aabb_tree *tree, const kcbp_aabb_node *leaf)
{
    kcbp_vec3 n = {0, 0, 0};
    for (uint32_t i = 0; i < leaf->count; i++) {
        kcbp_vec3 ni = tri_normal(tree->tri_verts[leaf->first + i]);
        n = kcbp_v3_add(n, kcbp_v3_dot(n, ni) < 0 ? kcbp_v3_neg(ni) : ni);
    }
    return slab_along(n, &tree->tri_verts[leaf->first][0], 3 * leaf->count);
}

/* Reorders a box's axes so that the last has the smallest half-size (the
 * distance traversal's cheap bound looks along it); a swap negates the
 * first axis, so that the axes stay right-handed. */
static void thinnest_last(kcbp_obb *o)
{
    double e[3] = {o->extent.x, o->extent.y, o->extent.z};
    int k = e[0] < e[1] ? (e[0] < e[2] ? 0 : 2) : (e[1] < e[2] ? 1 : 2);
    if (k == 2)
        return;
    double t = e[k];
    e[k] = e[2];
    e[2] = t;
    for (int j = 0; j < 3; j++) {
        double u = o->axes.m[k][j];
        o->axes.m[k][j] = o->axes.m[2][j];
        o->axes.m[2][j] = u;
        o->axes.m[0][j] = -o->axes.m[0][j];
    }
    o->extent = kcbp_v3(e[0], e[1], e[2]);
}

/* The oriented boxes (kcbp_aabb_tree.obb), bottom-up: each node's surface
 * moments (area-weighted, about the root box's centre o, so that small
 * nodes far from the origin keep their precision) are its children's sum;
 * its box is along their principal axes, or along the mesh's axes (its
 * axis-aligned box) when that is not larger or the node has no area. The
 * slots of a node's triangles are contiguous: [lo, hi). */
static void build_obbs(kcbp_aabb_tree *tree)
{
    uint32_t nn = tree->nnodes;
    /* First pass, bottom-up: each node's moments, kept in its box's slot
     * until the second pass (no more memory: a mesh of 10^6 triangles has
     * 2 10^6 nodes), moved in and out with memcpy. */
    struct moments {
        double m[6]; /* xx yy zz xy xz yz */
        kcbp_vec3 sum;
        double area;
        uint32_t lo, hi;
    };
    _Static_assert(sizeof(struct moments) <= sizeof(kcbp_obb), "a node's moments fit in its box's slot");
    kcbp_vec3 o = tree->nodes[0].center;
    for (uint32_t i = nn; i-- > 0;) {
        const kcbp_aabb_node *n = &tree->nodes[i];
        struct moments mi = {{0}, {0, 0, 0}, 0, 0, 0}, *m = &mi;
        if (n->count) {
            m->lo = n->first;
            m->hi = n->first + n->count;
            for (uint32_t t = m->lo; t < m->hi; t++) {
                kcbp_vec3 p = kcbp_v3_sub(tree->tri_verts[t][0], o), q = kcbp_v3_sub(tree->tri_verts[t][1], o),
                          r = kcbp_v3_sub(tree->tri_verts[t][2], o);
                double a = 0.5 * kcbp_v3_len(kcbp_v3_cross(kcbp_v3_sub(q, p), kcbp_v3_sub(r, p)));
                if (!(a > 0) || !isfinite(a))
                    continue;
                kcbp_vec3 g = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(p, q), r), 1.0 / 3.0);
                double w = a / 12.0;
                m->m[0] += w * (9 * g.x * g.x + p.x * p.x + q.x * q.x + r.x * r.x);
                m->m[1] += w * (9 * g.y * g.y + p.y * p.y + q.y * q.y + r.y * r.y);
                m->m[2] += w * (9 * g.z * g.z + p.z * p.z + q.z * q.z + r.z * r.z);
                m->m[3] += w * (9 * g.x * g.y + p.x * p.y + q.x * q.y + r.x * r.y);
                m->m[4] += w * (9 * g.x * g.z + p.x * p.z + q.x * q.z + r.x * r.z);
                m->m[5] += w * (9 * g.y * g.z + p.y * p.z + q.y * q.z + r.y * r.z);
                m->sum = kcbp_v3_add(m->sum, kcbp_v3_scale(g, a));
                m->area += a;
            }
        } else {
            struct moments l, r;
            memcpy(&l, &tree->obb[n->first], sizeof l);
            memcpy(&r, &tree->obb[n->first + 1], sizeof r);
            for (int k = 0; k < 6; k++)
                m->m[k] = l.m[k] + r.m[k];
            m->sum = kcbp_v3_add(l.sum, r.sum);
            m->area = l.area + r.area;
            m->lo = l.lo < r.lo ? l.lo : r.lo;
            m->hi = l.hi > r.hi ? l.hi : r.hi;
        }
        memcpy(&tree->obb[i], m, sizeof *m);
    }
    /* Second pass: each node's box from its own moments. */
    for (uint32_t i = 0; i < nn; i++) {
        const kcbp_aabb_node *n = &tree->nodes[i];
        struct moments mi, *m = &mi;
        memcpy(m, &tree->obb[i], sizeof *m);
        /* The fallback: the node's axis-aligned box, padded as below (its
         * half-sizes cover its corners only up to rounding). */
        double pad = 64 * DBL_EPSILON * kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(n->center), n->extent));
        kcbp_obb box = {kcbp_mat3_identity(), n->center, kcbp_v3_add(n->extent, kcbp_v3(pad, pad, pad))};
        tree->obb[i] = box;
        if (!(m->area > 0) || !isfinite(m->area))
            continue;
        kcbp_vec3 mu = kcbp_v3_scale(m->sum, 1 / m->area);
        double cov[3][3], ev[3][3];
        cov[0][0] = m->m[0] / m->area - mu.x * mu.x;
        cov[1][1] = m->m[1] / m->area - mu.y * mu.y;
        cov[2][2] = m->m[2] / m->area - mu.z * mu.z;
        cov[0][1] = cov[1][0] = m->m[3] / m->area - mu.x * mu.y;
        cov[0][2] = cov[2][0] = m->m[4] / m->area - mu.x * mu.z;
        cov[1][2] = cov[2][1] = m->m[5] / m->area - mu.y * mu.z;
        kcbp_sym3_eigenvectors_approx(cov, ev, 1e-6);
        /* Rows: the first two eigenvectors (columns of ev), and their cross
         * product, so that the axes are right-handed. */
        kcbp_vec3 x = kcbp_v3(ev[0][0], ev[1][0], ev[2][0]), y = kcbp_v3(ev[0][1], ev[1][1], ev[2][1]);
        kcbp_vec3 z = kcbp_v3_cross(x, y);
        kcbp_mat3 axes = {{{x.x, x.y, x.z}, {y.x, y.y, y.z}, {z.x, z.y, z.z}}};
        if (!kcbp_v3_is_finite(x) || !kcbp_v3_is_finite(y) || !kcbp_v3_is_finite(z))
            continue;
        /* The box: the vertices' extremes along the axes. The pad covers
         * the rounding of projecting (3u |p| per coordinate), of carrying
         * the centre back to the mesh frame and of the axes' departure from
         * orthonormality (a few u each): 64u of the largest coordinate. */
        kcbp_vec3 lo = {DBL_MAX, DBL_MAX, DBL_MAX}, hi = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        for (uint32_t t = m->lo; t < m->hi; t++)
            for (int k = 0; k < 3; k++) {
                kcbp_vec3 s = kcbp_mat3_mul_v3(&axes, tree->tri_verts[t][k]);
                lo = kcbp_v3_min(lo, s);
                hi = kcbp_v3_max(hi, s);
            }
        /* (pad: the node's axis-aligned box bounds every coordinate) */
        kcbp_vec3 e = kcbp_v3_add(kcbp_v3_scale(kcbp_v3_sub(hi, lo), 0.5), kcbp_v3(pad, pad, pad));
        if (!(e.x * e.y * e.z < box.extent.x * box.extent.y * box.extent.z) || !kcbp_v3_is_finite(e))
            continue;
        box.axes = axes;
        box.center = kcbp_mat3_tmul_v3(&axes, kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5));
        box.extent = e;
        tree->obb[i] = box;
    }
    for (uint32_t i = 0; i < nn; i++)
        thinnest_last(&tree->obb[i]);
}

kcbp_status kcbp_aabb_tree_build(const kcbp_mesh *mesh, kcbp_aabb_tree *tree, kcbp_error *err)
{
    memset(tree, 0, sizeof *tree);
    uint32_t n = mesh->ntriangles;
    if (n == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "cannot build an AABB tree of an empty mesh");
    box3 *tri_box = malloc(n * sizeof *tri_box);
    kcbp_vec3 *centroid = malloc(n * sizeof *centroid);
    uint32_t *order = malloc(n * sizeof *order);
    struct item {
        uint32_t node, begin, end, depth;
    } *stack = malloc(n * sizeof *stack);
    tree->nodes = malloc((2 * (size_t)n - 1) * sizeof *tree->nodes);
    tree->tri_ids = order;
    tree->tri_verts = malloc(n * sizeof *tree->tri_verts);
    tree->parent = malloc((2 * (size_t)n - 1) * sizeof *tree->parent);
    tree->tri_slab = malloc(n * sizeof *tree->tri_slab);
    tree->leaf_slab = malloc((2 * (size_t)n - 1) * sizeof *tree->leaf_slab);
    tree->obb = malloc((2 * (size_t)n - 1) * sizeof *tree->obb);
    if (!tri_box || !centroid || !order || !stack || !tree->nodes || !tree->tri_verts || !tree->parent ||
        !tree->tri_slab || !tree->leaf_slab || !tree->obb) {
        free(tri_box);
        free(centroid);
        free(stack);
        kcbp_aabb_tree_free(tree);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the AABB tree of %u triangles", n);
    }
    for (uint32_t t = 0; t < n; t++) {
        const uint32_t *v = mesh->triangles[t].v;
        box3 b = box_empty();
        for (int k = 0; k < 3; k++)
            box_add(&b, mesh->vertices[v[k]]);
        tri_box[t] = b;
        centroid[t] = kcbp_v3_scale(kcbp_v3_add(b.lo, b.hi), 0.5);
        order[t] = t;
    }
    build_ctx c = {tri_box, centroid, order};
    size_t top = 0;
    stack[top++] = (struct item){0, 0, n, 1};
    tree->nnodes = 1;
    tree->parent[0] = 0;
    while (top > 0) {
        struct item it = stack[--top];
        box3 b = box_empty();
        for (uint32_t i = it.begin; i < it.end; i++)
            box_merge(&b, tri_box[order[i]]);
        kcbp_aabb_node *node = &tree->nodes[it.node];
        node->center = kcbp_v3_scale(kcbp_v3_add(b.lo, b.hi), 0.5);
        /* Half-sizes rounded so that the box still covers both corners. */
        node->extent = kcbp_v3_max(kcbp_v3_sub(b.hi, node->center), kcbp_v3_sub(node->center, b.lo));
        if (it.depth > tree->depth)
            tree->depth = it.depth;
        if (it.end - it.begin <= KCBP_AABB_LEAF_MAX) {
            node->first = it.begin;
            node->count = it.end - it.begin;
            continue;
        }
        uint32_t split = split_range(&c, it.begin, it.end, it.depth);
        uint32_t left = tree->nnodes;
        tree->nnodes += 2;
        node->first = left;
        node->count = 0;
        tree->parent[left] = tree->parent[left + 1] = it.node;
        stack[top++] = (struct item){left, it.begin, split, it.depth + 1};
        stack[top++] = (struct item){left + 1, split, it.end, it.depth + 1};
    }
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            tree->tri_verts[i][k] = mesh->vertices[mesh->triangles[order[i]].v[k]];
        tree->tri_slab[i] = slab_along(tri_normal(tree->tri_verts[i]), tree->tri_verts[i], 3);
    }
    for (uint32_t i = 0; i < tree->nnodes; i++)
        tree->leaf_slab[i] = tree->nodes[i].count ? leaf_slab_of(tree, &tree->nodes[i])
                                                  : (kcbp_tri_slab){{0, 0, 0}, -INFINITY, INFINITY};
    free(tri_box);
    free(centroid);
    free(stack);
    build_obbs(tree);
    return KCBP_OK;
}

void kcbp_aabb_tree_free(kcbp_aabb_tree *tree)
{
    if (!tree)
        return;
    free(tree->nodes);
    free(tree->tri_ids);
    free(tree->tri_verts);
    free(tree->parent);
    free(tree->tri_slab);
    free(tree->leaf_slab);
    free(tree->obb);
    memset(tree, 0, sizeof *tree);
}

/* The traversal's helpers are inlined into each of its versions (see
 * traverse), which GCC stops doing on its own once there are several. */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* The relative pose and its absolute rotation, shared by every node pair. */
typedef struct {
    kcbp_mat3 r, abs_r;
    kcbp_vec3 t;
    double eps;
} frame_b_in_a;

/* A node's box carried into the other tree's frame: its centre there and
 * its half-sizes along that frame's axes (|R| times its own, Arvo). */
typedef struct {
    kcbp_vec3 c, r;
} moved_box;

HOT_INLINE moved_box move_b_into_a(const frame_b_in_a *f, const kcbp_aabb_node *b)
{
    moved_box m = {kcbp_v3_add(kcbp_mat3_mul_v3(&f->r, b->center), f->t), kcbp_mat3_mul_v3(&f->abs_r, b->extent)};
    return m;
}

HOT_INLINE moved_box move_a_into_b(const frame_b_in_a *f, const kcbp_aabb_node *a)
{
    moved_box m = {kcbp_mat3_tmul_v3(&f->r, kcbp_v3_sub(a->center, f->t)), kcbp_mat3_tmul_v3(&f->abs_r, a->extent)};
    return m;
}

/* Whether box n, in its own frame, and the box moved into that frame lie
 * more than eps apart along one of the frame's three axes. Together the
 * two frames' six face axes make the separating-axis test of two boxes
 * without the nine edge-edge axes: conservative (it may keep a separated
 * pair, never drops a touching one; rounding in moving a box is far below
 * eps), and the leaves settle the rest. */
HOT_INLINE bool apart_on_axes(const kcbp_aabb_node *n, moved_box m, double eps)
{
    kcbp_vec3 d = kcbp_v3_sub(m.c, n->center);
    return fabs(d.x) > n->extent.x + m.r.x + eps || fabs(d.y) > n->extent.y + m.r.y + eps ||
           fabs(d.z) > n->extent.z + m.r.z + eps;
}

/* The margin of slab_apart in one traversal: eps (the padding that covers
 * the rounding of moving a box, as in the box tests) plus the rounding
 * of projecting a box on n: n.c +- |m|.e with n and m = R^T n (or R n)
 * unit is off by at most 8u (|n|.|c| + 2 |m|.e) <= 8u 3 sqrt(3) size,
 * size bounding every moved box's |c| and half-sizes in both frames (each
 * is inside its root's), and m's own rounding (3u per component) a further
 * 3u sqrt(3) size at most: 64u size covers both. */
static double slab_tolerance(double eps, moved_box a_root_in_b, moved_box b_root_in_a, const kcbp_aabb_node *ra,
                             const kcbp_aabb_node *rb)
{
    double size = fmax(fmax(kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(ra->center), ra->extent)),
                            kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(rb->center), rb->extent))),
                       fmax(kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(a_root_in_b.c), a_root_in_b.r)),
                            kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(b_root_in_a.c), b_root_in_a.r))));
    return eps + 64 * DBL_EPSILON * size;
}

/* Whether an oriented box lies more than tol beyond the slab (see
 * slab_tolerance): its centre c in the slab's frame, its half-sizes e
 * along its own axes, and axes_n the slab's normal in the box's own frame
 * (so that the box reaches |axes_n|.e either side of n.c: tighter than the
 * box's axis-aligned bounds in the slab's frame, |n|.|R|e). */
HOT_INLINE bool slab_apart(const kcbp_tri_slab *s, kcbp_vec3 c, kcbp_vec3 axes_n, kcbp_vec3 e, double tol)
{
    double cc = kcbp_v3_dot(s->n, c), r = kcbp_v3_dot(kcbp_v3_abs(axes_n), e);
    return cc - r > s->hi + tol || cc + r < s->lo - tol;
}

/* Bit i set: triangle i of the leaf (slot first + i) comes within tol of
 * the other node's oriented box (centre c in the leaf's frame, half-sizes e
 * along its own axes, which are the rows of rot in the leaf's frame: rot
 * is R for A's leaf, R^T for B's), as far as its slab tells. */
HOT_INLINE uint32_t leaf_near(const kcbp_tri_slab *slabs, const kcbp_aabb_node *leaf, kcbp_vec3 c, kcbp_vec3 e,
                              const kcbp_mat3 *r, bool transpose, double tol)
{
    uint32_t mask = 0;
    for (uint32_t i = 0; i < leaf->count; i++) {
        const kcbp_tri_slab *sl = &slabs[leaf->first + i];
        kcbp_vec3 axes_n = transpose ? kcbp_mat3_tmul_v3(r, sl->n) : kcbp_mat3_mul_v3(r, sl->n);
        mask |= (uint32_t)!slab_apart(sl, c, axes_n, e, tol) << i;
    }
    return mask;
}

HOT_INLINE double node_size(const kcbp_aabb_node *n) { return n->extent.x + n->extent.y + n->extent.z; }

/* 1 when child first + 1's centre is nearer p than child first's. */
HOT_INLINE int nearer_child(const kcbp_aabb_node *nodes, uint32_t first, kcbp_vec3 p)
{
    return kcbp_v3_len2(kcbp_v3_sub(nodes[first + 1].center, p)) < kcbp_v3_len2(kcbp_v3_sub(nodes[first].center, p));
}

/* The traversal, from the node pair start (A's, B's). `ordering` is a
 * constant at each call, so that the compiler makes a version without the
 * child ordering, which costs ~11 % of an exhaustive traversal and saves
 * nothing there. On a stop, stop[] gets the two leaves of the pair that
 * stopped it. */
HOT_INLINE bool traverse(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                         const uint32_t start[2], const bool ordering, kcbp_tri_pair_fn on_pair, void *ctx,
                         kcbp_tree_stats *stats, uint32_t stop[2])
{
    frame_b_in_a f = {b_in_a->rot, b_in_a->rot, b_in_a->trans, eps};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            f.abs_r.m[i][j] = fabs(f.r.m[i][j]);
    uint64_t box_pairs = 0, tri_pairs = 0;
    bool stopped = false;
    /* Depth-first: each step pops one pair and pushes at most two, one level
     * down in one tree, so the stack never holds more than the two depths.
     * An entry carries the box of the node that did not change, already
     * moved into the other frame: A's node in B's frame after a step down
     * B, B's node in A's frame after a step down A. So the pair is first
     * tested on the axes of the new node's frame, which needs no moving,
     * and the new node is moved only when those axes do not separate the
     * boxes (most separated pairs end there). */
    struct entry {
        uint32_t ia, ib;
        bool a_moved; /* box holds A's node in B's frame; else B's node in A's frame */
        moved_box box;
    } stack[2 * STACK_PER_TREE];
    size_t top = 0;
    stack[0].ia = start[0];
    stack[0].ib = start[1];
    stack[0].a_moved = false;
    stack[0].box = move_b_into_a(&f, &b->nodes[start[1]]);
    top++;
    const double slab_tol = slab_tolerance(eps, move_a_into_b(&f, &a->nodes[0]), move_b_into_a(&f, &b->nodes[0]),
                                           &a->nodes[0], &b->nodes[0]);
    while (top > 0 && !stopped) {
        /* The entry is read in place: its slot is the first child's. */
        struct entry *e = &stack[--top];
        const uint32_t ia = e->ia, ib = e->ib;
        const bool a_moved = e->a_moved;
        const kcbp_aabb_node *na = &a->nodes[ia], *nb = &b->nodes[ib];
        moved_box fresh; /* the pair's other node, moved */
        box_pairs++;
        if (a_moved) {
            if (apart_on_axes(nb, e->box, eps))
                continue;
            fresh = move_b_into_a(&f, nb);
            if (apart_on_axes(na, fresh, eps))
                continue;
        } else {
            if (apart_on_axes(na, e->box, eps))
                continue;
            fresh = move_a_into_b(&f, na);
            if (apart_on_axes(nb, fresh, eps))
                continue;
        }
        const moved_box *ma = a_moved ? &e->box : &fresh, *mb = a_moved ? &fresh : &e->box;
        /* A leaf's triangles against the other node's box, each by its
         * slab: large slanted triangles fill little of their boxes. */
        uint32_t near_a = ~0u, near_b = ~0u;
        if (na->count && nb->count) {
            if (!(near_a = leaf_near(a->tri_slab, na, mb->c, nb->extent, &f.r, true, slab_tol)) ||
                !(near_b = leaf_near(b->tri_slab, nb, ma->c, na->extent, &f.r, false, slab_tol)))
                continue;
        } else if (na->count) {
            if (leaf_near(a->leaf_slab, &(kcbp_aabb_node){.first = ia, .count = 1}, mb->c, nb->extent, &f.r, true,
                          slab_tol) == 0)
                continue;
        } else if (nb->count) {
            if (leaf_near(b->leaf_slab, &(kcbp_aabb_node){.first = ib, .count = 1}, ma->c, na->extent, &f.r, false,
                          slab_tol) == 0)
                continue;
        }
        if (na->count && nb->count) {
            kcbp_vec3 tb[KCBP_AABB_LEAF_MAX][3];
            for (uint32_t j = 0; j < nb->count; j++)
                for (int k = 0; k < 3; k++)
                    tb[j][k] = kcbp_pose_apply(b_in_a, b->tri_verts[nb->first + j][k]);
            for (uint32_t i = 0; i < na->count && !stopped; i++)
                for (uint32_t j = 0; j < nb->count && !stopped; j++) {
                    if (!(near_a >> i & near_b >> j & 1u))
                        continue;
                    tri_pairs++;
                    if (kcbp_tri_intersect(a->tri_verts[na->first + i], tb[j], eps))
                        stopped = !on_pair(ctx, a->tri_ids[na->first + i], b->tri_ids[nb->first + j]);
                }
            if (stopped && stop) {
                stop[0] = ia;
                stop[1] = ib;
            }
            continue;
        }
        /* Descend the larger box, so that both sides shrink together, and
         * visit first the child whose centre is nearer the other box's: a
         * contact, if any, lies where the boxes overlap, and for the first
         * contact (KCBP_CONTACTS_NONE, FIRST) this halves the work on the
         * thesis scene (issue 12: 303 node and 52 triangle pairs per
         * colliding pair before, 150 and 32 after). The order changes which
         * contact is found first, not which contacts exist. The farther
         * child is pushed first. */
        bool down_a = nb->count || (!na->count && node_size(na) >= node_size(nb));
        const kcbp_aabb_node *nodes = down_a ? a->nodes : b->nodes;
        uint32_t first = down_a ? na->first : nb->first;
        /* The node that stays is B's when descending A: its box in A's
         * frame is the carried one when A's node was the new one. */
        bool keep_carried = down_a != a_moved;
        const moved_box *keep = keep_carried ? &e->box : &fresh;
        int near = ordering && nearer_child(nodes, first, keep->c);
        uint32_t c0 = first + !near, c1 = first + near;
        if (!keep_carried)
            stack[top].box = fresh;
        stack[top + 1].box = stack[top].box;
        stack[top].ia = stack[top + 1].ia = down_a ? 0 : ia;
        stack[top].ib = stack[top + 1].ib = down_a ? ib : 0;
        if (down_a) {
            stack[top].ia = c0;
            stack[top + 1].ia = c1;
        } else {
            stack[top].ib = c0;
            stack[top + 1].ib = c1;
        }
        stack[top].a_moved = stack[top + 1].a_moved = !down_a;
        top += 2;
    }
    stats->box_pairs += box_pairs;
    stats->tri_pairs += tri_pairs;
    return stopped;
}

static const uint32_t roots[2] = {0, 0};

bool kcbp_aabb_tree_collide(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a, double eps,
                            kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats)
{
    kcbp_tree_stats local = {0, 0};
    return traverse(a, b, b_in_a, eps, roots, true, on_pair, ctx, stats ? stats : &local, NULL);
}

bool kcbp_aabb_tree_collide_all(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                double eps, kcbp_tri_pair_fn on_pair, void *ctx, kcbp_tree_stats *stats)
{
    kcbp_tree_stats local = {0, 0};
    return traverse(a, b, b_in_a, eps, roots, false, on_pair, ctx, stats ? stats : &local, NULL);
}

bool kcbp_aabb_tree_collide_below(const kcbp_aabb_tree *a, const kcbp_aabb_tree *b, const kcbp_pose *b_in_a,
                                  double eps, const uint32_t start[2], kcbp_tri_pair_fn on_pair, void *ctx,
                                  kcbp_tree_stats *stats, uint32_t stop[2])
{
    kcbp_tree_stats local = {0, 0};
    KCBP_ASSERT(start[0] < a->nnodes && start[1] < b->nnodes);
    return traverse(a, b, b_in_a, eps, start, true, on_pair, ctx, stats ? stats : &local, stop);
}

uint32_t kcbp_aabb_tree_ancestor(const kcbp_aabb_tree *tree, uint32_t node, uint32_t levels)
{
    while (levels-- > 0 && node != 0)
        node = tree->parent[node];
    return node;
}
