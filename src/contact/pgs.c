/* Projected Gauss-Seidel on the velocity-form problem of cp.h: the baseline of paper 004. Each row
 * update moves v by A^-1 J_r^T times the impulse change, so later rows see it at once.
 *
 * With `cg`, the sweeps are accelerated by the nonsmooth nonlinear conjugate gradient method of
 * Silcowitz, Niebe and Erleben (2010), "A nonsmooth nonlinear conjugate gradient method for
 * interactive contact force problems" (The Visual Computer 26): the PGS baseline of paper 004 is
 * "PGS with conjugate gradient-based acceleration". A sweep is taken as a step along minus a
 * gradient, g_k = x_{k-1} - PGS(x_{k-1}); with beta_k = |g_k|^2 / |g_{k-1}|^2 (Fletcher-Reeves),
 * x_k = PGS(x_{k-1}) + beta_k p_{k-1} and p_k = beta_k p_{k-1} - g_k, restarting (p_k = 0) when
 * beta_k > 1. The extrapolated impulses may leave the cone; the next sweep projects them, and the
 * last iteration takes no extrapolation, so the result is always a sweep's. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "loam/core.h"
#include "contact/cp.h"

/* fmax without the libm call (2.7% of a stirring step); no NaN handling needed for these values. */
static inline double max2(double a, double b) { return a > b ? a : b; }

/* The two tangent rows' velocities in one pass (a contact block's rows touch the same groups). */
static inline void tangent_velocities(const cp_problem* p, int r, double* w1, double* w2) {
    double a = p->e[r], b = p->e[r + 1];
    int k2 = p->row_seg[r + 1];
    for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k, ++k2) {
        const cp_group* g = &p->group[p->seg[k].group];
        const double *j1 = p->J + p->seg[k].val, *j2 = p->J + p->seg[k2].val, *v = p->v + g->off;
        if (g->n == 6)
            for (int i = 0; i < 6; ++i) a += j1[i] * v[i], b += j2[i] * v[i];
        else { /* over both rows' nonzeros */
            const cp_seg *s1 = &p->seg[k], *s2 = &p->seg[k2];
            int lo = s1->lo < s2->lo ? s1->lo : s2->lo, hi = s1->hi > s2->hi ? s1->hi : s2->hi;
            for (int i = lo; i < hi; ++i) a += j1[i] * v[i], b += j2[i] * v[i];
        }
    }
    *w1 = a, *w2 = b;
}

/* v += A^-1 (J_r^T d1 + J_{r2}^T d2): a contact's two tangent rows (same groups) in one pass. */
static inline void apply_tangents(cp_problem* p, int r, double d1, int r2, double d2) {
    for (int k = p->row_seg[r], k2 = p->row_seg[r2]; k < p->row_seg[r + 1]; ++k, ++k2) {
        const cp_group* g = &p->group[p->seg[k].group];
        const double *a1 = p->AJ + p->seg[k].val, *a2 = p->AJ + p->seg[k2].val;
        double* v = p->v + g->off;
        if (g->n == 6)
            for (int i = 0; i < 6; ++i) v[i] = v[i] + a1[i] * d1 + a2[i] * d2;
        else
            for (int i = 0; i < g->n; ++i) v[i] = v[i] + a1[i] * d1 + a2[i] * d2;
    }
}

/* Change row r's impulse to `value` and carry the change into v; returns |dw| on the row itself. */
static double apply(cp_problem* p, int r, double value) {
    double d = value - p->lambda[r];
    if (d == 0.0) return 0.0;
    cp_apply(p, r, d);
    p->lambda[r] = value;
    return fabs(d) * p->diag[r];
}

/* a . b over 6 unknowns as two interleaved partial sums (even and odd entries), added at the end: a
 * chain of three dependent additions where one running sum makes six, and what the compiler turns
 * into one pass of two-lane vectors. The rows' velocities in a stirring step were bound by that
 * latency (the order is fixed here, so results do not depend on the compiler). */
static inline double dot6(const double* a, const double* b) {
    double even = a[0] * b[0], odd = a[1] * b[1];
    even += a[2] * b[2], odd += a[3] * b[3];
    even += a[4] * b[4], odd += a[5] * b[5];
    return even + odd;
}

/* A contact block whose rows touch at most two groups of 6 unknowns (sphere-sphere, sphere-wall: most
 * rows of the sphere scenes), with the pointers to its velocities, Jacobian rows and A^-1 J^T rows
 * looked up once per solve instead of once per sweep (that lookup was a fifth of the sweeps). */
typedef struct contact6_rows {
    int ns; /* groups touched, 1 or 2; 0: not such a block (the general path) */
    double* v[2];
    const double *jn[2], *j1[2], *j2[2], *an[2], *a1[2], *a2[2];
} contact6_rows;

static void contact6_lookup(const cp_problem* p, const cp_block* k, contact6_rows* c) {
    int r = k->row, k0 = p->row_seg[r], ns = p->row_seg[r + 1] - k0;
    c->ns = 0;
    if (k->kind != CP_CONTACT || ns > 2) return;
    for (int q = 0; q < ns; ++q) {
        const cp_group* g = &p->group[p->seg[k0 + q].group];
        if (g->n != 6) return;
        size_t vn = p->seg[k0 + q].val, v1 = p->seg[p->row_seg[r + 1] + q].val, v2 = p->seg[p->row_seg[r + 2] + q].val;
        c->v[q] = p->v + g->off;
        c->jn[q] = p->J + vn, c->j1[q] = p->J + v1, c->j2[q] = p->J + v2;
        c->an[q] = p->AJ + vn, c->a1[q] = p->AJ + v1, c->a2[q] = p->AJ + v2;
    }
    c->ns = ns;
}

/* The same update as the general path in cp_solve_pgs; only its dot products sum in another order
 * (dot6). */
static void contact6(cp_problem* p, const cp_block* k, const contact6_rows* c, double* change) {
    int r = k->row, ns = c->ns;
    double* const* v = c->v;
    const double *const *jn = c->jn, *const *j1 = c->j1, *const *j2 = c->j2;
    const double *const *an = c->an, *const *a1 = c->a1, *const *a2 = c->a2;
    double w = ns == 2 ? p->e[r] + (dot6(jn[0], v[0]) + dot6(jn[1], v[1])) : p->e[r] + dot6(jn[0], v[0]);
    double l = cp_unilateral_project(p->lambda[r] - w / p->diag[r]), d = l - p->lambda[r];
    if (d != 0.0) {
        for (int q = 0; q < ns; ++q)
            for (int i = 0; i < 6; ++i) v[q][i] += an[q][i] * d;
        p->lambda[r] = l;
        *change = max2(*change, fabs(d) * p->diag[r]);
    }
    double dd = cp_contact_tangent_diag(p->diag[r + 1], p->diag[r + 2]), t[2] = {0.0, 0.0};
    if (dd > 0.0) {
        double w1 = ns == 2 ? p->e[r + 1] + (dot6(j1[0], v[0]) + dot6(j1[1], v[1])) : p->e[r + 1] + dot6(j1[0], v[0]);
        double w2 = ns == 2 ? p->e[r + 2] + (dot6(j2[0], v[0]) + dot6(j2[1], v[1])) : p->e[r + 2] + dot6(j2[0], v[0]);
        t[0] = p->lambda[r + 1] - w1 / dd, t[1] = p->lambda[r + 2] - w2 / dd;
    }
    cp_contact_project_tangents(k, p->lambda[r], t);
    double d1 = t[0] - p->lambda[r + 1], d2 = t[1] - p->lambda[r + 2];
    if (d1 != 0.0 || d2 != 0.0)
        for (int q = 0; q < ns; ++q)
            for (int i = 0; i < 6; ++i) v[q][i] = v[q][i] + a1[q][i] * d1 + a2[q][i] * d2;
    p->lambda[r + 1] = t[0], p->lambda[r + 2] = t[1];
    *change = max2(*change, max2(fabs(d1) * p->diag[r + 1], fabs(d2) * p->diag[r + 2]));
}

/* The scratch: the blocks' lookups, then the conjugate gradient's two vectors of m impulses. */
size_t cp_pgs_scratch_bytes(int nblock, int m) {
    return sizeof(contact6_rows) * (size_t)(nblock > 0 ? nblock : 0) + 2 * sizeof(double) * (size_t)(m > 0 ? m : 0);
}

/* One sweep over the blocks in order; returns the largest |impulse change| x diagonal. */
static double sweep(cp_problem* p, const contact6_rows* fast) {
    double change = 0.0;
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        int r = k->row;
        if (!(p->diag[r] > 0.0)) continue; /* a row that moves nothing */
        contact6_rows here;
        const contact6_rows* c6 = fast ? &fast[b] : &here;
        if (!fast) contact6_lookup(p, k, &here);
        if (c6->ns) {
            contact6(p, k, c6, &change);
            continue;
        }
        /* The kind's lead row (a contact's normal) first, applied at once; then a contact's
         * tangents from the velocities it left (kinds.h: the projection and the metric). */
        double D[3];
        cp_kind_diag(k, p->diag + r, D);
        change = max2(change, apply(p, r, cp_kind_project_lead(k, D[0], p->lambda[r] - cp_row_velocity(p, r) / D[0])));
        if (k->kind != CP_CONTACT) continue;
        double t[2] = {0.0, 0.0}, w1, w2;
        if (D[1] > 0.0) {
            tangent_velocities(p, r + 1, &w1, &w2);
            t[0] = p->lambda[r + 1] - w1 / D[1], t[1] = p->lambda[r + 2] - w2 / D[2];
        }
        cp_contact_project_tangents(k, p->lambda[r], t);
        double d1 = t[0] - p->lambda[r + 1], d2 = t[1] - p->lambda[r + 2];
        if (d1 != 0.0 || d2 != 0.0) apply_tangents(p, r + 1, d1, r + 2, d2);
        p->lambda[r + 1] = t[0], p->lambda[r + 2] = t[1];
        change = max2(change, max2(fabs(d1) * p->diag[r + 1], fabs(d2) * p->diag[r + 2]));
    }
    return change;
}

/* The conjugate gradient's step after a sweep from `prev` (the header): the direction `dir` and
 * |g|^2 in *g2 (0 before the first) carry over. The extrapolation moves v by A^-1 J^T of
 * the impulse change, a contact's three rows in one pass on the sweep's lookups (as the sweep). */
static void cg_step(cp_problem* p, const contact6_rows* fast, const double* prev, double* dir, double* g2) {
    double gg = 0.0;
    for (int r = 0; r < p->m; ++r) {
        double d = p->lambda[r] - prev[r]; /* -g */
        gg += d * d;
    }
    double beta = *g2 > 0.0 ? gg / *g2 : 0.0; /* 0 after the first sweep */
    *g2 = gg;
    if (!(beta > 0.0 && beta <= 1.0)) { /* the first sweep, or a restart: p = -g */
        for (int r = 0; r < p->m; ++r) dir[r] = p->lambda[r] - prev[r];
        return;
    }
    for (int b = 0; b < p->nblock; ++b) { /* x_k += beta p_{k-1}; p_k = beta p_{k-1} - g_k */
        const cp_block* k = &p->block[b];
        int r = k->row, nr = cp_kind_rows(k->kind);
        double x[3];
        for (int q = 0; q < nr; ++q) {
            x[q] = beta * dir[r + q];
            dir[r + q] = x[q] + (p->lambda[r + q] - prev[r + q]);
            p->lambda[r + q] += x[q];
        }
        const contact6_rows* c = &fast[b];
        if (c->ns)
            for (int q = 0; q < c->ns; ++q)
                for (int i = 0; i < 6; ++i) c->v[q][i] += c->an[q][i] * x[0] + c->a1[q][i] * x[1] + c->a2[q][i] * x[2];
        else
            for (int q = 0; q < nr; ++q)
                if (x[q] != 0.0) cp_apply(p, r + q, x[q]);
    }
}

cp_result cp_solve_pgs(cp_problem* p, int iterations, double tolerance, int cg) {
    cp_result res = {0, 0.0};
    if (cp_kinds_check(p->block, p->nblock) >= 0) {
        res.iterations = CP_UNSUPPORTED_KIND;
        return res;
    }
    void* mem = p->pgs_scratch ? p->pgs_scratch : loam_malloc(cp_pgs_scratch_bytes(p->nblock, cg ? p->m : 0));
    if (!mem && cg) {
        res.iterations = -1;
        return res;
    }
    /* Without memory for them, the lookups are made per block and sweep (the same results). */
    contact6_rows* fast = mem && p->nblock > 0 ? mem : NULL;
    double* prev = cg ? (double*)((char*)mem + sizeof(contact6_rows) * (size_t)p->nblock) : NULL;
    double *dir = cg ? prev + p->m : NULL, g2 = 0.0;
    for (int b = 0; fast && b < p->nblock; ++b) contact6_lookup(p, &p->block[b], &fast[b]);
    for (int it = 0; it < iterations; ++it) {
        if (cg) memcpy(prev, p->lambda, sizeof(double) * (size_t)p->m);
        double change = sweep(p, fast);
        res.iterations = it + 1;
        if (change <= tolerance) break;
        if (cg && it + 1 < iterations) cg_step(p, fast, prev, dir, &g2);
    }
    if (mem != p->pgs_scratch) loam_free(mem);
    res.error = cp_error(p);
    return res;
}
