/* GJK and EPA on many random polytope pairs: no NaN, no runaway iteration
 * count, the boolean query agreeing with the distance query, and on a
 * subsample the distance (when apart) or the depth (when overlapping)
 * against an oracle: qhull's hull of the Minkowski difference, the same
 * construction as tests/test_gjk.c. Shapes: random clouds of 1 to 64 points
 * at sizes over six decades, flat and needle-like ones, repeated points,
 * half of them hill-climbed over their hull's adjacency, some inflated.
 *
 * usage: gjk_stress [pairs (default 100000)] [oracle every Nth pair (default 10)] [seed]
 * Exit status 1 on any failure. */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "../cso_oracle.h"
#include <kcbp/kcbp.h>

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double uni(double lo, double hi) { return lo + (hi - lo) * (double)(rng_next() >> 11) * 0x1p-53; }
static kcbp_vec3 runit(void)
{
    for (;;) {
        kcbp_vec3 v = kcbp_v3(uni(-1, 1), uni(-1, 1), uni(-1, 1));
        double l = kcbp_v3_len(v);
        if (l > 0.1 && l <= 1)
            return kcbp_v3_scale(v, 1 / l);
    }
}
static int finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }


/* Cloud: kind 0 box, 1 sphere, 2 flat, 3 needle; some points repeated. */
static int cloud(kcbp_vec3 *p, double size)
{
    int n = 1 + (int)(rng_next() % 64), kind = (int)(rng_next() % 4);
    kcbp_vec3 ext = kcbp_v3(size * uni(0.2, 1), size * uni(0.2, 1), size * uni(0.2, 1));
    if (kind == 2)
        ext.z = 0;
    if (kind == 3)
        ext.y = ext.z = size * 1e-7;
    for (int i = 0; i < n; i++) {
        kcbp_vec3 u = kind == 1 ? runit() : kcbp_v3(uni(-1, 1), uni(-1, 1), uni(-1, 1));
        p[i] = i > 2 && rng_next() % 8 == 0 ? p[rng_next() % (uint64_t)i] : kcbp_v3(u.x * ext.x, u.y * ext.y, u.z * ext.z);
    }
    return n;
}





static int failures;
static void fail(long i, const char *what, double got, double want)
{
    if (failures++ < 10)
        printf("pair %ld: %s (got %.17g, want %.17g)\n", i, what, got, want);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000, every = argc > 2 ? atol(argv[2]) : 10;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    static kcbp_epa_scratch scratch; /* fixed-size, no allocation */
    long status_count[4] = {0}, checked_dist = 0, checked_depth = 0, unknown = 0, touched = 0, deep_touch = 0;
    int max_gjk = 0, max_epa = 0;
    double max_dist_err = 0, max_depth_err = 0, max_us = 0, worst_touch = 0;
    for (long i = 0; i < n; i++) {
        kcbp_vec3 pa[64], pb[64];
        double size = pow(10, uni(-3, 3));
        int na = cloud(pa, size), nb = cloud(pb, size * pow(10, uni(-1, 1)));
        kcbp_pose pose;
        kcbp_pose_from_axis_angle(kcbp_v3_scale(runit(), size * uni(0, 2.5)), runit(), uni(-180, 180), &pose, NULL);
        oracle_hull ha, hb;
        memset(&ha, 0, sizeof ha);
        memset(&hb, 0, sizeof hb);
        int climb = rng_next() & 1 && oracle_hull_build(pa, na, &ha) && oracle_hull_build(pb, nb, &hb);
        double ra = rng_next() % 5 == 0 ? uni(0, 0.3) * size : 0, rb = rng_next() % 5 == 0 ? uni(0, 0.3) * size : 0;
        kcbp_convex A = kcbp_convex_polytope(pa, (uint32_t)na, NULL, NULL, ra);
        kcbp_convex B = kcbp_convex_polytope(pb, (uint32_t)nb, NULL, NULL, rb);
        if (climb) {
            A = kcbp_convex_polytope(ha.v, ha.nv, NULL, NULL, ra), A.adj_start = ha.start, A.adj = ha.adj;
            B = kcbp_convex_polytope(hb.v, hb.nv, NULL, NULL, rb), B.adj_start = hb.start, B.adj = hb.adj;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        kcbp_support_cache cache = {{0, 0}};
        kcbp_gjk_result g;
        kcbp_epa_result e;
        kcbp_gjk_distance(&A, &B, &pose, NULL, &cache, &g);
        kcbp_epa_penetration(&A, &B, &pose, &g, NULL, &cache, &scratch, &e);
        int hit = kcbp_gjk_intersect(&A, &B, &pose, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        max_us = fmax(max_us, 1e6 * (double)(t1.tv_sec - t0.tv_sec) + 1e-3 * (double)(t1.tv_nsec - t0.tv_nsec));
        status_count[g.status]++;
        max_gjk = g.iterations > max_gjk ? g.iterations : max_gjk;
        max_epa = e.iterations > max_epa ? e.iterations : max_epa;
        if (!(isfinite(g.distance) && isfinite(g.distance_lower) && finite3(g.point_a) && finite3(g.point_b) &&
              finite3(g.normal) && g.distance >= 0))
            fail(i, "GJK gave a non-finite or negative result", g.distance, 0);
        if (g.iterations > KCBP_GJK_DEFAULT_MAX_ITERATIONS)
            fail(i, "GJK iterations above the cap", g.iterations, KCBP_GJK_DEFAULT_MAX_ITERATIONS);
        /* HIT_CAP is "not decided": the boolean query may stop earlier, on a
         * separating plane, or answer "not proven apart" */
        if (g.status != KCBP_GJK_HIT_CAP && hit != (g.status == KCBP_GJK_TOUCHING || g.status == KCBP_GJK_OVERLAPPING))
            fail(i, "kcbp_gjk_intersect disagrees with kcbp_gjk_distance", hit, g.status);
        if (e.status != KCBP_EPA_SEPARATED && !(isfinite(e.depth) && e.depth >= 0 && finite3(e.normal)))
            fail(i, "EPA gave a non-finite or negative depth", e.depth, 0);
        unknown += e.status == KCBP_EPA_DEPTH_UNKNOWN;
        if (g.status == KCBP_GJK_SEPARATED && i % 2 == 0) {
            /* moved back along the normal to touch: near-contact, no NaN. GJK
             * stops when the distance is right to 1e-12, so its normal is
             * right to about 1e-6 rad: a vertex-vertex contact can keep a
             * gap of about 1e-6 of the distance moved (measured: up to
             * 1.8e-7 of distance + scale). */
            kcbp_pose touch = pose;
            touch.trans = kcbp_v3_sub(touch.trans, kcbp_v3_scale(g.normal, g.distance));
            kcbp_support_cache c2 = {{0, 0}};
            kcbp_gjk_result t;
            kcbp_epa_result te;
            kcbp_gjk_distance(&A, &B, &touch, NULL, &c2, &t);
            kcbp_epa_penetration(&A, &B, &touch, &t, NULL, &c2, &scratch, &te);
            touched++;
            double slack = 1e-6 * (g.distance + t.scale);
            worst_touch = fmax(worst_touch, t.distance / (g.distance + t.scale));
            if (!(isfinite(t.distance) && finite3(t.point_a) && finite3(t.point_b)) || t.distance > slack)
                fail(i, "moved to touch, still apart (or NaN)", t.distance, 0);
            if (te.status != KCBP_EPA_SEPARATED && !isfinite(te.depth))
                fail(i, "moved to touch, NaN depth", te.depth, 0);
            unknown += te.status == KCBP_EPA_DEPTH_UNKNOWN; /* an upper bound, by contract */
            if (te.status != KCBP_EPA_SEPARATED && te.status != KCBP_EPA_DEPTH_UNKNOWN && te.depth > slack) {
                /* reported, not failed: see README "Hardening" */
                if (deep_touch++ < 5)
                    printf("pair %ld: moved to touch, GJK %s (distance %.3g, scale %.3g), EPA %s depth %.3g; "
                           "%d+%d points, radii %.3g %.3g, climb %d\n",
                           i, kcbp_gjk_status_name(t.status), t.distance, t.scale, kcbp_epa_status_name(te.status),
                           te.depth, na, nb, ra, rb, climb);
            }
            max_gjk = t.iterations > max_gjk ? t.iterations : max_gjk;
            max_epa = te.iterations > max_epa ? te.iterations : max_epa;
        }
        if (every > 0 && i % every == 0) {
            cso_oracle_result o = cso_oracle(climb ? ha.v : pa, climb ? (int)ha.nv : na, climb ? hb.v : pb,
                                             climb ? (int)hb.nv : nb, &pose);
            double rsum = ra + rb;
            if (o.ok && !o.inside && o.dist - rsum > 1e-3 * o.scale) {
                double err = fabs(g.distance - (o.dist - rsum)) / (o.dist - rsum);
                checked_dist++;
                max_dist_err = fmax(max_dist_err, err);
                if (g.status != KCBP_GJK_SEPARATED || err > 1e-9)
                    fail(i, "distance off the oracle", g.distance, o.dist - rsum);
            } else if (o.ok && o.inside && o.depth > 1e-3 * o.scale && e.status == KCBP_EPA_PENETRATING) {
                double err = fabs(e.depth - (o.depth + rsum)) / (o.depth + rsum);
                checked_depth++;
                max_depth_err = fmax(max_depth_err, err);
                if (err > 1e-6)
                    fail(i, "depth off the oracle", e.depth, o.depth + rsum);
            } else if (o.ok && o.inside && o.depth > 1e-3 * o.scale && g.status != KCBP_GJK_OVERLAPPING) {
                fail(i, "overlapping by the oracle, not by GJK", g.distance, 0);
            }
        }
        oracle_hull_free(&ha); /* built even when the other one failed */
        oracle_hull_free(&hb);
    }
    printf("gjk stress: %ld pairs (separated %ld, touching %ld, overlapping %ld, hit cap %ld); max GJK iterations %d, "
           "max EPA iterations %d, EPA depth unknown %ld; %ld moved to touch; slowest query %.0f us\n",
           n, status_count[0], status_count[1], status_count[2], status_count[3], max_gjk, max_epa, unknown, touched,
           max_us);
    printf("moved to touch: largest gap left %.3g of (distance moved + scale); %ld with an EPA depth above that "
           "slack (reported only)\n", worst_touch, deep_touch);
    printf("oracle: %ld distances (max rel err %.3g), %ld depths (max rel err %.3g); %d failures\n", checked_dist,
           max_dist_err, checked_depth, max_depth_err, failures);
    return failures ? 1 : 0;
}
