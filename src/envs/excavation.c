/* Excavation (paper 000, III-C): a Franka Panda (links as capsules) with an excavator bucket at its
 * flange digs a bed of particles and dumps into a bin. Joint-velocity actions; observations: joint
 * positions and velocities, and a top-down height image of bed and bin. The reward is the change of
 * a potential, (100 in_bin + 10 in_bucket_lifted) / n, so digging pays a little and delivering pays
 * most. The force particles exert on the bucket is in the step info (the paper's suggested
 * termination signal). Layout: the arm's base at the origin, the bed in a 0.5 x 0.6 m pen in front
 * (x from 0.3 to 0.8 m), the bin (0.24 x 0.24 x 0.1 m) to the left at y = 0.5 m. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/sort.h"
#include "envs/env_internal.h"
#include "granular/model_build.h"
#include "loam/mesh_gen.h"

enum { JOINTS = 7, MAP_SIDE = 44 };
static const float PEN_X = 0.55f, PEN_HALF_X = 0.25f, PEN_HALF_Y = 0.3f, PEN_HALF_Z = 0.1f;
static const float BIN_X = 0.0f, BIN_Y = 0.5f, BIN_HALF = 0.12f, BIN_HALF_Z = 0.05f;
static const float MAP_X0 = -0.2f, MAP_Y0 = -0.4f, MAP_SIZE = 1.1f;
static const float LINK_RADIUS = 0.045f;
/* The home pose (bucket above the bed, opening up) and the scripted dig-lift-dump cycle, found by
 * damped least squares on the flange pose (bucket over the bed, in it, dragged, lifted, over the
 * bin, tipped). */
static const float HOME[JOINTS] = {0.207f, -0.260f, -0.200f, -2.436f, -0.062f, 2.180f, 0.049f};
static const float CYCLE[][JOINTS] = {
    {0.207f, -0.260f, -0.200f, -2.436f, -0.062f, 2.180f, 0.049f},
    {0.193f, 0.187f, -0.156f, -2.767f, 0.152f, 2.949f, -0.110f},
    {0.113f, 0.771f, -0.127f, -1.661f, 0.134f, 2.424f, -0.080f},
    {0.159f, 0.433f, -0.202f, -1.433f, 0.063f, 1.333f, -0.049f},
    {0.810f, -0.108f, 0.572f, -2.190f, 0.612f, 1.918f, 1.109f},
    {0.050f, -0.749f, 1.363f, -2.305f, -0.401f, 2.282f, 1.662f},
};
enum { CYCLE_POSES = sizeof CYCLE / sizeof CYCLE[0] };

typedef struct excavation {
    int grid;
    loam_bucket_def bucket;
    loam_chain chain;
    int body_of_link[LOAM_CHAIN_MAX_LINKS];
    int bucket_body;
    float bed_top;     /* m: the settled bed's top, above which bucket material counts as lifted */
    double potential;  /* of the last observation */
    int waypoint;      /* scripted policy's current target in CYCLE */
} excavation;

/* The bucket in the flange frame: turned over (flange z points down at home, the bucket opens up),
 * its hinge 2 cm beyond the flange. */
static loam_pose bucket_in_flange(void) {
    loam_pose t;
    t.p = (loam_vec3){0.0f, 0.0f, 0.02f};
    t.q = loam_quat_from_axis_angle((loam_vec3){1, 0, 0}, (float)M_PI);
    return t;
}

static loam_status add_fixed(loam_world* w, const char* name, loam_vec3 at, loam_vec3 inner_half, float friction,
                             loam_error* err) {
    loam_body_def def = loam_body_default_def();
    snprintf(def.name, sizeof def.name, "%s", name);
    def.pose.p = at;
    def.shape_count = loam_open_box_pieces(inner_half, 0.02f, friction, def.shapes);
    return loam_world_add_body(w, &def, err) < 0 ? (err ? err->status : LOAM_ERR_INPUT) : LOAM_OK;
}

static loam_status add_pen_and_bin(loam_env* env, loam_world* w, loam_error* err) {
    loam_body_def floor = loam_body_default_def();
    snprintf(floor.name, sizeof floor.name, "floor");
    floor.shape_count = 1;
    floor.shapes[0].type = LOAM_SHAPE_PLANE;
    floor.shapes[0].local = loam_pose_identity();
    floor.shapes[0].friction = env->cfg.friction;
    if (loam_world_add_body(w, &floor, err) < 0) return err ? err->status : LOAM_ERR_INPUT;
    loam_status st = add_fixed(w, "pen", (loam_vec3){PEN_X, 0, 0}, (loam_vec3){PEN_HALF_X, PEN_HALF_Y, PEN_HALF_Z},
                               env->cfg.friction, err);
    if (st != LOAM_OK) return st;
    return add_fixed(w, "bin", (loam_vec3){BIN_X, BIN_Y, 0}, (loam_vec3){BIN_HALF, BIN_HALF, BIN_HALF_Z}, env->cfg.friction,
                     err);
}

static loam_status build(loam_env* env, loam_error* err) {
    excavation* x = loam_calloc(1, sizeof *x);
    if (!x) return loam_error_set(err, LOAM_ERR_NOMEM, "excavation: out of memory");
    env->task_data = x;
    env->action_dim = JOINTS;
    env_add_obs(env, "joints", 1, 2 * JOINTS, 1, 1, -4.0f, 4.0f);
    env_add_obs(env, "height", 2, MAP_SIDE, MAP_SIDE, 1, 0.0f, 1.0f);
    loam_status st = loam_chain_panda(&x->chain, loam_pose_identity(), err);
    if (st != LOAM_OK) return st;

    x->bucket = loam_bucket_default_def();
    x->bucket.radius = 0.08f;
    x->bucket.width = 0.12f;
    x->bucket.thickness = 0.012f;
    loam_mesh mesh;
    st = loam_mesh_bucket(&x->bucket, &mesh, err);
    if (st != LOAM_OK) return st;
    float r = env->cfg.radius;
    x->grid = env_add_grid(env, &mesh, 0.003f, fmaxf(0.01f, 2.5f * r), err);
    loam_mesh_destroy(&mesh);
    if (x->grid < 0) return err ? err->status : LOAM_ERR_INTERNAL;

    int n = env->cfg.particles;
    float* xyz = loam_malloc(sizeof(float) * 3 * (size_t)n);
    if (!xyz) return loam_error_set(err, LOAM_ERR_NOMEM, "excavation: out of memory for %d particles", n);
    loam_vec3 lo = {PEN_X - PEN_HALF_X, -PEN_HALF_Y, 0.0f}, hi = {PEN_X + PEN_HALF_X, PEN_HALF_Y, 2.0f * PEN_HALF_Z};
    int placed = env_lattice(lo, hi, r, n, env->cfg.seed, NULL, NULL, xyz);
    if (placed < n)
        st = loam_error_set(err, LOAM_ERR_INPUT, "excavation: %d particles of radius %g m do not fit the pen (at most %d)", n,
                            r, placed);
    else st = env_bed_settle(env, xyz, n, r, add_pen_and_bin, NULL, err);
    loam_free(xyz);
    if (st != LOAM_OK) return st;
    /* The bed's top: the 99th percentile of particle tops, so one perched particle does not count. */
    float* tops = loam_malloc(sizeof(float) * (size_t)n);
    if (!tops) return loam_error_set(err, LOAM_ERR_NOMEM, "excavation: out of memory for %d particles", n);
    for (int i = 0; i < n; ++i) tops[i] = env->bed_xyz[3 * i + 2] + r;
    x->bed_top = loam_quantile_in_place(tops, n, 0.99);
    loam_free(tops);
    return LOAM_OK;
}

/* A capsule from a link's origin to its child's joint origin; the link with the bucket carries it. */
static loam_status add_arm(loam_env* env, loam_world* w, loam_error* err) {
    excavation* x = env->task_data;
    loam_chain* c = &x->chain;
    for (int i = 0; i < c->link_count; ++i) {
        x->body_of_link[i] = -1;
        loam_body_def def = loam_body_default_def();
        snprintf(def.name, sizeof def.name, "%s", c->links[i].name);
        def.motion = LOAM_MOTION_COMMANDED;
        def.pose = c->pose[i];
        int last = i == c->link_count - 1;
        if (last) {
            def.shape_count = 1;
            def.shapes[0].type = LOAM_SHAPE_MESH;
            def.shapes[0].local = bucket_in_flange();
            def.shapes[0].friction = env->cfg.friction;
            def.shapes[0].grid = &env->grids[x->grid];
        } else {
            loam_vec3 d = c->links[i + 1].placement.p;
            float len = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
            if (len < 1e-3f) continue; /* coincident frames: the neighbouring capsules cover it */
            loam_vec3 axis = {-d.y, d.x, 0.0f}; /* z x d */
            float s = sqrtf(axis.x * axis.x + axis.y * axis.y), angle = atan2f(s, d.z);
            def.shape_count = 1;
            def.shapes[0].type = LOAM_SHAPE_CAPSULE;
            def.shapes[0].local.p = (loam_vec3){0.5f * d.x, 0.5f * d.y, 0.5f * d.z};
            def.shapes[0].local.q = s > 1e-6f ? loam_quat_from_axis_angle(axis, angle)
                                              : loam_quat_from_axis_angle((loam_vec3){1, 0, 0}, d.z < 0 ? (float)M_PI : 0.0f);
            def.shapes[0].size = (loam_vec3){LINK_RADIUS, 0.0f, 0.5f * len};
            def.shapes[0].friction = env->cfg.friction;
        }
        int b = loam_world_add_body(w, &def, err);
        if (b < 0) return err ? err->status : LOAM_ERR_INPUT;
        x->body_of_link[i] = b;
        if (last) x->bucket_body = b;
    }
    return LOAM_OK;
}

/* The episodes' bodies: floor, pen and bin, then the arm's links (placed by populate). */
static loam_status add_bodies(loam_env* env, loam_world* w, loam_error* err) {
    loam_status st = add_pen_and_bin(env, w, err);
    return st == LOAM_OK ? add_arm(env, w, err) : st;
}

static loam_status populate(loam_env* env, loam_rng* rng, loam_error* err) {
    excavation* x = env->task_data;
    float q[JOINTS];
    for (int j = 0; j < JOINTS; ++j) q[j] = HOME[j] + (float)(0.1 * loam_rng_uniform(rng) - 0.05);
    loam_status st = loam_chain_set_positions(&x->chain, q, err);
    for (int i = 0; st == LOAM_OK && i < x->chain.link_count; ++i)
        if (x->body_of_link[i] >= 0) loam_world_start_body(env->world, x->body_of_link[i], x->chain.pose[i], (loam_twist){{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}});
    x->potential = 0.0;
    x->waypoint = 1;
    return st;
}

static loam_status drive(loam_env* env, loam_error* err) {
    excavation* x = env->task_data;
    float qd[LOAM_CHAIN_MAX_LINKS] = {0};
    for (int j = 0; j < JOINTS; ++j) qd[j] = env->action[j] * x->chain.links[j].max_velocity;
    loam_status st = loam_chain_command(&x->chain, qd, (float)env->cfg.dt, err);
    return st == LOAM_OK ? loam_chain_drive(&x->chain, env->world, x->body_of_link, err) : st;
}

static void after_step(loam_env* env) {
    excavation* x = env->task_data;
    loam_chain_advance(&x->chain, (float)env->cfg.dt);
    env_sample_force(env, x->bucket_body);
}

static loam_status observe(loam_env* env, loam_error* err) {
    excavation* x = env->task_data;
    float* j = env->obs[0];
    for (int k = 0; k < JOINTS; ++k) {
        j[k] = x->chain.q[k];
        j[JOINTS + k] = x->chain.qd[k];
    }
    loam_render_particles rp = env_render_particles(env);
    return loam_height_map(&rp, MAP_X0, MAP_Y0, MAP_X0 + MAP_SIZE, MAP_Y0 + MAP_SIZE, 0.0f, MAP_SIDE, MAP_SIDE, env->obs[1],
                           err);
}

static int in_bin(float px, float py, float pz) {
    return fabsf(px - BIN_X) < BIN_HALF && fabsf(py - BIN_Y) < BIN_HALF && pz < 2.0f * BIN_HALF_Z;
}

static double score(loam_env* env, loam_env_step_info* info) {
    excavation* x = env->task_data;
    loam_particles p = loam_world_particles(env->world);
    loam_pose bucket = loam_pose_mul(loam_world_body_state(env->world, x->bucket_body)->pose, bucket_in_flange());
    float r2 = x->bucket.radius * x->bucket.radius, hw = 0.5f * x->bucket.width;
    int delivered = 0, lifted = 0;
    for (int i = 0; i < p.count; ++i) {
        if (in_bin(p.x[i], p.y[i], p.z[i])) {
            ++delivered;
            continue;
        }
        if (p.z[i] < x->bed_top + p.radius[i]) continue;
        loam_vec3 l = loam_pose_apply_inverse(bucket, (loam_vec3){p.x[i], p.y[i], p.z[i]});
        lifted += l.x * l.x + l.z * l.z < r2 && fabsf(l.y) < hw && l.z < 0.0f; /* inside the shell */
    }
    double n = p.count ? (double)p.count : 1.0;
    double potential = (100.0 * delivered + 10.0 * lifted) / n, reward = potential - x->potential;
    x->potential = potential;
    info->progress = delivered / n;
    info->terminated = delivered == p.count;
    return reward;
}

/* Drive the joints towards the next pose of the dig-lift-dump cycle; on arrival, the next. */
static void scripted(loam_env* env, float* action) {
    excavation* x = env->task_data;
    const float* target = CYCLE[x->waypoint];
    float worst = 0.0f;
    for (int j = 0; j < JOINTS; ++j) {
        float e = target[j] - x->chain.q[j];
        worst = fmaxf(worst, fabsf(e));
        action[j] = env_clampf(2.0f * e / x->chain.links[j].max_velocity, -0.5f, 0.5f);
    }
    if (worst < 0.03f) x->waypoint = (x->waypoint + 1) % CYCLE_POSES;
}

static loam_camera camera(const loam_env* env) {
    (void)env;
    return env_view((loam_vec3){1.6f, -1.3f, 1.1f}, (loam_vec3){0.35f, 0.1f, 0.2f}, 40.0f);
}

const env_task env_excavation_task = {build,  add_bodies, populate, drive,  after_step,        observe, score,
                                       scripted, camera, NULL, sizeof(excavation), NULL, NULL};
