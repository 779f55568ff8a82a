/* Free fall and a ballistic arc follow the exact symplectic-Euler sequence:
 * v_{k+1} = v_k + g dt, x_{k+1} = x_k + v_{k+1} dt (paper 000 eqs. 4-5), computed here in the same
 * float arithmetic, so the match is exact, not approximate. */
#include "loam/granular.h"
#include "test_util.h"

int main(void) {
    loam_granular_params p = loam_granular_default_params();
    p.dt = 1e-3;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    float xyz[6] = {0.0f, 0.0f, 10.0f, 5.0f, 0.0f, 10.0f};
    float vel[6] = {0.0f, 0.0f, 0.0f, 2.0f, -1.0f, 3.0f};
    float r[2] = {0.01f, 0.01f};
    CHECK(loam_world_add_particles(w, 2, xyz, vel, r, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    float x[6], v[6];
    for (int k = 0; k < 6; ++k) {
        x[k] = xyz[k];
        v[k] = vel[k];
    }
    float g[3] = {p.gravity.x, p.gravity.y, p.gravity.z}, dt = (float)p.dt;
    int exact = 1;
    for (int step = 0; step < 1000; ++step) {
        CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
        for (int k = 0; k < 6; ++k) {
            v[k] = (v[k] + g[k % 3] * dt) * 1.0f;
            x[k] += dt * v[k];
        }
        loam_particles ps = loam_world_particles(w);
        for (int slot = 0; slot < 2; ++slot) {
            int i = ps.id[slot]; /* slots are renumbered for locality; ids are stable */
            float got[6] = {ps.x[slot], ps.y[slot], ps.z[slot], ps.vx[slot], ps.vy[slot], ps.vz[slot]};
            float want[6] = {x[3 * i], x[3 * i + 1], x[3 * i + 2], v[3 * i], v[3 * i + 1], v[3 * i + 2]};
            for (int k = 0; k < 6; ++k)
                if (got[k] != want[k] && exact) {
                    exact = 0;
                    CHECK(0, "step %d particle %d component %d: got %.9g, want %.9g", step, i, k, got[k], want[k]);
                }
        }
    }
    /* And the sequence is the right physics: after 1 s the drop is g/2 t^2 + g dt t/2 (the
     * symplectic-Euler offset), within float rounding. */
    loam_particles ps = loam_world_particles(w);
    int s0 = ps.id[0] == 0 ? 0 : 1, s1 = 1 - s0;
    double t = 1.0, drop = 0.5 * 9.81 * t * t + 0.5 * 9.81 * p.dt * t;
    CHECK(fabs((10.0 - ps.z[s0]) - drop) < 1e-4, "drop %.6f, analytic %.6f", 10.0 - ps.z[s0], drop);
    /* 1000 float additions near x = 7 (ulp 4.8e-7) accumulate up to ~2.4e-4 of rounding. */
    CHECK(fabs(ps.x[s1] - (5.0 + 2.0 * t)) < 5e-4, "x %.6f", ps.x[s1]);
    loam_world_destroy(w);
    TEST_MAIN_END();
}
