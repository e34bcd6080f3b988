/* Scene files: JSON in (kcbp_scene_parse) and out (kcbp_scene_to_text), with
 * cJSON. The only module that uses cJSON, which stays out of every public
 * header. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/json_lock.h"
#include "scene_internal.h"
#include "base/utf8.h"
#include "base/util.h"

typedef struct {
    const char *name; /* the scene's name, first in every message */
    kcbp_error *err;
} pctx;

#define perr(c, code, field, ...) kcbp_scene_error((c)->err, (c)->name, code, field, __VA_ARGS__)

static bool is_zero3(kcbp_vec3 v) { return v.x == 0 && v.y == 0 && v.z == 0; }

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

/* An axis and an angle in degrees for a rotation matrix (informational:
 * kcbp_scene_obj.rot0 is the rotation; these fill its axis and
 * angle_deg when the rotation was given as a quaternion or a matrix). */
static void axis_angle_of(const kcbp_mat3 *r, kcbp_vec3 *axis, double *deg)
{
    const double(*m)[3] = r->m;
    kcbp_vec3 v = kcbp_v3(m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1]); /* 2 sin(a) u */
    double c = (m[0][0] + m[1][1] + m[2][2] - 1) / 2, s = kcbp_v3_len(v) / 2;
    double a = atan2(s, c);
    kcbp_vec3 u;
    if (c < 0) {
        /* Near a half turn v vanishes: u from the diagonal, u_k^2 = (m_kk - c) / (1 - c),
         * its sign from v. */
        int k = m[0][0] >= m[1][1] && m[0][0] >= m[2][2] ? 0 : m[1][1] >= m[2][2] ? 1 : 2;
        double uk = sqrt(fmax(m[k][k] - c, 0) / (1 - c)), w[3];
        for (int j = 0; j < 3; j++)
            w[j] = j == k ? uk : (m[k][j] + m[j][k]) / (2 * (1 - c) * uk);
        u = kcbp_v3(w[0], w[1], w[2]);
        if (kcbp_v3_dot(u, v) < 0)
            u = kcbp_v3_neg(u);
    } else if (s > 0) {
        u = kcbp_v3_scale(v, 1 / (2 * s));
    } else {
        u = kcbp_v3(0, 0, 1);
        a = 0;
    }
    double len = kcbp_v3_len(u);
    *axis = len > 0 && isfinite(len) ? kcbp_v3_scale(u, 1 / len) : kcbp_v3(0, 0, 1);
    *deg = a * (180 / M_PI);
}

/* An object's "rotation": {"axis": [x, y, z], "angle_deg": a},
 * {"quaternion": [w, x, y, z]} (unit to 1e-6) or {"matrix": [[r00, r01,
 * r02], [r10, r11, r12], [r20, r21, r22]]} (a proper rotation to 1e-9),
 * read as kcbp_pose_from_quat and kcbp_pose_from_matrix read them. */
static kcbp_status get_rotation(pctx *c, const cJSON *j, const char *field, kcbp_scene_obj *o)
{
    char where[192];
    if (!cJSON_IsObject(j))
        return perr(c, KCBP_ERR_PARSE, field,
                    "expected an object {\"axis\": [x, y, z], \"angle_deg\": number}, {\"quaternion\": [w, x, y, z]} "
                    "or {\"matrix\": [[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]]}, got %s", json_type(j));
    static const char *const keys[] = {"axis", "angle_deg", "quaternion", "matrix", NULL};
    kcbp_status st = check_keys(c, j, field, keys, "axis and angle_deg, quaternion, or matrix");
    if (st != KCBP_OK)
        return st;
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(j, "quaternion");
    const cJSON *mx = cJSON_GetObjectItemCaseSensitive(j, "matrix");
    bool aa = cJSON_GetObjectItemCaseSensitive(j, "axis") || cJSON_GetObjectItemCaseSensitive(j, "angle_deg");
    if (!q && !mx)
        return get_axis_angle(c, j, field, "angle_deg", &o->axis, &o->angle_deg, &o->rot0);
    if ((q && mx) || aa)
        return perr(c, KCBP_ERR_PARSE, field, "give one form: axis and angle_deg, quaternion, or matrix");
    double v[12] = {0};
    kcbp_pose p;
    kcbp_error e = {0};
    if (q) {
        snprintf(where, sizeof where, "%s.quaternion", field);
        if (!cJSON_IsArray(q) || cJSON_GetArraySize(q) != 4)
            return perr(c, KCBP_ERR_PARSE, where, "expected 4 numbers [w, x, y, z]");
        int i = 0;
        for (const cJSON *x = q->child; x; x = x->next, i++)
            if ((st = get_number(c, x, where, &v[i])) != KCBP_OK)
                return st;
        st = kcbp_pose_from_quat(kcbp_v3(0, 0, 0), v[0], v[1], v[2], v[3], &p, &e);
    } else {
        snprintf(where, sizeof where, "%s.matrix", field);
        if (!cJSON_IsArray(mx) || cJSON_GetArraySize(mx) != 3)
            return perr(c, KCBP_ERR_PARSE, where, "expected 3 rows of 3 numbers [[r00, r01, r02], [r10, r11, r12], "
                                                  "[r20, r21, r22]]");
        int i = 0;
        for (const cJSON *row = mx->child; row; row = row->next, i++) {
            char rw[224];
            snprintf(rw, sizeof rw, "%s[%d]", where, i);
            kcbp_vec3 r;
            if ((st = get_vec3(c, row, rw, &r)) != KCBP_OK)
                return st;
            v[4 * i] = r.x, v[4 * i + 1] = r.y, v[4 * i + 2] = r.z;
        }
        st = kcbp_pose_from_matrix(v, 12, &p, &e);
    }
    if (st != KCBP_OK)
        return perr(c, KCBP_ERR_PARSE, where, "%s", e.msg);
    o->rot0 = p.rot;
    axis_angle_of(&o->rot0, &o->axis, &o->angle_deg);
    return KCBP_OK;
}

static kcbp_status parse_object(pctx *c, const cJSON *j, uint32_t i, kcbp_scene_obj *o)
{
    char field[64], where[160];
    snprintf(field, sizeof field, "objects[%u]", i);
    if (!cJSON_IsObject(j))
        return perr(c, KCBP_ERR_PARSE, field, "expected an object, got %s", json_type(j));
    static const char *const keys[] = {"name",     "mesh",     "position", "rotation", "scale", "velocity",
                                       "angular_velocity", "extras", NULL};
    kcbp_status st = check_keys(c, j, field, keys,
                                "name, mesh, position, rotation, scale, velocity, angular_velocity, extras");
    if (st != KCBP_OK)
        return st;
    const char *s;
#define FIELD(key) (snprintf(where, sizeof where, "%s.%s", field, key), where)
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "name");
    if (!v)
        return perr(c, KCBP_ERR_PARSE, FIELD("name"), "missing");
    if ((st = get_string(c, v, FIELD("name"), &s)) != KCBP_OK)
        return st;
    if (!(o->name = kcbp_strdup(s)))
        return perr(c, KCBP_ERR_NOMEM, field, "out of memory");
    v = cJSON_GetObjectItemCaseSensitive(j, "mesh");
    if (!v)
        return perr(c, KCBP_ERR_PARSE, FIELD("mesh"), "missing");
    if ((st = get_string(c, v, FIELD("mesh"), &s)) != KCBP_OK)
        return st;
    if (!(o->mesh = kcbp_strdup(s)))
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
        (st = get_rotation(c, v, FIELD("rotation"), o)) != KCBP_OK)
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
    /* cJSON's parser writes a global error variable: one lock for every
     * parse of the library (json_lock.h, the glTF reader's too). */
    cJSON *doc = kcbp_json_parse_locked(buf, len + 1, &end);
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

kcbp_status kcbp_scene_parse_into(kcbp_scene *s, const char *name, const char *dir, const char *text, size_t len,
                                  kcbp_error *err)
{
    pctx c = {name, err};
    kcbp_status st = kcbp_scene_init(s, name, dir, err);
    if (st != KCBP_OK)
        return st;
    cJSON *doc = parse_json(&c, text, len);
    if (!doc) {
        kcbp_scene_clear(s);
        return err ? err->code : KCBP_ERR_PARSE;
    }
    static const char *const keys[] = {"objects", "motion", "extras", NULL};
    const cJSON *objs = cJSON_GetObjectItemCaseSensitive(doc, "objects");
    const cJSON *motion = cJSON_GetObjectItemCaseSensitive(doc, "motion");
    int nobj = 0;
    if (!cJSON_IsObject(doc))
        st = perr(&c, KCBP_ERR_PARSE, NULL, "expected a JSON object {\"objects\": [...]}, got %s", json_type(doc));
    else if ((st = check_keys(&c, doc, "", keys, "objects, motion, extras")) != KCBP_OK)
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
    else
        s->cap_objects = (uint32_t)nobj;
    if (st == KCBP_OK) {
        uint32_t i = 0;
        for (const cJSON *o = objs->child; o && st == KCBP_OK; o = o->next, i++) {
            /* (the room is there: so that kcbp_scene_clear frees its strings) */
            if ((st = kcbp_scene_push_object(s, err)) == KCBP_OK)
                st = parse_object(&c, o, i, &s->objects[i]);
        }
    }
    if (st == KCBP_OK && motion)
        st = parse_motion(&c, motion, s);
    if (st == KCBP_OK && (uint64_t)s->nobjects * s->frames > KCBP_SCENE_MAX_OBJECT_FRAMES)
        st = perr(&c, KCBP_ERR_LIMIT, "motion.frames", "%u objects in %u frames, more than the limit of %llu object-frames",
                  s->nobjects, s->frames, (unsigned long long)KCBP_SCENE_MAX_OBJECT_FRAMES);
    if (st == KCBP_OK && s->moving)
        st = kcbp_scene_check_motion(s, err);
    cJSON_Delete(doc);
    if (st == KCBP_OK)
        st = kcbp_scene_assign_models(s, err);
    if (st != KCBP_OK)
        kcbp_scene_clear(s);
    return st;
}

kcbp_status kcbp_scene_parse(const char *name, const char *dir, const char *text, size_t len, kcbp_scene **out,
                             kcbp_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
    kcbp_status st = kcbp_scene_parse_into(*out, name, dir, text, len, err);
    if (st != KCBP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
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

/* An object's rotation as read: its axis and angle when they give rot0 to
 * the bit (always, for a rotation written so), else rot0 as a matrix (a
 * quaternion or a matrix read), which reads back to the same rot0. */
static bool add_rotation(cJSON *obj, const kcbp_scene_obj *o)
{
    kcbp_pose p;
    if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &p, NULL) == KCBP_OK &&
        !memcmp(&p.rot, &o->rot0, sizeof p.rot))
        return add_axis_angle(obj, "rotation", o->axis, "angle_deg", o->angle_deg);
    cJSON *r = cJSON_AddObjectToObject(obj, "rotation");
    cJSON *m = r ? cJSON_AddArrayToObject(r, "matrix") : NULL;
    bool ok = m != NULL;
    for (int i = 0; ok && i < 3; i++) {
        cJSON *row = cJSON_CreateArray();
        ok = row && cJSON_AddItemToArray(m, row);
        if (!ok) {
            cJSON_Delete(row);
            break;
        }
        for (int k = 0; ok && k < 3; k++)
            ok = add_exact(row, NULL, o->rot0.m[i][k]);
    }
    return ok;
}

static cJSON *scene_to_json(const kcbp_scene *s)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *objs = doc ? cJSON_AddArrayToObject(doc, "objects") : NULL;
    bool ok = objs != NULL;
    for (uint32_t i = 0; ok && i < s->nobjects; i++) {
        const kcbp_scene_obj *o = &s->objects[i];
        cJSON *j = cJSON_CreateObject();
        ok = j && cJSON_AddItemToArray(objs, j);
        if (!ok) {
            cJSON_Delete(j);
            break;
        }
        ok = kcbp_json_add_string(j, "name", o->name) && kcbp_json_add_string(j, "mesh", o->mesh) &&
             add_vec3(j, "position", o->position) && add_rotation(j, o) &&
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

kcbp_status kcbp_scene_to_text(const kcbp_scene *s, bool pretty, char **text, kcbp_error *err)
{
    *text = NULL;
    cJSON *doc = scene_to_json(s);
    char *t = doc ? (pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc)) : NULL;
    cJSON_Delete(doc);
    /* cJSON's own allocator may not be malloc: hand out a malloc'ed copy. */
    *text = t ? kcbp_strdup(t) : NULL;
    cJSON_free(t);
    if (!*text)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for the scene's JSON", s->name);
    return KCBP_OK;
}

kcbp_status kcbp_scene_write(const kcbp_scene *s, FILE *out, bool pretty, kcbp_error *err)
{
    char *text;
    kcbp_status st = kcbp_scene_to_text(s, pretty, &text, err);
    if (st != KCBP_OK)
        return st;
    bool ok = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    free(text);
    if (!ok)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot write the scene", s->name);
    return KCBP_OK;
}
