/* Small dense linear algebra (src/linalg.h). */
#include "linalg.h"

#include <kcbp/vec3.h>

#include <math.h>

void kcbp_sym3_eigenvectors(double a[3][3], double v[3][3]) { kcbp_sym3_eigenvectors_approx(a, v, 0); }

void kcbp_sym3_eigenvectors_approx(double a[3][3], double v[3][3], double rel)
{
    double scale = rel * (fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]) + fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            v[i][j] = i == j;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        if (off <= scale)
            break;
        for (int p = 0; p < 2; p++)
            for (int q = p + 1; q < 3; q++) {
                if (a[p][q] == 0)
                    continue;
                double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int r = 0; r < 3; r++) {
                    double arp = a[r][p], arq = a[r][q];
                    a[r][p] = c * arp - s * arq;
                    a[r][q] = s * arp + c * arq;
                }
                for (int r = 0; r < 3; r++) {
                    double apr = a[p][r], aqr = a[q][r];
                    a[p][r] = c * apr - s * aqr;
                    a[q][r] = s * apr + c * aqr;
                }
                for (int r = 0; r < 3; r++) {
                    double vrp = v[r][p], vrq = v[r][q];
                    v[r][p] = c * vrp - s * vrq;
                    v[r][q] = s * vrp + c * vrq;
                }
            }
    }
}

void kcbp_mat3_sym_eigen(const kcbp_mat3 *a, kcbp_mat3 *vectors, kcbp_vec3 *values)
{
    double m[3][3], v[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[i][j] = i <= j ? a->m[i][j] : a->m[j][i];
    kcbp_sym3_eigenvectors(m, v);
    if (vectors)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                vectors->m[i][j] = v[i][j];
    if (values)
        *values = kcbp_v3(m[0][0], m[1][1], m[2][2]);
}
