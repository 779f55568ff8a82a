/* `loam bench granular`: the column-at-rest benchmark of paper 000 (Figs. 3 and 6). Particles settle
 * into a column inside a cylinder (or in.column's open box, to compare with LIGGGHTS), then a run of
 * steps at rest is timed: at rest every particle carries its full set of contacts, the worst case for
 * the contact pipeline.
 *
 * Output: a human-readable report on stdout; with --json, one JSON object as the last line so scripts
 * (bench/peers/run_column_compare.py) can read it with `tail -n 1`. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "app/cli_args.h"
#include "app/column_scene.h"
#include "app/commands.h"
#include "core/sort.h"
#include "loam/granular.h"

#define BENCH_PREFIX "loam bench granular"

typedef struct bench_options {
    column_spec scene;
    loam_granular_params params;
    int steps;
    int settle;
    float settle_friction;    /* particle friction while settling; < 0 = --friction */
    int threads;
    int json;
    int quiet;
    int wall_friction_set;
} bench_options;

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of all threads: on a shared machine, wall time / CPU time shows how much of the wall time
 * the benchmark actually had the cores. */
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* Argument parsing: every failure names the option and the value and returns exit status 2. */
static int parse_options(int argc, char** argv, bench_options* o) {
    for (int a = 0; a < argc; ++a) {
        const char* arg = argv[a];
        char name[CLI_NAME_MAX];
        const char* val = cli_split_option(arg, name);
        if (strcmp(name, "--json") == 0 || strcmp(name, "--quiet") == 0) {
            if (val) return cli_bad_value(BENCH_PREFIX, name, val, "no value");
            if (name[2] == 'j') o->json = 1;
            else o->quiet = 1;
            continue;
        }
        int rc = cli_option_value(BENCH_PREFIX, name, argc, argv, &a, &val);
        if (rc) return rc;
        loam_granular_params* p = &o->params;
        column_spec* s = &o->scene;
        if (!strcmp(name, "--particles")) rc = cli_parse_int(BENCH_PREFIX, name, val, 1, 1 << 27, &s->particles);
        else if (!strcmp(name, "--steps")) rc = cli_parse_int(BENCH_PREFIX, name, val, 1, INT_MAX, &o->steps);
        else if (!strcmp(name, "--settle")) rc = cli_parse_int(BENCH_PREFIX, name, val, 0, INT_MAX, &o->settle);
        else if (!strcmp(name, "--threads")) rc = cli_parse_int(BENCH_PREFIX, name, val, 0, 4096, &o->threads);
        else if (!strcmp(name, "--container")) {
            if (!strcmp(val, "cylinder")) s->container = COLUMN_CYLINDER;
            else if (!strcmp(val, "box")) s->container = COLUMN_BOX;
            else rc = cli_bad_value(BENCH_PREFIX, name, val, "cylinder or box");
        } else if (!strcmp(name, "--dt")) rc = cli_parse_double(BENCH_PREFIX, name, val, 0.0, 1, 1.0, &p->dt);
        else if (!strcmp(name, "--sweeps")) rc = cli_parse_int(BENCH_PREFIX, name, val, 1, 100000, &p->sweeps);
        else if (!strcmp(name, "--solver")) {
            if (!strcmp(val, "gs")) p->solver = LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL;
            else if (!strcmp(val, "jacobi")) p->solver = LOAM_GRANULAR_SOLVER_JACOBI;
            else rc = cli_bad_value(BENCH_PREFIX, name, val, "gs or jacobi");
        } else if (!strcmp(name, "--push-sweeps")) rc = cli_parse_int(BENCH_PREFIX, name, val, 0, 100000, &p->push_sweeps);
        else if (!strcmp(name, "--skin")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 2.0, &p->skin);
        else if (!strcmp(name, "--reorder-interval")) rc = cli_parse_int(BENCH_PREFIX, name, val, 0, INT_MAX, &p->reorder_interval);
        else if (!strcmp(name, "--baumgarte")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1.0, &p->baumgarte);
        else if (!strcmp(name, "--relaxation")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 1, 2.0, &p->relaxation);
        else if (!strcmp(name, "--friction")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1e3, &p->friction);
        else if (!strcmp(name, "--settle-friction")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1e3, &o->settle_friction);
        else if (!strcmp(name, "--wall-friction")) {
            rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1e3, &s->wall_friction);
            o->wall_friction_set = 1;
        } else if (!strcmp(name, "--margin")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1.0, &p->margin);
        else if (!strcmp(name, "--warm-start")) rc = cli_parse_int(BENCH_PREFIX, name, val, 0, 1, &p->warm_start);
        else if (!strcmp(name, "--hash-table-size")) rc = cli_parse_int(BENCH_PREFIX, name, val, 0, INT_MAX, &p->hash_table_size);
        else if (!strcmp(name, "--damping")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1e6, &p->damping);
        else if (!strcmp(name, "--tolerance")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 0, 1e6, &p->tolerance);
        else if (!strcmp(name, "--radius")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 1, 10.0, &s->radius);
        else if (!strcmp(name, "--density")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 1, 1e6, &s->density);
        else if (!strcmp(name, "--nx")) rc = cli_parse_int(BENCH_PREFIX, name, val, 1, 1 << 20, &s->nx);
        else if (!strcmp(name, "--ny")) rc = cli_parse_int(BENCH_PREFIX, name, val, 1, 1 << 20, &s->ny);
        else if (!strcmp(name, "--column-radius")) rc = cli_parse_float(BENCH_PREFIX, name, val, 0.0, 1, 1e3, &s->column_radius);
        else if (!strcmp(name, "--seed")) {
            long v;
            rc = cli_parse_long(BENCH_PREFIX, name, val, 0, LONG_MAX, &v);
            if (rc == 0) s->seed = (uint64_t)v;
        }
        if (rc) return rc;
    }
    if (!o->wall_friction_set) o->scene.wall_friction = o->params.friction;
    return 0;
}

/* Measurements of the bed, from positions only (not from the solver's contact lists). */
typedef struct bed_stats {
    double top;          /* max z + r, m */
    double top_p99;      /* 99th percentile of z + r, m: one particle perched on top does not count */
    double touching;     /* 2 * (pairs with centre gap < 0.01 r) / N: coordination like LIGGGHTS's
                            contact/atom, which counts overlapping pairs only */
} bed_stats;

/* Cell coordinates of particle i in a grid of cells of side `cell` from lo, and a cell's index in a
 * grid of dim cells a side. */
static void bed_cell_of(const loam_particles* p, int i, const float lo[3], float cell, long c[3]) {
    c[0] = (long)((p->x[i] - lo[0]) / cell), c[1] = (long)((p->y[i] - lo[1]) / cell), c[2] = (long)((p->z[i] - lo[2]) / cell);
}

static long bed_cell_index(const long c[3], const long dim[3]) { return (c[2] * dim[1] + c[1]) * dim[0] + c[0]; }

static long bed_cell(const loam_particles* p, int i, const float lo[3], float cell, const long dim[3]) {
    long c[3];
    bed_cell_of(p, i, lo, cell, c);
    return bed_cell_index(c, dim);
}

/* Pairs closer than (r_i + r_j)(1 + tol / 2), each once, from particles sorted by cell: cell c holds
 * order[first[c]] to order[first[c + 1] - 1]. */
static long touching_pairs(const loam_particles* p, const float lo[3], float cell, const long dim[3], const int* first,
                           const int* order, float tol) {
    long pairs = 0;
    for (int i = 0; i < p->count; ++i) {
        long ci[3];
        bed_cell_of(p, i, lo, cell, ci);
        for (long dz = -1; dz <= 1; ++dz)
            for (long dy = -1; dy <= 1; ++dy)
                for (long dx = -1; dx <= 1; ++dx) {
                    long c[3] = {ci[0] + dx, ci[1] + dy, ci[2] + dz};
                    if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= dim[0] || c[1] >= dim[1] || c[2] >= dim[2]) continue;
                    long cc = bed_cell_index(c, dim);
                    for (int q = first[cc]; q < first[cc + 1]; ++q) {
                        int j = order[q];
                        if (j <= i) continue;
                        float ddx = p->x[i] - p->x[j], ddy = p->y[i] - p->y[j], ddz = p->z[i] - p->z[j];
                        float cut = (p->radius[i] + p->radius[j]) * (1.0f + 0.5f * tol);
                        if (ddx * ddx + ddy * ddy + ddz * ddz < cut * cut) ++pairs;
                    }
                }
    }
    return pairs;
}

/* The settled bed's top, its 99th percentile, and its coordination (touching_pairs over a
 * counting-sort cell list, O(N)). Returns 0 when out of memory. */
static int measure_bed(loam_world* w, bed_stats* out) {
    loam_particles p = loam_world_particles(w);
    int n = p.count;
    float rmax = 0.0f;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float* c[3] = {p.x, p.y, p.z};
    for (int i = 0; i < n; ++i) {
        if (p.radius[i] > rmax) rmax = p.radius[i];
        for (int k = 0; k < 3; ++k) {
            if (c[k][i] < lo[k]) lo[k] = c[k][i];
            if (c[k][i] > hi[k]) hi[k] = c[k][i];
        }
    }
    float* tops = malloc(sizeof(float) * (size_t)n);
    if (!tops) return 0;
    out->top = -INFINITY;
    for (int i = 0; i < n; ++i) {
        tops[i] = p.z[i] + p.radius[i];
        if (tops[i] > out->top) out->top = tops[i];
    }
    out->top_p99 = loam_quantile_in_place(tops, n, 0.99);
    free(tops);

    const float tol = 0.01f;
    float cell = 2.0f * rmax * (1.0f + tol);
    long dim[3];
    double cells = 1.0;
    for (int k = 0; k < 3; ++k) {
        dim[k] = (long)((hi[k] - lo[k]) / cell) + 1;
        cells *= (double)dim[k];
    }
    if (cells > 8.0 * n + 1024.0) {
        /* A scattered bed (it did not settle): the coordination means nothing, skip it. */
        out->touching = NAN;
        return 1;
    }
    /* Particles sorted by cell (a counting sort), in 4 bytes a cell and 4 a particle: this scratch is
     * the bench's, not the simulation's, and the process's peak counts it. */
    size_t nc = (size_t)cells;
    int* start = calloc(nc + 2, sizeof(int));
    int* order = malloc(sizeof(int) * (size_t)n);
    if (!start || !order) {
        free(start);
        free(order);
        return 0;
    }
    for (int i = 0; i < n; ++i) start[bed_cell(&p, i, lo, cell, dim) + 1]++;
    for (size_t k = 1; k <= nc; ++k) start[k] += start[k - 1];
    start[nc + 1] = n;
    /* start[c + 1] is now the end of cell c; placing each particle at its cell's end, last first,
     * walks it down to the cell's first slot: start + 1 is then each cell's first slot. */
    for (int i = n - 1; i >= 0; --i) order[--start[bed_cell(&p, i, lo, cell, dim) + 1]] = i;
    long pairs = touching_pairs(&p, lo, cell, dim, start + 1, order, tol);
    out->touching = 2.0 * (double)pairs / (double)n;
    free(start);
    free(order);
    return 1;
}

/* Peak resident set of this process. /proc/self/status VmHWM first: it belongs to the address space
 * exec created, whereas getrusage's ru_maxrss survives exec and so also counts whatever the parent
 * (a Python driver, a shell) had resident when it forked us. */
static long peak_rss_bytes(void) {
    FILE* f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        long kb = -1;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
        fclose(f);
        if (kb >= 0) return kb * 1024L;
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return ru.ru_maxrss * 1024L; /* Linux reports kilobytes */
}

/* Start the peak resident set afresh at the present one (Linux 4.0 on: /proc/self/clear_refs "5"),
 * after giving freed heap memory back: the bench's own analysis of the bed (measure_bed: about 16
 * bytes a particle of scratch) then does not count as the simulation's memory. Where the kernel
 * cannot, the peak keeps it (a larger figure, never a smaller one). */
static void reset_peak_rss(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    FILE* f = fopen("/proc/self/clear_refs", "w");
    if (!f) return;
    fputs("5", f);
    fclose(f);
}

/* Run `steps` steps; on failure print the engine's message and return its status. Keeps the largest
 * overlap and the summed contacts of the steps for the report. */
typedef struct run_stats {
    double max_overlap;
    double contact_sum;   /* sum over steps of 2 pairs + body contacts */
    long dropped;
    long list_builds;     /* steps that rebuilt the neighbour list from the hash */
    long recolorings;     /* steps that coloured a changed contact set */
    long relisted;        /* blocks whose rows those steps listed anew */
    double stage[5];      /* summed stage wall times: detect, color, solve, push, finish */
} run_stats;

static int run_steps(loam_world* w, int steps, const char* phase, int progress, run_stats* rs) {
    loam_error err;
    loam_error_clear(&err);
    int n = loam_world_particles(w).count;
    for (int s = 0; s < steps; ++s) {
        loam_status st = loam_world_step(w, 1, &err);
        if (st != LOAM_OK) {
            if (progress) fputc('\n', stderr);
            fprintf(stderr, BENCH_PREFIX ": %s step %d: %s\n", phase, s + 1, err.message);
            return st;
        }
        loam_step_stats ss = loam_world_last_stats(w);
        if (ss.max_overlap > rs->max_overlap) rs->max_overlap = ss.max_overlap;
        rs->contact_sum += 2.0 * ss.contacts + ss.body_contacts;
        rs->dropped += ss.dropped_neighbors;
        rs->list_builds += ss.list_rebuilt;
        rs->recolorings += ss.recolored;
        rs->relisted += ss.blocks_relisted;
        rs->stage[0] += ss.time_detect;
        rs->stage[1] += ss.time_color;
        rs->stage[2] += ss.time_solve;
        rs->stage[3] += ss.time_push;
        rs->stage[4] += ss.time_finish;
        if (progress && ((s + 1) % 100 == 0 || s + 1 == steps)) {
            fprintf(stderr, "\r%s: step %d/%d, KE/particle %.3g J   ", phase, s + 1, steps,
                    loam_world_kinetic_energy(w) / n);
            if (s + 1 == steps) fputc('\n', stderr);
        }
    }
    return 0;
}

int loam_bench_granular(int argc, char** argv) {
    bench_options o;
    memset(&o, 0, sizeof o);
    o.scene = column_default_spec();
    o.params = loam_granular_default_params();
    o.steps = 200;
    o.settle = 1500;
    o.settle_friction = -1.0f;
    o.threads = 0;
    int rc = parse_options(argc, argv, &o);
    if (rc < 0) return 0;
    if (rc) return rc;

    loam_error err;
    loam_error_clear(&err);
    if (loam_granular_params_validate(&o.params, &err) != LOAM_OK) {
        fprintf(stderr, BENCH_PREFIX ": %s\n", err.message);
        return LOAM_ERR_INPUT;
    }
    loam_set_threads(o.threads);
    loam_world* w = loam_world_create(&o.params, &err);
    if (!w) {
        fprintf(stderr, BENCH_PREFIX ": %s\n", err.message);
        return err.status ? (int)err.status : LOAM_ERR_INTERNAL;
    }
    column_info info;
    if (column_build(w, &o.scene, &info, &err) != LOAM_OK) {
        fprintf(stderr, BENCH_PREFIX ": %s\n", err.message);
        loam_world_destroy(w);
        return err.status;
    }
    const loam_granular_params* p = loam_world_params(w);
    int n = o.scene.particles;
    int threads = loam_get_threads();
    int table = p->hash_table_size > 0 ? p->hash_table_size : 2 * n;
    int progress = !o.quiet && isatty(STDERR_FILENO);
    double r = o.scene.radius;
    double g = sqrt((double)p->gravity.x * p->gravity.x + (double)p->gravity.y * p->gravity.y +
                    (double)p->gravity.z * p->gravity.z);
    double mass = o.scene.density * 4.0 / 3.0 * M_PI * r * r * r;
    double mgr = mass * g * r; /* the energy scale of "at rest": lifting a particle by its radius */

    run_stats settle_stats, timed;
    memset(&settle_stats, 0, sizeof settle_stats);
    memset(&timed, 0, sizeof timed);
    double t0 = now_s();
    loam_granular_params settle_params = *loam_world_params(w), timed_params = settle_params;
    if (o.settle_friction >= 0.0f) settle_params.friction = o.settle_friction;
    loam_world_set_params(w, &settle_params, NULL);
    rc = run_steps(w, o.settle, "settle", progress, &settle_stats);
    if (!rc && o.settle_friction >= 0.0f) {
        /* Back to the benchmark's friction, and let the bed come to rest with it. */
        loam_world_set_params(w, &timed_params, NULL);
        rc = run_steps(w, o.settle / 3, "settle", progress, &settle_stats);
    }
    double settle_wall = now_s() - t0;
    if (rc) {
        loam_world_destroy(w);
        return rc;
    }
    double ke_settled = loam_world_kinetic_energy(w) / n;
    /* Peak memory of the simulation: the pour and settling, then (after the analysis of the settled
     * bed, which borrows memory of its own) the timed steps. The process's peak with that analysis
     * is reported too. */
    long rss_settle = peak_rss_bytes();
    bed_stats bed_settled;
    if (!measure_bed(w, &bed_settled)) {
        fprintf(stderr, BENCH_PREFIX ": out of memory measuring the bed\n");
        loam_world_destroy(w);
        return LOAM_ERR_NOMEM;
    }
    long rss_process = peak_rss_bytes();
    reset_peak_rss();

    /* The timed run: nothing but steps between the two clock reads (the per-step stats read is a
     * struct copy). */
    t0 = now_s();
    double c0 = cpu_s();
    rc = run_steps(w, o.steps, "timed", 0, &timed);
    double wall = now_s() - t0, cpu = cpu_s() - c0;
    if (rc) {
        loam_world_destroy(w);
        return rc;
    }
    double ke_end = loam_world_kinetic_energy(w) / n;
    long rss_timed = peak_rss_bytes();
    bed_stats bed;
    if (!measure_bed(w, &bed)) {
        fprintf(stderr, BENCH_PREFIX ": out of memory measuring the bed\n");
        loam_world_destroy(w);
        return LOAM_ERR_NOMEM;
    }
    loam_step_stats last = loam_world_last_stats(w);
    double steps_per_s = o.steps / wall;
    double pstep = steps_per_s * n;
    double rtf = o.steps * p->dt / wall;
    double contacts = timed.contact_sum / o.steps / n;
    size_t world_mem = loam_world_memory(w);
    long rss = rss_settle > rss_timed ? rss_settle : rss_timed, rss_end = peak_rss_bytes();
    if (rss_end > rss_process) rss_process = rss_end;
    const char* container = o.scene.container == COLUMN_BOX ? "box" : "cylinder";
    const char* solver = p->solver == LOAM_GRANULAR_SOLVER_JACOBI ? "jacobi" : "gs";
    static const char* const stage_names[5] = {"detect", "color", "solve", "push", "finish"};
    double stage_sum = 0.0;
    for (int k = 0; k < 5; ++k) stage_sum += timed.stage[k];

    printf("loam %s bench granular: column at rest\n", loam_version());
    if (o.scene.container == COLUMN_BOX)
        printf("scene: %d particles (r %g m, rho %g kg/m^3) in an open box %.4g x %.4g m (lattice %d x %d, %d layers)\n",
               n, r, o.scene.density, info.inner_x, info.inner_y, info.nx, info.ny, info.layers);
    else
        printf("scene: %d particles (r %g m, rho %g kg/m^3) in a cylinder of radius %.4g m (%d per layer, %d layers)\n",
               n, r, o.scene.density, info.column_radius, info.per_layer, info.layers);
    printf("solver: %s, dt %g s, sweeps %d, push_sweeps %d, baumgarte %g, relaxation %g, friction %g (walls %g), "
           "margin %g r, skin %g r, warm_start %d, damping %g 1/s, tolerance %g m/s, hash table %d buckets, "
           "reorder every %d steps, threads %d\n",
           solver, p->dt, p->sweeps, loam_granular_push_sweeps(p), p->baumgarte, loam_granular_relaxation(p), p->friction,
           o.scene.wall_friction, p->margin, p->skin, p->warm_start, p->damping, p->tolerance, table, p->reorder_interval, threads);
    printf("settle: %d steps (%g s simulated) in %.3f s wall; KE/particle %.3g J = %.3g m g r\n", o.settle,
           o.settle * p->dt, settle_wall, ke_settled, ke_settled / mgr);
    printf("timed: %d steps at rest in %.4f s wall, %.4f s CPU (%.0f%% of %d threads' wall time)\n", o.steps, wall,
           cpu, 100.0 * cpu / (wall * threads), threads);
    printf("  particle-steps/s     %.4g (%.4g per thread)\n", pstep, pstep / threads);
    printf("  steps/s              %.4g\n", steps_per_s);
    printf("  realtime factor      %.4g (simulated s per wall s)\n", rtf);
    printf("  contacts/particle    %.3f ((2 pairs + body contacts) / N, solver contacts incl. speculative)\n",
           contacts);
    printf("  touching/particle    %.3f (2 pairs with gap < 0.01 r / N, like LIGGGHTS contact/atom)\n", bed.touching);
    printf("  max overlap / r      %.4g (largest over the timed steps)\n", timed.max_overlap / r);
    printf("  KE/particle          %.3g J = %.3g m g r (after the timed steps)\n", ke_end, ke_end / mgr);
    printf("  column top           %.4f m (max z + r; 99th percentile %.4f m; after settling %.4f m)\n", bed.top,
           bed.top_p99, bed_settled.top);
    printf("  stages               ");
    for (int k = 0; k < 5; ++k)
        printf("%s %.0f%%%s", stage_names[k], stage_sum > 0.0 ? 100.0 * timed.stage[k] / stage_sum : 0.0,
               k < 4 ? ", " : "");
    printf(" of %.4f s in steps; neighbour list rebuilt in %ld, contacts recoloured in %ld of %d steps (%.1f of %d "
           "blocks' rows listed anew on average)\n",
           stage_sum, timed.list_builds, timed.recolorings, o.steps,
           timed.recolorings > 0 ? (double)timed.relisted / (double)timed.recolorings : 0.0, (n + 1023) / 1024);
    printf("  peak RSS             %.2f MB (%.0f B/particle) of the simulation; %.2f MB with the bench's analysis\n", rss / 1e6,
           (double)rss / n, rss_process / 1e6);
    printf("  world memory         %.2f MB (%.0f B/particle)\n", world_mem / 1e6, (double)world_mem / n);
    if (timed.dropped + settle_stats.dropped > 0)
        printf("  WARNING: %ld neighbours beyond the per-particle limit were dropped\n",
               timed.dropped + settle_stats.dropped);

    if (o.json) {
        cJSON* j = cJSON_CreateObject();
        if (!j) {
            loam_world_destroy(w);
            return LOAM_ERR_NOMEM;
        }
        cJSON_AddStringToObject(j, "benchmark", "granular_column_at_rest");
        cJSON_AddStringToObject(j, "loam_version", loam_version());
        cJSON_AddStringToObject(j, "container", container);
        cJSON_AddNumberToObject(j, "particles", n);
        cJSON_AddNumberToObject(j, "steps", o.steps);
        cJSON_AddNumberToObject(j, "settle_steps", o.settle);
        cJSON_AddNumberToObject(j, "settle_friction", o.settle_friction >= 0.0f ? o.settle_friction : o.params.friction);
        cJSON_AddNumberToObject(j, "threads", threads);
        cJSON_AddNumberToObject(j, "wall_s", wall);
        cJSON_AddNumberToObject(j, "cpu_s", cpu);
        cJSON_AddNumberToObject(j, "settle_wall_s", settle_wall);
        cJSON_AddNumberToObject(j, "particle_steps_per_s", pstep);
        cJSON_AddNumberToObject(j, "particle_steps_per_s_per_thread", pstep / threads);
        cJSON_AddNumberToObject(j, "steps_per_s", steps_per_s);
        cJSON_AddNumberToObject(j, "realtime_factor", rtf);
        cJSON_AddNumberToObject(j, "contacts_per_particle", contacts);
        cJSON_AddNumberToObject(j, "contacts_per_particle_last_step",
                                (2.0 * last.contacts + last.body_contacts) / n);
        if (isfinite(bed.touching)) cJSON_AddNumberToObject(j, "touching_per_particle", bed.touching);
        else cJSON_AddNullToObject(j, "touching_per_particle");
        cJSON_AddNumberToObject(j, "max_overlap_over_r", timed.max_overlap / r);
        cJSON_AddNumberToObject(j, "ke_per_particle_settled", ke_settled);
        cJSON_AddNumberToObject(j, "ke_per_particle_settled_over_mgr", ke_settled / mgr);
        cJSON_AddNumberToObject(j, "ke_per_particle", ke_end);
        cJSON_AddNumberToObject(j, "ke_per_particle_over_mgr", ke_end / mgr);
        cJSON_AddNumberToObject(j, "column_top", bed.top);
        cJSON_AddNumberToObject(j, "column_top_p99", bed.top_p99);
        cJSON_AddNumberToObject(j, "column_top_settled", bed_settled.top);
        cJSON_AddNumberToObject(j, "peak_rss_bytes", (double)rss);
        cJSON_AddNumberToObject(j, "peak_rss_process_bytes", (double)rss_process);
        cJSON_AddNumberToObject(j, "world_memory_bytes", (double)world_mem);
        cJSON_AddNumberToObject(j, "world_memory_per_particle", (double)world_mem / n);
        cJSON_AddNumberToObject(j, "dropped_neighbors", (double)(timed.dropped + settle_stats.dropped));
        cJSON_AddNumberToObject(j, "sweeps_run_last_step", last.sweeps_run);
        cJSON_AddNumberToObject(j, "dt", p->dt);
        cJSON_AddStringToObject(j, "solver", solver);
        cJSON_AddNumberToObject(j, "sweeps", p->sweeps);
        cJSON_AddNumberToObject(j, "push_sweeps", loam_granular_push_sweeps(p));
        cJSON_AddNumberToObject(j, "skin", p->skin);
        cJSON_AddNumberToObject(j, "reorder_interval", p->reorder_interval);
        cJSON_AddNumberToObject(j, "list_builds", (double)timed.list_builds);
        cJSON_AddNumberToObject(j, "recolorings", (double)timed.recolorings);
        cJSON_AddNumberToObject(j, "blocks_relisted", (double)timed.relisted);
        for (int k = 0; k < 5; ++k) {
            char key[32];
            snprintf(key, sizeof key, "time_%s_s", stage_names[k]);
            cJSON_AddNumberToObject(j, key, timed.stage[k]);
        }
        cJSON_AddNumberToObject(j, "baumgarte", p->baumgarte);
        cJSON_AddNumberToObject(j, "relaxation", loam_granular_relaxation(p));
        cJSON_AddNumberToObject(j, "friction", p->friction);
        cJSON_AddNumberToObject(j, "wall_friction", o.scene.wall_friction);
        cJSON_AddNumberToObject(j, "margin", p->margin);
        cJSON_AddNumberToObject(j, "warm_start", p->warm_start);
        cJSON_AddNumberToObject(j, "damping", p->damping);
        cJSON_AddNumberToObject(j, "tolerance", p->tolerance);
        cJSON_AddNumberToObject(j, "hash_table_size", table);
        cJSON_AddNumberToObject(j, "radius", r);
        cJSON_AddNumberToObject(j, "density", o.scene.density);
        cJSON_AddNumberToObject(j, "lattice_nx", info.nx);
        cJSON_AddNumberToObject(j, "lattice_ny", info.ny);
        cJSON_AddNumberToObject(j, "lattice_layers", info.layers);
        if (o.scene.container == COLUMN_CYLINDER) cJSON_AddNumberToObject(j, "column_radius", info.column_radius);
        cJSON_AddNumberToObject(j, "seed", (double)o.scene.seed);
        char* text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        if (!text) {
            loam_world_destroy(w);
            return LOAM_ERR_NOMEM;
        }
        printf("%s\n", text);
        cJSON_free(text);
    }
    fflush(stdout);
    loam_world_destroy(w);
    return 0;
}
