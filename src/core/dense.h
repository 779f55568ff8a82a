/* Small dense linear algebra in double, row-major n x n, shared by the multibody dynamics and the
 * constraint solvers (mass matrices, Delassus blocks, per-subsystem reduced systems). */
#ifndef LOAM_CORE_DENSE_H
#define LOAM_CORE_DENSE_H

/* In-place Cholesky A = L L^T of a symmetric positive definite matrix; L is left in the lower
 * triangle (the upper is not touched). Returns -1 on success, or the index of the first pivot that
 * is not positive (the matrix is not SPD). */
int dense_cholesky(double* a, int n);
/* Solve L L^T x = b in place, with L from dense_cholesky. */
void dense_cholesky_solve(const double* l, int n, double* b);

/* The same for a matrix whose entries vanish more than bw off the diagonal (its factor keeps the
 * band): O(n bw^2) instead of O(n^3), for chains such as cables. The storage is still n x n. */
int dense_cholesky_band(double* a, int n, int bw);
void dense_cholesky_band_solve(const double* l, int n, int bw, double* b);
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
