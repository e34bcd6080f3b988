#include <kcbp/pose.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "base/numparse.h"
#include "base/util.h"

kcbp_pose kcbp_pose_identity(void)
{
    kcbp_pose p = {kcbp_mat3_identity(), {0, 0, 0}};
    return p;
}

kcbp_status kcbp_pose_from_axis_angle(kcbp_vec3 trans, kcbp_vec3 axis, double deg, kcbp_pose *out,
                                      kcbp_error *err)
{
    if (!isfinite(trans.x) || !isfinite(trans.y) || !isfinite(trans.z) || !isfinite(axis.x) ||
        !isfinite(axis.y) || !isfinite(axis.z) || !isfinite(deg))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "pose has a non-finite number");
    if (kcbp_v3_max_abs(trans) > KCBP_COORD_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "translation %g is beyond the limit of %g",
                              kcbp_v3_max_abs(trans), KCBP_COORD_MAX);
    double len = kcbp_v3_len(axis);
    *out = kcbp_pose_identity();
    out->trans = trans;
    if (axis.x == 0.0 && axis.y == 0.0 && axis.z == 0.0) {
        if (deg != 0.0)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "rotation axis is zero but the angle is %g degrees", deg);
        return KCBP_OK;
    }
    /* |axis| overflows above ~1e154 and underflows below ~1e-154 (the axis
     * then came out as zero, or the identity); such an axis is first
     * divided by its largest component, which is exact enough and keeps
     * the usual axes' results bit for bit. */
    if (!(len > 1e-150 && len < 1e150)) {
        double m = fmax(fabs(axis.x), fmax(fabs(axis.y), fabs(axis.z)));
        axis = kcbp_v3(axis.x / m, axis.y / m, axis.z / m);
        len = kcbp_v3_len(axis);
    }
    kcbp_vec3 u = kcbp_v3_scale(axis, 1.0 / len);
    /* Rodrigues' formula: R = c I + s [u]x + (1 - c) u u^T. The angle is
     * reduced modulo 360 first, so that 360 degrees is exactly the identity. */
    double rad = fmod(deg, 360.0) * (M_PI / 180.0);
    double c = cos(rad), s = sin(rad), t = 1.0 - c;
    kcbp_mat3 *r = &out->rot;
    r->m[0][0] = c + t * u.x * u.x;
    r->m[0][1] = t * u.x * u.y - s * u.z;
    r->m[0][2] = t * u.x * u.z + s * u.y;
    r->m[1][0] = t * u.y * u.x + s * u.z;
    r->m[1][1] = c + t * u.y * u.y;
    r->m[1][2] = t * u.y * u.z - s * u.x;
    r->m[2][0] = t * u.z * u.x - s * u.y;
    r->m[2][1] = t * u.z * u.y + s * u.x;
    r->m[2][2] = c + t * u.z * u.z;
    return KCBP_OK;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* Parses exactly 7 * n numbers from [s, end): n poses (n is 1 or 2). */
static kcbp_status parse_poses_span(kcbp_numparse *np, const char *s, const char *end, kcbp_pose *out, int n_poses,
                                    kcbp_error *err)
{
    double v[14];
    int n = 0, want = 7 * n_poses;
    const char *what = n_poses == 1 ? "pose" : "sweep";
    const char *form = n_poses == 1 ? "\"tx ty tz ax ay az deg\""
                                    : "a from-pose and a to-pose, \"tx ty tz ax ay az deg\" each";
    const char *p = s;
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end)
            break;
        if (n == want)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s has more than %d numbers (expected %s)", what, want, form);
        const char *stop;
        kcbp_num_result r = kcbp_parse_double(np, p, end, &stop, &v[n]);
        if (r == KCBP_NUM_OK && stop < end && !is_space(*stop))
            r = KCBP_NUM_MALFORMED;
        if (r != KCBP_NUM_OK) {
            const char *tok_end = p;
            while (tok_end < end && !is_space(*tok_end))
                tok_end++;
            char tok[44]; /* at most 40 bytes, control and non-ASCII bytes shown as '?' */
            size_t len = 0;
            for (; p < tok_end && len < 40; p++)
                tok[len++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
            tok[len] = '\0';
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s number %d: %s '%s'", what, n + 1,
                                  r == KCBP_NUM_NONFINITE ? "not a finite number:" : "malformed number", tok);
        }
        n++;
        p = stop;
    }
    if (n != want)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s has %d numbers, expected %d: %s", what, n, want, form);
    for (int i = 0; i < n_poses; i++) {
        const double *w = v + 7 * i;
        kcbp_status st = kcbp_pose_from_axis_angle(kcbp_v3(w[0], w[1], w[2]), kcbp_v3(w[3], w[4], w[5]), w[6], &out[i], err);
        if (st != KCBP_OK)
            return st;
    }
    return KCBP_OK;
}

kcbp_status kcbp_pose_parse(const char *text, kcbp_pose *out, kcbp_error *err)
{
    kcbp_numparse np = {0};
    kcbp_status st = parse_poses_span(&np, text, text + strlen(text), out, 1, err);
    kcbp_numparse_done(&np);
    return st;
}

struct kcbp_pose_reader {
    kcbp_input in;
    char *path;
    kcbp_numparse np;
    char *buf;          /* [start, end) not yet used */
    size_t start, end;
    bool eof;
    long line;          /* lines used so far */
    size_t poses;       /* poses returned so far */
};

/* Room for the longest line and a read's worth after it. */
#define READER_BUF (KCBP_POSE_MAX_LINE + ((size_t)1 << 16))

kcbp_status kcbp_pose_reader_open(kcbp_pose_reader **out, const char *path, kcbp_error *err)
{
    *out = NULL;
    kcbp_pose_reader *r = calloc(1, sizeof *r);
    char *p = kcbp_strdup(path);
    char *buf = malloc(READER_BUF);
    if (!r || !p || !buf) {
        free(r);
        free(p);
        free(buf);
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "%s: out of memory", path);
    }
    r->path = p;
    r->buf = buf;
    kcbp_status st = kcbp_input_open(&r->in, r->path, "a pose file", err);
    if (st != KCBP_OK) {
        r->in.fd = -1;
        kcbp_pose_reader_close(r);
        return st;
    }
    *out = r;
    return KCBP_OK;
}

void kcbp_pose_reader_close(kcbp_pose_reader *r)
{
    if (!r)
        return;
    kcbp_input_close(&r->in);
    kcbp_numparse_done(&r->np);
    free(r->buf);
    free(r->path);
    free(r);
}

bool kcbp_pose_reader_ready(const kcbp_pose_reader *r)
{
    return r->eof || memchr(r->buf + r->start, '\n', r->end - r->start) || kcbp_input_ready(&r->in);
}

long kcbp_pose_reader_line(const kcbp_pose_reader *r) { return r->line; }

/* The next line, without its newline, in [*s, *e); false at the end. */
static kcbp_status next_line(kcbp_pose_reader *r, const char **s, const char **e, bool *got, kcbp_error *err)
{
    *got = false;
    for (;;) {
        char *b = r->buf + r->start;
        size_t avail = r->end - r->start;
        char *nl = memchr(b, '\n', avail);
        size_t len = nl ? (size_t)(nl - b) : avail;
        if (memchr(b, '\0', len))
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: NUL byte: not a text file", r->path, r->line + 1);
        if (len > KCBP_POSE_MAX_LINE)
            return kcbp_error_set(err, KCBP_ERR_LIMIT, "%s:%ld: line longer than the limit of %u bytes", r->path,
                                  r->line + 1, KCBP_POSE_MAX_LINE);
        if (nl || (r->eof && avail)) {
            r->line++;
            *s = b;
            *e = b + len;
            r->start += len + (nl != NULL);
            *got = true;
            return KCBP_OK;
        }
        if (r->eof)
            return KCBP_OK;
        memmove(r->buf, b, avail);
        r->start = 0;
        r->end = avail;
        ssize_t n = kcbp_input_read(&r->in, r->buf + r->end, READER_BUF - r->end, err);
        if (n < 0)
            return KCBP_ERR_IO;
        r->eof = n == 0;
        r->end += (size_t)n;
    }
}

kcbp_status kcbp_pose_reader_next(kcbp_pose_reader *r, kcbp_pose *pose, bool *done, kcbp_error *err)
{
    return kcbp_pose_reader_next_n(r, pose, 1, done, err);
}

kcbp_status kcbp_pose_reader_next_n(kcbp_pose_reader *r, kcbp_pose *poses, int n, bool *done, kcbp_error *err)
{
    if (n < 1 || n > 2)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "pose reader: %d poses per line (1 or 2)", n);
    *done = false;
    for (;;) {
        const char *p, *end;
        bool got;
        kcbp_status st = next_line(r, &p, &end, &got, err);
        if (st != KCBP_OK)
            return st;
        if (!got) {
            if (r->poses == 0)
                return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: no %s in file", r->path, n == 1 ? "poses" : "sweeps");
            *done = true;
            return KCBP_OK;
        }
        const char *hash = memchr(p, '#', (size_t)(end - p));
        if (hash)
            end = hash;
        while (p < end && is_space(*p))
            p++;
        if (p == end)
            continue;
        st = parse_poses_span(&r->np, p, end, poses, n, err);
        if (st != KCBP_OK) {
            char where[300];
            snprintf(where, sizeof where, "%s:%ld", r->path, r->line);
            kcbp_error_prefix(err, where);
            return st;
        }
        r->poses++;
        return KCBP_OK;
    }
}

kcbp_status kcbp_pose_load_file(const char *path, kcbp_pose **poses, size_t *count, kcbp_error *err)
{
    *poses = NULL;
    *count = 0;
    kcbp_pose_reader *r;
    kcbp_status st = kcbp_pose_reader_open(&r, path, err);
    size_t cap = 0;
    for (bool done = false; st == KCBP_OK;) {
        kcbp_pose pose;
        if ((st = kcbp_pose_reader_next(r, &pose, &done, err)) != KCBP_OK || done)
            break;
        if (!kcbp_grow(poses, &cap, *count + 1, sizeof **poses, 64)) {
            st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s:%ld: out of memory", path, r->line);
            break;
        }
        (*poses)[(*count)++] = pose;
    }
    kcbp_pose_reader_close(r);
    if (st != KCBP_OK) {
        free(*poses);
        *poses = NULL;
        *count = 0;
    }
    return st;
}

kcbp_pose kcbp_pose_mul(const kcbp_pose *a, const kcbp_pose *b)
{
    kcbp_pose r;
    r.rot = kcbp_mat3_mul(&a->rot, &b->rot);
    r.trans = kcbp_pose_apply(a, b->trans);
    return r;
}

kcbp_pose kcbp_pose_inverse(const kcbp_pose *p)
{
    kcbp_pose r;
    r.rot = kcbp_mat3_transpose(&p->rot);
    r.trans = kcbp_v3_neg(kcbp_mat3_mul_v3(&r.rot, p->trans));
    return r;
}

kcbp_pose kcbp_pose_relative(const kcbp_pose *a, const kcbp_pose *b)
{
    kcbp_pose ia = kcbp_pose_inverse(a);
    return kcbp_pose_mul(&ia, b);
}
