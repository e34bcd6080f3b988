/* The model cache's internals that scene.c uses (internal: not installed). */
#ifndef KCBP_MODEL_CACHE_H
#define KCBP_MODEL_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/scene.h>

typedef struct {
    uint64_t dev, ino;
    int64_t size, mtime_s, mtime_ns;
    double scale;
    int k, dirs, k_fine;
    bool solid;
} kcbp_model_key;

/* The key of the model of the file at path: false when the file cannot be
 * stat'ed or is not a regular file (then it is not cached). */
bool kcbp_model_key_of(const char *path, double scale, const kcbp_model_options *opts, kcbp_model_key *key);
/* A shallow copy of the cached model in *out and a handle to release it, or
 * NULL when the cache does not hold it. */
void *kcbp_model_cache_borrow(kcbp_model_cache *cache, const kcbp_model_key *key, kcbp_model *out);
/* Gives the freshly built *model to the cache and borrows it back (*model
 * may be replaced by an equal model another thread cached first). Returns
 * the handle, or NULL when the cache could not take it (the caller then
 * keeps *model as its own). */
void *kcbp_model_cache_lend(kcbp_model_cache *cache, const kcbp_model_key *key, kcbp_model *model);
void kcbp_model_cache_release(kcbp_model_cache *cache, void *handle);

#endif
