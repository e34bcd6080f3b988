/* Rigid 2D poses (include/kcbp/pose2d.h). */
#include <kcbp/pose2d.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

kcbp2d_pose kcbp2d_pose_identity(void)
{
    kcbp2d_pose p = {1.0, 0.0, {0.0, 0.0}};
    return p;
}

kcbp_status kcbp2d_pose_from_angle(double tx, double ty, double deg, kcbp2d_pose *out, kcbp_error *err)
{
    if (!out)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D pose: no output");
    if (!isfinite(tx) || !isfinite(ty) || !isfinite(deg))
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D pose: a number is not finite (%g %g %g)", tx, ty, deg);
    if (fabs(tx) > KCBP_COORD_MAX || fabs(ty) > KCBP_COORD_MAX)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D pose: translation (%g, %g) beyond %g", tx, ty,
                              KCBP_COORD_MAX);
    /* fmod is exact; a multiple of 90 degrees is a quarter turn taken
     * exactly, so that such poses round nothing but the translation. */
    double f = fabs(deg) < 360.0 ? deg : fmod(deg, 360.0), r = f; /* fmod(x, 360) is x there: no call */
    if (r < 0)
        r += 360.0; /* exact: r in (-360, 0) and 360 share an exponent range */
    double c, s;
    if (r == 0.0 || r == 360.0) {
        c = 1.0, s = 0.0;
    } else if (r == 90.0) {
        c = 0.0, s = 1.0;
    } else if (r == 180.0) {
        c = -1.0, s = 0.0;
    } else if (r == 270.0) {
        c = 0.0, s = -1.0;
    } else {
        double rad = f * (M_PI / 180.0);
        c = cos(rad), s = sin(rad);
    }
    out->c = c;
    out->s = s;
    out->trans.x = tx;
    out->trans.y = ty;
    return KCBP_OK;
}

kcbp_status kcbp2d_pose_parse(const char *text, kcbp2d_pose *out, kcbp_error *err)
{
    if (!text)
        return kcbp_error_set(err, KCBP_ERR_INVALID, "2D pose: no text");
    double v[3];
    int n = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p)
            break;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        size_t len = (size_t)(p - w);
        if (n == 3)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "2D pose: more than three numbers (a 2D pose is \"tx ty deg\")");
        char buf[64];
        if (len >= sizeof buf)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "2D pose: word %d is too long to be a number", n + 1);
        memcpy(buf, w, len);
        buf[len] = 0;
        char *end;
        errno = 0;
        double x = strtod(buf, &end);
        if (end == buf || *end)
            return kcbp_error_set(err, KCBP_ERR_PARSE, "2D pose: '%s' is not a number (a 2D pose is \"tx ty deg\")",
                                  buf);
        v[n++] = x;
    }
    if (n != 3)
        return kcbp_error_set(err, KCBP_ERR_PARSE, "2D pose: %d number%s, expected 3 (\"tx ty deg\")", n,
                              n == 1 ? "" : "s");
    return kcbp2d_pose_from_angle(v[0], v[1], v[2], out, err);
}

kcbp_pose kcbp2d_pose_to_3d(const kcbp2d_pose *pose)
{
    kcbp_pose p;
    memset(&p, 0, sizeof p);
    p.rot.m[0][0] = pose->c;
    p.rot.m[0][1] = -pose->s;
    p.rot.m[1][0] = pose->s;
    p.rot.m[1][1] = pose->c;
    p.rot.m[2][2] = 1.0;
    p.trans = kcbp_v3(pose->trans.x, pose->trans.y, 0.0);
    return p;
}
