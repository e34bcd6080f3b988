/* The 2D readers' fuzz targets (see targets.h): GeoJSON and SVG text into a
 * kcbp2d_model, then the model's invariants and, on small models, collide
 * and distance against brute force over every pair of edges with exact
 * orientation signs (the library's answer is an edge tree's descent; the
 * oracle here shares only the orient2d predicate with it). */
#include "targets.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp2d.h>

#include "convex/convex2d.h"

static void fuzz2d_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

static void fuzz2d_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz property violated: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* Models up to this many vertices are checked against brute force. */
#define SMALL_MODEL 96

/* A model's vertices after a pose, computed as the library does
 * (polygon2d.h: with pose_a the identity, B's coordinates are exactly
 * kcbp2d_pose_apply's). */
typedef struct {
    const kcbp2d_model *m;
    uint32_t n;
    kcbp_vec2 *v;
} posed;

static posed pose_model(const kcbp2d_model *m, const kcbp2d_pose *p)
{
    posed q = {m, kcbp2d_model_vertex_count(m), NULL};
    q.v = malloc(q.n * sizeof *q.v);
    if (!q.v)
        fuzz2d_fail("out of memory for %u vertices", q.n);
    const kcbp_vec2 *v = kcbp2d_model_vertices(m);
    for (uint32_t i = 0; i < q.n; i++)
        q.v[i] = kcbp2d_pose_apply(p, v[i]);
    return q;
}

static kcbp_vec2 edge_end(const posed *q, uint32_t i) { return q->v[kcbp2d_model_edge_end(q->m, i)]; }

/* p on the segment [a, b], given orient(a, b, p) == 0. */
static bool on_segment(kcbp_vec2 a, kcbp_vec2 b, kcbp_vec2 p)
{
    return fmin(a.x, b.x) <= p.x && p.x <= fmax(a.x, b.x) && fmin(a.y, b.y) <= p.y && p.y <= fmax(a.y, b.y);
}

/* Whether two closed segments share a point, by exact signs. */
static bool segments_meet(kcbp_vec2 a0, kcbp_vec2 a1, kcbp_vec2 b0, kcbp_vec2 b1)
{
    int o1 = kcbp2d_orient(a0, a1, b0), o2 = kcbp2d_orient(a0, a1, b1);
    int o3 = kcbp2d_orient(b0, b1, a0), o4 = kcbp2d_orient(b0, b1, a1);
    if (o1 * o2 < 0 && o3 * o4 < 0)
        return true;
    return (o1 == 0 && on_segment(a0, a1, b0)) || (o2 == 0 && on_segment(a0, a1, b1)) ||
           (o3 == 0 && on_segment(b0, b1, a0)) || (o4 == 0 && on_segment(b0, b1, a1));
}

/* p inside the region (even-odd over every ring); p on no edge. */
static bool inside(const posed *q, kcbp_vec2 p)
{
    bool in = false;
    for (uint32_t i = 0; i < q->n; i++) {
        kcbp_vec2 a = q->v[i], c = edge_end(q, i);
        if ((a.y >= p.y) == (c.y >= p.y))
            continue;
        kcbp_vec2 lo = a.y < c.y ? a : c, hi = a.y < c.y ? c : a;
        in ^= kcbp2d_orient(lo, hi, p) > 0;
    }
    return in;
}

/* The model's own invariants: vertices finite and in its box, edges that
 * close each ring of >= 3 vertices, as many rings as it says. */
static void check_model(const kcbp2d_model *m)
{
    uint32_t n = kcbp2d_model_vertex_count(m), rings = kcbp2d_model_ring_count(m);
    if (n < 3 || rings < 1 || (uint64_t)rings * 3 > n)
        fuzz2d_fail("model counts: %u vertices, %u rings", n, rings);
    const kcbp_vec2 *v = kcbp2d_model_vertices(m);
    kcbp_vec2 lo, hi;
    kcbp2d_model_bounds(m, &lo, &hi);
    uint32_t start = 0, closed = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(v[i].x) || !isfinite(v[i].y) || fabs(v[i].x) > KCBP_COORD_MAX || fabs(v[i].y) > KCBP_COORD_MAX)
            fuzz2d_fail("vertex %u (%g, %g) not finite or beyond the coordinate bound", i, v[i].x, v[i].y);
        if (v[i].x < lo.x || v[i].y < lo.y || v[i].x > hi.x || v[i].y > hi.y)
            fuzz2d_fail("vertex %u outside the model's bounds", i);
        uint32_t e = kcbp2d_model_edge_end(m, i);
        if (e == i + 1 && i + 1 < n)
            continue;
        if (e != start || i - start < 2)
            fuzz2d_fail("edge %u ends at vertex %u (its ring starts at %u)", i, e, start);
        closed++;
        start = i + 1;
    }
    if (start != n || closed != rings)
        fuzz2d_fail("%u rings closed, the model says %u", closed, rings);
}

/* collide and distance of A (identity) and B at pose pb, against brute force. */
static void check_pair(const kcbp2d_model *a, const kcbp2d_model *b, const kcbp2d_pose *pb, const char *what)
{
    kcbp2d_pose id = kcbp2d_pose_identity();
    posed qa = pose_model(a, &id), qb = pose_model(b, pb);
    uint64_t meet = 0;
    double best = INFINITY;
    for (uint32_t i = 0; i < qa.n; i++)
        for (uint32_t j = 0; j < qb.n; j++) {
            kcbp_vec2 a0 = qa.v[i], a1 = edge_end(&qa, i), b0 = qb.v[j], b1 = edge_end(&qb, j);
            if (segments_meet(a0, a1, b0, b1))
                meet++;
            kcbp_vec2 ca, cb;
            double d = kcbp2d_cp_seg_seg(a0, a1, b0, b1, &ca, &cb);
            best = fmin(best, d);
        }
    double scale = 0;
    for (uint32_t i = 0; i < qa.n; i++)
        scale = fmax(scale, fmax(fabs(qa.v[i].x), fabs(qa.v[i].y)));
    for (uint32_t j = 0; j < qb.n; j++)
        scale = fmax(scale, fmax(fabs(qb.v[j].x), fabs(qb.v[j].y)));
    /* no edges meet: each ring lies wholly inside or outside the other
     * region; any ring inside makes them collide (a set of polygons may
     * have one part inside the other and the rest apart). The library
     * names B in A first. */
    bool b_in_a = false, a_in_b = false;
    for (uint32_t j = 0; !meet && !b_in_a && j < qb.n; j++)
        b_in_a = inside(&qa, qb.v[j]);
    for (uint32_t i = 0; !meet && !b_in_a && !a_in_b && i < qa.n; i++)
        a_in_b = inside(&qb, qa.v[i]);
    bool collide = meet || b_in_a || a_in_b;

    kcbp2d_edge_pair *pairs = malloc((size_t)qa.n * qb.n * sizeof *pairs);
    if (!pairs)
        fuzz2d_fail("out of memory");
    kcbp2d_model_collide_options o = kcbp2d_model_collide_options_default();
    o.contacts = pairs, o.contacts_capacity = qa.n * qb.n;
    kcbp2d_model_collide_result r;
    kcbp_error err = {0};
    if (kcbp2d_model_collide(a, &id, b, pb, &o, &r, &err) != KCBP_OK)
        fuzz2d_fail("%s: kcbp2d_model_collide: %s", what, err.msg);
    if (r.collide != collide || r.ncontacts != meet || r.contacts_truncated)
        fuzz2d_fail("%s: collide %d with %u contacts%s; brute force: %d with %llu", what, r.collide, r.ncontacts,
                    r.contacts_truncated ? " (truncated)" : "", collide, (unsigned long long)meet);
    for (uint32_t k = 0; k < r.ncontacts; k++) {
        uint32_t i = pairs[k].a, j = pairs[k].b;
        if (i >= qa.n || j >= qb.n || !segments_meet(qa.v[i], edge_end(&qa, i), qb.v[j], edge_end(&qb, j)))
            fuzz2d_fail("%s: contact (%u, %u) names edges that do not meet", what, i, j);
    }
    kcbp2d_containment want = b_in_a ? KCBP2D_CONTAINED_B_IN_A : a_in_b ? KCBP2D_CONTAINED_A_IN_B : KCBP2D_CONTAINED_NONE;
    if (r.contained != want)
        fuzz2d_fail("%s: contained %d, brute force %d", what, (int)r.contained, (int)want);
    free(pairs);

    kcbp2d_model_distance_result d;
    if (kcbp2d_model_distance(a, &id, b, pb, &d, &err) != KCBP_OK)
        fuzz2d_fail("%s: kcbp2d_model_distance: %s", what, err.msg);
    if (d.collide != collide || !isfinite(d.distance) || d.distance < 0)
        fuzz2d_fail("%s: distance %g (collide %d); brute force collide %d", what, d.distance, d.collide, collide);
    /* distances in double: "a few ulps of the scale" (polygon2d.h) */
    if (collide ? d.distance != 0 : !(fabs(d.distance - best) <= 1e-12 * (best + scale)))
        fuzz2d_fail("%s: distance %.17g, brute force %.17g", what, d.distance, best);
    free(qa.v);
    free(qb.v);
}

/* A parsed model: the error's form on failure; else its invariants, and a
 * small one against itself and against copies moved by fractions of its size. */
static int check_parsed(kcbp_status st, kcbp2d_model *m, const kcbp_error *err, const char *name)
{
    if (st != KCBP_OK) {
        if (m)
            fuzz2d_fail("a failed parse left a model behind");
        if (err->code != st || strncmp(err->msg, name, strlen(name)) != 0)
            fuzz2d_fail("error %s (recorded %s) with message '%s', which should start with '%s'",
                        kcbp_status_name(st), kcbp_status_name(err->code), err->msg, name);
        return 0;
    }
    if (!m)
        fuzz2d_fail("a parse succeeded without a model");
    check_model(m);
    if (kcbp2d_model_vertex_count(m) <= SMALL_MODEL) {
        kcbp_vec2 lo, hi;
        kcbp2d_model_bounds(m, &lo, &hi);
        double w = hi.x - lo.x, h = hi.y - lo.y;
        /* moves of a quarter, a half and more than the whole size, and a
         * quarter turn about the origin */
        static const double f[][3] = {{0, 0, 0}, {0.25, 0.1, 0}, {0.5, -0.3, 0}, {1.5, 0.2, 0}, {0, 0, 90}, {0.3, 0.3, 37}};
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
            kcbp2d_pose p;
            if (kcbp2d_pose_from_angle(f[k][0] * w, f[k][1] * h, f[k][2], &p, NULL) != KCBP_OK)
                continue;
            char what[160];
            snprintf(what, sizeof what, "%s against itself moved (%g w, %g h, %g deg)", name, f[k][0], f[k][1], f[k][2]);
            check_pair(m, m, &p, what);
        }
    }
    kcbp2d_model_free(m);
    return 0;
}

/* The bytes in a buffer of exactly their size (the corpus replay's buffer
 * is larger), so that AddressSanitizer sees any read past the text: the
 * readers must not expect a NUL after it. */
static char *exact_copy(const uint8_t *data, size_t size)
{
    char *t = malloc(size ? size : 1);
    if (!t)
        fuzz2d_fail("out of memory for %zu bytes", size);
    if (size)
        memcpy(t, data, size);
    return t;
}

int kcbp_fuzz_geojson(const uint8_t *data, size_t size)
{
    kcbp2d_model *m = NULL;
    kcbp_error err = {0};
    char *t = exact_copy(data, size);
    kcbp_status st = kcbp2d_model_parse_geojson(t, size, "fuzz.geojson", &m, &err);
    free(t);
    return check_parsed(st, m, &err, "fuzz.geojson");
}

int kcbp_fuzz_svg(const uint8_t *data, size_t size)
{
    kcbp2d_model *m = NULL;
    kcbp_error err = {0};
    /* a coarse flattening keeps circles small enough for brute force */
    char *t = exact_copy(data, size);
    kcbp_status st = kcbp2d_model_parse_svg(t, size, "fuzz.svg", 0.05, &m, &err);
    free(t);
    return check_parsed(st, m, &err, "fuzz.svg");
}
