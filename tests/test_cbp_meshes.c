/* k-CBPs of the shared meshes (needs the OBJ loader): every mode, the
 * issue's k values, all promises of include/kcbp/cbp.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "cbp_check.h"
#include "convex/cbp_internal.h"
#include "testutil.h"

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
        if (kcbp_obj_load_into(path, &mesh, &err) != KCBP_OK) {
            if (access(path, R_OK) != 0)
                continue; /* the collection is not here (run from the repository root) */
            fail_msg("%s", err.msg);
        }
        double hull;
        assert_int_equal(kcbp_hull_volume(mesh.vertices, mesh.nvertices, &hull, NULL), KCBP_OK);
        for (size_t d = 0; d < 4; d++)
            for (size_t k = 0; k < sizeof KS / sizeof KS[0]; k++) {
                kcbp_cbp c;
                if (kcbp_cbp_build_into(mesh.vertices, mesh.nvertices, KS[k], ALL_DIRS[d], &c, &err) != KCBP_OK)
                    fail_msg("%s %s k=%d: %s", names[m], kcbp_cbp_dirs_name(ALL_DIRS[d]), KS[k], err.msg);
                check_cbp(&c, mesh.vertices, mesh.nvertices);
                assert_true(c.volume >= hull * (1 - 1e-9));
                kcbp_cbp_clear(&c);
            }
        kcbp_mesh_clear(&mesh);
    }
}

/* The greedy's bookkeeping on real meshes, whose hulls have vertices where
 * five or more planes meet and caps that no triple of edge neighbours bounds:
 * hull volume + the caps it removed = the volume of the polytope of the
 * planes it kept (the caps are exact, whatever the clipping starts from). */
static void test_greedy_caps_exact_on_meshes(void **state)
{
    (void)state;
    static const char *names[] = {"bunny2", "spot", "teapot"};
    for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
        char path[256];
        snprintf(path, sizeof path, "meshes/%s.obj", names[m]);
        kcbp_mesh mesh;
        kcbp_error err;
        if (kcbp_obj_load_into(path, &mesh, &err) != KCBP_OK) {
            if (access(path, R_OK) != 0)
                continue;
            fail_msg("%s", err.msg);
        }
        size_t n = mesh.nvertices;
        kcbp_vec3 *p = malloc(n * sizeof *p), lo = mesh.vertices[0], hi = lo;
        assert_non_null(p);
        for (size_t i = 0; i < n; i++) {
            lo = kcbp_v3_min(lo, mesh.vertices[i]);
            hi = kcbp_v3_max(hi, mesh.vertices[i]);
        }
        double size = 0;
        for (size_t i = 0; i < n; i++) {
            p[i] = kcbp_v3_sub(mesh.vertices[i], kcbp_v3_scale(kcbp_v3_add(lo, hi), 0.5));
            size = fmax(size, kcbp_v3_max_abs(p[i]));
        }
        kcbp_hull h;
        assert_int_equal(kcbp_hull_compute(p, n, &h, NULL), KCBP_OK);
        for (size_t k = 0; k < sizeof KS / sizeof KS[0]; k++) {
            uint32_t *keep;
            size_t nkeep;
            double added;
            assert_int_equal(kcbp_greedy_select(&h, p, (size_t)KS[k], size, &keep, &nkeep, &added, NULL), KCBP_OK);
            assert_true(nkeep >= (size_t)KS[k]); /* more when fewer leave it unbounded */
            kcbp_vec3 *dirs = malloc(nkeep * sizeof *dirs);
            assert_non_null(dirs);
            for (size_t j = 0; j < nkeep; j++)
                dirs[j] = h.normal[keep[j]];
            kcbp_cbp c;
            assert_int_equal(kcbp_cbp_build_dirs_into(p, n, dirs, nkeep, &c, NULL), KCBP_OK);
            if (!(fabs(c.volume - (h.volume + added)) <= 1e-7 * c.volume))
                fail_msg("%s k=%d: polytope %.12g, hull + caps %.12g", names[m], KS[k], c.volume, h.volume + added);
            kcbp_cbp_clear(&c);
            free(dirs);
            free(keep);
        }
        kcbp_hull_free(&h);
        free(p);
        kcbp_mesh_clear(&mesh);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_meshes),
        cmocka_unit_test(test_greedy_caps_exact_on_meshes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
