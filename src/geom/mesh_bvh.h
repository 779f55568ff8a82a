/* A bounding-volume hierarchy over a mesh's triangles (mesh_bvh.c), for the two queries a signed
 * distance grid needs at every sample: the exact distance to the nearest triangle, and the
 * generalized winding number (Jacobson, Kavan & Sorkine-Hornung 2013), whose value near 1 inside and
 * near 0 outside gives a sign that holds up on meshes with small holes. Far clusters of triangles
 * enter the winding number as dipoles (Barill et al., "Fast winding numbers", 2018). Double
 * precision throughout: it runs once per mesh, not per step. */
#ifndef LOAM_GEOM_MESH_BVH_H
#define LOAM_GEOM_MESH_BVH_H

#include "loam/mesh.h"

typedef struct loam_bvh_node {
    double lo[3], hi[3]; /* bounds of the node's triangles */
    double centre[3];    /* area-weighted centroid */
    double normal[3];    /* sum of area times unit normal (the dipole) */
    double radius;       /* farthest corner from centre */
    int first, count;    /* leaf: triangles order[first .. first + count); inner: count = 0, children first, first + 1 */
} loam_bvh_node;

typedef struct loam_bvh {
    const loam_mesh* mesh;
    loam_bvh_node* nodes;
    int node_count;
    int32_t* order; /* triangle indices, grouped by leaf */
} loam_bvh;

loam_status loam_bvh_build(const loam_mesh* mesh, loam_bvh* bvh, loam_error* err);
void loam_bvh_free(loam_bvh* bvh);
/* Distance from p to the nearest triangle. */
double loam_bvh_distance(const loam_bvh* bvh, const double p[3]);
/* Generalized winding number at p: ~1 inside a closed outward mesh, ~0 outside. */
double loam_bvh_winding(const loam_bvh* bvh, const double p[3]);

#endif
