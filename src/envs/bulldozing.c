/* Bulldozing (paper 000, III-A; GranularGym's BulldozerEnvironment): move a pile into the goal box
 * with a tracked bulldozer. The arena is GranularGym's: x in [-4, 4], y in [-2, 2] m, walls 0.5 m
 * high; the goal box x in [1, 3], y in [-1, 1]. The pile is settled once in a 1.6 x 2.0 m pen at
 * x = -2, then without the pen (its edges slump to the angle of repose), so episodes start at rest. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "envs/env_internal.h"
#include "granular/model_build.h"
#include "loam/mesh_gen.h"

enum { DEPTH_SIDE = 36, HEIGHT_W = 72, HEIGHT_H = 36 };
static const float ARENA_X = 4.0f, ARENA_Y = 2.0f, WALL_HALF_HEIGHT = 0.25f;
static const float GOAL_X0 = 1.0f, GOAL_X1 = 3.0f, GOAL_Y0 = -1.0f, GOAL_Y1 = 1.0f;
static const float PEN_X = -2.0f, PEN_HALF_X = 0.8f, PEN_HALF_Y = 1.0f;
static const float DEPTH_FAR = 10.0f; /* m: what a depth pixel that sees no particle reads */
static const float DOZER_CLEARANCE = 0.5f; /* m: the dozer's origin stays this far inside the walls */

typedef struct bulldozing {
    int grid;   /* the bulldozer's signed distance grid */
    int dozer;  /* body index in the episode's world */
    int lane;   /* scripted policy: the lane it pushes along (LANE_Y) */
    int backing;/* scripted policy: 1 while it reverses to the start of the next lane */
} bulldozing;

/* The scripted policy pushes the pile in lanes (the blade is 0.6 m wide), the middle first, from
 * behind the pen to the goal, reversing between lanes. */
static const float LANE_Y[] = {0.0f, -0.45f, 0.45f, -0.85f, 0.85f};
static const float LANE_FROM_X = -3.4f, LANE_TO_X = 1.3f;

static loam_status add_arena(loam_env* env, loam_world* w, loam_error* err) {
    loam_body_def def = loam_body_default_def();
    snprintf(def.name, sizeof def.name, "arena");
    def.shape_count = loam_open_box_pieces((loam_vec3){ARENA_X, ARENA_Y, WALL_HALF_HEIGHT}, 0.1f, env->cfg.friction,
                                           def.shapes);
    return loam_world_add_body(w, &def, err) < 0 ? (err ? err->status : LOAM_ERR_INPUT) : LOAM_OK;
}

static loam_status add_arena_and_pen(loam_env* env, loam_world* w, loam_error* err) {
    loam_status st = add_arena(env, w, err);
    if (st != LOAM_OK) return st;
    loam_shape pieces[5];
    loam_open_box_pieces((loam_vec3){PEN_HALF_X, PEN_HALF_Y, 0.5f}, 0.1f, env->cfg.friction, pieces);
    loam_body_def def = loam_body_default_def();
    snprintf(def.name, sizeof def.name, "pen");
    def.pose.p = (loam_vec3){PEN_X, 0.0f, 0.0f};
    def.shape_count = 4; /* the walls only: the arena is the floor */
    memcpy(def.shapes, pieces + 1, sizeof(loam_shape) * 4);
    return loam_world_add_body(w, &def, err) < 0 ? (err ? err->status : LOAM_ERR_INPUT) : LOAM_OK;
}

static loam_status build(loam_env* env, loam_error* err) {
    bulldozing* b = loam_calloc(1, sizeof *b);
    if (!b) return loam_error_set(err, LOAM_ERR_NOMEM, "bulldozing: out of memory");
    env->task_data = b;
    env->action_dim = 2;
    env_add_obs(env, "depth", 2, DEPTH_SIDE, DEPTH_SIDE, 1, 0.0f, DEPTH_FAR);
    env_add_obs(env, "height", 2, HEIGHT_H, HEIGHT_W, 1, 0.0f, 2.0f * WALL_HALF_HEIGHT + 4.0f);
    env_add_obs(env, "pose", 1, 3, 1, 1, -ARENA_X, ARENA_X);

    loam_mesh mesh;
    loam_bulldozer_def dd = loam_bulldozer_default_def();
    loam_status st = loam_mesh_bulldozer(&dd, &mesh, err);
    if (st != LOAM_OK) return st;
    float r = env->cfg.radius;
    b->grid = env_add_grid(env, &mesh, 0.01f, fmaxf(0.03f, 2.5f * r), err);
    loam_mesh_destroy(&mesh);
    if (b->grid < 0) return err ? err->status : LOAM_ERR_INTERNAL;

    int n = env->cfg.particles;
    float* xyz = loam_malloc(sizeof(float) * 3 * (size_t)n);
    if (!xyz) return loam_error_set(err, LOAM_ERR_NOMEM, "bulldozing: out of memory for %d particles", n);
    loam_vec3 lo = {PEN_X - PEN_HALF_X, -PEN_HALF_Y, 0.0f}, hi = {PEN_X + PEN_HALF_X, PEN_HALF_Y, 50.0f};
    int placed = env_lattice(lo, hi, r, n, env->cfg.seed, NULL, NULL, xyz);
    if (placed < n) st = loam_error_set(err, LOAM_ERR_INPUT, "bulldozing: %d particles of radius %g m do not fit", n, r);
    else st = env_bed_settle(env, xyz, n, r, add_arena_and_pen, add_arena, err);
    loam_free(xyz);
    return st;
}

/* The episodes' bodies: the arena (0) and the bulldozer (1), placed by populate. */
static loam_status add_bodies(loam_env* env, loam_world* w, loam_error* err) {
    bulldozing* b = env->task_data;
    loam_status st = add_arena(env, w, err);
    if (st != LOAM_OK) return st;
    loam_body_def def = loam_body_default_def();
    snprintf(def.name, sizeof def.name, "bulldozer");
    def.motion = LOAM_MOTION_COMMANDED;
    def.pose.p = (loam_vec3){-3.5f, 0.0f, 0.0f};
    def.shape_count = 1;
    def.shapes[0].type = LOAM_SHAPE_MESH;
    def.shapes[0].local = loam_pose_identity();
    def.shapes[0].friction = env->cfg.friction;
    def.shapes[0].grid = &env->grids[b->grid];
    b->dozer = loam_world_add_body(w, &def, err);
    return b->dozer < 0 ? (err ? err->status : LOAM_ERR_INPUT) : LOAM_OK;
}

static loam_status populate(loam_env* env, loam_rng* rng, loam_error* err) {
    (void)err;
    bulldozing* b = env->task_data;
    float dx = (float)(0.6 * loam_rng_uniform(rng) - 0.3), dy = (float)(0.6 * loam_rng_uniform(rng) - 0.3);
    env_shift_bed(env, dx, dy);
    loam_pose pose;
    float yaw = (float)(0.6 * loam_rng_uniform(rng) - 0.3);
    pose.p = (loam_vec3){-3.5f + (float)(0.2 * loam_rng_uniform(rng) - 0.1), (float)(loam_rng_uniform(rng) - 0.5), 0.0f};
    pose.q = loam_quat_from_axis_angle((loam_vec3){0, 0, 1}, yaw);
    loam_world_start_body(env->world, b->dozer, pose, (loam_twist){{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}});
    b->lane = 0;
    b->backing = 0;
    return LOAM_OK;
}

static loam_status drive(loam_env* env, loam_error* err) {
    bulldozing* b = env->task_data;
    const loam_body_state* s = loam_world_body_state(env->world, b->dozer);
    float yaw = env_yaw(s->pose.q), speed = env->cfg.max_speed * env->action[0];
    loam_twist t = {{speed * cosf(yaw), speed * sinf(yaw), 0.0f}, {0.0f, 0.0f, env->cfg.max_yaw_rate * env->action[1]}};
    /* The tracks stop at the arena's walls: no motion that would take the origin past the clearance. */
    float dt = (float)env->cfg.dt, nx = s->pose.p.x + t.v.x * dt, ny = s->pose.p.y + t.v.y * dt;
    if (fabsf(nx) > ARENA_X - DOZER_CLEARANCE && fabsf(nx) > fabsf(s->pose.p.x)) t.v.x = 0.0f;
    if (fabsf(ny) > ARENA_Y - DOZER_CLEARANCE && fabsf(ny) > fabsf(s->pose.p.y)) t.v.y = 0.0f;
    return loam_world_command_body(env->world, b->dozer, t, err);
}

static void after_step(loam_env* env) { env_sample_force(env, ((bulldozing*)env->task_data)->dozer); }

static loam_status observe(loam_env* env, loam_error* err) {
    bulldozing* b = env->task_data;
    loam_pose pose = loam_world_body_state(env->world, b->dozer)->pose;
    loam_render_particles rp = env_render_particles(env);
    /* The ego camera sits above the cab looking ahead and down (GranularGym: fov 1.57 rad). */
    loam_camera cam = loam_camera_default();
    cam.eye = loam_pose_apply(pose, (loam_vec3){0.0f, 0.0f, 0.45f});
    cam.target = loam_pose_apply(pose, (loam_vec3){1.0f, 0.0f, 0.0f});
    cam.up = (loam_vec3){0, 0, 1};
    cam.fov_deg = 90.0f;
    cam.width = cam.height = DEPTH_SIDE;
    float* depth = env->obs[0];
    loam_status st = loam_depth_image(&cam, &rp, depth, err);
    if (st != LOAM_OK) return st;
    for (int k = 0; k < DEPTH_SIDE * DEPTH_SIDE; ++k) depth[k] = fminf(depth[k], DEPTH_FAR);
    st = loam_height_map(&rp, -ARENA_X, -ARENA_Y, ARENA_X, ARENA_Y, 0.0f, HEIGHT_W, HEIGHT_H, env->obs[1], err);
    if (st != LOAM_OK) return st;
    float* p = env->obs[2];
    p[0] = pose.p.x;
    p[1] = pose.p.y;
    p[2] = env_yaw(pose.q);
    return LOAM_OK;
}

static float distance_to_goal(float x, float y) {
    float dx = fmaxf(fmaxf(GOAL_X0 - x, x - GOAL_X1), 0.0f), dy = fmaxf(fmaxf(GOAL_Y0 - y, y - GOAL_Y1), 0.0f);
    return sqrtf(dx * dx + dy * dy);
}

/* GranularGym's score: +100/n for each particle in the goal box, -d/n for each outside it. */
static double score(loam_env* env, loam_env_step_info* info) {
    loam_particles p = loam_world_particles(env->world);
    double sum = 0.0;
    int inside = 0;
    for (int i = 0; i < p.count; ++i) {
        float d = distance_to_goal(p.x[i], p.y[i]);
        if (d == 0.0f) ++inside, sum += 100.0;
        else sum -= d;
    }
    info->progress = p.count ? (double)inside / p.count : 0.0;
    info->terminated = inside == p.count;
    return p.count ? sum / p.count : 0.0;
}

/* Lanes: drive forward along the lane (pure pursuit of a point 1 m ahead on it) until the blade is
 * in the goal, then reverse, steering towards the next lane, until behind the pen again. */
static void scripted(loam_env* env, float* action) {
    bulldozing* b = env->task_data;
    loam_pose pose = loam_world_body_state(env->world, b->dozer)->pose;
    int lanes = (int)(sizeof LANE_Y / sizeof LANE_Y[0]);
    if (!b->backing && pose.p.x >= LANE_TO_X) {
        b->backing = 1;
        b->lane = (b->lane + 1) % lanes;
    } else if (b->backing && pose.p.x <= LANE_FROM_X) {
        b->backing = 0;
    }
    float yaw = env_yaw(pose.q), dy = LANE_Y[b->lane] - pose.p.y;
    if (b->backing) {
        /* Reversing with heading psi moves along -(cos psi, sin psi): head so that this drifts to the lane. */
        float want = -atan2f(dy, 2.0f), err = atan2f(sinf(want - yaw), cosf(want - yaw));
        action[0] = -1.0f;
        action[1] = env_clampf(2.0f * err, -1.0f, 1.0f);
        return;
    }
    float err = atan2f(dy, 1.0f) - yaw;
    err = atan2f(sinf(err), cosf(err));
    action[0] = env_clampf(cosf(err), 0.2f, 1.0f);
    action[1] = env_clampf(2.0f * err, -1.0f, 1.0f);
}

static loam_camera camera(const loam_env* env) {
    (void)env;
    return env_view((loam_vec3){0.0f, -7.5f, 5.5f}, (loam_vec3){0.0f, 0.0f, 0.0f}, 45.0f);
}

const env_task env_bulldozing_task = {build,  add_bodies, populate, drive,  after_step,        observe, score,
                                       scripted, camera, NULL, sizeof(bulldozing), NULL, NULL};
