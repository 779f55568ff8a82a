/* Nonsmooth (semismooth) Newton on the impulses, a baseline of paper 004: the contact law written as
 * the Alart-Curnier equations F(lambda) = 0 with w = W lambda + w0, W = J A^-1 J^T,
 *   unilateral  F = lambda - max(0, lambda - rho w)
 *   equality    F = rho (w + c lambda)
 *   contact     F_n = lambda_n - max(0, lambda_n - rho w_n)
 *               F_t = lambda_t - proj_disk(mu g)(lambda_t - rho w_t),  g = max(0, lambda_n - rho w_n)
 * (rho = 1 / W_nn per block), with G an element of the generalized (B-)Jacobian of F.
 *
 * Why it is damped and regularized (it stalled at 1e-2 m/s on the draping cable, and in earlier
 * versions ran away to 1e3 m/s and more): the scenes make G singular or nearly so. A capsule lying on
 * the floor touches it at both ends, the next segment at the same spots, and the hard joint between
 * them holds the same point: three constraints on one velocity, each with its own position error, so
 * the rows are redundant and their targets inconsistent. A Newton step G d = -F (the old code: LU with
 * a 1e-9 diagonal) is then huge along the near-null directions, the Armijo search finds no decrease,
 * and the iteration stalls. Three changes, all standard:
 * - Proximally regularized Alart-Curnier: every hard row gets a tiny compliance towards the current
 *   iterate, w + eps (lambda - lambda_k), eps = NN_REG W_rr, so each step's split of an impulse
 *   between redundant rows is unique and G nonsingular; at convergence lambda = lambda_k and the
 *   solution is the unregularized one (a plain compliance, w + eps lambda, left an error floor of
 *   NN_REG times about 2 m/s and failed test_mb_solvers' 1e-6 m/s).
 * - The merit in velocity units: each block's rows of F and G divided by its rho, so f = |F|^2 / 2 is
 *   what cp_error measures (w on active rows, W_rr lambda on inactive ones) and the tolerance is in
 *   m/s. Unscaled, a light segment's angular rows (rho ~ 1e-7) were invisible: f was 1e-11 while
 *   their velocities were off by 1 m/s.
 * - Levenberg-Marquardt steps on that merit, (G^T G + mu D) d = -G^T F, D = diag(G^T G) (Marquardt's
 *   scaling), mu = kappa |F| / |F_0| (mu ~ |F|: Yamashita-Fukushima, Fan-Yuan; locally fast under an
 *   error bound even where solutions are not isolated), a descent direction whenever G^T F != 0, with
 *   Armijo backtracking on f along it (slope (G^T F) . d); kappa falls after a full step and rises
 *   after a shortened or failed one. A plain Newton step first was tried and dropped: on the cable
 *   scenes it never passed the line search, so it only doubled the cost.
 * What is left: on a cable lying on the floor the error still falls slowly (about 1.6e-3 to 1.3e-3
 * m/s from 3 to 9 iterations, 60 segments): the redundant contacts' active set settles only as the
 * damping lets it, and G^T G squares the chain's conditioning. Each iteration costs O(m^3): it is
 * meant for the few iterations of Table I. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/dense.h"
#include "loam/core.h"
#include "contact/cp.h"

typedef struct nn {
    int m;
    double *W, *w0, *w, *F, *G, *H, *grad, *step, *trial, *Ftrial;
    double *free_w, *eps; /* J v_free + e; the rows' regularization (w0 = free_w - eps lambda_k) */
} nn;

/* The relative compliance of the proximal regularization: eps = NN_REG W_rr (see above). */
static const double NN_REG = 1e-6;

static double rho_of(const cp_problem* p, const cp_block* k) { return p->diag[k->row] > 0.0 ? 1.0 / p->diag[k->row] : 1.0; }

static void velocities(const nn* s, const double* lambda, double* w) {
    for (int i = 0; i < s->m; ++i) {
        double v = s->w0[i];
        for (int j = 0; j < s->m; ++j) v += s->W[i * s->m + j] * lambda[j];
        w[i] = v;
    }
}

/* F at lambda (with w = W lambda + w0); with G != NULL also a generalized Jacobian (m x m): each
 * block's Alart-Curnier form of its kind's projection (kinds.c). */
static double residual(const cp_problem* p, const nn* s, const double* lambda, const double* w, double* F, double* G) {
    int m = s->m;
    if (G) memset(G, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int b = 0; b < p->nblock; ++b) cp_kind_ac_residual(&p->block[b], rho_of(p, &p->block[b]), m, s->W, lambda, w, F, G);
    /* In velocity units: each block's rows divided by its rho (active rows read w, inactive ones
     * W_rr lambda, as cp_error's Fischer-Burmeister terms do), so the merit weighs a rad/s on a light
     * segment's angular row like a m/s on a contact, and the tolerance (m/s) means what it says. With
     * rho in impulse per velocity spanning 1e-7 to 1e-2 on a cable, the unscaled merit was already
     * "converged" at 1e-11 while the rows' velocities were off by 1 m/s. */
    double f = 0.0;
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        double inv = 1.0 / rho_of(p, k);
        for (int q = 0; q < cp_kind_rows(k->kind); ++q) {
            int r = k->row + q;
            F[r] *= inv;
            f += F[r] * F[r];
            if (G)
                for (int j = 0; j < m; ++j) G[(size_t)r * (size_t)m + j] *= inv;
        }
    }
    return 0.5 * f;
}

/* The proximal centre moves to lambda: w0 = J v_free + e - eps lambda. */
static void recentre(nn* s, const double* lambda) {
    for (int i = 0; i < s->m; ++i) s->w0[i] = s->free_w[i] - s->eps[i] * lambda[i];
}

/* Armijo backtracking on the merit along s->step from p->lambda: the largest t = 2^-k, k < tries, with
 * f(lambda + t step) <= f + 1e-4 t slope; the point in s->trial. 0 if none. */
static double line_search(const cp_problem* p, nn* s, double f, double slope, int tries) {
    double t = 1.0;
    for (int ls = 0; ls < tries; ++ls, t *= 0.5) {
        for (int i = 0; i < s->m; ++i) s->trial[i] = p->lambda[i] + t * s->step[i];
        velocities(s, s->trial, s->w);
        if (residual(p, s, s->trial, s->w, s->Ftrial, NULL) <= f + 1e-4 * t * slope) return t;
    }
    return 0.0;
}

/* s->H = G^T G + mu D, D = diag(G^T G) (Marquardt's scaling: invariant to the units of each impulse;
 * a column G leaves empty, a row no velocity sees, gets a floor instead). */
static void lm_matrix(nn* s, double mu) {
    int m = s->m;
    memset(s->H, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int k = 0; k < m; ++k) {
        const double* Gk = s->G + (size_t)k * (size_t)m;
        for (int i = 0; i < m; ++i) {
            if (Gk[i] == 0.0) continue; /* G is mostly identity rows and sparse blocks */
            double* Hi = s->H + (size_t)i * (size_t)m;
            for (int j = 0; j <= i; ++j) Hi[j] += Gk[i] * Gk[j];
        }
    }
    double dmax = 0.0;
    for (int i = 0; i < m; ++i) dmax = fmax(dmax, s->H[(size_t)i * (size_t)m + i]);
    for (int i = 0; i < m; ++i) {
        s->H[(size_t)i * (size_t)m + i] += mu * fmax(s->H[(size_t)i * (size_t)m + i], 1e-12 * dmax + 1e-300);
        for (int j = 0; j < i; ++j) s->H[(size_t)j * (size_t)m + i] = s->H[(size_t)i * (size_t)m + j];
    }
}

cp_result cp_solve_nnewton(cp_problem* p, int iterations, double tolerance) {
    cp_result res = {0, 0.0};
    if (cp_kinds_check(p->block, p->nblock) >= 0) {
        res.iterations = CP_UNSUPPORTED_KIND;
        return res;
    }
    int m = p->m;
    nn s = {m, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    size_t mm = (size_t)m * (size_t)m + 1, m1 = (size_t)m + 1;
    s.W = loam_malloc(sizeof(double) * mm);
    s.G = loam_malloc(sizeof(double) * mm);
    s.H = loam_malloc(sizeof(double) * mm);
    s.grad = loam_malloc(sizeof(double) * m1);
    s.w0 = loam_malloc(sizeof(double) * m1);
    s.w = loam_malloc(sizeof(double) * m1);
    s.F = loam_malloc(sizeof(double) * m1);
    s.step = loam_malloc(sizeof(double) * m1);
    s.trial = loam_malloc(sizeof(double) * m1);
    s.Ftrial = loam_malloc(sizeof(double) * m1);
    s.free_w = loam_malloc(sizeof(double) * m1);
    s.eps = loam_calloc(m1, sizeof(double));
    if (!s.W || !s.G || !s.H || !s.grad || !s.w0 || !s.w || !s.F || !s.step || !s.trial || !s.Ftrial || !s.free_w || !s.eps) {
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
        s.free_w[i] = cp_row_velocity(p, i) - wl;
    }
    for (int r = 0; r < m; ++r)
        if (p->lambda[r] != 0.0) cp_apply(p, r, -p->lambda[r]);
    /* The proximally regularized Alart-Curnier equations: every hard row's velocity becomes
     * w + eps (lambda - lambda_k), eps = NN_REG W_rr (the block's normal diagonal for a contact),
     * lambda_k the current iterate: eps sits on W's diagonal and -eps lambda_k in w0, so w, F and G
     * all see it, and at lambda_k itself F is the true residual (no offset in the solution). Redundant
     * rows (two contacts and a joint on one spot of the floor, each with its own position error) ask
     * one velocity for different values; with eps each step's split of the impulse between them is
     * unique and G nonsingular. */
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        if (k->kind == CP_EQUALITY && k->compliance > 0.0) continue;
        for (int q = 0; q < cp_kind_rows(k->kind); ++q) {
            int r = k->row + q;
            s.eps[r] = NN_REG / rho_of(p, k);
            s.W[(size_t)r * (size_t)m + r] += s.eps[r];
        }
    }
    recentre(&s, p->lambda);
    velocities(&s, p->lambda, s.w);
    double f = residual(p, &s, p->lambda, s.w, s.F, s.G), f0 = f, kappa = 1e-2;
    for (int it = 0; it < iterations && f > 0.0; ++it) {
        res.iterations = it + 1;
        for (int i = 0; i < m; ++i) { /* the merit's gradient G^T F */
            double g = 0.0;
            for (int k = 0; k < m; ++k) g += s.G[(size_t)k * (size_t)m + i] * s.F[k];
            s.grad[i] = g;
        }
        lm_matrix(&s, fmax(kappa * sqrt(f / f0), 1e-12)); /* mu ~ |F|: Yamashita-Fukushima, Fan-Yuan */
        for (int i = 0; i < m; ++i) s.step[i] = -s.grad[i];
        if (dense_cholesky(s.H, m) >= 0) break; /* G^T G + mu D is positive definite; only NaNs get here */
        dense_cholesky_solve(s.H, m, s.step);
        double slope = 0.0;
        for (int i = 0; i < m; ++i) slope += s.grad[i] * s.step[i];
        if (!(slope < 0.0)) break; /* G^T F = 0: a stationary point of the merit, no descent left */
        double t = line_search(p, &s, f, slope, 30);
        /* a full step: trust the model more; a shortened one: damp more; a failed one: keep lambda */
        kappa = t == 1.0 ? fmax(kappa * 0.25, 1e-8) : fmin(kappa * (t > 0.0 ? 2.0 : 10.0), 1e4);
        if (t == 0.0) continue;
        memcpy(p->lambda, s.trial, sizeof(double) * (size_t)m);
        recentre(&s, p->lambda);
        velocities(&s, p->lambda, s.w);
        f = residual(p, &s, p->lambda, s.w, s.F, s.G);
        if (sqrt(2.0 * f) <= tolerance) break;
    }
    /* v = v_free + A^-1 J^T lambda */
    for (int r = 0; r < m; ++r)
        if (p->lambda[r] != 0.0) cp_apply(p, r, p->lambda[r]);
    res.error = cp_error(p);
done:
    loam_free(s.W), loam_free(s.G), loam_free(s.H), loam_free(s.grad), loam_free(s.w0), loam_free(s.w), loam_free(s.F), loam_free(s.step), loam_free(s.trial), loam_free(s.Ftrial);
    loam_free(s.free_w), loam_free(s.eps);
    return res;
}
