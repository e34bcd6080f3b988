/* --html FILE for 2D answers (html2d.h): one page, inline SVG, no script.
 *
 * What it draws, in the world frame (y up, as the inputs' coordinates):
 * both inputs posed, a file's rings in one path each filled even-odd (so
 * holes are holes), a shape exactly (a circle as a circle, a rounded core
 * with its arcs); the contact edges of the report in red; where the
 * answer says they overlap, B clipped to A (the overlap region, drawn by
 * the browser from the same outlines); the closest points and their
 * segment in magenta; --signed's normal (a fixed-length arrow, A toward B)
 * and its translation (an arrow of true length from B's box centre to
 * where it goes) with B drawn dashed where the translation takes it. The
 * legend lists only what is drawn, and the report itself (JSON).
 *
 * Coordinates are carried to the page as (x - cx) k, (cy - y) k, with
 * (cx, cy) the centre of everything drawn and k = 1000 / its larger side,
 * printed to 9 digits (the svg element states cx cy as data-center and k
 * as data-scale): a picture far from the origin or at any scale keeps
 * its detail (a browser's SVG is float32). The viewBox fits the drawing
 * with a margin of 6%; every stroke is non-scaling (vector-effect), so
 * lines stay thin and visible at any zoom.
 *
 * The page is well-formed XML as well as HTML (every element closed, text
 * escaped): tests/test_html2d.sh parses it both ways. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html2d.h"
#include "interrupt.h"
#include "view.h"

/* Pages hold at most this many vertices (a browser does not draw more usefully). */
#define HTML2D_MAX_VERTICES 4000000u

typedef struct {
    double cx, cy, k;          /* page = ((x - cx) k, (cy - y) k) */
    double vx, vy, vw, vh;     /* the viewBox */
    double unit;               /* 1% of the view's larger side, page units */
} frame;

typedef struct {
    double lo_x, lo_y, hi_x, hi_y;
    bool any;
} box;

static void box_add(box *b, kcbp_vec2 p)
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

/* An input drawn: a model's posed vertices, or a shape's posed core. */
typedef struct {
    const kcbp_html2d_input *in;
    kcbp_vec2 *v;
    uint32_t n;
    double radius; /* a shape's */
} outline;

static bool outline_make(const kcbp_html2d_input *in, outline *o)
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

static void outline_box(const outline *o, kcbp_vec2 shift, box *b)
{
    for (uint32_t i = 0; i < o->n; i++) {
        kcbp_vec2 p = kcbp_v2_add(o->v[i], shift);
        box_add(b, kcbp_v2_make(p.x - o->radius, p.y - o->radius));
        box_add(b, kcbp_v2_make(p.x + o->radius, p.y + o->radius));
    }
}

static double px(const frame *f, double x) { return (x - f->cx) * f->k; }
static double py(const frame *f, double y) { return (f->cy - y) * f->k; }

static void put_xy(FILE *out, const frame *f, kcbp_vec2 p) { fprintf(out, "%.9g %.9g", px(f, p.x), py(f, p.y)); }

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
static void put_outline(FILE *out, const frame *f, const outline *o, const char *attrs)
{
    if (!o->in->model && o->n == 1) {
        fprintf(out, "<circle cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" %s/>\n", px(f, o->v[0].x), py(f, o->v[0].y),
                o->radius * f->k, attrs);
        return;
    }
    fputs("<path fill-rule=\"evenodd\" d=\"", out);
    if (o->in->model) {
        uint32_t start = 0;
        for (uint32_t i = 0; i < o->n; i++) {
            fputs(i == start ? "M" : " ", out);
            put_xy(out, f, o->v[i]);
            if (kcbp2d_model_edge_end(o->in->model, i) != i + 1 || i + 1 == o->n) {
                fputs("Z", out);
                start = i + 1;
            }
        }
    } else if (!(o->radius > 0)) {
        for (uint32_t i = 0; i < o->n; i++) {
            fputs(i ? " " : "M", out);
            put_xy(out, f, o->v[i]);
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
            put_xy(out, f, s);
            /* counter-clockwise in the world is clockwise on the page (y down): sweep 0 */
            fprintf(out, " A%.9g %.9g 0 0 0 ", r, r);
            put_xy(out, f, m);
            fprintf(out, " A%.9g %.9g 0 0 0 ", r, r);
            put_xy(out, f, e);
        }
        fputs("Z", out);
    }
    fprintf(out, "\" %s/>\n", attrs);
}

static void put_text(FILE *out, const char *s)
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
static void put_arrow(FILE *out, const frame *f, double x0, double y0, double x1, double y1, const char *id,
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

static bool get_vec2(const cJSON *answer, const char *key, kcbp_vec2 *v)
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

static double get_number(const cJSON *answer, const char *key, double otherwise)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(answer, key);
    return cJSON_IsNumber(n) ? n->valuedouble : otherwise;
}

static const char *get_string(const cJSON *answer, const char *key)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(answer, key);
    return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* The contact edges of one side (0: A, 1: B) as one path; their count. */
static uint32_t put_contact_edges(FILE *out, const frame *f, const outline *o, const cJSON *contacts, int side,
                                  uint8_t *seen)
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
            fprintf(out, "<path id=\"kcbp-contacts-%c\" fill=\"none\" stroke=\"", side ? 'b' : 'a');
        if (count == 1) {
            put_color(out, KCBP_VIEW_CONTACT_RGB);
            fputs("\" stroke-width=\"4\" stroke-linecap=\"round\" vector-effect=\"non-scaling-stroke\" d=\"", out);
        }
        fputs(count > 1 ? " M" : "M", out);
        put_xy(out, f, o->v[i]);
        fputs(" ", out);
        put_xy(out, f, o->v[kcbp2d_model_edge_end(o->in->model, i)]);
    }
    if (count)
        fputs("\"/>\n", out);
    return count;
}

/* A legend row: a swatch (an SVG square or line in rgb) and its text. */
static void legend_row(FILE *out, const char *item, uint32_t rgb, const char *swatch_kind, const char *text)
{
    fprintf(out, "<div class=\"row\" data-item=\"%s\"><svg class=\"swatch\" viewBox=\"0 0 14 14\">", item);
    if (!strcmp(swatch_kind, "fill")) {
        fputs("<rect x=\"1\" y=\"1\" width=\"12\" height=\"12\" fill=\"", out);
        put_color(out, rgb);
        fputs("\" fill-opacity=\"0.5\" stroke=\"", out);
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
    put_text(out, text);
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

/* The page, written to out; false when memory ran out. */
static bool write_page(FILE *out, const char *cmd, const outline *oa, const outline *ob, double margin,
                       const cJSON *answer, const char *answer_text)
{
    const cJSON *contacts = cJSON_GetObjectItemCaseSensitive(answer, "contacts");
    kcbp_vec2 pa, pb, normal, trans;
    bool has_points = get_vec2(answer, "point_a", &pa) && get_vec2(answer, "point_b", &pb);
    bool has_normal = get_vec2(answer, "normal", &normal) && kcbp_v2_len(normal) > 0;
    bool has_trans = get_vec2(answer, "translation", &trans) && kcbp_v2_len(trans) > 0;
    const cJSON *col = cJSON_GetObjectItemCaseSensitive(answer, "collide");
    const char *status = get_string(answer, "status");
    double distance = get_number(answer, "distance", NAN);
    bool overlap = cJSON_IsTrue(col) ||
                   (status && (!strcmp(status, "penetrating") || !strcmp(status, "bracketed"))) ||
                   (!cJSON_IsBool(col) && distance == 0);

    /* the frame: everything drawn, with a margin */
    box bx = {0}, bb = {0};
    outline_box(oa, kcbp_v2_make(0, 0), &bx);
    outline_box(ob, kcbp_v2_make(0, 0), &bb);
    kcbp_vec2 bcenter = kcbp_v2_make((bb.lo_x + bb.hi_x) / 2, (bb.lo_y + bb.hi_y) / 2);
    box all = bx;
    outline_box(ob, kcbp_v2_make(0, 0), &all);
    if (has_trans)
        outline_box(ob, trans, &all);
    if (has_points)
        box_add(&all, pa), box_add(&all, pb);
    if (!all.any)
        all.lo_x = all.lo_y = -1, all.hi_x = all.hi_y = 1;
    /* the normal: an arrow of 12% of the drawing's size, from the witness
     * point on A (or between the boxes' centres), inside the frame too */
    kcbp_vec2 nfrom = has_points ? pa
                                 : kcbp_v2_make((bx.lo_x + bx.hi_x + bb.lo_x + bb.hi_x) / 4,
                                                (bx.lo_y + bx.hi_y + bb.lo_y + bb.hi_y) / 4);
    kcbp_vec2 nto = nfrom;
    if (has_normal) {
        double len = 0.12 * fmax(all.hi_x - all.lo_x, all.hi_y - all.lo_y);
        nto = kcbp_v2_add(nfrom, kcbp_v2_scale(normal, (len > 0 ? len : 1) / kcbp_v2_len(normal)));
        box_add(&all, nto);
    }
    frame f;
    double w = all.hi_x - all.lo_x, h = all.hi_y - all.lo_y, side = fmax(w, h);
    f.cx = all.lo_x / 2 + all.hi_x / 2, f.cy = all.lo_y / 2 + all.hi_y / 2;
    f.k = side > 0 && isfinite(1000 / side) ? 1000 / side : 1;
    double pad = 0.06 * fmax(fmax(w, h) * f.k, 1e-9);
    f.vx = -w * f.k / 2 - pad, f.vy = -h * f.k / 2 - pad;
    f.vw = w * f.k + 2 * pad, f.vh = h * f.k + 2 * pad;
    f.unit = fmax(f.vw, f.vh) / 100;

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
          "<meta name=\"generator\" content=\"kcbp " KCBP_VERSION_STRING "\"/>\n<title>",
          out);
    char title[64];
    snprintf(title, sizeof title, "kcbp %s ", cmd);
    put_text(out, title);
    put_text(out, oa->in->arg);
    put_text(out, " ");
    put_text(out, ob->in->arg);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
    fprintf(out,
            "<svg id=\"kcbp-2d\" viewBox=\"%.9g %.9g %.9g %.9g\" preserveAspectRatio=\"xMidYMid meet\" "
            "data-kind=\"%s\" data-center=\"%.17g %.17g\" data-scale=\"%.17g\">\n",
            f.vx, f.vy, f.vw, f.vh, !strcmp(cmd, "collide") ? "collide" : "distance", f.cx, f.cy, f.k);
    uint32_t ca = kcbp_view_color(0), cb = kcbp_view_color(1);
    char attrs[256];
    snprintf(attrs, sizeof attrs,
             "id=\"kcbp-a\" fill=\"#%06x\" fill-opacity=\"0.35\" stroke=\"#%06x\" stroke-width=\"1.5\" "
             "vector-effect=\"non-scaling-stroke\"",
             (unsigned)ca, (unsigned)ca);
    put_outline(out, &f, oa, attrs);
    snprintf(attrs, sizeof attrs,
             "id=\"kcbp-b\" fill=\"#%06x\" fill-opacity=\"0.35\" stroke=\"#%06x\" stroke-width=\"1.5\" "
             "vector-effect=\"non-scaling-stroke\"",
             (unsigned)cb, (unsigned)cb);
    put_outline(out, &f, ob, attrs);
    if (overlap) { /* B clipped to A: where they overlap */
        fputs("<clipPath id=\"kcbp-clip-a\">\n", out);
        put_outline(out, &f, oa, "clip-rule=\"evenodd\"");
        fputs("</clipPath>\n", out);
        snprintf(attrs, sizeof attrs,
                 "id=\"kcbp-overlap\" fill=\"#%06x\" fill-opacity=\"0.45\" stroke=\"none\" clip-path=\"url(#kcbp-clip-a)\"",
                 (unsigned)KCBP_VIEW_CONTACT_RGB);
        put_outline(out, &f, ob, attrs);
    }
    uint32_t nca = 0, ncb = 0;
    if (cJSON_IsArray(contacts)) {
        uint8_t *seen = calloc((size_t)(oa->n > ob->n ? oa->n : ob->n) + 1, 1);
        if (!seen)
            return false;
        nca = put_contact_edges(out, &f, oa, contacts, 0, seen);
        memset(seen, 0, (size_t)(oa->n > ob->n ? oa->n : ob->n) + 1);
        ncb = put_contact_edges(out, &f, ob, contacts, 1, seen);
        free(seen);
    }
    if (has_trans) { /* B where the translation takes it, and the arrow there */
        snprintf(attrs, sizeof attrs,
                 "id=\"kcbp-ghost\" transform=\"translate(%.9g %.9g)\" fill=\"none\" stroke=\"#%06x\" "
                 "stroke-width=\"1.5\" stroke-dasharray=\"6 4\" vector-effect=\"non-scaling-stroke\"",
                 trans.x * f.k, -trans.y * f.k, (unsigned)cb);
        put_outline(out, &f, ob, attrs);
        kcbp_vec2 to = kcbp_v2_add(bcenter, trans);
        put_arrow(out, &f, px(&f, bcenter.x), py(&f, bcenter.y), px(&f, to.x), py(&f, to.y), "kcbp-translation", 0x222222,
                  " stroke-dasharray=\"6 4\"");
    }
    if (has_points) {
        uint32_t pc = KCBP_VIEW_POINTS_RGB;
        fprintf(out, "<g id=\"kcbp-points\" fill=\"#%06x\" stroke=\"#%06x\">\n", (unsigned)pc, (unsigned)pc);
        fprintf(out, "<line x1=\"%.9g\" y1=\"%.9g\" x2=\"%.9g\" y2=\"%.9g\" stroke-width=\"2\" "
                     "vector-effect=\"non-scaling-stroke\"/>\n",
                px(&f, pa.x), py(&f, pa.y), px(&f, pb.x), py(&f, pb.y));
        fprintf(out, "<circle cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" stroke=\"none\"/>\n", px(&f, pa.x), py(&f, pa.y),
                0.8 * f.unit);
        fprintf(out, "<circle cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" stroke=\"none\"/>\n", px(&f, pb.x), py(&f, pb.y),
                0.8 * f.unit);
        fputs("</g>\n", out);
    }
    if (has_normal) /* a direction: its length is the drawing's, not the answer's */
        put_arrow(out, &f, px(&f, nfrom.x), py(&f, nfrom.y), px(&f, nto.x), py(&f, nto.y), "kcbp-normal", 0x000000, "");
    fputs("</svg>\n<div id=\"kcbp-legend\">\n<h1>", out);
    put_text(out, title);
    put_text(out, oa->in->arg);
    put_text(out, " ");
    put_text(out, ob->in->arg);
    fputs("</h1>\n", out);
    char text[512];
    snprintf(text, sizeof text, "A: %s", oa->in->arg);
    legend_row(out, "a", ca, "fill", text);
    snprintf(text, sizeof text, "B: %s", ob->in->arg);
    legend_row(out, "b", cb, "fill", text);
    if (overlap && margin > 0) { /* within the margin need not be an overlap */
        snprintf(text, sizeof text, "within the margin %.6g; where A and B overlap, if they do (B clipped to A)",
                 margin);
        legend_row(out, "overlap", KCBP_VIEW_CONTACT_RGB, "fill", text);
    } else if (overlap) {
        legend_row(out, "overlap", KCBP_VIEW_CONTACT_RGB, "fill", "where A and B overlap (B clipped to A)");
    }
    if (nca || ncb) {
        snprintf(text, sizeof text, "contact edges: %u of A, %u of B", nca, ncb);
        legend_row(out, "contacts", KCBP_VIEW_CONTACT_RGB, "thick", text);
    }
    if (has_points) {
        if (overlap)
            snprintf(text, sizeof text, "%s", kcbp_v2_len(kcbp_v2_sub(pa, pb)) > 0
                                                  ? "witness points of the depth and their segment"
                                                  : "a point where they meet");
        else
            snprintf(text, sizeof text, "closest points and their segment (distance %.6g)", distance);
        legend_row(out, "points", KCBP_VIEW_POINTS_RGB, "line", text);
    }
    if (has_normal) {
        snprintf(text, sizeof text, "normal, A toward B (%.6g, %.6g)", normal.x, normal.y);
        legend_row(out, "normal", 0x000000, "line", text);
    }
    if (has_trans) {
        snprintf(text, sizeof text, "B moved by the translation (%.6g, %.6g): apart", trans.x, trans.y);
        legend_row(out, "translation", cb, "dash", text);
    }
    fputs("<div class=\"answer\">", out);
    if (cJSON_IsBool(col)) {
        const char *contained = get_string(answer, "contained");
        snprintf(text, sizeof text, "collide: %s%s%s", cJSON_IsTrue(col) ? "true" : "false",
                 contained && strcmp(contained, "none") ? ", contained: " : "",
                 contained && strcmp(contained, "none") ? contained : "");
    } else if (status && cJSON_GetObjectItemCaseSensitive(answer, "depth_lower")) {
        double lo = get_number(answer, "depth_lower", NAN), up = get_number(answer, "depth_upper", NAN);
        if (lo == up)
            snprintf(text, sizeof text, "%s: signed distance %.6g", status, get_number(answer, "signed_distance", NAN));
        else
            snprintf(text, sizeof text, "%s: depth in [%.6g, %.6g]", status, lo, up);
    } else {
        snprintf(text, sizeof text, "distance: %.6g", distance);
    }
    put_text(out, text);
    fputs("</div>\n<details><summary>the answer (JSON)</summary><pre id=\"kcbp-answer\">", out);
    put_text(out, answer_text);
    fputs("</pre></details>\n<div class=\"help\">World frame, y up; shapes drawn exactly (circles and arcs); "
          "zoom keeps lines thin.</div>\n</div>\n</body>\n</html>\n",
          out);
    return true;
}

int kcbp_html2d_write(const char *path, const char *cmd, const kcbp_html2d_input *a, const kcbp_html2d_input *b,
                      double margin, const cJSON *answer)
{
    outline oa, ob;
    bool ok_a = outline_make(a, &oa), ok_b = outline_make(b, &ob);
    char *text = ok_a && ok_b ? cJSON_Print(answer) : NULL;
    if (!text) {
        free(oa.v), free(ob.v);
        fprintf(stderr, "kcbp: --html: out of memory\n");
        return KCBP_EXIT_NOMEM;
    }
    if ((uint64_t)oa.n + ob.n > HTML2D_MAX_VERTICES) {
        fprintf(stderr, "kcbp: --html: %s: the page would draw %llu vertices, more than %u\n", path,
                (unsigned long long)oa.n + ob.n, HTML2D_MAX_VERTICES);
        free(oa.v), free(ob.v), cJSON_free(text);
        return KCBP_EXIT_NOMEM;
    }
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "kcbp: --html: %s: cannot open for writing: %s\n", path, strerror(errno));
        free(oa.v), free(ob.v), cJSON_free(text);
        return KCBP_EXIT_NOMEM;
    }
    kcbp_cli_partial_begin(path); /* removed if interrupted (interrupt.h) */
    bool mem = write_page(out, cmd, &oa, &ob, margin, answer, text);
    free(oa.v), free(ob.v), cJSON_free(text);
    errno = 0;
    bool bad = ferror(out) != 0;
    int e = errno;
    if (fclose(out) != 0 && !bad)
        bad = true, e = errno;
    kcbp_cli_partial_end(path);
    if (bad || !mem) {
        kcbp_view_remove_partial(path);
        if (!mem)
            fprintf(stderr, "kcbp: --html: out of memory\n");
        else
            fprintf(stderr, "kcbp: --html: %s: cannot write: %s\n", path, e ? strerror(e) : "write error");
        return KCBP_EXIT_NOMEM;
    }
    return KCBP_EXIT_OK;
}
