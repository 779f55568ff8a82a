/* `loam bench multibody`: paper 004's Table I as far as its scenarios exist (granular stirring; a
 * sphere bed for the scaling plot; a draping cable; FEM beam insertion; the two-robot cable
 * manipulation). Each scenario is brought to a common state with PGS (SubADMM for the draping cable); then every solver steps copies of that state at fixed iteration budgets
 * (30/60/90, 3/6/9 for nonsmooth Newton) and reports the mean solve time per step and the mean of the
 * paper's constraint error. A linear fit of time against size (at the first budget) gives the scaling
 * slope and R^2.
 *
 * Output: a table on stdout; --json: one JSON object per (scenario, size, solver, iterations) line and
 * one per fit; --csv FILE: the same rows as CSV; --png FILE: the scaling plot. --target-error runs
 * the comparison at equal error instead (bench_multibody_error.c); the scenes are built in
 * bench_multibody_scene.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench_multibody.h"
#include "app/cli_args.h"
#include "app/commands.h"
#include "app/plot.h"
#include "core/clock.h"
#include "scenarios.h"

/* --target-error: up to MAX_TARGETS errors in (0, 1e6] m/s, kept largest first (each search then
 * starts where the last one's ended), repeats dropped. */
static int parse_targets(const char* val, opts* o) {
    const char* expect = "up to 8 errors in m/s, each > 0 and <= 1e6, comma separated";
    if (!val) return cli_bad_value(WHO, "--target-error", val, expect);
    o->ntargets = 0;
    const char* p = val;
    while (*p) {
        char* end;
        double v = strtod(p, &end);
        if (end == p || !(v > 0.0 && v <= 1e6) || (*end && *end != ',') || o->ntargets == MAX_TARGETS)
            return cli_bad_value(WHO, "--target-error", val, expect);
        int at = 0, dup = 0;
        for (int i = 0; i < o->ntargets; ++i) dup |= o->targets[i] == v, at += o->targets[i] > v;
        if (!dup) {
            memmove(o->targets + at + 1, o->targets + at, sizeof(double) * (size_t)(o->ntargets - at));
            o->targets[at] = v, ++o->ntargets;
        }
        p = *end ? end + 1 : end;
    }
    return o->ntargets ? 0 : cli_bad_value(WHO, "--target-error", val, expect);
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

/* Whole steps of the stirring scene: wall time per step (collision, dynamics, solve; not the arm's
 * controller) and contact depths, the numbers a peer engine reports for the same scene. */
static int step_stats(const opts* o) {
    for (int z = 0; z < o->nsizes; ++z) {
        scene sc;
        loam_error err;
        if (!bench_mb_scene_make(o, STIRRING, o->sizes[z], o->stats_solver, o->stats_iterations, &sc)) return 2;
        sc.m->opt.tolerance = o->stats_tolerance; /* as in normal use: stop when converged */
        double t = 0.0, max_depth = 0.0, sum_depth = 0.0;
        long ndepth = 0, iterations = 0;
        int done = 0;
        for (int i = 0; i < o->settle + o->steps; ++i) {
            int ok = mb_stirring_control(&sc.sc, sc.s, BENCH_MB_HOLD, &err) == LOAM_OK; /* the controller is not timed */
            double t0 = loam_clock_seconds();
            ok = ok && loam_mb_step(sc.m, sc.s, 1, &err) == LOAM_OK;
            double dt = loam_clock_seconds() - t0;
            if (!ok) {
                fprintf(stderr, "%s: %s\n", WHO, err.message);
                break;
            }
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
        bench_mb_scene_free(&sc);
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

FILE* bench_mb_csv_open(loam_atomic_file* f, const char* path, const char* header) {
    loam_error err;
    if (loam_atomic_open(f, path, &err) != LOAM_OK) {
        fprintf(stderr, "%s: --csv: %s\n", WHO, err.message);
        return NULL;
    }
    fprintf(f->fp, "%s\n", header);
    return f->fp;
}

int bench_mb_csv_commit(loam_atomic_file* f) {
    loam_error err;
    if (loam_atomic_commit(f, &err) == LOAM_OK) return 0;
    fprintf(stderr, "%s: --csv: %s\n", WHO, err.message);
    return 4;
}

/* --csv: the rows, once the run is done. */
static int write_csv(const opts* o, const row* rows, int nrows) {
    loam_atomic_file f;
    FILE* fp = bench_mb_csv_open(&f, o->csv, "scenario,n,solver,iterations,steps,time_s,error,contacts");
    if (!fp) return 4;
    for (int i = 0; i < nrows; ++i) {
        const row* r = &rows[i];
        fprintf(fp, "%s,%d,%s,%d,%d,%.6e,%.6e,%d\n", SCEN_NAMES[r->stir], r->n, loam_mb_solver_name(SOLVERS[r->solver]), r->iterations, r->steps,
                r->time_s, r->error, r->contacts);
    }
    return bench_mb_csv_commit(&f);
}

/* The scaling plot (paper 004, Fig. 2): per scenario measured, each solver's solve time (ms) against
 * the size at its first budget, with the linear fit (slope in the legend, us per unit of N) and R^2
 * that the text output prints; solvers measured at fewer than two sizes are left out. */
static int write_png(const opts* o, const row* rows, int nrows) {
    static const char* xlabel[NSCEN] = {"N spheres", "N spheres", "N cable segments", "N beam pieces", "N cable segments"};
    static char titles[NSCEN][80], labels[NSCEN][NSOLVER][48];
    double x[NSCEN][NSOLVER][MAX_SIZES], y[NSCEN][NSOLVER][MAX_SIZES];
    plot_fit_series series[NSCEN][NSOLVER];
    plot_panel panels[NSCEN];
    int np = 0;
    for (int sc = 0; sc < NSCEN; ++sc) {
        int ns = 0;
        for (int k = 0; k < NSOLVER; ++k) {
            int its = SOLVERS[k] == LOAM_MB_SOLVER_NNEWTON ? 3 : 30, n = 0, npts;
            for (int i = 0; i < nrows && n < MAX_SIZES; ++i)
                if (rows[i].stir == sc && rows[i].solver == k && rows[i].iterations == its) x[sc][k][n] = rows[i].n, y[sc][k][n++] = 1e3 * rows[i].time_s;
            if (n < 2) continue; /* a scaling plot: a dense baseline measured at one size only squashes the axis */
            plot_fit_series* S = &series[sc][ns];
            fit(rows, nrows, sc, k, its, &S->slope, &S->intercept, &S->r2, &npts);
            S->slope *= 1e3, S->intercept *= 1e3; /* ms */
            snprintf(labels[sc][ns], sizeof labels[sc][ns], "%s: %.3g us/N", loam_mb_solver_name(SOLVERS[k]), 1e3 * S->slope);
            S->x = x[sc][k], S->y = y[sc][k], S->n = n, S->label = labels[sc][ns++];
            memcpy(S->rgb, SOLVER_COLOUR[k], 3);
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
    o.stats_solver = LOAM_MB_SOLVER_PGS, o.stats_iterations = 30, o.stats_tolerance = 1e-10;
    o.urdf = LOAM_SOURCE_DIR "/urdf/panda.urdf";
    o.base_urdf = LOAM_SOURCE_DIR "/urdf/mobile_base.urdf";
    for (int a = 0; a < argc; ++a) {
        char opt[CLI_NAME_MAX];
        const char* val = cli_split_option(argv[a], opt);
        if (!strcmp(opt, "--json") || !strcmp(opt, "--step-stats")) {
            if (cli_flag(WHO, opt, val)) return LOAM_ERR_INPUT;
            if (opt[2] == 'j') o.json = 1;
            else o.step_stats = 1;
            continue;
        }
        int rc = cli_option_value(WHO, opt, argc, argv, &a, &val);
        if (rc) return rc;
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
        else if (!strcmp(opt, "--target-error")) rc = parse_targets(val, &o);
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
        }
        if (rc) return rc;
    }
    loam_set_threads(o.threads);
    if (o.step_stats) return step_stats(&o);
    if (o.ntargets > 0) return bench_mb_time_to_error(&o);
    row rows[NSCEN * MAX_SIZES * NSOLVER * 3]; /* scenarios x sizes x solvers x budgets */
    int nrows = 0;
    printf("%-9s %6s %-8s %4s %12s %12s %9s\n", "scenario", "n", "solver", "its", "time/step s", "error m/s", "contacts");
    const char* const* names = SCEN_NAMES;
    for (int stir = 0; stir < NSCEN; ++stir) {
        if (!o.scenario[stir]) continue;
        int ins_default = bench_mb_insertion_default(&o, stir);
        for (int z = 0; z < (ins_default ? 1 : o.nsizes); ++z) {
            int n = ins_default ? 4 : o.sizes[z];
            scene base;
            loam_error err;
            /* settle with PGS, except the draping cable: a long chain of light, stiff segments defeats
             * it (the robots' cable is held at both ends, and there SubADMM is the one that fails) */
            if (!bench_mb_scene_make(&o, stir, n, stir == CABLE ? LOAM_MB_SOLVER_SUBADMM : LOAM_MB_SOLVER_PGS, 50, &base)) return 2;
            base.m->opt.tolerance = 1e-10; /* settling: converge when it can */
            for (int i = 0; i < o.settle; ++i)
                if (!bench_mb_scene_step(&base, &err)) {
                    fprintf(stderr, "%s: settling: %s\n", WHO, err.message);
                    bench_mb_scene_free(&base);
                    return 3;
                }
            for (int k = 0; k < NSOLVER; ++k) {
                if (!o.solver_on[k] || ((SOLVERS[k] == LOAM_MB_SOLVER_FADMM || SOLVERS[k] == LOAM_MB_SOLVER_NNEWTON) && n > o.max_dense)) continue;
                for (int level = 1; level <= 3; ++level) {
                    int its = (SOLVERS[k] == LOAM_MB_SOLVER_NNEWTON ? 3 : 30) * level;
                    scene sc;
                    if (!bench_mb_scene_make(&o, stir, n, SOLVERS[k], its, &sc)) return 2;
                    if (loam_mb_state_copy(sc.m, sc.s, base.s, &err) != LOAM_OK) {
                        fprintf(stderr, "%s: %s\n", WHO, err.message);
                        return 1;
                    }
                    row r = {stir, n, k, its, 0, 0, 0.0, 0.0};
                    scene again; /* --repeat: the same step again from a copy (copies solve alike) */
                    int repeat_ok = o.repeat == 1 || bench_mb_scene_make(&o, stir, n, SOLVERS[k], its, &again);
                    if (!repeat_ok) return 2;
                    for (int i = 0; i < o.steps; ++i) {
                        double least = INFINITY;
                        for (int rep = 1; rep < o.repeat; ++rep) {
                            if (loam_mb_state_copy(again.m, again.s, sc.s, &err) != LOAM_OK || !bench_mb_scene_step(&again, &err)) break;
                            least = fmin(least, again.s->solver.time_s);
                        }
                        if (!bench_mb_scene_step(&sc, &err)) {
                            fprintf(stderr, "%s: %s: %s\n", WHO, loam_mb_solver_name(SOLVERS[k]), err.message);
                            break;
                        }
                        r.time_s += fmin(least, sc.s->solver.time_s), r.error += sc.s->solver.error, r.contacts += sc.s->ncontact, ++r.steps;
                    }
                    if (o.repeat > 1) bench_mb_scene_free(&again);
                    bench_mb_scene_free(&sc);
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
                    fflush(stdout);
                }
            }
            bench_mb_scene_free(&base);
        }
        /* the scaling plot's numbers: time against size at each solver's first budget */
        for (int k = 0; k < NSOLVER; ++k) {
            int its = SOLVERS[k] == LOAM_MB_SOLVER_NNEWTON ? 3 : 30, npts;
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
    if (o.png && write_png(&o, rows, nrows) != 0) return 4;
    return o.csv ? write_csv(&o, rows, nrows) : 0;
}
