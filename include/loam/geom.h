/* loam geometry: signed distance functions of primitive shapes, in the shape's local frame.
 * f(x) > 0 outside, < 0 inside, |f| = distance to the surface (exact for every primitive here,
 * so a sphere of radius r at x penetrates by psi = f(x) - r, paper 000 eq. 7; a mesh answers from
 * its signed distance grid, within about a cell). */
#ifndef LOAM_GEOM_H
#define LOAM_GEOM_H

#include "loam/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum loam_shape_type {
    LOAM_SHAPE_PLANE = 0,   /* half-space z <= 0 in the local frame (solid below) */
    LOAM_SHAPE_BOX,         /* size = half extents (hx, hy, hz) */
    LOAM_SHAPE_SPHERE,      /* size.x = radius */
    LOAM_SHAPE_CAPSULE,     /* size.x = radius, size.z = half length of the axis segment (local z) */
    LOAM_SHAPE_CYLINDER,    /* size.x = radius, size.z = half height (axis local z) */
    LOAM_SHAPE_TUBE,        /* hollow cylinder wall: size.x = inner radius, size.y = wall thickness,
                               size.z = half height; open at both ends */
    LOAM_SHAPE_MESH,        /* a triangle mesh through its signed distance grid (`grid`, in the shape's
                               local frame; loam/sdf_grid.h); size unused */
    LOAM_SHAPE_TYPE_COUNT
} loam_shape_type;

/* One convex-ish piece of a body. Hollow containers (open box, tube with a floor) are built from
 * several pieces so a particle in a corner gets one contact per wall, not one diagonal contact. */
typedef struct loam_shape {
    loam_shape_type type;
    loam_pose local;      /* pose of the shape in its body's frame */
    loam_vec3 size;       /* meaning depends on type, see above (m) */
    float friction;       /* Coulomb coefficient against particles (-) */
    const struct loam_sdf_grid* grid; /* LOAM_SHAPE_MESH only: not owned; it must outlive every
                                         world using the shape (a loaded scene owns its grids) */
} loam_shape;

LOAM_API const char* loam_shape_type_name(loam_shape_type type);

/* Signed distance at local point p; writes the unit outward normal (the SDF gradient, analytic)
 * to *normal when it is not NULL. */
LOAM_API float loam_shape_sdf(const loam_shape* shape, loam_vec3 p, loam_vec3* normal);

/* Local-frame axis-aligned bounds of the shape (a plane returns a huge box). */
LOAM_API void loam_shape_local_bounds(const loam_shape* shape, loam_vec3* lo, loam_vec3* hi);

/* Containers, expanded into pieces. `out` must hold the returned count (5 for an open box,
 * 2 for a tube with a floor, 1 without). Inner dimensions are the free space. */
LOAM_API int loam_open_box_pieces(loam_vec3 inner_half, float wall, float friction, loam_shape out[5]);
LOAM_API int loam_tube_pieces(float inner_radius, float half_height, float wall, int with_floor,
                     float friction, loam_shape out[2]);

/* Pose algebra. */
LOAM_API loam_pose loam_pose_identity(void);
LOAM_API loam_vec3 loam_pose_apply(loam_pose pose, loam_vec3 local);
LOAM_API loam_vec3 loam_pose_apply_inverse(loam_pose pose, loam_vec3 world);
LOAM_API loam_pose loam_pose_mul(loam_pose a, loam_pose b);
LOAM_API loam_quat loam_quat_from_axis_angle(loam_vec3 axis, float angle);
/* Intrinsic Z-Y-X (yaw, pitch, roll) in degrees, as scene files write rotations. */
LOAM_API loam_quat loam_quat_from_euler_deg(loam_vec3 roll_pitch_yaw_deg);
LOAM_API loam_quat loam_quat_slerp(loam_quat a, loam_quat b, float t);

#ifdef __cplusplus
}
#endif
#endif
