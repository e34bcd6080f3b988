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
 * The page frame, outlines, arrows and legend rows are html2d_draw.c's,
 * shared with the sweep and scene pages.
 *
 * The page is well-formed XML as well as HTML (every element closed, text
 * escaped): tests/test_html2d.sh parses it both ways. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html2d_draw.h"
#include "view.h"


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

/* The page, written to out; false when memory ran out. */
static bool write_page(FILE *out, const char *cmd, const kcbp_html2d_outline *oa, const kcbp_html2d_outline *ob, double margin,
                       const cJSON *answer, const char *answer_text)
{
    const cJSON *contacts = cJSON_GetObjectItemCaseSensitive(answer, "contacts");
    kcbp_vec2 pa, pb, normal, trans;
    bool has_points = kcbp_html2d_get_vec2(answer, "point_a", &pa) && kcbp_html2d_get_vec2(answer, "point_b", &pb);
    bool has_normal = kcbp_html2d_get_vec2(answer, "normal", &normal) && kcbp_v2_len(normal) > 0;
    bool has_trans = kcbp_html2d_get_vec2(answer, "translation", &trans) && kcbp_v2_len(trans) > 0;
    const cJSON *col = cJSON_GetObjectItemCaseSensitive(answer, "collide");
    const char *status = get_string(answer, "status");
    double distance = get_number(answer, "distance", NAN);
    bool overlap = cJSON_IsTrue(col) ||
                   (status && (!strcmp(status, "penetrating") || !strcmp(status, "bracketed"))) ||
                   (!cJSON_IsBool(col) && distance == 0);

    /* the frame: everything drawn, with a margin */
    kcbp_html2d_box bx = {0}, bb = {0};
    kcbp_html2d_outline_box(oa, kcbp_v2_make(0, 0), &bx);
    kcbp_html2d_outline_box(ob, kcbp_v2_make(0, 0), &bb);
    kcbp_vec2 bcenter = kcbp_v2_make((bb.lo_x + bb.hi_x) / 2, (bb.lo_y + bb.hi_y) / 2);
    kcbp_html2d_box all = bx;
    kcbp_html2d_outline_box(ob, kcbp_v2_make(0, 0), &all);
    if (has_trans)
        kcbp_html2d_outline_box(ob, trans, &all);
    if (has_points)
        kcbp_html2d_box_add(&all, pa), kcbp_html2d_box_add(&all, pb);
    /* the normal: an arrow of 12% of the drawing's size, from the witness
     * point on A (or between the boxes' centres), inside the frame too */
    kcbp_vec2 nfrom = has_points ? pa
                                 : kcbp_v2_make((bx.lo_x + bx.hi_x + bb.lo_x + bb.hi_x) / 4,
                                                (bx.lo_y + bx.hi_y + bb.lo_y + bb.hi_y) / 4);
    kcbp_vec2 nto = nfrom;
    if (has_normal) {
        double len = 0.12 * fmax(all.hi_x - all.lo_x, all.hi_y - all.lo_y);
        nto = kcbp_v2_add(nfrom, kcbp_v2_scale(normal, (len > 0 ? len : 1) / kcbp_v2_len(normal)));
        kcbp_html2d_box_add(&all, nto);
    }
    kcbp_html2d_frame f = kcbp_html2d_frame_fit(all);
    char title[64];
    snprintf(title, sizeof title, "kcbp %s ", cmd);
    size_t tl = strlen(title) + strlen(oa->in->arg) + strlen(ob->in->arg) + 2;
    char *full = malloc(tl);
    if (!full)
        return false;
    snprintf(full, tl, "%s%s %s", title, oa->in->arg, ob->in->arg);
    kcbp_html2d_page_head(out, full, NULL);
    free(full);
    kcbp_html2d_svg_open(out, &f, !strcmp(cmd, "collide") ? "collide" : "distance");
    uint32_t ca = kcbp_view_color(0), cb = kcbp_view_color(1);
    kcbp_html2d_put_body(out, &f, oa, "kcbp-a", ca, false);
    kcbp_html2d_put_body(out, &f, ob, "kcbp-b", cb, false);
    char attrs[256];
    if (overlap) { /* B clipped to A: where they overlap */
        fputs("<clipPath id=\"kcbp-clip-a\">\n", out);
        kcbp_html2d_put_outline(out, &f, oa, "clip-rule=\"evenodd\"");
        fputs("</clipPath>\n", out);
        snprintf(attrs, sizeof attrs,
                 "id=\"kcbp-overlap\" fill=\"#%06x\" fill-opacity=\"0.45\" stroke=\"none\" clip-path=\"url(#kcbp-clip-a)\"",
                 (unsigned)KCBP_VIEW_CONTACT_RGB);
        kcbp_html2d_put_outline(out, &f, ob, attrs);
    }
    uint32_t nca = 0, ncb = 0;
    if (cJSON_IsArray(contacts)) {
        uint8_t *seen = calloc((size_t)(oa->n > ob->n ? oa->n : ob->n) + 1, 1);
        if (!seen)
            return false;
        nca = kcbp_html2d_put_contact_edges(out, &f, oa, contacts, 0, "kcbp-contacts-a", seen);
        memset(seen, 0, (size_t)(oa->n > ob->n ? oa->n : ob->n) + 1);
        ncb = kcbp_html2d_put_contact_edges(out, &f, ob, contacts, 1, "kcbp-contacts-b", seen);
        free(seen);
    }
    if (has_trans) { /* B where the translation takes it, and the arrow there */
        snprintf(attrs, sizeof attrs,
                 "id=\"kcbp-ghost\" transform=\"translate(%.9g %.9g)\" fill=\"none\" stroke=\"#%06x\" "
                 "stroke-width=\"1.5\" stroke-dasharray=\"6 4\" vector-effect=\"non-scaling-stroke\"",
                 trans.x * f.k, -trans.y * f.k, (unsigned)cb);
        kcbp_html2d_put_outline(out, &f, ob, attrs);
        kcbp_vec2 to = kcbp_v2_add(bcenter, trans);
        kcbp_html2d_put_arrow(out, &f, kcbp_html2d_px(&f, bcenter.x), kcbp_html2d_py(&f, bcenter.y),
                              kcbp_html2d_px(&f, to.x), kcbp_html2d_py(&f, to.y), "kcbp-translation", 0x222222,
                  " stroke-dasharray=\"6 4\"");
    }
    if (has_points) {
        uint32_t pc = KCBP_VIEW_POINTS_RGB;
        fprintf(out, "<g id=\"kcbp-points\" fill=\"#%06x\" stroke=\"#%06x\">\n", (unsigned)pc, (unsigned)pc);
        fprintf(out, "<line x1=\"%.9g\" y1=\"%.9g\" x2=\"%.9g\" y2=\"%.9g\" stroke-width=\"2\" "
                     "vector-effect=\"non-scaling-stroke\"/>\n",
                kcbp_html2d_px(&f, pa.x), kcbp_html2d_py(&f, pa.y), kcbp_html2d_px(&f, pb.x), kcbp_html2d_py(&f, pb.y));
        fprintf(out, "<circle cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" stroke=\"none\"/>\n", kcbp_html2d_px(&f, pa.x),
                kcbp_html2d_py(&f, pa.y),
                0.8 * f.unit);
        fprintf(out, "<circle cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" stroke=\"none\"/>\n", kcbp_html2d_px(&f, pb.x),
                kcbp_html2d_py(&f, pb.y),
                0.8 * f.unit);
        fputs("</g>\n", out);
    }
    if (has_normal) /* a direction: its length is the drawing's, not the answer's */
        kcbp_html2d_put_arrow(out, &f, kcbp_html2d_px(&f, nfrom.x), kcbp_html2d_py(&f, nfrom.y), kcbp_html2d_px(&f, nto.x),
                              kcbp_html2d_py(&f, nto.y), "kcbp-normal", 0x000000, "");
    fputs("</svg>\n<div id=\"kcbp-legend\">\n<h1>", out);
    kcbp_html2d_put_text(out, title);
    kcbp_html2d_put_text(out, oa->in->arg);
    kcbp_html2d_put_text(out, " ");
    kcbp_html2d_put_text(out, ob->in->arg);
    fputs("</h1>\n", out);
    char text[512];
    snprintf(text, sizeof text, "A: %s", oa->in->arg);
    kcbp_html2d_legend_row(out, "a", ca, "fill", text);
    snprintf(text, sizeof text, "B: %s", ob->in->arg);
    kcbp_html2d_legend_row(out, "b", cb, "fill", text);
    if (overlap && margin > 0) { /* within the margin need not be an overlap */
        snprintf(text, sizeof text, "within the margin %.6g; where A and B overlap, if they do (B clipped to A)",
                 margin);
        kcbp_html2d_legend_row(out, "overlap", KCBP_VIEW_CONTACT_RGB, "fill", text);
    } else if (overlap) {
        kcbp_html2d_legend_row(out, "overlap", KCBP_VIEW_CONTACT_RGB, "fill", "where A and B overlap (B clipped to A)");
    }
    if (nca || ncb) {
        snprintf(text, sizeof text, "contact edges: %u of A, %u of B", nca, ncb);
        kcbp_html2d_legend_row(out, "contacts", KCBP_VIEW_CONTACT_RGB, "thick", text);
    }
    if (has_points) {
        if (overlap)
            snprintf(text, sizeof text, "%s", kcbp_v2_len(kcbp_v2_sub(pa, pb)) > 0
                                                  ? "witness points of the depth and their segment"
                                                  : "a point where they meet");
        else
            snprintf(text, sizeof text, "closest points and their segment (distance %.6g)", distance);
        kcbp_html2d_legend_row(out, "points", KCBP_VIEW_POINTS_RGB, "line", text);
    }
    if (has_normal) {
        snprintf(text, sizeof text, "normal, A toward B (%.6g, %.6g)", normal.x, normal.y);
        kcbp_html2d_legend_row(out, "normal", 0x000000, "line", text);
    }
    if (has_trans) {
        snprintf(text, sizeof text, "B moved by the translation (%.6g, %.6g): apart", trans.x, trans.y);
        kcbp_html2d_legend_row(out, "translation", cb, "dash", text);
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
    kcbp_html2d_put_text(out, text);
    fputs("</div>\n", out);
    kcbp_html2d_page_tail(out, answer_text,
                          "World frame, y up; shapes drawn exactly (circles and arcs); zoom keeps lines thin.");
    return true;
}

typedef struct {
    const char *cmd;
    const kcbp_html2d_outline *oa, *ob;
    double margin;
    const cJSON *answer;
    const char *text;
} page;

static bool write_cb(FILE *out, void *ctx)
{
    const page *p = ctx;
    return write_page(out, p->cmd, p->oa, p->ob, p->margin, p->answer, p->text);
}

int kcbp_html2d_write(const char *path, const char *cmd, const kcbp_html2d_input *a, const kcbp_html2d_input *b,
                      double margin, const cJSON *answer)
{
    kcbp_html2d_outline oa, ob;
    bool ok_a = kcbp_html2d_outline_make(a, &oa), ok_b = kcbp_html2d_outline_make(b, &ob);
    char *text = ok_a && ok_b ? cJSON_Print(answer) : NULL;
    if (!text) {
        free(oa.v), free(ob.v);
        fprintf(stderr, "kcbp: --html: out of memory\n");
        return KCBP_EXIT_NOMEM;
    }
    if ((uint64_t)oa.n + ob.n > KCBP_HTML2D_MAX_VERTICES) {
        fprintf(stderr, "kcbp: --html: %s: the page would draw %llu vertices, more than %u\n", path,
                (unsigned long long)oa.n + ob.n, KCBP_HTML2D_MAX_VERTICES);
        free(oa.v), free(ob.v), cJSON_free(text);
        return KCBP_EXIT_NOMEM;
    }
    page p = {cmd, &oa, &ob, margin, answer, text};
    int rc = kcbp_html2d_write_file(path, write_cb, &p);
    free(oa.v), free(ob.v), cJSON_free(text);
    return rc;
}
