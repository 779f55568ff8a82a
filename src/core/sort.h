/* Sorting helpers. Insertion sort for the short lists the engine keeps sorted (neighbours, incoming
 * pairs): a handful of entries, where it beats anything cleverer; quantiles of float arrays. */
#ifndef LOAM_CORE_SORT_H
#define LOAM_CORE_SORT_H

#include <stdint.h>
#include <stdlib.h>

static inline void loam_sort_small_ints(int32_t* a, int n) {
    for (int k = 1; k < n; ++k) {
        int32_t v = a[k];
        int m = k - 1;
        while (m >= 0 && a[m] > v) {
            a[m + 1] = a[m];
            --m;
        }
        a[m + 1] = v;
    }
}

static inline int loam_compare_floats(const void* a, const void* b) {
    float u = *(const float*)a, v = *(const float*)b;
    return (u > v) - (u < v);
}

/* The q-quantile (0 <= q <= 1) of n > 0 values, by sorting them in place: bed tops and the like. */
static inline float loam_quantile_in_place(float* v, int n, double q) {
    qsort(v, (size_t)n, sizeof(float), loam_compare_floats);
    return v[(size_t)((double)(n - 1) * q)];
}

#endif
