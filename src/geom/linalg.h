/* Small dense linear algebra the library needs beyond include/kcbp/vec3.h
 * (internal: not installed). */
#ifndef KCBP_LINALG_H
#define KCBP_LINALG_H

/* Eigenvectors of a symmetric 3x3 matrix by cyclic Jacobi rotations (Golub
 * and Van Loan, "Matrix Computations", section 8.5), as the columns of v; a is
 * destroyed (its diagonal ends as the eigenvalues, in no particular order).
 * At most 50 sweeps; stops as soon as the off-diagonal part is exactly 0.
 * Used for the principal axes of point sets by the k-CBP and by the OBBs of
 * eval/bv.c. */
void kcbp_sym3_eigenvectors(double a[3][3], double v[3][3]);
/* The same, stopping as soon as the off-diagonal part is at most rel times
 * the sum of a's entries' magnitudes (upper triangle) at the start: for
 * callers that need axes near the principal ones, not exact (the AABB
 * tree's oriented boxes, whose every axis set is valid). rel = 0 is
 * kcbp_sym3_eigenvectors. */
void kcbp_sym3_eigenvectors_approx(double a[3][3], double v[3][3], double rel);

#endif
