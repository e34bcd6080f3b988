#include "bv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kcbp/gjk.h>

#include "eval_util.h"

void kcbp_bv_free(kcbp_bv *bv)
{
    if (!bv)
        return;
    free(bv->points);
    kcbp_cbp_free(bv->cbp);
    kcbp_convex_hull_free(bv->hull);
    memset(bv, 0, sizeof *bv);
}

/* ---- sphere -------------------------------------------------------------- */

typedef struct {
    kcbp_vec3 c;
    double r2; /* squared radius */
} ball;

static bool in_ball(const ball *b, kcbp_vec3 p)
{
    /* a relative slack, so that rounding does not restart the loops on the
     * support points themselves; the final radius is recomputed anyway */
    return kcbp_v3_len2(kcbp_v3_sub(p, b->c)) <= b->r2 * (1 + 1e-12) + 1e-300;
}

static ball ball2(kcbp_vec3 p, kcbp_vec3 q)
{
    ball b;
    b.c = kcbp_v3_scale(kcbp_v3_add(p, q), 0.5);
    b.r2 = 0.25 * kcbp_v3_len2(kcbp_v3_sub(p, q));
    return b;
}

/* The smallest ball with p, q, r on its boundary: the circumcircle's. */
static ball ball3(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r)
{
    kcbp_vec3 a = kcbp_v3_sub(q, p), b = kcbp_v3_sub(r, p), n = kcbp_v3_cross(a, b);
    double n2 = kcbp_v3_len2(n);
    if (!(n2 > 1e-24 * kcbp_v3_len2(a) * kcbp_v3_len2(b))) { /* collinear: the widest pair */
        ball x = ball2(p, q), y = ball2(p, r), z = ball2(q, r);
        return x.r2 >= y.r2 && x.r2 >= z.r2 ? x : y.r2 >= z.r2 ? y : z;
    }
    kcbp_vec3 o = kcbp_v3_add(kcbp_v3_scale(kcbp_v3_cross(n, a), kcbp_v3_len2(b)),
                              kcbp_v3_scale(kcbp_v3_cross(b, n), kcbp_v3_len2(a)));
    o = kcbp_v3_scale(o, 0.5 / n2);
    ball bl = {kcbp_v3_add(p, o), kcbp_v3_len2(o)};
    return bl;
}

/* The ball through p, q, r, s (their circumsphere); when they are nearly
 * coplanar, the smallest of the three-point balls that holds the fourth. */
static ball ball4(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r, kcbp_vec3 s)
{
    kcbp_vec3 a = kcbp_v3_sub(q, p), b = kcbp_v3_sub(r, p), c = kcbp_v3_sub(s, p);
    double det = kcbp_v3_dot(a, kcbp_v3_cross(b, c));
    double size = sqrt(kcbp_v3_len2(a) * kcbp_v3_len2(b) * kcbp_v3_len2(c));
    if (fabs(det) > 1e-12 * size) {
        kcbp_vec3 o = kcbp_v3_add(kcbp_v3_add(kcbp_v3_scale(kcbp_v3_cross(b, c), kcbp_v3_len2(a)),
                                              kcbp_v3_scale(kcbp_v3_cross(c, a), kcbp_v3_len2(b))),
                                  kcbp_v3_scale(kcbp_v3_cross(a, b), kcbp_v3_len2(c)));
        o = kcbp_v3_scale(o, 0.5 / det);
        ball bl = {kcbp_v3_add(p, o), kcbp_v3_len2(o)};
        return bl;
    }
    ball cand[4] = {ball3(p, q, r), ball3(p, q, s), ball3(p, r, s), ball3(q, r, s)};
    kcbp_vec3 pts[4] = {p, q, r, s};
    int best = -1;
    for (int i = 0; i < 4; i++) {
        bool all = true;
        for (int j = 0; j < 4; j++)
            all = all && in_ball(&cand[i], pts[j]);
        if (all && (best < 0 || cand[i].r2 < cand[best].r2))
            best = i;
    }
    if (best >= 0)
        return cand[best];
    ball w = cand[0]; /* cannot happen for four points; the widest is safe */
    for (int i = 1; i < 4; i++)
        if (cand[i].r2 > w.r2)
            w = cand[i];
    return w;
}

static kcbp_status build_sphere(kcbp_bv *bv, const kcbp_mesh *m, kcbp_error *err)
{
    uint32_t n = kcbp_mesh_vertex_count(m);
    kcbp_vec3 *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a sphere of %u points", n);
    memcpy(p, kcbp_mesh_vertices(m), (size_t)n * sizeof *p);
    /* A fixed shuffle (xorshift64*): the expected time is linear in n. */
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = n; i > 1; i--) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint32_t j = (uint32_t)((((s * 2685821657736338717ull) >> 32) * (uint64_t)i) >> 32);
        kcbp_vec3 t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
    ball b = {p[0], 0};
    for (uint32_t i = 1; i < n; i++) {
        if (in_ball(&b, p[i]))
            continue;
        b.c = p[i];
        b.r2 = 0;
        for (uint32_t j = 0; j < i; j++) {
            if (in_ball(&b, p[j]))
                continue;
            b = ball2(p[i], p[j]);
            for (uint32_t k = 0; k < j; k++) {
                if (in_ball(&b, p[k]))
                    continue;
                b = ball3(p[i], p[j], p[k]);
                for (uint32_t l = 0; l < k; l++)
                    if (!in_ball(&b, p[l]))
                        b = ball4(p[i], p[j], p[k], p[l]);
            }
        }
    }
    double r2 = 0;
    for (uint32_t i = 0; i < n; i++)
        r2 = fmax(r2, kcbp_v3_len2(kcbp_v3_sub(p[i], b.c)));
    free(p);
    bv->center = b.c;
    bv->radius = sqrt(r2);
    bv->volume = 4.0 / 3.0 * M_PI * r2 * bv->radius;
    return KCBP_OK;
}

/* ---- oriented box -------------------------------------------------------- */

/* The half-sizes and centre of the points' box along the columns of axes. */
static double fit_box(const kcbp_mesh *m, const kcbp_mat3 *axes, kcbp_vec3 *center, kcbp_vec3 *extent)
{
    kcbp_vec3 lo = kcbp_v3(INFINITY, INFINITY, INFINITY), hi = kcbp_v3(-INFINITY, -INFINITY, -INFINITY);
    for (uint32_t i = 0; i < kcbp_mesh_vertex_count(m); i++) {
        kcbp_vec3 t = kcbp_mat3_tmul_v3(axes, kcbp_mesh_vertices(m)[i]);
        lo = kcbp_v3_min(lo, t);
        hi = kcbp_v3_max(hi, t);
    }
    *center = kcbp_mat3_mul_v3(axes, kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5));
    *extent = kcbp_v3_scale(kcbp_v3_sub(hi, lo), 0.5);
    return 8 * extent->x * extent->y * extent->z;
}

static void build_obb(kcbp_bv *bv, const kcbp_mesh *m)
{
    /* Area-weighted second moments of the triangles about the origin:
     * for a triangle of area A, vertices p, q, r and centroid g,
     * A / 12 (9 g g^T + p p^T + q q^T + r r^T). */
    double mom[3][3] = {{0}}, area = 0;
    kcbp_vec3 sum = kcbp_v3(0, 0, 0);
    for (uint32_t t = 0; t < kcbp_mesh_triangle_count(m); t++) {
        kcbp_vec3 p = kcbp_mesh_vertices(m)[kcbp_mesh_triangles(m)[t].v[0]], q = kcbp_mesh_vertices(m)[kcbp_mesh_triangles(m)[t].v[1]],
                  r = kcbp_mesh_vertices(m)[kcbp_mesh_triangles(m)[t].v[2]];
        double a = 0.5 * kcbp_v3_len(kcbp_v3_cross(kcbp_v3_sub(q, p), kcbp_v3_sub(r, p)));
        if (!(a > 0))
            continue;
        kcbp_vec3 g = kcbp_v3_scale(kcbp_v3_add(kcbp_v3_add(p, q), r), 1.0 / 3.0);
        double gv[3] = {g.x, g.y, g.z}, pv[3] = {p.x, p.y, p.z}, qv[3] = {q.x, q.y, q.z}, rv[3] = {r.x, r.y, r.z};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                mom[i][j] += a / 12.0 * (9 * gv[i] * gv[j] + pv[i] * pv[j] + qv[i] * qv[j] + rv[i] * rv[j]);
        sum = kcbp_v3_add(sum, kcbp_v3_scale(g, a));
        area += a;
    }
    if (!(area > 0)) { /* no area: the vertices, equally weighted */
        memset(mom, 0, sizeof mom);
        sum = kcbp_v3(0, 0, 0);
        for (uint32_t i = 0; i < kcbp_mesh_vertex_count(m); i++) {
            kcbp_vec3 p = kcbp_mesh_vertices(m)[i];
            double pv[3] = {p.x, p.y, p.z};
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    mom[a][b] += pv[a] * pv[b];
            sum = kcbp_v3_add(sum, p);
        }
        area = kcbp_mesh_vertex_count(m);
    }
    kcbp_vec3 mu = kcbp_v3_scale(sum, 1.0 / area);
    double muv[3] = {mu.x, mu.y, mu.z}, cov[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            cov[i][j] = mom[i][j] / area - muv[i] * muv[j];
    kcbp_mat3 axes, covm;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            covm.m[i][j] = cov[i][j];
    kcbp_mat3_sym_eigen(&covm, &axes, NULL);
    /* right-handed: the third axis is the cross product of the first two */
    kcbp_vec3 x = kcbp_v3(axes.m[0][0], axes.m[1][0], axes.m[2][0]);
    kcbp_vec3 y = kcbp_v3(axes.m[0][1], axes.m[1][1], axes.m[2][1]);
    kcbp_vec3 z = kcbp_v3_cross(x, y);
    axes.m[0][2] = z.x;
    axes.m[1][2] = z.y;
    axes.m[2][2] = z.z;
    kcbp_vec3 c, e;
    double vol = fit_box(m, &axes, &c, &e);
    kcbp_mat3 id = kcbp_mat3_identity();
    kcbp_vec3 c0, e0;
    double vol0 = fit_box(m, &id, &c0, &e0);
    if (vol0 <= vol) {
        axes = id;
        c = c0;
        e = e0;
        vol = vol0;
    }
    bv->axes = axes;
    bv->obb_center = c;
    bv->obb_extent = e;
    bv->volume = vol;
}

/* ---- building ------------------------------------------------------------ */

static double box_volume(kcbp_aabb b)
{
    kcbp_vec3 e = kcbp_v3_sub(b.max, b.min);
    return e.x * e.y * e.z;
}

kcbp_status kcbp_bv_build(kcbp_bv *bv, const kcbp_bv_spec *spec, const kcbp_mesh *m, kcbp_error *err)
{
    memset(bv, 0, sizeof *bv);
    if (!m || kcbp_mesh_vertex_count(m) == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "no mesh to bound");
    bv->spec = *spec;
    double t0 = eval_now_ms();
    kcbp_status st = KCBP_OK;
    switch (spec->kind) {
    case KCBP_BV_SPHERE: st = build_sphere(bv, m, err); break;
    case KCBP_BV_AABB:
        bv->points = malloc((size_t)kcbp_mesh_vertex_count(m) * sizeof *bv->points);
        if (!bv->points) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for %u points", kcbp_mesh_vertex_count(m));
            break;
        }
        memcpy(bv->points, kcbp_mesh_vertices(m), (size_t)kcbp_mesh_vertex_count(m) * sizeof *bv->points);
        bv->npoints = kcbp_mesh_vertex_count(m);
        bv->box = kcbp_mesh_bounds(m);
        bv->volume = box_volume(kcbp_mesh_bounds(m));
        break;
    case KCBP_BV_AABB_POSED:
        bv->box = kcbp_mesh_bounds(m);
        bv->volume = box_volume(kcbp_mesh_bounds(m));
        break;
    case KCBP_BV_OBB: build_obb(bv, m); break;
    case KCBP_BV_KDOP:
    case KCBP_BV_CBP:
        st = kcbp_cbp_build(kcbp_mesh_vertices(m), kcbp_mesh_vertex_count(m), spec->k, spec->kind == KCBP_BV_KDOP ? KCBP_DIRS_KDOP : spec->dirs,
                            &bv->cbp, err);
        if (st == KCBP_OK) {
            /* scanned, as in kcbp_collide: see the note on climbing there */
            bv->shape = kcbp_convex_polytope(kcbp_cbp_vertices(bv->cbp), kcbp_cbp_vertex_count(bv->cbp), NULL, NULL, 0);
            bv->volume = kcbp_cbp_volume(bv->cbp);
        }
        break;
    case KCBP_BV_HULL:
        st = kcbp_convex_hull_build(kcbp_mesh_vertices(m), kcbp_mesh_vertex_count(m), &bv->hull, err);
        if (st == KCBP_OK) {
            bv->shape = kcbp_convex_hull_shape(bv->hull);
            bv->volume = kcbp_convex_hull_volume(bv->hull);
        }
        break;
    default: st = kcbp_error_set(err, KCBP_ERR_INVALID, "unknown bounding volume kind %d", (int)spec->kind);
    }
    if (st != KCBP_OK) {
        kcbp_bv_free(bv);
        return st;
    }
    bv->build_ms = eval_now_ms() - t0;
    return KCBP_OK;
}

/* ---- posed volumes ------------------------------------------------------- */

static kcbp_aabb points_box(const kcbp_vec3 *p, uint32_t n, const kcbp_pose *pose)
{
    kcbp_vec3 q = kcbp_pose_apply(pose, p[0]);
    kcbp_aabb b = {q, q};
    for (uint32_t i = 1; i < n; i++) {
        q = kcbp_pose_apply(pose, p[i]);
        b.min = kcbp_v3_min(b.min, q);
        b.max = kcbp_v3_max(b.max, q);
    }
    return b;
}

/* The world box of an oriented box: centre c, half-sizes e along the columns
 * of rot (Arvo). */
static kcbp_aabb oriented_box(kcbp_vec3 c, const kcbp_mat3 *rot, kcbp_vec3 e)
{
    kcbp_vec3 w;
    w.x = fabs(rot->m[0][0]) * e.x + fabs(rot->m[0][1]) * e.y + fabs(rot->m[0][2]) * e.z;
    w.y = fabs(rot->m[1][0]) * e.x + fabs(rot->m[1][1]) * e.y + fabs(rot->m[1][2]) * e.z;
    w.z = fabs(rot->m[2][0]) * e.x + fabs(rot->m[2][1]) * e.y + fabs(rot->m[2][2]) * e.z;
    kcbp_aabb b = {kcbp_v3_sub(c, w), kcbp_v3_add(c, w)};
    return b;
}

kcbp_aabb kcbp_bv_world_box(const kcbp_bv *bv, const kcbp_pose *pose)
{
    switch (bv->spec.kind) {
    case KCBP_BV_SPHERE: {
        kcbp_vec3 c = kcbp_pose_apply(pose, bv->center), r = kcbp_v3(bv->radius, bv->radius, bv->radius);
        kcbp_aabb b = {kcbp_v3_sub(c, r), kcbp_v3_add(c, r)};
        return b;
    }
    case KCBP_BV_AABB_POSED:
        return oriented_box(kcbp_pose_apply(pose, kcbp_aabb_center(bv->box)), &pose->rot,
                            kcbp_aabb_extent(bv->box));
    case KCBP_BV_OBB: {
        kcbp_mat3 r = kcbp_mat3_mul(&pose->rot, &bv->axes);
        return oriented_box(kcbp_pose_apply(pose, bv->obb_center), &r, bv->obb_extent);
    }
    case KCBP_BV_AABB: return points_box(bv->points, bv->npoints, pose);
    case KCBP_BV_HULL:
        return points_box(kcbp_convex_hull_vertices(bv->hull), kcbp_convex_hull_vertex_count(bv->hull), pose);
    case KCBP_BV_KDOP:
    case KCBP_BV_CBP: return points_box(kcbp_cbp_vertices(bv->cbp), kcbp_cbp_vertex_count(bv->cbp), pose);
    }
    kcbp_aabb none = {kcbp_v3(0, 0, 0), kcbp_v3(0, 0, 0)};
    return none;
}

static bool boxes_touch(kcbp_aabb a, kcbp_aabb b, double margin)
{
    kcbp_vec3 m = kcbp_v3(margin, margin, margin);
    a.min = kcbp_v3_sub(a.min, m);
    a.max = kcbp_v3_add(a.max, m);
    return kcbp_aabb_overlap(a, b);
}

/* Separating-axis test of two oriented boxes given in world coordinates. */
static bool obbs_touch(kcbp_vec3 ca, const kcbp_mat3 *ra, kcbp_vec3 ea, kcbp_vec3 cb, const kcbp_mat3 *rb,
                       kcbp_vec3 eb, double margin)
{
    kcbp_vec3 a[3], b[3];
    double xa[3] = {ea.x, ea.y, ea.z}, xb[3] = {eb.x, eb.y, eb.z};
    for (int i = 0; i < 3; i++) {
        a[i] = kcbp_v3(ra->m[0][i], ra->m[1][i], ra->m[2][i]);
        b[i] = kcbp_v3(rb->m[0][i], rb->m[1][i], rb->m[2][i]);
    }
    kcbp_vec3 t = kcbp_v3_sub(cb, ca);
    kcbp_vec3 axes[15];
    int n = 0;
    for (int i = 0; i < 3; i++)
        axes[n++] = a[i];
    for (int i = 0; i < 3; i++)
        axes[n++] = b[i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            kcbp_vec3 l = kcbp_v3_cross(a[i], b[j]);
            double len = kcbp_v3_len(l);
            if (len > 1e-6) /* near-parallel edges: the face axes decide */
                axes[n++] = kcbp_v3_scale(l, 1.0 / len);
        }
    for (int k = 0; k < n; k++) {
        kcbp_vec3 l = axes[k];
        double r = 0;
        for (int i = 0; i < 3; i++)
            r += xa[i] * fabs(kcbp_v3_dot(a[i], l)) + xb[i] * fabs(kcbp_v3_dot(b[i], l));
        if (fabs(kcbp_v3_dot(t, l)) > r + margin)
            return false;
    }
    return true;
}

bool kcbp_bv_overlap(const kcbp_bv *a, const kcbp_pose *pa, const kcbp_bv *b, const kcbp_pose *pb, double margin)
{
    switch (a->spec.kind) {
    case KCBP_BV_SPHERE: {
        kcbp_vec3 d = kcbp_v3_sub(kcbp_pose_apply(pb, b->center), kcbp_pose_apply(pa, a->center));
        double r = a->radius + b->radius + margin;
        return kcbp_v3_len2(d) <= r * r;
    }
    case KCBP_BV_AABB:
    case KCBP_BV_AABB_POSED: return boxes_touch(kcbp_bv_world_box(a, pa), kcbp_bv_world_box(b, pb), margin);
    case KCBP_BV_OBB: {
        kcbp_mat3 ra = kcbp_mat3_mul(&pa->rot, &a->axes), rb = kcbp_mat3_mul(&pb->rot, &b->axes);
        return obbs_touch(kcbp_pose_apply(pa, a->obb_center), &ra, a->obb_extent, kcbp_pose_apply(pb, b->obb_center),
                          &rb, b->obb_extent, margin);
    }
    case KCBP_BV_KDOP:
    case KCBP_BV_CBP:
    case KCBP_BV_HULL: {
        kcbp_convex sa = a->shape, sb = b->shape;
        sa.radius = sb.radius = 0.5 * margin;
        kcbp_pose rel = kcbp_pose_relative(pa, pb);
        kcbp_support_cache cache = {{0, 0}};
        return kcbp_gjk_intersect(&sa, &sb, &rel, &cache) != 0;
    }
    }
    return true;
}

/* ---- names --------------------------------------------------------------- */

const char *kcbp_bv_name(const kcbp_bv_spec *spec, char *buf, size_t size)
{
    switch (spec->kind) {
    case KCBP_BV_SPHERE: snprintf(buf, size, "sphere"); break;
    case KCBP_BV_AABB: snprintf(buf, size, "aabb"); break;
    case KCBP_BV_AABB_POSED: snprintf(buf, size, "aabb-posed"); break;
    case KCBP_BV_OBB: snprintf(buf, size, "obb"); break;
    case KCBP_BV_KDOP: snprintf(buf, size, "%d-dop", spec->k); break;
    case KCBP_BV_CBP: snprintf(buf, size, "%d-cbp-%s", spec->k, kcbp_cbp_dirs_name(spec->dirs)); break;
    case KCBP_BV_HULL: snprintf(buf, size, "hull"); break;
    default: snprintf(buf, size, "unknown"); break;
    }
    return buf;
}

kcbp_status kcbp_bv_parse(const char *name, kcbp_bv_spec *spec, kcbp_error *err)
{
    static const struct {
        const char *name;
        kcbp_bv_kind kind;
    } plain[] = {{"sphere", KCBP_BV_SPHERE},
                 {"aabb", KCBP_BV_AABB},
                 {"aabb-posed", KCBP_BV_AABB_POSED},
                 {"obb", KCBP_BV_OBB},
                 {"hull", KCBP_BV_HULL}};
    memset(spec, 0, sizeof *spec);
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (!strcmp(name, plain[i].name)) {
            spec->kind = plain[i].kind;
            return KCBP_OK;
        }
    char *end;
    long k = strtol(name, &end, 10);
    if (end != name && name[0] >= '1' && name[0] <= '9' && k >= KCBP_CBP_K_MIN && k <= KCBP_CBP_K_MAX) {
        spec->k = (int)k;
        if (!strcmp(end, "-dop")) {
            spec->kind = KCBP_BV_KDOP;
            if (k == 6 || k == 14 || k == 18 || k == 26)
                return KCBP_OK;
            return kcbp_error_set(err, KCBP_ERR_INVALID, "'%s': k-DOPs have k = 6, 14, 18 or 26", name);
        }
        if (!strncmp(end, "-cbp", 4)) {
            spec->kind = KCBP_BV_CBP;
            spec->dirs = KCBP_DIRS_GREEDY;
            if (end[4] == '\0')
                return KCBP_OK;
            if (end[4] == '-' && kcbp_cbp_dirs_parse(end + 5, &spec->dirs, NULL) == KCBP_OK &&
                spec->dirs != KCBP_DIRS_KDOP)
                return KCBP_OK;
        }
    }
    memset(spec, 0, sizeof *spec);
    return kcbp_error_set(err, KCBP_ERR_INVALID,
                          "unknown bounding volume '%s' (sphere, aabb, aabb-posed, obb, 6|14|18|26-dop, "
                          "K-cbp[-greedy|-thesis|-fixed], hull)",
                          name);
}
