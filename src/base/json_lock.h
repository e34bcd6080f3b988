/* cJSON's parser, serialised (internal: not installed).
 *
 * cJSON 1.7's cJSON_ParseWithLengthOpts writes a global error variable on
 * every call, return_parse_end or not, so concurrent parses (kcbp batch
 * --jobs reading scene files and glTF meshes at once) would race on it. Every
 * parse in the library goes through this one lock: it protects cJSON, not
 * kcbp, and is the library's only shared state. */
#ifndef KCBP_JSON_LOCK_H
#define KCBP_JSON_LOCK_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* cJSON_ParseWithLengthOpts(text, size, end, 1) under the lock: text[size -
 * 1] must be the NUL that ends it. On failure *end points where parsing
 * stopped. */
cJSON *kcbp_json_parse_locked(const char *text, size_t size, const char **end);

#endif
