/* Procedural meshes (geom module), so environments need no downloaded assets. Each returns a closed,
 * outward mesh (loam/mesh.h) to sample into a signed distance grid. */
#ifndef LOAM_MESH_GEN_H
#define LOAM_MESH_GEN_H

#include "loam/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An involute helical spur gear (ISO 53 basic rack: addendum 1 m, dedendum 1.25 m), centred on the
 * origin with its axis along z, from z = -face_width/2 to +face_width/2. */
typedef struct loam_gear_def {
    float module;             /* m: pitch diameter / teeth; default 0.004 */
    int teeth;                /* 6 .. 400; default 18 */
    float pressure_angle_deg; /* degrees; default 20 */
    float helix_angle_deg;    /* degrees at the pitch circle, |.| < 60, 0 = spur; right-handed when
                                 positive; default 0 */
    float face_width;         /* m; default 0.02 */
    int flank_points;         /* points along each involute flank; default 8 */
    int slices;               /* layers along z (a helix needs several); default 1 for a spur gear,
                                 else 16 */
} loam_gear_def;

LOAM_API loam_gear_def loam_gear_default_def(void);
LOAM_API loam_status loam_mesh_gear(const loam_gear_def* def, loam_mesh* mesh, loam_error* err);

/* Building blocks, each a closed outward mesh; loam_mesh_append adds one to another, so a tool is
 * a union of overlapping closed parts (the winding number counts an overlap as inside, so its sign
 * stays right). Angles in radians. */
LOAM_API loam_status loam_mesh_box(loam_vec3 centre, loam_vec3 half_extents, loam_mesh* mesh, loam_error* err);
/* A curved plate: the shell between radii radius -+ thickness/2 about the y axis, from angle0 to
 * angle1 in the x-z plane (0 = +x, growing towards +z), `width` along y centred on y = 0. */
LOAM_API loam_status loam_mesh_curved_plate(float radius, float thickness, float width, float angle0, float angle1, int segments,
                                   loam_mesh* mesh, loam_error* err);
/* A flat circular sector in the x-z plane (radius, angle0..angle1 as above), `thickness` along y,
 * centred on y = y_centre: the side plates of a bucket. */
LOAM_API loam_status loam_mesh_sector_plate(float radius, float angle0, float angle1, float thickness, float y_centre, int segments,
                                   loam_mesh* mesh, loam_error* err);
LOAM_API loam_status loam_mesh_append(loam_mesh* to, const loam_mesh* part, loam_error* err);

/* An excavator-style bucket, its hinge on the y axis at the origin: a curved shell of radius
 * `radius` from the back (angle 200 degrees) round the bottom to the lip (330 degrees), closed by
 * two sector side plates; open towards +x and up. */
typedef struct loam_bucket_def {
    float radius;    /* m; default 0.3 */
    float width;     /* m, inner; default 0.4 */
    float thickness; /* m, of shell and sides; default 0.015 */
    int segments;    /* along the curve; default 24 */
} loam_bucket_def;
LOAM_API loam_bucket_def loam_bucket_default_def(void);
LOAM_API loam_status loam_mesh_bucket(const loam_bucket_def* def, loam_mesh* mesh, loam_error* err);

/* A tracked bulldozer, its frame at the middle of the ground contact, x forward, z up: a body on
 * two tracks, and in front a curved blade on push arms whose cutting edge touches the ground. */
typedef struct loam_bulldozer_def {
    float length, width, height; /* m, of the body; defaults 0.6, 0.4, 0.25 */
    float track_width;           /* m; default 0.1 */
    float track_height;          /* m; default 0.12 */
    float blade_width;           /* m; default 0.6 */
    float blade_height;          /* m; default 0.2 */
} loam_bulldozer_def;
LOAM_API loam_bulldozer_def loam_bulldozer_default_def(void);
LOAM_API loam_status loam_mesh_bulldozer(const loam_bulldozer_def* def, loam_mesh* mesh, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
