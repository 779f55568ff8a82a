/* Building a granular world and reading it back. */
#include <math.h>
#include <string.h>

#include "core/context.h"
#include "core/vec.h"
#include "granular/rows.h"
#include "granular/world_internal.h"

loam_granular_params loam_granular_default_params(void) {
    loam_granular_params p;
    memset(&p, 0, sizeof p);
    p.dt = 1e-3;
    p.gravity = v3(0.0f, 0.0f, -9.81f);
    p.solver = LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL;
    p.sweeps = 3;
    p.tolerance = 0.0f;
    p.baumgarte = 0.2f;
    p.relaxation = 0.0f; /* the method's */
    p.friction = 0.5f;
    p.damping = 0.0f;
    p.margin = 0.1f;
    p.skin = 0.3f;
    p.warm_start = 1;
    p.hash_table_size = 0;
    p.reorder_interval = 10;
    p.push_sweeps = -1; /* the method's */
    p.periodic_axis = -1;
    p.bound = 1e4f;
    p.sleep_speed = 0.0f;
    p.sleep_time = 0.05f;
    return p;
}

/* Mass-split Jacobi gives a contact about 1/n of the mass Gauss-Seidel gives it, so three sweeps
 * leave a dense bed compressed; over-relaxation below 2 is sound for it (docs/solver.md, and
 * loam_row_mass: a lone contact keeps 1), and 1.8 cuts the largest overlap of a 50k column from
 * 0.25 to 0.16 r and brings a plough's blade force near Gauss-Seidel's (252 against 264 N; 134 N
 * at 1). Its pushes start from zero every step and a second sweep barely moves the bed (overlap
 * 0.255 r against 0.253 r with one), so it runs one. */
float loam_granular_relaxation(const loam_granular_params* p) {
    if (p->relaxation > 0.0f) return p->relaxation;
    return p->solver == LOAM_GRANULAR_SOLVER_JACOBI ? 1.8f : 1.0f;
}

int loam_granular_push_sweeps(const loam_granular_params* p) {
    if (p->push_sweeps >= 0) return p->push_sweeps;
    return p->solver == LOAM_GRANULAR_SOLVER_JACOBI ? 1 : 2;
}

loam_status loam_granular_params_validate(const loam_granular_params* p, loam_error* err) {
#define REQUIRE(cond, field, fmt, value)                                                              \
    if (!(cond)) return loam_error_set(err, LOAM_ERR_INPUT, "parameter %s = " fmt ": %s", field, value, #cond)
    REQUIRE(isfinite(p->dt) && p->dt > 0.0 && p->dt <= 1.0, "dt", "%g", p->dt);
    REQUIRE(v3_is_finite(p->gravity), "gravity", "%g", (double)v3_length(p->gravity));
    REQUIRE(p->solver == LOAM_GRANULAR_SOLVER_GAUSS_SEIDEL || p->solver == LOAM_GRANULAR_SOLVER_JACOBI, "solver", "%d", (int)p->solver);
    REQUIRE(p->sweeps >= 1 && p->sweeps <= 100000, "sweeps", "%d", p->sweeps);
    REQUIRE(isfinite(p->tolerance) && p->tolerance >= 0.0f, "tolerance", "%g", p->tolerance);
    REQUIRE(isfinite(p->baumgarte) && p->baumgarte >= 0.0f && p->baumgarte <= 1.0f, "baumgarte", "%g", p->baumgarte);
    REQUIRE(isfinite(p->relaxation) && p->relaxation >= 0.0f && p->relaxation <= 2.0f, "relaxation", "%g", p->relaxation);
    REQUIRE(isfinite(p->friction) && p->friction >= 0.0f, "friction", "%g", p->friction);
    REQUIRE(isfinite(p->damping) && p->damping >= 0.0f, "damping", "%g", p->damping);
    REQUIRE(isfinite(p->margin) && p->margin >= 0.0f && p->margin <= 1.0f, "margin", "%g", p->margin);
    REQUIRE(isfinite(p->skin) && p->skin >= 0.0f && p->skin <= 2.0f, "skin", "%g", p->skin);
    REQUIRE(p->warm_start == 0 || p->warm_start == 1, "warm_start", "%d", p->warm_start);
    REQUIRE(p->hash_table_size >= 0, "hash_table_size", "%d", p->hash_table_size);
    REQUIRE(p->push_sweeps >= -1 && p->push_sweeps <= 100000, "push_sweeps", "%d", p->push_sweeps);
    REQUIRE(p->reorder_interval >= 0, "reorder_interval", "%d", p->reorder_interval);
    REQUIRE(p->periodic_axis >= -1 && p->periodic_axis <= 2, "periodic_axis", "%d", p->periodic_axis);
    REQUIRE(isfinite(p->bound) && p->bound > 0.0f && p->bound <= 1e7f, "bound", "%g", p->bound);
    REQUIRE(isfinite(p->sleep_speed) && p->sleep_speed >= 0.0f && p->sleep_speed <= 1e3f, "sleep_speed", "%g", p->sleep_speed);
    REQUIRE(isfinite(p->sleep_time) && p->sleep_time >= 0.0f && p->sleep_time <= 1e6f, "sleep_time", "%g", p->sleep_time);
    REQUIRE(p->threads >= 0 && p->threads <= 4096, "threads", "%d", p->threads);
    if (p->periodic_axis >= 0) {
        REQUIRE(isfinite(p->periodic_lo) && isfinite(p->periodic_hi) && p->periodic_hi > p->periodic_lo,
                "periodic_hi", "%g", p->periodic_hi);
    }
#undef REQUIRE
    return LOAM_OK;
}

static loam_world* world_alloc(loam_granular_model* m, loam_error* err) {
    loam_world* w = loam_ctx_calloc(m->params.context, 1, sizeof *w); /* the model's context: every block of the world */
    if (!w) {
        loam_error_set(err, LOAM_ERR_NOMEM, "out of memory creating a world");
        return NULL;
    }
    w->model = m;
    w->params = m->params;
    w->team = 1;
    w->coloring.colored_step = -1;
    loam_world_see_model(w);
    return w;
}

loam_world* loam_world_create(const loam_granular_params* params, loam_error* err) {
    loam_granular_model* m = loam_granular_model_alloc(params, 1, err);
    if (!m) return NULL;
    loam_world* w = world_alloc(m, err);
    if (!w) loam_granular_model_destroy(m);
    return w;
}

static loam_world* world_from_model(loam_granular_model* m, loam_error* err) {
    if (m->is_private) {
        loam_error_set(err, LOAM_ERR_INPUT, "world from model: a world's private model (make worlds from a loam_granular_model_create model)");
        return NULL;
    }
    __atomic_store_n(&m->frozen, 1, __ATOMIC_RELEASE); /* before any world can read it */
    loam_granular_model_retain(m);
    loam_world* w = world_alloc(m, err);
    if (!w) {
        loam_granular_model_destroy(m);
        return NULL;
    }
    size_t n = (size_t)m->count, cap = n ? n : 1;
    float** arrays[] = {&w->radius, &w->inv_mass, &w->x, &w->y, &w->z, &w->vx, &w->vy, &w->vz};
    int ok = 1;
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) ok = (*arrays[k] = loam_malloc(sizeof(float) * cap)) && ok;
    ok = (w->id = loam_malloc(sizeof(int32_t) * cap)) && ok;
    ok = (w->bodies = loam_calloc((size_t)(m->body_count ? m->body_count : 1), sizeof(loam_body_state))) && ok;
    if (!ok) {
        loam_world_destroy(w);
        loam_error_set(err, LOAM_ERR_NOMEM, "world from model: out of memory for %zu particles", n);
        return NULL;
    }
    /* Slot k holds particle k, as a world filled by add_particles does: the same bits. */
    memcpy(w->radius, m->radius, sizeof(float) * n);
    memcpy(w->inv_mass, m->inv_mass, sizeof(float) * n);
    for (size_t k = 0; k < n; ++k) {
        w->id[k] = (int32_t)k;
        w->x[k] = m->xyz[3 * k];
        w->y[k] = m->xyz[3 * k + 1];
        w->z[k] = m->xyz[3 * k + 2];
        w->vx[k] = m->vel ? m->vel[3 * k] : 0.0f;
        w->vy[k] = m->vel ? m->vel[3 * k + 1] : 0.0f;
        w->vz[k] = m->vel ? m->vel[3 * k + 2] : 0.0f;
    }
    w->count = w->capacity = (int)n;
    w->max_radius = m->max_radius;
    for (int b = 0; b < m->body_count; ++b) loam_body_motion_eval(&m->body_defs[b], 0.0, &w->bodies[b].pose, &w->bodies[b].twist);
    return w;
}

loam_world* loam_world_create_from_model(loam_granular_model* m, loam_error* err) {
    if (!m) {
        loam_error_set(err, LOAM_ERR_INPUT, "world from model: null model");
        return NULL;
    }
    loam_world* w;
    LOAM_IN_CONTEXT(m->params.context, w = world_from_model(m, err));
    return w;
}

const loam_granular_model* loam_world_model(const loam_world* w) { return w ? w->model : NULL; }

/* Before a world of loam_world_create adds to its private model: a model that a clone shares
 * becomes this world's alone. 0 when out of memory. */
static int own_private_model(loam_world* w) {
    if (__atomic_load_n(&w->model->refs, __ATOMIC_ACQUIRE) == 1) return 1;
    loam_granular_model* m = loam_granular_model_copy_private(w->model);
    if (!m) return 0;
    loam_granular_model_destroy(w->model);
    w->model = m;
    loam_world_see_model(w);
    return 1;
}

static void scratch_free(loam_world* w) {
    loam_hash_free(&w->hash);
    loam_contacts_free(w);
    loam_free(w->sv);
    loam_free(w->sv_prev);
    loam_neighbors_free(&w->neighbors);
    loam_free(w->coloring.mask);
    loam_free(w->coloring.region);
    loam_free(w->coloring.listed_from);
    loam_free(w->coloring.marks);
    loam_free(w->coloring.tasks);
    loam_free(w->coloring.block_order);
    loam_free(w->coloring.rows.i);
    loam_free(w->coloring.rows.j);
    loam_free(w->coloring.rows.fields);
    memset(&w->coloring, 0, sizeof w->coloring);
    w->coloring.colored_step = -1;
    w->sv_prev = NULL;
    loam_free(w->spare);
    w->spare = NULL;
    w->spare_bytes = w->spare_asked = 0;
    w->vel_pack = NULL;
    loam_free(w->contact_total);
    loam_free(w->calm);
    loam_free(w->wake);
    loam_free(w->asleep);
    w->calm = NULL;
    w->wake = w->asleep = NULL;
    w->stats.sleeping = w->sleep_changed = 0;
    loam_free(w->block_scratch);
    loam_free(w->radix_counts);
    w->radix_counts = NULL;
    loam_free(w->shape_pose);
    loam_free(w->shape_lo);
    loam_free(w->shape_hi);
    loam_free(w->block_need);
    loam_free(w->block_info);
    w->block_need = NULL;
    w->block_info = NULL;
    w->layout_at_last_step = 0;
    w->sv = w->block_scratch = NULL;
    w->contact_total = NULL;
    w->contact_total_stale = 0;
    w->shape_pose = NULL;
    w->shape_lo = w->shape_hi = NULL;
    w->ready = 0;
}

void loam_world_destroy(loam_world* w) {
    if (!w) return;
    scratch_free(w);
    float* arrays[] = {w->radius, w->inv_mass, w->x, w->y, w->z, w->vx, w->vy, w->vz};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) loam_free(arrays[k]);
    loam_free(w->id);
    loam_free(w->bodies);
    loam_granular_model_destroy(w->model);
    loam_free(w);
}

/* Grow a float array to hold `capacity` values, keeping `count`. */
static int grow(float** a, int count, int capacity) {
    float* p = loam_malloc(sizeof(float) * (size_t)capacity);
    if (!p) return 0;
    if (*a) memcpy(p, *a, sizeof(float) * (size_t)count);
    loam_free(*a);
    *a = p;
    return 1;
}

static loam_status check_private(loam_world* w, const char* what, loam_error* err) {
    if (!w) return loam_error_set(err, LOAM_ERR_INPUT, "%s: null world", what);
    if (!w->model->is_private)
        return loam_error_set(err, LOAM_ERR_INPUT, "%s: the world was made from a shared model (add to the model before making worlds)", what);
    if (!own_private_model(w)) return loam_error_set(err, LOAM_ERR_NOMEM, "%s: out of memory", what);
    return LOAM_OK;
}

static loam_status world_add_particles(loam_world* w, int n, const float* xyz, const float* vel, const float* radius,
                                      float density, loam_error* err) {
    loam_status st = check_private(w, "add_particles", err);
    if (st != LOAM_OK) return st;
    if (w->step > 0)
        return loam_error_set(err, LOAM_ERR_INPUT, "add_particles: particles must be added before the first step");
    st = loam_granular_check_particles(&w->params, w->count, n, xyz, vel, radius, density, err);
    if (st != LOAM_OK) return st;
    int need = w->count + n;
    if (need > w->capacity) {
        int cap = w->capacity ? w->capacity : 1024;
        while (cap < need) cap = cap > (1 << 27) ? need : cap * 2;
        float** arrays[] = {&w->radius, &w->inv_mass, &w->x, &w->y, &w->z, &w->vx, &w->vy, &w->vz};
        for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
            if (!grow(arrays[k], w->count, cap))
                return loam_error_set(err, LOAM_ERR_NOMEM, "add_particles: out of memory for %d particles", cap);
        int32_t* id = loam_malloc(sizeof(int32_t) * (size_t)cap);
        if (!id) return loam_error_set(err, LOAM_ERR_NOMEM, "add_particles: out of memory for %d particles", cap);
        if (w->count) memcpy(id, w->id, sizeof(int32_t) * (size_t)w->count);
        loam_free(w->id);
        w->id = id;
        w->capacity = cap;
    }
    for (int i = 0; i < n; ++i) {
        int k = w->count + i;
        float r = radius[i];
        w->radius[k] = r;
        w->id[k] = k;
        w->inv_mass[k] = loam_particle_inv_mass(density, r);
        w->x[k] = xyz[3 * i];
        w->y[k] = xyz[3 * i + 1];
        w->z[k] = xyz[3 * i + 2];
        w->vx[k] = vel ? vel[3 * i] : 0.0f;
        w->vy[k] = vel ? vel[3 * i + 1] : 0.0f;
        w->vz[k] = vel ? vel[3 * i + 2] : 0.0f;
        if (r > w->max_radius) w->max_radius = r;
    }
    w->count = need;
    scratch_free(w);
    return LOAM_OK;
}

loam_status loam_world_add_particles(loam_world* w, int n, const float* xyz, const float* vel,
                                     const float* radius, float density, loam_error* err) {
    loam_status st;
    LOAM_IN_CONTEXT(w ? w->params.context : NULL, st = world_add_particles(w, n, xyz, vel, radius, density, err));
    return st;
}

static int world_add_body(loam_world* w, const loam_body_def* def, loam_error* err) {
    if (check_private(w, "add_body", err) != LOAM_OK) return -1;
    loam_body_state* states = loam_malloc(sizeof *states * (size_t)(w->body_count + 1));
    if (!states) {
        loam_error_set(err, LOAM_ERR_NOMEM, "add_body: out of memory");
        return -1;
    }
    int b = loam_granular_model_append_body(w->model, def, err);
    if (b < 0) {
        loam_free(states);
        return -1;
    }
    if (w->body_count) memcpy(states, w->bodies, sizeof *states * (size_t)w->body_count);
    loam_free(w->bodies);
    w->bodies = states;
    loam_world_see_model(w);
    loam_body_state* st = &w->bodies[b];
    memset(st, 0, sizeof *st);
    loam_body_motion_eval(&w->body_defs[b], w->time, &st->pose, &st->twist);
    scratch_free(w);
    return b;
}

int loam_world_add_body(loam_world* w, const loam_body_def* def, loam_error* err) {
    int b;
    LOAM_IN_CONTEXT(w ? w->params.context : NULL, b = world_add_body(w, def, err));
    return b;
}

loam_status loam_world_set_params(loam_world* w, const loam_granular_params* p, loam_error* err) {
    if (!w || !p) return loam_error_set(err, LOAM_ERR_INPUT, "set_params: null world or parameters");
    loam_status st = loam_granular_params_validate(p, err);
    if (st != LOAM_OK) return st;
    const loam_granular_params* o = &w->params;
    int structural = p->periodic_axis != o->periodic_axis || p->periodic_lo != o->periodic_lo ||
                     p->periodic_hi != o->periodic_hi || p->hash_table_size != o->hash_table_size || p->bound != o->bound;
    loam_context* ctx = w->params.context; /* fixed at creation, whatever p says */
    w->params = *p;
    w->params.context = ctx;
    if (structural) scratch_free(w);
    w->neighbors.valid = 0; /* a new margin or skin needs a new list */
    return LOAM_OK;
}

loam_status loam_world_set_threads(loam_world* w, int threads, loam_error* err) {
    if (!w) return loam_error_set(err, LOAM_ERR_INPUT, "set_threads: null world");
    if (threads < 0 || threads > 4096)
        return loam_error_set(err, LOAM_ERR_INPUT, "set_threads: threads = %d (expected 0 (the default) .. 4096)", threads);
    w->params.threads = threads; /* nothing else: the neighbour list and warm start stay, and so do the bits */
    return LOAM_OK;
}

loam_status loam_world_command_body(loam_world* w, int body, loam_twist twist, loam_error* err) {
    if (!w || body < 0 || body >= w->body_count)
        return loam_error_set(err, LOAM_ERR_INPUT, "command_body: no body %d", body);
    if (w->body_defs[body].motion != LOAM_MOTION_COMMANDED)
        return loam_error_set(err, LOAM_ERR_INPUT, "command_body: body '%s' has %s motion, not commanded",
                              w->body_defs[body].name, loam_motion_type_name(w->body_defs[body].motion));
    if (!v3_is_finite(twist.v) || !v3_is_finite(twist.w))
        return loam_error_set(err, LOAM_ERR_INPUT, "command_body: body '%s': twist is not finite", w->body_defs[body].name);
    w->bodies[body].twist = twist;
    return LOAM_OK;
}

loam_status loam_world_place_body(loam_world* w, int body, loam_pose pose, loam_error* err) {
    if (!w || body < 0 || body >= w->body_count) return loam_error_set(err, LOAM_ERR_INPUT, "place_body: no body %d", body);
    if (w->body_defs[body].motion != LOAM_MOTION_COMMANDED)
        return loam_error_set(err, LOAM_ERR_INPUT, "place_body: body '%s' has %s motion, not commanded",
                              w->body_defs[body].name, loam_motion_type_name(w->body_defs[body].motion));
    float n = sqrtf(pose.q.w * pose.q.w + pose.q.x * pose.q.x + pose.q.y * pose.q.y + pose.q.z * pose.q.z);
    if (!v3_is_finite(pose.p) || !(n > 0.5f && n < 2.0f))
        return loam_error_set(err, LOAM_ERR_INPUT, "place_body: body '%s': pose is not finite or not a rotation",
                              w->body_defs[body].name);
    pose.q = quat_normalize(pose.q);
    w->bodies[body].pose = pose;
    return LOAM_OK;
}

loam_particles loam_world_particles(loam_world* w) {
    /* Counted here, on request: a Gauss-Seidel step never needs them (Jacobi's count every step).
     * Out of memory, the particles report no counts (contact_count NULL). */
    int counted;
    LOAM_IN_CONTEXT(w->params.context, counted = w->contact_total_stale && loam_contacts_count(w));
    if (counted) w->contact_total_stale = 0;
    loam_particles p = {w->count, w->x, w->y, w->z, w->vx, w->vy, w->vz, w->radius, w->inv_mass, w->contact_total, w->id};
    return p;
}

const loam_granular_params* loam_world_params(const loam_world* w) { return &w->params; }
double loam_world_time(const loam_world* w) { return w->time; }
int64_t loam_world_step_index(const loam_world* w) { return w->step; }
int loam_world_body_count(const loam_world* w) { return w->body_count; }
loam_step_stats loam_world_last_stats(const loam_world* w) { return w->stats; }

const loam_body_def* loam_world_body_def(const loam_world* w, int body) {
    return body >= 0 && body < w->body_count ? &w->body_defs[body] : NULL;
}

const loam_body_state* loam_world_body_state(const loam_world* w, int body) {
    return body >= 0 && body < w->body_count ? &w->bodies[body] : NULL;
}

int loam_world_find_body(const loam_world* w, const char* name) {
    for (int b = 0; b < w->body_count; ++b)
        if (strcmp(w->body_defs[b].name, name) == 0) return b;
    return -1;
}

/* Per-thread scratch (a neighbour-list build's gathering space, detection's block scratch: a block's
 * worth each) is left out, so the figure is the same for every thread count. */
size_t loam_world_memory(const loam_world* w) {
    size_t n = (size_t)w->count, cap = (size_t)w->capacity, blocks = (size_t)loam_block_count(w->count);
    size_t slots = w->contacts.pair_region ? (size_t)w->contacts.pair_region[blocks] : 0;
    size_t bslots = w->contacts.body_region ? (size_t)w->contacts.body_region[blocks] : 0;
    size_t bytes = cap * (8 * sizeof(float) + sizeof(int32_t));                     /* particles */
    /* neighbour list: count 2, reference position 12, scan slack 1; 2 bytes an entry */
    bytes += n * 15 + blocks * (size_t)w->neighbors.block_capacity * sizeof(uint16_t);
    /* contacts: two ends a particle; partner, ref and colour a pair slot; shape, impulse, colour,
     * owner, normal and distance a body slot */
    bytes += n * 2 * 4 + slots * (4 + 4 + 1) + bslots * (4 + 12 + 1 + 4 + 16);
    /* solver scratch: velocities 16, colour mask, sleep counter 4 and its two flags; the rows'
     * particles (2 + 4 a row), the renumbering's radix counts, the spare */
    bytes += n * (16 + sizeof(loam_color_mask) + 4 + 2) + (size_t)w->coloring.list_capacity * (2 + 4) + 65536 * 4 + w->spare_bytes;
    if (w->sv_prev) bytes += n * 16;       /* Jacobi's snapshot */
    if (w->contact_total) bytes += n * 4;  /* contact counts (Jacobi's, or a particle view's) */
    bytes += loam_rows_field_bytes((size_t)w->coloring.list_capacity); /* rows' fields */
    return bytes;
}

double loam_world_kinetic_energy(const loam_world* w) {
    double e = 0.0;
    for (int i = 0; i < w->count; ++i) {
        double v2 = (double)w->vx[i] * w->vx[i] + (double)w->vy[i] * w->vy[i] + (double)w->vz[i] * w->vz[i];
        e += 0.5 * v2 / w->inv_mass[i];
    }
    return e;
}
