/* The Gauss-Seidel rows (loam_gs_rows): their storage, their refresh at the start of each solve, and
 * the way their impulses return to the contact slots. */
#include <string.h>

#include "granular/gs_rows.h"
#include "granular/solve_common.h"
#include "granular/world_internal.h"

int loam_coloring_reserve(loam_coloring* k, int need) {
    if (need <= k->list_capacity) return 1;
    size_t cap = (size_t)need + (size_t)need / 4 + 256; /* grows rarely: a bed's contacts change slowly */
    cap = (cap + 31) & ~(size_t)31;                     /* keeps every field 64-byte aligned */
    int32_t* list = loam_malloc(sizeof(int32_t) * cap);
    int32_t* ri = loam_malloc(sizeof(int32_t) * cap);
    int32_t* rj = loam_malloc(sizeof(int32_t) * cap);
    void* fields = loam_malloc(loam_gs_rows_field_bytes(cap)); /* the float and normal fields, one block */
    if (!list || !ri || !rj || !fields) {
        loam_free(list);
        loam_free(ri);
        loam_free(rj);
        loam_free(fields);
        return 0;
    }
    loam_free(k->list);
    loam_free(k->rows.i);
    loam_free(k->rows.j);
    loam_free(k->rows.fields);
    k->list = list;
    loam_gs_rows* r = &k->rows;
    r->i = ri;
    r->j = rj;
    r->fields = fields;
    float** floats[] = {&r->gap, &r->lx, &r->ly, &r->lz, &r->push};
    for (int a = 0; a < 5; ++a) *floats[a] = (float*)fields + (size_t)a * cap;
    int16_t* normals = (int16_t*)((float*)fields + 5 * cap);
    r->nx = normals;
    r->ny = normals + cap;
    r->nz = normals + 2 * cap;
    k->list_capacity = (int)cap;
    return 1;
}

static float pair_geometry(loam_gs_rows* r, int lo, int hi, const float* pos, int axis, float len, float worst) {
#ifdef LOAM_HAVE_AVX2
    if (loam_cpu_has_avx2()) return loam_gs_pair_geometry_avx2(r, lo, hi, pos, axis, len, worst);
#endif
    return loam_gs_pair_geometry(r, lo, hi, pos, axis, len, worst);
}

/* Body row q from its slot: body contacts are few, and their slots are always current. */
static void body_row(const loam_world* w, loam_gs_rows* r, int q) {
    const loam_contacts* c = &w->contacts;
    int s = ~r->j[q];
    const float* nd = &c->body_n[4 * (size_t)s];
    const float* lam = &c->body_lambda[3 * (size_t)s];
    r->nx[q] = loam_normal_pack(nd[0]);
    r->ny[q] = loam_normal_pack(nd[1]);
    r->nz[q] = loam_normal_pack(nd[2]);
    r->gap[q] = nd[3];
    r->lx[q] = lam[0];
    r->ly[q] = lam[1];
    r->lz[q] = lam[2];
}

float loam_gs_rows_gather(loam_world* w, const float* pos, int rows_valid) {
    const loam_contacts* c = &w->contacts;
    loam_coloring* k = &w->coloring;
    loam_gs_rows* r = &k->rows;
    float worst = 0.0f;
    float len = w->params.periodic_hi - w->params.periodic_lo;
    int total = k->color_start[LOAM_COLOR_SLOTS], warm = w->params.warm_start, axis = w->params.periodic_axis;
    int blocks = loam_block_count(w->count);
    r->omega = w->params.relaxation;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (int q0 = 0; q0 < total; q0 += LOAM_GS_CHUNK) {
        int hi = q0 + LOAM_GS_CHUNK < total ? q0 + LOAM_GS_CHUNK : total;
        worst = pair_geometry(r, q0, hi, pos, axis, len, worst);
        memset(&r->push[q0], 0, sizeof(float) * (size_t)(hi - q0));
        if (rows_valid && warm) continue; /* pair rows are complete; body rows below */
        for (int q = q0; q < hi; ++q) {
            int j = r->j[q];
            if (j < 0) {
                body_row(w, r, q);
                continue;
            }
            if (rows_valid) { /* and no warm start */
                r->lx[q] = r->ly[q] = r->lz[q] = 0.0f;
                continue;
            }
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
            for (int q = marks[2 * col + 1]; q < marks[2 * col + 2]; ++q) body_row(w, r, q);
    }
    return worst;
}

/* Body rows' impulses back to their slots after the solve (body wrenches read them there). Pair
 * impulses stay in the rows until a block's contacts change (detection then copies that block's
 * back, loam_granular_block_rows_to_slots) or a renumbering needs them all in the slots
 * (loam_granular_rows_to_slots): a bed at rest never does. */
void loam_gs_rows_scatter_bodies(loam_world* w) {
    loam_contacts* c = &w->contacts;
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

/* Pair rows [lo, hi) back to their slots (body rows are skipped: their slots are current). */
static void rows_to_slots(loam_world* w, int lo, int hi) {
    const loam_coloring* k = &w->coloring;
    const loam_gs_rows* r = &k->rows;
    for (int q = lo; q < hi; ++q) {
        int32_t ref = k->list[q];
        if (ref < 0) continue;
        float* lam = &w->contacts.pair_lambda[3 * (size_t)ref];
        lam[0] = r->lx[q];
        lam[1] = r->ly[q];
        lam[2] = r->lz[q];
    }
}

void loam_granular_block_rows_to_slots(loam_world* w, int b) {
    const loam_coloring* k = &w->coloring;
    const int32_t* marks = &k->inner[(size_t)b * LOAM_BLOCK_MARKS];
    rows_to_slots(w, marks[0], marks[2 * LOAM_COLOR_SLOTS]);
    /* The crossing rows of each colour are listed block after block; after color.c's fill, the
     * third part of block_counts holds where each block's rows of each colour end. */
    const int32_t* end = k->block_counts + 2 * (size_t)loam_block_count(w->count) * LOAM_COLOR_SLOTS;
    for (int col = 0; col < LOAM_COLOR_SLOTS; ++col) {
        int lo = b == 0 ? k->color_start[col] : end[(size_t)(b - 1) * LOAM_COLOR_SLOTS + col];
        rows_to_slots(w, lo, end[(size_t)b * LOAM_COLOR_SLOTS + col]);
    }
}

void loam_granular_rows_to_slots(loam_world* w) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int b = 0; b < loam_block_count(w->count); ++b) loam_granular_block_rows_to_slots(w, b);
    w->coloring.lambda_in_rows = 0;
}
