/* Kinematic, fixed and diverging bodies:
 * - a KINEMATIC floating body keeps the twist the host gave it (gravity does not act on it), and its
 *   pose is that twist integrated;
 * - a FIXED revolute joint holds its angle under gravity;
 * - a kinematic capsule sweeping along a frictionless floor pushes a resting ball ahead of it at its
 *   own speed (its known velocity enters the contact rows), and the ball does not sink;
 * - a step that blows up is LOAM_ERR_DIVERGED naming the step and the body. */
#include <math.h>
#include <string.h>

#include "loam/multibody.h"
#include "test_util.h"

static loam_mb_body_def free_body(const char* name, double mass, double I) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, name);
    b.joint = LOAM_JOINT_FLOATING;
    b.mass = mass;
    b.inertia[0] = b.inertia[1] = b.inertia[2] = I;
    return b;
}

static void kinematic_and_fixed(void) {
    loam_mb_body_def b[2] = {free_body("paddle", 3.0, 0.1), loam_mb_body_default_def()};
    b[0].motion = LOAM_MB_KINEMATIC;
    strcpy(b[1].name, "locked");
    b[1].joint = LOAM_JOINT_REVOLUTE, b[1].axis = (loam_vec3d){0, 1, 0}, b[1].motion = LOAM_MB_FIXED;
    b[1].mass = 1.0, b[1].com = (loam_vec3d){0.3, 0, 0}, b[1].inertia[0] = b[1].inertia[1] = b[1].inertia[2] = 0.01;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, 2, NULL, 0, NULL, &err)) != NULL, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    double qd[6] = {0.2, -0.1, 0.3, 0, 0, 0.5};
    memcpy(s->qd, qd, sizeof qd);
    s->q[7] = 0.4; /* the locked joint's angle */
    for (int n = 0; n < 1000; ++n) CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
    double t = s->time, dv = 0;
    for (int k = 0; k < 6; ++k) dv = fmax(dv, fabs(s->qd[k] - qd[k]));
    CHECK(dv == 0.0, "the kinematic body's velocity changed by %g", dv);
    CHECK(fabs(s->q[0] - 0.2 * t) < 1e-12 && fabs(s->q[1] + 0.1 * t) < 1e-12 && fabs(s->q[2] - 0.3 * t) < 1e-12, "kinematic position (%g %g %g)",
          s->q[0], s->q[1], s->q[2]);
    double yaw = 2.0 * atan2(s->q[6], s->q[3]);
    CHECK(fabs(yaw - 0.5 * t) < 1e-9, "kinematic yaw %.12g, expected %.12g", yaw, 0.5 * t);
    CHECK(s->q[7] == 0.4 && s->qd[6] == 0.0, "the fixed joint moved: q %g, qd %g", s->q[7], s->qd[6]);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void pusher(void) {
    const double R = 0.05, speed = 0.4;
    loam_mb_body_def b[2] = {free_body("pusher", 5.0, 0.1), free_body("ball", 0.2, 0.4 * 0.2 * R * R)};
    b[0].motion = LOAM_MB_KINEMATIC;
    loam_mb_geom_def g[3] = {loam_mb_geom_default_def(), loam_mb_geom_default_def(), loam_mb_geom_default_def()};
    g[0].body = -1, g[0].shape.type = LOAM_SHAPE_PLANE, g[0].shape.friction = 0.0;
    g[1].body = 0, g[1].shape.type = LOAM_SHAPE_CAPSULE, g[1].shape.size = (loam_vec3){0.03, 0, 0.1}, g[1].shape.friction = 0.0; /* upright */
    g[2].body = 1, g[2].shape.size.x = R, g[2].shape.friction = 0.0;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(b, 2, g, 3, NULL, &err)) != NULL, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    double q[14] = {-0.2, 0, 0.15, 1, 0, 0, 0, 0, 0, R, 1, 0, 0, 0};
    memcpy(s->q, q, sizeof q);
    s->qd[0] = speed;
    double lowest = 1.0;
    for (int n = 0; n < 1000; ++n) {
        CHECK(loam_mb_step(m, s, 1, &err) == LOAM_OK, "%s", err.message);
        lowest = fmin(lowest, s->q[9]);
    }
    /* after 1 s the capsule (axis at x = 0.2) has carried the ball: touching, moving at its speed */
    double gap = s->q[7] - s->q[0] - R - 0.03;
    CHECK(fabs(s->qd[6] - speed) < 1e-6, "ball speed %.9g, pusher %.9g", s->qd[6], speed);
    CHECK(gap < 1e-3 && gap > -1e-3, "ball %.4g m ahead of the pusher's surface", gap);
    CHECK(lowest > R - 1e-4, "the ball sank to z = %.6g", lowest);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

static void diverging(void) {
    loam_mb_body_def b = loam_mb_body_default_def();
    strcpy(b.name, "flywheel");
    b.joint = LOAM_JOINT_REVOLUTE, b.mass = 1.0, b.inertia[0] = b.inertia[1] = b.inertia[2] = 1e-6;
    loam_mb_model* m = NULL;
    loam_mb_state* s = NULL;
    loam_error err;
    CHECK((m = loam_mb_model_create(&b, 1, NULL, 0, NULL, &err)) != NULL, "%s", err.message);
    CHECK(m && (s = loam_mb_state_create(m, &err)) != NULL, "%s", err.message);
    if (!s) return;
    s->tau[0] = 1e300;
    loam_status st = LOAM_OK;
    for (int n = 0; n < 10 && st == LOAM_OK; ++n) st = loam_mb_step(m, s, 1, &err);
    CHECK(st == LOAM_ERR_DIVERGED && strstr(err.message, "flywheel") && strstr(err.message, "in step 1 "), "status %d: %s", (int)st, err.message);
    loam_mb_state_destroy(s);
    loam_mb_model_destroy(m);
}

int main(void) {
    kinematic_and_fixed();
    pusher();
    diverging();
    TEST_MAIN_END();
}
