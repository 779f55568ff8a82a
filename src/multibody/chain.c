/* See loam/chain.h. Poses in float like the rest of the tool path; a chain of a few links loses
 * nothing that matters at contact scale. */
#include "loam/chain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vec.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "multibody/mb_internal.h"

/* The joint's motion in its own frame: the multibody tree's definition, rounded to float. */
static loam_pose joint_motion(const loam_link_def* l, float q) {
    double qq = q;
    loam_posed d = mb_joint_motion(l->joint, (loam_vec3d){0, 0, 1}, &qq);
    loam_pose m = {{(float)d.p.x, (float)d.p.y, (float)d.p.z}, {(float)d.q.w, (float)d.q.x, (float)d.q.y, (float)d.q.z}};
    return m;
}

static void forward(loam_chain* c) {
    for (int i = 0; i < c->link_count; ++i) {
        const loam_link_def* l = &c->links[i];
        loam_pose parent = l->parent < 0 ? c->base : c->pose[l->parent];
        c->pose[i] = loam_pose_mul(loam_pose_mul(parent, l->placement), joint_motion(l, c->q[i]));
    }
}

loam_status loam_chain_init(loam_chain* c, const loam_link_def* links, int count, loam_pose base, loam_error* err) {
    if (!c || !links) return loam_error_set(err, LOAM_ERR_INPUT, "chain: null chain or links");
    memset(c, 0, sizeof *c);
    if (count < 1 || count > LOAM_CHAIN_MAX_LINKS)
        return loam_error_set(err, LOAM_ERR_INPUT, "chain: %d links, expected 1 to %d", count, LOAM_CHAIN_MAX_LINKS);
    for (int i = 0; i < count; ++i) {
        const loam_link_def* l = &links[i];
        const char* name = l->name[0] ? l->name : "(unnamed)";
        if (l->parent < -1 || l->parent >= i)
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: link %d '%s': parent %d must be -1 or an earlier link", i, name,
                                  l->parent);
        if (l->joint != LOAM_JOINT_FIXED && l->joint != LOAM_JOINT_REVOLUTE && l->joint != LOAM_JOINT_PRISMATIC)
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: link %d '%s': unknown joint type %d", i, name, (int)l->joint);
        if (!v3_is_finite(l->placement.p) || !isfinite(l->placement.q.w) || !isfinite(l->placement.q.x) ||
            !isfinite(l->placement.q.y) || !isfinite(l->placement.q.z))
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: link %d '%s': placement is not finite", i, name);
        if (l->joint != LOAM_JOINT_FIXED && !(l->lower <= l->upper && isfinite(l->lower) && isfinite(l->upper)))
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: link %d '%s': limits [%g, %g] are not an interval", i, name,
                                  l->lower, l->upper);
        if (l->joint != LOAM_JOINT_FIXED && !(l->max_velocity > 0.0f && isfinite(l->max_velocity)))
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: link %d '%s': max_velocity %g must be > 0", i, name,
                                  l->max_velocity);
    }
    c->link_count = count;
    memcpy(c->links, links, sizeof *links * (size_t)count);
    c->base = base;
    c->base.q = quat_normalize(base.q);
    for (int i = 0; i < count; ++i) {
        c->links[i].placement.q = quat_normalize(c->links[i].placement.q);
        if (links[i].joint != LOAM_JOINT_FIXED) c->q[i] = fminf(fmaxf(0.0f, links[i].lower), links[i].upper);
    }
    forward(c);
    return LOAM_OK;
}

loam_status loam_chain_set_positions(loam_chain* c, const float* q, loam_error* err) {
    for (int i = 0; i < c->link_count; ++i) {
        const loam_link_def* l = &c->links[i];
        if (l->joint == LOAM_JOINT_FIXED) continue;
        if (!(q[i] >= l->lower && q[i] <= l->upper))
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: joint of link '%s': position %g outside [%g, %g]", l->name, q[i],
                                  l->lower, l->upper);
    }
    for (int i = 0; i < c->link_count; ++i) {
        c->q[i] = c->links[i].joint == LOAM_JOINT_FIXED ? 0.0f : q[i];
        c->qd[i] = 0.0f;
        c->twist[i] = (loam_twist){{0, 0, 0}, {0, 0, 0}};
    }
    forward(c);
    return LOAM_OK;
}

loam_status loam_chain_command(loam_chain* c, const float* qd, float dt, loam_error* err) {
    if (!(dt > 0.0f)) return loam_error_set(err, LOAM_ERR_INPUT, "chain: dt = %g s, expected > 0", dt);
    for (int i = 0; i < c->link_count; ++i)
        if (c->links[i].joint != LOAM_JOINT_FIXED && !isfinite(qd[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "chain: joint of link '%s': velocity command %g", c->links[i].name, qd[i]);
    for (int i = 0; i < c->link_count; ++i) {
        const loam_link_def* l = &c->links[i];
        float v = 0.0f;
        if (l->joint != LOAM_JOINT_FIXED) {
            v = fminf(fmaxf(qd[i], -l->max_velocity), l->max_velocity);
            /* Arrive exactly at a limit rather than pass it. */
            if (c->q[i] + v * dt > l->upper) v = (l->upper - c->q[i]) / dt;
            if (c->q[i] + v * dt < l->lower) v = (l->lower - c->q[i]) / dt;
        }
        c->qd[i] = v;
        /* Twist of link i: its parent's, carried to this origin, plus the joint's own motion. */
        loam_twist parent = l->parent < 0 ? (loam_twist){{0, 0, 0}, {0, 0, 0}} : c->twist[l->parent];
        loam_vec3 parent_origin = l->parent < 0 ? c->base.p : c->pose[l->parent].p;
        loam_vec3 axis = quat_rotate(c->pose[i].q, v3(0, 0, 1));
        loam_twist t = {loam_twist_point_velocity(parent, parent_origin, c->pose[i].p), parent.w};
        if (l->joint == LOAM_JOINT_REVOLUTE) t.w = v3_add(t.w, v3_scale(axis, v));
        if (l->joint == LOAM_JOINT_PRISMATIC) t.v = v3_add(t.v, v3_scale(axis, v));
        c->twist[i] = t;
    }
    return LOAM_OK;
}

void loam_chain_advance(loam_chain* c, float dt) {
    for (int i = 0; i < c->link_count; ++i) {
        const loam_link_def* l = &c->links[i];
        if (l->joint == LOAM_JOINT_FIXED) continue;
        c->q[i] = fminf(fmaxf(c->q[i] + c->qd[i] * dt, l->lower), l->upper);
    }
    forward(c);
}

loam_status loam_chain_drive(const loam_chain* c, struct loam_world* w, const int* body_of_link, loam_error* err) {
    for (int i = 0; i < c->link_count; ++i) {
        if (body_of_link[i] < 0) continue;
        loam_status st = loam_world_place_body(w, body_of_link[i], c->pose[i], err);
        if (st == LOAM_OK) st = loam_world_command_body(w, body_of_link[i], c->twist[i], err);
        if (st != LOAM_OK) return st;
    }
    return LOAM_OK;
}

/* Modified (Craig) Denavit-Hartenberg: frame i from frame i-1 by Rot_x(alpha) Trans_x(a) Rot_z(theta)
 * Trans_z(d); the joint's Rot_z(q) is the joint motion, so the placement is Rot_x(alpha) Trans_x(a)
 * Trans_z(d). */
static loam_pose mdh(float a, float d, float alpha) {
    loam_pose p = loam_pose_identity();
    p.q = loam_quat_from_axis_angle(v3(1, 0, 0), alpha);
    p.p = v3_add(v3(a, 0, 0), quat_rotate(p.q, v3(0, 0, d)));
    return p;
}

loam_status loam_chain_panda(loam_chain* c, loam_pose base, loam_error* err) {
    /* Franka Emika, "Robot and interface specifications" (FCI documentation): kinematics and limits. */
    static const float a[8] = {0, 0, 0, 0.0825f, -0.0825f, 0, 0.088f, 0};
    static const float d[8] = {0.333f, 0, 0.316f, 0, 0.384f, 0, 0, 0.107f};
    static const float alpha[8] = {0, -1.5707963f, 1.5707963f, 1.5707963f, -1.5707963f, 1.5707963f, 1.5707963f, 0};
    static const float lower[7] = {-2.8973f, -1.7628f, -2.8973f, -3.0718f, -2.8973f, -0.0175f, -2.8973f};
    static const float upper[7] = {2.8973f, 1.7628f, 2.8973f, -0.0698f, 2.8973f, 3.7525f, 2.8973f};
    static const float speed[7] = {2.1750f, 2.1750f, 2.1750f, 2.1750f, 2.6100f, 2.6100f, 2.6100f};
    loam_link_def links[8];
    memset(links, 0, sizeof links);
    for (int i = 0; i < 8; ++i) {
        snprintf(links[i].name, sizeof links[i].name, i < 7 ? "panda_link%d" : "panda_flange", i + 1);
        links[i].parent = i - 1;
        links[i].placement = mdh(a[i], d[i], alpha[i]);
        links[i].joint = i < 7 ? LOAM_JOINT_REVOLUTE : LOAM_JOINT_FIXED;
        if (i < 7) {
            links[i].lower = lower[i];
            links[i].upper = upper[i];
            links[i].max_velocity = speed[i];
        }
    }
    return loam_chain_init(c, links, 8, base, err);
}
