/* kcbp_depth_bracket (depth_internal.h): the penetration depth of two
 * overlapping closed solids, one at least a non-convex mesh, bracketed by
 * two proven bounds (signed_distance.h, KCBP_SDIST_BRACKETED).
 *
 * Depth: the length of the shortest translation t of B after which the
 * interiors of A and B + t are disjoint.
 *
 * Upper bound: a translation t shown apart by kcbp_collide with
 * options.solid (surfaces apart, neither inside the other) at B's pose
 * moved by t; depth <= |t|. Candidates, best first found cheapest:
 *   - the world boxes' smallest separating axis translation (always works);
 *   - the k-CBPs' EPA translation (each mesh lies in its k-CBP: it parts
 *     the meshes too; verified all the same, grown by a hair if rounding
 *     leaves them touching);
 *   - along a direction d: one collide at s = U (1 - delta), U the best so
 *     far, rejects d cheaply when B + s d still collides; otherwise
 *     bisection on [L, s] (L the lower bound: below it nothing separates)
 *     with kcbp_collide(solid) keeps a verified s. Directions: the contact's
 *     triangle normals and their difference (kcbp_contact_geometry), the
 *     26 directions to a cube's faces, edges and corners (a way out no
 *     contact shows: a cube in the inner corner of an L leaves along the
 *     diagonal), then a pattern search on the sphere of directions around
 *     the best (4 neighbours at angle theta, from 0.25 rad, halved when
 *     none improves, down to 0.01).
 * Bisection needs no monotonicity: every s it keeps was tested apart
 * itself, so it is a valid bound whatever happens between tests.
 *
 * Lower bound: a point c proven inside both solids (kcbp_point_in_solid,
 * kcbp_shape_geom_point_side), r_a and r_b its distances to the surfaces
 * less a rounding margin; the balls of those radii lie in the solids and
 * no translation shorter than r_a + r_b parts two concentric balls. c is
 * sought by ascent on r_a + r_b from seeds in the overlap: the contact's
 * intersection points pushed inward along the triangles' normals, the
 * boxes' overlap centre, a shape's centre, the inner solid's surface
 * pushed inward when one holds the other, and the point midway back along
 * the best translation from where the moved solids touch. A step moves c
 * along the sum of the two unit vectors away from the nearest surface
 * points (the gradient of r_a + r_b where each nearest point is unique).
 *
 * With options.max_steps >= 128, a many-ball lower bound follows when the
 * bracket is still wide (many_balls below, ball_cover.h).
 *
 * Budget: options.max_steps collides (tests of a translation), then at
 * most POLISH_TESTS more, and 4 * max_steps inner-ball probes; the search
 * stops once depth_upper <= (1 + tol) depth_lower. steps reports all of
 * them, plus the distance queries. */
#include "depth_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/collide.h>
#include <kcbp/contact_geom.h>
#include <kcbp/distance.h>
#include <kcbp/solid.h>

#include "ball_cover.h"
#include "bvh/point_distance.h"

/* The rounding margin taken off a distance to a surface, relative to the
 * magnitude of the coordinates (far above kcbp_cp_point_tri's error and
 * the rounding of moving c into a model's frame). */
#define INNER_MARGIN_REL 1e-11
/* The pad added to a translation whose verification failed by rounding
 * (the solids left touching), relative to the pair's scale: 2^-32 (2.3e-10),
 * far above the rounding of adding t to B's translation and carrying B into
 * A's frame (a few ulps), grown 16-fold per failed try (verify_grow), and
 * above the collision boxes' tolerance (KCBP_TRI_REL_TOL, 1e-10), so that
 * flat faces parted by a pad are told apart by their boxes, not by every
 * facing triangle pair. */
#define VERIFY_PAD_REL 0x1p-32
/* options.max_steps from which the many-ball lower bound runs. */
#define MANY_BALLS_STEPS 128
/* The grid of seeds for a wide bracket: points per axis, ascents. */
#define GRID_SEEDS 4
#define GRID_ASCENTS 3
/* The final bisection along the best direction: its width and tests. */
#define POLISH_REL 2e-3
#define POLISH_TESTS 16
#define POLISH_ANGLE 0.1
/* A depth_upper below this many pads (9.3e-10 of the scale, within
 * KCBP_SDIST_CONVEX_REL_TOL) is a touch. It was 16 pads of 1e-9: parts of
 * size 1 at coordinates 1e6 overlapping by 1e-3 of their size were called
 * touching, depth 0, and at scale 1 an overlap of 1e-8 (branch hunt3e). */
#define TOUCH_PADS 4.0

typedef struct {
    const kcbp_model *ma, *mb;
    const kcbp_model_impl *a, *b;
    const kcbp_pose *pa, *pb;
    kcbp_collide_options co;
    kcbp_collide_result cr;
    kcbp_error *err;
    double scale; /* magnitude of the world coordinates involved */
    double pad;   /* VERIFY_PAD_REL * scale */
    double tol;   /* depth_tolerance */
    int collides, max_collides;
    int probes, max_probes;
    int others; /* distance queries */
    /* the best upper bound: B moved by t is apart */
    bool have_u;
    double u;
    kcbp_vec3 t, dir;
    /* the best lower bound */
    double l;
    kcbp_vec3 c;
    double ra, rb;
    double best_lo; /* along dir: a distance at which B still collides (or the lower bound) */
    bool l_many; /* the lower bound is the many balls' (ball_cover.c) */
    int covers;  /* ball cover tests */
} ctx;

static double vmax3(kcbp_vec3 v) { return kcbp_v3_max_abs(v); }

/* Whether B moved by t (world) is apart from A as solids. */
static kcbp_status apart_at(ctx *x, kcbp_vec3 t, bool *apart)
{
    kcbp_pose p = *x->pb;
    p.trans = kcbp_v3_add(p.trans, t);
    x->collides++;
    kcbp_status st = kcbp_collide(x->ma, x->pa, x->mb, &p, &x->co, &x->cr, x->err);
    *apart = !x->cr.collide;
    return st;
}

/* The length of t as a proven bound on the displacement B was tested at:
 * |t| rounded up, plus the rounding of adding t to B's translation. */
static double proven_len(const ctx *x, kcbp_vec3 t)
{
    double len = kcbp_v3_len(t);
    double mag = vmax3(x->pb->trans) + vmax3(t);
    return len * (1 + 4 * DBL_EPSILON) + 2 * DBL_EPSILON * mag;
}

static void offer_upper(ctx *x, kcbp_vec3 t)
{
    double len = proven_len(x, t);
    if (!x->have_u || len < x->u) {
        x->have_u = true;
        x->u = len;
        x->t = t;
        x->best_lo = 0;
        double l = kcbp_v3_len(t);
        if (l > 0)
            x->dir = kcbp_v3_scale(t, 1 / l);
    }
}

/* Translation s * d, verified, grown by a pad (and then more) when
 * rounding leaves the solids touching; *ok false when six tries fail. */
static kcbp_status verify_grow(ctx *x, kcbp_vec3 d, double s, bool *ok)
{
    *ok = false;
    double grow = x->pad;
    for (int i = 0; i < 6; i++) {
        bool apart;
        kcbp_vec3 t = kcbp_v3_scale(d, s);
        kcbp_status st = apart_at(x, t, &apart);
        if (st != KCBP_OK)
            return st;
        if (apart) {
            offer_upper(x, t);
            *ok = true;
            return KCBP_OK;
        }
        s = s * (1 + 1e-9) + grow;
        grow *= 16;
    }
    return KCBP_OK;
}

/* Along the axis where boxes wa and wb overlap least, the translation
 * that parts them, verified when not longer than limit. */
static kcbp_status box_upper(ctx *x, kcbp_aabb wa, kcbp_aabb wb, double limit)
{
    int best_axis = 0;
    double best_s = INFINITY, sign = 1;
    for (int i = 0; i < 3; i++) {
        double up = kcbp_v3_get(wa.max, i) - kcbp_v3_get(wb.min, i);
        double down = kcbp_v3_get(wb.max, i) - kcbp_v3_get(wa.min, i);
        if (up < best_s)
            best_s = up, best_axis = i, sign = 1;
        if (down < best_s)
            best_s = down, best_axis = i, sign = -1;
    }
    kcbp_vec3 d = kcbp_v3(best_axis == 0 ? sign : 0, best_axis == 1 ? sign : 0, best_axis == 2 ? sign : 0);
    bool ok;
    double s = fmax(best_s, 0) + x->pad;
    return s <= limit ? verify_grow(x, d, s, &ok) : KCBP_OK;
}

static bool done(const ctx *x) { return x->have_u && x->u <= (1 + x->tol) * x->l; }

/* Along unit d: is there an s below the best upper bound (by a clear
 * fraction) at which B + s d is apart? One collide rejects d; otherwise a
 * bisection down towards the lower bound. */
/* How try_direction works: in the search (stop once the bracket is as
 * narrow as asked, a direction must beat the best by a clear fraction) or
 * in the final polish (neither; finer bisection). */
typedef struct {
    double delta;   /* d must part them at (1 - delta) times the best */
    double want;    /* bisection down to this width, relative */
    bool stop_done; /* stop once depth_upper <= (1 + tol) depth_lower */
    int limit;      /* collides allowed in all (x->collides below it) */
} dir_mode;

/* Along unit d: is there an s below the best upper bound (by a clear
 * fraction) at which B + s d is apart? One collide rejects d; otherwise a
 * bisection down towards the lower bound. */
static kcbp_status try_direction(ctx *x, kcbp_vec3 d, const dir_mode *m, bool *improved)
{
    *improved = false;
    if (x->collides >= m->limit || (m->stop_done && done(x)))
        return KCBP_OK;
    double hi = x->u * (1 - m->delta);
    double lo = x->l;
    if (hi <= lo)
        return KCBP_OK;
    bool apart;
    kcbp_status st = apart_at(x, kcbp_v3_scale(d, hi), &apart);
    if (st != KCBP_OK || !apart)
        return st;
    *improved = true;
    offer_upper(x, kcbp_v3_scale(d, hi));
    while (x->collides < m->limit && hi - lo > m->want * hi && hi - lo > x->pad) {
        if (m->stop_done && hi <= (1 + x->tol) * x->l)
            break;
        double mid = 0.5 * (lo + hi);
        st = apart_at(x, kcbp_v3_scale(d, mid), &apart);
        if (st != KCBP_OK)
            return st;
        if (apart) {
            hi = mid;
            offer_upper(x, kcbp_v3_scale(d, hi));
        } else {
            lo = mid;
        }
    }
    if (kcbp_v3_len(kcbp_v3_sub(x->dir, d)) == 0)
        x->best_lo = lo;
    return KCBP_OK;
}

/* The final polish: the bracket's stopping rule leaves depth_upper up to
 * the tolerance above the depth, and a few tests take most of that back:
 * the best direction's bisection carried on to POLISH_REL of depth_upper,
 * then its four neighbours at angles from POLISH_ANGLE down to a quarter
 * of it, each asked to beat the best by POLISH_REL only. At most
 * POLISH_TESTS collides beyond the search's. */
static void basis(kcbp_vec3 d, kcbp_vec3 *e1, kcbp_vec3 *e2);

static kcbp_status polish(ctx *x)
{
    int limit = x->collides + POLISH_TESTS;
    double hi = x->u, lo = fmax(x->best_lo, x->l);
    kcbp_vec3 d = x->dir;
    while (x->collides < limit && hi - lo > POLISH_REL * hi && hi - lo > x->pad) {
        double mid = 0.5 * (lo + hi);
        bool apart;
        kcbp_status st = apart_at(x, kcbp_v3_scale(d, mid), &apart);
        if (st != KCBP_OK)
            return st;
        if (apart) {
            hi = mid;
            offer_upper(x, kcbp_v3_scale(d, hi));
        } else {
            lo = mid;
        }
    }
    dir_mode m = {POLISH_REL, POLISH_REL, false, limit};
    for (double theta = POLISH_ANGLE; theta >= 0.25 * POLISH_ANGLE && x->collides < limit;) {
        kcbp_vec3 e1, e2;
        basis(x->dir, &e1, &e2);
        kcbp_vec3 c = x->dir;
        bool any = false;
        double tn = tan(theta);
        for (int k = 0; k < 4 && !any; k++) {
            kcbp_vec3 e = k < 2 ? e1 : e2;
            kcbp_vec3 dd = kcbp_v3_add(c, kcbp_v3_scale(e, k & 1 ? -tn : tn));
            double l = kcbp_v3_len(dd);
            kcbp_status st = try_direction(x, kcbp_v3_scale(dd, 1 / l), &m, &any);
            if (st != KCBP_OK)
                return st;
        }
        if (!any)
            theta *= 0.5;
    }
    return KCBP_OK;
}

/* ---- inner balls ---------------------------------------------------------- */

/* The radius of a ball around world point c inside model m (posed), a
 * lower bound, with the nearest surface point in *q (world; c itself when
 * unknown, as for a hull, whose radius is then 0); -1 when c is not
 * proven inside. */
static double inner_radius_known(const kcbp_model *mm, const kcbp_pose *pose, kcbp_vec3 c, double margin,
                                 bool known_inside, kcbp_vec3 *q)
{
    const kcbp_model_impl *m = mm->impl;
    kcbp_vec3 p = kcbp_mat3_tmul_v3(&pose->rot, kcbp_v3_sub(c, pose->trans));
    kcbp_vec3 ql = p;
    double d;
    *q = c;
    if (!kcbp_impl_is_shape(m)) {
        if (!known_inside && kcbp_point_in_solid(mm, pose, c) != KCBP_SOLID_INSIDE)
            return -1;
        d = kcbp_tree_point_distance(&m->tree, p, &ql, NULL);
    } else {
        const kcbp_shape_geom *g = &m->geom;
        if (kcbp_shape_geom_point_side(g, p, 0) <= 0)
            return -1;
        double r = g->def.radius;
        switch (g->def.kind) {
        case KCBP_SHAPE_SPHERE:
        case KCBP_SHAPE_CAPSULE: {
            kcbp_vec3 s = kcbp_v3(0, 0, 0);
            if (g->def.kind == KCBP_SHAPE_CAPSULE)
                s = kcbp_v3(0, 0, fmax(-g->half.z, fmin(g->half.z, p.z)));
            kcbp_vec3 u = kcbp_v3_sub(p, s);
            double len = kcbp_v3_len(u);
            d = r - len;
            ql = len > 0 ? kcbp_v3_add(s, kcbp_v3_scale(u, r / len)) : kcbp_v3_add(s, kcbp_v3(r, 0, 0));
            break;
        }
        case KCBP_SHAPE_BOX: {
            kcbp_vec3 a = kcbp_v3_abs(p);
            double gx = g->half.x - a.x, gy = g->half.y - a.y, gz = g->half.z - a.z;
            d = fmin(gx, fmin(gy, gz));
            if (d == gx)
                ql.x = copysign(g->half.x, p.x);
            else if (d == gy)
                ql.y = copysign(g->half.y, p.y);
            else
                ql.z = copysign(g->half.z, p.z);
            break;
        }
        case KCBP_SHAPE_CYLINDER: {
            double rho = sqrt(p.x * p.x + p.y * p.y);
            double gr = r - rho, gz = g->half.z - fabs(p.z);
            d = fmin(gr, gz);
            if (gz <= gr)
                ql.z = copysign(g->half.z, p.z);
            else if (rho > 0)
                ql = kcbp_v3(p.x * r / rho, p.y * r / rho, p.z);
            else
                ql = kcbp_v3(r, 0, p.z);
            break;
        }
        default: d = 0; break; /* a hull: inside, radius unknown */
        }
    }
    if (kcbp_impl_is_shape(m) && m->geom.def.kind == KCBP_SHAPE_HULL)
        return 0;
    *q = kcbp_pose_apply(pose, ql);
    d -= margin;
    return d > 0 ? d : 0;
}

static double inner_radius(const kcbp_model *mm, const kcbp_pose *pose, kcbp_vec3 c, double margin, kcbp_vec3 *q)
{
    return inner_radius_known(mm, pose, c, margin, false, q);
}

/* A point near a probed one: c2 within the inner ball of radius |c - q|
 * less the margin (q its nearest surface point found) is inside too,
 * without the ray test. */
static bool within_ball(kcbp_vec3 c2, kcbp_vec3 c, kcbp_vec3 q, double margin)
{
    double r = kcbp_v3_len(kcbp_v3_sub(c, q)) - 2 * margin;
    return r > 0 && kcbp_v3_len(kcbp_v3_sub(c2, c)) < r * (1 - 1e-9);
}

/* Probes c: when inside both, r_a + r_b (and the nearest surface points),
 * else -1. Offers it as the lower bound. from (may be NULL): a point probed
 * inside both, with its nearest surface points from_q[0] (A's) and
 * from_q[1] (B's), whose inner balls spare the ray tests. */
static double probe_from(ctx *x, kcbp_vec3 c, const kcbp_vec3 *from, const kcbp_vec3 from_q[2], kcbp_vec3 *qa,
                         kcbp_vec3 *qb)
{
    x->probes++;
    if (!kcbp_v3_is_finite(c))
        return -1;
    double margin = INNER_MARGIN_REL * (x->scale + vmax3(c));
    bool ka = from && within_ball(c, *from, from_q[0], margin);
    bool kb = from && within_ball(c, *from, from_q[1], margin);
    double ra = inner_radius_known(x->ma, x->pa, c, margin, ka, qa);
    if (ra < 0)
        return -1;
    double rb = inner_radius_known(x->mb, x->pb, c, margin, kb, qb);
    if (rb < 0)
        return -1;
    double f = ra + rb;
    if (f > x->l) {
        x->l = f;
        x->c = c;
        x->ra = ra;
        x->rb = rb;
    }
    return f;
}

static double probe(ctx *x, kcbp_vec3 c, kcbp_vec3 *qa, kcbp_vec3 *qb) { return probe_from(x, c, NULL, NULL, qa, qb); }

/* Ascent on r_a + r_b from seed c (already probed: value f, nearest points
 * qa, qb), with first step h. */
static void ascend(ctx *x, kcbp_vec3 c, double f, kcbp_vec3 qa, kcbp_vec3 qb, double h, int budget)
{
    double floor_h = 1e-3 * fmax(f, 1e-6 * x->scale);
    for (int i = 0; i < budget && x->probes < x->max_probes && h > floor_h && !done(x); i++) {
        kcbp_vec3 ua = kcbp_v3_sub(c, qa), ub = kcbp_v3_sub(c, qb);
        double la = kcbp_v3_len(ua), lb = kcbp_v3_len(ub);
        kcbp_vec3 g = kcbp_v3(0, 0, 0);
        if (la > 0)
            g = kcbp_v3_add(g, kcbp_v3_scale(ua, 1 / la));
        if (lb > 0)
            g = kcbp_v3_add(g, kcbp_v3_scale(ub, 1 / lb));
        double lg = kcbp_v3_len(g);
        if (!(lg > 1e-6))
            return; /* a ridge (the nearest surfaces face each other): the value holds along it */
        kcbp_vec3 c2 = kcbp_v3_add(c, kcbp_v3_scale(g, h / lg));
        kcbp_vec3 qa2, qb2, q[2] = {qa, qb};
        double f2 = probe_from(x, c2, &c, q, &qa2, &qb2);
        if (f2 > f * (1 + 1e-9)) {
            c = c2, f = f2, qa = qa2, qb = qb2;
            h *= 1.5;
        } else {
            h *= 0.35;
        }
    }
}

/* A seed: probe it and, when inside both, ascend from it. */
static void seed(ctx *x, kcbp_vec3 c, int budget)
{
    if (x->probes >= x->max_probes || done(x))
        return;
    kcbp_vec3 qa, qb;
    double f = probe(x, c, &qa, &qb);
    if (f < 0)
        return;
    double h = 0.5 * fmax(f, x->have_u ? 0.25 * x->u : 0);
    if (!(h > 0))
        h = 1e-3 * x->scale;
    ascend(x, c, f, qa, qb, h, budget);
}

/* Seeds from a point p on (or near) both surfaces with the world normals
 * na, nb of the triangles there (their orientation unknown): p pushed
 * along the four combinations of their signs, and towards the centres of
 * the solids' boxes and of their overlap, by h, h / 4, h / 16 ... until a
 * push lands inside both; ascent from the best of those. */
static void seeds_at_contact(ctx *x, kcbp_vec3 p, kcbp_vec3 na, kcbp_vec3 nb, double h, const kcbp_vec3 centres[3])
{
    kcbp_vec3 dirs[7];
    int nd = 0;
    for (int k = 0; k < 4; k++) {
        kcbp_vec3 d = kcbp_v3_add(kcbp_v3_scale(na, k & 1 ? -1 : 1), kcbp_v3_scale(nb, k & 2 ? -1 : 1));
        if (!(kcbp_v3_len(d) > 1e-6))
            d = k & 1 ? kcbp_v3_neg(na) : na;
        dirs[nd++] = d;
    }
    for (int k = 0; k < 3; k++)
        dirs[nd++] = kcbp_v3_sub(centres[k], p);
    kcbp_vec3 best_c = p, best_qa = p, best_qb = p;
    double best_f = -1;
    for (int k = 0; k < nd; k++) {
        double l = kcbp_v3_len(dirs[k]);
        if (!(l > 0) || !isfinite(l))
            continue;
        for (double hh = h; hh > 1e-4 * h && x->probes < x->max_probes; hh *= 0.25) {
            kcbp_vec3 c = kcbp_v3_add(p, kcbp_v3_scale(dirs[k], hh / l)), qa, qb;
            double f = probe(x, c, &qa, &qb);
            if (f >= 0) {
                if (f > best_f)
                    best_f = f, best_c = c, best_qa = qa, best_qb = qb;
                break;
            }
        }
    }
    if (best_f >= 0)
        ascend(x, best_c, best_f, best_qa, best_qb, 0.5 * fmax(best_f, 0.25 * x->u), 24);
}

/* Points of a GRID_SEEDS^3 grid over the boxes' overlap, probed; ascent
 * from the GRID_ASCENTS best inside both. */
static void grid_seeds(ctx *x, kcbp_aabb wa, kcbp_aabb wb)
{
    kcbp_vec3 lo = kcbp_v3_max(wa.min, wb.min), hi = kcbp_v3_min(wa.max, wb.max);
    kcbp_vec3 step = kcbp_v3_scale(kcbp_v3_sub(hi, lo), 1.0 / GRID_SEEDS);
    struct {
        kcbp_vec3 c, qa, qb;
        double f;
    } best[GRID_ASCENTS];
    int nb = 0;
    for (int i = 0; i < GRID_SEEDS * GRID_SEEDS * GRID_SEEDS && x->probes < x->max_probes; i++) {
        kcbp_vec3 c = kcbp_v3(lo.x + step.x * (i % GRID_SEEDS + 0.5), lo.y + step.y * (i / GRID_SEEDS % GRID_SEEDS + 0.5),
                              lo.z + step.z * (i / (GRID_SEEDS * GRID_SEEDS) + 0.5));
        kcbp_vec3 qa, qb;
        double f = probe(x, c, &qa, &qb);
        if (f <= 0)
            continue;
        /* keep the GRID_ASCENTS best, sorted down */
        int k;
        if (nb < GRID_ASCENTS)
            k = nb++;
        else if (f <= best[GRID_ASCENTS - 1].f)
            continue;
        else
            k = GRID_ASCENTS - 1;
        for (; k > 0 && best[k - 1].f < f; k--)
            best[k] = best[k - 1];
        best[k].c = c, best[k].qa = qa, best[k].qb = qb, best[k].f = f;
    }
    for (int k = 0; k < nb && !done(x); k++)
        ascend(x, best[k].c, best[k].f, best[k].qa, best[k].qb, 0.5 * best[k].f, 16);
}

/* A mesh triangle's world vertices and unit normal (0 when degenerate). */
static kcbp_vec3 tri_world(const kcbp_model_impl *m, const kcbp_pose *pose, uint32_t tri, kcbp_vec3 v[3])
{
    const kcbp_tri *t = &m->mesh.triangles[tri];
    for (int i = 0; i < 3; i++)
        v[i] = kcbp_pose_apply(pose, m->mesh.vertices[t->v[i]]);
    kcbp_vec3 n = kcbp_v3_cross(kcbp_v3_sub(v[1], v[0]), kcbp_v3_sub(v[2], v[0]));
    double l = kcbp_v3_len(n);
    return l > 0 ? kcbp_v3_scale(n, 1 / l) : kcbp_v3(0, 0, 0);
}

/* The feature normal of side m at a contact: a triangle's, or for a shape
 * the direction from its centre to p. */
static kcbp_vec3 feature_normal(const kcbp_model_impl *m, const kcbp_pose *pose, uint32_t f, kcbp_vec3 p)
{
    if (f == KCBP_SHAPE_FEATURE || kcbp_impl_is_shape(m)) {
        kcbp_vec3 u = kcbp_v3_sub(p, pose->trans);
        double l = kcbp_v3_len(u);
        return l > 0 ? kcbp_v3_scale(u, 1 / l) : kcbp_v3(1, 0, 0);
    }
    kcbp_vec3 v[3];
    return tri_world(m, pose, f, v);
}

static kcbp_vec3 unit_or(kcbp_vec3 v, kcbp_vec3 fallback)
{
    double l = kcbp_v3_len(v);
    return l > 0 && isfinite(l) ? kcbp_v3_scale(v, 1 / l) : fallback;
}

/* Two unit vectors orthogonal to unit d. */
static void basis(kcbp_vec3 d, kcbp_vec3 *e1, kcbp_vec3 *e2)
{
    kcbp_vec3 a = fabs(d.x) < 0.6 ? kcbp_v3(1, 0, 0) : fabs(d.y) < 0.6 ? kcbp_v3(0, 1, 0) : kcbp_v3(0, 0, 1);
    *e1 = unit_or(kcbp_v3_cross(d, a), kcbp_v3(0, 0, 1));
    *e2 = kcbp_v3_cross(d, *e1);
}

static double box_center_axis(kcbp_aabb b, int i) { return 0.5 * (kcbp_v3_get(b.min, i) + kcbp_v3_get(b.max, i)); }

/* ---- many balls ------------------------------------------------------------ */

/* The multi-ball lower bound: balls (a_i, alpha_i) proven inside A and
 * (b_j, beta_j) inside B. B + t parts the interiors only if every pair of
 * balls is parted, |b_j + t - a_i| >= alpha_i + beta_j: t lies outside
 * every open ball O_ij of centre a_i - b_j and radius alpha_i + beta_j. So
 * when the union of the O_ij covers the ball of radius rho around the
 * origin (kcbp_ball_cover), depth >= rho. One concentric pair is the case
 * of a single O_ij around the origin; many pairs see a depth that no single
 * ball pair can (thin walls interlocked, a solid deep inside another).
 * Balls: the best concentric centre's, and the points of a grid over the
 * boxes' overlap (widened by a quarter of the upper bound) proven inside
 * each solid. */
enum {
    COVER_GRID = 6,      /* grid points per axis */
    COVER_SURFACE = 48,  /* surface balls per mesh */
    COVER_MAX_BALLS = COVER_GRID * COVER_GRID * COVER_GRID + COVER_SURFACE + 2,
    COVER_MAX_PAIRS = 1024, /* the pairs reaching deepest around the origin are kept */
    COVER_DEPTH = 6,     /* octree levels */
    COVER_CELLS = 5000,  /* octree cells per test */
    COVER_TESTS = 4,     /* tests (bisection on rho) */
};

typedef struct {
    kcbp_ball a[COVER_MAX_BALLS], b[COVER_MAX_BALLS];
    size_t na, nb;
    kcbp_ball pairs[COVER_MAX_PAIRS];
} cover_work;

static int by_slack(const void *p, const void *q)
{
    const kcbp_ball *x = p, *y = q;
    double sx = x->r - kcbp_v3_len(x->c), sy = y->r - kcbp_v3_len(y->c);
    return sx > sy ? -1 : sx < sy;
}

/* Balls under a mesh's surface in the box [lo, hi]: up to
 * COVER_SURFACE triangles spread over those whose centroid lies in it, each
 * centroid pushed a hair along both normals, the side proven inside kept
 * and moved away from its nearest surface point while its ball grows (a
 * step towards the medial axis). Appended to balls[*n ..). */
static void surface_balls(ctx *x, const kcbp_model *mm, const kcbp_pose *pose, kcbp_vec3 lo, kcbp_vec3 hi,
                          double margin, double min_r, kcbp_ball *balls, size_t *n)
{
    const kcbp_model_impl *m = mm->impl;
    if (kcbp_impl_is_shape(m) || m->mesh.ntriangles == 0)
        return;
    uint32_t nt = m->mesh.ntriangles;
    uint32_t stride = nt / 4096 + 1, hits = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t every = pass == 0 ? 0 : hits / COVER_SURFACE + 1, seen = 0, used = 0;
        for (uint32_t t = 0; t < nt && used < COVER_SURFACE; t += stride) {
            kcbp_vec3 v[3];
            kcbp_vec3 nrm = tri_world(m, pose, t, v);
            kcbp_vec3 g = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(v[0], v[1]), v[2]), 1.0 / 3);
            if (g.x < lo.x || g.y < lo.y || g.z < lo.z || g.x > hi.x || g.y > hi.y || g.z > hi.z ||
                kcbp_v3_len2(nrm) == 0)
                continue;
            if (pass == 0) {
                hits++;
                continue;
            }
            if (seen++ % every)
                continue;
            used++;
            double h = 1e-4 * x->scale + 1e-3 * x->u;
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                kcbp_vec3 c = kcbp_v3_add(g, kcbp_v3_scale(nrm, sgn * h)), q;
                double r = inner_radius(mm, pose, c, margin, &q);
                if (r < 0)
                    continue;
                for (int it = 0; it < 6; it++) {
                    kcbp_vec3 u = unit_or(kcbp_v3_sub(c, q), kcbp_v3(0, 0, 0));
                    if (kcbp_v3_len2(u) == 0)
                        break;
                    kcbp_vec3 c2 = kcbp_v3_add(c, kcbp_v3_scale(u, fmax(r, h))), q2;
                    double r2 = inner_radius(mm, pose, c2, margin, &q2);
                    if (!(r2 > r))
                        break;
                    c = c2, r = r2, q = q2;
                }
                if (r >= min_r)
                    balls[(*n)++] = (kcbp_ball){c, r};
                break;
            }
        }
    }
}

static kcbp_status many_balls(ctx *x, kcbp_aabb wa, kcbp_aabb wb)
{
    cover_work *w = malloc(sizeof *w);
    if (!w)
        return kcbp_error_set(x->err, KCBP_ERR_NOMEM, "depth bracket: out of memory (balls)");
    w->na = w->nb = 0;
    double margin = INNER_MARGIN_REL * (x->scale + x->u);
    double min_r = 0.02 * x->u;
    if (x->l > 0) {
        w->a[w->na++] = (kcbp_ball){x->c, x->ra};
        w->b[w->nb++] = (kcbp_ball){x->c, x->rb};
    }
    kcbp_vec3 pad = kcbp_v3(0.25 * x->u, 0.25 * x->u, 0.25 * x->u);
    kcbp_vec3 lo = kcbp_v3_sub(kcbp_v3_max(wa.min, wb.min), pad), hi = kcbp_v3_add(kcbp_v3_min(wa.max, wb.max), pad);
    kcbp_vec3 step = kcbp_v3_scale(kcbp_v3_sub(hi, lo), 1.0 / COVER_GRID);
    for (int i = 0; i < COVER_GRID * COVER_GRID * COVER_GRID; i++) {
        kcbp_vec3 p = kcbp_v3(lo.x + step.x * (i % COVER_GRID + 0.5), lo.y + step.y * (i / COVER_GRID % COVER_GRID + 0.5),
                              lo.z + step.z * (i / (COVER_GRID * COVER_GRID) + 0.5));
        kcbp_vec3 q;
        double r = inner_radius(x->ma, x->pa, p, margin, &q);
        if (r >= min_r)
            w->a[w->na++] = (kcbp_ball){p, r};
        r = inner_radius(x->mb, x->pb, p, margin, &q);
        if (r >= min_r)
            w->b[w->nb++] = (kcbp_ball){p, r};
    }
    surface_balls(x, x->ma, x->pa, lo, hi, margin, min_r, w->a, &w->na);
    surface_balls(x, x->mb, x->pb, lo, hi, margin, min_r, w->b, &w->nb);
    /* the pairs whose ball reaches within the upper bound of the origin,
     * radii less the rounding of their centres */
    size_t np = 0;
    double cm = 1e-12 * (x->scale + x->u);
    for (size_t i = 0; i < w->na; i++)
        for (size_t j = 0; j < w->nb; j++) {
            kcbp_ball o = {kcbp_v3_sub(w->a[i].c, w->b[j].c), w->a[i].r + w->b[j].r - cm};
            if (!(o.r > 0) || kcbp_v3_len(o.c) >= o.r + x->u)
                continue;
            if (np < COVER_MAX_PAIRS) {
                w->pairs[np++] = o;
            } else {
                /* full: keep the ones that reach deepest around the origin */
                qsort(w->pairs, np, sizeof *w->pairs, by_slack);
                np = COVER_MAX_PAIRS / 2;
                w->pairs[np++] = o;
            }
        }
    kcbp_status st = KCBP_OK;
    /* bisection on rho between the bounds, the aimed width first */
    double lo_r = x->l, hi_r = x->u;
    double rho = x->u / (1 + x->tol);
    for (int it = 0; it < COVER_TESTS && np > 0 && rho > lo_r; it++) {
        bool covered;
        x->covers++;
        if ((st = kcbp_ball_cover(w->pairs, np, rho, COVER_DEPTH, COVER_CELLS, &covered, x->err)) != KCBP_OK)
            break;
        if (covered) {
            lo_r = rho;
            x->l = rho;
            x->l_many = true;
            if (done(x))
                break;
        } else {
            hi_r = rho;
        }
        rho = 0.5 * (lo_r + hi_r);
        if (hi_r - lo_r <= 0.25 * x->tol * hi_r)
            break;
    }
    free(w);
    return st;
}

kcbp_status kcbp_depth_bracket(const kcbp_model *ma, const kcbp_pose *pose_a, const kcbp_model *mb,
                               const kcbp_pose *pose_b, const kcbp_signed_distance_options *o,
                               kcbp_signed_distance_result *r, kcbp_error *err)
{
    ctx x;
    memset(&x, 0, sizeof x);
    x.ma = ma, x.mb = mb, x.a = ma->impl, x.b = mb->impl, x.pa = pose_a, x.pb = pose_b, x.err = err;
    x.co = kcbp_collide_options_default();
    x.co.contacts = KCBP_CONTACTS_FIRST;
    x.co.use_cbp = o->use_cbp;
    x.co.solid = true;
    x.tol = o->depth_tolerance;
    x.max_collides = o->max_steps;
    x.max_probes = 4 * o->max_steps;
    kcbp_aabb wa = kcbp_model_world_bounds(ma, pose_a), wb = kcbp_model_world_bounds(mb, pose_b);
    x.scale = fmax(fmax(vmax3(wa.min), vmax3(wa.max)), fmax(vmax3(wb.min), vmax3(wb.max)));
    if (!(x.scale > 0))
        x.scale = 1;
    x.pad = VERIFY_PAD_REL * x.scale;
    kcbp_status st = KCBP_OK;

    /* 1. The overlap as kcbp_collide sees it, with the k-CBPs measured. */
    kcbp_collide_options mo = x.co;
    mo.cbp_measure = o->use_cbp;
    x.collides++;
    if ((st = kcbp_collide(ma, pose_a, mb, pose_b, &mo, &x.cr, err)) != KCBP_OK)
        goto out;
    kcbp_cbp_result cbp = x.cr.cbp;
    kcbp_containment contained = x.cr.contained;
    bool have_contact = x.cr.ncontacts > 0;
    kcbp_contact contact = have_contact ? x.cr.contacts[0] : (kcbp_contact){0, 0};

    /* 2. First upper bounds: the world boxes' separating translation, the
     * k-CBPs' EPA translation. The world boxes are the k-CBPs' (a margin
     * of about 1e-9 of the coordinates outside the meshes: 1e-3 at 1e6,
     * above the touching threshold there); when their translation is not
     * a touch, the meshes' own boxes, posed (exact for a translation),
     * are tried too when they could show a touch: CAD parts touching face
     * to face at coordinates 1e6 are then settled by one collide, not by
     * the search (branch hunt3e). */
    if ((st = box_upper(&x, wa, wb, INFINITY)) != KCBP_OK)
        goto out;
    if (x.u > TOUCH_PADS * x.pad && !kcbp_impl_is_shape(x.a) && !kcbp_impl_is_shape(x.b) &&
        (st = box_upper(&x, kcbp_impl_mesh_box(x.a, pose_a), kcbp_impl_mesh_box(x.b, pose_b), 0.5 * TOUCH_PADS * x.pad)) != KCBP_OK)
        goto out;
    if (cbp.measured && cbp.depth > 0 && isfinite(cbp.depth) && cbp.depth < x.u) {
        kcbp_vec3 d = unit_or(cbp.direction, kcbp_v3(0, 0, 0));
        bool ok;
        if (kcbp_v3_len2(d) > 0 && (st = verify_grow(&x, d, cbp.depth * (1 + 1e-9) + x.pad, &ok)) != KCBP_OK)
            goto out;
    }
    if (!x.have_u) {
        st = kcbp_error_set(err, KCBP_ERR_GEOMETRY, "depth bracket: no separating translation verified");
        goto out;
    }

    if (x.u <= TOUCH_PADS * x.pad)
        goto report; /* they merely touch */

    /* 3. Lower bound seeds. */
    kcbp_vec3 centres[3] = {kcbp_v3_scale(kcbp_v3_add(wa.min, wa.max), 0.5),
                            kcbp_v3_scale(kcbp_v3_add(wb.min, wb.max), 0.5),
                            kcbp_v3_scale(kcbp_v3_add(kcbp_v3_max(wa.min, wb.min), kcbp_v3_min(wa.max, wb.max)), 0.5)};
    kcbp_vec3 na = kcbp_v3(0, 0, 0), nb = kcbp_v3(0, 0, 0), pc = kcbp_v3(0, 0, 0);
    if (have_contact) {
        kcbp_contact_geom g;
        kcbp_contact_summary sum;
        kcbp_contact_geometry(ma, pose_a, mb, pose_b, &contact, 1, &g, &sum);
        pc = sum.point;
        na = feature_normal(x.a, pose_a, contact.a, pc);
        nb = feature_normal(x.b, pose_b, contact.b, pc);
        seeds_at_contact(&x, pc, na, nb, 0.5 * x.u, centres);
    }
    if (kcbp_impl_is_shape(x.a))
        seed(&x, pose_a->trans, 16);
    if (kcbp_impl_is_shape(x.b))
        seed(&x, pose_b->trans, 16);
    {
        /* the centre of the boxes' overlap */
        kcbp_vec3 lo = kcbp_v3_max(wa.min, wb.min), hi = kcbp_v3_min(wa.max, wb.max);
        seed(&x, kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5), 12);
    }
    if (contained != KCBP_CONTAINED_NONE) {
        /* the inner solid's centre, or its first triangle's centroid pushed
         * both ways */
        const kcbp_model_impl *in = contained == KCBP_CONTAINED_B_IN_A ? x.b : x.a;
        const kcbp_pose *pin = contained == KCBP_CONTAINED_B_IN_A ? pose_b : pose_a;
        kcbp_aabb wi = contained == KCBP_CONTAINED_B_IN_A ? wb : wa;
        seed(&x, kcbp_v3(box_center_axis(wi, 0), box_center_axis(wi, 1), box_center_axis(wi, 2)), 16);
        if (!kcbp_impl_is_shape(in) && in->mesh.ntriangles > 0) {
            kcbp_vec3 v[3];
            kcbp_vec3 n = tri_world(in, pin, 0, v);
            kcbp_vec3 cen = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(v[0], v[1]), v[2]), 1.0 / 3);
            double h = 0.05 * vmax3(kcbp_v3_sub(wi.max, wi.min));
            seed(&x, kcbp_v3_add(cen, kcbp_v3_scale(n, h)), 16);
            seed(&x, kcbp_v3_sub(cen, kcbp_v3_scale(n, h)), 16);
        }
    }

    /* 4. Directions: the contact's normals, then 26 spread ones. */
    const dir_mode search = {fmin(0.5 * x.tol, 0.05), 0.25 * x.tol, true, x.max_collides};
    if (have_contact) {
        kcbp_vec3 cand[6] = {unit_or(kcbp_v3_sub(na, nb), na), unit_or(kcbp_v3_sub(nb, na), nb), na,
                             kcbp_v3_neg(na), nb, kcbp_v3_neg(nb)};
        for (int i = 0; i < 6 && st == KCBP_OK; i++) {
            bool imp;
            if (kcbp_v3_len2(cand[i]) > 0)
                st = try_direction(&x, cand[i], &search, &imp);
        }
    }
    /* the 26 directions to the cube's faces, edges and corners (world
     * frame): well spread, for a way out that no contact normal shows */
    for (int n1 = 1; n1 <= 3 && st == KCBP_OK; n1++)
        for (int i = 0; i < 27 && st == KCBP_OK; i++) {
            int cx = i % 3 - 1, cy = i / 3 % 3 - 1, cz = i / 9 - 1;
            if (abs(cx) + abs(cy) + abs(cz) != n1)
                continue;
            bool imp;
            st = try_direction(&x, unit_or(kcbp_v3(cx, cy, cz), kcbp_v3(1, 0, 0)), &search, &imp);
        }
    if (st != KCBP_OK)
        goto out;

    /* 4b. When the bracket is still wide: seeds on a grid over the boxes'
     * overlap, ascent from the best few (the seeds above lie near the
     * contact; a deep overlap's widest ball is often elsewhere). */
    if (!done(&x))
        grid_seeds(&x, wa, wb);

    /* 5. Pattern search on the sphere of directions around the best, with
     * a lower-bound seed midway back along each new best translation. */
    {
        double theta = 0.25;
        kcbp_vec3 seeded_t = kcbp_v3(NAN, 0, 0);
        while (!done(&x) && x.collides < x.max_collides && theta > 0.01) {
            if (!(seeded_t.x == x.t.x && seeded_t.y == x.t.y && seeded_t.z == x.t.z)) {
                /* where B + t touches A, moved back halfway */
                seeded_t = x.t;
                kcbp_pose pm = *pose_b;
                pm.trans = kcbp_v3_add(pm.trans, x.t);
                kcbp_distance_result dr;
                x.others++;
                if ((st = kcbp_distance(ma, pose_a, mb, &pm, NULL, &dr, err)) != KCBP_OK)
                    goto out;
                kcbp_vec3 p = kcbp_v3_sub(dr.point_a, kcbp_v3_scale(x.t, 0.5));
                kcbp_vec3 fa = feature_normal(x.a, pose_a, dr.tri_a, dr.point_a);
                kcbp_vec3 fb = feature_normal(x.b, &pm, dr.tri_b, dr.point_b);
                seeds_at_contact(&x, p, fa, fb, 0.25 * x.u, centres);
                if (done(&x))
                    break;
            }
            kcbp_vec3 d = x.dir, e1, e2;
            basis(d, &e1, &e2);
            bool any = false;
            double tn = tan(theta);
            for (int k = 0; k < 4 && !any; k++) {
                kcbp_vec3 e = k < 2 ? e1 : e2;
                kcbp_vec3 dd = unit_or(kcbp_v3_add(d, kcbp_v3_scale(e, k & 1 ? -tn : tn)), d);
                if ((st = try_direction(&x, dd, &search, &any)) != KCBP_OK)
                    goto out;
            }
            if (!any)
                theta *= 0.5;
        }
    }

    if ((st = polish(&x)) != KCBP_OK)
        goto out;

    /* 6. Many balls, when one pair leaves the bracket wide and the caller
     * gave steps for it (it costs about as much as the rest together and,
     * on the benchmark's scans and CAD parts, seldom pays: README's depth
     * bracket section). */
    if (o->max_steps >= MANY_BALLS_STEPS && !done(&x) && (st = many_balls(&x, wa, wb)) != KCBP_OK)
        goto out;

report:
    /* 7. The report: where B + t touches A (kcbp_distance at the verified
     * pose), the bounds. */
    {
        kcbp_pose pm = *pose_b;
        pm.trans = kcbp_v3_add(pm.trans, x.t);
        kcbp_distance_result dr;
        x.others++;
        bool touch = x.u <= TOUCH_PADS * x.pad;
        /* touching: a point the surfaces share, at B's own pose (the
         * distance there stops at its first intersecting pair; at the moved
         * pose, flat faces a few pads apart are as costly as a distance
         * within the boxes' tolerance: every facing pair) */
        if ((st = kcbp_distance(ma, pose_a, mb, touch ? pose_b : &pm, NULL, &dr, err)) != KCBP_OK)
            goto out;
        /* the midpoint of the closest points at the moved pose: within
         * half the gap the bisection left of each surface, and point_a -
         * point_b is the translation (touching: the shared point, both) */
        kcbp_vec3 m = kcbp_v3_scale(kcbp_v3_add(dr.point_a, dr.point_b), 0.5);
        r->point_a = m;
        r->point_b = touch ? m : kcbp_v3_sub(m, x.t);
        r->feature_a = dr.tri_a;
        r->feature_b = dr.tri_b;
    }
    r->decided_by = KCBP_STAGE_MESH;
    r->normal = x.dir;
    r->translation = x.t;
    r->depth_upper = x.u;
    r->depth_lower = fmin(x.l, x.u);
    if (x.l > 0) {
        r->lower_center = x.c;
        r->lower_radius_a = x.ra;
        r->lower_radius_b = x.rb;
    }
    r->steps = x.collides + x.probes + x.others + x.covers;
    if (x.u <= TOUCH_PADS * x.pad) {
        r->status = KCBP_SDIST_TOUCHING;
        r->depth = 0;
        r->depth_lower = 0;
        r->signed_distance = 0;
    } else {
        r->status = KCBP_SDIST_BRACKETED;
        r->depth = x.u;
        r->signed_distance = -x.u;
    }
out:
    kcbp_collide_result_free(&x.cr);
    return st;
}
