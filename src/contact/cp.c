/* Shared parts of the constraint solvers: A^-1 J^T, the Delassus diagonal, row velocities, the
 * error. See cp.h. */
#include "contact/cp.h"

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

/* b = L^-1 b for three right-hand sides at once (the forward half of solve6, same order, same bits),
 * with inv the reciprocals of L's diagonal: one substitution is a chain of dependent operations,
 * three side by side keep the floating-point unit busy (a contact's three rows share their groups). */
static inline void forward6x3(const double* l, const double* inv, double* b0, double* b1, double* b2) {
    for (int i = 0; i < 6; ++i) {
        double s0 = b0[i], s1 = b1[i], s2 = b2[i];
        for (int k = 0; k < i; ++k) s0 -= l[i * 6 + k] * b0[k], s1 -= l[i * 6 + k] * b1[k], s2 -= l[i * 6 + k] * b2[k];
        b0[i] = s0 * inv[i], b1[i] = s1 * inv[i], b2[i] = s2 * inv[i];
    }
}

/* solve6 on three right-hand sides at once, each with solve6's operations in its order (the same
 * bits). */
static inline void solve6x3(const double* l, double* b0, double* b1, double* b2) {
    double inv[6];
    for (int i = 0; i < 6; ++i) inv[i] = 1.0 / l[i * 6 + i];
    forward6x3(l, inv, b0, b1, b2);
    for (int i = 5; i >= 0; --i) {
        double x0 = b0[i] * inv[i], x1 = b1[i] * inv[i], x2 = b2[i] * inv[i];
        b0[i] = x0, b1[i] = x1, b2[i] = x2;
        for (int k = 0; k < i; ++k) b0[k] -= l[i * 6 + k] * x0, b1[k] -= l[i * 6 + k] * x1, b2[k] -= l[i * 6 + k] * x2;
    }
}

void cp_seg_ranges(cp_seg* seg, int nseg, const cp_group* group, const double* J) {
    for (int k = 0; k < nseg; ++k) {
        const double* j = J + seg[k].val;
        int n = group[seg[k].group].n, lo = 0, hi = n;
        while (lo < n && j[lo] == 0.0) ++lo;
        while (hi > lo && j[hi - 1] == 0.0) --hi;
        seg[k].lo = lo < hi ? lo : 0, seg[k].hi = lo < hi ? hi : 0;
    }
}

/* x = A_g^-1 x as group g stores A (banded for an FEM piece: O(n bw)). */
void cp_group_solve(const cp_group* g, double* x) {
    switch (g->storage) {
    case CP_BANDED: dense_cholesky_band_solve(g->L, g->n, g->bw, 2 * g->bw + 1, x); break;
    case CP_DIAGONAL:
        for (int i = 0; i < g->n; ++i) x[i] /= g->A[i];
        break;
    case CP_MATRIX_FREE: g->solve(g->ctx, g->n, x); break;
    default:
        if (g->n == 6) solve6(g->L, x);
        else dense_cholesky_solve(g->L, g->n, x);
        break;
    }
}

/* Rows r and r + 1 touch the same groups in the same order. */
static int same_groups(const cp_problem* p, int r) {
    int k0 = p->row_seg[r], k1 = p->row_seg[r + 1], ns = k1 - k0;
    if (r + 1 >= p->m || p->row_seg[r + 2] - k1 != ns) return 0;
    for (int q = 0; q < ns; ++q)
        if (p->seg[k0 + q].group != p->seg[k1 + q].group) return 0;
    return 1;
}

/* A^-1 J^T and the Delassus diagonal of rows [r, r + nr) that share their groups (same_groups),
 * each row's segments in order. */
static void prepare_rows(cp_problem* p, int r, int nr) {
    double d[3] = {0.0, 0.0, 0.0};
    for (int q = 0; q < p->row_seg[r + 1] - p->row_seg[r]; ++q) {
        const cp_group* g = &p->group[p->seg[p->row_seg[r] + q].group];
        double* a[3];
        const double* j[3];
        for (int i = 0; i < nr; ++i) {
            const cp_seg* sg = &p->seg[p->row_seg[r + i] + q];
            a[i] = p->AJ + sg->val, j[i] = p->J + sg->val;
            memcpy(a[i], j[i], sizeof(double) * (size_t)g->n);
        }
        if (nr == 3 && g->storage == CP_DENSE && g->n == 6) solve6x3(g->L, a[0], a[1], a[2]);
        else
            for (int i = 0; i < nr; ++i) cp_group_solve(g, a[i]);
        for (int i = 0; i < nr; ++i) {
            const cp_seg* sg = &p->seg[p->row_seg[r + i] + q];
            for (int c = sg->lo; c < sg->hi; ++c) d[i] += j[i][c] * a[i][c];
        }
    }
    for (int i = 0; i < nr; ++i) p->diag[r + i] = d[i];
}

void cp_prepare(cp_problem* p) {
    for (int r = 0; r < p->m;) {
        int nr = 1;
        while (nr < 3 && same_groups(p, r + nr - 1)) ++nr;
        prepare_rows(p, r, nr);
        /* The warm start in row order: a row's diagonal does not depend on the velocities. */
        for (int i = r; i < r + nr; ++i)
            if (p->lambda[i] != 0.0) cp_apply(p, i, p->lambda[i]);
        r += nr;
    }
}

/* |L^-1 j|^2 for nj segments j[] over one group g (j L^-T L^-1 j^T = j A^-1 j^T, each one's share
 * of its row's diagonal) by forward substitution alone, from the first nonzero of any of them:
 * L^-1 j vanishes above it (exact zeros, so each result is what it would be from its own first
 * nonzero), and a contact or glue row touches a few nodes of an FEM piece, so this costs a
 * fraction of the two full band substitutions of A^-1 j. The rows of a contact or a glue point
 * share their groups and go together: each one's substitution is a chain of dependent
 * subtractions, and three side by side keep the floating-point unit busy. sg[q]: their segments (the
 * nonzero ranges); y[q]: n scratch each. */
static void half_norm2(const cp_group* g, int nj, const double* const* j, const cp_seg* const* sg, double* const* y, double* out) {
    if (g->storage == CP_DIAGONAL || g->storage == CP_MATRIX_FREE) { /* j . A^-1 j directly */
        for (int q = 0; q < nj; ++q) {
            double s = 0.0;
            memcpy(y[q], j[q], sizeof(double) * (size_t)g->n);
            cp_group_solve(g, y[q]);
            for (int i = sg[q]->lo; i < sg[q]->hi; ++i) s += j[q][i] * y[q][i];
            out[q] = s;
        }
        return;
    }
    if (g->n == 6 && g->storage == CP_DENSE && nj == 3) { /* a contact on a free body: no divisions in the chain */
        double inv[6];
        for (int i = 0; i < 6; ++i) inv[i] = 1.0 / g->L[i * 6 + i];
        for (int q = 0; q < 3; ++q) memcpy(y[q], j[q], sizeof(double) * 6);
        forward6x3(g->L, inv, y[0], y[1], y[2]);
        for (int q = 0; q < 3; ++q) {
            double s = 0.0;
            for (int i = 0; i < 6; ++i) s += y[q][i] * y[q][i];
            out[q] = s;
        }
        return;
    }
    int n = g->n, bw = g->bw > 0 ? g->bw : n, i0 = n;
    for (int q = 0; q < nj; ++q) {
        int f = sg[q]->hi > sg[q]->lo ? sg[q]->lo : n; /* its first nonzero */
        i0 = f < i0 ? f : i0;
    }
    double s2[3] = {0.0, 0.0, 0.0};
    for (int i = i0; i < n; ++i) {
        const double* li = cp_group_row(g, g->L, i);
        int k0 = i - bw > i0 ? i - bw : i0;
        if (nj == 3) { /* one division, not three, in the chain */
            double s0 = j[0][i], s1 = j[1][i], s2_ = j[2][i], inv = 1.0 / li[i];
            const double *y0 = y[0], *y1 = y[1], *y2 = y[2];
            for (int k = k0; k < i; ++k) s0 -= li[k] * y0[k], s1 -= li[k] * y1[k], s2_ -= li[k] * y2[k];
            y[0][i] = s0 * inv, y[1][i] = s1 * inv, y[2][i] = s2_ * inv;
        } else
            for (int q = 0; q < nj; ++q) {
                double s = j[q][i];
                for (int k = k0; k < i; ++k) s -= li[k] * y[q][k];
                y[q][i] = s / li[i];
            }
        for (int q = 0; q < nj; ++q) s2[q] += y[q][i] * y[q][i];
    }
    for (int q = 0; q < nj; ++q) out[q] = s2[q];
}

void cp_prepare_diag(cp_problem* p, double* segd, double* t) {
    memset(t, 0, sizeof(double) * (size_t)p->n);
    for (int r = 0; r < p->m;) {
        int nr = 1;
        while (nr < 3 && same_groups(p, r + nr - 1)) ++nr;
        for (int q = 0; q < p->row_seg[r + 1] - p->row_seg[r]; ++q) {
            const double* j[3];
            const cp_seg* sgs[3];
            double *y[3], d[3];
            const cp_group* g = &p->group[p->seg[p->row_seg[r] + q].group];
            for (int i = 0; i < nr; ++i) {
                const cp_seg* sg = sgs[i] = &p->seg[p->row_seg[r + i] + q];
                j[i] = p->J + sg->val, y[i] = p->AJ + sg->val; /* AJ: scratch here */
            }
            half_norm2(g, nr, j, sgs, y, d);
            for (int i = 0; i < nr; ++i) segd[p->row_seg[r + i] + q] = d[i];
        }
        for (int i = r; i < r + nr; ++i) {
            double d = 0.0;
            for (int k = p->row_seg[i]; k < p->row_seg[i + 1]; ++k) {
                const cp_group* g = &p->group[p->seg[k].group];
                const double* j = p->J + p->seg[k].val;
                d += segd[k];
                if (p->lambda[i] != 0.0)
                    for (int c = p->seg[k].lo; c < p->seg[k].hi; ++c) t[g->off + c] += j[c] * p->lambda[i];
            }
            p->diag[i] = d;
        }
        r += nr;
    }
    /* the warm start: one solve per group for all its rows' impulses */
    for (int gi = 0; gi < p->ngroup; ++gi) {
        const cp_group* g = &p->group[gi];
        double* tg = t + g->off;
        int any = 0;
        for (int i = 0; i < g->n && !any; ++i) any = tg[i] != 0.0;
        if (!any) continue;
        cp_group_solve(g, tg);
        for (int i = 0; i < g->n; ++i) p->v[g->off + i] += tg[i];
    }
}

double cp_error(const cp_problem* p) {
    double err = 0.0;
    for (int b = 0; b < p->nblock; ++b) {
        const cp_block* k = &p->block[b];
        int r = k->row, nr = cp_kind_rows(k->kind);
        double w[3];
        for (int q = 0; q < nr; ++q) w[q] = cp_row_velocity(p, r + q);
        err = fmax(err, cp_kind_error(k, w, p->lambda + r, p->diag + r));
    }
    return err;
}
