#include "json_line.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kcbp_jl_init(kcbp_jl *w) { memset(w, 0, sizeof *w); }

static bool reserve(kcbp_jl *w, size_t more)
{
    if (w->failed)
        return false;
    if (w->len + more + 1 <= w->cap)
        return true;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->len + more + 1)
        cap *= 2;
    char *grown = realloc(w->buf, cap);
    if (!grown) {
        w->failed = true;
        return false;
    }
    w->buf = grown;
    w->cap = cap;
    return true;
}

static void put(kcbp_jl *w, const char *s, size_t n)
{
    if (!reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

/* A comma before a value or key unless it opens a container or follows a
 * key. */
static void sep(kcbp_jl *w)
{
    char last = w->len ? w->buf[w->len - 1] : '{';
    if (last != '{' && last != '[' && last != ':')
        put(w, ",", 1);
}

void kcbp_jl_open(kcbp_jl *w, char c)
{
    if (w->len)
        sep(w);
    put(w, &c, 1);
}

void kcbp_jl_close(kcbp_jl *w, char c) { put(w, &c, 1); }

void kcbp_jl_string(kcbp_jl *w, const char *s)
{
    sep(w);
    put(w, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\')
            esc[0] = '\\', esc[1] = (char)c, put(w, esc, 2);
        else if (c < 0x20)
            put(w, esc, (size_t)snprintf(esc, sizeof esc, "\\u%04x", c));
        else
            put(w, s, 1);
    }
    put(w, "\"", 1);
}

void kcbp_jl_key(kcbp_jl *w, const char *key)
{
    kcbp_jl_string(w, key);
    put(w, ":", 1);
}

void kcbp_jl_bool(kcbp_jl *w, bool v)
{
    sep(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void kcbp_jl_null(kcbp_jl *w)
{
    sep(w);
    put(w, "null", 4);
}

static int format_uint(char *buf, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

void kcbp_jl_uint(kcbp_jl *w, uint64_t v)
{
    char buf[32];
    sep(w);
    put(w, buf, (size_t)format_uint(buf, v));
}

int kcbp_format_double(char buf[32], double v)
{
    if (!isfinite(v))
        return (int)(memcpy(buf, "null", 5), 4);
    if (v == 0)
        return (int)(memcpy(buf, "0", 2), 1);
    if (fabs(v) < 0x1p53 && v == (double)(int64_t)v) {
        if (v > 0)
            return format_uint(buf, (uint64_t)v);
        buf[0] = '-';
        return 1 + format_uint(buf + 1, (uint64_t)-v);
    }
    int n = 0;
    for (int digits = 15; digits <= 17; digits++) {
        n = snprintf(buf, 32, "%.*g", digits, v);
        if (digits == 17 || strtod(buf, NULL) == v)
            break;
    }
    return n;
}

void kcbp_jl_double(kcbp_jl *w, double v)
{
    char buf[32];
    sep(w);
    put(w, buf, (size_t)kcbp_format_double(buf, v));
}

char *kcbp_jl_finish(kcbp_jl *w)
{
    if (w->failed || !reserve(w, 0)) {
        free(w->buf);
        kcbp_jl_init(w);
        return NULL;
    }
    w->buf[w->len] = '\0';
    char *line = w->buf;
    kcbp_jl_init(w);
    return line;
}
