/* The tree's build (aabb_tree.h, kcbp_aabb_tree_build), in two passes.
 *
 * 1. The hierarchy, top down: each node's triangles split by a binned
 *    surface-area heuristic over the three axes (I. Wald, "On fast
 *    Construction of SAH-based Bounding Volume Hierarchies", IEEE RT 2007),
 *    each bin holding its triangles' extents, not only their centres: a
 *    split along an axis that the triangles all span (the length of a
 *    cylinder's strips) is never taken, since both children would keep the
 *    whole length, and a fan of triangles around an apex (a cone, a disc)
 *    falls into angular wedges, halves then quarters and so on. (Splitting
 *    in each node's own oriented frame as well was measured: no better on
 *    the CAD set, worse on organic meshes, and three times the build.)
 * 2. Each node's oriented box, bottom up for the surface moments (each
 *    node's are its children's sum), then along the least costly of a few
 *    frames (fit_obb): the mesh's axes, the principal axes of the node's
 *    surface, and frames from the faces themselves, whose dominant normal
 *    is exact for a flat face and whose edge directions give a sliver's own
 *    thin rectangle. */
#include "aabb_tree.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "geom/linalg.h"

enum {
    SAH_BINS = 16,
    /* Past this depth the build splits at the median, so the depth stays
     * below SAH_DEPTH_MAX + log2(KCBP_MESH_MAX_ELEMENTS) < KCBP_TREE_MAX_DEPTH. */
    SAH_DEPTH_MAX = 64,
    /* Nodes of more triangles than this choose their box's frame from an
     * even sample of this many of them (the box itself holds them all):
     * the choice hardly depends on every triangle, and the build keeps a
     * small constant. */
    FIT_SAMPLE = 64,
};

/* A node is flagged KCBP_NODE_TIGHT when its oriented box's cost
 * (box_cost) is below this fraction of its axis-aligned box's, and
 * KCBP_NODE_LONG when its oriented box's middle half-size is below this
 * fraction of its largest (aabb_tree.h). */
static const double TIGHT_RATIO = 0.3;
static const double LONG_RATIO = 0.5;

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
static double box_mid(const box3 *b, int axis) { return 0.5 * (kcbp_v3_get(b->lo, axis) + kcbp_v3_get(b->hi, axis)); }

static void swap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

static uint32_t sample_stride(uint32_t count) { return count > FIT_SAMPLE ? count / FIT_SAMPLE : 1; }

/* ---- pass 1: the hierarchy ---------------------------------------------- */

typedef struct {
    const box3 *tri_box; /* each triangle's box, by mesh index */
    uint32_t *order;     /* the slots' triangles */
} build_ctx;

/* Reorders order[begin, end) so that its middle element is the median by
 * the centre of its box on axis (quickselect with a three-way partition,
 * so that equal keys cannot make it quadratic). */
static void median_split(const build_ctx *c, uint32_t begin, uint32_t end, int axis)
{
    uint32_t k = begin + (end - begin) / 2, lo = begin, hi = end;
    while (hi - lo > 1) {
        double pivot = box_mid(&c->tri_box[c->order[lo + (hi - lo) / 2]], axis);
        uint32_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            double key = box_mid(&c->tri_box[c->order[i]], axis);
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

/* A split plane: the triangles whose box has its centre in bins 0..bin
 * of axis go left. */
typedef struct {
    int axis, bin;
    double lo, to_bin, cost;
} split_plane;

static int bin_of(const split_plane *p, const box3 *b)
{
    int bin = (int)((box_mid(b, p->axis) - p->lo) * p->to_bin);
    return bin < 0 ? 0 : bin >= SAH_BINS ? SAH_BINS - 1 : bin;
}

/* Splits order[begin, end) and returns the first index of the right half
 * (strictly between begin and end): at the cheapest plane of the binned SAH
 * on each axis (a triangle goes to the bin of its box's centre, a bin's box
 * is the union of its triangles' boxes, a split costs the half areas of
 * the two sides' boxes times their triangle counts, each side keeping at
 * least one), or at the median below SAH_DEPTH_MAX. */
static uint32_t split_range(const build_ctx *c, uint32_t begin, uint32_t end, uint32_t depth)
{
    const uint32_t mid = begin + (end - begin) / 2, count = end - begin;
    box3 cb = box_empty();
    for (uint32_t i = begin; i < end; i++) {
        const box3 *b = &c->tri_box[c->order[i]];
        box_add(&cb, kcbp_v3_scale(kcbp_v3_add(b->lo, b->hi), 0.5));
    }
    kcbp_vec3 size = kcbp_v3_sub(cb.hi, cb.lo);
    split_plane best = {-1, -1, 0, 0, DBL_MAX};
    for (int axis = 0; axis < 3 && depth < SAH_DEPTH_MAX; axis++) {
        split_plane p = {axis, 0, kcbp_v3_get(cb.lo, axis), 0, 0};
        double extent = kcbp_v3_get(size, axis);
        if (!(extent > 0.0))
            continue;
        p.to_bin = SAH_BINS * (1.0 - 1e-9) / extent;
        if (!isfinite(p.to_bin)) /* a subnormal extent: (x - lo) * to_bin would be 0 * inf */
            continue;
        box3 bin_box[SAH_BINS];
        uint32_t bin_count[SAH_BINS] = {0};
        for (int i = 0; i < SAH_BINS; i++)
            bin_box[i] = box_empty();
        for (uint32_t i = begin; i < end; i++) {
            const box3 *b = &c->tri_box[c->order[i]];
            int bin = bin_of(&p, b);
            bin_count[bin]++;
            box_merge(&bin_box[bin], *b);
        }
        /* Sweep from the right to get the cost of every right half, then
         * from the left to choose the cheapest plane. */
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
        for (int i = 0; i < SAH_BINS - 1; i++) {
            box_merge(&acc, bin_box[i]);
            n += bin_count[i];
            p.cost = box_half_area(acc) * n + right_cost[i + 1];
            p.bin = i;
            if (n > 0 && n < count && p.cost < best.cost)
                best = p;
        }
    }
    if (best.axis < 0) {
        /* Below SAH_DEPTH_MAX, or only subnormal extents: the median along
         * the axis where the centres spread most. */
        int longest = size.x >= size.y && size.x >= size.z ? 0 : size.y >= size.z ? 1 : 2;
        if (kcbp_v3_get(size, longest) > 0.0) /* otherwise all centres coincide: any split is as good */
            median_split(c, begin, end, longest);
        return mid;
    }
    uint32_t i = begin, j = end;
    while (i < j) {
        uint32_t t = c->order[i];
        if (bin_of(&best, &c->tri_box[t]) <= best.bin) {
            i++;
        } else {
            c->order[i] = c->order[--j];
            c->order[j] = t;
        }
    }
    return i;
}

/* ---- slabs --------------------------------------------------------------- */

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

/* The sum of a leaf's triangles' normals (area-weighted), each turned to
 * agree with the sum so far (for a leaf of nearly coplanar triangles, such
 * as a quad, nearly as thin a normal as each triangle's). */
static kcbp_vec3 leaf_normal(const kcbp_vec3 (*t)[3], uint32_t count)
{
    kcbp_vec3 n = {0, 0, 0};
    for (uint32_t i = 0; i < count; i++) {
        kcbp_vec3 ni = tri_normal(t[i]);
        n = kcbp_v3_add(n, kcbp_v3_dot(n, ni) < 0 ? kcbp_v3_neg(ni) : ni);
    }
    return n;
}

/* ---- pass 2: the oriented boxes ------------------------------------------ */

/* Reorders a box's axes so that the last has the smallest half-size (the
 * distance traversal's cheap bounds look along it, and the collision test
 * tries it first); a swap negates the first axis, so that the axes stay
 * right-handed. */
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

/* The axes (rows) x, y and x cross y, or false when they are not finite
 * or not a frame (x and y not unit and orthogonal to a few ulps). */
static bool frame_of(kcbp_vec3 x, kcbp_vec3 y, kcbp_mat3 *axes)
{
    kcbp_vec3 z = kcbp_v3_cross(x, y);
    if (!kcbp_v3_is_finite(x) || !kcbp_v3_is_finite(y) || !kcbp_v3_is_finite(z) ||
        fabs(kcbp_v3_len2(x) - 1) > 1e-12 || fabs(kcbp_v3_len2(y) - 1) > 1e-12 || fabs(kcbp_v3_dot(x, y)) > 1e-12)
        return false;
    *axes = (kcbp_mat3){{{x.x, x.y, x.z}, {y.x, y.y, y.z}, {z.x, z.y, z.z}}};
    return true;
}

/* A unit vector orthogonal to unit n. */
static kcbp_vec3 any_orthogonal(kcbp_vec3 n)
{
    kcbp_vec3 a = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? kcbp_v3(1, 0, 0)
                  : fabs(n.y) <= fabs(n.z)                        ? kcbp_v3(0, 1, 0)
                                                                   : kcbp_v3(0, 0, 1);
    kcbp_vec3 u = kcbp_v3_cross(n, a);
    return kcbp_v3_scale(u, 1 / kcbp_v3_len(u));
}

/* The frame whose last axis is n (unit) and whose first is the direction d
 * projected on n's plane; false when d has no part in that plane. */
static bool frame_normal_dir(kcbp_vec3 n, kcbp_vec3 d, kcbp_mat3 *axes)
{
    kcbp_vec3 x = kcbp_v3_sub(d, kcbp_v3_scale(n, kcbp_v3_dot(n, d)));
    double l = kcbp_v3_len(x);
    if (!(l > 1e-9 * kcbp_v3_len(d)) || !isfinite(l))
        return false;
    x = kcbp_v3_scale(x, 1 / l);
    /* y = n x x makes (x, y, n) right-handed. */
    return frame_of(x, kcbp_v3_cross(n, x), axes);
}

/* A node's surface moments, about the root box's centre (so that nodes
 * far from the origin keep their precision): area-weighted second moments
 * (xx yy zz xy xz yz), centroid times area, area, the sum of area times
 * each triangle's unit normal's outer product (its principal axis is the
 * dominant normal, whichever way the normals face), and the longest
 * edge. A node's are its children's sum. */
typedef struct {
    double m[6], nn[6];
    kcbp_vec3 sum, edge;
    double area, longest;
} moments;

static void moments_of_leaf(const kcbp_vec3 (*t)[3], uint32_t count, kcbp_vec3 o, moments *mo)
{
    memset(mo, 0, sizeof *mo);
    for (uint32_t i = 0; i < count; i++) {
        kcbp_vec3 p = kcbp_v3_sub(t[i][0], o), q = kcbp_v3_sub(t[i][1], o), r = kcbp_v3_sub(t[i][2], o);
        kcbp_vec3 e[3] = {kcbp_v3_sub(q, p), kcbp_v3_sub(r, q), kcbp_v3_sub(p, r)};
        for (int k = 0; k < 3; k++) {
            double l = kcbp_v3_len2(e[k]);
            if (l > mo->longest) {
                mo->longest = l;
                mo->edge = e[k];
            }
        }
        kcbp_vec3 cr = kcbp_v3_cross(e[0], kcbp_v3_sub(r, p));
        double a2 = kcbp_v3_len(cr), a = 0.5 * a2;
        if (!(a > 0) || !isfinite(a))
            continue;
        kcbp_vec3 g = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(p, q), r), 1.0 / 3.0);
        double w = a / 12.0;
        mo->m[0] += w * (9 * g.x * g.x + p.x * p.x + q.x * q.x + r.x * r.x);
        mo->m[1] += w * (9 * g.y * g.y + p.y * p.y + q.y * q.y + r.y * r.y);
        mo->m[2] += w * (9 * g.z * g.z + p.z * p.z + q.z * q.z + r.z * r.z);
        mo->m[3] += w * (9 * g.x * g.y + p.x * p.y + q.x * q.y + r.x * r.y);
        mo->m[4] += w * (9 * g.x * g.z + p.x * p.z + q.x * q.z + r.x * r.z);
        mo->m[5] += w * (9 * g.y * g.z + p.y * p.z + q.y * q.z + r.y * r.z);
        mo->sum = kcbp_v3_add(mo->sum, kcbp_v3_scale(g, a));
        mo->area += a;
        double wn = 1 / a2; /* area times the unit normal's outer product */
        mo->nn[0] += wn * cr.x * cr.x;
        mo->nn[1] += wn * cr.y * cr.y;
        mo->nn[2] += wn * cr.z * cr.z;
        mo->nn[3] += wn * cr.x * cr.y;
        mo->nn[4] += wn * cr.x * cr.z;
        mo->nn[5] += wn * cr.y * cr.z;
    }
}

static void moments_sum(const moments *l, const moments *r, moments *mo)
{
    for (int k = 0; k < 6; k++) {
        mo->m[k] = l->m[k] + r->m[k];
        mo->nn[k] = l->nn[k] + r->nn[k];
    }
    mo->sum = kcbp_v3_add(l->sum, r->sum);
    mo->area = l->area + r->area;
    bool left = l->longest >= r->longest;
    mo->longest = left ? l->longest : r->longest;
    mo->edge = left ? l->edge : r->edge;
}

/* Choosing a node's frame: the candidates' boxes around an even sample of
 * its triangles (slots lo, lo + stride, ... < hi), the cheapest kept. */
typedef struct {
    const kcbp_vec3 (*verts)[3];
    uint32_t lo, hi, stride;
    double floor; /* each half-size counts at least this much in a box's cost */
    double best;  /* the cost of the axes kept */
    bool aligned; /* the axes kept are the mesh's */
    kcbp_mat3 axes;
} fit;

/* A box's cost: the product of its half-sizes, each at least the floor,
 * so that flat boxes are compared by their area. */
static double box_cost(double floor, kcbp_vec3 e)
{
    return fmax(e.x, floor) * fmax(e.y, floor) * fmax(e.z, floor);
}

static void try_axes(fit *f, const kcbp_mat3 *axes)
{
    kcbp_vec3 lo = {DBL_MAX, DBL_MAX, DBL_MAX}, hi = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (uint32_t i = f->lo; i < f->hi; i += f->stride)
        for (int k = 0; k < 3; k++) {
            kcbp_vec3 s = kcbp_mat3_mul_v3(axes, f->verts[i][k]);
            lo = kcbp_v3_min(lo, s);
            hi = kcbp_v3_max(hi, s);
        }
    double cost = box_cost(f->floor, kcbp_v3_scale(kcbp_v3_sub(hi, lo), 0.5));
    if (!(cost < f->best) || !isfinite(cost))
        return;
    f->best = cost;
    f->aligned = false;
    f->axes = *axes;
}

/* The eigenvector of the symmetric s with the largest eigenvalue. */
static kcbp_vec3 top_eigenvector(double s[3][3])
{
    double ev[3][3];
    kcbp_sym3_eigenvectors_approx(s, ev, 1e-9);
    int k = s[0][0] >= s[1][1] && s[0][0] >= s[2][2] ? 0 : s[1][1] >= s[2][2] ? 1 : 2;
    return kcbp_v3(ev[0][k], ev[1][k], ev[2][k]);
}

/* The oriented box of the triangles in slots [lo, hi) (the node n, moments
 * mo): along the least costly (box_cost, on a sample) of the mesh's axes
 * (n's axis-aligned box), the principal axes of the node's surface
 * (area-weighted), and frames from the faces: the dominant normal with the
 * in-plane principal axis, or with the direction of the longest edge; for
 * a leaf, its normal with each of its edges (a triangle's smallest
 * rectangle has a side on one of its edges). Then the box along the axes
 * kept holds every triangle, padded for rounding; its thinnest axis last. */
static kcbp_obb fit_obb(const kcbp_aabb_tree *tree, const kcbp_aabb_node *n, uint32_t lo, uint32_t hi,
                        const moments *mo)
{
    /* The pad covers the rounding of projecting (3u |p| per coordinate), of
     * carrying the centre back to the mesh's frame and of the axes'
     * departure from orthonormality (a few u each): 64u of the node's
     * largest coordinate; the axis-aligned box's half-sizes cover its
     * corners only up to rounding too. */
    double pad = 64 * DBL_EPSILON * kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(n->center), n->extent));
    kcbp_obb box = {kcbp_mat3_identity(), n->center, kcbp_v3_add(n->extent, kcbp_v3(pad, pad, pad))};
    fit f = {(const kcbp_vec3(*)[3])tree->tri_verts, lo, hi, sample_stride(hi - lo), 0, 0, true, box.axes};
    f.floor = 1e-3 * kcbp_v3_max_abs(n->extent) + pad;
    f.best = box_cost(f.floor, n->extent);
    kcbp_mat3 axes;
    if (n->count) {
        kcbp_vec3 nl = leaf_normal(f.verts + lo, hi - lo);
        double l = kcbp_v3_len(nl);
        if (l > 0 && isfinite(l)) {
            nl = kcbp_v3_scale(nl, 1 / l);
            for (uint32_t i = lo; i < hi; i++)
                for (int k = 0; k < 3; k++)
                    if (frame_normal_dir(nl, kcbp_v3_sub(f.verts[i][(k + 1) % 3], f.verts[i][k]), &axes))
                        try_axes(&f, &axes);
        } else if (mo->longest > 0 && isfinite(mo->longest)) {
            /* no area: any normal to the longest edge */
            kcbp_vec3 d = kcbp_v3_scale(mo->edge, 1 / sqrt(mo->longest));
            if (frame_normal_dir(any_orthogonal(d), d, &axes))
                try_axes(&f, &axes);
        }
    } else if (mo->area > 0 && isfinite(mo->area)) {
        kcbp_vec3 mu = kcbp_v3_scale(mo->sum, 1 / mo->area);
        double cov[3][3], keep[3][3], ev[3][3];
        cov[0][0] = mo->m[0] / mo->area - mu.x * mu.x;
        cov[1][1] = mo->m[1] / mo->area - mu.y * mu.y;
        cov[2][2] = mo->m[2] / mo->area - mu.z * mu.z;
        cov[0][1] = cov[1][0] = mo->m[3] / mo->area - mu.x * mu.y;
        cov[0][2] = cov[2][0] = mo->m[4] / mo->area - mu.x * mu.z;
        cov[1][2] = cov[2][1] = mo->m[5] / mo->area - mu.y * mu.z;
        memcpy(keep, cov, sizeof keep);
        /* The principal axes. */
        kcbp_sym3_eigenvectors_approx(cov, ev, 1e-6);
        if (frame_of(kcbp_v3(ev[0][0], ev[1][0], ev[2][0]), kcbp_v3(ev[0][1], ev[1][1], ev[2][1]), &axes))
            try_axes(&f, &axes);
        /* The dominant normal. */
        double s[3][3] = {{mo->nn[0], mo->nn[3], mo->nn[4]},
                          {mo->nn[3], mo->nn[1], mo->nn[5]},
                          {mo->nn[4], mo->nn[5], mo->nn[2]}};
        kcbp_vec3 nd = top_eigenvector(s);
        double ln = kcbp_v3_len(nd);
        if (ln > 0.5 && isfinite(ln)) {
            nd = kcbp_v3_scale(nd, 1 / ln);
            /* The in-plane principal axis: of the covariance restricted to
             * the plane, in the basis (u, nd x u). */
            kcbp_vec3 u = any_orthogonal(nd), v = kcbp_v3_cross(nd, u);
            kcbp_vec3 cu = {keep[0][0] * u.x + keep[0][1] * u.y + keep[0][2] * u.z,
                            keep[1][0] * u.x + keep[1][1] * u.y + keep[1][2] * u.z,
                            keep[2][0] * u.x + keep[2][1] * u.y + keep[2][2] * u.z};
            kcbp_vec3 cv = {keep[0][0] * v.x + keep[0][1] * v.y + keep[0][2] * v.z,
                            keep[1][0] * v.x + keep[1][1] * v.y + keep[1][2] * v.z,
                            keep[2][0] * v.x + keep[2][1] * v.y + keep[2][2] * v.z};
            double a = kcbp_v3_dot(u, cu), b = kcbp_v3_dot(u, cv), d = kcbp_v3_dot(v, cv);
            double th = 0.5 * atan2(2 * b, a - d);
            kcbp_vec3 x = kcbp_v3_add(kcbp_v3_scale(u, cos(th)), kcbp_v3_scale(v, sin(th)));
            if (frame_normal_dir(nd, x, &axes))
                try_axes(&f, &axes);
            if (frame_normal_dir(nd, mo->edge, &axes))
                try_axes(&f, &axes);
        }
    }
    if (!f.aligned) {
        /* The box along the axes kept: every triangle's extremes. */
        kcbp_vec3 blo = {DBL_MAX, DBL_MAX, DBL_MAX}, bhi = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        for (uint32_t i = lo; i < hi; i++)
            for (int k = 0; k < 3; k++) {
                kcbp_vec3 s = kcbp_mat3_mul_v3(&f.axes, f.verts[i][k]);
                blo = kcbp_v3_min(blo, s);
                bhi = kcbp_v3_max(bhi, s);
            }
        kcbp_vec3 e = kcbp_v3_add(kcbp_v3_scale(kcbp_v3_sub(bhi, blo), 0.5), kcbp_v3(pad, pad, pad));
        /* Kept only when it has no more volume than the axis-aligned box
         * (the axes were chosen on a sample, and by a cost that floors the
         * thin sides): an oriented box is never a looser bound. */
        if (kcbp_v3_is_finite(e) && e.x * e.y * e.z <= box.extent.x * box.extent.y * box.extent.z) {
            box.axes = f.axes;
            box.center = kcbp_mat3_tmul_v3(&f.axes, kcbp_v3_scale(kcbp_v3_add(blo, bhi), 0.5));
            box.extent = e;
        }
    }
    thinnest_last(&box);
    return box;
}

/* The oriented boxes and their use flags, bottom up (children come after
 * their parent in the node array). */
static kcbp_status build_obbs(kcbp_aabb_tree *tree)
{
    uint32_t nn = tree->nnodes;
    moments *mo = malloc(nn * sizeof *mo);
    uint32_t(*range)[2] = malloc(nn * sizeof *range);
    if (!mo || !range) {
        free(mo);
        free(range);
        return KCBP_ERR_NOMEM;
    }
    kcbp_vec3 o = tree->nodes[0].center;
    for (uint32_t i = nn; i-- > 0;) {
        const kcbp_aabb_node *n = &tree->nodes[i];
        if (n->count) {
            range[i][0] = n->first;
            range[i][1] = n->first + n->count;
            moments_of_leaf((const kcbp_vec3(*)[3])tree->tri_verts + n->first, n->count, o, &mo[i]);
        } else {
            range[i][0] = range[n->first][0];
            range[i][1] = range[n->first + 1][1];
            moments_sum(&mo[n->first], &mo[n->first + 1], &mo[i]);
        }
        kcbp_obb *b = &tree->obb[i];
        *b = fit_obb(tree, n, range[i][0], range[i][1], &mo[i]);
        /* The oriented box is tested by the collision traversal when it is
         * much tighter than the axis-aligned one (aabb_tree.c). */
        double fl = 1e-3 * kcbp_v3_max_abs(n->extent);
        tree->flags[i] = (uint8_t)((box_cost(fl, b->extent) < TIGHT_RATIO * box_cost(fl, n->extent) ? KCBP_NODE_TIGHT : 0) |
                                   (fmin(b->extent.x, b->extent.y) < LONG_RATIO * fmax(b->extent.x, b->extent.y)
                                        ? KCBP_NODE_LONG
                                        : 0));
        if (!n->count) { /* the test first_child made on every visit (aabb_tree.c) */
            kcbp_vec3 e = tree->nodes[n->first].extent;
            double lo = e.x < e.y ? e.x : e.y, hi = e.x < e.y ? e.y : e.x;
            lo = lo < e.z ? lo : e.z;
            hi = hi < e.z ? e.z : hi;
            if (hi > 8 * lo)
                tree->flags[i] |= KCBP_NODE_THIN_KIDS;
        }
    }
    free(mo);
    free(range);
    return KCBP_OK;
}

/* ---- the vertex tree --------------------------------------------------- */

/* Puts the vertex of rank k (by coordinate axis) of v[0 .. n) at v[k], the
 * smaller before it and the larger after (quickselect). */
static void select_rank(kcbp_vec3 *v, uint32_t n, uint32_t k, int axis)
{
    int64_t lo = 0, hi = (int64_t)n - 1;
    while (lo < hi) {
        double pivot = kcbp_v3_get(v[lo + (hi - lo) / 2], axis);
        int64_t i = lo, j = hi;
        do {
            /* (bounded: no run past the range, even with a NaN) */
            while (i < hi && kcbp_v3_get(v[i], axis) < pivot)
                i++;
            while (j > lo && kcbp_v3_get(v[j], axis) > pivot)
                j--;
            if (i <= j) {
                kcbp_vec3 t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if ((int64_t)k <= j)
            hi = j;
        else if ((int64_t)k >= i)
            lo = i;
        else
            break;
    }
}

/* The vertices the triangles use, each once (in index order), under a tree
 * split at the median of the box's longest axis. */
static kcbp_status build_vtree(const kcbp_mesh *mesh, kcbp_aabb_tree *tree)
{
    uint8_t *used = calloc(mesh->nvertices ? mesh->nvertices : 1, 1);
    if (!used)
        return KCBP_ERR_NOMEM;
    uint32_t n = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = mesh->triangles[t].v[k];
            n += !used[v];
            used[v] = 1;
        }
    /* leaves of more than KCBP_VTREE_LEAF_MAX / 2 vertices (but a lone
     * root): fewer than n / 2 + 2 nodes */
    size_t cap = n / 2 + 2;
    tree->verts = malloc(n * sizeof *tree->verts);
    tree->vnodes = malloc(cap * sizeof *tree->vnodes);
    struct vitem {
        uint32_t node, begin, end;
    } stack[2 * KCBP_VTREE_MAX_DEPTH + 2];
    if (!tree->verts || !tree->vnodes) {
        free(used);
        return KCBP_ERR_NOMEM;
    }
    n = 0;
    for (uint32_t v = 0; v < mesh->nvertices; v++)
        if (used[v])
            tree->verts[n++] = mesh->vertices[v];
    free(used);
    tree->nverts = n;
    tree->nvnodes = 1;
    size_t top = 0;
    stack[top++] = (struct vitem){0, 0, n};
    while (top > 0) {
        struct vitem it = stack[--top];
        box3 b = box_empty();
        for (uint32_t i = it.begin; i < it.end; i++)
            box_add(&b, tree->verts[i]);
        kcbp_aabb_node *node = &tree->vnodes[it.node];
        node->center = kcbp_v3_scale(kcbp_v3_add(b.lo, b.hi), 0.5);
        node->extent = kcbp_v3_max(kcbp_v3_sub(b.hi, node->center), kcbp_v3_sub(node->center, b.lo));
        if (it.end - it.begin <= KCBP_VTREE_LEAF_MAX || tree->nvnodes + 2 > cap) {
            node->first = it.begin;
            node->count = it.end - it.begin;
            continue;
        }
        kcbp_vec3 e = node->extent;
        int axis = e.x >= e.y && e.x >= e.z ? 0 : e.y >= e.z ? 1 : 2;
        uint32_t half = (it.end - it.begin) / 2;
        select_rank(tree->verts + it.begin, it.end - it.begin, half, axis);
        uint32_t left = tree->nvnodes;
        tree->nvnodes += 2;
        node->first = left;
        node->count = 0;
        stack[top++] = (struct vitem){left, it.begin, it.begin + half};
        stack[top++] = (struct vitem){left + 1, it.begin + half, it.end};
    }
    double r2 = 0, m = 0;
    for (uint32_t i = 0; i < n; i++) {
        double d2 = kcbp_v3_len2(kcbp_v3_sub(tree->verts[i], tree->vnodes[0].center));
        r2 = d2 > r2 ? d2 : r2;
        double a = kcbp_v3_max_abs(tree->verts[i]);
        m = a > m ? a : m;
    }
    /* (sqrt and the sums rounded: a few ulps of the coordinates) */
    tree->vradius = sqrt(r2) + 16 * DBL_EPSILON * m;
    return KCBP_OK;
}

/* ---- shared vertices (fans) ---------------------------------------------- */

/* Each node's vertices common to all its triangles (at most 3, bottom up),
 * and for the nodes with one, the first of them and the box of the node's
 * other vertices (kcbp_node_fan). Nodes of one triangle are left out (any
 * of its vertices is shared: no use). */
static kcbp_status build_fans(const kcbp_mesh *mesh, kcbp_aabb_tree *tree)
{
    uint32_t nn = tree->nnodes;
    uint32_t(*common)[3] = malloc(nn * sizeof *common);
    uint32_t(*range)[2] = malloc(nn * sizeof *range);
    tree->fan_of = malloc(nn * sizeof *tree->fan_of);
    if (!common || !range || !tree->fan_of) {
        free(common);
        free(range);
        return KCBP_ERR_NOMEM;
    }
    uint32_t nfan = 0;
    for (uint32_t i = nn; i-- > 0;) {
        const kcbp_aabb_node *n = &tree->nodes[i];
        uint32_t c[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
        if (n->count) {
            range[i][0] = n->first;
            range[i][1] = n->first + n->count;
            const uint32_t *v0 = mesh->triangles[tree->tri_ids[n->first]].v;
            for (int k = 0; k < 3; k++) {
                bool all = true;
                for (uint32_t j = 1; j < n->count && all; j++) {
                    const uint32_t *v = mesh->triangles[tree->tri_ids[n->first + j]].v;
                    all = v[0] == v0[k] || v[1] == v0[k] || v[2] == v0[k];
                }
                if (all)
                    c[k] = v0[k];
            }
        } else {
            range[i][0] = range[n->first][0];
            range[i][1] = range[n->first + 1][1];
            const uint32_t *l = common[n->first], *r = common[n->first + 1];
            for (int k = 0; k < 3; k++)
                if (l[k] != UINT32_MAX && (l[k] == r[0] || l[k] == r[1] || l[k] == r[2]))
                    c[k] = l[k];
        }
        memcpy(common[i], c, sizeof c);
        bool fan = range[i][1] - range[i][0] >= 2 && (c[0] != UINT32_MAX || c[1] != UINT32_MAX || c[2] != UINT32_MAX);
        tree->fan_of[i] = fan ? nfan++ : UINT32_MAX;
    }
    tree->nfan = nfan;
    tree->fan = malloc((nfan ? nfan : 1) * sizeof *tree->fan);
    if (!tree->fan) {
        free(common);
        free(range);
        return KCBP_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < nn; i++) {
        if (tree->fan_of[i] == UINT32_MAX)
            continue;
        uint32_t apex = common[i][0] != UINT32_MAX ? common[i][0] : common[i][1] != UINT32_MAX ? common[i][1] : common[i][2];
        box3 b = box_empty(), ob = box_empty();
        const kcbp_mat3 *ax = &tree->obb[i].axes;
        for (uint32_t s = range[i][0]; s < range[i][1]; s++) {
            const uint32_t *v = mesh->triangles[tree->tri_ids[s]].v;
            for (int k = 0; k < 3; k++)
                if (v[k] != apex) {
                    box_add(&b, mesh->vertices[v[k]]);
                    box_add(&ob, kcbp_mat3_mul_v3(ax, mesh->vertices[v[k]]));
                }
        }
        kcbp_node_fan *f = &tree->fan[tree->fan_of[i]];
        f->apex = mesh->vertices[apex];
        f->center = kcbp_v3_scale(kcbp_v3_add(b.lo, b.hi), 0.5);
        f->extent = kcbp_v3_max(kcbp_v3_sub(b.hi, f->center), kcbp_v3_sub(f->center, b.lo));
        /* the pad as fit_obb's: projecting, carrying the centre back, and
         * the axes' departure from orthonormality */
        double pad = 64 * DBL_EPSILON * kcbp_v3_max_abs(kcbp_v3_add(kcbp_v3_abs(f->center), f->extent));
        kcbp_vec3 oc = kcbp_v3_scale(kcbp_v3_add(ob.lo, ob.hi), 0.5);
        f->ocenter = kcbp_mat3_tmul_v3(ax, oc);
        f->oextent = kcbp_v3_add(kcbp_v3_max(kcbp_v3_sub(ob.hi, oc), kcbp_v3_sub(oc, ob.lo)), kcbp_v3(pad, pad, pad));
        tree->flags[i] |= KCBP_NODE_FAN;
    }
    /* Each fan's axis: from the centre of the other vertices' box of its
     * highest ancestor around the same vertex (the whole cone, the whole
     * half-disc) to the vertex. */
    for (uint32_t i = 0; i < nn; i++) {
        if (tree->fan_of[i] == UINT32_MAX)
            continue;
        kcbp_node_fan *f = &tree->fan[tree->fan_of[i]];
        uint32_t top = i;
        while (top != 0) {
            uint32_t up = tree->parent[top];
            if (tree->fan_of[up] == UINT32_MAX)
                break;
            kcbp_vec3 pa = tree->fan[tree->fan_of[up]].apex;
            if (!(pa.x == f->apex.x && pa.y == f->apex.y && pa.z == f->apex.z))
                break;
            top = up;
        }
        f->axis = kcbp_v3_sub(f->apex, tree->fan[tree->fan_of[top]].center);
        if (top == i && range[i][1] - range[i][0] >= KCBP_FAN_BIG)
            tree->flags[i] |= KCBP_NODE_FAN_BIG;
    }
    free(common);
    free(range);
    return KCBP_OK;
}

/* A triangle's spine (kcbp_tri_spine): from the vertex opposite its
 * shortest edge. A point x = l a + m b + n c is within |m - n| |b - c| / 2
 * of the spine's point l a + (m + n) (b + c) / 2; the pad covers the
 * rounding of the length and of the midpoint (a few ulps of the
 * coordinates). */
static kcbp_tri_spine spine_of(const kcbp_vec3 t[3])
{
    kcbp_tri_spine sp = {INFINITY, 0};
    double m = kcbp_v3_max_abs(kcbp_v3_max(kcbp_v3_max(kcbp_v3_abs(t[0]), kcbp_v3_abs(t[1])), kcbp_v3_abs(t[2])));
    for (uint32_t k = 0; k < 3; k++) {
        double e = 0.5 * kcbp_v3_len(kcbp_v3_sub(t[(k + 1) % 3], t[(k + 2) % 3]));
        if (e < sp.r) {
            sp.r = e;
            sp.apex = k;
        }
    }
    sp.r = sp.r * (1 + 8 * DBL_EPSILON) + 8 * DBL_EPSILON * m;
    if (!isfinite(sp.r))
        sp.r = INFINITY;
    return sp;
}

/* ---- the build ------------------------------------------------------------ */

kcbp_status kcbp_aabb_tree_build(const kcbp_mesh *mesh, kcbp_aabb_tree *tree, kcbp_error *err)
{
    memset(tree, 0, sizeof *tree);
    uint32_t n = mesh->ntriangles;
    if (n == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "cannot build an AABB tree of an empty mesh");
    size_t cap = 2 * (size_t)n - 1; /* nodes, at most */
    box3 *tri_box = malloc(n * sizeof *tri_box);
    uint32_t *order = malloc(n * sizeof *order);
    struct item {
        uint32_t node, begin, end, depth;
    } *stack = malloc(n * sizeof *stack);
    tree->nodes = malloc(cap * sizeof *tree->nodes);
    tree->parent = malloc(cap * sizeof *tree->parent);
    tree->tri_ids = order;
    if (!tri_box || !order || !stack || !tree->nodes || !tree->parent) {
        free(tri_box);
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
        order[t] = t;
    }
    build_ctx c = {tri_box, order};
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
    free(tri_box);
    free(stack);
    /* The node arrays, down to the nodes made; the per-node and per-slot
     * data. */
    size_t nn = tree->nnodes;
    kcbp_aabb_node *nodes = realloc(tree->nodes, nn * sizeof *nodes);
    uint32_t *parent = realloc(tree->parent, nn * sizeof *parent);
    tree->nodes = nodes ? nodes : tree->nodes;
    tree->parent = parent ? parent : tree->parent;
    tree->obb = malloc(nn * sizeof *tree->obb);
    tree->flags = malloc(nn * sizeof *tree->flags);
    tree->leaf_slab = malloc(nn * sizeof *tree->leaf_slab);
    tree->tri_verts = malloc(n * sizeof *tree->tri_verts);
    tree->tri_slab = malloc(n * sizeof *tree->tri_slab);
    tree->tri_face = malloc(n * sizeof *tree->tri_face);
    tree->tri_spine = malloc(n * sizeof *tree->tri_spine);
    if (!tree->obb || !tree->flags || !tree->leaf_slab || !tree->tri_verts || !tree->tri_slab || !tree->tri_face ||
        !tree->tri_spine) {
        kcbp_aabb_tree_free(tree);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the AABB tree of %u triangles", n);
    }
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            tree->tri_verts[i][k] = mesh->vertices[mesh->triangles[order[i]].v[k]];
        tree->tri_slab[i] = slab_along(tri_normal(tree->tri_verts[i]), tree->tri_verts[i], 3);
        tree->tri_face[i] = kcbp_tri_face_of(tree->tri_verts[i]);
        tree->tri_spine[i] = spine_of(tree->tri_verts[i]);
    }
    for (uint32_t i = 0; i < nn; i++) {
        const kcbp_aabb_node *nd = &tree->nodes[i];
        tree->leaf_slab[i] = nd->count ? slab_along(leaf_normal((const kcbp_vec3(*)[3])tree->tri_verts + nd->first,
                                                                nd->count),
                                                    &tree->tri_verts[nd->first][0], 3 * nd->count)
                                       : (kcbp_tri_slab){{0, 0, 0}, -INFINITY, INFINITY};
    }
    if (build_obbs(tree) != KCBP_OK || build_vtree(mesh, tree) != KCBP_OK || build_fans(mesh, tree) != KCBP_OK) {
        kcbp_aabb_tree_free(tree);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the AABB tree of %u triangles", n);
    }
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
    free(tree->tri_face);
    free(tree->tri_spine);
    free(tree->leaf_slab);
    free(tree->obb);
    free(tree->flags);
    free(tree->vnodes);
    free(tree->verts);
    free(tree->fan_of);
    free(tree->fan);
    memset(tree, 0, sizeof *tree);
}
