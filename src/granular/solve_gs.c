/* Projected Gauss-Seidel by colour: the same contact update as the Jacobi sweeps (solve.c), but a
 * contact's impulse change is applied to both particles at once, and the next colour sees it.
 * Contacts of one colour share no particle, so a colour is solved in parallel without atomics and
 * the result does not depend on the thread count.
 *
 * Why it is the default: mass-split Jacobi must give each of a particle's n contacts only 1/n of
 * its mass, so in a dense packing (n ~ 6 to 8) every sweep corrects a fraction of what Gauss-Seidel
 * corrects with the full effective mass 1/(1/m_i + 1/m_j). Measured on a 40-layer column at
 * dt = 1e-3 with 3 sweeps, Jacobi left overlaps of 0.2 to 0.3 r and the column kept creeping;
 * see docs/solver.md. */
#include <math.h>

#include "core/vec.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

/* One constraint: a pair slot (ref >= 0) or a body slot (~ref). Returns |dv|^2 of the particles. */
static inline float gs_velocity(loam_world* w, int32_t ref, float inv_dt, float alpha) {
    loam_contacts* c = &w->cur;
    float* sv = w->sv;
    float omega = w->params.relaxation;
    if (ref >= 0) {
        int s = ref, j = c->pair_j[s];
        int i = c->pair_owner[s];
        float wi = sv[4 * i + 3], wj = sv[4 * j + 3]; /* inverse masses ride along in sv.w */
        loam_vec3 vrel = v3(sv[4 * i] - sv[4 * j], sv[4 * i + 1] - sv[4 * j + 1], sv[4 * i + 2] - sv[4 * j + 2]);
        float* lam = &c->pair_lambda[3 * (size_t)s];
        float old[3] = {lam[0], lam[1], lam[2]};
        loam_contact_update(lam, &c->pair_n[4 * (size_t)s], vrel, omega / (wi + wj), w->params.friction, inv_dt, alpha);
        loam_vec3 d = v3(lam[0] - old[0], lam[1] - old[1], lam[2] - old[2]);
        sv[4 * i] += wi * d.x;
        sv[4 * i + 1] += wi * d.y;
        sv[4 * i + 2] += wi * d.z;
        sv[4 * j] -= wj * d.x;
        sv[4 * j + 1] -= wj * d.y;
        sv[4 * j + 2] -= wj * d.z;
        return v3_dot(d, d) * (wi > wj ? wi * wi : wj * wj);
    }
    int s = ~ref, i = c->body_owner[s];
    float wi = w->inv_mass[i];
    const float* vb = &c->body_v[4 * (size_t)s];
    loam_vec3 vrel = v3(sv[4 * i] - vb[0], sv[4 * i + 1] - vb[1], sv[4 * i + 2] - vb[2]);
    float* lam = &c->body_lambda[3 * (size_t)s];
    float old[3] = {lam[0], lam[1], lam[2]};
    loam_contact_update(lam, &c->body_n[4 * (size_t)s], vrel, omega / wi, vb[3], inv_dt, alpha);
    loam_vec3 d = v3(lam[0] - old[0], lam[1] - old[1], lam[2] - old[2]);
    sv[4 * i] += wi * d.x;
    sv[4 * i + 1] += wi * d.y;
    sv[4 * i + 2] += wi * d.z;
    return v3_dot(d, d) * wi * wi;
}

/* Apply a constraint's warm-start impulse to its particles. */
static inline void gs_warm(loam_world* w, int32_t ref) {
    loam_contacts* c = &w->cur;
    float* sv = w->sv;
    if (ref >= 0) {
        int i = c->pair_owner[ref], j = c->pair_j[ref];
        const float* l = &c->pair_lambda[3 * (size_t)ref];
        float wi = sv[4 * i + 3], wj = sv[4 * j + 3]; /* inverse masses ride along in sv.w */
        for (int a = 0; a < 3; ++a) {
            sv[4 * i + a] += wi * l[a];
            sv[4 * j + a] -= wj * l[a];
        }
        return;
    }
    int s = ~ref, i = c->body_owner[s];
    const float* l = &c->body_lambda[3 * (size_t)s];
    for (int a = 0; a < 3; ++a) sv[4 * i + a] += w->inv_mass[i] * l[a];
}

void loam_granular_solve_gs(loam_world* w, float alpha) {
    const loam_coloring* k = &w->coloring;
    float inv_dt = (float)(1.0 / w->params.dt);
    float tol2 = w->params.tolerance * w->params.tolerance;
    float change2 = 0.0f;
    int sweeps = 0;
    loam_granular_free_velocity(w);
#pragma omp parallel
    {
        for (int col = 0; col < k->colors; ++col) {
            int lo = k->color_start[col], hi = k->color_start[col + 1];
            if (col == LOAM_MAX_COLORS) {
#pragma omp single
                for (int q = lo; q < hi; ++q) gs_warm(w, k->list[q]);
                continue;
            }
#pragma omp for schedule(static)
            for (int q = lo; q < hi; ++q) gs_warm(w, k->list[q]);
        }
        for (int s = 0; s < w->params.sweeps; ++s) {
#pragma omp single
            change2 = 0.0f;
            for (int col = 0; col < k->colors; ++col) {
                int lo = k->color_start[col], hi = k->color_start[col + 1];
                if (col == LOAM_MAX_COLORS) {
                    /* The serial rest: contacts here may share particles. */
#pragma omp single
                    for (int q = lo; q < hi; ++q) {
                        float d2 = gs_velocity(w, k->list[q], inv_dt, alpha);
                        if (d2 > change2) change2 = d2;
                    }
                    continue;
                }
#pragma omp for schedule(static) reduction(max : change2)
                for (int q = lo; q < hi; ++q) {
                    float d2 = gs_velocity(w, k->list[q], inv_dt, alpha);
                    if (d2 > change2) change2 = d2;
                }
            }
#pragma omp single
            sweeps = s + 1;
            if (tol2 > 0.0f && change2 < tol2) break;
        }
    }
    w->stats.sweeps_run = sweeps;
    w->stats.last_sweep_change = sqrtf(change2);
}

/* Overlap removal (push.c) by colour. */
static inline void gs_push(loam_world* w, int32_t ref, float rate) {
    loam_contacts* c = &w->cur;
    float* u = w->push_velocity;
    const float* sv = w->sv;
    float omega = w->params.relaxation;
    if (ref >= 0) {
        int s = ref;
        const float* nd = &c->pair_n[4 * (size_t)s];
        if (nd[3] >= 0.0f) return;
        int i = c->pair_owner[s], j = c->pair_j[s];
        float wi = sv[4 * i + 3], wj = sv[4 * j + 3]; /* inverse masses ride along in sv.w */
        float un = nd[0] * (u[3 * i] - u[3 * j]) + nd[1] * (u[3 * i + 1] - u[3 * j + 1]) + nd[2] * (u[3 * i + 2] - u[3 * j + 2]);
        float p = c->pair_push[s] - omega / (wi + wj) * (un + rate * nd[3]);
        p = p > 0.0f ? p : 0.0f;
        float d = p - c->pair_push[s];
        c->pair_push[s] = p;
        for (int a = 0; a < 3; ++a) {
            u[3 * i + a] += wi * d * nd[a];
            u[3 * j + a] -= wj * d * nd[a];
        }
        return;
    }
    int s = ~ref, i = c->body_owner[s];
    const float* nd = &c->body_n[4 * (size_t)s];
    if (nd[3] >= 0.0f) return;
    float wi = w->inv_mass[i];
    float un = nd[0] * u[3 * i] + nd[1] * u[3 * i + 1] + nd[2] * u[3 * i + 2];
    float p = c->body_push[s] - omega / wi * (un + rate * nd[3]);
    p = p > 0.0f ? p : 0.0f;
    float d = p - c->body_push[s];
    c->body_push[s] = p;
    for (int a = 0; a < 3; ++a) u[3 * i + a] += wi * d * nd[a];
}

void loam_granular_push_gs(loam_world* w) {
    const loam_coloring* k = &w->coloring;
    float rate = w->params.baumgarte / (float)w->params.dt;
    loam_granular_push_reset(w);
#pragma omp parallel
    for (int s = 0; s < w->params.push_sweeps; ++s)
        for (int col = 0; col < k->colors; ++col) {
            int lo = k->color_start[col], hi = k->color_start[col + 1];
            if (col == LOAM_MAX_COLORS) {
#pragma omp single
                for (int q = lo; q < hi; ++q) gs_push(w, k->list[q], rate);
                continue;
            }
#pragma omp for schedule(static)
            for (int q = lo; q < hi; ++q) gs_push(w, k->list[q], rate);
        }
}
