/* The step's constraint stage: joint limits and contacts as rows of the velocity-form problem of
 * solve/cp.h, over the free (dynamic) dofs; prescribed dofs enter the row offsets. Rows are dense
 * over the free dofs for now (the paper's per-subsystem structure comes with SubADMM).
 *
 * Position errors become velocity offsets: a row with gap phi (>= 0 open, < 0 violated) asks for
 * w = J v + phi / h >= 0 while open (the joint or contact may close the gap in this step but not
 * pass it), and for J v >= erp |phi| / h once violated (a fraction of the violation per step). */
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "multibody/mb_internal.h"
#include "solve/cp.h"

static loam_status reserve(mb_work* w, int rows, int nf, loam_error* err) {
    if (rows <= w->row_cap) return LOAM_OK;
    int cap = rows > 2 * w->row_cap ? rows : 2 * w->row_cap;
    size_t n = (size_t)(nf > 0 ? nf : 1);
    double* J = loam_malloc(sizeof(double) * (size_t)cap * n);
    double* AJt = loam_malloc(sizeof(double) * (size_t)cap * n);
    double* e = loam_malloc(sizeof(double) * (size_t)cap);
    double* lambda = loam_malloc(sizeof(double) * (size_t)cap);
    double* diag = loam_malloc(sizeof(double) * (size_t)cap);
    int* row_dof = loam_malloc(sizeof(int) * (size_t)cap);
    cp_block* blocks = loam_malloc(sizeof(cp_block) * (size_t)cap);
    loam_free(w->J), loam_free(w->AJt), loam_free(w->e), loam_free(w->lambda), loam_free(w->diag), loam_free(w->row_dof), loam_free(w->blocks);
    w->J = J, w->AJt = AJt, w->e = e, w->lambda = lambda, w->diag = diag, w->row_dof = row_dof, w->blocks = blocks;
    w->row_cap = (J && AJt && e && lambda && diag && row_dof && blocks) ? cap : 0;
    if (!w->row_cap) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory for %d constraint rows", rows);
    return LOAM_OK;
}

static double offset(double phi, double h, double erp) { return phi >= 0.0 ? phi / h : erp * phi / h; }

loam_status mb_solve_constraints(const loam_mb_model* m, loam_mb_state* s, loam_error* err) {
    mb_work* w = s->work;
    int nv = m->nv, nf = 0;
    double h = m->opt.dt;
    for (int d = 0; d < nv; ++d) {
        nf += w->free_dof[d] >= 0;
        s->limit_impulse[d] = 0.0;
    }
    loam_status st = m->ngeom > 1 ? loam_mb_collide(m, s, err) : LOAM_OK;
    if (st != LOAM_OK) return st;
    if (m->ngeom <= 1) s->ncontact = 0;
    memset(&s->solver, 0, sizeof s->solver);
    for (int k = 0; k < 3 * s->ncontact; ++k) s->contact_impulse[k] = 0.0;

    /* Count rows: limits predicted to be left, 3 per contact. */
    int rows = 3 * s->ncontact;
    for (int d = 0; d < nv; ++d) {
        const loam_mb_body_def* b = &m->body[m->dof_body[d]];
        if (!b->limited || w->free_dof[d] < 0) continue;
        double q = s->q[m->q_adr[m->dof_body[d]]], next = q + h * w->x[d];
        rows += next > b->upper || next < b->lower;
    }
    if (rows == 0 || nf == 0) return LOAM_OK;
    if ((st = reserve(w, rows, nf, err)) != LOAM_OK) return st;
    memset(w->J, 0, sizeof(double) * (size_t)rows * (size_t)nf);
    int r = 0, nb = 0;
    for (int d = 0; d < nv; ++d) {
        const loam_mb_body_def* b = &m->body[m->dof_body[d]];
        if (!b->limited || w->free_dof[d] < 0) continue;
        double q = s->q[m->q_adr[m->dof_body[d]]], next = q + h * w->x[d];
        if (!(next > b->upper || next < b->lower)) continue;
        int upper = next > b->upper; /* the row pushes down from the upper limit: J = -e_d */
        w->J[(size_t)r * (size_t)nf + (size_t)w->free_dof[d]] = upper ? -1.0 : 1.0;
        w->e[r] = offset(upper ? b->upper - q : q - b->lower, h, m->opt.limit_erp);
        w->row_dof[r] = upper ? -2 - d : d; /* the sign survives in the encoding */
        w->blocks[nb++] = (cp_block){r, CP_UNILATERAL, 0.0};
        ++r;
    }
    for (int c = 0; c < s->ncontact; ++c) {
        const loam_mb_contact* ct = &s->contact[c];
        if ((st = loam_mb_contact_jacobian(m, s, ct, w->crow, err)) != LOAM_OK) return st;
        for (int k = 0; k < 3; ++k) {
            double e = k == 0 ? offset(-ct->depth, h, m->opt.contact_erp) : 0.0;
            for (int d = 0; d < nv; ++d) {
                double j = w->crow[k * nv + d];
                if (w->free_dof[d] >= 0) w->J[(size_t)(r + k) * (size_t)nf + (size_t)w->free_dof[d]] = j;
                else e += j * w->x[d]; /* a prescribed dof's known velocity */
            }
            w->e[r + k] = e;
            w->row_dof[r + k] = -1;
        }
        w->blocks[nb++] = (cp_block){r, CP_CONTACT, ct->friction};
        r += 3;
    }
    /* Pack the free velocity, solve, unpack. */
    double* v = w->tmp;
    for (int d = 0; d < nv; ++d)
        if (w->free_dof[d] >= 0) v[w->free_dof[d]] = w->x[d];
    /* Subsystems: one per tree of bodies. */
    for (int d = 0; d < nv; ++d)
        if (w->free_dof[d] >= 0) w->group[w->free_dof[d]] = m->body_tree[m->dof_body[d]];
    int ngroup = m->ntree;
    memset(w->lambda, 0, sizeof(double) * (size_t)rows);
    cp_problem p = {nf, w->A0, w->A, ngroup, w->group, v, rows, w->J, w->e, w->lambda, nb, w->blocks, w->AJt, w->diag};
    double t0 = loam_clock_seconds();
    cp_result res;
    if (m->opt.solver == LOAM_SOLVER_SUBADMM || m->opt.solver == LOAM_SOLVER_FADMM) {
        cp_prepare(&p); /* the diagonal, for the error */
        for (int i = 0; i < nf; ++i) v[i] = 0.0;
        for (int d = 0; d < nv; ++d)
            if (w->free_dof[d] >= 0) v[w->free_dof[d]] = w->x[d];
        res = cp_solve_admm(&p, m->opt.iterations, m->opt.tolerance, m->opt.solver == LOAM_SOLVER_FADMM);
    } else {
        cp_prepare(&p);
        if (m->opt.solver == LOAM_SOLVER_PJ) res = cp_solve_pj(&p, m->opt.iterations, m->opt.tolerance, m->opt.jacobi_relaxation);
        else if (m->opt.solver == LOAM_SOLVER_NNEWTON) res = cp_solve_nnewton(&p, m->opt.iterations, m->opt.tolerance);
        else res = cp_solve_pgs(&p, m->opt.iterations, m->opt.tolerance);
    }
    if (res.iterations < 0)
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: step %lld: the %s solver could not allocate or factorize its systems (%d rows)",
                              (long long)s->step, loam_mb_solver_name(m->opt.solver), rows);
    s->solver.rows = rows;
    s->solver.iterations = res.iterations;
    s->solver.error = res.error;
    s->solver.time_s = loam_clock_seconds() - t0;
    for (int d = 0; d < nv; ++d)
        if (w->free_dof[d] >= 0) w->x[d] = v[w->free_dof[d]];
    int c = 0;
    for (int k = 0; k < rows; ++k) {
        int d = w->row_dof[k];
        if (d >= 0) s->limit_impulse[d] = w->lambda[k];
        else if (d <= -2) s->limit_impulse[-2 - d] = -w->lambda[k];
        else s->contact_impulse[c++] = w->lambda[k];
    }
    return LOAM_OK;
}
