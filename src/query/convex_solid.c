/* The exact convexity test of a closed mesh (convex_solid.h).
 *
 * Claim. Let M be a closed, consistently oriented triangle mesh (solid.h),
 * S its solid (the points of non-zero winding number) and H the convex
 * hull of its vertices, with a non-empty interior. If there is one sign s
 * (+1 or -1) such that, for every triangle t = (t0, t1, t2) and every
 * vertex v of H, orient3d(t0, t1, t2, v) is 0 or s, then S = H.
 *
 * Proof. A triangle of positive area has a vertex of H off its plane (H is
 * not flat), so H lies in the closed half-space on one side of the plane
 * (the side s names, the same for all: every vertex of H, hence H, is on
 * it), and the triangle, whose corners are points of H, lies in that
 * supporting plane: it is in the boundary dH. Zero-area triangles are
 * segments or points in H. So the surface M lies in dH.
 *   The winding number w(p) of M around a point p off M is constant on
 * each connected component of the complement of M. The interior of H
 * misses dH, hence M, and is connected: w is one value there; outside H it
 * is 0 (it is 0 far away and the exterior of a convex set is connected).
 * w inside H is the degree of M as a map onto the sphere dH seen from an
 * interior point. Every triangle of positive area is mapped onto dH with
 * the same orientation (s fixes which side of each triangle H is on, and
 * consistent orientation makes that the same sense for all), so a point
 * of dH inside some triangle, covered by triangles only positively, has a
 * positive count: the degree, and w, is at least 1 (the surface has a
 * triangle of positive area since H is not flat). So every interior point
 * of H is in S, S is closed, hence H is in S; and S is in H (w = 0
 * outside H). S = H.
 *
 * Conversely, if S is convex then S = H and each triangle of positive
 * area lies in dH, in a supporting plane with H on its inner side: the
 * test passes. So the test says yes exactly when the solid is convex
 * (within the cap): coplanar triangles on one facet, vertices in the
 * middle of a facet or an edge of H all pass; a single vertex of H beyond
 * a triangle's plane (or on the other side than the first triangle's)
 * rejects.
 *
 * Both signs are allowed since solid.h lets a solid be oriented either
 * way; the exact orient3d (geom/predicates.h) decides every sign on the
 * stored doubles, so the answer has no tolerance. */
#include "convex_solid.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/collide.h>

#include "geom/predicates.h"

kcbp_hull_verdict kcbp_mesh_bounds_hull(const kcbp_mesh *mesh, const kcbp_vec3 *hv, uint32_t nh, uint64_t cap,
                                        uint64_t *checks)
{
    uint64_t n = 0;
    int sign = 0;
    kcbp_hull_verdict ok = KCBP_HULL_BOUNDS;
    const kcbp_vec3 *v = mesh->vertices;
    for (uint32_t i = 0; i < mesh->ntriangles && ok == KCBP_HULL_BOUNDS; i++) {
        kcbp_vec3 a = v[mesh->triangles[i].v[0]], b = v[mesh->triangles[i].v[1]], c = v[mesh->triangles[i].v[2]];
        for (uint32_t j = 0; j < nh; j++) {
            if (++n > cap) {
                ok = KCBP_HULL_UNDECIDED;
                break;
            }
            int o = kcbp_orient3d_v(a, b, c, hv[j]);
            if (o == 0)
                continue;
            if (sign == 0)
                sign = o;
            else if (o != sign) {
                ok = KCBP_HULL_NOT;
                break;
            }
        }
    }
    if (checks)
        *checks = n;
    return ok == KCBP_HULL_BOUNDS && sign == 0 ? KCBP_HULL_NOT : ok;
}

/* Computes the verdict and the hull, uncached; NULL when not convex. */
static kcbp_shape_geom *make(const kcbp_model_impl *m)
{
    /* A quick rejection before the hull is built: the mesh's own vertices
     * in place of the hull's (a closed half-space holds the hull iff it
     * holds the vertices, so a vertex on the wrong side is a proof), a
     * budget of a few scans of the vertices: a non-convex scan is almost
     * always rejected within the first triangles (bunny: 3 orient3d). */
    uint64_t budget = 4 * (uint64_t)m->mesh.nvertices + 64;
    if (kcbp_mesh_bounds_hull(&m->mesh, m->mesh.vertices, m->mesh.nvertices, budget, NULL) == KCBP_HULL_NOT)
        return NULL;
    /* A convex mesh needs the whole scan, every triangle against every
     * hull vertex (at most all vertices): past the cap the hull and the
     * scan could only end undecided, so neither is begun. A first query
     * then costs what the bracket costs (a 20,480-triangle icosphere spent
     * 45 ms on a hull and a scan that reached the cap, against a 1.2 ms
     * bracket). */
    if ((uint64_t)m->mesh.ntriangles * m->mesh.nvertices > KCBP_CONVEX_SOLID_MAX_CHECKS)
        return NULL;
    kcbp_shape_geom *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    kcbp_error e;
    if (kcbp_shape_geom_init_hull(g, m->mesh.vertices, m->mesh.nvertices, &e) != KCBP_OK) {
        free(g); /* a flat hull, or out of memory */
        return NULL;
    }
    uint32_t nh = kcbp_convex_hull_vertex_count(g->hull);
    const kcbp_vec3 *hv = kcbp_convex_hull_vertices(g->hull);
    if (kcbp_mesh_bounds_hull(&m->mesh, hv, nh, KCBP_CONVEX_SOLID_MAX_CHECKS, NULL) != KCBP_HULL_BOUNDS) {
        kcbp_shape_geom_clear(g);
        free(g);
        return NULL;
    }
    return g;
}

const kcbp_shape_geom *kcbp_impl_convex_solid(const kcbp_model_impl *m)
{
    if (kcbp_impl_is_shape(m) || !m->solid || m->mesh.ntriangles == 0)
        return NULL;
    kcbp_model_impl *w = (kcbp_model_impl *)m; /* the lazy fields only, atomically */
    int verdict = atomic_load(&w->convex_verdict);
    if (verdict < 0)
        return NULL;
    if (verdict > 0)
        return atomic_load(&w->convex_geom);
    kcbp_shape_geom *g = make(m);
    if (!g) {
        /* Not convex (or out of memory, which is kept too: the general
         * path answers either correctly, only as a bracket). */
        int expect = 0;
        atomic_compare_exchange_strong(&w->convex_verdict, &expect, -1);
        return NULL;
    }
    kcbp_shape_geom *expected = NULL;
    if (!atomic_compare_exchange_strong(&w->convex_geom, &expected, g)) {
        kcbp_shape_geom_clear(g);
        free(g);
        g = expected;
    }
    atomic_store(&w->convex_verdict, 1);
    return g;
}

/* Whether B moved by t along n (world) is apart from A as solids (the
 * exact test); false also when the test fails (out of memory). */
static bool apart_moved(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                        kcbp_vec3 n, double t, bool use_cbp)
{
    kcbp_pose moved = *pose_b;
    moved.trans = kcbp_v3_add(moved.trans, kcbp_v3_scale(n, t));
    kcbp_collide_options co = kcbp_collide_options_default();
    co.contacts = KCBP_CONTACTS_FIRST;
    co.use_cbp = use_cbp;
    co.solid = true;
    kcbp_collide_result cr;
    memset(&cr, 0, sizeof cr);
    kcbp_status st = kcbp_collide(a, pose_a, b, &moved, &co, &cr, NULL);
    bool hit = cr.collide;
    kcbp_collide_result_free(&cr);
    return st == KCBP_OK && !hit;
}

void kcbp_convex_solid_verify_out(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                  const kcbp_pose *pose_b, bool use_cbp, kcbp_signed_distance_result *r)
{
    if (r->status != KCBP_SDIST_PENETRATING || !(r->depth > 0))
        return;
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double scale = kcbp_pair_scale(a->impl, b->impl, &b_in_a);
    double limit = KCBP_SDIST_CONVEX_REL_TOL * scale;
    for (double pad = 0x1p-40 * scale; pad <= limit; pad *= 4) {
        double t = r->depth + pad;
        if (apart_moved(a, pose_a, b, pose_b, r->normal, t, use_cbp)) {
            r->depth = r->depth_upper = t; /* depth_lower stays EPA's */
            r->signed_distance = -t;
            r->translation = kcbp_v3_scale(r->normal, t);
            return;
        }
    }
}
