/* Nonsmooth (semismooth) Newton on the impulses, a baseline of paper 004: the contact law written as
 * the Alart-Curnier equations F(lambda) = 0 with w = W lambda + w0, W = J A^-1 J^T,
 *   unilateral  F = lambda - max(0, lambda - rho w)
 *   equality    F = rho w
 *   contact     F_n = lambda_n - max(0, lambda_n - rho w_n)
 *               F_t = lambda_t - proj_disk(mu g)(lambda_t - rho w_t),  g = max(0, lambda_n - rho w_n)
 * (rho = 1 / W_nn per block), solved with a generalized Jacobian, a dense LU and a backtracking line
 * search on |F|^2 / 2. Each iteration costs O(m^3): it is meant for the few iterations of Table I. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/dense.h"
#include "loam/core.h"
#include "solve/cp.h"

typedef struct nn {
    int m;
    double *W, *w0, *w, *F, *G, *step, *trial, *Ftrial;
    int* piv;
} nn;

static double rho_of(const cp_problem* p, const cp_block* k) { return p->diag[k->row] > 0.0 ? 1.0 / p->diag[k->row] : 1.0; }

static void velocities(const nn* s, const double* lambda, double* w) {
    for (int i = 0; i < s->m; ++i) {
        double v = s->w0[i];
        for (int j = 0; j < s->m; ++j) v += s->W[i * s->m + j] * lambda[j];
        w[i] = v;
    }
}

/* F at lambda (with w = W lambda + w0); with G != NULL also a generalized Jacobian (m x m). */
static double residual(const cp_problem* p, const nn* s, const double* lambda, const double* w, double* F, double* G) {
    int m = s->m;
    if (G) memset(G, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        int r = k->row;
        double rho = rho_of(p, k);
        const double* Wr = s->W + (size_t)r * (size_t)m;
        if (k->kind == CP_EQUALITY) { /* w + c lambda = 0 */
            F[r] = rho * (w[r] + k->compliance * lambda[r]);
            if (G) {
                for (int j = 0; j < m; ++j) G[r * m + j] = rho * Wr[j];
                G[r * m + r] += rho * k->compliance;
            }
            continue;
        }
        double gam = lambda[r] - rho * w[r];
        int active = gam > 0.0;
        F[r] = active ? rho * w[r] : lambda[r];
        if (G) {
            if (active)
                for (int j = 0; j < m; ++j) G[r * m + j] = rho * Wr[j];
            else
                G[r * m + r] = 1.0;
        }
        if (k->kind != CP_CONTACT) continue;
        double g = fmax(gam, 0.0), radius = k->mu * g;
        double y[2] = {lambda[r + 1] - rho * w[r + 1], lambda[r + 2] - rho * w[r + 2]};
        double len = sqrt(y[0] * y[0] + y[1] * y[1]);
        if (len <= radius) { /* sticking: F_t = rho w_t */
            for (int q = 0; q < 2; ++q) {
                F[r + 1 + q] = rho * w[r + 1 + q];
                if (G)
                    for (int j = 0; j < m; ++j) G[(r + 1 + q) * m + j] = rho * s->W[(size_t)(r + 1 + q) * (size_t)m + j];
            }
            continue;
        }
        double yh[2] = {y[0] / len, y[1] / len}, c = radius / len;
        for (int q = 0; q < 2; ++q) F[r + 1 + q] = lambda[r + 1 + q] - radius * yh[q];
        if (!G) continue;
        /* dF_t = E_t - c (I - yh yh^T)(E_t - rho W_t) - yh mu dg, dg = (E_n - rho W_n) if active */
        for (int q = 0; q < 2; ++q)
            for (int j = 0; j < m; ++j) {
                double v = (j == r + 1 + q) ? 1.0 : 0.0;
                for (int t = 0; t < 2; ++t) {
                    double P = (q == t ? 1.0 : 0.0) - yh[q] * yh[t];
                    double dy = (j == r + 1 + t ? 1.0 : 0.0) - rho * s->W[(size_t)(r + 1 + t) * (size_t)m + j];
                    v -= c * P * dy;
                }
                if (active) v -= yh[q] * k->mu * ((j == r ? 1.0 : 0.0) - rho * Wr[j]);
                G[(r + 1 + q) * m + j] = v;
            }
    }
    double f = 0.0;
    for (int i = 0; i < m; ++i) f += F[i] * F[i];
    return 0.5 * f;
}

cp_result cp_solve_nnewton(cp_problem* p, int iterations, double tolerance) {
    cp_result res = {0, 0.0};
    int m = p->m;
    nn s = {m, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    size_t mm = (size_t)m * (size_t)m + 1, m1 = (size_t)m + 1;
    s.W = loam_malloc(sizeof(double) * mm);
    s.G = loam_malloc(sizeof(double) * mm);
    s.w0 = loam_malloc(sizeof(double) * m1);
    s.w = loam_malloc(sizeof(double) * m1);
    s.F = loam_malloc(sizeof(double) * m1);
    s.step = loam_malloc(sizeof(double) * m1);
    s.trial = loam_malloc(sizeof(double) * m1);
    s.Ftrial = loam_malloc(sizeof(double) * m1);
    s.piv = loam_malloc(sizeof(int) * m1);
    if (!s.W || !s.G || !s.w0 || !s.w || !s.F || !s.step || !s.trial || !s.Ftrial || !s.piv) {
        res.iterations = -1;
        goto done;
    }
    /* Delassus W = J A^-1 J^T and w0 = J v_free + e (v holds v_free + A^-1 J^T lambda_warm). */
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
            double v = 0.0;
            for (int a = p->row_seg[i]; a < p->row_seg[i + 1]; ++a)
                for (int b = p->row_seg[j]; b < p->row_seg[j + 1]; ++b) {
                    if (p->seg[a].group != p->seg[b].group) continue;
                    const double *ji = p->J + p->seg[a].val, *aj = p->AJ + p->seg[b].val;
                    for (int k = 0; k < p->group[p->seg[a].group].n; ++k) v += ji[k] * aj[k];
                }
            s.W[(size_t)i * (size_t)m + j] = v;
        }
    /* v already carries the warm start's share A^-1 J^T lambda_in: take it out of w0 and v. */
    for (int i = 0; i < m; ++i) {
        double wl = 0.0;
        for (int j = 0; j < m; ++j) wl += s.W[(size_t)i * (size_t)m + j] * p->lambda[j];
        s.w0[i] = cp_row_velocity(p, i) - wl;
    }
    for (int r = 0; r < m; ++r)
        if (p->lambda[r] != 0.0) cp_apply(p, r, -p->lambda[r]);
    velocities(&s, p->lambda, s.w);
    double f = residual(p, &s, p->lambda, s.w, s.F, s.G);
    for (int it = 0; it < iterations; ++it) {
        for (int i = 0; i < m; ++i) s.step[i] = -s.F[i];
        /* A small Levenberg term keeps the LU going where the generalized Jacobian is singular (more
         * rows than dofs: redundant contacts, W = J A^-1 J^T rank deficient). Scaled per row, since
         * rows mix rho W (dimensionless, order 1) with identity rows. */
        for (int i = 0; i < m; ++i) s.G[(size_t)i * (size_t)m + i] += 1e-9 * (1.0 + fabs(s.G[(size_t)i * (size_t)m + i]));
        if (dense_lu(s.G, m, s.piv, 1e-14) >= 0) break;
        dense_lu_solve(s.G, m, s.piv, s.step);
        double t = 1.0, ft = f;
        for (int ls = 0; ls < 30; ++ls, t *= 0.5) {
            for (int i = 0; i < m; ++i) s.trial[i] = p->lambda[i] + t * s.step[i];
            velocities(&s, s.trial, s.w);
            ft = residual(p, &s, s.trial, s.w, s.Ftrial, NULL);
            if (ft <= (1.0 - 1e-4 * t) * f) break;
        }
        memcpy(p->lambda, s.trial, sizeof(double) * (size_t)m);
        velocities(&s, p->lambda, s.w);
        f = residual(p, &s, p->lambda, s.w, s.F, s.G);
        res.iterations = it + 1;
        if (sqrt(2.0 * f) <= tolerance) break;
    }
    /* v = v_free + A^-1 J^T lambda */
    for (int r = 0; r < m; ++r)
        if (p->lambda[r] != 0.0) cp_apply(p, r, p->lambda[r]);
    res.error = cp_error(p);
done:
    loam_free(s.W), loam_free(s.G), loam_free(s.w0), loam_free(s.w), loam_free(s.F), loam_free(s.step), loam_free(s.trial), loam_free(s.Ftrial);
    loam_free(s.piv);
    return res;
}
