/* loam softbody: mass-spring soft robots simulated many at a time (paper 002, Mercury).
 *
 * A robot (loam_softbody_robot) is a model: masses with their rest positions, springs with rest
 * lengths and material ids, surface triangles. It does not change while stepping. A population
 * (loam_softbody_pop) copies B robots into one block each (model and state side by side, sized to
 * stay in a core's L2 cache while the robot is stepped) and steps them in parallel, one robot per
 * thread at a time; every robot's result is bit-identical whatever B and the thread count.
 *
 * Units: SI (m, s, kg, N), z up. Parameters, defaults and units are listed in docs/softbody.md. */
#ifndef LOAM_SOFTBODY_H
#define LOAM_SOFTBODY_H

#include "loam/core.h"
#include "loam/geom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Materials ------------------------------------------------------------------------------
 * Ids 0..253: 0 air (no spring), 1..20 muscles, 21 tissue, 22 bone (the 22 base materials of
 * Table I), 23..253 the 231 composites of two different base materials (Mercury's 254). */
enum {
    LOAM_SB_AIR = 0,
    LOAM_SB_MUSCLE_FIRST = 1,
    LOAM_SB_MUSCLES = 20,
    LOAM_SB_TISSUE = 21,
    LOAM_SB_BONE = 22,
    LOAM_SB_BASE_COUNT = 23,      /* air + 22 base materials */
    LOAM_SB_MATERIAL_COUNT = 254
};

/* Rest length L = L0 (1 + dL0 sin(omega t + phi)). */
typedef struct loam_softbody_material {
    float k;      /* spring constant, N/m */
    float dL0;    /* relative amplitude of the rest length, -; 0 = passive */
    float omega;  /* angular frequency, rad/s */
    float phi;    /* phase, rad */
} loam_softbody_material;

typedef struct loam_softbody_materials {
    loam_softbody_material m[LOAM_SB_MATERIAL_COUNT];
} loam_softbody_materials;

/* Table I with every k multiplied by k_scale (1 = the paper's 50 / 40 / 100 N/m), the composites
 * filled by loam_softbody_materials_mix. Muscle i (0..19): omega = x 2 pi rad/s with x = 1 for
 * i < 10 and 2 otherwise, phi = (i mod 10) pi / 5, dL0 = 0.14. */
LOAM_API loam_softbody_materials loam_softbody_default_materials(float k_scale);
/* Recompute ids 23..253 from the base set: a composite takes the mean of its two parts' k, dL0,
 * omega and phi (Mercury's rule). Call after overriding base materials. */
LOAM_API void loam_softbody_materials_mix(loam_softbody_materials* mats);
/* Id of the composite of base ids a and b (1..22); a == b gives a. -1 when either is out of range. */
LOAM_API int loam_softbody_composite_id(int a, int b);
/* Every material finite, k >= 0 (k > 0 except air), |dL0| < 1. */
LOAM_API loam_status loam_softbody_materials_validate(const loam_softbody_materials* mats, loam_error* err);

/* ---- Robots (models) ------------------------------------------------------------------------ */
enum { LOAM_SB_MAX_MASSES = 65535 }; /* spring endpoints are 16-bit inside a population slot */

typedef struct loam_softbody_robot {
    int mass_count, spring_count, face_count;
    float *x, *y, *z;      /* rest positions, m */
    float* inv_mass;       /* 1/kg; 0 = a fixed mass */
    int32_t *s0, *s1;      /* spring endpoints (mass indices) */
    float* rest;           /* rest length L0, m */
    uint8_t* material;     /* material id 1..253 */
    int32_t* face;         /* 3 * face_count mass indices, counter-clockwise seen from outside */
} loam_softbody_robot;

/* Unit masses, springs and faces zeroed; counts may be 0. NULL and err set on failure. */
LOAM_API loam_softbody_robot* loam_softbody_robot_alloc(int masses, int springs, int faces, loam_error* err);
LOAM_API void loam_softbody_robot_destroy(loam_softbody_robot* r);
LOAM_API loam_softbody_robot* loam_softbody_robot_copy(const loam_softbody_robot* r, loam_error* err);
/* Names the first bad element: spring naming a missing mass, a spring joining a mass to itself,
 * zero, negative or non-finite rest length, air or unknown material, a duplicate spring,
 * non-finite positions or inverse masses, faces naming missing masses, too many masses. */
LOAM_API loam_status loam_softbody_robot_validate(const loam_softbody_robot* r, int max_masses, loam_error* err);
/* Largest extent of the rest shape along x, y or z, m (the "body length" of the fitness). */
LOAM_API float loam_softbody_robot_length(const loam_softbody_robot* r);

/* Voxel robots: each non-air voxel's 8 corner masses (shared with its neighbours) and all 28 pairs
 * of the cube as springs. A spring exists when at least one voxel holding both ends is not air; its
 * material is the composite of the two most frequent base materials among those voxels (ties: lower
 * id first). Faces: two triangles per voxel face that borders air or the outside. Masses that no
 * solid voxel touches are left out. */
typedef struct loam_softbody_voxel_def {
    int nx, ny, nz;          /* voxels per axis; default 10 x 10 x 10 (Mercury's benchmark robot) */
    float size;              /* voxel edge, m; default 0.01 (Mercury: one mass per cm) */
    loam_vec3 origin;        /* position of the voxel grid's lowest corner, m; default (0, 0, 0) */
    float mass;              /* every mass, kg; default 1 (Mercury's unit masses) */
} loam_softbody_voxel_def;

LOAM_API loam_softbody_voxel_def loam_softbody_voxel_default_def(void);
/* voxels: nx*ny*nz base material ids (0 = air, 1..22), x fastest, then y, then z. */
LOAM_API loam_softbody_robot* loam_softbody_voxel_robot(const loam_softbody_voxel_def* def, const uint8_t* voxels,
                                               loam_error* err);
/* Random materials (air with probability air_fraction, else one of the 22 base materials), then only
 * the largest face-connected solid part kept, so the robot is one body. */
LOAM_API loam_status loam_softbody_random_voxels(const loam_softbody_voxel_def* def, uint64_t seed, float air_fraction,
                                        uint8_t* voxels, loam_error* err);

/* Keep only the largest face-connected solid part (lowest-numbered part on ties); all air becomes
 * one bone voxel at index 0. Evolution calls it after mutating. */
LOAM_API loam_status loam_softbody_voxels_keep_largest(const loam_softbody_voxel_def* def, uint8_t* voxels, loam_error* err);

/* Network-generated robots (paper 002, III-B): `points` samples of a 3-D standard Gaussian pass
 * through a random MLP (weights N(0, 1) from the seed; `layers` hidden ReLU layers of `hidden`
 * units) to 3 coordinates and 22 material logits (material = arg-max). Positions are centred and
 * scaled into a sphere of `radius`, moved to `origin`. qhull's Delaunay tetrahedra whose circumradius
 * is at most alpha x radius form the body (an alpha shape): their edges are the springs, faces of
 * exactly one of them the surface (outward). Springs shorter than min_spring are rejected (the
 * paper's epsilon); masses left without springs and their faces are left out; all are counted in
 * info. Requires loam built with qhull (libqhull-dev); otherwise an error says so. */
typedef struct loam_softbody_nn_def {
    int points;            /* masses sampled; default 200 */
    int hidden;            /* units per hidden layer; default 16 */
    int layers;            /* hidden layers; default 2 */
    float radius;          /* m; default 0.05 */
    float alpha;           /* circumradius limit as a fraction of radius; default 0.5 */
    float min_spring;      /* m; default 1e-3 */
    float mass;            /* kg per mass; default 1 */
    loam_vec3 origin;      /* centre of the sphere, m; default (0, 0, 0.05) */
} loam_softbody_nn_def;

typedef struct loam_softbody_nn_info {
    int tetrahedra;        /* kept by the alpha test */
    int rejected_springs;  /* shorter than min_spring */
    int dropped_points;    /* in no kept tetrahedron, or only in rejected springs */
    int dropped_faces;     /* surface faces touching a dropped point */
    int reserved;
} loam_softbody_nn_info;

LOAM_API loam_softbody_nn_def loam_softbody_nn_default_def(void);
LOAM_API loam_softbody_robot* loam_softbody_nn_robot(const loam_softbody_nn_def* def, uint64_t seed, loam_softbody_nn_info* info,
                                            loam_error* err);

/* Robot files: JSON (docs/softbody.md), {"masses": [[x, y, z] or [x, y, z, mass], ...],
 * "springs": [[i, j, material] or [i, j, material, rest], ...], "faces": [[i, j, k], ...]}.
 * mass 0 fixes a mass; a rest length left out is the rest distance. Errors name the file, the
 * array and the element index. */
LOAM_API loam_softbody_robot* loam_softbody_robot_load(const char* path, loam_error* err);
LOAM_API loam_softbody_robot* loam_softbody_robot_parse(const char* text, const char* name, loam_error* err);
LOAM_API loam_status loam_softbody_robot_save(const loam_softbody_robot* r, const char* path, loam_error* err);

/* ---- Simulation ----------------------------------------------------------------------------- */
typedef enum loam_softbody_solver {
    LOAM_SB_FORCE = 0,        /* Algorithm 1: Hooke forces, x += dt v + dt^2 F/m (default) */
    LOAM_SB_XPBD_JACOBI,      /* Algorithm 2, Jacobi sweeps with per-mass averaging */
    LOAM_SB_XPBD_GS           /* Algorithm 2, Gauss-Seidel by colour of the spring graph */
} loam_softbody_solver;

typedef enum loam_softbody_env {
    LOAM_SB_WATER = 0,        /* per-face drag and lift, equation 1 (default); neutrally buoyant */
    LOAM_SB_LINEAR_DRAG,      /* F = -c v on every mass; neutrally buoyant */
    LOAM_SB_LAND,             /* gravity, a floor with static and kinetic friction, mass-mass contact */
    LOAM_SB_VACUUM            /* no environment force (tests) */
} loam_softbody_env;

enum { LOAM_SB_MAX_GROUND = 16 }; /* ground shapes a population holds */

typedef struct loam_softbody_def {
    loam_softbody_solver solver; /* default LOAM_SB_FORCE */
    loam_softbody_env env;       /* default LOAM_SB_WATER */
    double dt;                   /* time step, s; default 1e-3 (Mercury refactor's) */
    float zeta;                  /* velocity damping: v = zeta (x' - x) / dt, -; default 0.99 */
    int iterations;              /* XPBD sweeps over all springs per step; default 4 */
    float rho;                   /* water density, kg/m^3; default 1000 */
    float drag_coefficient;      /* C_D of equation 1, -; default 1.0 */
    float lift_coefficient;      /* C_L of equation 1, -; default 0.2 (Mercury: 0.8 = C_D - C_L) */
    float linear_drag;           /* c of F = -c v, N s/m; default 1 */
    loam_vec3 gravity;           /* land only, m/s^2; default (0, 0, -9.81) */
    float floor_z;               /* land floor height, m, when ground_count is 0; default 0 (kept as
                                    the default ground: a plane shape at z = floor_z is the same) */
    float mu_static;             /* ground static friction coefficient, -; default 0.8 (Mercury land) */
    float mu_kinetic;            /* ground kinetic friction coefficient, -; default 0.6 */
    int ground_count;            /* land: shapes the masses stand on, 0..LOAM_SB_MAX_GROUND; 0 = the
                                    plane z = floor_z; default 0 */
    const loam_shape* ground;    /* ground_count shapes, each placed in the world by its `local` pose
                                    (friction unused: mu_static, mu_kinetic apply). Copied by
                                    loam_softbody_pop_create; a mesh's grid or a height field is not
                                    copied and must outlive the population. Default NULL */
    int collisions;              /* land: mass-mass contact through the spatial hash, 0/1; default 1 */
    float contact_radius;        /* mass radius for mass-mass contact, m; 0 = 0.3 x the robot's
                                    shortest spring; default 0 */
    int max_masses;              /* masses one population slot holds; default 4096 */
    float bound;                 /* |coordinate| beyond this (m) is divergence; default 1e4 */
    int threads;                 /* OpenMP threads a step spreads the robots over, 0 = the
                                    context's count (loam_context_def.threads), and where that is
                                    0, the default (loam_set_threads; all cores); the bits never
                                    depend on it; default 0 */
    loam_context* context;       /* where the population's memory comes from and is counted, and
                                    its thread count when threads is 0 (loam/core.h); NULL = the
                                    process default context; default NULL */
} loam_softbody_def;

LOAM_API loam_softbody_def loam_softbody_default_def(void);
LOAM_API loam_status loam_softbody_def_validate(const loam_softbody_def* def, loam_error* err);

typedef struct loam_softbody_pop loam_softbody_pop;

/* Copies the robots (each validated; errors name the robot index) and the materials. */
LOAM_API loam_softbody_pop* loam_softbody_pop_create(const loam_softbody_def* def, const loam_softbody_materials* mats,
                                            const loam_softbody_robot* const* robots, int count, loam_error* err);
LOAM_API void loam_softbody_pop_destroy(loam_softbody_pop* p);
/* Advance every robot by `steps` steps. A non-finite or out-of-bounds position stops that robot
 * with LOAM_ERR_DIVERGED naming the robot, the step and the mass; the other robots finish their
 * steps and the population's time does not advance, so after that error the robots are at
 * different steps: inspect them, then free the population. Threads: def.threads
 * (loam_softbody_pop_set_threads). */
LOAM_API loam_status loam_softbody_pop_step(loam_softbody_pop* p, int steps, loam_error* err);
/* Threads of the following steps (def.threads; 0 = the default). */
LOAM_API loam_status loam_softbody_pop_set_threads(loam_softbody_pop* p, int threads, loam_error* err);
LOAM_API int loam_softbody_pop_count(const loam_softbody_pop* p);
LOAM_API double loam_softbody_pop_time(const loam_softbody_pop* p);
/* Springs stepped per step over the population (air springs do not exist, so all do work). */
LOAM_API int64_t loam_softbody_pop_springs(const loam_softbody_pop* p);

/* The state of robot b, masses in the robot's order; valid until the population is freed.
 * Positions and velocities may be written between steps. */
typedef struct loam_softbody_state {
    int mass_count;
    float *x, *y, *z;        /* m */
    float *vx, *vy, *vz;     /* m/s */
} loam_softbody_state;

LOAM_API loam_status loam_softbody_pop_state(loam_softbody_pop* p, int b, loam_softbody_state* out, loam_error* err);
/* Bytes of robot b's block (model, state and the solver's tables; land's contact lists are apart):
 * what must stay in a core's cache while the robot is stepped. 0 for a bad b. */
LOAM_API size_t loam_softbody_pop_robot_bytes(const loam_softbody_pop* p, int b);
/* Centre of mass of robot b, m (fixed masses excluded). */
LOAM_API loam_vec3 loam_softbody_pop_com(const loam_softbody_pop* p, int b);

/* The dynamic state of every robot (positions, velocities, the land pair lists) and the time, from
 * src into dst, a population of the same robots (created from the same robots, definition and
 * materials): stepping on from either gives the same bits. */
LOAM_API loam_status loam_softbody_pop_copy_state(loam_softbody_pop* dst, const loam_softbody_pop* src, loam_error* err);
/* The same state to a file (docs/state-files.md), written to a temporary name and renamed into
 * place; and back into a population of the same robots. Loading checks magic, version, checksum,
 * the robots (a fingerprint of masses, rest lengths and materials) and finite values; on any error
 * (LOAM_ERR_INPUT naming the file and field, LOAM_ERR_IO) the population is untouched. */
LOAM_API loam_status loam_softbody_pop_save(const loam_softbody_pop* p, const char* path, loam_error* err);
LOAM_API loam_status loam_softbody_pop_load(loam_softbody_pop* p, const char* path, loam_error* err);

#ifdef __cplusplus
}
#endif
#endif
