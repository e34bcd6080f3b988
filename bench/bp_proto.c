/* bp_proto: candidate broad phases for issue 26, measured against kcbp's own
 * (kcbp_broadphase: the box tree since the scale branch; kcbp_sap_update,
 * one-axis sweep and prune, when this was written) on the box sets of
 * bench/gen_scale's scenes. A
 * prototype in bench/ only: nothing here is part of the library.
 *
 *   bp_proto SCENE.json.bin [REPS=3] [ALGOS=kcbp,sap1s,sapcol,grid,tree] [CELL=1] [MARGIN=0.05]
 *
 * The boxes are exactly those `kcbp scene` gives its broad phase: each
 * object's model built as kcbp builds it (k-CBP of 16 greedy planes), posed
 * at each frame (scale_scene.h's ss_pose, bit-identical to
 * kcbp_scene_object_pose), kcbp_model_world_bounds, widened by
 * kcbp_tri_tolerance(model scale + |translation|) as src/scene_eval.c does.
 * Computing them is not timed. Every frame, each broad phase is handed the
 * frame's boxes and must give every overlapping pair (closed boxes) as a
 * list sorted by (a, b), a < b: the list kcbp_broadphase_pairs gives, which is
 * what the pair stage needs for a fixed output order. Each prototype's list
 * is compared with kcbp's, frame by frame (a difference is an error, exit 1).
 * The sort of the pairs (a counting sort on a, then insertion sort of each
 * a's few partners, as kcbp's) is part of every prototype's time.
 *
 * Broad phases (each keeps its state from frame to frame):
 *   kcbp    kcbp_broadphase (now the box tree of src/scene/boxtree.h; the
 *           arms below were measured against the sweep and prune it
 *           replaced, kcbp_sap_update): one sweep axis (chosen at the first frame, the
 *           centres' widest spread), entries (lo, hi, id) sorted by
 *           insertion sort from the last frame's order (a full qsort beyond
 *           8 shifts per box), the other two axes read through the id.
 *   sap1s   the same sweep with the boxes stored in sweep order: records
 *           (lo, hi, the other axes' four bounds, id) gathered once per frame
 *           in the last frame's order, insertion-sorted (a radix sort of the
 *           keys beyond 8 shifts per box), swept contiguously.
 *   sapcol  sort and sweep per column: the plane of the other two axes cut
 *           into square columns of side CELL x the median box size, hashed
 *           into 2^k buckets (k: >= the entries); every box is entered in
 *           each column it spans (boxes spanning more than 64 columns are
 *           "big": they query the columns instead), all entries in the
 *           global sweep order of the last frame (repaired by insertion
 *           sort), scattered stably into buckets, each bucket swept; a pair
 *           is reported only in the column holding the corner (max of the
 *           two lower bounds) of its overlap, so once.
 *   grid    a hashed uniform grid of cubic cells of side CELL x the median
 *           box size: each box entered in every cell it overlaps (big boxes,
 *           over 64 cells, query instead), entries scattered into buckets by
 *           a counting sort, every pair of entries of one cell tested,
 *           reported in the cell of the overlap's lower corner. Rebuilt
 *           every frame (O(n)).
 *   tree    a dynamic AABB tree in the manner of Box2D v3's b2DynamicTree
 *           (written here from its published design, not its code): leaves
 *           hold "fat" boxes (the box grown by MARGIN x the median box size
 *           on every side); inserting picks the sibling by surface-area
 *           cost with branch and bound and rotates nodes on the way up; a
 *           leaf is reinserted only when its box leaves its fat box. Pairs:
 *           every box queries the tree (leaves j > i whose fat box overlaps,
 *           then the exact boxes).
 *
 * Output: per broad phase the median over REPS of the total over the
 * frames, (min-max), the first frame's and the later frames' mean, and its
 * data's bytes at the end; kcbp's insertion sort giving up (full sorts).
 * Each rep starts every broad phase afresh; their order rotates between
 * reps. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

#include "scale_scene.h"

typedef kcbp_index_pair pair_t;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bp_proto: out of memory (%zu bytes)\n", n);
        exit(4);
    }
    return p;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "bp_proto: out of memory\n");
        exit(4);
    }
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "bp_proto: out of memory (%zu bytes)\n", n);
        exit(4);
    }
    return p;
}

/* ---- pairs: a growing list, sorted by (a, b) as kcbp sorts them --------- */

typedef struct {
    pair_t *p;
    size_t n, cap;
    pair_t *scratch;
    size_t scratch_cap;
    size_t *counts;
    uint32_t nboxes;
} pairs_t;

static void pairs_init(pairs_t *ps, uint32_t nboxes)
{
    memset(ps, 0, sizeof *ps);
    ps->nboxes = nboxes;
    ps->counts = xmalloc(((size_t)nboxes + 1) * sizeof *ps->counts);
}

static void pairs_free(pairs_t *ps)
{
    free(ps->p);
    free(ps->scratch);
    free(ps->counts);
    memset(ps, 0, sizeof *ps);
}

static inline void pairs_push(pairs_t *ps, uint32_t a, uint32_t b)
{
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 1024;
        ps->p = xrealloc(ps->p, ps->cap * sizeof *ps->p);
    }
    pair_t q = {a < b ? a : b, a < b ? b : a};
    ps->p[ps->n++] = q;
}

static size_t pairs_bytes(const pairs_t *ps)
{
    return (ps->cap + ps->scratch_cap) * sizeof(pair_t) + ((size_t)ps->nboxes + 1) * sizeof(size_t);
}

/* Counting sort on a, then insertion sort of each a's partners by b. */
static void pairs_sort(pairs_t *ps)
{
    size_t np = ps->n;
    uint32_t n = ps->nboxes;
    if (np < 2)
        return;
    if (ps->scratch_cap < np) {
        ps->scratch_cap = ps->cap;
        ps->scratch = xrealloc(ps->scratch, ps->scratch_cap * sizeof *ps->scratch);
    }
    size_t *start = ps->counts;
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    for (size_t k = 0; k < np; k++)
        start[ps->p[k].a + 1]++;
    for (uint32_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t k = 0; k < np; k++)
        ps->scratch[start[ps->p[k].a]++] = ps->p[k];
    size_t begin = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t end = start[i];
        for (size_t k = begin + 1; k < end; k++) {
            pair_t x = ps->scratch[k];
            size_t j = k;
            for (; j > begin && ps->scratch[j - 1].b > x.b; j--)
                ps->scratch[j] = ps->scratch[j - 1];
            ps->scratch[j] = x;
        }
        begin = end;
    }
    pair_t *t = ps->p;
    size_t cap = ps->cap;
    ps->p = ps->scratch;
    ps->cap = ps->scratch_cap;
    ps->scratch = t;
    ps->scratch_cap = cap;
}

static inline bool overlap(const kcbp_aabb *a, const kcbp_aabb *b)
{
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y && b->min.y <= a->max.y &&
           a->min.z <= b->max.z && b->min.z <= a->max.z;
}

static inline double get(kcbp_vec3 v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

/* Doubles as unsigned keys in the same order (not NaN). */
static inline uint64_t dkey(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

/* LSD radix sort of (key, index) by key, 8 passes of 8 bits (skipping the
 * passes in which every key has the same byte). */
typedef struct {
    uint64_t key;
    uint32_t id;
} keyed;

static void radix_sort(keyed *a, keyed *tmp, size_t n)
{
    for (int pass = 0; pass < 8; pass++) {
        size_t count[256] = {0};
        int shift = 8 * pass;
        for (size_t i = 0; i < n; i++)
            count[(a[i].key >> shift) & 255]++;
        if (n && count[(a[0].key >> shift) & 255] == n)
            continue;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(a[i].key >> shift) & 255]++] = a[i];
        memcpy(a, tmp, n * sizeof *a);
    }
}

static int spread_axis(const kcbp_aabb *boxes, uint32_t n)
{
    double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double c = 0.5 * (get(boxes[i].min, k) + get(boxes[i].max, k));
            sum[k] += c;
            sum2[k] += c * c;
        }
    int best = 0;
    double best_var = -1;
    for (int k = 0; k < 3; k++) {
        double var = sum2[k] - sum[k] * sum[k] / (n ? n : 1);
        if (var > best_var) {
            best_var = var;
            best = k;
        }
    }
    return best;
}

/* ---- the broad phases ------------------------------------------------- */

typedef struct {
    double cell;   /* cell or column side */
    double margin; /* the tree's fat margin */
} params;

typedef struct {
    const char *name;
    void *(*create)(uint32_t n, const params *prm);
    /* The frame's pairs into *out (sorted by (a, b)). */
    void (*update)(void *st, const kcbp_aabb *boxes, pairs_t **out);
    size_t (*bytes)(void *st);
    void (*destroy)(void *st);
} algo;

/* kcbp: the library's own, kcbp_broadphase (since the scale branch: a
 * box tree, SAH-built, refitted, one query per box; before it, one-axis
 * sweep and prune). */
typedef struct {
    kcbp_broadphase *bp;
    pairs_t view;
    uint32_t n;
} kcbp_bp;

static void *kcbp_create(uint32_t n, const params *prm)
{
    (void)prm;
    kcbp_bp *s = xcalloc(1, sizeof *s);
    kcbp_error err;
    if (kcbp_broadphase_new(n, &s->bp, &err) != KCBP_OK) {
        fprintf(stderr, "bp_proto: %s\n", err.msg);
        exit(4);
    }
    s->n = n;
    return s;
}

static void kcbp_update(void *st, const kcbp_aabb *boxes, pairs_t **out)
{
    kcbp_bp *s = st;
    kcbp_error err;
    if (kcbp_broadphase_update(s->bp, boxes, &err) != KCBP_OK) {
        fprintf(stderr, "bp_proto: %s\n", err.msg);
        exit(4);
    }
    const kcbp_index_pair *p;
    s->view.n = kcbp_broadphase_pairs(s->bp, &p);
    s->view.p = (kcbp_index_pair *)p;
    *out = &s->view;
}

static size_t kcbp_bytes(void *st)
{
    kcbp_bp *s = st;
    /* (opaque: about, the tree's nodes, its boxes and ids, and the pairs) */
    return (size_t)s->n * (28 + 48 + 4 + 4) + s->view.n * sizeof(kcbp_index_pair);
}

static void kcbp_destroy(void *st)
{
    kcbp_bp *s = st;
    kcbp_broadphase_free(s->bp);
    free(s);
}

/* sap1s: one axis, boxes stored in sweep order. */
typedef struct {
    double lo, hi, ulo, uhi, wlo, whi;
    uint32_t id;
} srec;

typedef struct {
    uint32_t n;
    int ax;
    bool started;
    srec *r;
    keyed *k, *ktmp;
    srec *rtmp;
    pairs_t pairs;
} sap1s;

static void *sap1s_create(uint32_t n, const params *prm)
{
    (void)prm;
    sap1s *s = xcalloc(1, sizeof *s);
    s->n = n;
    s->r = xmalloc(n * sizeof *s->r);
    s->rtmp = xmalloc(n * sizeof *s->rtmp);
    s->k = xmalloc(n * sizeof *s->k);
    s->ktmp = xmalloc(n * sizeof *s->ktmp);
    for (uint32_t i = 0; i < n; i++)
        s->r[i].id = i;
    pairs_init(&s->pairs, n);
    return s;
}

/* Insertion sort of records by lo (ties by id), giving up beyond max_shifts. */
static bool srec_insertion(srec *e, uint32_t n, uint64_t max_shifts)
{
    uint64_t moved = 0;
    for (uint32_t i = 1; i < n; i++) {
        srec x = e[i];
        uint32_t j = i;
        while (j > 0 && (x.lo < e[j - 1].lo || (x.lo == e[j - 1].lo && x.id < e[j - 1].id))) {
            e[j] = e[j - 1];
            j--;
            if (++moved > max_shifts) {
                e[j] = x;
                return false;
            }
        }
        e[j] = x;
    }
    return true;
}

static void srec_radix(srec *r, srec *tmp, keyed *k, keyed *ktmp, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        k[i].key = dkey(r[i].lo);
        k[i].id = i;
    }
    /* Ties by id: the records come in id order after a gather by id. */
    radix_sort(k, ktmp, n);
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = r[k[i].id];
    memcpy(r, tmp, n * sizeof *r);
}

static void sap1s_update(void *st, const kcbp_aabb *boxes, pairs_t **out)
{
    sap1s *s = st;
    uint32_t n = s->n;
    if (!s->started)
        s->ax = spread_axis(boxes, n);
    int ax = s->ax, u = (ax + 1) % 3, w = (ax + 2) % 3;
    srec *r = s->r;
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_aabb *b = &boxes[r[i].id];
        r[i].lo = get(b->min, ax);
        r[i].hi = get(b->max, ax);
        r[i].ulo = get(b->min, u);
        r[i].uhi = get(b->max, u);
        r[i].wlo = get(b->min, w);
        r[i].whi = get(b->max, w);
    }
    if (!s->started || !srec_insertion(r, n, 8ull * n)) {
        /* A stable key sort from id order: ties by id, as kcbp's. */
        for (uint32_t i = 0; i < n; i++)
            s->rtmp[r[i].id] = r[i];
        memcpy(r, s->rtmp, n * sizeof *r);
        srec_radix(r, s->rtmp, s->k, s->ktmp, n);
    }
    s->started = true;
    pairs_t *ps = &s->pairs;
    ps->n = 0;
    for (uint32_t i = 0; i < n; i++) {
        const srec a = r[i];
        for (uint32_t j = i + 1; j < n && r[j].lo <= a.hi; j++)
            if (r[j].ulo <= a.uhi && a.ulo <= r[j].uhi && r[j].wlo <= a.whi && a.wlo <= r[j].whi)
                pairs_push(ps, a.id, r[j].id);
    }
    pairs_sort(ps);
    *out = ps;
}

static size_t sap1s_bytes(void *st)
{
    sap1s *s = st;
    return s->n * (2 * sizeof(srec) + 2 * sizeof(keyed)) + pairs_bytes(&s->pairs);
}

static void sap1s_destroy(void *st)
{
    sap1s *s = st;
    free(s->r);
    free(s->rtmp);
    free(s->k);
    free(s->ktmp);
    pairs_free(&s->pairs);
    free(s);
}

/* Cells: integer coordinates of a point for cell side h, clamped to +-2^20. */
static inline int32_t cell_of(double x, double inv_h)
{
    double c = floor(x * inv_h);
    return c < -1048576.0 ? -1048576 : c > 1048575.0 ? 1048575 : (int32_t)c;
}

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline uint64_t cell_key(int32_t x, int32_t y, int32_t z)
{
    return ((uint64_t)(uint32_t)(x + 1048576) << 42) | ((uint64_t)(uint32_t)(y + 1048576) << 21) |
           (uint64_t)(uint32_t)(z + 1048576);
}

#define BIG_CELLS 64

/* sapcol: sort and sweep within hashed columns. */
typedef struct {
    double lo, hi, ulo, uhi, wlo, whi;
    uint64_t col; /* the column's key (cu, cw) */
    uint32_t id;
} centry;

/* An entry before it is scattered into its bucket: (cell or column key, id). */
typedef struct {
    uint64_t key;
    uint32_t id;
} small_entry;

typedef struct {
    uint32_t n;
    int ax, u, w;
    bool started;
    double inv_h;
    keyed *order, *otmp; /* (lo key, id) in sweep order, kept between frames */
    small_entry *e;
    centry *etmp;
    size_t ne, cap_e;
    uint32_t *bucket_start; /* nbuckets + 1 */
    size_t nbuckets;
    uint32_t *big;
    uint32_t nbig;
    pairs_t pairs;
} sapcol;

static void *sapcol_create(uint32_t n, const params *prm)
{
    sapcol *s = xcalloc(1, sizeof *s);
    s->n = n;
    s->inv_h = 1.0 / prm->cell;
    s->order = xmalloc(n * sizeof *s->order);
    s->otmp = xmalloc(n * sizeof *s->otmp);
    s->big = xmalloc(n * sizeof *s->big);
    for (uint32_t i = 0; i < n; i++)
        s->order[i].id = i;
    pairs_init(&s->pairs, n);
    return s;
}

static bool keyed_insertion(keyed *e, uint32_t n, uint64_t max_shifts)
{
    uint64_t moved = 0;
    for (uint32_t i = 1; i < n; i++) {
        keyed x = e[i];
        uint32_t j = i;
        while (j > 0 && (x.key < e[j - 1].key || (x.key == e[j - 1].key && x.id < e[j - 1].id))) {
            e[j] = e[j - 1];
            j--;
            if (++moved > max_shifts) {
                e[j] = x;
                return false;
            }
        }
        e[j] = x;
    }
    return true;
}

/* The sweep order of the boxes by their lower bound on axis ax (ties by
 * id), repaired from the last frame's. */
static void sweep_order(keyed *order, keyed *tmp, uint32_t n, const kcbp_aabb *boxes, int ax, bool started)
{
    for (uint32_t i = 0; i < n; i++)
        order[i].key = dkey(get(boxes[order[i].id].min, ax));
    if (!started || !keyed_insertion(order, n, 8ull * n)) {
        for (uint32_t i = 0; i < n; i++) {
            order[i].id = i;
            order[i].key = dkey(get(boxes[i].min, ax));
        }
        radix_sort(order, tmp, n);
    }
}

static inline size_t bucket_of(uint64_t key, size_t nb) { return (size_t)(mix64(key) & (nb - 1)); }

static void sapcol_update(void *st, const kcbp_aabb *boxes, pairs_t **out)
{
    sapcol *s = st;
    uint32_t n = s->n;
    if (!s->started) {
        s->ax = spread_axis(boxes, n);
        s->u = (s->ax + 1) % 3;
        s->w = (s->ax + 2) % 3;
    }
    int ax = s->ax, u = s->u, w = s->w;
    double ih = s->inv_h;
    sweep_order(s->order, s->otmp, n, boxes, ax, s->started);
    s->started = true;
    /* Entries, in sweep order. */
    s->ne = 0;
    s->nbig = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t id = s->order[k].id;
        const kcbp_aabb *b = &boxes[id];
        double ulo = get(b->min, u), uhi = get(b->max, u), wlo = get(b->min, w), whi = get(b->max, w);
        int32_t u0 = cell_of(ulo, ih), u1 = cell_of(uhi, ih), w0 = cell_of(wlo, ih), w1 = cell_of(whi, ih);
        uint64_t span = (uint64_t)(u1 - u0 + 1) * (uint64_t)(w1 - w0 + 1);
        if (span > BIG_CELLS) {
            s->big[s->nbig++] = id;
            continue;
        }
        if (s->ne + span > s->cap_e) {
            s->cap_e = 2 * (s->ne + span) + 1024;
            s->e = xrealloc(s->e, s->cap_e * sizeof *s->e);
            s->etmp = xrealloc(s->etmp, s->cap_e * sizeof *s->etmp);
        }
        for (int32_t cu = u0; cu <= u1; cu++)
            for (int32_t cw = w0; cw <= w1; cw++) {
                small_entry *e = &s->e[s->ne++];
                e->key = cell_key(cu, cw, 0);
                e->id = id;
            }
    }
    /* Buckets: a power of two >= the entries; a stable counting sort keeps
     * each bucket in sweep order. */
    size_t nb = 1;
    while (nb < s->ne)
        nb <<= 1;
    if (nb != s->nbuckets) {
        s->nbuckets = nb;
        s->bucket_start = xrealloc(s->bucket_start, (nb + 1) * sizeof *s->bucket_start);
    }
    uint32_t *start = s->bucket_start;
    memset(start, 0, (nb + 1) * sizeof *start);
    for (size_t i = 0; i < s->ne; i++)
        start[bucket_of(s->e[i].key, nb) + 1]++;
    for (size_t b = 0; b < nb; b++)
        start[b + 1] += start[b];
    for (size_t i = 0; i < s->ne; i++) {
        const kcbp_aabb *bx = &boxes[s->e[i].id];
        centry *c = &s->etmp[start[bucket_of(s->e[i].key, nb)]++];
        c->lo = get(bx->min, ax);
        c->hi = get(bx->max, ax);
        c->ulo = get(bx->min, u);
        c->uhi = get(bx->max, u);
        c->wlo = get(bx->min, w);
        c->whi = get(bx->max, w);
        c->col = s->e[i].key;
        c->id = s->e[i].id;
    }
    /* start[b] is now the end of bucket b. */
    centry *e = s->etmp;
    pairs_t *ps = &s->pairs;
    ps->n = 0;
    size_t begin = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t end = start[b];
        for (size_t i = begin; i < end; i++) {
            const centry a = e[i];
            for (size_t j = i + 1; j < end && e[j].lo <= a.hi; j++) {
                const centry *c = &e[j];
                if (c->col != a.col || c->ulo > a.uhi || a.ulo > c->uhi || c->wlo > a.whi || a.wlo > c->whi)
                    continue;
                /* Only in the column of the overlap's lower corner. */
                int32_t cu = cell_of(a.ulo > c->ulo ? a.ulo : c->ulo, ih), cw = cell_of(a.wlo > c->wlo ? a.wlo : c->wlo, ih);
                if (cell_key(cu, cw, 0) == a.col)
                    pairs_push(ps, a.id, c->id);
            }
        }
        begin = end;
    }
    /* Big boxes: against the entries of their columns, and each other. */
    for (uint32_t k = 0; k < s->nbig; k++) {
        const kcbp_aabb *bb = &boxes[s->big[k]];
        for (uint32_t l = k + 1; l < s->nbig; l++)
            if (overlap(bb, &boxes[s->big[l]]))
                pairs_push(ps, s->big[k], s->big[l]);
        int32_t u0 = cell_of(get(bb->min, u), ih), u1 = cell_of(get(bb->max, u), ih);
        int32_t w0 = cell_of(get(bb->min, w), ih), w1 = cell_of(get(bb->max, w), ih);
        uint64_t span = (uint64_t)(u1 - u0 + 1) * (uint64_t)(w1 - w0 + 1);
        if (span > s->ne) { /* fewer entries than columns: test them all */
            for (size_t i = 0; i < s->ne; i++) {
                const centry *c = &e[i];
                if (!overlap(bb, &boxes[c->id]))
                    continue;
                int32_t cu = cell_of(fmax(get(bb->min, u), c->ulo), ih), cw = cell_of(fmax(get(bb->min, w), c->wlo), ih);
                if (cell_key(cu, cw, 0) == c->col)
                    pairs_push(ps, s->big[k], c->id);
            }
            continue;
        }
        for (int32_t cu = u0; cu <= u1; cu++)
            for (int32_t cw = w0; cw <= w1; cw++) {
                uint64_t col = cell_key(cu, cw, 0);
                size_t b = bucket_of(col, nb), lo = b ? start[b - 1] : 0, hi = start[b];
                for (size_t i = lo; i < hi; i++) {
                    const centry *c = &e[i];
                    if (c->col != col || !overlap(bb, &boxes[c->id]))
                        continue;
                    int32_t pu = cell_of(fmax(get(bb->min, u), c->ulo), ih), pw = cell_of(fmax(get(bb->min, w), c->wlo), ih);
                    if (cell_key(pu, pw, 0) == col)
                        pairs_push(ps, s->big[k], c->id);
                }
            }
    }
    pairs_sort(ps);
    *out = ps;
}

static size_t sapcol_bytes(void *st)
{
    sapcol *s = st;
    return s->n * (2 * sizeof(keyed) + sizeof(uint32_t)) + s->cap_e * (sizeof(small_entry) + sizeof(centry)) +
           (s->nbuckets + 1) * sizeof(uint32_t) + pairs_bytes(&s->pairs);
}

static void sapcol_destroy(void *st)
{
    sapcol *s = st;
    free(s->order);
    free(s->otmp);
    free(s->e);
    free(s->etmp);
    free(s->bucket_start);
    free(s->big);
    pairs_free(&s->pairs);
    free(s);
}

/* grid: a hashed uniform grid. */
typedef struct {
    kcbp_aabb box;
    uint64_t cell;
    uint32_t id;
} gentry;

typedef struct {
    uint32_t n;
    double inv_h;
    small_entry *e, *etmp;
    size_t ne, cap_e;
    gentry *cellbuf; /* one bucket's entries with their boxes */
    size_t cap_cellbuf;
    uint32_t *bucket_start;
    size_t nbuckets;
    uint32_t *big;
    uint32_t nbig;
    pairs_t pairs;
} grid;

static void *grid_create(uint32_t n, const params *prm)
{
    grid *s = xcalloc(1, sizeof *s);
    s->n = n;
    s->inv_h = 1.0 / prm->cell;
    s->big = xmalloc(n * sizeof *s->big);
    pairs_init(&s->pairs, n);
    return s;
}

static inline uint64_t corner_cell(const kcbp_aabb *a, const kcbp_aabb *b, double ih)
{
    return cell_key(cell_of(fmax(a->min.x, b->min.x), ih), cell_of(fmax(a->min.y, b->min.y), ih),
                    cell_of(fmax(a->min.z, b->min.z), ih));
}

static void grid_update(void *st, const kcbp_aabb *boxes, pairs_t **out)
{
    grid *s = st;
    uint32_t n = s->n;
    double ih = s->inv_h;
    s->ne = 0;
    s->nbig = 0;
    for (uint32_t id = 0; id < n; id++) {
        const kcbp_aabb *b = &boxes[id];
        int32_t x0 = cell_of(b->min.x, ih), x1 = cell_of(b->max.x, ih), y0 = cell_of(b->min.y, ih),
                y1 = cell_of(b->max.y, ih), z0 = cell_of(b->min.z, ih), z1 = cell_of(b->max.z, ih);
        uint64_t span = (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1) * (uint64_t)(z1 - z0 + 1);
        if (span > BIG_CELLS) {
            s->big[s->nbig++] = id;
            continue;
        }
        if (s->ne + span > s->cap_e) {
            s->cap_e = 2 * (s->ne + span) + 1024;
            s->e = xrealloc(s->e, s->cap_e * sizeof *s->e);
            s->etmp = xrealloc(s->etmp, s->cap_e * sizeof *s->etmp);
        }
        for (int32_t x = x0; x <= x1; x++)
            for (int32_t y = y0; y <= y1; y++)
                for (int32_t z = z0; z <= z1; z++) {
                    small_entry *e = &s->e[s->ne++];
                    e->key = cell_key(x, y, z);
                    e->id = id;
                }
    }
    size_t nb = 1;
    while (nb < s->ne)
        nb <<= 1;
    if (nb != s->nbuckets) {
        s->nbuckets = nb;
        s->bucket_start = xrealloc(s->bucket_start, (nb + 1) * sizeof *s->bucket_start);
    }
    uint32_t *start = s->bucket_start;
    memset(start, 0, (nb + 1) * sizeof *start);
    for (size_t i = 0; i < s->ne; i++)
        start[bucket_of(s->e[i].key, nb) + 1]++;
    for (size_t b = 0; b < nb; b++)
        start[b + 1] += start[b];
    for (size_t i = 0; i < s->ne; i++)
        s->etmp[start[bucket_of(s->e[i].key, nb)]++] = s->e[i];
    small_entry *e = s->etmp;
    pairs_t *ps = &s->pairs;
    ps->n = 0;
    size_t begin = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t end = start[b], len = end - begin;
        if (len >= 2) {
            if (len > s->cap_cellbuf) {
                s->cap_cellbuf = 2 * len;
                s->cellbuf = xrealloc(s->cellbuf, s->cap_cellbuf * sizeof *s->cellbuf);
            }
            gentry *g = s->cellbuf;
            for (size_t i = 0; i < len; i++) {
                g[i].box = boxes[e[begin + i].id];
                g[i].cell = e[begin + i].key;
                g[i].id = e[begin + i].id;
            }
            for (size_t i = 0; i < len; i++)
                for (size_t j = i + 1; j < len; j++)
                    if (g[i].cell == g[j].cell && overlap(&g[i].box, &g[j].box) &&
                        corner_cell(&g[i].box, &g[j].box, ih) == g[i].cell)
                        pairs_push(ps, g[i].id, g[j].id);
        }
        begin = end;
    }
    for (uint32_t k = 0; k < s->nbig; k++) {
        const kcbp_aabb *bb = &boxes[s->big[k]];
        for (uint32_t l = k + 1; l < s->nbig; l++)
            if (overlap(bb, &boxes[s->big[l]]))
                pairs_push(ps, s->big[k], s->big[l]);
        int32_t x0 = cell_of(bb->min.x, ih), x1 = cell_of(bb->max.x, ih), y0 = cell_of(bb->min.y, ih),
                y1 = cell_of(bb->max.y, ih), z0 = cell_of(bb->min.z, ih), z1 = cell_of(bb->max.z, ih);
        uint64_t span = (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1) * (uint64_t)(z1 - z0 + 1);
        if (span > s->ne) {
            for (size_t i = 0; i < s->ne; i++)
                if (overlap(bb, &boxes[e[i].id]) && corner_cell(bb, &boxes[e[i].id], ih) == e[i].key)
                    pairs_push(ps, s->big[k], e[i].id);
            continue;
        }
        for (int32_t x = x0; x <= x1; x++)
            for (int32_t y = y0; y <= y1; y++)
                for (int32_t z = z0; z <= z1; z++) {
                    uint64_t cell = cell_key(x, y, z);
                    size_t b = bucket_of(cell, nb), lo = b ? start[b - 1] : 0, hi = start[b];
                    for (size_t i = lo; i < hi; i++)
                        if (e[i].key == cell && overlap(bb, &boxes[e[i].id]) && corner_cell(bb, &boxes[e[i].id], ih) == cell)
                            pairs_push(ps, s->big[k], e[i].id);
                }
    }
    pairs_sort(ps);
    *out = ps;
}

static size_t grid_bytes(void *st)
{
    grid *s = st;
    return s->n * sizeof(uint32_t) + 2 * s->cap_e * sizeof(small_entry) + s->cap_cellbuf * sizeof(gentry) +
           (s->nbuckets + 1) * sizeof(uint32_t) +
           pairs_bytes(&s->pairs);
}

static void grid_destroy(void *st)
{
    grid *s = st;
    free(s->e);
    free(s->etmp);
    free(s->cellbuf);
    free(s->bucket_start);
    free(s->big);
    pairs_free(&s->pairs);
    free(s);
}

/* tree: a dynamic AABB tree (Box2D v3's design: surface-area insertion with
 * branch and bound, rotations on the way up, fat leaves). */
#define NIL UINT32_MAX

typedef struct {
    kcbp_aabb box;
    uint32_t parent, child1, child2; /* child1 == NIL: a leaf; child2 = object id */
    int32_t height;
} tnode;

typedef struct {
    uint32_t n;
    double margin;
    tnode *node;
    uint32_t nnodes, cap, free_list, root;
    uint32_t *leaf;  /* object -> its leaf */
    uint32_t *stack;
    uint32_t cap_stack;
    uint64_t reinserted;
    pairs_t pairs;
} tree;

static inline double area(const kcbp_aabb *b)
{
    double x = b->max.x - b->min.x, y = b->max.y - b->min.y, z = b->max.z - b->min.z;
    return 2 * (x * y + y * z + z * x);
}

static inline kcbp_aabb merge(const kcbp_aabb *a, const kcbp_aabb *b)
{
    kcbp_aabb m = {kcbp_v3_min(a->min, b->min), kcbp_v3_max(a->max, b->max)};
    return m;
}

static inline bool contains(const kcbp_aabb *outer, const kcbp_aabb *inner)
{
    return outer->min.x <= inner->min.x && outer->min.y <= inner->min.y && outer->min.z <= inner->min.z &&
           inner->max.x <= outer->max.x && inner->max.y <= outer->max.y && inner->max.z <= outer->max.z;
}

static void *tree_create(uint32_t n, const params *prm)
{
    tree *t = xcalloc(1, sizeof *t);
    t->n = n;
    t->margin = prm->margin;
    t->cap = 2 * n + 1;
    t->node = xmalloc(t->cap * sizeof *t->node);
    t->free_list = NIL;
    t->root = NIL;
    t->leaf = xmalloc(n * sizeof *t->leaf);
    for (uint32_t i = 0; i < n; i++)
        t->leaf[i] = NIL;
    t->cap_stack = 256;
    t->stack = xmalloc(t->cap_stack * sizeof *t->stack);
    pairs_init(&t->pairs, n);
    return t;
}

static uint32_t tree_alloc(tree *t)
{
    if (t->free_list != NIL) {
        uint32_t i = t->free_list;
        t->free_list = t->node[i].parent;
        return i;
    }
    if (t->nnodes == t->cap) {
        t->cap *= 2;
        t->node = xrealloc(t->node, t->cap * sizeof *t->node);
    }
    return t->nnodes++;
}

static void tree_release(tree *t, uint32_t i)
{
    t->node[i].parent = t->free_list;
    t->node[i].height = -1;
    t->free_list = i;
}

/* The sibling for a new leaf of box b: a greedy descent by surface-area
 * cost (Box2D v3's way): at each node, the cost of making it the sibling
 * (the new parent's area plus the growth of every ancestor) against lower
 * bounds of going down into either child; stop when staying is cheaper. */
static uint32_t best_sibling(tree *t, const kcbp_aabb *b)
{
    double area_b = area(b);
    uint32_t i = t->root;
    double inherited = 0;
    for (;;) {
        const tnode *nd = &t->node[i];
        if (nd->child1 == NIL)
            return i;
        kcbp_aabb m = merge(&nd->box, b);
        double direct = area(&m);
        double cost_here = direct + inherited;
        inherited += direct - area(&nd->box);
        double cost[2];
        uint32_t ch[2] = {nd->child1, nd->child2};
        for (int k = 0; k < 2; k++) {
            const tnode *c = &t->node[ch[k]];
            kcbp_aabb mc = merge(&c->box, b);
            cost[k] = c->child1 == NIL ? area(&mc) + inherited
                                       : fmax(area(&mc) - area(&c->box), 0.0) + inherited + area_b;
        }
        if (cost_here <= cost[0] && cost_here <= cost[1])
            return i;
        i = cost[0] <= cost[1] ? ch[0] : ch[1];
    }
}

/* Box2D v3's rotation: at node a (whose children's boxes are up to date),
 * swap a child with a grandchild when that shrinks the surface area. */
static void rotate(tree *t, uint32_t ia)
{
    tnode *A = &t->node[ia];
    if (A->height < 2)
        return;
    uint32_t ib = A->child1, ic = A->child2;
    tnode *B = &t->node[ib], *C = &t->node[ic];
    double best = 0;
    int kind = 0; /* 1: B<->F, 2: B<->G, 3: C<->D, 4: C<->E */
    if (C->child1 != NIL) {
        kcbp_aabb bg = merge(&B->box, &t->node[C->child2].box), bf = merge(&B->box, &t->node[C->child1].box);
        double base = area(&C->box);
        double cost_bf = area(&bg) - base, cost_bg = area(&bf) - base; /* B swaps with F: C holds B and G */
        if (cost_bf < best) {
            best = cost_bf;
            kind = 1;
        }
        if (cost_bg < best) {
            best = cost_bg;
            kind = 2;
        }
    }
    if (B->child1 != NIL) {
        kcbp_aabb ce = merge(&C->box, &t->node[B->child2].box), cd = merge(&C->box, &t->node[B->child1].box);
        double base = area(&B->box);
        double cost_cd = area(&ce) - base, cost_ce = area(&cd) - base;
        if (cost_cd < best) {
            best = cost_cd;
            kind = 3;
        }
        if (cost_ce < best) {
            best = cost_ce;
            kind = 4;
        }
    }
    if (kind == 0)
        return;
    uint32_t parent_small, small, other_in_parent, big;
    /* kind 1: swap B with C.child1 (F); 2: B with C.child2 (G); 3: C with B.child1 (D); 4: C with B.child2 (E). */
    if (kind <= 2) {
        parent_small = ic;
        big = ib;
        small = kind == 1 ? C->child1 : C->child2;
        other_in_parent = kind == 1 ? C->child2 : C->child1;
    } else {
        parent_small = ib;
        big = ic;
        small = kind == 3 ? B->child1 : B->child2;
        other_in_parent = kind == 3 ? B->child2 : B->child1;
    }
    /* A's child `big` becomes `small`; parent_small gets `big` instead of `small`. */
    tnode *P = &t->node[parent_small];
    if (A->child1 == big)
        A->child1 = small;
    else
        A->child2 = small;
    t->node[small].parent = ia;
    if (P->child1 == small)
        P->child1 = big;
    else
        P->child2 = big;
    t->node[big].parent = parent_small;
    P->box = merge(&t->node[big].box, &t->node[other_in_parent].box);
    int32_t hb = t->node[big].height, ho = t->node[other_in_parent].height;
    P->height = 1 + (hb > ho ? hb : ho);
    int32_t h1 = t->node[A->child1].height, h2 = t->node[A->child2].height;
    A->height = 1 + (h1 > h2 ? h1 : h2);
}

static void tree_insert(tree *t, uint32_t id, const kcbp_aabb *fat)
{
    uint32_t leaf = tree_alloc(t);
    tnode *L = &t->node[leaf];
    L->box = *fat;
    L->parent = NIL;
    L->child1 = NIL;
    L->child2 = id;
    L->height = 0;
    t->leaf[id] = leaf;
    if (t->root == NIL) {
        t->root = leaf;
        return;
    }
    uint32_t sib = best_sibling(t, fat);
    uint32_t old_parent = t->node[sib].parent, np = tree_alloc(t);
    tnode *N = &t->node[np];
    N->parent = old_parent;
    N->box = merge(fat, &t->node[sib].box);
    N->height = t->node[sib].height + 1;
    N->child1 = sib;
    N->child2 = leaf;
    t->node[sib].parent = np;
    t->node[leaf].parent = np;
    if (old_parent == NIL)
        t->root = np;
    else if (t->node[old_parent].child1 == sib)
        t->node[old_parent].child1 = np;
    else
        t->node[old_parent].child2 = np;
    /* Refit and rotate up to the root. */
    for (uint32_t i = t->node[leaf].parent; i != NIL; i = t->node[i].parent) {
        tnode *A = &t->node[i];
        A->box = merge(&t->node[A->child1].box, &t->node[A->child2].box);
        int32_t h1 = t->node[A->child1].height, h2 = t->node[A->child2].height;
        A->height = 1 + (h1 > h2 ? h1 : h2);
        rotate(t, i);
    }
}

static void tree_remove(tree *t, uint32_t id)
{
    uint32_t leaf = t->leaf[id];
    t->leaf[id] = NIL;
    if (leaf == t->root) {
        t->root = NIL;
        tree_release(t, leaf);
        return;
    }
    uint32_t parent = t->node[leaf].parent, grand = t->node[parent].parent;
    uint32_t sib = t->node[parent].child1 == leaf ? t->node[parent].child2 : t->node[parent].child1;
    if (grand == NIL) {
        t->root = sib;
        t->node[sib].parent = NIL;
    } else {
        if (t->node[grand].child1 == parent)
            t->node[grand].child1 = sib;
        else
            t->node[grand].child2 = sib;
        t->node[sib].parent = grand;
        for (uint32_t i = grand; i != NIL; i = t->node[i].parent) {
            tnode *A = &t->node[i];
            A->box = merge(&t->node[A->child1].box, &t->node[A->child2].box);
            int32_t h1 = t->node[A->child1].height, h2 = t->node[A->child2].height;
            A->height = 1 + (h1 > h2 ? h1 : h2);
        }
    }
    tree_release(t, parent);
    tree_release(t, leaf);
}

static inline double centre(const tree *t, uint32_t leaf, int ax)
{
    return get(t->node[leaf].box.min, ax) + get(t->node[leaf].box.max, ax);
}

/* Top-down build over leaves ids[lo, hi): split at the median centre along
 * the centres' widest axis (quickselect), recursively. */
static uint32_t tree_build(tree *t, uint32_t *ids, uint32_t lo, uint32_t hi)
{
    if (hi - lo == 1)
        return ids[lo];
    kcbp_vec3 cmin = kcbp_v3(INFINITY, INFINITY, INFINITY), cmax = kcbp_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t k = lo; k < hi; k++) {
        kcbp_vec3 c = kcbp_v3_add(t->node[ids[k]].box.min, t->node[ids[k]].box.max);
        cmin = kcbp_v3_min(cmin, c);
        cmax = kcbp_v3_max(cmax, c);
    }
    kcbp_vec3 e = kcbp_v3_sub(cmax, cmin);
    int ax = e.x >= e.y && e.x >= e.z ? 0 : e.y >= e.z ? 1 : 2;
    uint32_t mid = lo + (hi - lo) / 2;
    /* Wirth's selection: ids[mid] the median, smaller centres before it. */
    long l = lo, r = (long)hi - 1, k = mid;
    while (l < r) {
        double x = centre(t, ids[k], ax);
        long i = l, j = r;
        do {
            while (centre(t, ids[i], ax) < x)
                i++;
            while (x < centre(t, ids[j], ax))
                j--;
            if (i <= j) {
                uint32_t tmp = ids[i];
                ids[i] = ids[j];
                ids[j] = tmp;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < k)
            l = i;
        if (k < i)
            r = j;
    }
    uint32_t c1 = tree_build(t, ids, lo, mid), c2 = tree_build(t, ids, mid, hi);
    uint32_t p = tree_alloc(t);
    tnode *P = &t->node[p];
    P->child1 = c1;
    P->child2 = c2;
    P->parent = NIL;
    P->box = merge(&t->node[c1].box, &t->node[c2].box);
    int32_t h1 = t->node[c1].height, h2 = t->node[c2].height;
    P->height = 1 + (h1 > h2 ? h1 : h2);
    t->node[c1].parent = p;
    t->node[c2].parent = p;
    return p;
}

static void tree_update(void *st, const kcbp_aabb *boxes, pairs_t **out)
{
    tree *t0 = st;
    if (t0->root == NIL && t0->n > 1) { /* the first frame: built top-down */
        kcbp_vec3 m = kcbp_v3(t0->margin, t0->margin, t0->margin);
        uint32_t *ids = xmalloc(t0->n * sizeof *ids);
        for (uint32_t i = 0; i < t0->n; i++) {
            uint32_t leaf = tree_alloc(t0);
            tnode *L = &t0->node[leaf];
            L->box.min = kcbp_v3_sub(boxes[i].min, m);
            L->box.max = kcbp_v3_add(boxes[i].max, m);
            L->parent = NIL;
            L->child1 = NIL;
            L->child2 = i;
            L->height = 0;
            t0->leaf[i] = leaf;
            ids[i] = leaf;
        }
        t0->root = tree_build(t0, ids, 0, t0->n);
        free(ids);
    }
    tree *t = st;
    uint32_t n = t->n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t leaf = t->leaf[i];
        if (leaf != NIL && contains(&t->node[leaf].box, &boxes[i]))
            continue;
        if (leaf != NIL) {
            tree_remove(t, i);
            t->reinserted++;
        }
        kcbp_vec3 m = kcbp_v3(t->margin, t->margin, t->margin);
        kcbp_aabb fat = {kcbp_v3_sub(boxes[i].min, m), kcbp_v3_add(boxes[i].max, m)};
        tree_insert(t, i, &fat);
    }
    pairs_t *ps = &t->pairs;
    ps->n = 0;
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_aabb *q = &boxes[i];
        uint32_t top = 0;
        t->stack[top++] = t->root;
        while (top) {
            uint32_t k = t->stack[--top];
            const tnode *nd = &t->node[k];
            if (!overlap(&nd->box, q))
                continue;
            if (nd->child1 == NIL) {
                uint32_t j = nd->child2;
                if (j > i && overlap(&boxes[j], q))
                    pairs_push(ps, i, j);
                continue;
            }
            if (top + 2 > t->cap_stack) {
                t->cap_stack *= 2;
                t->stack = xrealloc(t->stack, t->cap_stack * sizeof *t->stack);
            }
            t->stack[top++] = nd->child2;
            t->stack[top++] = nd->child1;
        }
    }
    pairs_sort(ps);
    *out = ps;
}

static size_t tree_bytes(void *st)
{
    tree *t = st;
    return t->cap * sizeof(tnode) + t->n * sizeof(uint32_t) + t->cap_stack * sizeof(uint32_t) + pairs_bytes(&t->pairs);
}

static void tree_destroy(void *st)
{
    tree *t = st;
    free(t->node);
    free(t->leaf);
    free(t->stack);
    pairs_free(&t->pairs);
    free(t);
}

static const algo algos[] = {
    {"kcbp", kcbp_create, kcbp_update, kcbp_bytes, kcbp_destroy},
    {"sap1s", sap1s_create, sap1s_update, sap1s_bytes, sap1s_destroy},
    {"sapcol", sapcol_create, sapcol_update, sapcol_bytes, sapcol_destroy},
    {"grid", grid_create, grid_update, grid_bytes, grid_destroy},
    {"tree", tree_create, tree_update, tree_bytes, tree_destroy},
};
#define NALGOS (sizeof algos / sizeof algos[0])

/* ---- the harness --------------------------------------------------------- */

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 6) {
        fprintf(stderr, "usage: bp_proto SCENE.json.bin [REPS=3] [ALGOS=kcbp,sap1s,sapcol,grid,tree] [CELL=1] "
                        "[MARGIN=0.05]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    const char *want = argc > 3 ? argv[3] : "kcbp,sap1s,sapcol,grid,tree";
    double cell_factor = argc > 4 ? atof(argv[4]) : 1.0, margin_factor = argc > 5 ? atof(argv[5]) : 0.05;
    if (reps < 1 || reps > 100 || !(cell_factor > 0) || !(margin_factor >= 0)) {
        fprintf(stderr, "bp_proto: REPS in 1..100, CELL > 0, MARGIN >= 0\n");
        return 2;
    }
    bool use[NALGOS];
    size_t nuse = 0;
    for (size_t a = 0; a < NALGOS; a++) {
        const char *p = strstr(want, algos[a].name);
        size_t len = strlen(algos[a].name);
        use[a] = false;
        while (p) {
            if ((p == want || p[-1] == ',') && (p[len] == ',' || p[len] == 0)) {
                use[a] = true;
                break;
            }
            p = strstr(p + 1, algos[a].name);
        }
        nuse += use[a];
    }
    if (!use[0]) {
        fprintf(stderr, "bp_proto: ALGOS must include kcbp (the reference)\n");
        return 2;
    }

    ss_scene s;
    char msg[512], dir[4096];
    if (!ss_read(argv[1], &s, msg, sizeof msg)) {
        fprintf(stderr, "bp_proto: %s\n", msg);
        return 3;
    }
    ss_dir_of(argv[1], dir, sizeof dir);
    kcbp_model *models = xcalloc(s.nmodels, sizeof *models);
    kcbp_model_options mo = kcbp_model_options_default();
    for (uint32_t m = 0; m < s.nmodels; m++) {
        kcbp_mesh *mesh;
        kcbp_error err;
        if (ss_load_mesh(&s, dir, m, &mesh, &err) != KCBP_OK || kcbp_model_build(&models[m], mesh, &mo, &err) != KCBP_OK) {
            fprintf(stderr, "bp_proto: %s\n", err.msg);
            return 3;
        }
    }
    uint32_t n = s.nobjects, frames = s.frames;
    kcbp_aabb *boxes = xmalloc((size_t)n * sizeof *boxes);

    /* The cell size: the median of the frame-0 boxes' largest extents. */
    double *ext = xmalloc((size_t)n * sizeof *ext);
    for (uint32_t i = 0; i < n; i++) {
        kcbp_pose p = ss_pose(&s, i, 0);
        kcbp_aabb b = kcbp_model_world_bounds(&models[s.objects[i].model], &p);
        kcbp_vec3 e = kcbp_v3_sub(b.max, b.min);
        ext[i] = fmax(e.x, fmax(e.y, e.z));
    }
    double size = median(ext, (int)(n < 2000001 ? n : 2000001));
    free(ext);
    params prm = {cell_factor * size, margin_factor * size};

    double *total = xcalloc(NALGOS * (size_t)reps, sizeof *total);
    double *first = xcalloc(NALGOS * (size_t)reps, sizeof *first);
    size_t bytes[NALGOS] = {0};
    uint64_t mismatches[NALGOS] = {0}, reinserted = 0, pairs_total = 0;
    uint32_t full_sorts = 0;
    for (int r = 0; r < reps; r++) {
        void *st[NALGOS];
        for (size_t a = 0; a < NALGOS; a++)
            st[a] = use[a] ? algos[a].create(n, &prm) : NULL;
        for (uint32_t f = 0; f < frames; f++) {
            for (uint32_t i = 0; i < n; i++) {
                const kcbp_model *m = &models[s.objects[i].model];
                kcbp_pose p = ss_pose(&s, i, f);
                kcbp_aabb b = kcbp_model_world_bounds(m, &p);
                double pad = kcbp_tri_tolerance(kcbp_model_scale(m) + kcbp_v3_len(p.trans));
                kcbp_vec3 pv = kcbp_v3(pad, pad, pad);
                boxes[i].min = kcbp_v3_sub(b.min, pv);
                boxes[i].max = kcbp_v3_add(b.max, pv);
            }
            pairs_t *ref = NULL;
            double t0 = now_ms();
            algos[0].update(st[0], boxes, &ref);
            double dt0 = now_ms() - t0;
            total[0 * reps + r] += dt0;
            if (f == 0)
                first[0 * reps + r] = dt0;
            if (r == 0)
                pairs_total += ref->n;
            /* The others, in an order that rotates with the rep and frame. */
            for (size_t k = 0; k < NALGOS - 1; k++) {
                size_t a = 1 + (k + (size_t)r + f) % (NALGOS - 1);
                if (!use[a])
                    continue;
                pairs_t *got = NULL;
                double t1 = now_ms();
                algos[a].update(st[a], boxes, &got);
                double dt = now_ms() - t1;
                total[a * reps + r] += dt;
                if (f == 0)
                    first[a * reps + r] = dt;
                if (got->n != ref->n || memcmp(got->p, ref->p, ref->n * sizeof *ref->p) != 0)
                    mismatches[a]++;
            }
        }
        for (size_t a = 0; a < NALGOS; a++) {
            if (!use[a])
                continue;
            if (r == reps - 1) {
                bytes[a] = algos[a].bytes(st[a]);
                if (a == 0)
                    full_sorts = 0; /* (the tree has no full sorts) */
                if (!strcmp(algos[a].name, "tree"))
                    reinserted = ((tree *)st[a])->reinserted;
            }
            algos[a].destroy(st[a]);
        }
    }
    printf("scene %s objects %u frames %u box_size %.4g cell %.4g margin %.4g pairs %llu\n", argv[1], n, frames, size,
           prm.cell, prm.margin, (unsigned long long)pairs_total);
    printf("%-7s %12s %20s %12s %12s %10s %s\n", "algo", "total_ms", "(min-max)", "frame0_ms", "later_ms", "MB", "check");
    int bad = 0;
    for (size_t a = 0; a < NALGOS; a++) {
        if (!use[a])
            continue;
        double *t = &total[a * reps], *f0 = &first[a * reps];
        double lo = t[0], hi = t[0];
        for (int r = 1; r < reps; r++) {
            lo = fmin(lo, t[r]);
            hi = fmax(hi, t[r]);
        }
        double later[100];
        for (int r = 0; r < reps; r++)
            later[r] = frames > 1 ? (t[r] - f0[r]) / (frames - 1) : 0;
        double mt = median(t, reps), mf = median(f0, reps), ml = median(later, reps);
        char range[64];
        snprintf(range, sizeof range, "(%.1f-%.1f)", lo, hi);
        printf("%-7s %12.1f %20s %12.1f %12.1f %10.1f %s\n", algos[a].name, mt, range, mf, ml, bytes[a] / 1048576.0,
               a == 0 ? "reference" : mismatches[a] ? "DIFFERENT" : "same pairs");
        bad |= mismatches[a] != 0;
    }
    printf("kcbp full sorts: %u of %u frames per rep; tree reinsertions (last rep): %llu\n", full_sorts, frames,
           (unsigned long long)reinserted);
    for (uint32_t m = 0; m < s.nmodels; m++)
        kcbp_model_free(&models[m]);
    free(models);
    free(boxes);
    free(total);
    free(first);
    ss_free(&s);
    (void)nuse;
    return bad;
}
