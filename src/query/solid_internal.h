/* Internal helpers shared by src/solid.c, src/self.c and src/collide.c. */
#ifndef KCBP_SOLID_INTERNAL_H
#define KCBP_SOLID_INTERNAL_H

#include <kcbp/collide.h>
#include <kcbp/solid.h>

/* For each vertex, the smallest index of a vertex with the same
 * coordinates (exact equality). malloc'ed; NULL when memory runs out. */
uint32_t *kcbp_solid_weld(const kcbp_mesh *mesh);

/* For kcbp_collide's last stage, when the surfaces of two solid models do
 * not meet: whether a piece of B's surface (B placed in A's frame by b_in_a,
 * as the triangle test places it) lies inside A, else whether a piece of
 * A's lies inside B. Exact for those coordinates (kcbp_point_in_solid). */
kcbp_containment kcbp_solid_containment(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *b_in_a);

#endif
