/* shape_brute: the referee of bench/shapes.sh, over every triangle of the
 * mesh, by methods the library's shape queries do not use.
 *
 * Spheres and capsules, in long double: at each pose, the distance from the shape's centre (a sphere)
 * or segment (a capsule) to every triangle of the mesh, in long double,
 * independently of the library's code: the distance between two simplices
 * (a point or a segment, and a triangle) as the smallest over every pair of
 * their faces of the unconstrained minimum on the pair's affine hulls, kept
 * when it lies in both (a convex quadratic program's minimum is one of
 * these). The mesh is at the identity; the shape at the pose, its centre or
 * segment ends made from the pose's double rotation and translation (as
 * kcbp_pose_load_file reads them) in long double. A triangle is skipped
 * only when a lower bound (its centroid's distance less its radius) already
 * exceeds the best distance found.
 *
 * Boxes: the box's surface as its 12 face triangles, posed (kcbp_pose_apply):
 * a triangle meets the solid box when it meets a face triangle (the exact
 * kcbp_tri_intersect) or a vertex lies inside (the vertex carried into the
 * box's frame, compared); apart, its distance is the least
 * kcbp_tri_distance to the face triangles (accurate to 1e-12 of the
 * coordinates, distance.h): not the library's box path (GJK and a
 * separating-axis test).
 *
 * Cylinders: prisms inscribed in and circumscribed about it (2048 sides,
 * the outer one's radius r / cos(pi / 2048)), GJK on their vertices against
 * each triangle: the cylinder's distance lies between the outer prism's and
 * the inner one's (a relative gap of 1.2e-6 of r), and a triangle meeting
 * the inner prism meets the cylinder; not the library's cylinder path (GJK
 * on its support function).
 *
 * Output: "# ..." lines, then one line per pose "POSE LO HI COLLIDE": the
 * distance between lo and hi (equal but for cylinders; %.21Lg), COLLIDE 1,
 * 0, or -1 when this referee cannot tell (a sphere's or a capsule's gap
 * within 1e-18 of the scale of 0, a cylinder touching its outer prism but
 * not its inner one).
 *
 * Usage: shape_brute MESH SHAPE POSES */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kcbp/kcbp.h>

typedef long double ld;
typedef struct {
    ld x[3];
} lv;

static lv lv_of(kcbp_vec3 v) { return (lv){{v.x, v.y, v.z}}; }
static lv sub(lv a, lv b) { return (lv){{a.x[0] - b.x[0], a.x[1] - b.x[1], a.x[2] - b.x[2]}}; }
static ld dot(lv a, lv b) { return a.x[0] * b.x[0] + a.x[1] * b.x[1] + a.x[2] * b.x[2]; }

static int solve(ld m[3][3], ld r[3], int n, ld z[3])
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabsl(m[i][c]) > fabsl(m[p][c]))
                p = i;
        if (!(fabsl(m[p][c]) > 1e-300L))
            return 0;
        for (int j = 0; j < n; j++) {
            ld t = m[c][j];
            m[c][j] = m[p][j];
            m[p][j] = t;
        }
        ld t = r[c];
        r[c] = r[p];
        r[p] = t;
        for (int i = c + 1; i < n; i++) {
            ld f = m[i][c] / m[c][c];
            for (int j = c; j < n; j++)
                m[i][j] -= f * m[c][j];
            r[i] -= f * r[c];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        ld s = r[i];
        for (int j = i + 1; j < n; j++)
            s -= m[i][j] * z[j];
        z[i] = s / m[i][i];
    }
    return 1;
}

/* The squared distance between conv(P[0..np)) and conv(Q[0..nq)). */
static ld dist2(const lv *P, int np, const lv *Q, int nq)
{
    ld best = -1;
    for (int si = 1; si < (1 << np); si++)
        for (int sj = 1; sj < (1 << nq); sj++) {
            lv a[3], b[3];
            int na = 0, nb = 0;
            for (int i = 0; i < np; i++)
                if (si >> i & 1)
                    a[na++] = P[i];
            for (int j = 0; j < nq; j++)
                if (sj >> j & 1)
                    b[nb++] = Q[j];
            lv col[3], w0 = sub(a[0], b[0]);
            int n = 0;
            for (int i = 1; i < na; i++)
                col[n++] = sub(a[i], a[0]);
            for (int j = 1; j < nb; j++)
                col[n++] = sub(b[0], b[j]);
            ld z[3] = {0, 0, 0};
            if (n > 3)
                continue;
            if (n > 0) {
                ld m[3][3], r[3];
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++)
                        m[i][j] = dot(col[i], col[j]);
                    r[i] = -dot(col[i], w0);
                }
                if (!solve(m, r, n, z))
                    continue;
                ld s = 0;
                int ok = 1;
                for (int i = 0; i < na - 1; i++)
                    ok &= z[i] >= 0, s += z[i];
                ok &= s <= 1;
                s = 0;
                for (int j = na - 1; j < n; j++)
                    ok &= z[j] >= 0, s += z[j];
                ok &= s <= 1;
                if (!ok)
                    continue;
            }
            lv d = w0;
            for (int i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    d.x[k] += z[i] * col[i].x[k];
            ld d2 = dot(d, d);
            if (best < 0 || d2 < best)
                best = d2;
        }
    return best;
}

/* The distance from point p to segment [a, b], in long double (for the
 * lower bounds only). */
static ld point_seg(lv p, lv a, lv b)
{
    lv e = sub(b, a), w = sub(p, a);
    ld ee = dot(e, e), t = ee > 0 ? dot(w, e) / ee : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    lv c = {{a.x[0] + t * e.x[0], a.x[1] + t * e.x[1], a.x[2] + t * e.x[2]}};
    lv d = sub(p, c);
    return sqrtl(dot(d, d));
}

/* The distance between triangle t and the polytope of pts (GJK on both
 * vertex sets), 0 when they overlap. */
static double gjk_tri(const kcbp_vec3 t[3], const kcbp_convex *poly, bool *overlap)
{
    kcbp_convex tc = kcbp_convex_polytope(t, 3, NULL, NULL, 0);
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_result g;
    kcbp_gjk_distance(&tc, poly, NULL, NULL, &cache, &g);
    *overlap = g.status == KCBP_GJK_OVERLAPPING;
    return g.status == KCBP_GJK_OVERLAPPING ? 0 : g.status == KCBP_GJK_HIT_CAP ? g.distance_lower : g.distance;
}

/* Boxes and cylinders (see the top of the file). */
static void polytopes(const kcbp_mesh *mesh, const kcbp_shape *s, const kcbp_pose *poses, size_t nposes, const lv *cen,
                      const ld *rad)
{
    enum { N = 2048 };
    static kcbp_vec3 inner[2 * N], outer[2 * N];
    uint32_t nt = kcbp_mesh_triangle_count(mesh);
    const kcbp_vec3 *v = kcbp_mesh_vertices(mesh);
    const kcbp_tri *t = kcbp_mesh_triangles(mesh);
    bool box = s->kind == KCBP_SHAPE_BOX;
    kcbp_vec3 h = box ? kcbp_v3_scale(s->size, 0.5) : kcbp_v3(s->radius, s->radius, s->length / 2);
    double reach = box ? kcbp_v3_len(h) : hypot(s->radius / cos(M_PI / N), s->length / 2);
    for (size_t p = 0; p < nposes; p++) {
        const kcbp_pose *q = &poses[p];
        kcbp_pose to_shape = kcbp_pose_inverse(q);
        kcbp_vec3 faces[12][3];
        kcbp_convex ci, co;
        if (box) {
            kcbp_vec3 c[8];
            for (int i = 0; i < 8; i++)
                c[i] = kcbp_pose_apply(q, kcbp_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
            static const int f[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
            for (int i = 0; i < 6; i++) {
                faces[2 * i][0] = c[f[i][0]], faces[2 * i][1] = c[f[i][1]], faces[2 * i][2] = c[f[i][2]];
                faces[2 * i + 1][0] = c[f[i][0]], faces[2 * i + 1][1] = c[f[i][2]], faces[2 * i + 1][2] = c[f[i][3]];
            }
        } else {
            double ro = s->radius / cos(M_PI / N);
            for (int k = 0; k < N; k++) {
                double a = 2 * M_PI * k / N, ca = cos(a), sa = sin(a);
                for (int z = 0; z < 2; z++) {
                    double hz = z ? h.z : -h.z;
                    inner[2 * k + z] = kcbp_pose_apply(q, kcbp_v3(s->radius * ca, s->radius * sa, hz));
                    outer[2 * k + z] = kcbp_pose_apply(q, kcbp_v3(ro * ca, ro * sa, hz));
                }
            }
            ci = kcbp_convex_polytope(inner, 2 * N, NULL, NULL, 0);
            co = kcbp_convex_polytope(outer, 2 * N, NULL, NULL, 0);
        }
        double lo = INFINITY, hi = INFINITY;
        int hit = 0, maybe = 0;
        lv qc = {{q->trans.x, q->trans.y, q->trans.z}};
        for (uint32_t i = 0; i < nt; i++) {
            /* skipped when even the shape's enclosing ball is farther than
             * the upper bound so far */
            lv d = sub(cen[i], qc);
            if (sqrtl(dot(d, d)) - rad[i] - reach > (ld)hi * (1 + 1e-9L) + 1e-300L)
                continue;
            kcbp_vec3 tv[3] = {v[t[i].v[0]], v[t[i].v[1]], v[t[i].v[2]]};
            if (box) {
                bool meet = false;
                for (int k = 0; k < 3 && !meet; k++) {
                    kcbp_vec3 b = kcbp_pose_apply(&to_shape, tv[k]);
                    meet = fabs(b.x) <= h.x && fabs(b.y) <= h.y && fabs(b.z) <= h.z;
                }
                double best = INFINITY;
                for (int f = 0; f < 12 && !meet; f++) {
                    meet = kcbp_tri_intersect(faces[f], tv, 0);
                    double dd = kcbp_tri_distance(faces[f], tv, NULL, NULL);
                    best = dd < best ? dd : best;
                }
                if (meet)
                    best = 0;
                hit |= meet;
                lo = best < lo ? best : lo;
                hi = lo;
            } else {
                bool oi, oo;
                double di = gjk_tri(tv, &ci, &oi), dout = gjk_tri(tv, &co, &oo);
                hit |= oi;
                maybe |= oo;
                hi = di < hi ? di : hi;
                lo = dout < lo ? dout : lo;
            }
        }
        int collide = hit ? 1 : (box || !maybe) ? 0 : -1;
        printf("%zu %.21Lg %.21Lg %d\n", p, (long double)lo, (long double)hi, collide);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s MESH SHAPE POSES\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_mesh *mesh;
    kcbp_pose *poses;
    size_t nposes;
    kcbp_shape s;
    if (kcbp_mesh_load(argv[1], &mesh, &err) != KCBP_OK || kcbp_shape_parse(argv[2], &s, &err) != KCBP_OK ||
        kcbp_pose_load_file(argv[3], &poses, &nposes, &err) != KCBP_OK) {
        fprintf(stderr, "shape_brute: %s\n", err.msg);
        return 3;
    }
    uint32_t nt = kcbp_mesh_triangle_count(mesh);
    const kcbp_vec3 *v = kcbp_mesh_vertices(mesh);
    const kcbp_tri *t = kcbp_mesh_triangles(mesh);
    lv *tri = malloc((size_t)nt * 3 * sizeof *tri);
    lv *cen = malloc((size_t)nt * sizeof *cen);
    ld *rad = malloc((size_t)nt * sizeof *rad);
    if (!tri || !cen || !rad)
        return 4;
    for (uint32_t i = 0; i < nt; i++) {
        for (int k = 0; k < 3; k++)
            tri[3 * i + k] = lv_of(v[t[i].v[k]]);
        for (int c = 0; c < 3; c++)
            cen[i].x[c] = (tri[3 * i].x[c] + tri[3 * i + 1].x[c] + tri[3 * i + 2].x[c]) / 3;
        rad[i] = 0;
        for (int k = 0; k < 3; k++) {
            lv d = sub(tri[3 * i + k], cen[i]);
            ld l = sqrtl(dot(d, d));
            rad[i] = l > rad[i] ? l : rad[i];
        }
    }
    printf("# shape_brute %s (%u triangles) %s %s: %zu poses, long double\n", argv[1], nt, argv[2], argv[3], nposes);
    printf("# pose lo hi collide\n");
    if (s.kind == KCBP_SHAPE_BOX || s.kind == KCBP_SHAPE_CYLINDER) {
        polytopes(mesh, &s, poses, nposes, cen, rad);
        free(tri);
        free(cen);
        free(rad);
        free(poses);
        kcbp_mesh_free(mesh);
        return 0;
    }
    for (size_t p = 0; p < nposes; p++) {
        const kcbp_pose *q = &poses[p];
        lv core[2];
        int nc = s.kind == KCBP_SHAPE_SPHERE ? 1 : 2;
        for (int e = 0; e < nc; e++) {
            ld z = nc == 1 ? 0 : (e ? (ld)s.length / 2 : -(ld)s.length / 2);
            for (int c = 0; c < 3; c++)
                core[e].x[c] = (ld)q->rot.m[c][2] * z + (c == 0 ? q->trans.x : c == 1 ? q->trans.y : q->trans.z);
        }
        ld best = INFINITY;
        for (uint32_t i = 0; i < nt; i++) {
            ld lb = (nc == 1 ? point_seg(cen[i], core[0], core[0]) : point_seg(cen[i], core[0], core[1])) - rad[i];
            if (lb > best)
                continue;
            ld d = sqrtl(dist2(core, nc, &tri[3 * i], 3));
            best = d < best ? d : best;
        }
        ld d = best - (ld)s.radius;
        ld band = 1e-18L * (fabsl(core[0].x[0]) + fabsl(core[0].x[1]) + fabsl(core[0].x[2]) + 1);
        printf("%zu %.21Lg %.21Lg %d\n", p, d > 0 ? d : 0.0L, d > 0 ? d : 0.0L, fabsl(d) <= band ? -1 : d <= 0);
    }
    free(tri);
    free(cen);
    free(rad);
    free(poses);
    kcbp_mesh_free(mesh);
    return 0;
}
