/* Files of 2D poses for kcbp collide/distance --poses and kcbp sweep
 * --sweeps on 2D inputs (cli/twod.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <kcbp/pose.h>

#include "twod.h"

#define CHUNK ((size_t)1 << 16)
#define FIFO_WAIT_MS 1000 /* as the library's readers (src/base/input.h) */

static void set_blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

kcbp_status kcbp_cli_poses2d_open(kcbp_cli_poses2d *r, const char *path, int count, kcbp_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->count = count;
    r->fd = -1;
    if (!strcmp(path, "-")) {
        r->fd = STDIN_FILENO;
        r->is_stdin = true;
    } else if ((r->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
        /* O_NONBLOCK: a blocking open of a FIFO waits for a writer for ever */
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot open a pose file: %s", path, strerror(errno));
    }
    struct stat sb;
    kcbp_status st = KCBP_OK;
    if (fstat(r->fd, &sb) != 0)
        st = kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    else if (S_ISDIR(sb.st_mode))
        st = kcbp_error_set(err, KCBP_ERR_IO, "%s: is a directory, not a pose file", path);
    else if (S_ISBLK(sb.st_mode))
        st = kcbp_error_set(err, KCBP_ERR_IO, "%s: is a block device, not a pose file", path);
    else if (!(r->buf = malloc(CHUNK)) || !(r->line = malloc(KCBP_POSE_MAX_LINE + 1)))
        st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", path);
    if (st != KCBP_OK) {
        kcbp_cli_poses2d_close(r);
        return st;
    }
    r->fifo_pending = !r->is_stdin && S_ISFIFO(sb.st_mode);
    if (!r->is_stdin && !r->fifo_pending)
        set_blocking(r->fd);
    return KCBP_OK;
}

void kcbp_cli_poses2d_close(kcbp_cli_poses2d *r)
{
    if (r->fd >= 0 && !r->is_stdin)
        close(r->fd);
    free(r->buf);
    free(r->line);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}

void kcbp_cli_poses2d_blame(const kcbp_cli_poses2d *r, kcbp_error *err)
{
    char where[64];
    snprintf(where, sizeof where, ":%ld", r->lineno);
    size_t n = strlen(r->path);
    char *p = malloc(n + sizeof where);
    if (!p)
        return;
    memcpy(p, r->path, n);
    memcpy(p + n, where, strlen(where) + 1);
    kcbp_error_prefix(err, p);
    free(p);
}

/* The next chunk into buf: its size, 0 at the end, -1 on error. A FIFO
 * opened by name is given FIFO_WAIT_MS for a writer (with none, a read
 * says "end of file" at once, and a blocking open would wait for ever). */
static ssize_t read_chunk(kcbp_cli_poses2d *r, kcbp_error *err)
{
    if (r->fifo_pending) {
        r->fifo_pending = false;
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        int k;
        do
            k = poll(&p, 1, FIFO_WAIT_MS);
        while (k < 0 && errno == EINTR);
        if (k == 0) {
            ssize_t got;
            do
                got = read(r->fd, r->buf, CHUNK);
            while (got < 0 && errno == EINTR);
            if (got == 0) {
                kcbp_error_set(err, KCBP_ERR_IO, "%s: a FIFO with no writer (waited %d ms)", r->path, FIFO_WAIT_MS);
                return -1;
            }
            if (got > 0) {
                set_blocking(r->fd);
                return got;
            }
        }
        set_blocking(r->fd);
    }
    for (;;) {
        ssize_t got = read(r->fd, r->buf, CHUNK);
        if (got >= 0)
            return got;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) { /* standard input left non-blocking by its owner */
            struct pollfd p = {.fd = r->fd, .events = POLLIN};
            (void)poll(&p, 1, -1);
            continue;
        }
        kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot read: %s", r->path, strerror(errno));
        return -1;
    }
}

/* The next line into r->line (without its newline): 1, 0 at the end, -1
 * on error (*st and err set, naming the line). */
static int next_line(kcbp_cli_poses2d *r, kcbp_status *st, kcbp_error *err)
{
    size_t n = 0;
    bool any = false;
    for (;;) {
        if (r->pos == r->len) {
            if (r->eof)
                break;
            ssize_t got = read_chunk(r, err);
            if (got < 0) {
                *st = KCBP_ERR_IO;
                return -1;
            }
            r->pos = 0, r->len = (size_t)got;
            if (got == 0) {
                r->eof = true;
                break;
            }
        }
        any = true;
        const char *s = r->buf + r->pos, *nl = memchr(s, '\n', r->len - r->pos);
        size_t take = nl ? (size_t)(nl - s) : r->len - r->pos;
        if (memchr(s, '\0', take)) {
            *st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: NUL byte: not a text file", r->path, r->lineno + 1);
            return -1;
        }
        if (n + take > KCBP_POSE_MAX_LINE) {
            *st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: line longer than the limit of %u bytes", r->path,
                           r->lineno + 1, KCBP_POSE_MAX_LINE);
            return -1;
        }
        memcpy(r->line + n, s, take);
        n += take;
        r->pos += take + (nl != NULL);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    r->line[n] = '\0';
    r->lineno++;
    return 1;
}

kcbp_status kcbp_cli_poses2d_next(kcbp_cli_poses2d *r, double *v, bool *done, kcbp_error *err)
{
    *done = false;
    const char *form = r->count == 3 ? "\"tx ty deg\"" : "\"tx ty deg tx ty deg\" (from, to)";
    for (;;) {
        kcbp_status st = KCBP_OK;
        int got = next_line(r, &st, err);
        if (got < 0)
            return st;
        if (got == 0) {
            if (r->lines_read == 0)
                return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: no %s in file", r->path,
                                      r->count == 3 ? "poses" : "sweeps");
            *done = true;
            return KCBP_OK;
        }
        char *hash = strchr(r->line, '#');

        if (hash)
            *hash = 0;
        int n = 0;
        char *p = r->line;
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
                p++;
            if (!*p)
                break;
            char *end;
            double x = strtod(p, &end);
            if (end == p || (*end && !strchr(" \t\r\n", *end))) {
                char word[32];
                size_t wl = strcspn(p, " \t\r\n");
                snprintf(word, sizeof word, "%.*s", (int)(wl < 24 ? wl : 24), p);
                return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: '%s%s' is not a number (a line is %s)", r->path,
                                      r->lineno, word, wl < 24 ? "" : "...", form);
            }
            if (!isfinite(x))
                return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: number %d is not finite", r->path, r->lineno,
                                      n + 1);
            if (n < r->count)
                v[n] = x;
            n++;
            p = end;
        }
        if (n == 0)
            continue; /* a blank or comment line */
        if (n != r->count)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: %d numbers, expected %d (a line is %s)", r->path,
                                  r->lineno, n, r->count, form);
        r->lines_read++;
        return KCBP_OK;
    }
}
