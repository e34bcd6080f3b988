/* Progress lines (progress.h). The counter is atomic so that kcbp batch's
 * workers may count without a lock; drawing takes a mutex, tried rather
 * than waited for, so that a worker never waits on stderr. */
#include "progress.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TTY_EVERY_S 0.2
#define LOG_EVERY_S 2.0

static pthread_mutex_t draw_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
    bool forced, active, tty, drawn;
    const char *cmd, *unit;
    _Atomic uint64_t done, total;
    double start, last;
    char note[96];
} P;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kcbp_cli_progress_eta(char out[32], double s)
{
    if (!(s >= 0) || !isfinite(s) || s > 360000.0 * 24) {
        snprintf(out, 32, "?");
        return;
    }
    long t = (long)ceil(s);
    if (t >= 3600)
        snprintf(out, 32, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, 32, "%ld:%02ld", t / 60, t % 60);
}

void kcbp_cli_progress_force(void)
{
    P.forced = true;
}

void kcbp_cli_progress_begin(const char *cmd, const char *unit, uint64_t total)
{
    pthread_mutex_lock(&draw_mutex);
    P.tty = isatty(STDERR_FILENO) == 1;
    P.active = P.tty || P.forced;
    P.drawn = false;
    P.cmd = cmd;
    P.unit = unit;
    atomic_store(&P.done, 0);
    atomic_store(&P.total, total);
    P.start = P.last = now_s();
    P.note[0] = '\0';
    pthread_mutex_unlock(&draw_mutex);
}

void kcbp_cli_progress_total(uint64_t total)
{
    atomic_store(&P.total, total);
}

/* Draws the line; the caller holds draw_mutex. */
static void draw(double t, bool final)
{
    uint64_t done = atomic_load(&P.done), total = atomic_load(&P.total);
    double el = t - P.start, rate = el > 0 ? (double)done / el : 0;
    char line[256], eta[32];
    int n = snprintf(line, sizeof line, "kcbp %s: %llu", P.cmd, (unsigned long long)done);
    if (total)
        n += snprintf(line + n, sizeof line - (size_t)n, "/%llu", (unsigned long long)total);
    n += snprintf(line + n, sizeof line - (size_t)n, " %s", P.unit);
    if (done && el > 0)
        n += snprintf(line + n, sizeof line - (size_t)n, ", %.3g/s", rate);
    if (total && !final) {
        kcbp_cli_progress_eta(eta, done && rate > 0 ? (double)(total - (done < total ? done : total)) / rate : -1);
        n += snprintf(line + n, sizeof line - (size_t)n, ", %s left", eta);
    } else if (final) {
        kcbp_cli_progress_eta(eta, el);
        n += snprintf(line + n, sizeof line - (size_t)n, " in %s", eta);
    }
    if (P.note[0] && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, " (%s)", P.note);
    if (P.tty)
        fprintf(stderr, "\r\033[K%s", line);
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
    P.drawn = true;
    P.last = t;
}

static void maybe_draw(void)
{
    if (!P.active || pthread_mutex_trylock(&draw_mutex) != 0)
        return;
    double t = now_s();
    if (P.active && t - P.last >= (P.tty ? TTY_EVERY_S : LOG_EVERY_S))
        draw(t, false);
    pthread_mutex_unlock(&draw_mutex);
}

void kcbp_cli_progress_add(uint64_t n)
{
    atomic_fetch_add(&P.done, n);
    maybe_draw();
}

void kcbp_cli_progress_note(const char *note)
{
    if (!P.active)
        return;
    pthread_mutex_lock(&draw_mutex);
    snprintf(P.note, sizeof P.note, "%s", note ? note : "");
    pthread_mutex_unlock(&draw_mutex);
    maybe_draw();
}

void kcbp_cli_progress_end(void)
{
    pthread_mutex_lock(&draw_mutex);
    if (P.active) {
        if (P.tty) {
            if (P.drawn)
                fputs("\r\033[K", stderr);
        } else {
            draw(now_s(), true);
        }
        fflush(stderr);
    }
    P.active = false;
    pthread_mutex_unlock(&draw_mutex);
}

void kcbp_cli_progress_clear(void)
{
    if (!P.active || !P.tty || !P.drawn || pthread_mutex_trylock(&draw_mutex) != 0)
        return;
    if (P.drawn && isatty(STDOUT_FILENO) == 1) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        P.drawn = false;
    }
    pthread_mutex_unlock(&draw_mutex);
}

void kcbp_cli_progress_interrupted(void)
{
    /* Not waited for: a thread stuck writing stderr must not stop the exit. */
    if (pthread_mutex_trylock(&draw_mutex) != 0)
        return;
    if (P.active && P.tty && P.drawn)
        fputs("\n", stderr), fflush(stderr);
    P.active = false;
    pthread_mutex_unlock(&draw_mutex);
}
