/* kcbp sweep on 2D inputs (issue 35): when does B, moving from one 2D pose
 * to another, first touch A? The 3D kcbp sweep hands its arguments here
 * when one of them is a 2D input. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html2d.h"
#include "twod.h"

static const char sweep2d_help[] =
    "usage: kcbp sweep A B --from \"tx ty deg\" --to \"tx ty deg\" [--pose-a \"tx ty deg\"]\n"
    "                  [--tolerance T] [--max-iterations N] [--html FILE] [--pretty]\n"
    "       kcbp sweep A B --sweeps FILE [--pose-a \"tx ty deg\"] [options]\n"
    "\n"
    "2D inputs (as kcbp collide's: FILE.geojson, FILE.svg, circle:R, rect:W:H[:R],\n"
    "capsule2d:R:L; both must be 2D). The time of impact of B moving from --from\n"
    "(t = 0) to --to (t = 1) against A standing at --pose-a: the first t in [0, 1]\n"
    "at which they touch, or null when they never do. B's translation moves\n"
    "linearly and its angle turns linearly about B's own origin, from the first\n"
    "angle to the second as written (0 to 720: two full turns counter-clockwise).\n"
    "\n"
    "  --from, --to \"tx ty deg\"  B's pose at t = 0 and at t = 1\n"
    "  --pose-a \"tx ty deg\"      A's pose (default: \"0 0 0\")\n"
    "  --sweeps FILE             one sweep per line: six numbers, B's from and to\n"
    "                            (\"tx ty deg tx ty deg\"; '#' comments allowed; \"-\" is\n"
    "                            standard input): one JSON line per sweep, with \"sweep\",\n"
    "                            its index (\"a\" and \"b\" on the first line only)\n"
    "  --tolerance T             the tolerance in t (default 1e-9), in (0, 0.5]\n"
    "  --max-iterations N        steps before the answer is \"undecided\" (default 10000)\n"
    "  --html FILE               also write a page that draws the sweep (inline SVG, no\n"
    "                            script): A, B at the start and the end (faint) and at\n"
    "                            the time of impact, the path of B's centre, the contact\n"
    "                            edges, point and normal; with --sweeps, the first sweep's.\n"
    "                            Written before the answer is printed (exit 4 if it\n"
    "                            cannot be)\n"
    "  --pretty                  indent the JSON (single sweep)\n"
    "\n"
    "Method (kcbp2d.h, sweep2d.h): conservative advancement. No contact before\n"
    "\"toi\" (every step proven from a lower bound on the distance); at \"toi\" the\n"
    "distance is within max(T * \"motion_bound\", a rounding bound) of touching;\n"
    "\"confirmed\": the exact collide test finds contact by toi + T, so the true time\n"
    "lies in [toi, toi + T].\n"
    "\n"
    "Output: {\"toi\": t or null, \"contacts\": [[edge_a, edge_b]] (null for a shape's\n"
    "side, or when one lies inside the other), \"point\" (the midpoint of the closest\n"
    "points), \"point_a\", \"point_b\", \"normal\" (unit, A toward B) and \"distance\" at toi,\n"
    "\"confirmed\", \"a\", \"b\", \"dimensions\": 2, \"stats\"}; \"undecided\": true (toi null)\n"
    "when the step cap was reached: no contact before \"free_until\", nothing known after.\n"
    "Exit status: 0 whatever the answer, 2 for a usage error, 3 for bad input.\n";

typedef struct {
    const char *pose_a, *from, *to, *sweeps;
    const char *html; /* --html FILE, or NULL */
    kcbp2d_sweep_options opts;
    bool pretty;
    const char *a, *b;
} sweep2d_args;

static int parse_args(int argc, char **argv, sweep2d_args *a, bool *help)
{
    static const struct option longopts[] = {
        {"pose-a", required_argument, NULL, 'a'},    {"from", required_argument, NULL, 'f'},
        {"to", required_argument, NULL, 't'},        {"sweeps", required_argument, NULL, 's'},
        {"tolerance", required_argument, NULL, 'T'}, {"max-iterations", required_argument, NULL, 'I'},
        {"pretty", no_argument, NULL, 'P'},          {"help", no_argument, NULL, 'h'},
        {"html", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->opts = kcbp2d_sweep_options_default();
    *help = false;
    long n;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': a->pose_a = optarg; break;
        case 'f': a->from = optarg; break;
        case 't': a->to = optarg; break;
        case 's': a->sweeps = optarg; break;
        case 'P': a->pretty = true; break;
        case 'H': a->html = optarg; break;
        case 'h': *help = true; return KCBP_EXIT_OK;
        case 'T':
            if (!kcbp_cli_parse_distance(optarg, &a->opts.t_tolerance) || !(a->opts.t_tolerance > 0) ||
                a->opts.t_tolerance > 0.5)
                return kcbp_cli_usage_error("sweep", "--tolerance takes a number in (0, 0.5], not '%s'", optarg);
            break;
        case 'I':
            if (!kcbp_cli_parse_int(optarg, 1, 100000000, &n))
                return kcbp_cli_usage_error("sweep", "--max-iterations takes a whole number from 1 to 100000000, not '%s'",
                                            optarg);
            a->opts.max_iterations = (int)n;
            break;
        case ':': return kcbp_cli_usage_error("sweep", "%s needs a value", argv[optind - 1]);
        default:
            return kcbp_cli_usage_error("sweep", "'%s' is not an option for 2D inputs (see kcbp sweep A B --help with a 2D A)",
                                        argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return kcbp_cli_usage_error("sweep", "expected two inputs A and B, got %d", argc - optind);
    a->a = argv[optind], a->b = argv[optind + 1];
    for (int i = 0; i < 2; i++) {
        const char *x = i ? a->b : a->a, *y = i ? a->a : a->b;
        if (!kcbp_cli_is_2d_input(x))
            return kcbp_cli_usage_error("sweep", "%s is 2D but %s is not (a GeoJSON or SVG file, or circle:, rect:, "
                                                 "capsule2d:): 2D and 3D inputs cannot be mixed",
                                        y, x);
    }
    if (a->sweeps && (a->from || a->to))
        return kcbp_cli_usage_error("sweep", "--sweeps gives the motions of B: do not combine it with --from or --to");
    if (!a->sweeps && (!a->from || !a->to))
        return kcbp_cli_usage_error("sweep", "give B's motion: --from POSE and --to POSE, or --sweeps FILE");
    return KCBP_EXIT_OK;
}

/* "tx ty deg" as three numbers (kcbp2d_pose_parse checks them). */
static int read_numbers(const char *opt, const char *text, double v[3])
{
    kcbp2d_pose p;
    kcbp_error err;
    if (kcbp2d_pose_parse(text, &p, &err) != KCBP_OK)
        return kcbp_cli_usage_error("sweep", "%s: %s", opt, err.msg);
    (void)sscanf(text, "%lf %lf %lf", &v[0], &v[1], &v[2]);
    return KCBP_EXIT_OK;
}

static bool add_vec2(cJSON *o, const char *key, kcbp_vec2 v)
{
    cJSON *a = kcbp_cli_2d_vec2(v);
    if (!a || !cJSON_AddItemToObject(o, key, a)) {
        cJSON_Delete(a);
        return false;
    }
    return true;
}

/* One sweep's JSON object (the 3D report's keys, 2D vectors); NULL when
 * out of memory. */
static cJSON *report(const kcbp2d_sweep_result *r, const kcbp_cli_input2d *ia, const kcbp_cli_input2d *ib,
                     double query_ms, long index)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = true;
    if (r->hit) {
        ok &= cJSON_AddNumberToObject(o, "toi", r->toi) != NULL;
        ok &= kcbp_cli_add_pair_list(o, "contacts", r->edge_a, r->edge_b);
        ok &= add_vec2(o, "point", kcbp_v2_scale(kcbp_v2_add(r->point_a, r->point_b), 0.5));
        ok &= add_vec2(o, "point_a", r->point_a);
        ok &= add_vec2(o, "point_b", r->point_b);
        ok &= add_vec2(o, "normal", r->normal);
        ok &= cJSON_AddNumberToObject(o, "distance", r->distance) != NULL;
        ok &= cJSON_AddBoolToObject(o, "confirmed", r->confirmed) != NULL;
    } else {
        ok &= cJSON_AddNullToObject(o, "toi") != NULL;
        if (r->undecided) {
            ok &= cJSON_AddTrueToObject(o, "undecided") != NULL;
            ok &= cJSON_AddNumberToObject(o, "free_until", r->free_until) != NULL;
        }
    }
    if (index <= 0) {
        cJSON *da = kcbp_cli_2d_describe(ia), *db = kcbp_cli_2d_describe(ib);
        ok &= da && cJSON_AddItemToObject(o, "a", da);
        ok &= db && cJSON_AddItemToObject(o, "b", db);
    }
    ok &= cJSON_AddNumberToObject(o, "dimensions", 2) != NULL;
    cJSON *s = cJSON_AddObjectToObject(o, "stats");
    ok &= s != NULL;
    if (s) {
        ok &= cJSON_AddNumberToObject(s, "motion_bound", r->motion_bound) != NULL;
        ok &= cJSON_AddNumberToObject(s, "iterations", r->iterations) != NULL;
        ok &= cJSON_AddNumberToObject(s, "distance_queries", r->distance_queries) != NULL;
        ok &= cJSON_AddNumberToObject(s, "query_ms", query_ms) != NULL;
    }
    if (index >= 0)
        ok &= cJSON_AddNumberToObject(o, "sweep", (double)index) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* One sweep of B from (from) to (to), A standing at a (three numbers
 * each), printed. */
static int answer(const sweep2d_args *args, const kcbp_cli_input2d *ia, const kcbp_cli_input2d *ib, const double *a,
                  const double *from, const double *to, long index, kcbp_error *err)
{
    kcbp2d_motion ma = kcbp2d_motion_still(a[0], a[1], a[2]);
    kcbp2d_motion mb = {{from[0], from[1]}, {to[0], to[1]}, from[2], to[2]};
    kcbp2d_sweep_result r;
    double t0 = kcbp_cli_now_ms();
    kcbp_status st;
    if (!ia->is_model && !ib->is_model) {
        st = kcbp2d_sweep(&ia->shape, &ma, &ib->shape, &mb, &args->opts, &r, err);
    } else if (ia->is_model && ib->is_model) {
        st = kcbp2d_model_sweep(ia->model, &ma, ib->model, &mb, &args->opts, &r, err);
    } else if (ia->is_model) {
        st = kcbp2d_model_shape_sweep(ia->model, &ma, &ib->shape, &mb, &args->opts, &r, err);
    } else { /* a shape as A: the library takes the model first; the answer swapped back */
        st = kcbp2d_model_shape_sweep(ib->model, &mb, &ia->shape, &ma, &args->opts, &r, err);
        kcbp_vec2 p = r.point_a;
        r.point_a = r.point_b, r.point_b = p;
        uint32_t e = r.edge_a;
        r.edge_a = r.edge_b, r.edge_b = e;
        r.normal = kcbp_v2_neg(r.normal);
    }
    double ms = kcbp_cli_now_ms() - t0;
    if (st != KCBP_OK)
        return kcbp_cli_fail(err);
    cJSON *doc = report(&r, ia, ib, ms, index);
    if (!doc) {
        fprintf(stderr, "kcbp: out of memory for the report\n");
        return KCBP_EXIT_NOMEM;
    }
    if (args->html && index <= 0) { /* the page first: when it fails, no answer is printed */
        kcbp_html2d_input ha = {args->a, ia->is_model ? ia->model : NULL, &ia->shape, kcbp2d_pose_identity()},
                          hb = {args->b, ib->is_model ? ib->model : NULL, &ib->shape, kcbp2d_pose_identity()};
        kcbp_error perr;
        if (kcbp2d_motion_at(&ma, 0, &ha.pose, &perr) != KCBP_OK) /* checked by the sweep already */
            ha.pose = kcbp2d_pose_identity();
        int prc = kcbp_html2d_sweep_write(args->html, &ha, &hb, &mb, doc);
        if (prc != KCBP_EXIT_OK) {
            cJSON_Delete(doc);
            return prc;
        }
    }
    return kcbp_cli_print_json(doc, args->pretty && index < 0);
}

int kcbp_cli_sweep2d(int argc, char **argv)
{
    sweep2d_args args;
    bool help;
    int rc = parse_args(argc, argv, &args, &help);
    if (rc != KCBP_EXIT_OK)
        return rc;
    if (help) {
        fputs(sweep2d_help, stdout);
        return kcbp_cli_flush();
    }
    double pa[3] = {0, 0, 0}, from[3], to[3];
    if ((args.pose_a && (rc = read_numbers("--pose-a", args.pose_a, pa)) != KCBP_EXIT_OK) ||
        (args.from && (rc = read_numbers("--from", args.from, from)) != KCBP_EXIT_OK) ||
        (args.to && (rc = read_numbers("--to", args.to, to)) != KCBP_EXIT_OK))
        return rc;
    kcbp_cli_input2d ia, ib;
    if ((rc = kcbp_cli_2d_load("sweep", args.a, &ia)) != KCBP_EXIT_OK)
        return rc;
    if ((rc = kcbp_cli_2d_load("sweep", args.b, &ib)) != KCBP_EXIT_OK) {
        kcbp2d_model_free(ia.model);
        return rc;
    }
    kcbp_error err;
    if (!args.sweeps) {
        rc = answer(&args, &ia, &ib, pa, from, to, -1, &err);
        if (rc == KCBP_EXIT_OK)
            rc = kcbp_cli_flush();
    } else {
        kcbp_cli_poses2d reader;
        if (kcbp_cli_poses2d_open(&reader, args.sweeps, 6, &err) != KCBP_OK) {
            rc = kcbp_cli_fail(&err);
        } else {
            /* a sweep, its answer, its line; the answers before a bad line stay */
            for (long index = 0; rc == KCBP_EXIT_OK; index++) {
                double v[6];
                bool end;
                if (kcbp_cli_poses2d_next(&reader, v, &end, &err) != KCBP_OK) {
                    rc = kcbp_cli_flush() == KCBP_EXIT_OK ? kcbp_cli_fail(&err) : KCBP_EXIT_NOMEM;
                    break;
                }
                if (end)
                    break;
                kcbp2d_pose check;
                if (kcbp2d_pose_from_angle(v[0], v[1], v[2], &check, &err) != KCBP_OK ||
                    kcbp2d_pose_from_angle(v[3], v[4], v[5], &check, &err) != KCBP_OK) {
                    kcbp_cli_poses2d_blame(&reader, &err); /* a bad motion: its line named */
                    rc = kcbp_cli_flush() == KCBP_EXIT_OK ? kcbp_cli_fail(&err) : KCBP_EXIT_NOMEM;
                    break;
                }
                rc = answer(&args, &ia, &ib, pa, v, v + 3, index, &err);
                if (rc == KCBP_EXIT_OK && reader.is_stdin) /* a pipeline sees each answer */
                    rc = kcbp_cli_flush();
            }
            if (rc == KCBP_EXIT_OK)
                rc = kcbp_cli_flush();
            kcbp_cli_poses2d_close(&reader);
        }
    }
    kcbp2d_model_free(ia.model);
    kcbp2d_model_free(ib.model);
    return rc;
}
