/* Scanning the words of a line of text, for the mesh readers (internal).
 * A line's words are separated by blanks (space, tab, CR, VT, FF); the
 * caller has already cut the line at its newline (and its comment). */
#ifndef KCBP_TEXT_SCAN_H
#define KCBP_TEXT_SCAN_H

#include <stdbool.h>
#include <stddef.h>

static inline bool kcbp_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The next word of [*p, e): its start *w and length *n, with *p moved past
 * it; false (and *p at e) when only blanks are left. */
static inline bool kcbp_next_word(const char **p, const char *e, const char **w, size_t *n)
{
    const char *q = *p;
    while (q < e && kcbp_is_blank(*q))
        q++;
    *p = q;
    if (q >= e)
        return false;
    *w = q;
    while (q < e && !kcbp_is_blank(*q))
        q++;
    *n = (size_t)(q - *w);
    *p = q;
    return true;
}

#endif
