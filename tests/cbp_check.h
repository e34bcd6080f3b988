/* Shared checks of the k-CBP tests: every promise of include/kcbp/cbp.h. */
#ifndef KCBP_TEST_CBP_CHECK_H
#define KCBP_TEST_CBP_CHECK_H

#include <math.h>
#include <stdint.h>

#include "convex/hull.h"
#include <kcbp/kcbp.h>
#include "testutil.h"

static const kcbp_cbp_dirs ALL_DIRS[] = {KCBP_DIRS_GREEDY, KCBP_DIRS_THESIS, KCBP_DIRS_FIXED, KCBP_DIRS_KDOP};
static const int KS[] = {4, 6, 8, 16, 32, 64};

/* Deterministic pseudo-random numbers in [0, 1): xorshift64*. */
static inline double rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static inline double points_scale(const kcbp_vec3 *p, size_t n)
{
    kcbp_vec3 lo = p[0], hi = p[0];
    for (size_t i = 1; i < n; i++) {
        lo = kcbp_v3_min(lo, p[i]);
        hi = kcbp_v3_max(hi, p[i]);
    }
    return fmax(kcbp_v3_len(kcbp_v3_sub(hi, lo)), fmax(kcbp_v3_max_abs(lo), kcbp_v3_max_abs(hi)));
}

/* Every structural and geometric promise of a built k-CBP. */
static inline void check_cbp(const kcbp_cbp *c, const kcbp_vec3 *p, size_t n)
{
    double scale = points_scale(p, n);
    double tol = 1e-9 * (scale > 0 ? scale : 1);
    assert_true(c->nplanes >= 4);
    assert_true(c->nvertices >= 4);
    assert_true(isfinite(c->volume) && c->volume > 0);
    for (uint32_t v = 0; v < c->nvertices; v++) {
        kcbp_vec3 x = c->vertices[v];
        assert_true(isfinite(x.x) && isfinite(x.y) && isfinite(x.z));
        /* Bounded: no vertex far outside the points' reach. */
        assert_true(kcbp_v3_max_abs(x) <= 1e3 * (scale > 0 ? scale : 1));
        /* >= 2: a vertex of a rounding-sized sliver face may sit on an edge */
        assert_true(c->adj_start[v + 1] - c->adj_start[v] >= 2);
        for (uint32_t a = c->adj_start[v]; a < c->adj_start[v + 1]; a++)
            assert_true(c->adj[a] < c->nvertices && c->adj[a] != v);
    }
    for (uint32_t f = 0; f < c->nplanes; f++) {
        kcbp_cbp_plane pl = c->planes[f];
        assert_true(isfinite(pl.d));
        assert_true(fabs(kcbp_v3_len(pl.n) - 1) < 1e-12);
        /* every input point satisfies every plane, exactly in floating point */
        for (size_t i = 0; i < n; i++)
            assert_true(kcbp_v3_dot(pl.n, p[i]) <= pl.d);
        /* the face: >= 3 vertices on the plane, CCW seen from outside */
        uint32_t s = c->face_start[f], e = c->face_start[f + 1];
        assert_true(e - s >= 3);
        kcbp_vec3 newell = kcbp_v3(0, 0, 0);
        for (uint32_t a = s; a < e; a++) {
            kcbp_vec3 u = c->vertices[c->face_verts[a]];
            kcbp_vec3 w = c->vertices[c->face_verts[a + 1 < e ? a + 1 : s]];
            assert_true(fabs(kcbp_v3_dot(pl.n, u) - pl.d) <= tol);
            newell = kcbp_v3_add(newell, kcbp_v3_cross(u, w));
        }
        /* faces wider than rounding are CCW (slivers' normals are noise) */
        assert_true(kcbp_v3_len(newell) < 1e-12 * scale * scale || kcbp_v3_dot(newell, pl.n) > 0);
    }
    /* hill-climbing over the adjacency (GJK's support on large k-CBPs) finds
     * the maximum from every start, along each face normal and the 26 k-DOP
     * directions (twin vertices once broke this: tests/fuzz/regress/) */
    for (uint32_t i = 0; i < c->nplanes + 26; i++) {
        int t = (int)i - (int)c->nplanes;
        t = t < 13 ? t : t + 1;
        kcbp_vec3 d = i < c->nplanes ? c->planes[i].n : kcbp_v3(t % 3 - 1, t / 3 % 3 - 1, t / 9 - 1);
        double best = kcbp_v3_dot(d, c->vertices[kcbp_support_scan(c->vertices, c->nvertices, d)]);
        for (uint32_t s = 0; s < c->nvertices; s++) {
            uint32_t got = kcbp_support_climb(c->vertices, c->nvertices, c->adj_start, c->adj, d, s);
            if (kcbp_v3_dot(d, c->vertices[got]) < best - tol)
                fail_msg("climbing from vertex %u of %u stops %g below the maximum", s, c->nvertices,
                         best - kcbp_v3_dot(d, c->vertices[got]));
        }
    }
    /* every input point inside the hull of the vertices (within tol), with
     * the hull computed independently by qhull */
    kcbp_hull h;
    assert_int_equal(kcbp_hull_compute(c->vertices, c->nvertices, &h, NULL), KCBP_OK);
    for (size_t f = 0; f < h.nfacets; f++)
        for (size_t i = 0; i < n; i++)
            assert_true(kcbp_v3_dot(h.normal[f], p[i]) <= h.offset[f] + tol);
    kcbp_hull_free(&h);
}

#endif
