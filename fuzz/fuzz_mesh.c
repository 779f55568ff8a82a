/* libFuzzer target for the mesh readers: every input is read as OBJ text and as STL (binary when
 * its size says so, ASCII otherwise), and any mesh read is checked for indices in range and finite
 * coordinates before it is freed. Built only with -DLOAM_FUZZ=ON and clang; run with
 * TARGET=mesh scripts/fuzz.sh. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "loam/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(const loam_mesh* m) {
    for (int t = 0; t < 3 * m->triangle_count; ++t)
        if (m->triangles[t] < 0 || m->triangles[t] >= m->vertex_count) abort();
    for (int v = 0; v < 3 * m->vertex_count; ++v)
        if (!isfinite(m->vertices[v])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    loam_mesh m;
    loam_error err;
    if (loam_mesh_read_obj((const char*)data, size, "fuzz.obj", &m, &err) == LOAM_OK) check(&m);
    loam_mesh_free(&m);
    if (loam_mesh_read_stl(data, size, "fuzz.stl", &m, &err) == LOAM_OK) check(&m);
    loam_mesh_free(&m);
    return 0;
}
