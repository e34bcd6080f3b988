/* The world behind its handle (internal; include/kcbp/world.h). */
#ifndef KCBP_WORLD_INTERNAL_H
#define KCBP_WORLD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/world.h>

#include "boxtree.h"
#include "pairs.h"
#include "query/collide_internal.h"
#include "query/model_internal.h"

struct kcbp_world {
    kcbp_world_options o;
    /* per slot */
    uint32_t nslots, cap;
    const kcbp_model_impl **models; /* NULL: a free slot */
    const kcbp_model **handles;     /* the caller's model, as given */
    kcbp_pose *poses;
    kcbp_aabb *boxes;               /* padded world boxes (valid unless dirty) */
    uint64_t *born;                 /* the pair stage's run from which the object is there */
    uint32_t *gen;                  /* the slot's generation: the id's high half */
    char **names;
    uint8_t *dirty;                 /* box to recompute */
    /* free slots, dirty slots */
    uint32_t *free_slots, nfree;
    uint32_t *dirty_list, ndirty;
    uint32_t count;
    /* names: open addressing, slot + 1, TOMB for a removed one */
    uint32_t *name_table, name_size, name_used;
    /* the broad phase: over the live slots; rebuilt after adds and removes */
    kcbp_boxtree tree;
    bool tree_valid;
    uint32_t *live;
    kcbp_pairs pairs;
    kcbp_collide_result result;
    uint32_t *found;
    size_t cap_found;
    /* The distance searches' lower bounds are the boxes' distances times
     * this: 1. Tests set it above 1 (an over-tight bound) to see the
     * answers go wrong. */
    double bound_scale;
};

#endif
