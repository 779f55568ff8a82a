/* Multibody state: allocation and the rest configuration. See loam/multibody.h. */
#include <string.h>

#include "core/vecd.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"
#include "contact/cp.h"

static void* zalloc(loam_context* ctx, size_t count, size_t size, int* failed) {
    void* p = loam_ctx_calloc(ctx, count > 0 ? count : 1, size);
    if (!p) *failed = 1;
    return p;
}

static loam_mb_state* mb_scoped_state_create(const loam_mb_model* m, loam_error* err) {
    if (!m) {
        loam_error_set(err, LOAM_ERR_INPUT, "multibody: null model");
        return NULL;
    }
    int fail = 0;
    size_t nb = (size_t)m->nbody, nv = (size_t)m->nv;
    loam_mb_state* s = zalloc(m->opt.context, 1, sizeof *s, &fail);
    mb_work* w = zalloc(m->opt.context, 1, sizeof *w, &fail);
    if (fail) {
        loam_free(s);
        loam_free(w);
        loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory");
        return NULL;
    }
    s->work = w;
    s->threads = m->opt.threads;
    s->nq = m->nq;
    s->nv = m->nv;
    s->nbody = m->nbody;
    s->q = zalloc(m->opt.context, (size_t)m->nq, sizeof(double), &fail);
    s->qd = zalloc(m->opt.context, nv, sizeof(double), &fail);
    s->tau = zalloc(m->opt.context, nv, sizeof(double), &fail);
    s->q_ref = zalloc(m->opt.context, nv, sizeof(double), &fail);
    s->qd_ref = zalloc(m->opt.context, nv, sizeof(double), &fail);
    s->xfrc = zalloc(m->opt.context, 6 * nb, sizeof(double), &fail);
    s->xpose = zalloc(m->opt.context, nb, sizeof(loam_posed), &fail);
    s->xvel = zalloc(m->opt.context, 6 * nb, sizeof(double), &fail);
    s->mass_matrix = zalloc(m->opt.context, (size_t)m->nM, sizeof(double), &fail);
    s->act_force = zalloc(m->opt.context, nv, sizeof(double), &fail);
    s->limit_impulse = zalloc(m->opt.context, nv, sizeof(double), &fail);
    w->X = zalloc(m->opt.context, nb, sizeof(sxform), &fail);
    w->S = zalloc(m->opt.context, 6 * nb, sizeof(sv6), &fail);
    w->Sw = zalloc(m->opt.context, 6 * nb, sizeof(sv6), &fail);
    w->cJ = zalloc(m->opt.context, nb, sizeof(sv6), &fail);
    w->v = zalloc(m->opt.context, nb, sizeof(sv6), &fail);
    w->a = zalloc(m->opt.context, nb, sizeof(sv6), &fail);
    w->f = zalloc(m->opt.context, nb, sizeof(sv6), &fail);
    w->I = zalloc(m->opt.context, nb, sizeof(sinertia), &fail);
    w->Ic = zalloc(m->opt.context, nb, sizeof(sinertia), &fail);
    w->A = zalloc(m->opt.context, (size_t)m->nM, sizeof(double), &fail);
    w->A0 = zalloc(m->opt.context, (size_t)m->nM, sizeof(double), &fail);
    w->aoff = zalloc(m->opt.context, (size_t)m->ntree, sizeof(int), &fail);
    w->gfree_off = zalloc(m->opt.context, (size_t)m->ntree + 1, sizeof(int), &fail);
    w->b = zalloc(m->opt.context, nv, sizeof(double), &fail);
    w->x = zalloc(m->opt.context, nv, sizeof(double), &fail);
    size_t nfd = 3 * (size_t)m->nfem_node; /* FEM velocities follow the rigid ones in the packed order */
    w->tmp = zalloc(m->opt.context, nv + nfd, sizeof(double), &fail);
    w->bias = zalloc(m->opt.context, nv, sizeof(double), &fail);
    w->free_dof = zalloc(m->opt.context, nv, sizeof(int), &fail);
    w->rows = zalloc(m->opt.context, nv, sizeof(int), &fail);
    w->groups = zalloc(m->opt.context, (size_t)m->ntree + (size_t)m->nfem, sizeof(cp_group), &fail);
    w->sub_of_tree = zalloc(m->opt.context, (size_t)m->ntree + (size_t)m->nfem, sizeof(int), &fail);
    s->nfem_node = m->nfem_node;
    s->fem_x = zalloc(m->opt.context, nfd, sizeof(double), &fail);
    s->fem_v = zalloc(m->opt.context, nfd, sizeof(double), &fail);
    s->fem_f = zalloc(m->opt.context, nfd, sizeof(double), &fail);
    w->fem_vel = zalloc(m->opt.context, nfd, sizeof(double), &fail);
    w->fem_aoff = zalloc(m->opt.context, (size_t)m->nfem, sizeof(size_t), &fail);
    w->fem_tet_adr = zalloc(m->opt.context, (size_t)m->nfem, sizeof(int), &fail);
    size_t fem_a = 0, fem_t = 0;
    for (int f = 0; !fail && f < m->nfem; ++f) {
        size_t n = 3 * (size_t)m->fem[f].def.nnode, ld = 2 * (size_t)mb_fem_bandwidth(&m->fem[f]) + 1;
        w->fem_aoff[f] = fem_a, w->fem_tet_adr[f] = (int)fem_t;
        fem_a += n * ld, fem_t += (size_t)m->fem[f].def.ntet;
    }
    w->fem_A0 = zalloc(m->opt.context, fem_a, sizeof(double), &fail);
    w->fem_A = zalloc(m->opt.context, fem_a, sizeof(double), &fail);
    w->fem_rot = zalloc(m->opt.context, 4 * fem_t, sizeof(double), &fail);
    w->uf = zalloc(m->opt.context, (size_t)m->ntree, sizeof(int), &fail);
    w->prev = zalloc(m->opt.context, (size_t)m->opt.max_contacts, sizeof(mb_prev), &fail);
    w->prev_limit = zalloc(m->opt.context, nv, sizeof(double), &fail);
    w->ncon = m->nconstraint;
    w->prev_con = zalloc(m->opt.context, 3 * (size_t)m->nconstraint, sizeof(double), &fail);
    s->constraint_impulse = zalloc(m->opt.context, 3 * (size_t)m->nconstraint, sizeof(double), &fail);
    for (int g = 0; g < m->ngeom; ++g) w->nball += mb_geom_at(m, g)->type == LOAM_SHAPE_SPHERE && mb_geom_at(m, g)->body >= 0;
    w->ball_geom = zalloc(m->opt.context, (size_t)w->nball, sizeof(int), &fail);
    w->bx = zalloc(m->opt.context, (size_t)w->nball, sizeof(float), &fail);
    w->by = zalloc(m->opt.context, (size_t)w->nball, sizeof(float), &fail);
    w->bz = zalloc(m->opt.context, (size_t)w->nball, sizeof(float), &fail);
    w->cand = zalloc(m->opt.context, (size_t)w->nball, sizeof(int), &fail);
    if (!fail && w->nball > 0) {
        for (int g = 0, k = 0; g < m->ngeom; ++g)
            if (mb_geom_at(m, g)->type == LOAM_SHAPE_SPHERE && mb_geom_at(m, g)->body >= 0) w->ball_geom[k++] = g;
        if (!loam_hash_init(&w->hash, 2 * w->nball + 1, w->nball)) fail = 1;
    }
    s->contact = zalloc(m->opt.context, (size_t)m->opt.max_contacts, sizeof(loam_mb_contact), &fail);
    s->contact_impulse = zalloc(m->opt.context, 3 * (size_t)m->opt.max_contacts, sizeof(double), &fail);
    if (fail) {
        loam_mb_state_destroy(s);
        loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory for a state of %d dofs", m->nv);
        return NULL;
    }
    for (int i = 0; i < m->nbody; ++i) w->I[i] = mb_body_inertia(&m->body[i]);
    if (loam_mb_state_reset(m, s, err) != LOAM_OK) {
        loam_mb_state_destroy(s);
        return NULL;
    }
    return s;
}

static loam_status mb_scoped_state_reset(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    if (!m || !s) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: null model or state");
    if (s->nq != m->nq || s->nv != m->nv || s->nbody != m->nbody)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state (nq %d, nv %d) was made for another model (nq %d, nv %d)", s->nq,
                              s->nv, m->nq, m->nv);
    s->time = 0.0;
    s->step = 0;
    memset(s->q, 0, sizeof(double) * (size_t)m->nq);
    memset(s->qd, 0, sizeof(double) * (size_t)m->nv);
    memset(s->tau, 0, sizeof(double) * (size_t)m->nv);
    memset(s->q_ref, 0, sizeof(double) * (size_t)m->nv);
    memset(s->qd_ref, 0, sizeof(double) * (size_t)m->nv);
    memset(s->xfrc, 0, sizeof(double) * 6 * (size_t)m->nbody);
    memset(s->act_force, 0, sizeof(double) * (size_t)m->nv);
    memset(s->limit_impulse, 0, sizeof(double) * (size_t)m->nv);
    s->ncontact = 0;
    memset(&s->solver, 0, sizeof s->solver);
    ((mb_work*)s->work)->nprev = 0;
    memset(((mb_work*)s->work)->prev_con, 0, sizeof(double) * 3 * (size_t)((mb_work*)s->work)->ncon);
    memset(s->constraint_impulse, 0, sizeof(double) * 3 * (size_t)((mb_work*)s->work)->ncon);
    memset(((mb_work*)s->work)->prev_limit, 0, sizeof(double) * (size_t)m->nv);
    if (s->nfem_node != m->nfem_node) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state has %d FEM nodes, the model %d", s->nfem_node, m->nfem_node);
    for (int f = 0; f < m->nfem; ++f) { /* FEM pieces at rest where they were defined */
        size_t o = 3 * (size_t)m->fem[f].node_adr, n = 3 * (size_t)m->fem[f].def.nnode;
        memcpy(s->fem_x + o, m->fem[f].def.node, sizeof(double) * n);
        memset(s->fem_v + o, 0, sizeof(double) * n);
        memset(s->fem_f + o, 0, sizeof(double) * n);
        double* rot = ((mb_work*)s->work)->fem_rot + 4 * (size_t)((mb_work*)s->work)->fem_tet_adr[f];
        for (int t = 0; t < m->fem[f].def.ntet; ++t) rot[4 * t] = 1.0, rot[4 * t + 1] = rot[4 * t + 2] = rot[4 * t + 3] = 0.0;
    }
    for (int i = 0; i < m->nbody; ++i) {
        const loam_mb_body_def* b = &m->body[i];
        double* q = s->q + m->q_adr[i];
        if (b->joint == LOAM_JOINT_FLOATING) q[3] = 1.0;
        if (b->limited) q[0] = q[0] < b->lower ? b->lower : q[0] > b->upper ? b->upper : q[0];
        if (loam_joint_nv(b->joint) == 1) s->q_ref[m->v_adr[i]] = q[0];
    }
    mb_kinematics(m, s);
    return LOAM_OK;
}

void loam_mb_state_destroy(loam_mb_state* s) {
    if (!s) return;
    mb_work* w = s->work;
    if (w) {
        void* ptrs[] = {w->X, w->S, w->Sw, w->cJ, w->v, w->a, w->f, w->I, w->Ic, w->A, w->A0, w->aoff, w->gfree_off, w->b, w->x, w->tmp, w->bias,
                        w->free_dof, w->rows, w->groups, w->sub_of_tree, w->uf, w->e, w->lambda, w->diag, w->row_origin, w->row_seg,
                        w->blocks, w->pgs_scratch, w->segs, w->J, w->AJ, w->ball_geom, w->bx, w->by, w->bz, w->cand, w->prev, w->prev_limit, w->prev_con,
                        w->fem_aoff, w->fem_tet_adr, w->fem_A0, w->fem_A, w->fem_vel, w->fem_rot};
        for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) loam_free(ptrs[k]);
        if (w->hash.head) loam_hash_free(&w->hash);
        cp_admm_work_free(w->admm);
        loam_free(w->joined);
        loam_free(w->gpose);
        loam_free(w->other);
        loam_free(w);
    }
    void* ptrs[] = {s->q, s->qd, s->tau, s->q_ref, s->qd_ref, s->xfrc, s->xpose, s->xvel, s->mass_matrix, s->act_force, s->limit_impulse,
                    s->contact, s->contact_impulse, s->constraint_impulse, s->fem_x, s->fem_v, s->fem_f};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k) loam_free(ptrs[k]);
    loam_free(s);
}

static loam_status mb_scoped_state_copy(const loam_mb_model* m, loam_mb_state* d, const loam_mb_state* s, loam_error* err) {
    if (!m || !d || !s) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state copy: null model or state");
    if (d->nq != m->nq || s->nq != m->nq || d->nv != m->nv || s->nv != m->nv || d->nbody != m->nbody || s->nbody != m->nbody)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state copy: the states were made for another model");
    size_t nv = (size_t)m->nv;
    memcpy(d->q, s->q, sizeof(double) * (size_t)m->nq);
    memcpy(d->qd, s->qd, sizeof(double) * nv);
    memcpy(d->tau, s->tau, sizeof(double) * nv);
    memcpy(d->q_ref, s->q_ref, sizeof(double) * nv);
    memcpy(d->qd_ref, s->qd_ref, sizeof(double) * nv);
    memcpy(d->xfrc, s->xfrc, sizeof(double) * 6 * (size_t)m->nbody);
    if (d->nfem_node != m->nfem_node || s->nfem_node != m->nfem_node)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state copy: the states were made for another model (FEM nodes)");
    size_t nfd = 3 * (size_t)m->nfem_node, ntet = 0;
    for (int f = 0; f < m->nfem; ++f) ntet += (size_t)m->fem[f].def.ntet;
    memcpy(d->fem_x, s->fem_x, sizeof(double) * nfd);
    memcpy(d->fem_v, s->fem_v, sizeof(double) * nfd);
    memcpy(d->fem_f, s->fem_f, sizeof(double) * nfd);
    memcpy(((mb_work*)d->work)->fem_rot, ((mb_work*)s->work)->fem_rot, sizeof(double) * 4 * ntet);
    d->time = s->time;
    d->step = s->step;
    /* the warm start travels with the state */
    mb_work *wd = d->work, *ws = s->work;
    wd->nprev = ws->nprev < m->opt.max_contacts ? ws->nprev : m->opt.max_contacts;
    memcpy(wd->prev, ws->prev, sizeof(mb_prev) * (size_t)wd->nprev);
    memcpy(wd->prev_limit, ws->prev_limit, sizeof(double) * nv);
    if (wd->ncon == ws->ncon) memcpy(wd->prev_con, ws->prev_con, sizeof(double) * 3 * (size_t)ws->ncon);
    /* and so does SubADMM's adapted penalty (admm_adapt), or the copy would take other steps */
    if (!cp_admm_work_copy_penalty(&wd->admm, ws->admm)) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: state copy: out of memory");
    return loam_mb_kinematics(m, d, err);
}

/* In the model's context: the blocks of the layers below (contact's solvers, state files) go there. */
loam_mb_state* loam_mb_state_create(const loam_mb_model* m, loam_error* err) {
    loam_mb_state* r;
    LOAM_IN_CONTEXT(m ? m->opt.context : NULL, r = mb_scoped_state_create(m, err));
    return r;
}

/* In the model's context: the blocks of the layers below (contact's solvers, state files) go there. */
loam_status loam_mb_state_reset(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    loam_status r;
    LOAM_IN_CONTEXT(m ? m->opt.context : NULL, r = mb_scoped_state_reset(m, s, err));
    return r;
}

/* In the model's context: the blocks of the layers below (contact's solvers, state files) go there. */
loam_status loam_mb_state_copy(const loam_mb_model* m, loam_mb_state* d, const loam_mb_state* s, loam_error* err) {
    loam_status r;
    LOAM_IN_CONTEXT(m ? m->opt.context : NULL, r = mb_scoped_state_copy(m, d, s, err));
    return r;
}
