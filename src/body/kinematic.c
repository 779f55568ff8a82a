/* Prescribed motion of kinematic bodies. Velocities come from the motion itself (the derivative of
 * the interpolation), never from differences of poses: GranularGym divides a pose difference by
 * 1e-6 s, which is noise, not a velocity. */
#include <math.h>
#include <string.h>

#include "core/vec.h"
#include "loam/body.h"
#include "loam/sdf_grid.h"

loam_body_def loam_body_default_def(void) {
    loam_body_def d;
    memset(&d, 0, sizeof d);
    d.pose = loam_pose_identity();
    d.motion = LOAM_MOTION_FIXED;
    return d;
}

const char* loam_motion_type_name(loam_motion_type type) {
    switch (type) {
    case LOAM_MOTION_FIXED: return "fixed";
    case LOAM_MOTION_TWIST: return "twist";
    case LOAM_MOTION_PATH: return "path";
    case LOAM_MOTION_COMMANDED: return "commanded";
    }
    return "unknown";
}

/* exp of a rotation vector, as a unit quaternion. */
static loam_quat quat_exp(loam_vec3 rotvec) {
    float angle = v3_length(rotvec);
    if (angle < 1e-12f) return quat_normalize(quat(1.0f, 0.5f * rotvec.x, 0.5f * rotvec.y, 0.5f * rotvec.z));
    return loam_quat_from_axis_angle(rotvec, angle);
}

/* Rotation vector of unit q (short way round). */
static loam_vec3 quat_log(loam_quat q) {
    if (q.w < 0.0f) q = quat(-q.w, -q.x, -q.y, -q.z);
    loam_vec3 u = v3(q.x, q.y, q.z);
    float s = v3_length(u);
    if (s < 1e-12f) return v3_scale(u, 2.0f);
    float angle = 2.0f * atan2f(s, q.w);
    return v3_scale(u, angle / s);
}

void loam_body_motion_eval(const loam_body_def* def, double t, loam_pose* pose, loam_twist* twist) {
    loam_twist zero = {{0, 0, 0}, {0, 0, 0}};
    switch (def->motion) {
    case LOAM_MOTION_TWIST:
        /* The origin moves at v while the body spins at w about its own origin. */
        pose->p = v3_add(def->pose.p, v3_scale(def->twist.v, (float)t));
        pose->q = quat_normalize(quat_mul(quat_exp(v3_scale(def->twist.w, (float)t)), def->pose.q));
        *twist = def->twist;
        return;
    case LOAM_MOTION_PATH: {
        const loam_waypoint* w = def->waypoints;
        int n = def->waypoint_count;
        *twist = zero;
        if (n == 0) {
            *pose = def->pose;
            return;
        }
        if (t <= w[0].t) {
            *pose = w[0].pose;
            return;
        }
        if (t >= w[n - 1].t) {
            *pose = w[n - 1].pose;
            return;
        }
        int k = 0;
        while (k + 1 < n - 1 && t >= w[k + 1].t) ++k;
        double span = w[k + 1].t - w[k].t;
        float s = (float)((t - w[k].t) / span);
        loam_vec3 dp = v3_sub(w[k + 1].pose.p, w[k].pose.p);
        pose->p = v3_add(w[k].pose.p, v3_scale(dp, s));
        pose->q = loam_quat_slerp(w[k].pose.q, w[k + 1].pose.q, s);
        /* slerp turns at a constant world rate: the rotation vector of q1 q0^-1 over the span. */
        twist->v = v3_scale(dp, (float)(1.0 / span));
        twist->w = v3_scale(quat_log(quat_mul(w[k + 1].pose.q, quat_conj(w[k].pose.q))),
                            (float)(1.0 / span));
        return;
    }
    case LOAM_MOTION_FIXED:
    case LOAM_MOTION_COMMANDED:
    default:
        *pose = def->pose;
        *twist = def->motion == LOAM_MOTION_COMMANDED ? def->twist : zero;
        return;
    }
}

loam_vec3 loam_twist_point_velocity(loam_twist twist, loam_vec3 origin, loam_vec3 p) {
    return v3_add(twist.v, v3_cross(twist.w, v3_sub(p, origin)));
}

static int pose_is_finite(loam_pose p) {
    return v3_is_finite(p.p) && isfinite(p.q.w) && isfinite(p.q.x) && isfinite(p.q.y) && isfinite(p.q.z);
}

loam_status loam_body_def_validate(const loam_body_def* d, loam_error* err) {
    const char* name = d->name[0] ? d->name : "(unnamed)";
    if ((unsigned)d->motion > LOAM_MOTION_COMMANDED)
        return loam_error_set(err, LOAM_ERR_INPUT, "body '%s': unknown motion type %d", name, (int)d->motion);
    if (!pose_is_finite(d->pose))
        return loam_error_set(err, LOAM_ERR_INPUT, "body '%s': pose is not finite", name);
    if (!v3_is_finite(d->twist.v) || !v3_is_finite(d->twist.w))
        return loam_error_set(err, LOAM_ERR_INPUT, "body '%s': twist is not finite", name);
    if (d->shape_count < 1 || d->shape_count > LOAM_BODY_MAX_SHAPES)
        return loam_error_set(err, LOAM_ERR_INPUT, "body '%s': needs 1 to %d shapes, has %d", name,
                              LOAM_BODY_MAX_SHAPES, d->shape_count);
    if (d->motion == LOAM_MOTION_PATH && (d->waypoint_count < 1 || d->waypoint_count > LOAM_BODY_MAX_WAYPOINTS))
        return loam_error_set(err, LOAM_ERR_INPUT, "body '%s': a path needs 1 to %d waypoints, has %d", name,
                              LOAM_BODY_MAX_WAYPOINTS, d->waypoint_count);
    for (int k = 0; k < d->waypoint_count; ++k) {
        if (!isfinite(d->waypoints[k].t) || !pose_is_finite(d->waypoints[k].pose))
            return loam_error_set(err, LOAM_ERR_INPUT, "body '%s': waypoint %d is not finite", name, k);
        if (k > 0 && !(d->waypoints[k].t > d->waypoints[k - 1].t))
            return loam_error_set(err, LOAM_ERR_INPUT,
                                  "body '%s': waypoint %d time %g is not after waypoint %d time %g", name, k,
                                  d->waypoints[k].t, k - 1, d->waypoints[k - 1].t);
    }
    for (int s = 0; s < d->shape_count; ++s) {
        const loam_shape* sh = &d->shapes[s];
        if ((unsigned)sh->type >= LOAM_SHAPE_TYPE_COUNT)
            return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d: unknown type %d", name, s, (int)sh->type);
        if (!pose_is_finite(sh->local) || !v3_is_finite(sh->size) || !isfinite(sh->friction))
            return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d: non-finite value", name, s);
        if (sh->friction < 0.0f)
            return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d: friction %g must be >= 0", name, s,
                                  sh->friction);
        if (sh->type == LOAM_SHAPE_MESH) {
            if (!sh->grid || !sh->grid->values || sh->grid->nx < 1 || sh->grid->ny < 1 || sh->grid->nz < 1 ||
                !(sh->grid->cell > 0.0f))
                return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d (mesh): no signed distance grid", name, s);
            continue;
        }
        if (sh->type == LOAM_SHAPE_HEIGHTFIELD) {
            loam_error inner;
            if (!sh->heightfield)
                return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d (heightfield): no height field", name, s);
            if (loam_heightfield_validate(sh->heightfield, &inner))
                return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d: %s", name, s, inner.message);
            continue;
        }
        int need_x = sh->type != LOAM_SHAPE_PLANE;
        int need_yz = sh->type == LOAM_SHAPE_BOX;
        int need_z = sh->type == LOAM_SHAPE_BOX || sh->type == LOAM_SHAPE_CAPSULE ||
                     sh->type == LOAM_SHAPE_CYLINDER || sh->type == LOAM_SHAPE_TUBE;
        if ((need_x && !(sh->size.x > 0.0f)) || (need_yz && !(sh->size.y > 0.0f)) ||
            (need_z && !(sh->size.z > 0.0f)) || (sh->type == LOAM_SHAPE_TUBE && !(sh->size.y > 0.0f)))
            return loam_error_set(err, LOAM_ERR_INPUT, "body '%s' shape %d (%s): sizes must be > 0, got (%g, %g, %g)",
                                  name, s, loam_shape_type_name(sh->type), sh->size.x, sh->size.y, sh->size.z);
    }
    return LOAM_OK;
}
