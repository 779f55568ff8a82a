/* The signed distance grids behind a run's mesh shapes, so the memory a mesh tool costs is in front of
 * the user: one stderr line per grid when `loam run` starts, and summary.json's "mesh_grids". A grid
 * that several shapes share (an environment's gears) is reported once, so the bytes add up. */
#ifndef LOAM_APP_MESH_GRIDS_H
#define LOAM_APP_MESH_GRIDS_H

#include <stdio.h>

#include "loam/scene.h"

struct cJSON;

/* One line per grid on f: the first body using it, its samples, spacing and bytes, and for a scene's
 * own grids the mesh file and whether it was sampled or read from the cache, in how long. */
void mesh_grids_print(FILE* f, const loam_scene* scene, const loam_world* w);
/* summary.json's "mesh_grids" array (empty without mesh shapes); NULL when out of memory. Only facts
 * that a rerun repeats: the cache and the sampling time are left to the stderr line. */
struct cJSON* mesh_grids_json(const loam_scene* scene, const loam_world* w);

#endif
