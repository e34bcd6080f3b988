/* gen_scale: the scenes and meshes of bench/scale.sh (issue 26: scenes at
 * scale), deterministic from a seed.
 *
 *   gen_scale meshes OUTDIR BUNNY2.obj
 *       writes OUTDIR/blob.obj (bunny2 decimated to about 500 triangles by
 *       vertex clustering), OUTDIR/cad.obj (an L-bracket with two round
 *       holes and a fillet in its bend, 1,260 triangles) and OUTDIR/tet.obj
 *       (a small tetrahedron); each normalised to a largest half-extent of 1
 *       about the centre of its bounds (tet: 0.05).
 *
 *   gen_scale scene LAYOUT N SEED FRAMES OUT.json [--check]
 *       writes the scene OUT.json for kcbp and OUT.json.bin for the FCL peer
 *       and the prototypes (bench/scale_scene.h), meshes named relative to
 *       OUT.json's folder (where `meshes` wrote them). N objects; FRAMES 1 is
 *       a static scene, more adds to every object a velocity (components
 *       uniform in +-2 units/s, steps of 0.001), a spin (axis uniform on the
 *       sphere, rate uniform in 0..180 deg/s, steps of 0.1) and "motion":
 *       {"frames": FRAMES, "dt": 0.02}. Positions and rotations come from
 *       one random stream and motions from another, so a moving scene is its
 *       static scene set in motion. LAYOUT:
 *         density    copies of blob.obj uniform in [-L, L]^3 with random
 *                    rotations (uniform on SO(3)), L = 4.5 * cbrt(N / 101):
 *                    the density of the thesis's layout at n = 100 (as
 *                    `kcbp bench --layout density`), constant for every N;
 *         cad        the same with cad.obj;
 *         clustered  99% of the objects (blob.obj) in [-L', L']^3 at 4x
 *                    that density (L' = L / cbrt 4), the other 1% (at least
 *                    one) scattered over [-20 L, 20 L]^3: everything in a
 *                    small region of a wide scene;
 *         mixed      a floor (OUT's folder/floor-N.obj, a box 2L + 4 wide,
 *                    1 thick, its top at z = -L + 0.5: the parts near the
 *                    bottom rest in it), max(1, N / 1000) "car bodies"
 *                    (cad.obj at scale 8) and N - 1 - that many parts
 *                    (blob.obj), all but the floor as in density;
 *         thesis     the thesis's layout, `kcbp scene --generate thesis`'s
 *                    (eval/scene_layout.c: N copies of bunny2.obj, which
 *                    must be in OUT's folder, at integer points of
 *                    [-4, 4]^3), made by the same function;
 *         coincident N copies of tet.obj at the origin, no rotation (every
 *                    pair collides: N(N-1)/2 pairs). Static only.
 *         coincident_cad, coincident_blob  N copies of cad.obj (blob.obj)
 *                    at one pose: a random position in [-0.5, 0.5]^3 and a
 *                    random rotation, the same for all (coincident copies
 *                    turned together). Static only.
 *         overlap_cad, overlap_blob  N copies of cad.obj (blob.obj) each
 *                    shifted uniformly in [-0.25, 0.25]^3 (an eighth of its
 *                    size) and turned at random: deeply overlapping copies
 *                    (issue 33 item 4). Static only.
 *       Objects are named "o0", "o1", ... in file order. Numbers are written
 *       with few digits (positions to 1e-4, axes to 1e-5, angles to 1e-3)
 *       and the side file holds the doubles those decimals read back as,
 *       except thesis, written with 17 digits. --check (N <= kcbp's object
 *       limit) reads OUT.json back with kcbp_scene_read and compares every
 *       object's mesh, scale and pose at every frame, bit for bit, with the
 *       side file's (scale_scene.h's ss_pose), and fails on any difference.
 *
 * Random numbers: bench_rng.h (xorshift64* seeded through splitmix64). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

#include "bench_rng.h"
#include "scale_scene.h"
#include "scene_layout.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "gen_scale: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 1;
}

/* ---- meshes ------------------------------------------------------------- */

typedef struct {
    kcbp_vec3 *v;
    uint32_t nv, capv;
    kcbp_tri *t;
    uint32_t nt, capt;
} mesh_buf;

static int mb_vertex(mesh_buf *m, kcbp_vec3 p, uint32_t *id)
{
    if (m->nv == m->capv) {
        uint32_t cap = m->capv ? 2 * m->capv : 64;
        kcbp_vec3 *g = realloc(m->v, cap * sizeof *g);
        if (!g)
            return 0;
        m->v = g;
        m->capv = cap;
    }
    m->v[m->nv] = p;
    *id = m->nv++;
    return 1;
}

static int mb_tri(mesh_buf *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (m->nt == m->capt) {
        uint32_t cap = m->capt ? 2 * m->capt : 64;
        kcbp_tri *g = realloc(m->t, cap * sizeof *g);
        if (!g)
            return 0;
        m->t = g;
        m->capt = cap;
    }
    m->t[m->nt].v[0] = a;
    m->t[m->nt].v[1] = b;
    m->t[m->nt].v[2] = c;
    m->nt++;
    return 1;
}

static void mb_free(mesh_buf *m)
{
    free(m->v);
    free(m->t);
    memset(m, 0, sizeof *m);
}

/* Centres the bounds on the origin and scales the largest half-extent to h. */
static void mb_normalise(mesh_buf *m, double h)
{
    kcbp_vec3 lo = m->v[0], hi = m->v[0];
    for (uint32_t i = 1; i < m->nv; i++) {
        lo = kcbp_v3_min(lo, m->v[i]);
        hi = kcbp_v3_max(hi, m->v[i]);
    }
    kcbp_vec3 c = kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5), e = kcbp_v3_scale(kcbp_v3_sub(hi, lo), 0.5);
    double big = fmax(e.x, fmax(e.y, e.z));
    for (uint32_t i = 0; i < m->nv; i++)
        m->v[i] = kcbp_v3_scale(kcbp_v3_sub(m->v[i], c), h / big);
}

static int mb_write(const mesh_buf *m, const char *dir, const char *name, const char *what)
{
    char path[4096];
    size_t dl = strlen(dir);
    snprintf(path, sizeof path, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", name);
    FILE *f = fopen(path, "w");
    if (!f)
        return fail("%s: cannot write", path);
    fprintf(f, "# %s (bench/gen_scale.c)\n", what);
    for (uint32_t i = 0; i < m->nv; i++)
        fprintf(f, "v %.17g %.17g %.17g\n", m->v[i].x, m->v[i].y, m->v[i].z);
    for (uint32_t i = 0; i < m->nt; i++)
        fprintf(f, "f %u %u %u\n", m->t[i].v[0] + 1, m->t[i].v[1] + 1, m->t[i].v[2] + 1);
    if (fclose(f) != 0)
        return fail("%s: write failed", path);
    printf("%s: %u vertices, %u triangles\n", path, m->nv, m->nt);
    return 0;
}

/* Vertex clustering (Rossignac and Borrel 1993): the vertices falling in one
 * cell of a g^3 grid over the bounds merge into their mean; triangles whose
 * corners fall in fewer than three cells vanish, and so do repeats. */
typedef struct {
    uint64_t key;
    uint32_t id;
} keyed;

static int cmp_keyed(const void *p, const void *q)
{
    const keyed *a = p, *b = q;
    return a->key < b->key ? -1 : a->key > b->key ? 1 : (a->id > b->id) - (a->id < b->id);
}

static int cmp_tri(const void *p, const void *q)
{
    const kcbp_tri *a = p, *b = q;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k])
            return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

static int cluster(const kcbp_mesh *mesh, int g, mesh_buf *out)
{
    memset(out, 0, sizeof *out);
    struct {
        uint32_t nvertices, ntriangles;
        const kcbp_vec3 *vertices;
        const kcbp_tri *triangles;
    } in_ = {kcbp_mesh_vertex_count(mesh), kcbp_mesh_triangle_count(mesh), kcbp_mesh_vertices(mesh),
             kcbp_mesh_triangles(mesh)}, *in = &in_;
    kcbp_aabb bounds = kcbp_mesh_bounds(mesh);
    kcbp_vec3 lo = bounds.min, e = kcbp_v3_sub(bounds.max, bounds.min);
    double h = fmax(e.x, fmax(e.y, e.z)) / g;
    keyed *k = malloc(in->nvertices * sizeof *k);
    uint32_t *map = malloc(in->nvertices * sizeof *map);
    kcbp_tri *t = malloc(in->ntriangles * sizeof *t);
    double *cnt = NULL;
    int ok = k && map && t;
    for (uint32_t i = 0; ok && i < in->nvertices; i++) {
        kcbp_vec3 d = kcbp_v3_sub(in->vertices[i], lo);
        uint64_t ix = (uint64_t)fmin(d.x / h, g - 1), iy = (uint64_t)fmin(d.y / h, g - 1),
                 iz = (uint64_t)fmin(d.z / h, g - 1);
        k[i].key = (ix << 42) | (iy << 21) | iz;
        k[i].id = i;
    }
    if (ok)
        qsort(k, in->nvertices, sizeof *k, cmp_keyed);
    for (uint32_t i = 0; ok && i < in->nvertices; i++) {
        uint32_t id;
        if (i == 0 || k[i].key != k[i - 1].key)
            ok = mb_vertex(out, kcbp_v3(0, 0, 0), &id);
        map[k[i].id] = out->nv - 1;
    }
    if (ok && (cnt = calloc(out->nv, sizeof *cnt)) != NULL) {
        for (uint32_t i = 0; i < in->nvertices; i++) {
            out->v[map[i]] = kcbp_v3_add(out->v[map[i]], in->vertices[i]);
            cnt[map[i]] += 1;
        }
        for (uint32_t i = 0; i < out->nv; i++)
            out->v[i] = kcbp_v3_scale(out->v[i], 1.0 / cnt[i]);
    } else {
        ok = 0;
    }
    uint32_t nt = 0;
    for (uint32_t i = 0; ok && i < in->ntriangles; i++) {
        uint32_t a = map[in->triangles[i].v[0]], b = map[in->triangles[i].v[1]], c = map[in->triangles[i].v[2]];
        if (a == b || b == c || a == c)
            continue;
        /* The smallest index first, orientation kept. */
        while (a > b || a > c) {
            uint32_t x = a;
            a = b;
            b = c;
            c = x;
        }
        t[nt].v[0] = a;
        t[nt].v[1] = b;
        t[nt].v[2] = c;
        nt++;
    }
    if (ok)
        qsort(t, nt, sizeof *t, cmp_tri);
    for (uint32_t i = 0; ok && i < nt; i++)
        if (i == 0 || cmp_tri(&t[i], &t[i - 1]) != 0)
            ok = mb_tri(out, t[i].v[0], t[i].v[1], t[i].v[2]);
    free(k);
    free(map);
    free(t);
    free(cnt);
    if (!ok)
        mb_free(out);
    return ok;
}

/* The vertices no triangle uses are dropped (clustering keeps every cell). */
static int compact(mesh_buf *m)
{
    uint32_t *id = malloc((m->nv ? m->nv : 1) * sizeof *id);
    if (!id)
        return 0;
    for (uint32_t i = 0; i < m->nv; i++)
        id[i] = UINT32_MAX;
    for (uint32_t i = 0; i < m->nt; i++)
        for (int k = 0; k < 3; k++)
            id[m->t[i].v[k]] = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->nv; i++)
        if (id[i] != UINT32_MAX) {
            m->v[n] = m->v[i];
            id[i] = n++;
        }
    m->nv = n;
    for (uint32_t i = 0; i < m->nt; i++)
        for (int k = 0; k < 3; k++)
            m->t[i].v[k] = id[m->t[i].v[k]];
    free(id);
    return 1;
}

static int make_blob(const char *dir, const char *bunny)
{
    kcbp_mesh *in;
    kcbp_error err;
    if (kcbp_mesh_load(bunny, &in, &err) != KCBP_OK)
        return fail("%s", err.msg);
    int best = 0;
    uint32_t best_nt = 0;
    for (int g = 4; g <= 40; g++) {
        mesh_buf m;
        if (!cluster(in, g, &m)) {
            kcbp_mesh_free(in);
            return fail("%s", "out of memory");
        }
        if (!best || labs((long)m.nt - 500) < labs((long)best_nt - 500)) {
            best = g;
            best_nt = m.nt;
        }
        mb_free(&m);
    }
    mesh_buf m;
    int ok = cluster(in, best, &m) && compact(&m);
    kcbp_mesh_free(in);
    if (!ok)
        return fail("%s", "out of memory");
    mb_normalise(&m, 1.0);
    char what[256];
    snprintf(what, sizeof what, "bunny2 by vertex clustering on a %d^3 grid, half-extent 1", best);
    int rc = mb_write(&m, dir, "blob.obj", what);
    mb_free(&m);
    return rc;
}

/* A plate [0, a] x [0, b] x [0, th] (in u, v, w) with a round hole of radius
 * r about (cu, cv), as 8N triangles: the rectangle's boundary sampled at N
 * points (its corners at 0, N/4, N/2, 3N/4), the hole's at the same angles
 * about its centre, and quads between the two loops (both faces), the outer
 * wall and the hole's wall. (u, v, w) maps to the world by the columns of
 * basis (right-handed: det +1) plus origin. */
static int plate(mesh_buf *m, double a, double b, double th, double cu, double cv, double r, int n,
                 const kcbp_vec3 basis[3], kcbp_vec3 origin)
{
    uint32_t base = m->nv;
    double corner[5][2] = {{0, 0}, {a, 0}, {a, b}, {0, b}, {0, 0}};
    for (int layer = 0; layer < 2; layer++) {     /* w = 0, then w = th */
        for (int ring = 0; ring < 2; ring++) {    /* outer, then hole */
            for (int i = 0; i < n; i++) {
                int side = i / (n / 4), j = i % (n / 4);
                double f = (double)j / (n / 4);
                double u = corner[side][0] + f * (corner[side + 1][0] - corner[side][0]);
                double v = corner[side][1] + f * (corner[side + 1][1] - corner[side][1]);
                if (ring == 1) {
                    double ang = atan2(v - cv, u - cu);
                    u = cu + r * cos(ang);
                    v = cv + r * sin(ang);
                }
                double w = layer ? th : 0;
                kcbp_vec3 p = kcbp_v3_add(origin, kcbp_v3_add(kcbp_v3_scale(basis[0], u),
                                                              kcbp_v3_add(kcbp_v3_scale(basis[1], v),
                                                                          kcbp_v3_scale(basis[2], w))));
                uint32_t id;
                if (!mb_vertex(m, p, &id))
                    return 0;
            }
        }
    }
#define OUT(layer, i) (base + (uint32_t)((layer) * 2 * n + ((i) % n)))
#define HOLE(layer, i) (base + (uint32_t)((layer) * 2 * n + n + ((i) % n)))
    for (int i = 0; i < n; i++) {
        int ok = /* top (w = th, normal +w) */
            mb_tri(m, OUT(1, i), OUT(1, i + 1), HOLE(1, i + 1)) && mb_tri(m, OUT(1, i), HOLE(1, i + 1), HOLE(1, i)) &&
            /* bottom (normal -w) */
            mb_tri(m, OUT(0, i), HOLE(0, i + 1), OUT(0, i + 1)) && mb_tri(m, OUT(0, i), HOLE(0, i), HOLE(0, i + 1)) &&
            /* outer wall */
            mb_tri(m, OUT(0, i), OUT(0, i + 1), OUT(1, i + 1)) && mb_tri(m, OUT(0, i), OUT(1, i + 1), OUT(1, i)) &&
            /* the hole's wall (facing the hole's axis) */
            mb_tri(m, HOLE(0, i), HOLE(1, i + 1), HOLE(0, i + 1)) && mb_tri(m, HOLE(0, i), HOLE(1, i), HOLE(1, i + 1));
        if (!ok)
            return 0;
    }
#undef OUT
#undef HOLE
    return 1;
}

/* An L-bracket: a base plate (4 x 3 x 0.3) and an upright (0.3 thick, 4
 * high), each with a hole of radius 0.6, and a concave fillet of radius 0.5
 * in the inner corner of the bend (a closed piece of its own: the quarter
 * cylinder in M segments, two end caps, two faces on the plates). With
 * N = 76 and M = 10: 16 N + 4 M + 4 = 1,260 triangles. */
static int make_cad(const char *dir)
{
    const int n = 76, segs = 10;
    const double th = 0.3, fr = 0.5, len = 3.0;
    mesh_buf m;
    memset(&m, 0, sizeof m);
    /* Base: u = x, v = y, w = z. */
    kcbp_vec3 base_basis[3] = {kcbp_v3(1, 0, 0), kcbp_v3(0, 1, 0), kcbp_v3(0, 0, 1)};
    /* Upright: u = z, v = -y... keep right-handed: u = z, v = y, w = -x, placed at x = th. */
    kcbp_vec3 up_basis[3] = {kcbp_v3(0, 0, 1), kcbp_v3(0, 1, 0), kcbp_v3(-1, 0, 0)};
    int ok = plate(&m, 4.0, len, th, 2.3, 1.5, 0.6, n, base_basis, kcbp_v3(0, 0, 0)) &&
             plate(&m, 4.0, len, th, 2.3, 1.5, 0.6, n, up_basis, kcbp_v3(th, 0, 0));
    /* The fillet: in (x, z), the region x, z in [th, th + fr] outside the
     * circle about (th + fr, th + fr), swept along y in [0, len]. */
    uint32_t base = m.nv;
    for (int end = 0; ok && end < 2; end++) {
        double y = end ? len : 0;
        uint32_t id;
        ok = mb_vertex(&m, kcbp_v3(th, y, th), &id); /* the corner */
        for (int i = 0; ok && i <= segs; i++) {
            double ang = M_PI + 0.5 * M_PI * i / segs; /* from (th, th + fr) round to (th + fr, th) */
            ok = mb_vertex(&m, kcbp_v3(th + fr + fr * cos(ang), y, th + fr + fr * sin(ang)), &id);
        }
    }
    uint32_t per = (uint32_t)segs + 2;
#define ARC(end, i) (base + (end) * per + 1 + (uint32_t)(i))
#define CORNER(end) (base + (end) * per)
    for (int i = 0; ok && i < segs; i++)
        ok = mb_tri(&m, ARC(0, i), ARC(0, i + 1), ARC(1, i + 1)) && mb_tri(&m, ARC(0, i), ARC(1, i + 1), ARC(1, i)) &&
             mb_tri(&m, CORNER(0), ARC(0, i + 1), ARC(0, i)) && mb_tri(&m, CORNER(1), ARC(1, i), ARC(1, i + 1));
    ok = ok && /* on the upright (x = th) and on the base (z = th) */
         mb_tri(&m, CORNER(0), ARC(0, 0), ARC(1, 0)) && mb_tri(&m, CORNER(0), ARC(1, 0), CORNER(1)) &&
         mb_tri(&m, CORNER(0), CORNER(1), ARC(1, segs)) && mb_tri(&m, CORNER(0), ARC(1, segs), ARC(0, segs));
#undef ARC
#undef CORNER
    int rc = ok ? 0 : fail("%s", "out of memory");
    if (ok) {
        mb_normalise(&m, 1.0);
        rc = mb_write(&m, dir, "cad.obj",
                      "an L-bracket: two 0.3-thick plates with round holes and a filleted bend, half-extent 1");
    }
    mb_free(&m);
    return rc;
}

static int make_box(mesh_buf *m, kcbp_vec3 lo, kcbp_vec3 hi)
{
    memset(m, 0, sizeof *m);
    uint32_t id;
    for (int i = 0; i < 8; i++)
        if (!mb_vertex(m, kcbp_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z), &id))
            return 0;
    static const uint32_t q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; f++)
        if (!mb_tri(m, q[f][0], q[f][1], q[f][2]) || !mb_tri(m, q[f][0], q[f][2], q[f][3]))
            return 0;
    return 1;
}

static int make_tet(const char *dir)
{
    mesh_buf m;
    memset(&m, 0, sizeof m);
    uint32_t id;
    static const double p[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    int ok = 1;
    for (int i = 0; ok && i < 4; i++)
        ok = mb_vertex(&m, kcbp_v3(0.05 * p[i][0], 0.05 * p[i][1], 0.05 * p[i][2]), &id);
    ok = ok && mb_tri(&m, 0, 2, 1) && mb_tri(&m, 0, 1, 3) && mb_tri(&m, 0, 3, 2) && mb_tri(&m, 1, 2, 3);
    int rc = ok ? mb_write(&m, dir, "tet.obj", "a regular tetrahedron, half-extent 0.05") : fail("%s", "out of memory");
    mb_free(&m);
    return rc;
}

/* ---- scenes ------------------------------------------------------------- */

/* x written with `places` decimals into buf; returns the double that text
 * reads back as, which is what the side file stores. */
static double dec(double x, int places, char *buf, size_t len)
{
    snprintf(buf, len, "%.*f", places, x);
    if (!strcmp(buf, "-0") || (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)))
        memmove(buf, buf + 1, strlen(buf)); /* no "-0.0000" */
    return strtod(buf, NULL);
}

/* An exact double as text (17 significant digits read back exactly). */
static double exact(double x, char *buf, size_t len)
{
    snprintf(buf, len, "%.17g", x);
    return x;
}

typedef struct {
    FILE *json, *bin;
    const char *const *mesh_of; /* model index -> mesh path as written */
    const double *scale_of;
    uint32_t written;
} writer;

/* Writes object o (numbers already in text form in the strings). */
static int write_object(writer *w, const ss_object *o, char txt[14][40], int moving)
{
    FILE *f = w->json;
    fprintf(f, "%s{\"name\":\"o%u\",\"mesh\":\"%s\"", w->written ? ",\n" : "", w->written, w->mesh_of[o->model]);
    if (w->scale_of[o->model] != 1.0) {
        char s[40];
        exact(w->scale_of[o->model], s, sizeof s);
        fprintf(f, ",\"scale\":%s", s);
    }
    fprintf(f, ",\"position\":[%s,%s,%s]", txt[0], txt[1], txt[2]);
    if (o->has_rotation)
        fprintf(f, ",\"rotation\":{\"axis\":[%s,%s,%s],\"angle_deg\":%s}", txt[3], txt[4], txt[5], txt[6]);
    if (moving)
        fprintf(f, ",\"velocity\":[%s,%s,%s],\"angular_velocity\":{\"axis\":[%s,%s,%s],\"deg_per_s\":%s}", txt[7],
                txt[8], txt[9], txt[10], txt[11], txt[12], txt[13]);
    fputc('}', f);
    w->written++;
    return ss_write_object(w->bin, o) && !ferror(f);
}

/* A rotation uniform on SO(3) (Shoemake's quaternion), as axis and degrees. */
static void random_rotation(rng *r, ss_object *o, char txt[14][40])
{
    double u1 = rng_unit(r), u2 = rng_unit(r), u3 = rng_unit(r);
    double a = sqrt(1 - u1), b = sqrt(u1);
    double qx = a * sin(2 * M_PI * u2), qy = a * cos(2 * M_PI * u2), qz = b * sin(2 * M_PI * u3),
           qw = b * cos(2 * M_PI * u3);
    if (qw < 0) {
        qx = -qx;
        qy = -qy;
        qz = -qz;
        qw = -qw;
    }
    double s = sqrt(qx * qx + qy * qy + qz * qz);
    if (s < 1e-3) { /* nearly the identity: any axis */
        qx = 1;
        qy = qz = 0;
        s = 1;
    }
    o->has_rotation = 1;
    o->axis.x = dec(qx / s, 5, txt[3], 40);
    o->axis.y = dec(qy / s, 5, txt[4], 40);
    o->axis.z = dec(qz / s, 5, txt[5], 40);
    o->angle_deg = dec(2 * acos(fmin(qw, 1.0)) * 180 / M_PI, 3, txt[6], 40);
    if (o->axis.x == 0 && o->axis.y == 0 && o->axis.z == 0) {
        o->axis.x = dec(1, 5, txt[3], 40);
        o->angle_deg = dec(0, 3, txt[6], 40);
    }
}

static void random_motion(rng *r, ss_object *o, char txt[14][40])
{
    o->velocity.x = dec(rng_range(r, -2, 2), 3, txt[7], 40);
    o->velocity.y = dec(rng_range(r, -2, 2), 3, txt[8], 40);
    o->velocity.z = dec(rng_range(r, -2, 2), 3, txt[9], 40);
    kcbp_vec3 d = random_direction(r);
    o->spin_axis.x = dec(d.x, 5, txt[10], 40);
    o->spin_axis.y = dec(d.y, 5, txt[11], 40);
    o->spin_axis.z = dec(d.z, 5, txt[12], 40);
    o->spin_deg_per_s = dec(rng_range(r, 0, 180), 1, txt[13], 40);
    if (o->spin_axis.x == 0 && o->spin_axis.y == 0 && o->spin_axis.z == 0)
        o->spin_deg_per_s = dec(0, 1, txt[13], 40);
}

static void no_motion(ss_object *o, char txt[14][40])
{
    o->velocity = kcbp_v3(0, 0, 0);
    o->spin_axis = kcbp_v3(1, 0, 0);
    o->spin_deg_per_s = 0;
    for (int k = 7; k < 14; k++)
        snprintf(txt[k], 40, "%d", k == 10);
}

static void position_in(rng *r, double lo, double hi, ss_object *o, char txt[14][40])
{
    o->position.x = dec(rng_range(r, lo, hi), 4, txt[0], 40);
    o->position.y = dec(rng_range(r, lo, hi), 4, txt[1], 40);
    o->position.z = dec(rng_range(r, lo, hi), 4, txt[2], 40);
}

/* --check: kcbp's reader against the side file, every object at every frame. */
static int check_scene(const char *json, const char *bin)
{
    ss_scene ss;
    char msg[512];
    if (!ss_read(bin, &ss, msg, sizeof msg))
        return fail("%s", msg);
    if (ss.nobjects > KCBP_SCENE_MAX_OBJECTS) {
        printf("check: %u objects, beyond kcbp's limit of %u: not checked\n", ss.nobjects, KCBP_SCENE_MAX_OBJECTS);
        ss_free(&ss);
        return 0;
    }
    kcbp_scene *ks;
    kcbp_error err;
    if (kcbp_scene_read(json, &ks, &err) != KCBP_OK) {
        ss_free(&ss);
        return fail("check: %s", err.msg);
    }
    uint64_t bad = 0;
    if (kcbp_scene_object_count(ks) != ss.nobjects || kcbp_scene_frame_count(ks) != ss.frames ||
        kcbp_scene_is_moving(ks) != (ss.moving != 0) || (ss.moving && kcbp_scene_dt(ks) != ss.dt))
        bad++;
    for (uint32_t i = 0; !bad && i < ss.nobjects; i++) {
        kcbp_scene_object o = kcbp_scene_object_at(ks, i);
        const ss_model *m = &ss.models[ss.objects[i].model];
        if (strcmp(o.mesh, m->path) != 0 || o.scale != m->scale) {
            bad++;
            break;
        }
        for (uint32_t f = 0; f < ss.frames; f++) {
            kcbp_pose a = kcbp_scene_object_pose(ks, i, f), b = ss_pose(&ss, i, f);
            if (memcmp(&a, &b, sizeof a) != 0) {
                fprintf(stderr, "gen_scale: check: object %u frame %u: the poses differ\n", i, f);
                bad++;
                break;
            }
        }
    }
    printf("check: %u objects x %u frames: %s\n", ss.nobjects, ss.frames, bad ? "DIFFERENT" : "bit-identical poses");
    kcbp_scene_free(ks);
    ss_free(&ss);
    return bad ? 1 : 0;
}

static int make_scene(const char *layout, uint32_t n, uint64_t seed, uint32_t frames, const char *out, int check)
{
    char dir[4096], binpath[4200], floor_name[64];
    ss_dir_of(out, dir, sizeof dir);
    snprintf(binpath, sizeof binpath, "%s.bin", out);
    int density = !strcmp(layout, "density"), cad = !strcmp(layout, "cad"), clustered = !strcmp(layout, "clustered"),
        mixed = !strcmp(layout, "mixed"), thesis = !strcmp(layout, "thesis"), coincident = !strcmp(layout, "coincident");
    int overlap_cad = !strcmp(layout, "overlap_cad"), overlap_blob = !strcmp(layout, "overlap_blob"),
        coincident_cad = !strcmp(layout, "coincident_cad"), coincident_blob = !strcmp(layout, "coincident_blob");
    int dense = overlap_cad || overlap_blob || coincident_cad || coincident_blob;
    if (!(density || cad || clustered || mixed || thesis || coincident || dense))
        return fail("unknown layout '%s' (density, cad, clustered, mixed, thesis, coincident, coincident_cad, "
                    "coincident_blob, overlap_cad, overlap_blob)",
                    layout);
    if ((coincident || dense) && frames > 1)
        return fail("the %s layout is static (FRAMES 1)", layout);
    int moving = frames > 1;
    const double dt = 0.02;
    double L = 4.5 * cbrt((double)n / 101.0);

    /* Models. */
    const char *mesh_of[3];
    double scale_of[3] = {1, 1, 1};
    uint32_t nmodels = 1;
    kcbp_scene *th = NULL;
    if (density || clustered || overlap_blob || coincident_blob)
        mesh_of[0] = "blob.obj";
    else if (cad || overlap_cad || coincident_cad)
        mesh_of[0] = "cad.obj";
    else if (coincident)
        mesh_of[0] = "tet.obj";
    else if (mixed) {
        snprintf(floor_name, sizeof floor_name, "floor-%u.obj", n);
        mesh_of[0] = floor_name;
        mesh_of[1] = "cad.obj";
        scale_of[1] = 8;
        mesh_of[2] = "blob.obj";
        nmodels = 3;
        mesh_buf fl;
        if (!make_box(&fl, kcbp_v3(-L - 2, -L - 2, -L - 0.5), kcbp_v3(L + 2, L + 2, -L + 0.5)))
            return fail("%s", "out of memory");
        char what[128];
        snprintf(what, sizeof what, "the floor of mixed-%u: a box", n);
        int rc = mb_write(&fl, dir[0] ? dir : ".", floor_name, what);
        mb_free(&fl);
        if (rc)
            return rc;
    } else { /* thesis */
        char bunny[4200];
        snprintf(bunny, sizeof bunny, "%sbunny2.obj", dir);
        kcbp_mesh *mesh;
        kcbp_error err;
        if (kcbp_mesh_load(bunny, &mesh, &err) != KCBP_OK)
            return fail("%s", err.msg);
        kcbp_aabb bounds = kcbp_mesh_bounds(mesh);
        kcbp_mesh_free(mesh);
        if (n < 1 || kcbp_scene_thesis(&th, "bunny2.obj", bounds, n - 1, seed, &err) != KCBP_OK)
            return fail("thesis: %s", n < 1 ? "N >= 1" : err.msg);
        mesh_of[0] = "bunny2.obj";
        scale_of[0] = kcbp_scene_object_at(th, 0).scale;
    }

    FILE *json = fopen(out, "w"), *bin = fopen(binpath, "wb");
    if (!json || !bin) {
        if (json)
            fclose(json);
        if (bin)
            fclose(bin);
        kcbp_scene_free(th);
        return fail("%s: cannot write", out);
    }
    ss_model models[3];
    for (uint32_t m = 0; m < nmodels; m++) {
        models[m].path = (char *)mesh_of[m];
        models[m].scale = scale_of[m];
    }
    ss_scene head = {nmodels, n, frames, (uint32_t)moving, moving ? dt : 0, models, NULL};
    int ok = ss_write_head(bin, &head);
    writer w = {json, bin, mesh_of, scale_of, 0};
    fprintf(json, "{\"extras\":{\"generator\":\"bench/gen_scale %s %u %llu %u\"},\n\"objects\":[\n", layout, n,
            (unsigned long long)seed, frames);
    rng place = rng_seed(seed), motion = rng_seed(seed ^ UINT64_C(0x5EED5EED5EED5EED));
    uint32_t cars = mixed ? (n / 1000 > 1 ? n / 1000 : 1) : 0;
    uint32_t outliers = clustered ? (n / 100 > 1 ? n / 100 : 1) : 0;
    double Lc = L / cbrt(4.0);
    ss_object first;
    char first_txt[14][40];
    memset(&first, 0, sizeof first);
    memset(first_txt, 0, sizeof first_txt);
    for (uint32_t i = 0; ok && i < n; i++) {
        ss_object o;
        char txt[14][40];
        memset(&o, 0, sizeof o);
        o.model = 0;
        if (thesis) {
            kcbp_scene_object t_ = kcbp_scene_object_at(th, i), *t = &t_;
            o.position.x = exact(t->position.x, txt[0], 40);
            o.position.y = exact(t->position.y, txt[1], 40);
            o.position.z = exact(t->position.z, txt[2], 40);
            o.has_rotation = 1;
            o.axis.x = exact(t->axis.x, txt[3], 40);
            o.axis.y = exact(t->axis.y, txt[4], 40);
            o.axis.z = exact(t->axis.z, txt[5], 40);
            o.angle_deg = exact(t->angle_deg, txt[6], 40);
            ok = t->scale == scale_of[0];
        } else if (coincident) {
            for (int k = 0; k < 3; k++)
                snprintf(txt[k], 40, "0");
            o.position = kcbp_v3(0, 0, 0);
        } else if (coincident_cad || coincident_blob) { /* one pose for all: the first object's */
            if (i == 0) {
                position_in(&place, -0.5, 0.5, &o, txt);
                random_rotation(&place, &o, txt);
                first = o;
                memcpy(first_txt, txt, sizeof first_txt);
            } else {
                o = first;
                memcpy(txt, first_txt, sizeof first_txt);
            }
        } else if (overlap_cad || overlap_blob) { /* shifted by up to 1/4 of the half-extent, turned */
            position_in(&place, -0.25, 0.25, &o, txt);
            random_rotation(&place, &o, txt);
        } else if (mixed && i == 0) { /* the floor, at the origin, never moving */
            for (int k = 0; k < 3; k++)
                snprintf(txt[k], 40, "0");
            o.position = kcbp_v3(0, 0, 0);
        } else {
            double half = L;
            if (clustered)
                half = i < outliers ? 20 * L : Lc;
            position_in(&place, -half, half, &o, txt);
            random_rotation(&place, &o, txt);
            if (mixed)
                o.model = i <= cars ? 1 : 2;
        }
        if (moving && !(mixed && i == 0))
            random_motion(&motion, &o, txt);
        else
            no_motion(&o, txt);
        ok = ok && ss_object_finish(&o) && write_object(&w, &o, txt, moving);
    }
    fprintf(json, "\n]");
    if (moving)
        fprintf(json, ",\n\"motion\":{\"frames\":%u,\"dt\":0.02}", frames);
    fprintf(json, "}\n");
    ok = ok && !ferror(json);
    ok = (fclose(json) == 0) & ok;
    ok = (fclose(bin) == 0) & ok;
    kcbp_scene_free(th);
    if (!ok)
        return fail("%s: write failed", out);
    printf("%s: %s, %u objects, %u frame%s, %u model%s\n", out, layout, n, frames, frames == 1 ? "" : "s", nmodels,
           nmodels == 1 ? "" : "s");
    return check ? check_scene(out, binpath) : 0;
}

static int parse_u(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return !errno && *s && !*end && *v >= lo && *v <= hi;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "meshes"))
        return make_blob(argv[2], argv[3]) || make_cad(argv[2]) || make_tet(argv[2]);
    unsigned long long n, seed, frames;
    if ((argc == 7 || argc == 8) && !strcmp(argv[1], "scene") && parse_u(argv[3], 1, SS_MAX_OBJECTS, &n) &&
        parse_u(argv[4], 0, UINT64_MAX, &seed) && parse_u(argv[5], 1, KCBP_SCENE_MAX_FRAMES, &frames) &&
        (argc == 7 || !strcmp(argv[7], "--check")))
        return make_scene(argv[2], (uint32_t)n, seed, (uint32_t)frames, argv[6], argc == 8);
    fprintf(stderr, "usage: gen_scale meshes OUTDIR BUNNY2.obj\n"
                    "       gen_scale scene density|cad|clustered|mixed|thesis|coincident|coincident_cad|coincident_blob|"
                    "overlap_cad|overlap_blob N SEED FRAMES OUT.json "
                    "[--check]\n");
    return 2;
}
