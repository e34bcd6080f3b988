/* Coincident copies (collide_internal.h): one model at exactly equal poses. */
#include "collide_internal.h"

bool kcbp_pair_coincident(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a)
{
    bool same_mesh = a == b || (a->mesh.vertices == b->mesh.vertices && a->mesh.triangles == b->mesh.triangles &&
                                a->mesh.nvertices == b->mesh.nvertices && a->mesh.ntriangles == b->mesh.ntriangles);
    if (!same_mesh || a->mesh.ntriangles == 0)
        return false;
    if (b_in_a->trans.x != 0 || b_in_a->trans.y != 0 || b_in_a->trans.z != 0)
        return false;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (b_in_a->rot.m[i][j] != (i == j ? 1.0 : 0.0))
                return false;
    return true;
}

uint32_t kcbp_coincident_contact(const kcbp_model_impl *a)
{
    const kcbp_vec3 *v = a->mesh.vertices;
    for (uint32_t t = 0; t < a->mesh.ntriangles; t++) {
        const uint32_t *i = a->mesh.triangles[t].v;
        if (!kcbp_triangle_is_degenerate(v[i[0]], v[i[1]], v[i[2]]))
            return t;
    }
    return UINT32_MAX;
}
