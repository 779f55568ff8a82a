/* Recursive Newton-Euler (inverse dynamics, bias forces) and the composite-rigid-body mass matrix,
 * after Featherstone, "Rigid Body Dynamics Algorithms" (2008), tables 5.1 and 6.2, in body
 * coordinates. See loam/multibody.h. */
#include <string.h>

#include "core/dense.h"
#include "multibody/mb_internal.h"

/* The joint velocity S qd of body i. */
static sv6 joint_velocity(const loam_mb_model* m, const loam_mb_state* s, int i) {
    const mb_work* w = s->work;
    sv6 vJ = sv6_zero();
    int n = loam_joint_nv(m->body[i].joint);
    for (int k = 0; k < n; ++k) vJ = sv6_add(vJ, sv6_scale(w->S[6 * i + k], s->qd[m->v_adr[i] + k]));
    return vJ;
}

void mb_rnea(const loam_mb_model* m, loam_mb_state* s, const double* qdd, double* tau) {
    mb_work* w = s->work;
    /* Gravity as an upward acceleration of the world (Featherstone's trick): no per-body term. */
    sv6 a0 = sv6_make(d3(0, 0, 0), d3_neg(m->opt.gravity));
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        sv6 ap = b->parent < 0 ? a0 : w->a[b->parent];
        sv6 vJ = joint_velocity(m, s, i);
        sv6 a = sv6_add(sx_apply_motion(&w->X[i], ap), sv6_add(w->cJ[i], sv6_cross_m(w->v[i], vJ)));
        if (qdd) {
            int n = loam_joint_nv(b->joint);
            for (int k = 0; k < n; ++k) a = sv6_add(a, sv6_scale(w->S[6 * i + k], qdd[m->v_adr[i] + k]));
        }
        w->a[i] = a;
        sv6 f = sv6_add(si_apply(&w->I[i], a), sv6_cross_f(w->v[i], si_apply(&w->I[i], w->v[i])));
        /* Applied wrench: world force F and torque T at the centre of mass, into body coordinates
         * about the body origin. */
        const double* x = s->xfrc + 6 * i;
        if (x[0] != 0.0 || x[1] != 0.0 || x[2] != 0.0 || x[3] != 0.0 || x[4] != 0.0 || x[5] != 0.0) {
            loam_posed P = s->xpose[i];
            loam_vec3d F = d3_load(x), T = d3_load(x + 3);
            loam_vec3d arm = qd_rotate(P.q, b->com);
            loam_vec3d nw = d3_add(T, d3_cross(arm, F));
            loam_quatd qi = qd_conj(P.q);
            f = sv6_sub(f, sv6_make(qd_rotate(qi, nw), qd_rotate(qi, F)));
        }
        w->f[i] = f;
    }
    for (int i = m->nbody - 1; i >= 0; --i) {
        const loam_mb_body_def* b = &m->body[i];
        int n = loam_joint_nv(b->joint);
        for (int k = 0; k < n; ++k) tau[m->v_adr[i] + k] = sv6_dot(w->S[6 * i + k], w->f[i]);
        if (b->parent >= 0) w->f[b->parent] = sv6_add(w->f[b->parent], sx_transpose_force(&w->X[i], w->f[i]));
    }
}

void mb_crba(const loam_mb_model* m, loam_mb_state* s) {
    mb_work* w = s->work;
    double* H = s->mass_matrix;
    memset(H, 0, sizeof(double) * (size_t)m->nM);
    for (int i = 0; i < m->nbody; ++i) w->Ic[i] = w->I[i];
    for (int i = m->nbody - 1; i >= 0; --i) {
        int p = m->body[i].parent;
        if (p >= 0) {
            sinertia t = si_to_parent(&w->X[i], &w->Ic[i]);
            w->Ic[p] = si_add(&w->Ic[p], &t);
        }
    }
    for (int i = 0; i < m->nbody; ++i) {
        int ni = loam_joint_nv(m->body[i].joint), t = m->body_tree[i], ntv = m->tree_nv[t];
        double* Ht = H + m->tree_madr[t];
        for (int k = 0; k < ni; ++k) {
            int row = m->dof_local[m->v_adr[i] + k];
            sv6 F = si_apply(&w->Ic[i], w->S[6 * i + k]);
            for (int k2 = 0; k2 < ni; ++k2) Ht[row * ntv + m->dof_local[m->v_adr[i] + k2]] = sv6_dot(w->S[6 * i + k2], F);
            for (int j = i; m->body[j].parent >= 0;) {
                F = sx_transpose_force(&w->X[j], F);
                j = m->body[j].parent;
                int nj = loam_joint_nv(m->body[j].joint);
                for (int k2 = 0; k2 < nj; ++k2) {
                    int col = m->dof_local[m->v_adr[j] + k2];
                    Ht[row * ntv + col] = Ht[col * ntv + row] = sv6_dot(w->S[6 * j + k2], F);
                }
            }
        }
    }
}

static loam_status check(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    return loam_mb_kinematics(m, s, err);
}

loam_status loam_mb_mass_matrix(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    loam_status st = check(m, s, err);
    if (st != LOAM_OK) return st;
    mb_crba(m, s);
    return LOAM_OK;
}

loam_status loam_mb_inverse_dynamics(const loam_mb_model* m, loam_mb_state* s, const double* qdd, double* tau, loam_error* err) {
    if (!tau) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: inverse dynamics: null tau");
    loam_status st = check(m, s, err);
    if (st != LOAM_OK) return st;
    mb_rnea(m, s, qdd, tau);
    return LOAM_OK;
}

loam_status loam_mb_forward_dynamics(const loam_mb_model* m, loam_mb_state* s, double* qdd, loam_error* err) {
    if (!qdd) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: forward dynamics: null qdd");
    loam_status st = check(m, s, err);
    if (st != LOAM_OK) return st;
    mb_work* w = s->work;
    mb_crba(m, s);
    mb_rnea(m, s, NULL, w->bias);
    /* One Cholesky per tree: the blocks are independent. */
    for (int t = 0; t < m->ntree; ++t) {
        int n = m->tree_nv[t];
        const int* dofs = m->tree_dofs + m->tree_dof_adr[t];
        memcpy(w->A, s->mass_matrix + m->tree_madr[t], sizeof(double) * (size_t)n * (size_t)n);
        int bad = dense_cholesky(w->A, n);
        if (bad >= 0)
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': the mass matrix is singular at dof %d (a massless moving body?)",
                                  m->body[m->dof_body[dofs[bad]]].name, dofs[bad]);
        for (int k = 0; k < n; ++k) w->tmp[k] = s->tau[dofs[k]] - w->bias[dofs[k]];
        dense_cholesky_solve(w->A, n, w->tmp);
        for (int k = 0; k < n; ++k) qdd[dofs[k]] = w->tmp[k];
    }
    return LOAM_OK;
}

void loam_mb_mass_matrix_dense(const loam_mb_model* m, const loam_mb_state* s, double* out) {
    if (!m || !s || !out) return;
    int nv = m->nv;
    memset(out, 0, sizeof(double) * (size_t)nv * (size_t)nv);
    for (int t = 0; t < m->ntree; ++t) {
        int n = m->tree_nv[t];
        const int* dofs = m->tree_dofs + m->tree_dof_adr[t];
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) out[(size_t)dofs[r] * (size_t)nv + (size_t)dofs[c]] = s->mass_matrix[m->tree_madr[t] + r * n + c];
    }
}
