/* `loam bench multibody`: paper 004's Table I as far as its scenarios exist (granular stirring; a
 * sphere bed for the scaling plot; a draping cable; FEM beam insertion; the two-robot cable
 * manipulation). Each scenario is brought to a common state with PGS (SubADMM for the draping cable); then every solver steps copies of that state at fixed iteration budgets
 * (30/60/90, 3/6/9 for nonsmooth Newton) and reports the mean solve time per step and the mean of the
 * paper's constraint error. A linear fit of time against size (at the first budget) gives the scaling
 * slope and R^2.
 *
 * Output: a table on stdout; --json: one JSON object per (scenario, size, solver, iterations) line and
 * one per fit; --csv FILE: the same rows as CSV; --png FILE: the scaling plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_args.h"
#include "app/commands.h"
#include "app/plot.h"
#include "core/clock.h"
#include "multibody/scenarios.h"

#define WHO "loam bench multibody"
#ifndef LOAM_SOURCE_DIR
#define LOAM_SOURCE_DIR "."
#endif

enum { MAX_SIZES = 16, NSOLVER = 6, NSCEN = 5 };
enum { SPHERES = 0, STIRRING = 1, CABLE = 2, INSERTION = 3, CABLE_MANIP = 4 };
static const char* SCEN_NAMES[NSCEN] = {"spheres", "stirring", "cable", "insertion", "cable_manip"};
static const loam_mb_solver SOLVERS[NSOLVER] = {LOAM_SOLVER_SUBADMM, LOAM_SOLVER_PGS, LOAM_SOLVER_PJ,
                                                LOAM_SOLVER_FADMM,   LOAM_SOLVER_NNEWTON, LOAM_SOLVER_PGS_CG};

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
    double target_error;    /* --target-error: > 0 switches to the time-to-error mode */
    int max_iterations;     /* its search limit */
    int repeat;             /* fixed budgets: each step's solve timed this many times, the least kept */
    const char* urdf;
    const char* base_urdf; /* cable_manip: the mobile base */
    const char* csv;
    const char* png;
} opts;

static void usage(FILE* f) {
    fprintf(f,
            "usage: loam bench multibody [options]\n"
            "  Paper 004, Table I and the scaling plot: each scenario settles with PGS, then every solver\n"
            "  steps the same state at 30/60/90 iterations (nonsmooth Newton: 3/6/9).\n"
            "options (each takes a value unless noted):\n"
            "  --scenario S     stirring, spheres, cable, insertion, cable_manip, a comma list, or all\n"
            "                   (default all)\n"
            "  --sizes N,N,...  spheres per scene, cable segments, or FEM beam pieces (1 to 8) for\n"
            "                   insertion (default 100,200,400; insertion alone: 4; cable_manip: >= 60)\n"
            "  --solvers L      comma list of subadmm, pgs, pj, fadmm, nnewton, pgs_cg (PGS with nonsmooth\n"
            "                   conjugate gradients, the paper's PGS baseline) (default all)\n"
            "  --steps S        measured steps per run (default 10)\n"
            "  --repeat R       fixed budgets: time each step's solve R times from the same state and\n"
            "                   keep the least, against a shared machine's noise (default 1)\n"
            "  --settle S       settling steps before measuring (default 250)\n"
            "  --max-dense N    largest size for the dense baselines fadmm and nnewton (default 200)\n"
            "  --beta-scale X   SubADMM/full ADMM penalty multiplier (default 10, the library's)\n"
            "  --adapt 0|1      SubADMM/full ADMM residual balancing of the penalty (default 1, the library's)\n"
            "  --relaxation A   SubADMM/full ADMM over-relaxation in (0, 2) (default 1, the library's)\n"
            "  --relaxation-rigid A  the same for contacts among rigid bodies and short arms (subsystems of\n"
            "                   at most 12 unknowns; default 1.5, the library's)\n"
            "  --penalty-rigid K  SubADMM/full ADMM: such a subsystem's penalty per constraint, K / (J A^-1 J^T);\n"
            "                   0: the subsystem's, the paper's rule (default 5, the library's)\n"
            "  --accel K        SubADMM/full ADMM acceleration: 0 none, 1 Nesterov restart, 2 Anderson, -1 Anderson\n"
            "                   with FEM pieces, else none (default the library's: -1)\n"
            "  --target-error E instead: per step, the fewest iterations each solver needs to bring the\n"
            "                   constraint error to E m/s, and the solve time at that budget\n"
            "  --max-iterations K  --target-error: give up above K iterations (default 4096)\n"
            "  --urdf PATH      the Panda of the stirring, insertion and cable_manip scenes\n"
            "                   (default %s/urdf/panda.urdf)\n"
            "  --base-urdf PATH the mobile base for cable_manip (default %s/urdf/mobile_base.urdf)\n"
            "  --threads T      threads, 0 = all cores (default 1)\n"
            "  --csv FILE       also write the rows as CSV\n"
            "  --png FILE       also draw time against size at the first budget (one panel per scenario\n"
            "                   measured, each solver's points and linear fit, R^2 in the legend)\n"
            "  --step-stats     instead: whole steps of the stirring scene with one solver (--solver,\n"
            "                   --iterations), their wall time and contact depths, as a peer (MuJoCo,\n"
            "                   bench/peers/mujoco_stirring.py) measures them (no value)\n"
            "  --solver S       --step-stats: the solver (default pgs)\n"
            "  --iterations K   --step-stats: its iterations per step (default 30)\n"
            "  --tolerance TOL  --step-stats: stop a step's iterations when no impulse changes a velocity\n"
            "                   by more than TOL m/s (default 1e-10)\n"
            "  --json           also print one JSON object per row and per fit (no value)\n",
            LOAM_SOURCE_DIR, LOAM_SOURCE_DIR);
}

static int parse_sizes(const char* val, opts* o) {
    if (!val) return cli_bad_value(WHO, "--sizes", val, "a comma list of sizes");
    o->nsizes = 0;
    const char* p = val;
    while (*p) {
        char* end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 100000 || (*end && *end != ',') || o->nsizes == MAX_SIZES)
            return cli_bad_value(WHO, "--sizes", val, "up to 16 sizes from 1 to 100000, comma separated");
        o->sizes[o->nsizes++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return o->nsizes ? 0 : cli_bad_value(WHO, "--sizes", val, "at least one size");
}

/* A comma list of names (or "all", where all_ok) into flags on[0..count): --solvers, --scenario. */
static int parse_name_list(const char* option, const char* val, const char* const* names, int count, int all_ok,
                           const char* expect, int* on) {
    if (!val) return cli_bad_value(WHO, option, val, expect);
    memset(on, 0, sizeof(int) * (size_t)count);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", val);
    for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int k = 0; k < count; ++k)
            if (!strcmp(tok, names[k]) || (all_ok && !strcmp(tok, "all"))) on[k] = found = 1;
        if (!found) return cli_bad_value(WHO, option, val, expect);
    }
    return 0;
}

static int parse_solvers(const char* val, opts* o) {
    const char* names[NSOLVER];
    for (int k = 0; k < NSOLVER; ++k) names[k] = loam_mb_solver_name(SOLVERS[k]);
    return parse_name_list("--solvers", val, names, NSOLVER, 0, "subadmm, pgs, pj, fadmm, nnewton or pgs_cg, comma separated",
                           o->solver_on);
}

/* --scenario: one name, a comma list, or all. */
static int parse_scenarios(const char* val, opts* o) {
    return parse_name_list("--scenario", val, SCEN_NAMES, NSCEN, 1,
                           "stirring, spheres, cable, insertion, cable_manip (comma separated) or all", o->scenario);
}

/* One scene of `scenario` with the given solver settings; returns 0 on failure (message printed). */
typedef struct scene {
    int stir; /* SPHERES, STIRRING, CABLE, INSERTION, CABLE_MANIP */
    mb_stirring sc;
    mb_insertion ins;
    mb_cable_manip cm;
    loam_mb_model* m;
    loam_mb_state* s;
} scene;

static int make_scene(const opts* o, int stir, int n, loam_mb_solver solver, int iterations, scene* out) {
    memset(out, 0, sizeof *out);
    out->stir = stir;
    loam_mb_options mo = loam_mb_default_options();
    mo.dt = 2e-3;
    mo.solver = solver;
    mo.iterations = iterations;
    mo.tolerance = 0.0; /* a fixed budget */
    mo.admm_beta_scale = o->beta_scale;
    mo.admm_adapt = o->adapt;
    mo.admm_relaxation = o->relaxation;
    mo.admm_relaxation_rigid = o->relaxation_rigid;
    mo.admm_penalty_rigid = o->penalty_rigid;
    mo.admm_accel = o->accel;
    loam_error err;
    loam_status st;
    if (stir == STIRRING) {
        st = mb_stirring_create(o->urdf, n, &mo, &out->sc, &err);
        out->m = out->sc.model, out->s = out->sc.state;
    } else if (stir == INSERTION) {
        st = mb_insertion_create(o->urdf, n, &mo, &out->ins, &err);
        out->m = out->ins.model, out->s = out->ins.state;
    } else if (stir == CABLE) {
        st = mb_cable_scene_create(n, &mo, &out->m, &out->s, &err);
    } else if (stir == CABLE_MANIP) {
        mb_cable_manip_def d = mb_cable_manip_default_def();
        /* segments of 2.5 cm, as the draping cable keeps its 2 cm: a longer cable, not ever lighter and
         * shorter segments (at 1.25 cm, 6 g, every solver fails the scene); n >= 60 reaches the floor */
        d.segments = n, d.cable_length = 0.025 * n;
        st = mb_cable_manip_create(o->base_urdf, o->urdf, &d, &mo, &out->cm, &err);
        out->m = out->cm.model, out->s = out->cm.state;
    } else {
        st = mb_spheres_create(n, &mo, &out->m, &out->s, &err);
    }
    if (st != LOAM_OK) fprintf(stderr, "%s: %s\n", WHO, err.message);
    return st == LOAM_OK;
}

static void free_scene(scene* sc) {
    if (sc->stir == STIRRING) mb_stirring_destroy(&sc->sc);
    else if (sc->stir == INSERTION) mb_insertion_destroy(&sc->ins);
    else if (sc->stir == CABLE_MANIP) mb_cable_manip_destroy(&sc->cm);
    else {
        loam_mb_state_destroy(sc->s);
        loam_mb_model_destroy(sc->m);
    }
}

static const double HOLD = 0.3; /* s: the stirrer rests before its sweep, the robots before their orbit */

static int step(scene* sc, loam_error* err) {
    if (sc->stir == STIRRING && mb_stirring_control(&sc->sc, sc->s, HOLD, err) != LOAM_OK) return 0;
    if (sc->stir == INSERTION && mb_insertion_control(&sc->ins, sc->s, err) != LOAM_OK) return 0;
    if (sc->stir == CABLE_MANIP && mb_cable_manip_control(&sc->cm, sc->s, HOLD, err) != LOAM_OK) return 0;
    return loam_mb_step(sc->m, sc->s, err) == LOAM_OK;
}

/* Whole steps of the stirring scene: wall time per step (collision, dynamics, solve; not the arm's
 * controller) and contact depths, the numbers a peer engine reports for the same scene. */
static int step_stats(const opts* o) {
    for (int z = 0; z < o->nsizes; ++z) {
        scene sc;
        loam_error err;
        if (!make_scene(o, 1, o->sizes[z], o->stats_solver, o->stats_iterations, &sc)) return 2;
        sc.m->opt.tolerance = o->stats_tolerance; /* as in normal use: stop when converged */
        double t = 0.0, max_depth = 0.0, sum_depth = 0.0;
        long ndepth = 0, iterations = 0;
        int done = 0;
        for (int i = 0; i < o->settle + o->steps; ++i) {
            if (mb_stirring_control(&sc.sc, sc.s, HOLD, &err) != LOAM_OK) break;
            double t0 = loam_clock_seconds();
            if (loam_mb_step(sc.m, sc.s, &err) != LOAM_OK) {
                fprintf(stderr, "%s: %s\n", WHO, err.message);
                break;
            }
            double dt = loam_clock_seconds() - t0;
            if (i < o->settle) continue;
            t += dt, ++done;
            iterations += sc.s->solver.iterations;
            for (int c = 0; c < sc.s->ncontact; ++c) {
                double d = fmax(sc.s->contact[c].depth, 0.0);
                max_depth = fmax(max_depth, d), sum_depth += d, ++ndepth;
            }
        }
        if (done)
            printf("{\"engine\":\"loam\",\"scenario\":\"stirring\",\"n\":%d,\"solver\":\"%s\",\"iterations\":%d,\"steps\":%d,"
                   "\"tolerance\":%.3g,\"mean_iterations\":%.2f,\"step_s\":%.6e,\"max_depth_m\":%.6e,\"mean_depth_m\":%.6e}\n",
                   o->sizes[z], loam_mb_solver_name(o->stats_solver), o->stats_iterations, done, o->stats_tolerance,
                   (double)iterations / done, t / done, max_depth, ndepth ? sum_depth / ndepth : 0.0);
        fflush(stdout);
        free_scene(&sc);
    }
    return 0;
}

/* One step of `sc` from `base` with k iterations: its error and solve time (the least of `repeat`
 * runs, against the shared machine's noise); 0 on failure. */
static int trial(scene* sc, const scene* base, int k, int repeat, double* error, double* time_s) {
    loam_error err;
    *time_s = INFINITY;
    sc->m->opt.iterations = k;
    for (int r = 0; r < repeat; ++r) {
        if (loam_mb_state_copy(sc->m, sc->s, base->s, &err) != LOAM_OK || !step(sc, &err)) {
            fprintf(stderr, "%s: %s\n", WHO, err.message);
            return 0;
        }
        *error = sc->s->solver.error;
        *time_s = fmin(*time_s, sc->s->solver.time_s);
    }
    return 1;
}

/* --target-error: the base scene settles, then keeps stepping (PGS to convergence, SubADMM for the
 * cable); at each of `steps` states every solver takes one step from a copy with budgets 1, 2, 4, ...
 * until its error is at most the target, then bisects down to the fewest iterations that reach it
 * (assuming the error falls with the budget, which holds up to noise). Reported: the mean of those
 * iteration counts and of the solve times at them, over the steps where the target was reached. */
static int time_to_error(const opts* o) {
    const char* const* names = SCEN_NAMES;
    printf("%-9s %6s %-8s %8s %12s %12s %7s\n", "scenario", "n", "solver", "its", "time s", "error m/s", "reached");
    for (int stir = 0; stir < NSCEN; ++stir) {
        if (!o->scenario[stir]) continue;
        for (int z = 0; z < o->nsizes; ++z) {
            int n = o->sizes[z];
            scene base, sc[NSOLVER];
            loam_error err;
            loam_mb_solver settle = stir == 2 ? LOAM_SOLVER_SUBADMM : LOAM_SOLVER_PGS;
            if (!make_scene(o, stir, n, settle, stir == 2 ? 200 : 500, &base)) return 2;
            base.m->opt.tolerance = 1e-10;
            /* the reference trajectory must not depend on the settings under test */
            base.m->opt.admm_beta_scale = 10.0, base.m->opt.admm_adapt = 1;
            double its_sum[NSOLVER] = {0}, t_sum[NSOLVER] = {0}, e_sum[NSOLVER] = {0};
            int reached[NSOLVER] = {0}, made[NSOLVER] = {0};
            for (int k = 0; k < NSOLVER; ++k)
                if (o->solver_on[k] && !((SOLVERS[k] == LOAM_SOLVER_FADMM || SOLVERS[k] == LOAM_SOLVER_NNEWTON) && n > o->max_dense)) {
                    if (!make_scene(o, stir, n, SOLVERS[k], 1, &sc[k])) return 2;
                    made[k] = 1;
                }
            int status = 0;
            for (int i = 0; i < o->settle + o->steps && !status; ++i) {
                if (i >= o->settle)
                    for (int k = 0; k < NSOLVER && !status; ++k) {
                        if (!made[k]) continue;
                        double e = INFINITY, t = 0.0, e_hi = INFINITY, t_hi = 0.0;
                        int lo = 0, hi = 1;
                        for (; hi <= o->max_iterations; hi *= 2) { /* grow until it reaches the target */
                            if (!trial(&sc[k], &base, hi, 1, &e, &t)) status = 3;
                            if (status || e <= o->target_error) break;
                            lo = hi;
                        }
                        if (status || hi > o->max_iterations) continue;
                        e_hi = e;
                        while (hi - lo > 1) { /* the fewest in (lo, hi] */
                            int mid = lo + (hi - lo) / 2;
                            if (!trial(&sc[k], &base, mid, 1, &e, &t)) status = 3;
                            if (status) break;
                            if (e <= o->target_error) hi = mid, e_hi = e;
                            else lo = mid;
                        }
                        if (status || !trial(&sc[k], &base, hi, 3, &e, &t_hi)) {
                            status = 3;
                            break;
                        }
                        its_sum[k] += hi, t_sum[k] += t_hi, e_sum[k] += e_hi, reached[k]++;
                    }
                if (!status && !step(&base, &err)) {
                    fprintf(stderr, "%s: base: %s\n", WHO, err.message);
                    status = 3;
                }
            }
            for (int k = 0; k < NSOLVER; ++k) {
                if (!made[k]) continue;
                free_scene(&sc[k]);
                if (status) continue;
                const char* name = loam_mb_solver_name(SOLVERS[k]);
                int r = reached[k];
                double its = r ? its_sum[k] / r : NAN, t = r ? t_sum[k] / r : NAN, e = r ? e_sum[k] / r : NAN;
                printf("%-9s %6d %-8s %8.1f %12.4e %12.4e %3d/%-3d\n", names[stir], n, name, its, t, e, r, o->steps);
                if (o->json)
                    printf("{\"scenario\":\"%s\",\"n\":%d,\"solver\":\"%s\",\"target_error\":%.6e,\"iterations_to_error\":%.3f,"
                           "\"time_to_error_s\":%.6e,\"error\":%.6e,\"reached\":%d,\"steps\":%d,\"beta_scale\":%g,\"adapt\":%d,\"relaxation\":%g,"
                           "\"relaxation_rigid\":%g,\"penalty_rigid\":%g,\"accel\":%d}\n",
                           names[stir], n, name, o->target_error, r ? its : -1.0, r ? t : -1.0, r ? e : -1.0, r, o->steps, o->beta_scale,
                           o->adapt, o->relaxation, o->relaxation_rigid, o->penalty_rigid, o->accel);
                fflush(stdout);
            }
            free_scene(&base);
            if (status) return status;
        }
    }
    return 0;
}

typedef struct row {
    int stir, n, solver, iterations, steps, contacts;
    double time_s, error;
} row;

static void fit(const row* rows, int nrows, int stir, int solver, int iterations, double* slope, double* icpt, double* r2, int* npts) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    int n = 0;
    for (int i = 0; i < nrows; ++i) {
        const row* r = &rows[i];
        if (r->stir != stir || r->solver != solver || r->iterations != iterations) continue;
        double x = r->n, y = r->time_s;
        sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y, ++n;
    }
    *npts = n;
    *slope = *icpt = *r2 = NAN;
    if (n < 2) return;
    double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
    if (!(vx > 0)) return;
    *slope = cxy / vx;
    *icpt = (sy - *slope * sx) / n;
    *r2 = vy > 0 ? cxy * cxy / (vx * vy) : 1.0;
}

/* The scaling plot (paper 004, Fig. 2): per scenario measured, each solver's solve time (ms) against
 * the size at its first budget, with the linear fit (slope in the legend, us per unit of N) and R^2
 * that the text output prints; solvers measured at fewer than two sizes are left out. */
static int write_png(const opts* o, const row* rows, int nrows) {
    static const unsigned char colour[NSOLVER][3] = {{214, 39, 40}, {31, 119, 180}, {44, 160, 44}, {148, 103, 189}, {255, 127, 14}, {23, 190, 207}};
    static const char* xlabel[NSCEN] = {"N spheres", "N spheres", "N cable segments", "N beam pieces", "N cable segments"};
    static char titles[NSCEN][80], labels[NSCEN][NSOLVER][48];
    double x[NSCEN][NSOLVER][MAX_SIZES], y[NSCEN][NSOLVER][MAX_SIZES];
    plot_fit_series series[NSCEN][NSOLVER];
    plot_panel panels[NSCEN];
    int np = 0;
    for (int sc = 0; sc < NSCEN; ++sc) {
        int ns = 0;
        for (int k = 0; k < NSOLVER; ++k) {
            int its = SOLVERS[k] == LOAM_SOLVER_NNEWTON ? 3 : 30, n = 0, npts;
            for (int i = 0; i < nrows && n < MAX_SIZES; ++i)
                if (rows[i].stir == sc && rows[i].solver == k && rows[i].iterations == its) x[sc][k][n] = rows[i].n, y[sc][k][n++] = 1e3 * rows[i].time_s;
            if (n < 2) continue; /* a scaling plot: a dense baseline measured at one size only squashes the axis */
            plot_fit_series* S = &series[sc][ns];
            fit(rows, nrows, sc, k, its, &S->slope, &S->intercept, &S->r2, &npts);
            S->slope *= 1e3, S->intercept *= 1e3; /* ms */
            snprintf(labels[sc][ns], sizeof labels[sc][ns], "%s: %.3g us/N", loam_mb_solver_name(SOLVERS[k]), 1e3 * S->slope);
            S->x = x[sc][k], S->y = y[sc][k], S->n = n, S->label = labels[sc][ns++];
            memcpy(S->rgb, colour[k], 3);
        }
        if (!ns) continue;
        snprintf(titles[sc], sizeof titles[sc], "%s: solve time at 30 iterations", SCEN_NAMES[sc]);
        panels[np++] = (plot_panel){titles[sc], xlabel[sc], "ms", ns, series[sc]};
    }
    if (!np) {
        fprintf(stderr, "%s: --png %s: no rows to plot\n", WHO, o->png);
        return 4;
    }
    loam_error err;
    if (plot_fits_png(o->png, 560, 420, panels, np, &err) != LOAM_OK) {
        fprintf(stderr, "%s: --png: %s\n", WHO, err.message);
        return 4;
    }
    printf("wrote %s (%d panels)\n", o->png, np);
    return 0;
}

int loam_bench_multibody(int argc, char** argv) {
    opts o;
    memset(&o, 0, sizeof o);
    for (int k = 0; k < NSCEN; ++k) o.scenario[k] = 1;
    o.sizes[0] = 100, o.sizes[1] = 200, o.sizes[2] = 400, o.nsizes = 3;
    for (int k = 0; k < NSOLVER; ++k) o.solver_on[k] = 1;
    o.steps = 10, o.settle = 250, o.max_dense = 200, o.threads = 1, o.max_iterations = 4096, o.repeat = 1;
    loam_mb_options defaults = loam_mb_default_options();
    o.beta_scale = defaults.admm_beta_scale, o.adapt = defaults.admm_adapt, o.relaxation = defaults.admm_relaxation;
    o.relaxation_rigid = defaults.admm_relaxation_rigid, o.penalty_rigid = defaults.admm_penalty_rigid;
    o.accel = defaults.admm_accel;
    o.stats_solver = LOAM_SOLVER_PGS, o.stats_iterations = 30, o.stats_tolerance = 1e-10;
    o.urdf = LOAM_SOURCE_DIR "/urdf/panda.urdf";
    o.base_urdf = LOAM_SOURCE_DIR "/urdf/mobile_base.urdf";
    for (int a = 0; a < argc; ++a) {
        const char* opt = argv[a];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(opt, "--json")) {
            o.json = 1;
            continue;
        }
        if (!strcmp(opt, "--step-stats")) {
            o.step_stats = 1;
            continue;
        }
        const char* val = a + 1 < argc ? argv[++a] : NULL;
        int rc = 0;
        if (!strcmp(opt, "--scenario")) {
            rc = parse_scenarios(val, &o);
        } else if (!strcmp(opt, "--sizes")) rc = parse_sizes(val, &o), o.sizes_given = 1;
        else if (!strcmp(opt, "--solvers")) rc = parse_solvers(val, &o);
        else if (!strcmp(opt, "--steps")) rc = cli_parse_int(WHO, opt, val, 1, 100000, &o.steps);
        else if (!strcmp(opt, "--settle")) rc = cli_parse_int(WHO, opt, val, 0, 1000000, &o.settle);
        else if (!strcmp(opt, "--max-dense")) rc = cli_parse_int(WHO, opt, val, 0, 100000, &o.max_dense);
        else if (!strcmp(opt, "--beta-scale")) rc = cli_parse_double(WHO, opt, val, 0.0, 1, 1e12, &o.beta_scale);
        else if (!strcmp(opt, "--adapt")) rc = cli_parse_int(WHO, opt, val, 0, 1, &o.adapt);
        else if (!strcmp(opt, "--relaxation")) rc = cli_parse_double(WHO, opt, val, 0.0, 1, 1.999, &o.relaxation);
        else if (!strcmp(opt, "--relaxation-rigid")) rc = cli_parse_double(WHO, opt, val, 0.0, 1, 1.999, &o.relaxation_rigid);
        else if (!strcmp(opt, "--penalty-rigid")) rc = cli_parse_double(WHO, opt, val, 0.0, 0, 1e6, &o.penalty_rigid);
        else if (!strcmp(opt, "--accel")) rc = cli_parse_int(WHO, opt, val, -1, 2, &o.accel);
        else if (!strcmp(opt, "--target-error")) rc = cli_parse_double(WHO, opt, val, 0.0, 1, 1e6, &o.target_error);
        else if (!strcmp(opt, "--max-iterations")) rc = cli_parse_int(WHO, opt, val, 1, 1000000, &o.max_iterations);
        else if (!strcmp(opt, "--repeat")) rc = cli_parse_int(WHO, opt, val, 1, 100, &o.repeat);
        else if (!strcmp(opt, "--threads")) rc = cli_parse_int(WHO, opt, val, 0, 1024, &o.threads);
        else if (!strcmp(opt, "--iterations")) rc = cli_parse_int(WHO, opt, val, 1, 1000000, &o.stats_iterations);
        else if (!strcmp(opt, "--tolerance")) rc = cli_parse_double(WHO, opt, val, 0.0, 1, 1e3, &o.stats_tolerance);
        else if (!strcmp(opt, "--solver")) {
            int found = 0;
            for (int k = 0; k < NSOLVER && val; ++k)
                if (!strcmp(val, loam_mb_solver_name(SOLVERS[k]))) o.stats_solver = SOLVERS[k], found = 1;
            if (!found) rc = cli_bad_value(WHO, opt, val, "subadmm, pgs, pj, fadmm, nnewton or pgs_cg");
        }
        else if (!strcmp(opt, "--urdf")) {
            if (!val) rc = cli_bad_value(WHO, opt, val, "a path");
            else o.urdf = val;
        } else if (!strcmp(opt, "--base-urdf")) {
            if (!val) rc = cli_bad_value(WHO, opt, val, "a path");
            else o.base_urdf = val;
        } else if (!strcmp(opt, "--png")) {
            if (!val) rc = cli_bad_value(WHO, opt, val, "a file name");
            else o.png = val;
        } else if (!strcmp(opt, "--csv")) {
            if (!val) rc = cli_bad_value(WHO, opt, val, "a file name");
            else o.csv = val;
        } else {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", WHO, opt);
            return 2;
        }
        if (rc) return rc;
    }
    loam_set_threads(o.threads);
    if (o.step_stats) return step_stats(&o);
    if (o.target_error > 0.0) return time_to_error(&o);
    FILE* csv = NULL;
    if (o.csv && !(csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "%s: cannot write %s\n", WHO, o.csv);
        return 4;
    }
    if (csv) fprintf(csv, "scenario,n,solver,iterations,steps,time_s,error,contacts\n");
    row rows[NSCEN * MAX_SIZES * NSOLVER * 3]; /* scenarios x sizes x solvers x budgets */
    int nrows = 0;
    printf("%-9s %6s %-8s %4s %12s %12s %9s\n", "scenario", "n", "solver", "its", "time/step s", "error m/s", "contacts");
    const char* const* names = SCEN_NAMES;
    for (int stir = 0; stir < NSCEN; ++stir) {
        if (!o.scenario[stir]) continue;
        /* insertion's size is its beam pieces (1 to 8): with sizes for the other scenes it runs 4 */
        int ins_default = stir == INSERTION && (!o.sizes_given || o.scenario[SPHERES] || o.scenario[STIRRING] || o.scenario[CABLE] ||
                                                o.scenario[CABLE_MANIP]);
        for (int z = 0; z < (ins_default ? 1 : o.nsizes); ++z) {
            int n = ins_default ? 4 : o.sizes[z];
            scene base;
            loam_error err;
            /* settle with PGS, except the draping cable: a long chain of light, stiff segments defeats
             * it (the robots' cable is held at both ends, and there SubADMM is the one that fails) */
            if (!make_scene(&o, stir, n, stir == CABLE ? LOAM_SOLVER_SUBADMM : LOAM_SOLVER_PGS, 50, &base)) return 2;
            base.m->opt.tolerance = 1e-10; /* settling: converge when it can */
            for (int i = 0; i < o.settle; ++i)
                if (!step(&base, &err)) {
                    fprintf(stderr, "%s: settling: %s\n", WHO, err.message);
                    free_scene(&base);
                    return 3;
                }
            for (int k = 0; k < NSOLVER; ++k) {
                if (!o.solver_on[k] || ((SOLVERS[k] == LOAM_SOLVER_FADMM || SOLVERS[k] == LOAM_SOLVER_NNEWTON) && n > o.max_dense)) continue;
                for (int level = 1; level <= 3; ++level) {
                    int its = (SOLVERS[k] == LOAM_SOLVER_NNEWTON ? 3 : 30) * level;
                    scene sc;
                    if (!make_scene(&o, stir, n, SOLVERS[k], its, &sc)) return 2;
                    if (loam_mb_state_copy(sc.m, sc.s, base.s, &err) != LOAM_OK) {
                        fprintf(stderr, "%s: %s\n", WHO, err.message);
                        return 1;
                    }
                    row r = {stir, n, k, its, 0, 0, 0.0, 0.0};
                    scene again; /* --repeat: the same step again from a copy (copies solve alike) */
                    int repeat_ok = o.repeat == 1 || make_scene(&o, stir, n, SOLVERS[k], its, &again);
                    if (!repeat_ok) return 2;
                    for (int i = 0; i < o.steps; ++i) {
                        double least = INFINITY;
                        for (int rep = 1; rep < o.repeat; ++rep) {
                            if (loam_mb_state_copy(again.m, again.s, sc.s, &err) != LOAM_OK || !step(&again, &err)) break;
                            least = fmin(least, again.s->solver.time_s);
                        }
                        if (!step(&sc, &err)) {
                            fprintf(stderr, "%s: %s: %s\n", WHO, loam_mb_solver_name(SOLVERS[k]), err.message);
                            break;
                        }
                        r.time_s += fmin(least, sc.s->solver.time_s), r.error += sc.s->solver.error, r.contacts += sc.s->ncontact, ++r.steps;
                    }
                    if (o.repeat > 1) free_scene(&again);
                    free_scene(&sc);
                    if (!r.steps) continue;
                    r.time_s /= r.steps, r.error /= r.steps, r.contacts /= r.steps;
                    rows[nrows++] = r;
                    const char* scen = names[stir];
                    const char* name = loam_mb_solver_name(SOLVERS[k]);
                    printf("%-9s %6d %-8s %4d %12.4e %12.4e %9d\n", scen, n, name, its, r.time_s, r.error, r.contacts);
                    if (o.json)
                        printf("{\"scenario\":\"%s\",\"n\":%d,\"solver\":\"%s\",\"iterations\":%d,\"steps\":%d,\"time_s\":%.6e,\"error\":%.6e,"
                               "\"contacts\":%d}\n",
                               scen, n, name, its, r.steps, r.time_s, r.error, r.contacts);
                    if (csv) fprintf(csv, "%s,%d,%s,%d,%d,%.6e,%.6e,%d\n", scen, n, name, its, r.steps, r.time_s, r.error, r.contacts);
                    fflush(stdout);
                }
            }
            free_scene(&base);
        }
        /* the scaling plot's numbers: time against size at each solver's first budget */
        for (int k = 0; k < NSOLVER; ++k) {
            int its = SOLVERS[k] == LOAM_SOLVER_NNEWTON ? 3 : 30, npts;
            double slope, icpt, r2;
            fit(rows, nrows, stir, k, its, &slope, &icpt, &r2, &npts);
            if (npts < 2) continue;
            const char* scen = names[stir];
            printf("fit %-9s %-8s %3d it: time = %.4e s + %.4e s x n, R^2 = %.4f (%d sizes)\n", scen, loam_mb_solver_name(SOLVERS[k]), its, icpt,
                   slope, r2, npts);
            if (o.json)
                printf("{\"fit\":\"time_vs_n\",\"scenario\":\"%s\",\"solver\":\"%s\",\"iterations\":%d,\"slope_s\":%.6e,\"intercept_s\":%.6e,"
                       "\"r2\":%.6f,\"sizes\":%d}\n",
                       scen, loam_mb_solver_name(SOLVERS[k]), its, slope, icpt, r2, npts);
        }
    }
    if (o.png && write_png(&o, rows, nrows) != 0) {
        if (csv) fclose(csv);
        return 4;
    }
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "%s: write error on %s\n", WHO, o.csv);
        return 4;
    }
    return 0;
}
