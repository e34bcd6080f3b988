/* hunt3e: the held-out hunt in 3D, third round (branch hunt3e, issue 33):
 * CAD-like parts and closed scans near contact, every query a user asks,
 * each answer checked against a brute force over triangle pairs.
 *
 * Classes (A at the identity, B at a pose; coordinates + OFF where given):
 *   lid      a closed box [0,1]^3 (faces fanned from their centres, N
 *            segments an edge: slivers) and a wider lid [-.25,1.25]^2 x
 *            [1+g, 1.2+g] (M segments): a face shared exactly at g = 0
 *   flush    the same with a lid of the box's footprint (side faces
 *            coplanar, edges shared)
 *   pin      a tube (bore radius .5, outer 1, height 1, N sectors) and a
 *            pin of the bore's polygon scaled by (1 - c), flush at both
 *            ends (c = 0: the walls shared exactly, quads split the other
 *            way), moved along the axis by s
 *   edge     two unit boxes sharing an edge (B at [1+g,2+g]^2 x [0,1])
 *   corner   two unit boxes sharing a corner (B at [1+g,2+g]^3)
 *   shift    a closed scan against itself moved by f of its size
 *   inset    a closed scan and its copy moved inward along its vertex
 *            normals by c of its size (nested at clearance about c, where
 *            the offset does not cross itself: the brute force decides)
 *   scaled   a closed scan and its copy scaled by (1 - c) about its box's
 *            centre
 *   deep     a scan against itself turned by 90 degrees and moved by 0.2 of
 *            its size: deeply overlapping non-convex solids
 * at scale 1 and 1e6 off the origin.
 *
 * Queries (C API; bench/holdout3.sh runs the same through the CLI):
 *   collide, contacts ALL: the set of triangle pairs against every pair
 *     whose boxes meet tested by kcbp_tri_intersect (exact), on A's
 *     coordinates and B's carried by kcbp_pose_relative + kcbp_pose_apply
 *     (the coordinates kcbp decides on, include/kcbp/tritri.h);
 *   collide FIRST: the answer, and its contact in that set;
 *   collide --solid: containment against a ray-parity point-in-solid;
 *   distance: against the smallest kcbp_tri_distance over every pair whose
 *     boxes come within the answer (+ tolerance): within
 *     KCBP_TRI_DIST_REL_ERR * S (include/kcbp/distance.h); the gap to an
 *     independent triangle distance (brute_check.c's) is reported;
 *   clearance (max_distance D just below and above the distance): within
 *     exactly when the distance is at most D;
 *   signed distance (closed solids): apart = the distance; touching only
 *     when the surfaces meet; bracketed: the translation's pose is apart by
 *     the brute force and neither inside the other (ray parity), the lower
 *     ball's centre inside both with its radii within the brute distances
 *     to the surfaces, the expected depth (analytic, where known) inside
 *     [depth_lower, depth_upper];
 *   sweep (B moving along a fixed direction into contact): no contact (brute
 *     force) at 8 times before toi and at toi - tau, contact at toi + tau
 *     when confirmed, the analytic time of impact where known.
 *
 * Usage: hunt3e [-q] [-w DIR] [MESH_DIR]   (-w: also write each case's A.obj and
 * B.obj, B posed, into DIR, and DIR/cases.tsv: stem, collide, contacts,
 * distance, signed status, depth bracket, toi, the sweep's half motion, S;
 * for the CLI and FCL, bench/holdout3.sh; ONLY=cad,spot,...: those classes;
 * exit 1 when an answer is off) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/kcbp.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef kcbp_vec3 v3;

static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* ---------- triangle soup, welded on exact coordinates ---------- */
typedef struct {
    v3 *t; /* 3 per triangle */
    size_t n, cap;
} soup;

static void tri(soup *s, v3 a, v3 b, v3 c)
{
    if (s->n + 3 > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 3072;
        s->t = realloc(s->t, s->cap * sizeof *s->t);
        if (!s->t)
            abort();
    }
    s->t[s->n++] = a, s->t[s->n++] = b, s->t[s->n++] = c;
}
static void quad(soup *s, v3 a, v3 b, v3 c, v3 d, int diag)
{
    if (diag)
        tri(s, a, b, c), tri(s, a, c, d);
    else
        tri(s, a, b, d), tri(s, b, c, d);
}

typedef struct {
    v3 p;
    size_t i;
} keyed;
static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->p.x != b->p.x)
        return a->p.x < b->p.x ? -1 : 1;
    if (a->p.y != b->p.y)
        return a->p.y < b->p.y ? -1 : 1;
    if (a->p.z != b->p.z)
        return a->p.z < b->p.z ? -1 : 1;
    return 0;
}

static kcbp_mesh *weld(soup *s, v3 off)
{
    keyed *k = malloc(s->n * sizeof *k);
    v3 *v = malloc(s->n * sizeof *v);
    kcbp_tri *t = malloc(s->n / 3 * sizeof *t);
    if (!k || !v || !t)
        abort();
    for (size_t i = 0; i < s->n; i++)
        k[i].p = kcbp_v3_add(s->t[i], off), k[i].i = i;
    qsort(k, s->n, sizeof *k, cmp_keyed);
    size_t nv = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i == 0 || cmp_keyed(&k[i - 1], &k[i]))
            v[nv++] = k[i].p;
        t[k[i].i / 3].v[k[i].i % 3] = (uint32_t)(nv - 1);
    }
    kcbp_mesh *m = NULL;
    kcbp_error err;
    if (kcbp_mesh_create(v, nv, t, s->n / 3, &m, &err) != KCBP_OK) {
        fprintf(stderr, "hunt3e: %s\n", err.msg);
        exit(3);
    }
    free(k), free(v), free(t), free(s->t);
    s->t = NULL, s->n = s->cap = 0;
    return m;
}

/* Point j of the unit square's boundary in 4n steps (corners at multiples
 * of n), each coordinate a ratio of integers rounded once: the same double
 * whichever face computes it. */
static void square_pt(int j, int n, double *x, double *y)
{
    int e = (j / n) & 3, k = j % n;
    double f = (double)k / n, g = (double)(n - k) / n;
    switch (e) {
    case 0: *x = f, *y = 0; break;
    case 1: *x = 1, *y = f; break;
    case 2: *x = g, *y = 1; break;
    default: *x = 0, *y = g; break;
    }
}

/* A closed box lo..hi, every face a fan from its centre over n segments an
 * edge (T-junction-free: neighbouring faces share the edges' points). */
static void box_fan(soup *s, v3 lo, v3 hi, int n)
{
    const double L[3] = {lo.x, lo.y, lo.z}, H[3] = {hi.x, hi.y, hi.z};
    for (int ax = 0; ax < 3; ax++)
        for (int side = 0; side < 2; side++) {
            int u = (ax + 1) % 3, w = (ax + 2) % 3;
            double c[3];
            c[ax] = side ? H[ax] : L[ax];
            c[u] = 0.5 * (L[u] + H[u]), c[w] = 0.5 * (L[w] + H[w]);
            v3 cen = {c[0], c[1], c[2]};
            for (int i = 0; i < 4 * n; i++) {
                double x0, y0, x1, y1;
                square_pt(i, n, &x0, &y0);
                square_pt((i + 1) % (4 * n), n, &x1, &y1);
                double p[3], q[3];
                p[ax] = q[ax] = c[ax];
                p[u] = x0 == 1 ? H[u] : x0 == 0 ? L[u] : L[u] + x0 * (H[u] - L[u]);
                p[w] = y0 == 1 ? H[w] : y0 == 0 ? L[w] : L[w] + y0 * (H[w] - L[w]);
                q[u] = x1 == 1 ? H[u] : x1 == 0 ? L[u] : L[u] + x1 * (H[u] - L[u]);
                q[w] = y1 == 1 ? H[w] : y1 == 0 ? L[w] : L[w] + y1 * (H[w] - L[w]);
                v3 P = {p[0], p[1], p[2]}, Q = {q[0], q[1], q[2]};
                /* outward: (u, w, ax) is right-handed, the boundary runs
                 * counter-clockwise in (u, w) */
                if (side)
                    tri(s, cen, P, Q);
                else
                    tri(s, cen, Q, P);
            }
        }
}

static v3 ring(double r, int i, int n, double z)
{
    double a = 2 * M_PI * (i % n) / n;
    v3 p = {r * cos(a), r * sin(a), z};
    return p;
}

/* A tube: bore ri, outer ro, z0..z1, n sectors, closed. */
static void tube(soup *s, double ri, double ro, double z0, double z1, int n)
{
    for (int i = 0; i < n; i++) {
        v3 i0 = ring(ri, i, n, z0), i1 = ring(ri, i + 1, n, z0), I0 = ring(ri, i, n, z1), I1 = ring(ri, i + 1, n, z1);
        v3 o0 = ring(ro, i, n, z0), o1 = ring(ro, i + 1, n, z0), O0 = ring(ro, i, n, z1), O1 = ring(ro, i + 1, n, z1);
        quad(s, o0, o1, O1, O0, 0); /* outer wall, outward */
        quad(s, i1, i0, I0, I1, 0); /* bore, facing the axis */
        quad(s, O0, O1, I1, I0, 0); /* top */
        quad(s, o1, o0, i0, i1, 0); /* bottom */
    }
}

/* A prism of the n-gon of radius r, z0..z1, caps fanned from the centre. */
static void prism(soup *s, double r, double z0, double z1, int n, int diag)
{
    v3 c0 = {0, 0, z0}, c1 = {0, 0, z1};
    for (int i = 0; i < n; i++) {
        v3 a0 = ring(r, i, n, z0), b0 = ring(r, i + 1, n, z0), a1 = ring(r, i, n, z1), b1 = ring(r, i + 1, n, z1);
        quad(s, a0, b0, b1, a1, diag);
        tri(s, c1, a1, b1);
        tri(s, c0, b0, a0);
    }
}

/* ---------- the brute force ---------- */
static v3 unit(v3 a) { return kcbp_v3_scale(a, 1 / kcbp_v3_len(a)); }
static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static v3 sub(v3 a, v3 b) { return kcbp_v3_sub(a, b); }
static double dot(v3 a, v3 b) { return kcbp_v3_dot(a, b); }

/* brute_check.c's independent triangle distance (floating point). */
static double point_tri_d2(v3 p, v3 a, v3 b, v3 c)
{
    v3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return kcbp_v3_len2(ap);
    v3 bp = sub(p, b);
    double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return kcbp_v3_len2(bp);
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        return kcbp_v3_len2(sub(p, kcbp_v3_add(a, kcbp_v3_scale(ab, v))));
    }
    v3 cp = sub(p, c);
    double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return kcbp_v3_len2(cp);
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        return kcbp_v3_len2(sub(p, kcbp_v3_add(a, kcbp_v3_scale(ac, w))));
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return kcbp_v3_len2(sub(p, kcbp_v3_add(b, kcbp_v3_scale(sub(c, b), w))));
    }
    double denom = va + vb + vc;
    if (!(fabs(denom) > 0))
        return INFINITY; /* degenerate: its edges are counted by seg_seg */
    double v = vb / denom, w = vc / denom;
    return kcbp_v3_len2(sub(p, kcbp_v3_add(a, kcbp_v3_add(kcbp_v3_scale(ab, v), kcbp_v3_scale(ac, w)))));
}
static double seg_seg_d2(v3 p1, v3 q1, v3 p2, v3 q2)
{
    v3 d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    double a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r), s, t;
    if (a <= 0 && e <= 0)
        return dot(r, r);
    if (a <= 0)
        s = 0, t = clamp01(f / e);
    else {
        double c = dot(d1, r);
        if (e <= 0)
            t = 0, s = clamp01(-c / a);
        else {
            double b = dot(d1, d2), den = a * e - b * b;
            s = den > 0 ? clamp01((b * f - c * e) / den) : 0;
            t = (b * s + f) / e;
            if (t < 0)
                t = 0, s = clamp01(-c / a);
            else if (t > 1)
                t = 1, s = clamp01((b - c) / a);
        }
    }
    return kcbp_v3_len2(sub(kcbp_v3_add(p1, kcbp_v3_scale(d1, s)), kcbp_v3_add(p2, kcbp_v3_scale(d2, t))));
}
static double tri_tri_dist(const v3 a[3], const v3 b[3], int touching)
{
    if (touching)
        return 0;
    double d2 = INFINITY;
    for (int k = 0; k < 3; k++) {
        d2 = fmin(d2, point_tri_d2(a[k], b[0], b[1], b[2]));
        d2 = fmin(d2, point_tri_d2(b[k], a[0], a[1], a[2]));
        for (int l = 0; l < 3; l++)
            d2 = fmin(d2, seg_seg_d2(a[k], a[(k + 1) % 3], b[l], b[(l + 1) % 3]));
    }
    return sqrt(d2);
}

typedef struct {
    v3 v[3];
    kcbp_aabb box;
    uint32_t id;
} item;
static int cmp_item(const void *x, const void *y)
{
    const item *p = x, *q = y;
    return (p->box.min.x > q->box.min.x) - (p->box.min.x < q->box.min.x);
}
static item *items(const kcbp_mesh *m, const kcbp_pose *pose, double *maxw)
{
    uint32_t nt = kcbp_mesh_triangle_count(m);
    item *t = malloc(nt * sizeof *t);
    const v3 *mv = kcbp_mesh_vertices(m);
    const kcbp_tri *mt = kcbp_mesh_triangles(m);
    *maxw = 0;
    for (uint32_t i = 0; i < nt; i++) {
        for (int k = 0; k < 3; k++)
            t[i].v[k] = pose ? kcbp_pose_apply(pose, mv[mt[i].v[k]]) : mv[mt[i].v[k]];
        t[i].box.min = kcbp_v3_min(t[i].v[0], kcbp_v3_min(t[i].v[1], t[i].v[2]));
        t[i].box.max = kcbp_v3_max(t[i].v[0], kcbp_v3_max(t[i].v[1], t[i].v[2]));
        t[i].id = i;
        *maxw = fmax(*maxw, t[i].box.max.x - t[i].box.min.x);
    }
    qsort(t, nt, sizeof *t, cmp_item);
    return t;
}

typedef struct {
    uint64_t pairs, hits;
    kcbp_contact *hit; /* sorted by (a, b) */
    double dmin, dind; /* smallest kcbp_tri_distance, independent distance */
} brute;

static int cmp_contact(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* Every pair of A (identity) and B carried into A's frame by rel whose boxes
 * come within margin (margin < 0: intersections only, stop at the first when
 * first_only). */
static brute run_brute(const kcbp_mesh *ma, const kcbp_mesh *mb, const kcbp_pose *rel, double margin, int first_only)
{
    brute r = {0, 0, NULL, INFINITY, INFINITY};
    double wa, wb;
    item *ta = items(ma, NULL, &wa), *tb = items(mb, rel, &wb);
    uint32_t na = kcbp_mesh_triangle_count(ma), nb = kcbp_mesh_triangle_count(mb);
    size_t cap = 0, start = 0;
    double m = margin < 0 ? 0 : margin;
    for (uint32_t i = 0; i < na; i++) {
        const item *x = &ta[i];
        while (start < nb && tb[start].box.min.x < x->box.min.x - m - wb)
            start++;
        for (size_t j = start; j < nb && tb[j].box.min.x <= x->box.max.x + m; j++) {
            const item *y = &tb[j];
            if (y->box.max.x < x->box.min.x - m || y->box.min.y > x->box.max.y + m || y->box.max.y < x->box.min.y - m ||
                y->box.min.z > x->box.max.z + m || y->box.max.z < x->box.min.z - m)
                continue;
            r.pairs++;
            int touch = 0;
            if (y->box.max.x >= x->box.min.x && y->box.min.x <= x->box.max.x && y->box.min.y <= x->box.max.y &&
                y->box.max.y >= x->box.min.y && y->box.min.z <= x->box.max.z && y->box.max.z >= x->box.min.z &&
                kcbp_tri_intersect(x->v, y->v, 0)) {
                touch = 1;
                if (r.hits == cap) {
                    cap = cap ? 2 * cap : 256;
                    r.hit = realloc(r.hit, cap * sizeof *r.hit);
                }
                r.hit[r.hits].a = x->id, r.hit[r.hits].b = y->id;
                r.hits++;
                if (first_only)
                    goto done;
            }
            if (margin >= 0) {
                double d = kcbp_tri_distance(x->v, y->v, NULL, NULL);
                r.dmin = fmin(r.dmin, d);
                r.dind = fmin(r.dind, tri_tri_dist(x->v, y->v, touch));
            }
        }
    }
done:
    if (r.hits)
        qsort(r.hit, r.hits, sizeof *r.hit, cmp_contact);
    free(ta), free(tb);
    return r;
}

/* Point in a closed mesh by ray parity (floating point, three directions,
 * majority; the points asked about are never on the surface). */
static int ray_inside(const kcbp_mesh *m, const kcbp_pose *pose, v3 p)
{
    static const v3 dirs[3] = {{0.5731, 0.6121, 0.5448}, {-0.3312, 0.8013, -0.4981}, {0.7071, -0.1234, -0.6963}};
    const v3 *mv = kcbp_mesh_vertices(m);
    const kcbp_tri *mt = kcbp_mesh_triangles(m);
    uint32_t nt = kcbp_mesh_triangle_count(m);
    int votes = 0;
    for (int d = 0; d < 3; d++) {
        v3 dir = unit(dirs[d]);
        int cross = 0;
        for (uint32_t i = 0; i < nt; i++) {
            v3 a = pose ? kcbp_pose_apply(pose, mv[mt[i].v[0]]) : mv[mt[i].v[0]];
            v3 b = pose ? kcbp_pose_apply(pose, mv[mt[i].v[1]]) : mv[mt[i].v[1]];
            v3 c = pose ? kcbp_pose_apply(pose, mv[mt[i].v[2]]) : mv[mt[i].v[2]];
            v3 e1 = sub(b, a), e2 = sub(c, a), h = kcbp_v3_cross(dir, e2);
            double det = dot(e1, h);
            if (fabs(det) < 1e-300)
                continue;
            v3 s = sub(p, a);
            double u = dot(s, h) / det;
            if (u < 0 || u > 1)
                continue;
            v3 q = kcbp_v3_cross(s, e1);
            double v = dot(dir, q) / det;
            if (v < 0 || u + v > 1)
                continue;
            if (dot(e2, q) / det > 0)
                cross++;
        }
        votes += cross & 1;
    }
    return votes >= 2;
}

/* Brute distance from a point to a mesh's surface. */
static double point_mesh(const kcbp_mesh *m, const kcbp_pose *pose, v3 p)
{
    const v3 *mv = kcbp_mesh_vertices(m);
    const kcbp_tri *mt = kcbp_mesh_triangles(m);
    double best = INFINITY;
    for (uint32_t i = 0; i < kcbp_mesh_triangle_count(m); i++) {
        v3 t[3];
        for (int k = 0; k < 3; k++)
            t[k] = pose ? kcbp_pose_apply(pose, mv[mt[i].v[k]]) : mv[mt[i].v[k]];
        v3 pt[3] = {p, p, p};
        best = fmin(best, kcbp_tri_distance(t, pt, NULL, NULL));
    }
    return best;
}

/* ---------- one case ---------- */
typedef struct {
    char name[96];
    kcbp_mesh *a, *b; /* owned by the models */
    kcbp_pose pb;
    int solid;
    double depth;   /* the analytic depth when overlapping (NAN: unknown) */
    v3 sweep_dir;   /* B moves from pb - sweep_len*dir*... see run_case */
    double sweep_len, toi; /* toi: the analytic time of impact (NAN: unknown) */
} pcase;

static long checks, fails;
static int quiet;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        checks++;                                                                                                      \
        if (!(cond)) {                                                                                                 \
            fails++;                                                                                                   \
            printf("  FAIL %s: ", c->name);                                                                            \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
        }                                                                                                              \
    } while (0)

static double pair_scale(const kcbp_mesh *a, const kcbp_mesh *b, const kcbp_pose *rel)
{
    kcbp_aabb x = kcbp_mesh_bounds(a), y = kcbp_mesh_bounds(b);
    double s = 0;
    const double *p = &x.min.x, *q = &y.min.x;
    for (int i = 0; i < 6; i++)
        s = fmax(s, fabs(p[i]));
    for (int i = 0; i < 6; i++)
        s = fmax(s, fabs(q[i]));
    return s + kcbp_v3_len(rel->trans);
}

static int brute_collide(const kcbp_mesh *ma, const kcbp_mesh *mb, const kcbp_pose *pb)
{
    kcbp_pose id = kcbp_pose_identity(), rel = kcbp_pose_relative(&id, pb);
    brute r = run_brute(ma, mb, &rel, -1, 1);
    free(r.hit);
    return r.hits > 0;
}

static void write_obj(const char *path, const kcbp_mesh *m, const kcbp_pose *pose)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(3);
    }
    const v3 *mv = kcbp_mesh_vertices(m);
    for (uint32_t i = 0; i < kcbp_mesh_vertex_count(m); i++) {
        v3 p = pose ? kcbp_pose_apply(pose, mv[i]) : mv[i];
        fprintf(f, "v %.17g %.17g %.17g\n", p.x, p.y, p.z);
    }
    const kcbp_tri *t = kcbp_mesh_triangles(m);
    for (uint32_t i = 0; i < kcbp_mesh_triangle_count(m); i++)
        fprintf(f, "f %u %u %u\n", t[i].v[0] + 1, t[i].v[1] + 1, t[i].v[2] + 1);
    fclose(f);
}

static const char *write_dir;
static FILE *write_list;

static void run_case(pcase *c)
{
    kcbp_error err;
    kcbp_model A, B;
    kcbp_model_options mo = kcbp_model_options_default();
    kcbp_solid_check sc;
    c->solid = kcbp_mesh_check_solid(c->a, &sc, &err) == KCBP_OK && kcbp_mesh_check_solid(c->b, &sc, &err) == KCBP_OK;
    if (!c->solid && !quiet)
        printf("  (not a solid: %s)\n", err.msg);
    mo.solid = c->solid;
    if (write_dir) {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/%s.A.obj", write_dir, c->name);
        snprintf(pb, sizeof pb, "%s/%s.B.obj", write_dir, c->name);
        for (char *q = pa + strlen(write_dir); *q; q++)
            if (*q == ' ')
                *q = '_';
        for (char *q = pb + strlen(write_dir); *q; q++)
            if (*q == ' ')
                *q = '_';
        write_obj(pa, c->a, NULL);
        write_obj(pb, c->b, &c->pb);
    }
    if (kcbp_model_build(&A, c->a, &mo, &err) != KCBP_OK || kcbp_model_build(&B, c->b, &mo, &err) != KCBP_OK) {
        printf("  FAIL %s: build: %s\n", c->name, err.msg);
        fails++;
        return;
    }
    const kcbp_mesh *ma = kcbp_model_mesh(&A), *mb = kcbp_model_mesh(&B);
    kcbp_pose id = kcbp_pose_identity(), rel = kcbp_pose_relative(&id, &c->pb);
    double S = pair_scale(ma, mb, &rel), tol = KCBP_TRI_DIST_REL_ERR * S;
    long checks0 = checks, fails0 = fails;

    /* collide, every contact */
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result cr = {0};
    double t0 = cpu_ms();
    if (kcbp_collide(&A, &id, &B, &c->pb, &co, &cr, &err) != KCBP_OK) {
        printf("  FAIL %s: collide: %s\n", c->name, err.msg);
        fails++;
        return;
    }
    double t_coll = cpu_ms() - t0;
    brute br = run_brute(ma, mb, &rel, -1, 0);
    CHECK(cr.collide == (br.hits > 0), "collide %d, brute force %llu intersecting pairs", cr.collide,
          (unsigned long long)br.hits);
    int same = cr.ncontacts == br.hits;
    for (size_t i = 0; same && i < cr.ncontacts; i++)
        same = cr.contacts[i].a == br.hit[i].a && cr.contacts[i].b == br.hit[i].b;
    CHECK(same, "contacts: kcbp %zu, brute force %llu (different sets)", cr.ncontacts, (unsigned long long)br.hits);
    int collide = br.hits > 0;
    /* first contact */
    co.contacts = KCBP_CONTACTS_FIRST;
    kcbp_collide_result cf = {0};
    t0 = cpu_ms();
    kcbp_collide(&A, &id, &B, &c->pb, &co, &cf, &err);
    double t_first = cpu_ms() - t0;
    CHECK(cf.collide == collide, "collide (first) %d", cf.collide);
    if (cf.collide && cf.ncontacts == 1 && br.hits)
        CHECK(bsearch(&cf.contacts[0], br.hit, br.hits, sizeof *br.hit, cmp_contact) != NULL,
              "first contact [%u,%u] not intersecting", cf.contacts[0].a, cf.contacts[0].b);
    /* solids: containment */
    int nested = 0;
    if (c->solid && !collide) {
        co.contacts = KCBP_CONTACTS_NONE;
        co.solid = true;
        kcbp_collide(&A, &id, &B, &c->pb, &co, &cf, &err);
        const v3 *va = kcbp_mesh_vertices(ma), *vb = kcbp_mesh_vertices(mb);
        int b_in_a = ray_inside(ma, NULL, kcbp_pose_apply(&rel, vb[0]));
        int a_in_b = ray_inside(mb, &rel, va[0]);
        kcbp_containment want = b_in_a ? KCBP_CONTAINED_B_IN_A : a_in_b ? KCBP_CONTAINED_A_IN_B : KCBP_CONTAINED_NONE;
        CHECK(cf.contained == want, "contained %s, ray parity %s", kcbp_containment_name(cf.contained),
              kcbp_containment_name(want));
        nested = want != KCBP_CONTAINED_NONE;
        co.solid = false;
    }
    kcbp_collide_result_free(&cf);

    /* distance */
    kcbp_distance_options dop = kcbp_distance_options_default();
    kcbp_distance_result dr;
    t0 = cpu_ms();
    kcbp_status st = kcbp_distance(&A, &id, &B, &c->pb, &dop, &dr, &err);
    double t_dist = cpu_ms() - t0;
    CHECK(st == KCBP_OK, "distance: %s", err.msg);
    brute bd = run_brute(ma, mb, &rel, dr.distance + 4 * tol, 0);
    CHECK(fabs(dr.distance - bd.dmin) <= tol, "distance %.17g, brute force %.17g (%.2e S)", dr.distance, bd.dmin,
          fabs(dr.distance - bd.dmin) / S);
    CHECK((dr.distance == 0) == collide, "distance %.17g but collide %d", dr.distance, collide);
    double dind_err = fabs(dr.distance - bd.dind) / S;
    /* the points: on the reported triangles, their gap the distance */
    CHECK(fabs(kcbp_v3_len(sub(dr.point_b, dr.point_a)) - dr.distance) <= tol, "points %.17g apart, distance %.17g",
          kcbp_v3_len(sub(dr.point_b, dr.point_a)), dr.distance);
    double d = bd.dmin;
    /* clearance */
    if (d > 4 * tol) {
        double D[2] = {d - 4 * tol - d * 1e-6, d + 4 * tol + d * 1e-6};
        for (int k = 0; k < 2; k++) {
            kcbp_distance_options o2 = dop;
            o2.max_distance = D[k];
            kcbp_distance_result r2;
            kcbp_distance(&A, &id, &B, &c->pb, &o2, &r2, &err);
            CHECK(r2.within == (k == 1), "margin %.17g: within %d, distance %.17g", D[k], r2.within, d);
            CHECK(r2.distance_lower <= d + tol, "margin: lower bound %.17g above %.17g", r2.distance_lower, d);
        }
    } else {
        kcbp_distance_options o2 = dop;
        o2.max_distance = 0;
        kcbp_distance_result r2;
        kcbp_distance(&A, &id, &B, &c->pb, &o2, &r2, &err);
        CHECK(r2.within == (d <= 0) || d > 0, "margin 0: within %d, distance %.17g", r2.within, d);
    }

    /* signed distance */
    double t_sd = NAN;
    kcbp_signed_distance_result sr;
    memset(&sr, 0, sizeof sr);
    if (c->solid) {
        kcbp_signed_distance_options so = kcbp_signed_distance_options_default();
        t0 = cpu_ms();
        st = kcbp_signed_distance(&A, &id, &B, &c->pb, &so, &sr, &err);
        t_sd = cpu_ms() - t0;
        CHECK(st == KCBP_OK, "signed: %s", err.msg);
        if (st == KCBP_OK) {
            if (!collide && !nested)
                CHECK(sr.status == KCBP_SDIST_APART && fabs(sr.signed_distance - d) <= tol,
                      "signed: %s %.17g, distance %.17g", kcbp_sdist_status_name(sr.status), sr.signed_distance, d);
            else
                CHECK(sr.status == (collide ? KCBP_SDIST_TOUCHING : KCBP_SDIST_BRACKETED) || sr.status == KCBP_SDIST_BRACKETED,
                      "signed: %s while %s", kcbp_sdist_status_name(sr.status), collide ? "touching" : "nested");
            if (sr.status == KCBP_SDIST_BRACKETED) {
                CHECK(sr.depth_lower <= sr.depth_upper && sr.depth_upper > 0, "bracket [%.17g, %.17g]", sr.depth_lower,
                      sr.depth_upper);
                kcbp_pose moved = c->pb;
                moved.trans = kcbp_v3_add(moved.trans, sr.translation);
                int coll = brute_collide(ma, mb, &moved);
                kcbp_pose rel2 = kcbp_pose_relative(&id, &moved);
                const v3 *va = kcbp_mesh_vertices(ma), *vb = kcbp_mesh_vertices(mb);
                int nest = ray_inside(ma, NULL, kcbp_pose_apply(&rel2, vb[0])) || ray_inside(mb, &rel2, va[0]);
                CHECK(!coll && !nest, "translation by depth_upper %.17g leaves them %s", sr.depth_upper,
                      coll ? "touching" : "nested");
                if (sr.depth_lower > 0) {
                    double ra = point_mesh(ma, NULL, sr.lower_center), rb = point_mesh(mb, &c->pb, sr.lower_center);
                    int in = ray_inside(ma, NULL, sr.lower_center) && ray_inside(mb, &c->pb, sr.lower_center);
                    CHECK(in && ra >= sr.lower_radius_a - tol && rb >= sr.lower_radius_b - tol,
                          "lower ball: inside %d, radii %.17g %.17g, brute %.17g %.17g", in, sr.lower_radius_a,
                          sr.lower_radius_b, ra, rb);
                }
                if (!isnan(c->depth))
                    CHECK(sr.depth_lower <= c->depth + tol && c->depth <= sr.depth_upper + tol,
                          "depth %.17g outside [%.17g, %.17g]", c->depth, sr.depth_lower, sr.depth_upper);
            }
            if (sr.status == KCBP_SDIST_TOUCHING && !isnan(c->depth))
                CHECK(c->depth <= tol, "touching, depth %.17g", c->depth);
        }
    }

    /* sweep: B from pb + len*dir to pb - len*dir */
    double t_sw = NAN, toi = NAN;
    if (c->sweep_len > 0) {
        kcbp_pose from = c->pb, to = c->pb;
        from.trans = kcbp_v3_add(c->pb.trans, kcbp_v3_scale(c->sweep_dir, c->sweep_len));
        to.trans = kcbp_v3_sub(c->pb.trans, kcbp_v3_scale(c->sweep_dir, c->sweep_len));
        kcbp_motion ma_ = kcbp_motion_still(&id), mb_ = kcbp_motion_make(&from, &to);
        kcbp_sweep_options swo = kcbp_sweep_options_default();
        kcbp_sweep_result sw;
        t0 = cpu_ms();
        st = kcbp_sweep(&A, &ma_, &B, &mb_, &swo, &sw, &err);
        t_sw = cpu_ms() - t0;
        CHECK(st == KCBP_OK && !sw.undecided, "sweep: %s undecided %d", st ? err.msg : "", sw.undecided);
        toi = sw.toi;
        double tau = swo.t_tolerance;
        if (st == KCBP_OK && sw.hit) {
            for (int k = 0; k <= 8; k++) {
                double t = k < 8 ? sw.toi * k / 8 : sw.toi - tau;
                if (t < 0)
                    continue;
                kcbp_pose p = kcbp_motion_at(&mb_, t);
                CHECK(!brute_collide(ma, mb, &p), "sweep: contact at t = %.17g < toi %.17g", t, sw.toi);
            }
            if (sw.confirmed) {
                kcbp_pose p = kcbp_motion_at(&mb_, fmin(1, sw.toi + tau)), q = kcbp_motion_at(&mb_, sw.toi);
                CHECK(brute_collide(ma, mb, &p) || brute_collide(ma, mb, &q), "sweep: confirmed, no contact at toi + tau");
            }
            if (!isnan(c->toi))
                CHECK(sw.toi <= c->toi + 1e-12 && c->toi <= sw.toi + tau + 1e-12, "sweep: toi %.17g, analytic %.17g",
                      sw.toi, c->toi);
        } else if (st == KCBP_OK) {
            CHECK(isnan(c->toi), "sweep: no hit, analytic toi %.17g", c->toi);
        }
    }
    printf("%-40s %6u x %-6u %-5s %7llu  d %-10.4g ind %.1e  sd %-10s [%.3g, %.3g]  toi %-8.6g | ms: coll %.2f first %.2f "
           "dist %.2f sd %.2f sweep %.2f | tri pairs %llu | %s\n",
           c->name, kcbp_mesh_triangle_count(ma), kcbp_mesh_triangle_count(mb), collide ? "hit" : "apart",
           (unsigned long long)br.hits, d, dind_err, c->solid ? kcbp_sdist_status_name(sr.status) : "-",
           sr.depth_lower, sr.depth_upper, toi, t_coll, t_first, t_dist, t_sd, t_sw,
           (unsigned long long)dr.tree.tri_pairs, fails == fails0 ? "ok" : "OFF");
    (void)checks0;
    if (write_dir) {
        char stem[128];
        snprintf(stem, sizeof stem, "%s", c->name);
        for (char *q = stem; *q; q++)
            if (*q == ' ')
                *q = '_';
        v3 sd = c->sweep_len > 0 ? kcbp_v3_scale(c->sweep_dir, c->sweep_len) : kcbp_v3(0, 0, 0);
        fprintf(write_list, "%s\t%d\t%llu\t%.17g\t%s\t%.17g\t%.17g\t%.17g\t%.17g %.17g %.17g\t%.17g\n", stem, collide,
                (unsigned long long)br.hits, d, c->solid ? kcbp_sdist_status_name(sr.status) : "-", sr.depth_lower,
                sr.depth_upper, toi, sd.x, sd.y, sd.z, S);
        fflush(write_list);
    }
    free(br.hit), free(bd.hit);
    kcbp_collide_result_free(&cr);
    kcbp_model_free(&A), kcbp_model_free(&B);
    fflush(stdout);
}

static kcbp_pose tpose(v3 t)
{
    kcbp_pose p = kcbp_pose_identity();
    p.trans = t;
    return p;
}
static v3 V(double x, double y, double z)
{
    v3 p = {x, y, z};
    return p;
}

static void cad_cases(double off)
{
    v3 O = V(off, off, off);
    const char *tag = off ? " @1e6" : "";
    const double gaps[] = {0, 1e-12, -1e-12, 1e-6, -1e-6, -1e-8, -1e-3};
    for (int wide = 0; wide < 2; wide++)
        for (int gi = 0; gi < 7; gi++) {
            double g = gaps[gi];
            pcase c = {0};
            snprintf(c.name, sizeof c.name, "%s %g%s", wide ? "lid" : "flush", g, tag);
            soup s = {0};
            box_fan(&s, V(0, 0, 0), V(1, 1, 1), 40);
            c.a = weld(&s, O);
            double e = wide ? 0.25 : 0;
            box_fan(&s, V(-e, -e, 1), V(1 + e, 1 + e, 1.2), 27);
            c.b = weld(&s, O);
            c.pb = tpose(V(0, 0, g));
            c.depth = g < 0 ? -g : 0;
            c.sweep_dir = V(0, 0, 1), c.sweep_len = 0.5;
            c.toi = g >= 0 && !off ? (0.5 + g) / 1.0 : NAN;
            if (g < 0)
                c.toi = NAN, c.sweep_len = 0;
            run_case(&c);
        }
    /* the pin in its bore */
    const struct {
        double c, s;
        int x;
    } pins[] = {{0, 0, 0}, {0, 1e-12, 0}, {0, 0.3, 0}, {1e-9, 0, 0}, {1e-6, 0, 0}, {-1e-12, 0, 0}, {0, 1e-12, 1}};
    for (int i = 0; i < 7; i++) {
        pcase c = {0};
        snprintf(c.name, sizeof c.name, "pin c%g s%g%s%s", pins[i].c, pins[i].s, pins[i].x ? " x" : "", tag);
        soup s = {0};
        tube(&s, 0.5, 1, 0, 1, 96);
        c.a = weld(&s, O);
        prism(&s, 0.5 * (1 - pins[i].c), 0, 1, 96, 1);
        c.b = weld(&s, O);
        c.pb = tpose(pins[i].x ? V(pins[i].s, 0, 0) : V(0, 0, pins[i].s));
        c.depth = pins[i].c < 0 ? 1 : NAN;
        run_case(&c);
    }
    /* edge and corner */
    for (int corner = 0; corner < 2; corner++)
        for (int gi = 0; gi < 7; gi++) {
            double g = gaps[gi];
            pcase c = {0};
            snprintf(c.name, sizeof c.name, "%s %g%s", corner ? "corner" : "edge", g, tag);
            soup s = {0};
            box_fan(&s, V(0, 0, 0), V(1, 1, 1), 30);
            c.a = weld(&s, O);
            box_fan(&s, V(1, 1, corner ? 1 : 0), V(2, 2, corner ? 2 : 1), 23);
            c.b = weld(&s, O);
            c.pb = tpose(V(g, g, corner ? g : 0));
            c.depth = g < 0 ? -g : 0;
            v3 dir = corner ? V(1 / sqrt(3), 1 / sqrt(3), 1 / sqrt(3)) : V(1 / sqrt(2), 1 / sqrt(2), 0);
            c.sweep_dir = dir, c.sweep_len = g < 0 ? 0 : 0.5;
            c.toi = NAN;
            run_case(&c);
        }
}

static void scan_cases(const char *dir, const char *name, double off)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.obj", dir, name);
    kcbp_mesh *m;
    kcbp_error err;
    if (kcbp_mesh_load(path, &m, &err) != KCBP_OK) {
        printf("skip %s: %s\n", name, err.msg);
        return;
    }
    kcbp_aabb bb = kcbp_mesh_bounds(m);
    v3 ctr = kcbp_v3_scale(kcbp_v3_add(bb.min, bb.max), 0.5);
    double size = kcbp_v3_len(sub(bb.max, bb.min));
    uint32_t nv = kcbp_mesh_vertex_count(m), nt = kcbp_mesh_triangle_count(m);
    const v3 *mv = kcbp_mesh_vertices(m);
    v3 *w = malloc(nv * sizeof *w);
    const char *tag = off ? " @1e6" : "";
    v3 dir0 = unit(V(0.31, -0.52, 0.79));
    /* the scan, its copy scaled about ctr by (1 - sc), moved */
    /* area-weighted vertex normals */
    v3 *vn = calloc(nv, sizeof *vn);
    const kcbp_tri *mt = kcbp_mesh_triangles(m);
    for (uint32_t t = 0; t < nt; t++) {
        v3 n = kcbp_v3_cross(sub(mv[mt[t].v[1]], mv[mt[t].v[0]]), sub(mv[mt[t].v[2]], mv[mt[t].v[0]]));
        for (int q = 0; q < 3; q++)
            vn[mt[t].v[q]] = kcbp_v3_add(vn[mt[t].v[q]], n);
    }
    for (uint32_t j = 0; j < nv; j++) {
        double l = kcbp_v3_len(vn[j]);
        vn[j] = l > 0 ? kcbp_v3_scale(vn[j], 1 / l) : V(0, 0, 0);
    }
    const struct {
        const char *kind;
        double f;
    } k[] = {{"shift", 1e-12}, {"shift", 1e-9}, {"shift", 1e-6}, {"inset", 1e-3}, {"inset", 1e-6},
             {"inset", 1e-9}, {"scaled", 1e-3}, {"deep", 0.2}};
    for (int i = 0; i < 8; i++) {
        pcase c = {0};
        snprintf(c.name, sizeof c.name, "%s %s %g%s", name, k[i].kind, k[i].f, tag);
        double sc = k[i].kind[0] == 's' && k[i].kind[1] == 'c' ? 1 - k[i].f : 1;
        double in = k[i].kind[0] == 'i' ? k[i].f * size : 0;
        for (uint32_t j = 0; j < nv; j++)
            w[j] = kcbp_v3_add(kcbp_v3_sub(kcbp_v3_add(ctr, kcbp_v3_scale(sub(mv[j], ctr), sc)), kcbp_v3_scale(vn[j], in)),
                               V(off, off, off));
        kcbp_mesh *a, *b;
        for (uint32_t j = 0; j < nv; j++) {
            v3 p = kcbp_v3_add(mv[j], V(off, off, off));
            (void)p;
        }
        v3 *wa = malloc(nv * sizeof *wa);
        for (uint32_t j = 0; j < nv; j++)
            wa[j] = kcbp_v3_add(mv[j], V(off, off, off));
        if (kcbp_mesh_create(wa, nv, kcbp_mesh_triangles(m), nt, &a, &err) != KCBP_OK ||
            kcbp_mesh_create(w, nv, kcbp_mesh_triangles(m), nt, &b, &err) != KCBP_OK) {
            printf("skip %s: %s\n", name, err.msg);
            free(wa);
            continue;
        }
        free(wa);
        c.a = a, c.b = b;
        c.depth = NAN, c.toi = NAN;
        if (k[i].kind[0] == 's' && k[i].kind[1] == 'h') {
            c.pb = tpose(kcbp_v3_scale(dir0, k[i].f * size));
            c.sweep_dir = dir0, c.sweep_len = 1.5 * size;
        } else if (k[i].kind[0] == 'i' || k[i].kind[1] == 'c') {
            c.pb = kcbp_pose_identity();
        } else {
            /* turned by 90 degrees about z through the centre, moved by f * size */
            kcbp_pose r;
            v3 cw = kcbp_v3_add(ctr, V(off, off, off));
            kcbp_pose_from_axis_angle(V(0, 0, 0), V(0, 0, 1), 90, &r, &err);
            v3 rc = kcbp_pose_apply(&r, cw);
            r.trans = kcbp_v3_add(sub(cw, rc), kcbp_v3_scale(dir0, k[i].f * size));
            c.pb = r;
        }
        run_case(&c);
    }
    free(w);
    free(vn);
    kcbp_mesh_free(m);
}

int main(int argc, char **argv)
{
    const char *mesh_dir = "../meshes";
    int ai = 1;
    for (; ai < argc; ai++) {
        if (!strcmp(argv[ai], "-q"))
            quiet = 1;
        else if (!strcmp(argv[ai], "-w") && ai + 1 < argc)
            write_dir = argv[++ai];
        else
            mesh_dir = argv[ai];
    }
    if (write_dir) {
        char p[512];
        snprintf(p, sizeof p, "%s/cases.tsv", write_dir);
        write_list = fopen(p, "w");
        if (!write_list) {
            perror(p);
            return 3;
        }
    }
    const char *only = getenv("ONLY");
    if (!only || strstr(only, "cad")) {
        cad_cases(0);
        cad_cases(1e6);
    }
    const char *scans[] = {"spot", "bunny2", "cow", "homer", "woody", "rocker-arm", "fandisk", "suzanne"};
    for (int i = 0; i < 8; i++)
        if (!only || strstr(only, scans[i])) {
            scan_cases(mesh_dir, scans[i], 0);
            if (i < 3)
                scan_cases(mesh_dir, scans[i], 1e6);
        }
    printf("checks %ld, off %ld\n", checks, fails);
    return fails ? 1 : 0;
}
