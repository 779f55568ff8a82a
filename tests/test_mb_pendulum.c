/* Multibody test 2: a pendulum and a double pendulum built as articulations (revolute joints about
 * y, compound links with mass and rotational inertia) against their closed-form equations of motion,
 * written out here: the accelerations at random states agree to rounding, and loam's steps follow
 * an independent RK4 integration. Joint limits hold: a fast swing stops at the limit, and a
 * pendulum resting on a limit stays there with the impulse that gravity's torque needs. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

static const double G = 9.81;
/* Link k: mass m, com at distance a below its joint, inertia J about the com (y axis), length L to
 * the next joint. */
static const double M1 = 1.3, A1 = 0.35, J1 = 0.02, L1 = 0.6;
static const double M2 = 0.8, A2 = 0.25, J2 = 0.01;

static loam_mb_body_def link(const char* name, int parent, double z, double m, double a, double J) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, name);
    b.parent = parent;
    b.joint = LOAM_JOINT_REVOLUTE;
    b.axis = (loam_vec3d){0, 1, 0};
    b.placement.p = (loam_vec3d){0, 0, z};
    b.mass = m;
    b.com = (loam_vec3d){0, 0, -a};
    b.inertia[0] = J, b.inertia[1] = J, b.inertia[2] = 1e-4; /* a slender link: iyy = J about y */
    return b;
}

static loam_mb_model* make(int links, double dt, loam_error* err) {
    loam_mb_body_def b[2] = {link("upper", -1, 1.0, M1, A1, J1), link("lower", 0, -L1, M2, A2, J2)};
    loam_mb_options o = loam_mb_default_options();
    o.dt = dt;
    loam_mb_model* m = NULL;
    CHECK((m = loam_mb_model_create(b, links, NULL, 0, &o, err)) != NULL, "%s", err->message);
    return m;
}

/* Closed form, relative angles t1 = phi1, t2 = phi2 - phi1 (phi absolute from the downward vertical):
 * rotating (0, 0, -a) about y by phi puts the com at (-a sin phi, -a cos phi) in (x, z). */
static void double_pendulum_accel(const double* x, double* qdd) {
    double p1 = x[0], p2 = x[0] + x[1], w1 = x[2], w2 = x[2] + x[3];
    double m11 = J1 + M1 * A1 * A1 + M2 * L1 * L1, m12 = M2 * L1 * A2 * cos(p1 - p2), m22 = J2 + M2 * A2 * A2;
    double r1 = -(M2 * L1 * A2 * sin(p1 - p2) * w2 * w2 + (M1 * A1 + M2 * L1) * G * sin(p1));
    double r2 = -(-M2 * L1 * A2 * sin(p1 - p2) * w1 * w1 + M2 * A2 * G * sin(p2));
    double det = m11 * m22 - m12 * m12;
    double a1 = (r1 * m22 - m12 * r2) / det, a2 = (m11 * r2 - m12 * r1) / det;
    qdd[0] = a1;
    qdd[1] = a2 - a1;
}
static void single_pendulum_accel(const double* x, double* qdd) { qdd[0] = -M1 * A1 * G * sin(x[0]) / (J1 + M1 * A1 * A1); }

/* x = (q..., qd...) for n joints, classical RK4. */
static void rk4(void (*f)(const double*, double*), int n, double* x, double h) {
    double k[4][4], y[4];
    for (int s = 0; s < 4; ++s) {
        double c = s == 0 ? 0.0 : s == 3 ? 1.0 : 0.5;
        for (int i = 0; i < 2 * n; ++i) y[i] = x[i] + (s == 0 ? 0.0 : c * h * k[s - 1][i]);
        double a[2];
        f(y, a);
        for (int i = 0; i < n; ++i) k[s][i] = y[n + i], k[s][n + i] = a[i];
    }
    for (int i = 0; i < 2 * n; ++i) x[i] += h / 6.0 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
}

static void accelerations_match(void) {
    loam_error err;
    loam_mb_model* m = make(2, 1e-3, &err);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    unsigned seed = 7;
    double worst = 0;
    for (int trial = 0; trial < 100; ++trial) {
        double x[4];
        for (int i = 0; i < 4; ++i) {
            seed = seed * 1664525u + 1013904223u;
            x[i] = ((double)(seed >> 8) / 16777216.0 - 0.5) * (i < 2 ? 6.0 : 10.0);
        }
        s->q[0] = x[0], s->q[1] = x[1], s->qd[0] = x[2], s->qd[1] = x[3];
        double qdd[2], ref[2];
        CHECK(loam_mb_forward_dynamics(m, s, qdd, &err) == LOAM_OK, "%s", err.message);
        double_pendulum_accel(x, ref);
        worst = fmax(worst, fmax(fabs(qdd[0] - ref[0]), fabs(qdd[1] - ref[1])) / (1.0 + fabs(ref[0]) + fabs(ref[1])));
    }
    CHECK(worst < 1e-12, "double pendulum accelerations differ from the closed form by %.3e (relative)", worst);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

/* x0 = (q..., qd...) for the given number of links. */
static void trajectory(int links, const double* x0, double tol) {
    const double dt = 1e-4, t_end = 2.0;
    loam_error err;
    loam_mb_model* m = make(links, dt, &err);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    double ref[4] = {0, 0, 0, 0};
    memcpy(ref, x0, sizeof(double) * 2 * (size_t)links);
    for (int i = 0; i < links; ++i) s->q[i] = x0[i], s->qd[i] = x0[links + i];
    CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
    double T0, U0;
    loam_mb_energy(m, s, &T0, &U0);
    double worst = 0.0, worst_E = 0.0;
    int steps = (int)(t_end / dt + 0.5);
    for (int n = 0; n < steps; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        for (int k = 0; k < 10; ++k) rk4(links == 2 ? double_pendulum_accel : single_pendulum_accel, links, ref, dt / 10);
        for (int i = 0; i < links; ++i) worst = fmax(worst, fabs(s->q[i] - ref[i]));
        double T, U;
        loam_mb_energy(m, s, &T, &U);
        worst_E = fmax(worst_E, fabs(T + U - T0 - U0));
    }
    double scale = (M1 * A1 + M2 * L1) * G; /* J, the energy of lifting the links by a metre-ish radian */
    fprintf(stderr, "%s pendulum, dt %g s over %g s: joint angles within %.2e rad of RK4; energy drift %.2e J (%.2e of %.3g J)\n",
            links == 2 ? "double" : "single", dt, t_end, worst, worst_E, worst_E / scale, scale);
    CHECK(worst < tol, "joint angles strayed %.3e rad from RK4 (tolerance %.0e)", worst, tol);
    CHECK(worst_E < 2e-3 * scale, "energy drifted %.3e J (tolerance %.2e J)", worst_E, 2e-3 * scale);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void limits(void) {
    loam_error err;
    loam_mb_body_def b = link("arm", -1, 1.0, M1, A1, J1);
    b.limited = 1, b.lower = -0.3, b.upper = 0.3;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 1e-3;
    loam_mb_model* m = NULL;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    /* A fast swing: it must stop at either limit, never pass it. */
    s->q[0] = 0.25, s->qd[0] = 8.0;
    double hi = -1e9, lo = 1e9;
    for (int n = 0; n < 2000; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        hi = fmax(hi, s->q[0]), lo = fmin(lo, s->q[0]);
    }
    CHECK(hi <= 0.3 + 1e-9 && lo >= -0.3 - 1e-9, "joint left [-0.3, 0.3]: reached [%.9g, %.9g]", lo, hi);
    CHECK(hi > 0.3 - 1e-9, "the swing never reached the upper limit (max %.9g)", hi);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);

    /* Resting on a limit: gravity pulls the link towards 0; the lower limit 0.5 holds it there, with the
     * impulse gravity's torque needs per step. */
    b.lower = 0.5, b.upper = 1.0;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    s->q[0] = 0.7;
    for (int n = 0; n < 2000; ++n) CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    double expect = M1 * G * A1 * sin(0.5) * o.dt;
    CHECK(fabs(s->q[0] - 0.5) < 1e-9 && fabs(s->qd[0]) < 1e-9, "not at rest on the limit: q %.12g, qd %.3g", s->q[0], s->qd[0]);
    CHECK(fabs(s->limit_impulse[0] - expect) < 1e-9 * expect + 1e-12, "limit impulse %.9g N m s, gravity needs %.9g", s->limit_impulse[0],
          expect);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    accelerations_match();
    trajectory(1, (double[]){0.9, 0.5}, 2e-3);
    trajectory(2, (double[]){0.9, -0.4, 0.0, 1.5}, 1e-2);
    limits();
    TEST_MAIN_END();
}
