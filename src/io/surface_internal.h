/* Shared by the surface builders of the io module (shape_surface.c, grid_surface.c). */
#ifndef LOAM_IO_SURFACE_INTERNAL_H
#define LOAM_IO_SURFACE_INTERNAL_H

#include "geom/mesh_build.h"
#include "loam/sdf_grid.h"

/* Append the zero level set of the grid's signed distances to b as triangles facing outwards (from
 * negative to positive values), in the grid's frame; 0 when out of memory. */
int loam_grid_surface(loam_mesh_builder* b, const loam_sdf_grid* grid);

#endif
