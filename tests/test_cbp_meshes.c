/* k-CBPs of the shared meshes (needs the OBJ loader): every mode, the
 * issue's k values, all promises of include/kcbp/cbp.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "cbp_check.h"

/* Every mesh of the shared collection, every mode, the k values. */
static void test_shared_meshes(void **state)
{
    (void)state;
    static const char *names[] = {"bunny2", "cow", "fandisk", "homer", "rocker-arm",
                                  "spot", "stanford-bunny", "suzanne", "teapot", "woody"};
    for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
        char path[256];
        snprintf(path, sizeof path, "meshes/%s.obj", names[m]);
        kcbp_mesh mesh;
        kcbp_error err;
        if (kcbp_obj_load(path, &mesh, &err) != KCBP_OK) {
            if (access(path, R_OK) != 0)
                continue; /* the collection is not here (run from the repository root) */
            fail_msg("%s", err.msg);
        }
        double hull;
        assert_int_equal(kcbp_hull_volume(mesh.vertices, mesh.nvertices, &hull, NULL), KCBP_OK);
        for (size_t d = 0; d < 4; d++)
            for (size_t k = 0; k < sizeof KS / sizeof KS[0]; k++) {
                kcbp_cbp c;
                if (kcbp_cbp_build(mesh.vertices, mesh.nvertices, KS[k], ALL_DIRS[d], &c, &err) != KCBP_OK)
                    fail_msg("%s %s k=%d: %s", names[m], kcbp_cbp_dirs_name(ALL_DIRS[d]), KS[k], err.msg);
                check_cbp(&c, mesh.vertices, mesh.nvertices);
                assert_true(c.volume >= hull * (1 - 1e-9));
                kcbp_cbp_free(&c);
            }
        kcbp_mesh_free(&mesh);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
