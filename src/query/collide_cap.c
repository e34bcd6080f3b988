/* kcbp_collide with a cap on the contacts it looks for (collide_cap.h). */
#include <kcbp/collide_cap.h>

#include <stddef.h>
#include <string.h>

#include "base/util.h"
#include "collide_internal.h"

/* The size of the struct's first release (1.2). */
#define OPTIONS_V1_SIZE (offsetof(kcbp_collide_cap_options, max_contacts) + sizeof(uint64_t))

void kcbp_collide_cap_options_init(kcbp_collide_cap_options *o, uint32_t size)
{
    kcbp_collide_cap_options d;
    memset(&d, 0, sizeof d);
    d.size = size;
    d.collide = kcbp_collide_options_default();
    d.max_contacts = 0;
    memcpy(o, &d, size < sizeof d ? size : sizeof d);
}

kcbp_status kcbp_collide_capped(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                const kcbp_pose *pose_b, const kcbp_collide_cap_options *options,
                                kcbp_pair_cache *cache, kcbp_collide_result *result, kcbp_error *err)
{
    kcbp_collide_cap_options o;
    kcbp_collide_cap_options_init(&o, (uint32_t)sizeof o);
    if (options) {
        kcbp_status st = kcbp_options_copy_in(&o, sizeof o, options, OPTIONS_V1_SIZE, "collide",
                                              "kcbp_collide_cap_options_default", err);
        if (st != KCBP_OK)
            return st;
    }
    return kcbp_collide_pair_capped(a->impl, pose_a, b->impl, pose_b, &o.collide, o.max_contacts, cache, result,
                                    err);
}
