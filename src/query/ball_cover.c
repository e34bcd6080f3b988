/* kcbp_ball_cover (ball_cover.h). */
#include "ball_cover.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The half-diagonal of a cube of half-side s, rounded up. */
static inline double half_diag(double s) { return s * 1.7320508075688774; }

typedef struct {
    const kcbp_ball *balls;
    uint32_t *scratch; /* (max_depth + 1) lists of n indices */
    size_t n;
    double rho;
    int max_depth;
    size_t cells, max_cells;
} cover;

/* The cell of centre m and half-side s at `depth`, its candidate balls in
 * idx[0 .. k). */
static bool cell_covered(cover *cv, kcbp_vec3 m, double s, int depth, const uint32_t *idx, size_t k)
{
    if (++cv->cells > cv->max_cells)
        return false;
    /* the cell's distance from the origin (its box) */
    kcbp_vec3 u = kcbp_v3_max(kcbp_v3_sub(kcbp_v3_abs(m), kcbp_v3(s, s, s)), kcbp_v3(0, 0, 0));
    if (kcbp_v3_len(u) > cv->rho * (1 + 1e-14))
        return true; /* misses the ball of radius rho */
    double h = half_diag(s) * (1 + 1e-15);
    uint32_t *next = cv->scratch + (size_t)(depth + 1) * cv->n;
    size_t nk = 0;
    for (size_t i = 0; i < k; i++) {
        const kcbp_ball *b = &cv->balls[idx[i]];
        double d = kcbp_v3_len(kcbp_v3_sub(m, b->c));
        if (d + h < b->r)
            return true; /* inside one ball */
        if (d - h < b->r)
            next[nk++] = idx[i];
    }
    if (nk == 0 || depth >= cv->max_depth)
        return false;
    double s2 = 0.5 * s;
    for (int c = 0; c < 8; c++) {
        kcbp_vec3 mc = kcbp_v3(m.x + (c & 1 ? s2 : -s2), m.y + (c & 2 ? s2 : -s2), m.z + (c & 4 ? s2 : -s2));
        if (!cell_covered(cv, mc, s2, depth + 1, next, nk))
            return false;
    }
    return true;
}

kcbp_status kcbp_ball_cover(const kcbp_ball *balls, size_t n, double rho, int max_depth, size_t max_cells,
                            bool *covered, kcbp_error *err)
{
    *covered = false;
    if (n == 0 || !(rho >= 0) || !isfinite(rho))
        return KCBP_OK;
    if (max_depth < 0)
        max_depth = 0;
    cover cv = {balls, NULL, n, rho, max_depth, 0, max_cells};
    cv.scratch = malloc((size_t)(max_depth + 2) * n * sizeof *cv.scratch);
    if (!cv.scratch)
        return kcbp_error_set(err, KCBP_ERR_NOMEM, "depth bracket: out of memory (ball cover)");
    for (size_t i = 0; i < n; i++)
        cv.scratch[i] = (uint32_t)i;
    *covered = cell_covered(&cv, kcbp_v3(0, 0, 0), rho, 0, cv.scratch, n);
    free(cv.scratch);
    return KCBP_OK;
}
