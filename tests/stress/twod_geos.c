/* The 2D layer on map-like parcels and nesting layouts, against GEOS
 * (libgeos-dev), the held-out hunt of issue 35 (bench/README.md, "Held-out
 * hunt, 2D").
 *
 *   twod_geos N SEED [OUT.geojson [SCENE_DIR]]
 *     A map: an N x N jittered lattice of parcels sharing edges (a third of
 *     the shared edges with an extra vertex in line, in both parcels or
 *     only in one: a vertex on the neighbour's edge), every ring in either
 *     orientation, enclaves (a parcel with a hole, the hole filled by
 *     another parcel; half of the holes touching the parcel's corner at a
 *     point), at one of four placements (near 0; 5e5 and 4e6, UTM metres;
 *     degrees at 2^-24 ~ 6e-8 steps). Written as a FeatureCollection (with
 *     consecutive duplicate positions) when OUT is given, and read back
 *     with kcbp2d_model_load (the whole map as one model: accepted).
 *     Checked against GEOS on the coordinates kcbp2d answers for (B's
 *     posed by kcbp2d_pose_apply):
 *       - each parcel accepted, and valid for GEOSisValid;
 *       - every parcel against its neighbours (touching), then moved by
 *         +-1e-12 of the scale, +-1 ulp and +-2^-20 of a cell along an axis or
 *         a diagonal: collide against GEOSIntersects, the depth's exact
 *         touching test against GEOSRelatePattern "T********", distance
 *         against GEOSDistance (to 1e-9 of the scale);
 *       - nesting: a non-convex part with a hole against a copy placed at
 *         gaps 0, 1e-12 and 1e-3 of its size, collide with margin 1e-3 of
 *         the size against GEOSDistance <= margin (pairs within 1e-9 of
 *         the margin not counted).
 *     With SCENE_DIR (an existing folder): each parcel as DIR/pK.geojson,
 *     with game-like shapes (rectangles and capsules at quarter turns on
 *     the lattice's dyadic grid, circles) dropped on the map, as DIR/scene.json, and the
 *     pairs GEOS says meet (brute force over every pair: GEOSIntersects for
 *     polygons, GEOSDistance <= the radii for circles and capsules (their cores: a
 *     point, a segment), those within 1e-9 of
 *     the cell of touching left out: DIR/skip.txt) as DIR/expected.txt, one
 *     "a b" a line; tests/stress/twod_scene_geos.sh compares kcbp scene's
 *     answer with it.
 * Prints the counts; exit status 1 on any disagreement. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <geos_c.h>

#include <kcbp/kcbp2d.h>

static uint64_t rs;
static double uni(void)
{
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return (double)(rs >> 11) * 0x1p-53;
}
static int irand(int lo, int hi) { return lo + (int)(uni() * (hi - lo + 1)); }

typedef struct {
    kcbp_vec2 *p;
    uint32_t *ring_end;
    uint32_t nrings, np, capp;
} parcel;

static void push(parcel *q, kcbp_vec2 v)
{
    if (q->np == q->capp) {
        q->capp = q->capp ? 2 * q->capp : 16;
        q->p = realloc(q->p, q->capp * sizeof *q->p);
    }
    q->p[q->np++] = v;
}
static void end_ring(parcel *q, bool reverse)
{
    uint32_t s = q->nrings ? q->ring_end[q->nrings - 1] : 0;
    if (reverse)
        for (uint32_t i = s, j = q->np - 1; i < j; i++, j--) {
            kcbp_vec2 t = q->p[i];
            q->p[i] = q->p[j], q->p[j] = t;
        }
    q->ring_end = realloc(q->ring_end, (q->nrings + 1) * sizeof *q->ring_end);
    q->ring_end[q->nrings++] = q->np;
}

static int disagreements;
static void bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (disagreements < 20)
        vfprintf(stderr, fmt, ap);
    va_end(ap);
    disagreements++;
}

static GEOSContextHandle_t gh;

/* The parcel as GEOS sees it, B's vertices through pose (NULL: as given). */
static GEOSGeometry *to_geos(const parcel *q, const kcbp2d_pose *pose)
{
    GEOSGeometry **rings = malloc(q->nrings * sizeof *rings);
    for (uint32_t i = 0; i < q->nrings; i++) {
        uint32_t s = i ? q->ring_end[i - 1] : 0, n = q->ring_end[i] - s;
        GEOSCoordSequence *cs = GEOSCoordSeq_create_r(gh, n + 1, 2);
        for (uint32_t j = 0; j <= n; j++) {
            kcbp_vec2 v = q->p[s + j % n];
            if (pose)
                v = kcbp2d_pose_apply(pose, v);
            GEOSCoordSeq_setXY_r(gh, cs, j, v.x, v.y);
        }
        rings[i] = GEOSGeom_createLinearRing_r(gh, cs);
    }
    GEOSGeometry *g = GEOSGeom_createPolygon_r(gh, rings[0], q->nrings > 1 ? rings + 1 : NULL, q->nrings - 1);
    free(rings);
    return g;
}

static kcbp2d_model *to_model(const parcel *q, kcbp_error *e)
{
    uint32_t pe = q->nrings;
    kcbp2d_polygons in = {q->p, q->ring_end, q->nrings, &pe, 1};
    kcbp2d_model *m = NULL;
    kcbp2d_model_build(&in, &m, e);
    return m;
}

static long pairs, n_collide, n_touch, n_overlap;

/* One pair, A at the identity, B at pose: kcbp2d against GEOS. */
static void check_pair(const kcbp2d_model *a, const parcel *qa, const kcbp2d_model *b, const parcel *qb,
                       const kcbp2d_pose *pb, double scale, const char *what)
{
    GEOSGeometry *ga = to_geos(qa, NULL), *gb = to_geos(qb, pb);
    char inter = GEOSIntersects_r(gh, ga, gb), meet = GEOSRelatePattern_r(gh, ga, gb, "T********");
    double gd = 0;
    GEOSDistance_r(gh, ga, gb, &gd);
    kcbp2d_pose id = kcbp2d_pose_identity();
    kcbp2d_model_collide_result cr;
    kcbp2d_model_distance_result dr;
    kcbp2d_model_depth_result pr;
    kcbp2d_model_depth_options o = kcbp2d_model_depth_options_default();
    o.directions = 8, o.grid = 4, o.bisections = 12;
    kcbp_error e;
    if (kcbp2d_model_collide(a, &id, b, pb, NULL, &cr, &e) != KCBP_OK ||
        kcbp2d_model_distance(a, &id, b, pb, &dr, &e) != KCBP_OK ||
        kcbp2d_model_depth(a, &id, b, pb, &o, &pr, &e) != KCBP_OK) {
        bad("%s: error %s\n", what, e.msg);
    } else {
        if (cr.collide != (inter == 1))
            bad("%s: collide %d, GEOS intersects %d (distance %g)\n", what, cr.collide, inter, gd);
        if (cr.collide && pr.touching != (meet == 0))
            bad("%s: touching %d, GEOS interiors meet %d\n", what, pr.touching, meet);
        if (!(fabs(dr.distance - gd) <= 1e-9 * scale))
            bad("%s: distance %.17g, GEOS %.17g\n", what, dr.distance, gd);
        n_collide += cr.collide, n_touch += cr.collide && pr.touching, n_overlap += cr.collide && !pr.touching;
    }
    pairs++;
    GEOSGeom_destroy_r(gh, ga);
    GEOSGeom_destroy_r(gh, gb);
}

static void write_geojson(FILE *f, parcel *ps, uint32_t n)
{
    fprintf(f, "{\"type\":\"FeatureCollection\",\"features\":[\n");
    for (uint32_t i = 0; i < n; i++) {
        const parcel *q = &ps[i];
        fprintf(f, "%s{\"type\":\"Feature\",\"properties\":{\"id\":%u},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[",
                i ? ",\n" : "", (unsigned)i);
        for (uint32_t r = 0; r < q->nrings; r++) {
            uint32_t s = r ? q->ring_end[r - 1] : 0, e = q->ring_end[r];
            fprintf(f, "%s[", r ? "," : "");
            for (uint32_t j = s; j <= e; j++) {
                kcbp_vec2 v = q->p[j < e ? j : s];
                fprintf(f, "%s[%.17g,%.17g]", j > s ? "," : "", v.x, v.y);
                if (j < e && uni() < 0.05) /* a repeated position */
                    fprintf(f, ",[%.17g,%.17g]", v.x, v.y);
            }
            fprintf(f, "]");
        }
        fprintf(f, "]}}");
    }
    fprintf(f, "]}\n");
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: twod_geos N SEED [OUT.geojson]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    rs = 0x9E3779B97F4A7C15ull ^ (uint64_t)strtoull(argv[2], NULL, 10);
    uni();
    if (n < 2 || n > 300) {
        fprintf(stderr, "N in 2..300\n");
        return 2;
    }
    gh = GEOS_init_r();
    /* placement: the lattice's step and origin (exact: even integers times a power of two, plus the origin) */
    static const double steps[4] = {1, 1, 1, 0x1p-24}, ox[4] = {0, 5e5, 4e6, 13}, oy[4] = {0, 4e6, 5.6e6, 52};
    int place = (int)(rs % 4);
    double step = steps[place];
    /* lattice vertices: even integers near 64 i, 64 j */
    int nv = n + 1;
    kcbp_vec2 *lat = malloc((size_t)nv * nv * sizeof *lat);
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
            int jx = i && i < n ? 2 * irand(-10, 10) : 0, jy = j && j < n ? 2 * irand(-10, 10) : 0;
            lat[i * nv + j] = kcbp_v2_make(ox[place] + step * (64 * i + jx), oy[place] + step * (64 * j + jy));
        }
    /* extra vertex on each lattice edge: 0 none, 1 in both parcels, 2 only in the parcel left/below, 3 only right/above */
    uint8_t *hmid = malloc((size_t)nv * nv), *vmid = malloc((size_t)nv * nv);
    for (int i = 0; i < nv * nv; i++)
        hmid[i] = uni() < 0.33 ? (uint8_t)irand(1, 3) : 0, vmid[i] = uni() < 0.33 ? (uint8_t)irand(1, 3) : 0;
    uint32_t np = 0;
    parcel *ps = calloc((size_t)2 * n * n, sizeof *ps);
    int *cell_of = malloc((size_t)2 * n * n * sizeof *cell_of), *enclave_of = malloc((size_t)n * n * sizeof *enclave_of);
#define L(i, j) lat[(i) * nv + (j)]
#define MID(a, b) kcbp_v2_make(ox[place] + ((a).x - ox[place] + (b).x - ox[place]) / 2, oy[place] + ((a).y - oy[place] + (b).y - oy[place]) / 2)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            parcel *q = &ps[np];
            cell_of[np] = i * n + j;
            enclave_of[i * n + j] = -1;
            /* counter-clockwise: (i,j) (i+1,j) (i+1,j+1) (i,j+1); the bottom edge is hmid of (i,j) (the
             * edge from (i,j) to (i+1,j)), the right edge vmid of (i+1,j), top hmid of (i,j+1), left vmid of (i,j) */
            uint8_t b = hmid[i * nv + j], rgt = vmid[(i + 1) * nv + j], t = hmid[i * nv + j + 1], lft = vmid[i * nv + j];
            push(q, L(i, j));
            if (b == 1 || b == 3) /* this parcel is above the bottom edge */
                push(q, MID(L(i, j), L(i + 1, j)));
            push(q, L(i + 1, j));
            if (rgt == 1 || rgt == 2) /* left of the right edge */
                push(q, MID(L(i + 1, j), L(i + 1, j + 1)));
            push(q, L(i + 1, j + 1));
            if (t == 1 || t == 2) /* below the top edge */
                push(q, MID(L(i + 1, j + 1), L(i, j + 1)));
            push(q, L(i, j + 1));
            if (lft == 1 || lft == 3) /* right of the left edge */
                push(q, MID(L(i, j + 1), L(i, j)));
            end_ring(q, uni() < 0.5);
            np++;
            if (uni() < 0.15) { /* an enclave: a hole in the cell, filled by another parcel */
                kcbp_vec2 c0 = L(i, j), c2 = L(i + 1, j + 1), c1 = L(i + 1, j), c3 = L(i, j + 1);
                kcbp_vec2 ctr = kcbp_v2_make((c0.x + c1.x + c2.x + c3.x) / 4, (c0.y + c1.y + c2.y + c3.y) / 4);
                parcel *e = &ps[np];
                kcbp_vec2 h[4];
                if (uni() < 0.5) { /* touching the corner c0 at a point */
                    h[0] = c0, h[1] = MID(MID(c0, c1), ctr), h[2] = ctr, h[3] = MID(MID(c0, c3), ctr);
                } else {
                    h[0] = MID(c0, ctr), h[1] = MID(c1, ctr), h[2] = MID(c2, ctr), h[3] = MID(c3, ctr);
                }
                bool rev = uni() < 0.5;
                for (int k = 0; k < 4; k++)
                    push(q, h[k]);
                end_ring(q, rev);
                for (int k = 0; k < 4; k++)
                    push(e, h[k]);
                end_ring(e, uni() < 0.5);
                cell_of[np] = i * n + j;
                enclave_of[i * n + j] = (int)np;
                np++;
            }
        }
    double scale = fmax(fabs(ox[place]), fabs(oy[place])) + step * 64 * (n + 1);
    double cell = 64 * step;
    long accepted = 0, geos_valid = 0;
    kcbp2d_model **ms = calloc(np, sizeof *ms);
    for (uint32_t k = 0; k < np; k++) {
        kcbp_error e;
        ms[k] = to_model(&ps[k], &e);
        GEOSGeometry *g = to_geos(&ps[k], NULL);
        char v = GEOSisValid_r(gh, g);
        if ((ms[k] != NULL) != (v == 1))
            bad("parcel %u: kcbp %s (%s), GEOS valid %d\n", k, ms[k] ? "accepts" : "refuses", ms[k] ? "" : e.msg, v);
        accepted += ms[k] != NULL, geos_valid += v == 1;
        GEOSGeom_destroy_r(gh, g);
    }
    /* neighbours: the 8 cells round, and the enclave in the same cell */
    static const double dirs[4][2] = {{1, 0}, {0, 1}, {0.7071067811865476, 0.7071067811865476}, {-1, 0.5}};
    const double shifts[] = {0, 1e-12 * scale, -1e-12 * scale, 0x1p-20 * cell, -0x1p-20 * cell};
    for (uint32_t a = 0; a < np; a++) {
        if (!ms[a])
            continue;
        int ca = cell_of[a], ia = ca / n, ja = ca % n;
        for (uint32_t b = 0; b < np; b++) {
            if (b == a || !ms[b])
                continue;
            int cb = cell_of[b], ib = cb / n, jb = cb % n;
            if (abs(ia - ib) > 1 || abs(ja - jb) > 1 || b < a)
                continue;
            for (size_t s = 0; s < sizeof shifts / sizeof shifts[0]; s++)
                for (int d = 0; d < (s ? 4 : 1); d++) {
                    kcbp2d_pose pb = kcbp2d_pose_identity();
                    pb.trans = kcbp_v2_make(shifts[s] * dirs[d][0], shifts[s] * dirs[d][1]);
                    char what[96];
                    snprintf(what, sizeof what, "parcels %u %u shift %g dir %d", a, b, shifts[s], d);
                    check_pair(ms[a], &ps[a], ms[b], &ps[b], &pb, scale, what);
                }
            /* one ulp of the coordinates along x */
            kcbp2d_pose pb = kcbp2d_pose_identity();
            pb.trans = kcbp_v2_make(scale * 0x1p-52, 0);
            check_pair(ms[a], &ps[a], ms[b], &ps[b], &pb, scale, "ulp");
        }
    }
    long map_pairs = pairs;
    /* nesting: a comb with a hole against a copy beside it */
    long nest = 0, nest_skipped = 0;
    for (int t = 0; t < 200; t++) {
        parcel part;
        memset(&part, 0, sizeof part);
        int teeth = irand(2, 6);
        double w = 10 * teeth, hgt = 30;
        /* a comb: a bar, teeth upward, with a rectangular hole in the bar */
        push(&part, kcbp_v2_make(0, 0));
        push(&part, kcbp_v2_make(w, 0));
        for (int k = teeth - 1; k >= 0; k--) {
            push(&part, kcbp_v2_make(10 * k + 10, hgt));
            push(&part, kcbp_v2_make(10 * k + 5, hgt));
            push(&part, kcbp_v2_make(10 * k + 5, 10));
            if (k)
                push(&part, kcbp_v2_make(10 * k, 10));
        }
        part.p[part.np - 1] = kcbp_v2_make(0, hgt); /* the first tooth's left side reaches the top */
        end_ring(&part, uni() < 0.5);
        push(&part, kcbp_v2_make(2, 2)), push(&part, kcbp_v2_make(w - 2, 2)), push(&part, kcbp_v2_make(w - 2, 6)),
            push(&part, kcbp_v2_make(2, 6));
        end_ring(&part, uni() < 0.5);
        kcbp_error e;
        kcbp2d_model *m = to_model(&part, &e);
        if (!m) {
            bad("comb %d refused: %s\n", t, e.msg);
            continue;
        }
        double size = fmax(w, hgt), margin = 1e-3 * size;
        const double gaps[] = {0, 1e-12 * size, 1e-3 * size, 0.5e-3 * size, 2e-3 * size};
        for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
            /* beside (x), above (y: the teeth interleave when turned by 180 degrees) */
            for (int side = 0; side < 3; side++) {
                kcbp2d_pose pb;
                if (side == 0)
                    kcbp2d_pose_from_angle(w + gaps[g], 0, 0, &pb, NULL);
                else if (side == 1)
                    kcbp2d_pose_from_angle(0, hgt + gaps[g], 0, &pb, NULL);
                else /* turned by 180 degrees, teeth into the gaps: exact (c = -1, s = 0) */
                    kcbp2d_pose_from_angle(w + 5 + gaps[g], hgt + 10, 180, &pb, NULL);
                char what[64];
                snprintf(what, sizeof what, "comb %d gap %g side %d", t, gaps[g], side);
                check_pair(m, &part, m, &part, &pb, 2 * size, what);
                GEOSGeometry *ga = to_geos(&part, NULL), *gb = to_geos(&part, &pb);
                double gd;
                GEOSDistance_r(gh, ga, gb, &gd);
                GEOSGeom_destroy_r(gh, ga);
                GEOSGeom_destroy_r(gh, gb);
                kcbp2d_model_collide_options co = kcbp2d_model_collide_options_default();
                co.margin = margin;
                kcbp2d_model_collide_result cr;
                kcbp2d_pose id = kcbp2d_pose_identity();
                kcbp2d_model_collide(m, &id, m, &pb, &co, &cr, NULL);
                if (fabs(gd - margin) <= 1e-9 * size) {
                    nest_skipped++;
                    continue;
                }
                if (cr.collide != (gd <= margin))
                    bad("%s: collide with margin %g: %d, GEOS distance %.17g\n", what, margin, cr.collide, gd);
                nest++;
            }
        }
        kcbp2d_model_free(m);
        free(part.p), free(part.ring_end);
    }
    /* the whole map through the GeoJSON reader */
    long map_read = -1;
    if (argc > 3) {
        FILE *f = fopen(argv[3], "w");
        if (!f) {
            perror(argv[3]);
            return 2;
        }
        write_geojson(f, ps, np);
        fclose(f);
        kcbp2d_model *all = NULL;
        kcbp_error e;
        if (kcbp2d_model_load(argv[3], &all, &e) != KCBP_OK)
            bad("the map %s refused: %s\n", argv[3], e.msg);
        else
            map_read = kcbp2d_model_ring_count(all);
        kcbp2d_model_free(all);
    }
    if (argc > 4) { /* the scene */
        char path[4096];
        uint32_t nshapes = np / 4 + 4;
        typedef struct {
            bool circle, capsule;
            double w, h, r;
            kcbp_vec2 at;
            int quarter;
        } shp;
        shp *sh = calloc(nshapes, sizeof *sh);
        kcbp_vec2 lo = L(0, 0), hi = L(n, n);
        for (uint32_t k = 0; k < nshapes; k++) {
            double u = uni();
            sh[k].circle = u < 0.3, sh[k].capsule = u >= 0.3 && u < 0.6;
            sh[k].at = kcbp_v2_make(lo.x + step * 2 * irand(0, (int)((hi.x - lo.x) / step / 2)),
                                    lo.y + step * 2 * irand(0, (int)((hi.y - lo.y) / step / 2)));
            sh[k].w = step * 2 * irand(1, 20), sh[k].h = step * 2 * irand(1, 20), sh[k].r = step * irand(1, 40);
            sh[k].quarter = irand(0, 3);
        }
        snprintf(path, sizeof path, "%s/scene.json", argv[4]);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 2;
        }
        fprintf(f, "{\"objects\": [\n");
        for (uint32_t k = 0; k < np; k++) {
            char pp[4096];
            snprintf(pp, sizeof pp, "%s/p%u.geojson", argv[4], (unsigned)k);
            FILE *g = fopen(pp, "w");
            write_geojson(g, &ps[k], 1);
            fclose(g);
            fprintf(f, "%s{\"name\": \"p%u\", \"mesh\": \"p%u.geojson\", \"pose\": [0, 0, 0]}", k ? ",\n" : "",
                    (unsigned)k, (unsigned)k);
        }
        for (uint32_t k = 0; k < nshapes; k++) {
            if (sh[k].circle)
                fprintf(f, ",\n{\"name\": \"s%u\", \"shape\": {\"circle\": {\"radius\": %.17g}}, \"pose\": [%.17g, %.17g, 0]}",
                        (unsigned)k, sh[k].r, sh[k].at.x, sh[k].at.y);
            else if (sh[k].capsule)
                fprintf(f, ",\n{\"name\": \"s%u\", \"shape\": {\"capsule2d\": {\"radius\": %.17g, \"length\": %.17g}}, "
                           "\"pose\": [%.17g, %.17g, %d]}",
                        (unsigned)k, sh[k].r, sh[k].w, sh[k].at.x, sh[k].at.y, 90 * sh[k].quarter);
            else
                fprintf(f, ",\n{\"name\": \"s%u\", \"shape\": {\"rect\": {\"size\": [%.17g, %.17g]}}, \"pose\": [%.17g, %.17g, %d]}",
                        (unsigned)k, sh[k].w, sh[k].h, sh[k].at.x, sh[k].at.y, 90 * sh[k].quarter);
        }
        fprintf(f, "\n]}\n");
        fclose(f);
        /* the expected pairs, by GEOS */
        uint32_t nobj = np + nshapes;
        GEOSGeometry **g = calloc(nobj, sizeof *g);
        for (uint32_t k = 0; k < np; k++)
            g[k] = to_geos(&ps[k], NULL);
        for (uint32_t k = 0; k < nshapes; k++) {
            parcel q;
            memset(&q, 0, sizeof q);
            if (sh[k].circle) {
                push(&q, sh[k].at);
            } else if (sh[k].capsule) { /* the core segment, turned by quarter turns (exact) */
                double hx = sh[k].quarter % 2 ? 0 : sh[k].w / 2, hy = sh[k].quarter % 2 ? sh[k].w / 2 : 0;
                push(&q, kcbp_v2_make(sh[k].at.x - hx, sh[k].at.y - hy));
                push(&q, kcbp_v2_make(sh[k].at.x + hx, sh[k].at.y + hy));
            } else {
                double hw = (sh[k].quarter % 2 ? sh[k].h : sh[k].w) / 2, hh = (sh[k].quarter % 2 ? sh[k].w : sh[k].h) / 2;
                push(&q, kcbp_v2_make(sh[k].at.x - hw, sh[k].at.y - hh));
                push(&q, kcbp_v2_make(sh[k].at.x + hw, sh[k].at.y - hh));
                push(&q, kcbp_v2_make(sh[k].at.x + hw, sh[k].at.y + hh));
                push(&q, kcbp_v2_make(sh[k].at.x - hw, sh[k].at.y + hh));
            }
            if (sh[k].circle) {
                GEOSCoordSequence *cs = GEOSCoordSeq_create_r(gh, 1, 2);
                GEOSCoordSeq_setXY_r(gh, cs, 0, q.p[0].x, q.p[0].y);
                g[np + k] = GEOSGeom_createPoint_r(gh, cs);
            } else if (sh[k].capsule) {
                GEOSCoordSequence *cs = GEOSCoordSeq_create_r(gh, 2, 2);
                GEOSCoordSeq_setXY_r(gh, cs, 0, q.p[0].x, q.p[0].y);
                GEOSCoordSeq_setXY_r(gh, cs, 1, q.p[1].x, q.p[1].y);
                g[np + k] = GEOSGeom_createLineString_r(gh, cs);
            } else {
                end_ring(&q, false);
                g[np + k] = to_geos(&q, NULL);
            }
            free(q.p), free(q.ring_end);
        }
        snprintf(path, sizeof path, "%s/expected.txt", argv[4]);
        FILE *ex = fopen(path, "w");
        snprintf(path, sizeof path, "%s/skip.txt", argv[4]);
        FILE *sk = fopen(path, "w");
        long expected = 0, skipped = 0;
        for (uint32_t i = 0; i < nobj; i++)
            for (uint32_t j = i + 1; j < nobj; j++) {
                double r = (i >= np && (sh[i - np].circle || sh[i - np].capsule) ? sh[i - np].r : 0) +
                           (j >= np && (sh[j - np].circle || sh[j - np].capsule) ? sh[j - np].r : 0);
                char name_i[16], name_j[16];
                snprintf(name_i, sizeof name_i, i < np ? "p%u" : "s%u", (unsigned)(i < np ? i : i - np));
                snprintf(name_j, sizeof name_j, j < np ? "p%u" : "s%u", (unsigned)(j < np ? j : j - np));
                bool meet;
                if (r > 0) {
                    double d;
                    GEOSDistance_r(gh, g[i], g[j], &d);
                    if (fabs(d - r) <= 1e-9 * cell) {
                        fprintf(sk, "%s %s\n", name_i, name_j), skipped++;
                        continue;
                    }
                    meet = d <= r;
                } else {
                    meet = GEOSIntersects_r(gh, g[i], g[j]) == 1;
                }
                if (meet)
                    fprintf(ex, "%s %s\n", name_i, name_j), expected++;
            }
        fclose(ex);
        fclose(sk);
        for (uint32_t k = 0; k < nobj; k++)
            GEOSGeom_destroy_r(gh, g[k]);
        free(g), free(sh);
        printf("scene %s/scene.json: %u objects (%u parcels, %u shapes), %ld pairs meet by GEOS, %ld left out\n",
               argv[4], (unsigned)nobj, (unsigned)np, (unsigned)nshapes, expected, skipped);
    }
    printf("twod_geos n=%d seed=%s placement=%d: %u parcels (%ld accepted, %ld GEOS-valid); %ld map pairs "
           "(%ld colliding: %ld touching, %ld overlapping); %ld nesting margin checks (%ld within 1e-9 of the "
           "margin skipped); map read back: %ld rings; %d disagreements\n",
           n, argv[2], place, (unsigned)np, accepted, geos_valid, map_pairs, n_collide, n_touch, n_overlap, nest,
           nest_skipped, map_read, disagreements);
    for (uint32_t k = 0; k < np; k++) {
        kcbp2d_model_free(ms[k]);
        free(ps[k].p), free(ps[k].ring_end);
    }
    free(ms), free(ps), free(lat), free(hmid), free(vmid), free(cell_of), free(enclave_of);
    GEOS_finish_r(gh);
    return disagreements ? 1 : 0;
}
