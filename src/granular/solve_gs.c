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
 * Layout (loam_coloring, color.c): the sweeps (3 velocity + 2 push by default) run over rows, the
 * contacts in solve order with their normal, gap, impulse and effective mass in arrays (gs_rows.c
 * fills them). Reading the slot arrays in colour order instead cost five scattered loads per contact
 * per sweep (the solve took 70% of a step at rest). Each block's inner rows are swept by one thread,
 * with no barrier and its velocities in cache; then the rows that cross blocks, colour by colour.
 * Pair rows of one colour touch disjoint particles, so 8 of them are one AVX2 batch
 * (solve_gs_avx2.c) where the CPU has it; its arithmetic is the scalar kernels' (gs_rows.h), in
 * the same order, so both give the same bits. */
#include <math.h>

#include "core/lanes.h"
#include "granular/gs_rows.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

/* Velocity rows [lo, hi) of body contacts: the body's point velocity and friction come from the
 * slot arrays (body contacts are few). */
static float body_rows(const loam_contacts* c, loam_gs_rows* r, int lo, int hi, float* sv, float inv_dt, float alpha,
                       float most) {
    for (int q = lo; q < hi; ++q) {
        const float* vb = &c->body_v[4 * (size_t)~r->j[q]];
        float* a = &sv[4 * (size_t)r->i[q]];
        float d[3], wi = a[3];
        loam_gs_row_update(r, q, a[0] - vb[0], a[1] - vb[1], a[2] - vb[2], r->omega / wi, vb[3], inv_dt, alpha, d);
        for (int k = 0; k < 3; ++k) a[k] = a[k] + wi * d[k];
        float d2 = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * wi * wi;
        most = d2 > most ? d2 : most;
    }
    return most;
}

static float pair_rows(loam_gs_rows* r, int lo, int hi, float* sv, float mu, float inv_dt, float alpha, float most) {
#ifdef LOAM_HAVE_AVX2
    if (loam_cpu_has_avx2()) return loam_gs_pair_rows_avx2(r, lo, hi, sv, mu, inv_dt, alpha, most);
#endif
    return loam_gs_pair_rows(r, lo, hi, sv, mu, inv_dt, alpha, most);
}

/* Warm start of pair rows [lo, hi) of colour col (8 at a time where they share no particle). */
static void warm_pairs(const loam_gs_rows* r, int lo, int hi, int col, float* sv) {
#ifdef LOAM_HAVE_AVX2
    if (col < LOAM_MAX_COLORS && loam_cpu_has_avx2()) {
        loam_gs_pair_warm_avx2(r, lo, hi, sv);
        return;
    }
#endif
    (void)col;
    loam_gs_warm_rows(r, lo, hi, sv);
}

/* Warm start of block b's inner rows, colour by colour: rows of one colour touch each particle at
 * most once, so each particle gets its impulses in the rows' order, as a plain pass gives them. */
static void warm_block(const loam_coloring* k, int b, float* sv) {
    const int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
    for (int col = 0; col < LOAM_COLOR_SLOTS; ++col) {
        warm_pairs(&k->rows, marks[2 * col], marks[2 * col + 1], col, sv);
        loam_gs_warm_rows(&k->rows, marks[2 * col + 1], marks[2 * col + 2], sv); /* body rows */
    }
}

/* One velocity sweep over block b's inner rows; returns the largest |dv|^2. */
static float sweep_block(loam_world* w, int b, float inv_dt, float alpha, float most) {
    loam_gs_rows* r = &w->coloring.rows;
    const int32_t* marks = &w->coloring.inner[(size_t)b * LOAM_BLOCK_MARKS];
    float mu = w->params.friction;
    for (int col = 0; col < LOAM_COLOR_SLOTS; ++col) {
        int lo = marks[2 * col], mid = marks[2 * col + 1], hi = marks[2 * col + 2];
        /* Rows of one colour share no particle (8 per vector batch); the serial colour's may. */
        if (col < LOAM_MAX_COLORS) most = pair_rows(r, lo, mid, w->sv, mu, inv_dt, alpha, most);
        else most = loam_gs_pair_rows(r, lo, mid, w->sv, mu, inv_dt, alpha, most);
        most = body_rows(&w->contacts, r, mid, hi, w->sv, inv_dt, alpha, most);
    }
    return most;
}

/* Few crossing rows are swept by one thread, colour after colour, with no barrier between colours:
 * a barrier costs microseconds, and a bed where little moves (a bulldozer's, most of it asleep) has
 * a dozen colours of a few dozen crossing rows each. One thread meets the rows in the same batches
 * of 8 as the parallel sweep (chunks are multiples of 8 from each colour's start), so both give the
 * same bits. Parallel by colour above this many crossing rows per colour on average. */
enum { LOAM_SERIAL_CROSSING_PER_COLOR = 256 };

static int crossing_serial(const loam_coloring* k) {
    return k->color_start[LOAM_COLOR_SLOTS] - k->color_start[0] < LOAM_SERIAL_CROSSING_PER_COLOR * k->colors;
}

/* One velocity sweep over the crossing rows of colour col; returns the largest |dv|^2. */
static float sweep_crossing(loam_world* w, int col, float inv_dt, float alpha) {
    loam_coloring* k = &w->coloring;
    loam_gs_rows* r = &k->rows;
    float mu = w->params.friction, most = 0.0f;
    int lo = k->color_start[col], hi = k->color_start[col + 1];
    if (col == LOAM_MAX_COLORS) {
        /* The serial rest: contacts here may share particles. */
#pragma omp single
        most = loam_gs_pair_rows(r, lo, hi, w->sv, mu, inv_dt, alpha, most);
        return most;
    }
#pragma omp for schedule(static)
    for (int q = lo; q < hi; q += LOAM_GS_CHUNK)
        most = pair_rows(r, q, q + LOAM_GS_CHUNK < hi ? q + LOAM_GS_CHUNK : hi, w->sv, mu, inv_dt, alpha, most);
    return most;
}

/* Every crossing row, colour after colour, on the calling thread (crossing_serial). */
static float sweep_crossing_alone(loam_world* w, float inv_dt, float alpha) {
    loam_coloring* k = &w->coloring;
    float mu = w->params.friction, most = 0.0f;
    for (int col = 0; col < k->colors; ++col) {
        int lo = k->color_start[col], hi = k->color_start[col + 1];
        if (col == LOAM_MAX_COLORS) most = loam_gs_pair_rows(&k->rows, lo, hi, w->sv, mu, inv_dt, alpha, most);
        else most = pair_rows(&k->rows, lo, hi, w->sv, mu, inv_dt, alpha, most);
    }
    return most;
}

/* The warm-start impulses of all rows: blocks' inner rows in parallel, then crossing rows by colour
 * (or by one thread, crossing_serial). */
static void warm_all(loam_world* w) {
    const loam_coloring* k = &w->coloring;
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < loam_block_count(w->count); ++b) warm_block(k, k->block_order[b], w->sv);
    if (crossing_serial(k)) {
#pragma omp single
        for (int col = 0; col < k->colors; ++col) warm_pairs(&k->rows, k->color_start[col], k->color_start[col + 1], col, w->sv);
        return;
    }
    for (int col = 0; col < k->colors; ++col) {
        int lo = k->color_start[col], hi = k->color_start[col + 1];
        if (col == LOAM_MAX_COLORS) {
#pragma omp single
            loam_gs_warm_rows(&k->rows, lo, hi, w->sv);
            continue;
        }
#pragma omp for schedule(static)
        for (int q = lo; q < hi; q += LOAM_GS_CHUNK) warm_pairs(&k->rows, q, q + LOAM_GS_CHUNK < hi ? q + LOAM_GS_CHUNK : hi, col, w->sv);
    }
}

void loam_granular_solve_gs(loam_world* w, float alpha, int rows_valid) {
    loam_coloring* k = &w->coloring;
    float inv_dt = (float)(1.0 / w->params.dt);
    float tol2 = w->params.tolerance * w->params.tolerance;
    float change2[2] = {0.0f, 0.0f}; /* by sweep parity, so resetting one never races a reader */
    int sweeps = 0, blocks = loam_block_count(w->count), serial = crossing_serial(k);
    /* Detection left the positions and radii packed in the solver's velocity buffer. */
    float worst = loam_gs_rows_gather(w, w->sv, rows_valid);
    if (worst > w->stats.max_overlap) w->stats.max_overlap = worst;
#pragma omp parallel
    {
        loam_granular_free_velocity_for(w); /* its barrier orders it before the warm start */
        warm_all(w);
        int nsweeps = w->params.sweeps;
        for (int s = 0; s < nsweeps; ++s) {
            /* The largest change is gathered (a critical section and a barrier) only where it is
             * used: after every sweep when there is a tolerance, else after the last one, for the
             * step's statistics. Barriers are the dear part of a small bed's sweep. */
            int gather = tol2 > 0.0f || s == nsweeps - 1;
            float mine = 0.0f;
            /* Blocks touch disjoint particles through their inner rows: any thread, any order. */
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) mine = sweep_block(w, k->block_order[b], inv_dt, alpha, mine);
            if (serial) {
#pragma omp single
                {
                    float d2 = sweep_crossing_alone(w, inv_dt, alpha);
                    mine = d2 > mine ? d2 : mine;
                }
            } else {
                for (int col = 0; col < k->colors; ++col) {
                    float d2 = sweep_crossing(w, col, inv_dt, alpha);
                    mine = d2 > mine ? d2 : mine;
                }
            }
            if (!gather) continue;
#pragma omp critical(loam_gs_change)
            if (mine > change2[s & 1]) change2[s & 1] = mine;
#pragma omp barrier
            /* Clear the next gathering sweep's slot: every thread has read this one, and passes the
             * next sweep's block loop barrier (after this) before it writes the next. */
#pragma omp single nowait
            {
                sweeps = s + 1;
                change2[(s + 1) & 1] = 0.0f;
            }
            if (tol2 > 0.0f && change2[s & 1] < tol2) break; /* every thread sees the same value */
        }
#pragma omp barrier
        loam_gs_rows_scatter_bodies(w);
    }
    k->lambda_in_rows = 1;
    w->stats.sweeps_run = sweeps;
    w->stats.last_sweep_change = sqrtf(change2[(sweeps - 1) & 1]);
}

/* Push rows [lo, hi) of body contacts (see loam_gs_pair_pushes). */
static void body_pushes(loam_gs_rows* r, int lo, int hi, float* u, float rate) {
    for (int q = lo; q < hi; ++q) {
        float gap = r->gap[q];
        if (!(gap < 0.0f)) continue;
        float* a = &u[4 * (size_t)r->i[q]];
        float nx = loam_normal_unpack(r->nx[q]), ny = loam_normal_unpack(r->ny[q]), nz = loam_normal_unpack(r->nz[q]);
        float un = nx * a[0] + ny * a[1] + nz * a[2];
        float p = r->push[q] - r->omega / a[3] * (un + rate * gap);
        p = p > 0.0f ? p : 0.0f;
        float di = a[3] * (p - r->push[q]);
        r->push[q] = p;
        a[0] = a[0] + di * nx;
        a[1] = a[1] + di * ny;
        a[2] = a[2] + di * nz;
    }
}

static void pair_pushes(loam_gs_rows* r, int lo, int hi, float* u, float rate) {
#ifdef LOAM_HAVE_AVX2
    if (loam_cpu_has_avx2()) {
        loam_gs_pair_pushes_avx2(r, lo, hi, u, rate);
        return;
    }
#endif
    loam_gs_pair_pushes(r, lo, hi, u, rate);
}

/* The solved velocities stored (sv to vx, vy, vz), and in their place the push velocities u = 0,
 * u.w = loam_solve_inv_mass, over lanes [i, i + m). */
LOAM_LANES_INLINE void store_and_clear_lanes(loam_world* w, int i, int m) {
    float* vel[3] = {w->vx, w->vy, w->vz};
    loam_f4 v[4], zero = f4_splat(0.0f);
    f4_load_rows(&w->sv[4 * (size_t)i], m, v);
    for (int a = 0; a < 3; ++a) f4_store_upto(&vel[a][i], v[a], m);
    loam_f4 im = f4_select(f4_int_eq_upto(&w->calm[i], m, LOAM_ASLEEP), f4_load_upto(&w->inv_mass[i], m), zero);
    f4_store_rows(&w->sv[4 * (size_t)i], m, zero, zero, zero, im);
}

/* Overlap removal (push.c) over the rows, in the velocity sweeps' order. The step's velocities are
 * stored first and the pushes run in their buffer (sv): 16 bytes a particle less than a buffer of
 * their own. */
void loam_granular_push_gs(loam_world* w) {
    loam_coloring* k = &w->coloring;
    loam_gs_rows* r = &k->rows;
    float rate = w->params.baumgarte / (float)w->params.dt;
    float* u = w->sv;
    int n = w->count, blocks = loam_block_count(n), serial = crossing_serial(k);
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < n; i += 4) {
            if (n - i >= 4) store_and_clear_lanes(w, i, 4);
            else store_and_clear_lanes(w, i, n - i);
        }
        for (int s = 0; s < w->params.push_sweeps; ++s) {
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) {
                const int32_t* marks = &k->inner[(size_t)k->block_order[b] * LOAM_BLOCK_MARKS];
                for (int col = 0; col < LOAM_COLOR_SLOTS; ++col) {
                    int lo = marks[2 * col], mid = marks[2 * col + 1], hi = marks[2 * col + 2];
                    if (col < LOAM_MAX_COLORS) pair_pushes(r, lo, mid, u, rate);
                    else loam_gs_pair_pushes(r, lo, mid, u, rate);
                    body_pushes(r, mid, hi, u, rate);
                }
            }
            if (serial) {
#pragma omp single
                for (int col = 0; col < k->colors; ++col) {
                    int lo = k->color_start[col], hi = k->color_start[col + 1];
                    if (col == LOAM_MAX_COLORS) loam_gs_pair_pushes(r, lo, hi, u, rate);
                    else pair_pushes(r, lo, hi, u, rate);
                }
                continue;
            }
            for (int col = 0; col < k->colors; ++col) {
                int lo = k->color_start[col], hi = k->color_start[col + 1];
                if (col == LOAM_MAX_COLORS) {
#pragma omp single
                    loam_gs_pair_pushes(r, lo, hi, u, rate);
                    continue;
                }
#pragma omp for schedule(static)
                for (int q = lo; q < hi; q += LOAM_GS_CHUNK)
                    pair_pushes(r, q, q + LOAM_GS_CHUNK < hi ? q + LOAM_GS_CHUNK : hi, u, rate);
            }
        }
    }
}
