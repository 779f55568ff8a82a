/* Scene files: every .yaml in scenes/ loads, builds a world and steps; every .yaml in scenes/bad/ fails with
 * LOAM_ERR_INPUT and a message naming the file and the line written in its first line
 * ("# expect-line: N"); and loam_scene_load_buffer reads defaults, generators, bodies and --set
 * overrides as docs/scene-format.md says. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "loam/scene.h"
#include "test_util.h"

static int ends_with(const char* s, const char* suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Sorted *.yaml names of a folder; returns the count (names are malloc'ed). */
static int list_yaml(const char* dir, char** names, int cap) {
    DIR* d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent* e; (e = readdir(d)) != NULL;)
        if (ends_with(e->d_name, ".yaml") && n < cap) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    return n;
}

static void check_good_scenes(void) {
    char dir[1024], path[2048];
    snprintf(dir, sizeof dir, "%s/scenes", LOAM_SOURCE_DIR);
    char* names[256];
    int n = list_yaml(dir, names, 256);
    CHECK(n >= 1, "no scenes in %s", dir);
    for (int k = 0; k < n; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        loam_scene s;
        loam_error err;
        loam_error_clear(&err);
        loam_status st = loam_scene_load(path, NULL, 0, &s, &err);
        CHECK(st == LOAM_OK, "%s does not load: %s", names[k], err.message);
        if (st != LOAM_OK) continue;
        if (s.has_environment) {
            /* Environment scenes run in cli_env_scenes.sh; here they must load and refuse a world. */
            CHECK(loam_scene_create_world(&s, &err) == NULL && err.status == LOAM_ERR_INPUT, "%s: world", names[k]);
            fprintf(stderr, "%-28s environment %s: ok\n", names[k], loam_env_kind_name(s.environment.kind));
            loam_scene_destroy(&s);
            continue;
        }
        CHECK(s.particle_count > 0, "%s has no particles", names[k]);
        CHECK(s.duration > 0.0, "%s: duration %g", names[k], s.duration);
        loam_world* w = loam_scene_create_world(&s, &err);
        CHECK(w != NULL, "%s: no world: %s", names[k], err.message);
        if (w) {
            CHECK(loam_world_particles(w).count == s.particle_count, "%s: world has %d particles, scene %d", names[k],
                  loam_world_particles(w).count, s.particle_count);
            CHECK(loam_world_body_count(w) == s.body_count, "%s: bodies", names[k]);
            st = loam_world_step(w, 1, &err);
            CHECK(st == LOAM_OK, "%s: first step: %s", names[k], err.message);
            loam_world_destroy(w);
        }
        fprintf(stderr, "%-28s %7d particles %3d bodies: ok\n", names[k], s.particle_count, s.body_count);
        if (strcmp(names[k], "plough.yaml") == 0) {
            /* the counts its comments promise */
            CHECK(s.particle_count == 50 * 22 * 18, "plough: %d particles, its comment says 19,800", s.particle_count);
            CHECK(s.body_count == 2, "plough: %d bodies", s.body_count);
            if (s.body_count == 2) {
                CHECK(s.bodies[0].shape_count == 5, "plough bin: %d pieces (an open box is 5)", s.bodies[0].shape_count);
                CHECK(s.bodies[1].motion == LOAM_MOTION_PATH && s.bodies[1].waypoint_count == 5, "plough blade path");
            }
        }
        loam_scene_destroy(&s);
        loam_scene_destroy(&s); /* freeing twice is harmless */
    }
    for (int k = 0; k < n; ++k) free(names[k]);
}

static void check_bad_scenes(void) {
    char dir[1024], path[2048];
    snprintf(dir, sizeof dir, "%s/scenes/bad", LOAM_SOURCE_DIR);
    char* names[256];
    int n = list_yaml(dir, names, 256);
    CHECK(n >= 15, "%d malformed scenes in %s, want at least 15", n, dir);
    for (int k = 0; k < n; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        FILE* f = fopen(path, "r");
        int line = 0;
        CHECK(f && fscanf(f, "# expect-line: %d", &line) == 1 && line > 0, "%s: first line must be '# expect-line: N'",
              names[k]);
        if (f) fclose(f);
        loam_scene s;
        loam_error err;
        loam_error_clear(&err);
        loam_status st = loam_scene_load(path, NULL, 0, &s, &err);
        char want[2200];
        snprintf(want, sizeof want, "%s:%d:", path, line);
        CHECK(st == LOAM_ERR_INPUT, "%s: status %d, want %d (bad input); message: %s", names[k], (int)st,
              (int)LOAM_ERR_INPUT, err.message);
        CHECK(err.status == st, "%s: err.status %d, returned %d", names[k], (int)err.status, (int)st);
        CHECK(strstr(err.message, want) != NULL, "%s: message lacks '%s': %s", names[k], want, err.message);
        /* a failed load leaves nothing to free */
        CHECK(s.xyz == NULL && s.bodies == NULL && s.particle_count == 0, "%s: a failed load kept data", names[k]);
        loam_scene_destroy(&s);
    }
    for (int k = 0; k < n; ++k) free(names[k]);
}

static loam_status load_text(const char* text, const char* const* sets, int nsets, loam_scene* s, loam_error* err) {
    loam_error_clear(err);
    return loam_scene_load_buffer(text, strlen(text), "mem.yaml", sets, nsets, s, err);
}

static void check_defaults(void) {
    loam_scene s;
    loam_error err;
    CHECK(load_text("name: d\n", NULL, 0, &s, &err) == LOAM_OK, "%s", err.message);
    loam_granular_params p = loam_granular_default_params();
    CHECK(strcmp(s.name, "d") == 0, "name '%s'", s.name);
    CHECK(s.params.dt == p.dt && s.params.sweeps == p.sweeps && s.params.margin == p.margin &&
              s.params.baumgarte == p.baumgarte && s.params.friction == p.friction && s.params.gravity.z == p.gravity.z,
          "params differ from loam_granular_default_params()");
    CHECK(s.duration == 1.0 && s.threads == 0 && s.density == 2500.0f, "sim defaults: %g %d %g", s.duration, s.threads,
          s.density);
    CHECK(s.output.frames == 60 && s.output.png == 1 && s.output.vtp == 1 && s.output.video == 1 && s.output.width == 960 &&
              s.output.height == 540 && s.output.color_by == LOAM_COLOR_HEIGHT,
          "output defaults");
    CHECK(s.particle_count == 0 && s.body_count == 0, "an empty scene has %d particles, %d bodies", s.particle_count,
          s.body_count);
    CHECK(strcmp(s.path, "mem.yaml") == 0, "path '%s'", s.path);
    loam_scene_destroy(&s);
}

static const char* k_scene =
    "loam: 1\n"
    "name: parse\n"
    "sim: {dt: 2.0e-3, duration: 0.5, gravity: [0, 0, -3.7], threads: 2, bound: 50}\n"
    "solver: {sweeps: 7, tolerance: 0.001, baumgarte: 0.3, relaxation: 0.9, margin: 0.2, warm_start: false,\n"
    "         hash_table_size: 1000}\n"
    "material: {density: 1600, friction: 0.7, damping: 0.5}\n"
    "periodic: {axis: y, lo: -0.5, hi: 0.5}\n"
    "particles:\n"
    "  - lattice: {lo: [0, 0, 0], hi: [1, 0.5, 0.25], spacing: 0.25, radius: 0.1, seed: 3}\n"
    "  - points:\n"
    "      positions: [[1.5, 0.25, 2.0], [-1.5, -0.25, 2.0]]\n"
    "      radius: 0.05\n"
    "      velocity: [1, 2, 3]\n"
    "bodies:\n"
    "  - name: bin\n"
    "    shapes:\n"
    "      - {type: open_box, inner_half: [1, 1, 0.5], wall: 0.05}\n"
    "      - {type: tube, inner_radius: 0.2, half_height: 0.3, wall: 0.02, position: [3, 0, 0]}\n"
    "  - name: blade\n"
    "    friction: 0.3\n"
    "    shapes: [{type: box, half_extents: [0.01, 0.2, 0.1]}]\n"
    "    motion:\n"
    "      type: path\n"
    "      waypoints:\n"
    "        - {t: 0.0, position: [-0.5, 0, 0.2]}\n"
    "        - {t: 1.0, rpy_deg: [0, 0, 90]}\n"
    "        - {t: 2.0, position: [0.5, 0, 0.2]}\n"
    "  - shapes: [{type: plane}]\n"
    "    motion: fixed\n"
    "  - name: roller\n"
    "    shapes: [{type: cylinder, radius: 0.1, half_height: 0.2}]\n"
    "    motion: {type: twist, linear: [0.1, 0, 0], angular: [0, 1, 0]}\n"
    "output: {frames: 5, png: no, vtp: yes, video: off, width: 320, height: 200, color_by: speed}\n"
    "camera: {eye: [1, 2, 3], target: [0, 0, 0], fov_deg: 30}\n";

static void check_full_scene(void) {
    loam_scene s;
    loam_error err;
    loam_status st = load_text(k_scene, NULL, 0, &s, &err);
    CHECK(st == LOAM_OK, "%s", err.message);
    if (st != LOAM_OK) return;
    CHECK(s.params.dt == 2.0e-3 && s.duration == 0.5 && s.params.gravity.z == -3.7f && s.threads == 2 &&
              s.params.bound == 50.0f,
          "sim");
    CHECK(s.params.sweeps == 7 && s.params.tolerance == 0.001f && s.params.baumgarte == 0.3f &&
              s.params.relaxation == 0.9f && s.params.margin == 0.2f && s.params.warm_start == 0 &&
              s.params.hash_table_size == 1000,
          "solver");
    CHECK(s.density == 1600.0f && s.params.friction == 0.7f && s.params.damping == 0.5f, "material");
    CHECK(s.params.periodic_axis == 1 && s.params.periodic_lo == -0.5f && s.params.periodic_hi == 0.5f, "periodic");
    /* lattice: 4 x 2 x 1 sites, centres half a spacing in from lo; then the 2 points */
    CHECK(s.particle_count == 4 * 2 * 1 + 2, "%d particles", s.particle_count);
    if (s.particle_count == 10) {
        CHECK(s.xyz[0] == 0.125f && s.xyz[1] == 0.125f && s.xyz[2] == 0.125f, "first lattice centre (%g, %g, %g)",
              s.xyz[0], s.xyz[1], s.xyz[2]);
        CHECK(s.xyz[3 * 3] == 0.875f, "fourth lattice centre x %g", s.xyz[9]);
        CHECK(s.radius[0] == 0.1f && s.radius[8] == 0.05f, "radii %g %g", s.radius[0], s.radius[8]);
        CHECK(s.xyz[24] == 1.5f && s.xyz[25] == 0.25f && s.xyz[26] == 2.0f && s.xyz[27] == -1.5f, "points");
        CHECK(s.vel[24] == 1.0f && s.vel[25] == 2.0f && s.vel[26] == 3.0f && s.vel[0] == 0.0f, "velocities");
    }
    CHECK(s.body_count == 4, "%d bodies", s.body_count);
    if (s.body_count == 4) {
        CHECK(strcmp(s.bodies[0].name, "bin") == 0 && s.bodies[0].shape_count == 5 + 2, "bin: '%s' with %d pieces",
              s.bodies[0].name, s.bodies[0].shape_count);
        CHECK(s.bodies[1].shapes[0].friction == 0.3f && s.bodies[0].shapes[0].friction == 0.7f,
              "shape friction: body's own, else the material's");
        CHECK(s.bodies[1].motion == LOAM_MOTION_PATH && s.bodies[1].waypoint_count == 3, "blade path");
        if (s.bodies[1].waypoint_count == 3) {
            const loam_waypoint* wp = s.bodies[1].waypoints;
            CHECK(wp[1].t == 1.0 && wp[1].pose.p.x == -0.5f && wp[1].pose.p.z == 0.2f,
                  "a waypoint without position keeps the previous one's (%g, %g)", wp[1].pose.p.x, wp[1].pose.p.z);
            CHECK(wp[1].pose.q.w != 1.0f, "the second waypoint turns");
            CHECK(wp[2].pose.q.w == wp[1].pose.q.w && wp[2].pose.q.z == wp[1].pose.q.z,
                  "a waypoint without rpy_deg keeps the previous orientation");
        }
        CHECK(strcmp(s.bodies[2].name, "body2") == 0 && s.bodies[2].motion == LOAM_MOTION_FIXED, "unnamed body '%s'",
              s.bodies[2].name);
        CHECK(s.bodies[3].motion == LOAM_MOTION_TWIST && s.bodies[3].twist.v.x == 0.1f && s.bodies[3].twist.w.y == 1.0f,
              "twist");
    }
    CHECK(s.output.frames == 5 && s.output.png == 0 && s.output.vtp == 1 && s.output.video == 0 && s.output.width == 320 &&
              s.output.height == 200 && s.output.color_by == LOAM_COLOR_SPEED,
          "output");
    CHECK(s.camera.has_eye && s.camera.has_target && s.camera.eye.z == 3.0f && s.camera.fov_deg == 30.0f, "camera");

    /* The same text gives the same scene, bit for bit. */
    loam_scene t;
    st = load_text(k_scene, NULL, 0, &t, &err);
    CHECK(st == LOAM_OK, "%s", err.message);
    if (st == LOAM_OK) {
        CHECK(t.particle_count == s.particle_count &&
                  memcmp(t.xyz, s.xyz, sizeof(float) * 3 * (size_t)s.particle_count) == 0 &&
                  memcmp(t.radius, s.radius, sizeof(float) * (size_t)s.particle_count) == 0,
              "loading twice gives different particles");
        loam_scene_destroy(&t);
    }
    loam_scene_destroy(&s);
}

static void check_overrides(void) {
    loam_scene s;
    loam_error err;
    const char* sets[] = {"solver.sweeps=5",
                          "sim.gravity=[0, -1, -2]",
                          "bodies.blade.motion.waypoints.2.t=3.5",
                          "bodies.1.friction=0.9",
                          "particles.1.points.radius=0.04",
                          "camera.up=[0,1,0]",
                          "material.density=1000",
                          "output.color_by=height",
                          "name=renamed"};
    int n = (int)(sizeof sets / sizeof sets[0]);
    loam_status st = load_text(k_scene, sets, n, &s, &err);
    CHECK(st == LOAM_OK, "%s", err.message);
    if (st == LOAM_OK) {
        CHECK(s.params.sweeps == 5, "solver.sweeps=5 gave %d", s.params.sweeps);
        CHECK(s.params.gravity.x == 0.0f && s.params.gravity.y == -1.0f && s.params.gravity.z == -2.0f, "gravity list");
        CHECK(s.body_count == 4 && s.bodies[1].waypoints[2].t == 3.5, "waypoint t by body name");
        CHECK(s.body_count == 4 && s.bodies[1].shapes[0].friction == 0.9f, "body friction by index: %g",
              s.bodies[1].shapes[0].friction);
        CHECK(s.particle_count == 10 && s.radius[9] == 0.04f, "points radius");
        CHECK(s.camera.up.y == 1.0f && s.camera.up.z == 0.0f, "camera.up");
        CHECK(s.density == 1000.0f && s.output.color_by == LOAM_COLOR_HEIGHT, "density, color_by");
        CHECK(strcmp(s.name, "renamed") == 0, "name '%s'", s.name);
        loam_scene_destroy(&s);
    }
    /* Keys and sections the file leaves out are created. */
    const char* create[] = {"solver.sweeps=9", "sim.duration=2.5", "periodic.axis=z", "periodic.lo=-1", "periodic.hi=1"};
    st = load_text("name: bare\n", create, 5, &s, &err);
    CHECK(st == LOAM_OK, "%s", err.message);
    if (st == LOAM_OK) {
        CHECK(s.params.sweeps == 9 && s.duration == 2.5 && s.params.periodic_axis == 2 && s.params.periodic_hi == 1.0f,
              "created keys");
        loam_scene_destroy(&s);
    }
    /* Bad overrides name the override in their message. */
    struct { const char* set; const char* want; } bad[] = {
        {"solver.sweeps=0", "--set 'solver.sweeps=0'"},
        {"solver.sweeps=x", "--set 'solver.sweeps=x'"},
        {"solver.sweeps", "--set 'solver.sweeps'"},
        {"=5", "--set '=5'"},
        {"bodies.nope.friction=1", "--set 'bodies.nope.friction=1'"},
        {"bodies.99.friction=1", "--set 'bodies.99.friction=1'"},
        {"solver=3", "--set 'solver=3'"},
        {"solver.sweeps.deeper=3", "--set 'solver.sweeps.deeper=3'"},
        {"sim.gravity=[1, 2]", "--set 'sim.gravity=[1, 2]'"},
        {"bodies.blade.motion.waypoints.2.t=0.5", "--set 'bodies.blade.motion.waypoints.2.t=0.5'"},
        /* keys the format does not have */
        {"solver.sweepz=5", "--set 'solver.sweepz=5'"},
        {"nosection.key=1", "--set 'nosection.key=1'"},
        {"bodies.blade.colour=red", "--set 'bodies.blade.colour=red'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        const char* one[] = {bad[k].set};
        st = load_text(k_scene, one, 1, &s, &err);
        CHECK(st == LOAM_ERR_INPUT, "--set %s: status %d", bad[k].set, (int)st);
        CHECK(strstr(err.message, bad[k].want) != NULL, "--set %s: message lacks \"%s\": %s", bad[k].set, bad[k].want,
              err.message);
        if (st == LOAM_OK) loam_scene_destroy(&s);
    }
    /* At most 64 overrides. */
    const char* many[65];
    for (int k = 0; k < 65; ++k) many[k] = "solver.sweeps=4";
    st = load_text(k_scene, many, 64, &s, &err);
    CHECK(st == LOAM_OK, "64 overrides: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    st = load_text(k_scene, many, 65, &s, &err);
    CHECK(st == LOAM_ERR_INPUT, "65 overrides: status %d", (int)st);
    if (st == LOAM_OK) loam_scene_destroy(&s);
}

static void check_edge_inputs(void) {
    loam_scene s;
    loam_error err;
    loam_error_clear(&err);
    CHECK(loam_scene_load(NULL, NULL, 0, &s, &err) == LOAM_ERR_INPUT, "null path");
    CHECK(loam_scene_load_buffer(NULL, 0, "x", NULL, 0, &s, &err) == LOAM_ERR_INPUT, "null text");
    CHECK(loam_scene_load_buffer("a: 1", 4, NULL, NULL, 0, &s, &err) == LOAM_ERR_INPUT, "null name");
    CHECK(loam_scene_load_buffer("name: x", 7, "x", NULL, 1, &s, &err) == LOAM_ERR_INPUT, "overrides NULL with count 1");
    CHECK(loam_scene_load_buffer("name: x", 7, "x", NULL, -1, &s, &err) == LOAM_ERR_INPUT, "negative override count");
    CHECK(loam_scene_load("/nonexistent/dir/scene.yaml", NULL, 0, &s, &err) == LOAM_ERR_INPUT &&
              strstr(err.message, "/nonexistent/dir/scene.yaml") != NULL,
          "missing file: %s", err.message);
    /* the length is honoured: text after it is not read */
    const char* text = "name: short\nsolver: {sweeps: oops}\n";
    loam_status st = loam_scene_load_buffer(text, 12, "cut.yaml", NULL, 0, &s, &err);
    CHECK(st == LOAM_OK && strcmp(s.name, "short") == 0, "length-limited buffer: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    /* embedded NUL and invalid UTF-8 are errors, not crashes */
    static const char nul[] = "name: a\0b\nsim: {dt: 1}\n";
    st = loam_scene_load_buffer(nul, sizeof nul - 1, "nul.yaml", NULL, 0, &s, &err);
    CHECK(st == LOAM_ERR_INPUT, "embedded NUL: status %d", (int)st);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    static const char bad_utf8[] = "name: \xff\xfe\n";
    st = loam_scene_load_buffer(bad_utf8, sizeof bad_utf8 - 1, "utf.yaml", NULL, 0, &s, &err);
    CHECK(st == LOAM_ERR_INPUT && strstr(err.message, "utf.yaml:") != NULL, "invalid UTF-8: %d %s", (int)st, err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    /* names: up to 63 characters */
    char buf[256];
    snprintf(buf, sizeof buf, "name: %s\n", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk"); /* 63 */
    st = load_text(buf, NULL, 0, &s, &err);
    CHECK(st == LOAM_OK && strlen(s.name) == 63, "63-character name: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    snprintf(buf, sizeof buf, "name: %s\n", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"); /* 64 */
    st = load_text(buf, NULL, 0, &s, &err);
    CHECK(st == LOAM_ERR_INPUT && strstr(err.message, "mem.yaml:1:") != NULL, "64-character name: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    /* the message names the dotted key and the value */
    st = load_text("solver:\n  sweeps: 3\n  margin: 2.5\n", NULL, 0, &s, &err);
    CHECK(st == LOAM_ERR_INPUT && strstr(err.message, "mem.yaml:3:") && strstr(err.message, "solver.margin") &&
              strstr(err.message, "2.5"),
          "message: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    /* a lattice whose box holds no site is fine (zero particles), a huge one is refused before allocating */
    st = load_text("particles:\n  - lattice: {lo: [0, 0, 0], hi: [0.1, 0.1, 0.1], spacing: 1, radius: 0.01}\n", NULL, 0, &s,
                   &err);
    CHECK(st == LOAM_OK && s.particle_count == 0, "an empty lattice: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    /* A box that is a whole number of spacings wide holds that many sites per axis, however the
     * decimal values round: 0.9 / 0.018 is 50, 0.396 / 0.018 is 22, 0.324 / 0.018 is 18 (plough.yaml). */
    st = load_text("particles:\n  - lattice: {lo: [-0.45, -0.2, 0.05], hi: [0.45, 0.196, 0.374], spacing: 0.018, radius: 0.008}\n",
                   NULL, 0, &s, &err);
    CHECK(st == LOAM_OK && s.particle_count == 50 * 22 * 18, "a 50 x 22 x 18 lattice made %d particles: %s",
          s.particle_count, err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    st = load_text("particles:\n  - lattice: {lo: [0, 0, 0], hi: [0.3, 0.7, 0.1], spacing: 0.1, radius: 0.04}\n", NULL, 0,
                   &s, &err);
    CHECK(st == LOAM_OK && s.particle_count == 3 * 7 * 1, "a 3 x 7 x 1 lattice made %d particles: %s", s.particle_count,
          err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    st = load_text("particles:\n  - lattice: {lo: [-1e7, -1e7, -1e7], hi: [1e7, 1e7, 1e7], spacing: 1e-7, radius: 1e-7}\n",
                   NULL, 0, &s, &err);
    CHECK(st == LOAM_ERR_INPUT && strstr(err.message, "mem.yaml:2:"), "a 1e42-site lattice: %s", err.message);
    if (st == LOAM_OK) loam_scene_destroy(&s);
    /* One axis spanning 2 10^13 sites while another holds none: zero sites in all, and no int overflow
     * on the way (under UBSan a float-to-int conversion out of range aborts here). */
    st = load_text("particles:\n  - lattice: {lo: [0, 0, -1e6], hi: [5e-8, 1, 1e6], spacing: 1e-7, radius: 1e-7}\n", NULL, 0,
                   &s, &err);
    CHECK((st == LOAM_OK && s.particle_count == 0) || st == LOAM_ERR_INPUT,
          "a lattice with 2e13 sites on one axis and none on another: status %d, %d particles", (int)st,
          st == LOAM_OK ? s.particle_count : -1);
    if (st == LOAM_OK) loam_scene_destroy(&s);
}

int main(void) {
    check_good_scenes();
    check_bad_scenes();
    check_defaults();
    check_full_scene();
    check_overrides();
    check_edge_inputs();
    TEST_MAIN_END();
}
