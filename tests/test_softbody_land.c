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
    fprintf(stderr, "cube on the floor, solver %d: sag %.4g m, linear elasticity %.4g m; lowest mass %.3g m\n", (int)solver, sag,
            delta, (double)lowest);
    CHECK(fabs(sag - delta) < 0.1 * delta, "solver %d: sag %g m, linear elasticity %g m", (int)solver, sag, delta);
    CHECK(lowest >= d.floor_z, "solver %d: a mass sank to z = %g below the floor", (int)solver, (double)lowest);
    CHECK(speed < 1e-3, "solver %d: not at rest (speed %g m/s)", (int)solver, speed);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
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
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
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
            fprintf(stderr, "incline, solver %d: tan %.3g slid %.4g m, Coulomb %.4g m\n", (int)solver, tan(theta), moved, expect);
            CHECK(fabs(moved - expect) < 0.1 * expect, "solver %d: above the friction angle the block slid %g m, Coulomb %g m",
                  (int)solver, moved, expect);
        }
        loam_softbody_pop_destroy(p);
        loam_softbody_robot_destroy(r);
    }
}

/* Two unit cubes in one robot, without gravity, one thrown at the other face to face: mass-mass
 * contact (spatial hash and pair list) keeps their masses about two contact radii apart, hands most
 * of the thrown cube's momentum to the other (which then leads) and conserves the total (pushes
 * are equal and opposite). */
static void colliding_cubes(loam_softbody_solver solver) {
    const float h = 0.1f, r = 0.02f;
    loam_softbody_robot* one = box_robot(1, 1, 1, h, LOAM_SB_BONE);
    loam_softbody_robot* two = loam_softbody_robot_alloc(16, 56, 24, NULL);
    for (int c = 0; c < 2; ++c) {
        for (int i = 0; i < 8; ++i) {
            two->x[8 * c + i] = one->x[i] + (c ? 0.2f : 0.0f), two->y[8 * c + i] = one->y[i];
            two->z[8 * c + i] = one->z[i];
        }
        for (int k = 0; k < 28; ++k) {
            two->s0[28 * c + k] = one->s0[k] + 8 * c, two->s1[28 * c + k] = one->s1[k] + 8 * c;
            two->rest[28 * c + k] = one->rest[k], two->material[28 * c + k] = one->material[k];
        }
        for (int k = 0; k < 36; ++k) two->face[36 * c + k] = one->face[k] + 8 * c;
    }
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.solver = solver, d.iterations = 20, d.contact_radius = r, d.zeta = 1.0f;
    d.gravity = (loam_vec3){0.0f, 0.0f, 0.0f}, d.floor_z = -10.0f;
    loam_softbody_materials mats = loam_softbody_default_materials(1.0f);
    mats.m[LOAM_SB_BONE].k = 1e4f;
    loam_softbody_pop* p = one_robot_pop(&d, &mats, two);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    for (int i = 8; i < 16; ++i) s.vx[i] = -1.0f;
    double closest = 1.0, p0 = -8.0;
    for (int n = 0; n < 300; ++n) {
        step_or_die(p, 1);
        for (int i = 0; i < 8; ++i)
            for (int j = 8; j < 16; ++j) {
                double dx = s.x[i] - s.x[j], dy = s.y[i] - s.y[j], dz = s.z[i] - s.z[j];
                closest = fmin(closest, sqrt(dx * dx + dy * dy + dz * dz));
            }
    }
    double va = 0.0, vb = 0.0;
    for (int i = 0; i < 8; ++i) va += s.vx[i] / 8.0, vb += s.vx[8 + i] / 8.0;
    CHECK(closest > 0.75 * 2 * r, "solver %d: masses came within %g m (two radii %g m)", (int)solver, closest, 2.0 * r);
    CHECK(va < -0.5 && vb > -0.5 && va < vb, "solver %d: after the collision the cubes move at %g and %g m/s", (int)solver, va, vb);
    CHECK(fabs(8.0 * (va + vb) - p0) < 1e-3 * fabs(p0), "solver %d: momentum %g kg m/s, was %g", (int)solver, 8.0 * (va + vb),
          p0);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(two);
    loam_softbody_robot_destroy(one);
}

int main(void) {
    colliding_cubes(LOAM_SB_FORCE);
    colliding_cubes(LOAM_SB_XPBD_GS);
    static_sag(LOAM_SB_FORCE);
    static_sag(LOAM_SB_XPBD_GS);
    static_sag(LOAM_SB_XPBD_JACOBI);
    drop_does_not_tunnel();
    incline(LOAM_SB_FORCE);
    incline(LOAM_SB_XPBD_GS);
    incline(LOAM_SB_XPBD_JACOBI);
    TEST_MAIN_END();
}
