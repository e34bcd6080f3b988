/* kcbp_distance on nested surfaces at (nearly) constant clearance (issue
 * 33 item 1): pointed cones (fans of slivers from the apex, no base) one
 * lifted in the other, a shaft in its bore, concentric spheres, coaxial
 * flat fans, at small sizes, at random poses of the pair and in both
 * orders. The oracle: the smallest kcbp_tri_distance over all triangle
 * pairs, in A's frame as kcbp_distance computes it; the answer must be
 * within KCBP_TRI_DIST_REL_ERR of the coordinates' size of it (the
 * search may drop pairs within that of the best: many pairs are at the
 * smallest distance here). The closest points must lie on the reported
 * triangles at the reported distance. No timing; the work counts show
 * that the tied pairs are not all visited. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"

#include <kcbp/kcbp.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
    kcbp_vec3 *v;
    kcbp_tri *t;
    size_t nv, nt;
} soup;

static uint32_t put_v(soup *s, double x, double y, double z)
{
    s->v = realloc(s->v, (s->nv + 1) * sizeof *s->v);
    assert_non_null(s->v);
    s->v[s->nv] = kcbp_v3(x, y, z);
    return (uint32_t)s->nv++;
}

static void put_t(soup *s, uint32_t a, uint32_t b, uint32_t c)
{
    s->t = realloc(s->t, (s->nt + 1) * sizeof *s->t);
    assert_non_null(s->t);
    s->t[s->nt].v[0] = a;
    s->t[s->nt].v[1] = b;
    s->t[s->nt].v[2] = c;
    s->nt++;
}

/* A fan of n slivers from (0, 0, z0) to a ring of radius r at z1. */
static void fan(soup *s, int n, double z0, double z1, double r, double phase)
{
    uint32_t apex = put_v(s, 0, 0, z0), first = (uint32_t)s->nv;
    for (int k = 0; k < n; k++)
        put_v(s, r * cos(phase + 2 * M_PI * k / n), r * sin(phase + 2 * M_PI * k / n), z1);
    for (int k = 0; k < n; k++)
        put_t(s, apex, first + (uint32_t)k, first + (uint32_t)((k + 1) % n));
}

static void tube(soup *s, int n, double r, double z0, double z1, double phase)
{
    uint32_t b = (uint32_t)s->nv;
    for (int k = 0; k < n; k++) {
        double t = phase + 2 * M_PI * k / n;
        put_v(s, r * cos(t), r * sin(t), z0);
        put_v(s, r * cos(t), r * sin(t), z1);
    }
    for (int k = 0; k < n; k++) {
        uint32_t p0 = b + 2 * (uint32_t)k, q0 = b + 2 * (uint32_t)((k + 1) % n);
        put_t(s, p0, q0, q0 + 1);
        put_t(s, p0, q0 + 1, p0 + 1);
    }
}

static void sphere(soup *s, int n, double r, double phase)
{
    int rings = n / 2;
    uint32_t south = put_v(s, 0, 0, -r), b = (uint32_t)s->nv;
    for (int i = 1; i < rings; i++) {
        double p = -M_PI / 2 + M_PI * i / rings;
        for (int k = 0; k < n; k++) {
            double t = phase + 2 * M_PI * k / n;
            put_v(s, r * cos(p) * cos(t), r * cos(p) * sin(t), r * sin(p));
        }
    }
    uint32_t north = put_v(s, 0, 0, r), last = b + (uint32_t)((rings - 2) * n);
    for (int k = 0; k < n; k++) {
        uint32_t k0 = (uint32_t)k, k1 = (uint32_t)((k + 1) % n);
        put_t(s, south, b + k1, b + k0);
        for (int i = 0; i + 2 < rings; i++) {
            uint32_t r0 = b + (uint32_t)(i * n), r1 = r0 + (uint32_t)n;
            put_t(s, r0 + k0, r0 + k1, r1 + k1);
            put_t(s, r0 + k0, r1 + k1, r1 + k0);
        }
        put_t(s, north, last + k0, last + k1);
    }
}

static void build(kcbp_model *m, soup *s)
{
    kcbp_error err = {0};
    kcbp_mesh *mesh = NULL;
    assert_int_equal(kcbp_mesh_create(s->v, s->nv, s->t, s->nt, &mesh, &err), KCBP_OK);
    assert_int_equal(kcbp_model_build(m, mesh, NULL, &err), KCBP_OK);
    free(s->v);
    free(s->t);
    memset(s, 0, sizeof *s);
}

static kcbp_vec3 tri_vertex(const kcbp_model *m, uint32_t t, int k)
{
    const kcbp_mesh *mesh = kcbp_model_mesh(m);
    return kcbp_mesh_vertices(mesh)[kcbp_mesh_triangles(mesh)[t].v[k]];
}

/* kcbp_distance against the brute force, for a at pose pa and b at pb;
 * returns the triangle pairs computed. */
static uint64_t check_pair(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb)
{
    kcbp_pose rel = kcbp_pose_relative(pa, pb);
    uint32_t na = kcbp_mesh_triangle_count(kcbp_model_mesh(a)), nb = kcbp_mesh_triangle_count(kcbp_model_mesh(b));
    double want = INFINITY, scale = 0;
    kcbp_vec3 *tb = malloc((size_t)nb * 3 * sizeof *tb);
    assert_non_null(tb);
    for (uint32_t j = 0; j < nb; j++)
        for (int c = 0; c < 3; c++) {
            tb[3 * j + c] = kcbp_pose_apply(&rel, tri_vertex(b, j, c));
            scale = fmax(scale, kcbp_v3_max_abs(tb[3 * j + c]));
        }
    for (uint32_t i = 0; i < na; i++) {
        kcbp_vec3 ta[3];
        for (int c = 0; c < 3; c++) {
            ta[c] = tri_vertex(a, i, c);
            scale = fmax(scale, kcbp_v3_max_abs(ta[c]));
        }
        for (uint32_t j = 0; j < nb; j++)
            want = fmin(want, kcbp_tri_distance(ta, tb + 3 * j, NULL, NULL));
    }
    free(tb);
    kcbp_error err = {0};
    kcbp_distance_result res;
    assert_int_equal(kcbp_distance(a, pa, b, pb, NULL, &res, &err), KCBP_OK);
    assert_true(res.within);
    double tol = KCBP_TRI_DIST_REL_ERR * scale;
    if (!(fabs(res.distance - want) <= tol))
        fail_msg("distance %.17g, brute force %.17g (off by %.3g of the scale)", res.distance, want,
                 fabs(res.distance - want) / scale);
    /* the points: on the reported triangles (world frame), as far apart as said */
    assert_true(fabs(kcbp_v3_len(kcbp_v3_sub(res.point_b, res.point_a)) - res.distance) <= tol);
    kcbp_vec3 wa[3], wb[3];
    for (int c = 0; c < 3; c++) {
        wa[c] = kcbp_pose_apply(pa, tri_vertex(a, res.tri_a, c));
        wb[c] = kcbp_pose_apply(pb, tri_vertex(b, res.tri_b, c));
    }
    assert_true(fabs(kcbp_tri_distance(wa, wb, NULL, NULL) - res.distance) <= 4 * tol);
    return res.tree.tri_pairs;
}

/* Both orders, at the identity and at a random pose of the pair. */
static uint64_t check_both(const kcbp_model *a, const kcbp_model *b, test_rng *r)
{
    kcbp_pose id = kcbp_pose_identity(), p = test_random_pose(r, 0.5);
    uint64_t most = 0, n;
    const kcbp_pose *poses[2] = {&id, &p};
    for (int k = 0; k < 2; k++) {
        n = check_pair(a, poses[k], b, poses[k]);
        most = n > most ? n : most;
        n = check_pair(b, poses[k], a, poses[k]);
        most = n > most ? n : most;
    }
    return most;
}

/* Identical cones, one lifted along the axis: every triangle pair is at
 * the clearance (each sliver holds its apex); turned by a fraction of a
 * sector, the vertices no longer line up. */
static void test_nested_cones(void **state)
{
    (void)state;
    test_rng r = {0xc0e5ull};
    const int sizes[] = {160, 300};
    const double lifts[] = {0.02, 0.07, 0.1}, halves[] = {15, 30, 50}, spins[] = {0, 0.37};
    for (int si = 0; si < 2; si++)
        for (int li = 0; li < 3; li++)
            for (int hi = 0; hi < 3; hi++)
                for (int pi = 0; pi < 2; pi++) {
                    int n = sizes[si];
                    double rr = tan(halves[hi] * M_PI / 180);
                    soup sa = {0}, sb = {0};
                    fan(&sa, n, 0, 1, rr, 0);
                    fan(&sb, n, lifts[li], 1 + lifts[li], rr, spins[pi] * 2 * M_PI / n);
                    kcbp_model a, b;
                    build(&a, &sa);
                    build(&b, &sb);
                    uint64_t pairs = check_both(&a, &b, &r);
                    /* vertices in line: the tied pairs are not all computed */
                    if (spins[pi] == 0 && !(pairs < (uint64_t)n * n / 2))
                        fail_msg("n %d lift %g half %g: %llu triangle pairs", n, lifts[li], halves[hi],
                                 (unsigned long long)pairs);
                    kcbp_model_free(&a);
                    kcbp_model_free(&b);
                }
}

/* Moves vertices first.. of s by rotation tilt (radians) about the
 * horizontal axis at angle phi, then by (sx, sy, lift). */
static void place(soup *s, size_t first, double tilt, double phi, double sx, double sy, double lift)
{
    double ax = cos(phi), ay = sin(phi), c = cos(tilt), sn = sin(tilt);
    for (size_t i = first; i < s->nv; i++) {
        kcbp_vec3 v = s->v[i];
        /* Rodrigues about (ax, ay, 0) */
        double d = ax * v.x + ay * v.y;
        kcbp_vec3 cr = {ay * v.z, -ax * v.z, ax * v.y - ay * v.x};
        s->v[i] = kcbp_v3(v.x * c + cr.x * sn + ax * d * (1 - c) + sx, v.y * c + cr.y * sn + ay * d * (1 - c) + sy,
                          v.z * c + cr.z * sn + lift);
    }
}

/* A disc closing a cone (a fan from the centre of its rim). */
static void base(soup *s, int n, double z, double r, double phase)
{
    uint32_t c = put_v(s, 0, 0, z), first = (uint32_t)s->nv;
    for (int k = 0; k < n; k++)
        put_v(s, r * cos(phase + 2 * M_PI * k / n), r * sin(phase + 2 * M_PI * k / n), z);
    for (int k = 0; k < n; k++)
        put_t(s, c, first + (uint32_t)((k + 1) % n), first + (uint32_t)k);
}

/* Cones nested in poses the bounds were not tuned on (issue 33's held-out
 * classes): B tilted, shifted sideways, turned, of another sliver count,
 * with and without base, at clearances from 1e-3 to 1e-1 of the height
 * (the lift is drawn so that B stays inside A's side planes; where B rises
 * above A's rim the clearance is larger). */
static void test_posed_cones(void **state)
{
    (void)state;
    test_rng r = {0x90c5ull};
    for (int trial = 0; trial < 24; trial++) {
        int n = 96 + (int)(test_rng_uniform(&r) * 160), nb = trial % 3 ? n : n * 3 / 4 + 1, with_base = trial % 2;
        double half = 15 + 35 * test_rng_uniform(&r), rr = tan(half * M_PI / 180);
        double tilt = (trial % 4) * 0.5 * test_rng_uniform(&r) * M_PI / 180;
        double shift = (trial % 5 < 2 ? 0 : 0.02) * test_rng_uniform(&r), phi = 2 * M_PI * test_rng_uniform(&r);
        double clear = pow(10, -3 + 2 * test_rng_uniform(&r)), spin = test_rng_uniform(&r);
        double hb = with_base ? 0.7 : 1;
        /* B's apex at height lift: its side planes' least gap, about
         * lift sin(half) less what the tilt and the shift take, and B's
         * rim below A's base with one */
        double lift = clear / sin(half * M_PI / 180) + (shift + sin(tilt) * hb * (1 + rr)) / tan(half * M_PI / 180);
        soup sa = {0}, sb = {0};
        fan(&sa, n, 0, 1, rr, 0);
        if (with_base)
            base(&sa, n, 1, rr, 0);
        fan(&sb, nb, 0, hb, hb * rr, spin * 2 * M_PI / nb);
        if (with_base)
            base(&sb, nb, hb, hb * rr, spin * 2 * M_PI / nb);
        place(&sb, 0, tilt, phi, shift * cos(phi + 1), shift * sin(phi + 1), lift);
        kcbp_model a, b;
        build(&a, &sa);
        build(&b, &sb);
        check_both(&a, &b, &r);
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
}

/* A shaft in its bore (open tubes, strips over the whole length). */
static void test_shaft_bore(void **state)
{
    (void)state;
    test_rng r = {0x5ba7ull};
    const double clear[] = {0.002, 0.05};
    for (int ci = 0; ci < 2; ci++)
        for (int m = 60; m <= 240; m += 180) {
            soup sa = {0}, sb = {0};
            tube(&sa, 200, 1, -1, 1, 0);
            tube(&sb, m, 1 - clear[ci], -0.8, 0.8, 0.3 * 2 * M_PI / m);
            kcbp_model a, b;
            build(&a, &sa);
            build(&b, &sb);
            check_both(&a, &b, &r);
            kcbp_model_free(&a);
            kcbp_model_free(&b);
        }
}

/* Concentric spheres: the same and different tessellations. */
static void test_shells(void **state)
{
    (void)state;
    test_rng r = {0x5e11ull};
    const int ms[] = {24, 30};
    for (int mi = 0; mi < 2; mi++) {
        soup sa = {0}, sb = {0};
        sphere(&sa, 24, 1, 0);
        sphere(&sb, ms[mi], 0.97, mi ? 0.3 : 0);
        kcbp_model a, b;
        build(&a, &sa);
        build(&b, &sb);
        check_both(&a, &b, &r);
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
}

/* A closed torus of n x m quads (two triangles each), major radius 1,
 * tube radius r, turned by phase about z. */
static void torus(soup *s, int n, int m, double r, double phase)
{
    uint32_t b = (uint32_t)s->nv;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double t = phase + 2 * M_PI * i / n, p = 2 * M_PI * j / m, rr = 1 + r * cos(p);
            put_v(s, rr * cos(t), rr * sin(t), r * sin(p));
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            uint32_t p00 = b + (uint32_t)(i * m + j), p01 = b + (uint32_t)(i * m + (j + 1) % m);
            uint32_t p10 = b + (uint32_t)((i + 1) % n * m + j), p11 = b + (uint32_t)((i + 1) % n * m + (j + 1) % m);
            put_t(s, p00, p10, p11);
            put_t(s, p00, p11, p01);
        }
}

/* Nested closed tori at a clearance of 0.02 (bench/gen_holdout's tori):
 * every facing triangle pair is within the tessellation's sag of the
 * distance, and many are slivers side by side, which each plane alone
 * bounds at the clearance only; the second stage's gaps along a's normal
 * and across it combined (tree_distance.c, lateral_apart) drop them. */
static void test_tori(void **state)
{
    (void)state;
    test_rng r = {0x7021ull};
    soup sa = {0}, sb = {0};
    torus(&sa, 48, 12, 0.3, 0);
    torus(&sb, 36, 9, 0.28, 0.37 * 2 * M_PI / 36);
    kcbp_model a, b;
    build(&a, &sa);
    build(&b, &sb);
    check_both(&a, &b, &r);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
    /* larger, once (the brute force: 12M triangle pairs) */
    torus(&sa, 96, 24, 0.3, 0);
    torus(&sb, 72, 18, 0.28, 0.37 * 2 * M_PI / 72);
    build(&a, &sa);
    build(&b, &sb);
    kcbp_pose id = kcbp_pose_identity();
    uint64_t n = check_pair(&a, &id, &b, &id);
    if (getenv("KCBP_TEST_PRINT"))
        print_message("tori: %llu triangle pairs\n", (unsigned long long)n);
    /* 6,378 with the combined gaps; 6,627 without (at this size the
     * second stage is a small share: 400 x 300 segments, 153k -> 95k,
     * bench/README.md) */
    if (!(n < 6500))
        fail_msg("tori: %llu triangle pairs", (unsigned long long)n);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

/* Coaxial flat fans: every pair is at the gap. */
static void test_coaxial_fans(void **state)
{
    (void)state;
    test_rng r = {0xfa25ull};
    const int ms[] = {300, 211};
    for (int mi = 0; mi < 2; mi++) {
        soup sa = {0}, sb = {0};
        fan(&sa, 300, 0, 0, 1, 0);
        fan(&sb, ms[mi], 0.05, 0.05, 1, mi ? 0.3 * 2 * M_PI / ms[mi] : 0);
        kcbp_model a, b;
        build(&a, &sa);
        build(&b, &sb);
        uint64_t pairs = check_both(&a, &b, &r);
        assert_true(pairs < 300u * (uint64_t)ms[mi] / 2);
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
}

/* A half-disc of n slivers fanned from (0, y0, 0): angles a0 .. a0 + pi,
 * open (n + 1 rim vertices). */
static void half_fan(soup *s, int n, double y0, double a0)
{
    uint32_t apex = put_v(s, 0, y0, 0), first = (uint32_t)s->nv;
    for (int k = 0; k <= n; k++)
        put_v(s, cos(a0 + M_PI * k / n), y0 + sin(a0 + M_PI * k / n), 0);
    for (int k = 0; k < n; k++)
        put_t(s, apex, first + (uint32_t)k, first + (uint32_t)k + 1);
}

/* kcbp_collide (every contact) against the brute force (kcbp_tri_intersect
 * over all pairs, B moved into A's frame as kcbp_collide moves it):
 * the same answer and the same contact pairs. Returns the triangle pairs
 * tested. */
static uint64_t check_collide(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb)
{
    kcbp_pose rel = kcbp_pose_relative(pa, pb);
    uint32_t na = kcbp_mesh_triangle_count(kcbp_model_mesh(a)), nb = kcbp_mesh_triangle_count(kcbp_model_mesh(b));
    kcbp_vec3 *tb = malloc((size_t)nb * 3 * sizeof *tb);
    assert_non_null(tb);
    for (uint32_t j = 0; j < nb; j++)
        for (int c = 0; c < 3; c++)
            tb[3 * j + c] = kcbp_pose_apply(&rel, tri_vertex(b, j, c));
    size_t want = 0;
    for (uint32_t i = 0; i < na; i++) {
        kcbp_vec3 ta[3];
        for (int c = 0; c < 3; c++)
            ta[c] = tri_vertex(a, i, c);
        for (uint32_t j = 0; j < nb; j++)
            want += kcbp_tri_intersect(ta, tb + 3 * j, 0);
    }
    free(tb);
    kcbp_error err = {0};
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result res = {0};
    assert_int_equal(kcbp_collide(a, pa, b, pb, &o, &res, &err), KCBP_OK);
    if (res.collide != (want > 0) || res.ncontacts != want)
        fail_msg("collide %d with %zu contacts, brute force %zu", res.collide, res.ncontacts, want);
    uint64_t n = res.tree.tri_pairs;
    kcbp_collide_result_free(&res);
    return n;
}

/* Fans facing each other at their shared vertices (held-out classes of
 * issue 33's hunt): two wide cones tip to tip (half-angle 80 deg), and two
 * coplanar half-discs fanned from points across their common diameter,
 * apart by gaps from 1e-3 down to 1e-12, touching and overlapping by
 * 1e-12, and the same with B moved sideways by the gap too. Every triangle pair holds both shared vertices: at a gap, all
 * n x m pairs are at it (the distance) or within the boxes' tolerance of
 * contact (collide: 1e-10 of the scale). Before, both visited every pair
 * (collide 5.7 s, distance over 120 s at 10,000 x 8,000 slivers); now the
 * fans' gap along the line through the shared vertices prunes them by
 * node, and the distance's fallback drops the exact ties. Checked
 * against the brute force at the identity and at a random pose, in both
 * orders; the work counts at the identity. */
static void test_fans_facing(void **state)
{
    (void)state;
    test_rng r = {0xface5ull};
    const double gaps[] = {1e-3, 1e-9, 1e-12, 0, -1e-12};
    for (int kind = 0; kind < 4; kind++)
        for (int gi = 0; gi < 5; gi++)
            for (int mi = 0; mi < 2; mi++) {
                int n = 240, m = mi ? 173 : 240;
                double gap = gaps[gi];
                soup sa = {0}, sb = {0};
                if (kind % 2 == 0) {
                    double rr = tan(80 * M_PI / 180);
                    fan(&sa, n, 0, -1, rr, 0);
                    fan(&sb, m, gap, gap + 1, rr, mi ? 0.37 * 2 * M_PI / m : 0);
                } else {
                    half_fan(&sa, n, 0, 0);
                    half_fan(&sb, m, -gap, M_PI);
                }
                /* kinds 2 and 3: B moved sideways as well, by the gap
                 * (the line through the shared vertices no longer
                 * separates the fans: the whole fans' axes do) */
                for (size_t v = 0; kind >= 2 && v < sb.nv; v++) {
                    sb.v[v].x += fabs(gap);
                    sb.v[v].y += kind == 2 ? 0.7 * fabs(gap) : 0;
                }
                kcbp_model a, b;
                build(&a, &sa);
                build(&b, &sb);
                kcbp_pose id = kcbp_pose_identity(), p = test_random_pose(&r, 0.5);
                uint64_t dist_pairs = check_both(&a, &b, &r);
                uint64_t col_pairs = check_collide(&a, &id, &b, &id);
                check_collide(&b, &id, &a, &id);
                check_collide(&a, &p, &b, &p);
                check_collide(&b, &p, &a, &p);
                /* (moved sideways, the distance's pairs are no longer
                 * tied but within about 1 % of the distance near the
                 * vertices at 1e-3: the second stage's bound on two fan
                 * nodes from their hulls, src/bvh/fan_hull.h, prunes them
                 * by node: 3,689 of the 57,600 at 1e-3; before it,
                 * 18,898) */
                if (getenv("KCBP_TEST_PRINT"))
                    print_message("kind %d gap %g m %d: distance %llu collide %llu\n", kind, gap, m,
                                  (unsigned long long)dist_pairs, (unsigned long long)col_pairs);
                if (gap > 0 && !(dist_pairs < (uint64_t)n * m / 8 && col_pairs < (uint64_t)n * m / 4))
                    fail_msg("kind %d gap %g m %d: %llu distance and %llu collide triangle pairs of %d", kind, gap, m,
                             (unsigned long long)dist_pairs, (unsigned long long)col_pairs, n * m);
                kcbp_model_free(&a);
                kcbp_model_free(&b);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_cones),
        cmocka_unit_test(test_posed_cones),
        cmocka_unit_test(test_shaft_bore),
        cmocka_unit_test(test_shells),
        cmocka_unit_test(test_tori),
        cmocka_unit_test(test_coaxial_fans),
        cmocka_unit_test(test_fans_facing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
