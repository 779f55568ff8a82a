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
 * Layout: the sweeps (3 velocity + 2 push by default) run over loam_gs_rows in colour order,
 * gathered once from the slot arrays at the start of the solve and scattered back at the end. A
 * sweep then reads contiguous streams plus the two particles' velocities; reading the slot arrays
 * in colour order instead cost five scattered loads per contact per sweep (the solve took 70% of a
 * step at rest). Pair rows of one colour touch disjoint particles, so 8 of them are one AVX2 batch
 * (solve_gs_avx2.c) where the CPU has it; its arithmetic is the scalar kernels' (gs_rows.h), in
 * the same order, so both give the same bits. */
#include <math.h>
#include <string.h>

#include "granular/gs_rows.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

/* Static chunks of one colour's rows: fixed boundaries, so which rows run as a vector batch and
 * which as the scalar tail never depends on the thread count. */
enum { LOAM_GS_CHUNK = 256 };

#ifdef LOAM_HAVE_AVX2
static int have_avx2(void) {
    static int known = -1;
    if (known < 0) known = __builtin_cpu_supports("avx2") ? 1 : 0;
    return known;
}
#endif

int loam_coloring_reserve(loam_coloring* k, int need) {
    if (need <= k->list_capacity) return 1;
    size_t cap = (size_t)need + (size_t)need / 4 + 256; /* grows rarely: a bed's contacts change slowly */
    int32_t* list = loam_malloc(sizeof(int32_t) * cap);
    int32_t* ri = loam_malloc(sizeof(int32_t) * cap);
    int32_t* rj = loam_malloc(sizeof(int32_t) * cap);
    float* f = loam_malloc(sizeof(float) * 9 * cap); /* the nine float fields, one block */
    if (!list || !ri || !rj || !f) {
        loam_free(list);
        loam_free(ri);
        loam_free(rj);
        loam_free(f);
        return 0;
    }
    loam_free(k->list);
    loam_free(k->rows.i);
    loam_free(k->rows.j);
    loam_free(k->rows.nx);
    k->list = list;
    loam_gs_rows* r = &k->rows;
    r->i = ri;
    r->j = rj;
    float** fields[] = {&r->nx, &r->ny, &r->nz, &r->gap, &r->lx, &r->ly, &r->lz, &r->meff, &r->push};
    for (int a = 0; a < 9; ++a) *fields[a] = f + (size_t)a * cap; /* nx owns the block */
    k->list_capacity = (int)cap;
    return 1;
}

/* Fill the rows for this step: normals and gaps from the positions (pos: x, y, z, r per particle),
 * body contacts' from their slots. After a colouring (which wrote the rows' particles) also the
 * effective masses and the warm-start impulses from the slots; otherwise the rows hold this step's
 * contacts already, and their impulses, last step's results, are exactly the warm start. Returns
 * the largest pair overlap, m. */
static float pair_geometry(loam_gs_rows* r, int lo, int hi, const float* pos, int axis, float len, float worst) {
#ifdef LOAM_HAVE_AVX2
    if (have_avx2()) return loam_gs_pair_geometry_avx2(r, lo, hi, pos, axis, len, worst);
#endif
    return loam_gs_pair_geometry(r, lo, hi, pos, axis, len, worst);
}

/* Body row q from its slot: body contacts are few, and their slots are always current. */
static void body_row(const loam_world* w, loam_gs_rows* r, int q, float omega) {
    const loam_contacts* c = &w->cur;
    int s = ~r->j[q];
    const float* nd = &c->body_n[4 * (size_t)s];
    const float* lam = &c->body_lambda[3 * (size_t)s];
    r->nx[q] = nd[0];
    r->ny[q] = nd[1];
    r->nz[q] = nd[2];
    r->gap[q] = nd[3];
    r->meff[q] = omega / w->inv_mass[r->i[q]];
    r->lx[q] = lam[0];
    r->ly[q] = lam[1];
    r->lz[q] = lam[2];
}

static float gather_rows(loam_world* w, const float* pos, int rows_valid) {
    const loam_contacts* c = &w->cur;
    loam_coloring* k = &w->coloring;
    loam_gs_rows* r = &k->rows;
    float omega = w->params.relaxation, worst = 0.0f;
    float len = w->params.periodic_hi - w->params.periodic_lo;
    int total = k->color_start[LOAM_COLOR_SLOTS], warm = w->params.warm_start, axis = w->params.periodic_axis;
    int blocks = loam_block_count(w->count);
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (int q0 = 0; q0 < total; q0 += LOAM_GS_CHUNK) {
        int hi = q0 + LOAM_GS_CHUNK < total ? q0 + LOAM_GS_CHUNK : total;
        worst = pair_geometry(r, q0, hi, pos, axis, len, worst);
        memset(&r->push[q0], 0, sizeof(float) * (size_t)(hi - q0));
        if (rows_valid && warm) continue; /* pair rows are complete; body rows below */
        for (int q = q0; q < hi; ++q) {
            int i = r->i[q], j = r->j[q];
            if (j < 0) {
                body_row(w, r, q, omega);
                continue;
            }
            if (rows_valid) { /* and no warm start */
                r->lx[q] = r->ly[q] = r->lz[q] = 0.0f;
                continue;
            }
            r->meff[q] = omega / (w->inv_mass[i] + w->inv_mass[j]);
            const float* lam = &c->pair_lambda[3 * (size_t)k->list[q]];
            r->lx[q] = lam[0];
            r->ly[q] = lam[1];
            r->lz[q] = lam[2];
        }
    }
    if (!(rows_valid && warm)) return worst;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) {
        const int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
        for (int col = 0; col < LOAM_COLOR_SLOTS; ++col)
            for (int q = marks[2 * col + 1]; q < marks[2 * col + 2]; ++q) body_row(w, r, q, omega);
    }
    return worst;
}

/* Body rows' impulses back to their slots after the solve (body wrenches read them there). Pair
 * impulses stay in the rows until a changed contact set or a renumbering needs them in the slots
 * (loam_granular_rows_to_slots): a bed at rest never does. */
static void scatter_body_rows(loam_world* w) {
    loam_contacts* c = &w->cur;
    const loam_coloring* k = &w->coloring;
    const loam_gs_rows* r = &k->rows;
#pragma omp for schedule(static)
    for (int b = 0; b < loam_block_count(w->count); ++b) {
        const int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
        for (int col = 0; col < LOAM_COLOR_SLOTS; ++col)
            for (int q = marks[2 * col + 1]; q < marks[2 * col + 2]; ++q) {
                float* lam = &c->body_lambda[3 * (size_t)~r->j[q]];
                lam[0] = r->lx[q];
                lam[1] = r->ly[q];
                lam[2] = r->lz[q];
            }
    }
}

void loam_granular_rows_to_slots(loam_world* w) {
    loam_contact_set* p = &w->prev;
    loam_coloring* k = &w->coloring;
    const loam_gs_rows* r = &k->rows;
    int total = k->color_start[LOAM_COLOR_SLOTS];
#pragma omp parallel for schedule(static)
    for (int q = 0; q < total; ++q) {
        int32_t ref = k->list[q];
        if (ref < 0) continue; /* body slots are current */
        float* lam = &p->pair_lambda[3 * (size_t)ref];
        lam[0] = r->lx[q];
        lam[1] = r->ly[q];
        lam[2] = r->lz[q];
    }
    k->lambda_in_rows = 0;
}

/* Velocity rows [lo, hi) of body contacts: the body's point velocity and friction come from the
 * slot arrays (body contacts are few). */
static float body_rows(const loam_contacts* c, loam_gs_rows* r, int lo, int hi, float* sv, float inv_dt, float alpha,
                       float most) {
    for (int q = lo; q < hi; ++q) {
        const float* vb = &c->body_v[4 * (size_t)~r->j[q]];
        float* a = &sv[4 * (size_t)r->i[q]];
        float d[3];
        loam_gs_row_update(r, q, a[0] - vb[0], a[1] - vb[1], a[2] - vb[2], vb[3], inv_dt, alpha, d);
        float wi = a[3];
        for (int k = 0; k < 3; ++k) a[k] = a[k] + wi * d[k];
        float d2 = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * wi * wi;
        most = d2 > most ? d2 : most;
    }
    return most;
}

static float pair_rows(loam_gs_rows* r, int lo, int hi, float* sv, float mu, float inv_dt, float alpha, float most) {
#ifdef LOAM_HAVE_AVX2
    if (have_avx2()) return loam_gs_pair_rows_avx2(r, lo, hi, sv, mu, inv_dt, alpha, most);
#endif
    return loam_gs_pair_rows(r, lo, hi, sv, mu, inv_dt, alpha, most);
}

/* Apply the warm-start impulses of rows [lo, hi). */
static void warm_rows(const loam_gs_rows* r, int lo, int hi, float* sv) {
    for (int q = lo; q < hi; ++q) {
        float* a = &sv[4 * (size_t)r->i[q]];
        a[0] = a[0] + a[3] * r->lx[q];
        a[1] = a[1] + a[3] * r->ly[q];
        a[2] = a[2] + a[3] * r->lz[q];
        if (r->j[q] < 0) continue; /* a body contact */
        float* b = &sv[4 * (size_t)r->j[q]];
        b[0] = b[0] - b[3] * r->lx[q];
        b[1] = b[1] - b[3] * r->ly[q];
        b[2] = b[2] - b[3] * r->lz[q];
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
        most = body_rows(&w->cur, r, mid, hi, w->sv, inv_dt, alpha, most);
    }
    return most;
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

/* The warm-start impulses of all rows: blocks' inner rows in parallel, then crossing rows by colour. */
static void warm_all(loam_world* w) {
    const loam_coloring* k = &w->coloring;
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < loam_block_count(w->count); ++b) {
        const int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
        warm_rows(&k->rows, marks[0], marks[2 * LOAM_COLOR_SLOTS], w->sv);
    }
    for (int col = 0; col < k->colors; ++col) {
        int lo = k->color_start[col], hi = k->color_start[col + 1];
        if (col == LOAM_MAX_COLORS) {
#pragma omp single
            warm_rows(&k->rows, lo, hi, w->sv);
            continue;
        }
#pragma omp for schedule(static)
        for (int q = lo; q < hi; q += LOAM_GS_CHUNK)
            warm_rows(&k->rows, q, q + LOAM_GS_CHUNK < hi ? q + LOAM_GS_CHUNK : hi, w->sv);
    }
}

void loam_granular_solve_gs(loam_world* w, float alpha, int rows_valid) {
    loam_coloring* k = &w->coloring;
    float inv_dt = (float)(1.0 / w->params.dt);
    float tol2 = w->params.tolerance * w->params.tolerance;
    float change2[2] = {0.0f, 0.0f}; /* by sweep parity, so resetting one never races a reader */
    int sweeps = 0, blocks = loam_block_count(w->count);
    /* Detection left the positions and radii packed in the solver's velocity buffer. */
    float worst = gather_rows(w, w->sv, rows_valid);
    if (worst > w->stats.max_overlap) w->stats.max_overlap = worst;
    loam_granular_free_velocity(w);
#pragma omp parallel
    {
        warm_all(w);
        for (int s = 0; s < w->params.sweeps; ++s) {
            float mine = 0.0f;
#pragma omp single
            change2[s & 1] = 0.0f;
            /* Blocks touch disjoint particles through their inner rows: any thread, any order. */
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) mine = sweep_block(w, b, inv_dt, alpha, mine);
            for (int col = 0; col < k->colors; ++col) {
                float d2 = sweep_crossing(w, col, inv_dt, alpha);
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
        scatter_body_rows(w);
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
        float nx = r->nx[q], ny = r->ny[q], nz = r->nz[q];
        float un = nx * a[0] + ny * a[1] + nz * a[2];
        float p = r->push[q] - r->meff[q] * (un + rate * gap);
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
    if (have_avx2()) {
        loam_gs_pair_pushes_avx2(r, lo, hi, u, rate);
        return;
    }
#endif
    loam_gs_pair_pushes(r, lo, hi, u, rate);
}

/* Overlap removal (push.c) over the rows, in the velocity sweeps' order. */
void loam_granular_push_gs(loam_world* w) {
    loam_coloring* k = &w->coloring;
    loam_gs_rows* r = &k->rows;
    float rate = w->params.baumgarte / (float)w->params.dt;
    float* u = w->push_velocity;
    int n = w->count, blocks = loam_block_count(n);
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            u[4 * i] = u[4 * i + 1] = u[4 * i + 2] = 0.0f;
            u[4 * i + 3] = w->inv_mass[i];
        }
        for (int s = 0; s < w->params.push_sweeps; ++s) {
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) {
                const int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
                for (int col = 0; col < LOAM_COLOR_SLOTS; ++col) {
                    int lo = marks[2 * col], mid = marks[2 * col + 1], hi = marks[2 * col + 2];
                    if (col < LOAM_MAX_COLORS) pair_pushes(r, lo, mid, u, rate);
                    else loam_gs_pair_pushes(r, lo, mid, u, rate);
                    body_pushes(r, mid, hi, u, rate);
                }
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
