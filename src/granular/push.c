/* Overlap removal by split impulses (Catto, "Fast and Simple Physics using Sequential Impulses",
 * GDC 2006; Bullet's split impulse). Paper 000 adds the Baumgarte term alpha psi/dt to the velocity
 * problem, so the push that separates overlapping particles stays in their velocities as kinetic
 * energy; with warm starting and a few Jacobi sweeps a settling column then never comes to rest
 * (measured: kinetic energy stuck near 0.1 m g r per particle). Here the push is a separate,
 * normal-only problem on pseudo-velocities that start from zero every step:
 *     find pseudo-impulses p_k >= 0 with  n . (u_i - u_j) >= alpha * overlap_k / dt,
 * solved by the same mass-split Jacobi sweeps; positions move by dt (v + u) and u is dropped.
 * push_sweeps = 0 restores the paper's form (the term inside the velocity solve). */
#include "core/vec.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

static void update_pushes(loam_world* w, int i, float target_rate) {
    const loam_contacts* c = &w->contacts;
    const float* u = w->push_velocity;
    const float* sv = w->sv; /* .w holds the mass-split inverse mass */
    float omega = w->params.relaxation;
    loam_vec3 ui = v3(u[4 * i], u[4 * i + 1], u[4 * i + 2]);
    float wi = sv[4 * i + 3];
    int s0 = c->pair_start[i], s1 = s0 + c->pair_count[i];
    for (int s = s0; s < s1; ++s) {
        const float* nd = &c->pair_n[4 * (size_t)s];
        if (nd[3] >= 0.0f) continue; /* not overlapping: nothing to push */
        int j = c->pair_j[s];
        float un = nd[0] * (ui.x - u[4 * j]) + nd[1] * (ui.y - u[4 * j + 1]) + nd[2] * (ui.z - u[4 * j + 2]);
        float p = c->pair_push[s] - omega / (wi + sv[4 * j + 3]) * (un + target_rate * nd[3]);
        c->pair_push[s] = p > 0.0f ? p : 0.0f;
    }
    s0 = c->body_start[i];
    s1 = s0 + c->body_count[i];
    for (int s = s0; s < s1; ++s) {
        const float* nd = &c->body_n[4 * (size_t)s];
        if (nd[3] >= 0.0f) continue;
        float un = nd[0] * ui.x + nd[1] * ui.y + nd[2] * ui.z;
        float p = c->body_push[s] - omega / wi * (un + target_rate * nd[3]);
        c->body_push[s] = p > 0.0f ? p : 0.0f;
    }
}

static void gather_push(loam_world* w, int i) {
    const loam_contacts* c = &w->contacts;
    loam_vec3 sum = v3(0, 0, 0);
    int s0 = c->pair_start[i], s1 = s0 + c->pair_count[i];
    for (int s = s0; s < s1; ++s) sum = v3_add(sum, v3_scale(v3(c->pair_n[4 * (size_t)s], c->pair_n[4 * (size_t)s + 1],
                                                                 c->pair_n[4 * (size_t)s + 2]), c->pair_push[s]));
    s0 = c->in_start[i];
    s1 = s0 + c->in_count[i];
    for (int k = s0; k < s1; ++k) {
        int s = c->in_slot[k];
        if (s < 0) continue;
        sum = v3_sub(sum, v3_scale(v3(c->pair_n[4 * (size_t)s], c->pair_n[4 * (size_t)s + 1], c->pair_n[4 * (size_t)s + 2]),
                                   c->pair_push[s]));
    }
    s0 = c->body_start[i];
    s1 = s0 + c->body_count[i];
    for (int s = s0; s < s1; ++s) sum = v3_add(sum, v3_scale(v3(c->body_n[4 * (size_t)s], c->body_n[4 * (size_t)s + 1],
                                                                 c->body_n[4 * (size_t)s + 2]), c->body_push[s]));
    float im = loam_solve_inv_mass(w, i);
    w->push_velocity[4 * i] = im * sum.x;
    w->push_velocity[4 * i + 1] = im * sum.y;
    w->push_velocity[4 * i + 2] = im * sum.z;
}

void loam_granular_push_reset(loam_world* w) {
    const loam_contacts* c = &w->contacts;
    int n = w->count;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) {
        w->push_velocity[4 * i] = w->push_velocity[4 * i + 1] = w->push_velocity[4 * i + 2] = 0.0f;
        for (int s = c->pair_start[i]; s < c->pair_start[i] + c->pair_count[i]; ++s) c->pair_push[s] = 0.0f;
        for (int s = c->body_start[i]; s < c->body_start[i] + c->body_count[i]; ++s) c->body_push[s] = 0.0f;
    }
}

void loam_granular_push(loam_world* w) {
    int n = w->count, sweeps = w->params.push_sweeps;
    if (sweeps <= 0) return;
    if (w->params.solver == LOAM_SOLVER_GAUSS_SEIDEL) {
        loam_granular_push_gs(w);
        return;
    }
    float rate = w->params.baumgarte / (float)w->params.dt;
    loam_granular_push_reset(w);
#pragma omp parallel
    {
        for (int s = 0; s < sweeps; ++s) {
#pragma omp for schedule(static)
            for (int i = 0; i < n; ++i) update_pushes(w, i, rate);
#pragma omp for schedule(static)
            for (int i = 0; i < n; ++i) gather_push(w, i);
        }
    }
}
