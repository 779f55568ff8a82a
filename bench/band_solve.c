/* Banded Cholesky solves (core/dense.h), the kernel of every FEM piece and cable in the multibody
 * solvers: SubADMM runs one per large subsystem and iteration, PGS one per constraint row and step.
 * Prints microseconds per solve (the least of 20 rounds of 2000) for the shapes loam meets: an FEM
 * piece of the insertion scene (135 unknowns, half bandwidth 41), wider and narrower pieces, and a
 * 100-segment cable (600 unknowns, half bandwidth 6 to 11). One thread.
 *   build/bench_band_solve */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/dense.h"

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* An SPD band matrix (diagonally dominant), factorized; the least time per solve. */
static double time_solve(int n, int bw, double* residual) {
    int ld = bw + 1; /* the lower band, as SubADMM keeps a large subsystem's matrix */
    double *a = calloc((size_t)n * (size_t)n, sizeof(double)), *l = calloc((size_t)n * (size_t)ld, sizeof(double));
    double* x = malloc(sizeof(double) * (size_t)n);
    double best = INFINITY, sink = 0.0;
    if (!a || !l || !x) return free(a), free(l), free(x), NAN;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (abs(i - j) <= bw) a[i * n + j] = i == j ? 4.0 * bw : 1.0 / (1 + abs(i - j));
    for (int i = 0; i < n; ++i)
        for (int c = i - bw > 0 ? i - bw : 0; c <= i; ++c) dense_band_row(l, bw, ld, i)[c] = a[i * n + c];
    if (dense_cholesky_band(l, n, bw, ld) >= 0) return free(a), free(l), free(x), NAN;
    for (int round = 0; round < 20; ++round) {
        double t0 = seconds();
        for (int it = 0; it < 2000; ++it) {
            for (int i = 0; i < n; ++i) x[i] = 1.0 + 1e-3 * i + 1e-9 * it;
            dense_cholesky_band_solve(l, n, bw, ld, x);
            sink += x[n / 2];
        }
        double t = (seconds() - t0) / 2000;
        best = t < best ? t : best;
    }
    *residual = 0.0; /* |A x - b| of the last solve, against a broken kernel */
    for (int i = 0; i < n; ++i) {
        double r = -(1.0 + 1e-3 * i + 1e-9 * 1999);
        for (int j = 0; j < n; ++j) r += a[i * n + j] * x[j];
        *residual = fmax(*residual, fabs(r));
    }
    free(a), free(l), free(x);
    return sink != sink ? NAN : best;
}

int main(void) {
    static const int shapes[][2] = {{135, 20}, {135, 41}, {135, 60}, {600, 6}, {600, 11}};
    printf("%8s %6s %14s %12s\n", "unknowns", "band", "us per solve", "|Ax - b|");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        double res = NAN, t = time_solve(shapes[s][0], shapes[s][1], &res);
        printf("%8d %6d %14.2f %12.1e\n", shapes[s][0], shapes[s][1], 1e6 * t, res);
    }
    return 0;
}
