/* The scenes of bench/scale.sh (issue 26) as a compact binary side file,
 * read by the programs that must go beyond what kcbp's scene reader takes
 * (KCBP_SCENE_MAX_OBJECTS) or should not pay for a JSON tree: the FCL peer
 * (scale_fcl) and the broad-phase prototypes (bp_proto). gen_scale writes
 * each scene twice, SCENE.json for kcbp and SCENE.json.bin for them, with
 * the very same doubles (every number of the JSON is written so that it
 * reads back as the double stored here), and checks with kcbp's own reader
 * that both give bit-identical poses (gen_scale --check).
 *
 * The file, native byte order (a benchmark's scratch file, not an exchange
 * format):
 *   "KCBPSCL1", u32 nmodels, u32 nobjects, u32 frames, u32 moving, f64 dt,
 *   per model: u32 length, the mesh path (relative to the file's folder, no
 *   NUL), f64 scale;
 *   per object: u32 model, u32 has_rotation, f64 position[3], axis[3],
 *   angle_deg, velocity[3], spin_axis[3], spin_deg_per_s.
 *
 * Poses are made exactly as kcbp_scene_object_pose makes them (src/scene.c):
 * the initial rotation from kcbp_pose_from_axis_angle, the spin the same,
 * multiplied on the left. This header compiles as C11 and as C++17. */
#ifndef KCBP_BENCH_SCALE_SCENE_H
#define KCBP_BENCH_SCALE_SCENE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

#define SS_MAGIC "KCBPSCL1"
#define SS_MAX_OBJECTS 20000000u
#define SS_MAX_MODELS 4096u

typedef struct {
    char *path;   /* as written in the scene (relative to its folder) */
    double scale;
} ss_model;

/* One object as the file gives it; rot0 is derived (the identity without a
 * rotation). */
typedef struct {
    uint32_t model, has_rotation;
    kcbp_vec3 position, axis;
    double angle_deg;
    kcbp_vec3 velocity, spin_axis;
    double spin_deg_per_s;
    kcbp_mat3 rot0;
} ss_object;

typedef struct {
    uint32_t nmodels, nobjects, frames, moving;
    double dt;
    ss_model *models;
    ss_object *objects;
} ss_scene;

static inline void ss_free(ss_scene *s)
{
    if (!s)
        return;
    for (uint32_t m = 0; s->models && m < s->nmodels; m++)
        free(s->models[m].path);
    free(s->models);
    free(s->objects);
    memset(s, 0, sizeof *s);
}

/* rot0 of an object from its axis and angle, as kcbp's reader makes it. */
static inline int ss_object_finish(ss_object *o)
{
    if (!o->has_rotation) {
        o->rot0 = kcbp_mat3_identity();
        return 1;
    }
    kcbp_pose p;
    if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->axis, o->angle_deg, &p, NULL) != KCBP_OK)
        return 0;
    o->rot0 = p.rot;
    return 1;
}

/* Object i's pose at frame f: kcbp_scene_object_pose's formula. */
static inline kcbp_pose ss_pose(const ss_scene *s, uint32_t i, uint32_t f)
{
    const ss_object *o = &s->objects[i];
    kcbp_pose p;
    p.rot = o->rot0;
    p.trans = o->position;
    double t = s->moving ? (double)f * s->dt : 0.0;
    if (t == 0.0)
        return p;
    p.trans = kcbp_v3_add(o->position, kcbp_v3_scale(o->velocity, t));
    if (o->spin_deg_per_s != 0.0) {
        kcbp_pose spin;
        if (kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), o->spin_axis, t * o->spin_deg_per_s, &spin, NULL) ==
            KCBP_OK)
            p.rot = kcbp_mat3_mul(&spin.rot, &o->rot0);
    }
    return p;
}

static inline int ss_write_u32(FILE *f, uint32_t v) { return fwrite(&v, sizeof v, 1, f) == 1; }
static inline int ss_write_f64(FILE *f, double v) { return fwrite(&v, sizeof v, 1, f) == 1; }
static inline int ss_write_v3(FILE *f, kcbp_vec3 v)
{
    return ss_write_f64(f, v.x) && ss_write_f64(f, v.y) && ss_write_f64(f, v.z);
}
static inline int ss_read_u32(FILE *f, uint32_t *v) { return fread(v, sizeof *v, 1, f) == 1; }
static inline int ss_read_f64(FILE *f, double *v) { return fread(v, sizeof *v, 1, f) == 1; }
static inline int ss_read_v3(FILE *f, kcbp_vec3 *v)
{
    return ss_read_f64(f, &v->x) && ss_read_f64(f, &v->y) && ss_read_f64(f, &v->z);
}

/* The header and models; the objects follow one by one (ss_write_object). */
static inline int ss_write_head(FILE *f, const ss_scene *s)
{
    if (fwrite(SS_MAGIC, 1, 8, f) != 8 || !ss_write_u32(f, s->nmodels) || !ss_write_u32(f, s->nobjects) ||
        !ss_write_u32(f, s->frames) || !ss_write_u32(f, s->moving) || !ss_write_f64(f, s->dt))
        return 0;
    for (uint32_t m = 0; m < s->nmodels; m++) {
        uint32_t len = (uint32_t)strlen(s->models[m].path);
        if (!ss_write_u32(f, len) || fwrite(s->models[m].path, 1, len, f) != len ||
            !ss_write_f64(f, s->models[m].scale))
            return 0;
    }
    return 1;
}

static inline int ss_write_object(FILE *f, const ss_object *o)
{
    return ss_write_u32(f, o->model) && ss_write_u32(f, o->has_rotation) && ss_write_v3(f, o->position) &&
           ss_write_v3(f, o->axis) && ss_write_f64(f, o->angle_deg) && ss_write_v3(f, o->velocity) &&
           ss_write_v3(f, o->spin_axis) && ss_write_f64(f, o->spin_deg_per_s);
}

/* Reads the file at path into s; returns 1, or 0 with a message in msg. */
static inline int ss_read(const char *path, ss_scene *s, char *msg, size_t msglen)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(msg, msglen, "%.400s: cannot open", path);
        return 0;
    }
    char magic[8];
    int ok = fread(magic, 1, 8, f) == 8 && !memcmp(magic, SS_MAGIC, 8) && ss_read_u32(f, &s->nmodels) &&
             ss_read_u32(f, &s->nobjects) && ss_read_u32(f, &s->frames) && ss_read_u32(f, &s->moving) &&
             ss_read_f64(f, &s->dt) && s->nmodels >= 1 && s->nmodels <= SS_MAX_MODELS && s->nobjects >= 1 &&
             s->nobjects <= SS_MAX_OBJECTS && s->frames >= 1;
    if (ok) {
        s->models = (ss_model *)calloc(s->nmodels, sizeof *s->models);
        s->objects = (ss_object *)malloc((size_t)s->nobjects * sizeof *s->objects);
        ok = s->models && s->objects;
    }
    for (uint32_t m = 0; ok && m < s->nmodels; m++) {
        uint32_t len = 0;
        ok = ss_read_u32(f, &len) && len >= 1 && len < 4096 && (s->models[m].path = (char *)malloc(len + 1)) &&
             fread(s->models[m].path, 1, len, f) == len && ss_read_f64(f, &s->models[m].scale);
        if (ok)
            s->models[m].path[len] = 0;
    }
    for (uint32_t i = 0; ok && i < s->nobjects; i++) {
        ss_object *o = &s->objects[i];
        ok = ss_read_u32(f, &o->model) && ss_read_u32(f, &o->has_rotation) && ss_read_v3(f, &o->position) &&
             ss_read_v3(f, &o->axis) && ss_read_f64(f, &o->angle_deg) && ss_read_v3(f, &o->velocity) &&
             ss_read_v3(f, &o->spin_axis) && ss_read_f64(f, &o->spin_deg_per_s) && o->model < s->nmodels &&
             ss_object_finish(o);
    }
    fclose(f);
    if (!ok) {
        snprintf(msg, msglen, "%.400s: not a scale scene file (or out of memory)", path);
        ss_free(s);
    }
    return ok;
}

/* The folder of path, with a trailing '/', or "" (into dir, dirlen bytes). */
static inline void ss_dir_of(const char *path, char *dir, size_t dirlen)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path + 1) : 0;
    if (n >= dirlen)
        n = 0;
    memcpy(dir, path, n);
    dir[n] = 0;
}

/* Model m's mesh, loaded from the scene's folder and scaled as kcbp's scene
 * builder scales it (every vertex times the scale, unless it is 1). */
static inline kcbp_status ss_load_mesh(const ss_scene *s, const char *dir, uint32_t m, kcbp_mesh **mesh,
                                       kcbp_error *err)
{
    size_t need = strlen(dir) + strlen(s->models[m].path) + 1;
    char *path = (char *)malloc(need);
    if (!path)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory");
    snprintf(path, need, "%s%s", dir, s->models[m].path);
    kcbp_status st = kcbp_mesh_load(path, mesh, err);
    free(path);
    if (st != KCBP_OK || s->models[m].scale == 1.0)
        return st;
    size_t nv = kcbp_mesh_vertex_count(*mesh), nt = kcbp_mesh_triangle_count(*mesh);
    kcbp_vec3 *v = (kcbp_vec3 *)malloc((nv ? nv : 1) * sizeof *v);
    if (!v) {
        kcbp_mesh_free(*mesh);
        *mesh = NULL;
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory");
    }
    const kcbp_vec3 *src = kcbp_mesh_vertices(*mesh);
    for (size_t i = 0; i < nv; i++)
        v[i] = kcbp_v3_scale(src[i], s->models[m].scale);
    kcbp_mesh *scaled;
    st = kcbp_mesh_create(v, nv, kcbp_mesh_triangles(*mesh), nt, &scaled, err);
    free(v);
    kcbp_mesh_free(*mesh);
    *mesh = st == KCBP_OK ? scaled : NULL;
    return st;
}

#endif
