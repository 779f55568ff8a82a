/* libFuzzer target for the mesh readers: every input is read as OBJ text and as STL (binary when
 * its size says so, ASCII otherwise); any mesh read is checked for indices in range and finite
 * coordinates, and a coarse signed distance grid is built from it (degenerate and duplicate
 * triangles, flat and huge meshes) and queried. Built only with -DLOAM_FUZZ=ON and clang; run with
 * TARGET=mesh scripts/fuzz.sh. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "loam/sdf_grid.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(const loam_mesh* m) {
    for (int t = 0; t < 3 * m->triangle_count; ++t)
        if (m->triangles[t] < 0 || m->triangles[t] >= m->vertex_count) abort();
    for (int v = 0; v < 3 * m->vertex_count; ++v)
        if (!isfinite(m->vertices[v])) abort();
    loam_vec3 lo, hi;
    loam_mesh_bounds(m, &lo, &hi);
    float extent = fmaxf(hi.x - lo.x, fmaxf(hi.y - lo.y, hi.z - lo.z));
    float cell = extent > 0.0f && isfinite(extent) ? extent / 6.0f : 1.0f;
    loam_sdf_grid g;
    loam_error err;
    if (m->triangle_count <= 2000 && loam_sdf_grid_build(m, cell, cell, &g, &err) == LOAM_OK) {
        for (size_t k = 0; k < (size_t)g.nx * g.ny * g.nz; ++k)
            if (isnan(g.values[k])) abort();
        loam_vec3 grad;
        if (isnan(loam_sdf_grid_query(&g, lo, &grad))) abort();
        loam_sdf_grid_destroy(&g);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    loam_mesh m;
    loam_error err;
    if (loam_mesh_read_obj((const char*)data, size, "fuzz.obj", &m, &err) == LOAM_OK) check(&m);
    loam_mesh_destroy(&m);
    if (loam_mesh_read_stl(data, size, "fuzz.stl", &m, &err) == LOAM_OK) check(&m);
    loam_mesh_destroy(&m);
    return 0;
}
