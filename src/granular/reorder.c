/* Spatial reordering: every few steps, particles are renumbered along a Z-order (Morton) curve of
 * their hash cells, so particles that are near in space are near in memory. The hash chains and
 * neighbour lists then walk nearby cache lines instead of jumping across the arrays (perf showed
 * detection stalled on those loads). Particles keep their identity in `id`; users read ids, not slot
 * numbers. (Sorting by bucket number was tried first: buckets of adjacent cells are scattered by the
 * hash, and it was slower than no sorting at all.)
 *
 * The sort is a serial, stable radix sort, so the new order depends only on positions: the same for
 * every thread count. Last step's contacts are renumbered too, so warm starting
 * survives the reorder. */
#include <string.h>

#include "granular/world_internal.h"

/* Spread the low 21 bits of v so two zero bits follow each one (for 3-D Morton codes). */
static uint64_t spread3(uint64_t v) {
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* Morton (Z-order) code of each particle's hash cell, relative to the lowest cell: nearby cells get
 * nearby codes, so sorting by it keeps neighbours close in memory, and the particles of one hash
 * cell consecutive (a neighbour-list build gathers a cell's candidates once for all of them). */
static void morton_keys(const loam_world* w, uint64_t* key) {
    int32_t lo[3], c[3];
    loam_hash_cell(&w->hash, w->x[0], w->y[0], w->z[0], lo);
    for (int i = 1; i < w->count; ++i) {
        loam_hash_cell(&w->hash, w->x[i], w->y[i], w->z[i], c);
        for (int a = 0; a < 3; ++a) lo[a] = c[a] < lo[a] ? c[a] : lo[a];
    }
    for (int i = 0; i < w->count; ++i) {
        loam_hash_cell(&w->hash, w->x[i], w->y[i], w->z[i], c);
        uint64_t code = 0;
        for (int a = 0; a < 3; ++a) {
            int64_t rel = (int64_t)c[a] - lo[a];
            code |= spread3(rel < 2097151 ? (uint64_t)rel : 2097151u) << a;
        }
        key[i] = code;
    }
}

/* Stable LSD radix sort of (key, index) by key, 16 bits per pass, skipping digits all keys share. */
static void radix_sort(uint64_t* key, int32_t* idx, uint64_t* key_tmp, int32_t* idx_tmp, int32_t* counts, int n) {
    uint64_t all_or = 0, all_and = ~0ull;
    for (int i = 0; i < n; ++i) {
        all_or |= key[i];
        all_and &= key[i];
    }
    for (int shift = 0; shift < 64; shift += 16) {
        if (((all_or ^ all_and) >> shift & 0xffff) == 0) continue;
        memset(counts, 0, sizeof(int32_t) * 65536);
        for (int i = 0; i < n; ++i) counts[key[i] >> shift & 0xffff]++;
        int32_t sum = 0;
        for (int d = 0; d < 65536; ++d) {
            int32_t c = counts[d];
            counts[d] = sum;
            sum += c;
        }
        for (int i = 0; i < n; ++i) {
            int32_t at = counts[key[i] >> shift & 0xffff]++;
            key_tmp[at] = key[i];
            idx_tmp[at] = idx[i];
        }
        memcpy(key, key_tmp, sizeof(uint64_t) * (size_t)n);
        memcpy(idx, idx_tmp, sizeof(int32_t) * (size_t)n);
    }
}

static void permute_floats(float* a, const int32_t* perm, float* tmp, int n) {
    for (int k = 0; k < n; ++k) tmp[k] = a[perm[k]];
    memcpy(a, tmp, sizeof(float) * (size_t)n);
}

static void permute_ints(int32_t* a, const int32_t* perm, int32_t* tmp, int n) {
    for (int k = 0; k < n; ++k) tmp[k] = a[perm[k]];
    memcpy(a, tmp, sizeof(int32_t) * (size_t)n);
}

/* Renumber last step's contact lists: partners through inv, then re-sort each owner's list by the
 * new partner index (with its impulse), as warm_start() merges sorted lists. */
static void renumber_contacts(loam_contact_set* c, const int32_t* perm, const int32_t* inv, int32_t* tmp, int n) {
    int32_t* per_particle[] = {c->pair_start, c->pair_count, c->body_start, c->body_count};
    for (size_t k = 0; k < sizeof per_particle / sizeof per_particle[0]; ++k) permute_ints(per_particle[k], perm, tmp, n);
    for (int i = 0; i < n; ++i) {
        int32_t* j = &c->pair_j[c->pair_start[i]];
        float* lam = &c->pair_lambda[3 * (size_t)c->pair_start[i]];
        int m = c->pair_count[i];
        for (int k = 0; k < m; ++k) j[k] = inv[j[k]];
        /* A renumbered partner may now sit below i; warm_start() then simply finds no match. */
        for (int k = 1; k < m; ++k) {
            int32_t jk = j[k];
            float l[3] = {lam[3 * k], lam[3 * k + 1], lam[3 * k + 2]};
            int q = k - 1;
            while (q >= 0 && j[q] > jk) {
                j[q + 1] = j[q];
                memcpy(&lam[3 * (q + 1)], &lam[3 * q], 3 * sizeof(float));
                --q;
            }
            j[q + 1] = jk;
            memcpy(&lam[3 * (q + 1)], l, 3 * sizeof(float));
        }
    }
}

void loam_granular_reorder(loam_world* w) {
    int n = w->count;
    if (n < 2) return;
    /* Scratch borrowed from buffers that the coming stages rewrite anyway (16 bytes a particle
     * each): the solver velocities hold two key arrays, the push buffer four index arrays. */
    uint64_t* key = (uint64_t*)w->sv;
    uint64_t* key_tmp = key + n;
    int32_t* perm = (int32_t*)w->push_velocity;
    int32_t* inv = perm + n;
    int32_t* itmp = perm + 2 * (size_t)n;
    int32_t* ptmp = perm + 3 * (size_t)n;
    morton_keys(w, key);
    for (int i = 0; i < n; ++i) perm[i] = i;
    radix_sort(key, perm, key_tmp, ptmp, w->radix_counts, n); /* perm[new] = old */
    for (int k = 0; k < n; ++k) inv[perm[k]] = k;
    float* ftmp = w->sv; /* the keys are no longer needed */
    float* arrays[] = {w->x, w->y, w->z, w->vx, w->vy, w->vz, w->radius, w->inv_mass};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k) permute_floats(arrays[k], perm, ftmp, n);
    permute_ints(w->id, perm, itmp, n);
    permute_ints(w->calm, perm, itmp, n); /* wake flags are clear between steps */
    if (w->prev.pair_start) renumber_contacts(&w->prev, perm, inv, itmp, n);
}
