#include "numparse.h"

#include <string.h>

#include <kcbp/text.h>

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_digit(char c) { return c >= '0' && c <= '9'; }

kcbp_num_result kcbp_parse_double(kcbp_numparse *np, const char *s, const char *end, const char **stop,
                                  double *out)
{
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-'))
        neg = (*p++ == '-');
    /* Words: nan, inf, infinity (any case) are syntactically numbers but not
     * acceptable values; say so rather than "malformed". */
    if (p < end && (*p == 'n' || *p == 'N' || *p == 'i' || *p == 'I')) {
        size_t n = (size_t)(end - p);
        if ((n >= 3 && strncasecmp(p, "nan", 3) == 0) || (n >= 3 && strncasecmp(p, "inf", 3) == 0))
            return KCBP_NUM_NONFINITE;
        return KCBP_NUM_MALFORMED;
    }
    uint64_t mant = 0;
    int ndigits = 0, exp10 = 0, any = 0, overflow = 0;
    while (p < end && is_digit(*p)) {
        any = 1;
        if (mant == 0 && *p == '0') { /* leading zeros carry no precision */
            p++;
            continue;
        }
        if (ndigits < 19) {
            mant = mant * 10 + (uint64_t)(*p - '0');
            ndigits++;
        } else {
            overflow = 1;
            exp10++;
        }
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && is_digit(*p)) {
            any = 1;
            if (mant == 0 && *p == '0') {
                exp10--;
            } else if (ndigits < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                ndigits++;
                exp10--;
            } else {
                overflow = 1;
            }
            p++;
        }
    }
    if (!any)
        return KCBP_NUM_MALFORMED;
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0;
        if (q < end && (*q == '+' || *q == '-'))
            eneg = (*q++ == '-');
        if (q >= end || !is_digit(*q))
            return KCBP_NUM_MALFORMED;
        long e = 0;
        while (q < end && is_digit(*q)) {
            if (e < 100000)
                e = e * 10 + (*q - '0');
            q++;
        }
        exp10 += (int)(eneg ? -e : e);
        p = q;
    }
    double v;
    if (mant == 0) {
        v = 0.0;
    } else if (!overflow && mant <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
        v = (double)mant;
        v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
    } else {
        /* Slow, exact path: strtod in the C locale on a private copy. */
        size_t len = (size_t)(p - s);
        char buf[512];
        char *tmp = len < sizeof buf ? buf : malloc(len + 1);
        if (!tmp)
            return KCBP_NUM_MALFORMED;
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        if (!np->c_locale)
            np->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
        v = np->c_locale ? strtod_l(tmp, NULL, np->c_locale) : strtod(tmp, NULL);
        if (tmp != buf)
            free(tmp);
        neg = 0; /* strtod saw the sign */
    }
    if (!isfinite(v))
        return KCBP_NUM_NONFINITE;
    *out = neg ? -v : v;
    *stop = p;
    return KCBP_NUM_OK;
}

void kcbp_numparse_done(kcbp_numparse *np)
{
    if (np->c_locale)
        freelocale(np->c_locale);
    np->c_locale = (locale_t)0;
}

/* ---- kcbp_parse_number (include/kcbp/text.h) ---------------------------- */

bool kcbp_parse_number(const char *text, double *value)
{
    kcbp_numparse np = {0};
    const char *end = text + strlen(text), *stop = text;
    double v = 0;
    kcbp_num_result r = *text ? kcbp_parse_double(&np, text, end, &stop, &v) : KCBP_NUM_MALFORMED;
    kcbp_numparse_done(&np);
    if (r != KCBP_NUM_OK || stop != end)
        return false;
    *value = v;
    return true;
}
