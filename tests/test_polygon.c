/* The readers' polygon triangulation (src/mesh/polygon.h), against
 * independent exact oracles:
 *
 *  - cover: every triangle turns the polygon's way (exact orient2d, or
 *    orient3d against a point off the plane for a tilted face), and the
 *    triangles' boundaries add up, as chains of directed edges, to the
 *    polygon's (every diagonal used once each way, every polygon edge once
 *    forwards). Then the sum of the triangles' indicator functions is the
 *    winding number of the polygon's boundary, 1 inside a simple polygon and
 *    0 outside: the triangles cover it exactly, with disjoint interiors.
 *    O(n log n), so it runs on 100,000-vertex polygons;
 *  - brute force, for small polygons: no two triangles of area overlap in
 *    their interiors (an edge line of one separates them: exact orient2d),
 *    and their areas add up to the polygon's exactly (GMP rationals);
 *  - simplicity by brute force (every pair of edges, exact), to know which
 *    random polygons are simple.
 *
 * Families: stars, random star-shaped polygons, combs, spirals, rectangles
 * and stars with vertices in line, random simple polygons on small grids
 * (2-opt untangling: many collinear triples), each at rotated starting
 * vertices; convex polygons (the fan from v0, as before); and polygons that
 * are not simple (crossing, touching, repeated vertices, spikes, runs in
 * line, zero area, holes joined by a bridge), for which only n - 2
 * triangles over the polygon's vertices, determinism and termination are
 * promised (and, for the bridged hole, an exact cover). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gmp.h>
#include <math.h>

#include "testutil.h"

#include "geom/predicates.h"
#include "mesh/polygon.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------ oracles --- */

static int o2(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c) { return kcbp_orient2d(a.x, a.y, b.x, b.y, c.x, c.y); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The cover oracle for polygon v[0..n) (vertex i is position i) and its
 * n - 2 triangles: orient(t) is the sign of a triangle relative to the
 * polygon's normal. Returns the number of zero-area triangles, or -1 when a
 * triangle turns the wrong way or the boundaries do not add up. */
typedef int (*orient_fn)(const kcbp_vec3 *v, const kcbp_tri *t, const void *ctx);

static int orient_xy(const kcbp_vec3 *v, const kcbp_tri *t, const void *ctx)
{
    (void)ctx;
    return o2(v[t->v[0]], v[t->v[1]], v[t->v[2]]);
}

static int check_cover(const kcbp_vec3 *v, size_t n, const kcbp_tri *t, orient_fn orient, const void *ctx)
{
    uint64_t *e = malloc(sizeof *e * (3 * n + n));
    assert_non_null(e);
    size_t ne = 0;
    int flat = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        for (int k = 0; k < 3; k++)
            assert_true(t[i].v[k] < n);
        int s = orient(v, &t[i], ctx);
        if (s < 0) {
            free(e);
            return -1;
        }
        flat += s == 0;
        for (int k = 0; k < 3; k++) {
            uint64_t a = t[i].v[k], b = t[i].v[(k + 1) % 3];
            if (a != b) /* the key: (low, high) and a bit for "backwards" */
                e[ne++] = a < b ? (a << 32 | b) << 1 : ((b << 32 | a) << 1) | 1;
        }
    }
    for (uint64_t a = 0; a < n; a++) { /* minus the polygon's edge a -> a+1 */
        uint64_t b = (a + 1) % n;
        e[ne++] = a < b ? ((a << 32 | b) << 1) | 1 : (b << 32 | a) << 1;
    }
    qsort(e, ne, sizeof *e, cmp_u64);
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        long net = 0;
        for (; j < ne && e[j] >> 1 == e[i] >> 1; j++)
            net += e[j] & 1 ? -1 : 1;
        if (net != 0) {
            free(e);
            return -1;
        }
        i = j;
    }
    free(e);
    return flat;
}

/* Brute force (z = 0 polygons): triangles of area pairwise separated by an
 * edge line of one of them, and their areas adding up to the polygon's
 * (shoelace), exactly. */
static bool brute_cover(const kcbp_vec3 *v, size_t n, const kcbp_tri *t)
{
    for (size_t i = 0; i + 2 < n; i++)
        for (size_t j = i + 1; j + 2 < n; j++) {
            kcbp_vec3 A[3] = {v[t[i].v[0]], v[t[i].v[1]], v[t[i].v[2]]};
            kcbp_vec3 B[3] = {v[t[j].v[0]], v[t[j].v[1]], v[t[j].v[2]]};
            if (o2(A[0], A[1], A[2]) == 0 || o2(B[0], B[1], B[2]) == 0)
                continue;
            bool separated = false;
            for (int s = 0; s < 2 && !separated; s++) {
                const kcbp_vec3 *P = s ? B : A, *Q = s ? A : B;
                for (int k = 0; k < 3 && !separated; k++) {
                    bool all = true;
                    for (int q = 0; q < 3; q++)
                        all &= o2(P[k], P[(k + 1) % 3], Q[q]) <= 0;
                    separated = all;
                }
            }
            if (!separated)
                return false;
        }
    mpq_t sum, a, b, x;
    mpq_inits(sum, a, b, x, NULL);
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 p = v[i], q = v[(i + 1) % n];
        mpq_set_d(a, p.x), mpq_set_d(b, q.y), mpq_mul(x, a, b), mpq_add(sum, sum, x);
        mpq_set_d(a, q.x), mpq_set_d(b, p.y), mpq_mul(x, a, b), mpq_sub(sum, sum, x);
    }
    for (size_t i = 0; i + 2 < n; i++)
        for (int k = 0; k < 3; k++) {
            kcbp_vec3 p = v[t[i].v[k]], q = v[t[i].v[(k + 1) % 3]];
            mpq_set_d(a, p.x), mpq_set_d(b, q.y), mpq_mul(x, a, b), mpq_sub(sum, sum, x);
            mpq_set_d(a, q.x), mpq_set_d(b, p.y), mpq_mul(x, a, b), mpq_add(sum, sum, x);
        }
    bool ok = mpq_sgn(sum) == 0;
    mpq_clears(sum, a, b, x, NULL);
    return ok;
}

static bool on_seg(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r) /* r in line with pq: within its box */
{
    return fmin(p.x, q.x) <= r.x && r.x <= fmax(p.x, q.x) && fmin(p.y, q.y) <= r.y && r.y <= fmax(p.y, q.y);
}

static bool segs_meet(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c, kcbp_vec3 d)
{
    int d1 = o2(c, d, a), d2 = o2(c, d, b), d3 = o2(a, b, c), d4 = o2(a, b, d);
    if (d1 * d2 < 0 && d3 * d4 < 0)
        return true;
    return (d1 == 0 && on_seg(c, d, a)) || (d2 == 0 && on_seg(c, d, b)) || (d3 == 0 && on_seg(a, b, c)) ||
           (d4 == 0 && on_seg(a, b, d));
}

/* Simple: no two vertices at one point, no two edges meeting except
 * neighbours at their shared vertex (neighbours in line must not fold back). */
static bool is_simple(const kcbp_vec3 *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (v[i].x == v[j].x && v[i].y == v[j].y)
                return false;
            size_t i2 = (i + 1) % n, j2 = (j + 1) % n;
            if (j == i2 || i == j2) {
                kcbp_vec3 a = j == i2 ? v[i] : v[j], m = j == i2 ? v[i2] : v[j2], c = j == i2 ? v[j2] : v[i2];
                if (o2(a, m, c) == 0 && (a.x - m.x) * (c.x - m.x) + (a.y - m.y) * (c.y - m.y) > 0)
                    return false;
                continue;
            }
            if (segs_meet(v[i], v[i2], v[j], v[j2]))
                return false;
        }
    return true;
}

/* ---------------------------------------------------------- polygons --- */

/* Triangulates v[0..n) (the identity face), after rotating it to start at
 * vertex `start`; returns the triangles (malloc'ed) as positions of the
 * rotated polygon, which replaces v. */
static kcbp_tri *cut(kcbp_polygon_scratch *s, kcbp_vec3 *v, size_t n, size_t start)
{
    kcbp_vec3 *w = malloc(n * sizeof *w);
    uint32_t *poly = malloc(n * sizeof *poly);
    kcbp_tri *t = malloc(n * sizeof *t);
    assert_true(w && poly && t);
    for (size_t i = 0; i < n; i++) {
        w[i] = v[(i + start) % n];
        poly[i] = (uint32_t)i;
    }
    memcpy(v, w, n * sizeof *v);
    assert_int_equal(kcbp_polygon_triangulate(s, v, poly, n, t), KCBP_OK);
    free(w);
    free(poly);
    return t;
}

static double snap(double x) { return nearbyint(x * 0x1p30) * 0x1p-30; }

static void make_ccw(kcbp_vec3 *v, size_t n)
{
    double a = 0;
    for (size_t i = 0; i < n; i++)
        a += v[i].x * v[(i + 1) % n].y - v[(i + 1) % n].x * v[i].y;
    if (a < 0)
        for (size_t i = 0; i < n / 2; i++) {
            kcbp_vec3 t = v[i];
            v[i] = v[n - 1 - i];
            v[n - 1 - i] = t;
        }
}

/* Star of n vertices (n even), radii 1 and inner. */
static size_t gen_star(kcbp_vec3 *v, size_t n, double inner)
{
    for (size_t i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, r = i % 2 ? inner : 1;
        v[i] = kcbp_v3(snap(r * cos(a)), snap(r * sin(a)), 0);
    }
    return n;
}

static size_t gen_star_shaped(test_rng *r, kcbp_vec3 *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double a = 2 * M_PI * ((double)i + 0.9 * test_rng_uniform(r)) / (double)n, rad = 0.05 + test_rng_uniform(r);
        v[i] = kcbp_v3(snap(rad * cos(a)), snap(rad * sin(a)), 0);
    }
    return n;
}

/* A comb of `teeth` teeth standing on a bar: 4 teeth + 2 vertices. */
static size_t gen_comb(kcbp_vec3 *v, size_t teeth)
{
    size_t k = 0;
    v[k++] = kcbp_v3(0, 0, 0);
    v[k++] = kcbp_v3(2.0 * (double)teeth, 0, 0);
    for (size_t t = teeth; t-- > 0;) {
        double x = 2.0 * (double)t;
        v[k++] = kcbp_v3(x + 1, 1, 0);
        v[k++] = kcbp_v3(x + 1, 10, 0);
        v[k++] = kcbp_v3(x + 0.5, 10, 0);
        v[k++] = kcbp_v3(x + 0.5, 1, 0);
    }
    return k;
}

/* A band wound three times round: n vertices. */
static size_t gen_spiral(kcbp_vec3 *v, size_t n)
{
    size_t h = n / 2;
    for (size_t i = 0; i < h; i++) {
        double a = 6 * M_PI * (double)i / (double)h, r = 1 + a;
        v[i] = kcbp_v3(snap(r * cos(a)), snap(r * sin(a)), 0);
    }
    for (size_t i = 0; i < h; i++) {
        double a = 6 * M_PI * (double)(h - 1 - i) / (double)h, r = 1.8 + a;
        v[h + i] = kcbp_v3(snap(r * cos(a)), snap(r * sin(a)), 0);
    }
    return 2 * h;
}

/* A square of side s with every lattice point of its border a vertex. */
static size_t gen_lattice_square(kcbp_vec3 *v, size_t s)
{
    size_t k = 0;
    for (size_t i = 0; i < s; i++)
        v[k++] = kcbp_v3((double)i, 0, 0);
    for (size_t i = 0; i < s; i++)
        v[k++] = kcbp_v3((double)s, (double)i, 0);
    for (size_t i = 0; i < s; i++)
        v[k++] = kcbp_v3((double)(s - i), (double)s, 0);
    for (size_t i = 0; i < s; i++)
        v[k++] = kcbp_v3(0, (double)(s - i), 0);
    return k;
}

/* A star of `tips` tips whose every edge has three more vertices in line. */
static size_t gen_lattice_star(kcbp_vec3 *v, size_t tips)
{
    size_t k = 0;
    for (size_t i = 0; i < 2 * tips; i++) {
        double a0 = M_PI * (double)i / (double)tips, a1 = M_PI * (double)(i + 1) / (double)tips;
        double r0 = i % 2 ? 4 : 8, r1 = (i + 1) % 2 ? 4 : 8;
        double x0 = nearbyint(r0 * cos(a0) * 16) * 4, y0 = nearbyint(r0 * sin(a0) * 16) * 4;
        double x1 = nearbyint(r1 * cos(a1) * 16) * 4, y1 = nearbyint(r1 * sin(a1) * 16) * 4;
        for (int j = 0; j < 4; j++)
            v[k++] = kcbp_v3(x0 + (x1 - x0) * j / 4, y0 + (y1 - y0) * j / 4, 0);
    }
    return k;
}

/* A random simple polygon of up to n distinct points of a g x g grid, by
 * 2-opt: reverse the path between two crossing (or touching) edges until
 * none do. 0 when it gives up. */
static size_t gen_grid_2opt(test_rng *r, kcbp_vec3 *v, size_t n, int g)
{
    if (n > (size_t)(g * g) / 2)
        n = (size_t)(g * g) / 2;
    for (size_t i = 0; i < n; i++) {
        bool again = true;
        while (again) {
            v[i] = kcbp_v3((double)(int)(test_rng_uniform(r) * g), (double)(int)(test_rng_uniform(r) * g), 0);
            again = false;
            for (size_t j = 0; j < i; j++)
                again |= v[j].x == v[i].x && v[j].y == v[i].y;
        }
    }
    for (int it = 0; it < 5000; it++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            for (size_t j = i + 2; j < n && !found; j++) {
                if (i == 0 && j == n - 1)
                    continue;
                if (segs_meet(v[i], v[i + 1], v[j], v[(j + 1) % n])) {
                    for (size_t a = i + 1, b = j; a < b; a++, b--) {
                        kcbp_vec3 t = v[a];
                        v[a] = v[b];
                        v[b] = t;
                    }
                    found = true;
                }
            }
        if (!found)
            break;
    }
    return is_simple(v, n) ? n : 0;
}

/* Checks a simple polygon at a few starting vertices: exact cover, no
 * zero-area triangle, brute force too when small; the fan from v0 when the
 * rule says so. */
static void check_simple(kcbp_polygon_scratch *s, test_rng *r, kcbp_vec3 *v, size_t n, int starts)
{
    if (n <= 3000 && !is_simple(v, n)) /* a small spiral, say: not what this checks */
        return;
    make_ccw(v, n);
    for (int k = 0; k < starts; k++) {
        size_t start = k == 0 ? 0 : (size_t)(test_rng_uniform(r) * (double)n);
        kcbp_tri *t = cut(s, v, n, start);
        assert_true(s->path == KCBP_POLY_FAN || s->path == KCBP_POLY_SWEPT);
        assert_int_equal(check_cover(v, n, t, orient_xy, NULL), 0);
        if (n <= 80)
            assert_true(brute_cover(v, n, t));
        if (s->path == KCBP_POLY_FAN)
            for (uint32_t i = 0; i + 2 < n; i++) {
                assert_int_equal(t[i].v[0], 0);
                assert_int_equal(t[i].v[1], i + 1);
                assert_int_equal(t[i].v[2], i + 2);
            }
        free(t);
    }
}

/* ------------------------------------------------------------ tests --- */

static void test_families(void **state)
{
    (void)state;
    kcbp_polygon_scratch s = {0};
    test_rng r = {0x9e3779b97f4a7c15u};
    const size_t sizes[] = {4, 5, 6, 7, 8, 10, 13, 20, 33, 64, 100, 257, 1000};
    kcbp_vec3 *v = malloc(8 * 1024 * sizeof *v);
    assert_non_null(v);
    int swept = 0, fans = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        int reps = n <= 100 ? 20 : 2;
        for (int rep = 0; rep < reps; rep++) {
            size_t m;
            m = gen_star(v, n & ~(size_t)1, 0.3 + 0.6 * test_rng_uniform(&r));
            check_simple(&s, &r, v, m, 3);
            swept += s.path == KCBP_POLY_SWEPT;
            m = gen_star_shaped(&r, v, n);
            check_simple(&s, &r, v, m, 3);
            fans += s.path == KCBP_POLY_FAN;
            m = gen_comb(v, n / 4 + 1);
            check_simple(&s, &r, v, m, 3);
            m = gen_spiral(v, n < 8 ? 8 : n);
            check_simple(&s, &r, v, m, 3);
            m = gen_lattice_square(v, n / 4 + 1);
            check_simple(&s, &r, v, m, 3);
            if (n >= 16) {
                m = gen_lattice_star(v, n / 8);
                check_simple(&s, &r, v, m, 3);
            }
        }
    }
    /* random simple polygons on small grids: most vertices in line with others */
    for (int rep = 0; rep < 600; rep++) {
        int g = rep % 3 == 0 ? 64 : 4 + (int)(test_rng_uniform(&r) * 8);
        size_t m = gen_grid_2opt(&r, v, 4 + (size_t)(test_rng_uniform(&r) * 40), g);
        if (m)
            check_simple(&s, &r, v, m, 4);
    }
    assert_true(swept > 0 && fans > 0);
    free(v);
    kcbp_polygon_scratch_free(&s);
}

/* 100,000-vertex stars, spirals, combs and lattice squares: exact cover in
 * O(n log n) (the tests assert no time; make test would show a quadratic
 * cut as minutes). */
static void test_huge(void **state)
{
    (void)state;
    kcbp_polygon_scratch s = {0};
    test_rng r = {12345};
    size_t n = 100000;
    kcbp_vec3 *v = malloc((n + 16) * sizeof *v);
    assert_non_null(v);
    size_t ms[4];
    for (int f = 0; f < 4; f++) {
        ms[f] = f == 0 ? gen_star(v, n, 0.5) : f == 1 ? gen_spiral(v, n) : f == 2 ? gen_comb(v, n / 4) : gen_lattice_square(v, n / 4);
        make_ccw(v, ms[f]);
        kcbp_tri *t = cut(&s, v, ms[f], (size_t)(test_rng_uniform(&r) * (double)ms[f]));
        assert_int_equal(s.path, KCBP_POLY_SWEPT);
        assert_int_equal(check_cover(v, ms[f], t, orient_xy, NULL), 0);
        free(t);
    }
    free(v);
    kcbp_polygon_scratch_free(&s);
}

/* Convex polygons are the fan from v0, whatever their size and winding, as
 * before; a zero-area fan triangle sends the polygon to the sweep. */
static void test_convex_fan(void **state)
{
    (void)state;
    kcbp_polygon_scratch s = {0};
    kcbp_vec3 v[2000];
    for (size_t n = 4; n <= 2000; n = n * 3 / 2) {
        for (int dir = 0; dir < 2; dir++) {
            for (size_t i = 0; i < n; i++) {
                double a = (dir ? -2 : 2) * M_PI * (double)i / (double)n;
                v[i] = kcbp_v3(cos(a), sin(a), 0);
            }
            kcbp_tri *t = cut(&s, v, n, 0);
            assert_int_equal(s.path, KCBP_POLY_FAN);
            for (uint32_t i = 0; i + 2 < n; i++) {
                assert_int_equal(t[i].v[0], 0);
                assert_int_equal(t[i].v[1], i + 1);
                assert_int_equal(t[i].v[2], i + 2);
            }
            free(t);
        }
    }
    /* A rectangle with a vertex in line with v0 and v1: the fan would have
     * the zero-area (v0 v1 v2), v1 lying on the edge of (v0 v2 v3). */
    kcbp_vec3 rect[5] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}};
    kcbp_tri *t = cut(&s, rect, 5, 0);
    assert_int_equal(s.path, KCBP_POLY_SWEPT);
    assert_int_equal(check_cover(rect, 5, t, orient_xy, NULL), 0);
    free(t);
    /* The same starting elsewhere: its fan is valid. */
    t = cut(&s, rect, 5, 1);
    assert_int_equal(s.path, KCBP_POLY_FAN);
    free(t);
    kcbp_polygon_scratch_free(&s);
}

/* A face in a tilted plane, exactly planar (z = x + 2y, small integers):
 * the projection along y keeps every sign, so the cover is exact in 3D
 * (orient3d against a point above the plane). */
static int orient_tilted(const kcbp_vec3 *v, const kcbp_tri *t, const void *ctx)
{
    const kcbp_vec3 *above = ctx;
    return kcbp_orient3d(v[t->v[0]], v[t->v[1]], v[t->v[2]], *above);
}

static void test_tilted_plane(void **state)
{
    (void)state;
    kcbp_polygon_scratch s = {0};
    kcbp_vec3 v[256];
    size_t n = gen_lattice_star(v, 16);
    make_ccw(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = kcbp_v3(v[i].x, v[i].y, v[i].x + 2 * v[i].y);
    kcbp_vec3 above = kcbp_v3(0, 0, 1e4); /* z above x + 2y: the side the normal (-1, -2, 1) points to */
    for (size_t start = 0; start < n; start += 7) {
        kcbp_tri *t = cut(&s, v, n, start);
        assert_int_equal(s.path, KCBP_POLY_SWEPT);
        assert_int_equal(check_cover(v, n, t, orient_tilted, &above), 0);
        free(t);
    }
    kcbp_polygon_scratch_free(&s);
}

typedef struct {
    const char *name;
    double p[12][2];
    size_t np;
    uint32_t idx[12];
    size_t n;
    kcbp_polygon_path path;
    int zero_area;    /* zero-area triangles expected, -1: not checked */
    bool exact_cover; /* the cover oracle holds (weakly simple polygons) */
} degenerate_case;

/* Polygons that are not simple: n - 2 triangles over the polygon's
 * vertices, the same on a second run (and after other faces in the
 * scratch), and the documented rule. */
static void test_not_simple(void **state)
{
    (void)state;
    static const degenerate_case cases[] = {
        /* a square hole joined to the border by a bridge: duplicate
         * coordinates, then duplicate indices; ear clipped exactly */
        {"hole by coordinates",
         {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}, {1, 1}, {1, 3}, {3, 3}, {3, 1}, {1, 1}},
         10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10, KCBP_POLY_CLIPPED, 0, true},
        {"hole by indices",
         {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {1, 1}, {1, 3}, {3, 3}, {3, 1}},
         8, {0, 1, 2, 3, 0, 4, 5, 6, 7, 4}, 10, KCBP_POLY_CLIPPED, 0, true},
        /* two squares touching at a corner, as one polygon */
        {"touching",
         {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}, {1, 2}, {1, 1}, {0, 1}},
         8, {0, 1, 2, 3, 4, 5, 6, 7}, 8, KCBP_POLY_CLIPPED, 2, true}, /* 6 triangles, 4 of area */
        /* crossing itself: no interior to cover */
        {"crossing", {{0, 0}, {2, 2}, {2, 0}, {0, 3}}, 4, {0, 1, 2, 3}, 4, KCBP_POLY_CLIPPED, -1, false},
        /* a symmetric bow tie: zero Newell normal, the fan */
        {"bow tie", {{0, 0}, {4, 0}, {0, 2}, {4, 2}}, 4, {0, 1, 2, 3}, 4, KCBP_POLY_FLAT_FAN, 0, false},
        /* repeated vertex, by coordinates and by index: one zero-area triangle */
        {"repeat by coordinates", {{0, 0}, {1, 0}, {1, 0}, {1, 1}, {0, 1}}, 5, {0, 1, 2, 3, 4}, 5, KCBP_POLY_SWEPT, 1, true},
        {"repeat by index", {{0, 0}, {1, 0}, {1, 1}, {0, 1}}, 4, {0, 1, 1, 2, 3}, 5, KCBP_POLY_SWEPT, 1, true},
        /* a spike out and back along one line */
        {"spike", {{0, 0}, {2, 0}, {2, 2}, {1, 2}, {1, 5}, {1, 2}, {0, 2}}, 7, {0, 1, 2, 3, 4, 5, 6}, 7, KCBP_POLY_SWEPT, 2, true},
        {"spike with a stop", {{0, 0}, {2, 0}, {2, 2}, {1, 2}, {1, 5}, {1, 3}, {1, 2.5}, {0, 2}}, 8,
         {0, 1, 2, 3, 4, 5, 6, 7}, 8, KCBP_POLY_SWEPT, 2, true},
        /* all in line (zero normal): the fan, zero-area */
        {"in line", {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}, 5, {0, 1, 2, 3, 4}, 5, KCBP_POLY_FLAT_FAN, 3, false},
        {"one point", {{1, 1}}, 1, {0, 0, 0, 0}, 4, KCBP_POLY_FLAT_FAN, 2, false},
    };
    kcbp_polygon_scratch s = {0};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const degenerate_case *dc = &cases[c];
        kcbp_vec3 v[12], vp[12];
        for (size_t i = 0; i < dc->np; i++)
            v[i] = kcbp_v3(dc->p[i][0], dc->p[i][1], 0);
        for (size_t i = 0; i < dc->n; i++)
            vp[i] = v[dc->idx[i]];
        kcbp_tri t[12], again[12];
        assert_int_equal(kcbp_polygon_triangulate(&s, v, dc->idx, dc->n, t), KCBP_OK);
        if (s.path != dc->path)
            fail_msg("%s: rule %d, expected %d", dc->name, (int)s.path, (int)dc->path);
        /* the same after a big face went through the scratch */
        kcbp_vec3 big[300];
        kcbp_tri *bt = cut(&s, big, gen_star(big, 300, 0.5), 0);
        free(bt);
        assert_int_equal(kcbp_polygon_triangulate(&s, v, dc->idx, dc->n, again), KCBP_OK);
        assert_memory_equal(t, again, (dc->n - 2) * sizeof *t);
        int zero = 0;
        for (size_t i = 0; i + 2 < dc->n; i++) {
            bool mine[3] = {false, false, false};
            for (int k = 0; k < 3; k++)
                for (size_t j = 0; j < dc->n; j++)
                    mine[k] |= t[i].v[k] == dc->idx[j];
            assert_true(mine[0] && mine[1] && mine[2]);
            zero += o2(v[t[i].v[0]], v[t[i].v[1]], v[t[i].v[2]]) == 0;
        }
        if (dc->zero_area >= 0 && zero != dc->zero_area)
            fail_msg("%s: %d zero-area triangles, expected %d", dc->name, zero, dc->zero_area);
        /* The triangulation works on the points alone: the face given by
         * its points (positions for indices) gives the same triangles, as
         * positions, which the cover oracle reads. */
        uint32_t ident[12];
        kcbp_tri tp[12];
        for (uint32_t i = 0; i < dc->n; i++)
            ident[i] = i;
        assert_int_equal(kcbp_polygon_triangulate(&s, vp, ident, dc->n, tp), KCBP_OK);
        for (size_t i = 0; i + 2 < dc->n; i++)
            for (int k = 0; k < 3; k++)
                assert_int_equal(t[i].v[k], dc->idx[tp[i].v[k]]);
        if (dc->exact_cover && check_cover(vp, dc->n, tp, orient_xy, NULL) < 0)
            fail_msg("%s: not an exact cover", dc->name);
    }
    kcbp_polygon_scratch_free(&s);
}

/* Large polygons that are not simple end within the budget, with n - 2
 * triangles: a star that crosses itself (every other tip pulled through
 * the opposite side) and one whose vertices all repeat. */
static void test_not_simple_huge(void **state)
{
    (void)state;
    kcbp_polygon_scratch s = {0};
    size_t n = 100000;
    kcbp_vec3 *v = malloc(n * sizeof *v);
    uint32_t *poly = malloc(n * sizeof *poly);
    kcbp_tri *t = malloc(n * sizeof *t);
    assert_true(v && poly && t);
    for (size_t i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, r = i % 4 == 1 ? -0.6 : i % 2 ? 0.5 : 1;
        v[i] = kcbp_v3(snap(r * cos(a)), snap(r * sin(a)), 0);
        poly[i] = (uint32_t)i;
    }
    assert_int_equal(kcbp_polygon_triangulate(&s, v, poly, n, t), KCBP_OK);
    assert_true(s.path == KCBP_POLY_CLIPPED || s.path == KCBP_POLY_CLIPPED_FAN);
    for (size_t i = 0; i + 2 < n; i++)
        assert_true(t[i].v[0] < t[i].v[1] && t[i].v[1] < t[i].v[2] && t[i].v[2] < n);
    for (size_t i = 0; i < n; i++) /* a square gone round n / 4 times */
        v[i] = kcbp_v3(i % 4 == 1 || i % 4 == 2, i % 4 >= 2, 0);
    assert_int_equal(kcbp_polygon_triangulate(&s, v, poly, n, t), KCBP_OK);
    assert_true(s.path == KCBP_POLY_CLIPPED || s.path == KCBP_POLY_CLIPPED_FAN || s.path == KCBP_POLY_SWEPT);
    for (size_t i = 0; i + 2 < n; i++)
        assert_true(t[i].v[0] < t[i].v[1] && t[i].v[1] < t[i].v[2] && t[i].v[2] < n);
    free(v);
    free(poly);
    free(t);
    kcbp_polygon_scratch_free(&s);
}

/* kcbp_polygon_rings_check: rings bound a region simply (winding 0 or 1,
 * no edges meeting), exactly. */
static bool rings_ok(kcbp_polygon_scratch *s, const double (*p)[2], const uint32_t *next, size_t n)
{
    double uv[64];
    for (size_t i = 0; i < n; i++)
        uv[2 * i] = p[i][0], uv[2 * i + 1] = p[i][1];
    bool ok;
    assert_int_equal(kcbp_polygon_rings_check(s, uv, next, n, &ok), KCBP_OK);
    return ok;
}

static void test_rings_check(void **state)
{
    (void)state;
    kcbp_polygon_scratch s = {0};
    /* a square, counter-clockwise (vertices 0-3), and a square hole or
     * island (4-7) */
    const double p[8][2] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}, {1, 1}, {1, 3}, {3, 3}, {3, 1}};
    const uint32_t ccw[4] = {1, 2, 3, 0}, cw[4] = {3, 0, 1, 2};
    assert_true(rings_ok(&s, p, ccw, 4));
    assert_false(rings_ok(&s, p, cw, 4)); /* wound -1 times */
    const uint32_t hole[8] = {1, 2, 3, 0, 5, 6, 7, 4};   /* 4 5 6 7: clockwise inside: a hole */
    const uint32_t island[8] = {1, 2, 3, 0, 7, 4, 5, 6}; /* 4 7 6 5: counter-clockwise: wound twice */
    assert_true(rings_ok(&s, p, hole, 8));
    assert_false(rings_ok(&s, p, island, 8));
    /* two squares apart, both counter-clockwise; touching at a corner;
     * overlapping; one crossing itself (a bow tie) */
    const double q[8][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {2, 0}, {3, 0}, {3, 1}, {2, 1}};
    const uint32_t two[8] = {1, 2, 3, 0, 5, 6, 7, 4};
    assert_true(rings_ok(&s, q, two, 8));
    double r[8][2];
    memcpy(r, q, sizeof r);
    for (int i = 4; i < 8; i++)
        r[i][0] -= 1; /* x 1..2: sharing the edge x = 1 */
    assert_false(rings_ok(&s, r, two, 8));
    for (int i = 4; i < 8; i++)
        r[i][0] -= 0.5, r[i][1] += 0.5; /* overlapping */
    assert_false(rings_ok(&s, r, two, 8));
    const uint32_t bow[4] = {2, 3, 1, 0}; /* 0 2 1 3 */
    assert_false(rings_ok(&s, q, bow, 4));
    /* not a permutation into rings of 3 or more */
    const uint32_t two_cycle[4] = {1, 0, 3, 2}, repeat[4] = {1, 2, 1, 0};
    assert_false(rings_ok(&s, q, two_cycle, 4));
    assert_false(rings_ok(&s, q, repeat, 4));
    kcbp_polygon_scratch_free(&s);
}

/* The case, through the OBJ reader: a 2,000-point star used to be
 * fanned (934 flipped triangles); now none turns the wrong way. */
static void test_obj_star_2000(void **state)
{
    (void)state;
    size_t n = 2000, cap = 64 * n + 16;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        double a = 2 * M_PI * (double)i / (double)n, r = i % 2 ? 0.5 : 1;
        len += (size_t)snprintf(text + len, cap - len, "v %.17g %.17g 0\n", r * cos(a), r * sin(a));
    }
    len += (size_t)snprintf(text + len, cap - len, "f");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, " %zu", i + 1);
    len += (size_t)snprintf(text + len, cap - len, "\n");
    kcbp_mesh m;
    kcbp_error err = {0};
    assert_int_equal(kcbp_obj_parse_into("star.obj", text, len, &m, &err), KCBP_OK);
    assert_int_equal(m.ntriangles, n - 2);
    assert_int_equal(m.ndegenerate, 0);
    assert_int_equal(check_cover(m.vertices, n, m.triangles, orient_xy, NULL), 0);
    kcbp_mesh_clear(&m);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_families),     cmocka_unit_test(test_huge),
        cmocka_unit_test(test_convex_fan),   cmocka_unit_test(test_tilted_plane),
        cmocka_unit_test(test_not_simple),   cmocka_unit_test(test_not_simple_huge),
        cmocka_unit_test(test_obj_star_2000), cmocka_unit_test(test_rings_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
