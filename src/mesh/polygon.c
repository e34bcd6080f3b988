/* The triangulation of the mesh files' polygons (polygon.h). */
#include "polygon.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The triangles being written: out[0..n) of room for the polygon's. */
typedef struct {
    const kcbp_vec3 *v;
    kcbp_polygon_scratch *s;
    kcbp_tri *out;
    size_t n;
} poly_ctx;

static void add_triangle(poly_ctx *ps, uint32_t a, uint32_t b, uint32_t c)
{
    kcbp_tri *t = &ps->out[ps->n++];
    t->v[0] = a;
    t->v[1] = b;
    t->v[2] = c;
}

static void fan(poly_ctx *ps, const uint32_t *poly, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++)
        add_triangle(ps, poly[0], poly[i], poly[i + 1]);
}

/* Projects the face into the plane through its first vertex orthogonal to
 * its Newell normal, with axes (u, w) such that u x w is the normal, so the
 * projected polygon is counter-clockwise. Returns 0 for a zero normal
 * (collinear or otherwise degenerate polygon). */
static int project(poly_ctx *ps, const uint32_t *poly, size_t n)
{
    kcbp_vec3 o = ps->v[poly[0]], nrm = kcbp_v3(0, 0, 0);
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 a = kcbp_v3_sub(ps->v[poly[i]], o), b = kcbp_v3_sub(ps->v[poly[(i + 1) % n]], o);
        nrm.x += (a.y - b.y) * (a.z + b.z);
        nrm.y += (a.z - b.z) * (a.x + b.x);
        nrm.z += (a.x - b.x) * (a.y + b.y);
    }
    double len = kcbp_v3_len(nrm);
    if (!(len > 0) || !isfinite(len))
        return 0;
    nrm = kcbp_v3_scale(nrm, 1.0 / len);
    kcbp_vec3 ax = kcbp_v3_abs(nrm);
    kcbp_vec3 least = ax.x <= ax.y && ax.x <= ax.z ? kcbp_v3(1, 0, 0)
                      : ax.y <= ax.z               ? kcbp_v3(0, 1, 0)
                                                   : kcbp_v3(0, 0, 1);
    kcbp_vec3 u = kcbp_v3_cross(least, nrm);
    u = kcbp_v3_scale(u, 1.0 / kcbp_v3_len(u));
    kcbp_vec3 w = kcbp_v3_cross(nrm, u);
    for (size_t i = 0; i < n; i++) {
        kcbp_vec3 d = kcbp_v3_sub(ps->v[poly[i]], o);
        ps->s->uv[2 * i] = kcbp_v3_dot(d, u);
        ps->s->uv[2 * i + 1] = kcbp_v3_dot(d, w);
    }
    return 1;
}

static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Counter-clockwise convex (collinear vertices allowed): every turn is left
 * up to rounding, and the edge directions go round once (each coordinate of
 * the edge vectors changes sign at most twice, which rejects stars such as
 * the pentagram whose turns are all left but which wind twice). */
static int is_convex(const double *uv, size_t n)
{
    int first[2] = {0, 0}, last[2] = {0, 0}, flips[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const double *a = uv + 2 * i, *b = uv + 2 * ((i + 1) % n), *c = uv + 2 * ((i + 2) % n);
        double e1[2] = {b[0] - a[0], b[1] - a[1]}, e2[2] = {c[0] - b[0], c[1] - b[1]};
        double cross = e1[0] * e2[1] - e1[1] * e2[0];
        double tol = 1e-12 * sqrt((e1[0] * e1[0] + e1[1] * e1[1]) * (e2[0] * e2[0] + e2[1] * e2[1]));
        if (cross < -tol)
            return 0;
        for (int k = 0; k < 2; k++) {
            int s = (e1[k] > 0) - (e1[k] < 0);
            if (s == 0)
                continue;
            if (!first[k])
                first[k] = s;
            else if (s != last[k])
                flips[k]++;
            last[k] = s;
        }
    }
    for (int k = 0; k < 2; k++)
        if (first[k] && last[k] != first[k])
            flips[k]++;
    return flips[0] <= 2 && flips[1] <= 2;
}

static int same_point(const double *a, const double *b) { return a[0] == b[0] && a[1] == b[1]; }

/* Ear clipping of the projected face (ps->s->uv, counter-clockwise). Ears are
 * searched starting at vertex 1 and, after each cut, at the vertex after the
 * cut one, so a convex polygon comes out as the fan from vertex 0. An ear is a
 * strictly left turn whose closed triangle holds no other remaining vertex
 * (vertices at the same position as a corner do not count). When a whole
 * round finds no ear, one zero-area ear (a collinear vertex or spike) may be
 * cut instead. Appends the triangles and returns 1, or appends nothing and
 * returns 0 when it gets stuck. */
static int ear_clip(poly_ctx *ps, const uint32_t *poly, size_t n)
{
    const double *uv = ps->s->uv;
    size_t *prev = ps->s->link, *next = ps->s->link + n;
    for (size_t i = 0; i < n; i++) {
        prev[i] = (i + n - 1) % n;
        next[i] = (i + 1) % n;
    }
    size_t start_nt = ps->n, remaining = n, i = 1, tried = 0;
    int allow_flat = 0;
    while (remaining > 3) {
        size_t a = prev[i], c = next[i];
        const double *pa = uv + 2 * a, *pi = uv + 2 * i, *pc = uv + 2 * c;
        double o = orient(pa, pi, pc);
        double scale = fmax(fmax(fabs(pi[0] - pa[0]), fabs(pi[1] - pa[1])),
                            fmax(fabs(pc[0] - pi[0]), fabs(pc[1] - pi[1])));
        double tol = 1e-12 * scale * scale;
        int ear;
        if (allow_flat) {
            ear = fabs(o) <= tol;
        } else {
            ear = o > tol;
            for (size_t j = next[c]; ear && j != a; j = next[j]) {
                const double *p = uv + 2 * j;
                if (same_point(p, pa) || same_point(p, pi) || same_point(p, pc))
                    continue;
                if (orient(pa, pi, p) >= 0 && orient(pi, pc, p) >= 0 && orient(pc, pa, p) >= 0)
                    ear = 0;
            }
        }
        if (ear) {
            add_triangle(ps, poly[a], poly[i], poly[c]);
            next[a] = c;
            prev[c] = a;
            remaining--;
            i = c;
            tried = 0;
            allow_flat = 0;
        } else {
            i = next[i];
            if (++tried >= remaining) {
                if (allow_flat) {
                    ps->n = start_nt;
                    return 0;
                }
                allow_flat = 1;
                tried = 0;
            }
        }
    }
    add_triangle(ps, poly[prev[i]], poly[i], poly[next[i]]);
    return 1;
}

kcbp_status kcbp_polygon_triangulate(kcbp_polygon_scratch *s, const kcbp_vec3 *v, const uint32_t *poly, size_t n,
                                     kcbp_tri *out)
{
    poly_ctx ps = {v, s, out, 0};
    if (n == 3) {
        add_triangle(&ps, poly[0], poly[1], poly[2]);
        return KCBP_OK;
    }
    if (!kcbp_grow(&s->uv, &s->cap_uv, 2 * n, sizeof *s->uv, 256) ||
        !kcbp_grow(&s->link, &s->cap_link, 2 * n, sizeof *s->link, 256))
        return KCBP_ERR_NOMEM;
    if (project(&ps, poly, n) && !is_convex(s->uv, n) && n <= KCBP_POLYGON_EARCLIP_MAX && ear_clip(&ps, poly, n))
        return KCBP_OK;
    fan(&ps, poly, n);
    return KCBP_OK;
}

void kcbp_polygon_scratch_free(kcbp_polygon_scratch *s)
{
    free(s->uv);
    free(s->link);
    memset(s, 0, sizeof *s);
}
