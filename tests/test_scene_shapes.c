/* Shapes in scene files ("shape": {"capsule": {"radius": R, "length": L}}
 * instead of "mesh"): scenes of spheres, capsules, boxes, cylinders and
 * meshes answer the colliding pairs kcbp_collide finds over all pairs, with
 * reference models built here (static, moving, with a margin, shapes only);
 * objects of one shape and scale share a model; the text written reads back;
 * every bad shape gets an error naming its field; kcbp scene and kcbp batch
 * take such files and report a shape's side of a contact as null. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include <kcbp/kcbp.h>

#include "testutil.h"

/* ---- random scenes ------------------------------------------------------ */

/* One object as the test wrote it: kind NONE is the mesh suzanne.obj. */
typedef struct {
    kcbp_shape shape;
    double scale;
} spec;

typedef struct {
    char *text;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[1024];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof tmp);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = 2 * (b->len + (size_t)n + 1);
        b->text = realloc(b->text, b->cap);
        assert_non_null(b->text);
    }
    memcpy(b->text + b->len, tmp, (size_t)n + 1);
    b->len += (size_t)n;
}

/* test_rng_unit_vector, its draws in a fixed order (its own call's
 * arguments are drawn in the compiler's order). */
static kcbp_vec3 unit_vector(test_rng *r)
{
    for (;;) {
        double x = test_rng_range(r, -1, 1), y = test_rng_range(r, -1, 1), z = test_rng_range(r, -1, 1);
        kcbp_vec3 v = kcbp_v3(x, y, z);
        double l = kcbp_v3_len(v);
        if (l > 0.1 && l <= 1.0)
            return kcbp_v3_scale(v, 1.0 / l);
    }
}

/* A few parameter sets per kind, so that objects share models. */
static spec random_spec(test_rng *r, bool shapes_only)
{
    spec s;
    memset(&s, 0, sizeof s);
    s.scale = test_rng_uniform(r) < 0.25 ? 1.5 : 1.0;
    int kind = (int)(test_rng_uniform(r) * (shapes_only ? 4 : 5));
    int v = (int)(test_rng_uniform(r) * 2);
    switch (kind) {
    case 0: s.shape = kcbp_shape_sphere(v ? 0.3 : 0.45); break;
    case 1: s.shape = kcbp_shape_capsule(0.1, v ? 0.8 : 0.4); break;
    case 2: s.shape = kcbp_shape_box(0.6, v ? 0.2 : 0.4, 0.5); break;
    case 3: s.shape = kcbp_shape_cylinder(v ? 0.2 : 0.35, 0.7); break;
    default: s.scale = v ? 0.5 : 0.7; break; /* the mesh */
    }
    return s;
}

static void put_spec(buf *b, const spec *s)
{
    switch (s->shape.kind) {
    case KCBP_SHAPE_SPHERE: put(b, "\"shape\": {\"sphere\": {\"radius\": %.17g}}", s->shape.radius); break;
    case KCBP_SHAPE_CAPSULE:
        put(b, "\"shape\": {\"capsule\": {\"radius\": %.17g, \"length\": %.17g}}", s->shape.radius, s->shape.length);
        break;
    case KCBP_SHAPE_BOX:
        put(b, "\"shape\": {\"box\": {\"size\": [%.17g, %.17g, %.17g]}}", s->shape.size.x, s->shape.size.y,
            s->shape.size.z);
        break;
    case KCBP_SHAPE_CYLINDER:
        put(b, "\"shape\": {\"cylinder\": {\"radius\": %.17g, \"height\": %.17g}}", s->shape.radius,
            s->shape.length);
        break;
    default: put(b, "\"mesh\": \"suzanne.obj\""); break;
    }
}

/* n objects in a cube of side `side`, random rotations; moving: velocities
 * and spins over `frames` frames. */
static char *random_scene(uint64_t seed, uint32_t n, double side, bool shapes_only, uint32_t frames, spec *specs)
{
    test_rng r = {seed};
    buf b = {0};
    put(&b, "{\"objects\": [");
    for (uint32_t i = 0; i < n; i++) {
        specs[i] = random_spec(&r, shapes_only);
        put(&b, "%s\n{\"name\": \"o%u\", ", i ? "," : "", i);
        put_spec(&b, &specs[i]);
        /* (one draw per statement: the order of a call's arguments is the
         * compiler's, and the scene must be the same with every compiler) */
        double px = test_rng_range(&r, 0, side), py = test_rng_range(&r, 0, side);
        double pz = test_rng_range(&r, 0, side);
        kcbp_vec3 ax = unit_vector(&r);
        double angle = test_rng_range(&r, 0, 360);
        put(&b, ", \"position\": [%.17g, %.17g, %.17g], \"rotation\": {\"axis\": [%.17g, %.17g, %.17g], "
                "\"angle_deg\": %.17g}",
            px, py, pz, ax.x, ax.y, ax.z, angle);
        if (specs[i].scale != 1.0 || test_rng_uniform(&r) < 0.2)
            put(&b, ", \"scale\": %.17g", specs[i].scale);
        if (frames > 1) {
            double vx = test_rng_range(&r, -1, 1), vy = test_rng_range(&r, -1, 1);
            double vz = test_rng_range(&r, -1, 1);
            kcbp_vec3 w = unit_vector(&r);
            double rate = test_rng_range(&r, -90, 90);
            put(&b, ", \"velocity\": [%.17g, %.17g, %.17g], \"angular_velocity\": {\"axis\": [%.17g, %.17g, "
                    "%.17g], \"deg_per_s\": %.17g}",
                vx, vy, vz, w.x, w.y, w.z, rate);
        }
        put(&b, "}");
    }
    put(&b, "]");
    if (frames > 1)
        put(&b, ", \"motion\": {\"frames\": %u, \"dt\": 0.1}", frames);
    put(&b, "}\n");
    return b.text;
}

/* Reference models, built here, not by the scene: one per object. */
static kcbp_model *reference_models(const spec *specs, uint32_t n)
{
    kcbp_model *m = calloc(n, sizeof *m);
    assert_non_null(m);
    kcbp_error err = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (specs[i].shape.kind == KCBP_SHAPE_NONE) {
            kcbp_mesh *mesh;
            if (kcbp_mesh_load("meshes/suzanne.obj", &mesh, &err) != KCBP_OK)
                fail_msg("%s", err.msg);
            uint32_t nv = kcbp_mesh_vertex_count(mesh);
            kcbp_vec3 *v = malloc(nv * sizeof *v);
            assert_non_null(v);
            for (uint32_t k = 0; k < nv; k++)
                v[k] = kcbp_v3_scale(kcbp_mesh_vertices(mesh)[k], specs[i].scale);
            kcbp_mesh *scaled;
            if (kcbp_mesh_create(v, nv, kcbp_mesh_triangles(mesh), kcbp_mesh_triangle_count(mesh), &scaled, &err) !=
                    KCBP_OK ||
                kcbp_model_build(&m[i], scaled, NULL, &err) != KCBP_OK)
                fail_msg("%s", err.msg);
            free(v);
            kcbp_mesh_free(mesh);
            continue;
        }
        kcbp_shape sh = specs[i].shape;
        sh.radius *= specs[i].scale;
        sh.length *= specs[i].scale;
        sh.size = kcbp_v3_scale(sh.size, specs[i].scale);
        if (kcbp_model_build_shape(&m[i], &sh, &err) != KCBP_OK)
            fail_msg("%s", err.msg);
    }
    return m;
}

static void free_models(kcbp_model *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        kcbp_model_free(&m[i]);
    free(m);
}

/* Frame f of the scene against kcbp_collide (and, with a margin,
 * kcbp_distance) on every pair, with the reference models; the number of
 * colliding pairs. */
static size_t check_frame(const kcbp_scene *s, kcbp_scene_eval *ev, double margin, uint32_t f, const kcbp_model *refs)
{
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    kcbp_error err = {0};
    if (kcbp_scene_eval_frame(ev, f, &fr, &err) != KCBP_OK)
        fail_msg("frame %u: %s", f, err.msg);
    uint32_t n = kcbp_scene_object_count(s);
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result res = {0};
    size_t k = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++) {
            kcbp_pose pa = kcbp_scene_object_pose(s, a, f), pb = kcbp_scene_object_pose(s, b, f);
            assert_int_equal(kcbp_collide(&refs[a], &pa, &refs[b], &pb, &co, &res, NULL), KCBP_OK);
            bool hit = res.collide;
            if (!hit && margin > 0) {
                kcbp_distance_options d = kcbp_distance_options_default();
                kcbp_distance_result dr;
                assert_int_equal(kcbp_distance(&refs[a], &pa, &refs[b], &pb, &d, &dr, NULL), KCBP_OK);
                hit = dr.distance <= margin;
            }
            if (!hit)
                continue;
            if (k >= fr.colliding || fr.hits[k].a != a || fr.hits[k].b != b)
                fail_msg("frame %u: the scene misses the colliding pair (o%u, o%u)", f, a, b);
            k++;
        }
    if (k != fr.colliding)
        fail_msg("frame %u: the scene reports %zu colliding pairs, kcbp_collide finds %zu", f, (size_t)fr.colliding, k);
    kcbp_collide_result_free(&res);
    kcbp_scene_frame_free(&fr);
    return k;
}

/* The distinct (kind, numbers, scale) of the specs: the models the scene
 * should build. */
static uint32_t distinct_models(const spec *specs, uint32_t n)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = !memcmp(&specs[i].shape, &specs[j].shape, sizeof specs[i].shape) && specs[i].scale == specs[j].scale;
        d += !seen;
    }
    return d;
}

static void run_scene(uint64_t seed, uint32_t n, double side, bool shapes_only, uint32_t frames, double margin,
                      unsigned jobs)
{
    spec *specs = calloc(n, sizeof *specs);
    assert_non_null(specs);
    char *text = random_scene(seed, n, side, shapes_only, frames, specs);
    kcbp_scene *s;
    kcbp_error err = {0};
    if (kcbp_scene_parse("shapes.json", "meshes", text, strlen(text), &s, &err) != KCBP_OK ||
        kcbp_scene_build(s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    /* objects of one shape (or mesh) and scale share one model */
    assert_int_equal(kcbp_scene_model_count(s), distinct_models(specs, n));
    for (uint32_t i = 0; i < n; i++) {
        kcbp_shape sh;
        bool is_shape = kcbp_model_shape(kcbp_scene_model(s, kcbp_scene_object_model(s, i)), &sh);
        assert_int_equal(is_shape, specs[i].shape.kind != KCBP_SHAPE_NONE);
        for (uint32_t j = 0; j < i; j++)
            if (!memcmp(&specs[i].shape, &specs[j].shape, sizeof specs[i].shape) && specs[i].scale == specs[j].scale)
                assert_int_equal(kcbp_scene_object_model(s, i), kcbp_scene_object_model(s, j));
    }
    kcbp_model *refs = reference_models(specs, n);
    kcbp_scene_eval_options o = kcbp_scene_eval_options_default();
    o.margin = margin;
    o.jobs = jobs;
    kcbp_scene_eval *ev;
    if (kcbp_scene_eval_new(s, &o, &ev, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    size_t hits = 0;
    for (uint32_t f = 0; f < kcbp_scene_frame_count(s); f++)
        hits += check_frame(s, ev, margin, f, refs);
    assert_true(hits > 0); /* the scenes are dense enough to collide */
    print_message("seed %llu: %zu colliding pairs over %u frames, %u models\n", (unsigned long long)seed, hits,
                  kcbp_scene_frame_count(s), kcbp_scene_model_count(s));
    kcbp_scene_eval_free(ev);
    free_models(refs, n);
    kcbp_scene_free(s);
    free(text);
    free(specs);
}

static void test_static_mixed(void **state)
{
    (void)state;
    run_scene(1, 60, 4.0, false, 1, 0, 1);
    run_scene(2, 120, 5.0, false, 1, 0, 2);
}

static void test_moving_mixed(void **state)
{
    (void)state;
    run_scene(3, 50, 4.0, false, 6, 0, 1);
}

static void test_margin(void **state)
{
    (void)state;
    run_scene(4, 50, 5.0, false, 1, 0.2, 1);
    run_scene(5, 40, 5.0, true, 3, 0.15, 2);
}

static void test_shapes_only(void **state)
{
    (void)state;
    run_scene(6, 80, 4.0, true, 1, 0, 1);
}

/* ---- reading and writing ------------------------------------------------ */

static void test_round_trip_and_code(void **state)
{
    (void)state;
    const char *text = "{\"objects\": ["
                       "{\"name\": \"a\", \"shape\": {\"capsule\": {\"radius\": 0.05, \"length\": 0.4}}, "
                       "\"position\": [0, 0, 0], \"scale\": 2},"
                       "{\"name\": \"b\", \"shape\": {\"box\": {\"size\": [1, 2, 3]}}, \"position\": [1, 0, 0]},"
                       "{\"name\": \"c\", \"shape\": {\"cylinder\": {\"radius\": 0.1, \"height\": 0.3}}, "
                       "\"position\": [2, 0, 0]},"
                       "{\"name\": \"d\", \"shape\": {\"sphere\": {\"radius\": 0.1}}, \"position\": [3, 0, 0]},"
                       "{\"name\": \"e\", \"mesh\": \"suzanne.obj\", \"position\": [4, 0, 0]}]}";
    kcbp_scene *s, *t;
    kcbp_error err = {0};
    if (kcbp_scene_parse("rt.json", "meshes", text, strlen(text), &s, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    /* read back: the shape as the command line spells it */
    assert_string_equal(kcbp_scene_object_at(s, 0).mesh, "capsule:0.050000000000000003:0.40000000000000002");
    assert_string_equal(kcbp_scene_object_at(s, 1).mesh, "box:1:2:3");
    assert_string_equal(kcbp_scene_object_at(s, 2).mesh, "cylinder:0.10000000000000001:0.29999999999999999");
    assert_string_equal(kcbp_scene_object_at(s, 3).mesh, "sphere:0.10000000000000001");
    assert_string_equal(kcbp_scene_object_at(s, 4).mesh, "suzanne.obj");
    char *out;
    assert_int_equal(kcbp_scene_to_text(s, false, &out, &err), KCBP_OK);
    assert_non_null(strstr(out, "\"shape\":{\"capsule\":{\"radius\":0.05,\"length\":0.4}}"));
    assert_non_null(strstr(out, "\"shape\":{\"cylinder\":{\"radius\":0.1,\"height\":0.3}}"));
    assert_non_null(strstr(out, "\"shape\":{\"box\":{\"size\":[1,2,3]}}"));
    assert_null(strstr(out, "\001"));
    if (kcbp_scene_parse("rt2.json", "meshes", out, strlen(out), &t, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    for (uint32_t i = 0; i < 5; i++) {
        assert_string_equal(kcbp_scene_object_at(s, i).mesh, kcbp_scene_object_at(t, i).mesh);
        assert_true(kcbp_scene_object_at(s, i).scale == kcbp_scene_object_at(t, i).scale);
    }
    free(out);
    kcbp_scene_free(t);
    /* built: the capsule scaled by 2; the model's path is the spelling */
    if (kcbp_scene_build(s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    kcbp_shape sh;
    assert_true(kcbp_model_shape(kcbp_scene_model(s, kcbp_scene_object_model(s, 0)), &sh));
    assert_int_equal(sh.kind, KCBP_SHAPE_CAPSULE);
    assert_true(sh.radius == 0.05 * 2 && sh.length == 0.4 * 2);
    assert_string_equal(kcbp_scene_model_path(s, kcbp_scene_object_model(s, 1)), "box:1:2:3");
    kcbp_scene_free(s);

    /* In code: a mesh spelled as a shape is that shape; "./" names a file. */
    assert_int_equal(kcbp_scene_new("code", "meshes", &s, &err), KCBP_OK);
    kcbp_scene_object o = kcbp_scene_object_default();
    o.name = "x";
    o.mesh = "capsule:0.05:0.4";
    assert_int_equal(kcbp_scene_add_object(s, &o, &err), KCBP_OK);
    o.name = "y";
    o.mesh = "capsule:0.05:0.4";
    o.position = kcbp_v3(0, 0, 0.3);
    assert_int_equal(kcbp_scene_add_object(s, &o, &err), KCBP_OK);
    o.name = "z";
    o.mesh = "capsule:0.05:-1";
    assert_int_equal(kcbp_scene_add_object(s, &o, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "objects[2].mesh: "));
    o.mesh = "sphere:1e-60";
    o.scale = 0.5;
    assert_int_equal(kcbp_scene_add_object(s, &o, &err), KCBP_ERR_INVALID);
    assert_non_null(strstr(err.msg, "objects[2].scale: "));
    o.mesh = "\001sphere:1";
    o.scale = 1;
    assert_int_equal(kcbp_scene_add_object(s, &o, &err), KCBP_ERR_INVALID);
    if (kcbp_scene_build(s, NULL, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(kcbp_scene_model_count(s), 1);
    kcbp_scene_eval *ev;
    assert_int_equal(kcbp_scene_eval_new(s, NULL, &ev, &err), KCBP_OK);
    kcbp_scene_frame fr;
    memset(&fr, 0, sizeof fr);
    assert_int_equal(kcbp_scene_eval_frame(ev, 0, &fr, &err), KCBP_OK);
    assert_int_equal(fr.colliding, 1); /* the capsules overlap along z */
    kcbp_scene_frame_free(&fr);
    kcbp_scene_eval_free(ev);
    kcbp_scene_free(s);
}

/* ---- errors ------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *object; /* objects[1]'s members but the name and position */
        const char *expect;
    } cases[] = {
        {"\"mesh\": \"suzanne.obj\", \"shape\": {\"sphere\": {\"radius\": 1}}", "objects[1].shape: an object has a mesh or a shape, not both"},
        {"\"scale\": 1", "objects[1].mesh: missing (an object needs a \"mesh\" or a \"shape\")"},
        {"\"shape\": {\"cone\": {\"radius\": 1}}", "objects[1].shape.cone: unknown shape (expected sphere, capsule, box or cylinder)"},
        {"\"shape\": {}", "objects[1].shape: expected one shape"},
        {"\"shape\": \"sphere:1\"", "objects[1].shape: expected an object"},
        {"\"shape\": {\"sphere\": {\"radius\": 1}, \"box\": {\"size\": [1, 1, 1]}}", "objects[1].shape.box: a second shape"},
        {"\"shape\": {\"sphere\": 1}", "objects[1].shape.sphere: expected an object of radius, got a number"},
        {"\"shape\": {\"sphere\": {}}", "objects[1].shape.sphere.radius: missing"},
        {"\"shape\": {\"capsule\": {\"radius\": 0.05}}", "objects[1].shape.capsule.length: missing"},
        {"\"shape\": {\"capsule\": {\"radius\": 0.05, \"length\": 0.4, \"height\": 1}}", "objects[1].shape.capsule.height: unknown key (expected radius, length)"},
        {"\"shape\": {\"cylinder\": {\"radius\": 0.05, \"length\": 0.4}}", "objects[1].shape.cylinder.length: unknown key (expected radius, height)"},
        {"\"shape\": {\"sphere\": {\"radius\": -1}}", "objects[1].shape.sphere.radius: must be > 0, not -1"},
        {"\"shape\": {\"sphere\": {\"radius\": 0}}", "objects[1].shape.sphere.radius: must be > 0, not 0"},
        {"\"shape\": {\"capsule\": {\"radius\": 0.05, \"length\": 0}}", "objects[1].shape.capsule.length: must be > 0, not 0"},
        {"\"shape\": {\"sphere\": {\"radius\": 1e999}}", "objects[1].shape.sphere.radius: not a finite number"},
        {"\"shape\": {\"sphere\": {\"radius\": \"1\"}}", "objects[1].shape.sphere.radius: expected a number, got a string"},
        {"\"shape\": {\"sphere\": {\"radius\": 1e61}}", "objects[1].shape.sphere.radius: 1e+61 is outside [1e-60, 1e+60]"},
        {"\"shape\": {\"sphere\": {\"radius\": 1e-61}}", "objects[1].shape.sphere.radius: 1e-61 is outside [1e-60, 1e+60]"},
        {"\"shape\": {\"box\": {\"size\": [1, -2, 3]}}", "objects[1].shape.box.size: item 1 must be > 0, not -2"},
        {"\"shape\": {\"box\": {\"size\": [1, 2]}}", "objects[1].shape.box.size: expected 3 numbers"},
        {"\"shape\": {\"box\": {\"size\": [1, 2, 1e999]}}", "objects[1].shape.box.size: item 2 is not a finite number"},
        {"\"shape\": {\"box\": {\"sides\": [1, 2, 3]}}", "objects[1].shape.box.sides: unknown key (expected size)"},
        {"\"shape\": {\"cylinder\": {\"radius\": 1, \"height\": -0.5}}", "objects[1].shape.cylinder.height: must be > 0, not -0.5"},
        {"\"shape\": {\"sphere\": {\"radius\": 1e59}}, \"scale\": 100", "objects[1].scale: the scaled shape is out of range: sphere: the radius 1e+61 is outside [1e-60, 1e+60]"},
        {"\"mesh\": \"\\u0001sphere:1\"", "objects[1].mesh: a mesh path cannot start with the byte 0x01"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"objects\": [{\"name\": \"a\", \"shape\": {\"sphere\": {\"radius\": 1}}, \"position\": [0, 0, 0]},"
                 " {\"name\": \"b\", \"position\": [0, 0, 0], %s}]}",
                 cases[k].object);
        kcbp_scene *s = NULL;
        kcbp_error err = {0};
        kcbp_status st = kcbp_scene_parse("bad.json", "meshes", text, strlen(text), &s, &err);
        if (st == KCBP_OK)
            fail_msg("case %zu (%s): accepted", k, cases[k].object);
        assert_int_equal(st, KCBP_ERR_PARSE);
        if (strncmp(err.msg, "bad.json: ", 10) || !strstr(err.msg, cases[k].expect))
            fail_msg("case %zu: got \"%s\", expected \"bad.json: %s...\"", k, err.msg, cases[k].expect);
        assert_null(s);
    }
}

/* ---- the command line --------------------------------------------------- */

static void test_cli(void **state)
{
    (void)state;
    char dir[] = "/tmp/kcbp-sceneshape-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp meshes/suzanne.obj %s/", dir);
    assert_int_equal(system(cmd), 0);
    const char *mesh = "suzanne.obj"; /* (meshes are confined to the scene's folder) */
    char scene[2048];
    snprintf(scene, sizeof scene,
             "{\"objects\": ["
             "{\"name\": \"monkey\", \"mesh\": \"%s\", \"position\": [0, 0, 0]},"
             "{\"name\": \"ball\", \"shape\": {\"sphere\": {\"radius\": 0.5}}, \"position\": [-2.5, 1.25, 5.0]},"
             "{\"name\": \"rod\", \"shape\": {\"capsule\": {\"radius\": 0.05, \"length\": 0.4}}, "
             "\"position\": [3, 0, 0.6]},"
             "{\"name\": \"crate\", \"shape\": {\"box\": {\"size\": [1, 1, 1]}}, \"position\": [3, 0, 0]}]}",
             mesh);
    const char *path = test_tmp_write_text(dir, "s.json", scene);
    test_run_result r;
    const char *argv[] = {"scene", path, "--contacts", "all", NULL};
    test_run(&r, argv);
    if (r.status != 0)
        fail_msg("kcbp scene: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    assert_non_null(j);
    cJSON *col = cJSON_GetObjectItem(j, "colliding");
    assert_int_equal(cJSON_GetArraySize(col), 2);
    /* monkey-ball: a triangle of the monkey, null for the ball; rod-crate:
     * null for both (the pairs come in the scene's rank order) */
    int seen = 0;
    for (int k = 0; k < 2; k++) {
        cJSON *p = cJSON_GetArrayItem(col, k);
        const char *a = cJSON_GetObjectItem(p, "a")->valuestring, *b = cJSON_GetObjectItem(p, "b")->valuestring;
        cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "contacts"), 0);
        assert_non_null(c);
        if (!strcmp(a, "monkey")) {
            assert_string_equal(b, "ball");
            assert_true(cJSON_IsNumber(cJSON_GetArrayItem(c, 0)) && cJSON_IsNull(cJSON_GetArrayItem(c, 1)));
            seen |= 1;
        } else {
            assert_string_equal(a, "rod");
            assert_string_equal(b, "crate");
            assert_true(cJSON_IsNull(cJSON_GetArrayItem(c, 0)) && cJSON_IsNull(cJSON_GetArrayItem(c, 1)));
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    cJSON_Delete(j);
    test_run_free(&r);

    /* kcbp batch: the same pairs (contacts asked off: the pairs alone) */
    const char *bargv[] = {"batch", path, path, "--jobs", "2", "--contacts", "none", NULL};
    test_run(&r, bargv);
    if (r.status != 0)
        fail_msg("kcbp batch: %s", r.err);
    assert_non_null(strstr(r.out, "{\"a\":\"monkey\",\"b\":\"ball\"}"));
    assert_non_null(strstr(r.out, "{\"a\":\"rod\",\"b\":\"crate\"}"));
    test_run_free(&r);

    /* --export: each shape's surface, tessellated, drawn plain (no triangle
     * of a shape is a contact: the mark array was read past its end for a
     * shape's display triangles); the monkey's contact triangles red */
    char exdir[1200];
    snprintf(exdir, sizeof exdir, "%s/ex/", dir); /* a folder: the trailing slash */
    const char *xargv[] = {"scene", path, "--contacts", "all", "--export", exdir, NULL};
    test_run(&r, xargv);
    if (r.status != 0)
        fail_msg("kcbp scene --export: %s", r.err);
    test_run_free(&r);
    static const char *const files[] = {"0-monkey.ply", "1-ball.ply", "2-rod.ply", "3-crate.ply"};
    for (int k = 0; k < 4; k++) {
        char fp[1400];
        snprintf(fp, sizeof fp, "%s/%s", exdir, files[k]);
        FILE *f = fopen(fp, "r");
        if (!f)
            fail_msg("--export wrote no %s", files[k]);
        char line[512];
        int red = 0, faces = 0;
        while (fgets(line, sizeof line, f)) {
            faces += !strncmp(line, "3 ", 2);
            red += !strncmp(line, "3 ", 2) && strstr(line, " 230 0 0\n") != NULL;
        }
        fclose(f);
        assert_true(faces > 0);
        if (k == 0)
            assert_true(red > 0);
        else if (red)
            fail_msg("%s: %d of the shape's display triangles marked as contacts", files[k], red);
    }

    /* a bad shape: the field named, exit status 1 or more */
    const char *bad = test_tmp_write_text(
        dir, "bad.json",
        "{\"objects\": [{\"name\": \"a\", \"shape\": {\"capsule\": {\"radius\": 0.05, \"length\": -1}}, "
        "\"position\": [0, 0, 0]}]}");
    const char *eargv[] = {"scene", bad, NULL};
    test_run(&r, eargv);
    assert_int_not_equal(r.status, 0);
    assert_non_null(strstr(r.err, "objects[0].shape.capsule.length: must be > 0, not -1"));
    test_run_free(&r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_mixed),   cmocka_unit_test(test_moving_mixed),
        cmocka_unit_test(test_margin),         cmocka_unit_test(test_shapes_only),
        cmocka_unit_test(test_round_trip_and_code), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
