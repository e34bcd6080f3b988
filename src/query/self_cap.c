/* kcbp_self_intersections with a cap on the pairs it looks for (self.h). */
#include <kcbp/self.h>

#include "self_internal.h"

kcbp_status kcbp_self_intersections_capped(const kcbp_model *model, kcbp_contacts_mode mode, uint64_t max_pairs,
                                           kcbp_contact **pairs, size_t *npairs, kcbp_tree_stats *stats,
                                           kcbp_error *err)
{
    return kcbp_self_intersections_run(model, mode, KCBP_SELF_CERTIFIED, max_pairs, pairs, npairs, stats, err);
}
