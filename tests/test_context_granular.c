/* Contexts (loam/core.h) for granular worlds, granular models and environments: given a context
 * with a counting allocator (params.context, config.context), every block they make is in it. The
 * process default context's counts do not move while they are created, stepped on two threads (the
 * context's count), cloned, copied, saved, loaded, viewed and destroyed; the context's count
 * returns to zero; and a world in a context steps to the bits of the same world in the default
 * context. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loam/env.h"
#include "loam/granular.h"
#include "test_counting_context.h"
#include "test_util.h"

static char g_dir[64];

/* A loose column of 1500 particles in a box of four walls and a floor, with a commanded paddle. */
static loam_granular_params column_params(loam_context* ctx) {
    loam_granular_params p = loam_granular_default_params();
    p.context = ctx;
    p.reorder_interval = 5; /* renumbering (its scratch) within the run */
    return p;
}

static void fill(loam_world* w, loam_granular_model* m, loam_error* err) {
    enum { N = 1500 };
    static float xyz[3 * N], radius[N];
    for (int i = 0; i < N; ++i) {
        xyz[3 * i] = 0.021f * (float)(i % 10) - 0.1f;
        xyz[3 * i + 1] = 0.021f * (float)((i / 10) % 10) - 0.1f;
        xyz[3 * i + 2] = 0.011f + 0.021f * (float)(i / 100);
        radius[i] = 0.01f;
    }
    loam_body_def box = loam_body_default_def();
    snprintf(box.name, sizeof box.name, "floor");
    box.shape_count = 1;
    box.shapes[0].type = LOAM_SHAPE_PLANE;
    box.shapes[0].friction = 0.5f;
    loam_body_def paddle = loam_body_default_def();
    snprintf(paddle.name, sizeof paddle.name, "paddle");
    paddle.motion = LOAM_MOTION_COMMANDED;
    paddle.shape_count = 1;
    paddle.shapes[0].type = LOAM_SHAPE_BOX;
    paddle.shapes[0].size = (loam_vec3){0.01f, 0.08f, 0.05f};
    paddle.shapes[0].friction = 0.5f;
    paddle.pose.p = (loam_vec3){-0.15f, 0.0f, 0.05f};
    if (w) {
        CHECK(loam_world_add_particles(w, N, xyz, NULL, radius, 2500.0f, err) == LOAM_OK, "add: %s", err->message);
        CHECK(loam_world_add_body(w, &box, err) >= 0 && loam_world_add_body(w, &paddle, err) >= 0, "bodies: %s", err->message);
    } else {
        CHECK(loam_granular_model_add_particles(m, N, xyz, NULL, radius, 2500.0f, err) == LOAM_OK, "model add: %s", err->message);
        CHECK(loam_granular_model_add_body(m, &box, err) >= 0 && loam_granular_model_add_body(m, &paddle, err) >= 0, "model bodies: %s",
              err->message);
    }
}

static uint64_t world_digest(loam_world* w) {
    loam_particles p = loam_world_particles(w);
    uint64_t h = TEST_DIGEST_SEED;
    const float* arrays[] = {p.x, p.y, p.z, p.vx, p.vy, p.vz};
    for (int a = 0; a < 6; ++a) h = test_digest(h, arrays[a], sizeof(float) * (size_t)p.count);
    return h;
}

/* Everything a world does, in ctx; returns the digest of its state after the steps. */
static uint64_t world_life(loam_context* ctx) {
    loam_error err;
    loam_granular_params p = column_params(ctx);
    loam_world* w = loam_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) return 0;
    CHECK(loam_world_params(w)->context == (ctx ? ctx : loam_context_default()), "the world keeps its context");
    fill(w, NULL, &err);
    loam_world_command_body(w, 1, (loam_twist){{0.3f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}, &err);
    CHECK(loam_world_step(w, 40, &err) == LOAM_OK, "step: %s", err.message);
    loam_granular_params changed = *loam_world_params(w);
    changed.context = NULL; /* ignored: the context is the world's for good */
    changed.friction = 0.4f;
    CHECK(loam_world_set_params(w, &changed, &err) == LOAM_OK && loam_world_params(w)->context == (ctx ? ctx : loam_context_default()),
          "set_params keeps the context: %s", err.message);
    loam_world* c = loam_world_clone(w, &err);
    CHECK(c != NULL, "clone: %s", err.message);
    char path[128];
    snprintf(path, sizeof path, "%s/world.state", g_dir);
    CHECK(loam_world_save(w, path, &err) == LOAM_OK, "save: %s", err.message);
    CHECK(loam_world_step(w, 20, &err) == LOAM_OK, "step: %s", err.message);
    if (c) {
        CHECK(loam_world_copy_state(c, w, &err) == LOAM_OK, "copy: %s", err.message);
        CHECK(loam_world_load(c, path, &err) == LOAM_OK, "load: %s", err.message);
        CHECK(loam_world_params(c)->context == (ctx ? ctx : loam_context_default()), "a load keeps the world's context");
        CHECK(loam_world_step(c, 20, &err) == LOAM_OK && world_digest(c) == world_digest(w), "the loaded copy steps as the world did");
    }
    uint64_t h = world_digest(w);
    loam_world_destroy(c);
    loam_world_destroy(w);
    /* A model and two worlds of it. */
    loam_granular_model* m = loam_granular_model_create(&p, &err);
    CHECK(m != NULL, "model: %s", err.message);
    if (m) {
        fill(NULL, m, &err);
        loam_world* a = loam_world_create_from_model(m, &err);
        loam_world* b = loam_world_create_from_model(m, &err);
        CHECK(a && b, "worlds of a model: %s", err.message);
        if (a && b) CHECK(loam_world_step(a, 10, &err) == LOAM_OK && loam_world_step(b, 10, &err) == LOAM_OK, "step: %s", err.message);
        loam_granular_model_destroy(m); /* the worlds keep it */
        loam_world_destroy(a);
        loam_world_destroy(b);
    }
    return h;
}

static void env_life(loam_context* ctx) {
    loam_error err;
    loam_env_config cfg = loam_env_default_config(LOAM_ENV_BULLDOZING);
    cfg.particles = 1500;
    cfg.settle_steps = 100;
    cfg.steps_per_action = 10;
    cfg.context = ctx;
    loam_env* e = loam_env_create(&cfg, &err);
    CHECK(e != NULL, "environment: %s", err.message);
    if (!e) return;
    CHECK(loam_env_get_config(e)->context == (ctx ? ctx : loam_context_default()), "the environment keeps its context");
    loam_env* f = loam_env_clone(e, &err);
    CHECK(f != NULL, "clone: %s", err.message);
    CHECK(loam_env_reset(e, 1, &err) == LOAM_OK && (!f || loam_env_reset(f, 2, &err) == LOAM_OK), "reset: %s", err.message);
    float action[2 * 8] = {0.5f, 0.1f, 0.5f, -0.1f};
    loam_env_step_info info[2];
    loam_error errs[2];
    loam_env* batch[2] = {e, f};
    if (f) {
        int dim = loam_env_action_dim(e);
        for (int k = 0; k < dim; ++k) action[dim + k] = action[k];
        CHECK(loam_env_step_batch(batch, 2, action, info, errs) == LOAM_OK, "batch: %s", errs[0].message);
    }
    CHECK(loam_env_step(e, action, &info[0], &err) == LOAM_OK, "step: %s", err.message);
    loam_image img = {64, 48, NULL, NULL};
    img.rgb = malloc(3 * 64 * 48);
    img.depth = malloc(sizeof(float) * 64 * 48);
    if (img.rgb && img.depth) CHECK(loam_env_render(e, &img, &err) == LOAM_OK, "render: %s", err.message);
    free(img.rgb);
    free(img.depth);
    char path[128];
    snprintf(path, sizeof path, "%s/env.state", g_dir);
    CHECK(loam_env_save_state(e, path, &err) == LOAM_OK, "save: %s", err.message);
    if (f) {
        CHECK(loam_env_copy_state(f, e, &err) == LOAM_OK, "copy: %s", err.message);
        CHECK(loam_env_load_state(f, path, &err) == LOAM_OK, "load: %s", err.message);
    }
    loam_env_destroy(f);
    loam_env_destroy(e);
}

static uint64_t g_plain; /* the digest of the world in the default context */

/* Case 0 a granular world (its bits those of the same world in the default context), case 1 an
 * environment. */
static void life(loam_context* ctx, int which) {
    if (which == 0) CHECK(world_life(ctx) == g_plain, "a world in a context steps to other bits than in the default context");
    else env_life(ctx);
}

static void check_counted(void) {
    g_plain = world_life(NULL);
    for (int which = 0; which < 2; ++which) check_counted_life(life, which, 2);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/loam_context_granular_%d", (int)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", g_dir);
    if (system(cmd) != 0) return 1;
    check_counted();
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) return 1;
    TEST_MAIN_END();
}
