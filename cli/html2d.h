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

#endif
