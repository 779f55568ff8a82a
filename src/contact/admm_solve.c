/* SubADMM's reduced solves (15), one per subsystem (admm_work.h): a 6-unknown subsystem from its
 * premultiplied products, another small one from its explicit inverse, a large one (a cable, an
 * FEM piece) through its banded factor, one with a lumped or matrix-free group in the Woodbury form. */
#include <stddef.h>
#include <string.h>

#include "core/dense.h"
#include "contact/admm_work.h"

/* (15) for a small subsystem of ns unknowns: rhs = b + Jp^T coef, v = M^-1 rhs, x = Jp v, with
 * M^-1 stored by columns. */
static void small_solve(cp_admm_work* a, int s, int ns, double* v) {
    int q0 = a->sub_slot_start[s], nq = a->sub_slot_start[s + 1] - q0;
    const double *Jp = a->Jp + a->joff[s], *Mi = a->M + a->moff[s], *b = a->b + a->soff[s];
    const double* cs = a->cs + q0;
    double* xs = a->xs + q0;
    double rhs[CP_ADMM_SMALL];
    for (int i = 0; i < ns; ++i) rhs[i] = b[i];
    for (int q = 0; q < nq; ++q)
        for (int i = 0; i < ns; ++i) rhs[i] += Jp[(size_t)q * (size_t)ns + (size_t)i] * cs[q];
    for (int i = 0; i < ns; ++i) {
        double t = 0.0;
        for (int j = 0; j < ns; ++j) t += Mi[j * ns + i] * rhs[j];
        v[i] = t;
    }
    for (int q = 0; q < nq; ++q) {
        double t = 0.0;
        for (int i = 0; i < ns; ++i) t += Jp[(size_t)q * (size_t)ns + (size_t)i] * v[i];
        xs[q] = t;
    }
}

/* small_solve for 6 unknowns (a free rigid body: every sphere of the sphere scenes) from
 * premultiply6's products: v = v0 + sum Q_q coef_q two lanes at a time, then x over pairs of slots
 * from Jp's columns (Jt). By rows the last product was a chain of dependent scalar additions per
 * slot, a quarter of a sphere-bed iteration's instructions. */
static void small_solve6(cp_admm_work* a, int s, double* v) {
    int q0 = a->sub_slot_start[s], nq = a->sub_slot_start[s + 1] - q0;
    const double *Q = a->Q + a->joff[s], *Jt = a->Jt + a->joff[s], *v0 = a->v0 + a->soff[s];
    const double* cs = a->cs + q0;
    double* xs = a->xs + q0;
    v2d r0 = ld2(v0), r1 = ld2(v0 + 2), r2 = ld2(v0 + 4);
    for (int q = 0; q < nq; ++q) {
        const double* row = Q + (size_t)q * 6;
        v2d c = {cs[q], cs[q]};
        r0 += ld2(row) * c, r1 += ld2(row + 2) * c, r2 += ld2(row + 4) * c;
    }
    st2(v, r0), st2(v + 2, r1), st2(v + 4, r2);
    v2d vs[6];
    for (int i = 0; i < 6; ++i) vs[i] = (v2d){v[i], v[i]};
    int q = 0;
    for (; q + 1 < nq; q += 2) {
        v2d t = {0.0, 0.0};
        for (int i = 0; i < 6; ++i) t += ld2(Jt + (size_t)i * (size_t)nq + (size_t)q) * vs[i];
        st2(xs + q, t);
    }
    if (q < nq) {
        double t = 0.0;
        for (int i = 0; i < 6; ++i) t += Jt[(size_t)i * (size_t)nq + (size_t)q] * v[i];
        xs[q] = t;
    }
}

static void large_solve(const cp_problem* p, cp_admm_work* a, int s) {
    int ns = a->sn[s], so = a->soff[s];
    double* rhs = a->rhs + so; /* disjoint per subsystem */
    memcpy(rhs, a->b + so, sizeof(double) * (size_t)ns);
    for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
        int sl = a->sub_slot[q];
        double coef = a->cs[q];
        for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
            const cp_group* g = &p->group[p->seg[k].group];
            const double* j = p->J + p->seg[k].val;
            for (int i = p->seg[k].lo; i < p->seg[k].hi; ++i) rhs[g->off - so + i] += j[i] * coef;
        }
    }
    dense_cholesky_band_solve(a->M + a->moff[s], ns, a->bw[s], a->bw[s] + 1, rhs);
    memcpy(p->v + so, rhs, sizeof(double) * (size_t)ns);
    for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) a->xs[q] = cp_admm_slot_dot(p, a, a->sub_slot[q], p->v);
}

/* (15) for a subsystem in the Woodbury form (admm.c, wood_factor): g = B^-1 c - J v_f, y = S^-1 g,
 * x = B^-1 (c - y), with B the slots' penalties; O(nq^2), no unknown touched (the velocities come
 * once, at the end: cp_admm_wood_velocities). */
static void wood_solve(const cp_problem* p, cp_admm_work* a, int s) {
    int q0 = a->sub_slot_start[s], nq = a->sub_slot_start[s + 1] - q0;
    double* y = a->wy + q0;
    for (int q = 0; q < nq; ++q) {
        int sl = a->sub_slot[q0 + q];
        y[q] = a->ib[sl] * a->cs[q0 + q] - cp_admm_slot_dot(p, a, sl, a->vf);
    }
    dense_cholesky_solve(a->M + a->moff[s], nq, y);
    for (int q = 0; q < nq; ++q) a->xs[q0 + q] = a->ib[a->sub_slot[q0 + q]] * (a->cs[q0 + q] - y[q]);
}

void cp_admm_wood_velocities(cp_problem* p, cp_admm_work* a, int S) {
    for (int s = 0; s < S; ++s) {
        if (a->skind[s] != CP_SUB_WOOD || a->sub_slot_start[s + 1] == a->sub_slot_start[s]) continue;
        int so = a->soff[s];
        memcpy(p->v + so, a->vf + so, sizeof(double) * (size_t)a->sn[s]); /* v = v_f + A^-1 J^T y */
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
            int sl = a->sub_slot[q];
            for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
                const cp_group* g = &p->group[p->seg[k].group];
                const double* aj = p->AJ + p->seg[k].val;
                for (int i = 0; i < g->n; ++i) p->v[g->off + i] += aj[i] * a->wy[q];
            }
        }
    }
}

static inline void solve_one(cp_problem* p, cp_admm_work* a, int s) {
    if (a->sub_slot_start[s + 1] == a->sub_slot_start[s]) return; /* untouched: keeps v_free */
    int kind = a->skind[s]; /* (a chain, in the order of how common: one compare for a free body) */
    if (kind == CP_SUB_SIX) small_solve6(a, s, p->v + a->soff[s]);
    else if (kind == CP_SUB_SMALL) small_solve(a, s, a->sn[s], p->v + a->soff[s]);
    else if (kind == CP_SUB_BAND) large_solve(p, a, s);
    else wood_solve(p, a, s);
}

void cp_admm_solve_all(cp_problem* p, cp_admm_work* a, int S) {
    /* each subsystem writes only its own unknowns and slots */
#pragma omp for schedule(static)
    for (int s = 0; s < S; ++s) solve_one(p, a, s);
}
