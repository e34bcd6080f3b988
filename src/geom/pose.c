#include <kcbp/pose.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "base/numparse.h"
#include "base/util.h"
#include "pose_internal.h"

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
    *out = kcbp_pose_identity();
    out->trans = trans;
    if (axis.x == 0.0 && axis.y == 0.0 && axis.z == 0.0) {
        if (deg != 0.0)
            return kcbp_error_set(err, KCBP_ERR_INVALID, "rotation axis is zero but the angle is %g degrees", deg);
        return KCBP_OK;
    }
    out->rot = kcbp_axis_angle_rotation(axis, deg);
    return KCBP_OK;
}

kcbp_mat3 kcbp_axis_angle_rotation(kcbp_vec3 axis, double deg)
{
    double len = kcbp_v3_len(axis);
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
     * reduced modulo 360 first, so that 360 degrees is exactly the identity
     * (fmod is exact, and returns an angle under 360 degrees as it is: the
     * call is made only for the others). */
    double rad = (fabs(deg) < 360.0 ? deg : fmod(deg, 360.0)) * (M_PI / 180.0);
    double c = cos(rad), s = sin(rad), t = 1.0 - c;
    kcbp_mat3 r;
    r.m[0][0] = c + t * u.x * u.x;
    r.m[0][1] = t * u.x * u.y - s * u.z;
    r.m[0][2] = t * u.x * u.z + s * u.y;
    r.m[1][0] = t * u.y * u.x + s * u.z;
    r.m[1][1] = c + t * u.y * u.y;
    r.m[1][2] = t * u.y * u.z - s * u.x;
    r.m[2][0] = t * u.z * u.x - s * u.y;
    r.m[2][1] = t * u.z * u.y + s * u.x;
    r.m[2][2] = c + t * u.z * u.z;
    return r;
}

/* ---- quaternions and matrices ------------------------------------------- */

static bool finite_n(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static kcbp_status check_translation(kcbp_vec3 t, kcbp_error *err)
{
    if (kcbp_v3_max_abs(t) > KCBP_COORD_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "translation %g is beyond the limit of %g", kcbp_v3_max_abs(t),
                              KCBP_COORD_MAX);
    return KCBP_OK;
}

kcbp_status kcbp_pose_from_quat(kcbp_vec3 trans, double w, double x, double y, double z, kcbp_pose *out,
                                kcbp_error *err)
{
    const double v[7] = {trans.x, trans.y, trans.z, w, x, y, z};
    if (!finite_n(v, 7))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "pose has a non-finite number");
    kcbp_status st = check_translation(trans, err);
    if (st != KCBP_OK)
        return st;
    double n2 = w * w + x * x + y * y + z * z, len = sqrt(n2);
    if (!(fabs(len - 1.0) <= KCBP_POSE_QUAT_TOL))
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "quaternion (w x y z) = (%.10g %.10g %.10g %.10g) is not a unit quaternion: its length "
                              "is %.10g, off by more than %g (give it to 7 significant digits or more; kcbp does not "
                              "normalise it)",
                              w, x, y, z, len, KCBP_POSE_QUAT_TOL);
    /* The rotation of q / |q|, in this order (include/kcbp/pose.h). */
    double s = 2.0 / n2;
    kcbp_mat3 *r = &out->rot;
    r->m[0][0] = 1.0 - s * (y * y + z * z);
    r->m[0][1] = s * (x * y - w * z);
    r->m[0][2] = s * (x * z + w * y);
    r->m[1][0] = s * (x * y + w * z);
    r->m[1][1] = 1.0 - s * (x * x + z * z);
    r->m[1][2] = s * (y * z - w * x);
    r->m[2][0] = s * (x * z - w * y);
    r->m[2][1] = s * (y * z + w * x);
    r->m[2][2] = 1.0 - s * (x * x + y * y);
    out->trans = trans;
    return KCBP_OK;
}

kcbp_status kcbp_pose_from_matrix(const double *m, int n, kcbp_pose *out, kcbp_error *err)
{
    if (n != 12 && n != 16)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "a matrix pose has 12 numbers (3x4) or 16 (4x4), not %d", n);
    if (!finite_n(m, n))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "pose has a non-finite number");
    if (n == 16 && !(m[12] == 0 && m[13] == 0 && m[14] == 0 && m[15] == 1))
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "not a rigid motion: the last row of the 4x4 matrix is %.17g %.17g %.17g %.17g, "
                              "expected 0 0 0 1", m[12], m[13], m[14], m[15]);
    kcbp_mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r.m[i][j] = m[4 * i + j];
    double dev = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = r.m[0][i] * r.m[0][j] + r.m[1][i] * r.m[1][j] + r.m[2][i] * r.m[2][j] - (i == j ? 1.0 : 0.0);
            dev = fmax(dev, fabs(d));
        }
    double det = r.m[0][0] * (r.m[1][1] * r.m[2][2] - r.m[1][2] * r.m[2][1]) -
                 r.m[0][1] * (r.m[1][0] * r.m[2][2] - r.m[1][2] * r.m[2][0]) +
                 r.m[0][2] * (r.m[1][0] * r.m[2][1] - r.m[1][1] * r.m[2][0]);
    if (!(dev <= KCBP_POSE_RIGID_TOL))
        return kcbp_error_set(err, KCBP_ERR_INVALID,
                              "not a rigid motion: its rotation R has max |R^T R - I| = %.3g, beyond the tolerance "
                              "of %g (kcbp does not orthonormalise it)", dev, KCBP_POSE_RIGID_TOL);
    if (!(det > 0))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "not a rigid motion: det R = %.17g, a reflection", det);
    kcbp_vec3 t = kcbp_v3(m[3], m[7], m[11]);
    kcbp_status st = check_translation(t, err);
    if (st != KCBP_OK)
        return st;
    out->rot = r;
    out->trans = t;
    return KCBP_OK;
}

kcbp_status kcbp_poses_from_matrices(const double *m, size_t count, int n, kcbp_pose *out, kcbp_error *err)
{
    if ((!m || !out) && count > 0)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "kcbp_poses_from_matrices: NULL matrices or output");
    for (size_t i = 0; i < count; i++) {
        kcbp_status st = kcbp_pose_from_matrix(m + (size_t)n * i, n, &out[i], err);
        if (st != KCBP_OK) {
            char where[48];
            snprintf(where, sizeof where, "pose %zu", i);
            kcbp_error_prefix(err, where);
            return st;
        }
    }
    return KCBP_OK;
}

/* ---- text ---------------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* One item of a pose line: a number, or the word quat or matrix. */
enum { TOK_NUMBER, TOK_QUAT, TOK_MATRIX };
typedef struct {
    int kind;
    double v;
} pose_token;

/* At most two poses of one keyword and 16 numbers each, and one more item
 * to tell that there are too many. */
#define POSE_TOKENS_MAX 35

static const char *const plain_form[2] = {
    "\"tx ty tz ax ay az deg\"",
    "a from-pose and a to-pose, \"tx ty tz ax ay az deg\" each"};

static kcbp_status bad_token(const char *what, int number, kcbp_num_result r, const char *p, const char *end,
                             kcbp_error *err)
{
    const char *tok_end = p;
    while (tok_end < end && !is_space(*tok_end))
        tok_end++;
    char tok[44]; /* at most 40 bytes, control and non-ASCII bytes shown as '?' */
    size_t len = 0;
    bool word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
    for (; p < tok_end && len < 40; p++)
        tok[len++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
    tok[len] = '\0';
    if (word && r == KCBP_NUM_MALFORMED)
        return kcbp_error_set(err, KCBP_ERR_PARSE,
                              "%s: unknown word '%s' (a pose is \"tx ty tz ax ay az deg\", \"quat tx ty tz qw qx qy "
                              "qz\" or \"matrix\" and 12 or 16 numbers)", what, tok);
    return kcbp_error_set(err, KCBP_ERR_PARSE, "%s number %d: %s '%s'", what, number,
                          r == KCBP_NUM_NONFINITE ? "not a finite number:" : "malformed number", tok);
}

/* Splits [s, end) into at most POSE_TOKENS_MAX tokens. */
static kcbp_status tokenize(kcbp_numparse *np, const char *s, const char *end, const char *what, pose_token *tok,
                            int *ntok, bool *keywords, kcbp_error *err)
{
    int n = 0, numbers = 0;
    *keywords = false;
    for (const char *p = s;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end)
            break;
        const char *stop = p;
        while (stop < end && !is_space(*stop))
            stop++;
        size_t len = (size_t)(stop - p);
        if (n == POSE_TOKENS_MAX) {
            *ntok = n;
            return KCBP_OK; /* too many: the caller says so */
        }
        if ((len == 4 && !memcmp(p, "quat", 4)) || (len == 6 && !memcmp(p, "matrix", 6))) {
            tok[n].kind = len == 4 ? TOK_QUAT : TOK_MATRIX;
            tok[n++].v = 0;
            *keywords = true;
            p = stop;
            continue;
        }
        const char *num_end;
        kcbp_num_result r = kcbp_parse_double(np, p, end, &num_end, &tok[n].v);
        if (r == KCBP_NUM_OK && num_end != stop)
            r = KCBP_NUM_MALFORMED;
        if (r != KCBP_NUM_OK)
            return bad_token(what, numbers + 1, r, p, end, err);
        tok[n++].kind = TOK_NUMBER;
        numbers++;
        p = stop;
    }
    *ntok = n;
    return KCBP_OK;
}

/* The plain form, as always: exactly 7 * n_poses numbers. */
static kcbp_status plain_poses(const pose_token *tok, int ntok, kcbp_pose *out, int n_poses, kcbp_error *err)
{
    int want = 7 * n_poses;
    const char *what = n_poses == 1 ? "pose" : "sweep";
    if (ntok > want)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s has more than %d numbers (expected %s)", what, want,
                              plain_form[n_poses - 1]);
    if (ntok != want)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s has %d numbers, expected %d: %s", what, ntok, want,
                              plain_form[n_poses - 1]);
    for (int i = 0; i < n_poses; i++) {
        const pose_token *w = tok + 7 * i;
        kcbp_status st = kcbp_pose_from_axis_angle(kcbp_v3(w[0].v, w[1].v, w[2].v), kcbp_v3(w[3].v, w[4].v, w[5].v),
                                                   w[6].v, &out[i], err);
        if (st != KCBP_OK)
            return st;
    }
    return KCBP_OK;
}

/* A line with the words quat or matrix: each pose is 7 plain numbers, quat
 * and 7 numbers, or matrix and 12 or 16 numbers. A matrix's numbers run to
 * the next word or the end of the line, less the 7 of each plain pose that
 * still has to follow it. */
static kcbp_status keyword_poses(const pose_token *tok, int ntok, kcbp_pose *out, int n_poses, kcbp_error *err)
{
    int pos = 0;
    for (int i = 0; i < n_poses; i++) {
        char what[32];
        if (n_poses == 1)
            snprintf(what, sizeof what, "pose");
        else
            snprintf(what, sizeof what, "sweep: %s-pose", i == 0 ? "from" : "to");
        if (pos >= ntok)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "%s is missing (a sweep is two poses)", what);
        int kind = tok[pos].kind;
        int first = kind == TOK_NUMBER ? pos : pos + 1;
        int run = 0;
        while (first + run < ntok && tok[first + run].kind == TOK_NUMBER)
            run++;
        bool word_follows = first + run < ntok;
        int rest = n_poses - 1 - i; /* poses still to come after this one */
        int take;
        double v[16];
        kcbp_status st;
        if (kind == TOK_MATRIX) {
            take = word_follows || rest == 0 ? run : run - 7 * rest;
            if (take != 12 && take != 16 && !word_follows && rest > 0 && (run == 12 || run == 16))
                return kcbp_error_set(err, KCBP_ERR_PARSE, "sweep: to-pose is missing (a sweep is two poses)");
            if (take != 12 && take != 16)
                return kcbp_error_set(err, KCBP_ERR_PARSE,
                                      "%s: matrix has %d numbers, expected 12 (3x4, row-major: r00 r01 r02 tx "
                                      "r10 r11 r12 ty r20 r21 r22 tz) or 16 (4x4, the last row 0 0 0 1)",
                                      what, take < 0 ? run : take);
            for (int k = 0; k < take; k++)
                v[k] = tok[first + k].v;
            st = kcbp_pose_from_matrix(v, take, &out[i], err);
        } else {
            take = 7;
            if (run < 7 || (rest == 0 && run > 7))
                return kcbp_error_set(err, KCBP_ERR_PARSE, "%s: %s has %d numbers, expected 7: %s", what,
                                      kind == TOK_QUAT ? "quat" : "pose", run,
                                      kind == TOK_QUAT ? "\"quat tx ty tz qw qx qy qz\"" : plain_form[0]);
            const pose_token *w = tok + first;
            st = kind == TOK_QUAT
                     ? kcbp_pose_from_quat(kcbp_v3(w[0].v, w[1].v, w[2].v), w[3].v, w[4].v, w[5].v, w[6].v, &out[i],
                                           err)
                     : kcbp_pose_from_axis_angle(kcbp_v3(w[0].v, w[1].v, w[2].v), kcbp_v3(w[3].v, w[4].v, w[5].v),
                                                 w[6].v, &out[i], err);
        }
        if (st != KCBP_OK) {
            kcbp_error_prefix(err, what);
            return st;
        }
        pos = first + take;
    }
    if (pos < ntok)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s has more than %s", n_poses == 1 ? "pose" : "sweep",
                              n_poses == 1 ? "one pose" : "two poses");
    return KCBP_OK;
}

/* Parses n poses (1 or 2) from [s, end), in any of the three forms. */
static kcbp_status parse_poses_span(kcbp_numparse *np, const char *s, const char *end, kcbp_pose *out, int n_poses,
                                    kcbp_error *err)
{
    pose_token tok[POSE_TOKENS_MAX];
    int ntok;
    bool keywords;
    kcbp_status st = tokenize(np, s, end, n_poses == 1 ? "pose" : "sweep", tok, &ntok, &keywords, err);
    if (st != KCBP_OK)
        return st;
    if (!keywords && ntok == POSE_TOKENS_MAX)
        return plain_poses(tok, ntok, out, n_poses, err);
    if (ntok == POSE_TOKENS_MAX)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "%s has more than %d items (expected %s)",
                              n_poses == 1 ? "pose" : "sweep", POSE_TOKENS_MAX - 1,
                              n_poses == 1 ? "one pose" : "two poses");
    return keywords ? keyword_poses(tok, ntok, out, n_poses, err) : plain_poses(tok, ntok, out, n_poses, err);
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

/* Equal poses (every number equal): exactly the identity, which the
 * rounded product is only within a few ulps of, so that coincident copies
 * of a mesh placed alike are compared at exactly the same coordinates
 * (the exact tests then see shared points, not points an ulp apart). */
kcbp_pose kcbp_pose_relative(const kcbp_pose *a, const kcbp_pose *b)
{
    bool same = a->trans.x == b->trans.x && a->trans.y == b->trans.y && a->trans.z == b->trans.z;
    for (int i = 0; i < 3 && same; i++)
        for (int j = 0; j < 3 && same; j++)
            same = a->rot.m[i][j] == b->rot.m[i][j];
    if (same)
        return kcbp_pose_identity();
    kcbp_pose ia = kcbp_pose_inverse(a);
    return kcbp_pose_mul(&ia, b);
}
