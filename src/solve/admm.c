/* Subsystem-based ADMM (Lee, Lee, Lee 2023, Algorithm 1, as reconstructed in
 * shared/research/equations-sap-mpm-subadmm.md A3-A9) and its full-system variant, on the problem of
 * cp.h. Per subsystem s (a tree of bodies) and constraint block c touching it:
 *   (A_s + beta_s J_s^T J_s) v_s = b_s + J_s^T (beta_s z_s - u_s),   x_s = J_s v_s      (15)
 *   y_cs = x_cs + u_c / beta_s,  w~_c = sum_s y_cs + e_c,  W_c = sum_s 1/beta_s          (18)
 *   lambda_c = projection of -w~_c / W_c (unilateral, equality, exact Coulomb)            (19)-(21)
 *   z_cs = y_cs + lambda_c / beta_s,  u_c = -lambda_c                                     (16), (14)
 * so the physical impulse is lambda = -u. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/dense.h"
#include "loam/core.h"
#include "solve/cp.h"

enum { MAXS = 4 }; /* subsystems one block may touch (a contact touches two) */

typedef struct admm {
    int G;          /* subsystems */
    int *gdof, *goff;   /* dofs of each subsystem, packed, and offsets (G + 1) */
    int *grow, *groff;  /* (row, slot) pairs touching each subsystem, as row * MAXS + slot, offsets (G + 1) */
    double* beta;   /* G */
    double* M;      /* factor of A_s + beta_s J_s^T J_s per subsystem, at moff */
    size_t* moff;   /* G */
    int* bsub;      /* nblock * MAXS: subsystems of each block */
    int* bns;       /* nblock */
    int* rblock;    /* m: the block of each row */
    double *x, *z, *y, *yprev; /* m * MAXS */
    double* u;      /* m */
    double* b;      /* n: A v_free */
    double* rhs;    /* n */
} admm;

static void release(admm* a) {
    void* ptrs[] = {a->gdof, a->goff, a->grow, a->groff, a->beta, a->M, a->moff, a->bsub, a->bns, a->rblock, a->x, a->z, a->y, a->yprev, a->u, a->b, a->rhs};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) loam_free(ptrs[k]);
}

static int slot_of(const admm* a, int blk, int g) {
    for (int k = 0; k < a->bns[blk]; ++k)
        if (a->bsub[blk * MAXS + k] == g) return k;
    return -1;
}

/* J_{r,s} . v over subsystem g's dofs (v indexed by global unknown). */
static double row_dot(const cp_problem* p, const admm* a, int r, int g, const double* v) {
    const double* j = p->J + (size_t)r * (size_t)p->n;
    double s = 0.0;
    for (int k = a->goff[g]; k < a->goff[g + 1]; ++k) s += j[a->gdof[k]] * v[a->gdof[k]];
    return s;
}

static int setup(const cp_problem* p, admm* a, int whole) {
    int n = p->n, m = p->m, G = whole ? 1 : p->ngroup;
    memset(a, 0, sizeof *a);
    a->G = G;
    a->gdof = loam_malloc(sizeof(int) * (size_t)(n + 1));
    a->goff = loam_calloc((size_t)G + 1, sizeof(int));
    a->beta = loam_calloc((size_t)G, sizeof(double));
    a->moff = loam_calloc((size_t)G + 1, sizeof(size_t));
    a->bsub = loam_malloc(sizeof(int) * (size_t)(p->nblock * MAXS + 1));
    a->bns = loam_calloc((size_t)p->nblock + 1, sizeof(int));
    a->rblock = loam_malloc(sizeof(int) * (size_t)(m + 1));
    a->x = loam_calloc((size_t)m * MAXS + 1, sizeof(double));
    a->z = loam_calloc((size_t)m * MAXS + 1, sizeof(double));
    a->y = loam_calloc((size_t)m * MAXS + 1, sizeof(double));
    a->yprev = loam_calloc((size_t)m * MAXS + 1, sizeof(double));
    a->u = loam_calloc((size_t)m + 1, sizeof(double));
    a->b = loam_malloc(sizeof(double) * (size_t)(n + 1));
    a->rhs = loam_malloc(sizeof(double) * (size_t)(n + 1));
    a->groff = loam_calloc((size_t)G + 1, sizeof(int));
    if (!a->gdof || !a->goff || !a->beta || !a->moff || !a->bsub || !a->bns || !a->rblock || !a->x || !a->z || !a->y || !a->yprev || !a->u ||
        !a->b || !a->rhs || !a->groff)
        return 0;
    /* dofs by subsystem (counting sort keeps their order) */
    for (int i = 0; i < n; ++i) a->goff[(whole ? 0 : p->group[i]) + 1]++;
    for (int g = 0; g < G; ++g) a->goff[g + 1] += a->goff[g];
    int* pos = loam_malloc(sizeof(int) * (size_t)(G + 1));
    if (!pos) return 0;
    memcpy(pos, a->goff, sizeof(int) * (size_t)G);
    for (int i = 0; i < n; ++i) a->gdof[pos[whole ? 0 : p->group[i]]++] = i;
    /* subsystems of each block: those with a nonzero column in any of its rows */
    for (int c = 0; c < p->nblock; ++c) {
        int r0 = p->block[c].row, nr = p->block[c].kind == CP_CONTACT ? 3 : 1;
        for (int r = r0; r < r0 + nr; ++r) {
            a->rblock[r] = c;
            const double* j = p->J + (size_t)r * (size_t)n;
            for (int i = 0; i < n; ++i) {
                if (j[i] == 0.0) continue;
                int g = whole ? 0 : p->group[i];
                if (slot_of(a, c, g) >= 0) continue;
                if (a->bns[c] == MAXS) {
                    loam_free(pos);
                    return 0;
                }
                a->bsub[c * MAXS + a->bns[c]++] = g;
            }
        }
    }
    /* (row, slot) pairs per subsystem */
    for (int r = 0; r < m; ++r) {
        int c = a->rblock[r];
        for (int k = 0; k < a->bns[c]; ++k) a->groff[a->bsub[c * MAXS + k] + 1]++;
    }
    for (int g = 0; g < G; ++g) a->groff[g + 1] += a->groff[g];
    a->grow = loam_malloc(sizeof(int) * (size_t)(a->groff[G] + 1));
    if (!a->grow) {
        loam_free(pos);
        return 0;
    }
    memcpy(pos, a->groff, sizeof(int) * (size_t)G);
    for (int r = 0; r < m; ++r) {
        int c = a->rblock[r];
        for (int k = 0; k < a->bns[c]; ++k) a->grow[pos[a->bsub[c * MAXS + k]]++] = r * MAXS + k;
    }
    loam_free(pos);
    for (int g = 0; g < G; ++g) {
        size_t ns = (size_t)(a->goff[g + 1] - a->goff[g]);
        a->moff[g + 1] = a->moff[g] + ns * ns;
    }
    a->M = loam_malloc(sizeof(double) * (a->moff[G] + 1));
    return a->M != NULL;
}

/* beta_s and the factor of A_s + beta_s J_s^T J_s; returns 0 if a factorization fails. */
static int factor(const cp_problem* p, admm* a) {
    int n = p->n;
    for (int g = 0; g < a->G; ++g) {
        int o = a->goff[g], ns = a->goff[g + 1] - o;
        double* M = a->M + a->moff[g];
        double trA = 0.0, jj = 0.0;
        for (int r = 0; r < ns; ++r) {
            for (int c = 0; c < ns; ++c) M[r * ns + c] = p->A[(size_t)a->gdof[o + r] * (size_t)n + (size_t)a->gdof[o + c]];
            trA += M[r * ns + r];
        }
        for (int k = a->groff[g]; k < a->groff[g + 1]; ++k) {
            const double* j = p->J + (size_t)(a->grow[k] / MAXS) * (size_t)n;
            for (int r = 0; r < ns; ++r) jj += j[a->gdof[o + r]] * j[a->gdof[o + r]];
        }
        a->beta[g] = jj > 0.0 ? trA / jj : 1.0; /* the paper's balance of dynamics and constraint terms */
        for (int k = a->groff[g]; k < a->groff[g + 1]; ++k) {
            const double* j = p->J + (size_t)(a->grow[k] / MAXS) * (size_t)n;
            for (int r = 0; r < ns; ++r) {
                double jr = j[a->gdof[o + r]];
                if (jr == 0.0) continue;
                for (int c = 0; c < ns; ++c) M[r * ns + c] += a->beta[g] * jr * j[a->gdof[o + c]];
            }
        }
        if (dense_cholesky(M, ns) >= 0) return 0;
    }
    return 1;
}

static void project(const cp_problem* p, const cp_block* k, const double* r, double* l) {
    if (k->kind == CP_EQUALITY) {
        l[0] = r[0];
    } else if (k->kind == CP_UNILATERAL) {
        l[0] = fmax(0.0, r[0]);
    } else {
        l[0] = fmax(0.0, r[0]);
        double t = sqrt(r[1] * r[1] + r[2] * r[2]), cap = k->mu * l[0];
        double s = t > cap ? cap / t : 1.0;
        l[1] = r[1] * s, l[2] = r[2] * s;
    }
    (void)p;
}

cp_result cp_solve_admm(cp_problem* p, int iterations, double tolerance, int whole_system) {
    cp_result res = {0, 0.0};
    int n = p->n, m = p->m;
    admm a;
    if (!setup(p, &a, whole_system) || !factor(p, &a)) {
        release(&a);
        res.iterations = -1; /* the caller reports it */
        return res;
    }
    dense_matvec(p->A, n, n, p->v, a.b);
    /* start: u = -lambda (warm start), z = J v_free */
    for (int r = 0; r < m; ++r) {
        a.u[r] = -p->lambda[r];
        int c = a.rblock[r];
        for (int k = 0; k < a.bns[c]; ++k) a.z[r * MAXS + k] = a.x[r * MAXS + k] = row_dot(p, &a, r, a.bsub[c * MAXS + k], p->v);
    }
    for (int it = 0; it < iterations; ++it) {
        /* (15): one reduced solve per subsystem (independent: parallel later) */
        for (int g = 0; g < a.G; ++g) {
            int o = a.goff[g], ns = a.goff[g + 1] - o;
            if (a.groff[g + 1] == a.groff[g]) continue; /* untouched: keeps v_free */
            double* rhs = a.rhs;
            for (int i = 0; i < ns; ++i) rhs[i] = a.b[a.gdof[o + i]];
            for (int k = a.groff[g]; k < a.groff[g + 1]; ++k) {
                int r = a.grow[k] / MAXS, sl = a.grow[k] % MAXS;
                double coef = a.beta[g] * a.z[r * MAXS + sl] - a.u[r];
                const double* j = p->J + (size_t)r * (size_t)n;
                for (int i = 0; i < ns; ++i) rhs[i] += j[a.gdof[o + i]] * coef;
            }
            dense_cholesky_solve(a.M + a.moff[g], ns, rhs);
            for (int i = 0; i < ns; ++i) p->v[a.gdof[o + i]] = rhs[i];
            for (int k = a.groff[g]; k < a.groff[g + 1]; ++k) {
                int r = a.grow[k] / MAXS, sl = a.grow[k] % MAXS;
                a.x[r * MAXS + sl] = row_dot(p, &a, r, g, p->v);
            }
        }
        /* (16)-(21): closed-form projection per block (independent: parallel later) */
        double change = 0.0;
        for (int c = 0; c < p->nblock; ++c) {
            const cp_block* k = &p->block[c];
            int r0 = k->row, nr = k->kind == CP_CONTACT ? 3 : 1, ns = a.bns[c];
            if (ns == 0) continue;
            double W = 0.0, rv[3], l[3];
            for (int s = 0; s < ns; ++s) W += 1.0 / a.beta[a.bsub[c * MAXS + s]];
            for (int q = 0; q < nr; ++q) {
                int r = r0 + q;
                double wt = p->e[r];
                for (int s = 0; s < ns; ++s) {
                    double y = a.x[r * MAXS + s] + a.u[r] / a.beta[a.bsub[c * MAXS + s]];
                    a.yprev[r * MAXS + s] = a.y[r * MAXS + s];
                    a.y[r * MAXS + s] = y;
                    if (it > 0) change = fmax(change, fabs(y - a.yprev[r * MAXS + s]));
                    wt += y;
                }
                rv[q] = -wt / W;
            }
            project(p, k, rv, l);
            for (int q = 0; q < nr; ++q) {
                int r = r0 + q;
                for (int s = 0; s < ns; ++s) a.z[r * MAXS + s] = a.y[r * MAXS + s] + l[q] / a.beta[a.bsub[c * MAXS + s]];
                a.u[r] = -l[q];
                p->lambda[r] = l[q];
            }
        }
        res.iterations = it + 1;
        if (it > 0 && change <= tolerance) break;
    }
    release(&a);
    res.error = cp_error(p);
    return res;
}
