/* The pair stage of scenes and worlds (pairs.h). */
#include "pairs.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <kcbp/distance.h>

#include "base/util.h"
#include "reach.h"

/* The packed caches name every field of struct kcbp_pair_cache: a field
 * added there must be added to kcbp_cache_pack too. */
_Static_assert(sizeof(struct kcbp_pair_cache) == 152, "struct kcbp_pair_cache changed: update kcbp_cache_pack");
_Static_assert(KCBP_SCENE_CHUNK <= 256, "a chunk's ids are packed in one byte");

/* ---- packed pair caches ---------------------------------------------------- */

/* Room for n more bytes in s. */
static bool reserve(kcbp_cache_stream *s, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n)
            cap *= 2;
        uint8_t *g = realloc(s->data, cap);
        if (!g)
            return false;
        s->data = g;
        s->cap = cap;
    }
    return true;
}

/* The writers below go through a cursor into room reserved once per
 * record (KCBP_CACHE_RECORD_MAX bytes): no check per byte. */
static inline uint8_t *w_u8(uint8_t *w, unsigned v)
{
    *w = (uint8_t)v;
    return w + 1;
}

static inline uint8_t *w_varint(uint8_t *w, uint32_t v)
{
    if (v < 0x80) { /* most: GJK's vertex indices into k-CBPs of up to 124 vertices */
        *w = (uint8_t)v;
        return w + 1;
    }
    while (v >= 0x80) {
        *w++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *w++ = (uint8_t)v;
    return w;
}

static inline uint8_t *w_axis(uint8_t *w, kcbp_vec3 v)
{
    float f[3] = {(float)v.x, (float)v.y, (float)v.z};
    memcpy(w, f, sizeof f);
    return w + sizeof f;
}

static inline uint8_t *w_simplex(uint8_t *w, const kcbp_gjk_simplex_cache *x, int count)
{
    for (int i = 0; i < count; i++) {
        w = w_varint(w, x->ia[i]);
        w = w_varint(w, x->ib[i]);
    }
    return w;
}

/* The longest record: a, b, flags, counts, overlaps, two axes, the slack,
 * two simplices of 4 index pairs, a contact and two leaves (varints of at
 * most 5 bytes). */
#define KCBP_CACHE_RECORD_MAX (1 + 5 + 3 + 2 * 12 + 4 + 2 * 8 * 5 + 4 * 5)

static inline int simplex_count(const kcbp_gjk_simplex_cache *x) { return x->count >= 0 && x->count <= 4 ? x->count : 0; }

bool kcbp_cache_useful(const struct kcbp_pair_cache *c)
{
    return c->flags != 0 || simplex_count(&c->simplex) || simplex_count(&c->fine_simplex) || c->overlaps != 0;
}

/* overlaps matters only below KCBP_CACHE_SKIP_AFTER and modulo it above:
 * it is kept as is below, as SKIP_AFTER + its remainder above (< 2 *
 * SKIP_AFTER). */
_Static_assert(2 * KCBP_CACHE_SKIP_AFTER <= 256, "overlaps packed in one byte");

bool kcbp_cache_pack(kcbp_cache_stream *s, uint32_t base, uint32_t a, uint32_t b, const struct kcbp_pair_cache *c)
{
    if (!reserve(s, KCBP_CACHE_RECORD_MAX))
        return false;
    int ns = simplex_count(&c->simplex), nf = simplex_count(&c->fine_simplex);
    uint32_t ov = c->overlaps < KCBP_CACHE_SKIP_AFTER ? c->overlaps
                                                      : KCBP_CACHE_SKIP_AFTER + c->overlaps % KCBP_CACHE_SKIP_AFTER;
    uint32_t flags = c->flags & 0xff;
    uint8_t *w = s->data + s->len;
    w = w_u8(w, a - base);
    w = w_varint(w, b - a - 1);
    w = w_u8(w, flags);
    w = w_u8(w, (unsigned)ns | (unsigned)nf << 3);
    w = w_u8(w, ov);
    if (flags & KCBP_PAIR_CACHE_AXIS)
        w = w_axis(w, c->axis);
    w = w_simplex(w, &c->simplex, ns);
    if (flags & KCBP_PAIR_CACHE_CONTACT) {
        w = w_varint(w, c->contact.a);
        w = w_varint(w, c->contact.b);
    }
    if (flags & KCBP_PAIR_CACHE_LEAVES) {
        w = w_varint(w, c->leaf[0]);
        w = w_varint(w, c->leaf[1]);
    }
    if (flags & KCBP_PAIR_CACHE_FINE_AXIS)
        w = w_axis(w, c->fine_axis);
    if (flags & KCBP_PAIR_CACHE_SLACK) {
        memcpy(w, &c->slack, sizeof c->slack);
        w += sizeof c->slack;
    }
    w = w_simplex(w, &c->fine_simplex, nf);
    s->len = (size_t)(w - s->data);
    return true;
}

static inline uint32_t get_varint(const uint8_t *d, size_t *at)
{
    if (d[*at] < 0x80) /* one byte: see w_varint */
        return d[(*at)++];
    uint32_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b = d[(*at)++];
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static kcbp_vec3 get_axis(const uint8_t *d, size_t *at)
{
    float f[3];
    memcpy(f, d + *at, sizeof f);
    *at += sizeof f;
    return kcbp_v3(f[0], f[1], f[2]);
}

static void get_simplex(const uint8_t *d, size_t *at, kcbp_gjk_simplex_cache *x, int count)
{
    x->count = count;
    for (int i = 0; i < count; i++) {
        x->ia[i] = get_varint(d, at);
        x->ib[i] = get_varint(d, at);
    }
}

void kcbp_cache_unpack(const kcbp_cache_stream *s, size_t *at, uint32_t base, uint32_t *a, uint32_t *b,
                       struct kcbp_pair_cache *c)
{
    const uint8_t *d = s->data;
    memset(c, 0, sizeof *c);
    *a = base + d[(*at)++];
    *b = *a + 1 + get_varint(d, at);
    uint32_t flags = d[(*at)++];
    unsigned counts = d[(*at)++];
    c->flags = flags;
    c->overlaps = d[(*at)++];
    if (flags & KCBP_PAIR_CACHE_AXIS)
        c->axis = get_axis(d, at);
    get_simplex(d, at, &c->simplex, (int)(counts & 7));
    if (flags & KCBP_PAIR_CACHE_CONTACT) {
        c->contact.a = get_varint(d, at);
        c->contact.b = get_varint(d, at);
    }
    if (flags & KCBP_PAIR_CACHE_LEAVES) {
        c->leaf[0] = get_varint(d, at);
        c->leaf[1] = get_varint(d, at);
    }
    if (flags & KCBP_PAIR_CACHE_FINE_AXIS)
        c->fine_axis = get_axis(d, at);
    if (flags & KCBP_PAIR_CACHE_SLACK) {
        memcpy(&c->slack, d + *at, sizeof c->slack);
        *at += sizeof c->slack;
    }
    get_simplex(d, at, &c->fine_simplex, (int)(counts >> 3));
}

/* ---- state ------------------------------------------------------------------ */

/* Slots and workers are written by different threads at once (a pair's
 * counts, its result): each on cache lines of its own (KCBP_PAIRS_LINE
 * aligned, allocated by calloc_lines), no line shared. */
#define KCBP_PAIRS_LINE 64

struct kcbp_pairs_slot {
    _Alignas(KCBP_PAIRS_LINE) kcbp_scene_hit *hits;
    size_t nhits, cap_hits;
    kcbp_contact *contacts;
    size_t ncontacts, cap_contacts;
    kcbp_pairs_stats stats;
    bool chunk_end; /* the slot ends its chunk (a pilot chunk is cut in parts) */
    bool done;
};

struct kcbp_pairs_worker {
    _Alignas(KCBP_PAIRS_LINE) uint32_t *partners;
    size_t cap_partners;
    kcbp_collide_result result;
    kcbp_cache_stream out; /* the chunk's new caches, swapped into its stream when done */
};

/* n zeroed elements of size bytes (a multiple of KCBP_PAIRS_LINE), on
 * lines of their own; free() frees them. */
static void *calloc_lines(size_t n, size_t size)
{
    if (n > SIZE_MAX / size)
        return NULL;
    void *p = aligned_alloc(KCBP_PAIRS_LINE, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

static void no_task(void *ctx, uint64_t task, unsigned worker) { (void)ctx, (void)task, (void)worker; }

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median wall-clock time of handing the threads one empty task each
 * and waiting for them (the caller taking none: the whole round trip of a
 * wake-up, what a run pays when its threads are slow to come). */
static double measure_handoff(kcbp_pool *pool, unsigned threads)
{
    enum { TRIES = 7 };
    double t[TRIES];
    for (int i = 0; i < TRIES; i++) {
        double t0 = kcbp_now_ms();
        kcbp_pool_start(pool, threads, no_task, NULL);
        kcbp_pool_wait(pool);
        t[i] = kcbp_now_ms() - t0;
    }
    qsort(t, TRIES, sizeof *t, cmp_double);
    return t[TRIES / 2];
}

kcbp_status kcbp_pairs_init(kcbp_pairs *p, unsigned jobs, kcbp_error *err)
{
    memset(p, 0, sizeof *p);
    p->jobs = jobs ? jobs : 1;
    unsigned nworkers = p->jobs;
    p->nslots = p->jobs > 1 ? KCBP_PAIRS_WINDOW_PER_THREAD * p->jobs : 1;
    p->workers = calloc_lines(nworkers, sizeof *p->workers);
    p->slots = calloc_lines(p->nslots, sizeof *p->slots);
    if (!p->workers || !p->slots) {
        kcbp_pairs_clear(p);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u threads", p->jobs);
    }
    /* jobs - 1 threads: the caller is the last worker (pool.h) */
    kcbp_status st = kcbp_pool_new(p->jobs - 1, &p->pool, err);
    if (st != KCBP_OK) {
        kcbp_pairs_clear(p);
        return st;
    }
    p->last_work_ms = -1;
    if (p->jobs > 1)
        p->handoff_ms = measure_handoff(p->pool, p->jobs - 1);
    return KCBP_OK;
}

void kcbp_pairs_forget(kcbp_pairs *p)
{
    for (size_t c = 0; c < p->nstreams; c++)
        free(p->streams[c].data);
    free(p->streams);
    p->streams = NULL;
    p->nstreams = 0;
}

void kcbp_pairs_clear(kcbp_pairs *p)
{
    kcbp_pool_free(p->pool);
    for (unsigned w = 0; p->workers && w < p->jobs; w++) {
        free(p->workers[w].partners);
        free(p->workers[w].out.data);
        kcbp_collide_result_free(&p->workers[w].result);
    }
    for (unsigned s = 0; p->slots && s < p->nslots; s++) {
        free(p->slots[s].hits);
        free(p->slots[s].contacts);
    }
    free(p->workers);
    free(p->slots);
    kcbp_pairs_forget(p);
    memset(p, 0, sizeof *p);
}

kcbp_pool *kcbp_pairs_pool(const kcbp_pairs *p)
{
    return p->jobs > 1 && (p->last_work_ms < 0 || p->last_threaded) ? p->pool : NULL;
}

void kcbp_pairs_parallel(kcbp_pairs *p, uint64_t ntasks, kcbp_pool_fn fn, void *ctx)
{
    kcbp_pool_run_with_caller(kcbp_pairs_pool(p), ntasks, fn, ctx);
}

/* ---- one run ----------------------------------------------------------------- */

/* The adaptive k-CBP stage of one chunk: two arms, the pair test with the
 * k-CBP stage and without, each priced by the work its pairs took. */
typedef struct {
    uint64_t tested;            /* pairs tested in the chunk */
    double n_with, n_without;   /* ...with the k-CBP stage, without (the prior's weight included) */
    double u_with, u_without;   /* their work */
    bool pilot;                 /* a pilot chunk: the arms in turn, every pair */
    double last;                /* the last pair's work */
} adapt_state;

/* Work units, from the counts the tests report: instructions, as callgrind
 * measured them on bench/gen_scale's scenes (density, 1000 objects: 215 a
 * tree node pair, 320 a triangle pair with its predicates, about 700 a GJK
 * iteration plus 20 a support point scanned; a pair's fixed cost about
 * 300). Only their ratios matter. */
#define UNITS_PAIR 300.0
#define UNITS_BOX_PAIR 215.0
#define UNITS_TRI_PAIR 320.0
#define UNITS_GJK_ITERATION 700.0
#define UNITS_SUPPORT_POINT 20.0

/* Whether the next pair runs the k-CBP stage: the two arms in turn for
 * the first KCBP_ADAPT_WARMUP pairs; then the cheaper arm so far, but for
 * one pair in KCBP_ADAPT_PROBE that takes the other (to follow the mix: the
 * estimates of both stay unbiased, each arm's pairs being a fixed sample of
 * the chunk's). Ties go to the k-CBP stage. */
static inline uint64_t pair_hash(uint32_t a, uint32_t b)
{
    uint64_t x = (uint64_t)a << 32 | b;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Which arm pair (a, b) takes. Its samples are the pairs' own (a hash of
 * (a, b)), not their places in the chunk, so that in a moving scene a pair
 * keeps its arm from frame to frame (and its cache what that arm left). */
static bool adapt_run_cbp(const adapt_state *s, uint32_t a, uint32_t b)
{
    uint64_t h = pair_hash(a, b);
    if ((s->pilot && s->tested < KCBP_ADAPT_PILOT_PAIRS) || s->n_with < KCBP_ADAPT_WARMUP / 2 ||
        s->n_without < KCBP_ADAPT_WARMUP / 2)
        return h & 1;
    bool with = s->u_with / s->n_with <= s->u_without / s->n_without;
    return with != ((h >> 1) % KCBP_ADAPT_PROBE == 0);
}

static void adapt_count(adapt_state *s, bool with, const kcbp_collide_result *r, const kcbp_model_impl *ma,
                        const kcbp_model_impl *mb)
{
    /* What differs between the arms: the k-CBP stage's work, and the mesh
     * stage's on the pairs that do not touch (a touching pair costs the
     * mesh stage the same either way: leaving it out of both arms takes
     * most of the noise out of the comparison). */
    double u = r->collide ? 0 : UNITS_BOX_PAIR * (double)r->tree.box_pairs + UNITS_TRI_PAIR * (double)r->tree.tri_pairs;
    if (r->cbp.tested)
        u += r->cbp.gjk_iterations *
                 (UNITS_GJK_ITERATION + UNITS_SUPPORT_POINT * (double)(ma->shape.npoints + mb->shape.npoints)) +
             UNITS_SUPPORT_POINT * (double)(ma->shape.npoints + mb->shape.npoints); /* (the certificate's scan) */
    s->last = u;
    s->tested++;
    if (with) {
        s->n_with += 1;
        s->u_with += u;
    } else {
        s->n_without += 1;
        s->u_without += u;
    }
}

typedef struct {
    kcbp_pairs *p;
    const kcbp_pairs_input *in;
    const kcbp_pairs_options *o;
    uint64_t ntasks;
    uint64_t task0;      /* the pool's task t is the run's task task0 + t */
    bool pilot;          /* the tasks of this part are pilot chunks */
    bool boxes_only;     /* a small last run (KCBP_ADAPT_SMALL_RUN): no k-CBP stage */
    /* Tasks from split_from on are parts of chunks, KCBP_PAIRS_PARTS to a
     * chunk: task split_from + k is part k % PARTS of chunk split_from + k /
     * PARTS (the pilot's, from 0; the last chunks', without pair caches);
     * below, a task is a chunk. */
    uint64_t split_from;
    adapt_state prior;   /* where the other chunks' arms start */
    uint32_t shard_index, shard_count;
    /* options.limit: pairs handed on so far, and whether they reached it
     * (read by the chunks as they run, to stop early) */
    _Atomic uint64_t emitted;
    atomic_bool full;
    _Atomic uint64_t contacts_emitted; /* contacts handed on (with options.contact_limit) */
    uint64_t contacts_handed;          /* the same, on the calling thread */
    /* threads: the window and the first error */
    pthread_mutex_t lock;
    pthread_cond_t slot_done, window;
    uint64_t drained;
    bool stop;
    kcbp_status st;
    kcbp_error err;
    uint64_t err_task;
} run_ctx;

static kcbp_status add_hit(kcbp_pairs_slot *sl, uint32_t a, uint32_t b, const kcbp_collide_result *r, kcbp_error *err)
{
    if (!kcbp_grow(&sl->hits, &sl->cap_hits, sl->nhits + 1, sizeof *sl->hits, 64) ||
        !kcbp_grow(&sl->contacts, &sl->cap_contacts, sl->ncontacts + r->ncontacts, sizeof *sl->contacts, 64))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the colliding pairs");
    if (r->ncontacts)
        memcpy(sl->contacts + sl->ncontacts, r->contacts, r->ncontacts * sizeof *r->contacts);
    sl->hits[sl->nhits++] = (kcbp_scene_hit){a, b, sl->ncontacts, r->ncontacts, r->contained};
    sl->ncontacts += r->ncontacts;
    return KCBP_OK;
}

static kcbp_status within_margin(const kcbp_pairs_options *o, const kcbp_model_impl *ma, const kcbp_pose *pa,
                                 const kcbp_model_impl *mb, const kcbp_pose *pb, bool *near, kcbp_error *err)
{
    kcbp_distance_options d = kcbp_distance_options_default();
    d.max_distance = o->margin;
    d.use_cbp = o->collide.use_cbp;
    kcbp_model a = {(kcbp_model_impl *)ma}, b = {(kcbp_model_impl *)mb};
    kcbp_distance_result r;
    kcbp_status st = kcbp_distance(&a, pa, &b, pb, &d, &r, err);
    *near = st == KCBP_OK && r.within;
    return st;
}

/* Id's reach (kcbp_pairs_input.reach): computed by the first pair that needs it. */
static double reach_of(const kcbp_pairs_input *in, uint32_t id)
{
    double r = atomic_load_explicit(&in->reach[id], memory_order_relaxed);
    if (r != r) { /* not yet (or NaN itself, which is computed again: the same NaN) */
        r = kcbp_reach(in->reach_sphere[id], &in->reach_prev[id], &in->poses[id]);
        atomic_store_explicit(&in->reach[id], r, memory_order_relaxed);
    }
    return r;
}

/* The result of a pair test the k-CBP stage would have ended: the pair
 * taken as apart by its cache's slack (kcbp_reach_slack_holds). */
static void apart_by_slack(kcbp_collide_result *r, const kcbp_pair_cache *pc)
{
    r->collide = false;
    r->ncontacts = 0;
    r->decided_by = KCBP_STAGE_CBP;
    r->contained = KCBP_CONTAINED_NONE;
    memset(&r->tree, 0, sizeof r->tree);
    memset(&r->cbp, 0, sizeof r->cbp);
    memset(&r->cache, 0, sizeof r->cache);
    r->cbp.tested = true;
    r->cbp.separated = true;
    r->cbp.distance_lower = pc->slack;
    r->cache.hit = KCBP_CACHE_AXIS;
}

/* Tests the pairs of one chunk into slot sl. */
static kcbp_status run_chunk(run_ctx *rc, uint64_t task, kcbp_pairs_worker *w, kcbp_pairs_slot *sl, kcbp_error *err)
{
    const kcbp_pairs_input *in = rc->in;
    const kcbp_pairs_options *o = rc->o;
    kcbp_pairs *p = rc->p;
    uint32_t parts = task < rc->split_from ? 1 : KCBP_PAIRS_PARTS;
    uint32_t part = parts > 1 ? (uint32_t)((task - rc->split_from) % parts) : 0;
    uint64_t c = parts > 1 ? rc->split_from + (task - rc->split_from) / parts : task;
    uint64_t chunk = rc->shard_index + c * rc->shard_count;
    uint32_t a0 = (uint32_t)(chunk * KCBP_SCENE_CHUNK);
    uint32_t a1 = a0 + KCBP_SCENE_CHUNK < in->nids ? a0 + KCBP_SCENE_CHUNK : in->nids;
    if (parts > 1) { /* part `part` of the chunk's ids (no pair caches here) */
        KCBP_ASSERT(!o->cache);
        uint32_t per = (KCBP_SCENE_CHUNK + parts - 1) / parts;
        uint32_t b0 = a0 + part * per < a1 ? a0 + part * per : a1;
        a1 = b0 + per < a1 ? b0 + per : a1;
        a0 = b0;
    }
    sl->chunk_end = part == parts - 1;
    sl->nhits = sl->ncontacts = 0;
    memset(&sl->stats, 0, sizeof sl->stats);
    kcbp_pairs_stats *stats = &sl->stats;
    kcbp_cache_stream *old = o->cache ? &p->streams[chunk] : NULL;
    size_t at = 0;
    uint32_t ra = 0, rb = 0; /* the old stream's next record */
    struct kcbp_pair_cache rcache, pc;
    bool have = old && at < old->len;
    if (have)
        kcbp_cache_unpack(old, &at, a0, &ra, &rb, &rcache);
    w->out.len = 0;
    /* With pair caches (moving scenes, worlds) the pairs adapt one by one
     * (kcbp_pair_cache's overlaps count): an arm chosen for the chunk would
     * starve the other arm's caches and mislead itself. */
    bool adaptive = o->adaptive && o->collide.use_cbp && !o->cache;
    adapt_state ad = rc->prior;
    ad.tested = 0;
    ad.pilot = rc->pilot;
    kcbp_collide_options opts = o->collide;
    opts.skip_bounds = true;
    kcbp_status st = KCBP_OK;
    /* With a limit: the pairs handed on before this chunk are at least
     * those handed on now, so the chunk needs at most the rest. */
    uint64_t want = UINT64_MAX;
    if (o->limit) {
        uint64_t e = atomic_load_explicit(&rc->emitted, memory_order_relaxed);
        want = e < o->limit ? o->limit - e : 0;
    }
    bool cut = false; /* the chunk stopped at the limit */
    /* With a contact limit: the contacts handed on before this chunk are at
     * least those handed on now, so the chunk needs at most the rest. */
    uint64_t cwant = 0;
    bool capped = o->contact_limit && o->collide.contacts != KCBP_CONTACTS_NONE;
    if (capped) {
        uint64_t e = atomic_load_explicit(&rc->contacts_emitted, memory_order_relaxed);
        cwant = e < o->contact_limit ? o->contact_limit - e : 0;
    }
    for (uint32_t a = a0; a < a1 && st == KCBP_OK && !cut; a++) {
        const kcbp_model_impl *ma = in->model[a];
        if (!ma)
            continue;
        size_t np = in->tree ? kcbp_boxtree_query(in->tree, &in->boxes[a], a, &w->partners, &w->cap_partners, 0)
                             : kcbp_box_scan_after(in->boxes, in->nids, a, &w->partners, &w->cap_partners);
        if (np == SIZE_MAX)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the broad phase's pairs");
        if (in->tree) /* (the scan's are in order) */
            kcbp_sort_ids(w->partners, np);
        for (size_t k = 0; k < np && st == KCBP_OK; k++) {
            if (o->limit && (sl->nhits >= want || atomic_load_explicit(&rc->full, memory_order_relaxed))) {
                cut = true;
                break;
            }
            uint32_t b = w->partners[k];
            const kcbp_model_impl *mb = in->model[b];
            stats->broadphase++;
            kcbp_pair_cache *cache = NULL;
            if (old) {
                while (have && (ra < a || (ra == a && rb < b))) {
                    have = at < old->len;
                    if (have)
                        kcbp_cache_unpack(old, &at, a0, &ra, &rb, &rcache);
                }
                if (have && ra == a && rb == b &&
                    (!in->born || (in->born[a] <= old->run && in->born[b] <= old->run)))
                    pc = rcache;
                else
                    memset(&pc, 0, sizeof pc);
                cache = &pc;
            }
            /* The pair is tested as kcbp_collide(lower id, higher id) would test
             * it, whatever the order of the ranks a and b. */
            uint32_t ea = in->ext ? in->ext[a] : a, eb = in->ext ? in->ext[b] : b;
            uint32_t x = ea < eb ? a : b, y = ea < eb ? b : a;
            bool use_cbp = o->collide.use_cbp && !rc->boxes_only && (!adaptive || adapt_run_cbp(&ad, ea, eb));
            opts.use_cbp = use_cbp;
            uint64_t cap = 0; /* the pair's share of the contact budget */
            if (capped) {
                cap = cwant > sl->ncontacts ? cwant - sl->ncontacts : 0;
                opts.contacts = cap ? o->collide.contacts : KCBP_CONTACTS_NONE;
            }
            kcbp_collide_result *r = &w->result;
            /* The k-CBP stage's last gap, less how far both can have moved
             * since (reach.h): no test while it holds. Such a pair is not
             * timed (two clock reads cost more than its check). */
            bool slack = cache && (cache->flags & KCBP_PAIR_CACHE_SLACK) && in->reach &&
                         old->run == in->reach_run && use_cbp && !opts.cbp_measure;
            stats->slack_tested += slack;
            slack = slack && kcbp_reach_slack_holds(in->model[x], &in->poses[x], in->model[y], &in->poses[y],
                                                    reach_of(in, a) + reach_of(in, b), cache);
            bool timed = !slack || o->margin > 0;
            double q0 = timed ? kcbp_now_ms() : 0;
            if (slack) {
                apart_by_slack(r, cache);
                stats->cache_slack++;
            } else {
                st = kcbp_collide_pair_capped(in->model[x], &in->poses[x], in->model[y], &in->poses[y], &opts, cap,
                                              cache, r, err);
            }
            bool near = false;
            if (st == KCBP_OK && !r->collide && o->margin > 0)
                st = within_margin(o, in->model[x], &in->poses[x], in->model[y], &in->poses[y], &near, err);
            double q1 = timed ? kcbp_now_ms() : 0;
            if (st != KCBP_OK)
                break;
            if (adaptive) {
                adapt_count(&ad, use_cbp, r, ma, mb);
                stats->arm_n[use_cbp] += 1;
                stats->arm_u[use_cbp] += ad.last;
            }
            stats->cbp_adaptive_skips += o->collide.use_cbp && !use_cbp;
            stats->cache_axis += r->cache.hit == KCBP_CACHE_AXIS;
            stats->cache_contact += r->cache.hit == KCBP_CACHE_CONTACT;
            stats->cache_near += r->cache.hit == KCBP_CACHE_NEAR;
            stats->cbp_skipped += r->cache.gjk_skipped;
            /* the exact test: the mesh stage, or two shapes' own test */
            bool exact = r->decided_by == KCBP_STAGE_MESH || r->decided_by == KCBP_STAGE_SHAPE;
            if (exact) {
                stats->mesh_tested++;
                stats->mesh_ms += q1 - q0;
            } else {
                stats->filter_ms += q1 - q0;
            }
            KCBP_ASSERT(!r->collide || exact);
            if (r->collide || near) {
                stats->colliding++;
                st = add_hit(sl, ea < eb ? ea : eb, ea < eb ? eb : ea, r, err);
            }
            if (st == KCBP_OK && cache && kcbp_cache_useful(cache)) {
                if (!kcbp_cache_pack(&w->out, a0, a, b, cache))
                    st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the pair caches");
                stats->caches_kept++;
            }
        }
    }
    if (st == KCBP_OK && old && !cut) {
        /* the chunk's new stream; the old one's storage is the worker's next scratch */
        kcbp_cache_stream t = *old;
        *old = w->out;
        old->run = p->run;
        w->out = t;
        w->out.len = 0;
        /* a scratch much larger than the stream it held is given back */
        if (w->out.cap > 4 * old->len + 4096) {
            free(w->out.data);
            w->out.data = NULL;
            w->out.cap = 0;
        }
        stats->cache_bytes = old->len;
    }
    return st;
}

static void run_task(void *ctx, uint64_t t, unsigned worker)
{
    run_ctx *rc = ctx;
    uint64_t task = rc->task0 + t;
    kcbp_pairs *p = rc->p;
    kcbp_pairs_slot *sl = &p->slots[task % p->nslots];
    pthread_mutex_lock(&rc->lock);
    while (!rc->stop && task >= rc->drained + p->nslots)
        pthread_cond_wait(&rc->window, &rc->lock);
    bool stop = rc->stop;
    pthread_mutex_unlock(&rc->lock);
    kcbp_status st = KCBP_OK;
    kcbp_error err = {0};
    if (!stop) {
        double t0 = kcbp_now_ms();
        st = run_chunk(rc, task, &p->workers[worker], sl, &err);
        sl->stats.work_ms = kcbp_now_ms() - t0;
    }
    pthread_mutex_lock(&rc->lock);
    if (st != KCBP_OK && (rc->st == KCBP_OK || task < rc->err_task)) {
        rc->st = st;
        rc->err = err;
        rc->err_task = task;
        rc->stop = true;
        pthread_cond_broadcast(&rc->window);
    }
    sl->done = true;
    pthread_cond_broadcast(&rc->slot_done);
    pthread_mutex_unlock(&rc->lock);
}

/* Hands on the slot's pairs (up to the run's limit: then rc->full). */
static kcbp_status emit_slot(run_ctx *rc, kcbp_pairs_slot *sl, kcbp_scene_pair_fn emit, void *ctx,
                             kcbp_pairs_stats *stats, kcbp_error *err)
{
    uint64_t limit = rc->o->limit;
    rc->p->chunks_done += sl->chunk_end; /* (counted as it starts: its pairs are of a chunk walked) */
    const kcbp_pairs_stats *s = &sl->stats;
    stats->broadphase += s->broadphase;
    stats->mesh_tested += s->mesh_tested;
    stats->colliding += s->colliding;
    stats->cache_axis += s->cache_axis;
    stats->cache_contact += s->cache_contact;
    stats->cache_near += s->cache_near;
    stats->cache_slack += s->cache_slack;
    stats->slack_tested += s->slack_tested;
    stats->cbp_skipped += s->cbp_skipped;
    stats->cbp_adaptive_skips += s->cbp_adaptive_skips;
    stats->caches_kept += s->caches_kept;
    stats->cache_bytes += s->cache_bytes;
    stats->filter_ms += s->filter_ms;
    stats->mesh_ms += s->mesh_ms;
    stats->work_ms += s->work_ms;
    for (int k = 0; k < 2; k++) {
        stats->arm_n[k] += s->arm_n[k];
        stats->arm_u[k] += s->arm_u[k];
    }
    kcbp_status st = KCBP_OK;
    for (size_t h = 0; h < sl->nhits && st == KCBP_OK; h++) {
        if (limit && stats->emitted >= limit)
            break;
        const kcbp_scene_hit *hit = &sl->hits[h];
        kcbp_scene_pair pair = {hit->a, hit->b, hit->count ? sl->contacts + hit->first : NULL, hit->count,
                                hit->contained};
        if (emit)
            st = emit(ctx, &pair, err);
        stats->emitted++;
        rc->contacts_handed += hit->count;
    }
    if (rc->o->contact_limit)
        atomic_store_explicit(&rc->contacts_emitted, rc->contacts_handed, memory_order_relaxed);
    if (limit) {
        atomic_store_explicit(&rc->emitted, stats->emitted, memory_order_relaxed);
        if (stats->emitted >= limit) {
            atomic_store_explicit(&rc->full, true, memory_order_relaxed);
            stats->stopped = true;
        }
    }
    return st;
}

/* A chunk's arms start from the costs (n, u) given, weighed as at most
 * KCBP_ADAPT_PRIOR pairs each, so that a chunk unlike the rest soon goes
 * its own way. */
static adapt_state prior_state(const double n[2], const double u[2])
{
    adapt_state a = {0};
    double wn = n[0] > KCBP_ADAPT_PRIOR ? KCBP_ADAPT_PRIOR : n[0], ww = n[1] > KCBP_ADAPT_PRIOR ? KCBP_ADAPT_PRIOR : n[1];
    a.n_without = wn;
    a.u_without = n[0] > 0 ? u[0] * (wn / n[0]) : 0;
    a.n_with = ww;
    a.u_with = n[1] > 0 ? u[1] * (ww / n[1]) : 0;
    return a;
}

/* Tasks t0 .. t1 - 1 of the run, their pairs handed on in order. */
static kcbp_status run_part(run_ctx *rc, uint64_t t0, uint64_t t1, kcbp_scene_pair_fn emit, void *ctx,
                           kcbp_pairs_stats *stats, kcbp_error *err)
{
    kcbp_pairs *p = rc->p;
    rc->task0 = t0;
    if (!stats->threaded || t1 - t0 <= 1) {
        kcbp_status st = KCBP_OK;
        for (uint64_t t = t0; t < t1 && st == KCBP_OK && !stats->stopped; t++) {
            double c0 = kcbp_now_ms();
            st = run_chunk(rc, t, &p->workers[0], &p->slots[0], err);
            p->slots[0].stats.work_ms = kcbp_now_ms() - c0;
            if (st == KCBP_OK)
                st = emit_slot(rc, &p->slots[0], emit, ctx, stats, err);
        }
        return st;
    }
    pthread_mutex_init(&rc->lock, NULL);
    pthread_cond_init(&rc->slot_done, NULL);
    pthread_cond_init(&rc->window, NULL);
    rc->drained = t0;
    rc->stop = false;
    rc->st = KCBP_OK;
    for (unsigned s = 0; s < p->nslots; s++)
        p->slots[s].done = false;
    kcbp_pool_start(p->pool, t1 - t0, run_task, rc);
    kcbp_status st = KCBP_OK;
    unsigned me = kcbp_pool_threads(p->pool); /* the caller's worker */
    for (uint64_t t = t0; t < t1; t++) {
        kcbp_pairs_slot *sl = &p->slots[t % p->nslots];
        pthread_mutex_lock(&rc->lock);
        while (!sl->done && !rc->stop) {
            /* Chunk t not done yet: the caller runs the next chunk of the
             * window, if any is left (a chunk past the window would wait
             * for the caller to drain it), else waits. Chunk t was handed
             * out either way (chunks go in order and t < the window's end). */
            pthread_mutex_unlock(&rc->lock);
            uint64_t task;
            bool took = kcbp_pool_take(p->pool, t + p->nslots - t0, &task);
            if (took)
                run_task(rc, task, me);
            pthread_mutex_lock(&rc->lock);
            if (!took && !sl->done && !rc->stop)
                pthread_cond_wait(&rc->slot_done, &rc->lock);
        }
        bool stopped = rc->stop;
        pthread_mutex_unlock(&rc->lock);
        if (stopped)
            break;
        st = emit_slot(rc, sl, emit, ctx, stats, err);
        pthread_mutex_lock(&rc->lock);
        sl->done = false;
        rc->drained = t + 1;
        if (st != KCBP_OK || stats->stopped)
            rc->stop = true;
        pthread_cond_broadcast(&rc->window);
        pthread_mutex_unlock(&rc->lock);
        if (st != KCBP_OK || stats->stopped)
            break;
    }
    kcbp_pool_wait(p->pool);
    if (st == KCBP_OK && rc->st != KCBP_OK) {
        st = rc->st;
        if (err)
            *err = rc->err;
    }
    pthread_mutex_destroy(&rc->lock);
    pthread_cond_destroy(&rc->slot_done);
    pthread_cond_destroy(&rc->window);
    return st;
}

kcbp_status kcbp_pairs_run(kcbp_pairs *p, const kcbp_pairs_input *in, const kcbp_pairs_options *o,
                           kcbp_scene_pair_fn emit, void *ctx, kcbp_pairs_stats *stats, kcbp_error *err)
{
    memset(stats, 0, sizeof *stats);
    p->run++;
    uint32_t scount = o->shard_count > 1 ? o->shard_count : 1, sindex = scount > 1 ? o->shard_index : 0;
    uint64_t nchunks = ((uint64_t)in->nids + KCBP_SCENE_CHUNK - 1) / KCBP_SCENE_CHUNK;
    uint64_t ntasks = nchunks > sindex ? (nchunks - sindex + scount - 1) / scount : 0;
    if (o->cache && p->nstreams < nchunks) {
        kcbp_cache_stream *g = realloc(p->streams, nchunks * sizeof *g);
        if (!g)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the pair caches");
        memset(g + p->nstreams, 0, (nchunks - p->nstreams) * sizeof *g);
        p->streams = g;
        p->nstreams = nchunks;
    } else if (!o->cache && p->streams) {
        kcbp_pairs_forget(p);
    }
    run_ctx rc = {.p = p, .in = in, .o = o, .ntasks = ntasks, .shard_index = sindex, .shard_count = scount};
    p->chunks_done = 0;
    p->chunks_total = ntasks;
    atomic_init(&rc.emitted, 0);
    atomic_init(&rc.full, false);
    atomic_init(&rc.contacts_emitted, 0);
    /* The adaptive k-CBP stage's start: the arms' costs of the last run (a
     * moving scene's last frame, a world's last query), or of a pilot: the
     * first 1/32 of the chunks, the arms in turn. */
    bool adapt = o->adaptive && o->collide.use_cbp && !o->cache;
    uint64_t pilot = 0;
    if (adapt && p->prior_n[0] >= 1 && p->prior_n[1] >= 1) {
        rc.prior = prior_state(p->prior_n, p->prior_u);
    } else if (adapt && o->last_run && ntasks < KCBP_ADAPT_SMALL_RUN) {
        rc.boxes_only = true;
    } else if (adapt) {
        pilot = (ntasks + KCBP_ADAPT_PILOT - 1) / KCBP_ADAPT_PILOT;
    }
    /* Threads only where they pay (see kcbp_pairs.handoff_ms). */
    stats->threaded = p->jobs > 1 && ntasks >= 2 &&
                      (p->last_work_ms < 0 || p->last_work_ms * (p->jobs - 1) / p->jobs >
                                                  KCBP_PAIRS_HANDOFF_PAYS * p->handoff_ms);
    /* Chunks in parts (the pilot's, the last ones) from
     * KCBP_PAIRS_PARTS_FROM chunks on: fewer chunks are not worth it, and
     * keep the arms' counts they had. */
    bool parts = ntasks >= KCBP_PAIRS_PARTS_FROM;
    kcbp_status st = KCBP_OK;
    if (pilot) {
        rc.pilot = true;
        rc.split_from = parts ? 0 : UINT64_MAX;
        st = run_part(&rc, 0, parts ? pilot * KCBP_PAIRS_PARTS : pilot, emit, ctx, stats, err);
        rc.pilot = false;
        rc.prior = prior_state(stats->arm_n, stats->arm_u);
    }
    /* The last chunks in parts (without pair caches: a chunk's stream is
     * written whole), so that the threads end a part apart, not a chunk. */
    uint64_t tail = o->cache || !parts                        ? 0
                    : ntasks - pilot < KCBP_PAIRS_TAIL_CHUNKS ? ntasks - pilot
                                                              : KCBP_PAIRS_TAIL_CHUNKS;
    rc.split_from = ntasks - tail;
    if (st == KCBP_OK && !stats->stopped)
        st = run_part(&rc, pilot, ntasks + tail * (KCBP_PAIRS_PARTS - 1), emit, ctx, stats, err);
    /* Stopped at the limit: the chunks not run (or cut short) kept older
     * caches than the others; drop them all rather than reason about it. */
    if (stats->stopped && o->cache)
        kcbp_pairs_forget(p);
    if (st == KCBP_OK && !stats->stopped)
        p->last_work_ms = stats->work_ms;
    p->last_threaded = stats->threaded;
    p->last_slack = stats->cache_slack;
    if (adapt && st == KCBP_OK && !stats->stopped) {
        for (int a = 0; a < 2; a++) {
            p->prior_n[a] = stats->arm_n[a];
            p->prior_u[a] = stats->arm_u[a];
        }
    }
    return st;
}
