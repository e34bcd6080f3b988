/* The convex hull of 2D points: Andrew's monotone chain (A. M. Andrew,
 * "Another efficient algorithm for convex hulls in two dimensions", Inf.
 * Proc. Letters 9, 1979), every turn the exact orient2d (shape2d.h). */
#include <kcbp/shape2d.h>

#include <stdlib.h>
#include <string.h>

#include "convex/convex2d.h"

static int lex_cmp(const void *pa, const void *pb)
{
    const kcbp_vec2 *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return 0;
}

kcbp_status kcbp2d_hull(const kcbp_vec2 *points, size_t n, kcbp_vec2 *out, size_t *nout, kcbp_error *err)
{
    if (nout)
        *nout = 0;
    if (!points || !out || !nout || n == 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D hull: no points");
    for (size_t i = 0; i < n; i++)
        if (!kcbp_v2_is_finite(points[i]))
            return kcbp_error_set(err, KCBP_ERR_INVALID, "2D hull: point %zu is not finite", i);
    /* p: the sorted distinct points, then (h) the chain, which holds at
     * most u + 1 points (the hull's vertices and the first one again). */
    kcbp_vec2 *p = malloc((2 * n + 1) * sizeof *p);
    if (!p)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "2D hull: out of memory for %zu points", n);
    memcpy(p, points, n * sizeof *p);
    qsort(p, n, sizeof *p, lex_cmp);
    size_t u = 0; /* distinct points */
    for (size_t i = 0; i < n; i++)
        if (u == 0 || lex_cmp(&p[u - 1], &p[i]) != 0)
            p[u++] = p[i];
    kcbp_vec2 *h = p + n;
    size_t k = 0;
    if (u <= 2) {
        memcpy(h, p, u * sizeof *p);
        k = u;
    } else {
        /* Lower chain left to right, then upper right to left; a point that
         * does not turn strictly left is popped (collinear points dropped). */
        for (size_t i = 0; i < u; i++) {
            while (k >= 2 && kcbp2d_orient(h[k - 2], h[k - 1], p[i]) <= 0)
                k--;
            h[k++] = p[i];
        }
        size_t lower = k + 1;
        for (size_t i = u - 1; i-- > 0;) {
            while (k >= lower && kcbp2d_orient(h[k - 2], h[k - 1], p[i]) <= 0)
                k--;
            h[k++] = p[i];
        }
        k--; /* the last point is the first again; all collinear: 2 left */
    }
    memcpy(out, h, k * sizeof *h);
    *nout = k;
    free(p);
    return KCBP_OK;
}
