/* gen_nested: near-contact poses of a part B nested in a part A (a valve
 * in its seat, a shaft in its bore), A at the identity, both sharing the
 * z axis in their own frames. Random directions toward B (bench/gen_poses)
 * make no sense there: B sits inside A, so these poses are small
 * perturbations of the nested pose, each taken to (1 +- delta) times its
 * first contact.
 *
 * For each pose:
 *  - the nested pose N: B lifted by h along z (h log-uniform in
 *    [LIFT_LO, LIFT_HI]; 0 when both are 0) and spun about z by a uniform
 *    angle (its tessellation then meets A's at a random phase);
 *  - a perturbation direction w, uniform on the unit sphere of R^5: an
 *    axial move w0, a lateral offset (w1, w2) and a tilt (w3, w4) about a
 *    horizontal axis through B's bounds centre; at parameter s, B is
 *    translated by s*L*(w1, w2, w0) and tilted by s*|(w3, w4)| radians
 *    about (w3, w4, 0), after N (L: B's bounds half-diagonal, so that a
 *    unit of s moves B's points by about L either way);
 *  - s*, the first contact along s from s = 0 (B at N, which must be free):
 *    distance steps that cannot pass a contact (kcbp_distance over a bound
 *    on the speed of B's points, conservative advancement), sped up by a
 *    secant guess 5 % past the predicted contact, until a pose touches; then
 *    bisection on "kcbp_distance is 0" until the bracket is below
 *    1e-3 * SPREAD of s* (1e-12 at least). Distance, not kcbp_collide,
 *    drives the search: on the nested fans kcbp_collide takes seconds a
 *    query (issue 25) and kcbp_distance a few hundredths;
 *  - delta = SPREAD * u, u uniform in (0, 1], positive for even poses
 *    (past the first contact: colliding) and negative for odd ones (short
 *    of it: apart, at a gap of about SPREAD * u of the clearance): half the
 *    poses collide. B is placed at s*(1 + delta).
 * A direction along which nothing is touched before B's points have moved
 * L/2 is drawn again (counted as skipped).
 *
 * Output, as gen_poses: one pose of B per line, "tx ty tz ax ay az deg"
 * (%.17g: every reader gets the very doubles used here; world = R * local
 * + t, R about B's own origin), then a comment "# s* delta h spin_deg".
 * Deterministic for a seed.
 *
 * Usage: gen_nested A B SEED COUNT SPREAD LIFT_LO LIFT_HI > poses.txt */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

#include "bench_rng.h"

/* The few model fields read here, in one place (the model's layout is
 * becoming private: issue 24). */
static kcbp_aabb model_bounds(const kcbp_model *m) { return kcbp_mesh_bounds(kcbp_model_mesh(m)); }

typedef struct {
    double w, x, y, z;
} quat;

static quat q_axis_angle(kcbp_vec3 axis, double rad)
{
    double l = kcbp_v3_len(axis);
    if (l == 0 || rad == 0) {
        quat q = {1, 0, 0, 0};
        return q;
    }
    double s = sin(rad / 2) / l;
    quat q = {cos(rad / 2), axis.x * s, axis.y * s, axis.z * s};
    return q;
}

static quat q_mul(quat a, quat b)
{
    quat r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}

static kcbp_vec3 q_rotate(quat q, kcbp_vec3 v)
{
    quat p = {0, v.x, v.y, v.z}, c = {q.w, -q.x, -q.y, -q.z};
    quat r = q_mul(q_mul(q, p), c);
    return kcbp_v3(r.x, r.y, r.z);
}

/* A standard normal deviate (Box-Muller). */
static double gauss(rng *r)
{
    double u = 1.0 - rng_unit(r), v = rng_unit(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

typedef struct {
    const kcbp_model *a, *b;
    kcbp_pose pose_a;
    kcbp_vec3 pivot; /* B's bounds centre in B's frame */
    double L;        /* B's bounds half-diagonal */
    /* this pose's draw */
    double h, spin;     /* lift, spin (radians) */
    double w[5];        /* axial, offset x, y, tilt x, y */
    double speed;       /* bound on |d point / ds| over B's points */
    long queries;
} search;

/* The axis-angle pose of B at parameter s (the line the file will hold). */
typedef struct {
    kcbp_vec3 t, axis;
    double deg;
} pose_line;

static pose_line line_at(const search *q, double s)
{
    quat spin = q_axis_angle(kcbp_v3(0, 0, 1), q->spin);
    kcbp_vec3 tilt_axis = kcbp_v3(q->w[3], q->w[4], 0);
    double tilt = s * kcbp_v3_len(tilt_axis);
    quat tq = q_axis_angle(tilt_axis, tilt);
    quat r = q_mul(tq, spin);
    if (r.w < 0)
        r.w = -r.w, r.x = -r.x, r.y = -r.y, r.z = -r.z;
    /* world = T(c + s L o) R_tilt T(-c) (spin x + h z), c the pivot after N */
    kcbp_vec3 c = kcbp_v3_add(q_rotate(spin, q->pivot), kcbp_v3(0, 0, q->h));
    kcbp_vec3 t = kcbp_v3_add(q_rotate(tq, kcbp_v3_sub(kcbp_v3(0, 0, q->h), c)), c);
    t = kcbp_v3_add(t, kcbp_v3_scale(kcbp_v3(q->w[1], q->w[2], q->w[0]), s * q->L));
    pose_line p;
    p.t = t;
    double sn = sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (sn < 1e-300) {
        p.axis = kcbp_v3(0, 0, 1);
        p.deg = 0;
    } else {
        p.axis = kcbp_v3(r.x / sn, r.y / sn, r.z / sn);
        p.deg = 2 * atan2(sn, r.w) * (180.0 / M_PI);
    }
    return p;
}

/* The distance at parameter s, or -1 on error. */
static double distance_at(search *q, double s)
{
    pose_line l = line_at(q, s);
    kcbp_pose p;
    kcbp_error err;
    kcbp_distance_result res;
    if (kcbp_pose_from_axis_angle(l.t, l.axis, l.deg, &p, &err) != KCBP_OK ||
        kcbp_distance(q->a, &q->pose_a, q->b, &p, NULL, &res, &err) != KCBP_OK) {
        fprintf(stderr, "gen_nested: %s\n", err.msg);
        return -1;
    }
    q->queries++;
    return res.distance;
}

/* s*, the first contact along s; 0 when none before B's points have moved
 * L/2; NAN on error or when the nested pose itself touches. */
static double first_contact(search *q, double tol)
{
    double s = 0, d = distance_at(q, 0);
    if (d < 0)
        return NAN;
    if (d == 0) {
        fprintf(stderr, "gen_nested: B touches A at its nested pose (lift %g)\n", q->h);
        return NAN;
    }
    double s_max = 0.5 * q->L / q->speed;
    double s_prev = -1, d_prev = 0, hi = -1;
    for (int it = 0; it < 500 && hi < 0; it++) {
        double step = d / q->speed; /* conservative: no contact before s + step */
        if (s_prev >= 0 && d_prev > d) {
            double guess = 1.05 * d * (s - s_prev) / (d_prev - d);
            if (guess > step)
                step = guess;
        }
        double s_try = s + step;
        if (s_try > s_max)
            s_try = s_max;
        double d_try = distance_at(q, s_try);
        if (d_try < 0)
            return NAN;
        if (d_try == 0) {
            hi = s_try;
        } else {
            if (s_try >= s_max)
                return 0;
            s_prev = s, d_prev = d;
            s = s_try, d = d_try;
        }
    }
    if (hi < 0)
        return 0;
    double lo = s; /* apart at lo, touching at hi */
    while (hi - lo > tol * hi) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        double dm = distance_at(q, mid);
        if (dm < 0)
            return NAN;
        if (dm == 0)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: %s A B SEED COUNT SPREAD LIFT_LO LIFT_HI > poses.txt\n", argv[0]);
        return 2;
    }
    char *end;
    unsigned long long seed = strtoull(argv[3], &end, 10);
    long count = strtol(argv[4], NULL, 10);
    double spread = strtod(argv[5], NULL), lift_lo = strtod(argv[6], NULL), lift_hi = strtod(argv[7], NULL);
    if (*end || count < 1 || count > 100000 || !(spread > 0 && spread < 1) || !(lift_lo >= 0) ||
        !(lift_hi >= lift_lo) || (lift_lo == 0 && lift_hi > 0)) {
        fprintf(stderr, "%s: bad SEED, COUNT, SPREAD (0..1) or LIFT_LO <= LIFT_HI (both 0, or both > 0)\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_model ma, mb;
    if (kcbp_model_load(&ma, argv[1], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "gen_nested: %s\n", err.msg);
        return 3;
    }
    if (kcbp_model_load(&mb, argv[2], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "gen_nested: %s\n", err.msg);
        kcbp_model_free(&ma);
        return 3;
    }
    search q;
    memset(&q, 0, sizeof q);
    q.a = &ma;
    q.b = &mb;
    q.pose_a = kcbp_pose_identity();
    q.pivot = kcbp_aabb_center(model_bounds(&mb));
    q.L = kcbp_v3_len(kcbp_aabb_extent(model_bounds(&mb)));
    double tol = fmax(1e-3 * spread, 1e-12);

    rng r = rng_seed(seed);
    printf("# gen_nested %s %s seed %llu: %ld poses of B nested in A, perturbed to (1 +- delta) x first contact, "
           "|delta| <= %g, lift in [%g, %g]\n",
           argv[1], argv[2], seed, count, spread, lift_lo, lift_hi);
    printf("# tx ty tz ax ay az deg  # s_contact delta lift spin_deg\n");
    int rc = 0;
    long skipped = 0;
    for (long i = 0; i < count && rc == 0;) {
        q.h = lift_lo > 0 ? exp(rng_range(&r, log(lift_lo), log(lift_hi))) : 0;
        q.spin = 2 * M_PI * rng_unit(&r);
        double n2 = 0;
        for (int k = 0; k < 5; k++) {
            q.w[k] = gauss(&r);
            n2 += q.w[k] * q.w[k];
        }
        for (int k = 0; k < 5; k++)
            q.w[k] /= sqrt(n2);
        double u = 1.0 - rng_unit(&r); /* (0, 1] */
        double delta = (i % 2 ? -1 : 1) * spread * u;
        /* speed of a point x of B: |L (w1, w2, w0)| + |tilt| |x - pivot| */
        q.speed = q.L * sqrt(q.w[0] * q.w[0] + q.w[1] * q.w[1] + q.w[2] * q.w[2]) +
                  hypot(q.w[3], q.w[4]) * q.L;
        double sc = first_contact(&q, tol);
        if (isnan(sc)) {
            rc = 1;
            break;
        }
        if (sc <= 0) {
            skipped++;
            if (skipped > 100 * count) {
                fprintf(stderr, "gen_nested: no contact along %ld directions\n", skipped);
                rc = 1;
            }
            continue;
        }
        pose_line l = line_at(&q, sc * (1 + delta));
        printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g  # %.17g %+.6e %.6g %.6f\n", l.t.x, l.t.y, l.t.z, l.axis.x,
               l.axis.y, l.axis.z, l.deg, sc, delta, q.h, q.spin * 180 / M_PI);
        fflush(stdout);
        i++;
    }
    fprintf(stderr, "gen_nested: %ld poses, %ld distance queries, %ld directions skipped\n", count, q.queries,
            skipped);
    kcbp_model_free(&ma);
    kcbp_model_free(&mb);
    return rc;
}
