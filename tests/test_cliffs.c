/* Issue 33's cliffs (inputs where kcbp suddenly cost seconds), tested for
 * bounded work by counts, not by time, and for unchanged answers:
 *  - kcbp self on polygons whose corners coincide: every triangle a point
 *    or a segment, every box the same; the traversal walked all n^2 / 2
 *    box pairs to test none of them. Now no box pair is visited under a
 *    subtree of such triangles, and the pairs found are those of the brute
 *    force, with real triangles mixed in;
 *  - a scene frame with a pair limit (kcbp scene --max-pairs) stops its
 *    search: it hands on the first pairs of the full frame's order, the
 *    same for any number of threads, with far fewer pairs tested, and the
 *    frames after it (a moving scene's caches dropped) answer as before;
 *  - threads only where they pay: a frame of one chunk, or whose last
 *    frame's work was below a few measured hand-offs, runs on the caller's
 *    thread; forced either way, the answers are the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/scene.h>
#include <kcbp/self.h>

#include "query/self_internal.h"
#include "testutil.h"

static char tmpdir[] = "/tmp/kcbp-cliffs-XXXXXX";
TEST_TMPDIR_FIXTURES(tmpdir)

typedef struct {
    char *s;
    size_t n, cap;
} text;

static void put(text *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (b->s && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        b->cap = b->cap ? 2 * b->cap : 1 << 16;
        while (b->cap < b->n + (size_t)k + 1)
            b->cap *= 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

/* The OBJ text as a model (k = 0: no k-CBP needed here). */
static void model_of_obj(kcbp_model *m, text *obj, const char *name)
{
    const char *path = test_tmp_write_text(tmpdir, name, obj->s);
    free(obj->s);
    *obj = (text){0};
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 0;
    kcbp_error err = {0};
    if (kcbp_model_load(m, path, &mo, &err) != KCBP_OK)
        fail_msg("%s: %s", name, err.msg);
}

/* One face of n corners: corner i at pts(i). */
static void put_polygon(text *obj, int n, int first_vertex, void (*pt)(int i, int n, double p[3]))
{
    for (int i = 0; i < n; i++) {
        double p[3];
        pt(i, n, p);
        put(obj, "v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
    put(obj, "f");
    for (int i = 0; i < n; i++)
        put(obj, " %d", first_vertex + i);
    put(obj, "\n");
}

static void at_one_point(int i, int n, double p[3])
{
    (void)i, (void)n;
    p[0] = 0.25, p[1] = 0.5, p[2] = 0.125;
}

static void two_points(int i, int n, double p[3])
{
    (void)n;
    p[0] = i % 2 ? 0.75 : 0.25, p[1] = 0.5, p[2] = 0.5;
}

/* A square whose first n - 3 corners all coincide (a corner repeated). */
static void square_repeated(int i, int n, double p[3])
{
    static const double sq[3][2] = {{1, 0}, {1, 1}, {0, 1}};
    p[2] = 0.5;
    if (i < n - 3)
        p[0] = p[1] = 0;
    else
        p[0] = sq[i - (n - 3)][0], p[1] = sq[i - (n - 3)][1];
}

static size_t self_pairs(const kcbp_model *m, kcbp_self_how how, kcbp_contacts_mode mode, kcbp_contact **p,
                         kcbp_tree_stats *stats)
{
    size_t n;
    kcbp_error err = {0};
    if (kcbp_self_intersections_how(m, mode, how, p, &n, stats, &err) != KCBP_OK)
        fail_msg("self: %s", err.msg);
    return n;
}

/* 200,000 corners at one point (the polygon), at two points, and a
 * square with 200,000 corners at one of its corners: no pair, and not one
 * box pair visited (every triangle is a point or a segment). */
static void test_self_coincident_corners(void **state)
{
    (void)state;
    void (*shapes[])(int, int, double[3]) = {at_one_point, two_points, square_repeated};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        text obj = {0};
        put_polygon(&obj, 200000, 1, shapes[s]);
        kcbp_model m;
        model_of_obj(&m, &obj, "corners.obj");
        for (int mode = 0; mode < 2; mode++) {
            kcbp_contact *p;
            kcbp_tree_stats st;
            size_t n = self_pairs(&m, KCBP_SELF_CERTIFIED, mode ? KCBP_CONTACTS_ALL : KCBP_CONTACTS_NONE, &p,
                                  &st);
            assert_int_equal(n, 0);
            assert_true(st.box_pairs == 0);
            assert_true(st.tri_pairs == 0);
            free(p);
        }
        kcbp_model_free(&m);
    }
}

/* The same polygons (small) inside a crossing of real triangles, and a
 * segment-triangle crossing them: the certified traversal, the tree alone
 * and the brute force find the same pairs. */
static void test_self_mixed_same_pairs(void **state)
{
    (void)state;
    void (*shapes[])(int, int, double[3]) = {at_one_point, two_points, square_repeated};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        text obj = {0};
        /* Two triangles crossing each other through the unit cube. */
        put(&obj, "v 0 0 0.5\nv 1 0 0.5\nv 0 1 0.5\nv 0.2 0.2 0\nv 0.3 0.2 1\nv 0.2 0.3 1\n"
                  "f 1 2 3\nf 4 5 6\n");
        put_polygon(&obj, 3000, 7, shapes[s]);
        /* A triangle of no area (three corners on a line) through the
         * first, and one with a repeated corner (a segment: never a pair). */
        put(&obj, "v 0.1 0.1 -1\nv 0.1 0.1 2\nv 0.1 0.1 0.75\nf 3007 3008 3009\nf 3007 3008 3008\n");
        kcbp_model m;
        model_of_obj(&m, &obj, "mixed.obj");
        kcbp_contact *cert, *tree, *brute;
        kcbp_tree_stats st;
        size_t nc = self_pairs(&m, KCBP_SELF_CERTIFIED, KCBP_CONTACTS_ALL, &cert, &st);
        size_t nt = self_pairs(&m, KCBP_SELF_TREE_ONLY, KCBP_CONTACTS_ALL, &tree, NULL);
        size_t nb = self_pairs(&m, KCBP_SELF_BRUTE_FORCE, KCBP_CONTACTS_ALL, &brute, NULL);
        assert_true(nb >= 2);
        assert_int_equal(nc, nb);
        assert_int_equal(nt, nb);
        assert_memory_equal(cert, brute, nb * sizeof *cert);
        assert_memory_equal(tree, brute, nb * sizeof *tree);
        /* The polygon's 2,998 triangles are points or segments: their
         * (2,998^2) / 2 box pairs are not walked. */
        assert_true(st.box_pairs < 1000);
        free(cert);
        free(tree);
        free(brute);
        kcbp_model_free(&m);
    }
}

/* ---- scene frames with a pair limit ---- */

typedef struct {
    kcbp_contact *p; /* (a, b) as handed on, in order */
    size_t n, cap;
    const kcbp_scene_eval *ev; /* its progress read in the callback: never back, in (0, 1] */
    double progress;
} pair_list;

static kcbp_status keep_pair(void *ctx, const kcbp_scene_pair *pair, kcbp_error *err)
{
    (void)err;
    pair_list *l = ctx;
    if (l->ev) {
        double x = kcbp_scene_eval_progress(l->ev);
        assert_true(x > 0 && x <= 1 && x >= l->progress);
        l->progress = x;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->p = realloc(l->p, l->cap * sizeof *l->p);
        assert_non_null(l->p);
    }
    l->p[l->n++] = (kcbp_contact){pair->a, pair->b};
    return KCBP_OK;
}

enum { SCENE_FRAMES = 5 };

/* n copies of suzanne in a 7-unit cube (at 150, hundreds of colliding
 * pairs a frame), moving and spinning. */
static kcbp_scene *crowd_of(int n)
{
    kcbp_scene *s;
    kcbp_error err = {0};
    if (kcbp_scene_new("crowd", ".", &s, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    test_rng r = {12345};
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "o%d", i);
        kcbp_scene_object o = kcbp_scene_object_default();
        o.name = name;
        o.mesh = "meshes/suzanne.obj";
        o.position = kcbp_v3(test_rng_range(&r, 0, 7), test_rng_range(&r, 0, 7), test_rng_range(&r, 0, 7));
        o.axis = test_rng_unit_vector(&r);
        o.angle_deg = test_rng_range(&r, 0, 180);
        o.velocity = kcbp_v3(test_rng_range(&r, -2, 2), test_rng_range(&r, -2, 2), test_rng_range(&r, -2, 2));
        o.spin_axis = test_rng_unit_vector(&r);
        o.spin_deg_per_s = test_rng_range(&r, 0, 90);
        if (kcbp_scene_add_object(s, &o, &err) != KCBP_OK)
            fail_msg("%s", err.msg);
    }
    if (kcbp_scene_set_motion(s, SCENE_FRAMES, 0.1, &err) != KCBP_OK || kcbp_scene_build(s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    return s;
}

static kcbp_scene *crowd(void) { return crowd_of(150); }

static kcbp_scene_eval *eval_of(const kcbp_scene *s, unsigned jobs)
{
    kcbp_scene_eval_options o = kcbp_scene_eval_options_default();
    o.jobs = jobs;
    kcbp_scene_eval *ev;
    kcbp_error err = {0};
    if (kcbp_scene_eval_new(s, &o, &ev, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    return ev;
}

static void frame_pairs(kcbp_scene_eval *ev, uint32_t f, pair_list *l, kcbp_scene_frame *out)
{
    kcbp_error err = {0};
    l->n = 0;
    l->ev = ev;
    l->progress = 0;
    memset(out, 0, sizeof *out);
    if (kcbp_scene_eval_frame_stream(ev, f, keep_pair, l, out, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
}

static void test_scene_pair_limit(void **state)
{
    (void)state;
    kcbp_scene *s = crowd();
    /* The reference: every frame whole, one thread. */
    pair_list ref[SCENE_FRAMES] = {{0}};
    kcbp_scene_frame rf[SCENE_FRAMES];
    kcbp_scene_eval *ev = eval_of(s, 1);
    for (uint32_t f = 0; f < SCENE_FRAMES; f++) {
        frame_pairs(ev, f, &ref[f], &rf[f]);
        assert_true(kcbp_scene_eval_progress(ev) == 1.0);
        assert_true(ref[f].n >= 60);
        assert_int_equal(rf[f].colliding, ref[f].n);
    }
    kcbp_scene_eval_free(ev);
    for (unsigned jobs = 1; jobs <= 3; jobs++) {
        const uint64_t limits[] = {1, 7, 40, ref[0].n, ref[0].n + 1, UINT64_MAX};
        for (size_t li = 0; li < sizeof limits / sizeof *limits; li++) {
            uint64_t limit = limits[li];
            ev = eval_of(s, jobs);
            pair_list got = {0};
            for (uint32_t f = 0; f < SCENE_FRAMES; f++) {
                /* Frames 0, 2, 4 with the limit; 1 and 3 whole, after a
                 * stopped frame (its pair caches dropped). */
                bool limited = f % 2 == 0;
                kcbp_scene_eval_set_pair_limit(ev, limited ? limit : UINT64_MAX);
                kcbp_scene_frame fr;
                frame_pairs(ev, f, &got, &fr);
                size_t want = limited && limit < ref[f].n ? (size_t)limit : ref[f].n;
                if (got.n != want)
                    fail_msg("jobs %u, limit %llu, frame %u: %zu pairs, expected %zu", jobs,
                             (unsigned long long)limit, f, got.n, want);
                assert_memory_equal(got.p, ref[f].p, want * sizeof *got.p);
                assert_int_equal(fr.colliding, want);
                /* (mesh_tested may differ on the whole frames: the caches
                 * dropped after a stopped frame skip fewer k-CBP stages) */
                if (limited)
                    assert_true(fr.broadphase <= rf[f].broadphase);
                else
                    assert_int_equal(fr.broadphase, rf[f].broadphase);
                /* Stopped at one pair, one thread: a small share of the
                 * frame's pairs tested. */
                if (limited && limit == 1 && jobs == 1)
                    assert_true(fr.broadphase * 4 < rf[f].broadphase);
            }
            free(got.p);
            kcbp_scene_eval_free(ev);
        }
    }
    for (uint32_t f = 0; f < SCENE_FRAMES; f++)
        free(ref[f].p);
    kcbp_scene_free(s);
}

static void test_threads_where_they_pay(void **state)
{
    (void)state;
    /* 11 objects: one chunk, every frame on the caller's thread. */
    kcbp_scene *small = crowd_of(11);
    kcbp_scene_eval *ev = eval_of(small, 2);
    assert_true(ev->pairs.handoff_ms > 0);
    pair_list got = {0};
    for (uint32_t f = 0; f < SCENE_FRAMES; f++) {
        kcbp_scene_frame fr;
        frame_pairs(ev, f, &got, &fr);
        assert_false(ev->pairs.last_threaded);
    }
    kcbp_scene_eval_free(ev);
    kcbp_scene_free(small);
    /* 150 objects (3 chunks): the first frame goes to the threads; then as
     * the last frame's work says. Forced to the threads (no hand-off cost)
     * or kept off them (an endless one), the pairs are the reference's. */
    kcbp_scene *s = crowd();
    pair_list ref[SCENE_FRAMES] = {{0}};
    kcbp_scene_frame rf;
    ev = eval_of(s, 1);
    for (uint32_t f = 0; f < SCENE_FRAMES; f++)
        frame_pairs(ev, f, &ref[f], &rf);
    kcbp_scene_eval_free(ev);
    for (int force = 0; force < 3; force++) {
        ev = eval_of(s, 2);
        for (uint32_t f = 0; f < SCENE_FRAMES; f++) {
            bool pays = ev->pairs.last_work_ms * 0.5 > KCBP_PAIRS_HANDOFF_PAYS * ev->pairs.handoff_ms;
            if (force == 1)
                ev->pairs.handoff_ms = 0;
            else if (force == 2)
                ev->pairs.handoff_ms = 1e300;
            kcbp_scene_frame fr;
            frame_pairs(ev, f, &got, &fr);
            bool want = f == 0 || (force == 0 ? pays : force == 1);
            assert_int_equal(ev->pairs.last_threaded, want);
            assert_int_equal(got.n, ref[f].n);
            assert_memory_equal(got.p, ref[f].p, got.n * sizeof *got.p);
        }
        kcbp_scene_eval_free(ev);
    }
    free(got.p);
    for (uint32_t f = 0; f < SCENE_FRAMES; f++)
        free(ref[f].p);
    kcbp_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_coincident_corners),
        cmocka_unit_test(test_self_mixed_same_pairs),
        cmocka_unit_test(test_scene_pair_limit),
        cmocka_unit_test(test_threads_where_they_pay),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
