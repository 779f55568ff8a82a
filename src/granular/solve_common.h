/* Pieces shared by the Jacobi (solve.c, push.c) and Gauss-Seidel (solve_gs.c) sweeps. */
#ifndef LOAM_GRANULAR_SOLVE_COMMON_H
#define LOAM_GRANULAR_SOLVE_COMMON_H

#include "core/vec.h"
#include "granular/world_internal.h"

/* lambda <- proj( lambda - meff (v_rel + bias n) ): the paper's projection onto the Coulomb cone. */
static inline void loam_contact_update(float* lam, const float* nd, loam_vec3 vrel, float meff, float mu,
                                       float inv_dt, float alpha) {
    loam_vec3 n = v3(nd[0], nd[1], nd[2]);
    float gap = nd[3];
    float bias = gap > 0.0f ? gap * inv_dt : alpha * gap * inv_dt; /* alpha = 0 when pushes are split */
    /* The target drives the normal velocity to -bias and the tangential one to zero:
     * lambda - meff (v_t + (v_n + bias) n) = lambda - meff (v + bias n). */
    loam_vec3 l = v3(lam[0] - meff * (vrel.x + bias * n.x), lam[1] - meff * (vrel.y + bias * n.y),
                     lam[2] - meff * (vrel.z + bias * n.z));
    float ln = v3_dot(l, n);
    if (ln <= 0.0f) {
        lam[0] = lam[1] = lam[2] = 0.0f;
        return;
    }
    loam_vec3 lt = v3_sub(l, v3_scale(n, ln));
    float t2 = v3_dot(lt, lt), limit = mu * ln;
    if (t2 > limit * limit) lt = v3_scale(lt, limit / sqrtf(t2)); /* sliding: onto the cone */
    lam[0] = ln * n.x + lt.x;
    lam[1] = ln * n.y + lt.y;
    lam[2] = ln * n.z + lt.z;
}

/* Jacobi: sv = free velocity (gravity, damping) + warm-start impulses gathered over the incoming
 * lists; sv.w = mass-split inverse mass. */
void loam_granular_initial_velocity(loam_world* w);
/* Gauss-Seidel: sv = free velocity only (warm-start impulses are then applied by colour). A
 * work-shared loop: call it inside a parallel region (the solve's own, to save one). */
void loam_granular_free_velocity_for(loam_world* w);
/* Zero the pseudo-velocities and pseudo-impulses of the overlap removal. */
void loam_granular_push_reset(loam_world* w);
void loam_granular_solve_gs(loam_world* w, float alpha, int rows_valid);
/* Jacobi's slot copies (contacts.pair_lambda) of block b's pair impulses, from the rows their refs
 * name (Gauss-Seidel keeps pair impulses only in its rows). */
void loam_granular_block_rows_to_slots(loam_world* w, int b);
/* Room for `need` constraints in the colouring's list, rows and push arrays; 0 when out of memory. */
int loam_coloring_reserve(loam_coloring* k, int need);
void loam_granular_push_gs(loam_world* w);

#endif
