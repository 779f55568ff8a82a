/* Reading a scene: each section of docs/scene-format.md has one function here, and each key is read
 * with its unit's bounds so a wrong value fails with its line and what was expected. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "loam/scene.h"
#include "scene/scene_internal.h"

#define TRY(expr)                            \
    do {                                     \
        loam_status try_status_ = (expr);    \
        if (try_status_) return try_status_; \
    } while (0)

static const double BIG = 1e7; /* positions and sizes, m: anything beyond is a typo */

static loam_status read_name(const snode* root, loam_scene* s, loam_error* err) {
    snode n;
    if (!snode_get(root, "name", &n)) return LOAM_OK;
    const char* v = snode_scalar(&n);
    if (!v || !*v || strlen(v) >= sizeof s->name) return snode_error(&n, err, "expected a name of 1 to %d characters", LOAM_NAME_MAX - 1);
    snprintf(s->name, sizeof s->name, "%s", v);
    return LOAM_OK;
}

static loam_status read_sim(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"dt", "duration", "gravity", "threads", "bound", NULL};
    snode m;
    if (!snode_get(root, "sim", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    TRY(opt_double(&m, "dt", 1e-7, 1.0, &s->params.dt, err));
    TRY(opt_double(&m, "duration", 0.0, 1e6, &s->duration, err));
    TRY(opt_vec3(&m, "gravity", -1e4, 1e4, &s->params.gravity, err));
    TRY(opt_int(&m, "threads", 0, 1024, &s->threads, err));
    TRY(opt_float(&m, "bound", 1e-3, 1e7, &s->params.bound, err));
    return LOAM_OK;
}

static loam_status read_solver(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const kinds[] = {"gauss_seidel", "jacobi", NULL};
    static const char* const keys[] = {"method", "sweeps", "tolerance", "baumgarte", "relaxation", "margin", "skin", "warm_start",
                                       "hash_table_size", "reorder_interval", "push_sweeps", "sleep_speed", "sleep_time", NULL};
    snode m;
    if (!snode_get(root, "solver", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    loam_granular_params* p = &s->params;
    int method = (int)p->solver;
    TRY(opt_enum(&m, "method", kinds, &method, err));
    p->solver = (loam_granular_solver)method;
    TRY(opt_int(&m, "sweeps", 1, 100000, &p->sweeps, err));
    TRY(opt_float(&m, "tolerance", 0.0, 1e3, &p->tolerance, err));
    TRY(opt_float(&m, "baumgarte", 0.0, 1.0, &p->baumgarte, err));
    TRY(opt_float(&m, "relaxation", 1e-3, 2.0, &p->relaxation, err));
    TRY(opt_float(&m, "margin", 0.0, 1.0, &p->margin, err));
    TRY(opt_float(&m, "skin", 0.0, 2.0, &p->skin, err));
    TRY(opt_bool(&m, "warm_start", &p->warm_start, err));
    TRY(opt_int(&m, "hash_table_size", 0, 1 << 30, &p->hash_table_size, err));
    TRY(opt_int(&m, "reorder_interval", 0, 1 << 30, &p->reorder_interval, err));
    TRY(opt_int(&m, "push_sweeps", 0, 100000, &p->push_sweeps, err));
    TRY(opt_float(&m, "sleep_speed", 0.0, 1e3, &p->sleep_speed, err));
    TRY(opt_float(&m, "sleep_time", 0.0, 1e6, &p->sleep_time, err));
    return LOAM_OK;
}

static loam_status read_material(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"density", "friction", "damping", NULL};
    snode m;
    if (!snode_get(root, "material", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    TRY(opt_float(&m, "density", 1e-3, 1e6, &s->density, err));
    TRY(opt_float(&m, "friction", 0.0, 100.0, &s->params.friction, err));
    TRY(opt_float(&m, "damping", 0.0, 1e6, &s->params.damping, err));
    return LOAM_OK;
}

static loam_status read_periodic(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"axis", "lo", "hi", NULL};
    static const char* const axes[] = {"none", "x", "y", "z", NULL};
    snode m;
    if (!snode_get(root, "periodic", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    int axis = 0;
    TRY(opt_enum(&m, "axis", axes, &axis, err));
    s->params.periodic_axis = axis - 1;
    if (axis == 0) return LOAM_OK;
    snode lo, hi;
    if (!snode_get(&m, "lo", &lo) || !snode_get(&m, "hi", &hi))
        return snode_error(&m, err, "a periodic axis needs both lo and hi (m)");
    double a, b;
    TRY(snode_double(&lo, -BIG, BIG, &a, err));
    TRY(snode_double(&hi, -BIG, BIG, &b, err));
    if (!(b > a)) return snode_error(&hi, err, "hi = %g must be greater than lo = %g", b, a);
    s->params.periodic_lo = (float)a;
    s->params.periodic_hi = (float)b;
    return LOAM_OK;
}

static loam_status read_output(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"frames", "png", "vtp", "video", "width", "height", "color_by", NULL};
    static const char* const colors[] = {"height", "speed", NULL};
    snode m;
    if (!snode_get(root, "output", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    loam_scene_output* o = &s->output;
    TRY(opt_int(&m, "frames", 0, 100000, &o->frames, err));
    TRY(opt_bool(&m, "png", &o->png, err));
    TRY(opt_bool(&m, "vtp", &o->vtp, err));
    TRY(opt_bool(&m, "video", &o->video, err));
    TRY(opt_int(&m, "width", 16, 8192, &o->width, err));
    TRY(opt_int(&m, "height", 16, 8192, &o->height, err));
    int c = (int)o->color_by;
    TRY(opt_enum(&m, "color_by", colors, &c, err));
    o->color_by = (loam_color_by)c;
    return LOAM_OK;
}

static loam_status read_camera(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"eye", "target", "up", "fov_deg", NULL};
    snode m;
    if (!snode_get(root, "camera", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    loam_scene_camera* c = &s->camera;
    snode n;
    c->has_eye = snode_get(&m, "eye", &n);
    c->has_target = snode_get(&m, "target", &n);
    TRY(opt_vec3(&m, "eye", -BIG, BIG, &c->eye, err));
    TRY(opt_vec3(&m, "target", -BIG, BIG, &c->target, err));
    TRY(opt_vec3(&m, "up", -1e3, 1e3, &c->up, err));
    TRY(opt_float(&m, "fov_deg", -1.0, 170.0, &c->fov_deg, err));
    if (c->has_eye && c->has_target && v3_length(v3_sub(c->eye, c->target)) <= 0.0f)
        return snode_error(&m, err, "eye and target must differ");
    if (v3_length(c->up) <= 0.0f) return snode_error(&m, err, "up must not be zero");
    return LOAM_OK;
}

/* An environment scene: every field of loam_env_config, with its kind's defaults. The world is the
 * environment's, so the sections that describe a world by hand are errors beside it. */
static loam_status read_environment(const snode* root, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"kind", "particles", "radius", "density", "friction", "dt", "sweeps",
                                       "steps_per_action", "episode_time", "gears", "max_gear_speed", "max_speed",
                                       "max_yaw_rate", "hash_table_size", "settle_steps", "sleep_speed", "seed", "reset_seed",
                                       NULL};
    static const char* const kinds[] = {"bulldozing", "gear_tower", "excavation", NULL};
    static const char* const hand_made[] = {"particles", "bodies", "solver", "material", "periodic", NULL};
    snode m, n;
    if (!snode_get(root, "environment", &m)) return LOAM_OK;
    TRY(snode_check_map(&m, keys, err));
    for (int k = 0; hand_made[k]; ++k)
        if (snode_get(root, hand_made[k], &n))
            return snode_error(&n, err, "'%s' cannot be combined with 'environment' (the environment builds its world)",
                               hand_made[k]);
    if (snode_get(root, "sim", &n) && snode_get(&n, "dt", &n))
        return snode_error(&n, err, "with 'environment', set the step as environment.dt");
    if (!snode_get(&m, "kind", &n)) return snode_error(&m, err, "an environment needs 'kind' (bulldozing, gear_tower or excavation)");
    int kind = 0;
    TRY(opt_enum(&m, "kind", kinds, &kind, err));
    loam_env_config* c = &s->environment;
    *c = loam_env_default_config((loam_env_kind)kind);
    int seed = (int)c->seed, reset_seed = 0;
    TRY(opt_int(&m, "particles", 1, 20000000, &c->particles, err));
    TRY(opt_float(&m, "radius", 1e-4, 0.1, &c->radius, err));
    TRY(opt_float(&m, "density", 1e-3, 1e6, &c->density, err));
    TRY(opt_float(&m, "friction", 0.0, 10.0, &c->friction, err));
    TRY(opt_double(&m, "dt", 1e-7, 0.01, &c->dt, err));
    TRY(opt_int(&m, "sweeps", 1, 1000, &c->sweeps, err));
    TRY(opt_int(&m, "steps_per_action", 1, 100000, &c->steps_per_action, err));
    TRY(opt_double(&m, "episode_time", 1e-6, 1e6, &c->episode_time, err));
    TRY(opt_int(&m, "gears", 1, 16, &c->gears, err));
    TRY(opt_float(&m, "max_gear_speed", 0.0, 1000.0, &c->max_gear_speed, err));
    TRY(opt_float(&m, "max_speed", 0.0, 10.0, &c->max_speed, err));
    TRY(opt_float(&m, "max_yaw_rate", 0.0, 20.0, &c->max_yaw_rate, err));
    TRY(opt_int(&m, "hash_table_size", 0, 1 << 30, &c->hash_table_size, err));
    TRY(opt_int(&m, "settle_steps", 0, 1000000, &c->settle_steps, err));
    TRY(opt_float(&m, "sleep_speed", 0.0, 10.0, &c->sleep_speed, err));
    TRY(opt_int(&m, "seed", 0, 2147483647, &seed, err));
    TRY(opt_int(&m, "reset_seed", 0, 2147483647, &reset_seed, err));
    c->seed = (uint64_t)seed;
    s->environment_reset_seed = (uint64_t)reset_seed;
    s->params.dt = c->dt;
    s->has_environment = 1;
    return loam_env_config_validate(c, err);
}

loam_status scene_read(scene_doc* d, loam_scene* s, loam_error* err) {
    static const char* const keys[] = {"loam", "name", "sim", "solver", "material", "periodic", "particles", "bodies",
                                       "output", "camera", "environment", NULL};
    snode root = doc_root(d);
    TRY(snode_check_map(&root, keys, err));
    snode version;
    if (snode_get(&root, "loam", &version)) {
        int v;
        TRY(snode_int(&version, 1, 1, &v, err));
    }
    TRY(read_name(&root, s, err));
    TRY(read_sim(&root, s, err));
    TRY(read_solver(&root, s, err));
    TRY(read_material(&root, s, err));
    TRY(read_periodic(&root, s, err));
    TRY(read_output(&root, s, err));
    TRY(read_camera(&root, s, err));
    TRY(scene_read_particles(&root, s, err));
    TRY(scene_read_bodies(&root, s, err));
    TRY(read_environment(&root, s, err));
    return LOAM_OK;
}
