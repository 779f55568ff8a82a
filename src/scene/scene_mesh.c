/* A `mesh` shape: the triangle mesh named by `file` (OBJ or STL, relative to the scene file's
 * folder), scaled by `scale`, sampled into a signed distance grid of `cell` metres that reaches
 * `margin` metres beyond it. Grids come from the disk cache when the same mesh was sampled before
 * ($LOAM_CACHE_DIR, else $XDG_CACHE_HOME/loam, else ~/.cache/loam). The scene owns the grids. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "loam/sdf_grid.h"
#include "scene/scene_internal.h"

/* A grid with how it was made, for `loam run` to report (loam_scene_grid_source). The grid comes
 * first, so scene->grids[k] points at the whole record and loam_scene_destroy frees it as one block
 * without loam_scene's layout (which bindings mirror) growing a field. */
typedef struct scene_grid {
    loam_sdf_grid grid;
    char file[1024]; /* as the scene names it */
    int from_cache;
    double seconds;
} scene_grid;

void scene_resolve_path(const char* scene_path, const char* file, char* out, size_t cap) {
    const char* slash = strrchr(scene_path, '/');
    if (file[0] == '/' || !slash) snprintf(out, cap, "%s", file);
    else snprintf(out, cap, "%.*s/%s", (int)(slash - scene_path), scene_path, file);
}

static loam_status keep_grid(loam_scene* s, loam_sdf_grid* g, loam_error* err) {
    loam_sdf_grid** more = realloc(s->grids, sizeof *more * (size_t)(s->grid_count + 1));
    if (!more) return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for mesh grids");
    s->grids = more;
    s->grids[s->grid_count++] = g;
    return LOAM_OK;
}

loam_status scene_read_mesh(const snode* m, loam_scene* s, const struct loam_sdf_grid** grid, loam_error* err) {
    snode n;
    if (!snode_get(m, "file", &n) || !snode_scalar(&n) || !*snode_scalar(&n))
        return snode_error(m, err, "a mesh needs 'file': an OBJ or STL file, relative to the scene file");
    float cell = 0.002f, margin = 0.02f, scale = 1.0f;
    loam_status st = opt_float(m, "cell", 1e-6, 10.0, &cell, err);
    if (st == LOAM_OK) st = opt_float(m, "margin", 1e-6, 100.0, &margin, err);
    if (st == LOAM_OK) st = opt_float(m, "scale", 1e-9, 1e9, &scale, err);
    if (st != LOAM_OK) return st;
    if (margin < cell) return snode_error(m, err, "a mesh's margin (%g m) must be at least its cell (%g m)", margin, cell);
    char path[2048], cache[1024];
    scene_resolve_path(s->path, snode_scalar(&n), path, sizeof path);
    loam_mesh mesh;
    loam_error inner;
    if (loam_mesh_load(path, &mesh, &inner) != LOAM_OK) return snode_error(&n, err, "%s", inner.message);
    for (int k = 0; k < 3 * mesh.vertex_count; ++k) mesh.vertices[k] *= scale;
    scene_grid* sg = calloc(1, sizeof *sg);
    loam_sdf_grid* g = sg ? &sg->grid : NULL;
    loam_sdf_cache_dir(cache, sizeof cache);
    double t0 = loam_clock_seconds();
    st = g ? loam_sdf_grid_build_cached(&mesh, cell, margin, cache[0] ? cache : NULL, g, &sg->from_cache, &inner)
           : loam_error_set(&inner, LOAM_ERR_NOMEM, "out of memory");
    if (sg) {
        sg->seconds = loam_clock_seconds() - t0;
        snprintf(sg->file, sizeof sg->file, "%s", snode_scalar(&n));
    }
    loam_mesh_destroy(&mesh);
    if (st != LOAM_OK) {
        free(sg);
        return snode_error(&n, err, "%s: %s", path, inner.message);
    }
    st = keep_grid(s, g, err);
    if (st != LOAM_OK) {
        loam_sdf_grid_destroy(g);
        free(sg);
        return st;
    }
    *grid = g;
    return LOAM_OK;
}

int loam_scene_grid_source(const loam_scene* s, const struct loam_sdf_grid* grid, const char** file, int* from_cache,
                           double* seconds) {
    for (int k = 0; s && grid && k < s->grid_count; ++k) {
        if (s->grids[k] != grid) continue;
        const scene_grid* sg = (const scene_grid*)(const void*)grid; /* its first member */
        if (file) *file = sg->file;
        if (from_cache) *from_cache = sg->from_cache;
        if (seconds) *seconds = sg->seconds;
        return 1;
    }
    return 0;
}
