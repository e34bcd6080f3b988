/* --html FILE: one self-contained page that shows the answer (view.h).
 *
 * The page inlines three.js r111 and its OrbitControls (Debian's
 * libjs-three, compiled into the program: cli/viewer/assets.h) and kcbp's
 * viewer script and style (cli/viewer/viewer.js, viewer.css); a
 * Content-Security-Policy forbids it every load from anywhere (it opens
 * with no network, and cannot reach one). Its data are two script
 * elements: #kcbp-data, the manifest (JSON), and #kcbp-bin, base64 of one
 * buffer of little-endian Float32 and Uint32 arrays (positions, triangles,
 * contact triangles, a moving scene's poses): binary, not JSON text of
 * coordinates, so a page weighs about 4/3 of the geometry's float32 bytes
 * plus three.js's 0.85 MB.
 *
 * Coordinates are normalised before they are rounded to float32: each
 * mesh's vertices about its own box (so a mesh far from its origin keeps
 * its precision), and the scene's box centred on the origin and scaled to
 * about 1 (so that coordinates up to 1e60 fit a float32); each object's
 * matrix, computed in double, carries one into the other. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json_line.h"
#include "view.h"
#include "viewer/assets.h"

/* The geometry a page may hold, before base64. */
#define HTML_MAX_BYTES ((size_t)512 << 20)

typedef struct {
    unsigned char *d;
    size_t n, cap;
    bool failed, too_big;
} blob;

/* Appends len bytes; returns their offset (a multiple of 4: every piece is
 * an array of 4-byte numbers). */
static size_t blob_put(blob *b, const void *p, size_t len)
{
    size_t at = b->n;
    if (b->failed)
        return at;
    if (len > HTML_MAX_BYTES - b->n) {
        b->failed = b->too_big = true;
        return at;
    }
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + len)
            cap *= 2;
        unsigned char *d = realloc(b->d, cap);
        if (!d) {
            b->failed = true;
            return at;
        }
        b->d = d;
        b->cap = cap;
    }
    if (len)
        memcpy(b->d + b->n, p, len);
    b->n += len;
    return at;
}

/* [offset, count] of an array just added. */
static void range(kcbp_jl *w, const char *key, size_t at, size_t count)
{
    kcbp_jl_key(w, key);
    kcbp_jl_open(w, '[');
    kcbp_jl_uint(w, at);
    kcbp_jl_uint(w, count);
    kcbp_jl_close(w, ']');
}

/* A box's centre and the largest half-extent (1 for a point). */
static void box_frame(kcbp_aabb b, kcbp_vec3 *c, double *s)
{
    *c = kcbp_aabb_center(b);
    kcbp_vec3 e = kcbp_aabb_extent(b);
    *s = fmax(e.x, fmax(e.y, e.z));
    if (!(*s > 0))
        *s = 1;
}

typedef struct {
    kcbp_vec3 c;
    double s;
} norm;

/* Points (v - c) / s as float32, into the blob. */
static size_t put_points(blob *b, const kcbp_vec3 *pts, const kcbp_model *m, uint32_t n, norm nm)
{
    float *f = malloc((n ? n : 1) * 3 * sizeof *f);
    if (!f) {
        b->failed = true;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 p = pts ? pts[i] : kcbp_view_vertex(m, i);
        f[3 * i] = (float)((p.x - nm.c.x) / nm.s);
        f[3 * i + 1] = (float)((p.y - nm.c.y) / nm.s);
        f[3 * i + 2] = (float)((p.z - nm.c.z) / nm.s);
    }
    size_t at = blob_put(b, f, (size_t)n * 12);
    free(f);
    return at;
}

/* The 3x4 matrix (column-major) taking a mesh's stored (normalised)
 * positions to the page's frame at pose p. */
static void page_matrix(const kcbp_pose *p, norm mesh, norm world, double out[12])
{
    kcbp_vec3 t = kcbp_v3_scale(kcbp_v3_sub(kcbp_pose_apply(p, mesh.c), world.c), 1 / world.s);
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 3; row++)
            out[col * 3 + row] = p->rot.m[row][col] * mesh.s / world.s;
    out[9] = t.x;
    out[10] = t.y;
    out[11] = t.z;
}

static void put_color(kcbp_jl *w, const char *key, uint32_t rgb)
{
    kcbp_jl_key(w, key);
    kcbp_jl_uint(w, rgb);
}

/* The manifest (JSON) and the blob. */
static char *build(const kcbp_view *v, blob *b)
{
    kcbp_jl w;
    kcbp_jl_init(&w);
    norm world;
    box_frame(kcbp_view_world_bounds(v), &world.c, &world.s);
    norm *mn = malloc(((size_t)v->nmodels + 1) * sizeof *mn);
    if (!mn) {
        b->failed = true;
        return kcbp_jl_finish(&w), NULL;
    }
    kcbp_jl_open(&w, '{');
    kcbp_jl_key(&w, "kind");
    kcbp_jl_string(&w, v->kind);
    kcbp_jl_key(&w, "title");
    kcbp_jl_string(&w, v->title);
    put_color(&w, "contact_color", KCBP_VIEW_CONTACT_RGB);
    put_color(&w, "points_color", KCBP_VIEW_POINTS_RGB);
    kcbp_aabb wb = kcbp_view_world_bounds(v);
    kcbp_jl_key(&w, "radius");
    kcbp_jl_double(&w, fmax(kcbp_v3_len(kcbp_aabb_extent(wb)) / world.s, 1e-3));
    kcbp_jl_key(&w, "meshes");
    kcbp_jl_open(&w, '[');
    for (uint32_t mi = 0; mi < v->nmodels; mi++) {
        const kcbp_model *m = v->models[mi];
        box_frame(kcbp_view_bounds(m), &mn[mi].c, &mn[mi].s);
        uint32_t nv = kcbp_view_nvertices(m), nt = kcbp_view_ntriangles(m);
        kcbp_jl_open(&w, '{');
        range(&w, "positions", put_points(b, NULL, m, nv, mn[mi]), (size_t)nv * 3);
        size_t at = b->n;
        for (uint32_t t = 0; t < nt; t++)
            blob_put(b, kcbp_view_triangle(m, t), 12);
        range(&w, "indices", at, (size_t)nt * 3);
        kcbp_vec3 *pts;
        uint32_t *tri, cnv, cnt;
        if (!kcbp_view_cbp_triangles(m, &pts, &cnv, &tri, &cnt))
            b->failed = true;
        kcbp_jl_key(&w, "cbp");
        if (cnt) {
            kcbp_jl_open(&w, '{');
            range(&w, "positions", put_points(b, pts, NULL, cnv, mn[mi]), (size_t)cnv * 3);
            range(&w, "indices", blob_put(b, tri, (size_t)cnt * 12), (size_t)cnt * 3);
            kcbp_jl_close(&w, '}');
        } else {
            kcbp_jl_null(&w);
        }
        free(pts);
        free(tri);
        kcbp_jl_close(&w, '}');
    }
    kcbp_jl_close(&w, ']');
    kcbp_jl_key(&w, "objects");
    kcbp_jl_open(&w, '[');
    for (uint32_t i = 0; i < v->nobjects; i++) {
        const kcbp_view_object *o = &v->objects[i];
        kcbp_jl_open(&w, '{');
        kcbp_jl_key(&w, "name");
        kcbp_jl_string(&w, o->name);
        kcbp_jl_key(&w, "mesh");
        kcbp_jl_uint(&w, o->model);
        put_color(&w, "color", o->color);
        kcbp_jl_key(&w, "style");
        kcbp_jl_string(&w, o->style == KCBP_VIEW_GHOST ? "ghost" : "solid");
        double mat[12];
        page_matrix(&o->pose, mn[o->model], world, mat);
        kcbp_jl_key(&w, "matrix");
        kcbp_jl_open(&w, '[');
        for (int k = 0; k < 12; k++)
            kcbp_jl_double(&w, mat[k]);
        kcbp_jl_close(&w, ']');
        if (o->marked) {
            size_t at = b->n, n = 0;
            uint32_t nt = kcbp_view_ntriangles(v->models[o->model]);
            for (uint32_t t = 0; t < nt; t++)
                if (o->marked[t]) {
                    blob_put(b, &t, 4);
                    n++;
                }
            range(&w, "marked", at, n);
        }
        kcbp_jl_close(&w, '}');
    }
    kcbp_jl_close(&w, ']');
    if (v->npath > 1) {
        kcbp_jl_key(&w, "path");
        kcbp_jl_open(&w, '[');
        for (uint32_t k = 0; k < v->npath; k++) {
            kcbp_vec3 q = kcbp_v3_scale(kcbp_v3_sub(v->path[k], world.c), 1 / world.s);
            kcbp_jl_double(&w, q.x);
            kcbp_jl_double(&w, q.y);
            kcbp_jl_double(&w, q.z);
        }
        kcbp_jl_close(&w, ']');
    }
    if (v->has_points) {
        kcbp_vec3 p[2] = {v->point_a, v->point_b};
        kcbp_jl_key(&w, "points");
        kcbp_jl_open(&w, '{');
        for (int k = 0; k < 2; k++) {
            kcbp_vec3 q = kcbp_v3_scale(kcbp_v3_sub(p[k], world.c), 1 / world.s);
            kcbp_jl_key(&w, k ? "b" : "a");
            kcbp_jl_open(&w, '[');
            kcbp_jl_double(&w, q.x);
            kcbp_jl_double(&w, q.y);
            kcbp_jl_double(&w, q.z);
            kcbp_jl_close(&w, ']');
        }
        kcbp_jl_close(&w, '}');
    }
    if (v->frames && v->poses) {
        kcbp_jl_key(&w, "dt");
        kcbp_jl_double(&w, v->dt);
        kcbp_jl_key(&w, "frames");
        kcbp_jl_open(&w, '{');
        kcbp_jl_key(&w, "count");
        kcbp_jl_uint(&w, v->frames);
        size_t at = b->n;
        for (uint32_t f = 0; f < v->frames && !b->failed; f++)
            for (uint32_t i = 0; i < v->nobjects; i++) {
                double mat[12];
                float m32[12];
                page_matrix(&v->poses[(size_t)f * v->nobjects + i], mn[v->objects[i].model], world, mat);
                for (int k = 0; k < 12; k++)
                    m32[k] = (float)mat[k];
                blob_put(b, m32, sizeof m32);
            }
        range(&w, "poses", at, (size_t)v->frames * v->nobjects * 12);
        at = b->n;
        for (uint32_t f = 0; f <= v->frames; f++) {
            uint32_t s = (uint32_t)v->mark_start[f];
            blob_put(b, &s, 4);
        }
        range(&w, "mark_start", at, (size_t)v->frames + 1);
        size_t nmarks = v->mark_start[v->frames];
        range(&w, "marks", blob_put(b, v->marks, nmarks * 8), nmarks * 2);
        kcbp_jl_close(&w, '}');
    }
    kcbp_jl_key(&w, "answers");
    kcbp_jl_open(&w, '[');
    kcbp_jl_close(&w, ']');
    kcbp_jl_close(&w, '}');
    free(mn);
    char *text = kcbp_jl_finish(&w);
    if (!text)
        b->failed = true;
    return text;
}

/* JSON inside a script element: '<' (only ever inside strings) as \u003c,
 * so that no text can close the element. */
static void put_json(FILE *f, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '<') {
            fwrite(s + from, 1, i - from, f);
            fputs("\\u003c", f);
            from = i + 1;
        }
    fwrite(s + from, 1, n - from, f);
}

static void put_base64(FILE *f, const unsigned char *d, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char line[77];
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t x = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        line[k++] = al[x >> 18 & 63];
        line[k++] = al[x >> 12 & 63];
        line[k++] = i + 1 < n ? al[x >> 6 & 63] : '=';
        line[k++] = i + 2 < n ? al[x & 63] : '=';
        if (k == 76 || i + 3 >= n) {
            line[k++] = '\n';
            fwrite(line, 1, k, f);
            k = 0;
        }
    }
}

static void put_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

static const char three_license[] =
    "/* three.js r111, from Debian's libjs-three, inlined by kcbp.\n"
    " * The MIT License. Copyright (c) 2010-2019 three.js authors.\n"
    " * Permission is hereby granted, free of charge, to any person obtaining a copy of this software and\n"
    " * associated documentation files (the \"Software\"), to deal in the Software without restriction,\n"
    " * including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense,\n"
    " * and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do\n"
    " * so, subject to the following conditions: The above copyright notice and this permission notice\n"
    " * shall be included in all copies or substantial portions of the Software.\n"
    " * THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT\n"
    " * LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN\n"
    " * NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY,\n"
    " * WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE\n"
    " * SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE. */\n";

kcbp_status kcbp_html_write(const char *path, const kcbp_view *v, kcbp_error *err)
{
    blob b = {0};
    char *manifest = build(v, &b);
    if (b.failed) {
        free(manifest);
        free(b.d);
        if (b.too_big)
            return kcbp_error_set(err, KCBP_ERR_LIMIT, "--html: %s: the page would hold more than %zu MiB of geometry",
                                  path, HTML_MAX_BYTES >> 20);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        free(manifest);
        free(b.d);
        return kcbp_error_set(err, KCBP_ERR_IO, "--html: %s: cannot open for writing: %s", path, strerror(errno));
    }
    kcbp_cli_partial_begin(path); /* removed if interrupted (interrupt.h) */
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          /* Nothing may be loaded from anywhere: the page is whole. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
          "style-src 'unsafe-inline'; img-src data: blob:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"kcbp " KCBP_VERSION_STRING "\">\n<title>",
          f);
    put_text(f, v->title);
    fputs("</title>\n<style>\n", f);
    fwrite(kcbp_asset_viewer_css, 1, kcbp_asset_viewer_css_len, f);
    fputs("</style>\n</head>\n<body>\n<div id=\"kcbp-legend\"></div>\n<div id=\"kcbp-error\"></div>\n"
          "<pre id=\"kcbp-stats\"></pre>\n<script id=\"kcbp-data\" type=\"application/json\">\n",
          f);
    /* The answers go in the manifest's last array, "answers":[]. */
    size_t mlen = strlen(manifest);
    put_json(f, manifest, mlen - 2);
    if (v->answer) {
        if (v->answer_is_list) {
            size_t alen = strlen(v->answer);
            put_json(f, v->answer + 1, alen >= 2 ? alen - 2 : 0); /* the list's items */
        } else {
            put_json(f, v->answer, strlen(v->answer));
        }
    }
    fputs("]}\n</script>\n<script id=\"kcbp-bin\" type=\"application/octet-stream\">\n", f);
    put_base64(f, b.d, b.n);
    fputs("</script>\n<script>\n", f);
    fputs(three_license, f);
    fwrite(kcbp_asset_three, 1, kcbp_asset_three_len, f);
    fputs("\n</script>\n<script>\n", f);
    fwrite(kcbp_asset_orbit, 1, kcbp_asset_orbit_len, f);
    fputs("\n</script>\n<script>\n", f);
    fwrite(kcbp_asset_viewer_js, 1, kcbp_asset_viewer_js_len, f);
    fputs("</script>\n</body>\n</html>\n", f);
    free(manifest);
    free(b.d);
    errno = 0;
    bool bad = ferror(f) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    kcbp_cli_partial_end(path);
    if (bad) {
        kcbp_view_remove_partial(path);
        return kcbp_error_set(err, KCBP_ERR_IO, "--html: %s: cannot write: %s", path, e ? strerror(e) : "write error");
    }
    return KCBP_OK;
}
