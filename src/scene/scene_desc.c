/* Scenes as descriptions (scene_internal.h): objects, the models they use
 * (one per distinct mesh file and scale), poses, errors, and building a
 * scene in code. scene_json.c reads and writes the file format over it,
 * scene.c reads files and builds the models. */
#include "scene_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
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
    for (uint32_t i = 0; s->objects && i < s->nobjects; i++) {
        free(s->objects[i].name);
        free(s->objects[i].mesh);
    }
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

static int cmp_model(const void *p, const void *q)
{
    const sort_item *x = p, *y = q;
    int r = strcmp(x->key, y->key);
    if (r)
        return r;
    if (x->scale != y->scale)
        return x->scale < y->scale ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Unique names, and one model per distinct (path, scale), sorted by both so
 * that the models of one mesh file are adjacent. */
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
    sort_item *items = malloc(n * sizeof *items);
    char **paths = calloc(n, sizeof *paths);
    kcbp_status st = KCBP_OK;
    if (!items || !paths) {
        st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u objects", n);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++)
        items[i] = (sort_item){s->objects[i].name, 0, i};
    qsort(items, n, sizeof *items, cmp_name);
    for (uint32_t i = 1; i < n; i++)
        if (!strcmp(items[i].key, items[i - 1].key)) {
            char field[64];
            snprintf(field, sizeof field, "objects[%u].name", items[i].idx);
            st = perr(c, KCBP_ERR_PARSE, field, "'%s' is already the name of objects[%u]", items[i].key,
                      items[i - 1].idx);
            goto done;
        }
    for (uint32_t i = 0; i < n; i++) {
        if (!(paths[i] = join_path(s->dir, s->objects[i].mesh))) {
            st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for mesh paths");
            goto done;
        }
        items[i] = (sort_item){paths[i], s->objects[i].scale, i};
    }
    qsort(items, n, sizeof *items, cmp_model);
    uint32_t nm = 0;
    for (uint32_t i = 0; i < n; i++)
        nm += i == 0 || cmp_model(&(sort_item){items[i].key, items[i].scale, 0},
                                  &(sort_item){items[i - 1].key, items[i - 1].scale, 0}) != 0;
    if (nm > KCBP_SCENE_MAX_MODELS) { /* each model costs its mesh, trees and k-CBPs */
        uint32_t first = UINT32_MAX;
        for (uint32_t i = 0, m = 0; i < n; i++) {
            m += i == 0 || strcmp(items[i].key, items[i - 1].key) != 0 || items[i].scale != items[i - 1].scale;
            if (m > KCBP_SCENE_MAX_MODELS && items[i].idx < first)
                first = items[i].idx;
        }
        char field[64];
        snprintf(field, sizeof field, "objects[%u]", first);
        st = perr(c, KCBP_ERR_LIMIT, field,
                  "the scene needs %u models (distinct mesh files and scales), more than the limit of %u", nm,
                  KCBP_SCENE_MAX_MODELS);
        goto done;
    }
    if (!(s->models = calloc(nm, sizeof *s->models))) {
        st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u models", nm);
        goto done;
    }
    for (uint32_t i = 0, m = 0; i < n; i++) {
        bool fresh = i == 0 || strcmp(items[i].key, items[i - 1].key) != 0 || items[i].scale != items[i - 1].scale;
        if (fresh) {
            kcbp_scene_model_entry *md = &s->models[m++];
            md->path = paths[items[i].idx];
            paths[items[i].idx] = NULL;
            md->scale = items[i].scale;
            md->first_object = items[i].idx; /* ties sort by index: the first user */
            s->nmodels = m;
        }
        s->objects[items[i].idx].model = s->nmodels - 1;
    }
    s->assigned = true;
done:
    for (uint32_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    free(items);
    return st;
}

/* ---- motion ------------------------------------------------------------- */

/* Every pose of a moving scene must be finite and within KCBP_COORD_MAX: a
 * scene whose numbers are finite can still move an object past the largest
 * double (a velocity of 1e300 for 100 frames of 1e10 s), and infinite
 * coordinates would reach the collision test. The last frame is the farthest: each coordinate of
 * position + t * velocity, and the spin angle, are linear in t. */
kcbp_status kcbp_scene_check_motion(const kcbp_scene *s, kcbp_error *err)
{
    pctx cc = {s->name, err}, *c = &cc;
    double t_end = (double)(s->frames - 1) * s->dt;
    if (!isfinite(t_end))
        return perr(c, KCBP_ERR_PARSE, "motion", "the last frame's time (frames - 1) * dt overflows");
    for (uint32_t i = 0; i < s->nobjects; i++) {
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

/* ---- poses -------------------------------------------------------------- */

kcbp_pose kcbp_scene_pose_at(const kcbp_scene *s, uint32_t i, double t)
{
    const kcbp_scene_obj *o = &s->objects[i];
    kcbp_pose p = {o->rot0, o->position};
    if (t == 0.0)
        return p;
    p.trans = kcbp_v3_add(o->position, kcbp_v3_scale(o->velocity, t));
    if (o->spin_deg_per_s != 0.0) {
        kcbp_pose spin;
        /* Validated at parse time: the axis is non-zero here. A rate times a
         * time may overflow to infinity: then the spin is left out rather
         * than made NaN. */
        if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->spin_axis, t * o->spin_deg_per_s, &spin, NULL) == KCBP_OK)
            p.rot = kcbp_mat3_mul(&spin.rot, &o->rot0);
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

static bool is_zero3(kcbp_vec3 v) { return v.x == 0 && v.y == 0 && v.z == 0; }

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
    kcbp_status st = kcbp_scene_push_object(s, err);
    if (st != KCBP_OK)
        return st;
    kcbp_scene_obj *o = &s->objects[s->nobjects - 1];
    o->name = kcbp_strdup(in->name);
    o->mesh = kcbp_strdup(in->mesh);
    o->scale = in->scale;
    o->position = in->position;
    o->axis = in->axis;
    o->angle_deg = in->angle_deg;
    o->velocity = in->velocity;
    o->spin_axis = in->spin_axis;
    o->spin_deg_per_s = in->spin_deg_per_s;
    o->rot0 = p.rot;
    if (!o->name || !o->mesh)
        st = perr(&c, KCBP_ERR_NOMEM, field, "out of memory");
    else if (s->moving)
        st = kcbp_scene_check_motion(s, err);
    if (st != KCBP_OK) {
        free(o->name);
        free(o->mesh);
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
    kcbp_scene_object r = {o->name,     o->mesh,     o->scale,     o->position,     o->axis,
                           o->angle_deg, o->velocity, o->spin_axis, o->spin_deg_per_s};
    return r;
}

const kcbp_model *kcbp_scene_model(const kcbp_scene *s, uint32_t m)
{
    return s->built && m < s->nmodels ? &s->models[m].model : NULL;
}

const char *kcbp_scene_model_path(const kcbp_scene *s, uint32_t m)
{
    return s->assigned && m < s->nmodels ? s->models[m].path : NULL;
}

kcbp_scene_build_times kcbp_scene_build_time(const kcbp_scene *s)
{
    kcbp_scene_build_times t = {s->load_ms, s->build_ms};
    return t;
}
