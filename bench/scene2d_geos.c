/* 2D scenes against GEOS (issue 35: "a 2D scene of 10^5 shapes linear in
 * objects"): the generated parcels scene (kcbp scene --generate parcels: n
 * posed rectangles, some overlapping, a quarter touching edge to edge)
 * at n = 100 .. 102400, doubling, evaluated by
 *   kcbp: kcbp2d_scene_eval_new + kcbp2d_scene_eval_frame (one thread):
 *         world boxes, Z-order ranks, the box tree, exact pair tests;
 *   GEOS: an STRtree of the polygons' envelopes (GEOSSTRtree_create(10)),
 *         then for each polygon a prepared geometry (GEOSPrepare) and
 *         GEOSPreparedIntersects on every later polygon the tree gives:
 *         the usual "all intersecting pairs" recipe, GEOS at its best.
 * Both get the same rectangles: GEOS's corners are the doubles
 * kcbp2d_pose_apply makes (those kcbp decides on), and the pair sets are
 * compared (reported as "same").
 *
 * With "parts" as the third argument, the scene is nesting-like instead: n
 * copies of one non-convex part with a hole (an L of 12 vertices with a
 * square hole, from a GeoJSON file), at random places on a sheet of about
 * n / 2 square units and random angles: kcbp's pair test is then
 * kcbp2d_model_collide (B carried into A's frame), GEOS's the same
 * prepared intersects on the world coordinates kcbp2d_pose_apply gives;
 * the two decide on coordinates that differ by rounding, so pairs within
 * a few ulps of touching could differ (reported: "same" counts them).
 *
 * Times are CPU time
 * (CLOCK_PROCESS_CPUTIME_ID), the runs of the two interleaved, medians of
 * REPS; the scene text's parsing is not counted for either.
 *
 *   make -C bench scene2d_geos && bench/scene2d_geos [max_n] [reps] [parcels|parts] */
#include <geos_c.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <kcbp/kcbp2d.h>

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct {
    uint64_t *keys; /* a * 2^32 + b, a < b */
    size_t n, cap;
} pairs;

static void add(pairs *p, uint32_t a, uint32_t b)
{
    if (a > b) {
        uint32_t t = a;
        a = b, b = t;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->keys = realloc(p->keys, p->cap * sizeof *p->keys);
        if (!p->keys)
            abort();
    }
    p->keys[p->n++] = (uint64_t)a << 32 | b;
}

static kcbp_status on_pair(void *ctx, const kcbp2d_scene_pair *p, kcbp_error *err)
{
    (void)err;
    add(ctx, p->a, p->b);
    return KCBP_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double run_kcbp(const kcbp2d_scene *s, pairs *out)
{
    out->n = 0;
    kcbp_error err;
    double t0 = cpu_ms();
    kcbp2d_scene_eval *ev;
    if (kcbp2d_scene_eval_new(s, NULL, &ev, &err) != KCBP_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    kcbp2d_scene_frame f;
    if (kcbp2d_scene_eval_frame(ev, 0, on_pair, out, &f, &err) != KCBP_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    kcbp2d_scene_eval_free(ev);
    return cpu_ms() - t0;
}

typedef struct {
    GEOSContextHandle_t h;
    const GEOSPreparedGeometry *prep;
    GEOSGeometry **geoms;
    uint32_t self;
    pairs *out;
} query_ctx;

static void on_candidate(void *item, void *vctx)
{
    query_ctx *c = vctx;
    uint32_t j = (uint32_t)(uintptr_t)item;
    if (j <= c->self)
        return;
    char r = GEOSPreparedIntersects_r(c->h, c->prep, c->geoms[j]);
    if (r == 2)
        abort();
    if (r)
        add(c->out, c->self, j);
}

static double run_geos(GEOSContextHandle_t h, GEOSGeometry **g, uint32_t n, pairs *out)
{
    out->n = 0;
    double t0 = cpu_ms();
    GEOSSTRtree *tree = GEOSSTRtree_create_r(h, 10);
    for (uint32_t i = 0; i < n; i++)
        GEOSSTRtree_insert_r(h, tree, g[i], (void *)(uintptr_t)i);
    query_ctx c = {h, NULL, g, 0, out};
    for (uint32_t i = 0; i < n; i++) {
        c.prep = GEOSPrepare_r(h, g[i]);
        c.self = i;
        GEOSSTRtree_query_r(h, tree, g[i], on_candidate, &c);
        GEOSPreparedGeom_destroy_r(h, c.prep);
    }
    GEOSSTRtree_destroy_r(h, tree);
    return cpu_ms() - t0;
}

/* The part of the "parts" scene: an L with a square hole (GeoJSON, in
 * the file's order: outer ring then hole). */
static const double PART_OUTER[][2] = {{0, 0}, {1.2, 0}, {1.2, 0.4}, {0.4, 0.4}, {0.4, 1.2}, {0, 1.2}};
static const double PART_HOLE[][2] = {{0.1, 0.1}, {0.3, 0.1}, {0.3, 0.3}, {0.1, 0.3}};
static const char PART_GEOJSON[] = "{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1.2,0],[1.2,0.4],[0.4,0.4],[0.4,1.2],"
                                   "[0,1.2],[0,0]],[[0.1,0.1],[0.3,0.1],[0.3,0.3],[0.1,0.3],[0.1,0.1]]]}";

static GEOSGeometry *posed_ring(GEOSContextHandle_t h, const double (*pt)[2], int n, const kcbp2d_pose *p)
{
    GEOSCoordSequence *cs = GEOSCoordSeq_create_r(h, (unsigned)n + 1, 2);
    for (int k = 0; k <= n; k++) {
        kcbp_vec2 w = kcbp2d_pose_apply(p, (kcbp_vec2){pt[k % n][0], pt[k % n][1]});
        GEOSCoordSeq_setXY_r(h, cs, (unsigned)k, w.x, w.y);
    }
    return GEOSGeom_createLinearRing_r(h, cs);
}

/* The "parts" scene's text: n copies of part.geojson on a sheet. */
static char *parts_scene(uint32_t n, uint64_t seed)
{
    size_t cap = 128 + (size_t)n * 128, len = 0;
    char *t = malloc(cap);
    if (!t)
        abort();
    double side = 1;
    while (side * side < n / 2.0)
        side += 1;
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    len += (size_t)snprintf(t + len, cap - len, "{\"objects\": [");
    for (uint32_t i = 0; i < n; i++) {
        double v[3];
        for (int k = 0; k < 3; k++) { /* xorshift64*, one draw per statement */
            s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
            v[k] = (double)((s * 0x2545f4914f6cdd1dull) >> 44) / 1048576.0;
        }
        len += (size_t)snprintf(t + len, cap - len, "%s{\"name\": \"q%u\", \"mesh\": \"part.geojson\", \"pose\": [%.17g, %.17g, %.17g]}",
                                i ? "," : "", i, side * v[0], side * v[1], 360 * v[2]);
    }
    snprintf(t + len, cap - len, "]}");
    return t;
}

/* The scene's rectangles as GEOS polygons, corners as kcbp places them. */
static GEOSGeometry **geos_polygons(GEOSContextHandle_t h, const kcbp2d_scene *s)
{
    uint32_t n = kcbp2d_scene_object_count(s);
    GEOSGeometry **g = malloc(n * sizeof *g);
    for (uint32_t i = 0; i < n; i++) {
        const kcbp2d_shape *sh = kcbp2d_scene_object_shape(s, i);
        kcbp2d_pose p = kcbp2d_scene_object_pose(s, i, 0);
        if (!sh) { /* the part */
            GEOSGeometry *hole = posed_ring(h, PART_HOLE, 4, &p);
            g[i] = GEOSGeom_createPolygon_r(h, posed_ring(h, PART_OUTER, 6, &p), &hole, 1);
            continue;
        }
        if (sh->kind != KCBP2D_BOX || sh->radius != 0)
            abort();
        double hx = sh->local[0].x, hy = sh->local[0].y;
        kcbp_vec2 c[5] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}, {-hx, -hy}};
        GEOSCoordSequence *cs = GEOSCoordSeq_create_r(h, 5, 2);
        for (int k = 0; k < 5; k++) {
            kcbp_vec2 w = kcbp2d_pose_apply(&p, c[k]);
            GEOSCoordSeq_setXY_r(h, cs, (unsigned)k, w.x, w.y);
        }
        g[i] = GEOSGeom_createPolygon_r(h, GEOSGeom_createLinearRing_r(h, cs), NULL, 0);
    }
    return g;
}

int main(int argc, char **argv)
{
    uint32_t max_n = argc > 1 ? (uint32_t)atol(argv[1]) : 102400;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 99)
        reps = 5;
    bool parts = argc > 3 && !strcmp(argv[3], "parts");
    char tmpl[] = "/tmp/kcbp_scene2d_bench_XXXXXX";
    if (parts) {
        if (!mkdtemp(tmpl))
            return 1;
        char path[64];
        snprintf(path, sizeof path, "%s/part.geojson", tmpl);
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fputs(PART_GEOJSON, f);
        fclose(f);
    }
    GEOSContextHandle_t h = GEOS_init_r();
    printf("| objects | colliding pairs | same pairs | kcbp ms | kcbp us/object | GEOS ms | GEOS us/object | GEOS / kcbp |\n");
    printf("|---:|---:|:---:|---:|---:|---:|---:|---:|\n");
    for (uint32_t n = 100; n <= max_n; n *= 2) {
        char *text;
        kcbp_error err;
        kcbp2d_scene *s;
        if (parts)
            text = parts_scene(n, 1);
        if ((!parts && kcbp2d_scene_generate("parcels", n, 1, &text, &err) != KCBP_OK) ||
            kcbp2d_scene_parse(parts ? "parts" : "parcels", parts ? tmpl : NULL, text, strlen(text), &s, &err) != KCBP_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        free(text);
        GEOSGeometry **g = geos_polygons(h, s);
        pairs pk = {0}, pg = {0};
        double tk[99], tg[99];
        /* small scenes: each run repeated to be measurable, the time per run reported */
        int inner = n < 3200 ? (int)(3200 / n) : 1;
        for (int r = 0; r < reps; r++) {
            double a = 0, b = 0;
            for (int k = 0; k < inner; k++)
                a += run_kcbp(s, &pk);
            for (int k = 0; k < inner; k++)
                b += run_geos(h, g, n, &pg);
            tk[r] = a / inner, tg[r] = b / inner;
        }
        qsort(pk.keys, pk.n, sizeof *pk.keys, cmp_u64);
        qsort(pg.keys, pg.n, sizeof *pg.keys, cmp_u64);
        bool same = pk.n == pg.n && !memcmp(pk.keys, pg.keys, pk.n * sizeof *pk.keys);
        double mk = median(tk, reps), mg = median(tg, reps);
        printf("| %u | %zu | %s | %.2f | %.2f | %.2f | %.2f | %.1f |\n", n, pk.n, same ? "yes" : "NO", mk,
               1e3 * mk / n, mg, 1e3 * mg / n, mg / mk);
        if (!same)
            fprintf(stderr, "n = %u: kcbp %zu pairs, GEOS %zu\n", n, pk.n, pg.n);
        fflush(stdout);
        for (uint32_t i = 0; i < n; i++)
            GEOSGeom_destroy_r(h, g[i]);
        free(g);
        free(pk.keys);
        free(pg.keys);
        kcbp2d_scene_free(s);
    }
    GEOS_finish_r(h);
    if (parts) {
        char path[64];
        snprintf(path, sizeof path, "%s/part.geojson", tmpl);
        unlink(path);
        rmdir(tmpl);
    }
    return 0;
}
