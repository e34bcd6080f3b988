/* The staged collision test of one pair of posed meshes.
 *
 * A kcbp_model is everything built once from a mesh, in the mesh's own frame:
 * its AABB tree and its k-CBP. kcbp_collide answers for any two poses without
 * rebuilding anything; models are read-only during queries, so one model may
 * be shared by any number of threads.
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
 * answer of stage 3. */
#ifndef KCBP_COLLIDE_H
#define KCBP_COLLIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aabb_tree.h"
#include "cbp.h"
#include "error.h"
#include "gjk.h"
#include "mesh.h"
#include "pose.h"
#include "support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int k;              /* planes of the k-CBP (>= KCBP_CBP_K_MIN); 0 builds none */
    kcbp_cbp_dirs dirs; /* how its directions are chosen */
    int k_fine;         /* planes of a second, finer k-CBP, tested only by
                           kcbp_collide_cached for a pair seen before when the
                           first ones overlap (0: none; ignored unless > k).
                           It pays over coherent motion (a moving scene sets
                           KCBP_CBP_K_FINE_DEFAULT), not for single queries. */
    bool solid;         /* the mesh is a solid (include/kcbp/solid.h): building
                           fails with kcbp_mesh_check_solid's error when it is
                           not closed, and keeps one vertex per piece of its
                           surface for kcbp_collide_options.solid */
} kcbp_model_options;

#define KCBP_CBP_K_FINE_DEFAULT 64

/* k = 16, greedy directions, no fine k-CBP, not a solid. */
KCBP_API kcbp_model_options kcbp_model_options_default(void);

typedef struct {
    kcbp_mesh mesh;
    kcbp_aabb_tree tree;
    kcbp_cbp cbp;       /* nplanes == 0 when none was built */
    kcbp_convex shape;  /* the k-CBP as GJK sees it: its vertices and their adjacency */
    double scale;       /* kcbp_mesh_scale of the mesh */
    double cbp_scale;   /* largest absolute coordinate of the k-CBPs' vertices (0 without one) */
    kcbp_cbp fine;      /* the fine k-CBP (nplanes == 0 when none was built) */
    kcbp_convex fine_shape;
    bool solid;         /* built with kcbp_model_options.solid: a closed solid */
    uint32_t *pieces;   /* solid: one vertex of each connected piece of the surface */
    uint32_t npieces;
} kcbp_model;

static inline bool kcbp_model_has_cbp(const kcbp_model *m) { return m->cbp.nplanes > 0; }

/* Builds a model from a mesh, taking ownership of it (on success and on
 * failure alike: the mesh is freed if building fails). opts NULL: defaults. */
KCBP_API kcbp_status kcbp_model_build(kcbp_model *model, kcbp_mesh *mesh, const kcbp_model_options *opts, kcbp_error *err);
/* Loads an OBJ file and builds its model (src/model_load.c). */
KCBP_API kcbp_status kcbp_model_load(kcbp_model *model, const char *obj_path, const kcbp_model_options *opts,
                            kcbp_error *err);
KCBP_API void kcbp_model_free(kcbp_model *model);

/* The world-frame axis-aligned box of a posed model: the first, cheapest
 * filter of every pair test and of a scene's broad phase. With a k-CBP it is
 * the box of the k-CBP's transformed vertices (as in the thesis: tight, and
 * a few dozen points); without, the box of the posed local box. */
KCBP_API kcbp_aabb kcbp_model_world_bounds(const kcbp_model *model, const kcbp_pose *pose);

typedef enum {
    KCBP_CONTACTS_NONE,  /* only the yes/no answer: stop at the first contact */
    KCBP_CONTACTS_FIRST, /* the answer and one contact pair */
    KCBP_CONTACTS_ALL,   /* every pair of intersecting triangles */
} kcbp_contacts_mode;

/* The stage that settled an answer. */
typedef enum {
    KCBP_STAGE_AABB, /* the two world boxes are apart */
    KCBP_STAGE_CBP,  /* GJK: the two k-CBPs are apart */
    KCBP_STAGE_MESH, /* the triangle test (through the AABB trees) */
} kcbp_stage;

KCBP_API const char *kcbp_stage_name(kcbp_stage stage);

typedef struct {
    uint32_t a, b; /* triangle indices in A and in B */
} kcbp_contact;

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
 * solid), boxes tested (cbp_measure false: the
 * answer, as fast as it can be had; `kcbp collide` asks to measure for its
 * report). */
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
    bool gjk_skipped; /* the k-CBP stage was skipped: the k-CBPs overlapped in the last
                         KCBP_CACHE_SKIP_AFTER tests of the pair (adaptive, see kcbp_pair_cache) */
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
 *   - overlaps: how many tests in a row the k-CBP stage did not end (their
 *     k-CBPs overlapped, or the stage was skipped). From
 *     KCBP_CACHE_SKIP_AFTER on, the stage is skipped (adaptive: it can then
 *     only pass the pair on) but for every KCBP_CACHE_SKIP_AFTER-th test,
 *     which still runs it, until the world boxes or the k-CBPs find the
 *     pair apart. Measured on random near-contact poses (bench/gen_poses,
 *     200 per pair, callgrind): the stage then costs 1.6-1.9 % more
 *     instructions than --no-cbp, where it cost 7-12 % more when any apart
 *     answer reset the count.
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
};

typedef struct {
    uint32_t flags;                 /* KCBP_PAIR_CACHE_*: which of axis, contact hold something */
    kcbp_vec3 axis;                 /* A's frame, unit, from A toward B */
    kcbp_gjk_simplex_cache simplex; /* count 0: none */
    kcbp_contact contact;           /* triangle indices in A and B */
    uint32_t leaf[2];               /* the tree leaves (A's, B's) that hold contact */
    uint32_t overlaps;
    kcbp_vec3 fine_axis;            /* the same two for the fine k-CBPs */
    kcbp_gjk_simplex_cache fine_simplex;
} kcbp_pair_cache;

/* kcbp_collide with a pair cache (NULL: exactly kcbp_collide), which it reads
 * and updates. The same answer as kcbp_collide (see kcbp_pair_cache for what
 * may differ in the stats); result->cache says what the cache did. */
KCBP_API kcbp_status kcbp_collide_cached(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                const kcbp_pose *pose_b, const kcbp_collide_options *options, kcbp_pair_cache *cache,
                                kcbp_collide_result *result, kcbp_error *err);

/* The padding kcbp_collide gives its box tests (kcbp_tri_tolerance of the
 * pair's scale) for the given models and relative pose (B in A's frame);
 * exposed so that tests can reproduce the traversal exactly. The triangle
 * test itself has no tolerance. */
KCBP_API double kcbp_collide_tolerance(const kcbp_model *a, const kcbp_model *b, const kcbp_pose *b_in_a);

KCBP_API void kcbp_collide_result_free(kcbp_collide_result *result);

#ifdef __cplusplus
}
#endif
#endif
