/* Issue 5 tests 2 and 3: a voxel cube on the floor settles at the sag the linear elasticity of its
 * springs predicts and never sinks through the floor; a block on an incline (gravity tilted by
 * theta) sticks below the friction angle and slides above it at the rate Coulomb's law gives. */
#include <math.h>

#include "softbody_util.h"
#include "test_util.h"

/* Unit cube of 28 equal springs k, bottom corners held by friction, top corners loaded by W = m g.
 * By symmetry a top corner moves (u, u, -delta) (u outward). Small-displacement equilibrium:
 *   x: -4 k u - k (u - delta)/2 - k (2u - delta)/3 = 0          ->  u = 5 delta / 31
 *   z:  k delta - k (u - delta) - k (2u - delta)/3 = W           ->  delta = 93 W / (192 k)
 * (edges, face diagonals and the body diagonal to the bottom; the top face's springs in x). */
static void static_sag(loam_softbody_solver solver) {
    const double k = 1e4, m = 1.0, g = 9.81, h = 0.1;
    const double delta = 93.0 * m * g / (192.0 * k);
    loam_softbody_robot* r = box_robot(1, 1, 1, (float)h, LOAM_SB_BONE);
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.solver = solver, d.iterations = 30, d.mu_static = 1.0f, d.mu_kinetic = 1.0f;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    mats.m[LOAM_SB_BONE].k = (float)k;
    loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    float lowest = 0.0f;
    for (int n = 0; n < 3000; ++n) {
        step_or_die(p, 1);
        for (int i = 0; i < s.mass_count; ++i) lowest = fminf(lowest, s.z[i]);
    }
    double top = 0.0, speed = 0.0;
    int tops = 0;
    for (int i = 0; i < s.mass_count; ++i) {
        if (r->z[i] > 0.5f * (float)h) top += s.z[i], ++tops;
        speed = fmax(speed, sqrt((double)s.vx[i] * s.vx[i] + (double)s.vy[i] * s.vy[i] + (double)s.vz[i] * s.vz[i]));
    }
    double sag = h - top / tops;
    CHECK(tops == 4, "top corners %d", tops);
    CHECK(fabs(sag - delta) < 0.1 * delta, "solver %d: sag %g m, linear elasticity %g m", (int)solver, sag, delta);
    CHECK(lowest >= d.floor_z, "solver %d: a mass sank to z = %g below the floor", (int)solver, (double)lowest);
    CHECK(speed < 1e-3, "solver %d: not at rest (speed %g m/s)", (int)solver, speed);
    loam_softbody_pop_free(p);
    loam_softbody_robot_free(r);
}

/* A cube dropped from 1 m lands at 4.4 m/s (4.4 mm per step) and must not pass
 * through the floor. */
static void drop_does_not_tunnel(void) {
    loam_softbody_robot* r = box_robot(2, 2, 2, 0.05f, LOAM_SB_BONE);
    for (int i = 0; i < r->mass_count; ++i) r->z[i] += 1.0f;
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND;
    loam_softbody_materials mats = loam_softbody_default_materials(100.0f);
    loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    float lowest = 1.0f;
    for (int n = 0; n < 1500; ++n) {
        step_or_die(p, 1);
        for (int i = 0; i < s.mass_count; ++i) lowest = fminf(lowest, s.z[i]);
    }
    CHECK(lowest >= 0.0f, "dropped cube: a mass reached z = %g", (double)lowest);
    CHECK(loam_softbody_pop_com(p, 0).z < 0.06f, "dropped cube did not land (com z %g)", (double)loam_softbody_pop_com(p, 0).z);
    loam_softbody_pop_free(p);
    loam_softbody_robot_free(r);
}

/* Velocity along the incline from Coulomb's law on the same integrator: per step the move is
 * dt v + dt^2 g (sin - mu_k cos), and v' = zeta move / dt (friction acts on the position step). */
static double predicted_slide(double theta, double mu_k, double zeta, double dt, int from, int to) {
    double v = 0.0, x = 0.0, x_from = 0.0, a = 9.81 * (sin(theta) - mu_k * cos(theta));
    for (int n = 0; n < to; ++n) {
        if (n == from) x_from = x;
        double move = dt * v + dt * dt * a;
        x += move;
        v = zeta * move / dt;
    }
    return x - x_from;
}

static void incline(loam_softbody_solver solver) {
    const double mu_s = 0.5, mu_k = 0.4, dt = 1e-3;
    const int from = 1000, to = 3000;
    for (int slide = 0; slide < 2; ++slide) {
        double theta = atan((slide ? 1.2 : 0.8) * mu_s);
        loam_softbody_robot* r = box_robot(2, 2, 1, 0.1f, LOAM_SB_BONE);
        loam_softbody_def d = loam_softbody_default_def();
        d.env = LOAM_SB_LAND, d.solver = solver, d.iterations = 20, d.dt = dt;
        d.mu_static = (float)mu_s, d.mu_kinetic = (float)mu_k;
        d.gravity.x = (float)(9.81 * sin(theta)), d.gravity.y = 0.0f, d.gravity.z = (float)(-9.81 * cos(theta));
        loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
        mats.m[LOAM_SB_BONE].k = 1e4f;
        loam_softbody_pop* p = one_robot_pop(&d, &mats, r);
        step_or_die(p, from);
        double x0 = loam_softbody_pop_com(p, 0).x;
        step_or_die(p, to - from);
        double moved = loam_softbody_pop_com(p, 0).x - x0;
        if (!slide) {
            CHECK(fabs(moved) < 1e-5, "solver %d: below the friction angle (tan %g = 0.8 mu_s) the block moved %g m",
                  (int)solver, tan(theta), moved);
        } else {
            double expect = predicted_slide(theta, mu_k, d.zeta, dt, from, to);
            CHECK(fabs(moved - expect) < 0.1 * expect, "solver %d: above the friction angle the block slid %g m, Coulomb %g m",
                  (int)solver, moved, expect);
        }
        loam_softbody_pop_free(p);
        loam_softbody_robot_free(r);
    }
}

int main(void) {
    static_sag(LOAM_SB_FORCE);
    static_sag(LOAM_SB_XPBD_GS);
    static_sag(LOAM_SB_XPBD_JACOBI);
    drop_does_not_tunnel();
    incline(LOAM_SB_FORCE);
    incline(LOAM_SB_XPBD_GS);
    incline(LOAM_SB_XPBD_JACOBI);
    TEST_MAIN_END();
}
