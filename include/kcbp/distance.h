/* Distance between two posed meshes, and between two triangles.
 *
 * kcbp_distance answers "how far apart are the two surfaces, and where are
 * they closest?" for the models kcbp_collide uses (collide.h), with the
 * same conventions: status codes and an optional kcbp_error, an options
 * struct with a _default() function, no allocation (the traversal's stack
 * is bounded by the trees' depths and lives on the C stack), read-only models (any number of threads
 * may query the same models).
 *
 * Frames: the models are given in their own frames and placed in the world
 * by pose_a and pose_b (world = pose * local). The distance is the same in
 * every frame; the closest points are returned in the world frame, computed
 * in A's frame (B moved by kcbp_pose_relative(pose_a, pose_b)) and moved to
 * the world by pose_a, as kcbp_collide's k-CBP points are.
 *
 * The stages, cheapest first (each one a lower bound on the distance):
 *   1. aabb: the distance between the world boxes of the k-CBPs;
 *   2. cbp:  the GJK distance between the two k-CBPs (they hold the meshes);
 *   3. mesh: a first upper bound from the triangles nearest the k-CBPs'
 *            closest points (a greedy dive in each tree), then the two AABB
 *            trees, depth-first with the nearer pair of children first
 *            (by centre distance less the boxes' sizes),
 *            pruning every node pair whose lower bound is not below the
 *            best triangle distance found so far (the running upper bound);
 *            the bound is from the nodes' oriented boxes (kcbp_aabb_tree.obb,
 *            along each node's principal axes, so that it stays tight under
 *            any relative rotation, which axis-aligned boxes do not),
 *            and kcbp_tri_distance on the leaves' triangles (each pair first
 *            bounded by its gap along the line through the centroids
 *            and by each triangle's slab, kcbp_tri_slab);
 *   4. nested surfaces at constant clearance (issue 33: a drill tip in the
 *            conical bottom of its hole, coaxial fans), where a great many
 *            triangle pairs are at the smallest distance or within rounding
 *            of it and no box bound can tell them apart (a fan's apex is in
 *            every leaf): once stage 3 has done work linear in the meshes'
 *            sizes, a better pair is looked for near vertices (for 16
 *            leaves spread over each tree, every pair of the leaf and the
 *            other tree's leaf nearest each of its vertices: the first
 *            best is often an apex pair, tied with all the others a hair
 *            above the distance, which is at a rim); then,
 *            if most triangles of one mesh (a sample of 16) have the
 *            whole other mesh beyond their planes at the best distance
 *            found (the other mesh's exact support along the normal, from
 *            a tree over its vertices), that mesh's tree is swept alone:
 *            a node or leaf whose slab (its box's thinnest axis, or each
 *            triangle's plane) has the other mesh that far beyond it is
 *            dropped, and the leaves left are searched against the other
 *            tree as in stage 3. Otherwise (the cones turned so that no
 *            vertices line up: the tool's rim overhangs the hole's facets)
 *            stage 3 goes on with more bounds: for a leaf against a node
 *            whose triangles all share a vertex (a fan's apex, kept with
 *            two boxes of the node's other vertices, along the mesh's axes
 *            and along the node's oriented box's), the node's gap along
 *            each of the leaf's triangle normals and along the line from
 *            the triangle's point nearest the apex to the apex, both exact
 *            at the apex; for a triangle pair, the distance between their
 *            spines (the segment from the vertex opposite the shortest
 *            edge to its midpoint) less half of each shortest edge (two
 *            slivers side by side); and it
 *            goes down first the side whose triangles' planes have the
 *            other mesh beyond them (the hole's). Stage 4 (the sweep,
 *            and the search with the fans' bounds; since issue 33's
 *            held-out hunt the latter too: two cones tip to tip, every
 *            pair exactly at the apexes' distance) drops pairs within
 *            KCBP_TRI_DIST_REL_ERR * S of the best (S: the size of the
 *            coordinates), so the distance is then within that of the
 *            smallest kcbp_tri_distance over all triangle pairs; when
 *            stage 3 ends within its budget (most pairs) it is that
 *            smallest value, bit for bit.
 * Stages 1 and 2 decide only with max_distance: when their lower bound
 * exceeds it, the answer "farther than max_distance" is known without
 * touching the meshes. Stage 3 stops as soon as the distance is 0 (the
 * meshes touch or intersect), or, with max_distance, when no node pair
 * within max_distance is left.
 *
 * Shapes (shape.h): the distance between the mesh's surface and the shape's
 * solid (0 when they meet, the points then one shared point), or between two
 * solids; tri_a or tri_b is KCBP_SHAPE_FEATURE for a shape. A sphere's and a
 * capsule's are closed forms (point and segment against each triangle, to
 * about 1e-16 of the local coordinates); a box's, a cylinder's and a hull's
 * GJK's on each triangle (its relative tolerance 1e-12; a lower bound when
 * GJK stops at its iteration cap). The mesh's tree is walked nearest node
 * first from the leaf nearest the shape's centre. */
#ifndef KCBP_DISTANCE_H
#define KCBP_DISTANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "collide.h"
#include "error.h"
#include "pose.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The distance between triangles a and b (their closed surfaces: vertices,
 * edges and interior), and a closest pair of points, *pa on a and *pb on b
 * (either may be NULL). 0 when they touch or intersect (then *pa and *pb are
 * one shared point, up to rounding).
 *
 * It is the smallest of: the 9 edge-edge distances (segment-segment, with
 * parallel and zero-length edges handled), the 6 vertex-face distances where
 * the vertex projects into the other triangle, and 0 when an edge of one
 * crosses the other (which catches every intersection: the intersection of
 * two triangles, when not empty, meets an edge of one of them; tested only
 * when neither lies strictly on one side of the other's plane). An edge
 * pair whose slab (normal to the segment joining its closest points)
 * separates the two triangles ends the search early, as in PQP and FCL. Degenerate
 * triangles (zero area up to rounding: collinear or repeated vertices) are
 * the union of their edges, and only the edge-edge cases are used for them.
 *
 * Accuracy: with S the largest absolute coordinate of the six vertices, the
 * result differs from the exact distance of the given (double) vertices by
 * at most KCBP_TRI_DIST_REL_ERR * S, and the points lie within that of their
 * triangles. The bound is generous; it is checked against an
 * extended-precision oracle (__float128) in tests/test_distance.c (random,
 * apart, touching, coplanar, near-parallel-edge, degenerate, sliver,
 * vertex-over-sliver and far-from-origin pairs: largest error 1.9e-14 * S)
 * and against CGAL's exact squared distance in `make stress`
 * (tests/stress/tridist_exact.cpp, 40000 pairs: largest 3.6e-14 * S, for a
 * vertex over a sliver; at most 6.5e-16 * S in the other classes). A
 * sliver's face normal is computed from its exact edge vectors in twice the
 * working precision: the plain cross product tilts it by ~u / sin(angle),
 * which put a vertex over a sliver 1e-8 thick 1.4e-9 * S off.
 * Any non-finite coordinate gives INFINITY (never NaN), with the first
 * vertices as points. No allocation; thread-safe. */
#define KCBP_TRI_DIST_REL_ERR 1e-12
KCBP_API double kcbp_tri_distance(const kcbp_vec3 a[3], const kcbp_vec3 b[3], kcbp_vec3 *pa, kcbp_vec3 *pb);

typedef struct {
    /* >= 0: stop as soon as the distance is known to exceed it (the answer
     * is then "farther than max_distance", with a lower bound); negative or
     * INFINITY: none, the full distance. */
    double max_distance;
    bool use_cbp; /* run the k-CBP stage (when both models have one) */
} kcbp_distance_options;

/* No max_distance (INFINITY), the k-CBP stage on. */
KCBP_API kcbp_distance_options kcbp_distance_options_default(void);

typedef struct {
    /* false: the meshes are proven farther apart than max_distance, and only
     * distance_lower is meaningful (distance is INFINITY, no points). */
    bool within;
    double distance;       /* >= 0: the minimum distance between the surfaces */
    double distance_lower; /* a proven lower bound (== distance when within) */
    kcbp_vec3 point_a, point_b; /* closest points, world frame, on A and on B */
    uint32_t tri_a, tri_b;      /* the triangles they lie on (mesh indices, as contacts) */
    kcbp_stage decided_by;      /* aabb or cbp: proven beyond max_distance early */
    bool cbp_tested;
    double cbp_distance;        /* GJK distance between the k-CBPs (a lower bound); for a shape
                                   and a mesh, the shape's largest gap beyond a plane of
                                   the mesh's k-CBP (a lower bound too) */
    int gjk_iterations;
    kcbp_tree_stats tree;       /* box_pairs: node pairs whose distance was bounded;
                                   tri_pairs: triangle distances computed */
} kcbp_distance_result;

/* The distance between model a at pose_a and model b at pose_b. options
 * NULL: defaults. Fails only for out of memory (the traversal stack) or a
 * model without triangles. */
KCBP_API kcbp_status kcbp_distance(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                   const kcbp_pose *pose_b, const kcbp_distance_options *options,
                                   kcbp_distance_result *result, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
