/* The model as the library sees it (internal), and what every pair query
 * shares: the pair's scale, the padding of the box tests, the k-CBP
 * stage's margin, and the world-box stage. collide.c, distance.c,
 * sweep.c, solid.c, self.c and contact_geom.c stand on this; none of them
 * calls another for these. */
#ifndef KCBP_MODEL_INTERNAL_H
#define KCBP_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/collide.h>
#include <kcbp/model.h>
#include <kcbp/support.h>

#include "bvh/aabb_tree.h"
#include "convex/cbp_internal.h"
#include "convex/shape_internal.h"
#include "mesh/mesh_internal.h"

/* A model is a mesh (kind KCBP_SHAPE_NONE: its mesh, tree and k-CBPs) or
 * a shape (include/kcbp/shape.h: its geometry in geom; mesh empty but for
 * its bounds, no tree, no k-CBP, solid). Every query dispatches on kind
 * before it reads a mesh's fields (query/shape_query.h). */
struct kcbp_model_impl {
    kcbp_shape_kind kind; /* KCBP_SHAPE_NONE: a mesh */
    kcbp_shape_geom geom; /* a shape's geometry (kind != NONE) */
    _Atomic(kcbp_mesh *) display; /* a shape's display tessellation, made on first request */
    kcbp_mesh mesh;
    kcbp_aabb_tree tree;
    kcbp_cbp cbp;         /* nplanes == 0 when none was built */
    kcbp_convex shape;    /* the k-CBP as GJK sees it: its vertices and their adjacency */
    double *cbp_soa;      /* the k-CBP's vertices by coordinate (kcbp_soa_of), for the world boxes; NULL: none */
    double scale;         /* kcbp_mesh_scale of the mesh */
    double cbp_scale;     /* largest absolute coordinate of the k-CBPs' vertices (0 without one) */
    kcbp_cbp fine;        /* the fine k-CBP (nplanes == 0 when none was built) */
    kcbp_convex fine_shape;
    bool solid;           /* built with kcbp_model_options.solid: a closed solid */
    uint32_t *pieces;     /* solid: one vertex of each connected piece of the surface */
    uint32_t npieces;
    /* Lazy, made on first request (convex_solid.h): a mesh solid's verdict
     * (0 untested, 1 exactly convex, -1 not shown convex) and its hull as
     * a shape when convex. */
    _Atomic int convex_verdict;
    _Atomic(kcbp_shape_geom *) convex_geom;
};

static inline bool kcbp_impl_has_cbp(const kcbp_model_impl *m) { return m->cbp.nplanes > 0; }
static inline bool kcbp_impl_is_shape(const kcbp_model_impl *m) { return m->kind != KCBP_SHAPE_NONE; }
/* A model a query cannot take: a mesh without triangles (a shape has none,
 * and is a solid). */
static inline bool kcbp_impl_is_empty(const kcbp_model_impl *m)
{
    return m->kind == KCBP_SHAPE_NONE && m->mesh.ntriangles == 0;
}

/* kcbp_model_build from a mesh in the caller's storage, which it takes
 * over (zeroed; cleared on failure). */
kcbp_status kcbp_model_build_from(kcbp_model *model, kcbp_mesh *mesh, const kcbp_model_options *opts,
                                  kcbp_error *err);

/* About how many bytes the model holds (a model cache's measure). */
uint64_t kcbp_impl_bytes(const kcbp_model_impl *m);

/* kcbp_model_world_bounds of the model's internals. */
kcbp_aabb kcbp_impl_world_bounds(const kcbp_model_impl *m, const kcbp_pose *pose);
/* The box of a mesh model's own bounds, posed (Arvo's method; exact up to
 * rounding for a translation): the world bounds of a mesh without a k-CBP. */
kcbp_aabb kcbp_impl_mesh_box(const kcbp_model_impl *m, const kcbp_pose *pose);

/* ---- a pair of models, B placed in A's frame by b_in_a ------------------ */

/* The size of the pair's numbers in A's frame: B's coordinates are as large
 * as its own scale plus the distance it was moved, and rounding grows with
 * that magnitude. */
double kcbp_pair_scale(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a);

/* The padding the box tests get (kcbp_tri_tolerance of the pair's scale),
 * far above the rounding of moving a box or a slab: no pair the exact
 * triangle test accepts is culled by it. The triangle test itself has no
 * tolerance. */
double kcbp_pair_tolerance(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a);

/* The size of the k-CBP stage's numbers: the pair's scale, or the k-CBPs'
 * coordinates in A's frame when larger; and the margin of the k-CBP stage,
 * KCBP_CBP_MARGIN_REL of it: a gap between the k-CBPs above it proves the
 * meshes apart (see model.c). */
#define KCBP_CBP_MARGIN_REL 1e-8

/* A fine k-CBP (kcbp_model_options.k_fine) is kept only when its volume is
 * below the first k-CBP's by more than this share of it (query/model.c). */
#define KCBP_CBP_FINE_MIN_CUT 0.01
double kcbp_pair_cbp_scale(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a);
double kcbp_pair_cbp_margin(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a);

/* Stage 1 of a collision test: the world boxes of the two posed models,
 * padded by eps and by the tolerance of the world coordinates, overlap. */
bool kcbp_pair_boxes_overlap(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                             const kcbp_pose *pose_b, double eps);

/* Stage 1 of a distance query: the squared distance between the world
 * boxes of the two posed models (a lower bound on the meshes' once the
 * k-CBP margin is taken off its root). */
double kcbp_pair_boxes_dist2(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                             const kcbp_pose *pose_b);

/* Appends c to r's contacts, growing the array (doubling, from 16); false
 * when memory ran out (r unchanged). Every query that lists contacts. */
bool kcbp_result_add_contact(kcbp_collide_result *r, kcbp_contact c);

#endif
