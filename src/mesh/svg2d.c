/* SVG shapes into 2D models (include/kcbp/polygon2d.h): <polygon>, <rect>,
 * <circle> (flattened) and <path> with straight segments, read by a small
 * scanner of the elements' attributes (no XML library: SVG's other
 * elements are skipped, comments and CDATA too). */
#include <kcbp/polygon2d.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convex/convex2d.h"
#include "mesh/ring_nest.h"

typedef struct {
    const char *name, *text;
    size_t len;
    kcbp_error *err;
    kcbp_vec2 *pts;
    size_t npts, cap;
    uint32_t *ring_end; /* per ring */
    size_t nrings, cap_rings;
} svg_reader;

/* "name:line:col" of the byte at. */
static kcbp_status fail_at(svg_reader *r, size_t at, kcbp_status code, const char *what)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < r->len; i++) {
        if (r->text[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    return kcbp_error_set(r->err, code, "%s:%zu:%zu: %s", r->name, line, col, what);
}

static bool push_point(svg_reader *r, kcbp_vec2 p)
{
    if (r->npts == r->cap) {
        size_t c = r->cap ? 2 * r->cap : 64;
        kcbp_vec2 *q = realloc(r->pts, c * sizeof *q);
        if (!q)
            return false;
        r->pts = q, r->cap = c;
    }
    r->pts[r->npts++] = p;
    return true;
}

/* Closes the ring started at `start`: drops a last point equal to the
 * first and consecutive duplicates; fewer than 3 points is an error. */
static kcbp_status end_ring(svg_reader *r, size_t start, size_t at)
{
    size_t k = start;
    for (size_t i = start; i < r->npts; i++)
        if (k == start || r->pts[i].x != r->pts[k - 1].x || r->pts[i].y != r->pts[k - 1].y)
            r->pts[k++] = r->pts[i];
    if (k - start >= 2 && r->pts[k - 1].x == r->pts[start].x && r->pts[k - 1].y == r->pts[start].y)
        k--;
    r->npts = k;
    if (k - start < 3)
        return fail_at(r, at, KCBP_ERR_GEOMETRY, "a shape with fewer than 3 distinct points (no area)");
    if (r->nrings == r->cap_rings) {
        size_t c = r->cap_rings ? 2 * r->cap_rings : 16;
        uint32_t *q = realloc(r->ring_end, c * sizeof *q);
        if (!q)
            return kcbp_error_set(r->err, KCBP_ERR_NOMEM, "%s: out of memory", r->name);
        r->ring_end = q, r->cap_rings = c;
    }
    r->ring_end[r->nrings++] = (uint32_t)k;
    return KCBP_OK;
}

/* The value of attribute `key` inside the tag [b, e): its start and
 * length, or NULL. */
static const char *attr(const char *b, const char *e, const char *key, size_t *n)
{
    size_t kl = strlen(key);
    for (const char *p = b; p + kl + 2 <= e; p++) {
        if ((p == b || isspace((unsigned char)p[-1])) && !strncmp(p, key, kl)) {
            const char *q = p + kl;
            while (q < e && isspace((unsigned char)*q))
                q++;
            if (q >= e || *q != '=')
                continue;
            q++;
            while (q < e && isspace((unsigned char)*q))
                q++;
            if (q >= e || (*q != '"' && *q != '\''))
                continue;
            char quote = *q++;
            const char *v = q;
            while (q < e && *q != quote)
                q++;
            *n = (size_t)(q - v);
            return v;
        }
    }
    return NULL;
}

/* A number at *p (skipping separators: spaces and commas); false at the
 * end or on a non-number. The whole token is read, however long (a copy
 * cut short would leave its tail to be read as another number). */
static bool number(const char **p, const char *e, double *out)
{
    while (*p < e && (isspace((unsigned char)**p) || **p == ','))
        (*p)++;
    if (*p >= e)
        return false;
    const char *q = *p;
    if (*q == '+' || *q == '-')
        q++;
    bool digits = false, dot = false;
    for (; q < e; q++) {
        if (isdigit((unsigned char)*q))
            digits = true;
        else if (*q == '.' && !dot)
            dot = true;
        else
            break;
    }
    if (!digits)
        return false;
    if (q < e && (*q == 'e' || *q == 'E')) {
        const char *s = q + 1;
        if (s < e && (*s == '+' || *s == '-'))
            s++;
        if (s < e && isdigit((unsigned char)*s)) {
            q = s;
            while (q < e && isdigit((unsigned char)*q))
                q++;
        }
    }
    size_t n = (size_t)(q - *p);
    char small[64], *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return false;
    memcpy(buf, *p, n);
    buf[n] = 0;
    *out = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    *p = q;
    return true;
}

static kcbp_status attr_number(svg_reader *r, const char *b, const char *e, const char *key, bool required,
                               double *out)
{
    size_t n;
    const char *v = attr(b, e, key, &n);
    *out = 0;
    if (!v) {
        if (!required)
            return KCBP_OK;
        char msg[96];
        snprintf(msg, sizeof msg, "attribute %s is missing", key);
        return fail_at(r, (size_t)(b - r->text), KCBP_ERR_PARSE, msg);
    }
    const char *p = v;
    if (!number(&p, v + n, out) || !isfinite(*out) || fabs(*out) > KCBP_COORD_MAX) {
        char msg[96];
        snprintf(msg, sizeof msg, "attribute %s is not a finite number", key);
        return fail_at(r, (size_t)(v - r->text), KCBP_ERR_PARSE, msg);
    }
    /* a unit: user units (none, or px) only; "5cm" read as 5 would be wrong */
    const char *u = p, *ue = v + n;
    while (ue > u && isspace((unsigned char)ue[-1]))
        ue--;
    if (ue - u == 2 && !strncmp(u, "px", 2))
        u = ue;
    if (u < ue) {
        char msg[128];
        snprintf(msg, sizeof msg, "attribute %s has the unit '%.*s': only user units (or px) are read", key,
                 (int)(ue - u > 8 ? 8 : ue - u), u);
        return fail_at(r, (size_t)(u - r->text), KCBP_ERR_PARSE, msg);
    }
    return KCBP_OK;
}

static kcbp_status add_xy(svg_reader *r, double x, double y, size_t at)
{
    if (!isfinite(x) || !isfinite(y) || fabs(x) > KCBP_COORD_MAX || fabs(y) > KCBP_COORD_MAX)
        return fail_at(r, at, KCBP_ERR_INVALID, "a coordinate that is not finite or beyond 1e60");
    if (!push_point(r, kcbp_v2_make(x, y)))
        return kcbp_error_set(r->err, KCBP_ERR_NOMEM, "%s: out of memory", r->name);
    return KCBP_OK;
}

static kcbp_status read_points(svg_reader *r, const char *b, const char *e)
{
    size_t n;
    const char *v = attr(b, e, "points", &n);
    if (!v)
        return fail_at(r, (size_t)(b - r->text), KCBP_ERR_PARSE, "a polygon without points");
    size_t start = r->npts;
    const char *p = v, *end = v + n;
    double x, y;
    while (number(&p, end, &x)) {
        if (!number(&p, end, &y)) /* number() stopped at the end or at what is not a number */
            return fail_at(r, (size_t)(p - r->text), KCBP_ERR_PARSE,
                           p < end ? "not a number in points" : "an odd count of numbers in points");
        kcbp_status st = add_xy(r, x, y, (size_t)(p - r->text));
        if (st != KCBP_OK)
            return st;
    }
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p < end)
        return fail_at(r, (size_t)(p - r->text), KCBP_ERR_PARSE, "not a number in points");
    return end_ring(r, start, (size_t)(b - r->text));
}

static kcbp_status read_path(svg_reader *r, const char *b, const char *e)
{
    size_t n;
    const char *v = attr(b, e, "d", &n);
    if (!v)
        return fail_at(r, (size_t)(b - r->text), KCBP_ERR_PARSE, "a path without d");
    const char *p = v, *end = v + n;
    char cmd = 0;
    double cx = 0, cy = 0;
    size_t start = r->npts;
    bool open = false;
    kcbp_status st;
    for (;;) {
        while (p < end && (isspace((unsigned char)*p) || *p == ','))
            p++;
        if (p >= end)
            break;
        if (isalpha((unsigned char)*p)) {
            cmd = *p;
            size_t at = (size_t)(p - r->text);
            p++;
            if (strchr("CcSsQqTtAa", cmd)) {
                char msg[128];
                snprintf(msg, sizeof msg, "path command '%c' draws a curve: not read (straight segments only: "
                                          "M, L, H, V, Z)", cmd);
                return fail_at(r, at, KCBP_ERR_PARSE, msg);
            }
            if (!strchr("MmLlHhVvZz", cmd))
                return fail_at(r, at, KCBP_ERR_PARSE, "an unknown path command");
            if (cmd == 'Z' || cmd == 'z') {
                if (open && (st = end_ring(r, start, at)) != KCBP_OK)
                    return st;
                if (open)
                    cx = r->pts[start].x, cy = r->pts[start].y;
                open = false;
                start = r->npts;
                continue;
            }
            if ((cmd == 'M' || cmd == 'm') && open) {
                if ((st = end_ring(r, start, at)) != KCBP_OK) /* an implicitly closed subpath */
                    return st;
                open = false;
                start = r->npts;
            }
            continue;
        }
        if (!cmd)
            return fail_at(r, (size_t)(p - r->text), KCBP_ERR_PARSE, "path data must start with M");
        size_t at = (size_t)(p - r->text);
        double x, y;
        if (!number(&p, end, &x))
            return fail_at(r, at, KCBP_ERR_PARSE, "not a number in path data");
        switch (cmd) {
        case 'M': case 'm': case 'L': case 'l':
            if (!number(&p, end, &y))
                return fail_at(r, at, KCBP_ERR_PARSE, "a coordinate pair is missing its y");
            if (cmd == 'm' || cmd == 'l')
                x += cx, y += cy;
            cx = x, cy = y;
            if (cmd == 'M')
                cmd = 'L'; /* further pairs are lines */
            else if (cmd == 'm')
                cmd = 'l';
            break;
        case 'H': cx = x; break;
        case 'h': cx += x; break;
        case 'V': cy = x; break;
        case 'v': cy += x; break;
        default: return fail_at(r, at, KCBP_ERR_PARSE, "numbers after Z");
        }
        if ((st = add_xy(r, cx, cy, at)) != KCBP_OK)
            return st;
        open = true;
    }
    if (open && (st = end_ring(r, start, (size_t)(b - r->text))) != KCBP_OK)
        return st;
    return KCBP_OK;
}

kcbp_status kcbp2d_model_parse_svg(const char *text, size_t len, const char *name, double flatten,
                                   kcbp2d_model **out, kcbp_error *err)
{
    if (out)
        *out = NULL;
    if (!name)
        name = "(SVG)";
    if (!text || !out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: no text", name);
    if (!(flatten > 0) || !(flatten < 1))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: flattening tolerance %g not in (0, 1)", name, flatten);
    svg_reader r;
    memset(&r, 0, sizeof r);
    r.name = name, r.text = text, r.len = len, r.err = err;
    kcbp_status st = KCBP_OK;
    const char *p = text, *end = text + len;
    int hidden_depth = 0; /* inside <defs>, <symbol>, <clipPath>, <mask>, <marker>, <pattern> */
    while (st == KCBP_OK && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        if (end - p >= 4 && !strncmp(p, "<!--", 4)) {
            /* the text need not end with a NUL: search only inside it */
            const char *q = memmem(p + 4, (size_t)(end - p - 4), "-->", 3);
            p = q ? q + 3 : end;
            continue;
        }
        const char *b = p + 1, *e = memchr(b, '>', (size_t)(end - b));
        if (!e) {
            st = fail_at(&r, (size_t)(p - text), KCBP_ERR_PARSE, "a tag is not closed ('>')");
            break;
        }
        size_t tl = 0;
        while (b + tl < e && (isalnum((unsigned char)b[tl]) || b[tl] == ':' || b[tl] == '_'))
            tl++;
        size_t at = (size_t)(p - text), n;
        const char *style = tl ? attr(b + tl, e, "style", &n) : NULL;
        bool style_transform = style && memmem(style, n, "transform", 9);
        /* elements that are not drawn where they stand (their shapes are
         * drawn by <use>, clipping, masks, markers, patterns, or not at all) */
        static const char *const hidden[] = {"defs", "symbol", "clipPath", "mask", "marker", "pattern"};
        bool is_hidden = false, closing = b < e && *b == '/';
        const char *nb = closing ? b + 1 : b;
        size_t nl = 0;
        while (nb + nl < e && (isalnum((unsigned char)nb[nl]) || nb[nl] == ':' || nb[nl] == '_'))
            nl++;
        for (size_t k = 0; k < sizeof hidden / sizeof hidden[0]; k++)
            is_hidden = is_hidden || (nl == strlen(hidden[k]) && !strncmp(nb, hidden[k], nl));
        if (is_hidden) {
            if (closing && hidden_depth > 0)
                hidden_depth--;
            else if (!closing && e[-1] != '/')
                hidden_depth++;
            p = e + 1;
            continue;
        }
        if (hidden_depth > 0) {
            p = e + 1;
            continue;
        }
        if (tl && (attr(b + tl, e, "transform", &n) || style_transform)) {
            st = fail_at(&r, at, KCBP_ERR_PARSE, "a transform attribute: not applied, so refused (flatten it first)");
        } else if (tl == 3 && !strncmp(b, "use", 3)) {
            st = fail_at(&r, at, KCBP_ERR_PARSE, "<use> is not expanded, so refused (flatten it first)");
        } else if (tl == 7 && !strncmp(b, "polygon", 7)) {
            st = read_points(&r, b + tl, e);
        } else if (tl == 4 && !strncmp(b, "path", 4)) {
            st = read_path(&r, b + tl, e);
        } else if (tl == 4 && !strncmp(b, "rect", 4)) {
            double x, y, w, h, rx = 0, ry = 0;
            if ((st = attr_number(&r, b + tl, e, "x", false, &x)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "y", false, &y)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "width", true, &w)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "height", true, &h)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "rx", false, &rx)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "ry", false, &ry)) == KCBP_OK) {
                if (rx != 0 || ry != 0)
                    st = fail_at(&r, at, KCBP_ERR_PARSE, "a rect with rounded corners (rx, ry) is a curve: not read");
                else if (!(w > 0) || !(h > 0))
                    st = fail_at(&r, at, KCBP_ERR_GEOMETRY, "a rect of zero width or height (no area)");
                else {
                    size_t start = r.npts;
                    if ((st = add_xy(&r, x, y, at)) == KCBP_OK && (st = add_xy(&r, x + w, y, at)) == KCBP_OK &&
                        (st = add_xy(&r, x + w, y + h, at)) == KCBP_OK && (st = add_xy(&r, x, y + h, at)) == KCBP_OK)
                        st = end_ring(&r, start, at);
                }
            }
        } else if (tl == 6 && !strncmp(b, "circle", 6)) {
            double cx, cy, rad;
            if ((st = attr_number(&r, b + tl, e, "cx", false, &cx)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "cy", false, &cy)) == KCBP_OK &&
                (st = attr_number(&r, b + tl, e, "r", true, &rad)) == KCBP_OK) {
                if (!(rad > 0)) {
                    st = fail_at(&r, at, KCBP_ERR_GEOMETRY, "a circle of radius 0 (no area)");
                } else {
                    /* inscribed: the sagitta r (1 - cos(pi / k)) <= flatten * r */
                    double k = ceil(M_PI / acos(1 - flatten));
                    uint32_t m = k < 8 ? 8 : (uint32_t)fmin(k, 1e6);
                    size_t start = r.npts;
                    for (uint32_t i = 0; i < m && st == KCBP_OK; i++) {
                        double t = 2 * M_PI * i / m;
                        st = add_xy(&r, cx + rad * cos(t), cy + rad * sin(t), at);
                    }
                    if (st == KCBP_OK)
                        st = end_ring(&r, start, at);
                }
            }
        } else if ((tl == 7 && !strncmp(b, "ellipse", 7)) || (tl == 8 && !strncmp(b, "polyline", 8)) ||
                   (tl == 4 && !strncmp(b, "line", 4))) {
            char msg[128];
            snprintf(msg, sizeof msg, "<%.*s> is not read (an open line has no area; ellipses are curves)", (int)tl, b);
            st = fail_at(&r, at, KCBP_ERR_PARSE, msg);
        }
        p = e + 1;
    }
    if (st == KCBP_OK && r.nrings == 0)
        st = kcbp_error_set(err, KCBP_ERR_GEOMETRY, "%s: no polygon, rect, circle or path: nothing to collide", name);
    /* Group the rings: a ring inside an odd number of others is a hole of
     * the smallest one holding it (ring_nest.h: one plane sweep, exact
     * orientation signs; rings that cross are refused by the model's check
     * anyway). Testing each ring's point against the rings whose box holds
     * it was quadratic when rings nest: 8000 nested squares took 1.3 s. */
    uint32_t *depth = NULL, *parent = NULL, *order = NULL, *ends = NULL, *pend = NULL, *hstart = NULL, *holes = NULL;
    kcbp_vec2 *pts = NULL;
    if (st == KCBP_OK) {
        size_t R = r.nrings;
        depth = calloc(R, sizeof *depth), parent = malloc(R * sizeof *parent), order = malloc(R * sizeof *order);
        ends = malloc(R * sizeof *ends), pend = malloc(R * sizeof *pend), pts = malloc(r.npts * sizeof *pts + 1);
        hstart = calloc(R + 1, sizeof *hstart), holes = malloc(R * sizeof *holes);
        if (!depth || !parent || !order || !ends || !pend || !pts || !hstart || !holes)
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
        if (st == KCBP_OK && !kcbp_ring_nest(r.pts, r.ring_end, R, depth, parent))
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
        for (size_t i = 0; st == KCBP_OK && i < R; i++)
            if ((depth[i] & 1) && parent[i] != UINT32_MAX)
                hstart[parent[i] + 1]++;
        /* each outer ring's holes, in file order */
        for (size_t i = 0; st == KCBP_OK && i < R; i++)
            hstart[i + 1] += hstart[i];
        for (uint32_t j = 0, *fill = hstart; st == KCBP_OK && j < R; j++)
            if ((depth[j] & 1) && parent[j] != UINT32_MAX)
                holes[fill[parent[j]]++] = j;
        /* fill[] advanced each start to the next one's: shift them back */
        for (size_t i = R; st == KCBP_OK && i > 0; i--)
            hstart[i] = hstart[i - 1];
        if (st == KCBP_OK)
            hstart[0] = 0;
        /* polygons: each outer ring (even depth) then its holes */
        size_t no = 0, np = 0, nv = 0;
        for (size_t i = 0; st == KCBP_OK && i < R; i++) {
            if (depth[i] & 1)
                continue;
            for (size_t h = hstart[i]; h < (size_t)hstart[i + 1] + 1; h++) { /* the ring, then its holes */
                size_t j = h == hstart[i] ? i : holes[h - 1];
                size_t s = j ? r.ring_end[j - 1] : 0, t = r.ring_end[j];
                memcpy(pts + nv, r.pts + s, (t - s) * sizeof *pts);
                nv += t - s;
                ends[no] = (uint32_t)nv;
                order[no++] = (uint32_t)j;
            }
            pend[np++] = (uint32_t)no;
        }
        if (st == KCBP_OK && no != R)
            st = kcbp_error_set(err, KCBP_ERR_GEOMETRY, "%s: shapes overlap or nest in a way that is not a region", name);
        if (st == KCBP_OK) {
            kcbp2d_polygons in = {pts, ends, (uint32_t)no, pend, (uint32_t)np};
            kcbp_error e2;
            st = kcbp2d_model_build(&in, out, &e2);
            if (st == KCBP_ERR_GEOMETRY)
                kcbp_error_set(err, st, "%s: shapes overlap, or cross or touch themselves (their outlines must bound a "
                                        "region simply; separate shapes may only touch)", name);
            else if (st != KCBP_OK && err)
                *err = e2, kcbp_error_prefix(err, name);
        }
    }
    free(depth), free(parent), free(order), free(ends), free(pend), free(pts), free(hstart), free(holes);
    free(r.pts);
    free(r.ring_end);
    return st;
}
