#include <kcbp/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

kcbp_status kcbp_error_set(kcbp_error *err, kcbp_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void kcbp_error_prefix(kcbp_error *err, const char *prefix)
{
    if (!err)
        return;
    char tmp[KCBP_ERROR_MSG_MAX];
    memcpy(tmp, err->msg, sizeof tmp);
    /* Truncation is acceptable: the message is for people. */
    int n = snprintf(err->msg, sizeof err->msg, "%s: ", prefix);
    if (n > 0 && (size_t)n < sizeof err->msg)
        snprintf(err->msg + n, sizeof err->msg - (size_t)n, "%.*s", (int)(sizeof err->msg - (size_t)n - 1), tmp);
}

const char *kcbp_status_name(kcbp_status code)
{
    switch (code) {
    case KCBP_OK: return "ok";
    case KCBP_ERR_IO: return "io";
    case KCBP_ERR_PARSE: return "parse";
    case KCBP_ERR_INVALID: return "invalid";
    case KCBP_ERR_NOMEM: return "nomem";
    case KCBP_ERR_LIMIT: return "limit";
    case KCBP_ERR_GEOMETRY: return "geometry";
    case KCBP_ERR_FLAT: return "flat";
    }
    return "unknown";
}
