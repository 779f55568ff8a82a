/* Multibody bodies as contact endpoints (contact/endpoint.h), free bodies and links of articulated
 * trees alike: the velocity of a material point is J(p) qd, with J the point's 3 x nv linear
 * Jacobian; an impulse F at p changes the tree's dynamic (LOAM_MB_DYNAMIC) velocities by
 * M_ff^-1 J_f^T F, M_ff the tree's mass matrix over those dofs (prescribed dofs keep the velocity
 * the host gave them); and W along n is n^T J_f M_ff^-1 J_f^T n, the apparent inverse inertia of the
 * whole tree at p. The state's poses and mass matrix must be current (loam_mb_kinematics and
 * loam_mb_mass_matrix, which every loam_mb_step leaves so). Owner: an mb_system. This is the
 * reference form, which factors the tree's matrix per call; a solver that sweeps many rows keeps
 * M^-1 J^T per row, as contact/cp.h does. Out of memory gives NaN (W, or the tree's velocities), which
 * the step's divergence check reports, rather than a silently wrong impulse. */
#include <math.h>
#include <string.h>

#include "contact/endpoint.h"
#include "core/dense.h"
#include "multibody/mb_internal.h"

/* The point's 6 x nv Jacobian, and the tree's dynamic dofs with their factored M_ff (nf x nf). */
typedef struct body_rows {
    double* jac;
    int* dofs;
    double* L;
    int nf;
} body_rows;

static void rows_free(body_rows* b) {
    loam_free(b->jac), loam_free(b->dofs), loam_free(b->L);
    memset(b, 0, sizeof *b);
}

/* 0 when out of memory or the matrix is not positive definite. */
static int rows_make(const mb_system* sys, int body, const double p[3], int factor, body_rows* b) {
    const loam_mb_model* m = sys->model;
    int nv = m->nv, t = m->body_tree[body], tn = m->tree_nv[t];
    memset(b, 0, sizeof *b);
    b->jac = loam_ctx_malloc(sys->model->opt.context, sizeof(double) * 6 * (size_t)(nv > 0 ? nv : 1));
    if (!b->jac || loam_mb_jacobian(m, sys->state, body, (loam_vec3d){p[0], p[1], p[2]}, b->jac, NULL) != LOAM_OK) return 0;
    if (!factor) return 1;
    b->dofs = loam_ctx_malloc(sys->model->opt.context, sizeof(int) * (size_t)(tn > 0 ? tn : 1));
    b->L = loam_ctx_malloc(sys->model->opt.context, sizeof(double) * (size_t)(tn > 0 ? tn * tn : 1));
    if (!b->dofs || !b->L) return 0;
    const int* tree = m->tree_dofs + m->tree_dof_adr[t];
    for (int k = 0; k < tn; ++k)
        if (m->body[m->dof_body[tree[k]]].motion == LOAM_MB_DYNAMIC) b->dofs[b->nf++] = tree[k];
    const double* M = sys->state->mass_matrix + m->tree_madr[t];
    for (int a = 0; a < b->nf; ++a)
        for (int c = 0; c < b->nf; ++c) b->L[a * b->nf + c] = M[m->dof_local[b->dofs[a]] * tn + m->dof_local[b->dofs[c]]];
    return b->nf == 0 || dense_cholesky(b->L, b->nf) < 0; /* -1: factored */
}

/* x = M_ff^-1 J_f^T d over the tree's dynamic dofs (x holds nf values). */
static void response(const mb_system* sys, const body_rows* b, const double d[3], double* x) {
    int nv = sys->model->nv;
    for (int a = 0; a < b->nf; ++a) {
        int dof = b->dofs[a];
        x[a] = b->jac[dof] * d[0] + b->jac[nv + dof] * d[1] + b->jac[2 * nv + dof] * d[2];
    }
    if (b->nf > 0) dense_cholesky_solve(b->L, b->nf, x);
}

static void body_velocity(const void* owner, loam_endpoint e, const double p[3], double v[3]) {
    const mb_system* sys = owner;
    body_rows b;
    v[0] = v[1] = v[2] = NAN;
    if (rows_make(sys, e.index, p, 0, &b)) {
        int nv = sys->model->nv;
        for (int k = 0; k < 3; ++k) {
            v[k] = 0.0;
            for (int d = 0; d < nv; ++d) v[k] += b.jac[k * nv + d] * sys->state->qd[d];
        }
    }
    rows_free(&b);
}

static void body_apply(void* owner, loam_endpoint e, const double p[3], const double impulse[3]) {
    mb_system* sys = owner;
    body_rows b;
    int ok = rows_make(sys, e.index, p, 1, &b);
    double* x = ok ? loam_ctx_malloc(sys->model->opt.context, sizeof(double) * (size_t)(b.nf > 0 ? b.nf : 1)) : NULL;
    if (x) {
        response(sys, &b, impulse, x);
        for (int a = 0; a < b.nf; ++a) sys->state->qd[b.dofs[a]] += x[a];
    } else { /* make the failure visible to the divergence check */
        const loam_mb_model* m = sys->model;
        int t = m->body_tree[e.index];
        for (int k = 0; k < m->tree_nv[t]; ++k) sys->state->qd[m->tree_dofs[m->tree_dof_adr[t] + k]] = NAN;
    }
    loam_free(x);
    rows_free(&b);
}

static double body_delassus(const void* owner, loam_endpoint e, const double p[3], const double n[3]) {
    const mb_system* sys = owner;
    body_rows b;
    double W = NAN;
    double* x = rows_make(sys, e.index, p, 1, &b) ? loam_ctx_malloc(sys->model->opt.context, sizeof(double) * (size_t)(b.nf > 0 ? b.nf : 1)) : NULL;
    if (x) {
        response(sys, &b, n, x);
        int nv = sys->model->nv;
        W = 0.0;
        for (int a = 0; a < b.nf; ++a) {
            int dof = b.dofs[a];
            W += (b.jac[dof] * n[0] + b.jac[nv + dof] * n[1] + b.jac[2 * nv + dof] * n[2]) * x[a];
        }
    }
    loam_free(x);
    rows_free(&b);
    return W;
}

const loam_endpoint_ops loam_body_endpoint_ops = {LOAM_ENDPOINT_BODY, body_velocity, body_apply, body_delassus};
