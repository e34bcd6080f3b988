#include "collide.h"

#include <stdlib.h>
#include <string.h>

#include "obj.h"
#include "tritri.h"

kcbp_status kcbp_model_build(kcbp_model *model, kcbp_mesh *mesh, kcbp_error *err)
{
    memset(model, 0, sizeof *model);
    model->mesh = *mesh;
    memset(mesh, 0, sizeof *mesh);
    model->scale = kcbp_mesh_scale(&model->mesh);
    kcbp_status st = kcbp_aabb_tree_build(&model->mesh, &model->tree, err);
    if (st != KCBP_OK)
        kcbp_model_free(model);
    return st;
}

kcbp_status kcbp_model_load(kcbp_model *model, const char *obj_path, kcbp_error *err)
{
    kcbp_mesh mesh;
    memset(model, 0, sizeof *model);
    kcbp_status st = kcbp_obj_load(obj_path, &mesh, err);
    if (st != KCBP_OK)
        return st;
    return kcbp_model_build(model, &mesh, err);
}

void kcbp_model_free(kcbp_model *model)
{
    if (!model)
        return;
    kcbp_aabb_tree_free(&model->tree);
    kcbp_mesh_free(&model->mesh);
}

const char *kcbp_stage_name(kcbp_stage stage)
{
    switch (stage) {
    case KCBP_STAGE_AABB: return "aabb";
    case KCBP_STAGE_MESH: return "mesh";
    }
    return "unknown";
}

kcbp_collide_options kcbp_collide_options_default(void)
{
    kcbp_collide_options o = {KCBP_CONTACTS_FIRST};
    return o;
}

double kcbp_collide_tolerance(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *b_in_a)
{
    /* In A's frame, B's coordinates are as large as its own scale plus the
     * distance it was moved; rounding grows with that magnitude. */
    double scale = fmax(a->scale, b->scale + kcbp_v3_len(b_in_a->trans));
    return kcbp_tri_tolerance(scale);
}

typedef struct {
    kcbp_collide_result *res;
    kcbp_contacts_mode mode;
    bool nomem;
} contact_sink;

static bool add_contact(void *ctx, uint32_t ta, uint32_t tb)
{
    contact_sink *s = ctx;
    kcbp_collide_result *r = s->res;
    r->collide = true;
    if (s->mode == KCBP_CONTACTS_NONE)
        return false;
    if (r->ncontacts == r->capacity) {
        size_t cap = r->capacity ? 2 * r->capacity : 16;
        kcbp_contact *grown = realloc(r->contacts, cap * sizeof *grown);
        if (!grown) {
            s->nomem = true;
            return false;
        }
        r->contacts = grown;
        r->capacity = cap;
    }
    r->contacts[r->ncontacts++] = (kcbp_contact){ta, tb};
    return s->mode == KCBP_CONTACTS_ALL;
}

static int cmp_contact(const void *x, const void *y)
{
    const kcbp_contact *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

/* The box of the posed local box (Arvo's method: the half-sizes grow by |R|
 * times the local ones). */
kcbp_aabb kcbp_model_world_bounds(const kcbp_model *m, const kcbp_pose *pose)
{
    kcbp_vec3 c = kcbp_pose_apply(pose, kcbp_aabb_center(m->mesh.bounds));
    kcbp_vec3 e = kcbp_aabb_extent(m->mesh.bounds);
    kcbp_vec3 w;
    w.x = fabs(pose->rot.m[0][0]) * e.x + fabs(pose->rot.m[0][1]) * e.y + fabs(pose->rot.m[0][2]) * e.z;
    w.y = fabs(pose->rot.m[1][0]) * e.x + fabs(pose->rot.m[1][1]) * e.y + fabs(pose->rot.m[1][2]) * e.z;
    w.z = fabs(pose->rot.m[2][0]) * e.x + fabs(pose->rot.m[2][1]) * e.y + fabs(pose->rot.m[2][2]) * e.z;
    kcbp_aabb b = {kcbp_v3_sub(c, w), kcbp_v3_add(c, w)};
    return b;
}

kcbp_status kcbp_collide(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                         const kcbp_collide_options *options, kcbp_collide_result *result, kcbp_error *err)
{
    result->collide = false;
    result->ncontacts = 0;
    memset(&result->tree, 0, sizeof result->tree);
    kcbp_pose b_in_a = kcbp_pose_relative(pose_a, pose_b);
    double eps = kcbp_collide_tolerance(a, b, &b_in_a);

    /* Stage 1: world boxes, widened by the tolerance. */
    kcbp_aabb wa = kcbp_model_world_bounds(a, pose_a), wb = kcbp_model_world_bounds(b, pose_b);
    kcbp_vec3 pad = kcbp_v3(eps, eps, eps);
    wa.min = kcbp_v3_sub(wa.min, pad);
    wa.max = kcbp_v3_add(wa.max, pad);
    if (!kcbp_aabb_overlap(wa, wb)) {
        result->decided_by = KCBP_STAGE_AABB;
        return KCBP_OK;
    }

    /* Stage 2: the exact answer, from the two trees and Möller's test. */
    result->decided_by = KCBP_STAGE_MESH;
    contact_sink sink = {result, options->contacts, false};
    kcbp_aabb_tree_collide(&a->tree, &b->tree, &b_in_a, eps, add_contact, &sink, &result->tree);
    if (sink.nomem)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the contact list");
    qsort(result->contacts, result->ncontacts, sizeof *result->contacts, cmp_contact);
    return KCBP_OK;
}

void kcbp_collide_result_free(kcbp_collide_result *result)
{
    if (!result)
        return;
    free(result->contacts);
    memset(result, 0, sizeof *result);
}
