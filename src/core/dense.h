/* Small dense linear algebra in double, row-major n x n, shared by the multibody dynamics and the
 * constraint solvers (mass matrices, Delassus blocks, per-subsystem reduced systems). */
#ifndef LOAM_CORE_DENSE_H
#define LOAM_CORE_DENSE_H

#include <stddef.h>

/* In-place Cholesky A = L L^T of a symmetric positive definite matrix; L is left in the lower
 * triangle (the upper is not touched). Returns -1 on success, or the index of the first pivot that
 * is not positive (the matrix is not SPD). */
int dense_cholesky(double* a, int n);
/* Solve L L^T x = b in place, with L from dense_cholesky. */
void dense_cholesky_solve(const double* l, int n, double* b);

/* Band storage of an n x n matrix whose entries vanish more than bw below the diagonal (and, for a
 * symmetric one stored whole, above it): row i holds its columns i - bw .. i - bw + ld - 1 at
 * a[i * ld + (c - i + bw)], ld = bw + 1 (the lower band, all a factorization needs) or 2 bw + 1 (the
 * whole band); slots outside the matrix are unused. n ld doubles instead of n^2: an FEM piece of
 * 1,000 nodes, half band 95, keeps 0.3 M doubles instead of 9.4 M. dense_band_row(a, i) points so
 * that its [c] is entry (i, c). */
static inline const double* dense_band_row_c(const double* a, int bw, int ld, int i) {
    return a + (size_t)i * (size_t)(ld - 1) + (size_t)bw;
}
static inline double* dense_band_row(double* a, int bw, int ld, int i) { return (double*)dense_band_row_c(a, bw, ld, i); }
/* Cholesky of a band-stored SPD matrix in place (its lower band becomes L's; entries above the
 * diagonal are not touched): O(n bw^2), for FEM pieces and chains such as cables. Returns -1 on
 * success or the first pivot that is not positive. */
int dense_cholesky_band(double* a, int n, int bw, int ld);
/* Solve L L^T x = b in place with L from dense_cholesky_band. */
void dense_cholesky_band_solve(const double* l, int n, int bw, int ld, double* b);
/* The half bandwidth of a row-major n x n matrix: the largest |i - j| with a nonzero entry. */
int dense_bandwidth(const double* a, int n);

/* In-place A = L D L^T for symmetric matrices that may be indefinite but have nonzero leading minors
 * (no pivoting): unit-lower L below the diagonal, D on the diagonal. Returns -1 on success, or the
 * index of the first pivot whose magnitude is below tiny times the largest diagonal entry. */
int dense_ldlt(double* a, int n, double tiny);
void dense_ldlt_solve(const double* ld, int n, double* b);

/* In-place LU with partial pivoting, P A = L U (unit L below the diagonal, U on and above), for
 * general square matrices (Newton systems of nonsmooth solvers). Returns -1 on success, or the
 * column whose pivot is below tiny times the largest entry of the matrix. */
int dense_lu(double* a, int n, int* piv, double tiny);
void dense_lu_solve(const double* lu, int n, const int* piv, double* b);

/* y = A x (A is rows x cols). */
void dense_matvec(const double* a, int rows, int cols, const double* x, double* y);

#endif
