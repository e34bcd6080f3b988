/* The distance from a point to a mesh's surface through its AABB tree
 * (internal: point_distance.c). */
#ifndef KCBP_POINT_DISTANCE_H
#define KCBP_POINT_DISTANCE_H

#include <stdint.h>

#include "aabb_tree.h"

/* The distance from p (the mesh's own frame, the tree's) to the nearest of
 * the tree's triangles, its closest point in *q and the triangle's mesh
 * index in *tri (either may be NULL). Depth-first, the nearer child first,
 * pruning a node whose box is farther than the best so far; each triangle
 * by kcbp_cp_point_tri. Accuracy: within about 1e-15 of the largest
 * coordinate of p and the mesh (KCBP_TRI_DIST_REL_ERR of it is a generous
 * bound a caller may take off to make it a lower bound). INFINITY for an
 * empty tree. No allocation (the stack is bounded by KCBP_TREE_MAX_DEPTH). */
double kcbp_tree_point_distance(const kcbp_aabb_tree *t, kcbp_vec3 p, kcbp_vec3 *q, uint32_t *tri);

/* The same search started from the bound `within` (only triangles at most
 * that far count, so that it visits only the boxes within it): the leaf
 * node holding the nearest, UINT32_MAX when none is. */
uint32_t kcbp_tree_point_nearest_leaf(const kcbp_aabb_tree *t, kcbp_vec3 p, double within);

#endif
