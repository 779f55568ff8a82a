/* Populations: B robots, each copied into its own block; stepped one robot per thread at a time, so
 * a robot's result never depends on B, on its neighbours or on the thread count. */
#include <math.h>
#include <string.h>

#include "core/context.h"
#include "core/threads.h"
#include "core/vec.h"
#include "softbody/internal.h"

loam_softbody_def loam_softbody_default_def(void) {
    loam_softbody_def d;
    memset(&d, 0, sizeof d);
    d.solver = LOAM_SB_FORCE;
    d.env = LOAM_SB_WATER;
    d.dt = 1e-3;
    d.zeta = 0.99f;
    d.iterations = 4;
    d.rho = 1000.0f;
    d.drag_coefficient = 1.0f;
    d.lift_coefficient = 0.2f;
    d.linear_drag = 1.0f;
    d.gravity = v3(0.0f, 0.0f, -9.81f);
    d.floor_z = 0.0f;
    d.mu_static = 0.8f;
    d.mu_kinetic = 0.6f;
    d.collisions = 1;
    d.contact_radius = 0.0f;
    d.max_masses = 4096;
    d.bound = 1e4f;
    return d;
}

#define BAD(fmt, ...) return loam_error_set(err, LOAM_ERR_INPUT, "softbody def: " fmt, __VA_ARGS__)

loam_status loam_softbody_def_validate(const loam_softbody_def* d, loam_error* err) {
    if (!d) return loam_error_set(err, LOAM_ERR_INPUT, "softbody def: NULL definition");
    if ((int)d->solver < 0 || d->solver > LOAM_SB_XPBD_GS) BAD("solver = %d is not force, xpbd_jacobi or xpbd_gs", (int)d->solver);
    if ((int)d->env < 0 || d->env > LOAM_SB_VACUUM) BAD("env = %d is not water, linear_drag, land or vacuum", (int)d->env);
    if (!isfinite(d->dt) || !(d->dt > 0.0) || d->dt > 1.0) BAD("dt = %g s must lie in (0, 1]", d->dt);
    if (!(d->zeta > 0.0f && d->zeta <= 1.0f)) BAD("zeta = %g must lie in (0, 1]", (double)d->zeta);
    if (d->iterations < 1 || d->iterations > 10000) BAD("iterations = %d must lie in 1..10000", d->iterations);
    if (!(d->rho >= 0.0f) || !isfinite(d->rho)) BAD("rho = %g kg/m^3 must be finite and >= 0", (double)d->rho);
    if (!(d->drag_coefficient >= 0.0f) || !isfinite(d->drag_coefficient))
        BAD("drag_coefficient = %g must be finite and >= 0", (double)d->drag_coefficient);
    if (!isfinite(d->lift_coefficient)) BAD("lift_coefficient = %g must be finite", (double)d->lift_coefficient);
    if (!(d->linear_drag >= 0.0f) || !isfinite(d->linear_drag))
        BAD("linear_drag = %g N s/m must be finite and >= 0", (double)d->linear_drag);
    if (!v3_is_finite(d->gravity)) BAD("gravity (%g, %g, %g) must be finite", (double)d->gravity.x, (double)d->gravity.y,
                                       (double)d->gravity.z);
    if (!isfinite(d->floor_z)) BAD("floor_z = %g m must be finite", (double)d->floor_z);
    if (d->ground_count < 0 || d->ground_count > LOAM_SB_MAX_GROUND)
        BAD("ground_count = %d must lie in 0..%d", d->ground_count, (int)LOAM_SB_MAX_GROUND);
    if (d->ground_count > 0 && !d->ground) BAD("ground_count = %d but ground is NULL", d->ground_count);
    for (int g = 0; g < d->ground_count; ++g) {
        loam_error inner;
        if (loam_shape_validate(&d->ground[g], &inner)) BAD("ground[%d]: %s", g, inner.message);
    }
    if (!(d->mu_static >= 0.0f) || !isfinite(d->mu_static)) BAD("mu_static = %g must be finite and >= 0", (double)d->mu_static);
    if (!(d->mu_kinetic >= 0.0f) || !(d->mu_kinetic <= d->mu_static))
        BAD("mu_kinetic = %g must lie in [0, mu_static = %g]", (double)d->mu_kinetic, (double)d->mu_static);
    if (d->collisions != 0 && d->collisions != 1) BAD("collisions = %d must be 0 or 1", d->collisions);
    if (!(d->contact_radius >= 0.0f) || !isfinite(d->contact_radius))
        BAD("contact_radius = %g m must be finite and >= 0", (double)d->contact_radius);
    if (d->max_masses < 1 || d->max_masses > LOAM_SB_MAX_MASSES) BAD("max_masses = %d must lie in 1..%d", d->max_masses,
                                                                     LOAM_SB_MAX_MASSES);
    if (!(d->bound > 0.0f) || !isfinite(d->bound)) BAD("bound = %g m must be finite and > 0", (double)d->bound);
    if (d->threads < 0 || d->threads > 4096) BAD("threads = %d must lie in 0 (the default)..4096", d->threads);
    return LOAM_OK;
}

static loam_softbody_pop* pop_create(const loam_softbody_def* def, const loam_softbody_materials* mats,
                                     const loam_softbody_robot* const* robots, int count, loam_error* err) {
    if (loam_softbody_def_validate(def, err) || loam_softbody_materials_validate(mats, err)) return NULL;
    if (!robots || count < 1 || count > (1 << 24)) {
        loam_error_set(err, LOAM_ERR_INPUT, "softbody population: %d robots (need 1..%d and a robot array)", count, 1 << 24);
        return NULL;
    }
    for (int b = 0; b < count; ++b) {
        loam_error local;
        if (!robots[b]) {
            loam_error_set(err, LOAM_ERR_INPUT, "softbody population: robot %d is NULL", b);
            return NULL;
        }
        if (loam_softbody_robot_validate(robots[b], def->max_masses, &local)) {
            loam_error_set(err, local.status, "softbody population: robot %d: %s", b, local.message);
            return NULL;
        }
    }
    loam_context* ctx = loam_ctx_resolve(def->context);
    loam_softbody_pop* p = loam_ctx_calloc(ctx, 1, sizeof *p);
    if (!p || !(p->slots = loam_ctx_calloc(ctx, (size_t)count, sizeof *p->slots))) {
        loam_free(p);
        loam_error_set(err, LOAM_ERR_NOMEM, "softbody population: out of memory for %d robots", count);
        return NULL;
    }
    p->ctx = ctx;
    p->def = *def;
    for (int g = 0; g < def->ground_count; ++g) {
        p->ground[g] = def->ground[g];
        p->ground[g].local.q = quat_normalize(p->ground[g].local.q); /* the rule rotates by it */
    }
    p->def.ground = def->ground_count ? p->ground : NULL;
    p->mats = *mats;
    for (int b = 0; b < count; ++b) {
        if (sb_build_slot(p, robots[b], b, &p->slots[b], err)) {
            p->count = b + 1;
            loam_softbody_pop_destroy(p);
            return NULL;
        }
        p->springs += robots[b]->spring_count;
        p->count = b + 1;
    }
    return p;
}

/* In the population's context from the start: the blocks of the layers below (robot checks, the
 * spatial hash, colouring scratch) go there too. */
loam_softbody_pop* loam_softbody_pop_create(const loam_softbody_def* def, const loam_softbody_materials* mats,
                                            const loam_softbody_robot* const* robots, int count, loam_error* err) {
    loam_softbody_pop* p;
    LOAM_IN_CONTEXT(def ? def->context : NULL, p = pop_create(def, mats, robots, count, err));
    return p;
}

void loam_softbody_pop_destroy(loam_softbody_pop* p) {
    if (!p) return;
    for (int b = 0; b < p->count; ++b) sb_free_slot(&p->slots[b]);
    loam_free(p->slots);
    loam_free(p);
}

loam_status loam_softbody_pop_set_threads(loam_softbody_pop* p, int threads, loam_error* err) {
    if (!p) return loam_error_set(err, LOAM_ERR_INPUT, "softbody set_threads: NULL population");
    if (threads < 0 || threads > 4096)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody set_threads: threads = %d must lie in 0 (the default)..4096", threads);
    p->def.threads = threads;
    return LOAM_OK;
}

int loam_softbody_pop_count(const loam_softbody_pop* p) { return p ? p->count : 0; }
double loam_softbody_pop_time(const loam_softbody_pop* p) { return p ? p->time : 0.0; }
int64_t loam_softbody_pop_springs(const loam_softbody_pop* p) { return p ? p->springs : 0; }

loam_status loam_softbody_pop_step(loam_softbody_pop* p, int steps, loam_error* err) {
    if (!p) return loam_error_set(err, LOAM_ERR_INPUT, "softbody step: NULL population");
    if (steps < 0) return loam_error_set(err, LOAM_ERR_INPUT, "softbody step: steps = %d must be >= 0", steps);
    int bad_robot = p->count, bad_step = 0, bad_mass = -1;
    const double dt = p->def.dt;
    const int64_t first = p->steps_done;
#pragma omp parallel for schedule(dynamic, 1) num_threads(loam_team(loam_ctx_threads(p->ctx, p->def.threads))) if (p->count > 1)
    for (int b = 0; b < p->count; ++b) {
        for (int k = 0; k < steps; ++k) {
            /* Time from the step index, not a running sum, so every robot sees the same t. */
            double t = (double)(first + k) * dt;
            int m = sb_step_slot(p, &p->slots[b], t);
            if (m >= 0) {
#pragma omp critical(loam_softbody_diverged)
                if (b < bad_robot) {
                    bad_robot = b;
                    bad_step = k;
                    bad_mass = m;
                }
                break;
            }
        }
    }
    if (bad_robot < p->count) {
        const sb_slot* s = &p->slots[bad_robot];
        return loam_error_set(err, LOAM_ERR_DIVERGED,
                              "softbody: robot %d diverged at step %lld (t = %g s): mass %d at (%g, %g, %g) is non-finite "
                              "or beyond the bound %g m", bad_robot, (long long)(first + bad_step + 1), (double)(first + bad_step) * dt,
                              bad_mass, (double)s->x[bad_mass], (double)s->y[bad_mass], (double)s->z[bad_mass],
                              (double)p->def.bound);
    }
    p->steps_done += steps;
    p->time = (double)p->steps_done * dt;
    return LOAM_OK;
}

loam_status loam_softbody_pop_state(loam_softbody_pop* p, int b, loam_softbody_state* out, loam_error* err) {
    if (!p || !out) return loam_error_set(err, LOAM_ERR_INPUT, "softbody state: NULL population or output");
    if (b < 0 || b >= p->count)
        return loam_error_set(err, LOAM_ERR_INPUT, "softbody state: robot %d outside 0..%d", b, p->count - 1);
    sb_slot* s = &p->slots[b];
    out->mass_count = s->nm;
    out->x = s->x, out->y = s->y, out->z = s->z;
    out->vx = s->vx, out->vy = s->vy, out->vz = s->vz;
    return LOAM_OK;
}

size_t loam_softbody_pop_robot_bytes(const loam_softbody_pop* p, int b) {
    return p && b >= 0 && b < p->count ? p->slots[b].bytes : 0;
}

loam_vec3 loam_softbody_pop_com(const loam_softbody_pop* p, int b) {
    if (!p || b < 0 || b >= p->count) return v3(NAN, NAN, NAN);
    const sb_slot* s = &p->slots[b];
    double sum[3] = {0, 0, 0}, m = 0.0;
    for (int i = 0; i < s->nm; ++i) {
        if (s->w[i] <= 0.0f) continue;
        double mi = 1.0 / s->w[i];
        sum[0] += mi * s->x[i], sum[1] += mi * s->y[i], sum[2] += mi * s->z[i];
        m += mi;
    }
    if (m <= 0.0) return v3(NAN, NAN, NAN);
    return v3((float)(sum[0] / m), (float)(sum[1] / m), (float)(sum[2] / m));
}
