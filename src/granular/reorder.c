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

#include "granular/rows.h"
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

/* Sort one owner's pairs by partner, refs and colours along (lists are short). */
static void sort_pairs(int32_t* j, int32_t* ref, uint8_t* col, int m) {
    for (int k = 1; k < m; ++k) {
        int32_t jk = j[k], rk = ref[k];
        uint8_t ck = col[k];
        int q = k - 1;
        for (; q >= 0 && j[q] > jk; --q) {
            j[q + 1] = j[q];
            ref[q + 1] = ref[q];
            col[q + 1] = col[q];
        }
        j[q + 1] = jk;
        ref[q + 1] = rk;
        col[q + 1] = ck;
    }
}

/* Bytes of the packed copy of the contacts (renumber_contacts). */
static size_t packed_bytes(size_t pairs, size_t bodies) { return pairs * (4 + 4 + 1) + bodies * (12 + 4 + 1); }

/* Renumber last step's contacts so that detection finds them under the new numbers: a pair goes to
 * its new owner, the lower of its two new indices (where that is the old partner, the impulse on
 * it is minus the old owner's), each owner's pairs sorted by partner as contacts_of() merges them,
 * and each particle's contacts move to its new block's region (detection reads a block's contacts of
 * last step only there, so no block reads what another replaces). A pair that changes owner is
 * marked LOAM_REOWNED: it keeps its impulse but must pass the margin test again, as a pair the
 * owner did not have (the physics of the two-set storage, bit for bit). Keeping it as a contact of
 * last step instead (it stays while in the list) measured 6% more contacts in a column at rest and
 * 11% in Bulldozing, with their memory and time; Gauss-Seidel beds settled no better, Jacobi ones
 * calmer. work: 3 n ints. Returns 0 when out of memory. */
static int renumber_contacts(loam_world* w, const int32_t* perm, const int32_t* inv, int32_t* work, void* packed) {
    loam_contacts* c = &w->contacts;
    int n = w->count, blocks = loam_block_count(n);
    int32_t* owned = work;                     /* pairs each particle owns under the new numbers */
    int32_t* at = work + n;                    /* where they go in the packed copy */
    int32_t* bodies_of = work + 2 * (size_t)n; /* body contacts of each new number */
    size_t pairs = 0, bodies = 0;
    memset(owned, 0, sizeof(int32_t) * (size_t)n);
    for (int o = 0; o < n; ++o) {
        for (int s = loam_pairs_begin(c, o), s_end = loam_pairs_end(c, o); s < s_end; ++s) {
            int a = inv[o], p = inv[c->pair_j[s]];
            owned[a < p ? a : p]++;
        }
        pairs += (size_t)loam_pairs_count(c, o);
        bodies += (size_t)loam_bodies_count(c, o);
    }
    int32_t* pair_need = w->block_need;
    int32_t* body_need = w->block_need + blocks;
    int grow = 0;
    for (int b = 0; b < blocks; ++b) {
        pair_need[b] = body_need[b] = 0;
        for (int k = b * LOAM_BLOCK; k < loam_block_end(w, b); ++k) {
            bodies_of[k] = loam_bodies_count(c, perm[k]);
            pair_need[b] += owned[k];
            body_need[b] += bodies_of[k];
        }
        grow |= pair_need[b] > c->pair_region[b + 1] - c->pair_region[b] ||
                body_need[b] > c->body_region[b + 1] - c->body_region[b];
    }
    /* Growing moves the old contacts with their (old) blocks: still consistent, as nothing is renumbered yet. */
    if (grow && !loam_contacts_reserve(w, pair_need, body_need)) return 0;
    float* body_lam = packed;
    int32_t* pj = (int32_t*)(body_lam + 3 * bodies);
    int32_t* ref = pj + pairs;
    int32_t* shape = ref + pairs;
    uint8_t* col = (uint8_t*)(shape + bodies);
    uint8_t* body_col = col + pairs;
    int32_t sum = 0;
    for (int k = 0; k < n; ++k) {
        at[k] = sum;
        sum += owned[k];
    }
    for (int o = 0; o < n; ++o)
        for (int s = loam_pairs_begin(c, o), s_end = loam_pairs_end(c, o); s < s_end; ++s) {
            int a = inv[o], p = inv[c->pair_j[s]];
            int32_t q = at[a < p ? a : p]++;
            pj[q] = a < p ? p : a;
            ref[q] = a < p ? c->pair_ref[s] : loam_ref_flip(c->pair_ref[s]);
            col[q] = a < p ? c->pair_color[s] : LOAM_REOWNED;
        }
    for (int k = 0, q = 0; k < n; q += bodies_of[k++]) {
        int from = loam_bodies_begin(c, perm[k]);
        memcpy(&shape[q], &c->body_shape[from], sizeof(int32_t) * (size_t)bodies_of[k]);
        memcpy(&body_lam[3 * (size_t)q], &c->body_lambda[3 * (size_t)from], 3 * sizeof(float) * (size_t)bodies_of[k]);
        memcpy(&body_col[q], &c->body_color[from], (size_t)bodies_of[k]);
    }
    for (int k = 0; k < n; ++k) {
        int32_t q = at[k] - owned[k];
        sort_pairs(&pj[q], &ref[q], &col[q], owned[k]);
    }
    /* Back into the regions, block by block (the packed copy is in the same order). */
    size_t q = 0, bq = 0;
    for (int b = 0; b < blocks; ++b) {
        int32_t pa = c->pair_region[b], ba = c->body_region[b];
        memcpy(&c->pair_j[pa], &pj[q], sizeof(int32_t) * (size_t)pair_need[b]);
        memcpy(&c->pair_ref[pa], &ref[q], sizeof(int32_t) * (size_t)pair_need[b]);
        memcpy(&c->pair_color[pa], &col[q], (size_t)pair_need[b]);
        memcpy(&c->body_shape[ba], &shape[bq], sizeof(int32_t) * (size_t)body_need[b]);
        memcpy(&c->body_lambda[3 * (size_t)ba], &body_lam[3 * bq], 3 * sizeof(float) * (size_t)body_need[b]);
        memcpy(&c->body_color[ba], &body_col[bq], (size_t)body_need[b]);
        q += (size_t)pair_need[b];
        bq += (size_t)body_need[b];
        int32_t pair_end = 0, body_end = 0;
        for (int k = b * LOAM_BLOCK; k < loam_block_end(w, b); ++k) {
            c->pair_end[k] = pair_end += owned[k];
            c->body_end[k] = body_end += bodies_of[k];
        }
    }
    return 1;
}

int loam_granular_reorder(loam_world* w) {
    int n = w->count;
    if (n < 2) return 1;
    /* Scratch borrowed from buffers that the coming stages rewrite anyway: the solver velocities
     * (16 bytes a particle) hold two key arrays; four index arrays (16 bytes a particle) and the
     * packed copy of the contacts go to spare memory (loam_granular_spare: the rows' spare fields,
     * which the colouring that follows a renumbering rewrites; the impulses, which the refs name,
     * stay). */
    const loam_contacts* c = &w->contacts;
    size_t pairs = 0, bodies = 0;
    for (int i = 0; c->pair_end && i < n; ++i) {
        pairs += (size_t)loam_pairs_count(c, i);
        bodies += (size_t)loam_bodies_count(c, i);
    }
    size_t index_bytes = 4 * sizeof(int32_t) * (size_t)n;
    char* spare = loam_granular_spare(w, index_bytes + packed_bytes(pairs, bodies));
    if (!spare) return 0;
    void* packed = spare + index_bytes;
    uint64_t* key = (uint64_t*)w->sv;
    uint64_t* key_tmp = key + n;
    int32_t* perm = (int32_t*)spare;
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
    /* The solver velocities are free again: they hold renumber_contacts' counts. */
    return !w->contacts.pair_end || renumber_contacts(w, perm, inv, (int32_t*)w->sv, packed);
}
