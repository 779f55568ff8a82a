/* Two-body constraints:
 * - a pendulum in maximal coordinates (a free body held to a world pivot by a hard POINT constraint)
 *   swings as the closed-form pendulum integrated by RK4, with PGS and with SubADMM, and the pivot
 *   holds;
 * - a soft DISTANCE constraint is a spring: a free mass on it oscillates with period 2 pi sqrt(m/k),
 *   losing little amplitude to the implicit step;
 * - a hard POINT + ANGULAR pair welds a lopsided body to the world against gravity;
 * - a soft ANGULAR constraint is a torsion spring: period 2 pi sqrt(I/k);
 * - a NO_SLIP constraint makes a free cart a non-holonomic one: pushed sideways and forward it only
 *   rolls forward (a = F_forward / m); set turning, its velocity follows its heading (exactly the
 *   heading each step starts from) and its speed is kept (the constraint does no work; the loss per
 *   step is second order in omega dt);
 * - bad definitions name the constraint and the field. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

static const double G = 9.81, M = 1.3, A = 0.35, J = 0.02, PIVOT_Z = 1.0;

static double accel(double th) { return -M * A * G * sin(th) / (J + M * A * A); }

static void pendulum(loam_mb_solver solver, int iterations, double tol) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "bob");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = M, b.inertia[0] = J, b.inertia[1] = J, b.inertia[2] = 1e-4;
    loam_mb_options o = loam_mb_default_options();
    o.dt = 1e-4;
    o.solver = solver;
    o.iterations = iterations;
    o.tolerance = 1e-12;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    loam_mb_constraint_def c = loam_mb_constraint_default_def();
    strcpy(c.name, "pivot");
    c.side[0] = loam_mb_side_body(0), c.side[1] = loam_mb_side_world();
    c.anchor[0] = (loam_vec3d){0, 0, A}, c.anchor[1] = (loam_vec3d){0, 0, PIVOT_Z};
    CHECK(m && loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    double th0 = 0.8;
    double q[7] = {-A * sin(th0), 0, PIVOT_Z - A * cos(th0), cos(0.5 * th0), 0, sin(0.5 * th0), 0};
    memcpy(s->q, q, sizeof q);
    double ref[2] = {th0, 0}, worst = 0, drift = 0;
    for (int n = 0; n < 10000; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        for (int k = 0; k < 10; ++k) { /* RK4 of the closed form, dt/10 */
            double h = o.dt / 10, k1[2] = {ref[1], accel(ref[0])};
            double k2[2] = {ref[1] + 0.5 * h * k1[1], accel(ref[0] + 0.5 * h * k1[0])};
            double k3[2] = {ref[1] + 0.5 * h * k2[1], accel(ref[0] + 0.5 * h * k2[0])};
            double k4[2] = {ref[1] + h * k3[1], accel(ref[0] + h * k3[0])};
            for (int i = 0; i < 2; ++i) ref[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        }
        double th = 2.0 * atan2(s->q[5], s->q[3]);
        worst = fmax(worst, fabs(th - ref[0]));
        /* the pivot: body point (0, 0, A) against the world point */
        double px = s->q[0] + A * sin(th), pz = s->q[2] + A * cos(th);
        drift = fmax(drift, sqrt(px * px + s->q[1] * s->q[1] + (pz - PIVOT_Z) * (pz - PIVOT_Z)));
    }
    fprintf(stderr, "maximal-coordinate pendulum (%s): angle within %.2e rad of RK4 over 1 s, pivot drift %.2e m\n", loam_mb_solver_name(solver),
            worst, drift);
    CHECK(worst < tol, "%s: the angle strays %.3e rad from RK4 (tolerance %.0e)", loam_mb_solver_name(solver), worst, tol);
    CHECK(drift < 1e-5, "%s: the pivot drifted %.3e m", loam_mb_solver_name(solver), drift);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void spring(void) {
    const double mass = 2.0, k = 200.0, L0 = 1.0;
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "mass");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = mass, b.inertia[0] = b.inertia[1] = b.inertia[2] = 0.01;
    loam_mb_options o = loam_mb_default_options();
    o.gravity = (loam_vec3d){0, 0, 0};
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    loam_mb_constraint_def c = loam_mb_constraint_default_def();
    strcpy(c.name, "spring");
    c.type = LOAM_CONSTRAINT_DISTANCE, c.side[0] = loam_mb_side_body(0), c.side[1] = loam_mb_side_world(), c.length = L0, c.stiffness = k;
    CHECK(m && loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    s->q[0] = 1.1;
    double period = 2 * M_PI * sqrt(mass / k), first_min = -1, prev = s->q[0], prev2 = s->q[0], after_period = 0;
    for (int n = 0; n < 2000; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        if (first_min < 0 && prev < prev2 && prev <= s->q[0]) first_min = s->time - o.dt;
        prev2 = prev, prev = s->q[0];
        if (fabs(s->time - period) < 0.5 * o.dt) after_period = s->q[0];
    }
    fprintf(stderr, "soft distance spring: first turning point at %.4f s (T/2 = %.4f s), after one period x = %.5f (started 1.1)\n", first_min,
            0.5 * period, after_period);
    CHECK(fabs(first_min - 0.5 * period) < 0.01 * period, "turning point at %.4f s, T/2 = %.4f s", first_min, 0.5 * period);
    CHECK(after_period - L0 > 0.95 * 0.1 && after_period - L0 < 0.1 + 1e-9, "after one period the stretch is %.5f m (started 0.1)", after_period - L0);
    /* bad definitions */
    c.length = 0.0;
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "'spring'") && strstr(err.message, "length"),
          "%s", err.message);
    c.length = 1.0, c.side[1] = loam_mb_side_body(0);
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "side[0] and side[1] are both body 0"), "%s", err.message);
    /* typed sides: each bad side named with its kind and value */
    c.side[1] = loam_mb_side_body(12);
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "'spring': side[1]: body 12 out of range"), "%s",
          err.message);
    c.side[1].kind = 7;
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "side[1]: unknown kind 7"), "%s", err.message);
    c.side[1] = loam_mb_side_fem_node(0, 0); /* the model has no FEM piece */
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "side[1]: FEM piece 0 out of range"), "%s", err.message);
    c.side[1] = loam_mb_side_world(), c.side[1].index = 0; /* a body whose kind was left WORLD */
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "side[1] is the world with index 0"), "%s", err.message);
    c.side[0] = loam_mb_side_world(), c.side[1] = loam_mb_side_body(0);
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "side[0] is the world"), "%s", err.message);
    c.side[0] = loam_mb_side_body(0), c.side[1] = loam_mb_side_world();
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_OK, "%s", err.message);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void weld_and_torsion(void) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "block");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = 1.0, b.com = (loam_vec3d){0.2, 0, 0}, b.inertia[0] = 0.01, b.inertia[1] = 0.01, b.inertia[2] = 0.02;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, NULL, &err)) != NULL, "%s", err.message);
    loam_mb_constraint_def c[2] = {loam_mb_constraint_default_def(), loam_mb_constraint_default_def()};
    strcpy(c[0].name, "hold"), strcpy(c[1].name, "lock");
    c[0].side[0] = c[1].side[0] = loam_mb_side_body(0);
    c[1].type = LOAM_CONSTRAINT_ANGULAR;
    CHECK(m && loam_mb_model_set_constraints(m, c, 2, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    double worst = 0;
    for (int n = 0; n < 1000; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        worst = fmax(worst, fabs(s->q[0]) + fabs(s->q[1]) + fabs(s->q[2]) + fabs(s->q[4]) + fabs(s->q[5]) + fabs(s->q[6]));
    }
    CHECK(worst < 1e-6, "the welded block moved (%.3e)", worst);
    /* the weld carries the weight and its moment: m g and m g x 0.2 m per second of impulse */
    CHECK(fabs(s->constraint_impulse[2] - 9.81 * 1e-3) < 1e-9 && fabs(fabs(s->constraint_impulse[4]) - 9.81 * 0.2 * 1e-3) < 1e-9,
          "weld impulses: force z %.9g N s, moment y %.9g N m s", s->constraint_impulse[2], s->constraint_impulse[4]);
    loam_mb_state_destroy(s);

    /* torsion: pinned at its centre of mass, twisted 0.1 rad about z, no gravity */
    m->opt.gravity = (loam_vec3d){0, 0, 0};
    c[0].anchor[0] = (loam_vec3d){0.2, 0, 0}, c[0].anchor[1] = (loam_vec3d){0.2, 0, 0};
    c[1].stiffness = 2.0;
    CHECK(loam_mb_model_set_constraints(m, c, 2, &err) == LOAM_OK, "%s", err.message);
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    /* turn by 0.1 rad about the com (0.2, 0, 0): the origin moves to keep the com in place */
    double a = 0.1;
    s->q[0] = 0.2 - 0.2 * cos(a), s->q[1] = -0.2 * sin(a), s->q[3] = cos(0.5 * a), s->q[6] = sin(0.5 * a);
    double period = 2 * M_PI * sqrt(0.02 / 2.0), prev = a, prev2 = a, first = -1;
    for (int n = 0; n < 1000; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        double ang = 2 * atan2(s->q[6], s->q[3]);
        if (first < 0 && prev < prev2 && prev <= ang) first = s->time - m->opt.dt;
        prev2 = prev, prev = ang;
    }
    fprintf(stderr, "soft angular spring: first turning point at %.4f s (T/2 = %.4f s)\n", first, 0.5 * period);
    CHECK(fabs(first - 0.5 * period) < 0.01 * period, "torsion turning point at %.4f s, T/2 = %.4f s", first, 0.5 * period);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void no_slip(void) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "cart");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = 2.0, b.inertia[0] = 0.05, b.inertia[1] = 0.08, b.inertia[2] = 0.1;
    loam_mb_options o = loam_mb_default_options();
    o.gravity = (loam_vec3d){0, 0, 0};
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    loam_mb_constraint_def c = loam_mb_constraint_default_def();
    strcpy(c.name, "wheels");
    c.type = LOAM_CONSTRAINT_NO_SLIP, c.side[0] = loam_mb_side_body(0), c.side[1] = loam_mb_side_world(); /* rolls along its x, not along its y */
    CHECK(m && loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_OK, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    s->xfrc[0] = 1.0, s->xfrc[1] = 3.0; /* pushed forward and, harder, sideways */
    for (int n = 0; n < 1000; ++n) CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    CHECK(fabs(s->qd[0] - 0.5) < 1e-9 && fabs(s->qd[1]) < 1e-9, "pushed cart moves at (%.9g, %.9g) m/s, expected (0.5, 0)", s->qd[0], s->qd[1]);
    /* turning freely at 1 rad/s: the velocity turns with the heading, the speed stays */
    s->xfrc[0] = s->xfrc[1] = 0.0;
    s->qd[5] = 1.0;
    double worst_side = 0, speed0 = 0.5, speed = 0;
    for (int n = 0; n < 1500; ++n) {
        /* the row holds at the heading the step starts from (a velocity constraint, evaluated there) */
        double yaw = 2 * atan2(s->q[6], s->q[3]);
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        worst_side = fmax(worst_side, fabs(-sin(yaw) * s->qd[0] + cos(yaw) * s->qd[1]));
        speed = hypot(s->qd[0], s->qd[1]);
    }
    double yaw = 2 * atan2(s->q[6], s->q[3]);
    fprintf(stderr, "no-slip cart: after 1.5 rad of turning, sideways speed <= %.2e m/s (to the step's starting heading), speed %.6f m/s "
            "(from 0.5), heading %.4f rad\n",
            worst_side, speed, yaw);
    CHECK(worst_side < 1e-9, "the cart slid sideways at %.3e m/s", worst_side);
    CHECK(speed > 0.999 * speed0 && speed <= speed0 + 1e-12, "speed %.9f m/s after turning (from %.3f)", speed, speed0);
    CHECK(fabs(yaw - 1.5) < 1e-6, "heading %.9f rad, expected 1.5", yaw);
    c.stiffness = 1.0;
    CHECK(loam_mb_model_set_constraints(m, &c, 1, &err) == LOAM_ERR_INPUT && strstr(err.message, "'wheels'"), "%s", err.message);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    no_slip();
    weld_and_torsion();
    pendulum(LOAM_MB_SOLVER_PGS, 20, 5e-3);
    pendulum(LOAM_MB_SOLVER_SUBADMM, 200, 5e-3);
    spring();
    TEST_MAIN_END();
}
