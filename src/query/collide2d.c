/* Exact collision of posed convex 2D shapes (include/kcbp/collide2d.h). */
#include <kcbp/collide2d.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include <kcbp/distance2d.h>

#include "base/util.h"
#include "geom/closest.h"
#include "query/query2d_internal.h"

#define OPTIONS_V1_SIZE (offsetof(kcbp2d_collide_options, margin) + sizeof(double))
#define RESULT_V1_SIZE (offsetof(kcbp2d_collide_result, separating_edge) + sizeof(uint32_t))

void kcbp2d_collide_options_init(kcbp2d_collide_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_collide_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.margin = 0.0;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

static kcbp_status pose_check(const kcbp2d_pose *p, const char *which, kcbp_error *err)
{
    if (!p)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D pose %s is NULL", which);
    /* one comparison each (NaN fails it) */
    if (!(fabs(p->c) <= 1.0 && fabs(p->s) <= 1.0 && fabs(p->trans.x) <= KCBP_COORD_MAX &&
          fabs(p->trans.y) <= KCBP_COORD_MAX))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D pose %s: not finite or not a rotation", which);
    return KCBP_OK;
}

/* The shapes' checks and errors in the order they always had (shape A,
 * shape B, then the poses), each polygon's points checked while posed. */
kcbp_status kcbp2d_cores_posed(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                               const kcbp2d_pose *pose_b, kcbp2d_core *ca, kcbp2d_core *cb, kcbp_error *err)
{
    static const kcbp2d_pose unit = {1.0, 0.0, {0.0, 0.0}};
    kcbp_status st;
    ca->heap = cb->heap = NULL;
    /* a NULL pose is reported after both shapes: pose by the identity meanwhile */
    if ((st = kcbp2d_core_pose(a, pose_a ? pose_a : &unit, ca, err)) != KCBP_OK) {
        kcbp_error_prefix(err, "shape A");
        return st;
    }
    if ((st = kcbp2d_core_pose(b, pose_b ? pose_b : &unit, cb, err)) != KCBP_OK) {
        kcbp2d_core_free(ca);
        kcbp_error_prefix(err, "shape B");
        return st;
    }
    if ((st = pose_check(pose_a, "A", err)) != KCBP_OK || (st = pose_check(pose_b, "B", err)) != KCBP_OK) {
        kcbp2d_core_free(ca);
        kcbp2d_core_free(cb);
        return st;
    }
    return KCBP_OK;
}

kcbp_status kcbp2d_cores_finish(kcbp2d_core *ca, kcbp2d_core *cb, kcbp_error *err)
{
    kcbp_status st;
    if ((st = kcbp2d_core_finish(ca, err)) != KCBP_OK) {
        kcbp2d_core_free(cb);
        return st;
    }
    if ((st = kcbp2d_core_finish(cb, err)) != KCBP_OK) {
        kcbp2d_core_free(ca);
        return st;
    }
    return KCBP_OK;
}

kcbp_status kcbp2d_cores_of(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                            const kcbp2d_pose *pose_b, kcbp2d_core *ca, kcbp2d_core *cb, kcbp_error *err)
{
    kcbp_status st = kcbp2d_cores_posed(a, pose_a, b, pose_b, ca, cb, err);
    return st != KCBP_OK ? st : kcbp2d_cores_finish(ca, cb, err);
}

/* The filter's error bound, as a multiple of u = 2^-53 times the scale
 * (coordinates and radii): the upper bound |pb - pa| is a distance between
 * points of the cores up to the rounding of making them (a projection
 * parameter, one product and one sum: a few u * S), and the lower bound, a
 * projection gap (min over B of u.b - max over A of u.a) / |u|, rounds
 * each dot product once per operation (2u |u| S each) and the division
 * and the norm a few u of the gap. 64 covers both with a wide margin. */
#define FILTER_ERR 64.0

/* The rest of kcbp2d_decide once the cores are known apart (SAT). */
static void decide_apart(const kcbp2d_core *a, const kcbp2d_core *b, double margin, int max_iterations,
                         bool need_distance, kcbp2d_decision *d);

void kcbp2d_decide_after_sat(const kcbp2d_core *a, const kcbp2d_core *b, bool intersect, int sep_shape,
                             uint32_t sep_edge, int max_iterations, kcbp2d_decision *d)
{
    memset(d, 0, sizeof d[0]);
    d->decided_by = KCBP2D_DECIDED_SAT;
    if (intersect) {
        d->sep_shape = -1;
        d->collide = d->cores_intersect = true;
        return;
    }
    d->sep_shape = sep_shape, d->sep_edge = sep_edge;
    decide_apart(a, b, 0.0, max_iterations, true, d);
}

void kcbp2d_decide(const kcbp2d_core *a, const kcbp2d_core *b, double margin, int max_iterations,
                   bool need_distance, kcbp2d_decision *d)
{
    memset(d, 0, sizeof d[0]);
    d->cores_intersect = kcbp2d_sat_intersect(a, b, &d->sep_shape, &d->sep_edge);
    d->decided_by = KCBP2D_DECIDED_SAT;
    if (d->cores_intersect) {
        d->collide = true;
        return;
    }
    decide_apart(a, b, margin, max_iterations, need_distance, d);
}

static void decide_apart(const kcbp2d_core *a, const kcbp2d_core *b, double margin, int max_iterations,
                         bool need_distance, kcbp2d_decision *d)
{
    double ra = a->r, rb = b->r + margin;
    if (ra == 0 && rb == 0 && !need_distance) {
        d->collide = false;
        return;
    }
    /* Cores apart: their distance for the filter and the caller. */
    kcbp2d_gjk(a, b, max_iterations, &d->gjk);
    if (d->gjk.overlap) { /* rounding in GJK: the cores are proven apart */
        d->gjk.distance = kcbp2d_brute_distance(a, b, &d->gjk.pa, &d->gjk.pb);
        d->gjk.overlap = false;
    }
    d->have_gjk = true;
    if (ra == 0 && rb == 0) {
        d->collide = false;
        return;
    }
    /* Filter: the bounds on the cores' distance against ra + rb. */
    double s = fmax(a->scale, b->scale) + ra + rb, err = FILTER_ERR * 0x1p-53 * s;
    double thr = ra + rb, upper = d->gjk.distance;
    d->decided_by = KCBP2D_DECIDED_FILTER;
    if (upper + err < thr) {
        d->collide = true;
        return;
    }
    kcbp_vec2 u = kcbp_v2_sub(d->gjk.pb, d->gjk.pa);
    double ul = kcbp_v2_len(u);
    if (ul > 0) {
        double amax = -INFINITY, bmin = INFINITY;
        for (uint32_t i = 0; i < a->n; i++)
            amax = fmax(amax, kcbp_v2_dot(u, a->v[i]));
        for (uint32_t i = 0; i < b->n; i++)
            bmin = fmin(bmin, kcbp_v2_dot(u, b->v[i]));
        double lower = (bmin - amax) / ul;
        if (lower - err > thr) {
            d->collide = false;
            return;
        }
    }
    /* Near touching: the exact decisions on every pair of core edges (the
     * distance of disjoint convex sets is attained on their boundaries). */
    d->decided_by = KCBP2D_DECIDED_EXACT;
    uint32_t na = a->n >= 3 ? a->n : 1, nb = b->n >= 3 ? b->n : 1;
    for (uint32_t i = 0; i < na; i++) {
        kcbp_vec2 p0 = a->v[i], p1 = a->v[(i + 1) % a->n];
        kcbp_vec3 P0 = kcbp_v3(p0.x, p0.y, 0), P1 = kcbp_v3(p1.x, p1.y, 0);
        for (uint32_t j = 0; j < nb; j++) {
            kcbp_vec2 q0 = b->v[j], q1 = b->v[(j + 1) % b->n];
            if (kcbp_within_seg_seg(P0, P1, kcbp_v3(q0.x, q0.y, 0), kcbp_v3(q1.x, q1.y, 0), ra, rb)) {
                d->collide = true;
                return;
            }
        }
    }
    d->collide = false;
}

kcbp_status kcbp2d_collide_sized(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                 const kcbp2d_pose *pose_b, const kcbp2d_collide_options *options,
                                 kcbp2d_collide_result *result, size_t result_size, kcbp_error *err)
{
    kcbp2d_collide_result r;
    memset(&r, 0, sizeof r);
    r.separating_shape = -1;
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    if (result && out_size)
        memcpy(result, &r, out_size);
    if (!result || result_size < RESULT_V1_SIZE)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D collide: result of size %zu, too small", result_size);
    kcbp2d_collide_options o;
    kcbp2d_collide_options_init(&o, (uint32_t)sizeof o);
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, OPTIONS_V1_SIZE, "2D collide",
                                              "kcbp2d_collide_options_default", err);
        if (st != KCBP_OK)
            return st;
    }
    if (!isfinite(o.margin) || o.margin < 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D collide: margin %g is not a finite number >= 0", o.margin);
    kcbp2d_core ca, cb;
    kcbp_status st = kcbp2d_cores_posed(a, pose_a, b, pose_b, &ca, &cb, err);
    if (st != KCBP_OK)
        return st;
    kcbp2d_decision d;
    memset(&d, 0, sizeof d);
    d.sep_shape = -1;
    /* Two polygons without radius or margin: the filtered SAT first, which
     * needs no convexity check when it finds a separating line. */
    kcbp2d_sat_verdict v = ca.r == 0 && cb.r == 0 && o.margin == 0
                               ? kcbp2d_sat_filtered(&ca, &cb, &d.sep_shape, &d.sep_edge, NULL)
                               : KCBP2D_SAT_UNDECIDED;
    if (v == KCBP2D_SAT_SEPARATED) {
        d.decided_by = KCBP2D_DECIDED_SAT;
    } else if ((st = kcbp2d_cores_finish(&ca, &cb, err)) != KCBP_OK) {
        return st;
    } else if (v == KCBP2D_SAT_NO_SEPARATOR && !ca.hulled && !cb.hulled) {
        d.collide = d.cores_intersect = true, d.decided_by = KCBP2D_DECIDED_SAT;
        d.sep_shape = -1, d.sep_edge = 0;
    } else {
        kcbp2d_decide(&ca, &cb, o.margin, KCBP2D_GJK_MAX_ITERATIONS_DEFAULT, false, &d);
    }
    kcbp2d_core_free(&ca);
    kcbp2d_core_free(&cb);
    r.collide = d.collide;
    r.cores_intersect = d.cores_intersect;
    r.decided_by = d.decided_by;
    r.separating_shape = d.sep_shape;
    r.separating_edge = d.sep_edge;
    memcpy(result, &r, out_size);
    return KCBP_OK;
}
