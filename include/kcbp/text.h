/* Text as kcbp reads and writes it: numbers in its file formats and on its
 * command line, and UTF-8 for the JSON it writes. For programs that read and
 * write the same text as kcbp (the kcbp program is one). */
#ifndef KCBP_TEXT_H
#define KCBP_TEXT_H

#include <stdbool.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether text, whole, is one finite number as kcbp's readers take it:
 * decimal, optional sign, fraction and exponent, independent of the locale
 * (no hex, inf or nan, nothing after it); *value gets it when true. */
KCBP_API bool kcbp_parse_number(const char *text, double *value);

/* A copy of the NUL-terminated s (malloc'ed: free it) in which every byte
 * that does not start a valid UTF-8 sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF) is replaced by U+FFFD, so that a
 * file name, which is bytes, can be written into JSON; NULL when memory
 * runs out. */
KCBP_API char *kcbp_utf8_sanitize(const char *s);

#ifdef __cplusplus
}
#endif
#endif
