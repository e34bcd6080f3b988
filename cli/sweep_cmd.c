/* kcbp sweep: when does a moving mesh first touch another? */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "twod.h"
#include "view.h"

static const char sweep_help[] =
    "usage: kcbp sweep A.obj B.obj --from POSE --to POSE [--pose-a POSE] [--tolerance T]\n"
    "                  [--max-iterations N] [-k 16] [--dirs MODE] [--no-cbp] [--pretty]\n"
    "                  [--html FILE] [--export FILE.glb]\n"
    "       kcbp sweep A.obj B.obj --sweeps FILE [--pose-a POSE] [options]\n"
    "\n"
    "The time of impact of B moving from one pose to another against A (standing\n"
    "at --pose-a): the first t in [0, 1] at which the surfaces touch, or null when\n"
    "they never do. B's translation moves linearly and its rotation turns about a\n"
    "fixed axis at a constant rate along the shorter arc (slerp), about B's own origin.\n"
    "\n"
    "  --from, --to POSE        B's pose at t = 0 and at t = 1, each a quoted string\n"
    "                           in one of three forms (world = R * local + t, R about the\n"
    "                           mesh's own origin):\n"
    "                             tx ty tz ax ay az deg     R: deg degrees about the axis\n"
    "                             quat tx ty tz qw qx qy qz R: a unit quaternion, w first\n"
    "                             matrix r00 r01 r02 tx r10 r11 r12 ty r20 r21 r22 tz [0 0 0 1]\n"
    "                           a quaternion not unit to 1e-6, or a matrix whose R is not a\n"
    "                           rotation to 1e-9, is an error (never normalised)\n"
    "  --pose-a POSE            A's pose, in the same forms (default: identity)\n"
    "  --sweeps FILE            one sweep per line: B's from-pose then its to-pose, each in\n"
    "                           any form (14 numbers when both are plain; a matrix's numbers\n"
    "                           run to the next quat or matrix, less the 7 of a plain pose\n"
    "                           after it); '#' comments allowed; one JSON line per sweep\n"
    "  --tolerance T            the tolerance in t (default 1e-9): no contact before \"toi\",\n"
    "                           and at \"toi\" the meshes are within T of touching at the\n"
    "                           motion's speed bound (\"distance\" <= T * \"motion_bound\")\n"
    "  --max-iterations N       steps before the answer is \"undecided\" (default 10000)\n"
    "  -k N, --dirs MODE        the k-CBPs (default 16 planes, greedy directions)\n"
    "  --no-cbp                 no k-CBP far field: the meshes' distance from the start\n"
    "  --pretty                 indent the JSON (single sweep)\n"
    "  --progress               with --sweeps: sweeps answered and their rate on stderr, also\n"
    "                           when it is not a terminal (on a terminal: always)\n"
    "  --html FILE              also write a page that shows the sweep in a browser (no\n"
    "                           network): A, and B at the start, at the time of impact (its\n"
    "                           contact triangles red) and at the end, the k-CBPs (a toggle)\n"
    "  --export FILE.glb        the same poses as one binary glTF 2.0 file. Both are written\n"
    "                           before the answer is printed (with --sweeps: the first sweep)\n"
    "\n"
    "Method: conservative advancement: a proven lower bound on the distance at t and a\n"
    "bound on the relative speed of any two points give a time before which nothing can\n"
    "touch. Far apart, the bound is the k-CBPs' gap along GJK's closest direction (for a\n"
    "translation, a ray cast in GJK form); near, the meshes' distance (kcbp distance).\n"
    "\n"
    "Shapes: A or B may be sphere:R, capsule:R:L (radius, length of its segment),\n"
    "box:X:Y:Z (full side lengths) or cylinder:R:L (radius, height): centred at the\n"
    "origin of its own frame, axis along z (FCL's conventions); a file so named is\n"
    "./sphere:1. Shapes are solids (a mesh inside one collides with it), meshes are\n"
    "surfaces; the shape's side of a contact is null, and the report describes it\n"
    "(\"b\": {\"shape\": \"capsule\", \"radius\": R, \"length\": L}).\n"
    "\n"
    "Output: {\"toi\": t or null, \"contacts\": [[tri_a, tri_b]] and \"point\" (world, the\n"
    "midpoint of the closest points) at toi, \"distance\" at toi, \"confirmed\" (the exact\n"
    "test finds contact by toi + T: the true time lies in [toi, toi + T]), \"stats\"}; \"faces\"\n"
    "names the file's faces when a mesh had polygons. \"undecided\": true (toi null) when\n"
    "the step cap was reached: no contact before \"free_until\", nothing known after.\n"
    "Exit status: 0 whatever the answer, 2 for a usage error, 3 for bad input.\n";

typedef struct {
    kcbp_cli_pair_args pair;
    kcbp_sweep_options opts;
    kcbp_model_options model;
    bool pretty;
    const char *html, *export_glb; /* --html, --export FILE.glb, or NULL */
} sweep_args;

static int parse_args(int argc, char **argv, sweep_args *args, bool *help)
{
    static const struct option longopts[] = {
        {"pose-a", required_argument, NULL, 'a'},    {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'},        {"sweeps", required_argument, NULL, 's'},
        {"tolerance", required_argument, NULL, 'T'}, {"max-iterations", required_argument, NULL, 'I'},
        {"progress", no_argument, NULL, 'R'},
        {"pretty", no_argument, NULL, 'P'},          {"help", no_argument, NULL, 'h'},
        {"dirs", required_argument, NULL, 'd'},      {"no-cbp", no_argument, NULL, 'n'},
        {"html", required_argument, NULL, 'H'},      {"export", required_argument, NULL, 'E'},
        {NULL, 0, NULL, 0},
    };
    memset(args, 0, sizeof *args);
    args->opts = kcbp_sweep_options_default();
    args->model = kcbp_model_options_default();
    args->pair.model = &args->model;
    args->pair.poses_per_line = 2;
    *help = false;
    long n;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":hk:", longopts, NULL)) != -1) {
        int rc;
        switch (c) {
        case 'a': args->pair.pose_a = optarg; break;
        case 'f': args->pair.pose_b = optarg; break;
        case 't': args->pair.pose_b_to = optarg; break;
        case 's': args->pair.poses_file = optarg; break;
        case 'P': args->pretty = true; break;
        case 'R': kcbp_cli_progress_force(); break;
        case 'h': *help = true; return KCBP_EXIT_OK;
        case 'n': args->opts.use_cbp = false; break;
        case 'H': args->html = optarg; break;
        case 'E':
            if (kcbp_view_export_kind_of(optarg) != KCBP_VIEW_EXPORT_GLB)
                return kcbp_view_export_usage("sweep", optarg, false);
            args->export_glb = optarg;
            break;
        case 'T':
            if (!kcbp_cli_parse_distance(optarg, &args->opts.t_tolerance) || !(args->opts.t_tolerance > 0) ||
                args->opts.t_tolerance > 0.5)
                return kcbp_cli_usage_error("sweep", "--tolerance takes a number in (0, 0.5], not '%s'", optarg);
            break;
        case 'I':
            if (!kcbp_cli_parse_int(optarg, 1, 100000000, &n))
                return kcbp_cli_usage_error("sweep", "--max-iterations takes a whole number from 1 to 100000000, not '%s'",
                                            optarg);
            args->opts.max_iterations = (int)n;
            break;
        case 'k':
            if ((rc = kcbp_cli_parse_k("sweep", optarg, &args->model)) != KCBP_EXIT_OK)
                return rc;
            break;
        case 'd':
            if ((rc = kcbp_cli_parse_dirs("sweep", optarg, &args->model)) != KCBP_EXIT_OK)
                return rc;
            break;
        default: return kcbp_cli_bad_option("sweep", c, argv);
        }
    }
    int rc = kcbp_cli_pair_paths("sweep", argc, argv, args->opts.use_cbp, &args->pair, &args->model);
    if (rc == KCBP_EXIT_OK && !args->pair.poses_file && (!args->pair.pose_b || !args->pair.pose_b_to))
        rc = kcbp_cli_usage_error("sweep", "give B's motion: --from POSE and --to POSE, or --sweeps FILE");
    return rc;
}

static bool add_vec3(cJSON *o, const char *key, kcbp_vec3 v)
{
    double x[3] = {v.x, v.y, v.z};
    cJSON *a = cJSON_CreateDoubleArray(x, 3);
    if (!a || !cJSON_AddItemToObject(o, key, a)) {
        cJSON_Delete(a);
        return false;
    }
    return true;
}

/* One sweep's JSON object; NULL when out of memory. */
static cJSON *report(const kcbp_sweep_result *r, const kcbp_model *a, const kcbp_model *b, const kcbp_timings *t)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = true;
    if (r->hit) {
        ok &= cJSON_AddNumberToObject(o, "toi", r->toi) != NULL;
        ok &= kcbp_cli_add_pair_list(o, "contacts", r->tri_a, r->tri_b);
        const uint32_t *fa = kcbp_mesh_faces(kcbp_model_mesh(a)), *fb = kcbp_mesh_faces(kcbp_model_mesh(b));
        if (fa || fb)
            ok &= kcbp_cli_add_pair_list(o, "faces", fa && r->tri_a != KCBP_SHAPE_FEATURE ? fa[r->tri_a] : r->tri_a,
                           fb && r->tri_b != KCBP_SHAPE_FEATURE ? fb[r->tri_b] : r->tri_b);
        ok &= add_vec3(o, "point", kcbp_v3_scale(kcbp_v3_add(r->point_a, r->point_b), 0.5));
        ok &= add_vec3(o, "point_a", r->point_a);
        ok &= add_vec3(o, "point_b", r->point_b);
        ok &= cJSON_AddNumberToObject(o, "distance", r->distance) != NULL;
        ok &= cJSON_AddBoolToObject(o, "confirmed", r->confirmed) != NULL;
    } else {
        ok &= cJSON_AddNullToObject(o, "toi") != NULL;
        if (r->undecided) {
            ok &= cJSON_AddTrueToObject(o, "undecided") != NULL;
            ok &= cJSON_AddNumberToObject(o, "free_until", r->free_until) != NULL;
        }
    }
    cJSON *ma = kcbp_report_mesh(a), *mb = kcbp_report_mesh(b);
    if (!ma || !cJSON_AddItemToObject(o, "a", ma)) {
        cJSON_Delete(ma);
        ok = false;
    }
    if (!mb || !cJSON_AddItemToObject(o, "b", mb)) {
        cJSON_Delete(mb);
        ok = false;
    }
    cJSON *s = cJSON_AddObjectToObject(o, "stats");
    ok &= s != NULL;
    if (s) {
        ok &= cJSON_AddNumberToObject(s, "motion_bound", r->motion_bound) != NULL;
        ok &= cJSON_AddNumberToObject(s, "iterations", r->iterations) != NULL;
        ok &= cJSON_AddNumberToObject(s, "cbp_steps", r->cbp_steps) != NULL;
        ok &= cJSON_AddNumberToObject(s, "distance_queries", r->distance_queries) != NULL;
        ok &= cJSON_AddNumberToObject(s, "box_pairs", (double)r->tree.box_pairs) != NULL;
        ok &= cJSON_AddNumberToObject(s, "triangle_pairs", (double)r->tree.tri_pairs) != NULL;
        ok &= cJSON_AddNumberToObject(s, "load_ms", t->load_ms) != NULL;
        ok &= cJSON_AddNumberToObject(s, "build_ms", t->build_ms) != NULL;
        ok &= cJSON_AddNumberToObject(s, "query_ms", t->query_ms) != NULL;
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* --html and --export FILE.glb: A, and B at the start and the end
 * (translucent) and at the time of impact with its contact pair red. */
static int view_sweep(const sweep_args *args, const kcbp_cli_pair *p, const kcbp_motion *mb,
                      const kcbp_sweep_result *r, const cJSON *doc)
{
    char *text = cJSON_PrintUnformatted(doc);
    kcbp_view_pair vp;
    kcbp_view_pair_init(&vp, "sweep", args->pair.path_a, args->pair.path_b, p->a, p->b);
    kcbp_pose start = kcbp_motion_at(mb, 0), end = kcbp_motion_at(mb, 1), hit = kcbp_motion_at(mb, r->hit ? r->toi : 0);
    bool ok = text && kcbp_view_pair_add(&vp, "a", 0, &p->pose_a, KCBP_VIEW_SOLID, kcbp_view_color(0)) &&
              kcbp_view_pair_add(&vp, "b at the start", 1, &start, r->hit ? KCBP_VIEW_GHOST : KCBP_VIEW_SOLID,
                                 kcbp_view_color(1));
    if (ok && r->hit) {
        ok = kcbp_view_pair_add(&vp, "b at the time of impact", 1, &hit, KCBP_VIEW_SOLID, kcbp_view_color(1));
        kcbp_contact c = {r->tri_a, r->tri_b};
        if (ok)
            kcbp_view_pair_mark(&vp, 0, 2, &c, 1);
    }
    ok = ok && kcbp_view_pair_add(&vp, "b at the end", 1, &end, KCBP_VIEW_GHOST, kcbp_view_color(1));
    /* B's origin along its motion, and the contact point at the time of
     * impact, which the ghosts would otherwise hide. */
    enum { NPATH = 65 };
    kcbp_vec3 path[NPATH];
    for (int k = 0; k < NPATH; k++)
        path[k] = kcbp_motion_at(mb, (double)k / (NPATH - 1)).trans;
    int rc = KCBP_EXIT_NOMEM;
    if (ok) {
        vp.view.answer = text;
        vp.view.npath = NPATH;
        vp.view.path = path;
        vp.view.has_points = r->hit;
        vp.view.point_a = r->point_a;
        vp.view.point_b = r->point_b;
        rc = kcbp_view_emit(&vp.view, args->html, args->export_glb);
    } else {
        fprintf(stderr, "kcbp: out of memory for --html or --export\n");
    }
    kcbp_view_pair_free(&vp);
    cJSON_free(text);
    return rc;
}

static int answer_sweep(void *ctx, kcbp_cli_pair *p, const kcbp_pose *pose_b, long index, kcbp_error *err)
{
    const sweep_args *args = ctx;
    kcbp_sweep_result result;
    double t0 = kcbp_cli_now_ms();
    kcbp_motion ma = kcbp_motion_still(&p->pose_a), mb = kcbp_motion_make(&pose_b[0], &pose_b[1]);
    kcbp_status st = kcbp_sweep(p->a, &ma, p->b, &mb, &args->opts, &result, err);
    p->times.query_ms = kcbp_cli_now_ms() - t0;
    if (st != KCBP_OK)
        return -1;
    cJSON *doc = report(&result, p->a, p->b, &p->times);
    if (doc && (args->html || args->export_glb) && index <= 0) { /* the files first: a failure prints no line */
        int rc = view_sweep(args, p, &mb, &result, doc);
        if (rc != KCBP_EXIT_OK) {
            cJSON_Delete(doc);
            return rc;
        }
    }
    return kcbp_cli_print_answer(doc, "sweep", index, args->pretty, err);
}

int kcbp_cli_sweep(int argc, char **argv)
{
    if (kcbp_cli_2d_args(argc, argv)) /* a 2D input: cli/twod_sweep.c */
        return kcbp_cli_sweep2d(argc, argv);
    sweep_args args;
    bool help;
    int rc = parse_args(argc, argv, &args, &help);
    if (rc != KCBP_EXIT_OK)
        return rc;
    if (help) {
        fputs(sweep_help, stdout);
        return kcbp_cli_flush();
    }
    return kcbp_cli_pair_query("sweep", &args.pair, answer_sweep, &args);
}
