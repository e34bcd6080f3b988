/* kcbp collide and kcbp distance on 2D inputs (issue 35): GeoJSON files
 * and 2D shapes on the command line, 2D poses "tx ty deg". The 3D commands
 * hand their arguments here when one of them is a 2D input
 * (kcbp_cli_2d_args); everything 2D the program prints is written here. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <kcbp/kcbp2d.h>

#include "html2d.h"
#include "twod.h"

static const char twod_help[] =
    "usage: kcbp collide A B [--pose-a \"tx ty deg\"] [--pose-b \"tx ty deg\" | --poses FILE] [--margin M]\n"
    "                        [--max-contacts N] [--html FILE] [--pretty]\n"
    "       kcbp distance A B [--pose-a \"tx ty deg\"] [--pose-b \"tx ty deg\" | --poses FILE] [--signed]\n"
    "                        [--html FILE] [--pretty]\n"
    "       kcbp sweep A B --from \"tx ty deg\" --to \"tx ty deg\" (kcbp sweep A B --help with a 2D A)\n"
    "\n"
    "2D inputs (either A or B 2D makes the query 2D; both must be):\n"
    "  FILE.geojson     polygons with holes: a Polygon, MultiPolygon, Feature or\n"
    "                   FeatureCollection (\"-\" is not taken: give a file)\n"
    "  FILE.svg         polygon, rect, circle (flattened to 1e-4 of its radius) and\n"
    "                   path elements with straight segments; curves are refused\n"
    "  circle:R         a circle of radius R round the origin\n"
    "  rect:W:H         a W x H rectangle centred on the origin (rect:W:H:R rounded by R)\n"
    "  capsule2d:R:L    a stadium: the segment (-L/2, 0)-(L/2, 0) inflated by R\n"
    "\n"
    "  --pose-a, --pose-b \"tx ty deg\"  a translation and a rotation of deg degrees,\n"
    "                   counter-clockwise, about the input's own origin\n"
    "  --poses FILE     one pose of B per line, \"tx ty deg\" ('#' comments allowed;\n"
    "                   \"-\" is standard input): one JSON line per pose, with \"pose\",\n"
    "                   its index (\"a\" and \"b\" on the first line only)\n"
    "  --margin M       collide: closer than or at M counts (a clearance, M >= 0)\n"
    "  --max-contacts N collide, GeoJSON inputs: list up to N meeting edge pairs\n"
    "                   (default 100000; edge i: from vertex i to the next of its ring,\n"
    "                   in the file's order)\n"
    "  --signed         distance: minus the penetration depth when they overlap, with\n"
    "                   its direction (normal, A toward B): exact to rounding for two\n"
    "                   shapes, a proven bracket (depth_lower, depth_upper, and a\n"
    "                   translation shown to separate them) when a file is one\n"
    "  --html FILE      also write a page that draws the answer (inline SVG, no\n"
    "                   script, nothing loaded): both inputs posed, contact edges,\n"
    "                   the overlap, closest points, the normal and translation\n"
    "                   (with --poses: the first pose)\n"
    "  --pretty         indent the JSON\n"
    "\n"
    "Answers are exact for the posed coordinates (kcbp2d.h): collide by exact\n"
    "orientation signs and exact within-radius decisions, distances in double.\n"
    "Shapes are convex; GeoJSON and SVG polygons need not be. A 2D input against\n"
    "a 3D one is an error.\n";

static bool has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

static bool is_2d_file(const char *arg)
{
    size_t n = strlen(arg);
    return (n > 8 && !strcmp(arg + n - 8, ".geojson")) || (n > 4 && !strcasecmp(arg + n - 4, ".svg"));
}

static bool is_2d_shape(const char *arg)
{
    return has_prefix(arg, "circle:") || has_prefix(arg, "rect:") || has_prefix(arg, "capsule2d:");
}

static bool is_2d_input(const char *arg) { return is_2d_file(arg) || is_2d_shape(arg); }

bool kcbp_cli_is_2d_input(const char *arg) { return is_2d_input(arg); }

bool kcbp_cli_2d_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pose-a") || !strcmp(argv[i], "--pose-b") || !strcmp(argv[i], "--poses") ||
            !strcmp(argv[i], "--from") || !strcmp(argv[i], "--to") || !strcmp(argv[i], "--sweeps")) {
            i++;
            continue;
        }
        if (argv[i][0] != '-' && is_2d_input(argv[i]))
            return true;
    }
    return false;
}

/* An input: a convex shape, or a model (a GeoJSON or SVG file). */
typedef kcbp_cli_input2d input2d;

static int parse_shape(const char *cmd, const char *arg, kcbp2d_shape *s)
{
    const char *p = strchr(arg, ':') + 1;
    double v[3];
    int n = 0;
    while (*p && n < 3) {
        char *end;
        errno = 0;
        v[n] = strtod(p, &end);
        if (end == p || (*end && *end != ':') || !isfinite(v[n]))
            return kcbp_cli_usage_error(cmd, "'%s': not a number after ':' (circle:R, rect:W:H[:R], capsule2d:R:L)",
                                        arg);
        n++;
        p = *end ? end + 1 : end;
    }
    int want_lo, want_hi;
    if (has_prefix(arg, "circle:"))
        want_lo = want_hi = 1, *s = kcbp2d_shape_circle(n ? v[0] : 0);
    else if (has_prefix(arg, "rect:"))
        want_lo = 2, want_hi = 3, *s = kcbp2d_shape_box(n > 0 ? v[0] : 0, n > 1 ? v[1] : 0, n > 2 ? v[2] : 0);
    else
        want_lo = want_hi = 2, *s = kcbp2d_shape_capsule(n > 0 ? v[0] : 0, n > 1 ? v[1] : 0);
    if (*p || n < want_lo || n > want_hi)
        return kcbp_cli_usage_error(cmd, "'%s': wrong count of numbers (circle:R, rect:W:H[:R], capsule2d:R:L)", arg);
    kcbp_error err;
    if (kcbp2d_shape_check(s, &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "'%s': %s", arg, err.msg);
    return KCBP_EXIT_OK;
}

int kcbp_cli_2d_load(const char *cmd, const char *arg, input2d *in)
{
    memset(in, 0, sizeof *in);
    in->arg = arg;
    if (is_2d_shape(arg))
        return parse_shape(cmd, arg, &in->shape);
    kcbp_error err;
    if (kcbp2d_model_load(arg, &in->model, &err) != KCBP_OK)
        return kcbp_cli_fail(&err);
    in->is_model = true;
    return KCBP_EXIT_OK;
}

cJSON *kcbp_cli_2d_vec2(kcbp_vec2 p)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(p.x + 0.0)); /* + 0.0: no "-0" */
    cJSON_AddItemToArray(a, cJSON_CreateNumber(p.y + 0.0));
    return a;
}

cJSON *kcbp_cli_2d_describe(const input2d *in)
{
    cJSON *o = cJSON_CreateObject();
    if (in->is_model && !is_2d_shape(in->arg)) {
        cJSON_AddStringToObject(o, "file", in->arg);
        cJSON_AddNumberToObject(o, "vertices", kcbp2d_model_vertex_count(in->model));
        cJSON_AddNumberToObject(o, "rings", kcbp2d_model_ring_count(in->model));
        return o;
    }
    const kcbp2d_shape *s = &in->shape;
    cJSON_AddStringToObject(o, "shape", kcbp2d_shape_kind_name(s->kind));
    if (s->kind == KCBP2D_BOX) {
        cJSON *size = kcbp_cli_2d_vec2(kcbp_v2_scale(s->local[0], 2));
        cJSON_AddItemToObject(o, "size", size);
    } else if (s->kind == KCBP2D_CAPSULE) {
        cJSON_AddNumberToObject(o, "length", s->local[1].x - s->local[0].x);
    }
    cJSON_AddNumberToObject(o, "radius", s->radius);
    return o;
}

typedef struct {
    const char *pose_a, *pose_b, *poses;
    const char *html; /* --html FILE, or NULL */
    double margin;
    long max_contacts;
    bool is_signed, pretty;
    const char *a, *b;
} args2d;

static int parse_args(const char *cmd, int argc, char **argv, args2d *a, bool *help)
{
    static const struct option longopts[] = {
        {"pose-a", required_argument, NULL, 'a'}, {"pose-b", required_argument, NULL, 'b'},
        {"margin", required_argument, NULL, 'g'}, {"max-contacts", required_argument, NULL, 'm'},
        {"signed", no_argument, NULL, 's'},       {"pretty", no_argument, NULL, 'P'},
        {"poses", required_argument, NULL, 'p'},  {"help", no_argument, NULL, 'h'},
        {"html", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->max_contacts = KCBP_CLI_MAX_CONTACTS_DEFAULT;
    *help = false;
    bool collide = !strcmp(cmd, "collide");
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': a->pose_a = optarg; break;
        case 'b': a->pose_b = optarg; break;
        case 'p': a->poses = optarg; break;
        case 'H': a->html = optarg; break;
        case 'P': a->pretty = true; break;
        case 'h': *help = true; return KCBP_EXIT_OK;
        case 's':
            if (collide)
                return kcbp_cli_usage_error(cmd, "--signed is an option of kcbp distance");
            a->is_signed = true;
            break;
        case 'g': {
            char *end;
            a->margin = strtod(optarg, &end);
            if (!collide || end == optarg || *end || !isfinite(a->margin) || a->margin < 0)
                return kcbp_cli_usage_error(cmd, collide ? "--margin '%s': not a number >= 0"
                                                         : "--margin '%s': an option of kcbp collide",
                                            optarg);
            break;
        }
        case 'm':
            if (!collide || !kcbp_cli_parse_int(optarg, 1, KCBP_CLI_MAX_CONTACTS_MAX, &a->max_contacts))
                return kcbp_cli_usage_error(cmd, "--max-contacts '%s': a whole number 1 .. 100000000 (kcbp collide)",
                                            optarg);
            break;
        case ':': return kcbp_cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return kcbp_cli_usage_error(cmd, "'%s' is not an option for 2D inputs (see kcbp %s A B --help with a 2D A)",
                                        argv[optind - 1], cmd);
        }
    }
    if (argc - optind != 2)
        return kcbp_cli_usage_error(cmd, "expected two inputs A and B, got %d", argc - optind);
    a->a = argv[optind], a->b = argv[optind + 1];
    if (a->poses && a->pose_b)
        return kcbp_cli_usage_error(cmd, "--poses gives the poses of B: do not combine it with --pose-b");
    for (int i = 0; i < 2; i++) {
        const char *x = i ? a->b : a->a, *y = i ? a->a : a->b;
        if (!is_2d_input(x))
            return kcbp_cli_usage_error(cmd, "%s is 2D but %s is not (a GeoJSON or SVG file, or circle:, rect:, capsule2d:): "
                                        "2D and 3D inputs cannot be mixed",
                                        y, x);
    }
    return KCBP_EXIT_OK;
}

static int read_pose(const char *cmd, const char *which, const char *text, kcbp2d_pose *p)
{
    if (!text) {
        *p = kcbp2d_pose_identity();
        return KCBP_EXIT_OK;
    }
    kcbp_error err;
    if (kcbp2d_pose_parse(text, p, &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "--pose-%s: %s", which, err.msg);
    return KCBP_EXIT_OK;
}

/* One pose's answer, printed (index >= 0: a line of --poses). */
static int answer(const char *cmd, const args2d *a, const input2d *ia_in, const input2d *ib_in, const kcbp2d_pose *pa_,
                  const kcbp2d_pose *pb_, long index)
{
    int rc = KCBP_EXIT_OK;
    kcbp2d_pose pa = *pa_, pb = *pb_;
    input2d ia = *ia_in, ib = *ib_in;
    /* a file against a shape: the library takes the shape as B; a shape
     * given as A is swapped in, and the answer swapped back */
    bool swap = !ia.is_model && ib.is_model;
    const input2d *ma = swap ? &ib : &ia, *mb = swap ? &ia : &ib;
    const kcbp2d_pose *qa = swap ? &pb : &pa, *qb = swap ? &pa : &pb;
    kcbp_error err;
    cJSON *out = cJSON_CreateObject();
    bool models = ia.is_model || ib.is_model;
    if (!strcmp(cmd, "collide")) {
        if (models) {
            kcbp2d_model_collide_options o = kcbp2d_model_collide_options_default();
            o.margin = a->margin;
            kcbp2d_edge_pair *pairs = malloc((size_t)a->max_contacts * sizeof *pairs);
            o.contacts = pairs, o.contacts_capacity = (uint32_t)a->max_contacts;
            kcbp2d_model_collide_result r;
            kcbp_status st = !pairs ? KCBP_ERR_NOMEM
                             : mb->is_model ? kcbp2d_model_collide(ma->model, qa, mb->model, qb, &o, &r, &err)
                                            : kcbp2d_model_shape_collide(ma->model, qa, &mb->shape, qb, &o, &r, &err);
            if (st != KCBP_OK) {
                free(pairs);
                cJSON_Delete(out);
                rc = pairs ? kcbp_cli_fail(&err) : KCBP_EXIT_NOMEM;
                return rc;
            }
            cJSON_AddBoolToObject(out, "collide", r.collide);
            cJSON *cs = cJSON_AddArrayToObject(out, "contacts");
            for (uint32_t i = 0; i < r.ncontacts; i++) {
                /* a shape's side is named null, as in the 3D reports */
                uint32_t eb = mb->is_model ? pairs[i].b : KCBP_SHAPE_FEATURE;
                cJSON_AddItemToArray(cs, swap ? kcbp_cli_json_pair(eb, pairs[i].a) : kcbp_cli_json_pair(pairs[i].a, eb));
            }
            if (r.contacts_truncated)
                cJSON_AddBoolToObject(out, "contacts_truncated", true);
            static const char *const cont[] = {"none", "a_in_b", "b_in_a"};
            int ci = (int)r.contained;
            if (swap && ci)
                ci = 3 - ci;
            cJSON_AddStringToObject(out, "contained", cont[ci]);
            free(pairs);
        } else {
            kcbp2d_collide_options o = kcbp2d_collide_options_default();
            o.margin = a->margin;
            kcbp2d_collide_result r;
            if (kcbp2d_collide(&ia.shape, &pa, &ib.shape, &pb, &o, &r, &err) != KCBP_OK) {
                cJSON_Delete(out);
                rc = kcbp_cli_fail(&err);
                return rc;
            }
            static const char *const how[] = {"sat", "filter", "exact"};
            cJSON_AddBoolToObject(out, "collide", r.collide);
            cJSON_AddStringToObject(out, "decided_by", how[r.decided_by]);
            /* as the 3D shapes' reports: a shape has no edges to name */
            cJSON *cs = cJSON_AddArrayToObject(out, "contacts");
            if (r.collide)
                cJSON_AddItemToArray(cs, kcbp_cli_json_pair(KCBP_SHAPE_FEATURE, KCBP_SHAPE_FEATURE));
        }
    } else if (models) {
        kcbp2d_model_distance_result r;
        kcbp_status st = mb->is_model ? kcbp2d_model_distance(ma->model, qa, mb->model, qb, &r, &err)
                                      : kcbp2d_model_shape_distance(ma->model, qa, &mb->shape, qb, &r, &err);
        if (!mb->is_model && r.edge_b != UINT32_MAX)
            r.edge_b = KCBP_SHAPE_FEATURE;
        if (swap) {
            kcbp_vec2 t = r.point_a;
            r.point_a = r.point_b, r.point_b = t;
            uint32_t e = r.edge_a;
            r.edge_a = r.edge_b, r.edge_b = e;
        }
        if (st != KCBP_OK) {
            cJSON_Delete(out);
            rc = kcbp_cli_fail(&err);
            return rc;
        }
        cJSON_AddNumberToObject(out, "distance", r.distance);
        if (!r.collide || r.edge_a != UINT32_MAX) {
            cJSON_AddItemToObject(out, "point_a", kcbp_cli_2d_vec2(r.point_a));
            cJSON_AddItemToObject(out, "point_b", kcbp_cli_2d_vec2(r.point_b));
            cJSON_AddItemToObject(out, "edges", kcbp_cli_json_pair(r.edge_a, r.edge_b));
        }
        if (a->is_signed) {
            cJSON_AddStringToObject(out, "status", r.collide ? "penetrating" : "apart");
            kcbp2d_model_depth_result dr;
            kcbp_status ds = !r.collide   ? KCBP_ERR_INVALID
                             : mb->is_model ? kcbp2d_model_depth(ma->model, qa, mb->model, qb, NULL, &dr, &err)
                                            : kcbp2d_model_shape_depth(ma->model, qa, &mb->shape, qb, NULL, &dr, &err);
            if (ds == KCBP_OK && dr.collide) {
                /* the certified bracket (polygon2d.h); swapped inputs move A instead: the opposite way */
                kcbp_vec2 n = swap ? kcbp_v2_neg(dr.normal) : dr.normal;
                /* as the 3D meshes' report: touching within the tolerance reads as depth 0 */
                cJSON_ReplaceItemInObject(out, "status", cJSON_CreateString(dr.touching ? "touching" : "bracketed"));
                cJSON_AddNumberToObject(out, "signed_distance", dr.touching ? 0 : -dr.depth_upper);
                cJSON_AddNumberToObject(out, "depth", dr.touching ? 0 : dr.depth_upper);
                cJSON_AddNumberToObject(out, "depth_lower", dr.depth_lower);
                cJSON_AddNumberToObject(out, "depth_upper", dr.depth_upper);
                cJSON_AddItemToObject(out, "normal", kcbp_cli_2d_vec2(n));
                cJSON_AddItemToObject(out, "translation", kcbp_cli_2d_vec2(kcbp_v2_scale(n, dr.depth_upper)));
            } else if (r.collide) { /* the bracket failed (out of memory): no depth */
                cJSON_AddNullToObject(out, "signed_distance");
                cJSON_AddNullToObject(out, "depth");
            } else { /* apart: the fields of the 3D report, zero depth */
                cJSON_AddNumberToObject(out, "signed_distance", r.distance);
                cJSON_AddNumberToObject(out, "depth", 0);
                cJSON_AddNumberToObject(out, "depth_lower", 0);
                cJSON_AddNumberToObject(out, "depth_upper", 0);
                kcbp_vec2 d = kcbp_v2_sub(r.point_b, r.point_a);
                double l = kcbp_v2_len(d);
                cJSON_AddItemToObject(out, "normal", kcbp_cli_2d_vec2(l > 0 ? kcbp_v2_scale(d, 1 / l) : kcbp_v2_make(0, 0)));
                cJSON_AddItemToObject(out, "translation", kcbp_cli_2d_vec2(kcbp_v2_make(0, 0)));
            }
        }
    } else {
        kcbp2d_distance_result r;
        if (kcbp2d_distance(&ia.shape, &pa, &ib.shape, &pb, NULL, &r, &err) != KCBP_OK) {
            cJSON_Delete(out);
            rc = kcbp_cli_fail(&err);
            return rc;
        }
        cJSON_AddNumberToObject(out, "distance", r.distance);
        cJSON_AddItemToObject(out, "point_a", kcbp_cli_2d_vec2(r.point_a));
        cJSON_AddItemToObject(out, "point_b", kcbp_cli_2d_vec2(r.point_b));
        if (a->is_signed) {
            /* the 3D report's names (kcbp_sdist_status_name): "penetrating"
             * for an overlap of convex shapes, its depth exact to rounding */
            static const char *const names[] = {"apart", "touching", "penetrating"};
            cJSON_AddStringToObject(out, "status", names[r.status]);
            cJSON_AddNumberToObject(out, "signed_distance", r.signed_distance);
            cJSON_AddNumberToObject(out, "depth", r.depth);
            cJSON_AddNumberToObject(out, "depth_lower", r.depth);
            cJSON_AddNumberToObject(out, "depth_upper", r.depth);
            cJSON_AddItemToObject(out, "normal", kcbp_cli_2d_vec2(r.normal));
            cJSON_AddItemToObject(out, "translation", kcbp_cli_2d_vec2(kcbp_v2_scale(r.normal, r.depth)));
        }
    }
    if (index <= 0) {
        cJSON_AddItemToObject(out, "a", kcbp_cli_2d_describe(&ia));
        cJSON_AddItemToObject(out, "b", kcbp_cli_2d_describe(&ib));
    }
    cJSON_AddNumberToObject(out, "dimensions", 2);
    if (index >= 0)
        cJSON_AddNumberToObject(out, "pose", (double)index);
    if (a->html && index <= 0) { /* the page first: when it fails, no answer is printed */
        kcbp_html2d_input ha = {a->a, ia_in->model, &ia_in->shape, *pa_},
                          hb = {a->b, ib_in->model, &ib_in->shape, *pb_};
        if ((rc = kcbp_html2d_write(a->html, cmd, &ha, &hb, a->margin, out)) != KCBP_EXIT_OK) {
            cJSON_Delete(out);
            return rc;
        }
    }
    return kcbp_cli_print_json(out, a->pretty && index < 0);
}

static int run(const char *cmd, int argc, char **argv)
{
    args2d a;
    bool help;
    int rc = parse_args(cmd, argc, argv, &a, &help);
    if (rc != KCBP_EXIT_OK)
        return rc;
    if (help) {
        fputs(twod_help, stdout);
        return kcbp_cli_flush();
    }
    kcbp2d_pose pa, pb;
    if ((rc = read_pose(cmd, "a", a.pose_a, &pa)) != KCBP_EXIT_OK ||
        (rc = read_pose(cmd, "b", a.pose_b, &pb)) != KCBP_EXIT_OK)
        return rc;
    input2d ia, ib;
    if ((rc = kcbp_cli_2d_load(cmd, a.a, &ia)) != KCBP_EXIT_OK)
        return rc;
    if ((rc = kcbp_cli_2d_load(cmd, a.b, &ib)) != KCBP_EXIT_OK) {
        kcbp2d_model_free(ia.model);
        return rc;
    }
    if (!a.poses) {
        rc = answer(cmd, &a, &ia, &ib, &pa, &pb, -1);
        if (rc == KCBP_EXIT_OK)
            rc = kcbp_cli_flush();
        goto done;
    }
    kcbp_cli_poses2d reader;
    kcbp_error perr;
    if (kcbp_cli_poses2d_open(&reader, a.poses, 3, &perr) != KCBP_OK) {
        rc = kcbp_cli_fail(&perr);
        goto done;
    }
    /* a pose, its answer, its line; the answers before a bad pose stay */
    for (long index = 0; rc == KCBP_EXIT_OK; index++) {
        double v[3];
        bool end;
        if (kcbp_cli_poses2d_next(&reader, v, &end, &perr) != KCBP_OK) {
            rc = kcbp_cli_flush() == KCBP_EXIT_OK ? kcbp_cli_fail(&perr) : KCBP_EXIT_NOMEM;
            break;
        }
        if (end)
            break;
        if (kcbp2d_pose_from_angle(v[0], v[1], v[2], &pb, &perr) != KCBP_OK) {
            kcbp_cli_poses2d_blame(&reader, &perr);
            rc = kcbp_cli_flush() == KCBP_EXIT_OK ? kcbp_cli_fail(&perr) : KCBP_EXIT_NOMEM;
            break;
        }
        rc = answer(cmd, &a, &ia, &ib, &pa, &pb, index);
        if (rc == KCBP_EXIT_OK && reader.is_stdin) /* a pipeline sees each answer */
            rc = kcbp_cli_flush();
    }
    if (rc == KCBP_EXIT_OK)
        rc = kcbp_cli_flush();
    kcbp_cli_poses2d_close(&reader);
done:
    kcbp2d_model_free(ia.model);
    kcbp2d_model_free(ib.model);
    return rc;
}

int kcbp_cli_collide2d(int argc, char **argv) { return run("collide", argc, argv); }
int kcbp_cli_distance2d(int argc, char **argv) { return run("distance", argc, argv); }
