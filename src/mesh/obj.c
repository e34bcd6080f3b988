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
#include "mesh_read.h"
#include "base/numparse.h"
#include "base/util.h"
#include "base/text_scan.h"

/* Files larger than this are refused rather than read into memory. */
#define OBJ_MAX_FILE_BYTES ((size_t)1 << 31)
/* Non-convex polygons with more vertices than this are fanned, not ear
 * clipped: ear clipping is quadratic (cubic at worst) in the vertex count. */
#define OBJ_EARCLIP_MAX_VERTICES 1024u

typedef struct {
    const char *name;
    size_t line;
    kcbp_error *err;
    kcbp_numparse np;
    kcbp_vec3 *v;
    size_t nv, cap_v;
    kcbp_tri *t;
    size_t nt, cap_t;
    uint32_t *faces; /* per triangle: its face */
    size_t cap_faces;
    size_t nf;       /* faces so far */
    uint32_t *poly; /* vertex indices of the face being read */
    size_t cap_poly;
    double *uv; /* the face projected into its plane, then ear-clipping links */
    size_t cap_uv;
    size_t *link; /* prev and next links for ear clipping */
    size_t cap_link;
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

static kcbp_status add_triangle(parser *ps, uint32_t a, uint32_t b, uint32_t c)
{
    /* Room was reserved by the caller. */
    kcbp_tri *t = &ps->t[ps->nt++];
    t->v[0] = a;
    t->v[1] = b;
    t->v[2] = c;
    return KCBP_OK;
}

static void fan(parser *ps, const uint32_t *poly, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++)
        add_triangle(ps, poly[0], poly[i], poly[i + 1]);
}

/* Projects the face into the plane through its first vertex orthogonal to
 * its Newell normal, with axes (u, w) such that u x w is the normal, so the
 * projected polygon is counter-clockwise. Returns 0 for a zero normal
 * (collinear or otherwise degenerate polygon). */
static int project(parser *ps, const uint32_t *poly, size_t n)
{
    kcbp_vec3 o = ps->v[poly[0]], nrm = kcbp_v3(0, 0, 0);
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 a = kcbp_v3_sub(ps->v[poly[i]], o), b = kcbp_v3_sub(ps->v[poly[(i + 1) % n]], o);
        nrm.x += (a.y - b.y) * (a.z + b.z);
        nrm.y += (a.z - b.z) * (a.x + b.x);
        nrm.z += (a.x - b.x) * (a.y + b.y);
    }
    double len = kcbp_v3_len(nrm);
    if (!(len > 0) || !isfinite(len))
        return 0;
    nrm = kcbp_v3_scale(nrm, 1.0 / len);
    kcbp_vec3 ax = kcbp_v3_abs(nrm);
    kcbp_vec3 least = ax.x <= ax.y && ax.x <= ax.z ? kcbp_v3(1, 0, 0)
                      : ax.y <= ax.z               ? kcbp_v3(0, 1, 0)
                                                   : kcbp_v3(0, 0, 1);
    kcbp_vec3 u = kcbp_v3_cross(least, nrm);
    u = kcbp_v3_scale(u, 1.0 / kcbp_v3_len(u));
    kcbp_vec3 w = kcbp_v3_cross(nrm, u);
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 d = kcbp_v3_sub(ps->v[poly[i]], o);
        ps->uv[2 * i] = kcbp_v3_dot(d, u);
        ps->uv[2 * i + 1] = kcbp_v3_dot(d, w);
    }
    return 1;
}

static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Counter-clockwise convex (collinear vertices allowed): every turn is left
 * up to rounding, and the edge directions go round once (each coordinate of
 * the edge vectors changes sign at most twice, which rejects stars such as
 * the pentagram whose turns are all left but which wind twice). */
static int is_convex(const double *uv, size_t n)
{
    int first[2] = {0, 0}, last[2] = {0, 0}, flips[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const double *a = uv + 2 * i, *b = uv + 2 * ((i + 1) % n), *c = uv + 2 * ((i + 2) % n);
        double e1[2] = {b[0] - a[0], b[1] - a[1]}, e2[2] = {c[0] - b[0], c[1] - b[1]};
        double cross = e1[0] * e2[1] - e1[1] * e2[0];
        double tol = 1e-12 * sqrt((e1[0] * e1[0] + e1[1] * e1[1]) * (e2[0] * e2[0] + e2[1] * e2[1]));
        if (cross < -tol)
            return 0;
        for (int k = 0; k < 2; k++) {
            int s = (e1[k] > 0) - (e1[k] < 0);
            if (s == 0)
                continue;
            if (!first[k])
                first[k] = s;
            else if (s != last[k])
                flips[k]++;
            last[k] = s;
        }
    }
    for (int k = 0; k < 2; k++)
        if (first[k] && last[k] != first[k])
            flips[k]++;
    return flips[0] <= 2 && flips[1] <= 2;
}

static int same_point(const double *a, const double *b) { return a[0] == b[0] && a[1] == b[1]; }

/* Ear clipping of the projected face (ps->uv, counter-clockwise). Ears are
 * searched starting at vertex 1 and, after each cut, at the vertex after the
 * cut one, so a convex polygon comes out as the fan from vertex 0. An ear is a
 * strictly left turn whose closed triangle holds no other remaining vertex
 * (vertices at the same position as a corner do not count). When a whole
 * round finds no ear, one zero-area ear (a collinear vertex or spike) may be
 * cut instead. Appends the triangles and returns 1, or appends nothing and
 * returns 0 when it gets stuck. */
static int ear_clip(parser *ps, const uint32_t *poly, size_t n)
{
    const double *uv = ps->uv;
    size_t *prev = ps->link, *next = ps->link + n;
    for (size_t i = 0; i < n; i++) {
        prev[i] = (i + n - 1) % n;
        next[i] = (i + 1) % n;
    }
    size_t start_nt = ps->nt, remaining = n, i = 1, tried = 0;
    int allow_flat = 0;
    while (remaining > 3) {
        size_t a = prev[i], c = next[i];
        const double *pa = uv + 2 * a, *pi = uv + 2 * i, *pc = uv + 2 * c;
        double o = orient(pa, pi, pc);
        double scale = fmax(fmax(fabs(pi[0] - pa[0]), fabs(pi[1] - pa[1])),
                            fmax(fabs(pc[0] - pi[0]), fabs(pc[1] - pi[1])));
        double tol = 1e-12 * scale * scale;
        int ear;
        if (allow_flat) {
            ear = fabs(o) <= tol;
        } else {
            ear = o > tol;
            for (size_t j = next[c]; ear && j != a; j = next[j]) {
                const double *p = uv + 2 * j;
                if (same_point(p, pa) || same_point(p, pi) || same_point(p, pc))
                    continue;
                if (orient(pa, pi, p) >= 0 && orient(pi, pc, p) >= 0 && orient(pc, pa, p) >= 0)
                    ear = 0;
            }
        }
        if (ear) {
            add_triangle(ps, poly[a], poly[i], poly[c]);
            next[a] = c;
            prev[c] = a;
            remaining--;
            i = c;
            tried = 0;
            allow_flat = 0;
        } else {
            i = next[i];
            if (++tried >= remaining) {
                if (allow_flat) {
                    ps->nt = start_nt;
                    return 0;
                }
                allow_flat = 1;
                tried = 0;
            }
        }
    }
    add_triangle(ps, poly[prev[i]], poly[i], poly[next[i]]);
    return 1;
}

static kcbp_status triangulate_face(parser *ps, size_t n);

/* Triangulates the face and records which face its triangles came from. */
static kcbp_status triangulate(parser *ps, size_t n)
{
    size_t start = ps->nt;
    kcbp_status st = triangulate_face(ps, n);
    if (st != KCBP_OK)
        return st;
    if (!kcbp_grow(&ps->faces, &ps->cap_faces, ps->nt, sizeof *ps->faces, 256))
        return fail(ps, KCBP_ERR_NOMEM, "out of memory for %zu triangles", ps->nt);
    for (size_t i = start; i < ps->nt; i++)
        ps->faces[i] = (uint32_t)ps->nf;
    ps->nf++;
    return KCBP_OK;
}

static kcbp_status triangulate_face(parser *ps, size_t n)
{
    const uint32_t *poly = ps->poly;
    if (n < 3)
        return fail(ps, KCBP_ERR_PARSE, "face has %zu vertex index%s, needs at least 3", n, n == 1 ? "" : "es");
    if (n - 2 > KCBP_MESH_MAX_ELEMENTS - ps->nt)
        return fail(ps, KCBP_ERR_LIMIT, "more than %u triangles", KCBP_MESH_MAX_ELEMENTS);
    if (!kcbp_grow(&ps->t, &ps->cap_t, ps->nt + n - 2, sizeof *ps->t, 256))
        return fail(ps, KCBP_ERR_NOMEM, "out of memory for %zu triangles", ps->nt + n - 2);
    if (n == 3)
        return add_triangle(ps, poly[0], poly[1], poly[2]);
    if (!kcbp_grow(&ps->uv, &ps->cap_uv, 2 * n, sizeof *ps->uv, 256) ||
        !kcbp_grow(&ps->link, &ps->cap_link, 2 * n, sizeof *ps->link, 256))
        return fail(ps, KCBP_ERR_NOMEM, "out of memory for a face of %zu vertices", n);
    if (project(ps, poly, n) && !is_convex(ps->uv, n) && n <= OBJ_EARCLIP_MAX_VERTICES && ear_clip(ps, poly, n))
        return KCBP_OK;
    fan(ps, poly, n);
    return KCBP_OK;
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
    return triangulate(ps, n);
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

kcbp_status kcbp_obj_parse(const char *name, const char *text, size_t len, kcbp_mesh *mesh, kcbp_error *err)
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
    if (st == KCBP_OK && ps.nt == 0)
        st = fail(&ps, KCBP_ERR_PARSE, "no faces (%zu vertices)", ps.nv);
    free(ps.poly);
    free(ps.uv);
    free(ps.link);
    kcbp_numparse_done(&ps.np);
    if (st != KCBP_OK) {
        free(ps.v);
        free(ps.t);
        free(ps.faces);
        return st;
    }
    st = kcbp_mesh_adopt(mesh, ps.v, ps.nv, ps.t, ps.nt, err);
    if (st != KCBP_OK) {
        kcbp_error_prefix(err, ps.name);
        free(ps.faces);
        return st;
    }
    if (ps.nf != ps.nt)
        mesh->faces = ps.faces; /* some polygon was cut */
    else
        free(ps.faces);
    return st;
}

kcbp_status kcbp_obj_load(const char *path, kcbp_mesh *mesh, kcbp_error *err)
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
        st = kcbp_obj_parse(path, buf, len, mesh, err);
    free(buf);
    return st;
}

kcbp_status kcbp_obj_triangulate(kcbp_tri_builder *b, const char *name, size_t line, const kcbp_vec3 *v,
                                 const uint32_t *poly, size_t n, kcbp_error *err)
{
    /* A parser holding only what triangulate() uses; the arrays are the
     * builder's and go back to it whatever happens. */
    parser ps = {.name = name, .line = line, .err = err, .v = (kcbp_vec3 *)(uintptr_t)v, .t = b->t, .nt = b->nt,
                 .cap_t = b->cap_t, .faces = b->faces, .cap_faces = b->cap_faces, .nf = b->nf, .poly = (uint32_t *)(uintptr_t)poly, .cap_poly = n, .uv = b->uv,
                 .cap_uv = b->cap_uv, .link = b->link, .cap_link = b->cap_link};
    kcbp_status st = triangulate(&ps, n);
    b->t = ps.t;
    b->nt = ps.nt;
    b->cap_t = ps.cap_t;
    b->faces = ps.faces;
    b->cap_faces = ps.cap_faces;
    b->nf = ps.nf;
    b->uv = ps.uv;
    b->cap_uv = ps.cap_uv;
    b->link = ps.link;
    b->cap_link = ps.cap_link;
    return st;
}

void kcbp_tri_builder_free(kcbp_tri_builder *b)
{
    free(b->t);
    free(b->faces);
    free(b->uv);
    free(b->link);
    memset(b, 0, sizeof *b);
}

kcbp_status kcbp_tri_builder_adopt(kcbp_tri_builder *b, kcbp_mesh *mesh, kcbp_vec3 *v, size_t nv, const char *name,
                                   kcbp_error *err)
{
    kcbp_status st = kcbp_mesh_adopt(mesh, v, nv, b->t, b->nt, err);
    b->t = NULL;
    if (st != KCBP_OK)
        kcbp_error_prefix(err, name);
    else if (b->nf != b->nt) {
        mesh->faces = b->faces;
        b->faces = NULL;
    }
    kcbp_tri_builder_free(b);
    return st;
}
