/* Scene files: JSON in (kcbp_scene_parse, and kcbp_scene_read through
 * kcbp_scene_parse_stream_into) and out (kcbp_scene_to_text).
 *
 * Reading streams: the text is read in chunks of SRC_CHUNK bytes and each
 * element of "objects" is parsed into a small tree of its own (an arena
 * emptied after each object) and checked there, so that neither the file's
 * text nor a tree of the whole file is ever held (a 10^6-object scene is
 * about 140 MB of text; cJSON's tree of it took ten times that). Its
 * "extras" values are checked for syntax and not kept. Numbers are read
 * as JSON writes them (RFC 8259: no leading zeros, no "1." or ".5", no
 * NaN) and correctly rounded (numparse.h); strings are UTF-8 (a byte that
 * starts no valid sequence is an error naming its line and column) and may
 * hold any character but NUL ("\u0000" is refused where a name, a path or
 * a key needs it). Errors are those of the cJSON reader this replaces:
 * "file:line:column: invalid JSON near 'text'", "... unexpected end of
 * text", "file: empty file", "file: NUL byte: not a JSON text file", then
 * the fields' own.
 *
 * Writing builds a cJSON tree (the one use of cJSON left here, which stays
 * out of every public header). */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/input.h"
#include "base/numparse.h"
#include "scene2d_internal.h"
#include "scene_json.h"
#include "base/utf8.h"
#include "base/util.h"

/* ---- the text, as it comes --------------------------------------------------- */

#define SRC_CHUNK ((size_t)1 << 16)
#define SRC_LOOKAHEAD 32 /* bytes a token or an error's excerpt needs at once */
#define JSON_MAX_DEPTH 1000
#define JSON_MAX_NUMBER 4096

typedef struct {
    const char *name; /* the scene's name, first in every message */
    kcbp_error *err;
    kcbp_input *in;    /* a stream, or NULL: the text is all in data */
    char *buf;         /* a stream's window */
    const char *data;  /* the window: data[pos .. len) not consumed yet */
    size_t pos, len;
    bool eof;
    uint64_t total;    /* bytes read */
    long line, col;    /* of data[pos], 1-based; col in bytes */
    long ccol;         /* the column in characters (UTF-8 sequences) */
    bool failed;       /* an error is set */
    kcbp_status status; /* ...with this code */
    kcbp_numparse np;
} src;

/* Reads more of a stream (keeping data[pos ..]); false at its end or on an
 * error (s->failed). */
static bool src_fill(src *s)
{
    if (s->eof || s->failed)
        return false;
    if (!s->in) {
        s->eof = true;
        return false;
    }
    size_t keep = s->len - s->pos;
    if (s->pos > 0 && keep > 0)
        memmove(s->buf, s->buf + s->pos, keep);
    s->pos = 0;
    s->len = keep;
    kcbp_error e = {0};
    ssize_t r = kcbp_input_read(s->in, s->buf + s->len, SRC_CHUNK, &e);
    if (r < 0) {
        s->failed = true;
        s->status = e.code ? e.code : KCBP_ERR_IO;
        if (s->err)
            *s->err = e;
        return false;
    }
    if (r == 0) {
        s->eof = true;
        return false;
    }
    if (memchr(s->buf + s->len, '\0', (size_t)r)) {
        s->status = kcbp_scene_error(s->err, s->name, KCBP_ERR_PARSE, NULL, "NUL byte: not a JSON text file");
        s->failed = true;
        return false;
    }
    s->total += (uint64_t)r;
    if (s->total > KCBP_SCENE_MAX_FILE_BYTES) {
        s->status = kcbp_error_set(s->err, KCBP_ERR_LIMIT, "%s: larger than the limit of 16 GiB", s->name);
        s->failed = true;
        return false;
    }
    s->len += (size_t)r;
    s->data = s->buf;
    return true;
}

/* At least n bytes ahead, unless the text ends first. */
static size_t src_need(src *s, size_t n)
{
    while (s->len - s->pos < n && src_fill(s))
        ;
    return s->len - s->pos;
}

static inline int src_peek(src *s)
{
    if (s->pos == s->len && !src_fill(s))
        return -1;
    return (unsigned char)s->data[s->pos];
}

static inline void src_advance(src *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s->data[s->pos + i];
        if (c == '\n') {
            s->line++;
            s->col = s->ccol = 1;
        } else {
            s->col++;
            s->ccol += (c & 0xC0) != 0x80;
        }
    }
    s->pos += n;
}

/* "name:line:col: invalid JSON near '...'" at the next byte (or "...
 * unexpected end of text"); excerpt: what to show instead (NULL: the
 * text from here). */
static kcbp_status syntax_error_at(src *s, long line, long col, const char *excerpt, size_t n)
{
    if (s->failed)
        return s->status;
    if (!excerpt) {
        n = src_need(s, 20);
        if (s->failed)
            return s->status;
        excerpt = s->data + s->pos;
    }
    s->failed = true;
    s->status = KCBP_ERR_PARSE;
    size_t show = 0;
    while (show < n && show < 20 && excerpt[show] != '\n' && excerpt[show] != '\r')
        show++;
    if (n == 0)
        return kcbp_error_set(s->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid JSON: unexpected end of text", s->name,
                              line, col);
    return kcbp_error_set(s->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid JSON near '%.*s'", s->name, line, col,
                          (int)show, excerpt);
}

static kcbp_status syntax_error(src *s) { return syntax_error_at(s, s->line, s->col, NULL, 0); }

static kcbp_status utf8_error(src *s)
{
    s->failed = true;
    s->status = KCBP_ERR_PARSE;
    return kcbp_error_set(s->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid UTF-8 (byte 0x%02X): JSON text must be UTF-8",
                          s->name, s->line, s->ccol, (unsigned char)s->data[s->pos]);
}

/* A byte that is not ASCII where a token should start: invalid UTF-8 or
 * invalid JSON. */
static kcbp_status bad_byte(src *s)
{
    size_t avail = src_need(s, 4);
    if (s->failed)
        return s->status;
    if (avail && (unsigned char)s->data[s->pos] >= 0x80 &&
        kcbp_utf8_seq((const unsigned char *)s->data + s->pos, avail) == 0)
        return utf8_error(s);
    return syntax_error(s);
}

static void skip_ws(src *s)
{
    for (;;) {
        if (s->pos == s->len && !src_fill(s))
            return;
        const char *d = s->data;
        size_t i = s->pos, end = s->len;
        long line = s->line, col = s->col, ccol = s->ccol;
        for (; i < end; i++) {
            char c = d[i];
            if (c == ' ' || c == '\t' || c == '\r') {
                col++, ccol++;
            } else if (c == '\n') {
                line++;
                col = ccol = 1;
            } else {
                break;
            }
        }
        s->pos = i, s->line = line, s->col = col, s->ccol = ccol;
        if (i < end)
            return;
    }
}

/* n bytes of one line (no newline among them) consumed. */
static inline void src_skip_plain(src *s, size_t n)
{
    s->pos += n;
    s->col += (long)n;
    s->ccol += (long)n;
}

/* ---- values: a small tree per object ------------------------------------------ */

typedef enum { JV_NULL, JV_FALSE, JV_TRUE, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT } jv_type;

typedef struct jv {
    jv_type type;
    double number;
    char *str;      /* JV_STRING: NUL-terminated (slen bytes: a NUL inside makes strlen shorter) */
    size_t slen;
    char *key;      /* a member of an object: its key (klen bytes) */
    size_t klen;
    struct jv *child, *next;
    int count;      /* array, object: members */
} jv;

typedef struct ablock {
    struct ablock *next;
    size_t used, cap;
    max_align_t data[];
} ablock;

typedef struct {
    ablock *head;
} arena;

static void *arena_alloc(arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->used + n > a->head->cap) {
        size_t cap = n > 16384 ? n : 16384;
        ablock *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = (char *)a->head->data + a->head->used;
    a->head->used += n;
    return p;
}

/* Empties the arena, keeping one block. */
static void arena_reset(arena *a)
{
    if (!a->head)
        return;
    ablock *b = a->head->next;
    while (b) {
        ablock *n = b->next;
        free(b);
        b = n;
    }
    a->head->next = NULL;
    a->head->used = 0;
}

static void arena_free(arena *a)
{
    arena_reset(a);
    free(a->head);
    a->head = NULL;
}

typedef struct {
    src *s;
    arena *a;
    char *sb;          /* a string being read */
    size_t slen, scap;
    int top;           /* the depth of the object whose "extras" is checked, not kept */
} parser;

static bool sb_put(parser *p, const char *b, size_t n)
{
    if (p->slen + n + 1 > p->scap) {
        size_t cap = p->scap ? p->scap : 256;
        while (cap < p->slen + n + 1)
            cap *= 2;
        char *g = realloc(p->sb, cap);
        if (!g)
            return false;
        p->sb = g;
        p->scap = cap;
    }
    memcpy(p->sb + p->slen, b, n);
    p->slen += n;
    return true;
}

static kcbp_status nomem(src *s)
{
    s->failed = true;
    s->status = KCBP_ERR_NOMEM;
    return kcbp_scene_error(s->err, s->name, KCBP_ERR_NOMEM, NULL, "out of memory");
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* \uXXXX at the next bytes (after the backslash and 'u'): its code unit. */
static long read_hex4(src *s)
{
    if (src_need(s, 4) < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval((unsigned char)s->data[s->pos + (size_t)i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    src_advance(s, 4);
    return v;
}

static void put_utf8(char *b, size_t *n, unsigned long cp)
{
    if (cp < 0x80) {
        b[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        b[(*n)++] = (char)(0xC0 | cp >> 6);
        b[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        b[(*n)++] = (char)(0xE0 | cp >> 12);
        b[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        b[(*n)++] = (char)(0xF0 | cp >> 18);
        b[(*n)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[(*n)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* A string at the next byte (a quote) into p->sb (p->slen bytes, then a
 * NUL); keep false: only checked. */
static kcbp_status read_string(parser *p, bool keep)
{
    src *s = p->s;
    p->slen = 0;
    src_advance(s, 1); /* the quote */
    long line = s->line, col = s->col;
    char head[20]; /* the string's first bytes, for a message at its end */
    size_t nhead = 0;
    for (;;) {
        int c = src_peek(s);
        if (c < 0)
            return s->failed ? s->status : syntax_error_at(s, line, col, head, nhead);
        if (c == '"') {
            src_advance(s, 1);
            break;
        }
        /* a run of plain ASCII at once */
        size_t run = 0;
        const char *d = s->data + s->pos;
        size_t left = s->len - s->pos;
        while (run < left && (unsigned char)d[run] >= 0x20 && (unsigned char)d[run] < 0x80 && d[run] != '"' &&
               d[run] != '\\')
            run++;
        if (run) {
            for (size_t i = 0; i < run && nhead < sizeof head; i++)
                head[nhead++] = d[i];
            if (keep && !sb_put(p, d, run))
                return nomem(s);
            src_skip_plain(s, run);
            continue;
        }
        char out[8];
        size_t n = 0;
        if (c == '\\') {
            if (src_need(s, 2) < 2)
                return s->failed ? s->status : syntax_error_at(s, line, col, head, nhead);
            int e = (unsigned char)s->data[s->pos + 1];
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e && simple) {
                static const char map[] = "\"\\/\b\f\n\r\t";
                out[n++] = map[simple - "\"\\/bfnrt"];
                src_advance(s, 2);
            } else if (e == 'u') {
                src_advance(s, 2);
                long u = read_hex4(s);
                if (u < 0)
                    return syntax_error(s);
                unsigned long cp = (unsigned long)u;
                if (u >= 0xD800 && u <= 0xDBFF) { /* a high surrogate: its low one must follow */
                    if (src_need(s, 2) < 2 || s->data[s->pos] != '\\' || s->data[s->pos + 1] != 'u')
                        return syntax_error(s);
                    src_advance(s, 2);
                    long lo = read_hex4(s);
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return syntax_error(s);
                    cp = 0x10000 + (((unsigned long)u - 0xD800) << 10) + ((unsigned long)lo - 0xDC00);
                } else if (u >= 0xDC00 && u <= 0xDFFF) {
                    return syntax_error(s);
                }
                put_utf8(out, &n, cp);
            } else {
                return syntax_error(s);
            }
        } else if (c < 0x80) {
            out[n++] = (char)c;
            src_advance(s, 1);
        } else {
            size_t avail = src_need(s, 4);
            size_t k = kcbp_utf8_seq((const unsigned char *)s->data + s->pos, avail);
            if (k == 0)
                return s->failed ? s->status : utf8_error(s);
            memcpy(out, s->data + s->pos, k);
            n = k;
            src_advance(s, k);
        }
        for (size_t i = 0; i < n && nhead < sizeof head; i++)
            head[nhead++] = out[i];
        if (keep && !sb_put(p, out, n))
            return nomem(s);
    }
    if (keep && !sb_put(p, "", 0))
        return nomem(s);
    if (keep)
        p->sb[p->slen] = '\0';
    return KCBP_OK;
}

static char *arena_str(parser *p)
{
    char *c = arena_alloc(p->a, p->slen + 1);
    if (c) {
        memcpy(c, p->sb, p->slen);
        c[p->slen] = '\0';
    }
    return c;
}

/* A number at the next byte, as JSON writes it. */
static kcbp_status read_number(parser *p, double *out)
{
    src *s = p->s;
    char num[JSON_MAX_NUMBER + 1];
    size_t n = 0;
    long line = s->line, col = s->col;
    /* the grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    int c = src_peek(s);
#define TAKE()                                                                                                         \
    do {                                                                                                               \
        if (n == JSON_MAX_NUMBER)                                                                                      \
            return syntax_error_at(s, line, col, num, n);                                                              \
        num[n++] = (char)c;                                                                                            \
        src_skip_plain(s, 1);                                                                                          \
        c = src_peek(s);                                                                                               \
    } while (0)
#define DIGIT(x) ((x) >= '0' && (x) <= '9')
    if (c == '-')
        TAKE();
    if (c == '0') {
        TAKE();
    } else if (DIGIT(c)) {
        while (DIGIT(c))
            TAKE();
    } else {
        return c < 0 && s->failed ? s->status : syntax_error(s);
    }
    if (c == '.') {
        TAKE();
        if (!DIGIT(c))
            return c < 0 && s->failed ? s->status : syntax_error(s);
        while (DIGIT(c))
            TAKE();
    }
    if (c == 'e' || c == 'E') {
        TAKE();
        if (c == '+' || c == '-')
            TAKE();
        if (!DIGIT(c))
            return c < 0 && s->failed ? s->status : syntax_error(s);
        while (DIGIT(c))
            TAKE();
    }
#undef TAKE
#undef DIGIT
    if (s->failed)
        return s->status;
    num[n] = '\0';
    const char *stop;
    kcbp_num_result r = kcbp_parse_double(&s->np, num, num + n, &stop, out);
    if (r == KCBP_NUM_NONFINITE) /* overflow: the field says "not a finite number" */
        *out = num[0] == '-' ? -INFINITY : INFINITY;
    else if (r != KCBP_NUM_OK || stop != num + n)
        return syntax_error_at(s, line, col, num, n);
    return KCBP_OK;
}

/* The value at the next byte (white space skipped before it) into *out, a
 * tree in the arena; out NULL: only checked. */
static kcbp_status read_value(parser *p, jv **out, int depth)
{
    src *s = p->s;
    skip_ws(s);
    int c = src_peek(s);
    if (c < 0)
        return s->failed ? s->status : syntax_error(s);
    jv *v = NULL;
    if (out) {
        if (!(v = arena_alloc(p->a, sizeof *v)))
            return nomem(s);
        memset(v, 0, sizeof *v);
        *out = v;
    }
    kcbp_status st;
    if (c == '{' || c == '[') {
        if (depth >= JSON_MAX_DEPTH) {
            s->failed = true;
            s->status = KCBP_ERR_PARSE;
            return kcbp_error_set(s->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid JSON: nested deeper than %d levels",
                                  s->name, s->line, s->col, JSON_MAX_DEPTH);
        }
        bool object = c == '{';
        char close = object ? '}' : ']';
        if (v)
            v->type = object ? JV_OBJECT : JV_ARRAY;
        src_advance(s, 1);
        skip_ws(s);
        if (src_peek(s) == close) {
            src_advance(s, 1);
            return KCBP_OK;
        }
        jv **link = v ? &v->child : NULL;
        for (;;) {
            char *key = NULL;
            size_t klen = 0;
            bool skip = false;
            if (object) {
                skip_ws(s);
                c = src_peek(s);
                if (c != '"')
                    return c < 0 && s->failed ? s->status : c >= 0x80 ? bad_byte(s) : syntax_error(s);
                if ((st = read_string(p, v != NULL)) != KCBP_OK)
                    return st;
                if (v) {
                    if (!(key = arena_str(p)))
                        return nomem(s);
                    klen = p->slen;
                    /* an object's "extras" (any value) is checked, not kept */
                    skip = depth == p->top && !strcmp(key, "extras") && klen == 6;
                }
                skip_ws(s);
                if (src_peek(s) != ':')
                    return s->failed ? s->status : syntax_error(s);
                src_advance(s, 1);
            }
            jv *child = NULL;
            if ((st = read_value(p, link && !skip ? &child : NULL, depth + 1)) != KCBP_OK)
                return st;
            if (link && skip) {
                if (!(child = arena_alloc(p->a, sizeof *child)))
                    return nomem(s);
                memset(child, 0, sizeof *child);
                child->type = JV_NULL;
            }
            if (link) {
                child->key = key;
                child->klen = klen;
                *link = child;
                link = &child->next;
                v->count++;
            }
            skip_ws(s);
            c = src_peek(s);
            if (c == ',') {
                src_advance(s, 1);
                continue;
            }
            if (c == close) {
                src_advance(s, 1);
                return KCBP_OK;
            }
            return c < 0 && s->failed ? s->status : c >= 0x80 ? bad_byte(s) : syntax_error(s);
        }
    }
    if (c == '"') {
        if ((st = read_string(p, v != NULL)) != KCBP_OK)
            return st;
        if (v) {
            v->type = JV_STRING;
            if (!(v->str = arena_str(p)))
                return nomem(s);
            v->slen = p->slen;
        }
        return KCBP_OK;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        double x;
        if ((st = read_number(p, &x)) != KCBP_OK)
            return st;
        if (v) {
            v->type = JV_NUMBER;
            v->number = x;
        }
        return KCBP_OK;
    }
    static const struct {
        const char *word;
        jv_type type;
    } words[] = {{"true", JV_TRUE}, {"false", JV_FALSE}, {"null", JV_NULL}};
    size_t avail = src_need(s, 5);
    for (int k = 0; k < 3; k++) {
        size_t wl = strlen(words[k].word);
        if (avail >= wl && !memcmp(s->data + s->pos, words[k].word, wl)) {
            src_advance(s, wl);
            if (v)
                v->type = words[k].type;
            return KCBP_OK;
        }
    }
    return s->failed ? s->status : c >= 0x80 ? bad_byte(s) : syntax_error(s);
}

typedef struct {
    const char *name; /* the scene's name, first in every message */
    kcbp_error *err;
} pctx;

#define perr(c, code, field, ...) kcbp_scene_error((c)->err, (c)->name, code, field, __VA_ARGS__)

/* A field's path, written out only for a message: "objects[3].rotation.axis"
 * is {up: {up: {NULL, "objects", 3}, "rotation", -1}, "axis", -1}. */
typedef struct fld {
    const struct fld *up;
    const char *name;
    long index; /* >= 0: "[index]" after the name */
} fld;

static size_t fld_put(const fld *f, char *buf, size_t cap)
{
    size_t n = f->up ? fld_put(f->up, buf, cap) : 0;
    int k = snprintf(buf + n, cap - n, f->index >= 0 ? "%s%s[%ld]" : "%s%s", n ? "." : "", f->name, f->index);
    n += k > 0 ? (size_t)k : 0;
    return n < cap ? n : cap - 1;
}

static kcbp_status ferr(pctx *c, kcbp_status code, const fld *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static kcbp_status ferr(pctx *c, kcbp_status code, const fld *f, const char *fmt, ...)
{
    char where[256], msg[KCBP_ERROR_MSG_MAX];
    where[0] = '\0';
    if (f)
        fld_put(f, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kcbp_scene_error(c->err, c->name, code, where, "%s", msg);
}

static bool is_zero3(kcbp_vec3 v) { return v.x == 0 && v.y == 0 && v.z == 0; }

static const char *json_type(const jv *j)
{
    switch (j->type) {
    case JV_NUMBER: return "a number";
    case JV_STRING: return "a string";
    case JV_ARRAY: return "an array";
    case JV_OBJECT: return "an object";
    case JV_TRUE:
    case JV_FALSE: return "a boolean";
    case JV_NULL: return "null";
    }
    return "an invalid value";
}

static bool is_number(const jv *j) { return j->type == JV_NUMBER; }
static bool is_string(const jv *j) { return j->type == JV_STRING; }
static bool is_array(const jv *j) { return j->type == JV_ARRAY; }
static bool is_object(const jv *j) { return j->type == JV_OBJECT; }

/* The member key of obj (the first, as cJSON gave it), or NULL. */
static const jv *member(const jv *obj, const char *key)
{
    for (const jv *m = obj->child; m; m = m->next)
        if (!strcmp(m->key, key) && strlen(m->key) == m->klen)
            return m;
    return NULL;
}

/* Every key of obj must be one of `allowed` (NULL-terminated) and appear
 * once. */
static kcbp_status check_keys(pctx *c, const jv *obj, const fld *f, const char *const *allowed, const char *expected)
{
    for (const jv *k = obj->child; k; k = k->next) {
        bool known = false, nul = strlen(k->key) != k->klen;
        for (const char *const *a = allowed; *a && !known && !nul; a++)
            known = !strcmp(k->key, *a);
        bool twice = false;
        for (const jv *o = obj->child; known && !twice && o != k; o = o->next)
            twice = !strcmp(o->key, k->key);
        if (known && !twice)
            continue;
        fld where = {f, k->key, -1};
        if (nul)
            return ferr(c, KCBP_ERR_PARSE, &where, "a key holds a NUL character (\\u0000)");
        if (!known)
            return ferr(c, KCBP_ERR_PARSE, &where, "unknown key (expected %s)", expected);
        return ferr(c, KCBP_ERR_PARSE, &where, "key given twice");
    }
    return KCBP_OK;
}

static kcbp_status get_number(pctx *c, const jv *j, const fld *f, double *out)
{
    if (!is_number(j))
        return ferr(c, KCBP_ERR_PARSE, f, "expected a number, got %s", json_type(j));
    if (!isfinite(j->number))
        return ferr(c, KCBP_ERR_PARSE, f, "not a finite number");
    *out = j->number;
    return KCBP_OK;
}

static kcbp_status get_vec3(pctx *c, const jv *j, const fld *f, kcbp_vec3 *out)
{
    double v[3];
    if (!is_array(j) || j->count != 3)
        return ferr(c, KCBP_ERR_PARSE, f, "expected 3 numbers");
    int i = 0;
    for (const jv *e = j->child; e; e = e->next, i++) {
        if (!is_number(e))
            return ferr(c, KCBP_ERR_PARSE, f, "expected 3 numbers (item %d is %s)", i, json_type(e));
        if (!isfinite(e->number))
            return ferr(c, KCBP_ERR_PARSE, f, "item %d is not a finite number", i);
        v[i] = e->number;
    }
    *out = kcbp_v3(v[0], v[1], v[2]);
    return KCBP_OK;
}

static kcbp_status get_string(pctx *c, const jv *j, const fld *f, const char **out)
{
    if (!is_string(j))
        return ferr(c, KCBP_ERR_PARSE, f, "expected a string, got %s", json_type(j));
    if (j->slen == 0)
        return ferr(c, KCBP_ERR_PARSE, f, "empty string");
    if (strlen(j->str) != j->slen) /* a path or a name cut at the NUL would name something else */
        return ferr(c, KCBP_ERR_PARSE, f, "holds a NUL character (\\u0000)");
    *out = j->str;
    return KCBP_OK;
}

/* {"axis": [x, y, z], <angle_key>: number}: both required. */
static kcbp_status get_axis_angle(pctx *c, const jv *j, const fld *f, const char *angle_key, kcbp_vec3 *axis,
                                  double *angle, kcbp_mat3 *rot)
{
    if (!is_object(j))
        return ferr(c, KCBP_ERR_PARSE, f, "expected an object {\"axis\": [x, y, z], \"%s\": number}, got %s",
                    angle_key, json_type(j));
    const char *keys[] = {"axis", angle_key, NULL};
    char expected[64];
    snprintf(expected, sizeof expected, "axis, %s", angle_key);
    kcbp_status st = check_keys(c, j, f, keys, expected);
    if (st != KCBP_OK)
        return st;
    const jv *ax = member(j, "axis");
    const jv *an = member(j, angle_key);
    fld fa = {f, "axis", -1}, fn = {f, angle_key, -1};
    if (!ax)
        return ferr(c, KCBP_ERR_PARSE, &fa, "missing");
    if ((st = get_vec3(c, ax, &fa, axis)) != KCBP_OK)
        return st;
    if (!an)
        return ferr(c, KCBP_ERR_PARSE, &fn, "missing");
    if ((st = get_number(c, an, &fn, angle)) != KCBP_OK)
        return st;
    if (is_zero3(*axis) && *angle != 0)
        return ferr(c, KCBP_ERR_PARSE, &fa, "zero axis with a non-zero %s", angle_key);
    if (rot) {
        kcbp_pose p;
        if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), *axis, *angle, &p, NULL) != KCBP_OK)
            return ferr(c, KCBP_ERR_PARSE, f, "not a rotation");
        *rot = p.rot;
    }
    return KCBP_OK;
}

/* An axis and an angle in degrees for a rotation matrix (informational:
 * kcbp_scene_obj.rot0 is the rotation; these fill its axis and
 * angle_deg when the rotation was given as a quaternion or a matrix). */
static void axis_angle_of(const kcbp_mat3 *r, kcbp_vec3 *axis, double *deg)
{
    const double(*m)[3] = r->m;
    kcbp_vec3 v = kcbp_v3(m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1]); /* 2 sin(a) u */
    double c = (m[0][0] + m[1][1] + m[2][2] - 1) / 2, s = kcbp_v3_len(v) / 2;
    double a = atan2(s, c);
    kcbp_vec3 u;
    if (c < 0) {
        /* Near a half turn v vanishes: u from the diagonal, u_k^2 = (m_kk - c) / (1 - c),
         * its sign from v. */
        int k = m[0][0] >= m[1][1] && m[0][0] >= m[2][2] ? 0 : m[1][1] >= m[2][2] ? 1 : 2;
        double uk = sqrt(fmax(m[k][k] - c, 0) / (1 - c)), w[3];
        for (int j = 0; j < 3; j++)
            w[j] = j == k ? uk : (m[k][j] + m[j][k]) / (2 * (1 - c) * uk);
        u = kcbp_v3(w[0], w[1], w[2]);
        if (kcbp_v3_dot(u, v) < 0)
            u = kcbp_v3_neg(u);
    } else if (s > 0) {
        u = kcbp_v3_scale(v, 1 / (2 * s));
    } else {
        u = kcbp_v3(0, 0, 1);
        a = 0;
    }
    double len = kcbp_v3_len(u);
    *axis = len > 0 && isfinite(len) ? kcbp_v3_scale(u, 1 / len) : kcbp_v3(0, 0, 1);
    *deg = a * (180 / M_PI);
}

/* An object's "rotation": {"axis": [x, y, z], "angle_deg": a},
 * {"quaternion": [w, x, y, z]} (unit to 1e-6) or {"matrix": [[r00, r01,
 * r02], [r10, r11, r12], [r20, r21, r22]]} (a proper rotation to 1e-9),
 * read as kcbp_pose_from_quat and kcbp_pose_from_matrix read them. */
static kcbp_status get_rotation(pctx *c, const jv *j, const fld *f, kcbp_scene_obj *o)
{
    if (!is_object(j))
        return ferr(c, KCBP_ERR_PARSE, f,
                    "expected an object {\"axis\": [x, y, z], \"angle_deg\": number}, {\"quaternion\": [w, x, y, z]} "
                    "or {\"matrix\": [[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]]}, got %s", json_type(j));
    static const char *const keys[] = {"axis", "angle_deg", "quaternion", "matrix", NULL};
    kcbp_status st = check_keys(c, j, f, keys, "axis and angle_deg, quaternion, or matrix");
    if (st != KCBP_OK)
        return st;
    const jv *q = member(j, "quaternion");
    const jv *mx = member(j, "matrix");
    bool aa = member(j, "axis") || member(j, "angle_deg");
    if (!q && !mx)
        return get_axis_angle(c, j, f, "angle_deg", &o->axis, &o->angle_deg, &o->rot0);
    if ((q && mx) || aa)
        return ferr(c, KCBP_ERR_PARSE, f, "give one form: axis and angle_deg, quaternion, or matrix");
    double v[12] = {0};
    kcbp_pose p;
    kcbp_error e = {0};
    fld where = {f, q ? "quaternion" : "matrix", -1};
    if (q) {
        if (!is_array(q) || q->count != 4)
            return ferr(c, KCBP_ERR_PARSE, &where, "expected 4 numbers [w, x, y, z]");
        int i = 0;
        for (const jv *x = q->child; x; x = x->next, i++)
            if ((st = get_number(c, x, &where, &v[i])) != KCBP_OK)
                return st;
        st = kcbp_pose_from_quat(kcbp_v3(0, 0, 0), v[0], v[1], v[2], v[3], &p, &e);
    } else {
        if (!is_array(mx) || mx->count != 3)
            return ferr(c, KCBP_ERR_PARSE, &where, "expected 3 rows of 3 numbers [[r00, r01, r02], [r10, r11, r12], "
                                                   "[r20, r21, r22]]");
        int i = 0;
        for (const jv *row = mx->child; row; row = row->next, i++) {
            fld rw = {f, "matrix", i};
            kcbp_vec3 r;
            if ((st = get_vec3(c, row, &rw, &r)) != KCBP_OK)
                return st;
            v[4 * i] = r.x, v[4 * i + 1] = r.y, v[4 * i + 2] = r.z;
        }
        st = kcbp_pose_from_matrix(v, 12, &p, &e);
    }
    if (st != KCBP_OK)
        return ferr(c, KCBP_ERR_PARSE, &where, "%s", e.msg);
    o->rot0 = p.rot;
    axis_angle_of(&o->rot0, &o->axis, &o->angle_deg);
    return KCBP_OK;
}

/* A shape's number: finite, > 0 and within the limits of kcbp_shape_check
 * (the command line's, where a capsule's length must be > 0 too). */
static kcbp_status check_shape_number(pctx *c, const fld *f, double v, int item)
{
    char it[32] = "";
    if (item >= 0)
        snprintf(it, sizeof it, "item %d ", item);
    if (!(v > 0))
        return ferr(c, KCBP_ERR_PARSE, f, "%smust be > 0, not %g", it, v);
    if (v > KCBP_SHAPE_MAX || v < KCBP_SHAPE_MIN)
        return ferr(c, KCBP_ERR_PARSE, f, "%s%g is outside [%g, %g]", it, v, KCBP_SHAPE_MIN, KCBP_SHAPE_MAX);
    return KCBP_OK;
}

/* "shape": {"sphere": {"radius": R}}, {"capsule": {"radius": R, "length":
 * L}}, {"box": {"size": [X, Y, Z]}} or {"cylinder": {"radius": R, "height":
 * H}}: the conventions of shape.h and the command line's sphere:R,
 * capsule:R:L, box:X:Y:Z, cylinder:R:L. */
static kcbp_status get_shape(pctx *c, const jv *j, const fld *f, kcbp_shape *out)
{
    static const char *const kinds = "sphere, capsule, box or cylinder";
    if (!is_object(j))
        return ferr(c, KCBP_ERR_PARSE, f, "expected an object such as {\"sphere\": {\"radius\": 1}}, got %s",
                    json_type(j));
    if (j->count != 1 || !j->child) {
        if (j->count == 0 || !j->child)
            return ferr(c, KCBP_ERR_PARSE, f, "expected one shape: %s", kinds);
        fld second = {f, j->child->next->key, -1};
        return ferr(c, KCBP_ERR_PARSE, &second, "a second shape: an object is one shape (%s)", kinds);
    }
    const jv *k = j->child;
    fld fk = {f, k->key, -1};
    static const struct {
        const char *name;
        kcbp_shape_kind kind;
        const char *const keys[3];
        const char *expected;
    } forms[] = {
        {"sphere", KCBP_SHAPE_SPHERE, {"radius", NULL, NULL}, "radius"},
        {"capsule", KCBP_SHAPE_CAPSULE, {"radius", "length", NULL}, "radius, length"},
        {"box", KCBP_SHAPE_BOX, {"size", NULL, NULL}, "size"},
        {"cylinder", KCBP_SHAPE_CYLINDER, {"radius", "height", NULL}, "radius, height"},
    };
    int w = -1;
    for (int q = 0; q < 4 && w < 0; q++)
        if (strlen(k->key) == k->klen && !strcmp(k->key, forms[q].name))
            w = q;
    if (w < 0)
        return ferr(c, KCBP_ERR_PARSE, &fk, "unknown shape (expected %s)", kinds);
    if (!is_object(k))
        return ferr(c, KCBP_ERR_PARSE, &fk, "expected an object of %s, got %s", forms[w].expected, json_type(k));
    kcbp_status st = check_keys(c, k, &fk, forms[w].keys, forms[w].expected);
    if (st != KCBP_OK)
        return st;
    kcbp_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.kind = forms[w].kind;
    for (int q = 0; q < 2 && forms[w].keys[q]; q++) {
        fld fn = {&fk, forms[w].keys[q], -1};
        const jv *v = member(k, forms[w].keys[q]);
        if (!v)
            return ferr(c, KCBP_ERR_PARSE, &fn, "missing");
        if (sh.kind == KCBP_SHAPE_BOX) {
            if ((st = get_vec3(c, v, &fn, &sh.size)) != KCBP_OK || (st = check_shape_number(c, &fn, sh.size.x, 0)) ||
                (st = check_shape_number(c, &fn, sh.size.y, 1)) || (st = check_shape_number(c, &fn, sh.size.z, 2)))
                return st;
            continue;
        }
        double *dst = q == 0 ? &sh.radius : &sh.length;
        if ((st = get_number(c, v, &fn, dst)) != KCBP_OK || (st = check_shape_number(c, &fn, *dst, -1)) != KCBP_OK)
            return st;
    }
    *out = sh;
    return KCBP_OK;
}

/* An object of a 2D scene (scene2d.h): a "pose", a GeoJSON or SVG mesh, or
 * a 2D shape. A 3D scene refuses it by name rather than as a bad mesh. */
static bool is_2d_object(const jv *j)
{
    if (!is_object(j))
        return false;
    if (member(j, "pose"))
        return true;
    const jv *m = member(j, "mesh"), *s = member(j, "shape");
    if (m && is_string(m) && kcbp2d_scene_path_is_2d(m->str))
        return true;
    return s && is_object(s) && s->child && kcbp2d_scene_shape_is_2d(s->child->key);
}

static kcbp_status parse_object(pctx *c, kcbp_scene *sc, const jv *j, uint32_t i, kcbp_scene_obj *o)
{
    fld field = {NULL, "objects", i};
    if (!is_object(j))
        return ferr(c, KCBP_ERR_PARSE, &field, "expected an object, got %s", json_type(j));
    if (is_2d_object(j)) {
        const jv *n = member(j, "name");
        if (i == 0) /* kcbp2d_scene_sniff did not see it: standard input, or past its first MiB */
            return ferr(c, KCBP_ERR_PARSE, &field,
                        "\"%s\" is a 2D object: a 2D scene is read from a regular file whose first object, within "
                        "its first MiB, is 2D (docs/2d.md)",
                        n && is_string(n) ? n->str : "?");
        return ferr(c, KCBP_ERR_PARSE, &field,
                    "\"%s\" is a 2D object in a 3D scene (objects[0] is 3D): a scene's objects are all 3D or all 2D "
                    "(docs/2d.md)",
                    n && is_string(n) ? n->str : "?");
    }
    static const char *const keys[] = {"name",     "mesh",     "shape",  "position", "rotation", "scale", "velocity",
                                       "angular_velocity", "extras", NULL};
    kcbp_status st = check_keys(c, j, &field, keys,
                                "name, mesh, shape, position, rotation, scale, velocity, angular_velocity, extras");
    if (st != KCBP_OK)
        return st;
    const char *name, *mesh;
    fld fname = {&field, "name", -1}, fmesh = {&field, "mesh", -1}, fpos = {&field, "position", -1};
    const jv *v = member(j, "name");
    if (!v)
        return ferr(c, KCBP_ERR_PARSE, &fname, "missing");
    if ((st = get_string(c, v, &fname, &name)) != KCBP_OK)
        return st;
    /* Exactly one of "mesh" and "shape". */
    const jv *vshape = member(j, "shape");
    fld fshape = {&field, "shape", -1};
    kcbp_shape shape;
    memset(&shape, 0, sizeof shape);
    char spelled[128];
    v = member(j, "mesh");
    if (v && vshape)
        return ferr(c, KCBP_ERR_PARSE, &fshape, "an object has a mesh or a shape, not both");
    if (!v && !vshape)
        return ferr(c, KCBP_ERR_PARSE, &fmesh, "missing (an object needs a \"mesh\" or a \"shape\")");
    if (v) {
        if ((st = get_string(c, v, &fmesh, &mesh)) != KCBP_OK)
            return st;
        if (kcbp_scene_is_shape_string(mesh))
            return ferr(c, KCBP_ERR_PARSE, &fmesh, "a mesh path cannot start with the byte 0x01");
    } else {
        if ((st = get_shape(c, vshape, &fshape, &shape)) != KCBP_OK)
            return st;
        kcbp_scene_shape_string(&shape, spelled, sizeof spelled);
        mesh = spelled;
    }
    if ((st = kcbp_scene_set_strings(sc, o, name, mesh, c->err)) != KCBP_OK)
        return st;
    v = member(j, "position");
    if (!v)
        return ferr(c, KCBP_ERR_PARSE, &fpos, "missing");
    if ((st = get_vec3(c, v, &fpos, &o->position)) != KCBP_OK)
        return st;
    if (kcbp_v3_max_abs(o->position) > KCBP_COORD_MAX)
        return ferr(c, KCBP_ERR_PARSE, &fpos, "beyond the limit of %g", KCBP_COORD_MAX);
    if ((v = member(j, "scale"))) {
        fld fs = {&field, "scale", -1};
        if ((st = get_number(c, v, &fs, &o->scale)) != KCBP_OK)
            return st;
        if (!(o->scale > 0))
            return ferr(c, KCBP_ERR_PARSE, &fs, "must be > 0, not %g", o->scale);
        kcbp_shape scaled = kcbp_scene_shape_scaled(&shape, o->scale);
        kcbp_error e;
        if (vshape && kcbp_shape_check(&scaled, &e) != KCBP_OK)
            return ferr(c, KCBP_ERR_PARSE, &fs, "the scaled shape is out of range: %s", e.msg);
    }
    fld frot = {&field, "rotation", -1}, fvel = {&field, "velocity", -1}, fang = {&field, "angular_velocity", -1};
    if ((v = member(j, "rotation")) && (st = get_rotation(c, v, &frot, o)) != KCBP_OK)
        return st;
    if ((v = member(j, "velocity")) && (st = get_vec3(c, v, &fvel, &o->velocity)) != KCBP_OK)
        return st;
    if ((v = member(j, "angular_velocity")) &&
        (st = get_axis_angle(c, v, &fang, "deg_per_s", &o->spin_axis, &o->spin_deg_per_s, NULL)) != KCBP_OK)
        return st;
    return KCBP_OK;
}

static kcbp_status parse_motion(pctx *c, const jv *j, kcbp_scene *s)
{
    fld fm = {NULL, "motion", -1}, ff = {&fm, "frames", -1}, fd = {&fm, "dt", -1};
    if (!is_object(j))
        return ferr(c, KCBP_ERR_PARSE, &fm, "expected an object {\"frames\": integer, \"dt\": seconds}, got %s",
                    json_type(j));
    static const char *const keys[] = {"frames", "dt", NULL};
    kcbp_status st = check_keys(c, j, &fm, keys, "frames, dt");
    if (st != KCBP_OK)
        return st;
    const jv *f = member(j, "frames");
    const jv *d = member(j, "dt");
    double frames;
    if (!f)
        return ferr(c, KCBP_ERR_PARSE, &ff, "missing");
    if ((st = get_number(c, f, &ff, &frames)) != KCBP_OK)
        return st;
    if (frames != floor(frames) || frames < 1 || frames > KCBP_SCENE_MAX_FRAMES)
        return ferr(c, KCBP_ERR_PARSE, &ff, "expected an integer in [1, %u], not %g", KCBP_SCENE_MAX_FRAMES, frames);
    if (!d)
        return ferr(c, KCBP_ERR_PARSE, &fd, "missing");
    if ((st = get_number(c, d, &fd, &s->dt)) != KCBP_OK)
        return st;
    if (!(s->dt > 0))
        return ferr(c, KCBP_ERR_PARSE, &fd, "must be > 0, not %g", s->dt);
    s->moving = true;
    s->frames = (uint32_t)frames;
    return KCBP_OK;
}

/* The elements of "objects", each read into the arena and checked. */
static kcbp_status parse_objects(parser *p, pctx *c, kcbp_scene *s, uint32_t max_objects)
{
    src *sr = p->s;
    kcbp_status st;
    skip_ws(sr);
    int ch = src_peek(sr);
    if (ch != '[') {
        jv *v = NULL;
        arena_reset(p->a);
        if ((st = read_value(p, &v, 1)) != KCBP_OK)
            return st;
        return perr(c, KCBP_ERR_PARSE, "objects", "expected an array, got %s", json_type(v));
    }
    src_advance(sr, 1);
    skip_ws(sr);
    uint64_t count = 0;
    if (src_peek(sr) == ']') {
        src_advance(sr, 1);
        return perr(c, KCBP_ERR_PARSE, "objects", "empty: a scene needs at least one object");
    }
    for (;;) {
        arena_reset(p->a);
        bool keep = count < max_objects;
        jv *o = NULL;
        p->top = 2;
        st = read_value(p, keep ? &o : NULL, 2);
        if (st == KCBP_OK && keep && (st = kcbp_scene_push_object(s, sr->err)) == KCBP_OK)
            st = parse_object(c, s, o, (uint32_t)count, &s->objects[count]);
        if (st != KCBP_OK)
            return st;
        count++;
        skip_ws(sr);
        ch = src_peek(sr);
        if (ch == ',') {
            src_advance(sr, 1);
            continue;
        }
        if (ch == ']') {
            src_advance(sr, 1);
            break;
        }
        return ch < 0 && sr->failed ? sr->status : ch >= 0x80 ? bad_byte(sr) : syntax_error(sr);
    }
    if (count > max_objects)
        return perr(c, KCBP_ERR_LIMIT, "objects", "%llu objects, more than the limit of %u", (unsigned long long)count,
                    max_objects);
    return KCBP_OK;
}

/* The document: one object, its members streamed. */
static kcbp_status parse_document(src *sr, kcbp_scene *s, uint32_t max_objects)
{
    pctx cc = {sr->name, sr->err}, *c = &cc;
    arena a = {0};
    parser p = {.s = sr, .a = &a};
    kcbp_status st = KCBP_OK;
    if (src_need(sr, 3) >= 3 && !memcmp(sr->data + sr->pos, "\xEF\xBB\xBF", 3)) /* a UTF-8 byte order mark */
        src_advance(sr, 3);
    skip_ws(sr);
    int ch = src_peek(sr);
    bool objects = false, motion = false, extras = false;
    if (ch < 0) {
        st = sr->failed ? sr->status : perr(c, KCBP_ERR_PARSE, NULL, "empty file");
    } else if (ch != '{') {
        jv *v = NULL;
        p.top = -1;
        if ((st = read_value(&p, &v, 0)) == KCBP_OK) {
            skip_ws(sr);
            if (src_peek(sr) >= 0)
                st = syntax_error(sr);
            else if (sr->failed)
                st = sr->status;
            else
                st = perr(c, KCBP_ERR_PARSE, NULL, "expected a JSON object {\"objects\": [...]}, got %s", json_type(v));
        }
    } else {
        src_advance(sr, 1);
        skip_ws(sr);
        if (src_peek(sr) == '}') {
            src_advance(sr, 1);
        } else {
            for (;;) {
                skip_ws(sr);
                ch = src_peek(sr);
                if (ch != '"') {
                    st = ch < 0 && sr->failed ? sr->status : ch >= 0x80 ? bad_byte(sr) : syntax_error(sr);
                    break;
                }
                if ((st = read_string(&p, true)) != KCBP_OK)
                    break;
                char key[64];
                bool nul = strlen(p.sb) != p.slen;
                snprintf(key, sizeof key, "%s", p.sb);
                bool fits = p.slen < sizeof key;
                skip_ws(sr);
                if (src_peek(sr) != ':') {
                    st = sr->failed ? sr->status : syntax_error(sr);
                    break;
                }
                src_advance(sr, 1);
                bool *seen = nul || !fits ? NULL
                             : !strcmp(key, "objects") ? &objects
                             : !strcmp(key, "motion")  ? &motion
                             : !strcmp(key, "extras")  ? &extras
                                                       : NULL;
                if (!seen) {
                    char *k = kcbp_strdup(p.sb);
                    st = k ? perr(c, KCBP_ERR_PARSE, k, nul ? "a key holds a NUL character (\\u0000)"
                                                            : "unknown key (expected objects, motion, extras)")
                           : perr(c, KCBP_ERR_NOMEM, NULL, "out of memory");
                    free(k);
                    break;
                }
                if (*seen) {
                    st = perr(c, KCBP_ERR_PARSE, key, "key given twice");
                    break;
                }
                *seen = true;
                if (seen == &objects) {
                    st = parse_objects(&p, c, s, max_objects);
                } else if (seen == &motion) {
                    jv *m = NULL;
                    arena_reset(&a);
                    p.top = 1;
                    if ((st = read_value(&p, &m, 1)) == KCBP_OK)
                        st = parse_motion(c, m, s);
                } else {
                    st = read_value(&p, NULL, 1);
                }
                if (st != KCBP_OK)
                    break;
                skip_ws(sr);
                ch = src_peek(sr);
                if (ch == ',') {
                    src_advance(sr, 1);
                    continue;
                }
                if (ch == '}') {
                    src_advance(sr, 1);
                    break;
                }
                st = ch < 0 && sr->failed ? sr->status : ch >= 0x80 ? bad_byte(sr) : syntax_error(sr);
                break;
            }
        }
        if (st == KCBP_OK) {
            skip_ws(sr);
            ch = src_peek(sr);
            if (ch >= 0)
                st = ch >= 0x80 ? bad_byte(sr) : syntax_error(sr);
            else if (sr->failed)
                st = sr->status;
        }
        if (st == KCBP_OK && !objects)
            st = perr(c, KCBP_ERR_PARSE, "objects", "missing");
    }
    arena_free(&a);
    free(p.sb);
    if (st == KCBP_OK && (uint64_t)s->nobjects * s->frames > KCBP_SCENE_MAX_OBJECT_FRAMES)
        st = perr(c, KCBP_ERR_LIMIT, "motion.frames", "%u objects in %u frames, more than the limit of %llu object-frames",
                  s->nobjects, s->frames, (unsigned long long)KCBP_SCENE_MAX_OBJECT_FRAMES);
    if (st == KCBP_OK && s->moving)
        st = kcbp_scene_check_motion(s, sr->err);
    if (st == KCBP_OK)
        st = kcbp_scene_assign_models(s, sr->err);
    return st;
}

kcbp_status kcbp_scene_parse_into_limit(kcbp_scene *s, const char *name, const char *dir, const char *text, size_t len,
                                        uint32_t max_objects, kcbp_error *err)
{
    kcbp_status st = kcbp_scene_init(s, name, dir, err);
    if (st != KCBP_OK)
        return st;
    src sr = {.name = name, .err = err, .data = text, .len = len, .eof = true, .total = len, .line = 1, .col = 1, .ccol = 1};
    if (memchr(text, '\0', len))
        st = kcbp_scene_error(err, name, KCBP_ERR_PARSE, NULL, "NUL byte: not a JSON text file");
    else if (len > KCBP_SCENE_MAX_FILE_BYTES)
        st = kcbp_error_set(err, KCBP_ERR_LIMIT, "%s: larger than the limit of 16 GiB", name);
    else
        st = parse_document(&sr, s, max_objects);
    kcbp_numparse_done(&sr.np);
    if (st != KCBP_OK)
        kcbp_scene_clear(s);
    return st;
}

kcbp_status kcbp_scene_parse_into(kcbp_scene *s, const char *name, const char *dir, const char *text, size_t len,
                                  kcbp_error *err)
{
    return kcbp_scene_parse_into_limit(s, name, dir, text, len, KCBP_SCENE_MAX_OBJECTS, err);
}

kcbp_status kcbp_scene_parse_stream_into(kcbp_scene *s, const char *name, const char *dir, kcbp_input *in,
                                         kcbp_error *err)
{
    kcbp_status st = kcbp_scene_init(s, name, dir, err);
    if (st != KCBP_OK)
        return st;
    src sr = {.name = name, .err = err, .in = in, .line = 1, .col = 1, .ccol = 1};
    if (in->regular && (uint64_t)in->size > KCBP_SCENE_MAX_FILE_BYTES)
        st = kcbp_error_set(err, KCBP_ERR_LIMIT, "%s: larger than the limit of 16 GiB", name);
    else if (!(sr.buf = malloc(SRC_CHUNK + SRC_LOOKAHEAD)))
        st = kcbp_scene_error(err, name, KCBP_ERR_NOMEM, NULL, "out of memory");
    else
        st = parse_document(&sr, s, KCBP_SCENE_MAX_OBJECTS);
    free(sr.buf);
    kcbp_numparse_done(&sr.np);
    if (st != KCBP_OK)
        kcbp_scene_clear(s);
    return st;
}

kcbp_status kcbp_scene_parse(const char *name, const char *dir, const char *text, size_t len, kcbp_scene **out,
                             kcbp_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
    kcbp_status st = kcbp_scene_parse_into(*out, name, dir, text, len, err);
    if (st != KCBP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

/* ---- writing ------------------------------------------------------------ */

/* A number that reads back as exactly the same double: cJSON prints 15
 * significant digits whenever they come within an epsilon of the value, which
 * is not exact. The shortest of 15, 16, 17 digits that reads back exactly is
 * written (17 always does), with '.' whatever the locale. */
static cJSON *exact_number(double v)
{
    char buf[64];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    char point = localeconv()->decimal_point[0];
    for (char *p = buf; *p; p++)
        if (*p == point && point != '.')
            *p = '.';
    return cJSON_CreateRaw(buf);
}

static bool add_exact(cJSON *parent, const char *key, double v)
{
    cJSON *n = exact_number(v);
    bool ok = n && (key ? cJSON_AddItemToObject(parent, key, n) : cJSON_AddItemToArray(parent, n));
    if (!ok)
        cJSON_Delete(n);
    return ok;
}

static bool add_vec3(cJSON *obj, const char *key, kcbp_vec3 v)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    return arr && add_exact(arr, NULL, v.x) && add_exact(arr, NULL, v.y) && add_exact(arr, NULL, v.z);
}

static bool add_axis_angle(cJSON *obj, const char *key, kcbp_vec3 axis, const char *angle_key, double angle)
{
    cJSON *r = cJSON_AddObjectToObject(obj, key);
    return r && add_vec3(r, "axis", axis) && add_exact(r, angle_key, angle);
}

/* An object's rotation as read: its axis and angle when they give rot0 to
 * the bit (always, for a rotation written so), else rot0 as a matrix (a
 * quaternion or a matrix read), which reads back to the same rot0. */
static bool add_rotation(cJSON *obj, const kcbp_scene_obj *o)
{
    kcbp_pose p;
    if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &p, NULL) == KCBP_OK &&
        !memcmp(&p.rot, &o->rot0, sizeof p.rot))
        return add_axis_angle(obj, "rotation", o->axis, "angle_deg", o->angle_deg);
    cJSON *r = cJSON_AddObjectToObject(obj, "rotation");
    cJSON *m = r ? cJSON_AddArrayToObject(r, "matrix") : NULL;
    bool ok = m != NULL;
    for (int i = 0; ok && i < 3; i++) {
        cJSON *row = cJSON_CreateArray();
        ok = row && cJSON_AddItemToArray(m, row);
        if (!ok) {
            cJSON_Delete(row);
            break;
        }
        for (int k = 0; ok && k < 3; k++)
            ok = add_exact(row, NULL, o->rot0.m[i][k]);
    }
    return ok;
}

/* "shape": {"capsule": {"radius": R, "length": L}}, as read. */
static bool add_shape(cJSON *obj, const char *marked)
{
    kcbp_shape sh = kcbp_scene_shape_of(marked);
    cJSON *j = cJSON_AddObjectToObject(obj, "shape");
    cJSON *k = j ? cJSON_AddObjectToObject(j, kcbp_shape_kind_name(sh.kind)) : NULL;
    if (!k)
        return false;
    switch (sh.kind) {
    case KCBP_SHAPE_SPHERE: return add_exact(k, "radius", sh.radius);
    case KCBP_SHAPE_CAPSULE: return add_exact(k, "radius", sh.radius) && add_exact(k, "length", sh.length);
    case KCBP_SHAPE_CYLINDER: return add_exact(k, "radius", sh.radius) && add_exact(k, "height", sh.length);
    case KCBP_SHAPE_BOX: return add_vec3(k, "size", sh.size);
    default: return false;
    }
}

/* Object o as JSON (NULL when memory runs out). */
static cJSON *object_to_json(const kcbp_scene_obj *o)
{
    cJSON *j = cJSON_CreateObject();
    bool ok = j && kcbp_json_add_string(j, "name", o->name) &&
              (kcbp_scene_is_shape_string(o->mesh) ? add_shape(j, o->mesh) : kcbp_json_add_string(j, "mesh", o->mesh) != NULL) &&
              add_vec3(j, "position", o->position) && add_rotation(j, o) && add_exact(j, "scale", o->scale);
    if (ok && !is_zero3(o->velocity))
        ok = add_vec3(j, "velocity", o->velocity);
    if (ok && o->spin_deg_per_s != 0)
        ok = add_axis_angle(j, "angular_velocity", o->spin_axis, "deg_per_s", o->spin_deg_per_s);
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static bool add_motion(cJSON *doc, const kcbp_scene *s)
{
    cJSON *m = cJSON_AddObjectToObject(doc, "motion");
    return m && cJSON_AddNumberToObject(m, "frames", s->frames) && add_exact(m, "dt", s->dt);
}

static cJSON *scene_to_json(const kcbp_scene *s)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *objs = doc ? cJSON_AddArrayToObject(doc, "objects") : NULL;
    bool ok = objs != NULL;
    for (uint32_t i = 0; ok && i < s->nobjects; i++) {
        cJSON *j = object_to_json(&s->objects[i]);
        ok = j && cJSON_AddItemToArray(objs, j);
        if (!ok)
            cJSON_Delete(j);
    }
    if (ok && s->moving)
        ok = add_motion(doc, s);
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* The one-line text of kcbp_scene_to_text, object by object: the same
 * bytes (cJSON's unformatted print of a document is its items' prints
 * joined), without the whole document's tree and text (12 bytes of memory
 * per byte of text: a scene of 10^6 objects, 171 MB of text, took 2 GB). */
static bool write_unformatted(const kcbp_scene *s, FILE *out)
{
    bool ok = fputs("{\"objects\":[", out) >= 0;
    for (uint32_t i = 0; ok && i < s->nobjects; i++) {
        cJSON *j = object_to_json(&s->objects[i]);
        char *t = j ? cJSON_PrintUnformatted(j) : NULL;
        ok = t && (i == 0 || fputc(',', out) != EOF) && fputs(t, out) >= 0;
        cJSON_free(t);
        cJSON_Delete(j);
    }
    ok = ok && fputc(']', out) != EOF;
    if (ok && s->moving) {
        /* "motion" printed alone is {"motion":{...}}: its inside follows the comma */
        cJSON *doc = cJSON_CreateObject();
        char *t = doc && add_motion(doc, s) ? cJSON_PrintUnformatted(doc) : NULL;
        ok = t && fputc(',', out) != EOF && fputs(t + 1, out) >= 0;
        cJSON_free(t);
        cJSON_Delete(doc);
    } else if (ok) {
        ok = fputc('}', out) != EOF;
    }
    return ok && fputc('\n', out) != EOF;
}

kcbp_status kcbp_scene_to_text(const kcbp_scene *s, bool pretty, char **text, kcbp_error *err)
{
    *text = NULL;
    cJSON *doc = scene_to_json(s);
    char *t = doc ? (pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc)) : NULL;
    cJSON_Delete(doc);
    /* cJSON's own allocator may not be malloc: hand out a malloc'ed copy. */
    *text = t ? kcbp_strdup(t) : NULL;
    cJSON_free(t);
    if (!*text)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the scene's JSON", s->name);
    return KCBP_OK;
}

kcbp_status kcbp_scene_write(const kcbp_scene *s, FILE *out, bool pretty, kcbp_error *err)
{
    if (!pretty) {
        if (!write_unformatted(s, out))
            return kcbp_error_set(err, ferror(out) ? KCBP_ERR_IO : KCBP_ERR_NOMEM, "%s: cannot write the scene%s",
                                  s->name, ferror(out) ? "" : " (out of memory)");
        return KCBP_OK;
    }
    char *text;
    kcbp_status st = kcbp_scene_to_text(s, pretty, &text, err);
    if (st != KCBP_OK)
        return st;
    bool ok = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    free(text);
    if (!ok)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot write the scene", s->name);
    return KCBP_OK;
}
