/* Kinematic chains (multibody module): a tree of links joined by revolute or prismatic joints,
 * driven by joint-velocity commands within position and velocity limits. Forward kinematics gives
 * each link's pose, and the chain gives each link's twist over a step, which is what the contact
 * solver needs from a tool (robot-driven tools, paper 000 section III). It shares its joint types and
 * joint motion with the dynamic trees of loam/multibody.h; for dynamics, load the same robot as a
 * multibody model (urdf/panda.urdf has loam_chain_panda's kinematics, tests/test_urdf.c checks it). */
#ifndef LOAM_CHAIN_H
#define LOAM_CHAIN_H

#include "loam/multibody.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOAM_CHAIN_MAX_LINKS 32

/* Joints are loam_joint_type from loam/multibody.h (the dynamic tree); a chain takes fixed, revolute
 * and prismatic joints about or along the joint frame's z axis. */

typedef struct loam_link_def {
    char name[LOAM_NAME_MAX];
    int parent;          /* index of the parent link (smaller than this link's), -1 for the base */
    loam_pose placement; /* the joint frame in the parent link's frame at q = 0 */
    loam_joint_type joint;
    float lower, upper;  /* position limits, rad or m */
    float max_velocity;  /* rad/s or m/s, > 0 (ignored for fixed joints) */
} loam_link_def;

typedef struct loam_chain {
    int link_count;
    loam_link_def links[LOAM_CHAIN_MAX_LINKS];
    loam_pose base;                       /* world pose of the base (the root's parent) */
    float q[LOAM_CHAIN_MAX_LINKS];        /* joint positions (0 for fixed joints) */
    float qd[LOAM_CHAIN_MAX_LINKS];       /* joint velocities of the current step, after the limits */
    loam_pose pose[LOAM_CHAIN_MAX_LINKS]; /* world pose of each link frame (= its joint frame moved by q) */
    loam_twist twist[LOAM_CHAIN_MAX_LINKS]; /* world twist of each link: velocity of its frame's origin */
} loam_chain;

/* Copy and check the links (parents before children, limits ordered, velocities positive), set
 * q = 0 clamped into the limits, and compute the poses. */
LOAM_API loam_status loam_chain_init(loam_chain* chain, const loam_link_def* links, int count, loam_pose base, loam_error* err);
/* Set joint positions (each within its limits) and recompute the poses; velocities become 0. */
LOAM_API loam_status loam_chain_set_positions(loam_chain* chain, const float* q, loam_error* err);
/* The joint velocities for the next dt: each clamped to its speed limit and so that the joint stays
 * within its position limits; then the links' twists at the current pose. NaN commands are errors. */
LOAM_API loam_status loam_chain_command(loam_chain* chain, const float* qd, float dt, loam_error* err);
/* Move the joints by qd dt and recompute the poses (after the world step that used the twists). */
LOAM_API void loam_chain_advance(loam_chain* chain, float dt);

/* Drive world bodies from the chain for the coming step: each link i with body_of_link[i] >= 0 (a
 * commanded body) is placed at the link's pose and commanded with its twist. Call after
 * loam_chain_command and before loam_world_step; then loam_chain_advance. */
struct loam_world;
LOAM_API loam_status loam_chain_drive(const loam_chain* chain, struct loam_world* world, const int* body_of_link, loam_error* err);

/* The Franka Emika Panda arm: 7 revolute joints with Franka's published kinematics (modified
 * Denavit-Hartenberg: d1 = 0.333, d3 = 0.316, a4 = 0.0825, a5 = -0.0825, d5 = 0.384, a7 = 0.088 m,
 * flange 0.107 m beyond joint 7), joint limits and speed limits; link 8 is the flange (fixed). */
LOAM_API loam_status loam_chain_panda(loam_chain* chain, loam_pose base, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
