/* Generated 2D scenes (kcbp2d_scene_generate, scene2d.h): map-like parcels
 * and a nesting sheet, for users and benchmarks. A splitmix64 stream from
 * the seed: the same text everywhere. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene2d_internal.h"

typedef struct {
    char *p;
    size_t len, cap;
    bool nomem;
    kcbp2d_scene_write_fn write; /* NULL: the text is kept whole */
    void *ctx;
    bool write_failed;
} sbuf;

#define GEN_CHUNK ((size_t)1 << 16)

/* Hands the text made so far to the writer (when there is one). */
static void flush(sbuf *b)
{
    if (!b->write || b->nomem || b->write_failed || !b->len)
        return;
    if (!b->write(b->ctx, b->p, b->len))
        b->write_failed = true;
    b->len = 0;
}

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    if (b->nomem || b->write_failed)
        return;
    if (b->write && b->len >= GEN_CHUNK)
        flush(b);
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->nomem = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n + 64;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->nomem = true;
            return;
        }
        b->p = q, b->cap = cap;
    }
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* In [0, 1), on a grid of 2^-20 (short decimal numbers in the text). */
static double uniform(uint64_t *s) { return (double)(next(s) >> 44) / 1048576.0; }

static kcbp_status generate(const char *kind, uint32_t n, uint64_t seed, sbuf *out, kcbp_error *err);

kcbp_status kcbp2d_scene_generate(const char *kind, uint32_t n, uint64_t seed, char **text, kcbp_error *err)
{
    if (!kind || !text)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_generate: NULL argument");
    *text = NULL;
    sbuf b = {0};
    kcbp_status st = generate(kind, n, seed, &b, err);
    if (st == KCBP_OK)
        *text = b.p;
    else
        free(b.p);
    return st;
}

kcbp_status kcbp2d_scene_generate_write(const char *kind, uint32_t n, uint64_t seed, kcbp2d_scene_write_fn write,
                                        void *ctx, kcbp_error *err)
{
    if (!kind || !write)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_generate_write: NULL argument");
    sbuf b = {.write = write, .ctx = ctx};
    kcbp_status st = generate(kind, n, seed, &b, err);
    if (st == KCBP_OK) {
        flush(&b);
        if (b.write_failed)
            st = kcbp_error_set(err, KCBP_ERR_IO, "writing the generated scene failed");
    }
    free(b.p);
    return st;
}

/* The text into b (b->p allocated here; the caller frees it). */
static kcbp_status generate(const char *kind, uint32_t n, uint64_t seed, sbuf *out, kcbp_error *err)
{
    bool parcels = !strcmp(kind, "parcels"), nesting = !strcmp(kind, "nesting");
    if (!parcels && !nesting)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D scene generator: '%s' (expected parcels or nesting)", kind);
    if (n < 1 || n > KCBP2D_SCENE_MAX_OBJECTS)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D scene generator: %u objects (1 to %u)", n,
                              KCBP2D_SCENE_MAX_OBJECTS);
    uint64_t s = seed;
    sbuf b = *out;
    b.p = malloc(GEN_CHUNK), b.len = 0, b.cap = GEN_CHUNK, b.nomem = false, b.write_failed = false;
    if (!b.p)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory");
    put(&b, "{\"extras\": {\"generator\": \"kcbp scene --generate %s\", \"n\": %u, \"seed\": %llu},\n \"objects\": [\n",
        kind, n, (unsigned long long)seed);
    uint32_t side = (uint32_t)ceil(sqrt((double)n));
    double sheet = ceil(sqrt((double)n / 2.0));
    for (uint32_t i = 0; i < n && !b.nomem && !b.write_failed; i++) {
        const char *sep = i + 1 < n ? "," : "";
        if (parcels) {
            uint32_t gx = i % side, gy = i / side;
            if (next(&s) % 4 == 0) /* a whole cell, unturned: touches its whole-cell neighbours edge to edge */
                put(&b, "  {\"name\": \"p%u\", \"shape\": {\"rect\": {\"size\": [1, 1]}}, \"pose\": [%u.5, %u.5, 0]}%s\n",
                    i, gx, gy, sep);
            else {
                double w = 0.6 + 0.5 * uniform(&s), h = 0.6 + 0.5 * uniform(&s), a = 30 * uniform(&s);
                put(&b, "  {\"name\": \"p%u\", \"shape\": {\"rect\": {\"size\": [%.17g, %.17g]}}, \"pose\": [%u.5, %u.5, %.17g]}%s\n",
                    i, w, h, gx, gy, a, sep);
            }
        } else {
            double x = sheet * uniform(&s), y = sheet * uniform(&s), a = 360 * uniform(&s);
            double vx = uniform(&s) - 0.5, vy = uniform(&s) - 0.5, w = 90 * (uniform(&s) - 0.5);
            uint64_t k = next(&s) % 3;
            char shape[128];
            if (k == 0)
                snprintf(shape, sizeof shape, "{\"circle\": {\"radius\": %.17g}}", 0.1 + 0.3 * uniform(&s));
            else if (k == 1) {
                double w0 = 0.2 + 0.5 * uniform(&s), h0 = 0.1 + 0.4 * uniform(&s);
                snprintf(shape, sizeof shape, "{\"rect\": {\"size\": [%.17g, %.17g]}}", w0, h0);
            } else {
                double r0 = 0.05 + 0.15 * uniform(&s), l0 = 0.2 + 0.6 * uniform(&s);
                snprintf(shape, sizeof shape, "{\"capsule2d\": {\"radius\": %.17g, \"length\": %.17g}}", r0, l0);
            }
            put(&b, "  {\"name\": \"part%u\", \"shape\": %s, \"pose\": [%.17g, %.17g, %.17g], \"velocity\": [%.17g, %.17g, %.17g]}%s\n",
                i, shape, x, y, a, vx, vy, w, sep);
        }
    }
    put(&b, " ]%s}", nesting ? ",\n \"motion\": {\"frames\": 10, \"dt\": 0.1}" : "");
    *out = b;
    if (b.nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory");
    return KCBP_OK;
}
