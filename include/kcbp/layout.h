/* The layout of the public structs, for foreign-function bindings.
 *
 * A binding that does not compile against these headers (Python's ctypes)
 * would otherwise copy the structs' layouts by hand, and silently read the
 * wrong bytes once a struct grows a field. It asks the library instead:
 * kcbp_layout("kcbp_collide_result") gives the struct's size, and
 * kcbp_layout("kcbp_collide_result.cbp.distance") a member's offset and size,
 * as the compiler that built the library laid them out. A name the library
 * does not know (a field that does not exist in this version) returns false:
 * bindings use it to tell which features the library has.
 *
 * Only the members bindings need are listed (src/api/layout.c); adding one is one
 * line there. */
#ifndef KCBP_LAYOUT_H
#define KCBP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* name: "struct" or "struct.member[.member...]". On success sets *offset
 * (0 for a struct) and *size (either pointer may be NULL) and returns true. */
KCBP_API bool kcbp_layout(const char *name, size_t *offset, size_t *size);

#ifdef __cplusplus
}
#endif
#endif
