/* Robots from URDF files (ROS's Unified Robot Description Format), parsed with libxml2: links with
 * their inertials and collision geometry (primitives, and OBJ/STL meshes as signed distance grids),
 * joints (revolute, continuous, prismatic, fixed, floating) with origins, axes, limits and damping;
 * self-collision per robot, with an SRDF's disabled pairs. Visuals, materials, transmissions and
 * Gazebo tags are ignored. Errors name the file, the line, the element and the attribute; xacro
 * files are recognized and refused with the command that expands them. docs/urdf-compat.md says
 * what is accepted and how it compares with urdfdom. */
#ifndef LOAM_URDF_H
#define LOAM_URDF_H

#include "loam/multibody.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loam_urdf_options {
    int floating_base;    /* 1: the root link hangs from the world by a floating joint; 0 (default): welded */
    loam_posed base_pose; /* the root link's joint frame in the world, identity */
    loam_mb_options mb;   /* model options (gravity, dt, ...), loam_mb_default_options() */
    loam_mb_self_collision self_collision; /* which of the robot's own links collide: ADJACENT (the
                                              default: links joined by one moving joint, or welded by
                                              fixed joints, do not), ALL or OFF */
    const char* srdf;     /* a companion SRDF file whose <disable_collisions> pairs never collide; NULL */
    const char* package_path; /* ':'-separated folders searched first for package:// meshes (then
                                 ROS_PACKAGE_PATH, AMENT_PREFIX_PATH and the URDF's own folders); NULL */
    double mesh_cell;     /* m: spacing of mesh collision grids; 0 (default): each mesh's longest side / 24 */
    int mesh_grids;       /* 1 (default): mesh collision shapes get their grids; 0: meshes are found and
                             read (their points kept: they still meet planes and boxes) but get no grid
                             (a load in milliseconds, for kinematics or sweeps over many files) */
    int strict;           /* 1: what urdfdom only logs is an error: collision geometry loam cannot use (a
                             mesh not found, not OBJ or STL, unreadable; an unknown shape such as
                             pybullet's <plane> or <cdf>), a limit with lower > upper; 0 (default): a
                             warning through `warn`, the mesh colliding with nothing, the unknown
                             shape skipped, the limit read as none (as Bullet does) */
    void (*warn)(void* user, const char* message); /* warnings (messages name file, line, element);
                             loam_urdf_warn_stderr by default; NULL: none */
    void* warn_user;
} loam_urdf_options;

/* The default warning sink: "loam: warning: MESSAGE" on stderr. */
LOAM_API void loam_urdf_warn_stderr(void* user, const char* message);

LOAM_API loam_urdf_options loam_urdf_default_options(void);

/* Parse a URDF document held in memory into a new model (free it with loam_mb_model_destroy); `name`
 * labels error messages (a file name). NULL on failure, with the status and reason in err. */
LOAM_API loam_mb_model* loam_urdf_parse(const char* text, size_t length, const char* name, const loam_urdf_options* opt, loam_error* err);
/* Read and parse a URDF file: a new model, or NULL with err set (LOAM_ERR_INPUT naming the file and
 * line, LOAM_ERR_IO, LOAM_ERR_NOMEM). */
LOAM_API loam_mb_model* loam_urdf_load(const char* path, const loam_urdf_options* opt, loam_error* err);
/* Write a model as URDF (links, inertials, collision primitives and meshes, joints with their limits
 * and damping), so that loading it gives the same model. The root's own joint is not written. */
LOAM_API loam_status loam_urdf_write(const loam_mb_model* model, const char* path, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
