/* loam scene files: YAML (parsed by libyaml), every key documented in docs/scene-format.md.
 * Unknown keys are errors. Errors name the file, line, column, the dotted key, the value and what was
 * expected. `--set key=value` overrides any scalar by its dotted key before the scene is read. */
#ifndef LOAM_SCENE_H
#define LOAM_SCENE_H

#include "loam/env.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum loam_color_by { LOAM_COLOR_HEIGHT = 0, LOAM_COLOR_SPEED } loam_color_by;

typedef struct loam_scene_output {
    int frames;          /* frames written over the run (PNG and VTP), 0 = none; default 60 */
    int png;             /* render PNG frames, 0/1; default 1 */
    int vtp;             /* VTK PolyData frames + .pvd series, 0/1; default 1 */
    int video;           /* MP4 from the PNG frames when ffmpeg is installed, 0/1; default 1 */
    int width, height;   /* rendered frame size, pixels; default 960 x 540 */
    loam_color_by color_by; /* particle colour: height or speed; default height */
} loam_scene_output;

typedef struct loam_scene_camera {
    loam_vec3 eye, target, up; /* m; defaults look at the particles' bounding box from the front */
    float fov_deg;             /* vertical field of view, degrees; <= 0 = orthographic; default 40 */
    int has_eye, has_target;   /* set by the file (otherwise framed automatically) */
} loam_scene_camera;

typedef struct loam_scene {
    char name[LOAM_NAME_MAX];
    char path[1024];
    loam_granular_params params;
    double duration;      /* s; default 1 */
    int threads;          /* 0 = all cores; default 0 */
    float density;        /* kg/m^3; default 2500 */
    int particle_count;
    float* xyz;           /* 3 * particle_count */
    float* vel;           /* 3 * particle_count */
    float* radius;        /* particle_count */
    int body_count;
    loam_body_def* bodies;
    int grid_count;
    struct loam_sdf_grid** grids; /* the signed distance grids of mesh shapes, which bodies point to:
                                     keep the scene until every world made from it is destroyed */
    loam_scene_output output;
    loam_scene_camera camera;
    /* An `environment:` section instead of particles and bodies: `loam run` builds that environment
     * (loam/env.h) and drives it with its scripted policy, a new action every steps_per_action steps. */
    int has_environment;
    loam_env_config environment;
    uint64_t environment_reset_seed; /* seed of the episode's reset; default 0 */
} loam_scene;

/* Read a scene file. overrides: "dotted.key=value" strings, applied before reading; an override
 * naming a key the format does not have is an error. */
LOAM_API loam_status loam_scene_load(const char* path, const char* const* overrides, int override_count, loam_scene* scene,
                            loam_error* err);
/* The same from a buffer; `name` stands for the file in messages. */
LOAM_API loam_status loam_scene_load_buffer(const char* text, size_t length, const char* name, const char* const* overrides,
                                   int override_count, loam_scene* scene, loam_error* err);
LOAM_API void loam_scene_destroy(loam_scene* scene);

/* How the scene made `grid`, one of scene->grids: the mesh file as the scene names it, whether the
 * grid was read from the disk cache (1) or sampled (0), and the seconds that took. Any of the outputs
 * may be NULL. Returns 1, or 0 (outputs untouched) when grid is not one of the scene's. */
LOAM_API int loam_scene_grid_source(const loam_scene* scene, const struct loam_sdf_grid* grid, const char** file,
                           int* from_cache, double* seconds);

/* A world holding the scene's particles and bodies (an error for an environment scene: build it with
 * loam_env_create(&scene->environment) and loam_env_reset). */
LOAM_API loam_world* loam_scene_create_world(const loam_scene* scene, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
