/* One multibody step: semi-implicit Euler in generalized coordinates,
 *   (M + h (D + Kd) + h^2 Kp) qd+ = M qd + h (tau + Kp (q_ref - q) + Kd qd_ref - c(q, qd)),
 * so joint damping and PD gains are implicit (stable for any gain at any dt). Prescribed dofs
 * (kinematic and fixed bodies) keep their velocity and move to the right-hand side. Actuators over
 * their effort limit are re-solved with the clamped force, explicitly. Joint limits and contacts are
 * velocity-level constraints on the result (multibody/constraints.c). See loam/multibody.h. */
#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "core/threads.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"

static int is_free(const loam_mb_model* m, int dof) { return m->body[m->dof_body[dof]].motion == LOAM_MB_DYNAMIC; }

static loam_status check_inputs(const loam_mb_model* m, const loam_mb_state* s, loam_error* err) {
    if (s->nfem_node != m->nfem_node)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: the state has %d FEM nodes, the model %d (FEM pieces added after the state was made?)",
                              s->nfem_node, m->nfem_node);
    if (s->threads < 0 || s->threads > 4096)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state threads = %d, expected 0 (the default) to 4096", s->threads);
    for (int d = 0; d < m->nv; ++d) {
        const char* name = m->body[m->dof_body[d]].name;
        if (!isfinite(s->tau[d])) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': tau[%d] = %g", name, d, s->tau[d]);
        if (!isfinite(s->q_ref[d])) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': q_ref[%d] = %g", name, d, s->q_ref[d]);
        if (!isfinite(s->qd_ref[d])) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': qd_ref[%d] = %g", name, d, s->qd_ref[d]);
    }
    for (int i = 0; i < 6 * m->nbody; ++i)
        if (!isfinite(s->xfrc[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: body '%s': xfrc[%d] = %g", m->body[i / 6].name, i % 6, s->xfrc[i]);
    for (int f = 0; f < m->nfem; ++f)
        for (int i = 0; i < 3 * m->fem[f].def.nnode; ++i) {
            size_t o = 3 * (size_t)m->fem[f].node_adr + (size_t)i;
            const char* field = !isfinite(s->fem_x[o]) ? "fem_x" : !isfinite(s->fem_v[o]) ? "fem_v" : !isfinite(s->fem_f[o]) ? "fem_f" : NULL;
            if (field)
                return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM piece %d '%s': node %d: %s[%d] is not finite", f, m->fem[f].def.name, i / 3,
                                      field, i % 3);
        }
    return LOAM_OK;
}

/* Gains of dof d: stiffness kp and damping kd that enter the step implicitly (zero once saturated). */
static void gains(const loam_mb_body_def* b, int saturated, double* kp, double* kd) {
    *kp = *kd = 0.0;
    if (saturated) return;
    if (b->control == LOAM_CONTROL_POSITION) *kp = b->kp;
    if (b->control != LOAM_CONTROL_TORQUE) *kd = b->kd;
}

/* Build and solve the free-dof system, one block per tree (the mass matrix couples no two trees):
 * free dofs are packed tree by tree (w->free_dof, w->gfree_off); tree t's system and its Cholesky
 * factor sit at w->aoff[t] in w->A0 and w->A; w->x (all nv) gets the new velocities. Returns the
 * first dof whose pivot fails, or -1. */
static int solve_velocities(const loam_mb_model* m, loam_mb_state* s, const int* sat, const double* clamp) {
    mb_work* w = s->work;
    int nv = m->nv, nf = 0, asize = 0;
    double h = m->opt.dt;
    for (int d = 0; d < nv; ++d) w->x[d] = m->body[m->dof_body[d]].motion == LOAM_MB_FIXED ? 0.0 : s->qd[d];
    for (int t = 0; t < m->ntree; ++t) {
        w->gfree_off[t] = nf;
        w->aoff[t] = asize;
        const int* dofs = m->tree_dofs + m->tree_dof_adr[t];
        for (int k = 0; k < m->tree_nv[t]; ++k) w->free_dof[dofs[k]] = is_free(m, dofs[k]) ? nf++ : -1;
        asize += (nf - w->gfree_off[t]) * (nf - w->gfree_off[t]);
    }
    w->gfree_off[m->ntree] = nf;
    for (int t = 0; t < m->ntree; ++t) {
        int n = m->tree_nv[t], off = w->gfree_off[t], nft = w->gfree_off[t + 1] - off;
        const int* dofs = m->tree_dofs + m->tree_dof_adr[t];
        const double* M = s->mass_matrix + m->tree_madr[t];
        double* A = w->A0 + w->aoff[t];
        for (int r = 0; r < n; ++r) {
            int d = dofs[r], i = w->free_dof[d];
            if (i < 0) continue;
            i -= off;
            const loam_mb_body_def* b = &m->body[m->dof_body[d]];
            double kp, kd, f = s->tau[d] - w->bias[d];
            gains(b, sat[d], &kp, &kd);
            if (sat[d]) f = clamp[d] - w->bias[d];
            else if (b->control != LOAM_CONTROL_TORQUE) f += kp * (s->q_ref[d] - s->q[m->q_adr[m->dof_body[d]]]) + kd * s->qd_ref[d];
            double rhs = h * f;
            for (int c = 0; c < n; ++c) {
                int j = w->free_dof[dofs[c]];
                rhs += M[r * n + c] * s->qd[dofs[c]];
                if (j < 0) rhs -= M[r * n + c] * w->x[dofs[c]]; /* a prescribed dof's known velocity */
                else A[i * nft + (j - off)] = M[r * n + c];
            }
            A[i * nft + i] += h * (b->damping + kd) + h * h * kp;
            w->tmp[off + i] = rhs;
        }
        memcpy(w->A + w->aoff[t], A, sizeof(double) * (size_t)nft * (size_t)nft);
        int bad = dense_cholesky(w->A + w->aoff[t], nft);
        if (bad >= 0) {
            for (int k = 0; k < n; ++k)
                if (w->free_dof[dofs[k]] == off + bad) return dofs[k];
            return dofs[0];
        }
        dense_cholesky_solve(w->A + w->aoff[t], nft, w->tmp + off);
    }
    for (int d = 0; d < nv; ++d)
        if (w->free_dof[d] >= 0) w->x[d] = w->tmp[w->free_dof[d]];
    return -1;
}

/* The actuator force that the solved velocities imply for dof d. */
static double actuator_force(const loam_mb_model* m, const loam_mb_state* s, int d, double qd_new) {
    const loam_mb_body_def* b = &m->body[m->dof_body[d]];
    double f = s->tau[d];
    if (b->control == LOAM_CONTROL_POSITION)
        f += b->kp * (s->q_ref[d] - (s->q[m->q_adr[m->dof_body[d]]] + m->opt.dt * qd_new));
    if (b->control != LOAM_CONTROL_TORQUE) f += b->kd * (s->qd_ref[d] - qd_new);
    return f;
}

static void integrate(const loam_mb_model* m, loam_mb_state* s) {
    mb_work* w = s->work;
    double h = m->opt.dt;
    memcpy(s->qd, w->x, sizeof(double) * (size_t)m->nv);
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        double* q = s->q + m->q_adr[i];
        const double* v = s->qd + m->v_adr[i];
        if (loam_joint_nv(b->joint) == 1) q[0] += h * v[0];
        if (b->joint == LOAM_JOINT_FLOATING) {
            for (int k = 0; k < 3; ++k) q[k] += h * v[k];
            /* The angular velocity is in the joint frame's axes: it turns the body from the left. */
            loam_quatd r = qd_mul(qd_exp(d3_scale(d3_load(v + 3), h)), qd_make(q[3], q[4], q[5], q[6]));
            r = qd_normalize(r);
            q[3] = r.w, q[4] = r.x, q[5] = r.y, q[6] = r.z;
        }
    }
}

static loam_status check_diverged(const loam_mb_model* m, const loam_mb_state* s, loam_error* err) {
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        int ok = 1;
        for (int k = 0; k < loam_joint_nq(b->joint); ++k) ok &= isfinite(s->q[m->q_adr[i] + k]) && fabs(s->q[m->q_adr[i] + k]) < 1e9;
        for (int k = 0; k < loam_joint_nv(b->joint); ++k) ok &= isfinite(s->qd[m->v_adr[i] + k]) && fabs(s->qd[m->v_adr[i] + k]) < 1e9;
        if (!ok)
            return loam_error_set(err, LOAM_ERR_DIVERGED, "multibody: diverged in step %lld (from t = %g s): body '%s' has a non-finite or "
                                  "huge joint position or velocity", (long long)s->step + 1, s->time, b->name);
    }
    return LOAM_OK;
}

/* One step of opt.dt; loam_mb_step runs a count of them. */
static loam_status step_once(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    loam_status st = loam_mb_kinematics(m, s, err);
    if (st == LOAM_OK) st = check_inputs(m, s, err);
    if (st != LOAM_OK) return st;
    mb_work* w = s->work;
    int nv = m->nv;
    mb_crba(m, s);
    mb_rnea(m, s, NULL, w->bias);
    /* Saturation flags and clamped forces live in the outputs until the end of the step. */
    double* clamp = s->act_force;
    int* sat = w->rows;
    memset(sat, 0, sizeof(int) * (size_t)nv);
    for (int pass = 0; pass <= nv; ++pass) {
        int bad = solve_velocities(m, s, sat, clamp);
        if (bad >= 0)
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: step %lld: body '%s': the system matrix is not positive definite at "
                                  "dof %d (a moving body without mass or inertia?)", (long long)s->step + 1, m->body[m->dof_body[bad]].name, bad);
        int changed = 0;
        for (int d = 0; d < nv; ++d) {
            const loam_mb_body_def* b = &m->body[m->dof_body[d]];
            if (sat[d] || w->free_dof[d] < 0 || b->max_effort <= 0.0) continue;
            double f = actuator_force(m, s, d, w->x[d]);
            if (fabs(f) > b->max_effort) {
                sat[d] = 1;
                clamp[d] = copysign(b->max_effort, f);
                changed = 1;
            }
        }
        if (!changed) break;
    }
    for (int d = 0; d < nv; ++d) clamp[d] = sat[d] ? clamp[d] : actuator_force(m, s, d, w->x[d]);
    int bad_fem = mb_fem_prepare(m, s); /* each FEM piece's system and free velocity */
    if (bad_fem >= 0)
        return loam_error_set(err, LOAM_ERR_DIVERGED, "multibody: step %lld: FEM piece %d '%s': the system matrix is not positive definite",
                              (long long)s->step + 1, bad_fem, m->fem[bad_fem].def.name);
    if ((st = mb_solve_constraints(m, s, err)) != LOAM_OK) return st;
    integrate(m, s);
    if ((st = check_diverged(m, s, err)) != LOAM_OK) return st; /* names the step that failed, from t */
    if (!mb_fem_integrate(m, s, &bad_fem))
        return loam_error_set(err, LOAM_ERR_DIVERGED, "multibody: diverged in step %lld (from t = %g s): FEM piece %d '%s' has a non-finite or huge "
                              "node position or velocity", (long long)s->step + 1, s->time, bad_fem, m->fem[bad_fem].def.name);
    s->time += m->opt.dt;
    s->step += 1;
    mb_kinematics(m, s);
    return LOAM_OK;
}

static loam_status run_steps(const loam_mb_model* m, loam_mb_state* s, int steps, loam_error* err) {
    /* The same single step each time, so N steps in one call are the bits of N calls; a failing step
     * stops the run, and its message names the step, counted from 1 as in every module (s->step + 1). */
    for (int k = 0; k < steps; ++k) {
        loam_status st = step_once(m, s, err);
        if (st != LOAM_OK) return st;
    }
    return LOAM_OK;
}

loam_status loam_mb_step(const loam_mb_model* m, loam_mb_state* s, int steps, loam_error* err) {
    if (!m || !s) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: step: null model or state");
    if (steps < 0) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: step: steps = %d, expected >= 0", steps);
    /* The model's context: the solvers' workspace grows there, and a state whose thread count is 0
     * takes the context's. */
    loam_context* outer = loam_ctx_scope_enter(m->opt.context);
    int outer_threads = loam_threads_scope_enter(loam_context_threads(m->opt.context));
    loam_status st = run_steps(m, s, steps, err);
    loam_threads_scope_leave(outer_threads);
    loam_ctx_scope_leave(outer);
    return st;
}
