/* The granular model: particles by id, bodies and default parameters, shared by the worlds made
 * from it (loam_world_create_from_model, world.c). Reference counted, so a world keeps its model
 * alive; counted with atomics, so worlds of one model may be made and destroyed on any threads. */
#include <math.h>
#include <string.h>

#include "core/context.h"
#include "granular/model_build.h"
#include "granular/world_internal.h"

loam_granular_model* loam_granular_model_alloc(const loam_granular_params* params, int is_private, loam_error* err) {
    loam_granular_params p = params ? *params : loam_granular_default_params();
    if (loam_granular_params_validate(&p, err) != LOAM_OK) return NULL;
    p.context = loam_ctx_resolve(p.context); /* fixed from here on: its worlds allocate in it too */
    loam_granular_model* m = loam_ctx_calloc(p.context, 1, sizeof *m);
    if (!m) {
        loam_error_set(err, LOAM_ERR_NOMEM, "out of memory creating a granular model");
        return NULL;
    }
    m->params = p;
    m->refs = 1;
    m->is_private = is_private;
    return m;
}

loam_granular_model* loam_granular_model_create(const loam_granular_params* params, loam_error* err) {
    return loam_granular_model_alloc(params, 0, err);
}

void loam_granular_model_retain(loam_granular_model* m) { __atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED); }

void loam_granular_model_destroy(loam_granular_model* m) {
    if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    loam_free(m->radius);
    loam_free(m->inv_mass);
    loam_free(m->xyz);
    loam_free(m->vel);
    loam_free(m->body_defs);
    loam_free(m->shapes);
    loam_free(m);
}

loam_status loam_granular_check_particles(const loam_granular_params* p, int count, int n, const float* xyz, const float* vel,
                                          const float* radius, float density, loam_error* err) {
    if (n < 0 || (n > 0 && (!xyz || !radius)))
        return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: null arrays, or n = %d < 0", n);
    if (!(isfinite(density) && density > 0.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: density %g must be > 0 (kg/m^3)", density);
    if (n > (1 << 28) - count)
        return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: %d particles is more than loam supports", n);
    for (int i = 0; i < n; ++i) {
        float r = radius[i];
        if (!(isfinite(r) && r > 0.0f && r < 1e3f))
            return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: particle %d radius %g must be in (0, 1000) m", i, r);
        for (int k = 0; k < 3; ++k) {
            if (!isfinite(xyz[3 * i + k]) || fabsf(xyz[3 * i + k]) > p->bound)
                return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: particle %d position %g is not finite or beyond bound %g",
                                      i, xyz[3 * i + k], p->bound);
            if (vel && !isfinite(vel[3 * i + k]))
                return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: particle %d velocity is not finite", i);
        }
    }
    return LOAM_OK;
}

/* Grow an array of `each` bytes per element to `capacity` elements, keeping `count`. */
static int grow(void** a, size_t each, int count, int capacity) {
    void* p = loam_malloc(each * (size_t)capacity);
    if (!p) return 0;
    if (*a) memcpy(p, *a, each * (size_t)count);
    loam_free(*a);
    *a = p;
    return 1;
}

static int frozen(const loam_granular_model* m) { return __atomic_load_n(&m->frozen, __ATOMIC_ACQUIRE); }

static loam_status model_add_particles(loam_granular_model* m, int n, const float* xyz, const float* vel, const float* radius,
                                      float density, loam_error* err) {
    if (m->is_private) return loam_error_set(err, LOAM_ERR_INPUT, "model add_particles: a world's private model (use loam_world_add_particles)");
    if (frozen(m))
        return loam_error_set(err, LOAM_ERR_INPUT, "model add_particles: the model already has worlds (a model is fixed once worlds are made from it)");
    loam_status st = loam_granular_check_particles(&m->params, m->count, n, xyz, vel, radius, density, err);
    if (st != LOAM_OK) return st;
    int need = m->count + n;
    if (need > m->capacity) {
        int cap = m->capacity ? m->capacity : 1024;
        while (cap < need) cap = cap > (1 << 27) ? need : cap * 2;
        int ok = grow((void**)&m->radius, sizeof(float), m->count, cap) && grow((void**)&m->inv_mass, sizeof(float), m->count, cap) &&
                 grow((void**)&m->xyz, 3 * sizeof(float), m->count, cap) && (!m->vel || grow((void**)&m->vel, 3 * sizeof(float), m->count, cap));
        if (!ok) return loam_error_set(err, LOAM_ERR_NOMEM, "model add_particles: out of memory for %d particles", cap);
        m->capacity = cap;
    }
    if (vel && !m->vel) { /* the first moving particles: the ones before are at rest */
        m->vel = loam_calloc((size_t)m->capacity, 3 * sizeof(float));
        if (!m->vel) return loam_error_set(err, LOAM_ERR_NOMEM, "model add_particles: out of memory for %d velocities", m->capacity);
    }
    for (int i = 0; i < n; ++i) {
        int k = m->count + i;
        float r = radius[i];
        m->radius[k] = r;
        m->inv_mass[k] = loam_particle_inv_mass(density, r);
        memcpy(&m->xyz[3 * (size_t)k], &xyz[3 * (size_t)i], 3 * sizeof(float));
        if (m->vel) {
            for (int a = 0; a < 3; ++a) m->vel[3 * (size_t)k + a] = vel ? vel[3 * (size_t)i + a] : 0.0f;
        }
        if (r > m->max_radius) m->max_radius = r;
    }
    m->count = need;
    return LOAM_OK;
}

loam_status loam_granular_model_add_particles(loam_granular_model* m, int n, const float* xyz, const float* vel,
                                              const float* radius, float density, loam_error* err) {
    if (!m) return loam_error_set(err, LOAM_ERR_INPUT, "model add_particles: null model");
    loam_status st;
    LOAM_IN_CONTEXT(m->params.context, st = model_add_particles(m, n, xyz, vel, radius, density, err));
    return st;
}

int loam_granular_model_append_body(loam_granular_model* m, const loam_body_def* def, loam_error* err) {
    if (!def) {
        loam_error_set(err, LOAM_ERR_INPUT, "add_body: null definition");
        return -1;
    }
    if (loam_body_def_validate(def, err) != LOAM_OK) return -1;
    if (m->body_count == m->body_capacity) {
        int cap = m->body_capacity ? 2 * m->body_capacity : 8;
        if (!grow((void**)&m->body_defs, sizeof(loam_body_def), m->body_count, cap)) {
            loam_error_set(err, LOAM_ERR_NOMEM, "add_body: out of memory");
            return -1;
        }
        m->body_capacity = cap;
    }
    loam_shape_ref* shapes = loam_malloc(sizeof *shapes * (size_t)(m->shape_count + def->shape_count));
    if (!shapes) {
        loam_error_set(err, LOAM_ERR_NOMEM, "add_body: out of memory");
        return -1;
    }
    if (m->shape_count) memcpy(shapes, m->shapes, sizeof *shapes * (size_t)m->shape_count);
    int b = m->body_count++;
    for (int s = 0; s < def->shape_count; ++s) {
        shapes[m->shape_count + s].body = b;
        shapes[m->shape_count + s].shape = def->shapes[s];
    }
    loam_free(m->shapes);
    m->shapes = shapes;
    m->shape_count += def->shape_count;
    m->body_defs[b] = *def;
    m->body_defs[b].name[LOAM_NAME_MAX - 1] = '\0';
    return b;
}

int loam_granular_model_add_body(loam_granular_model* m, const loam_body_def* def, loam_error* err) {
    if (!m || m->is_private || frozen(m)) {
        loam_error_set(err, LOAM_ERR_INPUT, "model add_body: %s", !m ? "null model"
                       : m->is_private ? "a world's private model (use loam_world_add_body)"
                                       : "the model already has worlds (a model is fixed once worlds are made from it)");
        return -1;
    }
    int b;
    LOAM_IN_CONTEXT(m->params.context, b = loam_granular_model_append_body(m, def, err));
    return b;
}

loam_granular_model* loam_granular_model_copy_private(const loam_granular_model* src) {
    loam_granular_model* m = loam_granular_model_alloc(&src->params, 1, NULL);
    if (!m) return NULL;
    int ok = 1;
    if (src->body_count) {
        m->body_defs = loam_malloc(sizeof(loam_body_def) * (size_t)src->body_count);
        m->shapes = loam_malloc(sizeof(loam_shape_ref) * (size_t)(src->shape_count ? src->shape_count : 1));
        ok = m->body_defs && m->shapes;
        if (ok) {
            memcpy(m->body_defs, src->body_defs, sizeof(loam_body_def) * (size_t)src->body_count);
            memcpy(m->shapes, src->shapes, sizeof(loam_shape_ref) * (size_t)src->shape_count);
            m->body_count = m->body_capacity = src->body_count;
            m->shape_count = src->shape_count;
        }
    }
    if (!ok) {
        loam_granular_model_destroy(m);
        return NULL;
    }
    return m;
}

int loam_granular_model_particle_count(const loam_granular_model* m) { return m ? m->count : 0; }
int loam_granular_model_body_count(const loam_granular_model* m) { return m ? m->body_count : 0; }
const loam_granular_params* loam_granular_model_params(const loam_granular_model* m) { return m ? &m->params : NULL; }

size_t loam_granular_model_memory(const loam_granular_model* m) {
    if (!m) return 0;
    size_t cap = (size_t)m->capacity;
    return sizeof *m + cap * (2 + 3 + (m->vel ? 3 : 0)) * sizeof(float) + (size_t)m->body_capacity * sizeof(loam_body_def) +
           (size_t)m->shape_count * sizeof(loam_shape_ref);
}

loam_granular_model* loam_granular_model_from_world(const loam_world* w, loam_error* err) {
    if (!w || !w->model->is_private || w->step != 0) {
        loam_error_set(err, LOAM_ERR_INPUT, "model from world: not a world of loam_world_create that never stepped");
        return NULL;
    }
    loam_granular_model* m = loam_granular_model_alloc(&w->params, 0, err);
    if (!m) return NULL;
    int n = w->count, moving = 0;
    for (int k = 0; k < n && !moving; ++k) moving = w->vx[k] != 0.0f || w->vy[k] != 0.0f || w->vz[k] != 0.0f;
    size_t cap = (size_t)(n ? n : 1);
    m->radius = loam_malloc(sizeof(float) * cap);
    m->inv_mass = loam_malloc(sizeof(float) * cap);
    m->xyz = loam_malloc(3 * sizeof(float) * cap);
    m->vel = moving ? loam_malloc(3 * sizeof(float) * cap) : NULL;
    int ok = m->radius && m->inv_mass && m->xyz && (!moving || m->vel);
    for (int k = 0; ok && k < n; ++k) {
        int32_t id = w->id[k]; /* no renumbering before the first step: k, but by id to be sure */
        m->radius[id] = w->radius[k];
        m->inv_mass[id] = w->inv_mass[k];
        m->xyz[3 * id] = w->x[k], m->xyz[3 * id + 1] = w->y[k], m->xyz[3 * id + 2] = w->z[k];
        if (moving) m->vel[3 * id] = w->vx[k], m->vel[3 * id + 1] = w->vy[k], m->vel[3 * id + 2] = w->vz[k];
    }
    m->count = m->capacity = n;
    m->max_radius = w->max_radius;
    for (int b = 0; ok && b < w->body_count; ++b) ok = loam_granular_model_append_body(m, &w->body_defs[b], err) == b;
    if (!ok) {
        loam_granular_model_destroy(m);
        if (err && err->status == LOAM_OK) loam_error_set(err, LOAM_ERR_NOMEM, "model from world: out of memory");
        return NULL;
    }
    return m;
}

void loam_world_start_body(loam_world* w, int body, loam_pose pose, loam_twist twist) {
    if (!w || body < 0 || body >= w->body_count) return;
    w->bodies[body].pose = pose;
    w->bodies[body].twist = twist;
}
