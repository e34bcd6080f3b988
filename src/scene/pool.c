#include "pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct kcbp_pool {
    unsigned nthreads;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    /* the run in progress */
    uint64_t generation; /* counts runs: a thread works once per run */
    uint64_t ntasks, next;
    kcbp_pool_fn fn;
    void *ctx;
    unsigned busy;       /* threads inside the current run */
    bool quit;
};

typedef struct {
    kcbp_pool *pool;
    unsigned index;
} worker_arg;

static void *worker(void *arg)
{
    worker_arg *wa = arg;
    kcbp_pool *p = wa->pool;
    unsigned me = wa->index;
    free(wa);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        p->busy++;
        while (p->next < p->ntasks) {
            uint64_t task = p->next++;
            kcbp_pool_fn fn = p->fn;
            void *ctx = p->ctx;
            pthread_mutex_unlock(&p->lock);
            fn(ctx, task, me);
            pthread_mutex_lock(&p->lock);
        }
        if (--p->busy == 0)
            pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

kcbp_status kcbp_pool_new(unsigned threads, kcbp_pool **out, kcbp_error *err)
{
    kcbp_pool *p = calloc(1, sizeof *p);
    if (!p || (threads && !(p->threads = calloc(threads, sizeof *p->threads)))) {
        free(p);
        *out = NULL;
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u threads", threads);
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (unsigned i = 0; i < threads; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (wa)
            *wa = (worker_arg){p, i};
        if (!wa || pthread_create(&p->threads[i], NULL, worker, wa) != 0) {
            free(wa);
            kcbp_pool_free(p);
            *out = NULL;
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "cannot start thread %u of %u", i + 1, threads);
        }
        p->nthreads = i + 1;
    }
    *out = p;
    return KCBP_OK;
}

unsigned kcbp_pool_threads(const kcbp_pool *p) { return p ? p->nthreads : 0; }

void kcbp_pool_start(kcbp_pool *p, uint64_t ntasks, kcbp_pool_fn fn, void *ctx)
{
    if (p->nthreads == 0) {
        for (uint64_t t = 0; t < ntasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    p->next = 0;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

void kcbp_pool_wait(kcbp_pool *p)
{
    if (p->nthreads == 0)
        return;
    pthread_mutex_lock(&p->lock);
    /* every task handed out and every thread out of the run (a thread that
     * has not woken up yet finds no task left) */
    while (p->next < p->ntasks || p->busy > 0)
        pthread_cond_wait(&p->idle, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void kcbp_pool_run(kcbp_pool *p, uint64_t ntasks, kcbp_pool_fn fn, void *ctx)
{
    if (ntasks <= 1) { /* the pool is idle between runs: worker 0's state is free */
        if (ntasks)
            fn(ctx, 0, 0);
        return;
    }
    kcbp_pool_start(p, ntasks, fn, ctx);
    kcbp_pool_wait(p);
}

bool kcbp_pool_take(kcbp_pool *p, uint64_t below, uint64_t *task)
{
    if (p->nthreads == 0)
        return false;
    pthread_mutex_lock(&p->lock);
    bool took = p->next < p->ntasks && p->next < below;
    if (took)
        *task = p->next++;
    pthread_mutex_unlock(&p->lock);
    return took;
}

void kcbp_pool_run_with_caller(kcbp_pool *p, uint64_t ntasks, kcbp_pool_fn fn, void *ctx)
{
    if (!p || ntasks <= 1 || p->nthreads == 0) {
        for (uint64_t t = 0; t < ntasks; t++)
            fn(ctx, t, p ? p->nthreads : 0);
        return;
    }
    kcbp_pool_start(p, ntasks, fn, ctx);
    uint64_t task;
    while (kcbp_pool_take(p, UINT64_MAX, &task))
        fn(ctx, task, p->nthreads);
    kcbp_pool_wait(p);
}

void kcbp_pool_free(kcbp_pool *p)
{
    if (!p)
        return;
    if (p->nthreads) {
        kcbp_pool_wait(p);
        pthread_mutex_lock(&p->lock);
        p->quit = true;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
        for (unsigned i = 0; i < p->nthreads; i++)
            pthread_join(p->threads[i], NULL);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->idle);
    free(p->threads);
    free(p);
}
