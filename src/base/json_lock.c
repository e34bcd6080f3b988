/* The one lock around cJSON's parser (json_lock.h). */
#include "json_lock.h"

#include <pthread.h>

static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

cJSON *kcbp_json_parse_locked(const char *text, size_t size, const char **end)
{
    pthread_mutex_lock(&cjson_parse_lock);
    cJSON *doc = cJSON_ParseWithLengthOpts(text, size, end, 1);
    pthread_mutex_unlock(&cjson_parse_lock);
    return doc;
}
