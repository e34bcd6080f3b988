/* Scenes as descriptions (scene_desc.h): objects, the models they use
 * (one per distinct mesh file and scale), poses, errors, and building a
 * scene in code. scene_json.c reads and writes the file format over it,
 * scene.c reads files and builds the models. */
#include "scene_desc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "geom/pose_internal.h"
#include "model_cache.h"

kcbp_status kcbp_scene_error(kcbp_error *err, const char *scene, kcbp_status code, const char *field,
                             const char *fmt, ...)
{
    char msg[KCBP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (field && *field)
        return kcbp_error_set(err, code, "%s: %s: %s", scene, field, msg);
    return kcbp_error_set(err, code, "%s: %s", scene, msg);
}

typedef struct {
    const char *name; /* the scene's name, first in every message */
    kcbp_error *err;
} pctx;

#define perr(c, code, field, ...) kcbp_scene_error((c)->err, (c)->name, code, field, __VA_ARGS__)

static bool finite3(kcbp_vec3 v) { return kcbp_v3_is_finite(v) != 0; }

/* ---- strings --------------------------------------------------------------- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool pool_rehash(kcbp_strpool *p, uint32_t size)
{
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return false;
    for (uint32_t id = 0; id < p->n; id++) {
        uint32_t k = (uint32_t)hash_str(p->strs[id]) & (size - 1);
        while (t[k])
            k = (k + 1) & (size - 1);
        t[k] = id + 1;
    }
    free(p->table);
    p->table = t;
    p->table_size = size;
    return true;
}

const char *kcbp_strpool_intern(kcbp_strpool *p, const char *str)
{
    if ((uint64_t)(p->n + 1) * 2 > p->table_size && !pool_rehash(p, p->table_size ? 2 * p->table_size : 16))
        return NULL;
    uint32_t k = (uint32_t)hash_str(str) & (p->table_size - 1);
    for (; p->table[k]; k = (k + 1) & (p->table_size - 1))
        if (!strcmp(p->strs[p->table[k] - 1], str))
            return p->strs[p->table[k] - 1];
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 8;
        char **g = realloc(p->strs, cap * sizeof *g);
        if (!g)
            return NULL;
        p->strs = g;
        p->cap = cap;
    }
    size_t len = strlen(str);
    char *mem = malloc(4 + len + 1);
    if (!mem)
        return NULL;
    uint32_t id = p->n;
    memcpy(mem, &id, 4);
    memcpy(mem + 4, str, len + 1);
    p->strs[p->n++] = mem + 4;
    p->table[k] = id + 1;
    return mem + 4;
}

void kcbp_strpool_free(kcbp_strpool *p)
{
    for (uint32_t i = 0; i < p->n; i++)
        free(p->strs[i] - 4);
    free(p->strs);
    free(p->table);
    memset(p, 0, sizeof *p);
}

struct kcbp_strblock {
    kcbp_strblock *next;
    size_t used, cap;
    char data[];
};

const char *kcbp_strarena_copy(kcbp_strarena *a, const char *str)
{
    size_t n = strlen(str) + 1;
    if (!a->head || a->head->used + n > a->head->cap) {
        size_t cap = n > 65536 ? n : 65536;
        kcbp_strblock *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    char *p = a->head->data + a->head->used;
    memcpy(p, str, n);
    a->head->used += n;
    return p;
}

void kcbp_strarena_free(kcbp_strarena *a)
{
    while (a->head) {
        kcbp_strblock *n = a->head->next;
        free(a->head);
        a->head = n;
    }
}

kcbp_status kcbp_scene_set_strings(kcbp_scene *s, kcbp_scene_obj *o, const char *name, const char *mesh,
                                   kcbp_error *err)
{
    if (!(o->name = kcbp_strarena_copy(&s->names, name)) || !(o->mesh = kcbp_strpool_intern(&s->meshes, mesh)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the objects' names", s->name);
    return KCBP_OK;
}

/* ---- shapes -------------------------------------------------------------- */

static void put_number(char *buf, size_t cap, size_t *n, double v)
{
    if (*n >= cap)
        return;
    int k = snprintf(buf + *n, cap - *n, ":%.17g", v); /* 17 digits: read back exactly */
    for (int i = 0; k > 0 && i < k && *n + (size_t)i < cap; i++)
        if (buf[*n + (size_t)i] == ',') /* a locale's decimal comma */
            buf[*n + (size_t)i] = '.';
    *n += k > 0 ? (size_t)k : 0;
}

void kcbp_scene_shape_string(const kcbp_shape *sh, char *buf, size_t cap)
{
    int k = snprintf(buf, cap, "%c%s", KCBP_SCENE_SHAPE_MARK, kcbp_shape_kind_name(sh->kind));
    size_t n = k > 0 ? (size_t)k : 0;
    switch (sh->kind) {
    case KCBP_SHAPE_SPHERE: put_number(buf, cap, &n, sh->radius); break;
    case KCBP_SHAPE_CAPSULE:
    case KCBP_SHAPE_CYLINDER:
        put_number(buf, cap, &n, sh->radius);
        put_number(buf, cap, &n, sh->length);
        break;
    case KCBP_SHAPE_BOX:
        put_number(buf, cap, &n, sh->size.x);
        put_number(buf, cap, &n, sh->size.y);
        put_number(buf, cap, &n, sh->size.z);
        break;
    default: break;
    }
}

kcbp_shape kcbp_scene_shape_of(const char *marked)
{
    kcbp_shape sh;
    memset(&sh, 0, sizeof sh);
    if (kcbp_scene_is_shape_string(marked) && kcbp_shape_parse(marked + 1, &sh, NULL) != KCBP_OK)
        memset(&sh, 0, sizeof sh); /* (never: the spelling was made from a checked shape) */
    return sh;
}

kcbp_shape kcbp_scene_shape_scaled(const kcbp_shape *sh, double scale)
{
    kcbp_shape r = *sh;
    r.radius *= scale;
    r.length *= scale;
    r.size = kcbp_v3_scale(r.size, scale);
    return r;
}

/* ---- life ---------------------------------------------------------------- */

kcbp_status kcbp_scene_init(kcbp_scene *s, const char *name, const char *dir, kcbp_error *err)
{
    memset(s, 0, sizeof *s);
    s->frames = 1;
    if (!(s->name = kcbp_strdup(name ? name : "scene")) || !(s->dir = kcbp_strdup(dir ? dir : ""))) {
        kcbp_scene_clear(s);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name ? name : "scene");
    }
    return KCBP_OK;
}

void kcbp_scene_clear(kcbp_scene *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->models && i < s->nmodels; i++) {
        free(s->models[i].path);
        if (s->models[i].cached)
            kcbp_model_cache_release(s->cache, s->models[i].cached);
        else
            kcbp_model_free(&s->models[i].model);
    }
    free(s->objects);
    free(s->models);
    free(s->name);
    free(s->dir);
    free(s->mesh_root);
    free(s->mesh_base);
    kcbp_strpool_free(&s->meshes);
    kcbp_strarena_free(&s->names);
    memset(s, 0, sizeof *s);
}

void kcbp_scene_free(kcbp_scene *s)
{
    kcbp_scene_clear(s);
    free(s);
}

kcbp_status kcbp_scene_push_object(kcbp_scene *s, kcbp_error *err)
{
    pctx c = {s->name, err};
    if (s->nobjects >= KCBP_SCENE_MAX_OBJECTS)
        return perr(&c, KCBP_ERR_LIMIT, "objects", "more than the limit of %u objects", KCBP_SCENE_MAX_OBJECTS);
    size_t cap = s->cap_objects;
    if (!kcbp_grow(&s->objects, &cap, (size_t)s->nobjects + 1, sizeof *s->objects, 16))
        return perr(&c, KCBP_ERR_NOMEM, "objects", "out of memory for %u objects", s->nobjects + 1);
    s->cap_objects = (uint32_t)cap;
    kcbp_scene_obj *o = &s->objects[s->nobjects++];
    memset(o, 0, sizeof *o);
    o->scale = 1.0;
    o->axis = kcbp_v3(0, 0, 1);
    o->rot0 = kcbp_mat3_identity();
    return KCBP_OK;
}

/* ---- models ------------------------------------------------------------- */

static char *join_path(const char *dir, const char *file)
{
    if (!dir || !*dir || file[0] == '/')
        return kcbp_strdup(file);
    size_t a = strlen(dir), b = strlen(file);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, file, b + 1);
    }
    return p;
}

typedef struct {
    const char *key;
    double scale;
    uint32_t idx;
} sort_item;

static int cmp_name(const void *p, const void *q)
{
    const sort_item *x = p, *y = q;
    int r = strcmp(x->key, y->key);
    return r ? r : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Two objects with one name: the message names the pair the sorted list
 * meets first (the smallest such name, its first two objects). */
static kcbp_status duplicate_names(kcbp_scene *s, pctx *c)
{
    uint32_t n = s->nobjects;
    sort_item *items = malloc((n ? n : 1) * sizeof *items);
    if (!items)
        return perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u objects", n);
    for (uint32_t i = 0; i < n; i++)
        items[i] = (sort_item){s->objects[i].name, 0, i};
    qsort(items, n, sizeof *items, cmp_name);
    kcbp_status st = KCBP_OK;
    for (uint32_t i = 1; i < n && st == KCBP_OK; i++)
        if (!strcmp(items[i].key, items[i - 1].key)) {
            char field[64];
            snprintf(field, sizeof field, "objects[%u].name", items[i].idx);
            st = perr(c, KCBP_ERR_PARSE, field, "'%s' is already the name of objects[%u]", items[i].key,
                      items[i - 1].idx);
        }
    free(items);
    return st;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Whether every name is unique: a hash set of the names, O(n). */
static kcbp_status unique_names(kcbp_scene *s, pctx *c)
{
    uint32_t n = s->nobjects, size = 16;
    while (size < 2 * (uint64_t)n)
        size *= 2;
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u objects", n);
    bool dup = false;
    for (uint32_t i = 0; i < n && !dup; i++) {
        uint32_t k = (uint32_t)hash_str(s->objects[i].name) & (size - 1);
        for (; t[k] && !dup; k = (k + 1) & (size - 1))
            dup = !strcmp(s->objects[t[k] - 1].name, s->objects[i].name);
        t[k] = i + 1;
    }
    free(t);
    return dup ? duplicate_names(s, c) : KCBP_OK;
}

typedef struct {
    uint32_t path;   /* the joined path's id */
    double scale;
    uint32_t first;  /* the first object that uses it */
    uint32_t rank;   /* its place among the models sorted by (path, scale) */
} model_key;

static int cmp_model_key(const void *p, const void *q, void *ctx)
{
    const model_key *x = p, *y = q;
    const kcbp_strpool *paths = ctx;
    int r = strcmp(paths->strs[x->path], paths->strs[y->path]);
    if (r)
        return r;
    return x->scale < y->scale ? -1 : x->scale > y->scale;
}

/* Unique names, and one model per distinct (joined path, scale), sorted by
 * both so that the models of one mesh file are adjacent. O(n) but for the
 * sort of the distinct models: the mesh strings are interned, each joined
 * once, and (path, scale) keys found in a hash table. */
kcbp_status kcbp_scene_assign_models(kcbp_scene *s, kcbp_error *err)
{
    pctx cc = {s->name, err}, *c = &cc;
    uint32_t n = s->nobjects;
    /* Assigned again (objects were added since): the old models go. */
    for (uint32_t i = 0; s->models && i < s->nmodels; i++)
        free(s->models[i].path);
    free(s->models);
    s->models = NULL;
    s->nmodels = 0;
    s->assigned = false;
    kcbp_status st = unique_names(s, c);
    if (st != KCBP_OK)
        return st;
    uint32_t nmesh = s->meshes.n;
    kcbp_strpool paths = {0};
    uint32_t *path_of = malloc((nmesh ? nmesh : 1) * sizeof *path_of); /* mesh id -> joined path id */
    model_key *keys = NULL;
    uint32_t nkeys = 0, capkeys = 0, size = 16;
    while (size < 2 * (uint64_t)n)
        size *= 2;
    uint32_t *table = calloc(size, sizeof *table); /* key index + 1 */
    uint32_t *rank = NULL;
    if (!path_of || !table) {
        st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u objects", n);
        goto done;
    }
    for (uint32_t m = 0; m < nmesh; m++) {
        const char *mesh = s->meshes.strs[m];
        char *joined = kcbp_scene_is_shape_string(mesh) ? kcbp_strdup(mesh) : join_path(s->dir, mesh);
        const char *in = joined ? kcbp_strpool_intern(&paths, joined) : NULL;
        free(joined);
        if (!in) {
            st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for mesh paths");
            goto done;
        }
        path_of[m] = kcbp_strpool_id(in);
    }
    for (uint32_t i = 0; i < n; i++) {
        kcbp_scene_obj *o = &s->objects[i];
        uint32_t path = path_of[kcbp_strpool_id(o->mesh)];
        uint64_t bits;
        memcpy(&bits, &o->scale, sizeof bits);
        uint32_t k = (uint32_t)mix64(bits ^ ((uint64_t)path << 32) ^ path) & (size - 1);
        for (; table[k]; k = (k + 1) & (size - 1))
            if (keys[table[k] - 1].path == path && keys[table[k] - 1].scale == o->scale)
                break;
        if (!table[k]) {
            if (nkeys == capkeys) {
                uint32_t cap = capkeys ? 2 * capkeys : 16;
                model_key *g = realloc(keys, cap * sizeof *g);
                if (!g) {
                    st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for the models");
                    goto done;
                }
                keys = g;
                capkeys = cap;
            }
            keys[nkeys] = (model_key){path, o->scale, i, 0};
            table[k] = ++nkeys;
        }
        o->model = table[k] - 1; /* the key's index, for now */
    }
    /* The models sorted by (path, scale). */
    uint32_t *order = malloc((nkeys ? nkeys : 1) * sizeof *order);
    rank = order;
    if (!order) {
        st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for the models");
        goto done;
    }
    {
        model_key *sorted = malloc((nkeys ? nkeys : 1) * sizeof *sorted);
        if (!sorted) {
            st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for the models");
            goto done;
        }
        for (uint32_t k = 0; k < nkeys; k++) {
            sorted[k] = keys[k];
            sorted[k].rank = k; /* (here: the key's index) */
        }
        qsort_r(sorted, nkeys, sizeof *sorted, cmp_model_key, &paths);
        for (uint32_t r = 0; r < nkeys; r++)
            order[sorted[r].rank] = r;
        for (uint32_t k = 0; k < nkeys; k++)
            keys[k].rank = order[k];
        free(sorted);
    }
    if (nkeys > KCBP_SCENE_MAX_MODELS) { /* each model costs its mesh, trees and k-CBPs */
        uint32_t first = UINT32_MAX;
        for (uint32_t k = 0; k < nkeys; k++)
            if (keys[k].rank >= KCBP_SCENE_MAX_MODELS && keys[k].first < first)
                first = keys[k].first;
        char field[64];
        snprintf(field, sizeof field, "objects[%u]", first);
        st = perr(c, KCBP_ERR_LIMIT, field,
                  "the scene needs %u models (distinct mesh files or shapes, and scales), more than the limit of %u", nkeys,
                  KCBP_SCENE_MAX_MODELS);
        goto done;
    }
    if (!(s->models = calloc(nkeys ? nkeys : 1, sizeof *s->models))) {
        st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u models", nkeys);
        goto done;
    }
    for (uint32_t k = 0; k < nkeys; k++) {
        kcbp_scene_model_entry *md = &s->models[keys[k].rank];
        md->scale = keys[k].scale;
        md->first_object = keys[k].first;
        if (kcbp_scene_is_shape_string(paths.strs[keys[k].path])) {
            kcbp_shape sh = kcbp_scene_shape_of(paths.strs[keys[k].path]);
            md->shape = kcbp_scene_shape_scaled(&sh, md->scale);
        }
        if (!(md->path = kcbp_strdup(paths.strs[keys[k].path]))) {
            st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for mesh paths");
            s->nmodels = nkeys;
            goto done;
        }
    }
    s->nmodels = nkeys;
    for (uint32_t i = 0; i < n; i++)
        s->objects[i].model = keys[s->objects[i].model].rank;
    s->assigned = true;
done:
    free(rank);
    free(keys);
    free(table);
    free(path_of);
    kcbp_strpool_free(&paths);
    return st;
}

/* ---- motion ------------------------------------------------------------- */

/* Every pose of a moving scene must be finite and within KCBP_COORD_MAX: a
 * scene whose numbers are finite can still move an object past the largest
 * double (a velocity of 1e300 for 100 frames of 1e10 s), and infinite
 * coordinates would reach the collision test. The last frame is the farthest: each coordinate of
 * position + t * velocity, and the spin angle, are linear in t. */
static kcbp_status check_motion(const kcbp_scene *s, uint32_t i0, uint32_t i1, kcbp_error *err)
{
    pctx cc = {s->name, err}, *c = &cc;
    double t_end = (double)(s->frames - 1) * s->dt;
    if (!isfinite(t_end))
        return perr(c, KCBP_ERR_PARSE, "motion", "the last frame's time (frames - 1) * dt overflows");
    for (uint32_t i = i0; i < i1; i++) {
        const kcbp_scene_obj *o = &s->objects[i];
        char field[64];
        kcbp_vec3 end = kcbp_v3_add(o->position, kcbp_v3_scale(o->velocity, t_end));
        if (!finite3(end) || kcbp_v3_max_abs(end) > KCBP_COORD_MAX) {
            snprintf(field, sizeof field, "objects[%u].velocity", i);
            return perr(c, KCBP_ERR_PARSE, field, "moves the object beyond the limit of %g by t = %g s",
                        KCBP_COORD_MAX, t_end);
        }
        if (!isfinite(t_end * o->spin_deg_per_s)) {
            snprintf(field, sizeof field, "objects[%u].angular_velocity.deg_per_s", i);
            return perr(c, KCBP_ERR_PARSE, field, "turns the object by more than the largest number of degrees by "
                        "t = %g s", t_end);
        }
    }
    return KCBP_OK;
}

kcbp_status kcbp_scene_check_motion(const kcbp_scene *s, kcbp_error *err)
{
    return check_motion(s, 0, s->nobjects, err);
}

kcbp_status kcbp_scene_check_object_motion(const kcbp_scene *s, uint32_t i, kcbp_error *err)
{
    return check_motion(s, i, i + 1, err);
}

/* ---- poses -------------------------------------------------------------- */

static bool is_zero3(kcbp_vec3 v) { return v.x == 0 && v.y == 0 && v.z == 0; }

kcbp_pose kcbp_scene_pose_at(const kcbp_scene *s, uint32_t i, double t)
{
    const kcbp_scene_obj *o = &s->objects[i];
    kcbp_pose p = {o->rot0, o->position};
    if (t == 0.0)
        return p;
    p.trans = kcbp_v3_add(o->position, kcbp_v3_scale(o->velocity, t));
    double deg = t * o->spin_deg_per_s;
    /* Validated when added: the axis is finite, and non-zero here. A rate
     * times a time may overflow to infinity: then the spin is left out
     * rather than made NaN. (kcbp_pose_from_axis_angle's rotation, without
     * its checks and its pose: the same bits for less work per frame.) */
    if (o->spin_deg_per_s != 0.0 && isfinite(deg) && !is_zero3(o->spin_axis)) {
        kcbp_mat3 spin = kcbp_axis_angle_rotation(o->spin_axis, deg);
        p.rot = kcbp_mat3_mul(&spin, &o->rot0);
    }
    return p;
}

kcbp_pose kcbp_scene_object_pose(const kcbp_scene *s, uint32_t i, uint32_t frame)
{
    return kcbp_scene_pose_at(s, i, s->moving ? (double)frame * s->dt : 0.0);
}

/* ---- a scene made in code ----------------------------------------------- */

kcbp_scene_object kcbp_scene_object_default(void)
{
    kcbp_scene_object o = {.name = NULL, .mesh = NULL, .scale = 1.0, .axis = {0, 0, 1}, .spin_axis = {0, 0, 1}};
    return o;
}

kcbp_status kcbp_scene_new(const char *name, const char *dir, kcbp_scene **out, kcbp_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name ? name : "scene");
    kcbp_status st = kcbp_scene_init(*out, name, dir, err);
    if (st != KCBP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}


kcbp_status kcbp_scene_add_object(kcbp_scene *s, const kcbp_scene_object *in, kcbp_error *err)
{
    pctx c = {s->name, err};
    char field[64];
    snprintf(field, sizeof field, "objects[%u]", s->nobjects);
    if (s->built)
        return perr(&c, KCBP_ERR_INVALID, field, "the scene is built: no object can be added");
    if (!in->name || !in->name[0] || !in->mesh || !in->mesh[0])
        return perr(&c, KCBP_ERR_INVALID, field, "a name and a mesh are needed");
    if (!finite3(in->position) || !finite3(in->axis) || !isfinite(in->angle_deg) || !finite3(in->velocity) ||
        !finite3(in->spin_axis) || !isfinite(in->spin_deg_per_s) || !isfinite(in->scale))
        return perr(&c, KCBP_ERR_INVALID, field, "a number is not finite");
    if (kcbp_v3_max_abs(in->position) > KCBP_COORD_MAX)
        return perr(&c, KCBP_ERR_INVALID, field, "position beyond the limit of %g", KCBP_COORD_MAX);
    if (!(in->scale > 0))
        return perr(&c, KCBP_ERR_INVALID, field, "scale must be > 0, not %g", in->scale);
    if ((is_zero3(in->axis) && in->angle_deg != 0) || (is_zero3(in->spin_axis) && in->spin_deg_per_s != 0))
        return perr(&c, KCBP_ERR_INVALID, field, "zero axis with a non-zero angle or rate");
    kcbp_pose p;
    if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), in->axis, in->angle_deg, &p, NULL) != KCBP_OK)
        return perr(&c, KCBP_ERR_INVALID, field, "not a rotation");
    /* A mesh spelled as a shape ("capsule:0.05:0.4", as on the command line)
     * is that shape ("./capsule:0.05:0.4" names the file). */
    const char *mesh = in->mesh;
    char spelled[128], sub[80];
    if (kcbp_scene_is_shape_string(mesh)) {
        snprintf(sub, sizeof sub, "%s.mesh", field);
        return perr(&c, KCBP_ERR_INVALID, sub, "a mesh path cannot start with the byte 0x01");
    }
    if (kcbp_shape_spelled(mesh)) {
        kcbp_shape sh;
        kcbp_error e;
        snprintf(sub, sizeof sub, "%s.mesh", field);
        if (kcbp_shape_parse(mesh, &sh, &e) != KCBP_OK)
            return perr(&c, KCBP_ERR_INVALID, sub, "%s", e.msg);
        kcbp_shape scaled = kcbp_scene_shape_scaled(&sh, in->scale);
        if (kcbp_shape_check(&scaled, &e) != KCBP_OK) {
            snprintf(sub, sizeof sub, "%s.scale", field);
            return perr(&c, KCBP_ERR_INVALID, sub, "the scaled shape is out of range: %s", e.msg);
        }
        kcbp_scene_shape_string(&sh, spelled, sizeof spelled);
        mesh = spelled;
    }
    kcbp_status st = kcbp_scene_push_object(s, err);
    if (st != KCBP_OK)
        return st;
    kcbp_scene_obj *o = &s->objects[s->nobjects - 1];
    st = kcbp_scene_set_strings(s, o, in->name, mesh, err);
    o->scale = in->scale;
    o->position = in->position;
    o->axis = in->axis;
    o->angle_deg = in->angle_deg;
    o->velocity = in->velocity;
    o->spin_axis = in->spin_axis;
    o->spin_deg_per_s = in->spin_deg_per_s;
    o->rot0 = p.rot;
    if (st == KCBP_OK && s->moving)
        st = kcbp_scene_check_object_motion(s, s->nobjects - 1, err);
    if (st != KCBP_OK) { /* (its name stays in the arena: freed with the scene) */
        s->nobjects--;
        return st;
    }
    s->assigned = false; /* the models are assigned again when the scene is built */
    return KCBP_OK;
}

kcbp_status kcbp_scene_set_motion(kcbp_scene *s, uint32_t frames, double dt, kcbp_error *err)
{
    pctx c = {s->name, err};
    if (s->built)
        return perr(&c, KCBP_ERR_INVALID, "motion", "the scene is built: its motion cannot change");
    if (frames < 1 || frames > KCBP_SCENE_MAX_FRAMES)
        return perr(&c, KCBP_ERR_INVALID, "motion.frames", "expected an integer in [1, %u], not %u",
                    KCBP_SCENE_MAX_FRAMES, frames);
    if (!(dt > 0) || !isfinite(dt))
        return perr(&c, KCBP_ERR_INVALID, "motion.dt", "must be > 0, not %g", dt);
    if ((uint64_t)s->nobjects * frames > KCBP_SCENE_MAX_OBJECT_FRAMES)
        return perr(&c, KCBP_ERR_LIMIT, "motion.frames",
                    "%u objects in %u frames, more than the limit of %llu object-frames", s->nobjects, frames,
                    (unsigned long long)KCBP_SCENE_MAX_OBJECT_FRAMES);
    kcbp_scene old = *s;
    s->frames = frames;
    s->dt = dt;
    s->moving = true;
    kcbp_status st = kcbp_scene_check_motion(s, err);
    if (st != KCBP_OK) {
        s->frames = old.frames;
        s->dt = old.dt;
        s->moving = old.moving;
    }
    return st;
}

/* ---- reading ------------------------------------------------------------- */

const char *kcbp_scene_name(const kcbp_scene *s) { return s->name; }
uint32_t kcbp_scene_object_count(const kcbp_scene *s) { return s->nobjects; }
uint32_t kcbp_scene_frame_count(const kcbp_scene *s) { return s->frames; }
double kcbp_scene_dt(const kcbp_scene *s) { return s->dt; }
bool kcbp_scene_is_moving(const kcbp_scene *s) { return s->moving; }
bool kcbp_scene_is_built(const kcbp_scene *s) { return s->built; }
uint32_t kcbp_scene_model_count(const kcbp_scene *s) { return s->assigned ? s->nmodels : 0; }
uint32_t kcbp_scene_object_model(const kcbp_scene *s, uint32_t i) { return s->objects[i].model; }

kcbp_scene_object kcbp_scene_object_at(const kcbp_scene *s, uint32_t i)
{
    const kcbp_scene_obj *o = &s->objects[i];
    const char *mesh = kcbp_scene_is_shape_string(o->mesh) ? o->mesh + 1 : o->mesh; /* a shape: as spelled */
    kcbp_scene_object r = {o->name,     mesh,        o->scale,     o->position,     o->axis,
                           o->angle_deg, o->velocity, o->spin_axis, o->spin_deg_per_s};
    return r;
}

const kcbp_model *kcbp_scene_model(const kcbp_scene *s, uint32_t m)
{
    return s->built && m < s->nmodels ? &s->models[m].model : NULL;
}

const char *kcbp_scene_model_path(const kcbp_scene *s, uint32_t m)
{
    if (!s->assigned || m >= s->nmodels)
        return NULL;
    const char *p = s->models[m].path;
    return kcbp_scene_is_shape_string(p) ? p + 1 : p; /* a shape: as spelled */
}

kcbp_scene_build_times kcbp_scene_build_time(const kcbp_scene *s)
{
    kcbp_scene_build_times t = {s->load_ms, s->build_ms};
    return t;
}
