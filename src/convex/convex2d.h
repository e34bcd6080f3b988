/* The 2D layer's internal view of a posed convex shape: its core's posed
 * vertices (world frame) and its radius; and the algorithms on cores
 * (src/convex/sat2d.c, gjk2d.c). Internal: not installed.
 *
 * A core is a point (n == 1), a segment (n == 2; its "edges" are 0->1 and
 * 1->0), or a strictly convex counter-clockwise polygon (n >= 3). The
 * vertices are the shape's, moved by kcbp2d_pose_apply; when rounding made
 * a posed polygon not strictly convex, they are replaced by their exact
 * convex hull (kcbp2d_hull), which is the set the queries answer for. */
#ifndef KCBP_CONVEX2D_H
#define KCBP_CONVEX2D_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <kcbp/pose2d.h>
#include <kcbp/shape2d.h>

#include "geom/predicates.h"

#define KCBP2D_CORE_INLINE 16

/* v may point into buf: a core is made in place and never copied. */
typedef struct {
    const kcbp_vec2 *v; /* n posed vertices */
    uint32_t n;
    double r;           /* the radius */
    double scale;       /* max |coordinate| of v (>= 0) */
    bool hulled;        /* v was replaced by the hull of the posed vertices */
    kcbp_vec2 buf[KCBP2D_CORE_INLINE];
    kcbp_vec2 *heap;    /* owned when not NULL */
} kcbp2d_core;

/* kcbp2d_shape_check, with the polygon's convexity checked only when
 * convexity is true (the queries pass false: a posed polygon that is not
 * strictly convex is replaced by its hull anyway). */
kcbp_status kcbp2d_shape_check_ex(const kcbp2d_shape *s, bool convexity, kcbp_error *err);

/* The posed core of a checked shape. KCBP_ERR_NOMEM only. */
kcbp_status kcbp2d_core_make(const kcbp2d_shape *s, const kcbp2d_pose *pose, kcbp2d_core *c, kcbp_error *err);
/* kcbp2d_core_make in two steps, for callers that check the pose between
 * them: core_pose checks the shape (as kcbp2d_shape_check_ex without
 * convexity, the same errors) and moves its vertices (any finite pose or
 * not: only arithmetic) and sets the scale of the posed vertices;
 * core_finish, for a valid pose, makes the core
 * strictly convex (the hull when rounding broke it) and sets its scale.
 * On failure nothing is left allocated. */
kcbp_status kcbp2d_core_pose(const kcbp2d_shape *s, const kcbp2d_pose *pose, kcbp2d_core *c, kcbp_error *err);
kcbp_status kcbp2d_core_finish(kcbp2d_core *c, kcbp_error *err);
/* Frees the core's heap vertices, if any (inline: the common core has
 * none, and a call to free(NULL) per core was 1% of a 2D distance). */
static inline void kcbp2d_core_free(kcbp2d_core *c)
{
    if (c->heap) {
        free(c->heap);
        c->heap = NULL;
    }
}

static inline kcbp_v2 kcbp2d_pv(kcbp_vec2 p)
{
    kcbp_v2 q = {p.x, p.y};
    return q;
}
/* The exact sign of orient2d(p, q, r): > 0 when r is left of p -> q. */
static inline int kcbp2d_orient(kcbp_vec2 p, kcbp_vec2 q, kcbp_vec2 r)
{
    return kcbp_orient2d_v(kcbp2d_pv(p), kcbp2d_pv(q), kcbp2d_pv(r));
}

/* |a| by one square root where the squares neither underflow nor
 * overflow (relative error about 1.5u, against hypot's 1u, which the call
 * costs many times over), else hypot. */
static inline double kcbp2d_len(kcbp_vec2 a)
{
    double l2 = a.x * a.x + a.y * a.y;
    return l2 > 1e-280 && l2 < 1e280 ? sqrt(l2) : hypot(a.x, a.y);
}

/* The SAT scans' cross products (sat2d.c, sat2d_meet.c: both must round
 * them alike, so that the second's verdict is the first's). For an edge
 * from p with vector e = fl(q - p) and the vertices r of o:
 * kcbp2d_edge_max returns the largest of e x (r - p) over o and, in *km,
 * the first vertex reaching it; kcbp2d_edge_min the smallest over c's
 * vertices other than i and i1 (INFINITY when none). Each is computed as
 * fl(fl(e.x r.y - e.y r.x) - fl(e.x p.y - e.y p.x)) (every product and
 * difference rounded once): the extreme is taken before the subtraction
 * of the edge's own term, which is monotone, so the number is the one a
 * subtraction per vertex would give (the vertex the first reaching the
 * extreme before it); two products and one difference per vertex instead
 * of two more differences. The error against orient2d(p, q, r) = (q - p) x
 * (r - p): each of the four products within u |e|_1 S (S >= every
 * |coordinate| of p and r), the two inner differences within u (1 + u)
 * |e|_1 S each, the outer one within u 2 (1 + u)^2 |e|_1 S, and e's own
 * rounding (|e_j - (q_j - p_j)| <= u |e_j| (1 + u), |r - p| <= 2S) within
 * 2u (1 + u) |e|_1 S: together below 8.1u |e|_1 S, under the scans'
 * filter bound 16u S |e|_1 (plus KCBP_PRED_TINY for the products'
 * underflow, at most 6 of 2^-1075 each). */
static inline double kcbp2d_edge_max(kcbp_vec2 e, kcbp_vec2 p, const kcbp2d_core *o, uint32_t *km)
{
    double mx = -INFINITY;
    uint32_t k = 0;
    for (uint32_t t = 0; t < o->n; t++) {
        kcbp_vec2 r = o->v[t];
        double f = e.x * r.y - e.y * r.x;
        k = f > mx ? t : k;
        mx = f > mx ? f : mx;
    }
    *km = k;
    return mx - (e.x * p.y - e.y * p.x);
}
static inline double kcbp2d_edge_min(kcbp_vec2 e, kcbp_vec2 p, const kcbp2d_core *c, uint32_t i, uint32_t i1)
{
    double mn = INFINITY;
    for (uint32_t j = 0; j < c->n; j++) {
        kcbp_vec2 r = c->v[j];
        double f = e.x * r.y - e.y * r.x;
        f = j == i || j == i1 ? INFINITY : f; /* the edge's ends */
        mn = f < mn ? f : mn;
    }
    return mn - (e.x * p.y - e.y * p.x);
}

/* n >= 3 points strictly convex and counter-clockwise, exactly (as
 * kcbp2d_shape_check decides it). */
bool kcbp2d_polygon_is_strictly_convex(const kcbp_vec2 *v, uint32_t n);

/* Whether the cores (closed convex sets) share a point, exactly. When they
 * do not and an edge line separates them, *sep_shape (0: a's edge, 1: b's)
 * and *sep_edge name it; -1 otherwise (collinear degenerate cores). */
bool kcbp2d_sat_intersect(const kcbp2d_core *a, const kcbp2d_core *b, int *sep_shape, uint32_t *sep_edge);

/* For cores that intersect: the separating-axis minimum over both cores'
 * edge normals (the cores' penetration depth, >= 0), its unit normal from
 * a toward b, and the witnesses on the cores: *wa on a's boundary line,
 * *wb a vertex of b, *wa - *wb == depth * normal (up to rounding). Two
 * point cores: depth 0, normal (0, 1). */
double kcbp2d_sat_depth(const kcbp2d_core *a, const kcbp2d_core *b, kcbp_vec2 *normal, kcbp_vec2 *wa,
                        kcbp_vec2 *wb);

/* kcbp2d_sat_intersect's search with the orient2d filter alone, on posed
 * polygons (n >= 3 each) not yet made convex (kcbp2d_core_pose; scale
 * set): SEPARATED when an edge line has every vertex of the other polygon
 * certified strictly on its right and every other vertex of its own
 * polygon certified strictly on its left (it separates the two hulls,
 * convex or not; *sep_shape, *sep_edge name it, the edge
 * kcbp2d_sat_intersect names when the polygons are strictly convex);
 * NO_SEPARATOR when every edge has a vertex of the other certified on its
 * left (the cores intersect when both polygons turn out strictly convex,
 * kcbp2d_core_finish leaving them as they are); UNDECIDED otherwise. */
typedef enum { KCBP2D_SAT_UNDECIDED, KCBP2D_SAT_SEPARATED, KCBP2D_SAT_NO_SEPARATOR } kcbp2d_sat_verdict;
typedef struct {
    double depth;     /* the smallest over the edges seen of the other's deepest vertex's depth */
    int shape;        /* its edge: 0 a's, 1 b's (-1: none) */
    uint32_t edge, vertex; /* the edge and the other's deepest vertex */
    double len;       /* with NO_SEPARATOR: the edge's length, kcbp2d_len of its vector */
    bool convex;      /* with NO_SEPARATOR: both polygons certified strictly convex and
                         counter-clockwise by the filter of kcbp2d_core_finish's check (every
                         turn left beyond its error bound, one wrap), so that core_finish would
                         leave them as they are */
} kcbp2d_sat_min;
/* dm, when not NULL, receives the SAT depth of kcbp2d_sat_depth as the
 * search finds it, valid when the verdict is NO_SEPARATOR (every edge
 * seen): depth = max over the other's vertices of e x (r - p), over |e|
 * (the same quantity as kcbp2d_sat_depth's, rounded differently: a few
 * ulps of the scale). When the verdict is SEPARATED, only dm->vertex is
 * set: the other polygon's vertex nearest the separating edge's line (the
 * largest e x (r - p), the first of equals). */
kcbp2d_sat_verdict kcbp2d_sat_filtered(const kcbp2d_core *a, const kcbp2d_core *b, int *sep_shape,
                                       uint32_t *sep_edge, kcbp2d_sat_min *dm);

/* kcbp2d_sat_filtered's search for a caller that needs the verdict and,
 * for polygons that meet, only whether the depth kcbp2d_sat_filtered would
 * report exceeds touch_rel times the scale (sat2d_meet.c; polygons n >= 3
 * each, posed, scale set): OVERLAPPING (it does, for certain) or TOUCHING
 * (it does not) with both polygons certified strictly convex by the same
 * turn filter (dm->convex); SEPARATED with the edge and the other
 * polygon's vertex that kcbp2d_sat_filtered names (its *sep_shape,
 * *sep_edge and dm->vertex); UNKNOWN otherwise (its verdict UNDECIDED,
 * convexity not certified, or a depth within 2^-20 of the tolerance): the
 * caller asks kcbp2d_sat_filtered. Edges whose overlap is deep are left at
 * the first vertex that proves it. */
typedef enum {
    KCBP2D_MEET_UNKNOWN,
    KCBP2D_MEET_SEPARATED,
    KCBP2D_MEET_TOUCHING,
    KCBP2D_MEET_OVERLAPPING,
} kcbp2d_meet_verdict;
kcbp2d_meet_verdict kcbp2d_sat_meet(const kcbp2d_core *a, const kcbp2d_core *b, double touch_rel, int *sep_shape,
                                    uint32_t *sep_edge, uint32_t *vertex);

typedef struct {
    bool overlap;       /* GJK found the origin in the difference (cores overlap, up to rounding) */
    double distance;    /* between the cores, >= 0 */
    kcbp_vec2 pa, pb;   /* closest points on the cores */
    int iterations;
} kcbp2d_gjk_out;

/* GJK distance between the cores (see distance2d.h for the sources). */
void kcbp2d_gjk(const kcbp2d_core *a, const kcbp2d_core *b, int max_iterations, kcbp2d_gjk_out *out);
/* The same, started from the support points of a along dir and of b
 * against it (dir roughly from a toward b, e.g. a separating edge's
 * normal: fewer iterations); dir (0, 0): from the first vertices. */
void kcbp2d_gjk_dir(const kcbp2d_core *a, const kcbp2d_core *b, kcbp_vec2 dir, int max_iterations,
                    kcbp2d_gjk_out *out);
/* The same, started from the simplex of edge `edge` of core `shape` (0 a,
 * 1 b; n >= 3) against vertex `vertex` of the other core, for cores apart:
 * an edge that separates them and the other's vertex nearest its line
 * (kcbp2d_sat_filtered's), often the closest features already. Any valid
 * indices give the same distance (to rounding), only more steps. */
void kcbp2d_gjk_edge(const kcbp2d_core *a, const kcbp2d_core *b, int shape, uint32_t edge, uint32_t vertex,
                     int max_iterations, kcbp2d_gjk_out *out);

/* A GJK simplex remembered between calls on the same cores moved a little
 * (as Box2D's b2SimplexCache): n (0..2) vertices of the difference, each
 * named by its core vertices' indices. n == 0: start from the first
 * vertices. Indices beyond a core's count are dropped. */
typedef struct {
    int n;
    uint32_t ia[2], ib[2];
} kcbp2d_gjk_cache;
/* kcbp2d_gjk started from the cached simplex; the cache receives the last
 * simplex (reduced to at most 2 vertices: s[0] and s[n - 1] are the
 * features). measure false: the closest points are the last simplex's
 * weighted ones, not measured again as a segment pair (cheaper; the
 * distance may then be larger or smaller than the true one by more than
 * rounding: a direction, not a bound). */
void kcbp2d_gjk_warm(const kcbp2d_core *a, const kcbp2d_core *b, kcbp2d_gjk_cache *cache, int max_iterations,
                     bool measure, kcbp2d_gjk_out *out);

/* The point *y of segment [a, b] closest to x (the clamped projection)
 * and *dist = |x - y|, by squares (one division, one square root) where
 * no square can underflow or overflow (squared lengths 0 or within
 * [1e-280, 1e280]); false otherwise, *y and *dist then unset. GJK's own
 * last measure (gjk2d.c). */
bool kcbp2d_point_seg_dist(kcbp_vec2 x, kcbp_vec2 a, kcbp_vec2 b, kcbp_vec2 *y, double *dist);

/* The distance between the cores by every (edge, edge) pair in double,
 * for cores known apart: the fallback when GJK is cut short, and the
 * tests' reference. */
double kcbp2d_brute_distance(const kcbp2d_core *a, const kcbp2d_core *b, kcbp_vec2 *pa, kcbp_vec2 *pb);

/* The closest points of segments [p0, p1] and [q0, q1] that do not cross
 * (points as zero-length segments): the nearest of the four endpoint to
 * segment candidates; returns the distance (computed without squares,
 * which would underflow for tiny coordinates). */
double kcbp2d_cp_seg_seg(kcbp_vec2 p0, kcbp_vec2 p1, kcbp_vec2 q0, kcbp_vec2 q1, kcbp_vec2 *cp, kcbp_vec2 *cq);

#endif
