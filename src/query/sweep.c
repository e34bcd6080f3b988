/* Time of impact by conservative advancement: see include/kcbp/sweep.h. */
#include <kcbp/sweep.h>

#include <math.h>
#include <string.h>

#include <kcbp/gjk.h>

#include "model_internal.h"
#include "shape_query.h"

/* kcbp_distance's result is within KCBP_TRI_DIST_REL_ERR of the scale of
 * the coordinates it works on (B carried into A's frame); this many times
 * that is subtracted from every distance before it becomes a step. */
#define SWEEP_DIST_ERR_FACTOR 8.0
/* Steps taken on the k-CBPs alone before the meshes are consulted: the
 * k-CBPs' conservative advancement converges in a few steps head-on, but
 * slowly for a grazing or fast-turning motion, where the meshes' distance
 * (which bounds a step as well) takes over. */
#define SWEEP_CBP_RUN_MAX 64

/* Steps taken near contact while the exact test finds no contact tau
 * after t (see kcbp_sweep_result.confirmed). */
#define SWEEP_CONFIRM_MAX 64

kcbp_sweep_options kcbp_sweep_options_default(void)
{
    kcbp_sweep_options o = {.t_tolerance = 1e-9, .max_iterations = 10000, .use_cbp = true};
    return o;
}

/* The unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method:
 * the largest of the four candidates' square roots, for accuracy). */
static void quat_of(const kcbp_mat3 *r, double q[4])
{
    const double(*m)[3] = r->m;
    double tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q[0] = s / 4, q[1] = (m[2][1] - m[1][2]) / s, q[2] = (m[0][2] - m[2][0]) / s, q[3] = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = 2 * sqrt(fmax(1 + m[0][0] - m[1][1] - m[2][2], 0));
        q[0] = (m[2][1] - m[1][2]) / s, q[1] = s / 4, q[2] = (m[0][1] + m[1][0]) / s, q[3] = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = 2 * sqrt(fmax(1 + m[1][1] - m[0][0] - m[2][2], 0));
        q[0] = (m[0][2] - m[2][0]) / s, q[1] = (m[0][1] + m[1][0]) / s, q[2] = s / 4, q[3] = (m[1][2] + m[2][1]) / s;
    } else {
        double s = 2 * sqrt(fmax(1 + m[2][2] - m[0][0] - m[1][1], 0));
        q[0] = (m[1][0] - m[0][1]) / s, q[1] = (m[0][2] + m[2][0]) / s, q[2] = (m[1][2] + m[2][1]) / s, q[3] = s / 4;
    }
}

kcbp_motion kcbp_motion_still(const kcbp_pose *p)
{
    kcbp_motion m = {.from = *p, .to = *p, .dtrans = {0, 0, 0}, .axis = {1, 0, 0}, .angle = 0};
    return m;
}

kcbp_motion kcbp_motion_make(const kcbp_pose *from, const kcbp_pose *to)
{
    kcbp_motion m = kcbp_motion_still(from);
    m.to = *to;
    m.dtrans = kcbp_v3_sub(to->trans, from->trans);
    /* The rotation from `from` to `to` in the body's frame, from^T * to:
     * its quaternion with w >= 0 is the shorter arc. */
    kcbp_mat3 ft = kcbp_mat3_transpose(&from->rot);
    kcbp_mat3 d = kcbp_mat3_mul(&ft, &to->rot);
    double q[4];
    quat_of(&d, q);
    if (q[0] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    kcbp_vec3 v = kcbp_v3(q[1], q[2], q[3]);
    double s = kcbp_v3_len(v);
    if (s > 0 && isfinite(s) && isfinite(q[0])) {
        m.axis = kcbp_v3_scale(v, 1 / s);
        m.angle = 2 * atan2(s, q[0]);
    }
    return m;
}

kcbp_pose kcbp_motion_at(const kcbp_motion *m, double t)
{
    if (!(t > 0))
        return m->from;
    if (t >= 1)
        return m->to;
    kcbp_pose turn;
    kcbp_vec3 at = kcbp_v3_add(m->from.trans, kcbp_v3_scale(m->dtrans, t));
    if (m->angle == 0 ||
        kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), m->axis, m->angle * t * (180 / M_PI), &turn, NULL) != KCBP_OK) {
        kcbp_pose p = {m->from.rot, at};
        return p;
    }
    kcbp_pose p = {kcbp_mat3_mul(&m->from.rot, &turn.rot), at};
    return p;
}

/* The largest distance of the model's points from the line through its
 * origin along the unit axis: a point p moves at most angle * that per unit
 * t under the motion's rotation (|axis x Rot p| is p's distance from the
 * axis, which the rotation keeps). The k-CBP's vertices hold the mesh (up
 * to rounding, hence the margin); without one, the mesh's vertices. */
static double axis_radius(const kcbp_model_impl *mo, kcbp_vec3 axis)
{
    if (kcbp_impl_is_shape(mo)) /* shapes: shape_query.c */
        return kcbp_shape_axis_radius(mo, axis);
    const kcbp_vec3 *v = mo->mesh.vertices;
    uint32_t n = mo->mesh.nvertices;
    double pad = 0;
    if (kcbp_impl_has_cbp(mo)) {
        v = mo->cbp.vertices;
        n = mo->cbp.nvertices;
        pad = KCBP_CBP_MARGIN_REL * fmax(mo->cbp_scale, mo->scale);
    }
    double r2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 off = kcbp_v3_sub(v[i], kcbp_v3_scale(axis, kcbp_v3_dot(v[i], axis)));
        r2 = fmax(r2, kcbp_v3_len2(off));
    }
    /* 1 + 1e-12: the rounding of the dot products and the square root. */
    return sqrt(r2) * (1 + 1e-12) + pad;
}

/* Whether the meshes touch at t, by kcbp_collide (exact). */
static kcbp_status touching_at(const kcbp_model *a, const kcbp_motion *ma, const kcbp_model *b, const kcbp_motion *mb,
                               double t, bool *touch, kcbp_error *err)
{
    kcbp_pose pa = kcbp_motion_at(ma, t), pb = kcbp_motion_at(mb, t);
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_NONE;
    kcbp_collide_result r;
    memset(&r, 0, sizeof r);
    kcbp_status st = kcbp_collide(a, &pa, b, &pb, &o, &r, err);
    *touch = st == KCBP_OK && r.collide;
    kcbp_collide_result_free(&r);
    return st;
}

/* How fast the rotation moves the model's farthest point from its axis. */
static double spin_speed(const kcbp_model_impl *m, const kcbp_motion *mo)
{
    return mo->angle > 0 ? mo->angle * axis_radius(m, mo->axis) : 0;
}

double kcbp_motion_speed_bound(const kcbp_model *m, const kcbp_motion *mo)
{
    return (kcbp_v3_len(mo->dtrans) + spin_speed(m->impl, mo)) * (1 + 1e-12);
}

kcbp_status kcbp_sweep(const kcbp_model *ma, const kcbp_motion *motion_a, const kcbp_model *mb,
                       const kcbp_motion *motion_b, const kcbp_sweep_options *options, kcbp_sweep_result *result,
                       kcbp_error *err)
{
    const kcbp_model_impl *a = ma->impl, *b = mb->impl;
    kcbp_sweep_options o = options ? *options : kcbp_sweep_options_default();
    memset(result, 0, sizeof *result);
    if (!(o.t_tolerance > 0) || o.max_iterations < 1)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "sweep: t_tolerance must be > 0 and max_iterations >= 1");
    if (kcbp_impl_is_empty(a) || kcbp_impl_is_empty(b))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "sweep: a model without triangles");

    /* Speed bounds: every point of A moves at most spin_a + |dT_A| per unit
     * t, and likewise for B. */
    double spin_a = spin_speed(a, motion_a), spin_b = spin_speed(b, motion_b);
    kcbp_vec3 dt = kcbp_v3_sub(motion_b->dtrans, motion_a->dtrans);
    double mu = kcbp_v3_len(motion_a->dtrans) + kcbp_v3_len(motion_b->dtrans) + spin_a + spin_b;
    mu *= 1 + 1e-12;
    result->motion_bound = mu;
    if (!isfinite(mu))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "sweep: the motion is not finite");

    bool cbp = o.use_cbp && kcbp_impl_has_cbp(a) && kcbp_impl_has_cbp(b);
    bool cbp_only = cbp;
    int cbp_run = 0;
    kcbp_support_cache cache = {{0, 0}};
    kcbp_distance_options dopt = kcbp_distance_options_default();
    dopt.use_cbp = o.use_cbp;
    double t = 0;
    int confirm_left = SWEEP_CONFIRM_MAX;
    for (;;) {
        if (result->iterations >= o.max_iterations) {
            result->undecided = true;
            result->toi = result->free_until = t;
            return KCBP_OK;
        }
        result->iterations++;
        kcbp_pose pa = kcbp_motion_at(motion_a, t), pb = kcbp_motion_at(motion_b, t);
        kcbp_pose b_in_a = kcbp_pose_relative(&pa, &pb);
        double move = kcbp_v3_len(b_in_a.trans);
        double err_d = SWEEP_DIST_ERR_FACTOR * KCBP_TRI_DIST_REL_ERR * (a->scale + b->scale + move);
        double stop_d = fmax(mu * o.t_tolerance, 2 * err_d);

        /* The k-CBPs' gap along GJK's closest direction n, and the speed
         * at which it can close: |n . (dT_B - dT_A)| plus both spins. */
        double step = 0, gap = 0;
        if (cbp) {
            kcbp_gjk_result g;
            kcbp_gjk_distance(&a->shape, &b->shape, &b_in_a, NULL, &cache, &g);
            double nlen = kcbp_v3_len(g.normal);
            if ((g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_HIT_CAP) && nlen > 0.5) {
                kcbp_vec3 n = kcbp_v3_scale(g.normal, 1 / nlen);
                double margin = kcbp_pair_cbp_margin(a, b, &b_in_a);
                gap = kcbp_cbp_gap(&a->cbp, &b->cbp, &b_in_a, n) - margin;
                if (gap > 0) {
                    kcbp_vec3 nw = kcbp_mat3_mul_v3(&pa.rot, n);
                    double mu_n = (fabs(kcbp_v3_dot(nw, dt)) + spin_a + spin_b) * (1 + 1e-12);
                    step = mu_n > 0 ? gap / mu_n : INFINITY;
                }
            }
        }
        if (cbp_only && gap > stop_d && cbp_run < SWEEP_CBP_RUN_MAX) {
            cbp_run++;
            result->cbp_steps++;
        } else {
            /* The meshes: with a clearance limit of what the rest of the
             * motion could close, so that a sweep ending apart is settled
             * by the first query that proves the meshes farther. */
            cbp_only = false;
            kcbp_distance_result d;
            dopt.max_distance = mu * (1 - t) + err_d;
            /* The k-CBP stage inside it only when the k-CBPs were just
             * found apart (it then seeds the search near their closest
             * points); overlapping, it would find that again. */
            dopt.use_cbp = o.use_cbp && (!cbp || gap > 0);
            kcbp_status st = kcbp_distance(ma, &pa, mb, &pb, &dopt, &d, err);
            if (st != KCBP_OK)
                return st;
            result->distance_queries++;
            result->tree.box_pairs += d.tree.box_pairs;
            result->tree.tri_pairs += d.tree.tri_pairs;
            /* the proven lower bound (a shape's GJK stopped at its cap
             * reports one below its distance; the same for meshes) */
            double step_m = d.within ? (d.distance_lower - err_d) / mu : INFINITY;
            if (d.within && d.distance <= stop_d) {
                /* Near enough: confirm a contact with the exact test, at t
                 * when the distance is within rounding of 0, else at t +
                 * tau; unconfirmed, step on (a few times at most: a motion
                 * grazing just inside the tolerance never confirms). */
                bool confirmed = false;
                if (d.distance <= 2 * err_d)
                    st = touching_at(ma, motion_a, mb, motion_b, t, &confirmed, err);
                if (st == KCBP_OK && !confirmed)
                    st = touching_at(ma, motion_a, mb, motion_b, fmin(1, t + o.t_tolerance), &confirmed, err);
                if (st != KCBP_OK)
                    return st;
                if (confirmed || confirm_left == 0 || !(step_m > 0)) {
                    result->confirmed = confirmed;
                    result->hit = true;
                    result->toi = t;
                    result->free_until = t;
                    result->distance = d.distance;
                    result->point_a = d.point_a;
                    result->point_b = d.point_b;
                    result->tri_a = d.tri_a;
                    result->tri_b = d.tri_b;
                    return KCBP_OK;
                }
                confirm_left--;
            }
            if (step_m >= step)
                step = step_m;
            else
                result->cbp_steps++;
        }
        /* [t, t + step) is proven free of contact. */
        if (!(t + step <= 1)) {
            result->toi = result->free_until = 1;
            return KCBP_OK;
        }
        t += step;
    }
}
