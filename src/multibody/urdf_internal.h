/* Private to the URDF reader (urdf.c, urdf_mesh.c, urdf_srdf.c, urdf_xml.c): collision meshes found,
 * loaded and turned into signed distance grids, an SRDF's disabled pairs, the XML text's fixes. */
#ifndef LOAM_URDF_INTERNAL_H
#define LOAM_URDF_INTERNAL_H

#include <libxml/tree.h>

#include "loam/sdf_grid.h"
#include "loam/urdf.h"

/* Most surface points a URDF mesh geom keeps (its vertices, thinned evenly, extremes kept). */
enum { URDF_MESH_POINTS = 256 };

/* The grids one load has built, each in one block with its points after it; one per (file, scale),
 * shared by the geoms that use it. The model takes them over (loam_mb_model.owned_sdf). */
typedef struct urdf_meshes {
    int n, cap;
    loam_sdf_grid** block;
    char** path;
    loam_vec3d* scale;
    int* npoints;
} urdf_meshes;

/* Where a mesh filename points: package://NAME/REST, file://PATH, an absolute path or one relative
 * to the URDF's folder (docs/urdf-compat.md, "Meshes"). 1: found, the path in out; 0: not found,
 * where it looked in `tried`. */
int urdf_mesh_resolve(const char* urdf_file, const char* uri, const char* package_path, char* out, size_t cap, char* tried, size_t tried_cap);
/* Load the mesh at `path` (OBJ or STL), scaled, and (grids) build its grid (cell 0: the longest side
 * / 24) through loam's disk cache; g->sdf, points and npoints point into the set's block. Errors say why,
 * without the URDF's file and line (the caller adds them). */
loam_status urdf_mesh_build(urdf_meshes* set, const char* path, loam_vec3d scale, double cell, int grids, loam_mb_geom_def* g,
                            loam_error* err);
/* Hand the blocks to the model (on success) or free them. */
loam_status urdf_meshes_give(urdf_meshes* set, loam_mb_model* model, loam_error* err);
void urdf_meshes_free(urdf_meshes* set);

/* Read the SRDF at `path` and exclude its <disable_collisions link1= link2=> pairs from the model's
 * contacts; links the model lacks are an error naming the SRDF's line. */
loam_status urdf_srdf_apply(const char* path, loam_mb_model* model, loam_error* err);

/* urdf_xml.c: a copy of the text with its XML declaration made acceptable to libxml2 (version 1.0,
 * first in the file; later lines keep their numbers), its length in *out_len; NULL when it needs
 * no change. */
char* urdf_declaration_patched(const char* text, size_t length, size_t* out_len);
/* The first element in the xacro namespace (or named xacro:NAME) at or below n and its siblings. */
xmlNode* urdf_xacro_element(xmlNode* n);
/* Whether unparsable text holds xacro elements. */
int urdf_xacro_text(const char* text, size_t length);

#endif
