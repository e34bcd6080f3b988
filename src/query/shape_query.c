/* Pair queries with shapes (shape_query.h): shape-mesh through the mesh's
 * tree, shape-shape by the shapes' own tests. */
#include "shape_query.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/epa.h>
#include <kcbp/gjk.h>

#include "cbp_stage.h"
#include "geom/closest.h"
#include "solid_internal.h"

/* ---- the mesh's tree --------------------------------------------------------
 *
 * Everything this file reads of a tree (bvh/aabb_tree.h): a node's box
 * (centre and half sides, in the mesh's frame), whether it is a leaf, its
 * two children, a leaf's triangles (their vertices and mesh indices), and
 * the tree's depth. Kept here, in one place, so that another tree changes
 * these few lines only. */

typedef struct {
    kcbp_vec3 c, e; /* centre, half sides */
} node_box;

static inline node_box tree_node_box(const kcbp_aabb_tree *t, uint32_t i)
{
    node_box b = {t->nodes[i].center, t->nodes[i].extent};
    return b;
}
static inline bool tree_is_leaf(const kcbp_aabb_tree *t, uint32_t i) { return t->nodes[i].count != 0; }
static inline uint32_t tree_child(const kcbp_aabb_tree *t, uint32_t i, int k) { return t->nodes[i].first + (uint32_t)k; }
static inline uint32_t tree_leaf_size(const kcbp_aabb_tree *t, uint32_t i) { return t->nodes[i].count; }
static inline const kcbp_vec3 *tree_leaf_tri(const kcbp_aabb_tree *t, uint32_t i, uint32_t k)
{
    return t->tri_verts[t->nodes[i].first + k];
}
static inline uint32_t tree_leaf_tri_id(const kcbp_aabb_tree *t, uint32_t i, uint32_t k)
{
    return t->tri_ids[t->nodes[i].first + k];
}
static inline uint32_t tree_depth(const kcbp_aabb_tree *t) { return t->depth; }
static inline bool tree_empty(const kcbp_aabb_tree *t) { return t->nnodes == 0 || !t->nodes; }
#define TREE_ROOT 0u

/* A depth-first walk pushes two children per node popped: its stack holds
 * at most depth + 1 nodes. */
enum { STACK_MAX = KCBP_TREE_DISTANCE_MAX_DEPTH + 2 };

/* ---- the shape in the mesh's frame ------------------------------------------ */

typedef struct {
    const kcbp_shape_geom *g;
    kcbp_pose in_mesh;  /* the shape's frame to the mesh's */
    kcbp_pose to_shape; /* the mesh's frame to the shape's (a box's triangle test) */
    int ncore;          /* sphere 1, capsule 2: core[] and r */
    kcbp_vec3 core[2];
    double r;
    kcbp_vec3 c, e;     /* the shape's local box as an oriented box: centre, half sides ... */
    kcbp_mat3 R;        /* ... and axes (R's columns), in the mesh's frame */
    kcbp_aabb box;      /* its axis-aligned box in the mesh's frame, padded by eps */
    /* for the separating-axis tests of the oriented box, what does not
     * depend on the node: |R|, the box's radius along each of the mesh's
     * axes and along each cross axis x_i x (R's column j) */
    double absR[3][3], rb_face[3], rb_cross[3][3];
    /* a capsule's segment: the unit axes e x x_i (e its direction) and their
     * absolute values; ncross of them (those not 0) */
    kcbp_vec3 cross[3], abs_cross[3];
    int ncross;
    double eps;         /* the padding of every box test: far above their rounding */
    double band;        /* GJK's band (KCBP_SHAPE_GJK_BAND of the pair's scale) */
} probe;

static void probe_make(probe *p, const kcbp_model_impl *shape, const kcbp_pose *pose_s, const kcbp_model_impl *mesh,
                       const kcbp_pose *pose_m)
{
    memset(p, 0, sizeof *p);
    p->g = &shape->geom;
    p->in_mesh = kcbp_pose_relative(pose_m, pose_s);
    p->to_shape = kcbp_pose_relative(pose_s, pose_m);
    p->ncore = kcbp_shape_geom_core(p->g, &p->in_mesh, p->core, &p->r);
    p->c = kcbp_pose_apply(&p->in_mesh, kcbp_aabb_center(p->g->local));
    p->e = kcbp_aabb_extent(p->g->local);
    p->R = p->in_mesh.rot;
    p->eps = kcbp_pair_tolerance(mesh, shape, &p->in_mesh);
    p->band = KCBP_SHAPE_GJK_BAND * kcbp_pair_scale(mesh, shape, &p->in_mesh);
    p->box = kcbp_shape_geom_world_bounds(p->g, &p->in_mesh);
    if (p->ncore == 2) {
        kcbp_vec3 d = kcbp_v3_sub(p->core[1], p->core[0]);
        for (int i = 0; i < 3; i++) {
            kcbp_vec3 a = i == 0 ? kcbp_v3(0, d.z, -d.y) : i == 1 ? kcbp_v3(-d.z, 0, d.x) : kcbp_v3(d.y, -d.x, 0);
            double len = kcbp_v3_len(a);
            if (len > 0 && isfinite(len)) {
                p->cross[p->ncross] = kcbp_v3_scale(a, 1 / len);
                p->abs_cross[p->ncross] = kcbp_v3_abs(p->cross[p->ncross]);
                p->ncross++;
            }
        }
    }
    const double e[3] = {p->e.x, p->e.y, p->e.z};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            p->absR[i][j] = fabs(p->R.m[i][j]);
    for (int i = 0; i < 3; i++) {
        p->rb_face[i] = p->absR[i][0] * e[0] + p->absR[i][1] * e[1] + p->absR[i][2] * e[2];
        for (int j = 0; j < 3; j++) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            p->rb_cross[i][j] = e[j1] * p->absR[i][j2] + e[j2] * p->absR[i][j1];
        }
    }
    kcbp_vec3 pad = kcbp_v3(p->eps, p->eps, p->eps);
    p->box.min = kcbp_v3_sub(p->box.min, pad);
    p->box.max = kcbp_v3_add(p->box.max, pad);
}

static inline double get(kcbp_vec3 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }

/* The squared distance from p to the box (c, e). */
static inline double point_box_dist2(kcbp_vec3 p, node_box b)
{
    kcbp_vec3 d = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, b.c)), b.e);
    d = kcbp_v3_max(d, kcbp_v3(0, 0, 0));
    return kcbp_v3_len2(d);
}

/* The gaps between the probe's oriented box and the node's box along the
 * node's axes and the probe's (a lower bound on their distance: the
 * largest; negative when none separates). */
static inline double obb_face_gap(const probe *p, node_box b)
{
    const double t[3] = {p->c.x - b.c.x, p->c.y - b.c.y, p->c.z - b.c.z}, ne[3] = {b.e.x, b.e.y, b.e.z};
    const double pe[3] = {p->e.x, p->e.y, p->e.z};
    double best = -INFINITY;
    for (int i = 0; i < 3; i++) { /* the node's axes */
        double g = fabs(t[i]) - ne[i] - p->rb_face[i];
        best = g > best ? g : best;
    }
    for (int j = 0; j < 3; j++) { /* the probe's axes: the columns of R */
        double ra = p->absR[0][j] * ne[0] + p->absR[1][j] * ne[1] + p->absR[2][j] * ne[2];
        double g = fabs(t[0] * p->R.m[0][j] + t[1] * p->R.m[1][j] + t[2] * p->R.m[2][j]) - ra - pe[j];
        best = g > best ? g : best;
    }
    return best;
}

/* The separating-axis test of the probe's oriented box against the node's
 * box (fifteen axes; Gottschalk's, as Ericson writes it), each widened by
 * eps: false when an axis separates them. */
static inline bool obb_overlap(const probe *p, node_box b)
{
    const double t[3] = {p->c.x - b.c.x, p->c.y - b.c.y, p->c.z - b.c.z}, ae[3] = {b.e.x, b.e.y, b.e.z};
    const double pe[3] = {p->e.x, p->e.y, p->e.z}, eps = p->eps;
    for (int i = 0; i < 3; i++) /* the node's axes */
        if (fabs(t[i]) > ae[i] + p->rb_face[i] + eps)
            return false;
    for (int j = 0; j < 3; j++) { /* the probe's axes */
        double ra = p->absR[0][j] * ae[0] + p->absR[1][j] * ae[1] + p->absR[2][j] * ae[2];
        if (fabs(t[0] * p->R.m[0][j] + t[1] * p->R.m[1][j] + t[2] * p->R.m[2][j]) > ra + pe[j] + eps)
            return false;
    }
    /* x_i x (R's column j), written out (the loops' index arithmetic was a
     * third of the test's instructions) */
#define CROSS(i, i1, i2, j)                                                                                       \
    if (fabs(t[i2] * p->R.m[i1][j] - t[i1] * p->R.m[i2][j]) >                                                     \
        ae[i1] * p->absR[i2][j] + ae[i2] * p->absR[i1][j] + p->rb_cross[i][j] + eps)                              \
        return false;
    CROSS(0, 1, 2, 0) CROSS(0, 1, 2, 1) CROSS(0, 1, 2, 2)
    CROSS(1, 2, 0, 0) CROSS(1, 2, 0, 1) CROSS(1, 2, 0, 2)
    CROSS(2, 0, 1, 0) CROSS(2, 0, 1, 1) CROSS(2, 0, 1, 2)
#undef CROSS
    return true;
}

/* The largest gap between the capsule's segment (without its radius) and
 * the node's box along the axes e x x_i (e the segment's direction), each
 * normalised: part of a lower bound on their distance. */
static inline double seg_cross_gap(const probe *p, node_box b)
{
    kcbp_vec3 w = kcbp_v3_sub(p->core[0], b.c);
    double best = -INFINITY;
    for (int i = 0; i < p->ncross; i++) { /* the unit axes e x x_i (probe_make) */
        double g = fabs(kcbp_v3_dot(p->cross[i], w)) - kcbp_v3_dot(p->abs_cross[i], b.e);
        best = g > best ? g : best;
    }
    return best;
}

/* A lower bound on the distance between the shape's core (a point or a
 * segment) and the node's box: their boxes' distance, and for a segment
 * its gaps along the cross axes. */
static double core_box_lower(const probe *p, node_box b)
{
    if (p->ncore == 1)
        return sqrt(point_box_dist2(p->core[0], b));
    kcbp_vec3 lo = kcbp_v3_min(p->core[0], p->core[1]), hi = kcbp_v3_max(p->core[0], p->core[1]);
    kcbp_vec3 d = kcbp_v3_max(kcbp_v3_sub(kcbp_v3_sub(lo, b.c), b.e), kcbp_v3_sub(kcbp_v3_sub(b.c, hi), b.e));
    d = kcbp_v3_max(d, kcbp_v3(0, 0, 0));
    double g = kcbp_v3_len(d), x = seg_cross_gap(p, b);
    return x > g ? x : g;
}

/* Whether the shape may touch a triangle in the node's box (never false
 * when it does: every test is widened by eps). */
static bool node_may_touch(const probe *p, node_box b)
{
    if (p->ncore == 0) /* its own axes test the box first */
        return obb_overlap(p, b);
    if (b.c.x - b.e.x > p->box.max.x || b.c.x + b.e.x < p->box.min.x || b.c.y - b.e.y > p->box.max.y ||
        b.c.y + b.e.y < p->box.min.y || b.c.z - b.e.z > p->box.max.z || b.c.z + b.e.z < p->box.min.z)
        return false;
    if (p->ncore == 1) {
        double r = p->r + p->eps;
        return point_box_dist2(p->core[0], b) <= r * r;
    }
    /* a segment: the box test above covered the box's own axes */
    return seg_cross_gap(p, b) <= p->r + p->eps;
}

/* A lower bound on the distance between the shape and a triangle in the
 * node's box (a little below: the rounding of the bounds). */
static double node_lower(const probe *p, node_box b)
{
    double g;
    if (p->ncore > 0) {
        g = core_box_lower(p, b) - p->r;
    } else {
        g = obb_face_gap(p, b);
        /* and the distance of the box's centre less its half diagonal */
        double s = sqrt(point_box_dist2(p->c, b)) - kcbp_v3_len(p->e);
        g = s > g ? s : g;
    }
    return g - p->eps;
}

/* A lower bound on the distance between the box [-h, h] and the triangle v
 * (in the box's frame): the largest gap along the box's axes and the
 * triangle's normal (0 when none separates). cyl_r > 0: the cylinder of
 * radius cyl_r and half height h.z inside that box, whose support along the
 * normal n is h.z |n_z| + cyl_r |(n_x, n_y)|. */
static double box_tri_lower(kcbp_vec3 h, const kcbp_vec3 v[3], double cyl_r)
{
    double best = 0;
    for (int i = 0; i < 3; i++) {
        double a = get(v[0], i), b = get(v[1], i), c = get(v[2], i), hi = get(h, i);
        double mn = a < b ? a : b, mx = a > b ? a : b;
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
        double g = mn - hi > -hi - mx ? mn - hi : -hi - mx;
        best = g > best ? g : best;
    }
    kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(v[1], v[0]), kcbp_v3_sub(v[2], v[0]));
    double len = kcbp_v3_len(n);
    if (len > 0) {
        double sup = cyl_r > 0 ? h.z * fabs(n.z) + cyl_r * sqrt(n.x * n.x + n.y * n.y)
                               : h.x * fabs(n.x) + h.y * fabs(n.y) + h.z * fabs(n.z);
        double g = (fabs(kcbp_v3_dot(n, v[0])) - sup) / len;
        best = g > best ? g : best;
    }
    return best;
}

/* The exact (or, for GJK's shapes, banded) test of one triangle (mesh
 * frame). */
static bool tri_touches(const probe *p, const kcbp_vec3 t[3])
{
    switch (p->g->def.kind) {
    case KCBP_SHAPE_SPHERE: return kcbp_within_point_tri(p->core[0], t, p->r);
    case KCBP_SHAPE_CAPSULE: return kcbp_within_seg_tri(p->core[0], p->core[1], t, p->r);
    case KCBP_SHAPE_BOX: {
        kcbp_vec3 v[3];
        for (int k = 0; k < 3; k++)
            v[k] = kcbp_pose_apply(&p->to_shape, t[k]);
        return kcbp_box_tri_intersect(p->g->half, v);
    }
    case KCBP_SHAPE_CYLINDER: {
        /* In its frame (the triangle carried there): apart by more than
         * the band along the box's axes or the triangle's normal, or a
         * vertex inside it by more than the band: settled (within the band,
         * as GJK would), GJK for the rest. */
        kcbp_vec3 v[3];
        for (int k = 0; k < 3; k++)
            v[k] = kcbp_pose_apply(&p->to_shape, t[k]);
        double r = p->g->def.radius, h = p->g->half.z, band = p->band;
        if (box_tri_lower(p->g->half, v, r) > band)
            return false;
        double ri = r - band, hi = h - band;
        for (int k = 0; k < 3 && ri > 0 && hi > 0; k++)
            if (v[k].x * v[k].x + v[k].y * v[k].y < ri * ri * (1 - 1e-12) && fabs(v[k].z) < hi)
                return true;
        break;
    }
    default: break;
    }
    kcbp_convex tri = kcbp_convex_polytope(t, 3, NULL, NULL, 0);
    kcbp_support_cache cache = {{0, 0}};
    return !kcbp_gjk_separated(&tri, &p->g->convex, &p->in_mesh, p->band, &cache, NULL, NULL, NULL);
}

/* The distance between the shape and one triangle (mesh frame), with a
 * closest point on each (*pt on the triangle, *ps on the shape). */
static double tri_distance(const probe *p, const kcbp_vec3 t[3], double best, kcbp_vec3 *pt, kcbp_vec3 *ps,
                           double *lowest)
{
    if (p->ncore > 0) {
        kcbp_vec3 x, q;
        double d2;
        if (p->ncore == 1) {
            x = p->core[0];
            d2 = kcbp_cp_point_tri(x, t, &q);
        } else {
            d2 = kcbp_cp_seg_tri(p->core[0], p->core[1], t, &x, &q);
        }
        double d = sqrt(d2);
        *pt = q;
        if (d > p->r) {
            *ps = kcbp_v3_add(x, kcbp_v3_scale(kcbp_v3_sub(q, x), p->r / d));
            *lowest = fmin(*lowest, d - p->r);
            return d - p->r;
        }
        *ps = q; /* inside the shape: a shared point */
        *lowest = 0;
        return 0;
    }
    /* GJK, unless a lower bound (less the boxes' padding, far above its
     * rounding) shows the triangle no nearer than the best: the capsule
     * around a cylinder, the box's and the triangle's axes for a box */
    double lower = -INFINITY;
    if (p->g->def.kind == KCBP_SHAPE_CYLINDER || p->g->def.kind == KCBP_SHAPE_BOX) {
        kcbp_vec3 v[3];
        for (int k = 0; k < 3; k++)
            v[k] = kcbp_pose_apply(&p->to_shape, t[k]);
        lower = box_tri_lower(p->g->half, v, p->g->def.kind == KCBP_SHAPE_CYLINDER ? p->g->def.radius : 0);
    }
    if (lower - p->eps >= best)
        return INFINITY;
    kcbp_convex tri = kcbp_convex_polytope(t, 3, NULL, NULL, 0);
    /* For a cylinder or a hull, GJK's early exit first: a support plane
     * separating them by more than the best distance ends it (most triangles
     * a leaf brings), before the distance is pinned down (callgrind on
     * bench/shapes.sh's cylinders: 30-40 % fewer instructions; a box's
     * 8-point GJK is cheap enough that the extra run costs more) */
    kcbp_support_cache cache = {{0, 0}};
    if (p->g->def.kind != KCBP_SHAPE_BOX && isfinite(best) &&
        kcbp_gjk_separated(&tri, &p->g->convex, &p->in_mesh, best, &cache, NULL, NULL, NULL))
        return INFINITY;
    double low, d = kcbp_convex_distance_points(&tri, &p->g->convex, &p->in_mesh, pt, ps, &low);
    *lowest = fmin(*lowest, low);
    return d;
}

/* ---- collide: shape-mesh ------------------------------------------------------- */

typedef struct {
    kcbp_collide_result *res;
    kcbp_contacts_mode mode;
    bool shape_is_a;
    bool nomem;
} sink;

/* Records triangle tri as a contact; false when the search should stop. */
static bool add_contact(sink *s, uint32_t tri)
{
    kcbp_collide_result *r = s->res;
    r->collide = true;
    if (s->mode == KCBP_CONTACTS_NONE)
        return false;
    kcbp_contact c = s->shape_is_a ? (kcbp_contact){KCBP_SHAPE_FEATURE, tri} : (kcbp_contact){tri, KCBP_SHAPE_FEATURE};
    if (!kcbp_result_add_contact(r, c)) {
        s->nomem = true;
        return false;
    }
    return s->mode == KCBP_CONTACTS_ALL;
}

/* Every triangle of the tree the shape touches (or the first). */
static void collide_tree(const probe *p, const kcbp_aabb_tree *t, sink *s, kcbp_tree_stats *stats)
{
    uint32_t stack[STACK_MAX];
    size_t top = 0;
    stack[top++] = TREE_ROOT;
    while (top > 0) {
        uint32_t i = stack[--top];
        node_box b = tree_node_box(t, i);
        stats->box_pairs++;
        if (!node_may_touch(p, b))
            continue;
        if (tree_is_leaf(t, i)) {
            for (uint32_t k = 0; k < tree_leaf_size(t, i); k++) {
                stats->tri_pairs++;
                if (tri_touches(p, tree_leaf_tri(t, i, k)) && !add_contact(s, tree_leaf_tri_id(t, i, k)))
                    return;
            }
            continue;
        }
        /* the child whose centre is nearer the shape's first, so that a
         * first contact is found soon */
        uint32_t c0 = tree_child(t, i, 0), c1 = tree_child(t, i, 1);
        double d0 = kcbp_v3_len2(kcbp_v3_sub(tree_node_box(t, c0).c, p->c));
        double d1 = kcbp_v3_len2(kcbp_v3_sub(tree_node_box(t, c1).c, p->c));
        if (top + 2 > STACK_MAX)
            continue; /* cannot happen: trees are shallower (model.c refuses deeper ones) */
        stack[top++] = d0 <= d1 ? c1 : c0;
        stack[top++] = d0 <= d1 ? c0 : c1;
    }
}

/* The least value of n . x over the shape's points (mesh frame), in closed
 * form: its centre's less its support's half width along n. */
static double shape_min_along(const probe *p, kcbp_vec3 n)
{
    const kcbp_shape_geom *g = p->g;
    double nl = kcbp_v3_len(n);
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: return kcbp_v3_dot(n, p->core[0]) - p->r * nl;
    case KCBP_SHAPE_CAPSULE: return fmin(kcbp_v3_dot(n, p->core[0]), kcbp_v3_dot(n, p->core[1])) - p->r * nl;
    case KCBP_SHAPE_BOX:
    case KCBP_SHAPE_CYLINDER: {
        /* n in the shape's frame: R^T n */
        kcbp_vec3 m = kcbp_mat3_tmul_v3(&p->R, n);
        double w = g->def.kind == KCBP_SHAPE_BOX ? fabs(m.x) * p->e.x + fabs(m.y) * p->e.y + fabs(m.z) * p->e.z
                                                 : fabs(m.z) * p->e.z + g->def.radius * sqrt(m.x * m.x + m.y * m.y);
        return kcbp_v3_dot(n, p->c) - w;
    }
    default: {
        const kcbp_vec3 *v = kcbp_convex_hull_vertices(g->hull);
        uint32_t nv = kcbp_convex_hull_vertex_count(g->hull);
        kcbp_vec3 m = kcbp_mat3_tmul_v3(&p->R, n);
        double lo = INFINITY;
        for (uint32_t i = 0; i < nv; i++)
            lo = fmin(lo, kcbp_v3_dot(m, v[i]));
        return lo + kcbp_v3_dot(n, p->in_mesh.trans);
    }
    }
}

/* The k-CBP stage of a shape and a mesh, when nothing is measured: the
 * shape beyond one of the k-CBP's planes (n . x <= d holds every mesh
 * vertex, pushed out beyond rounding) by more than the margin, its least n
 * . x in closed form. A scan of the k planes (a few hundred instructions)
 * instead of GJK on the k-CBP and the shape (about 6000, callgrind on
 * bench/shapes.sh's poses, where it ended fewer than one query in six and
 * the tree was then cheaper than GJK alone): GJK also finds separations
 * along the k-CBP's edges, which the tree's first levels find as fast.
 * The largest gap (a lower bound on the distance) in *gap. */
static bool cbp_planes_apart(const probe *p, const kcbp_model_impl *mesh, double margin, double *gap)
{
    double best = -INFINITY;
    for (uint32_t i = 0; i < mesh->cbp.nplanes; i++) {
        const kcbp_cbp_plane *pl = &mesh->cbp.planes[i];
        double nl = kcbp_v3_len(pl->n);
        if (!(nl > 0))
            continue;
        double g = (shape_min_along(p, pl->n) - pl->d) / nl;
        best = g > best ? g : best;
    }
    *gap = best;
    return best > margin;
}

static int cmp_contact(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

static kcbp_status collide_shape_mesh(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                      const kcbp_pose *pose_b, const kcbp_collide_options *o, kcbp_collide_result *r,
                                      kcbp_error *err)
{
    bool shape_is_a = kcbp_impl_is_shape(a);
    const kcbp_model_impl *shape = shape_is_a ? a : b, *mesh = shape_is_a ? b : a;
    const kcbp_pose *pose_s = shape_is_a ? pose_a : pose_b, *pose_m = shape_is_a ? pose_b : pose_a;
    if (mesh->mesh.ntriangles == 0 || tree_empty(&mesh->tree))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "collide: a model without triangles");
    if (tree_depth(&mesh->tree) + 1 > STACK_MAX)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "collide: a tree deeper than %d levels", STACK_MAX - 1);
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double eps = kcbp_pair_tolerance(a, b, &b_in_a);
    if (!o->skip_bounds && !kcbp_pair_boxes_overlap(a, pose_a, b, pose_b, eps)) {
        r->decided_by = KCBP_STAGE_AABB;
        return KCBP_OK;
    }
    probe p;
    probe_make(&p, shape, pose_s, mesh, pose_m);
    if (o->use_cbp && kcbp_impl_has_cbp(mesh)) {
        bool apart;
        if (o->cbp_measure) { /* the report's figures: GJK and EPA, as for two meshes */
            apart = kcbp_pair_cbp_stage(a, b, &b_in_a, pose_a, true, NULL, r);
        } else {
            double gap;
            apart = cbp_planes_apart(&p, mesh, kcbp_pair_cbp_margin(a, b, &b_in_a), &gap);
            r->cbp.tested = true;
            r->cbp.separated = apart;
            r->cbp.distance_lower = apart ? gap : 0;
        }
        if (apart) {
            r->decided_by = KCBP_STAGE_CBP;
            return KCBP_OK;
        }
    }
    r->decided_by = KCBP_STAGE_MESH;
    sink s = {r, o->contacts, shape_is_a, false};
    collide_tree(&p, &mesh->tree, &s, &r->tree);
    if (s.nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the contact list");
    /* As solids: a shape wholly inside the closed mesh, exactly (its
     * centre, carried into the mesh's frame, by the winding number). */
    if (o->solid && !r->collide) {
        kcbp_vec3 inside = shape->kind == KCBP_SHAPE_HULL ? kcbp_convex_hull_vertices(shape->geom.hull)[0]
                                                          : kcbp_v3(0, 0, 0);
        kcbp_vec3 q = kcbp_pose_apply(&p.in_mesh, inside);
        if (kcbp_point_in_mesh(&mesh->mesh, &mesh->tree, NULL, q) != KCBP_SOLID_OUTSIDE) {
            r->collide = true;
            r->contained = shape_is_a ? KCBP_CONTAINED_A_IN_B : KCBP_CONTAINED_B_IN_A;
        }
    }
    if (r->ncontacts > 1)
        qsort(r->contacts, r->ncontacts, sizeof *r->contacts, cmp_contact);
    return KCBP_OK;
}

kcbp_status kcbp_shape_collide_pair(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                    const kcbp_pose *pose_b, const kcbp_collide_options *o, kcbp_collide_result *r,
                                    kcbp_error *err)
{
    r->collide = false;
    r->ncontacts = 0;
    memset(&r->tree, 0, sizeof r->tree);
    memset(&r->cbp, 0, sizeof r->cbp);
    memset(&r->cache, 0, sizeof r->cache);
    r->contained = KCBP_CONTAINED_NONE;
    if (o->solid && (!a->solid || !b->solid))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "a solid test needs models built as solids (model %s is not)",
                              a->solid ? "B" : "A");
    if (!kcbp_impl_is_shape(a) || !kcbp_impl_is_shape(b))
        return collide_shape_mesh(a, pose_a, b, pose_b, o, r, err);
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double eps = kcbp_pair_tolerance(a, b, &b_in_a);
    if (!o->skip_bounds && !kcbp_pair_boxes_overlap(a, pose_a, b, pose_b, eps)) {
        r->decided_by = KCBP_STAGE_AABB;
        return KCBP_OK;
    }
    r->decided_by = KCBP_STAGE_SHAPE;
    bool exact;
    double band = KCBP_SHAPE_GJK_BAND * kcbp_pair_scale(a, b, &b_in_a);
    r->collide = kcbp_shape_pair_collide(&a->geom, &b->geom, &b_in_a, band, &exact);
    if (r->collide && o->contacts != KCBP_CONTACTS_NONE) {
        if (r->capacity == 0) {
            kcbp_contact *c = malloc(16 * sizeof *c);
            if (!c)
                return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the contact list");
            r->contacts = c;
            r->capacity = 16;
        }
        r->contacts[r->ncontacts++] = (kcbp_contact){KCBP_SHAPE_FEATURE, KCBP_SHAPE_FEATURE};
    }
    return KCBP_OK;
}

/* ---- distance ------------------------------------------------------------------ */

/* The node whose box is nearest p, down from the root (a first upper bound). */
static uint32_t dive(const kcbp_aabb_tree *t, kcbp_vec3 p)
{
    uint32_t i = TREE_ROOT;
    while (!tree_is_leaf(t, i)) {
        uint32_t c0 = tree_child(t, i, 0), c1 = tree_child(t, i, 1);
        i = point_box_dist2(p, tree_node_box(t, c1)) < point_box_dist2(p, tree_node_box(t, c0)) ? c1 : c0;
    }
    return i;
}

typedef struct {
    double best;
    kcbp_vec3 pt, ps; /* on the triangle, on the shape (mesh frame) */
    uint32_t tri;
    bool found;
    double lowest; /* the least proven lower bound of the triangles measured (== best unless GJK hit its cap) */
} nearest;

static void leaf_distance(const probe *p, const kcbp_aabb_tree *t, uint32_t i, double limit, nearest *n,
                          kcbp_tree_stats *stats)
{
    for (uint32_t k = 0; k < tree_leaf_size(t, i); k++) {
        kcbp_vec3 pt, ps;
        stats->tri_pairs++;
        double d = tri_distance(p, tree_leaf_tri(t, i, k), n->best, &pt, &ps, &n->lowest);
        if (d < n->best && d <= limit) {
            n->best = d;
            n->pt = pt;
            n->ps = ps;
            n->tri = tree_leaf_tri_id(t, i, k);
            n->found = true;
        }
    }
}

/* The nearest triangle within limit: depth-first, the nearer child first,
 * pruning every node whose lower bound is not below the best found (or
 * beyond limit); stops once the best is down to stop (a proven lower
 * bound) or 0. */
static void distance_tree(const probe *p, const kcbp_aabb_tree *t, double limit, double stop, nearest *n,
                          kcbp_tree_stats *stats)
{
    uint32_t seed = dive(t, p->c);
    leaf_distance(p, t, seed, limit, n, stats);
    typedef struct {
        uint32_t node;
        double lb;
    } item;
    item stack[STACK_MAX];
    size_t top = 0;
    stack[top++] = (item){TREE_ROOT, node_lower(p, tree_node_box(t, TREE_ROOT))};
    stats->box_pairs++;
    while (top > 0) {
        if (n->found && (n->best <= 0 || n->best <= stop))
            break;
        item it = stack[--top];
        if (it.lb >= n->best || it.lb > limit)
            continue;
        if (tree_is_leaf(t, it.node)) {
            if (it.node != seed)
                leaf_distance(p, t, it.node, limit, n, stats);
            continue;
        }
        uint32_t c0 = tree_child(t, it.node, 0), c1 = tree_child(t, it.node, 1);
        double l0 = node_lower(p, tree_node_box(t, c0)), l1 = node_lower(p, tree_node_box(t, c1));
        stats->box_pairs += 2;
        item near = {l0 <= l1 ? c0 : c1, l0 <= l1 ? l0 : l1}, far = {l0 <= l1 ? c1 : c0, l0 <= l1 ? l1 : l0};
        if (top + 2 > STACK_MAX)
            continue;
        if (far.lb < n->best && far.lb <= limit)
            stack[top++] = far;
        if (near.lb < n->best && near.lb <= limit)
            stack[top++] = near;
    }
}

kcbp_status kcbp_shape_distance(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                const kcbp_pose *pose_b, const kcbp_distance_options *o, kcbp_distance_result *r,
                                kcbp_error *err)
{
    memset(r, 0, sizeof *r);
    r->distance = INFINITY;
    r->decided_by = KCBP_STAGE_MESH;
    bool limited = o->max_distance >= 0 && isfinite(o->max_distance);
    double limit = limited ? o->max_distance : INFINITY;
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double margin = kcbp_pair_cbp_margin(a, b, &b_in_a), lower = 0;
    bool both = kcbp_impl_is_shape(a) && kcbp_impl_is_shape(b);
    const kcbp_model_impl *shape = kcbp_impl_is_shape(a) ? a : b, *mesh = shape == a ? b : a;
    if (!both && (mesh->mesh.ntriangles == 0 || tree_empty(&mesh->tree)))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "distance: a model without triangles");
    if (!both && tree_depth(&mesh->tree) + 1 > STACK_MAX)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "distance: a tree deeper than %d levels", STACK_MAX - 1);
    if (limited) {
        double box_lower = sqrt(kcbp_pair_boxes_dist2(a, pose_a, b, pose_b)) - margin;
        lower = fmax(lower, box_lower);
        if (box_lower > limit) {
            r->decided_by = KCBP_STAGE_AABB;
            r->distance_lower = lower;
            return KCBP_OK;
        }
    }
    if (both) {
        kcbp_vec3 pa, pb;
        double low, d = kcbp_shape_pair_distance(&a->geom, &b->geom, &b_in_a, &pa, &pb, &low);
        if (!(d <= limit)) {
            r->decided_by = KCBP_STAGE_SHAPE;
            r->distance_lower = fmax(lower, limit);
            return KCBP_OK;
        }
        r->within = true;
        r->decided_by = KCBP_STAGE_SHAPE;
        r->distance = d;
        r->distance_lower = fmax(0, fmin(d, low));
        r->point_a = kcbp_pose_apply(pose_a, pa);
        r->point_b = kcbp_pose_apply(pose_a, pb);
        r->tri_a = r->tri_b = KCBP_SHAPE_FEATURE;
        return KCBP_OK;
    }
    probe p;
    const kcbp_pose *pose_s = shape == a ? pose_a : pose_b, *pose_m = shape == a ? pose_b : pose_a;
    probe_make(&p, shape, pose_s, mesh, pose_m);
    /* The mesh's k-CBP against the shape: its largest gap beyond one of
     * the k-CBP's planes (see cbp_planes_apart; GJK there cost a third of a
     * sphere's distance query and the bound only ends a clearance query), a
     * lower bound on the distance. */
    if (o->use_cbp && kcbp_impl_has_cbp(mesh)) {
        double gap;
        cbp_planes_apart(&p, mesh, margin, &gap);
        r->cbp_tested = true;
        r->cbp_distance = gap > 0 ? gap : 0;
        lower = fmax(lower, r->cbp_distance - margin);
        if (limited && r->cbp_distance - margin > limit) {
            r->decided_by = KCBP_STAGE_CBP;
            r->distance_lower = lower;
            return KCBP_OK;
        }
    }
    nearest n = {INFINITY, {0, 0, 0}, {0, 0, 0}, 0, false, INFINITY};
    distance_tree(&p, &mesh->tree, limit, lower, &n, &r->tree);
    if (!n.found) {
        r->distance_lower = fmax(lower, limit);
        return KCBP_OK;
    }
    r->within = true;
    r->distance = n.best > 0 ? n.best : 0;
    /* the triangles not measured were pruned by bounds above the best */
    r->distance_lower = fmax(0, fmin(r->distance, n.lowest));
    kcbp_vec3 wt = kcbp_pose_apply(pose_m, n.pt), ws = kcbp_pose_apply(pose_m, n.ps);
    r->point_a = shape == a ? ws : wt;
    r->point_b = shape == a ? wt : ws;
    r->tri_a = shape == a ? KCBP_SHAPE_FEATURE : n.tri;
    r->tri_b = shape == a ? n.tri : KCBP_SHAPE_FEATURE;
    return KCBP_OK;
}

double kcbp_shape_axis_radius(const kcbp_model_impl *m, kcbp_vec3 axis)
{
    return kcbp_shape_geom_axis_radius(&m->geom, axis);
}
