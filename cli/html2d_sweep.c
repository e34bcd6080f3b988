/* --html FILE for 2D kcbp sweep (html2d.h): one page, inline SVG, no script.
 *
 * What it draws, in the world frame (y up): A at its pose; B faint and
 * dashed at the start and at the end of its motion, and solid at the time
 * of impact when there is one; the path of B's centre (the centre of its
 * box in its own frame: B turns about its own origin, so the path is a
 * curve when the two differ), sampled along the motion (kcbp2d_motion_at)
 * at least every 2.5 degrees of turn, with a dot at the time of impact;
 * at the time of impact the contact edges of the report in red, the
 * contact point ("point") in magenta and the normal (A toward B) as a
 * black arrow of fixed length. The legend lists only what is drawn, the
 * answer in a line and the report itself (JSON). The frame, outlines and
 * legend are html2d_draw.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html2d_draw.h"
#include "view.h"

/* The path's samples: at least 64, one per 2.5 degrees of turn, at most this. */
#define SWEEP_PATH_MAX_SAMPLES 4097u

typedef struct {
    const kcbp_html2d_outline *a, *from, *to, *hit; /* hit: NULL when B never touches A */
    const kcbp_vec2 *path;
    uint32_t npath;
    kcbp_vec2 at_toi; /* B's centre at toi */
    const cJSON *answer;
    const char *text;
} sweep_page;

static bool write_sweep(FILE *out, void *ctx)
{
    const sweep_page *p = ctx;
    const cJSON *answer = p->answer;
    const cJSON *toi = cJSON_GetObjectItemCaseSensitive(answer, "toi");
    bool hit = p->hit && cJSON_IsNumber(toi);
    kcbp_vec2 point, normal;
    bool has_point = hit && kcbp_html2d_get_vec2(answer, "point", &point);
    bool has_normal = hit && kcbp_html2d_get_vec2(answer, "normal", &normal) && kcbp_v2_len(normal) > 0;

    kcbp_html2d_box all = {0};
    kcbp_html2d_outline_box(p->a, kcbp_v2_make(0, 0), &all);
    kcbp_html2d_outline_box(p->from, kcbp_v2_make(0, 0), &all);
    kcbp_html2d_outline_box(p->to, kcbp_v2_make(0, 0), &all);
    if (hit)
        kcbp_html2d_outline_box(p->hit, kcbp_v2_make(0, 0), &all);
    for (uint32_t i = 0; i < p->npath; i++)
        kcbp_html2d_box_add(&all, p->path[i]);
    if (has_point)
        kcbp_html2d_box_add(&all, point);
    kcbp_vec2 nto = has_point ? point : kcbp_v2_make(0, 0);
    if (has_normal && has_point) { /* a direction: 12% of the drawing, inside the frame too */
        double len = 0.12 * fmax(all.hi_x - all.lo_x, all.hi_y - all.lo_y);
        nto = kcbp_v2_add(point, kcbp_v2_scale(normal, (len > 0 ? len : 1) / kcbp_v2_len(normal)));
        kcbp_html2d_box_add(&all, nto);
    }
    kcbp_html2d_frame f = kcbp_html2d_frame_fit(all);
    const char *an = p->a->in->arg, *bn = p->from->in->arg;
    size_t tl = strlen(an) + strlen(bn) + 16;
    char *title = malloc(tl);
    if (!title)
        return false;
    snprintf(title, tl, "kcbp sweep %s %s", an, bn);
    kcbp_html2d_page_head(out, title, NULL);
    kcbp_html2d_svg_open(out, &f, "sweep");

    uint32_t ca = kcbp_view_color(0), cb = kcbp_view_color(1);
    kcbp_html2d_put_body(out, &f, p->a, "kcbp-a", ca, false);
    kcbp_html2d_put_body(out, &f, p->from, "kcbp-b-from", cb, true);
    kcbp_html2d_put_body(out, &f, p->to, "kcbp-b-to", cb, true);
    if (hit)
        kcbp_html2d_put_body(out, &f, p->hit, "kcbp-b", cb, false);
    fprintf(out, "<path id=\"kcbp-path\" fill=\"none\" stroke=\"#222222\" stroke-width=\"1.5\" "
                 "stroke-dasharray=\"2 3\" vector-effect=\"non-scaling-stroke\" d=\"");
    for (uint32_t i = 0; i < p->npath; i++) {
        fputs(i ? " " : "M", out);
        kcbp_html2d_put_xy(out, &f, p->path[i]);
    }
    fputs("\"/>\n", out);
    if (hit)
        fprintf(out, "<circle id=\"kcbp-path-toi\" cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" fill=\"#222222\"/>\n",
                kcbp_html2d_px(&f, p->at_toi.x), kcbp_html2d_py(&f, p->at_toi.y), 0.5 * f.unit);
    uint32_t nca = 0, ncb = 0;
    const cJSON *contacts = cJSON_GetObjectItemCaseSensitive(answer, "contacts");
    if (hit && cJSON_IsArray(contacts)) {
        size_t n = (size_t)(p->a->n > p->hit->n ? p->a->n : p->hit->n) + 1;
        uint8_t *seen = calloc(n, 1);
        if (!seen) {
            free(title);
            return false;
        }
        nca = kcbp_html2d_put_contact_edges(out, &f, p->a, contacts, 0, "kcbp-contacts-a", seen);
        memset(seen, 0, n);
        ncb = kcbp_html2d_put_contact_edges(out, &f, p->hit, contacts, 1, "kcbp-contacts-b", seen);
        free(seen);
    }
    if (has_point)
        fprintf(out, "<circle id=\"kcbp-points\" cx=\"%.9g\" cy=\"%.9g\" r=\"%.9g\" fill=\"#%06x\"/>\n",
                kcbp_html2d_px(&f, point.x), kcbp_html2d_py(&f, point.y), 0.8 * f.unit, (unsigned)KCBP_VIEW_POINTS_RGB);
    if (has_normal && has_point)
        kcbp_html2d_put_arrow(out, &f, kcbp_html2d_px(&f, point.x), kcbp_html2d_py(&f, point.y), kcbp_html2d_px(&f, nto.x),
                              kcbp_html2d_py(&f, nto.y), "kcbp-normal", 0x000000, "");
    fputs("</svg>\n<div id=\"kcbp-legend\">\n<h1>", out);
    kcbp_html2d_put_text(out, title);
    free(title);
    fputs("</h1>\n", out);
    size_t xl = strlen(an) + strlen(bn) + 160;
    char *text = malloc(xl);
    if (!text)
        return false;
    snprintf(text, xl, "A: %s", an);
    kcbp_html2d_legend_row(out, "a", ca, "fill", text);
    snprintf(text, xl, "B: %s at the start (t = 0)", bn);
    kcbp_html2d_legend_row(out, "from", cb, "faint", text);
    snprintf(text, xl, "B at the end (t = 1)");
    kcbp_html2d_legend_row(out, "to", cb, "faint", text);
    if (hit) {
        snprintf(text, xl, "B at the time of impact (t = %.9g)", toi->valuedouble);
        kcbp_html2d_legend_row(out, "b", cb, "fill", text);
    }
    kcbp_html2d_legend_row(out, "path", 0x222222, "dash",
                           hit ? "the path of B's centre (dot: at the time of impact)" : "the path of B's centre");
    if (nca || ncb) {
        snprintf(text, xl, "contact edges at the time of impact: %u of A, %u of B", nca, ncb);
        kcbp_html2d_legend_row(out, "contacts", KCBP_VIEW_CONTACT_RGB, "thick", text);
    }
    if (has_point)
        kcbp_html2d_legend_row(out, "points", KCBP_VIEW_POINTS_RGB, "line", "the contact point at the time of impact");
    if (has_normal && has_point) {
        snprintf(text, xl, "normal, A toward B (%.6g, %.6g)", normal.x, normal.y);
        kcbp_html2d_legend_row(out, "normal", 0x000000, "line", text);
    }
    const cJSON *free_until = cJSON_GetObjectItemCaseSensitive(answer, "free_until");
    if (hit)
        snprintf(text, xl, "toi: %.9g%s", toi->valuedouble,
                 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(answer, "confirmed")) ? " (confirmed)" : "");
    else if (cJSON_IsNumber(free_until))
        snprintf(text, xl, "undecided: no contact before t = %.9g", free_until->valuedouble);
    else
        snprintf(text, xl, "toi: null (B never touches A)");
    fputs("<div class=\"answer\">", out);
    kcbp_html2d_put_text(out, text);
    free(text);
    fputs("</div>\n", out);
    kcbp_html2d_page_tail(out, p->text, "World frame, y up; B turns about its own origin; shapes drawn exactly; "
                                        "zoom keeps lines thin.");
    return true;
}

/* B (its pose ignored) at the pose of motion m at t. */
static bool b_at(const kcbp_html2d_input *b, const kcbp2d_motion *m, double t, kcbp_html2d_input *at,
                 kcbp_html2d_outline *o)
{
    kcbp_error err;
    *at = *b;
    if (kcbp2d_motion_at(m, t, &at->pose, &err) != KCBP_OK)
        at->pose = b->pose;
    return kcbp_html2d_outline_make(at, o);
}

int kcbp_html2d_sweep_write(const char *path, const kcbp_html2d_input *a, const kcbp_html2d_input *b,
                            const kcbp2d_motion *mb, const cJSON *answer)
{
    if ((uint64_t)kcbp_html2d_outline_points(a) + 3 * (uint64_t)kcbp_html2d_outline_points(b) > KCBP_HTML2D_MAX_VERTICES) {
        fprintf(stderr, "kcbp: --html: %s: the page would draw more than %u vertices\n", path,
                KCBP_HTML2D_MAX_VERTICES);
        return KCBP_EXIT_NOMEM;
    }
    const cJSON *toi = cJSON_GetObjectItemCaseSensitive(answer, "toi");
    bool hit = cJSON_IsNumber(toi);
    kcbp_html2d_input bf, bt, bh, b0 = *b;
    kcbp_html2d_outline oa = {0}, of = {0}, ot = {0}, oh = {0}, local = {0};
    double turn = fabs(mb->to_deg - mb->from_deg);
    uint32_t n = 64;
    if (isfinite(turn) && turn / 2.5 > n)
        n = turn / 2.5 < SWEEP_PATH_MAX_SAMPLES - 1 ? (uint32_t)(turn / 2.5) : SWEEP_PATH_MAX_SAMPLES - 1;
    kcbp_vec2 *pts = malloc(((size_t)n + 1) * sizeof *pts);
    b0.pose = kcbp2d_pose_identity();
    bool ok = pts && kcbp_html2d_outline_make(a, &oa) && b_at(b, mb, 0, &bf, &of) && b_at(b, mb, 1, &bt, &ot) &&
              (!hit || b_at(b, mb, toi->valuedouble, &bh, &oh)) && kcbp_html2d_outline_make(&b0, &local);
    char *text = ok ? cJSON_Print(answer) : NULL;
    int rc = KCBP_EXIT_NOMEM;
    if (!text) {
        fprintf(stderr, "kcbp: --html: out of memory\n");
    } else {
        kcbp_html2d_box lb = {0};
        kcbp_html2d_outline_box(&local, kcbp_v2_make(0, 0), &lb);
        kcbp_vec2 c = lb.any ? kcbp_v2_make(lb.lo_x / 2 + lb.hi_x / 2, lb.lo_y / 2 + lb.hi_y / 2) : kcbp_v2_make(0, 0);
        kcbp_error err;
        for (uint32_t i = 0; i <= n; i++) {
            kcbp2d_pose q;
            if (kcbp2d_motion_at(mb, (double)i / n, &q, &err) != KCBP_OK)
                q = b->pose;
            pts[i] = kcbp2d_pose_apply(&q, c);
        }
        sweep_page p = {&oa, &of, &ot, hit ? &oh : NULL, pts, n + 1, hit ? kcbp2d_pose_apply(&bh.pose, c) : c,
                        answer, text};
        rc = kcbp_html2d_write_file(path, write_sweep, &p);
    }
    cJSON_free(text);
    free(pts), free(oa.v), free(of.v), free(ot.v), free(oh.v), free(local.v);
    return rc;
}
