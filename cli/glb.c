/* --export FILE.glb: the answer as one binary glTF 2.0 file (view.h).
 *
 * - Each model's vertices once, float32 (glTF's POSITION must be float), in
 *   the model's own frame; each object a node whose "matrix" is its pose in
 *   double, so copies of one mesh (a scene) share its vertices.
 * - Contact triangles: each object with contacts gets its own glTF mesh of
 *   two primitives over the same POSITION accessor, its other triangles
 *   with its colour and its contact triangles with a red material. Vertex
 *   colours were the other way: they are per vertex, so a contact
 *   triangle's red would bleed into its neighbours through their shared
 *   vertices unless every vertex were duplicated (and the mesh's topology
 *   lost on reading back). Two primitives keep the vertices shared and the
 *   colour exact, and every viewer shows a material.
 * - The k-CBPs are extra nodes named "NAME k-CBP" (translucent), after every
 *   object's node, so that reading the file back numbers the objects'
 *   triangles first; a distance's closest points are empty nodes ("closest
 *   point a", "closest point b") placed at them, and their segment a line
 *   (mode 1: "closest points segment"), which viewers draw.
 * - The default scene holds them all, with the answer's JSON under its
 *   extras.kcbp.
 * Laid out as the spec asks: chunks padded to 4 bytes (JSON with spaces, BIN
 * with zeros), every buffer view 4-byte aligned with its target, every
 * POSITION accessor with its min and max. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "json_line.h"
#include "view.h"

enum { TARGET_ARRAY = 34962, TARGET_ELEMENTS = 34963 };

typedef struct {
    unsigned char *d;
    size_t n, cap;
    bool failed;
} bin;

/* Appends len bytes (4-byte aligned already: all pieces are float32 or
 * uint32 arrays); returns their offset. */
static size_t bin_put(bin *b, const void *p, size_t len)
{
    size_t at = b->n;
    if (b->failed)
        return at;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + len)
            cap *= 2;
        unsigned char *d = realloc(b->d, cap);
        if (!d) {
            b->failed = true;
            return at;
        }
        b->d = d;
        b->cap = cap;
    }
    memcpy(b->d + b->n, p, len);
    b->n += len;
    return at;
}

typedef struct {
    const kcbp_view *v;
    cJSON *views, *accessors, *meshes, *materials, *nodes;
    bin b;
    bool failed;
    int *pos_acc;   /* per model: its POSITION accessor, -1 before */
    int *all_acc;   /* per model: all its triangles, -1 before */
    int *cbp_mesh;  /* per model: its k-CBP's glTF mesh, -1 before, -2 none */
    uint32_t mat_color[64];
    int nmat;
    int contact_mat, cbp_mat;
    int *plain_mesh; /* per model and material: a glTF mesh of all triangles */
} glb;

static double srgb_to_linear(uint32_t c)
{
    double x = c / 255.0;
    return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

/* An array of numbers written exactly (cJSON prints 15 digits when they
 * read back within a relative 2^-52, which may not be the same double). */
static cJSON *exact_array(const double *x, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        char buf[32];
        kcbp_format_double(buf, x[i]);
        cJSON *v = cJSON_CreateRaw(buf);
        if (!v || !cJSON_AddItemToArray(a, v)) {
            cJSON_Delete(v);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static int add_item(glb *g, cJSON *arr, cJSON *item)
{
    if (!item || !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        g->failed = true;
        return 0;
    }
    return cJSON_GetArraySize(arr) - 1;
}

static int add_view(glb *g, const void *data, size_t len, int target)
{
    size_t at = bin_put(&g->b, data, len);
    cJSON *o = cJSON_CreateObject();
    if (o) {
        g->failed |= !cJSON_AddNumberToObject(o, "buffer", 0) || !cJSON_AddNumberToObject(o, "byteOffset", (double)at) ||
                     !cJSON_AddNumberToObject(o, "byteLength", (double)len) ||
                     !cJSON_AddNumberToObject(o, "target", target);
    }
    return add_item(g, g->views, o);
}

static int add_accessor(glb *g, int view, int ctype, size_t count, const char *type, const double *min,
                        const double *max, int ncomp)
{
    cJSON *o = cJSON_CreateObject();
    if (o) {
        g->failed |= !cJSON_AddNumberToObject(o, "bufferView", view) ||
                     !cJSON_AddNumberToObject(o, "componentType", ctype) ||
                     !cJSON_AddNumberToObject(o, "count", (double)count) || !cJSON_AddStringToObject(o, "type", type);
        if (min) {
            cJSON *a = exact_array(min, ncomp), *b = exact_array(max, ncomp);
            if (!a || !cJSON_AddItemToObject(o, "min", a)) {
                cJSON_Delete(a);
                g->failed = true;
            }
            if (!b || !cJSON_AddItemToObject(o, "max", b)) {
                cJSON_Delete(b);
                g->failed = true;
            }
        }
    }
    return add_item(g, g->accessors, o);
}

/* float32 positions of n points, with their min and max. */
static kcbp_status add_positions(glb *g, const kcbp_vec3 *pts, const kcbp_model *m, uint32_t n, int *acc,
                                 kcbp_error *err)
{
    float *f = malloc((n ? n : 1) * 3 * sizeof *f);
    if (!f)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec3 p = pts ? pts[i] : kcbp_view_vertex(m, i);
        double c[3] = {p.x, p.y, p.z};
        for (int k = 0; k < 3; k++) {
            if (fabs(c[k]) > FLT_MAX) {
                free(f);
                return kcbp_error_set(err, KCBP_ERR_INVALID, "--export: a coordinate (%g) beyond float32's range, "
                                      "which glTF positions are", c[k]);
            }
            f[3 * i + k] = (float)c[k];
            lo[k] = fmin(lo[k], f[3 * i + k]);
            hi[k] = fmax(hi[k], f[3 * i + k]);
        }
    }
    int view = add_view(g, f, (size_t)n * 12, TARGET_ARRAY);
    free(f);
    *acc = add_accessor(g, view, 5126, n, "VEC3", lo, hi, 3);
    return KCBP_OK;
}

static int add_indices(glb *g, const uint32_t *idx, size_t n)
{
    int view = add_view(g, idx, n * 4, TARGET_ELEMENTS);
    return add_accessor(g, view, 5125, n, "SCALAR", NULL, NULL, 1);
}

static int material(glb *g, uint32_t rgb, double alpha, const char *name)
{
    cJSON *o = cJSON_CreateObject(), *pbr = o ? cJSON_AddObjectToObject(o, "pbrMetallicRoughness") : NULL;
    double c[4] = {srgb_to_linear(rgb >> 16 & 255), srgb_to_linear(rgb >> 8 & 255), srgb_to_linear(rgb & 255), alpha};
    cJSON *f = cJSON_CreateDoubleArray(c, 4);
    if (!pbr || !f || !cJSON_AddItemToObject(pbr, "baseColorFactor", f)) {
        cJSON_Delete(f);
        g->failed = true;
    } else {
        g->failed |= !cJSON_AddStringToObject(o, "name", name) || !cJSON_AddNumberToObject(pbr, "metallicFactor", 0) ||
                     !cJSON_AddNumberToObject(pbr, "roughnessFactor", 0.8) || !cJSON_AddTrueToObject(o, "doubleSided");
        if (alpha < 1)
            g->failed |= !cJSON_AddStringToObject(o, "alphaMode", "BLEND");
    }
    return add_item(g, g->materials, o);
}

/* The material of an object's colour and style, made once. */
static int object_material(glb *g, const kcbp_view_object *o)
{
    uint32_t key = o->color | (o->style == KCBP_VIEW_GHOST ? 1u << 24 : 0);
    for (int i = 0; i < g->nmat; i++)
        if (g->mat_color[i] == key)
            return i + 2; /* after the contact and k-CBP materials */
    if (g->nmat == 64)
        return 2;
    char name[32];
    snprintf(name, sizeof name, "kcbp #%06x%s", (unsigned)o->color, o->style == KCBP_VIEW_GHOST ? " ghost" : "");
    g->mat_color[g->nmat++] = key;
    return material(g, o->color, o->style == KCBP_VIEW_GHOST ? 0.3 : 1, name);
}

static cJSON *primitive(int pos, int ind, int mat, int mode)
{
    cJSON *p = cJSON_CreateObject(), *a = p ? cJSON_AddObjectToObject(p, "attributes") : NULL;
    if (!a || !cJSON_AddNumberToObject(a, "POSITION", pos) || !cJSON_AddNumberToObject(p, "indices", ind) ||
        !cJSON_AddNumberToObject(p, "material", mat) || !cJSON_AddNumberToObject(p, "mode", mode)) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

static int add_mesh(glb *g, const char *name, int pos, const int *ind, const int *mat, int nprim)
{
    cJSON *m = cJSON_CreateObject(), *prims = m ? cJSON_AddArrayToObject(m, "primitives") : NULL;
    g->failed |= !prims || !cJSON_AddStringToObject(m, "name", name);
    for (int i = 0; prims && i < nprim; i++) {
        cJSON *p = primitive(pos, ind[i], mat[i], 4); /* triangles */
        if (!p || !cJSON_AddItemToArray(prims, p)) {
            cJSON_Delete(p);
            g->failed = true;
        }
    }
    return add_item(g, g->meshes, m);
}

static void add_node(glb *g, const char *name, int mesh, const kcbp_pose *p, const kcbp_vec3 *at)
{
    cJSON *n = cJSON_CreateObject();
    if (n) {
        g->failed |= !cJSON_AddStringToObject(n, "name", name);
        if (mesh >= 0)
            g->failed |= !cJSON_AddNumberToObject(n, "mesh", mesh);
        if (p) { /* column-major: the rotation's columns, then the translation */
            double m[16] = {p->rot.m[0][0], p->rot.m[1][0], p->rot.m[2][0], 0, p->rot.m[0][1], p->rot.m[1][1],
                            p->rot.m[2][1], 0, p->rot.m[0][2], p->rot.m[1][2], p->rot.m[2][2], 0,
                            p->trans.x,     p->trans.y,     p->trans.z,     1};
            cJSON *a = exact_array(m, 16);
            if (!a || !cJSON_AddItemToObject(n, "matrix", a)) {
                cJSON_Delete(a);
                g->failed = true;
            }
        }
        if (at) {
            double t[3] = {at->x, at->y, at->z};
            cJSON *a = exact_array(t, 3);
            if (!a || !cJSON_AddItemToObject(n, "translation", a)) {
                cJSON_Delete(a);
                g->failed = true;
            }
        }
    }
    add_item(g, g->nodes, n);
}

static kcbp_status model_positions(glb *g, uint32_t mi, kcbp_error *err)
{
    if (g->pos_acc[mi] >= 0)
        return KCBP_OK;
    const kcbp_model *m = g->v->models[mi];
    return add_positions(g, NULL, m, kcbp_view_nvertices(m), &g->pos_acc[mi], err);
}

/* One object's mesh: shared by the unmarked objects of a model and
 * material, its own (two primitives) when it has contact triangles. */
static kcbp_status object_mesh(glb *g, const kcbp_view_object *o, int *mesh, kcbp_error *err)
{
    const kcbp_model *m = g->v->models[o->model];
    uint32_t nt = kcbp_view_ntriangles(m), nmarked = 0;
    for (uint32_t t = 0; o->marked && t < nt; t++)
        nmarked += o->marked[t] != 0;
    kcbp_status st = model_positions(g, o->model, err);
    if (st != KCBP_OK)
        return st;
    int mat = object_material(g, o);
    if (nmarked == 0) {
        int *slot = &g->plain_mesh[(size_t)o->model * 66 + (size_t)(mat < 66 ? mat : 65)];
        if (*slot < 0) {
            if (g->all_acc[o->model] < 0) {
                uint32_t *idx = malloc((size_t)nt * 3 * sizeof *idx);
                if (!idx)
                    return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
                for (uint32_t t = 0; t < nt; t++)
                    memcpy(idx + 3 * (size_t)t, kcbp_view_triangle(m, t), 3 * sizeof *idx);
                g->all_acc[o->model] = add_indices(g, idx, (size_t)nt * 3);
                free(idx);
            }
            *slot = add_mesh(g, o->name, g->pos_acc[o->model], &g->all_acc[o->model], &mat, 1);
        }
        *mesh = *slot;
        return KCBP_OK;
    }
    uint32_t *idx = malloc((size_t)nt * 3 * sizeof *idx);
    if (!idx)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    /* The other triangles first, then the contact triangles, each in
     * order. */
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t t = 0; t < nt; t++)
            if ((o->marked[t] != 0) == (pass == 1)) {
                memcpy(idx + k, kcbp_view_triangle(m, t), 3 * sizeof *idx);
                k += 3;
            }
    size_t nplain = (size_t)(nt - nmarked) * 3;
    int ind[2], mats[2], np = 0;
    if (nplain) {
        ind[np] = add_indices(g, idx, nplain);
        mats[np++] = mat;
    }
    ind[np] = add_indices(g, idx + nplain, (size_t)nmarked * 3);
    mats[np++] = g->contact_mat;
    free(idx);
    *mesh = add_mesh(g, o->name, g->pos_acc[o->model], ind, mats, np);
    return KCBP_OK;
}

static kcbp_status cbp_mesh(glb *g, uint32_t mi, int *mesh, kcbp_error *err)
{
    if (g->cbp_mesh[mi] != -1) {
        *mesh = g->cbp_mesh[mi];
        return KCBP_OK;
    }
    kcbp_vec3 *pts;
    uint32_t *tri, nv, nt;
    if (!kcbp_view_cbp_triangles(g->v->models[mi], &pts, &nv, &tri, &nt))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
    kcbp_status st = KCBP_OK;
    g->cbp_mesh[mi] = -2;
    if (nt > 0) {
        int pos;
        st = add_positions(g, pts, NULL, nv, &pos, err);
        if (st == KCBP_OK) {
            int ind = add_indices(g, tri, (size_t)nt * 3);
            g->cbp_mesh[mi] = add_mesh(g, "k-CBP", pos, &ind, &g->cbp_mat, 1);
        }
    }
    free(pts);
    free(tri);
    *mesh = g->cbp_mesh[mi];
    return st;
}

static kcbp_status write_file(const char *path, const char *json, size_t jlen, const bin *b, kcbp_error *err)
{
    size_t jpad = (4 - jlen % 4) % 4, bpad = (4 - b->n % 4) % 4;
    uint64_t total = 12 + 8 + (uint64_t)jlen + jpad + (b->n ? 8 + (uint64_t)b->n + bpad : 0);
    if (total > UINT32_MAX)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "--export: %s: %llu bytes, beyond the 4 GiB a .glb can hold", path,
                              (unsigned long long)total);
    FILE *f = fopen(path, "wb");
    if (!f)
        return kcbp_error_set(err, KCBP_ERR_IO, "--export: %s: cannot open for writing: %s", path, strerror(errno));
    kcbp_cli_partial_begin(path); /* removed if interrupted (interrupt.h) */
    unsigned char h[28];
    uint32_t words[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)(jlen + jpad), 0x4E4F534Au};
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 4; k++)
            h[4 * i + k] = (unsigned char)(words[i] >> (8 * k));
    fwrite(h, 1, 20, f);
    fwrite(json, 1, jlen, f);
    fwrite("   ", 1, jpad, f);
    if (b->n) {
        uint32_t w2[2] = {(uint32_t)(b->n + bpad), 0x004E4942u};
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 4; k++)
                h[4 * i + k] = (unsigned char)(w2[i] >> (8 * k));
        fwrite(h, 1, 8, f);
        fwrite(b->d, 1, b->n, f);
        fwrite("\0\0\0", 1, bpad, f);
    }
    errno = 0;
    bool bad = ferror(f) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    kcbp_cli_partial_end(path);
    if (bad) {
        kcbp_view_remove_partial(path);
        return kcbp_error_set(err, KCBP_ERR_IO, "--export: %s: cannot write: %s", path, e ? strerror(e) : "write error");
    }
    return KCBP_OK;
}

kcbp_status kcbp_glb_write(const char *path, const kcbp_view *v, kcbp_error *err)
{
    glb g;
    memset(&g, 0, sizeof g);
    g.v = v;
    cJSON *doc = cJSON_CreateObject();
    g.pos_acc = malloc(((size_t)v->nmodels + 1) * sizeof *g.pos_acc);
    g.all_acc = malloc(((size_t)v->nmodels + 1) * sizeof *g.all_acc);
    g.cbp_mesh = malloc(((size_t)v->nmodels + 1) * sizeof *g.cbp_mesh);
    g.plain_mesh = malloc(((size_t)v->nmodels + 1) * 66 * sizeof *g.plain_mesh);
    kcbp_status st = KCBP_OK;
    if (!doc || !g.pos_acc || !g.all_acc || !g.cbp_mesh || !g.plain_mesh) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < v->nmodels; i++)
        g.pos_acc[i] = g.all_acc[i] = g.cbp_mesh[i] = -1;
    for (size_t i = 0; i < ((size_t)v->nmodels + 1) * 66; i++)
        g.plain_mesh[i] = -1;
    cJSON *asset = cJSON_AddObjectToObject(doc, "asset");
    g.failed |= !asset || !cJSON_AddStringToObject(asset, "version", "2.0") ||
                !cJSON_AddStringToObject(asset, "generator", "kcbp " KCBP_VERSION_STRING);
    cJSON *scenes = cJSON_AddArrayToObject(doc, "scenes");
    g.nodes = cJSON_AddArrayToObject(doc, "nodes");
    g.meshes = cJSON_AddArrayToObject(doc, "meshes");
    g.materials = cJSON_AddArrayToObject(doc, "materials");
    g.accessors = cJSON_AddArrayToObject(doc, "accessors");
    g.views = cJSON_AddArrayToObject(doc, "bufferViews");
    cJSON *buffers = cJSON_AddArrayToObject(doc, "buffers");
    g.failed |= !cJSON_AddNumberToObject(doc, "scene", 0) || !scenes || !g.nodes || !g.meshes || !g.materials ||
                !g.accessors || !g.views || !buffers;
    if (g.failed) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
        goto done;
    }
    g.contact_mat = material(&g, KCBP_VIEW_CONTACT_RGB, 1, "kcbp contact");
    g.cbp_mat = material(&g, 0x808080, 0.25, "kcbp k-CBP");
    for (uint32_t i = 0; i < v->nobjects && st == KCBP_OK; i++) {
        int mesh = -1;
        if ((st = object_mesh(&g, &v->objects[i], &mesh, err)) == KCBP_OK)
            add_node(&g, v->objects[i].name, mesh, &v->objects[i].pose, NULL);
    }
    for (uint32_t i = 0; i < v->nobjects && st == KCBP_OK; i++) {
        const kcbp_view_object *o = &v->objects[i];
        int mesh = -1;
        if (o->style != KCBP_VIEW_SOLID || (st = cbp_mesh(&g, o->model, &mesh, err)) != KCBP_OK || mesh < 0)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%s k-CBP", o->name);
        add_node(&g, name, mesh, &o->pose, NULL);
    }
    if (st == KCBP_OK && v->has_points) {
        add_node(&g, "closest point a", -1, NULL, &v->point_a);
        add_node(&g, "closest point b", -1, NULL, &v->point_b);
        /* Their segment as a line (mode 1): viewers draw no empty node. */
        kcbp_vec3 ends[2] = {v->point_a, v->point_b};
        int pos = -1;
        if ((st = add_positions(&g, ends, NULL, 2, &pos, err)) == KCBP_OK) {
            static const uint32_t line[2] = {0, 1};
            int ind = add_indices(&g, line, 2);
            int mat = material(&g, KCBP_VIEW_POINTS_RGB, 1, "kcbp closest points");
            cJSON *m = cJSON_CreateObject(), *prims = m ? cJSON_AddArrayToObject(m, "primitives") : NULL;
            cJSON *prim = primitive(pos, ind, mat, 1);
            if (prims && prim && cJSON_AddItemToArray(prims, prim))
                prim = NULL; /* the mesh holds it */
            else
                g.failed = true;
            cJSON_Delete(prim);
            g.failed |= !m || !cJSON_AddStringToObject(m, "name", "closest points segment");
            add_node(&g, "closest points segment", add_item(&g, g.meshes, m), NULL, NULL);
        }
    }
    if (st != KCBP_OK)
        goto done;
    cJSON *scene = cJSON_CreateObject(), *list = scene ? cJSON_AddArrayToObject(scene, "nodes") : NULL;
    int nnodes = cJSON_GetArraySize(g.nodes);
    for (int i = 0; list && i < nnodes; i++)
        g.failed |= !cJSON_AddItemToArray(list, cJSON_CreateNumber(i));
    if (scene) {
        g.failed |= !list || !cJSON_AddStringToObject(scene, "name", v->kind);
        cJSON *extras = cJSON_AddObjectToObject(scene, "extras");
        cJSON *answer = v->answer ? cJSON_CreateRaw(v->answer) : NULL; /* as printed, exactly */
        if (extras && answer && cJSON_AddItemToObject(extras, "kcbp", answer))
            answer = NULL;
        cJSON_Delete(answer);
    }
    add_item(&g, scenes, scene);
    cJSON *buf = cJSON_CreateObject();
    if (buf)
        g.failed |= !cJSON_AddNumberToObject(buf, "byteLength", (double)g.b.n);
    add_item(&g, buffers, buf);
    if (g.failed || g.b.failed) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
        goto done;
    }
    char *json = cJSON_PrintUnformatted(doc);
    if (!json) {
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "--export: out of memory");
        goto done;
    }
    st = write_file(path, json, strlen(json), &g.b, err);
    cJSON_free(json);
done:
    cJSON_Delete(doc);
    free(g.b.d);
    free(g.pos_acc);
    free(g.all_acc);
    free(g.cbp_mesh);
    free(g.plain_mesh);
    return st;
}
