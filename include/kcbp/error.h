/* kcbp error reporting.
 *
 * Every library call that can fail returns a kcbp_status and, when given a
 * non-NULL kcbp_error, fills it with a human-readable message. The library
 * never prints and never exits: only the program in cli/ does. */
#ifndef KCBP_ERROR_H
#define KCBP_ERROR_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KCBP_OK = 0,
    KCBP_ERR_IO,       /* a file cannot be opened or read */
    KCBP_ERR_PARSE,    /* malformed input text */
    KCBP_ERR_INVALID,  /* an argument or value outside its domain */
    KCBP_ERR_NOMEM,    /* an allocation failed */
    KCBP_ERR_LIMIT,    /* the input exceeds a documented guard */
    KCBP_ERR_GEOMETRY, /* geometry that cannot be handled (e.g. qhull failed) */
    KCBP_ERR_FLAT,     /* points that do not span 3D where a solid was needed
                          (a convex hull of coplanar points); the k-CBP build
                          handles it itself by thickening, so users rarely see it */
} kcbp_status;

enum { KCBP_ERROR_MSG_MAX = 512 };

typedef struct {
    kcbp_status code;
    char msg[KCBP_ERROR_MSG_MAX];
} kcbp_error;

/* Records code and a printf-style message in err (if not NULL); returns code,
 * so that callers can write `return kcbp_error_set(err, ...)`. */
KCBP_API kcbp_status kcbp_error_set(kcbp_error *err, kcbp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prepends "prefix: " to an already recorded message (for context such as a
 * file name). Does nothing when err is NULL. */
KCBP_API void kcbp_error_prefix(kcbp_error *err, const char *prefix);

KCBP_API const char *kcbp_status_name(kcbp_status code);

#ifdef __cplusplus
}
#endif
#endif
