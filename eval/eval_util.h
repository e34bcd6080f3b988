/* Small helpers of the evaluation unit (eval/), which stands on the public
 * API only. */
#ifndef KCBP_EVAL_UTIL_H
#define KCBP_EVAL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Monotonic wall-clock time in milliseconds, for the build and pair times
 * the evaluation reports. */
static inline double eval_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Room for need elements of size bytes in the array *p of *cap elements
 * (grown to need or twice *cap, whichever is larger); false when memory or
 * the size runs out, with *p and *cap unchanged. */
static inline bool eval_reserve(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = need > 2 * *cap ? need : 2 * *cap;
    if (c > SIZE_MAX / size)
        return false;
    void *grown = realloc(*(void **)p, c * size);
    if (!grown)
        return false;
    *(void **)p = grown;
    *cap = c;
    return true;
}

#endif
