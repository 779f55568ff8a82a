/* `loam view SCENE`: run a scene in a window (loam/viewer.h) as it simulates (or a soft robot:
 * view_robot.c); `--headless` is
 * `loam run` with the same options (PNG frames and MP4). Built without the viewer (no GLFW or OpenGL
 * at build time), it says so and points at --headless. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/commands.h"
#include "app/progress.h"
#include "app/view.h"
#include "loam/scene.h"
#include "loam/softbody.h"
#ifdef LOAM_HAVE_VIEWER
#include "loam/viewer.h"
#endif

static void usage(FILE* f) {
    fprintf(f,
            "usage: loam view SCENE [options]\n"
            "       loam view --robot ROBOT.json [--env water|land] [options]\n"
            "  Runs a scene file in a window, drawing particles and bodies as they move; or a soft robot\n"
            "  (loam robot, loam evolve) swimming or walking, coloured by muscle activation.\n"
            "  Mouse: left drag orbits, right or middle drag pans, the wheel zooms; R frames everything again.\n"
            "  Keys: space pauses and resumes, N or Right steps once (pausing), Esc or Q closes.\n"
            "  The title bar shows steps per second and the simulated time.\n"
            "options:\n"
            "  --max-steps N      stop stepping after N steps (default: the scene's sim.duration / sim.dt;\n"
            "                     a robot: never)\n"
            "  --seconds S        close the window after S seconds of wall time (default: when you close it)\n"
            "  --screenshot FILE  write the last frame shown to FILE (PNG) when the window closes\n"
            "  --size WxH         window size in pixels (default 1024x640)\n"
            "  --realtime         no faster than real time (default: as fast as it steps)\n"
            "  --threads T        threads, 0 = all cores (default: the scene's sim.threads)\n"
            "  --set key=value    override a scene value by its dotted key (repeatable; as loam run)\n"
            "  --robot FILE       a soft robot file instead of a scene; --env water (default) or land\n"
            "  --headless         no window: run as `loam run` with the other options (PNG frames, MP4)\n"
#ifndef LOAM_HAVE_VIEWER
            "This loam was built without the viewer (GLFW and OpenGL were not found at build time);\n"
            "only --headless works.\n"
#endif
    );
}

static int headless(int argc, char** argv) {
    char** args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) return fprintf(stderr, "loam view: out of memory\n"), 5;
    int n = 0;
    args[n++] = "run";
    for (int k = 1; k < argc; ++k)
        if (strcmp(argv[k], "--headless") != 0) args[n++] = argv[k];
    int code = loam_cmd_run(n, args);
    free(args);
    return code;
}

static int number(const char* opt, const char* s, double lo, double hi, int whole, double* out) {
    char* end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || *end || errno || !isfinite(v) || v < lo || v > hi || (whole && v != floor(v))) {
        fprintf(stderr, "loam view: %s: expected %s in [%g, %g], got '%s'\n", opt, whole ? "a whole number" : "a number",
                lo, hi, s ? s : "(nothing)");
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_args(int argc, char** argv, view_options* o) {
    memset(o, 0, sizeof *o);
    o->seconds = -1.0;
    o->max_steps = -1;
    o->threads = -1;
    o->width = 1024;
    o->height = 640;
    for (int k = 1; k < argc; ++k) {
        const char* a = argv[k];
        const char* v = k + 1 < argc ? argv[k + 1] : NULL;
        double x;
        if (strcmp(a, "--max-steps") == 0) {
            if (!number(a, v, 0, 1e12, 1, &x)) return 0;
            o->max_steps = (long long)x, ++k;
        } else if (strcmp(a, "--seconds") == 0) {
            if (!number(a, v, 0, 1e9, 0, &o->seconds)) return 0;
            ++k;
        } else if (strcmp(a, "--threads") == 0) {
            if (!number(a, v, 0, 1024, 1, &x)) return 0;
            o->threads = (int)x, ++k;
        } else if (strcmp(a, "--screenshot") == 0) {
            if (!v || !*v) return fprintf(stderr, "loam view: --screenshot needs a file name\n"), 0;
            o->screenshot = v, ++k;
        } else if (strcmp(a, "--size") == 0) {
            char tail = 0;
            if (!v || sscanf(v, "%dx%d%c", &o->width, &o->height, &tail) != 2 || o->width < 64 || o->height < 64 ||
                o->width > 8192 || o->height > 8192)
                return fprintf(stderr, "loam view: --size: expected WxH with sides in [64, 8192], got '%s'\n",
                               v ? v : "(nothing)"), 0;
            ++k;
        } else if (strcmp(a, "--realtime") == 0) {
            o->realtime = 1;
        } else if (strcmp(a, "--robot") == 0) {
            if (!v || !*v) return fprintf(stderr, "loam view: --robot needs a robot file\n"), 0;
            o->robot = v, ++k;
        } else if (strcmp(a, "--env") == 0) {
            if (!v || (strcmp(v, "water") != 0 && strcmp(v, "land") != 0))
                return fprintf(stderr, "loam view: --env: expected water or land, got '%s'\n", v ? v : "(nothing)"), 0;
            o->robot_env = strcmp(v, "land") == 0 ? LOAM_SB_LAND : LOAM_SB_WATER, ++k;
        } else if (strcmp(a, "--set") == 0) {
            if (!v) return fprintf(stderr, "loam view: --set needs key=value\n"), 0;
            if (o->set_count == 64) return fprintf(stderr, "loam view: at most 64 --set options\n"), 0;
            o->sets[o->set_count++] = v, ++k;
        } else if (a[0] == '-') {
            return fprintf(stderr, "loam view: unknown option '%s' (see loam view --help)\n", a), 0;
        } else if (!o->scene) {
            o->scene = a;
        } else {
            return fprintf(stderr, "loam view: one scene at a time; got '%s' and '%s'\n", o->scene, a), 0;
        }
    }
    if (o->robot && (o->scene || o->set_count))
        return fprintf(stderr, "loam view: --robot shows a robot file, not a scene; give one or the other\n"), 0;
    if (!o->scene && !o->robot) return fprintf(stderr, "loam view: no scene file given (see loam view --help)\n"), 0;
    return 1;
}

#ifdef LOAM_HAVE_VIEWER
/* Step while the frame's time lasts (at least one step), so drawing never starves the simulation
 * and a slow step never freezes the window. */
static loam_status step_for(loam_world* w, loam_env* env, int action_period, long long* done, long long limit,
                            double budget_s, loam_error* err) {
    float action[LOAM_ENV_MAX_ACTION];
    double start = loam_now();
    do {
        if (*done >= limit) return LOAM_OK;
        loam_status st;
        if (env) {
            if (*done % action_period == 0) loam_env_scripted_action(env, action);
            loam_env_step_info info;
            st = loam_env_step(env, action, &info, err);
        } else {
            st = loam_world_step(w, 1, err);
        }
        if (st != LOAM_OK) return st;
        ++*done;
    } while (loam_now() - start < budget_s);
    return LOAM_OK;
}

long long realtime_cap(realtime_clock* c, int realtime, int paused, long long done, long long limit, double dt) {
    if (paused) {
        c->paused = 1;
        return limit;
    }
    if (c->paused) c->wall = loam_now(), c->steps = done, c->paused = 0; /* the clock restarts after a pause */
    if (!realtime) return limit;
    long long due = c->steps + (long long)((loam_now() - c->wall) / dt);
    return due < limit ? due : limit;
}

static int view(const view_options* o, loam_scene* scene) {
    loam_error err;
    loam_error_clear(&err);
    if (o->threads >= 0) scene->threads = o->threads;
    loam_set_threads(scene->threads);
    long long limit = o->max_steps >= 0 ? o->max_steps : (long long)llround(scene->duration / scene->params.dt);
    loam_env* env = NULL;
    loam_world* w = NULL;
    int action_period = 1;
    if (scene->has_environment) {
        loam_env_config c = scene->environment;
        action_period = c.steps_per_action;
        c.steps_per_action = 1;
        c.observe = 0;
        fprintf(stderr, "loam: %s: building the %s environment (settling its bed)\n", scene->name, loam_env_kind_name(c.kind));
        env = loam_env_create(&c, &err);
        if (env && loam_env_reset(env, scene->environment_reset_seed, &err) == LOAM_OK) w = loam_env_world(env);
    } else {
        w = loam_scene_create_world(scene, &err);
    }
    loam_viewer_options vo = loam_viewer_default_options();
    vo.width = o->width, vo.height = o->height;
    char title[160];
    snprintf(title, sizeof title, "loam view: %s", scene->name);
    vo.title = title;
    loam_viewer* viewer = w ? loam_viewer_create(&vo, &err) : NULL;
    if (!viewer) {
        fprintf(stderr, "loam: %s: %s\n", o->scene, err.message);
        loam_env_destroy(env);
        if (!env) loam_world_destroy(w);
        return (int)err.status;
    }
    /* A scene that places its camera is seen from there, as `loam run` renders it. */
    if (scene->camera.has_eye && scene->camera.has_target &&
        loam_viewer_look_at(viewer, scene->camera.eye, scene->camera.target, &err) != LOAM_OK)
        fprintf(stderr, "loam view: note: %s; framing the scene instead\n", err.message);
    long long done = 0, rate_steps = 0;
    double t0 = loam_now(), rate_t = t0, rate = 0.0;
    realtime_clock clock = {t0, 0, 0};
    loam_status st = LOAM_OK;
    loam_viewer_input in = {0};
    while (st == LOAM_OK) {
        st = loam_viewer_poll(viewer, &in, &err);
        int over = o->seconds >= 0.0 && loam_now() - t0 >= o->seconds;
        if (st != LOAM_OK || in.close || over) break;
        long long before = done;
        long long cap = realtime_cap(&clock, o->realtime, in.paused, done, limit, scene->params.dt);
        if (!in.paused) st = step_for(w, env, action_period, &done, cap, 1.0 / 30.0, &err);
        for (int k = 0; k < in.steps && st == LOAM_OK; ++k) st = step_for(w, env, action_period, &done, done + 1, 0.0, &err);
        rate_steps += done - before;
        double now = loam_now();
        if (now - rate_t >= 0.5) { /* a rate over half a second reads steadily */
            rate = rate_steps / (now - rate_t);
            rate_steps = 0, rate_t = now;
        }
        char status[160];
        snprintf(status, sizeof status, "%.0f steps/s, step %lld, t = %.3f s%s%s", rate, done, loam_world_time(w),
                 in.paused ? " [paused: space runs, N steps]" : "", done >= limit ? " [end]" : "");
        loam_viewer_set_status(viewer, status);
        if (st == LOAM_OK) st = loam_viewer_draw_granular(viewer, w, &err);
        if (st == LOAM_OK) st = loam_viewer_present(viewer, NULL, &err);
        if (st == LOAM_OK && done == before) {
            struct timespec idle = {0, 16000000}; /* nothing to simulate: redraw at about 60 Hz */
            nanosleep(&idle, NULL);
        }
    }
    /* The screenshot shows the final state, drawn once more (the window is still open). */
    if (st == LOAM_OK && o->screenshot) {
        st = loam_viewer_draw_granular(viewer, w, &err);
        if (st == LOAM_OK) st = loam_viewer_present(viewer, o->screenshot, &err);
    }
    if (st != LOAM_OK) fprintf(stderr, "loam: %s: %s\n", o->scene, err.message);
    else fprintf(stderr, "loam: %lld steps, t = %.3f s\n", done, loam_world_time(w));
    loam_viewer_destroy(viewer);
    if (env) loam_env_destroy(env); /* it owns w */
    else loam_world_destroy(w);
    return (int)st;
}
#endif

int loam_cmd_view(int argc, char** argv) {
    for (int k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) return usage(stdout), 0;
        if (strcmp(argv[k], "--headless") == 0) return headless(argc, argv);
    }
    view_options o;
    if (!parse_args(argc, argv, &o)) return 2;
#ifndef LOAM_HAVE_VIEWER
    fprintf(stderr, "loam view: this loam was built without the viewer (GLFW and OpenGL were not found at build time; "
                    "install libglfw3-dev and libgl-dev and rebuild), so it cannot open a window. "
                    "`loam view --headless` (or `loam run`) writes PNG frames and an MP4 instead.\n");
    return 2;
#else
    if (o.robot) return view_robot(&o);
    loam_scene scene;
    int failed = app_load_scene(o.scene, o.sets, o.set_count, &scene);
    if (failed) return failed;
    int code = view(&o, &scene);
    loam_scene_destroy(&scene);
    return code;
#endif
}
