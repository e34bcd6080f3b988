/* Whether a closed mesh model is exactly convex, and its hull as a shape
 * (internal; convex_solid.c, where the test is proven). kcbp_signed_distance
 * answers two convex solids with the convex depth (EPA on the hulls) when
 * every mesh among them passes this test.
 *
 * Frames: the hull is in the model's own frame (the mesh's coordinates).
 *
 * Guarantee: a non-NULL answer means the solid (solid.h: the points of
 * non-zero winding number) is exactly the convex hull of the mesh's
 * vertices, for the double coordinates stored (exact orient3d, no
 * tolerance). NULL means "not shown convex": not convex, not a solid, a
 * flat hull, triangles x vertices above KCBP_CONVEX_SOLID_MAX_CHECKS (the
 * scan's worst case; then nothing is built), more orient3d evaluations
 * needed than that, or out of memory; callers then take the general path.
 *
 * Cost: the hull of the vertices (once), then at most
 * KCBP_CONVEX_SOLID_MAX_CHECKS orient3d (filtered, exact when the filter
 * cannot decide), stopping at the first vertex on the wrong side. The
 * verdict and the hull are cached on the model (made once: racing threads
 * each compute, the first to publish wins, the others free theirs). */
#ifndef KCBP_CONVEX_SOLID_H
#define KCBP_CONVEX_SOLID_H

#include <kcbp/signed_distance.h>

#include "model_internal.h"

/* The cap on orient3d evaluations of one model's test, and on its
 * triangles x vertices (2^22: a few ms with the hull, paid once per model
 * on its first overlapping query; a 1,280-triangle icosphere needs 8.2e5, a
 * 5,120-triangle one 1.3e7, which stays bracketed). */
#define KCBP_CONVEX_SOLID_MAX_CHECKS (UINT64_C(1) << 22)

/* The hull of model m as a shape when m is a mesh solid that is exactly
 * convex (see above), else NULL. A shape model: NULL (use its geom). */
const kcbp_shape_geom *kcbp_impl_convex_solid(const kcbp_model_impl *m);

/* A convex pair with a mesh, answered by the hulls (r PENETRATING, from
 * the convex depth): as for every mesh pair, the translation is made one
 * that is proven to part them. B moved by (depth + pad) * normal is tested
 * apart as solids (kcbp_collide, exact for meshes), pad = 2^-40 of the
 * pair's scale and then 4 times more, up to KCBP_SDIST_CONVEX_REL_TOL of
 * it; the first that is apart becomes depth, depth_upper and
 * |translation| (so the depth stays within the convex tolerance, and is
 * not below the true depth); depth_lower stays the convex depth's (EPA's,
 * below depth by the pad). None apart within the tolerance (not seen):
 * r is left as the convex depth gave it. The points are left as they
 * are (off by the pad at most). Work: a kcbp_collide per pad tried (one,
 * mostly). */
void kcbp_convex_solid_verify_out(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                  const kcbp_pose *pose_b, bool use_cbp, kcbp_signed_distance_result *r);

typedef enum {
    KCBP_HULL_NOT = 0,       /* a vertex on the wrong side of a triangle's plane (or all flat) */
    KCBP_HULL_BOUNDS = 1,    /* every triangle's plane supports the hull, one sign for all */
    KCBP_HULL_UNDECIDED = 2, /* the cap was reached first */
} kcbp_hull_verdict;

/* The test itself, uncached: whether the closed, consistently oriented
 * mesh with these triangles bounds exactly the hull whose vertices are
 * hv[0..nh) (the hull of the mesh's vertices; NOT may also be shown with
 * any points of the solid, e.g. the mesh's own vertices, since a closed
 * half-space holds the hull iff it holds them). *checks (may be NULL)
 * counts the orient3d evaluations, at most cap. */
kcbp_hull_verdict kcbp_mesh_bounds_hull(const kcbp_mesh *mesh, const kcbp_vec3 *hv, uint32_t nh, uint64_t cap,
                                        uint64_t *checks);

#endif
