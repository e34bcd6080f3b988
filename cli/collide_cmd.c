/* kcbp collide: the exact answer for two meshes, at one pose or many. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view.h"

static const char collide_help[] =
    "usage: kcbp collide A.obj B.obj [--pose-a POSE] [--pose-b POSE] [--contacts none|first|all|manifold]\n"
    "                    [-k 16] [--dirs greedy|thesis|fixed|kdop] [--no-cbp] [--max-contacts N] [--margin D]\n"
    "                    [--solid] [--geometry] [--export FILE.glb|DIR/] [--html FILE] [--pretty]\n"
    "       kcbp collide A.obj B.obj --poses FILE [--pose-a POSE] [options]\n"
    "\n"
    "Tells whether two triangle meshes touch, and which triangles do.\n"
    "\n"
    "  --pose-a, --pose-b POSE  A's and B's poses (default: identity), each a quoted string\n"
    "                           in one of three forms (world = R * local + t, R about the\n"
    "                           mesh's own origin):\n"
    "                             tx ty tz ax ay az deg     R: deg degrees about the axis\n"
    "                             quat tx ty tz qw qx qy qz R: a unit quaternion, w first\n"
    "                             matrix r00 r01 r02 tx r10 r11 r12 ty r20 r21 r22 tz [0 0 0 1]\n"
    "                           a quaternion not unit to 1e-6, or a matrix whose R is not a\n"
    "                           rotation to 1e-9, is an error (never normalised)\n"
    "  --poses FILE             one pose of B per line, in any form ('#' comments allowed):\n"
    "                           the meshes are loaded and built once, and each pose is\n"
    "                           answered by one JSON line as soon as it is read ('-':\n"
    "                           standard input)\n"
    "  --contacts MODE          none: the answer only; first (default): one contact pair;\n"
    "                           all: every pair of intersecting triangles; manifold: the\n"
    "                           contacts grouped into patches, \"manifolds\": [{\"normal\" (A\n"
    "                           toward B), \"depth\", \"points\": [{\"point_a\", \"point_b\",\n"
    "                           \"separation\", \"feature_a\", \"feature_b\"}]}] (at most 4 points\n"
    "                           each, world frame; estimates, see kcbp/manifold.h), instead\n"
    "                           of \"contacts\"\n"
    "  --max-contacts N         list at most N contacts per answer (default 100000); an\n"
    "                           answer with more says \"truncated\": true and \"contacts_found\";\n"
    "                           given, the search stops at N + 1 contacts (\"stopped\":\n"
    "                           \"max_contacts\", contacts_found then a lower bound)\n"
    "  -k N                     planes of each mesh's k-CBP (default 16, 4 to 4096)\n"
    "  --dirs MODE              how the k-CBP's directions are chosen (default greedy)\n"
    "  --no-cbp                 skip the k-CBP stage (and do not build the k-CBPs)\n"
    "  --solid                  the meshes are closed solids: one wholly inside the other\n"
    "                           collides too, reported as \"contained\": \"a_in_b\" or \"b_in_a\"\n"
    "                           (exact); a mesh that is not closed is an error naming\n"
    "                           its open, non-manifold or misoriented edges\n"
    "  --geometry               with --contacts first|all: where each contact pair of triangles\n"
    "                           meets (\"intersections\": a point, a segment or a polygon, world\n"
    "                           frame) and a contact \"point\" and estimated \"normal\" (A toward B)\n"
    "  --export FILE            also write the answer as one binary glTF 2.0 file (.glb, for\n"
    "                           Blender and any glTF viewer): both posed meshes, every contact\n"
    "                           triangle red (a second primitive), the k-CBPs as extra nodes,\n"
    "                           the answer in the scene's extras (FILE is written as named;\n"
    "                           another format's extension, .ply .obj .stl .off .gltf, is an\n"
    "                           error)\n"
    "  --export DIR/            instead (a path ending in / or an existing folder), the posed\n"
    "                           meshes in the world frame as DIR/a.ply and DIR/b.ply (contact\n"
    "                           vertices and triangles red, the others grey: the contacts of\n"
    "                           --contacts, every one found) and the posed k-CBPs as\n"
    "                           DIR/a_cbp.obj and DIR/b_cbp.obj (not with --no-cbp); DIR is\n"
    "                           made if missing. With --poses, the first pose is exported\n"
    "  --html FILE              also write a page that shows the answer in a browser, with no\n"
    "                           network: the posed meshes, every contact triangle red, the\n"
    "                           k-CBPs (a toggle), an orbit camera and a legend. Both files\n"
    "                           are written before the answer is printed (with --poses: the\n"
    "                           first pose)\n"
    "  --pretty                 indent the JSON (single-pose mode)\n"
    "  --progress               with --poses: poses answered and their rate on stderr, also\n"
    "                           when it is not a terminal (on a terminal: always)\n"
    "  --margin D               meshes within distance D (>= 0) of each other count as\n"
    "                           colliding (each inflated by D/2): \"margin\" gives their\n"
    "                           distance and closest triangles (kcbp distance --margin D)\n"
    "  --measure-cbp            with --poses: measure the k-CBPs' distance or depth for\n"
    "                           every pose, as a single pose always is (slower: GJK to\n"
    "                           convergence and EPA; without it a pose's \"cbp\" says only\n"
    "                           whether the k-CBPs are apart, and the poses share a cache)\n"
    "\n"
    "Stages: the world boxes of the k-CBPs, then GJK on the k-CBPs (EPA measures\n"
    "their overlap), then the AABB trees and Moller's triangle test, which decide.\n"
    "\n"
    "Shapes: A or B may be sphere:R, capsule:R:L (radius, length of its segment),\n"
    "box:X:Y:Z (full side lengths) or cylinder:R:L (radius, height): centred at the\n"
    "origin of its own frame, axis along z (FCL's conventions); a file so named is\n"
    "./sphere:1. Shapes are solids (a mesh inside one collides with it), meshes are\n"
    "surfaces; the shape's side of a contact is null, and the report describes it\n"
    "(\"b\": {\"shape\": \"capsule\", \"radius\": R, \"length\": L}). Two shapes that collide\n"
    "also get their penetration \"depth\", its unit \"normal\" (A toward B: moving B by\n"
    "depth * normal separates them) and \"point_a\", \"point_b\" on their surfaces.\n"
    "\"cbp\": {\"overlap_depth\"} is the k-CBPs' overlap, not the meshes' depth.\n"
    "\n"
    "Triangles that only touch (at a point or along an edge) count as colliding.\n"
    "Contacts are [triangle of A, triangle of B], 0-based in file order after\n"
    "polygons are split into triangles.\n"
    "A mesh '-' is standard input. A FIFO, a pipe or a device is read as a stream\n"
    "(a FIFO nobody writes to is refused after a second).\n"
    "Exit status: 0 whatever the answer, 2 for a usage error, 3 for bad input (with\n"
    "--poses, after the answers to the poses before the bad one), 4 out of memory\n"
    "or a failed write.\n";

typedef struct {
    kcbp_cli_pair_args pair; /* the meshes and poses; pair.model points to model */
    kcbp_collide_options opts;
    kcbp_model_options model;
    bool pretty;
    bool measure_cbp; /* --measure-cbp */
    long max_contacts; /* --max-contacts */
    bool max_contacts_set; /* given: the search stops at max_contacts + 1 contacts */
    double margin;    /* --margin (< 0: none) */
    bool geometry;    /* --geometry */
    bool manifold;    /* --contacts manifold (opts.contacts is then none: the manifolds find their own) */
    const char *export_dir; /* --export DIR, or NULL */
    const char *export_glb; /* --export FILE.glb, or NULL */
    const char *html;       /* --html FILE, or NULL */
} collide_args;

static int parse_args(int argc, char **argv, collide_args *args, bool *help)
{
    static const struct option longopts[] = {
        {"pose-a", required_argument, NULL, 'a'}, {"pose-b", required_argument, NULL, 'b'},
        {"poses", required_argument, NULL, 'p'},  {"contacts", required_argument, NULL, 'c'},
        {"progress", no_argument, NULL, 'R'},
        {"pretty", no_argument, NULL, 'P'},       {"help", no_argument, NULL, 'h'},
        {"dirs", required_argument, NULL, 'd'},   {"no-cbp", no_argument, NULL, 'n'},
        {"measure-cbp", no_argument, NULL, 'M'}, {"max-contacts", required_argument, NULL, 'm'},
        {"margin", required_argument, NULL, 'g'},
        {"measure-cbp", no_argument, NULL, 'M'}, {"solid", no_argument, NULL, 'S'},
        {"geometry", no_argument, NULL, 'G'},     {"export", required_argument, NULL, 'E'},
        {"html", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    memset(args, 0, sizeof *args);
    args->opts = kcbp_collide_options_default();
    args->model = kcbp_model_options_default();
    args->pair.model = &args->model;
    args->max_contacts = KCBP_CLI_MAX_CONTACTS_DEFAULT;
    args->margin = -1;
    *help = false;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":hk:", longopts, NULL)) != -1) {
        int rc;
        switch (c) {
        case 'a': args->pair.pose_a = optarg; break;
        case 'b': args->pair.pose_b = optarg; break;
        case 'p': args->pair.poses_file = optarg; break;
        case 'P': args->pretty = true; break;
        case 'R': kcbp_cli_progress_force(); break;
        case 'h': *help = true; return KCBP_EXIT_OK;
        case 'n': args->opts.use_cbp = false; break;
        case 'M': args->measure_cbp = true; break;
        case 'm':
            if (!kcbp_cli_parse_max_contacts("collide", optarg, &args->max_contacts))
                return KCBP_EXIT_USAGE;
            args->max_contacts_set = true;
            break;
        case 'g':
            if (!kcbp_cli_parse_distance(optarg, &args->margin))
                return kcbp_cli_usage_error("collide", "--margin takes a finite number >= 0, not '%s'", optarg);
            break;
        case 'S': args->opts.solid = args->model.solid = true; break;
        case 'G': args->geometry = true; break;
        case 'E':
            switch (kcbp_view_export_kind_of(optarg)) {
            case KCBP_VIEW_EXPORT_GLB: args->export_glb = optarg; break;
            case KCBP_VIEW_EXPORT_DIR: args->export_dir = optarg; break;
            default: return kcbp_view_export_usage("collide", optarg, true);
            }
            break;
        case 'H': args->html = optarg; break;
        case 'k':
            if ((rc = kcbp_cli_parse_k("collide", optarg, &args->model)) != KCBP_EXIT_OK)
                return rc;
            break;
        case 'd':
            if ((rc = kcbp_cli_parse_dirs("collide", optarg, &args->model)) != KCBP_EXIT_OK)
                return rc;
            break;
        case 'c':
            if (!strcmp(optarg, "none"))
                args->opts.contacts = KCBP_CONTACTS_NONE;
            else if (!strcmp(optarg, "first"))
                args->opts.contacts = KCBP_CONTACTS_FIRST;
            else if (!strcmp(optarg, "all"))
                args->opts.contacts = KCBP_CONTACTS_ALL;
            else if (!strcmp(optarg, "manifold"))
                args->opts.contacts = KCBP_CONTACTS_NONE; /* kcbp_manifolds lists them (see pose_line) */
            else
                return kcbp_cli_usage_error("collide", "--contacts takes none, first, all or manifold, not '%s'",
                                            optarg);
            args->manifold = !strcmp(optarg, "manifold");
            break;
        default: return kcbp_cli_bad_option("collide", c, argv);
        }
    }
    int rc = kcbp_cli_pair_paths("collide", argc, argv, args->opts.use_cbp, &args->pair, &args->model);
    if (rc != KCBP_EXIT_OK)
        return rc;
    if (args->geometry && args->manifold)
        return kcbp_cli_usage_error("collide", "--geometry takes --contacts first or all, not manifold");
    if (args->geometry && args->opts.contacts == KCBP_CONTACTS_NONE)
        return kcbp_cli_usage_error("collide", "--geometry needs --contacts first or all");
    if (args->geometry && (kcbp_cli_is_shape(args->pair.path_a) || kcbp_cli_is_shape(args->pair.path_b)))
        return kcbp_cli_usage_error("collide", "--geometry intersects triangle pairs: it takes two meshes, not a shape");
    /* A single pose's report gives the k-CBPs' distance or depth; a pose
     * file's lines do when asked, since measuring costs more than the answer
     * and keeps the poses from sharing a pair cache (kcbp_collide_cached). */
    args->opts.cbp_measure = !args->pair.poses_file || args->measure_cbp;
    /* No fine k-CBPs (kcbp_cli_pair_paths): on pose files that are not
     * trajectories they cost more than they save (callgrind, 200 random
     * near-contact poses of bench/gen_poses: +0.8 to +1.5 % instructions),
     * and a measured single pose never uses them. */
    return KCBP_EXIT_OK;
}

/* --geometry's per-contact buffer, grown as needed and kept across poses,
 * and --contacts manifold's set (its array reused likewise). */
typedef struct {
    kcbp_contact_geom *geom;
    size_t cap;
    kcbp_manifold_set manifolds;
} geom_buffer;

/* One pose's line: only what was asked (no contact list with --contacts
 * none; the meshes and their load and build times on the first line of a
 * poses file only), at most max_contacts contacts. index < 0: single pose.
 * With --margin, a pair that does not touch but is within the margin
 * collides too ("decided_by": "margin"; kcbp_distance bounded by the
 * margin decides it). With --contacts manifold, the manifolds
 * (kcbp_manifolds); for two colliding shapes, their depth
 * (kcbp_signed_distance). NULL with *err set on failure. */
static char *pose_line(const kcbp_collide_result *result, const collide_args *args, const kcbp_model *a,
                       const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                       const kcbp_timings *times, long index, geom_buffer *gb, kcbp_error *err)
{
    /* The contacts' geometry (--geometry), in a buffer kept across poses. */
    kcbp_contact_summary summary;
    if (args->geometry && result->ncontacts > gb->cap) {
        free(gb->geom);
        gb->cap = result->ncontacts;
        gb->geom = malloc(gb->cap * sizeof *gb->geom);
        if (!gb->geom) {
            gb->cap = 0;
            kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the contact geometry");
            return NULL;
        }
    }
    if (args->geometry)
        kcbp_contact_geometry(a, pose_a, b, pose_b, result->contacts, result->ncontacts, gb->geom, &summary);
    if (args->manifold) {
        kcbp_manifold_options mo = kcbp_manifold_options_default();
        mo.use_cbp = args->opts.use_cbp;
        if (kcbp_manifolds(a, pose_a, b, pose_b, &mo, &gb->manifolds, err) != KCBP_OK)
            return NULL;
    }
    /* Two shapes that collide: their exact convex depth (cheap: closed
     * forms, the box axes or EPA). Meshes have none here: their depth is a
     * bracket (kcbp_signed_distance), too slow for every answer. */
    kcbp_signed_distance_result sd;
    bool shapes_depth = result->collide && kcbp_model_shape(a, NULL) && kcbp_model_shape(b, NULL);
    if (shapes_depth) {
        kcbp_signed_distance_options so = kcbp_signed_distance_options_default();
        so.use_cbp = args->opts.use_cbp;
        if (kcbp_signed_distance(a, pose_a, b, pose_b, &so, &sd, err) != KCBP_OK)
            return NULL;
        shapes_depth = sd.status == KCBP_SDIST_PENETRATING || sd.status == KCBP_SDIST_BRACKETED ||
                       sd.status == KCBP_SDIST_TOUCHING;
    }
    kcbp_report_margin margin = {.d = args->margin, .within = result->collide, .distance = 0};
    if (args->margin >= 0 && !result->collide) {
        kcbp_distance_options o = kcbp_distance_options_default();
        o.max_distance = args->margin;
        kcbp_distance_result d = {0};
        if (kcbp_distance(a, pose_a, b, pose_b, &o, &d, err) != KCBP_OK)
            return NULL;
        margin.within = d.within;
        margin.distance = d.distance;
        margin.tri[0] = d.tri_a;
        margin.tri[1] = d.tri_b;
    }
    kcbp_report_collide_options ro = {.contacts = args->opts.contacts != KCBP_CONTACTS_NONE,
                                      .models = index <= 0,
                                      .pose = index,
                                      .max_contacts = (size_t)args->max_contacts,
                                      .contacts_stop = args->max_contacts_set,
                                      .margin = args->margin >= 0 ? &margin : NULL,
                                      .solid = args->opts.solid,
                                      .geometry = args->geometry ? gb->geom : NULL,
                                      .summary = args->geometry ? &summary : NULL,
                                      .manifolds = args->manifold ? &gb->manifolds : NULL,
                                      .depth = shapes_depth ? &sd : NULL};
    char *line = kcbp_report_collide_line(result, a, b, times, &ro);
    if (!line)
        kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the report");
    else if (kcbp_model_shape(a, NULL) || kcbp_model_shape(b, NULL))
        kcbp_cli_null_shape_indices(line); /* a shape's side of a contact: null */
    return line;
}

/* What the answers of one run share: the pair cache (the poses of a file
 * are often a trajectory: each test carries what it found to the next, the
 * same answers sooner) and --geometry's buffer. */
typedef struct {
    const collide_args *args;
    kcbp_pair_cache *cache;
    kcbp_collide_result result;
    geom_buffer gb;
} collide_run;

/* --export: both posed meshes with their contact triangles marked, and
 * their posed k-CBPs. An exit code (KCBP_EXIT_OK when written). */
static int export_pose(const char *dir, const kcbp_cli_pair *p, const kcbp_pose *pose_b,
                       const kcbp_collide_result *result)
{
    const kcbp_model *models[2] = {p->a, p->b};
    const kcbp_pose *poses[2] = {&p->pose_a, pose_b};
    static const char *const stems[2] = {"a", "b"};
    kcbp_error err = {0};
    kcbp_status st = KCBP_OK;
    for (int i = 0; i < 2 && st == KCBP_OK; i++) {
        const kcbp_mesh *shown = kcbp_model_display_mesh(models[i]);
        uint8_t *marked = shown ? calloc(kcbp_mesh_triangle_count(shown) + 1, 1) : NULL;
        if (!marked) {
            st = kcbp_error_set(&err, KCBP_ERR_NOMEM, "--export: out of memory");
            break;
        }
        kcbp_cli_export_mark(marked, result->contacts, result->ncontacts, i == 1);
        kcbp_cli_export_object o = {.stem = stems[i], .model = models[i], .pose = poses[i], .marked = marked};
        st = kcbp_cli_export_write(dir, &o, &err);
        free(marked);
    }
    return st == KCBP_OK ? KCBP_EXIT_OK : kcbp_cli_export_fail(&err);
}

/* --html and --export FILE.glb: both posed meshes with every contact
 * triangle marked (all of them, whatever --contacts lists: one more query
 * when it asked for fewer). An exit code (KCBP_EXIT_OK when written). */
static int view_pose(const collide_args *args, const kcbp_cli_pair *p, const kcbp_pose *pose_b,
                     const kcbp_collide_result *result, const char *line)
{
    kcbp_collide_result all = {0};
    const kcbp_collide_result *r = result;
    kcbp_error err = {0};
    if (args->opts.contacts != KCBP_CONTACTS_ALL && result->collide) {
        kcbp_collide_options o = args->opts;
        o.contacts = KCBP_CONTACTS_ALL;
        if (kcbp_collide(p->a, &p->pose_a, p->b, pose_b, &o, &all, &err) != KCBP_OK) {
            kcbp_collide_result_free(&all);
            return kcbp_cli_fail(&err);
        }
        r = &all;
    }
    kcbp_view_pair vp;
    kcbp_view_pair_init(&vp, "collide", args->pair.path_a, args->pair.path_b, p->a, p->b);
    int rc = KCBP_EXIT_NOMEM;
    if (kcbp_view_pair_add(&vp, "a", 0, &p->pose_a, KCBP_VIEW_SOLID, kcbp_view_color(0)) &&
        kcbp_view_pair_add(&vp, "b", 1, pose_b, KCBP_VIEW_SOLID, kcbp_view_color(1))) {
        kcbp_view_pair_mark(&vp, 0, 1, r->contacts, r->ncontacts);
        vp.view.answer = line;
        rc = kcbp_view_emit(&vp.view, args->html, args->export_glb);
    } else {
        fprintf(stderr, "kcbp: out of memory for --html or --export\n");
    }
    kcbp_view_pair_free(&vp);
    kcbp_collide_result_free(&all);
    return rc;
}

static int answer_pose(void *ctx, kcbp_cli_pair *p, const kcbp_pose *pose_b, long index, kcbp_error *err)
{
    collide_run *run = ctx;
    const collide_args *args = run->args;
    double t0 = kcbp_cli_now_ms();
    /* --max-contacts N given: the search stops at N + 1 contacts (one more
     * than listed, to know there were more). */
    kcbp_collide_cap_options co = kcbp_collide_cap_options_default();
    co.collide = args->opts;
    co.max_contacts = args->max_contacts_set ? (uint64_t)args->max_contacts + 1 : 0;
    kcbp_status st = kcbp_collide_capped(p->a, &p->pose_a, p->b, pose_b, &co, run->cache, &run->result, err);
    p->times.query_ms = kcbp_cli_now_ms() - t0;
    if (st != KCBP_OK)
        return -1;
    char *line = pose_line(&run->result, args, p->a, &p->pose_a, p->b, pose_b, &p->times, index, &run->gb, err);
    if (!line)
        return -1;
    if (args->export_dir && index <= 0) { /* the files first: a failure prints no line */
        int rc = export_pose(args->export_dir, p, pose_b, &run->result);
        if (rc != KCBP_EXIT_OK) {
            free(line);
            return rc;
        }
    }
    if ((args->html || args->export_glb) && index <= 0) {
        int rc = view_pose(args, p, pose_b, &run->result, line);
        if (rc != KCBP_EXIT_OK) {
            free(line);
            return rc;
        }
    }
    if (!args->pretty || index >= 0)
        return kcbp_cli_print_text(line);
    cJSON *doc = cJSON_Parse(line); /* one pose: indent it through cJSON */
    free(line);
    if (!doc) {
        kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory while writing the report");
        return -1;
    }
    return kcbp_cli_print_json(doc, true);
}

int kcbp_cli_collide(int argc, char **argv)
{
    if (kcbp_cli_2d_args(argc, argv)) /* a 2D input: cli/twod_cmd.c */
        return kcbp_cli_collide2d(argc, argv);
    collide_args args;
    bool help;
    int rc = parse_args(argc, argv, &args, &help);
    if (rc != KCBP_EXIT_OK)
        return rc;
    if (help) {
        fputs(collide_help, stdout);
        return KCBP_EXIT_OK;
    }
    kcbp_error err;
    if (args.export_dir && kcbp_cli_export_prepare(args.export_dir, &err) != KCBP_OK)
        return kcbp_cli_export_fail(&err);
    collide_run run;
    memset(&run, 0, sizeof run);
    run.args = &args;
    if (kcbp_pair_cache_new(&run.cache, &err) != KCBP_OK)
        return kcbp_cli_fail(&err);
    rc = kcbp_cli_pair_query("collide", &args.pair, answer_pose, &run);
    kcbp_pair_cache_free(run.cache);
    kcbp_collide_result_free(&run.result);
    free(run.gb.geom);
    kcbp_manifold_set_free(&run.gb.manifolds);
    return rc;
}
