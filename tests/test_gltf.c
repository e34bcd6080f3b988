/* glTF 2.0: --export FILE.glb read back gives the triangles written; a glTF
 * made here from an OBJ (a small writer of its own, in .glb and in .gltf
 * with data: URIs and with an external .bin) answers kcbp collide as the
 * OBJ does; strips, fans and node transforms are read as the spec says; and
 * hostile files are refused with a clear message, exit status 3. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testutil.h"

static char tmpdir[] = "/tmp/kcbp-gltf-XXXXXX";
TEST_TMPDIR_FIXTURES(tmpdir)

/* ---- a tiny glTF writer, independent of kcbp's ---- */

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A .glb of json and bin (padded as the spec says). */
static const char *write_glb(const char *name, const char *json, const void *bin, size_t blen)
{
    size_t jlen = strlen(json), jpad = (4 - jlen % 4) % 4, bpad = (4 - blen % 4) % 4;
    size_t total = 12 + 8 + jlen + jpad + (blen ? 8 + blen + bpad : 0);
    unsigned char *d = calloc(total, 1);
    put32(d, 0x46546C67u);
    put32(d + 4, 2);
    put32(d + 8, (uint32_t)total);
    put32(d + 12, (uint32_t)(jlen + jpad));
    put32(d + 16, 0x4E4F534Au);
    memcpy(d + 20, json, jlen);
    memset(d + 20 + jlen, ' ', jpad);
    if (blen) {
        size_t at = 20 + jlen + jpad;
        put32(d + at, (uint32_t)(blen + bpad));
        put32(d + at + 4, 0x004E4942u);
        memcpy(d + at + 8, bin, blen);
    }
    const char *path = test_tmp_write(tmpdir, name, d, total);
    free(d);
    return path;
}

static char *base64(const unsigned char *d, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(n / 3 * 4 + 8), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t x = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *p++ = al[x >> 18 & 63];
        *p++ = al[x >> 12 & 63];
        *p++ = i + 1 < n ? al[x >> 6 & 63] : '=';
        *p++ = i + 2 < n ? al[x & 63] : '=';
    }
    *p = '\0';
    return o;
}

/* A mesh as float32 positions and uint32 indices, one primitive, one node
 * (the identity), in three forms: .glb, .gltf with a data: URI, .gltf with
 * stem.bin beside it. */
static void write_mesh_gltf(const char *stem, const kcbp_mesh *m, const char **glb, const char **gltf_data,
                            const char **gltf_ext)
{
    size_t pbytes = (size_t)m->nvertices * 12, ibytes = (size_t)m->ntriangles * 12;
    unsigned char *bin = malloc(pbytes + ibytes);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < m->nvertices; i++) {
        double c[3] = {m->vertices[i].x, m->vertices[i].y, m->vertices[i].z};
        for (int k = 0; k < 3; k++) {
            float f = (float)c[k];
            assert_true((double)f == c[k]); /* the OBJ was made float32-exact */
            memcpy(bin + 12 * (size_t)i + 4 * k, &f, 4);
            lo[k] = fmin(lo[k], c[k]);
            hi[k] = fmax(hi[k], c[k]);
        }
    }
    for (uint32_t t = 0; t < m->ntriangles; t++)
        for (int k = 0; k < 3; k++)
            put32(bin + pbytes + 12 * (size_t)t + 4 * k, m->triangles[t].v[k]);
    char head[2048];
    snprintf(head, sizeof head,
             "{\"asset\":{\"version\":\"2.0\",\"generator\":\"test_gltf\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\","
             "\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]},"
             "{\"bufferView\":1,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu,\"target\":34962},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"target\":34963}],",
             m->nvertices, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], m->ntriangles * 3, pbytes, pbytes, ibytes);
    size_t blen = pbytes + ibytes;
    char *json = malloc(strlen(head) + 4 * blen / 3 + 256);
    char name[64];
    sprintf(json, "%s\"buffers\":[{\"byteLength\":%zu}]}", head, blen);
    snprintf(name, sizeof name, "%s.glb", stem);
    *glb = write_glb(name, json, bin, blen);
    char *b64 = base64(bin, blen);
    sprintf(json, "%s\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}]}", head,
            blen, b64);
    snprintf(name, sizeof name, "%s_data.gltf", stem);
    *gltf_data = test_tmp_write_text(tmpdir, name, json);
    snprintf(name, sizeof name, "%s.bin", stem);
    test_tmp_write(tmpdir, name, bin, blen);
    sprintf(json, "%s\"buffers\":[{\"byteLength\":%zu,\"uri\":\"%s.bin\"}]}", head, blen, stem);
    snprintf(name, sizeof name, "%s_ext.gltf", stem);
    *gltf_ext = test_tmp_write_text(tmpdir, name, json);
    free(b64);
    free(json);
    free(bin);
}

/* An OBJ of meshes/NAME with every coordinate rounded to float32, written
 * exactly (%.17g of the float's double). */
static const char *float_obj(const char *name, const char *out)
{
    char src[256];
    snprintf(src, sizeof src, "meshes/%s", name);
    kcbp_mesh m;
    kcbp_error err;
    if (kcbp_mesh_load_into(src, &m, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    size_t cap = (size_t)m.nvertices * 80 + (size_t)m.ntriangles * 40 + 64, n = 0;
    char *text = malloc(cap);
    for (uint32_t i = 0; i < m.nvertices; i++)
        n += (size_t)snprintf(text + n, cap - n, "v %.17g %.17g %.17g\n", (double)(float)m.vertices[i].x,
                              (double)(float)m.vertices[i].y, (double)(float)m.vertices[i].z);
    for (uint32_t t = 0; t < m.ntriangles; t++)
        n += (size_t)snprintf(text + n, cap - n, "f %u %u %u\n", m.triangles[t].v[0] + 1, m.triangles[t].v[1] + 1,
                              m.triangles[t].v[2] + 1);
    const char *path = test_tmp_write_text(tmpdir, out, text);
    free(text);
    kcbp_mesh_clear(&m);
    return path;
}

static void load(const char *path, kcbp_mesh *m)
{
    kcbp_error err;
    if (kcbp_mesh_load_into(path, m, &err) != KCBP_OK)
        fail_msg("%s: %s", path, err.msg);
}

/* The fields of a collide answer that must not depend on the format. */
static char *answer_core(const char *line)
{
    cJSON *doc = cJSON_Parse(line);
    assert_non_null(doc);
    cJSON *core = cJSON_CreateObject();
    const char *keys[] = {"collide", "decided_by", "contacts", "a", "b"};
    for (int i = 0; i < 5; i++) {
        cJSON *it = cJSON_DetachItemFromObject(doc, keys[i]);
        if (it)
            cJSON_AddItemToObject(core, keys[i], it);
    }
    char *s = cJSON_PrintUnformatted(core);
    cJSON_Delete(core);
    cJSON_Delete(doc);
    return s;
}

static void test_made_from_obj(void **state)
{
    (void)state;
    /* test_tmp_path's buffers rotate: keep copies. */
    char *obj_a = strdup(float_obj("bunny2.obj", "a.obj")), *obj_b = strdup(float_obj("spot.obj", "b.obj"));
    kcbp_mesh ma, mb;
    load(obj_a, &ma);
    load(obj_b, &mb);
    const char *ga0[3], *gb0[3];
    char *ga[3], *gb[3];
    write_mesh_gltf("a", &ma, &ga0[0], &ga0[1], &ga0[2]);
    for (int f = 0; f < 3; f++)
        ga[f] = strdup(ga0[f]);
    write_mesh_gltf("b", &mb, &gb0[0], &gb0[1], &gb0[2]);
    for (int f = 0; f < 3; f++)
        gb[f] = strdup(gb0[f]);
    /* Read back: the same vertices bit for bit and the same triangles. */
    for (int f = 0; f < 3; f++) {
        kcbp_mesh g;
        load(ga[f], &g);
        assert_int_equal(g.nvertices, ma.nvertices);
        assert_int_equal(g.ntriangles, ma.ntriangles);
        assert_memory_equal(g.vertices, ma.vertices, ma.nvertices * sizeof *ma.vertices);
        assert_memory_equal(g.triangles, ma.triangles, ma.ntriangles * sizeof *ma.triangles);
        kcbp_mesh_clear(&g);
    }
    const char *poses[] = {"0.5 0 0 0 0 1 30", "0.3 0.1 0 1 1 0 90", "3 0 0 0 0 1 0"};
    test_run_result r = {0};
    for (int p = 0; p < 3; p++) {
        test_run_args(&r, "collide", obj_a, obj_b, "--pose-b", poses[p], "--contacts", "all", NULL);
        if (r.status != 0)
            fail_msg("%s: %s", obj_a, r.err);
        char *want = answer_core(r.out);
        for (int f = 0; f < 3; f++) {
            test_run_args(&r, "collide", ga[f], gb[f], "--pose-b", poses[p], "--contacts", "all", NULL);
            if (r.status != 0)
                fail_msg("%s: %s", ga[f], r.err);
            char *got = answer_core(r.out);
            if (strcmp(got, want) != 0)
                fail_msg("pose %s, %s: %.300s\nOBJ: %.300s", poses[p], ga[f], got, want);
            free(got);
        }
        free(want);
    }
    test_run_free(&r);
    kcbp_mesh_clear(&ma);
    kcbp_mesh_clear(&mb);
    for (int f = 0; f < 3; f++) {
        free(ga[f]);
        free(gb[f]);
    }
    free(obj_a);
    free(obj_b);
}

/* --export FILE.glb read back: A's triangles then B's, each object's
 * contact triangles after its others, every vertex the posed float32 one. */
static void test_export_round_trip(void **state)
{
    (void)state;
    const char *glb = test_tmp_path(tmpdir, "out.glb");
    const char *pa = "0.1 0.2 0.3 1 2 3 25", *pb = "0.6 0.2 0.3 0 0 1 40";
    test_run_result r = {0};
    for (int with = 0; with < 2; with++) {
        test_run_args(&r, "collide", "meshes/bunny2.obj", "meshes/spot.obj", "--pose-a", pa, "--pose-b", pb, "--contacts",
                      with ? "all" : "none", "--no-cbp", "--export", glb, NULL);
        if (r.status != 0)
            fail_msg("%s", r.err);
        cJSON *doc = cJSON_Parse(r.out);
        assert_non_null(doc);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "collide")));
        kcbp_mesh src[2], back;
        load("meshes/bunny2.obj", &src[0]);
        load("meshes/spot.obj", &src[1]);
        load(glb, &back);
        assert_int_equal(back.nvertices, src[0].nvertices + src[1].nvertices);
        assert_int_equal(back.ntriangles, src[0].ntriangles + src[1].ntriangles);
        kcbp_pose pose[2];
        kcbp_error err;
        assert_int_equal(kcbp_pose_parse(pa, &pose[0], &err), KCBP_OK);
        assert_int_equal(kcbp_pose_parse(pb, &pose[1], &err), KCBP_OK);
        /* Every contact triangle (collide --contacts all lists them all). */
        uint8_t *marked[2] = {calloc(src[0].ntriangles, 1), calloc(src[1].ntriangles, 1)};
        if (with) {
            /* A contact count below --max-contacts: the list is whole. */
            const cJSON *c;
            cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "contacts")) {
                marked[0][cJSON_GetArrayItem(c, 0)->valueint] = 1;
                marked[1][cJSON_GetArrayItem(c, 1)->valueint] = 1;
            }
        } else {
            /* --contacts none: the file still marks every contact; find
             * them with the library. */
            kcbp_model ma, mb;
            test_model_load(&ma, "bunny2.obj");
            test_model_load(&mb, "spot.obj");
            kcbp_contact *all;
            size_t n = test_brute_force_contacts(&ma, &pose[0], &mb, &pose[1], &all);
            assert_true(n > 0);
            for (size_t i = 0; i < n; i++) {
                marked[0][all[i].a] = 1;
                marked[1][all[i].b] = 1;
            }
            free(all);
            kcbp_model_free(&ma);
            kcbp_model_free(&mb);
        }
        uint32_t t = 0, vbase = 0;
        for (int s = 0; s < 2; s++) {
            for (uint32_t i = 0; i < src[s].nvertices; i++) {
                kcbp_vec3 v = src[s].vertices[i];
                kcbp_vec3 f = {(float)v.x, (float)v.y, (float)v.z};
                kcbp_vec3 w = kcbp_pose_apply(&pose[s], f);
                kcbp_vec3 got = back.vertices[vbase + i];
                if (w.x != got.x || w.y != got.y || w.z != got.z)
                    fail_msg("object %d vertex %u: %.17g %.17g %.17g, posed float32 %.17g %.17g %.17g", s, i, got.x,
                             got.y, got.z, w.x, w.y, w.z);
            }
            for (int pass = 0; pass < 2; pass++)
                for (uint32_t k = 0; k < src[s].ntriangles; k++) {
                    if ((marked[s][k] != 0) != (pass == 1))
                        continue;
                    for (int j = 0; j < 3; j++)
                        if (back.triangles[t].v[j] != vbase + src[s].triangles[k].v[j])
                            fail_msg("object %d triangle %u read back as triangle %u, vertices differ", s, k, t);
                    t++;
                }
            vbase += src[s].nvertices;
        }
        free(marked[0]);
        free(marked[1]);
        kcbp_mesh_clear(&src[0]);
        kcbp_mesh_clear(&src[1]);
        kcbp_mesh_clear(&back);
        cJSON_Delete(doc);
    }
    /* With the k-CBPs: extra nodes after the objects' triangles. */
    test_run_args(&r, "collide", "meshes/bunny2.obj", "meshes/spot.obj", "--pose-b", pb, "--export", glb, NULL);
    assert_int_equal(r.status, 0);
    kcbp_mesh back, a;
    load(glb, &back);
    load("meshes/bunny2.obj", &a);
    assert_true(back.ntriangles > a.ntriangles + 4968u);
    kcbp_mesh_clear(&back);
    kcbp_mesh_clear(&a);
    test_run_free(&r);
}

static char *read_whole(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: not written", path);
    char *buf = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 1 << 16)))
            fail_msg("out of memory");
        size_t got = fread(buf + *n, 1, cap - *n, f);
        if (got == 0)
            break;
        *n += got;
    }
    fclose(f);
    return buf;
}

static int cmp_tri(const void *p, const void *q)
{
    const double *a = p, *b = q;
    for (int k = 0; k < 9; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* A scene's frame exported reopens with the same objects: every object's
 * triangles, every corner its float32 one posed (the multiset of
 * triangles compared sorted: contact triangles come after an object's others). The
 * default --export form (a path with no extension) writes the same .glb. */
static void test_scene_export_round_trip(void **state)
{
    (void)state;
    static const double pos[3][3] = {{0, 0, 0}, {0.3, 0.05, 0}, {5, 0, -1}};
    static const char *const mesh[3] = {"meshes/bunny2.obj", "meshes/spot.obj", "meshes/bunny2.obj"};
    char cwd[400], scene[1600];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(scene, sizeof scene,
             "{\"objects\": [{\"name\": \"b1\", \"mesh\": \"%s/meshes/bunny2.obj\", \"position\": [0, 0, 0]},"
             "{\"name\": \"s\", \"mesh\": \"%s/meshes/spot.obj\", \"position\": [0.3, 0.05, 0]},"
             "{\"name\": \"b2\", \"mesh\": \"%s/meshes/bunny2.obj\", \"position\": [5, 0, -1]}]}",
             cwd, cwd, cwd);
    const char *path = test_tmp_write_text(tmpdir, "scene.json", scene);
    char glb[600], plain[600];
    snprintf(glb, sizeof glb, "%s", test_tmp_path(tmpdir, "frame.glb"));
    snprintf(plain, sizeof plain, "%s", test_tmp_path(tmpdir, "frame"));
    test_run_result r = {0};
    test_run_args(&r, "scene", path, "--mesh-root", "meshes", "--export", glb, NULL);
    if (r.status != 0)
        fail_msg("%s", r.err);
    assert_non_null(strstr(r.out, "\"a\":\"b1\",\"b\":\"s\""));
    test_run_args(&r, "scene", path, "--mesh-root", "meshes", "--export", plain, NULL);
    if (r.status != 0)
        fail_msg("%s", r.err);
    size_t n1, n2;
    char *t1 = read_whole(glb, &n1), *t2 = read_whole(plain, &n2);
    /* both binary glTF (the same but for the report's times in extras) */
    assert_true(n1 > 12 && n2 > 12 && !memcmp(t1, "glTF", 4) && !memcmp(t2, "glTF", 4));
    free(t1);
    free(t2);

    kcbp_mesh back;
    load(glb, &back);
    size_t nv = 0, nt = 0;
    for (int i = 0; i < 3; i++) {
        kcbp_mesh m;
        load(mesh[i], &m);
        nv += m.nvertices;
        nt += m.ntriangles;
        kcbp_mesh_clear(&m);
    }
    /* the objects' triangles and, after them, each one's k-CBP (a node of
     * its own, which the reader merges too) */
    assert_true(back.ntriangles > nt);
    (void)nv; /* contact triangles carry their own copies of their vertices */
    /* every triangle as its three posed float32 corners, sorted */
    size_t ng = back.ntriangles;
    double *want = malloc(nt * 9 * sizeof *want), *got = malloc(ng * 9 * sizeof *got);
    assert_non_null(want);
    assert_non_null(got);
    size_t k = 0;
    for (int i = 0; i < 3; i++) {
        kcbp_mesh m;
        load(mesh[i], &m);
        for (uint32_t t = 0; t < m.ntriangles; t++, k++)
            for (int c = 0; c < 3; c++) {
                kcbp_vec3 v = m.vertices[m.triangles[t].v[c]];
                want[9 * k + 3 * c] = (double)(float)v.x + pos[i][0];
                want[9 * k + 3 * c + 1] = (double)(float)v.y + pos[i][1];
                want[9 * k + 3 * c + 2] = (double)(float)v.z + pos[i][2];
            }
        kcbp_mesh_clear(&m);
    }
    for (uint32_t t = 0; t < back.ntriangles; t++)
        for (int c = 0; c < 3; c++) {
            kcbp_vec3 v = back.vertices[back.triangles[t].v[c]];
            got[9 * t + 3 * c] = v.x;
            got[9 * t + 3 * c + 1] = v.y;
            got[9 * t + 3 * c + 2] = v.z;
        }
    qsort(want, nt, 9 * sizeof *want, cmp_tri);
    qsort(got, ng, 9 * sizeof *got, cmp_tri);
    /* every posed triangle is in the file, to float32's rounding (the
     * reader applies the node's matrix in double to the float32 corners):
     * got is sorted, so the candidates share the first x within 1e-6 */
    for (size_t i = 0; i < nt; i++) {
        const double *w = &want[9 * i];
        size_t lo = 0, hi = ng;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (got[9 * mid] < w[0] - 1e-6)
                lo = mid + 1;
            else
                hi = mid;
        }
        bool found = false;
        for (size_t j = lo; j < ng && got[9 * j] <= w[0] + 1e-6 && !found; j++) {
            found = true;
            for (int c = 0; c < 9; c++)
                found = found && fabs(got[9 * j + c] - w[c]) <= 1e-6;
        }
        if (!found)
            fail_msg("object triangle %zu (sorted) is not in the exported file: %.9g %.9g %.9g ...", i, w[0], w[1], w[2]);
    }
    free(want);
    free(got);
    kcbp_mesh_clear(&back);
    test_run_free(&r);
}

/* The JSON of a glTF with one mesh over positions (float32 at bytes 0..)
 * and indices after them, in a .glb. */
static const char *tiny_glb(const char *name, const char *meshes_nodes, const float *pos, size_t npos,
                            const uint16_t *idx, size_t nidx)
{
    size_t pb = npos * 12, ib = nidx * 2, ibp = (ib + 3) / 4 * 4;
    unsigned char *bin = calloc(pb + ibp + 4, 1);
    memcpy(bin, pos, pb);
    for (size_t i = 0; i < nidx; i++)
        bin[pb + 2 * i] = (unsigned char)idx[i], bin[pb + 2 * i + 1] = (unsigned char)(idx[i] >> 8);
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},%s,"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%zu,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":%zu,\"type\":\"SCALAR\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
             "\"buffers\":[{\"byteLength\":%zu}]}",
             meshes_nodes, npos, nidx, pb, pb, ibp ? ibp : 4, pb + ibp);
    const char *path = write_glb(name, json, bin, pb + ibp);
    free(bin);
    return path;
}

static const float quad[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};

static void test_modes_and_nodes(void **state)
{
    (void)state;
    kcbp_mesh m;
    /* A strip (0 1 2 3): (0 1 2), then (1 3 2), the spec's
     * (v[k], v[k+1+k%2], v[k+2-k%2]). */
    uint16_t strip[] = {0, 1, 2, 3};
    load(tiny_glb("strip.glb", "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"mode\":5}]}]",
                  quad, 4, strip, 4),
         &m);
    assert_int_equal(m.ntriangles, 2);
    uint32_t want_strip[] = {0, 1, 2, 1, 3, 2};
    assert_memory_equal(m.triangles, want_strip, sizeof want_strip);
    kcbp_mesh_clear(&m);
    /* A fan (0 1 3 2): (1 3 0), (3 2 0). */
    uint16_t fan[] = {0, 1, 3, 2};
    load(tiny_glb("fan.glb", "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"mode\":6}]}]",
                  quad, 4, fan, 4),
         &m);
    uint32_t want_fan[] = {1, 3, 0, 3, 2, 0};
    assert_int_equal(m.ntriangles, 2);
    assert_memory_equal(m.triangles, want_fan, sizeof want_fan);
    kcbp_mesh_clear(&m);
    /* Nodes: a parent translated by (10, 0, 0) and scaled by 2, its child
     * turned 90 degrees about z and translated by (0, 0, 1); a second root
     * with a mirroring matrix (x -> -x) and the same mesh. Triangles: the
     * parent's (none: no mesh), the child's, then the mirrored root's with
     * reversed winding. */
    uint16_t tris[] = {0, 1, 2};
    load(tiny_glb("nodes.glb",
                  "\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],\"nodes\":[{\"children\":[1],\"translation\":[10,0,0],"
                  "\"scale\":[2,2,2]},{\"mesh\":0,\"rotation\":[0,0,0.70710678118654757,0.70710678118654757],"
                  "\"translation\":[0,0,1]},{\"mesh\":0,\"matrix\":[-1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}]",
                  quad, 4, tris, 3),
         &m);
    assert_int_equal(m.ntriangles, 2);
    assert_int_equal(m.nvertices, 8);
    /* Child vertex 1 (1, 0, 0): turned to (0, 1, 0), moved to (0, 1, 1),
     * scaled to (0, 2, 2), moved to (10, 2, 2). */
    assert_true(fabs(m.vertices[1].x - 10) < 1e-12 && fabs(m.vertices[1].y - 2) < 1e-12 &&
                fabs(m.vertices[1].z - 2) < 1e-12);
    assert_true(m.vertices[5].x == -1 && m.vertices[5].y == 0);
    uint32_t want_mirror[] = {4, 6, 5};
    assert_memory_equal(m.triangles[1].v, want_mirror, sizeof want_mirror);
    kcbp_mesh_clear(&m);
}

typedef struct {
    const char *name, *json, *message;
    int truncate; /* > 0: cut the .glb to this many bytes; < 0: set its chunk length to this many past the end */
    bool gltf;    /* write json as .gltf text */
} hostile;

static void test_hostile(void **state)
{
    (void)state;
#define MESH_NODE "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
#define PRIM(extra) "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1" extra "}]}],"
#define ACC(count, icount) "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":" count ",\"type\":\"VEC3\"}," \
    "{\"bufferView\":1,\"componentType\":5123,\"count\":" icount ",\"type\":\"SCALAR\"}],"
#define VIEWS "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":8}],"
#define BUF "\"buffers\":[{\"byteLength\":56}]}"
#define GOOD "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS BUF
    static const hostile cases[] = {
        {"good.glb", GOOD, NULL, 0, false},
        {"truncated.glb", GOOD, "truncated", 60, false},
        {"header_only.glb", GOOD, "12 bytes", 9, false},
        {"chunk_past_end.glb", GOOD, "runs past the end", -1, false},
        {"accessor_past_view.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("5", "3") VIEWS BUF,
         "past the end of bufferViews[0]", 0, false},
        {"huge_count.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4000000000", "3") VIEWS BUF,
         "past the end of bufferViews[0]", 0, false},
        {"view_past_buffer.glb",
         "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3")
         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":80}]," BUF,
         "past the end of buffers[0]", 0, false},
        {"buffer_past_bin.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS
         "\"buffers\":[{\"byteLength\":100000}]}", "holds only", 0, false},
        {"lines.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM(",\"mode\":1") ACC("4", "3") VIEWS BUF,
         "mode 1 (LINES): only triangles", 0, false},
        {"points.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM(",\"mode\":0") ACC("4", "3") VIEWS BUF,
         "mode 0 (POINTS)", 0, false},
        {"cycle.glb",
         "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0,\"children\":[1]},"
         "{\"children\":[0]}]," PRIM("") ACC("4", "3") VIEWS BUF,
         "cycle", 0, false},
        {"two_parents.glb",
         "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"children\":[2]},"
         "{\"children\":[2]},{\"mesh\":0}]," PRIM("") ACC("4", "3") VIEWS BUF,
         "reached twice", 0, false},
        {"self_child.glb",
         "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0,\"children\":[0]}]," PRIM("") ACC("4", "3") VIEWS BUF,
         "no triangles", 0, false},
        {"index_past.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("2", "3") VIEWS BUF,
         "past the 2 vertices", 0, false},
        {"version1.glb", "{\"asset\":{\"version\":\"1.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS BUF,
         "only glTF 2.x", 0, false},
        {"draco.glb", "{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]," MESH_NODE
         PRIM("") ACC("4", "3") VIEWS BUF, "KHR_draco_mesh_compression", 0, false},
        {"bad_json.glb", "{\"asset\":{\"version\":\"2.0\"},,}", "invalid JSON", 0, false},
        {"count_fraction.glb", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("2.5", "3") VIEWS BUF,
         "count: expected a whole number", 0, false},
        {"no_asset.gltf", "{\"meshes\":[]}", "no \"asset\"", 0, true},
        {"bad_json.gltf", "{\"asset\":{\"version\":\"2.0\"},\n  \"nodes\": [}", "bad_json.gltf:2:", 0, true},
        {"dotdot.gltf", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS
         "\"buffers\":[{\"byteLength\":56,\"uri\":\"../x.bin\"}]}", "refused", 0, true},
        {"absolute.gltf", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS
         "\"buffers\":[{\"byteLength\":56,\"uri\":\"/etc/passwd\"}]}", "refused", 0, true},
        {"scheme.gltf", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS
         "\"buffers\":[{\"byteLength\":56,\"uri\":\"file:///etc/passwd\"}]}", "refused", 0, true},
        {"missing_bin.gltf", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS
         "\"buffers\":[{\"byteLength\":56,\"uri\":\"nowhere.bin\"}]}", "cannot open", 0, true},
        {"bad_base64.gltf", "{\"asset\":{\"version\":\"2.0\"}," MESH_NODE PRIM("") ACC("4", "3") VIEWS
         "\"buffers\":[{\"byteLength\":56,\"uri\":\"data:application/octet-stream;base64,AAA*\"}]}", "not base64", 0, true},
    };
    unsigned char bin[56] = {0};
    for (int i = 0; i < 12; i++) { /* the quad, then indices 0 1 2 */
        float f = quad[i];
        memcpy(bin + 4 * i, &f, 4);
    }
    bin[48] = 0, bin[50] = 1, bin[52] = 2;
    test_run_result r = {0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const hostile *h = &cases[c];
        const char *path;
        if (h->gltf) {
            path = test_tmp_write_text(tmpdir, h->name, h->json);
        } else {
            path = write_glb(h->name, h->json, bin, sizeof bin);
            if (h->truncate) {
                FILE *f = fopen(path, "r+b");
                fseek(f, 0, SEEK_END);
                long n = ftell(f);
                fclose(f);
                if (h->truncate > 0) {
                    assert_int_equal(truncate(path, h->truncate), 0);
                    /* keep the header's length honest only for the cut file's own test */
                } else {
                    unsigned char len[4];
                    put32(len, (uint32_t)(n + 100));
                    f = fopen(path, "r+b");
                    fseek(f, 12, SEEK_SET);
                    fwrite(len, 1, 4, f);
                    fclose(f);
                }
            }
        }
        test_run_args(&r, "self", path, NULL);
        if (!h->message) {
            if (r.status != 0)
                fail_msg("%s: %s", h->name, r.err);
            continue;
        }
        if (r.status != 3 || r.out_len != 0 || !strstr(r.err, h->message))
            fail_msg("%s: exit %d, stdout %zu bytes, stderr '%s' (expected exit 3 and '%s')", h->name, r.status,
                     r.out_len, r.err, h->message);
    }
    test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_made_from_obj),
        cmocka_unit_test(test_export_round_trip),
        cmocka_unit_test(test_scene_export_round_trip),
        cmocka_unit_test(test_modes_and_nodes),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests_name("gltf", tests, setup, teardown);
}
