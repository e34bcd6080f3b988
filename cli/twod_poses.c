/* Files of 2D poses for kcbp collide/distance --poses and kcbp sweep
 * --sweeps on 2D inputs (cli/twod.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "twod.h"

kcbp_status kcbp_cli_poses2d_open(kcbp_cli_poses2d *r, const char *path, int count, kcbp_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->count = count;
    r->f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!r->f)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot open a pose file: %s", path, strerror(errno));
    return KCBP_OK;
}

void kcbp_cli_poses2d_close(kcbp_cli_poses2d *r)
{
    if (r->f && r->f != stdin)
        fclose(r->f);
    free(r->line);
    memset(r, 0, sizeof *r);
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

kcbp_status kcbp_cli_poses2d_next(kcbp_cli_poses2d *r, double *v, bool *done, kcbp_error *err)
{
    *done = false;
    const char *form = r->count == 3 ? "\"tx ty deg\"" : "\"tx ty deg tx ty deg\" (from, to)";
    for (;;) {
        errno = 0;
        ssize_t len = getline(&r->line, &r->cap, r->f);
        if (len < 0) {
            if (ferror(r->f))
                return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot read: %s", r->path, strerror(errno));
            if (r->lines_read == 0)
                return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: no %s in file", r->path,
                                      r->count == 3 ? "poses" : "sweeps");
            *done = true;
            return KCBP_OK;
        }
        r->lineno++;
        if (memchr(r->line, '\0', (size_t)len))
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: NUL byte: not a text file", r->path, r->lineno);
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
