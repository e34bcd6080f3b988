/* The model cache of kcbp_scene_build_cached (include/kcbp/scene.h).
 *
 * Entries are kept in a plain array searched linearly: a batch uses a few
 * distinct meshes, and a look-up is nothing next to building a model. An
 * entry is lent by shallow copy (a kcbp_model holds only pointers to arrays
 * that are read-only once built), counted in `users`; only entries with no
 * user may be evicted or freed. */
#include <kcbp/scene.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_cache.h"
#include "query/model_internal.h"
#include "base/util.h"

typedef struct {
    kcbp_model_key key;
    kcbp_model model;
    uint64_t bytes;
    uint64_t last_use; /* cache tick of the last look-up or insert */
    uint32_t users;    /* scenes holding it */
} entry;

struct kcbp_model_cache {
    pthread_mutex_t lock;
    entry **entries;
    size_t n, cap;
    uint64_t max_bytes, tick;
    kcbp_model_cache_stats stats;
};

kcbp_status kcbp_model_cache_new(uint64_t max_bytes, kcbp_model_cache **out, kcbp_error *err)
{
    kcbp_model_cache *c = calloc(1, sizeof *c);
    if (!c || pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c);
        *out = NULL;
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a model cache");
    }
    c->max_bytes = max_bytes;
    *out = c;
    return KCBP_OK;
}

void kcbp_model_cache_free(kcbp_model_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        KCBP_ASSERT(c->entries[i]->users == 0); /* every scene freed first */
        kcbp_model_free(&c->entries[i]->model);
        free(c->entries[i]);
    }
    free(c->entries);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

kcbp_model_cache_stats kcbp_model_cache_get_stats(kcbp_model_cache *c)
{
    pthread_mutex_lock(&c->lock);
    kcbp_model_cache_stats s = c->stats;
    pthread_mutex_unlock(&c->lock);
    return s;
}

bool kcbp_model_key_of(const char *path, double scale, const kcbp_model_options *opts, kcbp_model_key *key)
{
    struct stat sb;
    memset(key, 0, sizeof *key);
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return false; /* not cached: the loader gives the error */
    key->dev = (uint64_t)sb.st_dev;
    key->ino = (uint64_t)sb.st_ino;
    key->size = (int64_t)sb.st_size;
    key->mtime_s = (int64_t)sb.st_mtim.tv_sec;
    key->mtime_ns = (int64_t)sb.st_mtim.tv_nsec;
    key->scale = scale;
    key->k = opts->k;
    key->dirs = (int)opts->dirs;
    key->k_fine = opts->k_fine;
    key->solid = opts->solid;
    return true;
}

static bool same_key(const kcbp_model_key *a, const kcbp_model_key *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_s == b->mtime_s &&
           a->mtime_ns == b->mtime_ns && a->scale == b->scale && a->k == b->k && a->dirs == b->dirs &&
           a->k_fine == b->k_fine && a->solid == b->solid;
}

static entry *find(kcbp_model_cache *c, const kcbp_model_key *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (same_key(&c->entries[i]->key, key))
            return c->entries[i];
    return NULL;
}

void *kcbp_model_cache_borrow(kcbp_model_cache *c, const kcbp_model_key *key, kcbp_model *out)
{
    pthread_mutex_lock(&c->lock);
    entry *e = find(c, key);
    if (e) {
        e->users++;
        e->last_use = ++c->tick;
        *out = e->model;
        c->stats.hits++;
    }
    pthread_mutex_unlock(&c->lock);
    return e;
}

static uint64_t model_bytes(const kcbp_model *m) { return kcbp_impl_bytes(m->impl); }

/* Drops unused entries, oldest first, while over the limit. Lock held. */
static void evict(kcbp_model_cache *c)
{
    while (c->max_bytes && c->stats.bytes > c->max_bytes) {
        size_t victim = c->n;
        for (size_t i = 0; i < c->n; i++)
            if (c->entries[i]->users == 0 && (victim == c->n || c->entries[i]->last_use < c->entries[victim]->last_use))
                victim = i;
        if (victim == c->n)
            return; /* everything is in use */
        entry *e = c->entries[victim];
        c->stats.bytes -= e->bytes;
        c->stats.models--;
        c->stats.evicted++;
        kcbp_model_free(&e->model);
        free(e);
        c->entries[victim] = c->entries[--c->n];
    }
}

void *kcbp_model_cache_lend(kcbp_model_cache *c, const kcbp_model_key *key, kcbp_model *model)
{
    pthread_mutex_lock(&c->lock);
    c->stats.misses++;
    entry *e = find(c, key);
    if (e) { /* another thread built it meanwhile: use that one, drop ours */
        kcbp_model_free(model);
        *model = e->model;
    } else if ((e = calloc(1, sizeof *e)) != NULL && kcbp_grow(&c->entries, &c->cap, c->n + 1, sizeof *c->entries, 8)) {
        e->key = *key;
        e->model = *model;
        e->bytes = model_bytes(model);
        c->entries[c->n++] = e;
        c->stats.models++;
        c->stats.bytes += e->bytes;
    } else { /* out of memory for the entry: the scene keeps its own model */
        free(e);
        e = NULL;
    }
    if (e) {
        e->users++;
        e->last_use = ++c->tick;
        evict(c);
    }
    pthread_mutex_unlock(&c->lock);
    return e;
}

void kcbp_model_cache_release(kcbp_model_cache *c, void *handle)
{
    entry *e = handle;
    pthread_mutex_lock(&c->lock);
    KCBP_ASSERT(e->users > 0);
    e->users--;
    evict(c);
    pthread_mutex_unlock(&c->lock);
}
