/* `loam bench multibody`, private to its files: the options, the scenes it builds, and the
 * time-to-error mode (bench_multibody_error.c). The command itself is cmd_bench_multibody.c; the
 * scenes are built in bench_multibody_scene.c. */
#ifndef LOAM_APP_BENCH_MULTIBODY_H
#define LOAM_APP_BENCH_MULTIBODY_H

#include "loam/io.h"
#include "loam/multibody.h"
#include "scenarios.h"

#define WHO "loam bench multibody"
#ifndef LOAM_SOURCE_DIR
#define LOAM_SOURCE_DIR "."
#endif

enum { MAX_SIZES = 16, NSOLVER = 6, NSCEN = 5, MAX_TARGETS = 8 };
enum { SPHERES = 0, STIRRING = 1, CABLE = 2, INSERTION = 3, CABLE_MANIP = 4 };
extern const char* const SCEN_NAMES[NSCEN];
extern const loam_mb_solver SOLVERS[NSOLVER];
/* RGB per solver, in SOLVERS' order, for the plots */
extern const unsigned char SOLVER_COLOUR[NSOLVER][3];

typedef struct opts {
    int scenario[NSCEN];    /* spheres, stirring, cable, insertion, cable_manip */
    int sizes[MAX_SIZES], nsizes, sizes_given;
    int solver_on[NSOLVER];
    int steps, settle, max_dense, threads, json;
    int step_stats, stats_iterations; /* --step-stats: whole steps of the stirring scene, for peers */
    double stats_tolerance;           /* --step-stats: the solver's stopping tolerance, m/s */
    loam_mb_solver stats_solver;
    double beta_scale;
    int adapt;              /* SubADMM/full ADMM residual balancing */
    double relaxation;      /* SubADMM/full ADMM over-relaxation */
    double relaxation_rigid; /* the same for contacts among small subsystems */
    double penalty_rigid;   /* small subsystems' per-constraint penalty scale (0: the paper's) */
    int accel;              /* SubADMM/full ADMM acceleration */
    double targets[MAX_TARGETS]; /* --target-error, m/s, largest first: any switches to the time-to-error mode */
    int ntargets;
    int max_iterations;     /* its search limit */
    int repeat;             /* fixed budgets: each step's solve timed this many times, the least kept */
    const char* urdf;
    const char* base_urdf; /* cable_manip: the mobile base */
    const char* csv;
    const char* png;
} opts;

/* One scene of a scenario, its model and state. */
typedef struct scene {
    int stir; /* SPHERES, STIRRING, CABLE, INSERTION, CABLE_MANIP */
    mb_stirring sc;
    mb_insertion ins;
    mb_cable_manip cm;
    loam_mb_model* m;
    loam_mb_state* s;
} scene;

/* The scene `stir` of size n with the given solver settings (the rest from o); 0 on failure, the
 * message printed. */
int bench_mb_scene_make(const opts* o, int stir, int n, loam_mb_solver solver, int iterations, scene* out);
void bench_mb_scene_free(scene* sc);
/* One step, the scene's controller first; 0 on failure (err set). */
int bench_mb_scene_step(scene* sc, loam_error* err);
/* s: the stirrer rests before its sweep, the robots before their orbit */
#define BENCH_MB_HOLD 0.3

/* Insertion's size is its beam pieces (1 to 8): where the sizes are not its own (none given, or
 * given with other scenarios), it runs 4 pieces. */
static inline int bench_mb_insertion_default(const opts* o, int stir) {
    return stir == INSERTION && (!o->sizes_given || o->scenario[SPHERES] || o->scenario[STIRRING] || o->scenario[CABLE] || o->scenario[CABLE_MANIP]);
}

/* --csv, in either mode: the file is written whole or not at all (loam/io.h). Open it with its
 * header line (NULL on failure, message printed); commit renames it into place once the rows are
 * written and returns the command's status (0, or 4 for a file it could not write). */
FILE* bench_mb_csv_open(loam_atomic_file* f, const char* path, const char* header);
int bench_mb_csv_commit(loam_atomic_file* f);

/* --target-error: per scenario, size, target and solver, the fewest iterations to the target and
 * the solve time at them; --png: the work-precision plot. Returns the command's exit status. */
int bench_mb_time_to_error(const opts* o);

#endif
