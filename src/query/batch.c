/* kcbp_collide_poses: one pair of models at many poses, the loop in C
 * (batch.h). */
#include <kcbp/batch.h>

#include <stdio.h>
#include <string.h>

#include "collide_internal.h"

kcbp_status kcbp_collide_poses(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                               const kcbp_pose *poses_b, size_t n, const kcbp_collide_options *options, uint8_t *out,
                               kcbp_error *err)
{
    if (!a || !b || !a->impl || !b->impl || (n > 0 && (!poses_b || !out)))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp_collide_poses: NULL model, poses or output");
    kcbp_pose identity = kcbp_pose_identity();
    if (!pose_a)
        pose_a = &identity;
    kcbp_collide_options opts = kcbp_collide_options_default();
    opts.contacts = KCBP_CONTACTS_NONE;
    if (options)
        opts = *options;
    kcbp_collide_result result;
    kcbp_pair_cache cache;
    memset(&result, 0, sizeof result);
    memset(&cache, 0, sizeof cache);
    kcbp_status st = KCBP_OK;
    for (size_t i = 0; i < n; i++) {
        st = kcbp_collide_pair(a->impl, pose_a, b->impl, &poses_b[i], &opts, &cache, &result, err);
        if (st != KCBP_OK)
            break;
        out[i] = result.collide ? 1 : 0;
    }
    kcbp_collide_result_free(&result);
    return st;
}

kcbp_status kcbp_poses_from_axis_angle(const double *values, size_t n, kcbp_pose *out, kcbp_error *err)
{
    if (n > 0 && (!values || !out))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp_poses_from_axis_angle: NULL values or output");
    for (size_t i = 0; i < n; i++) {
        const double *v = values + 7 * i;
        kcbp_status st =
            kcbp_pose_from_axis_angle((kcbp_vec3){v[0], v[1], v[2]}, (kcbp_vec3){v[3], v[4], v[5]}, v[6], &out[i], err);
        if (st != KCBP_OK) {
            char prefix[40];
            snprintf(prefix, sizeof prefix, "pose %zu", i);
            kcbp_error_prefix(err, prefix);
            return st;
        }
    }
    return KCBP_OK;
}
