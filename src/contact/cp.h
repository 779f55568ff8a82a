/* A constraint problem in velocity form, the one interface every multibody solver works on:
 *
 *   v = v_free + A^-1 J^T lambda,   w = J v + e,
 *
 * with A the step's SPD system matrix, block diagonal over groups (the subsystems: trees of bodies),
 * and per block of rows one of the kinds of kinds.h (each kind's projection, diagonal and error in
 * one place there):
 * UNILATERAL  w >= 0, lambda >= 0, w lambda = 0          (joint limits, one-sided hard constraints)
 * EQUALITY    w + c lambda = 0, lambda free               (bilateral hard constraints; soft with c > 0)
 * CONTACT     3 rows (normal, two tangents): Signorini on the normal, Coulomb disk |lambda_t| <= mu
 *             lambda_n, and maximal dissipation (sliding opposes the tangential velocity).
 * A problem with a reserved kind (kinds.h) is refused: every solver returns CP_UNSUPPORTED_KIND.
 * A row is stored as segments, one per group it touches, each a dense piece over that group's
 * unknowns; so every operation costs what the rows touch, not the system size.
 * Units: v and w in the dofs' velocity units (m/s, rad/s), lambda in impulse units (N s, N m s).
 * Private: the solvers of paper 004. */
#ifndef LOAM_CONTACT_CP_H
#define LOAM_CONTACT_CP_H

#include <stddef.h>

#include "contact/cone.h"
#include "contact/kinds.h"
#include "core/dense.h"

/* How a group stores its matrix A:
 * DENSE       A and L n x n row-major (a tree of bodies);
 * BANDED      A and L band-stored whole (core/dense.h, ld = 2 bw + 1; an FEM piece);
 * DIAGONAL    A its n diagonal entries, L unused (a lumped mass: particles, soft masses, MPM nodes);
 * MATRIX_FREE A and L unused: solve(ctx, n, x) applies A^-1 in place (an owner that keeps its own
 *             factor or iterates; SubADMM's threads may call it for different groups at once).
 * PGS, PJ and the nonsmooth Newton take all four (they use A^-1 J^T only, from cp_prepare); so do
 * SubADMM and full ADMM: a subsystem of DENSE and BANDED groups is built from A, one holding a
 * DIAGONAL or MATRIX_FREE group is solved through A^-1 alone (the Woodbury form, admm.c). */
/* (In this order: SubADMM's setup tests storage >= CP_DIAGONAL for the two it solves through A^-1.) */
typedef enum cp_storage { CP_DENSE = 0, CP_BANDED, CP_DIAGONAL, CP_MATRIX_FREE } cp_storage;

typedef struct cp_group {
    int off, n;       /* its unknowns: v[off .. off + n) */
    const double* A;  /* as `storage` says */
    const double* L;  /* DENSE, BANDED: its lower Cholesky factor (core/dense.h), stored as A is */
    int bw;           /* BANDED: the half bandwidth (> 0); 0 otherwise */
    cp_storage storage;
    void (*solve)(const void* ctx, int n, double* x); /* MATRIX_FREE: x = A^-1 x */
    const void* ctx;
} cp_group;

/* Row r of a group's matrix m (its A or its L), so that its [c] is entry (r, c), for DENSE and
 * BANDED storage (banded groups: core/dense.h, the whole band). */
static inline const double* cp_group_row(const cp_group* g, const double* m, int r) {
    return g->bw > 0 ? dense_band_row_c(m, g->bw, 2 * g->bw + 1, r) : m + (size_t)r * (size_t)g->n;
}

/* x = A_g^-1 x, as g stores A (banded: O(n bw); MATRIX_FREE: its callback). */
void cp_group_solve(const cp_group* g, double* x);

enum { CP_UNSUPPORTED_STORAGE = -3 };

typedef struct cp_seg {
    int group;
    size_t val;       /* J values at J[val .. val + n_group), and A^-1 J^T likewise in AJ */
    int lo, hi;       /* its nonzeros lie in [lo, hi) of the group's unknowns (cp_seg_ranges): a
                         contact on an FEM piece touches 3 of its hundreds of unknowns */
} cp_seg;

/* Each segment's lo and hi from its J values (lo = hi = 0 for an all-zero one); once per problem,
 * before a solver runs. */
void cp_seg_ranges(cp_seg* seg, int nseg, const cp_group* group, const double* J);

typedef struct cp_problem {
    int n;                  /* unknowns */
    int ngroup;
    const cp_group* group;
    double* v;              /* n: in, the free velocity; out, the constrained one */
    int m;                  /* rows */
    const int* row_seg;     /* m + 1: row r's segments are seg[row_seg[r] .. row_seg[r + 1]) */
    const cp_seg* seg;
    const double* J;
    double* AJ;             /* filled by cp_prepare */
    const double* e;        /* m */
    double* lambda;         /* m: in, a warm start (or zeros); out, the impulses */
    int nblock;
    const cp_block* block;  /* a contact block's three rows have the same groups */
    double* diag;           /* m: W_rr = J_r A^-1 J_r^T, filled by cp_prepare */
    void* pgs_scratch;      /* optional: cp_pgs_scratch_bytes(nblock, m) bytes that cp_solve_pgs may use,
                               so a steady-state step allocates nothing; NULL: it allocates its own */
} cp_problem;

typedef struct cp_result {
    int iterations; /* -1: the solver could not allocate or factorize; CP_UNSUPPORTED_KIND (-2): a block
                       of a reserved kind (kinds.h); CP_UNSUPPORTED_STORAGE (-3): a group whose
                       storage the solver does not take (cp_storage; every solver takes all four
                       today, the code stays for storages to come) */
    double error;   /* cp_error at the end */
} cp_result;

/* AJ and diag from J and the factors; then v += A^-1 J^T lambda for the warm start. Every solver
 * but SubADMM needs it before its call. */
void cp_prepare(cp_problem* p);
/* What SubADMM needs of cp_prepare, without A^-1 J^T (it applies no single rows): diag, each
 * segment's share of it in segd (row_seg[m] values), and the warm start; AJ is left as scratch.
 * t: n doubles of scratch. cp_solve_admm calls it itself. */
void cp_prepare_diag(cp_problem* p, double* segd, double* t);
/* The row velocity J_r v + e_r. Inline, with the 6-unknown segment (a free rigid body: the spheres
 * of the stirring and sphere scenes) as its own case so the compiler unrolls it: these two were
 * half of a stirring step's instructions (callgrind). */
static inline double cp_row_velocity(const cp_problem* p, int r) {
    double w = p->e[r];
    for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
        const cp_seg* sg = &p->seg[k];
        const cp_group* g = &p->group[sg->group];
        const double *j = p->J + sg->val, *v = p->v + g->off;
        if (g->n == 6)
            for (int i = 0; i < 6; ++i) w += j[i] * v[i];
        else
            for (int i = sg->lo; i < sg->hi; ++i) w += j[i] * v[i];
    }
    return w;
}
/* v += A^-1 J_r^T d. */
static inline void cp_apply(cp_problem* p, int r, double d) {
    for (int k = p->row_seg[r]; k < p->row_seg[r + 1]; ++k) {
        const cp_group* g = &p->group[p->seg[k].group];
        const double* a = p->AJ + p->seg[k].val;
        double* v = p->v + g->off;
        if (g->n == 6)
            for (int i = 0; i < 6; ++i) v[i] += a[i] * d;
        else
            for (int i = 0; i < g->n; ++i) v[i] += a[i] * d;
    }
}
/* The constraint error (m/s): the largest of the blocks' cp_kind_error (kinds.h: the
 * Fischer-Burmeister function of (w, W_rr lambda) for unilateral rows and contact normals,
 * |w + c lambda| for equalities, and for friction the natural-map residual with the tangents' one
 * scalar, so that zero means maximal dissipation). */
double cp_error(const cp_problem* p);

/* Projected Gauss-Seidel: sweeps over the blocks in order, the normal solved with its diagonal, the
 * tangent pair with one scalar and projected onto the friction disk; stops after `iterations` sweeps
 * or when no impulse change moves a row velocity by more than `tolerance` (m/s). cg: accelerated by
 * the nonsmooth nonlinear conjugate gradient method (pgs.c). Iterations -1: out of memory. */
cp_result cp_solve_pgs(cp_problem* p, int iterations, double tolerance, int cg);
/* The scratch cp_solve_pgs may use (pgs_scratch) for nblock blocks and, with cg, m rows. */
size_t cp_pgs_scratch_bytes(int nblock, int m);

/* Projected Jacobi: every block's update from the same v, then all applied, scaled by `relaxation`
 * (in (0, 1]; plain Jacobi overshoots where blocks share a body). Same stopping rule as PGS. */
cp_result cp_solve_pj(cp_problem* p, int iterations, double tolerance, double relaxation);

/* ADMM over subsystems (paper 004, Algorithm 1): per subsystem a reduced solve with
 * A_s + beta_s J_s^T J_s, factorized once (small subsystems: inverted; one holding a DIAGONAL or
 * MATRIX_FREE group: through the Woodbury identity, a Cholesky of its rows' B^-1 + J A^-1 J^T), then a closed-form projection
 * per constraint block with the scalar Delassus W_c = sum 1/beta_s (exact Coulomb for contacts);
 * beta_s = beta_scale tr(A_s) / ||J_s||_F^2 (with an FEM piece, a banded group: rank / tr(J_s A_s^-1 J_s^T),
 * admm.c), with `adapt` times a per-subsystem factor set by residual
 * balancing (see admm.c) that persists in the work. Subsystems are runs of consecutive groups:
 * sub_of_group[g] in 0..nsub-1, nondecreasing (all zeros: the full-system ADMM baseline, a dense
 * solve). With fold_soft, soft equality rows inside one subsystem are folded into it (Remark 1).
 * Stops when the largest change of the per-subsystem constraint velocities y is at most `tolerance`
 * (m/s). `work`: persistent scratch, *work NULL the first time (made here, freed with
 * cp_admm_work_free); work NULL: scratch for this call only. */
typedef struct cp_admm_work cp_admm_work;
typedef struct cp_admm_settings {
    double beta_scale; /* > 0 */
    int fold_soft;     /* 0 or 1 */
    int adapt;         /* 0: the balanced penalty as is; 1: residual balancing on top */
    double relaxation; /* in (0, 2): over-relaxation of x in the contact and unilateral projections; 1 = none */
    int accel;         /* CP_ACCEL_* of admm_accel.h: 0 none, 1 Nesterov with restart, 2 Anderson,
                          -1 Anderson when a group is an FEM piece (banded), else none */
    double relaxation_rigid; /* in (0, 2): relaxation instead for contact and unilateral blocks whose
                                subsystems all have at most CP_ADMM_SMALL (12) unknowns */
    double penalty_rigid;    /* > 0: a subsystem of at most CP_ADMM_SMALL unknowns weighs each of its
                                contact and unilateral rows by penalty_rigid / d, d that row's
                                J A_s^-1 J^T (admm.c, slot_share); 0: by its beta_s, the paper's rule */
    int threads;             /* of the solve's region, 0 = the default (core/threads.h) */
} cp_admm_settings;
/* p comes unprepared (not through cp_prepare): SubADMM makes its own diag and warm start. */
cp_result cp_solve_admm(cp_problem* p, int iterations, double tolerance, const int* sub_of_group, int nsub, const cp_admm_settings* set,
                        cp_admm_work** work);
void cp_admm_work_free(cp_admm_work* work);
/* Copy the adapted per-subsystem penalty factors of src into *dst (made if NULL), so that a copied
 * state solves exactly as its source would; the rest of the scratch is rebuilt every call. 0: out of
 * memory. */
int cp_admm_work_copy_penalty(cp_admm_work** dst, const cp_admm_work* src);

/* Nonsmooth Newton on the Alart-Curnier equations of the impulses (see nnewton.c), with the dense
 * Delassus matrix; stops when |F| <= tolerance. */
cp_result cp_solve_nnewton(cp_problem* p, int iterations, double tolerance);

#endif
