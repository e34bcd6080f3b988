/* kcbp_self_intersections on hand-made cases whose answers are known: the
 * rules for triangles sharing an edge or a vertex, coplanar folds, repeated
 * faces, meshes that repeat their vertices, and `kcbp self`. Then the
 * certificates that let the traversal skip pairs (flat patches, vertex
 * stars, triangles resting on a patch: src/query/self.c) against the brute
 * force over all pairs, on flat stars (the polygons), fans, cones,
 * squares and annuli in one plane, strips standing on a flat face, random
 * soups on a coarse grid and bundled meshes rounded to one, each also with
 * the fault a certificate must catch; and two deliberately unsound
 * certificates, to show the comparison catches them. CGAL's
 * self_intersections is the oracle of bench/self.sh (self_cgal --pairs) and
 * of `make stress` (solid_exact self). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#include "query/self_internal.h"

/* The pairs of the mesh (v, t), every one. */
static size_t self_pairs(const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt, kcbp_contact **pairs)
{
    kcbp_model m;
    test_model_from_arrays(&m, v, nv, t, nt);
    kcbp_error err = {0};
    size_t n, nfirst;
    kcbp_contact *first;
    assert_int_equal(kcbp_self_intersections(&m, KCBP_CONTACTS_ALL, pairs, &n, NULL, &err), KCBP_OK);
    assert_int_equal(kcbp_self_intersections(&m, KCBP_CONTACTS_FIRST, &first, &nfirst, NULL, &err), KCBP_OK);
    assert_int_equal(nfirst, n > 0);
    if (nfirst) { /* FIRST finds one of ALL's pairs */
        bool found = false;
        for (size_t i = 0; i < n; i++)
            found |= (*pairs)[i].a == first->a && (*pairs)[i].b == first->b;
        assert_true(found);
    }
    for (size_t i = 0; i < n; i++) {
        assert_true((*pairs)[i].a < (*pairs)[i].b);
        if (i)
            assert_true((*pairs)[i - 1].a < (*pairs)[i].a ||
                        ((*pairs)[i - 1].a == (*pairs)[i].a && (*pairs)[i - 1].b < (*pairs)[i].b));
    }
    free(first);
    kcbp_model_free(&m);
    return n;
}

static size_t count_pairs(const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt)
{
    kcbp_contact *p;
    size_t n = self_pairs(v, nv, t, nt, &p);
    free(p);
    return n;
}

static void test_shared_edge(void **state)
{
    (void)state;
    /* u = 0, v = 1 shared; 2 and 3 the other vertices. */
    kcbp_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0.3, 1, 0}, {0.6, -1, 0}};
    kcbp_tri t[2] = {{{0, 1, 2}}, {{1, 0, 3}}};
    assert_int_equal(count_pairs(v, 4, t, 2), 0); /* a flat quad */
    v[3] = kcbp_v3(0.6, 1, 0);                     /* folded onto the first: overlap */
    assert_int_equal(count_pairs(v, 4, t, 2), 1);
    v[3] = kcbp_v3(0.6, 1, 1e-300); /* off the plane by a hair: a dihedral angle of almost 0, only the edge */
    assert_int_equal(count_pairs(v, 4, t, 2), 0);
    v[3] = kcbp_v3(0.6, -1, 0.5); /* bent: only the edge */
    assert_int_equal(count_pairs(v, 4, t, 2), 0);
    /* Two segments on the edge's line (degenerate triangles) running past
     * the same end overlap; past opposite ends they do not. */
    kcbp_vec3 w[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
    assert_int_equal(count_pairs(w, 4, t, 2), 1);
    w[3] = kcbp_v3(-1, 0, 0);
    assert_int_equal(count_pairs(w, 4, t, 2), 0);
}

static void test_shared_vertex(void **state)
{
    (void)state;
    kcbp_vec3 v[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2, 0.2, -1}, {0.2, 0.2, 1}};
    kcbp_tri t[2] = {{{0, 1, 2}}, {{0, 3, 4}}};
    assert_int_equal(count_pairs(v, 5, t, 2), 1); /* the opposite edge 3-4 pierces the first */
    v[3] = kcbp_v3(-0.2, -0.2, -1), v[4] = kcbp_v3(-0.2, -0.2, 1);
    assert_int_equal(count_pairs(v, 5, t, 2), 0); /* they meet at vertex 0 only */
    /* Coplanar wedges overlapping near the shared vertex. */
    v[3] = kcbp_v3(1, 1, 0), v[4] = kcbp_v3(2, 0.5, 0);
    assert_int_equal(count_pairs(v, 5, t, 2), 1);
    /* Touching the shared vertex's opposite edge at a point: counts. */
    v[3] = kcbp_v3(0.5, 0.5, -1), v[4] = kcbp_v3(0.5, 0.5, 1);
    assert_int_equal(count_pairs(v, 5, t, 2), 1);
}

static void test_apart_crossing_repeated(void **state)
{
    (void)state;
    kcbp_vec3 v[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.2, 0.2, -1}, {0.3, 0.2, 1}, {0.2, 0.3, 1}};
    kcbp_tri t[3] = {{{0, 1, 2}}, {{3, 4, 5}}, {{2, 1, 0}}};
    assert_int_equal(count_pairs(v, 6, t, 2), 1); /* crossing, no shared vertex */
    kcbp_contact *p;
    assert_int_equal(self_pairs(v, 6, t, 3, &p), 3); /* a repeated face: with itself, and both with the third */
    assert_int_equal(p[0].a, 0);
    assert_int_equal(p[0].b, 1);
    free(p);
    for (int i = 3; i < 6; i++)
        v[i].z += 2;
    assert_int_equal(count_pairs(v, 6, t, 2), 0);
}

/* A closed box does not intersect itself, even with every face's vertices
 * repeated (identified by coordinates); one corner pushed through the
 * opposite face makes it. */
static void test_box(void **state)
{
    (void)state;
    kcbp_model box;
    test_model_box(&box, kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 1));
    kcbp_vec3 v[36];
    kcbp_tri t[12];
    for (uint32_t i = 0; i < 12; i++) {
        for (int k = 0; k < 3; k++)
            v[3 * i + k] = box.impl->mesh.vertices[box.impl->mesh.triangles[i].v[k]];
        t[i] = (kcbp_tri){{3 * i, 3 * i + 1, 3 * i + 2}};
    }
    assert_int_equal(count_pairs(box.impl->mesh.vertices, box.impl->mesh.nvertices, box.impl->mesh.triangles, 12), 0);
    assert_int_equal(count_pairs(v, 36, t, 12), 0);
    /* Vertex 0's position moved to (1.5, 0.5, 0.5): through the face x = 1. */
    kcbp_vec3 moved[8];
    memcpy(moved, box.impl->mesh.vertices, sizeof moved);
    uint32_t corner = box.impl->mesh.triangles[0].v[0];
    moved[corner] = kcbp_v3(1.5, 0.5, 0.5);
    assert_true(count_pairs(moved, 8, box.impl->mesh.triangles, 12) > 0);
    kcbp_model_free(&box);
}

/* ------------------------------------------ certificates against brute force */

/* A growing mesh. */
typedef struct {
    kcbp_vec3 *v;
    kcbp_tri *t;
    size_t nv, nt, capv, capt;
} mbuild;

static uint32_t mb_v(mbuild *m, double x, double y, double z)
{
    if (m->nv == m->capv) {
        m->capv = m->capv ? 2 * m->capv : 64;
        m->v = realloc(m->v, m->capv * sizeof *m->v);
        assert_non_null(m->v);
    }
    m->v[m->nv] = kcbp_v3(x, y, z);
    return (uint32_t)m->nv++;
}

static void mb_t(mbuild *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (m->nt == m->capt) {
        m->capt = m->capt ? 2 * m->capt : 64;
        m->t = realloc(m->t, m->capt * sizeof *m->t);
        assert_non_null(m->t);
    }
    m->t[m->nt++] = (kcbp_tri){{a, b, c}};
}

static void mb_free(mbuild *m)
{
    free(m->v);
    free(m->t);
    memset(m, 0, sizeof *m);
}

static void model_of(kcbp_model *model, kcbp_mesh *mesh)
{
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 0;
    kcbp_error err = {0};
    if (kcbp_model_build_from(model, mesh, &mo, &err) != KCBP_OK)
        fail_msg("building a test model: %s", err.msg);
}

/* The pairs of the model found a given way (ALL). */
static size_t pairs_how(const kcbp_model *m, kcbp_self_how how, kcbp_contact **p, kcbp_tree_stats *stats)
{
    size_t n;
    kcbp_error err = {0};
    assert_int_equal(kcbp_self_intersections_how(m, KCBP_CONTACTS_ALL, how, p, &n, stats, &err), KCBP_OK);
    return n;
}

static bool same_pairs(const kcbp_contact *p, size_t n, const kcbp_contact *q, size_t m)
{
    return n == m && (n == 0 || memcmp(p, q, n * sizeof *p) == 0);
}

/* The certified traversal, the tree alone and the brute force over all
 * pairs find the same pairs (and FIRST one of them); returns how many, and
 * the triangle pairs the certified traversal tested. */
static size_t check_model(const kcbp_model *m, const char *what, uint64_t *tested)
{
    kcbp_contact *cert, *tree, *brute;
    kcbp_tree_stats st;
    size_t nc = pairs_how(m, KCBP_SELF_CERTIFIED, &cert, &st);
    size_t nt = pairs_how(m, KCBP_SELF_TREE_ONLY, &tree, NULL);
    size_t nb = pairs_how(m, KCBP_SELF_BRUTE_FORCE, &brute, NULL);
    if (!same_pairs(cert, nc, brute, nb) || !same_pairs(tree, nt, brute, nb))
        fail_msg("%s: certified %zu pairs, tree %zu, brute force %zu", what, nc, nt, nb);
    kcbp_contact *first;
    size_t nfirst;
    kcbp_error err = {0};
    assert_int_equal(kcbp_self_intersections(m, KCBP_CONTACTS_FIRST, &first, &nfirst, NULL, &err), KCBP_OK);
    assert_int_equal(nfirst, nb > 0);
    if (nfirst) {
        bool found = false;
        for (size_t i = 0; i < nb; i++)
            found |= brute[i].a == first->a && brute[i].b == first->b;
        assert_true(found);
    }
    free(first);
    free(cert);
    free(tree);
    free(brute);
    if (tested)
        *tested = st.tri_pairs;
    return nb;
}

static size_t check_mb(mbuild *b, const char *what, uint64_t *tested)
{
    kcbp_mesh mesh;
    kcbp_error err = {0};
    assert_int_equal(kcbp_mesh_init(&mesh, b->v, b->nv, b->t, b->nt, &err), KCBP_OK);
    kcbp_model m;
    model_of(&m, &mesh);
    size_t n = check_model(&m, what, tested);
    kcbp_model_free(&m);
    return n;
}

/* A model from OBJ text. */
static void model_obj(kcbp_model *m, const char *text, size_t len)
{
    kcbp_mesh mesh;
    kcbp_error err = {0};
    if (kcbp_obj_parse_into("t.obj", text, len, &mesh, &err) != KCBP_OK)
        fail_msg("%s", err.msg);
    model_of(m, &mesh);
}

/* A star of n sides (radii 1 and 0.5) as one OBJ face, in z = 0, or in
 * z = x + 2 y exactly (coordinates on a grid of 2^-20); with fold, vertex
 * fold (an inner one) moved across the star after the reader cut it (the
 * triangles are cut first, then the vertex moves). */
static void model_star(kcbp_model *m, size_t n, bool tilted, long fold)
{
    size_t cap = 80 * n + 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++) {
        double a = 2 * 3.14159265358979323846 * (double)i / (double)n, r = i % 2 ? 0.5 : 1;
        double x = nearbyint(r * cos(a) * 0x1p20) * 0x1p-20, y = nearbyint(r * sin(a) * 0x1p20) * 0x1p-20;
        len += (size_t)snprintf(text + len, cap - len, "v %.17g %.17g %.17g\n", x, y, tilted ? x + 2 * y : 0);
    }
    len += (size_t)snprintf(text + len, cap - len, "f");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, " %zu", i + 1);
    len += (size_t)snprintf(text + len, cap - len, "\n");
    model_obj(m, text, len);
    free(text);
    if (fold >= 0) { /* rebuild from the cut triangles with the vertex moved */
        kcbp_mesh mesh;
        kcbp_error err = {0};
        const kcbp_mesh *src = &m->impl->mesh;
        assert_int_equal(kcbp_mesh_init(&mesh, src->vertices, src->nvertices, src->triangles, src->ntriangles, &err),
                         KCBP_OK);
        kcbp_model_free(m);
        mesh.vertices[fold] = kcbp_v3(-0.3, 0.1, tilted ? -0.3 + 0.2 : 0);
        model_of(m, &mesh);
    }
}

static void test_flat_star(void **state)
{
    (void)state;
    kcbp_model m;
    uint64_t tested;
    /* The flat stars: proved apart whole, not a triangle pair tested. */
    model_star(&m, 1000, false, -1);
    assert_int_equal(check_model(&m, "star", &tested), 0);
    assert_int_equal(tested, 0);
    kcbp_model_free(&m);
    model_star(&m, 1000, true, -1);
    assert_int_equal(check_model(&m, "tilted star", &tested), 0);
    assert_int_equal(tested, 0);
    kcbp_model_free(&m);
    /* Folded in its plane: found, by the tree's tests. */
    model_star(&m, 1000, false, 501);
    assert_true(check_model(&m, "folded star", NULL) > 0);
    kcbp_model_free(&m);
    model_star(&m, 1000, true, 501);
    assert_true(check_model(&m, "folded tilted star", NULL) > 0);
    kcbp_model_free(&m);
    /* The 30,000 sides (no brute force: 4.5 10^8 pairs). */
    model_star(&m, 30000, false, -1);
    kcbp_contact *p;
    kcbp_tree_stats st;
    assert_int_equal(pairs_how(&m, KCBP_SELF_CERTIFIED, &p, &st), 0);
    assert_int_equal(st.tri_pairs, 0);
    free(p);
    kcbp_model_free(&m);
}

/* A disc fanned from its centre (n triangles, in z = 0), a cone fanned from
 * its apex over the same rim; with a closed base (one more fan, from rim
 * vertex 1) when base. Rim vertices 1 .. n, centre or apex 0. */
static void disc_or_cone(mbuild *b, int n, double apex, bool base)
{
    mb_v(b, 0, 0, apex);
    for (int i = 0; i < n; i++)
        mb_v(b, cos(2 * 3.14159265358979323846 * i / n), sin(2 * 3.14159265358979323846 * i / n), 0);
    for (int i = 0; i < n; i++)
        mb_t(b, 0, 1 + (uint32_t)i, 1 + (uint32_t)((i + 1) % n));
    if (base)
        for (int i = 1; i + 1 < n; i++)
            mb_t(b, 1, 2 + (uint32_t)i, 1 + (uint32_t)i);
}

static void test_fans(void **state)
{
    (void)state;
    mbuild b = {0};
    uint64_t tested;
    disc_or_cone(&b, 300, 0, false);
    assert_int_equal(check_mb(&b, "disc", &tested), 0);
    assert_int_equal(tested, 0);
    mb_t(&b, b.t[17].v[0], b.t[17].v[1], b.t[17].v[2]); /* a repeated triangle */
    /* with its twin only: its neighbours are across the edges they share */
    assert_int_equal(check_mb(&b, "disc, a triangle twice", NULL), 1);
    mb_free(&b);
    disc_or_cone(&b, 300, 0, false);
    b.v[11] = kcbp_v3(0.5 * cos(2 * 3.14159265358979323846 * 11.5 / 300), 0.5 * sin(2 * 3.14159265358979323846 * 11.5 / 300), 0);
    assert_true(check_mb(&b, "disc, a rim vertex pulled in", NULL) > 0);
    mb_free(&b);
    disc_or_cone(&b, 300, 1, true); /* a closed cone */
    assert_int_equal(check_mb(&b, "cone", &tested), 0);
    assert_int_equal(tested, 0);
    kcbp_vec3 t = b.v[31]; /* two rim vertices swapped: the apex's link folds */
    b.v[31] = b.v[32];
    b.v[32] = t;
    assert_true(check_mb(&b, "cone, two rim vertices swapped", NULL) > 0);
    mb_free(&b);
    /* A cone whose rim goes round twice (the second time a little wider):
     * its apex's link winds twice. */
    mb_v(&b, 0, 0, 1);
    for (int i = 0; i < 300; i++) {
        double r = i < 150 ? 1 : 1.1;
        mb_v(&b, r * cos(4 * 3.14159265358979323846 * i / 300), r * sin(4 * 3.14159265358979323846 * i / 300), 0);
    }
    for (int i = 0; i < 300; i++)
        mb_t(&b, 0, 1 + (uint32_t)i, 1 + (uint32_t)((i + 1) % 300));
    assert_true(check_mb(&b, "cone going round twice", NULL) > 0);
    kcbp_mesh mesh;
    kcbp_error err = {0};
    kcbp_model m;
    assert_int_equal(kcbp_mesh_init(&mesh, b.v, b.nv, b.t, b.nt, &err), KCBP_OK);
    model_of(&m, &mesh);
    kcbp_contact *p, *q;
    size_t n = pairs_how(&m, KCBP_SELF_BRUTE_FORCE, &p, NULL), nu = pairs_how(&m, KCBP_SELF_UNSOUND_NO_LINK, &q, NULL);
    /* The link's check is what finds it: without it, the star is
     * "certified" and the pair missed. */
    assert_false(same_pairs(p, n, q, nu));
    free(p);
    free(q);
    kcbp_model_free(&m);
    mb_free(&b);
}

/* An s x s square of k x k cells at (x, y, 0), two triangles a cell. */
static void grid_square(mbuild *b, double x, double y, double s, int k)
{
    uint32_t base = (uint32_t)b->nv;
    for (int j = 0; j <= k; j++)
        for (int i = 0; i <= k; i++)
            mb_v(b, x + s * i / k, y + s * j / k, 0);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            uint32_t a = base + (uint32_t)(j * (k + 1) + i);
            mb_t(b, a, a + 1, a + (uint32_t)k + 2);
            mb_t(b, a, a + (uint32_t)k + 2, a + (uint32_t)k + 1);
        }
}

/* An annulus in z = 0 between radii r0 and r1, n sectors, counter-clockwise
 * seen from above (turn > 0), with z lifted by dz per turn of angle a (a
 * spiral strip, overlapping itself, when it goes round more than once). */
static void annulus(mbuild *b, int n, double r0, double r1, double turns, double grow)
{
    uint32_t base = (uint32_t)b->nv;
    int m = (int)(n * turns);
    bool closed = turns == 1;
    for (int i = 0; i < (closed ? n : m + 1); i++) {
        double a = 2 * 3.14159265358979323846 * i / n, g = grow * i / n;
        mb_v(b, (r1 + g) * cos(a), (r1 + g) * sin(a), 0);
        mb_v(b, (r0 + g) * cos(a), (r0 + g) * sin(a), 0);
    }
    for (int i = 0; i < (closed ? n : m); i++) {
        uint32_t o0 = base + 2 * (uint32_t)i, o1 = base + 2 * (uint32_t)((closed ? (i + 1) % n : i + 1));
        mb_t(b, o0, o1, o1 + 1);
        mb_t(b, o0, o1 + 1, o0 + 1);
    }
}

static void test_flat_patches(void **state)
{
    (void)state;
    mbuild b = {0};
    uint64_t tested;
    grid_square(&b, 0, 0, 1, 6);
    grid_square(&b, 1.5, 0, 1, 6);
    assert_int_equal(check_mb(&b, "two squares apart", &tested), 0);
    assert_int_equal(tested, 0);
    mb_free(&b);
    grid_square(&b, 0, 0, 1, 6);
    grid_square(&b, 1, 0, 1, 6); /* sharing an edge's points: welded */
    assert_int_equal(check_mb(&b, "two squares side by side", NULL), 0);
    mb_free(&b);
    grid_square(&b, 0, 0, 1, 6);
    grid_square(&b, 1, 0.5, 1, 5); /* vertices on the other's edges */
    assert_true(check_mb(&b, "two squares with T-junctions", NULL) > 0);
    mb_free(&b);
    grid_square(&b, 0, 0, 1, 6);
    grid_square(&b, 0.5, 0.5, 1, 6);
    assert_true(check_mb(&b, "two squares overlapping", NULL) > 0);
    mb_free(&b);
    /* An annulus (certified with its hole), an island in the hole, apart;
     * an island on the annulus; the annulus twice (wound twice). */
    annulus(&b, 64, 0.5, 1, 1, 0);
    uint32_t c = mb_v(&b, 0, 0, 0), c2 = mb_v(&b, 0.7, 0, 0);
    for (int i = 0; i < 16; i++) {
        double a = 2 * 3.14159265358979323846 * i / 16;
        mb_v(&b, 0.2 * cos(a), 0.2 * sin(a), 0);
    }
    for (uint32_t i = 0; i < 16; i++)
        mb_t(&b, c, c2 + 1 + i, c2 + 1 + (i + 1) % 16);
    assert_int_equal(check_mb(&b, "annulus and an island in its hole", &tested), 0);
    assert_int_equal(tested, 0);
    for (uint32_t i = 0; i < 16; i++)
        b.v[c2 + 1 + i].x += 0.7;
    b.v[c].x += 0.7;
    assert_true(check_mb(&b, "annulus and an island on it", NULL) > 0);
    mb_free(&b);
    annulus(&b, 64, 0.5, 1, 1, 0);
    annulus(&b, 64, 0.5, 1, 1, 0);
    for (size_t i = b.nv / 2; i < b.nv; i++) /* the copy a hair apart: not welded */
        b.v[i].x = nextafter(b.v[i].x, 2);
    assert_true(check_mb(&b, "annulus twice", NULL) > 0);
    mb_free(&b);
    /* A strip going round 1.5 times, growing: it overlaps itself, with
     * every triangle turning the same way and every edge used once each
     * way: only its boundary, which crosses itself, tells. */
    annulus(&b, 48, 1, 2, 1.5, 0.3);
    assert_true(check_mb(&b, "a strip round 1.5 times", NULL) > 0);
    kcbp_mesh mesh;
    kcbp_error err = {0};
    kcbp_model m;
    assert_int_equal(kcbp_mesh_init(&mesh, b.v, b.nv, b.t, b.nt, &err), KCBP_OK);
    model_of(&m, &mesh);
    kcbp_contact *p, *q;
    size_t n = pairs_how(&m, KCBP_SELF_BRUTE_FORCE, &p, NULL), nu = pairs_how(&m, KCBP_SELF_UNSOUND_NO_RINGS, &q, NULL);
    assert_true(n > 0);
    assert_false(same_pairs(p, n, q, nu)); /* the rings' check is what finds it */
    free(p);
    free(q);
    kcbp_model_free(&m);
    mb_free(&b);
}

/* A flat face fanned from a corner far below its middle (so that its fan
 * is valid), and a strip of slivers standing on its curved side (resting on
 * it along its edges). */
static void cap_and_strip(mbuild *b, int m)
{
    for (int i = 0; i <= m; i++)
        mb_v(b, i * 10.0 / m, 0.3 * sin(i / 7.0), 0);
    uint32_t corner = mb_v(b, 5, -20, 0);
    for (int i = 0; i <= m; i++)
        mb_v(b, b->v[i].x, b->v[i].y, 5);
    for (uint32_t i = 0; i < (uint32_t)m; i++)
        mb_t(b, corner, i + 1, i);
    for (uint32_t i = 0; i < (uint32_t)m; i++) {
        uint32_t a = i, bb = i + 1, c = corner + 1 + i + 1, d = corner + 1 + i;
        mb_t(b, bb, a, d);
        mb_t(b, bb, d, c);
    }
}

static void test_resting(void **state)
{
    (void)state;
    mbuild b = {0};
    uint64_t tested;
    cap_and_strip(&b, 200);
    assert_int_equal(check_mb(&b, "cap and strip", &tested), 0);
    assert_true(tested < 2000); /* the tree alone tests tens of thousands */
    b.v[b.nv - 50].z = -0.5; /* a top vertex pushed through the cap */
    assert_true(check_mb(&b, "cap and strip, pierced", NULL) > 0);
    mb_free(&b);
    cap_and_strip(&b, 200);
    b.v[50].x += 0.12; /* a cap vertex moved in its plane past two others: the cap folds onto itself */
    assert_true(check_mb(&b, "cap and strip, folded", NULL) > 0);
    mb_free(&b);
}

/* Random triangles on a coarse grid, many of them in one plane, touching,
 * overlapping or sharing points. */
static void test_soups(void **state)
{
    (void)state;
    test_rng r = {42};
    for (int rep = 0; rep < 20; rep++) {
        mbuild b = {0};
        for (int t = 0; t < 150; t++) {
            double cx = (int)(test_rng_uniform(&r) * 20) / 4.0, cy = (int)(test_rng_uniform(&r) * 20) / 4.0;
            uint32_t i0 = (uint32_t)b.nv;
            for (int k = 0; k < 3; k++)
                mb_v(&b, cx + (int)(test_rng_uniform(&r) * 5 - 2) / 4.0, cy + (int)(test_rng_uniform(&r) * 5 - 2) / 4.0,
                     test_rng_uniform(&r) < 0.8 ? 0 : 0.25);
            mb_t(&b, i0, i0 + 1, i0 + 2);
            if (t % 3 == 0) /* and a neighbour sharing an edge */
                mb_t(&b, i0 + 1, i0, mb_v(&b, cx + (int)(test_rng_uniform(&r) * 5 - 2) / 4.0, cy - 0.25, 0));
        }
        check_mb(&b, "soup", NULL);
        mb_free(&b);
    }
}

/* Bundled meshes with their coordinates rounded to a coarse grid (many
 * coplanar, collinear and coincident configurations). */
static void test_rounded_meshes(void **state)
{
    (void)state;
    const char *names[] = {"suzanne.obj", "woody.obj", "bunny2.obj"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        for (int grid = 16; grid <= 64; grid *= 4) {
            kcbp_model src;
            test_model_load(&src, names[i]);
            const kcbp_mesh *s = &src.impl->mesh;
            double step = src.impl->scale / grid;
            kcbp_mesh mesh;
            kcbp_error err = {0};
            assert_int_equal(kcbp_mesh_init(&mesh, s->vertices, s->nvertices, s->triangles, s->ntriangles, &err),
                             KCBP_OK);
            kcbp_model_free(&src);
            for (uint32_t k = 0; k < mesh.nvertices; k++) {
                kcbp_vec3 *p = &mesh.vertices[k];
                *p = kcbp_v3(nearbyint(p->x / step) * step, nearbyint(p->y / step) * step, nearbyint(p->z / step) * step);
            }
            kcbp_model m;
            model_of(&m, &mesh);
            char what[64];
            snprintf(what, sizeof what, "%s on a grid of %d", names[i], grid);
            check_model(&m, what, NULL);
            kcbp_model_free(&m);
        }
}

static char tmpdir[] = "/tmp/kcbp-self-XXXXXX";

TEST_TMPDIR_FIXTURES(tmpdir)

static void test_cli_self(void **state)
{
    (void)state;
    const char *path = test_tmp_write_text(tmpdir, "x.obj",
                                           "v 0 0 0\nv 1 0 0\nv 0 1 0\nv .2 .2 -1\nv .3 .2 1\nv .2 .3 1\n"
                                           "f 1 2 3\nf 4 5 6\n");
    test_run_result r;
    const char *argv[] = {"self", path, NULL};
    test_run(&r, argv);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"self_intersect\":true,\"pairs\":[[0,1]],"));
    free(r.out), free(r.err);
    const char *none[] = {"self", "meshes/spot.obj", "--contacts", "none", NULL};
    test_run(&r, none);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "{\"self_intersect\":false,\"mesh\":"));
    free(r.out), free(r.err);
    const char *bad[] = {"self", path, path, NULL};
    test_run(&r, bad);
    assert_int_equal(r.status, 2);
    free(r.out), free(r.err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_edge),
        cmocka_unit_test(test_shared_vertex),
        cmocka_unit_test(test_apart_crossing_repeated),
        cmocka_unit_test(test_box),
        cmocka_unit_test(test_cli_self),
        cmocka_unit_test(test_flat_star),
        cmocka_unit_test(test_fans),
        cmocka_unit_test(test_flat_patches),
        cmocka_unit_test(test_resting),
        cmocka_unit_test(test_soups),
        cmocka_unit_test(test_rounded_meshes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
