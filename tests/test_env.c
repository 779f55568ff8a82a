/* The environments: observation shapes and bounds, seeded determinism, batch = one by one, action
 * checks, tool kinematics against exact integration, the bulldozing reward against its definition,
 * the gear tower's periodic seam keeping every particle. Small beds keep it quick. */
#include <math.h>
#include <string.h>

#include "loam/env.h"
#include "test_util.h"

static loam_env_config small(loam_env_kind kind) {
    loam_env_config c = loam_env_default_config(kind);
    c.particles = 300;
    c.settle_steps = 40;
    c.steps_per_action = 5;
    return c;
}

static loam_env* make(loam_env_kind kind, uint64_t seed) {
    loam_error err;
    loam_env_config c = small(kind);
    loam_env* e = loam_env_create(&c, &err);
    CHECK(e != NULL, "create %s: %s", loam_env_kind_name(kind), err.message);
    if (e) CHECK(loam_env_reset(e, seed, &err) == LOAM_OK, "reset: %s", err.message);
    return e;
}

static size_t elements(loam_env_obs_spec s) { return (size_t)s.shape[0] * (size_t)s.shape[1] * (size_t)s.shape[2]; }

static void check_shapes_and_bounds(loam_env* e, const int expect[][3], int count) {
    CHECK(loam_env_obs_count(e) == count, "%d observations", loam_env_obs_count(e));
    for (int i = 0; i < count && i < loam_env_obs_count(e); ++i) {
        loam_env_obs_spec s = loam_env_obs_spec_get(e, i);
        CHECK(s.shape[0] == expect[i][0] && s.shape[1] == expect[i][1] && s.shape[2] == expect[i][2],
              "%s: %dx%dx%d", s.name, s.shape[0], s.shape[1], s.shape[2]);
        const float* o = loam_env_obs_buffer(e, i);
        int bad = 0;
        for (size_t k = 0; k < elements(s); ++k) bad += !(o[k] >= s.low && o[k] <= s.high);
        CHECK(bad == 0, "%s: %d values outside [%g, %g]", s.name, bad, s.low, s.high);
    }
}

static int same_obs(loam_env* a, loam_env* b) {
    for (int i = 0; i < loam_env_obs_count(a); ++i)
        if (memcmp(loam_env_obs_buffer(a, i), loam_env_obs_buffer(b, i),
                   sizeof(float) * elements(loam_env_obs_spec_get(a, i))) != 0)
            return 0;
    return 1;
}

static void test_config_errors(void) {
    loam_error err;
    loam_env_config c = loam_env_default_config(LOAM_ENV_BULLDOZING);
    c.particles = 0;
    CHECK(loam_env_create(&c, &err) == NULL && err.status == LOAM_ERR_INPUT && strstr(err.message, "particles"),
          "particles = 0: %s", err.message);
    c = loam_env_default_config(LOAM_ENV_GEAR_TOWER);
    c.gears = 17;
    CHECK(loam_env_create(&c, &err) == NULL && strstr(err.message, "gears = 17"), "gears: %s", err.message);
    c = loam_env_default_config(LOAM_ENV_BULLDOZING);
    c.dt = NAN;
    CHECK(loam_env_create(&c, &err) == NULL && strstr(err.message, "dt"), "dt: %s", err.message);
    loam_env_kind k;
    CHECK(loam_env_kind_parse("excavation", &k) == 0 && k == LOAM_ENV_EXCAVATION, "parse");
    CHECK(loam_env_kind_parse("digging", &k) == -1, "parse unknown");
}

static void test_bulldozing(void) {
    loam_error err;
    loam_env *a = make(LOAM_ENV_BULLDOZING, 5), *b = make(LOAM_ENV_BULLDOZING, 5), *c = make(LOAM_ENV_BULLDOZING, 6);
    if (!a || !b || !c) return;
    static const int shapes[][3] = {{36, 36, 1}, {36, 72, 1}, {3, 1, 1}};
    check_shapes_and_bounds(a, shapes, 3);
    CHECK(loam_env_action_dim(a) == 2, "action dim");
    CHECK(same_obs(a, b), "same seed, same first observation");
    CHECK(!same_obs(a, c), "another seed, another start");
    loam_env* twin = loam_env_clone(c, &err);
    CHECK(twin && loam_env_reset(twin, 5, &err) == LOAM_OK && same_obs(a, twin), "a clone reset with seed 5 is a");
    loam_env_destroy(twin);

    loam_env_step_info info;
    float nan_action[2] = {NAN, 0.0f};
    CHECK(loam_env_step(a, nan_action, &info, &err) == LOAM_ERR_INPUT && strstr(err.message, "action[0]"), "NaN: %s",
          err.message);
    /* Turning on the spot integrates the yaw rate exactly; driving moves along the heading. */
    float* pose = loam_env_obs_buffer(a, 2);
    float yaw0 = pose[2], x0 = pose[0], y0 = pose[1];
    float turn[2] = {0.0f, 1.0f}, big_turn[2] = {0.0f, 7.0f};
    CHECK(loam_env_step(a, turn, &info, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_env_step(b, big_turn, NULL, &err) == LOAM_OK, "%s", err.message);
    CHECK(same_obs(a, b), "an action beyond 1 is clipped to 1");
    double t = 5 * 1e-3;
    CHECK(fabs(pose[2] - yaw0 - 1.0 * t) < 1e-5 && fabsf(pose[0] - x0) < 1e-6f && fabsf(pose[1] - y0) < 1e-6f,
          "yaw %g -> %g over %g s at 1 rad/s", yaw0, pose[2], t);
    float yaw1 = pose[2];
    x0 = pose[0];
    y0 = pose[1];
    float forward[2] = {0.4f, 0.0f};
    CHECK(loam_env_step(a, forward, &info, &err) == LOAM_OK, "%s", err.message);
    double d = 0.4 * 0.5 * t;
    CHECK(fabs(pose[0] - x0 - d * cos(yaw1)) < 1e-5 && fabs(pose[1] - y0 - d * sin(yaw1)) < 1e-5,
          "moved (%g, %g), expected %g along yaw %g", pose[0] - x0, pose[1] - y0, d, yaw1);
    CHECK(fabs(info.sim_time - 2 * t) < 1e-12 && info.realtime_factor > 0.0, "sim_time %g", info.sim_time);

    /* The reward, from its definition: +100/n inside the goal box, -d/n outside. */
    loam_particles p = loam_world_particles(loam_env_world(a));
    double want = 0.0;
    for (int i = 0; i < p.count; ++i) {
        double dx = fmax(fmax(1.0 - p.x[i], p.x[i] - 3.0), 0.0), dy = fmax(fmax(-1.0 - p.y[i], p.y[i] - 1.0), 0.0);
        want += dx == 0.0 && dy == 0.0 ? 100.0 : -sqrt(dx * dx + dy * dy);
    }
    want /= p.count;
    CHECK(fabs(info.reward - want) < 1e-6 * fmax(1.0, fabs(want)), "reward %.12g, expected %.12g", info.reward, want);

    /* A batch steps the same as one by one, bitwise. */
    loam_env* batch[2] = {make(LOAM_ENV_BULLDOZING, 11), make(LOAM_ENV_BULLDOZING, 12)};
    loam_env* single[2] = {make(LOAM_ENV_BULLDOZING, 11), make(LOAM_ENV_BULLDOZING, 12)};
    float actions[4] = {0.9f, -0.3f, 0.5f, 0.8f};
    loam_env_step_info infos[2], one;
    loam_error errs[2];
    for (int s = 0; s < 3; ++s) {
        CHECK(loam_env_step_batch(batch, 2, actions, infos, errs) == LOAM_OK, "batch: %s", errs[0].message);
        for (int i = 0; i < 2; ++i) {
            CHECK(loam_env_step(single[i], actions + 2 * i, &one, &err) == LOAM_OK, "%s", err.message);
            CHECK(one.reward == infos[i].reward, "env %d reward %g vs %g", i, one.reward, infos[i].reward);
        }
    }
    for (int i = 0; i < 2; ++i) CHECK(same_obs(batch[i], single[i]), "env %d: batch and single differ", i);
    for (int i = 0; i < 2; ++i) {
        loam_env_destroy(batch[i]);
        loam_env_destroy(single[i]);
    }

    loam_image img;
    CHECK(loam_image_alloc(&img, 64, 48, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_env_render(a, &img, &err) == LOAM_OK, "render: %s", err.message);
    int differ = 0;
    for (int k = 3; k < 3 * 64 * 48; ++k) differ += img.rgb[k] != img.rgb[k % 3];
    CHECK(differ > 100, "the picture is not blank (%d)", differ);
    loam_image_destroy(&img);
    loam_env_destroy(a);
    loam_env_destroy(b);
    loam_env_destroy(c);
}

static void test_excavation(void) {
    loam_error err;
    loam_env* e = make(LOAM_ENV_EXCAVATION, 2);
    if (!e) return;
    static const int shapes[][3] = {{14, 1, 1}, {44, 44, 1}};
    check_shapes_and_bounds(e, shapes, 2);
    CHECK(loam_env_action_dim(e) == 7, "action dim");
    /* Joint 1 at 0.1 of its speed limit (2.175 rad/s) for 5 steps of 0.5 ms. */
    float q0 = loam_env_obs_buffer(e, 0)[0];
    float a[7] = {0.1f, 0, 0, 0, 0, 0, 0};
    loam_env_step_info info;
    CHECK(loam_env_step(e, a, &info, &err) == LOAM_OK, "%s", err.message);
    const float* j = loam_env_obs_buffer(e, 0);
    CHECK(fabsf(j[0] - q0 - 0.2175f * 5 * 5e-4f) < 1e-6f && fabsf(j[7] - 0.2175f) < 1e-6f, "q %g -> %g, qd %g", q0, j[0],
          j[7]);
    CHECK(isfinite(info.tool_force[0]) && isfinite(info.tool_force[2]) && info.progress >= 0.0, "info");
    loam_env_destroy(e);
}

static void test_gear_tower(void) {
    loam_error err;
    loam_env* first = make(LOAM_ENV_GEAR_TOWER, 4);
    if (!first) return;
    loam_env* e = loam_env_clone(first, &err); /* the clone owns its own buffers: */
    loam_env_destroy(first);                   /* it must outlive its source */
    CHECK(e && loam_env_reset(e, 4, &err) == LOAM_OK, "clone: %s", err.message);
    if (!e) return;
    static const int shapes[][3] = {{4, 1, 1}, {32, 1, 1}};
    check_shapes_and_bounds(e, shapes, 2);
    float a[4];
    loam_env_scripted_action(e, a);
    const loam_granular_params* p = loam_world_params(loam_env_world(e));
    CHECK(p->periodic_axis == 2, "periodic in z");
    loam_env_step_info info;
    for (int s = 0; s < 20; ++s) CHECK(loam_env_step(e, a, &info, &err) == LOAM_OK, "%s", err.message);
    loam_particles pp = loam_world_particles(loam_env_world(e));
    int outside = 0;
    for (int i = 0; i < pp.count; ++i) outside += !(pp.z[i] >= p->periodic_lo && pp.z[i] < p->periodic_hi);
    CHECK(pp.count == 300 && outside == 0, "%d particles, %d outside the periodic interval", pp.count, outside);
    double sum = 0.0;
    for (int b = 0; b < 32; ++b) sum += loam_env_obs_buffer(e, 1)[b];
    CHECK(fabs(sum - 1.0) < 1e-5, "the profile sums to %g", sum);
    CHECK(info.progress >= 0.0 && info.progress <= 1.0 && info.reward == info.progress, "progress %g", info.progress);
    loam_env_destroy(e);
}

int main(void) {
    loam_set_threads(2);
    test_config_errors();
    test_bulldozing();
    test_excavation();
    test_gear_tower();
    TEST_MAIN_END();
}
