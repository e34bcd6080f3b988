#include "json_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/text.h>
#include "json_line.h"

void kcbp_js_init(kcbp_js *w, kcbp_js_write_fn write, void *ctx, bool pretty, size_t hold)
{
    memset(w, 0, sizeof *w);
    w->write = write;
    w->ctx = ctx;
    w->pretty = pretty;
    w->hold = hold;
}

void kcbp_js_free(kcbp_js *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

void kcbp_js_restart(kcbp_js *w)
{
    w->depth = 0;
    w->count[0] = 0;
    w->after_key = false;
}

/* w->tail for what is held now (kcbp_js_write_fn). */
static void make_tail(kcbp_js *w)
{
    char *t = w->tail;
    size_t n = 0;
    if (w->depth == 0) {
        if (w->len && w->buf[w->len - 1] != '\n')
            t[n++] = '\n';
        t[n] = '\0';
        return;
    }
    if (w->after_key) {
        memcpy(t + n, "null", 4);
        n += 4;
    }
    for (int d = w->depth; d >= 1; d--) {
        if (d == 1 && w->type[1] == '{') {
            static const char mark[] = "\"interrupted\":true";
            if (w->count[1] > 0)
                t[n++] = ',';
            memcpy(t + n, mark, sizeof mark - 1);
            n += sizeof mark - 1;
        }
        t[n++] = w->type[d] == '{' ? '}' : ']';
    }
    t[n++] = '\n';
    t[n] = '\0';
}

bool kcbp_js_flush(kcbp_js *w)
{
    if (w->len && !w->failed && w->write) {
        make_tail(w);
        w->failed = !w->write(w->ctx, w->buf, w->len, w->tail);
        w->flushed = true;
    }
    if (w->write)
        w->len = 0;
    return !w->failed && !w->nomem;
}

char *kcbp_js_take(kcbp_js *w, size_t *len)
{
    char *p = w->nomem ? NULL : w->buf;
    if (p && w->len + 1 > w->cap) {
        char *g = realloc(p, w->len + 1);
        if (!g)
            free(p);
        p = g;
    }
    if (p)
        p[w->len] = '\0';
    else
        free(w->buf);
    if (len)
        *len = p ? w->len : 0;
    w->buf = NULL;
    w->len = w->cap = 0;
    w->nomem = false;
    return p;
}

static void put_grow(kcbp_js *w, const char *s, size_t n)
{
    if (w->nomem || w->failed)
        return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n)
            cap *= 2;
        char *g = realloc(w->buf, cap);
        if (!g) {
            w->nomem = true;
            return;
        }
        w->buf = g;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* The usual case, a few bytes with room for them, inline without a call
 * to memcpy: a scene frame's pairs are mostly such puts. */
static inline void put(kcbp_js *w, const char *s, size_t n)
{
    if (n <= 8 && w->len + n <= w->cap && !w->nomem && !w->failed) {
        char *d = w->buf + w->len;
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
        w->len += n;
        return;
    }
    put_grow(w, s, n);
}

void kcbp_js_raw(kcbp_js *w, const char *p, size_t n)
{
    put(w, p, n);
    if (w->depth == 0 && w->len >= w->hold)
        kcbp_js_flush(w);
}

static void newline(kcbp_js *w)
{
    static const char spaces[] = "                                ";
    put(w, "\n", 1);
    int n = 2 * w->depth;
    while (n > 0) {
        int k = n < 32 ? n : 32;
        put(w, spaces, (size_t)k);
        n -= k;
    }
}

/* Before a value or a key: a comma and, pretty, a new line. */
static void begin(kcbp_js *w)
{
    /* the only place, with kcbp_js_raw, where held bytes are handed on:
     * between values of the outer two levels (kcbp_js_write_fn) */
    if (!w->after_key && w->depth <= 2 && w->len >= w->hold)
        kcbp_js_flush(w);
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->count[w->depth]++ > 0)
        put(w, ",", 1);
    if (w->pretty && w->depth > 0)
        newline(w);
}

void kcbp_js_open(kcbp_js *w, char c)
{
    begin(w);
    put(w, &c, 1);
    if (w->depth < KCBP_JS_MAX_DEPTH)
        w->depth++;
    w->count[w->depth] = 0;
    w->type[w->depth] = c;
}

void kcbp_js_close(kcbp_js *w, char c)
{
    bool any = w->count[w->depth] > 0;
    if (w->depth > 0)
        w->depth--;
    if (w->pretty && any)
        newline(w);
    put(w, &c, 1);
}

static void quoted(kcbp_js *w, const char *s)
{
    /* Bytes that are not UTF-8 become U+FFFD (kcbp_utf8_sanitize), so that
     * every byte from 0x80 on below is part of a valid sequence. */
    char *clean = NULL;
    const unsigned char *q = (const unsigned char *)s;
    while (*q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
        q++;
    if (!*q) { /* plain bytes only (names, keys): at once */
        size_t n = (size_t)(q - (const unsigned char *)s);
        put(w, "\"", 1);
        put(w, s, n);
        put(w, "\"", 1);
        return;
    }
    for (; *q; q++)
        if (*q >= 0x80) {
            clean = kcbp_utf8_sanitize(s);
            s = clean ? clean : "\xEF\xBF\xBD";
            break;
        }
    put(w, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    while (left > 0) {
        /* a run of plain bytes at once */
        size_t run = 0;
        while (run < left && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
            run++;
        if (run) {
            put(w, (const char *)p, run);
            p += run;
            left -= run;
            continue;
        }
        unsigned char c = *p;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            put(w, esc, 2);
            p++, left--;
        } else if (c < 0x20) {
            put(w, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", c));
            p++, left--;
        } else {
            put(w, (const char *)p, 1);
            p++, left--;
        }
    }
    put(w, "\"", 1);
    free(clean);
}

void kcbp_js_key(kcbp_js *w, const char *key)
{
    begin(w);
    quoted(w, key);
    put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    w->after_key = true;
}

void kcbp_js_string(kcbp_js *w, const char *s)
{
    begin(w);
    quoted(w, s);
}

void kcbp_js_uint(kcbp_js *w, uint64_t v)
{
    char tmp[24], buf[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    begin(w);
    put(w, buf, (size_t)n);
}

void kcbp_js_double(kcbp_js *w, double v)
{
    char buf[32];
    int n = kcbp_format_double(buf, v);
    begin(w);
    put(w, buf, (size_t)n);
}

void kcbp_js_bool(kcbp_js *w, bool v)
{
    begin(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void kcbp_js_null(kcbp_js *w)
{
    begin(w);
    put(w, "null", 4);
}
