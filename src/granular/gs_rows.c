/* The Gauss-Seidel rows (loam_gs_rows): their storage, their refresh at the start of each solve, and
 * the way their impulses return to the contact slots. */
#include <string.h>

#include "granular/gs_rows.h"
#include "granular/world_internal.h"

int loam_coloring_reserve(loam_coloring* k, int need) {
    if (need <= k->list_capacity) return 1;
    size_t cap = (size_t)need + (size_t)need / 4 + 256; /* grows rarely: a bed's contacts change slowly */
    cap = (cap + 31) & ~(size_t)31;                     /* keeps every field 64-byte aligned */
    int32_t* ri = loam_malloc(sizeof(int32_t) * cap);
    int32_t* rj = loam_malloc(sizeof(int32_t) * cap);
    void* fields = loam_malloc(loam_gs_rows_field_bytes(cap)); /* the float and normal fields, one block */
    if (!ri || !rj || !fields) {
        loam_free(ri);
        loam_free(rj);
        loam_free(fields);
        return 0;
    }
    loam_gs_rows* r = &k->rows;
    float** floats[] = {&r->lx, &r->ly, &r->lz, &r->gap, &r->push}; /* impulses first: see loam_gs_rows_spare */
    /* The pair refs name the old rows' impulses: they move along, at the same indices. */
    for (int a = 0; a < 3 && r->fields; ++a)
        memcpy((float*)fields + (size_t)a * cap, *floats[a], sizeof(float) * (size_t)k->rows_total);
    loam_free(r->i);
    loam_free(r->j);
    loam_free(r->fields);
    r->i = ri;
    r->j = rj;
    r->fields = fields;
    for (int a = 0; a < 5; ++a) *floats[a] = (float*)fields + (size_t)a * cap;
    int16_t* normals = (int16_t*)((float*)fields + 5 * cap);
    r->nx = normals;
    r->ny = normals + cap;
    r->nz = normals + 2 * cap;
    k->list = (int32_t*)r->gap; /* the list lives from the colouring to the refresh, before the gaps */
    k->list_capacity = (int)cap;
    return 1;
}

void* loam_gs_rows_spare(const loam_coloring* k, size_t* bytes) {
    if (!k->rows.fields) {
        *bytes = 0;
        return NULL;
    }
    *bytes = loam_gs_rows_field_bytes((size_t)k->list_capacity) - 3 * sizeof(float) * (size_t)k->list_capacity;
    return k->rows.gap;
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

/* The pair rows' warm-start impulses after a colouring, from where the slots' refs point: last
 * step's rows, at the same place in the impulse fields. First each new row's source replaces its
 * slot in the list (the list is not read again) and the slot's ref names the new row; then each
 * field goes through the push field (which the refresh clears anyway), as the new rows are listed
 * in place of the old ones. */
static void impulses_from_old_rows(loam_world* w, int total) {
    loam_coloring* k = &w->coloring;
    loam_gs_rows* r = &k->rows;
    int32_t* ref = w->contacts.pair_ref;
    float* field[3] = {r->lx, r->ly, r->lz};
    float* old = r->push;
    int old_total = k->rows_total;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int q = 0; q < total; ++q) {
            int32_t s = k->list[q];
            if (s < 0) { /* a body row: its impulse comes from its slot after this (body_row) */
                k->list[q] = LOAM_REF_NONE;
                continue;
            }
            k->list[q] = ref[s];
            ref[s] = q;
        }
        for (int a = 0; a < 3; ++a) {
#pragma omp for schedule(static)
            for (int q = 0; q < old_total; ++q) old[q] = field[a][q];
#pragma omp for schedule(static)
            for (int q = 0; q < total; ++q) {
                int32_t f = k->list[q];
                field[a][q] = f >= 0 ? old[f] : f == LOAM_REF_NONE ? 0.0f : -old[-2 - f];
            }
        }
    }
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
    /* Where this step's warm start is: in the rows already (the same contacts as last step), in last
     * step's rows (a new colouring: the refs say where), or nowhere. */
    int from_rows = !rows_valid && warm && k->lambda_in_rows;
    if (from_rows) impulses_from_old_rows(w, total);
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (int q0 = 0; q0 < total; q0 += LOAM_GS_CHUNK) {
        int hi = q0 + LOAM_GS_CHUNK < total ? q0 + LOAM_GS_CHUNK : total;
        /* The list (in the gap field) is read before the geometry overwrites it. */
        for (int q = q0; q < hi && !(rows_valid && warm); ++q) {
            int j = r->j[q];
            if (j < 0) {
                body_row(w, r, q);
                continue;
            }
            if (from_rows) continue; /* impulses and refs done (impulses_from_old_rows) */
            if (!rows_valid) c->pair_ref[k->list[q]] = q;
            r->lx[q] = r->ly[q] = r->lz[q] = 0.0f;
        }
        worst = pair_geometry(r, q0, hi, pos, axis, len, worst);
        memset(&r->push[q0], 0, sizeof(float) * (size_t)(hi - q0));
    }
    k->rows_total = total;
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
 * impulses stay in the rows, where their slots' refs point. */
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
