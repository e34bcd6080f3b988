/* The 2D sweep's swept-hull test (query2d_internal.h): a convex shape
 * translating against a still model, where conservative advancement
 * crawls (a rounded shape grazing a corner). */
#include <math.h>
#include <stdlib.h>

#include <kcbp/polygon2d.h>
#include <kcbp/shape2d.h>

#include "query/query2d_internal.h"

/* The pose of B at s, for a motion that does not turn (pose0's rotation,
 * the translation interpolated as kcbp2d_motion_at does, to at s >= 1). */
static kcbp2d_pose pose_at(const kcbp2d_pose *pose0, const kcbp2d_motion *m, double s)
{
    kcbp2d_pose p = *pose0;
    if (s >= 1)
        p.trans = m->to;
    else if (s > 0)
        p.trans = kcbp_v2_make(m->from.x + s * (m->to.x - m->from.x), m->from.y + s * (m->to.y - m->from.y));
    return p;
}

/* Whether B's core swept from t0 to t1 (the hull of its posed cores at
 * both ends, with B's radius), within margin of A, meets A: false proves
 * [t0, t1] free of contact for every pose within margin / 2 of the
 * motion's. Errors other than KCBP_ERR_NOMEM (a hull too small to be a
 * shape) count as meeting. */
static kcbp_status swept_meets(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                               const kcbp2d_pose *pose0, const kcbp2d_motion *m, double t0, double t1,
                               double margin, kcbp_vec2 *pts, kcbp_vec2 *hull, bool *meets, kcbp_error *err)
{
    kcbp2d_pose p0 = pose_at(pose0, m, t0), p1 = pose_at(pose0, m, t1);
    kcbp2d_core c0, c1;
    kcbp_status st = kcbp2d_core_make(b, &p0, &c0, err);
    if (st != KCBP_OK)
        return st;
    if ((st = kcbp2d_core_make(b, &p1, &c1, err)) != KCBP_OK) {
        kcbp2d_core_free(&c0);
        return st;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < c0.n; i++)
        pts[n++] = c0.v[i];
    for (uint32_t i = 0; i < c1.n; i++)
        pts[n++] = c1.v[i];
    kcbp2d_core_free(&c0);
    kcbp2d_core_free(&c1);
    size_t nh = 0;
    kcbp_error e2;
    *meets = true;
    if (kcbp2d_hull(pts, n, hull, &nh, &e2) != KCBP_OK || nh == 0)
        return KCBP_OK;
    kcbp2d_shape sw;
    if (nh == 1) {
        sw = kcbp2d_shape_circle(b->radius);
        sw.local[0] = hull[0];
    } else if (nh == 2) {
        sw = kcbp2d_shape_segment(hull[0], hull[1]);
        sw.radius = b->radius;
    } else {
        sw = kcbp2d_shape_polygon(hull, (uint32_t)nh, b->radius);
    }
    kcbp2d_model_collide_options o = kcbp2d_model_collide_options_default();
    o.margin = margin;
    kcbp2d_model_collide_result r;
    kcbp2d_pose id = kcbp2d_pose_identity();
    st = kcbp2d_model_shape_collide(a, pose_a, &sw, &id, &o, &r, &e2);
    if (st == KCBP_ERR_NOMEM)
        return kcbp_error_set(err, st, "%s", e2.msg);
    *meets = st != KCBP_OK || r.collide;
    return KCBP_OK;
}

kcbp_status kcbp2d_sweep_swept_free(const kcbp2d_model *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                    const kcbp2d_pose *pose0, const kcbp2d_motion *m, double t, double width,
                                    double e, double *free_until, kcbp_error *err)
{
    *free_until = t;
    uint32_t n = b->kind == KCBP2D_POLYGON ? b->npoints : 4;
    kcbp_vec2 *pts = malloc((size_t)4 * n * sizeof *pts);
    if (!pts)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D sweep: out of memory for a swept hull of %u vertices",
                              (unsigned)(2 * n));
    double margin = 2 * e;
    bool meets = true;
    kcbp_status st = swept_meets(a, pose_a, b, pose0, m, t, 1, margin, pts, pts + 2 * n, &meets, err);
    double lo = t, hi = 1;
    if (st == KCBP_OK && !meets)
        lo = 1;
    /* [t, lo] free, [t, hi] meets: bisect on hi (the swept hull grows with it) */
    for (int k = 0; st == KCBP_OK && lo < 1 && hi - lo > width && k < 64; k++) {
        double mid = lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi))
            break;
        if ((st = swept_meets(a, pose_a, b, pose0, m, t, mid, margin, pts, pts + 2 * n, &meets, err)) != KCBP_OK)
            break;
        if (meets)
            hi = mid;
        else
            lo = mid;
    }
    free(pts);
    if (st == KCBP_OK)
        *free_until = lo;
    return st;
}
