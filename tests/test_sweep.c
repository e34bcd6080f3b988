/* kcbp_sweep (time of impact) against dense sampling along the motion with
 * an exact oracle: at every sampled t before toi the meshes must not touch
 * (all triangle pairs by kcbp_tri_intersect for small meshes, kcbp_collide's
 * exact answer for bundled ones); a sweep that never hits must touch at no
 * sample; at toi the meshes' distance (kcbp_distance, recomputed) is within
 * the stated tolerance; and where the oracle finds a first contact, it is
 * bracketed by bisection and toi lies no later than it. Also the motions
 * (slerp along the shorter arc), thin objects passed through in one step,
 * fast rotations, both bodies moving, and the program. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

static kcbp_pose pose_of(double tx, double ty, double tz, double ax, double ay, double az, double deg)
{
    kcbp_pose p;
    kcbp_error err = {0};
    assert_int_equal(kcbp_pose_from_axis_angle(kcbp_v3(tx, ty, tz), kcbp_v3(ax, ay, az), deg, &p, &err), KCBP_OK);
    return p;
}

/* The angle (radians) of the rotation r1^T r2. */
static double rot_angle(const kcbp_mat3 *r1, const kcbp_mat3 *r2)
{
    kcbp_mat3 t = kcbp_mat3_transpose(r1), d = kcbp_mat3_mul(&t, r2);
    double c = (d.m[0][0] + d.m[1][1] + d.m[2][2] - 1) / 2;
    return acos(fmax(-1, fmin(1, c)));
}

/* Motions: exact ends, the shorter arc, a constant turning rate about a
 * fixed axis, a linear translation. */
static void test_motion(void **state)
{
    (void)state;
    test_rng r = {0x5eeda11ull};
    for (int i = 0; i < 200; i++) {
        kcbp_pose p0 = test_random_pose(&r, 3), p1 = test_random_pose(&r, 3);
        kcbp_motion m = kcbp_motion_make(&p0, &p1);
        kcbp_pose e0 = kcbp_motion_at(&m, 0), e1 = kcbp_motion_at(&m, 1);
        assert_memory_equal(&e0, &p0, sizeof p0);
        assert_memory_equal(&e1, &p1, sizeof p1);
        double total = rot_angle(&p0.rot, &p1.rot);
        assert_true(m.angle >= 0 && m.angle <= M_PI + 1e-12);
        assert_true(fabs(m.angle - total) <= 1e-7);
        for (int k = 1; k < 8; k++) {
            double t = k / 8.0;
            kcbp_pose pt = kcbp_motion_at(&m, t);
            assert_true(fabs(rot_angle(&p0.rot, &pt.rot) - t * total) <= 1e-7);
            assert_true(fabs(rot_angle(&pt.rot, &p1.rot) - (1 - t) * total) <= 1e-7);
            /* About the fixed axis: R0^T R(t) keeps the axis. */
            kcbp_vec3 ax = kcbp_mat3_mul_v3(&pt.rot, m.axis), ax0 = kcbp_mat3_mul_v3(&p0.rot, m.axis);
            assert_true(kcbp_v3_len(kcbp_v3_sub(ax, ax0)) <= 1e-12);
            kcbp_vec3 want = kcbp_v3_add(p0.trans, kcbp_v3_scale(kcbp_v3_sub(p1.trans, p0.trans), t));
            assert_true(kcbp_v3_len(kcbp_v3_sub(pt.trans, want)) <= 1e-14 * 10);
        }
    }
    /* 270 degrees one way is 90 the other. */
    kcbp_pose a = pose_of(0, 0, 0, 0, 0, 1, 0), b = pose_of(0, 0, 0, 0, 0, 1, 270);
    kcbp_motion m = kcbp_motion_make(&a, &b);
    assert_true(fabs(m.angle - M_PI / 2) <= 1e-12 && m.axis.z < -0.999999);
    kcbp_motion still = kcbp_motion_make(&a, &a);
    assert_true(still.angle == 0 && kcbp_v3_len(still.dtrans) == 0);
}

/* A random point of [-h, h]^3, its coordinates drawn in order (not as
 * function arguments, whose order of evaluation C leaves open). */
static kcbp_vec3 rand_in_cube(test_rng *r, double h)
{
    double x = test_rng_range(r, -h, h), y = test_rng_range(r, -h, h), z = test_rng_range(r, -h, h);
    return kcbp_v3(x, y, z);
}

static void random_soup(kcbp_model *m, test_rng *r, int n, double spread, double size)
{
    kcbp_vec3 v[3 * 64];
    kcbp_tri t[64];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++) {
        kcbp_vec3 c = rand_in_cube(r, spread);
        for (int k = 0; k < 3; k++)
            v[3 * i + k] = kcbp_v3_add(c, rand_in_cube(r, size));
        t[i] = (kcbp_tri){{3u * i, 3u * i + 1, 3u * i + 2}};
    }
    test_model_from_arrays(m, v, 3 * (size_t)n, t, (size_t)n);
}

typedef struct {
    const kcbp_model *a, *b;
    const kcbp_motion *ma, *mb;
    bool brute; /* all triangle pairs; otherwise kcbp_collide */
} sweep_case;

static bool touch_at(const sweep_case *c, double t)
{
    kcbp_pose pa = kcbp_motion_at(c->ma, t), pb = kcbp_motion_at(c->mb, t);
    if (c->brute) {
        kcbp_contact *out = NULL;
        size_t n = test_brute_force_contacts(c->a, &pa, c->b, &pb, &out);
        free(out);
        return n > 0;
    }
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_FIRST;
    kcbp_collide_result res;
    memset(&res, 0, sizeof res); /* kcbp_collide reuses a result's buffers: zeroed before the first call */
    kcbp_error err = {0};
    assert_int_equal(kcbp_collide(c->a, &pa, c->b, &pb, &o, &res, &err), KCBP_OK);
    bool hit = res.collide;
    kcbp_collide_result_free(&res);
    return hit;
}

typedef struct {
    int hits, misses, bracketed, after, confirmed;
} sweep_tally;

/* Checks one sweep against the oracle sampled at n + 1 points; returns toi
 * (or -1 for none). just_after: a contact is expected within 1e-6 after
 * toi (a motion that goes into the other body, not a graze). */
static double check_sweep(const sweep_case *c, const kcbp_sweep_options *opt, int n, bool just_after,
                          sweep_tally *tally)
{
    kcbp_sweep_result res;
    kcbp_error err = {0};
    assert_int_equal(kcbp_sweep(c->a, c->ma, c->b, c->mb, opt, &res, &err), KCBP_OK);
    assert_false(res.undecided);
    assert_true(res.free_until >= 0 && res.free_until <= 1 && isfinite(res.motion_bound));
    double tau = opt ? opt->t_tolerance : 1e-9;
    double end = res.hit ? res.toi : 1.0000001;
    double first = -1;
    for (int i = 0; i <= n; i++) {
        double t = (double)i / n;
        bool touch = touch_at(c, t);
        if (t < end) {
            if (touch)
                print_message("contact at t = %.17g before toi %.17g (hit %d)\n", t, res.toi, res.hit);
            assert_false(touch);
        } else if (touch && first < 0) {
            first = t;
        }
    }
    if (!res.hit) {
        tally->misses++;
        return -1;
    }
    tally->hits++;
    assert_true(res.toi >= 0 && res.toi <= 1);
    /* Contact at toi, to the tolerance: the distance, recomputed. */
    kcbp_pose pa = kcbp_motion_at(c->ma, res.toi), pb = kcbp_motion_at(c->mb, res.toi);
    kcbp_distance_result d;
    assert_int_equal(kcbp_distance(c->a, &pa, c->b, &pb, NULL, &d, &err), KCBP_OK);
    double s = c->a->impl->scale + c->b->impl->scale + kcbp_v3_len(kcbp_v3_sub(pb.trans, pa.trans));
    assert_true(d.distance <= fmax(res.motion_bound * tau, 16 * KCBP_TRI_DIST_REL_ERR * s) + 1e-13 * s);
    assert_true(fabs(d.distance - res.distance) <= 1e-12 * s);
    assert_true(res.tri_a < c->a->impl->mesh.ntriangles && res.tri_b < c->b->impl->mesh.ntriangles);
    if (first > 0) {
        /* Bisect the first sampled contact down to its bracket: toi is no
         * later than the contact (there may be an earlier one between
         * samples, which toi then found). */
        double lo = first - 1.0 / n, hi = first;
        for (int k = 0; k < 40 && hi - lo > 1e-12; k++) {
            double mid = 0.5 * (lo + hi);
            if (touch_at(c, mid))
                hi = mid;
            else
                lo = mid;
        }
        if (!(res.toi <= hi))
            print_message("toi %.17g after the contact bracket [%.17g, %.17g] (distance at toi %.3g, mu %.3g)\n",
                          res.toi, lo, hi, res.distance, res.motion_bound);
        assert_true(res.toi <= hi);
        tally->bracketed++;
    }
    if (res.confirmed) {
        /* The true time of impact is in [toi, toi + tau]. */
        assert_true(touch_at(c, res.toi) || touch_at(c, fmin(1, res.toi + tau)));
        tally->confirmed++;
    }
    if (just_after) {
        assert_true(res.confirmed);
        bool found = false;
        for (int k = 1; k <= 10 && !found; k++)
            found = touch_at(c, fmin(1, res.toi + k * 1e-7));
        assert_true(found);
        tally->after++;
    }
    return res.toi;
}

/* Random soups of triangles: B moves from a random pose at distance 2-3
 * through the middle to the other side, turning by up to 180 degrees;
 * a third of them with A moving too. Oracle: all triangle pairs. */
static void test_random_oracle(void **state)
{
    (void)state;
    test_rng r = {0x70ecafeull};
    sweep_tally tally = {0};
    for (int i = 0; i < 120; i++) {
        kcbp_model a, b;
        random_soup(&a, &r, 10 + i % 20, 0.5, 0.35);
        random_soup(&b, &r, 8 + i % 16, 0.4, 0.3);
        kcbp_vec3 dir = test_rng_unit_vector(&r);
        double reach = test_rng_range(&r, 2, 3);
        kcbp_vec3 off_dir = test_rng_unit_vector(&r);
        kcbp_vec3 off = kcbp_v3_scale(off_dir, i % 3 == 0 ? test_rng_range(&r, 1, 3) : test_rng_range(&r, 0, 0.3));
        kcbp_pose p0 = test_random_pose(&r, 0), p1 = test_random_pose(&r, 0);
        p0.trans = kcbp_v3_add(kcbp_v3_scale(dir, reach), off);
        p1.trans = kcbp_v3_add(kcbp_v3_scale(dir, -reach), off);
        if (i % 4 == 0)
            p1.rot = p0.rot; /* a pure translation */
        kcbp_pose a0 = kcbp_pose_identity(), a1 = i % 3 == 1 ? test_random_pose(&r, 0.3) : a0;
        kcbp_motion ma = kcbp_motion_make(&a0, &a1), mb = kcbp_motion_make(&p0, &p1);
        sweep_case c = {&a, &b, &ma, &mb, true};
        check_sweep(&c, NULL, 500, false, &tally);
        kcbp_sweep_options o = kcbp_sweep_options_default();
        o.use_cbp = false;
        check_sweep(&c, &o, 60, false, &tally);
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
    print_message("random sweeps: %d hits (%d bracketed, %d confirmed), %d misses\n", tally.hits, tally.bracketed,
                  tally.confirmed, tally.misses);
    assert_true(tally.hits >= 100 && tally.misses >= 30);
}

/* Bundled meshes (unit-normalised), B thrown at A from all sides with and
 * without spin; oracle kcbp_collide (exact). Head-on pure translations
 * through A's centre must touch within 1e-6 after toi. */
static void test_bundled_oracle(void **state)
{
    (void)state;
    const char *names[][2] = {{"bunny2.obj", "spot.obj"}, {"fandisk.obj", "rocker-arm.obj"}, {"cow.obj", "cow.obj"}};
    test_rng r = {0xb0bb1e5ull};
    sweep_tally tally = {0};
    for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
        kcbp_model a, b;
        test_model_load_unit(&a, names[m][0]);
        test_model_load_unit(&b, names[m][1]);
        for (int i = 0; i < 8; i++) {
            kcbp_vec3 dir = test_rng_unit_vector(&r);
            kcbp_pose p0 = test_random_pose(&r, 0), p1 = p0;
            p0.trans = kcbp_v3_scale(dir, 3);
            p1.trans = kcbp_v3_scale(dir, -3);
            bool head_on = i % 2 == 0;
            if (!head_on) {
                p1 = test_random_pose(&r, 0);
                kcbp_vec3 side = test_rng_unit_vector(&r);
                p1.trans = kcbp_v3_add(kcbp_v3_scale(dir, -3), kcbp_v3_scale(side, 1.5));
            }
            kcbp_pose a0 = kcbp_pose_identity();
            kcbp_motion ma = kcbp_motion_still(&a0), mb = kcbp_motion_make(&p0, &p1);
            sweep_case c = {&a, &b, &ma, &mb, false};
            check_sweep(&c, NULL, 600, head_on, &tally);
        }
        kcbp_model_free(&a);
        kcbp_model_free(&b);
    }
    print_message("bundled sweeps: %d hits (%d bracketed, %d touching just after, %d confirmed), %d misses\n",
                  tally.hits, tally.bracketed, tally.after, tally.confirmed, tally.misses);
    assert_true(tally.confirmed >= tally.hits * 3 / 4);
    assert_true(tally.after >= 10);
}

/* Tunnelling: a cube 0.01 wide thrown through a plate 0.001 thick in one
 * step touches neither at t = 0 nor at t = 1; the sweep finds the contact
 * at the exact time the faces meet, to the tolerance. */
static void test_thin_plate(void **state)
{
    (void)state;
    kcbp_model plate, cube;
    test_model_box(&plate, kcbp_v3(-1, -1, -0.0005), kcbp_v3(1, 1, 0.0005));
    test_model_box(&cube, kcbp_v3(-0.005, -0.005, -0.005), kcbp_v3(0.005, 0.005, 0.005));
    kcbp_pose id = kcbp_pose_identity(), p0 = pose_of(0.3, 0.2, 1, 0, 0, 1, 0), p1 = pose_of(0.3, 0.2, -1, 0, 0, 1, 0);
    kcbp_motion ma = kcbp_motion_still(&id), mb = kcbp_motion_make(&p0, &p1);
    sweep_case c = {&plate, &cube, &ma, &mb, true};
    assert_false(touch_at(&c, 0));
    assert_false(touch_at(&c, 1));
    sweep_tally tally = {0};
    double toi = check_sweep(&c, NULL, 400, true, &tally);
    double want = (1 - 0.0055) / 2;
    assert_true(toi <= want && toi >= want - 2e-9);
    /* Spinning fast on the way (two turns' worth, the shorter arc of 170
     * degrees): still found, before the first sampled contact. */
    p1 = pose_of(0.3, 0.2, -1, 1, 1, 0, 170);
    mb = kcbp_motion_make(&p0, &p1);
    toi = check_sweep(&c, NULL, 400, true, &tally);
    assert_true(toi > 0.49 && toi <= 0.4975 + 1e-9);
    kcbp_model_free(&plate);
    kcbp_model_free(&cube);
}

/* A fast rotation: a long thin stick (A) turns half a turn about its centre
 * and sweeps through a small box (B) that also drifts; both move. The
 * first contact is bracketed by bisection. */
static void test_fast_rotation(void **state)
{
    (void)state;
    kcbp_model stick, box;
    test_model_box(&stick, kcbp_v3(-1, -0.01, -0.01), kcbp_v3(1, 0.01, 0.01));
    test_model_box(&box, kcbp_v3(-0.05, -0.05, -0.05), kcbp_v3(0.05, 0.05, 0.05));
    kcbp_pose s0 = pose_of(0, 0, 0, 0, 0, 1, 0), s1 = pose_of(0, 0, 0, 0, 0, 1, 179);
    kcbp_pose b0 = pose_of(0.1, 0.8, 0, 1, 0, 0, 0), b1 = pose_of(-0.1, 0.8, 0.02, 1, 0, 0, 40);
    kcbp_motion ma = kcbp_motion_make(&s0, &s1), mb = kcbp_motion_make(&b0, &b1);
    sweep_case c = {&stick, &box, &ma, &mb, true};
    sweep_tally tally = {0};
    double toi = check_sweep(&c, NULL, 2000, true, &tally);
    assert_true(toi > 0.3 && toi < 0.6 && tally.bracketed == 1);
    /* The same motion the other way round (B as the moving one) agrees. */
    sweep_case back = {&box, &stick, &mb, &ma, true};
    double toi2 = check_sweep(&back, NULL, 200, true, &tally);
    assert_true(fabs(toi - toi2) <= 1e-8);
    kcbp_model_free(&stick);
    kcbp_model_free(&box);
}

/* Touching at the start is toi 0; a still pair is settled at once; a
 * motion that never comes near is answered by the k-CBPs alone; bad
 * options are refused; a step cap gives "undecided". */
static void test_edges(void **state)
{
    (void)state;
    kcbp_model a;
    test_model_load_unit(&a, "suzanne.obj");
    kcbp_error err = {0};
    kcbp_pose id = kcbp_pose_identity(), far0 = pose_of(5, 0, 0, 0, 0, 1, 0), far1 = pose_of(5, 4, 0, 1, 0, 0, 90);
    kcbp_motion still = kcbp_motion_still(&id), m = kcbp_motion_make(&id, &far0);
    kcbp_sweep_result res;
    assert_int_equal(kcbp_sweep(&a, &still, &a, &m, NULL, &res, &err), KCBP_OK);
    assert_true(res.hit && res.toi == 0 && res.distance == 0);
    kcbp_motion away = kcbp_motion_make(&far0, &far1);
    assert_int_equal(kcbp_sweep(&a, &still, &a, &away, NULL, &res, &err), KCBP_OK);
    assert_true(!res.hit && !res.undecided && res.free_until == 1 && res.distance_queries == 0 && res.cbp_steps >= 1);
    kcbp_motion parked = kcbp_motion_still(&far0);
    assert_int_equal(kcbp_sweep(&a, &still, &a, &parked, NULL, &res, &err), KCBP_OK);
    assert_true(!res.hit && res.free_until == 1 && res.iterations == 1);
    kcbp_sweep_options o = kcbp_sweep_options_default();
    o.t_tolerance = 0;
    assert_int_equal(kcbp_sweep(&a, &still, &a, &away, &o, &res, &err), KCBP_ERR_INVALID);
    o = kcbp_sweep_options_default();
    o.max_iterations = 0;
    assert_int_equal(kcbp_sweep(&a, &still, &a, &away, &o, &res, &err), KCBP_ERR_INVALID);
    /* Grazing past at a distance just above the tolerance, with a cap. */
    kcbp_pose g0 = pose_of(-5, 2.0000001, 0, 0, 0, 1, 0), g1 = pose_of(5, 2.0000001, 0, 0, 0, 1, 0);
    kcbp_model cube;
    test_model_box(&cube, kcbp_v3(-1, -1, -1), kcbp_v3(1, 1, 1));
    kcbp_motion graze = kcbp_motion_make(&g0, &g1), spin;
    kcbp_pose s1 = pose_of(5, 2.0000001, 0, 0, 0, 1, 30);
    spin = kcbp_motion_make(&g0, &s1);
    o = kcbp_sweep_options_default();
    assert_int_equal(kcbp_sweep(&cube, &still, &cube, &graze, &o, &res, &err), KCBP_OK);
    assert_true(!res.hit && !res.undecided); /* the k-CBPs' plane sees it through */
    o.max_iterations = 3;
    assert_int_equal(kcbp_sweep(&cube, &still, &cube, &spin, &o, &res, &err), KCBP_OK);
    assert_true(res.hit || res.undecided || res.free_until == 1);
    if (res.undecided)
        assert_true(res.free_until > 0 && res.free_until < 1 && res.toi == res.free_until);
    kcbp_model_free(&cube);
    kcbp_model_free(&a);
}

/* The program: one sweep, a sweeps file (NDJSON), usage and input errors
 * with nothing on stdout. */
static void test_cli(void **state)
{
    (void)state;
    test_run_result r = {0};
    const char *m = "meshes/suzanne.obj";
    test_run(&r, (const char *const[]){"sweep", m, m, "--from", "5 0 0 0 0 1 0", "--to", "-5 0 0 0 0 1 0", NULL});
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"toi\":0."));
    assert_non_null(strstr(r.out, "\"contacts\":[["));
    assert_non_null(strstr(r.out, "\"point\":["));
    assert_non_null(strstr(r.out, "\"query_ms\":"));
    double toi = atof(strstr(r.out, "\"toi\":") + 6);
    test_run_free(&r);
    char dir[] = "/tmp/kcbp-sweep-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *sweeps = test_tmp_write_text(dir, "sweeps.txt",
                                             "# from, to\n5 0 0 0 0 1 0   -5 0 0 0 0 1 0\n"
                                             "5 9 0 0 0 1 0 -5 9 0 1 0 0 90\n0 0 0 0 0 1 0 1 0 0 0 0 1 0\n");
    test_run(&r, (const char *const[]){"sweep", m, m, "--sweeps", sweeps, NULL});
    assert_int_equal(r.status, 0);
    const char *l1 = strstr(r.out, "\"sweep\":0"), *l2 = strstr(r.out, "\"sweep\":1"), *l3 = strstr(r.out, "\"sweep\":2");
    assert_true(l1 && l2 && l3);
    assert_true(fabs(atof(strstr(r.out, "\"toi\":") + 6) - toi) <= 1e-12);
    assert_non_null(strstr(r.out, "{\"toi\":null,"));
    assert_non_null(strstr(r.out, "{\"toi\":0,"));
    test_run_free(&r);
    const char *bad_file = test_tmp_write_text(dir, "bad.txt", "5 0 0 0 0 1 0 -5 0 0 0 0 1 0\n1 2 3\n");
    test_run(&r, (const char *const[]){"sweep", m, m, "--sweeps", bad_file, NULL});
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "bad.txt:2: sweep has 3 numbers, expected 14"));
    assert_non_null(strstr(r.out, "\"sweep\":0")); /* the sweep before it stays answered */
    test_run_free(&r);
    const char *bad[][10] = {
        {"sweep", m, m, NULL},
        {"sweep", m, m, "--from", "0 0 0 0 0 1 0", NULL},
        {"sweep", m, m, "--sweeps", sweeps, "--from", "0 0 0 0 0 1 0", NULL},
        {"sweep", m, m, "--from", "1 2", "--to", "0 0 0 0 0 1 0", NULL},
        {"sweep", m, m, "--from", "0 0 0 0 0 1 0", "--to", "0 0 0 0 0 1 0", "--tolerance", "0", NULL},
        {"sweep", m, m, "--from", "0 0 0 0 0 1 0", "--to", "0 0 0 0 0 1 0", "--max-iterations", "0", NULL},
        {"sweep", m, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_run(&r, bad[i]);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.out, "");
        test_run_free(&r);
    }
    remove(sweeps);
    remove(bad_file);
    rmdir(dir);
}

/* Scenes: a monkey thrown through another between two frames touches at
 * neither frame; --ccd's sweep of the interval finds it, at the time
 * kcbp_sweep gives for the same motions, and every sampled time before it
 * is contact-free (kcbp_collide); a far object is not even swept; a
 * spinning one is found too. The program lists it under "ccd". */
static const char ccd_scene[] =
    "{\"objects\": ["
    " {\"name\": \"still\", \"mesh\": \"suzanne.obj\", \"position\": [0, 0, 0]},"
    " {\"name\": \"fast\", \"mesh\": \"suzanne.obj\", \"position\": [-6, 0.3, 0], \"velocity\": [12, 0, 0]},"
    " {\"name\": \"spin\", \"mesh\": \"suzanne.obj\", \"position\": [0.2, 6, 0.1], \"velocity\": [0, -12, 0],"
    "  \"angular_velocity\": {\"axis\": [1, 0, 1], \"deg_per_s\": 150}},"
    " {\"name\": \"far\", \"mesh\": \"suzanne.obj\", \"position\": [40, 40, 40]}],"
    " \"motion\": {\"frames\": 3, \"dt\": 1}}";

static void test_scene_ccd(void **state)
{
    (void)state;
    kcbp_scene sc;
    kcbp_error err = {0};
    assert_int_equal(kcbp_scene_parse_into(&sc, "ccd", "meshes", ccd_scene, strlen(ccd_scene), &err), KCBP_OK);
    assert_int_equal(kcbp_scene_build(&sc, NULL, &err), KCBP_OK);
    kcbp_scene_eval ev;
    kcbp_collide_options co = kcbp_collide_options_default();
    assert_int_equal(kcbp_scene_eval_init(&ev, &sc, &co, &err), KCBP_OK);
    kcbp_scene_frame fr;
    kcbp_scene_ccd cc;
    memset(&fr, 0, sizeof fr);
    memset(&cc, 0, sizeof cc);
    assert_int_equal(kcbp_scene_eval_ccd(&ev, 0, NULL, &cc, &err), KCBP_ERR_INVALID);
    for (uint32_t f = 0; f < 2; f++) {
        assert_int_equal(kcbp_scene_eval_frame(&ev, f, &fr, &err), KCBP_OK);
        assert_int_equal(fr.colliding, 0);
    }
    assert_int_equal(kcbp_scene_eval_ccd(&ev, 1, NULL, &cc, &err), KCBP_OK);
    /* still-fast, still-spin and fast-spin at most: never the far one. */
    assert_true(cc.swept_pairs >= 2 && cc.swept_pairs <= 3 && cc.undecided == 0);
    int found = 0;
    for (size_t i = 0; i < cc.nhits; i++) {
        const kcbp_scene_sweep_hit *h = &cc.hits[i];
        assert_true(h->a < h->b && h->b < 3);
        const kcbp_model *ma = &sc.models[sc.objects[h->a].model].model, *mb = &sc.models[sc.objects[h->b].model].model;
        kcbp_pose a0 = kcbp_scene_object_pose(&sc, h->a, 0), a1 = kcbp_scene_object_pose(&sc, h->a, 1);
        kcbp_pose b0 = kcbp_scene_object_pose(&sc, h->b, 0), b1 = kcbp_scene_object_pose(&sc, h->b, 1);
        kcbp_motion mota = kcbp_motion_make(&a0, &a1), motb = kcbp_motion_make(&b0, &b1);
        sweep_case c = {ma, mb, &mota, &motb, false};
        sweep_tally tally = {0};
        double toi = check_sweep(&c, NULL, 300, false, &tally);
        assert_true(toi > 0 && fabs(toi - h->toi) <= 1e-12);
        found += h->a == 0;
    }
    assert_int_equal(found, 2);
    kcbp_scene_ccd_free(&cc);
    kcbp_scene_frame_free(&fr);
    kcbp_scene_eval_clear(&ev);
    kcbp_scene_clear(&sc);

    char dir[] = "/tmp/kcbp-ccd-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cwd[4096], root[4200], text[sizeof ccd_scene + 8192];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(root, sizeof root, "%s/meshes", cwd);
    char mesh[4300];
    snprintf(mesh, sizeof mesh, "%s/suzanne.obj", root);
    /* The same scene with the mesh's absolute path. */
    const char *from = ccd_scene;
    size_t len = 0;
    for (const char *q; (q = strstr(from, "suzanne.obj")); from = q + strlen("suzanne.obj"))
        len += (size_t)snprintf(text + len, sizeof text - len, "%.*s%s", (int)(q - from), from, mesh);
    snprintf(text + len, sizeof text - len, "%s", from);
    const char *path = test_tmp_write_text(dir, "ccd.json", text);
    test_run_result r = {0};
    test_run(&r, (const char *const[]){"scene", path, "--mesh-root", root, "--ccd", NULL});
    assert_int_equal(r.status, 0);
    const char *second = strstr(r.out, "\"frame\":1,");
    assert_non_null(second);
    const char *nl = strchr(r.out, '\n'); /* frame 0's line: no interval ends there */
    assert_true(nl && nl < second);
    const char *ccd0 = strstr(r.out, "\"ccd\"");
    assert_true(ccd0 && ccd0 > nl);
    assert_non_null(strstr(second, "\"ccd\":{\"swept_pairs\":"));
    assert_non_null(strstr(second, "\"a\":\"still\",\"b\":\"fast\",\"toi\":0."));
    assert_non_null(strstr(second, "\"b\":\"spin\""));
    test_run_free(&r);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_motion),      cmocka_unit_test(test_random_oracle), cmocka_unit_test(test_bundled_oracle),
        cmocka_unit_test(test_thin_plate),  cmocka_unit_test(test_fast_rotation), cmocka_unit_test(test_edges),
        cmocka_unit_test(test_cli),         cmocka_unit_test(test_scene_ccd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
