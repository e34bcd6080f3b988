/* Contact manifolds: the contacts of two overlapping models grouped into
 * patches, each with a normal, a depth and at most four points spanning
 * it: what a physics step or a contact solver takes (issue 32, item 4).
 *
 * Frames and signs (as signed_distance.h):
 *   - every point and normal is in the world frame (computed in A's frame,
 *     moved by pose_a);
 *   - a manifold's normal is a unit vector from A toward B: moving B along
 *     it tends to part the models at that patch;
 *   - each point has point_a (on or at A's surface), point_b (on or at
 *     B's) and point_b - point_a == separation * normal (up to rounding):
 *     separation <= 0 where they overlap, 0 where they just touch;
 *   - depth >= 0 is the manifold's own: the largest -separation of the
 *     points it was chosen from (two convex shapes: their exact depth).
 *     Both are local quantities, not the models' penetration depth (that
 *     is kcbp_signed_distance's, signed_distance.h).
 *
 * What is exact, what is an estimate:
 *   - collide and which triangles meet (the patches' triangle pairs) are
 *     exact, as kcbp_collide decides them (collide.h): a manifold exists
 *     for every patch of contacts and for nothing else;
 *   - normals, depths, points and separations are constructions in double:
 *     estimates for response, but for the normal and depth of two convex
 *     shapes (below).
 *
 * How each pair is done:
 *   - two convex shapes (spheres, capsules, boxes, cylinders, hulls): one
 *     manifold. Its normal and depth are the exact convex depth's
 *     (kcbp_signed_distance's, within KCBP_SDIST_CONVEX_REL_TOL; depth_exact
 *     says so). Its points: the feature of each shape that faces the
 *     other (a box's face, a capsule's segment, a sphere's point, a
 *     cylinder's cap as 8 rim points or its side as a segment, a hull's
 *     vertices within 1e-6 of its reach of its support) are clipped
 *     (Box2D's b2ClipPolygons): the incident feature against the side
 *     planes of the reference one (of two faces, the one whose own normal
 *     is nearer the normal, A's on a tie; else the one with more points);
 *     each kept point of the incident feature is paired with the point of
 *     the reference face's plane on its line along the normal, and kept
 *     when its separation is at most 1e-9 of the pair's scale. With no
 *     face on either side, a segment tilted to the normal by more than
 *     1e-6 counts as its extreme end; then a sphere, a capsule seen end
 *     on, or two crossed segments give one point pair on a line along the
 *     normal: through the point feature (separation -depth), or where the
 *     two segments cross seen along the normal (the closest points of
 *     their projections on the plane normal to it; separation the
 *     difference of the segments' heights there, -depth up to rounding).
 *     Features: KCBP_SHAPE_FEATURE.
 *   - a shape and a mesh: the mesh triangles the shape touches (exact,
 *     kcbp_collide), grouped into patches by adjacency (triangles sharing
 *     a vertex, vertices identified by their coordinates). A patch's normal
 *     is the area-weighted sum of its triangles' unit normals, each turned
 *     toward the shape's centre (no orientation needed), pointing A toward
 *     B. Its points: the shape's face toward the mesh (as above), each
 *     point carried along the normal onto the patch's triangles (the
 *     nearest hit on that line; kept when its separation is at most 1e-9
 *     of the pair's scale); and the patch's mesh vertices inside the
 *     shape (the exact point test), each carried along the normal to the
 *     shape's surface (bisection on the same test in double, to 1e-12 of
 *     the shape's size). A patch none of whose points is found (a shape
 *     touching it by an edge) gets one point, separation 0: one that its
 *     triangles and the shape share (GJK's; within KCBP_SHAPE_GJK_BAND of
 *     both). feature of the mesh side: the triangle the point came from.
 *   - two meshes: the intersecting triangle pairs (exact, kcbp_collide
 *     with every contact) grouped into patches, the connected pieces of the
 *     intersection: two pairs are in one patch when their triangles in A
 *     are the same or share a vertex, so are their triangles in B, and
 *     their intersections (kcbp_tri_intersection, in A's frame) share a
 *     point to 1e-9 of the pair's scale (so that two feet of a chair on
 *     one big floor triangle are two patches, and a bar across both arms
 *     of an L whose top is a fan of triangles too). A patch's normal is a separating-axis
 *     test on its own triangles: of the axes tried (contact_geom.h's
 *     estimate over its pairs, and the unit normals of its triangles, both
 *     signs, at most 64 sampled evenly), the one along which B's patch
 *     triangles clear A's (as vertex sets) by the shortest move; so no
 *     orientation of the triangles is needed. Its candidate points:
 *       - the points of the pairs' intersections (kcbp_tri_intersection: on
 *         both surfaces); at each, the line along the normal is cut with
 *         the patch's triangles: point_a is its last hit on A's triangles
 *         ahead (t >= 0), point_b its first hit on B's behind (t <= 0),
 *         separation = t_b - t_a: how far the two surfaces overlap along
 *         the normal through that point;
 *       - the vertices of the patch's triangles whose nearest hit, on the
 *         line along the normal, with the other side's patch triangles
 *         lies ahead of them (B's under A's surface, A's over B's: a foot
 *         whose bottom is wholly inside A, only its sides crossing A's
 *         surface), paired with that hit.
 *     Both see the patch's own triangles only: a surface that reaches
 *     deeper than its intersecting triangles' vertices is not seen
 *     (local), and a vertex behind a thin wall may be taken as deep. At
 *     most KCBP_MANIFOLD_CANDIDATES_MAX intersection points and as many
 *     vertices of each side are tried (sampled evenly). feature_a,
 *     feature_b: the triangles the point came from.
 * Then the candidates of a patch are reduced to max_points (Box2D's and
 * Bullet's rule): the deepest (of those within 1e-9 of the pair's scale
 * of it, the farthest from the candidates' centre), the farthest from it,
 * the one that makes the largest triangle with those two, the one that
 * makes the largest quadrilateral (distances and areas of the points'
 * midpoints in the plane normal to the normal; of candidates within 1e-9
 * of the pair's scale of the best, the deepest).
 *
 * Growable structs (the 1.x rule, signed_distance.h): options are made by
 * kcbp_manifold_options_default(), which records sizeof in options.size;
 * the set is written within the size the caller compiled against
 * (kcbp_manifolds passes sizeof *out). kcbp_manifold and
 * kcbp_manifold_point are array elements: they never grow (anything new
 * per manifold goes in a new array of the set).
 *
 * The manifolds array is owned by the set and reused by the next call on
 * it (as kcbp_collide_result.contacts is): zero the set once ({0}), call
 * as often as needed, then kcbp_manifold_set_free. No global state; the
 * library neither prints nor exits. */
#ifndef KCBP_MANIFOLD_H
#define KCBP_MANIFOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "pose.h"
#include "vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KCBP_MANIFOLD_POINTS_MAX = 4,
    /* candidate points of each kind a patch's separations are computed
     * for (more are sampled evenly: a patch costs this many line casts
     * against its triangles) */
    KCBP_MANIFOLD_CANDIDATES_MAX = 256,
};

typedef struct {
    uint32_t size;       /* sizeof the caller's struct: set by kcbp_manifold_options_default */
    uint32_t max_points; /* points per manifold, 1 to KCBP_MANIFOLD_POINTS_MAX */
    bool use_cbp;        /* kcbp_collide's k-CBP stage (never changes the answer) */
} kcbp_manifold_options;

/* Fills *o with the defaults (max_points KCBP_MANIFOLD_POINTS_MAX, use_cbp
 * true) for a struct of `size` bytes (the caller's sizeof). */
KCBP_API void kcbp_manifold_options_init(kcbp_manifold_options *o, uint32_t size);

static inline kcbp_manifold_options kcbp_manifold_options_default(void)
{
    kcbp_manifold_options o;
    kcbp_manifold_options_init(&o, (uint32_t)sizeof o);
    return o;
}

/* One point of a manifold (world frame; see the top of this file). */
typedef struct {
    kcbp_vec3 point_a, point_b;
    double separation;             /* (point_b - point_a) . normal: <= 0 overlapping */
    uint32_t feature_a, feature_b; /* triangles, KCBP_SHAPE_FEATURE for a shape */
} kcbp_manifold_point;

/* One patch of contact. */
typedef struct {
    kcbp_vec3 normal; /* unit, A toward B */
    double depth;     /* >= 0: the largest -separation of its candidates (local) */
    uint32_t npoints; /* 1 to max_points */
    kcbp_manifold_point points[KCBP_MANIFOLD_POINTS_MAX];
    uint32_t ncontacts; /* the contacts grouped into it: triangle pairs, or the
                           mesh triangles a shape touches (1 for two shapes) */
    bool depth_exact;   /* two convex shapes: depth and normal are the exact convex depth's */
} kcbp_manifold;

typedef struct {
    bool collide;             /* kcbp_collide's answer (surfaces; a shape is a solid) */
    kcbp_manifold *manifolds; /* owned, reused by the next call on the set */
    size_t nmanifolds, capacity;
    size_t ncontacts;         /* every contact found (triangle pairs) */
} kcbp_manifold_set;

/* The manifolds of model a at pose_a and model b at pose_b into *out
 * (written within out_size bytes; use kcbp_manifolds, which passes sizeof
 * *out). options NULL: defaults. No overlap: collide false, no manifold.
 * Fails with KCBP_ERR_INVALID for NULL arguments, options not made by
 * kcbp_manifold_options_default or out of range, a model without
 * triangles; KCBP_ERR_NOMEM (the set keeps its array, emptied). */
KCBP_API kcbp_status kcbp_manifolds_sized(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                          const kcbp_pose *pose_b, const kcbp_manifold_options *options,
                                          kcbp_manifold_set *out, size_t out_size, kcbp_error *err);

static inline kcbp_status kcbp_manifolds(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                         const kcbp_pose *pose_b, const kcbp_manifold_options *options,
                                         kcbp_manifold_set *out, kcbp_error *err)
{
    return kcbp_manifolds_sized(a, pose_a, b, pose_b, options, out, sizeof *out, err);
}

/* Frees the set's array and empties it (a zeroed set is allowed). */
KCBP_API void kcbp_manifold_set_free(kcbp_manifold_set *set);

#ifdef __cplusplus
}
#endif
#endif
