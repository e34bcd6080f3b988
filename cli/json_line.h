/* A JSON line written straight into a growing buffer, for reports printed
 * once per query (kcbp collide --poses): no tree, every number formatted
 * once. Keys and strings are the program's own ASCII names (escaped all the
 * same). A failed allocation is remembered and reported by kcbp_jl_finish. */
#ifndef KCBP_JSON_LINE_H
#define KCBP_JSON_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *buf;
    size_t len, cap;
    bool failed;
} kcbp_jl;

/* Starts an empty line (no allocation until the first write). */
void kcbp_jl_init(kcbp_jl *w);
/* '{' or '[' (after a comma when a value precedes it), '}' or ']'. */
void kcbp_jl_open(kcbp_jl *w, char c);
void kcbp_jl_close(kcbp_jl *w, char c);
/* "key": in the current object (a comma first when needed). */
void kcbp_jl_key(kcbp_jl *w, const char *key);
/* Values, after a key or as array elements. */
void kcbp_jl_bool(kcbp_jl *w, bool v);
void kcbp_jl_null(kcbp_jl *w);
void kcbp_jl_uint(kcbp_jl *w, uint64_t v);
void kcbp_jl_double(kcbp_jl *w, double v);
void kcbp_jl_string(kcbp_jl *w, const char *s);
/* The line (NUL-terminated, malloc'ed, no newline), or NULL when memory
 * ran out (the buffer is freed either way). */
char *kcbp_jl_finish(kcbp_jl *w);

/* The shortest of %.15g, %.16g, %.17g that reads back as v (%.17g always
 * does), "null" for NaN and infinities (JSON has no such numbers), integers
 * below 2^53 without exponent or point. buf holds at least 32 bytes;
 * returns the length. */
int kcbp_format_double(char buf[32], double v);

#endif
