/* JSON reports, built with cJSON. Each function returns a new cJSON tree that
 * the caller owns (cJSON_Delete), or NULL when memory ran out. */
#ifndef KCBP_REPORT_H
#define KCBP_REPORT_H

#include <cjson/cJSON.h>

#include <kcbp/collide.h>
#include <kcbp/contact_geom.h>
#include <kcbp/manifold.h>
#include <kcbp/signed_distance.h>
#include <kcbp/scene.h>

#include "json_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wall-clock times measured by the caller, in milliseconds. */
typedef struct {
    double load_ms, build_ms, query_ms;
} kcbp_timings;

/* A mesh's summary as in a collide line's "a" and "b" (for reports built
 * with cJSON, such as kcbp distance's). */
cJSON *kcbp_report_mesh(const kcbp_model *model);

/* --margin's part of a collide line (kcbp_distance bounded by d). */
typedef struct {
    double d;
    bool within;     /* the meshes touch or are within d */
    double distance; /* their distance when within (0 when they touch) */
    uint32_t tri[2]; /* the closest triangles, when within and not touching */
} kcbp_report_margin;

/* What a collide line holds beyond the answer. */
typedef struct {
    bool contacts; /* "contacts" (false with --contacts none: nothing was asked) */
    bool models;   /* "a", "b" and stats.load_ms, stats.build_ms (with --poses: the first line only) */
    long pose;     /* "pose": the pose's index in a poses file; -1: none */
    size_t max_contacts; /* at most this many contacts are listed; beyond it the line says
                            "truncated": true and "contacts_found": n */
    bool contacts_stop;  /* the search stopped at max_contacts + 1 (kcbp_collide_capped): beyond
                            max_contacts, also "stopped": "max_contacts" (contacts_found: at least) */
    const kcbp_report_margin *margin; /* NULL: no --margin */
    bool solid;    /* "contained": "none", "a_in_b" or "b_in_a" (--solid) */
    const kcbp_contact_geom *geometry;     /* --geometry: "intersections", one per contact, or NULL */
    const kcbp_contact_summary *summary;   /* with geometry and a contact: "contact" */
    const kcbp_manifold_set *manifolds;    /* --contacts manifold: "manifolds" (instead of "contacts"), or NULL */
    const kcbp_signed_distance_result *depth; /* two colliding shapes: "depth", "normal", "point_a",
                                                 "point_b", or NULL */
} kcbp_report_collide_options;

/* The report of one kcbp_collide answer, as one line of JSON (malloc'ed, no
 * newline; NULL when memory ran out):
 * {"collide", "decided_by", "contained" (o->solid), "contacts": [[a, b], ...] (o->contacts; at
 *  most o->max_contacts, then "truncated": true, "contacts_found": n), "faces": [[fa, fb], ...]
 *  (with contacts, when a or b has a face map, kcbp_mesh.faces: the file's face of each
 *  contact's triangles, parallel to "contacts"), "face_tris": [[ka, kb], ...] (with "faces":
 *  each triangle's 0-based place among the triangles its face was cut into, in the reader's
 *  order: the fan (v0 v1 v2), (v0 v2 v3), ... for a convex polygon; 0 for a triangle),
 *  "intersections": [[point, ...], ...] (o->geometry: per contact, 1 to 6 world points),
 *  "contact": {"point", "normal" (absent when none)} (o->geometry, when there are contacts),
 *  "manifolds": [{"normal", "depth", "points": [{"point_a", "point_b", "separation",
 *  "feature_a", "feature_b"}, ...]}, ...] (o->manifolds, instead of "contacts"; a feature is a
 *  triangle, null for a shape), "depth", "normal", "point_a", "point_b" and, when EPA could only
 *  bound it, "depth_exact": false (o->depth: two colliding shapes, kcbp_signed_distance),
 *  "cbp" (when the k-CBP stage ran), "a": mesh, "b": mesh (o->models),
 *  "stats": {"box_pairs", "triangle_pairs", "load_ms", "build_ms" (o->models),
 *            "query_ms"}, "pose" (o->pose >= 0),
 *  "margin" (o->margin): {"d", "distance": when within d else null,
 *            "triangles": [ta, tb] when within d without touching}}
 * With a margin, a pair within d that does not touch has "collide": true
 * and "decided_by": "margin".
 * A mesh is {"vertices", "triangles", "degenerate_triangles", and with a
 * k-CBP "cbp_planes", "cbp_vertices"}. "cbp" is {"separated", "distance",
 * and "point_a", "point_b" when apart, or "overlap_depth" (the k-CBPs', not the meshes'),
 * "direction", "depth_exact" when not; "gjk_iterations", "epa_iterations"} when it
 * measured (cbp_measure), else {"separated", "measured": false,
 * "distance_lower" when separated, "gjk_iterations"}. Numbers are written
 * once each, doubles in the shortest form that reads back exactly
 * (kcbp_format_double). */
char *kcbp_report_collide_line(const kcbp_collide_result *result, const kcbp_model *a, const kcbp_model *b,
                               const kcbp_timings *times, const kcbp_report_collide_options *o);

/* The report of one frame of a built scene, written as the frame is
 * evaluated (json_stream.h): kcbp_report_frame_begin writes
 * {"scene": name, "frame": f, "frames": F, "objects": n, "models": m,
 *  "pairs": n(n-1)/2, ["index": i (kcbp batch),] ["shard": [I, N],]
 *  "colliding": [
 * then kcbp_report_frame_pair each colliding pair,
 *  {"a": name, "b": name[, "contained": "a_in_b" or "b_in_a" (--solid, one
 *   inside the other)][, "contacts": [[ta, tb], ...]]}, ...
 * and kcbp_report_frame_end the rest, once the frame's counts are known:
 *  ],
 *  "passed": {"broadphase": world boxes overlap,
 *             "cbp": pairs the filters let through to the mesh test (null
 *                    when the k-CBP filter is off),
 *             "mesh": meshes touch = the colliding pairs},
 *  "hit_rate": {"broadphase": mesh / broadphase, "cbp": mesh / cbp or null},
 *  "adaptive": {"cbp_skipped": pairs whose k-CBP stage the adaptive rule skipped},
 *  "cache": {"axis": pairs proven apart by last frame's separating axis,
 *            "contact": pairs confirmed by last frame's contact,
 *            "near": pairs whose contact was found near last frame's,
 *            "cbp_skipped": pairs whose k-CBP stage was skipped (their k-CBPs
 *            kept overlapping), "kept": pair caches kept for the next frame,
 *            "bytes": their packed size},
 *  "time_ms": {"load", "build" (the scene's, repeated on every frame),
 *              "bounds", "broadphase" (the tree), "pairs" (the pair stage,
 *              wall clock: its broad-phase queries and pair tests),
 *              "cbp", "mesh" (the pair tests, summed over pairs and threads),
 *              "detect" (= bounds + broadphase + pairs, wall clock)},
 *  ["truncated": true, "colliding_found": n (more colliding pairs than
 *   max_pairs: the first max_pairs are listed), "contacts_found": n (more
 *   contacts than max_contacts: the first are listed), "stopped":
 *   "max_pairs" (o->stop_at_max_pairs: the frame's search stopped once it
 *   found max_pairs + 1 pairs, so colliding_found, contacts_found and the
 *   counts of "passed" are lower bounds: "at least"), or else
 *   "max_contacts" (o->stop_at_max_contacts: the frame stopped looking for
 *   contacts once it had max_contacts + 1, so contacts_found is a lower
 *   bound; every pair is still listed)],
 *  ["ccd": {...} (kcbp_report_frame_end's ccd, see below)]}
 * A hit rate is the fraction of the pairs passing a filter that collide; 0/0
 * (no pair passed) is 1: the filter let no false positive through.
 * With a shard the counts (passed, cache) are the shard's. */
typedef struct {
    long index;                        /* >= 0: "index" */
    uint32_t shard_index, shard_count; /* shard_count > 1: "shard" */
    bool with_contacts;
    uint64_t max_pairs;                /* listed at most */
    bool stop_at_max_pairs;            /* the frame stops its search past max_pairs (see "stopped") */
    uint64_t max_contacts;             /* listed at most */
    bool stop_at_max_contacts;         /* the frame stops looking for contacts past max_contacts (see "stopped") */
} kcbp_report_frame_options;

typedef struct {
    kcbp_js *w;
    const kcbp_scene *scene;
    kcbp_report_frame_options o;
    uint64_t pairs_found, contacts_found;
} kcbp_report_frame;

void kcbp_report_frame_begin(kcbp_report_frame *r, kcbp_js *w, const kcbp_scene *scene, uint32_t frame,
                             const kcbp_report_frame_options *o);
void kcbp_report_frame_pair(kcbp_report_frame *r, const kcbp_scene_pair *p);
/* ccd: the interval ending at this frame (--ccd), or NULL. "ccd":
 * {"swept_pairs": pairs swept over the interval, "undecided": sweeps that
 * hit their step cap, "time_ms", "touching": [{"a", "b", "toi": fraction of
 * the interval, "time": the scene time of the contact, "contacts": [[tri_a,
 * tri_b]], "point": [x, y, z]} (or "undecided": true, "free_until": toi)]}. */
void kcbp_report_frame_end(kcbp_report_frame *r, const kcbp_scene_frame *f, const kcbp_scene_ccd *ccd);

#ifdef __cplusplus
}
#endif
#endif
