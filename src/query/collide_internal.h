/* Internals of the pair test shared with its users in the library (scene
 * evaluation embeds pair caches by value). */
#ifndef KCBP_COLLIDE_INTERNAL_H
#define KCBP_COLLIDE_INTERNAL_H

#include <kcbp/collide.h>
#include <kcbp/gjk.h>

#include "model_internal.h"

/* Temporal coherence: what one test of a pair of models leaves for the next
 * test of the same pair, when poses change little between tests (the frames
 * of a moving scene, a trajectory of poses). Owned by the caller: one per
 * pair, zero-initialised (= empty), passed to every kcbp_collide_cached of
 * that pair with the models in the same order; never shared between
 * threads. Plain data, no allocation: dropping or zeroing it is free.
 *
 * What it holds and how each is used (van den Bergen, "A fast and robust GJK
 * implementation for collision detection of convex objects", JGT 4(2), 1999,
 * section 4, separating-axis and simplex caching; Box2D's b2SimplexCache):
 *   - axis: a unit axis in A's frame along which the k-CBPs were last proven
 *     apart. Next time their gap along it is computed first, one scan of each
 *     k-CBP's vertices: a gap above the k-CBP stage's margin proves them
 *     apart again without GJK (it is the check that certifies GJK's own
 *     "apart").
 *   - simplex: GJK's last simplex on the two k-CBPs (vertex indices). GJK
 *     starts from it; while the k-CBPs overlap it mostly still encloses the
 *     origin, which proves the overlap before any support search.
 *   - contact: the first contact the last mesh stage found. With
 *     KCBP_CONTACTS_NONE it is tested first, with the very test the
 *     trees would use: a pair still touching there is
 *     confirmed by one triangle test, before the k-CBP stage (after it with
 *     cbp_measure).
 *   - leaf: the two tree leaves that hold that contact. When the contact no
 *     longer holds, the mesh stage first searches below the leaves'
 *     ancestors KCBP_CACHE_NEAR_LEVELS levels up (a few dozen triangles of
 *     each mesh, where a contact that moved a little is found), and only
 *     then, when none is there, from the roots (Ehmann and Lin's front
 *     tracking, "Accurate and fast proximity queries between polyhedra using
 *     convex surface decomposition", Eurographics 2001, cut to the one
 *     node pair that matters for a yes/no answer). Any contact proves
 *     "collide", so this reorders the search only with KCBP_CONTACTS_NONE,
 *     where no contact is reported.
 *   - fine_axis, fine_simplex: the same two for the models' fine k-CBPs
 *     (kcbp_model_options.k_fine), tested when the coarse k-CBPs overlap,
 *     from the second test of a pair on (SEEN).
 *   - slack: the gap the k-CBP stage last proved between the two bounds
 *     (along the axis or fine_axis, its certificate's value, rounded
 *     down), set (flag SLACK) only by a test the k-CBP stage ended, cleared
 *     by every other. A caller that knows how far each model can have moved
 *     since that test (a scene between two frames: src/scene/reach.h)
 *     may take the pair as apart again, with no test at all, while the slack
 *     less both motions stays above the k-CBP margin: the meshes, inside
 *     their bounds, are then still apart by more than it.
 *   - overlaps: how many tests in a row the k-CBP stage did not end (their
 *     k-CBPs overlapped, or the stage was skipped). From
 *     KCBP_CACHE_SKIP_AFTER on, the stage is skipped (adaptive: it can then
 *     only pass the pair on) but for every KCBP_CACHE_SKIP_AFTER-th test,
 *     which still runs it, until the world boxes or the k-CBPs find the
 *     pair apart. Measured on random near-contact poses (bench/gen_poses,
 *     200 per pair, callgrind): the stage then costs 1.6-1.9 % more
 *     instructions than --no-cbp, where it cost 7-12 % more when any apart
 *     answer reset the count. A pair whose last test found it touching
 *     (contact cached) skips the stage too: while it touches the stage can
 *     only pass it on, and once apart the exact stage settles it (on
 *     bench/moving_pay.sh's scenes: 0.3-1.4 % fewer instructions).
 * Guarantee: the cache never changes collide or the contacts reported.
 * Every shortcut is a test the full path makes too (the axis gap is the
 * k-CBP stage's certificate; the cached contact is tested as the trees test
 * it); skipping the k-CBP stage or trusting the cached contact before it
 * relies on what the k-CBP stage itself relies on (the triangle test accepts
 * no pair more than its margin apart); the search near the last contact
 * runs only with KCBP_CONTACTS_NONE and any contact it finds is one the
 * full search could report, so FIRST and ALL report the same contacts. decided_by can differ only where the k-CBPs are
 * within rounding of the margin apart, where a cold GJK would stop at its
 * iteration cap, where the fine k-CBPs (tested only with a cache) are
 * apart ("cbp" where kcbp_collide says "mesh"), or where the stage was
 * skipped ("mesh" where kcbp_collide says "cbp"); collide is false then.
 * The stats (result->cbp's iterations and distance_lower, result->tree) do
 * differ. With cbp_measure the k-CBP stage runs as without
 * a cache, so that the measured distance and depth stay bit for bit the same
 * (and it is not skipped). Contents that do not fit the models (indices out
 * of range, another pair's cache) are skipped, never trusted. */
#define KCBP_CACHE_SKIP_AFTER 8
#define KCBP_CACHE_NEAR_LEVELS 4

enum {
    KCBP_PAIR_CACHE_AXIS = 1u << 0,
    KCBP_PAIR_CACHE_CONTACT = 1u << 1,
    KCBP_PAIR_CACHE_FINE_AXIS = 1u << 2,
    KCBP_PAIR_CACHE_SEEN = 1u << 3, /* the pair was tested before */
    KCBP_PAIR_CACHE_LEAVES = 1u << 4, /* leaf holds the contact's two leaves */
    KCBP_PAIR_CACHE_SLACK = 1u << 5,  /* slack holds the last proven gap */
};

struct kcbp_pair_cache {
    uint32_t flags;                 /* KCBP_PAIR_CACHE_*: which of axis, contact hold something */
    kcbp_vec3 axis;                 /* A's frame, unit, from A toward B */
    kcbp_gjk_simplex_cache simplex; /* count 0: none */
    kcbp_contact contact;           /* triangle indices in A and B */
    uint32_t leaf[2];               /* the tree leaves (A's, B's) that hold contact */
    uint32_t overlaps;
    kcbp_vec3 fine_axis;            /* the same two for the fine k-CBPs */
    kcbp_gjk_simplex_cache fine_simplex;
    float slack;                    /* the k-CBP stage's last proven gap (SLACK), rounded down */
};

/* kcbp_collide_cached on the models' internals (pc NULL: kcbp_collide). */
kcbp_status kcbp_collide_pair(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                              const kcbp_pose *pose_b, const kcbp_collide_options *options, kcbp_pair_cache *pc,
                              kcbp_collide_result *result, kcbp_error *err);

/* Coincident copies: the same mesh (one model, or models sharing their
 * arrays, as a scene's model cache shares them) with B in A's frame exactly
 * the identity (kcbp_pose_relative of equal poses is). B's vertices are
 * then carried onto A's exactly (1 x + 0 y + 0 z + 0 == x), so every
 * triangle meets its own copy (a closed, non-empty set meets itself: the
 * exact triangle test says so too) and the pair collides, with contact
 * (0, 0) among others: known without a descent. For KCBP_CONTACTS_NONE
 * and FIRST (whose one contact is kcbp_coincident_contact's); ALL, which
 * lists every one, still searches. */
bool kcbp_pair_coincident(const kcbp_model_impl *a, const kcbp_model_impl *b, const kcbp_pose *b_in_a);
/* A contact of two coincident copies of a without a search: the first
 * triangle t that kcbp_triangle_is_degenerate does not call degenerate
 * (its edges' cross product above their rounding, so a true triangle)
 * meets its own copy, (t, t); UINT32_MAX when every triangle is. */
uint32_t kcbp_coincident_contact(const kcbp_model_impl *a);

/* The same, the mesh stage stopping once it has found max_contacts
 * contacts (> 0, with KCBP_CONTACTS_ALL; 0: every contact): see
 * kcbp_collide_capped (collide_cap.h). */
kcbp_status kcbp_collide_pair_capped(const kcbp_model_impl *a, const kcbp_pose *pose_a, const kcbp_model_impl *b,
                                     const kcbp_pose *pose_b, const kcbp_collide_options *options,
                                     uint64_t max_contacts, kcbp_pair_cache *pc, kcbp_collide_result *result,
                                     kcbp_error *err);

#endif
