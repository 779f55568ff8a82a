/* `loam bench env`: environment steps per second for one environment or a batch stepped together,
 * with the split between physics and observations (cameras, height maps); and the gear tower's
 * realtime factor for the paper's scaling plots (Fig. 3: hash table size; Fig. 9: particles, bodies). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_args.h"
#include "app/commands.h"
#include "app/progress.h"
#include "loam/env.h"

#define WHO "loam bench env"

int loam_bench_env(int argc, char** argv) {
    loam_env_kind kind = LOAM_ENV_BULLDOZING;
    int particles = -1, batch = 1, actions = 10, warmup = 2, spa = -1, gears = -1, hash = 0, sweeps = -1, observe = 1;
    int threads = 0, seed = 0, json = 0;
    double dt = -1.0, sleep_speed = -1.0;
    for (int a = 0; a < argc; ++a) {
        char opt[CLI_NAME_MAX];
        const char* val = cli_split_option(argv[a], opt);
        if (!strcmp(opt, "--json")) {
            if (cli_flag(WHO, opt, val)) return LOAM_ERR_INPUT;
            json = 1;
            continue;
        }
        int rc = cli_option_value(WHO, opt, argc, argv, &a, &val);
        if (rc) return rc;
        if (!strcmp(opt, "--kind")) {
            if (loam_env_kind_parse(val, &kind) != 0)
                rc = cli_bad_value(WHO, opt, val, "bulldozing, gear_tower or excavation");
        } else if (!strcmp(opt, "--particles")) rc = cli_parse_int(WHO, opt, val, 1, 20000000, &particles);
        else if (!strcmp(opt, "--batch")) rc = cli_parse_int(WHO, opt, val, 1, 4096, &batch);
        else if (!strcmp(opt, "--actions")) rc = cli_parse_int(WHO, opt, val, 1, 1000000, &actions);
        else if (!strcmp(opt, "--warmup")) rc = cli_parse_int(WHO, opt, val, 0, 1000000, &warmup);
        else if (!strcmp(opt, "--steps-per-action")) rc = cli_parse_int(WHO, opt, val, 1, 100000, &spa);
        else if (!strcmp(opt, "--gears")) rc = cli_parse_int(WHO, opt, val, 1, 16, &gears);
        else if (!strcmp(opt, "--hash-table-size")) rc = cli_parse_int(WHO, opt, val, 0, 1 << 30, &hash);
        else if (!strcmp(opt, "--sweeps")) rc = cli_parse_int(WHO, opt, val, 1, 1000, &sweeps);
        else if (!strcmp(opt, "--observe")) rc = cli_parse_int(WHO, opt, val, 0, 1, &observe);
        else if (!strcmp(opt, "--threads")) rc = cli_parse_int(WHO, opt, val, 0, 4096, &threads);
        else if (!strcmp(opt, "--seed")) rc = cli_parse_int(WHO, opt, val, 0, 2147483647, &seed);
        else if (!strcmp(opt, "--dt")) rc = cli_parse_double(WHO, opt, val, 0.0, 1, 0.01, &dt);
        else if (!strcmp(opt, "--sleep-speed")) rc = cli_parse_double(WHO, opt, val, 0.0, 0, 10.0, &sleep_speed);
        if (rc) return rc;
    }
    loam_set_threads(threads);
    loam_env_config c = loam_env_default_config(kind);
    if (particles > 0) c.particles = particles;
    if (spa > 0) c.steps_per_action = spa;
    if (gears > 0) c.gears = gears;
    if (sweeps > 0) c.sweeps = sweeps;
    if (dt > 0.0) c.dt = dt;
    if (sleep_speed >= 0.0) c.sleep_speed = (float)sleep_speed;
    c.hash_table_size = hash;
    c.observe = observe;
    c.episode_time = 1e6; /* no truncation inside the timing */

    loam_error err;
    double t0 = loam_now();
    loam_env** envs = calloc((size_t)batch, sizeof *envs);
    float* act = calloc((size_t)batch * LOAM_ENV_MAX_ACTION, sizeof(float));
    loam_env_step_info* infos = calloc((size_t)batch, sizeof *infos);
    loam_error* errs = calloc((size_t)batch, sizeof *errs);
    int status = 0;
    if (!envs || !act || !infos || !errs) {
        fprintf(stderr, WHO ": out of memory\n");
        status = 5;
        goto done;
    }
    envs[0] = loam_env_create(&c, &err);
    for (int b = 1; envs[0] && b < batch; ++b)
        if (!(envs[b] = loam_env_clone(envs[0], &err))) break;
    for (int b = 0; b < batch; ++b)
        if (!envs[b] || loam_env_reset(envs[b], (uint64_t)seed + (uint64_t)b, &err) != LOAM_OK) {
            fprintf(stderr, WHO ": %s\n", err.message);
            status = (int)err.status;
            goto done;
        }
    double build_s = loam_now() - t0;
    int dim = loam_env_action_dim(envs[0]);
    double physics = 0.0, sensors = 0.0, contacts = 0.0, wall = 0.0, reward = 0.0;
    /* The first environment's last physics step of each action: a sample of where the time goes. */
    double stage[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, awake = 0.0, quiet = 0.0;
    for (int k = 0; k < warmup + actions; ++k) {
        for (int b = 0; b < batch; ++b) loam_env_scripted_action(envs[b], act + (size_t)b * (size_t)dim);
        double s0 = loam_now();
        loam_status st = batch == 1 ? loam_env_step(envs[0], act, &infos[0], &errs[0])
                                    : loam_env_step_batch(envs, batch, act, infos, errs);
        double s1 = loam_now();
        if (st != LOAM_OK) {
            for (int b = 0; b < batch; ++b)
                if (errs[b].status != LOAM_OK) fprintf(stderr, WHO ": env %d: %s\n", b, errs[b].message);
            status = (int)st;
            goto done;
        }
        if (k < warmup) continue;
        wall += s1 - s0;
        loam_world* w0 = loam_env_world(envs[0]);
        loam_step_stats last = loam_world_last_stats(w0);
        double times[5] = {last.time_detect, last.time_color, last.time_solve, last.time_push, last.time_finish};
        for (int s = 0; s < 5; ++s) stage[s] += times[s] / actions;
        awake += (double)(loam_world_particles(w0).count - last.sleeping) / actions;
        quiet += (double)last.quiet / actions;
        for (int b = 0; b < batch; ++b) {
            physics += infos[b].physics_seconds;
            sensors += infos[b].sensor_seconds;
            contacts += infos[b].contacts;
            reward += infos[b].reward;
        }
    }
    int n = loam_world_particles(loam_env_world(envs[0])).count;
    double env_steps = (double)actions * batch, sim = env_steps * c.steps_per_action * c.dt;
    double rtf = sim / wall, sps = env_steps / wall, share = sensors / (physics + sensors);
    double pps = (double)n * c.steps_per_action * env_steps / wall, cpp = contacts / env_steps / n;
    printf("loam bench env: %s, %d particles, batch %d, %d threads, dt %g s, %d sweeps, %d steps per action, "
           "sleep speed %g m/s\n",
           loam_env_kind_name(kind), n, batch, loam_get_threads(), c.dt, c.sweeps, c.steps_per_action, c.sleep_speed);
    if (kind == LOAM_ENV_GEAR_TOWER) printf("  gears                   %d\n", c.gears);
    printf("  build (settle) + reset   %.2f s\n", build_s);
    printf("  env steps per second     %.3g (summed over the batch)\n", sps);
    printf("  realtime factor          %.3g (simulated seconds of all environments per wall second)\n", rtf);
    printf("  particle-steps per s     %.3g\n", pps);
    printf("  observations' share      %.1f%% of per-environment time (physics %.3g s, observations %.3g s)\n",
           100.0 * share, physics, sensors);
    printf("  contacts per particle    %.2f\n", cpp);
    printf("  last step of each action (environment 0, mean): detect %.0f, colour %.0f, solve %.0f, push %.0f, "
           "finish %.0f us; %.0f particles awake, %.0f passed by in quiet blocks\n",
           1e6 * stage[0], 1e6 * stage[1], 1e6 * stage[2], 1e6 * stage[3], 1e6 * stage[4], awake, quiet);
    if (json)
        printf("{\"kind\": \"%s\", \"particles\": %d, \"batch\": %d, \"threads\": %d, \"gears\": %d, \"hash_table_size\": %d, "
               "\"dt\": %g, \"sweeps\": %d, \"steps_per_action\": %d, \"observe\": %d, \"actions\": %d, "
               "\"env_steps_per_s\": %.6g, \"realtime_factor\": %.6g, \"particle_steps_per_s\": %.6g, "
               "\"observation_share\": %.6g, \"physics_s\": %.6g, \"observation_s\": %.6g, \"contacts_per_particle\": %.6g, "
               "\"build_s\": %.6g, \"mean_reward\": %.6g, \"sleep_speed\": %g}\n",
               loam_env_kind_name(kind), n, batch, loam_get_threads(), c.gears, hash, c.dt, c.sweeps, c.steps_per_action,
               observe, actions, sps, rtf, pps, share, physics, sensors, cpp, build_s, reward / env_steps, c.sleep_speed);
done:
    for (int b = 0; envs && b < batch; ++b) loam_env_destroy(envs[b]);
    free(envs);
    free(act);
    free(infos);
    free(errs);
    return status;
}
