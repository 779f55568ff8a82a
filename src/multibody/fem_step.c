/* The FEM pieces' part of the step: co-rotational linear elasticity, linearly implicit backward Euler
 * (Mueller & Gross 2004; the form Drake and others use):
 *
 *   (M (1 + h alpha) + (h^2 + h beta) K(R)) v+ = M v + h (f_el(x) + M g + f_ext),   x+ = x + h v+,
 *   f_el,a = -sum_b R K0_ab (R^T x_b - X_b),   K(R)_ab = R K0_ab R^T,
 *
 * per element, with K0 its rest stiffness and R the rotation factor of its deformation gradient F
 * (the polar decomposition F = R S). R comes from Mueller et al.'s iterative extraction (2016),
 * warm-started from the last step's rotation: it always returns a proper rotation, also for inverted
 * elements (det F < 0), where an SVD-based polar factor would reflect and push the element further
 * inside out. Using the true polar factor per element (not per-node stiffness warping) keeps the
 * forces exactly rotation invariant, so a free piece conserves linear and angular momentum except for
 * the linearization of f_el. Fixed nodes are removed from the system (identity rows, zero velocity). */
#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "core/vecd.h"
#include "multibody/fem.h"
#include "multibody/mb_internal.h"

static loam_vec3d col(const mat3d* a, int j) { return d3(a->m[0][j], a->m[1][j], a->m[2][j]); }

/* The rotation closest to F, by fixed-point steps that turn R towards F's columns (Mueller, Bender,
 * Chentanez, Macklin: A robust method to extract the rotational part of deformations, 2016). */
static loam_quatd extract_rotation(const mat3d* F, loam_quatd q) {
    double scale = 0.0;
    for (int i = 0; i < 3; ++i) scale += d3_dot(col(F, i), col(F, i));
    for (int it = 0; it < 40; ++it) {
        mat3d R = qd_to_mat(q);
        loam_vec3d om = d3(0, 0, 0);
        double dot = 0.0;
        for (int i = 0; i < 3; ++i) {
            om = d3_add(om, d3_cross(col(&R, i), col(F, i)));
            dot += d3_dot(col(&R, i), col(F, i));
        }
        om = d3_scale(om, 1.0 / (fabs(dot) + 1e-12 * sqrt(scale) + 1e-300));
        double w = d3_norm(om);
        if (!(w > 1e-13)) break;
        q = qd_normalize(qd_mul(qd_from_axis_angle(d3_scale(om, 1.0 / w), w), q));
    }
    return q;
}

static void prepare_piece(const loam_mb_model* m, loam_mb_state* s, int fi) {
    mb_work* w = s->work;
    const loam_mb_fem* f = &m->fem[fi];
    const mb_fem_data* p = mb_fem_priv(f);
    const loam_mb_fem_def* d = &f->def;
    int nn = d->nnode, n = 3 * nn, bw = mb_fem_bandwidth(f), ld = 2 * bw + 1;
    double h = m->opt.dt, kscale = h * h + h * d->stiffness_damping, mscale = 1.0 + h * d->mass_damping;
    double* A = w->fem_A0 + w->fem_aoff[fi]; /* band-stored whole: row r's [c] at dense_band_row(A, bw, ld, r) */
    double* b = w->fem_vel + 3 * (size_t)f->node_adr;
    const double* x = s->fem_x + 3 * (size_t)f->node_adr;
    const double* v = s->fem_v + 3 * (size_t)f->node_adr;
    const double* fe = s->fem_f + 3 * (size_t)f->node_adr;
    memset(A, 0, sizeof(double) * (size_t)n * (size_t)ld);
    for (int i = 0; i < nn; ++i)
        for (int k = 0; k < 3; ++k) b[3 * i + k] = h * (f->mass[i] * d3_get(m->opt.gravity, k) + fe[3 * i + k]);
    if (d->lumped)
        for (int i = 0; i < nn; ++i)
            for (int k = 0; k < 3; ++k) {
                dense_band_row(A, bw, ld, 3 * i + k)[3 * i + k] += mscale * f->mass[i];
                b[3 * i + k] += f->mass[i] * v[3 * i + k];
            }
    double* rot = w->fem_rot + 4 * (size_t)w->fem_tet_adr[fi];
    for (int t = 0; t < d->ntet; ++t) {
        const int* vt = d->tet + 4 * t;
        const double* g = p->grad + 12 * t;
        mat3d F = m3_zero();
        for (int a = 0; a < 4; ++a)
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) F.m[i][j] += x[3 * vt[a] + i] * g[3 * a + j];
        loam_quatd q = extract_rotation(&F, qd_make(rot[4 * t], rot[4 * t + 1], rot[4 * t + 2], rot[4 * t + 3]));
        rot[4 * t] = q.w, rot[4 * t + 1] = q.x, rot[4 * t + 2] = q.y, rot[4 * t + 3] = q.z;
        mat3d R = qd_to_mat(q), Rt = m3_transpose(&R);
        double u[12], fl[12];
        for (int a = 0; a < 4; ++a) d3_store(u + 3 * a, d3_sub(m3_apply(&Rt, d3_load(x + 3 * vt[a])), d3_load(d->node + 3 * vt[a])));
        dense_matvec(p->ke + 144 * t, 12, 12, u, fl);
        const double* ke = p->ke + 144 * t;
        for (int a = 0; a < 4; ++a) {
            int ia = vt[a];
            if (p->fixed[ia]) continue;
            loam_vec3d fa = m3_apply(&R, d3_load(fl + 3 * a));
            for (int k = 0; k < 3; ++k) b[3 * ia + k] -= h * d3_get(fa, k);
            for (int bb = 0; bb < 4; ++bb) {
                int ib = vt[bb];
                if (p->fixed[ib]) continue;
                mat3d K0, KR;
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) K0.m[i][j] = ke[(3 * a + i) * 12 + 3 * bb + j];
                KR = m3_rotate_tensor(&R, &K0); /* R K0 R^T */
                double mab = d->lumped ? 0.0 : d->density * p->volume[t] / 20.0 * (a == bb ? 2.0 : 1.0);
                for (int i = 0; i < 3; ++i) {
                    double* row = dense_band_row(A, bw, ld, 3 * ia + i) + 3 * ib; /* |3 ib + j - (3 ia + i)| <= bw */
                    for (int j = 0; j < 3; ++j) row[j] += kscale * KR.m[i][j];
                    row[i] += mscale * mab;
                    b[3 * ia + i] += mab * v[3 * ib + i];
                }
            }
        }
    }
    for (int i = 0; i < nn; ++i) /* a fixed node: an identity row scaled by its mass, velocity 0 */
        if (p->fixed[i])
            for (int k = 0; k < 3; ++k) dense_band_row(A, bw, ld, 3 * i + k)[3 * i + k] = f->mass[i], b[3 * i + k] = 0.0;
}

int mb_fem_prepare(const loam_mb_model* m, loam_mb_state* s) {
    mb_work* w = s->work;
    for (int fi = 0; fi < m->nfem; ++fi) {
        const loam_mb_fem* f = &m->fem[fi];
        int n = 3 * f->def.nnode, bw = mb_fem_bandwidth(f), ld = 2 * bw + 1;
        prepare_piece(m, s, fi);
        double* L = w->fem_A + w->fem_aoff[fi];
        memcpy(L, w->fem_A0 + w->fem_aoff[fi], sizeof(double) * (size_t)n * (size_t)ld);
        if (dense_cholesky_band(L, n, bw, ld) >= 0) return fi;
        dense_cholesky_band_solve(L, n, bw, ld, w->fem_vel + 3 * (size_t)f->node_adr);
    }
    return -1;
}

int mb_fem_integrate(const loam_mb_model* m, loam_mb_state* s, int* bad_piece) {
    mb_work* w = s->work;
    double h = m->opt.dt;
    for (int fi = 0; fi < m->nfem; ++fi) {
        const loam_mb_fem* f = &m->fem[fi];
        const mb_fem_data* p = mb_fem_priv(f);
        for (int i = 0; i < f->def.nnode; ++i) {
            size_t o = 3 * ((size_t)f->node_adr + (size_t)i);
            for (int k = 0; k < 3; ++k) {
                double v = p->fixed[i] ? 0.0 : w->fem_vel[o + k];
                s->fem_v[o + k] = v;
                s->fem_x[o + k] = p->fixed[i] ? f->def.node[3 * i + k] : s->fem_x[o + k] + h * v;
                if (!isfinite(s->fem_x[o + k]) || fabs(s->fem_x[o + k]) > 1e9 || fabs(v) > 1e9) {
                    *bad_piece = fi;
                    return 0;
                }
            }
        }
    }
    return 1;
}
