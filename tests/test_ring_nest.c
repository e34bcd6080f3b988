/* How rings nest (src/mesh/ring_nest.c, the SVG reader's grouping of its
 * shapes into polygons with holes): against nestings built with their
 * answer known (rectangles with extra points on their sides and diamonds,
 * in cells of their parents, touching their parents and each other along
 * edges and at points, either direction, any first vertex); random rings
 * that cross (no crash, the stated invariants); and the SVG reader on
 * 100,000 nested squares, which testing every ring against every other
 * made a hang (8000 took 1.3 s; this size would take about 200 s). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <kcbp/kcbp2d.h>

#include "mesh/ring_nest.h"
#include "testutil.h"

#define NONE UINT32_MAX
#define MAX_RINGS 4000
#define MAX_PTS 100000

typedef struct {
    kcbp_vec2 pts[MAX_PTS];
    uint32_t end[MAX_RINGS];
    uint32_t depth[MAX_RINGS], parent[MAX_RINGS]; /* the truth */
    size_t np, nr;
    test_rng rng;
} nest;

static uint64_t pick(test_rng *r, uint64_t n) /* in [0, n) */
{
    double u = test_rng_uniform(r);
    uint64_t k = (uint64_t)(u * (double)n);
    return k < n ? k : n - 1;
}

/* Adds the ring of pts[0..n) in a random direction from a random first
 * vertex. */
static uint32_t add_ring(nest *N, const kcbp_vec2 *p, size_t n, uint32_t depth, uint32_t parent)
{
    bool rev = pick(&N->rng, 2);
    size_t first = (size_t)pick(&N->rng, n);
    for (size_t k = 0; k < n; k++) {
        size_t i = (first + k) % n;
        N->pts[N->np++] = p[rev ? n - 1 - i : i];
    }
    N->end[N->nr] = (uint32_t)N->np;
    N->depth[N->nr] = depth, N->parent[N->nr] = parent;
    return (uint32_t)N->nr++;
}

/* Points of a side from a to b (exclusive of b): a, then up to two more
 * on it at whole coordinates. */
static size_t side(nest *N, kcbp_vec2 a, kcbp_vec2 b, kcbp_vec2 *out)
{
    size_t n = 0;
    out[n++] = a;
    double len = fabs(b.x - a.x) + fabs(b.y - a.y);
    int extra = len >= 8 ? (int)pick(&N->rng, 3) : 0;
    double t0 = 0;
    for (int k = 0; k < extra; k++) {
        double t = floor(t0 + 1 + (double)pick(&N->rng, (uint64_t)(len / 4)));
        if (t >= len - 1 || t <= t0)
            break;
        double f = t / len;
        out[n++] = (kcbp_vec2){a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f};
        t0 = t;
    }
    return n;
}

/* Rings in the box [x0, x1] x [y0, y1] (whole numbers), children of parent
 * at depth d. */
static void fill(nest *N, double x0, double y0, double x1, double y1, uint32_t d, uint32_t parent, int level)
{
    if (level > 4 || x1 - x0 < 40 || y1 - y0 < 40)
        return;
    int kx = 1 + (int)pick(&N->rng, 3), ky = 1 + (int)pick(&N->rng, 3);
    for (int i = 0; i < kx; i++)
        for (int j = 0; j < ky; j++) {
            if (N->nr + 1 >= MAX_RINGS || N->np + 64 >= MAX_PTS || pick(&N->rng, 10) < 3)
                continue;
            double cx0 = floor(x0 + (x1 - x0) * i / kx), cx1 = floor(x0 + (x1 - x0) * (i + 1) / kx);
            double cy0 = floor(y0 + (y1 - y0) * j / ky), cy1 = floor(y0 + (y1 - y0) * (j + 1) / ky);
            /* shrink each side by 0 (touching what is there), 1 or more */
            double s[4];
            for (int k = 0; k < 4; k++) {
                uint64_t c = pick(&N->rng, 3);
                s[k] = c == 0 ? 0 : c == 1 ? 1 : 1 + (double)pick(&N->rng, (uint64_t)((cx1 - cx0) / 8) + 1);
            }
            if (kx == 1 && ky == 1 && parent != NONE && s[0] + s[1] + s[2] + s[3] == 0)
                s[0] = 1; /* not the parent itself */
            double ax = cx0 + s[0], bx = cx1 - s[1], ay = cy0 + s[2], by = cy1 - s[3];
            if (bx - ax < 8 || by - ay < 8)
                continue;
            kcbp_vec2 p[64];
            size_t n = 0;
            if (pick(&N->rng, 3)) { /* a rectangle with points on its sides */
                kcbp_vec2 c[4] = {{ax, ay}, {bx, ay}, {bx, by}, {ax, by}};
                for (int k = 0; k < 4; k++)
                    n += side(N, c[k], c[(k + 1) % 4], p + n);
                uint32_t me = add_ring(N, p, n, d, parent);
                fill(N, ax, ay, bx, by, d + 1, me, level + 1);
            } else { /* a diamond: its corners at the box's side midpoints */
                double mx = (ax + bx) / 2, my = (ay + by) / 2;
                kcbp_vec2 c[4] = {{mx, ay}, {bx, my}, {mx, by}, {ax, my}};
                uint32_t me = add_ring(N, c, 4, d, parent);
                double qx = ceil((bx - ax) / 4), qy = ceil((by - ay) / 4);
                fill(N, ax + qx, ay + qy, bx - qx, by - qy, d + 1, me, level + 1);
            }
        }
}

static void test_known_nestings(void **state)
{
    (void)state;
    nest *N = malloc(sizeof *N);
    assert_non_null(N);
    uint32_t *depth = malloc(MAX_RINGS * sizeof *depth), *parent = malloc(MAX_RINGS * sizeof *parent);
    assert_non_null(depth);
    assert_non_null(parent);
    size_t rings = 0, deep = 0, touching_cases = 0;
    for (int trial = 0; trial < 400; trial++) {
        N->np = N->nr = 0;
        N->rng.s = 0x9e3779b97f4a7c15ull * (uint64_t)(trial + 1);
        double size = 1 << (8 + trial % 12);
        fill(N, 0, 0, size, size, 0, NONE, 0);
        if (!N->nr)
            continue;
        /* mirrored, turned a quarter (x and y swapped) or both, and far
         * from the origin, in some trials: all exact, the nesting the same */
        for (size_t k = 0; k < N->np; k++) {
            kcbp_vec2 *v = &N->pts[k];
            if (trial % 4 == 1 || trial % 4 == 3)
                v->x = -v->x;
            if (trial % 4 >= 2) {
                double t = v->x;
                v->x = v->y, v->y = t;
            }
            if (trial % 3 == 1)
                v->x += 1e15, v->y -= 3e14;
        }
        assert_true(kcbp_ring_nest(N->pts, N->end, N->nr, depth, parent));
        for (size_t r = 0; r < N->nr; r++) {
            if ((depth[r] != N->depth[r] || parent[r] != N->parent[r]) && getenv("RN_DEBUG"))
                for (size_t q = 0; q < N->nr; q++) {
                    fprintf(stderr, "ring %zu d %u p %d:", q, N->depth[q], (int)N->parent[q]);
                    for (size_t k = q ? N->end[q - 1] : 0; k < N->end[q]; k++)
                        fprintf(stderr, " (%g,%g)", N->pts[k].x, N->pts[k].y);
                    fprintf(stderr, "\n");
                }
            if (depth[r] != N->depth[r] || parent[r] != N->parent[r])
                fail_msg("trial %d ring %zu: depth %u parent %d, expected %u and %d", trial, r, depth[r],
                         (int)parent[r], N->depth[r], (int)N->parent[r]);
            deep += depth[r] >= 3;
        }
        rings += N->nr;
        touching_cases += N->nr > 1;
    }
    print_message("%zu rings in %zu nestings, %zu at depth 3 or more\n", rings, touching_cases, deep);
    assert_true(rings > 10000 && deep > 100);
    free(depth), free(parent), free(N);
}

/* Rings of random points, crossing each other and themselves: some answer,
 * consistent: a ring's parent is one level up, depth 0 has none. */
static void test_crossing_rings(void **state)
{
    (void)state;
    test_rng rng = {12345};
    enum { R = 60 };
    kcbp_vec2 pts[R * 8];
    uint32_t end[R], depth[R], parent[R];
    for (int trial = 0; trial < 2000; trial++) {
        size_t np = 0, nr = 1 + pick(&rng, R);
        for (size_t r = 0; r < nr; r++) {
            size_t n = 3 + pick(&rng, 6), s = np;
            while (np - s < n) {
                /* a small grid: many equal coordinates, shared points, collinear runs */
                kcbp_vec2 p = {(double)pick(&rng, 7), (double)pick(&rng, 7)};
                if (np > s && p.x == pts[np - 1].x && p.y == pts[np - 1].y)
                    continue;
                pts[np++] = p;
            }
            if (pts[np - 1].x == pts[s].x && pts[np - 1].y == pts[s].y)
                pts[np - 1].x += 0.5;
            end[r] = (uint32_t)np;
        }
        assert_true(kcbp_ring_nest(pts, end, nr, depth, parent));
        for (size_t r = 0; r < nr; r++) {
            assert_true(depth[r] < nr);
            if (depth[r] == 0) {
                assert_int_equal(parent[r], NONE);
            } else {
                assert_true(parent[r] < nr && parent[r] != r);
                assert_int_equal(depth[parent[r]], depth[r] - 1);
            }
        }
    }
}

/* 100,000 nested squares through the SVG reader: squares alternate as
 * shell and hole, so a small square between squares k and k + 1 (from the
 * inside) meets the region exactly when k is odd. */
static void test_svg_many_nested(void **state)
{
    (void)state;
    enum { N = 100000 };
    size_t cap = (size_t)N * 80 + 64, len = 0;
    char *svg = malloc(cap);
    assert_non_null(svg);
    len += (size_t)snprintf(svg + len, cap - len, "<svg xmlns=\"http://www.w3.org/2000/svg\">\n");
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(svg + len, cap - len, "<polygon points=\"%d,%d %d,%d %d,%d %d,%d\"/>\n", -2 * i,
                                -2 * i, 2 * i, -2 * i, 2 * i, 2 * i, -2 * i, 2 * i);
    len += (size_t)snprintf(svg + len, cap - len, "</svg>\n");
    clock_t t0 = clock();
    kcbp2d_model *m = NULL;
    kcbp_error e;
    assert_int_equal(kcbp2d_model_parse_svg(svg, len, "nested.svg", KCBP2D_SVG_FLATTEN, &m, &e), KCBP_OK);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("100000 nested squares read in %.2f s CPU\n", cpu);
    /* a guard against the quadratic grouping coming back (about 200 s),
     * not a speed claim: linearithmic takes well under a second */
    assert_true(cpu < 30);
    assert_int_equal(kcbp2d_model_ring_count(m), N);
    kcbp2d_shape dot = kcbp2d_shape_box(0.5, 0.5, 0);
    kcbp2d_pose id = kcbp2d_pose_identity();
    for (int k = 1; k < N; k += 997) {
        /* between square k (half-size 2k) and square k + 1: x = 2k + 1 */
        kcbp2d_pose at;
        assert_int_equal(kcbp2d_pose_from_angle(2.0 * k + 1, 0, 0, &at, NULL), KCBP_OK);
        kcbp2d_model_collide_result r;
        assert_int_equal(kcbp2d_model_shape_collide(m, &id, &dot, &at, NULL, &r, NULL), KCBP_OK);
        /* square i is held by the N - i outside it: the even ones (N is
         * even) are shells, so the gap outside an odd square is region */
        if (r.collide != (k % 2 == 1))
            fail_msg("between squares %d and %d: collide %d", k, k + 1, r.collide);
    }
    kcbp2d_model_free(m);
    free(svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_nestings),
        cmocka_unit_test(test_crossing_rings),
        cmocka_unit_test(test_svg_many_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
