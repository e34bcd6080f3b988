/* 2D scene files (scene2d.h): reading, checking, loading the polygon
 * files, poses. The text is parsed whole with cJSON (under the parser's
 * lock, base/json_lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/input.h"
#include "base/json_lock.h"
#include "confine.h"
#include "scene2d_internal.h"

bool kcbp2d_scene_path_is_2d(const char *mesh)
{
    size_t n = strlen(mesh);
    return (n > 8 && !strcasecmp(mesh + n - 8, ".geojson")) || (n > 4 && !strcasecmp(mesh + n - 4, ".svg"));
}

bool kcbp2d_scene_shape_is_2d(const char *key)
{
    return !strcmp(key, "circle") || !strcmp(key, "rect") || !strcmp(key, "capsule2d");
}

/* An object of a scene file (cJSON) is 2D. */
static bool object_is_2d(const cJSON *o)
{
    if (!cJSON_IsObject(o))
        return false;
    if (cJSON_GetObjectItemCaseSensitive(o, "pose"))
        return true;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "mesh");
    if (cJSON_IsString(m) && kcbp2d_scene_path_is_2d(m->valuestring))
        return true;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "shape");
    return cJSON_IsObject(s) && s->child && s->child->string && kcbp2d_scene_shape_is_2d(s->child->string);
}

/* ---- sniffing --------------------------------------------------------------- */

#define SNIFF_BYTES ((size_t)1 << 20)

/* Skips a JSON value starting at p (strings, nesting; not validated); NULL
 * when it runs past end. */
static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            if (p >= end)
                return NULL;
            p++;
            if (depth == 0)
                return p;
        } else if (c == '{' || c == '[') {
            depth++, p++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return p; /* the end of the enclosing container */
            depth--, p++;
            if (depth == 0)
                return p;
        } else if (c == ',' && depth == 0) {
            return p;
        } else {
            p++;
        }
    }
    return NULL;
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

bool kcbp2d_scene_sniff(const char *path)
{
    if (!path || !strcmp(path, "-"))
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat sb;
    char *buf = NULL;
    ssize_t got = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (buf = malloc(SNIFF_BYTES))) {
        size_t have = 0;
        while (have < SNIFF_BYTES) {
            ssize_t r = read(fd, buf + have, SNIFF_BYTES - have);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            have += (size_t)r;
        }
        got = (ssize_t)have;
    }
    close(fd);
    bool is2d = false;
    const char *p = buf, *end = buf ? buf + got : NULL;
    if (buf && (p = skip_ws(p, end)) < end && *p == '{') {
        p++;
        for (;;) {
            p = skip_ws(p, end);
            if (p >= end || *p != '"')
                break;
            const char *k = p + 1;
            const char *kend = skip_value(p, end);
            if (!kend)
                break;
            bool objects = kend - k == 8 && !strncmp(k, "objects\"", 8);
            p = skip_ws(kend, end);
            if (p >= end || *p != ':')
                break;
            p = skip_ws(p + 1, end);
            if (objects) {
                if (p >= end || *p != '[')
                    break;
                p = skip_ws(p + 1, end);
                const char *oend = p < end && *p == '{' ? skip_value(p, end) : NULL;
                if (oend) {
                    char *one = strndup(p, (size_t)(oend - p));
                    cJSON *o = one ? kcbp_json_parse_locked(one, (size_t)(oend - p) + 1, NULL) : NULL;
                    is2d = object_is_2d(o);
                    cJSON_Delete(o);
                    free(one);
                }
                break;
            }
            p = skip_value(p, end);
            if (!p || *p != ',')
                break;
            p++;
        }
    }
    free(buf);
    return is2d;
}

/* ---- reading ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    kcbp_error *err;
} pctx;

static kcbp_status ferr(pctx *c, const char *field, long i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static kcbp_status ferr(pctx *c, const char *field, long i, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (i >= 0)
        return kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s: objects[%ld]%s%s: %s", c->name, i, *field ? "." : "", field,
                              msg);
    return kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s: %s: %s", c->name, field, msg);
}

static kcbp_status check_keys(pctx *c, const cJSON *o, const char *field, long i, const char *const *allowed,
                              const char *expected)
{
    for (const cJSON *k = o->child; k; k = k->next) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = !strcmp(k->string, *a);
        if (!ok)
            return ferr(c, field, i, "unknown key \"%s\" (expected %s)", k->string, expected);
        for (const cJSON *q = o->child; q != k; q = q->next)
            if (!strcmp(q->string, k->string))
                return ferr(c, field, i, "repeated key \"%s\"", k->string);
    }
    return KCBP_OK;
}

static kcbp_status get_numbers(pctx *c, const cJSON *v, const char *field, long i, int n, double *out)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return ferr(c, field, i, "expected %d numbers", n);
    int k = 0;
    for (const cJSON *e = v->child; e; e = e->next, k++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
            return ferr(c, field, i, "expected %d finite numbers", n);
        out[k] = e->valuedouble;
    }
    return KCBP_OK;
}

static kcbp_status get_positive(pctx *c, const cJSON *o, const char *key, const char *field, long i, bool required,
                                double *out)
{
    char f[96];
    snprintf(f, sizeof f, "%s.%s", field, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        if (required)
            return ferr(c, f, i, "missing");
        return KCBP_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return ferr(c, f, i, "expected a finite number");
    *out = v->valuedouble;
    return KCBP_OK;
}

static kcbp_status get_shape(pctx *c, const cJSON *v, long i, kcbp2d_shape *s)
{
    if (!cJSON_IsObject(v) || !v->child || v->child->next)
        return ferr(c, "shape", i, "expected one of {\"circle\": ...}, {\"rect\": ...}, {\"capsule2d\": ...}");
    const cJSON *b = v->child;
    const char *k = b->string;
    char field[64];
    snprintf(field, sizeof field, "shape.%s", k);
    if (!kcbp2d_scene_shape_is_2d(k))
        return ferr(c, field, i, "unknown 2D shape (expected circle, rect or capsule2d)");
    if (!cJSON_IsObject(b))
        return ferr(c, field, i, "expected an object");
    kcbp_status st;
    double r = 0, len = 0, size[2] = {0, 0};
    if (!strcmp(k, "circle")) {
        static const char *const keys[] = {"radius", NULL};
        if ((st = check_keys(c, b, field, i, keys, "radius")) != KCBP_OK ||
            (st = get_positive(c, b, "radius", field, i, true, &r)) != KCBP_OK)
            return st;
        *s = kcbp2d_shape_circle(r);
    } else if (!strcmp(k, "rect")) {
        static const char *const keys[] = {"size", "radius", NULL};
        char fs[80];
        snprintf(fs, sizeof fs, "%s.size", field);
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(b, "size");
        if ((st = check_keys(c, b, field, i, keys, "size, radius")) != KCBP_OK)
            return st;
        if (!sz)
            return ferr(c, fs, i, "missing");
        if ((st = get_numbers(c, sz, fs, i, 2, size)) != KCBP_OK ||
            (st = get_positive(c, b, "radius", field, i, false, &r)) != KCBP_OK)
            return st;
        *s = kcbp2d_shape_box(size[0], size[1], r);
    } else {
        static const char *const keys[] = {"radius", "length", NULL};
        if ((st = check_keys(c, b, field, i, keys, "radius, length")) != KCBP_OK ||
            (st = get_positive(c, b, "radius", field, i, true, &r)) != KCBP_OK ||
            (st = get_positive(c, b, "length", field, i, true, &len)) != KCBP_OK)
            return st;
        *s = kcbp2d_shape_capsule(r, len);
    }
    kcbp_error e;
    if (kcbp2d_shape_check(s, &e) != KCBP_OK)
        return ferr(c, field, i, "%s", e.msg);
    return KCBP_OK;
}

static kcbp_status parse_object(pctx *c, kcbp2d_scene *s, const cJSON *o, long i)
{
    if (!cJSON_IsObject(o))
        return ferr(c, "", i, "expected an object");
    const cJSON *vname = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (!object_is_2d(o)) {
        const char *nm = cJSON_IsString(vname) ? vname->valuestring : "?";
        return ferr(c, "", i, "\"%s\" is a 3D object in a 2D scene (objects[0] is 2D): a scene's objects are all 2D "
                              "(a \"pose\" [tx, ty, deg], a .geojson or .svg mesh or a 2D shape) or all 3D",
                    nm);
    }
    static const char *const keys[] = {"name", "mesh", "shape", "pose", "velocity", "extras", NULL};
    kcbp_status st = check_keys(c, o, "", i, keys, "name, mesh, shape, pose, velocity, extras");
    if (st != KCBP_OK)
        return st;
    kcbp2d_scene_obj *ob = &s->objects[i];
    ob->model = -1;
    if (!vname)
        return ferr(c, "name", i, "missing");
    if (!cJSON_IsString(vname) || !vname->valuestring[0])
        return ferr(c, "name", i, "expected a non-empty string");
    if (!(ob->name = strdup(vname->valuestring)))
        return kcbp_error_set(c->err, KCBP_ERR_NOMEM, "%s: out of memory", c->name);
    const cJSON *vm = cJSON_GetObjectItemCaseSensitive(o, "mesh"), *vs = cJSON_GetObjectItemCaseSensitive(o, "shape");
    if (vm && vs)
        return ferr(c, "shape", i, "an object has a mesh or a shape, not both");
    if (!vm && !vs)
        return ferr(c, "mesh", i, "missing (an object needs a \"mesh\" or a \"shape\")");
    if (vm) {
        if (!cJSON_IsString(vm) || !vm->valuestring[0])
            return ferr(c, "mesh", i, "expected a file name");
        if (!kcbp2d_scene_path_is_2d(vm->valuestring))
            return ferr(c, "mesh", i, "%s: a 2D scene's files are GeoJSON (.geojson) or SVG (.svg)", vm->valuestring);
        if (!(ob->file = strdup(vm->valuestring))) /* numbered once every object is read */
            return kcbp_error_set(c->err, KCBP_ERR_NOMEM, "%s: out of memory", c->name);
        ob->model = -2; /* a file, numbered later */
    } else if ((st = get_shape(c, vs, i, &ob->shape)) != KCBP_OK) {
        return st;
    }
    const cJSON *vp = cJSON_GetObjectItemCaseSensitive(o, "pose");
    double v[3] = {0, 0, 0};
    if (!vp)
        return ferr(c, "pose", i, "missing (a 2D object has a pose [tx, ty, deg])");
    if ((st = get_numbers(c, vp, "pose", i, 3, v)) != KCBP_OK)
        return st;
    if (fabs(v[0]) > KCBP_COORD_MAX || fabs(v[1]) > KCBP_COORD_MAX)
        return ferr(c, "pose", i, "beyond the limit of %g", KCBP_COORD_MAX);
    ob->tx = v[0], ob->ty = v[1], ob->deg = v[2];
    const cJSON *vv = cJSON_GetObjectItemCaseSensitive(o, "velocity");
    if (vv) {
        if ((st = get_numbers(c, vv, "velocity", i, 3, v)) != KCBP_OK)
            return st;
        ob->vx = v[0], ob->vy = v[1], ob->w = v[2];
    }
    return KCBP_OK;
}

static kcbp_status parse_motion(pctx *c, const cJSON *m, kcbp2d_scene *s)
{
    if (!cJSON_IsObject(m))
        return ferr(c, "motion", -1, "expected an object");
    static const char *const keys[] = {"frames", "dt", NULL};
    for (const cJSON *k = m->child; k; k = k->next) {
        bool ok = false;
        for (const char *const *a = keys; *a && !ok; a++)
            ok = !strcmp(k->string, *a);
        if (!ok)
            return ferr(c, "motion", -1, "unknown key \"%s\" (expected frames, dt)", k->string);
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(m, "frames"), *dt = cJSON_GetObjectItemCaseSensitive(m, "dt");
    if (!f || !cJSON_IsNumber(f) || f->valuedouble != floor(f->valuedouble) || f->valuedouble < 1 ||
        f->valuedouble > KCBP2D_SCENE_MAX_FRAMES)
        return ferr(c, "motion.frames", -1, "expected an integer in [1, %u]", KCBP2D_SCENE_MAX_FRAMES);
    if (!dt || !cJSON_IsNumber(dt) || !isfinite(dt->valuedouble) || !(dt->valuedouble > 0))
        return ferr(c, "motion.dt", -1, "expected a finite number > 0");
    s->frames = (uint32_t)f->valuedouble;
    s->dt = dt->valuedouble;
    s->moving = true;
    return KCBP_OK;
}

/* Where a JSON syntax error is: line and column of offset. */
static void line_col(const char *text, size_t off, long *line, long *col)
{
    *line = 1, *col = 1;
    for (size_t k = 0; k < off; k++) {
        if (text[k] == '\n')
            ++*line, *col = 1;
        else
            ++*col;
    }
}

/* "name:line:col: invalid JSON" at text + off. */
static kcbp_status invalid_at(pctx *c, const char *text, size_t off)
{
    long line, col;
    line_col(text, off, &line, &col);
    return kcbp_error_set(c->err, KCBP_ERR_PARSE, "%s:%ld:%ld: invalid JSON", c->name, line, col);
}

/* The JSON value text[a .. b) (cJSON, on a copy: it wants a NUL after the
 * value); NULL with *bad = where parsing stopped. */
static cJSON *parse_slice(const char *text, size_t a, size_t b, size_t *bad)
{
    char *copy = malloc(b - a + 1);
    if (!copy) {
        *bad = a;
        return NULL;
    }
    memcpy(copy, text + a, b - a);
    copy[b - a] = '\0';
    const char *stop = NULL;
    cJSON *v = kcbp_json_parse_locked(copy, b - a + 1, &stop);
    *bad = a + (stop && stop >= copy && stop <= copy + (b - a) ? (size_t)(stop - copy) : 0);
    free(copy);
    return v;
}

/* The top level of a scene whose text starts with '{', its objects parsed
 * one at a time: a JSON tree takes about 10 bytes of memory per byte of
 * text (a 126 MB scene of 10^6 parcels peaked at 1.34 GB read whole, and
 * the 1 GiB the reader takes would have needed 11 GB), one object's tree
 * next to nothing. The keys go into *root (objects as an empty array, the
 * count in *count), for the checks of a document read whole. */
static kcbp_status parse_top(pctx *c, kcbp2d_scene *s, const char *text, size_t len, cJSON *root, uint32_t *count)
{
    const char *end = text + len, *p = skip_ws(text, end) + 1;
    size_t cap = 0, bad;
    uint32_t n = 0;
    kcbp_status st = KCBP_OK;
    p = skip_ws(p, end);
    if (p < end && *p == '}')
        p++;
    else
        for (;;) {
            const char *kend = p < end && *p == '"' ? skip_value(p, end) : NULL;
            if (p < end && *p == '"' && !kend)
                kend = end; /* cut short: cJSON says where */
            cJSON *key = kend ? parse_slice(text, (size_t)(p - text), (size_t)(kend - text), &bad) : NULL;
            if (!cJSON_IsString(key)) {
                cJSON_Delete(key);
                return invalid_at(c, text, kend ? bad : (size_t)(p - text));
            }
            p = skip_ws(kend, end);
            if (p >= end || *p != ':') {
                cJSON_Delete(key);
                return invalid_at(c, text, (size_t)(p - text));
            }
            p = skip_ws(p + 1, end);
            cJSON *v = NULL;
            if (!strcmp(key->valuestring, "objects") && p < end && *p == '[') {
                v = cJSON_CreateArray(); /* the objects are parsed here, one by one */
                p = skip_ws(p + 1, end);
                bool first = true;
                while (st == KCBP_OK) {
                    if (first && p < end && *p == ']') {
                        p++;
                        break;
                    }
                    first = false;
                    const char *vend = skip_value(p, end);
                    if (!vend)
                        vend = end; /* cut short: cJSON says where */
                    cJSON *o = vend > p ? parse_slice(text, (size_t)(p - text), (size_t)(vend - text), &bad)
                                                : NULL;
                    if (!o) {
                        st = invalid_at(c, text, vend > p ? bad : (size_t)(p - text));
                        break;
                    }
                    if (n >= KCBP2D_SCENE_MAX_OBJECTS) {
                        cJSON_Delete(o);
                        st = ferr(c, "objects", -1, "more than %u objects", KCBP2D_SCENE_MAX_OBJECTS);
                        break;
                    }
                    if (n == cap) {
                        size_t nc = cap ? 2 * cap : 64;
                        kcbp2d_scene_obj *g = realloc(s->objects, nc * sizeof *g);
                        if (!g) {
                            cJSON_Delete(o);
                            st = kcbp_error_set(c->err, KCBP_ERR_NOMEM, "%s: out of memory", c->name);
                            break;
                        }
                        memset(g + cap, 0, (nc - cap) * sizeof *g);
                        s->objects = g, cap = nc;
                    }
                    s->nobjects = n + 1;
                    st = parse_object(c, s, o, n);
                    cJSON_Delete(o);
                    n++;
                    p = skip_ws(vend, end);
                    if (st == KCBP_OK && p < end && *p == ',')
                        p = skip_ws(p + 1, end);
                    else if (st == KCBP_OK && p < end && *p == ']') {
                        p++;
                        break;
                    } else if (st == KCBP_OK)
                        st = invalid_at(c, text, (size_t)(p - text));
                }
                *count = n;
            } else {
                const char *vend = skip_value(p, end);
                if (!vend)
                    vend = end; /* cut short: cJSON says where */
                v = vend > p ? parse_slice(text, (size_t)(p - text), (size_t)(vend - text), &bad) : NULL;
                if (!v)
                    st = invalid_at(c, text, vend > p ? bad : (size_t)(p - text));
                else
                    p = vend;
            }
            if (v && !cJSON_AddItemToObject(root, key->valuestring, v)) {
                cJSON_Delete(v);
                if (st == KCBP_OK)
                    st = kcbp_error_set(c->err, KCBP_ERR_NOMEM, "%s: out of memory", c->name);
            }
            cJSON_Delete(key);
            if (st != KCBP_OK)
                return st;
            p = skip_ws(p, end);
            if (p < end && *p == ',') {
                p = skip_ws(p + 1, end);
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                break;
            }
            return invalid_at(c, text, (size_t)(p - text));
        }
    p = skip_ws(p, end);
    return p == end ? KCBP_OK : invalid_at(c, text, (size_t)(p - text));
}

static kcbp_status parse_text(kcbp2d_scene *s, const char *name, const char *text, size_t len, kcbp_error *err)
{
    pctx c = {name, err};
    if (len == 0)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: empty file", name);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        long line, col;
        line_col(text, (size_t)(nul - text), &line, &col);
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld:%ld: NUL byte: not a JSON text file", name, line, col);
    }
    const char *first = skip_ws(text, text + len);
    if (first < text + len && *first == '{') {
        cJSON *root = cJSON_CreateObject();
        uint32_t n = 0;
        if (!root)
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
        kcbp_status st = parse_top(&c, s, text, len, root, &n);
        static const char *const keys[] = {"objects", "motion", "extras", NULL};
        const cJSON *objs = cJSON_GetObjectItemCaseSensitive(root, "objects");
        if (st != KCBP_OK) {
        } else if ((st = check_keys(&c, root, "scene", -1, keys, "objects, motion, extras")) != KCBP_OK) {
        } else if (!objs || !cJSON_IsArray(objs) || n == 0) {
            st = ferr(&c, "objects", -1, "expected an array of at least one object");
        } else {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "motion");
            if (m)
                st = parse_motion(&c, m, s);
        }
        cJSON_Delete(root);
        return st;
    }
    size_t bad;
    cJSON *root = parse_slice(text, 0, len, &bad);
    if (!root)
        return invalid_at(&c, text, bad);
    kcbp_status st = KCBP_OK;
    static const char *const keys[] = {"objects", "motion", "extras", NULL};
    const cJSON *objs;
    if (!cJSON_IsObject(root)) {
        st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s: expected a JSON object", name);
    } else if ((st = check_keys(&c, root, "scene", -1, keys, "objects, motion, extras")) != KCBP_OK) {
    } else if (!(objs = cJSON_GetObjectItemCaseSensitive(root, "objects")) || !cJSON_IsArray(objs) || !objs->child) {
        st = ferr(&c, "objects", -1, "expected an array of at least one object");
    } else {
        int n = cJSON_GetArraySize(objs);
        if ((uint64_t)n > KCBP2D_SCENE_MAX_OBJECTS)
            st = ferr(&c, "objects", -1, "more than %u objects", KCBP2D_SCENE_MAX_OBJECTS);
        else if (!(s->objects = calloc((size_t)n, sizeof *s->objects)))
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", name);
        long i = 0;
        for (const cJSON *o = objs->child; st == KCBP_OK && o; o = o->next, i++) {
            s->nobjects = (uint32_t)i + 1;
            st = parse_object(&c, s, o, i);
        }
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "motion");
        if (st == KCBP_OK && m)
            st = parse_motion(&c, m, s);
    }
    cJSON_Delete(root);
    return st;
}

/* Object indices sorted by a string key; the first repeat. */
typedef struct {
    const char *key;
    uint32_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Shapes ordered by kind, radius and numbers. */
static int cmp_shape(const void *x, const void *y)
{
    const kcbp2d_shape *a = &(*(const kcbp2d_scene_obj *const *)x)->shape,
                       *b = &(*(const kcbp2d_scene_obj *const *)y)->shape;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    double u[5] = {a->radius, a->local[0].x, a->local[0].y, a->local[1].x, a->local[1].y};
    double v[5] = {b->radius, b->local[0].x, b->local[0].y, b->local[1].x, b->local[1].y};
    for (int k = 0; k < 5; k++)
        if (u[k] != v[k])
            return u[k] < v[k] ? -1 : 1;
    return 0;
}

/* Unique names; files numbered, each loaded once (confined to root when
 * given), shapes counted. */
static kcbp_status finish(kcbp2d_scene *s, const char *dir, const char *root, const char *base, kcbp_error *err)
{
    uint32_t n = s->nobjects;
    keyed *k = malloc((size_t)n * sizeof *k);
    if (!k)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", s->name);
    for (uint32_t i = 0; i < n; i++)
        k[i] = (keyed){s->objects[i].name, i};
    qsort(k, n, sizeof *k, cmp_keyed);
    for (uint32_t j = 1; j < n; j++)
        if (!strcmp(k[j].key, k[j - 1].key)) {
            uint32_t i = k[j].i, before = k[j - 1].i;
            free(k);
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: objects[%u].name: \"%s\" is already the name of objects[%u]",
                                  s->name, i, s->objects[i].name, before);
        }
    /* files: by path as written */
    uint32_t nf = 0;
    for (uint32_t i = 0; i < n; i++)
        if (s->objects[i].model == -2)
            k[nf++] = (keyed){s->objects[i].file, i};
    qsort(k, nf, sizeof *k, cmp_keyed);
    kcbp_status st = KCBP_OK;
    s->models = calloc(nf ? nf : 1, sizeof *s->models);
    if (!s->models)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", s->name);
    for (uint32_t j = 0; st == KCBP_OK && j < nf; j++) {
        uint32_t i = k[j].i;
        if (j == 0 || strcmp(k[j].key, k[j - 1].key) != 0) {
            kcbp2d_scene_model *m = &s->models[s->nmodels++];
            const char *p = k[j].key;
            size_t nd = dir && *dir && p[0] != '/' ? strlen(dir) : 0;
            char *joined = malloc(nd + strlen(p) + 2);
            m->path = strdup(p);
            if (!joined || !m->path) {
                free(joined);
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", s->name);
                break;
            }
            if (nd)
                sprintf(joined, "%s/%s", dir, p);
            else
                strcpy(joined, p);
            bool inside = true;
            if (root && (st = kcbp_confine_check(root, base, p, joined, s->name, &inside, err)) == KCBP_OK && !inside)
                st = kcbp_error_set(err, KCBP_ERR_IO,
                                    "%s: objects[%u].mesh: %s: outside the mesh root %s (see --mesh-root)", s->name, i,
                                    joined, root);
            kcbp_error e;
            if (st == KCBP_OK && kcbp2d_model_load(joined, &m->model, &e) != KCBP_OK)
                st = kcbp_error_set(err, e.code, "%s: objects[%u].mesh: %s", s->name, i, e.msg);
            free(joined);
        }
        s->objects[i].model = (int32_t)(s->nmodels - 1);
    }
    free(k);
    if (st != KCBP_OK)
        return st;
    /* shapes: objects of the same kind and numbers count as one model
     * (sorted, then counted: the count is for reports) */
    uint32_t ns = 0;
    const kcbp2d_scene_obj **sh = malloc((size_t)n * sizeof *sh);
    if (!sh)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", s->name);
    for (uint32_t i = 0; i < n; i++)
        if (s->objects[i].model < 0)
            sh[ns++] = &s->objects[i];
    qsort(sh, ns, sizeof *sh, cmp_shape);
    uint32_t shapes = ns > 0;
    for (uint32_t j = 1; j < ns; j++)
        shapes += cmp_shape(&sh[j - 1], &sh[j]) != 0;
    free(sh);
    s->nshapes = shapes;
    /* the motion keeps every pose finite and within the limit */
    for (uint32_t i = 0; s->moving && i < n; i++) {
        const kcbp2d_scene_obj *o = &s->objects[i];
        double t = (double)(s->frames - 1) * s->dt;
        double x = o->tx + t * o->vx, y = o->ty + t * o->vy, d = o->deg + t * o->w;
        if (!(fabs(x) <= KCBP_COORD_MAX) || !(fabs(y) <= KCBP_COORD_MAX) || !isfinite(d))
            return kcbp_error_set(err, KCBP_ERR_PARSE,
                                  "%s: objects[%u].velocity: moves the object beyond the limit of %g by the last frame",
                                  s->name, i, KCBP_COORD_MAX);
    }
    return KCBP_OK;
}

void kcbp2d_scene_free(kcbp2d_scene *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->nobjects; i++) {
        free(s->objects[i].name);
        free(s->objects[i].file);
    }
    for (uint32_t m = 0; m < s->nmodels; m++) {
        free(s->models[m].path);
        kcbp2d_model_free(s->models[m].model);
    }
    free(s->objects);
    free(s->models);
    free(s->name);
    free(s);
}

static kcbp_status make(const char *name, const char *dir, const char *root, const char *base, const char *text,
                        size_t len, kcbp2d_scene **out, kcbp_error *err)
{
    *out = NULL;
    kcbp2d_scene *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(name ? name : "scene"))) {
        free(s);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory");
    }
    s->frames = 1;
    kcbp_status st = parse_text(s, s->name, text, len, err);
    if (st == KCBP_OK)
        st = finish(s, dir, root, base, err);
    if (st != KCBP_OK) {
        kcbp2d_scene_free(s);
        return st;
    }
    *out = s;
    return KCBP_OK;
}

kcbp_status kcbp2d_scene_parse(const char *name, const char *dir, const char *text, size_t len, kcbp2d_scene **out,
                               kcbp_error *err)
{
    if (!out || (!text && len))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_parse: NULL argument");
    return make(name, dir, NULL, NULL, text, len, out, err);
}

static bool read_to_end(void *ctx, const kcbp_input *in, const char *buf, size_t n, bool seen_nul)
{
    (void)ctx, (void)in, (void)buf, (void)n, (void)seen_nul;
    return false;
}

kcbp_status kcbp2d_scene_read_in(const char *path, const char *root, kcbp2d_scene **out, kcbp_error *err)
{
    if (!out || !path)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp2d_scene_read_in: NULL argument");
    *out = NULL;
    kcbp_input in;
    kcbp_status st = kcbp_input_open(&in, path, "a scene file", err);
    if (st != KCBP_OK)
        return st;
    char *data = NULL;
    size_t len = 0;
    st = kcbp_input_read_all(&in, KCBP2D_SCENE_MAX_BYTES, "1 GiB", read_to_end, NULL, &data, &len, err);
    kcbp_input_close(&in);
    if (st != KCBP_OK)
        return st;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup("");
    char *real_root = NULL, *real_base = NULL;
    if (!dir)
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", path);
    else {
        const char *r = root ? root : *dir ? dir : ".";
        if (!(real_root = realpath(r, NULL)))
            st = kcbp_error_set(err, KCBP_ERR_IO, "%s: mesh root %s: %s", path, r, strerror(errno));
        else if (!(real_base = realpath(*dir ? dir : ".", NULL)))
            st = kcbp_error_set(err, KCBP_ERR_IO, "%s: folder %s: %s", path, *dir ? dir : ".", strerror(errno));
    }
    if (st == KCBP_OK)
        st = make(path, dir, real_root, real_base, data, len, out, err);
    free(real_root);
    free(real_base);
    free(dir);
    free(data);
    return st;
}

/* ---- reading a scene --------------------------------------------------------- */

const char *kcbp2d_scene_name(const kcbp2d_scene *s) { return s->name; }
uint32_t kcbp2d_scene_object_count(const kcbp2d_scene *s) { return s->nobjects; }
const char *kcbp2d_scene_object_name(const kcbp2d_scene *s, uint32_t i) { return s->objects[i].name; }
uint32_t kcbp2d_scene_frame_count(const kcbp2d_scene *s) { return s->frames; }
double kcbp2d_scene_dt(const kcbp2d_scene *s) { return s->moving ? s->dt : 0.0; }
uint32_t kcbp2d_scene_model_count(const kcbp2d_scene *s) { return s->nmodels + s->nshapes; }

const kcbp2d_model *kcbp2d_scene_object_model(const kcbp2d_scene *s, uint32_t i)
{
    return s->objects[i].model >= 0 ? s->models[s->objects[i].model].model : NULL;
}

const kcbp2d_shape *kcbp2d_scene_object_shape(const kcbp2d_scene *s, uint32_t i)
{
    return s->objects[i].model < 0 ? &s->objects[i].shape : NULL;
}

kcbp2d_pose kcbp2d_scene_object_pose(const kcbp2d_scene *s, uint32_t i, uint32_t frame)
{
    const kcbp2d_scene_obj *o = &s->objects[i];
    double t = s->moving ? (double)frame * s->dt : 0.0;
    kcbp2d_pose p;
    /* checked when read: finite and within the limit at every frame */
    if (kcbp2d_pose_from_angle(o->tx + t * o->vx, o->ty + t * o->vy, o->deg + t * o->w, &p, NULL) != KCBP_OK)
        p = kcbp2d_pose_identity();
    return p;
}
