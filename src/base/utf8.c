#include "utf8.h"

#include <stdlib.h>
#include <string.h>

size_t kcbp_utf8_seq(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

char *kcbp_utf8_sanitize(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s), bad = 0;
    for (size_t i = 0; i < len;) {
        size_t n = kcbp_utf8_seq(u + i, len - i);
        bad += n == 0;
        i += n ? n : 1;
    }
    char *out = malloc(len + 2 * bad + 1); /* a bad byte grows to 3 */
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = kcbp_utf8_seq(u + i, len - i);
        if (n == 0) {
            memcpy(out + o, "\xEF\xBF\xBD", 3); /* U+FFFD */
            o += 3;
            i++;
        } else {
            memcpy(out + o, s + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
    return out;
}

cJSON *kcbp_json_add_string(cJSON *object, const char *key, const char *s)
{
    char *valid = kcbp_utf8_sanitize(s);
    cJSON *item = valid ? cJSON_AddStringToObject(object, key, valid) : NULL;
    free(valid);
    return item;
}
