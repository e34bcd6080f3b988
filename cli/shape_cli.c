/* Shapes on the command line: `sphere:R`, `capsule:R:L`, `box:X:Y:Z`,
 * `cylinder:R:L` and `hull:FILE` (the convex hull of a mesh file's
 * vertices) wherever a pair command takes a mesh file (a file so named is
 * reached as ./sphere:1), and how reports describe them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_line.h"

#define HULL_PREFIX "hull:"

static bool is_hull(const char *arg) { return !strncmp(arg, HULL_PREFIX, sizeof HULL_PREFIX - 1); }

bool kcbp_cli_is_shape(const char *arg) { return kcbp_shape_spelled(arg) != 0 || is_hull(arg); }

int kcbp_cli_check_shape_arg(const char *cmd, const char *arg)
{
    if (!kcbp_cli_is_shape(arg))
        return KCBP_EXIT_OK;
    if (is_hull(arg))
        return arg[sizeof HULL_PREFIX - 1] ? KCBP_EXIT_OK
                                           : kcbp_cli_usage_error(cmd, "hull: takes a mesh file (hull:FILE)");
    kcbp_shape s;
    kcbp_error err;
    if (kcbp_shape_parse(arg, &s, &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "%s (a file of that name is ./%s)", err.msg, arg);
    return KCBP_EXIT_OK;
}

/* hull:FILE: the convex hull of the file's vertices. */
static kcbp_status build_hull(const char *path, kcbp_model *model, kcbp_error *err)
{
    kcbp_mesh *mesh;
    kcbp_status st = kcbp_mesh_load(path, &mesh, err);
    if (st != KCBP_OK)
        return st;
    st = kcbp_model_build_hull(model, kcbp_mesh_vertices(mesh), kcbp_mesh_vertex_count(mesh), err);
    if (st != KCBP_OK)
        kcbp_error_prefix(err, path);
    kcbp_mesh_free(mesh);
    return st;
}

kcbp_status kcbp_cli_build_shape(const char *arg, kcbp_model *model, kcbp_error *err)
{
    if (is_hull(arg))
        return build_hull(arg + sizeof HULL_PREFIX - 1, model, err);
    kcbp_shape s;
    kcbp_status st = kcbp_shape_parse(arg, &s, err);
    if (st == KCBP_OK)
        st = kcbp_model_build_shape(model, &s, err);
    return st;
}

void kcbp_cli_jl_shape(kcbp_jl *w, const kcbp_model *model)
{
    kcbp_shape s;
    kcbp_model_shape(model, &s);
    kcbp_jl_key(w, "shape");
    kcbp_jl_string(w, kcbp_shape_kind_name(s.kind));
    switch (s.kind) {
    case KCBP_SHAPE_SPHERE:
        kcbp_jl_key(w, "radius");
        kcbp_jl_double(w, s.radius);
        break;
    case KCBP_SHAPE_CAPSULE:
    case KCBP_SHAPE_CYLINDER: /* the names of shape.h and the scene files */
        kcbp_jl_key(w, "radius");
        kcbp_jl_double(w, s.radius);
        kcbp_jl_key(w, s.kind == KCBP_SHAPE_CAPSULE ? "length" : "height");
        kcbp_jl_double(w, s.length);
        break;
    case KCBP_SHAPE_BOX:
        kcbp_jl_key(w, "size");
        kcbp_jl_open(w, '[');
        kcbp_jl_double(w, s.size.x);
        kcbp_jl_double(w, s.size.y);
        kcbp_jl_double(w, s.size.z);
        kcbp_jl_close(w, ']');
        break;
    case KCBP_SHAPE_HULL: {
        uint32_t n;
        kcbp_model_hull_vertices(model, &n);
        kcbp_jl_key(w, "vertices");
        kcbp_jl_uint(w, n);
        break;
    }
    case KCBP_SHAPE_NONE: break;
    }
}

cJSON *kcbp_cli_json_shape(const kcbp_model *model)
{
    kcbp_jl w;
    kcbp_jl_init(&w);
    kcbp_jl_open(&w, '{');
    kcbp_cli_jl_shape(&w, model);
    kcbp_jl_close(&w, '}');
    char *text = kcbp_jl_finish(&w);
    if (!text)
        return NULL;
    cJSON *o = cJSON_Parse(text); /* the numbers are the shape's own: short, exact in 15 digits or not */
    free(text);
    return o;
}

cJSON *kcbp_cli_json_index(uint32_t i)
{
    return i == KCBP_SHAPE_FEATURE ? cJSON_CreateNull() : cJSON_CreateNumber((double)i);
}

cJSON *kcbp_cli_json_pair(uint32_t a, uint32_t b)
{
    cJSON *p = cJSON_CreateArray(), *x = kcbp_cli_json_index(a), *y = kcbp_cli_json_index(b);
    if (!p || !x || !cJSON_AddItemToArray(p, x)) {
        cJSON_Delete(p);
        cJSON_Delete(x);
        cJSON_Delete(y);
        return NULL;
    }
    if (!y || !cJSON_AddItemToArray(p, y)) {
        cJSON_Delete(p);
        cJSON_Delete(y);
        return NULL;
    }
    return p;
}

/* The digits of KCBP_SHAPE_FEATURE as kcbp_jl_uint writes them. */
static const char feature_digits[] = "4294967295";

void kcbp_cli_null_shape_indices(char *line)
{
    /* Only inside the arrays of triangle indices: "contacts", "faces",
     * "face_tris" and "triangles" hold nothing but whole numbers, commas and
     * brackets, so a number equal to the feature's digits there is one. */
    static const char *const keys[] = {"\"contacts\":[", "\"faces\":[", "\"face_tris\":[", "\"triangles\":["};
    const size_t fl = sizeof feature_digits - 1;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        for (char *p = strstr(line, keys[k]); p; p = strstr(p, keys[k])) {
            p += strlen(keys[k]);
            int depth = 1;
            for (; *p && depth > 0; p++) {
                if (*p == '[')
                    depth++;
                else if (*p == ']')
                    depth--;
                else if (!strncmp(p, feature_digits, fl) && (p[-1] == '[' || p[-1] == ',') &&
                         (p[fl] == ']' || p[fl] == ',')) {
                    /* "4294967295" (10 bytes) becomes "null" and the rest moves up */
                    memcpy(p, "null", 4);
                    memmove(p + 4, p + fl, strlen(p + fl) + 1);
                    p += 3;
                }
            }
        }
    }
}

bool kcbp_cli_add_pair_list(cJSON *o, const char *key, uint32_t x, uint32_t y)
{
    cJSON *pair = kcbp_cli_json_pair(x, y), *list = cJSON_CreateArray(); /* null for a shape's side */
    if (!pair || !list || !cJSON_AddItemToArray(list, pair)) {
        cJSON_Delete(pair);
        cJSON_Delete(list);
        return false;
    }
    if (!cJSON_AddItemToObject(o, key, list)) {
        cJSON_Delete(list);
        return false;
    }
    return true;
}
