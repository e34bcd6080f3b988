/* kcbp_signed_distance (include/kcbp/signed_distance.h): decide overlap as
 * kcbp_collide does (solids when both models are), then the distance when
 * apart (kcbp_distance), the convex depth for two convex solids (shapes,
 * hulls, and mesh solids shown exactly convex by convex_solid.c: their
 * hulls; convex/depth.c), or the certified bracket otherwise (depth_bracket.c). */
#include <kcbp/signed_distance.h>

#include <math.h>
#include <string.h>
#include <time.h>

#include <kcbp/collide.h>
#include <kcbp/distance.h>
#include <kcbp/solid.h>

#include "base/util.h"
#include "convex_solid.h"
#include "convex/depth.h"
#include "depth_internal.h"
#include "model_internal.h"

/* The first release's options: everything up to and including use_cbp. A
 * caller's struct is at least this large. */
#define OPTIONS_V1_SIZE (offsetof(kcbp_signed_distance_options, use_cbp) + sizeof(bool))

void kcbp_signed_distance_options_init(kcbp_signed_distance_options *o, uint32_t size)
{
    kcbp_signed_distance_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.max_distance = INFINITY;
    d.depth_tolerance = KCBP_SDIST_DEPTH_TOLERANCE_DEFAULT;
    d.max_steps = 64;
    d.use_cbp = true;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

const char *kcbp_sdist_status_name(kcbp_sdist_status s)
{
    switch (s) {
    case KCBP_SDIST_APART: return "apart";
    case KCBP_SDIST_TOUCHING: return "touching";
    case KCBP_SDIST_PENETRATING: return "penetrating";
    case KCBP_SDIST_BRACKETED: return "bracketed";
    case KCBP_SDIST_BEYOND: return "beyond";
    }
    return "unknown";
}

/* The caller's options completed with the defaults for the fields its
 * size does not hold, and checked. */
static kcbp_status read_options(const kcbp_signed_distance_options *in, kcbp_signed_distance_options *o,
                                kcbp_error *err)
{
    kcbp_signed_distance_options_init(o, (uint32_t)sizeof *o);
    if (!in)
        return KCBP_OK;
    kcbp_status st = kcbp_options_copy_in(o, sizeof *o, in, OPTIONS_V1_SIZE, "signed distance",
                                          "kcbp_signed_distance_options_default", err);
    if (st != KCBP_OK)
        return st;
    if (isnan(o->max_distance))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: max_distance is NaN");
    if (!(o->depth_tolerance > 0) || !isfinite(o->depth_tolerance))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: depth_tolerance must be > 0, not %g",
                              o->depth_tolerance);
    if (o->max_steps < 1)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: max_steps must be >= 1, not %d",
                              o->max_steps);
    return KCBP_OK;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A model that cannot give a depth: a mesh not built as a solid. The
 * message names its open edges when it is not closed. */
static kcbp_status need_solid(const kcbp_model_impl *m, const char *which, kcbp_error *err)
{
    if (m->solid)
        return KCBP_OK;
    kcbp_error e;
    memset(&e, 0, sizeof e);
    if (kcbp_mesh_check_solid(&m->mesh, NULL, &e) != KCBP_OK)
        return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "depth needs solids: model %s is %s", which, e.msg);
    return kcbp_error_set(err, KCBP_ERR_INVALID,
                          "depth needs solids: model %s is closed but was not built as a solid "
                          "(kcbp_model_options.solid)",
                          which);
}

static kcbp_status apart(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                         const kcbp_signed_distance_options *o, kcbp_signed_distance_result *r, kcbp_error *err)
{
    kcbp_distance_options d = kcbp_distance_options_default();
    d.max_distance = o->max_distance;
    d.use_cbp = o->use_cbp;
    kcbp_distance_result dr;
    kcbp_status st = kcbp_distance(a, pose_a, b, pose_b, &d, &dr, err);
    if (st != KCBP_OK)
        return st;
    r->decided_by = dr.decided_by;
    r->distance_lower = dr.distance_lower;
    if (!dr.within) {
        r->status = KCBP_SDIST_BEYOND;
        r->signed_distance = INFINITY;
        return KCBP_OK;
    }
    r->status = dr.distance > 0 ? KCBP_SDIST_APART : KCBP_SDIST_TOUCHING;
    r->signed_distance = dr.distance;
    r->point_a = dr.point_a;
    r->point_b = dr.point_b;
    r->feature_a = dr.tri_a;
    r->feature_b = dr.tri_b;
    kcbp_vec3 n = kcbp_v3_sub(dr.point_b, dr.point_a);
    double len = kcbp_v3_len(n);
    if (len > 0 && isfinite(len))
        r->normal = kcbp_v3_scale(n, 1 / len);
    return KCBP_OK;
}

/* The convex solid a model is, as a shape: a shape's own geometry, or the
 * hull of a mesh solid that is exactly convex (convex_solid.h); NULL when
 * neither. */
static const kcbp_shape_geom *convex_of(const kcbp_model_impl *m)
{
    return kcbp_impl_is_shape(m) ? &m->geom : kcbp_impl_convex_solid(m);
}

/* Two convex solids that share a point: the exact depth. */
static void convex_depth(const kcbp_shape_geom *a, const kcbp_pose *pose_a, const kcbp_shape_geom *b,
                         const kcbp_pose *pose_b, kcbp_signed_distance_result *r)
{
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    kcbp_convex_depth c;
    kcbp_shape_pair_depth(a, b, &b_in_a, &c);
    r->decided_by = KCBP_STAGE_SHAPE;
    r->feature_a = r->feature_b = KCBP_SHAPE_FEATURE;
    r->depth = c.depth;
    r->depth_lower = c.exact ? c.depth : c.depth_lower;
    r->depth_upper = c.depth;
    r->normal = kcbp_mat3_mul_v3(&pose_a->rot, c.normal);
    r->translation = kcbp_v3_scale(r->normal, c.depth);
    r->point_a = kcbp_pose_apply(pose_a, c.point_a);
    r->point_b = kcbp_pose_apply(pose_a, c.point_b);
    r->steps = c.iterations;
    if (c.depth > 0) {
        r->status = c.exact ? KCBP_SDIST_PENETRATING : KCBP_SDIST_BRACKETED;
        r->signed_distance = -c.depth;
    } else {
        r->status = KCBP_SDIST_TOUCHING;
        r->signed_distance = 0;
    }
}

kcbp_status kcbp_signed_distance_sized(const kcbp_model *ma, const kcbp_pose *pose_a, const kcbp_model *mb,
                                       const kcbp_pose *pose_b, const kcbp_signed_distance_options *options,
                                       kcbp_signed_distance_result *result, size_t result_size, kcbp_error *err)
{
    double t0 = now_ms();
    kcbp_signed_distance_result r;
    memset(&r, 0, sizeof r);
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    if (result && out_size)
        memset(result, 0, out_size);
    if (!ma || !mb || !ma->impl || !mb->impl || !pose_a || !pose_b || !result)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: a model, pose or result is NULL");
    if (result_size < offsetof(kcbp_signed_distance_result, ms) + sizeof(double))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: a result of %zu bytes is too small",
                              result_size);
    kcbp_signed_distance_options o;
    kcbp_status st = read_options(options, &o, err);
    if (st != KCBP_OK)
        return st;
    const kcbp_model_impl *a = ma->impl, *b = mb->impl;
    if (kcbp_impl_is_empty(a) || kcbp_impl_is_empty(b))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: a model without triangles");

    /* Do the solids share a point? As solids when both are. */
    bool solids = a->solid && b->solid;
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = KCBP_CONTACTS_FIRST;
    co.use_cbp = o.use_cbp;
    co.solid = solids;
    kcbp_collide_result cr;
    memset(&cr, 0, sizeof cr);
    st = kcbp_collide(ma, pose_a, mb, pose_b, &co, &cr, err);
    bool hit = cr.collide;
    const kcbp_shape_geom *ga, *gb;
    kcbp_collide_result_free(&cr);
    if (st != KCBP_OK)
        return st;

    if (!hit) {
        st = apart(ma, pose_a, mb, pose_b, &o, &r, err);
    } else if ((st = need_solid(a, "A", err)) != KCBP_OK || (st = need_solid(b, "B", err)) != KCBP_OK) {
        /* st and err are set */
    } else if ((ga = convex_of(a)) && (gb = convex_of(b))) {
        convex_depth(ga, pose_a, gb, pose_b, &r);
        if (!kcbp_impl_is_shape(a) || !kcbp_impl_is_shape(b))
            kcbp_convex_solid_verify_out(ma, pose_a, mb, pose_b, o.use_cbp, &r);
    } else {
        st = kcbp_depth_bracket(ma, pose_a, mb, pose_b, &o, &r, err);
    }
    if (st != KCBP_OK)
        return st;
    r.ms = now_ms() - t0;
    memcpy(result, &r, out_size);
    return KCBP_OK;
}
