/* One step of the granular world, as plain stages over arrays (docs/solver.md walks through them):
 *   body twists and poses -> margins -> [reorder] -> neighbour list from the hash when stale ->
 *   detect + warm start -> colour -> velocity sweeps -> divergence check -> push sweeps ->
 *   integrate -> body wrenches.
 * Symplectic Euler (paper 000 eqs. 4-5): velocities first, then positions with the new velocities. */
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "core/context.h"
#include "core/lanes.h"
#include "core/vec.h"
#include "granular/rows.h"
#include "granular/world_internal.h"


loam_status loam_granular_prepare(loam_world* w, loam_error* err) {
    if (w->ready) return LOAM_OK;
    const loam_granular_params* p = &w->params;
    int n = w->count;
    /* A periodic axis must hold 3 cells of the smallest reach; the adaptive margin and the skin
     * shrink to fit it (reach_cap). */
    float r = w->max_radius > 0.0f ? w->max_radius : 1.0f;
    float cell = (2.0f + p->margin) * r;
    w->reach_cap = p->periodic_axis >= 0 ? (p->periodic_hi - p->periodic_lo) / 3.0f - 2.0f * r : INFINITY;
    if (p->periodic_axis >= 0 && p->periodic_hi - p->periodic_lo < 3.0f * cell)
        return loam_error_set(err, LOAM_ERR_INPUT,
                              "periodic interval [%g, %g] must be at least 3 hash cells (%g m) long",
                              p->periodic_lo, p->periodic_hi, 3.0f * cell);
    int table = p->hash_table_size > 0 ? p->hash_table_size : (n > 0 ? 2 * n : 1);
    int blocks = loam_block_count(n) > 0 ? loam_block_count(n) : 1;
    int bodies = w->body_count > 0 ? w->body_count : 1;
    int shapes = w->shape_count > 0 ? w->shape_count : 1;
    /* First guesses of the slots a block needs (dense beds: ~3 pairs per particle, a few percent
     * touching walls); blocks that need more grow them once. */
    w->block_need = loam_malloc(sizeof(int32_t) * 2 * (size_t)blocks);
    w->block_info = loam_calloc((size_t)blocks, sizeof(loam_block_info));
    /* The hash lives in spare memory while a list build needs it (detect.c). */
    loam_hash_attach(&w->hash, table, n, NULL);
    int ok = w->block_need && w->block_info && loam_neighbors_alloc(&w->neighbors, n) &&
             loam_neighbors_reserve(&w->neighbors, blocks, 6 * LOAM_BLOCK) && loam_contacts_alloc(w, n);
    if (ok) {
        for (int b = 0; b < blocks; ++b) {
            w->block_need[b] = 3 * LOAM_BLOCK;
            w->block_need[blocks + b] = LOAM_BLOCK / 8;
        }
        ok = loam_contacts_reserve(w, w->block_need, w->block_need + blocks);
    }
    w->sv = loam_malloc(sizeof(float) * 4 * (size_t)(n > 0 ? n : 1));
    w->coloring.mask = loam_malloc(sizeof(loam_color_mask) * (size_t)(n > 0 ? n : 1));
    w->coloring.region = loam_calloc((size_t)blocks + 1, sizeof(int32_t));
    w->coloring.listed_from = loam_malloc(sizeof(int32_t) * (size_t)blocks);
    w->coloring.marks = loam_calloc((size_t)LOAM_BLOCK_MARKS * (size_t)blocks, sizeof(int32_t));
    w->coloring.block_order = loam_malloc(sizeof(int32_t) * (size_t)blocks);
    w->calm = loam_calloc((size_t)(n > 0 ? n : 1), sizeof(int32_t));
    w->wake = loam_calloc((size_t)(n > 0 ? n : 1), 1);
    w->asleep = loam_calloc((size_t)(n > 0 ? n : 1), 1);
    w->radix_counts = loam_malloc(sizeof(int32_t) * 65536);
    w->block_scratch = loam_malloc(sizeof(float) * 7 * (size_t)blocks * (size_t)bodies);
    w->shape_pose = loam_malloc(sizeof(loam_pose) * (size_t)shapes);
    w->shape_lo = loam_malloc(sizeof(loam_vec3) * (size_t)shapes);
    w->shape_hi = loam_malloc(sizeof(loam_vec3) * (size_t)shapes);
    if (!ok || !w->sv || !w->coloring.mask || !w->coloring.region || !w->coloring.listed_from || !w->coloring.marks || !w->coloring.block_order || !w->radix_counts || !w->calm || !w->wake || !w->asleep || !w->block_scratch || !w->shape_pose || !w->shape_lo || !w->shape_hi)
        return loam_error_set(err, LOAM_ERR_NOMEM, "out of memory preparing a world of %d particles", n);
    for (int b = 0; b < blocks; ++b) w->coloring.listed_from[b] = -1; /* no rows listed yet */
    /* Particles given outside the periodic interval start at their image inside it. */
    if (p->periodic_axis >= 0) {
        float* axis[3] = {w->x, w->y, w->z};
        float* c = axis[p->periodic_axis];
        float len = p->periodic_hi - p->periodic_lo;
        for (int i = 0; i < n; ++i) {
            float u = c[i] - p->periodic_lo;
            if (u < 0.0f || u >= len) {
                u -= len * floorf(u / len);
                c[i] = p->periodic_lo + (u >= len ? 0.0f : u);
            }
        }
    }
    w->ready = 1;
    return LOAM_OK;
}

void* loam_granular_spare(loam_world* w, size_t bytes) {
    size_t have;
    if (bytes > w->spare_asked) w->spare_asked = bytes;
    void* rows = loam_rows_spare(&w->coloring, &have);
    if (rows && bytes <= have) {
        loam_free(w->spare); /* the rows have grown enough: give it back */
        w->spare = NULL;
        w->spare_bytes = 0;
        return rows;
    }
    if (bytes > w->spare_bytes) {
        loam_free(w->spare);
        w->spare = loam_malloc(bytes);
        w->spare_bytes = w->spare ? bytes : 0;
    }
    return w->spare;
}

/* Speculative margins for this step. A contact that is not detected cannot act, so the margin must
 * cover how far a pair can close in one step. Two particles close at most at |v_i - v_j| <= |v_i - c|
 * + |v_j - c| for any velocity c; with c the centre of the box that holds every particle's free
 * velocity, |v - c| is at most that box's half-diagonal; with c = 0, the fastest particle's speed.
 * So a pair closes at most 2 s dt in a step, s the smaller of the two (loam_spread): the pair
 * margin, never less than params.margin. A bed that falls or slides as a whole (all
 * velocities alike) then keeps small margins and a short neighbour list, where bounding each speed
 * on its own (c = 0) made every falling neighbour a candidate (measured: 45 list entries a particle,
 * 180 bytes, at the peak of the 100k cylinder's pour, against 5 at rest). Body contacts use the
 * fastest particle's own speed plus the fastest body surface's. Both are capped at LOAM_MAX_MARGIN
 * radii to bound the hash cell; a pair faster than that per step can tunnel, and such speeds are far
 * outside what dt suits anyway. */
/* Largest |v|^2 and the box of lanes v + g over [i, i + m). */
LOAM_LANES_INLINE void velocity_lanes(const float* const vel[3], const loam_f4 g[3], int i, int m, loam_f4* most,
                                      loam_f4 lo[3], loam_f4 hi[3]) {
    loam_f4 v[3];
    for (int a = 0; a < 3; ++a) {
        v[a] = f4_add(f4_load_upto(&vel[a][i], m), g[a]);
        lo[a] = f4_min(v[a], lo[a]);
        hi[a] = f4_max(v[a], hi[a]);
    }
    loam_f4 s2 = f4_add(f4_add(f4_mul(v[0], v[0]), f4_mul(v[1], v[1])), f4_mul(v[2], v[2])); /* v3_dot's order */
    *most = f4_max(s2, *most);
}

static void choose_margins(loam_world* w) {
    float dt = (float)w->params.dt;
    loam_vec3 gdt = v3_scale(w->params.gravity, dt);
    int n = w->count;
    float vmax2 = 0.0f, lo_v[3] = {INFINITY, INFINITY, INFINITY}, hi_v[3] = {-INFINITY, -INFINITY, -INFINITY};
#pragma omp parallel reduction(max : vmax2, hi_v[:3]) reduction(min : lo_v[:3]) num_threads(w->team)
    {
        loam_f4 g[3] = {f4_splat(gdt.x), f4_splat(gdt.y), f4_splat(gdt.z)}, most = f4_splat(0.0f);
        loam_f4 lo[3] = {f4_splat(INFINITY), f4_splat(INFINITY), f4_splat(INFINITY)};
        loam_f4 hi[3] = {f4_splat(-INFINITY), f4_splat(-INFINITY), f4_splat(-INFINITY)};
        const float* const vel[3] = {w->vx, w->vy, w->vz};
#pragma omp for schedule(static)
        for (int i = 0; i < n; i += 4) {
            if (n - i >= 4) velocity_lanes(vel, g, i, 4, &most, lo, hi);
            else velocity_lanes(vel, g, i, n - i, &most, lo, hi);
        }
        vmax2 = f4_hmax(most);
        f4_box(lo, hi, lo_v, hi_v);
    }
    float r = w->max_radius, vmax = sqrtf(vmax2);
    float spread = loam_spread(vmax2, lo_v, hi_v);
    float body_speed = 0.0f;
    for (int s = 0; s < w->shape_count; ++s) {
        const loam_body_state* b = &w->bodies[w->shapes[s].body];
        if (w->shapes[s].shape.type == LOAM_SHAPE_PLANE) {
            /* Unbounded: only its translation (a spinning plane is not a supported tool). */
            body_speed = fmaxf(body_speed, v3_length(b->twist.v));
            continue;
        }
        loam_vec3 far = v3_max(v3_abs(v3_sub(w->shape_lo[s], b->pose.p)), v3_abs(v3_sub(w->shape_hi[s], b->pose.p)));
        body_speed = fmaxf(body_speed, v3_length(b->twist.v) + v3_length(b->twist.w) * v3_length(far));
    }
    float base = w->params.margin * r, cap = LOAM_MAX_MARGIN * r;
    w->pair_margin = fminf(fminf(fmaxf(base, 2.0f * spread * dt), cap), w->reach_cap);
    w->body_margin = fminf(fmaxf(base, (vmax + body_speed) * dt), 2.0f * cap);
}

/* World pose and bounds of every shape for this step. */
static void place_shapes(loam_world* w) {
    for (int s = 0; s < w->shape_count; ++s) {
        const loam_shape* sh = &w->shapes[s].shape;
        loam_pose pose = loam_pose_mul(w->bodies[w->shapes[s].body].pose, sh->local);
        w->shape_pose[s] = pose;
        loam_vec3 lo, hi;
        loam_shape_local_bounds(sh, &lo, &hi);
        if (sh->type == LOAM_SHAPE_PLANE) {
            w->shape_lo[s] = v3(-INFINITY, -INFINITY, -INFINITY);
            w->shape_hi[s] = v3(INFINITY, INFINITY, INFINITY);
            continue;
        }
        loam_vec3 wlo = v3(INFINITY, INFINITY, INFINITY), whi = v3(-INFINITY, -INFINITY, -INFINITY);
        for (int corner = 0; corner < 8; ++corner) {
            loam_vec3 c = v3(corner & 1 ? hi.x : lo.x, corner & 2 ? hi.y : lo.y, corner & 4 ? hi.z : lo.z);
            loam_vec3 q = loam_pose_apply(pose, c);
            wlo = v3_min(wlo, q);
            whi = v3_max(whi, q);
        }
        w->shape_lo[s] = wlo;
        w->shape_hi[s] = whi;
    }
}

/* Bits of the lanes of [i, i + m) whose new velocity or position (x + dt v) is non-finite or beyond
 * the bound. */
LOAM_LANES_INLINE int diverged_lanes(const loam_world* w, int i, int m, loam_f4 step, loam_f4 bound) {
    const float* pos[3] = {w->x, w->y, w->z};
    loam_f4 huge = f4_splat(3.40282347e38f), v[4], ok = f4_splat(0.0f);
    f4_load_rows(&w->sv[4 * (size_t)i], m, v);
    for (int a = 0; a < 3; ++a) {
        loam_f4 x = f4_add(f4_load_upto(&pos[a][i], m), f4_mul(step, v[a]));
        /* |v| <= FLT_MAX: finite (NaN compares false); |x| <= bound likewise */
        loam_f4 lane = f4_and(f4_le(f4_abs(v[a]), huge), f4_le(f4_abs(x), bound));
        ok = a == 0 ? lane : f4_and(ok, lane);
    }
    return ~f4_bits(ok) & ((1 << m) - 1);
}

/* First particle (lowest index) whose new velocity or position is non-finite or out of bounds. */
static int find_diverged(const loam_world* w, float dt) {
    int n = w->count, first = n;
    loam_f4 bound = f4_splat(w->params.bound), step = f4_splat(dt);
#pragma omp parallel for schedule(static) reduction(min : first) num_threads(w->team)
    for (int i = 0; i < n; i += 4) {
        int bad = n - i >= 4 ? diverged_lanes(w, i, 4, step, bound) : diverged_lanes(w, i, n - i, step, bound);
        if (bad && i + __builtin_ctz((unsigned)bad) < first) first = i + __builtin_ctz((unsigned)bad);
    }
    return first < n ? first : -1;
}

/* x += dt (v + u) over lanes [i, i + m): v from vel4 (AoS, then stored in vx, vy, vz) or, when it is
 * NULL, from vx, vy, vz (stored already); u from push4 (AoS) or 0. */
LOAM_LANES_INLINE void integrate_lanes(loam_world* w, int i, int m, loam_f4 step, const float* vel4, const float* push4) {
    float* pos[3] = {w->x, w->y, w->z};
    float* vel[3] = {w->vx, w->vy, w->vz};
    loam_f4 v[4], u[4] = {f4_splat(0.0f), f4_splat(0.0f), f4_splat(0.0f), f4_splat(0.0f)};
    if (vel4) f4_load_rows(&vel4[4 * (size_t)i], m, v);
    else
        for (int a = 0; a < 3; ++a) v[a] = f4_load_upto(&vel[a][i], m);
    if (push4) f4_load_rows(&push4[4 * (size_t)i], m, u);
    for (int a = 0; a < 3; ++a) {
        f4_store_upto(&pos[a][i], f4_add(f4_load_upto(&pos[a][i], m), f4_mul(step, f4_add(v[a], u[a]))), m);
        if (vel4) f4_store_upto(&vel[a][i], v[a], m);
    }
}

/* x += dt (v + push velocity), wrapped into the periodic interval, and the new velocities stored
 * (from vel4, see integrate_lanes): one pass (one parallel region) over the particles. */
static void integrate_and_store(loam_world* w, float dt, const float* vel4, const float* push4) {
    int n = w->count;
    const loam_granular_params* p = &w->params;
    float* axis_pos[3] = {w->x, w->y, w->z};
    float* period = p->periodic_axis >= 0 ? axis_pos[p->periodic_axis] : NULL;
    float lo = p->periodic_lo, len = p->periodic_hi - p->periodic_lo;
    loam_f4 step = f4_splat(dt);
#pragma omp parallel for schedule(static) num_threads(w->team)
    for (int i = 0; i < n; i += 4) {
        int m = n - i >= 4 ? 4 : n - i;
        if (m == 4) integrate_lanes(w, i, 4, step, vel4, push4);
        else integrate_lanes(w, i, m, step, vel4, push4);
        for (int k = i; period && k < i + m; ++k) {
            float q = period[k] - lo;
            if (q < 0.0f || q >= len) {
                q -= len * floorf(q / len);
                if (q >= len) q = 0.0f; /* floorf rounding at the top edge */
                period[k] = lo + q;
            }
        }
    }
}

/* Force and torque that particles exerted on each body: minus the body-contact impulses over dt.
 * Summed per fixed block, then over blocks in order, so the thread count cannot change the bits. */
static void body_wrenches(loam_world* w, float dt) {
    int blocks = loam_block_count(w->count), nb = w->body_count;
    if (nb == 0) return;
    float* part = w->block_scratch;
    const loam_contacts* c = &w->contacts;
#pragma omp parallel for schedule(static) num_threads(w->team)
    for (int b = 0; b < blocks; ++b) {
        float* acc = &part[7 * (size_t)b * (size_t)nb];
        memset(acc, 0, sizeof(float) * 7 * (size_t)nb);
        /* The block's body contacts lie in its region in particle order (detection wrote their
         * owners this step): visiting the slots visits them in that order, without a pass over the
         * block's particles (most touch no body). */
        int s0 = c->body_region[b], s1 = s0 + w->block_need[blocks + b];
        for (int s = s0; s < s1; ++s) {
            int i = c->body_owner[s];
            int body = w->shapes[c->body_shape[s]].body;
            const float* l = &c->body_lambda[3 * (size_t)s];
            const float* nd = &c->body_n[4 * (size_t)s];
            loam_vec3 f = v3(-l[0] / dt, -l[1] / dt, -l[2] / dt);
            /* The contact point on the body surface: centre minus normal times distance. */
            float dist = nd[3];
            loam_vec3 pc = v3(w->x[i] - nd[0] * dist, w->y[i] - nd[1] * dist, w->z[i] - nd[2] * dist);
            loam_vec3 tq = v3_cross(v3_sub(pc, w->bodies[body].pose.p), f);
            float* a = &acc[7 * body];
            a[0] += f.x;
            a[1] += f.y;
            a[2] += f.z;
            a[3] += tq.x;
            a[4] += tq.y;
            a[5] += tq.z;
            a[6] += 1.0f;
        }
    }
    for (int body = 0; body < nb; ++body) {
        double sum[7] = {0, 0, 0, 0, 0, 0, 0};
        for (int b = 0; b < blocks; ++b)
            for (int k = 0; k < 7; ++k) sum[k] += part[7 * ((size_t)b * nb + body) + k];
        loam_body_state* st = &w->bodies[body];
        st->force = v3((float)sum[0], (float)sum[1], (float)sum[2]);
        st->torque = v3((float)sum[3], (float)sum[4], (float)sum[5]);
        st->contacts = (int)sum[6];
    }
}

static void advance_bodies(loam_world* w, double t_next, float dt) {
    for (int b = 0; b < w->body_count; ++b) {
        const loam_body_def* d = &w->body_defs[b];
        loam_body_state* st = &w->bodies[b];
        if (d->motion == LOAM_MOTION_COMMANDED) {
            float angle = v3_length(st->twist.w) * dt;
            loam_quat dq = angle > 0.0f ? loam_quat_from_axis_angle(st->twist.w, angle) : quat(1, 0, 0, 0);
            st->pose.p = v3_add(st->pose.p, v3_scale(st->twist.v, dt));
            st->pose.q = quat_normalize(quat_mul(dq, st->pose.q));
        } else {
            loam_twist unused;
            loam_body_motion_eval(d, t_next, &st->pose, &unused);
        }
    }
}

/* The twist each body moves with during [t, t + dt]: for paths, the midpoint rate, so a step that
 * straddles a waypoint moves the contact surface as the path does. */
static void body_step_twists(loam_world* w, double t, double dt) {
    for (int b = 0; b < w->body_count; ++b) {
        const loam_body_def* d = &w->body_defs[b];
        if (d->motion == LOAM_MOTION_COMMANDED) continue;
        loam_pose unused;
        loam_body_motion_eval(d, t + 0.5 * dt, &unused, &w->bodies[b].twist);
    }
}

/* One step of params.dt; loam_world_step runs a count of them. */
static loam_status step_once(loam_world* w, loam_error* err) {
    /* Once per step: every region and per-thread scratch of the step agrees on it, whatever another
     * host thread does to the default meanwhile. */
    w->team = loam_team(loam_ctx_threads(w->params.context, w->params.threads));
    loam_status st = loam_granular_prepare(w, err);
    if (st != LOAM_OK) return st;
    float dt = (float)w->params.dt;

    double t0 = loam_clock_seconds();
    body_step_twists(w, w->time, w->params.dt);
    place_shapes(w);
    choose_margins(w);
    w->neighbors.valid = loam_neighbors_valid(w);
    /* Renumber only when the neighbour list is rebuilt anyway: the list is in slot numbers. */
    if (!w->neighbors.valid && w->params.reorder_interval > 0 && w->step - w->last_reorder >= w->params.reorder_interval) {
        /* The renumbering moves the contacts with their refs (the impulses stay in the rows); the
         * colouring restarts. */
        w->coloring.colored_step = -1; /* slots mean other particles now */
        if (!loam_granular_reorder(w))
            return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for contacts", (long long)w->step);
        w->last_reorder = w->step;
    }
    st = loam_granular_detect(w, err);
    if (st != LOAM_OK) return st;
    w->stats.list_rebuilt = w->neighbors.builds != w->stats.list_builds;
    w->stats.list_builds = w->neighbors.builds;
    /* Jacobi's sweeps read a snapshot, and its mass splitting counts every particle's contacts (the
     * solve's warm start does). */
    int jacobi = w->params.solver == LOAM_GRANULAR_SOLVER_JACOBI;
    size_t n_alloc = (size_t)(w->count > 0 ? w->count : 1);
    if (jacobi && !w->sv_prev) w->sv_prev = loam_malloc(sizeof(float) * 4 * n_alloc);
    if (jacobi && !w->contact_total) w->contact_total = loam_malloc(sizeof(int32_t) * n_alloc);
    if (jacobi && (!w->sv_prev || !w->contact_total))
        return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for the Jacobi solver", (long long)w->step);
    double t1 = loam_clock_seconds();
    /* A bed at rest keeps its contacts from step to step: then last step's colouring holds. */
    int colored_last_step = w->coloring.colored_step == w->step - 1 && w->step > 0;
    w->stats.recolored = !(w->contacts_unchanged && colored_last_step);
    w->stats.blocks_relisted = 0;
    if (w->stats.recolored && !loam_granular_color(w, colored_last_step))
        return loam_error_set(err, LOAM_ERR_NOMEM, "step %lld: out of memory for contacts", (long long)w->step);
    w->coloring.colored_step = w->step;
    double t2 = loam_clock_seconds();
    loam_granular_solve(w);
    w->contact_total_stale = !jacobi; /* Jacobi counted them for its mass splitting */
    double t3 = loam_clock_seconds();

    int bad = find_diverged(w, dt);
    if (bad >= 0) {
        const float* v = &w->sv[4 * bad];
        return loam_error_set(err, LOAM_ERR_DIVERGED,
                              "diverged at step %lld (t = %.6g s): particle %d at (%g, %g, %g) m would get velocity "
                              "(%g, %g, %g) m/s (non-finite or beyond bound %g m); try a smaller dt or more sweeps",
                              (long long)w->step + 1, w->time, w->id[bad], w->x[bad], w->y[bad], w->z[bad], v[0], v[1], v[2],
                              w->params.bound);
    }
    /* The push stores the velocities and reuses their buffer (push.c). */
    int pushes = loam_granular_push_sweeps(&w->params) > 0;
    loam_granular_push(w);
    double t4 = loam_clock_seconds();
    if (pushes) integrate_and_store(w, dt, NULL, w->sv);
    else integrate_and_store(w, dt, w->sv, NULL);
    loam_granular_update_sleep(w);
    body_wrenches(w, dt);
    w->stats.time_detect = t1 - t0;
    w->stats.time_color = t2 - t1;
    w->stats.time_solve = t3 - t2;
    w->stats.time_push = t4 - t3;
    w->stats.time_finish = loam_clock_seconds() - t4;
    w->step += 1;
    w->time = w->params.dt * (double)w->step;
    advance_bodies(w, w->time, dt);
    return LOAM_OK;
}

loam_status loam_world_step(loam_world* w, int steps, loam_error* err) {
    if (!w) return loam_error_set(err, LOAM_ERR_INPUT, "step: null world");
    if (steps < 0) return loam_error_set(err, LOAM_ERR_INPUT, "step: steps = %d, expected >= 0", steps);
    /* The same single step each time, so N steps in one call are the bits of N calls; a failing step
     * stops the run, and its message names the step. */
    loam_status st = LOAM_OK;
    LOAM_IN_CONTEXT(w->params.context, for (int k = 0; k < steps && st == LOAM_OK; ++k) st = step_once(w, err));
    return st;
}
