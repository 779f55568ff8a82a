/* Particle pairs in free space (no gravity), for both solvers. A head-on collision conserves
 * momentum exactly (impulses are equal and opposite) and, with no restitution in the velocity-level
 * contact, ends with both particles at the centre-of-mass velocity and no overlap beyond the push's
 * tolerance; an oblique pass at mu = 0 keeps the tangential velocities. Unequal masses and radii, so
 * the effective mass and the contact normal from the radii are exercised too. */
#include <math.h>

#include "loam/granular.h"
#include "test_util.h"

static loam_world* pair(loam_granular_solver solver, float offset_y, float mu) {
    loam_granular_params p = loam_granular_default_params();
    p.solver = solver;
    p.gravity = (loam_vec3){0, 0, 0};
    p.friction = mu;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    float xyz[6] = {-0.05f, 0.0f, 0.0f, 0.05f, offset_y, 0.0f};
    float vel[6] = {1.0f, 0.0f, 0.0f, -0.5f, 0.0f, 0.0f};
    float rad[2] = {0.01f, 0.006f};
    CHECK(loam_world_add_particles(w, 2, xyz, vel, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    return w;
}

static void run(loam_world* w, int steps, double* p0, double* p1, float* worst_overlap) {
    loam_error err;
    loam_particles ps = loam_world_particles(w);
    double m0 = 1.0 / ps.inv_mass[0], m1 = 1.0 / ps.inv_mass[1];
    *p0 = m0 * ps.vx[0] + m1 * ps.vx[1];
    *worst_overlap = 0.0f;
    for (int k = 0; k < steps; ++k) {
        CHECK(loam_world_step(w, 1, &err) == LOAM_OK, "%s", err.message);
        ps = loam_world_particles(w);
        float dx = ps.x[1] - ps.x[0], dy = ps.y[1] - ps.y[0], dz = ps.z[1] - ps.z[0];
        float over = ps.radius[0] + ps.radius[1] - sqrtf(dx * dx + dy * dy + dz * dz);
        if (over > *worst_overlap) *worst_overlap = over;
    }
    /* Slots are renumbered for locality: find the particles by identity. */
    int a = ps.id[0] == 0 ? 0 : 1, b = 1 - a;
    *p1 = (1.0 / ps.inv_mass[a]) * ps.vx[a] + (1.0 / ps.inv_mass[b]) * ps.vx[b];
}

int main(void) {
    loam_granular_solver solvers[] = {LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL, LOAM_GRANULAR_SOLVER_JACOBI};
    const char* names[] = {"gs", "jacobi"};
    for (int k = 0; k < 2; ++k) {
        double p0, p1;
        float over;
        loam_world* w = pair(solvers[k], 0.0f, 0.5f);
        run(w, 300, &p0, &p1, &over);
        loam_particles ps = loam_world_particles(w);
        double m0 = 1.0 / ps.inv_mass[0], m1 = 1.0 / ps.inv_mass[1];
        double vcm = p0 / (m0 + m1);
        CHECK(fabs(p1 - p0) < 1e-6 * fabs(p0), "%s: momentum %g -> %g", names[k], p0, p1);
        for (int i = 0; i < 2; ++i)
            CHECK(fabs(ps.vx[i] - vcm) < 1e-3 * fabs(vcm), "%s: particle %d ends at %g m/s, centre of mass %g m/s",
                  names[k], i, ps.vx[i], vcm);
        CHECK(over < 0.05f * 0.006f, "%s: largest overlap %g m", names[k], over);
        CHECK(loam_world_last_stats(w).contacts == 1, "%s: %d contacts at the end", names[k],
              loam_world_last_stats(w).contacts);
        loam_world_destroy(w);

        /* Oblique, frictionless: the contact normal is along the line of centres, so the y
         * velocities (zero) and the sum of x momenta stay; and the pair separates along y. */
        w = pair(solvers[k], 0.012f, 0.0f);
        run(w, 300, &p0, &p1, &over);
        ps = loam_world_particles(w);
        CHECK(fabs(p1 - p0) < 1e-6 * fabs(p0), "%s oblique: momentum %g -> %g", names[k], p0, p1);
        double py = ps.vy[0] / ps.inv_mass[0] + ps.vy[1] / ps.inv_mass[1];
        CHECK(fabs(py) < 1e-7, "%s oblique: y momentum %g", names[k], py);
        CHECK(fabs(ps.vy[0]) > 1e-3, "%s oblique: no deflection (vy %g)", names[k], ps.vy[0]);
        loam_world_destroy(w);
    }
    TEST_MAIN_END();
}
