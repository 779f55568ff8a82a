/* loam output: VTK XML PolyData frames (.vtp) of particles and of body surfaces, multiblock frames
 * (.vtm) that group them and ParaView time series (.pvd) that ParaView opens directly, plus JSON
 * summaries. Every file is written atomically (loam/io.h): it is
 * either complete under its real name or absent. */
#ifndef LOAM_OUTPUT_H
#define LOAM_OUTPUT_H

#include <stdio.h>

#include "loam/core.h"
#include "loam/geom.h"
#include "loam/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- .vtp frames --------------------------------------------------------------------------- */

#define LOAM_VTP_MAX_EXTRA 256

/* An extra per-particle scalar written as a Float32 PointData array. */
typedef struct loam_vtp_field {
    const char* name;     /* 1..63 characters of [A-Za-z0-9_.-], distinct from the built-in arrays */
    const float* values;  /* count values */
} loam_vtp_field;

/* One frame's particles as structure-of-arrays views; nothing is copied or kept. */
typedef struct loam_vtp_particles {
    int count;                   /* >= 0; an empty frame is a valid file */
    const float *x, *y, *z;      /* positions, m: the points */
    const float *vx, *vy, *vz;   /* velocities, m/s: "velocity" (3 components) and "speed" */
    const float* radius;         /* m: "radius" */
    const int32_t* contacts;     /* "contacts"; NULL writes zeros */
    const int32_t* id;           /* "id"; NULL writes 0..count-1 */
    const loam_vtp_field* extra; /* extra_count (<= LOAM_VTP_MAX_EXTRA) fields; NULL when none */
    int extra_count;
    double time;                 /* s: FieldData "TimeValue", which ParaView shows for a lone file */
} loam_vtp_particles;

/* Write one frame as a VTK XML PolyData file: one vertex cell per particle, little or big endian as
 * the host, appended raw binary data with UInt64 block headers. speed is computed as
 * (float)sqrt((double)vx*vx + (double)vy*vy + (double)vz*vz).
 * LOAM_ERR_INPUT (naming the particle index and field) for NULL arrays, a negative count, a bad extra
 * field, or any non-finite float; nothing is written then. LOAM_ERR_IO when the file cannot be
 * written; no file is left behind. */
LOAM_API loam_status loam_vtp_write(const char* path, const loam_vtp_particles* particles, loam_error* err);

/* ---- body surfaces ------------------------------------------------------------------------ */

/* The surface of a body made of `count` shapes, as one triangle mesh in the body's frame (each shape
 * placed by its `local` pose), triangles counter-clockwise seen from outside. Primitives are
 * tessellated from their sizes (32 segments round); an infinite plane becomes a square of half side
 * plane_half centred below plane_centre (body frame); a mesh shape is the zero level set of its signed
 * distance grid (surface nets: within about a cell of the mesh it was sampled from, which is what the
 * solver sees). No shapes give an empty mesh. Free with loam_mesh_destroy. LOAM_ERR_INPUT names the shape
 * for a bad type, size or grid. */
LOAM_API loam_status loam_shapes_surface(const loam_shape* shapes, int count, loam_vec3 plane_centre, float plane_half,
                                loam_mesh* mesh, loam_error* err);

/* One frame of a body: surface (in the body frame) moved by pose, written as VTK XML PolyData with
 * triangle polys, FieldData "TimeValue" (s), "position" (m, 3 components) and "orientation" (the
 * pose's unit quaternion w, x, y, z), all Float64. Written atomically; LOAM_ERR_INPUT (nothing
 * written) for a non-finite time, pose or vertex, or a triangle index out of range. */
LOAM_API loam_status loam_vtp_write_surface(const char* path, const loam_mesh* surface, loam_pose pose, double time,
                                   loam_error* err);

/* ---- .vtm multiblock frames ---------------------------------------------------------------- */

/* One block of a multiblock frame: its name as ParaView lists it and its file, relative to the
 * .vtm's folder ("../particles/particles_00001.vtp" is fine). */
typedef struct loam_vtm_block {
    const char* name;
    const char* file;
} loam_vtm_block;

/* Write a vtkMultiBlockDataSet file listing `count` blocks, atomically. Names and files are escaped
 * for XML; LOAM_ERR_INPUT for a NULL or empty name or file. */
LOAM_API loam_status loam_vtm_write(const char* path, const loam_vtm_block* blocks, int count, loam_error* err);

/* ---- .pvd time series ---------------------------------------------------------------------- */

typedef struct loam_pvd_series loam_pvd_series;

/* Start a collection at path and write it (empty) at once, so an unwritable location fails here.
 * Returns NULL with err set (LOAM_ERR_IO, LOAM_ERR_NOMEM). */
LOAM_API loam_pvd_series* loam_pvd_create(const char* path, loam_error* err);
/* Add a frame and rewrite the whole .pvd atomically, so the file on disk always lists every frame
 * appended so far. file is the frame's name relative to the .pvd's directory. time must be finite and
 * greater than the previous frame's (LOAM_ERR_INPUT). On any failure the frame is not added. */
LOAM_API loam_status loam_pvd_append(loam_pvd_series* series, double time, const char* file, loam_error* err);
LOAM_API int loam_pvd_count(const loam_pvd_series* series);
/* Frees memory only: the file on disk is already complete. NULL is fine. */
LOAM_API void loam_pvd_destroy(loam_pvd_series* series);

/* ---- JSON ---------------------------------------------------------------------------------- */

struct cJSON; /* <cjson/cJSON.h>; callers build documents with cJSON and hand them here */

/* Pretty-print root (2-space indent, newline at the end). Numbers are printed with the fewest of 15,
 * 16 or 17 significant digits that read back to the same double, and non-finite numbers as null, so
 * the output is always valid JSON (raw items, cJSON_CreateRaw, are copied verbatim). LOAM_ERR_INPUT for an invalid item, an object member without a
 * name, or nesting deeper than 1000; LOAM_ERR_IO for a write error. */
LOAM_API loam_status loam_json_write(const struct cJSON* root, FILE* fp, loam_error* err);
/* The same into path, atomically. */
LOAM_API loam_status loam_json_write_file(const struct cJSON* root, const char* path, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
