/* Solids (include/kcbp/solid.h): the exact point-in-solid test and the
 * containment of one solid in another, for kcbp_collide. The closedness
 * check and the surface's pieces are properties of the mesh
 * (src/mesh/topology.c). */
#include <kcbp/solid.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "geom/predicates.h"
#include "solid_internal.h"

/* ---------------------------------------------------- point in solid --- */

/* The sign of orient2d(p, q, r + (e, e^2)) in the (y, z) plane, for an
 * infinitesimal e > 0: the exact orient2d, else its e term
 * (p.y - q.y in the plane's first coordinate), else its e^2 term. Zero
 * only when p and q coincide in the plane. Antisymmetric in p, q, so two
 * triangles sharing an edge see the moved point on opposite sides of it. */
static int o2_moved(kcbp_vec3 p, kcbp_vec3 q, kcbp_vec3 r)
{
    int s = kcbp_orient2d(p.y, p.z, q.y, q.z, r.y, r.z);
    if (s)
        return s;
    if (p.z != q.z)
        return p.z > q.z ? 1 : -1;
    return (q.y > p.y) - (q.y < p.y);
}

/* The signed crossing of the moved ray from p in +x with triangle t: +1 or
 * -1 (the sign of t's normal's x component) when it crosses t, 0 when not;
 * *on is set when p lies on t. */
static int crossing(const kcbp_vec3 t[3], kcbp_vec3 p, bool *on)
{
    /* p on t (rare: a point in t's plane, then one exact test). */
    int side = kcbp_orient3d(t[0], t[1], t[2], p);
    if (side == 0) {
        const kcbp_vec3 pt[3] = {p, p, p};
        if (kcbp_tri_intersect(t, pt, 0)) {
            *on = true;
            return 0;
        }
    }
    int area = kcbp_orient2d(t[0].y, t[0].z, t[1].y, t[1].z, t[2].y, t[2].z); /* = sign of the normal's x */
    if (area == 0) /* seen edge-on: the moved ray misses it */
        return 0;
    int s0 = o2_moved(t[0], t[1], p), s1 = o2_moved(t[1], t[2], p), s2 = o2_moved(t[2], t[0], p);
    if (s0 != s1 || s1 != s2) /* the moved point is outside the projection (never on its edges) */
        return 0;
    /* The ray's line crosses t's plane at p + s e_x with s of the sign
     * of -orient3d(t, p) / normal.x; side is not 0 here: p in t's plane
     * over t would be on t. */
    return side != area ? area : 0;
}

/* The ray from o along d (unit) meets the box (centre c, half-sizes e)
 * widened by pad, for t >= -pad. */
static bool ray_hits_box(kcbp_vec3 o, kcbp_vec3 d, kcbp_vec3 c, kcbp_vec3 e, double pad)
{
    const double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z}, cc[3] = {c.x, c.y, c.z}, ee[3] = {e.x, e.y, e.z};
    double tmin = -pad, tmax = INFINITY;
    for (int i = 0; i < 3; i++) {
        double lo = cc[i] - ee[i] - pad, hi = cc[i] + ee[i] + pad;
        if (dd[i] == 0) {
            if (oo[i] < lo || oo[i] > hi)
                return false;
            continue;
        }
        double t1 = (lo - oo[i]) / dd[i], t2 = (hi - oo[i]) / dd[i];
        tmin = fmax(tmin, fmin(t1, t2));
        tmax = fmin(tmax, fmax(t1, t2));
    }
    return tmin <= tmax;
}

static void posed_tri(const kcbp_vec3 src[3], const kcbp_pose *pose, kcbp_vec3 t[3])
{
    for (int k = 0; k < 3; k++)
        t[k] = pose ? kcbp_pose_apply(pose, src[k]) : src[k];
}

enum { RAY_STACK = 256 };

kcbp_solid_side kcbp_point_in_mesh(const kcbp_mesh *mesh, const kcbp_aabb_tree *tree, const kcbp_pose *pose,
                                   kcbp_vec3 p)
{
    long winding = 0;
    bool on = false;
    if (!tree || tree->nnodes == 0 || tree->depth + 2 > RAY_STACK) {
        for (uint32_t i = 0; i < mesh->ntriangles && !on; i++) {
            kcbp_vec3 src[3], t[3];
            for (int k = 0; k < 3; k++)
                src[k] = mesh->vertices[mesh->triangles[i].v[k]];
            posed_tri(src, pose, t);
            winding += crossing(t, p, &on);
        }
    } else {
        /* The ray in the tree's (the mesh's) frame: o + s d. */
        kcbp_vec3 o = p, d = kcbp_v3(1, 0, 0);
        double extra = 0;
        if (pose) {
            o = kcbp_mat3_tmul_v3(&pose->rot, kcbp_v3_sub(p, pose->trans));
            d = kcbp_v3(pose->rot.m[0][0], pose->rot.m[0][1], pose->rot.m[0][2]);
            extra = kcbp_v3_max_abs(pose->trans);
        }
        const kcbp_aabb_node *root = &tree->nodes[0];
        /* Far above the rounding of the boxes, of o and d, of the posed
         * vertices and of the slab test, all ~1e-16 of these magnitudes. */
        double pad = 1e-9 * (kcbp_v3_max_abs(o) + kcbp_v3_max_abs(root->center) + kcbp_v3_max_abs(root->extent) +
                             extra + kcbp_v3_max_abs(p));
        uint32_t stack[RAY_STACK], top = 0;
        stack[top++] = 0;
        while (top > 0 && !on) {
            const kcbp_aabb_node *nd = &tree->nodes[stack[--top]];
            if (!ray_hits_box(o, d, nd->center, nd->extent, pad))
                continue;
            if (nd->count == 0) {
                stack[top++] = nd->first;
                stack[top++] = nd->first + 1;
                continue;
            }
            for (uint32_t s = nd->first; s < nd->first + nd->count && !on; s++) {
                kcbp_vec3 t[3];
                posed_tri(tree->tri_verts[s], pose, t);
                winding += crossing(t, p, &on);
            }
        }
    }
    if (on)
        return KCBP_SOLID_ON;
    return winding != 0 ? KCBP_SOLID_INSIDE : KCBP_SOLID_OUTSIDE;
}

/* ------------------------------------------------------- containment --- */

static bool in_box(kcbp_aabb b, kcbp_vec3 p)
{
    return b.min.x <= p.x && p.x <= b.max.x && b.min.y <= p.y && p.y <= b.max.y && b.min.z <= p.z && p.z <= b.max.z;
}

kcbp_solid_side kcbp_point_in_solid(const kcbp_model *model, const kcbp_pose *pose, kcbp_vec3 p)
{
    const kcbp_model_impl *m = model->impl;
    if (kcbp_impl_is_shape(m)) {
        /* A shape: p carried into its frame (rounded once), then its own
         * exact test (a hull's: GJK, within KCBP_SHAPE_GJK_BAND). */
        kcbp_pose inv = kcbp_pose_inverse(pose ? pose : &(kcbp_pose){kcbp_mat3_identity(), {0, 0, 0}});
        kcbp_vec3 q = kcbp_pose_apply(&inv, p);
        int side = kcbp_shape_geom_point_side(&m->geom, q, KCBP_SHAPE_GJK_BAND * (m->scale + kcbp_v3_len(q)));
        return side > 0 ? KCBP_SOLID_INSIDE : side < 0 ? KCBP_SOLID_OUTSIDE : KCBP_SOLID_ON;
    }
    return kcbp_point_in_mesh(&model->impl->mesh, &model->impl->tree, pose, p);
}

kcbp_containment kcbp_solid_containment(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a)
{
    /* A's box is exact (its vertices' bounds): a point outside it is
     * outside A. */
    for (uint32_t i = 0; i < b->npieces; i++) {
        kcbp_vec3 v = kcbp_pose_apply(b_in_a, b->mesh.vertices[b->pieces[i]]);
        if (in_box(a->mesh.bounds, v) && kcbp_point_in_mesh(&a->mesh, &a->tree, NULL, v) != KCBP_SOLID_OUTSIDE)
            return KCBP_CONTAINED_B_IN_A;
    }
    /* B's box in A's frame, widened far above the rounding of the posed
     * vertices it must hold. */
    kcbp_aabb wb = kcbp_impl_world_bounds(b, b_in_a);
    double pad = kcbp_pair_tolerance(a, b, b_in_a);
    wb.min = kcbp_v3_sub(wb.min, kcbp_v3(pad, pad, pad));
    wb.max = kcbp_v3_add(wb.max, kcbp_v3(pad, pad, pad));
    for (uint32_t i = 0; i < a->npieces; i++) {
        kcbp_vec3 v = a->mesh.vertices[a->pieces[i]];
        if (in_box(wb, v) && kcbp_point_in_mesh(&b->mesh, &b->tree, b_in_a, v) != KCBP_SOLID_OUTSIDE)
            return KCBP_CONTAINED_A_IN_B;
    }
    return KCBP_CONTAINED_NONE;
}
