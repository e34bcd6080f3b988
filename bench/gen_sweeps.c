/* gen_sweeps: reproducible sweeps of mesh B against mesh A (A at the
 * identity) for `kcbp sweep --sweeps FILE` and bench/fcl_sweep (issue 18).
 *
 * Each sweep starts from a pose of B well apart from A: a uniformly random
 * rotation R0 and direction u; with B's bounds centre at A's bounds centre
 * + s*u, s* is the distance of first contact coming in along u (marching
 * and bisecting with kcbp_collide, as bench/gen_poses does), and B starts at
 * s0 = s* + f*L, L the pair's size (the sum of the bounds' half-diagonals),
 * f uniform in [0.01, 0.5]. The end pose depends on the sweep's kind, drawn
 * at random (weights in brackets):
 *
 *   through   [20%] pure translation along -u to s1 in [-s*, s*): passes
 *             first contact, so it always hits (toi near (s0-s*)/(s0-s1))
 *   short     [15%] pure translation along -u stopping at s* + g*L, g in
 *             [0.001, 0.05]: a near miss, never touches
 *   offset    [20%] pure translation by -2*s0*u + o*L*w, w a unit vector
 *             orthogonal to u, o in [0, 2]: passes through A or by it
 *   trans-rot [20%] the translation of "through" plus a rotation of B by
 *             up to 90 degrees about a random axis
 *   fast-rot  [15%] start closer (f in [0.01, 0.2]), B's centre moves by up
 *             to 0.1 L, rotation 90 to 179 degrees
 *   rot-only  [ 6%] B's translation fixed, rotation 0 to 179 degrees
 *   start-in  [ 4%] starts colliding (s0 = 0.95 s*), then as "through"
 *
 * Rotations are world-frame: R1 = Rd * R0 with Rd's angle at most 179
 * degrees, so the shortest arc between R0 and R1 is Rd's own arc (at 180
 * degrees it would be ambiguous, and two programs could take opposite
 * ways). Rotation is about B's local origin (the file's convention), so for a
 * mesh far from its origin a rotation swings it about that origin as well.
 *
 * Output: one sweep per line, B's from-pose then B's to-pose, each
 * "tx ty tz ax ay az deg" printed with %.17g, then a comment: the kind and a
 * reference from dense sampling with kcbp_collide (SAMPLES+1 evenly spaced
 * t, the first colliding sample bisected 50 times against the free one
 * before it): "toi~T" or "miss". Sampling can miss a contact shorter than
 * 1/SAMPLES; the comment is a label for the reader, the comparison is
 * bench/sweep.sh's. Deterministic for a seed (xorshift64*, no libc rand).
 *
 * Usage: gen_sweeps A.obj B.obj SEED [COUNT=100] [SAMPLES=256] > sweeps.txt */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

#include "bench_rng.h"

/* Unit quaternions (w, x, y, z). */
typedef struct {
    double w, x, y, z;
} quat;

static quat quat_mul(quat a, quat b)
{
    quat q = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return q;
}

static quat quat_axis_angle(kcbp_vec3 axis, double deg)
{
    double h = 0.5 * deg * (M_PI / 180.0), s = sin(h);
    kcbp_vec3 n = kcbp_v3_scale(axis, 1.0 / kcbp_v3_len(axis));
    quat q = {cos(h), n.x * s, n.y * s, n.z * s};
    return q;
}

/* Axis and angle in [0, 180] degrees of a unit quaternion. */
static void quat_to_axis_angle(quat q, kcbp_vec3 *axis, double *deg)
{
    if (q.w < 0)
        q.w = -q.w, q.x = -q.x, q.y = -q.y, q.z = -q.z;
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s < 1e-300) {
        *axis = kcbp_v3(1, 0, 0);
        *deg = 0;
        return;
    }
    *axis = kcbp_v3(q.x / s, q.y / s, q.z / s);
    *deg = 2 * atan2(s, q.w) * (180.0 / M_PI);
}

/* Uniformly random rotation (Shoemake). */
static quat random_quat(rng *r)
{
    double u1 = rng_unit(r), u2 = 2 * M_PI * rng_unit(r), u3 = 2 * M_PI * rng_unit(r);
    double a = sqrt(1 - u1), b = sqrt(u1);
    quat q = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
    return q;
}

static kcbp_mat3 quat_to_mat(quat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    kcbp_mat3 m = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                    {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                    {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
    return m;
}

/* Slerp along the shortest arc from a to b. */
static quat quat_slerp(quat a, quat b, double t)
{
    double d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    if (d < 0)
        d = -d, b.w = -b.w, b.x = -b.x, b.y = -b.y, b.z = -b.z;
    double ka, kb;
    if (d > 0.9999999) {
        ka = 1 - t, kb = t;
    } else {
        double th = acos(d), s = sin(th);
        ka = sin((1 - t) * th) / s, kb = sin(t * th) / s;
    }
    quat q = {ka * a.w + kb * b.w, ka * a.x + kb * b.x, ka * a.y + kb * b.y, ka * a.z + kb * b.z};
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    q.w /= n, q.x /= n, q.y /= n, q.z /= n;
    return q;
}

typedef struct {
    const kcbp_model *a, *b;
    kcbp_pose pose_a;
    kcbp_vec3 center_a, center_b;
    kcbp_collide_options opts;
    kcbp_collide_result res;
    long queries;
} ctx;

/* 1 if the meshes collide with B at rotation q and translation t, 0 if not, -1 on error. */
static int collide_q(ctx *c, quat q, kcbp_vec3 t)
{
    kcbp_pose p;
    kcbp_error err;
    p.rot = quat_to_mat(q);
    p.trans = t;
    c->queries++;
    if (kcbp_collide(c->a, &c->pose_a, c->b, &p, &c->opts, &c->res, &err) != KCBP_OK) {
        fprintf(stderr, "gen_sweeps: %s\n", err.msg);
        return -1;
    }
    return c->res.collide ? 1 : 0;
}

/* B's translation that puts its bounds centre at A's centre + s*u under rotation q. */
static kcbp_vec3 trans_at(const ctx *c, quat q, kcbp_vec3 u, double s)
{
    kcbp_mat3 m = quat_to_mat(q);
    return kcbp_v3_sub(kcbp_v3_add(c->center_a, kcbp_v3_scale(u, s)), kcbp_mat3_mul_v3(&m, c->center_b));
}

enum { MARCH_STEPS = 200, BISECT_STEPS = 60 };

/* The distance of first contact along u at rotation q, negative when none, NAN on error. */
static double first_contact(ctx *c, quat q, kcbp_vec3 u, double s_far)
{
    double hi = s_far, lo = -1;
    for (int i = 1; i <= MARCH_STEPS; i++) {
        double s = s_far * (1.0 - (double)i / MARCH_STEPS);
        int k = collide_q(c, q, trans_at(c, q, u, s));
        if (k < 0)
            return NAN;
        if (k) {
            lo = s;
            break;
        }
        hi = s;
    }
    if (lo < 0)
        return -1;
    for (int i = 0; i < BISECT_STEPS; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        int k = collide_q(c, q, trans_at(c, q, u, mid));
        if (k < 0)
            return NAN;
        if (k)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* kcbp_collide at parameter t of the sweep. */
static int collide_t(ctx *c, quat q0, kcbp_vec3 t0, quat q1, kcbp_vec3 t1, double t)
{
    kcbp_vec3 tr = kcbp_v3_add(kcbp_v3_scale(t0, 1 - t), kcbp_v3_scale(t1, t));
    return collide_q(c, quat_slerp(q0, q1, t), tr);
}

/* The sampled first contact in [0, 1] (-1: none found, NAN: error). */
static double sampled_toi(ctx *c, quat q0, kcbp_vec3 t0, quat q1, kcbp_vec3 t1, int samples)
{
    double prev = 0;
    for (int i = 0; i <= samples; i++) {
        double t = (double)i / samples;
        int k = collide_t(c, q0, t0, q1, t1, t);
        if (k < 0)
            return NAN;
        if (!k) {
            prev = t;
            continue;
        }
        if (i == 0)
            return 0;
        double lo = prev, hi = t; /* lo free, hi colliding */
        for (int j = 0; j < 50; j++) {
            double mid = 0.5 * (lo + hi);
            k = collide_t(c, q0, t0, q1, t1, mid);
            if (k < 0)
                return NAN;
            if (k)
                hi = mid;
            else
                lo = mid;
        }
        return hi;
    }
    return -1;
}

static void print_pose(quat q, kcbp_vec3 t)
{
    kcbp_vec3 axis;
    double deg;
    quat_to_axis_angle(q, &axis, &deg);
    printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g", t.x, t.y, t.z, axis.x, axis.y, axis.z, deg);
}

/* A unit vector orthogonal to u, uniformly random around it. */
static kcbp_vec3 random_orthogonal(rng *r, kcbp_vec3 u)
{
    for (;;) {
        kcbp_vec3 v = random_direction(r);
        kcbp_vec3 w = kcbp_v3_sub(v, kcbp_v3_scale(u, kcbp_v3_dot(u, v)));
        double l = kcbp_v3_len(w);
        if (l > 1e-3)
            return kcbp_v3_scale(w, 1.0 / l);
    }
}

static const char *const kind_names[] = {"through", "short", "offset", "trans-rot", "fast-rot", "rot-only", "start-in"};
static const int kind_weights[] = {20, 15, 20, 20, 15, 6, 4}; /* percent */
enum { NKINDS = 7 };

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: %s A.obj B.obj SEED [COUNT=100] [SAMPLES=256] > sweeps.txt\n", argv[0]);
        return 2;
    }
    char *end;
    unsigned long long seed = strtoull(argv[3], &end, 10);
    long count = argc > 4 ? strtol(argv[4], NULL, 10) : 100;
    long samples = argc > 5 ? strtol(argv[5], NULL, 10) : 256;
    if (*end || count < 1 || count > 1000000 || samples < 1 || samples > 1000000) {
        fprintf(stderr, "%s: bad SEED, COUNT or SAMPLES\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_model ma, mb;
    if (kcbp_model_load(&ma, argv[1], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "gen_sweeps: %s\n", err.msg);
        return 3;
    }
    int same = strcmp(argv[1], argv[2]) == 0;
    if (!same && kcbp_model_load(&mb, argv[2], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "gen_sweeps: %s\n", err.msg);
        kcbp_model_free(&ma);
        return 3;
    }
    ctx c;
    memset(&c, 0, sizeof c);
    c.a = &ma;
    c.b = same ? &ma : &mb;
    c.pose_a = kcbp_pose_identity();
    c.center_a = kcbp_aabb_center(kcbp_mesh_bounds(kcbp_model_mesh(c.a)));
    c.center_b = kcbp_aabb_center(kcbp_mesh_bounds(kcbp_model_mesh(c.b)));
    c.opts.contacts = KCBP_CONTACTS_NONE;
    double size = kcbp_v3_len(kcbp_aabb_extent(kcbp_mesh_bounds(kcbp_model_mesh(c.a)))) + kcbp_v3_len(kcbp_aabb_extent(kcbp_mesh_bounds(kcbp_model_mesh(c.b))));
    double s_far = 1.01 * size;

    rng r = rng_seed(seed);
    printf("# gen_sweeps %s %s seed %llu: %ld sweeps of B (A at the identity), pair size L = %.6g\n", argv[1],
           argv[2], seed, count, size);
    printf("# from: tx ty tz ax ay az deg  to: tx ty tz ax ay az deg  # kind, kcbp_collide sampled at %ld+1 t\n",
           samples);
    int rc = 0;
    long skipped = 0, hits = 0, per_kind[NKINDS] = {0};
    for (long i = 0; i < count && rc == 0;) {
        int w = (int)(rng_unit(&r) * 100), kind = 0;
        while (kind < NKINDS - 1 && w >= kind_weights[kind])
            w -= kind_weights[kind++];
        quat q0 = random_quat(&r);
        kcbp_vec3 u = random_direction(&r);
        double sc = first_contact(&c, q0, u, s_far);
        if (isnan(sc)) {
            rc = 1;
            break;
        }
        if (sc <= 0) { /* no contact along u (B inside A without touching): draw again */
            skipped++;
            continue;
        }
        double f = kind == 4 ? rng_range(&r, 0.01, 0.2) : rng_range(&r, 0.01, 0.5);
        double s0 = kind == 6 ? 0.95 * sc : sc + f * size;
        kcbp_vec3 t0 = trans_at(&c, q0, u, s0), t1;
        quat q1 = q0;
        kcbp_vec3 c0 = kcbp_v3_add(c.center_a, kcbp_v3_scale(u, s0)); /* B's centre at the start */
        switch (kind) {
        case 0: /* through */
        case 6: /* start-in */
            t1 = trans_at(&c, q0, u, rng_range(&r, -sc, sc));
            break;
        case 1: /* short */
            t1 = trans_at(&c, q0, u, sc + rng_range(&r, 0.001, 0.05) * size);
            break;
        case 2: { /* offset */
            kcbp_vec3 wv = random_orthogonal(&r, u);
            t1 = kcbp_v3_add(t0, kcbp_v3_add(kcbp_v3_scale(u, -2 * s0), kcbp_v3_scale(wv, rng_range(&r, 0, 2) * size)));
            break;
        }
        case 3: /* trans-rot */
        case 4: /* fast-rot */
        case 5: { /* rot-only */
            double deg = kind == 3 ? rng_range(&r, 0, 90) : kind == 4 ? rng_range(&r, 90, 179) : rng_range(&r, 0, 179);
            q1 = quat_mul(quat_axis_angle(random_direction(&r), deg), q0);
            kcbp_vec3 c1 = kind == 3   ? kcbp_v3_add(c.center_a, kcbp_v3_scale(u, rng_range(&r, -sc, sc)))
                           : kind == 4 ? kcbp_v3_add(c0, kcbp_v3_scale(random_direction(&r), rng_range(&r, 0, 0.1) * size))
                                       : c0;
            kcbp_mat3 m1 = quat_to_mat(q1);
            t1 = kind == 5 ? t0 : kcbp_v3_sub(c1, kcbp_mat3_mul_v3(&m1, c.center_b));
            break;
        }
        default:
            t1 = t0;
        }
        double toi = sampled_toi(&c, q0, t0, q1, t1, (int)samples);
        if (isnan(toi)) {
            rc = 1;
            break;
        }
        print_pose(q0, t0);
        putchar(' ');
        print_pose(q1, t1);
        if (toi >= 0)
            printf("  # %s toi~%.10f\n", kind_names[kind], toi), hits++;
        else
            printf("  # %s miss\n", kind_names[kind]);
        per_kind[kind]++;
        i++;
    }
    fprintf(stderr, "gen_sweeps: %ld sweeps (%ld hit when sampled), %ld collision queries, %ld directions skipped; kinds:",
            count, hits, c.queries, skipped);
    for (int k = 0; k < NKINDS; k++)
        fprintf(stderr, " %s %ld", kind_names[k], per_kind[k]);
    fputc('\n', stderr);
    kcbp_collide_result_free(&c.res);
    kcbp_model_free(&ma);
    if (!same)
        kcbp_model_free(&mb);
    return rc;
}
