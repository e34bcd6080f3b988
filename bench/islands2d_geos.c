/* The second held-out hunt's large class against GEOS (bench/README.md,
 * "Held-out hunt, 2D, second round"): an archipelago, one MultiPolygon of
 * G x G island systems (each an island with a lake holding an islet:
 * two polygons, three rings, jittered, with collinear runs of vertices and
 * rings in either orientation), at UTM-like or lon/lat coordinates, against
 * Q small quadrilaterals at random poses over it:
 *   kcbp: kcbp2d_model_collide, kcbp2d_model_distance (B a model, posed);
 *   GEOS: GEOSPreparedIntersects_r, GEOSPreparedDistance_r on the prepared
 *         archipelago (prepared once, not timed), B's polygons made before
 *         the clock from the coordinates kcbp2d_pose_apply gives.
 * Answers compared (collide equal, distances within 1e-9 of the map's
 * scale); CPU time (CLOCK_PROCESS_CPUTIME_ID) per query, the two
 * interleaved, medians of REPS runs.
 *
 *   make -C bench islands2d_geos && bench/islands2d_geos [G] [Q] [REPS] [utm|lonlat] */
#include <geos_c.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp2d.h>

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double uni(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (double)(rs >> 11) * 0x1p-53;
}

typedef struct {
    kcbp_vec2 *p;
    uint32_t *ring_end, *poly_end;
    uint32_t np, nr, npo, capp, capr, cappo;
} multi;

static void push(multi *m, kcbp_vec2 v)
{
    if (m->np == m->capp)
        m->capp = m->capp ? 2 * m->capp : 1024, m->p = realloc(m->p, m->capp * sizeof *m->p);
    m->p[m->np++] = v;
}
static void end_ring(multi *m, bool reverse)
{
    uint32_t s = m->nr ? m->ring_end[m->nr - 1] : 0;
    if (reverse)
        for (uint32_t i = s, j = m->np - 1; i < j; i++, j--) {
            kcbp_vec2 t = m->p[i];
            m->p[i] = m->p[j], m->p[j] = t;
        }
    if (m->nr == m->capr)
        m->capr = m->capr ? 2 * m->capr : 256, m->ring_end = realloc(m->ring_end, m->capr * sizeof *m->ring_end);
    m->ring_end[m->nr++] = m->np;
}
static void end_poly(multi *m)
{
    if (m->npo == m->cappo)
        m->cappo = m->cappo ? 2 * m->cappo : 256, m->poly_end = realloc(m->poly_end, m->cappo * sizeof *m->poly_end);
    m->poly_end[m->npo++] = m->nr;
}

static double ox, oy, unit;

/* a jittered square ring of half-size h about (cx, cy), in cell units */
static void ring(multi *m, double cx, double cy, double h, double j)
{
    double c[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    kcbp_vec2 q[4];
    for (int k = 0; k < 4; k++)
        q[k] = (kcbp_vec2){cx + c[k][0] * (h - j * uni()), cy + c[k][1] * (h - j * uni())};
    for (int k = 0; k < 4; k++) {
        kcbp_vec2 a = q[k], b = q[(k + 1) % 4];
        int extra = (int)(uni() * 4); /* points along the side (near-collinear once rounded) */
        for (int e = 0; e <= extra; e++) {
            double f = (double)e / (extra + 1);
            push(m, (kcbp_vec2){ox + (a.x + f * (b.x - a.x)) * unit, oy + (a.y + f * (b.y - a.y)) * unit});
        }
    }
    end_ring(m, uni() < 0.5);
}

static GEOSContextHandle_t gh;

static GEOSGeometry *ring_geos(const kcbp_vec2 *p, uint32_t n, const kcbp2d_pose *pose)
{
    GEOSCoordSequence *cs = GEOSCoordSeq_create_r(gh, n + 1, 2);
    for (uint32_t j = 0; j <= n; j++) {
        kcbp_vec2 v = p[j % n];
        if (pose)
            v = kcbp2d_pose_apply(pose, v);
        GEOSCoordSeq_setXY_r(gh, cs, j, v.x, v.y);
    }
    return GEOSGeom_createLinearRing_r(gh, cs);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int G = argc > 1 ? atoi(argv[1]) : 60, Q = argc > 2 ? atoi(argv[2]) : 2000, reps = argc > 3 ? atoi(argv[3]) : 5;
    bool lonlat = argc > 4 && !strcmp(argv[4], "lonlat");
    ox = lonlat ? 13.4 : 5e5, oy = lonlat ? 52.5 : 5e6, unit = lonlat ? 1e-4 : 10;
    gh = GEOS_init_r();
    multi m = {0};
    for (int i = 0; i < G; i++)
        for (int j = 0; j < G; j++) {
            double cx = i + 0.5, cy = j + 0.5;
            ring(&m, cx, cy, 0.45, 0.03); /* the island */
            ring(&m, cx, cy, 0.3, 0.03);  /* its lake */
            end_poly(&m);
            ring(&m, cx, cy, 0.15, 0.03); /* the islet */
            end_poly(&m);
        }
    kcbp_error e;
    kcbp2d_polygons in = {m.p, m.ring_end, m.nr, m.poly_end, m.npo};
    kcbp2d_model *a = NULL;
    if (kcbp2d_model_build(&in, &a, &e) != KCBP_OK) {
        fprintf(stderr, "archipelago refused: %s\n", e.msg);
        return 1;
    }
    GEOSGeometry **polys = malloc(m.npo * sizeof *polys);
    for (uint32_t k = 0; k < m.npo; k++) {
        uint32_t r0 = k ? m.poly_end[k - 1] : 0, r1 = m.poly_end[k];
        GEOSGeometry *holes[1];
        for (uint32_t r = r0 + 1; r < r1; r++)
            holes[r - r0 - 1] = ring_geos(m.p + m.ring_end[r - 1], m.ring_end[r] - m.ring_end[r - 1], NULL);
        uint32_t s0 = r0 ? m.ring_end[r0 - 1] : 0;
        polys[k] = GEOSGeom_createPolygon_r(gh, ring_geos(m.p + s0, m.ring_end[r0] - s0, NULL), holes, r1 - r0 - 1);
    }
    GEOSGeometry *ga = GEOSGeom_createCollection_r(gh, GEOS_MULTIPOLYGON, polys, m.npo);
    const GEOSPreparedGeometry *pa = GEOSPrepare_r(gh, ga);
    /* queries */
    kcbp_vec2 quad[4];
    for (int k = 0; k < 4; k++) {
        double ang = k * (M_PI / 2) + 0.3 * uni();
        quad[k] = (kcbp_vec2){0.08 * unit * cos(ang), 0.08 * unit * sin(ang)};
    }
    kcbp2d_model *b = NULL;
    if (kcbp2d_model_build_polygon(quad, 4, &b, &e) != KCBP_OK) {
        fprintf(stderr, "quad refused: %s\n", e.msg);
        return 1;
    }
    kcbp2d_pose *poses = malloc(Q * sizeof *poses);
    GEOSGeometry **gb = malloc(Q * sizeof *gb);
    for (int q = 0; q < Q; q++) {
        double x = ox + (-0.2 + (G + 0.4) * uni()) * unit, y = oy + (-0.2 + (G + 0.4) * uni()) * unit;
        kcbp2d_pose_from_angle(x, y, 360 * uni(), &poses[q], &e);
        gb[q] = GEOSGeom_createPolygon_r(gh, ring_geos(quad, 4, &poses[q]), NULL, 0);
    }
    kcbp2d_pose id = kcbp2d_pose_identity();
    char *kc = malloc(Q), *gc = malloc(Q);
    double *kd = malloc(Q * sizeof *kd), *gd = malloc(Q * sizeof *gd);
    double *tk_c = malloc(reps * sizeof(double)), *tg_c = malloc(reps * sizeof(double));
    double *tk_d = malloc(reps * sizeof(double)), *tg_d = malloc(reps * sizeof(double));
    for (int rep = 0; rep < reps; rep++) {
        double t0 = cpu_ms();
        for (int q = 0; q < Q; q++) {
            kcbp2d_model_collide_result cr;
            kcbp2d_model_collide(a, &id, b, &poses[q], NULL, &cr, &e);
            kc[q] = cr.collide;
        }
        double t1 = cpu_ms();
        for (int q = 0; q < Q; q++)
            gc[q] = GEOSPreparedIntersects_r(gh, pa, gb[q]);
        double t2 = cpu_ms();
        for (int q = 0; q < Q; q++) {
            kcbp2d_model_distance_result dr;
            kcbp2d_model_distance(a, &id, b, &poses[q], &dr, &e);
            kd[q] = dr.distance;
        }
        double t3 = cpu_ms();
        for (int q = 0; q < Q; q++)
            GEOSPreparedDistance_r(gh, pa, gb[q], &gd[q]);
        double t4 = cpu_ms();
        tk_c[rep] = t1 - t0, tg_c[rep] = t2 - t1, tk_d[rep] = t3 - t2, tg_d[rep] = t4 - t3;
    }
    int diff_c = 0, diff_d = 0, hits = 0;
    for (int q = 0; q < Q; q++) {
        diff_c += kc[q] != (gc[q] == 1);
        diff_d += !(fabs(kd[q] - gd[q]) <= 1e-9 * G * unit);
        hits += kc[q];
    }
    qsort(tk_c, reps, sizeof(double), cmp), qsort(tg_c, reps, sizeof(double), cmp);
    qsort(tk_d, reps, sizeof(double), cmp), qsort(tg_d, reps, sizeof(double), cmp);
    double kcm = tk_c[reps / 2] * 1e3 / Q, gcm = tg_c[reps / 2] * 1e3 / Q;
    double kdm = tk_d[reps / 2] * 1e3 / Q, gdm = tg_d[reps / 2] * 1e3 / Q;
    printf("| %s | %d x %d | %u | %u | %d (%d collide) | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d / %d |\n",
           lonlat ? "lon/lat" : "UTM", G, G, kcbp2d_model_vertex_count(a), m.nr, Q, hits, kcm, gcm, kcm / gcm, kdm,
           gdm, kdm / gdm, diff_c, diff_d);
    return diff_c || diff_d;
}
