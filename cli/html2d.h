/* --html FILE for 2D answers (kcbp collide and kcbp distance [--signed] on
 * 2D inputs, cli/twod_cmd.c; kcbp sweep, cli/twod_sweep.c; kcbp scene,
 * cli/scene2d_cmd.c): one self-contained page that draws the answer as
 * inline SVG, with no script. html2d.c, html2d_sweep.c and html2d_scene.c
 * have the details; html2d_draw.c the pieces they share. */
#ifndef KCBP_CLI_HTML2D_H
#define KCBP_CLI_HTML2D_H

#include <kcbp/kcbp2d.h>
#include <kcbp/scene2d.h>

#include "cli.h"

/* Pages hold at most this many vertices (a browser does not draw more usefully). */
#define KCBP_HTML2D_MAX_VERTICES 4000000u

/* One input as it was queried: a file's polygons (model) or a convex shape,
 * at its pose (world = pose(local)). */
typedef struct {
    const char *arg;           /* as given on the command line (the page names it) */
    const kcbp2d_model *model; /* NULL for a shape */
    const kcbp2d_shape *shape; /* used when model is NULL */
    kcbp2d_pose pose;
} kcbp_html2d_input;

/* Writes the page of the command cmd ("collide" or "distance", with
 * collide's --margin, 0 for none) whose JSON report is answer (what it draws besides the inputs is read from the
 * report: "contacts" as edge pairs in A, B order with null for a shape's
 * side, "point_a"/"point_b", "normal", "translation", "collide"/"status").
 * Returns KCBP_EXIT_OK, or, after printing why ("kcbp: --html: FILE:
 * cannot ..."), KCBP_EXIT_NOMEM for a page that cannot be written or is
 * too big; nothing half-written is left behind. */
int kcbp_html2d_write(const char *path, const char *cmd, const kcbp_html2d_input *a, const kcbp_html2d_input *b,
                      double margin, const cJSON *answer);

/* Writes the page of kcbp sweep on 2D inputs: A at a->pose, B (b->pose
 * unused) moving by mb, answer the sweep's JSON report ("toi", "contacts",
 * "point", "normal", "confirmed", "free_until"). Returns as
 * kcbp_html2d_write. */
int kcbp_html2d_sweep_write(const char *path, const kcbp_html2d_input *a, const kcbp_html2d_input *b,
                            const kcbp2d_motion *mb, const cJSON *answer);

/* kcbp scene --html on a 2D scene (html2d_scene.c): one frame drawn. */
#define KCBP_HTML2D_SCENE_MAX_OBJECTS 250000u  /* about 220 bytes each: pages up to ~60 MB */
#define KCBP_HTML2D_SCENE_MAX_VERTICES 2000000u
#define KCBP_HTML2D_SCENE_MAX_EDGES 1000000u /* contact edges drawn */
#define KCBP_HTML2D_SCENE_MAX_LISTED 10000u  /* colliding pairs named in the legend */

typedef struct {
    uint32_t a, b;
    kcbp2d_containment contained;
} kcbp_html2d_scene_hit;

/* A frame's colliding pairs and contact edges (object << 32 | edge), as
 * the evaluation hands them on. Zero it to begin. */
typedef struct {
    kcbp_html2d_scene_hit *pairs;
    size_t npairs, cap_pairs;
    uint64_t *marks;
    size_t nmarks, cap_marks;
    bool edges_dropped; /* more than KCBP_HTML2D_SCENE_MAX_EDGES */
} kcbp_html2d_scene_record;

/* A kcbp2d_scene_pair_fn: records the pair into ctx (a record). */
kcbp_status kcbp_html2d_scene_record_pair(void *ctx, const kcbp2d_scene_pair *p, kcbp_error *err);
void kcbp_html2d_scene_record_free(kcbp_html2d_scene_record *r);
/* KCBP_ERR_LIMIT ("--html: ...") for a scene beyond the page's bounds
 * (above). */
kcbp_status kcbp_html2d_scene_check(const kcbp2d_scene *scene, kcbp_error *err);
/* Writes the page of frame (checked by the caller) with its recorded pairs;
 * margin: the evaluation's. Errors begin "--html: "; nothing half-written
 * is left behind. */
kcbp_status kcbp_html2d_scene_write(const char *path, const kcbp2d_scene *scene, uint32_t frame, double margin,
                                    const kcbp_html2d_scene_record *rec, kcbp_error *err);

#endif
