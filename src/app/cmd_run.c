/* `loam run SCENE`: load, step with a progress bar, write frames, body forces and a summary. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_args.h"
#include "app/commands.h"
#include "app/mesh_grids.h"
#include "app/progress.h"
#include "app/run_output.h"
#include "loam/granular.h"
#include "loam/scene.h"

typedef struct run_options {
    const char* scene;
    const char* out;
    long long steps;
    double duration;
    int frames, threads, quiet;
    int set_count;
    const char* sets[64];
} run_options;

#define WHO "loam run"

/* Every failure prints one line naming the option and value and returns 0. */
static int parse_args(int argc, char** argv, run_options* o) {
    memset(o, 0, sizeof *o);
    o->steps = -1;
    o->duration = -1.0;
    o->frames = -1;
    o->threads = -1;
    for (int k = 1; k < argc; ++k) {
        char name[CLI_NAME_MAX];
        const char* val = cli_split_option(argv[k], name);
        if (!strcmp(name, "--quiet")) {
            if (cli_flag(WHO, name, val)) return 0;
            o->quiet = 1;
            continue;
        }
        if (argv[k][0] != '-') {
            if (o->scene) return fprintf(stderr, WHO ": one scene at a time; got '%s' and '%s'\n", o->scene, argv[k]), 0;
            o->scene = argv[k];
            continue;
        }
        if (cli_option_value(WHO, name, argc, argv, &k, &val)) return 0;
        long v;
        if (!strcmp(name, "--steps")) {
            if (cli_parse_long(WHO, name, val, 0, 1000000000000L, &v)) return 0;
            o->steps = v;
        } else if (!strcmp(name, "--duration")) {
            if (cli_parse_double(WHO, name, val, 0.0, 0, 1e9, &o->duration)) return 0;
        } else if (!strcmp(name, "--frames")) {
            if (cli_parse_int(WHO, name, val, 0, 100000, &o->frames)) return 0;
        } else if (!strcmp(name, "--threads")) {
            if (cli_parse_int(WHO, name, val, 0, 1024, &o->threads)) return 0;
        } else if (!strcmp(name, "--out")) {
            if (!*val) return cli_bad_value(WHO, name, val, "a folder"), 0;
            o->out = val;
        } else if (!strcmp(name, "--set")) {
            if (o->set_count == 64) return fprintf(stderr, WHO ": at most 64 --set options\n"), 0;
            o->sets[o->set_count++] = val;
        }
    }
    if (!o->scene) return fprintf(stderr, WHO ": no scene file given (see loam run --help)\n"), 0;
    if (o->steps >= 0 && o->duration >= 0) return fprintf(stderr, WHO ": give --steps or --duration, not both\n"), 0;
    return 1;
}

/* A float parameter as the decimal it was written as (0.35, not 0.3499999940395355). */
static double float_json(float f) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.7g", f);
    return strtod(buf, NULL);
}

static cJSON* vec_json(loam_vec3 v) {
    double a[3] = {v.x, v.y, v.z};
    return cJSON_CreateDoubleArray(a, 3);
}

typedef struct body_peak { double peak_force; double mean_force_x; } body_peak;
/* An environment run's score: the reward summed over its physics steps, the final progress. */
typedef struct env_totals { double reward, progress; } env_totals;

static loam_status write_summary(const char* dir, const loam_scene* s, loam_world* w, long long steps_done,
                                 long long steps, double wall, int frames, const body_peak* peaks, const env_totals* env,
                                 loam_status status, const loam_error* run_err, loam_error* err) {
    cJSON* root = cJSON_CreateObject();
    if (!root) return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for summary.json");
    const loam_granular_params* p = loam_world_params(w);
    loam_step_stats stats = loam_world_last_stats(w);
    loam_particles ps = loam_world_particles(w);
    cJSON_AddStringToObject(root, "loam_version", loam_version());
    cJSON_AddStringToObject(root, "scene", s->name);
    cJSON_AddStringToObject(root, "scene_file", s->path);
    cJSON_AddStringToObject(root, "status", status == LOAM_OK ? "ok" : status == LOAM_ERR_DIVERGED ? "diverged" : "error");
    if (status != LOAM_OK) cJSON_AddStringToObject(root, "error", run_err->message);
    cJSON_AddNumberToObject(root, "particles", ps.count);
    cJSON_AddNumberToObject(root, "bodies", loam_world_body_count(w));
    cJSON_AddNumberToObject(root, "steps", (double)steps_done);
    cJSON_AddNumberToObject(root, "steps_requested", (double)steps);
    cJSON_AddNumberToObject(root, "sim_time_s", loam_world_time(w));
    cJSON_AddNumberToObject(root, "wall_time_s", wall);
    cJSON_AddNumberToObject(root, "realtime_factor", wall > 0 ? loam_world_time(w) / wall : 0.0);
    cJSON_AddNumberToObject(root, "particle_steps_per_s", wall > 0 ? (double)ps.count * (double)steps_done / wall : 0.0);
    cJSON_AddNumberToObject(root, "threads", loam_get_threads());
    cJSON_AddNumberToObject(root, "frames", frames);
    cJSON_AddNumberToObject(root, "kinetic_energy_J", loam_world_kinetic_energy(w));
    cJSON_AddNumberToObject(root, "contacts", stats.contacts);
    cJSON_AddNumberToObject(root, "body_contacts", stats.body_contacts);
    cJSON_AddNumberToObject(root, "max_overlap_m", stats.max_overlap);
    cJSON_AddNumberToObject(root, "neighbor_list_builds", (double)stats.list_builds);
    cJSON_AddNumberToObject(root, "memory_bytes", (double)loam_world_memory(w));
    cJSON* grids = mesh_grids_json(s, w);
    if (!grids || !cJSON_AddItemToObject(root, "mesh_grids", grids)) {
        cJSON_Delete(grids);
        cJSON_Delete(root);
        return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory for summary.json");
    }
    cJSON* solver = cJSON_AddObjectToObject(root, "solver");
    cJSON_AddNumberToObject(solver, "dt", p->dt);
    cJSON_AddNumberToObject(solver, "sweeps", p->sweeps);
    cJSON_AddNumberToObject(solver, "tolerance", float_json(p->tolerance));
    cJSON_AddNumberToObject(solver, "baumgarte", float_json(p->baumgarte));
    cJSON_AddNumberToObject(solver, "relaxation", float_json(loam_granular_relaxation(p)));
    cJSON_AddNumberToObject(solver, "friction", float_json(p->friction));
    cJSON_AddNumberToObject(solver, "damping", float_json(p->damping));
    cJSON_AddNumberToObject(solver, "margin", float_json(p->margin));
    cJSON_AddBoolToObject(solver, "warm_start", p->warm_start);
    cJSON_AddStringToObject(solver, "method", p->solver == LOAM_GRANULAR_SOLVER_JACOBI ? "jacobi" : "gauss_seidel");
    cJSON_AddNumberToObject(solver, "push_sweeps", loam_granular_push_sweeps(p));
    cJSON_AddNumberToObject(solver, "skin", float_json(p->skin));
    cJSON_AddNumberToObject(solver, "sleep_speed", float_json(p->sleep_speed));
    cJSON_AddNumberToObject(solver, "sleep_time", float_json(p->sleep_time));
    if (env) {
        cJSON* e = cJSON_AddObjectToObject(root, "environment");
        cJSON_AddStringToObject(e, "kind", loam_env_kind_name(s->environment.kind));
        cJSON_AddNumberToObject(e, "steps_per_action", s->environment.steps_per_action);
        cJSON_AddNumberToObject(e, "reward_per_physics_step_sum", env->reward);
        cJSON_AddNumberToObject(e, "final_progress", env->progress);
    }
    cJSON* bodies = cJSON_AddArrayToObject(root, "body_results");
    for (int b = 0; b < loam_world_body_count(w); ++b) {
        const loam_body_state* st = loam_world_body_state(w, b);
        cJSON* o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", loam_world_body_def(w, b)->name);
        cJSON_AddItemToObject(o, "final_force_N", vec_json(st->force));
        cJSON_AddItemToObject(o, "final_torque_Nm", vec_json(st->torque));
        cJSON_AddItemToObject(o, "final_position_m", vec_json(st->pose.p));
        cJSON_AddNumberToObject(o, "peak_force_N", peaks[b].peak_force);
        cJSON_AddItemToArray(bodies, o);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    loam_status st = loam_json_write_file(root, path, err);
    cJSON_Delete(root);
    return st;
}

int app_load_scene(const char* path, const char* const* overrides, int count, loam_scene* scene) {
    loam_error err;
    loam_error_clear(&err);
    if (loam_scene_load(path, overrides, count, scene, &err) == LOAM_OK) return 0;
    fprintf(stderr, "loam: %s\n", err.message);
    return (int)err.status;
}

int loam_cmd_run(int argc, char** argv) {
    run_options o;
    if (!parse_args(argc, argv, &o)) return 2;
    loam_scene scene;
    int failed = app_load_scene(o.scene, o.sets, o.set_count, &scene);
    if (failed) return failed;
    loam_error err;
    loam_error_clear(&err);
    if (o.frames >= 0) scene.output.frames = o.frames;
    if (o.threads >= 0) scene.threads = o.threads;
    long long steps = o.steps >= 0 ? o.steps
                      : (long long)llround((o.duration >= 0 ? o.duration : scene.duration) / scene.params.dt);
    scene.duration = (double)steps * scene.params.dt;
    /* Two frames at the same step would repeat a time in the .pvd series. */
    if (scene.output.frames > steps + 1) scene.output.frames = (int)(steps + 1);
    loam_set_threads(scene.threads);
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", o.out ? o.out : "out");
    if (!o.out) snprintf(dir, sizeof dir, "out/%s", scene.name);

    /* An environment scene: the environment builds the world and its scripted policy drives it, a
     * new action every steps_per_action steps (observations are not needed here). */
    loam_env* env = NULL;
    int action_period = 1;
    float action[LOAM_ENV_MAX_ACTION];
    env_totals totals = {0.0, 0.0};
    loam_world* w = NULL;
    if (scene.has_environment) {
        loam_env_config c = scene.environment;
        action_period = c.steps_per_action;
        c.steps_per_action = 1;
        c.observe = 0;
        if (!o.quiet) fprintf(stderr, "loam: %s: building the %s environment (settling its bed)\n", scene.name,
                              loam_env_kind_name(c.kind));
        env = loam_env_create(&c, &err);
        if (env && loam_env_reset(env, scene.environment_reset_seed, &err) == LOAM_OK) w = loam_env_world(env);
    } else {
        w = loam_scene_create_world(&scene, &err);
    }
    if (!w) {
        fprintf(stderr, "loam: %s: %s\n", o.scene, err.message);
        loam_env_destroy(env);
        loam_scene_destroy(&scene);
        return (int)err.status;
    }
    run_output out;
    loam_status st = run_output_open(&out, &scene, w, dir, &err);
    if (!o.quiet && st == LOAM_OK) {
        fprintf(stderr, "loam: %s: %d particles, %d bodies, %lld steps of %g s on %d threads -> %s/\n", scene.name,
                loam_world_particles(w).count, loam_world_body_count(w), steps, scene.params.dt, loam_get_threads(), dir);
        mesh_grids_print(stderr, &scene, w);
    }
    int frames = scene.output.frames;
    body_peak* peaks = calloc((size_t)loam_world_body_count(w) + 1, sizeof *peaks);
    loam_progress bar;
    loam_progress_start(&bar, steps, !o.quiet);
    double t0 = loam_now();
    long long done = 0;
    loam_error run_err;
    loam_error_clear(&run_err);
    loam_status run_st = LOAM_OK;
    int next_frame = 0, warned = 0;
    /* Frame k is written after step round(k * steps / (frames - 1)): the first shows the start, the last the end. */
    while (st == LOAM_OK) {
        long long frame_step = frames <= 0 ? -1
                               : frames == 1 ? steps
                                             : (long long)llround((double)next_frame * (double)steps / (frames - 1));
        if (next_frame < frames && done == frame_step) {
            st = run_output_frame(&out, w, &err);
            ++next_frame;
            continue;
        }
        if (done >= steps) break;
        if (env) {
            if (done % action_period == 0) loam_env_scripted_action(env, action);
            loam_env_step_info info;
            run_st = loam_env_step(env, action, &info, &run_err);
            totals.reward += info.reward;
            totals.progress = info.progress;
        } else {
            run_st = loam_world_step(w, 1, &run_err);
        }
        if (run_st != LOAM_OK) break;
        ++done;
        if (!warned && loam_world_last_stats(w).dropped_neighbors > 0) {
            warned = 1;
            fprintf(stderr, "\nloam: warning: step %lld: %d neighbours beyond 512 per particle were ignored; the packing "
                            "has collapsed (try a smaller dt or more sweeps)\n", done, loam_world_last_stats(w).dropped_neighbors);
        }
        for (int b = 0; b < loam_world_body_count(w); ++b) {
            const loam_body_state* bs = loam_world_body_state(w, b);
            double f = sqrt((double)bs->force.x * bs->force.x + (double)bs->force.y * bs->force.y +
                            (double)bs->force.z * bs->force.z);
            if (f > peaks[b].peak_force) peaks[b].peak_force = f;
        }
        st = run_output_bodies(&out, w, &err);
        loam_progress_update(&bar, done, loam_world_time(w));
    }
    double wall = loam_now() - t0;
    loam_progress_finish(&bar, done, loam_world_time(w));
    loam_error close_err;
    loam_status cst = run_output_close(&out, st == LOAM_OK && run_st == LOAM_OK, o.quiet, &close_err);
    if (st == LOAM_OK && cst != LOAM_OK) {
        st = cst;
        err = close_err;
    }
    int code = 0;
    if (st != LOAM_OK) {
        fprintf(stderr, "loam: %s\n", err.message);
        code = (int)st;
    } else {
        loam_status sst = write_summary(dir, &scene, w, done, steps, wall, out.frames_written, peaks,
                                        env ? &totals : NULL, run_st, &run_err, &err);
        if (run_st != LOAM_OK) {
            fprintf(stderr, "loam: %s: %s\n", o.scene, run_err.message);
            code = (int)run_st;
        } else if (sst != LOAM_OK) {
            fprintf(stderr, "loam: %s\n", err.message);
            code = (int)sst;
        } else if (!o.quiet) {
            fprintf(stderr, "loam: done: %lld steps in %.2f s (realtime factor %.3g, %.3g particle-steps/s); see %s/summary.json\n",
                    done, wall, wall > 0 ? loam_world_time(w) / wall : 0.0,
                    wall > 0 ? (double)loam_world_particles(w).count * (double)done / wall : 0.0, dir);
        }
    }
    free(peaks);
    if (env) loam_env_destroy(env); /* it owns w */
    else loam_world_destroy(w);
    loam_scene_destroy(&scene);
    return code;
}
