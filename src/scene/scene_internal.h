/* Sections of a scene file, read into a loam_scene. */
#ifndef LOAM_SCENE_INTERNAL_H
#define LOAM_SCENE_INTERNAL_H

#include "loam/scene.h"
#include "scene/yaml_doc.h"

loam_status scene_read(scene_doc* d, loam_scene* s, loam_error* err);
loam_status scene_read_particles(const snode* root, loam_scene* s, loam_error* err);
loam_status scene_read_bodies(const snode* root, loam_scene* s, loam_error* err);
/* A `mesh` shape's grid (scene_mesh.c): loaded, sampled (or read from the cache) and kept by s. */
loam_status scene_read_mesh(const snode* shape, loam_scene* s, const struct loam_sdf_grid** grid, loam_error* err);
/* A `heightfield` shape's field (scene_heightfield.c): read, validated and kept by s. */
loam_status scene_read_heightfield(const snode* shape, loam_scene* s, const loam_heightfield** field, loam_error* err);
/* A pose from a mapping with optional `position: [x, y, z]` (m) and `rpy_deg: [roll, pitch, yaw]`. */
/* A file a scene names: as written when absolute, otherwise beside the scene file (scene_mesh.c). */
void scene_resolve_path(const char* scene_path, const char* file, char* out, size_t cap);
loam_status scene_read_pose(const snode* map, loam_pose* pose, loam_error* err);

#endif
