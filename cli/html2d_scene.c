/* --html FILE for 2D kcbp scene (html2d.h): one page, inline SVG, no script.
 *
 * What it draws, in the world frame (y up), for one frame: every object
 * posed, filled translucent in its own colour (kcbp_view_color: a palette,
 * then hues a golden angle apart, distinct for any number of objects),
 * its name as a tooltip (<title>); the objects that collide outlined in
 * the contact red; the contact edges of every colliding pair in thick
 * red. The legend: counts, and the colliding pairs by name (a <details>
 * list, open when short, at most KCBP_HTML2D_SCENE_MAX_LISTED of them).
 *
 * Bounded size: the page refuses (KCBP_ERR_LIMIT, before anything is
 * evaluated) a frame of more than KCBP_HTML2D_SCENE_MAX_OBJECTS objects or
 * KCBP_HTML2D_SCENE_MAX_VERTICES vertices drawn; it draws at most
 * KCBP_HTML2D_SCENE_MAX_EDGES contact edges (the legend says when more
 * were found). The styles common to the objects are one CSS rule, so an
 * object costs its coordinates, its colour and its name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html2d_draw.h"
#include "view.h"

void kcbp_html2d_scene_record_free(kcbp_html2d_scene_record *r)
{
    free(r->pairs);
    free(r->marks);
    memset(r, 0, sizeof *r);
}

kcbp_status kcbp_html2d_scene_record_pair(void *ctx, const kcbp2d_scene_pair *p, kcbp_error *err)
{
    kcbp_html2d_scene_record *r = ctx;
    if (r->npairs == r->cap_pairs) {
        size_t cap = r->cap_pairs ? 2 * r->cap_pairs : 256;
        kcbp_html2d_scene_hit *n = realloc(r->pairs, cap * sizeof *n);
        if (!n)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
        r->pairs = n, r->cap_pairs = cap;
    }
    r->pairs[r->npairs++] = (kcbp_html2d_scene_hit){p->a, p->b, p->contained};
    for (uint32_t k = 0; k < p->ncontacts; k++) {
        for (int side = 0; side < 2; side++) {
            uint32_t e = side ? p->contacts[k].b : p->contacts[k].a, obj = side ? p->b : p->a;
            if (e == KCBP2D_SCENE_NO_EDGE)
                continue;
            if (r->nmarks >= KCBP_HTML2D_SCENE_MAX_EDGES) {
                r->edges_dropped = true;
                continue;
            }
            if (r->nmarks == r->cap_marks) {
                size_t cap = r->cap_marks ? 2 * r->cap_marks : 1024;
                uint64_t *n = realloc(r->marks, cap * sizeof *n);
                if (!n)
                    return kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
                r->marks = n, r->cap_marks = cap;
            }
            r->marks[r->nmarks++] = (uint64_t)obj << 32 | e;
        }
    }
    return KCBP_OK;
}

static kcbp_html2d_input object_input(const kcbp2d_scene *s, uint32_t i, uint32_t frame)
{
    return (kcbp_html2d_input){kcbp2d_scene_object_name(s, i), kcbp2d_scene_object_model(s, i),
                               kcbp2d_scene_object_shape(s, i), kcbp2d_scene_object_pose(s, i, frame)};
}

kcbp_status kcbp_html2d_scene_check(const kcbp2d_scene *s, kcbp_error *err)
{
    uint32_t n = kcbp2d_scene_object_count(s);
    if (n > KCBP_HTML2D_SCENE_MAX_OBJECTS)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "--html: %s has %u objects; a 2D page draws at most %u",
                              kcbp2d_scene_name(s), n, KCBP_HTML2D_SCENE_MAX_OBJECTS);
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_html2d_input in = object_input(s, i, 0);
        v += kcbp_html2d_outline_points(&in);
    }
    if (v > KCBP_HTML2D_SCENE_MAX_VERTICES)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "--html: %s: its objects have %llu vertices; a 2D page draws at most %u",
                              kcbp2d_scene_name(s), (unsigned long long)v, KCBP_HTML2D_SCENE_MAX_VERTICES);
    return KCBP_OK;
}

typedef struct {
    const kcbp2d_scene *scene;
    uint32_t frame;
    const kcbp_html2d_scene_record *rec;
    uint8_t *hit; /* per object: it collides */
    double margin;
} scene_page;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const char scene_style[] =
    "#kcbp-2d .o { fill-opacity: 0.35; stroke-width: 1; vector-effect: non-scaling-stroke; }\n"
    "#kcbp-2d .o.hit { stroke: #e60000; stroke-width: 2; }\n"
    "#kcbp-legend ol { margin: 2px 0; padding-left: 22px; font-size: 12px; }\n";

static bool write_scene(FILE *out, void *ctx)
{
    const scene_page *p = ctx;
    const kcbp2d_scene *s = p->scene;
    const kcbp_html2d_scene_record *rec = p->rec;
    uint32_t n = kcbp2d_scene_object_count(s);
    kcbp_html2d_box all = {0};
    for (uint32_t i = 0; i < n; i++) {
        kcbp_html2d_input in = object_input(s, i, p->frame);
        kcbp_html2d_outline o;
        bool ok = kcbp_html2d_outline_make(&in, &o);
        if (ok)
            kcbp_html2d_outline_box(&o, kcbp_v2_make(0, 0), &all);
        free(o.v);
        if (!ok)
            return false;
    }
    kcbp_html2d_frame f = kcbp_html2d_frame_fit(all);
    const char *name = kcbp2d_scene_name(s);
    size_t tl = strlen(name) + 64;
    char *title = malloc(tl);
    if (!title)
        return false;
    snprintf(title, tl, "kcbp scene %s, frame %u", name, p->frame);
    kcbp_html2d_page_head(out, title, scene_style);
    kcbp_html2d_svg_open(out, &f, "scene");
    fputs("<g id=\"kcbp-objects\">\n", out);
    uint32_t nhit = 0;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_html2d_input in = object_input(s, i, p->frame);
        kcbp_html2d_outline o;
        if (!kcbp_html2d_outline_make(&in, &o)) {
            free(o.v), free(title);
            return false;
        }
        uint32_t c = kcbp_view_color(i);
        char attrs[96];
        snprintf(attrs, sizeof attrs, "class=\"o%s\" data-i=\"%u\" fill=\"#%06x\" stroke=\"#%06x\"",
                 p->hit[i] ? " hit" : "", i, (unsigned)c, (unsigned)c);
        nhit += p->hit[i];
        /* the name as a tooltip: put_outline closes the element, so the
         * outline goes in a group that carries the title */
        fputs("<g><title>", out);
        kcbp_html2d_put_text(out, in.arg);
        fputs("</title>", out);
        kcbp_html2d_put_outline(out, &f, &o, attrs);
        fputs("</g>\n", out);
        free(o.v);
    }
    fputs("</g>\n", out);
    /* the contact edges, object by object */
    uint64_t *marks = malloc((rec->nmarks + 1) * sizeof *marks);
    if (!marks) {
        free(title);
        return false;
    }
    memcpy(marks, rec->marks, rec->nmarks * sizeof *marks);
    qsort(marks, rec->nmarks, sizeof *marks, cmp_u64);
    size_t nedges = 0;
    for (size_t k = 0; k < rec->nmarks;) {
        uint32_t obj = (uint32_t)(marks[k] >> 32);
        size_t end = k;
        while (end < rec->nmarks && (uint32_t)(marks[end] >> 32) == obj)
            end++;
        kcbp_html2d_input in = object_input(s, obj, p->frame);
        kcbp_html2d_outline o;
        if (!kcbp_html2d_outline_make(&in, &o)) {
            free(o.v), free(marks), free(title);
            return false;
        }
        for (size_t j = k; j < end; j++) {
            uint32_t e = (uint32_t)marks[j];
            if ((j > k && marks[j] == marks[j - 1]) || !in.model || e >= o.n)
                continue;
            if (!nedges++)
                kcbp_html2d_contacts_open(out, "kcbp-contacts");
            kcbp_html2d_put_edge(out, &f, &o, e);
        }
        free(o.v);
        k = end;
    }
    free(marks);
    if (nedges)
        fputs("\"/>\n", out);
    fputs("</svg>\n<div id=\"kcbp-legend\">\n<h1>", out);
    kcbp_html2d_put_text(out, title);
    free(title);
    fputs("</h1>\n", out);
    char text[256];
    snprintf(text, sizeof text, "%u object%s (a colour each; the name on hovering)", n, n == 1 ? "" : "s");
    kcbp_html2d_legend_row(out, "objects", kcbp_view_color(0), "fill", text);
    if (nhit) {
        snprintf(text, sizeof text, "%u colliding object%s (outlined red)", nhit, nhit == 1 ? "" : "s");
        kcbp_html2d_legend_row(out, "colliding", KCBP_VIEW_CONTACT_RGB, "line", text);
    }
    if (nedges) {
        snprintf(text, sizeof text, "%zu contact edge%s%s", nedges, nedges == 1 ? "" : "s",
                 rec->edges_dropped ? " (the first found: more were)" : "");
        kcbp_html2d_legend_row(out, "contacts", KCBP_VIEW_CONTACT_RGB, "thick", text);
    }
    fprintf(out, "<div class=\"answer\">frame %u: %zu colliding pair%s%s</div>\n", p->frame, rec->npairs,
            rec->npairs == 1 ? "" : "s", p->margin > 0 ? " (within the margin)" : "");
    if (rec->npairs) {
        fprintf(out, "<details id=\"kcbp-pairs\"%s><summary>the colliding pairs</summary>\n<ol>\n",
                rec->npairs <= 20 ? " open=\"open\"" : "");
        size_t shown = rec->npairs < KCBP_HTML2D_SCENE_MAX_LISTED ? rec->npairs : KCBP_HTML2D_SCENE_MAX_LISTED;
        for (size_t k = 0; k < shown; k++) {
            const kcbp_html2d_scene_hit *h = &rec->pairs[k];
            fputs("<li>", out);
            kcbp_html2d_put_text(out, kcbp2d_scene_object_name(s, h->a));
            fputs(" \xe2\x80\x94 ", out);
            kcbp_html2d_put_text(out, kcbp2d_scene_object_name(s, h->b));
            if (h->contained != KCBP2D_CONTAINED_NONE)
                fprintf(out, " (%s inside)", h->contained == KCBP2D_CONTAINED_A_IN_B ? "the first" : "the second");
            fputs("</li>\n", out);
        }
        fputs("</ol>\n", out);
        if (shown < rec->npairs)
            fprintf(out, "<div class=\"help\">and %zu more (the report lists them all)</div>\n", rec->npairs - shown);
        fputs("</details>\n", out);
    }
    kcbp_html2d_page_tail(out, NULL, "World frame, y up; shapes drawn exactly; zoom keeps lines thin.");
    return true;
}

kcbp_status kcbp_html2d_scene_write(const char *path, const kcbp2d_scene *scene, uint32_t frame, double margin,
                                    const kcbp_html2d_scene_record *rec, kcbp_error *err)
{
    uint32_t n = kcbp2d_scene_object_count(scene);
    uint8_t *hit = calloc((size_t)n + 1, 1);
    if (!hit)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--html: out of memory");
    for (size_t k = 0; k < rec->npairs; k++)
        hit[rec->pairs[k].a] = hit[rec->pairs[k].b] = 1;
    scene_page p = {scene, frame, rec, hit, margin};
    kcbp_status st = kcbp_html2d_write_file_status(path, write_scene, &p, err);
    free(hit);
    return st;
}
