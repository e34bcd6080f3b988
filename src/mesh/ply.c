/* PLY reader (rules in kcbp/mesh_io.h): the header, then the body in ASCII
 * (one element per line) or binary of either byte order. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/mesh_io.h>

#include "read.h"
#include "base/numparse.h"
#include "base/util.h"
#include "base/text_scan.h"

#define PLY_MAX_ELEMENTS 64
#define PLY_MAX_PROPERTIES 256

typedef enum { T_NONE, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 } ptype;
static const unsigned type_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};

enum { R_NONE, R_X, R_Y, R_Z, R_INDICES };

typedef struct {
    ptype type;       /* of a scalar, or of a list's items */
    ptype count_type; /* T_NONE: a scalar */
    int role;
} prop;

typedef struct {
    char name[32];
    uint64_t count;
    size_t line;
    prop props[PLY_MAX_PROPERTIES];
    size_t nprops;
    int kind; /* 0 other, 1 vertex, 2 face */
} element;

typedef struct {
    const char *name;
    kcbp_error *err;
    kcbp_numparse np;
    size_t line; /* text: the line; 0 in binary data */
    size_t byte; /* binary: the offset of the value in error */
    bool binary;
} ply;

static kcbp_status fail(ply *p, kcbp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static kcbp_status fail(ply *p, kcbp_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kcbp_status st = kcbp_read_failv(p->err, code, p->name, p->binary, p->binary ? p->byte : p->line, fmt, ap);
    va_end(ap);
    return st;
}


static bool eq(const char *w, size_t n, const char *s) { return n == strlen(s) && !memcmp(w, s, n); }

static const char *quote(char *buf, const char *w, size_t n)
{
    size_t k = 0;
    for (; k < n && k < 40; k++)
        buf[k] = ((unsigned char)w[k] >= 0x20 && (unsigned char)w[k] < 0x7f) ? w[k] : '?';
    buf[k] = '\0';
    return buf;
}

static ptype parse_type(const char *w, size_t n)
{
    static const struct {
        const char *a, *b;
        ptype t;
    } names[] = {{"char", "int8", T_I8},     {"uchar", "uint8", T_U8},    {"short", "int16", T_I16},
                 {"ushort", "uint16", T_U16}, {"int", "int32", T_I32},     {"uint", "uint32", T_U32},
                 {"float", "float32", T_F32}, {"double", "float64", T_F64}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (eq(w, n, names[i].a) || eq(w, n, names[i].b))
            return names[i].t;
    return T_NONE;
}

static bool is_int(ptype t) { return t != T_F32 && t != T_F64; }

/* Range check of an integer value of type t held as a double. */
static bool int_fits(ptype t, double x)
{
    if (x != floor(x))
        return false;
    switch (t) {
    case T_I8: return x >= -128 && x <= 127;
    case T_U8: return x >= 0 && x <= 255;
    case T_I16: return x >= -32768 && x <= 32767;
    case T_U16: return x >= 0 && x <= 65535;
    case T_I32: return x >= -2147483648.0 && x <= 2147483647.0;
    case T_U32: return x >= 0 && x <= 4294967295.0;
    default: return true;
    }
}

static double read_bin(const unsigned char *d, ptype t, bool big)
{
    unsigned char b[8];
    unsigned n = type_size[t];
    for (unsigned i = 0; i < n; i++)
        b[i] = big ? d[n - 1 - i] : d[i];
    uint64_t u = 0;
    for (unsigned i = 0; i < n; i++)
        u |= (uint64_t)b[i] << (8 * i);
    switch (t) {
    case T_I8: return (double)(int8_t)u;
    case T_U8: return (double)(uint8_t)u;
    case T_I16: return (double)(int16_t)u;
    case T_U16: return (double)(uint16_t)u;
    case T_I32: return (double)(int32_t)(uint32_t)u;
    case T_U32: return (double)(uint32_t)u;
    case T_F32: {
        uint32_t u32 = (uint32_t)u;
        float f;
        memcpy(&f, &u32, 4);
        return f;
    }
    case T_F64: {
        double x;
        memcpy(&x, &u, 8);
        return x;
    }
    default: return 0;
    }
}

typedef struct {
    const char *d, *end;
    const char *c, *e; /* ASCII: the rest of the current line */
    const char *next;  /* ASCII: where the next line starts */
    size_t pos;        /* binary: offset */
    bool big;
} body;

/* What a value is, for messages (formatted only on an error). */
typedef struct {
    const char *element;
    uint64_t index;
    int what; /* 0 a property, 1 a coordinate, 2 a list count, 3 a list item */
    int axis;
    size_t item;
} vctx;

static const char *describe(const vctx *c, char *buf, size_t size)
{
    if (c->what == 1)
        snprintf(buf, size, "coordinate %c of vertex %" PRIu64, "xyz"[c->axis], c->index);
    else if (c->what == 2)
        snprintf(buf, size, "the list count of '%s' %" PRIu64, c->element, c->index);
    else if (c->what == 3)
        snprintf(buf, size, "item %zu of a list of '%s' %" PRIu64, c->item, c->element, c->index);
    else
        snprintf(buf, size, "a property of '%s' %" PRIu64, c->element, c->index);
    return buf;
}

/* Next value of type t: into *x. ctx names it for messages. */
static kcbp_status value(ply *p, body *b, ptype t, const vctx *ctx, double *x)
{
    char q[48], what[96];
    if (p->binary) {
        p->byte = b->pos;
        if ((size_t)(b->end - b->d) - b->pos < type_size[t])
            return fail(p, KCBP_ERR_PARSE, "file ends inside %s", describe(ctx, what, sizeof what));
        *x = read_bin((const unsigned char *)b->d + b->pos, t, b->big);
        b->pos += type_size[t];
    } else {
        const char *w;
        size_t n;
        if (!kcbp_next_word(&b->c, b->e, &w, &n))
            return fail(p, KCBP_ERR_PARSE, "line ends before %s", describe(ctx, what, sizeof what));
        const char *stop;
        kcbp_num_result r = kcbp_parse_double(&p->np, w, w + n, &stop, x);
        if (r == KCBP_NUM_NONFINITE && !is_int(t))
            return fail(p, KCBP_ERR_PARSE, "%s '%s' is not a finite number", describe(ctx, what, sizeof what),
                        quote(q, w, n));
        if (r != KCBP_NUM_OK || stop != w + n)
            return fail(p, KCBP_ERR_PARSE, "malformed number '%s' for %s", quote(q, w, n), describe(ctx, what, sizeof what));
        if (is_int(t) && !int_fits(t, *x))
            return fail(p, KCBP_ERR_PARSE, "'%s' for %s is not an integer of its type", quote(q, w, n),
                        describe(ctx, what, sizeof what));
    }
    if (!isfinite(*x))
        return fail(p, KCBP_ERR_PARSE, "%s %g is not a finite number", describe(ctx, what, sizeof what), *x);
    return KCBP_OK;
}

/* The next line of an ASCII body holding something. */
static bool next_line(ply *p, body *b)
{
    while (b->next < b->end) {
        const char *nl = memchr(b->next, '\n', (size_t)(b->end - b->next));
        const char *e = nl ? nl : b->end;
        const char *s = b->next;
        b->next = nl ? nl + 1 : b->end;
        p->line++;
        while (s < e && kcbp_is_blank(*s))
            s++;
        if (s < e) {
            b->e = e;
            b->c = s;
            return true;
        }
    }
    return false;
}

/* ---- the header ---------------------------------------------------------- */

/* What the header declares: the elements, the format, where the body starts. */
typedef struct {
    element *el; /* PLY_MAX_ELEMENTS of them */
    size_t nel;
    int format; /* -1 none yet, 0 ascii, 1 little endian, 2 big endian */
    const char *body_start;
} header;

/* "format ascii|binary_little_endian|binary_big_endian 1.0", the rest of
 * the line at l. */
static kcbp_status header_format(ply *p, header *h, const char *l, const char *e)
{
    const char *f, *ver, *w;
    size_t fn, vn, n;
    char q[48];
    if (h->format >= 0)
        return fail(p, KCBP_ERR_PARSE, "a second 'format' line");
    if (!kcbp_next_word(&l, e, &f, &fn) || !kcbp_next_word(&l, e, &ver, &vn) || !eq(ver, vn, "1.0") ||
        kcbp_next_word(&l, e, &w, &n))
        return fail(p, KCBP_ERR_PARSE, "malformed 'format' line (expected 'format ascii|binary_little_endian|"
                                       "binary_big_endian 1.0')");
    h->format = eq(f, fn, "ascii") ? 0 : eq(f, fn, "binary_little_endian") ? 1 : eq(f, fn, "binary_big_endian") ? 2 : -1;
    if (h->format < 0)
        return fail(p, KCBP_ERR_PARSE, "unknown PLY format '%s'", quote(q, f, fn));
    return KCBP_OK;
}

/* "element NAME COUNT". */
static kcbp_status header_element(ply *p, header *h, const char *l, const char *e)
{
    const char *en, *cn, *w;
    size_t enl, cnl, n;
    char q[48];
    if (h->nel == PLY_MAX_ELEMENTS)
        return fail(p, KCBP_ERR_LIMIT, "more than %d elements", PLY_MAX_ELEMENTS);
    if (!kcbp_next_word(&l, e, &en, &enl) || !kcbp_next_word(&l, e, &cn, &cnl) || kcbp_next_word(&l, e, &w, &n))
        return fail(p, KCBP_ERR_PARSE, "malformed 'element' line (expected 'element NAME COUNT')");
    element *x = &h->el[h->nel];
    uint64_t cnt = 0;
    for (size_t k = 0; k < cnl; k++) {
        if (cn[k] < '0' || cn[k] > '9')
            return fail(p, KCBP_ERR_PARSE, "malformed element count '%s'", quote(q, cn, cnl));
        if (cnt < UINT64_C(1) << 40)
            cnt = cnt * 10 + (uint64_t)(cn[k] - '0');
    }
    snprintf(x->name, sizeof x->name, "%s", quote(q, en, enl > 31 ? 31 : enl));
    x->count = cnt;
    x->line = p->line;
    x->kind = eq(en, enl, "vertex") ? 1 : eq(en, enl, "face") ? 2 : 0;
    if (x->kind && cnt > KCBP_MESH_MAX_ELEMENTS)
        return fail(p, KCBP_ERR_LIMIT, "more than %u %s", KCBP_MESH_MAX_ELEMENTS, x->kind == 1 ? "vertices" : "faces");
    for (size_t k = 0; k < h->nel; k++)
        if (x->kind && h->el[k].kind == x->kind)
            return fail(p, KCBP_ERR_PARSE, "a second '%s' element", x->name);
    h->nel++;
    return KCBP_OK;
}

/* "property TYPE NAME" or "property list COUNT_TYPE ITEM_TYPE NAME", of the
 * last element. */
static kcbp_status header_property(ply *p, header *h, const char *l, const char *e)
{
    const char *t1, *t2, *t3, *pn, *w;
    size_t n1, n2, n3, pnl, n;
    char q[48];
    if (h->nel == 0)
        return fail(p, KCBP_ERR_PARSE, "'property' before any 'element'");
    element *x = &h->el[h->nel - 1];
    if (x->nprops == PLY_MAX_PROPERTIES)
        return fail(p, KCBP_ERR_LIMIT, "more than %d properties in an element", PLY_MAX_PROPERTIES);
    prop *pr = &x->props[x->nprops];
    if (!kcbp_next_word(&l, e, &t1, &n1))
        return fail(p, KCBP_ERR_PARSE, "malformed 'property' line");
    if (eq(t1, n1, "list")) {
        if (!kcbp_next_word(&l, e, &t2, &n2) || !kcbp_next_word(&l, e, &t3, &n3) || !kcbp_next_word(&l, e, &pn, &pnl) ||
            kcbp_next_word(&l, e, &w, &n))
            return fail(p, KCBP_ERR_PARSE, "malformed 'property list' line (expected 'property list "
                                           "COUNT_TYPE ITEM_TYPE NAME')");
        pr->count_type = parse_type(t2, n2);
        pr->type = parse_type(t3, n3);
        if (pr->count_type == T_NONE || pr->type == T_NONE)
            return fail(p, KCBP_ERR_PARSE, "unknown property type '%s'",
                        pr->count_type == T_NONE ? quote(q, t2, n2) : quote(q, t3, n3));
        if (!is_int(pr->count_type))
            return fail(p, KCBP_ERR_PARSE, "list count type '%s' is not an integer type", quote(q, t2, n2));
        if (x->kind == 2 && (eq(pn, pnl, "vertex_indices") || eq(pn, pnl, "vertex_index"))) {
            if (!is_int(pr->type))
                return fail(p, KCBP_ERR_PARSE, "vertex indices of type '%s', not an integer type", quote(q, t3, n3));
            pr->role = R_INDICES;
        }
    } else {
        if (!kcbp_next_word(&l, e, &pn, &pnl) || kcbp_next_word(&l, e, &w, &n))
            return fail(p, KCBP_ERR_PARSE, "malformed 'property' line (expected 'property TYPE NAME')");
        pr->type = parse_type(t1, n1);
        if (pr->type == T_NONE)
            return fail(p, KCBP_ERR_PARSE, "unknown property type '%s'", quote(q, t1, n1));
        if (x->kind == 1)
            pr->role = eq(pn, pnl, "x") ? R_X : eq(pn, pnl, "y") ? R_Y : eq(pn, pnl, "z") ? R_Z : R_NONE;
    }
    for (size_t k = 0; pr->role && k < x->nprops; k++)
        if (x->props[k].role == pr->role)
            return fail(p, KCBP_ERR_PARSE, "a second '%s' property", quote(q, pn, pnl));
    x->nprops++;
    return KCBP_OK;
}

/* The elements the mesh needs: a vertex element with scalar x, y, z before
 * a face element with vertex indices. */
static kcbp_status header_check(ply *p, const header *h)
{
    int seen = 0;
    const element *fe = NULL, *ve = NULL;
    for (size_t k = 0; k < h->nel; k++) {
        if (h->el[k].kind == 1)
            ve = &h->el[k];
        if (h->el[k].kind == 2) {
            fe = &h->el[k];
            if (!ve) {
                p->line = h->el[k].line;
                return fail(p, KCBP_ERR_PARSE, "'face' element before the 'vertex' element (not supported)");
            }
        }
    }
    if (!ve || !fe || fe->count == 0)
        return fail(p, KCBP_ERR_PARSE, "no faces (the PLY header declares %s)",
                    !ve ? "no 'vertex' element" : !fe ? "no 'face' element" : "0 faces");
    for (size_t k = 0; k < ve->nprops; k++)
        seen |= ve->props[k].count_type == T_NONE && ve->props[k].role ? 1 << ve->props[k].role : 0;
    if (seen != (1 << R_X | 1 << R_Y | 1 << R_Z)) {
        p->line = ve->line;
        return fail(p, KCBP_ERR_PARSE, "the 'vertex' element needs scalar properties x, y and z");
    }
    seen = 0;
    for (size_t k = 0; k < fe->nprops; k++)
        seen |= fe->props[k].role == R_INDICES;
    if (!seen) {
        p->line = fe->line;
        return fail(p, KCBP_ERR_PARSE, "the 'face' element needs a list property 'vertex_indices'");
    }
    return KCBP_OK;
}

/* The header: text lines up to end_header, then the checks above. */
static kcbp_status read_header(ply *p, const char *data, size_t len, header *h)
{
    const char *c = data, *end = data + len;
    char q[48];
    kcbp_status st = KCBP_OK;
    while (c < end && st == KCBP_OK) {
        const char *nl = memchr(c, '\n', (size_t)(end - c));
        const char *e = nl ? nl : end, *l = c, *w;
        size_t n;
        c = nl ? nl + 1 : end;
        p->line++;
        if (memchr(l, '\0', (size_t)(e - l)))
            return fail(p, KCBP_ERR_PARSE, "NUL byte in the PLY header");
        if (!kcbp_next_word(&l, e, &w, &n)) {
            if (p->line == 1)
                return fail(p, KCBP_ERR_PARSE, "not a PLY file (the first line must be \"ply\")");
            continue;
        }
        if (p->line == 1) {
            if (!eq(w, n, "ply") || kcbp_next_word(&l, e, &w, &n))
                return fail(p, KCBP_ERR_PARSE, "not a PLY file (the first line must be \"ply\")");
        } else if (eq(w, n, "comment") || eq(w, n, "obj_info")) {
            continue;
        } else if (eq(w, n, "format")) {
            st = header_format(p, h, l, e);
        } else if (eq(w, n, "element")) {
            st = header_element(p, h, l, e);
        } else if (eq(w, n, "property")) {
            st = header_property(p, h, l, e);
        } else if (eq(w, n, "end_header")) {
            h->body_start = c;
            break;
        } else {
            return fail(p, KCBP_ERR_PARSE, "unknown PLY header line '%s'", quote(q, w, n));
        }
    }
    if (st != KCBP_OK)
        return st;
    if (!h->body_start)
        return fail(p, KCBP_ERR_PARSE, "file ends inside the PLY header (no 'end_header')");
    if (h->format < 0)
        return fail(p, KCBP_ERR_PARSE, "no 'format' line in the PLY header");
    return header_check(p, h);
}

/* ---- the body ------------------------------------------------------------ */

/* What the body builds: the vertices, the faces' triangles, a face's
 * indices. */
typedef struct {
    kcbp_vec3 *v;
    size_t nv, cap_v;
    uint32_t *poly;
    size_t cap_poly;
    kcbp_tri_builder tb;
} building;

/* List property pr of element x's item i; a face's vertex indices make its
 * triangles (fstart: where the item starts, for binary messages). */
static kcbp_status read_list(ply *p, body *b, const element *x, const prop *pr, uint64_t i, size_t fstart,
                             building *out)
{
    double cnt, val;
    vctx ctx = {x->name, i, 2, 0, 0};
    kcbp_status st = value(p, b, pr->count_type, &ctx, &cnt);
    if (st)
        return st;
    if (cnt < 0 || cnt != floor(cnt))
        return fail(p, KCBP_ERR_PARSE, "list count %g of '%s' %" PRIu64 " is negative", cnt, x->name, i);
    if (pr->role == R_INDICES && cnt < 3)
        return fail(p, KCBP_ERR_PARSE, "face %" PRIu64 " has %g vertex index%s, needs at least 3", i, cnt,
                    cnt == 1 ? "" : "es");
    /* Each item takes at least a byte (two in text): a count beyond the
     * data left is refused before any allocation. */
    size_t left = p->binary ? ((size_t)(b->end - b->d) - b->pos) / type_size[pr->type] : (size_t)(b->e - b->c) / 2 + 1;
    if (cnt > (double)left)
        return fail(p, KCBP_ERR_PARSE, "list of %.0f items in '%s' %" PRIu64 " is longer than the %s left", cnt,
                    x->name, i, p->binary ? "file" : "line");
    size_t m = (size_t)cnt;
    if (pr->role == R_INDICES && !kcbp_grow(&out->poly, &out->cap_poly, m, sizeof *out->poly, 64))
        return fail(p, KCBP_ERR_NOMEM, "out of memory for a face of %zu vertices", m);
    for (size_t a = 0; a < m; a++) {
        ctx.what = 3;
        ctx.item = a;
        if ((st = value(p, b, pr->type, &ctx, &val)))
            return st;
        if (pr->role == R_INDICES) {
            if (val < 0 || val >= (double)out->nv)
                return fail(p, KCBP_ERR_PARSE, "vertex index %.0f of face %" PRIu64 " out of range (%zu vertices, from 0)",
                            val, i, out->nv);
            out->poly[a] = (uint32_t)val;
        }
    }
    if (pr->role != R_INDICES)
        return KCBP_OK;
    char where[64];
    snprintf(where, sizeof where, "%s: byte %zu", p->name, fstart);
    st = p->binary ? kcbp_tri_builder_face(&out->tb, where, 0, out->v, out->poly, m, p->err)
                   : kcbp_tri_builder_face(&out->tb, p->name, p->line, out->v, out->poly, m, p->err);
    if (st)
        return st;
    if (out->tb.nt > KCBP_MESH_MAX_ELEMENTS)
        return fail(p, KCBP_ERR_LIMIT, "more than %u triangles", KCBP_MESH_MAX_ELEMENTS);
    return KCBP_OK;
}

/* Item i of element x: its properties, then, for a vertex, the vertex. */
static kcbp_status read_item(ply *p, body *b, const element *x, uint64_t i, building *out)
{
    char q[48];
    double xyz[3] = {0, 0, 0};
    size_t fstart = b->pos;
    kcbp_status st;
    for (size_t j = 0; j < x->nprops; j++) {
        const prop *pr = &x->props[j];
        if (pr->count_type != T_NONE) {
            if ((st = read_list(p, b, x, pr, i, fstart, out)))
                return st;
            continue;
        }
        double val;
        vctx ctx = {x->name, i, pr->role >= R_X && pr->role <= R_Z, pr->role - R_X, 0};
        if ((st = value(p, b, pr->type, &ctx, &val)))
            return st;
        if (pr->role >= R_X && pr->role <= R_Z)
            xyz[pr->role - R_X] = val;
    }
    if (!p->binary) {
        const char *w;
        size_t n;
        if (kcbp_next_word(&b->c, b->e, &w, &n))
            return fail(p, KCBP_ERR_PARSE, "extra value '%s' after '%s' %" PRIu64, quote(q, w, n), x->name, i);
    }
    if (x->kind != 1)
        return KCBP_OK;
    p->byte = fstart;
    for (int a = 0; a < 3; a++)
        if (kcbp_coord_check(xyz[a]) != KCBP_OK)
            return fail(p, KCBP_ERR_LIMIT, "vertex coordinate %g is beyond the limit of %g", xyz[a], KCBP_COORD_MAX);
    if (!kcbp_grow(&out->v, &out->cap_v, out->nv + 1, sizeof *out->v, 1024))
        return fail(p, KCBP_ERR_NOMEM, "out of memory for %zu vertices", out->nv + 1);
    out->v[out->nv++] = kcbp_v3(xyz[0], xyz[1], xyz[2]);
    return KCBP_OK;
}

/* The body: every element's items in the order the header declares them.
 * Whatever follows the last element (padding, a newline) is ignored. */
static kcbp_status read_body(ply *p, const char *data, size_t len, const header *h, building *out)
{
    const char *end = data + len;
    body b = {.d = data, .end = end, .c = h->body_start, .next = h->body_start,
              .pos = (size_t)(h->body_start - data), .big = h->format == 2};
    if (h->format == 0 && memchr(h->body_start, '\0', (size_t)(end - h->body_start))) {
        const char *nul = memchr(h->body_start, '\0', (size_t)(end - h->body_start));
        for (const char *x = h->body_start; (x = memchr(x, '\n', (size_t)(nul - x))) != NULL; x++)
            p->line++;
        p->line++;
        return fail(p, KCBP_ERR_PARSE, "binary data (NUL byte at offset %zu) in an ASCII PLY", (size_t)(nul - data));
    }
    p->binary = h->format != 0;
    for (size_t k = 0; k < h->nel; k++) {
        const element *x = &h->el[k];
        if (x->nprops == 0)
            continue; /* no data */
        for (uint64_t i = 0; i < x->count; i++) {
            if (!p->binary && !next_line(p, &b))
                return fail(p, KCBP_ERR_PARSE, "file ends after %" PRIu64 " of %" PRIu64 " '%s' elements", i, x->count,
                            x->name);
            kcbp_status st = read_item(p, &b, x, i, out);
            if (st)
                return st;
        }
    }
    return KCBP_OK;
}

kcbp_status kcbp_ply_parse(const char *name, const char *data, size_t len, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    ply p = {.name = name, .err = err};
    if (len == 0)
        return fail(&p, KCBP_ERR_PARSE, "empty file");
    header h = {.el = calloc(PLY_MAX_ELEMENTS, sizeof *h.el), .nel = 0, .format = -1, .body_start = NULL};
    if (!h.el)
        return fail(&p, KCBP_ERR_NOMEM, "out of memory");
    building out = {0};
    kcbp_status st = read_header(&p, data, len, &h);
    if (st == KCBP_OK)
        st = read_body(&p, data, len, &h, &out);
    kcbp_numparse_done(&p.np);
    free(h.el);
    free(out.poly);
    if (st != KCBP_OK) {
        free(out.v);
        kcbp_tri_builder_free(&out.tb);
        return st;
    }
    return kcbp_tri_builder_adopt(&out.tb, mesh, out.v, out.nv, name, err);
}
