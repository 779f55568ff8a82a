/* Overlap removal by split impulses (Catto, "Fast and Simple Physics using Sequential Impulses",
 * GDC 2006; Bullet's split impulse). Paper 000 adds the Baumgarte term alpha psi/dt to the velocity
 * problem, so the push that separates overlapping particles stays in their velocities as kinetic
 * energy; with warm starting and a few Jacobi sweeps a settling column then never comes to rest
 * (measured: kinetic energy stuck near 0.1 m g r per particle). Here the push is a separate,
 * normal-only problem on pseudo-velocities u that start from zero every step:
 *     find pseudo-impulses p_k >= 0 with  n . (u_i - u_j) >= alpha * overlap_k / dt,
 * swept over the rows like the velocities (Gauss-Seidel or mass-split Jacobi, solve.c); positions
 * move by dt (v + u) and u is dropped. push_sweeps = 0 restores the paper's form (the term inside
 * the velocity solve). */
#include "core/lanes.h"
#include "granular/rows.h"
#include "granular/row_sweep.h"
#include "granular/world_internal.h"

/* Push rows [lo, hi) of body contacts (see loam_rows_push). */
static float body_pushes(const loam_row_pass* pass, int lo, int hi, int b, float most) {
    loam_rows* r = &pass->w->coloring.rows;
    float rate = pass->alpha;
    size_t base = (size_t)b * LOAM_BLOCK;
    for (int q = lo; q < hi; ++q) {
        float gap = r->gap[q];
        if (!(gap < 0.0f)) continue;
        float* a = &pass->sv[4 * (base + r->i[q])];
        const float* pa = &pass->prev[4 * (base + r->i[q])];
        float nx = loam_normal_unpack(r->nx[q]), ny = loam_normal_unpack(r->ny[q]), nz = loam_normal_unpack(r->nz[q]);
        float un = nx * pa[0] + ny * pa[1] + nz * pa[2];
        float p = r->push[q] - loam_row_mass(r->omega, pa[3], a[3], pass->prev != pass->sv) * (un + rate * gap);
        p = p > 0.0f ? p : 0.0f;
        float di = a[3] * (p - r->push[q]);
        r->push[q] = p;
        a[0] = a[0] + di * nx;
        a[1] = a[1] + di * ny;
        a[2] = a[2] + di * nz;
    }
    return most;
}

static float pair_pushes(const loam_row_pass* p, int lo, int hi, int b, int colored, float most) {
    loam_rows* r = &p->w->coloring.rows;
#ifdef LOAM_HAVE_AVX2
    if (colored && loam_cpu_has_avx2()) {
        loam_rows_push_avx2(r, lo, hi, b * LOAM_BLOCK, p->sv, p->prev, p->alpha);
        return most;
    }
#endif
    (void)colored;
    loam_rows_push(r, lo, hi, b * LOAM_BLOCK, p->sv, p->prev, p->alpha);
    return most;
}

/* The solved velocities stored (sv to vx, vy, vz), and in their place the push velocities u = 0,
 * u.w = the inverse mass (0 for a sleeper), over lanes [i, i + m). */
LOAM_LANES_INLINE void store_and_clear_lanes(loam_world* w, int i, int m) {
    float* vel[3] = {w->vx, w->vy, w->vz};
    loam_f4 v[4], zero = f4_splat(0.0f);
    f4_load_rows(&w->sv[4 * (size_t)i], m, v);
    for (int a = 0; a < 3; ++a) f4_store_upto(&vel[a][i], v[a], m);
    loam_f4 im = f4_select(f4_int_eq_upto(&w->calm[i], m, LOAM_ASLEEP), f4_load_upto(&w->inv_mass[i], m), zero);
    f4_store_rows(&w->sv[4 * (size_t)i], m, zero, zero, zero, im);
}

/* The step's velocities are stored first and the pushes run in their buffer (sv): 16 bytes a
 * particle less than a buffer of their own. */
void loam_granular_push(loam_world* w) {
    int n = w->count, jacobi = w->params.solver == LOAM_GRANULAR_SOLVER_JACOBI, sweeps = loam_granular_push_sweeps(&w->params);
    if (sweeps <= 0) return;
    loam_row_pass push = {w,          w->sv,       jacobi ? w->sv_prev : w->sv, 0.0f, 0.0f,
                          w->params.baumgarte / (float)w->params.dt, pair_pushes, body_pushes};
#pragma omp parallel num_threads(w->team)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < n; i += 4) {
            if (n - i >= 4) store_and_clear_lanes(w, i, 4);
            else store_and_clear_lanes(w, i, n - i);
        }
        for (int s = 0; s < sweeps; ++s) {
            if (jacobi) loam_granular_jacobi_snapshot_for(w);
            loam_row_sweep(&push);
        }
    }
}
