/* glTF scene graphs with very many nodes, meshes, primitives and accessors
 * (issue 33): the reader indexes cJSON's arrays (linked lists) once, so a
 * file of 200,000 nodes loads (it did not finish when every node was
 * reached by walking the list from its head). Not timed: each file must
 * load, and be read right: every node's triangle where its transforms put
 * it, in the order of the depth-first walk; the errors still name the
 * element at fault deep in a long array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mesh/read.h"
#include "testutil.h"

/* ---- a JSON text built up, and a .glb around it ---- */

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

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* One triangle (0,0,0) (1,0,0) (0,1,0) in buffer 0: 36 bytes. */
static const char head[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36}],"
                           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],";

/* Parses the JSON j as a .glb with that triangle as its BIN chunk. */
static kcbp_status parse_glb(text *j, kcbp_mesh *mesh, kcbp_error *err)
{
    while (j->n % 4)
        put(j, " ");
    size_t total = 12 + 8 + j->n + 8 + 36;
    unsigned char *d = malloc(total);
    assert_non_null(d);
    put32(d, 0x46546C67u);
    put32(d + 4, 2);
    put32(d + 8, (uint32_t)total);
    put32(d + 12, (uint32_t)j->n);
    put32(d + 16, 0x4E4F534Au);
    memcpy(d + 20, j->s, j->n);
    unsigned char *b = d + 20 + j->n;
    put32(b, 36);
    put32(b + 4, 0x004E4942u);
    static const float tri[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int i = 0; i < 9; i++) {
        uint32_t u;
        memcpy(&u, &tri[i], 4);
        put32(b + 8 + 4 * i, u);
    }
    kcbp_status st = kcbp_gltf_parse("many.glb", (const char *)d, total, mesh, err);
    free(d);
    free(j->s);
    *j = (text){0};
    return st;
}

/* Triangle k of the mesh is the unit triangle moved by (x, y, 0). */
static void assert_placed(const kcbp_mesh *m, uint32_t k, double x, double y)
{
    const kcbp_tri *t = &m->triangles[k];
    const kcbp_vec3 *a = &m->vertices[t->v[0]], *b = &m->vertices[t->v[1]], *c = &m->vertices[t->v[2]];
    assert_true(a->x == x && a->y == y && a->z == 0);
    assert_true(b->x == x + 1 && b->y == y && b->z == 0);
    assert_true(c->x == x && c->y == y + 1 && c->z == 0);
}

static void one_accessor_one_mesh(text *j)
{
    put(j, "%s\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
           "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],",
        head);
}

/* 200,000 nodes, no scene: every node a root, each placing mesh 0 at (i, 0). */
static void test_200k_roots(void **state)
{
    (void)state;
    enum { N = 200000 };
    text j = {0};
    one_accessor_one_mesh(&j);
    put(&j, "\"nodes\":[");
    for (int i = 0; i < N; i++)
        put(&j, "%s{\"mesh\":0,\"translation\":[%d,0,0]}", i ? "," : "", i);
    put(&j, "]}");
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = parse_glb(&j, &m, &err);
    if (st != KCBP_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m.nvertices, 3 * N);
    assert_int_equal(m.ntriangles, N);
    for (uint32_t k = 0; k < N; k += 997)
        assert_placed(&m, k, k, 0);
    assert_placed(&m, N - 1, N - 1, 0);
    kcbp_mesh_clear(&m);
}

/* One root at (0, 5) with 50,000 children, listed in reverse, each at
 * (i, 0) in its parent's frame; and the same nodes listed as a scene's
 * roots. */
static void test_many_children_and_scene_roots(void **state)
{
    (void)state;
    enum { N = 50000 };
    for (int scene = 0; scene < 2; scene++) {
        text j = {0};
        one_accessor_one_mesh(&j);
        if (!scene) {
            put(&j, "\"nodes\":[{\"translation\":[0,5,0],\"children\":[");
            for (int i = N; i >= 1; i--)
                put(&j, "%s%d", i < N ? "," : "", i);
            put(&j, "]}");
        } else {
            put(&j, "\"scene\":0,\"scenes\":[{\"nodes\":[");
            for (int i = N; i >= 1; i--)
                put(&j, "%s%d", i < N ? "," : "", i);
            put(&j, "]}],\"nodes\":[{}");
        }
        for (int i = 1; i <= N; i++)
            put(&j, ",{\"mesh\":0,\"translation\":[%d,0,0]}", i);
        put(&j, "]}");
        kcbp_mesh m;
        kcbp_error err;
        kcbp_status st = parse_glb(&j, &m, &err);
        if (st != KCBP_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(m.ntriangles, N);
        /* Children are walked in their listed order: node N first. */
        for (uint32_t k = 0; k < N; k += 499)
            assert_placed(&m, k, N - k, scene ? 0 : 5);
        kcbp_mesh_clear(&m);
    }
}

/* Chains 900 deep (the limit is 1,000), 45,000 nodes in all, each node one
 * unit further along x than its parent. */
static void test_deep_chains(void **state)
{
    (void)state;
    enum { N = 45000, DEEP = 900 };
    text j = {0};
    one_accessor_one_mesh(&j);
    put(&j, "\"nodes\":[{\"children\":[");
    for (int c = 0; c < N / DEEP; c++)
        put(&j, "%s%d", c ? "," : "", 1 + c * DEEP);
    put(&j, "]}");
    for (int i = 1; i <= N; i++) {
        if (i % DEEP)
            put(&j, ",{\"mesh\":0,\"translation\":[1,0,0],\"children\":[%d]}", i + 1);
        else
            put(&j, ",{\"mesh\":0,\"translation\":[1,0,0]}");
    }
    put(&j, "]}");
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = parse_glb(&j, &m, &err);
    if (st != KCBP_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m.ntriangles, N);
    for (uint32_t k = 0; k < N; k += 37)
        assert_placed(&m, k, k % DEEP + 1, 0);
    kcbp_mesh_clear(&m);
}

/* One mesh of 50,000 primitives, each its own POSITION accessor, placed by
 * two nodes: 2 × 50,000 triangles and as many vertex triples (an accessor
 * is placed once per node); then primitives all sharing accessor 0: its
 * vertices placed once per node. */
static void test_many_primitives(void **state)
{
    (void)state;
    enum { N = 50000 };
    for (int shared = 0; shared < 2; shared++) {
        text j = {0};
        put(&j, "%s\"accessors\":[", head);
        for (int i = 0; i < (shared ? 1 : N); i++)
            put(&j, "%s{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}", i ? "," : "");
        put(&j, "],\"meshes\":[{\"primitives\":[");
        for (int i = 0; i < N; i++)
            put(&j, "%s{\"attributes\":{\"POSITION\":%d}}", i ? "," : "", shared ? 0 : i);
        put(&j, "]}],\"nodes\":[{\"mesh\":0},{\"mesh\":0,\"translation\":[0,7,0]}]}");
        kcbp_mesh m;
        kcbp_error err;
        kcbp_status st = parse_glb(&j, &m, &err);
        if (st != KCBP_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(m.ntriangles, 2 * N);
        assert_int_equal(m.nvertices, shared ? 6 : 6 * N);
        for (uint32_t k = 0; k < 2 * N; k += 101)
            assert_placed(&m, k, 0, k < N ? 0 : 7);
        if (shared)
            for (uint32_t k = 0; k < 2 * N; k += 101)
                assert_int_equal(m.triangles[k].v[0], k < N ? 0 : 3);
        kcbp_mesh_clear(&m);
    }
}

/* Errors deep in long arrays still name their element. */
static void expect_error(text *j, const char *want)
{
    kcbp_mesh m;
    kcbp_error err;
    kcbp_status st = parse_glb(j, &m, &err);
    assert_int_equal(st, KCBP_ERR_PARSE);
    if (!strstr(err.msg, want))
        fail_msg("expected \"%s\" in: %s", want, err.msg);
}

static void test_errors_deep(void **state)
{
    (void)state;
    enum { N = 30000 };
    text j = {0};
    /* A child index past the nodes, the 20,000th child. */
    one_accessor_one_mesh(&j);
    put(&j, "\"nodes\":[{\"children\":[");
    for (int i = 1; i <= N; i++)
        put(&j, "%s%d", i > 1 ? "," : "", i == 20000 ? N + 5 : i);
    put(&j, "]}");
    for (int i = 1; i <= N; i++)
        put(&j, ",{\"mesh\":0}");
    put(&j, "]}");
    expect_error(&j, "nodes[0].children[19999]: expected the index of a node (0 to 30000)");
    /* A mesh that does not exist, on node 25,000. */
    one_accessor_one_mesh(&j);
    put(&j, "\"nodes\":[");
    for (int i = 0; i < N; i++)
        put(&j, "%s{\"mesh\":%d}", i ? "," : "", i == 25000 ? 3 : 0);
    put(&j, "]}");
    expect_error(&j, "nodes[25000]: meshes 3 does not exist (the file has 1)");
    /* A scene root that is not a node index, the 29,000th. */
    one_accessor_one_mesh(&j);
    put(&j, "\"scenes\":[{\"nodes\":[");
    for (int i = 0; i < N; i++) {
        if (i == 28999)
            put(&j, ",\"x\"");
        else
            put(&j, "%s%d", i ? "," : "", i);
    }
    put(&j, "]}],\"nodes\":[");
    for (int i = 0; i < N; i++)
        put(&j, "%s{\"mesh\":0}", i ? "," : "");
    put(&j, "]}");
    expect_error(&j, "scenes[0].nodes[28999]: expected the index of a node");
    /* Primitive 40,000 not an object. */
    put(&j, "%s\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
            "\"meshes\":[{\"primitives\":[",
        head);
    for (int i = 0; i < 50000; i++)
        put(&j, "%s%s", i ? "," : "", i == 40000 ? "7" : "{\"attributes\":{\"POSITION\":0}}");
    put(&j, "]}],\"nodes\":[{\"mesh\":0}]}");
    expect_error(&j, "meshes[0].primitives[40000]: expected an object");
    /* An accessor index past the 20,000 accessors. */
    put(&j, "%s\"accessors\":[", head);
    for (int i = 0; i < 20000; i++)
        put(&j, "%s{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}", i ? "," : "");
    put(&j, "],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":19999}},"
            "{\"attributes\":{\"POSITION\":20000}}]}],\"nodes\":[{\"mesh\":0}]}");
    expect_error(&j, "meshes[0].primitives[1].attributes.POSITION: accessors 20000 does not exist (the file has "
                     "20000)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_200k_roots),
        cmocka_unit_test(test_many_children_and_scene_roots),
        cmocka_unit_test(test_deep_chains),
        cmocka_unit_test(test_many_primitives),
        cmocka_unit_test(test_errors_deep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
