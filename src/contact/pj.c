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
    if (cp_kinds_check(p->block, p->nblock) >= 0) {
        loam_free(next);
        res.iterations = CP_UNSUPPORTED_KIND;
        return res;
    }
    for (int it = 0; it < iterations; ++it) {
        for (int b = 0; b < p->nblock; ++b) { /* the kind's hard update in its metric, projected */
            const cp_block* k = &p->block[b];
            int r = k->row, nr = cp_kind_rows(k->kind);
            double D[3];
            cp_kind_diag(k, p->diag + r, D);
            for (int q = 0; q < nr; ++q) next[r + q] = D[q] > 0.0 ? p->lambda[r + q] - cp_row_velocity(p, r + q) / D[q] : p->lambda[r + q];
            cp_kind_project(k, D, next + r, next + r);
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
