/* Tests of the OBJ reader (src/mesh/obj.c). */
#include <errno.h>
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

#include <cmocka.h>

#include <kcbp/obj.h>
#include "testutil.h"


static kcbp_status parse(const char *text, size_t len, kcbp_mesh *m, kcbp_error *err)
{
    memset(err, 0, sizeof *err);
    return kcbp_obj_parse_into("t.obj", text, len, m, err);
}

/* Parses text, which must succeed with the given counts. */
static void parse_ok(const char *text, kcbp_mesh *m, uint32_t nv, uint32_t nt)
{
    kcbp_error err;
    kcbp_status st = parse(text, strlen(text), m, &err);
    if (st != KCBP_OK)
        fail_msg("unexpected error %s: %s", kcbp_status_name(st), err.msg);
    assert_int_equal(m->nvertices, nv);
    assert_int_equal(m->ntriangles, nt);
}

static void check_tri(const kcbp_mesh *m, uint32_t i, uint32_t a, uint32_t b, uint32_t c)
{
    assert_true(i < m->ntriangles);
    if (m->triangles[i].v[0] != a || m->triangles[i].v[1] != b || m->triangles[i].v[2] != c)
        fail_msg("triangle %u is (%u %u %u), want (%u %u %u)", i, m->triangles[i].v[0], m->triangles[i].v[1],
                 m->triangles[i].v[2], a, b, c);
}

static void check_vertex(const kcbp_mesh *m, uint32_t i, double x, double y, double z)
{
    assert_true(i < m->nvertices);
    assert_true(m->vertices[i].x == x);
    assert_true(m->vertices[i].y == y);
    assert_true(m->vertices[i].z == z);
}

static void check_error(const kcbp_error *err, kcbp_status st, kcbp_status code, const char *prefix,
                        const char *needle)
{
    if (st != code || err->code != code || strncmp(err->msg, prefix, strlen(prefix)) != 0 ||
        (needle && !strstr(err->msg, needle)))
        fail_msg("got %s \"%s\", want %s \"%s...%s...\"", kcbp_status_name(st), err->msg, kcbp_status_name(code),
                 prefix, needle ? needle : "");
}

/* Parses text of len bytes, which must fail with code, a message starting
 * with prefix and containing needle (if not NULL), and a zeroed mesh. */
static void expect_error_n(const char *text, size_t len, kcbp_status code, const char *prefix, const char *needle)
{
    kcbp_mesh m;
    kcbp_error err;
    memset(&m, 0xab, sizeof m);
    kcbp_status st = parse(text, len, &m, &err);
    check_error(&err, st, code, prefix, needle);
    assert_null(m.vertices);
    assert_null(m.triangles);
    assert_int_equal(m.nvertices, 0);
    assert_int_equal(m.ntriangles, 0);
}

static void expect_error(const char *text, kcbp_status code, const char *prefix, const char *needle)
{
    expect_error_n(text, strlen(text), code, prefix, needle);
}

static kcbp_vec3 tri_cross(const kcbp_mesh *m, uint32_t i)
{
    const uint32_t *t = m->triangles[i].v;
    kcbp_vec3 a = m->vertices[t[0]], b = m->vertices[t[1]], c = m->vertices[t[2]];
    return kcbp_v3_cross(kcbp_v3_sub(b, a), kcbp_v3_sub(c, a));
}

/* Writes len bytes to a new file in /tmp; returns its malloc'ed path. */
static char *temp_file(const void *data, size_t len)
{
    char *path = strdup("/tmp/kcbp-test-obj-XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
    return path;
}

static kcbp_status load(const char *path, kcbp_mesh *m, kcbp_error *err)
{
    memset(err, 0, sizeof *err);
    memset(m, 0xab, sizeof *m);
    return kcbp_obj_load_into(path, m, err);
}

/* ---- what is read ---- */

static void test_face_forms(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("v 0 0 0\n"
             "v 1 0 0\n"
             "v 0 1 0\n"
             "v 0 0 1.5\n"
             "vt 0 0\nvt 1 0\nvt 0 1\n"
             "vn 0 0 1\n"
             "f 1 2 3\n"
             "f 1/1 2/2 4/3\n"
             "f 1//1 3//1 4//1\n"
             "f 2/1/1 3/2/1 4/3/1\n"
             "f\t+1   2\t\t4  \n",
             &m, 4, 5);
    check_vertex(&m, 0, 0, 0, 0);
    check_vertex(&m, 1, 1, 0, 0);
    check_vertex(&m, 2, 0, 1, 0);
    check_vertex(&m, 3, 0, 0, 1.5);
    check_tri(&m, 0, 0, 1, 2);
    check_tri(&m, 1, 0, 1, 3);
    check_tri(&m, 2, 0, 2, 3);
    check_tri(&m, 3, 1, 2, 3);
    check_tri(&m, 4, 0, 1, 3);
    assert_int_equal(m.ndegenerate, 0);
    assert_true(m.bounds.max.z == 1.5);
    kcbp_mesh_clear(&m);
}

static void test_negative_indices(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
             "f -3 -2 -1\n"
             "v 1 1 0\n"
             "f -4/-1 -1/-2 -2//-1\n"
             "f -1 1 -3/1/1\n",
             &m, 4, 3);
    check_tri(&m, 0, 0, 1, 2);
    check_tri(&m, 1, 0, 3, 2);
    check_tri(&m, 2, 3, 0, 1);
    kcbp_mesh_clear(&m);
}

static void test_quad_and_pentagon_fan(void **state)
{
    (void)state;
    kcbp_mesh m;
    /* A square in the y = 2 plane, then a convex pentagon; the first face is
     * a triangle so the numbering of the later ones is checked too. */
    parse_ok("v 0 2 0\nv 1 2 0\nv 1 2 1\nv 0 2 1\n"
             "v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 3 0\nv -1 1 0\n"
             "f 1 2 3\n"
             "f 1 2 3 4\n"
             "f 5 6 7 8 9\n"
             "f 9 8 7 6 5\n",
             &m, 9, 1 + 2 + 3 + 3);
    check_tri(&m, 0, 0, 1, 2);
    check_tri(&m, 1, 0, 1, 2);
    check_tri(&m, 2, 0, 2, 3);
    check_tri(&m, 3, 4, 5, 6);
    check_tri(&m, 4, 4, 6, 7);
    check_tri(&m, 5, 4, 7, 8);
    /* Clockwise as written: still a fan, winding kept. */
    check_tri(&m, 6, 8, 7, 6);
    check_tri(&m, 7, 8, 6, 5);
    check_tri(&m, 8, 8, 5, 4);
    for (uint32_t i = 3; i < 6; i++)
        assert_true(tri_cross(&m, i).z > 0);
    for (uint32_t i = 6; i < 9; i++)
        assert_true(tri_cross(&m, i).z < 0);
    kcbp_mesh_clear(&m);
}

static void test_l_shape_swept(void **state)
{
    (void)state;
    kcbp_mesh m;
    /* An L of area 3, counter-clockwise, starting at the corner (2,1) next
     * to the reflex vertex (1,1): the fan from (2,1) would cover the missing
     * square [1,2]x[1,2], so the face is swept (polygon.h, rule 5); each
     * triangle starts at its earliest vertex in the face. */
    parse_ok("v 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\nv 0 0 0\nv 2 0 0\n"
             "f 1 2 3 4 5 6\n",
             &m, 6, 4);
    check_tri(&m, 0, 1, 3, 4);
    check_tri(&m, 1, 1, 2, 3);
    check_tri(&m, 2, 1, 4, 5);
    check_tri(&m, 3, 0, 1, 5);
    double area = 0;
    for (uint32_t i = 0; i < 4; i++) {
        kcbp_vec3 c = tri_cross(&m, i);
        assert_true(c.z > 0);
        area += 0.5 * c.z;
    }
    assert_true(area == 3.0);
    kcbp_mesh_clear(&m);
}

static void test_star_swept(void **state)
{
    (void)state;
    /* A five-pointed star (10 vertices, radii 2 and 1) in the tilted plane
     * spanned by the orthonormal a = (1,0,0), b = (0,0.6,0.8), offset by o:
     * area 10 sin 36 degrees. */
    const double pi = 3.14159265358979323846;
    char text[2048];
    size_t n = 0;
    for (int k = 0; k < 10; k++) {
        double r = k % 2 ? 1.0 : 2.0, t = k * pi / 5;
        double x = r * cos(t), y = r * sin(t);
        n += (size_t)snprintf(text + n, sizeof text - n, "v %.17g %.17g %.17g\n", 5 + x, -1 + 0.6 * y,
                              2 + 0.8 * y);
    }
    snprintf(text + n, sizeof text - n, "f 1 2 3 4 5 6 7 8 9 10\n");
    kcbp_mesh m;
    parse_ok(text, &m, 10, 8);
    kcbp_vec3 normal = kcbp_v3(0, -0.8, 0.6); /* a x b */
    double area = 0;
    for (uint32_t i = 0; i < 8; i++) {
        kcbp_vec3 c = tri_cross(&m, i);
        /* every triangle lies in the plane, with the polygon's winding */
        assert_true(kcbp_v3_dot(c, normal) > 0.1);
        assert_true(kcbp_v3_len(kcbp_v3_sub(c, kcbp_v3_scale(normal, kcbp_v3_dot(c, normal)))) < 1e-12);
        area += 0.5 * kcbp_v3_len(c);
    }
    /* Triangles of one winding whose areas add up to the polygon's cannot
     * overlap: this is a triangulation of the star. */
    assert_true(fabs(area - 10 * sin(pi / 5)) < 1e-12);
    /* Swept (polygon.h, rule 5) in the projection along y (the normal's
     * largest coordinate), in order of x: the first triangle cut is the
     * tip v6 at x = 5 + 2 cos 216 degrees, with its neighbours. */
    check_tri(&m, 0, 5, 6, 7);
    kcbp_mesh_clear(&m);
}

static void test_degenerate_polygons_fan(void **state)
{
    (void)state;
    kcbp_mesh m;
    /* A bow tie (self-intersecting, zero Newell normal) and four collinear
     * points: both fall back to the fan; zero-area triangles are kept. */
    parse_ok("v 0 0 0\nv 1 1 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nv 3 0 0\n"
             "f 1 2 3 4\n"
             "f 1 3 5 6\n",
             &m, 6, 4);
    check_tri(&m, 0, 0, 1, 2);
    check_tri(&m, 1, 0, 2, 3);
    check_tri(&m, 2, 0, 2, 4);
    check_tri(&m, 3, 0, 4, 5);
    assert_int_equal(m.ndegenerate, 2);
    kcbp_mesh_clear(&m);
}

static void test_crlf(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("# made on Windows\r\nv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nv 0.5 0.5 1\r\n\r\nf 1 2 3\r\nf 1//1 2//2 4//4\r\n", &m,
             4, 2);
    check_vertex(&m, 3, 0.5, 0.5, 1);
    check_tri(&m, 1, 0, 1, 3);
    kcbp_mesh_clear(&m);
    /* and a line number after CRLF lines is counted right */
    expect_error("v 0 0 0\r\nv 1 0 0\r\nv 1 2\r\n", KCBP_ERR_PARSE, "t.obj:3: ", "2 coordinates");
}

static void test_comments_any_bytes(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("# \xe7\xbd\x91\xe6\xa0\xbc \xff\xfe\x80 not UTF-8\n"
             "#\xe7\xbd\x91\n"
             "   # indented comment\n"
             "v 0 0 0 # origin \xe7\xbd\x91\n"
             "v 1 0 0#x\n"
             "v 0 1 0\n"
             "f 1 2 3 # \xe7\xbd\x91\n"
             "f 1 2 3#\n",
             &m, 3, 2);
    check_vertex(&m, 1, 1, 0, 0);
    check_tri(&m, 1, 0, 1, 2);
    kcbp_mesh_clear(&m);
}

static void test_skipped_statements(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("mtllib scene.mtl\n"
             "o thing\n"
             "g group one\n"
             "s 1\n"
             "s off\n"
             "usemtl red\n"
             "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
             "vt 0.5 0.5\n"
             "vn 0 0 1\n"
             "vp 0.1 0.2\n"
             "l 1 2\n"
             "p 3\n"
             "cstype bspline\n"
             "deg 3\n"
             "vertex 1 2 3\n"
             "fo 1 2 3\n"
             "faces 1 2 3\n"
             "\n"
             "   \t\n"
             "f 1 2 3\n"
             "end\n",
             &m, 3, 1);
    kcbp_mesh_clear(&m);
}

static void test_w_coordinate_and_colours(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("v 1 2 3 0.5\n"
             "v -1.5e2 +2.25 .125 1 0 0\n"
             "v 7 8 9 1 0.5 0.25 1\n"
             "f 1 2 3\n",
             &m, 3, 1);
    check_vertex(&m, 0, 1, 2, 3);
    check_vertex(&m, 1, -150, 2.25, 0.125);
    check_vertex(&m, 2, 7, 8, 9);
    kcbp_mesh_clear(&m);
}

static void test_no_final_newline(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3", &m, 3, 1);
    kcbp_mesh_clear(&m);
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4", KCBP_ERR_PARSE, "t.obj:4: ", "index 4");
}

/* ---- errors in the text ---- */

static void test_malformed_numbers(void **state)
{
    (void)state;
    expect_error("v 0 0 0\nv 1 2 x\n", KCBP_ERR_PARSE, "t.obj:2: ", "'x'");
    expect_error("v 1 2 3x\n", KCBP_ERR_PARSE, "t.obj:1: ", "'3x'");
    expect_error("v 1,5 2 3\n", KCBP_ERR_PARSE, "t.obj:1: ", "'1,5'");
    expect_error("v 1 2 3e\n", KCBP_ERR_PARSE, "t.obj:1: ", "malformed");
    expect_error("v 1 2 3 4 5 6 7 8\n", KCBP_ERR_PARSE, "t.obj:1: ", "too many");
}

/* A backslash at the end of a line continues it on the next one (the OBJ
 * spec); errors name the first line of a continued statement, and the
 * lines after it keep their numbers. */
static void test_line_continuation(void **state)
{
    (void)state;
    kcbp_mesh m;
    parse_ok("v 0 0 0\nv 1 \\\n0 0\nv 0 1 0\nf 1 \\\r\n 2 \\\n3\n", &m, 3, 1);
    kcbp_mesh_clear(&m);
    parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \\", &m, 3, 1); /* at the very end */
    kcbp_mesh_clear(&m);
    expect_error("\nv 1 \\\nx 0\n", KCBP_ERR_PARSE, "t.obj:2: ", "'x'");
    expect_error("v 0 0 0 \\\n\nv 1 y 0\n", KCBP_ERR_PARSE, "t.obj:3: ", "'y'");
    expect_error("# a comment \\\nv 1 2 3\n", KCBP_ERR_PARSE, "t.obj:2: ", "no faces (0 vertices)");
}

/* An index too large for any integer type is shown as written. */
static void test_huge_index_message(void **state)
{
    (void)state;
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 18446744073709551619\n", KCBP_ERR_PARSE, "t.obj:4: ",
                 "vertex index 18446744073709551619 out of range");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -18446744073709551619\n", KCBP_ERR_PARSE, "t.obj:4: ",
                 "relative vertex index -18446744073709551619 reaches");
}

static void test_too_few_coordinates(void **state)
{
    (void)state;
    expect_error("# one\nv 1 2\n", KCBP_ERR_PARSE, "t.obj:2: ", "2 coordinates");
    expect_error("v\n", KCBP_ERR_PARSE, "t.obj:1: ", "0 coordinates");
    expect_error("v 1 # 2 3\n", KCBP_ERR_PARSE, "t.obj:1: ", "1 coordinate");
}

static void test_nonfinite_coordinates(void **state)
{
    (void)state;
    expect_error("v 0 0 0\nv nan 0 0\n", KCBP_ERR_PARSE, "t.obj:2: ", "'nan'");
    expect_error("v 0 0 0\nv 0 0 0\nv 0 -inf 0\n", KCBP_ERR_PARSE, "t.obj:3: ", "'-inf'");
    expect_error("v 0 0 1e999\n", KCBP_ERR_PARSE, "t.obj:1: ", "'1e999'");
    expect_error("v 0 0 0 NaN\n", KCBP_ERR_PARSE, "t.obj:1: ", "not a finite");
}

static void test_bad_indices(void **state)
{
    (void)state;
    const char *v3 = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    char text[256];
    snprintf(text, sizeof text, "%sf 1 2 3\nf 0 1 2\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:5: ", "index 0");
    snprintf(text, sizeof text, "%sf 1 2 4\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "index 4 out of range");
    /* a forward reference is out of range even if the vertex comes later */
    snprintf(text, sizeof text, "%sf 1 2 4\nv 1 1 1\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "out of range");
    snprintf(text, sizeof text, "%sf -1 -2 -4\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "-4");
    snprintf(text, sizeof text, "%sf 1 2 99999999999999999999999\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "out of range");
    snprintf(text, sizeof text, "%sf 1 2 3/\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "'3/'");
    snprintf(text, sizeof text, "%sf 1 2 3/1/1/1\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "'3/1/1/1'");
    snprintf(text, sizeof text, "%sf 1 2 3.0\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "'3.0'");
    snprintf(text, sizeof text, "%sf 1 2 x\n", v3);
    expect_error(text, KCBP_ERR_PARSE, "t.obj:4: ", "'x'");
    expect_error("f 1 2 3\nv 0 0 0\n", KCBP_ERR_PARSE, "t.obj:1: ", "0 vertices so far");
}

static void test_short_faces(void **state)
{
    (void)state;
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", KCBP_ERR_PARSE, "t.obj:4: ", "2 vertex indexes");
    expect_error("v 0 0 0\nf 1\n", KCBP_ERR_PARSE, "t.obj:2: ", "1 vertex index,");
    expect_error("v 0 0 0\nf\n", KCBP_ERR_PARSE, "t.obj:2: ", "0 vertex indexes");
    expect_error("v 0 0 0\nf # nothing\n", KCBP_ERR_PARSE, "t.obj:2: ", "needs at least 3");
}

static void test_no_faces(void **state)
{
    (void)state;
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\n", KCBP_ERR_PARSE, "t.obj:3: ", "no faces");
    expect_error("v 0 0 0\nv 1 0 0\nv 0 1 0\n\n# end", KCBP_ERR_PARSE, "t.obj:5: ", "no faces");
    expect_error("# nothing here\n", KCBP_ERR_PARSE, "t.obj:1: ", "no faces");
    expect_error("\n", KCBP_ERR_PARSE, "t.obj:1: ", "no faces");
}

static void test_empty_text(void **state)
{
    (void)state;
    expect_error_n("", 0, KCBP_ERR_PARSE, "t.obj: ", "empty");
}

static void test_binary_text(void **state)
{
    (void)state;
    static const char bin[] = "v 0 0 0\nv 1 0 0\nv 0 1\0 0\nf 1 2 3\n";
    expect_error_n(bin, sizeof bin - 1, KCBP_ERR_PARSE, "t.obj:3: ", "binary file");
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    expect_error_n(png, sizeof png - 1, KCBP_ERR_PARSE, "t.obj:3: ", "offset 8");
    /* a NUL in a comment counts too */
    static const char cmt[] = "# \0\nv 0 0 0\n";
    expect_error_n(cmt, sizeof cmt - 1, KCBP_ERR_PARSE, "t.obj:1: ", "binary file");
}

static void test_null_error_and_name(void **state)
{
    (void)state;
    kcbp_mesh m;
    assert_int_equal(kcbp_obj_parse_into(NULL, "v 1 2\n", 6, &m, NULL), KCBP_ERR_PARSE);
    assert_null(m.vertices);
    kcbp_error err;
    assert_int_equal(kcbp_obj_parse_into(NULL, "v 1 2\n", 6, &m, &err), KCBP_ERR_PARSE);
    assert_true(strncmp(err.msg, "(obj):1: ", 9) == 0);
    /* len limits the text: what follows is not read */
    assert_int_equal(kcbp_obj_parse_into("t", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n", 32, &m, &err), KCBP_OK);
    assert_int_equal(m.ntriangles, 1);
    kcbp_mesh_clear(&m);
}

/* ---- files ---- */

static void test_load_file(void **state)
{
    (void)state;
    static const char text[] = "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nv 1 1 0\r\nf 1 2 4 3\r\n";
    char *path = temp_file(text, sizeof text - 1);
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = load(path, &m, &err);
    if (st != KCBP_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m.nvertices, 4);
    assert_int_equal(m.ntriangles, 2);
    check_tri(&m, 0, 0, 1, 3);
    check_tri(&m, 1, 0, 3, 2);
    kcbp_mesh_clear(&m);
    unlink(path);
    free(path);
}

static void test_load_errors_name_file_and_line(void **state)
{
    (void)state;
    static const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n";
    char *path = temp_file(text, sizeof text - 1);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s:4: ", path);
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = load(path, &m, &err);
    check_error(&err, st, KCBP_ERR_PARSE, prefix, "index 0");
    assert_null(m.vertices);
    unlink(path);
    free(path);
}

static void test_load_missing_file(void **state)
{
    (void)state;
    char *path = temp_file("", 0);
    unlink(path);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = load(path, &m, &err);
    check_error(&err, st, KCBP_ERR_IO, prefix, strerror(ENOENT));
    assert_null(m.vertices);
    free(path);
}

static void test_load_directory(void **state)
{
    (void)state;
    char dir[] = "/tmp/kcbp-test-obj-dir-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", dir);
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = load(dir, &m, &err);
    check_error(&err, st, KCBP_ERR_IO, prefix, "directory");
    assert_null(m.vertices);
    assert_int_equal(rmdir(dir), 0);
}

static void test_load_unreadable_file(void **state)
{
    (void)state;
    if (geteuid() == 0)
        skip(); /* root reads anything */
    char *path = temp_file("v 0 0 0\n", 8);
    assert_int_equal(chmod(path, 0), 0);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = load(path, &m, &err);
    check_error(&err, st, KCBP_ERR_IO, prefix, strerror(EACCES));
    unlink(path);
    free(path);
}

static void test_load_empty_and_binary_files(void **state)
{
    (void)state;
    char prefix[64];
    kcbp_mesh m;
    kcbp_error err;
    char *path = temp_file("", 0);
    snprintf(prefix, sizeof prefix, "%s: ", path);
    check_error(&err, load(path, &m, &err), KCBP_ERR_PARSE, prefix, "empty");
    unlink(path);
    free(path);

    unsigned char bin[4096];
    for (size_t i = 0; i < sizeof bin; i++)
        bin[i] = (unsigned char)(i * 7 + 3);
    path = temp_file(bin, sizeof bin);
    snprintf(prefix, sizeof prefix, "%s:", path);
    check_error(&err, load(path, &m, &err), KCBP_ERR_PARSE, prefix, "binary file");
    assert_null(m.vertices);
    unlink(path);
    free(path);
}

static void test_load_too_large_file(void **state)
{
    (void)state;
    /* A sparse file just over 2 GiB: refused from its size, never read. */
    char *path = temp_file("", 0);
    if (truncate(path, ((off_t)1 << 31) + 1) != 0) {
        unlink(path);
        free(path);
        skip();
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    kcbp_mesh m;
    kcbp_error err;
    check_error(&err, load(path, &m, &err), KCBP_ERR_LIMIT, prefix, "limit");
    assert_null(m.vertices);
    unlink(path);
    free(path);
}

/* ---- the bundled meshes (tests run from the repository root) ---- */

static void test_shared_meshes(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        uint32_t nvertices, ntriangles;
    } meshes[] = {
        {"stanford-bunny.obj", 35947, 69451},
        {"bunny2.obj", 2503, 4968}, /* CRLF, v//vn, comments in a non-UTF-8 encoding */
        {"spot.obj", 2930, 5856},   /* v/vt */
        {"cow.obj", 2903, 5804},
        {"teapot.obj", 3644, 6320},
        {"suzanne.obj", 507, 968}, /* 500 faces: 32 triangles and 468 quads */
        {"fandisk.obj", 6475, 12946},
        {"rocker-arm.obj", 10044, 20088},
        {"homer.obj", 6002, 12000},
        {"woody.obj", 694, 1267},
    };
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "meshes/%s", meshes[i].file);
        kcbp_mesh m;
        kcbp_error err;
        kcbp_status st = load(path, &m, &err);
        if (st != KCBP_OK)
            fail_msg("%s", err.msg);
        if (m.nvertices != meshes[i].nvertices || m.ntriangles != meshes[i].ntriangles)
            fail_msg("%s: %u vertices and %u triangles, want %u and %u", path, m.nvertices, m.ntriangles,
                     meshes[i].nvertices, meshes[i].ntriangles);
        kcbp_mesh_clear(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_face_forms),
        cmocka_unit_test(test_negative_indices),
        cmocka_unit_test(test_quad_and_pentagon_fan),
        cmocka_unit_test(test_l_shape_swept),
        cmocka_unit_test(test_star_swept),
        cmocka_unit_test(test_degenerate_polygons_fan),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_comments_any_bytes),
        cmocka_unit_test(test_skipped_statements),
        cmocka_unit_test(test_w_coordinate_and_colours),
        cmocka_unit_test(test_no_final_newline),
        cmocka_unit_test(test_malformed_numbers),
        cmocka_unit_test(test_line_continuation),
        cmocka_unit_test(test_huge_index_message),
        cmocka_unit_test(test_too_few_coordinates),
        cmocka_unit_test(test_nonfinite_coordinates),
        cmocka_unit_test(test_bad_indices),
        cmocka_unit_test(test_short_faces),
        cmocka_unit_test(test_no_faces),
        cmocka_unit_test(test_empty_text),
        cmocka_unit_test(test_binary_text),
        cmocka_unit_test(test_null_error_and_name),
        cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_load_errors_name_file_and_line),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_load_directory),
        cmocka_unit_test(test_load_unreadable_file),
        cmocka_unit_test(test_load_empty_and_binary_files),
        cmocka_unit_test(test_load_too_large_file),
        cmocka_unit_test(test_shared_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
