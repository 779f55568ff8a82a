/* Shared parts of the constraint solvers: the Delassus diagonal, row velocities, the error. See cp.h. */
#include "solve/cp.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/dense.h"

void cp_prepare(cp_problem* p) {
    int n = p->n;
    for (int r = 0; r < p->m; ++r) {
        double* a = p->AJt + (size_t)r * (size_t)n;
        memcpy(a, p->J + (size_t)r * (size_t)n, sizeof(double) * (size_t)n);
        dense_cholesky_solve(p->chol, n, a);
        double d = 0.0;
        for (int i = 0; i < n; ++i) d += p->J[(size_t)r * (size_t)n + i] * a[i];
        p->diag[r] = d;
        if (p->lambda[r] != 0.0)
            for (int i = 0; i < n; ++i) p->v[i] += a[i] * p->lambda[r];
    }
}

double cp_row_velocity(const cp_problem* p, int r) {
    const double* j = p->J + (size_t)r * (size_t)p->n;
    double w = p->e[r];
    for (int i = 0; i < p->n; ++i) w += j[i] * p->v[i];
    return w;
}

static double fb(double a, double b) { return a + b - sqrt(a * a + b * b); }

double cp_error(const cp_problem* p) {
    double err = 0.0;
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        int r = k->row;
        double w = cp_row_velocity(p, r);
        if (k->kind == CP_EQUALITY) {
            err = fmax(err, fabs(w));
            continue;
        }
        err = fmax(err, fabs(fb(w, p->diag[r] * p->lambda[r])));
        if (k->kind != CP_CONTACT) continue;
        double w1 = cp_row_velocity(p, r + 1), w2 = cp_row_velocity(p, r + 2);
        /* One scalar for both tangents: the natural map's fixed point is then exactly maximal
         * dissipation (sliding opposite to the friction impulse). */
        double d = fmax(p->diag[r + 1], p->diag[r + 2]);
        if (!(d > 0.0)) d = 1.0;
        double y1 = p->lambda[r + 1] - w1 / d, y2 = p->lambda[r + 2] - w2 / d;
        double radius = k->mu * fmax(p->lambda[r], 0.0), len = sqrt(y1 * y1 + y2 * y2);
        if (len > radius) y1 *= radius / len, y2 *= radius / len;
        double dx = (p->lambda[r + 1] - y1) * d, dy = (p->lambda[r + 2] - y2) * d;
        err = fmax(err, sqrt(dx * dx + dy * dy));
    }
    return err;
}
