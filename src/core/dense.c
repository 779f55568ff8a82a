/* See core/dense.h. Plain loops: the matrices here are tens of rows, and a fixed summation order
 * keeps results identical across builds. */
#include "core/dense.h"

#include <math.h>
#include <stddef.h>

int dense_cholesky(double* a, int n) {
    for (int j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0.0)) return j; /* also catches NaN */
        d = sqrt(d);
        a[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
    }
    return -1;
}

void dense_cholesky_solve(const double* l, int n, double* b) {
    for (int i = 0; i < n; ++i) {
        double s = b[i];
        for (int k = 0; k < i; ++k) s -= l[i * n + k] * b[k];
        b[i] = s / l[i * n + i];
    }
    /* L^T x = y by columns of L^T, i.e. rows of L: contiguous reads, where the row form of the
     * same sum would stride down a column of L. */
    for (int i = n - 1; i >= 0; --i) {
        double x = b[i] / l[i * n + i];
        b[i] = x;
        const double* row = l + (size_t)i * (size_t)n;
        for (int k = 0; k < i; ++k) b[k] -= row[k] * x;
    }
}

int dense_cholesky_band(double* a, int n, int bw, int ld) {
#define ROW(i) dense_band_row(a, bw, ld, (i))
    for (int j = 0; j < n; ++j) {
        int k0 = j - bw > 0 ? j - bw : 0, i1 = j + bw < n - 1 ? j + bw : n - 1;
        double* rj = ROW(j);
        double d = rj[j];
        for (int k = k0; k < j; ++k) d -= rj[k] * rj[k];
        if (!(d > 0.0)) return j;
        d = sqrt(d);
        rj[j] = d;
        /* rows four, then two at a time: each row's sum is a chain of dependent subtractions (in
         * the same order as one row at a time, so the same bits), and chains side by side keep
         * the floating-point unit busy; one at a time this loop was a quarter of SubADMM's time
         * on the 2-piece insertion scene (a factorization per piece and step), two at a time 18% */
        int i = j + 1;
        for (; i + 3 <= i1; i += 4) {
            double *r0 = ROW(i), *r1 = ROW(i + 1), *r2 = ROW(i + 2), *r3 = ROW(i + 3);
            int k1 = i + 1 - bw > k0 ? i + 1 - bw : k0, k2 = i + 2 - bw > k0 ? i + 2 - bw : k0, k3 = i + 3 - bw > k0 ? i + 3 - bw : k0;
            double s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
            int k = i - bw > k0 ? i - bw : k0;
            for (; k < k1; ++k) s0 -= r0[k] * rj[k]; /* the later rows' bands start later */
            for (; k < k2; ++k) s0 -= r0[k] * rj[k], s1 -= r1[k] * rj[k];
            for (; k < k3; ++k) s0 -= r0[k] * rj[k], s1 -= r1[k] * rj[k], s2 -= r2[k] * rj[k];
            for (; k < j; ++k) s0 -= r0[k] * rj[k], s1 -= r1[k] * rj[k], s2 -= r2[k] * rj[k], s3 -= r3[k] * rj[k];
            r0[j] = s0 / d, r1[j] = s1 / d, r2[j] = s2 / d, r3[j] = s3 / d;
        }
        for (; i + 1 <= i1; i += 2) {
            int ka = i - bw > k0 ? i - bw : k0, kb = i + 1 - bw > k0 ? i + 1 - bw : k0;
            double *ra = ROW(i), *rb = ROW(i + 1);
            double sa = ra[j], sb = rb[j];
            int k = ka;
            for (; k < kb; ++k) sa -= ra[k] * rj[k]; /* row i + 1's band starts later */
            for (; k < j; ++k) sa -= ra[k] * rj[k], sb -= rb[k] * rj[k];
            ra[j] = sa / d, rb[j] = sb / d;
        }
        for (; i <= i1; ++i) {
            int ki = i - bw > k0 ? i - bw : k0;
            double* ri = ROW(i);
            double s = ri[j];
            for (int k = ki; k < j; ++k) s -= ri[k] * rj[k];
            ri[j] = s / d;
        }
    }
#undef ROW
    return -1;
}

/* sum l[k] b[k] over [k0, k1) in four interleaved partial sums: one running sum is a chain of
 * dependent additions (a latency of 3-4 cycles each), four keep the floating-point unit busy. The
 * forward substitution of an FEM piece (bands of 30-60) was two thirds of SubADMM's instructions on
 * the insertion scene, most of it waiting on that chain. */
static inline double band_dot(const double* l, const double* b, int k0, int k1) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = k0;
    for (; k + 4 <= k1; k += 4) s0 += l[k] * b[k], s1 += l[k + 1] * b[k + 1], s2 += l[k + 2] * b[k + 2], s3 += l[k + 3] * b[k + 3];
    for (; k < k1; ++k) s0 += l[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

void dense_cholesky_band_solve(const double* l, int n, int bw, int ld, double* b) {
    /* times the reciprocal of each pivot, not divided by it: the reciprocal does not wait on b, so
     * the division leaves the chain of dependent operations that the substitutions are */
    for (int i = 0; i < n; ++i) {
        const double* row = dense_band_row_c(l, bw, ld, i);
        int k0 = i - bw > 0 ? i - bw : 0;
        double s = b[i];
        if (bw < 12) /* too short for four partial sums to pay */
            for (int k = k0; k < i; ++k) s -= row[k] * b[k];
        else
            s -= band_dot(row, b, k0, i);
        b[i] = s * (1.0 / row[i]);
    }
    for (int i = n - 1; i >= 0; --i) { /* by rows of L, as dense_cholesky_solve */
        const double* row = dense_band_row_c(l, bw, ld, i);
        double x = b[i] * (1.0 / row[i]);
        b[i] = x;
        for (int k = i - bw > 0 ? i - bw : 0; k < i; ++k) b[k] -= row[k] * x;
    }
}

int dense_bandwidth(const double* a, int n) {
    int bw = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i - bw; ++j)
            if (a[i * n + j] != 0.0 || a[j * n + i] != 0.0) {
                bw = i - j;
                break;
            }
    return bw;
}

int dense_ldlt(double* a, int n, double tiny) {
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(a[i * n + i]));
    for (int j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (int k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k] * a[k * n + k];
        if (!(fabs(d) > tiny * scale)) return j;
        a[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (int k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k] * a[k * n + k];
            a[i * n + j] = s / d;
        }
    }
    return -1;
}

void dense_ldlt_solve(const double* ld, int n, double* b) {
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k) b[i] -= ld[i * n + k] * b[k];
    for (int i = 0; i < n; ++i) b[i] /= ld[i * n + i];
    for (int i = n - 1; i >= 0; --i)
        for (int k = i + 1; k < n; ++k) b[i] -= ld[k * n + i] * b[k];
}

int dense_lu(double* a, int n, int* piv, double tiny) {
    double scale = 0.0;
    for (int i = 0; i < n * n; ++i) scale = fmax(scale, fabs(a[i]));
    for (int j = 0; j < n; ++j) {
        int p = j;
        for (int i = j + 1; i < n; ++i)
            if (fabs(a[i * n + j]) > fabs(a[p * n + j])) p = i;
        piv[j] = p;
        if (!(fabs(a[p * n + j]) > tiny * scale)) return j;
        if (p != j)
            for (int k = 0; k < n; ++k) {
                double t = a[j * n + k];
                a[j * n + k] = a[p * n + k];
                a[p * n + k] = t;
            }
        for (int i = j + 1; i < n; ++i) {
            double f = a[i * n + j] / a[j * n + j];
            a[i * n + j] = f;
            if (f != 0.0)
                for (int k = j + 1; k < n; ++k) a[i * n + k] -= f * a[j * n + k];
        }
    }
    return -1;
}

void dense_lu_solve(const double* lu, int n, const int* piv, double* b) {
    for (int j = 0; j < n; ++j)
        if (piv[j] != j) {
            double t = b[j];
            b[j] = b[piv[j]];
            b[piv[j]] = t;
        }
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k) b[i] -= lu[i * n + k] * b[k];
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) b[i] -= lu[i * n + k] * b[k];
        b[i] /= lu[i * n + i];
    }
}

void dense_matvec(const double* a, int rows, int cols, const double* x, double* y) {
    for (int i = 0; i < rows; ++i) {
        double s = 0.0;
        for (int j = 0; j < cols; ++j) s += a[i * cols + j] * x[j];
        y[i] = s;
    }
}
