/* Projected Gauss-Seidel on the velocity-form problem of cp.h: the baseline of paper 004. Each row
 * update moves v by A^-1 J_r^T times the impulse change, so later rows see it at once. */
#include <math.h>
#include <stddef.h>

#include "solve/cp.h"

/* Change row r's impulse to `value` and carry the change into v; returns |dw| on the row itself. */
static double apply(cp_problem* p, int r, double value) {
    double d = value - p->lambda[r];
    if (d == 0.0) return 0.0;
    cp_apply(p, r, d);
    p->lambda[r] = value;
    return fabs(d) * p->diag[r];
}

cp_result cp_solve_pgs(cp_problem* p, int iterations, double tolerance) {
    cp_result res = {0, 0.0};
    for (int it = 0; it < iterations; ++it) {
        double change = 0.0;
        for (int b = 0; b < p->nblock; ++b) {
            const cp_block* k = &p->block[b];
            int r = k->row;
            if (!(p->diag[r] > 0.0)) continue; /* a row that moves nothing */
            double l;
            if (k->kind == CP_EQUALITY) l = p->lambda[r] - (cp_row_velocity(p, r) + k->compliance * p->lambda[r]) / (p->diag[r] + k->compliance);
            else l = fmax(p->lambda[r] - cp_row_velocity(p, r) / p->diag[r], 0.0);
            change = fmax(change, apply(p, r, l));
            if (k->kind != CP_CONTACT) continue;
            /* One scalar for both tangents: with two different diagonals the projected fixed point
             * would make the sliding velocity anti-parallel to D lambda_t, not to lambda_t (not
             * maximal dissipation). */
            double d = fmax(p->diag[r + 1], p->diag[r + 2]), t[2];
            for (int s = 0; s < 2; ++s) t[s] = d > 0.0 ? p->lambda[r + 1 + s] - cp_row_velocity(p, r + 1 + s) / d : 0.0;
            double radius = k->mu * p->lambda[r], len = sqrt(t[0] * t[0] + t[1] * t[1]);
            if (len > radius) t[0] *= radius / len, t[1] *= radius / len;
            change = fmax(change, apply(p, r + 1, t[0]));
            change = fmax(change, apply(p, r + 2, t[1]));
        }
        res.iterations = it + 1;
        if (change <= tolerance) break;
    }
    res.error = cp_error(p);
    return res;
}
