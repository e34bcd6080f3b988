/* The bad-input corpus (tests/bad/cases.tsv, which describes its format):
 * every case through the kcbp program as a user runs it. A crash or a run
 * past 30 s (killed: a hang) fails at once; wrong exit statuses, messages
 * or output are collected and reported together. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "testutil.h"

#define BAD "tests/bad"

/* A run longer than this is taken for a hang and killed: 30 s (a run went
 * past 10 s at a load of 15 on 2 cores, while the whole corpus takes 6 s
 * of CPU), times
 * KCBP_TEST_SLOWDOWN when set (make sanitize sets 4: ASan and UBSan make
 * the 10^6-sided polygon's run 3 to 4 times as long, and a shared machine
 * more). A hang runs forever, so the check keeps its point. */
static double time_limit_s(void)
{
    const char *s = getenv("KCBP_TEST_SLOWDOWN");
    double k = s ? atof(s) : 1.0;
    return 30.0 * (k >= 1.0 && k <= 100.0 ? k : 1.0);
}

static char tmpdir[] = "/tmp/kcbp-bad-XXXXXX";
static char gen_path[32][100];

static const char *gen(int slot, const char *name)
{
    snprintf(gen_path[slot], sizeof gen_path[slot], "%s/%s", tmpdir, name);
    return gen_path[slot];
}

static FILE *create(const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    return f;
}

/* A sparse file of the given size that starts with text. */
static void sparse(const char *path, const char *text, off_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

/* The inputs made at test time (too big to commit, or needing
 * permissions); returns the path for a name starting with '@'. */
static const char *special(const char *name, bool *skip)
{
    *skip = false;
    if (!strcmp(name, "@dir"))
        return BAD;
    if (!strcmp(name, "@devnull"))
        return "/dev/null";
    if (!strcmp(name, "@missing"))
        return BAD "/no-such-file";
    if (!strcmp(name, "@unreadable-obj") || !strcmp(name, "@unreadable-scene")) {
        if (getuid() == 0) { /* root reads anything */
            *skip = true;
            return NULL;
        }
        bool obj = !strcmp(name, "@unreadable-obj");
        const char *p = gen(obj ? 0 : 1, obj ? "unreadable.obj" : "unreadable.json");
        FILE *f = create(p);
        fputs(obj ? "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n" : "{\"objects\": []}\n", f);
        fclose(f);
        assert_int_equal(chmod(p, 0), 0);
        return p;
    }
    if (!strcmp(name, "@polygon1e6")) {
        const char *p = gen(2, "polygon1e6.obj");
        FILE *f = create(p);
        enum { N = 1000000 };
        for (int i = 0; i < N; i++) {
            double a = 2 * M_PI * i / N;
            fprintf(f, "v %.17g %.17g 0\n", cos(a), sin(a));
        }
        fputs("f", f);
        for (int i = 1; i <= N; i++)
            fprintf(f, " %d", i);
        fputc('\n', f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@sparse-obj-3g")) {
        const char *p = gen(3, "sparse3g.obj");
        sparse(p, "v 0 0 0\n", (off_t)3 << 30);
        return p;
    }
    if (!strcmp(name, "@sparse-scene-17g")) {
        const char *p = gen(4, "sparse17g.json");
        sparse(p, "{\"objects\": ", (off_t)17 << 30);
        return p;
    }
    if (!strcmp(name, "@nested-json")) {
        const char *p = gen(5, "nested.json");
        FILE *f = create(p);
        fputs("{\"objects\": ", f);
        for (int i = 0; i < 100000; i++)
            fputc('[', f);
        for (int i = 0; i < 100000; i++)
            fputc(']', f);
        fputs("}\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@object-frames")) {
        const char *p = gen(6, "object_frames.json");
        FILE *f = create(p);
        fputs("{\"objects\": [", f);
        for (int i = 0; i <= 10000; i++)
            fprintf(f, "%s{\"name\": \"o%d\", \"mesh\": \"good.obj\", \"position\": [%d, 0, 0]}", i ? ",\n" : "", i,
                    3 * i);
        fputs("], \"motion\": {\"frames\": 100000, \"dt\": 0.01}}\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@fifo") || !strcmp(name, "@fifo-mesh-scene")) {
        /* a FIFO nobody writes to: kcbp must not wait for a writer forever */
        const char *fifo = gen(7, "fifo.obj");
        struct stat sb;
        if (stat(fifo, &sb) != 0)
            assert_int_equal(mkfifo(fifo, 0644), 0);
        if (!strcmp(name, "@fifo"))
            return fifo;
        const char *p = gen(8, "fifo_mesh.json");
        FILE *f = create(p);
        fputs("{\"objects\": [{\"name\": \"a\", \"mesh\": \"fifo.obj\", \"position\": [0, 0, 0]}]}\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@many-scales")) { /* one model per distinct scale: past the limit */
        const char *p = gen(10, "many_scales.json");
        FILE *f = create(p);
        fputs("{\"objects\": [", f);
        for (int i = 0; i <= 4096; i++)
            fprintf(f, "%s{\"name\": \"o%d\", \"mesh\": \"good.obj\", \"position\": [%d, 0, 0], \"scale\": %.6f}",
                    i ? ",\n" : "", i, 3 * i, 1 + i / 8192.0);
        fputs("]}\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@copies-scene")) { /* scaled copies of a 268k-element mesh past their budget */
        const char *mesh = gen(11, "grid.obj");
        FILE *f = create(mesh);
        enum { N = 300 };
        for (int i = 0; i < N * N; i++)
            fprintf(f, "v %d %d %d\n", i % N, i / N, (i * 7) % 3);
        for (int y = 0; y + 1 < N; y++)
            for (int x = 0; x + 1 < N; x++)
                fprintf(f, "f %d %d %d\nf %d %d %d\n", y * N + x + 1, y * N + x + 2, (y + 1) * N + x + 1,
                        y * N + x + 2, (y + 1) * N + x + 2, (y + 1) * N + x + 1);
        fclose(f);
        const char *p = gen(12, "copies.json");
        f = create(p);
        fputs("{\"objects\": [", f);
        for (int i = 0; i < 40; i++)
            fprintf(f, "%s{\"name\": \"o%d\", \"mesh\": \"grid.obj\", \"position\": [0, 0, %d], \"scale\": %d}",
                    i ? ",\n" : "", i, 1000 * i, i + 1);
        fputs("]}\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@long-pose-line") || !strcmp(name, "@long-pose-line-2d")) {
        bool flat = !strcmp(name, "@long-pose-line-2d");
        const char *p = gen(flat ? 23 : 13, flat ? "long_line_2d.txt" : "long_line.txt");
        FILE *f = create(p);
        fputs(flat ? "0 0 0\n0 0 0 #" : "0 0 0 0 0 1 0\n0 0 0 0 0 1 0 #", f);
        for (int i = 0; i < 1000000; i++)
            fputc('x', f);
        fputc('\n', f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@moving-scene")) { /* frames are written as they are done: memory does not grow with them */
        const char *p = gen(14, "moving.json");
        FILE *f = create(p);
        fputs("{\"motion\": {\"frames\": 2000, \"dt\": 0.01}, \"objects\": [", f);
        for (int i = 0; i < 1000; i++)
            fprintf(f, "%s{\"name\": \"o%d\", \"mesh\": \"tet.obj\", \"position\": [%d, %d, 0], \"scale\": 0.001, "
                       "\"velocity\": [0, 0, 1]}",
                    i ? ",\n" : "", i, 3 * (i % 40), 3 * (i / 40));
        fputs("]}\n", f);
        fclose(f);
        const char *mesh = gen(15, "tet.obj");
        f = create(mesh);
        fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", f);
        fclose(f);
        return p;
    }
    /* 2D inputs are told by their extension: links named .geojson or .svg
     * to the devices, a FIFO named .svg */
    if (!strcmp(name, "@devzero-geojson") || !strcmp(name, "@urandom-svg")) {
        bool zero = !strcmp(name, "@devzero-geojson");
        const char *p = gen(zero ? 16 : 17, zero ? "zero.geojson" : "urandom.svg");
        unlink(p);
        assert_int_equal(symlink(zero ? "/dev/zero" : "/dev/urandom", p), 0);
        return p;
    }
    if (!strcmp(name, "@fifo-svg")) {
        const char *fifo = gen(18, "fifo.svg");
        struct stat sb;
        if (stat(fifo, &sb) != 0)
            assert_int_equal(mkfifo(fifo, 0644), 0);
        return fifo;
    }
    if (!strcmp(name, "@nested-svg")) { /* 100000 nested squares: grouped by a sweep, not ring against ring */
        const char *p = gen(19, "nested.svg");
        FILE *f = create(p);
        fputs("<svg xmlns=\"http://www.w3.org/2000/svg\">\n", f);
        for (int i = 1; i <= 100000; i++)
            fprintf(f, "<polygon points=\"%d,%d %d,%d %d,%d %d,%d\"/>\n", -i, -i, i, -i, i, i, -i, i);
        fputs("</svg>\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@nested-geojson")) { /* 10^6 '[' */
        const char *p = gen(20, "nested.geojson");
        FILE *f = create(p);
        fputs("{\"type\": \"Polygon\", \"coordinates\": ", f);
        for (int i = 0; i < 1000000; i++)
            fputc('[', f);
        fputs("\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@fifo-gltf-buffer")) { /* a glTF whose external buffer is a FIFO nobody writes to */
        const char *fifo = gen(21, "fifo.bin");
        struct stat sb;
        if (stat(fifo, &sb) != 0)
            assert_int_equal(mkfifo(fifo, 0644), 0);
        const char *p = gen(22, "fifo_buffer.gltf");
        FILE *f = create(p);
        fputs("{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}], \"nodes\": "
              "[{\"mesh\": 0}], \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}}]}], "
              "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\", "
              "\"min\": [0, 0, 0], \"max\": [1, 1, 0]}], \"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36}], "
              "\"buffers\": [{\"byteLength\": 36, \"uri\": \"fifo.bin\"}]}\n",
              f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@scene2d-200k")) { /* 2D scenes' objects are parsed one at a time, not as one tree */
        const char *p = gen(24, "scene2d_200k.json");
        FILE *f = create(p);
        fputs("{\"objects\": [", f);
        for (int i = 0; i < 200000; i++)
            fprintf(f, "%s{\"name\": \"p%d\", \"shape\": {\"rect\": {\"size\": [0.9, 0.8]}}, \"pose\": [%d.5, %d.5, 10]}",
                    i ? ",\n" : "", i, i % 500, i / 500);
        fputs("]}\n", f);
        fclose(f);
        return p;
    }
    if (!strcmp(name, "@devzero"))
        return "/dev/zero";
    if (!strcmp(name, "@urandom"))
        return "/dev/urandom";
    if (!strcmp(name, "@poses5e4")) { /* a long pose stream: memory must not grow with it */
        const char *p = gen(9, "poses5e4.txt");
        FILE *f = create(p);
        for (int i = 0; i < 50000; i++)
            fprintf(f, "%d.%03d 0.5 0 0 0 1 %d\n", i % 3 - 1, i % 1000, i % 360);
        fclose(f);
        return p;
    }
    fail_msg("unknown generated input %s", name);
    return NULL;
}

static bool all_lines_json(const char *out)
{
    bool any = false;
    for (const char *s = out; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char *line = strndup(s, n);
        cJSON *doc = cJSON_Parse(line);
        free(line);
        if (!doc)
            return false;
        cJSON_Delete(doc);
        any = true;
        s += n + (nl != NULL);
    }
    return any;
}

typedef struct {
    int cases, runs, skipped, bad;
} tally;

/* kcbp collide --poses prints the answers to the poses before a bad one. */
static bool only_json_lines(const char *out) { return !out[0] || all_lines_json(out); }

static void check_run(tally *t, const char *cmd, const char *input, int want_exit, const char *msg, long max_mb)
{
    const char *good = BAD "/good.obj";
    const char *argv[3][8] = {{0}};
    const char *stdin_path = NULL;
    int nrun = 1;
    if (!strcmp(cmd, "collide")) {
        const char *a[] = {"collide", input, good, NULL}, *b[] = {"collide", good, input, NULL};
        memcpy(argv[0], a, sizeof a);
        memcpy(argv[1], b, sizeof b);
        nrun = 2;
    } else if (!strcmp(cmd, "collide2d")) {
        const char *a[] = {"collide", input, "rect:1:1", NULL}, *b[] = {"collide", "circle:1", input, NULL};
        memcpy(argv[0], a, sizeof a);
        memcpy(argv[1], b, sizeof b);
        nrun = 2;
    } else if (!strcmp(cmd, "cbp") || !strcmp(cmd, "scene") || !strcmp(cmd, "batch")) {
        const char *a[] = {cmd, input, NULL};
        memcpy(argv[0], a, sizeof a);
    } else if (!strcmp(cmd, "poses")) {
        const char *a[] = {"collide", good, good, "--poses", input, "--contacts", "none", NULL};
        memcpy(argv[0], a, sizeof a);
    } else if (!strcmp(cmd, "poses-stdin")) {
        const char *a[] = {"collide", good, good, "--poses", "-", "--contacts", "none", NULL};
        memcpy(argv[0], a, sizeof a);
        stdin_path = input;
    } else if (!strcmp(cmd, "poses2d")) {
        const char *a[] = {"collide", "rect:1:1", "circle:1", "--poses", input, NULL};
        memcpy(argv[0], a, sizeof a);
    } else if (!strcmp(cmd, "poses2d-stdin")) {
        const char *a[] = {"collide", "rect:1:1", "circle:1", "--poses", "-", NULL};
        memcpy(argv[0], a, sizeof a);
        stdin_path = input;
    } else if (!strcmp(cmd, "mesh-stdin")) {
        const char *a[] = {"collide", "-", good, NULL};
        memcpy(argv[0], a, sizeof a);
        stdin_path = input;
    } else {
        fail_msg("cases.tsv: unknown command '%s'", cmd);
    }
    for (int i = 0; i < nrun; i++) {
        test_run_result r = {0};
        test_run_stdin(&r, argv[i], time_limit_s(), stdin_path);
        t->runs++;
        const char *why = NULL;
        bool batch = !strcmp(cmd, "batch"), stream = !strncmp(cmd, "poses", 5);
        if (r.status != want_exit)
            why = "exit status";
        else if (max_mb > 0 && test_memory_checked() && r.maxrss_kb > max_mb * 1024)
            why = "peak memory";
        else if (want_exit == 0 && (r.err[0] || !all_lines_json(r.out)))
            why = "success should print JSON lines and nothing on stderr";
        else if (want_exit != 0 && !batch && stream && (!only_json_lines(r.out) || !strstr(r.err, msg)))
            why = only_json_lines(r.out) ? "message" : "stdout before the error is not answers";
        else if (want_exit != 0 && !batch && !stream && (r.out[0] || !strstr(r.err, msg)))
            why = r.out[0] ? "output on stdout after an error" : "message";
        else if (want_exit != 0 && batch) {
            /* kcbp batch reports a failed scene on stdout, in order */
            cJSON *doc = cJSON_Parse(r.out);
            const cJSON *e = cJSON_GetObjectItem(doc, "error");
            if (!cJSON_IsString(e) || !strstr(e->valuestring, msg) || strchr(r.out, '\n') != r.out + r.out_len - 1)
                why = "batch error line";
            cJSON_Delete(doc);
        }
        if (why) {
            t->bad++;
            print_message("BAD %s on %s (%s): want exit %d and '%s'; got exit %d, %ld KB\n  stderr: %.300s\n  stdout: "
                          "%.300s\n",
                          cmd, input, why, want_exit, msg, r.status, r.maxrss_kb, r.err, r.out);
        }
        test_run_free(&r);
    }
}

static void test_corpus(void **state)
{
    (void)state;
    FILE *f = fopen(BAD "/cases.tsv", "r");
    assert_non_null(f);
    tally t = {0};
    char line[2048];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *cmds = line, *input = strchr(cmds, '\t'), *code = input ? strchr(input + 1, '\t') : NULL;
        char *msg = code ? strchr(code + 1, '\t') : NULL;
        if (!msg)
            fail_msg("cases.tsv:%d: expected 4 or 5 tab-separated columns", lineno);
        *input++ = *code++ = *msg++ = '\0';
        char *mb = strchr(msg, '\t');
        long max_mb = 0;
        if (mb) {
            *mb++ = '\0';
            max_mb = atol(mb);
        }
        int want_exit = atoi(code);
        if (!strcmp(msg, "-"))
            msg = "";
        bool skip = false;
        char path[2600];
        if (input[0] == '@') {
            const char *p = special(input, &skip);
            if (!skip)
                snprintf(path, sizeof path, "%.2000s", p);
        } else {
            snprintf(path, sizeof path, BAD "/%.2000s", input);
            struct stat sb;
            if (stat(path, &sb) != 0)
                fail_msg("cases.tsv:%d: no file %s", lineno, path);
        }
        t.cases++;
        if (skip) {
            t.skipped++;
            continue;
        }
        for (char *c = strtok(cmds, ","); c; c = strtok(NULL, ","))
            check_run(&t, c, path, want_exit, msg, max_mb);
    }
    fclose(f);
    print_message("bad inputs: %d cases, %d runs of kcbp, %d skipped (as root), %d wrong\n", t.cases, t.runs,
                  t.skipped, t.bad);
    assert_true(t.cases >= 80);
    assert_int_equal(t.bad, 0);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "chmod -R u+rw '%s'; rm -rf '%s'", tmpdir, tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests_name("bad inputs", tests, setup, teardown);
}
