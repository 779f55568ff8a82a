/* The contact rows that both solvers sweep (solve.c, push.c), and their scalar kernels. The AVX2
 * kernels (rows_avx2.c) do the same arithmetic in the same order on 8 rows at once, so both give
 * the same bits; the scalar ones also finish each range's last rows there. Every kernel takes rows
 * [lo, hi) of one block's region and base, the block's first particle: a row keeps its particle i
 * as an offset from there. */
#ifndef LOAM_GRANULAR_ROWS_H
#define LOAM_GRANULAR_ROWS_H

#include <math.h>

#include "contact/cone.h"
#include "core/cpu.h"
#include "granular/world_internal.h"

/* Rows of one range are cut into chunks with fixed boundaries, so which rows run as a vector batch
 * and which as the scalar tail never depends on the thread count. */
enum { LOAM_ROWS_CHUNK = 256 };

/* Room for `need` rows in the colouring's list and rows, for a layout that lists every row anew
 * (color.c): the impulses stay at their indices (the refs name them), nothing else of the old rows
 * is kept. 0 when out of memory (the rows are then as they were). */
int loam_coloring_reserve(loam_coloring* k, int need);

/* Bytes of the block that holds the rows' float and normal fields, for cap rows. */
static inline size_t loam_rows_field_bytes(size_t cap) { return cap * (5 * sizeof(float) + 3 * sizeof(int16_t)); }

/* The rows' memory that no stage needs between steps (gaps, pushes and normals: rewritten by every
 * refresh; the impulses stay), for rare stages to borrow (reorder.c); its size in *bytes. */
void* loam_rows_spare(const loam_coloring* k, size_t* bytes);

/* Refresh the rows for this step (rows.c): normals and gaps from the positions (pos: x, y, z, r
 * per particle), body contacts' from their slots. Rows that the colouring listed anew take their
 * warm-start impulses from last step's rows (the slots' refs say where, and then name the new
 * rows); kept rows hold last step's results, which are exactly the warm start. Returns the largest
 * pair overlap, m. */
float loam_rows_refresh(loam_world* w, const float* pos);
/* Inside a parallel region: body rows' impulses back to their slots (body wrenches read them). */
void loam_rows_scatter_bodies(loam_world* w);

/* Bias of the normal target: a speculative contact (gap > 0) may close its gap in one step, an
 * overlapping one is pushed out at alpha * overlap / dt (alpha = 0 when pushes are split off). */
static inline float loam_row_bias(float gap, float inv_dt, float alpha) {
    return gap > 0.0f ? gap * inv_dt : alpha * gap * inv_dt;
}

/* Effective mass of a row from the summed inverse masses it solves with, ws, and the plain ones, wp.
 * Gauss-Seidel (ws = wp): omega / ws, successive over-relaxation by omega. Jacobi: ws is mass-split
 * (n_i w_i + n_j w_j), and the row is over-relaxed by omega_k = omega - (omega - 1) wp / ws, which
 * is 1 for a contact whose particles have no other (it is then solved exactly, as one Gauss-Seidel
 * row would be) and tends to omega as the counts grow, where the split is loosest. Any omega_k in
 * (0, 2) is sound (docs/solver.md). */
static inline float loam_row_mass(float omega, float ws, float wp, int jacobi) {
    if (!jacobi) return omega / ws;
    return (omega - (omega - 1.0f) * (wp / ws)) / ws;
}

/* New impulse of row q for relative velocity (vx, vy, vz) and effective mass m:
 * lambda <- proj(lambda - m (v + bias n)),
 * the paper's projection onto the Coulomb cone (contact/cone.h). Stores it and writes the change to d. */
static inline void loam_row_update(loam_rows* r, int q, float vx, float vy, float vz, float m, float mu,
                                      float inv_dt, float alpha, float d[3]) {
    float n[3] = {loam_normal_unpack(r->nx[q]), loam_normal_unpack(r->ny[q]), loam_normal_unpack(r->nz[q])};
    float bias = loam_row_bias(r->gap[q], inv_dt, alpha);
    float o[3] = {r->lx[q], r->ly[q], r->lz[q]}, v[3] = {vx, vy, vz}, l[3], a[3];
    for (int k = 0; k < 3; ++k) l[k] = o[k] - m * (v[k] + bias * n[k]);
    loam_cone_project_world_f(mu, n, l, a);
    r->lx[q] = a[0];
    r->ly[q] = a[1];
    r->lz[q] = a[2];
    for (int k = 0; k < 3; ++k) d[k] = a[k] - o[k];
}

/* Velocity rows [lo, hi) of particle pairs; returns the largest |dv|^2 they caused. sv holds
 * (velocity, inverse mass) per particle and takes each row's change. The relative velocity and
 * the effective mass come from prev: Gauss-Seidel passes sv itself (each row sees the rows before
 * it); Jacobi passes the velocities of the sweep before, with the mass-split inverse masses in .w
 * (solve.c), so every row of a sweep sees the same velocities. */
static inline float loam_rows_velocity(loam_rows* r, int lo, int hi, int base, float* sv, const float* prev, float mu,
                                       float inv_dt, float alpha, float most) {
    for (int q = lo; q < hi; ++q) {
        float* a = &sv[4 * (size_t)(base + r->i[q])];
        float* b = &sv[4 * (size_t)r->j[q]];
        const float* pa = &prev[4 * (size_t)(base + r->i[q])];
        const float* pb = &prev[4 * (size_t)r->j[q]];
        float d[3];
        float wi = a[3], wj = b[3]; /* inverse masses ride along in sv.w */
        float m = loam_row_mass(r->omega, pa[3] + pb[3], wi + wj, prev != sv);
        loam_row_update(r, q, pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2], m, mu, inv_dt, alpha, d);
        for (int k = 0; k < 3; ++k) {
            a[k] = a[k] + wi * d[k];
            b[k] = b[k] - wj * d[k];
        }
        float wmax = wi > wj ? wi : wj;
        float d2 = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * wmax * wmax;
        most = d2 > most ? d2 : most;
    }
    return most;
}

/* Push rows [lo, hi) of particle pairs: pseudo-impulses p >= 0 with n . (u_i - u_j) >= rate * overlap.
 * u holds (pseudo-velocity, inverse mass) per particle; prev as in loam_rows_velocity. */
static inline void loam_rows_push(loam_rows* r, int lo, int hi, int base, float* u, const float* prev, float rate) {
    for (int q = lo; q < hi; ++q) {
        float gap = r->gap[q];
        if (!(gap < 0.0f)) continue;
        float* a = &u[4 * (size_t)(base + r->i[q])];
        float* b = &u[4 * (size_t)r->j[q]];
        const float* pa = &prev[4 * (size_t)(base + r->i[q])];
        const float* pb = &prev[4 * (size_t)r->j[q]];
        float nx = loam_normal_unpack(r->nx[q]), ny = loam_normal_unpack(r->ny[q]), nz = loam_normal_unpack(r->nz[q]);
        float un = nx * (pa[0] - pb[0]) + ny * (pa[1] - pb[1]) + nz * (pa[2] - pb[2]);
        float p = r->push[q] - loam_row_mass(r->omega, pa[3] + pb[3], a[3] + b[3], prev != u) * (un + rate * gap);
        p = p > 0.0f ? p : 0.0f;
        float dp = p - r->push[q];
        r->push[q] = p;
        float di = a[3] * dp, dj = b[3] * dp;
        a[0] = a[0] + di * nx;
        a[1] = a[1] + di * ny;
        a[2] = a[2] + di * nz;
        b[0] = b[0] - dj * nx;
        b[1] = b[1] - dj * ny;
        b[2] = b[2] - dj * nz;
    }
}

/* Warm start of rows [lo, hi): each row's impulse applied to its particles (a body row, j < 0, to
 * particle i only). */
static inline void loam_rows_warm(const loam_rows* r, int lo, int hi, int base, float* sv) {
    for (int q = lo; q < hi; ++q) {
        float* a = &sv[4 * (size_t)(base + r->i[q])];
        a[0] = a[0] + a[3] * r->lx[q];
        a[1] = a[1] + a[3] * r->ly[q];
        a[2] = a[2] + a[3] * r->lz[q];
        if (r->j[q] < 0) continue;
        float* b = &sv[4 * (size_t)r->j[q]];
        b[0] = b[0] - b[3] * r->lx[q];
        b[1] = b[1] - b[3] * r->ly[q];
        b[2] = b[2] - b[3] * r->lz[q];
    }
}

/* Normal and gap of pair rows [lo, hi) from positions (pos: x, y, z, r per particle), computed as
 * detection would (loam_pair_offset, loam_pair_normal); body rows (j < 0) are left alone. axis: the
 * periodic axis or -1, len its period. Returns the largest overlap, at least `worst`. */
static inline float loam_rows_geometry(loam_rows* r, int lo, int hi, int base, const float* pos, int axis, float len,
                                       float worst) {
    for (int q = lo; q < hi; ++q) {
        int i = base + r->i[q], j = r->j[q];
        if (j < 0) continue;
        const float* a = &pos[4 * (size_t)i];
        const float* b = &pos[4 * (size_t)j];
        float o[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]}, n[3];
        if (axis >= 0) {
            if (o[axis] > 0.5f * len) o[axis] -= len;
            else if (o[axis] < -0.5f * len) o[axis] += len;
        }
        float dist = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        loam_pair_normal(o, dist, n);
        r->nx[q] = loam_normal_pack(n[0]);
        r->ny[q] = loam_normal_pack(n[1]);
        r->nz[q] = loam_normal_pack(n[2]);
        float gap = dist - a[3] - b[3];
        r->gap[q] = gap;
        worst = -gap > worst ? -gap : worst;
    }
    return worst;
}

#ifdef LOAM_HAVE_AVX2
/* The same kernels, 8 rows at a time (rows_avx2.c); only call when the CPU has AVX2. The warm
 * start takes pair rows only. */
float loam_rows_velocity_avx2(loam_rows* r, int lo, int hi, int base, float* sv, const float* prev, float mu,
                              float inv_dt, float alpha, float most);
void loam_rows_push_avx2(loam_rows* r, int lo, int hi, int base, float* u, const float* prev, float rate);
float loam_rows_geometry_avx2(loam_rows* r, int lo, int hi, int base, const float* pos, int axis, float len, float worst);
void loam_rows_warm_avx2(const loam_rows* r, int lo, int hi, int base, float* sv);
#endif

#endif
