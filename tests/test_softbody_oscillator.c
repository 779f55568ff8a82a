/* Issue 5 test 1: a spring-mass oscillator has period 2 pi sqrt(m/k) and, in the force solver without
 * damping, bounded energy; XPBD reaches the rigid limit as compliance -> 0 and the force solver's
 * trajectory as dt -> 0. */
#include <math.h>
#include <string.h>

#include "softbody_util.h"
#include "test_util.h"

static const double k_spring = 200.0, k_mass = 2.0, k_len = 0.1, k_amp = 0.02;

/* Mass 0 fixed at -rest length, mass 1 (2 kg) at the amplitude on x: the moving mass stays near the
 * origin, where float32 resolves its position best (the test is of the physics, not of rounding). */
static loam_softbody_robot* oscillator(void) {
    loam_softbody_robot* r = loam_softbody_robot_alloc(2, 1, 0, NULL);
    r->inv_mass[0] = 0.0f;
    r->inv_mass[1] = (float)(1.0 / k_mass);
    r->x[0] = (float)-k_len;
    r->x[1] = (float)k_amp;
    r->s0[0] = 0, r->s1[0] = 1, r->rest[0] = (float)k_len, r->material[0] = LOAM_SB_BONE;
    return r;
}

static loam_softbody_materials mats_k(double k) {
    loam_softbody_materials m = loam_softbody_default_materials(1.0f);
    m.m[LOAM_SB_BONE].k = (float)k;
    return m;
}

/* x(t) of mass 1 sampled every step. */
static void trajectory(loam_softbody_solver solver, double dt, int steps, double* out) {
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_VACUUM, d.zeta = 1.0f, d.dt = dt, d.solver = solver, d.iterations = 4;
    loam_softbody_materials m = mats_k(k_spring);
    loam_softbody_robot* r = oscillator();
    loam_softbody_pop* p = one_robot_pop(&d, &m, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    for (int n = 0; n < steps; ++n) {
        step_or_die(p, 1);
        out[n] = s.x[1];
    }
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

static void period_and_energy(void) {
    const double dt = 1e-3, omega = sqrt(k_spring / k_mass), period = 2.0 * M_PI / omega;
    int steps = (int)(100.0 * period / dt);
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_VACUUM, d.zeta = 1.0f, d.dt = dt;
    loam_softbody_materials m = mats_k(k_spring);
    loam_softbody_robot* r = oscillator();
    loam_softbody_pop* p = one_robot_pop(&d, &m, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    double e0 = 0.5 * k_spring * k_amp * k_amp, emax = 0.0, prev = k_amp, first = -1.0, last = -1.0;
    int crossings = 0;
    for (int n = 1; n <= steps; ++n) {
        step_or_die(p, 1);
        double u = s.x[1], v = s.vx[1];
        double e = 0.5 * k_mass * v * v + 0.5 * k_spring * u * u;
        emax = fmax(emax, fabs(e - e0) / e0);
        if (prev > 0.0 && u <= 0.0) { /* downward zero crossing, interpolated */
            double tc = dt * (n - 1 + prev / (prev - u));
            if (first < 0.0) first = tc;
            last = tc;
            ++crossings;
        }
        prev = u;
    }
    double measured = (last - first) / (crossings - 1);
    fprintf(stderr, "oscillator: period %.6g s, analytic %.6g s; energy drift %.3g of E0 over 100 periods\n", measured,
            period, emax);
    CHECK(fabs(measured - period) / period < 1e-3, "period %g s, analytic %g s", measured, period);
    CHECK(emax < 0.01, "energy drifted by %g of E0 over 100 periods", emax);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

/* XPBD against the force solver: XPBD is implicit Euler, first order, so the gap shrinks about
 * linearly with dt (omega dt = 0.04 -> 0.01). */
static void xpbd_meets_force(loam_softbody_solver solver) {
    double errs[2];
    const double dts[2] = {4e-3, 1e-3};
    for (int q = 0; q < 2; ++q) {
        int steps = (int)lround(0.5 / dts[q]);
        double* a = malloc(sizeof(double) * (size_t)steps);
        double* b = malloc(sizeof(double) * (size_t)steps);
        trajectory(LOAM_SB_FORCE, dts[q], steps, a);
        trajectory(solver, dts[q], steps, b);
        double e = 0.0;
        for (int n = 0; n < steps; ++n) e = fmax(e, fabs(a[n] - b[n]));
        errs[q] = e / k_amp;
        free(a);
        free(b);
    }
    CHECK(errs[1] < 0.05, "solver %d: XPBD vs force at dt 1e-3: %g of the amplitude", (int)solver, errs[1]);
    CHECK(errs[1] < errs[0] / 2.5, "solver %d: XPBD-force gap %g (dt 4e-3) -> %g (dt 1e-3) does not shrink with dt",
          (int)solver, errs[0], errs[1]);
}

/* Hanging mass under gravity: the static stretch is m g / k for every k, so it tends to 0 (rigid) as
 * the compliance 1/k does; a stiff pendulum swinging keeps its length. */
static void rigid_limit(loam_softbody_solver solver) {
    const double g = 9.81;
    double prev = INFINITY;
    for (double k = 1e2; k <= 1e8; k *= 100.0) {
        loam_softbody_def d = loam_softbody_default_def();
        d.env = LOAM_SB_LAND, d.floor_z = -10.0f, d.solver = solver, d.iterations = 10, d.zeta = 0.99f;
        loam_softbody_materials m = mats_k(k);
        loam_softbody_robot* r = oscillator();
        r->x[0] = 0.0f, r->x[1] = 0.0f, r->z[1] = (float)-k_len;
        loam_softbody_pop* p = one_robot_pop(&d, &m, r);
        step_or_die(p, 4000);
        loam_softbody_state s;
        loam_softbody_pop_state(p, 0, &s, NULL);
        double stretch = -s.z[1] - k_len, expect = k_mass * g / k;
        CHECK(fabs(stretch - expect) < 0.02 * expect + 2e-7, "solver %d, k %g: stretch %g m, m g / k = %g m",
              (int)solver, k, stretch, expect);
        CHECK(stretch < prev, "solver %d: stretch does not fall with compliance", (int)solver);
        prev = stretch;
        loam_softbody_pop_destroy(p);
        loam_softbody_robot_destroy(r);
    }
    /* Swinging from horizontal with k = 1e10 (compliance 1e-10 m/N): the length holds to 1e-5. */
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND, d.floor_z = -10.0f, d.solver = solver, d.iterations = 10, d.zeta = 1.0f;
    loam_softbody_materials m = mats_k(1e10);
    loam_softbody_robot* r = oscillator();
    r->x[0] = 0.0f, r->x[1] = (float)k_len;
    loam_softbody_pop* p = one_robot_pop(&d, &m, r);
    loam_softbody_state s;
    loam_softbody_pop_state(p, 0, &s, NULL);
    double worst = 0.0, lowest = 0.0;
    for (int n = 0; n < 2000; ++n) {
        step_or_die(p, 1);
        double len = sqrt((double)s.x[1] * s.x[1] + (double)s.z[1] * s.z[1]);
        worst = fmax(worst, fabs(len - k_len) / k_len);
        lowest = fmin(lowest, s.z[1]);
    }
    CHECK(worst < 1e-5, "solver %d: stiff pendulum length error %g", (int)solver, worst);
    CHECK(lowest < -0.99 * k_len, "solver %d: the pendulum did not swing down (lowest z %g)", (int)solver, lowest);
    loam_softbody_pop_destroy(p);
    loam_softbody_robot_destroy(r);
}

int main(void) {
    period_and_energy();
    xpbd_meets_force(LOAM_SB_XPBD_GS);
    xpbd_meets_force(LOAM_SB_XPBD_JACOBI);
    rigid_limit(LOAM_SB_XPBD_GS);
    rigid_limit(LOAM_SB_XPBD_JACOBI);
    TEST_MAIN_END();
}
