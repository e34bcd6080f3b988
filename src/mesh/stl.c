/* STL reader, binary and ASCII (rules in kcbp/mesh_io.h). Vertices are
 * welded exactly as they are read. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <kcbp/mesh_io.h>

#include "read.h"
#include "base/numparse.h"
#include "base/util.h"
#include "base/text_scan.h"

typedef struct {
    const char *name;
    kcbp_error *err;
    kcbp_welder w;
    kcbp_tri *t;
    size_t nt, cap_t;
} stl;


#if defined(__GNUC__)
#define PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PRINTF(a, b)
#endif

static kcbp_status fail_byte(stl *s, kcbp_status code, size_t byte, const char *fmt, ...) PRINTF(4, 5);
static kcbp_status fail_byte(stl *s, kcbp_status code, size_t byte, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(s->err, code, s->name, true, byte, fmt, ap);
    va_end(ap);
    return st;
}

static kcbp_status fail_line(stl *s, kcbp_status code, size_t line, const char *fmt, ...) PRINTF(4, 5);
static kcbp_status fail_line(stl *s, kcbp_status code, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(s->err, code, s->name, false, line, fmt, ap);
    va_end(ap);
    return st;
}

static kcbp_status add_tri(stl *s, const uint32_t v[3])
{
    if (s->nt >= KCBP_MESH_MAX_ELEMENTS)
        return KCBP_ERR_LIMIT;
    if (!kcbp_grow(&s->t, &s->cap_t, s->nt + 1, sizeof *s->t, 1024))
        return KCBP_ERR_NOMEM;
    memcpy(s->t[s->nt++].v, v, sizeof s->t->v);
    return KCBP_OK;
}

static const char *limit_text(kcbp_status st)
{
    return st == KCBP_ERR_LIMIT ? "more than 50000000 vertices or triangles" : "out of memory";
}

static kcbp_status finish(stl *s, kcbp_mesh *mesh, kcbp_status st)
{
    if (st != KCBP_OK) {
        kcbp_welder_free(&s->w);
        free(s->t);
        return st;
    }
    free(s->w.slot);
    st = kcbp_mesh_adopt(mesh, s->w.v, s->w.nv, s->t, s->nt, s->err);
    if (st != KCBP_OK)
        kcbp_error_prefix(s->err, s->name);
    return st;
}

static float rd_float(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static kcbp_status parse_binary(stl *s, const unsigned char *d, size_t len)
{
    if (len < 84)
        return fail_byte(s, KCBP_ERR_PARSE, len,
                         "binary STL ends inside its 84-byte header (%zu bytes; an ASCII STL starts with \"solid\")",
                         len);
    uint64_t n = (uint64_t)d[80] | (uint64_t)d[81] << 8 | (uint64_t)d[82] << 16 | (uint64_t)d[83] << 24;
    if (84 + 50 * n != (uint64_t)len)
        return fail_byte(s, KCBP_ERR_PARSE, 80,
                         "binary STL announces %" PRIu64 " triangles, %" PRIu64 " bytes, but the file has %zu bytes",
                         n, 84 + 50 * n, len);
    if (n == 0)
        return fail_byte(s, KCBP_ERR_PARSE, 80, "no faces (binary STL of 0 triangles)");
    if (n > KCBP_MESH_MAX_ELEMENTS)
        return fail_byte(s, KCBP_ERR_LIMIT, 80, "more than %u triangles", KCBP_MESH_MAX_ELEMENTS);
    /* A closed triangle mesh has about half as many vertices as triangles. */
    kcbp_weld_reserve(&s->w, (size_t)n / 2 + 3);
    if (!kcbp_grow(&s->t, &s->cap_t, (size_t)n, sizeof *s->t, 1024))
        return fail_byte(s, KCBP_ERR_NOMEM, 80, "out of memory for %" PRIu64 " triangles", n);
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *f = d + 84 + 50 * i;
        uint32_t v[3];
        for (int k = 0; k < 3; k++) {
            double c[3];
            for (int j = 0; j < 3; j++) {
                size_t off = (size_t)(f - d) + 12 + 12 * (size_t)k + 4 * (size_t)j;
                c[j] = rd_float(d + off);
                kcbp_status cs = kcbp_coord_check(c[j]);
                if (cs == KCBP_ERR_PARSE)
                    return fail_byte(s, cs, off, "vertex coordinate %g of triangle %" PRIu64 " is not a finite number",
                                     c[j], i);
                if (cs != KCBP_OK)
                    return fail_byte(s, cs, off, "vertex coordinate %g is beyond the limit of %g", c[j],
                                     KCBP_COORD_MAX);
            }
            kcbp_status st = kcbp_weld(&s->w, kcbp_v3(c[0], c[1], c[2]), &v[k]);
            if (st != KCBP_OK)
                return fail_byte(s, st, (size_t)(f - d), "%s", limit_text(st));
        }
        kcbp_status st = add_tri(s, v);
        if (st != KCBP_OK)
            return fail_byte(s, st, (size_t)(f - d), "%s", limit_text(st));
    }
    return KCBP_OK;
}


static bool is_kw(const char *w, size_t n, const char *kw)
{
    return n == strlen(kw) && !strncasecmp(w, kw, n);
}

enum { OUTSIDE, IN_SOLID, IN_FACET, IN_LOOP, END_LOOP, END_FACET };

static kcbp_status parse_ascii(stl *s, const char *d, size_t len)
{
    const char *end = d + len, *nul = memchr(d, '\0', len);
    size_t line = 0;
    if (nul) {
        line = 1;
        for (const char *p = d; (p = memchr(p, '\n', (size_t)(nul - p))) != NULL; p++)
            line++;
        return fail_line(s, KCBP_ERR_PARSE, line,
                         "binary file (NUL byte at offset %zu), and not a binary STL: a binary STL of %zu bytes "
                         "would need 84 + 50 x count bytes",
                         (size_t)(nul - d), len);
    }
    kcbp_numparse np = {0};
    int state = OUTSIDE, nvert = 0;
    uint32_t v[3];
    kcbp_status st = KCBP_OK;
    char q[48];
    for (const char *p = d; p < end && st == KCBP_OK;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        line++;
        const char *w;
        size_t n;
        const char *c = p;
        p = nl ? nl + 1 : end;
        if (!kcbp_next_word(&c, e, &w, &n))
            continue;
        if (is_kw(w, n, "solid")) {
            if (state != OUTSIDE)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'solid' inside a solid (missing 'endsolid'?)");
            state = IN_SOLID;
        } else if (is_kw(w, n, "endsolid")) {
            if (state != IN_SOLID)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'endsolid' %s", state == OUTSIDE ? "without 'solid'"
                                                                                          : "inside a facet");
            state = OUTSIDE;
        } else if (is_kw(w, n, "facet")) {
            if (state != IN_SOLID)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'facet' %s",
                               state == OUTSIDE ? "outside a solid" : "inside a facet (missing 'endfacet'?)");
            state = IN_FACET;
        } else if (is_kw(w, n, "outer")) {
            if (state != IN_FACET)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'outer loop' outside a facet or after its loop");
            state = IN_LOOP;
            nvert = 0;
        } else if (is_kw(w, n, "vertex")) {
            if (state != IN_LOOP)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'vertex' outside an 'outer loop'");
            else if (nvert == 3)
                st = fail_line(s, KCBP_ERR_PARSE, line, "more than 3 vertices in a facet");
            double x[3];
            for (int k = 0; k < 3 && st == KCBP_OK; k++) {
                if (!kcbp_next_word(&c, e, &w, &n)) {
                    st = fail_line(s, KCBP_ERR_PARSE, line, "vertex has %d coordinate%s, needs 3", k,
                                   k == 1 ? "" : "s");
                    break;
                }
                const char *stop;
                kcbp_num_result r = kcbp_parse_double(&np, w, w + n, &stop, &x[k]);
                if (r != KCBP_NUM_OK || stop != w + n) {
                    snprintf(q, sizeof q, "%.*s", (int)(n > 40 ? 40 : n), w);
                    for (char *y = q; *y; y++)
                        if ((unsigned char)*y < 0x20 || (unsigned char)*y >= 0x7f)
                            *y = '?';
                }
                if (r == KCBP_NUM_NONFINITE)
                    st = fail_line(s, KCBP_ERR_PARSE, line, "vertex coordinate '%s' is not a finite number", q);
                else if (r != KCBP_NUM_OK || stop != w + n)
                    st = fail_line(s, KCBP_ERR_PARSE, line, "malformed number '%s' in a vertex", q);
                else if (kcbp_coord_check(x[k]) != KCBP_OK)
                    st = fail_line(s, KCBP_ERR_LIMIT, line, "vertex coordinate %g is beyond the limit of %g", x[k],
                                   KCBP_COORD_MAX);
            }
            if (st == KCBP_OK && kcbp_next_word(&c, e, &w, &n))
                st = fail_line(s, KCBP_ERR_PARSE, line, "more than 3 numbers in a vertex");
            if (st == KCBP_OK) {
                kcbp_status ws = kcbp_weld(&s->w, kcbp_v3(x[0], x[1], x[2]), &v[nvert]);
                if (ws != KCBP_OK)
                    st = fail_line(s, ws, line, "%s", limit_text(ws));
                nvert++;
            }
        } else if (is_kw(w, n, "endloop")) {
            if (state != IN_LOOP)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'endloop' without 'outer loop'");
            else if (nvert != 3)
                st = fail_line(s, KCBP_ERR_PARSE, line, "facet has %d vertices, needs 3", nvert);
            else {
                kcbp_status as = add_tri(s, v);
                if (as != KCBP_OK)
                    st = fail_line(s, as, line, "%s", limit_text(as));
            }
            state = END_LOOP;
        } else if (is_kw(w, n, "endfacet")) {
            if (state != END_LOOP)
                st = fail_line(s, KCBP_ERR_PARSE, line, "'endfacet' without a complete 'outer loop'");
            state = IN_SOLID;
        } else {
            snprintf(q, sizeof q, "%.*s", (int)(n > 40 ? 40 : n), w);
            for (char *x = q; *x; x++)
                if ((unsigned char)*x < 0x20 || (unsigned char)*x >= 0x7f)
                    *x = '?';
            st = fail_line(s, KCBP_ERR_PARSE, line, "unknown ASCII STL keyword '%s'", q);
        }
    }
    kcbp_numparse_done(&np);
    if (st == KCBP_OK && state != OUTSIDE && state != IN_SOLID)
        st = fail_line(s, KCBP_ERR_PARSE, line, "file ends inside a facet");
    if (st == KCBP_OK && s->nt == 0)
        st = fail_line(s, KCBP_ERR_PARSE, line, "no faces (ASCII STL without facets)");
    return st;
}

kcbp_status kcbp_stl_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    stl s = {.name = name, .err = err};
    if (len == 0)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: empty file", name);
    /* ASCII when it starts with "solid" and is text; a binary STL with
     * "solid" in its header has the exact binary size or a NUL. */
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    bool solid = len - i >= 5 && !strncasecmp(data + i, "solid", 5);
    bool binsize = false;
    if (len >= 84) {
        const unsigned char *u = (const unsigned char *)data;
        uint64_t n = (uint64_t)u[80] | (uint64_t)u[81] << 8 | (uint64_t)u[82] << 16 | (uint64_t)u[83] << 24;
        binsize = 84 + 50 * n == (uint64_t)len;
    }
    bool ascii = solid && (!binsize || !memchr(data, '\0', len));
    if (ascii && binsize) { /* all text and the binary size: text wins if it has a facet */
        ascii = false;
        for (size_t k = 0; k < len; k++)
            if ((unsigned char)data[k] < 0x20 && data[k] != '\n' && data[k] != '\r' && data[k] != '\t')
                goto decided;
        ascii = true;
    }
decided:;
    kcbp_status st = ascii ? parse_ascii(&s, data, len) : parse_binary(&s, (const unsigned char *)data, len);
    return finish(&s, mesh, st);
}
