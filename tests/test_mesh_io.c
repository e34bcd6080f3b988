/* Tests of the STL, PLY and OFF readers and of kcbp_mesh_load's choice of
 * reader (src/mesh/mesh_io.c, stl.c, ply.c, off.c): each format written here from
 * an OBJ mesh must read back as the same mesh and give the same collision
 * answers. */
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

#include <kcbp/kcbp.h>
#include "testutil.h"

#ifndef KCBP_SOURCE_DIR
#define KCBP_SOURCE_DIR "."
#endif

/* A growable byte buffer. */
typedef struct {
    char *d;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = 2 * (b->n + n + 1);
        b->d = realloc(b->d, b->cap);
        assert_non_null(b->d);
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void putf(buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    put(b, tmp, (size_t)n);
}

static void put_u32le(buf *b, uint32_t u)
{
    unsigned char c[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16), (unsigned char)(u >> 24)};
    put(b, c, 4);
}

/* Value of size bytes at p in the given byte order. */
static void put_raw(buf *b, const void *p, size_t size, bool big)
{
    unsigned char c[8];
    memcpy(c, p, size);
    uint16_t one = 1;
    bool host_big = *(unsigned char *)&one == 0;
    if (big != host_big)
        for (size_t i = 0; i < size / 2; i++) {
            unsigned char t = c[i];
            c[i] = c[size - 1 - i];
            c[size - 1 - i] = t;
        }
    put(b, c, size);
}

/* A polygon mesh as the file has it: vertices rounded to float (so that
 * every format holds them exactly), faces of any size. */
typedef struct {
    double *v; /* 3 per vertex */
    size_t nv;
    uint32_t *idx, *start; /* face f: idx[start[f] .. start[f+1]) */
    size_t nf;
} poly_mesh;

static void read_poly(const char *path, poly_mesh *pm)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    size_t cap_v = 0, cap_i = 0, cap_f = 0, ni = 0;
    memset(pm, 0, sizeof *pm);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'v' && line[1] == ' ') {
            double x, y, z;
            assert_int_equal(sscanf(line + 2, "%lf %lf %lf", &x, &y, &z), 3);
            if (pm->nv + 1 > cap_v)
                pm->v = realloc(pm->v, (cap_v = 2 * cap_v + 64) * 3 * sizeof *pm->v);
            pm->v[3 * pm->nv] = (float)x;
            pm->v[3 * pm->nv + 1] = (float)y;
            pm->v[3 * pm->nv + 2] = (float)z;
            pm->nv++;
        } else if (line[0] == 'f' && line[1] == ' ') {
            if (pm->nf + 2 > cap_f)
                pm->start = realloc(pm->start, (cap_f = 2 * cap_f + 64) * sizeof *pm->start);
            pm->start[pm->nf] = (uint32_t)ni;
            for (char *p = strtok(line + 2, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
                if (ni + 1 > cap_i)
                    pm->idx = realloc(pm->idx, (cap_i = 2 * cap_i + 64) * sizeof *pm->idx);
                pm->idx[ni++] = (uint32_t)(atol(p) - 1);
            }
            pm->nf++;
            pm->start[pm->nf] = (uint32_t)ni;
        }
    }
    fclose(f);
}

static void free_poly(poly_mesh *pm)
{
    free(pm->v);
    free(pm->idx);
    free(pm->start);
}

static void write_obj(const poly_mesh *pm, buf *b)
{
    for (size_t i = 0; i < pm->nv; i++)
        putf(b, "v %.17g %.17g %.17g\n", pm->v[3 * i], pm->v[3 * i + 1], pm->v[3 * i + 2]);
    for (size_t f = 0; f < pm->nf; f++) {
        putf(b, "f");
        for (uint32_t k = pm->start[f]; k < pm->start[f + 1]; k++)
            putf(b, " %u", pm->idx[k] + 1);
        putf(b, "\n");
    }
}

static void write_off(const poly_mesh *pm, buf *b)
{
    putf(b, "OFF\n# written by test_mesh_io\n%zu %zu 0\n", pm->nv, pm->nf);
    for (size_t i = 0; i < pm->nv; i++)
        putf(b, "%.17g %.17g %.17g\n", pm->v[3 * i], pm->v[3 * i + 1], pm->v[3 * i + 2]);
    for (size_t f = 0; f < pm->nf; f++) {
        putf(b, "%u", pm->start[f + 1] - pm->start[f]);
        for (uint32_t k = pm->start[f]; k < pm->start[f + 1]; k++)
            putf(b, " %u", pm->idx[k]);
        putf(b, " 255 0 0\n"); /* a colour, ignored */
    }
}

/* format: 0 ascii, 1 little endian, 2 big endian. */
static void write_ply(const poly_mesh *pm, buf *b, int format, bool dbl)
{
    static const char *names[] = {"ascii", "binary_little_endian", "binary_big_endian"};
    const char *t = dbl ? "double" : "float";
    putf(b, "ply\nformat %s 1.0\ncomment test\nelement vertex %zu\nproperty uchar red\nproperty %s x\nproperty %s y\n"
            "property %s z\nelement face %zu\nproperty list uchar int vertex_indices\nproperty float quality\n"
            "element extra 2\nproperty list int short things\nend_header\n",
         names[format], pm->nv, t, t, t, pm->nf);
    bool big = format == 2;
    for (size_t i = 0; i < pm->nv; i++) {
        if (format == 0) {
            putf(b, "7 %.17g %.17g %.17g\n", pm->v[3 * i], pm->v[3 * i + 1], pm->v[3 * i + 2]);
            continue;
        }
        unsigned char red = 7;
        put(b, &red, 1);
        for (int k = 0; k < 3; k++) {
            double x = pm->v[3 * i + k];
            float fx = (float)x;
            if (dbl)
                put_raw(b, &x, 8, big);
            else
                put_raw(b, &fx, 4, big);
        }
    }
    for (size_t f = 0; f < pm->nf; f++) {
        uint32_t n = pm->start[f + 1] - pm->start[f];
        float q = 0.5f;
        if (format == 0) {
            putf(b, "%u", n);
            for (uint32_t k = pm->start[f]; k < pm->start[f + 1]; k++)
                putf(b, " %u", pm->idx[k]);
            putf(b, " 0.5\n");
            continue;
        }
        unsigned char c = (unsigned char)n;
        put(b, &c, 1);
        for (uint32_t k = pm->start[f]; k < pm->start[f + 1]; k++) {
            int32_t i = (int32_t)pm->idx[k];
            put_raw(b, &i, 4, big);
        }
        put_raw(b, &q, 4, big);
    }
    for (int e = 0; e < 2; e++) {
        if (format == 0) {
            putf(b, "2 -1 1\n");
            continue;
        }
        int32_t n = 2;
        int16_t s[2] = {-1, 1};
        put_raw(b, &n, 4, big);
        put_raw(b, &s[0], 2, big);
        put_raw(b, &s[1], 2, big);
    }
}

/* STL from a triangle mesh (the OBJ reader's triangulation). */
static void write_stl(const kcbp_mesh *m, buf *b, bool ascii)
{
    if (ascii) {
        putf(b, "solid test\n");
        for (uint32_t t = 0; t < m->ntriangles; t++) {
            putf(b, "  facet normal 0 0 1\n    outer loop\n");
            for (int k = 0; k < 3; k++) {
                kcbp_vec3 p = m->vertices[m->triangles[t].v[k]];
                putf(b, "      vertex %.17g %.17g %.17g\n", p.x, p.y, p.z);
            }
            putf(b, "    endloop\n  endfacet\n");
        }
        putf(b, "endsolid test\n");
        return;
    }
    char header[80];
    memset(header, ' ', sizeof header);
    memcpy(header, "solid a binary STL with solid in its header", 44);
    put(b, header, 80);
    put_u32le(b, m->ntriangles);
    for (uint32_t t = 0; t < m->ntriangles; t++) {
        float nrm[3] = {0, 0, 1};
        for (int k = 0; k < 3; k++)
            put_raw(b, &nrm[k], 4, false);
        for (int k = 0; k < 3; k++) {
            kcbp_vec3 p = m->vertices[m->triangles[t].v[k]];
            float c[3] = {(float)p.x, (float)p.y, (float)p.z};
            for (int j = 0; j < 3; j++)
                put_raw(b, &c[j], 4, false);
        }
        put(b, "\0\0", 2);
    }
}

static void parse_ok(const char *name, const buf *b, kcbp_mesh *m, kcbp_mesh_format want)
{
    kcbp_error err = {0};
    assert_int_equal(kcbp_mesh_detect(name, b->d, b->n), want);
    kcbp_status st = kcbp_mesh_parse_into(name, b->d, b->n, m, &err);
    if (st != KCBP_OK)
        fail_msg("%s: %s", name, err.msg);
}

static bool same_vec(kcbp_vec3 a, kcbp_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* Same vertices and triangles, index for index. */
static void check_same(const kcbp_mesh *ref, const kcbp_mesh *m, const char *what)
{
    if (ref->nvertices != m->nvertices || ref->ntriangles != m->ntriangles)
        fail_msg("%s: %u vertices %u triangles, want %u and %u", what, m->nvertices, m->ntriangles, ref->nvertices,
                 ref->ntriangles);
    for (uint32_t i = 0; i < m->nvertices; i++)
        if (!same_vec(ref->vertices[i], m->vertices[i]))
            fail_msg("%s: vertex %u differs", what, i);
    assert_memory_equal(ref->triangles, m->triangles, m->ntriangles * sizeof *m->triangles);
}

/* Same triangles by position (STL: vertices welded, so renumbered), and the
 * vertex count of the reference's distinct positions. */
static void check_same_welded(const kcbp_mesh *ref, const kcbp_mesh *m, const char *what)
{
    assert_int_equal(ref->ntriangles, m->ntriangles);
    for (uint32_t t = 0; t < m->ntriangles; t++)
        for (int k = 0; k < 3; k++)
            if (!same_vec(ref->vertices[ref->triangles[t].v[k]], m->vertices[m->triangles[t].v[k]]))
                fail_msg("%s: triangle %u vertex %d differs", what, t, k);
    /* Welded: no two vertices at the same place, and shared corners shared. */
    for (uint32_t t = 0; t + 1 < m->ntriangles && t < 200; t++)
        for (uint32_t u = t + 1; u < m->ntriangles && u < 200; u++)
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 3; j++)
                    if (same_vec(m->vertices[m->triangles[t].v[k]], m->vertices[m->triangles[u].v[j]]))
                        assert_int_equal(m->triangles[t].v[k], m->triangles[u].v[j]);
}

static void collide_all(const kcbp_mesh *ma, const kcbp_mesh *mb, bool *hit, size_t *ncont, uint64_t *sum)
{
    kcbp_model a, b;
    kcbp_error err = {0};
    kcbp_mesh ca, cb;
    assert_int_equal(kcbp_mesh_init(&ca, ma->vertices, ma->nvertices, ma->triangles, ma->ntriangles, &err), KCBP_OK);
    assert_int_equal(kcbp_mesh_init(&cb, mb->vertices, mb->nvertices, mb->triangles, mb->ntriangles, &err), KCBP_OK);
    assert_int_equal(kcbp_model_build_from(&a, &ca, NULL, &err), KCBP_OK);
    assert_int_equal(kcbp_model_build_from(&b, &cb, NULL, &err), KCBP_OK);
    kcbp_collide_options o = kcbp_collide_options_default();
    o.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result r = {0};
    kcbp_pose ia = kcbp_pose_identity();
    /* B's centre moved onto A's, then offset by a fraction of A's size. */
    kcbp_vec3 ca_ = kcbp_v3_scale(kcbp_v3_add(ma->bounds.min, ma->bounds.max), 0.5);
    kcbp_vec3 cb_ = kcbp_v3_scale(kcbp_v3_add(mb->bounds.min, mb->bounds.max), 0.5);
    double size = kcbp_v3_len(kcbp_v3_sub(ma->bounds.max, ma->bounds.min));
    for (int i = 0; i < 4; i++) {
        kcbp_pose pb;
        kcbp_vec3 t = kcbp_v3_add(kcbp_v3_sub(ca_, cb_), kcbp_v3(size * (0.15 * i - 0.1), size * 0.1 * i, 0));
        assert_int_equal(kcbp_pose_from_axis_angle(t, kcbp_v3(1, 2, 3), 40.0 * i, &pb, &err), KCBP_OK);
        assert_int_equal(kcbp_collide(&a, &ia, &b, &pb, &o, &r, &err), KCBP_OK);
        hit[i] = r.collide;
        ncont[i] = r.ncontacts;
        sum[i] = 0;
        for (size_t c = 0; c < r.ncontacts; c++)
            sum[i] = sum[i] * 31 + r.contacts[c].a * 7919u + r.contacts[c].b;
    }
    kcbp_collide_result_free(&r);
    kcbp_model_free(&a);
    kcbp_model_free(&b);
}

static void check_format(const char *obj, const char *other)
{
    char path[512];
    snprintf(path, sizeof path, "%s/meshes/%s", KCBP_SOURCE_DIR, obj);
    poly_mesh pm;
    read_poly(path, &pm);
    buf b = {0};
    kcbp_mesh ref, m, partner;
    write_obj(&pm, &b);
    parse_ok("ref.obj", &b, &ref, KCBP_FORMAT_OBJ);
    kcbp_error err = {0};
    snprintf(path, sizeof path, "%s/meshes/%s", KCBP_SOURCE_DIR, other);
    assert_int_equal(kcbp_mesh_load_into(path, &partner, &err), KCBP_OK);
    bool h0[4], h1[4];
    size_t n0[4], n1[4];
    uint64_t s0[4], s1[4];
    collide_all(&ref, &partner, h0, n0, s0);
    int hits = 0;
    for (int i = 0; i < 4; i++)
        hits += h0[i];
    assert_true(hits >= 1); /* the poses test something */

    for (int kind = 0; kind < 9; kind++) {
        b.n = 0;
        char name[64];
        kcbp_mesh_format fmt;
        if (kind == 0) {
            write_off(&pm, &b);
            snprintf(name, sizeof name, "t.off");
            fmt = KCBP_FORMAT_OFF;
        } else if (kind <= 6) {
            write_ply(&pm, &b, (kind - 1) % 3, kind > 3);
            snprintf(name, sizeof name, "t%d.ply", kind);
            fmt = KCBP_FORMAT_PLY;
        } else {
            write_stl(&ref, &b, kind == 8);
            snprintf(name, sizeof name, kind == 8 ? "t.stl" : "t-binary.stl");
            fmt = KCBP_FORMAT_STL;
        }
        parse_ok(name, &b, &m, fmt);
        if (kind <= 6) {
            check_same(&ref, &m, name);
            /* Polygon files keep the face map, triangle files need none. */
            assert_true((ref.faces == NULL) == (m.faces == NULL));
            if (ref.faces)
                assert_memory_equal(ref.faces, m.faces, m.ntriangles * sizeof *m.faces);
        } else {
            check_same_welded(&ref, &m, name);
            assert_null(m.faces);
        }
        collide_all(&m, &partner, h1, n1, s1);
        for (int i = 0; i < 4; i++) {
            assert_int_equal(h0[i], h1[i]);
            assert_int_equal(n0[i], n1[i]);
            assert_true(s0[i] == s1[i]);
        }
        /* Through a file with a misleading name: content decides. */
        if (kind == 7 || kind == 1 || kind == 0) {
            char tmp[] = "/tmp/kcbp_mesh_io_XXXXXX";
            int fd = mkstemp(tmp);
            assert_true(fd >= 0);
            assert_int_equal(write(fd, b.d, b.n), (ssize_t)b.n);
            close(fd);
            kcbp_mesh l;
            if (kcbp_mesh_load_into(tmp, &l, &err) != KCBP_OK)
                fail_msg("%s", err.msg);
            assert_int_equal(l.ntriangles, m.ntriangles);
            kcbp_mesh_clear(&l);
            unlink(tmp);
        }
        kcbp_mesh_clear(&m);
    }
    kcbp_mesh_clear(&ref);
    kcbp_mesh_clear(&partner);
    free(b.d);
    free_poly(&pm);
}

static void test_suzanne_quads(void **state)
{
    (void)state;
    check_format("suzanne.obj", "woody.obj");
}

/* kcbp_mesh.faces: triangle -> the file's face. */
static void test_face_map(void **state)
{
    (void)state;
    static const char obj[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nf 1 2 3 4\nf 1 2 5\nf 1 5 4 3 2\n";
    kcbp_mesh m;
    kcbp_error err = {0};
    assert_int_equal(kcbp_mesh_parse_into("f.obj", obj, sizeof obj - 1, &m, &err), KCBP_OK);
    assert_int_equal(m.ntriangles, 6);
    assert_non_null(m.faces);
    static const uint32_t want[] = {0, 0, 1, 2, 2, 2};
    assert_memory_equal(m.faces, want, sizeof want);
    kcbp_mesh_clear(&m);
    static const char tris[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\nf 3 2 1\n";
    assert_int_equal(kcbp_mesh_parse_into("t.obj", tris, sizeof tris - 1, &m, &err), KCBP_OK);
    assert_null(m.faces);
    kcbp_mesh_clear(&m);
}

static void test_cow_triangles(void **state)
{
    (void)state;
    check_format("cow.obj", "spot.obj");
}

static void expect_error(const char *name, const char *data, size_t len, kcbp_status code, const char *msg)
{
    kcbp_mesh m;
    kcbp_error err = {0};
    kcbp_status st = kcbp_mesh_parse_into(name, data, len, &m, &err);
    if (st != code || !strstr(err.msg, msg))
        fail_msg("%s: got %s '%s', want %s '%s'", name, kcbp_status_name(st), err.msg, kcbp_status_name(code), msg);
    assert_null(m.vertices);
}
#define EXPECT(name, text, code, msg) expect_error(name, text, sizeof text - 1, code, msg)

static void test_errors(void **state)
{
    (void)state;
    EXPECT("a.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", KCBP_ERR_PARSE, "a.off:6: vertex index 3 out of range");
    EXPECT("a.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n", KCBP_ERR_PARSE, "a.off:6: face has 2 vertex");
    EXPECT("a.off", "OFF\n3 1 0\n0 0 0\n1 nan 0\n", KCBP_ERR_PARSE, "a.off:4: vertex coordinate 'nan'");
    EXPECT("a.off", "OFF\n3 1 0\n0 0 0\n1 1e70 0\n0 1 0\n3 0 1 2\n", KCBP_ERR_LIMIT, "a.off:4: vertex coordinate");
    EXPECT("a.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", KCBP_ERR_PARSE, "a.off:6: file ends after 1 of 2");
    EXPECT("a.off", "OFF\n3 0 0\n", KCBP_ERR_PARSE, "a.off:2: no faces");
    EXPECT("a.off", "OFF BINARY\n", KCBP_ERR_PARSE, "binary OFF");
    EXPECT("a.off", "OFF\n99999999999 1 0\n", KCBP_ERR_LIMIT, "a.off:2: more than");
    EXPECT("a.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n",
           KCBP_ERR_PARSE, "no faces");
    EXPECT("a.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                    "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 5\n",
           KCBP_ERR_PARSE, "a.ply:13: vertex index 5 of face 0 out of range");
    EXPECT("a.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                    "element face 1\nproperty list uchar int vertex_indices\nend_header\n",
           KCBP_ERR_PARSE, "a.ply:3: the 'vertex' element needs");
    EXPECT("a.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                    "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 inf 0\n",
           KCBP_ERR_PARSE, "a.ply:11: coordinate y of vertex 1 'inf' is not a finite number");
    EXPECT("a.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                    "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n\0\0\0\0",
           KCBP_ERR_PARSE, "a.ply: byte 173: file ends inside");
    EXPECT("a.ply", "ply\nformat binary_middle_endian 1.0\n", KCBP_ERR_PARSE, "a.ply:2: unknown PLY format");
    EXPECT("a.ply", "ply\nformat ascii 1.0\nelement vertex 3\n", KCBP_ERR_PARSE, "no 'end_header'");
    EXPECT("a.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\n"
                    "endsolid x\n",
           KCBP_ERR_PARSE, "a.stl:6: facet has 2 vertices");
    EXPECT("a.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 nan\n",
           KCBP_ERR_PARSE, "a.stl:6: vertex coordinate 'nan'");
    EXPECT("a.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n",
           KCBP_ERR_PARSE, "a.stl:7: file ends inside a facet");
    EXPECT("a.stl", "solid x\nendsolid x\n", KCBP_ERR_PARSE, "a.stl:2: no faces");
    EXPECT("a.stl", "hello\0world", KCBP_ERR_PARSE, "a.stl: byte 11: binary STL ends inside its 84-byte header");
    /* A binary STL whose count does not match its size. */
    char bin[84 + 50 + 3];
    memset(bin, 0, sizeof bin);
    bin[80] = 1;
    expect_error("b.stl", bin, sizeof bin, KCBP_ERR_PARSE, "b.stl: byte 80: binary STL announces 1 triangles");
    /* A NaN in a binary STL: its byte. */
    float nanf_ = NAN;
    memcpy(bin + 84 + 12 + 4, &nanf_, 4);
    expect_error("b.stl", bin, 134, KCBP_ERR_PARSE, "b.stl: byte 100: vertex coordinate");
    char zero[84];
    memset(zero, 0, sizeof zero);
    expect_error("b.stl", zero, sizeof zero, KCBP_ERR_PARSE, "no faces");
}

static void test_detect(void **state)
{
    (void)state;
    assert_int_equal(kcbp_mesh_detect("x", "ply\nformat", 10), KCBP_FORMAT_PLY);
    assert_int_equal(kcbp_mesh_detect("x.obj", "ply\r\nformat", 11), KCBP_FORMAT_PLY);
    assert_int_equal(kcbp_mesh_detect("x", "OFF\n", 4), KCBP_FORMAT_OFF);
    assert_int_equal(kcbp_mesh_detect("x", "COFF 3 1 0\n", 11), KCBP_FORMAT_OFF);
    assert_int_equal(kcbp_mesh_detect("x", "solid a\nfacet", 13), KCBP_FORMAT_STL);
    assert_int_equal(kcbp_mesh_detect("x.STL", "abc", 3), KCBP_FORMAT_STL);
    assert_int_equal(kcbp_mesh_detect("dir.off/x", "v 1 2 3", 7), KCBP_FORMAT_OBJ);
    assert_int_equal(kcbp_mesh_detect("x.off", "v 1 2 3", 7), KCBP_FORMAT_OFF);
    assert_int_equal(kcbp_mesh_detect("-", "v 1 2 3", 7), KCBP_FORMAT_OBJ);
    char bin[84];
    memset(bin, 'v', sizeof bin);
    memset(bin + 80, 0, 4);
    assert_int_equal(kcbp_mesh_detect("x.obj", bin, 84), KCBP_FORMAT_STL);
}

/* -0 and +0 weld; an STL cube of 12 triangles has 8 vertices. */
static void test_weld(void **state)
{
    (void)state;
    buf b = {0};
    static const int q[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    putf(&b, "solid cube\n");
    for (int f = 0; f < 6; f++)
        for (int t = 0; t < 2; t++) {
            int c[3] = {q[f][0], q[f][t + 1], q[f][t + 2]};
            putf(&b, "facet normal 0 0 0\nouter loop\n");
            for (int k = 0; k < 3; k++)
                putf(&b, "vertex %s %d %d\n", (c[k] & 1) ? "1" : (f & 1 ? "-0" : "0"), (c[k] >> 1) & 1,
                     (c[k] >> 2) & 1);
            putf(&b, "endloop\nendfacet\n");
        }
    putf(&b, "endsolid cube\n");
    kcbp_mesh m;
    parse_ok("cube", &b, &m, KCBP_FORMAT_STL);
    assert_int_equal(m.nvertices, 8);
    assert_int_equal(m.ntriangles, 12);
    kcbp_mesh_clear(&m);
    free(b.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suzanne_quads), cmocka_unit_test(test_face_map), cmocka_unit_test(test_cow_triangles), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_detect),        cmocka_unit_test(test_weld),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
