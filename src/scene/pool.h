/* A pool of worker threads owned by one evaluation (internal): no global
 * state, the threads start with the pool and end with it.
 *
 * kcbp_pool_start hands out tasks 0 .. ntasks - 1, in increasing order, to
 * the pool's threads (each task to one thread, once); the caller goes on
 * (to consume what the tasks make, say) and kcbp_pool_wait returns once
 * every task has returned. One run at a time. A pool of 0 threads runs
 * every task on the caller's thread inside kcbp_pool_start. */
#ifndef KCBP_POOL_H
#define KCBP_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/error.h>

typedef struct kcbp_pool kcbp_pool;

/* fn(ctx, task, worker): worker in [0, threads) (0 on the caller's thread
 * when the pool has none). */
typedef void (*kcbp_pool_fn)(void *ctx, uint64_t task, unsigned worker);

/* threads 0: none (the caller runs the tasks). */
kcbp_status kcbp_pool_new(unsigned threads, kcbp_pool **out, kcbp_error *err);
/* Waits for a run in progress, then ends the threads. NULL is allowed. */
void kcbp_pool_free(kcbp_pool *pool);
unsigned kcbp_pool_threads(const kcbp_pool *pool);

void kcbp_pool_start(kcbp_pool *pool, uint64_t ntasks, kcbp_pool_fn fn, void *ctx);
void kcbp_pool_wait(kcbp_pool *pool);
/* kcbp_pool_start then kcbp_pool_wait; a run of one task (or none) runs
 * on the caller's thread as worker 0: waking a thread to run it and waiting
 * for it costs more than it saves (issue 33: a small scene's frame paid
 * that every frame). */
void kcbp_pool_run(kcbp_pool *pool, uint64_t ntasks, kcbp_pool_fn fn, void *ctx);

/* The caller as one more worker: a pool of jobs - 1 threads runs jobs
 * tasks at a time, with no thread more than the CPUs (issue 33: the
 * caller asleep beside jobs threads was a thread too many on a machine of
 * jobs CPUs, woken for every chunk handed on).
 *
 * kcbp_pool_take, between kcbp_pool_start and kcbp_pool_wait, on the
 * caller's thread: takes the run's next task when it is below `below`
 * (*task; true), for the caller to run as worker kcbp_pool_threads(pool);
 * false when none is left below it. A pool of 0 threads has run every task
 * already (false). */
bool kcbp_pool_take(kcbp_pool *pool, uint64_t below, uint64_t *task);
/* kcbp_pool_start, the caller taking tasks (as worker
 * kcbp_pool_threads(pool)) until none is left, then kcbp_pool_wait. A run
 * of one task, or a NULL pool, runs on the caller's thread alone (worker
 * kcbp_pool_threads(pool), 0 for NULL). */
void kcbp_pool_run_with_caller(kcbp_pool *pool, uint64_t ntasks, kcbp_pool_fn fn, void *ctx);

#endif
