/* Projected Jacobi on the velocity-level contact NCP of paper 000 (eqs. 1-3, Algorithm 1).
 *
 * Each contact k keeps its accumulated impulse lambda_k (on the lower-index particle i; its partner
 * gets -lambda_k). A sweep has two race-free halves:
 *   A. every contact computes a new lambda from the velocities of the previous sweep and projects it
 *      (normal >= 0, tangential within mu times normal);
 *   B. every particle recomputes its velocity from scratch, v = v_free + (1/m) sum(+-lambda).
 * No particle writes another particle's data, so there is no atomic and no race (GranularGym adds to
 * a neighbour's impulse from another thread).
 *
 * Relaxation by mass splitting (Tonge, Benevolenski, Voroshilov 2012): plain Jacobi lets each of a
 * particle's n contacts correct the whole error at once, so the particle over-corrects n-fold and
 * dense packings jitter or blow up. Instead particle i is split into n_i sub-particles of mass
 * m_i/n_i, one per contact, so a contact's effective mass is omega / (n_i/m_i + n_j/m_j); averaging
 * the sub-particles gives the B update above. Impulses stay equal and opposite, so momentum is
 * conserved exactly, and the iteration converges without a tuned damping factor. omega (the
 * `relaxation` parameter, default 1) scales it further.
 *
 * Normal target: the normal relative velocity v_n may not be below -g/dt for a speculative contact
 * with gap g > 0 (it may close the gap, not more), and must be at least -alpha g/dt when overlapping
 * (g < 0): the Baumgarte term alpha psi/dt of the paper.
 * By default that overlap term is solved apart, on pseudo-velocities (push.c), and alpha is 0 here. */
#include <math.h>
#include <string.h>

#include "core/lanes.h"
#include "core/vec.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

/* Half A for particle i: its owned pairs and its body contacts. */
static void update_contacts(loam_world* w, int i, float inv_dt, float alpha) {
    const loam_contacts* c = &w->contacts;
    const float* sv = w->sv;
    float omega = w->params.relaxation, mu = w->params.friction;
    loam_vec3 vi = v3(sv[4 * i], sv[4 * i + 1], sv[4 * i + 2]);
    float wi = sv[4 * i + 3];
    int s0 = c->pair_start[i], s1 = s0 + c->pair_count[i];
    for (int s = s0; s < s1; ++s) {
        int j = c->pair_j[s];
        loam_vec3 vrel = v3_sub(vi, v3(sv[4 * j], sv[4 * j + 1], sv[4 * j + 2]));
        float meff = omega / (wi + sv[4 * j + 3]);
        loam_contact_update(&c->pair_lambda[3 * (size_t)s], &c->pair_n[4 * (size_t)s], vrel, meff, mu, inv_dt, alpha);
    }
    s0 = c->body_start[i];
    s1 = s0 + c->body_count[i];
    for (int s = s0; s < s1; ++s) {
        const float* vb = &c->body_v[4 * (size_t)s];
        loam_vec3 vrel = v3_sub(vi, v3(vb[0], vb[1], vb[2]));
        loam_contact_update(&c->body_lambda[3 * (size_t)s], &c->body_n[4 * (size_t)s], vrel, omega / wi, vb[3], inv_dt,
                       alpha);
    }
}

/* Half B for particle i; returns |dv|^2 of this update. */
/* Velocity after gravity and damping, before contacts. */
static inline loam_vec3 free_velocity_of(const loam_world* w, int i, loam_vec3 gdt, float decay) {
    if (loam_is_asleep(w, i)) return v3(0.0f, 0.0f, 0.0f);
    return v3((w->vx[i] + gdt.x) * decay, (w->vy[i] + gdt.y) * decay, (w->vz[i] + gdt.z) * decay);
}

static float gather_velocity(loam_world* w, int i, loam_vec3 gdt, float decay) {
    const loam_contacts* c = &w->contacts;
    loam_vec3 sum = v3(0.0f, 0.0f, 0.0f);
    int s0 = c->pair_start[i], s1 = s0 + c->pair_count[i];
    for (int s = s0; s < s1; ++s) {
        const float* l = &c->pair_lambda[3 * (size_t)s];
        sum = v3_add(sum, v3(l[0], l[1], l[2]));
    }
    s0 = c->in_start[i];
    s1 = s0 + c->in_count[i];
    for (int k = s0; k < s1; ++k) {
        int s = c->in_slot[k];
        if (s < 0) continue;
        const float* l = &c->pair_lambda[3 * (size_t)s];
        sum = v3_sub(sum, v3(l[0], l[1], l[2]));
    }
    s0 = c->body_start[i];
    s1 = s0 + c->body_count[i];
    for (int s = s0; s < s1; ++s) {
        const float* l = &c->body_lambda[3 * (size_t)s];
        sum = v3_add(sum, v3(l[0], l[1], l[2]));
    }
    loam_vec3 v = v3_add(free_velocity_of(w, i, gdt, decay), v3_scale(sum, loam_solve_inv_mass(w, i)));
    float* sv = &w->sv[4 * i];
    loam_vec3 d = v3(v.x - sv[0], v.y - sv[1], v.z - sv[2]);
    sv[0] = v.x;
    sv[1] = v.y;
    sv[2] = v.z;
    return v3_dot(d, d);
}

void loam_granular_initial_velocity(loam_world* w) {
    int n = w->count;
    float dt = (float)w->params.dt;
    loam_vec3 gdt = v3_scale(w->params.gravity, dt);
    float decay = expf(-w->params.damping * dt);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        int nc = w->contact_total[i];
        w->sv[4 * i + 3] = (float)(nc > 0 ? nc : 1) * loam_solve_inv_mass(w, i);
        w->sv[4 * i] = w->sv[4 * i + 1] = w->sv[4 * i + 2] = 0.0f;
        gather_velocity(w, i, gdt, decay);
    }
}

/* free_velocity_of and loam_solve_inv_mass into sv over lanes [i, i + m). */
LOAM_LANES_INLINE void free_velocity_lanes(loam_world* w, int i, int m, const loam_f4 g[3], loam_f4 decay) {
    const float* vel[3] = {w->vx, w->vy, w->vz};
    loam_f4 zero = f4_splat(0.0f), asleep = f4_int_eq_upto(&w->calm[i], m, LOAM_ASLEEP), v[3];
    for (int a = 0; a < 3; ++a) v[a] = f4_select(asleep, f4_mul(f4_add(f4_load_upto(&vel[a][i], m), g[a]), decay), zero);
    f4_store_rows(&w->sv[4 * (size_t)i], m, v[0], v[1], v[2], f4_select(asleep, f4_load_upto(&w->inv_mass[i], m), zero));
}

void loam_granular_free_velocity_for(loam_world* w) {
    int n = w->count;
    float dt = (float)w->params.dt;
    loam_vec3 gdt = v3_scale(w->params.gravity, dt);
    loam_f4 g[3] = {f4_splat(gdt.x), f4_splat(gdt.y), f4_splat(gdt.z)};
    loam_f4 decay = f4_splat(expf(-w->params.damping * dt));
#pragma omp for schedule(static)
    for (int i = 0; i < n; i += 4) {
        if (n - i >= 4) free_velocity_lanes(w, i, 4, g, decay);
        else free_velocity_lanes(w, i, n - i, g, decay);
    }
}

static void run_sweeps(loam_world* w, int count, float alpha) {
    int n = w->count;
    float dt = (float)w->params.dt, inv_dt = 1.0f / dt;
    loam_vec3 gdt = v3_scale(w->params.gravity, dt);
    float decay = expf(-w->params.damping * dt);
    float tol2 = w->params.tolerance * w->params.tolerance;
    float change2 = 0.0f;
    int sweeps = 0;
    loam_granular_initial_velocity(w);
#pragma omp parallel
    {
        for (int s = 0; s < count; ++s) {
#pragma omp for schedule(static)
            for (int i = 0; i < n; ++i) update_contacts(w, i, inv_dt, alpha);
#pragma omp single
            change2 = 0.0f;
#pragma omp for schedule(static) reduction(max : change2)
            for (int i = 0; i < n; ++i) {
                float d2 = gather_velocity(w, i, gdt, decay);
                if (d2 > change2) change2 = d2;
            }
#pragma omp single
            sweeps = s + 1;
            if (tol2 > 0.0f && change2 < tol2) break; /* every thread sees the same change2 */
        }
    }
    w->stats.sweeps_run = sweeps;
    w->stats.last_sweep_change = sqrtf(change2);
}

void loam_granular_solve(loam_world* w, int rows_valid) {
    float alpha = w->params.push_sweeps > 0 ? 0.0f : w->params.baumgarte;
    if (w->params.solver == LOAM_SOLVER_JACOBI) run_sweeps(w, w->params.sweeps, alpha);
    else loam_granular_solve_gs(w, alpha, rows_valid);
}
