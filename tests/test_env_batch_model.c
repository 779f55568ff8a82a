/* A batch of environments made alike (loam_env_clone) shares one granular model, bed and grids
 * (issue 24, item 4), and steps to the bits of independent environments (each built and settled by
 * loam_env_create): every kind, stepped together by loam_env_step_batch against one by one. The
 * batch outlives the environment it was cloned from. */
#include <stdint.h>
#include <string.h>

#include "loam/env.h"
#include "test_util.h"

enum { B = 3, ACTIONS = 4 };

/* The world (particles, bodies, clock) and every observation. */
static uint64_t env_digest(loam_env* e) {
    loam_world* w = loam_env_world(e);
    loam_particles p = loam_world_particles(w);
    uint64_t h = TEST_DIGEST_SEED;
    size_t n = (size_t)p.count * sizeof(float);
    const void* arrays[] = {p.x, p.y, p.z, p.vx, p.vy, p.vz, p.id};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) h = test_digest(h, arrays[k], n);
    for (int b = 0; b < loam_world_body_count(w); ++b) h = test_digest(h, loam_world_body_state(w, b), sizeof(loam_body_state));
    for (int i = 0; i < loam_env_obs_count(e); ++i) {
        loam_env_obs_spec s = loam_env_obs_spec_get(e, i);
        h = test_digest(h, loam_env_obs_buffer(e, i), sizeof(float) * (size_t)s.shape[0] * (size_t)s.shape[1] * (size_t)s.shape[2]);
    }
    return h;
}

static void test_kind(loam_env_kind kind) {
    loam_error err;
    loam_env_config c = loam_env_default_config(kind);
    c.particles = 300;
    c.settle_steps = 40;
    c.steps_per_action = 5;
    c.threads = 1;
    loam_env* first = loam_env_create(&c, &err);
    CHECK(first != NULL, "%s: %s", loam_env_kind_name(kind), err.message);
    if (!first) return;
    loam_env *batch[B], *apart[B];
    for (int k = 0; k < B; ++k) {
        batch[k] = loam_env_clone(first, &err);
        apart[k] = loam_env_create(&c, &err);
        CHECK(batch[k] && apart[k], "%s: %s", loam_env_kind_name(kind), err.message);
        if (!batch[k] || !apart[k]) return;
    }
    loam_env_destroy(first); /* the batch keeps the shared assets alive */
    for (int k = 0; k < B; ++k) {
        CHECK(loam_env_reset(batch[k], 10 + (uint64_t)k, &err) == LOAM_OK, "%s", err.message);
        CHECK(loam_env_reset(apart[k], 10 + (uint64_t)k, &err) == LOAM_OK, "%s", err.message);
    }
    const loam_granular_model* shared = loam_world_model(loam_env_world(batch[0]));
    for (int k = 1; k < B; ++k)
        CHECK(loam_world_model(loam_env_world(batch[k])) == shared, "%s: batch env %d has a model of its own", loam_env_kind_name(kind), k);
    CHECK(loam_world_model(loam_env_world(apart[0])) != shared, "independent environments share a model");
    CHECK(loam_granular_model_particle_count(shared) == c.particles, "the model holds the bed: %d", loam_granular_model_particle_count(shared));
    int dim = loam_env_action_dim(batch[0]);
    float actions[B * 16];
    loam_env_step_info infos[B], info;
    loam_error errs[B];
    for (int a = 0; a < ACTIONS; ++a) {
        for (int k = 0; k < B; ++k) loam_env_scripted_action(apart[k], actions + k * dim);
        CHECK(loam_env_step_batch(batch, B, actions, infos, errs) == LOAM_OK, "batch: %s", errs[0].message);
        for (int k = 0; k < B; ++k) {
            CHECK(loam_env_step(apart[k], actions + k * dim, &info, &err) == LOAM_OK, "%s", err.message);
            CHECK(env_digest(batch[k]) == env_digest(apart[k]), "%s: env %d after action %d: the batch and an independent env differ",
                  loam_env_kind_name(kind), k, a);
            CHECK(infos[k].reward == info.reward, "%s: reward %g against %g", loam_env_kind_name(kind), infos[k].reward, info.reward);
        }
    }
    CHECK(env_digest(batch[0]) != env_digest(batch[1]), "%s: two seeds gave one episode", loam_env_kind_name(kind));
    for (int k = 0; k < B; ++k) {
        loam_env_destroy(batch[k]);
        loam_env_destroy(apart[k]);
    }
}

int main(void) {
    test_kind(LOAM_ENV_BULLDOZING);
    test_kind(LOAM_ENV_GEAR_TOWER);
    test_kind(LOAM_ENV_EXCAVATION);
    TEST_MAIN_END();
}
