/* The kcbp program: shared pieces of its subcommands.
 *
 * A subcommand prints its answer once it has it: a single answer only when
 * it is complete, so that an error leaves nothing on stdout; the lines of
 * `collide --poses` and the frames of a moving scene as each is done (an
 * error then stops after the lines already printed). A failed write is exit
 * status 4 with a message, in every subcommand. */
#ifndef KCBP_CLI_H
#define KCBP_CLI_H

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdbool.h>

#include <kcbp/kcbp.h>

#include "bv.h"
#include "hitrate.h"
#include "interrupt.h"
#include "json_line.h"
#include "progress.h"
#include "report.h"
#include "scene_layout.h"

enum {
    KCBP_EXIT_OK = 0,     /* success, whatever the answer */
    KCBP_EXIT_USAGE = 2,  /* bad command line */
    KCBP_EXIT_INPUT = 3,  /* bad or unreadable input (mesh, pose, scene file) */
    KCBP_EXIT_NOMEM = 4,  /* out of memory or another resource, or output that cannot be written */
};

/* --max-contacts: contacts listed per report (per pose, per frame) before
 * the report says "truncated": true. */
#define KCBP_CLI_MAX_CONTACTS_DEFAULT 100000L
#define KCBP_CLI_MAX_CONTACTS_MAX 100000000L

/* Subcommands: each gets argv with argv[0] set to the subcommand's name. */
int kcbp_cli_collide(int argc, char **argv);
int kcbp_cli_cbp(int argc, char **argv);
int kcbp_cli_scene(int argc, char **argv);
int kcbp_cli_batch(int argc, char **argv);
int kcbp_cli_bench(int argc, char **argv);
int kcbp_cli_distance(int argc, char **argv);
int kcbp_cli_sweep(int argc, char **argv);
int kcbp_cli_self(int argc, char **argv);
/* 2D inputs (cli/twod_cmd.c): whether an argument is one, and the 2D
 * collide and distance the 3D commands hand them to. */
bool kcbp_cli_2d_args(int argc, char **argv);
int kcbp_cli_collide2d(int argc, char **argv);
int kcbp_cli_distance2d(int argc, char **argv);

/* One mesh's figures for kcbp bench --plot: x[i] (nx values of n) and, for
 * each of ncols volumes, r[i * ncols + b] (hit rate), dt[(i * ncols + b) * 3
 * + j] (detection time, ms: j = 0 the median of the runs, 1 the least, 2
 * the greatest) and ct[b * 3 + j] (construction time, ms, likewise). */
typedef struct {
    const char *title;
    int nx, ncols;
    double *x, *r, *dt, *ct;
} kcbp_cli_plot_series;
/* The gnuplot terminal for a plot file, from its extension (any case):
 * "svg", "pngcairo" (.png) or "pdfcairo" (.pdf); NULL for any other. */
const char *kcbp_cli_plot_terminal(const char *path);
/* Renders, per series, hit rate and detection time against n (one line per
 * volume, names[b]) and each volume's construction time, medians with
 * min-max bars, with one legend for all, into path (its terminal from
 * kcbp_cli_plot_terminal) with gnuplot, run on data files and a script
 * written to a fresh temporary folder (removed afterwards). Fails when
 * gnuplot cannot be run or reports an error. */
kcbp_status kcbp_cli_bench_plot(const char *path, const kcbp_cli_plot_series *series, int nseries,
                                const char *const *names, const char *layout, kcbp_error *err);

/* What kcbp scene and kcbp batch do with each scene: set in one place by
 * kcbp_cli_scene_option. */
typedef struct {
    kcbp_model_options model;     /* -k, --dirs */
    kcbp_collide_options collide; /* --contacts, --filter (use_cbp), --solid (with model.solid) */
    bool pretty;                  /* indent each document (kcbp scene only) */
    long max_contacts;            /* --max-contacts: listed per frame */
    bool max_contacts_set;        /* given: a frame's search stops at max_contacts + 1 contacts */
    const char *mesh_root;        /* --mesh-root, or NULL: the scene file's folder */
    double margin;                /* --margin: kcbp_scene_eval.margin (0: none) */
    bool ccd;                     /* --ccd: sweep each interval between frames (kcbp_scene_eval_ccd) */
    kcbp_model_cache *cache;      /* models shared across scenes (kcbp batch), or NULL */
    const char *export_dir;       /* --export (kcbp scene only): write this frame's objects, or NULL */
    long export_frame;            /* --frame: the frame exported (0-based) */
    const char *export_glb;       /* --export FILE.glb (kcbp scene only): frame F as binary glTF, or NULL */
    const char *html;             /* --html FILE (kcbp scene only): every frame on a page, or NULL */
    long max_pairs;               /* --max-pairs: colliding pairs listed per frame (-1: all) */
    long jobs;                    /* --jobs (kcbp scene only): threads of the scene's evaluation */
    uint32_t shard_index, shard_count; /* --shard I/N (kcbp scene only): this shard's chunks of pairs */
    bool no_adaptive;             /* --no-adaptive: the k-CBP stage on every pair */
} kcbp_cli_scene_options;

/* How much a batch's model cache may hold of models no running scene uses. */
#define KCBP_CLI_BATCH_CACHE_BYTES (512ull << 20)

kcbp_cli_scene_options kcbp_cli_scene_options_default(void);
/* Handles the options common to scene and batch (getopt value opt with its
 * argument): returns KCBP_EXIT_OK, KCBP_EXIT_USAGE after printing the
 * problem, or -1 when opt is not one of them. */
int kcbp_cli_scene_option(const char *cmd, int opt, const char *arg, kcbp_cli_scene_options *o);
/* Their getopt codes, and their getopt_long entries for a command's table. */
enum { KCBP_OPT_FILTER = 1000, KCBP_OPT_CONTACTS, KCBP_OPT_DIRS, KCBP_OPT_MAX_CONTACTS, KCBP_OPT_MESH_ROOT,
       KCBP_OPT_MARGIN, KCBP_OPT_SOLID, KCBP_OPT_CCD, KCBP_OPT_MAX_PAIRS, KCBP_OPT_NO_ADAPTIVE, KCBP_OPT_K = 'k' };
#define KCBP_CLI_SCENE_SHORTOPTS "k:"
#define KCBP_CLI_SCENE_LONGOPTS                                                                                      \
    {"filter", required_argument, NULL, KCBP_OPT_FILTER}, {"contacts", required_argument, NULL, KCBP_OPT_CONTACTS},  \
        {"dirs", required_argument, NULL, KCBP_OPT_DIRS},                                                          \
        {"max-contacts", required_argument, NULL, KCBP_OPT_MAX_CONTACTS},                                          \
        {"mesh-root", required_argument, NULL, KCBP_OPT_MESH_ROOT}, {"margin", required_argument, NULL, KCBP_OPT_MARGIN}, \
        {"solid", no_argument, NULL, KCBP_OPT_SOLID}, {"ccd", no_argument, NULL, KCBP_OPT_CCD},              \
        {"max-pairs", required_argument, NULL, KCBP_OPT_MAX_PAIRS},                                                \
        {"no-adaptive", no_argument, NULL, KCBP_OPT_NO_ADAPTIVE}
/* Where the frames' reports go: write receives their bytes as they are
 * made (each frame one line, ended by a newline: a small frame in one
 * call, a large one in pieces, its colliding pairs as they are confirmed),
 * line_done (may be NULL) follows each whole line. Either returning false
 * stops the evaluation (KCBP_ERR_IO). */
typedef struct {
    bool (*write)(void *ctx, const char *p, size_t n, const char *tail); /* tail: json_stream.h */
    bool (*line_done)(void *ctx);
    void *ctx;
} kcbp_cli_frame_sink;
/* Reads, builds and evaluates the scene file at path, handing each frame's
 * report to sink; index >= 0 adds "index": index to each (kcbp batch).
 * KCBP_ERR_IO when the sink failed. A frame that fails after part of its
 * line was written ends that line with "error": message (valid JSON). */
kcbp_status kcbp_cli_scene_eval(const char *path, const kcbp_cli_scene_options *o, long index,
                                const kcbp_cli_frame_sink *sink, kcbp_error *err);
/* kcbp_cli_scene_eval for a 2D scene file (kcbp2d_scene_sniff; scene2d_cmd.c):
 * the same report keys, contacts as edge index pairs. */
kcbp_status kcbp_cli_scene2d_eval(const char *path, const kcbp_cli_scene_options *o, long index,
                                  const kcbp_cli_frame_sink *sink, kcbp_error *err);
/* kcbp scene --generate parcels|nesting: a 2D scene to stdout. */
int kcbp_cli_scene2d_generate(const char *kind, long n, long seed, const char *output);
/* Parses --shard's "I/N", 0 <= I < N <= 1000000. */
bool kcbp_cli_parse_shard(const char *s, long *i, long *n);
/* kcbp_scene_read with the options' mesh root (see --mesh-root). */
kcbp_status kcbp_cli_scene_read(kcbp_scene **scene, const char *path, const kcbp_cli_scene_options *o,
                                kcbp_error *err);

/* Shapes on the command line (shape_cli.c): an argument spelled
 * "sphere:R", "capsule:R:L", "box:X:Y:Z" or "cylinder:R:L" is a shape,
 * never a file (./sphere:1 names the file). */
bool kcbp_cli_is_shape(const char *arg);
/* KCBP_EXIT_OK when arg is not a shape or a good one, else a usage error
 * naming the bad number. */
int kcbp_cli_check_shape_arg(const char *cmd, const char *arg);
/* Builds the shape arg spells (kcbp_shape_parse, kcbp_model_build_shape). */
kcbp_status kcbp_cli_build_shape(const char *arg, kcbp_model *model, kcbp_error *err);
/* A shape's description for a report: "shape": "capsule", "radius": r,
 * "length": L (a sphere's radius; a box's "size": [x, y, z]; a hull's
 * "vertices"), written into the object being built (kcbp_jl, json_line.h:
 * an opaque pointer here), or as a new cJSON object. */
void kcbp_cli_jl_shape(kcbp_jl *w, const kcbp_model *model);
cJSON *kcbp_cli_json_shape(const kcbp_model *model);
/* A triangle index for a report: the number, or null for a shape's
 * KCBP_SHAPE_FEATURE; a pair of them as a JSON array. NULL when out of
 * memory. */
cJSON *kcbp_cli_json_index(uint32_t i);
cJSON *kcbp_cli_json_pair(uint32_t a, uint32_t b);
/* o[key] = [[a, b]] (kcbp_cli_json_pair: null for a shape's side); false when out of
 * memory (nothing added). */
bool kcbp_cli_add_pair_list(cJSON *o, const char *key, uint32_t a, uint32_t b);
/* In a report line made by kcbp_report_collide_line, KCBP_SHAPE_FEATURE's
 * digits in the triangle-index arrays ("contacts", "faces", "face_tris",
 * "triangles") become null, in place (the line only shrinks). */
void kcbp_cli_null_shape_indices(char *line);

/* Loads a mesh file and builds its model, or builds the shape the argument
 * spells (kcbp_cli_is_shape), adding the times of both steps
 * to t->load_ms and t->build_ms; errors are prefixed with the path
 * (pair_query.c). */
kcbp_status kcbp_cli_load_model(const char *path, const kcbp_model_options *opts, kcbp_model *model,
                                kcbp_timings *t, kcbp_error *err);
/* The same, building a closed mesh as a solid when solid_if_closed (an
 * open one as a surface). */
kcbp_status kcbp_cli_load_model_as(const char *path, const kcbp_model_options *opts, bool solid_if_closed,
                                   kcbp_model *model, kcbp_timings *t, kcbp_error *err);

/* A pair query's command line (kcbp collide, kcbp distance, kcbp sweep). */
typedef struct {
    const char *path_a, *path_b;         /* the same path: one model */
    const char *pose_a, *pose_b;         /* --pose-a, --pose-b (sweep: --from), or NULL */
    const char *pose_b_to;               /* sweep: --to, or NULL */
    const char *poses_file;              /* --poses (sweep: --sweeps), or NULL */
    int poses_per_line;                  /* 2 for sweeps (from and to), else 1 */
    const kcbp_model_options *model;
    bool solid_if_closed;                /* build a closed mesh as a solid (kcbp distance --signed) */
} kcbp_cli_pair_args;

/* The loaded pair, as an answer sees it. */
typedef struct {
    const kcbp_model *a, *b;
    kcbp_pose pose_a;
    kcbp_timings times; /* load and build; the answer sets query_ms */
} kcbp_cli_pair;

/* Answers B at pose_b (for sweeps, pose_b[0] and pose_b[1]: from and to):
 * prints its line and returns an exit code, or -1 with *err set when the
 * answer could not be computed. index: the pose's index in --poses, -1 for
 * the single pose. */
typedef int (*kcbp_cli_pose_fn)(void *ctx, kcbp_cli_pair *p, const kcbp_pose *pose_b, long index, kcbp_error *err);

/* Parses the poses, loads both models, then answers --pose-b (or the
 * identity), or each pose of --poses as it is read, in constant memory,
 * flushing whenever the next pose is not there yet; a bad pose ends the run
 * after the answers before it. Returns the command's exit status. */
int kcbp_cli_pair_query(const char *cmd, const kcbp_cli_pair_args *args, kcbp_cli_pose_fn answer, void *ctx);
/* -k N and --dirs MODE into model: KCBP_EXIT_OK, or KCBP_EXIT_USAGE after
 * printing the problem (pair_query.c; kcbp scene's options too). */
int kcbp_cli_parse_k(const char *cmd, const char *arg, kcbp_model_options *model);
int kcbp_cli_parse_dirs(const char *cmd, const char *arg, kcbp_model_options *model);
/* getopt's ':' (a missing value) or '?' (an unknown option) as a usage
 * error naming the option. */
int kcbp_cli_bad_option(const char *cmd, int c, char **argv);
/* After a pair command's options (argv[optind ..]): exactly two mesh
 * paths into pair; no k-CBP (k = 0) unless use_cbp, and no fine one (their
 * pose files are not trajectories: it costs more than it saves). */
int kcbp_cli_pair_paths(const char *cmd, int argc, char **argv, bool use_cbp, kcbp_cli_pair_args *pair,
                        kcbp_model_options *model);
/* Prints a pair query's answer line (a kcbp_cli_pose_fn's last step): adds
 * index_key: index when index >= 0, indents it when pretty and single; NULL
 * line (out of memory building it) gives -1 with *err set. Frees line. */
int kcbp_cli_print_answer(cJSON *line, const char *index_key, long index, bool pretty, kcbp_error *err);
/* Parses a distance: a whole decimal number, finite and >= 0 (distance_cmd.c). */
bool kcbp_cli_parse_distance(const char *text, double *out);

/* --export DIR (export.c): one object of a collide pose or a scene frame,
 * written as DIR/STEM.ply (the posed mesh, contact triangles red) and
 * DIR/STEM_cbp.obj (the posed k-CBP, when the model has one). */
typedef struct {
    const char *stem;        /* the files' name without extension */
    const kcbp_model *model;
    const kcbp_pose *pose;   /* world = pose * local */
    const uint8_t *marked;   /* per triangle of the model's mesh, non-zero: a contact; NULL: none */
} kcbp_cli_export_object;
/* Makes DIR when it is missing (not its parents): KCBP_ERR_INVALID when it
 * exists and is not a directory, KCBP_ERR_IO when it cannot be made. */
kcbp_status kcbp_cli_export_prepare(const char *dir, kcbp_error *err);
kcbp_status kcbp_cli_export_write(const char *dir, const kcbp_cli_export_object *obj, kcbp_error *err);
/* Prints an export error: exit 2 for a DIR that is not a directory, else 4
 * (a failed write). */
int kcbp_cli_export_fail(const kcbp_error *err);
/* Marks the triangles of A's side (side_b false) or B's of the contacts;
 * returns how many were not marked before. */
size_t kcbp_cli_export_mark(uint8_t *marked, const kcbp_contact *contacts, size_t ncontacts, bool side_b);
/* "INDEX-NAME" with every character but [A-Za-z0-9._-] of name made '_'
 * (a scene object's files), cut to size. */
void kcbp_cli_export_stem(char *out, size_t size, uint32_t index, const char *name);

/* Prints "kcbp: message" to stderr and returns the exit code for the status. */
int kcbp_cli_fail(const kcbp_error *err);
/* Prints "kcbp <cmd>: message" and a hint to use --help; returns KCBP_EXIT_USAGE. */
int kcbp_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* --jobs's default for every command that takes it: the CPUs this process
 * may run on (its affinity mask, which taskset and Slurm set; else the
 * online CPUs), 1 to 1024. */
long kcbp_cli_default_jobs(void);
/* Parses a whole decimal integer in [lo, hi]. */
bool kcbp_cli_parse_int(const char *s, long lo, long hi, long *out);
/* Prints one JSON document (compact on one line, or indented) and frees it.
 * Returns KCBP_EXIT_NOMEM if it could not be printed. */
int kcbp_cli_print_json(cJSON *doc, bool pretty);
/* Prints text (malloc'ed) and a newline, and frees it. */
int kcbp_cli_print_text(char *text);
/* The same into the file at path (NULL: kcbp_cli_print_text): a file that
 * cannot be written completely is removed, KCBP_EXIT_NOMEM after a message. */
int kcbp_cli_write_text(char *text, const char *path);
/* Flushes stdout: KCBP_EXIT_OK, or KCBP_EXIT_NOMEM after printing "kcbp:
 * cannot write the output: reason" when it (or an earlier write) failed. */
int kcbp_cli_flush(void);
/* Parses --max-contacts N (1 .. KCBP_CLI_MAX_CONTACTS_MAX); false after
 * printing a usage error. */
bool kcbp_cli_parse_max_contacts(const char *cmd, const char *arg, long *out);
/* Milliseconds from a monotonic clock. */
double kcbp_cli_now_ms(void);
/* cJSON_AddStringToObject with s made valid UTF-8 (kcbp_utf8_sanitize: a
 * file name is bytes, JSON is UTF-8): the new item, or NULL when memory
 * ran out. */
cJSON *kcbp_cli_add_string(cJSON *object, const char *key, const char *s);

#endif
