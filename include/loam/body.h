/* loam kinematic bodies: rigid tools whose motion is prescribed (paper 000: "fully driven by time").
 * Particles feel them; they do not feel particles, but loam reports the force and torque that particles
 * exert on each body every step. The multibody module later gives bodies dynamics. */
#ifndef LOAM_BODY_H
#define LOAM_BODY_H

#include "loam/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum loam_motion_type {
    LOAM_MOTION_FIXED = 0,   /* never moves */
    LOAM_MOTION_TWIST,       /* constant twist (v of the body origin, w), integrated exactly */
    LOAM_MOTION_PATH,        /* waypoints: position linear, orientation slerp between them; holds the
                                last pose after the last waypoint */
    LOAM_MOTION_COMMANDED    /* the host sets a twist before each step (loam_world_command_body) */
} loam_motion_type;

typedef struct loam_waypoint {
    double t;        /* s */
    loam_pose pose;
} loam_waypoint;

#define LOAM_NAME_MAX 64
#define LOAM_BODY_MAX_SHAPES 16
#define LOAM_BODY_MAX_WAYPOINTS 64

typedef struct loam_body_def {
    char name[LOAM_NAME_MAX];
    loam_pose pose;                       /* initial pose (ignored for PATH: the first waypoint rules) */
    loam_motion_type motion;
    loam_twist twist;                     /* TWIST: the constant twist; COMMANDED: the initial one */
    int waypoint_count;
    loam_waypoint waypoints[LOAM_BODY_MAX_WAYPOINTS]; /* PATH: strictly increasing t */
    int shape_count;
    loam_shape shapes[LOAM_BODY_MAX_SHAPES];
} loam_body_def;

LOAM_API loam_body_def loam_body_default_def(void);
LOAM_API const char* loam_motion_type_name(loam_motion_type type);

/* Pose and twist of a body at time t under its prescribed motion (the commanded twist for
 * COMMANDED is integrated by the world, not here). Velocities are analytic, never differences. */
LOAM_API void loam_body_motion_eval(const loam_body_def* def, double t, loam_pose* pose, loam_twist* twist);

/* Velocity of the body's material point at world position p. */
LOAM_API loam_vec3 loam_twist_point_velocity(loam_twist twist, loam_vec3 origin, loam_vec3 p);

/* Check a definition; on failure the message names the body and the field. */
LOAM_API loam_status loam_body_def_validate(const loam_body_def* def, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
