/* Scenes from files: reading a scene file (scene_json.c parses it),
 * confining its meshes to a root, and building its models (one per distinct
 * mesh file and scale, the file read once). The scene's description is
 * scene_desc.c's, frames are scene_eval.c's. */
#include <kcbp/scene.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <kcbp/mesh_io.h>
#include "base/input.h"
#include "model_cache.h"
#include "query/model_internal.h"
#include "scene_internal.h"
#include "confine.h"
#include "scene_json.h"
#include "base/util.h"

static kcbp_status read_scene(kcbp_scene *s, const char *path, bool confined, const char *mesh_root,
                              kcbp_error *err)
{
    memset(s, 0, sizeof *s);
    kcbp_input in;
    kcbp_status st = kcbp_input_open(&in, path, "a scene file", err);
    if (st != KCBP_OK)
        return st;
    const char *slash = strrchr(path, '/');
    char *dir = malloc(slash ? (size_t)(slash - path) + 2 : 1);
    if (!dir) {
        kcbp_input_close(&in);
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
    st = kcbp_scene_parse_stream_into(s, path, dir, &in, err);
    kcbp_input_close(&in);
    if (st == KCBP_OK && confined) {
        /* Meshes are read only inside the root: symlinks resolved, so that
         * neither "../" nor a link leads out of it. */
        const char *root = mesh_root ? mesh_root : *dir ? dir : ".";
        if (!(s->mesh_root = realpath(root, NULL)))
            st = kcbp_error_set(err, KCBP_ERR_IO, "%s: mesh root %s: %s", path, root, strerror(errno));
        else if (!(s->mesh_base = realpath(*dir ? dir : ".", NULL)))
            st = kcbp_error_set(err, KCBP_ERR_IO, "%s: folder %s: %s", path, *dir ? dir : ".", strerror(errno));
        if (st != KCBP_OK)
            kcbp_scene_clear(s);
    }
    free(dir);
    return st;
}

static kcbp_status read_handle(const char *path, bool confined, const char *mesh_root, kcbp_scene **out,
                               kcbp_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", path);
    kcbp_status st = read_scene(*out, path, confined, mesh_root, err);
    if (st != KCBP_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

kcbp_status kcbp_scene_read(const char *path, kcbp_scene **out, kcbp_error *err)
{
    return read_handle(path, false, NULL, out, err);
}

kcbp_status kcbp_scene_read_in(const char *path, const char *mesh_root, kcbp_scene **out, kcbp_error *err)
{
    return read_handle(path, true, mesh_root, out, err);
}

/* ---- the mesh root -------------------------------------------------------- */

/* Refuses a mesh outside s->mesh_root, looking at the path first (a path
 * that leads out is refused without touching the file system, so the
 * message says nothing of what is there), then at where its links lead. */
static kcbp_status confine(const kcbp_scene *s, uint32_t obj, const char *joined, kcbp_error *err)
{
    bool ok;
    kcbp_status st = kcbp_confine_check(s->mesh_root, s->mesh_base, s->objects[obj].mesh, joined, s->name, &ok, err);
    if (st != KCBP_OK || ok)
        return st;
    return kcbp_error_set(err, KCBP_ERR_IO, "%s: objects[%u].mesh: %s: outside the mesh root %s (see --mesh-root)",
                          s->name, obj, joined, s->mesh_root);
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
        free(mesh->faces);
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
    return kcbp_scene_build_cached(s, opts, NULL, err);
}

kcbp_status kcbp_scene_build_cached(kcbp_scene *s, const kcbp_model_options *opts, kcbp_model_cache *cache,
                                    kcbp_error *err)
{
    if (s->built)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the scene is built already", s->name);
    kcbp_status st = s->assigned ? KCBP_OK : kcbp_scene_assign_models(s, err);
    if (st != KCBP_OK)
        return st;
    kcbp_model_options o = opts ? *opts : kcbp_model_options_default();
    if (!opts && s->moving) /* default options: the fine k-CBPs serve moving scenes */
        o.k_fine = KCBP_CBP_K_FINE_DEFAULT;
    s->load_ms = s->build_ms = 0;
    s->cache = cache;
    uint64_t copies = 0; /* vertices and triangles of the scaled copies */
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
        if (s->models[m].shape.kind != KCBP_SHAPE_NONE) {
            /* A shape (its marked spelling: a run of its scales): built from
             * its numbers, nothing read; cheap, so never cached. */
            double t0 = kcbp_now_ms();
            for (uint32_t i = m; i < end && st == KCBP_OK; i++)
                if ((st = kcbp_model_build_shape(&s->models[i].model, &s->models[i].shape, err)) != KCBP_OK) {
                    char prefix[128];
                    snprintf(prefix, sizeof prefix, "%s: objects[%u].shape", s->name, s->models[i].first_object);
                    kcbp_error_prefix(err, prefix);
                }
            s->build_ms += kcbp_now_ms() - t0;
            m = end;
            continue;
        }
        snprintf(field, sizeof field, "objects[%u].mesh", first);
        /* (the objects of one joined path all wrote it the same way) */
        if (s->mesh_root && (st = confine(s, first, s->models[m].path, err)) != KCBP_OK)
            break;
        /* Borrow what the cache has; last: the last model still to build,
         * which may take the loaded mesh over instead of copying it. */
        uint32_t last = end;
        kcbp_model_key key;
        bool keyed = cache && kcbp_model_key_of(s->models[m].path, 1.0, &o, &key);
        for (uint32_t i = m; i < end; i++) {
            key.scale = s->models[i].scale;
            if (keyed)
                s->models[i].cached = kcbp_model_cache_borrow(cache, &key, &s->models[i].model);
            if (!s->models[i].cached)
                last = i;
        }
        if (last == end) {
            m = end;
            continue;
        }
        double t0 = kcbp_now_ms();
        kcbp_mesh mesh;
        st = kcbp_mesh_load_into(s->models[m].path, &mesh, err);
        double t1 = kcbp_now_ms();
        s->load_ms += t1 - t0;
        /* Scaled copies cost a model each without a file to warrant it:
         * they share one budget of elements (20,000 scales of one mesh took
         * over 3 GB). */
        for (uint32_t i = m + 1; i < end && st == KCBP_OK; i++) {
            copies += mesh.nvertices + mesh.ntriangles;
            if (copies > KCBP_SCENE_MAX_COPY_ELEMENTS) {
                snprintf(field, sizeof field, "objects[%u].scale", s->models[i].first_object);
                st = kcbp_error_set(err, KCBP_ERR_LIMIT,
                                    "a model per distinct scale: the scaled copies of the scene's meshes "
                                    "would hold more than %llu vertices and triangles",
                                    (unsigned long long)KCBP_SCENE_MAX_COPY_ELEMENTS);
            }
        }
        for (uint32_t i = m; i < end && st == KCBP_OK; i++) {
            if (s->models[i].cached)
                continue;
            kcbp_mesh own;
            st = scaled_mesh(&mesh, s->models[i].scale, i == last, &own, err);
            if (st == KCBP_OK)
                st = kcbp_model_build_from(&s->models[i].model, &own, &o, err);
            if (st != KCBP_OK) /* name the object whose model failed, not the file's first user */
                snprintf(field, sizeof field, "objects[%u].mesh", s->models[i].first_object);
            key.scale = s->models[i].scale;
            if (st == KCBP_OK && keyed)
                s->models[i].cached = kcbp_model_cache_lend(cache, &key, &s->models[i].model);
        }
        kcbp_mesh_clear(&mesh);
        s->build_ms += kcbp_now_ms() - t1;
        if (st != KCBP_OK) {
            char prefix[128];
            snprintf(prefix, sizeof prefix, "%s: %s", s->name, field);
            kcbp_error_prefix(err, prefix);
        }
        m = end;
    }
    s->built = st == KCBP_OK;
    return st;
}

kcbp_status kcbp_scene_load_into(kcbp_scene *s, const char *path, const kcbp_model_options *opts, kcbp_error *err)
{
    kcbp_status st = read_scene(s, path, false, NULL, err);
    if (st == KCBP_OK && (st = kcbp_scene_build(s, opts, err)) != KCBP_OK)
        kcbp_scene_clear(s);
    return st;
}

kcbp_status kcbp_scene_load(const char *path, const kcbp_model_options *opts, kcbp_scene **out, kcbp_error *err)
{
    kcbp_status st = kcbp_scene_read(path, out, err);
    if (st == KCBP_OK && (st = kcbp_scene_build(*out, opts, err)) != KCBP_OK) {
        kcbp_scene_free(*out);
        *out = NULL;
    }
    return st;
}

