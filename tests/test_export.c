/* --export DIR of kcbp collide and kcbp scene: the files read back with
 * kcbp's own loader hold the posed geometry bit for bit, the red faces are
 * exactly the contact triangles of the report, and a DIR that cannot be
 * used is refused with nothing on stdout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testutil.h"

static char tmpdir[] = "/tmp/kcbp-export-XXXXXX";

/* The faces of an exported PLY coloured red (230 0 0), read as text. */
static size_t count_red_faces(const char *path, size_t *faces)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    bool body = false;
    size_t red = 0;
    *faces = 0;
    while (fgets(line, sizeof line, f)) {
        if (!body) {
            body = !strcmp(line, "end_header\n");
            continue;
        }
        unsigned n, v0, v1, v2, cr, cg, cb;
        if (sscanf(line, "%u %u %u %u %u %u %u", &n, &v0, &v1, &v2, &cr, &cg, &cb) == 7) {
            assert_int_equal(n, 3);
            (*faces)++;
            red += cr == 230 && cg == 0 && cb == 0;
        }
    }
    fclose(f);
    return red;
}

/* The exported mesh equals the source mesh moved by pose: same triangles,
 * every vertex bit for bit. */
static void expect_posed(const char *exported, const kcbp_mesh *src, const kcbp_pose *pose)
{
    kcbp_mesh m;
    kcbp_error err;
    if (kcbp_mesh_load_into(exported, &m, &err) != KCBP_OK)
        fail_msg("%s: %s", exported, err.msg);
    assert_int_equal(m.nvertices, src->nvertices);
    assert_int_equal(m.ntriangles, src->ntriangles);
    for (uint32_t i = 0; i < m.nvertices; i++) {
        kcbp_vec3 w = kcbp_pose_apply(pose, src->vertices[i]);
        if (memcmp(&w, &m.vertices[i], sizeof w) != 0)
            fail_msg("%s: vertex %u is %.17g %.17g %.17g, posed %.17g %.17g %.17g", exported, i, m.vertices[i].x,
                     m.vertices[i].y, m.vertices[i].z, w.x, w.y, w.z);
    }
    assert_memory_equal(m.triangles, src->triangles, m.ntriangles * sizeof *m.triangles);
    kcbp_mesh_clear(&m);
}

/* How many distinct triangles of side (0: A, 1: B) a contact list names. */
static size_t distinct(const cJSON *contacts, int side, size_t ntriangles)
{
    uint8_t *seen = calloc(ntriangles, 1);
    size_t n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, contacts) {
        int t = cJSON_GetArrayItem(c, side)->valueint;
        assert_true(t >= 0 && (size_t)t < ntriangles);
        n += !seen[t];
        seen[t] = 1;
    }
    free(seen);
    return n;
}

static void test_collide_export(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    const char *pa = "1 2 3 0 1 1 5", *pb = "1.2 2.1 3 1 1 0 3";
    char dir[256];
    snprintf(dir, sizeof dir, "%s/collide/", tmpdir); /* made by kcbp */
    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--pose-a", pa, "--pose-b", pb, "--contacts", "all",
        "--export", dir, NULL);
    assert_int_equal(r->status, 0);
    cJSON *doc = cJSON_Parse(r->out);
    assert_non_null(doc);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "collide")));
    const cJSON *contacts = cJSON_GetObjectItem(doc, "contacts");
    assert_true(cJSON_GetArraySize(contacts) > 1);

    kcbp_mesh src;
    kcbp_error err;
    assert_int_equal(kcbp_mesh_load_into("meshes/suzanne.obj", &src, &err), KCBP_OK);
    kcbp_pose poses[2];
    assert_int_equal(kcbp_pose_parse(pa, &poses[0], &err), KCBP_OK);
    assert_int_equal(kcbp_pose_parse(pb, &poses[1], &err), KCBP_OK);
    const char *names[2] = {"a", "b"};
    for (int s = 0; s < 2; s++) {
        char ply[300], cbp[300];
        snprintf(ply, sizeof ply, "%s/%s.ply", dir, names[s]);
        snprintf(cbp, sizeof cbp, "%s/%s_cbp.obj", dir, names[s]);
        expect_posed(ply, &src, &poses[s]);
        size_t faces, red = count_red_faces(ply, &faces);
        assert_int_equal(faces, src.ntriangles);
        assert_int_equal(red, distinct(contacts, s, src.ntriangles));
        /* the posed k-CBP: the model's k-CBP, moved */
        kcbp_model model;
        test_model_load(&model, "suzanne.obj");
        kcbp_mesh hull;
        assert_int_equal(kcbp_mesh_load_into(cbp, &hull, &err), KCBP_OK);
        assert_int_equal(hull.nvertices, model.impl->cbp.nvertices);
        for (uint32_t i = 0; i < hull.nvertices; i++) {
            kcbp_vec3 w = kcbp_pose_apply(&poses[s], model.impl->cbp.vertices[i]);
            assert_memory_equal(&w, &hull.vertices[i], sizeof w);
        }
        kcbp_mesh_clear(&hull);
        kcbp_model_free(&model);
    }
    cJSON_Delete(doc);

    /* --contacts first marks one triangle on each side; --no-cbp writes no
     * k-CBP; the existing folder is reused */
    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--pose-a", pa, "--pose-b", pb, "--no-cbp",
        "--export", dir, NULL);
    assert_int_equal(r->status, 0);
    size_t faces;
    char path[300];
    snprintf(path, sizeof path, "%s/b.ply", dir);
    assert_int_equal(count_red_faces(path, &faces), 1);
    struct stat sb;
    snprintf(path, sizeof path, "%s/b_cbp.obj", dir);
    assert_int_equal(stat(path, &sb), 0); /* left from the first run */

    /* --poses: the first pose is exported */
    const char *posefile = test_tmp_write_text(tmpdir, "poses.txt", "1.2 2.1 3 1 1 0 3\n100 0 0 0 0 1 0\n");
    snprintf(dir, sizeof dir, "%s/poses/", tmpdir);
    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--pose-a", pa, "--poses", posefile, "--export",
        dir, NULL);
    assert_int_equal(r->status, 0);
    snprintf(path, sizeof path, "%s/b.ply", dir);
    expect_posed(path, &src, &poses[1]);
    assert_int_equal(count_red_faces(path, &faces), 1);
    kcbp_mesh_clear(&src);
    test_run_free(r);
    free(r);
}

static void test_scene_export(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    /* the mesh beside the scene (meshes are read only below its folder) */
    FILE *in = fopen("meshes/suzanne.obj", "rb");
    assert_non_null(in);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text, in);
    assert_true(len > 0 && len < sizeof text && feof(in));
    fclose(in);
    test_tmp_write(tmpdir, "suzanne.obj", text, len);
    /* "m/1" and "m 2" meet from frame 1 on; "far" meets nobody */
    const char *scene = test_tmp_write_text(
        tmpdir, "scene.json",
        "{\"objects\": [{\"name\": \"m/1\", \"mesh\": \"suzanne.obj\", \"position\": [0, 0, 0]},"
        " {\"name\": \"m 2\", \"mesh\": \"suzanne.obj\", \"position\": [3, 0, 0], \"scale\": 0.9,"
        "  \"velocity\": [-25, 0, 0], \"rotation\": {\"axis\": [0, 0, 1], \"angle_deg\": 5}},"
        " {\"name\": \"far\", \"mesh\": \"suzanne.obj\", \"position\": [50, 0, 0]}],"
        " \"motion\": {\"frames\": 3, \"dt\": 0.1}}");
    char dir[256];
    snprintf(dir, sizeof dir, "%s/scene/", tmpdir);
    for (int mode = 0; mode < 2; mode++) {
        test_run_args(r, "scene", scene, "--contacts", mode ? "all" : "none", "--export", dir, "--frame", "1", NULL);
        assert_int_equal(r->status, 0);
        /* the second line is frame 1 */
        const char *nl = strchr(r->out, '\n');
        assert_non_null(nl);
        cJSON *doc = cJSON_Parse(nl + 1);
        assert_non_null(doc);
        assert_int_equal(cJSON_GetObjectItem(doc, "frame")->valueint, 1);
        const cJSON *hits = cJSON_GetObjectItem(doc, "colliding");
        assert_int_equal(cJSON_GetArraySize(hits), 1);
        const cJSON *contacts = cJSON_GetObjectItem(cJSON_GetArrayItem(hits, 0), "contacts");
        assert_true(mode ? contacts != NULL : contacts == NULL);

        kcbp_scene sc;
        kcbp_error err;
        if (kcbp_scene_load_into(&sc, scene, NULL, &err) != KCBP_OK)
            fail_msg("%s", err.msg);
        const char *files[3] = {"0-m_1.ply", "1-m_2.ply", "2-far.ply"};
        size_t red[3];
        for (uint32_t i = 0; i < 3; i++) {
            char path[300];
            snprintf(path, sizeof path, "%s/%s", dir, files[i]);
            kcbp_pose pose = kcbp_scene_object_pose(&sc, i, 1);
            const kcbp_mesh *src = &sc.models[sc.objects[i].model].model.impl->mesh;
            expect_posed(path, src, &pose);
            size_t faces;
            red[i] = count_red_faces(path, &faces);
            if (mode)
                assert_int_equal(red[i], i < 2 ? distinct(contacts, (int)i, src->ntriangles) : 0);
            snprintf(path, sizeof path, "%s/%.*s_cbp.obj", dir, (int)strlen(files[i]) - 4, files[i]);
            struct stat sb;
            assert_int_equal(stat(path, &sb), 0);
        }
        assert_true(red[0] > 1 && red[1] > 1);
        assert_int_equal(red[2], 0);
        kcbp_scene_clear(&sc);
        cJSON_Delete(doc);
    }

    /* a frame the scene does not have; --frame alone */
    test_run_args(r, "scene", scene, "--export", dir, "--frame", "3", NULL);
    assert_int_equal(r->status, 3);
    assert_string_equal(r->out, "");
    assert_non_null(strstr(r->err, "has 3 frames"));
    test_run_args(r, "scene", scene, "--frame", "1", NULL);
    assert_int_equal(r->status, 2);
    assert_string_equal(r->out, "");
    test_run_free(r);
    free(r);
}

static void test_export_bad_dir(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    /* a folder's path (the trailing slash) naming a plain file */
    char file[300];
    snprintf(file, sizeof file, "%s/", test_tmp_write_text(tmpdir, "plain-file", "x\n"));
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--export", file, NULL);
    assert_int_equal(r->status, 2);
    assert_string_equal(r->out, "");
    assert_non_null(strstr(r->err, "is not a directory"));
    test_run_args(r, "scene", "tests/bad/../../meshes/README.md", "--export", file, NULL);
    assert_int_equal(r->status, 2);
    assert_non_null(strstr(r->err, "is not a directory"));
    /* another format's name: refused, not a .glb under a PLY name */
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--export", "out.ply", NULL);
    assert_int_equal(r->status, 2);
    assert_non_null(strstr(r->err, "binary glTF"));
    /* a missing parent: not made, a failed write */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/no/such/", tmpdir);
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--export", dir, NULL);
    assert_int_equal(r->status, 4);
    assert_string_equal(r->out, "");
    assert_non_null(strstr(r->err, "cannot create"));
    /* a file that cannot be written (a folder in its place, which stops
     * root too): exit 4, no line */
    snprintf(dir, sizeof dir, "%s/blocked/", tmpdir);
    assert_int_equal(mkdir(dir, 0777), 0);
    char blocker[320];
    snprintf(blocker, sizeof blocker, "%s/b.ply", dir);
    assert_int_equal(mkdir(blocker, 0777), 0);
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--export", dir, NULL);
    assert_int_equal(r->status, 4);
    assert_string_equal(r->out, "");
    assert_non_null(strstr(r->err, "b.ply"));
    test_run_free(r);
    free(r);
}

TEST_TMPDIR_FIXTURES(tmpdir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collide_export),
        cmocka_unit_test(test_scene_export),
        cmocka_unit_test(test_export_bad_dir),
    };
    return cmocka_run_group_tests_name("export", tests, setup, teardown);
}
