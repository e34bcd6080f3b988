/* Tests of src/geom/linalg.c: eigenvectors of symmetric 3x3 matrices against the
 * definition (A v = lambda v, V orthonormal), on random, diagonal, repeated
 * and zero matrices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "geom/linalg.h"
#include "testutil.h"

static void check_eigen(const double a0[3][3])
{
    double a[3][3], v[3][3];
    double scale = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            a[i][j] = a0[i][j];
            scale = fmax(scale, fabs(a0[i][j]));
        }
    kcbp_sym3_eigenvectors(a, v);
    double tol = 1e-12 * (scale > 0 ? scale : 1);
    for (int k = 0; k < 3; k++) {
        double lambda = a[k][k];
        for (int i = 0; i < 3; i++) { /* (A0 v_k)_i = lambda v_ik */
            double av = 0;
            for (int j = 0; j < 3; j++)
                av += a0[i][j] * v[j][k];
            assert_true(isfinite(av) && fabs(av - lambda * v[i][k]) <= tol);
        }
        for (int l = 0; l < 3; l++) { /* orthonormal columns */
            double d = v[0][k] * v[0][l] + v[1][k] * v[1][l] + v[2][k] * v[2][l];
            assert_true(fabs(d - (k == l)) < 1e-12);
        }
    }
}

static void test_sym3_eigenvectors(void **state)
{
    (void)state;
    const double diag[3][3] = {{3, 0, 0}, {0, -1, 0}, {0, 0, 2}};
    const double zero[3][3] = {{0}};
    const double repeated[3][3] = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}}; /* eigenvalues 4, 1, 1 */
    const double tiny[3][3] = {{1e-300, 1e-301, 0}, {1e-301, 2e-300, 0}, {0, 0, 1e-300}};
    check_eigen(diag);
    check_eigen(zero);
    check_eigen(repeated);
    check_eigen(tiny);
    test_rng r = {12345};
    for (int t = 0; t < 2000; t++) {
        double m[3][3];
        double s = pow(10.0, test_rng_range(&r, -8, 8));
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++)
                m[i][j] = m[j][i] = s * test_rng_range(&r, -1, 1);
        check_eigen(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sym3_eigenvectors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
