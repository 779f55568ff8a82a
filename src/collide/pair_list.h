/* A Verlet pair list over a set of points (as LAMMPS keeps one): every pair closer than a reach
 * (contact distance plus a skin), found through the spatial hash, and kept while no point has moved
 * more than half the skin since the build. Soft-body mass-mass contact uses it; the granular world
 * keeps its own specialised form of the same idea (granular/neighbors.c: per-block lists with
 * movement bounds and slack codes for SIMD scans of millions of particles). */
#ifndef LOAM_COLLIDE_PAIR_LIST_H
#define LOAM_COLLIDE_PAIR_LIST_H

#include <stdint.h>

#include "collide/spatial_hash.h"

enum { LOAM_PAIRS_MAX_PARTNERS = 256 };

/* Rebuilds h from the n points and writes every pair (i, j), i < j, closer than reach into
 * pairs[2 q], pairs[2 q + 1], sorted by (i, j) whatever the hash's order; returns the pair count,
 * or -1 when a point has more than max_partners (<= LOAM_PAIRS_MAX_PARTNERS) partners above it or
 * more than cap pairs are found (the list is then incomplete and must not be used). */
int loam_pairs_within(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z, float reach, int max_partners,
                      int32_t* pairs, int cap);

/* Whether any of the n points is farther than limit from where it was (bx, by, bz); NaN counts as
 * moved, so a diverging set rebuilds rather than trusting a stale list. */
int loam_pairs_moved_past(int n, const float* x, const float* y, const float* z, const float* bx, const float* by, const float* bz,
                          float limit);

#endif
