/* 2D shapes: makers, the exact check, and posed cores (shape2d.h,
 * convex2d.h). */
#include <kcbp/shape2d.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convex/convex2d.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

kcbp2d_shape kcbp2d_shape_circle(double radius)
{
    kcbp2d_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP2D_CIRCLE;
    s.radius = radius;
    return s;
}

kcbp2d_shape kcbp2d_shape_capsule(double radius, double length)
{
    kcbp2d_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP2D_CAPSULE;
    s.radius = radius;
    s.local[0] = kcbp_v2_make(-0.5 * length, 0.0);
    s.local[1] = kcbp_v2_make(0.5 * length, 0.0);
    return s;
}

kcbp2d_shape kcbp2d_shape_segment(kcbp_vec2 p0, kcbp_vec2 p1)
{
    kcbp2d_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP2D_SEGMENT;
    s.local[0] = p0;
    s.local[1] = p1;
    return s;
}

kcbp2d_shape kcbp2d_shape_box(double width, double height, double radius)
{
    kcbp2d_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP2D_BOX;
    s.radius = radius;
    s.local[0] = kcbp_v2_make(0.5 * width, 0.5 * height);
    return s;
}

kcbp2d_shape kcbp2d_shape_polygon(const kcbp_vec2 *points, uint32_t npoints, double radius)
{
    kcbp2d_shape s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP2D_POLYGON;
    s.radius = radius;
    s.points = points;
    s.npoints = npoints;
    return s;
}

const char *kcbp2d_shape_kind_name(kcbp2d_shape_kind kind)
{
    switch (kind) {
    case KCBP2D_CIRCLE: return "circle";
    case KCBP2D_CAPSULE: return "capsule";
    case KCBP2D_SEGMENT: return "segment";
    case KCBP2D_BOX: return "box";
    case KCBP2D_POLYGON: return "polygon";
    }
    return "unknown";
}

/* A length: finite, > 0 (>= 0 when zero_ok), within the limits unless 0. */
static kcbp_status check_length(const char *shape, const char *what, double v, bool zero_ok, kcbp_error *err)
{
    if (!isfinite(v))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D %s: %s is not finite", shape, what);
    if (v == 0.0 && zero_ok)
        return KCBP_OK;
    if (v <= 0.0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D %s: %s must be %s 0 (got %g)", shape, what,
                              zero_ok ? ">=" : ">", v);
    if (v > KCBP2D_SHAPE_MAX || v < KCBP2D_SHAPE_MIN)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D %s: %s %g outside [%g, %g]", shape, what, v,
                              KCBP2D_SHAPE_MIN, KCBP2D_SHAPE_MAX);
    return KCBP_OK;
}

static kcbp_status check_point(const char *shape, const char *what, uint32_t i, kcbp_vec2 p, kcbp_error *err)
{
    if (!kcbp_v2_is_finite(p))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D %s: %s %u is not finite", shape, what, (unsigned)i);
    if (fabs(p.x) > KCBP_COORD_MAX || fabs(p.y) > KCBP_COORD_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D %s: %s %u beyond %g", shape, what, (unsigned)i,
                              KCBP_COORD_MAX);
    return KCBP_OK;
}

/* The half-plane of a direction's angle: 0 for [0, pi), 1 for [pi, 2 pi),
 * decided on the signs of the edge vector e = q - p computed in double
 * (a rounded difference has the exact difference's sign, and is 0 only
 * when q == p: gradual underflow makes tiny differences exact). */
static inline int dir_half(kcbp_vec2 e) { return (e.y > 0 || (e.y == 0 && e.x > 0)) ? 0 : 1; }

/* Strictly convex and counter-clockwise, exactly: every consecutive triple
 * turns left (orient2d > 0) and the edge directions wind once. With all
 * turns left (each less than pi), a step wraps past angle 0 exactly when
 * the direction goes from the lower half-plane to the upper one; winding
 * once is one such step. Returns the first bad vertex, or n when good.
 *
 * Each edge vector is computed once: the turn at q of p, q, r is
 * orient2d(p, q, r) = (q - p) x (r - q) exactly, and that cross product of
 * two rounded differences of the inputs is the shape Shewchuk's orient2d
 * filter bound covers (kcbp_cross2d_filter); when it cannot tell, the
 * exact predicate decides on the points. */
static uint32_t first_not_convex_exact(const kcbp_vec2 *v, uint32_t n);

/* The common case first, without branches in the loop (a polygon's turns
 * and half-planes are data the branch predictor cannot learn): every turn
 * certified left by the filter and one wrap mean strictly convex, the
 * verdict first_not_convex_exact reaches then; anything else goes to it. */
static uint32_t first_not_convex(const kcbp_vec2 *v, uint32_t n)
{
    /* The wraps counted with the half-planes y < 0 and y >= 0 (one
     * comparison, where dir_half takes four): when every turn is strictly
     * left, a step turns by less than pi, so it goes from y < 0 to y >= 0
     * exactly when its direction passes (or lands on) angle 0, as
     * dir_half's 1 -> 0 steps do: from an angle in (pi, 2 pi) a turn of
     * less than pi ends in (pi, 3 pi), and it ends at y >= 0 only in
     * [2 pi, 3 pi). Both counts are the winding number then. */
    kcbp_vec2 q = v[n - 1], e_pq = kcbp_v2_sub(q, v[n - 2]);
    unsigned neg_pq = e_pq.y < 0;
    unsigned ok = 1, wraps = 0;
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec2 r = v[i], e_qr = kcbp_v2_sub(r, q);
        double l = e_pq.x * e_qr.y, rr = e_pq.y * e_qr.x;
        double det = l - rr, bound = KCBP_PRED_O2_ERR * (fabs(l) + fabs(rr)) + KCBP_PRED_TINY;
        ok &= det > bound;
        unsigned neg_qr = e_qr.y < 0;
        wraps += neg_pq & (neg_qr ^ 1u);
        q = r, e_pq = e_qr, neg_pq = neg_qr;
    }
    return ok && wraps == 1 ? n : first_not_convex_exact(v, n);
}

static uint32_t first_not_convex_exact(const kcbp_vec2 *v, uint32_t n)
{
    uint32_t wraps = 0;
    kcbp_vec2 p = v[n - 2], q = v[n - 1];
    kcbp_vec2 e_pq = kcbp_v2_sub(q, p);
    int h_pq = dir_half(e_pq);
    for (uint32_t i = 0; i < n; i++) {
        kcbp_vec2 r = v[i], e_qr = kcbp_v2_sub(r, q);
        int turn = kcbp_cross2d_filter(e_pq.x, e_pq.y, e_qr.x, e_qr.y);
        if (turn <= 0 && (turn < 0 || kcbp2d_orient(p, q, r) <= 0))
            return i ? i - 1 : n - 1; /* q's index */
        int h_qr = dir_half(e_qr);
        wraps += (h_pq == 1 && h_qr == 0);
        p = q, q = r, e_pq = e_qr, h_pq = h_qr;
    }
    return wraps == 1 ? n : 0;
}

bool kcbp2d_polygon_is_strictly_convex(const kcbp_vec2 *v, uint32_t n) { return n >= 3 && first_not_convex(v, n) == n; }

kcbp_status kcbp2d_shape_check_ex(const kcbp2d_shape *s, bool convexity, kcbp_error *err)
{
    if (!s)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D shape is NULL");
    const char *name = kcbp2d_shape_kind_name(s->kind);
    kcbp_status st;
    switch (s->kind) {
    case KCBP2D_CIRCLE:
        if ((st = check_length(name, "radius", s->radius, false, err)) != KCBP_OK)
            return st;
        return check_point(name, "centre", 0, s->local[0], err);
    case KCBP2D_CAPSULE:
        if ((st = check_length(name, "radius", s->radius, false, err)) != KCBP_OK)
            return st;
        /* the maker's form, along x: its length must be a length */
        if (s->local[0].y == 0 && s->local[1].y == 0 && s->local[0].x == -s->local[1].x &&
            (st = check_length(name, "length", s->local[1].x - s->local[0].x, true, err)) != KCBP_OK)
            return st;
        break;
    case KCBP2D_SEGMENT:
    case KCBP2D_POLYGON:
        if ((st = check_length(name, "radius", s->radius, true, err)) != KCBP_OK)
            return st;
        break;
    case KCBP2D_BOX:
        if ((st = check_length(name, "radius", s->radius, true, err)) != KCBP_OK)
            return st;
        if ((st = check_length(name, "half width", s->local[0].x, false, err)) != KCBP_OK ||
            (st = check_length(name, "half height", s->local[0].y, false, err)) != KCBP_OK)
            return st;
        return KCBP_OK;
    default: return kcbp_error_set(err, KCBP_ERR_INVALID, "2D shape: unknown kind %d", (int)s->kind);
    }
    if (s->kind != KCBP2D_POLYGON) {
        for (uint32_t i = 0; i < 2; i++)
            if ((st = check_point(name, "end", i, s->local[i], err)) != KCBP_OK)
                return st;
        return KCBP_OK;
    }
    if (!s->points || s->npoints < 3)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D polygon: %u points, at least 3 needed",
                              s->points ? (unsigned)s->npoints : 0u);
    if (s->npoints > KCBP2D_POLYGON_MAX)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "2D polygon: %u points, more than %u", (unsigned)s->npoints,
                              KCBP2D_POLYGON_MAX);
    /* one comparison per coordinate (NaN fails it); the message from
     * check_point only for the first bad point */
    for (uint32_t i = 0; i < s->npoints; i++)
        if (!(fabs(s->points[i].x) <= KCBP_COORD_MAX && fabs(s->points[i].y) <= KCBP_COORD_MAX))
            return check_point(name, "point", i, s->points[i], err);
    uint32_t bad = convexity ? first_not_convex(s->points, s->npoints) : s->npoints;
    if (bad != s->npoints)
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "2D polygon: not strictly convex and counter-clockwise at point %u (use kcbp2d_hull)",
                              (unsigned)bad);
    return KCBP_OK;
}

kcbp_status kcbp2d_shape_check(const kcbp2d_shape *s, kcbp_error *err) { return kcbp2d_shape_check_ex(s, true, err); }

/* ---- posed cores ------------------------------------------------------- */

/* The shape's core vertices moved by the pose into c (v, n, r), without
 * the convexity step; nothing allocated on failure. For a polygon, its
 * points are checked while they are moved (one pass): a bad one is named
 * by kcbp2d_shape_check_ex. Other kinds are checked first. */
kcbp_status kcbp2d_core_pose(const kcbp2d_shape *s, const kcbp2d_pose *pose, kcbp2d_core *c, kcbp_error *err)
{
    c->heap = NULL;
    c->v = c->buf;
    c->n = 0;
    c->scale = 0;
    c->hulled = false;
    if (!s)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D shape is NULL");
    c->r = s->radius;
    kcbp_vec2 *v = c->buf;
    uint32_t n;
    kcbp_status st;
    if (s->kind != KCBP2D_POLYGON) {
        if ((st = kcbp2d_shape_check_ex(s, false, err)) != KCBP_OK)
            return st;
    } else if (!(s->radius == 0 || (s->radius >= KCBP2D_SHAPE_MIN && s->radius <= KCBP2D_SHAPE_MAX)) ||
               !s->points || s->npoints < 3 || s->npoints > KCBP2D_POLYGON_MAX) {
        return kcbp2d_shape_check_ex(s, false, err); /* its message */
    }
    switch (s->kind) {
    case KCBP2D_CIRCLE: n = 1, v[0] = kcbp2d_pose_apply(pose, s->local[0]); break;
    case KCBP2D_BOX: {
        kcbp_vec2 h = s->local[0];
        const kcbp_vec2 corner[4] = {{-h.x, -h.y}, {h.x, -h.y}, {h.x, h.y}, {-h.x, h.y}};
        n = 4;
        for (int i = 0; i < 4; i++)
            v[i] = kcbp2d_pose_apply(pose, corner[i]);
        break;
    }
    case KCBP2D_POLYGON: {
        n = s->npoints;
        if (n > KCBP2D_CORE_INLINE) {
            if (!(c->heap = malloc((size_t)n * sizeof *c->heap)))
                return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D shape: out of memory for %u vertices", (unsigned)n);
            v = c->heap;
        }
        /* The points' check by one bound per polygon: the sums of the
         * coordinates' magnitudes, each at most 1e66 for valid points
         * (n <= KCBP2D_POLYGON_MAX), so every coordinate is within
         * KCBP_COORD_MAX when its sum is (NaN and infinities fail the
         * comparison); only when the sums do not prove it, the per-point
         * comparison. The pose's numbers in locals (stores to v could
         * alias it), the posed scale by one maximum per axis (plain
         * comparisons: fmax is a call, for NaN rules): the loop is the
         * pose's arithmetic, and the posed points are those of
         * kcbp2d_pose_apply, bit for bit. */
        const kcbp2d_pose q = *pose;
        const kcbp_vec2 *pts = s->points;
        double ax, ay, sx, sy;
#if defined(__SSE2__)
        {
            /* a point per register: (c x, c y) + (-(s y), s x) + t is
             * kcbp2d_pose_apply's (c x - s y) + tx, (s x + c y) + ty bit
             * for bit (a - b is a + (-b), the sum commutes); the sums and
             * maxima of the magnitudes lane by lane (maxpd: NaN only in
             * points the sums refuse) */
            const __m128d cc = _mm_set1_pd(q.c), ss = _mm_set1_pd(q.s), t = _mm_set_pd(q.trans.y, q.trans.x);
            const __m128d neg_lo = _mm_set_pd(0.0, -0.0), abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
            __m128d asum = _mm_setzero_pd(), smax = _mm_setzero_pd();
            for (uint32_t i = 0; i < n; i++) {
                __m128d p = _mm_loadu_pd(&pts[i].x);
                __m128d sw = _mm_xor_pd(_mm_mul_pd(ss, _mm_shuffle_pd(p, p, 1)), neg_lo);
                __m128d w = _mm_add_pd(_mm_add_pd(_mm_mul_pd(cc, p), sw), t);
                _mm_storeu_pd(&v[i].x, w);
                asum = _mm_add_pd(asum, _mm_and_pd(p, abs_mask));
                smax = _mm_max_pd(_mm_and_pd(w, abs_mask), smax);
            }
            double lo[2], hi[2];
            _mm_storeu_pd(lo, asum);
            _mm_storeu_pd(hi, smax);
            ax = lo[0], ay = lo[1], sx = hi[0], sy = hi[1];
        }
#else
        ax = ay = sx = sy = 0;
        for (uint32_t i = 0; i < n; i++) {
            kcbp_vec2 p = pts[i];
            ax += fabs(p.x), ay += fabs(p.y);
            kcbp_vec2 w = kcbp2d_pose_apply(&q, p);
            v[i] = w;
            double x = fabs(w.x), y = fabs(w.y);
            sx = x > sx ? x : sx;
            sy = y > sy ? y : sy;
        }
#endif
        double sc = sx > sy ? sx : sy;
        int ok = ax <= KCBP_COORD_MAX && ay <= KCBP_COORD_MAX;
        if (!ok) { /* each point: one comparison per coordinate (NaN fails it) */
            ok = 1;
            for (uint32_t i = 0; i < n; i++)
                ok &= (fabs(pts[i].x) <= KCBP_COORD_MAX) & (fabs(pts[i].y) <= KCBP_COORD_MAX);
        }
        if (!ok) {
            kcbp2d_core_free(c);
            return kcbp2d_shape_check_ex(s, false, err); /* names the first bad point */
        }
        c->v = v;
        c->n = n;
        c->scale = sc;
        return KCBP_OK;
    }
    default: /* capsule, segment */
        n = 2;
        v[0] = kcbp2d_pose_apply(pose, s->local[0]);
        v[1] = kcbp2d_pose_apply(pose, s->local[1]);
        break;
    }
    /* plain comparisons: fmax is a call (NaN rules) */
    double sc = 0;
    for (uint32_t i = 0; i < n; i++) {
        double x = fabs(v[i].x), y = fabs(v[i].y);
        sc = x > sc ? x : sc;
        sc = y > sc ? y : sc;
    }
    c->v = v;
    c->n = n;
    c->scale = sc;
    return KCBP_OK;
}

kcbp_status kcbp2d_core_finish(kcbp2d_core *c, kcbp_error *err)
{
    kcbp_vec2 *v = c->heap ? c->heap : c->buf;
    uint32_t n = c->n;
    if (n == 2 && v[0].x == v[1].x && v[0].y == v[1].y)
        n = 1; /* a capsule of length 0 is a circle */
    if (n >= 3 && first_not_convex(v, n) != n) {
        /* Rounding broke strict convexity: the hull of the posed vertices
         * (kcbp2d_hull writes at most n points, and reads its input first). */
        kcbp_vec2 *tmp = malloc((size_t)n * sizeof *tmp);
        if (!tmp) {
            kcbp2d_core_free(c);
            return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D shape: out of memory for its hull");
        }
        size_t m = 0;
        kcbp_status st = kcbp2d_hull(v, n, tmp, &m, err);
        if (st != KCBP_OK) {
            free(tmp);
            kcbp2d_core_free(c);
            return st;
        }
        memcpy(v, tmp, m * sizeof *v);
        free(tmp);
        n = (uint32_t)m;
        c->hulled = true;
        double sc = 0; /* the hull's vertices are some of the posed ones */
        for (uint32_t i = 0; i < n; i++) {
            double x = fabs(v[i].x), y = fabs(v[i].y);
            sc = x > sc ? x : sc;
            sc = y > sc ? y : sc;
        }
        c->scale = sc;
    }
    c->v = v;
    c->n = n;
    return KCBP_OK;
}

kcbp_status kcbp2d_core_make(const kcbp2d_shape *s, const kcbp2d_pose *pose, kcbp2d_core *c, kcbp_error *err)
{
    kcbp_status st = kcbp2d_core_pose(s, pose, c, err);
    return st != KCBP_OK ? st : kcbp2d_core_finish(c, err);
}
