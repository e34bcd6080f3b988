/* Worlds (include/kcbp/world.h): objects in slots, their boxes in the
 * scenes' box tree (boxtree.h), the pair stage of scenes (pairs.h) for
 * kcbp_world_collide, best-first descents of the tree for distances. */
#include <kcbp/world.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "base/util.h"
#include "world_internal.h"

#define TOMB UINT32_MAX

kcbp_world_options kcbp_world_options_default(void)
{
    kcbp_world_options o = {.collide = kcbp_collide_options_default(), .coherent = true, .cbp_adaptive = true,
                            .jobs = 1};
    o.collide.contacts = KCBP_CONTACTS_NONE;
    return o;
}

kcbp_status kcbp_world_new(const kcbp_world_options *options, kcbp_world **out, kcbp_error *err)
{
    kcbp_world *w = calloc(1, sizeof *w);
    if (!(*out = w))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a world");
    w->o = options ? *options : kcbp_world_options_default();
    w->bound_scale = 1;
    if (w->o.jobs > 1024) {
        unsigned jobs = w->o.jobs;
        free(w);
        *out = NULL;
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: %u threads, more than 1024", jobs);
    }
    kcbp_boxtree_init(&w->tree);
    kcbp_status st = kcbp_pairs_init(&w->pairs, w->o.jobs ? w->o.jobs : 1, err);
    if (st != KCBP_OK) {
        free(w);
        *out = NULL;
    }
    return st;
}

void kcbp_world_free(kcbp_world *w)
{
    if (!w)
        return;
    for (uint32_t i = 0; i < w->nslots; i++)
        free(w->names[i]);
    free(w->models);
    free(w->handles);
    free(w->poses);
    free(w->boxes);
    free(w->born);
    free(w->gen);
    free(w->names);
    free(w->dirty);
    free(w->free_slots);
    free(w->dirty_list);
    free(w->name_table);
    free(w->live);
    free(w->found);
    kcbp_boxtree_free(&w->tree);
    kcbp_pairs_clear(&w->pairs);
    kcbp_collide_result_free(&w->result);
    free(w);
}

void kcbp_world_set_collide_options(kcbp_world *w, const kcbp_collide_options *collide) { w->o.collide = *collide; }

/* ---- ids, slots, names ------------------------------------------------------ */

static inline kcbp_world_id make_id(const kcbp_world *w, uint32_t slot)
{
    return (uint64_t)w->gen[slot] << 32 | slot;
}

/* The slot of a live object's id, or UINT32_MAX. */
static uint32_t slot_of(const kcbp_world *w, kcbp_world_id id)
{
    uint32_t slot = (uint32_t)id, gen = (uint32_t)(id >> 32);
    if (slot >= w->nslots || !w->models[slot] || w->gen[slot] != gen)
        return UINT32_MAX;
    return slot;
}

static kcbp_status no_object(kcbp_world_id id, kcbp_error *err)
{
    return kcbp_error_set(err, KCBP_ERR_INVALID, "world: no object has id %llu (removed, or never added)",
                          (unsigned long long)id);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The table's place for name: where it is, or the first free place. */
static uint32_t name_place(const kcbp_world *w, const char *name, bool *found)
{
    uint32_t k = (uint32_t)hash_name(name) & (w->name_size - 1), tomb = UINT32_MAX;
    *found = false;
    for (; w->name_table[k]; k = (k + 1) & (w->name_size - 1)) {
        uint32_t v = w->name_table[k];
        if (v == TOMB) {
            if (tomb == UINT32_MAX)
                tomb = k;
            continue;
        }
        if (!strcmp(w->names[v - 1], name)) {
            *found = true;
            return k;
        }
    }
    return tomb != UINT32_MAX ? tomb : k;
}

static bool names_rehash(kcbp_world *w, uint32_t size)
{
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return false;
    free(w->name_table);
    w->name_table = t;
    w->name_size = size;
    w->name_used = 0;
    for (uint32_t s = 0; s < w->nslots; s++) {
        if (!w->models[s] || !w->names[s])
            continue;
        bool found;
        w->name_table[name_place(w, w->names[s], &found)] = s + 1;
        w->name_used++;
    }
    return true;
}

kcbp_world_id kcbp_world_find(const kcbp_world *w, const char *name)
{
    if (!name || !w->name_size)
        return 0;
    bool found;
    uint32_t k = name_place(w, name, &found);
    return found ? make_id(w, w->name_table[k] - 1) : 0;
}

static bool grow_slots(kcbp_world *w)
{
    if (w->nslots < w->cap)
        return true;
    uint32_t cap = w->cap ? 2 * w->cap : 64;
#define GROW(field)                                                                                                    \
    do {                                                                                                               \
        void *g = realloc(w->field, (size_t)cap * sizeof *w->field);                                                   \
        if (!g)                                                                                                        \
            return false;                                                                                              \
        w->field = g;                                                                                                  \
    } while (0)
    GROW(models);
    GROW(handles);
    GROW(poses);
    GROW(boxes);
    GROW(born);
    GROW(gen);
    GROW(names);
    GROW(dirty);
    GROW(free_slots);
    GROW(dirty_list);
    GROW(live);
#undef GROW
    w->cap = cap;
    return true;
}

/* A pose the queries can take: finite, a proper rotation to
 * KCBP_POSE_RIGID_TOL, a translation within KCBP_COORD_MAX (the checks of
 * kcbp_pose_from_matrix). */
static kcbp_status check_pose(const kcbp_pose *p, kcbp_error *err)
{
    double m[12];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            m[4 * i + j] = p->rot.m[i][j];
        m[4 * i + 3] = kcbp_v3_get(p->trans, i);
    }
    kcbp_pose q;
    kcbp_error e = {0};
    if (kcbp_pose_from_matrix(m, 12, &q, &e) != KCBP_OK)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: the pose: %s", e.msg);
    return KCBP_OK;
}

static void mark_dirty(kcbp_world *w, uint32_t slot)
{
    if (!w->dirty[slot]) {
        w->dirty[slot] = 1;
        w->dirty_list[w->ndirty++] = slot;
    }
}

kcbp_status kcbp_world_add(kcbp_world *w, const kcbp_model *model, const kcbp_pose *pose, const char *name,
                           kcbp_world_id *id, kcbp_error *err)
{
    if (id)
        *id = 0;
    if (!model || !model->impl)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: the model is not built");
    kcbp_status st = check_pose(pose, err);
    if (st != KCBP_OK)
        return st;
    if (name && !*name)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: an empty name");
    if (name && kcbp_world_find(w, name))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: '%s' is already the name of an object", name);
    if (w->count == UINT32_MAX - 1)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "world: too many objects");
    char *copy = NULL;
    if (name && !(copy = kcbp_strdup(name)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
    if (name && (uint64_t)(w->name_used + 1) * 2 > w->name_size &&
        !names_rehash(w, w->name_size ? 2 * w->name_size : 64)) {
        free(copy);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
    }
    uint32_t slot;
    if (w->nfree) {
        slot = w->free_slots[--w->nfree];
    } else {
        if (!grow_slots(w)) {
            free(copy);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory for %u objects", w->nslots + 1);
        }
        slot = w->nslots++;
        w->gen[slot] = 0;
        w->dirty[slot] = 0;
    }
    w->gen[slot]++;
    if (w->gen[slot] == 0) /* (after 2^32 reuses: never 0, which no id has) */
        w->gen[slot] = 1;
    w->models[slot] = model->impl;
    w->handles[slot] = model;
    w->poses[slot] = *pose;
    w->names[slot] = copy;
    /* caches written before this run know another object in this slot */
    w->born[slot] = w->pairs.run + 1;
    if (copy) {
        bool found;
        uint32_t k = name_place(w, copy, &found);
        w->name_used += w->name_table[k] != TOMB;
        w->name_table[k] = slot + 1;
    }
    mark_dirty(w, slot);
    w->count++;
    w->tree_valid = false;
    if (id)
        *id = make_id(w, slot);
    return KCBP_OK;
}

kcbp_status kcbp_world_remove(kcbp_world *w, kcbp_world_id id, kcbp_error *err)
{
    uint32_t slot = slot_of(w, id);
    if (slot == UINT32_MAX)
        return no_object(id, err);
    if (w->names[slot]) {
        bool found;
        uint32_t k = name_place(w, w->names[slot], &found);
        if (found)
            w->name_table[k] = TOMB;
        free(w->names[slot]);
        w->names[slot] = NULL;
    }
    w->models[slot] = NULL;
    w->handles[slot] = NULL;
    w->free_slots[w->nfree++] = slot;
    w->count--;
    w->tree_valid = false;
    return KCBP_OK;
}

kcbp_status kcbp_world_set_pose(kcbp_world *w, kcbp_world_id id, const kcbp_pose *pose, kcbp_error *err)
{
    uint32_t slot = slot_of(w, id);
    if (slot == UINT32_MAX)
        return no_object(id, err);
    kcbp_status st = check_pose(pose, err);
    if (st != KCBP_OK)
        return st;
    w->poses[slot] = *pose;
    mark_dirty(w, slot);
    return KCBP_OK;
}

uint32_t kcbp_world_count(const kcbp_world *w) { return w->count; }
bool kcbp_world_contains(const kcbp_world *w, kcbp_world_id id) { return slot_of(w, id) != UINT32_MAX; }

kcbp_status kcbp_world_pose(const kcbp_world *w, kcbp_world_id id, kcbp_pose *pose, kcbp_error *err)
{
    uint32_t slot = slot_of(w, id);
    if (slot == UINT32_MAX)
        return no_object(id, err);
    *pose = w->poses[slot];
    return KCBP_OK;
}

const kcbp_model *kcbp_world_model(const kcbp_world *w, kcbp_world_id id)
{
    uint32_t slot = slot_of(w, id);
    return slot == UINT32_MAX ? NULL : w->handles[slot];
}

const char *kcbp_world_name(const kcbp_world *w, kcbp_world_id id)
{
    uint32_t slot = slot_of(w, id);
    return slot == UINT32_MAX ? NULL : w->names[slot];
}

uint32_t kcbp_world_ids(const kcbp_world *w, kcbp_world_id *ids, uint32_t capacity)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < w->nslots; s++)
        if (w->models[s]) {
            if (ids && n < capacity)
                ids[n] = make_id(w, s);
            n++;
        }
    return n;
}

/* ---- the broad phase ----------------------------------------------------------- */

/* The padded world box of a model at a pose: the scenes' (kcbp_collide's
 * tolerance shared between the two objects of a pair). */
static kcbp_aabb padded_box(const kcbp_model_impl *m, const kcbp_pose *pose)
{
    kcbp_aabb b = kcbp_impl_world_bounds(m, pose);
    double pad = kcbp_tri_tolerance(m->scale + kcbp_v3_len(pose->trans));
    kcbp_vec3 p = kcbp_v3(pad, pad, pad);
    b.min = kcbp_v3_sub(b.min, p);
    b.max = kcbp_v3_add(b.max, p);
    return b;
}

/* Boxes of the objects added or moved, then the tree: built again after
 * adds and removes, refitted after moves. */
static kcbp_status update_tree(kcbp_world *w, kcbp_error *err)
{
    for (uint32_t k = 0; k < w->ndirty; k++) {
        uint32_t s = w->dirty_list[k];
        w->dirty[s] = 0;
        if (w->models[s])
            w->boxes[s] = padded_box(w->models[s], &w->poses[s]);
    }
    bool moved = w->ndirty > 0;
    w->ndirty = 0;
    if (!w->tree_valid) {
        uint32_t n = 0;
        for (uint32_t s = 0; s < w->nslots; s++)
            if (w->models[s])
                w->live[n++] = s;
        kcbp_status st = kcbp_boxtree_build(&w->tree, w->boxes, w->live, n, err);
        w->tree_valid = st == KCBP_OK;
        return st;
    }
    return moved ? kcbp_boxtree_update(&w->tree, w->boxes, false, err) : KCBP_OK;
}

/* ---- collisions ---------------------------------------------------------------- */

void kcbp_world_hits_free(kcbp_world_hits *h)
{
    if (!h)
        return;
    free(h->hits);
    free(h->contacts);
    memset(h, 0, sizeof *h);
}

static kcbp_status add_hit(kcbp_world_hits *out, kcbp_world_id a, kcbp_world_id b, const kcbp_contact *contacts,
                           size_t n, kcbp_containment contained, kcbp_error *err)
{
    if (!kcbp_grow(&out->hits, &out->cap_hits, out->nhits + 1, sizeof *out->hits, 16) ||
        !kcbp_grow(&out->contacts, &out->cap_contacts, out->ncontacts + n, sizeof *out->contacts, 16))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory for %zu touching pairs", out->nhits + 1);
    if (n)
        memcpy(out->contacts + out->ncontacts, contacts, n * sizeof *contacts);
    out->hits[out->nhits++] = (kcbp_world_hit){a, b, out->ncontacts, n, contained};
    out->ncontacts += n;
    return KCBP_OK;
}

typedef struct {
    kcbp_world *w;
    kcbp_world_hits *out;
} collect_ctx;

static kcbp_status collect(void *ctx, const kcbp_scene_pair *p, kcbp_error *err)
{
    collect_ctx *c = ctx;
    return add_hit(c->out, make_id(c->w, p->a), make_id(c->w, p->b), p->contacts, p->ncontacts, p->contained, err);
}

static void reset_hits(kcbp_world_hits *out)
{
    out->nhits = out->ncontacts = 0;
    out->broadphase = out->mesh_tested = out->cache_hits = 0;
}

kcbp_status kcbp_world_collide(kcbp_world *w, kcbp_world_hits *out, kcbp_error *err)
{
    reset_hits(out);
    kcbp_status st = update_tree(w, err);
    if (st != KCBP_OK)
        return st;
    kcbp_pairs_input in = {w->nslots, w->models, w->poses, w->boxes, &w->tree, w->born, NULL, NULL, 0, NULL, NULL};
    kcbp_pairs_options po = {.collide = w->o.collide, .cache = w->o.coherent, .adaptive = w->o.cbp_adaptive};
    kcbp_pairs_stats ps;
    collect_ctx c = {w, out};
    st = kcbp_pairs_run(&w->pairs, &in, &po, collect, &c, &ps, err);
    out->broadphase = ps.broadphase;
    out->mesh_tested = ps.mesh_tested;
    out->cache_hits = ps.cache_axis + ps.cache_contact + ps.cache_near;
    return st;
}

kcbp_status kcbp_world_collide_model(kcbp_world *w, const kcbp_model *model, const kcbp_pose *pose,
                                     kcbp_world_hits *out, kcbp_error *err)
{
    reset_hits(out);
    if (!model || !model->impl)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: the model is not built");
    kcbp_status st = check_pose(pose, err);
    if (st == KCBP_OK)
        st = update_tree(w, err);
    if (st != KCBP_OK)
        return st;
    kcbp_aabb q = padded_box(model->impl, pose);
    size_t n = kcbp_boxtree_query(&w->tree, &q, -1, &w->found, &w->cap_found, 0);
    if (n == SIZE_MAX)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
    kcbp_sort_ids(w->found, n);
    kcbp_collide_options opts = w->o.collide;
    opts.skip_bounds = true; /* the boxes, padded as the pair test pads them, overlap */
    for (size_t k = 0; k < n && st == KCBP_OK; k++) {
        uint32_t s = w->found[k];
        out->broadphase++;
        st = kcbp_collide_pair(w->models[s], &w->poses[s], model->impl, pose, &opts, NULL, &w->result, err);
        if (st != KCBP_OK)
            break;
        out->mesh_tested += w->result.decided_by == KCBP_STAGE_MESH || w->result.decided_by == KCBP_STAGE_SHAPE;
        if (w->result.collide)
            st = add_hit(out, make_id(w, s), 0, w->result.contacts, w->result.ncontacts, w->result.contained, err);
    }
    return st;
}

/* ---- distances --------------------------------------------------------------- */

static double box_dist2_exact(const kcbp_aabb *a, const kcbp_aabb *b)
{
    double d = 0, t;
    t = fmax(0, fmax(a->min.x - b->max.x, b->min.x - a->max.x));
    d += t * t;
    t = fmax(0, fmax(a->min.y - b->max.y, b->min.y - a->max.y));
    d += t * t;
    t = fmax(0, fmax(a->min.z - b->max.z, b->min.z - a->max.z));
    d += t * t;
    return d;
}

#define box_dist2(a, b) (w->bound_scale * box_dist2_exact(a, b))

/* A min-heap of node pairs (or nodes) by the squared distance of their
 * boxes: a lower bound on the squared distance of any two meshes below
 * them (the boxes hold the posed k-CBPs, which hold the meshes, and are
 * padded far above the rounding of this difference). */
typedef struct {
    double d2;
    uint32_t i, j; /* node indices (j unused for one-sided descents) */
} heap_item;

typedef struct {
    heap_item *v;
    size_t n, cap;
} heap;

static bool heap_push(heap *h, heap_item x)
{
    if (!kcbp_grow(&h->v, &h->cap, h->n + 1, sizeof *h->v, 64))
        return false;
    size_t k = h->n++;
    while (k > 0) {
        size_t p = (k - 1) / 2;
        if (h->v[p].d2 < x.d2 || (h->v[p].d2 == x.d2 && (h->v[p].i < x.i || (h->v[p].i == x.i && h->v[p].j <= x.j))))
            break;
        h->v[k] = h->v[p];
        k = p;
    }
    h->v[k] = x;
    return true;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->v[0], x = h->v[--h->n];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && (h->v[c + 1].d2 < h->v[c].d2 ||
                             (h->v[c + 1].d2 == h->v[c].d2 &&
                              (h->v[c + 1].i < h->v[c].i || (h->v[c + 1].i == h->v[c].i && h->v[c + 1].j < h->v[c].j)))))
            c++;
        if (x.d2 < h->v[c].d2 || (x.d2 == h->v[c].d2 && (x.i < h->v[c].i || (x.i == h->v[c].i && x.j <= h->v[c].j))))
            break;
        h->v[k] = h->v[c];
        k = c;
    }
    h->v[k] = x;
    return top;
}

/* One measured pair: kcbp_distance bounded by the best so far. */
static kcbp_status measure(kcbp_world *w, uint32_t sa, const kcbp_model_impl *mb, const kcbp_pose *pb, uint32_t sb,
                           bool external, kcbp_world_distance_result *out, kcbp_error *err)
{
    kcbp_distance_options o = kcbp_distance_options_default();
    o.use_cbp = w->o.collide.use_cbp;
    if (out->found)
        o.max_distance = out->distance;
    kcbp_model a = {(kcbp_model_impl *)w->models[sa]}, b = {(kcbp_model_impl *)mb};
    kcbp_distance_result r;
    kcbp_status st = kcbp_distance(&a, &w->poses[sa], &b, pb, &o, &r, err);
    out->measured++;
    if (st != KCBP_OK || !r.within || (out->found && !(r.distance < out->distance)))
        return st;
    out->found = true;
    out->distance = r.distance;
    out->a = make_id(w, sa);
    out->b = external ? 0 : make_id(w, sb);
    out->point_a = r.point_a;
    out->point_b = r.point_b;
    out->tri_a = r.tri_a;
    out->tri_b = r.tri_b;
    return KCBP_OK;
}

static void reset_distance(kcbp_world_distance_result *out)
{
    memset(out, 0, sizeof *out);
    out->distance = INFINITY;
}

/* The best-first descent of the tree against itself: node pairs (i, j),
 * i <= j, by the distance of their boxes; a pair of leaves measures its
 * objects' pairs. Stops when the nearest pair left is no nearer than the
 * best distance found. */
kcbp_status kcbp_world_distance(kcbp_world *w, kcbp_world_distance_result *out, kcbp_error *err)
{
    reset_distance(out);
    kcbp_status st = update_tree(w, err);
    if (st != KCBP_OK || w->count < 2)
        return st;
    const kcbp_boxtree *t = &w->tree;
    heap h = {0};
    if (!heap_push(&h, (heap_item){0, 0, 0}))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
    while (h.n > 0 && st == KCBP_OK) {
        heap_item it = heap_pop(&h);
        if (out->found && !(it.d2 < out->distance * out->distance))
            break;
        const kcbp_bt_node *ni = &t->nodes[it.i], *nj = &t->nodes[it.j];
        if (ni->count && nj->count) {
            for (uint32_t p = ni->first; p < ni->first + ni->count && st == KCBP_OK; p++)
                for (uint32_t q = it.i == it.j ? p + 1 : nj->first; q < nj->first + nj->count && st == KCBP_OK; q++) {
                    uint32_t sa = t->order[p], sb = t->order[q];
                    if (out->found && !(box_dist2(&t->lbox[p], &t->lbox[q]) < out->distance * out->distance))
                        continue;
                    if (sa > sb) {
                        uint32_t x = sa;
                        sa = sb, sb = x;
                    }
                    st = measure(w, sa, w->models[sb], &w->poses[sb], sb, false, out, err);
                }
            continue;
        }
        /* split the node that is not a leaf (the larger one when neither is) */
        uint32_t kids[4][2];
        int nk = 0;
        if (it.i == it.j) {
            uint32_t l = ni->first;
            kids[nk][0] = l, kids[nk++][1] = l;
            kids[nk][0] = l, kids[nk++][1] = l + 1;
            kids[nk][0] = l + 1, kids[nk++][1] = l + 1;
        } else {
            bool split_i = !ni->count && (nj->count || (ni->box.max.x - ni->box.min.x) + (ni->box.max.y - ni->box.min.y) +
                                                               (ni->box.max.z - ni->box.min.z) >=
                                                           (nj->box.max.x - nj->box.min.x) +
                                                               (nj->box.max.y - nj->box.min.y) +
                                                               (nj->box.max.z - nj->box.min.z));
            uint32_t split = split_i ? it.i : it.j, other = split_i ? it.j : it.i;
            uint32_t l = t->nodes[split].first;
            for (uint32_t c = l; c <= l + 1; c++) {
                kids[nk][0] = c < other ? c : other;
                kids[nk++][1] = c < other ? other : c;
            }
        }
        for (int k = 0; k < nk; k++) {
            double d2 = kids[k][0] == kids[k][1] ? 0 : box_dist2(&t->nodes[kids[k][0]].box, &t->nodes[kids[k][1]].box);
            if (out->found && !(d2 < out->distance * out->distance))
                continue;
            if (!heap_push(&h, (heap_item){d2, kids[k][0], kids[k][1]})) {
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
                break;
            }
        }
    }
    free(h.v);
    return st;
}

kcbp_status kcbp_world_distance_model(kcbp_world *w, const kcbp_model *model, const kcbp_pose *pose,
                                      kcbp_world_distance_result *out, kcbp_error *err)
{
    reset_distance(out);
    if (!model || !model->impl)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "world: the model is not built");
    kcbp_status st = check_pose(pose, err);
    if (st == KCBP_OK)
        st = update_tree(w, err);
    if (st != KCBP_OK || w->count == 0)
        return st;
    const kcbp_boxtree *t = &w->tree;
    kcbp_aabb q = padded_box(model->impl, pose);
    heap h = {0};
    if (!heap_push(&h, (heap_item){box_dist2(&t->nodes[0].box, &q), 0, 0}))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
    while (h.n > 0 && st == KCBP_OK) {
        heap_item it = heap_pop(&h);
        if (out->found && !(it.d2 < out->distance * out->distance))
            break;
        const kcbp_bt_node *nd = &t->nodes[it.i];
        if (nd->count) {
            for (uint32_t p = nd->first; p < nd->first + nd->count && st == KCBP_OK; p++) {
                if (out->found && !(box_dist2(&t->lbox[p], &q) < out->distance * out->distance))
                    continue;
                st = measure(w, t->order[p], model->impl, pose, 0, true, out, err);
            }
            continue;
        }
        for (uint32_t c = nd->first; c <= nd->first + 1; c++) {
            double d2 = box_dist2(&t->nodes[c].box, &q);
            if (out->found && !(d2 < out->distance * out->distance))
                continue;
            if (!heap_push(&h, (heap_item){d2, c, 0})) {
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "world: out of memory");
                break;
            }
        }
    }
    free(h.v);
    return st;
}
