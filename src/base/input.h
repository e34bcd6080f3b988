/* Opening and reading the library's input files (internal: not installed):
 * OBJ meshes, pose files and scene files all come through here, so that
 * every reader treats special files alike.
 *
 * - "-" is standard input (a file literally named "-" is "./-").
 * - Regular files are read as they are.
 * - A FIFO is opened without blocking (opening one blocks until a writer
 *   appears): when no writer has connected within KCBP_INPUT_FIFO_WAIT_MS,
 *   the read fails with "no writer" instead of waiting forever. A pipe with
 *   a writer (standard input, /dev/stdin, /dev/fd/N) is read as it comes.
 * - Character devices and sockets are read as streams (/dev/null is empty,
 *   /dev/zero stops at its first byte, a NUL).
 * - Directories and block devices are refused.
 * Whole-file reads stop at the first chunk holding a NUL byte (the caller's
 * parser reports it where it is) and at the caller's size limit. */
#ifndef KCBP_INPUT_H
#define KCBP_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <kcbp/error.h>

/* How long a FIFO without a writer is waited for. */
#define KCBP_INPUT_FIFO_WAIT_MS 1000

typedef struct {
    const char *path; /* as given, for messages */
    int fd;
    bool is_stdin;    /* "-": not closed */
    bool regular;
    off_t size;       /* of a regular file */
    bool fifo_checked; /* a FIFO's writer has been waited for */
} kcbp_input;

/* Opens path ("-": standard input). what names the kind of file expected in
 * the message for a directory, e.g. "an OBJ file". Errors: KCBP_ERR_IO,
 * "path: cannot open: strerror", "path: is a directory, not WHAT", "path: is
 * a block device". */
kcbp_status kcbp_input_open(kcbp_input *in, const char *path, const char *what, kcbp_error *err);
/* Reads up to n bytes (retrying on EINTR): > 0 bytes read, 0 at the end, -1
 * on error (err set: "path: read error: ..." or "path: a FIFO with no writer"). */
ssize_t kcbp_input_read(kcbp_input *in, void *buf, size_t n, kcbp_error *err);
/* Whether reading should stop after a chunk, given the n bytes read so far
 * (buf) and whether any of them is a NUL byte. */
typedef bool (*kcbp_input_stop_fn)(void *ctx, const kcbp_input *in, const char *buf, size_t n, bool seen_nul);

/* Reads the whole input into *buf (malloc'ed, *len bytes, plus a NUL after
 * them), stopping when stop says so after a chunk (NULL: after the first
 * chunk that holds a NUL byte: text formats, whose parser reports where).
 * More than limit bytes: KCBP_ERR_LIMIT, "path: larger than the limit of
 * LIMIT_TEXT" (limit_text: e.g. "256 MiB"). */
kcbp_status kcbp_input_read_all(kcbp_input *in, size_t limit, const char *limit_text, kcbp_input_stop_fn stop,
                                void *ctx, char **buf, size_t *len, kcbp_error *err);
/* Data is ready without blocking (poll with no wait). */
bool kcbp_input_ready(const kcbp_input *in);
void kcbp_input_close(kcbp_input *in);

#endif
