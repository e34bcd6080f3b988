/* Time of impact of moving 2D bodies by conservative advancement
 * (include/kcbp/sweep2d.h). */
#include <kcbp/sweep2d.h>

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/collide2d.h>
#include <kcbp/distance2d.h>

#include "base/util.h"
#include "convex/convex2d.h"
#include "query/query2d_internal.h"

#define OPTIONS_V1_SIZE (offsetof(kcbp2d_sweep_options, max_iterations) + sizeof(int))
#define RESULT_V1_SIZE (offsetof(kcbp2d_sweep_result, distance_queries) + sizeof(int))

/* E of the header, as a multiple of 2^-53 times the bodies' reach: the
 * distances are accurate to a few ulps of the coordinates they work on
 * (distance2d.h, polygon2d.h), the poses round each coordinate a few times
 * (pose2d.h), and a projection gap rounds each dot product once per
 * operation; 64 covers them with a wide margin (as collide2d.c's filter). */
#define SWEEP2D_ERR 64.0
/* Steps taken near contact while the exact test finds no contact tau after
 * t (kcbp2d_sweep_result.confirmed). */
#define SWEEP2D_CONFIRM_MAX 64
/* Relative rounding margin on speed bounds (products, sums, hypot). */
#define SPEED_PAD (1 + 1e-12)
/* Regula falsi steps in the root search of a step's bound (bound_search):
 * at least SWEEP2D_CHORDS, up to SWEEP2D_CHORDS_MAX while the bound at the
 * step's end is above SWEEP2D_TARGET times the stopping distance (a step
 * that ends nearer goes to the exact test at once, without a step more). */
#define SWEEP2D_CHORDS 1
#define SWEEP2D_CHORDS_MAX 6
#define SWEEP2D_TARGET 0.5
/* The largest turn (radians over the motion) the Taylor bounds are taken
 * for: beyond it their powers of w could overflow (a vertex's bound then
 * NaN); the first-order step stays. */
#define SWEEP2D_TURN_MAX 1e6

void kcbp2d_sweep_options_init(kcbp2d_sweep_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_sweep_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.t_tolerance = KCBP2D_SWEEP_TOLERANCE_DEFAULT;
    d.max_iterations = KCBP2D_SWEEP_MAX_ITERATIONS_DEFAULT;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

kcbp2d_motion kcbp2d_motion_still(double tx, double ty, double deg)
{
    kcbp2d_motion m = {{tx, ty}, {tx, ty}, deg, deg};
    return m;
}

kcbp_status kcbp2d_motion_at(const kcbp2d_motion *m, double t, kcbp2d_pose *out, kcbp_error *err)
{
    if (!m || !out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D motion: NULL argument");
    if (!(t > 0))
        return kcbp2d_pose_from_angle(m->from.x, m->from.y, m->from_deg, out, err);
    if (t >= 1)
        return kcbp2d_pose_from_angle(m->to.x, m->to.y, m->to_deg, out, err);
    double tx = m->from.x + t * (m->to.x - m->from.x), ty = m->from.y + t * (m->to.y - m->from.y);
    double deg = m->from_deg + t * (m->to_deg - m->from_deg);
    return kcbp2d_pose_from_angle(tx, ty, deg, out, err);
}

/* rot_step's bound on a vertex's projection after a further h. */
typedef struct {
    double p, q, a, b;
} sweep_line4;

/* One side of a sweep: a convex shape or a model, and its motion. */
typedef struct {
    const kcbp2d_shape *shape; /* exactly one of shape and model */
    const kcbp2d_model *model;
    const kcbp2d_motion *motion;
    kcbp_vec2 dtrans; /* to - from */
    double rho;       /* the largest distance of a core vertex from the origin */
    double radius;    /* a shape's radius; 0 for a model */
    double spin;      /* |turn in radians| * rho: the turn's speed bound */
    double w;         /* the turn in radians, signed (counter-clockwise > 0) */
    bool still;       /* from == to: posed once */
    /* a shape's posed core vertices for the steps (not made strictly
     * convex: the steps' bounds hold for any point set's hull) */
    kcbp2d_core pts;
    bool pts_valid;
    kcbp_vec2 *heap;
    /* per core vertex, its projection on the step's direction (x) and that
     * projection's first-order rate (y), for the second-order bound */
    kcbp_vec2 lines_buf[KCBP2D_CORE_INLINE];
    kcbp_vec2 *lines;
    sweep_line4 lines4_buf[KCBP2D_CORE_INLINE];
    sweep_line4 *lines4;
    /* rot_step's and fixed_step's maxima over the vertices: of p, of the
     * negative parts of the second to fourth order coefficients, and of
     * each order's absolute value (0 to 6; rot_step's remainders at their
     * largest) */
    double lines4_pmax, lines4_neg2, lines4_neg3, lines4_neg4, lines4_abs[8], lines4_rem[8];
    bool fixed_turn;  /* from_deg == to_deg: every pose has pose0's c and s */
    kcbp2d_pose pose0; /* the pose at t = 0 */
    kcbp2d_core core;  /* a still shape's core for the exact test, once made */
    bool core_valid;
} body;

/* kcbp2d_motion_at(b->motion, t), bit for bit: a body that does not turn
 * has the angle from_deg at every t (from_deg + t * 0), so the rotation
 * of t = 0 and the translation interpolated as there. */
static kcbp_status body_pose_at(const body *b, double t, kcbp2d_pose *out, kcbp_error *err)
{
    if (!(t > 0) || b->still) { /* motion_at's pose of t = 0 */
        *out = b->pose0;
        return KCBP_OK;
    }
    if (!b->fixed_turn)
        return kcbp2d_motion_at(b->motion, t, out, err);
    const kcbp2d_motion *m = b->motion;
    kcbp_vec2 tr = m->to;
    if (t < 1)
        tr = kcbp_v2_make(m->from.x + t * (m->to.x - m->from.x), m->from.y + t * (m->to.y - m->from.y));
    if (!(fabs(tr.x) <= KCBP_COORD_MAX && fabs(tr.y) <= KCBP_COORD_MAX))
        return kcbp2d_motion_at(m, t, out, err); /* its error */
    out->c = b->pose0.c, out->s = b->pose0.s, out->trans = tr;
    return KCBP_OK;
}

/* The rotation of deg degrees, |deg| < 360, for the steps' poses: as
 * kcbp2d_pose_from_angle (its quarter turns exact), but the sine and
 * cosine by Taylor polynomials on about [-pi/4, pi/4] after a
 * quarter-turn reduction of the same angle in radians, within a few ulps
 * of libm's: a step's bounds hold for any coordinates within E
 * of the motion's (the header's E covers the poses' rounding), and the
 * exact confirmation poses by kcbp2d_motion_at itself. */
static void step_rotation(double deg, double *c, double *s)
{
    double r = deg < 0 ? deg + 360.0 : deg;
    if (r == 0.0 || r == 360.0) {
        *c = 1.0, *s = 0.0;
        return;
    }
    if (r == 90.0 || r == 180.0 || r == 270.0) {
        *c = r == 180.0 ? -1.0 : 0.0, *s = r == 90.0 ? 1.0 : r == 270.0 ? -1.0 : 0.0;
        return;
    }
    /* the angle kcbp2d_pose_from_angle takes the sine and cosine of, less
     * q quarter turns (Cody and Waite: pi/2 in two parts, the first of 33
     * bits, so that q times it is exact; fdlibm's) */
    double rad = deg * (M_PI / 180.0), qr = rad * (2 / M_PI);
    int qi = (int)(qr + (qr < 0 ? -0.5 : 0.5)); /* nearest (|qr| < 4.01): no libm call */
    double q = qi;
    double x = (rad - q * 1.57079632673412561417e+00) - q * 6.07710050650619224932e-11, x2 = x * x;
    /* |x| <= pi/4 (and a hair): the series' next terms are below 5e-17, and
     * the whole within an ulp of libm's (checked on 2e6 angles) */
    double sn = x + x * x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880 +
                x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800 + x2 * (-1.0 / 1307674368000.0)))))));
    double cs = 1.0 + x2 * (-0.5 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320 + x2 * (-1.0 / 3628800 +
                x2 * (1.0 / 479001600 + x2 * (-1.0 / 87178291200.0 + x2 * (1.0 / 20922789888000.0))))))));
    switch ((qi % 4 + 4) % 4) {
    case 0: *c = cs, *s = sn; break;
    case 1: *c = -sn, *s = cs; break;
    case 2: *c = -cs, *s = -sn; break;
    default: *c = sn, *s = -cs; break;
    }
}

/* The pose of a step at t: body_pose_at's, but a turning body's rotation
 * by step_rotation where the angle is within a turn (else
 * kcbp2d_motion_at's). */
static kcbp_status step_pose_at(const body *b, double t, kcbp2d_pose *out, kcbp_error *err)
{
    if (!(t > 0) || b->still || b->fixed_turn || !(t < 1))
        return body_pose_at(b, t, out, err);
    const kcbp2d_motion *m = b->motion;
    double deg = m->from_deg + t * (m->to_deg - m->from_deg);
    kcbp_vec2 tr = kcbp_v2_make(m->from.x + t * (m->to.x - m->from.x), m->from.y + t * (m->to.y - m->from.y));
    if (!(fabs(deg) < 360.0 && fabs(tr.x) <= KCBP_COORD_MAX && fabs(tr.y) <= KCBP_COORD_MAX))
        return kcbp2d_motion_at(m, t, out, err);
    step_rotation(deg, &out->c, &out->s);
    out->trans = tr;
    return KCBP_OK;
}

#define MAX2(x, y) ((x) > (y) ? (x) : (y))
#define MIN2(x, y) ((x) < (y) ? (x) : (y))

/* kcbp_v2_max_abs without a libm call (the coordinates are finite) */
static inline double max_abs(kcbp_vec2 v) { return MAX2(fabs(v.x), fabs(v.y)); }

/* The shape's core vertices moved by the pose, into b->pts (the order of
 * kcbp2d_core_make: counter-clockwise). */
static void pose_points(body *b, const kcbp2d_pose *pose)
{
    const kcbp2d_shape *s = b->shape;
    kcbp2d_core *c = &b->pts;
    kcbp_vec2 *v = b->heap ? b->heap : c->buf;
    uint32_t n;
    switch (s->kind) {
    case KCBP2D_CIRCLE: n = 1, v[0] = kcbp2d_pose_apply(pose, s->local[0]); break;
    case KCBP2D_BOX: {
        kcbp_vec2 h = s->local[0];
        const kcbp_vec2 corner[4] = {{-h.x, -h.y}, {h.x, -h.y}, {h.x, h.y}, {-h.x, h.y}};
        n = 4;
        for (int i = 0; i < 4; i++)
            v[i] = kcbp2d_pose_apply(pose, corner[i]);
        break;
    }
    case KCBP2D_POLYGON:
        n = s->npoints;
        for (uint32_t i = 0; i < n; i++)
            v[i] = kcbp2d_pose_apply(pose, s->points[i]);
        break;
    default: /* capsule, segment */
        n = 2;
        v[0] = kcbp2d_pose_apply(pose, s->local[0]);
        v[1] = kcbp2d_pose_apply(pose, s->local[1]);
        break;
    }
    if (n == 2 && v[0].x == v[1].x && v[0].y == v[1].y)
        n = 1;
    c->v = v;
    c->n = n;
    c->r = s->radius;
    c->scale = 0;
    c->hulled = false;
    c->heap = NULL;
}

static double shape_rho(const kcbp2d_shape *s)
{
    double r = 0;
    switch (s->kind) {
    case KCBP2D_CIRCLE: r = kcbp_v2_len(s->local[0]); break;
    case KCBP2D_CAPSULE:
    case KCBP2D_SEGMENT: r = fmax(kcbp_v2_len(s->local[0]), kcbp_v2_len(s->local[1])); break;
    case KCBP2D_BOX: r = kcbp_v2_len(s->local[0]); break;
    case KCBP2D_POLYGON:
        for (uint32_t i = 0; i < s->npoints; i++)
            r = fmax(r, kcbp2d_len(s->points[i])); /* 1.5 ulps: within SPEED_PAD */
        break;
    }
    return r;
}

/* A polygon's check (kcbp2d_shape_check_ex's without convexity: a radius
 * 0 or within the shape limits, 3 to KCBP2D_POLYGON_MAX points, each
 * coordinate within KCBP_COORD_MAX) and its rho, shape_rho's bit for bit
 * (sqrt is monotone: the root of the largest square is the largest root),
 * in one pass. False for any other shape, a failed check, or squares out
 * of kcbp2d_len's sqrt range: the caller then checks and measures as
 * before (and names the error). */
static bool polygon_ok_rho(const kcbp2d_shape *s, double *rho)
{
    if (s->kind != KCBP2D_POLYGON || !s->points || s->npoints < 3 || s->npoints > KCBP2D_POLYGON_MAX ||
        !(s->radius == 0 || (s->radius >= KCBP2D_SHAPE_MIN && s->radius <= KCBP2D_SHAPE_MAX)))
        return false;
    double m = 0;
    for (uint32_t i = 0; i < s->npoints; i++) {
        kcbp_vec2 p = s->points[i];
        double l2 = p.x * p.x + p.y * p.y;
        if (!((l2 > 1e-280 && l2 < 1e280) || (p.x == 0 && p.y == 0)))
            return false;
        m = MAX2(m, l2);
    }
    /* every |coordinate| within KCBP_COORD_MAX (1e60) when the largest
     * square is below 1e120 with a margin for its rounding; else checked */
    if (!(m <= 0.99 * KCBP_COORD_MAX * KCBP_COORD_MAX))
        for (uint32_t i = 0; i < s->npoints; i++)
            if (!(fabs(s->points[i].x) <= KCBP_COORD_MAX && fabs(s->points[i].y) <= KCBP_COORD_MAX))
                return false;
    *rho = sqrt(m);
    return true;
}

static double model_rho(const kcbp2d_model *m)
{
    const kcbp_vec2 *v = kcbp2d_model_vertices(m);
    uint32_t n = kcbp2d_model_vertex_count(m);
    double r = 0;
    for (uint32_t i = 0; i < n; i++)
        r = fmax(r, kcbp_v2_len(v[i]));
    return r;
}

/* What kcbp2d_pose_from_angle accepts: finite numbers, a translation
 * within KCBP_COORD_MAX. */
static bool end_ok(kcbp_vec2 t, double deg)
{
    return isfinite(t.x) && isfinite(t.y) && isfinite(deg) && fabs(t.x) <= KCBP_COORD_MAX &&
           fabs(t.y) <= KCBP_COORD_MAX;
}

static kcbp_status body_init(body *b, const char *which, kcbp_error *err)
{
    const kcbp2d_motion *m = b->motion;
    if (!m)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: motion %s is NULL", which);
    kcbp2d_pose p;
    kcbp_status st;
    /* the end poses' checks (kcbp2d_pose_from_angle's): the pose of t = 0
     * itself, the other's without its trig (that pose only for its error
     * message) */
    if ((st = kcbp2d_motion_at(m, 0, &b->pose0, err)) != KCBP_OK || /* the pose of t = 0, checked */
        (!end_ok(m->to, m->to_deg) && (st = kcbp2d_motion_at(m, 1, &p, err)) != KCBP_OK)) {
        kcbp_error_prefix(err, which[0] == 'A' ? "2D sweep: motion A" : "2D sweep: motion B");
        return st;
    }
    double turn = fabs(m->to_deg - m->from_deg) * (M_PI / 180);
    if (!isfinite(turn))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: motion %s: the turn is not finite", which);
    if (b->shape) {
        if (!polygon_ok_rho(b->shape, &b->rho)) {
            if ((st = kcbp2d_shape_check_ex(b->shape, false, err)) != KCBP_OK) {
                kcbp_error_prefix(err, which[0] == 'A' ? "2D sweep: shape A" : "2D sweep: shape B");
                return st;
            }
            b->rho = shape_rho(b->shape);
        }
        b->radius = b->shape->radius;
        if (b->shape->kind == KCBP2D_POLYGON && b->shape->npoints > KCBP2D_CORE_INLINE &&
            !(b->heap = malloc((size_t)b->shape->npoints * (2 * sizeof *b->heap + sizeof(sweep_line4)))))
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D sweep: out of memory for %u vertices",
                                  (unsigned)b->shape->npoints);
        b->lines = b->heap ? b->heap + b->shape->npoints : b->lines_buf;
        b->lines4 = b->heap ? (sweep_line4 *)(void *)(b->heap + 2 * (size_t)b->shape->npoints) : b->lines4_buf;
    } else {
        if (!b->model)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: model %s is NULL", which);
        b->rho = model_rho(b->model);
        b->radius = 0;
    }
    b->fixed_turn = m->from_deg == m->to_deg;
    b->dtrans = kcbp_v2_sub(m->to, m->from);
    b->still = m->from.x == m->to.x && m->from.y == m->to.y && m->from_deg == m->to_deg;
    b->spin = turn * b->rho;
    b->w = (m->to_deg - m->from_deg) * (M_PI / 180);
    return KCBP_OK;
}

/* The exact collide test at t. */
/* Whether point p lies in the closed convex polygon c (n >= 3, strictly
 * convex, counter-clockwise), exactly. */
static bool in_core(const kcbp2d_core *c, kcbp_vec2 p)
{
    for (uint32_t i = c->n - 1, j = 0; j < c->n; i = j++)
        if (kcbp2d_orient(c->v[i], c->v[j], p) < 0)
            return false;
    return true;
}

/* Whether p lies in the hull of the closed chain c->v (n >= 3, any order
 * the posing left: not made convex), sufficient only: p left of or on
 * every directed edge and strictly left of one. Then each edge subtends
 * at p a signed angle in [0, pi] (pi: p on it, in the hull), one of them
 * positive, so the chain winds round p (or p is on an edge) and p is in
 * the hull of its vertices: the set the exact test answers for. */
static bool in_chain(const kcbp2d_core *c, kcbp_vec2 p)
{
    bool strict = false;
    for (uint32_t i = c->n - 1, j = 0; j < c->n; i = j++) {
        int o = kcbp2d_orient(c->v[i], c->v[j], p);
        if (o < 0)
            return false;
        strict |= o > 0;
    }
    return strict;
}

/* A cheap exact witness of contact between polygon cores: the vertex of
 * each deepest along the other's way (n, A toward B) inside the other, by
 * the test inside (in_core, or in_chain for posed chains). */
static bool vertex_inside(const kcbp2d_core *ca, const kcbp2d_core *cb, kcbp_vec2 n,
                          bool (*inside)(const kcbp2d_core *, kcbp_vec2), bool a_first)
{
    if (ca->n < 3 || cb->n < 3)
        return false;
    if (a_first) /* A's vertex in B first: B's in A, seen from the other side */
        return vertex_inside(cb, ca, kcbp_v2_neg(n), inside, false);
    uint32_t ib = 0, ia = 0;
    for (uint32_t i = 1; i < cb->n; i++)
        if (kcbp_v2_dot(n, cb->v[i]) < kcbp_v2_dot(n, cb->v[ib]))
            ib = i;
    if (inside(ca, cb->v[ib]))
        return true;
    for (uint32_t i = 1; i < ca->n; i++)
        if (kcbp_v2_dot(n, ca->v[i]) > kcbp_v2_dot(n, ca->v[ia]))
            ia = i;
    return inside(cb, ca->v[ia]);
}

/* The exact collide test at t (n: the last step's direction, a hint). */
static kcbp_status touching_at(body *a, body *b, double t, kcbp_vec2 n, bool a_first, bool *touch, kcbp_error *err)
{
    kcbp2d_pose pa, pb;
    kcbp_status st;
    *touch = false;
    if ((st = body_pose_at(a, t, &pa, err)) != KCBP_OK || (st = body_pose_at(b, t, &pb, err)) != KCBP_OK)
        return st;
    if (a->shape) { /* collide2d.h's exact decision, on the checked shapes' cores */
        /* first a witness on the posed vertices themselves (the steps'
         * buffers: a moving body's are posed again at its next step) */
        if (!a->still || !a->pts_valid)
            pose_points(a, &pa), a->pts_valid = true;
        if (!b->still || !b->pts_valid)
            pose_points(b, &pb), b->pts_valid = true;
        if (vertex_inside(&a->pts, &b->pts, n, in_chain, a_first)) {
            *touch = true;
            return KCBP_OK;
        }
        kcbp2d_core tmp[2], *c[2] = {&tmp[0], &tmp[1]};
        bool made[2] = {false, false};
        body *side[2] = {a, b};
        const kcbp2d_pose *pose[2] = {&pa, &pb};
        for (int k = 0; k < 2; k++) {
            body *x = side[k];
            if (x->still) { /* made once: its pose never changes */
                if (!x->core_valid && (st = kcbp2d_core_make(x->shape, pose[k], &x->core, err)) != KCBP_OK)
                    break;
                x->core_valid = true;
                c[k] = &x->core;
            } else if ((st = kcbp2d_core_make(x->shape, pose[k], c[k], err)) != KCBP_OK) {
                break;
            } else {
                made[k] = true;
            }
        }
        if (st == KCBP_OK) {
            if (vertex_inside(c[0], c[1], n, in_core, a_first)) {
                *touch = true;
            } else {
                kcbp2d_decision d;
                kcbp2d_decide(c[0], c[1], 0.0, KCBP2D_GJK_MAX_ITERATIONS_DEFAULT, false, &d);
                *touch = d.collide;
            }
        }
        for (int k = 0; k < 2; k++)
            if (made[k])
                kcbp2d_core_free(&tmp[k]);
        return st;
    }
    kcbp2d_model_collide_result r;
    st = b->model ? kcbp2d_model_collide(a->model, &pa, b->model, &pb, NULL, &r, err)
                  : kcbp2d_model_shape_collide(a->model, &pa, b->shape, &pb, NULL, &r, err);
    *touch = st == KCBP_OK && r.collide;
    return st;
}

/* One step's measure at t: a proven lower bound on the distance (lower,
 * -INFINITY when they may touch), an estimate of it (dist), and a step
 * proven free of contact from it. */
typedef struct {
    double lower, dist, step; /* step: [t, t + step) proven free */
    bool have_points;         /* convex, apart cores: their closest points and the best direction */
    kcbp_vec2 pa, pb, n;
    kcbp2d_model_distance_result md; /* models: the last query's answer */
    kcbp2d_gjk_cache gc;             /* convex: the last step's GJK simplex */
    int win;                         /* convex: the edge normal among the directions (-1: none), */
    uint32_t win_edge;               /* its edge (for refine_convex) */
    double land; /* convex: the step's bound at its end (a proven lower bound there), else INFINITY */
    bool near;   /* convex: measured by GJK alone, its lower bound the last step's (land) */
} measure;

static uint32_t support_of(const kcbp2d_core *c, kcbp_vec2 d)
{
    uint32_t best = 0;
    double bv = kcbp_v2_dot(d, c->v[0]);
    for (uint32_t i = 1; i < c->n; i++) {
        double v = kcbp_v2_dot(d, c->v[i]);
        if (v > bv)
            bv = v, best = i;
    }
    return best;
}

/* The outward unit normal of edge i -> i + 1 of a counter-clockwise core
 * (a segment's two edges: its two sides). */
static kcbp_vec2 edge_normal(const kcbp2d_core *c, uint32_t i)
{
    kcbp_vec2 e = kcbp_v2_sub(c->v[i + 1 < c->n ? i + 1 : 0], c->v[i]);
    double l = sqrt(e.x * e.x + e.y * e.y); /* no overflow: |coordinates| <= KCBP_COORD_MAX */
    return l > 0 ? kcbp_v2_make(e.y / l, -e.x / l) : kcbp_v2_make(0, 0);
}

/* The root search of a step's bound g (rot_gap, fixed_gap, gap_after): g
 * positive at 0 (g0) and at h0; every h returned has g(h) > 0, which with
 * the bound's shape (concave in s on [0, h]) proves [0, h]. An upper end
 * first: the root of the secant through the last two positive points,
 * which for a concave g lies at or beyond its root (so one evaluation
 * usually brackets it; a positive value there moves on, up to 3 times),
 * then regula falsi from the positive side, each chord's root taken a
 * hair before (where g is linear the root itself has g = 0). Returns the
 * largest h found, or 0 when g(h0) is not positive. */
typedef double (*sweep_bound_fn)(const void *ctx, double h);

/* inlined into each caller, so that its bound is a direct call (inlined
 * in turn), not one through a pointer per evaluation */
#define HOT_INLINE static inline __attribute__((always_inline))
HOT_INLINE double bound_search(sweep_bound_fn g, const void *ctx, double g0, double h0, int chords, double target,
                               double *g_end)
{
    double good = h0, g_good = g(ctx, h0);
    *g_end = INFINITY;
    if (!(g_good > 0))
        return 0;
    double prev = 0, g_prev = g0, hi = INFINITY, g_hi = 0;
    for (int k = 0; k < 3 && good < 1; k++) {
        double x = g_prev > g_good ? good + g_good * (good - prev) / (g_prev - g_good) : 2 * good;
        if (!(x > good))
            break;
        double gx = g(ctx, x);
        if (gx > 0) {
            prev = good, g_prev = g_good, good = x, g_good = gx;
        } else {
            hi = x, g_hi = gx;
            break;
        }
    }
    for (int k = 0; (k < chords || (g_good > target && k < SWEEP2D_CHORDS_MAX)) && hi < INFINITY && good < 1; k++) {
        double x = good + (g_good / (g_good - g_hi)) * (1 - 0x1p-30) * (hi - good);
        if (!(x > good && x < hi))
            break;
        double gx = g(ctx, x);
        if (gx > 0)
            good = x, g_good = gx;
        else
            hi = x, g_hi = gx;
    }
    *g_end = g_good;
    return good;
}

/* The second-order bound on the gap along the unit n after a further h
 * (of t), minus rr + e: each vertex v of a body turning by w about its
 * origin c and moving by dT projects at h to n.v + h (n.dT + w n.perp(v -
 * c)) up to w^2 |v - c| h^2 / 2 (the second derivative of a rotation), so
 * the gap is at least the least B vertex's line less the greatest A
 * vertex's line less K h^2 (K: both bodies' w^2 rho / 2), less the
 * rounding of those lines (8 ulps of mu h). Concave in h: positive at h
 * and at 0, it is positive on [0, h]. */
static double gap_after(const body *a, const body *b, double h, double k, double slack, double mu)
{
    const kcbp_vec2 *la = a->lines, *lb = b->lines;
    double amax = -INFINITY, bmin = INFINITY;
    for (uint32_t i = 0; i < a->pts.n; i++)
        amax = MAX2(amax, la[i].x + h * la[i].y);
    for (uint32_t i = 0; i < b->pts.n; i++)
        bmin = MIN2(bmin, lb[i].x + h * lb[i].y);
    return (bmin - amax) - k * h * h - slack - 0x1p-50 * mu * h;
}

typedef struct {
    const body *a, *b;
    double k, slack, mu;
} gap_ctx;

static double gap_after_fn(const void *ctx, double h)
{
    const gap_ctx *c = ctx;
    return gap_after(c->a, c->b, h, c->k, c->slack, c->mu);
}

/* gap_after's lines along n: x = n . v, y = n . dT + w n . perp(v - c).
 * Returns the greatest x (sign 1) or the least (sign -1). */
static double make_lines(body *c, const kcbp2d_pose *p, kcbp_vec2 n, double sign)
{
    double rt = kcbp_v2_dot(n, c->dtrans), m = -INFINITY;
    for (uint32_t i = 0; i < c->pts.n; i++) {
        kcbp_vec2 v = c->pts.v[i], r = kcbp_v2_sub(v, p->trans);
        c->lines[i] = kcbp_v2_make(kcbp_v2_dot(n, v), rt + c->w * kcbp_v2_dot(n, kcbp_v2_perp(r)));
        m = MAX2(m, sign * c->lines[i].x);
    }
    return sign * m;
}

/* The gap along an axis fixed in a turning body Y, for a body X that does
 * not turn: n(h) = R(w h) n0 (n0 unit, from X toward Y, an edge normal of
 * Y, w Y's turn). In Y's frame Y's projections are constant (n0 . (v -
 * c_Y)), and X's vertex v, at d = v - c_Y, projects at
 *   f(h) = n0 . R(-wh) (d - h D) = (alpha cos x + beta sin x) - h (gamma
 *   cos x + delta sin x),  x = w h,
 * with D = dT_Y - dT_X, alpha = n0.d, beta = perp(n0).d, gamma = n0.D,
 * delta = perp(n0).D. With, for every real x, cos x - (1 - x^2/2 +
 * x^4/24) in [-x^6/720, 0] and cos x - (1 - x^2/2) in [0, x^4/24] (the
 * cosine's Taylor polynomials alternate above and below it), |sin x - x +
 * x^3/6| <= |x|^5/120 (Lagrange's remainder):
 *   f(h) <= alpha + c1 h + c2 h^2 + c3 h^3 + c4 h^4 + r5 h^5 + r6 h^6,
 * c1 = beta w - gamma, c2 = -alpha w^2/2 - delta w, c3 = -beta w^3/6 +
 * gamma w^2/2, c4 = alpha w^4/24 + delta w^3/6 (f's Taylor coefficients:
 * exact to the fourth order, either sign), and the remainders r5 =
 * |beta| |w|^5/120 + max(-gamma, 0) w^4/24, r6 = max(-alpha, 0) w^6/720 +
 * |delta| |w|^5/120, taken for all of X's vertices at their largest. (The
 * second order was bounded by max(-alpha, 0) w^2/2 + max(-delta w, 0):
 * a step that ends where the axis's gap closes then landed up to alpha
 * x^2/2 short of it, 1e-6 to 1e-4 on the usual last steps, one step more.)
 * Where c2, c3 or c4 < 0 the bound is not convex; for a candidate h, c_k
 * s^k is replaced by its tangent at h, which lies above it for s >= 0:
 * convex in s, equal at h, and at s = 0 larger by (k - 1) |c_k| h^k. So
 * the gap (Y's least projection less X's greatest bound, less slack and
 * the rounding: 2^-44 of the terms' magnitudes, 2^-50 mu h, and the
 * rounding of alpha, beta (2^-48 of |d|) and gamma, delta (2^-48 of |D|)
 * times the powers of x they multiply) is concave in s on [0, h]: if
 * positive at 0 and at h (rot_gap: the lesser), it is positive on [0, h].
 * Returns the largest h found so (from h0, proven by the caller's bounds,
 * by bound_search), or 0. */
static double rot_gap(const body *x, double h, double miny, double slack)
{
    const sweep_line4 *l = x->lines4;
    const kcbp_vec2 *l5 = x->lines;
    const double *r = x->lines4_rem;
    double m = -INFINITY, h2 = h * h;
    for (uint32_t i = 0; i < x->pts.n; i++)
        m = MAX2(m, l[i].p + h * (l[i].q + h * (l[i].a + h * (l[i].b + h * l5[i].x))));
    /* at s = 0: the tangents' excess, bounded by its largest terms */
    double m0 = x->lines4_pmax + h2 * (x->lines4_neg2 + h * (2 * x->lines4_neg3 + h * 3 * x->lines4_neg4));
    /* the remainders and the rounding allowance, one polynomial (rot_step) */
    double rem = h * (r[1] + h * (r[2] + h * (r[3] + h * (r[4] + h * (r[5] + h * r[6])))));
    return miny - (MAX2(m, m0) + rem) - slack;
}

/* What a step's gap bound (rot_gap, fixed_gap) reads, for bound_search. */
typedef struct {
    const body *x;
    double miny, slack;
} step_ctx;

static double rot_gap_fn(const void *ctx, double h)
{
    const step_ctx *c = ctx;
    return rot_gap(c->x, h, c->miny, c->slack);
}

static double rot_step(body *x, const body *y, const kcbp2d_pose *py, kcbp_vec2 n0, double h0, double slack,
                       double mu, double target, double *g_end)
{
    *g_end = INFINITY;
    const kcbp2d_core *cy = &y->pts, *cx = &x->pts;
    kcbp_vec2 pn = kcbp_v2_perp(n0);
    double miny = INFINITY;
    for (uint32_t j = 0; j < cy->n; j++)
        miny = MIN2(miny, kcbp_v2_dot(n0, kcbp_v2_sub(cy->v[j], py->trans)));
    kcbp_vec2 dd = kcbp_v2_sub(y->dtrans, x->dtrans);
    double gamma = kcbp_v2_dot(n0, dd), delta = kcbp_v2_dot(pn, dd);
    double w = y->w, aw = fabs(w);
    if (!(aw > 0 && aw <= SWEEP2D_TURN_MAX))
        return 0;
    double w2 = w * w, w3 = w2 * w, w4 = w2 * w2, aw5 = w4 * aw;
    double k2 = -delta * w, k3 = gamma * w2 * 0.5, k4 = delta * w3 * (1.0 / 6);
    double dmax = 0, pmax = -INFINITY, neg2 = 0, neg3 = 0, neg4 = 0, amin = 0, bab = 0, *ab = x->lines4_abs;
    sweep_line4 *l = x->lines4;
    kcbp_vec2 *l5 = x->lines;
    for (uint32_t i = 0; i < cx->n; i++) {
        kcbp_vec2 d = kcbp_v2_sub(cx->v[i], py->trans);
        double alpha = kcbp_v2_dot(n0, d), beta = kcbp_v2_dot(pn, d);
        l[i].p = alpha;
        l[i].q = beta * w - gamma;
        l[i].a = -alpha * w2 * 0.5 + k2;
        l[i].b = -beta * w3 * (1.0 / 6) + k3;
        l5[i].x = alpha * w4 * (1.0 / 24) + k4;
        dmax = MAX2(dmax, fabs(d.x) + fabs(d.y));
        amin = MIN2(amin, alpha), bab = MAX2(bab, fabs(beta));
        pmax = MAX2(pmax, alpha), neg2 = MAX2(neg2, -l[i].a), neg3 = MAX2(neg3, -l[i].b);
        neg4 = MAX2(neg4, -l5[i].x);
    }
    /* each order's magnitude, bounded through |alpha|, |beta| <= dmax */
    ab[1] = dmax * aw + fabs(gamma), ab[2] = dmax * w2 * 0.5 + fabs(k2);
    ab[3] = dmax * aw * w2 * (1.0 / 6) + fabs(k3), ab[4] = dmax * w4 * (1.0 / 24) + fabs(k4);
    ab[5] = (bab * aw5 * (1.0 / 120) + MAX2(-gamma, 0.0) * w4 * (1.0 / 24)) * SPEED_PAD;
    ab[6] = (-amin * (w4 * w2) * (1.0 / 720) + fabs(delta) * aw5 * (1.0 / 120)) * SPEED_PAD;
    x->lines4_pmax = pmax, x->lines4_neg2 = neg2, x->lines4_neg3 = neg3, x->lines4_neg4 = neg4;
    /* rounding: alpha and beta within 2^-48 of |d| (d rounded once), gamma
     * and delta of |D|, which multiply h = x / w */
    double alw = 0x1p-48 * (dmax + (fabs(dd.x) + fabs(dd.y)) / aw);
    if (!isfinite(alw))
        return 0;
    /* per power of h: the remainders (5, 6), 2^-44 of each order's
     * magnitude (the coefficients' and the evaluation's rounding), alw
     * times w^k (1 to 5), 2^-50 mu (1) */
    double *r = x->lines4_rem, wk = 1;
    for (int k = 1; k <= 6; k++) {
        wk *= aw;
        r[k] = 0x1p-44 * ab[k] + (k <= 5 ? alw * wk : 0);
    }
    r[1] += 0x1p-50 * mu, r[5] += ab[5], r[6] += ab[6];
    step_ctx c = {x, miny, slack};
    double g0 = miny - pmax - slack; /* rot_gap at 0 (where finite: else g(h0) is not positive) */
    if (!(g0 > 0))
        return 0;
    return bound_search(rot_gap_fn, &c, g0, h0, SWEEP2D_CHORDS, target, g_end);
}

/* The gap along a direction fixed in the world, for a body X that turns
 * (w) and a body Y that does not: n (unit, from X toward Y) stays, Y's
 * projections move linearly, and X's vertex v, at r = v - c_X, projects at
 *   f(h) = n.v - gamma h + alpha (cos x - 1) + beta sin x,  x = w h,
 * with gamma = n.(dT_Y - dT_X), alpha = n.r, beta = n.perp(r). With
 * cos x - 1 + x^2/2 in [0, x^4/24] and |sin x - x + x^3/6| <= |x|^5/120:
 *   f(h) <= Q(h) = p + c1 h + c2 h^2 + c3 h^3 + c4 h^4 + c5 h^5,
 * p = n.v, c1 = beta w - gamma, c2 = -alpha w^2/2, c3 = -beta w^3/6,
 * c4 = max(alpha, 0) w^4/24, c5 = |beta| |w|^5/120: exact to the fourth
 * order (gap_after's bound, the same for every vertex, is exact to the
 * first). c2 and c3 may be negative (Q not convex); for a candidate h the
 * concave terms c_k s^k are replaced by their tangents at h, which lie
 * above them for all s >= 0: the result is convex in s, equal to Q at h,
 * and at 0 exceeds p by sum (k - 1) |c_k| h^k over those k. The gap's
 * bound (Y's least projection less X's greatest, less the slack and the
 * rounding allowance, convex and increasing in s) is then concave in s on
 * [0, h]: positive at 0 and at h, it is positive on [0, h], which is what
 * fixed_gap checks. Returns the largest h found so (from h0, by
 * bound_search), or 0. */
static double fixed_gap(const body *x, double h, double miny, double slack)
{
    const sweep_line4 *l4 = x->lines4;
    const kcbp_vec2 *l2 = x->lines;
    const double *r = x->lines4_rem;
    double m_h = -INFINITY, h2 = h * h, h3 = h2 * h;
    for (uint32_t i = 0; i < x->pts.n; i++)
        m_h = MAX2(m_h, l4[i].p + h * (l4[i].q + h * (l4[i].a + h * (l4[i].b + h * (l2[i].x + h * l2[i].y)))));
    /* at s = 0, the tangents' excess, bounded by its largest terms */
    double m_0 = x->lines4_pmax + x->lines4_neg2 * h2 + 2 * x->lines4_neg3 * h3;
    /* the rounding allowance, one polynomial (fixed_step) */
    double err = h * (r[1] + h * (r[2] + h * (r[3] + h * (r[4] + h * r[5]))));
    return miny - MAX2(m_h, m_0) - slack - err;
}

static double fixed_gap_fn(const void *ctx, double h)
{
    const step_ctx *c = ctx;
    return fixed_gap(c->x, h, c->miny, c->slack);
}

static double fixed_step(body *x, const body *y, const kcbp2d_pose *px, kcbp_vec2 n, double h0, double slack,
                         double mu, double target, double *g_end)
{
    *g_end = INFINITY;
    const kcbp2d_core *cy = &y->pts, *cx = &x->pts;
    double miny = INFINITY;
    for (uint32_t j = 0; j < cy->n; j++)
        miny = MIN2(miny, kcbp_v2_dot(n, cy->v[j]));
    kcbp_vec2 dd = kcbp_v2_sub(y->dtrans, x->dtrans);
    double gamma = kcbp_v2_dot(n, dd);
    double w = x->w, aw = fabs(w), w2 = w * w, w3 = w2 * w, w4 = w2 * w2, aw5 = w4 * aw;
    double dmax = 0, pmax = -INFINITY, neg2 = 0, neg3 = 0, *ab = x->lines4_abs;
    sweep_line4 *l4 = x->lines4;
    kcbp_vec2 *l2 = x->lines;
    for (uint32_t i = 0; i < cx->n; i++) {
        kcbp_vec2 r = kcbp_v2_sub(cx->v[i], px->trans);
        double alpha = kcbp_v2_dot(n, r), beta = kcbp_v2_dot(n, kcbp_v2_perp(r));
        l4[i].p = kcbp_v2_dot(n, cx->v[i]);
        l4[i].q = beta * w - gamma;
        l4[i].a = -alpha * w2 * 0.5;
        l4[i].b = -beta * w3 * (1.0 / 6);
        l2[i].x = MAX2(alpha, 0.0) * w4 * (1.0 / 24) * SPEED_PAD;
        l2[i].y = fabs(beta) * aw5 * (1.0 / 120) * SPEED_PAD;
        dmax = MAX2(dmax, fabs(r.x) + fabs(r.y));
        pmax = MAX2(pmax, l4[i].p), neg2 = MAX2(neg2, -l4[i].a), neg3 = MAX2(neg3, -l4[i].b);
    }
    /* each order's magnitude, bounded through |alpha|, |beta| <= dmax */
    ab[1] = dmax * aw + fabs(gamma), ab[2] = dmax * w2 * 0.5, ab[3] = dmax * aw * w2 * (1.0 / 6);
    ab[4] = dmax * w4 * (1.0 / 24) * SPEED_PAD, ab[5] = dmax * aw5 * (1.0 / 120) * SPEED_PAD;
    x->lines4_pmax = pmax, x->lines4_neg2 = neg2, x->lines4_neg3 = neg3;
    /* rounding: alpha and beta are off by a few ulps of |r| and |c_X| (r
     * rounded once), each coefficient by a few ulps of itself (2^-44 of
     * their absolute sum), gamma by ulps of |dT| (within 2^-50 mu) */
    double alw = 0x1p-46 * (dmax + fabs(px->trans.x) + fabs(px->trans.y)) + 0x1p-50 * mu / (aw > 0 ? aw : 1);
    if (!(aw > 0 && aw <= SWEEP2D_TURN_MAX) || !isfinite(alw))
        return 0;
    /* per power of h: 2^-44 of each order's magnitude, alw times w^k */
    double *r = x->lines4_rem, wk = 1;
    for (int k = 1; k <= 5; k++) {
        wk *= aw;
        r[k] = 0x1p-44 * ab[k] + alw * wk;
    }
    step_ctx c = {x, miny, slack};
    double g0 = miny - pmax - slack; /* fixed_gap at 0 (where finite: else g(h0) is not positive) */
    if (!(g0 > 0))
        return 0;
    return bound_search(fixed_gap_fn, &c, g0, h0, SWEEP2D_CHORDS, target, g_end);
}

static void measure_convex(body *a, body *b, const kcbp2d_pose *pa, const kcbp2d_pose *pb, double e, double spin,
                           double near, double near_d, measure *out)
{
    if (!a->still || !a->pts_valid)
        pose_points(a, pa), a->pts_valid = true;
    if (!b->still || !b->pts_valid)
        pose_points(b, pb), b->pts_valid = true;
    const kcbp2d_core *ca = &a->pts, *cb = &b->pts;
    kcbp2d_gjk_out g;
    /* warm start: from the last step's simplex (its first step: from the
     * supports along B's offset from A) */
    if (out->gc.n == 0) {
        kcbp_vec2 d = kcbp_v2_sub(pb->trans, pa->trans);
        if (d.x != 0 || d.y != 0)
            out->gc.n = 1, out->gc.ia[0] = support_of(ca, d), out->gc.ib[0] = support_of(cb, kcbp_v2_neg(d));
    }
    /* the simplex's points (not measured again: a direction for the bounds
     * below, which hold for any; measure_points when near) */
    kcbp2d_gjk_warm(ca, cb, &out->gc, KCBP2D_GJK_MAX_ITERATIONS_DEFAULT, false, &g);
    double rr = ca->r + cb->r;
    out->lower = -INFINITY;
    out->dist = 0;
    out->step = 0;
    out->have_points = false;
    out->win = -1;
    out->land = INFINITY;
    out->near = false;
    /* GJK found the cores overlapping (or too near to tell): left to the
     * exact test of the caller (lower stays -INFINITY) */
    if (!g.overlap) {
        out->dist = MAX2(g.distance - rr, 0.0);
        kcbp_vec2 u = kcbp_v2_sub(g.pb, g.pa);
        double ul = sqrt(u.x * u.x + u.y * u.y); /* 0 on underflow: left to the exact test */
        if (ul > 0) {
            /* Candidate directions, each giving a proven bound: the closest
             * points' (whose direction loses accuracy as the distance
             * shrinks: a rounding of the points over the distance), and the
             * normals of the edges at both supports along it (one of them is
             * the exact separating direction at a vertex-edge contact). */
            out->have_points = true;
            out->pa = kcbp_v2_add(g.pa, kcbp_v2_scale(kcbp_v2_scale(u, 1 / ul), ca->r));
            out->pb = kcbp_v2_sub(g.pb, kcbp_v2_scale(kcbp_v2_scale(u, 1 / ul), cb->r));
            out->n = kcbp_v2_scale(u, 1 / ul);
            if (near < INFINITY && out->dist <= near_d) { /* the last step's bound proved near: the exact test next */
                out->lower = near;
                out->near = true;
                return;
            }
            kcbp_vec2 un = kcbp_v2_scale(u, 1 / ul), dirs[2] = {un, un};
            int nd = 1;
            const kcbp2d_gjk_cache *gc = &out->gc;
            const kcbp2d_core *cc[4] = {ca, ca, cb, cb};
            uint32_t ce[4];
            double best_r = 0, best_l2 = 1;
            int win = -1;
            /* a vertex against an edge of the last simplex (the usual case):
             * that edge, whose normal is the closest points' direction (the
             * search below would choose it), when its ends are adjacent */
            if (gc->n == 2 && (gc->ia[0] == gc->ia[1]) != (gc->ib[0] == gc->ib[1])) {
                int side = gc->ia[0] == gc->ia[1];
                const kcbp2d_core *c = side ? cb : ca;
                uint32_t e0 = side ? gc->ib[0] : gc->ia[0], e1 = side ? gc->ib[1] : gc->ia[1];
                uint32_t edge = (e0 + 1 < c->n ? e0 + 1 : 0) == e1 ? e0 : (e1 + 1 < c->n ? e1 + 1 : 0) == e0 ? e1 : c->n;
                if (c->n >= 3 && edge < c->n) {
                    kcbp_vec2 ed = kcbp_v2_sub(c->v[edge + 1 < c->n ? edge + 1 : 0], c->v[edge]);
                    double r = ed.y * un.x - ed.x * un.y;
                    if (side ? r < 0 : r > 0)
                        win = side ? 3 : 1, ce[win] = edge;
                }
            }
            int search = win < 0 ? 4 : 0;
            if (search) {
                /* the supports along u: GJK's last simplex holds them (its
                 * features, s[0] and s[n - 1]: the better of the two ends) */
                uint32_t ia = gc->ia[0], ib = gc->ib[0];
                if (gc->n == 2) {
                    if (kcbp_v2_dot(u, ca->v[gc->ia[1]]) > kcbp_v2_dot(u, ca->v[ia]))
                        ia = gc->ia[1];
                    if (kcbp_v2_dot(u, cb->v[gc->ib[1]]) < kcbp_v2_dot(u, cb->v[ib]))
                        ib = gc->ib[1];
                }
                if (gc->n < 1 || gc->n > 2)
                    ia = support_of(ca, u), ib = support_of(cb, kcbp_v2_neg(u));
                /* the edge normal nearest the closest points' direction:
                 * cos = (perp(e) . un) / |e|, compared by squares, so that only
                 * the winner is normalised (as edge_normal) */
                ce[0] = ca->n >= 2 ? (ia > 0 ? ia : ca->n) - 1 : 0, ce[1] = ia;
                ce[2] = cb->n >= 2 ? (ib > 0 ? ib : cb->n) - 1 : 0, ce[3] = ib;
            }
            for (int k = 0; k < search; k++) {
                const kcbp2d_core *c = cc[k];
                if (c->n < 2)
                    continue;
                kcbp_vec2 ed = kcbp_v2_sub(c->v[ce[k] + 1 < c->n ? ce[k] + 1 : 0], c->v[ce[k]]);
                double r = ed.y * un.x - ed.x * un.y, l2 = ed.x * ed.x + ed.y * ed.y;
                if (k >= 2)
                    r = -r; /* B's normals turned toward A */
                if (r > 0 && l2 > 0 && (win < 0 || r * r * best_l2 > best_r * best_r * l2))
                    best_r = r, best_l2 = l2, win = k;
            }
            if (win >= 0) {
                kcbp_vec2 en = edge_normal(cc[win], ce[win]);
                dirs[1] = win >= 2 ? kcbp_v2_neg(en) : en, nd = 2;
            }
            kcbp_vec2 dt = kcbp_v2_sub(b->dtrans, a->dtrans);
            double dterr = 0x1p-50 * (fabs(dt.x) + fabs(dt.y));
            out->step = 0;
            /* the projections' gaps on the unit directions (both in one
             * pass over the vertices): lower bounds on the cores' distance,
             * for these coordinates and for any later pose (each shrinks at
             * most closing per unit t) */
            double amax[2] = {-INFINITY, -INFINITY}, bmin[2] = {INFINITY, INFINITY};
            kcbp_vec2 d0 = dirs[0], d1 = dirs[1];
            int k0 = 0;
            if (!search) { /* the simplex's edge: its normal alone (the closest points' direction up to their rounding) */
                k0 = 1;
                for (uint32_t i = 0; i < ca->n; i++)
                    amax[1] = MAX2(amax[1], kcbp_v2_dot(d1, ca->v[i]));
                for (uint32_t i = 0; i < cb->n; i++)
                    bmin[1] = MIN2(bmin[1], kcbp_v2_dot(d1, cb->v[i]));
            } else {
                for (uint32_t i = 0; i < ca->n; i++)
                    amax[0] = MAX2(amax[0], kcbp_v2_dot(d0, ca->v[i])),
                    amax[1] = MAX2(amax[1], kcbp_v2_dot(d1, ca->v[i]));
                for (uint32_t i = 0; i < cb->n; i++)
                    bmin[0] = MIN2(bmin[0], kcbp_v2_dot(d0, cb->v[i])),
                    bmin[1] = MIN2(bmin[1], kcbp_v2_dot(d1, cb->v[i]));
            }
            for (int k = k0; k < nd; k++) {
                kcbp_vec2 n = dirs[k];
                if (!(kcbp_v2_dot(n, u) > 0))
                    continue;
                double lower = (bmin[k] - amax[k]) - rr - e;
                /* -n . dT, rounded: its error is below 8 ulps of |dT| */
                double closing = (-kcbp_v2_dot(n, dt) + dterr + spin) * SPEED_PAD;
                double step = lower > 0 ? (closing > 0 ? lower / closing : INFINITY) : 0;
                if (lower > out->lower)
                    out->lower = lower, out->n = n;
                out->step = MAX2(out->step, step);
            }
            out->win = win;
            out->win_edge = win >= 0 ? ce[win] : 0;
        }
    }
}

/* The step's refinements, for a body that turns (after measure_convex, on
 * the points it posed at t: pa, pb): the carried axis (rot_step) and the
 * second-order bound along n (gap_after); each only lengthens out->step
 * with a step its own bound proves. Skipped on a step that ends the sweep
 * (near contact, confirmed): the refined step is not taken there. */
static void refine_convex(body *a, body *b, const kcbp2d_pose *pa, const kcbp2d_pose *pb, double e, double spin,
                          double mu, double target, measure *out)
{
    if (!out->have_points)
        return;
    const kcbp2d_core *ca = &a->pts, *cb = &b->pts;
    const kcbp2d_core *cc[4] = {ca, ca, cb, cb};
    double rr = ca->r + cb->r;
    int win = out->win;
    bool rot_done = false;
    /* One body turning, the other not: the edge's normal carried
     * round with the turning body (rot_step). */
    if (win >= 0 && out->lower > 0 && out->step > 0 && out->step < 1) {
        body *y = win >= 2 ? b : a, *x = win >= 2 ? a : b;
        if (y->w != 0 && x->w == 0) {
            kcbp_vec2 n0 = kcbp_v2_neg(edge_normal(cc[win], out->win_edge));
            double ge, hs = rot_step(x, y, win >= 2 ? pb : pa, n0, out->step, rr + e, mu, target, &ge);
            rot_done = hs > out->step;
            if (rot_done)
                out->step = hs, out->land = ge;
        }
    }
    /* Turning, the first-order step is short where the support
     * vertices move across n: the second-order bound's root, by
     * doubling h while the bound stays positive, then regula falsi
     * between the last positive h and the first negative one (the
     * bound is concave, so the chord's root keeps it positive). */
    /* One body turning, the other not: the best direction held fixed
     * (fixed_step: per vertex, to the fourth order). */
    if (!rot_done && (a->w == 0) != (b->w == 0) && out->lower > 0 && out->step > 0 && out->step < 1) {
        body *x = a->w != 0 ? a : b, *y = a->w != 0 ? b : a;
        kcbp_vec2 nx = a->w != 0 ? out->n : kcbp_v2_neg(out->n); /* from X toward Y */
        /* the still body's edge among the candidates: its normal, the exact
         * axis of a contact of X's vertex with that edge (out->n may be the
         * closest points' direction, whose error over the step left its end
         * short of the stopping distance: 3.05 -> 3.00 steps) */
        if (win >= 0 && (win >= 2) == (y == b))
            nx = kcbp_v2_neg(edge_normal(cc[win], out->win_edge));
        double ge, hs = fixed_step(x, y, a->w != 0 ? pa : pb, nx, out->step, rr + e, mu, target, &ge);
        rot_done = hs > out->step;
        if (rot_done)
            out->step = hs, out->land = ge;
    }
    if (!rot_done && spin > 0 && out->lower > 0 && out->step > 0 && isfinite(out->step)) {
        double k = (a->w * a->w * a->rho + b->w * b->w * b->rho) * 0.5 * SPEED_PAD;
        double amax = make_lines(a, pa, out->n, 1), bmin = make_lines(b, pb, out->n, -1);
        gap_ctx c = {a, b, k, rr + e, mu};
        double g0 = (bmin - amax) - (rr + e); /* gap_after at 0 */
        double ge = INFINITY, hs = g0 > 0 ? bound_search(gap_after_fn, &c, g0, out->step, SWEEP2D_CHORDS, target, &ge) : 0;
        if (hs > out->step)
            out->step = hs, out->land = ge;
    }
}

/* The point of segment [q0, q1] nearest p (the projection, clamped), by
 * squares: false when the segment's squared length is 0 or near the
 * range's ends (then kcbp2d_cp_seg_seg, without squares). */
static bool point_seg(kcbp_vec2 p, kcbp_vec2 q0, kcbp_vec2 q1, kcbp_vec2 *q)
{
    kcbp_vec2 e = kcbp_v2_sub(q1, q0);
    double ee = e.x * e.x + e.y * e.y;
    if (!(ee >= 1e-280 && ee <= 1e280))
        return false;
    double s = kcbp_v2_dot(kcbp_v2_sub(p, q0), e) / ee;
    *q = s <= 0 ? q0 : s >= 1 ? q1 : kcbp_v2_add(q0, kcbp_v2_scale(e, s));
    return true;
}

/* Near contact: the closest points and their distance measured on the
 * last simplex's features as a segment pair (kcbp2d_gjk's measure: a
 * distance attained by points of the cores), for the report and the
 * choice of where to confirm. */
static void measure_points(const body *a, const body *b, measure *m)
{
    const kcbp2d_core *ca = &a->pts, *cb = &b->pts;
    const kcbp2d_gjk_cache *c = &m->gc;
    if (c->n < 1)
        return;
    kcbp_vec2 ga, gb, a0 = ca->v[c->ia[0]], a1 = ca->v[c->ia[c->n - 1]], b0 = cb->v[c->ib[0]],
                      b1 = cb->v[c->ib[c->n - 1]];
    double d = -1;
    /* a vertex against an edge (the usual end): the vertex's projection on
     * the edge, clamped (kcbp2d_cp_seg_seg's least candidate there), by
     * squares where none can underflow or overflow */
    if (c->ia[0] == c->ia[c->n - 1] && point_seg(a0, b0, b1, &gb))
        ga = a0, d = 0;
    else if (c->ib[0] == c->ib[c->n - 1] && point_seg(b0, a0, a1, &ga))
        gb = b0, d = 0;
    kcbp_vec2 u;
    double ul;
    if (d == 0) {
        u = kcbp_v2_sub(gb, ga);
        double uu = u.x * u.x + u.y * u.y;
        if (uu >= 1e-280 && uu <= 1e280)
            d = ul = sqrt(uu);
        else
            d = -1;
    }
    if (d < 0) {
        d = kcbp2d_cp_seg_seg(a0, a1, b0, b1, &ga, &gb);
        u = kcbp_v2_sub(gb, ga);
        ul = sqrt(u.x * u.x + u.y * u.y);
    }
    if (!(ul > 0))
        return; /* the simplex's points stay */
    kcbp_vec2 un = kcbp_v2_scale(u, 1 / ul);
    m->dist = fmax(d - (ca->r + cb->r), 0.0);
    m->pa = kcbp_v2_add(ga, kcbp_v2_scale(un, ca->r));
    m->pb = kcbp_v2_sub(gb, kcbp_v2_scale(un, cb->r));
}

static kcbp_status measure_models(const body *a, const body *b, const kcbp2d_pose *pa, const kcbp2d_pose *pb,
                                  double e, double mu, measure *out, kcbp_error *err)
{
    kcbp_status st = b->model ? kcbp2d_model_distance(a->model, pa, b->model, pb, &out->md, err)
                              : kcbp2d_model_shape_distance(a->model, pa, b->shape, pb, &out->md, err);
    if (st != KCBP_OK)
        return st;
    out->dist = out->md.collide ? 0 : out->md.distance;
    out->lower = out->md.collide ? -INFINITY : out->md.distance - e;
    out->step = out->lower > 0 ? out->lower / mu : 0;
    return KCBP_OK;
}

static kcbp_vec2 unit_or(kcbp_vec2 d, kcbp_vec2 fallback)
{
    double l = kcbp_v2_len(d);
    return l > 0 && isfinite(l) ? kcbp_v2_scale(d, 1 / l) : fallback;
}

/* The report at toi: distance, points, normal and edges. */
static kcbp_status fill_hit(const body *a, const body *b, const kcbp2d_pose *pa, const kcbp2d_pose *pb,
                            const measure *m, kcbp_vec2 last_normal, kcbp2d_sweep_result *r, kcbp_error *err)
{
    r->edge_a = r->edge_b = UINT32_MAX;
    if (a->shape && m->have_points) { /* the last step's GJK points, on the inflated shapes */
        r->distance = m->dist;
        r->point_a = m->pa;
        r->point_b = m->pb;
        r->normal = m->n;
        return KCBP_OK;
    }
    if (a->shape) {
        kcbp2d_distance_result d;
        kcbp_status st = kcbp2d_distance(a->shape, pa, b->shape, pb, NULL, &d, err);
        if (st != KCBP_OK)
            return st;
        r->distance = d.distance;
        r->point_a = d.point_a;
        r->point_b = d.point_b;
        r->normal = d.normal;
        return KCBP_OK;
    }
    const kcbp2d_model_distance_result *d = &m->md;
    r->distance = d->collide ? 0 : d->distance;
    r->point_a = d->point_a;
    r->point_b = d->point_b;
    if (d->edge_a != UINT32_MAX) {
        r->edge_a = d->edge_a;
        r->edge_b = b->model ? d->edge_b : UINT32_MAX;
    }
    r->normal = unit_or(kcbp_v2_sub(d->point_b, d->point_a), last_normal);
    return KCBP_OK;
}

static kcbp_status sweep(body *a, body *b, const kcbp2d_sweep_options *options, kcbp2d_sweep_result *result,
                         size_t result_size, kcbp_error *err)
{
    kcbp2d_sweep_result r;
    memset(&r, 0, sizeof r);
    r.edge_a = r.edge_b = UINT32_MAX;
    r.normal = kcbp_v2_make(0, 1);
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    if (result && out_size)
        memcpy(result, &r, out_size);
    if (!result || result_size < RESULT_V1_SIZE)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: result of size %zu, too small", result_size);
    kcbp2d_sweep_options o;
    kcbp2d_sweep_options_init(&o, (uint32_t)sizeof o);
    kcbp_status st;
    if (options && (st = kcbp_options_copy_in(&o, sizeof o, options, OPTIONS_V1_SIZE, "2D sweep",
                                              "kcbp2d_sweep_options_default", err)) != KCBP_OK)
        return st;
    if (!(o.t_tolerance > 0 && o.t_tolerance <= 0.5) || o.max_iterations < 1)
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "2D sweep: t_tolerance %g not in (0, 0.5] or max_iterations %d < 1", o.t_tolerance,
                              o.max_iterations);
    if ((st = body_init(a, "A", err)) != KCBP_OK || (st = body_init(b, "B", err)) != KCBP_OK)
        return st;

    double spin = (a->spin + b->spin) * SPEED_PAD;
    /* kcbp2d_len: 1.5 ulps at most, within SPEED_PAD */
    double mu = (kcbp2d_len(a->dtrans) + kcbp2d_len(b->dtrans) + a->spin + b->spin) * SPEED_PAD;
    r.motion_bound = mu;
    if (!isfinite(mu))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: the motion is not finite");
    bool convex = a->shape && b->shape;
    double t = 0;
    int confirm_left = SWEEP2D_CONFIRM_MAX;
    kcbp_vec2 last_normal = kcbp_v2_make(0, 1);
    measure m;
    memset(&m, 0, sizeof m);
    m.land = INFINITY;
    kcbp2d_pose pa, pb;
    pa = a->pose0; /* a still A stays there */
    /* a shape translating against a still model: when the steps crawl (a
     * rounded shape grazing a corner: the distance falls as the square of
     * the time left: each step shorter than the last by a hair), the
     * swept hull's exact test jumps (a few times: sweep2d_swept.c) */
    bool translating = b->fixed_turn || b->spin == 0; /* a circle about its centre turns in place */
    int swept_left = !convex && a->model && a->still && b->shape && translating && !b->still ? 4 : 0;
    double last_step = INFINITY;
    for (;;) {
        if (r.iterations >= o.max_iterations) {
            r.undecided = true;
            r.toi = r.free_until = t;
            break;
        }
        r.iterations++;
        if ((!a->still && (st = step_pose_at(a, t, &pa, err)) != KCBP_OK) ||
            (st = step_pose_at(b, t, &pb, err)) != KCBP_OK)
            return st;
        double reach = a->rho + max_abs(pa.trans) * 2 + a->radius + b->rho + max_abs(pb.trans) * 2 +
                       b->radius;
        double e = SWEEP2D_ERR * 0x1p-53 * reach;
        double stop_d = MAX2(mu * o.t_tolerance, 2 * e);
        /* the last step's bound at its end, less the rounding of t: when
         * within half the stopping distance, GJK alone (for the report's
         * points), then the exact test; measured in full if that fails */
        double near = m.land - 0x1p-51 * mu;
        near = convex && near <= SWEEP2D_TARGET * stop_d ? near : INFINITY;
        if (convex)
            measure_convex(a, b, &pa, &pb, e, spin, near, stop_d, &m);
        else if ((st = measure_models(a, b, &pa, &pb, e, mu, &m, err)) != KCBP_OK)
            return st;
        r.distance_queries++;
        if (!convex && !m.md.collide && m.md.distance > 0)
            last_normal = unit_or(kcbp_v2_sub(m.md.point_b, m.md.point_a), last_normal);
        if (!(m.lower > stop_d)) {
            if (convex && m.have_points)
                measure_points(a, b, &m);
            /* Near enough: confirm a contact with the exact test, at t + tau
             * (moving in, the bodies overlap there by about mu tau: a vertex
             * inside the other body is the cheap witness), else at t when
             * the distance is within rounding of 0 (a touch at t the motion
             * leaves again); unconfirmed, step on (a few times at most: a
             * motion grazing just inside the tolerance never confirms).
             * Testing t first cost a full exact test on most turning hits,
             * whose bounds end the steps at the distance e, apart. */
            bool confirmed = false;
            /* A's vertex against B's edge: A's vertex in B is the witness to try first */
            bool a_first = convex && m.gc.n == 2 && m.gc.ia[0] == m.gc.ia[1] && m.gc.ib[0] != m.gc.ib[1];
            st = touching_at(a, b, fmin(1.0, t + o.t_tolerance), m.n, a_first, &confirmed, err);
            if (st == KCBP_OK && !confirmed && m.dist <= 2 * e)
                st = touching_at(a, b, t, m.n, a_first, &confirmed, err);
            if (st != KCBP_OK)
                return st;
            if (!confirmed && m.near) {
                measure_convex(a, b, &pa, &pb, e, spin, INFINITY, stop_d, &m); /* poses both again */
                if (m.lower > stop_d)
                    goto refine;
                if (m.have_points)
                    measure_points(a, b, &m);
            }
            if (confirmed || confirm_left == 0 || !(m.lower > 0)) {
                r.hit = true;
                r.confirmed = confirmed;
                r.toi = r.free_until = t;
                if ((st = fill_hit(a, b, &pa, &pb, &m, last_normal, &r, err)) != KCBP_OK)
                    return st;
                break;
            }
            confirm_left--;
            /* the exact tests posed the moving bodies at other times */
            if (convex && !a->still)
                pose_points(a, &pa);
            if (convex && !b->still)
                pose_points(b, &pb);
        }
    refine:
        if (convex)
            refine_convex(a, b, &pa, &pb, e, spin, mu, stop_d * SWEEP2D_TARGET, &m);
        if (swept_left > 0 && r.iterations >= 8 && m.step < 1e-3 * (1 - t) && m.step > 0.5 * last_step) {
            swept_left--;
            double until;
            if ((st = kcbp2d_sweep_swept_free(a->model, &pa, b->shape, &b->pose0, b->motion, t,
                                              0.5 * o.t_tolerance, e, &until, err)) != KCBP_OK)
                return st;
            if (until >= 1) {
                r.toi = r.free_until = 1;
                break;
            }
            if (until > t) {
                t = until;
                continue;
            }
        }
        /* [t, t + step) is proven free of contact. */
        double step = m.step;
        last_step = step;
        if (!(t + step <= 1)) {
            r.toi = r.free_until = 1;
            break;
        }
        t += step;
    }
    memcpy(result, &r, out_size);
    return KCBP_OK;
}

/* A body's fields before body_init, without zeroing its vertex buffers
 * (the cores' and lines' buffers are written before they are read). */
static void body_start(body *b, const kcbp2d_shape *shape, const kcbp2d_model *model, const kcbp2d_motion *motion)
{
    b->shape = shape, b->model = model, b->motion = motion;
    b->heap = NULL, b->lines = NULL, b->lines4 = NULL;
    b->pts_valid = b->core_valid = false;
}

static void body_free(body *b)
{
    free(b->heap);
    if (b->core_valid)
        kcbp2d_core_free(&b->core);
}

kcbp_status kcbp2d_sweep_sized(const kcbp2d_shape *a, const kcbp2d_motion *motion_a, const kcbp2d_shape *b,
                               const kcbp2d_motion *motion_b, const kcbp2d_sweep_options *options,
                               kcbp2d_sweep_result *result, size_t result_size, kcbp_error *err)
{
    if (!a || !b)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: shape %s is NULL", a ? "B" : "A");
    body ba, bb;
    body_start(&ba, a, NULL, motion_a);
    body_start(&bb, b, NULL, motion_b);
    kcbp_status st = sweep(&ba, &bb, options, result, result_size, err);
    body_free(&ba);
    body_free(&bb);
    return st;
}

kcbp_status kcbp2d_model_sweep_sized(const kcbp2d_model *a, const kcbp2d_motion *motion_a, const kcbp2d_model *b,
                                     const kcbp2d_motion *motion_b, const kcbp2d_sweep_options *options,
                                     kcbp2d_sweep_result *result, size_t result_size, kcbp_error *err)
{
    body ba, bb;
    body_start(&ba, NULL, a, motion_a);
    body_start(&bb, NULL, b, motion_b);
    kcbp_status st = sweep(&ba, &bb, options, result, result_size, err);
    body_free(&ba);
    body_free(&bb);
    return st;
}

kcbp_status kcbp2d_model_shape_sweep_sized(const kcbp2d_model *a, const kcbp2d_motion *motion_a,
                                           const kcbp2d_shape *b, const kcbp2d_motion *motion_b,
                                           const kcbp2d_sweep_options *options, kcbp2d_sweep_result *result,
                                           size_t result_size, kcbp_error *err)
{
    if (!b)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D sweep: shape B is NULL");
    body ba, bb;
    body_start(&ba, NULL, a, motion_a);
    body_start(&bb, b, NULL, motion_b);
    kcbp_status st = sweep(&ba, &bb, options, result, result_size, err);
    body_free(&ba);
    body_free(&bb);
    return st;
}
