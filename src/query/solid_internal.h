/* What kcbp_collide takes from solids (src/query/solid.c). */
#ifndef KCBP_SOLID_INTERNAL_H
#define KCBP_SOLID_INTERNAL_H

#include <kcbp/collide.h>
#include <kcbp/solid.h>

#include "model_internal.h"

/* kcbp_point_in_solid on a mesh and its tree (NULL: every triangle is
 * tested). */
kcbp_solid_side kcbp_point_in_mesh(const kcbp_mesh *mesh, const kcbp_aabb_tree *tree, const kcbp_pose *pose,
                                   kcbp_vec3 p);

/* For kcbp_collide's last stage, when the surfaces of two solid models do
 * not meet: whether a piece of B's surface (B placed in A's frame by b_in_a,
 * as the triangle test places it) lies inside A, else whether a piece of
 * A's lies inside B. Exact for those coordinates (kcbp_point_in_solid). */
kcbp_containment kcbp_solid_containment(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a);

#endif
