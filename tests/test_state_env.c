/* Environment state copy, save and load (docs/state-files.md): for every kind, an episode driven by
 * the scripted policy, saved and copied mid-way, steps on from the copy, from the file loaded into
 * a fresh environment, and from the file loaded back into the same environment later (resetting
 * to a saved state) to the same observations, rewards and particle bytes as never stopping.
 * Truncated or corrupted files are clean errors naming the file; another kind refuses the file. */
#include <string.h>

#include "loam/env.h"
#include "state_test_util.h"

enum { MAX_STEPS = 8, MAX_OBS_FLOATS = 1 << 16 };

typedef struct trace {
    double reward[MAX_STEPS];
    float* obs;          /* the last step's observations, all of them */
    size_t obs_count;
    float* xyz;          /* particles by slot after the last step */
    int n;
} trace;

static size_t elements(loam_env_obs_spec s) {
    size_t n = 1;
    for (int d = 0; d < s.rank; ++d) n *= (size_t)s.shape[d];
    return n;
}

/* Step the scripted policy `steps` actions, recording what a host sees. */
static int play(loam_env* e, int steps, trace* t) {
    loam_error err;
    float action[LOAM_ENV_MAX_ACTION];
    for (int s = 0; s < steps; ++s) {
        loam_env_step_info info;
        loam_env_scripted_action(e, action);
        if (loam_env_step(e, action, &info, &err) != LOAM_OK) {
            CHECK(0, "step %d: %s", s, err.message);
            return 0;
        }
        if (t) t->reward[s] = info.reward;
    }
    if (!t) return 1;
    size_t at = 0;
    for (int i = 0; i < loam_env_obs_count(e); ++i) {
        size_t n = elements(loam_env_obs_spec_get(e, i));
        t->obs = realloc(t->obs, sizeof(float) * (at + n));
        memcpy(t->obs + at, loam_env_obs_buffer(e, i), sizeof(float) * n);
        at += n;
    }
    t->obs_count = at;
    loam_particles p = loam_world_particles(loam_env_world(e));
    t->n = p.count;
    t->xyz = realloc(t->xyz, sizeof(float) * 3 * (size_t)p.count);
    for (int k = 0; k < p.count; ++k) t->xyz[3 * k] = p.x[k], t->xyz[3 * k + 1] = p.y[k], t->xyz[3 * k + 2] = p.z[k];
    return 1;
}

static int same(const trace* a, const trace* b, int steps) {
    return !memcmp(a->reward, b->reward, sizeof(double) * (size_t)steps) && a->obs_count == b->obs_count &&
           !memcmp(a->obs, b->obs, sizeof(float) * a->obs_count) && a->n == b->n && !memcmp(a->xyz, b->xyz, sizeof(float) * 3 * (size_t)a->n);
}

static loam_status env_load(void* ctx, const char* path, loam_error* err) { return loam_env_load_state(ctx, path, err); }

static void round_trip(loam_env_kind kind, int before, int after) {
    loam_error err;
    const char* name = loam_env_kind_name(kind);
    char path[256], bad[256];
    snprintf(path, sizeof path, "test_state_env_%s.state", name);
    snprintf(bad, sizeof bad, "test_state_env_%s.bad", name);
    loam_env_config c = loam_env_default_config(kind);
    c.particles = 300, c.settle_steps = 40, c.steps_per_action = 5;
    loam_env* e = loam_env_create(&c, &err);
    CHECK(e, "create %s: %s", name, err.message);
    if (!e) return;
    loam_env *copy = loam_env_clone(e, &err), *fresh = loam_env_clone(e, &err);
    trace ref = {0}, t_copy = {0}, t_fresh = {0}, t_again = {0};
    CHECK(loam_env_reset(e, 7, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_env_save_state(e, "x/y/z/never.state", &err) == LOAM_ERR_IO, "an unwritable path: %s", err.message);
    if (!play(e, before, NULL)) return;
    CHECK(loam_env_save_state(e, path, &err) == LOAM_OK, "%s", err.message);
    CHECK(loam_env_copy_state(copy, e, &err) == LOAM_OK, "%s", err.message);
    play(e, after, &ref); /* the reference: never stopped */
    CHECK(loam_env_load_state(fresh, path, &err) == LOAM_OK, "%s: %s", name, err.message);
    play(fresh, after, &t_fresh);
    play(copy, after, &t_copy);
    CHECK(same(&ref, &t_fresh, after), "%s: a loaded environment steps to other observations or bytes than never stopping", name);
    CHECK(same(&ref, &t_copy, after), "%s: a copied environment steps to other observations or bytes than never stopping", name);
    /* Back to the saved state in the environment that went on (a reset to a saved state). */
    play(e, 2, NULL);
    CHECK(loam_env_load_state(e, path, &err) == LOAM_OK, "%s", err.message);
    play(e, after, &t_again);
    CHECK(same(&ref, &t_again, after), "%s: reset to the saved state steps to other bytes", name);
    /* and the comparison can fail: an episode one action further is other bytes */
    play(e, 1, &t_again);
    CHECK(!same(&ref, &t_again, 1), "%s: the comparison cannot tell episodes apart", name);
    state_check_bad_files(path, bad, env_load, fresh);
    loam_env_config oc = loam_env_default_config(kind == LOAM_ENV_BULLDOZING ? LOAM_ENV_GEAR_TOWER : LOAM_ENV_BULLDOZING);
    oc.particles = 100, oc.settle_steps = 1;
    loam_env* other = loam_env_create(&oc, &err);
    if (other) {
        loam_status st = loam_env_load_state(other, path, &err);
        CHECK(st == LOAM_ERR_INPUT && strstr(err.message, path) && strstr(err.message, "kind"), "another kind: %s", err.message);
        CHECK(loam_env_copy_state(other, e, &err) == LOAM_ERR_INPUT, "a copy into another kind: %s", err.message);
    }
    loam_env_destroy(other);
    free(ref.obs), free(ref.xyz), free(t_copy.obs), free(t_copy.xyz), free(t_fresh.obs), free(t_fresh.xyz), free(t_again.obs), free(t_again.xyz);
    loam_env_destroy(e);
    loam_env_destroy(copy);
    loam_env_destroy(fresh);
    remove(path);
}

int main(void) {
    round_trip(LOAM_ENV_BULLDOZING, 4, 4);
    round_trip(LOAM_ENV_GEAR_TOWER, 4, 4);
    round_trip(LOAM_ENV_EXCAVATION, 4, 4);
    TEST_MAIN_END();
}
