/* kcbp_shape_pair_depth (depth.h). First version: GJK then EPA on the
 * shapes' support functions for every pair (closed forms and the box
 * axes are to come). */
#include "depth.h"

#include <math.h>
#include <string.h>

#include <kcbp/epa.h>
#include <kcbp/gjk.h>

void kcbp_shape_pair_depth(const kcbp_shape_geom *a, const kcbp_shape_geom *b, const kcbp_pose *b_in_a,
                           kcbp_convex_depth *out)
{
    memset(out, 0, sizeof *out);
    kcbp_gjk_result g;
    kcbp_gjk_distance(&a->convex, &b->convex, b_in_a, NULL, NULL, &g);
    if (g.status == KCBP_GJK_SEPARATED)
        return;
    kcbp_epa_result e;
    kcbp_epa_penetration(&a->convex, &b->convex, b_in_a, &g, NULL, NULL, NULL, &e);
    if (e.status == KCBP_EPA_SEPARATED)
        return;
    out->overlap = true;
    out->depth = e.depth;
    out->depth_lower = e.depth_lower;
    out->exact = e.status != KCBP_EPA_DEPTH_UNKNOWN;
    out->normal = e.normal;
    out->point_a = e.point_a;
    out->point_b = e.point_b;
    out->iterations = e.iterations;
}
