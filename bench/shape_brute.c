/* shape_brute: the long-double referee of bench/shapes.sh for spheres and
 * capsules: at each pose, the distance from the shape's centre (a sphere)
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
 * Output: "# ..." lines, then one line per pose "POSE DISTANCE COLLIDE GAP":
 * max(0, min distance - r) (%.21Lg), whether it is <= 0, and the signed
 * gap min distance - r (negative: the shape's core is that much nearer than
 * r; a gap within about 1e-18 of the scale of 0 is not decided by this
 * referee).
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
    if (s.kind != KCBP_SHAPE_SPHERE && s.kind != KCBP_SHAPE_CAPSULE) {
        fprintf(stderr, "shape_brute: spheres and capsules only\n");
        return 2;
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
    printf("# pose distance collide gap\n");
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
        printf("%zu %.21Lg %d %.21Lg\n", p, d > 0 ? d : 0.0L, d <= 0, d);
    }
    free(tri);
    free(cen);
    free(rad);
    free(poses);
    kcbp_mesh_free(mesh);
    return 0;
}
