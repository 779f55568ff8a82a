/* Environment state: copy, save and load (docs/state-files.md, kind "ENV "). An episode's state is
 * its granular world (copied whole, caches included: src/granular/state_io.c), the task's episode
 * data (scripted policy's progress, random speeds, the chain's joints, its float buffers), the
 * clock and step count, the current action, the tool force of the last action and the
 * observations. The assets (settled bed, grids, the granular model, specs) are the environment's
 * model: the same in every environment of one kind and configuration (shared by those made alike,
 * loam_env_clone), and never copied. No random generator lives
 * past a reset (populate draws everything then). */
#include <string.h>

#include "core/context.h"
#include "envs/env_internal.h"
#include "granular/state_io.h"
#include "io/state_file.h"

static size_t obs_floats(const loam_env_obs_spec* s) {
    size_t n = 1;
    for (int d = 0; d < s->rank && d < 3; ++d) n *= (size_t)s->shape[d];
    return n;
}

/* Two environments whose states fit each other: one kind, bed and observation layout. */
static loam_status same_model(const loam_env* a, const loam_env* b, const char* what, loam_error* err) {
    if (a->cfg.kind != b->cfg.kind || a->task != b->task)
        return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: a %s state into a %s environment", what, loam_env_kind_name(b->cfg.kind),
                              loam_env_kind_name(a->cfg.kind));
    if (a->bed_count != b->bed_count || a->action_dim != b->action_dim || a->obs_count != b->obs_count || a->grid_count != b->grid_count)
        return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: a bed of %d particles into one of %d (another configuration)", what,
                              b->bed_count, a->bed_count);
    for (int i = 0; i < a->obs_count; ++i)
        if (obs_floats(&a->spec[i]) != obs_floats(&b->spec[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: observation %s has %zu values, the other's %zu", what, a->spec[i].name,
                                  obs_floats(&b->spec[i]), obs_floats(&a->spec[i]));
    return LOAM_OK;
}

/* dst's task data becomes `data` (bytes of another environment's, whose buffers it must not
 * share): the task's clone hook gives it buffers of its own, then dst's old buffers go. Returns 0
 * (dst unchanged) when out of memory. */
static int take_task_data(loam_env* dst, const void* data, const loam_env* src, loam_error* err) {
    size_t size = dst->task->data_size;
    void* old = loam_malloc(size ? size : 1);
    if (!old) return 0;
    memcpy(old, dst->task_data, size);
    memcpy(dst->task_data, data, size);
    if (dst->task->clone && dst->task->clone(dst, src, err) != LOAM_OK) {
        memcpy(dst->task_data, old, size); /* nothing of dst's was freed yet */
        loam_free(old);
        return 0;
    }
    void* now = dst->task_data;
    dst->task_data = old; /* free the old buffers through the task's own hook */
    if (dst->task->destroy) dst->task->destroy(dst);
    dst->task_data = now;
    loam_free(old);
    return 1;
}

static float* task_floats(loam_env* env, size_t* n) {
    *n = 0;
    return env->task->state_floats ? env->task->state_floats(env, n) : NULL;
}

static loam_status env_copy_state(loam_env* dst, const loam_env* src, loam_error* err) {
    if (!src->world) return loam_error_set(err, LOAM_ERR_INPUT, "environment copy: the source was never reset (no episode to copy)");
    loam_status st = same_model(dst, src, "copy", err);
    if (st != LOAM_OK) return st;
    /* A world of dst's model (its grids) holding src's episode: two environments made alike share
     * one model, and two made apart have models built alike. */
    loam_world* w = loam_world_create_from_model(dst->assets->model, err);
    if (!w) return err ? err->status : LOAM_ERR_NOMEM;
    if (loam_world_copy_state(w, src->world, err) != LOAM_OK) {
        loam_world_destroy(w);
        return err ? err->status : LOAM_ERR_INPUT;
    }
    if (!take_task_data(dst, src->task_data, src, err)) {
        loam_world_destroy(w);
        return loam_error_set(err, LOAM_ERR_NOMEM, "environment copy: out of memory");
    }
    size_t n = 0, m = 0;
    const float* from = task_floats((loam_env*)src, &n);
    float* to = task_floats(dst, &m);
    if (from && to && n == m) memcpy(to, from, sizeof(float) * n);
    loam_world_destroy(dst->world);
    dst->world = w;
    dst->broken = src->broken;
    memcpy(dst->action, src->action, sizeof dst->action);
    dst->episode_time = src->episode_time;
    dst->physics_steps = src->physics_steps;
    memcpy(dst->force_sum, src->force_sum, sizeof dst->force_sum);
    dst->force_samples = src->force_samples;
    for (int i = 0; i < dst->obs_count; ++i) memcpy(dst->obs[i], src->obs[i], sizeof(float) * obs_floats(&dst->spec[i]));
    return LOAM_OK;
}

static loam_status env_save_state(const loam_env* env, const char* path, loam_error* err) {
    if (!env->world) return loam_error_set(err, LOAM_ERR_INPUT, "environment save: %s: never reset (no episode to save)", path ? path : "");
    loam_state_writer o = {0};
    uint32_t sizes[] = {(uint32_t)env->cfg.kind, (uint32_t)env->bed_count, (uint32_t)env->action_dim, (uint32_t)env->obs_count,
                        (uint32_t)env->grid_count, (uint32_t)env->task->data_size};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) loam_state_put_u32(&o, sizes[k]);
    loam_state_put_f64(&o, env->episode_time);
    loam_state_put_i64(&o, env->physics_steps);
    loam_state_put_u32(&o, (uint32_t)env->broken);
    loam_state_put_array(&o, env->action, ENV_MAX_ACTION, sizeof(float));
    loam_state_put_array(&o, env->force_sum, 3, sizeof(double));
    loam_state_put_u32(&o, (uint32_t)env->force_samples);
    /* The task's data as bytes: its pointers (a task's own buffers) mean nothing in a file, and the
     * load gives them fresh buffers (the clone hook) before the floats below fill them. */
    loam_state_put_array(&o, env->task_data, env->task->data_size, 1);
    size_t n = 0;
    const float* f = task_floats((loam_env*)env, &n);
    loam_state_put_array(&o, f, f ? n : 0, sizeof(float));
    for (int i = 0; i < env->obs_count; ++i) loam_state_put_array(&o, env->obs[i], obs_floats(&env->spec[i]), sizeof(float));
    loam_world_write_image(env->world, &o);
    loam_status st = loam_state_file_write(path, LOAM_STATE_ENV, &o, err);
    loam_state_writer_free(&o);
    return st;
}

static loam_status env_load_state(loam_env* env, const char* path, loam_error* err) {
    /* The world the file's is checked against (and whose grids it keeps): an episode of this
     * environment, started here if there is none. */
    if (!env->world) {
        loam_status st = env_reset(env, 0, err);
        if (st != LOAM_OK) return st;
    }
    loam_state_reader r;
    loam_status st = loam_state_file_open(&r, path, LOAM_STATE_ENV, err);
    if (st != LOAM_OK) return st;
    size_t data_size = env->task->data_size, nf = 0, got = 0;
    float* floats = task_floats(env, &nf);
    unsigned char* data = loam_malloc(data_size ? data_size : 1);
    float* fbuf = loam_malloc(sizeof(float) * (nf ? nf : 1));
    size_t obs_total = 0;
    for (int i = 0; i < env->obs_count; ++i) obs_total += obs_floats(&env->spec[i]);
    float* obs = loam_malloc(sizeof(float) * (obs_total ? obs_total : 1));
    double time = 0.0, force[3] = {0, 0, 0};
    int64_t steps = 0;
    uint32_t broken = 0, samples = 0;
    float action[ENV_MAX_ACTION];
    int ok = data && fbuf && obs;
    if (!ok) loam_state_fail(&r, "out of memory");
    ok = ok && loam_state_expect_u32(&r, "kind", (uint32_t)env->cfg.kind) && loam_state_expect_u32(&r, "bed_count", (uint32_t)env->bed_count) &&
         loam_state_expect_u32(&r, "action_dim", (uint32_t)env->action_dim) && loam_state_expect_u32(&r, "obs_count", (uint32_t)env->obs_count) &&
         loam_state_expect_u32(&r, "grid_count", (uint32_t)env->grid_count) && loam_state_expect_u32(&r, "task_data_size", (uint32_t)data_size);
    ok = ok && loam_state_get_f64(&r, "episode_time", &time) && loam_state_check_finite_d(&r, "episode_time", &time, 1);
    ok = ok && loam_state_get_i64(&r, "physics_steps", &steps);
    if (ok && steps < 0) ok = loam_state_fail(&r, "field physics_steps = %lld is negative", (long long)steps);
    ok = ok && loam_state_get_u32(&r, "broken", &broken);
    if (ok && broken > 1) ok = loam_state_fail(&r, "field broken = %u is not 0 or 1", broken);
    ok = ok && loam_state_get_array(&r, "action", action, ENV_MAX_ACTION, sizeof(float)) &&
         loam_state_check_finite_f(&r, "action", action, ENV_MAX_ACTION);
    for (int i = 0; ok && i < ENV_MAX_ACTION; ++i)
        if (!(action[i] >= -1.0f && action[i] <= 1.0f)) ok = loam_state_fail(&r, "field action[%d] = %g is outside [-1, 1]", i, (double)action[i]);
    ok = ok && loam_state_get_array(&r, "force_sum", force, 3, sizeof(double)) && loam_state_check_finite_d(&r, "force_sum", force, 3);
    ok = ok && loam_state_get_u32(&r, "force_samples", &samples);
    ok = ok && loam_state_get_array(&r, "task_data", data, data_size, 1);
    ok = ok && loam_state_get_array_upto(&r, "task_floats", fbuf, nf, sizeof(float), &got);
    if (ok && got != nf) ok = loam_state_fail(&r, "field task_floats: %zu values, this environment has %zu", got, nf);
    ok = ok && loam_state_check_finite_f(&r, "task_floats", fbuf, got);
    for (int i = 0, at = 0; ok && i < env->obs_count; at += (int)obs_floats(&env->spec[i]), ++i)
        ok = loam_state_get_array(&r, env->spec[i].name, obs + at, obs_floats(&env->spec[i]), sizeof(float));
    loam_world* w = ok ? loam_world_read_image(&r, env->world) : NULL;
    ok = w && loam_state_finish(&r);
    if (ok && !take_task_data(env, data, env, err)) ok = loam_state_fail(&r, "out of memory");
    if (ok) {
        floats = task_floats(env, &nf); /* the fresh buffers */
        if (floats && nf) memcpy(floats, fbuf, sizeof(float) * nf);
        loam_world_destroy(env->world);
        env->world = w;
        w = NULL;
        env->broken = (int)broken;
        memcpy(env->action, action, sizeof action);
        env->episode_time = time;
        env->physics_steps = steps;
        memcpy(env->force_sum, force, sizeof force);
        env->force_samples = (int)samples;
        for (int i = 0, at = 0; i < env->obs_count; at += (int)obs_floats(&env->spec[i]), ++i)
            memcpy(env->obs[i], obs + at, sizeof(float) * obs_floats(&env->spec[i]));
    }
    loam_world_destroy(w);
    loam_free(data);
    loam_free(fbuf);
    loam_free(obs);
    loam_state_reader_close(&r);
    if (!ok) return err && err->status != LOAM_OK ? err->status : LOAM_ERR_INPUT;
    return LOAM_OK;
}

/* Each in the environment's context (dst's for a copy), so every block it makes is counted there. */
loam_status loam_env_copy_state(loam_env* dst, const loam_env* src, loam_error* err) {
    if (!dst || !src) return loam_error_set(err, LOAM_ERR_INPUT, "environment copy: null environment");
    if (dst == src) return LOAM_OK;
    if (!env_enter(dst)) return env_busy(dst, "copy into", err);
    if (!env_enter(src)) {
        env_leave(dst);
        return env_busy(src, "copy from", err);
    }
    loam_status st;
    LOAM_IN_CONTEXT(dst->cfg.context, st = env_copy_state(dst, src, err));
    env_leave(src);
    env_leave(dst);
    return st;
}

loam_status loam_env_save_state(const loam_env* env, const char* path, loam_error* err) {
    if (!env) return loam_error_set(err, LOAM_ERR_INPUT, "environment save: null environment");
    if (!env_enter(env)) return env_busy(env, "save", err);
    loam_status st;
    LOAM_IN_CONTEXT(env->cfg.context, st = env_save_state(env, path, err));
    env_leave(env);
    return st;
}

loam_status loam_env_load_state(loam_env* env, const char* path, loam_error* err) {
    if (!env) return loam_error_set(err, LOAM_ERR_INPUT, "environment load: null environment");
    if (!env_enter(env)) return env_busy(env, "load", err);
    loam_status st;
    LOAM_IN_CONTEXT(env->cfg.context, st = env_load_state(env, path, err));
    env_leave(env);
    return st;
}
