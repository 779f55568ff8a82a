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
    int nv = m->nv;
    double* H = s->mass_matrix;
    memset(H, 0, sizeof(double) * (size_t)nv * (size_t)nv);
    for (int i = 0; i < m->nbody; ++i) w->Ic[i] = w->I[i];
    for (int i = m->nbody - 1; i >= 0; --i) {
        int p = m->body[i].parent;
        if (p >= 0) {
            sinertia t = si_to_parent(&w->X[i], &w->Ic[i]);
            w->Ic[p] = si_add(&w->Ic[p], &t);
        }
    }
    for (int i = 0; i < m->nbody; ++i) {
        int ni = loam_joint_nv(m->body[i].joint);
        for (int k = 0; k < ni; ++k) {
            int row = m->v_adr[i] + k;
            sv6 F = si_apply(&w->Ic[i], w->S[6 * i + k]);
            for (int k2 = 0; k2 < ni; ++k2) H[row * nv + m->v_adr[i] + k2] = sv6_dot(w->S[6 * i + k2], F);
            for (int j = i; m->body[j].parent >= 0;) {
                F = sx_transpose_force(&w->X[j], F);
                j = m->body[j].parent;
                int nj = loam_joint_nv(m->body[j].joint);
                for (int k2 = 0; k2 < nj; ++k2) {
                    int col = m->v_adr[j] + k2;
                    H[row * nv + col] = H[col * nv + row] = sv6_dot(w->S[6 * j + k2], F);
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
    int nv = m->nv;
    mb_crba(m, s);
    mb_rnea(m, s, NULL, w->bias);
    memcpy(w->A, s->mass_matrix, sizeof(double) * (size_t)nv * (size_t)nv);
    int bad = dense_cholesky(w->A, nv);
    if (bad >= 0)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': the mass matrix is singular at dof %d (a massless moving body?)",
                              m->body[m->dof_body[bad]].name, bad);
    for (int k = 0; k < nv; ++k) qdd[k] = s->tau[k] - w->bias[k];
    dense_cholesky_solve(w->A, nv, qdd);
    return LOAM_OK;
}
