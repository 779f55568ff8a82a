/* Projected Jacobi on the problem of cp.h (a baseline of paper 004): each sweep computes every block's
 * projected update from the same velocities, then applies all of them scaled by a relaxation factor.
 * The relaxed step is a convex combination of two feasible impulses, so it stays feasible. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "loam/core.h"
#include "contact/cp.h"

cp_result cp_solve_pj(cp_problem* p, int iterations, double tolerance, double relaxation) {
    cp_result res = {0, 0.0};
    double* next = loam_malloc(sizeof(double) * (size_t)(p->m + 1));
    if (!next) {
        res.iterations = -1;
        return res;
    }
    for (int it = 0; it < iterations; ++it) {
        for (int b = 0; b < p->nblock; ++b) {
            const cp_block* k = &p->block[b];
            int r = k->row;
            double den = p->diag[r] + (k->kind == CP_EQUALITY ? k->compliance : 0.0);
            if (k->kind == CP_EQUALITY)
                next[r] = den > 0.0 ? p->lambda[r] - (cp_row_velocity(p, r) + k->compliance * p->lambda[r]) / den : p->lambda[r];
            else
                next[r] = p->diag[r] > 0.0 ? p->lambda[r] - cp_row_velocity(p, r) / p->diag[r] : p->lambda[r];
            if (k->kind == CP_CONTACT) { /* one scalar for both tangents (see pgs.c) */
                double d = fmax(p->diag[r + 1], p->diag[r + 2]);
                for (int q = 1; q < 3; ++q) next[r + q] = d > 0.0 ? p->lambda[r + q] - cp_row_velocity(p, r + q) / d : p->lambda[r + q];
            }
            if (k->kind != CP_EQUALITY) next[r] = fmax(next[r], 0.0);
            if (k->kind == CP_CONTACT) {
                double s = loam_disk_scale_d(next[r + 1] * next[r + 1] + next[r + 2] * next[r + 2], k->mu * next[r]);
                next[r + 1] *= s, next[r + 2] *= s;
            }
        }
        double change = 0.0;
        for (int r = 0; r < p->m; ++r) {
            double d = relaxation * (next[r] - p->lambda[r]);
            if (d == 0.0) continue;
            cp_apply(p, r, d);
            p->lambda[r] += d;
            change = fmax(change, fabs(d) * p->diag[r]);
        }
        res.iterations = it + 1;
        if (change <= tolerance) break;
    }
    loam_free(next);
    res.error = cp_error(p);
    return res;
}
