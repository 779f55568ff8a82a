#include "collide/spatial_hash.h"

#include <math.h>
#include <string.h>

#include "core/threads.h"
#include "loam/core.h"

static const uint32_t k_primes[3] = {73856093u, 19349663u, 83492791u};

static void set_sizes(loam_spatial_hash* h, int table_size, int capacity) {
    h->table_size = table_size > 0 ? table_size : 1;
    h->capacity = capacity > 0 ? capacity : 1;
    h->mod_magic = UINT64_MAX / (uint64_t)h->table_size + 1;
}

/* Unit cells from the origin, no periodic axis (until loam_hash_set_cell). */
static void reset_cells(loam_spatial_hash* h) {
    h->periodic_axis = -1;
    h->periodic_cells = 0;
    for (int a = 0; a < 3; ++a) {
        h->inv_cell[a] = 1.0f;
        h->origin[a] = 0.0f;
    }
}

int loam_hash_init(loam_spatial_hash* h, int table_size, int capacity) {
    set_sizes(h, table_size, capacity);
    h->head = loam_malloc(sizeof(int32_t) * ((size_t)h->table_size + 1));
    h->next = loam_malloc(sizeof(int32_t) * (size_t)h->capacity);
    h->bucket_of = loam_malloc(sizeof(int32_t) * (size_t)h->capacity);
    h->items = h->next;
    h->bucket_start = h->head;
    h->owned = 1;
    reset_cells(h);
    return h->head && h->next && h->bucket_of;
}

size_t loam_hash_bytes(int table_size, int capacity) {
    size_t table = (size_t)(table_size > 0 ? table_size : 1), cap = (size_t)(capacity > 0 ? capacity : 1);
    return sizeof(int32_t) * (table + 1 + 2 * cap);
}

void loam_hash_attach(loam_spatial_hash* h, int table_size, int capacity, void* memory) {
    if (h->owned) loam_hash_free(h);
    set_sizes(h, table_size, capacity);
    int32_t* m = memory;
    h->head = m;
    h->next = m ? m + h->table_size + 1 : NULL;
    h->bucket_of = m ? h->next + h->capacity : NULL;
    h->items = h->next;
    h->bucket_start = h->head;
    h->owned = 0;
    if (!m) reset_cells(h);
}

void loam_hash_free(loam_spatial_hash* h) {
    if (h->owned) {
        loam_free(h->head);
        loam_free(h->next);
        loam_free(h->bucket_of);
    }
    h->head = h->next = h->bucket_of = h->items = h->bucket_start = 0;
    h->owned = 0;
}

void loam_hash_set_cell(loam_spatial_hash* h, float cell, int axis, float lo, float hi) {
    for (int a = 0; a < 3; ++a) {
        h->inv_cell[a] = 1.0f / cell;
        h->origin[a] = 0.0f;
    }
    h->periodic_axis = axis;
    h->periodic_cells = 0;
    if (axis >= 0) {
        int cells = (int)floorf((hi - lo) / cell);
        if (cells < 3) cells = 3; /* validated upstream: the period holds at least 3 cells */
        h->periodic_cells = cells;
        h->inv_cell[axis] = (float)cells / (hi - lo);
        h->origin[axis] = lo;
    }
}

/* Cell coordinate along one axis, clamped so absurd positions cannot overflow an int; such
 * positions are reported as divergence by the caller anyway. */
static inline int32_t cell_coord(const loam_spatial_hash* h, int axis, float v) {
    float c = floorf((v - h->origin[axis]) * h->inv_cell[axis]);
    if (!(c > -1e9f)) c = -1e9f; /* also catches NaN */
    if (c > 1e9f) c = 1e9f;
    int32_t ci = (int32_t)c;
    if (axis == h->periodic_axis) {
        ci %= h->periodic_cells;
        if (ci < 0) ci += h->periodic_cells;
    }
    return ci;
}

/* Equation 6 of paper 000. The "mod n_h" is computed exactly with Lemire's fastmod (a multiply by a
 * precomputed 64-bit reciprocal) instead of a division: 27 divisions per particle per step showed up
 * as a third of detection time in perf. */
static inline int32_t bucket_of(const loam_spatial_hash* h, int32_t cx, int32_t cy, int32_t cz) {
    uint32_t v = ((uint32_t)(cx - LOAM_HASH_Q) * k_primes[0]) ^ ((uint32_t)(cy - LOAM_HASH_Q) * k_primes[1]) ^
                 ((uint32_t)(cz - LOAM_HASH_Q) * k_primes[2]);
    uint64_t low = h->mod_magic * v;
    return (int32_t)(((__uint128_t)low * (uint32_t)h->table_size) >> 64);
}

void loam_hash_build(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z) {
    loam_hash_build_threads(h, n, x, y, z, 0);
}

void loam_hash_build_threads(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z, int threads) {
    int32_t* head = h->head;
    int32_t* next = h->next;
    h->compacted = 0;
#pragma omp parallel num_threads(loam_team(threads))
    {
#pragma omp for schedule(static)
        for (int b = 0; b < h->table_size; ++b) head[b] = -1;
#pragma omp for schedule(static)
        for (int i = 0; i < n; ++i) {
            int32_t b = bucket_of(h, cell_coord(h, 0, x[i]), cell_coord(h, 1, y[i]), cell_coord(h, 2, z[i]));
            h->bucket_of[i] = b;
            /* Algorithm 2: push i onto the bucket's chain with one CAS; retry if another thread won. */
            int32_t old = __atomic_load_n(&head[b], __ATOMIC_RELAXED);
            do {
                next[i] = old;
            } while (!__atomic_compare_exchange_n(&head[b], &old, i, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
        }
    }
}

void loam_hash_compact(loam_spatial_hash* h, int n) {
    /* Counting sort by bucket, serial and in index order (so each run is ascending whatever the
     * thread count): three passes over n and one over the table, small beside the queries. It
     * reads bucket_of only, so it may write over the chains. */
    int32_t* start = h->bucket_start;
    memset(start, 0, sizeof(int32_t) * ((size_t)h->table_size + 1));
    for (int i = 0; i < n; ++i) start[h->bucket_of[i] + 1]++;
    for (int b = 0; b < h->table_size; ++b) start[b + 1] += start[b];
    for (int i = 0; i < n; ++i) h->items[start[h->bucket_of[i]]++] = i;
    /* The scatter advanced each start to the next bucket's: shift back. */
    for (int b = h->table_size; b > 0; --b) start[b] = start[b - 1];
    start[0] = 0;
    h->compacted = 1;
}

void loam_hash_cell(const loam_spatial_hash* h, float px, float py, float pz, int32_t cell[3]) {
    cell[0] = cell_coord(h, 0, px);
    cell[1] = cell_coord(h, 1, py);
    cell[2] = cell_coord(h, 2, pz);
}

/* Two cells may share a bucket (always, with a tiny table): each bucket is listed once, or its
 * particles would be met several times. */
int loam_hash_cell_neighbor_buckets(const loam_spatial_hash* h, const int32_t c[3], int32_t buckets[27]) {
    int count = 0;
    uint64_t filter[4] = {0, 0, 0, 0};
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                int32_t k[3] = {c[0] + dx, c[1] + dy, c[2] + dz};
                int a = h->periodic_axis;
                if (a >= 0) k[a] = (k[a] + h->periodic_cells) % h->periodic_cells;
                int32_t b = bucket_of(h, k[0], k[1], k[2]);
                /* A 256-bit filter on the bucket's low bits: a clear bit proves b is new, so the
                 * linear search (27 x 27 / 2 compares per particle, a third of a neighbour-list
                 * build in perf) runs only for the rare filter hits. */
                uint64_t bit = 1ull << (b & 63), *word = &filter[(b >> 6) & 3];
                int seen = 0;
                if (*word & bit)
                    for (int s = 0; s < count && !seen; ++s) seen = buckets[s] == b;
                *word |= bit;
                if (!seen) buckets[count++] = b;
            }
    return count;
}

int loam_hash_neighbor_buckets(const loam_spatial_hash* h, float px, float py, float pz, int32_t buckets[27]) {
    int32_t c[3];
    loam_hash_cell(h, px, py, pz, c);
    return loam_hash_cell_neighbor_buckets(h, c, buckets);
}
