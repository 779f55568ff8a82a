/* Growing a mesh while a reader parses (mesh.c): vertices and triangles appended with geometric
 * growth, STL corners welded through a hash of their exact coordinates. */
#ifndef LOAM_GEOM_MESH_BUILD_H
#define LOAM_GEOM_MESH_BUILD_H

#include "loam/mesh.h"

typedef struct loam_mesh_builder {
    loam_mesh mesh;
    int vertex_capacity, triangle_capacity;
    int32_t* weld;       /* open-addressing table of vertex indices (-1 = empty), when welding */
    int weld_capacity;   /* a power of two */
} loam_mesh_builder;

void loam_mesh_builder_init(loam_mesh_builder* b);
/* Returns the new vertex's index, or -1 when out of memory or past LOAM_MESH_MAX_TRIANGLES. */
int loam_mesh_add_vertex(loam_mesh_builder* b, float x, float y, float z);
/* The index of a vertex with exactly these coordinates, added if new; -1 when out of memory. */
int loam_mesh_weld_vertex(loam_mesh_builder* b, float x, float y, float z);
/* 0 when out of memory or past LOAM_MESH_MAX_TRIANGLES. */
int loam_mesh_add_triangle(loam_mesh_builder* b, int32_t a, int32_t c, int32_t d);
/* Hand the mesh over (trimmed to size), or report an empty one; the builder is left empty. */
loam_status loam_mesh_builder_finish(loam_mesh_builder* b, const char* name, loam_mesh* out, loam_error* err);
void loam_mesh_builder_free(loam_mesh_builder* b);
/* A finite number filling the whole token t[0 .. n) (not NUL-terminated), for the text readers. */
int loam_mesh_parse_float(const char* t, size_t n, float* out);

#endif
