/* A small, fast, seedable random generator (SplitMix64) for scene generation and tests: the same seed
 * gives the same particles on every machine. */
#ifndef LOAM_CORE_RNG_H
#define LOAM_CORE_RNG_H

#include <stdint.h>

typedef struct loam_rng { uint64_t state; } loam_rng;

static inline uint64_t loam_rng_next(loam_rng* r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double loam_rng_uniform(loam_rng* r) { return (double)(loam_rng_next(r) >> 11) * 0x1.0p-53; }

#endif
