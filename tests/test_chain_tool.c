/* A chain drives a tool in a granular world (loam_chain_drive): a paddle on a revolute joint about
 * z, 5 cm from the axis, sweeps a particle resting on a frictionless floor at 2 rad/s. The tool's
 * body follows the chain's forward kinematics exactly (no drift from integrating twists), and once
 * pushed, the particle moves at the paddle's speed at the contact, omega x r, as a velocity-level
 * contact without restitution gives; the reported force on the tool is non-zero only while they touch. */
#include <math.h>
#include <string.h>

#include "loam/chain.h"
#include "loam/granular.h"
#include "test_scenes.h"
#include "test_util.h"

int main(void) {
    loam_error err;
    loam_granular_params p = loam_granular_default_params();
    p.friction = 0.0f;
    loam_world* w = loam_world_create(&p, &err);
    loam_shape floor = ts_plane(0.0f);
    ts_add_fixed(w, "floor", &floor, 1);
    const float r = 0.005f;
    float xyz[3] = {0.0f, 0.08f, r}; /* on the floor, in the paddle's way a quarter turn on */
    CHECK(loam_world_add_particles(w, 1, xyz, NULL, &r, 2500.0f, &err) == LOAM_OK, "%s", err.message);

    loam_link_def link;
    memset(&link, 0, sizeof link);
    snprintf(link.name, sizeof link.name, "arm");
    link.parent = -1;
    link.placement = loam_pose_identity();
    link.joint = LOAM_JOINT_REVOLUTE;
    link.lower = -10.0f;
    link.upper = 10.0f;
    link.max_velocity = 5.0f;
    loam_chain chain;
    CHECK(loam_chain_init(&chain, &link, 1, loam_pose_identity(), &err) == LOAM_OK, "%s", err.message);

    loam_body_def paddle = loam_body_default_def();
    snprintf(paddle.name, sizeof paddle.name, "paddle");
    paddle.motion = LOAM_MOTION_COMMANDED;
    paddle.shape_count = 1;
    paddle.shapes[0].type = LOAM_SHAPE_BOX;
    paddle.shapes[0].local = loam_pose_identity();
    paddle.shapes[0].local.p = (loam_vec3){0.08f, 0.0f, 0.02f}; /* a plate along the arm's x axis */
    paddle.shapes[0].size = (loam_vec3){0.05f, 0.004f, 0.02f};
    paddle.shapes[0].friction = 0.0f;
    int body = loam_world_add_body(w, &paddle, &err);
    CHECK(body >= 0, "%s", err.message);
    int body_of_link[1] = {body};

    const float omega = 2.0f, dt = (float)p.dt;
    float cmd[1] = {omega};
    int touched = 0, force_in_air = 0;
    for (int k = 0; k < 1200; ++k) { /* 1.2 s: the paddle reaches the particle after ~0.75 s */
        CHECK(loam_chain_command(&chain, cmd, dt, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_chain_drive(&chain, w, body_of_link, &err) == LOAM_OK, "%s", err.message);
        if (loam_world_step(w, 1, &err) != LOAM_OK) {
            CHECK(0, "step %d: %s", k, err.message);
            break;
        }
        loam_chain_advance(&chain, dt);
        const loam_body_state* st = loam_world_body_state(w, body);
        float f = sqrtf(st->force.x * st->force.x + st->force.y * st->force.y);
        if (st->contacts > 0) ++touched;
        else if (f != 0.0f) ++force_in_air;
    }
    /* The world integrated the commanded twist during the last step; the chain's pose is the truth. */
    const loam_body_state* st = loam_world_body_state(w, body);
    float dq = 2.0f * acosf(fminf(1.0f, fabsf(st->pose.q.w * chain.pose[0].q.w + st->pose.q.z * chain.pose[0].q.z)));
    CHECK(dq < 1e-4f, "tool orientation %g rad from the chain's", dq);
    CHECK(fabsf(chain.q[0] - omega * 1.2f) < 1e-3f, "joint at %g rad after 1.2 s, want %g", chain.q[0], omega * 1.2f);
    loam_particles ps = loam_world_particles(w);
    float rad = sqrtf(ps.x[0] * ps.x[0] + ps.y[0] * ps.y[0]);
    float speed = sqrtf(ps.vx[0] * ps.vx[0] + ps.vy[0] * ps.vy[0]);
    /* Swept by the plate: the velocity normal to the plate equals omega times the contact radius. */
    float nx = -sinf(chain.q[0]), ny = cosf(chain.q[0]); /* the plate's normal, direction of sweep */
    float vn = ps.vx[0] * nx + ps.vy[0] * ny;
    CHECK(touched > 100, "the paddle touched the particle in only %d steps", touched);
    CHECK(force_in_air == 0, "%d steps with a force on the paddle but no contact", force_in_air);
    CHECK(fabsf(vn - omega * rad) < 0.02f * omega * rad, "particle at radius %g m moves %g m/s along the sweep, want %g",
          rad, vn, omega * rad);
    CHECK(speed > 0.1f, "particle speed %g m/s", speed);
    loam_world_destroy(w);
    TEST_MAIN_END();
}
