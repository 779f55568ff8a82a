/* FEM pieces in the model: defaults, validation, and the per-element data computed once (rest
 * shape-function gradients, volumes, rest stiffnesses, nodal masses, surface nodes, bandwidth).
 * See loam/multibody.h and docs/multibody.md, "FEM". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vecd.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"

loam_mb_fem_def loam_mb_fem_default_def(void) {
    loam_mb_fem_def d;
    memset(&d, 0, sizeof d);
    d.young = 1e6;
    d.poisson = 0.3;
    d.density = 1000.0;
    d.lumped = 1;
    d.friction = 0.5;
    d.contype = d.conaffinity = 1;
    return d;
}

void mb_fem_free(loam_mb_fem* f) {
    mb_fem_data* p = f->priv;
    if (p) {
        loam_free(p->grad), loam_free(p->volume), loam_free(p->ke), loam_free(p->fixed), loam_free(p->surface);
        loam_free(p);
    }
    loam_free((void*)f->def.node), loam_free((void*)f->def.tet), loam_free((void*)f->def.fixed), loam_free(f->mass);
    memset(f, 0, sizeof *f);
}

/* Element stiffness of linear elasticity, K_ab[i][j] = V (lambda g_a[i] g_b[j] + mu g_a[j] g_b[i] +
 * mu (g_a . g_b) delta_ij), from the Hessian of the energy mu eps:eps + lambda/2 tr(eps)^2. */
static void element_stiffness(const double* g, double vol, double lambda, double mu, double* ke) {
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
            const double *ga = g + 3 * a, *gb = g + 3 * b;
            double dot = ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                    ke[(3 * a + i) * 12 + 3 * b + j] = vol * (lambda * ga[i] * gb[j] + mu * ga[j] * gb[i] + (i == j ? mu * dot : 0.0));
        }
}

typedef struct face { int v[3]; } face;
static int by_face(const void* x, const void* y) {
    const face *a = x, *b = y;
    for (int k = 0; k < 3; ++k)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

/* Nodes on faces that belong to one tet only. */
static int mark_surface(const loam_mb_fem_def* d, unsigned char* surface) {
    face* f = loam_malloc(sizeof(face) * 4 * (size_t)d->ntet);
    if (!f) return 0;
    for (int t = 0; t < d->ntet; ++t)
        for (int k = 0; k < 4; ++k) {
            int v[3], n = 0;
            for (int j = 0; j < 4; ++j)
                if (j != k) v[n++] = d->tet[4 * t + j];
            if (v[0] > v[1]) { int x = v[0]; v[0] = v[1]; v[1] = x; }
            if (v[1] > v[2]) { int x = v[1]; v[1] = v[2]; v[2] = x; }
            if (v[0] > v[1]) { int x = v[0]; v[0] = v[1]; v[1] = x; }
            memcpy(f[4 * t + k].v, v, sizeof v);
        }
    size_t nf = 4 * (size_t)d->ntet;
    qsort(f, nf, sizeof(face), by_face);
    for (size_t i = 0; i < nf;) {
        size_t j = i + 1;
        while (j < nf && by_face(&f[i], &f[j]) == 0) ++j;
        if (j - i == 1)
            for (int k = 0; k < 3; ++k) surface[f[i].v[k]] = 1;
        i = j;
    }
    loam_free(f);
    return 1;
}

static loam_status validate(const loam_mb_model* m, const loam_mb_fem_def* d, loam_error* err) {
    int idx = m->nfem;
    if (memchr(d->name, 0, sizeof d->name) == NULL) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM piece %d: name is not terminated", idx);
    const char* n = d->name[0] ? d->name : "(unnamed)";
#define BAD(...) return loam_error_set(err, LOAM_ERR_INPUT, __VA_ARGS__)
    if (d->nnode < 4 || d->nnode > 1000000) BAD("multibody: FEM piece %d '%s': nnode = %d, expected 4 to 1000000", idx, n, d->nnode);
    if (d->ntet < 1 || d->ntet > 6000000) BAD("multibody: FEM piece %d '%s': ntet = %d, expected 1 to 6000000", idx, n, d->ntet);
    if (!d->node || !d->tet) BAD("multibody: FEM piece %d '%s': null node or tet array", idx, n);
    if (d->nfixed < 0 || d->nfixed > d->nnode || (d->nfixed > 0 && !d->fixed))
        BAD("multibody: FEM piece %d '%s': nfixed = %d (fixed %s), expected 0 to nnode with an array", idx, n, d->nfixed, d->fixed ? "given" : "NULL");
    if (!(d->young > 0.0 && isfinite(d->young))) BAD("multibody: FEM piece %d '%s': young = %g Pa, expected > 0", idx, n, d->young);
    if (!(d->poisson >= 0.0 && d->poisson < 0.5)) BAD("multibody: FEM piece %d '%s': poisson = %g, expected in [0, 0.5)", idx, n, d->poisson);
    if (!(d->density > 0.0 && isfinite(d->density))) BAD("multibody: FEM piece %d '%s': density = %g kg/m^3, expected > 0", idx, n, d->density);
    if (!(d->mass_damping >= 0.0 && isfinite(d->mass_damping)))
        BAD("multibody: FEM piece %d '%s': mass_damping = %g 1/s, expected >= 0", idx, n, d->mass_damping);
    if (!(d->stiffness_damping >= 0.0 && isfinite(d->stiffness_damping)))
        BAD("multibody: FEM piece %d '%s': stiffness_damping = %g s, expected >= 0", idx, n, d->stiffness_damping);
    if (d->lumped != 0 && d->lumped != 1) BAD("multibody: FEM piece %d '%s': lumped = %d, expected 0 or 1", idx, n, d->lumped);
    if (!(d->friction >= 0.0 && isfinite(d->friction))) BAD("multibody: FEM piece %d '%s': friction = %g, expected >= 0", idx, n, d->friction);
    for (int i = 0; i < 3 * d->nnode; ++i)
        if (!isfinite(d->node[i]) || fabs(d->node[i]) > 1e6) BAD("multibody: FEM piece %d '%s': node %d: coordinate %d = %g is not finite", idx, n, i / 3, i % 3, d->node[i]);
    for (int t = 0; t < d->ntet; ++t) {
        const int* v = d->tet + 4 * t;
        for (int k = 0; k < 4; ++k) {
            if (v[k] < 0 || v[k] >= d->nnode) BAD("multibody: FEM piece %d '%s': tet %d: node %d = %d, expected 0 to %d", idx, n, t, k, v[k], d->nnode - 1);
            for (int j = 0; j < k; ++j)
                if (v[j] == v[k]) BAD("multibody: FEM piece %d '%s': tet %d: node %d appears twice", idx, n, t, v[k]);
        }
    }
    for (int i = 0; i < d->nfixed; ++i)
        if (d->fixed[i] < 0 || d->fixed[i] >= d->nnode) BAD("multibody: FEM piece %d '%s': fixed[%d] = %d, expected 0 to %d", idx, n, i, d->fixed[i], d->nnode - 1);
#undef BAD
    return LOAM_OK;
}

/* Rest gradients and volume of tet t; returns the signed volume times 6 (0: degenerate). */
static double tet_gradients(const loam_mb_fem_def* d, int t, double* g) {
    const int* v = d->tet + 4 * t;
    loam_vec3d x0 = d3_load(d->node + 3 * v[0]);
    loam_vec3d e1 = d3_sub(d3_load(d->node + 3 * v[1]), x0), e2 = d3_sub(d3_load(d->node + 3 * v[2]), x0), e3 = d3_sub(d3_load(d->node + 3 * v[3]), x0);
    double det = d3_dot(e1, d3_cross(e2, e3));
    if (!(fabs(det) > 1e-300)) return 0.0;
    /* the rows of the inverse of [e1 e2 e3] (columns) are the gradients of N1, N2, N3 */
    loam_vec3d r1 = d3_scale(d3_cross(e2, e3), 1.0 / det), r2 = d3_scale(d3_cross(e3, e1), 1.0 / det), r3 = d3_scale(d3_cross(e1, e2), 1.0 / det);
    d3_store(g + 3, r1), d3_store(g + 6, r2), d3_store(g + 9, r3);
    d3_store(g, d3_neg(d3_add(d3_add(r1, r2), r3)));
    return det;
}

static loam_status mb_scoped_model_add_fem(loam_mb_model* m, const loam_mb_fem_def* d, loam_error* err) {
    if (!m || !d) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: add FEM: null model or definition");
    if (m->nfem >= 100000) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: add FEM: %d pieces already, at most 100000", m->nfem);
    loam_status st = validate(m, d, err);
    if (st != LOAM_OK) return st;
    if ((double)m->nfem_node + d->nnode > 1e7) return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM piece %d: too many nodes in all", m->nfem);
    loam_mb_fem* grown = loam_ctx_malloc(m->opt.context, sizeof *m->fem * (size_t)(m->nfem + 1));
    if (!grown) return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory for FEM piece %d", m->nfem);
    if (m->nfem > 0) memcpy(grown, m->fem, sizeof *m->fem * (size_t)m->nfem);
    loam_free(m->fem);
    m->fem = grown;
    loam_mb_fem* f = &m->fem[m->nfem];
    memset(f, 0, sizeof *f);
    f->def = *d;
    size_t nn = (size_t)d->nnode, nt = (size_t)d->ntet;
    double* node = loam_ctx_malloc(m->opt.context, sizeof(double) * 3 * nn);
    int* tet = loam_ctx_malloc(m->opt.context, sizeof(int) * 4 * nt);
    int* fixed = loam_ctx_malloc(m->opt.context, sizeof(int) * (size_t)(d->nfixed > 0 ? d->nfixed : 1));
    mb_fem_data* p = loam_ctx_calloc(m->opt.context, 1, sizeof *p);
    f->def.node = node, f->def.tet = tet, f->def.fixed = fixed, f->priv = p;
    f->mass = loam_ctx_calloc(m->opt.context, nn, sizeof(double));
    if (p) {
        p->grad = loam_ctx_malloc(m->opt.context, sizeof(double) * 12 * nt);
        p->volume = loam_ctx_malloc(m->opt.context, sizeof(double) * nt);
        p->ke = loam_ctx_malloc(m->opt.context, sizeof(double) * 144 * nt);
        p->fixed = loam_ctx_calloc(m->opt.context, nn, 1);
        p->surface = loam_ctx_calloc(m->opt.context, nn, 1);
    }
    int ok = node && tet && fixed && p && f->mass && p->grad && p->volume && p->ke && p->fixed && p->surface && mark_surface(d, p->surface);
    if (!ok) {
        mb_fem_free(f);
        return loam_error_set(err, LOAM_ERR_NOMEM, "multibody: out of memory for FEM piece %d (%d nodes, %d tets)", m->nfem, d->nnode, d->ntet);
    }
    memcpy(node, d->node, sizeof(double) * 3 * nn);
    memcpy(tet, d->tet, sizeof(int) * 4 * nt);
    if (d->nfixed > 0) memcpy(fixed, d->fixed, sizeof(int) * (size_t)d->nfixed);
    for (int i = 0; i < d->nfixed; ++i) p->fixed[fixed[i]] = 1;
    p->mu = d->young / (2.0 * (1.0 + d->poisson));
    p->lambda = d->young * d->poisson / ((1.0 + d->poisson) * (1.0 - 2.0 * d->poisson));
    for (int t = 0; t < d->ntet; ++t) {
        double det = tet_gradients(d, t, p->grad + 12 * t);
        if (det == 0.0) {
            mb_fem_free(f);
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM piece %d '%s': tet %d is degenerate (zero volume)", m->nfem, d->name, t);
        }
        p->volume[t] = fabs(det) / 6.0;
        element_stiffness(p->grad + 12 * t, p->volume[t], p->lambda, p->mu, p->ke + 144 * t);
        for (int k = 0; k < 4; ++k) {
            f->mass[tet[4 * t + k]] += d->density * p->volume[t] / 4.0;
        }
    }
    for (int i = 0; i < d->nnode; ++i)
        if (!(f->mass[i] > 0.0)) {
            mb_fem_free(f);
            return loam_error_set(err, LOAM_ERR_INPUT, "multibody: FEM piece %d '%s': node %d belongs to no tet (no mass)", m->nfem, d->name, i);
        }
    p->bw = loam_mb_fem_bandwidth(d->nnode, d->ntet, tet);
    f->node_adr = m->nfem_node;
    m->nfem_node += d->nnode;
    m->nfem += 1;
    return LOAM_OK;
}

/* In the model's context: the blocks of the layers below (contact's solvers, state files) go there. */
loam_status loam_mb_model_add_fem(loam_mb_model* m, const loam_mb_fem_def* d, loam_error* err) {
    loam_status r;
    LOAM_IN_CONTEXT(m ? m->opt.context : NULL, r = mb_scoped_model_add_fem(m, d, err));
    return r;
}
