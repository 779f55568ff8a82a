/* What the three environments share (env.c) and what each supplies (its task: bulldozing.c,
 * gear_tower.c, excavation.c). A task builds its fixed assets once (meshes, grids, the settled bed),
 * populates a fresh world at every reset, drives its tools before every physics step, and scores. */
#ifndef LOAM_ENVS_ENV_INTERNAL_H
#define LOAM_ENVS_ENV_INTERNAL_H

#include "core/rng.h"
#include "loam/chain.h"
#include "loam/env.h"
#include "loam/sdf_grid.h"

#define ENV_MAX_ACTION LOAM_ENV_MAX_ACTION
#define ENV_MAX_GRIDS 4

typedef struct env_task {
    /* Once, at creation: assets, observation specs (env->spec, env->obs_count), env->action_dim,
     * and the bed (env_bed_settle fills env->bed_xyz / bed_radius). */
    loam_status (*build)(loam_env* env, loam_error* err);
    /* Once, after build: the episodes' bodies into w (a world that becomes the environments' shared
     * model, holding the settled bed already), at default poses; record their indices in the task
     * data. */
    loam_status (*add_bodies)(loam_env* env, loam_world* w, loam_error* err);
    /* At reset: env->world is fresh from the model (the bed at rest, bodies at default poses): set
     * what is random (shift the bed, place the tools, drawing from rng) and the task's episode
     * state. */
    loam_status (*populate)(loam_env* env, loam_rng* rng, loam_error* err);
    /* Before each physics step: command the tools from env->action (clipped to [-1, 1]). */
    loam_status (*drive)(loam_env* env, loam_error* err);
    /* After each physics step (may be NULL): advance chains, count crossings... */
    void (*after_step)(loam_env* env);
    /* Fill the observation buffers from the world. */
    loam_status (*observe)(loam_env* env, loam_error* err);
    /* Reward of the action just taken; sets info->progress and info->terminated. */
    double (*score)(loam_env* env, loam_env_step_info* info);
    void (*scripted)(loam_env* env, float* action); /* may advance the policy's own state */
    /* The render viewpoint. */
    loam_camera (*camera)(const loam_env* env);
    void (*destroy)(loam_env* env); /* frees env->task_data's insides (may be NULL) */
    size_t data_size;               /* bytes of env->task_data */
    /* After env->task_data was copied from src's: give the copy its own buffers (may be NULL). */
    loam_status (*clone)(loam_env* env, const loam_env* src, loam_error* err);
    /* The floats of the task's own buffers that are episode state (may be NULL: none), so a state
     * copy or file carries them (state_io.c); *count of them. */
    float* (*state_floats)(loam_env* env, size_t* count);
} env_task;

/* What environments made alike share (loam_env_clone): the settled bed, the grids the tools'
 * shapes point at, and the granular model every episode's world is made from. Reference counted
 * (atomically): the last environment to go frees it. */
typedef struct env_assets {
    int refs;
    loam_granular_model* model; /* NULL until the build is done */
    int bed_count;
    float* bed_xyz;
    float* bed_radius;
    int grid_count;
    loam_sdf_grid grids[ENV_MAX_GRIDS];
} env_assets;

struct loam_env {
    loam_env_config cfg;
    const env_task* task;
    void* task_data;
    loam_granular_params params;
    env_assets* assets;         /* shared with every environment made alike */
    loam_world* world;          /* the current episode's, NULL before the first reset */
    int broken;                 /* a step failed: the world is kept for inspection, steps need a reset */
    int action_dim;
    float action[ENV_MAX_ACTION]; /* the current action, clipped */
    int obs_count;
    loam_env_obs_spec spec[LOAM_ENV_MAX_OBS];
    float* obs[LOAM_ENV_MAX_OBS];
    /* The settled bed, by particle id (the model's initial positions), and the grids the task's
     * bodies point to: the assets'. */
    int bed_count;
    const float* bed_xyz;
    const float* bed_radius;
    int grid_count;
    loam_sdf_grid* grids;
    double episode_time;        /* simulated seconds since reset */
    int64_t physics_steps;      /* of this episode */
    double force_sum[3];        /* tool force summed over this action's physics steps */
    int force_samples;
    int busy;                   /* a host thread is inside a call (env_enter; atomic) */
};

/* One host thread inside an environment at a time. Every entry point that reads or changes the
 * episode enters first; a call that finds another thread inside is refused with LOAM_ERR_INPUT
 * naming the call (env_busy), so two threads on one environment get an error, never a race or a
 * crash. (Python serialises instead, with a lock per wrapper.) */
int env_enter(const loam_env* env);
void env_leave(const loam_env* env);
loam_status env_busy(const loam_env* env, const char* what, loam_error* err);
/* loam_env_reset's work, for callers that entered already. */
loam_status env_reset(loam_env* env, uint64_t seed, loam_error* err);

/* Shared helpers (env.c). */
loam_status env_alloc_obs(loam_env* env, loam_error* err);
void env_add_obs(loam_env* env, const char* name, int rank, int d0, int d1, int d2, float low, float high);
/* A grid sampled from a mesh (through the disk cache); returns its index or -1 with err set. */
int env_add_grid(loam_env* env, const loam_mesh* mesh, float cell, float margin, loam_error* err);
/* Move the fresh episode's bed (particle k in slot k) by (dx, dy) from where the model has it. */
void env_shift_bed(loam_env* env, float dx, float dy);
/* A jittered cubic lattice of n spheres of radius r filling the box [lo, hi] from the bottom up,
 * skipping points where keep() says no (keep may be NULL). xyz holds 3n floats. Returns the number
 * placed (< n when the box is full). */
int env_lattice(loam_vec3 lo, loam_vec3 hi, float r, int n, uint64_t seed,
                int (*keep)(const void* ctx, loam_vec3 p), const void* ctx, float* xyz);
/* Settle particles xyz (n, radius r) for cfg.settle_steps steps in a world with the task's container
 * bodies (`confined`), then, when `released` is not NULL, as many again with only those bodies (a
 * pen taken away), and keep the result as the bed. */
typedef loam_status (*env_add_bodies_fn)(loam_env* env, loam_world* w, loam_error* err);
loam_status env_bed_settle(loam_env* env, const float* xyz, int n, float r, env_add_bodies_fn confined,
                           env_add_bodies_fn released, loam_error* err);
/* The world particles as render input (all one colour, height-coloured for pictures). */
loam_render_particles env_render_particles(loam_env* env);
/* A perspective view for render(): the default camera moved to eye, looking at target. */
loam_camera env_view(loam_vec3 eye, loam_vec3 target, float fov_deg);
/* Accumulate the force on body b this physics step (the info's tool_force). */
void env_sample_force(loam_env* env, int body);
float env_clampf(float v, float lo, float hi);
/* Yaw angle of a pose's x axis about world z. */
float env_yaw(loam_quat q);

extern const env_task env_bulldozing_task;
extern const env_task env_gear_tower_task;
extern const env_task env_excavation_task;

#endif
