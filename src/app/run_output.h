/* What `loam run` leaves in its output folder:
 *   frames/frame_NNNNN.png   rendered view (scene output.png)
 *   particles/particles_NNNNN.vtp + particles.pvd   ParaView time series (output.vtp)
 *   bodies/, scene/, scene.pvd  every body's surface and particles + bodies together (run_vtk.h)
 *   movie.mp4                from the PNG frames when ffmpeg is installed (output.video)
 *   bodies.csv               force and torque particles exert on each body, every step
 *   summary.json             what ran, how fast, and how it ended */
#ifndef LOAM_APP_RUN_OUTPUT_H
#define LOAM_APP_RUN_OUTPUT_H

#include "app/run_vtk.h"
#include "loam/io.h"
#include "loam/output.h"
#include "loam/render.h"
#include "loam/scene.h"

typedef struct run_output {
    const loam_scene* scene;
    char dir[2048];
    loam_camera camera;
    loam_image image;
    loam_pvd_series* pvd;
    run_vtk vtk;              /* body surfaces and the combined series, with the particle files */
    loam_atomic_file bodies_csv;
    loam_shape* shapes;       /* every body's shapes, flattened, and their world poses */
    loam_pose* shape_poses;
    uint8_t* shape_rgb;
    int shape_count;
    float* speed;             /* scratch for colouring by speed */
    int frames_written;
    float color_lo, color_hi; /* fixed colour range, from the first frame */
} run_output;

loam_status run_output_open(run_output* o, const loam_scene* scene, const loam_world* w, const char* dir,
                            loam_error* err);
loam_status run_output_frame(run_output* o, loam_world* w, loam_error* err);
loam_status run_output_bodies(run_output* o, const loam_world* w, loam_error* err);
/* Finish files (CSV, video); always call, also after a failure, so nothing is left half written. */
loam_status run_output_close(run_output* o, int ok, int quiet, loam_error* err);

#endif
