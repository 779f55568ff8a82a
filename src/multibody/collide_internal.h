/* Private to the multibody contact code (collide.c, collide_convex.c, collide_sdf.c): the contact
 * sink and the pair routines. Every routine reports contacts through mb_emit with the normal
 * pointing from geom gb towards geom ga; mb_emit drops gaps wider than the contact margin. */
#ifndef LOAM_MB_COLLIDE_INTERNAL_H
#define LOAM_MB_COLLIDE_INTERNAL_H

#include "loam/sdf_grid.h"
#include "multibody/mb_internal.h"

typedef struct mb_sink {
    const loam_mb_model* m;
    loam_mb_state* s;
    int overflow;
} mb_sink;

/* A contact of geom ga with geom gb at `point` (midway between the surfaces), normal n from gb
 * towards ga, depth > 0 overlapping. */
void mb_emit(mb_sink* k, int ga, int gb, loam_vec3d point, loam_vec3d n, double depth);

/* Spheres (also the ends of capsules) against the primitives. */
void mb_sphere_sphere(mb_sink* k, int ga, int gb, loam_vec3d ca, double ra, loam_vec3d cb, double rb);
void mb_sphere_box(mb_sink* k, int gs, int gb, loam_vec3d c, double r, loam_posed B, loam_vec3d h);
void mb_sphere_cylinder(mb_sink* k, int gs, int gc, loam_vec3d c, double r, loam_posed C, double radius, double half);
void mb_plane_cylinder(mb_sink* k, int gc, int gp, loam_posed P, loam_posed C, double radius, double half);
/* Capsules: radius r, axis segment of half length h along the pose's local z. */
void mb_capsule_capsule(mb_sink* k, int ga, loam_posed A, double ra, double ha, int gb, loam_posed B, double rb, double hb);
void mb_box_capsule(mb_sink* k, int gb, loam_posed B, loam_vec3d h, int gc, loam_posed C, double r, double hc);
void mb_box_box(mb_sink* k, int ga, loam_posed A, loam_vec3d ha, int gb, loam_posed B, loam_vec3d hb);
/* Against a signed distance grid in the frame G (a mesh geom). */
void mb_sphere_sdf(mb_sink* k, int gs, loam_vec3d c, double r, int gm, loam_posed G, const loam_sdf_grid* grid);
void mb_capsule_sdf(mb_sink* k, int gc, loam_posed C, double r, double hc, int gm, loam_posed G, const loam_sdf_grid* grid);

/* A mesh geom gm (frame G) by its surface points (npts, geom frame) against geom go (frame O): a
 * plane, a box (also the box's corners against gm's grid) or another mesh's grid; at most four
 * contacts per direction, the deepest and then the most spread. */
enum { MB_MAX_MESH_POINTS = 1024 };
void mb_points_shape(mb_sink* k, int gm, loam_posed G, const float* pts, int npts, int go, loam_posed O, const mb_geom* other);

/* Closest points of segments p1 + s d1 (|s| <= e1) and p2 + t d2 (|t| <= e2), unit d1, d2. */
void mb_segment_closest(loam_vec3d p1, loam_vec3d d1, double e1, loam_vec3d p2, loam_vec3d d2, double e2, double* s, double* t);

#endif
