/* kcbp cbp: build a mesh's k-CBP and report how tight it is. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: kcbp cbp MESH.obj [-k K] [--dirs greedy|thesis|fixed|kdop] [-o OUT.obj] [--pretty]\n"
            "\n"
            "Builds the k-CBP of the mesh (the intersection of K supporting half-spaces) and\n"
            "prints a JSON report: planes and vertices obtained, the volumes of the k-CBP,\n"
            "the convex hull, the bounding box and the k-DOP with the same k (the classic\n"
            "axis/corner/edge directions for k = 6, 14, 18, 26, else the fixed directions),\n"
            "each volume's ratio to the hull's, and the build time.\n"
            "\n"
            "  -k K         number of planes, %d..%d (default %d)\n"
            "  --dirs D     greedy (default): drop the hull plane adding the least volume\n"
            "               until K remain; thesis: largest hull faces + spherical k-means\n"
            "               of face normals; fixed: Fibonacci sphere; kdop: classic k-DOP\n"
            "  -o OUT.obj   write the polytope as an OBJ file ('-': to stdout, and the report\n"
            "               to stderr)\n"
            "  --pretty     indent the JSON\n"
            "\n"
            "MESH.obj '-' is standard input.\n"
            "Exit status: 0 success, 2 bad command line, 3 bad input, 4 out of memory or a\n"
            "failed write.\n",
            KCBP_CBP_K_MIN, KCBP_CBP_K_MAX, KCBP_CBP_K_DEFAULT);
}

static cJSON *volume_entry(double volume, double hull)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "volume", volume);
    cJSON_AddNumberToObject(o, "ratio_to_hull", hull > 0 ? volume / hull : 0);
    return o;
}

int kcbp_cli_cbp(int argc, char **argv)
{
    const char *cmd = "cbp", *mesh_path = NULL, *out_path = NULL;
    long k = KCBP_CBP_K_DEFAULT;
    kcbp_cbp_dirs dirs = KCBP_DIRS_GREEDY;
    bool pretty = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return KCBP_EXIT_OK;
        } else if (!strcmp(a, "-k")) {
            if (i + 1 >= argc)
                return kcbp_cli_usage_error(cmd, "-k needs a value");
            if (!kcbp_cli_parse_int(argv[++i], KCBP_CBP_K_MIN, KCBP_CBP_K_MAX, &k))
                return kcbp_cli_usage_error(cmd, "-k must be an integer from %d to %d, not '%s'", KCBP_CBP_K_MIN,
                                            KCBP_CBP_K_MAX, argv[i]);
        } else if (!strcmp(a, "--dirs")) {
            if (i + 1 >= argc)
                return kcbp_cli_usage_error(cmd, "--dirs needs a value");
            kcbp_error err;
            if (kcbp_cbp_dirs_parse(argv[++i], &dirs, &err) != KCBP_OK)
                return kcbp_cli_usage_error(cmd, "%s", err.msg);
        } else if (!strcmp(a, "-o")) {
            if (i + 1 >= argc)
                return kcbp_cli_usage_error(cmd, "-o needs a file name");
            out_path = argv[++i];
        } else if (!strcmp(a, "--pretty")) {
            pretty = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return kcbp_cli_usage_error(cmd, "unknown option '%s'", a);
        } else if (!mesh_path) {
            mesh_path = a;
        } else {
            return kcbp_cli_usage_error(cmd, "one mesh only ('%s' is extra)", a);
        }
    }
    if (!mesh_path)
        return kcbp_cli_usage_error(cmd, "missing MESH.obj");
    if (kcbp_cli_is_shape(mesh_path))
        return kcbp_cli_usage_error(cmd, "'%s' is a shape: a shape is its own convex bound and has no k-CBP "
                                    "(a file of that name is ./%s)", mesh_path, mesh_path);

    kcbp_error err;
    kcbp_mesh *mesh;
    if (kcbp_mesh_load(mesh_path, &mesh, &err) != KCBP_OK)
        return kcbp_cli_fail(&err);
    const kcbp_vec3 *mv = kcbp_mesh_vertices(mesh);
    uint32_t nv = kcbp_mesh_vertex_count(mesh);
    kcbp_cbp *cbp = NULL, *kdop = NULL;
    double t0 = kcbp_cli_now_ms();
    kcbp_status st = kcbp_cbp_build(mv, nv, (int)k, dirs, &cbp, &err);
    double ms = kcbp_cli_now_ms() - t0;
    if (st != KCBP_OK) {
        kcbp_error_prefix(&err, mesh_path);
        kcbp_mesh_free(mesh);
        return kcbp_cli_fail(&err);
    }
    double hull = 0;
    st = kcbp_hull_volume(mv, nv, &hull, &err);
    if (st == KCBP_OK)
        st = kcbp_cbp_build(mv, nv, (int)k, KCBP_DIRS_KDOP, &kdop, &err);
    bool to_stdout = out_path && !strcmp(out_path, "-"), write_failed = false;
    if (st == KCBP_OK && out_path) {
        /* the whole OBJ under the output lock, a file removed if interrupted (interrupt.h) */
        if (to_stdout) {
            kcbp_cli_output_lock();
            st = kcbp_cbp_print_obj(cbp, NULL, stdout, "stdout", &err);
            kcbp_cli_output_unlock();
        } else {
            kcbp_cli_partial_begin(out_path);
            st = kcbp_cbp_write_obj(cbp, NULL, out_path, &err);
            kcbp_cli_partial_end(out_path);
        }
        write_failed = st != KCBP_OK;
    }
    if (st != KCBP_OK) {
        kcbp_cbp_free(cbp);
        kcbp_cbp_free(kdop);
        kcbp_mesh_free(mesh);
        int rc = kcbp_cli_fail(&err);
        return write_failed ? KCBP_EXIT_NOMEM : rc;
    }
    kcbp_aabb bounds = kcbp_mesh_bounds(mesh);
    kcbp_vec3 ext = kcbp_v3_sub(bounds.max, bounds.min);
    double aabb = ext.x * ext.y * ext.z;

    cJSON *doc = cJSON_CreateObject();
    kcbp_cli_add_string(doc, "mesh", mesh_path);
    cJSON_AddNumberToObject(doc, "mesh_vertices", nv);
    cJSON_AddStringToObject(doc, "dirs", kcbp_cbp_dirs_name(dirs));
    cJSON_AddNumberToObject(doc, "k_requested", (double)k);
    cJSON_AddNumberToObject(doc, "planes", kcbp_cbp_plane_count(cbp));
    cJSON_AddNumberToObject(doc, "vertices", kcbp_cbp_vertex_count(cbp));
    cJSON_AddNumberToObject(doc, "thickened_by", kcbp_cbp_thickness(cbp));
    cJSON *vol = cJSON_AddObjectToObject(doc, "volumes");
    cJSON_AddItemToObject(vol, "cbp", volume_entry(kcbp_cbp_volume(cbp), hull));
    cJSON_AddItemToObject(vol, "hull", volume_entry(hull, hull));
    cJSON_AddItemToObject(vol, "aabb", volume_entry(aabb, hull));
    cJSON *kd = volume_entry(kcbp_cbp_volume(kdop), hull);
    cJSON_AddNumberToObject(kd, "planes", kcbp_cbp_plane_count(kdop));
    cJSON_AddItemToObject(vol, "kdop", kd);
    cJSON_AddNumberToObject(doc, "build_ms", ms);
    if (out_path)
        kcbp_cli_add_string(doc, "output", out_path);
    kcbp_cbp_free(cbp);
    kcbp_cbp_free(kdop);
    kcbp_mesh_free(mesh);
    if (!to_stdout)
        return kcbp_cli_print_json(doc, pretty);
    /* stdout holds the OBJ: the report goes to stderr */
    char *text = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text) {
        fprintf(stderr, "kcbp: out of memory while writing the report\n");
        return KCBP_EXIT_NOMEM;
    }
    fprintf(stderr, "%s\n", text);
    cJSON_free(text);
    return KCBP_EXIT_OK;
}
