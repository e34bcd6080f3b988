#include <kcbp/support.h>

#include <stdlib.h>
#include <string.h>

#include "dot2.h"

/* The scans read the vertices as one array of doubles. */
_Static_assert(sizeof(kcbp_vec3) == 3 * sizeof(double), "kcbp_vec3 must be three packed doubles");

#if defined(__SSE2__)
/* Two passes over chunks of up to SCAN_CHUNK vertices: the dot products go
 * to a buffer while only their maximum is kept (no index bookkeeping in the
 * hot loop), then the first vertex holding a chunk's maximum is looked up
 * in the buffer, only when that chunk beats the chunks before it. */
enum { SCAN_CHUNK = 64 };

uint32_t kcbp_support_scan(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d)
{
    if (n < 4)
        return kcbp_support_scan_scalar(p, n, d);
    const __m128d dxy = _mm_set_pd(d.y, d.x), dzx = _mm_set_pd(d.x, d.z), dyz = _mm_set_pd(d.z, d.y);
    double buf[SCAN_CHUNK + 3];
    double best = -INFINITY;
    uint32_t best_i = 0;
    for (uint32_t c0 = 0; c0 < n; c0 += SCAN_CHUNK) {
        uint32_t m = n - c0 < SCAN_CHUNK ? n - c0 : SCAN_CHUNK;
        const double *q = &p[c0].x;
        /* _mm_max_pd(t, mx) is t > mx ? t : mx, so a NaN never wins */
        __m128d mx0 = _mm_set1_pd(-INFINITY), mx1 = mx0;
        uint32_t i = 0;
        for (; i + 4 <= m; i += 4) {
            __m128d t0 = kcbp_dot2(q + 3 * (size_t)i, dxy, dzx, dyz);
            __m128d t1 = kcbp_dot2(q + 3 * (size_t)i + 6, dxy, dzx, dyz);
            _mm_storeu_pd(buf + i, t0);
            _mm_storeu_pd(buf + i + 2, t1);
            mx0 = _mm_max_pd(t0, mx0);
            mx1 = _mm_max_pd(t1, mx1);
        }
        if (i + 2 <= m) {
            __m128d t0 = kcbp_dot2(q + 3 * (size_t)i, dxy, dzx, dyz);
            _mm_storeu_pd(buf + i, t0);
            mx0 = _mm_max_pd(t0, mx0);
            i += 2;
        }
        if (i < m) { /* the last vertex of an odd count */
            buf[i] = kcbp_v3_dot(p[c0 + i], d);
            mx0 = _mm_max_pd(_mm_set1_pd(buf[i]), mx0);
        }
        mx0 = _mm_max_pd(mx1, mx0);
        double cm = _mm_cvtsd_f64(_mm_max_sd(_mm_unpackhi_pd(mx0, mx0), mx0));
        if (cm > best) { /* strictly: an earlier chunk keeps a tie */
            /* The first k with buf[k] == cm: a bit per vertex, then the
             * lowest set bit. A fixed number of steps and no data-dependent
             * branch, which would mispredict about once per call. */
            for (uint32_t k = m; k < ((m + 3) & ~3u); k++)
                buf[k] = -INFINITY; /* pad to a multiple of 4: never equal to cm */
            const __m128d cmv = _mm_set1_pd(cm);
            uint64_t eq = 0;
            for (uint32_t k = 0; k < m; k += 4) {
                /* four 64-bit compare masks packed to 32 bits: a bit each */
                __m128i e0 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_loadu_pd(buf + k), cmv));
                __m128i e1 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_loadu_pd(buf + k + 2), cmv));
                eq |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_packs_epi32(e0, e1))) << k;
            }
            if (eq) { /* always, unless a NaN got in */
                best = cm;
                best_i = c0 + (uint32_t)__builtin_ctzll(eq);
            }
        }
    }
    return best_i;
}
#else
uint32_t kcbp_support_scan(const kcbp_vec3 *p, uint32_t n, kcbp_vec3 d) { return kcbp_support_scan_scalar(p, n, d); }
#endif

kcbp_convex kcbp_convex_polytope(const kcbp_vec3 *points, uint32_t npoints, const uint32_t *adj_start,
                                 const uint32_t *adj, double radius)
{
    kcbp_convex s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP_CONVEX_POLYTOPE;
    s.points = points;
    s.npoints = npoints;
    if (adj_start && adj && npoints >= KCBP_SUPPORT_CLIMB_MIN) {
        s.adj_start = adj_start;
        s.adj = adj;
    }
    s.radius = radius;
    return s;
}

kcbp_convex kcbp_convex_sphere(kcbp_vec3 center, double radius)
{
    kcbp_convex s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP_CONVEX_SPHERE;
    s.local[0] = center;
    s.local[1] = center;
    s.radius = radius;
    return s;
}

kcbp_convex kcbp_convex_capsule(kcbp_vec3 p0, kcbp_vec3 p1, double radius)
{
    kcbp_convex s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP_CONVEX_CAPSULE;
    s.local[0] = p0;
    s.local[1] = p1;
    s.radius = radius;
    return s;
}

kcbp_convex kcbp_convex_custom(kcbp_support_fn fn, const void *ctx, double radius)
{
    kcbp_convex s;
    memset(&s, 0, sizeof s);
    s.kind = KCBP_CONVEX_CUSTOM;
    s.fn = fn;
    s.ctx = ctx;
    s.radius = radius;
    return s;
}

static int finite3(kcbp_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

kcbp_status kcbp_convex_check(const kcbp_convex *s, kcbp_error *err)
{
    if (!s)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "convex shape is NULL");
    if (!isfinite(s->radius) || s->radius < 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "convex shape radius %g is not a finite number >= 0", s->radius);
    switch (s->kind) {
    case KCBP_CONVEX_POLYTOPE:
        if (!s->points || s->npoints == 0)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "polytope has no vertices");
        for (uint32_t i = 0; i < s->npoints; i++)
            if (!finite3(s->points[i]))
                return kcbp_error_set(err, KCBP_ERR_INVALID, "polytope vertex %u is not finite", i);
        if ((s->adj_start == NULL) != (s->adj == NULL))
            return kcbp_error_set(err, KCBP_ERR_INVALID, "polytope adjacency needs both adj_start and adj");
        if (s->adj_start) {
            if (s->adj_start[0] != 0)
                return kcbp_error_set(err, KCBP_ERR_INVALID, "polytope adjacency must start at 0");
            for (uint32_t i = 0; i < s->npoints; i++) {
                if (s->adj_start[i + 1] < s->adj_start[i])
                    return kcbp_error_set(err, KCBP_ERR_INVALID, "polytope adjacency start[%u] decreases", i + 1);
                for (uint32_t k = s->adj_start[i]; k < s->adj_start[i + 1]; k++)
                    if (s->adj[k] >= s->npoints)
                        return kcbp_error_set(err, KCBP_ERR_INVALID,
                                              "polytope adjacency of vertex %u names vertex %u of %u", i, s->adj[k],
                                              s->npoints);
            }
        }
        return KCBP_OK;
    case KCBP_CONVEX_SPHERE:
    case KCBP_CONVEX_CAPSULE:
        if (!finite3(s->local[0]) || !finite3(s->local[1]))
            return kcbp_error_set(err, KCBP_ERR_INVALID, "sphere or capsule has a non-finite point");
        return KCBP_OK;
    case KCBP_CONVEX_CUSTOM:
        if (!s->fn)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "custom convex shape has no support function");
        return KCBP_OK;
    }
    return kcbp_error_set(err, KCBP_ERR_INVALID, "unknown convex shape kind %d", (int)s->kind);
}

/* Steepest-ascent hill-climbing on the hull's edge graph. A linear function
 * on a convex polytope has no local maximum on its edge graph that is not
 * global, so stopping where no neighbour is strictly better is exact. Each
 * move strictly increases dot(p, d), so no vertex is visited twice and the
 * walk ends within n moves; the cap only guards against bad adjacency. */
uint32_t kcbp_support_climb(const kcbp_vec3 *p, uint32_t n, const uint32_t *start, const uint32_t *adj,
                              kcbp_vec3 d, uint32_t from)
{
    uint32_t cur = from < n ? from : 0;
    double cur_dot = kcbp_v3_dot(p[cur], d);
    for (uint32_t moves = 0; moves < n; moves++) {
        uint32_t next = cur;
        double next_dot = cur_dot;
        for (uint32_t k = start[cur]; k < start[cur + 1]; k++) {
            double t = kcbp_v3_dot(p[adj[k]], d);
            if (t > next_dot) {
                next_dot = t;
                next = adj[k];
            }
        }
        if (next == cur)
            break;
        cur = next;
        cur_dot = next_dot;
    }
    return cur;
}

kcbp_vec3 kcbp_convex_support_other(const kcbp_convex *s, kcbp_vec3 d, uint32_t *hint)
{
    uint32_t i;
    switch (s->kind) {
    case KCBP_CONVEX_POLYTOPE:
        i = s->adj_start ? kcbp_support_climb(s->points, s->npoints, s->adj_start, s->adj, d, *hint)
                         : kcbp_support_scan(s->points, s->npoints, d);
        *hint = i;
        return s->points[i];
    case KCBP_CONVEX_CAPSULE:
        i = kcbp_v3_dot(s->local[1], d) > kcbp_v3_dot(s->local[0], d) ? 1u : 0u;
        *hint = i;
        return s->local[i];
    case KCBP_CONVEX_CUSTOM:
        return s->fn(s->ctx, d, hint);
    case KCBP_CONVEX_SPHERE:
    default:
        *hint = 0;
        return s->local[0];
    }
}

kcbp_status kcbp_convex_adjacency(uint32_t nvertices, const uint32_t (*tris)[3], size_t ntris,
                                  uint32_t **adj_start, uint32_t **adj, kcbp_error *err)
{
    *adj_start = NULL;
    *adj = NULL;
    if (ntris > (SIZE_MAX / 6) || ntris * 6 > UINT32_MAX)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "too many triangles for a vertex adjacency (%zu)", ntris);
    uint32_t *start = calloc((size_t)nvertices + 1, sizeof *start);
    uint32_t *tmp = malloc((ntris * 6 + 1) * sizeof *tmp);
    if (!start || !tmp) {
        free(start);
        free(tmp);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory building a vertex adjacency");
    }
    /* Each triangle gives each of its vertices two neighbours; count, fill
     * by bucket, then remove repeats in place (each edge is seen twice on a
     * closed surface). */
    for (size_t t = 0; t < ntris; t++)
        for (int k = 0; k < 3; k++) {
            if (tris[t][k] >= nvertices) {
                free(start);
                free(tmp);
                return kcbp_error_set(err, KCBP_ERR_INVALID, "triangle %zu names vertex %u of %u", t, tris[t][k],
                                      nvertices);
            }
            start[tris[t][k] + 1] += 2;
        }
    for (uint32_t v = 0; v < nvertices; v++)
        start[v + 1] += start[v];
    uint32_t *fill = malloc(((size_t)nvertices + 1) * sizeof *fill);
    if (!fill) {
        free(start);
        free(tmp);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory building a vertex adjacency");
    }
    memcpy(fill, start, ((size_t)nvertices + 1) * sizeof *fill);
    for (size_t t = 0; t < ntris; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = tris[t][k];
            tmp[fill[v]++] = tris[t][(k + 1) % 3];
            tmp[fill[v]++] = tris[t][(k + 2) % 3];
        }
    uint32_t out = 0;
    for (uint32_t v = 0; v < nvertices; v++) {
        uint32_t begin = out;
        for (uint32_t k = start[v]; k < start[v + 1]; k++) {
            uint32_t u = tmp[k];
            int seen = 0;
            for (uint32_t j = begin; j < out && !seen; j++)
                seen = tmp[j] == u;
            if (!seen)
                tmp[out++] = u;
        }
        fill[v] = begin; /* reuse: the new start of v */
    }
    fill[nvertices] = out;
    free(start);
    uint32_t *shrunk = realloc(tmp, (out ? out : 1) * sizeof *tmp);
    *adj_start = fill;
    *adj = shrunk ? shrunk : tmp;
    return KCBP_OK;
}
