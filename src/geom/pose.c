/* Rigid transforms and rotations used by shapes, bodies and cameras. */
#include <math.h>

#include "core/vec.h"
#include "loam/geom.h"

loam_pose loam_pose_identity(void) {
    loam_pose p = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    return p;
}

loam_pose loam_pose_from_posed(loam_posed d) {
    loam_pose p = {{(float)d.p.x, (float)d.p.y, (float)d.p.z}, {(float)d.q.w, (float)d.q.x, (float)d.q.y, (float)d.q.z}};
    return p;
}

loam_posed loam_posed_from_pose(loam_pose f) {
    loam_posed p = {{f.p.x, f.p.y, f.p.z}, {f.q.w, f.q.x, f.q.y, f.q.z}};
    return p;
}

loam_vec3 loam_pose_apply(loam_pose pose, loam_vec3 local) {
    return v3_add(quat_rotate(pose.q, local), pose.p);
}

loam_vec3 loam_pose_apply_inverse(loam_pose pose, loam_vec3 world) {
    return quat_rotate(quat_conj(pose.q), v3_sub(world, pose.p));
}

loam_pose loam_pose_mul(loam_pose a, loam_pose b) {
    loam_pose r;
    r.q = quat_normalize(quat_mul(a.q, b.q));
    r.p = loam_pose_apply(a, b.p);
    return r;
}

loam_quat loam_quat_from_axis_angle(loam_vec3 axis, float angle) {
    loam_vec3 n = v3_normalize(axis);
    float s = sinf(0.5f * angle);
    return quat(cosf(0.5f * angle), n.x * s, n.y * s, n.z * s);
}

loam_quat loam_quat_from_euler_deg(loam_vec3 rpy) {
    const float k = (float)(M_PI / 180.0);
    loam_quat qz = loam_quat_from_axis_angle(v3(0, 0, 1), rpy.z * k);
    loam_quat qy = loam_quat_from_axis_angle(v3(0, 1, 0), rpy.y * k);
    loam_quat qx = loam_quat_from_axis_angle(v3(1, 0, 0), rpy.x * k);
    return quat_normalize(quat_mul(quat_mul(qz, qy), qx));
}

loam_quat loam_quat_slerp(loam_quat a, loam_quat b, float t) {
    double dot = (double)a.w * b.w + (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z;
    if (dot < 0.0) { /* take the short way round */
        b = quat(-b.w, -b.x, -b.y, -b.z);
        dot = -dot;
    }
    double wa, wb;
    if (dot > 0.9995) { /* nearly parallel: lerp is exact enough and avoids 0/0 */
        wa = 1.0 - t;
        wb = t;
    } else {
        double theta = acos(dot), s = sin(theta);
        wa = sin((1.0 - t) * theta) / s;
        wb = sin(t * theta) / s;
    }
    return quat_normalize(quat((float)(wa * a.w + wb * b.w), (float)(wa * a.x + wb * b.x),
                               (float)(wa * a.y + wb * b.y), (float)(wa * a.z + wb * b.z)));
}
