/* JSON reports, built with cJSON. Each function returns a new cJSON tree that
 * the caller owns (cJSON_Delete), or NULL when memory ran out. */
#ifndef KCBP_REPORT_H
#define KCBP_REPORT_H

#include <cjson/cJSON.h>

#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock times measured by the caller, in milliseconds. */
typedef struct {
    double load_ms, build_ms, query_ms;
} kcbp_timings;

/* {"vertices", "triangles", "degenerate_triangles"} of a model's mesh. */
cJSON *kcbp_report_mesh(const kcbp_model *model);

/* What the k-CBP stage found: {"separated", "distance", and "point_a",
 * "point_b" when apart, or "depth", "direction", "depth_exact" when not;
 * "gjk_iterations", "epa_iterations"}. */
cJSON *kcbp_report_cbp(const kcbp_cbp_result *cbp);

/* The report of one kcbp_collide answer:
 * {"collide", "decided_by", "contacts": [[a, b], ...], "cbp" (when the k-CBP
 *  stage ran), "a": mesh, "b": mesh,
 *  "stats": {"box_pairs", "triangle_pairs", "load_ms", "build_ms", "query_ms"}} */
cJSON *kcbp_report_collide(const kcbp_collide_result *result, const kcbp_model *a, const kcbp_model *b,
                           const kcbp_timings *times);

#ifdef __cplusplus
}
#endif
#endif
