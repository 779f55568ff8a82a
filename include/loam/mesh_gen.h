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

loam_gear_def loam_gear_default_def(void);
loam_status loam_mesh_gear(const loam_gear_def* def, loam_mesh* mesh, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
