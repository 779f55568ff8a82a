/* Forward kinematics, body twists, Jacobians, energy and momentum. See loam/multibody.h. */
#include <math.h>
#include <string.h>

#include "multibody/mb_internal.h"

loam_posed mb_joint_motion(loam_joint_type type, loam_vec3d axis, const double* q) {
    loam_posed m = pd_identity();
    switch (type) {
    case LOAM_JOINT_REVOLUTE: m.q = qd_from_axis_angle(axis, q[0]); break;
    case LOAM_JOINT_PRISMATIC: m.p = d3_scale(axis, q[0]); break;
    case LOAM_JOINT_FLOATING: m.p = d3(q[0], q[1], q[2]); m.q = qd_make(q[3], q[4], q[5], q[6]); break;
    case LOAM_JOINT_FIXED: break;
    }
    return m;
}

void mb_kinematics(const loam_mb_model* m, loam_mb_state* s) {
    mb_work* w = s->work;
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        const double* q = s->q + m->q_adr[i];
        const double* qd = s->qd + m->v_adr[i];
        loam_posed jm = mb_joint_motion(b->joint, b->axis, q);
        loam_posed rel = pd_mul(b->placement, jm);
        mat3d R = qd_to_mat(rel.q);
        w->X[i].E = m3_transpose(&R);
        w->X[i].r = rel.p;
        sv6* S = w->S + 6 * i;
        w->cJ[i] = sv6_zero();
        sv6 vJ = sv6_zero();
        if (b->joint == LOAM_JOINT_REVOLUTE) {
            S[0] = sv6_make(b->axis, d3(0, 0, 0));
            vJ = sv6_scale(S[0], qd[0]);
        } else if (b->joint == LOAM_JOINT_PRISMATIC) {
            S[0] = sv6_make(d3(0, 0, 0), b->axis);
            vJ = sv6_scale(S[0], qd[0]);
        } else if (b->joint == LOAM_JOINT_FLOATING) {
            /* qd is (v, w) in the joint frame's axes; the body's axes are those turned by jm.q. */
            mat3d Rq = qd_to_mat(jm.q);
            for (int k = 0; k < 3; ++k) {
                loam_vec3d row = d3(Rq.m[k][0], Rq.m[k][1], Rq.m[k][2]); /* Rq^T e_k */
                S[k] = sv6_make(d3(0, 0, 0), row);
                S[3 + k] = sv6_make(row, d3(0, 0, 0));
            }
            for (int k = 0; k < 6; ++k) vJ = sv6_add(vJ, sv6_scale(S[k], qd[k]));
            /* d/dt (Rq^T) = -[w_b]x Rq^T: the columns turn with the body. */
            w->cJ[i] = sv6_make(d3(0, 0, 0), d3_neg(d3_cross(vJ.ang, vJ.lin)));
        }
        sv6 vp = b->parent < 0 ? sv6_zero() : w->v[b->parent];
        w->v[i] = sv6_add(sx_apply_motion(&w->X[i], vp), vJ);
        s->xpose[i] = b->parent < 0 ? rel : pd_mul(s->xpose[b->parent], rel);
        s->xpose[i].q = qd_normalize(s->xpose[i].q);
        loam_vec3d vw = qd_rotate(s->xpose[i].q, w->v[i].lin), ww = qd_rotate(s->xpose[i].q, w->v[i].ang);
        d3_store(s->xvel + 6 * i, vw);
        d3_store(s->xvel + 6 * i + 3, ww);
    }
}

static loam_status check_finite(const loam_mb_model* m, const loam_mb_state* s, loam_error* err) {
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        for (int k = 0; k < loam_joint_nq(b->joint); ++k)
            if (!isfinite(s->q[m->q_adr[i] + k]))
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': q[%d] = %g is not finite", b->name, m->q_adr[i] + k,
                                      s->q[m->q_adr[i] + k]);
        for (int k = 0; k < loam_joint_nv(b->joint); ++k)
            if (!isfinite(s->qd[m->v_adr[i] + k]))
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': qd[%d] = %g is not finite", b->name,
                                      m->v_adr[i] + k, s->qd[m->v_adr[i] + k]);
        if (b->joint == LOAM_JOINT_FLOATING) {
            double* q = s->q + m->q_adr[i] + 3;
            double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(n > 1e-9))
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': floating joint quaternion is zero", b->name);
            for (int k = 0; k < 4; ++k) q[k] /= n;
        }
    }
    return LOAM_OK;
}

loam_status loam_mb_kinematics(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    if (!m || !s || s->nv != m->nv || s->nq != m->nq) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: null or mismatched model/state");
    loam_status st = check_finite(m, s, err);
    if (st != LOAM_OK) return st;
    mb_kinematics(m, s);
    return LOAM_OK;
}

loam_status loam_mb_jacobian(const loam_mb_model* m, const loam_mb_state* s, int body, loam_vec3d point, double* jac, loam_error* err) {
    if (!m || !s || !jac) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: jacobian: null model, state or output");
    if (body < 0 || body >= m->nbody)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: jacobian: body %d, expected 0 to %d", body, m->nbody - 1);
    if (!d3_is_finite(point)) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: jacobian: point is not finite");
    int nv = m->nv;
    memset(jac, 0, sizeof(double) * 6 * (size_t)nv);
    for (int j = body; j >= 0; j = m->body[j].parent) {
        int n = loam_joint_nv(m->body[j].joint);
        for (int k = 0; k < n; ++k) {
            loam_vec3d lin, om;
            mb_dof_column(s, j, k, point, &lin, &om);
            int col = m->v_adr[j] + k;
            for (int r = 0; r < 3; ++r) {
                jac[r * nv + col] = d3_get(lin, r);
                jac[(3 + r) * nv + col] = d3_get(om, r);
            }
        }
    }
    return LOAM_OK;
}

void loam_mb_energy(const loam_mb_model* m, const loam_mb_state* s, double* kinetic, double* potential) {
    if (kinetic) *kinetic = 0.0;
    if (potential) *potential = 0.0;
    if (!m || !s || s->nbody != m->nbody) return;
    const mb_work* w = s->work;
    double T = 0.0, U = 0.0;
    for (int i = 0; i < m->nbody; ++i) {
        T += 0.5 * sv6_dot(w->v[i], si_apply(&w->I[i], w->v[i]));
        loam_vec3d c = pd_apply(s->xpose[i], m->body[i].com);
        U -= m->body[i].mass * d3_dot(m->opt.gravity, c);
    }
    if (kinetic) *kinetic = T;
    if (potential) *potential = U;
}

void loam_mb_momentum(const loam_mb_model* m, const loam_mb_state* s, loam_vec3d* linear, loam_vec3d* angular) {
    if (linear) *linear = d3(0, 0, 0);
    if (angular) *angular = d3(0, 0, 0);
    if (!m || !s || s->nbody != m->nbody) return;
    const mb_work* w = s->work;
    loam_vec3d L = d3(0, 0, 0), P = d3(0, 0, 0);
    for (int i = 0; i < m->nbody; ++i) {
        sv6 h = si_apply(&w->I[i], w->v[i]); /* about the body origin, body axes */
        loam_vec3d p = qd_rotate(s->xpose[i].q, h.lin);
        P = d3_add(P, p);
        L = d3_add(L, d3_add(qd_rotate(s->xpose[i].q, h.ang), d3_cross(s->xpose[i].p, p)));
    }
    if (linear) *linear = P;
    if (angular) *angular = L;
}
