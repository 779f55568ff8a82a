/* The Verlet pair list of pair_list.h. */
#include "collide/pair_list.h"

int loam_pairs_within(loam_spatial_hash* h, int n, const float* x, const float* y, const float* z, float reach, int max_partners,
                      int32_t* pairs, int cap) {
    if (max_partners > LOAM_PAIRS_MAX_PARTNERS) max_partners = LOAM_PAIRS_MAX_PARTNERS;
    int np = 0;
    /* On the caller's thread: a population spreads its robots over threads, and one robot's
     * masses are too few to share; the chain order does not matter, partners are sorted. */
    loam_hash_build_threads(h, n, x, y, z, 1);
    for (int i = 0; i < n; ++i) {
        int32_t partner[LOAM_PAIRS_MAX_PARTNERS];
        int count = 0;
        loam_hash_query near;
        loam_hash_query_radius(&near, h, x, y, z, x[i], y[i], z[i], reach);
        for (int32_t j; (j = loam_hash_query_next(&near)) >= 0;) {
            if (j <= i) continue;
            if (count == max_partners) return -1;
            int at = count++; /* insertion sort: partners are few */
            while (at > 0 && partner[at - 1] > j) partner[at] = partner[at - 1], --at;
            partner[at] = j;
        }
        if (np + count > cap) return -1;
        for (int q = 0; q < count; ++q) pairs[2 * np] = i, pairs[2 * np + 1] = partner[q], ++np;
    }
    return np;
}

int loam_pairs_moved_past(int n, const float* x, const float* y, const float* z, const float* bx, const float* by, const float* bz,
                          float limit) {
    float lim2 = limit * limit;
    int moved = 0;
    for (int i = 0; i < n; ++i) {
        float dx = x[i] - bx[i], dy = y[i] - by[i], dz = z[i] - bz[i];
        moved |= !(dx * dx + dy * dy + dz * dz <= lim2);
    }
    return moved;
}
