/* Multibody state files (docs/state-files.md, kind "MBDY"): what loam_mb_state_copy copies, so that a
 * state loaded into any state of the same model steps on with the same bits as the one saved. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/admm_work.h"
#include "io/state_file.h"
#include "multibody/mb_internal.h"

/* Sizes that must match between the model saved with and the model loaded with. */
static size_t tet_count(const loam_mb_model* m) {
    size_t n = 0;
    for (int f = 0; f < m->nfem; ++f) n += (size_t)m->fem[f].def.ntet;
    return n;
}

static loam_status check(const loam_mb_model* m, const loam_mb_state* s, const char* what, loam_error* err) {
    if (!m || !s) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state %s: null model or state", what);
    if (s->nq != m->nq || s->nv != m->nv || s->nbody != m->nbody || s->nfem_node != m->nfem_node)
        return loam_error_set(err, LOAM_ERR_INPUT, "multibody: state %s: the state (nq %d, nv %d) was made for another model (nq %d, nv %d)",
                              what, s->nq, s->nv, m->nq, m->nv);
    return LOAM_OK;
}

static loam_status mb_scoped_state_save(const loam_mb_model* m, const loam_mb_state* s, const char* path, loam_error* err) {
    loam_status st = check(m, s, "save", err);
    if (st != LOAM_OK) return st;
    const mb_work* w = s->work;
    size_t nv = (size_t)m->nv, nfd = 3 * (size_t)m->nfem_node;
    loam_state_writer o = {0};
    uint32_t sizes[] = {(uint32_t)m->nq, (uint32_t)m->nv, (uint32_t)m->nbody, (uint32_t)m->nfem_node, (uint32_t)tet_count(m),
                        (uint32_t)w->ncon, (uint32_t)m->opt.max_contacts};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) loam_state_put_u32(&o, sizes[k]);
    loam_state_put_f64(&o, s->time);
    loam_state_put_i64(&o, s->step);
    loam_state_put_array(&o, s->q, (size_t)m->nq, sizeof(double));
    const double* per_dof[] = {s->qd, s->tau, s->q_ref, s->qd_ref};
    for (size_t k = 0; k < 4; ++k) loam_state_put_array(&o, per_dof[k], nv, sizeof(double));
    loam_state_put_array(&o, s->xfrc, 6 * (size_t)m->nbody, sizeof(double));
    loam_state_put_array(&o, s->fem_x, nfd, sizeof(double));
    loam_state_put_array(&o, s->fem_v, nfd, sizeof(double));
    loam_state_put_array(&o, s->fem_f, nfd, sizeof(double));
    loam_state_put_array(&o, w->fem_rot, 4 * tet_count(m), sizeof(double));
    /* The warm start, field by field (the struct has padding, whose bytes are not the state's). */
    loam_state_put_u32(&o, (uint32_t)w->nprev);
    for (int k = 0; k < w->nprev; ++k) {
        const mb_prev* p = &w->prev[k];
        double v[6] = {p->point.x, p->point.y, p->point.z, p->impulse.x, p->impulse.y, p->impulse.z};
        loam_state_put_i64(&o, p->key);
        loam_state_put_u32(&o, (uint32_t)p->order);
        loam_state_put(&o, v, sizeof v);
    }
    loam_state_put_array(&o, w->prev_limit, nv, sizeof(double));
    loam_state_put_array(&o, w->prev_con, 3 * (size_t)w->ncon, sizeof(double));
    /* SubADMM's adapted penalty factors (empty until adapted). */
    int nratio = w->admm ? w->admm->nratio : 0;
    loam_state_put_array(&o, nratio ? w->admm->ratio : NULL, (size_t)nratio, sizeof(double));
    st = loam_state_file_write(path, LOAM_STATE_MULTIBODY, &o, err);
    loam_state_writer_free(&o);
    return st;
}

/* The payload into t, a fresh state of the model; 0 with the reader's error set on any mismatch. */
static int read_state(loam_state_reader* r, const loam_mb_model* m, loam_mb_state* t) {
    mb_work* w = t->work;
    size_t nv = (size_t)m->nv, nfd = 3 * (size_t)m->nfem_node, ntet = tet_count(m);
    int ok = loam_state_expect_u32(r, "nq", (uint32_t)m->nq) && loam_state_expect_u32(r, "nv", (uint32_t)m->nv) &&
             loam_state_expect_u32(r, "nbody", (uint32_t)m->nbody) && loam_state_expect_u32(r, "nfem_node", (uint32_t)m->nfem_node) &&
             loam_state_expect_u32(r, "ntet", (uint32_t)ntet) && loam_state_expect_u32(r, "nconstraint", (uint32_t)w->ncon) &&
             loam_state_expect_u32(r, "max_contacts", (uint32_t)m->opt.max_contacts);
    ok = ok && loam_state_get_f64(r, "time", &t->time) && loam_state_check_finite_d(r, "time", &t->time, 1);
    ok = ok && loam_state_get_i64(r, "step", &t->step);
    if (ok && t->step < 0) return loam_state_fail(r, "field step = %lld is negative", (long long)t->step);
    ok = ok && loam_state_get_array(r, "q", t->q, (size_t)m->nq, sizeof(double)) && loam_state_check_finite_d(r, "q", t->q, (size_t)m->nq);
    struct { const char* name; double* v; size_t n; } arrays[] = {
        {"qd", t->qd, nv}, {"tau", t->tau, nv}, {"q_ref", t->q_ref, nv}, {"qd_ref", t->qd_ref, nv},
        {"xfrc", t->xfrc, 6 * (size_t)m->nbody}, {"fem_x", t->fem_x, nfd}, {"fem_v", t->fem_v, nfd}, {"fem_f", t->fem_f, nfd},
        {"fem_rot", w->fem_rot, 4 * ntet}};
    for (size_t k = 0; ok && k < sizeof arrays / sizeof arrays[0]; ++k)
        ok = loam_state_get_array(r, arrays[k].name, arrays[k].v, arrays[k].n, sizeof(double)) &&
             loam_state_check_finite_d(r, arrays[k].name, arrays[k].v, arrays[k].n);
    uint32_t nprev = 0;
    ok = ok && loam_state_get_u32(r, "nprev", &nprev);
    if (ok && nprev > (uint32_t)m->opt.max_contacts)
        return loam_state_fail(r, "field nprev = %u exceeds max_contacts %d", nprev, m->opt.max_contacts);
    for (uint32_t k = 0; ok && k < nprev; ++k) {
        int64_t key;
        uint32_t order;
        double v[6];
        ok = loam_state_get_i64(r, "prev.key", &key) && loam_state_get_u32(r, "prev.order", &order) && loam_state_get(r, "prev", v, sizeof v) &&
             loam_state_check_finite_d(r, "prev", v, 6);
        if (ok && (key < 0 || order > (uint32_t)m->opt.max_contacts))
            return loam_state_fail(r, "field prev[%u]: key %lld or order %u out of range", k, (long long)key, order);
        /* sorted by (key, order), as the step leaves them: the warm start finds contacts by bisection */
        if (ok && k > 0 && (key < w->prev[k - 1].key || (key == w->prev[k - 1].key && (int)order <= w->prev[k - 1].order)))
            return loam_state_fail(r, "field prev[%u]: key %lld, order %u is out of sort order", k, (long long)key, order);
        if (!ok) break;
        mb_prev* p = &w->prev[k];
        p->key = key;
        p->order = (int)order;
        p->point = (loam_vec3d){v[0], v[1], v[2]};
        p->impulse = (loam_vec3d){v[3], v[4], v[5]};
    }
    if (ok) w->nprev = (int)nprev;
    ok = ok && loam_state_get_array(r, "prev_limit", w->prev_limit, nv, sizeof(double)) &&
         loam_state_check_finite_d(r, "prev_limit", w->prev_limit, nv);
    ok = ok && loam_state_get_array(r, "prev_con", w->prev_con, 3 * (size_t)w->ncon, sizeof(double)) &&
         loam_state_check_finite_d(r, "prev_con", w->prev_con, 3 * (size_t)w->ncon);
    /* At most one penalty factor per subsystem, and subsystems are trees and FEM pieces. */
    size_t most = (size_t)m->ntree + (size_t)m->nfem, nratio = 0;
    double* ratio = loam_ctx_malloc(m->opt.context, sizeof(double) * (most + 1));
    if (!ratio) return loam_state_fail(r, "out of memory");
    ok = ok && loam_state_get_array_upto(r, "admm_ratio", ratio, most, sizeof(double), &nratio);
    for (size_t k = 0; ok && k < nratio; ++k)
        if (!(isfinite(ratio[k]) && ratio[k] > 0.0)) ok = loam_state_fail(r, "field admm_ratio[%zu] = %g is not a positive number", k, ratio[k]);
    ok = ok && loam_state_finish(r);
    if (ok && nratio) { /* handed to the scratch state's solver workspace, where the copy finds it */
        w->admm = loam_ctx_calloc(m->opt.context, 1, sizeof *w->admm);
        if (!w->admm) ok = loam_state_fail(r, "out of memory");
        else w->admm->ratio = ratio, w->admm->nratio = (int)nratio, ratio = NULL;
    }
    loam_free(ratio);
    return ok;
}

static loam_status mb_scoped_state_load(const loam_mb_model* m, loam_mb_state* s, const char* path, loam_error* err) {
    loam_status st = check(m, s, "load", err);
    if (st != LOAM_OK) return st;
    loam_state_reader r;
    st = loam_state_file_open(&r, path, LOAM_STATE_MULTIBODY, err);
    if (st != LOAM_OK) return st;
    /* Read into a scratch state, so a bad file leaves s as it was; then copy, as a copy would. */
    loam_mb_state* t = loam_mb_state_create(m, err);
    if (!t) st = err ? err->status : LOAM_ERR_NOMEM; /* m was checked: only memory can fail */
    if (st == LOAM_OK && !read_state(&r, m, t)) st = err ? err->status : LOAM_ERR_INPUT;
    loam_state_reader_close(&r);
    if (st == LOAM_OK) st = loam_mb_state_copy(m, s, t, err);
    loam_mb_state_destroy(t);
    return st;
}

/* In the model's context: the blocks of the layers below (contact's solvers, state files) go there. */
loam_status loam_mb_state_save(const loam_mb_model* m, const loam_mb_state* s, const char* path, loam_error* err) {
    loam_status r;
    LOAM_IN_CONTEXT(m ? m->opt.context : NULL, r = mb_scoped_state_save(m, s, path, err));
    return r;
}

/* In the model's context: the blocks of the layers below (contact's solvers, state files) go there. */
loam_status loam_mb_state_load(const loam_mb_model* m, loam_mb_state* s, const char* path, loam_error* err) {
    loam_status r;
    LOAM_IN_CONTEXT(m ? m->opt.context : NULL, r = mb_scoped_state_load(m, s, path, err));
    return r;
}
