/* Multibody test 1: a free rigid body (a floating joint to the world).
 * - Without gravity, linear momentum, angular momentum about the world origin and kinetic energy
 *   stay constant while the body tumbles about its unstable intermediate axis; the first flip of the
 *   body-frame spin comes when an independent RK4 integration of Euler's equations says it does.
 * - Under gravity the momentum grows as m g t and the centre of mass falls as g t^2 / 2 (to O(dt)).
 * Tolerances are stated next to each check; they hold with margin at dt = 1e-4 s. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

static const double I1 = 0.1, I2 = 0.2, I3 = 0.25, MASS = 2.0;

static loam_mb_model* make(loam_vec3d com, loam_vec3d gravity, double dt) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "brick");
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = MASS;
    b.com = com;
    b.inertia[0] = I1, b.inertia[1] = I2, b.inertia[2] = I3;
    loam_mb_options o = loam_mb_default_options();
    o.gravity = gravity;
    o.dt = dt;
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, &o, &err)) != NULL, "%s", err.message);
    return m;
}

static double vdiff(loam_vec3d a, loam_vec3d b) { return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)); }
static double vnorm(loam_vec3d a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

/* Body-frame angular velocity: R^T w_world, R from the state's pose. */
static loam_vec3d body_omega(const loam_mb_state* s) {
    loam_quatd q = s->xpose[0].q;
    double w[3] = {s->xvel[3], s->xvel[4], s->xvel[5]};
    /* rotate by the conjugate */
    double ux = -q.x, uy = -q.y, uz = -q.z;
    double tx = 2 * (uy * w[2] - uz * w[1]), ty = 2 * (uz * w[0] - ux * w[2]), tz = 2 * (ux * w[1] - uy * w[0]);
    return (loam_vec3d){w[0] + q.w * tx + (uy * tz - uz * ty), w[1] + q.w * ty + (uz * tx - ux * tz), w[2] + q.w * tz + (ux * ty - uy * tx)};
}

/* Euler's equations I w' = (I w) x w, principal axes, by classical RK4: time of the first sign change
 * of w_y. */
static double rk4_flip_time(const double w0[3], double h, double t_end) {
    double w[3] = {w0[0], w0[1], w0[2]};
    for (double t = 0.0; t < t_end; t += h) {
        double k[4][3], y[3];
        for (int s = 0; s < 4; ++s) {
            double c = s == 0 ? 0.0 : s == 3 ? 1.0 : 0.5;
            for (int i = 0; i < 3; ++i) y[i] = w[i] + (s == 0 ? 0.0 : c * h * k[s - 1][i]);
            k[s][0] = (I2 - I3) * y[1] * y[2] / I1;
            k[s][1] = (I3 - I1) * y[2] * y[0] / I2;
            k[s][2] = (I1 - I2) * y[0] * y[1] / I3;
        }
        double prev = w[1];
        for (int i = 0; i < 3; ++i) w[i] += h / 6.0 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
        if (prev > 0.0 && w[1] <= 0.0) return t + h;
    }
    return -1.0;
}

static void tumbling(loam_vec3d com) {
    const double dt = 1e-4, t_end = 8.0;
    loam_mb_model* m = make(com, (loam_vec3d){0, 0, 0}, dt);
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    /* Spin mostly about the intermediate (body y) axis; the body starts unrotated, so body = world. */
    const double w0[3] = {0.02, 4.0, 0.02};
    double q0[7] = {0.3, -0.2, 1.0, 1, 0, 0, 0};
    memcpy(s->q, q0, sizeof q0);
    /* The origin's velocity is the com's minus w x com, so the com moves at (0.5, -0.3, 0.2). */
    loam_vec3d vc = {0.5, -0.3, 0.2}, w = {w0[0], w0[1], w0[2]};
    loam_vec3d wxc = {w.y * com.z - w.z * com.y, w.z * com.x - w.x * com.z, w.x * com.y - w.y * com.x};
    double qd0[6] = {vc.x - wxc.x, vc.y - wxc.y, vc.z - wxc.z, w0[0], w0[1], w0[2]};
    memcpy(s->qd, qd0, sizeof qd0);
    CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
    loam_vec3d P0, L0, P, L;
    double T0, T;
    loam_mb_momentum(m, s, &P0, &L0);
    loam_mb_energy(m, s, &T0, NULL);
    double expect_T = 0.5 * MASS * vnorm(vc) * vnorm(vc) + 0.5 * (I1 * w0[0] * w0[0] + I2 * w0[1] * w0[1] + I3 * w0[2] * w0[2]);
    CHECK(fabs(T0 - expect_T) < 1e-12 * expect_T, "initial kinetic energy %.15g, by hand %.15g", T0, expect_T);
    CHECK(vdiff(P0, (loam_vec3d){MASS * vc.x, MASS * vc.y, MASS * vc.z}) < 1e-12, "initial momentum off");
    double worst_P = 0, worst_L = 0, worst_T = 0, flip = -1.0;
    int steps = (int)(t_end / dt + 0.5);
    for (int n = 0; n < steps; ++n) {
        double prev = body_omega(s).y;
        loam_status st = loam_mb_step(m, s, 1, &err);
        CHECK(st == LOAM_OK, "step %d: %s", n, err.message);
        if (st != LOAM_OK) break;
        if (flip < 0.0 && prev > 0.0 && body_omega(s).y <= 0.0) flip = s->time;
        loam_mb_momentum(m, s, &P, &L);
        loam_mb_energy(m, s, &T, NULL);
        worst_P = fmax(worst_P, vdiff(P, P0) / vnorm(P0));
        worst_L = fmax(worst_L, vdiff(L, L0) / vnorm(L0));
        worst_T = fmax(worst_T, fabs(T - T0) / T0);
    }
    double flip_ref = rk4_flip_time(w0, 1e-5, t_end);
    fprintf(stderr, "com (%g, %g, %g): drift over %g s: momentum %.2e, angular momentum %.2e, energy %.2e; first flip at %.4f s "
            "(RK4 of Euler's equations: %.4f s)\n", com.x, com.y, com.z, t_end, worst_P, worst_L, worst_T, flip, flip_ref);
    /* Stated tolerances (relative, worst over the run). With the frame at the com, the linear
     * equations decouple and momentum is exact to rounding. */
    double tol_P = (com.x == 0 && com.y == 0 && com.z == 0) ? 1e-10 : 1e-3;
    CHECK(worst_P < tol_P, "linear momentum drifted by %.3e (tolerance %.0e)", worst_P, tol_P);
    CHECK(worst_L < 5e-3, "angular momentum drifted by %.3e (tolerance 5e-3)", worst_L);
    CHECK(worst_T < 5e-3, "kinetic energy drifted by %.3e (tolerance 5e-3)", worst_T);
    CHECK(flip_ref > 0.0 && flip > 0.0 && fabs(flip - flip_ref) < 0.02 * flip_ref,
          "first flip of the intermediate axis at %.4f s, RK4 says %.4f s (tolerance 2%%)", flip, flip_ref);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void falling(void) {
    const double dt = 1e-3, t_end = 1.0;
    loam_vec3d g = {0.0, 0.0, -9.81}, com = {0.1, 0.05, -0.2};
    loam_mb_model* m = make(com, g, dt);
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    /* Tumbling while it falls, the com starting at rest: the origin moves at -w x com. */
    double w[3] = {1.0, -2.0, 0.5};
    s->qd[0] = -(w[1] * com.z - w[2] * com.y), s->qd[1] = -(w[2] * com.x - w[0] * com.z), s->qd[2] = -(w[0] * com.y - w[1] * com.x);
    s->qd[3] = w[0], s->qd[4] = w[1], s->qd[5] = w[2];
    CHECK(loam_mb_kinematics(m, s, &err) == LOAM_OK, "%s", err.message);
    loam_vec3d P0;
    loam_mb_momentum(m, s, &P0, NULL);
    loam_vec3d c0 = {com.x, com.y, com.z}; /* the pose is the identity */
    int steps = (int)(t_end / dt + 0.5);
    for (int n = 0; n < steps; ++n) CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    loam_vec3d P;
    loam_mb_momentum(m, s, &P, NULL);
    double t = s->time;
    loam_vec3d expect = {P0.x, P0.y, P0.z + MASS * g.z * t};
    CHECK(vdiff(P, expect) < 1e-3 * MASS * 9.81 * t, "momentum after %g s: (%g, %g, %g), expected (%g, %g, %g)", t, P.x, P.y, P.z,
          expect.x, expect.y, expect.z);
    /* com position: R c + p */
    loam_quatd q = s->xpose[0].q;
    double ux = q.x, uy = q.y, uz = q.z, tx = 2 * (uy * com.z - uz * com.y), ty = 2 * (uz * com.x - ux * com.z), tz = 2 * (ux * com.y - uy * com.x);
    loam_vec3d c = {s->xpose[0].p.x + com.x + q.w * tx + (uy * tz - uz * ty), s->xpose[0].p.y + com.y + q.w * ty + (uz * tx - ux * tz),
                    s->xpose[0].p.z + com.z + q.w * tz + (ux * ty - uy * tx)};
    double drop = c0.z - c.z, expect_drop = 0.5 * 9.81 * t * t;
    CHECK(fabs(drop - expect_drop) < 0.01 * expect_drop, "com fell %g m in %g s, expected %g m (1%%, first-order integrator)", drop, t,
          expect_drop);
    CHECK(fabs(c.x - c0.x) < 1e-3 && fabs(c.y - c0.y) < 1e-3, "com drifted sideways to (%g, %g)", c.x, c.y);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    tumbling((loam_vec3d){0, 0, 0});
    tumbling((loam_vec3d){0.05, -0.03, 0.08});
    falling();
    TEST_MAIN_END();
}
