/* Projected Gauss-Seidel by colour: the same contact update as the Jacobi sweeps (solve.c), but a
 * contact's impulse change is applied to both particles at once, and the next colour sees it.
 * Contacts of one colour share no particle, so a colour is solved in parallel without atomics and
 * the result does not depend on the thread count.
 *
 * Why it is the default: mass-split Jacobi must give each of a particle's n contacts only 1/n of
 * its mass, so in a dense packing (n ~ 6 to 8) every sweep corrects a fraction of what Gauss-Seidel
 * corrects with the full effective mass 1/(1/m_i + 1/m_j). Measured on a 40-layer column at
 * dt = 1e-3 with 3 sweeps, Jacobi left overlaps of 0.2 to 0.3 r and the column kept creeping;
 * see docs/solver.md.
 *
 * Layout: the sweeps (3 velocity + 2 push by default) run over loam_gs_row records in colour order,
 * gathered once from the slot arrays at the start of the solve and scattered back at the end. A
 * sweep then reads one contiguous stream plus the two particles' velocities; reading the slot
 * arrays in colour order instead cost five scattered loads per contact per sweep (measured: the
 * solve took 70% of a step at rest). */
#include <math.h>

#include "core/vec.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

int loam_coloring_reserve(loam_coloring* k, int need) {
    if (need <= k->list_capacity) return 1;
    int cap = need + need / 8 + 64; /* grows rarely: a bed's contact count changes slowly */
    int32_t* list = loam_malloc(sizeof(int32_t) * (size_t)cap);
    loam_gs_row* rows = loam_malloc(sizeof(loam_gs_row) * (size_t)cap);
    float* push = loam_malloc(sizeof(float) * (size_t)cap);
    if (!list || !rows || !push) {
        loam_free(list);
        loam_free(rows);
        loam_free(push);
        return 0;
    }
    loam_free(k->list);
    loam_free(k->rows);
    loam_free(k->push);
    k->list = list;
    k->rows = rows;
    k->push = push;
    k->list_capacity = cap;
    return 1;
}

/* Fill the rows from this step's slots (after detection and warm start). */
static void gather_rows(loam_world* w) {
    const loam_contacts* c = &w->cur;
    loam_coloring* k = &w->coloring;
    float omega = w->params.relaxation;
    int total = k->color_start[k->colors];
#pragma omp for schedule(static)
    for (int q = 0; q < total; ++q) {
        int32_t ref = k->list[q];
        loam_gs_row* r = &k->rows[q];
        const float *nd, *lam;
        if (ref >= 0) {
            r->i = c->pair_owner[ref];
            r->j = c->pair_j[ref];
            r->meff = omega / (w->inv_mass[r->i] + w->inv_mass[r->j]);
            nd = &c->pair_n[4 * (size_t)ref];
            lam = &c->pair_lambda[3 * (size_t)ref];
        } else {
            r->i = c->body_owner[~ref];
            r->j = ref;
            r->meff = omega / w->inv_mass[r->i];
            nd = &c->body_n[4 * (size_t)~ref];
            lam = &c->body_lambda[3 * (size_t)~ref];
        }
        for (int a = 0; a < 3; ++a) {
            r->n[a] = nd[a];
            r->lam[a] = lam[a];
        }
        r->gap = nd[3];
        k->push[q] = 0.0f;
    }
}

/* Return the impulses to the slots: warm start and body wrenches read them there. */
static void scatter_rows(loam_world* w) {
    loam_contacts* c = &w->cur;
    const loam_coloring* k = &w->coloring;
    int total = k->color_start[k->colors];
#pragma omp for schedule(static)
    for (int q = 0; q < total; ++q) {
        int32_t ref = k->list[q];
        const loam_gs_row* r = &k->rows[q];
        float* lam = ref >= 0 ? &c->pair_lambda[3 * (size_t)ref] : &c->body_lambda[3 * (size_t)~ref];
        for (int a = 0; a < 3; ++a) lam[a] = r->lam[a];
    }
}

/* New impulse of row r for relative velocity vrel; writes the change to d. */
static inline void row_update(loam_gs_row* r, loam_vec3 vrel, float mu, float inv_dt, float alpha, float d[3]) {
    float old[3] = {r->lam[0], r->lam[1], r->lam[2]};
    float nd[4] = {r->n[0], r->n[1], r->n[2], r->gap};
    loam_contact_update(r->lam, nd, vrel, r->meff, mu, inv_dt, alpha);
    for (int a = 0; a < 3; ++a) d[a] = r->lam[a] - old[a];
}

/* One sweep over colour rows [lo, hi) of particle pairs; returns the largest |dv|^2. */
static inline float pair_rows(loam_gs_row* rows, int lo, int hi, float* sv, float mu, float inv_dt, float alpha) {
    float most = 0.0f;
    for (int q = lo; q < hi; ++q) {
        loam_gs_row* r = &rows[q];
        float* a = &sv[4 * (size_t)r->i];
        float* b = &sv[4 * (size_t)r->j];
        float d[3];
        row_update(r, v3(a[0] - b[0], a[1] - b[1], a[2] - b[2]), mu, inv_dt, alpha, d);
        float wi = a[3], wj = b[3]; /* inverse masses ride along in sv.w */
        for (int k = 0; k < 3; ++k) {
            a[k] += wi * d[k];
            b[k] -= wj * d[k];
        }
        float wmax = wi > wj ? wi : wj;
        float d2 = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * wmax * wmax;
        most = d2 > most ? d2 : most;
    }
    return most;
}

/* The same for body rows: the body's point velocity and friction come from the slot arrays. */
static inline float body_rows(const loam_contacts* c, loam_gs_row* rows, int lo, int hi, float* sv, float inv_dt,
                              float alpha) {
    float most = 0.0f;
    for (int q = lo; q < hi; ++q) {
        loam_gs_row* r = &rows[q];
        const float* vb = &c->body_v[4 * (size_t)~r->j];
        float* a = &sv[4 * (size_t)r->i];
        float d[3];
        row_update(r, v3(a[0] - vb[0], a[1] - vb[1], a[2] - vb[2]), vb[3], inv_dt, alpha, d);
        float wi = a[3];
        for (int k = 0; k < 3; ++k) a[k] += wi * d[k];
        float d2 = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * wi * wi;
        most = d2 > most ? d2 : most;
    }
    return most;
}

/* Apply the warm-start impulses of colour rows [lo, hi). */
static inline void warm_rows(const loam_coloring* k, int lo, int hi, float* sv) {
    for (int q = lo; q < hi; ++q) {
        const loam_gs_row* r = &k->rows[q];
        float* a = &sv[4 * (size_t)r->i];
        for (int c = 0; c < 3; ++c) a[c] += a[3] * r->lam[c];
        if (r->j < 0) continue; /* a body contact */
        float* b = &sv[4 * (size_t)r->j];
        for (int c = 0; c < 3; ++c) b[c] -= b[3] * r->lam[c];
    }
}

/* One velocity sweep over colour col; returns its largest |dv|^2. */
static inline float sweep_color(loam_world* w, int col, int serial, float inv_dt, float alpha) {
    loam_coloring* k = &w->coloring;
    float mu = w->params.friction, most = 0.0f;
    int lo = k->color_start[col], mid = k->pair_end[col], hi = k->color_start[col + 1];
    if (serial) {
        float a = pair_rows(k->rows, lo, mid, w->sv, mu, inv_dt, alpha);
        float b = body_rows(&w->cur, k->rows, mid, hi, w->sv, inv_dt, alpha);
        return a > b ? a : b;
    }
    /* Static chunks of one colour: the split depends on the thread count, but the rows of a colour
     * touch disjoint particles, so the result does not. */
#pragma omp for schedule(static) nowait
    for (int q = lo; q < mid; q += 256) {
        float d2 = pair_rows(k->rows, q, q + 256 < mid ? q + 256 : mid, w->sv, mu, inv_dt, alpha);
        most = d2 > most ? d2 : most;
    }
#pragma omp for schedule(static)
    for (int q = mid; q < hi; q += 256) {
        float d2 = body_rows(&w->cur, k->rows, q, q + 256 < hi ? q + 256 : hi, w->sv, inv_dt, alpha);
        most = d2 > most ? d2 : most;
    }
    return most;
}

void loam_granular_solve_gs(loam_world* w, float alpha) {
    loam_coloring* k = &w->coloring;
    float inv_dt = (float)(1.0 / w->params.dt);
    float tol2 = w->params.tolerance * w->params.tolerance;
    float change2[2] = {0.0f, 0.0f}; /* by sweep parity, so resetting one never races a reader */
    int sweeps = 0;
    loam_granular_free_velocity(w);
#pragma omp parallel
    {
        gather_rows(w);
        for (int col = 0; col < k->colors; ++col) {
            int lo = k->color_start[col], hi = k->color_start[col + 1];
            if (col == LOAM_MAX_COLORS) {
#pragma omp single
                warm_rows(k, lo, hi, w->sv);
                continue;
            }
#pragma omp for schedule(static)
            for (int q = lo; q < hi; q += 256) warm_rows(k, q, q + 256 < hi ? q + 256 : hi, w->sv);
        }
        for (int s = 0; s < w->params.sweeps; ++s) {
            float mine = 0.0f;
#pragma omp single
            change2[s & 1] = 0.0f;
            for (int col = 0; col < k->colors; ++col) {
                if (col == LOAM_MAX_COLORS) {
                    /* The serial rest: contacts here may share particles. */
#pragma omp single
                    {
                        float d2 = sweep_color(w, col, 1, inv_dt, alpha);
                        mine = d2 > mine ? d2 : mine;
                    }
                    continue;
                }
                float d2 = sweep_color(w, col, 0, inv_dt, alpha);
                mine = d2 > mine ? d2 : mine;
            }
#pragma omp critical(loam_gs_change)
            if (mine > change2[s & 1]) change2[s & 1] = mine;
#pragma omp barrier
#pragma omp single nowait
            sweeps = s + 1;
            if (tol2 > 0.0f && change2[s & 1] < tol2) break; /* every thread sees the same value */
        }
#pragma omp barrier
        scatter_rows(w);
    }
    w->stats.sweeps_run = sweeps;
    w->stats.last_sweep_change = sqrtf(change2[(sweeps - 1) & 1]);
}

/* Overlap removal (push.c) by colour, over the rows: p >= 0 with n . (u_i - u_j) >= rate * overlap. */
static inline void push_rows(const loam_coloring* k, int lo, int hi, float* u, const float* sv, float rate) {
    for (int q = lo; q < hi; ++q) {
        const loam_gs_row* r = &k->rows[q];
        if (r->gap >= 0.0f) continue;
        int i = r->i, j = r->j; /* j < 0: a body contact */
        float un = r->n[0] * u[3 * i] + r->n[1] * u[3 * i + 1] + r->n[2] * u[3 * i + 2];
        if (j >= 0) un -= r->n[0] * u[3 * j] + r->n[1] * u[3 * j + 1] + r->n[2] * u[3 * j + 2];
        float p = k->push[q] - r->meff * (un + rate * r->gap);
        p = p > 0.0f ? p : 0.0f;
        float d = p - k->push[q];
        k->push[q] = p;
        float di = sv[4 * i + 3] * d;
        for (int a = 0; a < 3; ++a) u[3 * i + a] += di * r->n[a];
        if (j < 0) continue;
        float dj = sv[4 * j + 3] * d;
        for (int a = 0; a < 3; ++a) u[3 * j + a] -= dj * r->n[a];
    }
}

void loam_granular_push_gs(loam_world* w) {
    const loam_coloring* k = &w->coloring;
    float rate = w->params.baumgarte / (float)w->params.dt;
    float* u = w->push_velocity;
    int n = w->count;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 3 * n; ++i) u[i] = 0.0f;
        for (int s = 0; s < w->params.push_sweeps; ++s)
            for (int col = 0; col < k->colors; ++col) {
                int lo = k->color_start[col], hi = k->color_start[col + 1];
                if (col == LOAM_MAX_COLORS) {
#pragma omp single
                    push_rows(k, lo, hi, u, w->sv, rate);
                    continue;
                }
#pragma omp for schedule(static)
                for (int q = lo; q < hi; q += 256) push_rows(k, q, q + 256 < hi ? q + 256 : hi, u, w->sv, rate);
            }
    }
}
