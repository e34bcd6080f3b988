/* Distance and depth of posed convex 2D shapes (include/kcbp/distance2d.h). */
#include <kcbp/distance2d.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "base/util.h"
#include "query/query2d_internal.h"

#define OPTIONS_V1_SIZE (offsetof(kcbp2d_distance_options, max_iterations) + sizeof(int))
#define RESULT_V1_SIZE (offsetof(kcbp2d_distance_result, iterations) + sizeof(int))

void kcbp2d_distance_options_init(kcbp2d_distance_options *o, uint32_t size)
{
    if (!o)
        return;
    kcbp2d_distance_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.max_iterations = KCBP2D_GJK_MAX_ITERATIONS_DEFAULT;
    d.want_depth = true;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

const char *kcbp2d_distance_status_name(kcbp2d_distance_status s)
{
    switch (s) {
    case KCBP2D_APART: return "apart";
    case KCBP2D_TOUCHING: return "touching";
    case KCBP2D_OVERLAPPING: return "overlapping";
    }
    return "unknown";
}

/* A unit direction from a toward b when the cores' closest points
 * coincide in double (apart by less than rounding): the separating edge's
 * normal, or along the common line of collinear cores. */
static kcbp_vec2 fallback_normal(const kcbp2d_core *a, const kcbp2d_core *b, const kcbp2d_decision *d)
{
    kcbp_vec2 n = {0, 1};
    if (d->sep_shape >= 0) {
        const kcbp2d_core *c = d->sep_shape == 0 ? a : b;
        kcbp_vec2 e = kcbp_v2_sub(c->v[(d->sep_edge + 1) % c->n], c->v[d->sep_edge]);
        double l = kcbp_v2_len(e);
        if (l > 0)
            n = kcbp_v2_make(e.y / l, -e.x / l); /* outward of c's edge */
        if (d->sep_shape == 1)
            n = kcbp_v2_neg(n);
        return n;
    }
    kcbp_vec2 e = kcbp_v2_sub(b->v[0], a->v[0]);
    double l = kcbp_v2_len(e);
    return l > 0 ? kcbp_v2_scale(e, 1.0 / l) : n;
}

/* The result copied out: a struct assignment for the current size (no
 * libc call), memcpy for an older caller's shorter struct. */
static inline void put_result(kcbp2d_distance_result *out, const kcbp2d_distance_result *r, size_t size)
{
    if (size == sizeof *r)
        *out = *r;
    else
        memcpy(out, r, size);
}

/* The separating edge's certificate. Edge i of core c (from vertex i to
 * the next) with o's vertex x: the gap g = max over o's vertices of
 * e x (r - p), negated, over |e| (r = x when the caller knows x is that
 * maximum) is a lower bound on the cores' distance when the line
 * separates them (up to its rounding, below 64 u S: the SAT filter's
 * bound 16 u S (|e.x| + |e.y|) over |e|, and the division and the norm),
 * and |x - y|, y the clamped projection of x on the edge, a distance
 * between points of the cores, an upper bound. When they agree to 64 u S,
 * |x - y| is the cores' distance to that accuracy, with x and y closest
 * points: the usual end of a separated pair, a vertex facing an edge,
 * which GJK reaches in two or three steps and measures the same way
 * (kcbp2d_point_seg_dist). *y and *d are set whenever the projection is;
 * returns whether the bounds agree. */
static bool edge_certifies(const kcbp2d_core *c, uint32_t i, const kcbp2d_core *o, kcbp_vec2 x, bool x_nearest,
                           double tol, kcbp_vec2 *y, double *d)
{
    kcbp_vec2 p = c->v[i], q = c->v[i + 1 < c->n ? i + 1 : 0];
    if (!kcbp2d_point_seg_dist(x, p, q, y, d))
        return false;
    kcbp_vec2 e = kcbp_v2_sub(q, p);
    double mx = e.x * (x.y - p.y) - e.y * (x.x - p.x);
    if (!x_nearest)
        for (uint32_t k = 0; k < o->n; k++) {
            kcbp_vec2 r = o->v[k];
            double det = e.x * (r.y - p.y) - e.y * (r.x - p.x);
            mx = det > mx ? det : mx;
        }
    double len = kcbp2d_len(e);
    return len > 0 && *d <= -mx / len + tol;
}

/* Two vertices closest: cy of c and x of o. With u = x - cy, the slab
 * between the lines through cy and x normal to u separates the cores
 * when every vertex of c is on cy's side and every vertex of o on x's:
 * the gap (min over o of u.(r - cy) - max over c of u.(r - cy)) / |u| is
 * a lower bound on the distance whatever u is (each dot product within
 * about 9 u S |u| of the exact one), and |u| an upper bound. True when
 * they agree to tol; *d = |u|. */
static bool vertices_certify(const kcbp2d_core *c, kcbp_vec2 cy, const kcbp2d_core *o, kcbp_vec2 x, double tol,
                             double *d)
{
    kcbp_vec2 u = kcbp_v2_sub(x, cy);
    double l2 = kcbp_v2_len2(u);
    if (!(l2 >= 1e-280 && l2 <= 1e280))
        return false;
    double mc = 0, mo = l2; /* cy's and x's own dot products */
    for (uint32_t j = 0; j < c->n; j++) {
        double t = kcbp_v2_dot(u, kcbp_v2_sub(c->v[j], cy));
        mc = t > mc ? t : mc;
    }
    for (uint32_t k = 0; k < o->n; k++) {
        double t = kcbp_v2_dot(u, kcbp_v2_sub(o->v[k], cy));
        mo = t < mo ? t : mo;
    }
    double len = sqrt(l2);
    *d = len;
    return l2 - (mo - mc) <= tol * len;
}

/* The cores' distance from the SAT's separating edge (`edge` of core
 * `shape`, `vertex` the other core's vertex nearest its line), without
 * GJK when a certificate holds: that vertex facing the edge
 * (edge_certifies); or, when its projection falls beyond an end of the
 * edge, that end facing the other core's edge at the vertex on its side
 * (edge_certifies), or that end and the vertex closest (vertices_certify).
 * False: none holds (farther features), GJK decides. */
static bool sat_gap_distance(const kcbp2d_core *a, const kcbp2d_core *b, int shape, uint32_t edge, uint32_t vertex,
                             kcbp2d_gjk_out *out)
{
    const kcbp2d_core *c = shape == 0 ? a : b, *o = shape == 0 ? b : a;
    if (edge >= c->n || vertex >= o->n)
        return false;
    double sc = a->scale > b->scale ? a->scale : b->scale, tol = 64 * 0x1p-53 * sc;
    kcbp_vec2 x = o->v[vertex], y, pc, po; /* pc on c, po on o */
    double d;
    if (edge_certifies(c, edge, o, x, true, tol, &y, &d)) {
        pc = y, po = x;
    } else {
        /* y is an end of the edge (the projection was clamped): it against
         * o's edges at x, the nearer first */
        uint32_t i = edge + 1 < c->n ? edge + 1 : 0;
        if (!(y.x == c->v[edge].x && y.y == c->v[edge].y) && !(y.x == c->v[i].x && y.y == c->v[i].y))
            return false;
        uint32_t k0 = vertex ? vertex - 1 : o->n - 1, j0 = y.x == c->v[edge].x && y.y == c->v[edge].y ? edge : i;
        /* the edge from x on the side of cy (a guess: the certificate
         * checks it) */
        kcbp_vec2 cy = c->v[j0], w = kcbp_v2_sub(cy, x);
        uint32_t k = kcbp_v2_dot(w, kcbp_v2_sub(o->v[k0], x)) > 0 ? k0 : vertex;
        if (edge_certifies(o, k, c, cy, false, tol, &y, &d)) {
            pc = cy, po = y;
        } else if (vertices_certify(c, cy, o, x, tol, &d)) {
            pc = cy, po = x;
        } else {
            return false;
        }
    }
    out->overlap = false;
    out->distance = d;
    out->iterations = 0;
    if (shape == 0)
        out->pa = pc, out->pb = po;
    else
        out->pa = po, out->pb = pc;
    return true;
}

/* The usual end of a separated pair, decided before anything else: the
 * SAT's separating edge (edge i of core c, from p to q) with the other
 * core's vertex x nearest its line projecting strictly inside it (0 < (x
 * - p).e < |e|^2). The line's gap g = -(e x (x - p)) / |e| (the SAT's own
 * cross product, so x's, the largest) is a lower bound on the distance
 * (up to its rounding, about 23 u S: the filter bound 16 u S (|e.x| +
 * |e.y|) over |e|), and the foot of x on the edge is at most g plus the
 * rounding of the projection (u |e|) from x: g is the distance within
 * about 32 u S, the foot and x closest points, and the normal the edge's
 * (more accurate than the witnesses' difference when g is tiny). One
 * square root and one division; no GJK, no other certificate. False
 * (the projection at or beyond an end, or squares out of range): the
 * caller's general path. */
static bool vertex_facing_edge(const kcbp2d_core *c, uint32_t i, kcbp_vec2 x, kcbp_vec2 *foot, kcbp_vec2 *out_n,
                               double *dist)
{
    kcbp_vec2 p = c->v[i], q = c->v[i + 1 < c->n ? i + 1 : 0];
    kcbp_vec2 e = kcbp_v2_sub(q, p), w = kcbp_v2_sub(x, p);
    double l2 = e.x * e.x + e.y * e.y, tn = e.x * w.x + e.y * w.y;
    if (!(l2 >= 1e-280 && l2 <= 1e280 && tn > 0 && tn < l2))
        return false;
    double det = e.x * (x.y - p.y) - e.y * (x.x - p.x); /* < 0: x beyond the line */
    double inv = 1.0 / sqrt(l2), g = -det * inv;
    kcbp_vec2 n = {e.y * inv, -e.x * inv}; /* the edge's outward unit normal */
    *out_n = n;
    *foot = kcbp_v2_sub(x, kcbp_v2_scale(n, g));
    *dist = g > 0 ? g : 0.0;
    return true;
}

/* An error: the result zeroed (r, still as initialised), the status
 * passed on. */
static kcbp_status fail(kcbp2d_distance_result *out, const kcbp2d_distance_result *r, size_t size, kcbp_status st)
{
    (void)r;
    kcbp2d_distance_result z;
    memset(&z, 0, sizeof z);
    z.normal = kcbp_v2_make(0, 1);
    memcpy(out, &z, size);
    return st;
}

kcbp_status kcbp2d_distance_sized(const kcbp2d_shape *a, const kcbp2d_pose *pose_a, const kcbp2d_shape *b,
                                  const kcbp2d_pose *pose_b, const kcbp2d_distance_options *options,
                                  kcbp2d_distance_result *result, size_t result_size, kcbp_error *err)
{
    /* zeroed member by member (normal (0, 1)): a memset of the struct
     * compiled to `rep stos`, whose start-up costs more than these stores;
     * the error paths write a memset copy (fail), padding included */
    kcbp2d_distance_result r;
    r.status = KCBP2D_APART;
    r.distance = r.depth = r.signed_distance = r.scale = 0;
    r.normal = kcbp_v2_make(0, 1);
    r.point_a = r.point_b = kcbp_v2_make(0, 0);
    r.iterations = 0;
    r.depth_computed = true;
    size_t out_size = result_size < sizeof r ? result_size : sizeof r;
    /* on failure the result is left zeroed (normal (0, 1)): written here
     * for a result too small, by fail() on the other errors */
    if (!result || result_size < RESULT_V1_SIZE) {
        if (result && out_size)
            fail(result, &r, out_size, KCBP_OK);
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D distance: result of size %zu, too small", result_size);
    }
    /* kcbp2d_distance_options_init's defaults, inline (a call and a
     * memcpy of variable size were 2% of a query) */
    kcbp2d_distance_options o;
    memset(&o, 0, sizeof o);
    o.size = (uint32_t)sizeof o;
    o.max_iterations = KCBP2D_GJK_MAX_ITERATIONS_DEFAULT;
    o.want_depth = true;
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, OPTIONS_V1_SIZE, "2D distance",
                                              "kcbp2d_distance_options_default", err);
        if (st != KCBP_OK)
            return fail(result, &r, out_size, st);
    }
    if (o.max_iterations < 1)
        return fail(result, &r, out_size,
                    kcbp_error_set(err, KCBP_ERR_INVALID, "2D distance: max_iterations %d < 1", o.max_iterations));
    kcbp2d_core ca, cb;
    kcbp_status st = kcbp2d_cores_posed(a, pose_a, b, pose_b, &ca, &cb, err);
    if (st != KCBP_OK)
        return fail(result, &r, out_size, st);
    /* two polygons without radius: the filtered SAT (collide2d.c) first;
     * its verdict stands when neither polygon is replaced by its hull */
    int sep_shape = -1;
    uint32_t sep_edge = 0;
    kcbp2d_sat_min dm;
    kcbp2d_sat_verdict v = KCBP2D_SAT_UNDECIDED;
    kcbp2d_meet_verdict mv = KCBP2D_MEET_UNKNOWN;
    if (!o.want_depth && ca.r == 0 && cb.r == 0) {
        /* no depth wanted: the search that stops at the first vertex
         * proving an edge's overlap deep (sat2d_meet.c); the status it
         * settles is the one the default call reports */
        uint32_t vx = 0;
        mv = kcbp2d_sat_meet(&ca, &cb, KCBP2D_TOUCH_REL_TOL, &sep_shape, &sep_edge, &vx);
        if (mv == KCBP2D_MEET_TOUCHING || mv == KCBP2D_MEET_OVERLAPPING) {
            r.status = mv == KCBP2D_MEET_TOUCHING ? KCBP2D_TOUCHING : KCBP2D_OVERLAPPING;
            r.scale = ca.scale > cb.scale ? ca.scale : cb.scale;
            r.depth_computed = false;
            kcbp2d_core_free(&ca);
            kcbp2d_core_free(&cb);
            put_result(result, &r, out_size);
            return KCBP_OK;
        }
        if (mv == KCBP2D_MEET_SEPARATED) {
            /* kcbp2d_sat_filtered's verdict, edge and vertex: the default path */
            v = KCBP2D_SAT_SEPARATED;
            dm.depth = INFINITY, dm.shape = -1, dm.edge = 0, dm.vertex = vx, dm.convex = false, dm.len = 1;
        }
    }
    if (mv != KCBP2D_MEET_SEPARATED && ca.r == 0 && cb.r == 0)
        v = kcbp2d_sat_filtered(&ca, &cb, &sep_shape, &sep_edge, &dm);
    kcbp2d_decision d;
    if (v == KCBP2D_SAT_SEPARATED) {
        const kcbp2d_core *c = sep_shape == 0 ? &ca : &cb, *oc = sep_shape == 0 ? &cb : &ca;
        kcbp_vec2 foot, n;
        double g;
        if (sep_edge < c->n && dm.vertex < oc->n && vertex_facing_edge(c, sep_edge, oc->v[dm.vertex], &foot, &n, &g)) {
            /* apart (radii 0): the whole answer */
            r.status = KCBP2D_APART;
            r.distance = r.signed_distance = g;
            r.scale = ca.scale > cb.scale ? ca.scale : cb.scale;
            if (sep_shape == 0)
                r.normal = n, r.point_a = foot, r.point_b = oc->v[dm.vertex];
            else
                r.normal = kcbp_v2_neg(n), r.point_a = oc->v[dm.vertex], r.point_b = foot;
            kcbp2d_core_free(&ca);
            kcbp2d_core_free(&cb);
            put_result(result, &r, out_size);
            return KCBP_OK;
        }
        /* apart, proven for the hulls of the posed vertices: GJK needs
         * only their supports, so no convexity step unless it falls back
         * (rounding made it report an overlap) */
        memset(&d, 0, sizeof d);
        d.decided_by = KCBP2D_DECIDED_SAT;
        d.sep_shape = sep_shape, d.sep_edge = sep_edge;
        if (!sat_gap_distance(&ca, &cb, sep_shape, sep_edge, dm.vertex, &d.gjk))
            kcbp2d_gjk_edge(&ca, &cb, sep_shape, sep_edge, dm.vertex, o.max_iterations, &d.gjk);
        d.have_gjk = true;
        if (d.gjk.overlap)
            v = KCBP2D_SAT_UNDECIDED;
    }
    if (v == KCBP2D_SAT_NO_SEPARATOR && dm.convex && dm.shape >= 0) {
        /* both polygons certified strictly convex by the SAT's own pass
         * over their turns (kcbp2d_cores_finish would change nothing): the
         * cores intersect, radii 0, and the SAT's minimum is the whole
         * answer, as the general path below reports it */
        const kcbp2d_core *e = dm.shape == 0 ? &ca : &cb, *oc = dm.shape == 0 ? &cb : &ca;
        kcbp_vec2 ed = kcbp_v2_sub(e->v[dm.edge + 1 < e->n ? dm.edge + 1 : 0], e->v[dm.edge]);
        kcbp_vec2 n = kcbp_v2_make(ed.y / dm.len, -ed.x / dm.len);
        double depth = dm.depth > 0 ? dm.depth : 0.0;
        kcbp_vec2 deep = oc->v[dm.vertex], on_line = kcbp_v2_add(deep, kcbp_v2_scale(n, depth));
        if (dm.shape == 0)
            r.normal = n, r.point_a = on_line, r.point_b = deep;
        else
            r.normal = kcbp_v2_neg(n), r.point_a = deep, r.point_b = on_line;
        r.scale = ca.scale > cb.scale ? ca.scale : cb.scale;
        r.depth = depth;
        r.signed_distance = depth > 0 ? -depth : 0.0; /* touching: +0, never -0 */
        r.status = depth <= KCBP2D_TOUCH_REL_TOL * r.scale ? KCBP2D_TOUCHING : KCBP2D_OVERLAPPING;
        kcbp2d_core_free(&ca);
        kcbp2d_core_free(&cb);
        put_result(result, &r, out_size);
        return KCBP_OK;
    } else if (v != KCBP2D_SAT_SEPARATED) {
        if ((st = kcbp2d_cores_finish(&ca, &cb, err)) != KCBP_OK)
            return fail(result, &r, out_size, st);
        if (ca.hulled || cb.hulled)
            v = KCBP2D_SAT_UNDECIDED;
        if (v == KCBP2D_SAT_UNDECIDED)
            kcbp2d_decide(&ca, &cb, 0.0, o.max_iterations, true, &d);
        else
            kcbp2d_decide_after_sat(&ca, &cb, true, -1, 0, o.max_iterations, &d);
    }
    double ra = ca.r, rb = cb.r;
    r.scale = (ca.scale > cb.scale ? ca.scale : cb.scale) + ra + rb; /* not fmax: a call */
    if (d.cores_intersect) {
        kcbp_vec2 n, wa, wb;
        double core_depth;
        if (v == KCBP2D_SAT_NO_SEPARATOR && dm.shape >= 0) {
            /* the filtered SAT's depth (every edge was seen): as
             * kcbp2d_sat_depth reports it */
            const kcbp2d_core *e = dm.shape == 0 ? &ca : &cb, *oc = dm.shape == 0 ? &cb : &ca;
            kcbp_vec2 ed = kcbp_v2_sub(e->v[dm.edge + 1 < e->n ? dm.edge + 1 : 0], e->v[dm.edge]);
            double len = kcbp2d_len(ed);
            n = kcbp_v2_make(ed.y / len, -ed.x / len);
            core_depth = dm.depth > 0 ? dm.depth : 0.0;
            kcbp_vec2 deep = oc->v[dm.vertex], on_line = kcbp_v2_add(deep, kcbp_v2_scale(n, core_depth));
            if (dm.shape == 0)
                wa = on_line, wb = deep;
            else
                n = kcbp_v2_neg(n), wa = deep, wb = on_line;
        } else {
            core_depth = kcbp2d_sat_depth(&ca, &cb, &n, &wa, &wb);
        }
        r.depth = core_depth + ra + rb;
        r.normal = n;
        r.point_a = kcbp_v2_add(wa, kcbp_v2_scale(n, ra));
        r.point_b = kcbp_v2_sub(wb, kcbp_v2_scale(n, rb));
    } else {
        double dc = d.gjk.distance;
        kcbp_vec2 n;
        if (dc > 0)
            n = kcbp_v2_scale(kcbp_v2_sub(d.gjk.pb, d.gjk.pa), 1.0 / dc);
        else
            n = fallback_normal(&ca, &cb, &d);
        r.normal = n;
        r.iterations = d.gjk.iterations;
        r.point_a = kcbp_v2_add(d.gjk.pa, kcbp_v2_scale(n, ra));
        r.point_b = kcbp_v2_sub(d.gjk.pb, kcbp_v2_scale(n, rb));
        if (d.collide)
            r.depth = ra + rb - dc > 0 ? ra + rb - dc : 0.0;
        else
            r.distance = dc - ra - rb > 0 ? dc - ra - rb : 0.0;
    }
    if (!d.collide)
        r.status = KCBP2D_APART;
    else
        r.status = r.depth <= KCBP2D_TOUCH_REL_TOL * r.scale ? KCBP2D_TOUCHING : KCBP2D_OVERLAPPING;
    r.signed_distance = d.collide ? (r.depth > 0 ? -r.depth : 0.0) : r.distance; /* never -0 */
    kcbp2d_core_free(&ca);
    kcbp2d_core_free(&cb);
    put_result(result, &r, out_size);
    return KCBP_OK;
}
