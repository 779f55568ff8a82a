/* Sleeping particles (params.sleep_speed, src/granular/sleep.c): a particle calm for sleep_time
 * falls asleep after exactly ceil(sleep_time / dt) steps; a settled bed falls asleep as a whole
 * and then costs no contacts and does not move by a bit; a falling particle never sleeps and falls
 * exactly as without sleeping; an impact and a moving tool wake what they touch, the impactor does
 * not sink into the sleepers, and the tool pushes as many particles as it does with sleeping off;
 * results do not depend on the thread count; switching sleeping off wakes everyone; blocks far from
 * a disturbance are passed by (quiet) and keep every bit, with no contact missed, also where a
 * bulldozer's wake front runs through many blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loam/core.h"
#include "loam/env.h"
#include "loam/geom.h"
#include "granular/world_internal.h" /* quiet_off */
#include "loam/granular.h"
#include "test_util.h"

static const float R = 0.01f;      /* particle radius, m */
static const float HALF = 0.06f;   /* half width of the box, m */

static loam_granular_params sleepy_params(float sleep_speed) {
    loam_granular_params p = loam_granular_default_params();
    p.sleep_speed = sleep_speed;
    p.sleep_time = 0.05f;
    return p;
}

static loam_granular_solver g_solver = LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL;

static loam_world* make_world(float sleep_speed) {
    loam_granular_params p = sleepy_params(sleep_speed);
    p.solver = g_solver;
    loam_error err;
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "%s", err.message);
    loam_body_def box = loam_body_default_def();
    snprintf(box.name, sizeof box.name, "box");
    box.shape_count = loam_open_box_pieces((loam_vec3){HALF, HALF, 0.2f}, 0.02f, 0.5f, box.shapes);
    CHECK(loam_world_add_body(w, &box, &err) == 0, "%s", err.message);
    return w;
}

/* A loose lattice of 6 x 6 x layers particles (slightly jittered) that falls into the box. */
static void add_bed(loam_world* w, int layers) {
    int n = 36 * layers, k = 0;
    float* xyz = malloc(sizeof(float) * 3 * (size_t)n);
    float* rad = malloc(sizeof(float) * (size_t)n);
    for (int l = 0; l < layers; ++l)
        for (int a = 0; a < 6; ++a)
            for (int b = 0; b < 6; ++b, ++k) {
                float jitter = 1e-4f * (float)((k * 7919) % 13 - 6);
                xyz[3 * k] = -HALF + R * (1.05f + 2.0f * (float)a) + jitter;
                xyz[3 * k + 1] = -HALF + R * (1.05f + 2.0f * (float)b) - jitter;
                xyz[3 * k + 2] = R * (1.1f + 2.2f * (float)l);
                rad[k] = R;
            }
    loam_error err;
    CHECK(loam_world_add_particles(w, n, xyz, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    free(xyz);
    free(rad);
}

static int run(loam_world* w, int steps) {
    loam_error err;
    for (int s = 0; s < steps; ++s)
        if (loam_world_step(w, 1, &err) != LOAM_OK) {
            CHECK(0, "step %d: %s", s, err.message);
            return 0;
        }
    return 1;
}

/* A particle resting on the floor: asleep after exactly ceil(0.05 / 1e-3) = 50 calm steps. */
static void test_sleep_timing(void) {
    loam_world* w = make_world(0.01f);
    float xyz[3] = {0.0f, 0.0f, R};
    loam_error err;
    CHECK(loam_world_add_particles(w, 1, xyz, NULL, &R, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    run(w, 49);
    CHECK(loam_world_last_stats(w).sleeping == 0, "asleep after 49 steps");
    run(w, 1);
    CHECK(loam_world_last_stats(w).sleeping == 1, "awake after 50 calm steps");
    loam_world_destroy(w);
}

/* A settled bed falls asleep as a whole, then has no contacts and keeps every bit of its state. */
static void test_bed_sleeps(void) {
    loam_world* w = make_world(0.01f);
    add_bed(w, 4);
    run(w, 1500);
    loam_step_stats st = loam_world_last_stats(w);
    loam_particles p = loam_world_particles(w);
    CHECK(st.sleeping == p.count, "%d of %d asleep after 1.5 s", st.sleeping, p.count);
    float* before = malloc(sizeof(float) * 3 * (size_t)p.count); /* by id: slots get renumbered */
    for (int k = 0; k < p.count; ++k) {
        before[p.id[k]] = p.x[k];
        before[p.count + p.id[k]] = p.y[k];
        before[2 * p.count + p.id[k]] = p.z[k];
    }
    run(w, 100);
    st = loam_world_last_stats(w);
    CHECK(st.sleeping == p.count, "%d of %d asleep", st.sleeping, p.count);
    p = loam_world_particles(w);
    int moved = 0;
    for (int k = 0; k < p.count; ++k) {
        int id = p.id[k];
        moved += p.x[k] != before[id] || p.y[k] != before[p.count + id] || p.z[k] != before[2 * p.count + id];
    }
    CHECK(moved == 0, "%d sleeping particles moved", moved);
    CHECK(st.contacts == 0 && st.body_contacts == 0, "a sleeping bed still has %d + %d contacts", st.contacts,
          st.body_contacts);
    free(before);

    /* Waking by hand (after moving particles): everyone awake for sleep_time. */
    loam_world_wake_all(w);
    run(w, 1);
    CHECK(loam_world_last_stats(w).sleeping == 0, "%d asleep after wake_all", loam_world_last_stats(w).sleeping);
    run(w, 100);
    CHECK(loam_world_last_stats(w).sleeping == p.count, "%d of %d asleep again", loam_world_last_stats(w).sleeping, p.count);

    /* Switching sleeping off wakes everyone, and the bed (at rest) stays where it is. */
    loam_granular_params q = sleepy_params(0.0f);
    loam_error err;
    CHECK(loam_world_set_params(w, &q, &err) == LOAM_OK, "%s", err.message);
    run(w, 1);
    CHECK(loam_world_last_stats(w).sleeping == 0, "%d still asleep with sleeping off", loam_world_last_stats(w).sleeping);
    run(w, 200);
    p = loam_world_particles(w);
    float vmax = 0.0f;
    for (int k = 0; k < p.count; ++k) vmax = fmaxf(vmax, sqrtf(p.vx[k] * p.vx[k] + p.vy[k] * p.vy[k] + p.vz[k] * p.vz[k]));
    CHECK(vmax < 0.02f, "the woken bed moves at %g m/s", vmax);
    loam_world_destroy(w);
}

/* Free fall: never asleep, and bit for bit the trajectory without sleeping. */
static void test_free_fall(void) {
    loam_world* a = make_world(0.01f);
    loam_world* b = make_world(0.0f);
    float xyz[3] = {0.0f, 0.0f, 2.0f};
    loam_error err;
    CHECK(loam_world_add_particles(a, 1, xyz, NULL, &R, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_world_add_particles(b, 1, xyz, NULL, &R, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    int slept = 0;
    for (int s = 0; s < 500; ++s) {
        run(a, 1);
        run(b, 1);
        slept += loam_world_last_stats(a).sleeping;
    }
    CHECK(slept == 0, "a falling particle slept %d steps", slept);
    CHECK(loam_world_particles(a).z[0] == loam_world_particles(b).z[0], "fall differs: %.9g vs %.9g m",
          loam_world_particles(a).z[0], loam_world_particles(b).z[0]);
    loam_world_destroy(a);
    loam_world_destroy(b);
}

static float bed_top(loam_world* w, int skip_id) {
    loam_particles p = loam_world_particles(w);
    float top = 0.0f;
    for (int k = 0; k < p.count; ++k)
        if (p.id[k] != skip_id) top = fmaxf(top, p.z[k]);
    return top;
}

/* A ball dropped on a sleeping bed wakes it where it lands, comes to rest on top, and the bed
 * sleeps again. */
static void test_impact_wakes(void) {
    loam_world* w = make_world(0.01f);
    add_bed(w, 3);
    run(w, 1200);
    loam_particles p = loam_world_particles(w);
    int n = p.count;
    CHECK(loam_world_last_stats(w).sleeping == n, "bed not asleep before the drop (%d of %d)",
          loam_world_last_stats(w).sleeping, n);
    float top = bed_top(w, -1);
    /* A heavier ball (2R, same density) 5 cm above the bed, falling at 1 m/s. */
    float xyz[3] = {0.003f, -0.002f, top + 0.05f}, v[3] = {0.0f, 0.0f, -1.0f}, rb = 2.0f * R;
    loam_error err;
    /* Particles can only be added before the first step: build a second world with the same bed. */
    loam_world* w2 = make_world(0.01f);
    float* bed = malloc(sizeof(float) * 3 * (size_t)(n + 1));
    float* vel = calloc(3 * (size_t)(n + 1), sizeof(float));
    float* rad = malloc(sizeof(float) * (size_t)(n + 1));
    for (int k = 0; k < n; ++k) {
        bed[3 * k] = p.x[k];
        bed[3 * k + 1] = p.y[k];
        bed[3 * k + 2] = p.z[k];
        rad[k] = R;
    }
    memcpy(&bed[3 * n], xyz, sizeof xyz);
    memcpy(&vel[3 * n], v, sizeof v);
    rad[n] = rb;
    CHECK(loam_world_add_particles(w2, n + 1, bed, vel, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    loam_world_destroy(w);
    /* The copied bed is at rest: let it fall asleep while the ball falls (sleep 50 ms, fall 40 ms). */
    int min_sleeping = n + 1, woke = 0;
    for (int s = 0; s < 600; ++s) {
        run(w2, 1);
        int sl = loam_world_last_stats(w2).sleeping;
        if (s > 60 && sl < min_sleeping) min_sleeping = sl;
    }
    woke = n - min_sleeping;
    CHECK(woke > 0, "the impact woke nobody");
    float ball_z = 0.0f;
    p = loam_world_particles(w2);
    for (int k = 0; k < p.count; ++k)
        if (p.id[k] == n) ball_z = p.z[k];
    CHECK(ball_z > top + rb - 0.5f * R, "the ball sank into the sleeping bed: centre %g m, bed top %g m", ball_z, top);
    run(w2, 1000);
    CHECK(loam_world_last_stats(w2).sleeping == n + 1, "%d of %d asleep 1 s after the impact",
          loam_world_last_stats(w2).sleeping, n + 1);
    free(bed);
    free(vel);
    free(rad);
    loam_world_destroy(w2);
}

/* A blade pushed 6 cm into a settled bed: the particles it moves by more than a radius, with and
 * without sleeping, and the final positions (by id) for a thread-count comparison. */
static int push_with_blade(float sleep_speed, int threads, float* final_xyz) {
    loam_set_threads(threads);
    loam_world* w = make_world(sleep_speed);
    add_bed(w, 3);
    loam_body_def blade = loam_body_default_def();
    snprintf(blade.name, sizeof blade.name, "blade");
    blade.motion = LOAM_MOTION_COMMANDED;
    blade.pose.p = (loam_vec3){-HALF + 0.005f, 0.0f, 0.05f};
    blade.shape_count = 1;
    blade.shapes[0].type = LOAM_SHAPE_BOX;
    blade.shapes[0].size = (loam_vec3){0.004f, 0.04f, 0.05f};
    blade.shapes[0].local = loam_pose_identity();
    blade.shapes[0].friction = 0.5f;
    loam_error err;
    int body = loam_world_add_body(w, &blade, &err);
    CHECK(body >= 0, "%s", err.message);
    /* Settle (the blade is thin and at the wall), then push at 0.2 m/s for 0.3 s, then rest. */
    run(w, 1000);
    loam_particles p = loam_world_particles(w);
    int n = p.count;
    float* start = malloc(sizeof(float) * 3 * (size_t)n);
    for (int k = 0; k < n; ++k) {
        start[3 * p.id[k]] = p.x[k];
        start[3 * p.id[k] + 1] = p.y[k];
        start[3 * p.id[k] + 2] = p.z[k];
    }
    loam_twist push = {{0.2f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}, stop = {{0, 0, 0}, {0, 0, 0}};
    CHECK(loam_world_command_body(w, body, push, &err) == LOAM_OK, "%s", err.message);
    int woke = 0;
    for (int s = 0; s < 300; ++s) {
        if (sleep_speed > 0.0f && loam_world_last_stats(w).sleeping < n) woke = 1;
        if (!run(w, 1)) break;
        CHECK(loam_world_command_body(w, body, push, &err) == LOAM_OK, "%s", err.message);
    }
    CHECK(loam_world_command_body(w, body, stop, &err) == LOAM_OK, "%s", err.message);
    run(w, 300);
    if (sleep_speed > 0.0f) CHECK(woke, "the blade woke nobody");
    p = loam_world_particles(w);
    int moved = 0;
    float worst_inside = 0.0f, blade_x = loam_world_body_state(w, body)->pose.p.x;
    for (int k = 0; k < n; ++k) {
        const float* s0 = &start[3 * p.id[k]];
        float d = sqrtf((p.x[k] - s0[0]) * (p.x[k] - s0[0]) + (p.y[k] - s0[1]) * (p.y[k] - s0[1]) +
                        (p.z[k] - s0[2]) * (p.z[k] - s0[2]));
        moved += d > R;
        if (fabsf(p.y[k]) < 0.04f - R && p.z[k] < 0.1f - R) /* overlap with the blade's faces */
            worst_inside = fmaxf(worst_inside, 0.004f + R - fabsf(p.x[k] - blade_x));
        if (final_xyz) {
            final_xyz[3 * p.id[k]] = p.x[k];
            final_xyz[3 * p.id[k] + 1] = p.y[k];
            final_xyz[3 * p.id[k] + 2] = p.z[k];
        }
    }
    CHECK(worst_inside < 0.5f * R, "a particle is %g m into the blade (sleep %g)", worst_inside, sleep_speed);
    free(start);
    loam_world_destroy(w);
    loam_set_threads(0);
    return moved;
}

static void test_blade(void) {
    int n = 36 * 3;
    float* one = malloc(sizeof(float) * 3 * (size_t)n);
    float* two = malloc(sizeof(float) * 3 * (size_t)n);
    int exact = push_with_blade(0.0f, 1, NULL);
    int sleepy = push_with_blade(0.01f, 1, one);
    push_with_blade(0.01f, 2, two);
    fprintf(stderr, "blade: %d of %d particles moved more than r without sleeping, %d with\n", exact, n, sleepy);
    CHECK(exact > 10, "the blade moved only %d particles", exact);
    CHECK(abs(sleepy - exact) <= exact / 5, "sleeping changes the pushed particles: %d vs %d", sleepy, exact);
    CHECK(memcmp(one, two, sizeof(float) * 3 * (size_t)n) == 0, "1 and 2 threads differ with sleeping");

    /* The paper's projected Jacobi solver treats sleepers the same way (inverse mass 0). */
    g_solver = LOAM_GRANULAR_SOLVER_JACOBI;
    exact = push_with_blade(0.0f, 1, NULL);
    sleepy = push_with_blade(0.01f, 1, NULL);
    g_solver = LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL;
    fprintf(stderr, "blade, Jacobi: %d particles moved without sleeping, %d with\n", exact, sleepy);
    CHECK(abs(sleepy - exact) <= exact / 5, "Jacobi: sleeping changes the pushed particles: %d vs %d", sleepy, exact);
    free(one);
    free(two);
}

/* Particles of quiet blocks (this step's detection) within contact reach of an awake particle, by
 * brute force over all pairs: the block test must leave none. Positions are the step's end; the
 * reach is the largest a contact of the step could span, plus what the pair moved in the step. */
static int quiet_blocks_near_awake(const loam_world* w) {
    float reach = fmaxf(w->neighbors.reach, w->pair_margin);
    int misses = 0, awake = 0;
    int32_t* list = malloc(sizeof(int32_t) * (size_t)w->count);
    for (int j = 0; j < w->count; ++j)
        if (!loam_is_asleep(w, j)) list[awake++] = j;
    for (int b = 0; b * LOAM_BLOCK < w->count; ++b) {
        if (!w->block_info[b].quiet) continue;
        for (int i = b * LOAM_BLOCK; i < loam_block_end(w, b); ++i)
            for (int k = 0; k < awake; ++k) {
                int j = list[k];
                float d[3] = {w->x[i] - w->x[j], w->y[i] - w->y[j], w->z[i] - w->z[j]};
                float cut = w->radius[i] + w->radius[j] + reach;
                misses += d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < cut * cut;
            }
    }
    free(list);
    return misses;
}

/* A trench three blocks long, asleep, pressed at one end by a sphere: the blocks far from it are
 * quiet (loam_step_stats.quiet; detection passes them by) and keep every bit, the pressed end wakes,
 * and the deepest overlap of any pair. The wake stays inside one block here, so this scene alone
 * would not notice a block test that misses contacts across blocks: test_quiet_bulldozing does (a
 * wrong cut-off there gives hundreds of misses). Returns the final positions by id in xyz. */
static void press_trench(int threads, int quiet, float* xyz, float* overlap, int* woke) {
    enum { ALONG = 120, ACROSS = 6, LAYERS = 3, N = ALONG * ACROSS * LAYERS };
    float length = 2.0f * R * ALONG + 0.01f;
    loam_set_threads(threads);
    loam_granular_params prm = sleepy_params(0.01f);
    loam_error err;
    loam_world* w = loam_world_create(&prm, &err);
    CHECK(w != NULL, "%s", err.message);
    w->quiet_off = !quiet;
    loam_body_def box = loam_body_default_def();
    snprintf(box.name, sizeof box.name, "trench");
    box.shape_count = loam_open_box_pieces((loam_vec3){0.5f * length, HALF, 0.2f}, 0.02f, 0.5f, box.shapes);
    CHECK(loam_world_add_body(w, &box, &err) == 0, "%s", err.message);
    loam_body_def ball = loam_body_default_def();
    snprintf(ball.name, sizeof ball.name, "ball");
    ball.motion = LOAM_MOTION_COMMANDED;
    ball.pose.p = (loam_vec3){0.0f, 0.0f, 0.5f}; /* out of the way while the bed settles */
    ball.shape_count = 1;
    ball.shapes[0].type = LOAM_SHAPE_SPHERE;
    ball.shapes[0].size = (loam_vec3){0.04f, 0.04f, 0.04f};
    ball.shapes[0].local = loam_pose_identity();
    ball.shapes[0].friction = 0.5f;
    int body = loam_world_add_body(w, &ball, &err);
    CHECK(body == 1, "%s", err.message);
    float* pos = malloc(sizeof(float) * 3 * N);
    float* rad = malloc(sizeof(float) * N);
    for (int k = 0; k < N; ++k) { /* along x first: the first blocks are slabs across the trench */
        int a = k / (ACROSS * LAYERS), b = k / LAYERS % ACROSS, l = k % LAYERS;
        pos[3 * k] = -0.5f * length + R * (1.05f + 2.0f * (float)a);
        pos[3 * k + 1] = -HALF + R * (1.05f + 2.0f * (float)b) + 1e-4f * (float)((k * 7919) % 13 - 6);
        pos[3 * k + 2] = R * (1.1f + 2.2f * (float)l);
        rad[k] = R;
    }
    CHECK(loam_world_add_particles(w, N, pos, NULL, rad, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    free(rad);
    run(w, 1200);
    loam_step_stats st = loam_world_last_stats(w);
    CHECK(st.sleeping == N && st.quiet == (quiet ? N : 0), "settled trench: %d asleep, %d quiet of %d", st.sleeping,
          st.quiet, N);
    loam_particles p = loam_world_particles(w);
    for (int k = 0; k < N; ++k) memcpy(&pos[3 * p.id[k]], (float[3]){p.x[k], p.y[k], p.z[k]}, sizeof(float[3]));
    /* Down at 0.3 m/s for 0.4 s near one end: from 20 cm to 8 cm, into the bed (top about 6.5 cm). */
    loam_pose start = {{-0.5f * length + 0.06f, 0.0f, 0.2f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    CHECK(loam_world_place_body(w, body, start, &err) == LOAM_OK, "%s", err.message);
    loam_twist down = {{0.0f, 0.0f, -0.3f}, {0.0f, 0.0f, 0.0f}};
    int most_quiet = 0, least_sleeping = N, quiet_misses = 0;
    for (int s = 0; s < 400; ++s) {
        CHECK(loam_world_command_body(w, body, down, &err) == LOAM_OK, "%s", err.message);
        if (!run(w, 1)) break;
        st = loam_world_last_stats(w);
        if (s > 350 && st.quiet > most_quiet) most_quiet = st.quiet;
        quiet_misses += quiet_blocks_near_awake(w);
        if (st.sleeping < least_sleeping) least_sleeping = st.sleeping;
    }
    CHECK(quiet_misses == 0, "%d times a quiet block had an awake particle within contact reach", quiet_misses);
    CHECK(N - least_sleeping > 20, "the ball woke only %d particles", N - least_sleeping);
    if (quiet) CHECK(most_quiet >= 1024, "no block was quiet while the ball pressed one end (%d)", most_quiet);
    p = loam_world_particles(w);
    int far_moved = 0;
    float worst = 0.0f;
    for (int k = 0; k < N; ++k) {
        const float* s0 = &pos[3 * p.id[k]];
        if (s0[0] > 0.0f) far_moved += p.x[k] != s0[0] || p.y[k] != s0[1] || p.z[k] != s0[2];
        for (int j = k + 1; j < N; ++j) {
            float d[3] = {p.x[k] - p.x[j], p.y[k] - p.y[j], p.z[k] - p.z[j]};
            float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (d2 < 4.0f * R * R) worst = fmaxf(worst, 2.0f * R - sqrtf(d2));
        }
    }
    CHECK(far_moved == 0, "%d particles of the far half moved", far_moved);
    *overlap = worst;
    *woke = N - least_sleeping;
    for (int k = 0; k < N; ++k) memcpy(&xyz[3 * p.id[k]], (float[3]){p.x[k], p.y[k], p.z[k]}, sizeof(float[3]));
    fprintf(stderr, "trench (%d threads, quiet blocks %s): %d woke, up to %d quiet, deepest overlap %.3g r\n",
            threads, quiet ? "on" : "off", N - least_sleeping, most_quiet, worst / R);
    free(pos);
    loam_world_destroy(w);
    loam_set_threads(0);
}

static void test_quiet_blocks(void) {
    enum { N = 120 * 6 * 3 };
    float* one = malloc(sizeof(float) * 3 * N);
    float* two = malloc(sizeof(float) * 3 * N);
    float overlap[3];
    int woke[3];
    press_trench(1, 1, one, &overlap[0], &woke[0]);
    press_trench(2, 1, two, &overlap[1], &woke[1]);
    CHECK(memcmp(one, two, sizeof(float) * 3 * N) == 0, "1 and 2 threads differ with quiet blocks");
    /* The reference detects every block. Where the lists are rebuilt differs (a block that stops
     * being quiet needs its list), so the bits do not match, but what the ball does must. The
     * overlap is the sleepers' (a particle squeezed between the kinematic ball and sleepers that
     * hold like walls until they wake), the same with and without quiet blocks. */
    press_trench(1, 0, two, &overlap[2], &woke[2]);
    CHECK(abs(woke[0] - woke[2]) <= woke[2] / 5, "quiet blocks change who wakes: %d vs %d", woke[0], woke[2]);
    CHECK(overlap[0] <= overlap[2] + 0.02f * R, "quiet blocks deepen the overlap: %g r vs %g r", overlap[0] / R,
          overlap[2] / R);
    free(one);
    free(two);
}

/* The block test where a bulldozer wakes a front that runs through ten blocks: 100 actions of 10
 * physics steps (1 s of the scripted policy from the start of an episode whose blocks go quiet
 * and wake), the last step of every fifth checked by brute force. The short run (sanitizer builds)
 * takes the first 25 actions: the blocks go quiet (4096 particles at action 7) and the front wakes
 * them block by block (1024 left at action 18) within them, so every check still means what it
 * does in the full run; the 10,000 particles' steps are what costs. */
static void test_quiet_bulldozing(void) {
    loam_env_config cfg = loam_env_default_config(LOAM_ENV_BULLDOZING);
    cfg.steps_per_action = 10;
    loam_set_threads(1); /* the check reads the block flags of one step; threads change nothing here */
    loam_error err;
    loam_env* env = loam_env_create(&cfg, &err);
    CHECK(env != NULL, "%s", err.message);
    if (!env) return;
    CHECK(loam_env_reset(env, 0, &err) == LOAM_OK, "%s", err.message);
    loam_env_step_info info;
    float action[8];
    int misses = 0, most_quiet = 0, least_quiet = 1 << 30;
    int actions = test_short() ? 25 : 100;
    for (int s = 0; s < actions; ++s) {
        loam_env_scripted_action(env, action);
        if (loam_env_step(env, action, &info, &err) != LOAM_OK) {
            CHECK(0, "action %d: %s", s, err.message);
            break;
        }
        loam_world* w = loam_env_world(env);
        int q = loam_world_last_stats(w).quiet;
        most_quiet = q > most_quiet ? q : most_quiet;
        least_quiet = q < least_quiet ? q : least_quiet;
        if (s % 5 == 4) misses += quiet_blocks_near_awake(w);
    }
    fprintf(stderr, "bulldozing: %d to %d particles in quiet blocks\n", least_quiet, most_quiet);
    CHECK(misses == 0, "%d times a quiet block had an awake particle within contact reach", misses);
    CHECK(most_quiet > least_quiet, "quiet blocks never changed (%d)", most_quiet);
    loam_env_destroy(env);
    loam_set_threads(0);
}

int main(void) {
    test_sleep_timing();
    test_free_fall();
    test_bed_sleeps();
    test_impact_wakes();
    test_blade();
    test_quiet_blocks();
    test_quiet_bulldozing();
    TEST_MAIN_END();
}
