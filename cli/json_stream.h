/* A JSON document written as it is made (kcbp scene's frame reports): a
 * fixed buffer handed to a write function whenever it holds more than
 * `hold` bytes, so that a frame of millions of colliding pairs is printed
 * in constant memory, and a small frame is written at once, whole (an
 * error before the first flush leaves nothing printed). Strings are escaped
 * and made valid UTF-8 (a byte that starts no valid sequence becomes
 * U+FFFD); doubles are written as kcbp_format_double writes them (the
 * shortest form that reads back exactly); pretty: two spaces per level, a
 * line per member. */
#ifndef KCBP_JSON_STREAM_H
#define KCBP_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KCBP_JS_MAX_DEPTH 16

/* Writes n bytes; false when it could not (the writer then fails). tail:
 * what would end the document as valid JSON if nothing more came ("" when
 * the bytes end a line; otherwise the open containers closed, the frame's
 * object given "interrupted":true, and a newline), for whoever has to end
 * the line early (a signal, interrupt.h). The writer hands bytes on only
 * between the values of the outer two levels (a frame's members, the pairs
 * of its array) or between lines, so that a tail never ends a value
 * halfway. */
typedef bool (*kcbp_js_write_fn)(void *ctx, const char *p, size_t n, const char *tail);

typedef struct {
    kcbp_js_write_fn write;
    void *ctx;
    char *buf;
    size_t len, cap, hold;
    bool flushed;  /* bytes were handed to write already */
    bool failed;   /* write failed */
    bool nomem;    /* memory ran out */
    bool pretty;
    int depth;
    uint64_t count[KCBP_JS_MAX_DEPTH + 1]; /* values in each open container */
    bool after_key;
    char type[KCBP_JS_MAX_DEPTH + 1]; /* '{' or '[': each open container */
    char tail[64];                   /* see kcbp_js_write_fn */
} kcbp_js;

/* hold: bytes kept before they are written (SIZE_MAX: all, until
 * kcbp_js_flush or kcbp_js_take). */
void kcbp_js_init(kcbp_js *w, kcbp_js_write_fn write, void *ctx, bool pretty, size_t hold);
void kcbp_js_free(kcbp_js *w);
/* '{' or '['; '}' or ']'. */
void kcbp_js_open(kcbp_js *w, char c);
void kcbp_js_close(kcbp_js *w, char c);
void kcbp_js_key(kcbp_js *w, const char *key);
void kcbp_js_string(kcbp_js *w, const char *s);
void kcbp_js_uint(kcbp_js *w, uint64_t v);
void kcbp_js_double(kcbp_js *w, double v);
void kcbp_js_bool(kcbp_js *w, bool v);
void kcbp_js_null(kcbp_js *w);
/* Raw bytes (a newline ending a line). */
void kcbp_js_raw(kcbp_js *w, const char *p, size_t n);
/* Hands what is held to write; false when the writer failed. */
bool kcbp_js_flush(kcbp_js *w);
/* What is held, NUL-terminated, taken out (the caller frees it; NULL when
 * memory ran out); the writer is empty again. */
char *kcbp_js_take(kcbp_js *w, size_t *len);
/* Resets the structure (depth, commas) for a new document; keeps the
 * buffer and what it holds. */
void kcbp_js_restart(kcbp_js *w);

#endif
