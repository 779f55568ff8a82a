/* The contact rows (loam_rows): their storage, their refresh at the start of each solve, and
 * the way their impulses return to the contact slots. */
#include <string.h>

#include "granular/rows.h"
#include "granular/world_internal.h"

int loam_coloring_reserve(loam_coloring* k, int need) {
    if (need <= k->list_capacity) return 1;
    size_t cap = (size_t)need + (size_t)need / 4 + 256; /* grows rarely: a bed's contacts change slowly */
    cap = (cap + 31) & ~(size_t)31;                     /* keeps every field 64-byte aligned */
    uint16_t* ri = loam_malloc(sizeof(uint16_t) * cap);
    int32_t* rj = loam_malloc(sizeof(int32_t) * cap);
    void* fields = loam_malloc(loam_rows_field_bytes(cap)); /* the float and normal fields, one block */
    if (!ri || !rj || !fields) {
        loam_free(ri);
        loam_free(rj);
        loam_free(fields);
        return 0;
    }
    loam_rows* r = &k->rows;
    float** floats[] = {&r->lx, &r->ly, &r->lz, &r->gap, &r->push}; /* impulses first: see loam_rows_spare */
    /* The pair refs name the old rows' impulses: they move along, at the same indices. Nothing else
     * in the old rows is kept (a growth comes before every row is listed anew), and it goes first,
     * then each impulse field once copied, so the rows are never resident twice (such a moment was
     * the column's peak). */
    loam_free(r->i);
    loam_free(r->j);
    size_t old_cap = (size_t)k->list_capacity, field = sizeof(float) * old_cap;
    loam_release(r->fields, 3 * field, loam_rows_field_bytes(old_cap));
    for (int a = 0; a < 3 && r->fields; ++a) {
        memcpy((float*)fields + (size_t)a * cap, *floats[a], sizeof(float) * (size_t)k->rows_total);
        loam_release(r->fields, (size_t)a * field, (size_t)(a + 1) * field);
    }
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

void* loam_rows_spare(const loam_coloring* k, size_t* bytes) {
    if (!k->rows.fields) {
        *bytes = 0;
        return NULL;
    }
    *bytes = loam_rows_field_bytes((size_t)k->list_capacity) - 3 * sizeof(float) * (size_t)k->list_capacity;
    return k->rows.gap;
}

static float pair_geometry(loam_rows* r, int lo, int hi, int base, const float* pos, int axis, float len, float worst) {
#ifdef LOAM_HAVE_AVX2
    if (loam_cpu_has_avx2()) return loam_rows_geometry_avx2(r, lo, hi, base, pos, axis, len, worst);
#endif
    return loam_rows_geometry(r, lo, hi, base, pos, axis, len, worst);
}

/* Body row q of block b from its slot: body contacts are few, and their slots are always current. */
static void body_row(const loam_world* w, loam_rows* r, int b, int q) {
    const loam_contacts* c = &w->contacts;
    int s = ~r->j[q], i = b * LOAM_BLOCK + r->i[q];
    const float* nd = &c->body_n[4 * (size_t)s];
    const float* lam = &c->body_lambda[3 * (size_t)s];
    r->nx[q] = loam_normal_pack(nd[0]);
    r->ny[q] = loam_normal_pack(nd[1]);
    r->nz[q] = loam_normal_pack(nd[2]);
    r->gap[q] = nd[3] - w->radius[i]; /* detection's gap, bit for bit */
    r->lx[q] = lam[0];
    r->ly[q] = lam[1];
    r->lz[q] = lam[2];
}

/* Rows [lo, hi) of block b's region (rows in use). */
static void block_rows(const loam_coloring* k, int b, int* lo, int* hi) {
    *lo = k->region[b];
    *hi = loam_block_marks(k, b)[3 * LOAM_COLOR_SLOTS];
}

/* A listed row q's warm start: its slot's ref names where its impulse was (list[q] becomes that
 * source, and the ref names q); body rows take theirs from their slots later (body_row). */
static inline void take_ref(loam_coloring* k, int32_t* ref, int q) {
    int32_t s = k->list[q];
    if (s < 0) {
        k->list[q] = LOAM_REF_NONE;
        return;
    }
    k->list[q] = ref[s];
    ref[s] = q;
}

/* Impulse of a row from old values and the source take_ref left. */
static inline float from_old(const float* old, int32_t f) {
    return f >= 0 ? old[f] : f == LOAM_REF_NONE ? 0.0f : -old[-2 - f];
}

/* After a colouring that laid every region out anew, every listed row's warm start from last
 * step's rows, wherever the refs name them. Each field goes through the push field (which the
 * refresh clears anyway), as the new rows are listed in place of the old ones. */
static void impulses_relaid(loam_world* w) {
    loam_coloring* k = &w->coloring;
    loam_rows* r = &k->rows;
    int32_t* ref = w->contacts.pair_ref;
    float* field[3] = {r->lx, r->ly, r->lz};
    float* old = r->push;
    int old_total = k->rows_total, blocks = loam_block_count(w->count);
#pragma omp parallel num_threads(w->team)
    {
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < blocks; ++b) {
            int lo, hi;
            block_rows(k, b, &lo, &hi);
            for (int q = lo; q < hi; ++q) take_ref(k, ref, q);
        }
        for (int a = 0; a < 3; ++a) {
#pragma omp for schedule(static)
            for (int q = 0; q < old_total; ++q) old[q] = field[a][q];
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < blocks; ++b) {
                int lo, hi;
                block_rows(k, b, &lo, &hi);
                for (int q = lo; q < hi; ++q) field[a][q] = from_old(old, k->list[q]);
            }
        }
    }
}

/* After a colouring that listed block b anew in its region: its rows' warm start from its old rows,
 * which lay in the same region (a pair's row is in its owner's region, and owners change only at a
 * renumbering, which lays every region out anew). Through the region's push field, as above. */
static void impulses_of_block(loam_world* w, int b) {
    loam_coloring* k = &w->coloring;
    loam_rows* r = &k->rows;
    int32_t* ref = w->contacts.pair_ref;
    float* field[3] = {r->lx, r->ly, r->lz};
    int lo, hi, old_hi = k->listed_from[b];
    block_rows(k, b, &lo, &hi);
    for (int q = lo; q < hi; ++q) take_ref(k, ref, q);
    for (int a = 0; a < 3; ++a) {
        if (old_hi > lo) memcpy(&r->push[lo], &field[a][lo], sizeof(float) * (size_t)(old_hi - lo));
        for (int q = lo; q < hi; ++q) field[a][q] = from_old(r->push, k->list[q]);
    }
}

/* A block's rows without a warm start: no impulse; if listed anew, the refs name the rows. */
static void cold_block(loam_world* w, int b, int listed) {
    loam_coloring* k = &w->coloring;
    loam_rows* r = &k->rows;
    int lo, hi;
    block_rows(k, b, &lo, &hi);
    for (int q = lo; q < hi; ++q) {
        if (listed && r->j[q] >= 0) w->contacts.pair_ref[k->list[q]] = q;
        r->lx[q] = r->ly[q] = r->lz[q] = 0.0f;
    }
}

float loam_rows_refresh(loam_world* w, const float* pos) {
    loam_coloring* k = &w->coloring;
    loam_rows* r = &k->rows;
    float worst = 0.0f;
    float len = w->params.periodic_hi - w->params.periodic_lo;
    int warm = w->params.warm_start && k->lambda_in_rows, axis = w->params.periodic_axis;
    int blocks = loam_block_count(w->count);
    r->omega = loam_granular_relaxation(&w->params);
    /* Where this step's warm start is: in the rows already (a block whose rows were kept), in last
     * step's rows (a block listed anew: its refs say where), or nowhere. */
    if (warm && k->relaid) impulses_relaid(w);
#pragma omp parallel reduction(max : worst) num_threads(w->team)
    {
        /* The warm start and body rows by block (the list in the gap field is read here), */
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < blocks; ++b) {
            int listed = k->listed_from[b] >= 0;
            if (!warm) cold_block(w, b, listed);
            else if (listed && !k->relaid) impulses_of_block(w, b);
            const int32_t* marks = loam_block_marks(k, b);
            for (int col = 0; col < LOAM_COLOR_SLOTS; ++col)
                for (int q = marks[2 * col + 1]; q < marks[2 * col + 2]; ++q) body_row(w, r, b, q);
        }
        /* then the pairs' geometry over every row in use, in even shares. */
#pragma omp for schedule(static)
        for (int t = k->task_mark[0]; t < k->task_mark[1]; ++t) {
            int lo = k->tasks[3 * t], hi = k->tasks[3 * t + 1], base = k->tasks[3 * t + 2] * LOAM_BLOCK;
            worst = pair_geometry(r, lo, hi, base, pos, axis, len, worst);
            memset(&r->push[lo], 0, sizeof(float) * (size_t)(hi - lo));
        }
    }
    k->rows_total = k->region[blocks];
    /* Until the next colouring, the rows are kept as they are. */
    for (int b = 0; b < blocks; ++b) k->listed_from[b] = -1;
    k->relaid = 0;
    return worst;
}

/* Body rows' impulses back to their slots after the solve (body wrenches read them there). Pair
 * impulses stay in the rows, where their slots' refs point. */
void loam_rows_scatter_bodies(loam_world* w) {
    loam_contacts* c = &w->contacts;
    const loam_coloring* k = &w->coloring;
    const loam_rows* r = &k->rows;
#pragma omp for schedule(static)
    for (int b = 0; b < loam_block_count(w->count); ++b) {
        const int32_t* marks = loam_block_marks(k, b);
        for (int col = 0; col < LOAM_COLOR_SLOTS; ++col)
            for (int q = marks[2 * col + 1]; q < marks[2 * col + 2]; ++q) {
                float* lam = &c->body_lambda[3 * (size_t)~r->j[q]];
                lam[0] = r->lx[q];
                lam[1] = r->ly[q];
                lam[2] = r->lz[q];
            }
    }
}
