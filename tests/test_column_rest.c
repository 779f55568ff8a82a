/* A column at rest. 2500 spheres (r = 5 mm, 2500 kg/m^3, mu 0.5, default solver settings) start on a
 * staggered lattice of 11 layers in a tube with a floor and settle under gravity. Once settled, a
 * granular column is a static packing: every particle is held by its contacts, so
 *   - nothing moves: kinetic energy per particle below 1e-6 m g r (a speed of ~3e-4 m/s, one step
 *     moving a particle by 6e-5 r);
 *   - contacts hold: no overlap deeper than 5% of r;
 *   - the column does not wander: the container is fixed and axisymmetric, so its centre of mass
 *     has nothing to push it sideways once settled.
 * Any energy the solver injects (overlap correction turned into velocity, a non-converged contact
 * solve that leaves particles jiggling) shows up as kinetic energy that does not decay. */
#include <math.h>
#include <stdlib.h>

#include "loam/granular.h"
#include "test_scenes.h"
#include "test_util.h"

#define N 2500
#define R 0.005f
#define RHO 2500.0f
#define TUBE_R 0.1f      /* inner radius: ~230 lattice sites per layer, so 11 layers */
#define SETTLE 2000      /* steps before the checks (2 s; the lattice falls ~5 cm and comes to rest) */
#define WINDOW 500       /* steps over which rest is checked */

int main(void) {
    double t0 = ts_now();
    loam_granular_params p = loam_granular_default_params();
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    if (!w) TEST_MAIN_END();
    static float xyz[3 * N];
    int n = ts_column_in_tube(w, N, R, RHO, TUBE_R, xyz);
    if (n <= 0) TEST_MAIN_END();

    const double m = RHO * 4.0 / 3.0 * TS_PI * R * R * R, unit = m * TS_G * R; /* m g r, J */
    fprintf(stderr, "%d particles, %d lattice layers; KE per particle in units of m g r = %.3e J:\n", n,
            (int)lroundf((xyz[3 * (n - 1) + 2] - 1.1f * R) / (2.2f * R)) + 1, unit);
    double com_settled[3] = {0, 0, 0}, com_end[3];
    double ke_max = 0.0, overlap_max = 0.0;
    for (int k = 1; k <= SETTLE + WINDOW; ++k) {
        if (!ts_steps(w, 1)) break;
        double ke = ts_ke_per_particle(w) / unit;
        if (k % 250 == 0) {
            loam_step_stats st = loam_world_last_stats(w);
            fprintf(stderr, "  step %5d: KE %.3e, max overlap %.4f r, last sweep |dv| %.2e m/s\n", k, ke,
                    st.max_overlap / R, st.last_sweep_change);
        }
        if (k == SETTLE) ts_com(w, com_settled);
        if (k > SETTLE) {
            if (k > SETTLE + WINDOW - 100 && ke > ke_max) ke_max = ke;
            float ov = loam_world_last_stats(w).max_overlap;
            if (ov > overlap_max) overlap_max = ov;
        }
    }
    ts_com(w, com_end);
    double pair_overlap = ts_max_pair_overlap(w);
    /* And against the container, from positions: the floor is z = 0, the wall rho = TUBE_R. */
    double wall_overlap = 0.0;
    loam_particles ps = loam_world_particles(w);
    for (int i = 0; i < ps.count; ++i) {
        wall_overlap = fmax(wall_overlap, R - ps.z[i]);
        wall_overlap = fmax(wall_overlap, hypot(ps.x[i], ps.y[i]) + R - TUBE_R);
    }
    double drift = hypot(com_end[0] - com_settled[0], com_end[1] - com_settled[1]);
    fprintf(stderr,
            "after %d steps: max KE over the last 100 steps %.3e m g r; max overlap %.4f r (engine, last %d steps), "
            "%.4f r between particles and %.4f r against the tube (from positions, last step); centre of mass "
            "(%.5f, %.5f, %.5f) m, sideways drift %.2e m over the last %d steps; %.1f s\n",
            SETTLE + WINDOW, ke_max, overlap_max / R, WINDOW, pair_overlap / R, wall_overlap / R, com_end[0],
            com_end[1], com_end[2], drift, WINDOW, ts_now() - t0);
    CHECK(ke_max < 1e-6, "column not at rest: KE per particle %.3e m g r (limit 1e-6)", ke_max);
    CHECK(overlap_max < 0.05 * R, "overlap %.4f r (limit 0.05 r)", overlap_max / R);
    CHECK(pair_overlap < 0.05 * R, "overlap between particles from positions %.4f r (limit 0.05 r)", pair_overlap / R);
    CHECK(wall_overlap < 0.05 * R, "overlap with the tube from positions %.4f r (limit 0.05 r)", wall_overlap / R);
    /* The settled packing must not creep sideways: 1% of r over half a second. */
    CHECK(drift < 0.01 * R, "centre of mass drifted %.3e m (%.3f r) sideways in %d steps", drift, drift / R, WINDOW);
    /* And it sits where a packing can: below the lattice it fell from, above the floor. */
    CHECK(com_end[2] > R && com_end[2] < 0.5 * xyz[3 * (n - 1) + 2], "centre of mass height %g m", com_end[2]);
    loam_world_destroy(w);
    TEST_MAIN_END();
}
