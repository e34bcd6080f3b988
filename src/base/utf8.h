/* UTF-8 for the JSON the library and the CLI write.
 *
 * JSON text is UTF-8 (RFC 8259), but file names are bytes: a path given on
 * the command line, and echoed in a report, may hold bytes that are not
 * UTF-8. Every string that can carry such bytes goes into JSON through
 * kcbp_json_add_string, which writes each byte that does not start a valid
 * UTF-8 sequence as U+FFFD (the replacement character), so the output is
 * always valid JSON. Scene files, which are read back, must be UTF-8
 * already (src/scene*.c rejects anything else). */
#ifndef KCBP_UTF8_H
#define KCBP_UTF8_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include <kcbp/text.h> /* kcbp_utf8_sanitize */

#ifdef __cplusplus
extern "C" {
#endif

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), 1 to 4, or 0 when the bytes at s
 * (left of them, left >= 1) do not start one. */
size_t kcbp_utf8_seq(const unsigned char *s, size_t left);

/* cJSON_AddStringToObject with s made valid UTF-8 as above: returns the new
 * item, or NULL when memory ran out. */
cJSON *kcbp_json_add_string(cJSON *object, const char *key, const char *s);

#ifdef __cplusplus
}
#endif
#endif
