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

/* |L^-1 j|^2 for one segment j over group g (j L^-T L^-1 j^T = j A^-1 j^T, its share of the
 * diagonal) by forward substitution alone, from j's first nonzero: L^-1 j vanishes above it, and
 * a contact or glue row touches a few nodes of an FEM piece, so this costs a fraction of the
 * two full band substitutions of A^-1 j. y: n scratch. */
static double half_norm2(const cp_group* g, const double* j, double* y) {
    int n = g->n, bw = g->bw > 0 ? g->bw : n, i0 = 0;
    while (i0 < n && j[i0] == 0.0) ++i0;
    double s2 = 0.0;
    for (int i = i0; i < n; ++i) {
        const double* li = g->L + (size_t)i * (size_t)n;
        double s = j[i];
        for (int k = i - bw > i0 ? i - bw : i0; k < i; ++k) s -= li[k] * y[k];
        y[i] = s / li[i];
        s2 += y[i] * y[i];
    }
    return s2;
}

void cp_prepare_diag(cp_problem* p, double* segd, double* t) {
    memset(t, 0, sizeof(double) * (size_t)p->n);
    for (int r = 0; r < p->m; ++r) {
        double d = 0.0;
        for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
            const cp_seg* sg = &p->seg[k];
            const cp_group* g = &p->group[sg->group];
            const double* j = p->J + sg->val;
            double dk = half_norm2(g, j, p->AJ + sg->val); /* AJ: scratch here */
            segd[k] = dk, d += dk;
            if (p->lambda[r] != 0.0)
                for (int i = 0; i < g->n; ++i) t[g->off + i] += j[i] * p->lambda[r];
        }
        p->diag[r] = d;
    }
    /* the warm start: one solve per group for all its rows' impulses */
    for (int gi = 0; gi < p->ngroup; ++gi) {
        const cp_group* g = &p->group[gi];
        double* tg = t + g->off;
        int any = 0;
        for (int i = 0; i < g->n && !any; ++i) any = tg[i] != 0.0;
        if (!any) continue;
        if (g->bw > 0) dense_cholesky_band_solve(g->L, g->n, g->bw, tg);
        else if (g->n == 6) solve6(g->L, tg);
        else dense_cholesky_solve(g->L, g->n, tg);
        for (int i = 0; i < g->n; ++i) p->v[g->off + i] += tg[i];
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
