/* kcbp self: the triangle pairs of one mesh that intersect other than along
 * what they share (kcbp_self_intersections). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_line.h"
#include "view.h"

static const char self_help[] =
    "usage: kcbp self MESH.obj [--contacts none|first|all] [--max-contacts N] [--pretty] [--html FILE]\n"
    "                 [--export FILE.glb]\n"
    "\n"
    "Tells whether a triangle mesh intersects itself, and which triangles do:\n"
    "pairs that meet other than along the edges and vertices they share\n"
    "(CGAL's does_self_intersect), exact, the mesh's AABB tree against itself.\n"
    "Vertices are identified by their coordinates.\n"
    "\n"
    "  --contacts MODE  none: the answer only; first: one pair;\n"
    "                   all (default; unlike collide's first, because a self-crossing\n"
    "                   mesh is repaired where it crosses, and that is every pair):\n"
    "                   every intersecting pair\n"
    "  --max-contacts N list at most N pairs and stop the search at N + 1: a mesh\n"
    "                   with more says \"truncated\": true, \"pairs_found\" (a lower\n"
    "                   bound) and \"stopped\": \"max_contacts\"\n"
    "  --pretty         indent the JSON\n"
    "  --html FILE      also write a page that shows the mesh in a browser (no network),\n"
    "                   the triangles of the pairs listed red\n"
    "  --export FILE.glb  the same as one binary glTF 2.0 file; both are written\n"
    "                   before the answer is printed\n"
    "\n"
    "Output: {\"self_intersect\", \"pairs\": [[t, u], ...] (0-based triangles, t < u),\n"
    "\"mesh\", \"stats\"}.\n"
    "Exit status: 0 whatever the answer, 2 for a usage error, 3 for bad input.\n";

int kcbp_cli_self(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"contacts", required_argument, NULL, 'c'},
        {"max-contacts", required_argument, NULL, 'm'},
        {"pretty", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {"html", required_argument, NULL, 'H'},
        {"export", required_argument, NULL, 'E'},
        {NULL, 0, NULL, 0},
    };
    kcbp_contacts_mode mode = KCBP_CONTACTS_ALL;
    long max_contacts = -1; /* --max-contacts: -1, every pair */
    bool pretty = false;
    const char *html = NULL, *export_glb = NULL;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'P': pretty = true; break;
        case 'H': html = optarg; break;
        case 'E':
            if (kcbp_view_export_kind_of(optarg) != KCBP_VIEW_EXPORT_GLB)
                return kcbp_view_export_usage("self", optarg, false);
            export_glb = optarg;
            break;
        case 'h': fputs(self_help, stdout); return KCBP_EXIT_OK;
        case 'm':
            if (!kcbp_cli_parse_max_contacts("self", optarg, &max_contacts))
                return KCBP_EXIT_USAGE;
            break;
        case 'c':
            if (!strcmp(optarg, "none"))
                mode = KCBP_CONTACTS_NONE;
            else if (!strcmp(optarg, "first"))
                mode = KCBP_CONTACTS_FIRST;
            else if (!strcmp(optarg, "all"))
                mode = KCBP_CONTACTS_ALL;
            else
                return kcbp_cli_usage_error("self", "--contacts takes none, first or all, not '%s'", optarg);
            break;
        case ':': return kcbp_cli_usage_error("self", "%s needs a value", argv[optind - 1]);
        default: return kcbp_cli_usage_error("self", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return kcbp_cli_usage_error("self", "expected one mesh file, got %d", argc - optind);
    const char *path = argv[optind];
    int src = kcbp_cli_check_shape_arg("self", path);
    if (src != KCBP_EXIT_OK)
        return src;

    kcbp_error err = {0};
    kcbp_mesh *mesh;
    kcbp_model model;
    memset(&model, 0, sizeof model);
    double t0 = kcbp_cli_now_ms();
    /* a shape is convex: it never intersects itself (no pairs) */
    bool shape = kcbp_cli_is_shape(path);
    kcbp_status st = shape ? KCBP_OK : kcbp_mesh_load(path, &mesh, &err);
    double t1 = kcbp_cli_now_ms();
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k = 0; /* no k-CBP: only the tree is used */
    if (shape)
        st = kcbp_cli_build_shape(path, &model, &err);
    else if (st == KCBP_OK && (st = kcbp_model_build(&model, mesh, &mo, &err)) != KCBP_OK)
        kcbp_error_prefix(&err, path);
    double t2 = kcbp_cli_now_ms();
    kcbp_contact *pairs = NULL;
    size_t npairs = 0;
    kcbp_tree_stats stats;
    if (st == KCBP_OK)
        st = kcbp_self_intersections_capped(&model, mode, max_contacts >= 0 ? (uint64_t)max_contacts + 1 : 0, &pairs,
                                            &npairs, &stats, &err);
    double t3 = kcbp_cli_now_ms();
    int rc;
    if (st != KCBP_OK) {
        rc = kcbp_cli_fail(&err);
    } else {
        kcbp_jl w;
        kcbp_jl_init(&w);
        kcbp_jl_open(&w, '{');
        kcbp_jl_key(&w, "self_intersect");
        kcbp_jl_bool(&w, npairs > 0);
        if (mode != KCBP_CONTACTS_NONE) {
            kcbp_jl_key(&w, "pairs");
            kcbp_jl_open(&w, '[');
            size_t listed = max_contacts >= 0 && npairs > (size_t)max_contacts ? (size_t)max_contacts : npairs;
            for (size_t i = 0; i < listed; i++) {
                kcbp_jl_open(&w, '[');
                kcbp_jl_uint(&w, pairs[i].a);
                kcbp_jl_uint(&w, pairs[i].b);
                kcbp_jl_close(&w, ']');
            }
            kcbp_jl_close(&w, ']');
            if (listed < npairs) {
                kcbp_jl_key(&w, "truncated");
                kcbp_jl_bool(&w, true);
                kcbp_jl_key(&w, "pairs_found");
                kcbp_jl_uint(&w, npairs);
                kcbp_jl_key(&w, "stopped");
                kcbp_jl_string(&w, "max_contacts");
            }
        }
        kcbp_jl_key(&w, "mesh");
        kcbp_jl_open(&w, '{');
        if (shape) {
            kcbp_cli_jl_shape(&w, &model);
        } else {
            kcbp_jl_key(&w, "vertices");
            kcbp_jl_uint(&w, kcbp_mesh_vertex_count(kcbp_model_mesh(&model)));
            kcbp_jl_key(&w, "triangles");
            kcbp_jl_uint(&w, kcbp_mesh_triangle_count(kcbp_model_mesh(&model)));
            kcbp_jl_key(&w, "degenerate_triangles");
            kcbp_jl_uint(&w, kcbp_mesh_degenerate_count(kcbp_model_mesh(&model)));
        }
        kcbp_jl_close(&w, '}');
        kcbp_jl_key(&w, "stats");
        kcbp_jl_open(&w, '{');
        kcbp_jl_key(&w, "box_pairs");
        kcbp_jl_uint(&w, stats.box_pairs);
        kcbp_jl_key(&w, "triangle_pairs");
        kcbp_jl_uint(&w, stats.tri_pairs);
        kcbp_jl_key(&w, "load_ms");
        kcbp_jl_double(&w, t1 - t0);
        kcbp_jl_key(&w, "build_ms");
        kcbp_jl_double(&w, t2 - t1);
        kcbp_jl_key(&w, "query_ms");
        kcbp_jl_double(&w, t3 - t2);
        kcbp_jl_close(&w, '}');
        kcbp_jl_close(&w, '}');
        char *text = kcbp_jl_finish(&w);
        if (text && (html || export_glb)) { /* the files first: a failure prints no line */
            kcbp_view_pair vp;
            kcbp_view_pair_init(&vp, "self", path, path, &model, &model);
            snprintf(vp.title, sizeof vp.title, "kcbp self: %s", path);
            rc = KCBP_EXIT_NOMEM;
            if (kcbp_view_pair_add(&vp, "mesh", 0, &(kcbp_pose){kcbp_mat3_identity(), {0, 0, 0}}, KCBP_VIEW_SOLID,
                                   kcbp_view_color(0))) {
                kcbp_view_pair_mark(&vp, 0, 0, pairs, npairs);
                vp.view.answer = text;
                rc = kcbp_view_emit(&vp.view, html, export_glb);
            }
            kcbp_view_pair_free(&vp);
            if (rc != KCBP_EXIT_OK) {
                free(text);
                free(pairs);
                kcbp_model_free(&model);
                return rc;
            }
        }
        if (!text) {
            fprintf(stderr, "kcbp: out of memory while writing the report\n");
            rc = KCBP_EXIT_NOMEM;
        } else if (pretty) {
            cJSON *doc = cJSON_Parse(text);
            free(text);
            rc = doc ? kcbp_cli_print_json(doc, true) : KCBP_EXIT_NOMEM;
            if (!doc)
                fprintf(stderr, "kcbp: out of memory while writing the report\n");
        } else {
            rc = kcbp_cli_print_text(text);
        }
    }
    free(pairs);
    kcbp_model_free(&model);
    return rc;
}
