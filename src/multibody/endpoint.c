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
#include "core/vecd.h"
#include "multibody/fem.h"
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

/* FEM nodes as contact endpoints (index = piece, sub = node; the point p is the node itself and is
 * not read). The piece's unknowns are its nodal velocities with the step's system A = M (1 + h
 * alpha) + (h^2 + h beta) K(R) (multibody/fem.h), so an impulse F on node i changes them by
 * A^-1 e_i F, through the piece's banded factor; W along n is n^T (A^-1)_ii n. The factor must be
 * current: mb_fem_prepare (every loam_mb_step calls it) leaves it for the state's pose. A fixed
 * (clamped) node is immovable: it takes impulses without moving anything, W = 0 (as the step's rows
 * treat it: no group). Out of memory gives NaN, as for bodies. */
static int fem_fixed(const mb_system* sys, loam_endpoint e) { return mb_fem_priv(&sys->model->fem[e.index])->fixed[e.sub]; }

/* x (3 nnode, allocated here) = A^-1 e_node d over piece e.index; NULL when out of memory. */
static double* fem_response(const mb_system* sys, loam_endpoint e, const double d[3]) {
    const loam_mb_fem* f = &sys->model->fem[e.index];
    const mb_work* w = sys->state->work;
    int n = 3 * f->def.nnode, bw = mb_fem_bandwidth(f);
    double* x = loam_calloc((size_t)n, sizeof(double));
    if (!x) return NULL;
    for (int k = 0; k < 3; ++k) x[3 * e.sub + k] = d[k];
    dense_cholesky_band_solve(w->fem_A + w->fem_aoff[e.index], n, bw, 2 * bw + 1, x);
    return x;
}

static void fem_velocity(const void* owner, loam_endpoint e, const double p[3], double v[3]) {
    const mb_system* sys = owner;
    (void)p;
    const double* fv = sys->state->fem_v + 3 * ((size_t)sys->model->fem[e.index].node_adr + (size_t)e.sub);
    for (int k = 0; k < 3; ++k) v[k] = fv[k];
}

static void fem_apply(void* owner, loam_endpoint e, const double p[3], const double impulse[3]) {
    mb_system* sys = owner;
    (void)p;
    if (fem_fixed(sys, e)) return;
    const loam_mb_fem* f = &sys->model->fem[e.index];
    const unsigned char* fixed = mb_fem_priv(f)->fixed;
    double* x = fem_response(sys, e, impulse);
    double* fv = sys->state->fem_v + 3 * (size_t)f->node_adr;
    for (int i = 0; i < f->def.nnode; ++i)
        for (int k = 0; k < 3; ++k)
            if (!fixed[i]) fv[3 * i + k] += x ? x[3 * i + k] : NAN; /* the clamp keeps its zero velocity */
    loam_free(x);
}

static double fem_delassus(const void* owner, loam_endpoint e, const double p[3], const double n[3]) {
    const mb_system* sys = owner;
    (void)p;
    if (fem_fixed(sys, e)) return 0.0;
    double* x = fem_response(sys, e, n);
    double W = x ? n[0] * x[3 * e.sub] + n[1] * x[3 * e.sub + 1] + n[2] * x[3 * e.sub + 2] : NAN;
    loam_free(x);
    return W;
}

const loam_endpoint_ops loam_fem_node_endpoint_ops = {LOAM_ENDPOINT_FEM_NODE, fem_velocity, fem_apply, fem_delassus};

void mb_world_columns(const loam_mb_model* m, loam_mb_state* s) {
    mb_work* w = s->work;
    for (int j = 0; j < m->nbody; ++j)
        for (int k = 0; k < loam_joint_nv(m->body[j].joint); ++k) {
            const sv6* c = &w->S[6 * j + k];
            w->Sw[6 * j + k].ang = qd_rotate(s->xpose[j].q, c->ang);
            w->Sw[6 * j + k].lin = qd_rotate(s->xpose[j].q, c->lin);
        }
}

/* A body's rows: per dof of its path to the root, mb_dof_column (with the step's rotated columns
 * Sw) along each direction; a free dof's value goes to its place in the tree's segment, a
 * prescribed one's times its known velocity (the step's x) to the offset. The directions and the
 * row pointers are copied to locals first (a store into a segment could otherwise alias them, and
 * they were reloaded per dof), and a contact's case (3 linear rows) has its own instance with
 * those constants: assembly is a visible share of a many-sphere step. */
static inline __attribute__((always_inline)) void body_jacobian_rows(const mb_system* sys, int body, const double p[3], const loam_endpoint_rows* rows,
                                                            int n, int angular) {
    const loam_mb_model* m = sys->model;
    const loam_mb_state* s = sys->state;
    const mb_work* w = s->work;
    loam_vec3d pt = {p[0], p[1], p[2]}, dir[3];
    double *seg[3], *off[3], sign = rows->sign;
    for (int q = 0; q < n; ++q) dir[q] = rows->dir[q], seg[q] = rows->seg[q], off[q] = rows->offset[q];
    for (int j = body; j >= 0; j = m->body[j].parent)
        for (int k = 0; k < loam_joint_nv(m->body[j].joint); ++k) {
            const sv6* c = &w->Sw[6 * j + k];
            loam_vec3d ang = c->ang, lin = d3_add(c->lin, d3_cross(ang, d3_sub(pt, s->xpose[j].p)));
            int d = m->v_adr[j] + k, f = w->free_dof[d];
            if (f >= 0) {
                int at = f - w->gfree_off[m->body_tree[j]];
                for (int q = 0; q < n; ++q) seg[q][at] += sign * d3_dot(dir[q], angular ? ang : lin);
            } else
                for (int q = 0; q < n; ++q) *off[q] += sign * d3_dot(dir[q], angular ? ang : lin) * w->x[d]; /* a prescribed dof's known velocity */
        }
}

static void body_jacobian(const void* owner, loam_endpoint e, const double p[3], const loam_endpoint_rows* rows) {
    if (rows->n == 3 && !rows->angular) body_jacobian_rows(owner, e.index, p, rows, 3, 0); /* a contact */
    else body_jacobian_rows(owner, e.index, p, rows, rows->n, rows->angular);
}

/* An FEM node's rows: its 3 unknowns, the direction itself; a clamped node has none (velocity 0). */
static void fem_jacobian(const void* owner, loam_endpoint e, const double p[3], const loam_endpoint_rows* rows) {
    (void)p;
    if (fem_fixed(owner, e)) return;
    for (int q = 0; q < rows->n; ++q) {
        const loam_vec3d* d = &rows->dir[q];
        double* seg = rows->seg[q] + 3 * (size_t)e.sub;
        seg[0] += rows->sign * d->x, seg[1] += rows->sign * d->y, seg[2] += rows->sign * d->z;
    }
}

const loam_endpoint_jacobian_fn mb_endpoint_jacobian[LOAM_ENDPOINT_KIND_COUNT] = {
    [LOAM_ENDPOINT_WORLD] = loam_world_endpoint_jacobian,
    [LOAM_ENDPOINT_PARTICLE] = loam_world_endpoint_jacobian, /* not a multibody kind: adds nothing */
    [LOAM_ENDPOINT_BODY] = body_jacobian,
    [LOAM_ENDPOINT_SOFT_MASS] = loam_world_endpoint_jacobian,
    [LOAM_ENDPOINT_FEM_NODE] = fem_jacobian,
    [LOAM_ENDPOINT_MPM_NODE] = loam_world_endpoint_jacobian,
    [LOAM_ENDPOINT_TERRAIN_FOOT] = loam_world_endpoint_jacobian,
};
