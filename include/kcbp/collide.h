/* The staged collision test of one pair of posed meshes.
 *
 * kcbp_collide answers for any two poses of two models (model.h) without
 * rebuilding anything; models are read-only during queries, so one model
 * may be shared by any number of threads.
 *
 * The stages, cheapest first; the first that can settle the answer does:
 *   1. aabb: the world boxes of the two k-CBPs are apart;
 *   2. cbp:  GJK finds the two k-CBPs apart (and, when asked to measure, their
 *            distance, or EPA their overlap);
 *   3. mesh: the AABB trees and the exact triangle test give the answer.
 * Stage 3's answer is exact for A's vertices and B's carried into A's frame
 * in double (see kcbp_tri_intersect); it equals testing every triangle pair
 * on those coordinates. Stages 1 and 2 only ever say "apart", and only with
 * a margin (1e-10 and 1e-8 of the pair's scale) far above the rounding
 * between the coordinates they use and those, so they never change the
 * answer of stage 3.
 *
 * Shapes (shape.h, kcbp_model_build_shape) are models too: a shape against
 * a mesh goes through the same three stages (stage 2 tests the shape's
 * closed-form support against each plane of the mesh's k-CBP, or GJK when
 * measuring; stage 3 walks the mesh's tree with the shape), and its answer
 * is exact for spheres, capsules and boxes (for the shape's centre or
 * segment ends carried into the mesh's frame, the mesh's vertices carried
 * into a box's), within KCBP_SHAPE_GJK_BAND for cylinders and hulls. A shape
 * is a solid: a mesh inside it collides; a shape inside a closed mesh only
 * with options.solid. Two shapes are decided by their own test
 * (KCBP_STAGE_SHAPE). A contact's shape side is KCBP_SHAPE_FEATURE; the pair
 * cache is not used for shapes. */
#ifndef KCBP_COLLIDE_H
#define KCBP_COLLIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "pose.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    kcbp_contacts_mode contacts;
    bool use_cbp;     /* run the k-CBP stage (when both models have one) */
    bool cbp_measure; /* measure the distance or depth of the k-CBPs for the
                         report: GJK to convergence, then EPA when they overlap.
                         false: GJK only until a plane separates them by more
                         than the margin (or they are found not to be), which is
                         all the answer needs. Never changes the answer. */
    bool skip_bounds; /* do not test the world boxes first (stage 1): the caller
                         has (a broad phase). Never changes the answer. */
    bool solid;       /* the meshes are solids (both models built with
                         kcbp_model_options.solid, else KCBP_ERR_INVALID): when
                         their surfaces do not meet, one wholly inside the other
                         collides too (result->contained), decided exactly by
                         kcbp_point_in_solid on one vertex of each piece of
                         each surface whose box nests in the other's */
} kcbp_collide_options;

/* Contacts FIRST, the k-CBP stage on, not measured, surfaces only (no
 * solid), boxes tested (cbp_measure false: the answer, as fast as it can
 * be had). */
KCBP_API kcbp_collide_options kcbp_collide_options_default(void);

/* What the k-CBP stage found, in world coordinates. Every figure is about
 * the two k-CBPs (convex polytopes around the meshes), not the meshes: a
 * depth of 0.6 may hold meshes that do not touch (a small cube inside a big
 * one). The meshes' own contact geometry is kcbp_contact_geometry's
 * (contact_geom.h). */
typedef struct {
    bool tested;       /* the stage ran */
    bool separated;    /* the k-CBPs are apart: the meshes cannot touch */
    bool measured;     /* cbp_measure was set: the fields below are filled */
    double distance_lower; /* when separated: a proven lower bound on their
                              distance (== distance when measured) */
    double distance;   /* between the k-CBPs (0 when they overlap or touch) */
    kcbp_vec3 point_a, point_b; /* closest points of the k-CBPs, when apart */
    double depth;      /* when they overlap: the penetration depth (EPA) */
    kcbp_vec3 direction; /* unit: moving B by depth * direction separates them */
    bool depth_exact;  /* false when EPA could only bound the depth from above */
    int gjk_iterations, epa_iterations;
} kcbp_cbp_result;

/* With kcbp_collide_options.solid: which solid holds a piece of the other
 * when their surfaces do not meet. For connected surfaces, B_IN_A means B
 * lies wholly inside A (a bolt in its housing). */
typedef enum {
    KCBP_CONTAINED_NONE,
    KCBP_CONTAINED_A_IN_B,
    KCBP_CONTAINED_B_IN_A,
} kcbp_containment;

/* "none", "a_in_b", "b_in_a" (the report's names). */
KCBP_API const char *kcbp_containment_name(kcbp_containment c);

/* What a pair cache (kcbp_pair_cache) settled or changed in one test. */
typedef enum {
    KCBP_CACHE_UNUSED = 0, /* no cache, or nothing in it settled the answer */
    KCBP_CACHE_AXIS,       /* its separating axis proved the k-CBPs apart again: no GJK */
    KCBP_CACHE_CONTACT,    /* its contact still intersects: one triangle test, no trees (and no
                              GJK, unless cbp_measure asks for the k-CBP stage's figures) */
    KCBP_CACHE_NEAR,       /* a contact was found near its contact: the trees searched from a few
                              levels above the contact's leaves, not from their roots */
} kcbp_cache_hit;

typedef struct {
    kcbp_cache_hit hit;
    bool gjk_warm;    /* GJK started from the cached simplex */
    bool gjk_skipped; /* the k-CBP stage was skipped: the k-CBPs overlapped in the
                         pair's last tests (adaptive, see kcbp_pair_cache) */
} kcbp_cache_stats;

/* The answer for one pair. Contacts are sorted by (a, b). The contact array
 * is owned by the result and reused by the next kcbp_collide on it, so a
 * loop over many poses allocates only while the contact count grows. */
typedef struct {
    bool collide;
    kcbp_stage decided_by;
    kcbp_contact *contacts;
    size_t ncontacts, capacity;
    kcbp_cbp_result cbp;    /* the k-CBP stage */
    kcbp_tree_stats tree;   /* work done in the mesh stage */
    kcbp_cache_stats cache; /* what the pair cache did (all zero without one) */
    kcbp_containment contained; /* options.solid: collide with no contact, one
                                   solid inside the other (decided_by: mesh) */
} kcbp_collide_result;

/* Tests model a at pose_a against model b at pose_b (world = pose * local).
 * Triangles that touch count as colliding; nothing counts for being near
 * (see kcbp_tri_intersect for which coordinates the answer is exact for). */
KCBP_API kcbp_status kcbp_collide(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                         const kcbp_collide_options *options, kcbp_collide_result *result, kcbp_error *err);

/* Temporal coherence: what one test of a pair of models leaves for the next
 * test of the same pair, when poses change little between tests (the frames
 * of a moving scene, a trajectory of poses): the k-CBPs' last separating
 * axis (one scan of each k-CBP re-proves "apart"), GJK's last simplex, the
 * last contact and the tree leaves holding it (one triangle test re-proves
 * "collide"), and how long the k-CBP stage has not ended the pair's tests
 * (it is then skipped, adaptively). Owned by the caller: one per pair, used
 * with the models in the same order, never shared between threads; made
 * empty by kcbp_pair_cache_new and kcbp_pair_cache_reset.
 *
 * Guarantee: the cache never changes collide, nor the contacts reported
 * with KCBP_CONTACTS_ALL. With KCBP_CONTACTS_FIRST the one contact listed
 * is the cached one while it still intersects (tested exactly, as the trees
 * test it), else the first the search meets, which starts near the cached
 * one: a true contact of the pair, stable from one pose to the next, but not
 * always the one kcbp_collide (no cache) meets first (changed in 1.1: the
 * contact was searched from the roots each time, at a full search's cost).
 * Every shortcut is a test the full path makes too, and contents that do
 * not fit the models (another pair's cache) are skipped, never trusted.
 * decided_by can differ only where the k-CBPs are within rounding of the
 * margin apart, where a cold GJK would stop at its iteration cap, where the
 * fine k-CBPs (tested only with a cache) are apart ("cbp" where
 * kcbp_collide says "mesh"), or where the stage was skipped ("mesh" where
 * kcbp_collide says "cbp"); collide is the same then. The stats
 * (result->cbp's iterations and distance_lower, result->tree) do differ.
 * With cbp_measure the k-CBP stage runs as without a cache, so that the
 * measured distance and depth stay bit for bit the same.
 *
 * (van den Bergen, "A fast and robust GJK implementation for collision
 * detection of convex objects", JGT 4(2), 1999, section 4; Box2D's
 * b2SimplexCache; Ehmann and Lin, "Accurate and fast proximity queries
 * between polyhedra using convex surface decomposition", Eurographics 2001.) */
typedef struct kcbp_pair_cache kcbp_pair_cache;

KCBP_API kcbp_status kcbp_pair_cache_new(kcbp_pair_cache **out, kcbp_error *err);
/* Empties the cache (for another pair, or after a jump in the poses). */
KCBP_API void kcbp_pair_cache_reset(kcbp_pair_cache *cache);
KCBP_API void kcbp_pair_cache_free(kcbp_pair_cache *cache);

/* kcbp_collide with a pair cache (NULL: exactly kcbp_collide), which it reads
 * and updates. The same answer as kcbp_collide (see kcbp_pair_cache for what
 * may differ in the stats); result->cache says what the cache did. */
KCBP_API kcbp_status kcbp_collide_cached(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                const kcbp_pose *pose_b, const kcbp_collide_options *options, kcbp_pair_cache *cache,
                                kcbp_collide_result *result, kcbp_error *err);

KCBP_API void kcbp_collide_result_free(kcbp_collide_result *result);

#ifdef __cplusplus
}
#endif
#endif
