/* gen_poses: near-contact poses of mesh B against mesh A (A at the identity).
 *
 * For each pose: a uniformly random rotation of B and a uniformly random unit
 * direction u. With B's bounds centre placed at A's bounds centre + s*u, the
 * distance s* of first contact (coming from far away along u) is found by
 * marching inwards from where the world boxes are apart, then bisecting with
 * kcbp_collide (KCBP_CONTACTS_NONE). B is then placed at s*(1 + delta), delta
 * uniform in [-2%, +2%]: every pose is near contact and about half collide.
 *
 * Output: one pose of B per line, "tx ty tz ax ay az deg" printed with %.17g
 * so that every reader gets the very doubles used here; a trailing comment
 * gives s* and delta. Deterministic for a seed (xorshift64*, no libc rand).
 *
 * Usage: gen_poses A.obj B.obj SEED [COUNT] [MAX_REL_DELTA] > poses.txt */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

#include "bench_rng.h"

/* A uniformly random rotation as axis and angle in degrees: a uniform unit
 * quaternion (Shoemake's method) converted to axis-angle. */
static void random_rotation(rng *r, kcbp_vec3 *axis, double *deg)
{
    double u1 = rng_unit(r), u2 = 2 * M_PI * rng_unit(r), u3 = 2 * M_PI * rng_unit(r);
    double a = sqrt(1 - u1), b = sqrt(u1);
    double w = a * sin(u2), x = a * cos(u2), y = b * sin(u3), z = b * cos(u3);
    if (w < 0) /* q and -q are the same rotation: keep the angle in [0, 180] */
        w = -w, x = -x, y = -y, z = -z;
    double s = sqrt(x * x + y * y + z * z);
    if (s < 1e-12) {
        *axis = kcbp_v3(1, 0, 0);
        *deg = 0;
        return;
    }
    *axis = kcbp_v3(x / s, y / s, z / s);
    *deg = 2 * atan2(s, w) * (180.0 / M_PI);
}

typedef struct {
    const kcbp_model *a, *b;
    kcbp_pose pose_a;
    kcbp_vec3 center_a, center_b; /* bounds centres, each in its mesh's frame */
    kcbp_vec3 axis, u;
    double deg;
    kcbp_collide_options opts;
    kcbp_collide_result res;
    long queries;
} search;

/* The pose of B whose bounds centre is at A's centre + s*u. */
static int pose_at(search *q, double s, kcbp_pose *out)
{
    kcbp_error err;
    kcbp_pose rot_only;
    if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), q->axis, q->deg, &rot_only, &err) != KCBP_OK) {
        fprintf(stderr, "gen_poses: %s\n", err.msg);
        return -1;
    }
    kcbp_vec3 t = kcbp_v3_sub(kcbp_v3_add(q->center_a, kcbp_v3_scale(q->u, s)),
                              kcbp_mat3_mul_v3(&rot_only.rot, q->center_b));
    if (kcbp_pose_from_axis_angle(t, q->axis, q->deg, out, &err) != KCBP_OK) {
        fprintf(stderr, "gen_poses: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* 1 if the meshes collide with B's centre at distance s, 0 if not, -1 on error. */
static int collide_at(search *q, double s)
{
    kcbp_pose p;
    kcbp_error err;
    if (pose_at(q, s, &p) != 0)
        return -1;
    q->queries++;
    if (kcbp_collide(q->a, &q->pose_a, q->b, &p, &q->opts, &q->res, &err) != KCBP_OK) {
        fprintf(stderr, "gen_poses: %s\n", err.msg);
        return -1;
    }
    return q->res.collide ? 1 : 0;
}

enum { MARCH_STEPS = 200, BISECT_STEPS = 60 };

/* The distance of first contact along u, or a negative value when the meshes
 * never collide along u (found with MARCH_STEPS samples), or NAN on error.
 * s_far is a distance at which the world boxes are certainly apart. */
static double first_contact(search *q, double s_far)
{
    double hi = s_far, lo = -1;
    for (int i = 1; i <= MARCH_STEPS; i++) {
        double s = s_far * (1.0 - (double)i / MARCH_STEPS);
        int c = collide_at(q, s);
        if (c < 0)
            return NAN;
        if (c) {
            lo = s;
            break;
        }
        hi = s;
    }
    if (lo < 0)
        return -1;
    /* lo collides, hi does not: bisect to the last double or BISECT_STEPS. */
    for (int i = 0; i < BISECT_STEPS; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        int c = collide_at(q, mid);
        if (c < 0)
            return NAN;
        if (c)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        fprintf(stderr, "usage: %s A.obj B.obj SEED [COUNT=200] [MAX_REL_DELTA=0.02] > poses.txt\n", argv[0]);
        return 2;
    }
    char *end;
    unsigned long long seed = strtoull(argv[3], &end, 10);
    long count = argc > 4 ? strtol(argv[4], NULL, 10) : 200;
    double max_delta = argc > 5 ? strtod(argv[5], NULL) : 0.02;
    if (*end || count < 1 || count > 1000000 || !(max_delta >= 0 && max_delta < 1)) {
        fprintf(stderr, "%s: bad SEED, COUNT or MAX_REL_DELTA\n", argv[0]);
        return 2;
    }

    kcbp_error err;
    kcbp_model ma, mb;
    if (kcbp_model_load(&ma, argv[1], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "gen_poses: %s\n", err.msg);
        return 3;
    }
    int same = strcmp(argv[1], argv[2]) == 0;
    if (!same && kcbp_model_load(&mb, argv[2], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "gen_poses: %s\n", err.msg);
        kcbp_model_free(&ma);
        return 3;
    }
    search q;
    memset(&q, 0, sizeof q);
    q.a = &ma;
    q.b = same ? &ma : &mb;
    q.pose_a = kcbp_pose_identity();
    q.center_a = kcbp_aabb_center(kcbp_mesh_bounds(kcbp_model_mesh(q.a)));
    q.center_b = kcbp_aabb_center(kcbp_mesh_bounds(kcbp_model_mesh(q.b)));
    q.opts.contacts = KCBP_CONTACTS_NONE;
    /* Beyond the sum of the half-diagonals the bounding spheres are apart. */
    double s_far = 1.01 * (kcbp_v3_len(kcbp_aabb_extent(kcbp_mesh_bounds(kcbp_model_mesh(q.a)))) +
                           kcbp_v3_len(kcbp_aabb_extent(kcbp_mesh_bounds(kcbp_model_mesh(q.b)))));

    rng r = rng_seed(seed);
    printf("# gen_poses %s %s seed %llu: %ld near-contact poses of B, delta in +-%g\n", argv[1], argv[2], seed,
           count, max_delta);
    printf("# tx ty tz ax ay az deg  # s_contact delta\n");
    int rc = 0;
    long skipped = 0;
    for (long i = 0; i < count && rc == 0;) {
        random_rotation(&r, &q.axis, &q.deg);
        q.u = random_direction(&r);
        double delta = max_delta * (2 * rng_unit(&r) - 1);
        double sc = first_contact(&q, s_far);
        if (isnan(sc)) {
            rc = 1;
            break;
        }
        if (sc <= 0) { /* no contact along u (B inside A without touching): draw again */
            skipped++;
            continue;
        }
        kcbp_pose p;
        if (pose_at(&q, sc * (1 + delta), &p) != 0) {
            rc = 1;
            break;
        }
        printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g  # %.17g %+.6f\n", p.trans.x, p.trans.y, p.trans.z,
               q.axis.x, q.axis.y, q.axis.z, q.deg, sc, delta);
        i++;
    }
    fprintf(stderr, "gen_poses: %ld poses, %ld collision queries, %ld directions skipped\n", count, q.queries,
            skipped);
    kcbp_collide_result_free(&q.res);
    kcbp_model_free(&ma);
    if (!same)
        kcbp_model_free(&mb);
    return rc;
}
