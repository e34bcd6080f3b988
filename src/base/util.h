/* Small helpers shared by the library's sources (internal: not installed).
 *
 * KCBP_ASSERT(cond) checks an invariant that a header states. It compiles to
 * nothing unless the build defines KCBP_ENABLE_ASSERTS (the sanitizer, fuzz
 * and stress builds do: see the Makefile); a failed check aborts with the
 * file, line and condition, since a broken invariant is a bug in kcbp, not
 * an input error. */
#ifndef KCBP_UTIL_H
#define KCBP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/error.h>

#ifdef KCBP_ENABLE_ASSERTS
void kcbp_assert_fail(const char *cond, const char *file, int line);
#define KCBP_ASSERT(cond) ((cond) ? (void)0 : kcbp_assert_fail(#cond, __FILE__, __LINE__))
#else
#define KCBP_ASSERT(cond) ((void)0)
#endif

/* Monotonic wall-clock time in milliseconds, for the timings reports give. */
static inline double kcbp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A malloc'ed copy of s, or NULL when memory ran out. */
static inline char *kcbp_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Makes room for `need` elements of `size` bytes in the growable array *p of
 * capacity *cap (elements), doubling from `first`; *p and *cap are left as
 * they were when memory runs out or the size would overflow. Returns false
 * then. The one growth policy of the library's arrays. */
static inline bool kcbp_grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : first;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return false;
        c *= 2;
    }
    if (c > SIZE_MAX / size)
        return false;
    void *grown = realloc(*(void **)p, c * size);
    if (!grown)
        return false;
    *(void **)p = grown;
    *cap = c;
    return true;
}

/* A growable options struct (docs/library.md, "Versions"): the caller's
 * struct `in`, whose first member is its uint32_t size, copied over `out`
 * (out_size bytes, holding the defaults) within that size, and out's size
 * member set to out_size. KCBP_ERR_INVALID, "WHAT: options of size N, not
 * made by MAKER", when the caller's size is below v1_size, the struct's
 * first release. */
kcbp_status kcbp_options_copy_in(void *out, size_t out_size, const void *in, size_t v1_size, const char *what,
                                 const char *maker, kcbp_error *err);

#endif
