/* Models (include/kcbp/model.h): building, freeing and reading them, and
 * what every pair query shares (model_internal.h): the pair's scale, the
 * box padding, the k-CBP stage's margin and the world-box stage. */
#include "model_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/mesh_io.h>
#include <kcbp/solid.h>
#include <kcbp/tritri.h>

#include "convex/scan_bounds.h"
#include "mesh/topology.h"

/* ---- building ----------------------------------------------------------- */

kcbp_model_options kcbp_model_options_default(void)
{
    kcbp_model_options o = {.k = KCBP_CBP_K_DEFAULT, .dirs = KCBP_DIRS_GREEDY, .k_fine = 0, .solid = false};
    return o;
}

static void clear(kcbp_model_impl *model);

/* Builds *model (zeroed first) from *mesh, which it takes over (the
 * caller's storage is zeroed). On failure *model holds nothing. */
static kcbp_status build(kcbp_model_impl *model, kcbp_mesh *mesh, const kcbp_model_options *opts, kcbp_error *err)
{
    kcbp_model_options o = opts ? *opts : kcbp_model_options_default();
    memset(model, 0, sizeof *model);
    atomic_init(&model->display, NULL);
    atomic_init(&model->convex_verdict, 0);
    atomic_init(&model->convex_geom, NULL);
    model->mesh = *mesh;
    memset(mesh, 0, sizeof *mesh);
    model->scale = kcbp_mesh_scale(&model->mesh);
    kcbp_status st = KCBP_OK;
    if (o.solid) { /* checked first: a mesh that is not closed is refused before any work */
        st = kcbp_mesh_check_solid(&model->mesh, NULL, err);
        if (st == KCBP_OK)
            st = kcbp_mesh_components(&model->mesh, &model->pieces, &model->npieces, err);
        model->solid = st == KCBP_OK;
    }
    if (st == KCBP_OK)
        st = kcbp_aabb_tree_build(&model->mesh, &model->tree, err);
    if (st == KCBP_OK && o.k != 0)
        st = kcbp_cbp_build_into(model->mesh.vertices, model->mesh.nvertices, o.k, o.dirs, &model->cbp, err);
    if (st != KCBP_OK) {
        clear(model);
        return st;
    }
    /* The fine k-CBP: a best effort (a failure leaves the model without
     * one, which only costs time). */
    if (o.k != 0 && o.k_fine > o.k) {
        kcbp_error ferr;
        if (kcbp_cbp_build_into(model->mesh.vertices, model->mesh.nvertices, o.k_fine, o.dirs, &model->fine, &ferr) !=
            KCBP_OK)
            memset(&model->fine, 0, sizeof model->fine);
        /* ...kept only where it is much tighter than the first: within
         * KCBP_CBP_FINE_MIN_CUT of its volume it ends almost no pair the
         * first did not, and costs a second GJK on every pair it is tried on
         * (bench/README.md, moving_pay.sh third pass: woody 3.5 %, block
         * 1.5 % more instructions with it; bunny2 6 % fewer). */
        if (model->fine.nplanes > 0 && !(model->fine.volume * (1 + KCBP_CBP_FINE_MIN_CUT) < model->cbp.volume))
            kcbp_cbp_clear(&model->fine);
    }
    for (uint32_t i = 0; i < model->cbp.nvertices; i++)
        model->cbp_scale = fmax(model->cbp_scale, kcbp_v3_max_abs(model->cbp.vertices[i]));
    for (uint32_t i = 0; i < model->fine.nvertices; i++)
        model->cbp_scale = fmax(model->cbp_scale, kcbp_v3_max_abs(model->fine.vertices[i]));
    if (model->fine.nplanes > 0)
        model->fine_shape = kcbp_convex_polytope(model->fine.vertices, model->fine.nvertices, NULL, NULL, 0.0);
    if (kcbp_impl_has_cbp(model)) {
        /* Scanned, not climbed: a k-CBP has few vertices (2k - 4 at most
         * for simple vertices), below where climbing pays. */
        model->shape = kcbp_convex_polytope(model->cbp.vertices, model->cbp.nvertices, NULL, NULL, 0.0);
        /* (a best effort: without it the world boxes scan cbp.vertices) */
        model->cbp_soa = kcbp_soa_of(model->cbp.vertices, model->cbp.nvertices);
    }
    return KCBP_OK;
}

static void clear(kcbp_model_impl *model)
{
    kcbp_mesh *display = atomic_load(&model->display);
    if (display)
        kcbp_mesh_free(display);
    kcbp_shape_geom *hull = atomic_load(&model->convex_geom);
    if (hull) {
        kcbp_shape_geom_clear(hull);
        free(hull);
    }
    kcbp_shape_geom_clear(&model->geom);
    kcbp_cbp_clear(&model->cbp);
    kcbp_cbp_clear(&model->fine);
    free(model->cbp_soa);
    kcbp_aabb_tree_free(&model->tree);
    kcbp_mesh_clear(&model->mesh);
    free(model->pieces);
    memset(model, 0, sizeof *model);
}

kcbp_status kcbp_model_build_from(kcbp_model *model, kcbp_mesh *mesh, const kcbp_model_options *opts,
                                  kcbp_error *err)
{
    model->impl = NULL;
    kcbp_model_impl *m = malloc(sizeof *m);
    if (!m) {
        kcbp_mesh_clear(mesh);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a model");
    }
    kcbp_status st = build(m, mesh, opts, err);
    if (st != KCBP_OK) {
        free(m);
        return st;
    }
    model->impl = m;
    return KCBP_OK;
}

kcbp_status kcbp_model_build(kcbp_model *model, kcbp_mesh *mesh, const kcbp_model_options *opts, kcbp_error *err)
{
    kcbp_status st = kcbp_model_build_from(model, mesh, opts, err);
    free(mesh); /* the handle's storage: its contents are the model's now, or freed */
    return st;
}

/* A model from a mesh file: beside the loaders' dispatcher rather than in a
 * query, so that no pair test depends on a file format. */
kcbp_status kcbp_model_load(kcbp_model *model, const char *path, const kcbp_model_options *opts, kcbp_error *err)
{
    kcbp_mesh *mesh;
    model->impl = NULL;
    kcbp_status st = kcbp_mesh_load(path, &mesh, err);
    if (st != KCBP_OK)
        return st;
    return kcbp_model_build(model, mesh, opts, err);
}

/* ---- shapes ------------------------------------------------------------- */

/* A shape's model: its geometry; the mesh empty but for its bounds (the
 * shape's box, which kcbp_mesh_bounds reports), no tree, no k-CBP; a solid. */
static kcbp_status build_shape(kcbp_model *model, const kcbp_shape *shape, const kcbp_vec3 *points, size_t npoints,
                               kcbp_error *err)
{
    model->impl = NULL;
    kcbp_model_impl *m = calloc(1, sizeof *m);
    if (!m)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a model");
    kcbp_status st = shape ? kcbp_shape_geom_init(&m->geom, shape, err)
                           : kcbp_shape_geom_init_hull(&m->geom, points, npoints, err);
    if (st != KCBP_OK) {
        free(m);
        return st;
    }
    atomic_init(&m->display, NULL);
    atomic_init(&m->convex_verdict, 0);
    atomic_init(&m->convex_geom, NULL);
    m->kind = m->geom.def.kind;
    m->mesh.bounds = m->geom.local;
    m->scale = m->geom.scale;
    m->solid = true;
    model->impl = m;
    return KCBP_OK;
}

kcbp_status kcbp_model_build_shape(kcbp_model *model, const kcbp_shape *shape, kcbp_error *err)
{
    if (!shape) {
        model->impl = NULL;
        return kcbp_error_set(err, KCBP_ERR_INVALID, "shape is NULL");
    }
    return build_shape(model, shape, NULL, 0, err);
}

kcbp_status kcbp_model_build_hull(kcbp_model *model, const kcbp_vec3 *points, size_t npoints, kcbp_error *err)
{
    return build_shape(model, NULL, points, npoints, err);
}

kcbp_shape_kind kcbp_model_shape_kind(const kcbp_model *model) { return model->impl->kind; }

bool kcbp_model_shape(const kcbp_model *model, kcbp_shape *shape)
{
    if (!kcbp_impl_is_shape(model->impl))
        return false;
    if (shape)
        *shape = model->impl->geom.def;
    return true;
}

const kcbp_vec3 *kcbp_model_hull_vertices(const kcbp_model *model, uint32_t *n)
{
    const kcbp_model_impl *m = model->impl;
    if (m->kind != KCBP_SHAPE_HULL) {
        *n = 0;
        return NULL;
    }
    *n = kcbp_convex_hull_vertex_count(m->geom.hull);
    return kcbp_convex_hull_vertices(m->geom.hull);
}

const kcbp_mesh *kcbp_model_display_mesh(const kcbp_model *model)
{
    kcbp_model_impl *m = model->impl;
    if (!kcbp_impl_is_shape(m))
        return &m->mesh;
    kcbp_mesh *d = atomic_load(&m->display);
    if (d)
        return d;
    /* Made once: threads that race both make one, and all but the first
     * to publish free theirs. */
    kcbp_mesh *made = NULL;
    if (kcbp_shape_geom_display(&m->geom, &made, NULL) != KCBP_OK)
        return NULL;
    kcbp_mesh *expected = NULL;
    if (!atomic_compare_exchange_strong(&m->display, &expected, made)) {
        kcbp_mesh_free(made);
        return expected;
    }
    return made;
}

void kcbp_model_free(kcbp_model *model)
{
    if (!model || !model->impl)
        return;
    clear(model->impl);
    free(model->impl);
    model->impl = NULL;
}

/* ---- reading ------------------------------------------------------------ */

uint64_t kcbp_impl_bytes(const kcbp_model_impl *m)
{
    uint64_t b = sizeof *m;
    if (kcbp_impl_is_shape(m))
        return b + (m->geom.hull ? (uint64_t)kcbp_convex_hull_vertex_count(m->geom.hull) * 64 : 0);
    b += (uint64_t)m->mesh.nvertices * sizeof(kcbp_vec3) + (uint64_t)m->mesh.ntriangles * sizeof(kcbp_tri);
    b += (uint64_t)m->tree.nnodes *
             (sizeof(kcbp_aabb_node) + sizeof(uint32_t) + sizeof(kcbp_tri_slab) + sizeof(kcbp_obb) + sizeof(uint8_t)) +
         (uint64_t)m->mesh.ntriangles *
             (sizeof(uint32_t) + 3 * sizeof(kcbp_vec3) + sizeof(kcbp_tri_slab) + sizeof(kcbp_tri_face) +
              sizeof(kcbp_tri_spine));
    b += (uint64_t)(m->cbp.nplanes + m->fine.nplanes) * (sizeof(kcbp_cbp_plane) + 8 * sizeof(uint32_t)) +
         (uint64_t)(m->cbp.nvertices + m->fine.nvertices) * (sizeof(kcbp_vec3) + 8 * sizeof(uint32_t)) +
         (uint64_t)m->cbp.nvertices * sizeof(kcbp_vec3);
    return b;
}

const kcbp_mesh *kcbp_model_mesh(const kcbp_model *model) { return &model->impl->mesh; }
const kcbp_cbp *kcbp_model_cbp(const kcbp_model *model)
{
    return kcbp_impl_has_cbp(model->impl) ? &model->impl->cbp : NULL;
}
bool kcbp_model_has_cbp(const kcbp_model *model) { return kcbp_impl_has_cbp(model->impl); }
double kcbp_model_scale(const kcbp_model *model) { return model->impl->scale; }
bool kcbp_model_is_solid(const kcbp_model *model) { return model->impl->solid; }

kcbp_aabb kcbp_model_world_bounds(const kcbp_model *model, const kcbp_pose *pose)
{
    return kcbp_impl_world_bounds(model->impl, pose);
}

const char *kcbp_stage_name(kcbp_stage stage)
{
    switch (stage) {
    case KCBP_STAGE_AABB: return "aabb";
    case KCBP_STAGE_CBP: return "cbp";
    case KCBP_STAGE_MESH: return "mesh";
    case KCBP_STAGE_SHAPE: return "shape";
    }
    return "unknown";
}

/* ---- what every pair query shares --------------------------------------- */

kcbp_aabb kcbp_impl_world_bounds(const kcbp_model_impl *m, const kcbp_pose *pose)
{
    if (kcbp_impl_is_shape(m))
        return kcbp_shape_geom_world_bounds(&m->geom, pose);
    if (kcbp_impl_has_cbp(m)) {
        /* The box of the rotated vertices, then moved: the same numbers as
         * the box of every kcbp_pose_apply (scan_bounds.h), with 5 % fewer
         * instructions (woody's 28-vertex k-CBP: ~1,030 a box). */
        kcbp_aabb b;
        if (m->cbp_soa) /* the same numbers, ~40 % fewer instructions */
            kcbp_rotated_bounds_soa(m->cbp_soa, m->cbp.nvertices, &pose->rot, &b.min, &b.max);
        else
            kcbp_rotated_bounds(m->cbp.vertices, m->cbp.nvertices, &pose->rot, &b.min, &b.max);
        b.min = kcbp_v3_add(b.min, pose->trans);
        b.max = kcbp_v3_add(b.max, pose->trans);
        return b;
    }
    return kcbp_impl_mesh_box(m, pose);
}

kcbp_aabb kcbp_impl_mesh_box(const kcbp_model_impl *m, const kcbp_pose *pose)
{
    /* The box of the posed local box (Arvo's method: the half-sizes grow by
     * |R| times the local ones). */
    kcbp_vec3 c = kcbp_pose_apply(pose, kcbp_aabb_center(m->mesh.bounds));
    kcbp_vec3 e = kcbp_aabb_extent(m->mesh.bounds);
    kcbp_vec3 w;
    w.x = fabs(pose->rot.m[0][0]) * e.x + fabs(pose->rot.m[0][1]) * e.y + fabs(pose->rot.m[0][2]) * e.z;
    w.y = fabs(pose->rot.m[1][0]) * e.x + fabs(pose->rot.m[1][1]) * e.y + fabs(pose->rot.m[1][2]) * e.z;
    w.z = fabs(pose->rot.m[2][0]) * e.x + fabs(pose->rot.m[2][1]) * e.y + fabs(pose->rot.m[2][2]) * e.z;
    kcbp_aabb b = {kcbp_v3_sub(c, w), kcbp_v3_add(c, w)};
    return b;
}

double kcbp_pair_scale(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a)
{
    return fmax(a->scale, b->scale + kcbp_v3_len(b_in_a->trans));
}

double kcbp_pair_tolerance(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a)
{
    return kcbp_tri_tolerance(kcbp_pair_scale(a, b, b_in_a));
}

/* The rejection margin of the k-CBP stage. The triangle test is exact for
 * B's vertices as carried into A's frame (kcbp_pose_apply, rounded once);
 * the stage's gap (kcbp_cbp_gap, over every k-CBP vertex) is a lower bound
 * on the distance of the k-CBPs, computed in double from the pose and the
 * k-CBPs, which hold the meshes. Between the two the rounding is a few ulps
 * of the coordinates (~1e-15 of the scale below), so a gap above this
 * margin (1e-8 of it) proves the coordinates the triangle test would see
 * apart: the stage never drops a pair the exact test calls touching. GJK's accuracy is relative to the
 * coordinates it works with, those of the k-CBPs, which a loose k-CBP of a
 * needle-like mesh can put far beyond the meshes' own scale (found by
 * fuzzing: 2e12 for a mesh of scale 1.5e10, and a k-CBP "apart" from itself
 * by 1e4), so the scale is the larger of both. */
double kcbp_pair_cbp_scale(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a)
{
    return fmax(kcbp_pair_scale(a, b, b_in_a), fmax(a->cbp_scale, b->cbp_scale + kcbp_v3_len(b_in_a->trans)));
}

double kcbp_pair_cbp_margin(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a)
{
    return KCBP_CBP_MARGIN_REL * kcbp_pair_cbp_scale(a, b, b_in_a);
}

/* The world boxes are computed from the world poses, the triangle test's
 * coordinates from the relative pose: both round by a few ulps of the
 * world coordinates, which include the poses' translations. So the boxes
 * are padded by the tolerance of the world magnitudes too (not only of the
 * pair's scale in A's frame): with both models moved far from the origin
 * together, a pair touching in A's frame must not look apart in the world. */
bool kcbp_pair_boxes_overlap(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b, const kcbp_pose *pose_b,
                           double eps)
{
    kcbp_aabb wa = kcbp_impl_world_bounds(a, pose_a), wb = kcbp_impl_world_bounds(b, pose_b);
    double world = fmax(fmax(a->scale, a->cbp_scale) + kcbp_v3_len(pose_a->trans),
                        fmax(b->scale, b->cbp_scale) + kcbp_v3_len(pose_b->trans));
    eps = fmax(eps, kcbp_tri_tolerance(world));
    kcbp_vec3 pad = kcbp_v3(eps, eps, eps);
    wa.min = kcbp_v3_sub(wa.min, pad);
    wa.max = kcbp_v3_add(wa.max, pad);
    return kcbp_aabb_overlap(wa, wb);
}

double kcbp_pair_boxes_dist2(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                             const kcbp_pose *pose_b)
{
    kcbp_aabb p = kcbp_impl_world_bounds(a, pose_a), q = kcbp_impl_world_bounds(b, pose_b);
    double s = 0;
    double lo[3] = {q.min.x - p.max.x, q.min.y - p.max.y, q.min.z - p.max.z};
    double hi[3] = {p.min.x - q.max.x, p.min.y - q.max.y, p.min.z - q.max.z};
    for (int i = 0; i < 3; i++) {
        double g = fmax(lo[i], hi[i]);
        s += g > 0 ? g * g : 0;
    }
    return s;
}

bool kcbp_result_add_contact(kcbp_collide_result *r, kcbp_contact c)
{
    if (r->ncontacts == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 16;
        kcbp_contact *grown = realloc(r->contacts, cap * sizeof *grown);
        if (!grown)
            return false;
        r->contacts = grown;
        r->capacity = cap;
    }
    r->contacts[r->ncontacts++] = c;
    return true;
}
