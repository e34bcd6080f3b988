#include "testutil.h"

#include "scene_layout.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

double test_rng_uniform(test_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (double)((r->s * UINT64_C(2685821657736338717)) >> 11) * 0x1.0p-53;
}

double test_rng_range(test_rng *r, double lo, double hi) { return lo + (hi - lo) * test_rng_uniform(r); }

kcbp_vec3 test_rng_unit_vector(test_rng *r)
{
    for (;;) {
        kcbp_vec3 v = kcbp_v3(test_rng_range(r, -1, 1), test_rng_range(r, -1, 1), test_rng_range(r, -1, 1));
        double l = kcbp_v3_len(v);
        if (l > 0.1 && l <= 1.0)
            return kcbp_v3_scale(v, 1.0 / l);
    }
}

kcbp_pose test_random_pose(test_rng *r, double reach)
{
    kcbp_pose p;
    kcbp_vec3 t = kcbp_v3(test_rng_range(r, -reach, reach), test_rng_range(r, -reach, reach),
                          test_rng_range(r, -reach, reach));
    assert_int_equal(kcbp_pose_from_axis_angle(t, test_rng_unit_vector(r), test_rng_range(r, 0, 360), &p, NULL),
                     KCBP_OK);
    return p;
}

void test_model_from_arrays(kcbp_model *m, const kcbp_vec3 *v, size_t nv, const kcbp_tri *t, size_t nt)
{
    kcbp_mesh mesh;
    kcbp_error err = {0};
    if (kcbp_mesh_init(&mesh, v, nv, t, nt, &err) != KCBP_OK || kcbp_model_build_from(m, &mesh, NULL, &err) != KCBP_OK)
        fail_msg("building a test model: %s", err.msg);
}

void test_model_box(kcbp_model *m, kcbp_vec3 lo, kcbp_vec3 hi)
{
    kcbp_vec3 v[8];
    for (int i = 0; i < 8; i++)
        v[i] = kcbp_v3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z);
    static const kcbp_tri t[12] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 5, 6}}, {{5, 7, 6}}, {{0, 1, 4}}, {{1, 5, 4}},
                                   {{2, 6, 3}}, {{3, 6, 7}}, {{0, 4, 2}}, {{2, 4, 6}}, {{1, 3, 5}}, {{3, 7, 5}}};
    test_model_from_arrays(m, v, 8, t, 12);
}

void test_model_load(kcbp_model *m, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "meshes/%s", name);
    kcbp_error err = {0};
    if (kcbp_model_load(m, path, NULL, &err) != KCBP_OK)
        fail_msg("loading %s: %s", path, err.msg);
}

void test_model_load_unit(kcbp_model *m, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "meshes/%s", name);
    kcbp_error err = {0};
    kcbp_mesh mesh;
    if (kcbp_obj_load_into(path, &mesh, &err) != KCBP_OK)
        fail_msg("loading %s: %s", path, err.msg);
    kcbp_vec3 c = kcbp_aabb_center(mesh.bounds), e = kcbp_aabb_extent(mesh.bounds);
    double s = 1.0 / fmax(e.x, fmax(e.y, e.z));
    for (uint32_t i = 0; i < mesh.nvertices; i++)
        mesh.vertices[i] = kcbp_v3_scale(kcbp_v3_sub(mesh.vertices[i], c), s);
    mesh.bounds.min = kcbp_v3_scale(kcbp_v3_sub(mesh.bounds.min, c), s);
    mesh.bounds.max = kcbp_v3_scale(kcbp_v3_sub(mesh.bounds.max, c), s);
    /* With a fine k-CBP, so that the cached tests exercise it too. */
    kcbp_model_options mo = kcbp_model_options_default();
    mo.k_fine = KCBP_CBP_K_FINE_DEFAULT;
    if (kcbp_model_build_from(m, &mesh, &mo, &err) != KCBP_OK)
        fail_msg("building %s: %s", path, err.msg);
}

const char *test_tmp_path(const char *dir, const char *name)
{
    static char path[8][512];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

const char *test_tmp_write(const char *dir, const char *name, const void *data, size_t len)
{
    const char *p = test_tmp_path(dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    return p;
}

const char *test_tmp_write_text(const char *dir, const char *name, const char *text)
{
    return test_tmp_write(dir, name, text, strlen(text));
}

bool test_contact_is_true(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b, const kcbp_pose *pose_b,
                          kcbp_contact c)
{
    kcbp_collide_options all = kcbp_collide_options_default();
    all.contacts = KCBP_CONTACTS_ALL;
    kcbp_collide_result r = {0};
    bool found = false;
    if (kcbp_collide(a, pose_a, b, pose_b, &all, &r, NULL) == KCBP_OK)
        for (size_t i = 0; i < r.ncontacts && !found; i++)
            found = r.contacts[i].a == c.a && r.contacts[i].b == c.b;
    kcbp_collide_result_free(&r);
    return found;
}

size_t test_brute_force_contacts(const kcbp_model *a, const kcbp_pose *pose_a, const kcbp_model *b,
                                 const kcbp_pose *pose_b, kcbp_contact **out)
{
    kcbp_pose rel = kcbp_pose_relative(pose_a, pose_b);
    double eps = kcbp_pair_tolerance(a->impl, b->impl, &rel);
    const kcbp_mesh *ma = &a->impl->mesh, *mb = &b->impl->mesh;
    kcbp_vec3 (*tb)[3] = malloc(mb->ntriangles * sizeof *tb);
    assert_non_null(tb);
    for (uint32_t j = 0; j < mb->ntriangles; j++)
        for (int k = 0; k < 3; k++)
            tb[j][k] = kcbp_pose_apply(&rel, mb->vertices[mb->triangles[j].v[k]]);
    size_t n = 0, cap = 64;
    kcbp_contact *c = malloc(cap * sizeof *c);
    assert_non_null(c);
    for (uint32_t i = 0; i < ma->ntriangles; i++) {
        kcbp_vec3 ta[3];
        for (int k = 0; k < 3; k++)
            ta[k] = ma->vertices[ma->triangles[i].v[k]];
        for (uint32_t j = 0; j < mb->ntriangles; j++) {
            if (!kcbp_tri_intersect(ta, tb[j], eps))
                continue;
            if (n == cap) {
                cap *= 2;
                c = realloc(c, cap * sizeof *c);
                assert_non_null(c);
            }
            c[n++] = (kcbp_contact){i, j};
        }
    }
    free(tb);
    *out = c;
    return n;
}

static char *slurp(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    for (;;) {
        if (n + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        assert_true(got >= 0);
        if (got == 0)
            break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

const char *test_kcbp_exe(void)
{
    const char *exe = getenv("KCBP_EXE");
    return exe && *exe ? exe : "./build/kcbp";
}

void test_run(test_run_result *r, const char *const *argv) { test_run_timeout(r, argv, 0); }

bool test_memory_checked(void)
{
    const char *exe = getenv("KCBP_EXE");
    return !exe || !*exe;
}

void test_run_timeout(test_run_result *r, const char *const *argv, double seconds)
{
    test_run_stdin(r, argv, seconds, NULL);
}

void test_run_stdin(test_run_result *r, const char *const *argv, double seconds, const char *stdin_path)
{
    test_run_io(r, argv, seconds, stdin_path, NULL);
}

void test_run_io(test_run_result *r, const char *const *argv, double seconds, const char *stdin_path,
                 const char *stdout_path)
{
    const char *args[64] = {test_kcbp_exe()};
    int argc = 1;
    for (; argv[argc - 1] && argc < 63; argc++)
        args[argc] = argv[argc - 1];
    args[argc] = NULL;
    char out_path[] = "/tmp/kcbp-run-out-XXXXXX", err_path[] = "/tmp/kcbp-run-err-XXXXXX";
    int o = mkstemp(out_path), e = mkstemp(err_path);
    assert_true(o >= 0 && e >= 0);
    unlink(out_path);
    unlink(err_path);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (stdin_path) {
            int i = open(stdin_path, O_RDONLY);
            if (i < 0)
                _exit(126);
            dup2(i, 0);
        }
        if (stdout_path) {
            int w = open(stdout_path, O_WRONLY);
            if (w < 0)
                _exit(126);
            dup2(w, 1);
        } else {
            dup2(o, 1);
        }
        dup2(e, 2);
        execv(args[0], (char **)args);
        _exit(127);
    }
    int status;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    r->timed_out = false;
    if (seconds > 0) {
        /* poll, and kill the program when it runs past its time: a hang */
        struct timespec t0, now, nap = {0, 2000000};
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            pid_t w = wait4(pid, &status, WNOHANG, &ru);
            assert_true(w >= 0);
            if (w == pid)
                break;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > seconds) {
                kill(pid, SIGKILL);
                assert_int_equal(wait4(pid, &status, 0, &ru), pid);
                r->timed_out = true;
                break;
            }
            nanosleep(&nap, NULL);
        }
    } else {
        assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    }
    r->maxrss_kb = ru.ru_maxrss;
    r->out = slurp(o, &r->out_len);
    r->err = slurp(e, NULL);
    close(o);
    close(e);
    if (r->timed_out)
        fail_msg("%s %s still running after %g s: killed (a hang?)", args[0], args[1] ? args[1] : "", seconds);
    if (!WIFEXITED(status))
        fail_msg("%s %s crashed (signal %d); stderr: %.2000s", args[0], args[1] ? args[1] : "",
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0, r->err);
    r->status = WEXITSTATUS(status);
}

void test_run_free(test_run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void test_run_args(test_run_result *r, const char *arg0, ...)
{
    const char *argv[40];
    int argc = 0;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a && argc < 39; a = va_arg(ap, const char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    test_run_free(r);
    test_run(r, argv);
}

int test_tmpdir_make(char *template_) { return mkdtemp(template_) ? 0 : -1; }

int test_tmpdir_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static kcbp_status scene_into(kcbp_status st, kcbp_scene *handle, kcbp_scene *s, kcbp_error *err)
{
    memset(s, 0, sizeof *s);
    if (st != KCBP_OK)
        return st;
    *s = *handle;
    free(handle);
    st = kcbp_scene_assign_models(s, err);
    if (st != KCBP_OK)
        kcbp_scene_clear(s);
    return st;
}

kcbp_status test_scene_thesis(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                              kcbp_error *err)
{
    kcbp_scene *h = NULL;
    kcbp_status st = kcbp_scene_thesis(&h, mesh, bounds, n, seed, err);
    return scene_into(st, h, s, err);
}

kcbp_status test_scene_density(kcbp_scene *s, const char *mesh, kcbp_aabb bounds, uint32_t n, uint64_t seed,
                               kcbp_error *err)
{
    kcbp_scene *h = NULL;
    kcbp_status st = kcbp_scene_density(&h, mesh, bounds, n, seed, err);
    return scene_into(st, h, s, err);
}
