/* The linked spatial hash of paper 000 (section II-B, Algorithm 2): particles hashed by their cell
 * with Teschner's primes into a head table; a next array of size N chains particles that share a
 * bucket. Built in parallel with one compare-and-swap per particle.
 *
 * Differences from GranularGym, on purpose:
 * - cells are floor(x / c) with c sized from the largest radius plus the contact margin, so
 *   polydisperse particles are never missed;
 * - a query visits each distinct bucket once: two of the 27 cells may hash to the same bucket, and
 *   visiting it twice would report the same neighbour twice (GranularGym would);
 * - one axis may be periodic: cell coordinates wrap modulo the number of cells along it. */
#ifndef LOAM_COLLIDE_SPATIAL_HASH_H
#define LOAM_COLLIDE_SPATIAL_HASH_H

#include <stddef.h>
#include <stdint.h>

enum { LOAM_HASH_Q = 100 };   /* the paper's offset q */

typedef struct loam_spatial_hash {
    int table_size;           /* buckets */
    int capacity;             /* particles the next array holds */
    uint64_t mod_magic;       /* 2^64 / table_size rounded up: v % table_size without a division */
    int32_t* head;            /* table_size (+ 1 for bucket_start); -1 = empty */
    int32_t* next;            /* capacity; -1 = end of chain */
    int32_t* bucket_of;       /* capacity: each particle's bucket */
    /* The same table compacted (loam_hash_compact, a counting sort by bucket): bucket b's particles
     * are items[bucket_start[b] .. bucket_start[b + 1]), ascending. Queries then read contiguous
     * runs instead of chasing the chain (a dependent load per candidate, most of a neighbour-list
     * build in perf). The runs live in the chains' memory (bucket_start in head's, items in
     * next's): a hash is used either way, and the granular world's is 12 bytes a particle less. */
    int32_t* bucket_start;    /* table_size + 1; aliases head */
    int32_t* items;           /* capacity; aliases next */
    float inv_cell[3];        /* 1 / cell size per axis */
    float origin[3];          /* cell coordinates count from here */
    int periodic_axis;        /* -1 or the wrapped axis */
    int periodic_cells;       /* cells along the periodic axis */
    int owned;                /* head, next and bucket_of are the hash's own (loam_hash_init) */
    int compacted;            /* the last build was compacted: runs, not chains */
} loam_spatial_hash;

/* Allocates; returns 0 on out-of-memory. */
int loam_hash_init(loam_spatial_hash* h, int table_size, int capacity);
/* Bytes of memory a hash of these sizes needs (loam_hash_attach). */
size_t loam_hash_bytes(int table_size, int capacity);
/* Sets the sizes and puts the arrays in memory the caller owns (loam_hash_bytes of it, 4-byte
 * aligned), for a hash needed only while it is built and queried; cell settings are kept. With
 * memory NULL: the sizes only, no arrays until the next attach, and the cell settings reset. */
void loam_hash_attach(loam_spatial_hash* h, int table_size, int capacity, void* memory);
void loam_hash_free(loam_spatial_hash* h);

/* Cell size c; with a periodic axis of length L, that axis uses L / floor(L / c) >= c. */
void loam_hash_set_cell(loam_spatial_hash* h, float cell, int periodic_axis, float periodic_lo,
                        float periodic_hi);

/* Rebuild the chains from n positions (SoA), in parallel (Algorithm 2) on `threads` threads (0 = the
 * default, core/threads.h); loam_hash_build: on the default. */
void loam_hash_build_threads(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z, int threads);
void loam_hash_build(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z);
/* Turn the chains of the last build into the compact runs, in their place: after it, head and next
 * no longer hold chains. */
void loam_hash_compact(loam_spatial_hash* h, int n);

/* The cell of p (wrapped along the periodic axis). */
void loam_hash_cell(const loam_spatial_hash* h, float px, float py, float pz, int32_t cell[3]);
/* The distinct buckets of the 27 cells around a cell, written to buckets; returns their count. */
int loam_hash_cell_neighbor_buckets(const loam_spatial_hash* h, const int32_t cell[3], int32_t buckets[27]);
/* The same around the cell of p. */
int loam_hash_neighbor_buckets(const loam_spatial_hash* h, float px, float py, float pz,
                               int32_t buckets[27]);


/* Queries. Callers go through these and never read head, next or the runs themselves, so the
 * storage can change (chains, runs, a GPU layout) without touching them.
 *
 * Candidates around a point: every item in the distinct buckets of the 27 cells around it, from
 * chains or runs alike, each once; with positions and a radius (loam_hash_query_radius) only items
 * closer than the radius (|p - x_j| < radius; NaN is never within). The order is the storage's:
 * callers that need a fixed order sort what they keep.
 *
 *     loam_hash_query q;
 *     loam_hash_query_radius(&q, h, x, y, z, px, py, pz, radius);
 *     for (int32_t j; (j = loam_hash_query_next(&q)) >= 0;) ...
 */
typedef struct loam_hash_query {
    const loam_spatial_hash* h;
    const float *x, *y, *z;   /* NULL: no distance filter */
    float p[3], r2;
    int32_t buckets[27];
    int nb, k;                /* buckets, and the one being read */
    int32_t at, end;          /* chains: the next item (-1 at the end); runs: slots [at, end) */
} loam_hash_query;

static inline void loam_hash_query_point(loam_hash_query* q, const loam_spatial_hash* h, float px, float py, float pz) {
    q->h = h;
    q->x = q->y = q->z = 0;
    q->p[0] = px, q->p[1] = py, q->p[2] = pz, q->r2 = 0.0f;
    q->nb = loam_hash_neighbor_buckets(h, px, py, pz, q->buckets);
    q->k = -1;
    q->at = -1, q->end = 0;
}

static inline void loam_hash_query_radius(loam_hash_query* q, const loam_spatial_hash* h, const float* x, const float* y,
                                          const float* z, float px, float py, float pz, float radius) {
    loam_hash_query_point(q, h, px, py, pz);
    q->x = x, q->y = y, q->z = z, q->r2 = radius * radius;
}

/* The next candidate, or -1 when there is none. */
static inline int32_t loam_hash_query_next(loam_hash_query* q) {
    const loam_spatial_hash* h = q->h;
    for (;;) {
        int32_t j;
        if (h->compacted ? q->at < q->end : q->at >= 0) {
            j = h->compacted ? h->items[q->at++] : q->at;
            if (!h->compacted) q->at = h->next[j];
        } else {
            if (++q->k >= q->nb) return -1;
            int32_t b = q->buckets[q->k];
            q->at = h->compacted ? h->bucket_start[b] : h->head[b];
            q->end = h->compacted ? h->bucket_start[b + 1] : 0;
            continue;
        }
        if (!q->x) return j;
        float dx = q->p[0] - q->x[j], dy = q->p[1] - q->y[j], dz = q->p[2] - q->z[j];
        if (dx * dx + dy * dy + dz * dz < q->r2) return j;
    }
}

/* Cell-range iteration over compact runs (after loam_hash_compact), for kernels that read a
 * bucket's items as one contiguous run: bucket b holds slots [loam_hash_bucket_first,
 * loam_hash_bucket_end) with ascending items, and slot s holds item loam_hash_slot_item(h, s). A
 * caller may keep per-slot copies (the granular world keeps positions in slot order, so a run's
 * positions are contiguous too). */
static inline int32_t loam_hash_bucket_first(const loam_spatial_hash* h, int32_t bucket) { return h->bucket_start[bucket]; }
static inline int32_t loam_hash_bucket_end(const loam_spatial_hash* h, int32_t bucket) { return h->bucket_start[bucket + 1]; }
static inline int32_t loam_hash_slot_item(const loam_spatial_hash* h, int32_t slot) { return h->items[slot]; }

#endif
