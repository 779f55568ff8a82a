/* SubADMM's projections (16)-(21) per constraint block (admm_work.h), and the coefficients they
 * leave for the next reduced solves. */
#include <math.h>
#include <stddef.h>

#include "contact/admm_work.h"
#include "contact/kinds.h"

/* Each active slot's coefficient beta_s z - u in its subsystem's right-hand side (15), from the
 * state (z, u): at the start, and after anything but a projection changed the state or a penalty. */
void cp_admm_refresh_coef(const cp_problem* p, cp_admm_work* a) {
    for (int r = 0; r < p->m; ++r)
        for (int sl = a->slot_start[r]; sl < a->slot_start[r + 1]; ++sl)
            if (a->spos[sl] >= 0) a->cs[a->spos[sl]] = a->bsl[sl] * a->z[sl] - a->u[r];
}

/* refresh_coef for subsystem s alone (its penalty changed; the others' coefficients still hold). */
void cp_admm_refresh_sub(cp_admm_work* a, int s) {
    for (int q = a->sub_slot_start[s]; q < a->sub_slot_start[s + 1]; ++q) {
        int sl = a->sub_slot[q];
        a->cs[q] = a->bsl[sl] * a->z[sl] - a->u[a->slot_row[sl]];
    }
}

/* (16)-(21) for block c (any kind, relaxation alpha): y, the projection, z and u, and the slots'
 * coefficients for the next (15). Returns the largest |y - y_previous| if `track`. */
static double any_block(cp_problem* p, cp_admm_work* a, const cp_block* k, double alpha, int track) {
    int r0 = k->row, nr = cp_kind_rows(k->kind);
    double rv[3], l[3] = {0, 0, 0}, change = 0.0;
    for (int q = 0; q < nr; ++q) {
        int r = r0 + q;
        double wt = p->e[r];
        for (int sl = a->slot_start[r]; sl < a->slot_start[r + 1]; ++sl) {
            double y = alpha * a->xs[a->spos[sl]] + (1.0 - alpha) * a->z[sl] + a->u[r] * a->ib[sl];
            if (track) { /* (not fmax: a libm call in the hottest loop) */
                double dy = fabs(y - a->y[sl]);
                change = dy > change ? dy : change;
            }
            a->y[sl] = y;
            wt += y;
        }
        rv[q] = -wt / a->W[r];
    }
    cp_kind_project(k, a->W + r0, rv, l); /* rv = -w~ / W: the hard update in SubADMM's metric W */
    for (int q = 0; q < nr; ++q) {
        int r = r0 + q;
        a->u[r] = -l[q];
        p->lambda[r] = l[q];
        for (int sl = a->slot_start[r]; sl < a->slot_start[r + 1]; ++sl) {
            a->z[sl] = a->y[sl] + l[q] * a->ib[sl];
            a->cs[a->spos[sl]] = a->bsl[sl] * a->z[sl] - a->u[r];
        }
    }
    return change;
}

/* any_block for a contact whose three rows have one slot each (against the world): the same
 * operations in the same order, unrolled, with `track` and `relax` constants (without relaxation
 * alpha x + (1 - alpha) z is x exactly for alpha = 1, and is not formed). */
static inline __attribute__((always_inline)) double contact_one(cp_problem* p, cp_admm_work* a, const cp_block* k, int c, int track, int relax) {
    int r0 = k->row, s0 = a->slot_start[r0];
    const int* pos = a->spos + s0;
    const double *ib = a->ib + s0, *bsl = a->bsl + s0, *xs = a->xs, *e = p->e + r0;
    double *yp = a->y + s0, *zp = a->z + s0, *cs = a->cs, *u = a->u + r0;
    const double* W = a->W + r0;
    double rv[3], l[3], y[3], change = 0.0, al = relax ? a->ab[c] : 1.0;
    for (int q = 0; q < 3; ++q) {
        double x = relax ? al * xs[pos[q]] + (1.0 - al) * zp[q] : xs[pos[q]];
        y[q] = x + u[q] * ib[q];
        if (track) {
            double dy = fabs(y[q] - yp[q]);
            change = dy > change ? dy : change;
        }
        yp[q] = y[q];
        rv[q] = -(e[q] + y[q]) / W[q];
    }
    cp_contact_project(k, rv, l);
    for (int q = 0; q < 3; ++q) {
        u[q] = -l[q];
        p->lambda[r0 + q] = l[q];
        double z = y[q] + l[q] * ib[q];
        zp[q] = z;
        cs[pos[q]] = bsl[q] * z + l[q]; /* beta z - u, u = -l */
    }
    return change;
}

/* contact_one for two slots per row (a contact between two subsystems: most of a pile's) with each row's
 * two slots in the two lanes of a register: y, z and the coefficients lane by lane, the row sum
 * (e + y_1) + y_2 and the largest |y - y_previous| as the scalar code forms them (same bits). */
typedef long long v2l __attribute__((vector_size(16)));
static inline __attribute__((always_inline)) double contact_pair(cp_problem* p, cp_admm_work* a, const cp_block* k, int c, int track, int relax) {
    int r0 = k->row, s0 = a->slot_start[r0];
    const int* pos = a->spos + s0;
    const double *ib = a->ib + s0, *bsl = a->bsl + s0, *xs = a->xs;
    double *yp = a->y + s0, *zp = a->z + s0, *cs = a->cs;
    const double* W = a->W + r0;
    double rv[3], l[3], al = relax ? a->ab[c] : 1.0;
    v2d y[3], most = {0.0, 0.0}, alv = {al, al}, bev = {1.0 - al, 1.0 - al};
    const v2l absmask = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
    for (int q = 0; q < 3; ++q) {
        double u = a->u[r0 + q];
        v2d x = {xs[pos[2 * q]], xs[pos[2 * q + 1]]}, uu = {u, u};
        if (relax) x = alv * x + bev * ld2(zp + 2 * q);
        y[q] = x + uu * ld2(ib + 2 * q);
        if (track) {
            v2d dy = (v2d)((v2l)(y[q] - ld2(yp + 2 * q)) & absmask);
            v2l gt = dy > most;
            most = (v2d)((gt & (v2l)dy) | (~gt & (v2l)most));
        }
        st2(yp + 2 * q, y[q]);
        rv[q] = -((p->e[r0 + q] + y[q][0]) + y[q][1]) / W[q];
    }
    cp_contact_project(k, rv, l);
    for (int q = 0; q < 3; ++q) {
        a->u[r0 + q] = -l[q];
        p->lambda[r0 + q] = l[q];
        v2d ll = {l[q], l[q]}, z = y[q] + ll * ld2(ib + 2 * q), cf = ld2(bsl + 2 * q) * z + ll; /* beta z - u, u = -l */
        st2(zp + 2 * q, z);
        cs[pos[2 * q]] = cf[0], cs[pos[2 * q + 1]] = cf[1];
    }
    return most[0] > most[1] ? most[0] : most[1];
}

/* Sort the blocks by the projection they take (blocks are independent, so the order changes
 * nothing): contacts with two slots per row, with one, each unrelaxed and then relaxed, then the
 * rest; skipped: rows without slots and folded rows. Branching per block in the loop cost as much
 * as a sphere contact's projection arithmetic. */
static int block_kind(const cp_problem* p, const cp_admm_work* a, int c) {
    const cp_block* k = &p->block[c];
    int r0 = k->row, s0 = a->slot_start[r0], ns = a->slot_start[r0 + 1] - s0;
    if (ns == 0 || a->folded[r0]) return -1;
    if (k->kind == CP_CONTACT && a->slot_start[r0 + 3] - s0 == 3 * ns && ns <= 2) return (2 - ns) + (a->ab[c] != 1.0 ? 2 : 0);
    return 4;
}

void cp_admm_sort_blocks(const cp_problem* p, cp_admm_work* a, double alpha_c, double alpha_r) {
    int n[5] = {0, 0, 0, 0, 0}, at[5];
    for (int c = 0; c < p->nblock; ++c) {
        const cp_block* k = &p->block[c];
        int r0 = k->row, small = 1;
        for (int sl = a->slot_start[r0]; sl < a->slot_start[r0 + 1]; ++sl) small &= a->sn[a->slot_sub[sl]] <= CP_ADMM_SMALL;
        a->ab[c] = k->kind == CP_EQUALITY ? 1.0 : small ? alpha_r : alpha_c;
    }
    for (int c = 0; c < p->nblock; ++c) {
        int kind = block_kind(p, a, c);
        if (kind >= 0) ++n[kind];
    }
    at[0] = 0;
    for (int i = 0; i < 4; ++i) at[i + 1] = at[i] + n[i];
    for (int i = 0; i < 5; ++i) a->nblist[i] = at[i] + n[i]; /* where each kind ends */
    for (int c = 0; c < p->nblock; ++c) {
        int kind = block_kind(p, a, c);
        if (kind >= 0) a->blist[at[kind]++] = c;
    }
}

static inline double most(double a, double b) { return b > a ? b : a; }

/* Block c, a contact of one kind: two slots per row (pair) or one, relaxed or not. */
static inline __attribute__((always_inline)) double contact_block(cp_problem* p, cp_admm_work* a, int c, int track, int pair, int relax) {
    const cp_block* k = &p->block[c];
    return pair ? contact_pair(p, a, k, c, track, relax) : contact_one(p, a, k, c, track, relax);
}

/* The contact blocks list[lo, hi) of one kind: two slots per row (pair) or one, relaxed or not
 * (constants, so each call inlines its own kernel); returns the largest |y - y_previous| over the
 * calling thread's share, with `change`. Blocks are independent: no barrier between kinds. */
static inline __attribute__((always_inline)) double contact_range(cp_problem* p, cp_admm_work* a, const int* list, int lo,
                                                                  int hi, int track, int pair, int relax, double change) {
#pragma omp for schedule(static) nowait
    for (int i = lo; i < hi; ++i) change = most(change, contact_block(p, a, list[i], track, pair, relax));
    return change;
}

/* All blocks' projections, kind by kind (block_kind's order); returns the largest |y - y_previous|
 * if `track`. */
static inline __attribute__((always_inline)) double project_all(cp_problem* p, cp_admm_work* a, int track) {
    const int *list = a->blist, *end = a->nblist;
    double change = contact_range(p, a, list, 0, end[0], track, 1, 0, 0.0);
    change = contact_range(p, a, list, end[0], end[1], track, 0, 0, change);
    change = contact_range(p, a, list, end[1], end[2], track, 1, 1, change);
    change = contact_range(p, a, list, end[2], end[3], track, 0, 1, change);
#pragma omp for schedule(static) nowait
    for (int i = end[3]; i < end[4]; ++i) change = most(change, any_block(p, a, &p->block[list[i]], a->ab[list[i]], track));
    return change;
}

double cp_admm_project_all(cp_problem* p, cp_admm_work* a, int track) {
    return track ? project_all(p, a, 1) : project_all(p, a, 0);
}
