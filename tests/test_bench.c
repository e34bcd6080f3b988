/* Bounding volumes as filters and kcbp bench: a four-object scene whose
 * counts were worked out by hand, every volume containing its mesh, the
 * colliding pairs the same for every volume (and the same as kcbp scene's),
 * hit rates in [0, 1], the constant-density layout, and the command as a
 * user runs it: the same output twice with timings off, csv and json, saved
 * scenes that kcbp scene re-checks, the SVG plot. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include <kcbp/kcbp.h>

#include "bv.h"
#include "hitrate.h"
#include "scene_layout.h"
#include "testutil.h"

static char tmpdir[] = "/tmp/kcbp-bench-XXXXXX";

/* Every volume the command measures by default, at k = 16. */
static const kcbp_bv_spec ALL[] = {
    {KCBP_BV_SPHERE, 0, KCBP_DIRS_GREEDY},  {KCBP_BV_AABB, 0, KCBP_DIRS_GREEDY},
    {KCBP_BV_AABB_POSED, 0, KCBP_DIRS_GREEDY}, {KCBP_BV_OBB, 0, KCBP_DIRS_GREEDY},
    {KCBP_BV_KDOP, 14, KCBP_DIRS_KDOP},     {KCBP_BV_KDOP, 18, KCBP_DIRS_KDOP},
    {KCBP_BV_KDOP, 26, KCBP_DIRS_KDOP},     {KCBP_BV_CBP, 16, KCBP_DIRS_FIXED},
    {KCBP_BV_CBP, 16, KCBP_DIRS_THESIS},    {KCBP_BV_CBP, 16, KCBP_DIRS_GREEDY},
    {KCBP_BV_HULL, 0, KCBP_DIRS_GREEDY},
};
enum { NALL = sizeof ALL / sizeof ALL[0], HULL = NALL - 1 };

static void build_bv(kcbp_bv *bv, const kcbp_bv_spec *spec, const kcbp_mesh *m)
{
    kcbp_error err = {0};
    if (kcbp_bv_build(bv, spec, m, &err) != KCBP_OK) {
        char name[40];
        fail_msg("building %s: %s", kcbp_bv_name(spec, name, sizeof name), err.msg);
    }
}

/* The passing pairs counted over all n(n-1)/2 pairs with kcbp_bv_overlap
 * and the margin kcbp_hitrate_measure uses: its broad phase must not drop
 * any of them. */
static uint64_t all_pairs_passing(const kcbp_scene *s, const kcbp_bv *bv)
{
    uint64_t count = 0;
    for (uint32_t a = 0; a < s->nobjects; a++)
        for (uint32_t b = a + 1; b < s->nobjects; b++) {
            kcbp_pose pa = kcbp_scene_object_pose(s, a, 0), pb = kcbp_scene_object_pose(s, b, 0);
            double scale = s->models[0].model.impl->scale;
            double margin = KCBP_BV_MARGIN_REL * (2 * scale + kcbp_v3_len(pa.trans) + kcbp_v3_len(pb.trans));
            count += kcbp_bv_overlap(bv, &pa, bv, &pb, margin);
        }
    return count;
}

/* ---- a scene worked out by hand ----------------------------------------- */

/* A box mesh [-2, 2] x [-0.5, 0.5] x [-0.25, 0.25] (its hull, OBB, k-DOPs
 * and greedy k-CBP are the box itself; its smallest sphere has radius
 * sqrt(4.3125) = 2.0767, so spheres 4.1533 apart touch), four copies:
 *   A at the origin;
 *   B at (3.2, 2.2, 0), turned 45 degrees about z: its world box is
 *     [1.43, 4.97] x [0.43, 3.97] x [-0.25, 0.25], which overlaps A's at A's
 *     corner (2, 0.5); but along B's long axis u = (1, 1, 0)/sqrt 2 A reaches
 *     (2 - 3.2 + 0.5 - 2.2)/sqrt 2 = -2.05 from B's centre, where B stops at
 *     -2: apart by 0.05. Centres 3.88 apart: the spheres overlap.
 *   C at (-3.9, -0.9, 0.4): its box overlaps A's in [-2, -1.9] x [-0.5, -0.4]
 *     x [0.15, 0.25], and both are axis-aligned boxes: they collide.
 *   D at (0, 0, 1): above A (z from 0.75), apart from every box in z; its
 *     centre is 1, 4.01 and 4.05 from A's, B's and C's: spheres overlap.
 *   B and C are 7 apart.
 * So: sphere passes AB AC AD BD CD (5), the boxes AB AC (2), the others AC
 * (1); AC is the one colliding pair. */
static const char box_obj[] = "v -2 -0.5 -0.25\nv 2 -0.5 -0.25\nv -2 0.5 -0.25\nv 2 0.5 -0.25\n"
                              "v -2 -0.5 0.25\nv 2 -0.5 0.25\nv -2 0.5 0.25\nv 2 0.5 0.25\n"
                              "f 1 3 2\nf 2 3 4\nf 5 6 7\nf 6 8 7\nf 1 2 5\nf 2 6 5\n"
                              "f 3 7 4\nf 4 7 8\nf 1 5 3\nf 3 5 7\nf 2 4 6\nf 4 8 6\n";
static const char hand_scene[] =
    "{\"objects\": ["
    "{\"name\": \"A\", \"mesh\": \"box.obj\", \"position\": [0, 0, 0]},"
    "{\"name\": \"B\", \"mesh\": \"box.obj\", \"position\": [3.2, 2.2, 0],"
    " \"rotation\": {\"axis\": [0, 0, 1], \"angle_deg\": 45}},"
    "{\"name\": \"C\", \"mesh\": \"box.obj\", \"position\": [-3.9, -0.9, 0.4]},"
    "{\"name\": \"D\", \"mesh\": \"box.obj\", \"position\": [0, 0, 1]}]}";

static void load_scene(kcbp_scene *s, const char *path)
{
    kcbp_error err = {0};
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 0;
    if (kcbp_scene_load_into(s, path, &mo, &err) != KCBP_OK)
        fail_msg("scene %s: %s", path, err.msg);
}

static void test_by_hand(void **state)
{
    (void)state;
    test_tmp_write_text(tmpdir, "box.obj", box_obj);
    kcbp_scene s;
    load_scene(&s, test_tmp_write_text(tmpdir, "hand.json", hand_scene));
    assert_int_equal(s.nmodels, 1);
    const kcbp_mesh *m = &s.models[0].model.impl->mesh;
    /* -1: not worked out by hand (thesis and Fibonacci directions) */
    static const int64_t expect[NALL] = {5, 2, 2, 1, 1, 1, 1, -1, -1, 1, 1};
    kcbp_hitrate h;
    memset(&h, 0, sizeof h);
    for (int b = 0; b < NALL; b++) {
        kcbp_bv bv;
        char name[40];
        kcbp_bv_name(&ALL[b], name, sizeof name);
        build_bv(&bv, &ALL[b], m);
        kcbp_error err = {0};
        if (kcbp_hitrate_measure(&s, 0, &bv, &h, &err) != KCBP_OK)
            fail_msg("%s: %s", name, err.msg);
        assert_int_equal(h.pairs, 6);
        if (expect[b] >= 0 && h.passed != (uint64_t)expect[b])
            fail_msg("%s passes %llu pairs, expected %lld", name, (unsigned long long)h.passed,
                     (long long)expect[b]);
        assert_true(h.passed >= 1 && h.passed <= 5); /* never BC */
        assert_int_equal(h.passed, all_pairs_passing(&s, &bv));
        assert_int_equal(h.colliding, 1);
        assert_int_equal(h.hits[0].a, 0);
        assert_int_equal(h.hits[0].b, 2);
        double r = kcbp_hitrate_ratio(h.colliding, h.passed);
        assert_true(r >= 0 && r <= 1);
        if (b == 0)
            assert_true(fabs(r - 0.2) < 1e-15);
        if (b == HULL)
            assert_true(r == 1.0);
        kcbp_bv_free(&bv);
    }
    assert_true(kcbp_hitrate_ratio(0, 0) == 1.0);
    assert_true(kcbp_hitrate_ratio(0, 3) == 0.0);
    kcbp_hitrate_free(&h);
    kcbp_scene_clear(&s);
}

/* ---- every volume contains its mesh ---------------------------------------- */

static void check_contains(const kcbp_bv *bv, const kcbp_mesh *m)
{
    double tol = 1e-12 * kcbp_mesh_scale(m);
    kcbp_pose id = kcbp_pose_identity();
    for (uint32_t i = 0; i < m->nvertices; i++) {
        kcbp_vec3 p = m->vertices[i];
        kcbp_aabb wb = kcbp_bv_world_box(bv, &id);
        assert_true(p.x >= wb.min.x - tol && p.x <= wb.max.x + tol && p.y >= wb.min.y - tol &&
                    p.y <= wb.max.y + tol && p.z >= wb.min.z - tol && p.z <= wb.max.z + tol);
        switch (bv->spec.kind) {
        case KCBP_BV_SPHERE: assert_true(kcbp_v3_len(kcbp_v3_sub(p, bv->center)) <= bv->radius + tol); break;
        case KCBP_BV_OBB: {
            kcbp_vec3 q = kcbp_mat3_tmul_v3(&bv->axes, kcbp_v3_sub(p, bv->obb_center));
            assert_true(fabs(q.x) <= bv->obb_extent.x + tol && fabs(q.y) <= bv->obb_extent.y + tol &&
                        fabs(q.z) <= bv->obb_extent.z + tol);
            break;
        }
        case KCBP_BV_KDOP:
        case KCBP_BV_CBP:
        case KCBP_BV_HULL: {
            /* within the margin the filter is given: GJK's own answer for a
             * point on the surface can be off by ~2e-10 of the scale (fandisk's
             * thesis 16-CBP has two nearly parallel faces) */
            kcbp_convex pt = kcbp_convex_sphere(p, KCBP_BV_MARGIN_REL * kcbp_mesh_scale(m));
            kcbp_support_cache cache = {{0, 0}};
            assert_true(kcbp_gjk_intersect(&bv->shape, &pt, NULL, &cache));
            break;
        }
        default: break;
        }
    }
}

static void test_volumes_contain_meshes(void **state)
{
    (void)state;
    static const char *meshes[] = {"bunny2.obj", "woody.obj", "fandisk.obj"};
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++) {
        kcbp_model model;
        test_model_load(&model, meshes[i]);
        double hull_volume = -1;
        for (int b = 0; b < NALL; b++) {
            kcbp_bv bv;
            build_bv(&bv, &ALL[b], &model.impl->mesh);
            check_contains(&bv, &model.impl->mesh);
            assert_true(bv.build_ms >= 0);
            if (b == HULL)
                hull_volume = bv.volume;
            kcbp_bv_free(&bv);
        }
        if (!strcmp(meshes[i], "woody.obj"))
            assert_true(hull_volume == 0); /* flat: no hull volume, GJK scans the points */
        else
            assert_true(hull_volume > 0);
        kcbp_model_free(&model);
    }
}

/* ---- a thesis scene: the same colliding pairs for every volume ------------ */

static void test_same_pairs_every_volume(void **state)
{
    (void)state;
    kcbp_error err = {0};
    kcbp_mesh mesh;
    assert_int_equal(kcbp_obj_load_into("meshes/bunny2.obj", &mesh, &err), KCBP_OK);
    kcbp_aabb bounds = mesh.bounds;
    kcbp_mesh_clear(&mesh);
    for (int layout = 0; layout < 2; layout++) {
        kcbp_scene s;
        assert_int_equal(layout ? test_scene_density(&s, "meshes/bunny2.obj", bounds, 40, 7, &err)
                                : test_scene_thesis(&s, "meshes/bunny2.obj", bounds, 40, 7, &err),
                         KCBP_OK);
        assert_int_equal(kcbp_scene_build(&s, NULL, &err), KCBP_OK);
        /* the reference: kcbp scene's own answer (k-CBP filter on) */
        kcbp_scene_eval ev;
        kcbp_scene_frame frame;
        memset(&frame, 0, sizeof frame);
        kcbp_collide_options co = kcbp_collide_options_default();
        co.contacts = KCBP_CONTACTS_NONE;
        assert_int_equal(kcbp_scene_eval_init(&ev, &s, &co, &err), KCBP_OK);
        assert_int_equal(kcbp_scene_eval_frame(&ev, 0, &frame, &err), KCBP_OK);
        assert_true(frame.colliding > 0);

        kcbp_hitrate h;
        memset(&h, 0, sizeof h);
        uint64_t passed[NALL + 3];
        kcbp_bv_spec specs[NALL + 3];
        memcpy(specs, ALL, sizeof ALL);
        specs[NALL] = (kcbp_bv_spec){KCBP_BV_CBP, 6, KCBP_DIRS_GREEDY};
        specs[NALL + 1] = (kcbp_bv_spec){KCBP_BV_CBP, 64, KCBP_DIRS_THESIS};
        specs[NALL + 2] = (kcbp_bv_spec){KCBP_BV_KDOP, 6, KCBP_DIRS_KDOP};
        for (int b = 0; b < NALL + 3; b++) {
            kcbp_bv bv;
            build_bv(&bv, &specs[b], &s.models[0].model.impl->mesh);
            assert_int_equal(kcbp_hitrate_measure(&s, 0, &bv, &h, &err), KCBP_OK);
            assert_int_equal(h.colliding, frame.colliding);
            for (uint64_t i = 0; i < h.colliding; i++) {
                assert_int_equal(h.hits[i].a, frame.hits[i].a);
                assert_int_equal(h.hits[i].b, frame.hits[i].b);
            }
            assert_true(h.passed >= h.colliding && h.passed <= h.boxes && h.boxes <= h.pairs);
            double r = kcbp_hitrate_ratio(h.colliding, h.passed);
            assert_true(r >= 0 && r <= 1);
            assert_int_equal(h.passed, all_pairs_passing(&s, &bv));
            passed[b] = h.passed;
            kcbp_bv_free(&bv);
        }
        /* Every volume is convex and holds the mesh, so it holds the hull:
         * none passes fewer pairs than the hull. */
        for (int b = 0; b < NALL + 3; b++)
            assert_true(passed[b] >= passed[HULL]);
        kcbp_hitrate_free(&h);
        kcbp_scene_eval_clear(&ev);
        kcbp_scene_frame_free(&frame);
        kcbp_scene_clear(&s);
    }
}

static void test_density_layout(void **state)
{
    (void)state;
    kcbp_aabb bounds = {kcbp_v3(-1, -2, -1), kcbp_v3(3, 2, 1)};
    assert_true(fabs(kcbp_scene_density_half_range(100) - 4.5) < 1e-12);
    assert_true(fabs(kcbp_scene_density_half_range(807) - 9.0) < 1e-12); /* 8x the objects, twice the side */
    kcbp_scene a, b;
    assert_int_equal(test_scene_density(&a, "m.obj", bounds, 300, 3, NULL), KCBP_OK);
    assert_int_equal(test_scene_density(&b, "m.obj", bounds, 300, 3, NULL), KCBP_OK);
    double half = kcbp_scene_density_half_range(300);
    bool non_integer = false;
    for (uint32_t i = 0; i < a.nobjects; i++) {
        assert_memory_equal(&a.objects[i].position, &b.objects[i].position, sizeof(kcbp_vec3));
        /* the mesh centre goes to the drawn translation */
        kcbp_pose p = kcbp_scene_object_pose(&a, i, 0);
        kcbp_vec3 t = kcbp_pose_apply(&p, kcbp_v3_scale(kcbp_v3(1, 0, 0), a.objects[i].scale));
        assert_true(kcbp_v3_max_abs(t) <= half + 1e-12);
        non_integer |= t.x != floor(t.x);
    }
    assert_true(non_integer);
    assert_string_equal(a.name, "density");
    kcbp_scene_clear(&a);
    kcbp_scene_clear(&b);
}

static void test_names(void **state)
{
    (void)state;
    for (int b = 0; b < NALL; b++) {
        char name[40];
        kcbp_bv_spec spec;
        kcbp_bv_name(&ALL[b], name, sizeof name);
        assert_int_equal(kcbp_bv_parse(name, &spec, NULL), KCBP_OK);
        assert_int_equal(spec.kind, ALL[b].kind);
        if (spec.kind == KCBP_BV_CBP || spec.kind == KCBP_BV_KDOP)
            assert_int_equal(spec.k, ALL[b].k);
        if (spec.kind == KCBP_BV_CBP)
            assert_int_equal(spec.dirs, ALL[b].dirs);
    }
    kcbp_bv_spec spec;
    kcbp_error err;
    assert_int_equal(kcbp_bv_parse("24-cbp", &spec, NULL), KCBP_OK);
    assert_true(spec.kind == KCBP_BV_CBP && spec.k == 24 && spec.dirs == KCBP_DIRS_GREEDY);
    static const char *bad[] = {"16-dop", "3-cbp", "16-cbp-kdop", "16-cbp-", "ball", "", "016-cbp", "16-cbpx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_not_equal(kcbp_bv_parse(bad[i], &spec, &err), KCBP_OK);
}

/* ---- the command ------------------------------------------------------------ */

static void test_cli_deterministic(void **state)
{
    (void)state;
    test_run_result r1 = {0}, r2 = {0};
    test_run_args(&r1, "bench", "--n", "5,20", "--no-times", "--runs", "1", "--k-sweep", "--sweep-n", "20", NULL);
    test_run_args(&r2, "bench", "--n", "5,20", "--no-times", "--runs", "1", "--k-sweep", "--sweep-n", "20", NULL);
    if (r1.status != 0)
        fail_msg("kcbp bench: %d %s", r1.status, r1.err);
    assert_string_equal(r1.out, r2.out);
    assert_non_null(strstr(r1.out, "| 20 | 16-cbp-greedy |"));
    assert_non_null(strstr(r1.out, "k sweep at n = 20"));
    assert_null(strstr(r1.out, "CT ms"));
    assert_string_equal(r1.err, ""); /* stderr is not a terminal: no progress */

    test_run_args(&r1, "bench", "--n", "5,20", "--no-times", "--runs", "1", "--format", "csv", NULL);
    test_run_args(&r2, "bench", "--n", "5,20", "--no-times", "--runs", "1", "--format", "csv", NULL);
    assert_int_equal(r1.status, 0);
    assert_string_equal(r1.out, r2.out);
    assert_true(!strncmp(r1.out, "mesh,layout,seed,table,n,bv,k,dirs,pairs,", 41));
    size_t lines = 0;
    for (const char *p = r1.out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 2 * NALL);

    test_run_args(&r1, "bench", "--n", "5,20", "--runs", "2", "--format", "json", "--layout", "density", "--k-sweep",
        "--sweep-n", "10", NULL);
    assert_int_equal(r1.status, 0);
    cJSON *doc = cJSON_Parse(r1.out);
    assert_non_null(doc);
    cJSON *mesh = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "meshes"), 0);
    assert_string_equal(cJSON_GetObjectItem(mesh, "layout")->valuestring, "density");
    cJSON *rows = cJSON_GetObjectItem(mesh, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2 * NALL);
    double dp[2] = {-1, -1};
    cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        int i = cJSON_GetObjectItem(row, "n")->valueint == 5 ? 0 : 1;
        double d = cJSON_GetObjectItem(row, "dp")->valuedouble, r = cJSON_GetObjectItem(row, "r")->valuedouble;
        if (dp[i] < 0)
            dp[i] = d;
        assert_true(d == dp[i]);
        assert_true(r >= 0 && r <= 1);
        assert_true(cJSON_GetObjectItem(row, "ct_ms")->valuedouble >= 0);
        assert_true(cJSON_GetObjectItem(row, "dt_ms")->valuedouble > 0);
    }
    cJSON *sweep = cJSON_GetObjectItem(cJSON_GetObjectItem(mesh, "k_sweep"), "rows");
    assert_int_equal(cJSON_GetArraySize(sweep), 8 * 3 + 1);
    cJSON_Delete(doc);
    test_run_free(&r1);
    test_run_free(&r2);
}

static void test_cli_save_scenes(void **state)
{
    (void)state;
    test_run_result r = {0};
    const char *dir = test_tmp_path(tmpdir, "scenes");
    assert_int_equal(mkdir(dir, 0755), 0);
    test_run_args(&r, "bench", "--n", "25", "--seed", "4", "--no-times", "--runs", "1", "--bv", "aabb,hull", "--format", "json",
        "--save-scenes", dir, NULL);
    if (r.status != 0)
        fail_msg("kcbp bench: %d %s", r.status, r.err);
    cJSON *doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    cJSON *rows = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "meshes"), 0), "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    int dp = cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "dp")->valueint;
    int hull_passed = cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "passed")->valueint;
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 1), "bv")->valuestring, "hull");
    cJSON_Delete(doc);

    char scene[600];
    snprintf(scene, sizeof scene, "%s/bunny2-thesis-n25-s4.json", dir);
    test_run_args(&r, "scene", scene, "--mesh-root", "/", NULL); /* the scene names the mesh where it is */
    if (r.status != 0)
        fail_msg("kcbp scene %s: %d %s", scene, r.status, r.err);
    doc = cJSON_Parse(r.out);
    assert_non_null(doc);
    assert_int_equal(cJSON_GetObjectItem(doc, "objects")->valueint, 26);
    cJSON *passed = cJSON_GetObjectItem(doc, "passed");
    assert_int_equal(cJSON_GetObjectItem(passed, "mesh")->valueint, dp);
    assert_true(cJSON_GetObjectItem(passed, "cbp")->valueint >= hull_passed);
    cJSON_Delete(doc);
    test_run_free(&r);
}

static void test_cli_plot(void **state)
{
    (void)state;
    test_run_result r = {0};
    const char *svg = test_tmp_path(tmpdir, "plot.svg");
    test_run_args(&r, "bench", "--n", "5,15", "--runs", "1", "--bv", "sphere,16-cbp,hull", "--plot", svg, NULL);
    if (r.status != 0)
        fail_msg("kcbp bench --plot: %d %s", r.status, r.err);
    assert_non_null(strstr(r.out, "| 15 | hull |"));
    FILE *f = fopen(svg, "rb");
    assert_non_null(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_non_null(strstr(buf, "<svg"));
    test_run_free(&r);
}

static void test_cli_usage(void **state)
{
    (void)state;
    test_run_result r = {0};
    static const char *const bad[][3] = {
        {"--n", "10,,20", NULL}, {"--n", "0", NULL},     {"--layout", "cube", NULL}, {"--format", "xml", NULL},
        {"--bv", "ball", NULL},  {"-k", "2", NULL},      {"--runs", "0", NULL},      {"extra", NULL, NULL},
        {"--frobnicate", NULL, NULL}, {"--plot", "out.gif", NULL}, {"--plot", "svg", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        test_run_args(&r, "bench", bad[i][0], bad[i][1], NULL);
        if (r.status != 2 || r.out[0] != '\0')
            fail_msg("kcbp bench %s %s: expected exit 2, got %d", bad[i][0], bad[i][1] ? bad[i][1] : "", r.status);
    }
    test_run_args(&r, "bench", "--mesh", test_tmp_path(tmpdir, "missing.obj"), NULL);
    assert_int_equal(r.status, 3);
    assert_string_equal(r.out, "");
    test_run_args(&r, "bench", "--help", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "--save-scenes"));
    test_run_free(&r);
}

TEST_TMPDIR_FIXTURES(tmpdir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_volumes_contain_meshes),
        cmocka_unit_test(test_same_pairs_every_volume),
        cmocka_unit_test(test_density_layout),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_cli_deterministic),
        cmocka_unit_test(test_cli_save_scenes),
        cmocka_unit_test(test_cli_plot),
        cmocka_unit_test(test_cli_usage),
    };
    return cmocka_run_group_tests_name("bench", tests, setup, teardown);
}
