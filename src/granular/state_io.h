/* The granular world's state image, for files that hold a world among other things (an
 * environment's state, src/envs/state_io.c). See state_io.c. */
#ifndef LOAM_GRANULAR_STATE_IO_H
#define LOAM_GRANULAR_STATE_IO_H

#include "io/state_file.h"
#include "loam/granular.h"
#include "loam/sdf_grid.h"

void loam_world_write_image(const loam_world* w, loam_state_writer* o);
/* A new world from the image at the reader, checked against `like` (same particles and bodies),
 * of like's model (the file holds no model); NULL with the reader's error set. */
loam_world* loam_world_read_image(loam_state_reader* r, const loam_world* like);

#endif
