/* Robots from URDF files (ROS's Unified Robot Description Format), parsed with libxml2: links with
 * their inertials and collision geometry, joints (revolute, continuous, prismatic, fixed, floating)
 * with origins, axes, limits and damping. Visuals, materials, transmissions and Gazebo tags are
 * ignored. Errors name the file, the line, the element and the attribute. */
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
} loam_urdf_options;

LOAM_API loam_urdf_options loam_urdf_default_options(void);

/* Parse a URDF document held in memory; `name` labels error messages (a file name). */
LOAM_API loam_status loam_urdf_parse(const char* text, size_t length, const char* name, const loam_urdf_options* opt, loam_mb_model** out,
                            loam_error* err);
/* Read and parse a URDF file. */
LOAM_API loam_status loam_urdf_load(const char* path, const loam_urdf_options* opt, loam_mb_model** out, loam_error* err);
/* Write a model as URDF (links, inertials, collision primitives and meshes, joints with their limits
 * and damping), so that loading it gives the same model. The root's own joint is not written. */
LOAM_API loam_status loam_urdf_write(const loam_mb_model* model, const char* path, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
