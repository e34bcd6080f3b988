/* GeoJSON polygons into 2D models (include/kcbp/polygon2d.h). */
#include <kcbp/polygon2d.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/input.h"
#include "base/json_lock.h"

/* Where a ring came from, for messages. */
typedef struct {
    int feature; /* features[i], -1 when the root is not a collection */
    int multi;   /* coordinates[m] of a MultiPolygon, -1 for a Polygon */
    int ring;    /* the ring within its polygon */
} ring_src;

typedef struct {
    const char *name;
    bool root_feature; /* the root is a Feature: paths start with "geometry." */
    kcbp_vec2 *pts;
    size_t npts, cap_pts;
    uint32_t *ring_end, *polygon_end;
    ring_src *src;
    size_t nrings, cap_rings, npolygons, cap_polygons;
    kcbp_error *err;
} reader;

/* The JSON path of a geometry (feature f, or the root). */
static void geom_path(const reader *r, int feature, char *buf, size_t n)
{
    if (feature >= 0)
        snprintf(buf, n, "features[%d].geometry", feature);
    else
        snprintf(buf, n, "%s", r->root_feature ? "geometry" : "(root)");
}

static void ring_path(const reader *r, const ring_src *s, char *buf, size_t n)
{
    char g[64];
    geom_path(r, s->feature, g, sizeof g);
    if (s->multi >= 0)
        snprintf(buf, n, "%s.coordinates[%d][%d]", g, s->multi, s->ring);
    else
        snprintf(buf, n, "%s.coordinates[%d]", g, s->ring);
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static kcbp_status nomem(reader *r) { return kcbp_error_set(r->err, KCBP_ERR_NOMEM, "%s: out of memory", r->name); }

/* One ring: an array of >= 4 positions, closed. */
static kcbp_status read_ring(reader *r, const cJSON *ring, ring_src src)
{
    char path[128];
    ring_path(r, &src, path, sizeof path);
    if (!cJSON_IsArray(ring))
        return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s: a ring must be an array of positions", r->name, path);
    int n = cJSON_GetArraySize(ring);
    if (n < 4)
        return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s: a ring needs at least 4 positions (closed), not %d",
                              r->name, path, n);
    size_t start = r->npts;
    int i = 0;
    kcbp_vec2 first = {0, 0}, last = {0, 0};
    const cJSON *pos;
    cJSON_ArrayForEach(pos, ring)
    {
        int k = cJSON_IsArray(pos) ? cJSON_GetArraySize(pos) : 0;
        if (k < 2 || k > 3)
            return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s[%d]: a position is [x, y] (or [x, y, z])", r->name,
                                  path, i);
        double c[2];
        for (int j = 0; j < 2; j++) {
            const cJSON *num = cJSON_GetArrayItem(pos, j);
            if (!cJSON_IsNumber(num))
                return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s[%d][%d]: not a number", r->name, path, i, j);
            c[j] = num->valuedouble;
            if (!isfinite(c[j]) || fabs(c[j]) > KCBP_COORD_MAX)
                return kcbp_error_set(r->err, KCBP_ERR_INVALID, "%s: %s[%d][%d]: %g is not finite or beyond %g",
                                      r->name, path, i, j, c[j], KCBP_COORD_MAX);
        }
        kcbp_vec2 p = {c[0], c[1]};
        if (i == 0)
            first = p;
        last = p;
        /* merge consecutive equal positions (and the closing one, below) */
        if (r->npts == start || r->pts[r->npts - 1].x != p.x || r->pts[r->npts - 1].y != p.y) {
            if (!grow((void **)&r->pts, &r->cap_pts, r->npts + 1, sizeof *r->pts))
                return nomem(r);
            r->pts[r->npts++] = p;
        }
        i++;
    }
    if (first.x != last.x || first.y != last.y)
        return kcbp_error_set(r->err, KCBP_ERR_PARSE,
                              "%s: %s: the ring is not closed (its last position (%g, %g) is not its first (%g, %g))",
                              r->name, path, last.x, last.y, first.x, first.y);
    r->npts--; /* the closing position */
    if (r->npts - start < 3)
        return kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: %s: the ring has fewer than 3 distinct positions",
                              r->name, path);
    if (r->npts > KCBP2D_MODEL_MAX_VERTICES)
        return kcbp_error_set(r->err, KCBP_ERR_LIMIT, "%s: more than %u positions", r->name,
                              KCBP2D_MODEL_MAX_VERTICES);
    return KCBP_OK;
}

/* Appends ring metadata (kept beside ring_end, same capacity). */
static kcbp_status add_ring(reader *r, const cJSON *ring, ring_src src)
{
    size_t before = r->cap_rings;
    if (!grow((void **)&r->ring_end, &r->cap_rings, r->nrings + 1, sizeof *r->ring_end))
        return nomem(r);
    if (r->cap_rings != before || !r->src) {
        ring_src *q = realloc(r->src, r->cap_rings * sizeof *q);
        if (!q)
            return nomem(r);
        r->src = q;
    }
    kcbp_status st = read_ring(r, ring, src);
    if (st != KCBP_OK)
        return st;
    r->ring_end[r->nrings] = (uint32_t)r->npts;
    r->src[r->nrings] = src;
    r->nrings++;
    return KCBP_OK;
}

/* A Polygon's coordinates: an array of rings, the first the outer one. */
static kcbp_status read_polygon(reader *r, const cJSON *coords, int feature, int multi)
{
    char g[64], path[96];
    geom_path(r, feature, g, sizeof g);
    if (multi >= 0)
        snprintf(path, sizeof path, "%s.coordinates[%d]", g, multi);
    else
        snprintf(path, sizeof path, "%s.coordinates", g);
    if (!cJSON_IsArray(coords))
        return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s: a polygon must be an array of rings", r->name, path);
    if (cJSON_GetArraySize(coords) == 0)
        return kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: %s: an empty polygon", r->name, path);
    int k = 0;
    const cJSON *ring;
    cJSON_ArrayForEach(ring, coords)
    {
        ring_src src = {feature, multi, k++};
        kcbp_status st = add_ring(r, ring, src);
        if (st != KCBP_OK)
            return st;
    }
    if (!grow((void **)&r->polygon_end, &r->cap_polygons, r->npolygons + 1, sizeof *r->polygon_end))
        return nomem(r);
    r->polygon_end[r->npolygons++] = (uint32_t)r->nrings;
    return KCBP_OK;
}

static kcbp_status read_geometry(reader *r, const cJSON *geom, int feature)
{
    char g[64];
    geom_path(r, feature, g, sizeof g);
    if (!geom || cJSON_IsNull(geom))
        return kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: %s: a null geometry (nothing to collide)", r->name, g);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(geom, "type");
    if (!cJSON_IsObject(geom) || !cJSON_IsString(type))
        return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s: not a GeoJSON geometry (no \"type\")", r->name, g);
    const cJSON *coords = cJSON_GetObjectItemCaseSensitive(geom, "coordinates");
    const char *t = type->valuestring;
    if (!strcmp(t, "Polygon") || !strcmp(t, "MultiPolygon")) {
        if (!cJSON_IsArray(coords))
            return kcbp_error_set(r->err, KCBP_ERR_PARSE, "%s: %s: a %s without \"coordinates\"", r->name, g, t);
        if (cJSON_GetArraySize(coords) == 0)
            return kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: %s: an empty %s", r->name, g, t);
        if (t[0] == 'P')
            return read_polygon(r, coords, feature, -1);
        int m = 0;
        const cJSON *poly;
        cJSON_ArrayForEach(poly, coords)
        {
            kcbp_status st = read_polygon(r, poly, feature, m++);
            if (st != KCBP_OK)
                return st;
        }
        return KCBP_OK;
    }
    return kcbp_error_set(r->err, KCBP_ERR_PARSE,
                          "%s: %s: a %s has no area (the 2D reader takes Polygon and MultiPolygon geometries)",
                          r->name, g, t);
}

/* After a failed check: name the first ring that is not simple alone,
 * else the first polygon whose rings do not bound it simply. */
static void locate_geometry_error(reader *r)
{
    char path[128];
    for (size_t i = 0, s = 0; i < r->nrings; s = r->ring_end[i], i++) {
        kcbp2d_model *m = NULL;
        if (kcbp2d_model_build_polygon(r->pts + s, r->ring_end[i] - (uint32_t)s, &m, NULL) == KCBP_ERR_GEOMETRY) {
            ring_path(r, &r->src[i], path, sizeof path);
            kcbp_error_set(r->err, KCBP_ERR_GEOMETRY,
                           "%s: %s: the ring crosses or touches itself (or repeats a position)", r->name, path);
            return;
        }
        kcbp2d_model_free(m);
    }
    for (size_t j = 0, r0 = 0; j < r->npolygons; r0 = r->polygon_end[j], j++) {
        uint32_t s = r0 ? r->ring_end[r0 - 1] : 0, k = r->polygon_end[j] - (uint32_t)r0;
        uint32_t *ends = malloc(k * sizeof *ends);
        if (!ends) { /* no memory to say which: the failure still has its message */
            kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: the rings do not bound a region simply", r->name);
            return;
        }
        for (uint32_t i = 0; i < k; i++)
            ends[i] = r->ring_end[r0 + i] - s;
        uint32_t pe = k;
        kcbp2d_polygons in = {r->pts + s, ends, k, &pe, 1};
        kcbp2d_model *m = NULL;
        kcbp_error e2;
        e2.msg[0] = '\0';
        kcbp_status st = kcbp2d_model_build(&in, &m, &e2);
        free(ends);
        kcbp2d_model_free(m);
        if (st == KCBP_ERR_GEOMETRY) {
            char g[64];
            geom_path(r, r->src[r0].feature, g, sizeof g);
            if (r->src[r0].multi >= 0)
                snprintf(path, sizeof path, "%s.coordinates[%d]", g, r->src[r0].multi);
            else
                snprintf(path, sizeof path, "%s.coordinates", g);
            const char *why = strstr(e2.msg, "do not bound a region: ");
            if (why)
                kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: %s: %s", r->name, path,
                               why + strlen("do not bound a region: "));
            else
                kcbp_error_set(r->err, KCBP_ERR_GEOMETRY,
                               "%s: %s: the polygon's rings cross or touch each other, or a hole lies outside it",
                               r->name, path);
            return;
        }
    }
    kcbp_error_set(r->err, KCBP_ERR_GEOMETRY, "%s: polygons of the file overlap each other (they may only touch)", r->name);
}

kcbp_status kcbp2d_model_parse_geojson(const char *text, size_t len, const char *name, kcbp2d_model **out,
                                       kcbp_error *err)
{
    if (out)
        *out = NULL;
    if (!name)
        name = "(GeoJSON)";
    if (!text || !out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: no text", name);
    char *buf = malloc(len + 1);
    if (!buf)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu bytes", name, len);
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *end = NULL;
    cJSON *doc = kcbp_json_parse_locked(buf, len + 1, &end);
    if (!doc) {
        size_t at = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len, line = 1, col = 1;
        for (size_t i = 0; i < at; i++) {
            if (buf[i] == '\n')
                line++, col = 1;
            else
                col++;
        }
        int show = 0;
        while (at + (size_t)show < len && show < 20 && buf[at + show] != '\n' && buf[at + show] != '\r')
            show++;
        kcbp_status st = at >= len ? kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%zu:%zu: invalid JSON: unexpected end of text",
                                                    name, line, col)
                                   : kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%zu:%zu: invalid JSON near '%.*s'", name,
                                                    line, col, show, buf + at);
        free(buf);
        return st;
    }
    free(buf);
    reader r;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.err = err;
    kcbp_status st = KCBP_OK;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(doc, "type");
    if (!cJSON_IsObject(doc) || !cJSON_IsString(type)) {
        st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s: not GeoJSON (no \"type\" at the top)", name);
    } else if (!strcmp(type->valuestring, "FeatureCollection")) {
        const cJSON *fs = cJSON_GetObjectItemCaseSensitive(doc, "features"), *f;
        if (!cJSON_IsArray(fs))
            st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s: a FeatureCollection without \"features\"", name);
        else if (cJSON_GetArraySize(fs) == 0)
            st = kcbp_error_set(err, KCBP_ERR_GEOMETRY, "%s: an empty FeatureCollection", name);
        int i = 0;
        if (st == KCBP_OK)
            cJSON_ArrayForEach(f, fs)
            {
                const cJSON *ft = cJSON_GetObjectItemCaseSensitive(f, "type");
                if (!cJSON_IsString(ft) || strcmp(ft->valuestring, "Feature")) {
                    st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s: features[%d]: not a Feature", name, i);
                    break;
                }
                if ((st = read_geometry(&r, cJSON_GetObjectItemCaseSensitive(f, "geometry"), i)) != KCBP_OK)
                    break;
                i++;
            }
    } else if (!strcmp(type->valuestring, "Feature")) {
        r.root_feature = true;
        st = read_geometry(&r, cJSON_GetObjectItemCaseSensitive(doc, "geometry"), -1);
    } else {
        st = read_geometry(&r, doc, -1);
    }
    cJSON_Delete(doc);
    if (st == KCBP_OK) {
        kcbp2d_polygons in = {r.pts, r.ring_end, (uint32_t)r.nrings, r.polygon_end, (uint32_t)r.npolygons};
        kcbp_error e2;
        st = kcbp2d_model_build(&in, out, &e2);
        if (st == KCBP_ERR_GEOMETRY)
            locate_geometry_error(&r);
        else if (st != KCBP_OK && err)
            *err = e2, kcbp_error_prefix(err, name);
    }
    free(r.pts);
    free(r.ring_end);
    free(r.polygon_end);
    free(r.src);
    return st;
}

kcbp_status kcbp2d_model_load(const char *path, kcbp2d_model **out, kcbp_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D model: no path");
    kcbp_input in;
    kcbp_status st = kcbp_input_open(&in, path, "a GeoJSON or SVG file", err);
    if (st != KCBP_OK)
        return st;
    char *data = NULL;
    size_t len = 0;
    /* Text only: a stream stops at the chunk holding its first NUL byte
     * (/dev/zero, /dev/urandom: read to the 1 GiB limit before, 1 GB of
     * memory and 16 s for /dev/urandom). */
    st = kcbp_input_read_all(&in, KCBP2D_GEOJSON_MAX_BYTES, "1 GiB", NULL, NULL, &data, &len, err);
    kcbp_input_close(&in);
    if (st != KCBP_OK)
        return st;
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        size_t at = (size_t)(nul - data), line = 1;
        for (const char *c = data; c < nul; c++)
            line += *c == '\n';
        free(data);
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%zu: NUL byte at offset %zu: not a GeoJSON or SVG text file",
                              path, line, at);
    }
    size_t pl = strlen(path);
    if (pl > 4 && !strcasecmp(path + pl - 4, ".svg"))
        st = kcbp2d_model_parse_svg(data, len, path, KCBP2D_SVG_FLATTEN, out, err);
    else
        st = kcbp2d_model_parse_geojson(data, len, path, out, err);
    free(data);
    return st;
}
