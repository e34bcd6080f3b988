/* kcbp distance: how far apart two meshes are, at one pose or many. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view.h"

static const char distance_help[] =
    "usage: kcbp distance A.obj B.obj [--pose-a POSE] [--pose-b POSE] [--margin D]\n"
    "                     [--signed [--depth-tolerance REL]]\n"
    "                     [-k 16] [--dirs greedy|thesis|fixed|kdop] [--no-cbp] [--pretty]\n"
    "                     [--html FILE] [--export FILE.glb]\n"
    "       kcbp distance A.obj B.obj --poses FILE [--pose-a POSE] [options]\n"
    "\n"
    "The minimum distance between the surfaces of two triangle meshes (0 when they\n"
    "touch or intersect), the closest point on each and the triangles they lie on.\n"
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
    "                           the meshes are loaded and built once, and one JSON line is\n"
    "                           printed per pose\n"
    "  --margin D               a clearance query, as collide's --margin: stop as soon as\n"
    "                           the distance is known to exceed D (D >= 0) and say\n"
    "                           \"farther_than\": D, with a lower bound (--max-distance D, its\n"
    "                           name before 1.1, still works)\n"
    "  --signed                 the signed distance: the distance when apart, minus the\n"
    "                           penetration depth when the solids overlap (the length of the\n"
    "                           shortest translation of B that separates them), with the unit\n"
    "                           normal from A toward B and a point on each surface\n"
    "                           (point_b - point_a = signed_distance * normal). Exact (to\n"
    "                           1e-9 of the pair's size) for two convex shapes (sphere,\n"
    "                           capsule, box, cylinder, hull:FILE); with a mesh, a proven\n"
    "                           bracket depth_lower <= depth <= depth_upper and a translation\n"
    "                           of length depth_upper shown exactly to separate them. Closed\n"
    "                           meshes are taken as solids; an open mesh that overlaps the\n"
    "                           other is an error naming its open edges\n"
    "  --depth-tolerance REL    with --signed, a bracket's aimed relative width (default 0.1):\n"
    "                           smaller takes longer\n"
    "  -k N                     planes of each mesh's k-CBP (default 16, at least 4)\n"
    "  --dirs MODE              how the k-CBP's directions are chosen (default greedy)\n"
    "  --no-cbp                 skip the k-CBP stage (and do not build the k-CBPs)\n"
    "  --pretty                 indent the JSON (single-pose mode)\n"
    "  --progress               with --poses: poses answered and their rate on stderr, also\n"
    "                           when it is not a terminal (on a terminal: always)\n"
    "  --html FILE              also write a page that shows the answer in a browser (no\n"
    "                           network): the posed meshes, the closest points and their\n"
    "                           segment, the k-CBPs (a toggle), an orbit camera, a legend\n"
    "  --export FILE.glb        also write the posed meshes, the k-CBPs and the closest points\n"
    "                           (nodes and a line) as one binary glTF 2.0 file. Both are written\n"
    "                           before the answer is printed (with --poses: the first pose)\n"
    "\n"
    "Stages: with --margin, the distance between the world boxes of the\n"
    "k-CBPs, then GJK's distance between the k-CBPs (lower bounds: either may\n"
    "prove the meshes farther than D); then the AABB trees, nearest node pairs\n"
    "first, pruned by the best triangle distance found so far.\n"
    "\n"
    "Shapes: A or B may be sphere:R, capsule:R:L (radius, length of its segment),\n"
    "box:X:Y:Z (full side lengths), cylinder:R:L (radius, height): centred at the\n"
    "origin of its own frame, axis along z (FCL's conventions), or hull:FILE (the\n"
    "convex hull of a mesh file's vertices, in the file's frame); a file so named is\n"
    "./sphere:1. Shapes are solids (a mesh inside one collides with it), meshes are\n"
    "surfaces; the shape's side of a contact is null, and the report describes it\n"
    "(\"b\": {\"shape\": \"capsule\", \"radius\": R, \"length\": L}).\n"
    "\n"
    "Points are in the world frame; triangles are 0-based in file order after\n"
    "polygons are split into triangles, as kcbp collide reports them.\n"
    "Exit status: 0 whatever the answer, 2 for a usage error, 3 for bad input.\n";

bool kcbp_cli_parse_distance(const char *text, double *out)
{
    double v;
    if (!kcbp_parse_number(text, &v) || !(v >= 0))
        return false;
    *out = v;
    return true;
}

typedef struct {
    kcbp_cli_pair_args pair; /* the meshes and poses; pair.model points to model */
    kcbp_distance_options opts;
    bool sign;               /* --signed */
    kcbp_signed_distance_options sopts;
    kcbp_model_options model;
    bool pretty;
    const char *html, *export_glb; /* --html, --export FILE.glb, or NULL */
} distance_args;

static int parse_args(int argc, char **argv, distance_args *args, bool *help)
{
    static const struct option longopts[] = {
        {"pose-a", required_argument, NULL, 'a'}, {"pose-b", required_argument, NULL, 'b'},
        {"poses", required_argument, NULL, 'p'},  {"margin", required_argument, NULL, 'm'},
        {"max-distance", required_argument, NULL, 'm'}, /* --margin's name before 1.1 */
        {"progress", no_argument, NULL, 'R'},
        {"pretty", no_argument, NULL, 'P'},       {"help", no_argument, NULL, 'h'},
        {"dirs", required_argument, NULL, 'd'},   {"no-cbp", no_argument, NULL, 'n'},
        {"html", required_argument, NULL, 'H'},   {"export", required_argument, NULL, 'E'},
        {"signed", no_argument, NULL, 'S'},       {"depth-tolerance", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    memset(args, 0, sizeof *args);
    args->opts = kcbp_distance_options_default();
    args->sopts = kcbp_signed_distance_options_default();
    args->model = kcbp_model_options_default();
    args->pair.model = &args->model;
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
        case 'S': args->sign = true; break;
        case 'T':
            if (!kcbp_cli_parse_distance(optarg, &args->sopts.depth_tolerance) || !(args->sopts.depth_tolerance > 0))
                return kcbp_cli_usage_error("distance", "--depth-tolerance takes a finite number > 0, not '%s'",
                                            optarg);
            break;
        case 'H': args->html = optarg; break;
        case 'E':
            if (kcbp_view_export_kind_of(optarg) != KCBP_VIEW_EXPORT_GLB)
                return kcbp_view_export_usage("distance", optarg, false);
            args->export_glb = optarg;
            break;
        case 'm':
            if (!kcbp_cli_parse_distance(optarg, &args->opts.max_distance))
                return kcbp_cli_usage_error("distance", "--margin takes a finite number >= 0, not '%s'", optarg);
            break;
        case 'k':
            if ((rc = kcbp_cli_parse_k("distance", optarg, &args->model)) != KCBP_EXIT_OK)
                return rc;
            break;
        case 'd':
            if ((rc = kcbp_cli_parse_dirs("distance", optarg, &args->model)) != KCBP_EXIT_OK)
                return rc;
            break;
        default: return kcbp_cli_bad_option("distance", c, argv);
        }
    }
    int rc = kcbp_cli_pair_paths("distance", argc, argv, args->opts.use_cbp, &args->pair, &args->model);
    args->sopts.max_distance = args->opts.max_distance;
    args->sopts.use_cbp = args->opts.use_cbp;
    args->pair.solid_if_closed = args->sign;
    return rc;
}

static void add_vec3(cJSON *o, const char *key, kcbp_vec3 v, bool *failed)
{
    double x[3] = {v.x, v.y, v.z};
    cJSON *a = cJSON_CreateDoubleArray(x, 3);
    if (!a || !cJSON_AddItemToObject(o, key, a)) {
        cJSON_Delete(a);
        *failed = true;
    }
}

/* "a" and "b": each model's counts (a shape's description). */
static void add_models(cJSON *o, const kcbp_model *a, const kcbp_model *b, bool *failed)
{
    cJSON *ma = kcbp_report_mesh(a), *mb = kcbp_report_mesh(b);
    if (!ma || !cJSON_AddItemToObject(o, "a", ma)) {
        cJSON_Delete(ma);
        *failed = true;
    }
    if (!mb || !cJSON_AddItemToObject(o, "b", mb)) {
        cJSON_Delete(mb);
        *failed = true;
    }
}

/* {"distance": d or null, "point_a", "point_b", "triangles": [a, b] (when
 *  within), "farther_than": D and "distance_lower" (when beyond),
 *  "decided_by", "cbp": {"distance"} (when the k-CBP stage ran), "a", "b",
 *  "stats": {"box_pairs", "triangle_pairs", "gjk_iterations", "load_ms",
 *  "build_ms", "query_ms"}} */
static cJSON *report(const kcbp_distance_result *r, double max_distance, const kcbp_model *a, const kcbp_model *b,
                     const kcbp_timings *t)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool failed = false;
    if (r->within) {
        failed |= !cJSON_AddNumberToObject(o, "distance", r->distance);
        add_vec3(o, "point_a", r->point_a, &failed);
        add_vec3(o, "point_b", r->point_b, &failed);
        cJSON *tr = kcbp_cli_json_pair(r->tri_a, r->tri_b); /* null for a shape's side */
        failed |= !tr || !cJSON_AddItemToObject(o, "triangles", tr);
        if (failed && tr && !cJSON_GetObjectItem(o, "triangles"))
            cJSON_Delete(tr);
    } else {
        failed |= !cJSON_AddNullToObject(o, "distance");
        failed |= !cJSON_AddNumberToObject(o, "farther_than", max_distance);
        failed |= !cJSON_AddNumberToObject(o, "distance_lower", r->distance_lower);
    }
    failed |= !cJSON_AddStringToObject(o, "decided_by", kcbp_stage_name(r->decided_by));
    if (r->cbp_tested) {
        cJSON *c = cJSON_AddObjectToObject(o, "cbp");
        failed |= !c || !cJSON_AddNumberToObject(c, "distance", r->cbp_distance);
    }
    add_models(o, a, b, &failed);
    cJSON *s = cJSON_AddObjectToObject(o, "stats");
    failed |= !s;
    if (s) {
        failed |= !cJSON_AddNumberToObject(s, "box_pairs", (double)r->tree.box_pairs);
        failed |= !cJSON_AddNumberToObject(s, "triangle_pairs", (double)r->tree.tri_pairs);
        failed |= !cJSON_AddNumberToObject(s, "gjk_iterations", r->gjk_iterations);
        failed |= !cJSON_AddNumberToObject(s, "load_ms", t->load_ms);
        failed |= !cJSON_AddNumberToObject(s, "build_ms", t->build_ms);
        failed |= !cJSON_AddNumberToObject(s, "query_ms", t->query_ms);
    }
    if (failed) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* --signed: {"signed_distance": s or null, "status", "distance" (>= 0),
 *  "depth", "depth_lower", "depth_upper", "normal", "translation",
 *  "point_a", "point_b", "triangles", "lower": {"center", "radius_a",
 *  "radius_b"} (a bracket's ball), "farther_than" and "distance_lower"
 *  (beyond), "decided_by", "a", "b", "stats"}. */
static cJSON *signed_report(const kcbp_signed_distance_result *r, double max_distance, const kcbp_model *a,
                            const kcbp_model *b, const kcbp_timings *t)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool failed = false;
    if (r->status == KCBP_SDIST_BEYOND) {
        failed |= !cJSON_AddNullToObject(o, "signed_distance");
        failed |= !cJSON_AddStringToObject(o, "status", kcbp_sdist_status_name(r->status));
        failed |= !cJSON_AddNumberToObject(o, "farther_than", max_distance);
        failed |= !cJSON_AddNumberToObject(o, "distance_lower", r->distance_lower);
    } else {
        failed |= !cJSON_AddNumberToObject(o, "signed_distance", r->signed_distance);
        failed |= !cJSON_AddStringToObject(o, "status", kcbp_sdist_status_name(r->status));
        failed |= !cJSON_AddNumberToObject(o, "distance", r->signed_distance > 0 ? r->signed_distance : 0);
        failed |= !cJSON_AddNumberToObject(o, "depth", r->depth);
        failed |= !cJSON_AddNumberToObject(o, "depth_lower", r->depth_lower);
        failed |= !cJSON_AddNumberToObject(o, "depth_upper", r->depth_upper);
        add_vec3(o, "normal", r->normal, &failed);
        add_vec3(o, "translation", r->translation, &failed);
        add_vec3(o, "point_a", r->point_a, &failed);
        add_vec3(o, "point_b", r->point_b, &failed);
        cJSON *tr = kcbp_cli_json_pair(r->feature_a, r->feature_b);
        if (!tr || !cJSON_AddItemToObject(o, "triangles", tr)) {
            cJSON_Delete(tr);
            failed = true;
        }
        if (r->status == KCBP_SDIST_BRACKETED && r->depth_lower > 0) {
            cJSON *l = cJSON_AddObjectToObject(o, "lower");
            failed |= !l;
            if (l) {
                add_vec3(l, "center", r->lower_center, &failed);
                failed |= !cJSON_AddNumberToObject(l, "radius_a", r->lower_radius_a);
                failed |= !cJSON_AddNumberToObject(l, "radius_b", r->lower_radius_b);
            }
        }
    }
    failed |= !cJSON_AddStringToObject(o, "decided_by", kcbp_stage_name(r->decided_by));
    add_models(o, a, b, &failed);
    cJSON *s = cJSON_AddObjectToObject(o, "stats");
    failed |= !s;
    if (s) {
        failed |= !cJSON_AddNumberToObject(s, "steps", r->steps);
        failed |= !cJSON_AddNumberToObject(s, "load_ms", t->load_ms);
        failed |= !cJSON_AddNumberToObject(s, "build_ms", t->build_ms);
        failed |= !cJSON_AddNumberToObject(s, "query_ms", t->query_ms);
    }
    if (failed) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int answer_pose(void *ctx, kcbp_cli_pair *p, const kcbp_pose *pose_b, long index, kcbp_error *err)
{
    const distance_args *args = ctx;
    kcbp_distance_result result;
    kcbp_signed_distance_result sresult;
    memset(&result, 0, sizeof result);
    double t0 = kcbp_cli_now_ms();
    kcbp_status st;
    if (args->sign) {
        st = kcbp_signed_distance(p->a, &p->pose_a, p->b, pose_b, &args->sopts, &sresult, err);
        result.within = sresult.status != KCBP_SDIST_BEYOND;
        result.point_a = sresult.point_a;
        result.point_b = sresult.point_b;
    } else {
        st = kcbp_distance(p->a, &p->pose_a, p->b, pose_b, &args->opts, &result, err);
    }
    p->times.query_ms = kcbp_cli_now_ms() - t0;
    if (st != KCBP_OK) {
        /* "depth needs solids: model A is ...": name its file */
        if (args->sign && st == KCBP_ERR_GEOMETRY && err)
            kcbp_error_prefix(err, strstr(err->msg, "model A") ? args->pair.path_a : args->pair.path_b);
        return -1;
    }
    cJSON *doc = args->sign ? signed_report(&sresult, args->opts.max_distance, p->a, p->b, &p->times)
                            : report(&result, args->opts.max_distance, p->a, p->b, &p->times);
    if (doc && (args->html || args->export_glb) && index <= 0) { /* the files first: a failure prints no line */
        char *text = cJSON_PrintUnformatted(doc);
        /* --signed, overlapping: B where the translation takes it (a ghost),
         * the segment between the points being the translation itself. */
        bool moved = args->sign && kcbp_v3_len2(sresult.translation) > 0;
        kcbp_pose moved_pose = *pose_b;
        if (moved)
            moved_pose.trans = kcbp_v3_add(pose_b->trans, sresult.translation);
        kcbp_view_pair vp;
        kcbp_view_pair_init(&vp, "distance", args->pair.path_a, args->pair.path_b, p->a, p->b);
        int rc = KCBP_EXIT_NOMEM;
        if (text && kcbp_view_pair_add(&vp, "a", 0, &p->pose_a, KCBP_VIEW_SOLID, kcbp_view_color(0)) &&
            kcbp_view_pair_add(&vp, "b", 1, pose_b, KCBP_VIEW_SOLID, kcbp_view_color(1)) &&
            (!moved || kcbp_view_pair_add(&vp, "b moved by the translation", 1, &moved_pose, KCBP_VIEW_GHOST,
                                          kcbp_view_color(1)))) {
            vp.view.answer = text;
            vp.view.has_points = result.within;
            vp.view.point_a = result.point_a;
            vp.view.point_b = result.point_b;
            rc = kcbp_view_emit(&vp.view, args->html, args->export_glb);
        } else {
            fprintf(stderr, "kcbp: out of memory for --html or --export\n");
        }
        kcbp_view_pair_free(&vp);
        cJSON_free(text);
        if (rc != KCBP_EXIT_OK) {
            cJSON_Delete(doc);
            return rc;
        }
    }
    return kcbp_cli_print_answer(doc, "pose", index, args->pretty, err);
}

int kcbp_cli_distance(int argc, char **argv)
{
    if (kcbp_cli_2d_args(argc, argv)) /* a 2D input: cli/twod_cmd.c */
        return kcbp_cli_distance2d(argc, argv);
    distance_args args;
    bool help;
    int rc = parse_args(argc, argv, &args, &help);
    if (rc != KCBP_EXIT_OK)
        return rc;
    if (help) {
        fputs(distance_help, stdout);
        return KCBP_EXIT_OK;
    }
    return kcbp_cli_pair_query("distance", &args.pair, answer_pose, &args);
}
