/* Shapes (include/kcbp/shape.h): their parameters, parsing, boxes, support
 * functions, display tessellations, and the shape-shape tests and
 * distances (shape_internal.h). */
#include "shape_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/gjk.h>

#include "base/numparse.h"
#include "geom/closest.h"
#include "hull.h"
#include "mesh/mesh_internal.h"

/* ---- parameters --------------------------------------------------------- */

kcbp_shape kcbp_shape_sphere(double radius)
{
    kcbp_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP_SHAPE_SPHERE;
    s.radius = radius;
    return s;
}

kcbp_shape kcbp_shape_capsule(double radius, double length)
{
    kcbp_shape s = kcbp_shape_sphere(radius);
    s.kind = KCBP_SHAPE_CAPSULE;
    s.length = length;
    return s;
}

kcbp_shape kcbp_shape_box(double x, double y, double z)
{
    kcbp_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP_SHAPE_BOX;
    s.size = kcbp_v3(x, y, z);
    return s;
}

kcbp_shape kcbp_shape_cylinder(double radius, double height)
{
    kcbp_shape s = kcbp_shape_capsule(radius, height);
    s.kind = KCBP_SHAPE_CYLINDER;
    return s;
}

const char *kcbp_shape_kind_name(kcbp_shape_kind kind)
{
    switch (kind) {
    case KCBP_SHAPE_NONE: return "mesh";
    case KCBP_SHAPE_SPHERE: return "sphere";
    case KCBP_SHAPE_CAPSULE: return "capsule";
    case KCBP_SHAPE_BOX: return "box";
    case KCBP_SHAPE_CYLINDER: return "cylinder";
    case KCBP_SHAPE_HULL: return "hull";
    }
    return "unknown";
}

/* A parameter: finite, > 0 (>= 0 when zero_ok), within [KCBP_SHAPE_MIN,
 * KCBP_SHAPE_MAX] unless 0. */
static kcbp_status check_number(const char *shape, const char *what, double v, bool zero_ok, kcbp_error *err)
{
    if (!isfinite(v))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the %s must be a finite number, not %g", shape, what, v);
    if (zero_ok && v == 0)
        return KCBP_OK;
    if (!(v > 0))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the %s must be %s 0, not %g", shape, what,
                              zero_ok ? ">=" : ">", v);
    if (v > KCBP_SHAPE_MAX || v < KCBP_SHAPE_MIN)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "%s: the %s %g is outside [%g, %g]", shape, what, v,
                              KCBP_SHAPE_MIN, KCBP_SHAPE_MAX);
    return KCBP_OK;
}

kcbp_status kcbp_shape_check(const kcbp_shape *s, kcbp_error *err)
{
    if (!s)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "shape is NULL");
    const char *name = kcbp_shape_kind_name(s->kind);
    kcbp_status st;
    switch (s->kind) {
    case KCBP_SHAPE_SPHERE: return check_number(name, "radius", s->radius, false, err);
    case KCBP_SHAPE_CAPSULE:
        if ((st = check_number(name, "radius", s->radius, false, err)) != KCBP_OK)
            return st;
        return check_number(name, "length", s->length, true, err);
    case KCBP_SHAPE_CYLINDER:
        if ((st = check_number(name, "radius", s->radius, false, err)) != KCBP_OK)
            return st;
        return check_number(name, "height", s->length, false, err);
    case KCBP_SHAPE_BOX:
        if ((st = check_number(name, "x side", s->size.x, false, err)) != KCBP_OK ||
            (st = check_number(name, "y side", s->size.y, false, err)) != KCBP_OK)
            return st;
        return check_number(name, "z side", s->size.z, false, err);
    case KCBP_SHAPE_NONE:
    case KCBP_SHAPE_HULL: break;
    }
    return kcbp_error_set(err, KCBP_ERR_INVALID, "not a shape with parameters (kind %d)", (int)s->kind);
}

int kcbp_shape_spelled(const char *text)
{
    static const char *const names[] = {"sphere:", "capsule:", "box:", "cylinder:"};
    if (!text)
        return 0;
    for (int i = 0; i < 4; i++)
        if (!strncmp(text, names[i], strlen(names[i])))
            return i + 1;
    return 0;
}

kcbp_status kcbp_shape_parse(const char *text, kcbp_shape *out, kcbp_error *err)
{
    static const kcbp_shape_kind kinds[] = {KCBP_SHAPE_SPHERE, KCBP_SHAPE_CAPSULE, KCBP_SHAPE_BOX,
                                            KCBP_SHAPE_CYLINDER};
    static const int counts[] = {1, 2, 3, 2};
    static const char *const forms[] = {"sphere:R", "capsule:R:L", "box:X:Y:Z", "cylinder:R:L"};
    int which = kcbp_shape_spelled(text);
    if (!which)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "not a shape: expected sphere:R, capsule:R:L, box:X:Y:Z or "
                              "cylinder:R:L");
    int need = counts[which - 1];
    const char *p = strchr(text, ':') + 1;
    double v[3] = {0, 0, 0};
    kcbp_numparse np = {0};
    kcbp_status st = KCBP_OK;
    for (int i = 0; i < need && st == KCBP_OK; i++) {
        const char *end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        const char *stop;
        kcbp_num_result r = end > p ? kcbp_parse_double(&np, p, end, &stop, &v[i]) : KCBP_NUM_MALFORMED;
        if (r == KCBP_NUM_OK && stop != end)
            r = KCBP_NUM_MALFORMED;
        if (r != KCBP_NUM_OK)
            st = kcbp_error_set(err, KCBP_ERR_INVALID, "'%s': %s %d is %s (expected %s, numbers > 0)", text,
                                need == 1 ? "number" : "number", i + 1,
                                r == KCBP_NUM_NONFINITE ? "not finite" : "not a number", forms[which - 1]);
        else if (*end == ':' && i + 1 == need)
            st = kcbp_error_set(err, KCBP_ERR_INVALID, "'%s': more than %d number%s (expected %s)", text, need,
                                need == 1 ? "" : "s", forms[which - 1]);
        else if (*end != ':' && i + 1 < need)
            st = kcbp_error_set(err, KCBP_ERR_INVALID, "'%s': %d number%s, expected %d (%s)", text, i + 1,
                                i ? "s" : "", need, forms[which - 1]);
        p = end + (*end == ':');
    }
    kcbp_numparse_done(&np);
    if (st != KCBP_OK)
        return st;
    kcbp_shape s;
    memset(&s, 0, sizeof s);
    s.kind = kinds[which - 1];
    if (s.kind == KCBP_SHAPE_BOX)
        s.size = kcbp_v3(v[0], v[1], v[2]);
    else {
        s.radius = v[0];
        s.length = v[1];
    }
    /* a capsule's length 0 is a sphere, allowed by kcbp_shape_check; on the
     * command line every number must be > 0, as the usage says */
    if (s.kind == KCBP_SHAPE_CAPSULE && !(s.length > 0) && isfinite(s.length))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "'%s': the length must be > 0, not %g (a sphere is sphere:R)",
                              text, s.length);
    kcbp_error cerr;
    if (kcbp_shape_check(&s, &cerr) != KCBP_OK)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "'%s': %s", text, cerr.msg);
    *out = s;
    return KCBP_OK;
}

kcbp_aabb kcbp_shape_bounds(const kcbp_shape *s)
{
    kcbp_vec3 h = {0, 0, 0};
    switch (s->kind) {
    case KCBP_SHAPE_SPHERE: h = kcbp_v3(s->radius, s->radius, s->radius); break;
    case KCBP_SHAPE_CAPSULE: h = kcbp_v3(s->radius, s->radius, s->length / 2 + s->radius); break;
    case KCBP_SHAPE_BOX: h = kcbp_v3_scale(s->size, 0.5); break;
    case KCBP_SHAPE_CYLINDER: h = kcbp_v3(s->radius, s->radius, s->length / 2); break;
    case KCBP_SHAPE_NONE:
    case KCBP_SHAPE_HULL: break;
    }
    kcbp_aabb b = {kcbp_v3_neg(h), h};
    return b;
}

/* ---- the cylinder's support function -------------------------------------- */

/* The point of the cylinder (radius r, half height h, axis z) farthest
 * along d: on the rim of the cap d's z points to. The direction is scaled
 * to its largest component first, so that its square cannot overflow. */
static kcbp_vec3 cylinder_support(const void *ctx, kcbp_vec3 d, uint32_t *index)
{
    const kcbp_shape_geom *g = ctx;
    double r = g->def.radius, h = g->half.z;
    double m = fmax(fabs(d.x), fabs(d.y));
    double x = 0, y = 0;
    if (m > 0 && isfinite(m)) {
        double dx = d.x / m, dy = d.y / m, rho = sqrt(dx * dx + dy * dy);
        x = r * (dx / rho);
        y = r * (dy / rho);
    }
    *index = 0;
    return kcbp_v3(x, y, d.z >= 0 ? h : -h);
}

/* ---- geometry -------------------------------------------------------------- */

static double box_scale(kcbp_aabb b)
{
    double diag = kcbp_v3_len(kcbp_v3_sub(b.max, b.min));
    double far = fmax(kcbp_v3_max_abs(b.min), kcbp_v3_max_abs(b.max));
    return fmax(diag, far);
}

kcbp_status kcbp_shape_geom_init(kcbp_shape_geom *g, const kcbp_shape *s, kcbp_error *err)
{
    memset(g, 0, sizeof *g);
    kcbp_status st = kcbp_shape_check(s, err);
    if (st != KCBP_OK)
        return st;
    g->def = *s;
    g->local = kcbp_shape_bounds(s);
    double r = s->radius;
    switch (s->kind) {
    case KCBP_SHAPE_SPHERE:
        g->convex = kcbp_convex_sphere(kcbp_v3(0, 0, 0), r);
        g->reach = r;
        break;
    case KCBP_SHAPE_CAPSULE:
        g->half = kcbp_v3(0, 0, s->length / 2);
        g->pts[0] = kcbp_v3(0, 0, -g->half.z);
        g->pts[1] = kcbp_v3(0, 0, g->half.z);
        g->convex = kcbp_convex_capsule(g->pts[0], g->pts[1], r);
        g->reach = g->half.z + r;
        break;
    case KCBP_SHAPE_BOX:
        g->half = kcbp_v3_scale(s->size, 0.5);
        for (int i = 0; i < 8; i++)
            g->pts[i] = kcbp_v3(i & 1 ? g->half.x : -g->half.x, i & 2 ? g->half.y : -g->half.y,
                                i & 4 ? g->half.z : -g->half.z);
        g->convex = kcbp_convex_polytope(g->pts, 8, NULL, NULL, 0);
        g->reach = kcbp_v3_len(g->half);
        break;
    case KCBP_SHAPE_CYLINDER:
        g->half = kcbp_v3(r, r, s->length / 2);
        g->convex = kcbp_convex_custom(cylinder_support, g, 0);
        g->reach = hypot(r, g->half.z);
        break;
    default: break;
    }
    g->reach *= 1 + 1e-15;
    g->scale = box_scale(g->local);
    return KCBP_OK;
}

kcbp_status kcbp_shape_geom_init_hull(kcbp_shape_geom *g, const kcbp_vec3 *points, size_t npoints, kcbp_error *err)
{
    memset(g, 0, sizeof *g);
    if (!points || npoints == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "hull: no points");
    for (size_t i = 0; i < npoints; i++)
        if (!kcbp_v3_is_finite(points[i]) || kcbp_v3_max_abs(points[i]) > KCBP_COORD_MAX)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "hull: point %zu is not finite or beyond %g", i,
                                  KCBP_COORD_MAX);
    kcbp_status st = kcbp_convex_hull_build(points, npoints, &g->hull, err);
    if (st != KCBP_OK)
        return st;
    g->def.kind = KCBP_SHAPE_HULL;
    g->convex = kcbp_convex_hull_shape(g->hull);
    const kcbp_vec3 *v = kcbp_convex_hull_vertices(g->hull);
    uint32_t n = kcbp_convex_hull_vertex_count(g->hull);
    g->local.min = g->local.max = v[0];
    double reach = 0;
    for (uint32_t i = 0; i < n; i++) {
        g->local.min = kcbp_v3_min(g->local.min, v[i]);
        g->local.max = kcbp_v3_max(g->local.max, v[i]);
        reach = fmax(reach, kcbp_v3_len(v[i]));
    }
    g->half = kcbp_aabb_extent(g->local);
    g->reach = reach * (1 + 1e-15);
    g->scale = box_scale(g->local);
    return KCBP_OK;
}

void kcbp_shape_geom_clear(kcbp_shape_geom *g)
{
    kcbp_convex_hull_free(g->hull);
    memset(g, 0, sizeof *g);
}

kcbp_aabb kcbp_shape_geom_world_bounds(const kcbp_shape_geom *g, const kcbp_pose *pose)
{
    const kcbp_mat3 *R = &pose->rot;
    kcbp_vec3 c = pose->trans, w = {0, 0, 0};
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: w = kcbp_v3(g->def.radius, g->def.radius, g->def.radius); break;
    case KCBP_SHAPE_CAPSULE:
    case KCBP_SHAPE_CYLINDER: {
        /* the axis's half (a column of R times L/2), and for a cylinder the
         * caps' discs: r sqrt(1 - a_i^2) along axis i */
        kcbp_vec3 a = kcbp_v3(R->m[0][2], R->m[1][2], R->m[2][2]);
        double r = g->def.radius, hz = g->half.z;
        double ax[3] = {a.x, a.y, a.z}, out[3];
        for (int i = 0; i < 3; i++) {
            double disc = g->def.kind == KCBP_SHAPE_CAPSULE ? r : r * sqrt(fmax(0, 1 - ax[i] * ax[i]));
            out[i] = fabs(ax[i]) * hz + disc;
        }
        w = kcbp_v3(out[0], out[1], out[2]);
        break;
    }
    case KCBP_SHAPE_BOX: {
        kcbp_vec3 e = g->half;
        w.x = fabs(R->m[0][0]) * e.x + fabs(R->m[0][1]) * e.y + fabs(R->m[0][2]) * e.z;
        w.y = fabs(R->m[1][0]) * e.x + fabs(R->m[1][1]) * e.y + fabs(R->m[1][2]) * e.z;
        w.z = fabs(R->m[2][0]) * e.x + fabs(R->m[2][1]) * e.y + fabs(R->m[2][2]) * e.z;
        break;
    }
    case KCBP_SHAPE_HULL: {
        const kcbp_vec3 *v = kcbp_convex_hull_vertices(g->hull);
        uint32_t n = kcbp_convex_hull_vertex_count(g->hull);
        kcbp_vec3 p = kcbp_pose_apply(pose, v[0]);
        kcbp_aabb b = {p, p};
        for (uint32_t i = 1; i < n; i++) {
            p = kcbp_pose_apply(pose, v[i]);
            b.min = kcbp_v3_min(b.min, p);
            b.max = kcbp_v3_max(b.max, p);
        }
        return b;
    }
    default: break;
    }
    /* a little more than the rounding of the products above */
    w = kcbp_v3_scale(w, 1 + 1e-15);
    kcbp_aabb b = {kcbp_v3_sub(c, w), kcbp_v3_add(c, w)};
    return b;
}

/* The distance of p from the line through the origin along unit axis a. */
static double off_axis(kcbp_vec3 p, kcbp_vec3 a)
{
    return kcbp_v3_len(kcbp_v3_sub(p, kcbp_v3_scale(a, kcbp_v3_dot(p, a))));
}

double kcbp_shape_geom_axis_radius(const kcbp_shape_geom *g, kcbp_vec3 axis)
{
    double r = 0;
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: r = g->def.radius; break;
    case KCBP_SHAPE_CAPSULE: r = fmax(off_axis(g->pts[0], axis), off_axis(g->pts[1], axis)) + g->def.radius; break;
    case KCBP_SHAPE_CYLINDER: {
        /* each cap's rim is within r of its centre */
        kcbp_vec3 c = kcbp_v3(0, 0, g->half.z);
        r = fmax(off_axis(c, axis), off_axis(kcbp_v3_neg(c), axis)) + g->def.radius;
        break;
    }
    case KCBP_SHAPE_BOX:
        for (int i = 0; i < 8; i++)
            r = fmax(r, off_axis(g->pts[i], axis));
        break;
    case KCBP_SHAPE_HULL: {
        const kcbp_vec3 *v = kcbp_convex_hull_vertices(g->hull);
        uint32_t n = kcbp_convex_hull_vertex_count(g->hull);
        for (uint32_t i = 0; i < n; i++)
            r = fmax(r, off_axis(v[i], axis));
        break;
    }
    default: break;
    }
    /* the rounding of the products and roots: far below this */
    return r * (1 + 1e-12) + 1e-300;
}

int kcbp_shape_geom_core(const kcbp_shape_geom *g, const kcbp_pose *pose, kcbp_vec3 pts[2], double *r)
{
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE:
        pts[0] = pts[1] = pose->trans; /* pose_apply of the origin, exactly */
        *r = g->def.radius;
        return 1;
    case KCBP_SHAPE_CAPSULE:
        pts[0] = kcbp_pose_apply(pose, g->pts[0]);
        pts[1] = kcbp_pose_apply(pose, g->pts[1]);
        *r = g->def.radius;
        return 2;
    default: *r = 0; return 0;
    }
}

/* ---- two shapes -------------------------------------------------------------- */

static bool has_core(const kcbp_shape_geom *g)
{
    return g->def.kind == KCBP_SHAPE_SPHERE || g->def.kind == KCBP_SHAPE_CAPSULE;
}

bool kcbp_shape_pair_collide(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a, double band,
                             bool *exact)
{
    static const kcbp_pose identity = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};
    kcbp_vec3 ca[2], cb[2];
    double ra, rb;
    *exact = true;
    if (has_core(a) && has_core(b)) {
        kcbp_shape_geom_core(a, &identity, ca, &ra);
        kcbp_shape_geom_core(b, b_in_a, cb, &rb);
        return kcbp_within_seg_seg(ca[0], ca[1], cb[0], cb[1], ra, rb);
    }
    const kcbp_shape_geom *box = NULL, *core = NULL;
    kcbp_pose core_in_box;
    if (a->def.kind == KCBP_SHAPE_BOX && has_core(b)) {
        box = a;
        core = b;
        core_in_box = *b_in_a;
    } else if (b->def.kind == KCBP_SHAPE_BOX && has_core(a)) {
        box = b;
        core = a;
        core_in_box = kcbp_pose_inverse(b_in_a);
    }
    if (box) {
        int n = kcbp_shape_geom_core(core, &core_in_box, cb, &rb);
        return n == 1 ? kcbp_within_point_box(cb[0], box->half, rb, 0) : kcbp_within_seg_box(cb[0], cb[1], box->half, rb);
    }
    *exact = false;
    kcbp_support_cache cache = {{0, 0}};
    return !kcbp_gjk_separated(&a->convex, &b->convex, b_in_a, band, &cache, NULL, NULL, NULL);
}

double kcbp_convex_distance_points(const kcbp_convex *a, const kcbp_convex *b, const kcbp_pose *b_in_a,
                                   kcbp_vec3 *pa, kcbp_vec3 *pb, double *lower)
{
    kcbp_support_cache cache = {{0, 0}};
    kcbp_gjk_result g;
    kcbp_gjk_distance(a, b, b_in_a, NULL, &cache, &g);
    if (g.status == KCBP_GJK_SEPARATED || g.status == KCBP_GJK_HIT_CAP || g.status == KCBP_GJK_TOUCHING) {
        *pa = g.point_a;
        *pb = g.point_b;
        if (lower)
            *lower = g.status == KCBP_GJK_HIT_CAP ? fmin(g.distance_lower, g.distance) : g.distance;
        return g.distance;
    }
    if (lower)
        *lower = 0;
    /* Overlapping: a point both hold. With the cores apart (the radii
     * overlap), the point between their nearest points that splits their gap
     * as the radii do; with the cores overlapping, the simplex's weighted
     * points of a (which equal b's, the weights making the origin). */
    kcbp_vec3 p;
    if (g.core_distance > 0) {
        double ra = a->radius, rb = b->radius, s = ra + rb > 0 ? ra / (ra + rb) : 0.5;
        p = kcbp_v3_add(g.point_a, kcbp_v3_scale(kcbp_v3_sub(g.point_b, g.point_a), s));
    } else {
        p = kcbp_v3(0, 0, 0);
        double sum = 0;
        for (int k = 0; k < g.simplex_count; k++) {
            p = kcbp_v3_add(p, kcbp_v3_scale(g.simplex[k].a, g.lambda[k]));
            sum += g.lambda[k];
        }
        if (sum > 0 && isfinite(sum))
            p = kcbp_v3_scale(p, 1 / sum);
        else
            p = g.point_a;
    }
    *pa = *pb = p;
    return 0;
}

/* The nearest points of two cores (a point or a segment each) and the
 * distance of their inflated sets. */
static double core_distance(const kcbp_vec3 ca[2], double ra, const kcbp_vec3 cb[2], double rb, kcbp_vec3 *pa,
                            kcbp_vec3 *pb)
{
    kcbp_vec3 x, y;
    double d = sqrt(kcbp_cp_seg_seg(ca[0], ca[1], cb[0], cb[1], &x, &y));
    kcbp_vec3 u = kcbp_v3_sub(y, x);
    if (d > ra + rb) {
        *pa = kcbp_v3_add(x, kcbp_v3_scale(u, ra / d));
        *pb = kcbp_v3_sub(y, kcbp_v3_scale(u, rb / d));
        return d - ra - rb;
    }
    double s = d > 0 && ra + rb > 0 ? ra / (ra + rb) : 0;
    *pa = *pb = kcbp_v3_add(x, kcbp_v3_scale(u, s));
    return 0;
}

double kcbp_shape_pair_distance(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                                kcbp_vec3 *pa, kcbp_vec3 *pb, double *lower)
{
    double low;
    if (!lower)
        lower = &low;
    static const kcbp_pose identity = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};
    if (has_core(a) && has_core(b)) {
        kcbp_vec3 ca[2], cb[2];
        double ra, rb;
        kcbp_shape_geom_core(a, &identity, ca, &ra);
        kcbp_shape_geom_core(b, b_in_a, cb, &rb);
        return *lower = core_distance(ca, ra, cb, rb, pa, pb);
    }
    if (a->def.kind == KCBP_SHAPE_BOX && b->def.kind == KCBP_SHAPE_SPHERE) {
        /* the box's point nearest the centre: clamped coordinates */
        kcbp_vec3 c = b_in_a->trans, h = a->half, q;
        q.x = fmax(-h.x, fmin(h.x, c.x));
        q.y = fmax(-h.y, fmin(h.y, c.y));
        q.z = fmax(-h.z, fmin(h.z, c.z));
        double d = kcbp_v3_len(kcbp_v3_sub(c, q)), r = b->def.radius;
        if (d > r) {
            *pa = q;
            *pb = kcbp_v3_add(c, kcbp_v3_scale(kcbp_v3_sub(q, c), r / d));
            return *lower = d - r;
        }
        *pa = *pb = q;
        return *lower = 0;
    }
    if (a->def.kind == KCBP_SHAPE_SPHERE && b->def.kind == KCBP_SHAPE_BOX) {
        kcbp_pose inv = kcbp_pose_inverse(b_in_a);
        kcbp_vec3 qa, qb;
        double d = kcbp_shape_pair_distance(b, a, &inv, &qb, &qa, lower);
        *pa = kcbp_pose_apply(b_in_a, qa);
        *pb = kcbp_pose_apply(b_in_a, qb);
        return d;
    }
    return kcbp_convex_distance_points(&a->convex, &b->convex, b_in_a, pa, pb, lower);
}

/* ---- display tessellations ------------------------------------------------------ */

typedef struct {
    kcbp_vec3 *v;
    kcbp_tri *t;
    size_t nv, nt;
} builder;

static uint32_t add_v(builder *b, kcbp_vec3 p)
{
    b->v[b->nv] = p;
    return (uint32_t)b->nv++;
}

static void add_t(builder *b, uint32_t i, uint32_t j, uint32_t k)
{
    kcbp_tri t = {{i, j, k}};
    b->t[b->nt++] = t;
}

/* A surface of revolution about z: rings of n points at heights z[k] and
 * radii rad[k] (k < m; a radius 0 is one point, the pole), joined by strips. */
static void revolve(builder *b, const double *z, const double *rad, int m, uint32_t n)
{
    uint32_t prev = 0, prev_n = 0;
    for (int k = 0; k < m; k++) {
        uint32_t first = (uint32_t)b->nv, cnt = rad[k] > 0 ? n : 1;
        for (uint32_t i = 0; i < cnt; i++) {
            double a = 2 * M_PI * i / n;
            add_v(b, kcbp_v3(rad[k] * cos(a), rad[k] * sin(a), z[k]));
        }
        if (k > 0) {
            for (uint32_t i = 0; i < n; i++) {
                uint32_t i1 = (i + 1) % n;
                uint32_t a0 = prev + (prev_n == 1 ? 0 : i), a1 = prev + (prev_n == 1 ? 0 : i1);
                uint32_t b0 = first + (cnt == 1 ? 0 : i), b1 = first + (cnt == 1 ? 0 : i1);
                if (prev_n > 1)
                    add_t(b, a0, a1, b1);
                if (cnt > 1)
                    add_t(b, a0, b1, b0);
                if (prev_n == 1 && cnt == 1)
                    break;
            }
        }
        prev = first;
        prev_n = cnt;
    }
}

kcbp_status kcbp_shape_tessellate(const kcbp_shape *s, uint32_t segments, kcbp_mesh **out, kcbp_error *err)
{
    *out = NULL;
    kcbp_status st = kcbp_shape_check(s, err);
    if (st != KCBP_OK)
        return st;
    if (segments < 3 || segments > 1024)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "tessellate: segments must be in [3, 1024], not %u", segments);
    uint32_t n = segments;
    double z[1100], rad[1100];
    int m = 0;
    double r = s->radius, hz = s->length / 2;
    uint32_t half = n / 4 + 1; /* quarter circles of a sphere's or capsule's ends */
    switch (s->kind) {
    case KCBP_SHAPE_SPHERE:
    case KCBP_SHAPE_CAPSULE:
        for (uint32_t k = 0; k <= half; k++) { /* south pole up to the equator */
            double a = -M_PI / 2 + (M_PI / 2) * k / half;
            z[m] = r * sin(a) - (s->kind == KCBP_SHAPE_CAPSULE ? hz : 0);
            rad[m++] = k == 0 ? 0 : r * cos(a);
        }
        for (uint32_t k = s->kind == KCBP_SHAPE_CAPSULE ? 0 : 1; k <= half; k++) {
            double a = (M_PI / 2) * k / half;
            z[m] = r * sin(a) + (s->kind == KCBP_SHAPE_CAPSULE ? hz : 0);
            rad[m++] = k == half ? 0 : r * cos(a);
        }
        break;
    case KCBP_SHAPE_CYLINDER:
        z[0] = -hz, rad[0] = 0;
        z[1] = -hz, rad[1] = r;
        z[2] = hz, rad[2] = r;
        z[3] = hz, rad[3] = 0;
        m = 4;
        break;
    case KCBP_SHAPE_BOX: m = 0; break;
    default: return kcbp_error_set(err, KCBP_ERR_INVALID, "tessellate: not a shape with parameters");
    }
    builder b = {0};
    size_t maxv = s->kind == KCBP_SHAPE_BOX ? 8 : (size_t)m * n, maxt = s->kind == KCBP_SHAPE_BOX ? 12 : 2 * (size_t)m * n;
    b.v = malloc(maxv * sizeof *b.v);
    b.t = malloc(maxt * sizeof *b.t);
    if (!b.v || !b.t) {
        free(b.v);
        free(b.t);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a tessellation");
    }
    if (s->kind == KCBP_SHAPE_BOX) {
        kcbp_vec3 h = kcbp_v3_scale(s->size, 0.5);
        for (int i = 0; i < 8; i++)
            add_v(&b, kcbp_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
        static const int face[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
        for (int f = 0; f < 6; f++) {
            add_t(&b, (uint32_t)face[f][0], (uint32_t)face[f][1], (uint32_t)face[f][2]);
            add_t(&b, (uint32_t)face[f][0], (uint32_t)face[f][2], (uint32_t)face[f][3]);
        }
    } else {
        revolve(&b, z, rad, m, n);
    }
    kcbp_mesh mesh;
    st = kcbp_mesh_adopt(&mesh, b.v, b.nv, b.t, b.nt, err);
    if (st != KCBP_OK)
        return st;
    return kcbp_mesh_to_handle(&mesh, out, err);
}

kcbp_status kcbp_shape_geom_display(const kcbp_shape_geom *g, kcbp_mesh **out, kcbp_error *err)
{
    *out = NULL;
    if (g->def.kind != KCBP_SHAPE_HULL)
        return kcbp_shape_tessellate(&g->def, 48, out, err);
    /* A hull: qhull's facets again, each fanned in angular order. */
    const kcbp_vec3 *v = kcbp_convex_hull_vertices(g->hull);
    uint32_t n = kcbp_convex_hull_vertex_count(g->hull);
    kcbp_hull h;
    kcbp_error herr = {0};
    kcbp_status st = kcbp_hull_compute(v, n, &h, &herr);
    if (st != KCBP_OK) {
        /* flat: no facets to draw, only its points (as degenerate triangles) */
        kcbp_vec3 *pts = malloc((size_t)n * sizeof *pts);
        kcbp_tri *tris = malloc((size_t)n * sizeof *tris);
        if (!pts || !tris) {
            free(pts);
            free(tris);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a tessellation");
        }
        memcpy(pts, v, (size_t)n * sizeof *pts);
        for (uint32_t i = 0; i < n; i++)
            tris[i] = (kcbp_tri){{i, (i + 1) % n, (i + 2) % n}};
        kcbp_mesh mesh;
        if ((st = kcbp_mesh_adopt(&mesh, pts, n, tris, n, err)) != KCBP_OK)
            return st;
        return kcbp_mesh_to_handle(&mesh, out, err);
    }
    size_t nt = 0;
    for (size_t f = 0; f < h.nfacets; f++)
        nt += h.facet_start[f + 1] - h.facet_start[f] - 2;
    kcbp_vec3 *pts = malloc((size_t)n * sizeof *pts);
    kcbp_tri *tris = malloc((nt ? nt : 1) * sizeof *tris);
    uint32_t cap = 0;
    for (size_t f = 0; f < h.nfacets; f++)
        cap = h.facet_start[f + 1] - h.facet_start[f] > cap ? h.facet_start[f + 1] - h.facet_start[f] : cap;
    double *ang = malloc((cap ? cap : 1) * sizeof *ang);
    uint32_t *loop = malloc((cap ? cap : 1) * sizeof *loop);
    if (!pts || !tris || !ang || !loop) {
        free(pts);
        free(tris);
        free(ang);
        free(loop);
        kcbp_hull_free(&h);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a tessellation");
    }
    memcpy(pts, v, (size_t)n * sizeof *pts);
    size_t t = 0;
    for (size_t f = 0; f < h.nfacets; f++) {
        uint32_t s0 = h.facet_start[f], d = h.facet_start[f + 1] - s0;
        kcbp_vec3 nrm = h.normal[f], c = {0, 0, 0};
        for (uint32_t i = 0; i < d; i++)
            c = kcbp_v3_add(c, v[h.facet_verts[s0 + i]]);
        c = kcbp_v3_scale(c, 1.0 / d);
        kcbp_vec3 ux = fabs(nrm.x) < 0.9 ? kcbp_v3(1, 0, 0) : kcbp_v3(0, 1, 0);
        ux = kcbp_v3_cross(nrm, ux);
        kcbp_vec3 uy = kcbp_v3_cross(nrm, ux);
        for (uint32_t i = 0; i < d; i++) {
            kcbp_vec3 r = kcbp_v3_sub(v[h.facet_verts[s0 + i]], c);
            ang[i] = atan2(kcbp_v3_dot(r, uy), kcbp_v3_dot(r, ux));
            loop[i] = h.facet_verts[s0 + i];
        }
        for (uint32_t i = 1; i < d; i++) /* insertion sort by angle: facets are small */
            for (uint32_t j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
                double ta = ang[j];
                ang[j] = ang[j - 1];
                ang[j - 1] = ta;
                uint32_t tl = loop[j];
                loop[j] = loop[j - 1];
                loop[j - 1] = tl;
            }
        for (uint32_t i = 1; i + 1 < d; i++)
            tris[t++] = (kcbp_tri){{loop[0], loop[i], loop[i + 1]}};
    }
    free(ang);
    free(loop);
    kcbp_hull_free(&h);
    kcbp_mesh mesh;
    if ((st = kcbp_mesh_adopt(&mesh, pts, n, tris, t, err)) != KCBP_OK)
        return st;
    return kcbp_mesh_to_handle(&mesh, out, err);
}

int kcbp_shape_geom_point_side(const kcbp_shape_geom *g, kcbp_vec3 p, double band)
{
    double r = g->def.radius;
    switch (g->def.kind) {
    case KCBP_SHAPE_SPHERE: return -kcbp_cmp_seg_seg_radius(p, p, kcbp_v3(0, 0, 0), kcbp_v3(0, 0, 0), r);
    case KCBP_SHAPE_CAPSULE: return -kcbp_cmp_seg_seg_radius(p, p, g->pts[0], g->pts[1], r);
    case KCBP_SHAPE_BOX: {
        kcbp_vec3 a = kcbp_v3_abs(p), h = g->half;
        if (a.x > h.x || a.y > h.y || a.z > h.z)
            return -1;
        return a.x < h.x && a.y < h.y && a.z < h.z ? 1 : 0;
    }
    case KCBP_SHAPE_CYLINDER: {
        /* the radial part: the point (x, y, 0) against the circle of radius r */
        int radial = kcbp_cmp_seg_seg_radius(kcbp_v3(p.x, p.y, 0), kcbp_v3(p.x, p.y, 0), kcbp_v3(0, 0, 0),
                                             kcbp_v3(0, 0, 0), r);
        double az = fabs(p.z);
        if (radial > 0 || az > g->half.z)
            return -1;
        return radial < 0 && az < g->half.z ? 1 : 0;
    }
    case KCBP_SHAPE_HULL: {
        kcbp_convex pt = kcbp_convex_sphere(p, 0);
        kcbp_vec3 pa, pb;
        double d = kcbp_convex_distance_points(&g->convex, &pt, NULL, &pa, &pb, NULL);
        return d > band ? -1 : d > 0 ? 0 : 1;
    }
    default: return -1;
    }
}
