/* The workspace of subsystem-based ADMM (admm.c) and its per-iteration kernels: the reduced solves
 * (15) in admm_solve.c and the projections (16)-(21) in admm_project.c. Private to these files.
 * Slots (admm.c's top comment): a row's share in one subsystem; each active slot also has a place
 * in its subsystem's list (sub_slot order), where the solve reads the slot's coefficient in (15)
 * and writes its x, so that the solve runs over contiguous memory and only the projection goes
 * through the slot-to-place map (spos). */
#ifndef LOAM_CONTACT_ADMM_WORK_H
#define LOAM_CONTACT_ADMM_WORK_H

#include <stddef.h>
#include <string.h>

#include "loam/core.h"
#include "contact/admm_accel.h"
#include "contact/cp.h"

/* Subsystems of at most SMALL unknowns keep an explicit inverse and packed J rows. */
enum { CP_ADMM_SMALL = 12 };
/* A subsystem's kind of reduced solve: 6 unknowns (premultiplied products), other small ones (the
 * explicit inverse), large ones (the band factor), and those holding a DIAGONAL or MATRIX_FREE group
 * (the Woodbury form, admm.c's wood_factor: M holds the Cholesky factor of its nq x nq S_s). */
enum { CP_SUB_SIX, CP_SUB_SMALL, CP_SUB_BAND, CP_SUB_WOOD };

/* Persistent scratch (cp.h): buffers grow to the largest problem seen and are reused. */
struct cp_admm_work {
    size_t cap[48];
    unsigned char* folded;                        /* m */
    int *soff, *sn, *gstart;                      /* S + 1: unknowns; first group */
    int* slot_start;                              /* m + 1 */
    int *slot_sub, *slot_sb, *slot_se, *slot_row; /* per slot */
    int *sub_slot, *sub_slot_start;               /* active slots by subsystem (S + 1 starts) */
    int *sub_fold, *sub_fold_start;               /* folded slots by subsystem */
    int *bw, *pos;                                /* S + 1 */
    double *beta, *beta0, *ratio;                 /* S; ratio persists between calls */
    int nratio;                                   /* subsystems ratio was kept for */
    double* M;                                    /* per subsystem: band factor; Cholesky factor (6 unknowns: a free
                                                     body); else, if small, the explicit inverse */
    size_t *moff, *joff;                          /* S + 1 */
    double *Jp, *Jt;                              /* small subsystems: their active slots' J rows, dense,
                                                     by rows (Jp) and by columns (Jt) */
    double *Q, *v0;                               /* 6-unknown subsystems: M^-1 Jp^T by slots, and M^-1 b */
    double *z, *y, *zprev, *ib, *bsl;             /* per slot; ib, bsl = 1 / beta and beta of the slot's subsystem */
    int* spos;                                    /* per slot: its index in sub_slot (-1: folded) */
    int *blist, nblist[5];                        /* blocks sorted by projection kind (sort_blocks) */
    double* ab;                                   /* per block: its over-relaxation alpha */
    double *xs, *cs;                              /* per active slot, in sub_slot order: x = J v, and the
                                                     coefficient beta z - u of its row in (15) */
    double *u, *W, *rc;                           /* m (u = z + nslot: the state (z, u) is one vector for
                                                     acceleration); m: each row's W; m: each row's compliance */
    cp_accel acc;
    double *b, *rhs;                              /* n */
    double* segd;                                 /* per segment: J A^-1 J^T's share (cp_prepare_diag) */
    double* sw;                                   /* per slot: its penalty relative to its subsystem's beta */
    double kappa;                                 /* small subsystems' per-slot penalty scale (slot_share) */
    double* tmax;                                 /* per thread: its largest change of y in an iteration */
    int team;                                     /* threads of this solve's region (loam_team) */
    int* skind;                                   /* S: how its (15) is solved (CP_SUB_*), one load and one
                                                     switch per subsystem and iteration */
    int nwood;                                    /* subsystems of kind CP_SUB_WOOD */
    double *wy, *vf;                              /* per active slot: the Woodbury solve's y; n: the free
                                                     velocity, before the warm start */
};

/* The calling thread's number in its team and the team's size (0 and 1 outside any region); a
 * solve's region has at most a->team threads (core/threads.h). */
#ifdef _OPENMP
#include <omp.h>
static inline int cp_admm_thread(void) { return omp_get_thread_num(); }
static inline int cp_admm_team(void) { return omp_get_num_threads(); }
#else
static inline int cp_admm_thread(void) { return 0; }
static inline int cp_admm_team(void) { return 1; }
#endif

/* Whether the solve's loops over n independent items are worth a team of several threads. A region
 * costs even on one thread (libgomp makes and frees a team: with a region per loop, five per
 * iteration, that was 5-7% of SubADMM's instructions on the 100-sphere stirring scene, which
 * Gauss-Seidel does not pay), so a solve makes one, for its factorizations and its iteration. */
static inline int cp_admm_parallel(int n, int team) { return n > 64 && team > 1; }

/* J_slot . v, over the slot's segments */
static inline double cp_admm_slot_dot(const cp_problem* p, const cp_admm_work* a, int sl, const double* v) {
    double s = 0.0;
    for (int k = a->slot_sb[sl]; k < a->slot_se[sl]; ++k) {
        const cp_group* g = &p->group[p->seg[k].group];
        const double* j = p->J + p->seg[k].val;
        for (int i = p->seg[k].lo; i < p->seg[k].hi; ++i) s += j[i] * v[g->off + i];
    }
    return s;
}

/* Two doubles, one SSE2 register (GCC and clang vector extensions; lanes are computed as the
 * scalar code would, so the results are the same bits). */
typedef double v2d __attribute__((vector_size(16)));
static inline v2d ld2(const double* p) {
    v2d r;
    memcpy(&r, p, sizeof r);
    return r;
}
static inline void st2(double* p, v2d x) { memcpy(p, &x, sizeof x); }

/* (15) for every subsystem with active slots: v (small ones in place in p->v) and x. A worksharing
 * loop, called by every thread of the solve's team (cp_solve_admm's iteration, a team of one when
 * not parallel); it ends with a barrier. */
void cp_admm_solve_all(cp_problem* p, cp_admm_work* a, int nsub);
/* The velocities of the Woodbury subsystems from their last y (the iteration needs only their x). */
void cp_admm_wood_velocities(cp_problem* p, cp_admm_work* a, int nsub);
/* (16)-(21) for every block of the sorted lists (cp_admm_sort_blocks), as worksharing loops without
 * a barrier at the end; returns the largest change of a y over the calling thread's blocks if
 * `track` (the stopping rule), else 0. */
double cp_admm_project_all(cp_problem* p, cp_admm_work* a, int track);
/* Each block's over-relaxation (a->ab): 1 for equalities, alpha_r for contact and unilateral blocks
 * whose subsystems are all small (rigid bodies, short arms), alpha_c for the other contact and
 * unilateral blocks; then the blocks sorted by the projection they take. */
void cp_admm_sort_blocks(const cp_problem* p, cp_admm_work* a, double alpha_c, double alpha_r);
/* Every active slot's coefficient beta z - u from the state (z, u); cp_admm_refresh_sub for one
 * subsystem's slots. */
void cp_admm_refresh_coef(const cp_problem* p, cp_admm_work* a);
void cp_admm_refresh_sub(cp_admm_work* a, int s);

#endif
