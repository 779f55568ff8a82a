/* `loam bench multibody --target-error E[,E...]`: the solvers compared at equal constraint error
 * instead of equal iterations. The base scene settles, then keeps stepping (PGS to convergence,
 * SubADMM for the draping cable); at each of --steps states every solver takes one step from a copy
 * with budgets 1, 2, 4, ... until its error is at most the target, then bisects down to the fewest
 * iterations that reach it (assuming the error falls with the budget, which holds up to noise), and
 * times the solve at that budget (the least of 3 runs). Targets go largest first, and each search
 * starts where the last one ended: under that assumption the budget before the last one's answer
 * misses a tighter target too. Reported per (scenario, size, target, solver): the mean of those
 * iteration counts and solve times over the steps where the target was reached, and each other
 * solver's time over SubADMM's; --png draws time against target, one panel per scenario and size
 * (a work-precision plot); --csv writes the rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench_multibody.h"
#include "app/plot.h"

/* One (scenario, size, target, solver) result. */
typedef struct result {
    int stir, n, solver, reached;
    double target, iterations, time_s, error; /* means over the steps that reached the target */
} result;

/* One step of `sc` from `base` with k iterations: its error and solve time (the least of `repeat`
 * runs, against the shared machine's noise); 0 on failure. */
static int trial(scene* sc, const scene* base, int k, int repeat, double* error, double* time_s) {
    loam_error err;
    *time_s = INFINITY;
    sc->m->opt.iterations = k;
    for (int r = 0; r < repeat; ++r) {
        if (loam_mb_state_copy(sc->m, sc->s, base->s, &err) != LOAM_OK || !bench_mb_scene_step(sc, &err)) {
            fprintf(stderr, "%s: %s\n", WHO, err.message);
            return 0;
        }
        *error = sc->s->solver.error;
        *time_s = fmin(*time_s, sc->s->solver.time_s);
    }
    return 1;
}

/* The fewest iterations above `lo` (known to miss) that bring sc's step from base to `target`:
 * budgets lo + 1, lo + 2, lo + 4, ... until one reaches it, then bisection. 1 with *its, *error and
 * *time_s set; 0 if max_iterations do not reach it; -1 on failure. */
static int search(scene* sc, const scene* base, double target, int lo, int max_iterations, int* its, double* error, double* time_s) {
    double e = INFINITY, t = 0.0;
    int from = lo, hi = lo + 1;
    for (int step = 1; (hi = from + step) <= max_iterations; step *= 2) {
        if (!trial(sc, base, hi, 1, &e, &t)) return -1;
        if (e <= target) break;
        lo = hi;
    }
    if (hi > max_iterations) return 0;
    while (hi - lo > 1) { /* the fewest in (lo, hi] */
        int mid = lo + (hi - lo) / 2;
        if (!trial(sc, base, mid, 1, &e, &t)) return -1;
        if (e <= target) hi = mid;
        else lo = mid;
    }
    if (!trial(sc, base, hi, 3, error, time_s)) return -1; /* (a step is deterministic: the error found above) */
    *its = hi;
    return 1;
}

/* One scenario at one size: every target and solver; appends to res. Returns the exit status. */
static int one_size(const opts* o, int stir, int n, result* res, int* nres) {
    scene base, sc[NSOLVER];
    loam_error err;
    loam_mb_solver settle = stir == CABLE ? LOAM_MB_SOLVER_SUBADMM : LOAM_MB_SOLVER_PGS;
    if (!bench_mb_scene_make(o, stir, n, settle, stir == CABLE ? 200 : 500, &base)) return 2;
    base.m->opt.tolerance = 1e-10;
    /* the reference trajectory must not depend on the settings under test */
    base.m->opt.admm_beta_scale = 10.0, base.m->opt.admm_adapt = 1;
    double its_sum[MAX_TARGETS][NSOLVER] = {{0}}, t_sum[MAX_TARGETS][NSOLVER] = {{0}}, e_sum[MAX_TARGETS][NSOLVER] = {{0}};
    int reached[MAX_TARGETS][NSOLVER] = {{0}}, made[NSOLVER] = {0}, status = 0;
    for (int k = 0; k < NSOLVER && !status; ++k)
        if (o->solver_on[k] && !((SOLVERS[k] == LOAM_MB_SOLVER_FADMM || SOLVERS[k] == LOAM_MB_SOLVER_NNEWTON) && n > o->max_dense)) {
            if (!bench_mb_scene_make(o, stir, n, SOLVERS[k], 1, &sc[k])) status = 2;
            else made[k] = 1;
        }
    for (int i = 0; i < o->settle + o->steps && !status; ++i) {
        if (i >= o->settle)
            for (int k = 0; k < NSOLVER && !status; ++k) {
                int lo = 0; /* misses every target still to come */
                for (int t = 0; t < o->ntargets && made[k] && !status; ++t) {
                    int its = 0;
                    double e = 0.0, time_s = 0.0;
                    int found = search(&sc[k], &base, o->targets[t], lo, o->max_iterations, &its, &e, &time_s);
                    if (found < 0) status = 3;
                    if (found <= 0) break; /* the tighter targets are out of reach too */
                    its_sum[t][k] += its, t_sum[t][k] += time_s, e_sum[t][k] += e, reached[t][k]++;
                    lo = its - 1;
                }
            }
        if (!status && !bench_mb_scene_step(&base, &err)) {
            fprintf(stderr, "%s: base: %s\n", WHO, err.message);
            status = 3;
        }
    }
    for (int k = 0; k < NSOLVER; ++k)
        if (made[k]) bench_mb_scene_free(&sc[k]);
    bench_mb_scene_free(&base);
    if (status) return status;
    for (int t = 0; t < o->ntargets; ++t) {
        double t_admm = NAN;
        for (int k = 0; k < NSOLVER; ++k) {
            if (!made[k]) continue;
            const char* name = loam_mb_solver_name(SOLVERS[k]);
            int r = reached[t][k];
            result q = {stir, n, k, r, o->targets[t], r ? its_sum[t][k] / r : NAN, r ? t_sum[t][k] / r : NAN, r ? e_sum[t][k] / r : NAN};
            res[(*nres)++] = q;
            if (SOLVERS[k] == LOAM_MB_SOLVER_SUBADMM && r == o->steps) t_admm = q.time_s;
            printf("%-11s %6d %9.1e %-8s %8.1f %12.4e %12.4e %3d/%-3d\n", SCEN_NAMES[stir], n, q.target, name, q.iterations, q.time_s,
                   q.error, r, o->steps);
            if (o->json)
                printf("{\"scenario\":\"%s\",\"n\":%d,\"solver\":\"%s\",\"target_error\":%.6e,\"iterations_to_error\":%.3f,"
                       "\"time_to_error_s\":%.6e,\"error\":%.6e,\"reached\":%d,\"steps\":%d,\"beta_scale\":%g,\"adapt\":%d,\"relaxation\":%g,"
                       "\"relaxation_rigid\":%g,\"penalty_rigid\":%g,\"accel\":%d}\n",
                       SCEN_NAMES[stir], n, name, q.target, r ? q.iterations : -1.0, r ? q.time_s : -1.0, r ? q.error : -1.0, r, o->steps,
                       o->beta_scale, o->adapt, o->relaxation, o->relaxation_rigid, o->penalty_rigid, o->accel);
        }
        /* each other solver's time over SubADMM's, where both reached the target at every step */
        for (int k = 0; k < NSOLVER && isfinite(t_admm); ++k)
            if (made[k] && SOLVERS[k] != LOAM_MB_SOLVER_SUBADMM && reached[t][k] == o->steps)
                printf("ratio %-9s %6d %9.1e %s/subadmm %.2f\n", SCEN_NAMES[stir], n, o->targets[t], loam_mb_solver_name(SOLVERS[k]),
                       t_sum[t][k] / reached[t][k] / t_admm);
    }
    fflush(stdout);
    return 0;
}

/* Time to error against the target, one panel per (scenario, size), each solver a curve through
 * the targets it reached at every step. The results come grouped by (scenario, size), so a panel is
 * a run of them; a panel's curves sit at its solvers' slots and are closed up at the end. */
static int write_png(const opts* o, const result* res, int nres) {
    enum { MAX_PANELS = NSCEN * MAX_SIZES };
    plot_panel* panels = calloc(MAX_PANELS, sizeof *panels);
    plot_fit_series* series = calloc((size_t)MAX_PANELS * NSOLVER, sizeof *series);
    double* xy = calloc((size_t)MAX_PANELS * NSOLVER * MAX_TARGETS * 2, sizeof *xy); /* per curve: x, then y */
    char(*titles)[64] = calloc(MAX_PANELS, sizeof *titles);
    int np = 0, status = 0;
    if (!panels || !series || !xy || !titles) {
        fprintf(stderr, "%s: --png: out of memory\n", WHO);
        status = 1;
    }
    for (int i = 0; i < nres && !status; ++i) {
        const result* q = &res[i];
        if (i == 0 || q->stir != res[i - 1].stir || q->n != res[i - 1].n) { /* a new panel */
            snprintf(titles[np], sizeof titles[np], "%s %d: time to error", SCEN_NAMES[q->stir], q->n);
            panels[np] = (plot_panel){titles[np], "target error m/s", "ms", NSOLVER, series + (size_t)np * NSOLVER};
            ++np;
        }
        if (q->reached != o->steps) continue; /* a mean over fewer steps is not comparable */
        size_t c = (size_t)(np - 1) * NSOLVER + (size_t)q->solver;
        double *x = xy + c * MAX_TARGETS * 2, *y = x + MAX_TARGETS;
        plot_fit_series* S = &series[c];
        if (S->n == 0) {
            *S = (plot_fit_series){x, y, 0, NAN, NAN, NAN, loam_mb_solver_name(SOLVERS[q->solver]), {0, 0, 0}};
            memcpy(S->rgb, SOLVER_COLOUR[q->solver], 3);
        }
        x[S->n] = q->target, y[S->n] = 1e3 * q->time_s, S->n++;
    }
    for (int p = 0; p < np; ++p) { /* close up each panel's curves, dropping solvers without one */
        plot_fit_series* S = series + (size_t)p * NSOLVER;
        int kept = 0;
        for (int k = 0; k < NSOLVER; ++k)
            if (S[k].n > 0) S[kept++] = S[k];
        panels[p].nseries = kept;
    }
    loam_error err;
    if (!status && np == 0) {
        fprintf(stderr, "%s: --png %s: no rows to plot\n", WHO, o->png);
        status = 4;
    } else if (!status && plot_loglog_png(o->png, 480, 400, panels, np, 1, &err) != LOAM_OK) {
        fprintf(stderr, "%s: --png: %s\n", WHO, err.message);
        status = 4;
    } else if (!status)
        printf("wrote %s (%d panels)\n", o->png, np);
    free(panels), free(series), free(xy), free(titles);
    return status;
}

/* --csv: one row per (scenario, size, target, solver); a target never reached leaves the means empty. */
static int write_csv(const opts* o, const result* res, int nres) {
    loam_atomic_file f;
    FILE* fp = bench_mb_csv_open(&f, o->csv, "scenario,n,target_error,solver,iterations_to_error,time_to_error_s,error,reached,steps");
    if (!fp) return 4;
    for (int i = 0; i < nres; ++i) {
        const result* q = &res[i];
        fprintf(fp, "%s,%d,%.6e,%s,", SCEN_NAMES[q->stir], q->n, q->target, loam_mb_solver_name(SOLVERS[q->solver]));
        if (q->reached) fprintf(fp, "%.3f,%.6e,%.6e,%d,%d\n", q->iterations, q->time_s, q->error, q->reached, o->steps);
        else fprintf(fp, ",,,0,%d\n", o->steps);
    }
    return bench_mb_csv_commit(&f);
}

int bench_mb_time_to_error(const opts* o) {
    result* res = malloc(sizeof *res * (size_t)NSCEN * MAX_SIZES * MAX_TARGETS * NSOLVER);
    int nres = 0, status = 0;
    if (!res) {
        fprintf(stderr, "%s: out of memory\n", WHO);
        return 1;
    }
    printf("%-11s %6s %9s %-8s %8s %12s %12s %7s\n", "scenario", "n", "target", "solver", "its", "time s", "error m/s", "reached");
    for (int stir = 0; stir < NSCEN && !status; ++stir) {
        if (!o->scenario[stir]) continue;
        int ins_default = bench_mb_insertion_default(o, stir);
        for (int z = 0; z < (ins_default ? 1 : o->nsizes) && !status; ++z) status = one_size(o, stir, ins_default ? 4 : o->sizes[z], res, &nres);
    }
    if (!status && o->png) status = write_png(o, res, nres);
    if (!status && o->csv) status = write_csv(o, res, nres);
    free(res);
    return status;
}
