/* The velocity solve of paper 000 (eqs. 1-3): sweeps of the contact update of Algorithm 1,
 *     lambda <- proj( lambda - m_eff (v_rel + bias n) ),
 * projected onto the Coulomb cone, over the contact rows (rows.h), in one of two ways:
 *
 * - Projected Gauss-Seidel by colour (default): a row's impulse change goes to both particles at
 *   once and the next row sees it, m_eff = omega / (1/m_i + 1/m_j). Rows of one colour share no
 *   particle, so a colour runs in parallel without atomics and the result does not depend on the
 *   thread count.
 * - Projected Jacobi (Algorithm 1 proper): every row of a sweep reads the velocities of the sweep
 *   before (a snapshot, sv_prev), and the changes add up in sv. Plain Jacobi lets each of a
 *   particle's n contacts correct the whole error at once, so the particle over-corrects n-fold and
 *   dense packings jitter or blow up; loam splits the mass (Tonge, Benevolenski, Voroshilov 2012):
 *   particle i becomes n_i sub-particles of mass m_i/n_i, one per contact, m_eff =
 *   omega_k / (n_i/m_i + n_j/m_j) (omega_k: loam_row_mass, rows.h), and adding every contact's
 *   change to the particle averages the sub-particles. Impulses stay equal and opposite (momentum is conserved exactly) and it converges
 *   without a tuned damping factor. The changes are added by the Gauss-Seidel schedule below, so no
 *   two threads write one particle (GranularGym adds to a neighbour's impulse without an atomic).
 *
 * Why Gauss-Seidel is the default: with mass splitting a contact gets only about 1/n of the mass, so
 * in a dense packing (n ~ 6 to 8) a Jacobi sweep corrects a fraction of what a Gauss-Seidel sweep
 * does. Measured on a 40-layer column at dt = 1e-3 with 3 sweeps, Jacobi left overlaps of 0.2 to
 * 0.3 r and the column kept creeping (0.16 r at its default over-relaxation, 1.8, which
 * loam_row_mass spreads over the rows); see docs/solver.md.
 *
 * Schedule (loam_coloring, color.c): each block's inner rows are swept by one thread, with no
 * barrier and its velocities in cache; then the rows that cross blocks, colour by colour. Pair rows
 * of one colour touch disjoint particles, so 8 of them are one AVX2 batch (rows_avx2.c) where
 * the CPU has it; its arithmetic is the scalar kernels' (rows.h), in the same order, so both give
 * the same bits. Reading the slot arrays in colour order instead cost five scattered loads per
 * contact per sweep (the solve took 70% of a step at rest).
 *
 * Normal target: the normal relative velocity may not be below -g/dt for a speculative contact with
 * gap g > 0 (it may close the gap, not more), and must be at least -alpha g/dt when overlapping: the
 * Baumgarte term alpha psi/dt of the paper. By default that overlap term is solved apart, on
 * pseudo-velocities (push.c), and alpha is 0 here. */
#include <math.h>

#include "core/lanes.h"
#include "core/vec.h"
#include "granular/rows.h"
#include "granular/row_sweep.h"
#include "granular/world_internal.h"

/* Velocity rows [lo, hi) of body contacts: the body's point velocity and friction come from the
 * slots and the body (body contacts are few). */
static float body_rows(const loam_row_pass* p, int lo, int hi, int b, float most) {
    loam_rows* r = &p->w->coloring.rows;
    size_t base = (size_t)b * LOAM_BLOCK;
    for (int q = lo; q < hi; ++q) {
        float mu;
        loam_vec3 vb = loam_body_contact_velocity(p->w, ~r->j[q], (int)(base + r->i[q]), &mu);
        float* a = &p->sv[4 * (base + r->i[q])];
        const float* pa = &p->prev[4 * (base + r->i[q])];
        float d[3], wi = a[3];
        float m = loam_row_mass(r->omega, pa[3], wi, p->prev != p->sv);
        loam_row_update(r, q, pa[0] - vb.x, pa[1] - vb.y, pa[2] - vb.z, m, mu, p->inv_dt, p->alpha, d);
        for (int k = 0; k < 3; ++k) a[k] = a[k] + wi * d[k];
        float d2 = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * wi * wi;
        most = d2 > most ? d2 : most;
    }
    return most;
}

static float pair_rows(const loam_row_pass* p, int lo, int hi, int b, int colored, float most) {
    loam_rows* r = &p->w->coloring.rows;
    int base = b * LOAM_BLOCK;
#ifdef LOAM_HAVE_AVX2
    if (colored && loam_cpu_has_avx2())
        return loam_rows_velocity_avx2(r, lo, hi, base, p->sv, p->prev, p->mu, p->inv_dt, p->alpha, most);
#endif
    (void)colored;
    return loam_rows_velocity(r, lo, hi, base, p->sv, p->prev, p->mu, p->inv_dt, p->alpha, most);
}

/* Warm start: each row's impulse applied to its particles (8 pair rows at a time where they share
 * no particle). Both methods add the whole impulse with the plain inverse mass. */
static float warm_pairs(const loam_row_pass* p, int lo, int hi, int b, int colored, float most) {
#ifdef LOAM_HAVE_AVX2
    if (colored && loam_cpu_has_avx2()) {
        loam_rows_warm_avx2(&p->w->coloring.rows, lo, hi, b * LOAM_BLOCK, p->sv);
        return most;
    }
#endif
    (void)colored;
    loam_rows_warm(&p->w->coloring.rows, lo, hi, b * LOAM_BLOCK, p->sv);
    return most;
}

static float warm_bodies(const loam_row_pass* p, int lo, int hi, int b, float most) {
    loam_rows_warm(&p->w->coloring.rows, lo, hi, b * LOAM_BLOCK, p->sv);
    return most;
}

/* Jacobi counts each particle's rows (its contacts, for the mass splitting) as the warm start
 * visits them: the rows' race-free schedule, so no atomics and no pass of its own. */
static void count_rows(const loam_row_pass* p, int lo, int hi, int b) {
    const loam_rows* r = &p->w->coloring.rows;
    int32_t* count = p->w->contact_total;
    for (int q = lo; q < hi; ++q) {
        count[b * LOAM_BLOCK + r->i[q]]++;
        if (r->j[q] >= 0) count[r->j[q]]++;
    }
}

static float warm_counting_pairs(const loam_row_pass* p, int lo, int hi, int b, int colored, float most) {
    count_rows(p, lo, hi, b);
    return warm_pairs(p, lo, hi, b, colored, most);
}

static float warm_counting_bodies(const loam_row_pass* p, int lo, int hi, int b, float most) {
    count_rows(p, lo, hi, b);
    return warm_bodies(p, lo, hi, b, most);
}

/* free velocity (gravity, damping; zero for a sleeper) and inverse mass into sv over lanes
 * [i, i + m). */
LOAM_LANES_INLINE void free_velocity_lanes(loam_world* w, int i, int m, const loam_f4 g[3], loam_f4 decay) {
    const float* vel[3] = {w->vx, w->vy, w->vz};
    loam_f4 zero = f4_splat(0.0f), asleep = f4_int_eq_upto(&w->calm[i], m, LOAM_ASLEEP), v[3];
    for (int a = 0; a < 3; ++a) v[a] = f4_select(asleep, f4_mul(f4_add(f4_load_upto(&vel[a][i], m), g[a]), decay), zero);
    f4_store_rows(&w->sv[4 * (size_t)i], m, v[0], v[1], v[2], f4_select(asleep, f4_load_upto(&w->inv_mass[i], m), zero));
}

/* A work-shared loop: call it inside a parallel region. Jacobi's contact counts are zeroed too. */
static void free_velocity_for(loam_world* w, int32_t* count) {
    int n = w->count;
    float dt = (float)w->params.dt;
    loam_vec3 gdt = v3_scale(w->params.gravity, dt);
    loam_f4 g[3] = {f4_splat(gdt.x), f4_splat(gdt.y), f4_splat(gdt.z)};
    loam_f4 decay = f4_splat(expf(-w->params.damping * dt));
#pragma omp for schedule(static)
    for (int i = 0; i < n; i += 4) {
        if (n - i >= 4) free_velocity_lanes(w, i, 4, g, decay);
        else free_velocity_lanes(w, i, n - i, g, decay);
        for (int k = i; count && k < i + 4 && k < n; ++k) count[k] = 0;
    }
}

void loam_granular_jacobi_snapshot_for(loam_world* w) {
    const float* sv = w->sv;
    float* prev = w->sv_prev;
    const int32_t* count = w->contact_total;
    int n = w->count;
#pragma omp for schedule(static)
    for (int i = 0; i < n; ++i) {
        float split = (float)(count[i] > 0 ? count[i] : 1);
        prev[4 * (size_t)i] = sv[4 * (size_t)i];
        prev[4 * (size_t)i + 1] = sv[4 * (size_t)i + 1];
        prev[4 * (size_t)i + 2] = sv[4 * (size_t)i + 2];
        prev[4 * (size_t)i + 3] = split * sv[4 * (size_t)i + 3];
    }
}

void loam_granular_solve(loam_world* w) {
    float alpha = loam_granular_push_sweeps(&w->params) > 0 ? 0.0f : w->params.baumgarte;
    int jacobi = w->params.solver == LOAM_GRANULAR_SOLVER_JACOBI;
    float tol2 = w->params.tolerance * w->params.tolerance;
    float change2[2] = {0.0f, 0.0f}; /* by sweep parity, so resetting one never races a reader */
    int sweeps = 0;
    loam_row_pass warm = {w, w->sv, w->sv, 0.0f, 0.0f, 0.0f, jacobi ? warm_counting_pairs : warm_pairs,
                          jacobi ? warm_counting_bodies : warm_bodies};
    loam_row_pass velocity = {w, w->sv, jacobi ? w->sv_prev : w->sv, w->params.friction, (float)(1.0 / w->params.dt),
                              alpha, pair_rows, body_rows};
    /* Detection left the positions and radii packed in the solver's velocity buffer. */
    float worst = loam_rows_refresh(w, w->sv);
    if (worst > w->stats.max_overlap) w->stats.max_overlap = worst;
#pragma omp parallel num_threads(w->team)
    {
        free_velocity_for(w, jacobi ? w->contact_total : NULL); /* its barrier orders it before the warm start */
        loam_row_sweep(&warm);
        int nsweeps = w->params.sweeps;
        for (int s = 0; s < nsweeps; ++s) {
            if (jacobi) loam_granular_jacobi_snapshot_for(w); /* its barrier: after the last sweep */
            float mine = loam_row_sweep(&velocity);
            /* The largest change is gathered (a critical section and a barrier) only where it is
             * used: after every sweep when there is a tolerance, else after the last one, for the
             * step's statistics. Barriers are the dear part of a small bed's sweep. */
            if (!(tol2 > 0.0f || s == nsweeps - 1)) continue;
#pragma omp critical(loam_solve_change)
            if (mine > change2[s & 1]) change2[s & 1] = mine;
#pragma omp barrier
            /* Clear the next gathering sweep's slot: every thread has read this one, and passes the
             * next sweep's first barrier (after this) before it writes the next. */
#pragma omp single nowait
            {
                sweeps = s + 1;
                change2[(s + 1) & 1] = 0.0f;
            }
            if (tol2 > 0.0f && change2[s & 1] < tol2) break; /* every thread sees the same value */
        }
#pragma omp barrier
        loam_rows_scatter_bodies(w);
    }
    w->coloring.lambda_in_rows = 1;
    w->stats.sweeps_run = sweeps;
    w->stats.last_sweep_change = sqrtf(change2[(sweeps - 1) & 1]);
}
