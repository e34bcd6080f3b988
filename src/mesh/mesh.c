#include "mesh_internal.h"

#include "base/util.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

int kcbp_triangle_is_degenerate(kcbp_vec3 a, kcbp_vec3 b, kcbp_vec3 c)
{
    kcbp_vec3 e1 = kcbp_v3_sub(b, a), e2 = kcbp_v3_sub(c, a);
    double cross = kcbp_v3_len(kcbp_v3_cross(e1, e2));
    /* |e1 x e2| = |e1||e2| sin(angle); rounding in the cross product is a few
     * ulps of |e1||e2|, so anything below that is "parallel edges". */
    return cross <= 8.0 * DBL_EPSILON * kcbp_v3_len(e1) * kcbp_v3_len(e2);
}

kcbp_status kcbp_mesh_adopt(kcbp_mesh *mesh, kcbp_vec3 *vertices, size_t nvertices, kcbp_tri *triangles,
                            size_t ntriangles, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    kcbp_status st = KCBP_OK;
    if (nvertices == 0 || ntriangles == 0)
        st = kcbp_error_set(err, KCBP_ERR_INVALID, "mesh has no %s", nvertices == 0 ? "vertices" : "triangles");
    else if (nvertices > KCBP_MESH_MAX_ELEMENTS || ntriangles > KCBP_MESH_MAX_ELEMENTS)
        st = kcbp_error_set(err, KCBP_ERR_LIMIT, "mesh has more than %u vertices or triangles",
                            KCBP_MESH_MAX_ELEMENTS);
    for (size_t i = 0; st == KCBP_OK && i < nvertices; i++) {
        kcbp_vec3 v = vertices[i];
        if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z))
            st = kcbp_error_set(err, KCBP_ERR_INVALID, "vertex %zu has a non-finite coordinate", i);
        else if (kcbp_v3_max_abs(v) > KCBP_COORD_MAX)
            st = kcbp_error_set(err, KCBP_ERR_LIMIT, "vertex %zu has a coordinate of magnitude %g, above the limit "
                                "of %g", i, kcbp_v3_max_abs(v), KCBP_COORD_MAX);
    }
    for (size_t i = 0; st == KCBP_OK && i < ntriangles; i++)
        for (int k = 0; k < 3; k++)
            if (triangles[i].v[k] >= nvertices) {
                st = kcbp_error_set(err, KCBP_ERR_INVALID, "triangle %zu uses vertex %u of %zu", i,
                                    triangles[i].v[k], nvertices);
                break;
            }
    if (st != KCBP_OK) {
        free(vertices);
        free(triangles);
        return st;
    }
    /* Invariants every later stage relies on (mesh.h): finite vertices
     * within KCBP_COORD_MAX, triangle indices in range. */
    KCBP_ASSERT(nvertices > 0 && ntriangles > 0);
    mesh->vertices = vertices;
    mesh->nvertices = (uint32_t)nvertices;
    mesh->triangles = triangles;
    mesh->ntriangles = (uint32_t)ntriangles;
    kcbp_aabb b = {vertices[0], vertices[0]};
    for (size_t i = 1; i < nvertices; i++) {
        b.min = kcbp_v3_min(b.min, vertices[i]);
        b.max = kcbp_v3_max(b.max, vertices[i]);
    }
    mesh->bounds = b;
    double scale = kcbp_mesh_scale(mesh);
    if (scale > 0 && scale < KCBP_MESH_MIN_SCALE) {
        memset(mesh, 0, sizeof *mesh);
        free(vertices);
        free(triangles);
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "mesh of size %g is below the limit of %g (its areas would "
                              "underflow)", scale, KCBP_MESH_MIN_SCALE);
    }
    for (size_t i = 0; i < ntriangles; i++) {
        const uint32_t *t = triangles[i].v;
        mesh->ndegenerate += (uint32_t)kcbp_triangle_is_degenerate(vertices[t[0]], vertices[t[1]], vertices[t[2]]);
    }
    return KCBP_OK;
}

kcbp_status kcbp_mesh_init(kcbp_mesh *mesh, const kcbp_vec3 *vertices, size_t nvertices,
                           const kcbp_tri *triangles, size_t ntriangles, kcbp_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    kcbp_vec3 *v = malloc((nvertices ? nvertices : 1) * sizeof *v);
    kcbp_tri *t = malloc((ntriangles ? ntriangles : 1) * sizeof *t);
    if (!v || !t) {
        free(v);
        free(t);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a mesh of %zu vertices", nvertices);
    }
    if (nvertices)
        memcpy(v, vertices, nvertices * sizeof *v);
    if (ntriangles)
        memcpy(t, triangles, ntriangles * sizeof *t);
    return kcbp_mesh_adopt(mesh, v, nvertices, t, ntriangles, err);
}

void kcbp_mesh_clear(kcbp_mesh *mesh)
{
    if (!mesh)
        return;
    free(mesh->vertices);
    free(mesh->triangles);
    free(mesh->faces);
    memset(mesh, 0, sizeof *mesh);
}

kcbp_status kcbp_mesh_to_handle(kcbp_mesh *mesh, kcbp_mesh **out, kcbp_error *err)
{
    *out = malloc(sizeof **out);
    if (!*out) {
        kcbp_mesh_clear(mesh);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for a mesh");
    }
    **out = *mesh;
    memset(mesh, 0, sizeof *mesh);
    return KCBP_OK;
}

kcbp_status kcbp_mesh_create(const kcbp_vec3 *vertices, size_t nvertices, const kcbp_tri *triangles,
                             size_t ntriangles, kcbp_mesh **out, kcbp_error *err)
{
    kcbp_mesh m;
    *out = NULL;
    kcbp_status st = kcbp_mesh_init(&m, vertices, nvertices, triangles, ntriangles, err);
    return st == KCBP_OK ? kcbp_mesh_to_handle(&m, out, err) : st;
}

void kcbp_mesh_free(kcbp_mesh *mesh)
{
    kcbp_mesh_clear(mesh);
    free(mesh);
}

uint32_t kcbp_mesh_vertex_count(const kcbp_mesh *mesh) { return mesh->nvertices; }
const kcbp_vec3 *kcbp_mesh_vertices(const kcbp_mesh *mesh) { return mesh->vertices; }
uint32_t kcbp_mesh_triangle_count(const kcbp_mesh *mesh) { return mesh->ntriangles; }
const kcbp_tri *kcbp_mesh_triangles(const kcbp_mesh *mesh) { return mesh->triangles; }
uint32_t kcbp_mesh_degenerate_count(const kcbp_mesh *mesh) { return mesh->ndegenerate; }
kcbp_aabb kcbp_mesh_bounds(const kcbp_mesh *mesh) { return mesh->bounds; }
const uint32_t *kcbp_mesh_faces(const kcbp_mesh *mesh) { return mesh->faces; }

double kcbp_mesh_scale(const kcbp_mesh *mesh)
{
    double diag = kcbp_v3_len(kcbp_v3_sub(mesh->bounds.max, mesh->bounds.min));
    double far = fmax(kcbp_v3_max_abs(mesh->bounds.min), kcbp_v3_max_abs(mesh->bounds.max));
    return fmax(diag, far);
}
