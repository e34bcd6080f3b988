/* kcbp_tree_point_distance (point_distance.h). */
#include "point_distance.h"

#include <math.h>

#include "geom/closest.h"

/* The squared distance from p to node i: the larger of its axis-aligned
 * box's and its oriented box's (tighter for a slanted patch or a sliver:
 * a cone's apex fan has boxes as large as the cone). Both boxes hold the
 * node's triangles (the oriented one padded for its rounding), so each is
 * a lower bound. */
static inline double box_dist2(const kcbp_aabb_tree *t, uint32_t i, kcbp_vec3 p)
{
    const kcbp_aabb_node *n = &t->nodes[i];
    kcbp_vec3 u = kcbp_v3_sub(kcbp_v3_abs(kcbp_v3_sub(p, n->center)), n->extent);
    double d2 = kcbp_v3_len2(kcbp_v3_max(u, kcbp_v3(0, 0, 0)));
    if (t->obb) {
        const kcbp_obb *o = &t->obb[i];
        kcbp_vec3 l = kcbp_mat3_mul_v3(&o->axes, kcbp_v3_sub(p, o->center));
        kcbp_vec3 v = kcbp_v3_sub(kcbp_v3_abs(l), o->extent);
        double e2 = kcbp_v3_len2(kcbp_v3_max(v, kcbp_v3(0, 0, 0)));
        if (e2 > d2)
            d2 = e2;
    }
    return d2;
}

/* The search of both entry points: best the starting bound (only nearer
 * triangles count), *leaf_out the nearest's leaf (UINT32_MAX: none). */
static double point_search(const kcbp_aabb_tree *t, kcbp_vec3 p, double best, kcbp_vec3 *q, uint32_t *tri,
                           uint32_t *leaf_out)
{
    double best2 = best * best;
    kcbp_vec3 bq = p;
    uint32_t bt = UINT32_MAX, bl = UINT32_MAX;
    if (leaf_out)
        *leaf_out = UINT32_MAX;
    if (!t->nodes || t->nnodes == 0)
        return INFINITY;
    /* A depth-first stack: each level pushes at most one sibling. */
    uint32_t stack[2 * KCBP_TREE_MAX_DEPTH + 2];
    uint32_t top = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t ni = stack[--top];
        const kcbp_aabb_node *n = &t->nodes[ni];
        if (box_dist2(t, ni, p) > best2)
            continue;
        if (n->count) {
            for (uint32_t k = 0; k < n->count; k++) {
                uint32_t slot = n->first + k;
                kcbp_vec3 c;
                double d = sqrt(kcbp_cp_point_tri(p, t->tri_verts[slot], &c)); /* it gives the square */
                if (d < best || (d == best && t->tri_ids[slot] < bt)) {
                    best = d;
                    best2 = d * d;
                    bq = c;
                    bt = t->tri_ids[slot];
                    bl = ni;
                }
            }
            continue;
        }
        uint32_t c0 = n->first, c1 = n->first + 1;
        double d0 = box_dist2(t, c0, p), d1 = box_dist2(t, c1, p);
        /* the nearer child is popped first */
        if (d0 <= d1) {
            if (d1 <= best2)
                stack[top++] = c1;
            if (d0 <= best2)
                stack[top++] = c0;
        } else {
            if (d0 <= best2)
                stack[top++] = c0;
            if (d1 <= best2)
                stack[top++] = c1;
        }
    }
    if (q)
        *q = bq;
    if (tri)
        *tri = bt;
    if (leaf_out)
        *leaf_out = bl;
    return bt == UINT32_MAX ? INFINITY : best;
}

double kcbp_tree_point_distance(const kcbp_aabb_tree *t, kcbp_vec3 p, kcbp_vec3 *q, uint32_t *tri)
{
    return point_search(t, p, INFINITY, q, tri, NULL);
}

uint32_t kcbp_tree_point_nearest_leaf(const kcbp_aabb_tree *t, kcbp_vec3 p, double within)
{
    uint32_t leaf;
    point_search(t, p, within, NULL, NULL, &leaf);
    return leaf;
}
