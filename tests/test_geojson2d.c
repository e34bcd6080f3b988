/* The GeoJSON reader of 2D models (polygon2d.h): what it accepts, and
 * where it says an input is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <kcbp/kcbp2d.h>

static kcbp_status parse(const char *text, kcbp2d_model **m, kcbp_error *e)
{
    return kcbp2d_model_parse_geojson(text, strlen(text), "t.geojson", m, e);
}

static void test_accepts(void **state)
{
    (void)state;
    kcbp2d_model *m;
    kcbp_error e;
    /* a polygon with a hole (the hole counter-clockwise too: turned) */
    const char *poly = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[4,0],[4,4],[0,4],[0,0]],"
                       "[[1,1],[3,1],[3,3],[1,3],[1,1]]]}";
    assert_int_equal(parse(poly, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_vertex_count(m), 8);
    assert_int_equal(kcbp2d_model_ring_count(m), 2);
    kcbp2d_model_free(m);
    /* OGC-valid: a hole touching the shell at a point, another touching it
     * at a point (and the shell's vertex there) */
    const char *touch = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]],"
                        "[[0,5],[3,4],[3,6],[0,5]],[[3,4],[5,3],[5,5],[3,4]],[[10,10],[8,7],[7,8],[10,10]]]}";
    assert_int_equal(parse(touch, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_ring_count(m), 4);
    kcbp2d_model_free(m);
    /* a Feature; altitude ignored; a repeated position merged */
    const char *feat = "{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":"
                       "[[[0,0,5],[1,0,5],[1,0,5],[1,1,5],[0,0,5]]]}}";
    assert_int_equal(parse(feat, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_vertex_count(m), 3);
    kcbp2d_model_free(m);
    /* a collection of a MultiPolygon and a Polygon */
    const char *coll = "{\"type\":\"FeatureCollection\",\"features\":["
                       "{\"type\":\"Feature\",\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":["
                       "[[[0,0],[1,0],[1,1],[0,0]]],[[[5,0],[6,0],[6,1],[5,0]]]]}},"
                       "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":"
                       "[[[10,0],[11,0],[11,1],[10,1],[10,0]]]}}]}";
    assert_int_equal(parse(coll, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_ring_count(m), 3);
    assert_int_equal(kcbp2d_model_vertex_count(m), 10);
    /* and it collides as its polygons do */
    kcbp2d_model *sq;
    const char *small = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[0.5,0],[0.5,0.5],[0,0.5],[0,0]]]}";
    assert_int_equal(parse(small, &sq, &e), KCBP_OK);
    kcbp2d_pose id = kcbp2d_pose_identity(), at;
    kcbp2d_model_collide_result r;
    assert_int_equal(kcbp2d_pose_from_angle(10.25, 0.25, 0, &at, NULL), KCBP_OK);
    assert_int_equal(kcbp2d_model_collide(m, &id, sq, &at, NULL, &r, NULL), KCBP_OK);
    assert_true(r.collide);
    assert_int_equal(kcbp2d_pose_from_angle(2.5, 0.25, 0, &at, NULL), KCBP_OK);
    assert_int_equal(kcbp2d_model_collide(m, &id, sq, &at, NULL, &r, NULL), KCBP_OK);
    assert_false(r.collide);
    kcbp2d_model_distance_result d;
    assert_int_equal(kcbp2d_model_distance(m, &id, sq, &at, &d, NULL), KCBP_OK);
    assert_true(fabs(d.distance - 1.5) < 1e-15);
    kcbp2d_model_free(sq);
    kcbp2d_model_free(m);
}

static void expect(const char *text, kcbp_status code, const char *needle)
{
    kcbp2d_model *m = (kcbp2d_model *)1;
    kcbp_error e;
    memset(&e, 0, sizeof e);
    kcbp_status st = parse(text, &m, &e);
    if (st != code || !strstr(e.msg, needle))
        print_error("got %d '%s', wanted %d '%s'\n", st, e.msg, code, needle);
    assert_int_equal(st, code);
    assert_null(m);
    assert_non_null(strstr(e.msg, needle));
    assert_non_null(strstr(e.msg, "t.geojson"));
}

static void test_refuses(void **state)
{
    (void)state;
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,1]]]}", KCBP_ERR_PARSE,
           "coordinates[0]: the ring is not closed");
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[0,0]]]}", KCBP_ERR_PARSE, "at least 4 positions");
    /* a bow tie in the second feature */
    expect("{\"type\":\"FeatureCollection\",\"features\":["
           "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}},"
           "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":"
           "[[[5,0],[6,1],[6,0],[5,1],[5,0]]]}}]}",
           KCBP_ERR_GEOMETRY, "features[1].geometry.coordinates[0]: the ring crosses or touches itself");
    /* a hole outside its polygon */
    expect("{\"type\":\"MultiPolygon\",\"coordinates\":[[[[0,0],[4,0],[4,4],[0,4],[0,0]],"
           "[[10,1],[13,1],[13,3],[10,1]]]]}",
           KCBP_ERR_GEOMETRY, "(root).coordinates[0]: hole 1 is not inside the shell");
    /* a hole touching the shell at two points (the interior in two), along a
     * segment; two holes overlapping */
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]],"
           "[[0,5],[5,0],[6,6],[0,5]]]}",
           KCBP_ERR_GEOMETRY, "(root).coordinates: the interior is not connected");
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]],"
           "[[0,4],[3,4],[0,6],[0,4]]]}",
           KCBP_ERR_GEOMETRY, "(root).coordinates: the shell and hole 1 share a segment");
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[10,0],[10,10],[0,10],[0,0]],"
           "[[2,2],[5,2],[5,5],[2,2]],[[3,2.5],[6,3],[6,6],[3,2.5]]]}",
           KCBP_ERR_GEOMETRY, "(root).coordinates: holes 1 and 2 overlap");
    /* two polygons overlapping */
    expect("{\"type\":\"MultiPolygon\",\"coordinates\":[[[[0,0],[2,0],[2,2],[0,2],[0,0]]],"
           "[[[1,1],[3,1],[3,3],[1,3],[1,1]]]]}",
           KCBP_ERR_GEOMETRY, "polygons of the file overlap");
    expect("{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}", KCBP_ERR_PARSE, "a LineString has no area");
    expect("{\"type\":\"Feature\",\"geometry\":null}", KCBP_ERR_GEOMETRY, "geometry: a null geometry");
    expect("{\"type\":\"Polygon\",\"coordinates\":[]}", KCBP_ERR_GEOMETRY, "an empty Polygon");
    expect("{\"type\":\"FeatureCollection\",\"features\":[]}", KCBP_ERR_GEOMETRY, "an empty FeatureCollection");
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1e400,0],[1,1],[0,0]]]}", KCBP_ERR_INVALID,
           "coordinates[0][1][0]: inf is not finite");
    expect("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[\"a\",0],[1,1],[0,0]]]}", KCBP_ERR_PARSE,
           "coordinates[0][1][0]: not a number");
    expect("{\"type\":\"Polygon\",\n\"coordinates\":[[[0,0],[1,0] [1,1],[0,0]]]}", KCBP_ERR_PARSE,
           "t.geojson:2:");
    expect("[1, 2]", KCBP_ERR_PARSE, "not GeoJSON");
}

static void test_load_file(void **state)
{
    (void)state;
    char path[] = "/tmp/kcbp_geojson2d_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    kcbp2d_model *m;
    kcbp_error e;
    assert_int_equal(kcbp2d_model_load(path, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_vertex_count(m), 3);
    kcbp2d_model_free(m);
    unlink(path);
    assert_int_equal(kcbp2d_model_load(path, &m, &e), KCBP_ERR_IO);
}

/* Mutated inputs (bytes replaced, deleted, duplicated; cut short): the
 * reader answers with a model or an error message, never crashes or leaks
 * (run under the sanitizers and valgrind by the hardening checks). */
static void test_mutations(void **state)
{
    (void)state;
    const char *seed = "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":[[[[0,0],[4,0],[4,4],[0,4],[0,0]],[[1,1],[1,3],[3,3],[3,1],[1,1]]],[[[5,0],[6,0],[6,1],[5,0]]]]}},{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[10,0],[11,0],[11,1e-3],[10,0]]]}}]}";
    size_t len = strlen(seed);
    static const char alphabet[] = "{}[],:\"0123456789.-eE <>/=MLZzCHVhvmltypeoinsPgrcdxw";
    uint64_t x = 12345;
    char *buf = malloc(2 * len + 8);
    assert_non_null(buf);
    int ok = 0;
    for (int trial = 0; trial < 4000; trial++) {
        memcpy(buf, seed, len + 1);
        size_t n = len;
        int edits = 1 + trial % 4;
        for (int k = 0; k < edits; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = (size_t)(x % n);
            switch ((x >> 20) % 4) {
            case 0: buf[at] = alphabet[(x >> 32) % (sizeof alphabet - 1)]; break;
            case 1: memmove(buf + at, buf + at + 1, n - at), n--; break;
            case 2: memmove(buf + at + 1, buf + at, n - at + 1), n++; break;
            default: n = at + 1, buf[n] = 0; break;
            }
            if (n < 2)
                break;
        }
        kcbp2d_model *m = NULL;
        kcbp_error e;
        memset(&e, 0, sizeof e);
        kcbp_status st = kcbp2d_model_parse_geojson(buf, n, "m.geojson", &m, &e);
        if (st == KCBP_OK) {
            assert_non_null(m);
            ok++;
        } else {
            assert_null(m);
            assert_true(e.msg[0] != 0);
        }
        kcbp2d_model_free(m);
    }
    free(buf);
    assert_true(ok > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
