/* The environment loop shared by every task: configuration, reset from the settled bed, actions
 * held for steps_per_action physics steps, observations, batches stepped in parallel. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/context.h"
#include "core/threads.h"
#include "envs/env_internal.h"
#include "granular/model_build.h"

static const env_task* task_of(loam_env_kind kind) {
    switch (kind) {
        case LOAM_ENV_BULLDOZING: return &env_bulldozing_task;
        case LOAM_ENV_GEAR_TOWER: return &env_gear_tower_task;
        case LOAM_ENV_EXCAVATION: return &env_excavation_task;
        default: return NULL;
    }
}

const char* loam_env_kind_name(loam_env_kind kind) {
    static const char* names[] = {"bulldozing", "gear_tower", "excavation"};
    return kind >= 0 && kind < LOAM_ENV_KIND_COUNT ? names[kind] : "unknown";
}

int loam_env_kind_parse(const char* name, loam_env_kind* kind) {
    if (!name) return -1;
    for (int k = 0; k < LOAM_ENV_KIND_COUNT; ++k)
        if (strcmp(name, loam_env_kind_name((loam_env_kind)k)) == 0) {
            *kind = (loam_env_kind)k;
            return 0;
        }
    if (strcmp(name, "geartower") == 0) {
        *kind = LOAM_ENV_GEAR_TOWER;
        return 0;
    }
    return -1;
}

/* The environment's thread count: config.threads, or its context's where that is 0 (then the process
 * default, which loam_team resolves). */
static int env_threads(const loam_env* env) { return loam_ctx_threads(env->cfg.context, env->cfg.threads); }

loam_env_config loam_env_default_config(loam_env_kind kind) {
    loam_env_config c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.particles = 10000;
    c.radius = 0.02f;
    c.density = 2500.0f;
    c.friction = 0.5f;
    c.dt = 1e-3;
    c.sweeps = 3;
    c.steps_per_action = 100;
    c.episode_time = 60.0;
    c.gears = 4;
    c.max_gear_speed = 10.0f;
    c.max_speed = 0.5f;
    c.max_yaw_rate = 1.0f;
    c.observe = 1;
    c.settle_steps = 600;
    c.sleep_speed = 0.01f;
    c.seed = 1;
    if (kind == LOAM_ENV_GEAR_TOWER) {
        c.particles = 20000;
        c.radius = 0.004f;
        c.episode_time = 10.0;
        c.settle_steps = 200;
    } else if (kind == LOAM_ENV_EXCAVATION) {
        c.radius = 0.008f;
        c.dt = 5e-4;
        c.episode_time = 20.0;
        c.settle_steps = 1000;
    }
    return c;
}

loam_status loam_env_config_validate(const loam_env_config* c, loam_error* err) {
    if (!c) return loam_error_set(err, LOAM_ERR_INPUT, "environment: null config");
    if (!task_of(c->kind)) return loam_error_set(err, LOAM_ERR_INPUT, "environment: kind = %d is not one of 0, 1, 2", c->kind);
#define CHECK(cond, field, fmt, value, expect)                                                                  \
    if (!(cond))                                                                                              \
        return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: %s = " fmt " (expected %s)",              \
                              loam_env_kind_name(c->kind), field, value, expect)
    CHECK(c->particles >= 1 && c->particles <= 20000000, "particles", "%d", c->particles, "1 .. 2e7");
    CHECK(isfinite(c->radius) && c->radius >= 1e-4f && c->radius <= 0.1f, "radius", "%g", c->radius, "1e-4 .. 0.1 m");
    CHECK(isfinite(c->density) && c->density > 0.0f, "density", "%g", c->density, "> 0 kg/m^3");
    CHECK(isfinite(c->friction) && c->friction >= 0.0f && c->friction <= 10.0f, "friction", "%g", c->friction, "0 .. 10");
    CHECK(isfinite(c->dt) && c->dt > 0.0 && c->dt <= 0.01, "dt", "%g", c->dt, "in (0, 0.01] s");
    CHECK(c->sweeps >= 1 && c->sweeps <= 1000, "sweeps", "%d", c->sweeps, "1 .. 1000");
    CHECK(c->steps_per_action >= 1 && c->steps_per_action <= 100000, "steps_per_action", "%d", c->steps_per_action,
          "1 .. 1e5");
    CHECK(isfinite(c->episode_time) && c->episode_time > 0.0, "episode_time", "%g", c->episode_time, "> 0 s");
    CHECK(c->gears >= 1 && c->gears <= 16, "gears", "%d", c->gears, "1 .. 16");
    CHECK(isfinite(c->max_gear_speed) && c->max_gear_speed >= 0.0f && c->max_gear_speed <= 1000.0f, "max_gear_speed",
          "%g", c->max_gear_speed, "0 .. 1000 rad/s");
    CHECK(isfinite(c->max_speed) && c->max_speed >= 0.0f && c->max_speed <= 10.0f, "max_speed", "%g", c->max_speed,
          "0 .. 10 m/s");
    CHECK(isfinite(c->max_yaw_rate) && c->max_yaw_rate >= 0.0f && c->max_yaw_rate <= 20.0f, "max_yaw_rate", "%g",
          c->max_yaw_rate, "0 .. 20 rad/s");
    CHECK(c->threads >= 0 && c->threads <= 4096, "threads", "%d", c->threads, "0 (all cores) .. 4096");
    CHECK(c->hash_table_size >= 0, "hash_table_size", "%d", c->hash_table_size, ">= 0 (0 = 2 N)");
    CHECK(c->observe == 0 || c->observe == 1, "observe", "%d", c->observe, "0 or 1");
    CHECK(c->settle_steps >= 0 && c->settle_steps <= 1000000, "settle_steps", "%d", c->settle_steps, "0 .. 1e6");
    CHECK(isfinite(c->sleep_speed) && c->sleep_speed >= 0.0f && c->sleep_speed <= 10.0f, "sleep_speed", "%g",
          c->sleep_speed, "0 .. 10 m/s");
#undef CHECK
    return LOAM_OK;
}

float env_clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

float env_yaw(loam_quat q) {
    return atan2f(2.0f * (q.w * q.z + q.x * q.y), 1.0f - 2.0f * (q.y * q.y + q.z * q.z));
}

void env_add_obs(loam_env* env, const char* name, int rank, int d0, int d1, int d2, float low, float high) {
    loam_env_obs_spec* s = &env->spec[env->obs_count++];
    s->name = name;
    s->rank = rank;
    s->shape[0] = d0;
    s->shape[1] = rank > 1 ? d1 : 1;
    s->shape[2] = rank > 2 ? d2 : 1;
    s->low = low;
    s->high = high;
}

static size_t obs_elements(const loam_env_obs_spec* s) {
    return (size_t)s->shape[0] * (size_t)s->shape[1] * (size_t)s->shape[2];
}

loam_status env_alloc_obs(loam_env* env, loam_error* err) {
    for (int i = 0; i < env->obs_count; ++i) {
        env->obs[i] = loam_calloc(obs_elements(&env->spec[i]), sizeof(float));
        if (!env->obs[i]) return loam_error_set(err, LOAM_ERR_NOMEM, "environment: out of memory for observations");
    }
    return LOAM_OK;
}

int env_add_grid(loam_env* env, const loam_mesh* mesh, float cell, float margin, loam_error* err) {
    if (env->grid_count >= ENV_MAX_GRIDS) {
        loam_error_set(err, LOAM_ERR_INTERNAL, "environment: more than %d grids", ENV_MAX_GRIDS);
        return -1;
    }
    char cache[1024];
    loam_sdf_cache_dir(cache, sizeof cache);
    loam_sdf_grid* g = &env->assets->grids[env->grid_count];
    if (loam_sdf_grid_build_cached(mesh, cell, margin, cache[0] ? cache : NULL, g, NULL, err) != LOAM_OK) return -1;
    env->assets->grid_count = env->grid_count + 1;
    return env->grid_count++;
}

/* Fractional part of a hash, in [0, 1). */
static float jitter01(uint64_t seed, int i, int axis) {
    loam_rng r = {seed ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)axis << 56)};
    return (float)loam_rng_uniform(&r);
}

int env_lattice(loam_vec3 lo, loam_vec3 hi, float r, int n, uint64_t seed,
                int (*keep)(const void* ctx, loam_vec3 p), const void* ctx, float* xyz) {
    /* Spacing 2.1 r with a jitter of 0.04 r: no two spheres start touching, and the jitter breaks the
     * lattice's symmetry so the bed settles into a random packing. */
    float sp = 2.1f * r, jit = 0.04f * r;
    int nx = (int)floorf((hi.x - lo.x - 2.0f * r) / sp) + 1, ny = (int)floorf((hi.y - lo.y - 2.0f * r) / sp) + 1;
    int nz = (int)floorf((hi.z - lo.z - 2.0f * r) / sp) + 1;
    if (nx < 1 || ny < 1 || nz < 1) return 0;
    int placed = 0;
    for (int k = 0; k < nz && placed < n; ++k)
        for (int j = 0; j < ny && placed < n; ++j)
            for (int i = 0; i < nx && placed < n; ++i) {
                /* Odd layers sit over the hollows of even ones, so the bed settles into a random
                 * packing rather than standing as a (metastable) cubic stack. */
                float shift = (k & 1) ? 0.5f * sp : 0.0f;
                loam_vec3 p = {lo.x + r + (float)i * sp + shift, lo.y + r + (float)j * sp + shift, lo.z + r + (float)k * sp};
                if (p.x > hi.x - r || p.y > hi.y - r) continue;
                if (keep && !keep(ctx, p)) continue;
                xyz[3 * placed] = p.x + jit * (2.0f * jitter01(seed, placed, 0) - 1.0f);
                xyz[3 * placed + 1] = p.y + jit * (2.0f * jitter01(seed, placed, 1) - 1.0f);
                xyz[3 * placed + 2] = p.z + jit * (2.0f * jitter01(seed, placed, 2) - 1.0f);
                ++placed;
            }
    return placed;
}

static loam_status add_particles(loam_world* w, int n, const float* xyz, const float* radius, float density,
                                 loam_error* err) {
    return loam_world_add_particles(w, n, xyz, NULL, radius, density, err);
}

loam_status env_bed_settle(loam_env* env, const float* xyz, int n, float r, env_add_bodies_fn confined,
                           env_add_bodies_fn released, loam_error* err) {
    env_assets* a = env->assets;
    float* bed_xyz = a->bed_xyz = loam_malloc(sizeof(float) * 3 * (size_t)n);
    float* bed_radius = a->bed_radius = loam_malloc(sizeof(float) * (size_t)n);
    a->bed_count = env->bed_count = n;
    env->bed_xyz = bed_xyz;
    env->bed_radius = bed_radius;
    if (!bed_xyz || !bed_radius) return loam_error_set(err, LOAM_ERR_NOMEM, "environment: out of memory for the bed");
    for (int i = 0; i < n; ++i) bed_radius[i] = r;
    memcpy(bed_xyz, xyz, sizeof(float) * 3 * (size_t)n);
    if (env->cfg.settle_steps == 0) return LOAM_OK;
    /* Settling is damped so the bed comes to rest in few steps; the episodes run undamped. */
    loam_granular_params p = env->params;
    p.damping = 5.0f;
    loam_world* w = loam_world_create(&p, err);
    if (!w) return err ? err->status : LOAM_ERR_NOMEM;
    loam_status st = add_particles(w, n, xyz, env->bed_radius, env->cfg.density, err);
    if (st == LOAM_OK) st = confined(env, w, err);
    if (st == LOAM_OK) st = loam_world_step(w, env->cfg.settle_steps, err);
    if (st == LOAM_OK && released) {
        /* Let the bed slump without its pen now, so episodes start from rest. */
        loam_world* free_bed = loam_world_create(&p, err);
        if (!free_bed) st = err ? err->status : LOAM_ERR_NOMEM;
        loam_particles pp = loam_world_particles(w);
        float* at = st == LOAM_OK ? loam_malloc(sizeof(float) * 3 * (size_t)n) : NULL;
        if (st == LOAM_OK && !at) st = loam_error_set(err, LOAM_ERR_NOMEM, "environment: out of memory for the bed");
        for (int k = 0; at && k < n; ++k) {
            at[3 * pp.id[k]] = pp.x[k];
            at[3 * pp.id[k] + 1] = pp.y[k];
            at[3 * pp.id[k] + 2] = pp.z[k];
        }
        if (st == LOAM_OK) st = add_particles(free_bed, n, at, env->bed_radius, env->cfg.density, err);
        if (st == LOAM_OK) st = released(env, free_bed, err);
        if (st == LOAM_OK) st = loam_world_step(free_bed, env->cfg.settle_steps, err);
        loam_free(at);
        loam_world_destroy(w);
        w = free_bed;
    }
    if (st == LOAM_OK) {
        loam_particles pp = loam_world_particles(w);
        for (int k = 0; k < pp.count; ++k) {
            int id = pp.id[k];
            bed_xyz[3 * id] = pp.x[k];
            bed_xyz[3 * id + 1] = pp.y[k];
            bed_xyz[3 * id + 2] = pp.z[k];
        }
    }
    loam_world_destroy(w);
    return st;
}

void env_shift_bed(loam_env* env, float dx, float dy) {
    loam_particles p = loam_world_particles(env->world);
    for (int i = 0; i < p.count; ++i) { /* a fresh world: slot i holds particle i */
        p.x[i] = env->bed_xyz[3 * i] + dx;
        p.y[i] = env->bed_xyz[3 * i + 1] + dy;
    }
}

/* The episodes' model: the settled bed at rest and the task's bodies at default poses, built in a
 * world of their own (the tasks' body helpers take worlds) and taken over as a model. */
static loam_status make_model(loam_env* env, loam_error* err) {
    loam_world* w = loam_world_create(&env->params, err);
    if (!w) return err ? err->status : LOAM_ERR_NOMEM;
    loam_status st = add_particles(w, env->bed_count, env->bed_xyz, env->bed_radius, env->cfg.density, err);
    if (st == LOAM_OK) st = env->task->add_bodies(env, w, err);
    if (st == LOAM_OK && !(env->assets->model = loam_granular_model_from_world(w, err))) st = err ? err->status : LOAM_ERR_NOMEM;
    loam_world_destroy(w);
    return st;
}

static void assets_release(env_assets* a) {
    if (!a || __atomic_sub_fetch(&a->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    loam_granular_model_destroy(a->model);
    for (int i = 0; i < a->grid_count; ++i) loam_sdf_grid_destroy(&a->grids[i]);
    loam_free(a->bed_xyz);
    loam_free(a->bed_radius);
    loam_free(a);
}

/* env's views of its assets. */
static void see_assets(loam_env* env) {
    env_assets* a = env->assets;
    env->bed_count = a->bed_count;
    env->bed_xyz = a->bed_xyz;
    env->bed_radius = a->bed_radius;
    env->grid_count = a->grid_count;
    env->grids = a->grids;
}

loam_camera env_view(loam_vec3 eye, loam_vec3 target, float fov_deg) {
    loam_camera c = loam_camera_default();
    c.eye = eye;
    c.target = target;
    c.fov_deg = fov_deg;
    return c;
}

void env_sample_force(loam_env* env, int body) {
    const loam_body_state* s = loam_world_body_state(env->world, body);
    if (!s) return;
    env->force_sum[0] += s->force.x;
    env->force_sum[1] += s->force.y;
    env->force_sum[2] += s->force.z;
}

loam_render_particles env_render_particles(loam_env* env) {
    loam_render_particles rp = loam_render_particles_default();
    if (!env->world) return rp;
    loam_particles p = loam_world_particles(env->world);
    rp.count = p.count;
    rp.x = p.x;
    rp.y = p.y;
    rp.z = p.z;
    rp.radius = p.radius;
    return rp;
}

void loam_env_destroy(loam_env* env) {
    if (!env) return;
    if (env->task && env->task->destroy) env->task->destroy(env);
    loam_free(env->task_data);
    loam_world_destroy(env->world); /* before the assets: its model's shapes point at their grids */
    for (int i = 0; i < env->obs_count; ++i) loam_free(env->obs[i]);
    assets_release(env->assets);
    loam_free(env);
}

/* In the environment's context (loam_env_create's scope): its worlds, model, bed and grids too. */
static loam_env* env_create(const loam_env_config* config, loam_error* err) {
    loam_env* env = loam_calloc(1, sizeof *env);
    if (!env) {
        loam_error_set(err, LOAM_ERR_NOMEM, "environment: out of memory");
        return NULL;
    }
    env->cfg = *config;
    env->cfg.context = loam_ctx_resolve(config->context); /* the scope's: fixed from here on */
    env->task = task_of(config->kind);
    env->assets = loam_calloc(1, sizeof *env->assets);
    if (!env->assets) {
        loam_free(env);
        loam_error_set(err, LOAM_ERR_NOMEM, "environment: out of memory");
        return NULL;
    }
    env->assets->refs = 1;
    see_assets(env);
    loam_granular_params p = loam_granular_default_params();
    p.dt = config->dt;
    p.sweeps = config->sweeps;
    p.friction = config->friction;
    p.hash_table_size = config->hash_table_size;
    /* Tools keep material moving, so the neighbour list is rebuilt often: a skin of one radius
     * (not the world default 0.3) makes it last ~3x longer for ~15% more candidates per step
     * (Bulldozing, 1 thread: 4.6 vs 5.5 ms per step). */
    p.skin = 1.0f;
    p.sleep_speed = config->sleep_speed;
    p.threads = config->threads; /* the settling worlds' and every episode's */
    p.context = env->cfg.context;
    env->params = p;
    /* Grids built at creation have no thread count of their own: they take the environment's. */
    int scope = loam_threads_scope_enter(env_threads(env));
    loam_status st = env->task->build(env, err);
    loam_threads_scope_leave(scope);
    if (st == LOAM_OK) st = make_model(env, err);
    if (st == LOAM_OK) st = env_alloc_obs(env, err);
    if (st != LOAM_OK) {
        loam_env_destroy(env);
        return NULL;
    }
    return env;
}

loam_env* loam_env_create(const loam_env_config* config, loam_error* err) {
    if (loam_env_config_validate(config, err) != LOAM_OK) return NULL;
    loam_env* env;
    LOAM_IN_CONTEXT(config->context, env = env_create(config, err));
    return env;
}

/* In src's context (loam_env_clone's scope), which the clone shares. */
static loam_env* env_clone(const loam_env* src, loam_error* err) {
    loam_env* env = loam_calloc(1, sizeof *env);
    if (!env) {
        loam_error_set(err, LOAM_ERR_NOMEM, "environment clone: out of memory");
        return NULL;
    }
    /* Copy the scalars and share the assets (bed, grids, model); the task data and observations
     * are the clone's own. */
    *env = *src;
    env->busy = 0;
    env->world = NULL;
    env->broken = 0;
    env->task_data = NULL;
    for (int i = 0; i < env->obs_count; ++i) env->obs[i] = NULL;
    __atomic_fetch_add(&env->assets->refs, 1, __ATOMIC_RELAXED);
    see_assets(env);
    int ok = 1;
    env->task_data = loam_malloc(src->task->data_size);
    if (env->task_data) {
        memcpy(env->task_data, src->task_data, src->task->data_size);
        /* At once, so the copy never holds src's buffers when it is destroyed. */
        if (env->task->clone && env->task->clone(env, src, err) != LOAM_OK) ok = 0;
    } else {
        ok = 0;
    }
    loam_status st = ok ? env_alloc_obs(env, err) : loam_error_set(err, LOAM_ERR_NOMEM, "environment clone: out of memory");
    if (st != LOAM_OK) {
        loam_env_destroy(env);
        return NULL;
    }
    return env;
}

loam_env* loam_env_clone(const loam_env* src, loam_error* err) {
    if (!src) {
        loam_error_set(err, LOAM_ERR_INPUT, "environment clone: null environment");
        return NULL;
    }
    if (!env_enter(src)) {
        env_busy(src, "clone", err);
        return NULL;
    }
    loam_env* env;
    LOAM_IN_CONTEXT(src->cfg.context, env = env_clone(src, err));
    env_leave(src);
    return env;
}

const loam_env_config* loam_env_get_config(const loam_env* env) { return env ? &env->cfg : NULL; }
int loam_env_action_dim(const loam_env* env) { return env ? env->action_dim : 0; }
int loam_env_obs_count(const loam_env* env) { return env ? env->obs_count : 0; }

loam_env_obs_spec loam_env_obs_spec_get(const loam_env* env, int index) {
    loam_env_obs_spec none;
    memset(&none, 0, sizeof none);
    return env && index >= 0 && index < env->obs_count ? env->spec[index] : none;
}

float* loam_env_obs_buffer(loam_env* env, int index) {
    return env && index >= 0 && index < env->obs_count ? env->obs[index] : NULL;
}

loam_world* loam_env_world(loam_env* env) { return env ? env->world : NULL; }

static loam_status reset_one(loam_env* env, uint64_t seed, loam_error* err) {
    loam_world_destroy(env->world);
    env->world = loam_world_create_from_model(env->assets->model, err);
    if (!env->world) return err ? err->status : LOAM_ERR_NOMEM;
    loam_world_set_threads(env->world, env->params.threads, NULL); /* this environment's count */
    loam_rng rng = {seed * 0x2545F4914F6CDD1Dull + 0x632BE59BD9B4E019ull};
    memset(env->action, 0, sizeof env->action);
    env->episode_time = 0.0;
    env->physics_steps = 0;
    env->broken = 0;
    loam_status st = env->task->populate(env, &rng, err);
    if (st == LOAM_OK && env->cfg.observe) st = env->task->observe(env, err);
    if (st != LOAM_OK) {
        loam_world_destroy(env->world);
        env->world = NULL;
    }
    return st;
}

/* The busy flag is the only field two host threads may touch at once: it is mutable through a
 * const environment (a copy's or a clone's source is entered too). */
int env_enter(const loam_env* env) { return __atomic_exchange_n(&((loam_env*)env)->busy, 1, __ATOMIC_ACQUIRE) == 0; }
void env_leave(const loam_env* env) { __atomic_store_n(&((loam_env*)env)->busy, 0, __ATOMIC_RELEASE); }
loam_status env_busy(const loam_env* env, const char* what, loam_error* err) {
    return loam_error_set(err, LOAM_ERR_INPUT,
                          "environment %s: %s while another thread is inside a call on it (one host thread at a time per environment)",
                          loam_env_kind_name(env->cfg.kind), what);
}

loam_status env_reset(loam_env* env, uint64_t seed, loam_error* err) {
    /* observations (rendered depth images) take the environment's threads */
    int scope = loam_threads_scope_enter(env_threads(env));
    loam_status st;
    LOAM_IN_CONTEXT(env->cfg.context, st = reset_one(env, seed, err));
    loam_threads_scope_leave(scope);
    return st;
}

loam_status loam_env_reset(loam_env* env, uint64_t seed, loam_error* err) {
    if (!env) return loam_error_set(err, LOAM_ERR_INPUT, "environment reset: null environment");
    if (!env_enter(env)) return env_busy(env, "reset", err);
    loam_status st = env_reset(env, seed, err);
    env_leave(env);
    return st;
}

loam_status loam_env_set_threads(loam_env* env, int threads, loam_error* err) {
    if (!env) return loam_error_set(err, LOAM_ERR_INPUT, "environment set_threads: null environment");
    if (threads < 0 || threads > 4096)
        return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: threads = %d (expected 0 (the default) .. 4096)",
                              loam_env_kind_name(env->cfg.kind), threads);
    env->cfg.threads = threads;
    env->params.threads = threads;
    return env->world ? loam_world_set_threads(env->world, threads, err) : LOAM_OK;
}

static loam_status step_actions(loam_env* env, const float* action, loam_env_step_info* info, loam_error* err) {
    loam_env_step_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    if (!env) return loam_error_set(err, LOAM_ERR_INPUT, "environment step: null environment");
    if (!env->world || env->broken)
        return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: step %s; reset first", loam_env_kind_name(env->cfg.kind),
                              env->world ? "after a failed step" : "before reset");
    if (!action) return loam_error_set(err, LOAM_ERR_INPUT, "environment step: null action");
    for (int i = 0; i < env->action_dim; ++i) {
        if (!isfinite(action[i]))
            return loam_error_set(err, LOAM_ERR_INPUT, "environment %s: action[%d] = %g (expected a finite value in [-1, 1])",
                                  loam_env_kind_name(env->cfg.kind), i, (double)action[i]);
        env->action[i] = env_clampf(action[i], -1.0f, 1.0f);
    }
    memset(env->force_sum, 0, sizeof env->force_sum);
    env->force_samples = 0;
    double t0 = loam_clock_seconds();
    loam_status st = LOAM_OK;
    for (int s = 0; s < env->cfg.steps_per_action && st == LOAM_OK; ++s) {
        st = env->task->drive(env, err);
        if (st == LOAM_OK) st = loam_world_step(env->world, 1, err);
        if (st != LOAM_OK) break;
        if (env->task->after_step) env->task->after_step(env);
        env->force_samples++;
        env->physics_steps++;
    }
    double t1 = loam_clock_seconds();
    if (st != LOAM_OK) {
        /* The world is left as it was before its failed step, to look at; the episode cannot go on. */
        env->broken = 1;
        return st;
    }
    env->episode_time = (double)env->physics_steps * env->cfg.dt;
    if (env->cfg.observe) st = env->task->observe(env, err);
    double t2 = loam_clock_seconds();
    info->sim_time = env->episode_time;
    info->physics_seconds = t1 - t0;
    info->sensor_seconds = t2 - t1;
    double wall = t2 - t0;
    info->realtime_factor = wall > 0.0 ? (double)env->cfg.steps_per_action * env->cfg.dt / wall : INFINITY;
    for (int k = 0; k < 3; ++k) info->tool_force[k] = env->force_samples ? env->force_sum[k] / env->force_samples : 0.0;
    loam_step_stats stats = loam_world_last_stats(env->world);
    info->contacts = stats.contacts + stats.body_contacts;
    info->reward = env->task->score(env, info);
    info->truncated = env->episode_time >= env->cfg.episode_time - 0.5 * env->cfg.dt;
    return st;
}

/* In the environment's context on whichever thread runs it (a batch steps environments on a team's
 * threads, and each thread has its own scope). */
static loam_status step_one(loam_env* env, const float* action, loam_env_step_info* info, loam_error* err) {
    loam_status st;
    LOAM_IN_CONTEXT(env ? env->cfg.context : NULL, st = step_actions(env, action, info, err));
    return st;
}

/* The world steps on its own count (params.threads); the scope gives the observations the same,
 * on this host thread only. */
static loam_status step_threaded(loam_env* env, const float* action, loam_env_step_info* info, loam_error* err) {
    int scope = loam_threads_scope_enter(env ? env_threads(env) : 0);
    loam_status st = step_one(env, action, info, err);
    loam_threads_scope_leave(scope);
    return st;
}

loam_status loam_env_step(loam_env* env, const float* action, loam_env_step_info* info, loam_error* err) {
    if (env && !env_enter(env)) {
        if (info) memset(info, 0, sizeof *info);
        return env_busy(env, "step", err);
    }
    loam_status st = step_threaded(env, action, info, err);
    if (env) env_leave(env);
    return st;
}

loam_status loam_env_step_batch(loam_env* const* envs, int count, const float* actions, loam_env_step_info* infos,
                                loam_error* errs) {
    if (count < 0 || (count > 0 && (!envs || !actions || !infos))) {
        if (errs && count > 0) loam_error_set(&errs[0], LOAM_ERR_INPUT, "environment batch: null arrays or count %d", count);
        return LOAM_ERR_INPUT;
    }
    for (int i = 0; i < count; ++i)
        if (!envs[i]) {
            if (errs) loam_error_set(&errs[i], LOAM_ERR_INPUT, "environment batch: envs[%d] is null", i);
            return LOAM_ERR_INPUT;
        }
    int stride = count > 0 ? envs[0]->action_dim : 0;
    for (int i = 1; i < count; ++i)
        if (envs[i]->action_dim != stride) {
            if (errs) loam_error_set(&errs[i], LOAM_ERR_INPUT, "environment batch: envs[%d] has %d actions, envs[0] %d", i,
                                     envs[i]->action_dim, stride);
            return LOAM_ERR_INPUT;
        }
    /* One environment twice would be stepped by two threads at once. Pairwise: a batch is a few
     * hundred environments at most, and nothing is allocated. */
    for (int i = 1; i < count; ++i)
        for (int j = 0; j < i; ++j)
            if (envs[i] == envs[j]) {
                if (errs)
                    loam_error_set(&errs[i], LOAM_ERR_INPUT,
                                   "environment batch: envs[%d] and envs[%d] are the same environment (each may appear once)", j, i);
                return LOAM_ERR_INPUT;
            }
    for (int i = 0; i < count; ++i)
        if (!env_enter(envs[i])) {
            for (int j = 0; j < i; ++j) env_leave(envs[j]);
            if (errs) env_busy(envs[i], "batch step", &errs[i]);
            return LOAM_ERR_INPUT;
        }
    int threads = 0; /* the largest count asked for; 0 when every one asks for the default */
    for (int i = 0; i < count; ++i) {
        int t = env_threads(envs[i]);
        threads = t > threads ? t : threads;
    }
    int team = loam_team(threads);
    if (team > count) team = count; /* a team of one for a batch of one: its world then threads itself */
    loam_status first = LOAM_OK;
    /* Worlds step on one thread each (a region inside an active one gets a team of 1), environments
     * in parallel: with many small worlds this beats threading inside each. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
    for (int i = 0; i < count; ++i) {
        loam_error e;
        loam_error_clear(&e);
        loam_status st = team > 1 ? step_one(envs[i], actions + (size_t)i * (size_t)stride, &infos[i], &e)
                                  : step_threaded(envs[i], actions + (size_t)i * (size_t)stride, &infos[i], &e);
        if (errs) errs[i] = e;
        if (st != LOAM_OK) {
#pragma omp critical(loam_env_batch_status)
            if (first == LOAM_OK) first = st;
        }
    }
    for (int i = 0; i < count; ++i) env_leave(envs[i]);
    return first;
}

static loam_status render_scene(loam_env* env, loam_image* out, loam_error* err);

loam_status loam_env_render(loam_env* env, loam_image* out, loam_error* err) {
    if (!env || !out || !out->rgb) return loam_error_set(err, LOAM_ERR_INPUT, "environment render: null environment or image");
    if (!env->world) return loam_error_set(err, LOAM_ERR_INPUT, "environment render: before reset");
    if (!env_enter(env)) return env_busy(env, "render", err);
    int scope = loam_threads_scope_enter(env_threads(env));
    loam_status st;
    LOAM_IN_CONTEXT(env->cfg.context, st = render_scene(env, out, err));
    env_leave(env);
    loam_threads_scope_leave(scope);
    return st;
}

static loam_status render_scene(loam_env* env, loam_image* out, loam_error* err) {
    loam_camera cam = env->task->camera(env);
    cam.width = out->width;
    cam.height = out->height;
    loam_render_particles rp = env_render_particles(env);
    float zlo = INFINITY, zhi = -INFINITY;
    for (int i = 0; i < rp.count; ++i) {
        zlo = fminf(zlo, rp.z[i]);
        zhi = fmaxf(zhi, rp.z[i]);
    }
    rp.scalar = rp.z;
    rp.scalar_min = zlo;
    rp.scalar_max = zhi > zlo ? zhi : zlo + 1.0f;
    /* Every body's shapes at their world poses. */
    loam_world* w = env->world;
    int shapes = 0;
    for (int b = 0; b < loam_world_body_count(w); ++b) shapes += loam_world_body_def(w, b)->shape_count;
    loam_shape* sh = loam_malloc(sizeof *sh * (size_t)(shapes ? shapes : 1));
    loam_pose* poses = loam_malloc(sizeof *poses * (size_t)(shapes ? shapes : 1));
    if (!sh || !poses) {
        loam_free(sh);
        loam_free(poses);
        return loam_error_set(err, LOAM_ERR_NOMEM, "environment render: out of memory");
    }
    int k = 0;
    for (int b = 0; b < loam_world_body_count(w); ++b) {
        const loam_body_def* d = loam_world_body_def(w, b);
        loam_pose pose = loam_world_body_state(w, b)->pose;
        for (int q = 0; q < d->shape_count; ++q, ++k) {
            sh[k] = d->shapes[q];
            poses[k] = loam_pose_mul(pose, d->shapes[q].local);
        }
    }
    loam_render_shapes rs = loam_render_shapes_default();
    rs.count = shapes;
    rs.shapes = sh;
    rs.world_poses = poses;
    rs.alpha = 0.6f;
    loam_status st = loam_render(&cam, &rp, &rs, out, err);
    loam_free(sh);
    loam_free(poses);
    return st;
}

void loam_env_scripted_action(loam_env* env, float* action) {
    if (!env || !action) return;
    for (int i = 0; i < env->action_dim; ++i) action[i] = 0.0f;
    if (env->world) env->task->scripted(env, action);
}
