/* 2D scenes (scene2d.h, src/scene/scene2d*.c, cli/scene2d_cmd.c): the
 * colliding pairs against the brute force over every pair with the 2D
 * pair tests (random scenes, moving frames, margins, threads, shards, the
 * pair limit), exact touching constructions whose answer is known, bad
 * files (2D and 3D mixed, missing or outside files), and the command line. */
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

#include <cjson/cJSON.h>
#include <kcbp/kcbp2d.h>
#include <kcbp/scene2d.h>

#include "testutil.h"

static char dir[] = "/tmp/kcbp_scene2d_XXXXXX";
TEST_TMPDIR_FIXTURES(dir)

/* An L with a square hole, and a frame: a 4 x 4 square with the hole [1, 3]^2. */
static const char L_SHAPE[] = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[3,0],[3,1],[1,1],[1,3],[0,3],[0,0]],"
                              "[[0.25,0.25],[0.75,0.25],[0.75,0.75],[0.25,0.75],[0.25,0.25]]]}";
static const char FRAME[] = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[4,0],[4,4],[0,4],[0,0]],"
                            "[[1,1],[1,3],[3,3],[3,1],[1,1]]]}";

typedef struct {
    uint32_t a, b;
} pr;

typedef struct {
    pr *p;
    size_t n, cap;
    uint64_t contacts;
} pair_list;

static kcbp_status collect(void *ctx, const kcbp2d_scene_pair *p, kcbp_error *err)
{
    (void)err;
    pair_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->p = realloc(l->p, l->cap * sizeof *l->p);
        assert_non_null(l->p);
    }
    assert_true(p->a < p->b);
    l->p[l->n++] = (pr){p->a, p->b};
    l->contacts += p->ncontacts;
    return KCBP_OK;
}

static int cmp_pr(const void *x, const void *y)
{
    const pr *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* Every pair, tested with the 2D library's own pair functions. */
static void brute(const kcbp2d_scene *s, uint32_t frame, double margin, pair_list *out)
{
    uint32_t n = kcbp2d_scene_object_count(s);
    kcbp_error err;
    for (uint32_t i = 0; i < n; i++) {
        kcbp2d_pose pi = kcbp2d_scene_object_pose(s, i, frame);
        for (uint32_t j = i + 1; j < n; j++) {
            kcbp2d_pose pj = kcbp2d_scene_object_pose(s, j, frame);
            const kcbp2d_model *mi = kcbp2d_scene_object_model(s, i), *mj = kcbp2d_scene_object_model(s, j);
            bool hit;
            if (mi || mj) {
                kcbp2d_model_collide_options o = kcbp2d_model_collide_options_default();
                o.margin = margin;
                kcbp2d_model_collide_result r;
                if (mi && mj)
                    assert_int_equal(kcbp2d_model_collide(mi, &pi, mj, &pj, &o, &r, &err), KCBP_OK);
                else if (mi)
                    assert_int_equal(
                        kcbp2d_model_shape_collide(mi, &pi, kcbp2d_scene_object_shape(s, j), &pj, &o, &r, &err),
                        KCBP_OK);
                else
                    assert_int_equal(
                        kcbp2d_model_shape_collide(mj, &pj, kcbp2d_scene_object_shape(s, i), &pi, &o, &r, &err),
                        KCBP_OK);
                hit = r.collide;
            } else {
                kcbp2d_collide_options o = kcbp2d_collide_options_default();
                o.margin = margin;
                kcbp2d_collide_result r;
                assert_int_equal(kcbp2d_collide(kcbp2d_scene_object_shape(s, i), &pi, kcbp2d_scene_object_shape(s, j),
                                                &pj, &o, &r, &err),
                                 KCBP_OK);
                hit = r.collide;
            }
            if (hit) {
                kcbp2d_scene_pair p = {i, j, NULL, 0, false, KCBP2D_CONTAINED_NONE};
                collect(out, &p, &err);
            }
        }
    }
}

static void eval_frame(const kcbp2d_scene *s, uint32_t frame, const kcbp2d_scene_eval_options *o, uint64_t limit,
                       pair_list *out, kcbp2d_scene_frame *f)
{
    kcbp_error err;
    kcbp2d_scene_eval *ev;
    assert_int_equal(kcbp2d_scene_eval_new(s, o, &ev, &err), KCBP_OK);
    kcbp2d_scene_eval_set_pair_limit(ev, limit);
    kcbp2d_scene_frame fr;
    for (uint32_t k = 0; k <= frame; k++) { /* through the earlier frames: the tree refitted */
        out->n = 0;
        if (kcbp2d_scene_eval_frame(ev, k, collect, out, &fr, &err) != KCBP_OK)
            fail_msg("%s", err.msg);
    }
    if (f)
        *f = fr;
    kcbp2d_scene_eval_free(ev);
}

static void assert_same_sets(pair_list *a, pair_list *b, const char *what)
{
    qsort(a->p, a->n, sizeof *a->p, cmp_pr);
    qsort(b->p, b->n, sizeof *b->p, cmp_pr);
    if (a->n != b->n)
        fail_msg("%s: %zu pairs, brute force %zu", what, a->n, b->n);
    for (size_t k = 0; k < a->n; k++)
        if (a->p[k].a != b->p[k].a || a->p[k].b != b->p[k].b)
            fail_msg("%s: pair %zu is (%u, %u), brute force (%u, %u)", what, k, a->p[k].a, a->p[k].b, b->p[k].a,
                     b->p[k].b);
}

/* A random scene's text: n objects in a square of side `side`, shapes and
 * the two polygon files, random poses and velocities. */
static char *random_scene(test_rng *rng, uint32_t n, double side, bool moving)
{
    size_t cap = 256 + (size_t)n * 256;
    char *t = malloc(cap);
    assert_non_null(t);
    size_t len = (size_t)snprintf(t, cap, "{\"objects\": [");
    for (uint32_t i = 0; i < n; i++) {
        double x = test_rng_range(rng, 0, side);
        double y = test_rng_range(rng, 0, side);
        double a = test_rng_range(rng, -180, 180);
        double vx = test_rng_range(rng, -1, 1);
        double vy = test_rng_range(rng, -1, 1);
        double w = test_rng_range(rng, -90, 90);
        double r = test_rng_range(rng, 0.1, 0.6);
        double l = test_rng_range(rng, 0.1, 1.5);
        int kind = (int)(test_rng_uniform(rng) * 6);
        char shape[160];
        switch (kind) {
        case 0: snprintf(shape, sizeof shape, "\"shape\": {\"circle\": {\"radius\": %.17g}}", r); break;
        case 1: snprintf(shape, sizeof shape, "\"shape\": {\"rect\": {\"size\": [%.17g, %.17g]}}", l, r); break;
        case 2:
            snprintf(shape, sizeof shape, "\"shape\": {\"rect\": {\"size\": [%.17g, %.17g], \"radius\": 0.05}}", r, l);
            break;
        case 3:
            snprintf(shape, sizeof shape, "\"shape\": {\"capsule2d\": {\"radius\": %.17g, \"length\": %.17g}}", r / 2,
                     l);
            break;
        case 4: snprintf(shape, sizeof shape, "\"mesh\": \"l.geojson\""); break;
        default: snprintf(shape, sizeof shape, "\"mesh\": \"frame.geojson\""); break;
        }
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"name\": \"o%u\", %s, \"pose\": [%.17g, %.17g, %.17g], \"velocity\": [%.17g, "
                                "%.17g, %.17g]}",
                                i ? ", " : "", i, shape, x, y, a, vx, vy, w);
    }
    snprintf(t + len, cap - len, "]%s}", moving ? ", \"motion\": {\"frames\": 6, \"dt\": 0.25}" : "");
    return t;
}

static kcbp2d_scene *scene_from(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_true(kcbp2d_scene_sniff(path));
    kcbp2d_scene *s;
    kcbp_error err;
    if (kcbp2d_scene_read_in(path, NULL, &s, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    return s;
}

static void write_polygons(void)
{
    test_tmp_write_text(dir, "l.geojson", L_SHAPE);
    test_tmp_write_text(dir, "frame.geojson", FRAME);
}

static void test_random_static(void **state)
{
    (void)state;
    write_polygons();
    test_rng rng = {0x2d5ce4e};
    for (int trial = 0; trial < 4; trial++) {
        uint32_t n = 60 + 50 * (uint32_t)trial;
        char *text = random_scene(&rng, n, 4 + 2 * trial, false);
        kcbp2d_scene *s = scene_from("random.json", text);
        free(text);
        for (int m = 0; m < 2; m++) {
            double margin = m ? 0.05 : 0;
            pair_list got = {0}, want = {0}, threaded = {0};
            kcbp2d_scene_eval_options o = kcbp2d_scene_eval_options_default();
            o.margin = margin;
            o.max_contacts = 4;
            kcbp2d_scene_frame f;
            eval_frame(s, 0, &o, UINT64_MAX, &got, &f);
            assert_int_equal(f.colliding, got.n);
            assert_true(f.broadphase >= got.n);
            assert_true(got.n > 0);
            o.jobs = 3;
            eval_frame(s, 0, &o, UINT64_MAX, &threaded, NULL);
            /* the same pairs in the same order for any number of threads */
            assert_int_equal(threaded.n, got.n);
            assert_memory_equal(threaded.p, got.p, got.n * sizeof *got.p);
            brute(s, 0, margin, &want);
            assert_same_sets(&got, &want, "random static scene");
            free(got.p), free(want.p), free(threaded.p);
        }
        kcbp2d_scene_free(s);
    }
}

static void test_random_moving(void **state)
{
    (void)state;
    write_polygons();
    test_rng rng = {0x5eed2d};
    char *text = random_scene(&rng, 150, 7, true);
    kcbp2d_scene *s = scene_from("moving.json", text);
    free(text);
    assert_int_equal(kcbp2d_scene_frame_count(s), 6);
    kcbp_error err;
    kcbp2d_scene_eval *ev;
    kcbp2d_scene_eval_options o = kcbp2d_scene_eval_options_default();
    o.jobs = 2;
    assert_int_equal(kcbp2d_scene_eval_new(s, &o, &ev, &err), KCBP_OK);
    for (uint32_t f = 0; f < 6; f++) {
        pair_list got = {0}, want = {0};
        kcbp2d_scene_frame fr;
        assert_int_equal(kcbp2d_scene_eval_frame(ev, f, collect, &got, &fr, &err), KCBP_OK);
        assert_int_equal(fr.frame, f);
        brute(s, f, 0, &want);
        assert_same_sets(&got, &want, "moving scene");
        free(got.p), free(want.p);
    }
    kcbp2d_scene_eval_free(ev);
    kcbp2d_scene_free(s);

    /* the nesting generator's moving scene */
    char *gen;
    assert_int_equal(kcbp2d_scene_generate("nesting", 300, 7, &gen, &err), KCBP_OK);
    s = scene_from("nesting.json", gen);
    free(gen);
    for (uint32_t f = 0; f < kcbp2d_scene_frame_count(s); f += 3) {
        pair_list got = {0}, want = {0};
        eval_frame(s, f, NULL, UINT64_MAX, &got, NULL);
        brute(s, f, 0, &want);
        assert_same_sets(&got, &want, "nesting scene");
        free(got.p), free(want.p);
    }
    kcbp2d_scene_free(s);
}

/* Shards and the pair limit: the union of the shards is the whole; the
 * limit hands on the first pairs of the fixed order. */
static void test_shards_and_limit(void **state)
{
    (void)state;
    kcbp_error err;
    char *gen;
    assert_int_equal(kcbp2d_scene_generate("parcels", 900, 3, &gen, &err), KCBP_OK);
    kcbp2d_scene *s = scene_from("parcels.json", gen);
    free(gen);
    pair_list all = {0}, want = {0};
    eval_frame(s, 0, NULL, UINT64_MAX, &all, NULL);
    brute(s, 0, 0, &want);
    pair_list sorted = {malloc(all.n * sizeof *all.p), all.n, all.n, 0};
    memcpy(sorted.p, all.p, all.n * sizeof *all.p);
    assert_same_sets(&sorted, &want, "parcels");
    pair_list shards = {0};
    for (uint32_t i = 0; i < 3; i++) {
        kcbp2d_scene_eval_options o = kcbp2d_scene_eval_options_default();
        o.shard_index = i, o.shard_count = 3;
        pair_list one = {0};
        eval_frame(s, 0, &o, UINT64_MAX, &one, NULL);
        for (size_t k = 0; k < one.n; k++) {
            kcbp2d_scene_pair p = {one.p[k].a, one.p[k].b, NULL, 0, false, KCBP2D_CONTAINED_NONE};
            collect(&shards, &p, &err);
        }
        free(one.p);
    }
    assert_same_sets(&shards, &want, "three shards");
    /* threads where they may pay: the first frame of 15 chunks goes to
     * them, a scene of one chunk never does; the same pairs either way */
    kcbp2d_scene_eval_options two = kcbp2d_scene_eval_options_default();
    two.jobs = 2;
    pair_list threaded = {0};
    kcbp2d_scene_frame tf;
    eval_frame(s, 0, &two, UINT64_MAX, &threaded, &tf);
    assert_true(tf.threaded);
    assert_int_equal(threaded.n, all.n);
    assert_memory_equal(threaded.p, all.p, all.n * sizeof *all.p);
    free(threaded.p);
    kcbp2d_scene *small = scene_from("small.json", "{\"objects\": [{\"name\": \"a\", \"shape\": {\"circle\": "
                                                   "{\"radius\": 1}}, \"pose\": [0, 0, 0]}, {\"name\": \"b\", "
                                                   "\"shape\": {\"circle\": {\"radius\": 1}}, \"pose\": [2, 0, 0]}]}");
    pair_list one = {0};
    eval_frame(small, 0, &two, UINT64_MAX, &one, &tf);
    assert_false(tf.threaded);
    assert_int_equal(one.n, 1); /* touching at (1, 0) */
    free(one.p);
    kcbp2d_scene_free(small);
    pair_list first = {0};
    kcbp2d_scene_frame f;
    eval_frame(s, 0, NULL, 7, &first, &f);
    assert_int_equal(first.n, 7);
    assert_true(f.stopped);
    assert_memory_equal(first.p, all.p, 7 * sizeof *all.p);
    free(first.p), free(shards.p), free(all.p), free(want.p), free(sorted.p);
    kcbp2d_scene_free(s);
}

/* Exactly touching: a k x k grid of unit squares at integer centres, each
 * touching its 8 neighbours (edges and corners), turned by multiples of 90
 * degrees (exact poses); squares as shapes and as GeoJSON polygons. */
static void test_touching(void **state)
{
    (void)state;
    test_tmp_write_text(dir, "unit.geojson",
                        "{\"type\":\"Polygon\",\"coordinates\":[[[-0.5,-0.5],[0.5,-0.5],[0.5,0.5],[-0.5,0.5],[-0.5,-0.5]]]}");
    for (int use_file = 0; use_file < 2; use_file++) {
        const uint32_t k = 12;
        char *t = malloc(k * k * 160 + 64);
        size_t len = (size_t)sprintf(t, "{\"objects\": [");
        for (uint32_t i = 0; i < k * k; i++)
            len += (size_t)sprintf(t + len, "%s{\"name\": \"s%u\", %s, \"pose\": [%u, %u, %u]}", i ? "," : "", i,
                                   (use_file ^ (i & 1)) ? "\"mesh\": \"unit.geojson\""
                                                        : "\"shape\": {\"rect\": {\"size\": [1, 1]}}",
                                   i % k, i / k, 90 * (i % 4));
        strcpy(t + len, "]}");
        kcbp2d_scene *s = scene_from("grid.json", t);
        free(t);
        pair_list got = {0};
        eval_frame(s, 0, NULL, UINT64_MAX, &got, NULL);
        assert_int_equal(got.n, 2 * k * (k - 1) + 2 * (k - 1) * (k - 1));
        free(got.p);
        kcbp2d_scene_free(s);
    }
    /* an SVG square [0, 1]^2 and a unit square shape beside it, sharing the edge x = 1;
     * a second shape one ulp further right does not touch */
    test_tmp_write_text(dir, "sq.svg",
                        "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect x=\"0\" y=\"0\" width=\"1\" height=\"1\"/></svg>");
    {
        char t[512];
        snprintf(t, sizeof t,
                 "{\"objects\": [{\"name\": \"svg\", \"mesh\": \"sq.svg\", \"pose\": [0, 0, 0]},"
                 "{\"name\": \"side\", \"shape\": {\"rect\": {\"size\": [1, 1]}}, \"pose\": [1.5, 0.5, 0]},"
                 "{\"name\": \"apart\", \"shape\": {\"rect\": {\"size\": [1, 1]}}, \"pose\": [%.17g, 3.5, 0]},"
                 "{\"name\": \"svg2\", \"mesh\": \"sq.svg\", \"pose\": [0, 3, 0]}]}",
                 nextafter(1.5, 2.0));
        kcbp2d_scene *sv = scene_from("svg.json", t);
        pair_list got = {0};
        eval_frame(sv, 0, NULL, UINT64_MAX, &got, NULL);
        assert_int_equal(got.n, 1);
        assert_int_equal(got.p[0].a, 0), assert_int_equal(got.p[0].b, 1);
        free(got.p);
        kcbp2d_scene_free(sv);
    }
    /* a hole: a circle of radius 1 in the frame's hole touches its four
     * edges (centre 1 away from each); radius 0.5 touches nothing; a small
     * square in the frame's solid part lies inside it */
    test_tmp_write_text(dir, "frame.geojson", FRAME);
    kcbp2d_scene *s = scene_from("hole.json",
                                 "{\"objects\": ["
                                 "{\"name\": \"frame\", \"mesh\": \"frame.geojson\", \"pose\": [0, 0, 0]},"
                                 "{\"name\": \"disc1\", \"shape\": {\"circle\": {\"radius\": 1}}, \"pose\": [2, 2, 0]},"
                                 "{\"name\": \"disc05\", \"shape\": {\"circle\": {\"radius\": 0.5}}, \"pose\": [12, 2, 0]},"
                                 "{\"name\": \"frame2\", \"mesh\": \"frame.geojson\", \"pose\": [10, 0, 0]},"
                                 "{\"name\": \"chip\", \"shape\": {\"rect\": {\"size\": [0.2, 0.2]}}, \"pose\": [20.5, 0.5, 0]},"
                                 "{\"name\": \"frame3\", \"mesh\": \"frame.geojson\", \"pose\": [20, 0, 0]}"
                                 "]}");
    pair_list got = {0};
    kcbp2d_scene_eval_options o = kcbp2d_scene_eval_options_default();
    o.max_contacts = 8;
    eval_frame(s, 0, &o, UINT64_MAX, &got, NULL);
    qsort(got.p, got.n, sizeof *got.p, cmp_pr);
    assert_int_equal(got.n, 2);
    assert_int_equal(got.p[0].a, 0), assert_int_equal(got.p[0].b, 1);
    assert_int_equal(got.p[1].a, 4), assert_int_equal(got.p[1].b, 5);
    free(got.p);
    /* with a margin of 0.5 the small disc reaches the second frame's hole edges (0.5 away) */
    o.margin = 0.5;
    pair_list near = {0};
    eval_frame(s, 0, &o, UINT64_MAX, &near, NULL);
    assert_int_equal(near.n, 3);
    free(near.p);
    kcbp2d_scene_free(s);
}

static void expect_error(const char *name, const char *text, const char *root, const char *needle)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    kcbp2d_scene *s = NULL;
    kcbp_error err = {0};
    kcbp_status st = kcbp2d_scene_read_in(path, root, &s, &err);
    if (st == KCBP_OK || !strstr(err.msg, needle))
        fail_msg("%s: status %d, '%s', expected '%s'", name, st, err.msg, needle);
    assert_null(s);
}

static void test_bad_files(void **state)
{
    (void)state;
    write_polygons();
    expect_error("mix.json",
                 "{\"objects\": [{\"name\": \"a\", \"shape\": {\"circle\": {\"radius\": 1}}, \"pose\": [0, 0, 0]},"
                 "{\"name\": \"ball\", \"shape\": {\"sphere\": {\"radius\": 1}}, \"position\": [0, 0, 0]}]}",
                 NULL, "objects[1]: \"ball\" is a 3D object in a 2D scene");
    expect_error("missing.json", "{\"objects\": [{\"name\": \"a\", \"mesh\": \"nothere.geojson\", \"pose\": [0, 0, 0]}]}",
                 NULL, "objects[0].mesh: ");
    expect_error("outside.json", "{\"objects\": [{\"name\": \"a\", \"mesh\": \"../x.geojson\", \"pose\": [0, 0, 0]}]}",
                 NULL, "outside the mesh root");
    expect_error("abs.json", "{\"objects\": [{\"name\": \"a\", \"mesh\": \"/etc/x.geojson\", \"pose\": [0, 0, 0]}]}",
                 NULL, "outside the mesh root");
    expect_error("pose.json", "{\"objects\": [{\"name\": \"a\", \"mesh\": \"l.geojson\", \"pose\": [0, 0]}]}", NULL,
                 "objects[0].pose: expected 3 numbers");
    expect_error("key.json", "{\"objects\": [{\"name\": \"a\", \"mesh\": \"l.geojson\", \"pose\": [0, 0, 0], \"spin\": 1}]}",
                 NULL, "unknown key \"spin\"");
    expect_error("dup.json",
                 "{\"objects\": [{\"name\": \"a\", \"mesh\": \"l.geojson\", \"pose\": [0, 0, 0]},"
                 "{\"name\": \"a\", \"mesh\": \"l.geojson\", \"pose\": [5, 0, 0]}]}",
                 NULL, "objects[1].name: \"a\" is already the name of objects[0]");
    expect_error("radius.json", "{\"objects\": [{\"name\": \"a\", \"shape\": {\"circle\": {\"radius\": -1}}, \"pose\": [0, 0, 0]}]}",
                 NULL, "objects[0].shape.circle");
    expect_error("shape.json", "{\"objects\": [{\"name\": \"a\", \"shape\": {\"circle\": {\"radius\": 1}}, \"pose\": [0, 0, 0]},"
                               "{\"name\": \"b\", \"shape\": {\"triangle\": {}}, \"pose\": [0, 0, 0]}]}",
                 NULL, "objects[1].shape.triangle: unknown 2D shape");
    expect_error("far.json",
                 "{\"objects\": [{\"name\": \"a\", \"shape\": {\"circle\": {\"radius\": 1}}, \"pose\": [0, 0, 0], "
                 "\"velocity\": [1e300, 0, 0]}], \"motion\": {\"frames\": 3, \"dt\": 1e100}}",
                 NULL, "objects[0].velocity: moves the object beyond");
    expect_error("json.json", "{\"objects\": [{\"name\": \"a\",, }]}", NULL, "invalid JSON");
    /* a 2D object after a 3D one: the 3D reader names it */
    const char *p3 = test_tmp_write_text(dir, "mix3.json",
                                         "{\"objects\": [{\"name\": \"ball\", \"shape\": {\"sphere\": {\"radius\": 1}}, "
                                         "\"position\": [0, 0, 0]}, {\"name\": \"lot\", \"mesh\": \"l.geojson\", "
                                         "\"pose\": [0, 0, 0]}]}");
    assert_false(kcbp2d_scene_sniff(p3));
    kcbp_scene *s3 = NULL;
    kcbp_error err;
    assert_int_not_equal(kcbp_scene_read_in(p3, NULL, &s3, &err), KCBP_OK);
    assert_non_null(strstr(err.msg, "objects[1]: \"lot\" is a 2D object in a 3D scene"));
    /* the growable options: a struct not made by _default is refused */
    kcbp2d_scene *s = scene_from("ok.json",
                                 "{\"objects\": [{\"name\": \"a\", \"mesh\": \"l.geojson\", \"pose\": [0, 0, 0]}]}");
    kcbp2d_scene_eval_options zero;
    memset(&zero, 0, sizeof zero);
    kcbp2d_scene_eval *ev = NULL;
    assert_int_equal(kcbp2d_scene_eval_new(s, &zero, &ev, &err), KCBP_ERR_INVALID);
    kcbp2d_scene_eval_options neg = kcbp2d_scene_eval_options_default();
    neg.margin = -1;
    assert_int_equal(kcbp2d_scene_eval_new(s, &neg, &ev, &err), KCBP_ERR_INVALID);
    kcbp2d_scene_free(s);
}

static cJSON *line_json(const char *text, int line)
{
    const char *p = text;
    for (int k = 0; k < line && p; k++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    assert_non_null(p);
    const char *e = strchr(p, '\n');
    char *one = strndup(p, e ? (size_t)(e - p) : strlen(p));
    cJSON *j = cJSON_Parse(one);
    free(one);
    assert_non_null(j);
    return j;
}

static void test_cli(void **state)
{
    (void)state;
    write_polygons();
    const char *scene = test_tmp_write_text(
        dir, "cli.json",
        "{\"objects\": ["
        "{\"name\": \"lot\", \"mesh\": \"frame.geojson\", \"pose\": [0, 0, 0]},"
        "{\"name\": \"disc\", \"shape\": {\"circle\": {\"radius\": 1}}, \"pose\": [2, 2, 0]},"
        "{\"name\": \"bar\", \"shape\": {\"capsule2d\": {\"radius\": 0.25, \"length\": 2}}, \"pose\": [4.25, 2, 90]},"
        "{\"name\": \"far\", \"shape\": {\"rect\": {\"size\": [1, 1]}}, \"pose\": [40, 40, 0]}"
        "]}");
    test_run_result r = {0};
    test_run_args(&r, "scene", scene, "--contacts", "all", NULL);
    if (r.status != 0)
        fail_msg("status %d: %s", r.status, r.err);
    cJSON *j = line_json(r.out, 0);
    assert_int_equal(cJSON_GetObjectItem(j, "objects")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(j, "pairs")->valueint, 6);
    cJSON *col = cJSON_GetObjectItem(j, "colliding");
    assert_int_equal(cJSON_GetArraySize(col), 2);
    int seen = 0;
    for (cJSON *p = col->child; p; p = p->next) {
        const char *a = cJSON_GetObjectItem(p, "a")->valuestring, *b = cJSON_GetObjectItem(p, "b")->valuestring;
        assert_string_equal(a, "lot");
        cJSON *c = cJSON_GetObjectItem(p, "contacts");
        assert_true(cJSON_GetArraySize(c) >= 1);
        /* an edge of the lot (the hole's 4 edges are 4..7; the outer ring's 0..3), null for the shape */
        cJSON *first = c->child;
        assert_true(cJSON_IsNumber(first->child) && cJSON_IsNull(first->child->next));
        if (!strcmp(b, "disc")) {
            seen |= 1;
            assert_int_equal(cJSON_GetArraySize(c), 4);
            assert_true(first->child->valueint >= 4);
        } else if (!strcmp(b, "bar")) {
            seen |= 2;
            assert_true(first->child->valueint < 4);
        }
    }
    assert_int_equal(seen, 3);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "passed"), "cbp")));
    cJSON_Delete(j);

    /* --max-pairs 1 */
    test_run_args(&r, "scene", scene, "--max-pairs", "1", "--contacts", "none", NULL);
    assert_int_equal(r.status, 0);
    j = line_json(r.out, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "colliding")), 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "truncated")));
    assert_string_equal(cJSON_GetObjectItem(j, "stopped")->valuestring, "max_pairs");
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "colliding")->child, "contacts"));
    cJSON_Delete(j);

    /* --margin: the far square stays apart; a margin of 0.5 adds nothing
     * here but is accepted; --jobs gives the same line but for times */
    test_run_args(&r, "scene", scene, "--margin", "0.5", "--jobs", "3", NULL);
    assert_int_equal(r.status, 0);
    j = line_json(r.out, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "colliding")), 2);
    cJSON_Delete(j);

    /* a batch of a 2D and a 3D scene */
    const char *s3 = test_tmp_write_text(dir, "three.json",
                                         "{\"objects\": [{\"name\": \"b1\", \"shape\": {\"sphere\": {\"radius\": 1}}, "
                                         "\"position\": [0, 0, 0]}, {\"name\": \"b2\", \"shape\": {\"sphere\": "
                                         "{\"radius\": 1}}, \"position\": [1, 0, 0]}]}");
    test_run_args(&r, "batch", scene, s3, "--jobs", "2", NULL);
    if (r.status != 0)
        fail_msg("status %d: %s", r.status, r.err);
    j = line_json(r.out, 0);
    assert_int_equal(cJSON_GetObjectItem(j, "index")->valueint, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "colliding")), 2);
    cJSON_Delete(j);
    j = line_json(r.out, 1);
    assert_int_equal(cJSON_GetObjectItem(j, "index")->valueint, 1);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "colliding")), 1);
    cJSON_Delete(j);

    /* errors: a mix (exit 3, the object named), --ccd on a 2D scene */
    const char *mix = test_tmp_write_text(dir, "climix.json",
                                          "{\"objects\": [{\"name\": \"lot\", \"mesh\": \"l.geojson\", \"pose\": [0, 0, "
                                          "0]}, {\"name\": \"bunny\", \"mesh\": \"bunny.obj\", \"position\": [0, 0, 0]}]}");
    test_run_args(&r, "scene", mix, NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "objects[1]: \"bunny\" is a 3D object in a 2D scene"));
    assert_int_equal(r.out_len, 0);
    test_run_args(&r, "scene", scene, "--ccd", NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "2D scene"));

    /* --generate parcels: runs as written */
    test_run_args(&r, "scene", "--generate", "parcels", "--n", "50", "--seed", "2", NULL);
    assert_int_equal(r.status, 0);
    const char *gen = test_tmp_write_text(dir, "gen.json", r.out);
    test_run_args(&r, "scene", gen, NULL);
    assert_int_equal(r.status, 0);
    j = line_json(r.out, 0);
    assert_int_equal(cJSON_GetObjectItem(j, "objects")->valueint, 50);
    cJSON_Delete(j);
    test_run_args(&r, "scene", "--generate", "parcels", "--mesh", "x.obj", NULL);
    assert_int_equal(r.status, 2);
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_static), cmocka_unit_test(test_random_moving),
        cmocka_unit_test(test_shards_and_limit), cmocka_unit_test(test_touching),
        cmocka_unit_test(test_bad_files), cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
