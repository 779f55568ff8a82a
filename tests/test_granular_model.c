/* The granular model and its worlds (issue 24, item 4): a world made from a model steps to the bits
 * of a world filled by loam_world_add_particles / _add_body with the same particles and bodies;
 * worlds of one model are independent (stepping one leaves another's bytes as they were) and two
 * host threads stepping two of them at once get the bits each gets alone; a model is fixed once it
 * has worlds, and lives as long as its last world; copies and files go between worlds of one model
 * and between worlds of two models built alike, and a file of other particles is refused; worlds of
 * one model hold less than as many independent worlds. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loam/granular.h"
#include "test_util.h"

enum { N = 1200, STEPS = 40 };
static float g_xyz[3 * N], g_vel[3 * N], g_radius[N];

static void make_particles(void) {
    for (int i = 0; i < N; ++i) {
        g_xyz[3 * i] = -0.1f + 0.021f * (float)(i % 10);
        g_xyz[3 * i + 1] = -0.1f + 0.021f * (float)((i / 10) % 10);
        g_xyz[3 * i + 2] = 0.02f + 0.021f * (float)(i / 100) + 0.0005f * (float)(i % 7);
        g_vel[3 * i] = 0.01f * (float)(i % 3);
        g_vel[3 * i + 1] = 0.0f;
        g_vel[3 * i + 2] = -0.05f;
        g_radius[i] = 0.0095f + 0.0001f * (float)(i % 5); /* polydisperse: radius by id matters */
    }
}

static loam_body_def box_def(void) {
    loam_body_def box = loam_body_default_def();
    snprintf(box.name, sizeof box.name, "box");
    box.shape_count = loam_open_box_pieces((loam_vec3){0.3f, 0.3f, 0.4f}, 0.02f, 0.5f, box.shapes);
    return box;
}

/* A commanded paddle that sweeps through the pile: bodies move, body contacts change. */
static loam_body_def paddle_def(void) {
    loam_body_def d = loam_body_default_def();
    snprintf(d.name, sizeof d.name, "paddle");
    d.motion = LOAM_MOTION_COMMANDED;
    d.pose.p = (loam_vec3){-0.2f, 0.0f, 0.1f};
    d.twist.v = (loam_vec3){0.5f, 0.0f, 0.0f};
    d.shape_count = 1;
    d.shapes[0].type = LOAM_SHAPE_BOX;
    d.shapes[0].local = loam_pose_identity();
    d.shapes[0].size = (loam_vec3){0.01f, 0.2f, 0.1f};
    d.shapes[0].friction = 0.4f;
    return d;
}

static loam_granular_params params(int threads) {
    loam_granular_params p = loam_granular_default_params();
    p.threads = threads;
    p.reorder_interval = 7; /* renumber during the run */
    return p;
}

static loam_granular_model* make_model(int threads) {
    loam_error err;
    loam_granular_params p = params(threads);
    loam_granular_model* m = loam_granular_model_create(&p, &err);
    CHECK(m != NULL, "model: %s", err.message);
    if (!m) return NULL;
    loam_body_def box = box_def(), paddle = paddle_def();
    /* in two calls, so ids continue across them */
    CHECK(loam_granular_model_add_particles(m, N / 2, g_xyz, g_vel, g_radius, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_granular_model_add_particles(m, N - N / 2, g_xyz + 3 * (N / 2), g_vel + 3 * (N / 2), g_radius + N / 2, 2500.0f, &err) == LOAM_OK,
          "%s", err.message);
    CHECK(loam_granular_model_add_body(m, &box, &err) == 0, "%s", err.message);
    CHECK(loam_granular_model_add_body(m, &paddle, &err) == 1, "%s", err.message);
    return m;
}

static loam_world* make_private(int threads) {
    loam_error err;
    loam_granular_params p = params(threads);
    loam_world* w = loam_world_create(&p, &err);
    loam_body_def box = box_def(), paddle = paddle_def();
    CHECK(loam_world_add_body(w, &box, &err) == 0, "%s", err.message);
    CHECK(loam_world_add_particles(w, N, g_xyz, g_vel, g_radius, 2500.0f, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_world_add_body(w, &paddle, &err) == 1, "%s", err.message);
    return w;
}

/* Positions, velocities, ids, the bodies' states and the clock. */
static uint64_t world_digest(loam_world* w) {
    loam_particles p = loam_world_particles(w);
    uint64_t h = TEST_DIGEST_SEED;
    size_t n = (size_t)p.count * sizeof(float);
    const void* arrays[] = {p.x, p.y, p.z, p.vx, p.vy, p.vz, p.radius, p.inv_mass, p.id};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) h = test_digest(h, arrays[k], n);
    for (int b = 0; b < loam_world_body_count(w); ++b) h = test_digest(h, loam_world_body_state(w, b), sizeof(loam_body_state));
    double t = loam_world_time(w);
    return test_digest(h, &t, sizeof t);
}

static int step(loam_world* w, int steps) {
    loam_error err;
    loam_status st = loam_world_step(w, steps, &err);
    CHECK(st == LOAM_OK, "step: %s", err.message);
    return st == LOAM_OK;
}

static void test_same_bits_as_private(void) {
    loam_granular_model* m = make_model(1);
    loam_error err;
    loam_world* a = loam_world_create_from_model(m, &err);
    loam_world* b = make_private(1);
    CHECK(a && b, "worlds: %s", err.message);
    if (!a || !b) return;
    CHECK(loam_world_model(a) == m && loam_world_model(b) != m, "a world's model");
    CHECK(world_digest(a) == world_digest(b), "the initial states differ");
    step(a, STEPS);
    step(b, STEPS);
    CHECK(world_digest(a) == world_digest(b), "a world of a model and a world filled by add_* step to other bits");
    loam_world_destroy(a);
    loam_world_destroy(b);
    loam_granular_model_destroy(m);
}

static void test_fixed_and_lifetime(void) {
    loam_granular_model* m = make_model(1);
    loam_error err;
    loam_world* a = loam_world_create_from_model(m, &err);
    float xyz[3] = {0, 0, 1}, r = 0.01f;
    loam_body_def box = box_def();
    CHECK(loam_granular_model_add_particles(m, 1, xyz, NULL, &r, 1000.0f, &err) == LOAM_ERR_INPUT && strstr(err.message, "already has worlds"),
          "adding to a model with worlds: %s", err.message);
    CHECK(loam_granular_model_add_body(m, &box, &err) == -1 && strstr(err.message, "already has worlds"), "%s", err.message);
    CHECK(loam_world_add_particles(a, 1, xyz, NULL, &r, 1000.0f, &err) == LOAM_ERR_INPUT && strstr(err.message, "shared model"),
          "adding to a world of a model: %s", err.message);
    CHECK(loam_world_add_body(a, &box, &err) == -1 && strstr(err.message, "shared model"), "%s", err.message);
    CHECK(loam_granular_model_particle_count(m) == N && loam_granular_model_body_count(m) == 2, "counts");
    loam_world* lone = loam_world_create(NULL, &err);
    CHECK(loam_world_create_from_model((loam_granular_model*)loam_world_model(lone), &err) == NULL && strstr(err.message, "private"),
          "a world from another world's private model: %s", err.message);
    loam_world_destroy(lone);
    /* The model outlives the caller's reference while a world holds it. */
    loam_world* b = loam_world_create_from_model(m, &err);
    uint64_t before = 0;
    loam_granular_model_destroy(m);
    step(b, 3);
    step(a, 3);
    before = world_digest(a);
    CHECK(before == world_digest(b), "two worlds of one model, the model's creator gone");
    loam_world_destroy(a);
    step(b, 2);
    loam_world_destroy(b);
}

/* Stepping one world of a model leaves another's bytes alone; the other then steps to the same. */
static void test_independent(void) {
    loam_granular_model* m = make_model(2);
    loam_error err;
    loam_world *a = loam_world_create_from_model(m, &err), *b = loam_world_create_from_model(m, &err);
    loam_granular_model_destroy(m);
    if (!a || !b) return;
    uint64_t b0 = world_digest(b);
    step(a, STEPS);
    CHECK(world_digest(b) == b0, "stepping a changed b");
    step(b, STEPS);
    CHECK(world_digest(a) == world_digest(b), "b stepped to other bits than a");
    loam_world_destroy(a);
    loam_world_destroy(b);
}

typedef struct job {
    loam_world* w;
    int steps;
    uint64_t digest;
} job;

static void* run(void* arg) {
    job* j = arg;
    if (loam_world_step(j->w, j->steps, NULL) == LOAM_OK) j->digest = world_digest(j->w);
    return NULL;
}

/* Two host threads, each stepping a world of one model (each world on two OpenMP threads, one on
 * one): the bits of each alone. A race on the model (or on anything shared) would show here, or
 * in ThreadSanitizer (the CI's TSan stage). */
static void test_threads(void) {
    loam_error err;
    loam_granular_model* m = make_model(0);
    loam_world* alone = loam_world_create_from_model(m, &err);
    loam_world_set_threads(alone, 1, NULL);
    step(alone, STEPS);
    uint64_t want = world_digest(alone);
    loam_world_destroy(alone);
    job jobs[2];
    pthread_t t[2];
    for (int k = 0; k < 2; ++k) {
        jobs[k].w = loam_world_create_from_model(m, &err); /* made on this thread, stepped on another */
        jobs[k].steps = STEPS;
        jobs[k].digest = 0;
        loam_world_set_threads(jobs[k].w, k + 1, NULL);
    }
    for (int k = 0; k < 2; ++k) CHECK(pthread_create(&t[k], NULL, run, &jobs[k]) == 0, "thread %d", k);
    for (int k = 0; k < 2; ++k) pthread_join(t[k], NULL);
    for (int k = 0; k < 2; ++k) {
        CHECK(jobs[k].digest == want, "world %d on its host thread stepped to other bits", k);
        loam_world_destroy(jobs[k].w);
    }
    loam_granular_model_destroy(m);
}

/* Copies and files between worlds of one model, and between a world of a model and a world built
 * alike by add_*; a file of other particles is refused, naming the particle. */
static void test_copy_and_files(void) {
    loam_error err;
    loam_granular_model* m = make_model(1);
    loam_world *a = loam_world_create_from_model(m, &err), *b = loam_world_create_from_model(m, &err);
    loam_world* p = make_private(1);
    step(a, STEPS / 2);
    CHECK(loam_world_copy_state(b, a, &err) == LOAM_OK, "copy: %s", err.message);
    CHECK(loam_world_copy_state(p, a, &err) == LOAM_OK, "copy into a world built alike: %s", err.message);
    CHECK(loam_world_model(b) == m && loam_world_model(p) != m, "a copy keeps the destination's model");
    loam_world* c = loam_world_clone(a, &err);
    CHECK(c && loam_world_model(c) == m, "a clone shares the model");
    char path[256];
    snprintf(path, sizeof path, "/tmp/loam_test_granular_model_%d.state", (int)getpid());
    CHECK(loam_world_save(a, path, &err) == LOAM_OK, "save: %s", err.message);
    loam_world* d = loam_world_create_from_model(m, &err);
    CHECK(loam_world_load(d, path, &err) == LOAM_OK, "load: %s", err.message);
    step(a, STEPS / 2);
    uint64_t want = world_digest(a);
    loam_world* all[] = {b, p, c, d};
    for (int k = 0; k < 4; ++k) {
        step(all[k], STEPS / 2);
        CHECK(world_digest(all[k]) == want, "world %d (copy, copy into another model, clone, load) stepped to other bits", k);
    }
    /* Other particles (one radius changed): refused, the destination untouched. */
    loam_granular_params prm = params(1);
    loam_granular_model* other = loam_granular_model_create(&prm, &err);
    float r0 = g_radius[5];
    g_radius[5] = 0.011f;
    loam_granular_model_add_particles(other, N, g_xyz, g_vel, g_radius, 2500.0f, &err);
    g_radius[5] = r0;
    loam_body_def box = box_def(), paddle = paddle_def();
    loam_granular_model_add_body(other, &box, &err);
    loam_granular_model_add_body(other, &paddle, &err);
    loam_world* e = loam_world_create_from_model(other, &err);
    uint64_t e0 = world_digest(e);
    CHECK(loam_world_load(e, path, &err) == LOAM_ERR_INPUT && strstr(err.message, "particle 5"), "load into other particles: %s", err.message);
    CHECK(loam_world_copy_state(e, a, &err) == LOAM_ERR_INPUT && strstr(err.message, "particle 5"), "copy into other particles: %s", err.message);
    CHECK(world_digest(e) == e0, "a refused load or copy changed the world");
    remove(path);
    loam_world* rest[] = {a, b, p, c, d, e};
    for (int k = 0; k < 6; ++k) loam_world_destroy(rest[k]);
    loam_granular_model_destroy(other);
    loam_granular_model_destroy(m);
}

/* A clone of a world of loam_world_create shares its private model until one of them adds a body:
 * then that one gets a model of its own, and the other keeps its bodies. */
static void test_private_clone(void) {
    loam_error err;
    loam_world* a = make_private(1);
    loam_world* c = loam_world_clone(a, &err);
    CHECK(c && loam_world_model(c) == loam_world_model(a), "a clone shares the private model");
    loam_body_def extra = paddle_def();
    snprintf(extra.name, sizeof extra.name, "extra");
    CHECK(loam_world_add_body(c, &extra, &err) == 2, "%s", err.message);
    CHECK(loam_world_model(c) != loam_world_model(a) && loam_world_body_count(a) == 2 && loam_world_body_count(c) == 3 &&
              loam_world_find_body(a, "extra") < 0,
          "adding to the clone changed the original");
    loam_world_destroy(a);
    loam_world_destroy(c);
}

/* Worlds of one model share its particles by id and its bodies: 8 worlds of one model hold less
 * than 8 independent worlds each with a model of its own. */
static void test_memory(void) {
    loam_error err;
    loam_granular_model* m = make_model(1);
    loam_world* w = loam_world_create_from_model(m, &err);
    step(w, 2);
    size_t world = loam_world_memory(w), model = loam_granular_model_memory(m);
    CHECK(model >= (size_t)N * 8 * sizeof(float), "the model holds radius, mass, position and velocity by id: %zu bytes", model);
    size_t shared = model + 8 * world, apart = 8 * (model + world);
    CHECK(shared < apart, "8 worlds of one model: %zu bytes; 8 apart: %zu", shared, apart);
    printf("world %zu B, model %zu B (%d particles): 8 worlds of one model %zu B, 8 apart %zu B\n", world, model, N, shared, apart);
    loam_world_destroy(w);
    loam_granular_model_destroy(m);
}

int main(void) {
    make_particles();
    test_same_bits_as_private();
    test_fixed_and_lifetime();
    test_independent();
    test_threads();
    test_copy_and_files();
    test_private_clone();
    test_memory();
    TEST_MAIN_END();
}
