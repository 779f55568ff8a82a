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
 * their impulse is -(J v + e) / c at the end.
 *
 * Cost per iteration, which is what decides the race against Gauss-Seidel: a small subsystem (a
 * sphere, a short arm: at most SMALL unknowns) keeps the explicit inverse of its matrix and its slots'
 * J rows packed densely, so (15) is short dense products instead of segment walks and two
 * triangular solves (a free rigid body's, 6 unknowns, from M^-1 b and M^-1 J^T made once per
 * factorization); a large one (a cable) keeps the banded factor; one holding a lumped (DIAGONAL) or
 * MATRIX_FREE group is solved in the Woodbury form, from A^-1 J^T only (wood_factor). The kernels are in admm_solve.c
 * and admm_project.c (layout: admm_work.h); a sphere bed's iteration cost 1.4-2x a Gauss-Seidel
 * sweep before they were restructured, about one sweep after (docs/benchmarks-history.md).
 *
 * The penalty: beta_s = scale tr(A_s) / |J_s|_F^2 (the paper's balance, a reconstruction; its form
 * for subsystems holding an FEM piece is at balance() below). A small subsystem (at most SMALL
 * unknowns) gives each of its contact and unilateral constraints a penalty of its own instead,
 * beta_cs = penalty_rigid / d_cs with d_cs = J_cs A_s^-1 J_cs^T (slot_share): ADMM with a diagonal
 * penalty matrix, the penalty scaled by each constraint's compliance in the subsystem (Jacobi
 * scaling, as in Giselsson and Boyd's diagonal preconditioning of ADMM), where the trace rule
 * gives every constraint of a sphere the same m / (number of contacts) and every constraint of an
 * arm a joint-space average. (15) and (18) are unchanged with per-slot weights (W_r = sum 1/beta_rs
 * per row; a contact's two tangent rows share one, so the exact Coulomb projection stays exact: with
 * W = diag(W_n, W_t, W_t) the normal still decouples and the tangent pair is still isotropic). All
 * penalties are multiplied by a
 * per-subsystem factor that residual balancing (Boyd et al. 2011, section 3.4.1) adapts when asked:
 * every ADAPT_EVERY iterations, a subsystem whose primal residual |x_s - z_s| exceeds MU times its
 * dual residual grows beta_s by TAU, and the other way round; the dual residual beta_s J_s^T dz is
 * taken in velocity units as (beta_s / beta0_s) |dz| (J A^-1 J^T is about 1/beta0_s by the balance
 * above). Adaptation stops after ADAPT_UNTIL iterations: ADMM with a penalty that keeps changing
 * need not converge (with alpha = 1.8 over-relaxation it was seen to cycle above 1e-4 on the sphere
 * bed), one that is fixed after finitely many changes does (Boyd et al. 3.4.1). The factors persist in the
 * workspace, so the next step starts where this one ended, and stay within 1/16 to 16: with 1e-3 to
 * 1e3 they drifted over hundreds of steps of the 400-segment draping cable until its 50-iteration
 * solves injected energy and threw the cable off the floor (the range 16 was also faster there).
 *
 * Over-relaxation (Boyd et al. 2011, section 3.4.3): the projection sees x^ = alpha x + (1 - alpha) z
 * instead of x, so y = x^ + u / beta; the collapse u = -lambda still holds (the z-step's optimality
 * gives beta (y - z) = -lambda = u + beta (x^ - z)). alpha in (1, 2) extrapolates along the last
 * step; alpha = 1 is the paper's iteration. It is applied to contact and unilateral blocks only:
 * on the hard equalities of a stiff cable a relaxed, unconverged budget of 30 iterations injects
 * energy until the Cosserat cantilever of test_mb_cable diverges (alpha 1.5 already), while on
 * contacts it cuts the iterations to a given error by 30-40% (docs/benchmarks-history.md). 1.5 was the default
 * (below the best average, 1.8, because 1.6 and above left a hard step of the sphere bed short of
 * 1e-4 after thousands of iterations, where 1.5 needed about 60) until the two-robot cable scene's
 * pinned grips diverged with it; the default is now 1 (loam/multibody.h) for contacts that touch a
 * large subsystem (a cable, an FEM piece, a mobile manipulator: cable_manip's contacts are all of
 * that kind) and relaxation_rigid, 1.5, for contacts and limits among small subsystems (free rigid
 * bodies, short arms), where it cuts the iterations of the piles by 15-45% (docs/benchmarks-history.md, session
 * 9). The paper itself
 * proposes no acceleration (it leaves second-order schemes to future work); admm_accel.c adds
 * Nesterov's and Anderson's on the state (z, u); by default Anderson's on steps with an FEM piece
 * only (accel_kind below: neither wins on every scene). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/dense.h"
#include "core/threads.h"
#include "loam/core.h"
#include "contact/admm_work.h"

enum { SMALL = CP_ADMM_SMALL, ADAPT_EVERY = 5, ADAPT_UNTIL = 200 };
static const double MU = 10.0, TAU = 2.0, RATIO_MIN = 1.0 / 16.0, RATIO_MAX = 16.0;

void cp_admm_work_free(cp_admm_work* w) {
    if (!w) return;
    void* ptrs[] = {w->folded, w->soff, w->sn, w->gstart, w->slot_start, w->slot_sub, w->slot_sb, w->slot_se, w->slot_row, w->sub_slot,
                    w->sub_slot_start, w->sub_fold, w->sub_fold_start, w->bw, w->pos, w->beta, w->beta0, w->ratio, w->M, w->moff,
                    w->joff, w->Jp, w->Jt, w->Q, w->v0, w->z, w->y, w->zprev, w->ib, w->bsl, w->spos, w->blist, w->ab, w->xs, w->cs, w->W, w->rc, w->b, w->rhs, w->segd, w->sw, w->tmax, w->skind, w->wy, w->vf};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) loam_free(ptrs[k]);
    cp_accel_free(&w->acc);
    loam_free(w);
}

static int grow(void** buf, size_t* cap, size_t n, size_t elem, int keep);

int cp_admm_work_copy_penalty(cp_admm_work** dst, const cp_admm_work* src) {
    if (!src || src->nratio == 0) { /* nothing adapted yet: the copy starts from the balance too */
        if (*dst) (*dst)->nratio = 0;
        return 1;
    }
    if (!*dst && !(*dst = loam_calloc(1, sizeof **dst))) return 0;
    if (!grow((void**)&(*dst)->ratio, &(*dst)->cap[27], (size_t)src->nratio + 1, sizeof(double), 0)) return 0;
    memcpy((*dst)->ratio, src->ratio, sizeof(double) * (size_t)src->nratio);
    (*dst)->nratio = src->nratio;
    return 1;
}

/* Make *buf hold n elements (contents kept only for `ratio`, which is grown with keep = 1). */
static int grow(void** buf, size_t* cap, size_t n, size_t elem, int keep) {
    if (n <= *cap && *buf) return 1;
    size_t c = n > 2 * *cap ? n : 2 * *cap;
    void* nb = loam_malloc(elem * c);
    if (!nb) return 0;
    if (keep && *buf) memcpy(nb, *buf, elem * *cap);
    loam_free(*buf);
    *buf = nb, *cap = c;
    return 1;
}

#define GROW(field, n, slot) grow((void**)&a->field, &a->cap[slot], (size_t)(n) + 1, sizeof *a->field, 0)

static int sub_bandwidth(const cp_problem* p, const cp_admm_work* a, int s);

static int setup(const cp_problem* p, cp_admm_work* a, const int* sub_of_group, int S, int fold) {
    int m = p->m, nslot = p->row_seg[m], n = p->n;
    if (!GROW(folded, m, 0) || !GROW(soff, S, 1) || !GROW(sn, S, 2) || !GROW(gstart, S, 3) || !GROW(slot_start, m, 4) ||
        !GROW(slot_sub, nslot, 5) || !GROW(slot_sb, nslot, 6) || !GROW(slot_se, nslot, 7) || !GROW(slot_row, nslot, 8) ||
        !GROW(sub_slot, nslot, 9) || !GROW(sub_slot_start, S, 10) || !GROW(sub_fold, nslot, 11) || !GROW(sub_fold_start, S, 12) ||
        !GROW(bw, S, 13) || !GROW(pos, S, 14) || !GROW(beta, S, 15) || !GROW(beta0, S, 16) || !GROW(moff, S, 17) || !GROW(joff, S, 18) ||
        !GROW(xs, nslot, 19) || !GROW(cs, nslot, 23) || !GROW(spos, nslot, 32) || !GROW(blist, p->nblock, 35) || !GROW(ab, p->nblock, 40) || !GROW(bsl, nslot, 33) || !GROW(z, nslot + m, 20) || !GROW(y, nslot, 21) || !GROW(zprev, nslot, 22) || !GROW(ib, nslot, 31) ||
        !GROW(W, m, 24) || !GROW(b, n, 25) || !GROW(rhs, n, 26) || !GROW(v0, n, 37) || !GROW(rc, m, 30) || !GROW(segd, p->row_seg[m], 39) || !GROW(sw, nslot, 38) || !GROW(tmax, a->team, 41) ||
        !GROW(skind, S, 44) || !GROW(wy, nslot, 45) || !GROW(vf, n, 46))
        return 0;
    a->u = a->z + nslot;
    if (!grow((void**)&a->ratio, &a->cap[27], (size_t)S + 1, sizeof(double), 1)) return 0;
    if (a->nratio != S) { /* a different set of subsystems: the adapted factors do not carry over */
        for (int s = 0; s < S; ++s) a->ratio[s] = 1.0;
        a->nratio = S;
    }
    memset(a->folded, 0, (size_t)m + 1);
    memset(a->sn, 0, sizeof(int) * ((size_t)S + 1));
    /* subsystems: runs of consecutive groups (the caller numbers them so) */
    for (int s = 0; s < S; ++s) a->soff[s] = -1, a->gstart[s] = p->ngroup, a->skind[s] = CP_SUB_SIX; /* (the others: below) */
    for (int g = 0; g < p->ngroup; ++g) {
        int s = sub_of_group[g];
        if (a->soff[s] < 0) a->soff[s] = p->group[g].off, a->gstart[s] = g;
        if (p->group[g].off != a->soff[s] + a->sn[s]) return 0; /* not contiguous */
        a->sn[s] += p->group[g].n;
        if (p->group[g].storage >= CP_DIAGONAL) a->skind[s] = CP_SUB_WOOD; /* DIAGONAL, MATRIX_FREE: the Woodbury form */
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
    for (int c = 0; c < p->nblock; ++c) a->rc[p->block[c].row] = p->block[c].compliance;
    for (int c = 0; c < p->nblock && fold; ++c) {
        const cp_block* k = &p->block[c];
        int r = k->row;
        if (k->kind == CP_EQUALITY && k->compliance > 0.0 && a->slot_start[r + 1] - a->slot_start[r] == 1 && a->skind[a->slot_sub[a->slot_start[r]]] != CP_SUB_WOOD)
            a->folded[r] = 1; /* (not into a Woodbury subsystem: it has no A_s to fold into) */
    }
    /* bucket the slots by subsystem: active ones and folded ones (two counting sorts) */
    for (int pass = 0; pass < 2; ++pass) {
        int *start = pass ? a->sub_fold_start : a->sub_slot_start, *list = pass ? a->sub_fold : a->sub_slot;
        memset(start, 0, sizeof(int) * ((size_t)S + 1));
        for (int k = 0; k < sl; ++k)
            if (a->folded[a->slot_row[k]] == pass) start[a->slot_sub[k] + 1]++;
        for (int s = 0; s < S; ++s) start[s + 1] += start[s];
        memcpy(a->pos, start, sizeof(int) * (size_t)S);
        for (int k = 0; k < sl; ++k)
            if (a->folded[a->slot_row[k]] == pass) list[a->pos[a->slot_sub[k]]++] = k;
    }
    for (int k = 0; k < sl; ++k) a->spos[k] = -1;
    for (int q = 0; q < a->sub_slot_start[S]; ++q) a->spos[a->sub_slot[q]] = q;
    a->moff[0] = a->joff[0] = 0;
    a->nwood = 0;
    for (int s = 0; s < S; ++s) { /* a large subsystem's matrix: its lower band (core/dense.h) */
        if (a->skind[s] == CP_SUB_WOOD) { /* S_s, nq x nq over its active slots */
            size_t nq = (size_t)(a->sub_slot_start[s + 1] - a->sub_slot_start[s]);
            a->bw[s] = 0, a->moff[s + 1] = a->moff[s] + nq * nq, a->joff[s + 1] = a->joff[s], ++a->nwood;
            continue;
        }
        a->skind[s] = a->sn[s] > SMALL ? CP_SUB_BAND : a->sn[s] == 6 ? CP_SUB_SIX : CP_SUB_SMALL;
        a->bw[s] = a->sn[s] > SMALL ? sub_bandwidth(p, a, s) : a->sn[s] - 1;
        a->moff[s + 1] = a->moff[s] + (size_t)a->sn[s] * (size_t)(a->sn[s] > SMALL ? a->bw[s] + 1 : a->sn[s]);
        size_t packed = a->sn[s] <= SMALL ? (size_t)(a->sub_slot_start[s + 1] - a->sub_slot_start[s]) * (size_t)a->sn[s] : 0;
        a->joff[s + 1] = a->joff[s] + packed;
    }
    if (!GROW(M, a->moff[S], 28) || !GROW(Jp, a->joff[S], 29) || !GROW(Jt, a->joff[S], 34) || !GROW(Q, a->joff[S], 36)) return 0;
    /* small subsystems: their active slots' rows, dense over the subsystem's unknowns */
    for (int s = 0; s < S; ++s) {
        int ns = a->sn[s], so = a->soff[s];
        if (ns > SMALL || a->skind[s] == CP_SUB_WOOD) continue;
        double* Jp = a->Jp + a->joff[s];
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
            int sl2 = a->sub_slot[q];
            double* row = Jp + (size_t)(q - a->sub_slot_start[s]) * (size_t)ns;
            if (a->slot_se[sl2] - a->slot_sb[sl2] == 1 && p->group[p->seg[a->slot_sb[sl2]].group].n == ns) { /* one group: a copy */
                memcpy(row, p->J + p->seg[a->slot_sb[sl2]].val, sizeof(double) * (size_t)ns);
                continue;
            }
            memset(row, 0, sizeof(double) * (size_t)ns);
            for (int k = a->slot_sb[sl2]; k < a->slot_se[sl2]; ++k) {
                const cp_group* g = &p->group[p->seg[k].group];
                const double* j = p->J + p->seg[k].val;
                for (int i = p->seg[k].lo; i < p->seg[k].hi; ++i) row[g->off - so + i] += j[i];
            }
        }
        int nq = a->sub_slot_start[s + 1] - a->sub_slot_start[s];
        double* Jt = a->Jt + a->joff[s];
        for (int q = 0; q < nq; ++q)
            for (int i = 0; i < ns; ++i) Jt[(size_t)i * (size_t)nq + (size_t)q] = Jp[(size_t)q * (size_t)ns + (size_t)i];
    }
    return 1;
}

/* Row r of subsystem s's matrix M, so that its [c] is entry (r, c): a large subsystem keeps its lower
 * band (core/dense.h, ld = bw + 1), a small one all of it. */
static inline const double* sub_row_c(const cp_admm_work* a, int s, const double* M, int r) {
    int ns = a->sn[s];
    return ns > SMALL ? dense_band_row_c(M, a->bw[s], a->bw[s] + 1, r) : M + (size_t)r * (size_t)ns;
}
static inline double* sub_row(const cp_admm_work* a, int s, double* M, int r) { return (double*)sub_row_c(a, s, M, r); }

/* M += scale J_slot^T J_slot over subsystem s's unknowns; with `lower`, on and below the diagonal
 * only (a large subsystem: all its banded factorization reads, and all its storage holds). */
static void add_outer(const cp_problem* p, const cp_admm_work* a, int sl, int s, double scale, double* M, int lower) {
    int so = a->soff[s];
    for (int k1 = a->slot_sb[sl]; k1 < a->slot_se[sl]; ++k1)
        for (int k2 = a->slot_sb[sl]; k2 < a->slot_se[sl]; ++k2) {
            const cp_group *g1 = &p->group[p->seg[k1].group], *g2 = &p->group[p->seg[k2].group];
            const double *j1 = p->J + p->seg[k1].val, *j2 = p->J + p->seg[k2].val;
            if (lower && g2->off > g1->off) continue;
            int c0 = p->seg[k2].lo, hi2 = p->seg[k2].hi; /* each row's nonzeros only */
            for (int r = p->seg[k1].lo; r < p->seg[k1].hi; ++r) {
                if (j1[r] == 0.0) continue;
                double* Mr = sub_row(a, s, M, g1->off - so + r) + (g2->off - so);
                int c1 = lower && g2->off == g1->off && r + 1 < hi2 ? r + 1 : hi2;
                for (int c = c0; c < c1; ++c) Mr[c] += scale * j1[r] * j2[c];
            }
        }
}

/* The half bandwidth of a large subsystem's matrix, from its parts: each group's band (a dense
 * group: all of it) and each slot's extent, first to last nonzero over the subsystem's unknowns
 * (its J^T J fills that square). What dense_bandwidth finds on the assembled matrix, without
 * assembling and scanning all n^2 entries (with the memset and copy, 15% of SubADMM's time on
 * the 2-piece insertion scene). */
static int sub_bandwidth(const cp_problem* p, const cp_admm_work* a, int s) {
    int ns = a->sn[s], so = a->soff[s], bw = 0;
    for (int g = a->gstart[s]; g < p->ngroup && p->group[g].off < so + ns; ++g) {
        int b = p->group[g].bw > 0 ? p->group[g].bw : p->group[g].n - 1;
        bw = b > bw ? b : bw;
    }
    for (int pass = 0; pass < 2; ++pass) {
        const int *start = pass ? a->sub_fold_start : a->sub_slot_start, *list = pass ? a->sub_fold : a->sub_slot;
        for (int q = start[s]; q < start[s + 1]; ++q) {
            int sl = list[q], lo = ns, hi = -1;
            for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
                const cp_seg* sg = &p->seg[k];
                if (sg->hi <= sg->lo) continue; /* all zeros */
                int off = p->group[sg->group].off - so;
                lo = off + sg->lo < lo ? off + sg->lo : lo, hi = off + sg->hi - 1 > hi ? off + sg->hi - 1 : hi;
            }
            bw = hi - lo > bw ? hi - lo : bw;
        }
    }
    return bw;
}

/* The paper's balance tr(A_s) / |J_s|_F^2, and its form for subsystems with elastic stiffness. For
 * A_s = a I and at least n_s independent rows the balance equals n_s / tr(D_s), D_s = J_s A_s^-1
 * J_s^T: the inverse of D_s's mean nonzero eigenvalue, the compliance the subsystem shows its rows on
 * average. An FEM piece's matrix M + h^2 K (a banded group) is far from isotropic: its trace is
 * h^2 tr K, hundreds of times its mass, while a glue row moves the whole piece and sees about its
 * mass; the trace rule gave a penalty ~100x too high and SubADMM diverged on the insertion scene. For
 * a subsystem holding such a group the groups' share is therefore rank / tr(D_s), with the exact
 * diagonal of D_s from cp_prepare_diag (the groups' own factors) and rank = min(n_s, rows_s) (a piece
 * of 135 unknowns is held by 27-54 glue rows). Rigid trees keep the paper's trace rule: the Delassus
 * form was measured on them too and needed up to 1.4x more iterations (docs/benchmarks-history.md). Folded soft
 * rows (a cable's springs) are not in the groups' matrices: they keep their trace share
 * tr(J_f^T J_f / c) / |J_s|_F^2 either way. */
/* Over subsystem s's rows: ||J_s||_F^2 (jj) and the sum of the segments' shares of J A^-1 J^T (jaj,
 * from segd): the two penalty rules' denominators. */
static void sub_row_norms(const cp_problem* p, const cp_admm_work* a, int s, double* jj, double* jaj) {
    for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
        int sl = a->sub_slot[q];
        for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
            const double* j = p->J + p->seg[k].val;
            for (int i = p->seg[k].lo; i < p->seg[k].hi; ++i) *jj += j[i] * j[i];
            *jaj += a->segd[k];
        }
    }
}

static double balance(const cp_problem* p, const cp_admm_work* a, int s, const double* M) {
    int ns = a->sn[s], so = a->soff[s], elastic = 0;
    double trA = 0.0, trG = 0.0, jj = 0.0, jaj = 0.0;
    for (int i = 0; i < ns; ++i) trA += sub_row_c(a, s, M, i)[i];
    for (int g = a->gstart[s]; g < p->ngroup && p->group[g].off < so + ns; ++g) {
        const cp_group* G = &p->group[g];
        elastic |= G->bw > 0;
        for (int i = 0; i < G->n; ++i) trG += cp_group_row(G, G->A, i)[i];
    }
    sub_row_norms(p, a, s, &jj, &jaj);
    if (jj <= 0.0) return 1.0;
    if (!elastic || jaj <= 0.0) return trA / jj;
    int rows = a->sub_slot_start[s + 1] - a->sub_slot_start[s], rank = rows < ns ? rows : ns;
    return (double)rank / jaj + (trA - trG) / jj; /* (trA - trG): the folded rows' trace */
}

/* x = M^-1 x for two right-hand sides side by side (the lanes), from M's Cholesky factor l (6 x 6,
 * by rows) and the reciprocals of its diagonal: a forward and a backward substitution, unrolled
 * (the bounds are constants then). */
static inline void solve6_lanes(const double* l, const double* inv, v2d* x) {
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) {
        v2d t = x[i];
#pragma GCC unroll 6
        for (int k = 0; k < i; ++k) t -= (v2d){l[i * 6 + k], l[i * 6 + k]} * x[k];
        x[i] = t * (v2d){inv[i], inv[i]};
    }
#pragma GCC unroll 6
    for (int i = 5; i >= 0; --i) {
        x[i] *= (v2d){inv[i], inv[i]};
#pragma GCC unroll 6
        for (int k = 0; k < i; ++k) x[k] -= (v2d){l[i * 6 + k], l[i * 6 + k]} * x[i];
    }
}

/* A 6-unknown subsystem's (15) as v = M^-1 b + sum over its slots of (M^-1 Jp^T)_q coef_q: both
 * products are constant within a step (until residual balancing changes beta), so they are made
 * here, once, from M's Cholesky factor l, two slots at a time, and small_solve6 skips the 6 x 6
 * product per iteration. (An explicit inverse first, then M^-1 Jp^T by products, cost 1.4x the
 * instructions: a tenth of SubADMM's on the 100-sphere stirring scene.) */
static void premultiply6(cp_admm_work* a, int s, const double* l) {
    const double *b = a->b + a->soff[s], *Jp = a->Jp + a->joff[s];
    double *v0 = a->v0 + a->soff[s], *Q = a->Q + a->joff[s], inv[6];
    int nq = a->sub_slot_start[s + 1] - a->sub_slot_start[s], q = 0;
    for (int i = 0; i < 6; ++i) inv[i] = 1.0 / l[i * 6 + i];
    v2d x[6];
    for (; q + 1 < nq; q += 2) {
        const double *j0 = Jp + q * 6, *j1 = j0 + 6;
        for (int i = 0; i < 6; ++i) x[i] = (v2d){j0[i], j1[i]};
        solve6_lanes(l, inv, x);
        for (int i = 0; i < 6; ++i) Q[q * 6 + i] = x[i][0], Q[q * 6 + 6 + i] = x[i][1];
    }
    int odd = q < nq; /* b in the first lane, the odd slot left (if any) in the second */
    for (int i = 0; i < 6; ++i) x[i] = (v2d){b[i], odd ? Jp[q * 6 + i] : 0.0};
    solve6_lanes(l, inv, x);
    for (int i = 0; i < 6; ++i) v0[i] = x[i][0];
    if (odd)
        for (int i = 0; i < 6; ++i) Q[q * 6 + i] = x[i][1];
}

/* The balance of a Woodbury subsystem (wood_factor), as balance() would find it on the assembled
 * A_s: the trace rule when every group's diagonal is at hand (dense and lumped groups: the same beta
 * as the same masses stored densely), the Delassus form rank / tr(D_s) when a group is an FEM piece
 * or matrix-free (A_s unknown; for A_s = a I with rows_s >= n_s the two agree). */
static double wood_balance(const cp_problem* p, const cp_admm_work* a, int s) {
    int ns = a->sn[s], so = a->soff[s], traced = 1;
    double trA = 0.0, jj = 0.0, jaj = 0.0;
    for (int g = a->gstart[s]; g < p->ngroup && p->group[g].off < so + ns; ++g) {
        const cp_group* G = &p->group[g];
        traced &= G->storage == CP_DENSE || G->storage == CP_DIAGONAL;
        for (int i = 0; i < G->n && traced; ++i) trA += G->storage == CP_DIAGONAL ? G->A[i] : cp_group_row(G, G->A, i)[i];
    }
    sub_row_norms(p, a, s, &jj, &jaj);
    if (jj <= 0.0) return 1.0;
    if (traced || jaj <= 0.0) return trA > 0.0 ? trA / jj : 1.0;
    int rows = a->sub_slot_start[s + 1] - a->sub_slot_start[s], rank = rows < ns ? rows : ns;
    return (double)rank / jaj;
}

/* A subsystem holding a lumped (DIAGONAL) or MATRIX_FREE group. The latter's A_s is known only
 * through A_s^-1; the former's is diagonal, but A_s + beta J_s^T J_s fills to the band of the rows'
 * extents (an MPM grid's rows couple nodes far apart in the numbering) and is ns x ns however few
 * rows touch it. By the Woodbury identity
 *   (A + J^T B J)^-1 = A^-1 - A^-1 J^T S^-1 J A^-1,   S = B^-1 + J A^-1 J^T   (nq x nq),
 * B = diag of the slots' penalties, (15) with b = A v_f becomes
 *   v = v_f + A^-1 J^T y,   y = S^-1 (B^-1 c - J v_f),   x = J v = B^-1 (c - y)
 * (x from S y = B^-1 c - J v_f and J A^-1 J^T = S - B^-1): a Cholesky of S per factorization and
 * O(nq^2) per iteration whatever the number of unknowns, the velocities only at the end, and no
 * A_s needed, only A_s^-1 J_s^T, made once per solve into p->AJ (one group solve per segment: a
 * division per unknown lumped, a callback call matrix-free). Exact up to rounding like the dense
 * form: no inner iteration and no tolerance of its own. A subsystem with more rows than unknowns
 * pays nq^2 > ns^2; soft rows are not folded into these subsystems (setup): they stay in the
 * iteration. M: S's factor, nq x nq. Returns 0 if S is not SPD. */
static int wood_factor(const cp_problem* p, cp_admm_work* a, int s, double beta_scale, int set_beta) {
    int q0 = a->sub_slot_start[s], nq = a->sub_slot_start[s + 1] - q0;
    double* M = a->M + a->moff[s];
    if (nq == 0) return 1;
    if (set_beta) {
        for (int q = q0; q < q0 + nq; ++q) { /* A^-1 J^T per segment (AJ was cp_prepare_diag's scratch) */
            int sl = a->sub_slot[q];
            for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
                const cp_group* g = &p->group[p->seg[k].group];
                memcpy(p->AJ + p->seg[k].val, p->J + p->seg[k].val, sizeof(double) * (size_t)g->n);
                cp_group_solve(g, p->AJ + p->seg[k].val);
            }
        }
        a->beta0[s] = beta_scale * wood_balance(p, a, s);
        a->beta[s] = a->beta0[s] * a->ratio[s];
        for (int q = q0; q < q0 + nq; ++q) { /* slot_share's d_q, as factor_one */
            double* w = &a->sw[a->sub_slot[q]];
            *w = *w > 0.0 ? a->kappa / (*w * a->beta0[s]) : 1.0;
        }
    }
    for (int q = 0; q < nq; ++q) { /* lower triangle: J_q A^-1 J_r^T over the segments they share a group in */
        int s1 = a->sub_slot[q0 + q];
        for (int r = 0; r <= q; ++r) {
            int s2 = a->sub_slot[q0 + r];
            double d = 0.0;
            for (int k1 = a->slot_sb[s1]; k1 < a->slot_se[s1]; ++k1)
                for (int k2 = a->slot_sb[s2]; k2 < a->slot_se[s2]; ++k2) {
                    if (p->seg[k1].group != p->seg[k2].group) continue;
                    const double *j = p->J + p->seg[k1].val, *aj = p->AJ + p->seg[k2].val;
                    for (int i = p->seg[k1].lo; i < p->seg[k1].hi; ++i) d += j[i] * aj[i];
                }
            M[(size_t)q * (size_t)nq + (size_t)r] = d;
        }
        M[(size_t)q * (size_t)nq + (size_t)q] += 1.0 / (a->beta[s] * a->sw[s1]);
    }
    return dense_cholesky(M, nq) < 0;
}

/* Subsystem s's matrix A_s (+ folded rows) + beta_s J_s^T J_s, factorized (band) or inverted (small).
 * With set_beta, beta0 and beta come from the balance first. Returns 0 if it is not SPD. */
static int factor_one(const cp_problem* p, cp_admm_work* a, int s, double beta_scale, int set_beta) {
    if (a->skind[s] == CP_SUB_WOOD) return wood_factor(p, a, s, beta_scale, set_beta);
    int ns = a->sn[s], so = a->soff[s], large = ns > SMALL;
    double* M = a->M + a->moff[s];
    /* a large subsystem: only the lower band is assembled and stored (all the banded factorization
     * reads), its half bandwidth a->bw[s] from setup */
    memset(M, 0, sizeof(double) * (size_t)(a->moff[s + 1] - a->moff[s]));
    for (int g = a->gstart[s]; g < p->ngroup && p->group[g].off < so + ns; ++g) { /* its run of groups */
        const cp_group* G = &p->group[g];
        if (G->n == 0) continue;
        int gb = G->bw > 0 ? G->bw : G->n;
        for (int r = 0; r < G->n; ++r) {
            const double* Ar = cp_group_row(G, G->A, r);
            double* Mr = sub_row(a, s, M, G->off - so + r) + (G->off - so);
            for (int c = large ? (r - gb > 0 ? r - gb : 0) : 0; c < (large ? r + 1 : G->n); ++c) Mr[c] = Ar[c];
        }
    }
    for (int q = a->sub_fold_start[s]; q < a->sub_fold_start[s + 1]; ++q) { /* folded soft rows: A_s += J^T J / c */
        int sl = a->sub_fold[q];
        add_outer(p, a, sl, s, 1.0 / a->rc[a->slot_row[sl]], M, large);
    }
    if (set_beta) {
        a->beta0[s] = beta_scale * balance(p, a, s, M);
        a->beta[s] = a->beta0[s] * a->ratio[s];
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) { /* slot_share's d_q */
            double* w = &a->sw[a->sub_slot[q]];
            *w = *w > 0.0 ? a->kappa / (*w * a->beta0[s]) : 1.0;
        }
    }
    if (ns == 6) { /* a free body: whole rows of the symmetric update, two lanes at a time */
        const double* Jp = a->Jp + a->joff[s];
        for (int q = 0; q < a->sub_slot_start[s + 1] - a->sub_slot_start[s]; ++q) {
            const double* j = Jp + (size_t)q * 6;
            double bq = a->beta[s] * a->sw[a->sub_slot[a->sub_slot_start[s] + q]];
            v2d j0 = ld2(j), j1 = ld2(j + 2), j2 = ld2(j + 4);
            for (int r = 0; r < 6; ++r) {
                v2d bj = {bq * j[r], bq * j[r]};
                double* Mr = M + r * 6;
                st2(Mr, ld2(Mr) + bj * j0), st2(Mr + 2, ld2(Mr + 2) + bj * j1), st2(Mr + 4, ld2(Mr + 4) + bj * j2);
            }
        }
    } else if (ns <= SMALL) { /* from the packed rows, lower triangle only (all the factorization reads) */
        const double* Jp = a->Jp + a->joff[s];
        for (int q = 0; q < a->sub_slot_start[s + 1] - a->sub_slot_start[s]; ++q) {
            const double* j = Jp + (size_t)q * (size_t)ns;
            double bq = a->beta[s] * a->sw[a->sub_slot[a->sub_slot_start[s] + q]];
            for (int r = 0; r < ns; ++r) {
                if (j[r] == 0.0) continue;
                double bj = bq * j[r];
                for (int c = 0; c <= r; ++c) M[r * ns + c] += bj * j[c];
            }
        }
    } else
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) add_outer(p, a, a->sub_slot[q], s, a->beta[s] * a->sw[a->sub_slot[q]], M, 1);
    if (large) return dense_cholesky_band(M, ns, a->bw[s], a->bw[s] + 1) < 0;
    if (ns == 6) { /* a free body: its products from the factor, which M keeps */
        if (dense_cholesky(M, ns) >= 0) return 0;
        premultiply6(a, s, M);
        return 1;
    }
    /* small: the explicit inverse (columns of the identity through the factor) */
    double L[SMALL * SMALL], col[SMALL];
    memcpy(L, M, sizeof(double) * (size_t)ns * (size_t)ns);
    if (dense_cholesky(L, ns) >= 0) return 0;
    for (int c = 0; c < ns; ++c) {
        for (int i = 0; i < ns; ++i) col[i] = i == c;
        dense_cholesky_solve(L, ns, col);
        memcpy(M + (size_t)c * (size_t)ns, col, sizeof(double) * (size_t)ns); /* column-major (small_solve) */
    }
    return 1;
}

/* beta and 1 / beta on subsystem s's slots (active and folded). */
static void slot_weights(cp_admm_work* a, int s) {
    for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
        int sl = a->sub_slot[q];
        a->bsl[sl] = a->beta[s] * a->sw[sl], a->ib[sl] = 1.0 / a->bsl[sl];
    }
    for (int q = a->sub_fold_start[s]; q < a->sub_fold_start[s + 1]; ++q) a->bsl[a->sub_fold[q]] = a->beta[s], a->ib[a->sub_fold[q]] = 1.0 / a->beta[s];
}

/* W_r = sum over the row's slots of 1 / beta (from slot_weights): one value per row, since a
 * contact's normal and its tangent pair may weigh differently (slot_share). */
static void block_weights(const cp_problem* p, cp_admm_work* a) {
    for (int r = 0; r < p->m; ++r) {
        double W = 0.0;
        for (int sl = a->slot_start[r]; sl < a->slot_start[r + 1]; ++sl) W += a->ib[sl];
        a->W[r] = W;
    }
    if (a->acc.kind == CP_ACCEL_NONE) return;
    /* acceleration's norm: ADMM's own, sum over slots of beta |dz|^2 + |du|^2 / beta, in which the
     * plain iteration's step shrinks monotonically (He and Yuan 2012); with unit weights on z and
     * u / beta the residual of plain steps rose now and then and Nesterov's restarts cycled */
    int nslot = a->slot_start[p->m];
    for (int sl = 0; sl < nslot; ++sl) a->acc.w[sl] = sqrt(a->bsl[sl]);
    for (int r = 0; r < p->m; ++r) {
        double ib = 0.0;
        for (int sl = a->slot_start[r]; sl < a->slot_start[r + 1]; ++sl) ib += a->ib[sl];
        a->acc.w[nslot + r] = sqrt(ib);
    }
}

/* Residual balancing (see the top of the file); returns how many subsystems changed beta, listed in
 * a->pos. */
static int adapt(const cp_problem* p, cp_admm_work* a) {
    int changed = 0;
    for (int s = 0; s < a->nratio; ++s) {
        double rp = 0.0, rd = 0.0;
        for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
            int sl = a->sub_slot[q];
            double d1 = a->xs[q] - a->z[sl], d2 = a->z[sl] - a->zprev[sl];
            rp += d1 * d1, rd += d2 * d2;
        }
        if (rp == 0.0 && rd == 0.0) continue;
        rp = sqrt(rp), rd = sqrt(rd) * a->ratio[s];
        double f = rp > MU * rd ? TAU : rd > MU * rp ? 1.0 / TAU : 1.0;
        if (f == 1.0 || a->ratio[s] * f < RATIO_MIN || a->ratio[s] * f > RATIO_MAX) continue;
        a->ratio[s] *= f;
        a->beta[s] = a->beta0[s] * a->ratio[s];
        if (!factor_one(p, a, s, 1.0, 0)) { /* cannot happen for SPD A_s; undo to stay safe */
            a->ratio[s] /= f;
            a->beta[s] = a->beta0[s] * a->ratio[s];
            factor_one(p, a, s, 1.0, 0);
            continue;
        }
        slot_weights(a, s);
        a->pos[changed++] = s;
    }
    if (changed) block_weights(p, a), cp_accel_reset(&a->acc); /* a new map */
    return changed;
}

/* The per-constraint penalty of small subsystems (rigid bodies, short arms): each contact or
 * unilateral slot's Delassus share d_q = J_q A_s^-1 J_q^T (cp_prepare_diag's segd) into sw, made the
 * slot's relative penalty kappa / (d_q beta0_s) by factor_one. A contact's two tangent rows share
 * one penalty, from the mean of their shares (the exact Coulomb projection needs one W for the
 * pair; the normal decouples, so it may have its own); its normal row takes NORMAL_SHARE times its
 * share, half the tangents' scale (measured, iterations to 1e-4 summed over the four small pile
 * cells at three points of their trajectories: 1 -> 320, 1.5 -> 254, 2 -> 240, 2.5 -> 261, 3 -> 282;
 * one penalty for all three rows from their mean share: 288). 0 (the subsystem's beta): large
 * subsystems, equalities (on insertion's arm the per-slot penalty of its glue rows cost 2% more
 * iterations with 8 pieces), folded rows, kappa 0. */
static const double NORMAL_SHARE = 2.0;
static void slot_share(const cp_problem* p, cp_admm_work* a, double kappa) {
    int nslot = a->slot_start[p->m];
    for (int sl = 0; sl < nslot; ++sl) a->sw[sl] = 0.0;
    if (!(kappa > 0.0)) return;
    for (int c = 0; c < p->nblock; ++c) {
        int r0 = p->block[c].row, nr = cp_kind_rows(p->block[c].kind), ns = a->slot_start[r0 + 1] - a->slot_start[r0];
        if (a->folded[r0] || p->block[c].kind == CP_EQUALITY) continue;
        for (int i = 0; i < ns; ++i) {
            if (a->sn[a->slot_sub[a->slot_start[r0] + i]] > SMALL) continue;
            double d[3] = {0.0, 0.0, 0.0};
            for (int q = 0; q < nr; ++q) {
                int sl = a->slot_start[r0 + q] + i;
                for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) d[q] += a->segd[k];
            }
            if (nr == 1) {
                a->sw[a->slot_start[r0] + i] = d[0];
                continue;
            }
            a->sw[a->slot_start[r0] + i] = NORMAL_SHARE * d[0];
            a->sw[a->slot_start[r0 + 1] + i] = a->sw[a->slot_start[r0 + 2] + i] = 0.5 * (d[1] + d[2]);
        }
    }
}

static void rhs_base(const cp_problem* p, cp_admm_work* a) {
    /* b = A v_free. On entry v already carries the warm start, v = v_free + A^-1 J^T lambda, so
     * b = A v - J^T lambda: counting the warm impulses once, through u below. */
    for (int gi = 0; gi < p->ngroup; ++gi) { /* dense_matvec, over the band only for an FEM piece */
        const cp_group* g = &p->group[gi];
        if (g->storage != CP_DENSE && g->storage != CP_BANDED) continue; /* its subsystem's b is v_f (wood_factor) */
        int n = g->n, bw = g->bw > 0 ? g->bw : n;
        for (int i = 0; i < n; ++i) {
            const double* Ai = cp_group_row(g, g->A, i);
            double s = 0.0;
            for (int j = i - bw > 0 ? i - bw : 0; j <= (i + bw < n - 1 ? i + bw : n - 1); ++j) s += Ai[j] * p->v[g->off + j];
            a->b[g->off + i] = s;
        }
    }
    for (int r = 0; r < p->m; ++r)
        if (p->lambda[r] != 0.0)
            for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
                const cp_group* g = &p->group[p->seg[k].group];
                const double* j = p->J + p->seg[k].val;
                for (int i = p->seg[k].lo; i < p->seg[k].hi; ++i) a->b[g->off + i] -= j[i] * p->lambda[r];
            }
    /* folded rows: b_s -= J^T e / c */
    for (int c = 0; c < p->nblock; ++c) {
        int r = p->block[c].row;
        if (!a->folded[r]) continue;
        for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
            const cp_group* g = &p->group[p->seg[k].group];
            const double* j = p->J + p->seg[k].val;
            for (int i = p->seg[k].lo; i < p->seg[k].hi; ++i) a->b[g->off + i] -= j[i] * p->e[r] / p->block[c].compliance;
        }
    }
}

/* The iteration's control: what every thread reads, and what the one that runs the control writes. */
typedef struct admm_loop {
    int iterations;   /* the budget */
    double tolerance; /* the stopping rule's, m/s */
    int adapt, S;     /* residual balancing on; subsystems */
    int done;         /* iterations made */
} admm_loop;

static int balance_at(const admm_loop* c, int it) {
    return c->adapt && (it + 1) % ADAPT_EVERY == 0 && it + 1 < c->iterations && it < ADAPT_UNTIL;
}

/* What one iteration leaves for the next (one thread): the z that residual balancing compares
 * against, and the accelerated state's start. */
static void before_iteration(const cp_problem* p, cp_admm_work* a, const admm_loop* c, int it) {
    if (balance_at(c, it)) memcpy(a->zprev, a->z, sizeof(double) * (size_t)a->slot_start[p->m]);
    if (a->acc.kind != CP_ACCEL_NONE) cp_accel_before(&a->acc, a->z);
}

/* Algorithm 1's iteration, run by every thread of the solve's team (one thread when not parallel):
 * (15), one reduced solve per subsystem, and (16)-(21), one closed-form projection per block, are
 * worksharing loops (each item writes only its own unknowns, slots and rows, so the result does not
 * depend on the thread count). Every thread reads the largest change from the per-thread maxima and
 * takes the same stopping decision; residual balancing and acceleration run on one thread. One
 * region for the whole iteration, two barriers an iteration (three when balancing or accelerating):
 * a region per loop forked and joined the team five times an iteration. */
static void iterate(cp_problem* p, cp_admm_work* a, admm_loop* c) {
#pragma omp single
    before_iteration(p, a, c, 0);
    int it = 0, accel = a->acc.kind != CP_ACCEL_NONE;
    for (; it < c->iterations; ++it) {
        cp_admm_solve_all(p, a, c->S); /* ends with a barrier: the projections read every x */
        a->tmax[cp_admm_thread()] = cp_admm_project_all(p, a, it > 0);
#pragma omp barrier
        double change = 0.0;
        for (int t = 0; t < cp_admm_team(); ++t) change = a->tmax[t] > change ? a->tmax[t] : change;
        if (it > 0 && change <= c->tolerance) break; /* (the same decision on every thread) */
        if (accel || balance_at(c, it) || balance_at(c, it + 1)) {
#pragma omp single
            {
                if (balance_at(c, it)) /* on the plain iterate: its residuals are the ones balanced */
                    for (int n = adapt(p, a), i = 0; i < n; ++i) cp_admm_refresh_sub(a, a->pos[i]);
                if (accel) cp_accel_after(&a->acc, a->z), cp_admm_refresh_coef(p, a);
                before_iteration(p, a, c, it + 1);
            }
        }
    }
    if (cp_admm_thread() == 0) c->done = it < c->iterations ? it + 1 : c->iterations;
}

/* CP_ACCEL_AUTO: Anderson when a group is an FEM piece, else none. With FEM pieces glued by hard
 * equalities the iteration is close to a linear map, on which Anderson acts like GMRES, and each
 * iteration is dominated by the pieces' band solves, against which its passes over (z, u) are cheap
 * (insertion with 8 pieces: 236 -> 92 iterations, 10.1 -> 5.3 ms). On piles of rigid bodies and on
 * cables it saves fewer iterations than its passes cost (docs/benchmarks-history.md, "Acceleration of SubADMM"). */
static int accel_kind(const cp_problem* p, int accel) {
    if (accel != CP_ACCEL_AUTO) return accel;
    for (int g = 0; g < p->ngroup; ++g)
        if (p->group[g].bw > 0) return CP_ACCEL_ANDERSON;
    return CP_ACCEL_NONE;
}

/* Algorithm 1's factorizations, a worksharing loop (each writes only its own subsystem's matrix,
 * penalties and slots, so the result does not depend on the thread count), then the iteration's
 * start on one thread: u = -lambda and z = x = J v with v the warm-started velocity, so that a
 * correct warm start is already a fixed point of (15). Run by every thread of the solve's team;
 * returns 0 on every thread if a subsystem's matrix is not SPD (counted in *failed). */
static int factor_all(cp_problem* p, cp_admm_work* a, const cp_admm_settings* set, int nsub, int* failed) {
#pragma omp for schedule(dynamic, 16)
    for (int s = 0; s < nsub; ++s) {
        if (factor_one(p, a, s, set->beta_scale, 1)) {
            slot_weights(a, s);
            continue;
        }
#pragma omp atomic
        ++*failed;
    }
    if (*failed) return 0; /* (read after the loop's barrier: the same on every thread) */
#pragma omp single
    {
        block_weights(p, a);
        for (int r = 0; r < p->m; ++r) {
            a->u[r] = -p->lambda[r];
            for (int sl = a->slot_start[r]; sl < a->slot_start[r + 1]; ++sl) {
                a->z[sl] = cp_admm_slot_dot(p, a, sl, p->v);
                if (a->spos[sl] >= 0) a->xs[a->spos[sl]] = a->z[sl];
            }
        }
        cp_admm_refresh_coef(p, a);
        cp_admm_sort_blocks(p, a, set->relaxation, set->relaxation_rigid);
    }
    return 1;
}

/* A solve that could not run (out of memory, a matrix not SPD): iterations -1. */
static cp_result give_up(cp_admm_work* a, cp_admm_work** work) {
    if (!work) cp_admm_work_free(a);
    return (cp_result){-1, 0.0};
}

cp_result cp_solve_admm(cp_problem* p, int iterations, double tolerance, const int* sub_of_group, int nsub, const cp_admm_settings* set,
                        cp_admm_work** work) {
    cp_result res = {0, 0.0};
    if (cp_kinds_check(p->block, p->nblock) >= 0) {
        res.iterations = CP_UNSUPPORTED_KIND;
        return res;
    }
    cp_admm_work* a = work ? *work : NULL;
    if (!a) {
        a = loam_calloc(1, sizeof *a);
        if (work) *work = a;
    }
    /* this solve's team, before setup sizes the per-thread scratch by it */
    if (a) a->team = loam_team(set->threads);
    int ok = a != NULL && setup(p, a, sub_of_group, nsub, set->fold_soft);
    if (ok && !set->adapt)
        for (int s = 0; s < nsub; ++s) a->ratio[s] = 1.0;
    ok = ok && cp_accel_begin(&a->acc, accel_kind(p, set->accel), a->slot_start[p->m] + p->m);
    if (ok && a->nwood) memcpy(a->vf, p->v, sizeof(double) * (size_t)p->n); /* v_f, for the Woodbury subsystems */
    if (ok) cp_prepare_diag(p, a->segd, a->rhs); /* diag for the error, the warm start */
    if (ok) rhs_base(p, a); /* before the factors: a 6-unknown subsystem's takes M^-1 b along */
    if (ok) a->kappa = set->penalty_rigid, slot_share(p, a, set->penalty_rigid);
    if (!ok) return give_up(a, work);
    admm_loop loop = {iterations, tolerance, set->adapt, nsub, 0};
    int failed = 0;
    /* A region even for one thread: its worksharing loops must bind to a team of this solve's own,
     * not to a caller's (a batch of simulations stepped in a parallel loop). One per solve, for the
     * factorizations and the iteration: a region whose team has gone to sleep during the serial
     * rest of the step costs its wake-up, on this project's 2-vCPU virtual machine 42-63 µs on
     * average (and now and then 5-7 ms) against 5 µs with OMP_WAIT_POLICY=active (an empty region
     * after 2 ms of serial work, two threads). */
#pragma omp parallel num_threads(a->team) if (cp_admm_parallel(nsub > p->nblock ? nsub : p->nblock, a->team))
    if (factor_all(p, a, set, nsub, &failed)) iterate(p, a, &loop);
    if (failed) return give_up(a, work);
    res.iterations = loop.done;
    if (a->nwood) cp_admm_wood_velocities(p, a, nsub);
    /* the small subsystems' velocities were written in place; the folded rows' impulses come from
     * the final velocities */
    for (int c = 0; c < p->nblock; ++c) {
        int r = p->block[c].row;
        if (a->folded[r]) p->lambda[r] = -cp_row_velocity(p, r) / p->block[c].compliance;
    }
    if (!work) cp_admm_work_free(a);
    res.error = cp_error(p);
    return res;
}
