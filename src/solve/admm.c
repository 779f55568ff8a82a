/* Subsystem-based ADMM (Lee, Lee, Lee 2023, Algorithm 1, as reconstructed in
 * shared/research/equations-sap-mpm-subadmm.md A3-A9) and its full-system variant, on the problem of
 * cp.h. Per subsystem s and constraint block c touching it:
 *   (A_s + beta_s J_s^T J_s) v_s = b_s + J_s^T (beta_s z_s - u_s),   x_s = J_s v_s      (15)
 *   y_cs = x_cs + u_c / beta_s,  w~_c = sum_s y_cs + e_c,  W_c = sum_s 1/beta_s          (18)
 *   lambda_c = projection of -w~_c / W_c (unilateral, equality, exact Coulomb)            (19)-(21)
 *   z_cs = y_cs + lambda_c / beta_s,  u_c = -lambda_c                                     (16), (14)
 * so the physical impulse is lambda = -u. A subsystem is a run of consecutive groups (one tree, the
 * trees of a cable, or everything for the full-system variant); a "slot" is one row's share in one
 * subsystem (its segments in that subsystem). Soft equality rows inside one subsystem may be folded
 * into it (the paper's Remark 1): A_s += J^T J / c, b_s -= J^T e / c, and they leave the iteration;
 * their impulse is -(J v + e) / c at the end. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/dense.h"
#include "loam/core.h"
#include "solve/cp.h"

typedef struct admm {
    int S;                 /* subsystems */
    unsigned char* folded; /* m: rows folded into their subsystem */
    int *soff, *sn;        /* their unknowns: v[soff .. soff + sn) */
    int *slot_start;       /* m + 1 */
    int *slot_sub, *slot_sb, *slot_se, *slot_row; /* per slot: subsystem, segment range, row */
    int *sub_slot, *sub_slot_start; /* slots touching each subsystem, grouped (S + 1 starts) */
    double* beta;          /* S */
    double* M;             /* per subsystem factor at moff */
    int* bw;               /* S: the half bandwidth of each subsystem's matrix (a cable's is narrow) */
    size_t* moff;          /* S + 1 */
    double *x, *z, *y, *u, *b, *rhs;
} admm;

static void release(admm* a) {
    void* ptrs[] = {a->bw, a->folded, a->soff, a->sn, a->slot_start, a->slot_sub, a->slot_sb, a->slot_se, a->slot_row, a->sub_slot, a->sub_slot_start, a->beta, a->M, a->moff,
                    a->x, a->z, a->y, a->u, a->b, a->rhs};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) loam_free(ptrs[k]);
}

/* J_slot . v */
static double slot_dot(const cp_problem* p, const admm* a, int sl, const double* v) {
    double s = 0.0;
    for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
        const cp_group* g = &p->group[p->seg[k].group];
        const double* j = p->J + p->seg[k].val;
        for (int i = 0; i < g->n; ++i) s += j[i] * v[g->off + i];
    }
    return s;
}

static int setup(const cp_problem* p, admm* a, const int* sub_of_group, int nsub, int fold) {
    int m = p->m, nslot = p->row_seg[m];
    memset(a, 0, sizeof *a);
    a->S = nsub;
    int S = a->S;
    a->folded = loam_calloc((size_t)m + 1, 1);
    a->soff = loam_calloc((size_t)S + 1, sizeof(int));
    a->sn = loam_calloc((size_t)S + 1, sizeof(int));
    a->slot_start = loam_calloc((size_t)m + 1, sizeof(int));
    a->slot_sub = loam_calloc((size_t)nslot + 1, sizeof(int));
    a->slot_sb = loam_calloc((size_t)nslot + 1, sizeof(int));
    a->slot_se = loam_calloc((size_t)nslot + 1, sizeof(int));
    a->slot_row = loam_calloc((size_t)nslot + 1, sizeof(int));
    a->sub_slot = loam_calloc((size_t)nslot + 1, sizeof(int));
    a->sub_slot_start = loam_calloc((size_t)S + 1, sizeof(int));
    a->beta = loam_calloc((size_t)S + 1, sizeof(double));
    a->moff = loam_calloc((size_t)S + 1, sizeof(size_t));
    a->x = loam_calloc((size_t)nslot + 1, sizeof(double));
    a->z = loam_calloc((size_t)nslot + 1, sizeof(double));
    a->y = loam_calloc((size_t)nslot + 1, sizeof(double));
    a->u = loam_calloc((size_t)m + 1, sizeof(double));
    a->b = loam_calloc((size_t)p->n + 1, sizeof(double));
    a->rhs = loam_calloc((size_t)p->n + 1, sizeof(double));
    if (!a->folded || !a->soff || !a->sn || !a->slot_start || !a->slot_sub || !a->slot_sb || !a->slot_se || !a->slot_row || !a->sub_slot ||
        !a->sub_slot_start || !a->beta || !a->moff || !a->x || !a->z || !a->y || !a->u || !a->b || !a->rhs)
        return 0;
    /* subsystems: runs of consecutive groups (the caller numbers them so) */
    for (int s = 0; s < S; ++s) a->soff[s] = -1;
    for (int g = 0; g < p->ngroup; ++g) {
        int s = sub_of_group[g];
        if (a->soff[s] < 0) a->soff[s] = p->group[g].off;
        if (p->group[g].off != a->soff[s] + a->sn[s]) return 0; /* not contiguous */
        a->sn[s] += p->group[g].n;
    }
    for (int s = 0; s < S; ++s)
        if (a->soff[s] < 0) a->soff[s] = 0;
    /* slots: a row's segments grouped by subsystem (a row has at most two segments) */
    int sl = 0;
    for (int r = 0; r < m; ++r) {
        a->slot_start[r] = sl;
        for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++sl) {
            int s = sub_of_group[p->seg[k].group], e = k + 1;
            while (e < p->row_seg[r + 1] && sub_of_group[p->seg[e].group] == s) ++e;
            a->slot_sub[sl] = s, a->slot_sb[sl] = k, a->slot_se[sl] = e, a->slot_row[sl] = r;
            k = e;
        }
    }
    a->slot_start[m] = sl;
    /* soft equalities inside one subsystem are folded into it (Remark 1) */
    for (int c = 0; c < p->nblock && fold; ++c) {
        const cp_block* k = &p->block[c];
        int r = k->row;
        if (k->kind == CP_EQUALITY && k->compliance > 0.0 && a->slot_start[r + 1] - a->slot_start[r] == 1) a->folded[r] = 1;
    }
    for (int k = 0; k < sl; ++k)
        if (!a->folded[a->slot_row[k]]) a->sub_slot_start[a->slot_sub[k] + 1]++;
    for (int s = 0; s < S; ++s) a->sub_slot_start[s + 1] += a->sub_slot_start[s];
    int* pos = loam_malloc(sizeof(int) * (size_t)(S + 1));
    if (!pos) return 0;
    memcpy(pos, a->sub_slot_start, sizeof(int) * (size_t)S);
    for (int k = 0; k < sl; ++k)
        if (!a->folded[a->slot_row[k]]) a->sub_slot[pos[a->slot_sub[k]]++] = k;
    loam_free(pos);
    for (int s = 0; s < S; ++s) a->moff[s + 1] = a->moff[s] + (size_t)a->sn[s] * (size_t)a->sn[s];
    a->M = loam_malloc(sizeof(double) * (a->moff[S] + 1));
    a->bw = loam_calloc((size_t)S + 1, sizeof(int));
    return a->M != NULL && a->bw != NULL;
}

/* M += scale J_slot^T J_slot over the subsystem's unknowns (offset so, size ns). */
static void add_outer(const cp_problem* p, const admm* a, int sl, int so, int ns, double scale, double* M) {
    for (int k1 = a->slot_sb[sl]; k1 < a->slot_se[sl]; ++k1)
        for (int k2 = a->slot_sb[sl]; k2 < a->slot_se[sl]; ++k2) {
            const cp_group *g1 = &p->group[p->seg[k1].group], *g2 = &p->group[p->seg[k2].group];
            const double *j1 = p->J + p->seg[k1].val, *j2 = p->J + p->seg[k2].val;
            for (int r = 0; r < g1->n; ++r) {
                if (j1[r] == 0.0) continue;
                double* Mr = M + (size_t)(g1->off - so + r) * (size_t)ns + (size_t)(g2->off - so);
                for (int c = 0; c < g2->n; ++c) Mr[c] += scale * j1[r] * j2[c];
            }
        }
}

/* beta_s and the factor of A_s + beta_s J_s^T J_s (plus folded soft rows); returns 0 if a
 * factorization fails. */
static int factor(const cp_problem* p, admm* a, double beta_scale) {
    for (int s = 0; s < a->S; ++s) {
        int ns = a->sn[s], so = a->soff[s];
        double* M = a->M + a->moff[s];
        memset(M, 0, sizeof(double) * (size_t)ns * (size_t)ns);
        for (int g = 0; g < p->ngroup; ++g) { /* the groups inside this subsystem (all, or itself) */
            const cp_group* G = &p->group[g];
            if (G->off < so || G->off + G->n > so + ns) continue;
            for (int r = 0; r < G->n; ++r)
                for (int c = 0; c < G->n; ++c) M[(size_t)(G->off - so + r) * (size_t)ns + (size_t)(G->off - so + c)] = G->A[r * G->n + c];
        }
        for (int c = 0; c < p->nblock; ++c) { /* folded soft rows of this subsystem: A_s += J^T J / c */
            const cp_block* k = &p->block[c];
            int r = k->row, sl = a->slot_start[r];
            if (!a->folded[r] || a->slot_sub[sl] != s) continue;
            add_outer(p, a, sl, so, ns, 1.0 / k->compliance, M);
        }
        double trA = 0.0, jj = 0.0;
        for (int i = 0; i < ns; ++i) trA += M[(size_t)i * (size_t)ns + (size_t)i];
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
            int sl = a->sub_slot[q];
            for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
                const double* j = p->J + p->seg[k].val;
                for (int i = 0; i < p->group[p->seg[k].group].n; ++i) jj += j[i] * j[i];
            }
        }
        a->beta[s] = beta_scale * (jj > 0.0 ? trA / jj : 1.0); /* the paper's balance of dynamics and constraint terms */
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) add_outer(p, a, a->sub_slot[q], so, ns, a->beta[s], M);
        a->bw[s] = dense_bandwidth(M, ns);
        if (dense_cholesky_band(M, ns, a->bw[s]) >= 0) return 0;
    }
    return 1;
}

/* r = -w~ / W; a soft equality (compliance c) takes lambda = -w~ / (W + c). */
static void project(const cp_block* k, const double* r, double W, double* l) {
    if (k->kind == CP_EQUALITY) {
        l[0] = r[0] * W / (W + k->compliance);
    } else if (k->kind == CP_UNILATERAL) {
        l[0] = fmax(0.0, r[0]);
    } else {
        l[0] = fmax(0.0, r[0]);
        double t = sqrt(r[1] * r[1] + r[2] * r[2]), cap = k->mu * l[0];
        double s = t > cap ? cap / t : 1.0;
        l[1] = r[1] * s, l[2] = r[2] * s;
    }
}

cp_result cp_solve_admm(cp_problem* p, int iterations, double tolerance, const int* sub_of_group, int nsub, double beta_scale, int fold_soft) {
    cp_result res = {0, 0.0};
    admm a;
    if (!setup(p, &a, sub_of_group, nsub, fold_soft) || !factor(p, &a, beta_scale)) {
        release(&a);
        res.iterations = -1;
        return res;
    }
    /* b = A v_free. On entry v already carries the warm start, v = v_free + A^-1 J^T lambda, so
     * b = A v - J^T lambda: counting the warm impulses once, through u below. */
    for (int g = 0; g < p->ngroup; ++g) dense_matvec(p->group[g].A, p->group[g].n, p->group[g].n, p->v + p->group[g].off, a.b + p->group[g].off);
    for (int r = 0; r < p->m; ++r)
        if (p->lambda[r] != 0.0)
            for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
                const cp_group* g = &p->group[p->seg[k].group];
                const double* j = p->J + p->seg[k].val;
                for (int i = 0; i < g->n; ++i) a.b[g->off + i] -= j[i] * p->lambda[r];
            }
    /* folded rows: b_s -= J^T e / c */
    for (int c = 0; c < p->nblock; ++c) {
        int r = p->block[c].row;
        if (!a.folded[r]) continue;
        for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
            const cp_group* g = &p->group[p->seg[k].group];
            const double* j = p->J + p->seg[k].val;
            for (int i = 0; i < g->n; ++i) a.b[g->off + i] -= j[i] * p->e[r] / p->block[c].compliance;
        }
    }
    /* start: u = -lambda and z = x = J v with v the warm-started velocity, so that a correct warm
     * start is already a fixed point of (15) */
    for (int r = 0; r < p->m; ++r) {
        a.u[r] = -p->lambda[r];
        for (int sl = a.slot_start[r]; sl < a.slot_start[r + 1]; ++sl) a.z[sl] = a.x[sl] = slot_dot(p, &a, sl, p->v);
    }
    for (int it = 0; it < iterations; ++it) {
        /* (15): one reduced solve per subsystem, in parallel (each writes only its own unknowns and
         * slots, so the result does not depend on the thread count) */
#pragma omp parallel for schedule(static) if (a.S > 64)
        for (int s = 0; s < a.S; ++s) {
            if (a.sub_slot_start[s + 1] == a.sub_slot_start[s]) continue; /* untouched: keeps v_free */
            int ns = a.sn[s], so = a.soff[s];
            double* rhs = a.rhs + so; /* disjoint per subsystem */
            memcpy(rhs, a.b + so, sizeof(double) * (size_t)ns);
            for (int q = a.sub_slot_start[s]; q < a.sub_slot_start[s + 1]; ++q) {
                int sl = a.sub_slot[q], r = a.slot_row[sl];
                double coef = a.beta[s] * a.z[sl] - a.u[r];
                for (int k = a.slot_sb[sl]; k < a.slot_se[sl]; ++k) {
                    const cp_group* g = &p->group[p->seg[k].group];
                    const double* j = p->J + p->seg[k].val;
                    for (int i = 0; i < g->n; ++i) rhs[g->off - so + i] += j[i] * coef;
                }
            }
            dense_cholesky_band_solve(a.M + a.moff[s], ns, a.bw[s], rhs);
            memcpy(p->v + so, rhs, sizeof(double) * (size_t)ns);
            for (int q = a.sub_slot_start[s]; q < a.sub_slot_start[s + 1]; ++q) a.x[a.sub_slot[q]] = slot_dot(p, &a, a.sub_slot[q], p->v);
        }
        /* (16)-(21): closed-form projection per block, in parallel (each writes its own rows) */
        double change = 0.0;
#pragma omp parallel for schedule(static) reduction(max : change) if (p->nblock > 64)
        for (int c = 0; c < p->nblock; ++c) {
            const cp_block* k = &p->block[c];
            int r0 = k->row, nr = k->kind == CP_CONTACT ? 3 : 1, ns = a.slot_start[r0 + 1] - a.slot_start[r0];
            if (ns == 0 || a.folded[r0]) continue;
            double W = 0.0, rv[3], l[3] = {0, 0, 0};
            for (int q = 0; q < ns; ++q) W += 1.0 / a.beta[a.slot_sub[a.slot_start[r0] + q]];
            for (int q = 0; q < nr; ++q) {
                int r = r0 + q;
                double wt = p->e[r];
                for (int sl = a.slot_start[r]; sl < a.slot_start[r + 1]; ++sl) {
                    double y = a.x[sl] + a.u[r] / a.beta[a.slot_sub[sl]];
                    if (it > 0) change = fmax(change, fabs(y - a.y[sl]));
                    a.y[sl] = y;
                    wt += y;
                }
                rv[q] = -wt / W;
            }
            project(k, rv, W, l);
            for (int q = 0; q < nr; ++q) {
                int r = r0 + q;
                for (int sl = a.slot_start[r]; sl < a.slot_start[r + 1]; ++sl) a.z[sl] = a.y[sl] + l[q] / a.beta[a.slot_sub[sl]];
                a.u[r] = -l[q];
                p->lambda[r] = l[q];
            }
        }
        res.iterations = it + 1;
        if (it > 0 && change <= tolerance) break;
    }
    for (int c = 0; c < p->nblock; ++c) { /* the folded rows' impulses from the final velocities */
        int r = p->block[c].row;
        if (a.folded[r]) p->lambda[r] = -cp_row_velocity(p, r) / p->block[c].compliance;
    }
    release(&a);
    res.error = cp_error(p);
    return res;
}
