/* How far an object can have moved between two runs, and the slack test
 * (reach.h). */
#include "reach.h"

#include <math.h>

kcbp_reach_sphere kcbp_reach_sphere_of(const kcbp_model_impl *m)
{
    static const kcbp_pose identity = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};
    kcbp_aabb box = kcbp_impl_world_bounds(m, &identity);
    kcbp_reach_sphere s;
    s.c = kcbp_v3_scale(kcbp_v3_add(box.min, box.max), 0.5);
    double r2 = 0;
    if (!kcbp_impl_is_shape(m) && kcbp_impl_has_cbp(m)) {
        for (uint32_t i = 0; i < m->cbp.nvertices; i++)
            r2 = fmax(r2, kcbp_v3_len2(kcbp_v3_sub(m->cbp.vertices[i], s.c)));
    } else {
        r2 = kcbp_v3_len2(kcbp_v3_sub(box.max, s.c));
    }
    /* a relative 1e-12 above the rounding of the squares, and the padding
     * of the bounds' box (the box holds the bound, its corners do too) */
    s.r = sqrt(r2) * (1 + 1e-12) + 1e-12 * kcbp_v3_max_abs(s.c);
    if (!isfinite(s.r))
        s.r = INFINITY;
    return s;
}

double kcbp_reach(const kcbp_reach_sphere *s, const kcbp_pose *p0, const kcbp_pose *p1)
{
    kcbp_vec3 c0 = kcbp_v3_add(kcbp_mat3_mul_v3(&p0->rot, s->c), p0->trans);
    kcbp_vec3 c1 = kcbp_v3_add(kcbp_mat3_mul_v3(&p1->rot, s->c), p1->trans);
    double f2 = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = p1->rot.m[i][j] - p0->rot.m[i][j];
            f2 += d * d;
        }
    double moved = kcbp_v3_len(kcbp_v3_sub(c1, c0)) + sqrt(f2) * s->r;
    /* (sums of absolute coordinates: at least the lengths, and no roots) */
    kcbp_vec3 a0 = kcbp_v3_abs(p0->trans), a1 = kcbp_v3_abs(p1->trans), ac = kcbp_v3_abs(s->c);
    double size = a0.x + a0.y + a0.z + a1.x + a1.y + a1.z + ac.x + ac.y + ac.z + s->r;
    return moved * (1 + 1e-9) + 1e-12 * size;
}

double kcbp_reach_margin_bound(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                               const kcbp_pose *pose_b)
{
    kcbp_vec3 d = kcbp_v3_abs(kcbp_v3_sub(pose_b->trans, pose_a->trans));
    return KCBP_CBP_MARGIN_REL * (fmax(a->scale, a->cbp_scale) + fmax(b->scale, b->cbp_scale) + d.x + d.y + d.z) *
           (1 + 1e-6);
}

bool kcbp_reach_slack_holds(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                            const kcbp_pose *pose_b, double reach, kcbp_pair_cache *pc)
{
    double left = (double)pc->slack - reach;
    /* At least the k-CBP margin at the new poses (kcbp_pair_cbp_margin:
     * KCBP_CBP_MARGIN_REL times max(sa, sb + L, ca, cb + L), s the models'
     * scales, c their k-CBPs', L the length of B's translation in A's
     * frame), bounded with no rotation nor root: max(x, y + L) <= x + y + L
     * for x, y >= 0, and L = |Ra^T (tb - ta)| <= |tb - ta|_1 with a
     * relative 1e-6 for the rounding and the rotations' rigidity. */
    double margin = kcbp_reach_margin_bound(a, pose_a, b, pose_b);
    if (left > margin) { /* false for NaN */
        pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_SLACK;
        kcbp_pair_cache_set_slack(pc, left);
        return (pc->flags & KCBP_PAIR_CACHE_SLACK) != 0;
    }
    pc->flags &= ~(uint32_t)KCBP_PAIR_CACHE_SLACK;
    return false;
}
