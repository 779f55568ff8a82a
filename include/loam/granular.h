/* loam granular: spherical particles in rigid frictional contact, solved implicitly at the velocity
 * level by Projected Jacobi (paper 000, section II), pushed by kinematic bodies.
 *
 * A model (loam_granular_model) is what does not change while stepping: particles by id (radius,
 * mass, and their initial positions and velocities, the default initial state as MuJoCo's qpos0),
 * bodies (shapes, motions, initial poses) and default parameters. A world (loam_world) is a state
 * of one model: positions, velocities, time, body poses and the solver's caches. Many worlds of one
 * model (a batch of environments) share its memory and step independently, from any host threads.
 *
 * Two ways to build a world: a model filled with loam_granular_model_add_particles / _add_body,
 * then loam_world_create_from_model for each world; or, for one world, loam_world_create and
 * loam_world_add_particles / loam_world_add_body, which fill the world's own private model. */
#ifndef LOAM_GRANULAR_H
#define LOAM_GRANULAR_H

#include "loam/body.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum loam_granular_solver {
    LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL = 0, /* projected Gauss-Seidel by colour of the contact graph (default) */
    LOAM_GRANULAR_SOLVER_JACOBI            /* projected Jacobi with mass splitting (paper 000, Algorithm 1) */
} loam_granular_solver;

/* Every parameter with its unit and default (loam_granular_default_params). */
typedef struct loam_granular_params {
    double dt;               /* time step, s; default 1e-3 (GranularGym's) */
    loam_vec3 gravity;       /* m/s^2; default (0, 0, -9.81) */
    loam_granular_solver solver; /* how the contact problem is swept; default LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL */
    int sweeps;              /* sweeps over all contacts per step; default 3 */
    float tolerance;         /* stop sweeping early when the largest velocity change of a sweep is below
                                this, m/s; 0 = always run all sweeps; default 0 */
    float baumgarte;         /* alpha: fraction of an overlap removed per step, -; default 0.2 */
    int push_sweeps;         /* sweeps of the separate overlap-removal (split impulse) problem, which
                                moves particles apart without giving them kinetic energy; 0 = the
                                paper's form, alpha psi/dt inside the velocity solve; -1 = the
                                method's: 2 for Gauss-Seidel, 1 for Jacobi; default -1 */
    float relaxation;        /* omega in (0, 2]: over-relaxation of each contact's effective mass, -
                                (Jacobi relaxes a contact less the fewer other contacts its
                                particles have, and a lone contact not at all; docs/solver.md);
                                0 = the method's: 1 for Gauss-Seidel, 1.8 for Jacobi; default 0 */
    float friction;          /* particle-particle Coulomb coefficient mu, -; default 0.5 */
    float damping;           /* velocity decay rate gamma: v *= exp(-gamma dt), 1/s; default 0 */
    float margin;            /* speculative contact margin as a fraction of the largest radius: pairs
                                closer than r_i + r_j + margin*r_max are contacts that may not close
                                more than their gap in one step; default 0.1 */
    float skin;              /* neighbour-list skin as a fraction of the largest radius: the list holds
                                pairs within the contact reach plus this, and is rebuilt from the
                                spatial hash only when some particle moved half of it; 0 = query
                                the hash every step; default 0.3 */
    int warm_start;          /* start each step's sweeps from last step's impulses, 0/1; default 1 */
    int hash_table_size;     /* buckets of the spatial hash; 0 = 2 N (the paper's heuristic); default 0 */
    int reorder_interval;    /* renumber particles by hash bucket every this many steps for memory
                                locality, 0 = never; default 10 */
    int periodic_axis;       /* -1 none, 0 x, 1 y, 2 z; default -1 */
    float periodic_lo, periodic_hi; /* the periodic interval along periodic_axis, m */
    float bound;             /* a particle beyond |x_k| > bound (m) on any axis means divergence;
                                default 1e4 */
    float sleep_speed;       /* particles slower than this for sleep_time fall asleep: they stop moving
                                and cost nothing until something faster than this (a particle or a
                                body surface) touches them; m/s; 0 = never (exact dynamics); default 0
                                (docs/solver.md, "Sleeping") */
    float sleep_time;        /* s; default 0.05 */
    int threads;             /* OpenMP threads of this world's steps, 0 = the context's count (then the
                                default of loam_set_threads: all cores); results are the same bits for
                                every count; default 0 */
    loam_context* context;   /* where the world's (or model's) memory comes from and is counted
                                (loam/core.h); NULL = the calling thread's scope, else the process
                                default context. Fixed at creation: the params a world or model
                                reports hold the context it resolved, and loam_world_set_params
                                keeps it whatever this field says; default NULL */
} loam_granular_params;

LOAM_API loam_granular_params loam_granular_default_params(void);
LOAM_API loam_status loam_granular_params_validate(const loam_granular_params* p, loam_error* err);
/* The relaxation and push sweeps a world steps with: the parameter, or the method's value where the
 * parameter asks for it (relaxation 0, push_sweeps -1). */
LOAM_API float loam_granular_relaxation(const loam_granular_params* p);
LOAM_API int loam_granular_push_sweeps(const loam_granular_params* p);

typedef struct loam_world loam_world;
typedef struct loam_granular_model loam_granular_model;

/* Structure-of-arrays view of particle data owned by the world; valid until particles are added.
 * Slots are renumbered every params.reorder_interval steps for speed: particle id[k] sits in slot k,
 * where ids are the order in which particles were added. */
typedef struct loam_particles {
    int count;
    float *x, *y, *z;        /* position, m */
    float *vx, *vy, *vz;     /* velocity, m/s */
    const float* radius;     /* m */
    const float* inv_mass;   /* 1/kg */
    const int* contact_count;/* contacts of each particle in the last step (particles and bodies);
                                counted when loam_world_particles is called, so call it again after
                                a step to read this step's; NULL before the first step, or when
                                there was no memory to count them */
    const int32_t* id;       /* identity of the particle in each slot */
} loam_particles;

/* What a body felt and where it is, updated by every step. */
typedef struct loam_body_state {
    loam_pose pose;
    loam_twist twist;
    loam_vec3 force;         /* total force particles exerted on the body during the last step, N */
    loam_vec3 torque;        /* about the body origin, N m */
    int contacts;            /* particle contacts in the last step */
} loam_body_state;

/* Counters of the last step. */
typedef struct loam_step_stats {
    int contacts;            /* particle-particle pairs (each counted once) */
    int body_contacts;       /* particle-body contacts */
    int sweeps_run;
    float max_overlap;       /* largest overlap at detection, m */
    float last_sweep_change; /* largest |dv| of the last sweep, m/s */
    int list_rebuilt;        /* 1 if the neighbour list was rebuilt from the spatial hash this step */
    long long list_builds;   /* neighbour-list builds since the world was made */
    int recolored;           /* 1 if the contact set changed and was coloured anew this step (a
                                bed at rest keeps its colouring) */
    int blocks_relisted;     /* blocks of 1024 particles whose contact rows were listed anew this
                                step (only those whose contacts changed, unless every block's
                                rows were laid out anew) */
    /* Wall time of each stage of the last step, s (Box2D's b2Profile, for finding hot spots). */
    double time_detect, time_color, time_solve, time_push, time_finish;
    int dropped_neighbors;   /* neighbours beyond 512 per particle that were ignored (0 unless the
                                packing is absurd; `loam run` warns) */
    int sleeping;            /* particles asleep after the step (params.sleep_speed) */
    int quiet;               /* particles whose detection the step passed by: blocks of 1024 all
                                asleep with nothing awake or moving within reach, which can have no
                                contact (a bed disturbed in one place costs what that place costs) */
} loam_step_stats;

/* ---- Model ---------------------------------------------------------------------------------- */

/* An empty model with these parameters (NULL: the defaults), which its worlds start with. */
LOAM_API loam_granular_model* loam_granular_model_create(const loam_granular_params* params, loam_error* err);
/* Drops the caller's reference: the model is freed when its last world is destroyed too, so worlds
 * may outlive this call (NULL-safe). Mesh grids its bodies' shapes point to must outlive every
 * world of it. */
LOAM_API void loam_granular_model_destroy(loam_granular_model* model);
/* Append n particles, as loam_world_add_particles: ids are the order of addition, xyz and vel (NULL:
 * at rest) their initial state. Only before the first world is made from the model (then
 * LOAM_ERR_INPUT: a model is fixed once it has worlds). */
LOAM_API loam_status loam_granular_model_add_particles(loam_granular_model* model, int n, const float* xyz, const float* vel,
                                                       const float* radius, float density, loam_error* err);
/* Append a body (its def.pose and twist are its initial state); returns its index, or -1 with err
 * set. Only before the first world is made from the model. */
LOAM_API int loam_granular_model_add_body(loam_granular_model* model, const loam_body_def* def, loam_error* err);
LOAM_API int loam_granular_model_particle_count(const loam_granular_model* model);
LOAM_API int loam_granular_model_body_count(const loam_granular_model* model);
LOAM_API const loam_granular_params* loam_granular_model_params(const loam_granular_model* model);
/* Bytes the model holds (its particles by id and its bodies), shared by all its worlds. */
LOAM_API size_t loam_granular_model_memory(const loam_granular_model* model);

/* ---- World ---------------------------------------------------------------------------------- */

/* A world in the model's initial state (particle k in slot k at its initial position and velocity,
 * bodies at their initial poses, time 0), stepping with the model's parameters. It references the
 * model (no copy of its particles by id or its bodies) and keeps it alive. Worlds of one model are
 * independent: stepping one touches no other, and two host threads may step two of them at once.
 * Particles and bodies cannot be added to such a world (add them to the model before). */
LOAM_API loam_world* loam_world_create_from_model(loam_granular_model* model, loam_error* err);
/* An empty world with a private model: fill it with loam_world_add_particles / _add_body. */
LOAM_API loam_world* loam_world_create(const loam_granular_params* params, loam_error* err);
LOAM_API void loam_world_destroy(loam_world* world);
/* The model the world steps (its private one for a world of loam_world_create). */
LOAM_API const loam_granular_model* loam_world_model(const loam_world* world);

/* Append n particles. xyz: 3n positions; vel: 3n or NULL (at rest); radius: n values (m);
 * density: kg/m^3 (mass = density * 4/3 pi r^3). Only before the first step, and only to a world of
 * loam_world_create (a world of a shared model: LOAM_ERR_INPUT). */
LOAM_API loam_status loam_world_add_particles(loam_world* world, int n, const float* xyz, const float* vel,
                                     const float* radius, float density, loam_error* err);
/* Returns the body's index, or -1 with err set. Only to a world of loam_world_create. */
LOAM_API int loam_world_add_body(loam_world* world, const loam_body_def* def, loam_error* err);

/* Advance `steps` steps (0 does nothing; negative is LOAM_ERR_INPUT), the same bits as that many calls
 * of one step. LOAM_ERR_DIVERGED names the step and the particle when a value is non-finite or leaves
 * the bound; the run stops there, the state left as it was before that step (after the ones before
 * it). loam_world_last_stats describes the last step taken. */
LOAM_API loam_status loam_world_step(loam_world* world, int steps, loam_error* err);

/* Change parameters between steps (e.g. friction during a run). Validated like loam_world_create's.
 * Changing periodic_*, hash_table_size or bound rebuilds the scratch, which drops the warm start. */
LOAM_API loam_status loam_world_set_params(loam_world* world, const loam_granular_params* params, loam_error* err);
/* The world's thread count (params.threads: 0 = the default) from the next step on. Unlike
 * loam_world_set_params it keeps the neighbour list, so a run continues with the same bits. */
LOAM_API loam_status loam_world_set_threads(loam_world* world, int threads, loam_error* err);
/* Wake every sleeping particle (params.sleep_speed): call after moving particles by hand, which a
 * sleeping particle would otherwise not notice. */
LOAM_API void loam_world_wake_all(loam_world* world);

/* For COMMANDED bodies: the twist used from the next step on. */
LOAM_API loam_status loam_world_command_body(loam_world* world, int body, loam_twist twist, loam_error* err);
/* Place a commanded body (before a step): for tools whose pose comes from elsewhere, such as a link
 * of a kinematic chain (loam/chain.h), set each step with the twist it moves with. */
LOAM_API loam_status loam_world_place_body(loam_world* world, int body, loam_pose pose, loam_error* err);

LOAM_API loam_particles loam_world_particles(loam_world* world);
LOAM_API const loam_granular_params* loam_world_params(const loam_world* world);
LOAM_API double loam_world_time(const loam_world* world);
LOAM_API int64_t loam_world_step_index(const loam_world* world);
LOAM_API int loam_world_body_count(const loam_world* world);
LOAM_API const loam_body_def* loam_world_body_def(const loam_world* world, int body);
LOAM_API const loam_body_state* loam_world_body_state(const loam_world* world, int body);
LOAM_API int loam_world_find_body(const loam_world* world, const char* name);
LOAM_API loam_step_stats loam_world_last_stats(const loam_world* world);
/* Bytes held by the world (state, scratch and a private model; a shared model is counted once, by
 * loam_granular_model_memory). */
LOAM_API size_t loam_world_memory(const loam_world* world);
/* A new world that is a copy of `world`'s state, down to its caches (warm-start impulses, contact
 * colours and row order, neighbour list, sleep counters, particle numbering), of the same model
 * (shared; a private model is copied): stepping the copy gives the bits stepping the original
 * gives. Mesh shapes share the original's grids. */
LOAM_API loam_world* loam_world_clone(const loam_world* world, loam_error* err);
/* The whole state of src into dst, a world of the same particles (same radii and masses by id) and
 * bodies: dst then steps exactly as src would. dst keeps its own model (body definitions and mesh
 * grids), so the two may be worlds of one model or of two models built alike. */
LOAM_API loam_status loam_world_copy_state(loam_world* dst, const loam_world* src, loam_error* err);
/* The same to a file (docs/state-files.md: versioned, checksummed, written to a temporary name and
 * renamed into place), and back into a world of the same particles and bodies, made by the same
 * build of loam (the file holds the world's caches in their in-memory layout, which it checks).
 * Loading validates magic, version, checksum, layout, particles, sizes and finite values; on any
 * error (LOAM_ERR_INPUT naming the file and field, LOAM_ERR_IO) dst is untouched. */
LOAM_API loam_status loam_world_save(const loam_world* world, const char* path, loam_error* err);
LOAM_API loam_status loam_world_load(loam_world* dst, const char* path, loam_error* err);
/* Kinetic energy sum 1/2 m v^2, J; and potential m g.x relative to the origin, J. */
LOAM_API double loam_world_kinetic_energy(const loam_world* world);

#ifdef __cplusplus
}
#endif
#endif
