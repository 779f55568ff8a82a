/* ParaView output of `loam run` beyond the particles: every body's surface each frame and one
 * multiblock series that shows particles and bodies together:
 *   bodies/NAME_NNNNN.vtp   a moving body's surface at frame N (bodies/NAME.vtp, once, for a fixed one)
 *   scene/scene_NNNNN.vtm   frame N: the particles and every body, as named blocks
 *   scene.pvd               the time series over the .vtm frames: open this in ParaView */
#ifndef LOAM_APP_RUN_VTK_H
#define LOAM_APP_RUN_VTK_H

#include "loam/granular.h"
#include "loam/output.h"

typedef struct run_vtk_body {
    char file[96];    /* NAME: the body's name with anything outside [A-Za-z0-9_.-] made '_', unique */
    loam_mesh surface; /* in the body's frame */
    int moving;       /* 0: fixed, written once */
} run_vtk_body;

typedef struct run_vtk {
    char dir[2048];
    loam_pvd_series* pvd;
    run_vtk_body* bodies;
    int body_count;
} run_vtk;

/* Tessellate the world's bodies and start scene.pvd; floors (planes) are drawn as squares around the
 * particles. */
loam_status run_vtk_open(run_vtk* v, const loam_world* w, const char* dir, loam_error* err);
/* Frame `index` at the world's current time; `particles_file` is that frame's particle file relative
 * to dir. */
loam_status run_vtk_frame(run_vtk* v, const loam_world* w, int index, const char* particles_file, loam_error* err);
void run_vtk_close(run_vtk* v);

#endif
