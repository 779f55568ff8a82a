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

#endif
