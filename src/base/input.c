/* Input files of every reader: "-", regular files, FIFOs without a writer,
 * devices, size limits and NUL bytes (see input.h). */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_blocking(int fd);

kcbp_status kcbp_input_open(kcbp_input *in, const char *path, const char *what, kcbp_error *err)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    in->fd = -1;
    if (!strcmp(path, "-")) {
        in->fd = STDIN_FILENO;
        in->is_stdin = true;
        in->fifo_checked = true; /* whoever gave us the pipe has its writer */
    } else {
        /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer. */
        in->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (in->fd < 0)
            return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat sb;
    if (fstat(in->fd, &sb) != 0) {
        int e = errno;
        kcbp_input_close(in);
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        kcbp_input_close(in);
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: is a directory, not %s", path, what);
    }
    if (S_ISBLK(sb.st_mode)) {
        kcbp_input_close(in);
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: is a block device, not %s", path, what);
    }
    in->regular = S_ISREG(sb.st_mode);
    in->size = in->regular ? sb.st_size : 0;
    if (!S_ISFIFO(sb.st_mode))
        in->fifo_checked = true;
    /* Reads block from here on (a FIFO's after its writer is seen). */
    if (!in->is_stdin && in->fifo_checked)
        set_blocking(in->fd);
    return KCBP_OK;
}

static void set_blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* A FIFO opened by name, before its first read: wait a while for a writer
 * (or data). With no writer a read says "end of file" at once on Linux,
 * which would make a FIFO whose writer is just starting look empty, and a
 * blocking open would wait forever. Returns what the first read got (bytes
 * or 0 at the end), -2 when a writer is there but has not written yet, -1
 * when no writer came. */
static ssize_t fifo_first_read(kcbp_input *in, void *buf, size_t n)
{
    in->fifo_checked = true;
    struct pollfd p = {.fd = in->fd, .events = POLLIN};
    int r;
    do
        r = poll(&p, 1, KCBP_INPUT_FIFO_WAIT_MS);
    while (r < 0 && errno == EINTR);
    ssize_t got = -2;
    if (r == 0) { /* nothing within the wait: is there a writer at all? */
        do
            got = read(in->fd, buf, n);
        while (got < 0 && errno == EINTR);
        if (got == 0)
            got = -1;
        else if (got < 0)
            got = -2; /* EAGAIN: a writer that has not written */
    }
    set_blocking(in->fd);
    return got;
}

ssize_t kcbp_input_read(kcbp_input *in, void *buf, size_t n, kcbp_error *err)
{
    if (!in->fifo_checked) {
        ssize_t got = fifo_first_read(in, buf, n);
        if (got == -1) {
            kcbp_error_set(err, KCBP_ERR_IO, "%s: a FIFO with no writer (waited %d ms)", in->path,
                           KCBP_INPUT_FIFO_WAIT_MS);
            return -1;
        }
        if (got >= 0)
            return got;
    }
    for (;;) {
        ssize_t got = read(in->fd, buf, n);
        if (got >= 0)
            return got;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) { /* standard input left non-blocking by its owner */
            struct pollfd p = {.fd = in->fd, .events = POLLIN};
            (void)poll(&p, 1, -1);
            continue;
        }
        kcbp_error_set(err, KCBP_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
        return -1;
    }
}

kcbp_status kcbp_input_read_all(kcbp_input *in, size_t limit, const char *limit_text, kcbp_input_stop_fn stop,
                                void *ctx, char **buf, size_t *len, kcbp_error *err)
{
    *buf = NULL;
    *len = 0;
    if (in->regular && (uintmax_t)in->size > limit)
        return kcbp_error_set(err, KCBP_ERR_LIMIT, "%s: file of %jd bytes is larger than the limit of %s", in->path,
                              (intmax_t)in->size, limit_text);
    /* A regular file in one read of its size (plus one byte to see the
     * end); streams grow the buffer as they go. */
    size_t cap = in->regular ? (size_t)in->size + 2 : (size_t)1 << 16, n = 0;
    char *b = malloc(cap);
    if (!b)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu bytes", in->path, cap);
    bool seen_nul = false;
    for (;;) {
        if (n + 1 >= cap) {
            size_t ncap = cap > limit / 2 ? limit + 2 : 2 * cap;
            char *g = ncap > cap ? realloc(b, ncap) : NULL;
            if (!g) {
                free(b);
                return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory for %zu bytes", in->path, ncap);
            }
            b = g;
            cap = ncap;
        }
        ssize_t got = kcbp_input_read(in, b + n, cap - 1 - n, err);
        if (got < 0) {
            free(b);
            return KCBP_ERR_IO;
        }
        if (got == 0)
            break;
        seen_nul = seen_nul || memchr(b + n, '\0', (size_t)got) != NULL;
        n += (size_t)got;
        if (n > limit) {
            free(b);
            return kcbp_error_set(err, KCBP_ERR_LIMIT, "%s: %s larger than the limit of %s", in->path,
                                  in->regular ? "file grew" : "stream is", limit_text);
        }
        if (stop ? stop(ctx, in, b, n, seen_nul) : seen_nul) /* binary: the parser reports where */
            break;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return KCBP_OK;
}

bool kcbp_input_ready(const kcbp_input *in)
{
    struct pollfd p = {.fd = in->fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

void kcbp_input_close(kcbp_input *in)
{
    if (in->fd >= 0 && !in->is_stdin)
        close(in->fd);
    in->fd = -1;
}
