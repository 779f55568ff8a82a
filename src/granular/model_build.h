/* Building a model from a world, and setting a fresh world's start, for hosts inside libloam that
 * reuse world-building code for models (the environments, src/envs/). */
#ifndef LOAM_GRANULAR_MODEL_BUILD_H
#define LOAM_GRANULAR_MODEL_BUILD_H

#include "loam/granular.h"

/* A shared model of w's particles (by id, at w's positions and velocities) and bodies (their
 * definitions), with w's parameters: w must be a world of loam_world_create that never stepped.
 * NULL with err set. */
loam_granular_model* loam_granular_model_from_world(const loam_world* w, loam_error* err);
/* Start body b at this pose and twist, bit for bit (loam_world_place_body normalises the rotation):
 * what adding a commanded body with this def.pose and def.twist would have given. Before the first
 * step only. */
void loam_world_start_body(loam_world* w, int body, loam_pose pose, loam_twist twist);

#endif
