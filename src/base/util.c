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
