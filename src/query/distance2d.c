/* Distance and depth of posed convex 2D shapes (include/kcbp/distance2d.h). */
#include <kcbp/distance2d.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "base/util.h"
#include "query/query2d_internal.h"

#define OPTIONS_V1_SIZE (offsetof(kcbp2d_distance_options, max_iterations) + sizeof(int))
#define RESULT_V1_SIZE (offsetof(kcbp2d_distance_result, iterations) + sizeof(int))

void kcbp2d_distance_options_init(kcbp2d_distance_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_distance_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.max_iterations = KCBP2D_GJK_MAX_ITERATIONS_DEFAULT;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

const char *kcbp2d_distance_status_name(kcbp2d_distance_status s)
{
    switch (s) {
    case KCBP2D_APART: return "apart";
    case KCBP2D_TOUCHING: return "touching";
    case KCBP2D_OVERLAPPING: return "overlapping";
    }
    return "unknown";
}

/* A unit direction from a toward b when the cores' closest points
 * coincide in double (apart by less than rounding): the separating edge's
 * normal, or along the common line of collinear cores. */
static kcbp_vec2 fallback_normal(const kcbp2d_core *a, const kcbp2d_core *b, const kcbp2d_decision *d)
{
    kcbp_vec2 n = {0, 1};
    if (d->sep_shape >= 0) {
        const kcbp2d_core *c = d->sep_shape == 0 ? a : b;
        kcbp_vec2 e = kcbp_v2_sub(c->v[(d->sep_edge + 1) % c->n], c->v[d->sep_edge]);
        double l = kcbp_v2_len(e);
        if (l > 0)
            n = kcbp_v2_make(e.y / l, -e.x / l); /* outward of c's edge */
        if (d->sep_shape == 1)
            n = kcbp_v2_neg(n);
        return n;
    }
    kcbp_vec2 e = kcbp_v2_sub(b->v[0], a->v[0]);
    double l = kcbp_v2_len(e);
    return l > 0 ? kcbp_v2_scale(e, 1.0 / l) : n;
}

/* The result copied out: a struct assignment for the current size (no
 * libc call), memcpy for an older caller's shorter struct. */
static inline void put_result(kcbp2d_distance_result *out, const kcbp2d_distance_result *r, size_t size)
{
    if (size == sizeof *r)
        *out = *r;
    else
        memcpy(out, r, size);
}

/* An error: the result zeroed (r, still as initialised), the status
 * passed on. */
static kcbp_status fail(kcbp2d_distance_result *out, const kcbp2d_distance_result *r, size_t size, kcbp_status st)
{
    memcpy(out, r, size);
    return st;
}

kcbp_status kcbp2d_distance_sized(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                  const kcbp2d_pose *pose_b, const kcbp2d_distance_options *options,
                                  kcbp2d_distance_result *result, size_t result_size, kcbp_error *err)
{
    kcbp2d_distance_result r;
    memset(&r, 0, sizeof r);
    r.normal = kcbp_v2_make(0, 1);
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    /* on failure the result is left zeroed (normal (0, 1)): written here
     * for a result too small, by fail() on the other errors */
    if (!result || result_size < RESULT_V1_SIZE) {
        if (result && out_size)
            memcpy(result, &r, out_size);
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D distance: result of size %zu, too small", result_size);
    }
    /* kcbp2d_distance_options_init's defaults, inline (a call and a
     * memcpy of variable size were 2% of a query) */
    kcbp2d_distance_options o;
    memset(&o, 0, sizeof o);
    o.size = (uint32_t)sizeof o;
    o.max_iterations = KCBP2D_GJK_MAX_ITERATIONS_DEFAULT;
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, OPTIONS_V1_SIZE, "2D distance",
                                              "kcbp2d_distance_options_default", err);
        if (st != KCBP_OK)
            return fail(result, &r, out_size, st);
    }
    if (o.max_iterations < 1)
        return fail(result, &r, out_size,
                    kcbp_error_set(err, KCBP_ERR_INVALID, "2D distance: max_iterations %d < 1", o.max_iterations));
    kcbp2d_core ca, cb;
    kcbp_status st = kcbp2d_cores_posed(a, pose_a, b, pose_b, &ca, &cb, err);
    if (st != KCBP_OK)
        return fail(result, &r, out_size, st);
    /* two polygons without radius: the filtered SAT (collide2d.c) first;
     * its verdict stands when neither polygon is replaced by its hull */
    int sep_shape = -1;
    uint32_t sep_edge = 0;
    kcbp2d_sat_min dm;
    kcbp2d_sat_verdict v = ca.r == 0 && cb.r == 0 ? kcbp2d_sat_filtered(&ca, &cb, &sep_shape, &sep_edge, &dm)
                                                  : KCBP2D_SAT_UNDECIDED;
    kcbp2d_decision d;
    if (v == KCBP2D_SAT_SEPARATED) {
        /* apart, proven for the hulls of the posed vertices: GJK needs
         * only their supports, so no convexity step unless it falls back
         * (rounding made it report an overlap) */
        memset(&d, 0, sizeof d);
        d.decided_by = KCBP2D_DECIDED_SAT;
        d.sep_shape = sep_shape, d.sep_edge = sep_edge;
        kcbp2d_gjk_edge(&ca, &cb, sep_shape, sep_edge, dm.vertex, o.max_iterations, &d.gjk);
        d.have_gjk = true;
        if (d.gjk.overlap)
            v = KCBP2D_SAT_UNDECIDED;
    }
    if (v != KCBP2D_SAT_SEPARATED) {
        if ((st = kcbp2d_cores_finish(&ca, &cb, err)) != KCBP_OK)
            return fail(result, &r, out_size, st);
        if (ca.hulled || cb.hulled)
            v = KCBP2D_SAT_UNDECIDED;
        if (v == KCBP2D_SAT_UNDECIDED)
            kcbp2d_decide(&ca, &cb, 0.0, o.max_iterations, true, &d);
        else
            kcbp2d_decide_after_sat(&ca, &cb, true, -1, 0, o.max_iterations, &d);
    }
    double ra = ca.r, rb = cb.r;
    r.scale = (ca.scale > cb.scale ? ca.scale : cb.scale) + ra + rb; /* not fmax: a call */
    if (d.cores_intersect) {
        kcbp_vec2 n, wa, wb;
        double core_depth;
        if (v == KCBP2D_SAT_NO_SEPARATOR && dm.shape >= 0) {
            /* the filtered SAT's depth (every edge was seen): as
             * kcbp2d_sat_depth reports it */
            const kcbp2d_core *e = dm.shape == 0 ? &ca : &cb, *oc = dm.shape == 0 ? &cb : &ca;
            kcbp_vec2 ed = kcbp_v2_sub(e->v[dm.edge + 1 < e->n ? dm.edge + 1 : 0], e->v[dm.edge]);
            double len = kcbp2d_len(ed);
            n = kcbp_v2_make(ed.y / len, -ed.x / len);
            core_depth = dm.depth > 0 ? dm.depth : 0.0;
            kcbp_vec2 deep = oc->v[dm.vertex], on_line = kcbp_v2_add(deep, kcbp_v2_scale(n, core_depth));
            if (dm.shape == 0)
                wa = on_line, wb = deep;
            else
                n = kcbp_v2_neg(n), wa = deep, wb = on_line;
        } else {
            core_depth = kcbp2d_sat_depth(&ca, &cb, &n, &wa, &wb);
        }
        r.depth = core_depth + ra + rb;
        r.normal = n;
        r.point_a = kcbp_v2_add(wa, kcbp_v2_scale(n, ra));
        r.point_b = kcbp_v2_sub(wb, kcbp_v2_scale(n, rb));
    } else {
        double dc = d.gjk.distance;
        kcbp_vec2 n;
        if (dc > 0)
            n = kcbp_v2_scale(kcbp_v2_sub(d.gjk.pb, d.gjk.pa), 1.0 / dc);
        else
            n = fallback_normal(&ca, &cb, &d);
        r.normal = n;
        r.iterations = d.gjk.iterations;
        r.point_a = kcbp_v2_add(d.gjk.pa, kcbp_v2_scale(n, ra));
        r.point_b = kcbp_v2_sub(d.gjk.pb, kcbp_v2_scale(n, rb));
        if (d.collide)
            r.depth = ra + rb - dc > 0 ? ra + rb - dc : 0.0;
        else
            r.distance = dc - ra - rb > 0 ? dc - ra - rb : 0.0;
    }
    if (!d.collide)
        r.status = KCBP2D_APART;
    else
        r.status = r.depth <= KCBP2D_TOUCH_REL_TOL * r.scale ? KCBP2D_TOUCHING : KCBP2D_OVERLAPPING;
    r.signed_distance = d.collide ? -r.depth : r.distance;
    kcbp2d_core_free(&ca);
    kcbp2d_core_free(&cb);
    put_result(result, &r, out_size);
    return KCBP_OK;
}
