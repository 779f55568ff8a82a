/* loam environments: the three benchmark tasks of paper 000 (section III) as reinforcement-learning
 * environments in C, so the Python/Gymnasium layer is a thin view and a batch of environments steps in
 * one call with threads.
 *
 *   Bulldozing  a tracked bulldozer with a curved blade on a bed of particles; action (forward speed,
 *               yaw rate) in [-1, 1]^2; observations: 36x36 ego perspective depth image, 72x36 top-down
 *               height image, (x, y, yaw); reward +100/n per particle in the goal box, -d/n per particle
 *               outside it (d = its distance to the box), as GranularGym scores it.
 *   GearTower   a tall cylinder of particles, periodic in z, stirred by k helical gears on the axis of
 *               the tower; action: each gear's angular velocity in [-1, 1] (times max_gear_speed);
 *               reset draws uniformly random speeds; the paper's scaling benchmark (Fig. 3 and 9).
 *   Excavation  a 7-joint Franka Panda arm (links as capsules) with an excavator bucket at its flange
 *               over a bed of particles and a bin; action: joint velocities in [-1, 1]^7 (times each
 *               joint's speed limit); reward for material lifted in the bucket and delivered to the bin;
 *               the force particles exert on the bucket is reported every step.
 *
 * Every environment: reset(seed) builds a fresh world from a bed settled once at creation (shifted and
 * posed at random from the seed), so episodes with the same seed are identical. One action lasts
 * steps_per_action physics steps. Observations live in buffers the environment owns (stable
 * pointers: a host may wrap them without copying); they are refreshed by reset and step. */
#ifndef LOAM_ENV_H
#define LOAM_ENV_H
#include "loam/granular.h"
#include "loam/render.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum loam_env_kind {
    LOAM_ENV_BULLDOZING = 0,
    LOAM_ENV_GEAR_TOWER,
    LOAM_ENV_EXCAVATION,
    LOAM_ENV_KIND_COUNT
} loam_env_kind;

LOAM_API const char* loam_env_kind_name(loam_env_kind kind);
/* "bulldozing", "gear_tower", "excavation" (also "geartower"); returns 0 and sets *kind, or -1. */
LOAM_API int loam_env_kind_parse(const char* name, loam_env_kind* kind);

/* Every parameter with its unit; defaults per kind from loam_env_default_config. */
typedef struct loam_env_config {
    loam_env_kind kind;
    int particles;          /* number of particles; default 10,000 (GranularGym's), gear tower 20,000 */
    float radius;           /* particle radius, m; bulldozing 0.02 (GranularGym's), gear tower 0.004,
                               excavation 0.008 */
    float density;          /* kg/m^3; default 2500 */
    float friction;         /* particle-particle and particle-tool Coulomb coefficient; default 0.5 */
    double dt;              /* physics time step, s; default 1e-3 (excavation 5e-4, as the paper) */
    int sweeps;             /* contact sweeps per step; default 3 */
    int steps_per_action;   /* physics steps per env step; default 100 (0.1 s at dt 1e-3; excavation
                               100 at 5e-4 = 0.05 s) */
    double episode_time;    /* simulated seconds per episode before truncation; default 60 (GranularGym's
                               bulldozer), gear tower 10, excavation 20 */
    int gears;              /* gear tower: number of gears, 1 .. 16; default 4 */
    float max_gear_speed;   /* gear tower: rad/s at action 1; default 10 */
    float max_speed;        /* bulldozing: forward speed at action 1, m/s; default 0.5 */
    float max_yaw_rate;     /* bulldozing: yaw rate at action 1, rad/s; default 1.0 */
    int threads;            /* OpenMP threads of this environment: the settling at creation, every
                               episode's world, its observations; 0 = the default (loam_set_threads;
                               all cores); default 0 (a batch step runs each world on one thread,
                               environments in parallel) */
    int hash_table_size;    /* spatial hash buckets, 0 = 2 N; default 0 */
    int observe;            /* compute observations on every step, 0/1; default 1 (0: physics only) */
    int settle_steps;       /* physics steps that settle the bed at creation; default kind-specific */
    float sleep_speed;      /* particles slower than this for 0.05 s sleep until something faster
                               touches them (loam_granular_params.sleep_speed), m/s; 0 = never;
                               default 0.01 (docs/benchmarks-history.md: what it changes and saves) */
    uint64_t seed;          /* seed of the bed built at creation (reset's seed moves things around);
                               default 1 */
    loam_context* context;  /* where the environment's memory (its worlds, bed, grids, images) comes
                               from and is counted (loam/core.h); NULL = the calling thread's scope,
                               else the process default context; fixed at creation (clones share
                               it); default NULL */
} loam_env_config;

LOAM_API loam_env_config loam_env_default_config(loam_env_kind kind);
LOAM_API loam_status loam_env_config_validate(const loam_env_config* config, loam_error* err);

typedef struct loam_env loam_env;

/* Builds and settles the bed (seconds for 10k particles; the settled bed is reused by every reset). */
LOAM_API loam_env* loam_env_create(const loam_env_config* config, loam_error* err);
/* A new environment like `env` (same config) without building or settling anything: it shares env's
 * settled bed, grids and granular model (reference counted, so it may outlive env), and each of its
 * episodes is a world of that model. How a vector environment makes its B copies, and what a batch
 * of environments shares. It starts without a world (reset it). */
LOAM_API loam_env* loam_env_clone(const loam_env* env, loam_error* err);
LOAM_API void loam_env_destroy(loam_env* env);
/* The episode's state (the world with its caches, the task's episode data, clock, action, tool
 * force and observations) from src into dst, an environment of the same kind and configuration
 * (loam_env_clone makes one): both then step to the same bits. Planning by rollouts: copy, try,
 * copy back. src must have been reset. */
LOAM_API loam_status loam_env_copy_state(loam_env* dst, const loam_env* src, loam_error* err);
/* The same state to a file (docs/state-files.md: versioned, checksummed, written to a temporary name
 * and renamed into place), and back into an environment of the same kind and configuration, made
 * by the same build of loam (one never reset is reset first). Loading validates magic, version,
 * checksum, the environment's sizes, the world's particles and finite values; on any error
 * (LOAM_ERR_INPUT naming the file and field, LOAM_ERR_IO) the episode is untouched. */
LOAM_API loam_status loam_env_save_state(const loam_env* env, const char* path, loam_error* err);
LOAM_API loam_status loam_env_load_state(loam_env* env, const char* path, loam_error* err);

LOAM_API const loam_env_config* loam_env_get_config(const loam_env* env);

/* Actions: action_dim floats, each in [-1, 1]; values outside are clipped (Gymnasium's convention for
 * Box actions), NaN or infinite values are errors. */
LOAM_API int loam_env_action_dim(const loam_env* env);

/* Observations: named float arrays of at most 3 dimensions (images are height x width, rows top to
 * bottom), each with the bounds of its Box space. */
#define LOAM_ENV_MAX_OBS 4
#define LOAM_ENV_MAX_ACTION 16 /* the largest action_dim of any environment */
typedef struct loam_env_obs_spec {
    const char* name;   /* "depth", "height", "pose", "joints", "gears", "profile" */
    int rank;
    int shape[3];
    float low, high;    /* bounds of every element */
} loam_env_obs_spec;
LOAM_API int loam_env_obs_count(const loam_env* env);
LOAM_API loam_env_obs_spec loam_env_obs_spec_get(const loam_env* env, int index);
/* The environment's buffer for observation `index` (spec's element count floats), valid until
 * loam_env_destroy; its contents change on reset and step. */
LOAM_API float* loam_env_obs_buffer(loam_env* env, int index);

typedef struct loam_env_step_info {
    double reward;
    int terminated;         /* the task ended (bulldozing/excavation: every particle delivered) */
    int truncated;          /* the time budget is spent */
    double sim_time;        /* simulated seconds since reset */
    double realtime_factor; /* simulated seconds of this step over its wall seconds */
    double physics_seconds; /* wall time of this step's physics, s */
    double sensor_seconds;  /* wall time of this step's observations, s */
    double tool_force[3];   /* force the particles exerted on the controlled tool (blade, bucket, the
                               gears together), averaged over the step's physics steps, N */
    double progress;        /* bulldozing: fraction of particles in the goal box; excavation: fraction
                               in the bin; gear tower: fraction that crossed the periodic boundary
                               during the step */
    int contacts;           /* particle contacts in the last physics step */
} loam_env_step_info;

/* Start an episode. Deterministic in (config, seed). */
LOAM_API loam_status loam_env_reset(loam_env* env, uint64_t seed, loam_error* err);
/* One action; info may be NULL. A diverging world returns LOAM_ERR_DIVERGED naming step and particle;
 * the episode must then be reset. Stepping before the first reset is an error. */
LOAM_API loam_status loam_env_step(loam_env* env, const float* action, loam_env_step_info* info, loam_error* err);
/* Step `count` environments with actions[i * action_dim ...], in parallel over environments (each
 * world on one thread; as many threads as the largest `threads` among them, 0 = the default).
 * infos and errs hold count entries (errs may be NULL). Returns the first failure's status; the
 * other environments still step. An environment given twice is LOAM_ERR_INPUT (the message, in
 * errs[i] for the later index i, names both indices) and nothing steps.
 *
 * Threads: different environments may be stepped, reset and rendered from different host threads at
 * once. One environment takes one host thread at a time: a step, batch step, reset, render, clone,
 * copy, save or load that finds another thread inside a call on it is refused (LOAM_ERR_INPUT, "...
 * while another thread is inside a call on it") and changes nothing; serialise them to have them all
 * run, as the Python layer does. */
LOAM_API loam_status loam_env_step_batch(loam_env* const* envs, int count, const float* actions, loam_env_step_info* infos,
                                loam_error* errs);

/* The environment's thread count (config.threads; 0 = the default) from the next call on, for its
 * current world too; the bits do not change. */
LOAM_API loam_status loam_env_set_threads(loam_env* env, int threads, loam_error* err);
/* The world of the current episode (NULL before the first reset): particles, bodies, parameters. */
LOAM_API loam_world* loam_env_world(loam_env* env);
/* An RGB picture of the scene from the environment's default viewpoint into `out` (allocated by the
 * caller with any size up to LOAM_IMAGE_MAX_SIDE). */
LOAM_API loam_status loam_env_render(loam_env* env, loam_image* out, loam_error* err);
/* A scripted policy for demos and `loam run` of an environment scene: a deterministic action for
 * the current state (bulldozing: sweep the pile towards the goal; excavation: a dig-lift-dump cycle;
 * gear tower: keep the reset speeds). Writes action_dim values. Not const: excavation's cycle keeps
 * its current waypoint in the environment. */
LOAM_API void loam_env_scripted_action(loam_env* env, float* action);

#ifdef __cplusplus
}
#endif
#endif
