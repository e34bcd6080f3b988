/* kcbp_depth_bracket (depth_internal.h): not yet written. */
#include "depth_internal.h"

kcbp_status kcbp_depth_bracket(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                               const kcbp_pose *pose_b, const kcbp_signed_distance_options *o,
                               kcbp_signed_distance_result *r, kcbp_error *err)
{
    (void)a, (void)pose_a, (void)b, (void)pose_b, (void)o, (void)r;
    return kcbp_error_set(err, KCBP_ERR_INVALID, "signed distance: the depth of a mesh is not written yet");
}
