/* The library's version, and the failure path of KCBP_ASSERT (util.h). */
#include <kcbp/base.h>

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

const char *kcbp_version(void) { return KCBP_VERSION_STRING; }

#ifdef KCBP_ENABLE_ASSERTS
/* Only in builds that ask for invariant checks (sanitizer, fuzz, stress): a
 * broken invariant is a bug in kcbp, reported like assert() does. */
void kcbp_assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "kcbp: %s:%d: invariant violated: %s\n", file, line, cond);
    abort();
}
#endif

kcbp_status kcbp_options_copy_in(void *out, size_t out_size, const void *in, size_t v1_size, const char *what,
                                 const char *maker, kcbp_error *err)
{
    uint32_t size;
    memcpy(&size, in, sizeof size);
    if (size < v1_size)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: options of size %u, not made by %s", what, (unsigned)size,
                              maker);
    memcpy(out, in, size < out_size ? size : out_size);
    uint32_t full = (uint32_t)out_size;
    memcpy(out, &full, sizeof full);
    return KCBP_OK;
}
