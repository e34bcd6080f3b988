/* The contract of the installed library (README "The library"): built by
 * scripts/install_test.sh with nothing but `pkg-config --cflags --libs kcbp`
 * against a DESTDIR install, shared and static. Two unit cubes, one moved
 * along x: touching at 1, apart at 1.5, and an error for a missing file.
 * Prints "ok" and exits 0 when every answer is right. */
#include <stdio.h>
#include <string.h>

#include <kcbp/kcbp.h>

static int answer(const kcbp_model *a, const kcbp_model *b, double dx, int expect)
{
    kcbp_error err;
    kcbp_pose pa = kcbp_pose_identity(), pb;
    if (kcbp_pose_from_axis_angle((kcbp_vec3){dx, 0, 0}, (kcbp_vec3){0, 0, 1}, 0.0, &pb, &err) != KCBP_OK) {
        fprintf(stderr, "pose: %s\n", err.msg);
        return 1;
    }
    kcbp_collide_options opts = kcbp_collide_options_default();
    kcbp_collide_result result;
    memset(&result, 0, sizeof result);
    if (kcbp_collide(a, &pa, b, &pb, &opts, &result, &err) != KCBP_OK) {
        fprintf(stderr, "collide: %s\n", err.msg);
        return 1;
    }
    int got = result.collide;
    kcbp_collide_result_free(&result);
    if (got != expect) {
        fprintf(stderr, "dx = %g: collide = %d, expected %d\n", dx, got, expect);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: contract CUBE.obj\n");
        return 2;
    }
    if (strcmp(kcbp_version(), KCBP_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, headers %s\n", kcbp_version(), KCBP_VERSION_STRING);
        return 1;
    }
    kcbp_error err;
    kcbp_model a, b, missing;
    if (kcbp_model_load(&a, argv[1], NULL, &err) != KCBP_OK || kcbp_model_load(&b, argv[1], NULL, &err) != KCBP_OK) {
        fprintf(stderr, "load: %s\n", err.msg);
        return 1;
    }
    int bad = answer(&a, &b, 1.0, 1) + answer(&a, &b, 1.5, 0) + answer(&a, &b, 0.25, 1);
    if (kcbp_model_load(&missing, "/nonexistent/cube.obj", NULL, &err) == KCBP_OK || !strstr(err.msg, "cube.obj")) {
        fprintf(stderr, "a missing file loaded, or its error does not name it: '%s'\n", err.msg);
        bad++;
    }
    kcbp_model_free(&a);
    kcbp_model_free(&b);
    if (bad)
        return 1;
    puts("ok");
    return 0;
}
