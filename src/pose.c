#include <kcbp/pose.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"

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

/* Parses exactly 7 numbers from [s, end). */
static kcbp_status parse_pose_span(kcbp_numparse *np, const char *s, const char *end, kcbp_pose *out,
                                   kcbp_error *err)
{
    double v[7];
    int n = 0;
    const char *p = s;
    for (;;) {
        while (p < end && is_space(*p))
            p++;
        if (p >= end)
            break;
        if (n == 7)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "pose has more than 7 numbers (expected \"tx ty tz ax ay az deg\")");
        const char *stop;
        kcbp_num_result r = kcbp_parse_double(np, p, end, &stop, &v[n]);
        if (r == KCBP_NUM_OK && stop < end && !is_space(*stop))
            r = KCBP_NUM_MALFORMED;
        if (r != KCBP_NUM_OK) {
            const char *tok_end = p;
            while (tok_end < end && !is_space(*tok_end))
                tok_end++;
            int len = (int)(tok_end - p > 40 ? 40 : tok_end - p);
            return kcbp_error_set(err, KCBP_ERR_PARSE, "pose number %d: %s '%.*s'", n + 1,
                                  r == KCBP_NUM_NONFINITE ? "not a finite number:" : "malformed number", len, p);
        }
        n++;
        p = stop;
    }
    if (n != 7)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "pose has %d numbers, expected 7: \"tx ty tz ax ay az deg\"", n);
    return kcbp_pose_from_axis_angle(kcbp_v3(v[0], v[1], v[2]), kcbp_v3(v[3], v[4], v[5]), v[6], out, err);
}

kcbp_status kcbp_pose_parse(const char *text, kcbp_pose *out, kcbp_error *err)
{
    kcbp_numparse np = {0};
    kcbp_status st = parse_pose_span(&np, text, text + strlen(text), out, err);
    kcbp_numparse_done(&np);
    return st;
}

kcbp_status kcbp_pose_load_file(const char *path, kcbp_pose **poses, size_t *count, kcbp_error *err)
{
    *poses = NULL;
    *count = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return kcbp_error_set(err, KCBP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    kcbp_numparse np = {0};
    kcbp_status st = KCBP_OK;
    size_t cap = 0;
    char *line = NULL;
    size_t linecap = 0;
    ssize_t len;
    long lineno = 0;
    while ((len = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s:%ld: NUL byte: not a text file", path, lineno);
            break;
        }
        char *hash = memchr(line, '#', (size_t)len);
        const char *end = hash ? hash : line + len;
        const char *p = line;
        while (p < end && is_space(*p))
            p++;
        if (p == end)
            continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 64;
            kcbp_pose *grown = realloc(*poses, cap * sizeof **poses);
            if (!grown) {
                st = kcbp_error_set(err, KCBP_ERR_NOMEM, "%s:%ld: out of memory", path, lineno);
                break;
            }
            *poses = grown;
        }
        st = parse_pose_span(&np, p, end, &(*poses)[*count], err);
        if (st != KCBP_OK) {
            char where[300];
            snprintf(where, sizeof where, "%s:%ld", path, lineno);
            kcbp_error_prefix(err, where);
            break;
        }
        (*count)++;
    }
    if (st == KCBP_OK && ferror(f))
        st = kcbp_error_set(err, KCBP_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (st == KCBP_OK && *count == 0)
        st = kcbp_error_set(err, KCBP_ERR_PARSE, "%s: no poses in file", path);
    free(line);
    fclose(f);
    kcbp_numparse_done(&np);
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
