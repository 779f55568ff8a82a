/* Kinematic chains: the Panda's forward kinematics against the published zero pose (flange at
 * (0.088, 0, 0.926) m, pointing down) and against an independent 4x4 modified-DH product in double
 * at random joint angles; link twists against finite differences of the poses; velocity and
 * position limits; bad definitions. */
#include <math.h>
#include <string.h>

#include "loam/chain.h"
#include "loam/geom.h"
#include "test_util.h"

static float uniform(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

/* Flange pose by the textbook product T = prod_i RotX(alpha) TransX(a) RotZ(q) TransZ(d). */
static void panda_dh(const double q[7], double T[4][4]) {
    const double a[8] = {0, 0, 0, 0.0825, -0.0825, 0, 0.088, 0}, d[8] = {0.333, 0, 0.316, 0, 0.384, 0, 0, 0.107};
    const double al[8] = {0, -M_PI / 2, M_PI / 2, M_PI / 2, -M_PI / 2, M_PI / 2, M_PI / 2, 0};
    double M[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int i = 0; i < 8; ++i) {
        double th = i < 7 ? q[i] : 0.0, ca = cos(al[i]), sa = sin(al[i]), ct = cos(th), st = sin(th);
        double A[4][4] = {{ct, -st, 0, a[i]}, {st * ca, ct * ca, -sa, -d[i] * sa}, {st * sa, ct * sa, ca, d[i] * ca}, {0, 0, 0, 1}};
        double R[4][4];
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                R[r][c] = 0;
                for (int k = 0; k < 4; ++k) R[r][c] += M[r][k] * A[k][c];
            }
        memcpy(M, R, sizeof M);
    }
    memcpy(T, M, sizeof M);
}

static loam_vec3 rotate(loam_quat q, loam_vec3 v) { /* via the pose API, not core/vec.h */
    loam_pose p = {{0, 0, 0}, q};
    return loam_pose_apply(p, v);
}

int main(void) {
    loam_error err;
    loam_chain c;
    CHECK(loam_chain_panda(&c, loam_pose_identity(), &err) == LOAM_OK, "%s", err.message);
    CHECK(c.link_count == 8, "%d links", c.link_count);
    /* q = 0 is outside joint 4's range: set it explicitly to the zero pose's neighbour first. */
    float q[8] = {0, 0, 0, -0.0698f, 0, 0, 0, 0};
    CHECK(loam_chain_set_positions(&c, q, &err) == LOAM_OK, "%s", err.message);
    double qd7[7] = {0, 0, 0, -0.0698, 0, 0, 0}, T[4][4];
    panda_dh(qd7, T);
    loam_vec3 f = c.pose[7].p;
    CHECK(fabs(f.x - T[0][3]) < 1e-5 && fabs(f.y - T[1][3]) < 1e-5 && fabs(f.z - T[2][3]) < 1e-5,
          "flange (%g, %g, %g), DH (%g, %g, %g)", f.x, f.y, f.z, T[0][3], T[1][3], T[2][3]);
    double q0[7] = {0, 0, 0, 0, 0, 0, 0};
    panda_dh(q0, T);
    CHECK(fabs(T[0][3] - 0.088) < 1e-9 && fabs(T[1][3]) < 1e-9 && fabs(T[2][3] - 0.926) < 1e-9 && fabs(T[2][2] + 1) < 1e-9,
          "the reference DH product does not give the published zero pose: (%g, %g, %g)", T[0][3], T[1][3], T[2][3]);

    unsigned s = 5;
    int compared = 0;
    for (int trial = 0; trial < 200; ++trial) {
        for (int j = 0; j < 7; ++j) q[j] = uniform(&s, c.links[j].lower, c.links[j].upper);
        CHECK(loam_chain_set_positions(&c, q, &err) == LOAM_OK, "%s", err.message);
        double qq[7];
        for (int j = 0; j < 7; ++j) qq[j] = q[j];
        panda_dh(qq, T);
        loam_vec3 p = c.pose[7].p, ez = rotate(c.pose[7].q, (loam_vec3){0, 0, 1}), ex = rotate(c.pose[7].q, (loam_vec3){1, 0, 0});
        double dp = fabs(p.x - T[0][3]) + fabs(p.y - T[1][3]) + fabs(p.z - T[2][3]);
        double dr = fabs(ez.x - T[0][2]) + fabs(ez.y - T[1][2]) + fabs(ez.z - T[2][2]) + fabs(ex.x - T[0][0]) +
                    fabs(ex.y - T[1][0]) + fabs(ex.z - T[2][0]);
        CHECK(dp < 3e-6 && dr < 3e-6, "trial %d: flange off by %g m, axes by %g", trial, dp, dr);

        /* Twists: every link's origin velocity and angular velocity against poses a small step on. */
        float qdot[8] = {0};
        for (int j = 0; j < 7; ++j) qdot[j] = uniform(&s, -1.0f, 1.0f);
        const float h = 1e-3f;
        loam_chain moved = c;
        CHECK(loam_chain_command(&c, qdot, h, &err) == LOAM_OK, "%s", err.message);
        int near_limit = 0;
        for (int j = 0; j < 7; ++j) near_limit |= c.qd[j] != qdot[j];
        if (near_limit) continue; /* a joint was stopped at its limit: the comparison would not be like for like */
        float qh[8] = {0}, qm[8] = {0};
        for (int j = 0; j < 7; ++j) {
            qh[j] = q[j] + 0.5f * h * qdot[j];
            qm[j] = q[j] - 0.5f * h * qdot[j];
        }
        loam_chain plus = moved, minus = moved;
        if (loam_chain_set_positions(&plus, qh, &err) != LOAM_OK || loam_chain_set_positions(&minus, qm, &err) != LOAM_OK) continue;
        ++compared;
        for (int i = 0; i < 8; ++i) {
            loam_vec3 v = {(plus.pose[i].p.x - minus.pose[i].p.x) / h, (plus.pose[i].p.y - minus.pose[i].p.y) / h,
                           (plus.pose[i].p.z - minus.pose[i].p.z) / h};
            loam_vec3 t = c.twist[i].v;
            float err_v = fabsf(v.x - t.x) + fabsf(v.y - t.y) + fabsf(v.z - t.z);
            /* Angular: the axes' rates, d(e)/dt = w x e for e = x and z axes. */
            loam_vec3 exp_ = rotate(plus.pose[i].q, (loam_vec3){1, 0, 0}), exm = rotate(minus.pose[i].q, (loam_vec3){1, 0, 0});
            loam_vec3 ex0 = rotate(c.pose[i].q, (loam_vec3){1, 0, 0}), w = c.twist[i].w;
            loam_vec3 de = {(exp_.x - exm.x) / h, (exp_.y - exm.y) / h, (exp_.z - exm.z) / h};
            loam_vec3 wxe = {w.y * ex0.z - w.z * ex0.y, w.z * ex0.x - w.x * ex0.z, w.x * ex0.y - w.y * ex0.x};
            float err_w = fabsf(de.x - wxe.x) + fabsf(de.y - wxe.y) + fabsf(de.z - wxe.z);
            CHECK(err_v < 2e-3f && err_w < 2e-3f, "trial %d link %d: twist off by %g m/s, %g rad/s", trial, i, err_v, err_w);
        }
    }

    CHECK(compared > 150, "only %d twist comparisons ran", compared);

    /* Limits: a command beyond the speed limit is clamped; driving into a position limit stops there. */
    float zero[8] = {0, 0, 0, -1.5f, 0, 1.5f, 0, 0}, fast[8] = {10, 0, 0, 0, 0, 0, 0, 0};
    CHECK(loam_chain_set_positions(&c, zero, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_chain_command(&c, fast, 1e-3f, &err) == LOAM_OK && fabsf(c.qd[0] - 2.175f) < 1e-6f, "speed limit: %g", c.qd[0]);
    for (int k = 0; k < 3000; ++k) {
        loam_chain_command(&c, fast, 1e-3f, &err);
        loam_chain_advance(&c, 1e-3f);
    }
    CHECK(c.q[0] == c.links[0].upper && c.qd[0] == 0.0f, "position limit: q %g (upper %g), qd %g", c.q[0], c.links[0].upper,
          c.qd[0]);
    float nan_cmd[8] = {NAN};
    CHECK(loam_chain_command(&c, nan_cmd, 1e-3f, &err) == LOAM_ERR_INPUT, "NaN command accepted");
    float out_of_range[8] = {0, 0, 0, 0.5f, 0, 0, 0, 0};
    CHECK(loam_chain_set_positions(&c, out_of_range, &err) == LOAM_ERR_INPUT && strstr(err.message, "panda_link4"),
          "joint 4 at +0.5: %s", err.message);

    loam_link_def bad[2];
    memset(bad, 0, sizeof bad);
    bad[0].parent = -1;
    bad[0].placement = loam_pose_identity();
    bad[0].joint = LOAM_JOINT_REVOLUTE;
    bad[0].lower = -1;
    bad[0].upper = 1;
    bad[0].max_velocity = 1;
    bad[1] = bad[0];
    bad[1].parent = 1;
    CHECK(loam_chain_init(&c, bad, 2, loam_pose_identity(), &err) == LOAM_ERR_INPUT && strstr(err.message, "parent"),
          "self parent: %s", err.message);
    bad[1].parent = 0;
    bad[1].lower = 2;
    CHECK(loam_chain_init(&c, bad, 2, loam_pose_identity(), &err) == LOAM_ERR_INPUT && strstr(err.message, "limits"),
          "reversed limits: %s", err.message);
    TEST_MAIN_END();
}
