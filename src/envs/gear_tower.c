/* Helical gear tower (paper 000, III-B): a tall cylinder of particles, periodic in z (a particle
 * leaving through the bottom comes back at the top with its velocity; unlike the paper, contacts
 * see across the seam too), stirred by k involute helical gears stacked on the tower's axis and
 * turning at uniformly random speeds. The paper's benchmark of speed against particle count and
 * body count (its Fig. 9). The tower's height grows with the particle count so the fill stays the
 * same; the gears sit evenly along it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "envs/env_internal.h"
#include "granular/model_build.h"
#include "loam/mesh_gen.h"

enum { PROFILE_BINS = 32 };
/* The gears nearly fill the tower (tip radius 72 mm, gap to the wall 3 mm, less than a particle
 * diameter), so material passes a gear through its helical tooth spaces, as in a screw feeder:
 * the gears meter the flow rather than the material free-falling through the tower. */
static const float TOWER_RADIUS = 0.075f;  /* m, inner */
static const float GEAR_SPACING_MIN = 0.1f; /* m of tower per gear, at least */

typedef struct gear_tower {
    int grid;
    float height;           /* periodic length of the tower, m */
    int first_gear;         /* body index of gear 0 (gears are consecutive) */
    float speed[16];        /* the reset's random speeds, as actions in [-1, 1] */
    float* prev_z;          /* by particle id: z after the previous physics step */
    int64_t crossings;      /* particles through the seam during this action */
} gear_tower;

typedef struct keep_ctx {
    const loam_sdf_grid* grid;
    float height, clearance;
    int gears;
} keep_ctx;

static float gear_z(float height, int gears, int i) { return ((float)i + 0.5f) * height / (float)gears; }

static int keep_point(const void* ctx_, loam_vec3 p) {
    const keep_ctx* c = ctx_;
    if (sqrtf(p.x * p.x + p.y * p.y) > TOWER_RADIUS - c->clearance) return 0;
    for (int i = 0; i < c->gears; ++i) {
        loam_vec3 local = {p.x, p.y, p.z - gear_z(c->height, c->gears, i)};
        if (loam_sdf_grid_query(c->grid, local, NULL) < c->clearance) return 0;
    }
    return 1;
}

static loam_status add_tower(loam_env* env, loam_world* w, loam_error* err) {
    gear_tower* g = env->task_data;
    loam_body_def def = loam_body_default_def();
    snprintf(def.name, sizeof def.name, "tower");
    def.shape_count = loam_tube_pieces(TOWER_RADIUS, 0.5f * g->height, 0.02f, 0, env->cfg.friction, def.shapes);
    if (loam_world_add_body(w, &def, err) < 0) return err ? err->status : LOAM_ERR_INPUT;
    return LOAM_OK;
}

static loam_status add_tower_and_gears(loam_env* env, loam_world* w, loam_error* err);

static loam_status build(loam_env* env, loam_error* err) {
    gear_tower* g = loam_calloc(1, sizeof *g);
    if (!g) return loam_error_set(err, LOAM_ERR_NOMEM, "gear tower: out of memory");
    env->task_data = g;
    int k = env->cfg.gears, n = env->cfg.particles;
    float r = env->cfg.radius;
    env->action_dim = k;
    env_add_obs(env, "gears", 1, k, 1, 1, -1.0f, 1.0f);
    env_add_obs(env, "profile", 1, PROFILE_BINS, 1, 1, 0.0f, 1.0f);

    loam_gear_def gd = loam_gear_default_def();
    gd.module = 0.008f;
    gd.teeth = 16;
    gd.helix_angle_deg = 20.0f;
    gd.face_width = 0.03f;
    loam_mesh mesh;
    loam_status st = loam_mesh_gear(&gd, &mesh, err);
    if (st != LOAM_OK) return st;
    g->grid = env_add_grid(env, &mesh, 0.002f, fmaxf(0.01f, 2.5f * r), err);
    loam_mesh_destroy(&mesh);
    if (g->grid < 0) return err ? err->status : LOAM_ERR_INTERNAL;

    /* Tall enough for the lattice (2.1 r spacing fills about 0.9 of the tower's cross-section) and
     * for the gears. */
    double cell = 2.1 * r;
    double lattice_h = (double)n * cell * cell * cell / (0.85 * M_PI * TOWER_RADIUS * TOWER_RADIUS);
    g->height = (float)fmax(1.1 * lattice_h, GEAR_SPACING_MIN * k);
    env->params.periodic_axis = 2;
    env->params.periodic_lo = 0.0f;
    env->params.periodic_hi = g->height;
    g->prev_z = loam_malloc(sizeof(float) * (size_t)n);
    float* xyz = loam_malloc(sizeof(float) * 3 * (size_t)n);
    if (!xyz || !g->prev_z) {
        loam_free(xyz);
        return loam_error_set(err, LOAM_ERR_NOMEM, "gear tower: out of memory for %d particles", n);
    }
    /* The gears' share of the tower is not known in advance: grow the tower until the lattice fits. */
    int placed = 0;
    for (int attempt = 0; attempt < 20 && placed < n; ++attempt) {
        if (attempt > 0) g->height *= 1.08f;
        keep_ctx kc = {&env->grids[g->grid], g->height, 1.2f * r, k};
        loam_vec3 lo = {-TOWER_RADIUS, -TOWER_RADIUS, 0.0f}, hi = {TOWER_RADIUS, TOWER_RADIUS, g->height};
        placed = env_lattice(lo, hi, r, n, env->cfg.seed, keep_point, &kc, xyz);
    }
    env->params.periodic_hi = g->height;
    if (placed < n)
        st = loam_error_set(err, LOAM_ERR_INTERNAL, "gear tower: only %d of %d particles fit in a tower %g m tall", placed, n,
                            g->height);
    else st = env_bed_settle(env, xyz, n, r, add_tower_and_gears, NULL, err);
    loam_free(xyz);
    return st;
}

static loam_status add_gears(loam_env* env, loam_world* w, loam_rng* rng, loam_error* err) {
    gear_tower* g = env->task_data;
    for (int i = 0; i < env->cfg.gears; ++i) {
        loam_body_def def = loam_body_default_def();
        snprintf(def.name, sizeof def.name, "gear%d", i);
        def.motion = LOAM_MOTION_COMMANDED;
        float angle = rng ? (float)(2.0 * M_PI * loam_rng_uniform(rng)) : 0.0f;
        def.pose.p = (loam_vec3){0.0f, 0.0f, gear_z(g->height, env->cfg.gears, i)};
        def.pose.q = loam_quat_from_axis_angle((loam_vec3){0, 0, 1}, angle);
        def.twist.w.z = env->cfg.max_gear_speed * g->speed[i];
        def.shape_count = 1;
        def.shapes[0].type = LOAM_SHAPE_MESH;
        def.shapes[0].local = loam_pose_identity();
        def.shapes[0].friction = env->cfg.friction;
        def.shapes[0].grid = &env->grids[g->grid];
        int b = loam_world_add_body(w, &def, err);
        if (b < 0) return err ? err->status : LOAM_ERR_INPUT;
        if (i == 0) g->first_gear = b;
    }
    return LOAM_OK;
}

static loam_status add_tower_and_gears(loam_env* env, loam_world* w, loam_error* err) {
    loam_status st = add_tower(env, w, err);
    return st == LOAM_OK ? add_gears(env, w, NULL, err) : st;
}

/* The episodes' bodies: the tower, then the gears (at angle 0, placed by populate). */
static loam_status add_bodies(loam_env* env, loam_world* w, loam_error* err) {
    loam_status st = add_tower(env, w, err);
    return st == LOAM_OK ? add_gears(env, w, NULL, err) : st;
}

static loam_status populate(loam_env* env, loam_rng* rng, loam_error* err) {
    (void)err;
    gear_tower* g = env->task_data;
    for (int i = 0; i < env->cfg.gears; ++i) g->speed[i] = (float)(2.0 * loam_rng_uniform(rng) - 1.0);
    memcpy(env->action, g->speed, sizeof(float) * (size_t)env->cfg.gears);
    for (int i = 0; i < env->cfg.gears; ++i) {
        float angle = (float)(2.0 * M_PI * loam_rng_uniform(rng));
        loam_pose pose = {{0.0f, 0.0f, gear_z(g->height, env->cfg.gears, i)}, loam_quat_from_axis_angle((loam_vec3){0, 0, 1}, angle)};
        loam_twist twist = (loam_twist){{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
        twist.w.z = env->cfg.max_gear_speed * g->speed[i];
        loam_world_start_body(env->world, g->first_gear + i, pose, twist);
    }
    for (int i = 0; i < env->bed_count; ++i) g->prev_z[i] = env->bed_xyz[3 * i + 2];
    g->crossings = 0;
    return LOAM_OK;
}

static loam_status drive(loam_env* env, loam_error* err) {
    gear_tower* g = env->task_data;
    if (env->force_samples == 0) g->crossings = 0; /* a new action */
    for (int i = 0; i < env->cfg.gears; ++i) {
        loam_twist t = {{0, 0, 0}, {0, 0, env->cfg.max_gear_speed * env->action[i]}};
        loam_status st = loam_world_command_body(env->world, g->first_gear + i, t, err);
        if (st != LOAM_OK) return st;
    }
    return LOAM_OK;
}

static void after_step(loam_env* env) {
    gear_tower* g = env->task_data;
    loam_particles p = loam_world_particles(env->world);
    float half = 0.5f * g->height;
    int64_t crossed = 0;
    for (int k = 0; k < p.count; ++k) {
        int id = p.id[k];
        crossed += p.z[k] - g->prev_z[id] > half; /* wrapped from the bottom to the top */
        g->prev_z[id] = p.z[k];
    }
    g->crossings += crossed;
    for (int i = 0; i < env->cfg.gears; ++i) env_sample_force(env, g->first_gear + i);
}

static loam_status observe(loam_env* env, loam_error* err) {
    (void)err;
    gear_tower* g = env->task_data;
    for (int i = 0; i < env->cfg.gears; ++i) env->obs[0][i] = env->action[i];
    loam_particles p = loam_world_particles(env->world);
    float* prof = env->obs[1];
    memset(prof, 0, sizeof(float) * PROFILE_BINS);
    for (int k = 0; k < p.count; ++k) {
        int bin = (int)(p.z[k] / g->height * PROFILE_BINS);
        prof[bin < 0 ? 0 : (bin >= PROFILE_BINS ? PROFILE_BINS - 1 : bin)] += 1.0f;
    }
    for (int b = 0; b < PROFILE_BINS; ++b) prof[b] /= (float)(p.count ? p.count : 1);
    return LOAM_OK;
}

/* Keep the material flowing: the reward is the fraction of particles through the seam. */
static double score(loam_env* env, loam_env_step_info* info) {
    gear_tower* g = env->task_data;
    info->progress = (double)g->crossings / (double)(env->bed_count ? env->bed_count : 1);
    info->terminated = 0;
    return info->progress;
}

static void scripted(loam_env* env, float* action) {
    const gear_tower* g = env->task_data;
    memcpy(action, g->speed, sizeof(float) * (size_t)env->cfg.gears);
}

static loam_camera camera(const loam_env* env) {
    float h = ((const gear_tower*)env->task_data)->height;
    return env_view((loam_vec3){0.4f * h + 0.2f, -1.3f * h - 0.3f, 0.65f * h}, (loam_vec3){0.0f, 0.0f, 0.5f * h}, 45.0f);
}

static void destroy(loam_env* env) {
    gear_tower* g = env->task_data;
    if (g) loam_free(g->prev_z);
}

static loam_status clone(loam_env* env, const loam_env* src, loam_error* err) {
    (void)src;
    gear_tower* g = env->task_data;
    g->prev_z = loam_malloc(sizeof(float) * (size_t)(env->bed_count ? env->bed_count : 1));
    return g->prev_z ? LOAM_OK : loam_error_set(err, LOAM_ERR_NOMEM, "gear tower: out of memory");
}

/* prev_z: the crossings of the next step are counted against it. */
static float* state_floats(loam_env* env, size_t* count) {
    *count = (size_t)env->bed_count;
    return ((gear_tower*)env->task_data)->prev_z;
}

const env_task env_gear_tower_task = {build,    add_bodies, populate, drive,   after_step,         observe, score,
                                      scripted, camera,   destroy, sizeof(gear_tower), clone, state_floats};
