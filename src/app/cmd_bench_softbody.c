/* `loam bench softbody`: Mercury's protocol (paper 002, Fig. 4). The default robot (10 x 10 x 10 bone
 * voxels, 1331 masses, 14230 springs) is copied into populations of 1, 2, 4, ... robots; each is
 * stepped for --sim-time seconds until springs x steps reaches --target or the next doubling would
 * pass --time-limit. Reported: springs updated per wall second against the total springs stepped
 * at once. Every spring counted does work: air springs do not exist in loam (Mercury counted them).
 * Building and copying robots is not timed.
 *
 * Output: a table on stdout; with --json, one JSON object as the last line. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_args.h"
#include "app/commands.h"
#include <time.h>

#include "core/clock.h"
#include "loam/softbody.h"

#define PREFIX "loam bench softbody"

typedef struct sb_options {
    int size, threads, json, quiet, max_robots;
    const char* robot_file;   /* --robot FILE instead of the voxel box */
    double sim_time, target, time_limit;
    loam_softbody_def def;
} sb_options;

static int parse(int argc, char** argv, sb_options* o) {
    for (int a = 0; a < argc; ++a) {
        char name[CLI_NAME_MAX];
        const char* val = cli_split_option(argv[a], name);
        if (!strcmp(name, "--json") || !strcmp(name, "--quiet")) {
            if (val) return cli_bad_value(PREFIX, name, val, "no value");
            if (name[2] == 'j') o->json = 1;
            else o->quiet = 1;
            continue;
        }
        int rc = cli_option_value(PREFIX, name, argc, argv, &a, &val);
        if (rc) return rc;
        loam_softbody_def* d = &o->def;
        if (!strcmp(name, "--size")) rc = cli_parse_int(PREFIX, name, val, 1, 39, &o->size);
        else if (!strcmp(name, "--iterations")) rc = cli_parse_int(PREFIX, name, val, 1, 10000, &d->iterations);
        else if (!strcmp(name, "--dt")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1.0, &d->dt);
        else if (!strcmp(name, "--sim-time")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1e6, &o->sim_time);
        else if (!strcmp(name, "--target")) rc = cli_parse_double(PREFIX, name, val, 1.0, 0, 1e18, &o->target);
        else if (!strcmp(name, "--time-limit")) rc = cli_parse_double(PREFIX, name, val, 0.0, 1, 1e7, &o->time_limit);
        else if (!strcmp(name, "--max-robots")) rc = cli_parse_int(PREFIX, name, val, 1, 1 << 24, &o->max_robots);
        else if (!strcmp(name, "--threads")) rc = cli_parse_int(PREFIX, name, val, 0, 4096, &o->threads);
        else if (!strcmp(name, "--robot")) o->robot_file = val;
        else if (!strcmp(name, "--solver")) {
            if (!strcmp(val, "force")) d->solver = LOAM_SB_FORCE;
            else if (!strcmp(val, "xpbd_jacobi")) d->solver = LOAM_SB_XPBD_JACOBI;
            else if (!strcmp(val, "xpbd_gs")) d->solver = LOAM_SB_XPBD_GS;
            else rc = cli_bad_value(PREFIX, name, val, "force, xpbd_jacobi or xpbd_gs");
        } else if (!strcmp(name, "--env")) {
            if (!strcmp(val, "water")) d->env = LOAM_SB_WATER;
            else if (!strcmp(val, "linear_drag")) d->env = LOAM_SB_LINEAR_DRAG;
            else if (!strcmp(val, "land")) d->env = LOAM_SB_LAND;
            else if (!strcmp(val, "vacuum")) d->env = LOAM_SB_VACUUM;
            else rc = cli_bad_value(PREFIX, name, val, "water, linear_drag, land or vacuum");
        }
        if (rc) return rc;
    }
    return 0;
}

static const char* solver_name(loam_softbody_solver s) {
    return s == LOAM_SB_FORCE ? "force" : s == LOAM_SB_XPBD_JACOBI ? "xpbd_jacobi" : "xpbd_gs";
}
static const char* env_name(loam_softbody_env e) {
    return e == LOAM_SB_WATER ? "water" : e == LOAM_SB_LINEAR_DRAG ? "linear_drag" : e == LOAM_SB_LAND ? "land" : "vacuum";
}

typedef struct point { int robots; double total_springs, springs_per_s, wall, cpu; } point;

/* CPU time of all threads: on a shared machine wall time includes other people's work; springs per
 * CPU second is what the code does with the cores it got. */
static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int loam_bench_softbody(int argc, char** argv) {
    sb_options o;
    memset(&o, 0, sizeof o);
    o.size = 10;
    o.sim_time = 0.1;
    o.target = 1e10;
    o.time_limit = 120.0;
    o.max_robots = 1 << 20;
    o.def = loam_softbody_default_def();
    o.def.dt = 1e-4;
    int rc = parse(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    loam_set_threads(o.threads);
    int threads = loam_get_threads();
    loam_error err;
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def();
    vd.nx = vd.ny = vd.nz = o.size;
    int nvox = o.size * o.size * o.size;
    uint8_t* vox = malloc((size_t)nvox);
    if (!vox) return LOAM_ERR_NOMEM;
    memset(vox, LOAM_SB_BONE, (size_t)nvox);
    loam_softbody_robot* robot = o.robot_file ? loam_softbody_robot_load(o.robot_file, &err)
                                              : loam_softbody_voxel_robot(&vd, vox, &err);
    free(vox);
    if (!robot) {
        fprintf(stderr, PREFIX ": %s\n", err.message);
        return err.status;
    }
    /* Mercury's refactor stiffness (Table I x 100): at dt 1e-4 the 1 kg, 1 cm lattice is stable. */
    loam_softbody_materials mats = loam_softbody_default_materials(100.0f);
    int steps = (int)llround(o.sim_time / o.def.dt);
    if (steps < 1) steps = 1;
    double per_robot = (double)robot->spring_count * steps;
    point pts[32];
    int npts = 0;
    size_t robot_bytes = 0;
    double spent = 0.0;
    for (int b = 1; b <= o.max_robots && npts < 32; b *= 2) {
        if (npts > 0) { /* predicted time for b robots from the last point's rate */
            double predict = per_robot * b / pts[npts - 1].springs_per_s;
            if (spent + predict > o.time_limit) break;
        }
        const loam_softbody_robot** rs = malloc(sizeof *rs * (size_t)b);
        if (!rs) break;
        for (int k = 0; k < b; ++k) rs[k] = robot;
        loam_softbody_pop* p = loam_softbody_pop_create(&o.def, &mats, rs, b, &err);
        free(rs);
        if (!p) {
            fprintf(stderr, PREFIX ": %s\n", err.message);
            loam_softbody_robot_destroy(robot);
            return err.status;
        }
        robot_bytes = loam_softbody_pop_robot_bytes(p, 0);
        double t0 = loam_clock_seconds(), c0 = cpu_seconds();
        loam_status st = loam_softbody_pop_step(p, steps, &err);
        double wall = loam_clock_seconds() - t0, cpu = cpu_seconds() - c0;
        loam_softbody_pop_destroy(p);
        if (st) {
            fprintf(stderr, PREFIX ": %s\n", err.message);
            loam_softbody_robot_destroy(robot);
            return st;
        }
        spent += wall;
        point pt = {b, (double)robot->spring_count * b, per_robot * b / wall, wall, cpu};
        pts[npts++] = pt;
        if (!o.quiet) fprintf(stderr, "  %7d robots  %.3g springs  %.4g springs/s  %.3f s\n", b, pt.total_springs,
                              pt.springs_per_s, wall);
        if (per_robot * b >= o.target) break;
    }
    if (!npts) {
        loam_softbody_robot_destroy(robot);
        return LOAM_ERR_NOMEM;
    }
    const point* last = &pts[npts - 1];
    double peak = 0.0;
    for (int k = 0; k < npts; ++k) peak = fmax(peak, pts[k].springs_per_s);
    printf("loam %s bench softbody: Mercury's protocol (paper 002 Fig. 4)\n", loam_version());
    char what[600];
    if (o.robot_file) snprintf(what, sizeof what, "%.500s", o.robot_file);
    else snprintf(what, sizeof what, "%d^3 bone voxels", o.size);
    printf("robot: %s, %d masses, %d springs, %d faces; solver %s, env %s, dt %g s, %d steps "
           "(%g s), zeta %g, threads %d; %.0f KiB per robot block\n", what, robot->mass_count, robot->spring_count, robot->face_count,
           solver_name(o.def.solver), env_name(o.def.env), o.def.dt, steps, steps * o.def.dt, (double)o.def.zeta, threads,
           (double)robot_bytes / 1024.0);
    printf("%10s %14s %16s %10s %10s %20s\n", "robots", "total_springs", "springs_per_s", "wall_s", "cpu_s",
           "springs_per_cpu_s");
    for (int k = 0; k < npts; ++k)
        printf("%10d %14.0f %16.4g %10.3f %10.3f %20.4g\n", pts[k].robots, pts[k].total_springs, pts[k].springs_per_s,
               pts[k].wall, pts[k].cpu, per_robot * pts[k].robots / pts[k].cpu);
    printf("largest population: %.4g springs/s (%.4g per thread); peak %.4g; springs x steps %.3g\n",
           last->springs_per_s, last->springs_per_s / threads, peak, per_robot * last->robots);
    double share = last->cpu / (last->wall * threads);
    if (share < 0.9)
        printf("note: the threads had %.0f%% of %d cores' time (others' work shared them): %.4g springs per CPU "
               "second is what the code did with what it got\n", 100.0 * share, threads,
               per_robot * last->robots / last->cpu);
    if (o.json) {
        cJSON* j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "springs_per_s", last->springs_per_s);
        cJSON_AddNumberToObject(j, "peak_springs_per_s", peak);
        cJSON_AddNumberToObject(j, "springs_per_cpu_s", per_robot * last->robots / last->cpu);
        cJSON_AddNumberToObject(j, "cpu_share", last->cpu / (last->wall * threads));
        cJSON_AddNumberToObject(j, "total_springs", last->total_springs);
        cJSON_AddNumberToObject(j, "robots", last->robots);
        cJSON_AddStringToObject(j, "solver", solver_name(o.def.solver));
        cJSON_AddStringToObject(j, "env", env_name(o.def.env));
        cJSON_AddNumberToObject(j, "threads", threads);
        cJSON_AddNumberToObject(j, "iterations", o.def.solver == LOAM_SB_FORCE ? 0 : o.def.iterations);
        cJSON_AddNumberToObject(j, "dt", o.def.dt);
        cJSON_AddNumberToObject(j, "steps", steps);
        if (o.robot_file) cJSON_AddStringToObject(j, "robot_file", o.robot_file);
        else cJSON_AddNumberToObject(j, "robot_voxels", o.size);
        cJSON_AddNumberToObject(j, "masses_per_robot", robot->mass_count);
        cJSON_AddNumberToObject(j, "springs_per_robot", robot->spring_count);
        cJSON_AddNumberToObject(j, "faces_per_robot", robot->face_count);
        cJSON_AddNumberToObject(j, "bytes_per_robot", (double)robot_bytes);
        cJSON* series = cJSON_AddArrayToObject(j, "series");
        for (int k = 0; k < npts; ++k) {
            cJSON* e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "robots", pts[k].robots);
            cJSON_AddNumberToObject(e, "total_springs", pts[k].total_springs);
            cJSON_AddNumberToObject(e, "springs_per_s", pts[k].springs_per_s);
            cJSON_AddNumberToObject(e, "wall_s", pts[k].wall);
            cJSON_AddNumberToObject(e, "cpu_s", pts[k].cpu);
            cJSON_AddItemToArray(series, e);
        }
        char* text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        if (text) printf("%s\n", text);
        cJSON_free(text);
    }
    fflush(stdout);
    loam_softbody_robot_destroy(robot);
    return 0;
}
