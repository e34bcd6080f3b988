/* kcbp_collide with a cap on the contacts it looks for (added in 1.2).
 *
 * kcbp_collide with KCBP_CONTACTS_ALL finds every contact, however many
 * there are (two coincident meshes of n triangles have at least n): its time
 * and memory grow with them. Here the mesh stage stops once it has found
 * max_contacts of them, so that a caller who lists at most N asks for N + 1
 * and knows whether there were more, in time bounded by what it lists.
 *
 * Guarantee: collide, decided_by and contained are kcbp_collide's (the
 * search stops only after a contact, which already proves "collide").
 * Every contact listed is one kcbp_collide lists (the same exact test on the
 * same coordinates), sorted by (a, b); when the cap stopped the search
 * (ncontacts == max_contacts), they are the first max_contacts the trees'
 * depth-first order met, not necessarily the smallest (a, b), and the pair
 * has at least that many contacts (a lower bound). Below the cap, the list
 * is kcbp_collide's, whole. With KCBP_CONTACTS_FIRST or NONE the cap changes
 * nothing. Two shapes, or a shape and a mesh (a handful of contacts at
 * most), are tested whole and their list cut to the cap. */
#ifndef KCBP_COLLIDE_CAP_H
#define KCBP_COLLIDE_CAP_H

#include <stdint.h>

#include "collide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growable options struct (docs/library.md, "Versions"): made only by
 * kcbp_collide_cap_options_default. */
typedef struct {
    uint32_t size;                /* sizeof the caller's struct: set by kcbp_collide_cap_options_default */
    kcbp_collide_options collide; /* as kcbp_collide's (default: kcbp_collide_options_default) */
    uint64_t max_contacts;        /* > 0: the mesh stage stops at this many contacts; 0 (default): no cap */
} kcbp_collide_cap_options;

/* Fills *o with the defaults for a struct of `size` bytes (the caller's
 * sizeof): kcbp_collide_options_default, no cap. */
KCBP_API void kcbp_collide_cap_options_init(kcbp_collide_cap_options *o, uint32_t size);

static inline kcbp_collide_cap_options kcbp_collide_cap_options_default(void)
{
    kcbp_collide_cap_options o;
    kcbp_collide_cap_options_init(&o, (uint32_t)sizeof o);
    return o;
}

/* kcbp_collide_cached (cache NULL: kcbp_collide) with the cap above.
 * options NULL: the defaults. Fails with KCBP_ERR_INVALID on options not
 * made by kcbp_collide_cap_options_default. */
KCBP_API kcbp_status kcbp_collide_capped(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                         const kcbp_pose *pose_b, const kcbp_collide_cap_options *options,
                                         kcbp_pair_cache *cache, kcbp_collide_result *result, kcbp_error *err);

#ifdef __cplusplus
}
#endif
#endif
