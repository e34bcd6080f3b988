/* The fuzz targets (see targets.h). */
#include "targets.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <kcbp/kcbp.h>
#include "testutil.h"

static void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

static void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz property violated: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static bool finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* A failed call leaves a message that starts with the input's name. */
static void check_error(kcbp_status st, const kcbp_error *err, const char *name)
{
    if (st == KCBP_OK)
        return;
    if (err->code != st || strncmp(err->msg, name, strlen(name)) != 0)
        fuzz_fail("error %s (recorded %s) with message '%s', which should start with '%s'", kcbp_status_name(st),
                  kcbp_status_name(err->code), err->msg, name);
}

static void check_pose(const kcbp_pose *p, const char *what)
{
    if (!finite3(p->trans) || kcbp_v3_max_abs(p->trans) > KCBP_COORD_MAX)
        fuzz_fail("%s: non-finite translation %g %g %g", what, p->trans.x, p->trans.y, p->trans.z);
    /* R^T R = I within rounding, or within the tolerance a "matrix" pose is
     * accepted with (include/kcbp/pose.h), and no reflection */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += p->rot.m[k][i] * p->rot.m[k][j];
            if (!(fabs(s - (i == j)) <= KCBP_POSE_RIGID_TOL + 1e-15))
                fuzz_fail("%s: rotation not orthonormal: (R^T R)[%d][%d] = %.17g", what, i, j, s);
        }
    const double(*m)[3] = p->rot.m;
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!(det > 0))
        fuzz_fail("%s: det R = %.17g", what, det);
}

/* Any pose accepted, written as a "matrix" line of its 12 numbers to 17
 * digits, reads back as the very same pose. */
static void check_matrix_round_trip(const kcbp_pose *p, const char *what)
{
    char line[512];
    const double(*m)[3] = p->rot.m;
    snprintf(line, sizeof line, "matrix %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g 0 0 0 1",
             m[0][0], m[0][1], m[0][2], p->trans.x, m[1][0], m[1][1], m[1][2], p->trans.y, m[2][0], m[2][1], m[2][2],
             p->trans.z);
    kcbp_pose q;
    kcbp_error err = {0};
    if (kcbp_pose_parse(line, &q, &err) != KCBP_OK)
        fuzz_fail("%s: its matrix line does not read back: %s", what, err.msg);
    if (memcmp(&q, p, sizeof q) != 0)
        fuzz_fail("%s: its matrix line reads back as another pose", what);
}

/* ---- obj ---------------------------------------------------------------- */

static void check_mesh(const kcbp_mesh *m)
{
    if (m->nvertices < 1 || m->ntriangles < 1 || m->nvertices > KCBP_MESH_MAX_ELEMENTS ||
        m->ntriangles > KCBP_MESH_MAX_ELEMENTS || m->ndegenerate > m->ntriangles)
        fuzz_fail("mesh counts: %u vertices, %u triangles, %u degenerate", m->nvertices, m->ntriangles,
                  m->ndegenerate);
    for (uint32_t i = 0; i < m->nvertices; i++) {
        kcbp_vec3 v = m->vertices[i];
        if (!finite3(v))
            fuzz_fail("vertex %u is not finite", i);
        if (v.x < m->bounds.min.x || v.y < m->bounds.min.y || v.z < m->bounds.min.z || v.x > m->bounds.max.x ||
            v.y > m->bounds.max.y || v.z > m->bounds.max.z)
            fuzz_fail("vertex %u outside the bounds", i);
    }
    for (uint32_t t = 0; t < m->ntriangles; t++)
        for (int k = 0; k < 3; k++)
            if (m->triangles[t].v[k] >= m->nvertices)
                fuzz_fail("triangle %u indexes vertex %u of %u", t, m->triangles[t].v[k], m->nvertices);
    /* The face map: faces numbered from 0 in a row, each a run of triangles,
     * fewer faces than triangles (else there would be no map). */
    if (m->faces) {
        if (m->faces[0] != 0)
            fuzz_fail("face map starts at face %u", m->faces[0]);
        for (uint32_t t = 1; t < m->ntriangles; t++)
            if (m->faces[t] != m->faces[t - 1] && m->faces[t] != m->faces[t - 1] + 1)
                fuzz_fail("face map: triangle %u in face %u after face %u", t, m->faces[t], m->faces[t - 1]);
        if (m->faces[m->ntriangles - 1] + 1 >= m->ntriangles)
            fuzz_fail("face map of %u faces for %u triangles", m->faces[m->ntriangles - 1] + 1, m->ntriangles);
    }
}

static int check_parsed(kcbp_status st, kcbp_mesh mesh, kcbp_error err, const char *name);

int kcbp_fuzz_obj(const uint8_t *data, size_t size)
{
    kcbp_mesh mesh;
    kcbp_error err = {0};
    kcbp_status st = kcbp_obj_parse_into("fuzz.obj", (const char *)data, size, &mesh, &err);
    return check_parsed(st, mesh, err, "fuzz.obj");
}

/* The STL, PLY and OFF readers, through kcbp_mesh_parse with the extension
 * that names the format (content may still pick another reader). */
static int fuzz_mesh(const uint8_t *data, size_t size, const char *name)
{
    kcbp_mesh mesh;
    kcbp_error err = {0};
    kcbp_status st = kcbp_mesh_parse_into(name, data, size, &mesh, &err);
    return check_parsed(st, mesh, err, name);
}

int kcbp_fuzz_stl(const uint8_t *data, size_t size) { return fuzz_mesh(data, size, "fuzz.stl"); }
int kcbp_fuzz_ply(const uint8_t *data, size_t size) { return fuzz_mesh(data, size, "fuzz.ply"); }
int kcbp_fuzz_off(const uint8_t *data, size_t size) { return fuzz_mesh(data, size, "fuzz.off"); }

static int check_parsed(kcbp_status st, kcbp_mesh mesh, kcbp_error err, const char *name)
{
    check_error(st, &err, name);
    if (st != KCBP_OK) {
        if (mesh.vertices || mesh.triangles || mesh.nvertices || mesh.ntriangles)
            fuzz_fail("a failed parse left a mesh behind");
        return 0;
    }
    check_mesh(&mesh);
    if (mesh.nvertices > 64 || mesh.ntriangles > 64) {
        kcbp_mesh_clear(&mesh);
        return 0;
    }
    /* Small meshes: the model (tree and k-CBP) and the mesh against itself,
     * which touches wherever it is placed. */
    uint32_t nt = mesh.ntriangles;
    kcbp_model model;
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 8;
    st = kcbp_model_build_from(&model, &mesh, &mo, &err);
    check_error(st, &err, "");
    if (st != KCBP_OK)
        return 0;
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result res = {0};
    kcbp_pose id = kcbp_pose_identity();
    st = kcbp_collide(&model, &id, &model, &id, &co, &res, &err);
    if (st != KCBP_OK)
        fuzz_fail("kcbp_collide of a mesh with itself: %s", err.msg);
    if (!res.collide || res.ncontacts < nt)
        fuzz_fail("a mesh of %u triangles against itself: collide %d with %zu contacts", nt, res.collide,
                  res.ncontacts);
    kcbp_collide_result_free(&res);
    /* Swept through itself from 3 sizes away, both copies turning alike:
     * at t = 1/2 the two coincide, so it must hit by then (or give up at
     * the step cap), with finite numbers. */
    double reach = 3 * fmax(1e-300, fmax(kcbp_v3_max_abs(model.impl->mesh.bounds.min), kcbp_v3_max_abs(model.impl->mesh.bounds.max)));
    if (reach < 1e100) {
        kcbp_pose p0, p1, a1;
        if (kcbp_pose_from_axis_angle(kcbp_v3(reach, 0, 0), kcbp_v3(0, 0, 1), 0, &p0, NULL) == KCBP_OK &&
            kcbp_pose_from_axis_angle(kcbp_v3(-reach, 0, 0), kcbp_v3(1, 1, 0), 170, &p1, NULL) == KCBP_OK &&
            kcbp_pose_from_axis_angle(kcbp_v3(0, 0, 0), kcbp_v3(1, 1, 0), 170, &a1, NULL) == KCBP_OK) {
            kcbp_motion still = kcbp_motion_make(&id, &a1), mo_b = kcbp_motion_make(&p0, &p1);
            kcbp_sweep_options so = kcbp_sweep_options_default();
            so.max_iterations = 2000;
            kcbp_sweep_result sr;
            st = kcbp_sweep(&model, &still, &model, &mo_b, &so, &sr, &err);
            if (st != KCBP_OK)
                fuzz_fail("kcbp_sweep of a mesh through itself: %s", err.msg);
            if (!isfinite(sr.toi) || !isfinite(sr.free_until) || !isfinite(sr.motion_bound) || sr.toi < 0 ||
                sr.toi > 0.5 || (!sr.hit && !sr.undecided))
                fuzz_fail("kcbp_sweep through itself: hit %d undecided %d toi %g", sr.hit, sr.undecided, sr.toi);
            kcbp_pose half = kcbp_motion_at(&mo_b, 0.5);
            check_pose(&half, "kcbp_motion_at");
        }
    }
    kcbp_model_free(&model);
    return 0;
}

/* ---- scene -------------------------------------------------------------- */

static bool same_double(double a, double b) { return a == b; }
static bool same_vec(kcbp_vec3 a, kcbp_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

static void check_same_scene(const kcbp_scene *a, const kcbp_scene *b)
{
    if (a->nobjects != b->nobjects || a->nmodels != b->nmodels || a->moving != b->moving || a->frames != b->frames ||
        !same_double(a->dt, b->dt))
        fuzz_fail("round trip: counts or motion differ");
    for (uint32_t i = 0; i < a->nobjects; i++) {
        const kcbp_scene_obj *p = &a->objects[i], *q = &b->objects[i];
        if (strcmp(p->name, q->name) || strcmp(p->mesh, q->mesh) || !same_double(p->scale, q->scale) ||
            !same_vec(p->position, q->position) || !same_vec(p->velocity, q->velocity) || p->model != q->model ||
            memcmp(&p->rot0, &q->rot0, sizeof p->rot0) != 0 ||
            !same_double(p->spin_deg_per_s, q->spin_deg_per_s) ||
            (p->spin_deg_per_s != 0 && !same_vec(p->spin_axis, q->spin_axis)) || /* no spin: axis not written */
            !same_vec(p->axis, q->axis) || !same_double(p->angle_deg, q->angle_deg))
            fuzz_fail("round trip: object %u differs", i);
        uint32_t frames[3] = {0, a->frames / 2, a->frames - 1};
        for (int f = 0; f < 3; f++) {
            kcbp_pose pa = kcbp_scene_object_pose(a, i, frames[f]), pb = kcbp_scene_object_pose(b, i, frames[f]);
            if (memcmp(&pa, &pb, sizeof pa) != 0)
                fuzz_fail("round trip: object %u has another pose at frame %u", i, frames[f]);
        }
    }
}

int kcbp_fuzz_scene(const uint8_t *data, size_t size)
{
    kcbp_scene s;
    kcbp_error err = {0};
    kcbp_status st = kcbp_scene_parse_into(&s, "fuzz.json", NULL, (const char *)data, size, &err);
    check_error(st, &err, "fuzz.json");
    if (st != KCBP_OK)
        return 0;
    if (s.nobjects < 1 || s.nobjects > KCBP_SCENE_MAX_OBJECTS || s.nmodels < 1 || s.nmodels > s.nobjects ||
        s.frames < 1 || s.frames > KCBP_SCENE_MAX_FRAMES || (s.moving && !(s.dt > 0 && isfinite(s.dt))) ||
        (!s.moving && s.frames != 1))
        fuzz_fail("scene counts: %u objects, %u models, %u frames, dt %g", s.nobjects, s.nmodels, s.frames, s.dt);
    for (uint32_t i = 0; i < s.nobjects; i++) {
        const kcbp_scene_obj *o = &s.objects[i];
        if (o->model >= s.nmodels || !(o->scale > 0 && isfinite(o->scale)) || !o->name[0])
            fuzz_fail("object %u: model %u of %u, scale %g", i, o->model, s.nmodels, o->scale);
        char what[64];
        for (int last = 0; last < 2; last++) {
            kcbp_pose p = kcbp_scene_object_pose(&s, i, last ? s.frames - 1 : 0);
            snprintf(what, sizeof what, "object %u at frame %u", i, last ? s.frames - 1 : 0);
            check_pose(&p, what);
        }
    }
    char *text;
    if (kcbp_scene_to_text(&s, false, &text, &err) != KCBP_OK)
        fuzz_fail("kcbp_scene_to_text failed: %s", err.msg);
    kcbp_scene t;
    st = kcbp_scene_parse_into(&t, "again.json", NULL, text, strlen(text), &err);
    if (st != KCBP_OK)
        fuzz_fail("the written scene does not read back: %s\n%s", err.msg, text);
    check_same_scene(&s, &t);
    free(text);
    kcbp_scene_clear(&t);
    kcbp_scene_clear(&s);
    return 0;
}

/* ---- pose --------------------------------------------------------------- */

int kcbp_fuzz_pose(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    kcbp_pose pose;
    kcbp_error err = {0};
    kcbp_status st = kcbp_pose_parse(text, &pose, &err);
    check_error(st, &err, "");
    if (st == KCBP_OK) {
        check_pose(&pose, "kcbp_pose_parse");
        check_matrix_round_trip(&pose, "kcbp_pose_parse");
    }
    free(text);

    /* The same bytes as a poses file, in memory. */
    static int fd = -1;
    if (fd < 0 && (fd = memfd_create("kcbp-fuzz-poses", 0)) < 0)
        return 0;
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    kcbp_pose *poses;
    size_t count;
    st = kcbp_pose_load_file(path, &poses, &count, &err);
    check_error(st, &err, path);
    if (st != KCBP_OK) {
        if (poses || count)
            fuzz_fail("a failed poses file left %zu poses behind", count);
        return 0;
    }
    if (count < 1)
        fuzz_fail("no poses, yet no error");
    for (size_t i = 0; i < count; i++) {
        check_pose(&poses[i], "kcbp_pose_load_file");
        if (i < 64)
            check_matrix_round_trip(&poses[i], "kcbp_pose_load_file");
    }
    free(poses);
    /* The same bytes as a sweeps file (two poses a line), and each sweep's
     * motion halfway. */
    kcbp_pose_reader *r;
    if (kcbp_pose_reader_open(&r, path, &err) != KCBP_OK)
        return 0;
    for (int line = 0; line < 1000; line++) {
        kcbp_pose two[2];
        bool done;
        st = kcbp_pose_reader_next_n(r, two, 2, &done, &err);
        check_error(st, &err, path);
        if (st != KCBP_OK || done)
            break;
        check_pose(&two[0], "sweep from-pose");
        check_pose(&two[1], "sweep to-pose");
        kcbp_motion m = kcbp_motion_make(&two[0], &two[1]);
        if (!(m.angle >= 0 && m.angle <= 3.14159265358979323846 + 1e-9))
            fuzz_fail("kcbp_motion_make: angle %g outside [0, pi]", m.angle);
        kcbp_pose half = kcbp_motion_at(&m, 0.5);
        check_pose(&half, "kcbp_motion_at");
    }
    kcbp_pose_reader_close(r);
    return 0;
}

/* ---- collide ------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n, i;
} bytes;

static uint8_t next(bytes *b) { return b->i < b->n ? b->p[b->i++] : 0; }

/* One coordinate, in one of four encodings: a small grid (exact touching
 * everywhere), sixteenths, 16-bit fixed point, and a grid scaled by a power
 * of two (very large and very small models). */
static double coord(bytes *b, int mode, int exp2)
{
    switch (mode) {
    case 0: return (double)((int)(next(b) % 5) - 2);
    case 1: return (double)(int8_t)next(b) / 16.0;
    case 2: {
        int v = (int16_t)(next(b) | (next(b) << 8));
        return (double)v / 4096.0;
    }
    default: return ldexp((double)((int)(next(b) % 9) - 4), exp2);
    }
}

static kcbp_pose decode_pose(bytes *b, int mode, int exp2)
{
    kcbp_vec3 t;
    t.x = coord(b, mode, exp2);
    t.y = coord(b, mode, exp2);
    t.z = coord(b, mode, exp2);
    kcbp_vec3 axis = kcbp_v3((int8_t)next(b), (int8_t)next(b), (int8_t)next(b));
    uint8_t a = next(b);
    double deg = a < 128 ? 90.0 * (a % 4) : (a - 128) * (360.0 / 127.0);
    kcbp_pose p;
    if (kcbp_pose_from_axis_angle(t, axis, deg, &p, NULL) != KCBP_OK &&
        kcbp_pose_from_axis_angle(t, kcbp_v3(0, 0, 1), deg, &p, NULL) != KCBP_OK)
        fuzz_fail("kcbp_pose_from_axis_angle refused a finite pose");
    return p;
}

static void decode_mesh(bytes *b, int ntri, int mode, int exp2, kcbp_mesh *m)
{
    kcbp_vec3 v[12];
    kcbp_tri t[4];
    for (int i = 0; i < 3 * ntri; i++) {
        v[i].x = coord(b, mode, exp2);
        v[i].y = coord(b, mode, exp2);
        v[i].z = coord(b, mode, exp2);
    }
    for (int i = 0; i < ntri; i++)
        t[i] = (kcbp_tri){{(uint32_t)(3 * i), (uint32_t)(3 * i + 1), (uint32_t)(3 * i + 2)}};
    kcbp_error err;
    if (kcbp_mesh_init(m, v, (size_t)(3 * ntri), t, (size_t)ntri, &err) != KCBP_OK)
        fuzz_fail("kcbp_mesh_init: %s", err.msg);
}

/* Hill-climbing over the k-CBP's vertex adjacency (include/kcbp/cbp.h: a climbing
 * graph) must find the scan's maximum from every start vertex, up to
 * rounding, in the directions most likely to expose a flaw: the face
 * normals, both ways and tilted by 1e-7 and 1e-11 (nearly tied vertices),
 * the directions of the vertices from the mesh's centre, and the 26 k-DOP
 * directions. */
static void check_climb(const kcbp_model *m)
{
    const kcbp_cbp *c = &m->impl->cbp;
    if (!c->nvertices || !c->adj_start)
        return;
    double size = 0; /* the k-CBP's own: a point mesh (scale 0) is thickened */
    for (uint32_t v = 0; v < c->nvertices; v++)
        size = fmax(size, kcbp_v3_max_abs(c->vertices[v]));
    kcbp_vec3 centre = kcbp_aabb_center(m->impl->mesh.bounds);
    uint32_t nface = 4 * c->nplanes, ndirs = nface + c->nvertices + 26;
    for (uint32_t i = 0; i < ndirs; i++) {
        kcbp_vec3 d;
        if (i < nface) {
            uint32_t f = i / 4;
            d = c->planes[f].n;
            if (i % 4 >= 2) { /* towards the face's third or fourth vertex (a face has >= 3) */
                uint32_t cnt = c->face_start[f + 1] - c->face_start[f];
                kcbp_vec3 to = kcbp_v3_sub(c->vertices[c->face_verts[c->face_start[f] + i % 4 % cnt]], centre);
                d = kcbp_v3_add(d, kcbp_v3_scale(to, (i % 4 == 2 ? 1e-7 : 1e-11) / fmax(size, 1e-300)));
            }
            if (i % 4 == 1)
                d = kcbp_v3_scale(d, -1);
        } else if (i < nface + c->nvertices) {
            d = kcbp_v3_sub(c->vertices[i - nface], centre);
        } else {
            int k = (int)(i - nface - c->nvertices), t = k < 13 ? k : k + 1; /* skip (0,0,0) */
            d = kcbp_v3(t % 3 - 1, t / 3 % 3 - 1, t / 9 - 1);
        }
        if (!(kcbp_v3_len(d) > 0) || !finite3(d))
            continue;
        double best = kcbp_v3_dot(d, c->vertices[kcbp_support_scan(c->vertices, c->nvertices, d)]);
        double tol = 1e-12 * size * kcbp_v3_len(d);
        for (uint32_t s = 0; s < c->nvertices; s++) {
            uint32_t got = kcbp_support_climb(c->vertices, c->nvertices, c->adj_start, c->adj, d, s);
            if (kcbp_v3_dot(d, c->vertices[got]) < best - tol)
                fuzz_fail("k-CBP of %u vertices: climbing from vertex %u stops at %u, %g below the maximum (|d| %g, "
                          "k-CBP size %g, direction %u)",
                          c->nvertices, s, got, best - kcbp_v3_dot(d, c->vertices[got]), kcbp_v3_len(d), size, i);
        }
    }
}

/* The decoded case, so that a failure can be read and turned into a test. */
static void dump_case(const kcbp_model *a, const kcbp_pose *pa, const kcbp_model *b, const kcbp_pose *pb, double eps,
                      const kcbp_model_options *mo)
{
    const kcbp_model *m[2] = {a, b};
    const kcbp_pose *p[2] = {pa, pb};
    fprintf(stderr, "k = %d, dirs %s, eps %.17g\n", mo->k, kcbp_cbp_dirs_name(mo->dirs), eps);
    for (int s = 0; s < 2; s++) {
        fprintf(stderr, "mesh %c:\n", "AB"[s]);
        for (uint32_t i = 0; i < m[s]->impl->mesh.nvertices; i++) {
            kcbp_vec3 v = m[s]->impl->mesh.vertices[i];
            fprintf(stderr, "  v %.17g %.17g %.17g\n", v.x, v.y, v.z);
        }
        fprintf(stderr, "pose %c: rot", "AB"[s]);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                fprintf(stderr, " %.17g", p[s]->rot.m[r][c]);
        fprintf(stderr, " trans %.17g %.17g %.17g\n", p[s]->trans.x, p[s]->trans.y, p[s]->trans.z);
    }
}

static int cmp_contact(const void *x, const void *y)
{
    const kcbp_contact *a = x, *b = y;
    return a->a != b->a ? (a->a < b->a ? -1 : 1) : a->b != b->b ? (a->b < b->b ? -1 : 1) : 0;
}

int kcbp_fuzz_collide(const uint8_t *data, size_t size)
{
    bytes b = {data, size, 0};
    uint8_t h0 = next(&b), h1 = next(&b);
    int na = 1 + (h0 & 3), nb = 1 + ((h0 >> 2) & 3), mode = (h0 >> 4) & 3;
    bool same_mesh = h0 & 0x40;
    int exp2 = (int)(next(&b) % 81) - 40;
    kcbp_model_options mo = {.k = 4 + h1 % 29, .dirs = (kcbp_cbp_dirs)((h1 >> 5) & 3)};

    kcbp_mesh mesh_a, mesh_b;
    decode_mesh(&b, na, mode, exp2, &mesh_a);
    if (!same_mesh)
        decode_mesh(&b, nb, mode, exp2, &mesh_b);
    kcbp_pose pose_a = next(&b) & 1 ? decode_pose(&b, mode, exp2) : kcbp_pose_identity();
    kcbp_pose pose_b = decode_pose(&b, mode, exp2);

    kcbp_model ma, mb;
    kcbp_error err = {0};
    if (kcbp_model_build_from(&ma, &mesh_a, &mo, &err) != KCBP_OK)
        fuzz_fail("kcbp_model_build of %d triangles: %s", na, err.msg);
    if (!same_mesh && kcbp_model_build_from(&mb, &mesh_b, &mo, &err) != KCBP_OK)
        fuzz_fail("kcbp_model_build of %d triangles: %s", nb, err.msg);
    const kcbp_model *a = &ma, *mbp = same_mesh ? &ma : &mb;
    check_climb(a);
    if (!same_mesh)
        check_climb(mbp);

    /* The oracle: every pair, in A's frame, with kcbp_collide's tolerance. */
    kcbp_pose rel = kcbp_pose_relative(&pose_a, &pose_b);
    double eps = kcbp_pair_tolerance(a->impl, mbp->impl, &rel);
    kcbp_contact want[16];
    size_t nwant = 0;
    for (uint32_t i = 0; i < a->impl->mesh.ntriangles; i++) {
        kcbp_vec3 ta[3];
        for (int k = 0; k < 3; k++)
            ta[k] = a->impl->mesh.vertices[a->impl->mesh.triangles[i].v[k]];
        for (uint32_t j = 0; j < mbp->impl->mesh.ntriangles; j++) {
            kcbp_vec3 tb[3];
            for (int k = 0; k < 3; k++)
                tb[k] = kcbp_pose_apply(&rel, mbp->impl->mesh.vertices[mbp->impl->mesh.triangles[j].v[k]]);
            if (kcbp_tri_intersect(ta, tb, eps))
                want[nwant++] = (kcbp_contact){i, j};
        }
    }

    kcbp_collide_options co = kcbp_collide_options_default();
    kcbp_collide_result res = {0};
    for (int run = 0; run < 3; run++) {
        co.contacts = run == 2 ? KCBP_CONTACTS_NONE : KCBP_CONTACTS_ALL;
        co.use_cbp = run != 1;
        co.cbp_measure = run == 0;
        if (kcbp_collide(a, &pose_a, mbp, &pose_b, &co, &res, &err) != KCBP_OK)
            fuzz_fail("kcbp_collide: %s", err.msg);
        if (res.collide != (nwant > 0))
            dump_case(a, &pose_a, mbp, &pose_b, eps, &mo), fuzz_fail("run %d (k-CBP stage %s): kcbp_collide says %d (decided by %s), all pairs say %zu contacts", run,
                      co.use_cbp ? "on" : "off", res.collide, kcbp_stage_name(res.decided_by), nwant);
        if (res.collide && res.decided_by != KCBP_STAGE_MESH)
            fuzz_fail("a collision decided by the %s stage", kcbp_stage_name(res.decided_by));
        if (co.contacts == KCBP_CONTACTS_ALL) {
            kcbp_contact got[16];
            if (res.ncontacts != nwant)
                dump_case(a, &pose_a, mbp, &pose_b, eps, &mo), fuzz_fail("run %d: %zu contacts, all pairs give %zu", run, res.ncontacts, nwant);
            if (nwant) /* res.contacts is NULL while there are none */
                memcpy(got, res.contacts, nwant * sizeof *got);
            qsort(got, nwant, sizeof *got, cmp_contact);
            if (memcmp(got, want, nwant * sizeof *got) != 0 ||
                (nwant && memcmp(got, res.contacts, nwant * sizeof *got) != 0))
                fuzz_fail("run %d: contacts differ from all pairs' (or are not sorted)", run);
        }
        if (res.cbp.tested && (!isfinite(res.cbp.distance) || (!res.cbp.separated && !isfinite(res.cbp.depth))))
            fuzz_fail("run %d: k-CBP stage gave distance %g depth %g", run, res.cbp.distance, res.cbp.depth);
    }
    kcbp_collide_result_free(&res);
    kcbp_model_free(&ma);
    if (!same_mesh)
        kcbp_model_free(&mb);
    return 0;
}
