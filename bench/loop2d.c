/* The convex rows of bench2d (issue 35) without the peers, for callgrind:
 * the same kind of pairs (3..8 vertices, random poses, half moved to within
 * 1e-12 of touching), kcbp2d_collide then kcbp2d_distance over all of them
 * through the C API, and a checksum of the answers for comparing builds.
 *   valgrind --tool=callgrind --toggle-collect=kcbp2d_collide_sized \
 *       bench/loop2d 2000      (instructions per collide: Ir / 2000; per
 * distance, with --toggle-collect=kcbp2d_distance_sized: Ir / (2000 + the
 * "near" count printed, the pairs whose setup called it once more))
 * Usage: loop2d [pairs] (default 2000). */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
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
    for (int i = 0; i < pairs; i++) {
        kcbp2d_shape sa = kcbp2d_shape_polygon(cs[i].a, cs[i].na, 0), sb = kcbp2d_shape_polygon(cs[i].b, cs[i].nb, 0);
        kcbp2d_distance_result d;
        kcbp2d_distance(&sa, &cs[i].pa, &sb, &cs[i].pb, NULL, &d, NULL);
        sum += d.signed_distance;
    }
    printf("%d pairs (near %d): %lu collide, sum of signed distances %.17g\n", pairs, near, hits, sum);
    free(cs);
    return 0;
}
