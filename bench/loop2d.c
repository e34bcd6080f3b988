/* The convex rows of bench2d (issue 35) without the peers, for callgrind:
 * the same kind of pairs (3..8 vertices, random poses, half moved to within
 * 1e-12 of touching), kcbp2d_collide then kcbp2d_distance over all of them
 * through the C API, and a checksum of the answers for comparing builds.
 *   valgrind --tool=callgrind --toggle-collect=kcbp2d_collide_sized \
 *       bench/loop2d 2000      (instructions per collide: Ir / 2000; per
 * distance, with --toggle-collect=kcbp2d_distance_sized: Ir / (2000 + the
 * "near" count printed, the pairs whose setup called it once more))
 * Usage: loop2d [pairs] [nodepth] (default 2000; nodepth: kcbp2d_distance
 * with want_depth false, whose checksum then lacks the depths it skipped).
 *
 *   loop2d model N Q [rough]: bench2d's non-convex rows, kcbp only: two
 *   star polygons of N vertices with a hole (rough 0.1: hairy, the default;
 *   0.001: smooth), Q poses of B drawn one number per statement (so not
 *   bench2d's poses), kcbp2d_model_distance on each; prints the mean edge
 *   pairs tested and a checksum. Under callgrind with
 *   --toggle-collect=kcbp2d_model_distance_sized: Ir / Q per query.
 *
 *   loop2d toi Q [kind]: bench2d's time-of-impact motions, kcbp only (its
 *   own draws: not bench2d's pairs), Q sweeps; kind 0 half turning (the
 *   default), 1 translating only, 2 turning only; prints the steps per
 *   query and a checksum of the toi. Under callgrind with
 *   --toggle-collect=kcbp2d_sweep_sized: Ir / Q per query. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp2d.h>

#include "bench_rng.h"

typedef struct {
    kcbp_vec2 a[8], b[8];
    uint32_t na, nb;
    kcbp2d_pose pa, pb;
} pair2d;

static uint32_t rnd_convex(rng *r, kcbp_vec2 *out)
{
    for (;;) {
        kcbp_vec2 p[8];
        size_t n = 3 + (size_t)(rng_unit(r) * 6), nh = 0;
        for (size_t i = 0; i < n; i++) {
            double x = rng_range(r, -1, 1);
            double y = rng_range(r, -1, 1);
            p[i] = kcbp_v2_make(x, y);
        }
        if (kcbp2d_hull(p, n, out, &nh, NULL) != KCBP_OK || nh < 3)
            continue;
        int ok = 1;
        for (size_t i = 0; i < nh; i++)
            ok &= kcbp_v2_len(kcbp_v2_sub(out[i], out[(i + 1) % nh])) > 0.05;
        if (ok)
            return (uint32_t)nh;
    }
}

/* bench2d's star ring: n vertices round the origin, radius rad0 (0.9 +
 * 0.05 sin 7t) plus noise in [0, rough rad0); cw reversed. */
static void star(rng *r, kcbp_vec2 *out, uint32_t n, double rad0, double rough, int cw)
{
    for (uint32_t i = 0; i < n; i++) {
        double t = 2 * M_PI * ((double)i + 0.8 * rng_unit(r)) / n;
        double rad = rad0 * (0.9 + 0.05 * sin(7 * t)) + rng_range(r, 0, rough * rad0);
        out[cw ? n - 1 - i : i] = kcbp_v2_make(rad * cos(t), rad * sin(t));
    }
}

static int model_loop(uint32_t n, int q, double rough)
{
    rng r = {7 + n};
    kcbp_vec2 *va = malloc((size_t)n * sizeof *va), *vb = malloc((size_t)n * sizeof *vb);
    if (!va || !vb)
        return 1;
    star(&r, va, n - n / 4, 1.0, rough, 0);
    star(&r, va + (n - n / 4), n / 4, 0.35, rough, 1);
    star(&r, vb, n - n / 4, 1.0, rough, 0);
    star(&r, vb + (n - n / 4), n / 4, 0.35, rough, 1);
    uint32_t ea[2] = {n - n / 4, n}, pe[1] = {2};
    kcbp2d_polygons ia = {va, ea, 2, pe, 1}, ib = {vb, ea, 2, pe, 1};
    kcbp2d_model *ma, *mb;
    kcbp_error err;
    if (kcbp2d_model_build(&ia, &ma, &err) != KCBP_OK || kcbp2d_model_build(&ib, &mb, &err) != KCBP_OK) {
        fprintf(stderr, "build: %s\n", err.msg);
        return 1;
    }
    kcbp2d_pose id = kcbp2d_pose_identity();
    double sum = 0;
    unsigned long long pairs = 0;
    for (int i = 0; i < q; i++) {
        double tx = rng_range(&r, -2.5, 2.5);
        double ty = rng_range(&r, -2.5, 2.5);
        double ang = rng_range(&r, -180, 180);
        kcbp2d_pose p;
        kcbp2d_pose_from_angle(tx, ty, ang, &p, NULL);
        kcbp2d_model_distance_result res;
        kcbp2d_model_distance(ma, &id, mb, &p, &res, NULL);
        sum += res.distance;
        pairs += res.edge_pairs;
    }
    printf("%u vertices, rough %g, %d poses: %.0f edge pairs per query, sum of distances %.17g\n", (unsigned)n, rough,
           q, (double)pairs / q, sum);
    kcbp2d_model_free(ma);
    kcbp2d_model_free(mb);
    free(va);
    free(vb);
    return 0;
}

/* bench2d's toi row, kcbp only: B from x in [-4, -3] to [3, 4] across a
 * still A (turned at random), y in [-1.5, 1.5] at both ends; kind 0: all
 * (half turning by up to 90 degrees either way), 1: translating only, 2:
 * turning only. Prints steps per query and a checksum. Under callgrind
 * with --toggle-collect=kcbp2d_sweep_sized: Ir / Q per query. */
static int toi_loop(int q, int kind)
{
    rng r = {11};
    kcbp_vec2 a[8], b[8];
    double sum = 0;
    long steps = 0, hits = 0;
    kcbp2d_sweep_options o = kcbp2d_sweep_options_default();
    for (int i = 0; i < q; i++) {
        uint32_t na = rnd_convex(&r, a), nb = rnd_convex(&r, b);
        double da = rng_range(&r, -180, 180);
        kcbp2d_motion ma = kcbp2d_motion_still(0, 0, da), mb;
        mb.from.x = rng_range(&r, -4, -3);
        mb.from.y = rng_range(&r, -1.5, 1.5);
        mb.to.x = rng_range(&r, 3, 4);
        mb.to.y = rng_range(&r, -1.5, 1.5);
        mb.from_deg = rng_range(&r, -180, 180);
        double turn = rng_range(&r, -90, 90);
        int turning = kind == 0 ? rng_unit(&r) < 0.5 : kind == 2;
        mb.to_deg = mb.from_deg + (turning ? turn : 0);
        kcbp2d_shape sa = kcbp2d_shape_polygon(a, na, 0), sb = kcbp2d_shape_polygon(b, nb, 0);
        kcbp2d_sweep_result res;
        if (kcbp2d_sweep(&sa, &ma, &sb, &mb, &o, &res, NULL) != KCBP_OK)
            return 1;
        sum += res.toi, steps += res.iterations, hits += res.hit;
    }
    printf("toi kind %d, %d motions: %ld hits, %.2f steps per query, sum of toi %.17g\n", kind, q, hits,
           (double)steps / q, sum);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "toi") == 0)
        return toi_loop(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
    if (argc > 3 && strcmp(argv[1], "model") == 0)
        return model_loop((uint32_t)atoi(argv[2]), atoi(argv[3]), argc > 4 ? atof(argv[4]) : 0.1);
    int pairs = argc > 1 ? atoi(argv[1]) : 2000;
    if (pairs < 1)
        pairs = 1;
    pair2d *cs = malloc((size_t)pairs * sizeof *cs);
    if (!cs)
        return 1;
    rng r = {42};
    int near = 0;
    for (int i = 0; i < pairs; i++) {
        pair2d *c = &cs[i];
        c->na = rnd_convex(&r, c->a);
        c->nb = rnd_convex(&r, c->b);
        double ang = rng_range(&r, -180, 180);
        kcbp2d_pose_from_angle(0, 0, ang, &c->pa, NULL);
        double tx = rng_range(&r, -2, 2);
        double ty = rng_range(&r, -2, 2);
        ang = rng_range(&r, -180, 180);
        kcbp2d_pose_from_angle(tx, ty, ang, &c->pb, NULL);
        if (rng_unit(&r) < 0.5) {
            near++;
            kcbp2d_shape sa = kcbp2d_shape_polygon(c->a, c->na, 0), sb = kcbp2d_shape_polygon(c->b, c->nb, 0);
            kcbp2d_distance_result d;
            kcbp2d_distance(&sa, &c->pa, &sb, &c->pb, NULL, &d, NULL);
            double gap = d.signed_distance + rng_range(&r, -1e-12, 1e-12);
            c->pb.trans = kcbp_v2_sub(c->pb.trans, kcbp_v2_scale(d.normal, gap));
        }
    }
    unsigned long hits = 0;
    double sum = 0;
    for (int i = 0; i < pairs; i++) {
        kcbp2d_shape sa = kcbp2d_shape_polygon(cs[i].a, cs[i].na, 0), sb = kcbp2d_shape_polygon(cs[i].b, cs[i].nb, 0);
        kcbp2d_collide_result res;
        kcbp2d_collide(&sa, &cs[i].pa, &sb, &cs[i].pb, NULL, &res, NULL);
        hits += res.collide;
    }
    kcbp2d_distance_options o = kcbp2d_distance_options_default();
    o.want_depth = false;
    const kcbp2d_distance_options *op = argc > 2 && strcmp(argv[2], "nodepth") == 0 ? &o : NULL;
    for (int i = 0; i < pairs; i++) {
        kcbp2d_shape sa = kcbp2d_shape_polygon(cs[i].a, cs[i].na, 0), sb = kcbp2d_shape_polygon(cs[i].b, cs[i].nb, 0);
        kcbp2d_distance_result d;
        kcbp2d_distance(&sa, &cs[i].pa, &sb, &cs[i].pb, op, &d, NULL);
        sum += d.signed_distance;
    }
    printf("%d pairs (near %d): %lu collide, sum of signed distances %.17g\n", pairs, near, hits, sum);
    free(cs);
    return 0;
}
