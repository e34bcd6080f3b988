/* gen_cad: the CAD benchmark set of issue 25 (bench/cad.sh), generated
 * deterministically, written as binary STL (float32 coordinates, as CAD
 * exporters write them), plus two flat star polygons as OBJ (one `f` line).
 * No dependency on kcbp: the parts are made here from their CAD description,
 * tessellated the way CAD exporters tessellate (ABC dataset STL exports):
 *
 *  - surfaces of revolution: one ring of vertices per profile point, each
 *    profile segment a strip of 2 triangles per sector running its whole
 *    length (long slivers on long cylinders), a profile point on the axis an
 *    apex fan (cone tips, disc centres);
 *  - planar faces: as few triangles as their boundary allows: a convex face
 *    fanned from one boundary vertex, a face with holes or concave corners
 *    ear-clipped after bridging the holes to the border (the slivers that
 *    link holes to the border, fans from a corner to a fillet's points);
 *  - fillets: quarter-cylinder strips of 2 triangles per arc step over the
 *    whole edge length, spherical corner patches beside flat faces of 2
 *    triangles each.
 *
 * Every part is closed and consistently oriented (outward), except the
 * valve and its seat, which are open conical fans as the issue describes
 * (a countersink and a valve face, each N slivers from one apex). The
 * program checks each closed part (every edge used twice, in opposite
 * directions, positive volume) and each triangulated face (the triangles
 * cover the face's area exactly once) and fails otherwise.
 *
 * Usage: gen_cad OUTDIR          writes every file below into OUTDIR
 *        gen_cad --list           prints the file names and triangle counts */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
    double x, y, z;
} v3;

static v3 V(double x, double y, double z)
{
    v3 r = {x, y, z};
    return r;
}
static v3 add(v3 a, v3 b) { return V(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3 sub(v3 a, v3 b) { return V(a.x - b.x, a.y - b.y, a.z - b.z); }
static v3 scale(v3 a, double s) { return V(a.x * s, a.y * s, a.z * s); }
static double dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 cross(v3 a, v3 b) { return V(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
static v3 unit(v3 a) { return scale(a, 1.0 / sqrt(dot(a, a))); }

static void die(const char *msg, const char *what)
{
    fprintf(stderr, "gen_cad: %s%s%s\n", msg, what ? ": " : "", what ? what : "");
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die("out of memory", NULL);
    return q;
}

/* ---- indexed mesh; vertices welded by their exact float32 coordinates,
 * as an STL reader welds them ---- */

typedef struct {
    v3 *v;
    size_t nv, cv;
    uint32_t (*t)[3];
    size_t nt, ct;
    uint32_t *hash; /* open addressing over v, hcap slots, UINT32_MAX empty */
    size_t hcap;
} mesh;

/* x rounded to float. Through a volatile: gcc 12 -O2 drops the rounding of
 * (double)(float) when its SLP vectorizer pairs two of them (the pair of
 * conversions folded away; clang and gcc -fno-tree-slp-vectorize round). */
static double f32(double x)
{
    volatile float f = (float)x;
    return f;
}

static v3 to_float(v3 p) { return V(f32(p.x), f32(p.y), f32(p.z)); }

static uint64_t hash_v(v3 p)
{
    float f[3] = {(float)p.x, (float)p.y, (float)p.z};
    uint32_t u[3];
    memcpy(u, f, sizeof u);
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < 3; i++) {
        if (u[i] == 0x80000000u) /* -0 welds with +0 */
            u[i] = 0;
        h = (h ^ u[i]) * 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static void rehash(mesh *m)
{
    m->hcap = m->hcap ? 2 * m->hcap : 1024;
    m->hash = xrealloc(m->hash, m->hcap * sizeof *m->hash);
    for (size_t i = 0; i < m->hcap; i++)
        m->hash[i] = UINT32_MAX;
    for (size_t i = 0; i < m->nv; i++) {
        size_t s = hash_v(m->v[i]) & (m->hcap - 1);
        while (m->hash[s] != UINT32_MAX)
            s = (s + 1) & (m->hcap - 1);
        m->hash[s] = (uint32_t)i;
    }
}

/* The vertex at p (rounded to float), added when new. */
static uint32_t vtx(mesh *m, v3 p)
{
    p = to_float(p);
    if (2 * (m->nv + 1) > m->hcap)
        rehash(m);
    size_t s = hash_v(p) & (m->hcap - 1);
    while (m->hash[s] != UINT32_MAX) {
        v3 q = m->v[m->hash[s]];
        if (q.x == p.x && q.y == p.y && q.z == p.z)
            return m->hash[s];
        s = (s + 1) & (m->hcap - 1);
    }
    if (m->nv == m->cv) {
        m->cv = m->cv ? 2 * m->cv : 1024;
        m->v = xrealloc(m->v, m->cv * sizeof *m->v);
    }
    m->v[m->nv] = p;
    m->hash[s] = (uint32_t)m->nv;
    return (uint32_t)m->nv++;
}

static void tri(mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    if (a == b || b == c || a == c)
        die("a triangle has a repeated vertex", NULL);
    if (m->nt == m->ct) {
        m->ct = m->ct ? 2 * m->ct : 1024;
        m->t = xrealloc(m->t, m->ct * sizeof *m->t);
    }
    m->t[m->nt][0] = a;
    m->t[m->nt][1] = b;
    m->t[m->nt][2] = c;
    m->nt++;
}

static void mesh_free(mesh *m)
{
    free(m->v);
    free(m->t);
    free(m->hash);
    memset(m, 0, sizeof *m);
}

static double signed_volume(const mesh *m)
{
    double vol = 0;
    for (size_t i = 0; i < m->nt; i++)
        vol += dot(m->v[m->t[i][0]], cross(m->v[m->t[i][1]], m->v[m->t[i][2]]));
    return vol / 6;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Closed and consistently oriented: every directed edge once, and its
 * reverse once. Then outward: positive volume. */
static void check_closed(const mesh *m, const char *name)
{
    uint64_t *e = xrealloc(NULL, 3 * m->nt * sizeof *e);
    for (size_t i = 0; i < m->nt; i++)
        for (int k = 0; k < 3; k++)
            e[3 * i + k] = (uint64_t)m->t[i][k] << 32 | m->t[i][(k + 1) % 3];
    qsort(e, 3 * m->nt, sizeof *e, cmp_u64);
    for (size_t i = 0; i < 3 * m->nt; i++) {
        if (i + 1 < 3 * m->nt && e[i] == e[i + 1])
            die("a directed edge is used twice (not consistently oriented)", name);
        uint64_t rev = e[i] << 32 | e[i] >> 32;
        if (!bsearch(&rev, e, 3 * m->nt, sizeof *e, cmp_u64))
            die("an edge has no twin (not closed)", name);
    }
    free(e);
    if (!(signed_volume(m) > 0))
        die("the volume is not positive (inward orientation)", name);
}

/* Binary STL: 80-byte header (not starting with "solid"), count, then per
 * triangle the float normal, three float vertices and a zero attribute. */
static void write_stl(const mesh *m, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tmp", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die(strerror(errno), path);
    char header[80];
    memset(header, 0, sizeof header);
    snprintf(header, sizeof header, "gen_cad %s (kcbp bench, issue 25)", name);
    uint32_t n = (uint32_t)m->nt;
    int ok = fwrite(header, 1, 80, f) == 80 && fwrite(&n, 4, 1, f) == 1;
    for (size_t i = 0; i < m->nt && ok; i++) {
        v3 a = m->v[m->t[i][0]], b = m->v[m->t[i][1]], c = m->v[m->t[i][2]];
        v3 nrm = cross(sub(b, a), sub(c, a));
        double l = sqrt(dot(nrm, nrm));
        if (l > 0)
            nrm = scale(nrm, 1 / l);
        float rec[12] = {(float)nrm.x, (float)nrm.y, (float)nrm.z, (float)a.x, (float)a.y, (float)a.z,
                         (float)b.x,   (float)b.y,   (float)b.z,   (float)c.x, (float)c.y, (float)c.z};
        uint16_t attr = 0;
        ok = fwrite(rec, 4, 12, f) == 12 && fwrite(&attr, 2, 1, f) == 1;
    }
    if (fclose(f) != 0 || !ok)
        die("cannot write", path);
    char final[4096];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    if (rename(path, final) != 0)
        die(strerror(errno), final);
}

/* ---- planar polygons: ear clipping, holes bridged to the border ---- */

typedef struct {
    double x, y;
} v2;

static double orient2(v2 a, v2 b, v2 c) { return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x); }

static double ring_area(const v2 *p, const int *ring, int n)
{
    double a = 0;
    for (int i = 0; i < n; i++) {
        v2 u = p[ring[i]], w = p[ring[(i + 1) % n]];
        a += u.x * w.y - u.y * w.x;
    }
    return a / 2;
}

/* Proper crossing of segments ab and cd (touching at an end point is not). */
static int crosses(v2 a, v2 b, v2 c, v2 d)
{
    double o1 = orient2(a, b, c), o2 = orient2(a, b, d), o3 = orient2(c, d, a), o4 = orient2(c, d, b);
    return ((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0));
}

/* Whether direction d from vertex b lies strictly inside the interior wedge
 * of the CCW ring at b (a before, c after). */
static int in_wedge(v2 a, v2 b, v2 c, v2 d)
{
    v2 t = {b.x + d.x, b.y + d.y};
    if (orient2(a, b, c) >= 0) /* convex corner: left of both edges */
        return orient2(a, b, t) > 0 && orient2(b, c, t) > 0;
    return orient2(a, b, t) > 0 || orient2(b, c, t) > 0;
}

typedef struct {
    int *id; /* point index of each ring slot (bridge points appear twice) */
    int n, cap;
} ring;

static void ring_push(ring *r, int id)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->id = xrealloc(r->id, (size_t)r->cap * sizeof *r->id);
    }
    r->id[r->n++] = id;
}

/* Merges the CW hole into the CCW ring through a bridge from the hole's
 * rightmost point to the nearest ring point it sees (no crossing of the
 * ring, of the other holes, inside both wedges). */
static void bridge_hole(ring *r, const v2 *p, const int *hole, int hn, int *const *others, const int *other_n,
                        int nothers)
{
    int hm = 0;
    for (int i = 1; i < hn; i++)
        if (p[hole[i]].x > p[hole[hm]].x)
            hm = i;
    v2 m = p[hole[hm]];
    int best = -1;
    double best_d = INFINITY;
    for (int i = 0; i < r->n; i++) {
        v2 q = p[r->id[i]];
        double d = (q.x - m.x) * (q.x - m.x) + (q.y - m.y) * (q.y - m.y);
        if (d >= best_d || d == 0)
            continue;
        v2 qa = p[r->id[(i + r->n - 1) % r->n]], qc = p[r->id[(i + 1) % r->n]];
        if (!in_wedge(qa, q, qc, (v2){m.x - q.x, m.y - q.y}))
            continue;
        v2 ha = p[hole[(hm + hn - 1) % hn]], hc = p[hole[(hm + 1) % hn]];
        if (!in_wedge(ha, m, hc, (v2){q.x - m.x, q.y - m.y}))
            continue;
        int ok = 1;
        for (int j = 0; j < r->n && ok; j++)
            ok = !crosses(m, q, p[r->id[j]], p[r->id[(j + 1) % r->n]]);
        for (int j = 0; j < hn && ok; j++)
            ok = !crosses(m, q, p[hole[j]], p[hole[(j + 1) % hn]]);
        for (int o = 0; o < nothers && ok; o++)
            for (int j = 0; j < other_n[o] && ok; j++)
                ok = !crosses(m, q, p[others[o][j]], p[others[o][(j + 1) % other_n[o]]]);
        if (ok) {
            best = i;
            best_d = d;
        }
    }
    if (best < 0)
        die("no bridge found for a hole", NULL);
    /* ..., q, m, hole from m around, m, q, ... */
    ring out = {0};
    for (int i = 0; i <= best; i++)
        ring_push(&out, r->id[i]);
    for (int k = 0; k <= hn; k++)
        ring_push(&out, hole[(hm + k) % hn]);
    ring_push(&out, r->id[best]);
    for (int i = best + 1; i < r->n; i++)
        ring_push(&out, r->id[i]);
    free(r->id);
    *r = out;
}

/* Ear clipping of a CCW ring (possibly with bridge duplicates). Appends
 * triangles (point ids, CCW) to *tris. An ear is a strictly convex corner
 * whose closed triangle holds no other non-convex ring point (by id). */
static void ear_clip(const v2 *p, const ring *r, int **tris, int *ntris)
{
    int n = r->n;
    if (n < 3)
        die("a face with fewer than 3 corners", NULL);
    int *prev = xrealloc(NULL, (size_t)n * sizeof *prev), *next = xrealloc(NULL, (size_t)n * sizeof *next);
    char *reflex = xrealloc(NULL, (size_t)n), *alive = xrealloc(NULL, (size_t)n);
    int *rl = xrealloc(NULL, (size_t)n * sizeof *rl), nrl = 0;
    for (int i = 0; i < n; i++) {
        prev[i] = (i + n - 1) % n;
        next[i] = (i + 1) % n;
        alive[i] = 1;
    }
    for (int i = 0; i < n; i++) {
        reflex[i] = orient2(p[r->id[prev[i]]], p[r->id[i]], p[r->id[next[i]]]) <= 0;
        if (reflex[i])
            rl[nrl++] = i;
    }
    *tris = xrealloc(*tris, (size_t)(*ntris + n) * 3 * sizeof **tris);
    int left = n, cur = 0, since = 0;
    while (left > 3) {
        int a = prev[cur], c = next[cur];
        int ia = r->id[a], ib = r->id[cur], ic = r->id[c];
        v2 pa = p[ia], pb = p[ib], pc = p[ic];
        int ear = !reflex[cur];
        if (ear) {
            double x0 = fmin(pa.x, fmin(pb.x, pc.x)), x1 = fmax(pa.x, fmax(pb.x, pc.x));
            double y0 = fmin(pa.y, fmin(pb.y, pc.y)), y1 = fmax(pa.y, fmax(pb.y, pc.y));
            for (int k = 0; k < nrl && ear; k++) {
                int s = rl[k];
                if (!alive[s] || !reflex[s]) { /* stale: drop it */
                    rl[k--] = rl[--nrl];
                    continue;
                }
                int id = r->id[s];
                if (id == ia || id == ib || id == ic)
                    continue;
                v2 q = p[id];
                if (q.x < x0 || q.x > x1 || q.y < y0 || q.y > y1)
                    continue;
                if (orient2(pa, pb, q) >= 0 && orient2(pb, pc, q) >= 0 && orient2(pc, pa, q) >= 0)
                    ear = 0;
            }
        }
        if (ear) {
            int *t = *tris + 3 * *ntris;
            t[0] = ia, t[1] = ib, t[2] = ic;
            (*ntris)++;
            alive[cur] = 0;
            next[a] = c;
            prev[c] = a;
            left--;
            /* clipping only narrows the neighbours' corners: a convex
             * corner stays convex, so the reflex list only shrinks */
            if (!reflex[a] && orient2(p[r->id[prev[a]]], pa, pc) <= 0)
                die("ear clipping made a convex corner reflex", NULL);
            if (!reflex[c] && orient2(pa, pc, p[r->id[next[c]]]) <= 0)
                die("ear clipping made a convex corner reflex", NULL);
            reflex[a] = orient2(p[r->id[prev[a]]], pa, pc) <= 0;
            reflex[c] = orient2(pa, pc, p[r->id[next[c]]]) <= 0;
            cur = a;
            since = 0;
        } else {
            cur = c;
            if (++since > left)
                die("ear clipping found no ear", NULL);
        }
    }
    int *t = *tris + 3 * *ntris;
    t[0] = r->id[prev[cur]], t[1] = r->id[cur], t[2] = r->id[next[cur]];
    if (orient2(p[t[0]], p[t[1]], p[t[2]]) <= 0)
        die("ear clipping ended on a flat triangle", NULL);
    (*ntris)++;
    free(prev);
    free(next);
    free(reflex);
    free(alive);
    free(rl);
}

/* A planar face: the outer ring (CCW) and holes (CW), point ids into p.
 * Returns its triangulation (CCW), checked: every triangle positive, their
 * areas summing to the face's. */
static int *triangulate_face(const v2 *p, const int *outer, int on, int *const *holes, const int *hn, int nholes,
                             int *ntris)
{
    ring r = {0};
    for (int i = 0; i < on; i++)
        ring_push(&r, outer[i]);
    double area = ring_area(p, outer, on);
    if (!(area > 0))
        die("outer ring not counter-clockwise", NULL);
    /* holes by rightmost x, descending (each bridge then sees the border or
     * a hole already merged) */
    int *order = xrealloc(NULL, (size_t)(nholes ? nholes : 1) * sizeof *order);
    double *hx = xrealloc(NULL, (size_t)(nholes ? nholes : 1) * sizeof *hx);
    for (int h = 0; h < nholes; h++) {
        if (!(ring_area(p, holes[h], hn[h]) < 0))
            die("hole not clockwise", NULL);
        area += ring_area(p, holes[h], hn[h]);
        order[h] = h;
        hx[h] = -INFINITY;
        for (int i = 0; i < hn[h]; i++)
            hx[h] = fmax(hx[h], p[holes[h][i]].x);
    }
    for (int i = 1; i < nholes; i++)
        for (int j = i; j > 0 && hx[order[j]] > hx[order[j - 1]]; j--) {
            int s = order[j];
            order[j] = order[j - 1];
            order[j - 1] = s;
        }
    for (int k = 0; k < nholes; k++) {
        int h = order[k];
        int *rest[64], rest_n[64], nrest = 0;
        for (int j = k + 1; j < nholes && nrest < 64; j++) {
            rest[nrest] = holes[order[j]];
            rest_n[nrest++] = hn[order[j]];
        }
        bridge_hole(&r, p, holes[h], hn[h], rest, rest_n, nrest);
    }
    int *tris = NULL;
    *ntris = 0;
    ear_clip(p, &r, &tris, ntris);
    double sum = 0;
    for (int i = 0; i < *ntris; i++) {
        double a = orient2(p[tris[3 * i]], p[tris[3 * i + 1]], p[tris[3 * i + 2]]) / 2;
        if (!(a > 0))
            die("a face triangle is not counter-clockwise", NULL);
        sum += a;
    }
    if (fabs(sum - area) > 1e-9 * area)
        die("the face's triangles do not cover it exactly once", NULL);
    free(r.id);
    free(order);
    free(hx);
    return tris;
}

/* Extrudes a planar region (outer CCW ring, CW holes, points p) from z0 to
 * z1: each boundary edge a wall of 2 triangles, both caps the same
 * triangulation of the face. */
static void extrude(mesh *m, const v2 *p_in, int np, const int *outer, int on, int *const *holes, const int *hn,
                    int nholes, double z0, double z1)
{
    /* The face is triangulated on the float coordinates the file will
     * hold: a sliver valid in double can fold over its neighbour once its
     * vertices are rounded (on the heat sink's end faces it did). */
    v2 *p = xrealloc(NULL, (size_t)np * sizeof *p);
    for (int i = 0; i < np; i++)
        p[i] = (v2){f32(p_in[i].x), f32(p_in[i].y)};
    uint32_t *lo = xrealloc(NULL, (size_t)np * sizeof *lo), *hi = xrealloc(NULL, (size_t)np * sizeof *hi);
    for (int i = 0; i < np; i++) {
        lo[i] = vtx(m, V(p[i].x, p[i].y, z0));
        hi[i] = vtx(m, V(p[i].x, p[i].y, z1));
    }
    for (int h = -1; h < nholes; h++) {
        const int *rg = h < 0 ? outer : holes[h];
        int n = h < 0 ? on : hn[h];
        for (int i = 0; i < n; i++) {
            int a = rg[i], b = rg[(i + 1) % n];
            tri(m, lo[a], lo[b], hi[b]);
            tri(m, lo[a], hi[b], hi[a]);
        }
    }
    int nt;
    int *t = triangulate_face(p, outer, on, holes, hn, nholes, &nt);
    for (int i = 0; i < nt; i++) {
        tri(m, hi[t[3 * i]], hi[t[3 * i + 1]], hi[t[3 * i + 2]]);
        tri(m, lo[t[3 * i]], lo[t[3 * i + 2]], lo[t[3 * i + 1]]);
    }
    free(t);
    free(lo);
    free(hi);
    free(p);
}

/* ---- surfaces of revolution about z ---- */

/* Revolves the profile (r, z) pts[0..np-1] through nseg sectors starting at
 * angle phase. A point with r == 0 is on the axis: one apex vertex, and
 * its segments become fans. The profile runs bottom to top with the solid
 * on its left (r grows to the right), so that normals point outward; an
 * open profile gives an open surface. */
static void revolve(mesh *m, const double (*pts)[2], int np, int nseg, double phase)
{
    uint32_t *ring_v = xrealloc(NULL, (size_t)np * (size_t)nseg * sizeof *ring_v);
    for (int i = 0; i < np; i++)
        for (int j = 0; j < nseg; j++) {
            double a = phase + 2 * M_PI * j / nseg;
            double r = pts[i][0];
            ring_v[(size_t)i * nseg + j] = vtx(m, r == 0 ? V(0, 0, pts[i][1]) : V(r * cos(a), r * sin(a), pts[i][1]));
        }
    for (int i = 0; i + 1 < np; i++)
        for (int j = 0; j < nseg; j++) {
            int j1 = (j + 1) % nseg;
            uint32_t a0 = ring_v[(size_t)i * nseg + j], a1 = ring_v[(size_t)i * nseg + j1];
            uint32_t b0 = ring_v[(size_t)(i + 1) * nseg + j], b1 = ring_v[(size_t)(i + 1) * nseg + j1];
            if (a0 != a1) /* (a0, a1, b1) unless a is the apex */
                tri(m, a0, a1, b1);
            if (b0 != b1) /* (a0, b1, b0) unless b is the apex */
                tri(m, a0, b1, b0);
        }
    free(ring_v);
}

/* ---- the parts ---- */

/* Cone (a countersunk head, 90 degrees): apex fan below, centre fan on top. */
static void make_cone(mesh *m, int nseg)
{
    const double prof[][2] = {{0, 0}, {1, 1}, {0, 1}};
    revolve(m, prof, 3, nseg, 0);
}

/* Disc: two centre fans and a thin rim. */
static void make_disc(mesh *m, int nseg)
{
    const double prof[][2] = {{0, 0}, {1, 0}, {1, 0.04}, {0, 0.04}};
    revolve(m, prof, 4, nseg, 0);
}

/* Capped cylinder, length 8, radius 1: one strip of 2 slivers per sector,
 * each cap fanned from one rim vertex (a convex face as exporters fan it). */
static void make_cylinder(mesh *m, int nseg)
{
    uint32_t *lo = xrealloc(NULL, (size_t)nseg * sizeof *lo), *hi = xrealloc(NULL, (size_t)nseg * sizeof *hi);
    for (int j = 0; j < nseg; j++) {
        double a = 2 * M_PI * j / nseg;
        lo[j] = vtx(m, V(cos(a), sin(a), -4));
        hi[j] = vtx(m, V(cos(a), sin(a), 4));
    }
    for (int j = 0; j < nseg; j++) {
        int k = (j + 1) % nseg;
        tri(m, lo[j], lo[k], hi[k]);
        tri(m, lo[j], hi[k], hi[j]);
    }
    for (int j = 1; j + 1 < nseg; j++) {
        tri(m, hi[0], hi[j], hi[j + 1]);
        tri(m, lo[0], lo[j + 1], lo[j]);
    }
    free(lo);
    free(hi);
}

/* Thin plate 100 x 60 x 3 with six round holes of 24-64 sectors: two faces
 * of a few hundred slivers fanning from the holes to the four corners. */
static void make_plate(mesh *m)
{
    const struct {
        double x, y, r;
        int n;
    } hole[] = {{12, 12, 5, 48}, {88, 12, 5, 48}, {12, 48, 5, 48}, {88, 48, 5, 48}, {50, 30, 14, 96}, {30, 30, 3, 24}};
    enum { NH = sizeof hole / sizeof hole[0] };
    int np = 4;
    for (int h = 0; h < NH; h++)
        np += hole[h].n;
    v2 *p = xrealloc(NULL, (size_t)np * sizeof *p);
    int outer[4] = {0, 1, 2, 3};
    p[0] = (v2){0, 0}, p[1] = (v2){100, 0}, p[2] = (v2){100, 60}, p[3] = (v2){0, 60};
    int *holes[NH], hn[NH], k = 4;
    for (int h = 0; h < NH; h++) {
        holes[h] = xrealloc(NULL, (size_t)hole[h].n * sizeof **holes);
        hn[h] = hole[h].n;
        for (int i = 0; i < hole[h].n; i++) { /* clockwise */
            double a = -2 * M_PI * i / hole[h].n + 0.3 * h;
            p[k] = (v2){hole[h].x + hole[h].r * cos(a), hole[h].y + hole[h].r * sin(a)};
            holes[h][i] = k++;
        }
    }
    extrude(m, p, np, outer, 4, holes, hn, NH, 0, 3);
    for (int h = 0; h < NH; h++)
        free(holes[h]);
    free(p);
}

/* A point on the quarter arc of radius r about c from axis direction e1
 * (k = 0) to e2 (k = m), with e1 before e2 in x, y, z order so that every
 * caller computes the same doubles; the ends are exact. */
static v3 arc_dir(v3 e1, v3 e2, int k, int m)
{
    if (k == 0)
        return e1;
    if (k == m)
        return e2;
    double a = 0.5 * M_PI * k / m;
    return add(scale(e1, cos(a)), scale(e2, sin(a)));
}

/* Filleted block 2X x 2Y x 2Z, every edge rounded with radius r in m arc
 * steps: six flat faces of 2 triangles each, twelve fillet strips of 2m
 * slivers running the edge's length, eight spherical corners of m^2
 * triangles. Convex: each triangle is oriented away from the centre. */
static void make_block(mesh *m, double X, double Y, double Z, double r, int steps)
{
    double half[3] = {X - r, Y - r, Z - r};
    v3 axis[3] = {V(1, 0, 0), V(0, 1, 0), V(0, 0, 1)};
    /* centre of the corner (sx, sy, sz) and its three outward axes */
#define CORNER(sx, sy, sz) V((sx) * half[0], (sy) * half[1], (sz) * half[2])
#define OTRI(a, b, c)                                                                                                  \
    do {                                                                                                               \
        v3 pa_ = m->v[a], pb_ = m->v[b], pc_ = m->v[c];                                                                \
        v3 n_ = cross(sub(pb_, pa_), sub(pc_, pa_));                                                                   \
        if (dot(n_, add(add(pa_, pb_), pc_)) >= 0)                                                                     \
            tri(m, a, b, c);                                                                                           \
        else                                                                                                           \
            tri(m, a, c, b);                                                                                           \
    } while (0)
    for (int s = 0; s < 8; s++) {
        double sg[3] = {s & 1 ? 1 : -1, s & 2 ? 1 : -1, s & 4 ? 1 : -1};
        v3 c = CORNER(sg[0], sg[1], sg[2]);
        v3 e[3] = {scale(axis[0], sg[0]), scale(axis[1], sg[1]), scale(axis[2], sg[2])};
        /* rows from the z pole: row i has i + 1 points; row ends on the
         * x-z and y-z arcs, row m on the x-y arc */
        uint32_t *id = xrealloc(NULL, (size_t)(steps + 1) * (steps + 2) / 2 * sizeof *id);
        for (int i = 0; i <= steps; i++)
            for (int j = 0; j <= i; j++) {
                v3 d;
                if (i == steps)
                    d = arc_dir(e[0], e[1], j, steps);
                else if (j == 0)
                    d = arc_dir(e[0], e[2], steps - i, steps);
                else if (j == i)
                    d = arc_dir(e[1], e[2], steps - i, steps);
                else {
                    v3 u = arc_dir(e[0], e[2], steps - i, steps), w = arc_dir(e[1], e[2], steps - i, steps);
                    double t = (double)j / i;
                    d = unit(add(scale(u, 1 - t), scale(w, t)));
                }
                id[i * (i + 1) / 2 + j] = vtx(m, add(c, scale(d, r)));
            }
        for (int i = 0; i < steps; i++)
            for (int j = 0; j <= i; j++) {
                uint32_t a = id[i * (i + 1) / 2 + j], b = id[(i + 1) * (i + 2) / 2 + j],
                         cc = id[(i + 1) * (i + 2) / 2 + j + 1];
                OTRI(a, b, cc);
                if (j < i)
                    OTRI(a, cc, id[i * (i + 1) / 2 + j + 1]);
            }
        free(id);
    }
    /* fillet strips: along axis k, between the two corners differing in k */
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        int lo_ax = k1 < k2 ? k1 : k2, hi_ax = k1 < k2 ? k2 : k1;
        for (int s = 0; s < 4; s++) {
            double sg[3];
            sg[lo_ax] = s & 1 ? 1 : -1;
            sg[hi_ax] = s & 2 ? 1 : -1;
            v3 e1 = scale(axis[lo_ax], sg[lo_ax]), e2 = scale(axis[hi_ax], sg[hi_ax]);
            for (int q = 0; q < steps; q++) {
                uint32_t v[2][2];
                for (int end = 0; end < 2; end++) {
                    sg[k] = end ? 1 : -1;
                    v3 c = CORNER(sg[0], sg[1], sg[2]);
                    v[end][0] = vtx(m, add(c, scale(arc_dir(e1, e2, q, steps), r)));
                    v[end][1] = vtx(m, add(c, scale(arc_dir(e1, e2, q + 1, steps), r)));
                }
                OTRI(v[0][0], v[0][1], v[1][1]);
                OTRI(v[0][0], v[1][1], v[1][0]);
            }
        }
    }
    /* flat faces: normal along k, two triangles between the four corners */
    for (int k = 0; k < 3; k++)
        for (int side = 0; side < 2; side++) {
            int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            uint32_t v[4];
            for (int q = 0; q < 4; q++) {
                double sg[3];
                sg[k] = side ? 1 : -1;
                sg[k1] = (q == 1 || q == 2) ? 1 : -1;
                sg[k2] = q >= 2 ? 1 : -1;
                v[q] = vtx(m, add(CORNER(sg[0], sg[1], sg[2]), scale(axis[k], sg[k] * r)));
            }
            OTRI(v[0], v[1], v[2]);
            OTRI(v[0], v[2], v[3]);
        }
#undef CORNER
#undef OTRI
}

/* Appends the arc of radius r about (cx, cy) from angle a0 to a1 in n steps
 * (n + 1 points, or n without the first when skip_first). */
static void arc2(v2 *p, int *np, double cx, double cy, double r, double a0, double a1, int n, int skip_first)
{
    for (int i = skip_first; i <= n; i++) {
        double a = a0 + (a1 - a0) * i / n;
        p[(*np)++] = (v2){cx + r * cos(a), cy + r * sin(a)};
    }
}

/* Heat sink: a base 3 thick with nfins fins (1.2 thick, 25 tall, round
 * tips of tip_n steps, root fillets of radius 1 in fil_n steps), extruded
 * 60 long: each fin face and the base faces 2 triangles running the whole
 * length, each fillet step a strip of 2 slivers, both end faces ear-clipped
 * (fans from the fillets' points to the fins' and base's corners). */
static void make_heatsink(mesh *m, int nfins, int fil_n, int tip_n)
{
    const double base = 3, pitch = 4, t = 1.2, hf = 25, rf = 1, len = 60;
    double width = pitch * nfins;
    int cap = 8 + nfins * (2 * (fil_n + 1) + tip_n + 1);
    v2 *p = xrealloc(NULL, (size_t)cap * sizeof *p);
    int np = 0;
    /* counter-clockwise: bottom edge left to right, up the right side,
     * then the fins from right to left along the top */
    p[np++] = (v2){0.5, 0};
    p[np++] = (v2){width - 0.5, 0};
    p[np++] = (v2){width, 0.5};
    p[np++] = (v2){width, base};
    for (int f = nfins - 1; f >= 0; f--) {
        double x0 = pitch * f + 0.5 * (pitch - t), x1 = x0 + t;
        /* right root fillet: centre (x1 + rf, base + rf), from the base top
         * (angle -90) to the fin side (180), the short way: -90 -> -180 */
        arc2(p, &np, x1 + rf, base + rf, rf, -0.5 * M_PI, -M_PI, fil_n, 0);
        /* tip: half circle of radius t/2 at the top, 0 -> 180 */
        arc2(p, &np, x0 + 0.5 * t, base + hf - 0.5 * t, 0.5 * t, 0, M_PI, tip_n, 0);
        /* left root fillet: centre (x0 - rf, base + rf), 0 -> -90 */
        arc2(p, &np, x0 - rf, base + rf, rf, 0, -0.5 * M_PI, fil_n, 0);
    }
    p[np++] = (v2){0, base};
    p[np++] = (v2){0, 0.5};
    int *outer = xrealloc(NULL, (size_t)np * sizeof *outer);
    for (int i = 0; i < np; i++)
        outer[i] = i;
    extrude(m, p, np, outer, np, NULL, NULL, 0, 0, len);
    free(outer);
    free(p);
}

/* Lathe part: a stepped shaft with a collar, two grooves, chamfered ends and
 * fillets at the collar, revolved in nseg sectors; ends are centre fans.
 * (r, z), bottom to top. The journal (radius 10, z 20..70) runs in the
 * bushing below. */
static int lathe_profile(double (*pr)[2])
{
    int n = 0;
#define P(r, z) (pr[n][0] = (r), pr[n][1] = (z), n++)
    P(0, 0);
    P(7, 0);
    P(8, 1); /* chamfer */
    P(8, 12);
    P(7, 12); /* groove */
    P(7, 14);
    P(8, 14);
    P(8, 18);
    P(10, 19); /* chamfer up to the journal */
    P(10, 74.5);
    for (int i = 1; i <= 6; i++) { /* fillet r 1.5 into the collar face */
        double a = M_PI - 0.5 * M_PI * i / 6;
        P(11.5 + 1.5 * cos(a), 74.5 + 1.5 * sin(a));
    }
    P(14, 76);
    P(14, 84);
    P(13.5, 84.5);
    P(9, 84.5);
    P(9, 90);
    P(8.2, 90); /* retaining-ring groove */
    P(8.2, 91.2);
    P(9, 91.2);
    P(9, 99);
    P(8, 100);
    P(0, 100);
#undef P
    return n;
}

static void make_lathe(mesh *m, int nseg)
{
    double pr[64][2];
    int n = lathe_profile(pr);
    revolve(m, (const double(*)[2])pr, n, nseg, 0);
}

/* Bushing: a tube around the journal, bore radius 10 + clear, outer 15,
 * z 25..76 - gap (gap: the axial play to the collar at z 76), the bore's
 * edges chamfered (0.5 below; 2 above, clearing the collar's fillet); its
 * end faces are strips of radial slivers. */
static void make_bushing(mesh *m, int nseg, double clear, double gap)
{
    double ri = 10 + clear, z0 = 25, z1 = 76 - gap;
    /* counter-clockwise in (r, z): out along the bottom, up the outer wall,
     * in along the top, down the bore */
    const double prof[][2] = {{ri + 0.5, z0}, {15, z0}, {15, z1}, {ri + 2, z1}, {ri, z1 - 2}, {ri, z0 + 0.5}, {ri + 0.5, z0}};
    revolve(m, prof, 7, nseg, 0.5 * M_PI / nseg);
}

/* Open conical fan of nseg slivers from its apex on the axis at height
 * z_apex, rim radius R, half-angle deg degrees (the seat: 45; the valve
 * face: a little flatter, so that seated it touches the seat along its rim
 * and the gap opens toward the axis, as valves are ground with an
 * interference angle). */
static void make_cone_fan(mesh *m, int nseg, double R, double deg, double z_apex, double phase)
{
    const double prof[][2] = {{0, z_apex}, {R, z_apex + R / tan(deg * M_PI / 180)}};
    revolve(m, prof, 2, nseg, phase);
}

/* Flat star polygon of n sides (n even) as an OBJ with one face line:
 * vertices alternately at radius 1 and 0.6, counter-clockwise. */
static void write_star(const char *dir, const char *name, int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tmp", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        die(strerror(errno), path);
    fprintf(f, "# gen_cad: flat star polygon, %d sides, one face\n", n);
    for (int i = 0; i < n; i++) {
        double a = 2 * M_PI * i / n, r = i % 2 ? 0.6 : 1.0;
        fprintf(f, "v %.17g %.17g 0\n", r * cos(a), r * sin(a));
    }
    fputc('f', f);
    for (int i = 1; i <= n; i++)
        fprintf(f, " %d", i);
    fputc('\n', f);
    if (fclose(f) != 0)
        die("cannot write", path);
    char final[4096];
    snprintf(final, sizeof final, "%s/%s", dir, name);
    if (rename(path, final) != 0)
        die(strerror(errno), final);
}

typedef struct {
    const char *file;
    int closed;
    int kind;
    int n;
} part;

enum { CONE, DISC, CYL, PLATE, BLOCK, HEATSINK, LATHE, BUSHING, SEAT, VALVE };

static const part parts[] = {
    {"cone.stl", 1, CONE, 1500},       {"disc.stl", 1, DISC, 1024},     {"cylinder.stl", 1, CYL, 640},
    {"plate.stl", 1, PLATE, 0},        {"block.stl", 1, BLOCK, 24},     {"heatsink.stl", 1, HEATSINK, 50},
    {"lathe.stl", 1, LATHE, 200},      {"bushing.stl", 1, BUSHING, 256}, {"seat-8k.stl", 0, SEAT, 8000},
    {"valve-8k.stl", 0, VALVE, 8000},  {"seat-20k.stl", 0, SEAT, 20000}, {"valve-20k.stl", 0, VALVE, 20000},
};

static void make(mesh *m, const part *pt)
{
    switch (pt->kind) {
    case CONE: make_cone(m, pt->n); break;
    case DISC: make_disc(m, pt->n); break;
    case CYL: make_cylinder(m, pt->n); break;
    case PLATE: make_plate(m); break;
    case BLOCK: make_block(m, 50, 30, 20, 2, pt->n); break;
    case HEATSINK: make_heatsink(m, pt->n, 160, 80); break;
    case LATHE: make_lathe(m, pt->n); break;
    case BUSHING: make_bushing(m, pt->n, 0.01, 0.05); break;
    case SEAT: make_cone_fan(m, pt->n, 1.0, 45, 0, 0); break;
    /* the valve face: half-angle 45.5 degrees (a 0.5 degree interference
     * angle), its rim (radius 0.8) on the seat's cone, so that its apex is
     * 0.0138 above the seat's; its sectors half a sector out of phase with
     * the seat's */
    case VALVE: make_cone_fan(m, pt->n, 0.8, 45.5, 0.8 - 0.8 / tan(45.5 * M_PI / 180), M_PI / pt->n); break;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR | --list\n", argv[0]);
        return 2;
    }
    int list = strcmp(argv[1], "--list") == 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        mesh m = {0};
        make(&m, &parts[i]);
        if (parts[i].closed)
            check_closed(&m, parts[i].file);
        if (list)
            printf("%s %zu triangles %zu vertices\n", parts[i].file, m.nt, m.nv);
        else
            write_stl(&m, argv[1], parts[i].file);
        mesh_free(&m);
    }
    if (list) {
        printf("star-10k.obj 1 face of 10000 sides\nstar-30k.obj 1 face of 30000 sides\n");
    } else {
        write_star(argv[1], "star-10k.obj", 10000);
        write_star(argv[1], "star-30k.obj", 30000);
    }
    return 0;
}
