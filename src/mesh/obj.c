/* Wavefront OBJ reader. The rules it follows are documented in obj.h.
 *
 * The whole text is scanned in place, one line at a time (memchr for the
 * newline), with pointer scanning for keywords, numbers and indices; vertex
 * and triangle arrays grow geometrically and are handed to kcbp_mesh_adopt. */
#include <kcbp/obj.h>

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "mesh_internal.h"
#include "read.h"
#include "base/numparse.h"
#include "base/util.h"
#include "base/text_scan.h"

/* Files larger than this are refused rather than read into memory. */
#define OBJ_MAX_FILE_BYTES ((size_t)1 << 31)

typedef struct {
    const char *name;
    size_t line;
    kcbp_error *err;
    kcbp_numparse np;
    kcbp_vec3 *v;
    size_t nv, cap_v;
    kcbp_tri_builder tb; /* the triangles, cut from the faces */
    uint32_t *poly;      /* vertex indices of the face being read */
    size_t cap_poly;
    char *join; /* a line continued with '\' joined to the next ones */
    size_t cap_join;
} parser;


static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && kcbp_is_blank(*p))
        p++;
    return p;
}

/* End of a token: the next white space, comment or end of line. */
static const char *token_end(const char *p, const char *e)
{
    while (p < e && !kcbp_is_blank(*p) && *p != '#')
        p++;
    return p;
}

static kcbp_status fail(parser *ps, kcbp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static kcbp_status fail(parser *ps, kcbp_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(ps->err, code, ps->name, false, ps->line, fmt, ap);
    va_end(ap);
    return st;
}

/* A printable copy of a token for messages: at most 40 bytes, control and
 * non-ASCII bytes shown as '?'. */
static const char *quote(char *buf, size_t size, const char *p, const char *e)
{
    size_t n = 0;
    for (; p < e && n + 4 < size && n < 40; p++)
        buf[n++] = ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f) ? *p : '?';
    if (p < e)
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    buf[n] = '\0';
    return buf;
}


static kcbp_status parse_vertex(parser *ps, const char *p, const char *e)
{
    /* x y z, then at most four more numbers (w, or a vertex colour r g b [a])
     * which must be numbers but are ignored. */
    double c[7];
    int n = 0;
    char q[48];
    for (p = skip_ws(p, e); p < e && *p != '#'; p = skip_ws(p, e)) {
        const char *stop = p;
        if (n == 7)
            return fail(ps, KCBP_ERR_PARSE, "too many numbers in a vertex at '%s' (at most x y z and 4 more)",
                        quote(q, sizeof q, p, token_end(p, e)));
        kcbp_num_result r = kcbp_parse_double(&ps->np, p, e, &stop, &c[n]);
        if (r == KCBP_NUM_OK && stop < e && !kcbp_is_blank(*stop) && *stop != '#')
            r = KCBP_NUM_MALFORMED;
        if (r == KCBP_NUM_OK) {
            n++;
            p = stop;
            continue;
        }
        const char *te = token_end(p, e);
        if (r == KCBP_NUM_NONFINITE)
            return fail(ps, KCBP_ERR_PARSE, "vertex coordinate '%s' is not a finite number",
                        quote(q, sizeof q, p, te));
        if (r != KCBP_NUM_OK)
            return fail(ps, KCBP_ERR_PARSE, "malformed number '%s' in a vertex", quote(q, sizeof q, p, te));
    }
    if (n < 3)
        return fail(ps, KCBP_ERR_PARSE, "vertex has %d coordinate%s, needs 3", n, n == 1 ? "" : "s");
    for (int k = 0; k < 3; k++)
        if (fabs(c[k]) > KCBP_COORD_MAX)
            return fail(ps, KCBP_ERR_LIMIT, "vertex coordinate %g is beyond the limit of %g", c[k], KCBP_COORD_MAX);
    if (ps->nv >= KCBP_MESH_MAX_ELEMENTS)
        return fail(ps, KCBP_ERR_LIMIT, "more than %u vertices", KCBP_MESH_MAX_ELEMENTS);
    if (!kcbp_grow(&ps->v, &ps->cap_v, ps->nv + 1, sizeof *ps->v, 256))
        return fail(ps, KCBP_ERR_NOMEM, "out of memory for %zu vertices", ps->nv + 1);
    ps->v[ps->nv++] = kcbp_v3(c[0], c[1], c[2]);
    return KCBP_OK;
}

/* [+-]digits; saturates far above any valid index. Returns 0 if no digits. */
static int read_int(const char **pp, const char *e, int64_t *out)
{
    const char *p = *pp;
    int neg = 0;
    if (p < e && (*p == '+' || *p == '-'))
        neg = (*p++ == '-');
    if (p >= e || *p < '0' || *p > '9')
        return 0;
    int64_t x = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++)
        if (x < INT64_C(1000000000000))
            x = x * 10 + (*p - '0');
    *out = neg ? -x : x;
    *pp = p;
    return 1;
}

static kcbp_status parse_face(parser *ps, const char *p, const char *e)
{
    size_t n = 0;
    char q[48];
    for (p = skip_ws(p, e); p < e && *p != '#'; p = skip_ws(p, e)) {
        const char *tok = p;
        int64_t vi, other;
        int ok = read_int(&p, e, &vi);
        /* The index as written, for messages (vi saturates far above any
         * valid index). */
        int vi_len = (int)(p - tok > 40 ? 40 : p - tok);
        if (ok && p < e && *p == '/') { /* i/j, i//k, i/j/k */
            p++;
            if (p < e && *p == '/')
                ok = (p++, read_int(&p, e, &other));
            else if ((ok = read_int(&p, e, &other)) && p < e && *p == '/')
                ok = (p++, read_int(&p, e, &other));
        }
        if (!ok || (p < e && !kcbp_is_blank(*p) && *p != '#')) {
            return fail(ps, KCBP_ERR_PARSE, "malformed face vertex '%s' (expected i, i/j, i//k or i/j/k)",
                        quote(q, sizeof q, tok, token_end(tok, e)));
        }
        if (vi == 0)
            return fail(ps, KCBP_ERR_PARSE, "vertex index 0 in a face (indices start at 1)");
        if (vi > 0 && (uint64_t)vi > ps->nv)
            return fail(ps, KCBP_ERR_PARSE, "vertex index %.*s out of range (%zu vertices so far)", vi_len, tok,
                        ps->nv);
        if (vi < 0 && (uint64_t)-vi > ps->nv)
            return fail(ps, KCBP_ERR_PARSE, "relative vertex index %.*s reaches before the first vertex (%zu so far)",
                        vi_len, tok, ps->nv);
        if (!kcbp_grow(&ps->poly, &ps->cap_poly, n + 1, sizeof *ps->poly, 256))
            return fail(ps, KCBP_ERR_NOMEM, "out of memory for a face of %zu vertices", n + 1);
        ps->poly[n++] = (uint32_t)(vi > 0 ? vi - 1 : (int64_t)ps->nv + vi);
    }
    return kcbp_tri_builder_face(&ps->tb, ps->name, ps->line, ps->v, ps->poly, n, ps->err);
}

/* The line [p, eol) ends with a backslash (before an optional CR): it goes
 * on on the next line. */
static bool continued(const char *p, const char *eol)
{
    if (eol > p && eol[-1] == '\r')
        eol--;
    return eol > p && eol[-1] == '\\';
}

/* Joins the line at p and the lines its trailing backslashes continue into
 * ps->join, each backslash (and CR) replaced by a space; *eol is the joined
 * line's end, *next where the line after it starts, *more the number of
 * lines joined to the first. */
static kcbp_status join_lines(parser *ps, const char *p, const char *end, const char **eol, const char **next,
                              size_t *more)
{
    size_t n = 0;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        bool cont = continued(p, e);
        if (cont)
            e -= 1 + (e[-1] == '\r'); /* drop the backslash (and the CR after it) */
        size_t len = (size_t)(e - p);
        if (!kcbp_grow(&ps->join, &ps->cap_join, n + len + 2, 1, 256))
            return fail(ps, KCBP_ERR_NOMEM, "out of memory for a line of %zu bytes", n + len + 2);
        memcpy(ps->join + n, p, len);
        n += len;
        p = nl ? nl + 1 : end;
        if (!cont || p >= end)
            break;
        ps->join[n++] = ' ';
        (*more)++;
    }
    *eol = ps->join + n;
    *next = p;
    return KCBP_OK;
}

kcbp_status kcbp_obj_parse_into(const char *name, const char *text, size_t len, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    parser ps = {.name = name ? name : "(obj)", .err = err};
    if (len == 0)
        return fail(&ps, KCBP_ERR_PARSE, "empty file");
    const char *end = text + len;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        ps.line = 1;
        for (const char *p = text; (p = memchr(p, '\n', (size_t)(nul - p))) != NULL; p++)
            ps.line++;
        return fail(&ps, KCBP_ERR_PARSE, "binary file (NUL byte at offset %zu), not OBJ text", (size_t)(nul - text));
    }
    kcbp_status st = KCBP_OK;
    for (const char *p = text; p < end && st == KCBP_OK;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *next = nl ? nl + 1 : end;
        ps.line++;
        size_t more = 0; /* lines joined to this one by a '\' */
        if (continued(p, eol)) {
            st = join_lines(&ps, p, end, &eol, &next, &more);
            if (st != KCBP_OK)
                break;
            p = ps.join;
        }
        const char *k = skip_ws(p, eol);
        if (k < eol && (*k == 'v' || *k == 'f') && (k + 1 == eol || kcbp_is_blank(k[1]) || k[1] == '#'))
            st = *k == 'v' ? parse_vertex(&ps, k + 1, eol) : parse_face(&ps, k + 1, eol);
        /* Anything else is a comment, a blank line or a statement that does
         * not define geometry: skipped. */
        ps.line += more;
        p = next;
    }
    free(ps.join);
    if (st == KCBP_OK && ps.tb.nt == 0)
        st = fail(&ps, KCBP_ERR_PARSE, "no faces (%zu vertices)", ps.nv);
    free(ps.poly);
    kcbp_numparse_done(&ps.np);
    if (st != KCBP_OK) {
        free(ps.v);
        kcbp_tri_builder_free(&ps.tb);
        return st;
    }
    return kcbp_tri_builder_adopt(&ps.tb, mesh, ps.v, ps.nv, ps.name, err);
}

kcbp_status kcbp_obj_load_into(const char *path, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    kcbp_input in;
    kcbp_status st = kcbp_input_open(&in, path, "an OBJ file", err);
    if (st != KCBP_OK)
        return st;
    char *buf;
    size_t len;
    st = kcbp_input_read_all(&in, OBJ_MAX_FILE_BYTES, "2147483648 bytes", NULL, NULL, &buf, &len, err);
    kcbp_input_close(&in);
    if (st == KCBP_OK)
        st = kcbp_obj_parse_into(path, buf, len, mesh, err);
    free(buf);
    return st;
}

kcbp_status kcbp_obj_load(const char *path, kcbp_mesh **out, kcbp_error *err)
{
    kcbp_mesh m;
    *out = NULL;
    kcbp_status st = kcbp_obj_load_into(path, &m, err);
    return st == KCBP_OK ? kcbp_mesh_to_handle(&m, out, err) : st;
}

kcbp_status kcbp_obj_parse(const char *name, const char *text, size_t len, kcbp_mesh **out, kcbp_error *err)
{
    kcbp_mesh m;
    *out = NULL;
    kcbp_status st = kcbp_obj_parse_into(name, text, len, &m, err);
    return st == KCBP_OK ? kcbp_mesh_to_handle(&m, out, err) : st;
}
