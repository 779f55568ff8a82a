/* Multibody test 5 (control part), on the shipped Panda URDF under gravity:
 * - PD position control plus gravity compensation (inverse dynamics) drives every joint to its target;
 * - PD alone settles where the spring balances gravity: kp (q_ref - q) equals the gravity torque at
 *   the final pose (from inverse dynamics), joint by joint;
 * - velocity control on a damped joint settles at kd qd_ref / (kd + damping);
 * - actuator forces never exceed the URDF's effort limits, even with huge gains. */
#include <math.h>
#include <string.h>

#include "loam/urdf.h"
#include "test_util.h"

static loam_mb_model* panda(double kp, double kd) {
    loam_urdf_options o = loam_urdf_default_options();
    loam_mb_model* m = NULL;
    loam_error err;
    CHECK((m = loam_urdf_load(LOAM_SOURCE_DIR "/urdf/panda.urdf", &o, &err)) != NULL, "%s", err.message);
    if (!m) return NULL;
    for (int i = 1; i <= 7; ++i) {
        m->body[i].control = LOAM_CONTROL_POSITION;
        m->body[i].kp = kp;
        m->body[i].kd = kd;
    }
    return m;
}

static const double target[7] = {0.4, -0.5, 0.3, -2.0, 0.6, 1.8, -0.7};

static void settle(int gravity_compensation) {
    loam_error err;
    loam_mb_model* m = panda(400.0, 40.0);
    if (!m) return;
    for (int i = 1; i <= 7; ++i) m->body[i].max_effort = 0.0; /* no clamp: the balance below is exact */
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    s->q[3] = -1.0; /* joint 4's range excludes 0 */
    memcpy(s->q_ref, target, sizeof target);
    double* g = s->tau;
    for (int n = 0; n < 4000; ++n) {
        if (gravity_compensation) {
            memset(s->qd_ref, 0, sizeof(double) * 7);
            /* tau = g(q): the torque that holds the arm still here */
            double save[7];
            memcpy(save, s->qd, sizeof save);
            memset(s->qd, 0, sizeof save);
            CHECK(loam_mb_inverse_dynamics(m, s, NULL, g, &err) == LOAM_OK, "%s", err.message);
            memcpy(s->qd, save, sizeof save);
        }
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    }
    double worst = 0, worst_v = 0;
    for (int j = 0; j < 7; ++j) worst = fmax(worst, fabs(s->q[j] - target[j])), worst_v = fmax(worst_v, fabs(s->qd[j]));
    if (gravity_compensation) {
        CHECK(worst < 1e-4 && worst_v < 1e-4, "with gravity compensation: %.3e rad from the targets, moving at %.3e rad/s", worst, worst_v);
        fprintf(stderr, "PD + gravity compensation: joints within %.2e rad of target after 4 s\n", worst);
    } else {
        /* Static balance: kp (q_ref - q) = g(q). */
        double gq[7];
        memset(s->qd, 0, sizeof(double) * 7);
        CHECK(loam_mb_inverse_dynamics(m, s, NULL, gq, &err) == LOAM_OK, "%s", err.message);
        double worst_bal = 0;
        for (int j = 0; j < 7; ++j) worst_bal = fmax(worst_bal, fabs(400.0 * (target[j] - s->q[j]) - gq[j]));
        CHECK(worst > 1e-3, "without compensation the arm should sag (%.3e rad)", worst);
        CHECK(worst_bal < 1e-6, "spring torque and gravity torque differ by %.3e N m", worst_bal);
        fprintf(stderr, "PD alone: sags up to %.3e rad; spring balances gravity to %.2e N m\n", worst, worst_bal);
    }
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void velocity_control(void) {
    loam_error err;
    loam_mb_model* m = panda(0.0, 0.0);
    if (!m) return;
    m->opt.gravity = (loam_vec3d){0, 0, 0};
    for (int i = 1; i <= 7; ++i) m->body[i].control = LOAM_CONTROL_TORQUE;
    m->body[1].control = LOAM_CONTROL_VELOCITY, m->body[1].kd = 30.0, m->body[1].damping = 10.0, m->body[1].limited = 0;
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    s->q[3] = -1.0;
    s->qd_ref[0] = 1.2;
    /* hold the other joints with stiff position servos about where they are */
    for (int i = 2; i <= 7; ++i) m->body[i].control = LOAM_CONTROL_POSITION, m->body[i].kp = 2000, m->body[i].kd = 100;
    memcpy(s->q_ref, s->q, sizeof(double) * 7);
    for (int n = 0; n < 5000; ++n) CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    double expect = 30.0 * 1.2 / (30.0 + 10.0);
    CHECK(fabs(s->qd[0] - expect) < 1e-6, "joint 1 turns at %.9g rad/s, expected kd qd_ref / (kd + damping) = %.9g", s->qd[0], expect);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void effort_limits(void) {
    loam_error err;
    loam_mb_model* m = panda(1e5, 1e3);
    if (!m) return;
    loam_mb_state* s = NULL;
    CHECK((s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    s->q[3] = -1.0;
    memcpy(s->q_ref, target, sizeof target);
    int saturated = 0;
    double worst = 0;
    for (int n = 0; n < 500; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        for (int j = 0; j < 7; ++j) {
            double lim = m->body[j + 1].max_effort;
            worst = fmax(worst, fabs(s->act_force[j]) - lim);
            saturated += fabs(fabs(s->act_force[j]) - lim) < 1e-12;
        }
    }
    CHECK(worst <= 1e-12, "an actuator exceeded its effort limit by %.3e N m", worst);
    CHECK(saturated > 0, "huge gains never reached the effort limit");
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    settle(1);
    settle(0);
    velocity_control();
    effort_limits();
    TEST_MAIN_END();
}
