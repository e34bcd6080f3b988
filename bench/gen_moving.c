/* gen_moving: a moving scene for bench/moving.sh (issue 12) from a static one.
 *
 *   gen_moving IN.json SEED FRAMES [DT=0.01] > OUT.json
 *
 * IN.json is any scene file, typically `kcbp scene --generate thesis ...`
 * (objects normalised to a half-extent of 1 in the [-4, 4]^3 cube). Every
 * object gets, from a generator seeded with SEED (the same on every
 * platform):
 *   - "velocity": each component uniform in {-0.5, -0.499, ..., 0.5} units/s;
 *   - "angular_velocity": an axis uniform on the sphere (a point drawn in the
 *     unit ball, components multiples of 0.001, at least 0.1 from the centre;
 *     written unnormalised, kcbp normalises it) and a rate uniform in
 *     {0, 0.1, ..., 90} deg/s;
 * and the scene gets "motion": {"frames": FRAMES, "dt": DT}. Everything
 * else (names, meshes as written, positions, rotations, scales) is kept, so
 * OUT.json must go in the same folder as IN.json when mesh paths are
 * relative. Values already in IN.json's velocity or spin are replaced.
 *
 * The meshes are not read: only the file is parsed (kcbp_scene_read). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kcbp/kcbp.h>

static uint64_t state;

static uint64_t next(void) /* splitmix64: one multiply-xorshift chain per draw */
{
    uint64_t z = (state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi] (hi - lo < 2^32; the bias of the modulo is
 * below 2^-32 and the same on every platform). */
static long draw(long lo, long hi) { return lo + (long)(next() % (uint64_t)(hi - lo + 1)); }

static int usage(const char *prog)
{
    fprintf(stderr, "usage: %s IN.json SEED FRAMES [DT=0.01] > OUT.json\n", prog);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5)
        return usage(argv[0]);
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(argv[2], &end, 10);
    if (errno || *end || !*argv[2])
        return usage(argv[0]);
    long frames = strtol(argv[3], &end, 10);
    if (*end || frames < 1 || frames > (long)KCBP_SCENE_MAX_FRAMES)
        return usage(argv[0]);
    double dt = 0.01;
    if (argc > 4 && (dt = strtod(argv[4], &end), *end || !(dt > 0 && dt < 1e6)))
        return usage(argv[0]);

    kcbp_error err;
    kcbp_scene *in, *s;
    if (kcbp_scene_read(argv[1], &in, &err) != KCBP_OK || kcbp_scene_new(kcbp_scene_name(in), NULL, &s, &err) != KCBP_OK) {
        fprintf(stderr, "gen_moving: %s\n", err.msg);
        return 3;
    }
    state = (uint64_t)seed ^ UINT64_C(0x6d6f76696e67); /* "moving": other seeds than the layout's */
    for (uint32_t i = 0; i < kcbp_scene_object_count(in); i++) {
        kcbp_scene_object obj = kcbp_scene_object_at(in, i), *o = &obj;
        o->velocity = kcbp_v3(draw(-500, 500) / 1000.0, draw(-500, 500) / 1000.0, draw(-500, 500) / 1000.0);
        long x, y, z, r2;
        do { /* a point of the unit ball (in thousandths), not too near its centre */
            x = draw(-1000, 1000), y = draw(-1000, 1000), z = draw(-1000, 1000);
            r2 = x * x + y * y + z * z;
        } while (r2 > 1000000 || r2 < 10000);
        o->spin_axis = kcbp_v3(x / 1000.0, y / 1000.0, z / 1000.0);
        o->spin_deg_per_s = draw(0, 900) / 10.0;
        if (kcbp_scene_add_object(s, o, &err) != KCBP_OK) {
            fprintf(stderr, "gen_moving: %s\n", err.msg);
            return 3;
        }
    }
    if (kcbp_scene_set_motion(s, (uint32_t)frames, dt, &err) != KCBP_OK) {
        fprintf(stderr, "gen_moving: %s\n", err.msg);
        return 3;
    }
    int rc = 0;
    err.msg[0] = '\0';
    if (kcbp_scene_write(s, stdout, true, &err) != KCBP_OK || fflush(stdout) != 0) {
        fprintf(stderr, "gen_moving: writing the scene failed%s%s\n", err.msg[0] ? ": " : "", err.msg);
        rc = err.code == KCBP_ERR_NOMEM ? 4 : 1;
    }
    kcbp_scene_free(s);
    kcbp_scene_free(in);
    return rc;
}
