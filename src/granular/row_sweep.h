/* One pass over the contact rows in their solve order (loam_coloring, color.c), shared by the warm
 * start, the velocity sweeps (solve.c) and the push sweeps (push.c) of both methods. */
#ifndef LOAM_GRANULAR_ROW_SWEEP_H
#define LOAM_GRANULAR_ROW_SWEEP_H

#include "granular/world_internal.h"

typedef struct loam_row_pass loam_row_pass;
struct loam_row_pass {
    loam_world* w;
    float* sv;           /* (velocity, inverse mass) per particle: takes the rows' changes */
    const float* prev;   /* where rows read velocities and effective masses: sv (Gauss-Seidel) or
                            the sweep before's snapshot (Jacobi, loam_granular_jacobi_snapshot_for) */
    float mu, inv_dt, alpha; /* friction, 1/dt, Baumgarte fraction (velocity sweeps); the push rate
                                 in alpha (push sweeps) */
    /* Pair rows [lo, hi) of block b's region, which share no particle when `colored` (else one at
     * a time), and body rows [lo, hi) of it; each returns the largest |dv|^2, at least most. */
    float (*pairs)(const loam_row_pass* p, int lo, int hi, int b, int colored, float most);
    float (*bodies)(const loam_row_pass* p, int lo, int hi, int b, float most);
};

/* Inside a parallel region, every thread: each block's inner rows (any thread, any order: blocks
 * touch disjoint particles), then the crossing rows colour by colour, or on one thread when they are
 * few. Returns the largest |dv|^2 of the rows this thread ran. */
float loam_row_sweep(const loam_row_pass* p);

/* Jacobi, inside a parallel region: sv_prev = sv, with .w the mass-split inverse mass
 * max(n_i, 1) / m_i (n_i = contact_total[i]). */
void loam_granular_jacobi_snapshot_for(loam_world* w);

#endif
