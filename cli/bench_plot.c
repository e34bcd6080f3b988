/* kcbp bench --plot: gnuplot, run as a child process on files in a
 * temporary folder. The library never spawns processes; this is the one
 * place the program does. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

/* A gnuplot single-quoted string: quotes are doubled. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void plot_lines(FILE *f, const char *data, int ncols, const char *const *names, int offset)
{
    fprintf(f, "plot ");
    for (int b = 0; b < ncols; b++) {
        if (b == 0)
            put_quoted(f, data);
        else
            fprintf(f, "''");
        /* solid lines, one colour each (12, then again with other points) */
        static const char *const colours[] = {"#9400d3", "#009e73", "#56b4e9", "#e69f00", "#f0e442", "#0072b2",
                                              "#e51e10", "#000000", "#a0522d", "#ff1493", "#808080", "#2e8b57"};
        fprintf(f, " using 1:%d with linespoints lw 1.5 lc rgb '%s' pt %d title ", 2 + 2 * b + offset,
                colours[b % 12], b % 13 + 1);
        put_quoted(f, names[b]);
        fprintf(f, b + 1 < ncols ? ", \\\n     " : "\n");
    }
}

static kcbp_status run_gnuplot(const char *script, kcbp_error *err)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "cannot run gnuplot: out of memory");
    /* gnuplot's stdout is not ours: the report goes there */
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return kcbp_error_set(err, KCBP_ERR_IO, "--plot: cannot run gnuplot (%s); install gnuplot-nox",
                              strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return kcbp_error_set(err, KCBP_ERR_IO, "--plot: waiting for gnuplot: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return kcbp_error_set(err, KCBP_ERR_IO, "--plot: gnuplot failed (status %d)",
                              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return KCBP_OK;
}

kcbp_status kcbp_cli_bench_plot(const char *svg, const kcbp_cli_plot_series *series, int nseries,
                                const char *const *names, const char *layout, kcbp_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX - 32];
    snprintf(dir, sizeof dir, "%s/kcbp-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return kcbp_error_set(err, KCBP_ERR_IO, "--plot: cannot make a temporary folder: %s", strerror(errno));
    char script[PATH_MAX], data[PATH_MAX];
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    kcbp_status st = KCBP_OK;
    int written = 0;
    for (int m = 0; m < nseries && st == KCBP_OK; m++) {
        snprintf(data, sizeof data, "%s/data%d.dat", dir, m);
        FILE *f = fopen(data, "w");
        if (!f) {
            st = kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", data, strerror(errno));
            break;
        }
        written = m + 1;
        const kcbp_cli_plot_series *s = &series[m];
        fprintf(f, "# n, then hit rate and detection time (ms) of each volume\n");
        for (int i = 0; i < s->nx; i++) {
            fprintf(f, "%g", s->x[i]);
            for (int b = 0; b < s->ncols; b++)
                fprintf(f, " %.9g %.9g", s->r[i * s->ncols + b], s->dt[i * s->ncols + b]);
            fprintf(f, "\n");
        }
        if (fclose(f) != 0)
            st = kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", data, strerror(errno));
    }
    FILE *f = st == KCBP_OK ? fopen(script, "w") : NULL;
    if (st == KCBP_OK && !f)
        st = kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", script, strerror(errno));
    if (f) {
        fprintf(f, "set terminal svg size 1200,%d dynamic font 'sans,11' background rgb 'white'\n",
                60 + 420 * (nseries > 0 ? nseries : 1));
        fprintf(f, "set output ");
        put_quoted(f, svg);
        fprintf(f, "\nset multiplot layout %d,2 title ", nseries > 0 ? nseries : 1);
        put_quoted(f, layout);
        fprintf(f, " . ' layout: bounding volumes as filters before the mesh test' noenhanced\n");
        fprintf(f, "set grid\nset key outside right noenhanced\nset xlabel 'n (objects - 1)'\n");
        for (int m = 0; m < nseries; m++) {
            const kcbp_cli_plot_series *s = &series[m];
            snprintf(data, sizeof data, "%s/data%d.dat", dir, m);
            bool positive = true;
            for (int i = 0; i < s->nx * s->ncols; i++)
                positive = positive && s->dt[i] > 0;
            fprintf(f, "set title ");
            put_quoted(f, s->title);
            fprintf(f, " . ': hit rate r = colliding / passing' noenhanced\n");
            fprintf(f, "set ylabel 'hit rate'\nset yrange [0:1.05]\nunset logscale y\n");
            plot_lines(f, data, s->ncols, names, 0);
            fprintf(f, "set title ");
            put_quoted(f, s->title);
            fprintf(f, " . ': detection time' noenhanced\n");
            fprintf(f, "set ylabel 'DT (ms)'\nset autoscale y\n%s\n", positive ? "set logscale y" : "unset logscale y");
            plot_lines(f, data, s->ncols, names, 1);
        }
        fprintf(f, "unset multiplot\nset output\n");
        if (fclose(f) != 0)
            st = kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", script, strerror(errno));
        if (st == KCBP_OK)
            st = run_gnuplot(script, err);
        unlink(script);
    }
    for (int m = 0; m < written; m++) {
        snprintf(data, sizeof data, "%s/data%d.dat", dir, m);
        unlink(data);
    }
    rmdir(dir);
    return st;
}
