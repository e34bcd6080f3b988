/* brute_check: settles a disagreement between kcbp and a peer at one pose,
 * without any tree: every pair of triangles whose boxes come within MARGIN of
 * each other is examined.
 *
 * For each pose index given it prints
 *   - kcbp_collide's answer (contacts none),
 *   - how many triangle pairs kcbp_tri_intersect accepts, by brute force,
 *   - the minimum distance between the two surfaces, computed independently
 *     of kcbp_tri_intersect: 0 when an edge of one triangle crosses the other
 *     triangle, else the least of the 6 vertex-triangle and 9 edge-edge
 *     distances (so it is exact up to rounding for non-crossing pairs), and
 *     that distance relative to kcbp's tolerance.
 *
 * Usage: brute_check A.obj B.obj POSES MARGIN_REL POSE_INDEX...
 * (A at the identity, B at the pose; MARGIN_REL is relative to the larger
 * model scale, e.g. 1e-3.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

typedef kcbp_vec3 v3;

static v3 sub(v3 a, v3 b) { return kcbp_v3_sub(a, b); }
static double dot(v3 a, v3 b) { return kcbp_v3_dot(a, b); }
static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* Squared distance from p to triangle abc: minimise over the region of the
 * closest point (Voronoi regions of vertices, edges and the face). */
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
    if (!(fabs(denom) > 0)) { /* degenerate triangle: its three edges */
        double best = INFINITY;
        v3 e[3][2] = {{a, b}, {b, c}, {c, a}};
        for (int k = 0; k < 3; k++) {
            v3 d = sub(e[k][1], e[k][0]);
            double l2 = kcbp_v3_len2(d);
            double t = l2 > 0 ? clamp01(dot(sub(p, e[k][0]), d) / l2) : 0;
            double q = kcbp_v3_len2(sub(p, kcbp_v3_add(e[k][0], kcbp_v3_scale(d, t))));
            if (q < best)
                best = q;
        }
        return best;
    }
    double v = vb / denom, w = vc / denom;
    return kcbp_v3_len2(sub(p, kcbp_v3_add(a, kcbp_v3_add(kcbp_v3_scale(ab, v), kcbp_v3_scale(ac, w)))));
}

/* Squared distance between segments p1q1 and p2q2. */
static double seg_seg_d2(v3 p1, v3 q1, v3 p2, v3 q2)
{
    v3 d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    double a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    double s, t;
    if (a <= 0 && e <= 0)
        return dot(r, r);
    if (a <= 0) {
        s = 0;
        t = clamp01(f / e);
    } else {
        double c = dot(d1, r);
        if (e <= 0) {
            t = 0;
            s = clamp01(-c / a);
        } else {
            double b = dot(d1, d2), denom = a * e - b * b;
            s = denom > 0 ? clamp01((b * f - c * e) / denom) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = clamp01(-c / a);
            } else if (t > 1) {
                t = 1;
                s = clamp01((b - c) / a);
            }
        }
    }
    v3 c1 = kcbp_v3_add(p1, kcbp_v3_scale(d1, s)), c2 = kcbp_v3_add(p2, kcbp_v3_scale(d2, t));
    return kcbp_v3_len2(sub(c1, c2));
}

static double orient(v3 a, v3 b, v3 c, v3 d) { return dot(kcbp_v3_cross(sub(b, a), sub(c, a)), sub(d, a)); }

/* True when segment pq strictly crosses triangle abc (signs of volumes). */
static int seg_crosses_tri(v3 p, v3 q, v3 a, v3 b, v3 c)
{
    double sp = orient(a, b, c, p), sq = orient(a, b, c, q);
    if (!((sp > 0 && sq < 0) || (sp < 0 && sq > 0)))
        return 0;
    double s1 = orient(p, q, a, b), s2 = orient(p, q, b, c), s3 = orient(p, q, c, a);
    return (s1 > 0 && s2 > 0 && s3 > 0) || (s1 < 0 && s2 < 0 && s3 < 0);
}

static double tri_tri_dist(const v3 a[3], const v3 b[3])
{
    for (int k = 0; k < 3; k++)
        if (seg_crosses_tri(a[k], a[(k + 1) % 3], b[0], b[1], b[2]) ||
            seg_crosses_tri(b[k], b[(k + 1) % 3], a[0], a[1], a[2]))
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
} tri_item;

static int cmp_min_x(const void *x, const void *y)
{
    const tri_item *p = x, *q = y;
    return (p->box.min.x > q->box.min.x) - (p->box.min.x < q->box.min.x);
}

static tri_item *posed_tris(const kcbp_mesh *m, const kcbp_pose *pose, double *max_width)
{
    tri_item *t = malloc(kcbp_mesh_triangle_count(m) * sizeof *t);
    if (!t)
        return NULL;
    *max_width = 0;
    const kcbp_vec3 *mv = kcbp_mesh_vertices(m);
    const kcbp_tri *mt = kcbp_mesh_triangles(m);
    uint32_t nt = kcbp_mesh_triangle_count(m);
    for (uint32_t i = 0; i < nt; i++) {
        for (int k = 0; k < 3; k++)
            t[i].v[k] = kcbp_pose_apply(pose, mv[mt[i].v[k]]);
        t[i].box.min = kcbp_v3_min(t[i].v[0], kcbp_v3_min(t[i].v[1], t[i].v[2]));
        t[i].box.max = kcbp_v3_max(t[i].v[0], kcbp_v3_max(t[i].v[1], t[i].v[2]));
        t[i].id = i;
        *max_width = fmax(*max_width, t[i].box.max.x - t[i].box.min.x);
    }
    qsort(t, nt, sizeof *t, cmp_min_x);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s A.obj B.obj POSES MARGIN_REL POSE_INDEX...\n", argv[0]);
        return 2;
    }
    kcbp_error err;
    kcbp_model ma, mb;
    kcbp_pose *poses;
    size_t nposes;
    if (kcbp_model_load(&ma, argv[1], NULL, &err) != KCBP_OK || kcbp_model_load(&mb, argv[2], NULL, &err) != KCBP_OK ||
        kcbp_pose_load_file(argv[3], &poses, &nposes, &err) != KCBP_OK) {
        fprintf(stderr, "brute_check: %s\n", err.msg);
        return 3;
    }
    double margin = atof(argv[4]) * fmax(kcbp_model_scale(&ma), kcbp_model_scale(&mb));
    uint32_t nta = kcbp_mesh_triangle_count(kcbp_model_mesh(&ma)), ntb = kcbp_mesh_triangle_count(kcbp_model_mesh(&mb));
    kcbp_pose id = kcbp_pose_identity();
    double wa;
    tri_item *ta = posed_tris(kcbp_model_mesh(&ma), &id, &wa);
    kcbp_collide_options opts = {.contacts = KCBP_CONTACTS_NONE};
    kcbp_collide_result res = {0};
    for (int ai = 5; ai < argc; ai++) {
        long pi = strtol(argv[ai], NULL, 10);
        if (pi < 0 || (size_t)pi >= nposes) {
            fprintf(stderr, "brute_check: no pose %ld\n", pi);
            return 2;
        }
        const kcbp_pose *pb = &poses[pi];
        double wb;
        tri_item *tb = posed_tris(kcbp_model_mesh(&mb), pb, &wb);
        if (!ta || !tb) {
            fprintf(stderr, "brute_check: out of memory\n");
            return 4;
        }
        kcbp_pose b_in_a = kcbp_pose_relative(&id, pb);
        /* The box padding kcbp_collide gives its trees (model.c, kcbp_pair_tolerance). */
        double eps = kcbp_tri_tolerance(fmax(kcbp_model_scale(&ma), kcbp_model_scale(&mb) + kcbp_v3_len(b_in_a.trans)));
        if (kcbp_collide(&ma, &id, &mb, pb, &opts, &res, &err) != KCBP_OK) {
            fprintf(stderr, "brute_check: %s\n", err.msg);
            return 3;
        }
        /* Sweep along x: B's triangles sorted by min x. */
        uint64_t pairs = 0, hits = 0, crossing = 0;
        double dmin = INFINITY;
        uint32_t best_a = 0, best_b = 0, hit_a = 0, hit_b = 0;
        size_t start = 0;
        for (uint32_t i = 0; i < nta; i++) {
            const tri_item *x = &ta[i];
            double lo = x->box.min.x - margin - wb, hi = x->box.max.x + margin;
            while (start < ntb && tb[start].box.min.x < lo)
                start++;
            for (size_t j = start; j < ntb && tb[j].box.min.x <= hi; j++) {
                const tri_item *y = &tb[j];
                if (y->box.max.x < x->box.min.x - margin || y->box.min.y > x->box.max.y + margin ||
                    y->box.max.y < x->box.min.y - margin || y->box.min.z > x->box.max.z + margin ||
                    y->box.max.z < x->box.min.z - margin)
                    continue;
                pairs++;
                if (kcbp_tri_intersect(x->v, y->v, eps)) {
                    if (!hits)
                        hit_a = x->id, hit_b = y->id;
                    hits++;
                }
                double d = tri_tri_dist(x->v, y->v);
                if (d == 0)
                    crossing++;
                if (d < dmin)
                    dmin = d, best_a = x->id, best_b = y->id;
            }
        }
        printf("pose %ld: kcbp %s | brute kcbp_tri_intersect: %llu of %llu pairs within margin %.3g (first [%u,%u])"
               " | crossing pairs %llu | min distance %.6g = %.3g x eps (eps %.3g) at [%u,%u]\n",
               pi, res.collide ? "collide" : "apart", (unsigned long long)hits, (unsigned long long)pairs, margin,
               hit_a, hit_b, (unsigned long long)crossing, dmin, dmin / eps, eps, best_a, best_b);
        free(tb);
    }
    free(ta);
    free(poses);
    kcbp_collide_result_free(&res);
    kcbp_model_free(&ma);
    kcbp_model_free(&mb);
    return 0;
}
