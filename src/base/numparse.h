/* Locale-independent parsing of decimal floating-point numbers (internal).
 *
 * Text formats (OBJ, pose files) always use '.' as the decimal point, so the
 * process locale must not matter. Short numbers take Clinger's exact fast
 * path (W. D. Clinger, "How to read floating point numbers accurately",
 * PLDI 1990: a mantissa below 2^53 times an exact power of ten up to 1e22 is
 * correctly rounded by one IEEE multiplication or division); the rest go to
 * strtod_l in the "C" locale, so every result is correctly rounded. */
#ifndef KCBP_NUMPARSE_H
#define KCBP_NUMPARSE_H

#include <locale.h>

typedef struct {
    locale_t c_locale; /* created on first need; release with kcbp_numparse_done */
} kcbp_numparse;

typedef enum {
    KCBP_NUM_OK = 0,
    KCBP_NUM_MALFORMED, /* not a decimal number */
    KCBP_NUM_NONFINITE, /* nan, inf, or a value that overflows a double */
} kcbp_num_result;

/* Parses one number at s (which must not start with white space) and ends at
 * the first byte of [s, end) that cannot continue it. On success stores the
 * value and sets *stop to that byte. Accepts [+-]digits[.digits][e[+-]digits]
 * and [+-].digits...; "nan"/"inf" words give KCBP_NUM_NONFINITE. */
kcbp_num_result kcbp_parse_double(kcbp_numparse *np, const char *s, const char *end, const char **stop,
                                  double *out);

void kcbp_numparse_done(kcbp_numparse *np);

#endif
