/* The 2D commands' shared pieces (cli/twod_cmd.c: inputs and reports;
 * cli/twod_poses.c: files of 2D poses; cli/twod_sweep.c: kcbp sweep). */
#ifndef KCBP_CLI_TWOD_H
#define KCBP_CLI_TWOD_H

#include <stdio.h>

#include <kcbp/kcbp2d.h>

#include "cli.h"

/* An input: a convex shape, or a model (a GeoJSON or SVG file). */
typedef struct {
    const char *arg;
    bool is_model;
    kcbp2d_shape shape;
    kcbp2d_model *model;
} kcbp_cli_input2d;

/* circle:, rect:, capsule2d:, *.geojson, *.svg */
bool kcbp_cli_is_2d_input(const char *arg);
/* Loads (a file) or parses (a shape) an input; an exit status. */
int kcbp_cli_2d_load(const char *cmd, const char *arg, kcbp_cli_input2d *in);
/* {"file", "vertices", "rings"} or {"shape", ..., "radius"}. */
cJSON *kcbp_cli_2d_describe(const kcbp_cli_input2d *in);
/* [x, y] */
cJSON *kcbp_cli_2d_vec2(kcbp_vec2 p);

/* A file of 2D poses, one line of `count` numbers each (3: "tx ty deg";
 * 6: a sweep's from and to), '#' comments and blank lines skipped; "-" is
 * standard input. Errors name the file and line (KCBP_ERR_PARSE, exit 3).
 * Read as the 3D pose files are (pose.h): in chunks as they come, in
 * constant memory; a FIFO without a writer is an error after a second's
 * wait, a directory is refused, a NUL byte or a line longer than
 * KCBP_POSE_MAX_LINE bytes is an error at its line (/dev/zero was read
 * into one line until memory ran out, and a FIFO without a writer hung). */
typedef struct {
    const char *path;
    int fd;
    bool is_stdin;     /* "-": not closed */
    bool fifo_pending; /* a FIFO whose writer has not been seen yet */
    bool eof;
    char *buf;         /* chunk read: buf[pos .. len) not used yet */
    size_t pos, len;
    char *line;        /* the current line, NUL-terminated */
    long lineno, lines_read;
    int count;
} kcbp_cli_poses2d;

kcbp_status kcbp_cli_poses2d_open(kcbp_cli_poses2d *r, const char *path, int count, kcbp_error *err);
/* The next line's numbers in v[0 .. count); *done at the end (a file
 * without any line is an error, "no poses in file"). */
kcbp_status kcbp_cli_poses2d_next(kcbp_cli_poses2d *r, double *v, bool *done, kcbp_error *err);
/* "file:line: " prefixed to err (the line last read). */
void kcbp_cli_poses2d_blame(const kcbp_cli_poses2d *r, kcbp_error *err);
void kcbp_cli_poses2d_close(kcbp_cli_poses2d *r);

int kcbp_cli_sweep2d(int argc, char **argv);

#endif
