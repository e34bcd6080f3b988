/* The drawing pieces of the 2D pages (html2d_draw.h).
 *
 * Coordinates are carried to the page as (x - cx) k, (cy - y) k, with
 * (cx, cy) the centre of everything drawn and k = 1000 / its larger side,
 * printed to 9 digits (the svg element states cx cy as data-center and k
 * as data-scale): a picture far from the origin or at any scale keeps
 * its detail (a browser's SVG is float32). The viewBox fits the drawing
 * with a margin of 6%; every stroke is non-scaling (vector-effect), so
 * lines stay thin and visible at any zoom.
 *
 * A page is well-formed XML as well as HTML (every element closed, text
 * escaped): tests/test_html2d.sh parses each both ways. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html2d_draw.h"
#include "interrupt.h"
#include "view.h"

void kcbp_html2d_box_add(kcbp_html2d_box *b, kcbp_vec2 p)
{
    if (!isfinite(p.x) || !isfinite(p.y))
        return;
    if (!b->any) {
        b->lo_x = b->hi_x = p.x, b->lo_y = b->hi_y = p.y, b->any = true;
        return;
    }
    b->lo_x = fmin(b->lo_x, p.x), b->hi_x = fmax(b->hi_x, p.x);
    b->lo_y = fmin(b->lo_y, p.y), b->hi_y = fmax(b->hi_y, p.y);
}

/* A shape's core in the world: its points (1 to npoints) after the pose. */
static uint32_t shape_core(const kcbp_html2d_input *in, kcbp_vec2 *out, uint32_t cap)
{
    const kcbp2d_shape *s = in->shape;
    kcbp_vec2 loc[4];
    const kcbp_vec2 *src = loc;
    uint32_t n;
    switch (s->kind) {
    case KCBP2D_CIRCLE: loc[0] = s->local[0], n = 1; break;
    case KCBP2D_CAPSULE:
    case KCBP2D_SEGMENT: loc[0] = s->local[0], loc[1] = s->local[1], n = 2; break;
    case KCBP2D_BOX: {
        double hx = s->local[0].x, hy = s->local[0].y;
        loc[0] = kcbp_v2_make(-hx, -hy), loc[1] = kcbp_v2_make(hx, -hy);
        loc[2] = kcbp_v2_make(hx, hy), loc[3] = kcbp_v2_make(-hx, hy);
        n = 4;
        break;
    }
    default: src = s->points, n = s->npoints; break;
    }
    if (n > cap)
        n = cap;
    for (uint32_t i = 0; i < n; i++)
        out[i] = kcbp2d_pose_apply(&in->pose, src[i]);
    return n;
}

static uint32_t shape_npoints(const kcbp2d_shape *s)
{
    return s->kind == KCBP2D_POLYGON ? s->npoints : s->kind == KCBP2D_BOX ? 4 : s->kind == KCBP2D_CIRCLE ? 1 : 2;
}

bool kcbp_html2d_outline_make(const kcbp_html2d_input *in, kcbp_html2d_outline *o)
{
    memset(o, 0, sizeof *o);
    o->in = in;
    if (in->model) {
        o->n = kcbp2d_model_vertex_count(in->model);
        const kcbp_vec2 *v = kcbp2d_model_vertices(in->model);
        o->v = malloc((o->n ? o->n : 1) * sizeof *o->v);
        if (!o->v)
            return false;
        for (uint32_t i = 0; i < o->n; i++)
            o->v[i] = kcbp2d_pose_apply(&in->pose, v[i]);
        return true;
    }
    uint32_t n = shape_npoints(in->shape);
    o->v = malloc((n ? n : 1) * sizeof *o->v);
    if (!o->v)
        return false;
    n = shape_core(in, o->v, n);
    /* repeated points out (a capsule of length 0 is a circle): each arc
     * then turns between two distinct edges */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!k || o->v[i].x != o->v[k - 1].x || o->v[i].y != o->v[k - 1].y)
            o->v[k++] = o->v[i];
    while (k > 1 && o->v[k - 1].x == o->v[0].x && o->v[k - 1].y == o->v[0].y)
        k--;
    o->n = k;
    o->radius = in->shape->radius;
    return true;
}

void kcbp_html2d_outline_box(const kcbp_html2d_outline *o, kcbp_vec2 shift, kcbp_html2d_box *b)
{
    for (uint32_t i = 0; i < o->n; i++) {
        kcbp_vec2 p = kcbp_v2_add(o->v[i], shift);
        kcbp_html2d_box_add(b, kcbp_v2_make(p.x - o->radius, p.y - o->radius));
        kcbp_html2d_box_add(b, kcbp_v2_make(p.x + o->radius, p.y + o->radius));
    }
}

double kcbp_html2d_px(const kcbp_html2d_frame *f, double x) { return (x - f->cx) * f->k; }
double kcbp_html2d_py(const kcbp_html2d_frame *f, double y) { return (f->cy - y) * f->k; }

void kcbp_html2d_put_xy(FILE *out, const kcbp_html2d_frame *f, kcbp_vec2 p)
{
    fprintf(out, "%.9g %.9g", kcbp_html2d_px(f, p.x), kcbp_html2d_py(f, p.y));
}

/* An outward unit normal of the core edge p -> q (counter-clockwise core). */
static kcbp_vec2 edge_normal(kcbp_vec2 p, kcbp_vec2 q)
{
    kcbp_vec2 d = kcbp_v2_sub(q, p);
    double l = kcbp_v2_len(d);
    return l > 0 ? kcbp_v2_make(d.y / l, -d.x / l) : kcbp_v2_make(0, -1);
}

/* The outline as one SVG element with the given attributes: a circle, or a
 * path (rings M ... Z, filled even-odd; a shape's rounded core with its
 * arcs, each split in halves of at most 90 degrees). */
void kcbp_html2d_put_outline(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o, const char *attrs)
{
    if (!o->in->model && o->n == 1) {
        fprintf(out, "<circle cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" %s/>\n", kcbp_html2d_px(f, o->v[0].x),
                kcbp_html2d_py(f, o->v[0].y),
                o->radius * f->k, attrs);
        return;
    }
    fputs("<path fill-rule=\"evenodd\" d=\"", out);
    if (o->in->model) {
        uint32_t start = 0;
        for (uint32_t i = 0; i < o->n; i++) {
            fputs(i == start ? "M" : " ", out);
            kcbp_html2d_put_xy(out, f, o->v[i]);
            if (kcbp2d_model_edge_end(o->in->model, i) != i + 1 || i + 1 == o->n) {
                fputs("Z", out);
                start = i + 1;
            }
        }
    } else if (!(o->radius > 0)) {
        for (uint32_t i = 0; i < o->n; i++) {
            fputs(i ? " " : "M", out);
            kcbp_html2d_put_xy(out, f, o->v[i]);
        }
        fputs("Z", out);
    } else {
        double r = o->radius * f->k;
        for (uint32_t i = 0; i < o->n; i++) {
            kcbp_vec2 p = o->v[i], prev = o->v[(i + o->n - 1) % o->n], next = o->v[(i + 1) % o->n];
            kcbp_vec2 n0 = edge_normal(prev, p), n1 = edge_normal(p, next);
            double a0 = atan2(n0.y, n0.x), turn = atan2(n1.y, n1.x) - a0;
            while (turn < 0)
                turn += 2 * M_PI;
            double am = a0 + turn / 2;
            kcbp_vec2 s = kcbp_v2_add(p, kcbp_v2_scale(n0, o->radius));
            kcbp_vec2 m = kcbp_v2_add(p, kcbp_v2_make(o->radius * cos(am), o->radius * sin(am)));
            kcbp_vec2 e = kcbp_v2_add(p, kcbp_v2_scale(n1, o->radius));
            fputs(i ? " L" : "M", out);
            kcbp_html2d_put_xy(out, f, s);
            /* counter-clockwise in the world is clockwise on the page (y down): sweep 0 */
            fprintf(out, " A%.9g %.9g 0 0 0 ", r, r);
            kcbp_html2d_put_xy(out, f, m);
            fprintf(out, " A%.9g %.9g 0 0 0 ", r, r);
            kcbp_html2d_put_xy(out, f, e);
        }
        fputs("Z", out);
    }
    fprintf(out, "\" %s/>\n", attrs);
}

void kcbp_html2d_put_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else
            fputc(*s, out);
    }
}

static void put_color(FILE *out, uint32_t rgb) { fprintf(out, "#%06x", (unsigned)rgb); }

/* An arrow on the page from p to q (page units), its head sized to the view. */
void kcbp_html2d_put_arrow(FILE *out, const kcbp_html2d_frame *f, double x0, double y0, double x1, double y1, const char *id,
                      uint32_t rgb, const char *dash)
{
    double dx = x1 - x0, dy = y1 - y0, l = hypot(dx, dy), h = 2.2 * f->unit, w = 0.9 * f->unit;
    fprintf(out, "<g id=\"%s\">\n<line x1=\"%.9g\" y1=\"%.9g\" x2=\"%.9g\" y2=\"%.9g\" stroke=\"", id, x0, y0, x1, y1);
    put_color(out, rgb);
    fprintf(out, "\" stroke-width=\"2.5\" vector-effect=\"non-scaling-stroke\"%s/>\n", dash);
    if (l > 0) {
        double ux = dx / l, uy = dy / l, bx = x1 - ux * h, by = y1 - uy * h;
        fprintf(out, "<polygon points=\"%.9g,%.9g %.9g,%.9g %.9g,%.9g\" fill=\"", x1, y1, bx - uy * w, by + ux * w,
                bx + uy * w, by - ux * w);
        put_color(out, rgb);
        fputs("\"/>\n", out);
    }
    fputs("</g>\n", out);
}

bool kcbp_html2d_get_vec2(const cJSON *answer, const char *key, kcbp_vec2 *v)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(answer, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 2)
        return false;
    const cJSON *x = cJSON_GetArrayItem(a, 0), *y = cJSON_GetArrayItem(a, 1);
    if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || !isfinite(x->valuedouble) || !isfinite(y->valuedouble))
        return false;
    *v = kcbp_v2_make(x->valuedouble, y->valuedouble);
    return true;
}

/* The contact edges of one side (0: A, 1: B) as one path; their count. */
void kcbp_html2d_put_edge(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o, uint32_t i)
{
    fputs(" M", out);
    kcbp_html2d_put_xy(out, f, o->v[i]);
    fputs(" ", out);
    kcbp_html2d_put_xy(out, f, o->v[kcbp2d_model_edge_end(o->in->model, i)]);
}

void kcbp_html2d_contacts_open(FILE *out, const char *id)
{
    fprintf(out, "<path id=\"%s\" fill=\"none\" stroke=\"", id);
    put_color(out, KCBP_VIEW_CONTACT_RGB);
    fputs("\" stroke-width=\"4\" stroke-linecap=\"round\" vector-effect=\"non-scaling-stroke\" d=\"", out);
}

uint32_t kcbp_html2d_put_contact_edges(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o,
                                       const cJSON *contacts, int side, const char *id, uint8_t *seen)
{
    if (!o->in->model)
        return 0;
    uint32_t count = 0;
    const cJSON *pair;
    cJSON_ArrayForEach(pair, contacts)
    {
        const cJSON *e = cJSON_GetArrayItem(pair, side);
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) || e->valuedouble >= o->n)
            continue;
        uint32_t i = (uint32_t)e->valuedouble;
        if (seen[i])
            continue;
        seen[i] = 1;
        if (!count++)
            kcbp_html2d_contacts_open(out, id);
        kcbp_html2d_put_edge(out, f, o, i);
    }
    if (count)
        fputs("\"/>\n", out);
    return count;
}

/* A legend row: a swatch (an SVG square or line in rgb) and its text. */
void kcbp_html2d_legend_row(FILE *out, const char *item, uint32_t rgb, const char *swatch_kind, const char *text)
{
    fprintf(out, "<div class=\"row\" data-item=\"%s\"><svg class=\"swatch\" viewBox=\"0 0 14 14\">", item);
    if (!strcmp(swatch_kind, "fill")) {
        fputs("<rect x=\"1\" y=\"1\" width=\"12\" height=\"12\" fill=\"", out);
        put_color(out, rgb);
        fputs("\" fill-opacity=\"0.5\" stroke=\"", out);
        put_color(out, rgb);
        fputs("\"/>", out);
    } else if (!strcmp(swatch_kind, "faint")) {
        fputs("<rect x=\"1\" y=\"1\" width=\"12\" height=\"12\" fill=\"", out);
        put_color(out, rgb);
        fputs("\" fill-opacity=\"0.08\" stroke-dasharray=\"3 2\" stroke=\"", out);
        put_color(out, rgb);
        fputs("\"/>", out);
    } else {
        fprintf(out, "<line x1=\"1\" y1=\"7\" x2=\"13\" y2=\"7\" stroke-width=\"%s\"%s stroke=\"",
                !strcmp(swatch_kind, "thick") ? "4" : "2",
                !strcmp(swatch_kind, "dash") ? " stroke-dasharray=\"3 2\"" : "");
        put_color(out, rgb);
        fputs("\"/>", out);
    }
    fputs("</svg><span>", out);
    kcbp_html2d_put_text(out, text);
    fputs("</span></div>\n", out);
}

/* The legend a column at the left, the drawing the rest: it never covers
 * what is drawn. */
static const char style[] =
    "html, body { margin: 0; height: 100%; background: #fff; font: 13px/1.35 system-ui, sans-serif; color: #222; }\n"
    "body { display: flex; }\n"
    "#kcbp-2d { display: block; flex: 1; min-width: 0; height: 100%; }\n"
    "#kcbp-legend { order: -1; flex: none; width: 300px; box-sizing: border-box; height: 100%; overflow: auto;\n"
    "  background: #f7f7f7; border-right: 1px solid #bbb; padding: 6px 9px; }\n"
    "#kcbp-legend h1 { font-size: 14px; margin: 0 0 4px; overflow-wrap: anywhere; }\n"
    "#kcbp-legend .row { display: flex; align-items: center; gap: 6px; margin: 2px 0; overflow-wrap: anywhere; }\n"
    "#kcbp-legend .swatch { width: 14px; height: 14px; flex: none; }\n"
    "#kcbp-legend .answer { margin: 4px 0; font-family: ui-monospace, monospace; font-size: 12px; }\n"
    "#kcbp-legend .help { color: #666; font-size: 11px; margin-top: 4px; }\n"
    "#kcbp-legend details pre { font-size: 11px; white-space: pre-wrap; word-break: break-all; }\n";


kcbp_html2d_frame kcbp_html2d_frame_fit(kcbp_html2d_box all)
{
    if (!all.any)
        all.lo_x = all.lo_y = -1, all.hi_x = all.hi_y = 1;
    kcbp_html2d_frame f;
    double w = all.hi_x - all.lo_x, h = all.hi_y - all.lo_y, side = fmax(w, h);
    f.cx = all.lo_x / 2 + all.hi_x / 2, f.cy = all.lo_y / 2 + all.hi_y / 2;
    f.k = side > 0 && isfinite(1000 / side) ? 1000 / side : 1;
    double pad = 0.06 * fmax(fmax(w, h) * f.k, 1e-9);
    f.vx = -w * f.k / 2 - pad, f.vy = -h * f.k / 2 - pad;
    f.vw = w * f.k + 2 * pad, f.vh = h * f.k + 2 * pad;
    f.unit = fmax(f.vw, f.vh) / 100;
    return f;
}

uint32_t kcbp_html2d_outline_points(const kcbp_html2d_input *in)
{
    return in->model ? kcbp2d_model_vertex_count(in->model) : shape_npoints(in->shape);
}

void kcbp_html2d_page_head(FILE *out, const char *title, const char *extra_style)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"kcbp " KCBP_VERSION_STRING "\"/>\n<title>",
          out);
    kcbp_html2d_put_text(out, title);
    fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", style, extra_style ? extra_style : "");
}

void kcbp_html2d_svg_open(FILE *out, const kcbp_html2d_frame *f, const char *kind)
{
    fprintf(out,
            "<svg id=\"kcbp-2d\" viewBox=\"%.9g %.9g %.9g %.9g\" preserveAspectRatio=\"xMidYMid meet\" "
            "data-kind=\"%s\" data-center=\"%.17g %.17g\" data-scale=\"%.17g\">\n",
            f->vx, f->vy, f->vw, f->vh, kind, f->cx, f->cy, f->k);
}

void kcbp_html2d_page_tail(FILE *out, const char *answer_text, const char *help)
{
    if (answer_text) {
        fputs("<details><summary>the answer (JSON)</summary><pre id=\"kcbp-answer\">", out);
        kcbp_html2d_put_text(out, answer_text);
        fputs("</pre></details>\n", out);
    }
    fputs("<div class=\"help\">", out);
    kcbp_html2d_put_text(out, help);
    fputs("</div>\n</div>\n</body>\n</html>\n", out);
}

kcbp_status kcbp_html2d_write_file_status(const char *path, bool (*write)(FILE *out, void *ctx), void *ctx,
                                          kcbp_error *err)
{
    FILE *out = fopen(path, "w");
    if (!out)
        return kcbp_error_set(err, KCBP_ERR_IO, "--html: %s: cannot open for writing: %s", path, strerror(errno));
    kcbp_cli_partial_begin(path); /* removed if interrupted (interrupt.h) */
    bool mem = write(out, ctx);
    errno = 0;
    bool bad = ferror(out) != 0;
    int e = errno;
    if (fclose(out) != 0 && !bad)
        bad = true, e = errno;
    kcbp_cli_partial_end(path);
    if (bad || !mem) {
        kcbp_view_remove_partial(path);
        if (!mem)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
        return kcbp_error_set(err, KCBP_ERR_IO, "--html: %s: cannot write: %s", path, e ? strerror(e) : "write error");
    }
    return KCBP_OK;
}

int kcbp_html2d_write_file(const char *path, bool (*write)(FILE *out, void *ctx), void *ctx)
{
    kcbp_error err;
    if (kcbp_html2d_write_file_status(path, write, ctx, &err) == KCBP_OK)
        return KCBP_EXIT_OK;
    fprintf(stderr, "kcbp: %s\n", err.msg);
    return KCBP_EXIT_NOMEM;
}

void kcbp_html2d_put_body(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o, const char *id,
                          uint32_t rgb, bool faint)
{
    char attrs[256];
    snprintf(attrs, sizeof attrs,
             "id=\"%s\" fill=\"#%06x\" fill-opacity=\"%s\" stroke=\"#%06x\" stroke-width=\"1.5\"%s "
             "vector-effect=\"non-scaling-stroke\"",
             id, (unsigned)rgb, faint ? "0.08" : "0.35", (unsigned)rgb, faint ? " stroke-dasharray=\"6 4\"" : "");
    kcbp_html2d_put_outline(out, f, o, attrs);
}
