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
#include <strings.h>
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

/* Line b's look: an Okabe-Ito colour (their palette for colour-blind
 * readers, less its pale yellow), a dash type and a point type, so that
 * every line differs from every other in at least two of the three (up to
 * 35 lines), also in grey print. */
static void put_style(FILE *f, int b)
{
    static const char *const okabe_ito[] = {"#000000", "#e69f00", "#56b4e9", "#009e73",
                                            "#0072b2", "#d55e00", "#cc79a7"};
    static const int points[] = {7, 5, 9, 11, 13, 1, 2, 3, 4, 6, 8, 10, 12, 14};
    enum { NCOL = sizeof okabe_ito / sizeof okabe_ito[0], NPT = sizeof points / sizeof points[0] };
    fprintf(f, "lw 1.5 lc rgb '%s' dt %d pt %d ps 0.9", okabe_ito[b % NCOL], b % 5 + 1, points[b % NPT]);
}

/* Curve b of a plot of ncols curves from the file data: "plot 'data'" for
 * the first, "''" for the others; then its using/with clause (the caller's)
 * and its end: the look of line b, no title (the legend is drawn once). */
static void curve_start(FILE *f, const char *data, int b)
{
    if (b == 0) {
        fprintf(f, "plot ");
        put_quoted(f, data);
    } else {
        fprintf(f, "     ''");
    }
}

static void curve_end(FILE *f, int b, int ncols)
{
    put_style(f, b);
    fprintf(f, b + 1 < ncols ? " notitle, \\\n" : " notitle\n");
}

/* The lines of one panel: volume b's hit rate (errors false) or its
 * detection time with min-max bars (errors true) from the columns of data. */
static void plot_lines(FILE *f, const char *data, int ncols, bool errors)
{
    for (int b = 0; b < ncols; b++) {
        curve_start(f, data, b);
        int c = 2 + 4 * b; /* r, then the detection time's median, least, greatest */
        if (errors)
            fprintf(f, " using 1:%d:%d:%d with yerrorlines ", c + 1, c + 2, c + 3);
        else
            fprintf(f, " using 1:%d with linespoints ", c);
        curve_end(f, b, ncols);
    }
}

/* The construction time of each volume: point b at x = b + 1, min-max bars. */
static void plot_ct(FILE *f, const char *data, int ncols, const char *const *names)
{
    fprintf(f, "set xrange [0.5:%d.5]\nset xtics rotate by 35 right (", ncols);
    for (int b = 0; b < ncols; b++) {
        put_quoted(f, names[b]);
        fprintf(f, " %d%s", b + 1, b + 1 < ncols ? ", " : ")\n");
    }
    for (int b = 0; b < ncols; b++) {
        curve_start(f, data, b);
        fprintf(f, " every ::%d::%d using 1:2:3:4 with yerrorbars ", b, b);
        curve_end(f, b, ncols);
    }
    fprintf(f, "set xtics autofreq norotate autojustify\nset autoscale x\n");
}

/* Where a panel goes: its plot area in screen fractions. */
static void put_margins(FILE *f, double left, double right, double bottom, double top)
{
    fprintf(f, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n", left, right);
    fprintf(f, "set bmargin at screen %.4f\nset tmargin at screen %.4f\n", bottom, top);
}

static kcbp_status run_gnuplot(const char *script, kcbp_error *err)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "cannot run gnuplot: out of memory");
    /* gnuplot's stdout is not ours: the report goes there */
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"gnuplot", (char *)script, NULL};
    /* gnuplot gets the signal mask kcbp started with, not the one of its
     * signal thread (interrupt.h) */
    posix_spawnattr_t attr;
    sigset_t mask;
    kcbp_cli_interrupt_default_mask(&mask);
    bool attr_ok = posix_spawnattr_init(&attr) == 0;
    if (attr_ok) {
        posix_spawnattr_setsigmask(&attr, &mask);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    }
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, attr_ok ? &attr : NULL, argv, environ);
    if (attr_ok)
        posix_spawnattr_destroy(&attr);
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

const char *kcbp_cli_plot_terminal(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    if (!strcasecmp(dot, ".svg"))
        return "svg";
    if (!strcasecmp(dot, ".png"))
        return "pngcairo";
    if (!strcasecmp(dot, ".pdf"))
        return "pdfcairo";
    return NULL;
}

/* Writes the data files of series m: DIR/dataM.dat (n, then per volume the
 * hit rate and the detection time's median, least and greatest) and
 * DIR/ctM.dat (per volume: its index from 1, the construction time's
 * median, least and greatest). */
static kcbp_status write_data(const char *dir, int m, const kcbp_cli_plot_series *s, kcbp_error *err)
{
    char path[PATH_MAX];
    for (int which = 0; which < 2; which++) {
        snprintf(path, sizeof path, "%s/%s%d.dat", dir, which ? "ct" : "data", m);
        FILE *f = fopen(path, "w");
        if (!f)
            return kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", path, strerror(errno));
        if (which == 0) {
            fprintf(f, "# n, then per volume: hit rate, DT median, min, max (ms)\n");
            for (int i = 0; i < s->nx; i++) {
                fprintf(f, "%g", s->x[i]);
                for (int b = 0; b < s->ncols; b++) {
                    const double *dt = &s->dt[3 * (i * s->ncols + b)];
                    fprintf(f, " %.9g %.9g %.9g %.9g", s->r[i * s->ncols + b], dt[0], dt[1], dt[2]);
                }
                fprintf(f, "\n");
            }
        } else {
            fprintf(f, "# volume, CT median, min, max (ms)\n");
            for (int b = 0; b < s->ncols; b++)
                fprintf(f, "%d %.9g %.9g %.9g\n", b + 1, s->ct[3 * b], s->ct[3 * b + 1], s->ct[3 * b + 2]);
        }
        if (fclose(f) != 0)
            return kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", path, strerror(errno));
    }
    return KCBP_OK;
}

/* Whether every value of v (n) is > 0: a log scale can show them. */
static bool all_positive(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!(v[i] > 0))
            return false;
    return true;
}

/* The gnuplot script: per series a row of three panels (hit rate, DT, CT),
 * placed by hand so that one legend, for every panel, fits below them. */
static void write_script(FILE *f, const char *out, const char *dir, const kcbp_cli_plot_series *series, int nseries,
                         const char *const *names, const char *layout)
{
    int rows = nseries > 0 ? nseries : 1, ncols = nseries > 0 ? series[0].ncols : 0;
    /* pixels (inches / 100 for PDF) */
    const double W = 1500, title = 50, row = 400, legend = 40 + 22.0 * ((ncols + 5) / 6);
    const double H = title + row * rows + legend;
    const char *term = kcbp_cli_plot_terminal(out);
    if (!strcmp(term, "pdfcairo"))
        fprintf(f, "set terminal pdfcairo size %.2fin,%.2fin font 'sans,9' background rgb 'white'\n", W / 100,
                H / 100);
    else
        fprintf(f, "set terminal %s size %.0f,%.0f %sfont 'sans,11' background rgb 'white'\n", term, W, H,
                !strcmp(term, "svg") ? "dynamic " : "");
    fprintf(f, "set termoption noenhanced\nset output ");
    put_quoted(f, out);
    fprintf(f, "\nset multiplot title ");
    put_quoted(f, layout);
    fprintf(f, " . ' layout: bounding volumes as filters before the mesh test (DT, CT: median of the runs, "
               "bars min to max)'\nunset key\nset grid\nset format y '%%g'\n");
    char data[PATH_MAX];
    for (int m = 0; m < nseries; m++) {
        const kcbp_cli_plot_series *s = &series[m];
        double top = 1 - (title + row * m + 30) / H, bottom = 1 - (title + row * (m + 1) - 80) / H;
        for (int c = 0; c < 3; c++) {
            put_margins(f, c / 3.0 + 90 / W, (c + 1) / 3.0 - 20 / W, bottom, top);
            fprintf(f, "set title ");
            put_quoted(f, s->title);
            if (c == 0) {
                fprintf(f, " . ': hit rate r = colliding / passing'\nset xlabel 'n (objects - 1)'\n");
                fprintf(f, "unset logscale y\nset ylabel 'hit rate'\nset yrange [0:1.05]\n");
                snprintf(data, sizeof data, "%s/data%d.dat", dir, m);
                plot_lines(f, data, s->ncols, false);
            } else if (c == 1) {
                fprintf(f, " . ': detection time'\nset ylabel 'DT (ms)'\nset autoscale y\n%s\n",
                        all_positive(s->dt, 3 * s->nx * s->ncols) ? "set logscale y" : "unset logscale y");
                plot_lines(f, data, s->ncols, true);
            } else {
                fprintf(f, " . ': construction time'\nset xlabel ''\nset ylabel 'CT (ms)'\n%s\n",
                        all_positive(s->ct, 3 * s->ncols) ? "set logscale y" : "unset logscale y");
                snprintf(data, sizeof data, "%s/ct%d.dat", dir, m);
                plot_ct(f, data, s->ncols, names);
            }
        }
    }
    /* The legend, once: empty curves with every line's look, below it all. */
    put_margins(f, 0.02, 0.98, 0.005, legend / H);
    fprintf(f, "unset title\nunset xlabel\nunset ylabel\nunset border\nunset tics\nunset grid\nunset logscale\n"
               "set xrange [0:1]\nset yrange [0:1]\nset key inside center center horizontal maxcols 6 width 2\n"
               "plot ");
    for (int b = 0; b < ncols; b++) {
        fprintf(f, "NaN with linespoints ");
        put_style(f, b);
        fprintf(f, " title ");
        put_quoted(f, names[b]);
        fprintf(f, b + 1 < ncols ? ", \\\n     " : "\n");
    }
    if (ncols == 0)
        fprintf(f, "NaN notitle\n");
    fprintf(f, "unset multiplot\nset output\n");
}

kcbp_status kcbp_cli_bench_plot(const char *path, const kcbp_cli_plot_series *series, int nseries,
                                const char *const *names, const char *layout, kcbp_error *err)
{
    if (!kcbp_cli_plot_terminal(path))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "--plot: %s: not .svg, .png or .pdf", path);
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
        written = m + 1;
        st = write_data(dir, m, &series[m], err);
    }
    FILE *f = st == KCBP_OK ? fopen(script, "w") : NULL;
    if (st == KCBP_OK && !f)
        st = kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", script, strerror(errno));
    if (f) {
        write_script(f, path, dir, series, nseries, names, layout);
        if (fclose(f) != 0)
            st = kcbp_error_set(err, KCBP_ERR_IO, "--plot: %s: %s", script, strerror(errno));
        if (st == KCBP_OK)
            st = run_gnuplot(script, err);
        unlink(script);
    }
    for (int m = 0; m < written; m++) {
        snprintf(data, sizeof data, "%s/data%d.dat", dir, m);
        unlink(data);
        snprintf(data, sizeof data, "%s/ct%d.dat", dir, m);
        unlink(data);
    }
    rmdir(dir);
    return st;
}
