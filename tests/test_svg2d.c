/* The SVG reader of 2D models (polygon2d.h): what it accepts, what it
 * refuses by name and where. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <kcbp/kcbp2d.h>

static kcbp_status parse(const char *text, kcbp2d_model **m, kcbp_error *e)
{
    return kcbp2d_model_parse_svg(text, strlen(text), "t.svg", KCBP2D_SVG_FLATTEN, m, e);
}

static bool collide_at(const kcbp2d_model *m, double x, double y, double size)
{
    kcbp_vec2 sq[4] = {{-size, -size}, {size, -size}, {size, size}, {-size, size}};
    kcbp2d_model *b;
    assert_int_equal(kcbp2d_model_build_polygon(sq, 4, &b, NULL), KCBP_OK);
    kcbp2d_pose id = kcbp2d_pose_identity(), at;
    assert_int_equal(kcbp2d_pose_from_angle(x, y, 0, &at, NULL), KCBP_OK);
    kcbp2d_model_collide_result r;
    assert_int_equal(kcbp2d_model_collide(m, &id, b, &at, NULL, &r, NULL), KCBP_OK);
    kcbp2d_model_free(b);
    return r.collide;
}

static void expect(const char *text, kcbp_status code, const char *needle);

static void test_accepts(void **state)
{
    (void)state;
    kcbp2d_model *m;
    kcbp_error e;
    /* a frame as one path (absolute outer ring, relative hole), a polygon,
     * a rect and a circle, in a group, with a comment */
    const char *svg = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\">\n"
                      "<!-- <circle r=\"-1\"/> -->\n<g fill=\"black\">\n"
                      "<path d=\"M0,0 L40,0 L40,40 L0,40 Z m10,10 h20 v20 h-20 z\" fill-rule=\"evenodd\"/>\n"
                      "<polygon points=\"100,0 110,0 105,8\"/>\n"
                      "<rect x=\"200\" y=\"0\" width=\"10\" height=\"5\"/>\n"
                      "<circle cx=\"300\" cy=\"0\" r=\"10\"/>\n</g></svg>\n";
    assert_int_equal(parse(svg, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_ring_count(m), 5);
    assert_true(collide_at(m, 5, 5, 1));       /* the frame's material */
    assert_false(collide_at(m, 20, 20, 1));    /* its hole */
    assert_true(collide_at(m, 105, 3, 0.5));   /* the triangle */
    assert_true(collide_at(m, 205, 2, 0.5));   /* the rect */
    assert_true(collide_at(m, 300, 0, 1));     /* inside the circle */
    assert_false(collide_at(m, 300, 11.1, 1)); /* beyond it */
    /* the circle's polygon: vertices on the circle, edges within 1e-4 r */
    kcbp2d_model_distance_result d;
    kcbp_vec2 pt[3] = {{-1e-9, 0}, {1e-9, 0}, {0, 1e-9}};
    kcbp2d_model *tiny;
    assert_int_equal(kcbp2d_model_build_polygon(pt, 3, &tiny, NULL), KCBP_OK);
    kcbp2d_pose id = kcbp2d_pose_identity(), at;
    for (double t = 0; t < 6.28; t += 0.37) {
        assert_int_equal(kcbp2d_pose_from_angle(300 + 12 * cos(t), 12 * sin(t), 0, &at, NULL), KCBP_OK);
        assert_int_equal(kcbp2d_model_distance(m, &id, tiny, &at, &d, NULL), KCBP_OK);
        assert_true(d.distance > 2 - 1e-6 && d.distance < 2 + 10 * 1e-4 + 1e-6);
    }
    kcbp2d_model_free(tiny);
    kcbp2d_model_free(m);
    /* a hole given as a separate polygon element inside a rect */
    const char *nested = "<svg><rect x=\"0\" y=\"0\" width=\"10\" height=\"10\"/>"
                         "<polygon points=\"2,2 2,8 8,8 8,2\"/></svg>";
    assert_int_equal(parse(nested, &m, &e), KCBP_OK);
    assert_false(collide_at(m, 5, 5, 1));
    assert_true(collide_at(m, 1, 5, 0.5));
    kcbp2d_model_free(m);
    /* shapes that touch (a map's parcels): two rects sharing an edge and a
     * triangle on both, whose first corner lies on a rect's outline (not a
     * hole: its side is taken at a corner off every outline) */
    const char *touching = "<svg><rect x=\"0\" y=\"0\" width=\"2\" height=\"2\"/>"
                           "<rect x=\"2\" y=\"0\" width=\"2\" height=\"2\"/>"
                           "<polygon points=\"0,2 4,2 2,4\"/></svg>";
    assert_int_equal(parse(touching, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_ring_count(m), 3);
    assert_true(collide_at(m, 2, 3, 0.1));   /* inside the triangle */
    assert_true(collide_at(m, 1, 1, 0.1));   /* inside a rect */
    assert_false(collide_at(m, 0.5, 3.5, 0.1)); /* beside the triangle */
    kcbp2d_model_free(m);
    /* overlapping shapes are still refused */
    expect("<svg><rect width=\"2\" height=\"2\"/><polygon points=\"1,1 4,1 2,4\"/></svg>", KCBP_ERR_GEOMETRY,
           "shapes overlap");
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
}

/* Shapes inside <defs>, <clipPath>, <mask>, <symbol>, <marker>, <pattern>
 * are not drawn where they stand: not read (a clip rectangle round two
 * parts was read as the sheet holding them as holes). */
static void test_hidden_elements(void **state)
{
    (void)state;
    const char *svg = "<svg><defs><clipPath id=\"c\"><rect width=\"50\" height=\"50\"/></clipPath></defs>"
                      "<rect x=\"10\" y=\"10\" width=\"5\" height=\"5\"/><defs/>"
                      "<symbol id=\"s\"><rect width=\"100\" height=\"100\"/></symbol>"
                      "<rect x=\"30\" y=\"30\" width=\"5px\" height=\"5\"/></svg>";
    kcbp2d_model *m;
    kcbp_error e;
    assert_int_equal(parse(svg, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_ring_count(m), 2);
    assert_int_equal(kcbp2d_model_vertex_count(m), 8);
    assert_false(collide_at(m, 1, 1, 0.5));
    assert_true(collide_at(m, 12, 12, 0.5));
    kcbp2d_model_free(m);
}

static void test_refuses(void **state)
{
    (void)state;
    expect("<svg>\n  <path d=\"M0,0 C1,1 2,2 3,0 Z\"/></svg>", KCBP_ERR_PARSE, "t.svg:2:17: path command 'C' draws a curve");
    expect("<svg><path d=\"M0,0 A1,1 0 0 1 3,0 Z\"/></svg>", KCBP_ERR_PARSE, "command 'A' draws a curve");
    expect("<svg><rect width=\"1\" height=\"1\" rx=\"0.2\"/></svg>", KCBP_ERR_PARSE, "rounded corners");
    expect("<svg><ellipse rx=\"1\" ry=\"2\"/></svg>", KCBP_ERR_PARSE, "<ellipse> is not read");
    expect("<svg><polyline points=\"0,0 1,0 1,1\"/></svg>", KCBP_ERR_PARSE, "<polyline> is not read");
    expect("<svg><g transform=\"scale(2)\"><rect width=\"1\" height=\"1\"/></g></svg>", KCBP_ERR_PARSE,
           "transform attribute");
    expect("<svg><polygon points=\"0,0 1,0 1\"/></svg>", KCBP_ERR_PARSE, "odd count");
    expect("<svg><polygon points=\"0,0 1,0 0,1 1,1\"/></svg>", KCBP_ERR_GEOMETRY, "cross or touch");
    expect("<svg><rect width=\"2\" height=\"2\"/><rect x=\"1\" y=\"1\" width=\"2\" height=\"2\"/></svg>",
           KCBP_ERR_GEOMETRY, "t.svg");
    expect("<svg><circle r=\"0\"/></svg>", KCBP_ERR_GEOMETRY, "radius 0");
    expect("<svg><rect width=\"1\"/></svg>", KCBP_ERR_PARSE, "attribute height is missing");
    expect("<svg></svg>", KCBP_ERR_GEOMETRY, "nothing to collide");
    /* what would be drawn elsewhere than read: lengths in other units, a
     * transform in a style, <use> (they were read as if in user units, at
     * the definition's place) */
    expect("<svg><rect width=\"5cm\" height=\"1\"/></svg>", KCBP_ERR_PARSE, "attribute width has the unit 'cm'");
    expect("<svg><circle r=\"50%\"/></svg>", KCBP_ERR_PARSE, "attribute r has the unit '%'");
    expect("<svg><rect width=\"1\" height=\"1\" style=\"transform: rotate(45deg)\"/></svg>", KCBP_ERR_PARSE,
           "a transform attribute");
    expect("<svg><defs><rect id=\"r\" width=\"1\" height=\"1\"/></defs><use href=\"#r\" x=\"5\"/></svg>",
           KCBP_ERR_PARSE, "<use> is not expanded");
    expect("<svg><polygon points=\"0,0 1,0 0,1\"", KCBP_ERR_PARSE, "not closed");
}

/* Mutated inputs (bytes replaced, deleted, duplicated; cut short): the
 * reader answers with a model or an error message, never crashes or leaks
 * (run under the sanitizers and valgrind by the hardening checks). */
static void test_mutations(void **state)
{
    (void)state;
    const char *seed = "<svg><!-- c --><g><path d=\"M0,0 L40,0 L40,40 L0,40 Z m10,10 h20 v20 h-20 z\"/><polygon points=\"100,0 110,0 105,8\"/><rect x=\"200\" y=\"0\" width=\"10\" height=\"5\"/><circle cx=\"300\" cy=\"0\" r=\"10\"/></g></svg>";
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
        kcbp_status st = kcbp2d_model_parse_svg(buf, n, "m.svg", KCBP2D_SVG_FLATTEN, &m, &e);
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

/* Found by reading for the fuzz target: a number longer than the reader's
 * 56-character copy was cut, its tail read as a second number; and a
 * comment left open at the end searched on past the text (strstr on text
 * that need not end in a NUL). */
static void test_long_numbers_and_open_comment(void **state)
{
    (void)state;
    kcbp2d_model *m;
    kcbp_error e;
    char text[512];
    /* 10 written with 70 more zeros after the point: still 10, and six numbers */
    snprintf(text, sizeof text, "<svg><polygon points=\"0,0 10.%070d,0 0,10\"/></svg>", 0);
    assert_int_equal(parse(text, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_vertex_count(m), 3);
    assert_true(kcbp2d_model_vertices(m)[1].x == 10);
    kcbp2d_model_free(m);
    /* the text exactly as long as its bytes (no NUL after it): an open
     * comment ends the text, leaving the polygon before it */
    static const char open[] = "<svg><polygon points=\"0,0 1,0 0,1\"/><!-- no end";
    size_t n = sizeof open - 1;
    char *exact = malloc(n);
    assert_non_null(exact);
    memcpy(exact, open, n);
    assert_int_equal(kcbp2d_model_parse_svg(exact, n, "t.svg", KCBP2D_SVG_FLATTEN, &m, &e), KCBP_OK);
    assert_int_equal(kcbp2d_model_vertex_count(m), 3);
    kcbp2d_model_free(m);
    free(exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_hidden_elements),
        cmocka_unit_test(test_long_numbers_and_open_comment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
