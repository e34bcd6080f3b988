/* The pair stage of scenes and worlds (internal): every pair of objects
 * whose boxes overlap, tested with kcbp_collide, on threads, the colliding
 * pairs handed on in a fixed order: by the lower of the pair's two ids,
 * then the other (ids: a world's slots, a scene's objects' spatial ranks).
 *
 * Work is cut into chunks of KCBP_SCENE_CHUNK consecutive ids (the lower id
 * a of a pair): chunk c holds every pair of ids (a, b), a < b, with
 * a / CHUNK = c.
 * A chunk is one task: for each of its ids a, in order, the broad phase's
 * tree gives every b > a whose box overlaps a's, sorted, and each pair is
 * tested; the chunk's colliding pairs are kept in its output slot. The
 * calling thread hands the slots on, chunk after chunk, in order, so that
 * the pairs come in the order of their ids whatever the number of threads, and
 * threads never run more than KCBP_PAIRS_WINDOW_PER_THREAD chunks per
 * thread ahead of the one being handed on (the memory the slots hold is
 * bounded by that window, not by the frame's pair count). The calling
 * thread is one of the jobs: while the next slot to hand on is not done, it
 * runs the next chunk of the window itself (the pool has jobs - 1 threads),
 * so that jobs threads share jobs CPUs, and the hand-on costs no wake-up
 * per chunk.
 *
 * What a chunk's tests decide depends only on the chunk (its pairs, their
 * caches, its own adaptive state), never on which thread ran it or when:
 * every answer and every count is the same for any number of threads.
 *
 * Shards: with shard_count N, only the chunks c with c mod N ==
 * shard_index are tested, so that N processes split a frame's pairs and the
 * union of their answers is the whole.
 *
 * Pair caches (options.cache): every pair whose test left something in its
 * kcbp_pair_cache keeps it for the next run, packed (about 20-40 bytes:
 * the axes as floats, read back as unit vectors in double; indices as
 * variable-length integers), in its chunk's byte stream, sorted by (a, b):
 * the next run of the chunk merges its pairs with the stream in one pass
 * and writes the stream anew. A pair that leaves the broad phase loses its
 * cache. Only moving scenes (and worlds) keep caches: a one-frame scene has
 * no per-pair state at all.
 *
 * The adaptive k-CBP stage (options.adaptive, without pair caches: with
 * them each pair adapts on its own through its cache's overlaps count, and
 * an arm chosen for the whole chunk would starve the other arm's caches of
 * what they learn and mislead itself): within a chunk, pairs are
 * tested with the k-CBP stage or without it (options.use_cbp off for the
 * pair), two arms whose cost per pair is measured in deterministic units
 * (GJK iterations and support points, tree node pairs and triangle pairs,
 * as the tests report them): the first KCBP_ADAPT_WARMUP pairs alternate,
 * then each pair takes the arm cheaper so far, but one in
 * KCBP_ADAPT_PROBE that takes the other, so that both estimates follow the
 * chunk's mix (a fixed sample of its pairs each, by a hash of (a, b):
 * unbiased, where pricing the pairs the k-CBPs reject by the mesh stage's
 * work on those they let through is not). The arms start from a pilot, the
 * first 1/KCBP_ADAPT_PILOT of the chunks (run before the others, each as
 * KCBP_PAIRS_PARTS tasks in large runs), whose first KCBP_ADAPT_PILOT_PAIRS
 * pairs (each task's) take the arms in turn, or from the
 * last run's costs; a chunk weighs them as at
 * most KCBP_ADAPT_PRIOR pairs of its own. Skipping a filter never changes
 * an answer: the mesh stage decides those pairs. */
#ifndef KCBP_PAIRS_H
#define KCBP_PAIRS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kcbp/scene.h>

#include "box_scan.h"
#include "boxtree.h"
#include "pool.h"
#include "reach.h"
#include "query/collide_internal.h"

#define KCBP_PAIRS_WINDOW_PER_THREAD 4
#define KCBP_ADAPT_WARMUP 16
#define KCBP_ADAPT_PROBE 32
#define KCBP_ADAPT_PILOT 32
#define KCBP_ADAPT_PILOT_PAIRS 256
/* In a run of KCBP_PAIRS_PARTS_FROM chunks or more, a pilot chunk, and
 * each of the last KCBP_PAIRS_TAIL_CHUNKS chunks of a run without pair
 * caches, runs as KCBP_PAIRS_PARTS tasks (consecutive ids each, with arms
 * of their own): the pilot, run before the others, is a few chunks at
 * 10^4 objects, and the threads end a run one task apart: a part, not a
 * chunk. (Constants: the counts must not depend on the number of
 * threads.) */
#define KCBP_PAIRS_PARTS 4
#define KCBP_PAIRS_TAIL_CHUNKS 4
#define KCBP_PAIRS_PARTS_FROM 64
#define KCBP_ADAPT_PRIOR 256
/* A run with the adaptive k-CBP stage and no prior, which no later run
 * starts from (options.last_run), and of fewer than this many chunks (so
 * fewer than 64 x 32 = 2,048 objects) runs every pair without the k-CBP
 * stage: its pilot would be most of the run and teach nothing that a later
 * run could use. Measured (callgrind, `kcbp scene --jobs 1`, one static
 * frame, bench/small_scenes.sh's scenes): boxes only took 9 % fewer
 * instructions than the pilot on 10 decimated bunnies, 22 % on 10 CAD
 * brackets, 13 % on 11 bunny2, 8 % on 100 bunnies, 10 % on 100 brackets,
 * 6 % on 101 bunny2, 2 % on 1,000 bunnies or brackets (1.5 % at 10^4,
 * where the pilot is 1/32 of the run and left in place). */
#define KCBP_ADAPT_SMALL_RUN KCBP_ADAPT_PILOT
/* Threads save at most work (1 - 1/jobs) and cost a hand-off: a run goes
 * to them when the last run's work is above this many hand-offs times
 * jobs / (jobs - 1) (the break-even), with room for the work's change from
 * run to run and for the per-chunk handing on. */
#define KCBP_PAIRS_HANDOFF_PAYS 4.0

typedef struct {
    kcbp_collide_options collide;
    double margin;         /* > 0: pairs within it count (kcbp_distance), listed with no contacts */
    bool cache;            /* keep pair caches from run to run */
    bool adaptive;         /* the adaptive k-CBP stage */
    /* No later run starts from this run's arms (a static scene's one
     * frame): a run of fewer than KCBP_ADAPT_PILOT chunks, whose pilot
     * would be more than 1/KCBP_ADAPT_PILOT of it and inform no other run,
     * tests its pairs without the k-CBP stage (see KCBP_ADAPT_SMALL_RUN). */
    bool last_run;
    uint32_t shard_index, shard_count; /* count 0 or 1: every chunk */
    /* > 0: the run hands on at most this many pairs and stops its work once
     * it has (a chunk stops testing once it holds as many as can still be
     * handed on; no chunk starts after): its counts are then those of the
     * work done. 0: every pair. */
    uint64_t limit;
    /* > 0, with contacts listed: the run looks for at least this many
     * contacts in all (those handed on first), then tests the later pairs
     * with the rest of the budget (kcbp_collide_pair_capped), none left:
     * without contacts (KCBP_CONTACTS_NONE). 0: every contact. */
    uint64_t contact_limit;
} kcbp_pairs_options;

/* The objects of one run: ids 0 .. nids - 1. */
typedef struct {
    uint32_t nids;
    const kcbp_model_impl *const *model; /* per id; NULL: no object (a world's free id) */
    const kcbp_pose *poses;
    const kcbp_aabb *boxes;              /* the broad phase's boxes (padded) */
    /* Over those boxes; NULL: every pair of ids compared by its boxes
       (kcbp_box_scan_after: a scene of few objects, whose ids all have
       their objects). */
    const kcbp_boxtree *tree;
    /* Per id, the run from which its object is there (a world's ids are
       reused): a cache written by an earlier run for a pair with a newer
       object is dropped. NULL: objects never change (scenes). */
    const uint64_t *born;
    /* Per id, the object's own index (a scene's ids are its objects' ranks,
       see scene_eval.c), or NULL: the same. A pair is tested, and handed on,
       as (lower index, higher index), whatever the order of its ids. */
    const uint32_t *ext;
    /* Per id, how far its object can have moved since the poses of run
       reach_run (kcbp_reach), or NULL: unknown. A pair whose cache was
       written by that run and holds a slack (the gap the k-CBP stage last
       proved) is taken as apart with no test while the slack less both
       reaches stays above the k-CBP margin (reach.h). Computed when a pair
       first needs it, kcbp_reach(reach_sphere[id], &reach_prev[id],
       &poses[id]), and kept: NaN until then (a few pairs a frame need
       it, of many objects; from any thread the same number, written
       atomically). */
    _Atomic double *reach;
    uint64_t reach_run;
    const kcbp_reach_sphere *const *reach_sphere;
    const kcbp_pose *reach_prev;
} kcbp_pairs_input;

typedef struct {
    uint64_t broadphase, mesh_tested, colliding;
    uint64_t cache_axis, cache_contact, cache_near, cbp_skipped;
    uint64_t cache_slack;        /* pairs taken as apart by their slack and reach, untested (also in cache_axis) */
    uint64_t slack_tested;       /* pairs whose slack was checked (each took both objects' reach) */
    uint64_t cbp_adaptive_skips; /* pairs whose k-CBP stage the adaptive rule skipped */
    uint64_t caches_kept, cache_bytes; /* pair caches kept for the next run, and their bytes */
    double filter_ms, mesh_ms;   /* summed over the pairs (over threads: may exceed the wall time) */
    double arm_n[2], arm_u[2];   /* the adaptive arms (0: without the k-CBP stage, 1: with): pairs, work */
    double work_ms;              /* the chunks' own wall-clock time, summed (the work the threads share) */
    bool threaded;               /* the run handed its chunks to the threads */
    uint64_t emitted;            /* pairs handed on */
    bool stopped;                /* the run stopped at options.limit */
} kcbp_pairs_stats;

typedef struct {
    uint8_t *data;
    size_t len, cap;
    uint64_t run; /* the run that wrote it */
} kcbp_cache_stream;

typedef struct kcbp_pairs_slot kcbp_pairs_slot;
typedef struct kcbp_pairs_worker kcbp_pairs_worker;

typedef struct {
    kcbp_pool *pool;            /* jobs - 1 threads: the caller is worker jobs - 1 */
    unsigned jobs;
    kcbp_pairs_worker *workers; /* one per thread (one when jobs is 1) */
    kcbp_pairs_slot *slots;     /* the window of chunk outputs */
    unsigned nslots;
    kcbp_cache_stream *streams; /* per chunk */
    size_t nstreams;
    uint64_t run;               /* runs so far */
    /* Threads only where they pay: handoff_ms, the measured wall-clock
     * cost of handing a run to the threads and waiting for them (the
     * median of a few runs of empty tasks, at init); last_work_ms, the last
     * run's work (its chunks' time, summed; < 0: no run yet). A run goes to
     * the threads when it has at least two chunks and the last run's work
     * exceeds KCBP_PAIRS_HANDOFF_PAYS hand-offs (the first run: always);
     * otherwise the caller's thread runs its chunks. */
    double handoff_ms, last_work_ms;
    bool last_threaded;         /* the last run went to the threads (tests, diagnostics) */
    uint64_t last_slack;        /* the last run's pairs taken as apart by their slack (tests, diagnostics) */
    /* The run in progress: chunks handed on so far, of how many (written
     * and read on the calling thread only: the emit callback may read them). */
    uint64_t chunks_done, chunks_total;
    double prior_n[2], prior_u[2]; /* the adaptive arms' costs in the last run */
} kcbp_pairs;

/* jobs >= 1: threads of the pair stage (1: the caller's only). */
kcbp_status kcbp_pairs_init(kcbp_pairs *p, unsigned jobs, kcbp_error *err);
void kcbp_pairs_clear(kcbp_pairs *p);
/* Drops every pair cache. */
void kcbp_pairs_forget(kcbp_pairs *p);

/* One run: every pair (a, b), a < b, of the shard whose boxes overlap,
 * tested; each colliding pair (or within the margin) handed to emit on the
 * calling thread, in the order of their ids (see above); each pair as
 * (lower index, higher index) (ext). emit returning an error stops the run
 * with it. Counts into *stats (zeroed first). */
kcbp_status kcbp_pairs_run(kcbp_pairs *p, const kcbp_pairs_input *in, const kcbp_pairs_options *o,
                           kcbp_scene_pair_fn emit, void *ctx, kcbp_pairs_stats *stats, kcbp_error *err);

/* The pool for a frame's other stages (world boxes, the broad phase's
 * build): the pair stage's, when its last run went to the threads (or
 * none ran yet); else NULL (the caller's thread: a frame whose pairs do
 * not pay a hand-off does not pay one for less work). */
kcbp_pool *kcbp_pairs_pool(const kcbp_pairs *p);
/* fn over tasks 0 .. ntasks - 1 on kcbp_pairs_pool's threads and the
 * caller's (the caller's alone when it is NULL), returning once all are
 * done. */
void kcbp_pairs_parallel(kcbp_pairs *p, uint64_t ntasks, kcbp_pool_fn fn, void *ctx);

/* The packed form of a pair cache (exposed for tests): appends the record
 * of (a, b) and its cache to s (a - base < 256); false when out of memory.
 * kcbp_cache_unpack reads the record at *at, advancing it. */
bool kcbp_cache_pack(kcbp_cache_stream *s, uint32_t base, uint32_t a, uint32_t b, const struct kcbp_pair_cache *c);
void kcbp_cache_unpack(const kcbp_cache_stream *s, size_t *at, uint32_t base, uint32_t *a, uint32_t *b,
                       struct kcbp_pair_cache *c);
/* Whether a cache holds anything worth keeping. */
bool kcbp_cache_useful(const struct kcbp_pair_cache *c);

#endif
