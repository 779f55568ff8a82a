/* Shared parts of the constraint solvers: A^-1 J^T, the Delassus diagonal, row velocities, the
 * error. See cp.h. */
#include "solve/cp.h"

#include <math.h>
#include <string.h>

#include "core/dense.h"

/* dense_cholesky_solve for a free rigid body's 6 x 6 factor, unrolled, with the diagonal's
 * reciprocals taken once (independent divisions instead of twelve in the substitution's dependency
 * chain): these solves were 7% of a 100-sphere stirring step (one per contact row and body). */
static inline void solve6(const double* l, double* b) {
    double inv[6];
    for (int i = 0; i < 6; ++i) inv[i] = 1.0 / l[i * 6 + i];
    for (int i = 0; i < 6; ++i) {
        double s = b[i];
        for (int k = 0; k < i; ++k) s -= l[i * 6 + k] * b[k];
        b[i] = s * inv[i];
    }
    for (int i = 5; i >= 0; --i) {
        double x = b[i] * inv[i];
        b[i] = x;
        for (int k = 0; k < i; ++k) b[k] -= l[i * 6 + k] * x;
    }
}

void cp_prepare(cp_problem* p) {
    for (int r = 0; r < p->m; ++r) {
        double d = 0.0;
        for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
            const cp_seg* sg = &p->seg[k];
            const cp_group* g = &p->group[sg->group];
            double* a = p->AJ + sg->val;
            const double* j = p->J + sg->val;
            memcpy(a, j, sizeof(double) * (size_t)g->n);
            if (g->bw > 0) dense_cholesky_band_solve(g->L, g->n, g->bw, a); /* an FEM piece: O(n bw) */
            else if (g->n == 6) solve6(g->L, a);
            else dense_cholesky_solve(g->L, g->n, a);
            for (int i = 0; i < g->n; ++i) d += j[i] * a[i];
        }
        p->diag[r] = d;
        if (p->lambda[r] != 0.0) cp_apply(p, r, p->lambda[r]);
    }
}

static double fb(double a, double b) { return a + b - sqrt(a * a + b * b); }

double cp_error(const cp_problem* p) {
    double err = 0.0;
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        int r = k->row;
        double w = cp_row_velocity(p, r);
        if (k->kind == CP_EQUALITY) {
            err = fmax(err, fabs(w + k->compliance * p->lambda[r]));
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
