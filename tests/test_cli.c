/* The kcbp program as a user runs it: exit codes, "file:line: problem"
 * messages on stderr, nothing on stdout after an error, and reports that
 * parse as JSON with the documented fields. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testutil.h"
#include "base/utf8.h"

static char tmpdir[] = "/tmp/kcbp-cli-XXXXXX";

#define WRITE_TMP(name, literal) test_tmp_write(tmpdir, name, literal, sizeof literal - 1)

/* An input error: exit 3, nothing on stdout, and stderr mentions `where`. */
static void expect_input_error(const test_run_result *r, const char *where)
{
    if (r->status != 3 || r->out[0] != '\0' || !strstr(r->err, where))
        fail_msg("expected exit 3 with '%s' on stderr; got %d, stderr: %s, stdout: %.100s", where, r->status,
                 r->err, r->out);
}

/* "faces" names the file's polygons of the contacts; absent for meshes of
 * triangles only; the same for every format that keeps polygons. */
static void test_contact_faces(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    char quad[512], tri[512], off[512];
    snprintf(quad, sizeof quad, "%s/quad.obj", tmpdir);
    snprintf(off, sizeof off, "%s/quad.off", tmpdir);
    snprintf(tri, sizeof tri, "%s/tri.obj", tmpdir);
    /* face 0 a triangle, face 1 a square in z = 0 (triangles 1 and 2) */
    WRITE_TMP("quad.obj", "v 5 5 5\nv 6 5 5\nv 5 6 5\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 4 5 6 7\n");
    WRITE_TMP("quad.off", "OFF\n7 2 0\n5 5 5\n6 5 5\n5 6 5\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n4 3 4 5 6\n");
    /* a steep triangle through the square near (0.92, 0.21, 0): its triangle 1 only */
    WRITE_TMP("tri.obj", "v 0.9 0.2 -1\nv 0.95 0.2 1\nv 0.9 0.25 1\nf 1 2 3\n");
    const char *files[] = {quad, off};
    for (int i = 0; i < 2; i++) {
        test_run_args(r, "collide", files[i], tri, "--contacts", "all", NULL);
        assert_int_equal(r->status, 0);
        if (!strstr(r->out, "\"contacts\":[[1,0]],\"faces\":[[1,0]]"))
            fail_msg("%s: %.300s", files[i], r->out);
        test_run_args(r, "collide", tri, files[i], "--contacts", "first", NULL);
        if (!strstr(r->out, "\"contacts\":[[0,1]],\"faces\":[[0,1]]"))
            fail_msg("%s: %.300s", files[i], r->out);
    }
    /* a triangle through the square's second fan triangle (v4 v6 v7), near
     * (0.12, 0.82, 0): "face_tris" tells it from the first */
    char tri2[512];
    snprintf(tri2, sizeof tri2, "%s", WRITE_TMP("tri2.obj", "v 0.1 0.8 -1\nv 0.15 0.8 1\nv 0.1 0.85 1\nf 1 2 3\n"));
    for (int i = 0; i < 2; i++) {
        test_run_args(r, "collide", tri2, files[i], "--contacts", "all", NULL);
        if (!strstr(r->out, "\"contacts\":[[0,2]],\"faces\":[[0,1]],\"face_tris\":[[0,1]]"))
            fail_msg("%s: %.300s", files[i], r->out);
        test_run_args(r, "collide", files[i], tri, "--contacts", "all", NULL);
        if (!strstr(r->out, "\"faces\":[[1,0]],\"face_tris\":[[0,0]]"))
            fail_msg("%s: %.300s", files[i], r->out);
    }
    test_run_args(r, "collide", tri, tri, "--contacts", "all", NULL);
    assert_int_equal(r->status, 0);
    assert_null(strstr(r->out, "\"faces\""));
    assert_null(strstr(r->out, "\"face_tris\""));
    test_run_free(r);
    free(r);
}

static void test_help_and_usage(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    test_run_args(r, "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "collide"));
    test_run_args(r, "collide", "--help", NULL);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "--poses"));
    test_run_args(r, NULL);
    assert_int_equal(r->status, 2);
    test_run_args(r, "frobnicate", NULL);
    assert_int_equal(r->status, 2);
    test_run_args(r, "collide", "meshes/woody.obj", NULL);
    assert_int_equal(r->status, 2);
    assert_string_equal(r->out, "");
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--bogus", NULL);
    assert_int_equal(r->status, 2);
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--contacts", "some", NULL);
    assert_int_equal(r->status, 2);
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--pose-b", "1 2 3", NULL);
    assert_int_equal(r->status, 2);
    /* a zero axis with a non-zero angle */
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--pose-b", "0 0 0 0 0 0 30", NULL);
    assert_int_equal(r->status, 2);
    assert_non_null(strstr(r->err, "axis"));
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--pose-b", "0 0 0 0 0 1 30", "--poses", "x", NULL);
    assert_int_equal(r->status, 2);
    test_run_free(r);
    free(r);
}

static void test_bad_meshes(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    char good[256];
    snprintf(good, sizeof good, "%s", WRITE_TMP("good.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"));
    struct {
        const char *name, *text, *where;
    } cases[] = {
        {"badnum.obj", "v 0 0 0\nv 1 0 0\nv 0 1.5.2 0\nf 1 2 3\n", "badnum.obj:3:"},
        {"nan.obj", "v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n", "nan.obj:2:"},
        {"inf.obj", "v 0 0 0\nv 1 0 0\nv 0 1e999 0\nf 1 2 3\n", "inf.obj:3:"},
        {"zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 2 3\n", "zero.obj:4:"},
        {"range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n", "range.obj:5:"},
        {"negrange.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", "negrange.obj:4:"},
        {"short.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "short.obj:4:"},
        {"nofaces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n", "nofaces.obj"},
        {"empty.obj", "", "empty.obj"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = test_tmp_write(tmpdir, cases[i].name, cases[i].text, strlen(cases[i].text));
        test_run_args(r, "collide", p, good, NULL);
        expect_input_error(r, cases[i].where);
        test_run_args(r, "collide", good, p, NULL);
        expect_input_error(r, cases[i].where);
    }
    const char bin[] = {'v', ' ', '1', '\0', '\x01', '\xff', 'f', '\n'};
    const char *binp = test_tmp_write(tmpdir, "binary.obj", bin, sizeof bin);
    test_run_args(r, "collide", binp, good, NULL);
    expect_input_error(r, "binary.obj");
    test_run_args(r, "collide", tmpdir, good, NULL);
    expect_input_error(r, tmpdir);
    test_run_args(r, "collide", "/nonexistent/missing.obj", good, NULL);
    expect_input_error(r, "missing.obj");
    if (getuid() != 0) { /* root reads anything */
        const char *unreadable = WRITE_TMP("unreadable.obj", "v 0 0 0\n");
        chmod(unreadable, 0);
        test_run_args(r, "collide", unreadable, good, NULL);
        expect_input_error(r, "unreadable.obj");
    }
    test_run_free(r);
    free(r);
}

static void test_bad_poses_file(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    const char *p = WRITE_TMP("poses.txt", "# header\n0 0 0 0 0 1 0\n\n1 2 3 0 0 1 x\n");
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--poses", p, NULL);
    /* poses are answered as they are read: the first pose's line, then the error */
    assert_int_equal(r->status, 3);
    assert_non_null(strstr(r->err, "poses.txt:4:"));
    assert_non_null(strstr(r->out, "\"pose\":0}\n"));
    assert_ptr_equal(strchr(r->out, '\n'), r->out + r->out_len - 1);
    p = WRITE_TMP("poses0.txt", "0 0 0 0 0 0 10\n");
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--poses", p, NULL);
    expect_input_error(r, "poses0.txt:1:");
    p = WRITE_TMP("posesnone.txt", "# nothing\n");
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--poses", p, NULL);
    expect_input_error(r, "posesnone.txt");
    test_run_args(r, "collide", "meshes/woody.obj", "meshes/woody.obj", "--poses", "/nonexistent/p.txt", NULL);
    expect_input_error(r, "p.txt");
    test_run_free(r);
    free(r);
}

static void test_report(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--pose-b", "0.3 0 0 0 1 0 20", "--contacts", "all",
        "--pretty", NULL);
    assert_int_equal(r->status, 0);
    cJSON *doc = cJSON_Parse(r->out);
    assert_non_null(doc);
    assert_true(cJSON_IsBool(cJSON_GetObjectItem(doc, "collide")));
    assert_non_null(cJSON_GetObjectItem(doc, "decided_by"));
    cJSON *contacts = cJSON_GetObjectItem(doc, "contacts");
    assert_true(cJSON_IsArray(contacts));
    cJSON *a = cJSON_GetObjectItem(doc, "a");
    assert_int_equal(cJSON_GetObjectItem(a, "vertices")->valueint, 507);
    assert_int_equal(cJSON_GetObjectItem(a, "triangles")->valueint, 968);
    assert_non_null(cJSON_GetObjectItem(a, "degenerate_triangles"));
    cJSON *stats = cJSON_GetObjectItem(doc, "stats");
    const char *fields[] = {"box_pairs", "triangle_pairs", "load_ms", "build_ms", "query_ms"};
    for (int i = 0; i < 5; i++)
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(stats, fields[i])));
    int all = cJSON_GetArraySize(contacts);
    assert_true(all > 1);
    cJSON_Delete(doc);

    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--pose-b", "0.3 0 0 0 1 0 20", "--contacts",
        "first", NULL);
    doc = cJSON_Parse(r->out);
    assert_non_null(doc);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "contacts")), 1);
    cJSON_Delete(doc);

    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/woody.obj", "--pose-b", "10 0 0 0 0 1 45", NULL);
    doc = cJSON_Parse(r->out);
    assert_non_null(doc);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "collide")));
    assert_string_equal(cJSON_GetObjectItem(doc, "decided_by")->valuestring, "aabb");
    cJSON_Delete(doc);
    test_run_free(r);
    free(r);
}

static void test_poses_mode(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    const char *p = WRITE_TMP("p3.txt", "0 0 0 0 0 1 0  # identical\r\n10 0 0 1 1 0 30\n\n0.1 0 0 0 0 0 0\n");
    test_run_args(r, "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--poses", p, "--contacts", "none", NULL);
    assert_int_equal(r->status, 0);
    int lines = 0;
    bool expect[3] = {true, false, true};
    for (char *s = r->out, *nl; (nl = strchr(s, '\n')); s = nl + 1, lines++) {
        *nl = '\0';
        cJSON *doc = cJSON_Parse(s);
        assert_non_null(doc);
        assert_int_equal(cJSON_GetObjectItem(doc, "pose")->valueint, lines);
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(doc, "collide")), expect[lines]);
        /* Lean lines: no contact list with --contacts none; the meshes and
         * their load and build times on the first line only. */
        assert_null(cJSON_GetObjectItem(doc, "contacts"));
        cJSON *stats = cJSON_GetObjectItem(doc, "stats");
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(stats, "query_ms")));
        bool first = lines == 0;
        assert_int_equal(cJSON_GetObjectItem(doc, "a") != NULL, first);
        assert_int_equal(cJSON_GetObjectItem(doc, "b") != NULL, first);
        assert_int_equal(cJSON_GetObjectItem(stats, "load_ms") != NULL, first);
        assert_int_equal(cJSON_GetObjectItem(stats, "build_ms") != NULL, first);
        cJSON_Delete(doc);
    }
    assert_int_equal(lines, 3);
    test_run_free(r);
    free(r);
}

/* Output that cannot be written (a full disk: /dev/full) is exit status 4
 * with a message, in every command; '-' is stdin or stdout. */
static void test_write_failures_and_dash(void **state)
{
    (void)state;
    const char *scene = WRITE_TMP("s.json", "{\"objects\": [{\"name\": \"a\", \"mesh\": \"t.obj\", \"position\": [0, 0, 0]},"
                                            "{\"name\": \"b\", \"mesh\": \"t.obj\", \"position\": [0.2, 0, 0]}],"
                                            "\"motion\": {\"frames\": 3, \"dt\": 1}}");
    const char *poses = WRITE_TMP("p.txt", "0 0 0 0 0 1 0\n1 0 0 0 0 1 0\n");
    WRITE_TMP("t.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n");
    const char *mesh = "meshes/suzanne.obj";
    const char *runs[][16] = {
        {"collide", mesh, mesh, NULL},
        {"collide", mesh, mesh, "--poses", poses, NULL},
        {"cbp", mesh, NULL},
        {"cbp", mesh, "-o", "-", NULL},
        {"scene", "--generate", "thesis", "--mesh", mesh, "--n", "3", NULL},
        {"scene", scene, NULL},
        {"batch", scene, scene, "--jobs", "2", NULL},
        {"bench", "--n", "3", "--runs", "1", "--bv", "aabb", "--no-times", NULL},
        {"--help", NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        test_run_result r = {0};
        test_run_io(&r, runs[i], 30, NULL, "/dev/full");
        bool help = !strcmp(runs[i][0], "--help"); /* not a command: main's usage */
        if (!help && (r.status != 4 || !strstr(r.err, "cannot write") || strlen(r.err) > 300))
            fail_msg("kcbp %s > /dev/full: exit %d (want 4), stderr: %s", runs[i][0], r.status, r.err);
        test_run_free(&r);
    }
    /* cbp -o -: the OBJ on stdout, the report on stderr */
    test_run_result *r = calloc(1, sizeof *r);
    test_run_args(r, "cbp", mesh, "-k", "8", "-o", "-", NULL);
    assert_int_equal(r->status, 0);
    assert_true(!strncmp(r->out, "# k-CBP: ", 9) && strstr(r->out, "\nf "));
    cJSON *doc = cJSON_Parse(r->err);
    assert_non_null(doc);
    cJSON_Delete(doc);
    assert_int_equal(access("-", F_OK), -1); /* no file named '-' */
    test_run_free(r);
    /* a mesh, and the poses, from standard input */
    const char *argv1[] = {"collide", "-", mesh, NULL};
    test_run_stdin(r, argv1, 30, mesh);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"collide\":true"));
    test_run_free(r);
    const char *argv2[] = {"collide", mesh, mesh, "--poses", "-", "--contacts", "none", NULL};
    test_run_stdin(r, argv2, 30, poses);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\"pose\":1}\n"));
    test_run_free(r);
    const char *argv3[] = {"collide", "-", mesh, "--poses", "-", NULL};
    test_run_stdin(r, argv3, 30, poses);
    assert_int_equal(r->status, 2);
    test_run_free(r);
    free(r);
}

/* --poses -: the first pose is answered while the writer still holds the
 * pipe open (a line in, a line out), and 20000 more go through in constant
 * memory. */
static void test_poses_stream_answers_first(void **state)
{
    (void)state;
    int in[2];
    assert_int_equal(pipe(in), 0);
    char out_path[] = "/tmp/kcbp-stream-XXXXXX";
    int out = mkstemp(out_path);
    assert_true(out >= 0);
    unlink(out_path);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out, 1);
        close(in[1]);
        execl(test_kcbp_exe(), test_kcbp_exe(), "collide", "meshes/suzanne.obj", "meshes/suzanne.obj", "--poses", "-",
              "--contacts", "none", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    FILE *w = fdopen(in[1], "w");
    assert_non_null(w);
    fputs("0.5 0 0 0 0 1 10\n", w);
    fflush(w);
    /* the answer comes before anything more is written */
    bool answered = false;
    for (int i = 0; i < 1000 && !answered; i++) {
        char buf[4096];
        ssize_t n = pread(out, buf, sizeof buf - 1, 0);
        answered = n > 0 && memchr(buf, '\n', (size_t)n);
        if (!answered)
            usleep(10000);
    }
    assert_true(answered);
    for (int i = 1; i <= 20000; i++)
        fprintf(w, "%d.%d 0 0 0 1 1 %d\n", i % 3, i % 10, i % 360);
    fclose(w);
    int status;
    struct rusage ru;
    assert_int_equal(wait4(pid, &status, 0, &ru), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat sb;
    assert_int_equal(fstat(out, &sb), 0);
    char *text = malloc((size_t)sb.st_size + 1);
    assert_int_equal(pread(out, text, (size_t)sb.st_size, 0), sb.st_size);
    text[sb.st_size] = '\0';
    size_t lines = 0;
    for (char *p = text; (p = strchr(p, '\n')); p++)
        lines++;
    assert_int_equal(lines, 20001);
    assert_non_null(strstr(text, "\"pose\":20000}\n"));
    free(text);
    close(out);
    if (test_memory_checked() && ru.ru_maxrss > 30 * 1024) /* suzanne's models take about 6 MB */
        fail_msg("20001 poses took %ld KB", ru.ru_maxrss);
}

/* A FIFO whose writer comes a little after kcbp opens it, or opens it at
 * once and writes only later (past the second kcbp waits for a writer), is
 * read; one with no writer at all is refused, not waited for. */
static void test_fifo_writers(void **state)
{
    (void)state;
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/mesh.fifo", tmpdir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    static const char mesh[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    const useconds_t open_after[] = {300000, 0}, write_after[] = {0, 1500000};
    for (int k = 0; k < 2; k++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(5); /* should kcbp never open the FIFO, the writer's open would wait for ever */
            usleep(open_after[k]);
            int fd = open(fifo, O_WRONLY);
            usleep(write_after[k]);
            _exit(fd >= 0 && write(fd, mesh, sizeof mesh - 1) == (ssize_t)(sizeof mesh - 1) ? 0 : 1);
        }
        test_run_result *r = calloc(1, sizeof *r);
        test_run_args(r, "collide", fifo, "tests/bad/good.obj", NULL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (r->status != 0 || !strstr(r->out, "\"collide\":true"))
            fail_msg("FIFO written %s: exit %d, stderr %s", k ? "late" : "by a late writer", r->status, r->err);
        test_run_free(r);
        free(r);
    }
    test_run_result *r = calloc(1, sizeof *r);
    test_run_args(r, "collide", fifo, "tests/bad/good.obj", NULL);
    expect_input_error(r, "mesh.fifo: a FIFO with no writer");
    test_run_free(r);
    free(r);
    unlink(fifo);
}

/* Every byte of s is part of a valid UTF-8 sequence. */
static bool all_utf8(const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0, n; i < len; i += n)
        if (!(n = kcbp_utf8_seq((const unsigned char *)s + i, len - i)))
            return false;
    return true;
}

/* r succeeded and its stdout, valid UTF-8 as a whole, is one JSON document. */
static cJSON *utf8_doc(const test_run_result *r)
{
    if (r->status != 0 || !all_utf8(r->out))
        fail_msg("exit %d, stdout valid UTF-8: %d, stderr: %s", r->status, all_utf8(r->out), r->err);
    cJSON *doc = cJSON_Parse(r->out);
    assert_non_null(doc);
    return doc;
}

/* File names are bytes, JSON is UTF-8: a path that is not UTF-8, echoed in
 * a report, has its invalid bytes written as U+FFFD (src/utf8.h). */
static void test_non_utf8_paths(void **state)
{
    (void)state;
    test_run_result *r = calloc(1, sizeof *r);
    const char *obj = WRITE_TMP("mesh\xff\xfe-\xc3(.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n");
    char out[512], scene[512], replaced[512];
    snprintf(out, sizeof out, "%s/out\xe9.obj", tmpdir);
    snprintf(replaced, sizeof replaced, "%s/mesh\xEF\xBF\xBD\xEF\xBF\xBD-\xEF\xBF\xBD(.obj", tmpdir);

    test_run_args(r, "cbp", obj, "-k", "8", "-o", out, NULL);
    cJSON *doc = utf8_doc(r);
    assert_string_equal(cJSON_GetObjectItem(doc, "mesh")->valuestring, replaced);
    assert_non_null(strstr(cJSON_GetObjectItem(doc, "output")->valuestring, "/out\xEF\xBF\xBD.obj"));
    cJSON_Delete(doc);
    assert_int_equal(access(out, R_OK), 0); /* the file itself has the name given */

    test_run_args(r, "collide", obj, obj, NULL);
    doc = utf8_doc(r);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "collide")));
    cJSON_Delete(doc);

    /* a scene file whose name is not UTF-8 (its text is) */
    snprintf(scene, sizeof scene, "%s/scene\x80.json", tmpdir);
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fprintf(f, "{\"objects\": [{\"name\": \"a\", \"mesh\": \"%s/meshes/suzanne.obj\", \"position\": [0, 0, 0]}, "
               "{\"name\": \"b\", \"mesh\": \"%s/meshes/suzanne.obj\", \"position\": [0.5, 0, 0]}]}",
            getcwd(replaced, sizeof replaced), replaced);
    fclose(f);
    test_run_args(r, "scene", scene, "--mesh-root", "/", NULL); /* its meshes are outside its folder */
    doc = utf8_doc(r);
    assert_non_null(strstr(cJSON_GetObjectItem(doc, "scene")->valuestring, "/scene\xEF\xBF\xBD.json"));
    cJSON_Delete(doc);

    /* batch: a good line and an error line, both naming non-UTF-8 paths */
    snprintf(out, sizeof out, "%s/missing\xfe.json", tmpdir);
    test_run_args(r, "batch", scene, out, "--mesh-root", "/", NULL);
    if (!all_utf8(r->out))
        fail_msg("batch: stdout is not UTF-8: %s", r->out);
    int lines = 0;
    for (char *s = r->out, *nl; (nl = strchr(s, '\n')); s = nl + 1, lines++) {
        *nl = '\0';
        doc = cJSON_Parse(s);
        assert_non_null(doc);
        assert_true(cJSON_IsString(cJSON_GetObjectItem(doc, "scene")));
        if (lines == 1)
            assert_non_null(strstr(cJSON_GetObjectItem(doc, "error")->valuestring, "missing\xEF\xBF\xBD.json"));
        cJSON_Delete(doc);
    }
    assert_int_equal(lines, 2);

    /* scene --generate would have to write the path into the scene: refused */
    test_run_args(r, "scene", "--generate", "thesis", "--mesh", obj, "--n", "2", NULL);
    assert_true(r->status != 0 && r->out[0] == '\0' && strstr(r->err, "not UTF-8"));
    test_run_free(r);
    free(r);
}

TEST_TMPDIR_FIXTURES(tmpdir)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_usage), cmocka_unit_test(test_bad_meshes),
        cmocka_unit_test(test_bad_poses_file), cmocka_unit_test(test_report),
        cmocka_unit_test(test_poses_mode), cmocka_unit_test(test_non_utf8_paths),
        cmocka_unit_test(test_write_failures_and_dash), cmocka_unit_test(test_poses_stream_answers_first),
        cmocka_unit_test(test_fifo_writers), cmocka_unit_test(test_contact_faces),
    };
    return cmocka_run_group_tests_name("cli", tests, setup, teardown);
}
