/* Host threads (pthreads, not OpenMP) stepping different objects at once: a granular world and an
 * environment, each on two OpenMP threads of its own, stepped together must give the bytes each
 * gives stepped alone (a race on shared thread state would change them, or trip ThreadSanitizer in
 * the CI's TSan stage). Also: a batch step handed one environment twice is refused, naming both
 * places; an environment's thread count changes no bit; and two host threads calling one
 * environment each either run or are refused, never race. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "loam/env.h"
#include "test_util.h"

static uint64_t world_digest(loam_world* w) {
    loam_particles p = loam_world_particles(w);
    uint64_t h = TEST_DIGEST_SEED;
    size_t n = (size_t)p.count * sizeof(float);
    h = test_digest(h, p.x, n);
    h = test_digest(h, p.y, n);
    h = test_digest(h, p.z, n);
    h = test_digest(h, p.vx, n);
    h = test_digest(h, p.vy, n);
    return test_digest(h, p.vz, n);
}

/* A pile of 1500 particles dropped into an open box: many contacts, every stage of the step. */
typedef struct granular_job {
    int threads, steps;
    uint64_t digest;
    int failed;
} granular_job;

static void* run_granular(void* arg) {
    granular_job* job = arg;
    loam_granular_params prm = loam_granular_default_params();
    prm.threads = job->threads;
    loam_error err;
    loam_world* w = loam_world_create(&prm, &err);
    if (!w) {
        job->failed = 1;
        return NULL;
    }
    loam_body_def box = loam_body_default_def();
    box.shape_count = loam_open_box_pieces((loam_vec3){0.3f, 0.3f, 0.4f}, 0.02f, 0.5f, box.shapes);
    if (loam_world_add_body(w, &box, &err) < 0) job->failed = 1;
    enum { N = 1500 };
    static float xyz[3 * N], radius[N];
    for (int i = 0; i < N; ++i) {
        xyz[3 * i] = -0.1f + 0.021f * (float)(i % 10);
        xyz[3 * i + 1] = -0.1f + 0.021f * (float)((i / 10) % 10);
        xyz[3 * i + 2] = 0.02f + 0.021f * (float)(i / 100) + 0.0005f * (float)(i % 7);
        radius[i] = 0.01f;
    }
    if (loam_world_add_particles(w, N, xyz, NULL, radius, 2500.0f, &err) != LOAM_OK) job->failed = 1;
    for (int s = 0; s < job->steps && !job->failed; ++s)
        if (loam_world_step(w, 1, &err) != LOAM_OK) job->failed = 1;
    job->digest = world_digest(w);
    loam_world_destroy(w);
    return NULL;
}

typedef struct env_job {
    int threads, actions;
    uint64_t digest;
    int failed;
} env_job;

static void* run_env(void* arg) {
    env_job* job = arg;
    loam_env_config c = loam_env_default_config(LOAM_ENV_BULLDOZING);
    c.particles = 800;
    c.settle_steps = 40;
    c.steps_per_action = 10;
    c.threads = job->threads;
    loam_error err;
    loam_env* e = loam_env_create(&c, &err);
    if (!e || loam_env_reset(e, 7, &err) != LOAM_OK) {
        fprintf(stderr, "environment: %s\n", err.message);
        job->failed = 1;
        loam_env_destroy(e);
        return NULL;
    }
    float action[LOAM_ENV_MAX_ACTION] = {0};
    for (int k = 0; k < job->actions && !job->failed; ++k) {
        action[0] = 0.8f;
        action[1] = k % 2 ? 0.3f : -0.3f;
        if (loam_env_step(e, action, NULL, &err) != LOAM_OK) job->failed = 1;
    }
    uint64_t h = world_digest(loam_env_world(e));
    for (int i = 0; i < loam_env_obs_count(e); ++i) {
        loam_env_obs_spec s = loam_env_obs_spec_get(e, i);
        h = test_digest(h, loam_env_obs_buffer(e, i), sizeof(float) * (size_t)s.shape[0] * (size_t)s.shape[1] * (size_t)s.shape[2]);
    }
    job->digest = h;
    loam_env_destroy(e);
    return NULL;
}

static void test_two_host_threads(void) {
    granular_job g_alone = {2, 150, 0, 0}, g_together = g_alone, g_one = {1, 150, 0, 0};
    env_job e_alone = {2, 6, 0, 0}, e_together = e_alone, e_one = {1, 6, 0, 0};
    run_granular(&g_alone);
    run_env(&e_alone);
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, run_granular, &g_together) == 0, "pthread_create");
    CHECK(pthread_create(&b, NULL, run_env, &e_together) == 0, "pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK(!g_alone.failed && !g_together.failed && !e_alone.failed && !e_together.failed, "a run failed");
    CHECK(g_together.digest == g_alone.digest, "granular world: %016llx together, %016llx alone",
          (unsigned long long)g_together.digest, (unsigned long long)g_alone.digest);
    CHECK(e_together.digest == e_alone.digest, "environment: %016llx together, %016llx alone",
          (unsigned long long)e_together.digest, (unsigned long long)e_alone.digest);
    /* and per-object thread counts change no bit */
    run_granular(&g_one);
    run_env(&e_one);
    CHECK(g_one.digest == g_alone.digest, "granular world: one thread %016llx, two %016llx",
          (unsigned long long)g_one.digest, (unsigned long long)g_alone.digest);
    CHECK(e_one.digest == e_alone.digest, "environment: one thread %016llx, two %016llx",
          (unsigned long long)e_one.digest, (unsigned long long)e_alone.digest);
}

static void test_batch_duplicate(void) {
    loam_env_config c = loam_env_default_config(LOAM_ENV_GEAR_TOWER);
    c.particles = 200;
    c.settle_steps = 5;
    c.steps_per_action = 2;
    loam_error err;
    loam_env* e = loam_env_create(&c, &err);
    CHECK(e != NULL, "create: %s", err.message);
    if (!e) return;
    loam_env* other = loam_env_clone(e, &err);
    CHECK(other != NULL, "clone: %s", err.message);
    CHECK(loam_env_reset(e, 1, &err) == LOAM_OK && loam_env_reset(other, 2, &err) == LOAM_OK, "reset: %s", err.message);
    double before = loam_world_time(loam_env_world(e));
    loam_env* envs[3] = {e, other, e};
    float actions[3 * LOAM_ENV_MAX_ACTION] = {0};
    loam_env_step_info infos[3];
    loam_error errs[3];
    memset(errs, 0, sizeof errs);
    loam_status st = loam_env_step_batch(envs, 3, actions, infos, errs);
    CHECK(st == LOAM_ERR_INPUT, "status %d", (int)st);
    CHECK(strstr(errs[2].message, "envs[0]") && strstr(errs[2].message, "envs[2]"), "message: '%s'", errs[2].message);
    CHECK(loam_world_time(loam_env_world(e)) == before, "the batch stepped anyway");
    /* the same two, each once, step */
    CHECK(loam_env_step_batch(envs, 2, actions, infos, errs) == LOAM_OK, "%s", errs[0].message);
    CHECK(loam_env_set_threads(e, -1, &err) == LOAM_ERR_INPUT && strstr(err.message, "threads = -1"), "%s", err.message);
    CHECK(loam_env_set_threads(e, 1, &err) == LOAM_OK && loam_env_get_config(e)->threads == 1, "%s", err.message);
    loam_env_destroy(other);
    loam_env_destroy(e);
}

/* Two host threads on ONE environment: each call either runs or is refused (one thread at a time
 * per environment), never a race; the world has taken exactly the steps of the calls that ran. */
typedef struct shared_job {
    loam_env* env;
    int calls, ran, refused, other;
} shared_job;

static void* run_shared(void* arg) {
    shared_job* job = arg;
    float action[LOAM_ENV_MAX_ACTION] = {0.5f, 0.2f};
    for (int k = 0; k < job->calls; ++k) {
        loam_error err;
        loam_status st = loam_env_step(job->env, action, NULL, &err);
        if (st == LOAM_OK) job->ran++;
        else if (st == LOAM_ERR_INPUT && strstr(err.message, "another thread")) job->refused++;
        else job->other++;
        if (k % 4 == 0) { /* the other entry points refuse the same way */
            loam_image img = {16, 12, NULL, NULL};
            static _Thread_local uint8_t rgb[3 * 16 * 12];
            static _Thread_local float depth[16 * 12];
            img.rgb = rgb, img.depth = depth;
            st = loam_env_render(job->env, &img, &err);
            if (st != LOAM_OK && !(st == LOAM_ERR_INPUT && strstr(err.message, "another thread"))) job->other++;
        }
    }
    return NULL;
}

static void test_one_env_two_threads(void) {
    loam_env_config c = loam_env_default_config(LOAM_ENV_BULLDOZING);
    c.particles = 300;
    c.settle_steps = 10;
    c.steps_per_action = 3;
    c.threads = 1;
    loam_error err;
    loam_env* e = loam_env_create(&c, &err);
    CHECK(e && loam_env_reset(e, 3, &err) == LOAM_OK, "environment: %s", err.message);
    if (!e) return;
    shared_job a = {e, 60, 0, 0, 0}, b = a;
    pthread_t ta, tb;
    int made_a = pthread_create(&ta, NULL, run_shared, &a) == 0, made_b = pthread_create(&tb, NULL, run_shared, &b) == 0;
    CHECK(made_a && made_b, "pthread_create");
    if (made_a) pthread_join(ta, NULL);
    if (made_b) pthread_join(tb, NULL);
    CHECK(a.other == 0 && b.other == 0, "a call on a shared environment failed otherwise than refused: %d, %d", a.other, b.other);
    CHECK(a.ran + a.refused == 60 && b.ran + b.refused == 60 && a.ran + b.ran > 0, "calls: %d + %d ran, %d + %d refused", a.ran, b.ran,
          a.refused, b.refused);
    long long steps = (long long)loam_world_step_index(loam_env_world(e));
    CHECK(steps == 3LL * (a.ran + b.ran), "the world took %lld physics steps for %d actions that ran", steps, a.ran + b.ran);
    loam_env_destroy(e);
}

int main(void) {
    test_two_host_threads();
    test_batch_duplicate();
    test_one_env_two_threads();
    TEST_MAIN_END();
}
