/* Triangle meshes (geom module): read from OBJ and STL (ASCII and binary), checked and indexed.
 * Tools and robot links of any shape start here; a signed distance grid for contact is built from a
 * mesh. Coordinates are taken in metres, as loam's units; triangles are expected counter-clockwise
 * seen from outside (the OBJ and STL convention). */
#ifndef LOAM_MESH_H
#define LOAM_MESH_H

#include "loam/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest mesh loam reads: 2^26 triangles (about 1.6 GB of STL), far beyond any tool. */
#define LOAM_MESH_MAX_TRIANGLES (1 << 26)

typedef struct loam_mesh {
    int vertex_count;
    int triangle_count;
    float* vertices;    /* 3 * vertex_count: x, y, z, m */
    int32_t* triangles; /* 3 * triangle_count: vertex indices */
} loam_mesh;

/* Read a mesh file. The format comes from the extension (.obj or .stl, any case); an STL file is
 * binary when its size is 84 + 50 * (its triangle count), ASCII otherwise. STL's separate corners
 * are welded into shared vertices (exactly equal coordinates). Errors name the file and, for the
 * text formats, the line; status LOAM_ERR_INPUT for bad contents, LOAM_ERR_IO when unreadable. */
LOAM_API loam_status loam_mesh_load(const char* path, loam_mesh* mesh, loam_error* err);
/* The same from bytes in memory; `name` stands for the file in messages. OBJ: vertices (`v x y z`,
 * optionally w or a colour) and faces (`f` with 3 or more corners `i`, `i/t`, `i//n` or `i/t/n`,
 * negative indices counting back) are read, polygons split into fans; texture, normal, group,
 * material and smoothing statements are skipped; anything else is an error. */
LOAM_API loam_status loam_mesh_read_obj(const char* text, size_t length, const char* name, loam_mesh* mesh, loam_error* err);
LOAM_API loam_status loam_mesh_read_stl(const unsigned char* data, size_t length, const char* name, loam_mesh* mesh,
                               loam_error* err);
LOAM_API void loam_mesh_destroy(loam_mesh* mesh);
/* Axis-aligned bounds of the vertices. */
LOAM_API void loam_mesh_bounds(const loam_mesh* mesh, loam_vec3* lo, loam_vec3* hi);

#ifdef __cplusplus
}
#endif
#endif
