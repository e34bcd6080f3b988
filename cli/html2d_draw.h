/* The drawing pieces the 2D pages share (html2d.c: collide and distance;
 * html2d_sweep.c: sweep; html2d_scene.c: scenes): the page frame, posed
 * outlines as SVG, arrows, legend rows, the page's head and style, and
 * writing a page to its file. html2d_draw.c has the details. */
#ifndef KCBP_CLI_HTML2D_DRAW_H
#define KCBP_CLI_HTML2D_DRAW_H

#include <stdbool.h>
#include <stdio.h>

#include "html2d.h"

/* World to page: ((x - cx) k, (cy - y) k), y up in the world, down on the
 * page; the viewBox; unit: 1% of the view's larger side, page units. */
typedef struct {
    double cx, cy, k;
    double vx, vy, vw, vh;
    double unit;
} kcbp_html2d_frame;

typedef struct {
    double lo_x, lo_y, hi_x, hi_y;
    bool any;
} kcbp_html2d_box;

void kcbp_html2d_box_add(kcbp_html2d_box *b, kcbp_vec2 p);
/* The frame that fits b (any box; a unit one when empty) with a 6% margin,
 * its larger side 1000 page units. */
kcbp_html2d_frame kcbp_html2d_frame_fit(kcbp_html2d_box b);

/* An input drawn: a model's posed vertices, or a shape's posed core (its
 * repeated points out), and a shape's radius. */
typedef struct {
    const kcbp_html2d_input *in;
    kcbp_vec2 *v;
    uint32_t n;
    double radius;
} kcbp_html2d_outline;

/* The outline of in at in->pose; false when out of memory (o->v freed by
 * the caller in any case: free(o->v)). */
bool kcbp_html2d_outline_make(const kcbp_html2d_input *in, kcbp_html2d_outline *o);
/* The points an outline of in draws (before making it). */
uint32_t kcbp_html2d_outline_points(const kcbp_html2d_input *in);
void kcbp_html2d_outline_box(const kcbp_html2d_outline *o, kcbp_vec2 shift, kcbp_html2d_box *b);

double kcbp_html2d_px(const kcbp_html2d_frame *f, double x);
double kcbp_html2d_py(const kcbp_html2d_frame *f, double y);
void kcbp_html2d_put_xy(FILE *out, const kcbp_html2d_frame *f, kcbp_vec2 p);
/* The outline as one element (a circle, or a path of rings filled
 * even-odd, a shape's arcs exact) with attributes attrs. */
void kcbp_html2d_put_outline(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o, const char *attrs);
/* A body's outline filled in its colour rgb (faint: lighter, dashed, as
 * a sweep's start and end), with the SVG id given. */
void kcbp_html2d_put_body(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o, const char *id,
                          uint32_t rgb, bool faint);
/* Text escaped for HTML and XML. */
void kcbp_html2d_put_text(FILE *out, const char *s);
/* An arrow on the page (page units) from (x0, y0) to (x1, y1), its head
 * sized to the view; dash: extra attributes for its line ("" for none). */
void kcbp_html2d_put_arrow(FILE *out, const kcbp_html2d_frame *f, double x0, double y0, double x1, double y1,
                           const char *id, uint32_t rgb, const char *dash);
/* The opening of a path (id) of contact edges in the contact red, its
 * d attribute open: close it with "\"/>\n". */
void kcbp_html2d_contacts_open(FILE *out, const char *id);
/* Model edge i of o (o->in->model) as " Mx y x y". */
void kcbp_html2d_put_edge(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o, uint32_t i);
/* One path (id) of the model edges of o named by side (0: A, 1: B) of
 * each [edge_a, edge_b] of contacts, each edge once; their count. seen:
 * o->n + 1 bytes, zero. */
uint32_t kcbp_html2d_put_contact_edges(FILE *out, const kcbp_html2d_frame *f, const kcbp_html2d_outline *o,
                                       const cJSON *contacts, int side, const char *id, uint8_t *seen);
/* A legend row (data-item="item"): a swatch ("fill", "line", "thick",
 * "dash", "faint") in rgb and its text. */
void kcbp_html2d_legend_row(FILE *out, const char *item, uint32_t rgb, const char *swatch_kind, const char *text);
/* The page up to and with <body> (title escaped), the legend column's style. */
void kcbp_html2d_page_head(FILE *out, const char *title, const char *extra_style);
/* The <svg id="kcbp-2d"> element's opening, with data-kind. */
void kcbp_html2d_svg_open(FILE *out, const kcbp_html2d_frame *f, const char *kind);
/* The legend's last lines: the JSON answer (escaped; NULL: none) and the
 * closing of the page. */
void kcbp_html2d_page_tail(FILE *out, const char *answer_text, const char *help);

/* Writes a page to path with write(out, ctx) (false: out of memory).
 * Returns KCBP_EXIT_OK, or, after printing why ("kcbp: --html: FILE:
 * cannot ..."), KCBP_EXIT_NOMEM; nothing half-written is left behind. */
int kcbp_html2d_write_file(const char *path, bool (*write)(FILE *out, void *ctx), void *ctx);

/* The same, KCBP_OK or an error whose message begins "--html: ". */
kcbp_status kcbp_html2d_write_file_status(const char *path, bool (*write)(FILE *out, void *ctx), void *ctx,
                                          kcbp_error *err);

bool kcbp_html2d_get_vec2(const cJSON *answer, const char *key, kcbp_vec2 *v);

#endif
