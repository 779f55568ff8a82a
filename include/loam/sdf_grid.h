/* Signed distance grids (geom module): a triangle mesh sampled on a regular grid, so any tool shape
 * answers "how far, and which way out" in constant time by trilinear interpolation, whatever its
 * triangle count (paper 000, section II-C). Distances are exact point-triangle distances at the
 * samples; the sign comes from the generalized winding number, so a mesh with small holes still has
 * an inside. Negative inside, metres. */
#ifndef LOAM_SDF_GRID_H
#define LOAM_SDF_GRID_H

#include "loam/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loam_sdf_grid {
    loam_vec3 origin; /* position of sample (0, 0, 0), m */
    float cell;       /* sample spacing, m */
    float margin;     /* how far the grid reaches beyond the mesh's bounds, m */
    int nx, ny, nz;   /* samples per axis */
    float* values;    /* nx * ny * nz signed distances, m; x fastest, then y, then z */
} loam_sdf_grid;

/* Sample the mesh's signed distance every `cell` metres over its bounds grown by `margin` metres on
 * every side (margin >= cell; a tool's grid needs a margin of at least the largest particle's
 * radius plus the contact margin). At most 2^28 samples. */
LOAM_API loam_status loam_sdf_grid_build(const loam_mesh* mesh, float cell, float margin, loam_sdf_grid* grid, loam_error* err);
/* The same, through a cache of grid files in `cache_dir` (made if missing): the file is named by a
 * 64-bit hash of the mesh's vertices and triangles, the cell and the margin, and is used only when its
 * header matches all of them; otherwise the grid is built and the file (re)written, atomically. A
 * cache that cannot be written costs only the time to rebuild; *from_cache says which happened. */
LOAM_API loam_status loam_sdf_grid_build_cached(const loam_mesh* mesh, float cell, float margin, const char* cache_dir,
                                       loam_sdf_grid* grid, int* from_cache, loam_error* err);
/* The cache folder loam uses by default: $LOAM_CACHE_DIR, else $XDG_CACHE_HOME/loam, else
 * ~/.cache/loam; an empty string when none of them is set (no caching). */
LOAM_API void loam_sdf_cache_dir(char* out, size_t capacity);
/* Signed distance at p by trilinear interpolation; its gradient (unnormalized, the interpolant's
 * exact derivative) in *gradient when non-null. Outside the grid: the distance to the grid's box
 * plus the margin, a lower bound of the true distance (so sphere tracing never steps through the
 * surface), with the gradient pointing away from the box. */
LOAM_API float loam_sdf_grid_query(const loam_sdf_grid* grid, loam_vec3 p, loam_vec3* gradient);
/* Bytes the grid holds. */
LOAM_API size_t loam_sdf_grid_memory(const loam_sdf_grid* grid);
LOAM_API void loam_sdf_grid_destroy(loam_sdf_grid* grid);

#ifdef __cplusplus
}
#endif
#endif
