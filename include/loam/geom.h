/* loam geometry: signed distance functions of primitive shapes, in the shape's local frame.
 * f(x) > 0 outside, < 0 inside, |f| = distance to the surface (exact for every primitive here,
 * so a sphere of radius r at x penetrates by psi = f(x) - r, paper 000 eq. 7; a mesh answers from
 * its signed distance grid, within about a cell; a height field to first order, exact on planar
 * patches: see loam_heightfield below). */
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
    LOAM_SHAPE_HEIGHTFIELD, /* terrain z = h(x, y) over a grid of heights (`heightfield`), solid below;
                               size unused */
    LOAM_SHAPE_TYPE_COUNT
} loam_shape_type;

/* One convex-ish piece of a body: loam's one shape type, for granular bodies, renders, the soft-body
 * ground and multibody geoms (loam_mb_geom_def embeds one). Described in float (docs/architecture.md,
 * "Precision policy"); multibody converts it to double once, when its model is created. Hollow
 * containers (open box, tube with a floor) are built from several pieces so a particle in a corner
 * gets one contact per wall, not one diagonal contact. */
typedef struct loam_shape {
    loam_shape_type type;
    loam_pose local;      /* pose of the shape in its body's frame */
    loam_vec3 size;       /* meaning depends on type, see above (m) */
    float friction;       /* Coulomb coefficient (-): against particles; a multibody pair uses sqrt(mu_a mu_b) */
    union { /* one pointer, so the struct's layout (which bindings mirror) is that of a mesh shape */
        const struct loam_sdf_grid* grid; /* LOAM_SHAPE_MESH only: not owned; it must outlive every
                                             world or multibody model using the shape (a loaded scene
                                             owns its grids, a URDF model its meshes') */
        const struct loam_heightfield* heightfield; /* LOAM_SHAPE_HEIGHTFIELD only: not owned, the
                                             same lifetime rule as grid (a scene owns its fields) */
    };
} loam_shape;

/* Height fields: nx x ny heights on a regular grid centred on the shape's local origin, z up. Sample
 * (i, j) sits at local (i dx - (nx - 1) dx / 2, j dy - (ny - 1) dy / 2) with height heights[j nx + i]
 * (x fastest). Between samples the surface is the bilinear interpolant; outside the rectangle the
 * border heights extend outwards (the coordinate is clamped to the rectangle), so the surface and
 * the solid below it are unbounded sideways, like a plane's.
 *
 * The signed distance is first order: with v = z - h(x, y) the vertical distance and n the upward
 * unit normal of the interpolant at (x, y), f = v n.z, the distance to the tangent plane there. It
 * is exact where the surface is a plane within |v| of (x, y) (a plane written as heights, a flat
 * patch), its sign is always that of v, and | |f| - distance | <= |v| G, where G is the largest
 * change of the gradient dh/d(x, y) over the disc of radius |v| around (x, y): second order inside
 * a cell (G <= |v| |h00 - h10 - h01 + h11| / (dx dy)), first order across the cell edges where the
 * bilinear gradient kinks. A contact only needs small |v|, and this costs one bilinear lookup where
 * the exact distance to the bilinear patches needs an iterative search over neighbouring cells.
 * Normal: (-dh/dx, -dh/dy, 1) normalised, the gradient being 0 across a clamped border. */
typedef struct loam_heightfield {
    int nx, ny;          /* samples along local x and y, each >= 2 */
    float dx, dy;        /* sample spacing, m, > 0 */
    float* heights;      /* nx * ny heights, m (local z); x fastest; owned (loam_heightfield_destroy) */
    float min_height, max_height; /* over the samples, m (set by loam_heightfield_create) */
} loam_heightfield;

/* Copy `heights` (nx * ny values, x fastest) into a new field. Errors name the field and the value:
 * nx or ny < 2 (or more than 2^28 samples), dx or dy not finite and > 0, a non-finite height (its
 * sample i, j). */
LOAM_API loam_status loam_heightfield_create(int nx, int ny, float dx, float dy, const float* heights,
                                             loam_heightfield* out, loam_error* err);
LOAM_API void loam_heightfield_destroy(loam_heightfield* hf);
/* The checks loam_heightfield_create makes, on a field built some other way. */
LOAM_API loam_status loam_heightfield_validate(const loam_heightfield* hf, loam_error* err);
/* Bilinear height at local (x, y), border heights extended outside; its gradient (dh/dx, dh/dy)
 * in gradient[0..1] when gradient is not NULL. */
LOAM_API float loam_heightfield_height(const loam_heightfield* hf, float x, float y, float gradient[2]);

LOAM_API const char* loam_shape_type_name(loam_shape_type type);

/* Signed distance at local point p; writes the unit outward normal (the SDF gradient, analytic)
 * to *normal when it is not NULL. */
LOAM_API float loam_shape_sdf(const loam_shape* shape, loam_vec3 p, loam_vec3* normal);

/* A known type, a finite pose (non-zero rotation) and size, friction >= 0, the sizes its type uses
 * > 0, a mesh's grid present, a height field present and valid. Errors name the type and value. */
LOAM_API loam_status loam_shape_validate(const loam_shape* shape, loam_error* err);

/* Local-frame axis-aligned bounds of the shape (a plane returns a huge box). */
LOAM_API void loam_shape_local_bounds(const loam_shape* shape, loam_vec3* lo, loam_vec3* hi);

/* Containers, expanded into pieces. `out` must hold the returned count (5 for an open box,
 * 2 for a tube with a floor, 1 without). Inner dimensions are the free space. */
LOAM_API int loam_open_box_pieces(loam_vec3 inner_half, float wall, float friction, loam_shape out[5]);
LOAM_API int loam_tube_pieces(float inner_radius, float half_height, float wall, int with_floor,
                     float friction, loam_shape out[2]);

/* Pose algebra. */
LOAM_API loam_pose loam_pose_identity(void);
/* Between the precisions (docs/architecture.md, "Precision policy"): a shape's float pose from a
 * double one (each number rounded to nearest), and back (exact). */
LOAM_API loam_pose loam_pose_from_posed(loam_posed pose);
LOAM_API loam_posed loam_posed_from_pose(loam_pose pose);
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
