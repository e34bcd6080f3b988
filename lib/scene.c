#include "scene.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "obj.h"
#include "tritri.h"
#include "utf8.h"

/* ---- small helpers ------------------------------------------------------ */

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static bool finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static bool is_zero3(kcbp_vec3 v) { return v.x == 0 && v.y == 0 && v.z == 0; }

void kcbp_scene_free(kcbp_scene *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->objects && i < s->nobjects; i++) {
        free(s->objects[i].name);
        free(s->objects[i].mesh);
    }
    for (uint32_t i = 0; s->models && i < s->nmodels; i++) {
        free(s->models[i].path);
        kcbp_model_free(&s->models[i].model);
    }
    free(s->objects);
    free(s->models);
    free(s->name);
    free(s->dir);
    memset(s, 0, sizeof *s);
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
    const char *name; /* the scene's name, first in every message */
    kcbp_error *err;
} pctx;

static kcbp_status perr(pctx *c, kcbp_status code, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static kcbp_status perr(pctx *c, kcbp_status code, const char *field, const char *fmt, ...)
{
    char msg[KCBP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (field && *field)
        return kcbp_error_set(c->err, code, "%s: %s: %s", c->name, field, msg);
    return kcbp_error_set(c->err, code, "%s: %s", c->name, msg);
}

static const char *json_type(const cJSON *j)
{
    if (cJSON_IsNumber(j))
        return "a number";
    if (cJSON_IsString(j))
        return "a string";
    if (cJSON_IsArray(j))
        return "an array";
    if (cJSON_IsObject(j))
        return "an object";
    if (cJSON_IsBool(j))
        return "a boolean";
    if (cJSON_IsNull(j))
        return "null";
    return "an invalid value";
}

/* Every key of obj must be one of `allowed` (NULL-terminated) and appear
 * once. */
static kcbp_status check_keys(pctx *c, const cJSON *obj, const char *field, const char *const *allowed,
                              const char *expected)
{
    for (const cJSON *k = obj->child; k; k = k->next) {
        bool known = false;
        for (const char *const *a = allowed; *a && !known; a++)
            known = !strcmp(k->string, *a);
        char where[160];
        if (*field)
            snprintf(where, sizeof where, "%s.%s", field, k->string);
        else
            snprintf(where, sizeof where, "%s", k->string);
        if (!known)
            return perr(c, KCBP_ERR_PARSE, where, "unknown key (expected %s)", expected);
        for (const cJSON *o = obj->child; o != k; o = o->next)
            if (!strcmp(o->string, k->string))
                return perr(c, KCBP_ERR_PARSE, where, "key given twice");
    }
    return KCBP_OK;
}

static kcbp_status get_number(pctx *c, const cJSON *j, const char *field, double *out)
{
    if (!cJSON_IsNumber(j))
        return perr(c, KCBP_ERR_PARSE, field, "expected a number, got %s", json_type(j));
    if (!isfinite(j->valuedouble))
        return perr(c, KCBP_ERR_PARSE, field, "not a finite number");
    *out = j->valuedouble;
    return KCBP_OK;
}

static kcbp_status get_vec3(pctx *c, const cJSON *j, const char *field, kcbp_vec3 *out)
{
    double v[3];
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != 3)
        return perr(c, KCBP_ERR_PARSE, field, "expected 3 numbers");
    int i = 0;
    for (const cJSON *e = j->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e))
            return perr(c, KCBP_ERR_PARSE, field, "expected 3 numbers (item %d is %s)", i, json_type(e));
        if (!isfinite(e->valuedouble))
            return perr(c, KCBP_ERR_PARSE, field, "item %d is not a finite number", i);
        v[i] = e->valuedouble;
    }
    *out = kcbp_v3(v[0], v[1], v[2]);
    return KCBP_OK;
}

static kcbp_status get_string(pctx *c, const cJSON *j, const char *field, const char **out)
{
    if (!cJSON_IsString(j))
        return perr(c, KCBP_ERR_PARSE, field, "expected a string, got %s", json_type(j));
    if (!j->valuestring[0])
        return perr(c, KCBP_ERR_PARSE, field, "empty string");
    *out = j->valuestring;
    return KCBP_OK;
}

/* {"axis": [x, y, z], <angle_key>: number}: both required. */
static kcbp_status get_axis_angle(pctx *c, const cJSON *j, const char *field, const char *angle_key,
                                  kcbp_vec3 *axis, double *angle, kcbp_mat3 *rot)
{
    char where[160], expected[64];
    if (!cJSON_IsObject(j))
        return perr(c, KCBP_ERR_PARSE, field, "expected an object {\"axis\": [x, y, z], \"%s\": number}, got %s",
                    angle_key, json_type(j));
    const char *keys[] = {"axis", angle_key, NULL};
    snprintf(expected, sizeof expected, "axis, %s", angle_key);
    kcbp_status st = check_keys(c, j, field, keys, expected);
    if (st != KCBP_OK)
        return st;
    const cJSON *ax = cJSON_GetObjectItemCaseSensitive(j, "axis");
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(j, angle_key);
    snprintf(where, sizeof where, "%s.axis", field);
    if (!ax)
        return perr(c, KCBP_ERR_PARSE, where, "missing");
    if ((st = get_vec3(c, ax, where, axis)) != KCBP_OK)
        return st;
    snprintf(where, sizeof where, "%s.%s", field, angle_key);
    if (!an)
        return perr(c, KCBP_ERR_PARSE, where, "missing");
    if ((st = get_number(c, an, where, angle)) != KCBP_OK)
        return st;
    if (is_zero3(*axis) && *angle != 0) {
        snprintf(where, sizeof where, "%s.axis", field);
        return perr(c, KCBP_ERR_PARSE, where, "zero axis with a non-zero %s", angle_key);
    }
    if (rot) {
        kcbp_pose p;
        if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), *axis, *angle, &p, NULL) != KCBP_OK)
            return perr(c, KCBP_ERR_PARSE, field, "not a rotation");
        *rot = p.rot;
    }
    return KCBP_OK;
}

static kcbp_status parse_object(pctx *c, const cJSON *j, uint32_t i, kcbp_scene_object *o)
{
    char field[64], where[160];
    snprintf(field, sizeof field, "objects[%u]", i);
    o->scale = 1.0;
    o->rot0 = kcbp_mat3_identity();
    o->axis = kcbp_v3(0, 0, 1);
    if (!cJSON_IsObject(j))
        return perr(c, KCBP_ERR_PARSE, field, "expected an object, got %s", json_type(j));
    static const char *const keys[] = {"name",     "mesh",     "position", "rotation", "scale", "velocity",
                                       "angular_velocity", NULL};
    kcbp_status st = check_keys(c, j, field, keys,
                                "name, mesh, position, rotation, scale, velocity, angular_velocity");
    if (st != KCBP_OK)
        return st;
    const char *s;
#define FIELD(key) (snprintf(where, sizeof where, "%s.%s", field, key), where)
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "name");
    if (!v)
        return perr(c, KCBP_ERR_PARSE, FIELD("name"), "missing");
    if ((st = get_string(c, v, FIELD("name"), &s)) != KCBP_OK)
        return st;
    if (!(o->name = dup_str(s)))
        return perr(c, KCBP_ERR_NOMEM, field, "out of memory");
    v = cJSON_GetObjectItemCaseSensitive(j, "mesh");
    if (!v)
        return perr(c, KCBP_ERR_PARSE, FIELD("mesh"), "missing");
    if ((st = get_string(c, v, FIELD("mesh"), &s)) != KCBP_OK)
        return st;
    if (!(o->mesh = dup_str(s)))
        return perr(c, KCBP_ERR_NOMEM, field, "out of memory");
    v = cJSON_GetObjectItemCaseSensitive(j, "position");
    if (!v)
        return perr(c, KCBP_ERR_PARSE, FIELD("position"), "missing");
    if ((st = get_vec3(c, v, FIELD("position"), &o->position)) != KCBP_OK)
        return st;
    if (kcbp_v3_max_abs(o->position) > KCBP_COORD_MAX)
        return perr(c, KCBP_ERR_PARSE, FIELD("position"), "beyond the limit of %g", KCBP_COORD_MAX);
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "scale"))) {
        if ((st = get_number(c, v, FIELD("scale"), &o->scale)) != KCBP_OK)
            return st;
        if (!(o->scale > 0))
            return perr(c, KCBP_ERR_PARSE, FIELD("scale"), "must be > 0, not %g", o->scale);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "rotation")) &&
        (st = get_axis_angle(c, v, FIELD("rotation"), "angle_deg", &o->axis, &o->angle_deg, &o->rot0)) != KCBP_OK)
        return st;
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "velocity")) &&
        (st = get_vec3(c, v, FIELD("velocity"), &o->velocity)) != KCBP_OK)
        return st;
    if ((v = cJSON_GetObjectItemCaseSensitive(j, "angular_velocity")) &&
        (st = get_axis_angle(c, v, FIELD("angular_velocity"), "deg_per_s", &o->spin_axis, &o->spin_deg_per_s,
                             NULL)) != KCBP_OK)
        return st;
#undef FIELD
    return KCBP_OK;
}

static kcbp_status parse_motion(pctx *c, const cJSON *j, kcbp_scene *s)
{
    if (!cJSON_IsObject(j))
        return perr(c, KCBP_ERR_PARSE, "motion", "expected an object {\"frames\": integer, \"dt\": seconds}, got %s",
                    json_type(j));
    static const char *const keys[] = {"frames", "dt", NULL};
    kcbp_status st = check_keys(c, j, "motion", keys, "frames, dt");
    if (st != KCBP_OK)
        return st;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "frames");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "dt");
    double frames;
    if (!f)
        return perr(c, KCBP_ERR_PARSE, "motion.frames", "missing");
    if ((st = get_number(c, f, "motion.frames", &frames)) != KCBP_OK)
        return st;
    if (frames != floor(frames) || frames < 1 || frames > KCBP_SCENE_MAX_FRAMES)
        return perr(c, KCBP_ERR_PARSE, "motion.frames", "expected an integer in [1, %u], not %g",
                    KCBP_SCENE_MAX_FRAMES, frames);
    if (!d)
        return perr(c, KCBP_ERR_PARSE, "motion.dt", "missing");
    if ((st = get_number(c, d, "motion.dt", &s->dt)) != KCBP_OK)
        return st;
    if (!(s->dt > 0))
        return perr(c, KCBP_ERR_PARSE, "motion.dt", "must be > 0, not %g", s->dt);
    s->moving = true;
    s->frames = (uint32_t)frames;
    return KCBP_OK;
}

/* Every pose of a moving scene must be finite and within KCBP_COORD_MAX: a
 * scene whose numbers are finite can still move an object past the largest
 * double (a velocity of 1e300 for 100 frames of 1e10 s), and infinite
 * coordinates would reach the collision test. The last frame is the farthest: each coordinate of
 * position + t * velocity, and the spin angle, are linear in t. */
static kcbp_status check_motion_range(pctx *c, const kcbp_scene *s)
{
    double t_end = (double)(s->frames - 1) * s->dt;
    if (!isfinite(t_end))
        return perr(c, KCBP_ERR_PARSE, "motion", "the last frame's time (frames - 1) * dt overflows");
    for (uint32_t i = 0; i < s->nobjects; i++) {
        const kcbp_scene_object *o = &s->objects[i];
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

static char *join_path(const char *dir, const char *file)
{
    if (!dir || !*dir || file[0] == '/')
        return dup_str(file);
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
static kcbp_status assign_models(pctx *c, kcbp_scene *s)
{
    uint32_t n = s->nobjects;
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
    if (!(s->models = calloc(nm, sizeof *s->models))) {
        st = perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %u models", nm);
        goto done;
    }
    for (uint32_t i = 0, m = 0; i < n; i++) {
        bool fresh = i == 0 || strcmp(items[i].key, items[i - 1].key) != 0 || items[i].scale != items[i - 1].scale;
        if (fresh) {
            kcbp_scene_model *md = &s->models[m++];
            md->path = paths[items[i].idx];
            paths[items[i].idx] = NULL;
            md->scale = items[i].scale;
            md->first_object = items[i].idx; /* ties sort by index: the first user */
            s->nmodels = m;
        }
        s->objects[items[i].idx].model = s->nmodels - 1;
    }
done:
    for (uint32_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    free(items);
    return st;
}

/* cJSON's parser writes a global error variable on every call; this lock
 * keeps concurrent parses (kcbp batch --jobs) from racing on it. It is the
 * only shared state of the library, and it protects cJSON, not kcbp. */
static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

static cJSON *parse_json(pctx *c, const char *text, size_t len)
{
    if (memchr(text, '\0', len)) {
        perr(c, KCBP_ERR_PARSE, NULL, "NUL byte: not a JSON text file");
        return NULL;
    }
    /* JSON text is UTF-8 (RFC 8259), and names and paths are echoed in the
     * reports, which must be valid JSON too. */
    long line = 1, col = 1;
    for (size_t i = 0; i < len;) {
        size_t n = kcbp_utf8_seq((const unsigned char *)text + i, len - i);
        if (n == 0) {
            kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid UTF-8 (byte 0x%02X): JSON text must be UTF-8",
                           c->name, line, col, (unsigned char)text[i]);
            return NULL;
        }
        if (text[i] == '\n')
            line++, col = 0;
        col++;
        i += n;
    }
    char *buf = malloc(len + 1);
    if (!buf) {
        perr(c, KCBP_ERR_NOMEM, NULL, "out of memory for %zu bytes", len);
        return NULL;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *end = NULL;
    pthread_mutex_lock(&cjson_parse_lock);
    cJSON *doc = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
    pthread_mutex_unlock(&cjson_parse_lock);
    if (!doc) {
        size_t at = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len;
        long line = 1, col = 1;
        for (size_t i = 0; i < at; i++) {
            if (buf[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        int show = 0;
        while (at + (size_t)show < len && show < 20 && buf[at + show] != '\n' && buf[at + show] != '\r')
            show++;
        bool blank = true;
        for (size_t i = 0; i < len && blank; i++)
            blank = buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r';
        if (blank)
            kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s: empty file", c->name);
        else if (at >= len)
            kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid JSON: unexpected end of text", c->name,
                           line, col);
        else
            kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid JSON near '%.*s'", c->name, line, col,
                           show, buf + at);
    }
    free(buf);
    return doc;
}

kcbp_status kcbp_scene_parse(kcbp_scene *s, const char *name, const char *dir, const char *text, size_t len,
                             kcbp_error *err)
{
    memset(s, 0, sizeof *s);
    pctx c = {name, err};
    s->frames = 1;
    if (!(s->name = dup_str(name)) || !(s->dir = dup_str(dir ? dir : ""))) {
        kcbp_scene_free(s);
        return perr(&c, KCBP_ERR_NOMEM, NULL, "out of memory");
    }
    cJSON *doc = parse_json(&c, text, len);
    if (!doc) {
        kcbp_scene_free(s);
        return err ? err->code : KCBP_ERR_PARSE;
    }
    kcbp_status st = KCBP_OK;
    static const char *const keys[] = {"objects", "motion", NULL};
    const cJSON *objs = cJSON_GetObjectItemCaseSensitive(doc, "objects");
    const cJSON *motion = cJSON_GetObjectItemCaseSensitive(doc, "motion");
    int nobj = 0;
    if (!cJSON_IsObject(doc))
        st = perr(&c, KCBP_ERR_PARSE, NULL, "expected a JSON object {\"objects\": [...]}, got %s", json_type(doc));
    else if ((st = check_keys(&c, doc, "", keys, "objects, motion")) != KCBP_OK)
        ;
    else if (!objs)
        st = perr(&c, KCBP_ERR_PARSE, "objects", "missing");
    else if (!cJSON_IsArray(objs))
        st = perr(&c, KCBP_ERR_PARSE, "objects", "expected an array, got %s", json_type(objs));
    else if ((nobj = cJSON_GetArraySize(objs)) == 0)
        st = perr(&c, KCBP_ERR_PARSE, "objects", "empty: a scene needs at least one object");
    else if ((unsigned)nobj > KCBP_SCENE_MAX_OBJECTS)
        st = perr(&c, KCBP_ERR_LIMIT, "objects", "%d objects, more than the limit of %u", nobj,
                  KCBP_SCENE_MAX_OBJECTS);
    else if (!(s->objects = calloc((size_t)nobj, sizeof *s->objects)))
        st = perr(&c, KCBP_ERR_NOMEM, "objects", "out of memory for %d objects", nobj);
    if (st == KCBP_OK) {
        uint32_t i = 0;
        for (const cJSON *o = objs->child; o && st == KCBP_OK; o = o->next, i++) {
            st = parse_object(&c, o, i, &s->objects[i]);
            s->nobjects = i + 1; /* so that kcbp_scene_free frees its strings */
        }
    }
    if (st == KCBP_OK && motion)
        st = parse_motion(&c, motion, s);
    if (st == KCBP_OK && s->moving)
        st = check_motion_range(&c, s);
    cJSON_Delete(doc);
    if (st == KCBP_OK)
        st = assign_models(&c, s);
    if (st != KCBP_OK)
        kcbp_scene_free(s);
    return st;
}

kcbp_status kcbp_scene_read(kcbp_scene *s, const char *path, kcbp_error *err)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "rb");
    if (!f)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int e = errno;
        fclose(f);
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: %s", path,
                              S_ISDIR(sb.st_mode) ? "is a directory" : S_ISREG(sb.st_mode) ? strerror(e)
                                                                                             : "not a regular file");
    }
    if ((unsigned long long)sb.st_size > KCBP_SCENE_MAX_FILE_BYTES) {
        fclose(f);
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "%s: larger than %u MiB", path, KCBP_SCENE_MAX_FILE_BYTES >> 20);
    }
    size_t len = (size_t)sb.st_size;
    char *text = malloc(len ? len : 1);
    if (!text) {
        fclose(f);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = fread(text, 1, len, f);
    bool bad = ferror(f) || got != len;
    int e = errno;
    fclose(f);
    if (bad) {
        free(text);
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: read error: %s", path, strerror(e));
    }
    const char *slash = strrchr(path, '/');
    char *dir = malloc(slash ? (size_t)(slash - path) + 2 : 1);
    if (!dir) {
        free(text);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", path);
    }
    if (!slash)
        dir[0] = '\0';
    else if (slash == path)
        strcpy(dir, "/");
    else {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    }
    kcbp_status st = kcbp_scene_parse(s, path, dir, text, len, err);
    free(dir);
    free(text);
    return st;
}

/* ---- building ----------------------------------------------------------- */

/* A copy of mesh with every vertex multiplied by scale (or the mesh itself,
 * taken over, when take is set). */
static kcbp_status scaled_mesh(kcbp_mesh *mesh, double scale, bool take, kcbp_mesh *out, kcbp_error *err)
{
    kcbp_vec3 *v;
    kcbp_tri *t;
    size_t nv = mesh->nvertices, nt = mesh->ntriangles;
    if (take) {
        if (scale == 1.0) {
            *out = *mesh;
            memset(mesh, 0, sizeof *mesh);
            return KCBP_OK;
        }
        v = mesh->vertices;
        t = mesh->triangles;
        memset(mesh, 0, sizeof *mesh);
    } else {
        v = malloc(nv * sizeof *v);
        t = malloc(nt * sizeof *t);
        if (!v || !t) {
            free(v);
            free(t);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a scaled copy of %zu vertices", nv);
        }
        memcpy(v, mesh->vertices, nv * sizeof *v);
        memcpy(t, mesh->triangles, nt * sizeof *t);
    }
    if (scale != 1.0)
        for (size_t i = 0; i < nv; i++)
            v[i] = kcbp_v3_scale(v[i], scale);
    return kcbp_mesh_adopt(out, v, nv, t, nt, err);
}

kcbp_status kcbp_scene_build(kcbp_scene *s, const kcbp_model_options *opts, kcbp_error *err)
{
    kcbp_status st = KCBP_OK;
    pctx c = {s->name, err};
    s->load_ms = s->build_ms = 0;
    /* Models are sorted by (path, scale): each run of one path reads its
     * file once. */
    for (uint32_t m = 0; m < s->nmodels && st == KCBP_OK;) {
        uint32_t end = m + 1, first = s->models[m].first_object;
        while (end < s->nmodels && !strcmp(s->models[end].path, s->models[m].path)) {
            if (s->models[end].first_object < first)
                first = s->models[end].first_object;
            end++;
        }
        char field[64];
        snprintf(field, sizeof field, "objects[%u].mesh", first);
        double t0 = now_ms();
        kcbp_mesh mesh;
        st = kcbp_obj_load(s->models[m].path, &mesh, err);
        double t1 = now_ms();
        s->load_ms += t1 - t0;
        for (uint32_t i = m; i < end && st == KCBP_OK; i++) {
            kcbp_mesh own;
            st = scaled_mesh(&mesh, s->models[i].scale, i + 1 == end, &own, err);
            if (st == KCBP_OK)
                st = kcbp_model_build(&s->models[i].model, &own, opts, err);
        }
        kcbp_mesh_free(&mesh);
        s->build_ms += now_ms() - t1;
        if (st != KCBP_OK) {
            char prefix[128];
            snprintf(prefix, sizeof prefix, "%s: %s", c.name, field);
            kcbp_error_prefix(err, prefix);
        }
        m = end;
    }
    s->built = st == KCBP_OK;
    return st;
}

kcbp_status kcbp_scene_load(kcbp_scene *s, const char *path, const kcbp_model_options *opts, kcbp_error *err)
{
    kcbp_status st = kcbp_scene_read(s, path, err);
    if (st == KCBP_OK && (st = kcbp_scene_build(s, opts, err)) != KCBP_OK)
        kcbp_scene_free(s);
    return st;
}

/* ---- poses -------------------------------------------------------------- */

kcbp_pose kcbp_scene_object_pose(const kcbp_scene *s, uint32_t i, uint32_t frame)
{
    const kcbp_scene_object *o = &s->objects[i];
    kcbp_pose p = {o->rot0, o->position};
    double t = s->moving ? (double)frame * s->dt : 0.0;
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

/* ---- writing ------------------------------------------------------------ */

/* A number that reads back as exactly the same double: cJSON prints 15
 * significant digits whenever they come within an epsilon of the value, which
 * is not exact. The shortest of 15, 16, 17 digits that reads back exactly is
 * written (17 always does), with '.' whatever the locale. */
static cJSON *exact_number(double v)
{
    char buf[64];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    char point = localeconv()->decimal_point[0];
    for (char *p = buf; *p; p++)
        if (*p == point && point != '.')
            *p = '.';
    return cJSON_CreateRaw(buf);
}

static bool add_exact(cJSON *parent, const char *key, double v)
{
    cJSON *n = exact_number(v);
    bool ok = n && (key ? cJSON_AddItemToObject(parent, key, n) : cJSON_AddItemToArray(parent, n));
    if (!ok)
        cJSON_Delete(n);
    return ok;
}

static bool add_vec3(cJSON *obj, const char *key, kcbp_vec3 v)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, key);
    return arr && add_exact(arr, NULL, v.x) && add_exact(arr, NULL, v.y) && add_exact(arr, NULL, v.z);
}

static bool add_axis_angle(cJSON *obj, const char *key, kcbp_vec3 axis, const char *angle_key, double angle)
{
    cJSON *r = cJSON_AddObjectToObject(obj, key);
    return r && add_vec3(r, "axis", axis) && add_exact(r, angle_key, angle);
}

cJSON *kcbp_scene_to_json(const kcbp_scene *s)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *objs = doc ? cJSON_AddArrayToObject(doc, "objects") : NULL;
    bool ok = objs != NULL;
    for (uint32_t i = 0; ok && i < s->nobjects; i++) {
        const kcbp_scene_object *o = &s->objects[i];
        cJSON *j = cJSON_CreateObject();
        ok = j && cJSON_AddItemToArray(objs, j);
        if (!ok) {
            cJSON_Delete(j);
            break;
        }
        ok = kcbp_json_add_string(j, "name", o->name) && kcbp_json_add_string(j, "mesh", o->mesh) &&
             add_vec3(j, "position", o->position) && add_axis_angle(j, "rotation", o->axis, "angle_deg", o->angle_deg) &&
             add_exact(j, "scale", o->scale);
        if (ok && !is_zero3(o->velocity))
            ok = add_vec3(j, "velocity", o->velocity);
        if (ok && o->spin_deg_per_s != 0)
            ok = add_axis_angle(j, "angular_velocity", o->spin_axis, "deg_per_s", o->spin_deg_per_s);
    }
    if (ok && s->moving) {
        cJSON *m = cJSON_AddObjectToObject(doc, "motion");
        ok = m && cJSON_AddNumberToObject(m, "frames", s->frames) && add_exact(m, "dt", s->dt);
    }
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* ---- the thesis's layout ------------------------------------------------ */

typedef struct {
    uint64_t s;
} rng;

static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static uint64_t rng_next(rng *r) /* xorshift64* (Vigna 2016) */
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * UINT64_C(2685821657736338717);
}

/* Uniform integer in [0, m), m < 2^32 (Lemire's multiply-shift on the high
 * 32 bits). */
static uint32_t rng_below(rng *r, uint32_t m) { return (uint32_t)(((rng_next(r) >> 32) * m) >> 32); }
static double rng_sign(rng *r) { return (rng_next(r) >> 63) ? -1.0 : 1.0; }

static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; } /* [0, 1) */

/* The thesis's layout (half == 0: integer translations in {-4, ..., 4}) or
 * the constant-density one (translations uniform in [-half, half]^3). */
static kcbp_status layout(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                          double half_range, kcbp_error *err)
{
    memset(s, 0, sizeof *s);
    kcbp_vec3 c = kcbp_aabb_center(bounds), e = kcbp_aabb_extent(bounds);
    double half = fmax(e.x, fmax(e.y, e.z));
    if (!(half > 0) || !isfinite(half) || !finite3(c))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the mesh's bounds are empty or not finite", mesh);
    if (n >= KCBP_SCENE_MAX_OBJECTS)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "%u copies: more than the limit of %u objects", n + 1,
                              KCBP_SCENE_MAX_OBJECTS);
    double scale = 1.0 / half;
    s->frames = 1;
    s->name = dup_str(half_range > 0 ? "density" : "thesis");
    s->dir = dup_str("");
    s->objects = calloc((size_t)n + 1, sizeof *s->objects);
    if (!s->name || !s->dir || !s->objects) {
        kcbp_scene_free(s);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u objects", n + 1);
    }
    rng r = {splitmix64(seed)};
    if (!r.s)
        r.s = 1;
    kcbp_status st = KCBP_OK;
    for (uint32_t i = 0; i <= n && st == KCBP_OK; i++) {
        kcbp_scene_object *o = &s->objects[i];
        s->nobjects = i + 1;
        char name[16];
        snprintf(name, sizeof name, "o%u", i);
        o->name = dup_str(name);
        o->mesh = dup_str(mesh);
        if (!o->name || !o->mesh) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u objects", n + 1);
            break;
        }
        o->scale = scale;
        kcbp_vec3 t = kcbp_v3(0, 0, 0);
        o->axis = kcbp_v3(0, 0, 1);
        o->angle_deg = 0;
        if (i > 0) {
            double tv[3], av[3];
            for (int k = 0; k < 3; k++)
                tv[k] = half_range > 0 ? (2 * rng_unit(&r) - 1) * half_range : rng_sign(&r) * (double)rng_below(&r, 5);
            do {
                for (int k = 0; k < 3; k++)
                    av[k] = rng_sign(&r) * (double)rng_below(&r, 100) / 100.0;
            } while (av[0] == 0 && av[1] == 0 && av[2] == 0);
            t = kcbp_v3(tv[0], tv[1], tv[2]);
            o->axis = kcbp_v3(av[0], av[1], av[2]);
            o->angle_deg = (double)rng_below(&r, 180);
        }
        kcbp_pose p;
        st = kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &p, err);
        o->rot0 = p.rot;
        /* world = R (scale x) + position = R (scale (x - c)) + t */
        o->position = kcbp_v3_sub(t, kcbp_mat3_mul_v3(&p.rot, kcbp_v3_scale(c, scale)));
    }
    if (st == KCBP_OK) {
        pctx pc = {s->name, err};
        st = assign_models(&pc, s);
    }
    if (st != KCBP_OK)
        kcbp_scene_free(s);
    return st;
}

/* ---- evaluation --------------------------------------------------------- */

kcbp_status kcbp_scene_thesis(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                              kcbp_error *err)
{
    return layout(s, mesh, bounds, n, seed, 0, err);
}

double kcbp_scene_density_half_range(uint32_t n) { return 4.5 * cbrt(((double)n + 1) / 101.0); }

kcbp_status kcbp_scene_density(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                               kcbp_error *err)
{
    return layout(s, mesh, bounds, n, seed, kcbp_scene_density_half_range(n), err);
}

void kcbp_scene_frame_free(kcbp_scene_frame *f)
{
    if (!f)
        return;
    free(f->hits);
    free(f->contacts);
    memset(f, 0, sizeof *f);
}

kcbp_status kcbp_scene_eval_init(kcbp_scene_eval *ev, const kcbp_scene *scene, const kcbp_collide_options *options,
                                 kcbp_error *err)
{
    memset(ev, 0, sizeof *ev);
    if (!scene->built)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the scene's models are not built", scene->name);
    ev->scene = scene;
    ev->options = *options;
    size_t n = scene->nobjects;
    ev->poses = malloc((n ? n : 1) * sizeof *ev->poses);
    ev->boxes = malloc((n ? n : 1) * sizeof *ev->boxes);
    kcbp_status st = KCBP_OK;
    if (!ev->poses || !ev->boxes)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu objects", scene->name, n);
    else
        st = kcbp_sap_init(&ev->sap, scene->nobjects, err);
    if (st != KCBP_OK)
        kcbp_scene_eval_free(ev);
    return st;
}

void kcbp_scene_eval_free(kcbp_scene_eval *ev)
{
    if (!ev)
        return;
    free(ev->poses);
    free(ev->boxes);
    kcbp_sap_free(&ev->sap);
    kcbp_collide_result_free(&ev->result);
    memset(ev, 0, sizeof *ev);
}

static kcbp_status add_hit(kcbp_scene_frame *f, uint32_t a, uint32_t b, const kcbp_collide_result *r,
                           kcbp_error *err)
{
    if (f->colliding == f->cap_hits) {
        size_t cap = f->cap_hits ? 2 * f->cap_hits : 64;
        kcbp_scene_hit *grown = realloc(f->hits, cap * sizeof *grown);
        if (!grown)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu colliding pairs", cap);
        f->hits = grown;
        f->cap_hits = cap;
    }
    if (f->ncontacts + r->ncontacts > f->cap_contacts) {
        size_t cap = f->cap_contacts ? f->cap_contacts : 64;
        while (cap < f->ncontacts + r->ncontacts)
            cap *= 2;
        kcbp_contact *grown = realloc(f->contacts, cap * sizeof *grown);
        if (!grown)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %zu contacts", cap);
        f->contacts = grown;
        f->cap_contacts = cap;
    }
    if (r->ncontacts)
        memcpy(f->contacts + f->ncontacts, r->contacts, r->ncontacts * sizeof *r->contacts);
    f->hits[f->colliding++] = (kcbp_scene_hit){a, b, f->ncontacts, r->ncontacts};
    f->ncontacts += r->ncontacts;
    return KCBP_OK;
}

kcbp_status kcbp_scene_eval_frame(kcbp_scene_eval *ev, uint32_t frame, kcbp_scene_frame *out, kcbp_error *err)
{
    const kcbp_scene *s = ev->scene;
    uint32_t n = s->nobjects;
    out->frame = frame;
    out->pairs = (uint64_t)n * (n - 1) / 2;
    out->broadphase = out->mesh_tested = out->colliding = 0;
    out->ncontacts = 0;
    out->cbp_used = ev->options.use_cbp;
    for (uint32_t m = 0; m < s->nmodels && out->cbp_used; m++)
        out->cbp_used = kcbp_model_has_cbp(&s->models[m].model);
    out->filter_ms = out->mesh_ms = 0;
    if (frame >= s->frames)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: frame %u of a scene of %u", s->name, frame, s->frames);

    /* 1. World boxes, each widened by its object's share of kcbp_collide's
     * tolerance: for a pair, tol(max(sa, sb + |tb - ta|)) <= pad_a + pad_b. */
    double t0 = now_ms();
    for (uint32_t i = 0; i < n; i++) {
        const kcbp_model *m = &s->models[s->objects[i].model].model;
        ev->poses[i] = kcbp_scene_object_pose(s, i, frame);
        kcbp_aabb b = kcbp_model_world_bounds(m, &ev->poses[i]);
        double pad = kcbp_tri_tolerance(m->scale + kcbp_v3_len(ev->poses[i].trans));
        kcbp_vec3 p = kcbp_v3(pad, pad, pad);
        ev->boxes[i].min = kcbp_v3_sub(b.min, p);
        ev->boxes[i].max = kcbp_v3_add(b.max, p);
    }
    double t1 = now_ms();
    out->bounds_ms = t1 - t0;

    /* 2. Broad phase. */
    kcbp_status st = kcbp_sap_update(&ev->sap, ev->boxes, err);
    double t2 = now_ms();
    out->broadphase_ms = t2 - t1;
    if (st != KCBP_OK)
        return st;
    out->broadphase = ev->sap.npairs;

    /* 3 and 4. The k-CBPs and the meshes, in kcbp_collide. */
    for (size_t k = 0; k < ev->sap.npairs && st == KCBP_OK; k++) {
        uint32_t a = ev->sap.pairs[k].a, b = ev->sap.pairs[k].b;
        const kcbp_model *ma = &s->models[s->objects[a].model].model, *mb = &s->models[s->objects[b].model].model;
        double q0 = now_ms();
        st = kcbp_collide(ma, &ev->poses[a], mb, &ev->poses[b], &ev->options, &ev->result, err);
        double q1 = now_ms();
        if (st != KCBP_OK)
            break;
        if (ev->result.decided_by == KCBP_STAGE_MESH) {
            out->mesh_tested++;
            out->mesh_ms += q1 - q0;
        } else {
            out->filter_ms += q1 - q0;
        }
        if (ev->result.collide)
            st = add_hit(out, a, b, &ev->result, err);
    }
    return st;
}
