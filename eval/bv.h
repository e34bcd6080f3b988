/* Bounding volumes as filters: the volumes a mesh can be wrapped in, built
 * once in the mesh's own frame, and the test that says whether two posed
 * volumes may touch.
 *
 * Every volume contains every vertex of its mesh (so every triangle), in
 * floating point up to rounding far below KCBP_BV_MARGIN_REL, and the
 * overlap test answers "apart" only when the two volumes are apart by more
 * than the margin it is given: a filter never drops a pair the exact mesh
 * test would find touching. The kinds:
 *
 *   sphere      the smallest enclosing sphere of the vertices (Welzl's
 *               algorithm in its iterative form, on a shuffled copy; the
 *               radius is then recomputed as the largest distance from the
 *               centre, so containment never depends on its rounding).
 *   aabb        the world box of the posed mesh: the box of the transformed
 *               vertices, computed per pose (O(vertices)); the tightest
 *               axis-aligned box, what the k-CBP thesis's "Box" is.
 *   aabb-posed  the world box of the posed local box (Arvo: half-sizes
 *               |R| e): O(1) per pose, looser under rotation.
 *   obb         an oriented box: the principal axes of the surface (the
 *               area-weighted covariance of the triangles, as Gottschalk's
 *               OBBTree does; vertices if the area is 0), or the local axes
 *               when the local box is smaller. Separating-axis test (15
 *               axes; near-parallel edge pairs are skipped, which can only
 *               let a pair through).
 *   k-dop       kcbp_cbp_build with KCBP_DIRS_KDOP (k = 6, 14, 18, 26): the
 *               local k-DOP, a convex polytope; posed, a rotated k-DOP.
 *   k-cbp       kcbp_cbp_build with the given k and directions.
 *   hull        the convex hull of the vertices (qhull) with its vertex
 *               adjacency, so that GJK's support climbs instead of scanning.
 * Polytopes (k-dop, k-cbp, hull) are tested with kcbp_gjk_intersect on the
 * shapes inflated by half the margin each.
 *
 * A kcbp_bv owns copies of what it needs (not the mesh) and is read-only
 * once built: any number of threads may test it. */
#ifndef KCBP_BV_H
#define KCBP_BV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/cbp.h>
#include <kcbp/convex_hull.h>
#include <kcbp/error.h>
#include <kcbp/mesh.h>
#include <kcbp/pose.h>
#include <kcbp/support.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The margin callers should give kcbp_bv_overlap, relative to the scale of
 * the pair (kcbp_mesh_scale plus distance from the origin): the same 1e-8
 * that kcbp_collide's k-CBP stage keeps, 100 times the triangle test's
 * tolerance. */
#define KCBP_BV_MARGIN_REL 1e-8

typedef enum {
    KCBP_BV_SPHERE,
    KCBP_BV_AABB,
    KCBP_BV_AABB_POSED,
    KCBP_BV_OBB,
    KCBP_BV_KDOP,
    KCBP_BV_CBP,
    KCBP_BV_HULL,
} kcbp_bv_kind;

typedef struct {
    kcbp_bv_kind kind;
    int k;              /* KDOP and CBP: planes */
    kcbp_cbp_dirs dirs; /* CBP: directions */
} kcbp_bv_spec;

typedef struct {
    kcbp_bv_spec spec;
    /* SPHERE */
    kcbp_vec3 center;
    double radius;
    /* AABB_POSED: the local box; OBB: its centre (local), axes (columns of
     * axes, unit, right-handed) and half-sizes along them */
    kcbp_aabb box;
    kcbp_mat3 axes;
    kcbp_vec3 obb_center, obb_extent;
    /* AABB: the vertices */
    kcbp_vec3 *points;
    uint32_t npoints;
    /* HULL */
    kcbp_convex_hull *hull;
    /* KDOP, CBP */
    kcbp_cbp *cbp;
    /* KDOP, CBP, HULL: the polytope as GJK sees it */
    kcbp_convex shape;
    double volume;   /* of the volume (the AABB's local box for AABB) */
    double build_ms; /* wall-clock time of kcbp_bv_build */
} kcbp_bv;

/* Builds the volume of a mesh. bv is zeroed first and must be freed with
 * kcbp_bv_free on success; on failure it holds nothing. KDOP takes k in
 * {6, 14, 18, 26} (others give kcbp_cbp_build's fixed directions). */
kcbp_status kcbp_bv_build(kcbp_bv *bv, const kcbp_bv_spec *spec, const kcbp_mesh *mesh, kcbp_error *err);
void kcbp_bv_free(kcbp_bv *bv);

/* The world box of the posed volume (for the volume's own broad phase: two
 * volumes that may touch always have overlapping boxes). For AABB and
 * AABB_POSED it is the volume itself. */
kcbp_aabb kcbp_bv_world_box(const kcbp_bv *bv, const kcbp_pose *pose);

/* False when the posed volumes are apart by more than margin (>= 0); true
 * when they may touch. Both must be of the same kind. For AABB the boxes are
 * computed here (O(vertices)): a caller that has them should compare them. */
bool kcbp_bv_overlap(const kcbp_bv *a, const kcbp_pose *pose_a, const kcbp_bv *b, const kcbp_pose *pose_b,
                     double margin);

/* Names: "sphere", "aabb", "aabb-posed", "obb", "14-dop", "16-cbp-greedy",
 * "hull" (k and directions as in the spec). Returns buf. */
const char *kcbp_bv_name(const kcbp_bv_spec *spec, char *buf, size_t size);
/* Parses a name as kcbp_bv_name writes it ("16-cbp" means greedy). */
kcbp_status kcbp_bv_parse(const char *name, kcbp_bv_spec *spec, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
