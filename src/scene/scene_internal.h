/* What the scene module's upper parts share (internal: not installed):
 * scene.c (reading files, confining meshes to a root, building the models)
 * and scene_eval.c (frames), over scene_desc.h (the scene as data) and
 * scene_json.h (its file format). */
#ifndef KCBP_SCENE_INTERNAL_H
#define KCBP_SCENE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <kcbp/scene.h>

#include "boxtree.h"
#include "pairs.h"
#include "reach.h"
#include "query/collide_internal.h"
#include "scene_desc.h"

/* Evaluation state of one built scene (kcbp_scene_eval_new). */
struct kcbp_scene_eval {
    const kcbp_scene *scene;
    kcbp_collide_options options;
    bool coherent;          /* refit the tree; pair caches in a scene of more than one frame */
    double margin;          /* see kcbp_scene_eval_options */
    bool cbp_adaptive;
    uint32_t shard_index, shard_count;
    /* The pair stage runs over the objects' ranks, a Z-order (Morton code)
     * of their world boxes' centres at frame 0, fixed for the evaluation:
     * spatial neighbours are near in every array and in the order the
     * objects query the tree (at 10^6 objects, queries in the objects' own
     * order took 4 times as long, the tree's nodes and the boxes read from
     * memory at random). by_rank[k] is the object of rank k; models, poses
     * and boxes are in rank order. */
    uint32_t *by_rank;
    const kcbp_model_impl **models;
    kcbp_pose *poses;
    kcbp_aabb *boxes;
    kcbp_boxtree tree;      /* the broad phase, over boxes */
    bool tree_built;
    kcbp_pairs pairs;       /* the pair stage: threads, chunk outputs, pair caches */
    /* Moving scenes with pair caches (reach.h): each model's sphere, the
     * poses of the last pair run (prev_poses, rank order; prev_run: that
     * run, 0: none) and each object's reach since them; poses_run: the
     * pair run that used poses (0: not yet). */
    kcbp_reach_sphere *spheres;
    const kcbp_reach_sphere **sphere_of; /* per rank, its model's */
    kcbp_pose *prev_poses;
    _Atomic double *reach; /* per rank; NaN until a pair needs it (kcbp_pairs_input) */
    /* Each frame's reaches left to the pairs that need them when the last
     * pair run checked the slack of fewer pairs than half the objects (so
     * most objects' reach went unused); else all computed with the boxes,
     * in one pass, cheaper than one by one where most are used. */
    bool reach_lazy;
    uint64_t poses_run, prev_run;
    uint64_t pair_limit;    /* kcbp_scene_eval_set_pair_limit's (0: none) */
    uint64_t contact_limit; /* kcbp_scene_eval_set_contact_limit's (0: none) */
    /* kcbp_scene_eval_ccd's: each object's swept box and sub-interval
     * count over the interval, their tree (set up by its first call). */
    kcbp_aabb *swept;
    uint32_t *steps;
    kcbp_boxtree ccd_tree;
    uint32_t *partners;
    size_t cap_partners;
    /* Tests only: one step per interval whatever the spin (the shorter arc,
     * as before 1.1: wrong from 180 degrees on), to see a test catch it. */
    bool ccd_one_step;
};


/* An evaluation in the caller's storage: coherent, no margin, the given
 * pair options (scene_eval.c); and freeing what it holds. */
kcbp_status kcbp_scene_eval_init(kcbp_scene_eval *ev, const kcbp_scene *scene, const kcbp_collide_options *options,
                                 kcbp_error *err);
void kcbp_scene_eval_clear(kcbp_scene_eval *ev);

/* kcbp_scene_load into the caller's storage (scene.c). */
kcbp_status kcbp_scene_load_into(kcbp_scene *s, const char *path, const kcbp_model_options *opts, kcbp_error *err);
#endif
