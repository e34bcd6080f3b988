/* Solids (include/kcbp/solid.h): the closedness check, the surface's
 * connected pieces and the exact point-in-solid test. */
#include <kcbp/solid.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/tritri.h>

#include "geom/predicates.h"
#include "solid_internal.h"

/* ------------------------------------------------ vertex identification --- */

static int cmp_coords(const kcbp_vec3 *p, const kcbp_vec3 *q)
{
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->z > q->z) - (p->z < q->z);
}

typedef struct {
    const kcbp_vec3 *v;
    uint32_t i;
} vref;

static int cmp_vref(const void *x, const void *y)
{
    const vref *p = x, *q = y;
    int c = cmp_coords(&p->v[p->i], &q->v[q->i]);
    return c ? c : (p->i > q->i) - (p->i < q->i);
}

uint32_t *kcbp_solid_weld(const kcbp_mesh *mesh)
{
    uint32_t n = mesh->nvertices;
    uint32_t *canon = malloc((n ? n : 1) * sizeof *canon);
    vref *order = malloc((n ? n : 1) * sizeof *order);
    if (!canon || !order) {
        free(canon);
        free(order);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = (vref){mesh->vertices, i};
    qsort(order, n, sizeof *order, cmp_vref);
    for (uint32_t k = 0; k < n; k++) {
        bool same = k > 0 && cmp_coords(&mesh->vertices[order[k].i], &mesh->vertices[order[k - 1].i]) == 0;
        canon[order[k].i] = same ? canon[order[k - 1].i] : order[k].i;
    }
    free(order);
    return canon;
}

/* ------------------------------------------------------- closedness --- */

typedef struct {
    uint32_t lo, hi; /* canonical vertices, lo < hi */
    uint32_t tri;    /* triangle, and which of its edges (k: v[k] -> v[k+1]) */
    uint8_t k, fwd;  /* fwd: the triangle runs it lo -> hi */
} edge_use;

static int cmp_edge(const void *x, const void *y)
{
    const edge_use *p = x, *q = y;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    if (p->hi != q->hi)
        return p->hi < q->hi ? -1 : 1;
    return (p->tri > q->tri) - (p->tri < q->tri);
}

enum { SHOW_MAX = 5 };

/* Appends " (3-7, 7-9, ...)" for the edges shown. */
static void append_edges(char *buf, size_t size, const uint32_t (*shown)[2], uint32_t nshown, uint32_t count)
{
    size_t len = strlen(buf);
    for (uint32_t i = 0; i < nshown && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%u-%u", i ? ", " : " (", shown[i][0], shown[i][1]);
    if (nshown && len < size)
        snprintf(buf + len, size - len, "%s)", count > nshown ? ", ..." : "");
}

kcbp_status kcbp_mesh_check_solid(const kcbp_mesh *mesh, kcbp_solid_check *check, kcbp_error *err)
{
    kcbp_solid_check c = {0, 0, 0, 0};
    if (check)
        *check = c;
    uint32_t *canon = kcbp_solid_weld(mesh);
    edge_use *e = malloc(((size_t)mesh->ntriangles * 3 + 1) * sizeof *e);
    if (!canon || !e) {
        free(canon);
        free(e);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory checking a solid");
    }
    size_t ne = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        const uint32_t *v = mesh->triangles[t].v;
        uint32_t cv[3] = {canon[v[0]], canon[v[1]], canon[v[2]]};
        /* A triangle with a repeated vertex is a segment or a point: its
         * edges cancel out, and no ray crosses it. */
        if (cv[0] == cv[1] || cv[1] == cv[2] || cv[2] == cv[0])
            continue;
        for (int k = 0; k < 3; k++) {
            uint32_t u = cv[k], w = cv[(k + 1) % 3];
            e[ne++] = (edge_use){u < w ? u : w, u < w ? w : u, t, (uint8_t)k, (uint8_t)(u < w)};
        }
    }
    qsort(e, ne, sizeof *e, cmp_edge);
    uint32_t shown[3][SHOW_MAX][2], nshown[3] = {0, 0, 0};
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        uint32_t fwd = 0;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi)
            fwd += e[j++].fwd;
        size_t uses = j - i;
        int kind = uses == 1 ? 0 : uses > 2 ? 1 : fwd != 1 ? 2 : -1;
        if (kind >= 0) {
            uint32_t *count = kind == 0 ? &c.open : kind == 1 ? &c.nonmanifold : &c.misoriented;
            (*count)++;
            if (nshown[kind] < SHOW_MAX) {
                const uint32_t *v = mesh->triangles[e[i].tri].v;
                shown[kind][nshown[kind]][0] = v[e[i].k] + 1;
                shown[kind][nshown[kind]++][1] = v[(e[i].k + 1) % 3] + 1;
            }
        }
        i = j;
    }
    free(e);
    free(canon);
    uint32_t *reps = NULL;
    kcbp_status st = kcbp_mesh_components(mesh, &reps, &c.components, err);
    free(reps);
    if (st != KCBP_OK)
        return st;
    if (check)
        *check = c;
    if (c.open == 0 && c.nonmanifold == 0 && c.misoriented == 0)
        return KCBP_OK;
    char msg[KCBP_ERROR_MSG_MAX - 64];
    snprintf(msg, sizeof msg, "not a closed solid:");
    static const char *const what[3] = {"open", "non-manifold", "inconsistently oriented"};
    const uint32_t counts[3] = {c.open, c.nonmanifold, c.misoriented};
    bool first = true;
    for (int kind = 0; kind < 3; kind++) {
        if (!counts[kind])
            continue;
        size_t len = strlen(msg);
        snprintf(msg + len, sizeof msg - len, "%s %u %s edge%s", first ? "" : ";", counts[kind], what[kind],
                 counts[kind] == 1 ? "" : "s");
        append_edges(msg, sizeof msg, (const uint32_t(*)[2])shown[kind], nshown[kind], counts[kind]);
        first = false;
    }
    return kcbp_error_set(err, KCBP_ERR_GEOMETRY, "%s", msg);
}

/* ------------------------------------------------------- components --- */

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

kcbp_status kcbp_mesh_components(const kcbp_mesh *mesh, uint32_t **reps, uint32_t *n, kcbp_error *err)
{
    *reps = NULL;
    *n = 0;
    uint32_t nv = mesh->nvertices;
    uint32_t *canon = kcbp_solid_weld(mesh);
    uint32_t *parent = malloc((nv ? nv : 1) * sizeof *parent);
    unsigned char *seen = calloc(nv ? nv : 1, 1);
    uint32_t *out = NULL;
    if (!canon || !parent || !seen)
        goto nomem;
    for (uint32_t i = 0; i < nv; i++)
        parent[i] = i;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        const uint32_t *v = mesh->triangles[t].v;
        uint32_t r0 = uf_find(parent, canon[v[0]]);
        for (int k = 1; k < 3; k++) {
            uint32_t r = uf_find(parent, canon[v[k]]);
            if (r != r0)
                parent[r > r0 ? r : r0] = r > r0 ? r0 : r;
            r0 = r < r0 ? r : r0;
        }
    }
    uint32_t count = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        uint32_t v0 = mesh->triangles[t].v[0], r = uf_find(parent, canon[v0]);
        count += !seen[r];
        seen[r] = 1;
    }
    out = malloc((count ? count : 1) * sizeof *out);
    if (!out)
        goto nomem;
    memset(seen, 0, nv ? nv : 1);
    count = 0;
    for (uint32_t t = 0; t < mesh->ntriangles; t++) {
        uint32_t v0 = mesh->triangles[t].v[0], r = uf_find(parent, canon[v0]);
        if (!seen[r])
            out[count++] = v0;
        seen[r] = 1;
    }
    free(canon);
    free(parent);
    free(seen);
    *reps = out;
    *n = count;
    return KCBP_OK;
nomem:
    free(canon);
    free(parent);
    free(seen);
    return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory finding a mesh's pieces");
}

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

kcbp_solid_side kcbp_point_in_solid(const kcbp_mesh *mesh, const kcbp_aabb_tree *tree, const kcbp_pose *pose,
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

kcbp_containment kcbp_solid_containment(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *b_in_a)
{
    /* A's box is exact (its vertices' bounds): a point outside it is
     * outside A. */
    for (uint32_t i = 0; i < b->npieces; i++) {
        kcbp_vec3 v = kcbp_pose_apply(b_in_a, b->mesh.vertices[b->pieces[i]]);
        if (in_box(a->mesh.bounds, v) && kcbp_point_in_solid(&a->mesh, &a->tree, NULL, v) != KCBP_SOLID_OUTSIDE)
            return KCBP_CONTAINED_B_IN_A;
    }
    /* B's box in A's frame, widened far above the rounding of the posed
     * vertices it must hold. */
    kcbp_aabb wb = kcbp_model_world_bounds(b, b_in_a);
    double pad = kcbp_collide_tolerance(a, b, b_in_a);
    wb.min = kcbp_v3_sub(wb.min, kcbp_v3(pad, pad, pad));
    wb.max = kcbp_v3_add(wb.max, kcbp_v3(pad, pad, pad));
    for (uint32_t i = 0; i < a->npieces; i++) {
        kcbp_vec3 v = a->mesh.vertices[a->pieces[i]];
        if (in_box(wb, v) && kcbp_point_in_solid(&b->mesh, &b->tree, b_in_a, v) != KCBP_SOLID_OUTSIDE)
            return KCBP_CONTAINED_A_IN_B;
    }
    return KCBP_CONTAINED_NONE;
}
