/* What kcbp collide and kcbp distance share: two meshes, A's pose, and B's
 * pose or a stream of B's poses, each answered and written before the next
 * is read. */
#include <string.h>

#include "cli.h"

/* Loads one mesh and builds its model, timing both steps. */
kcbp_status kcbp_cli_load_model(const char *path, const kcbp_model_options *opts, kcbp_model *model,
                                kcbp_timings *t, kcbp_error *err)
{
    return kcbp_cli_load_model_as(path, opts, false, model, t, err);
}

kcbp_status kcbp_cli_load_model_as(const char *path, const kcbp_model_options *opts, bool solid_if_closed,
                                   kcbp_model *model, kcbp_timings *t, kcbp_error *err)
{
    double t0 = kcbp_cli_now_ms();
    if (kcbp_cli_is_shape(path)) {
        kcbp_status st = kcbp_cli_build_shape(path, model, err);
        t->build_ms += kcbp_cli_now_ms() - t0;
        return st;
    }
    kcbp_mesh *mesh;
    kcbp_status st = kcbp_mesh_load(path, &mesh, err);
    double t1 = kcbp_cli_now_ms();
    t->load_ms += t1 - t0;
    if (st != KCBP_OK)
        return st;
    kcbp_model_options o = *opts;
    if (solid_if_closed && !o.solid) {
        kcbp_error ignored;
        o.solid = kcbp_mesh_check_solid(mesh, NULL, &ignored) == KCBP_OK;
    }
    st = kcbp_model_build(model, mesh, &o, err);
    t->build_ms += kcbp_cli_now_ms() - t1;
    if (st != KCBP_OK)
        kcbp_error_prefix(err, path); /* "file: problem", as for the reader's errors */
    return st;
}

int kcbp_cli_pair_query(const char *cmd, const kcbp_cli_pair_args *args, kcbp_cli_pose_fn answer, void *ctx)
{
    int per_line = args->poses_per_line == 2 ? 2 : 1;
    const char *file_opt = per_line == 2 ? "--sweeps" : "--poses";
    if (args->poses_file && (args->pose_b || args->pose_b_to))
        return kcbp_cli_usage_error(cmd, "%s gives the poses of B: do not combine it with %s", file_opt,
                                    per_line == 2 ? "--from or --to" : "--pose-b");
    if (args->poses_file && !strcmp(args->poses_file, "-") &&
        (!strcmp(args->path_a, "-") || !strcmp(args->path_b, "-")))
        return kcbp_cli_usage_error(cmd, "standard input ('-') can be the poses or a mesh, not both");
    kcbp_cli_pair p;
    kcbp_error err = {0};
    memset(&p, 0, sizeof p);
    p.pose_a = kcbp_pose_identity();
    kcbp_pose pose_b[2] = {kcbp_pose_identity(), kcbp_pose_identity()};
    const char *b_opt = per_line == 2 ? "--from" : "--pose-b";
    if (args->pose_a && kcbp_pose_parse(args->pose_a, &p.pose_a, &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "--pose-a: %s", err.msg);
    if (args->pose_b && kcbp_pose_parse(args->pose_b, &pose_b[0], &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "%s: %s", b_opt, err.msg);
    if (args->pose_b_to && kcbp_pose_parse(args->pose_b_to, &pose_b[1], &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "--to: %s", err.msg);
    kcbp_pose_reader *reader = NULL;
    if (args->poses_file && kcbp_pose_reader_open(&reader, args->poses_file, &err) != KCBP_OK)
        return kcbp_cli_fail(&err);

    kcbp_model model_a, model_b;
    bool same = !strcmp(args->path_a, args->path_b);
    memset(&model_a, 0, sizeof model_a);
    memset(&model_b, 0, sizeof model_b);
    kcbp_status st = kcbp_cli_load_model_as(args->path_a, args->model, args->solid_if_closed, &model_a, &p.times, &err);
    if (st == KCBP_OK && !same)
        st = kcbp_cli_load_model_as(args->path_b, args->model, args->solid_if_closed, &model_b, &p.times, &err);
    p.a = &model_a;
    p.b = same ? &model_a : &model_b;

    /* A pose, its answer, its line: constant memory, and the lines are
     * flushed whenever the next pose is not there yet, so that a pipeline
     * sees each answer while its input is still coming. A bad pose stops
     * the run after the answers to the poses before it. */
    int rc = KCBP_EXIT_OK;
    if (reader && st == KCBP_OK) /* a stream: the count and the rate, no total */
        kcbp_cli_progress_begin(cmd, per_line == 2 ? "sweeps" : "poses", 0);
    for (long i = 0; st == KCBP_OK && rc == KCBP_EXIT_OK; i++) {
        kcbp_pose pose[2] = {pose_b[0], pose_b[1]};
        if (reader) {
            bool done;
            if (!kcbp_pose_reader_ready(reader) && (rc = kcbp_cli_flush()) != KCBP_EXIT_OK)
                break;
            if ((st = kcbp_pose_reader_next_n(reader, pose, per_line, &done, &err)) != KCBP_OK || done)
                break;
        } else if (i > 0) {
            break;
        }
        rc = answer(ctx, &p, pose, reader ? i : -1, &err);
        if (rc < 0) { /* the answer failed: err says why */
            st = err.code != KCBP_OK ? err.code : KCBP_ERR_NOMEM;
            rc = KCBP_EXIT_OK;
        } else if (reader) {
            kcbp_cli_progress_add(1);
        }
    }
    if (reader)
        kcbp_cli_progress_end();
    if (rc == KCBP_EXIT_OK)
        rc = kcbp_cli_flush(); /* the answers before a bad pose stay answered */
    if (rc == KCBP_EXIT_OK && st != KCBP_OK)
        rc = kcbp_cli_fail(&err);
    kcbp_pose_reader_close(reader);
    kcbp_model_free(&model_a);
    kcbp_model_free(&model_b);
    return rc;
}

int kcbp_cli_print_answer(cJSON *line, const char *index_key, long index, bool pretty, kcbp_error *err)
{
    if (line && index >= 0 && !cJSON_AddNumberToObject(line, index_key, (double)index)) {
        cJSON_Delete(line);
        line = NULL;
    }
    if (!line) {
        kcbp_error_set(err, KCBP_ERR_NOMEM, "out of memory for the report");
        return -1;
    }
    return kcbp_cli_print_json(line, pretty && index < 0);
}

int kcbp_cli_parse_k(const char *cmd, const char *arg, kcbp_model_options *model)
{
    long k;
    if (!kcbp_cli_parse_int(arg, KCBP_CBP_K_MIN, KCBP_CBP_K_MAX, &k))
        return kcbp_cli_usage_error(cmd, "-k takes a whole number from %d to %d, not '%s'", KCBP_CBP_K_MIN,
                                    KCBP_CBP_K_MAX, arg);
    model->k = (int)k;
    return KCBP_EXIT_OK;
}

int kcbp_cli_parse_dirs(const char *cmd, const char *arg, kcbp_model_options *model)
{
    kcbp_error err;
    if (kcbp_cbp_dirs_parse(arg, &model->dirs, &err) != KCBP_OK)
        return kcbp_cli_usage_error(cmd, "--dirs: %s", err.msg);
    return KCBP_EXIT_OK;
}

int kcbp_cli_bad_option(const char *cmd, int c, char **argv)
{
    if (c == ':')
        return kcbp_cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
    return kcbp_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int kcbp_cli_pair_paths(const char *cmd, int argc, char **argv, bool use_cbp, kcbp_cli_pair_args *pair,
                        kcbp_model_options *model)
{
    if (argc - optind != 2)
        return kcbp_cli_usage_error(cmd, "expected two mesh files or shapes, got %d", argc - optind);
    for (int i = 0; i < 2; i++) {
        int rc = kcbp_cli_check_shape_arg(cmd, argv[optind + i]);
        if (rc != KCBP_EXIT_OK)
            return rc;
    }
    if (!use_cbp)
        model->k = 0;
    model->k_fine = 0;
    pair->path_a = argv[optind];
    pair->path_b = argv[optind + 1];
    return KCBP_EXIT_OK;
}
