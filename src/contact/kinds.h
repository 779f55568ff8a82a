/* The constraint kinds of the contact problem (cp.h), each defined in exactly one place: its rows,
 * its diagonal (the per-row scalars a solver divides a row velocity by), its projection (what it
 * makes of the unconstrained update) and its error measure (cp_error's term). Every solver (PGS,
 * PJ, SubADMM and full ADMM, nonsmooth Newton) and cp_error call these instead of switching on the
 * kind themselves, so a new kind is one entry here and one in kinds.c.
 *
 * The update convention. A solver that holds a block's impulses lambda and row velocities w, with
 * metric D (per row: a Delassus diagonal for PGS and PJ, SubADMM's W = sum 1/beta), forms the hard
 * unconstrained update x_q = lambda_q - w_q / D_q (SubADMM: x = -w~ / W, its lambda being 0 in the
 * split form), and the kind's projection takes x to the kind's set in that metric:
 *   EQUALITY    x D / (D + c): w + c lambda = 0 solved in the metric (c = 0: x itself, a free impulse;
 *               c > 0: a soft constraint, the proximal step of its compliance energy),
 *   UNILATERAL  max(x, 0),
 *   CONTACT     the normal max(x_n, 0), the tangent pair scaled radially onto the disk of radius mu
 *               lambda_n (contact/cone.h: maximal dissipation), with ONE metric scalar for both
 *               tangents (cp_kind_diag) so that the fixed point is exactly maximal dissipation.
 * The hot paths (PGS's sweep, SubADMM's projection kernels) inline all of this: keep it static
 * inline here.
 *
 * Reserved (enum values with their meaning fixed, not implemented: cp_kinds_check rejects a problem
 * that uses them, and every solver returns CP_UNSUPPORTED_KIND for it):
 *   SAP_CONE       SAP's regularised cone (issue 27): a contact whose impulse is the analytic
 *                  minimiser of a convex regularised cone energy (Castro et al.), 3 rows;
 *   WRENCH_POLYTOPE a polyhedral wrench-space constraint A w <= b (issue 28): a learned foot's
 *                  admissible wrenches, 6 rows (force and torque) with its own row data.
 * Private. */
#ifndef LOAM_CONTACT_KINDS_H
#define LOAM_CONTACT_KINDS_H

#include <math.h>

#include "contact/cone.h"

typedef enum cp_kind {
    CP_UNILATERAL = 0,   /* 1 row: w >= 0, lambda >= 0, w lambda = 0 (joint limits, one-sided) */
    CP_EQUALITY,         /* 1 row: w + c lambda = 0, lambda free (c = compliance >= 0) */
    CP_CONTACT,          /* 3 rows: normal (Signorini) and two tangents (isotropic Coulomb disk) */
    CP_SAP_CONE,         /* reserved: SAP's regularised cone (issue 27) */
    CP_WRENCH_POLYTOPE,  /* reserved: A w <= b in wrench space (issue 28) */
    CP_KIND_COUNT
} cp_kind;

typedef struct cp_block {
    int row;           /* first row */
    cp_kind kind;
    double mu;         /* CONTACT: friction coefficient */
    double compliance; /* EQUALITY: c >= 0, the row asks w + c lambda = 0 (c > 0: a soft constraint,
                          lambda = -(w) / c at rest: a spring-damper; see multibody/constraints.c) */
} cp_block;

/* A solver's result for a problem with a reserved kind (cp_result.iterations). */
enum { CP_UNSUPPORTED_KIND = -2 };

/* The kind's name ("unilateral", "equality", "contact", "sap_cone", "wrench_polytope"). */
const char* cp_kind_name(cp_kind kind);
/* Whether the solvers implement the kind (the reserved ones: not yet). */
int cp_kind_supported(cp_kind kind);
/* The first block whose kind no solver implements (or that is out of range), or -1: every solver
 * calls it first and gives up with CP_UNSUPPORTED_KIND. */
int cp_kinds_check(const struct cp_block* block, int nblock);

/* Rows of a block of this kind. */
static inline int cp_kind_rows(cp_kind kind) { return kind == CP_CONTACT ? 3 : 1; }

/* ---- UNILATERAL: one row, lambda >= 0 ---- */
static inline double cp_unilateral_project(double x) { return x > 0.0 ? x : 0.0; }

/* ---- EQUALITY: one row, w + c lambda = 0 ---- */
/* x the hard update in metric d: the soft step x d / (d + c) (exact x for a hard row, and where the
 * metric is not positive: a row that moves nothing, whose x a solver left as it was). */
static inline double cp_equality_project(const cp_block* k, double d, double x) {
    return k->compliance > 0.0 && d > 0.0 ? x * d / (d + k->compliance) : x;
}

/* ---- CONTACT: three rows, the normal and the tangent pair ---- */
/* The tangent pair's one metric scalar from the two tangents' diagonals: the larger. With two
 * different ones the projected fixed point would make the slip anti-parallel to D lambda_t, not to
 * lambda_t (not maximal dissipation). */
static inline double cp_contact_tangent_diag(double d1, double d2) { return d1 > d2 ? d1 : d2; }
/* The tangent pair t onto the disk of radius mu ln (ln >= 0, the block's projected normal). */
static inline void cp_contact_project_tangents(const cp_block* k, double ln, double t[2]) {
    double s = loam_disk_scale_d(t[0] * t[0] + t[1] * t[1], k->mu * ln);
    t[0] *= s, t[1] *= s;
}
/* The whole block: (normal, tangent, tangent) onto the cone (contact/cone.h's disk projection). */
static inline void cp_contact_project(const cp_block* k, const double x[3], double l[3]) { loam_cone_project_d(k->mu, x, l); }

/* ---- the kinds together ---- */
/* The block's per-row metric from its rows' Delassus diagonals d (PGS and PJ): the diagonal itself,
 * the contact's tangents sharing their larger one. */
static inline void cp_kind_diag(const cp_block* k, const double* d, double D[3]) {
    D[0] = d[0];
    if (k->kind == CP_CONTACT) D[1] = D[2] = cp_contact_tangent_diag(d[1], d[2]);
}

/* The block's first row alone (a Gauss-Seidel sweep updates and applies it before the others): a
 * unilateral row's or a contact normal's max(x, 0), an equality's soft step in metric d. */
static inline double cp_kind_project_lead(const cp_block* k, double d, double x) {
    return k->kind == CP_EQUALITY ? cp_equality_project(k, d, x) : cp_unilateral_project(x);
}

/* The whole block: x (cp_kind_rows values, the hard updates in metric D) to l (l may be x). */
static inline void cp_kind_project(const cp_block* k, const double* D, const double* x, double* l) {
    switch (k->kind) {
    case CP_EQUALITY: l[0] = cp_equality_project(k, D[0], x[0]); break;
    case CP_CONTACT: cp_contact_project(k, x, l); break;
    default: l[0] = cp_unilateral_project(x[0]); break;
    }
}

/* The Fischer-Burmeister function: zero exactly when a >= 0, b >= 0, a b = 0. */
static inline double cp_fb(double a, double b) { return a + b - sqrt(a * a + b * b); }

/* The block's error (m/s) from its row velocities w, impulses l and Delassus diagonals d: an
 * equality's |w + c lambda|; a unilateral row's or a contact normal's |FB(w, d lambda)|; for
 * friction the natural-map residual |lambda_t - proj_disk(lambda_t - w_t / D)| D with D the
 * tangents' one scalar (1 if it is not positive), zero exactly at maximal dissipation. */
static inline double cp_kind_error(const cp_block* k, const double* w, const double* l, const double* d) {
    if (k->kind == CP_EQUALITY) return fabs(w[0] + k->compliance * l[0]);
    double err = fabs(cp_fb(w[0], d[0] * l[0]));
    if (k->kind != CP_CONTACT) return err;
    double D = fmax(d[1], d[2]);
    if (!(D > 0.0)) D = 1.0;
    double y[2] = {l[1] - w[1] / D, l[2] - w[2] / D};
    cp_contact_project_tangents(k, fmax(l[0], 0.0), y);
    double dx = (l[1] - y[0]) * D, dy = (l[2] - y[1]) * D;
    return fmax(err, sqrt(dx * dx + dy * dy));
}

/* The nonsmooth Newton's residual for one block (nnewton.c): the Alart-Curnier form of the kind's
 * projection, F = lambda - proj(lambda - rho w) (an equality: rho (w + c lambda)), with, if G is
 * not NULL, an element of its generalized Jacobian in the block's rows of G (m x m, row-major;
 * W the dense Delassus matrix, m its order). rho: the block's 1 / W_nn. Not hot: kinds.c. */
void cp_kind_ac_residual(const cp_block* k, double rho, int m, const double* W, const double* lambda, const double* w, double* F, double* G);

#endif
