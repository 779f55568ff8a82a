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

#include <stdint.h>

enum { LOAM_HASH_Q = 100 };   /* the paper's offset q */

typedef struct loam_spatial_hash {
    int table_size;           /* buckets */
    int capacity;             /* particles the next array holds */
    uint64_t mod_magic;       /* 2^64 / table_size rounded up: v % table_size without a division */
    int32_t* head;            /* table_size; -1 = empty */
    int32_t* next;            /* capacity; -1 = end of chain */
    float inv_cell[3];        /* 1 / cell size per axis */
    float origin[3];          /* cell coordinates count from here */
    int periodic_axis;        /* -1 or the wrapped axis */
    int periodic_cells;       /* cells along the periodic axis */
} loam_spatial_hash;

/* Allocates; returns 0 on out-of-memory. */
int loam_hash_init(loam_spatial_hash* h, int table_size, int capacity);
void loam_hash_free(loam_spatial_hash* h);

/* Cell size c; with a periodic axis of length L, that axis uses L / floor(L / c) >= c. */
void loam_hash_set_cell(loam_spatial_hash* h, float cell, int periodic_axis, float periodic_lo,
                        float periodic_hi);

/* Rebuild from n positions (SoA), in parallel. */
void loam_hash_build(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z);

/* The distinct buckets of the 27 cells around p, written to buckets; returns their count. */
int loam_hash_neighbor_buckets(const loam_spatial_hash* h, float px, float py, float pz,
                               int32_t buckets[27]);

#endif
