/* Jacobi's defaults and its per-contact over-relaxation (docs/solver.md, "Velocity solve").
 *
 * 1. The parameters: relaxation 0 and push_sweeps -1 (the defaults) mean the method's values,
 *    1 and 2 for Gauss-Seidel, 1.8 and 1 for Jacobi; values given are kept; out-of-range ones are
 *    refused.
 * 2. Mass-split Jacobi gives each contact about 1/n of the mass, so a few sweeps leave a pile
 *    compressed. Over-relaxation speeds up the convergence of the contact solve, so a column
 *    settled with Jacobi's default (omega 1.8) must end less compressed than with omega 1, and at
 *    rest. (A lone contact must still be solved exactly at 1.8: test_pair_collision and
 *    test_contact_plane run Jacobi at its defaults.) */
#include <math.h>
#include <string.h>

#include "loam/granular.h"
#include "test_scenes.h"
#include "test_util.h"

#define N 1200
#define R 0.005f
#define RHO 2500.0f
#define TUBE_R 0.05f /* ~55 lattice sites a layer: a column about 20 layers tall */
#define STEPS 1500

static void check_defaults(void) {
    loam_granular_params p = loam_granular_default_params();
    loam_error err;
    CHECK(loam_granular_relaxation(&p) == 1.0f && loam_granular_push_sweeps(&p) == 2,
          "Gauss-Seidel's defaults: relaxation %g, push sweeps %d (want 1, 2)", loam_granular_relaxation(&p),
          loam_granular_push_sweeps(&p));
    p.solver = LOAM_GRANULAR_SOLVER_JACOBI;
    CHECK(loam_granular_relaxation(&p) == 1.8f && loam_granular_push_sweeps(&p) == 1,
          "Jacobi's defaults: relaxation %g, push sweeps %d (want 1.8, 1)", loam_granular_relaxation(&p),
          loam_granular_push_sweeps(&p));
    CHECK(loam_granular_params_validate(&p, &err) == LOAM_OK, "defaults refused: %s", err.message);
    p.relaxation = 1.3f, p.push_sweeps = 0;
    CHECK(loam_granular_relaxation(&p) == 1.3f && loam_granular_push_sweeps(&p) == 0, "given values not kept");
    p.relaxation = -0.5f;
    CHECK(loam_granular_params_validate(&p, &err) != LOAM_OK && strstr(err.message, "relaxation"),
          "relaxation -0.5 accepted");
    p.relaxation = 2.5f;
    CHECK(loam_granular_params_validate(&p, &err) != LOAM_OK, "relaxation 2.5 accepted");
    p.relaxation = 0.0f, p.push_sweeps = -2;
    CHECK(loam_granular_params_validate(&p, &err) != LOAM_OK && strstr(err.message, "push_sweeps"),
          "push_sweeps -2 accepted");
}

/* Settles the column with Jacobi at relaxation omega (0: the default) and returns the largest
 * overlap over the last 200 steps, in r; *ke its kinetic energy per particle at the end, in m g r. */
static double settle_column(float omega, int push_sweeps, double* ke) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = LOAM_GRANULAR_SOLVER_JACOBI;
    p.relaxation = omega;
    p.push_sweeps = push_sweeps;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    if (!w) return INFINITY;
    static float xyz[3 * N];
    if (ts_column_in_tube(w, N, R, RHO, TUBE_R, xyz) <= 0) {
        loam_world_destroy(w);
        return INFINITY;
    }
    double worst = 0.0;
    for (int k = 1; k <= STEPS; ++k) {
        if (!ts_steps(w, 1)) break;
        if (k > STEPS - 200) worst = fmax(worst, loam_world_last_stats(w).max_overlap);
    }
    double m = RHO * 4.0 / 3.0 * TS_PI * R * R * R;
    *ke = ts_ke_per_particle(w) / (m * TS_G * R);
    loam_world_destroy(w);
    return worst / R;
}

int main(void) {
    check_defaults();
    double ke1, ke_default;
    double plain = settle_column(1.0f, 1, &ke1);
    double relaxed = settle_column(0.0f, -1, &ke_default);
    fprintf(stderr, "Jacobi column of %d: largest overlap %.4f r at omega 1, %.4f r at the default 1.8; KE %.2e and %.2e m g r\n",
            N, plain, relaxed, ke1, ke_default);
    CHECK(relaxed < 0.8 * plain, "over-relaxation did not tighten the column: %.4f r against %.4f r at omega 1", relaxed, plain);
    CHECK(ke_default < 1e-6, "Jacobi's default column not at rest: KE %.2e m g r per particle", ke_default);
    TEST_MAIN_END();
}
